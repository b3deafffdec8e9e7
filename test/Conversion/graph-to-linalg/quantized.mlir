// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-linalg)' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-linalg)' | mlir-opt --split-input-file > /dev/null

// A quantized convolution: stored i8 values, the input padded with its zero
// point (-3), an i8 x i8 -> i32 named convolution onto an i32 init holding
// bias - zero point x filter sum ([10 - (-3)(1+2), -4 - (-3)(-1+1)] = [19, -4]),
// then one requantization per channel (x 0.5 x [0.1, 0.2] / 0.25, roundeven,
// + zero point 1, clamp to [-128, 127]). Quantize/dequantize are generics.

// CHECK-LABEL: func.func @convolution(%arg0: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
// CHECK:         %[[Q:.*]] = linalg.generic {{.*}} ins(%arg0, %{{.*}}, %{{.*}} : tensor<1x2x3x3xf32>, tensor<1xf32>, tensor<1xf32>) outs(%{{.*}} : tensor<1x2x3x3xi8>)
// CHECK:           math.roundeven
// CHECK:           arith.trunci {{.*}} : i32 to i8
// CHECK:         arith.constant dense<[19, -4]> : tensor<2xi32>
// CHECK-NEXT:    %[[P:.*]] = tensor.pad %[[Q]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      %[[Z:.*]] = arith.constant -3 : i8
// CHECK-NEXT:      tensor.yield %[[Z]] : i8
// CHECK:         %[[ACC:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[P]], %{{.*}} : tensor<1x2x5x5xi8>, tensor<2x2x3x3xi8>) outs(%{{.*}} : tensor<1x2x3x3xi32>)
// CHECK:         arith.constant dense<[2.000000e-01, 4.000000e-01]> : tensor<2xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]], %{{.*}} : tensor<1x2x3x3xi32>, tensor<2xf32>) outs(%{{.*}} : tensor<1x2x3x3xi8>)
// CHECK:           arith.sitofp
// CHECK:           math.roundeven
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x3x3xf32>)
// CHECK:           arith.extsi {{.*}} : i8 to i32
// CHECK-NOT:     quant.uniform
func.func @convolution() {
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

// Another quantized op runs its float lowering between a dequantize and a quantize.

// CHECK-LABEL: func.func @relu(%arg0: tensor<4xi8>) -> tensor<4xi8>
// CHECK:         linalg.generic {{.*}} ins(%arg0, {{.*}}) outs(%{{.*}} : tensor<4xf32>)
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<4xf32>)
// CHECK:           arith.maximumf
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<4xi8>)
func.func @relu() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
  %y = "graph.relu"(%x) : (tensor<4x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<4x!quant.uniform<i8:f32, 0.25:-128>>
  "graph.save"(%y) {name = "y"} : (tensor<4x!quant.uniform<i8:f32, 0.25:-128>>) -> ()
  return
}

// -----

// A quantized fully-connected layer: an i32 matmul of the sign-extended
// input and the weights widened at compile time (cpu-vectorize vectorizes
// same-typed matmuls), onto bias - zero point x column sums
// ([7 - 2(1 - 1), -3 - 2(2 + 3)] = [7, -13]), then one requantization.

// CHECK-LABEL: func.func @fully_connected
// CHECK:         arith.constant dense<[7, -13]> : tensor<2xi32>
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<1x2xi8>) outs(%{{.*}} : tensor<1x2xi32>)
// CHECK:           arith.extsi {{.*}} : i8 to i32
// CHECK:         arith.constant dense<{{\[\[}}1, 2], [-1, 3]]> : tensor<2x2xi32>
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<1x2xi32>, tensor<2x2xi32>) outs(%{{.*}} : tensor<1x2xi32>)
func.func @fully_connected() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2xf32>
  %q = "graph.quantize"(%x) : (tensor<1x2xf32>) -> tensor<1x2x!quant.uniform<i8:f32, 0.5:2>>
  %w = "graph.constant"() {value = dense<[[1, 2], [-1, 3]]> : tensor<2x2xi8>} : () -> tensor<2x2x!quant.uniform<i8<-127:127>:f32, 0.1>>
  %b = "graph.constant"() {value = dense<[7, -3]> : tensor<2xi32>} : () -> tensor<2x!quant.uniform<i32:f32, 0.05>>
  %y = "graph.fully_connected"(%q, %w, %b) : (tensor<1x2x!quant.uniform<i8:f32, 0.5:2>>, tensor<2x2x!quant.uniform<i8<-127:127>:f32, 0.1>>, tensor<2x!quant.uniform<i32:f32, 0.05>>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:0>>
  %d = "graph.dequantize"(%y) : (tensor<1x2x!quant.uniform<i8:f32, 0.25:0>>) -> tensor<1x2xf32>
  "graph.save"(%d) {name = "y"} : (tensor<1x2xf32>) -> ()
  return
}
