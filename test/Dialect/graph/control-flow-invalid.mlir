// RUN: lamina-opt %s --split-input-file --verify-diagnostics

// The region checks of graph.if, graph.loop and graph.scan
// (lamina/dialects/graph_control_flow.py): what each region takes and yields.

func.func @if_branch_yields_another_type() {
  %0 = "graph.placeholder"() {name = "c"} : () -> tensor<i1>
  %1 = "graph.placeholder"() {name = "x"} : () -> tensor<2xf32>
  %2 = "graph.placeholder"() {name = "z"} : () -> tensor<3xf32>
  // expected-error @+1 {{'graph.if' op else_branch must yield (tensor<2xf32>), yields (tensor<3xf32>)}}
  %3 = "graph.if"(%0) ({
    gpu.yield %1 : tensor<2xf32>
  }, {
    gpu.yield %2 : tensor<3xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<i1>) -> tensor<2xf32>
  return
}

// -----

func.func @if_condition_not_boolean() {
  %0 = "graph.placeholder"() {name = "c"} : () -> tensor<2xi1>
  %1 = "graph.placeholder"() {name = "x"} : () -> tensor<2xf32>
  // expected-error @+1 {{condition must be a one-element i1 tensor, got tensor<2xi1>}}
  %3 = "graph.if"(%0) ({
    gpu.yield %1 : tensor<2xf32>
  }, {
    gpu.yield %1 : tensor<2xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2xi1>) -> tensor<2xf32>
  return
}

// -----

func.func @loop_carried_value_changes_type() {
  %0 = "graph.placeholder"() {name = "c"} : () -> tensor<i1>
  %1 = "graph.placeholder"() {name = "x"} : () -> tensor<2xf32>
  %2 = "graph.constant"() {value = dense<3> : tensor<i64>} : () -> tensor<i64>
  // expected-error @+1 {{'graph.loop' op body must yield (tensor<i1>, tensor<2xf32>), yields (tensor<i1>, tensor<4xf32>)}}
  %3 = "graph.loop"(%2, %0, %1) ({
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<2xf32>):
    %4 = "graph.concat"(%v, %v) {axis = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
    gpu.yield %c, %4 : tensor<i1>, tensor<4xf32>
  }) {num_scan_outputs = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @loop_body_arguments() {
  %0 = "graph.placeholder"() {name = "c"} : () -> tensor<i1>
  %1 = "graph.placeholder"() {name = "x"} : () -> tensor<2xf32>
  %2 = "graph.constant"() {value = dense<3> : tensor<i64>} : () -> tensor<i64>
  // expected-error @+1 {{body takes arguments (tensor<i64>, tensor<i1>, tensor<2xf32>), its block has (tensor<i64>, tensor<2xf32>)}}
  %3 = "graph.loop"(%2, %0, %1) ({
  ^bb0(%i: tensor<i64>, %v: tensor<2xf32>):
    gpu.yield %0, %v : tensor<i1>, tensor<2xf32>
  }) {num_scan_outputs = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @scan_lengths_differ() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<3x2xf32>
  // expected-error @+1 {{scanned axes have different lengths [3, 4]}}
  %1 = "graph.scan"(%0) ({
  ^bb0(%a: tensor<2xf32>):
    gpu.yield %a : tensor<2xf32>
  }) {num_scan_inputs = 1 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, scan_input_axes = array<i64: 0>, scan_input_directions = array<i64: 0>, scan_output_axes = array<i64: 0>, scan_output_directions = array<i64: 0>} : (tensor<3x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @lstm_wrong_weights() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x1x3xf32>
  %1 = "graph.splat"() {value = 1.000000e-01 : f32} : () -> tensor<1x6x3xf32>
  %2 = "graph.splat"() {value = 1.000000e-01 : f32} : () -> tensor<1x8x2xf32>
  %3 = "graph.splat"() {value = 2 : i32} : () -> tensor<1xi32>
  %4 = "graph.splat"() {value = 0.000000e+00 : f32} : () -> tensor<1x16xf32>
  %5 = "graph.splat"() {value = 0.000000e+00 : f32} : () -> tensor<1x1x2xf32>
  %6 = "graph.splat"() {value = 0.000000e+00 : f32} : () -> tensor<1x6xf32>
  // expected-error @+1 {{weights must be [1, 8, 3] float32, got tensor<1x6x3xf32>}}
  %7:3 = "graph.lstm"(%0, %1, %2, %4, %3, %5, %5, %6) {activation_alpha = array<f32: 0.000000e+00, 0.000000e+00, 0.000000e+00>, activation_beta = array<f32: 0.000000e+00, 0.000000e+00, 0.000000e+00>, activations = "Sigmoid,Tanh,Tanh", clip = 0.000000e+00 : f32, direction = "forward", hidden_size = 2 : i64, input_forget = false} : (tensor<2x1x3xf32>, tensor<1x6x3xf32>, tensor<1x8x2xf32>, tensor<1x16xf32>, tensor<1xi32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x6xf32>) -> (tensor<2x1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>)
  return
}

// -----

func.func @dynamic_slice_too_long() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<5xf32>
  %1 = "graph.placeholder"() {name = "i"} : () -> tensor<1xi64>
  // expected-error @+1 {{dimension 0: 4 elements 2 apart do not fit 5}}
  %2 = "graph.dynamic_slice"(%0, %1) {axes = array<i64: 0>, steps = array<i64: 2>} : (tensor<5xf32>, tensor<1xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @dynamic_slice_starts_per_axis() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<5x3xf32>
  %1 = "graph.placeholder"() {name = "i"} : () -> tensor<2xi64>
  // expected-error @+1 {{starts must be tensor<1xi64>, one per axis, got tensor<2xi64>}}
  %2 = "graph.dynamic_slice"(%0, %1) {axes = array<i64: 0>, steps = array<i64: 1>} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<1x3xf32>
  return
}
