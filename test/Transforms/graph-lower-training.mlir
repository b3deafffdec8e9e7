// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-lower{backend=reference},graph-dce)' | FileCheck %s
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-lower{backend=accelerator})' | FileCheck %s --check-prefix=ACCELERATOR

// Training ops (gradients, losses, sgd) have no kernel anywhere: every backend
// lowers them, even the reference backend, which lowers nothing else (the
// softmax of the inference function @main stays). A module holding an
// inference and a training function is lowered as a whole.

// CHECK-LABEL: func.func @main()
// CHECK:         "graph.softmax"
// CHECK-LABEL: func.func @main_grad()
// CHECK-NOT:     _grad"
// CHECK-NOT:     "graph.sgd"
// CHECK:         "graph.greater"
// CHECK-NEXT:    "graph.splat"
// CHECK-NEXT:    "graph.where"
// CHECK:         "graph.mul"
// CHECK-NEXT:    "graph.add"
// CHECK:         "graph.sub"
// CHECK:         "graph.save"(%{{.*}}) {name = "w"}
// CHECK-NEXT:    "graph.save"(%{{.*}}) {name = "w.velocity"}

// ACCELERATOR-LABEL: func.func @main_grad()
// ACCELERATOR-NOT:   "graph.relu_grad"
// ACCELERATOR-NOT:   "graph.sgd"
// ACCELERATOR:       return

module {
  func.func @main() {
    %w = "graph.placeholder"() {name = "w"} : () -> tensor<2x3xf32>
    %y = "graph.softmax"(%w) {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    "graph.save"(%y) {name = "y"} : (tensor<2x3xf32>) -> ()
    return
  }
  func.func @main_grad() {
    %w = "graph.placeholder"() {name = "w"} : () -> tensor<2x3xf32>
    %v = "graph.placeholder"() {name = "w.velocity"} : () -> tensor<2x3xf32>
    %g = "graph.placeholder"() {name = "g"} : () -> tensor<2x3xf32>
    %r = "graph.relu"(%w) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %d = "graph.relu_grad"(%r, %g) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %s:2 = "graph.sgd"(%d, %w, %v) {batch_size = 1 : i64, l1_decay = 0.0 : f32, l2_decay = 0.0 : f32, learning_rate = 0.1 : f32, momentum = 0.9 : f32} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
    "graph.save"(%s#0) {name = "w"} : (tensor<2x3xf32>) -> ()
    "graph.save"(%s#1) {name = "w.velocity"} : (tensor<2x3xf32>) -> ()
    return
  }
}
