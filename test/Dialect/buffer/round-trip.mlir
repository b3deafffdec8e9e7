// RUN: lamina-opt %s | lamina-opt | FileCheck %s

// Every buffer op parses, verifies and prints back unchanged, also after a
// second trip through the printer (generic form only: IRDL ops have no custom
// syntax in MLIR 22). test_dialects.py checks that this file uses every op.
//
// @declarations shows what memory planning leaves: offsets, the regions'
// sizes on the module, a private immutable weight, a view at a byte offset.
// The other functions are IRGen's output (convert-graph-to-buffer) on the
// graph dialect's round-trip functions, so each graph op's instruction
// appears with graph.X's attributes, its destination first.

// CHECK: module attributes {buffer.activation_bytes = 128 : i64, buffer.constant_bytes = 128 : i64, buffer.mutable_bytes = 128 : i64} {
module attributes {buffer.activation_bytes = 128 : i64, buffer.constant_bytes = 128 : i64, buffer.mutable_bytes = 128 : i64} {

// CHECK-LABEL: func.func @declarations() {
  func.func @declarations() {
    // CHECK-NEXT: %0 = "buffer.weight"() {mutable = true, name = "input", offset = 0 : i64, public = true} : () -> memref<2x8xf32>
    %0 = "buffer.weight"() {mutable = true, name = "input", offset = 0 : i64, public = true} : () -> memref<2x8xf32>
    // CHECK-NEXT: %1 = "buffer.weight"() {mutable = false, name = "frozen", offset = 64 : i64, public = false} : () -> memref<8xf32>
    %1 = "buffer.weight"() {mutable = false, name = "frozen", offset = 64 : i64, public = false} : () -> memref<8xf32>
    // CHECK-NEXT: %2 = "buffer.weight"() {mutable = true, name = "output", offset = 64 : i64, public = true} : () -> memref<2x4xf32>
    %2 = "buffer.weight"() {mutable = true, name = "output", offset = 64 : i64, public = true} : () -> memref<2x4xf32>
    // CHECK-NEXT: %3 = "buffer.constant"() {name = "table", offset = 0 : i64, value = dense<[1, 2, 3]> : tensor<3xi64>} : () -> memref<3xi64>
    %3 = "buffer.constant"() {name = "table", offset = 0 : i64, value = dense<[1, 2, 3]> : tensor<3xi64>} : () -> memref<3xi64>
    // CHECK-NEXT: %4 = "buffer.alloc"() {name = "scratch", offset = 64 : i64} : () -> memref<2x8xf32>
    %4 = "buffer.alloc"() {name = "scratch", offset = 64 : i64} : () -> memref<2x8xf32>
    // CHECK-NEXT: "buffer.copy"(%4, %0) : (memref<2x8xf32>, memref<2x8xf32>) -> ()
    "buffer.copy"(%4, %0) : (memref<2x8xf32>, memref<2x8xf32>) -> ()
    // CHECK-NEXT: %5 = "buffer.view"(%4) {byte_offset = 32 : i64} : (memref<2x8xf32>) -> memref<2x4xf32>
    %5 = "buffer.view"(%4) {byte_offset = 32 : i64} : (memref<2x8xf32>) -> memref<2x4xf32>
    // CHECK-NEXT: "buffer.copy"(%2, %5) : (memref<2x4xf32>, memref<2x4xf32>) -> ()
    "buffer.copy"(%2, %5) : (memref<2x4xf32>, memref<2x4xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%4) : (memref<2x8xf32>) -> ()
    "buffer.dealloc"(%4) : (memref<2x8xf32>) -> ()
    // CHECK-NEXT: return
    return
  }

// CHECK-LABEL: func.func @sources() {
  func.func @sources() {
    // CHECK-NEXT: %0 = "buffer.weight"() {mutable = true, name = "input", offset = -1 : i64, public = true} : () -> memref<2x3xf32>
    %0 = "buffer.weight"() {mutable = true, name = "input", offset = -1 : i64, public = true} : () -> memref<2x3xf32>
    // CHECK-NEXT: %1 = "buffer.constant"() {name = "constant", offset = -1 : i64, value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>} : () -> memref<2xf32>
    %1 = "buffer.constant"() {name = "constant", offset = -1 : i64, value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>} : () -> memref<2xf32>
    // CHECK-NEXT: %2 = "buffer.weight"() {mutable = true, name = "output", offset = -1 : i64, public = true} : () -> memref<2x3xf32>
    %2 = "buffer.weight"() {mutable = true, name = "output", offset = -1 : i64, public = true} : () -> memref<2x3xf32>
    // CHECK-NEXT: %3 = "buffer.alloc"() {name = "splat", offset = -1 : i64} : () -> memref<2x2xf32>
    %3 = "buffer.alloc"() {name = "splat", offset = -1 : i64} : () -> memref<2x2xf32>
    // CHECK-NEXT: "buffer.splat"(%3) {value = 5.000000e-01 : f32} : (memref<2x2xf32>) -> ()
    "buffer.splat"(%3) {value = 5.000000e-01 : f32} : (memref<2x2xf32>) -> ()
    // CHECK-NEXT: "buffer.copy"(%2, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.copy"(%2, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%3) : (memref<2x2xf32>) -> ()
    "buffer.dealloc"(%3) : (memref<2x2xf32>) -> ()
    // CHECK-NEXT: return
    return
  }

// CHECK-LABEL: func.func @layers() {
  func.func @layers() {
    // CHECK-NEXT: %0 = "buffer.weight"() {mutable = true, name = "image", offset = -1 : i64, public = true} : () -> memref<1x4x8x8xf32>
    %0 = "buffer.weight"() {mutable = true, name = "image", offset = -1 : i64, public = true} : () -> memref<1x4x8x8xf32>
    // CHECK-NEXT: %1 = "buffer.weight"() {mutable = true, name = "features", offset = -1 : i64, public = true} : () -> memref<2x16xf32>
    %1 = "buffer.weight"() {mutable = true, name = "features", offset = -1 : i64, public = true} : () -> memref<2x16xf32>
    // CHECK-NEXT: %2 = "buffer.alloc"() {name = "splat", offset = -1 : i64} : () -> memref<6x2x3x3xf32>
    %2 = "buffer.alloc"() {name = "splat", offset = -1 : i64} : () -> memref<6x2x3x3xf32>
    // CHECK-NEXT: "buffer.splat"(%2) {value = 5.000000e-01 : f32} : (memref<6x2x3x3xf32>) -> ()
    "buffer.splat"(%2) {value = 5.000000e-01 : f32} : (memref<6x2x3x3xf32>) -> ()
    // CHECK-NEXT: %3 = "buffer.alloc"() {name = "splat.1", offset = -1 : i64} : () -> memref<6xf32>
    %3 = "buffer.alloc"() {name = "splat.1", offset = -1 : i64} : () -> memref<6xf32>
    // CHECK-NEXT: "buffer.splat"(%3) {value = 0.000000e+00 : f32} : (memref<6xf32>) -> ()
    "buffer.splat"(%3) {value = 0.000000e+00 : f32} : (memref<6xf32>) -> ()
    // CHECK-NEXT: %4 = "buffer.alloc"() {name = "convolution", offset = -1 : i64} : () -> memref<1x6x8x8xf32>
    %4 = "buffer.alloc"() {name = "convolution", offset = -1 : i64} : () -> memref<1x6x8x8xf32>
    // CHECK-NEXT: "buffer.convolution"(%4, %0, %2, %3) {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (memref<1x6x8x8xf32>, memref<1x4x8x8xf32>, memref<6x2x3x3xf32>, memref<6xf32>) -> ()
    "buffer.convolution"(%4, %0, %2, %3) {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (memref<1x6x8x8xf32>, memref<1x4x8x8xf32>, memref<6x2x3x3xf32>, memref<6xf32>) -> ()
    // CHECK-NEXT: %5 = "buffer.alloc"() {name = "splat.2", offset = -1 : i64} : () -> memref<4x2x3x3xf32>
    %5 = "buffer.alloc"() {name = "splat.2", offset = -1 : i64} : () -> memref<4x2x3x3xf32>
    // CHECK-NEXT: "buffer.splat"(%5) {value = 5.000000e-01 : f32} : (memref<4x2x3x3xf32>) -> ()
    "buffer.splat"(%5) {value = 5.000000e-01 : f32} : (memref<4x2x3x3xf32>) -> ()
    // CHECK-NEXT: %6 = "buffer.alloc"() {name = "splat.3", offset = -1 : i64} : () -> memref<2xf32>
    %6 = "buffer.alloc"() {name = "splat.3", offset = -1 : i64} : () -> memref<2xf32>
    // CHECK-NEXT: "buffer.splat"(%6) {value = 0.000000e+00 : f32} : (memref<2xf32>) -> ()
    "buffer.splat"(%6) {value = 0.000000e+00 : f32} : (memref<2xf32>) -> ()
    // CHECK-NEXT: %7 = "buffer.alloc"() {name = "conv_transpose", offset = -1 : i64} : () -> memref<1x2x16x16xf32>
    %7 = "buffer.alloc"() {name = "conv_transpose", offset = -1 : i64} : () -> memref<1x2x16x16xf32>
    // CHECK-NEXT: "buffer.conv_transpose"(%7, %0, %5, %6) {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (memref<1x2x16x16xf32>, memref<1x4x8x8xf32>, memref<4x2x3x3xf32>, memref<2xf32>) -> ()
    "buffer.conv_transpose"(%7, %0, %5, %6) {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (memref<1x2x16x16xf32>, memref<1x4x8x8xf32>, memref<4x2x3x3xf32>, memref<2xf32>) -> ()
    // CHECK-NEXT: %8 = "buffer.alloc"() {name = "max_pool", offset = -1 : i64} : () -> memref<1x4x4x4xf32>
    %8 = "buffer.alloc"() {name = "max_pool", offset = -1 : i64} : () -> memref<1x4x4x4xf32>
    // CHECK-NEXT: "buffer.max_pool"(%8, %0) {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (memref<1x4x4x4xf32>, memref<1x4x8x8xf32>) -> ()
    "buffer.max_pool"(%8, %0) {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (memref<1x4x4x4xf32>, memref<1x4x8x8xf32>) -> ()
    // CHECK-NEXT: %9 = "buffer.alloc"() {name = "avg_pool", offset = -1 : i64} : () -> memref<1x4x5x5xf32>
    %9 = "buffer.alloc"() {name = "avg_pool", offset = -1 : i64} : () -> memref<1x4x5x5xf32>
    // CHECK-NEXT: "buffer.avg_pool"(%9, %0) {ceil_mode = true, count_include_pad = false, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (memref<1x4x5x5xf32>, memref<1x4x8x8xf32>) -> ()
    "buffer.avg_pool"(%9, %0) {ceil_mode = true, count_include_pad = false, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (memref<1x4x5x5xf32>, memref<1x4x8x8xf32>) -> ()
    // CHECK-NEXT: %10 = "buffer.alloc"() {name = "global_avg_pool", offset = -1 : i64} : () -> memref<1x4x1x1xf32>
    %10 = "buffer.alloc"() {name = "global_avg_pool", offset = -1 : i64} : () -> memref<1x4x1x1xf32>
    // CHECK-NEXT: "buffer.global_avg_pool"(%10, %0) : (memref<1x4x1x1xf32>, memref<1x4x8x8xf32>) -> ()
    "buffer.global_avg_pool"(%10, %0) : (memref<1x4x1x1xf32>, memref<1x4x8x8xf32>) -> ()
    // CHECK-NEXT: %11 = "buffer.alloc"() {name = "global_max_pool", offset = -1 : i64} : () -> memref<1x4x1x1xf32>
    %11 = "buffer.alloc"() {name = "global_max_pool", offset = -1 : i64} : () -> memref<1x4x1x1xf32>
    // CHECK-NEXT: "buffer.global_max_pool"(%11, %0) : (memref<1x4x1x1xf32>, memref<1x4x8x8xf32>) -> ()
    "buffer.global_max_pool"(%11, %0) : (memref<1x4x1x1xf32>, memref<1x4x8x8xf32>) -> ()
    // CHECK-NEXT: %12 = "buffer.alloc"() {name = "splat.4", offset = -1 : i64} : () -> memref<4xf32>
    %12 = "buffer.alloc"() {name = "splat.4", offset = -1 : i64} : () -> memref<4xf32>
    // CHECK-NEXT: "buffer.splat"(%12) {value = 2.500000e-01 : f32} : (memref<4xf32>) -> ()
    "buffer.splat"(%12) {value = 2.500000e-01 : f32} : (memref<4xf32>) -> ()
    // CHECK-NEXT: %13 = "buffer.alloc"() {name = "batch_norm", offset = -1 : i64} : () -> memref<1x4x8x8xf32>
    %13 = "buffer.alloc"() {name = "batch_norm", offset = -1 : i64} : () -> memref<1x4x8x8xf32>
    // CHECK-NEXT: "buffer.batch_norm"(%13, %0, %12, %12, %12, %12) {epsilon = 1.250000e-01 : f32} : (memref<1x4x8x8xf32>, memref<1x4x8x8xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
    "buffer.batch_norm"(%13, %0, %12, %12, %12, %12) {epsilon = 1.250000e-01 : f32} : (memref<1x4x8x8xf32>, memref<1x4x8x8xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
    // CHECK-NEXT: %14 = "buffer.alloc"() {name = "lrn", offset = -1 : i64} : () -> memref<1x4x8x8xf32>
    %14 = "buffer.alloc"() {name = "lrn", offset = -1 : i64} : () -> memref<1x4x8x8xf32>
    // CHECK-NEXT: "buffer.lrn"(%14, %0) {alpha = 1.250000e-01 : f32, beta = 7.500000e-01 : f32, bias = 1.000000e+00 : f32, size = 3 : i64} : (memref<1x4x8x8xf32>, memref<1x4x8x8xf32>) -> ()
    "buffer.lrn"(%14, %0) {alpha = 1.250000e-01 : f32, beta = 7.500000e-01 : f32, bias = 1.000000e+00 : f32, size = 3 : i64} : (memref<1x4x8x8xf32>, memref<1x4x8x8xf32>) -> ()
    // CHECK-NEXT: %15 = "buffer.alloc"() {name = "splat.5", offset = -1 : i64} : () -> memref<16x10xf32>
    %15 = "buffer.alloc"() {name = "splat.5", offset = -1 : i64} : () -> memref<16x10xf32>
    // CHECK-NEXT: "buffer.splat"(%15) {value = 5.000000e-01 : f32} : (memref<16x10xf32>) -> ()
    "buffer.splat"(%15) {value = 5.000000e-01 : f32} : (memref<16x10xf32>) -> ()
    // CHECK-NEXT: %16 = "buffer.alloc"() {name = "splat.6", offset = -1 : i64} : () -> memref<10xf32>
    %16 = "buffer.alloc"() {name = "splat.6", offset = -1 : i64} : () -> memref<10xf32>
    // CHECK-NEXT: "buffer.splat"(%16) {value = 0.000000e+00 : f32} : (memref<10xf32>) -> ()
    "buffer.splat"(%16) {value = 0.000000e+00 : f32} : (memref<10xf32>) -> ()
    // CHECK-NEXT: %17 = "buffer.alloc"() {name = "fully_connected", offset = -1 : i64} : () -> memref<2x10xf32>
    %17 = "buffer.alloc"() {name = "fully_connected", offset = -1 : i64} : () -> memref<2x10xf32>
    // CHECK-NEXT: "buffer.fully_connected"(%17, %1, %15, %16) : (memref<2x10xf32>, memref<2x16xf32>, memref<16x10xf32>, memref<10xf32>) -> ()
    "buffer.fully_connected"(%17, %1, %15, %16) : (memref<2x10xf32>, memref<2x16xf32>, memref<16x10xf32>, memref<10xf32>) -> ()
    // CHECK-NEXT: %18 = "buffer.alloc"() {name = "splat.7", offset = -1 : i64} : () -> memref<16xf32>
    %18 = "buffer.alloc"() {name = "splat.7", offset = -1 : i64} : () -> memref<16xf32>
    // CHECK-NEXT: "buffer.splat"(%18) {value = 1.000000e+00 : f32} : (memref<16xf32>) -> ()
    "buffer.splat"(%18) {value = 1.000000e+00 : f32} : (memref<16xf32>) -> ()
    // CHECK-NEXT: %19 = "buffer.alloc"() {name = "layer_norm", offset = -1 : i64} : () -> memref<2x16xf32>
    %19 = "buffer.alloc"() {name = "layer_norm", offset = -1 : i64} : () -> memref<2x16xf32>
    // CHECK-NEXT: "buffer.layer_norm"(%19, %1, %18, %18) {axis = 1 : i64, epsilon = 1.250000e-01 : f32} : (memref<2x16xf32>, memref<2x16xf32>, memref<16xf32>, memref<16xf32>) -> ()
    "buffer.layer_norm"(%19, %1, %18, %18) {axis = 1 : i64, epsilon = 1.250000e-01 : f32} : (memref<2x16xf32>, memref<2x16xf32>, memref<16xf32>, memref<16xf32>) -> ()
    // CHECK-NEXT: %20 = "buffer.alloc"() {name = "softmax", offset = -1 : i64} : () -> memref<2x10xf32>
    %20 = "buffer.alloc"() {name = "softmax", offset = -1 : i64} : () -> memref<2x10xf32>
    // CHECK-NEXT: "buffer.softmax"(%20, %17) {axis = 1 : i64} : (memref<2x10xf32>, memref<2x10xf32>) -> ()
    "buffer.softmax"(%20, %17) {axis = 1 : i64} : (memref<2x10xf32>, memref<2x10xf32>) -> ()
    // CHECK-NEXT: %21 = "buffer.alloc"() {name = "splat.8", offset = -1 : i64} : () -> memref<2x3x4xf32>
    %21 = "buffer.alloc"() {name = "splat.8", offset = -1 : i64} : () -> memref<2x3x4xf32>
    // CHECK-NEXT: "buffer.splat"(%21) {value = 1.000000e+00 : f32} : (memref<2x3x4xf32>) -> ()
    "buffer.splat"(%21) {value = 1.000000e+00 : f32} : (memref<2x3x4xf32>) -> ()
    // CHECK-NEXT: %22 = "buffer.alloc"() {name = "splat.9", offset = -1 : i64} : () -> memref<4x5xf32>
    %22 = "buffer.alloc"() {name = "splat.9", offset = -1 : i64} : () -> memref<4x5xf32>
    // CHECK-NEXT: "buffer.splat"(%22) {value = 1.000000e+00 : f32} : (memref<4x5xf32>) -> ()
    "buffer.splat"(%22) {value = 1.000000e+00 : f32} : (memref<4x5xf32>) -> ()
    // CHECK-NEXT: %23 = "buffer.alloc"() {name = "matmul", offset = -1 : i64} : () -> memref<2x3x5xf32>
    %23 = "buffer.alloc"() {name = "matmul", offset = -1 : i64} : () -> memref<2x3x5xf32>
    // CHECK-NEXT: "buffer.matmul"(%23, %21, %22) : (memref<2x3x5xf32>, memref<2x3x4xf32>, memref<4x5xf32>) -> ()
    "buffer.matmul"(%23, %21, %22) : (memref<2x3x5xf32>, memref<2x3x4xf32>, memref<4x5xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%2) : (memref<6x2x3x3xf32>) -> ()
    "buffer.dealloc"(%2) : (memref<6x2x3x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%3) : (memref<6xf32>) -> ()
    "buffer.dealloc"(%3) : (memref<6xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%4) : (memref<1x6x8x8xf32>) -> ()
    "buffer.dealloc"(%4) : (memref<1x6x8x8xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%5) : (memref<4x2x3x3xf32>) -> ()
    "buffer.dealloc"(%5) : (memref<4x2x3x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%6) : (memref<2xf32>) -> ()
    "buffer.dealloc"(%6) : (memref<2xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%7) : (memref<1x2x16x16xf32>) -> ()
    "buffer.dealloc"(%7) : (memref<1x2x16x16xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%8) : (memref<1x4x4x4xf32>) -> ()
    "buffer.dealloc"(%8) : (memref<1x4x4x4xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%9) : (memref<1x4x5x5xf32>) -> ()
    "buffer.dealloc"(%9) : (memref<1x4x5x5xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%10) : (memref<1x4x1x1xf32>) -> ()
    "buffer.dealloc"(%10) : (memref<1x4x1x1xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%11) : (memref<1x4x1x1xf32>) -> ()
    "buffer.dealloc"(%11) : (memref<1x4x1x1xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%12) : (memref<4xf32>) -> ()
    "buffer.dealloc"(%12) : (memref<4xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%13) : (memref<1x4x8x8xf32>) -> ()
    "buffer.dealloc"(%13) : (memref<1x4x8x8xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%14) : (memref<1x4x8x8xf32>) -> ()
    "buffer.dealloc"(%14) : (memref<1x4x8x8xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%15) : (memref<16x10xf32>) -> ()
    "buffer.dealloc"(%15) : (memref<16x10xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%16) : (memref<10xf32>) -> ()
    "buffer.dealloc"(%16) : (memref<10xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%17) : (memref<2x10xf32>) -> ()
    "buffer.dealloc"(%17) : (memref<2x10xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%18) : (memref<16xf32>) -> ()
    "buffer.dealloc"(%18) : (memref<16xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%19) : (memref<2x16xf32>) -> ()
    "buffer.dealloc"(%19) : (memref<2x16xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%20) : (memref<2x10xf32>) -> ()
    "buffer.dealloc"(%20) : (memref<2x10xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%21) : (memref<2x3x4xf32>) -> ()
    "buffer.dealloc"(%21) : (memref<2x3x4xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%22) : (memref<4x5xf32>) -> ()
    "buffer.dealloc"(%22) : (memref<4x5xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%23) : (memref<2x3x5xf32>) -> ()
    "buffer.dealloc"(%23) : (memref<2x3x5xf32>) -> ()
    // CHECK-NEXT: return
    return
  }

// CHECK-LABEL: func.func @elementwise() {
  func.func @elementwise() {
    // CHECK-NEXT: %0 = "buffer.weight"() {mutable = true, name = "a", offset = -1 : i64, public = true} : () -> memref<2x3xf32>
    %0 = "buffer.weight"() {mutable = true, name = "a", offset = -1 : i64, public = true} : () -> memref<2x3xf32>
    // CHECK-NEXT: %1 = "buffer.weight"() {mutable = true, name = "b", offset = -1 : i64, public = true} : () -> memref<2x3xf32>
    %1 = "buffer.weight"() {mutable = true, name = "b", offset = -1 : i64, public = true} : () -> memref<2x3xf32>
    // CHECK-NEXT: %2 = "buffer.alloc"() {name = "add", offset = -1 : i64} : () -> memref<2x3xf32>
    %2 = "buffer.alloc"() {name = "add", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.add"(%2, %0, %1) : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.add"(%2, %0, %1) : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %3 = "buffer.alloc"() {name = "sub", offset = -1 : i64} : () -> memref<2x3xf32>
    %3 = "buffer.alloc"() {name = "sub", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.sub"(%3, %0, %1) : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.sub"(%3, %0, %1) : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %4 = "buffer.alloc"() {name = "mul", offset = -1 : i64} : () -> memref<2x3xf32>
    %4 = "buffer.alloc"() {name = "mul", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.mul"(%4, %0, %1) : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.mul"(%4, %0, %1) : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %5 = "buffer.alloc"() {name = "div", offset = -1 : i64} : () -> memref<2x3xf32>
    %5 = "buffer.alloc"() {name = "div", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.div"(%5, %0, %1) : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.div"(%5, %0, %1) : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %6 = "buffer.alloc"() {name = "max", offset = -1 : i64} : () -> memref<2x3xf32>
    %6 = "buffer.alloc"() {name = "max", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.max"(%6, %0, %1) : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.max"(%6, %0, %1) : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %7 = "buffer.alloc"() {name = "min", offset = -1 : i64} : () -> memref<2x3xf32>
    %7 = "buffer.alloc"() {name = "min", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.min"(%7, %0, %1) : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.min"(%7, %0, %1) : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %8 = "buffer.alloc"() {name = "pow", offset = -1 : i64} : () -> memref<2x3xf32>
    %8 = "buffer.alloc"() {name = "pow", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.pow"(%8, %0, %1) : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.pow"(%8, %0, %1) : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %9 = "buffer.alloc"() {name = "equal", offset = -1 : i64} : () -> memref<2x3xi1>
    %9 = "buffer.alloc"() {name = "equal", offset = -1 : i64} : () -> memref<2x3xi1>
    // CHECK-NEXT: "buffer.equal"(%9, %0, %1) : (memref<2x3xi1>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.equal"(%9, %0, %1) : (memref<2x3xi1>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %10 = "buffer.alloc"() {name = "less", offset = -1 : i64} : () -> memref<2x3xi1>
    %10 = "buffer.alloc"() {name = "less", offset = -1 : i64} : () -> memref<2x3xi1>
    // CHECK-NEXT: "buffer.less"(%10, %0, %1) : (memref<2x3xi1>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.less"(%10, %0, %1) : (memref<2x3xi1>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %11 = "buffer.alloc"() {name = "greater", offset = -1 : i64} : () -> memref<2x3xi1>
    %11 = "buffer.alloc"() {name = "greater", offset = -1 : i64} : () -> memref<2x3xi1>
    // CHECK-NEXT: "buffer.greater"(%11, %0, %1) : (memref<2x3xi1>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.greater"(%11, %0, %1) : (memref<2x3xi1>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %12 = "buffer.alloc"() {name = "where", offset = -1 : i64} : () -> memref<2x3xf32>
    %12 = "buffer.alloc"() {name = "where", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.where"(%12, %11, %0, %1) : (memref<2x3xf32>, memref<2x3xi1>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.where"(%12, %11, %0, %1) : (memref<2x3xf32>, memref<2x3xi1>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %13 = "buffer.alloc"() {name = "sum", offset = -1 : i64} : () -> memref<2x3xf32>
    %13 = "buffer.alloc"() {name = "sum", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.sum"(%13, %0, %1, %0) : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.sum"(%13, %0, %1, %0) : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %14 = "buffer.alloc"() {name = "relu", offset = -1 : i64} : () -> memref<2x3xf32>
    %14 = "buffer.alloc"() {name = "relu", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.relu"(%14, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.relu"(%14, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %15 = "buffer.alloc"() {name = "sigmoid", offset = -1 : i64} : () -> memref<2x3xf32>
    %15 = "buffer.alloc"() {name = "sigmoid", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.sigmoid"(%15, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.sigmoid"(%15, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.hard_sigmoid"(%15, %0) {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32} : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.hard_sigmoid"(%15, %0) {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32} : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %16 = "buffer.alloc"() {name = "tanh", offset = -1 : i64} : () -> memref<2x3xf32>
    %16 = "buffer.alloc"() {name = "tanh", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.tanh"(%16, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.tanh"(%16, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %17 = "buffer.alloc"() {name = "erf", offset = -1 : i64} : () -> memref<2x3xf32>
    %17 = "buffer.alloc"() {name = "erf", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.erf"(%17, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.erf"(%17, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %18 = "buffer.alloc"() {name = "exp", offset = -1 : i64} : () -> memref<2x3xf32>
    %18 = "buffer.alloc"() {name = "exp", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.exp"(%18, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.exp"(%18, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %19 = "buffer.alloc"() {name = "log", offset = -1 : i64} : () -> memref<2x3xf32>
    %19 = "buffer.alloc"() {name = "log", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.log"(%19, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.log"(%19, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %20 = "buffer.alloc"() {name = "sqrt", offset = -1 : i64} : () -> memref<2x3xf32>
    %20 = "buffer.alloc"() {name = "sqrt", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.sqrt"(%20, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.sqrt"(%20, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %21 = "buffer.alloc"() {name = "reciprocal", offset = -1 : i64} : () -> memref<2x3xf32>
    %21 = "buffer.alloc"() {name = "reciprocal", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.reciprocal"(%21, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.reciprocal"(%21, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %22 = "buffer.alloc"() {name = "neg", offset = -1 : i64} : () -> memref<2x3xf32>
    %22 = "buffer.alloc"() {name = "neg", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.neg"(%22, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.neg"(%22, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %23 = "buffer.alloc"() {name = "abs", offset = -1 : i64} : () -> memref<2x3xf32>
    %23 = "buffer.alloc"() {name = "abs", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.abs"(%23, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.abs"(%23, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %24 = "buffer.alloc"() {name = "leaky_relu", offset = -1 : i64} : () -> memref<2x3xf32>
    %24 = "buffer.alloc"() {name = "leaky_relu", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.leaky_relu"(%24, %0) {alpha = 1.250000e-01 : f32} : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.leaky_relu"(%24, %0) {alpha = 1.250000e-01 : f32} : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %25 = "buffer.alloc"() {name = "clip", offset = -1 : i64} : () -> memref<2x3xf32>
    %25 = "buffer.alloc"() {name = "clip", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.clip"(%25, %0) {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.clip"(%25, %0) {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %26 = "buffer.alloc"() {name = "gelu", offset = -1 : i64} : () -> memref<2x3xf32>
    %26 = "buffer.alloc"() {name = "gelu", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.gelu"(%26, %0) {approximate = "tanh"} : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.gelu"(%26, %0) {approximate = "tanh"} : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %27 = "buffer.alloc"() {name = "identity", offset = -1 : i64} : () -> memref<2x3xf32>
    %27 = "buffer.alloc"() {name = "identity", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.identity"(%27, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.identity"(%27, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %28 = "buffer.alloc"() {name = "dropout", offset = -1 : i64} : () -> memref<2x3xf32>
    %28 = "buffer.alloc"() {name = "dropout", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.dropout"(%28, %0) {ratio = 5.000000e-01 : f32} : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.dropout"(%28, %0) {ratio = 5.000000e-01 : f32} : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %29 = "buffer.alloc"() {name = "swish", offset = -1 : i64} : () -> memref<2x3xf32>
    %29 = "buffer.alloc"() {name = "swish", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.swish"(%29, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.swish"(%29, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.hard_sigmoid"(%29, %0) {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32} : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.hard_sigmoid"(%29, %0) {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32} : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%2) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%2) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%3) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%3) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%4) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%4) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%5) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%5) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%6) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%6) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%7) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%7) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%8) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%8) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%9) : (memref<2x3xi1>) -> ()
    "buffer.dealloc"(%9) : (memref<2x3xi1>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%10) : (memref<2x3xi1>) -> ()
    "buffer.dealloc"(%10) : (memref<2x3xi1>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%11) : (memref<2x3xi1>) -> ()
    "buffer.dealloc"(%11) : (memref<2x3xi1>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%12) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%12) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%13) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%13) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%14) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%14) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%15) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%15) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%16) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%16) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%17) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%17) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%18) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%18) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%19) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%19) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%20) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%20) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%21) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%21) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%22) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%22) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%23) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%23) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%24) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%24) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%25) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%25) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%26) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%26) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%27) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%27) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%28) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%28) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%29) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%29) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: return
    return
  }

// CHECK-LABEL: func.func @data_movement() {
  func.func @data_movement() {
    // CHECK-NEXT: %0 = "buffer.weight"() {mutable = true, name = "a", offset = -1 : i64, public = true} : () -> memref<2x3xf32>
    %0 = "buffer.weight"() {mutable = true, name = "a", offset = -1 : i64, public = true} : () -> memref<2x3xf32>
    // CHECK-NEXT: %1 = "buffer.weight"() {mutable = true, name = "row", offset = -1 : i64, public = true} : () -> memref<1x3xf32>
    %1 = "buffer.weight"() {mutable = true, name = "row", offset = -1 : i64, public = true} : () -> memref<1x3xf32>
    // CHECK-NEXT: %2 = "buffer.constant"() {name = "constant", offset = -1 : i64, value = dense<[0, 2, -1, 1]> : tensor<4xi64>} : () -> memref<4xi64>
    %2 = "buffer.constant"() {name = "constant", offset = -1 : i64, value = dense<[0, 2, -1, 1]> : tensor<4xi64>} : () -> memref<4xi64>
    // CHECK-NEXT: %3 = "buffer.weight"() {mutable = true, name = "small", offset = -1 : i64, public = true} : () -> memref<1x1x2x2xf32>
    %3 = "buffer.weight"() {mutable = true, name = "small", offset = -1 : i64, public = true} : () -> memref<1x1x2x2xf32>
    // CHECK-NEXT: %4 = "buffer.view"(%0) {byte_offset = 0 : i64} : (memref<2x3xf32>) -> memref<3x2xf32>
    %4 = "buffer.view"(%0) {byte_offset = 0 : i64} : (memref<2x3xf32>) -> memref<3x2xf32>
    // CHECK-NEXT: %5 = "buffer.alloc"() {name = "broadcast", offset = -1 : i64} : () -> memref<2x3xf32>
    %5 = "buffer.alloc"() {name = "broadcast", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.broadcast"(%5, %1) : (memref<2x3xf32>, memref<1x3xf32>) -> ()
    "buffer.broadcast"(%5, %1) : (memref<2x3xf32>, memref<1x3xf32>) -> ()
    // CHECK-NEXT: %6 = "buffer.alloc"() {name = "convert", offset = -1 : i64} : () -> memref<2x3xi32>
    %6 = "buffer.alloc"() {name = "convert", offset = -1 : i64} : () -> memref<2x3xi32>
    // CHECK-NEXT: "buffer.convert"(%6, %0) : (memref<2x3xi32>, memref<2x3xf32>) -> ()
    "buffer.convert"(%6, %0) : (memref<2x3xi32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %7 = "buffer.alloc"() {name = "transpose", offset = -1 : i64} : () -> memref<3x2xf32>
    %7 = "buffer.alloc"() {name = "transpose", offset = -1 : i64} : () -> memref<3x2xf32>
    // CHECK-NEXT: "buffer.transpose"(%7, %0) {perm = array<i64: 1, 0>} : (memref<3x2xf32>, memref<2x3xf32>) -> ()
    "buffer.transpose"(%7, %0) {perm = array<i64: 1, 0>} : (memref<3x2xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %8 = "buffer.alloc"() {name = "concat", offset = -1 : i64} : () -> memref<4x3xf32>
    %8 = "buffer.alloc"() {name = "concat", offset = -1 : i64} : () -> memref<4x3xf32>
    // CHECK-NEXT: "buffer.concat"(%8, %0, %5) {axis = 0 : i64} : (memref<4x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.concat"(%8, %0, %5) {axis = 0 : i64} : (memref<4x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %9 = "buffer.alloc"() {name = "slice", offset = -1 : i64} : () -> memref<2x2xf32>
    %9 = "buffer.alloc"() {name = "slice", offset = -1 : i64} : () -> memref<2x2xf32>
    // CHECK-NEXT: "buffer.slice"(%9, %0) {ends = array<i64: 2, 3>, starts = array<i64: 0, 0>, steps = array<i64: 1, 2>} : (memref<2x2xf32>, memref<2x3xf32>) -> ()
    "buffer.slice"(%9, %0) {ends = array<i64: 2, 3>, starts = array<i64: 0, 0>, steps = array<i64: 1, 2>} : (memref<2x2xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %10 = "buffer.alloc"() {name = "pad", offset = -1 : i64} : () -> memref<2x5xf32>
    %10 = "buffer.alloc"() {name = "pad", offset = -1 : i64} : () -> memref<2x5xf32>
    // CHECK-NEXT: "buffer.pad"(%10, %0) {mode = "constant", pads = array<i64: 0, 1, 0, 1>, value = 0.000000e+00 : f32} : (memref<2x5xf32>, memref<2x3xf32>) -> ()
    "buffer.pad"(%10, %0) {mode = "constant", pads = array<i64: 0, 1, 0, 1>, value = 0.000000e+00 : f32} : (memref<2x5xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %11 = "buffer.alloc"() {name = "tile", offset = -1 : i64} : () -> memref<4x3xf32>
    %11 = "buffer.alloc"() {name = "tile", offset = -1 : i64} : () -> memref<4x3xf32>
    // CHECK-NEXT: "buffer.tile"(%11, %0) {repeats = array<i64: 2, 1>} : (memref<4x3xf32>, memref<2x3xf32>) -> ()
    "buffer.tile"(%11, %0) {repeats = array<i64: 2, 1>} : (memref<4x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %12 = "buffer.alloc"() {name = "gather", offset = -1 : i64} : () -> memref<2x4xf32>
    %12 = "buffer.alloc"() {name = "gather", offset = -1 : i64} : () -> memref<2x4xf32>
    // CHECK-NEXT: "buffer.gather"(%12, %0, %2) {axis = 1 : i64} : (memref<2x4xf32>, memref<2x3xf32>, memref<4xi64>) -> ()
    "buffer.gather"(%12, %0, %2) {axis = 1 : i64} : (memref<2x4xf32>, memref<2x3xf32>, memref<4xi64>) -> ()
    // CHECK-NEXT: %13 = "buffer.alloc"() {name = "reduce_sum", offset = -1 : i64} : () -> memref<2x1xf32>
    %13 = "buffer.alloc"() {name = "reduce_sum", offset = -1 : i64} : () -> memref<2x1xf32>
    // CHECK-NEXT: "buffer.reduce_sum"(%13, %0) {axes = array<i64: 1>, keepdims = true} : (memref<2x1xf32>, memref<2x3xf32>) -> ()
    "buffer.reduce_sum"(%13, %0) {axes = array<i64: 1>, keepdims = true} : (memref<2x1xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %14 = "buffer.alloc"() {name = "reduce_mean", offset = -1 : i64} : () -> memref<f32>
    %14 = "buffer.alloc"() {name = "reduce_mean", offset = -1 : i64} : () -> memref<f32>
    // CHECK-NEXT: "buffer.reduce_mean"(%14, %0) {axes = array<i64: 0, 1>, keepdims = false} : (memref<f32>, memref<2x3xf32>) -> ()
    "buffer.reduce_mean"(%14, %0) {axes = array<i64: 0, 1>, keepdims = false} : (memref<f32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %15 = "buffer.alloc"() {name = "reduce_max", offset = -1 : i64} : () -> memref<3xf32>
    %15 = "buffer.alloc"() {name = "reduce_max", offset = -1 : i64} : () -> memref<3xf32>
    // CHECK-NEXT: "buffer.reduce_max"(%15, %0) {axes = array<i64: 0>, keepdims = false} : (memref<3xf32>, memref<2x3xf32>) -> ()
    "buffer.reduce_max"(%15, %0) {axes = array<i64: 0>, keepdims = false} : (memref<3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %16 = "buffer.alloc"() {name = "reduce_min", offset = -1 : i64} : () -> memref<2xf32>
    %16 = "buffer.alloc"() {name = "reduce_min", offset = -1 : i64} : () -> memref<2xf32>
    // CHECK-NEXT: "buffer.reduce_min"(%16, %0) {axes = array<i64: 1>, keepdims = false} : (memref<2xf32>, memref<2x3xf32>) -> ()
    "buffer.reduce_min"(%16, %0) {axes = array<i64: 1>, keepdims = false} : (memref<2xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %17 = "buffer.alloc"() {name = "reduce_prod", offset = -1 : i64} : () -> memref<2x1xf32>
    %17 = "buffer.alloc"() {name = "reduce_prod", offset = -1 : i64} : () -> memref<2x1xf32>
    // CHECK-NEXT: "buffer.reduce_prod"(%17, %0) {axes = array<i64: 1>, keepdims = true} : (memref<2x1xf32>, memref<2x3xf32>) -> ()
    "buffer.reduce_prod"(%17, %0) {axes = array<i64: 1>, keepdims = true} : (memref<2x1xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: %18 = "buffer.alloc"() {name = "resize_nearest", offset = -1 : i64} : () -> memref<1x1x4x4xf32>
    %18 = "buffer.alloc"() {name = "resize_nearest", offset = -1 : i64} : () -> memref<1x1x4x4xf32>
    // CHECK-NEXT: "buffer.resize_nearest"(%18, %3) {coordinate_transformation_mode = "asymmetric", nearest_mode = "floor", scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>} : (memref<1x1x4x4xf32>, memref<1x1x2x2xf32>) -> ()
    "buffer.resize_nearest"(%18, %3) {coordinate_transformation_mode = "asymmetric", nearest_mode = "floor", scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>} : (memref<1x1x4x4xf32>, memref<1x1x2x2xf32>) -> ()
    // CHECK-NEXT: %19 = "buffer.alloc"() {name = "gather_elements", offset = -1 : i64} : () -> memref<2x3xf32>
    %19 = "buffer.alloc"() {name = "gather_elements", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.gather_elements"(%19, %0, %6) {axis = 0 : i64} : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xi32>) -> ()
    "buffer.gather_elements"(%19, %0, %6) {axis = 0 : i64} : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xi32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%5) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%5) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%6) : (memref<2x3xi32>) -> ()
    "buffer.dealloc"(%6) : (memref<2x3xi32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%7) : (memref<3x2xf32>) -> ()
    "buffer.dealloc"(%7) : (memref<3x2xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%8) : (memref<4x3xf32>) -> ()
    "buffer.dealloc"(%8) : (memref<4x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%9) : (memref<2x2xf32>) -> ()
    "buffer.dealloc"(%9) : (memref<2x2xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%10) : (memref<2x5xf32>) -> ()
    "buffer.dealloc"(%10) : (memref<2x5xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%11) : (memref<4x3xf32>) -> ()
    "buffer.dealloc"(%11) : (memref<4x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%12) : (memref<2x4xf32>) -> ()
    "buffer.dealloc"(%12) : (memref<2x4xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%13) : (memref<2x1xf32>) -> ()
    "buffer.dealloc"(%13) : (memref<2x1xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%14) : (memref<f32>) -> ()
    "buffer.dealloc"(%14) : (memref<f32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%15) : (memref<3xf32>) -> ()
    "buffer.dealloc"(%15) : (memref<3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%16) : (memref<2xf32>) -> ()
    "buffer.dealloc"(%16) : (memref<2xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%17) : (memref<2x1xf32>) -> ()
    "buffer.dealloc"(%17) : (memref<2x1xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%18) : (memref<1x1x4x4xf32>) -> ()
    "buffer.dealloc"(%18) : (memref<1x1x4x4xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%19) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%19) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: return
    return
  }

// CHECK-LABEL: func.func @hard_sigmoid() {
  func.func @hard_sigmoid() {
    // CHECK-NEXT: %0 = "buffer.weight"() {mutable = true, name = "x", offset = -1 : i64, public = true} : () -> memref<2x3xf32>
    %0 = "buffer.weight"() {mutable = true, name = "x", offset = -1 : i64, public = true} : () -> memref<2x3xf32>
    // CHECK-NEXT: %1 = "buffer.alloc"() {name = "hard_sigmoid", offset = -1 : i64} : () -> memref<2x3xf32>
    %1 = "buffer.alloc"() {name = "hard_sigmoid", offset = -1 : i64} : () -> memref<2x3xf32>
    // CHECK-NEXT: "buffer.hard_sigmoid"(%1, %0) {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32} : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    "buffer.hard_sigmoid"(%1, %0) {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32} : (memref<2x3xf32>, memref<2x3xf32>) -> ()
    // CHECK-NEXT: "buffer.dealloc"(%1) : (memref<2x3xf32>) -> ()
    "buffer.dealloc"(%1) : (memref<2x3xf32>) -> ()
    // CHECK-NEXT: return
    return
  }
}
