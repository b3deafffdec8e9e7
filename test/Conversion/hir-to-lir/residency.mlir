// RUN: lamina-opt %s --pass-pipeline='builtin.module(convert-hir-to-lir)' | FileCheck %s
// RUN: sed 's/hir.outputs = \["y"\]/hir.outputs = ["h", "y"]/' %s | lamina-opt --pass-pipeline='builtin.module(convert-hir-to-lir)' | FileCheck %s --check-prefix=OUTPUT
// RUN: sed 's/\\22local_depth\\22: 256/\\22local_depth\\22: 48/' %s | lamina-opt --pass-pipeline='builtin.module(convert-hir-to-lir)' | FileCheck %s --check-prefix=THIN
// RUN: sed 's/\\22local_depth\\22: 256/\\22local_depth\\22: 36/' %s | lamina-opt --pass-pipeline='builtin.module(convert-hir-to-lir)' | FileCheck %s --check-prefix=NOFIT

// Residency: a 1x1 convolution saves h, which only the next layer (a 3x3
// convolution, padding 1) reads and which is no model output, so h stays in
// local memory. Its planes (one zero-padded 5x5 plane, local 231..255, at the
// top of local memory) get their border from the zero block once, the first
// layer writes its outputs from the accumulators straight into the plane's
// interior (one DataMove per row, no staging, no DRAM0), and the second
// layer's MatMuls read the plane in place: no DRAM0 traffic but x and y.

// CHECK: "lir.data_move"() {{{.*}}address = 42 : i64, local = 231 : i64, {{.*}}size = 6 : i64, source = "dram1"
// CHECK-NEXT: "lir.data_move"() {{{.*}}address = 42 : i64, local = 240 : i64, {{.*}}size = 2 : i64, source = "dram1"
// CHECK-NEXT: "lir.data_move"() {{{.*}}address = 42 : i64, local = 245 : i64, {{.*}}size = 2 : i64, source = "dram1"
// CHECK-NEXT: "lir.data_move"() {{{.*}}address = 42 : i64, local = 250 : i64, {{.*}}size = 6 : i64, source = "dram1"
// CHECK-NEXT: "lir.data_move"() {{{.*}}address = 0 : i64, local = 0 : i64, {{.*}}size = 9 : i64, source = "dram0"
// CHECK: "lir.matmul"() {accumulate = false, accumulator = 0 : i64, {{.*}}local = 0 : i64, {{.*}}size = 9 : i64
// CHECK-NEXT: "lir.data_move"() {{{.*}}address = 0 : i64, local = 237 : i64, {{.*}}size = 3 : i64, source = "accumulator", stride = 1 : i64, target = "local"}
// CHECK-NEXT: "lir.data_move"() {{{.*}}address = 3 : i64, local = 242 : i64, {{.*}}size = 3 : i64, source = "accumulator", stride = 1 : i64, target = "local"}
// CHECK-NEXT: "lir.data_move"() {{{.*}}address = 6 : i64, local = 247 : i64, {{.*}}size = 3 : i64, source = "accumulator", stride = 1 : i64, target = "local"}
// CHECK-NOT: "dram0"
// CHECK: "lir.matmul"() {accumulate = false, accumulator = 0 : i64, {{.*}}local = 231 : i64, {{.*}}size = 3 : i64
// CHECK-NOT: "dram0"
// CHECK: target = "dram0"
// CHECK-NOT: "dram0"
// CHECK: }

// Not when h is also a model output: it is saved to DRAM0 through the
// staging buffer and loaded back into the second layer's band planes.

// OUTPUT: "lir.data_move"() {{{.*}}address = 0 : i64, local = 0 : i64, {{.*}}size = 9 : i64, source = "dram0"
// OUTPUT: "lir.data_move"() {{{.*}}address = 0 : i64, local = 14 : i64, {{.*}}size = 9 : i64, source = "accumulator"
// OUTPUT-NEXT: "lir.data_move"() {{{.*}}address = 9 : i64, local = 14 : i64, {{.*}}size = 9 : i64, source = "local", stride = 1 : i64, target = "dram0"}
// OUTPUT-NEXT: "lir.data_move"() {{{.*}}address = 9 : i64, local = 6 : i64, {{.*}}size = 3 : i64, source = "dram0"

// With 48 local vectors, h's 25-vector planes do not fit above the first
// layer's natural working area (x's 9 planes, a 5-vector weight slot, a
// 9-vector region and a scratch vector: 24), but do above bands of 2 rows
// (18): one more band costs a weight tile (4 + 5 + 4 cycles), less than the
// 50 - 16 its DRAM0 save and load would (less the padding it zeroes). So x
// comes in two bands and h stays, at local 23.

// THIN: "lir.data_move"() {{{.*}}address = 42 : i64, local = 23 : i64, {{.*}}size = 6 : i64, source = "dram1"
// THIN: "lir.data_move"() {{{.*}}address = 0 : i64, local = 0 : i64, {{.*}}size = 6 : i64, source = "dram0"
// THIN: "lir.data_move"() {{{.*}}address = 6 : i64, local = 0 : i64, {{.*}}size = 3 : i64, source = "dram0"
// THIN-NOT: "dram0"
// THIN: "lir.matmul"() {accumulate = false, accumulator = 0 : i64, {{.*}}local = 23 : i64, {{.*}}size = 3 : i64
// THIN-NOT: "dram0"
// THIN: target = "dram0"
// THIN-NOT: "dram0"
// THIN: }

// With 36, not even bands of one row leave room (12 + 25 > 36): h goes
// through DRAM0.

// NOFIT: "lir.data_move"() {{{.*}}address = 0 : i64, local = 0 : i64, {{.*}}size = 9 : i64, source = "dram0"
// NOFIT-NEXT: "lir.data_move"() {{{.*}}size = 5 : i64, source = "dram1"
// NOFIT: "lir.data_move"() {{{.*}}address = 9 : i64, local = 14 : i64, {{.*}}size = 9 : i64, source = "local", stride = 1 : i64, target = "dram0"}

module attributes {hir.architecture = "{\22accumulator_depth\22: 64, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22number_of_threads\22: 1, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4, \22thread_queue_depth\22: 8}", hir.inputs = ["x"], hir.outputs = ["y"]} {
  func.func @main() {
    %x = "hir.vars"() {binary_point = 8 : i64, name = "x", base = 0 : i64} : () -> memref<1x4x3x3xi16>
    %h = "hir.vars"() {binary_point = 8 : i64, name = "h", base = 9 : i64} : () -> memref<1x4x3x3xi16>
    %y = "hir.vars"() {binary_point = 8 : i64, name = "y", base = 18 : i64} : () -> memref<1x4x3x3xi16>
    %w0 = "hir.consts"() {binary_point = 8 : i64, base = 0 : i64, page = 0 : i64, value = dense<16> : tensor<5x4xi16>} : () -> memref<5x4xi16>
    %w1 = "hir.consts"() {binary_point = 8 : i64, base = 5 : i64, page = 0 : i64, value = dense<16> : tensor<37x4xi16>} : () -> memref<37x4xi16>
    %t0 = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x4x3x3xi16>
    "hir.matmul"(%t0, %x, %w0) {layer = 0 : i64, kernel = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tile_slots = array<i64: 0>} : (memref<1x4x3x3xi16>, memref<1x4x3x3xi16>, memref<5x4xi16>) -> ()
    "hir.save"(%h, %t0) {layer = 0 : i64} : (memref<1x4x3x3xi16>, memref<1x4x3x3xi16>) -> ()
    %t1 = "hir.temp"() {binary_point = 8 : i64, layer = 1 : i64} : () -> memref<1x4x3x3xi16>
    "hir.matmul"(%t1, %h, %w1) {layer = 1 : i64, kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, tile_slots = array<i64: 0, 1, 2, 3, 4, 5, 6, 7, 8>} : (memref<1x4x3x3xi16>, memref<1x4x3x3xi16>, memref<37x4xi16>) -> ()
    "hir.save"(%y, %t1) {layer = 1 : i64} : (memref<1x4x3x3xi16>, memref<1x4x3x3xi16>) -> ()
    return
  }
}
