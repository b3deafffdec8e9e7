// Stock mlir-opt loads the graph dialect with its region ops and parses control flow.
// RUN: lamina-opt --dump-irdl=graph > %t.irdl
// RUN: mlir-opt --irdl-file=%t.irdl %s | FileCheck %s

// CHECK-LABEL: func.func @control_flow()
// CHECK: "graph.if"(%0) ({
// CHECK: gpu.yield
// CHECK: "graph.loop"(%3, %0, %2) ({
// CHECK: "graph.scan"(%1, %4#1) ({

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
