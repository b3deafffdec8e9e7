// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fold-arithmetic)' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fold-arithmetic)' --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// A mul and an add by per-channel constants, broadcast the way the importer
// broadcasts them, fold into the convolution in one run: the filter's
// output channels are scaled by [2, 0.5], the bias becomes
// [1, -1] * [2, 0.5] + 1 = [3, 0.5]. The constants, reshapes and
// broadcasts go; the new ops take the fused location of all three ops.

// CHECK-LABEL: func.func @convolution_chain()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.constant"() {value = dense<{{\[\[\[\[}}2.000000e+00]], {{\[\[}}4.000000e+00]]], {{\[\[\[}}1.500000e+00]], {{\[\[}}2.000000e+00]]]]>
// CHECK-NEXT:    %2 = "graph.constant"() {value = dense<[3.000000e+00, 5.000000e-01]>
// CHECK-NEXT:    %3 = "graph.convolution"(%0, %1, %2)
// CHECK-NEXT:    "graph.save"(%3) {name = "y"}
// CHECK-NEXT:    return
// LOC-LABEL: func.func @convolution_chain()
// LOC:         "graph.convolution"{{.*}} loc([[FUSED:#loc[0-9]*]])
// LOC-DAG:     [[CONV:#loc[0-9]*]] = loc("conv")
// LOC-DAG:     [[MUL:#loc[0-9]*]] = loc("mul")
// LOC-DAG:     [[ADD:#loc[0-9]*]] = loc("add")
// LOC-DAG:     [[FUSED]] = loc(fused[[[CONV]], [[MUL]], [[ADD]]])
func.func @convolution_chain() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x4x4xf32>
  %w = "graph.constant"() {value = dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %b = "graph.constant"() {value = dense<[1.0, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %conv = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32> loc("conv")
  %s = "graph.constant"() {value = dense<[2.0, 0.5]> : tensor<2xf32>} : () -> tensor<2xf32>
  %s3 = "graph.reshape"(%s) : (tensor<2xf32>) -> tensor<2x1x1xf32>
  %sb = "graph.broadcast"(%s3) : (tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %scaled = "graph.mul"(%conv, %sb) : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("mul")
  %c = "graph.splat"() {value = 1.0 : f32} : () -> tensor<2x1x1xf32>
  %cb = "graph.broadcast"(%c) : (tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y = "graph.add"(%cb, %scaled) : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("add")
  "graph.save"(%y) {name = "y"} : (tensor<1x2x4x4xf32>) -> ()
  return
}

// -----

// Into a batch-norm: its scale [1, 2] and bias [0.5, 0.5] become
// [2, 4] and [1, 1] after the mul by a scalar 2, and the add of [1, -1]
// makes the bias [2, 0]. Mean and variance stay as they are, so they may be
// known only at run time.

// CHECK-LABEL: func.func @batch_norm()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.placeholder"() {name = "mean"}
// CHECK-NEXT:    %2 = "graph.splat"() {value = 1.000000e+00 : f32}
// CHECK-NEXT:    %3 = "graph.constant"() {value = dense<[2.000000e+00, 4.000000e+00]>
// CHECK-NEXT:    %4 = "graph.constant"() {value = dense<[2.000000e+00, 0.000000e+00]>
// CHECK-NEXT:    %5 = "graph.batch_norm"(%0, %3, %4, %1, %2) {epsilon = 1.000000e+00 : f32}
// CHECK-NEXT:    "graph.save"(%5) {name = "y"}
func.func @batch_norm() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x4x4xf32>
  %mean = "graph.placeholder"() {name = "mean"} : () -> tensor<2xf32>
  %var = "graph.splat"() {value = 1.0 : f32} : () -> tensor<2xf32>
  %scale = "graph.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %beta = "graph.splat"() {value = 0.5 : f32} : () -> tensor<2xf32>
  %bn = "graph.batch_norm"(%x, %scale, %beta, %mean, %var) {epsilon = 1.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %two = "graph.splat"() {value = 2.0 : f32} : () -> tensor<1x2x4x4xf32>
  %scaled = "graph.mul"(%bn, %two) : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c = "graph.constant"() {value = dense<[[[[1.0]], [[-1.0]]]]> : tensor<1x2x1x1xf32>} : () -> tensor<1x2x1x1xf32>
  %cb = "graph.broadcast"(%c) : (tensor<1x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y = "graph.add"(%scaled, %cb) : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x2x4x4xf32>) -> ()
  return
}

// -----

// c - y is the affine y * -1 + c: a fully-connected layer's weights are
// negated and its bias becomes c - b = [10, 20] - [1, 2].

// CHECK-LABEL: func.func @constant_minus_fully_connected()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.constant"() {value = dense<{{\[\[}}-1.000000e+00, -2.000000e+00], [-3.000000e+00, -4.000000e+00], [-5.000000e+00, -6.000000e+00]]>
// CHECK-NEXT:    %2 = "graph.constant"() {value = dense<[9.000000e+00, 1.800000e+01]>
// CHECK-NEXT:    %3 = "graph.fully_connected"(%0, %1, %2)
// CHECK-NEXT:    "graph.save"(%3) {name = "y"}
func.func @constant_minus_fully_connected() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<5x3xf32>
  %w = "graph.constant"() {value = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>} : () -> tensor<3x2xf32>
  %b = "graph.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %fc = "graph.fully_connected"(%x, %w, %b) : (tensor<5x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<5x2xf32>
  %c = "graph.constant"() {value = dense<[10.0, 20.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %cb = "graph.broadcast"(%c) : (tensor<2xf32>) -> tensor<5x2xf32>
  %y = "graph.sub"(%cb, %fc) : (tensor<5x2xf32>, tensor<5x2xf32>) -> tensor<5x2xf32>
  "graph.save"(%y) {name = "y"} : (tensor<5x2xf32>) -> ()
  return
}

// -----

// Constants that vary along another axis than the channels', constants
// known only at run time, and a producer that is not a layer with
// constants (a relu) leave the arithmetic alone.

// CHECK-LABEL: func.func @not_per_channel_affine()
// CHECK:         %[[CONV:.*]] = "graph.convolution"
// CHECK:         %[[SPATIAL:.*]] = "graph.mul"(%[[CONV]],
// CHECK:         %[[RUNTIME:.*]] = "graph.mul"(%[[SPATIAL]], %{{.*}})
// CHECK:         %[[RELU:.*]] = "graph.relu"(%[[RUNTIME]])
// CHECK:         "graph.add"(%[[RELU]],
func.func @not_per_channel_affine() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x2x2xf32>
  %w = "graph.splat"() {value = 1.0 : f32} : () -> tensor<2x2x1x1xf32>
  %b = "graph.splat"() {value = 0.0 : f32} : () -> tensor<2xf32>
  %conv = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %s = "graph.constant"() {value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %sb = "graph.broadcast"(%s) : (tensor<2x2xf32>) -> tensor<1x2x2x2xf32>
  %spatial = "graph.mul"(%conv, %sb) : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %r = "graph.placeholder"() {name = "r"} : () -> tensor<1x2x2x2xf32>
  %runtime = "graph.mul"(%spatial, %r) : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %relu = "graph.relu"(%runtime) : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %one = "graph.splat"() {value = 1.0 : f32} : () -> tensor<1x2x2x2xf32>
  %y = "graph.add"(%relu, %one) : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x2x2x2xf32>) -> ()
  return
}

// -----

// The convolution's result is also saved, so it must keep its weights; and
// a division by a constant with a zero element is not a multiplication by
// its reciprocal.

// CHECK-LABEL: func.func @not_foldable()
// CHECK:         %[[SHARED:.*]] = "graph.convolution"
// CHECK:         "graph.add"(%[[SHARED]],
// CHECK:         "graph.save"(%[[SHARED]]) {name = "shared"}
// CHECK:         %[[PRIVATE:.*]] = "graph.convolution"
// CHECK:         "graph.div"(%[[PRIVATE]],
func.func @not_foldable() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x2x2xf32>
  %w = "graph.splat"() {value = 1.0 : f32} : () -> tensor<2x2x1x1xf32>
  %b = "graph.splat"() {value = 0.0 : f32} : () -> tensor<2xf32>
  %shared = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %one = "graph.splat"() {value = 1.0 : f32} : () -> tensor<1x2x2x2xf32>
  %y = "graph.add"(%shared, %one) : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x2x2x2xf32>) -> ()
  "graph.save"(%shared) {name = "shared"} : (tensor<1x2x2x2xf32>) -> ()
  %private = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %d = "graph.constant"() {value = dense<[2.0, 0.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %d3 = "graph.reshape"(%d) : (tensor<2xf32>) -> tensor<2x1x1xf32>
  %db = "graph.broadcast"(%d3) : (tensor<2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %z = "graph.div"(%private, %db) : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  "graph.save"(%z) {name = "z"} : (tensor<1x2x2x2xf32>) -> ()
  return
}
