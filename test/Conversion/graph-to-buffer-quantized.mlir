// RUN: lamina-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(convert-graph-to-buffer)' | FileCheck %s

// A quantized graph: each buffer is a memref of the stored integers with the
// !quant.uniform type in its memory space (i8 activations, per-axis i8
// weights, an i32 bias); quantize and dequantize are instructions.

// CHECK-LABEL: func.func @quantized_convolution()
// CHECK:         "buffer.constant"() {{.*}} : () -> memref<2x1x1x1xi8, {quant = !quant.uniform<i8<-127:127>:f32:0, {1.000000e-01,2.000000e-01}>}>
// CHECK:         "buffer.constant"() {{.*}} : () -> memref<2xi32, {quant = !quant.uniform<i32:f32:0, {5.000000e-02,1.000000e-01}>}>
// CHECK:         %[[Q:.*]] = "buffer.alloc"() {name = "q", offset = -1 : i64} : () -> memref<1x1x2x2xi8, {quant = !quant.uniform<i8:f32, 5.000000e-01:-3>}>
// CHECK-NEXT:    "buffer.quantize"(%[[Q]], %{{.*}}) : (memref<1x1x2x2xi8, {quant = !quant.uniform<i8:f32, 5.000000e-01:-3>}>, memref<1x1x2x2xf32>) -> ()
// CHECK:         %[[C:.*]] = "buffer.alloc"() {name = "c", offset = -1 : i64} : () -> memref<1x2x2x2xui8, {quant = !quant.uniform<u8:f32, 2.500000e-01:128>}>
// CHECK-NEXT:    "buffer.convolution"(%[[C]], %[[Q]]
// CHECK:         "buffer.dequantize"(%{{.*}}, %[[C]]) : (memref<1x2x2x2xf32>, memref<1x2x2x2xui8, {quant = !quant.uniform<u8:f32, 2.500000e-01:128>}>) -> ()
func.func @quantized_convolution() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<1x1x2x2xf32> loc("x")
  %1 = "graph.quantize"(%0) : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2x!quant.uniform<i8:f32, 0.5:-3>> loc("q")
  %2 = "graph.constant"() {value = dense<1> : tensor<2x1x1x1xi8>} : () -> tensor<2x1x1x1x!quant.uniform<i8<-127:127>:f32:0, {0.1,0.2}>> loc("w")
  %3 = "graph.constant"() {value = dense<0> : tensor<2xi32>} : () -> tensor<2x!quant.uniform<i32:f32:0, {0.05,0.1}>> loc("b")
  %4 = "graph.convolution"(%1, %2, %3) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x1x1x1x!quant.uniform<i8<-127:127>:f32:0, {0.1,0.2}>>, tensor<2x!quant.uniform<i32:f32:0, {0.05,0.1}>>) -> tensor<1x2x2x2x!quant.uniform<u8:f32, 0.25:128>> loc("c")
  %5 = "graph.dequantize"(%4) : (tensor<1x2x2x2x!quant.uniform<u8:f32, 0.25:128>>) -> tensor<1x2x2x2xf32> loc("d")
  "graph.save"(%5) {name = "y"} : (tensor<1x2x2x2xf32>) -> () loc("y")
  return
}

// -----

// A profiling probe records values in the graph interpreter: no buffer form.
func.func @profiled() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<4xf32>
  // expected-error @+1 {{'graph.profile' has no buffer form}}
  "graph.profile"(%0) {name = "x"} : (tensor<4xf32>) -> ()
  "graph.save"(%0) {name = "y"} : (tensor<4xf32>) -> ()
  return
}
