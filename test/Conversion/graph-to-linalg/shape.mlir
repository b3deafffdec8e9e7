// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-linalg)' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-linalg)' | mlir-opt --split-input-file | FileCheck %s --check-prefix=UPSTREAM

// Views stay views: reshape is a collapse to 1-D then an expand, a forward
// slice a tensor.extract_slice; a concat copies each operand (linalg.copy,
// vectorizable loops) into its slice of an empty tensor.

// CHECK-LABEL: func.func @views(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3x4xf32>) -> tensor<4x4xf32>
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK:         %[[R:.*]] = tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [6, 4] : tensor<24xf32> into tensor<6x4xf32>
// CHECK:         %[[S:.*]] = tensor.extract_slice %[[R]][1, 0] [2, 4] [2, 1] : tensor<6x4xf32> to tensor<2x4xf32>
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK:         %[[TOP:.*]] = tensor.extract_slice %[[E]][0, 0] [2, 4] [1, 1]
// CHECK:         %[[COPY:.*]] = linalg.copy {{.*}}ins(%[[S]] : tensor<2x4xf32>) outs(%[[TOP]] : tensor<2x4xf32>)
// CHECK:         %[[LHS:.*]] = tensor.insert_slice %[[COPY]] into %[[E]][0, 0] [2, 4] [1, 1]
// CHECK:         %[[BOTTOM:.*]] = tensor.extract_slice %[[LHS]][2, 0] [2, 4] [1, 1]
// CHECK:         %[[COPY2:.*]] = linalg.copy {{.*}}ins(%[[S]] : tensor<2x4xf32>) outs(%[[BOTTOM]] : tensor<2x4xf32>)
// CHECK:         %[[BOTH:.*]] = tensor.insert_slice %[[COPY2]] into %[[LHS]][2, 0] [2, 4] [1, 1]
// CHECK:         return %[[BOTH]]
// UPSTREAM-LABEL: func.func @views(
// UPSTREAM:       tensor.insert_slice
func.func @views() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3x4xf32> loc("x")
  %1 = "graph.reshape"(%0) : (tensor<2x3x4xf32>) -> tensor<6x4xf32> loc("reshape")
  %2 = "graph.slice"(%1) {starts = array<i64: 1, 0>, ends = array<i64: 5, 4>, steps = array<i64: 2, 1>} : (tensor<6x4xf32>) -> tensor<2x4xf32> loc("slice")
  %3 = "graph.concat"(%2, %2) {axis = 0 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32> loc("concat")
  "graph.save"(%3) {name = "y"} : (tensor<4x4xf32>) -> () loc("y")
  return
}

// -----

// Broadcast drops the unit dim that grows, then linalg.broadcast adds dims
// 0 and 2; transpose is linalg.transpose; a backward slice reads
// start + step * i through its indexing map.

// CHECK-DAG:   #[[REVERSED:.*]] = affine_map<(d0, d1, d2) -> (-d0 + 3, d1, d2)>
// CHECK-LABEL: func.func @movement(
// CHECK-SAME:      %[[X:.*]]: tensor<3x1xf32>)
// CHECK:         %[[C:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<3x1xf32> into tensor<3xf32>
// CHECK:         %[[B:.*]] = linalg.broadcast ins(%[[C]] : tensor<3xf32>) outs(%{{.*}} : tensor<2x3x4xf32>) dimensions = [0, 2]
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[B]] : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<4x2x3xf32>) permutation = [2, 0, 1]
// CHECK:         linalg.generic {indexing_maps = [#[[REVERSED]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[T]] :
func.func @movement() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<3x1xf32> loc("x")
  %1 = "graph.broadcast"(%0) : (tensor<3x1xf32>) -> tensor<2x3x4xf32> loc("broadcast")
  %2 = "graph.transpose"(%1) {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32> loc("transpose")
  %3 = "graph.slice"(%2) {starts = array<i64: 3, 0, 0>, ends = array<i64: -1, 2, 3>, steps = array<i64: -1, 1, 1>} : (tensor<4x2x3xf32>) -> tensor<4x2x3xf32> loc("reverse")
  "graph.save"(%3) {name = "y"} : (tensor<4x2x3xf32>) -> () loc("y")
  return
}

// -----

// Gather wraps negative indices, clamps and reads with tensor.extract; an
// edge pad clamps the index of each padded dim (dim 0 is not padded).

// CHECK-LABEL: func.func @gather_pad(
// CHECK-SAME:      %[[X:.*]]: tensor<5x3xf32>, %[[I:.*]]: tensor<2xi64>)
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} ins(%[[I]] : tensor<2xi64>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK:           %[[POSITION:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:           %[[NEGATIVE:.*]] = arith.cmpi slt, %[[POSITION]]
// CHECK:           %[[WRAPPED:.*]] = arith.addi %[[POSITION]], %c5
// CHECK:           arith.select %[[NEGATIVE]], %[[WRAPPED]], %[[POSITION]]
// CHECK:           tensor.extract %[[X]]
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<2x5xf32>)
// CHECK:           %[[ROW:.*]] = linalg.index 0 : index
// CHECK:           %[[COLUMN:.*]] = linalg.index 1 : index
// CHECK:           %[[SHIFTED:.*]] = arith.subi %[[COLUMN]], %c1
// CHECK:           %[[CLAMPED:.*]] = arith.minsi {{.*}}, %c2
// CHECK:           tensor.extract %[[G]][%[[ROW]], %[[CLAMPED]]]
func.func @gather_pad() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<5x3xf32> loc("x")
  %1 = "graph.placeholder"() {name = "i"} : () -> tensor<2xi64> loc("i")
  %2 = "graph.gather"(%0, %1) {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32> loc("gather")
  %3 = "graph.pad"(%2) {pads = array<i64: 0, 1, 0, 1>, mode = "edge", value = 0.0 : f32} : (tensor<2x3xf32>) -> tensor<2x5xf32> loc("pad")
  "graph.save"(%3) {name = "y"} : (tensor<2x5xf32>) -> () loc("y")
  return
}

// -----

// Not firing: an identity transpose, a broadcast and a tile that change
// nothing, and a pad of zero build nothing.

// CHECK-LABEL: func.func @unchanged(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT:     linalg
// CHECK-NOT:     tensor.
// CHECK:         return %[[X]]
func.func @unchanged() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32> loc("x")
  %1 = "graph.transpose"(%0) {perm = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("transpose")
  %2 = "graph.broadcast"(%1) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("broadcast")
  %3 = "graph.tile"(%2) {repeats = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("tile")
  %4 = "graph.pad"(%3) {pads = array<i64: 0, 0, 0, 0>, mode = "constant", value = 0.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("pad")
  %5 = "graph.reshape"(%4) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("reshape")
  "graph.save"(%5) {name = "y"} : (tensor<2x3xf32>) -> () loc("y")
  return
}
