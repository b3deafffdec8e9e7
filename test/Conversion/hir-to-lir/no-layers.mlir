// RUN: lamina-opt %s --pass-pipeline='builtin.module(convert-hir-to-lir)' | FileCheck %s

// Not firing: a HIR model with memory objects and a host segment but no
// layer schedules to no instruction; the module keeps only the LIR
// architecture attribute.

// CHECK: module attributes {lir.architecture = "{\22name\22: \22tiny\22
// CHECK-NOT: hir.
// CHECK-NOT: lir.
// CHECK: }

module attributes {hir.architecture = "{\22accumulator_depth\22: 64, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22number_of_threads\22: 1, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4, \22thread_queue_depth\22: 8}", hir.inputs = ["x"], hir.outputs = ["y"]} {
  func.func @main() {
    %x = "hir.vars"() {binary_point = 8 : i64, name = "x", base = 0 : i64} : () -> memref<1x4x3x3xi16>
    "hir.host"() {segment = 0 : i64, module = "module {}"} : () -> ()
    return
  }
}
