// RUN: lamina-opt %s | lamina-opt | FileCheck %s

// graph.dynamic_slice (lamina/dialects/graph_control_flow.py), the slice a
// loop body takes at its iteration number: starts are data, the result type
// is static.

// CHECK-LABEL: func.func @dynamic_slice()
func.func @dynamic_slice() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<5x4xf32>
  %1 = "graph.placeholder"() {name = "i"} : () -> tensor<1xi64>
  // CHECK: "graph.dynamic_slice"(%0, %1) {axes = array<i64: 0>, steps = array<i64: 2>} : (tensor<5x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>
  %2 = "graph.dynamic_slice"(%0, %1) {axes = array<i64: 0>, steps = array<i64: 2>} : (tensor<5x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>
  "graph.save"(%2) {name = "y"} : (tensor<2x4xf32>) -> ()
  return
}
