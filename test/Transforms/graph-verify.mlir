// RUN: lamina-opt %s --split-input-file --verify-each=false --pass-pipeline='builtin.module(graph-verify)' --verify-diagnostics | FileCheck %s
// RUN: lamina-opt %s --split-input-file --verify-each=false | FileCheck %s --check-prefix=UNCHECKED

// graph-verify changes nothing in valid IR...

// CHECK-LABEL: func.func @valid()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.transpose"(%0) {perm = array<i64: 1, 0>}
// CHECK-NEXT:    "graph.save"(%1) {name = "y"}
func.func @valid() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %1 = "graph.transpose"(%0) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  "graph.save"(%1) {name = "y"} : (tensor<3x2xf32>) -> ()
  return
}

// -----

// ... and reports every shape-rule violation at its op, failing the pipeline,
// even when --verify-each=false turned lamina-opt's own checks off (the
// second RUN line shows that this IR then goes through unchecked).

// CHECK-NOT: @invalid
// UNCHECKED-LABEL: func.func @invalid()
func.func @invalid() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  // expected-error @+1 {{'graph.transpose' op perm [0, 0] is not a permutation of rank 2}}
  %1 = "graph.transpose"(%0) {perm = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  // expected-error @+1 {{'graph.softmax' op axis 3 out of range for rank 2}}
  %2 = "graph.softmax"(%0) {axis = 3 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
