// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-transpose-simplify)' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-transpose-simplify)' --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// Two transposes compose into one: result dim i is x's dim p1[p2[i]], here
// p1 = [1, 2, 0], p2 = [0, 2, 1] gives [1, 0, 2]. The new transpose takes
// the fused location of both; the inner one goes.

// CHECK-LABEL: func.func @compose()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.transpose"(%0) {perm = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
// CHECK-NEXT:    "graph.save"(%1) {name = "y"}
// CHECK-NEXT:    return
// LOC-LABEL: func.func @compose()
// LOC:         "graph.transpose"(%0) {{.*}} loc([[MERGED:#loc[0-9]+]])
// LOC:         [[INNER:#loc[0-9]+]] = loc("inner")
// LOC-NEXT:    [[OUTER:#loc[0-9]+]] = loc("outer")
// LOC:         [[MERGED]] = loc(fused{{\[}}[[INNER]], [[OUTER]]])
func.func @compose() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3x4xf32>
  %1 = "graph.transpose"(%0) {perm = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32> loc("inner")
  %2 = "graph.transpose"(%1) {perm = array<i64: 0, 2, 1>} : (tensor<3x4x2xf32>) -> tensor<3x2x4xf32> loc("outer")
  "graph.save"(%2) {name = "y"} : (tensor<3x2x4xf32>) -> ()
  return
}

// -----

// Transposes that compose to the identity (NCHW -> NHWC -> NCHW) cancel, and
// a transpose with the identity permutation is its input.

// CHECK-LABEL: func.func @identities()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    "graph.save"(%0) {name = "round_trip"}
// CHECK-NEXT:    "graph.save"(%0) {name = "identity"}
// CHECK-NEXT:    return
func.func @identities() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x3x4xf32>
  %1 = "graph.transpose"(%0) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32>
  %2 = "graph.transpose"(%1) {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x3x4x2xf32>) -> tensor<1x2x3x4xf32>
  %3 = "graph.transpose"(%0) {perm = array<i64: 0, 1, 2, 3>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  "graph.save"(%2) {name = "round_trip"} : (tensor<1x2x3x4xf32>) -> ()
  "graph.save"(%3) {name = "identity"} : (tensor<1x2x3x4xf32>) -> ()
  return
}

// -----

// A transpose of weights is folded into them (a Gemm's transB): the new
// constant holds the transposed data, at the transpose's location; a
// transposed splat stays a splat. The constants nobody reads any more go.

// CHECK-LABEL: func.func @fold_into_weights()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.constant"() {value = dense<{{\[}}[1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>}
// CHECK-NEXT:    %2 = "graph.splat"() {value = 5.000000e-01 : f32} : () -> tensor<2xf32>
// CHECK-NEXT:    %3 = "graph.fully_connected"(%0, %1, %2)
// CHECK-NEXT:    %4 = "graph.splat"() {value = 2.000000e-02 : f32} : () -> tensor<4096x1000xf32>
// CHECK-NEXT:    "graph.save"(%3) {name = "y"}
// CHECK-NEXT:    "graph.save"(%4) {name = "big"}
// CHECK-NEXT:    return
// LOC-LABEL: func.func @fold_into_weights()
// LOC:         "graph.constant"() {{.*}} loc([[TRANSPOSE:#loc[0-9]+]])
// LOC:         [[TRANSPOSE]] = loc("transB")
func.func @fold_into_weights() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<1x3xf32>
  %1 = "graph.constant"() {value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>} : () -> tensor<2x3xf32>
  %2 = "graph.transpose"(%1) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32> loc("transB")
  %3 = "graph.splat"() {value = 0.5 : f32} : () -> tensor<2xf32>
  %4 = "graph.fully_connected"(%0, %2, %3) : (tensor<1x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  %5 = "graph.splat"() {value = 0.02 : f32} : () -> tensor<1000x4096xf32>
  %6 = "graph.transpose"(%5) {perm = array<i64: 1, 0>} : (tensor<1000x4096xf32>) -> tensor<4096x1000xf32>
  "graph.save"(%4) {name = "y"} : (tensor<1x2xf32>) -> ()
  "graph.save"(%6) {name = "big"} : (tensor<4096x1000xf32>) -> ()
  return
}

// -----

// A transpose of an activation stays; an inner transpose that another op
// still reads stays too (the outer one reads x directly).

// CHECK-LABEL: func.func @kept()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.transpose"(%0) {perm = array<i64: 1, 0>}
// CHECK-NEXT:    %2 = "graph.relu"(%1)
// CHECK-NEXT:    "graph.save"(%2) {name = "a"}
// CHECK-NEXT:    "graph.save"(%0) {name = "b"}
// CHECK-NEXT:    return
func.func @kept() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %1 = "graph.transpose"(%0) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %2 = "graph.relu"(%1) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %3 = "graph.transpose"(%1) {perm = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  "graph.save"(%2) {name = "a"} : (tensor<3x2xf32>) -> ()
  "graph.save"(%3) {name = "b"} : (tensor<2x3xf32>) -> ()
  return
}
