// RUN: lamina-opt %s | FileCheck %s
// RUN: lamina-opt %s | lamina-opt | FileCheck %s

// The training ops (lamina/dialects/graph_training.py) print and parse back unchanged.

// CHECK-LABEL: func.func @training_ops()
func.func @training_ops() {
  // CHECK-NEXT: "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.placeholder"() {name = "l"} : () -> tensor<2xi64>
  %l = "graph.placeholder"() {name = "l"} : () -> tensor<2xi64>
  // CHECK-NEXT: "graph.relu_grad"(%{{[0-9#]+}}, %{{[0-9#]+}}) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = "graph.relu_grad"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.sigmoid_grad"(%{{[0-9#]+}}, %{{[0-9#]+}}) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = "graph.sigmoid_grad"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.tanh_grad"(%{{[0-9#]+}}, %{{[0-9#]+}}) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = "graph.tanh_grad"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.softmax_grad"(%{{[0-9#]+}}, %{{[0-9#]+}}) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = "graph.softmax_grad"(%x, %x) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.placeholder"() {name = "w"} : () -> tensor<3x4xf32>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<3x4xf32>
  // CHECK-NEXT: "graph.placeholder"() {name = "g"} : () -> tensor<2x4xf32>
  %g = "graph.placeholder"() {name = "g"} : () -> tensor<2x4xf32>
  // CHECK-NEXT: "graph.fully_connected_grad"(%{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}}) : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<2x4xf32>) -> (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>)
  %f:3 = "graph.fully_connected_grad"(%x, %w, %g) : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<2x4xf32>) -> (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>)
  // CHECK-NEXT: "graph.placeholder"() {name = "i"} : () -> tensor<1x2x4x4xf32>
  %i = "graph.placeholder"() {name = "i"} : () -> tensor<1x2x4x4xf32>
  // CHECK-NEXT: "graph.placeholder"() {name = "k"} : () -> tensor<3x2x3x3xf32>
  %k = "graph.placeholder"() {name = "k"} : () -> tensor<3x2x3x3xf32>
  // CHECK-NEXT: "graph.placeholder"() {name = "o"} : () -> tensor<1x3x4x4xf32>
  %o = "graph.placeholder"() {name = "o"} : () -> tensor<1x3x4x4xf32>
  // CHECK-NEXT: "graph.convolution_grad"(%{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}}) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<1x3x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>)
  %c:3 = "graph.convolution_grad"(%i, %k, %o) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<1x3x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>)
  // CHECK-NEXT: "graph.placeholder"() {name = "p"} : () -> tensor<1x2x2x2xf32>
  %p = "graph.placeholder"() {name = "p"} : () -> tensor<1x2x2x2xf32>
  // CHECK-NEXT: "graph.max_pool_grad"(%{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}}) {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x4x4xf32>
  %mp = "graph.max_pool_grad"(%i, %p, %p) {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x4x4xf32>
  // CHECK-NEXT: "graph.avg_pool_grad"(%{{[0-9#]+}}, %{{[0-9#]+}}) {ceil_mode = false, count_include_pad = false, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x4x4xf32>
  %ap = "graph.avg_pool_grad"(%i, %p) {ceil_mode = false, count_include_pad = false, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x4x4xf32>
  // CHECK-NEXT: "graph.softmax_cross_entropy"(%{{[0-9#]+}}, %{{[0-9#]+}}) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32>
  %ce = "graph.softmax_cross_entropy"(%x, %l) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32>
  // CHECK-NEXT: "graph.softmax_cross_entropy_grad"(%{{[0-9#]+}}, %{{[0-9#]+}}) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %cg = "graph.softmax_cross_entropy_grad"(%x, %l) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.mean_squared_error"(%{{[0-9#]+}}, %{{[0-9#]+}}) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
  %se = "graph.mean_squared_error"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
  // CHECK-NEXT: "graph.mean_squared_error_grad"(%{{[0-9#]+}}, %{{[0-9#]+}}) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %sg = "graph.mean_squared_error_grad"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.sgd"(%{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}}) {batch_size = 1 : i64, l1_decay = 0.000000e+00 : f32, l2_decay = 1.000000e-03 : f32, learning_rate = 0.00999999977 : f32, momentum = 0.899999976 : f32} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  %u:2 = "graph.sgd"(%x, %x, %x) {batch_size = 1 : i64, l1_decay = 0.000000e+00 : f32, l2_decay = 1.000000e-03 : f32, learning_rate = 0.00999999977 : f32, momentum = 0.899999976 : f32} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  return
}
