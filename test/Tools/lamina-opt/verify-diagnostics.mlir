// RUN: split-file --leading-lines %s %t
// RUN: lamina-opt %t/matched.mlir --split-input-file --verify-diagnostics
// RUN: not lamina-opt %t/mismatched.mlir --verify-diagnostics 2>&1 | FileCheck %s

// --verify-diagnostics reads mlir-opt's expected-* comments. matched.mlir
// uses every placement form and passes; mismatched.mlir shows how a missing
// or an unexpected diagnostic is reported (and fails).

//--- matched.mlir
func.func @same_line() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %1 = "graph.relu"(%0) : (tensor<2x3xf32>) -> tensor<3x2xf32> // expected-error {{result type mismatch}}
  return
}

// -----

func.func @relative_lines() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  // expected-error @+2 {{result type mismatch}}
  // (a comment between)
  %1 = "graph.relu"(%0) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %2 = "graph.exp"(%0) : (tensor<2x3xf32>) -> tensor<2x2xf32>
  // expected-error @-1 {{result type mismatch: expected tensor<2x3xf32>, got tensor<2x2xf32>}}
  return
}

// -----

func.func @above_and_below() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  // expected-error @below {{'graph.softmax' op axis 2 out of range}}
  // expected-error @+2 {{'graph.softmax' op axis 3 out of range}}
  %1 = "graph.softmax"(%0) {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "graph.softmax"(%0) {axis = 3 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = "graph.softmax"(%0) {axis = 4 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-error @above {{'graph.softmax' op axis 4 out of range}}
  return
}

// -----

func.func @unknown_location() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  // expected-error @unknown {{'graph.transpose' op perm [1, 1] is not a permutation}}
  %1 = "graph.transpose"(%0) {perm = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<3x3xf32> loc(unknown)
  return
}

// -----

func.func @notes() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  // expected-note @-1 {{previously defined here}}
  // expected-error @+1 {{redefinition of SSA value '%0'}}
  %0 = "graph.placeholder"() {name = "y"} : () -> tensor<2x3xf32>
  return
}

// -----

func.func @regex() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  // expected-error-re @+1 {{perm [{{[0-9, ]+}}] is not a permutation of rank {{[0-9]}}}}
  %1 = "graph.transpose"(%0) {perm = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}

//--- mismatched.mlir
func.func @mismatched() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  // CHECK: mismatched.mlir:[[# @LINE + 1]]:8: error: unexpected error: 'graph.relu' op result type mismatch
  %1 = "graph.relu"(%0) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK-NEXT: mismatched.mlir:[[# @LINE + 2]]:6: error: expected error "is not a permutation" was not produced
  // CHECK-NOT: {{.}}
  // expected-error @+1 {{is not a permutation}}
  %2 = "graph.transpose"(%0) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}
