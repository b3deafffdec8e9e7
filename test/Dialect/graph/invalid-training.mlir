// RUN: lamina-opt %s --split-input-file --verify-diagnostics

// The shape rules of the training ops (lamina/dialects/graph_training.py).

func.func @gradient_of_another_type() {
  %y = "graph.placeholder"() {name = "y"} : () -> tensor<2x3xf32>
  %g = "graph.placeholder"() {name = "g"} : () -> tensor<3x2xf32>
  // expected-error @+1 {{the gradient must have the output's type tensor<2x3xf32>, got tensor<3x2xf32>}}
  %d = "graph.relu_grad"(%y, %g) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @labels_of_another_batch() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %l = "graph.placeholder"() {name = "l"} : () -> tensor<4xi64>
  // expected-error @+1 {{labels must be i64 or i32 [2], got tensor<4xi64>}}
  %loss = "graph.softmax_cross_entropy"(%x, %l) : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<f32>
  return
}

// -----

func.func @convolution_gradient_of_wrong_shape() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x4x4xf32>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<3x2x3x3xf32>
  %g = "graph.placeholder"() {name = "g"} : () -> tensor<1x3x4x4xf32>
  // expected-error @+1 {{the gradient must have the forward result's type tensor<1x3x2x2xf32>, got tensor<1x3x4x4xf32>}}
  %d:3 = "graph.convolution_grad"(%x, %w, %g) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<1x3x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>)
  return
}

// -----

func.func @momentum_out_of_range() {
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<3xf32>
  // expected-error @+1 {{momentum must be in [0, 1), got 1.5}}
  %s:2 = "graph.sgd"(%w, %w, %w) {batch_size = 1 : i64, l1_decay = 0.0 : f32, l2_decay = 0.0 : f32, learning_rate = 0.1 : f32, momentum = 1.5 : f32} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return
}
