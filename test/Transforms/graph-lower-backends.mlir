// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-lower)' | FileCheck %s --check-prefix=REFERENCE
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-lower{backend=reference})' | FileCheck %s --check-prefix=REFERENCE
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-lower{backend=accelerator})' | FileCheck %s --check-prefix=ACCELERATOR
// RUN: not lamina-opt %s --pass-pipeline='builtin.module(graph-lower{backend=gpu})' 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// The backend decides what is lowered. The reference backend (the default)
// runs every op as it is and asks for nothing: the graph is unchanged.

// REFERENCE:      "graph.fully_connected"
// REFERENCE-NEXT: "graph.batch_norm"
// REFERENCE-NEXT: "graph.global_avg_pool"
// REFERENCE-NEXT: "graph.softmax"
// REFERENCE-NEXT: "graph.lrn"
// REFERENCE-NEXT: "graph.save"
// REFERENCE-NEXT: "graph.save"
// REFERENCE-NEXT: "graph.save"

// The accelerator keeps fully_connected (an array matmul with the bias as
// the weights' extra row), lowers batch_norm into sub/mul/add by per-channel
// constants and the global pool into a pool over the whole image, and keeps
// softmax and LRN: their lowerings need exp and pow, which it has no unit
// for either (graph-check-support reports them).

// ACCELERATOR:      "graph.fully_connected"
// ACCELERATOR-NOT:  "graph.batch_norm"
// ACCELERATOR:      "graph.sub"
// ACCELERATOR:      "graph.mul"
// ACCELERATOR:      "graph.add"
// ACCELERATOR-NEXT: "graph.avg_pool"
// ACCELERATOR-SAME:   kernel = array<i64: 2, 2>
// ACCELERATOR-NEXT: "graph.softmax"
// ACCELERATOR-NEXT: "graph.lrn"

// Backend names are checked when the pipeline is built.

// UNKNOWN: graph-lower: option 'backend': expected one of reference, reference-lowered, accelerator, cpu, got 'gpu'
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x2x2xf32>
  %v = "graph.placeholder"() {name = "v"} : () -> tensor<3x2xf32>
  %c2 = "graph.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %w = "graph.constant"() {value = dense<1.0> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %fc = "graph.fully_connected"(%v, %w, %c2) : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %bn = "graph.batch_norm"(%x, %c2, %c2, %c2, %c2) {epsilon = 1.0e-5 : f32} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %gap = "graph.global_avg_pool"(%bn) : (tensor<1x2x2x2xf32>) -> tensor<1x2x1x1xf32>
  %sm = "graph.softmax"(%fc) {axis = 1 : i64} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %lrn = "graph.lrn"(%x) {size = 3 : i64, alpha = 1.0e-4 : f32, beta = 0.75 : f32, bias = 1.0 : f32} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  "graph.save"(%gap) {name = "gap"} : (tensor<1x2x1x1xf32>) -> ()
  "graph.save"(%sm) {name = "sm"} : (tensor<3x2xf32>) -> ()
  "graph.save"(%lrn) {name = "lrn"} : (tensor<1x2x2x2xf32>) -> ()
  return
}
