// RUN: lamina-opt %s | lamina-opt | FileCheck %s

// Every graph op parses, verifies and prints back unchanged, also after a
// second trip through the printer. Ops print in MLIR's generic form: IRDL
// ops have no custom syntax in MLIR 22. test_dialects.py checks that this
// file uses every op of the dialect.

// CHECK-LABEL: func.func @sources()
func.func @sources() {
  // CHECK-NEXT: %0 = "graph.placeholder"() {name = "input"} : () -> tensor<2x3xf32>
  %0 = "graph.placeholder"() {name = "input"} : () -> tensor<2x3xf32>
  // CHECK-NEXT: %1 = "graph.constant"() {value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>} : () -> tensor<2xf32>
  %1 = "graph.constant"() {value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>} : () -> tensor<2xf32>
  // CHECK-NEXT: %2 = "graph.splat"() {value = 5.000000e-01 : f32} : () -> tensor<2x2xf32>
  %2 = "graph.splat"() {value = 5.000000e-01 : f32} : () -> tensor<2x2xf32>
  // CHECK-NEXT: "graph.save"(%0) {name = "output"} : (tensor<2x3xf32>) -> ()
  "graph.save"(%0) {name = "output"} : (tensor<2x3xf32>) -> ()
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @layers()
func.func @layers() {
  // CHECK-NEXT: %0 = "graph.placeholder"() {name = "image"} : () -> tensor<1x4x8x8xf32>
  %0 = "graph.placeholder"() {name = "image"} : () -> tensor<1x4x8x8xf32>
  // CHECK-NEXT: %1 = "graph.splat"() {value = 5.000000e-01 : f32} : () -> tensor<6x2x3x3xf32>
  %1 = "graph.splat"() {value = 5.000000e-01 : f32} : () -> tensor<6x2x3x3xf32>
  // CHECK-NEXT: %2 = "graph.splat"() {value = 0.000000e+00 : f32} : () -> tensor<6xf32>
  %2 = "graph.splat"() {value = 0.000000e+00 : f32} : () -> tensor<6xf32>
  // CHECK-NEXT: %3 = "graph.convolution"(%0, %1, %2) {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x8x8xf32>
  %3 = "graph.convolution"(%0, %1, %2) {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x8x8xf32>
  // CHECK-NEXT: %4 = "graph.splat"() {value = 5.000000e-01 : f32} : () -> tensor<4x2x3x3xf32>
  %4 = "graph.splat"() {value = 5.000000e-01 : f32} : () -> tensor<4x2x3x3xf32>
  // CHECK-NEXT: %5 = "graph.splat"() {value = 0.000000e+00 : f32} : () -> tensor<2xf32>
  %5 = "graph.splat"() {value = 0.000000e+00 : f32} : () -> tensor<2xf32>
  // CHECK-NEXT: %6 = "graph.conv_transpose"(%0, %4, %5) {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x16x16xf32>
  %6 = "graph.conv_transpose"(%0, %4, %5) {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x16x16xf32>
  // CHECK-NEXT: %7 = "graph.max_pool"(%0) {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %7 = "graph.max_pool"(%0) {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  // CHECK-NEXT: %8 = "graph.avg_pool"(%0) {ceil_mode = true, count_include_pad = false, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x5x5xf32>
  %8 = "graph.avg_pool"(%0) {ceil_mode = true, count_include_pad = false, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x5x5xf32>
  // CHECK-NEXT: %9 = "graph.global_avg_pool"(%0) : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  %9 = "graph.global_avg_pool"(%0) : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  // CHECK-NEXT: %10 = "graph.global_max_pool"(%0) : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  %10 = "graph.global_max_pool"(%0) : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  // CHECK-NEXT: %11 = "graph.splat"() {value = 2.500000e-01 : f32} : () -> tensor<4xf32>
  %11 = "graph.splat"() {value = 2.500000e-01 : f32} : () -> tensor<4xf32>
  // CHECK-NEXT: %12 = "graph.batch_norm"(%0, %11, %11, %11, %11) {epsilon = 1.250000e-01 : f32} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %12 = "graph.batch_norm"(%0, %11, %11, %11, %11) {epsilon = 1.250000e-01 : f32} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  // CHECK-NEXT: %13 = "graph.lrn"(%0) {alpha = 1.250000e-01 : f32, beta = 7.500000e-01 : f32, bias = 1.000000e+00 : f32, size = 3 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %13 = "graph.lrn"(%0) {alpha = 1.250000e-01 : f32, beta = 7.500000e-01 : f32, bias = 1.000000e+00 : f32, size = 3 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  // CHECK-NEXT: %14 = "graph.placeholder"() {name = "features"} : () -> tensor<2x16xf32>
  %14 = "graph.placeholder"() {name = "features"} : () -> tensor<2x16xf32>
  // CHECK-NEXT: %15 = "graph.splat"() {value = 5.000000e-01 : f32} : () -> tensor<16x10xf32>
  %15 = "graph.splat"() {value = 5.000000e-01 : f32} : () -> tensor<16x10xf32>
  // CHECK-NEXT: %16 = "graph.splat"() {value = 0.000000e+00 : f32} : () -> tensor<10xf32>
  %16 = "graph.splat"() {value = 0.000000e+00 : f32} : () -> tensor<10xf32>
  // CHECK-NEXT: %17 = "graph.fully_connected"(%14, %15, %16) : (tensor<2x16xf32>, tensor<16x10xf32>, tensor<10xf32>) -> tensor<2x10xf32>
  %17 = "graph.fully_connected"(%14, %15, %16) : (tensor<2x16xf32>, tensor<16x10xf32>, tensor<10xf32>) -> tensor<2x10xf32>
  // CHECK-NEXT: %18 = "graph.splat"() {value = 1.000000e+00 : f32} : () -> tensor<16xf32>
  %18 = "graph.splat"() {value = 1.000000e+00 : f32} : () -> tensor<16xf32>
  // CHECK-NEXT: %19 = "graph.layer_norm"(%14, %18, %18) {axis = 1 : i64, epsilon = 1.250000e-01 : f32} : (tensor<2x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  %19 = "graph.layer_norm"(%14, %18, %18) {axis = 1 : i64, epsilon = 1.250000e-01 : f32} : (tensor<2x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  // CHECK-NEXT: %20 = "graph.softmax"(%17) {axis = 1 : i64} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  %20 = "graph.softmax"(%17) {axis = 1 : i64} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  // CHECK-NEXT: %21 = "graph.splat"() {value = 1.000000e+00 : f32} : () -> tensor<2x3x4xf32>
  %21 = "graph.splat"() {value = 1.000000e+00 : f32} : () -> tensor<2x3x4xf32>
  // CHECK-NEXT: %22 = "graph.splat"() {value = 1.000000e+00 : f32} : () -> tensor<4x5xf32>
  %22 = "graph.splat"() {value = 1.000000e+00 : f32} : () -> tensor<4x5xf32>
  // CHECK-NEXT: %23 = "graph.matmul"(%21, %22) : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  %23 = "graph.matmul"(%21, %22) : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @elementwise()
func.func @elementwise() {
  // CHECK-NEXT: %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  // CHECK-NEXT: %1 = "graph.placeholder"() {name = "b"} : () -> tensor<2x3xf32>
  %1 = "graph.placeholder"() {name = "b"} : () -> tensor<2x3xf32>
  // CHECK-NEXT: %2 = "graph.add"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "graph.add"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %3 = "graph.sub"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = "graph.sub"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %4 = "graph.mul"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = "graph.mul"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %5 = "graph.div"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = "graph.div"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %6 = "graph.max"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = "graph.max"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %7 = "graph.min"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = "graph.min"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %8 = "graph.pow"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = "graph.pow"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %9 = "graph.equal"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %9 = "graph.equal"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: %10 = "graph.less"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %10 = "graph.less"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: %11 = "graph.greater"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %11 = "graph.greater"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: %12 = "graph.where"(%11, %0, %1) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %12 = "graph.where"(%11, %0, %1) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %13 = "graph.sum"(%0, %1, %0) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %13 = "graph.sum"(%0, %1, %0) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %14 = "graph.relu"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %14 = "graph.relu"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %15 = "graph.sigmoid"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %15 = "graph.sigmoid"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %16 = "graph.tanh"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %16 = "graph.tanh"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %17 = "graph.erf"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %17 = "graph.erf"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %18 = "graph.exp"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %18 = "graph.exp"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %19 = "graph.log"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %19 = "graph.log"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %20 = "graph.sqrt"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %20 = "graph.sqrt"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %21 = "graph.reciprocal"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %21 = "graph.reciprocal"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %22 = "graph.neg"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %22 = "graph.neg"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %23 = "graph.abs"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %23 = "graph.abs"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %24 = "graph.leaky_relu"(%0) {alpha = 1.250000e-01 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %24 = "graph.leaky_relu"(%0) {alpha = 1.250000e-01 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %25 = "graph.clip"(%0) {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %25 = "graph.clip"(%0) {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %26 = "graph.gelu"(%0) {approximate = "tanh"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %26 = "graph.gelu"(%0) {approximate = "tanh"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %27 = "graph.identity"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %27 = "graph.identity"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %28 = "graph.dropout"(%0) {ratio = 5.000000e-01 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %28 = "graph.dropout"(%0) {ratio = 5.000000e-01 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %29 = "graph.swish"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %29 = "graph.swish"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @data_movement()
func.func @data_movement() {
  // CHECK-NEXT: %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  // CHECK-NEXT: %1 = "graph.reshape"(%0) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = "graph.reshape"(%0) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK-NEXT: %2 = "graph.placeholder"() {name = "row"} : () -> tensor<1x3xf32>
  %2 = "graph.placeholder"() {name = "row"} : () -> tensor<1x3xf32>
  // CHECK-NEXT: %3 = "graph.broadcast"(%2) : (tensor<1x3xf32>) -> tensor<2x3xf32>
  %3 = "graph.broadcast"(%2) : (tensor<1x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %4 = "graph.convert"(%0) : (tensor<2x3xf32>) -> tensor<2x3xi32>
  %4 = "graph.convert"(%0) : (tensor<2x3xf32>) -> tensor<2x3xi32>
  // CHECK-NEXT: %5 = "graph.transpose"(%0) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %5 = "graph.transpose"(%0) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK-NEXT: %6 = "graph.concat"(%0, %3) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %6 = "graph.concat"(%0, %3) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  // CHECK-NEXT: %7 = "graph.slice"(%0) {ends = array<i64: 2, 3>, starts = array<i64: 0, 0>, steps = array<i64: 1, 2>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %7 = "graph.slice"(%0) {ends = array<i64: 2, 3>, starts = array<i64: 0, 0>, steps = array<i64: 1, 2>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  // CHECK-NEXT: %8 = "graph.pad"(%0) {mode = "constant", pads = array<i64: 0, 1, 0, 1>, value = 0.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  %8 = "graph.pad"(%0) {mode = "constant", pads = array<i64: 0, 1, 0, 1>, value = 0.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  // CHECK-NEXT: %9 = "graph.tile"(%0) {repeats = array<i64: 2, 1>} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  %9 = "graph.tile"(%0) {repeats = array<i64: 2, 1>} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  // CHECK-NEXT: %10 = "graph.constant"() {value = dense<[0, 2, -1, 1]> : tensor<4xi64>} : () -> tensor<4xi64>
  %10 = "graph.constant"() {value = dense<[0, 2, -1, 1]> : tensor<4xi64>} : () -> tensor<4xi64>
  // CHECK-NEXT: %11 = "graph.gather"(%0, %10) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<2x4xf32>
  %11 = "graph.gather"(%0, %10) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<2x4xf32>
  // CHECK-NEXT: %12 = "graph.reduce_sum"(%0) {axes = array<i64: 1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %12 = "graph.reduce_sum"(%0) {axes = array<i64: 1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  // CHECK-NEXT: %13 = "graph.reduce_mean"(%0) {axes = array<i64: 0, 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<f32>
  %13 = "graph.reduce_mean"(%0) {axes = array<i64: 0, 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<f32>
  // CHECK-NEXT: %14 = "graph.reduce_max"(%0) {axes = array<i64: 0>, keepdims = false} : (tensor<2x3xf32>) -> tensor<3xf32>
  %14 = "graph.reduce_max"(%0) {axes = array<i64: 0>, keepdims = false} : (tensor<2x3xf32>) -> tensor<3xf32>
  // CHECK-NEXT: %15 = "graph.reduce_min"(%0) {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  %15 = "graph.reduce_min"(%0) {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  // CHECK-NEXT: %16 = "graph.reduce_prod"(%0) {axes = array<i64: 1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %16 = "graph.reduce_prod"(%0) {axes = array<i64: 1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  // CHECK-NEXT: %17 = "graph.placeholder"() {name = "small"} : () -> tensor<1x1x2x2xf32>
  %17 = "graph.placeholder"() {name = "small"} : () -> tensor<1x1x2x2xf32>
  // CHECK-NEXT: %18 = "graph.resize_nearest"(%17) {coordinate_transformation_mode = "asymmetric", nearest_mode = "floor", scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  %18 = "graph.resize_nearest"(%17) {coordinate_transformation_mode = "asymmetric", nearest_mode = "floor", scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  // CHECK-NEXT: %19 = "graph.constant"() {value = dense<{{\[}}[1, 0, -1], [0, 1, -2]]> : tensor<2x3xi64>} : () -> tensor<2x3xi64>
  %19 = "graph.constant"() {value = dense<[[1, 0, -1], [0, 1, -2]]> : tensor<2x3xi64>} : () -> tensor<2x3xi64>
  // CHECK-NEXT: %20 = "graph.gather_elements"(%0, %19) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  %20 = "graph.gather_elements"(%0, %19) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  // CHECK-NEXT: return
  return
}

// The precision stage: upstream !quant.uniform element types, per tensor and per axis.
// CHECK-LABEL: func.func @precision()
func.func @precision() {
  // CHECK-NEXT: %0 = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x3x3xf32>
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x3x3xf32>
  // CHECK-NEXT: %1 = "graph.quantize"(%0) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 5.000000e-01:-3>>
  %1 = "graph.quantize"(%0) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 0.5:-3>>
  // CHECK-NEXT: %2 = "graph.constant"() {value = dense<1> : tensor<4x2x1x1xi8>} : () -> tensor<4x2x1x1x!quant.uniform<i8<-127:127>:f32:0, {1.000000e-01,2.000000e-01,1.000000e-01,2.000000e-01}>>
  %2 = "graph.constant"() {value = dense<1> : tensor<4x2x1x1xi8>} : () -> tensor<4x2x1x1x!quant.uniform<i8<-127:127>:f32:0, {0.1,0.2,0.1,0.2}>>
  // CHECK-NEXT: %3 = "graph.constant"() {value = dense<0> : tensor<4xi32>} : () -> tensor<4x!quant.uniform<i32:f32:0, {5.000000e-02,1.000000e-01,5.000000e-02,1.000000e-01}>>
  %3 = "graph.constant"() {value = dense<0> : tensor<4xi32>} : () -> tensor<4x!quant.uniform<i32:f32:0, {0.05,0.1,0.05,0.1}>>
  // CHECK-NEXT: %4 = "graph.convolution"(%1, %2, %3)
  %4 = "graph.convolution"(%1, %2, %3) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x3x3x!quant.uniform<i8:f32, 0.5:-3>>, tensor<4x2x1x1x!quant.uniform<i8<-127:127>:f32:0, {0.1,0.2,0.1,0.2}>>, tensor<4x!quant.uniform<i32:f32:0, {0.05,0.1,0.05,0.1}>>) -> tensor<1x4x3x3x!quant.uniform<u8:f32, 0.25:128>>
  // CHECK-NEXT: %5 = "graph.dequantize"(%4) : (tensor<1x4x3x3x!quant.uniform<u8:f32, 2.500000e-01:128>>) -> tensor<1x4x3x3xf32>
  %5 = "graph.dequantize"(%4) : (tensor<1x4x3x3x!quant.uniform<u8:f32, 0.25:128>>) -> tensor<1x4x3x3xf32>
  // CHECK-NEXT: return
  return
}

// Glow's Profile mode: a probe (no result, no buffer form).
// CHECK-LABEL: func.func @profiling()
func.func @profiling() {
  // CHECK-NEXT: %0 = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x3x3xf32>
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x3x3xf32>
  // CHECK-NEXT: "graph.profile"(%0) {name = "x"} : (tensor<1x2x3x3xf32>) -> ()
  "graph.profile"(%0) {name = "x"} : (tensor<1x2x3x3xf32>) -> ()
  // CHECK-NEXT: return
  return
}

// Control flow (lamina/dialects/graph_control_flow.py): regions end in upstream gpu.yield;
// groups of values of different types are IRDL optional slots with segment sizes.
// CHECK-LABEL: func.func @control_flow()
func.func @control_flow() {
  // CHECK: %0 = "graph.placeholder"() {name = "c"} : () -> tensor<i1>
  %0 = "graph.placeholder"() {name = "c"} : () -> tensor<i1>
  // CHECK: %1 = "graph.placeholder"() {name = "x"} : () -> tensor<2xf32>
  %1 = "graph.placeholder"() {name = "x"} : () -> tensor<2xf32>
  // CHECK: %2 = "graph.if"(%0) ({
  %2 = "graph.if"(%0) ({
    // CHECK: %6 = "graph.relu"(%1) : (tensor<2xf32>) -> tensor<2xf32>
    %6 = "graph.relu"(%1) : (tensor<2xf32>) -> tensor<2xf32>
    // CHECK: gpu.yield %6 : tensor<2xf32>
    gpu.yield %6 : tensor<2xf32>
  // CHECK: }, {
  }, {
    // CHECK: gpu.yield %1 : tensor<2xf32>
    gpu.yield %1 : tensor<2xf32>
  // CHECK: }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<i1>) -> tensor<2xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<i1>) -> tensor<2xf32>
  // CHECK: %3 = "graph.constant"() {value = dense<3> : tensor<i64>} : () -> tensor<i64>
  %3 = "graph.constant"() {value = dense<3> : tensor<i64>} : () -> tensor<i64>
  // CHECK: %4:2 = "graph.loop"(%3, %0, %2) ({
  %4:2 = "graph.loop"(%3, %0, %2) ({
  ^bb0(%arg0: tensor<i64>, %arg1: tensor<i1>, %arg2: tensor<2xf32>):
    // CHECK: %6 = "graph.add"(%arg2, %1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %6 = "graph.add"(%arg2, %1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    // CHECK: gpu.yield %arg1, %6, %6 : tensor<i1>, tensor<2xf32>, tensor<2xf32>
    gpu.yield %arg1, %6, %6 : tensor<i1>, tensor<2xf32>, tensor<2xf32>
  // CHECK: }) {num_scan_outputs = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>)
  }) {num_scan_outputs = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>)
  // CHECK: %5:2 = "graph.scan"(%1, %4#1) ({
  %5:2 = "graph.scan"(%1, %4#1) ({
  ^bb0(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>):
    // CHECK: %6 = "graph.add"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %6 = "graph.add"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    // CHECK: gpu.yield %6, %6 : tensor<2xf32>, tensor<2xf32>
    gpu.yield %6, %6 : tensor<2xf32>, tensor<2xf32>
  // CHECK: }) {num_scan_inputs = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, scan_input_axes = array<i64: 0>, scan_input_directions = array<i64: 1>, scan_output_axes = array<i64: 0>, scan_output_directions = array<i64: 0>} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>)
  }) {num_scan_inputs = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, scan_input_axes = array<i64: 0>, scan_input_directions = array<i64: 1>, scan_output_axes = array<i64: 0>, scan_output_directions = array<i64: 0>} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>)
  // CHECK: "graph.save"(%5#1) {name = "y"} : (tensor<3x2xf32>) -> ()
  "graph.save"(%5#1) {name = "y"} : (tensor<3x2xf32>) -> ()
  // CHECK: return
  return
}

// Recurrent layers (lamina/dialects/graph_recurrent.py): every operand present, one alpha and beta per activation.
// CHECK-LABEL: func.func @recurrent()
func.func @recurrent() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x1x3xf32>
  %1 = "graph.splat"() {value = 1.000000e-01 : f32} : () -> tensor<1x2x3xf32>
  %2 = "graph.splat"() {value = 1.000000e-01 : f32} : () -> tensor<1x2x2xf32>
  %3 = "graph.splat"() {value = 2 : i32} : () -> tensor<1xi32>
  %4 = "graph.splat"() {value = 0.000000e+00 : f32} : () -> tensor<1x4xf32>
  %5 = "graph.splat"() {value = 0.000000e+00 : f32} : () -> tensor<1x1x2xf32>
  // CHECK: %6:2 = "graph.rnn"(%0, %1, %2, %4, %3, %5) {activation_alpha = array<f32: 0.000000e+00>, activation_beta = array<f32: 0.000000e+00>, activations = "Tanh", clip = 0.000000e+00 : f32, direction = "forward", hidden_size = 2 : i64} : (tensor<2x1x3xf32>, tensor<1x2x3xf32>, tensor<1x2x2xf32>, tensor<1x4xf32>, tensor<1xi32>, tensor<1x1x2xf32>) -> (tensor<2x1x1x2xf32>, tensor<1x1x2xf32>)
  %6:2 = "graph.rnn"(%0, %1, %2, %4, %3, %5) {activation_alpha = array<f32: 0.000000e+00>, activation_beta = array<f32: 0.000000e+00>, activations = "Tanh", clip = 0.000000e+00 : f32, direction = "forward", hidden_size = 2 : i64} : (tensor<2x1x3xf32>, tensor<1x2x3xf32>, tensor<1x2x2xf32>, tensor<1x4xf32>, tensor<1xi32>, tensor<1x1x2xf32>) -> (tensor<2x1x1x2xf32>, tensor<1x1x2xf32>)
  %7 = "graph.splat"() {value = 1.000000e-01 : f32} : () -> tensor<1x6x3xf32>
  %8 = "graph.splat"() {value = 1.000000e-01 : f32} : () -> tensor<1x6x2xf32>
  %10 = "graph.splat"() {value = 0.000000e+00 : f32} : () -> tensor<1x12xf32>
  // CHECK: "graph.gru"({{.*}}) {activation_alpha = array<f32: 0.000000e+00, 0.000000e+00>, activation_beta = array<f32: 0.000000e+00, 0.000000e+00>, activations = "Sigmoid,Tanh", clip = 0.000000e+00 : f32, direction = "forward", hidden_size = 2 : i64, linear_before_reset = true}
  %12:2 = "graph.gru"(%0, %7, %8, %10, %3, %5) {activation_alpha = array<f32: 0.000000e+00, 0.000000e+00>, activation_beta = array<f32: 0.000000e+00, 0.000000e+00>, activations = "Sigmoid,Tanh", clip = 0.000000e+00 : f32, direction = "forward", hidden_size = 2 : i64, linear_before_reset = true} : (tensor<2x1x3xf32>, tensor<1x6x3xf32>, tensor<1x6x2xf32>, tensor<1x12xf32>, tensor<1xi32>, tensor<1x1x2xf32>) -> (tensor<2x1x1x2xf32>, tensor<1x1x2xf32>)
  %13 = "graph.splat"() {value = 1.000000e-01 : f32} : () -> tensor<1x8x3xf32>
  %14 = "graph.splat"() {value = 1.000000e-01 : f32} : () -> tensor<1x8x2xf32>
  %16 = "graph.splat"() {value = 0.000000e+00 : f32} : () -> tensor<1x16xf32>
  %19 = "graph.splat"() {value = 0.000000e+00 : f32} : () -> tensor<1x6xf32>
  // CHECK: "graph.lstm"({{.*}}) {activation_alpha = array<f32: 0.000000e+00, 0.000000e+00, 0.000000e+00>, activation_beta = array<f32: 0.000000e+00, 0.000000e+00, 0.000000e+00>, activations = "Sigmoid,Tanh,Tanh", clip = 0.000000e+00 : f32, direction = "forward", hidden_size = 2 : i64, input_forget = false}
  %20:3 = "graph.lstm"(%0, %13, %14, %16, %3, %5, %5, %19) {activation_alpha = array<f32: 0.000000e+00, 0.000000e+00, 0.000000e+00>, activation_beta = array<f32: 0.000000e+00, 0.000000e+00, 0.000000e+00>, activations = "Sigmoid,Tanh,Tanh", clip = 0.000000e+00 : f32, direction = "forward", hidden_size = 2 : i64, input_forget = false} : (tensor<2x1x3xf32>, tensor<1x8x3xf32>, tensor<1x8x2xf32>, tensor<1x16xf32>, tensor<1xi32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x6xf32>) -> (tensor<2x1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>)
  "graph.save"(%6#0) {name = "y1"} : (tensor<2x1x1x2xf32>) -> ()
  "graph.save"(%12#0) {name = "y3"} : (tensor<2x1x1x2xf32>) -> ()
  "graph.save"(%20#2) {name = "c4"} : (tensor<1x1x2xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @hard_sigmoid()
func.func @hard_sigmoid() {
  // CHECK-NEXT: %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  // CHECK-NEXT: %1 = "graph.hard_sigmoid"(%0) {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "graph.hard_sigmoid"(%0) {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: return
  return
}
