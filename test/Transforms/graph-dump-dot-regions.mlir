// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-dump-dot)' 2>&1 >/dev/null | FileCheck %s

// Regions are clusters beside their op: block arguments and ops inside, a
// yield node gathering the region's values, a dashed edge from it to the op.

// CHECK:      op2 [label="{graph.if|tensor\<2xf32\>}"];
// CHECK:      subgraph cluster_op2_0 {
// CHECK-NEXT:   label="then_branch"; style=dashed;
// CHECK-NEXT:   op2_0_op0 [label="{graph.relu|tensor\<2xf32\>}"];
// CHECK-NEXT:   op1 -> op2_0_op0 [label="input"];
// CHECK-NEXT:   op2_0_op1 [label="{yield}"];
// CHECK:      op2_0_op1 -> op2 [style=dashed, label="then_branch"];
// CHECK:      op3 -> op4 [label="trip_count"];
// CHECK:      subgraph cluster_op4_0 {
// CHECK:        op4_0_arg2 [label="{argument 2|tensor\<2xf32\>}"];
// CHECK:      op4_0_op1 -> op4 [style=dashed, label="body"];

func.func @control_flow() {
  %0 = "graph.placeholder"() {name = "c"} : () -> tensor<i1>
  %1 = "graph.placeholder"() {name = "x"} : () -> tensor<2xf32>
  %2 = "graph.if"(%0) ({
    %6 = "graph.relu"(%1) : (tensor<2xf32>) -> tensor<2xf32>
    gpu.yield %6 : tensor<2xf32>
  }, {
    gpu.yield %1 : tensor<2xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<i1>) -> tensor<2xf32>
  %3 = "graph.constant"() {value = dense<3> : tensor<i64>} : () -> tensor<i64>
  %4:2 = "graph.loop"(%3, %0, %2) ({
  ^bb0(%arg0: tensor<i64>, %arg1: tensor<i1>, %arg2: tensor<2xf32>):
    %6 = "graph.add"(%arg2, %1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    gpu.yield %arg1, %6, %6 : tensor<i1>, tensor<2xf32>, tensor<2xf32>
  }) {num_scan_outputs = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>)
  %5:2 = "graph.scan"(%1, %4#1) ({
  ^bb0(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>):
    %6 = "graph.add"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    gpu.yield %6, %6 : tensor<2xf32>, tensor<2xf32>
  }) {num_scan_inputs = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, scan_input_axes = array<i64: 0>, scan_input_directions = array<i64: 1>, scan_output_axes = array<i64: 0>, scan_output_directions = array<i64: 0>} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>)
  "graph.save"(%5#1) {name = "y"} : (tensor<3x2xf32>) -> ()
  return
}
