// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-raise-swish)' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-raise-swish)' --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// x * sigmoid(x), in either operand order, becomes swish(x) at the fused
// location of the sigmoid and the mul; the sigmoid goes.

// CHECK-LABEL: func.func @both_orders()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.swish"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %2 = "graph.swish"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    "graph.save"(%1) {name = "y"}
// CHECK-NEXT:    "graph.save"(%2) {name = "z"}
// CHECK-NEXT:    return
// LOC-LABEL: func.func @both_orders()
// LOC:         "graph.swish"{{.*}} loc([[FUSED:#loc[0-9]*]])
// LOC-DAG:     [[SIGMOID:#loc[0-9]*]] = loc("sigmoid")
// LOC-DAG:     [[MUL:#loc[0-9]*]] = loc("mul")
// LOC-DAG:     [[FUSED]] = loc(fused[[[SIGMOID]], [[MUL]]])
func.func @both_orders() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %s = "graph.sigmoid"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("sigmoid")
  %y = "graph.mul"(%x, %s) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc("mul")
  %t = "graph.sigmoid"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %z = "graph.mul"(%t, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  "graph.save"(%y) {name = "y"} : (tensor<2x3xf32>) -> ()
  "graph.save"(%z) {name = "z"} : (tensor<2x3xf32>) -> ()
  return
}

// -----

// The sigmoid is also saved (it would be computed anyway), or gates another
// value than its own input: the muls stay.

// CHECK-LABEL: func.func @not_swish()
// CHECK-NOT:     graph.swish
// CHECK-COUNT-2: "graph.mul"
// CHECK-NOT:     graph.swish
func.func @not_swish() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<2x3xf32>
  %s = "graph.sigmoid"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = "graph.mul"(%x, %s) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  "graph.save"(%s) {name = "gate"} : (tensor<2x3xf32>) -> ()
  "graph.save"(%y) {name = "y"} : (tensor<2x3xf32>) -> ()
  %t = "graph.sigmoid"(%w) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %z = "graph.mul"(%x, %t) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  "graph.save"(%z) {name = "z"} : (tensor<2x3xf32>) -> ()
  return
}
