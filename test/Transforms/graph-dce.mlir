// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-dce)' | FileCheck %s

// A chain of unused ops goes in one run; the placeholder that only fed it
// stays (an unused input is still part of the model's interface), and so do
// the saved value and its producers.

// CHECK-LABEL: func.func @dead_chain()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.relu"(%0)
// CHECK-NEXT:    %2 = "graph.placeholder"() {name = "unused"}
// CHECK-NEXT:    "graph.save"(%1) {name = "y"}
// CHECK-NEXT:    return
func.func @dead_chain() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %1 = "graph.relu"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "graph.placeholder"() {name = "unused"} : () -> tensor<2x3xf32>
  %3 = "graph.exp"(%2) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = "graph.add"(%3, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = "graph.neg"(%4) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  "graph.save"(%1) {name = "y"} : (tensor<2x3xf32>) -> ()
  return
}

// -----

// Nothing is dead: the pass changes nothing. A save keeps its operand alive
// and is never erased itself.

// CHECK-LABEL: func.func @all_live()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.sigmoid"(%0)
// CHECK-NEXT:    "graph.save"(%0) {name = "x_out"}
// CHECK-NEXT:    "graph.save"(%1) {name = "y"}
// CHECK-NEXT:    return
func.func @all_live() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %1 = "graph.sigmoid"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  "graph.save"(%0) {name = "x_out"} : (tensor<2x3xf32>) -> ()
  "graph.save"(%1) {name = "y"} : (tensor<2x3xf32>) -> ()
  return
}

// -----

// Ops of other dialects are not graph-dce's business, even when unused; a
// graph op used only by them stays.

// CHECK-LABEL: func.func @other_dialects()
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.abs"(%0)
// CHECK-NEXT:    %dim = tensor.dim %1, %c0
// CHECK-NEXT:    return
func.func @other_dialects() {
  %c0 = arith.constant 0 : index
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %1 = "graph.abs"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = tensor.dim %1, %c0 : tensor<2x3xf32>
  return
}

// -----

// Sweeps repeat to a fixpoint: the first sweep erases the dead op in ^bb1
// only after it has looked at its producer in ^bb0; the second erases that.

// CHECK-LABEL: func.func @blocks()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    cf.br ^bb1
// CHECK-NEXT:  ^bb1:
// CHECK-NEXT:    "graph.save"(%0) {name = "y"}
// CHECK-NEXT:    return
func.func @blocks() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %1 = "graph.tanh"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  cf.br ^bb1
^bb1:
  %2 = "graph.neg"(%1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  "graph.save"(%0) {name = "y"} : (tensor<2x3xf32>) -> ()
  return
}
