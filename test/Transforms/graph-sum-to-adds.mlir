// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-sum-to-adds)' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-sum-to-adds)' --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// A sum of n inputs becomes n-1 adds, left to right as the interpreter sums;
// every add takes the sum's location.

// CHECK-LABEL: func.func @sum_of_four()
// CHECK:         %[[A:.*]] = "graph.placeholder"() {name = "a"}
// CHECK-NEXT:    %[[B:.*]] = "graph.placeholder"() {name = "b"}
// CHECK-NEXT:    %[[C:.*]] = "graph.placeholder"() {name = "c"}
// CHECK-NEXT:    %[[AB:.*]] = "graph.add"(%[[A]], %[[B]])
// CHECK-NEXT:    %[[ABC:.*]] = "graph.add"(%[[AB]], %[[C]])
// CHECK-NEXT:    %[[ABCA:.*]] = "graph.add"(%[[ABC]], %[[A]])
// CHECK-NEXT:    "graph.save"(%[[ABCA]]) {name = "y"}
// CHECK-NOT:     graph.sum
// LOC-LABEL: func.func @sum_of_four()
// LOC-COUNT-3:   "graph.add"({{.*}} loc([[SUM:#loc[0-9]+]])
// LOC:         [[SUM]] = loc("the_sum")
func.func @sum_of_four() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2xf32>
  %1 = "graph.placeholder"() {name = "b"} : () -> tensor<2xf32>
  %2 = "graph.placeholder"() {name = "c"} : () -> tensor<2xf32>
  %3 = "graph.sum"(%0, %1, %2, %0) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc("the_sum")
  "graph.save"(%3) {name = "y"} : (tensor<2xf32>) -> ()
  return
}

// -----

// A sum of one input is that input; a sum of two is one add.

// CHECK-LABEL: func.func @short_sums()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "a"}
// CHECK-NEXT:    %1 = "graph.add"(%0, %0)
// CHECK-NEXT:    "graph.save"(%0) {name = "one"}
// CHECK-NEXT:    "graph.save"(%1) {name = "two"}
// CHECK-NEXT:    return
func.func @short_sums() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2xf32>
  %1 = "graph.sum"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = "graph.sum"(%0, %0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  "graph.save"(%1) {name = "one"} : (tensor<2xf32>) -> ()
  "graph.save"(%2) {name = "two"} : (tensor<2xf32>) -> ()
  return
}

// -----

// Without sums, nothing changes (an add stays an add).

// CHECK-LABEL: func.func @no_sum()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "a"}
// CHECK-NEXT:    %1 = "graph.add"(%0, %0)
// CHECK-NEXT:    "graph.save"(%1) {name = "y"}
// CHECK-NEXT:    return
func.func @no_sum() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2xf32>
  %1 = "graph.add"(%0, %0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  "graph.save"(%1) {name = "y"} : (tensor<2xf32>) -> ()
  return
}
