// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-lower{backend=cpu})' | FileCheck %s
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-lower{backend=reference})' | FileCheck %s --check-prefix=KEPT

// The cpu backend lowers an RNN into one matmul projecting the whole sequence and, per
// step, a recurrent matmul, the bias and tanh; the outputs are the steps concatenated.
// The reference backend keeps it.

// CHECK-LABEL: func.func @rnn()
// CHECK-NOT:     "graph.rnn"
// CHECK:         "graph.matmul"({{.*}}) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
// CHECK:         "graph.matmul"({{.*}}) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
// CHECK:         "graph.tanh"
// CHECK:         "graph.matmul"({{.*}}) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
// CHECK:         "graph.tanh"
// CHECK:         "graph.concat"({{.*}}) {axis = 0 : i64} : (tensor<1x1x1x2xf32>, tensor<1x1x1x2xf32>) -> tensor<2x1x1x2xf32>
// KEPT-LABEL:  func.func @rnn()
// KEPT:          "graph.rnn"
func.func @rnn() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x1x3xf32>
  %1 = "graph.splat"() {value = 1.000000e-01 : f32} : () -> tensor<1x2x3xf32>
  %2 = "graph.splat"() {value = 1.000000e-01 : f32} : () -> tensor<1x2x2xf32>
  %3 = "graph.splat"() {value = 2 : i32} : () -> tensor<1xi32>
  %4 = "graph.splat"() {value = 0.000000e+00 : f32} : () -> tensor<1x4xf32>
  %5 = "graph.placeholder"() {name = "h0"} : () -> tensor<1x1x2xf32>
  %6:2 = "graph.rnn"(%0, %1, %2, %4, %3, %5) {activation_alpha = array<f32: 0.000000e+00>, activation_beta = array<f32: 0.000000e+00>, activations = "Tanh", clip = 0.000000e+00 : f32, direction = "forward", hidden_size = 2 : i64} : (tensor<2x1x3xf32>, tensor<1x2x3xf32>, tensor<1x2x2xf32>, tensor<1x4xf32>, tensor<1xi32>, tensor<1x1x2xf32>) -> (tensor<2x1x1x2xf32>, tensor<1x1x2xf32>)
  "graph.save"(%6#0) {name = "y"} : (tensor<2x1x1x2xf32>) -> ()
  return
}
