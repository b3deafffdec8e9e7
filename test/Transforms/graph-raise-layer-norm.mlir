// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-raise-layer-norm)' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-raise-layer-norm)' --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// PyTorch's LayerNorm before opset 17, as imported: ReduceMean, Sub, Pow 2,
// ReduceMean, Add eps, Sqrt, Div, Mul weight, Add bias, with the statistics
// and the constants broadcast. The whole chain is one layer_norm over the
// last axis whose scale and bias are the broadcasts' [4] sources, at the
// fused location of the matched ops; the rest goes.

// CHECK-LABEL: func.func @pytorch_export()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.constant"() {value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>}
// CHECK-NEXT:    %2 = "graph.constant"() {value = dense<[5.000000e-01, 0.000000e+00, -5.000000e-01, 1.000000e+00]> : tensor<4xf32>}
// CHECK-NEXT:    %3 = "graph.layer_norm"(%0, %1, %2) {axis = 2 : i64, epsilon = 9.99999974E-6 : f32} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    "graph.save"(%3) {name = "y"}
// CHECK-NEXT:    return
// LOC-LABEL: func.func @pytorch_export()
// LOC:         "graph.layer_norm"{{.*}} loc([[FUSED:#loc[0-9]*]])
// LOC-DAG:     [[DIV:#loc[0-9]*]] = loc("div")
// LOC-DAG:     [[SCALE:#loc[0-9]*]] = loc("scale")
// LOC-DAG:     [[BIAS:#loc[0-9]*]] = loc("bias")
// LOC-DAG:     [[FUSED]] = loc(fused[[[DIV]], {{.*}}, [[SCALE]], [[BIAS]]])
func.func @pytorch_export() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x3x4xf32>
  %mean = "graph.reduce_mean"(%x) {axes = array<i64: 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %mean_b = "graph.broadcast"(%mean) : (tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  %centered = "graph.sub"(%x, %mean_b) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %two = "graph.constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %two_b = "graph.broadcast"(%two) : (tensor<f32>) -> tensor<2x3x4xf32>
  %square = "graph.pow"(%centered, %two_b) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %variance = "graph.reduce_mean"(%square) {axes = array<i64: 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %eps = "graph.constant"() {value = dense<1.0e-5> : tensor<f32>} : () -> tensor<f32>
  %eps_b = "graph.broadcast"(%eps) : (tensor<f32>) -> tensor<2x3x1xf32>
  %shifted = "graph.add"(%variance, %eps_b) : (tensor<2x3x1xf32>, tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  %std = "graph.sqrt"(%shifted) : (tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  %std_b = "graph.broadcast"(%std) : (tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  %normalized = "graph.div"(%centered, %std_b) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32> loc("div")
  %gamma = "graph.constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %gamma_b = "graph.broadcast"(%gamma) : (tensor<4xf32>) -> tensor<2x3x4xf32>
  %scaled = "graph.mul"(%normalized, %gamma_b) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32> loc("scale")
  %beta = "graph.constant"() {value = dense<[0.5, 0.0, -0.5, 1.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %beta_b = "graph.broadcast"(%beta) : (tensor<4xf32>) -> tensor<2x3x4xf32>
  %y = "graph.add"(%scaled, %beta_b) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32> loc("bias")
  "graph.save"(%y) {name = "y"} : (tensor<2x3x4xf32>) -> ()
  return
}

// -----

// Over the two trailing axes, with the square as centered * centered, the
// division as a product with the reciprocal, and no scale or bias: they
// become splats of 1 and 0 of the normalized shape [3, 4].

// CHECK-LABEL: func.func @variants_without_affine()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.splat"() {value = 1.000000e+00 : f32} : () -> tensor<3x4xf32>
// CHECK-NEXT:    %2 = "graph.splat"() {value = 0.000000e+00 : f32} : () -> tensor<3x4xf32>
// CHECK-NEXT:    %3 = "graph.layer_norm"(%0, %1, %2) {axis = 1 : i64, epsilon = 1.000000e-03 : f32}
// CHECK-NEXT:    "graph.save"(%3) {name = "y"}
// CHECK-NEXT:    return
func.func @variants_without_affine() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x3x4xf32>
  %mean = "graph.reduce_mean"(%x) {axes = array<i64: 1, 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  %mean_b = "graph.broadcast"(%mean) : (tensor<2x1x1xf32>) -> tensor<2x3x4xf32>
  %centered = "graph.sub"(%x, %mean_b) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %square = "graph.mul"(%centered, %centered) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %variance = "graph.reduce_mean"(%square) {axes = array<i64: 1, 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  %eps = "graph.splat"() {value = 1.0e-3 : f32} : () -> tensor<2x1x1xf32>
  %shifted = "graph.add"(%eps, %variance) : (tensor<2x1x1xf32>, tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %std = "graph.sqrt"(%shifted) : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %inverse = "graph.reciprocal"(%std) : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %inverse_b = "graph.broadcast"(%inverse) : (tensor<2x1x1xf32>) -> tensor<2x3x4xf32>
  %y = "graph.mul"(%inverse_b, %centered) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "graph.save"(%y) {name = "y"} : (tensor<2x3x4xf32>) -> ()
  return
}

// -----

// A scale that varies along a leading axis is no layer_norm scale: the
// normalization is raised and the mul stays after it.

// CHECK-LABEL: func.func @scale_not_along_normalized_axes()
// CHECK:         %[[LN:.*]] = "graph.layer_norm"(%0,
// CHECK-NEXT:    %[[S:.*]] = "graph.constant"() {value = dense<{{\[\[\[}}1.000000e+00], [2.000000e+00], [3.000000e+00]]]>
// CHECK-NEXT:    %[[SB:.*]] = "graph.broadcast"(%[[S]])
// CHECK-NEXT:    "graph.mul"(%[[LN]], %[[SB]])
func.func @scale_not_along_normalized_axes() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x3x4xf32>
  %mean = "graph.reduce_mean"(%x) {axes = array<i64: 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %mean_b = "graph.broadcast"(%mean) : (tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  %centered = "graph.sub"(%x, %mean_b) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %square = "graph.mul"(%centered, %centered) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %variance = "graph.reduce_mean"(%square) {axes = array<i64: 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %eps = "graph.splat"() {value = 1.0e-3 : f32} : () -> tensor<2x3x1xf32>
  %shifted = "graph.add"(%variance, %eps) : (tensor<2x3x1xf32>, tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  %std = "graph.sqrt"(%shifted) : (tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  %std_b = "graph.broadcast"(%std) : (tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  %normalized = "graph.div"(%centered, %std_b) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %s = "graph.constant"() {value = dense<[[[1.0], [2.0], [3.0]]]> : tensor<1x3x1xf32>} : () -> tensor<1x3x1xf32>
  %s_b = "graph.broadcast"(%s) : (tensor<1x3x1xf32>) -> tensor<2x3x4xf32>
  %y = "graph.mul"(%normalized, %s_b) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "graph.save"(%y) {name = "y"} : (tensor<2x3x4xf32>) -> ()
  return
}

// -----

// Not a layer normalization over trailing axes: the statistics are taken
// over a leading axis (1 of 3).

// CHECK-LABEL: func.func @leading_axis()
// CHECK-NOT:     graph.layer_norm
// CHECK:         "graph.div"
func.func @leading_axis() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x3x4xf32>
  %mean = "graph.reduce_mean"(%x) {axes = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %mean_b = "graph.broadcast"(%mean) : (tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
  %centered = "graph.sub"(%x, %mean_b) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %square = "graph.mul"(%centered, %centered) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %variance = "graph.reduce_mean"(%square) {axes = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %eps = "graph.splat"() {value = 1.0e-3 : f32} : () -> tensor<2x1x4xf32>
  %shifted = "graph.add"(%variance, %eps) : (tensor<2x1x4xf32>, tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
  %std = "graph.sqrt"(%shifted) : (tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
  %std_b = "graph.broadcast"(%std) : (tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
  %y = "graph.div"(%centered, %std_b) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "graph.save"(%y) {name = "y"} : (tensor<2x3x4xf32>) -> ()
  return
}

// -----

// The centered value is also saved, so it is not interior to the pattern.

// CHECK-LABEL: func.func @centered_also_saved()
// CHECK-NOT:     graph.layer_norm
// CHECK:         "graph.div"
func.func @centered_also_saved() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x3x4xf32>
  %mean = "graph.reduce_mean"(%x) {axes = array<i64: 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %mean_b = "graph.broadcast"(%mean) : (tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  %centered = "graph.sub"(%x, %mean_b) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %square = "graph.mul"(%centered, %centered) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %variance = "graph.reduce_mean"(%square) {axes = array<i64: 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %eps = "graph.splat"() {value = 1.0e-3 : f32} : () -> tensor<2x3x1xf32>
  %shifted = "graph.add"(%variance, %eps) : (tensor<2x3x1xf32>, tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  %std = "graph.sqrt"(%shifted) : (tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  %std_b = "graph.broadcast"(%std) : (tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  %y = "graph.div"(%centered, %std_b) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "graph.save"(%y) {name = "y"} : (tensor<2x3x4xf32>) -> ()
  "graph.save"(%centered) {name = "centered"} : (tensor<2x3x4xf32>) -> ()
  return
}
