// `lamina-opt --dump-irdl` is how upstream tools get Lamina's dialects: stock
// mlir-opt loads the IRDL, then parses, verifies and prints graph IR. It
// checks structure only (operand counts, attribute and type kinds); shape
// rules live in Python and need lamina-opt.

// RUN: lamina-opt --dump-irdl=graph > %t.irdl
// RUN: split-file --leading-lines %s %t
// RUN: mlir-opt --irdl-file=%t.irdl %t/valid.mlir | FileCheck %s --check-prefix=VALID
// RUN: not mlir-opt --irdl-file=%t.irdl %t/invalid.mlir 2>&1 | FileCheck %s --check-prefix=INVALID
// RUN: not lamina-opt --dump-irdl=nosuch 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// VALID-LABEL: func.func @main()
// VALID-NEXT: %0 = "graph.placeholder"() {name = "x"} : () -> tensor<1x4x8x8xf32>
// VALID-NEXT: %1 = "graph.max_pool"(%0) {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
// VALID-NEXT: %2 = "graph.concat"(%1, %1) {axis = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x8x4x4xf32>
// VALID-NEXT: "graph.save"(%2) {name = "y"} : (tensor<1x8x4x4xf32>) -> ()

// UNKNOWN: lamina-opt: error: unknown dialect 'nosuch'; known: {{.*}}graph

//--- valid.mlir
func.func @main() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<1x4x8x8xf32>
  %1 = "graph.max_pool"(%0) {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %2 = "graph.concat"(%1, %1) {axis = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x8x4x4xf32>
  "graph.save"(%2) {name = "y"} : (tensor<1x8x4x4xf32>) -> ()
  return
}

//--- invalid.mlir
func.func @main() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<1x4x8x8xf32>
  // INVALID: invalid.mlir:[[# @LINE + 1]]:8: error: expected base attribute 'builtin.dense_array' but got 'builtin.integer'
  %1 = "graph.max_pool"(%0) {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return
}
