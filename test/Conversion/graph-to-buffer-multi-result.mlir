// RUN: not lamina-opt %s --pass-pipeline='builtin.module(convert-graph-to-buffer)' 2>&1 | FileCheck %s


// Multi-result ops other than control flow (recurrent layers) have no buffer
// form: one error at the op.

// CHECK: error: 'graph.gru' has no buffer form (multi-result ops): lower recurrent layers (graph-lower), or run the model on the CPU path
func.func @gru_inside_a_branch() {
  %c = "graph.placeholder"() {name = "c"} : () -> tensor<i1>
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x1x2xf32>
  %w = "graph.constant"() {value = dense<0.1> : tensor<1x3x2xf32>} : () -> tensor<1x3x2xf32>
  %r = "graph.constant"() {value = dense<0.1> : tensor<1x3x1xf32>} : () -> tensor<1x3x1xf32>
  %b = "graph.constant"() {value = dense<0.0> : tensor<1x6xf32>} : () -> tensor<1x6xf32>
  %l = "graph.constant"() {value = dense<1> : tensor<1xi32>} : () -> tensor<1xi32>
  %h = "graph.constant"() {value = dense<0.0> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
  %0 = "graph.if"(%c) ({
    %y:2 = "graph.gru"(%x, %w, %r, %b, %l, %h) {activation_alpha = array<f32: 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0>, activations = "Sigmoid,Tanh", clip = 0.0 : f32, direction = "forward", hidden_size = 1 : i64, linear_before_reset = false} : (tensor<1x1x2xf32>, tensor<1x3x2xf32>, tensor<1x3x1xf32>, tensor<1x6xf32>, tensor<1xi32>, tensor<1x1x1xf32>) -> (tensor<1x1x1x1xf32>, tensor<1x1x1xf32>)
    gpu.yield %y#1 : tensor<1x1x1xf32>
  }, {
    gpu.yield %h : tensor<1x1x1xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<i1>) -> tensor<1x1x1xf32>
  "graph.save"(%0) {name = "y"} : (tensor<1x1x1xf32>) -> ()
  return
}
