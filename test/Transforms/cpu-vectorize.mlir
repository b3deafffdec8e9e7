// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-linalg,linalg-convolution-to-matmuls,cpu-vectorize)' | FileCheck %s

// After linalg-convolution-to-matmuls, a batch-1 2-D convolution is matmuls on its flattened output
// positions (14 rows of 16 = 14 + 2 columns, 224 positions, a multiple of
// 32), one per register tile of 6 filters (the largest divisor of 12 up to
// 8) x 32 positions, in a loop nest over the tiles. With 8 < 16 input
// channels the 9 taps' contiguous input slices are gathered into one 72 x
// 224 operand and each tile's matmul is tiled by 1 channel and vectorized:
// the accumulator starts from the bias (an outer product with ones, no
// broadcast pass), stays in registers across the reduction loop (its only iter_arg)
// and is written once per tile. No convolution and no tag the pass uses to
// find ops is left.

// CHECK-LABEL: func.func @convolution
// CHECK:         linalg.transpose
// CHECK:         scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args({{.*}}) -> (tensor<12x224xf32>)
// CHECK:           scf.for %{{.*}} = %c0 to %c7 step %c1 iter_args({{.*}}) -> (tensor<12x224xf32>)
// CHECK:             vector.outerproduct {{.*}} : vector<6xf32>, vector<32xf32>
// CHECK:             scf.for %{{.*}} = %c0 to %c72 step %c1 iter_args({{.*}}) -> (vector<6x32xf32>)
// CHECK:               vector.outerproduct {{.*}} : vector<6xf32>, vector<32xf32>
// CHECK:             vector.transfer_write {{.*}} : vector<6x32xf32>, tensor<12x224xf32>
// CHECK:         tensor.expand_shape {{.*}} : tensor<12x224xf32> into tensor<12x14x16xf32>
// CHECK-NOT:     linalg.conv
// CHECK-NOT:     linalg.matmul
// CHECK-NOT:     lamina.cpu_tile
func.func @convolution() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x8x16x16xf32>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<12x8x3x3xf32>
  %b = "graph.splat"() {value = 1.0 : f32} : () -> tensor<12xf32>
  %y = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<12x8x3x3xf32>, tensor<12xf32>) -> tensor<1x12x14x14xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x12x14x14xf32>) -> ()
  return
}

// -----

// A depthwise convolution's tap sum (the generic linalg-convolution-to-matmuls
// tags): tiled to 1 channel x 32 positions and vectorized, the 9 taps one
// chain of vector FMAs onto the accumulator, written once per tile. The
// bias broadcast (an untagged generic) is not vectorized; no tag is left.

// CHECK-LABEL: func.func @depthwise
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<3x64xf32>)
// CHECK:         scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK:           scf.for %{{.*}} = %c0 to %c64 step %c32
// CHECK-COUNT-9:     math.fma {{.*}} : vector<32xf32>
// CHECK:             vector.transfer_write {{.*}} : vector<32xf32>, tensor<1x32xf32>
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     lamina.tap_sum
// CHECK-NOT:     lamina.cpu_tile
func.func @depthwise() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x3x6x6xf32>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<3x1x3x3xf32>
  %b = "graph.splat"() {value = 0.5 : f32} : () -> tensor<3xf32>
  %y = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 3 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x6x6xf32>, tensor<3x1x3x3xf32>, tensor<3xf32>) -> tensor<1x3x6x6xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x3x6x6xf32>) -> ()
  return
}

// -----

// Not firing: generics without the tag (a 1-D grouped convolution, its bias
// broadcast) stay as they are.

// CHECK-LABEL: func.func @grouped_1d
// CHECK-NOT:     vector.
// CHECK:         linalg.generic
// CHECK:         linalg.generic
// CHECK-NOT:     vector.
func.func @grouped_1d() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x5xf32>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<4x1x3xf32>
  %b = "graph.splat"() {value = 0.0 : f32} : () -> tensor<4xf32>
  %y = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1>, group = 2 : i64, pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<1x2x5xf32>, tensor<4x1x3xf32>, tensor<4xf32>) -> tensor<1x4x3xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x4x3xf32>) -> ()
  return
}

// -----

// A matmul: 8 x 32 x 1 tiles when they divide (rows 2 -> 2, untiled; columns 128 -> 32; depth 12 -> 1),
// the 2 x 32 accumulator carried in registers through the depth loop.

// CHECK-LABEL: func.func @matmul
// CHECK:         scf.for %{{.*}} = %c0 to %c128 step %c32
// CHECK:           scf.for %{{.*}} = %c0 to %c12 step %c1 iter_args({{.*}}) -> (vector<2x32xf32>)
// CHECK:             vector.outerproduct {{.*}} : vector<2xf32>, vector<32xf32>
// CHECK-NOT:     linalg.matmul
func.func @matmul() {
  %a = "graph.placeholder"() {name = "a"} : () -> tensor<2x12xf32>
  %b = "graph.placeholder"() {name = "b"} : () -> tensor<12x128xf32>
  %y = "graph.matmul"(%a, %b) : (tensor<2x12xf32>, tensor<12x128xf32>) -> tensor<2x128xf32>
  "graph.save"(%y) {name = "y"} : (tensor<2x128xf32>) -> ()
  return
}

// -----

// A register tile's tap loops (16 channels: one matmul per tap, in a 3 x 3 scf.for nest tagged
// lamina.tap_loop): the 8 x 32 accumulator is hoisted out of both, so it is carried in registers
// from the bias through every tap and channel to the ReLU, and written once. The tags are gone.

// CHECK-LABEL: func.func @tap_loops
// CHECK:         scf.for {{.*}} -> (tensor<8x224xf32>)
// CHECK:           vector.outerproduct {{.*}} : vector<8xf32>, vector<32xf32>
// CHECK:           scf.for {{.*}} iter_args({{.*}}) -> (vector<8x32xf32>)
// CHECK:             scf.for {{.*}} iter_args({{.*}}) -> (vector<8x32xf32>)
// CHECK:               scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args({{.*}}) -> (vector<8x32xf32>)
// CHECK:                 vector.outerproduct {{.*}} : vector<8xf32>, vector<32xf32>
// CHECK:           arith.maximumf {{.*}} : vector<8x32xf32>
// CHECK:           vector.transfer_write {{.*}} : vector<8x32xf32>, tensor<8x224xf32>
// CHECK-NOT:     lamina.tap_loop
// CHECK-NOT:     lamina.epilogue
func.func @tap_loops() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x16x14x14xf32>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<8x16x3x3xf32>
  %b = "graph.splat"() {value = 0.5 : f32} : () -> tensor<8xf32>
  %y = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x16x14x14xf32>, tensor<8x16x3x3xf32>, tensor<8xf32>) -> tensor<1x8x14x14xf32>
  %r = "graph.relu"(%y) : (tensor<1x8x14x14xf32>) -> tensor<1x8x14x14xf32>
  "graph.save"(%r) {name = "r"} : (tensor<1x8x14x14xf32>) -> ()
  return
}
