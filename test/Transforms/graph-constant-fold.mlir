// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-constant-fold)' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-constant-fold{max-growth=40})' | FileCheck %s --check-prefix=GROWTH
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-constant-fold)' --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// A shape computation as the importer emits it (gather, concat and reshape of
// int64 constants) folds completely in one run, in program order; the
// constants it consumed go. The folded constant takes the location of the
// op it replaces.

// CHECK-LABEL: func.func @shape_chain()
// CHECK-NEXT:    %0 = "graph.constant"() {value = dense<{{\[}}[2, 4, -1]]> : tensor<1x3xi64>}
// CHECK-NEXT:    "graph.save"(%0) {name = "shape"}
// CHECK-NEXT:    return
// LOC-LABEL: func.func @shape_chain()
// LOC-NEXT:    "graph.constant"() {{.*}} loc([[RESHAPE:#loc[0-9]+]])
// LOC:         [[RESHAPE]] = loc("reshape_node")
func.func @shape_chain() {
  %0 = "graph.constant"() {value = dense<[2, 3, 4]> : tensor<3xi64>} : () -> tensor<3xi64>
  %1 = "graph.constant"() {value = dense<[0, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %2 = "graph.gather"(%0, %1) {axis = 0 : i64} : (tensor<3xi64>, tensor<2xi64>) -> tensor<2xi64>
  %3 = "graph.constant"() {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %4 = "graph.concat"(%2, %3) {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>) -> tensor<3xi64>
  %5 = "graph.reshape"(%4) : (tensor<3xi64>) -> tensor<1x3xi64> loc("reshape_node")
  "graph.save"(%5) {name = "shape"} : (tensor<1x3xi64>) -> ()
  return
}

// -----

// Results known to be uniform stay splats whatever their size: a broadcast
// of a one-element constant, and element-wise math on splats (computed once,
// on the scalars). A computed result whose elements are all equal (a
// reduction of a splat) becomes a splat too.

// CHECK-LABEL: func.func @uniform_results()
// CHECK-NEXT:    %0 = "graph.splat"() {value = 2.000000e+00 : f32} : () -> tensor<1000x1000xf32>
// CHECK-NEXT:    %1 = "graph.splat"() {value = 3.500000e+00 : f32} : () -> tensor<1000x1000xf32>
// CHECK-NEXT:    %2 = "graph.splat"() {value = 3.000000e+00 : f32} : () -> tensor<2xf32>
// CHECK-NEXT:    "graph.save"(%0) {name = "broadcast"}
// CHECK-NEXT:    "graph.save"(%1) {name = "sum"}
// CHECK-NEXT:    "graph.save"(%2) {name = "reduced"}
// CHECK-NEXT:    return
func.func @uniform_results() {
  %0 = "graph.constant"() {value = dense<2.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %1 = "graph.broadcast"(%0) : (tensor<1xf32>) -> tensor<1000x1000xf32>
  %2 = "graph.splat"() {value = 1.5 : f32} : () -> tensor<1000x1000xf32>
  %3 = "graph.add"(%1, %2) : (tensor<1000x1000xf32>, tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  %4 = "graph.splat"() {value = 1.0 : f32} : () -> tensor<2x3xf32>
  %5 = "graph.reduce_sum"(%4) {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  "graph.save"(%1) {name = "broadcast"} : (tensor<1000x1000xf32>) -> ()
  "graph.save"(%3) {name = "sum"} : (tensor<1000x1000xf32>) -> ()
  "graph.save"(%5) {name = "reduced"} : (tensor<2xf32>) -> ()
  return
}

// -----

// Small results of any op of constants fold into dense constants: a
// transpose, a comparison (i1 result). A constant that still has users stays.

// CHECK-LABEL: func.func @dense_results()
// CHECK-NEXT:    %0 = "graph.constant"() {value = dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>}
// CHECK-NEXT:    %1 = "graph.constant"() {value = dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>}
// CHECK-NEXT:    %2 = "graph.constant"() {value = dense<{{\[}}[false, false, true], [false, false, false]]> : tensor<2x3xi1>}
// CHECK-NEXT:    "graph.save"(%1) {name = "transposed"}
// CHECK-NEXT:    "graph.save"(%2) {name = "equal"}
// CHECK-NEXT:    "graph.save"(%0) {name = "original"}
// CHECK-NEXT:    return
func.func @dense_results() {
  %0 = "graph.constant"() {value = dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>} : () -> tensor<2x3xi32>
  %1 = "graph.transpose"(%0) {perm = array<i64: 1, 0>} : (tensor<2x3xi32>) -> tensor<3x2xi32>
  %2 = "graph.splat"() {value = 3 : i32} : () -> tensor<2x3xi32>
  %3 = "graph.equal"(%0, %2) : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
  "graph.save"(%1) {name = "transposed"} : (tensor<3x2xi32>) -> ()
  "graph.save"(%3) {name = "equal"} : (tensor<2x3xi1>) -> ()
  "graph.save"(%0) {name = "original"} : (tensor<2x3xi32>) -> ()
  return
}

// -----

// Growth policy: broadcasting two distinct values to 80 elements would store
// 40 times the data; by default (at most max(64, 4 x 2) elements) it stays.
// With max-growth=40 the limit is 80 elements and it folds.

// CHECK-LABEL: func.func @growth()
// CHECK-NEXT:    %0 = "graph.constant"() {value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}
// CHECK-NEXT:    %1 = "graph.broadcast"(%0) : (tensor<2xf32>) -> tensor<40x2xf32>
// CHECK-NEXT:    "graph.save"(%1) {name = "y"}
// GROWTH-LABEL: func.func @growth()
// GROWTH-NEXT:    %0 = "graph.constant"() {value = dense<{{.*}}> : tensor<40x2xf32>}
// GROWTH-NEXT:    "graph.save"(%0) {name = "y"}
func.func @growth() {
  %0 = "graph.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %1 = "graph.broadcast"(%0) : (tensor<2xf32>) -> tensor<40x2xf32>
  "graph.save"(%1) {name = "y"} : (tensor<40x2xf32>) -> ()
  return
}

// -----

// Nothing folds: an op with a placeholder operand; a gather whose constant
// index is out of range (it would fail at run time, and still does); a save
// of a constant (the model's output) and the placeholder itself.

// CHECK-LABEL: func.func @no_fold()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.splat"() {value = 1.000000e+00 : f32}
// CHECK-NEXT:    %2 = "graph.add"(%0, %1)
// CHECK-NEXT:    %3 = "graph.constant"() {value = dense<[1, 2, 3]> : tensor<3xi64>}
// CHECK-NEXT:    %4 = "graph.constant"() {value = dense<7> : tensor<1xi64>}
// CHECK-NEXT:    %5 = "graph.gather"(%3, %4)
// CHECK-NEXT:    "graph.save"(%2) {name = "y"}
// CHECK-NEXT:    "graph.save"(%5) {name = "bad"}
// CHECK-NEXT:    "graph.save"(%1) {name = "one"}
// CHECK-NEXT:    return
func.func @no_fold() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2xf32>
  %1 = "graph.splat"() {value = 1.0 : f32} : () -> tensor<2xf32>
  %2 = "graph.add"(%0, %1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %3 = "graph.constant"() {value = dense<[1, 2, 3]> : tensor<3xi64>} : () -> tensor<3xi64>
  %4 = "graph.constant"() {value = dense<7> : tensor<1xi64>} : () -> tensor<1xi64>
  %5 = "graph.gather"(%3, %4) {axis = 0 : i64} : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  "graph.save"(%2) {name = "y"} : (tensor<2xf32>) -> ()
  "graph.save"(%5) {name = "bad"} : (tensor<1xi64>) -> ()
  "graph.save"(%1) {name = "one"} : (tensor<2xf32>) -> ()
  return
}
