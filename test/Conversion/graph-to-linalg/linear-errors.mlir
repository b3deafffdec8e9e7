// RUN: not lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-linalg)' -o /dev/null 2>&1 | FileCheck %s

// Not converted: a function holding something other than graph ops is an
// error at that op, and nothing is rewritten.

// CHECK: error: 'arith.constant' is not a graph op; only graph functions convert to linalg
func.func @not_a_graph() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2xf32>
  %c = arith.constant 1.0 : f32
  "graph.save"(%x) {name = "y"} : (tensor<2xf32>) -> ()
  return
}

// -----

// Every graph op without a CPU lowering is reported, each at its node.

// CHECK: node 'up': error: 'graph.conv_transpose' has no CPU (linalg) lowering
func.func @missing() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x1x2x2xf32>
  %w = "graph.splat"() {value = 1.0 : f32} : () -> tensor<1x1x2x2xf32>
  %b = "graph.splat"() {value = 0.0 : f32} : () -> tensor<1xf32>
  %y = "graph.conv_transpose"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1xf32>) -> tensor<1x1x3x3xf32> loc("up")
  "graph.save"(%y) {name = "y"} : (tensor<1x1x3x3xf32>) -> ()
  return
}
