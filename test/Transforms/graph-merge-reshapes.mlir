// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-merge-reshapes)' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-merge-reshapes)' --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// A chain of three reshapes becomes one reshape of the chain's input, at the
// fused location of the reshapes it stands for; the inner ones go.

// CHECK-LABEL: func.func @chain()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.reshape"(%0) : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
// CHECK-NEXT:    "graph.save"(%1) {name = "y"}
// CHECK-NEXT:    return
// LOC-LABEL: func.func @chain()
// LOC:         "graph.reshape"(%0) {{.*}} loc([[MERGED:#loc[0-9]+]])
// LOC:         [[FIRST:#loc[0-9]+]] = loc("first")
// LOC-NEXT:    [[SECOND:#loc[0-9]+]] = loc("second")
// LOC-NEXT:    [[THIRD:#loc[0-9]+]] = loc("third")
// LOC:         [[MERGED]] = loc(fused{{\[}}[[FIRST]], [[SECOND]], [[THIRD]]])
func.func @chain() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3x4xf32>
  %1 = "graph.reshape"(%0) : (tensor<2x3x4xf32>) -> tensor<24xf32> loc("first")
  %2 = "graph.reshape"(%1) : (tensor<24xf32>) -> tensor<2x12xf32> loc("second")
  %3 = "graph.reshape"(%2) : (tensor<2x12xf32>) -> tensor<4x6xf32> loc("third")
  "graph.save"(%3) {name = "y"} : (tensor<4x6xf32>) -> ()
  return
}

// -----

// A reshape to its input's type is its input: alone, and at the end of a
// chain that comes back to where it started (both reshapes go).

// CHECK-LABEL: func.func @identity_reshapes()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    "graph.save"(%0) {name = "same"}
// CHECK-NEXT:    "graph.save"(%0) {name = "round_trip"}
// CHECK-NEXT:    return
func.func @identity_reshapes() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %1 = "graph.reshape"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "graph.reshape"(%0) : (tensor<2x3xf32>) -> tensor<6xf32>
  %3 = "graph.reshape"(%2) : (tensor<6xf32>) -> tensor<2x3xf32>
  "graph.save"(%1) {name = "same"} : (tensor<2x3xf32>) -> ()
  "graph.save"(%3) {name = "round_trip"} : (tensor<2x3xf32>) -> ()
  return
}

// -----

// An inner reshape that another op still reads stays (the outer one reads
// the chain's input directly).

// CHECK-LABEL: func.func @shared_inner()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.reshape"(%0) : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK-NEXT:    %2 = "graph.relu"(%1)
// CHECK-NEXT:    %3 = "graph.reshape"(%0) : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    "graph.save"(%2) {name = "a"}
// CHECK-NEXT:    "graph.save"(%3) {name = "b"}
func.func @shared_inner() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %1 = "graph.reshape"(%0) : (tensor<2x3xf32>) -> tensor<6xf32>
  %2 = "graph.relu"(%1) : (tensor<6xf32>) -> tensor<6xf32>
  %3 = "graph.reshape"(%1) : (tensor<6xf32>) -> tensor<3x2xf32>
  "graph.save"(%2) {name = "a"} : (tensor<6xf32>) -> ()
  "graph.save"(%3) {name = "b"} : (tensor<3x2xf32>) -> ()
  return
}

// -----

// Reshapes separated by another op do not merge: the channel shuffle
// (reshape, transpose, reshape) moves data between them.

// CHECK-LABEL: func.func @channel_shuffle()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.reshape"(%0)
// CHECK-NEXT:    %2 = "graph.transpose"(%1)
// CHECK-NEXT:    %3 = "graph.reshape"(%2)
// CHECK-NEXT:    "graph.save"(%3) {name = "y"}
func.func @channel_shuffle() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<1x6x2x2xf32>
  %1 = "graph.reshape"(%0) : (tensor<1x6x2x2xf32>) -> tensor<1x2x3x2x2xf32>
  %2 = "graph.transpose"(%1) {perm = array<i64: 0, 2, 1, 3, 4>} : (tensor<1x2x3x2x2xf32>) -> tensor<1x3x2x2x2xf32>
  %3 = "graph.reshape"(%2) : (tensor<1x3x2x2x2xf32>) -> tensor<1x6x2x2xf32>
  "graph.save"(%3) {name = "y"} : (tensor<1x6x2x2xf32>) -> ()
  return
}
