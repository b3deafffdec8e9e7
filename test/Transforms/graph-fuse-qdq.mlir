// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse-qdq,graph-dce)' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse-qdq{backend=accelerator},graph-dce)' | FileCheck %s --check-prefix=ACCEL

// A QDQ layer as the importer writes it: dequantized input, weights and
// bias (symmetric int8 weights, an i32 bias in input scale x weight scale),
// a float convolution, a quantize. It becomes one quantized convolution of
// the stored input; the dequantizes are left unused and erased.

// CHECK-LABEL: func.func @fused
// CHECK:         %[[Q:.*]] = "graph.quantize"(%{{.*}}) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 5.000000e-01:-3>>
// CHECK:         %[[W:.*]] = "graph.constant"() {{.*}} -> tensor<2x2x1x1x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01}>>
// CHECK:         %[[B:.*]] = "graph.constant"() {{.*}} -> tensor<2x!quant.uniform<i32:f32:0, {5.000000e-02,1.000000e-01}>>
// CHECK:         %[[Y:.*]] = "graph.convolution"(%[[Q]], %[[W]], %[[B]]) {{.*}} -> tensor<1x2x3x3x!quant.uniform<i8:f32, 2.500000e-01:1>>
// CHECK-NEXT:    "graph.dequantize"(%[[Y]])
// CHECK-NOT:     tensor<2x2x1x1xf32>

// The accelerator runs nothing quantized: the float convolution stays.
// ACCEL-LABEL:   func.func @fused
// ACCEL:         "graph.convolution"({{.*}}) -> tensor<1x2x3x3xf32>
func.func @fused() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x3x3xf32>
  %q = "graph.quantize"(%x) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 0.5:-3>>
  %xf = "graph.dequantize"(%q) : (tensor<1x2x3x3x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<1x2x3x3xf32>
  %w = "graph.constant"() {value = dense<[[[[127]], [[-5]]], [[[3]], [[-127]]]]> : tensor<2x2x1x1xi8>} : () -> tensor<2x2x1x1x!quant.uniform<i8:f32:0, {0.1,0.2}>>
  %wf = "graph.dequantize"(%w) : (tensor<2x2x1x1x!quant.uniform<i8:f32:0, {0.1,0.2}>>) -> tensor<2x2x1x1xf32>
  %b = "graph.constant"() {value = dense<[10, -4]> : tensor<2xi32>} : () -> tensor<2x!quant.uniform<i32:f32:0, {0.05,0.1}>>
  %bf = "graph.dequantize"(%b) : (tensor<2x!quant.uniform<i32:f32:0, {0.05,0.1}>>) -> tensor<2xf32>
  %y = "graph.convolution"(%xf, %wf, %bf) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %yq = "graph.quantize"(%y) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 0.25:1>>
  %d = "graph.dequantize"(%yq) : (tensor<1x2x3x3x!quant.uniform<i8:f32, 0.25:1>>) -> tensor<1x2x3x3xf32>
  "graph.save"(%d) {name = "y"} : (tensor<1x2x3x3xf32>) -> ()
  return
}

// -----

// Not firing: weights with a zero point (asymmetric), and a layer whose
// float result is also saved (the quantize is not its only reader).

// CHECK-LABEL: func.func @not_fused
// CHECK:         "graph.fully_connected"({{.*}}) -> tensor<1x2xf32>
// CHECK:         "graph.fully_connected"({{.*}}) -> tensor<1x2xf32>
// CHECK-NOT:     "graph.fully_connected"
func.func @not_fused() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2xf32>
  %q = "graph.quantize"(%x) : (tensor<1x2xf32>) -> tensor<1x2x!quant.uniform<i8:f32, 0.5>>
  %xf = "graph.dequantize"(%q) : (tensor<1x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x2xf32>
  %w = "graph.constant"() {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>} : () -> tensor<2x2x!quant.uniform<i8:f32, 0.1:5>>
  %wf = "graph.dequantize"(%w) : (tensor<2x2x!quant.uniform<i8:f32, 0.1:5>>) -> tensor<2x2xf32>
  %s = "graph.constant"() {value = dense<[[127, 2], [3, -127]]> : tensor<2x2xi8>} : () -> tensor<2x2x!quant.uniform<i8:f32, 0.1>>
  %sf = "graph.dequantize"(%s) : (tensor<2x2x!quant.uniform<i8:f32, 0.1>>) -> tensor<2x2xf32>
  %b = "graph.constant"() {value = dense<[0.0, 0.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %y = "graph.fully_connected"(%xf, %wf, %b) : (tensor<1x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  %yq = "graph.quantize"(%y) : (tensor<1x2xf32>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25>>
  %z = "graph.fully_connected"(%xf, %sf, %b) : (tensor<1x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  %zq = "graph.quantize"(%z) : (tensor<1x2xf32>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25>>
  "graph.save"(%yq) {name = "y"} : (tensor<1x2x!quant.uniform<i8:f32, 0.25>>) -> ()
  "graph.save"(%zq) {name = "zq"} : (tensor<1x2x!quant.uniform<i8:f32, 0.25>>) -> ()
  "graph.save"(%z) {name = "z"} : (tensor<1x2xf32>) -> ()
  return
}
