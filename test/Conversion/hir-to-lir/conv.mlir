// RUN: lamina-opt %s --pass-pipeline='builtin.module(convert-hir-to-lir)' | FileCheck %s

// A 3x3 convolution with padding 1 over a 3x3 image of one channel tile
// (4-lane array), then relu and a save. The input sits in local memory as a
// zero-padded 5x5 plane (vectors 0..24): three DataMoves bring the image rows
// to its interior, four fill the border from the zero block that follows the
// 37 HIR consts vectors in DRAM1 (the bias vector, then 9 tiles of 4 rows).
// Each weight tile is moved to the weight slot (local 25), loaded, and
// applied by one MatMul per output row (3 outputs each, at accumulators 0, 5
// and 10 = row x plane width 5): a MatMul after a MatMul costs no fill, so the
// garbage columns 3, 4, 8, 9 a single MatMul over the band would compute
// are skipped. The tiles after the first accumulate, so they also leave out
// the rows and columns where their kernel pixel reads the zero padding
// (kernel row 0: output row 0; kernel column 2: output column 2). The first tile
// moves with the bias before it (5 vectors, one LoadWeight of 5) and its
// MatMul overwrites. Before the second, one zero vector from the zero block
// (DRAM1 37) clears the slot's bias row; each other tile then moves only its
// 4 rows to slot rows 1..4, is loaded with the same LoadWeight of 5, and
// accumulates.

// CHECK: module attributes {lir.architecture =
// CHECK-NOT: hir.
// CHECK-NEXT: "lir.data_move"() {{{.*}}address = 0 : i64, local = 6 : i64, local_stride = 1 : i64, size = 3 : i64, source = "dram0", stride = 1 : i64, target = "local"}
// CHECK-NEXT: "lir.data_move"() {{{.*}}address = 3 : i64, local = 11 : i64, {{.*}}size = 3 : i64, source = "dram0"
// CHECK-NEXT: "lir.data_move"() {{{.*}}address = 6 : i64, local = 16 : i64, {{.*}}size = 3 : i64, source = "dram0"
// CHECK-NEXT: "lir.data_move"() {{{.*}}address = 37 : i64, local = 0 : i64, {{.*}}size = 6 : i64, source = "dram1"
// CHECK-NEXT: "lir.data_move"() {{{.*}}address = 37 : i64, local = 9 : i64, {{.*}}size = 2 : i64, source = "dram1"
// CHECK-NEXT: "lir.data_move"() {{{.*}}address = 37 : i64, local = 14 : i64, {{.*}}size = 2 : i64, source = "dram1"
// CHECK-NEXT: "lir.data_move"() {{{.*}}address = 37 : i64, local = 19 : i64, {{.*}}size = 6 : i64, source = "dram1"
// CHECK-NEXT: "lir.data_move"() {{{.*}}address = 0 : i64, local = 25 : i64, {{.*}}size = 5 : i64, source = "dram1"
// CHECK-NEXT: "lir.load_weight"() {local = 25 : i64, local_stride = 1 : i64, size = 5 : i64, zeroes = false}
// CHECK-NEXT: "lir.matmul"() {accumulate = false, accumulator = 0 : i64, accumulator_stride = 1 : i64, local = 0 : i64, local_stride = 1 : i64, size = 3 : i64, zeroes = false}
// CHECK-NEXT: "lir.matmul"() {accumulate = false, accumulator = 5 : i64, accumulator_stride = 1 : i64, local = 5 : i64, local_stride = 1 : i64, size = 3 : i64, zeroes = false}
// CHECK-NEXT: "lir.matmul"() {accumulate = false, accumulator = 10 : i64, accumulator_stride = 1 : i64, local = 10 : i64, local_stride = 1 : i64, size = 3 : i64, zeroes = false}
// CHECK-NEXT: "lir.data_move"() {{{.*}}address = 37 : i64, local = 25 : i64, {{.*}}size = 1 : i64, source = "dram1"
// CHECK-NEXT: "lir.data_move"() {{{.*}}address = 5 : i64, local = 26 : i64, {{.*}}size = 4 : i64, source = "dram1"
// CHECK-NEXT: "lir.load_weight"() {local = 25 : i64, local_stride = 1 : i64, size = 5 : i64, zeroes = false}
// CHECK-NEXT: "lir.matmul"() {accumulate = true, accumulator = 5 : i64, accumulator_stride = 1 : i64, local = 6 : i64, local_stride = 1 : i64, size = 3 : i64, zeroes = false}
// CHECK-NEXT: "lir.matmul"() {accumulate = true, accumulator = 10 : i64, accumulator_stride = 1 : i64, local = 11 : i64, local_stride = 1 : i64, size = 3 : i64, zeroes = false}
// CHECK-COUNT-15: "lir.matmul"() {accumulate = true
// CHECK: "lir.data_move"() {{{.*}}address = 33 : i64, local = 26 : i64, {{.*}}size = 4 : i64, source = "dram1"
// CHECK-NEXT: "lir.load_weight"() {local = 25 : i64, {{.*}}size = 5 : i64, zeroes = false}
// CHECK-NEXT: "lir.matmul"() {accumulate = true, accumulator = 0 : i64, accumulator_stride = 1 : i64, local = 12 : i64, local_stride = 1 : i64, size = 2 : i64, zeroes = false}
// CHECK-NEXT: "lir.matmul"() {accumulate = true, accumulator = 5 : i64, accumulator_stride = 1 : i64, local = 17 : i64, local_stride = 1 : i64, size = 2 : i64, zeroes = false}
// Relu: register 1 = 0, then Max(input, register 1) on the 9 valid outputs only.
// CHECK-NEXT: "lir.simd"() {accumulate = false, dest = 1 : i64, left = 0 : i64, op = "zero", read = -1 : i64, right = 0 : i64, write = -1 : i64}
// CHECK-NEXT: "lir.simd"() {{{.*}}op = "max", read = 0 : i64, right = 1 : i64, write = 0 : i64}
// CHECK-NEXT: "lir.simd"() {{{.*}}op = "max", read = 1 : i64, right = 1 : i64, write = 1 : i64}
// CHECK-NEXT: "lir.simd"() {{{.*}}op = "max", read = 2 : i64, right = 1 : i64, write = 2 : i64}
// CHECK-NEXT: "lir.simd"() {{{.*}}op = "max", read = 5 : i64, right = 1 : i64, write = 5 : i64}
// CHECK-COUNT-5: "lir.simd"() {{{.*}}op = "max"
// Save: the valid outputs, one run per output row, into local staging; one run out to DRAM0.
// CHECK-NEXT: "lir.data_move"() {{{.*}}address = 0 : i64, local = 30 : i64, {{.*}}size = 3 : i64, source = "accumulator"
// CHECK-NEXT: "lir.data_move"() {{{.*}}address = 5 : i64, local = 33 : i64, {{.*}}size = 3 : i64, source = "accumulator"
// CHECK-NEXT: "lir.data_move"() {{{.*}}address = 10 : i64, local = 36 : i64, {{.*}}size = 3 : i64, source = "accumulator"
// CHECK-NEXT: "lir.data_move"() {{{.*}}address = 9 : i64, local = 30 : i64, {{.*}}size = 9 : i64, source = "local", stride = 1 : i64, target = "dram0"}
// CHECK-NEXT: }

module attributes {hir.architecture = "{\22accumulator_depth\22: 64, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22number_of_threads\22: 1, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4, \22thread_queue_depth\22: 8}", hir.inputs = ["x"], hir.outputs = ["y"]} {
  func.func @main() {
    %x = "hir.vars"() {binary_point = 8 : i64, name = "x", base = 0 : i64} : () -> memref<1x4x3x3xi16>
    %y = "hir.vars"() {binary_point = 8 : i64, name = "y", base = 9 : i64} : () -> memref<1x4x3x3xi16>
    %w = "hir.consts"() {binary_point = 8 : i64, base = 0 : i64, page = 0 : i64, value = dense<16> : tensor<37x4xi16>} : () -> memref<37x4xi16>
    %t = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x4x3x3xi16>
    "hir.matmul"(%t, %x, %w) {layer = 0 : i64, kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, tile_slots = array<i64: 0, 1, 2, 3, 4, 5, 6, 7, 8>} : (memref<1x4x3x3xi16>, memref<1x4x3x3xi16>, memref<37x4xi16>) -> ()
    "hir.relu"(%t, %t) {layer = 0 : i64} : (memref<1x4x3x3xi16>, memref<1x4x3x3xi16>) -> ()
    "hir.save"(%y, %t) {layer = 0 : i64} : (memref<1x4x3x3xi16>, memref<1x4x3x3xi16>) -> ()
    return
  }
}
