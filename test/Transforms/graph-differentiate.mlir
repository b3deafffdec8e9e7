// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-differentiate{learning-rate=0.5 momentum=0.9 freeze=b2})' | FileCheck %s
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-differentiate{learning-rate=0.5 momentum=0.9 freeze=b2})' | lamina-opt | FileCheck %s
// RUN: not lamina-opt %s --pass-pipeline='builtin.module(graph-differentiate{freeze=w9})' 2>&1 | FileCheck %s --check-prefix=FROZEN

// Fires: the named initializers w1, b1, w2 become placeholders shared by @main
// and the training function @main_grad (their values move to lamina.weights);
// b2 is frozen and stays a constant. @main_grad adds the labels, the loss, the
// backward pass (Glow-style gradient ops) and one sgd per trained weight,
// saved back under the weight's own name with its velocity. The output
// round-trips through the parser (second RUN line).

// CHECK-LABEL: module attributes {lamina.weights = {b1 = {{.*}}, w1 = {{.*}}, w2 = {{.*}}}}
// CHECK:       func.func @main()
// CHECK:         "graph.placeholder"() {name = "w1"}
// CHECK:         "graph.constant"
// CHECK:         "graph.save"
// CHECK-NEXT:    return
// CHECK:       func.func @main_grad()
// CHECK:         "graph.placeholder"() {name = "labels"} : () -> tensor<2xi64>
// CHECK-NEXT:    "graph.softmax_cross_entropy"
// CHECK-NEXT:    "graph.save"(%{{.*}}) {name = "loss"}
// CHECK-NEXT:    "graph.softmax_cross_entropy_grad"
// CHECK-NEXT:    "graph.fully_connected_grad"
// CHECK-NEXT:    "graph.relu_grad"
// CHECK-NEXT:    "graph.fully_connected_grad"
// CHECK-NOT:     name = "b2"
// CHECK:         "graph.placeholder"() {name = "b1.velocity"}
// CHECK-NEXT:    "graph.sgd"({{.*}}) {batch_size = 1 : i64, l1_decay = 0.000000e+00 : f32, l2_decay = 0.000000e+00 : f32, learning_rate = 5.000000e-01 : f32, momentum = 0.899999976 : f32}
// CHECK-NEXT:    "graph.save"(%{{.*}}#0) {name = "b1"}
// CHECK-NEXT:    "graph.save"(%{{.*}}#1) {name = "b1.velocity"}
// CHECK:         "graph.save"(%{{.*}}#0) {name = "w1"}
// CHECK:         "graph.save"(%{{.*}}#0) {name = "w2"}

// FROZEN: error: --freeze: 'w9' is not a weight of the model; its weights are b1, b2, w1, w2

func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x4xf32>
  %w1 = "graph.constant"() {value = dense<0.5> : tensor<4x3xf32>} : () -> tensor<4x3xf32> loc("w1")
  %b1 = "graph.constant"() {value = dense<0.1> : tensor<3xf32>} : () -> tensor<3xf32> loc("b1")
  %h = "graph.fully_connected"(%x, %w1, %b1) : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = "graph.relu"(%h) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %w2 = "graph.constant"() {value = dense<0.25> : tensor<3x2xf32>} : () -> tensor<3x2xf32> loc("w2")
  %b2 = "graph.constant"() {value = dense<0.0> : tensor<2xf32>} : () -> tensor<2xf32> loc("b2")
  %y = "graph.fully_connected"(%r, %w2, %b2) : (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  "graph.save"(%y) {name = "y"} : (tensor<2x2xf32>) -> ()
  return
}
