// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fold-if)' | FileCheck %s

// A constant condition: the taken branch's ops move before the If, whose
// result becomes what the branch yields; the condition goes with it.

// CHECK-LABEL: func.func @constant_condition()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.neg"(%0)
// CHECK-NEXT:    "graph.save"(%1) {name = "y"}
// CHECK-NEXT:    return
func.func @constant_condition() {
  %c = "graph.constant"() {value = dense<false> : tensor<i1>} : () -> tensor<i1>
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2xf32>
  %0 = "graph.if"(%c) ({
    %1 = "graph.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    gpu.yield %1 : tensor<2xf32>
  }, {
    %1 = "graph.neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    gpu.yield %1 : tensor<2xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<i1>) -> tensor<2xf32>
  "graph.save"(%0) {name = "y"} : (tensor<2xf32>) -> ()
  return
}

// -----

// A condition known only at run time: the If stays.

// CHECK-LABEL: func.func @runtime_condition()
// CHECK:         "graph.if"
func.func @runtime_condition() {
  %c = "graph.placeholder"() {name = "c"} : () -> tensor<i1>
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2xf32>
  %0 = "graph.if"(%c) ({
    gpu.yield %x : tensor<2xf32>
  }, {
    %1 = "graph.neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    gpu.yield %1 : tensor<2xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<i1>) -> tensor<2xf32>
  "graph.save"(%0) {name = "y"} : (tensor<2xf32>) -> ()
  return
}
