// RUN: not lamina-opt %s --split-input-file -o %t 2>&1 | FileCheck %s
// RUN: lamina-opt %s --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=OUTPUT

// Each chunk between `// -----` lines is processed on its own: a failing chunk
// does not stop the others, its diagnostics carry the line numbers of this
// file, and outputs are joined with `// -----` (a failed chunk's is empty).

// OUTPUT:      module {
// OUTPUT-NEXT:   func.func @first() {
func.func @first() {
  return
}

// -----

func.func @second() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  // CHECK: split-input-file.mlir:[[# @LINE + 2]]:8: error: 'graph.relu' op result type mismatch
  // expected-error @+1 {{result type mismatch}}
  %1 = "graph.relu"(%0) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @third() {
  // CHECK-NEXT: split-input-file.mlir:[[# @LINE + 2]]:3: error: custom op 'graph.relu' is unknown
  // expected-error @+1 {{custom op 'graph.relu' is unknown}}
  graph.relu
}

// -----

// OUTPUT:      // -----
// OUTPUT-NEXT: // -----
// OUTPUT-NEXT: // -----
// OUTPUT-NEXT: module {
// OUTPUT-NEXT:   func.func @last() {
func.func @last() {
  return
}
