// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-to-cpu)' | FileCheck %s
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-to-cpu{vectorize=false})' | FileCheck %s --check-prefix=SCALAR
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-to-cpu{threads=2})' | FileCheck %s --check-prefix=THREADS
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-to-cpu{threads=2})' | mlir-opt --verify-diagnostics | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR
// The result is LLVM dialect upstream mlir-opt reads and translates without Lamina's dialects.
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-to-cpu)' | mlir-opt --verify-diagnostics | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR

// graph-to-cpu lowers the model to the LLVM dialect: @main takes the input's
// memref descriptor then the output's (an out-parameter) and has the C
// interface the ExecutionEngine calls. With vectorize (the default) the
// convolution (as matmuls) becomes 32-wide vector FMAs; without, scalar loops.

// CHECK-LABEL: llvm.func @main(
// CHECK:         vector<32xf32>
// CHECK-NOT:     linalg.
// CHECK:       llvm.func @_mlir_ciface_main(
// SCALAR-LABEL: llvm.func @main(
// SCALAR-NOT:    vector<
// SCALAR:       llvm.func @_mlir_ciface_main(
// With threads=1 (the default) no threading code; with threads=2 the convolution's position blocks
// (an scf.forall when there are several: 512 KiB of output here, two blocks of BLOCK_BYTES in
// convolution_blocks.py; a smaller output is one block, run inline, with no threading code) are an
// outlined block function the MLIR async runtime runs (tokens in a group, awaited by @main).
// cpu-outline-loops leaves the dispatch in @main (it outlines loops, not async-parallel-for's scf.if),
// and outlines the block function's own loop nest.
// CHECK-NOT:     mlirAsyncRuntime
// THREADS-LABEL: llvm.func @main(
// THREADS:         llvm.call @mlirAsyncRuntimeCreateGroup
// THREADS:         llvm.call @async_execute_fn(
// THREADS:         llvm.call @mlirAsyncRuntimeAwaitAllInGroup
// THREADS:       llvm.func @_mlir_ciface_main(
// THREADS:       llvm.func @parallel_compute_fn_loop0(
// THREADS:       llvm.func @parallel_compute_fn(
// THREADS:         llvm.call @parallel_compute_fn_loop0(
// LLVMIR: define void @_mlir_ciface_main(ptr %0, ptr %1)
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x8x130x130xf32>
  %w = "graph.splat"() {value = 0.5 : f32} : () -> tensor<8x8x3x3xf32>
  %b = "graph.splat"() {value = 1.0 : f32} : () -> tensor<8xf32>
  %y = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x130x130xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x128x128xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x8x128x128xf32>) -> ()
  return
}
