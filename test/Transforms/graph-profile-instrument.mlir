// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-profile-instrument)' | FileCheck %s

// A probe after every computed float value, named by node output; constants get none.

// CHECK-LABEL: module attributes {lamina.profiled_graph_hash = "{{[0-9a-f]+}}"}
// CHECK:         %[[X:.*]] = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    "graph.profile"(%[[X]]) {name = "x"}
// CHECK-NEXT:    "graph.constant"
// CHECK-NEXT:    %[[A:.*]] = "graph.add"
// CHECK-NEXT:    "graph.profile"(%[[A]]) {name = "add1:0"}
// CHECK-NEXT:    "graph.save"(%[[A]])
func.func @main() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2xf32>
  %1 = "graph.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %2 = "graph.add"(%0, %1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc("add1")
  "graph.save"(%2) {name = "y"} : (tensor<2xf32>) -> ()
  return
}

// -----

// Integer values are not profiled, and a module that already has probes is left alone.

// CHECK-LABEL: module attributes {lamina.profiled_graph_hash = "given"}
// CHECK:         "graph.placeholder"() {name = "i"}
// CHECK-NEXT:    "graph.neg"
// CHECK-NEXT:    "graph.save"
// CHECK-NOT:     graph.profile
module attributes {lamina.profiled_graph_hash = "given"} {
  func.func @main() {
    %0 = "graph.placeholder"() {name = "i"} : () -> tensor<2xi32>
    %1 = "graph.neg"(%0) : (tensor<2xi32>) -> tensor<2xi32>
    "graph.save"(%1) {name = "n"} : (tensor<2xi32>) -> ()
    return
  }
}
