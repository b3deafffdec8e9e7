// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-constant-fold,graph-cse,graph-dce)' | FileCheck %s

// Constant folding, CSE and DCE see inside regions: the branch's constant
// arithmetic folds, its duplicate op merges and its dead op goes. Two Ifs on
// the same condition with different branches are not merged.

// CHECK-LABEL: func.func @inside_regions()
// CHECK:         "graph.if"
// CHECK-NEXT:      %[[S:.*]] = "graph.splat"() {value = 3.000000e+00 : f32}
// CHECK-NEXT:      %[[M:.*]] = "graph.mul"(%{{.*}}, %[[S]])
// CHECK-NEXT:      %[[A:.*]] = "graph.add"(%[[M]], %[[M]])
// CHECK-NEXT:      gpu.yield %[[A]]
// CHECK:         "graph.if"
// CHECK:         "graph.save"
func.func @inside_regions() {
  %c = "graph.placeholder"() {name = "c"} : () -> tensor<i1>
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2xf32>
  %0 = "graph.if"(%c) ({
    %one = "graph.splat"() {value = 1.0 : f32} : () -> tensor<2xf32>
    %two = "graph.splat"() {value = 2.0 : f32} : () -> tensor<2xf32>
    %three = "graph.add"(%one, %two) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %dead = "graph.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    %m1 = "graph.mul"(%x, %three) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %m2 = "graph.mul"(%x, %three) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %sum = "graph.add"(%m1, %m2) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    gpu.yield %sum : tensor<2xf32>
  }, {
    gpu.yield %x : tensor<2xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<i1>) -> tensor<2xf32>
  %1 = "graph.if"(%c) ({
    gpu.yield %x : tensor<2xf32>
  }, {
    gpu.yield %0 : tensor<2xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<i1>) -> tensor<2xf32>
  %2 = "graph.add"(%0, %1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  "graph.save"(%2) {name = "y"} : (tensor<2xf32>) -> ()
  return
}
