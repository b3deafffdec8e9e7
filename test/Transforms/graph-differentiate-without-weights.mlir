// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-differentiate{loss=mse})' | FileCheck %s
// RUN: not lamina-opt %s --pass-pipeline='builtin.module(graph-differentiate)' 2>&1 | FileCheck %s --check-prefix=SHAPE

// Does not fire on weights: a model without initializers gets a training
// function with the loss and no update (nothing to train).

// CHECK-LABEL: func.func @relu_grad()
// CHECK:         "graph.mean_squared_error"
// CHECK-NOT:     "graph.sgd"
// CHECK:         return

func.func @relu() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x4xf32>
  %r = "graph.relu"(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %y = "graph.reshape"(%r) : (tensor<2x4xf32>) -> tensor<2x4x1xf32>
  "graph.save"(%y) {name = "y"} : (tensor<2x4x1xf32>) -> ()
  return
}

// The softmax cross-entropy loss needs [batch, classes] logits.

// SHAPE: error: the softmax-cross-entropy loss needs [batch, classes] logits, output 'y' is tensor<2x4x1xf32>
