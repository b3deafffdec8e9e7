// RUN: lamina-opt %s | lamina-opt | FileCheck %s

// Every hir op parses, verifies and prints back unchanged (generic form
// only: IRDL ops have no custom syntax in MLIR 22). test_dialects.py checks
// that this file uses every op. The architecture is a 4-lane array.

// CHECK: module attributes {hir.architecture = "{\22accumulator_depth\22: 256
module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22number_of_threads\22: 1, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4, \22thread_queue_depth\22: 8}"} {
  // CHECK-LABEL: func.func @main()
  func.func @main() {
    // CHECK-NEXT: %0 = "hir.vars"() {base = 0 : i64, binary_point = 8 : i64, name = "x"} : () -> memref<1x4x3x3xi16>
    %x = "hir.vars"() {binary_point = 8 : i64, name = "x", base = 0 : i64} : () -> memref<1x4x3x3xi16>
    // CHECK-NEXT: %1 = "hir.vars"() {base = 9 : i64, binary_point = 8 : i64, name = "cat"} : () -> memref<1x8x3x3xi16>
    %cat = "hir.vars"() {binary_point = 8 : i64, name = "cat", base = 9 : i64} : () -> memref<1x8x3x3xi16>
    // CHECK-NEXT: %2 = "hir.view"(%1) {channel_offset = 4 : i64} : (memref<1x8x3x3xi16>) -> memref<1x4x3x3xi16>
    %y = "hir.view"(%cat) {channel_offset = 4 : i64} : (memref<1x8x3x3xi16>) -> memref<1x4x3x3xi16>
    // CHECK-NEXT: %3 = "hir.vars"() {base = 27 : i64, binary_point = 8 : i64, name = "p"} : () -> memref<1x4x2x2xi16>
    %p = "hir.vars"() {binary_point = 8 : i64, name = "p", base = 27 : i64} : () -> memref<1x4x2x2xi16>
    // CHECK-NEXT: %4 = "hir.consts"() {base = 0 : i64, binary_point = 8 : i64, page = 0 : i64, value = dense<{{.*}}> : tensor<5x4xi16>} : () -> memref<5x4xi16>
    %w = "hir.consts"() {binary_point = 8 : i64, base = 0 : i64, page = 0 : i64, value = dense<[[1, 0, 0, 0], [256, 0, 0, 0], [0, 256, 0, 0], [0, 0, 256, 0], [0, 0, 0, 256]]> : tensor<5x4xi16>} : () -> memref<5x4xi16>
    // CHECK-NEXT: %5 = "hir.consts"() {base = 5 : i64, binary_point = 8 : i64, page = 0 : i64, value = dense<128> : tensor<1x4xi16>} : () -> memref<1x4xi16>
    %half = "hir.consts"() {binary_point = 8 : i64, base = 5 : i64, page = 0 : i64, value = dense<128> : tensor<1x4xi16>} : () -> memref<1x4xi16>
    // CHECK-NEXT: %6 = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x4x3x3xi16>
    %t = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x4x3x3xi16>
    // CHECK-NEXT: %7 = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x4x3x3xi16>
    %u = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x4x3x3xi16>
    // CHECK-NEXT: "hir.matmul"(%6, %0, %4) {dilations = array<i64: 1, 1>, kernel = array<i64: 1, 1>, layer = 0 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, tile_slots = array<i64: 0>}
    "hir.matmul"(%t, %x, %w) {layer = 0 : i64, kernel = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tile_slots = array<i64: 0>} : (memref<1x4x3x3xi16>, memref<1x4x3x3xi16>, memref<5x4xi16>) -> ()
    // CHECK-NEXT: "hir.load"(%7, %0) {layer = 0 : i64}
    "hir.load"(%u, %x) {layer = 0 : i64} : (memref<1x4x3x3xi16>, memref<1x4x3x3xi16>) -> ()
    // CHECK-NEXT: "hir.add"(%6, %6, %0) {layer = 0 : i64}
    "hir.add"(%t, %t, %x) {layer = 0 : i64} : (memref<1x4x3x3xi16>, memref<1x4x3x3xi16>, memref<1x4x3x3xi16>) -> ()
    // CHECK-NEXT: "hir.binary"(%6, %6, %7) {layer = 0 : i64, op = "max"}
    "hir.binary"(%t, %t, %u) {layer = 0 : i64, op = "max"} : (memref<1x4x3x3xi16>, memref<1x4x3x3xi16>, memref<1x4x3x3xi16>) -> ()
    // CHECK-NEXT: "hir.channel"(%6, %6, %5) {layer = 0 : i64, op = "mul", swap = false}
    "hir.channel"(%t, %t, %half) {layer = 0 : i64, op = "mul", swap = false} : (memref<1x4x3x3xi16>, memref<1x4x3x3xi16>, memref<1x4xi16>) -> ()
    // CHECK-NEXT: "hir.relu"(%6, %6) {layer = 0 : i64}
    "hir.relu"(%t, %t) {layer = 0 : i64} : (memref<1x4x3x3xi16>, memref<1x4x3x3xi16>) -> ()
    // CHECK-NEXT: "hir.clip"(%6, %6) {layer = 0 : i64, max = 6.000000e+00 : f32, min = 0.000000e+00 : f32}
    "hir.clip"(%t, %t) {layer = 0 : i64, min = 0.0 : f32, max = 6.0 : f32} : (memref<1x4x3x3xi16>, memref<1x4x3x3xi16>) -> ()
    // CHECK-NEXT: "hir.leaky_relu"(%6, %6) {alpha = 1.000000e-01 : f32, layer = 0 : i64}
    "hir.leaky_relu"(%t, %t) {layer = 0 : i64, alpha = 0.1 : f32} : (memref<1x4x3x3xi16>, memref<1x4x3x3xi16>) -> ()
    // CHECK-NEXT: "hir.save"(%2, %6) {layer = 0 : i64}
    "hir.save"(%y, %t) {layer = 0 : i64} : (memref<1x4x3x3xi16>, memref<1x4x3x3xi16>) -> ()
    // CHECK-NEXT: %8 = "hir.temp"() {binary_point = 8 : i64, layer = 1 : i64} : () -> memref<1x4x3x3xi16>
    %l = "hir.temp"() {binary_point = 8 : i64, layer = 1 : i64} : () -> memref<1x4x3x3xi16>
    // CHECK-NEXT: %9 = "hir.temp"() {binary_point = 8 : i64, layer = 1 : i64} : () -> memref<1x4x2x2xi16>
    %q = "hir.temp"() {binary_point = 8 : i64, layer = 1 : i64} : () -> memref<1x4x2x2xi16>
    // CHECK-NEXT: "hir.load"(%8, %2) {layer = 1 : i64}
    "hir.load"(%l, %y) {layer = 1 : i64} : (memref<1x4x3x3xi16>, memref<1x4x3x3xi16>) -> ()
    // CHECK-NEXT: "hir.pool"(%9, %8) {count_include_pad = false, kernel = array<i64: 2, 2>, kind = "avg", layer = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
    "hir.pool"(%q, %l) {layer = 1 : i64, kind = "avg", kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, count_include_pad = false} : (memref<1x4x2x2xi16>, memref<1x4x3x3xi16>) -> ()
    // CHECK-NEXT: "hir.save"(%3, %9) {layer = 1 : i64}
    "hir.save"(%p, %q) {layer = 1 : i64} : (memref<1x4x2x2xi16>, memref<1x4x2x2xi16>) -> ()
    // CHECK-NEXT: "hir.host"() {module = "module {}", segment = 0 : i64} : () -> ()
    "hir.host"() {segment = 0 : i64, module = "module {}"} : () -> ()
    return
  }
}
