// RUN: not lamina-opt %s --pass-pipeline='builtin.module(convert-graph-to-buffer)' 2>&1 | FileCheck %s

// Control flow has no buffer form: one error at the op, saying what to do instead.

// CHECK: error: 'graph.if' has no buffer form (control flow and multi-result ops): unroll loops with a constant trip count (graph-unroll-loops), lower recurrent layers (graph-lower), or run the model on the CPU path

func.func @runtime_condition() {
  %c = "graph.placeholder"() {name = "c"} : () -> tensor<i1>
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2xf32>
  %0 = "graph.if"(%c) ({
    gpu.yield %x : tensor<2xf32>
  }, {
    %1 = "graph.neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    gpu.yield %1 : tensor<2xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<i1>) -> tensor<2xf32>
  "graph.save"(%0) {name = "y"} : (tensor<2xf32>) -> ()
  return
}
