// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-linalg)' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-linalg)' | mlir-opt --split-input-file | FileCheck %s --check-prefix=UPSTREAM

// A reduction is a generic with reduction iterators writing the tensor
// without its reduced dims (a projected-permutation output map) from a
// filled init; the mean divides by the count; keepdims reinserts the unit
// dim with a tensor.expand_shape view.

// CHECK-DAG:   #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG:   #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @reduce_mean_keepdims(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<2x4xf32>)
// CHECK:           arith.addf
// CHECK:         %[[MEAN:.*]] = linalg.generic
// CHECK-SAME:        ins(%[[SUM]] : tensor<2x4xf32>)
// CHECK:           %[[COUNT:.*]] = arith.constant 3.000000e+00 : f32
// CHECK:           arith.divf %{{.*}}, %[[COUNT]]
// CHECK:         %[[KEPT:.*]] = tensor.expand_shape %[[MEAN]] {{\[}}[0, 1], [2]] output_shape [2, 1, 4] : tensor<2x4xf32> into tensor<2x1x4xf32>
// CHECK:         return %[[KEPT]]
// UPSTREAM-LABEL: func.func @reduce_mean_keepdims(
// UPSTREAM:       tensor.expand_shape
func.func @reduce_mean_keepdims() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3x4xf32> loc("x")
  %1 = "graph.reduce_mean"(%0) {axes = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32> loc("mean")
  "graph.save"(%1) {name = "y"} : (tensor<2x1x4xf32>) -> () loc("y")
  return
}

// -----

// Softmax as the kernel computes it: the max (from -inf), exp(x - max), the
// sum, the division; the reduced values are read through maps dropping the
// reduced dim.

// CHECK-DAG:   #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @softmax(
// CHECK:         arith.constant 0xFF800000 : f32
// CHECK:         %[[MAX:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:           arith.maximumf
// CHECK:         %[[EXP:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[ROW]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %[[MAX]] :
// CHECK:           arith.subf
// CHECK:           math.exp
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[EXP]] :
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}} ins(%[[EXP]], %[[SUM]] :
// CHECK:           arith.divf
func.func @softmax() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x5xf32> loc("x")
  %1 = "graph.softmax"(%0) {axis = 1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32> loc("softmax")
  "graph.save"(%1) {name = "y"} : (tensor<2x5xf32>) -> () loc("y")
  return
}

// -----

// Not firing: reducing over no axes is the input itself.

// CHECK-LABEL: func.func @no_axes(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT:     linalg
// CHECK:         return %[[X]]
func.func @no_axes() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32> loc("x")
  %1 = "graph.reduce_sum"(%0) {axes = array<i64>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("sum")
  "graph.save"(%1) {name = "y"} : (tensor<2x3xf32>) -> () loc("y")
  return
}
