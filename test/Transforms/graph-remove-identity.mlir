// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-remove-identity)' | FileCheck %s

// graph.identity and (inference-mode) graph.dropout return their input: every
// use reads the input instead, including a chain of them and a save.

// CHECK-LABEL: func.func @identities()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.relu"(%0)
// CHECK-NEXT:    %2 = "graph.exp"(%1)
// CHECK-NEXT:    "graph.save"(%2) {name = "y"}
// CHECK-NEXT:    "graph.save"(%0) {name = "x_out"}
// CHECK-NEXT:    return
func.func @identities() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %1 = "graph.relu"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "graph.dropout"(%1) {ratio = 0.5 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = "graph.identity"(%2) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = "graph.exp"(%3) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = "graph.identity"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  "graph.save"(%4) {name = "y"} : (tensor<2x3xf32>) -> ()
  "graph.save"(%5) {name = "x_out"} : (tensor<2x3xf32>) -> ()
  return
}

// -----

// Without identities or dropouts, nothing changes: ops that may return their
// input for some data (relu of non-negative values) are not identities.

// CHECK-LABEL: func.func @no_identity()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.relu"(%0)
// CHECK-NEXT:    %2 = "graph.relu"(%1)
// CHECK-NEXT:    "graph.save"(%2) {name = "y"}
// CHECK-NEXT:    return
func.func @no_identity() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %1 = "graph.relu"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "graph.relu"(%1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  "graph.save"(%2) {name = "y"} : (tensor<2x3xf32>) -> ()
  return
}
