// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-cse)' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-cse)' --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// Two ops with the same name, operands, attributes and result types compute
// the same value: the later one goes. Merging the relus makes the two exps
// identical too, so the duplicated subgraph merges in one run. The kept op
// stands for both: its location fuses theirs.

// CHECK-LABEL: func.func @duplicate_subgraph()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.relu"(%0)
// CHECK-NEXT:    %2 = "graph.exp"(%1)
// CHECK-NEXT:    %3 = "graph.add"(%2, %2)
// CHECK-NEXT:    "graph.save"(%3) {name = "y"}
// CHECK-NEXT:    return
// LOC-LABEL: func.func @duplicate_subgraph()
// LOC:         "graph.relu"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc([[RELU:#loc[0-9]+]])
// LOC:         "graph.exp"(%1) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc([[EXP:#loc[0-9]+]])
// LOC:         [[RELU_A:#loc[0-9]+]] = loc("relu_a")
// LOC-NEXT:    [[RELU_B:#loc[0-9]+]] = loc("relu_b")
// LOC-NEXT:    [[EXP_A:#loc[0-9]+]] = loc("exp_a")
// LOC-NEXT:    [[EXP_B:#loc[0-9]+]] = loc("exp_b")
// LOC:         [[RELU]] = loc(fused{{\[}}[[RELU_A]], [[RELU_B]]])
// LOC-NEXT:    [[EXP]] = loc(fused{{\[}}[[EXP_A]], [[EXP_B]]])
func.func @duplicate_subgraph() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %1 = "graph.relu"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("relu_a")
  %2 = "graph.exp"(%1) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("exp_a")
  %3 = "graph.relu"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("relu_b")
  %4 = "graph.exp"(%3) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("exp_b")
  %5 = "graph.add"(%2, %4) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  "graph.save"(%5) {name = "y"} : (tensor<2x3xf32>) -> ()
  return
}

// -----

// Constants with equal data merge (MLIR uniques their attributes), and so do
// equal splats; a constant with other data, or a splat of another type, stays.

// CHECK-LABEL: func.func @constants()
// CHECK-NEXT:    %0 = "graph.constant"() {value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}
// CHECK-NEXT:    %1 = "graph.constant"() {value = dense<[1.000000e+00, 3.000000e+00]> : tensor<2xf32>}
// CHECK-NEXT:    %2 = "graph.splat"() {value = 5.000000e-01 : f32} : () -> tensor<2xf32>
// CHECK-NEXT:    %3 = "graph.splat"() {value = 5.000000e-01 : f32} : () -> tensor<3xf32>
// CHECK-NEXT:    "graph.save"(%0) {name = "a"}
// CHECK-NEXT:    "graph.save"(%0) {name = "b"}
// CHECK-NEXT:    "graph.save"(%1) {name = "c"}
// CHECK-NEXT:    "graph.save"(%2) {name = "d"}
// CHECK-NEXT:    "graph.save"(%2) {name = "e"}
// CHECK-NEXT:    "graph.save"(%3) {name = "f"}
// CHECK-NEXT:    return
func.func @constants() {
  %0 = "graph.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %1 = "graph.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %2 = "graph.constant"() {value = dense<[1.0, 3.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %3 = "graph.splat"() {value = 0.5 : f32} : () -> tensor<2xf32>
  %4 = "graph.splat"() {value = 0.5 : f32} : () -> tensor<2xf32>
  %5 = "graph.splat"() {value = 0.5 : f32} : () -> tensor<3xf32>
  "graph.save"(%0) {name = "a"} : (tensor<2xf32>) -> ()
  "graph.save"(%1) {name = "b"} : (tensor<2xf32>) -> ()
  "graph.save"(%2) {name = "c"} : (tensor<2xf32>) -> ()
  "graph.save"(%3) {name = "d"} : (tensor<2xf32>) -> ()
  "graph.save"(%4) {name = "e"} : (tensor<2xf32>) -> ()
  "graph.save"(%5) {name = "f"} : (tensor<3xf32>) -> ()
  return
}

// -----

// Nothing merges when anything that determines the value differs: the
// attributes (perm, axis), the result type (two reshapes of one input), the
// operands (operand order of a non-commutative op counts, and no op is
// assumed commutative). Saves of one value are two effects and both stay;
// placeholders are the model's inputs and never merge.

// CHECK-LABEL: func.func @different()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.placeholder"() {name = "z"}
// CHECK-NEXT:    %2 = "graph.softmax"(%0) {axis = 0 : i64}
// CHECK-NEXT:    %3 = "graph.softmax"(%0) {axis = 1 : i64}
// CHECK-NEXT:    %4 = "graph.reshape"(%0) : (tensor<2x2xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %5 = "graph.reshape"(%0) : (tensor<2x2xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    %6 = "graph.sub"(%0, %1)
// CHECK-NEXT:    %7 = "graph.sub"(%1, %0)
// CHECK-NEXT:    %8 = "graph.transpose"(%0) {perm = array<i64: 1, 0>}
// CHECK-NEXT:    %9 = "graph.transpose"(%0) {perm = array<i64: 0, 1>}
// CHECK-NEXT:    "graph.save"(%2) {name = "a"}
// CHECK-NEXT:    "graph.save"(%2) {name = "a_again"}
func.func @different() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x2xf32>
  %1 = "graph.placeholder"() {name = "z"} : () -> tensor<2x2xf32>
  %2 = "graph.softmax"(%0) {axis = 0 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %3 = "graph.softmax"(%0) {axis = 1 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %4 = "graph.reshape"(%0) : (tensor<2x2xf32>) -> tensor<4xf32>
  %5 = "graph.reshape"(%0) : (tensor<2x2xf32>) -> tensor<1x4xf32>
  %6 = "graph.sub"(%0, %1) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %7 = "graph.sub"(%1, %0) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %8 = "graph.transpose"(%0) {perm = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %9 = "graph.transpose"(%0) {perm = array<i64: 0, 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  "graph.save"(%2) {name = "a"} : (tensor<2x2xf32>) -> ()
  "graph.save"(%2) {name = "a_again"} : (tensor<2x2xf32>) -> ()
  "graph.save"(%3) {name = "b"} : (tensor<2x2xf32>) -> ()
  "graph.save"(%4) {name = "c"} : (tensor<4xf32>) -> ()
  "graph.save"(%5) {name = "d"} : (tensor<1x4xf32>) -> ()
  "graph.save"(%6) {name = "e"} : (tensor<2x2xf32>) -> ()
  "graph.save"(%7) {name = "f"} : (tensor<2x2xf32>) -> ()
  "graph.save"(%8) {name = "g"} : (tensor<2x2xf32>) -> ()
  "graph.save"(%9) {name = "h"} : (tensor<2x2xf32>) -> ()
  return
}

// -----

// Ops are only matched within one block: equal constants in two functions
// both stay (neither dominates the other).

// CHECK-LABEL: func.func @first()
// CHECK-NEXT:    "graph.splat"() {value = 1.000000e+00 : f32}
// CHECK-LABEL: func.func @second()
// CHECK-NEXT:    "graph.splat"() {value = 1.000000e+00 : f32}
func.func @first() {
  %0 = "graph.splat"() {value = 1.0 : f32} : () -> tensor<2xf32>
  "graph.save"(%0) {name = "a"} : (tensor<2xf32>) -> ()
  return
}
func.func @second() {
  %0 = "graph.splat"() {value = 1.0 : f32} : () -> tensor<2xf32>
  "graph.save"(%0) {name = "b"} : (tensor<2xf32>) -> ()
  return
}
