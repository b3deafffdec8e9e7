// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-linalg,linalg-convolution-to-matmuls)' | FileCheck %s

// A 3x3 stride-2 convolution with padding 1 on 16 channels: the input, as
// if padded (to 16 x 20 x 8: output rows padded so that every tap's slice of
// 32 positions is in bounds), is split into its 2 x 2 stride phases of 16 x
// 10 x 4, each the image's rows and columns on it (a strided slice of the
// 6 x 6 image: phase (0, 0) takes rows and columns 1, 3, 5) copied into
// zeros, each flattened to [channels, positions]; each of the 9
// taps is one matmul of its filter tap [4 filters x 16 channels] (taps
// first: a transpose) by a contiguous slice of 32 positions of its phase,
// accumulating onto the bias, in a loop nest over the taps of each phase
// (2 x 2, 2 x 1, 1 x 2 and 1 x 1: one matmul each). The 3 x 3 outputs are
// cropped out of the 32 positions (3 rows of the phase width 4, then padding).

// CHECK-LABEL: func.func @strided
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<4x16x3x3xf32>) outs(%{{.*}} : tensor<3x3x4x16xf32>) permutation = [2, 3, 0, 1]
// CHECK:         tensor.extract_slice %{{.*}}[0, 1, 1] [16, 3, 3] [1, 2, 2] : tensor<16x6x6xf32> to tensor<16x3x3xf32>
// CHECK:         linalg.fill {{.*}} -> tensor<16x10x4xf32>
// CHECK:         linalg.copy {{.*}} outs(%{{.*}} : tensor<16x3x3xf32>)
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             tensor.extract_slice %{{.*}}[%{{.*}}, %{{.*}}, 0, 0] [1, 1, 4, 16] [1, 1, 1, 1] : tensor<3x3x4x16xf32> to tensor<4x16xf32>
// CHECK:             linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<16x32xf32>) outs(%{{.*}} : tensor<4x32xf32>)
// CHECK:         scf.for
// CHECK-NOT:       scf.for
// CHECK:           linalg.matmul
// CHECK:         scf.for
// CHECK-NOT:       scf.for
// CHECK:           linalg.matmul
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<16x32xf32>) outs(%{{.*}} : tensor<4x32xf32>)
// CHECK-NOT:     linalg.matmul
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

// A dilated convolution: kernel tap (i, j) reads the flattened input at
// offset 2 i wq + 2 j (wq = 2 + 4 columns: 12 i + 2 j), in a loop nest over
// i and j; a batch of two: an scf.for over the images holds one copy of the
// matmuls, each image's result copied into the batch.

// CHECK-LABEL: func.func @dilated_and_batched
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %c3
// CHECK:           scf.for %[[J:.*]] = %{{.*}} to %c3
// CHECK:             arith.muli %[[I]], %c12
// CHECK:             %[[COLUMN:.*]] = arith.muli %[[J]], %c2{{(_[0-9]+)?}} :
// CHECK:             %[[OFFSET:.*]] = arith.addi %{{.*}}, %[[COLUMN]]
// CHECK:             tensor.extract_slice %{{.*}}[0, %[[OFFSET]]] [16, 32] [1, 1] : tensor<16x60xf32> to tensor<16x32xf32>
// CHECK:             linalg.matmul
// CHECK-NOT:     linalg.matmul
// CHECK:         scf.for %[[IMAGE:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[BATCH:.*]] = %{{.*}}) -> (tensor<2x4x4x4xf32>)
// CHECK:         tensor.extract_slice %arg1[%[[IMAGE]], 0, 0, 0] [1, 16, 6, 6] [1, 1, 1, 1] : tensor<2x16x6x6xf32> to tensor<1x16x6x6xf32>
// CHECK:           linalg.matmul
// CHECK:         linalg.copy {{.*}} outs(%{{.*}} : tensor<1x4x4x4xf32>)
// CHECK:         tensor.insert_slice %{{.*}} into %[[BATCH]][%[[IMAGE]], 0, 0, 0] [1, 4, 4, 4]
// CHECK-NEXT:    scf.yield
// CHECK-NOT:     linalg.matmul
// CHECK-NOT:     linalg.conv
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

// -----

// A 1x1 stride-1 unpadded convolution reads its input as it is (no padded
// copy: 196 positions, not 224) and writes exactly its output positions:
// a loop over the 6 register tiles of the first 192 (8 filters x 32
// positions, each from its bias: the outer product bias x ones), one tile of the last
// 4. On 7x7 the tail would be 17 of 49 positions: padded to 64 as usual
// (zeros written only around the image: 3 rows below it).

// CHECK-LABEL: func.func @pointwise
// CHECK-NOT:     linalg.fill
// CHECK:         scf.for %{{.*}} = %c0 to %c6 step %c1 iter_args(%{{.*}}) -> (tensor<8x192xf32>)
// CHECK:           linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x1xf32>, tensor<1x32xf32>) outs(%{{.*}} : tensor<8x32xf32>)
// CHECK:           linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x32xf32>) outs(%{{.*}} : tensor<8x32xf32>)
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x4xf32>) outs(%{{.*}} : tensor<8x4xf32>)
// CHECK:         tensor.expand_shape %{{.*}} : tensor<8x196xf32> into tensor<8x14x14xf32>
// CHECK:         linalg.fill {{.*}} -> tensor<16x3x7xf32>
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c2 step %{{.*}} iter_args(%{{.*}}) -> (tensor<8x64xf32>)
// CHECK:           linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x32xf32>) outs(%{{.*}} : tensor<8x32xf32>)
func.func @pointwise() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x16x14x14xf32>
  %x2 = "graph.placeholder"() {name = "x2"} : () -> tensor<1x16x7x7xf32>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<8x16x1x1xf32>
  %b = "graph.splat"() {value = 0.5 : f32} : () -> tensor<8xf32>
  %y = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x16x14x14xf32>, tensor<8x16x1x1xf32>, tensor<8xf32>) -> tensor<1x8x14x14xf32>
  %z = "graph.convolution"(%x2, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x16x7x7xf32>, tensor<8x16x1x1xf32>, tensor<8xf32>) -> tensor<1x8x7x7xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x8x14x14xf32>) -> ()
  "graph.save"(%z) {name = "z"} : (tensor<1x8x7x7xf32>) -> ()
  return
}

// -----

// A grouped convolution: per tap, an scf.for over the groups of matmuls
// [filters, channels] x [channels, positions] of each group's slices
// ([groups, filters, channels] x [groups, channels, positions]), onto the
// bias broadcast to [groups, filters, positions]. 11 filters per group (a
// matmul tile of 1 row) are padded with zero filters to 16 at compile time,
// and the kept rows are copied out; 6 filters per group are left as they are.

// CHECK-LABEL: func.func @grouped
// CHECK:         arith.constant dense<"0x{{[0-9A-F]+}}"> : tensor<1x1x2x16x4xf32>
// CHECK:         scf.for %[[G:.*]] = %{{.*}} to %c2{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<2x16x32xf32>)
// CHECK:           tensor.extract_slice %{{.*}}{{\[}}%[[G]], 0, 0] [1, 16, 4] [1, 1, 1] : tensor<2x16x4xf32> to tensor<16x4xf32>
// CHECK:           linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x4xf32>, tensor<4x32xf32>) outs(%{{.*}} : tensor<16x32xf32>)
// CHECK:           tensor.insert_slice %{{.*}} into %[[ACC]]{{\[}}%[[G]], 0, 0] [1, 16, 32] [1, 1, 1] : tensor<16x32xf32> into tensor<2x16x32xf32>
// CHECK:         tensor.extract_slice %{{.*}}[0, 0, 0] [2, 11, 32] [1, 1, 1] : tensor<2x16x32xf32> to tensor<2x11x32xf32>
// CHECK:         linalg.copy {{.*}} outs(%{{.*}} : tensor<2x11x4x8xf32>)
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<6x4xf32>, tensor<4x32xf32>) outs(%{{.*}} : tensor<6x32xf32>)
// CHECK-NOT:     linalg.batch_matmul
// CHECK-NOT:     linalg.copy
// CHECK-NOT:     linalg.conv
func.func @grouped() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x8x4x8xf32>
  %w = "graph.splat"() {value = 0.5 : f32} : () -> tensor<22x4x1x1xf32>
  %w2 = "graph.splat"() {value = 0.5 : f32} : () -> tensor<12x4x1x1xf32>
  %b = "graph.splat"() {value = 1.0 : f32} : () -> tensor<22xf32>
  %b2 = "graph.splat"() {value = 1.0 : f32} : () -> tensor<12xf32>
  %y = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x4x8xf32>, tensor<22x4x1x1xf32>, tensor<22xf32>) -> tensor<1x22x4x8xf32>
  %z = "graph.convolution"(%x, %w2, %b2) {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x4x8xf32>, tensor<12x4x1x1xf32>, tensor<12xf32>) -> tensor<1x12x4x8xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x22x4x8xf32>) -> ()
  "graph.save"(%z) {name = "z"} : (tensor<1x12x4x8xf32>) -> ()
  return
}

// -----

// A depthwise 3x3 convolution: the same contiguous tap slices of the
// flattened padded input (rows of 6 + 2 columns), summed in one element-wise
// generic (tagged for cpu-vectorize) as a chain of 9 fused multiply-adds
// with each tap's per-channel weight, onto the broadcast bias.

// CHECK-LABEL: func.func @depthwise
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<3x3x3xf32>) outs(%{{.*}} : tensor<3x3x3xf32>) permutation = [1, 2, 0]
// CHECK:         tensor.extract_slice %{{.*}}[0, 18] [3, 64] [1, 1] : tensor<3x88xf32> to tensor<3x64xf32>
// CHECK:         linalg.generic {{.*}} : tensor<3x64xf32>, tensor<3x64xf32>, tensor<3x64xf32>, tensor<3x64xf32>, tensor<3x64xf32>, tensor<3x64xf32>, tensor<3x64xf32>, tensor<3x64xf32>, tensor<3x64xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK-SAME:      outs(%{{.*}} : tensor<3x64xf32>) attrs = {lamina.tap_sum}
// CHECK-COUNT-9:   math.fma
// CHECK:         tensor.extract_slice %{{.*}}[0, 0] [3, 48] [1, 1] : tensor<3x64xf32> to tensor<3x48xf32>
// CHECK-NOT:     linalg.depthwise
func.func @depthwise() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x3x6x6xf32>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<3x1x3x3xf32>
  %b = "graph.splat"() {value = 0.5 : f32} : () -> tensor<3xf32>
  %y = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 3 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x6x6xf32>, tensor<3x1x3x3xf32>, tensor<3xf32>) -> tensor<1x3x6x6xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x3x6x6xf32>) -> ()
  return
}

// -----

// A quantized convolution (i8 data and filter onto an i32 init): the filter
// is sign-extended to i32 at compile time and the input by a generic, so
// the matmul is i32 x i32 -> i32 like the f32 ones (cpu-vectorize raises
// those to vector contractions; two channels: the 9 taps gathered into one).
// The input is padded with its zero point (-3), so the padded tensor is the
// data and no zero padding is added.

// CHECK-LABEL: func.func @quantized
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<1x2x5x5xi8>) outs(%{{.*}} : tensor<1x2x5x5xi32>)
// CHECK:           arith.extsi {{.*}} : i8 to i32
// CHECK:         arith.constant dense<{{.*}}> : tensor<2x2x3x3xi32>
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x18xi32>, tensor<18x32xi32>) outs(%{{.*}} : tensor<2x32xi32>)
// CHECK-NOT:     linalg.conv
func.func @quantized() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x3x3xf32>
  %q = "graph.quantize"(%x) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 0.5:-3>>
  %w = "graph.constant"() {value = dense<[[[[1, 0, 0], [0, 0, 0], [0, 0, 2]], [[0, 0, 0], [0, 0, 0], [0, 0, 0]]], [[[-1, 0, 0], [0, 0, 0], [0, 0, 0]], [[0, 0, 0], [0, 1, 0], [0, 0, 0]]]]> : tensor<2x2x3x3xi8>} : () -> tensor<2x2x3x3x!quant.uniform<i8<-127:127>:f32:0, {0.1,0.2}>>
  %b = "graph.constant"() {value = dense<[10, -4]> : tensor<2xi32>} : () -> tensor<2x!quant.uniform<i32:f32:0, {0.05,0.1}>>
  %y = "graph.convolution"(%q, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x3x3x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x2x3x3x!quant.uniform<i8<-127:127>:f32:0, {0.1,0.2}>>, tensor<2x!quant.uniform<i32:f32:0, {0.05,0.1}>>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 0.25:1>>
  %d = "graph.dequantize"(%y) : (tensor<1x2x3x3x!quant.uniform<i8:f32, 0.25:1>>) -> tensor<1x2x3x3xf32>
  "graph.save"(%d) {name = "y"} : (tensor<1x2x3x3xf32>) -> ()
  return
}

// -----

// A quantized depthwise convolution: the tap sum multiplies and adds i32
// (integers have no fma).

// CHECK-LABEL: func.func @quantized_depthwise
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<2x{{[0-9]+}}xi32>) attrs = {lamina.tap_sum}
// CHECK-COUNT-9:   arith.muli
// CHECK-NOT:     linalg.depthwise_conv
func.func @quantized_depthwise() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x3x3xf32>
  %q = "graph.quantize"(%x) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 0.5:-3>>
  %w = "graph.constant"() {value = dense<[[[[1, 0, 0], [0, 0, 0], [0, 0, 2]]], [[[-1, 0, 0], [0, 1, 0], [0, 0, 0]]]]> : tensor<2x1x3x3xi8>} : () -> tensor<2x1x3x3x!quant.uniform<i8<-127:127>:f32:0, {0.1,0.2}>>
  %b = "graph.constant"() {value = dense<[10, -4]> : tensor<2xi32>} : () -> tensor<2x!quant.uniform<i32:f32:0, {0.05,0.1}>>
  %y = "graph.convolution"(%q, %w, %b) {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x3x3x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x1x3x3x!quant.uniform<i8<-127:127>:f32:0, {0.1,0.2}>>, tensor<2x!quant.uniform<i32:f32:0, {0.05,0.1}>>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 0.25:1>>
  %d = "graph.dequantize"(%y) : (tensor<1x2x3x3x!quant.uniform<i8:f32, 0.25:1>>) -> tensor<1x2x3x3xf32>
  "graph.save"(%d) {name = "y"} : (tensor<1x2x3x3xf32>) -> ()
  return
}

// -----

// Not firing: convolutions of other element types stay named convolutions.

// CHECK-LABEL: func.func @not_f32
// CHECK-NOT:     linalg.matmul
// CHECK-NOT:     linalg.generic {{.*}}lamina.tap_sum
// CHECK:         linalg.depthwise_conv_2d_nchw_chw {{.*}} -> tensor<1x3x6x6xf64>
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}} -> tensor<1x4x4x4xf64>
// CHECK-NOT:     linalg.matmul
func.func @not_f32() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x3x6x6xf64>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<3x1x3x3xf64>
  %w2 = "graph.placeholder"() {name = "w2"} : () -> tensor<4x3x3x3xf64>
  %b = "graph.splat"() {value = 0.5 : f64} : () -> tensor<3xf64>
  %b2 = "graph.splat"() {value = 0.5 : f64} : () -> tensor<4xf64>
  %y = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 3 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x6x6xf64>, tensor<3x1x3x3xf64>, tensor<3xf64>) -> tensor<1x3x6x6xf64>
  %z = "graph.convolution"(%x, %w2, %b2) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x6x6xf64>, tensor<4x3x3x3xf64>, tensor<4xf64>) -> tensor<1x4x4x4xf64>
  "graph.save"(%y) {name = "y"} : (tensor<1x3x6x6xf64>) -> ()
  "graph.save"(%z) {name = "z"} : (tensor<1x4x4x4xf64>) -> ()
  return
}

// -----

// Epilogues: a ReLU that is the convolution's only user is applied to each
// register tile right after its taps, in place (a generic whose init is
// the tile's accumulator, tagged lamina.epilogue), and its own generic is
// gone. The taps of a tile are an scf.for nest (tagged lamina.tap_loop, for
// cpu-vectorize) around one matmul. A 1x1 convolution whose positions are
// its output's (dense) also takes a residual add (the other operand
// flattened and sliced like the tile) and the ReLU after it.

// CHECK-LABEL: func.func @fused
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c14 step %{{.*}} iter_args(%{{.*}}) -> (tensor<8x448xf32>)
// CHECK:           linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x1xf32>, tensor<1x32xf32>) outs(%{{.*}} : tensor<8x32xf32>)
// CHECK:           scf.for {{.*}} -> (tensor<8x32xf32>)
// CHECK:             scf.for {{.*}} -> (tensor<8x32xf32>)
// CHECK:               linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x32xf32>) outs(%{{.*}} : tensor<8x32xf32>)
// CHECK:             } {lamina.tap_loop = 1 : i64}
// CHECK:           } {lamina.tap_loop = 0 : i64}
// CHECK:           linalg.generic {{.*}} outs(%{{.*}} : tensor<8x32xf32>) attrs = {lamina.epilogue}
// CHECK:             arith.maximumf
// CHECK:         tensor.collapse_shape %arg2 {{\[}}[0, 1], [2, 3]] : tensor<1x8x20x20xf32> into tensor<8x400xf32>
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c12 step %{{.*}} iter_args(%{{.*}}) -> (tensor<8x384xf32>)
// CHECK:           linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xf32>, tensor<8x32xf32>) outs(%{{.*}} : tensor<8x32xf32>)
// CHECK:           linalg.generic {{.*}} ins(%{{.*}} : tensor<8x32xf32>) outs(%{{.*}} : tensor<8x32xf32>) attrs = {lamina.epilogue}
// CHECK:             arith.addf
// CHECK:             arith.maximumf
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xf32>, tensor<8x16xf32>) outs(%{{.*}} : tensor<8x16xf32>)
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<8x16xf32>) outs(%{{.*}} : tensor<8x16xf32>) attrs = {lamina.epilogue}
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @fused() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x16x20x20xf32>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<8x16x3x3xf32>
  %r = "graph.placeholder"() {name = "r"} : () -> tensor<1x8x20x20xf32>
  %x1 = "graph.placeholder"() {name = "x1"} : () -> tensor<1x8x20x20xf32>
  %w1 = "graph.placeholder"() {name = "w1"} : () -> tensor<8x8x1x1xf32>
  %b = "graph.splat"() {value = 0.5 : f32} : () -> tensor<8xf32>
  %y = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x16x20x20xf32>, tensor<8x16x3x3xf32>, tensor<8xf32>) -> tensor<1x8x20x20xf32>
  %y1 = "graph.relu"(%y) : (tensor<1x8x20x20xf32>) -> tensor<1x8x20x20xf32>
  %z = "graph.convolution"(%x1, %w1, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x20x20xf32>, tensor<8x8x1x1xf32>, tensor<8xf32>) -> tensor<1x8x20x20xf32>
  %s = "graph.add"(%z, %r) : (tensor<1x8x20x20xf32>, tensor<1x8x20x20xf32>) -> tensor<1x8x20x20xf32>
  %s1 = "graph.relu"(%s) : (tensor<1x8x20x20xf32>) -> tensor<1x8x20x20xf32>
  "graph.save"(%y1) {name = "y"} : (tensor<1x8x20x20xf32>) -> ()
  "graph.save"(%s1) {name = "s"} : (tensor<1x8x20x20xf32>) -> ()
  return
}

// -----

// Not fused: a convolution result with a second user (the ReLU stays a
// generic of its own on the cropped output), and an add on a padded 3x3
// convolution, whose positions (rows of 22) are not the other operand's.

// CHECK-LABEL: func.func @not_fused
// CHECK-NOT:     lamina.epilogue
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<1x8x20x20xf32>) outs(%{{.*}} : tensor<1x8x20x20xf32>)
// CHECK:           arith.maximumf
// CHECK-NOT:     lamina.epilogue
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x8x20x20xf32>, tensor<1x8x20x20xf32>) outs(%{{.*}} : tensor<1x8x20x20xf32>)
// CHECK:           arith.addf
// CHECK-NOT:     lamina.epilogue
func.func @not_fused() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x16x20x20xf32>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<8x16x3x3xf32>
  %r = "graph.placeholder"() {name = "r"} : () -> tensor<1x8x20x20xf32>
  %b = "graph.splat"() {value = 0.5 : f32} : () -> tensor<8xf32>
  %y = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x16x20x20xf32>, tensor<8x16x3x3xf32>, tensor<8xf32>) -> tensor<1x8x20x20xf32>
  %y1 = "graph.relu"(%y) : (tensor<1x8x20x20xf32>) -> tensor<1x8x20x20xf32>
  %z = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x16x20x20xf32>, tensor<8x16x3x3xf32>, tensor<8xf32>) -> tensor<1x8x20x20xf32>
  %s = "graph.add"(%z, %r) : (tensor<1x8x20x20xf32>, tensor<1x8x20x20xf32>) -> tensor<1x8x20x20xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x8x20x20xf32>) -> ()
  "graph.save"(%y1) {name = "y1"} : (tensor<1x8x20x20xf32>) -> ()
  "graph.save"(%s) {name = "s"} : (tensor<1x8x20x20xf32>) -> ()
  return
}

// -----

// Position blocks: a 64-filter 3x3 convolution on 56 x 56 writes 64 x
// 3264 positions (102 register tiles of 32; rows of 58), more than a block
// of 256 KiB (32 tiles): its taps run block by block, 4 blocks of 26 tiles
// (832 positions) as the iterations of an scf.forall (3328 positions in
// all); in a block, register tile by register tile (8 filter tiles x 26
// position tiles), each from the bias through the 3 x 3 taps.

// CHECK-LABEL: func.func @blocks
// CHECK:         scf.forall (%[[B:.*]]) in (4) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<64x3328xf32>)
// CHECK:           %[[START:.*]] = arith.muli %[[B]], %{{.*}} : index
// CHECK:           tensor.extract_slice %[[OUT]][0, %[[START]]] [64, 832] [1, 1]
// CHECK:           scf.for %{{.*}} = %{{.*}} to %c8 step %{{.*}} iter_args(%{{.*}}) -> (tensor<64x832xf32>)
// CHECK:             scf.for %{{.*}} = %{{.*}} to %c26 step %{{.*}} iter_args(%{{.*}}) -> (tensor<64x832xf32>)
// CHECK:               linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x1xf32>, tensor<1x32xf32>) outs(%{{.*}} : tensor<8x32xf32>)
// CHECK:               scf.for
// CHECK:                 scf.for
// CHECK:                   linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x32xf32>) outs(%{{.*}} : tensor<8x32xf32>)
// CHECK:           scf.forall.in_parallel
// CHECK-NEXT:        tensor.parallel_insert_slice %{{.*}} into %[[OUT]][0, %[[START]]] [64, 832] [1, 1]
func.func @blocks() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x16x56x56xf32>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<64x16x3x3xf32>
  %b = "graph.splat"() {value = 0.5 : f32} : () -> tensor<64xf32>
  %y = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x16x56x56xf32>, tensor<64x16x3x3xf32>, tensor<64xf32>) -> tensor<1x64x56x56xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x64x56x56xf32>) -> ()
  return
}

// -----

// A 1x1 convolution on a concatenation (slices inserted into a whole tensor, as after SqueezeNet's
// and Inception's branches) reads it as it is: no zero-padded copy of its input. Not firing: on a
// slice of that concatenation (a view) it copies its input into a padded buffer first.

// CHECK-LABEL: func.func @pointwise_after_concat
// CHECK:         tensor.insert_slice {{.*}} into %{{.*}}[0, 8, 0, 0] [1, 8, 14, 14]
// CHECK-NOT:     linalg.fill
// CHECK:         tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<16x14x14xf32> into tensor<16x196xf32>
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x32xf32>)
// CHECK:         tensor.extract_slice %arg2[0, 0, 0, 0] [1, 16, 14, 14]
// CHECK:         linalg.fill {{.*}} -> tensor<16x2x14xf32>
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x32xf32>)
func.func @pointwise_after_concat() {
  %a = "graph.placeholder"() {name = "a"} : () -> tensor<1x8x14x14xf32>
  %c = "graph.placeholder"() {name = "c"} : () -> tensor<1x8x14x14xf32>
  %big = "graph.placeholder"() {name = "big"} : () -> tensor<1x16x15x14xf32>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<8x16x1x1xf32>
  %b = "graph.splat"() {value = 0.5 : f32} : () -> tensor<8xf32>
  %x = "graph.concat"(%a, %c) {axis = 1 : i64} : (tensor<1x8x14x14xf32>, tensor<1x8x14x14xf32>) -> tensor<1x16x14x14xf32>
  %y = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x16x14x14xf32>, tensor<8x16x1x1xf32>, tensor<8xf32>) -> tensor<1x8x14x14xf32>
  %s = "graph.slice"(%big) {starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 1, 16, 14, 14>, axes = array<i64: 0, 1, 2, 3>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x16x15x14xf32>) -> tensor<1x16x14x14xf32>
  %z = "graph.convolution"(%s, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x16x14x14xf32>, tensor<8x16x1x1xf32>, tensor<8xf32>) -> tensor<1x8x14x14xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x8x14x14xf32>) -> ()
  "graph.save"(%z) {name = "z"} : (tensor<1x8x14x14xf32>) -> ()
  return
}
