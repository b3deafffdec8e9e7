// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fold-batch-norm)' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fold-batch-norm)' --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// A batch-norm after a convolution with constant weights folds into them:
// A = scale / sqrt(variance + epsilon) = 2 / sqrt([3, 15] + 1) = [1, 0.5]
// scales the filter's output channels, and the bias becomes
// (b - mean) * A + beta = ([1, -1] - 1) * A + [0.5, 1] = [0.5, 0]. The old
// constants and parameters go; the new convolution and its constants take
// the fused location of the convolution and the batch-norm.

// CHECK-LABEL: func.func @convolution()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.constant"() {value = dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]], {{\[\[\[}}1.500000e+00]], {{\[\[}}2.000000e+00]]]]>
// CHECK-NEXT:    %2 = "graph.constant"() {value = dense<[5.000000e-01, 0.000000e+00]>
// CHECK-NEXT:    %3 = "graph.convolution"(%0, %1, %2) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
// CHECK-NEXT:    "graph.save"(%3) {name = "y"}
// CHECK-NEXT:    return
// LOC-LABEL: func.func @convolution()
// LOC:         "graph.convolution"{{.*}} loc([[FUSED:#loc[0-9]*]])
// LOC-DAG:     [[CONV:#loc[0-9]*]] = loc("conv")
// LOC-DAG:     [[BN:#loc[0-9]*]] = loc("bn")
// LOC-DAG:     [[FUSED]] = loc(fused[[[CONV]], [[BN]]])
func.func @convolution() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x4x4xf32>
  %w = "graph.constant"() {value = dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %b = "graph.constant"() {value = dense<[1.0, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %conv = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32> loc("conv")
  %scale = "graph.splat"() {value = 2.0 : f32} : () -> tensor<2xf32>
  %beta = "graph.constant"() {value = dense<[0.5, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = "graph.splat"() {value = 1.0 : f32} : () -> tensor<2xf32>
  %var = "graph.constant"() {value = dense<[3.0, 15.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %y = "graph.batch_norm"(%conv, %scale, %beta, %mean, %var) {epsilon = 1.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32> loc("bn")
  "graph.save"(%y) {name = "y"} : (tensor<1x2x4x4xf32>) -> ()
  return
}

// -----

// After a fully-connected layer the output channels are the weights'
// columns ([K, M]): column j is scaled by A[j] = [1, 0.5]. A uniform result
// (the bias (0 - 1) * A + [1, 0.5] = [0, 0]) becomes a splat.

// CHECK-LABEL: func.func @fully_connected()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.constant"() {value = dense<{{\[\[}}2.000000e+00, 2.000000e+00], [4.000000e+00, 4.000000e+00], [6.000000e+00, 6.000000e+00]]>
// CHECK-NEXT:    %2 = "graph.splat"() {value = 0.000000e+00 : f32}
// CHECK-NEXT:    %3 = "graph.fully_connected"(%0, %1, %2)
// CHECK-NEXT:    "graph.save"(%3) {name = "y"}
func.func @fully_connected() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<5x3xf32>
  %w = "graph.constant"() {value = dense<[[2.0, 4.0], [4.0, 8.0], [6.0, 12.0]]> : tensor<3x2xf32>} : () -> tensor<3x2xf32>
  %b = "graph.splat"() {value = 0.0 : f32} : () -> tensor<2xf32>
  %fc = "graph.fully_connected"(%x, %w, %b) : (tensor<5x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<5x2xf32>
  %scale = "graph.splat"() {value = 2.0 : f32} : () -> tensor<2xf32>
  %beta = "graph.constant"() {value = dense<[1.0, 0.5]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = "graph.splat"() {value = 1.0 : f32} : () -> tensor<2xf32>
  %var = "graph.constant"() {value = dense<[3.0, 15.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %y = "graph.batch_norm"(%fc, %scale, %beta, %mean, %var) {epsilon = 1.0 : f32} : (tensor<5x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<5x2xf32>
  "graph.save"(%y) {name = "y"} : (tensor<5x2xf32>) -> ()
  return
}

// -----

// The convolution's result is also saved: folding would change what the
// save sees, so the batch-norm stays.

// CHECK-LABEL: func.func @convolution_with_another_user()
// CHECK:         %[[CONV:.*]] = "graph.convolution"
// CHECK:         "graph.batch_norm"(%[[CONV]]
// CHECK:         "graph.save"(%[[CONV]]) {name = "conv"}
func.func @convolution_with_another_user() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x4x4xf32>
  %w = "graph.splat"() {value = 1.0 : f32} : () -> tensor<2x2x1x1xf32>
  %b = "graph.splat"() {value = 0.0 : f32} : () -> tensor<2xf32>
  %conv = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %p = "graph.splat"() {value = 1.0 : f32} : () -> tensor<2xf32>
  %y = "graph.batch_norm"(%conv, %p, %p, %p, %p) {epsilon = 1.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x2x4x4xf32>) -> ()
  "graph.save"(%conv) {name = "conv"} : (tensor<1x2x4x4xf32>) -> ()
  return
}

// -----

// A variance known only at run time cannot be folded into weights.

// CHECK-LABEL: func.func @runtime_variance()
// CHECK:         %[[VAR:.*]] = "graph.placeholder"() {name = "var"}
// CHECK:         %[[CONV:.*]] = "graph.convolution"
// CHECK:         "graph.batch_norm"(%[[CONV]], %{{.*}}, %{{.*}}, %{{.*}}, %[[VAR]])
func.func @runtime_variance() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x4x4xf32>
  %var = "graph.placeholder"() {name = "var"} : () -> tensor<2xf32>
  %w = "graph.splat"() {value = 1.0 : f32} : () -> tensor<2x2x1x1xf32>
  %b = "graph.splat"() {value = 0.0 : f32} : () -> tensor<2xf32>
  %conv = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %p = "graph.splat"() {value = 1.0 : f32} : () -> tensor<2xf32>
  %y = "graph.batch_norm"(%conv, %p, %p, %p, %var) {epsilon = 1.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x2x4x4xf32>) -> ()
  return
}

// -----

// Nothing to fold into: the batch-norm follows a relu (it stays for
// graph-lower), and a convolution whose filter is computed at run time.

// CHECK-LABEL: func.func @no_constant_layer()
// CHECK:         %[[RELU:.*]] = "graph.relu"
// CHECK:         "graph.batch_norm"(%[[RELU]],
// CHECK:         %[[CONV:.*]] = "graph.convolution"
// CHECK:         "graph.batch_norm"(%[[CONV]],
func.func @no_constant_layer() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x4x4xf32>
  %relu = "graph.relu"(%x) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p = "graph.splat"() {value = 1.0 : f32} : () -> tensor<2xf32>
  %y = "graph.batch_norm"(%relu, %p, %p, %p, %p) {epsilon = 1.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x2x4x4xf32>) -> ()
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<2x2x1x1xf32>
  %b = "graph.splat"() {value = 0.0 : f32} : () -> tensor<2xf32>
  %conv = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %z = "graph.batch_norm"(%conv, %p, %p, %p, %p) {epsilon = 1.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  "graph.save"(%z) {name = "z"} : (tensor<1x2x4x4xf32>) -> ()
  return
}
