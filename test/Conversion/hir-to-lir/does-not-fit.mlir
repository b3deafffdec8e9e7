// RUN: not lamina-opt %s --pass-pipeline='builtin.module(convert-hir-to-lir)' 2>&1 | FileCheck %s

// A layer whose smallest stage (one output row) does not fit local memory:
// 4 channel tiles x 3 padded plane rows x 10 columns = 120 input vectors,
// a 5-vector weight slot, 8 staging vectors and 1 scratch vector are 134 of
// the architecture's 64. The error names the layer's location, the memory,
// what is needed and available, and the excess.

// CHECK: does-not-fit.mlir:[[# @LINE + 8]]:5: error: layer 0 does not fit the small local memory: its smallest stage (one output row) needs 134 vectors, 64 are available (70 too many)

module attributes {hir.architecture = "{\22accumulator_depth\22: 64, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 64, \22name\22: \22small\22, \22number_of_threads\22: 1, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4, \22thread_queue_depth\22: 8}", hir.inputs = ["x"], hir.outputs = ["y"]} {
  func.func @main() {
    %x = "hir.vars"() {binary_point = 8 : i64, name = "x", base = 0 : i64} : () -> memref<1x16x4x8xi16>
    %y = "hir.vars"() {binary_point = 8 : i64, name = "y", base = 128 : i64} : () -> memref<1x4x4x8xi16>
    %w = "hir.consts"() {binary_point = 8 : i64, base = 0 : i64, page = 0 : i64, value = dense<16> : tensor<145x4xi16>} : () -> memref<145x4xi16>
    %t = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x4x4x8xi16>
    "hir.matmul"(%t, %x, %w) {layer = 0 : i64, kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, tile_slots = array<i64: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35>} : (memref<1x4x4x8xi16>, memref<1x16x4x8xi16>, memref<145x4xi16>) -> ()
    "hir.save"(%y, %t) {layer = 0 : i64} : (memref<1x4x4x8xi16>, memref<1x4x4x8xi16>) -> ()
    return
  }
}
