// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-hir{arch=%S/Inputs/tiny.tarch})' | FileCheck %s

// Stride-2 convolutions on few channels become space-to-depth then a
// stride-1 convolution (graph_to_hir/space_to_depth.py), on a 4-lane array.

// A 5x5 stride-2 convolution on 1 channel: 25 passes per output become 9,
// which saves 16 > 8 (twice the packing's 4). The packing convolution (2x2,
// stride 2, the original's pads on top and left, as many at the bottom and
// right as S needs) puts pixel (2i + a, 2j + b) in channel 2a + b of S at
// (i, j): its tiles are one-hot, 1.0 = 256 at binary point 8. S is 6 x 6
// (4 outputs + 3 - 1 rows), and the 3x3 convolution over it has no pads.
// CHECK-LABEL: {{^ *}}func.func @main()
// CHECK:         %[[X:.*]] = "hir.vars"() {{.*}}name = "x"} : () -> memref<1x1x8x8xi16>
// CHECK-NEXT:    %[[P:.*]] = "hir.consts"() {base = 0 : i64, binary_point = 8 : i64, page = 0 : i64, value = dense<{{\[}}[0, 0, 0, 0], [256, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 256, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 256, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 256], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]> : tensor<17x4xi16>}
// CHECK-NEXT:    %[[S:.*]] = "hir.vars"() {{.*}}name = "conv"} : () -> memref<1x4x6x6xi16>
// CHECK-NEXT:    %[[W:.*]] = "hir.consts"() {{.*}} : () -> memref<37x4xi16>
// CHECK:         %[[T:.*]] = "hir.temp"() {{.*}} : () -> memref<1x4x6x6xi16>
// CHECK-NEXT:    "hir.matmul"(%[[T]], %[[X]], %[[P]]) {dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, layer = 0 : i64, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 2, 2>, tile_slots = array<i64: 0, 1, 2, 3>}
// CHECK-NEXT:    "hir.save"(%[[S]], %[[T]]) {layer = 0 : i64}
// CHECK:         "hir.matmul"({{.*}}, %[[S]], %[[W]]) {dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, layer = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, tile_slots = array<i64: 0, 1, 2, 3, 4, 5, 6, 7, 8>}
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x1x8x8xf32> loc("x")
  %w = "graph.constant"() {value = dense<0.25> : tensor<2x1x5x5xf32>} : () -> tensor<2x1x5x5xf32> loc("w")
  %b = "graph.constant"() {value = dense<0.5> : tensor<2xf32>} : () -> tensor<2xf32> loc("b")
  %c = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x8x8xf32>, tensor<2x1x5x5xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32> loc("conv")
  "graph.save"(%c) {name = "y"} : (tensor<1x2x4x4xf32>) -> () loc("save")
  return
}

// -----

// A 3x3 stride-2 convolution with one output channel tile saves 9 - 4 = 5
// passes, not more than the packing's 8: unchanged.
// CHECK-LABEL: {{^ *}}func.func @main()
// CHECK:         "hir.matmul"({{.*}}) {dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, layer = 0 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, {{.*}}}
// CHECK-NOT:     "hir.matmul"
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x1x8x8xf32> loc("x")
  %w = "graph.constant"() {value = dense<0.25> : tensor<2x1x3x3xf32>} : () -> tensor<2x1x3x3xf32> loc("w")
  %b = "graph.constant"() {value = dense<0.5> : tensor<2xf32>} : () -> tensor<2xf32> loc("b")
  %c = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x1x8x8xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32> loc("conv")
  "graph.save"(%c) {name = "y"} : (tensor<1x2x4x4xf32>) -> () loc("save")
  return
}

// -----

// Two input channels would take 8 lanes of S, more than the array's 4: unchanged.
// CHECK-LABEL: {{^ *}}func.func @main()
// CHECK:         "hir.matmul"({{.*}}) {dilations = array<i64: 1, 1>, kernel = array<i64: 5, 5>, layer = 0 : i64, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 2, 2>, {{.*}}}
// CHECK-NOT:     "hir.matmul"
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x8x8xf32> loc("x")
  %w = "graph.constant"() {value = dense<0.25> : tensor<2x2x5x5xf32>} : () -> tensor<2x2x5x5xf32> loc("w")
  %b = "graph.constant"() {value = dense<0.5> : tensor<2xf32>} : () -> tensor<2xf32> loc("b")
  %c = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>, tensor<2x2x5x5xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32> loc("conv")
  "graph.save"(%c) {name = "y"} : (tensor<1x2x4x4xf32>) -> () loc("save")
  return
}

// -----

// Stride 1: unchanged.
// CHECK-LABEL: {{^ *}}func.func @main()
// CHECK:         "hir.matmul"({{.*}}) {dilations = array<i64: 1, 1>, kernel = array<i64: 5, 5>, layer = 0 : i64, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 1, 1>, {{.*}}}
// CHECK-NOT:     "hir.matmul"
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x1x8x8xf32> loc("x")
  %w = "graph.constant"() {value = dense<0.25> : tensor<2x1x5x5xf32>} : () -> tensor<2x1x5x5xf32> loc("w")
  %b = "graph.constant"() {value = dense<0.5> : tensor<2xf32>} : () -> tensor<2xf32> loc("b")
  %c = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 1, 1>} : (tensor<1x1x8x8xf32>, tensor<2x1x5x5xf32>, tensor<2xf32>) -> tensor<1x2x8x8xf32> loc("conv")
  "graph.save"(%c) {name = "y"} : (tensor<1x2x8x8xf32>) -> () loc("save")
  return
}
