// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-linalg,linalg-convolution-to-matmuls)' | FileCheck %s

// A 3x3 stride-2 convolution with padding 1 on 16 channels: the padded input
// (16 x 20 x 8: output rows padded so that every tap's slice of 32
// positions is in bounds) is split into its 2 x 2 stride phases (strided
// slices, copied), each flattened to [channels, positions]; each of the 9
// taps is one matmul of its filter tap [4 filters x 16 channels] (taps
// first: a transpose) by a contiguous slice of 32 positions of its phase,
// accumulating onto the bias. The 3 x 3 outputs are cropped out of the
// 32 positions (3 rows of the phase width 4, then padding).

// CHECK-LABEL: func.func @strided
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<4x16x3x3xf32>) outs(%{{.*}} : tensor<3x3x4x16xf32>) permutation = [2, 3, 0, 1]
// CHECK:         tensor.extract_slice %{{.*}}[0, 0, 0] [16, 10, 4] [1, 2, 2] : tensor<16x20x8xf32> to tensor<16x10x4xf32>
// CHECK-COUNT-9: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<16x32xf32>) outs(%{{.*}} : tensor<4x32xf32>)
// CHECK:         tensor.extract_slice %{{.*}}[0, 0] [4, 12] [1, 1] : tensor<4x32xf32> to tensor<4x12xf32>
// CHECK:         tensor.extract_slice %{{.*}}[0, 0, 0] [4, 3, 3] [1, 1, 1] : tensor<4x3x4xf32> to tensor<4x3x3xf32>
// CHECK-NOT:     linalg.conv
func.func @strided() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x16x6x6xf32>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<4x16x3x3xf32>
  %b = "graph.splat"() {value = 0.5 : f32} : () -> tensor<4xf32>
  %y = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x16x6x6xf32>, tensor<4x16x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x4x3x3xf32>) -> ()
  return
}

// -----

// Not firing: a dilated convolution and a batch of two stay named convolutions.

// CHECK-LABEL: func.func @dilated_and_batched
// CHECK-NOT:     linalg.matmul
// CHECK:         linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>
// CHECK-NOT:     linalg.matmul
// CHECK:         linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>{{.*}} : tensor<2x16x6x6xf32>
// CHECK-NOT:     linalg.matmul
func.func @dilated_and_batched() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x16x6x6xf32>
  %x2 = "graph.placeholder"() {name = "x2"} : () -> tensor<2x16x6x6xf32>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<4x16x3x3xf32>
  %b = "graph.splat"() {value = 0.5 : f32} : () -> tensor<4xf32>
  %y = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 2, 2>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x16x6x6xf32>, tensor<4x16x3x3xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  %z = "graph.convolution"(%x2, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x16x6x6xf32>, tensor<4x16x3x3xf32>, tensor<4xf32>) -> tensor<2x4x4x4xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x4x2x2xf32>) -> ()
  "graph.save"(%z) {name = "z"} : (tensor<2x4x4x4xf32>) -> ()
  return
}
