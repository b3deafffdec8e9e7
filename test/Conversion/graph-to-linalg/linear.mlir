// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-linalg)' | FileCheck %s
// The output is plain upstream MLIR: upstream mlir-opt reads it without Lamina's dialects.
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-linalg)' | mlir-opt --split-input-file --verify-diagnostics > /dev/null

// Placeholders become arguments, saves results; a 2-D convolution is the
// named linalg op on the padded input, accumulating onto the broadcast bias.

// CHECK-LABEL: func.func @convolution(%arg0: tensor<1x2x5x5xf32>) -> tensor<1x3x3x6xf32> attributes {llvm.emit_c_interface}
// CHECK:         %[[W:.*]] = arith.constant dense<{{.*}}> : tensor<3x2x1x1xf32>
// CHECK:         %[[B:.*]] = arith.constant dense<[1.000000e+00, -1.000000e+00, 5.000000e-01]> : tensor<3xf32>
// CHECK:         %[[P:.*]] = tensor.pad %arg0 low[0, 0, 1, 0] high[0, 0, 0, 1]
// CHECK:         %[[INIT:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<3xf32>) outs(%{{.*}} : tensor<1x3x3x6xf32>)
// CHECK:         %[[Y:.*]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%[[P]], %[[W]] : {{.*}}) outs(%[[INIT]] : tensor<1x3x3x6xf32>)
// CHECK:         return %[[Y]] : tensor<1x3x3x6xf32>
// CHECK-NOT:     graph.
func.func @convolution() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x5x5xf32>
  %w = "graph.constant"() {value = dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]], [[[5.0]], [[6.0]]]]> : tensor<3x2x1x1xf32>} : () -> tensor<3x2x1x1xf32>
  %b = "graph.constant"() {value = dense<[1.0, -1.0, 0.5]> : tensor<3xf32>} : () -> tensor<3xf32>
  %y = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 0, 0, 1>, strides = array<i64: 2, 1>} : (tensor<1x2x5x5xf32>, tensor<3x2x1x1xf32>, tensor<3xf32>) -> tensor<1x3x3x6xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x3x3x6xf32>) -> ()
  return
}

// -----

// A depthwise convolution (one channel and one filter per group) is the named
// depthwise convolution on the padded input, its filter without the unit dim.

// CHECK-LABEL: func.func @depthwise
// CHECK:         %[[P:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:         %[[W:.*]] = tensor.collapse_shape %arg1 {{\[}}[0, 1], [2], [3]] : tensor<3x1x3x3xf32> into tensor<3x3x3xf32>
// CHECK:         linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[P]], %[[W]] : tensor<1x3x7x7xf32>, tensor<3x3x3xf32>) outs(%{{.*}} : tensor<1x3x3x3xf32>)
func.func @depthwise() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x3x5x5xf32>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<3x1x3x3xf32>
  %b = "graph.splat"() {value = 0.0 : f32} : () -> tensor<3xf32>
  %y = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 3 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x5x5xf32>, tensor<3x1x3x3xf32>, tensor<3xf32>) -> tensor<1x3x3x3xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x3x3x3xf32>) -> ()
  return
}

// -----

// Any other grouped 2-D convolution (here one channel and two filters per
// group) is the named grouped convolution on [n, group, per group, h, w]
// views of the input, filter and bias-initialized output, collapsed back.

// CHECK-LABEL: func.func @one_channel_per_group
// CHECK:         %[[X:.*]] = tensor.expand_shape %arg0 {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 2, 1, 3, 3]
// CHECK:         %[[W:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 2, 1, 1, 1]
// CHECK:         %[[I:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 3, 3]
// CHECK:         %[[Y:.*]] = linalg.conv_2d_ngchw_gfchw {{.*}} ins(%[[X]], %[[W]] : tensor<1x2x1x3x3xf32>, tensor<2x2x1x1x1xf32>) outs(%[[I]] : tensor<1x2x2x3x3xf32>)
// CHECK:         tensor.collapse_shape %[[Y]] {{\[}}[0], [1, 2], [3], [4]] : tensor<1x2x2x3x3xf32> into tensor<1x4x3x3xf32>
func.func @one_channel_per_group() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x3x3xf32>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<4x1x1x1xf32>
  %b = "graph.splat"() {value = 0.0 : f32} : () -> tensor<4xf32>
  %y = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<4x1x1x1xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x4x3x3xf32>) -> ()
  return
}

// -----

// A grouped convolution of another rank has no named op: one generic whose
// input channel is (m floordiv filters-per-group) * channels-per-group + c.
// No padding, no pad.

// CHECK-DAG:   #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 2 + d3, d2 + d4)>
// CHECK-LABEL: func.func @grouped_1d
// CHECK-NOT:     tensor.pad
// CHECK:         linalg.generic {indexing_maps = [#[[IN]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK:           arith.mulf
// CHECK:           arith.addf
func.func @grouped_1d() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x5xf32>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<4x1x3xf32>
  %b = "graph.splat"() {value = 0.0 : f32} : () -> tensor<4xf32>
  %y = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1>, group = 2 : i64, pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<1x2x5xf32>, tensor<4x1x3xf32>, tensor<4xf32>) -> tensor<1x4x3xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x4x3xf32>) -> ()
  return
}

// -----

// fully_connected is a matmul onto the broadcast bias; matmul of 3-D operands
// with equal batches is batch_matmul onto zeros; splats are splat constants.

// CHECK-LABEL: func.func @products
// CHECK:         %[[BIAS:.*]] = arith.constant dense<5.000000e-01> : tensor<4xf32>
// CHECK:         %[[INIT:.*]] = linalg.generic {{.*}} ins(%[[BIAS]] : tensor<4xf32>)
// CHECK:         linalg.matmul ins(%arg0, %{{.*}} : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[INIT]] : tensor<2x4xf32>)
// CHECK:         %[[ZERO:.*]] = linalg.fill
// CHECK:         linalg.batch_matmul ins(%arg1, %arg2 : tensor<5x2x3xf32>, tensor<5x3x4xf32>) outs(%[[ZERO]] : tensor<5x2x4xf32>)
func.func @products() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %a = "graph.placeholder"() {name = "a"} : () -> tensor<5x2x3xf32>
  %c = "graph.placeholder"() {name = "c"} : () -> tensor<5x3x4xf32>
  %w = "graph.splat"() {value = 2.0 : f32} : () -> tensor<3x4xf32>
  %b = "graph.splat"() {value = 0.5 : f32} : () -> tensor<4xf32>
  %y = "graph.fully_connected"(%x, %w, %b) : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %z = "graph.matmul"(%a, %c) : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  "graph.save"(%y) {name = "y"} : (tensor<2x4xf32>) -> ()
  "graph.save"(%z) {name = "z"} : (tensor<5x2x4xf32>) -> ()
  return
}
