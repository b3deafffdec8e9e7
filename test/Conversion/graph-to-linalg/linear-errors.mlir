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

