// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-schedule)' | FileCheck %s
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-schedule{strategy=topological})' | FileCheck %s

// A value read inside a region is an input of the region op: `relu` is
// scheduled before the If whose branch reads it, although its only user
// outside the If (`neg`) comes later. (Counting operands only, the walk from
// the If's save reached the If first and `relu` only from `neg`'s save,
// after the If: a use that its definition no longer dominated.)

// CHECK-LABEL: func.func @read_inside_a_branch()
// CHECK:      "graph.relu"
// CHECK-NEXT: "graph.if"
// CHECK:      "graph.neg"
func.func @read_inside_a_branch() {
  %c = "graph.placeholder"() {name = "c"} : () -> tensor<i1>
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2xf32>
  %v = "graph.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %0 = "graph.if"(%c) ({
    %1 = "graph.exp"(%v) : (tensor<2xf32>) -> tensor<2xf32>
    gpu.yield %1 : tensor<2xf32>
  }, {
    gpu.yield %x : tensor<2xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<i1>) -> tensor<2xf32>
  "graph.save"(%0) {name = "y"} : (tensor<2xf32>) -> ()
  %w = "graph.neg"(%v) : (tensor<2xf32>) -> tensor<2xf32>
  "graph.save"(%w) {name = "z"} : (tensor<2xf32>) -> ()
  return
}
