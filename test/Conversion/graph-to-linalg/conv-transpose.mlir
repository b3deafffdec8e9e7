// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-linalg)' | FileCheck %s
// The output is plain upstream MLIR: upstream mlir-opt reads it without Lamina's dialects.
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-linalg)' | mlir-opt --split-input-file --verify-diagnostics > /dev/null

// A strided 2-D transposed convolution is a stride-1 named convolution over
// the input spread by the strides into zeros (a strided insert_slice at
// dilation*(k-1) - pad_begin, in a tensor of output + dilation*(k-1)), with
// the filter flipped and its channels swapped ([C, M, k...] -> [M, C, k...]),
// accumulating onto the broadcast bias.

// CHECK-DAG:   #[[FLIP:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, -d2 + 2, -d3 + 2)>
// CHECK-LABEL: func.func @strided(%arg0: tensor<1x2x3x3xf32>) -> tensor<1x3x7x6xf32> attributes {llvm.emit_c_interface}
// CHECK:         %[[W:.*]] = arith.constant dense<1.000000e+00> : tensor<2x3x3x3xf32>
// CHECK:         %[[ZEROS:.*]] = linalg.fill {{.*}} -> tensor<1x2x9x8xf32>
// CHECK:         %[[SPREAD:.*]] = tensor.insert_slice %arg0 into %[[ZEROS]][0, 0, 1, 2] [1, 2, 3, 3] [1, 1, 2, 2] : tensor<1x2x3x3xf32> into tensor<1x2x9x8xf32>
// CHECK:         %[[INIT:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<3xf32>) outs(%{{.*}} : tensor<1x3x7x6xf32>)
// CHECK:         %[[F:.*]] = linalg.generic {indexing_maps = [#[[FLIP]], {{.*}}]{{.*}} ins(%[[W]] : tensor<2x3x3x3xf32>) outs(%{{.*}} : tensor<3x2x3x3xf32>)
// CHECK:         %[[Y:.*]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[SPREAD]], %[[F]] : tensor<1x2x9x8xf32>, tensor<3x2x3x3xf32>) outs(%[[INIT]] : tensor<1x3x7x6xf32>)
// CHECK:         return %[[Y]] : tensor<1x3x7x6xf32>
// CHECK-NOT:     graph.
func.func @strided() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x3x3xf32>
  %w = "graph.splat"() {value = 1.0 : f32} : () -> tensor<2x3x3x3xf32>
  %b = "graph.splat"() {value = 0.5 : f32} : () -> tensor<3xf32>
  %y = "graph.conv_transpose"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 1, 0>, pads = array<i64: 1, 0, 0, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x3x3xf32>, tensor<2x3x3x3xf32>, tensor<3xf32>) -> tensor<1x3x7x6xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x3x7x6xf32>) -> ()
  return
}

// -----

// Unit strides: the spread is a tensor.pad. A begin pad beyond the dilated
// kernel (2 > 1 on the first axis) crops the input rows no output reads.

// CHECK-LABEL: func.func @unit_stride_cropped(%arg0: tensor<1x2x5x5xf32>, %arg1: tensor<2x2x2x3xf32>)
// CHECK:         %[[X:.*]] = tensor.extract_slice %arg0[0, 0, 1, 0] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x5x5xf32> to tensor<1x2x4x4xf32>
// CHECK:         %[[P:.*]] = tensor.pad %[[X]] low[0, 0, 0, 2] high[0, 0, 0, 0]
// CHECK:         } : tensor<1x2x4x4xf32> to tensor<1x2x4x6xf32>
// CHECK:         %[[F:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<2x2x2x3xf32>) outs(%{{.*}} : tensor<2x2x2x3xf32>)
// CHECK:         linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[P]], %[[F]] : tensor<1x2x4x6xf32>, tensor<2x2x2x3xf32>)
// CHECK-NOT:     graph.
func.func @unit_stride_cropped() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x5x5xf32>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<2x2x2x3xf32>
  %b = "graph.splat"() {value = 0.0 : f32} : () -> tensor<2xf32>
  %y = "graph.conv_transpose"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 2, 0, 1, 3>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>, tensor<2x2x2x3xf32>, tensor<2xf32>) -> tensor<1x2x3x4xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x2x3x4xf32>) -> ()
  return
}

// -----

// Groups, 1-D, dilation: the filter [C=4, M/group=3, k] becomes [M=6, C/group=2, k]
// reading filter[(m floordiv 3) * 2 + c, m mod 3, 1 - t]; the convolution is
// linear.py's generic (dilated taps, stride 1).

// CHECK-DAG:   #[[FLIP:.*]] = affine_map<(d0, d1, d2) -> ((d0 floordiv 3) * 2 + d1, d0 mod 3, -d2 + 1)>
// CHECK-DAG:   #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, (d1 floordiv 3) * 2 + d3, d2 + d4 * 2)>
// CHECK-LABEL: func.func @grouped_1d
// CHECK:         %[[SPREAD:.*]] = tensor.insert_slice %arg0 into %{{.*}}[0, 0, 2] [1, 4, 5] [1, 1, 2] : tensor<1x4x5xf32> into tensor<1x4x13xf32>
// CHECK:         %[[F:.*]] = linalg.generic {indexing_maps = [#[[FLIP]], {{.*}}]{{.*}} ins(%arg1 : tensor<4x3x2xf32>) outs(%{{.*}} : tensor<6x2x2xf32>)
// CHECK:         linalg.generic {indexing_maps = [#[[IN]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[SPREAD]], %[[F]] : tensor<1x4x13xf32>, tensor<6x2x2xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK-NOT:     graph.
func.func @grouped_1d() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x4x5xf32>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<4x3x2xf32>
  %b = "graph.splat"() {value = 0.0 : f32} : () -> tensor<6xf32>
  %y = "graph.conv_transpose"(%x, %w, %b) {dilations = array<i64: 2>, group = 2 : i64, output_padding = array<i64: 1>, pads = array<i64: 0, 1>, strides = array<i64: 2>} : (tensor<1x4x5xf32>, tensor<4x3x2xf32>, tensor<6xf32>) -> tensor<1x6x11xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x6x11xf32>) -> ()
  return
}
