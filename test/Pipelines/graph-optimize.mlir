// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-optimize)' | FileCheck %s --check-prefix=REFERENCE
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-optimize{backend=reference-lowered})' | FileCheck %s --check-prefix=LOWERED
// RUN: not lamina-opt %s --pass-pipeline='builtin.module(graph-optimize{backend=accelerator})' --mlir-print-ir-after-all \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=ACCELERATOR

// graph-optimize{backend=B} is Glow's pipeline: fold (raise patterns),
// simplify, lower (what B asks), simplify, B's post-lowering transform,
// simplify, check that B supports every op left. The model: a conv + batch
// norm (folded into the conv's weights), a batch norm after a concat (no conv
// to fold into), a global pool, a dropout, a matmul + broadcast bias (raised
// into a fully-connected layer) and a softmax.

// The reference backend lowers nothing: the dropout is gone, the first batch
// norm folded, the matmul raised; the second batch norm, the pool and the
// softmax stay, and everything is supported.

// REFERENCE-LABEL: func.func @main()
// REFERENCE-NEXT:    "graph.placeholder"() {name = "x"}
// REFERENCE-NEXT:    "graph.constant"() {value = dense<{{\[\[\[\[}}0.999994993]], {{\[\[}}1.999990e+00]]], {{\[\[\[}}-1.41421008]], {{\[\[}}0.707105041]]]]>
// REFERENCE-NEXT:    "graph.constant"
// REFERENCE-NEXT:    "graph.convolution"
// REFERENCE-NEXT:    "graph.relu"
// REFERENCE-NEXT:    "graph.concat"
// REFERENCE-NEXT:    "graph.constant"
// REFERENCE-NEXT:    "graph.batch_norm"
// REFERENCE-NEXT:    "graph.global_avg_pool"
// REFERENCE-NEXT:    "graph.reshape"
// REFERENCE-NEXT:    "graph.constant"
// REFERENCE-NEXT:    "graph.constant"
// REFERENCE-NEXT:    "graph.fully_connected"
// REFERENCE-NEXT:    "graph.softmax"
// REFERENCE-NEXT:    "graph.save"

// reference-lowered also lowers the rest: the batch norm into arithmetic,
// the pool into an avg_pool, the fully-connected layer back into a matmul and
// an add, the softmax into exp and reductions.

// LOWERED-LABEL: func.func @main()
// LOWERED-NOT:     "graph.batch_norm"
// LOWERED:         "graph.sub"
// LOWERED:         "graph.mul"
// LOWERED:         "graph.add"
// LOWERED-NEXT:    "graph.avg_pool"
// LOWERED:         "graph.matmul"
// LOWERED:         "graph.exp"
// LOWERED-NOT:     "graph.fully_connected"
// LOWERED-NOT:     "graph.softmax"

// The accelerator, stage by stage. Fold raises the matmul + bias.

// ACCELERATOR:      IR Dump After GraphRaiseFullyConnected (graph-raise-fully-connected)
// ACCELERATOR:        "graph.fully_connected"
// ACCELERATOR:      IR Dump After GraphRaiseLayerNorm (graph-raise-layer-norm)
// ACCELERATOR:      IR Dump After GraphRaiseGelu (graph-raise-gelu)
// ACCELERATOR:      IR Dump After GraphRaiseSwish (graph-raise-swish)
// ACCELERATOR:      IR Dump After GraphDCE (graph-dce)

// Simplify: the dropout goes, the conv's batch norm is folded.

// ACCELERATOR:      IR Dump After GraphRemoveIdentity (graph-remove-identity)
// ACCELERATOR-NOT:    "graph.dropout"
// ACCELERATOR:      IR Dump After GraphSumToAdds (graph-sum-to-adds)
// ACCELERATOR:      IR Dump After GraphConstantFold (graph-constant-fold)
// ACCELERATOR:      IR Dump After GraphMergeReshapes (graph-merge-reshapes)
// ACCELERATOR:      IR Dump After GraphTransposeSimplify (graph-transpose-simplify)
// ACCELERATOR:      IR Dump After GraphFoldBatchNorm (graph-fold-batch-norm)
// ACCELERATOR:        "graph.convolution"
// ACCELERATOR-NEXT:   "graph.relu"
// ACCELERATOR:      IR Dump After GraphFoldArithmetic (graph-fold-arithmetic)
// ACCELERATOR:      IR Dump After GraphCSE (graph-cse)
// ACCELERATOR:      IR Dump After GraphDCE (graph-dce)

// Lower, for the accelerator: the remaining batch norm and the global pool;
// the fully-connected layer and the softmax stay.

// ACCELERATOR:      IR Dump After GraphLower (graph-lower)
// ACCELERATOR-NOT:    "graph.batch_norm"
// ACCELERATOR:        "graph.sub"
// ACCELERATOR:        "graph.mul"
// ACCELERATOR:        "graph.add"
// ACCELERATOR-NEXT:   "graph.avg_pool"
// ACCELERATOR:        "graph.fully_connected"
// ACCELERATOR-NEXT:   "graph.softmax"

// Simplify, the backend's transform (nothing to do yet), simplify.

// ACCELERATOR:      IR Dump After GraphRemoveIdentity (graph-remove-identity)
// ACCELERATOR:      IR Dump After GraphDCE (graph-dce)
// ACCELERATOR:      IR Dump After GraphBackendTransform (graph-backend-transform)
// ACCELERATOR:      IR Dump After GraphRemoveIdentity (graph-remove-identity)
// ACCELERATOR:      IR Dump After GraphDCE (graph-dce)

// Check support: the softmax, reported at its location, stops compilation.

// ACCELERATOR:      IR Dump After GraphCheckSupport Failed (graph-check-support)
// ACCELERATOR:      node 'prob': error: 'graph.softmax' is not supported by backend 'accelerator'
// ACCELERATOR-NEXT: graph-optimize.mlir:[[# @LINE + 1]]:1: error: backend 'accelerator' cannot run 1 op of @main: graph.softmax
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x4x4xf32>
  %filter = "graph.constant"() {value = dense<[[[[1.0]], [[2.0]]], [[[-1.0]], [[0.5]]]]> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %c2 = "graph.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %conv = "graph.convolution"(%x, %filter, %c2) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32> loc("conv")
  %bn = "graph.batch_norm"(%conv, %c2, %c2, %c2, %c2) {epsilon = 1.0e-5 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32> loc("bn_conv")
  %relu = "graph.relu"(%bn) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("relu")
  %cat = "graph.concat"(%relu, %x) {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32> loc("concat")
  %c4 = "graph.constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %bn2 = "graph.batch_norm"(%cat, %c4, %c4, %c4, %c4) {epsilon = 1.0e-5 : f32} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32> loc("bn_concat")
  %gap = "graph.global_avg_pool"(%bn2) : (tensor<1x4x4x4xf32>) -> tensor<1x4x1x1xf32> loc("pool")
  %flat = "graph.reshape"(%gap) : (tensor<1x4x1x1xf32>) -> tensor<1x4xf32> loc("flatten")
  %drop = "graph.dropout"(%flat) {ratio = 0.5 : f32} : (tensor<1x4xf32>) -> tensor<1x4xf32> loc("dropout")
  %w = "graph.constant"() {value = dense<[[1.0, 0.0, -1.0], [0.5, 0.5, 0.5], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]]> : tensor<4x3xf32>} : () -> tensor<4x3xf32>
  %mm = "graph.matmul"(%drop, %w) : (tensor<1x4xf32>, tensor<4x3xf32>) -> tensor<1x3xf32> loc("gemm")
  %c3 = "graph.constant"() {value = dense<[0.1, 0.2, 0.3]> : tensor<3xf32>} : () -> tensor<3xf32>
  %b3 = "graph.broadcast"(%c3) : (tensor<3xf32>) -> tensor<1x3xf32> loc("gemm_bias")
  %logits = "graph.add"(%mm, %b3) : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32> loc("gemm_add")
  %prob = "graph.softmax"(%logits) {axis = 1 : i64} : (tensor<1x3xf32>) -> tensor<1x3xf32> loc("prob")
  "graph.save"(%prob) {name = "prob"} : (tensor<1x3xf32>) -> ()
  return
}
