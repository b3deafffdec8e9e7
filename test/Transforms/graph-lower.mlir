// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-lower{backend=reference-lowered})' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-lower{backend=reference-lowered})' --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// Each lowering, with the backend that asks for all of them
// (`reference-lowered`). graph-lower-backends.mlir shows what the other
// backends ask for.

// A fully-connected layer is a matmul, then the bias broadcast over the rows
// and added. Every new op takes the lowered op's location.

// CHECK-LABEL: func.func @fully_connected()
// CHECK:         %[[X:.*]] = "graph.placeholder"() {name = "x"}
// CHECK:         %[[W:.*]] = "graph.constant"
// CHECK:         %[[B:.*]] = "graph.constant"
// CHECK-NEXT:    %[[MM:.*]] = "graph.matmul"(%[[X]], %[[W]]) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[BB:.*]] = "graph.broadcast"(%[[B]]) : (tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = "graph.add"(%[[MM]], %[[BB]])
// CHECK-NEXT:    "graph.save"(%[[Y]]) {name = "y"}
// CHECK-NOT:     graph.fully_connected

// LOC-LABEL: func.func @fully_connected()
// LOC:         "graph.matmul"{{.*}} loc(#[[FC:loc[0-9]*]])
// LOC-NEXT:    "graph.broadcast"{{.*}} loc(#[[FC]])
// LOC-NEXT:    "graph.add"{{.*}} loc(#[[FC]])
// LOC:         #[[FC]] = loc("fc1")
func.func @fully_connected() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %w = "graph.constant"() {value = dense<1.0> : tensor<3x4xf32>} : () -> tensor<3x4xf32>
  %b = "graph.constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %y = "graph.fully_connected"(%x, %w, %b) : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32> loc("fc1")
  "graph.save"(%y) {name = "y"} : (tensor<2x4xf32>) -> ()
  return
}

// -----

// Batch norm with constant parameters: the factor scale / sqrt(var + eps) =
// [2, 1] / sqrt([3, 0] + 1) = [1, 1] is computed now; mean and bias become
// [1, C, 1, 1] constants; the [C] parameters, read by nothing else, go.

// CHECK-LABEL: func.func @batch_norm_constant()
// CHECK-NEXT:    %[[X:.*]] = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %[[MEAN:.*]] = "graph.constant"() {value = dense<{{\[\[\[\[}}5.000000e-01]], {{\[\[}}-5.000000e-01]]]]> : tensor<1x2x1x1xf32>}
// CHECK-NEXT:    %[[MEANB:.*]] = "graph.broadcast"(%[[MEAN]]) : (tensor<1x2x1x1xf32>) -> tensor<1x2x3x3xf32>
// CHECK-NEXT:    %[[CENTERED:.*]] = "graph.sub"(%[[X]], %[[MEANB]])
// CHECK-NEXT:    %[[FACTOR:.*]] = "graph.splat"() {value = 1.000000e+00 : f32} : () -> tensor<1x2x1x1xf32>
// CHECK-NEXT:    %[[FACTORB:.*]] = "graph.broadcast"(%[[FACTOR]])
// CHECK-NEXT:    %[[SCALED:.*]] = "graph.mul"(%[[CENTERED]], %[[FACTORB]])
// CHECK-NEXT:    %[[BIAS:.*]] = "graph.constant"() {value = dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]]]> : tensor<1x2x1x1xf32>}
// CHECK-NEXT:    %[[BIASB:.*]] = "graph.broadcast"(%[[BIAS]])
// CHECK-NEXT:    %[[Y:.*]] = "graph.add"(%[[SCALED]], %[[BIASB]])
// CHECK-NEXT:    "graph.save"(%[[Y]]) {name = "y"}
// CHECK-NEXT:    return
func.func @batch_norm_constant() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x3x3xf32>
  %scale = "graph.constant"() {value = dense<[2.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %bias = "graph.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = "graph.constant"() {value = dense<[0.5, -0.5]> : tensor<2xf32>} : () -> tensor<2xf32>
  %var = "graph.constant"() {value = dense<[3.0, 0.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %y = "graph.batch_norm"(%x, %scale, %bias, %mean, %var) {epsilon = 1.0 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x2x3x3xf32>) -> ()
  return
}

// -----

// Batch norm whose scale is a model input: the factor is computed by ops
// (add epsilon, sqrt, div), and the [C] vectors that are not constants are
// reshaped to [1, C, 1] before being broadcast.

// CHECK-LABEL: func.func @batch_norm_input_scale()
// CHECK:         %[[SCALE:.*]] = "graph.placeholder"() {name = "scale"}
// CHECK:         %[[VAR:.*]] = "graph.constant"
// CHECK:         %[[CENTERED:.*]] = "graph.sub"
// CHECK-NEXT:    %[[EPS:.*]] = "graph.splat"() {value = 1.000000e-03 : f32} : () -> tensor<2xf32>
// CHECK-NEXT:    %[[SHIFTED:.*]] = "graph.add"(%[[VAR]], %[[EPS]])
// CHECK-NEXT:    %[[ROOT:.*]] = "graph.sqrt"(%[[SHIFTED]])
// CHECK-NEXT:    %[[FACTOR:.*]] = "graph.div"(%[[SCALE]], %[[ROOT]])
// CHECK-NEXT:    %[[COLUMN:.*]] = "graph.reshape"(%[[FACTOR]]) : (tensor<2xf32>) -> tensor<1x2x1xf32>
// CHECK-NEXT:    %[[FACTORB:.*]] = "graph.broadcast"(%[[COLUMN]]) : (tensor<1x2x1xf32>) -> tensor<4x2x5xf32>
// CHECK-NEXT:    "graph.mul"(%[[CENTERED]], %[[FACTORB]])
// CHECK-NOT:     graph.batch_norm
func.func @batch_norm_input_scale() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<4x2x5xf32>
  %scale = "graph.placeholder"() {name = "scale"} : () -> tensor<2xf32>
  %c = "graph.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %y = "graph.batch_norm"(%x, %scale, %c, %c, %c) {epsilon = 1.0e-3 : f32} : (tensor<4x2x5xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<4x2x5xf32>
  "graph.save"(%y) {name = "y"} : (tensor<4x2x5xf32>) -> ()
  return
}

// -----

// Softmax: subtract the maximum (exp stays finite), exponentiate, divide by the sum.

// CHECK-LABEL: func.func @softmax()
// CHECK-NEXT:    %[[X:.*]] = "graph.placeholder"()
// CHECK-NEXT:    %[[MAX:.*]] = "graph.reduce_max"(%[[X]]) {axes = array<i64: 1>, keepdims = true} : (tensor<4x10xf32>) -> tensor<4x1xf32>
// CHECK-NEXT:    %[[MAXB:.*]] = "graph.broadcast"(%[[MAX]]) : (tensor<4x1xf32>) -> tensor<4x10xf32>
// CHECK-NEXT:    %[[SHIFTED:.*]] = "graph.sub"(%[[X]], %[[MAXB]])
// CHECK-NEXT:    %[[EXP:.*]] = "graph.exp"(%[[SHIFTED]])
// CHECK-NEXT:    %[[SUM:.*]] = "graph.reduce_sum"(%[[EXP]]) {axes = array<i64: 1>, keepdims = true}
// CHECK-NEXT:    %[[SUMB:.*]] = "graph.broadcast"(%[[SUM]])
// CHECK-NEXT:    %[[Y:.*]] = "graph.div"(%[[EXP]], %[[SUMB]])
// CHECK-NEXT:    "graph.save"(%[[Y]])
func.func @softmax() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<4x10xf32>
  %y = "graph.softmax"(%x) {axis = 1 : i64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  "graph.save"(%y) {name = "y"} : (tensor<4x10xf32>) -> ()
  return
}

// -----

// Layer norm over the last two axes: mean and variance by reduce_mean.

// CHECK-LABEL: func.func @layer_norm()
// CHECK:         %[[X:.*]] = "graph.placeholder"()
// CHECK:         %[[MEAN:.*]] = "graph.reduce_mean"(%[[X]]) {axes = array<i64: 1, 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
// CHECK-NEXT:    %[[MEANB:.*]] = "graph.broadcast"(%[[MEAN]])
// CHECK-NEXT:    %[[CENTERED:.*]] = "graph.sub"(%[[X]], %[[MEANB]])
// CHECK-NEXT:    %[[SQUARES:.*]] = "graph.mul"(%[[CENTERED]], %[[CENTERED]])
// CHECK-NEXT:    %[[VAR:.*]] = "graph.reduce_mean"(%[[SQUARES]]) {axes = array<i64: 1, 2>, keepdims = true}
// CHECK-NEXT:    %[[EPS:.*]] = "graph.splat"() {value = 9.99999974E-6 : f32} : () -> tensor<2x1x1xf32>
// CHECK-NEXT:    %[[SHIFTED:.*]] = "graph.add"(%[[VAR]], %[[EPS]])
// CHECK-NEXT:    %[[DEV:.*]] = "graph.sqrt"(%[[SHIFTED]])
// CHECK-NEXT:    %[[DEVB:.*]] = "graph.broadcast"(%[[DEV]])
// CHECK-NEXT:    %[[NORMALIZED:.*]] = "graph.div"(%[[CENTERED]], %[[DEVB]])
// CHECK-NEXT:    %[[SCALEB:.*]] = "graph.broadcast"(%{{.*}}) : (tensor<3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %[[SCALED:.*]] = "graph.mul"(%[[NORMALIZED]], %[[SCALEB]])
// CHECK-NEXT:    %[[BIASB:.*]] = "graph.broadcast"(%{{.*}}) : (tensor<3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = "graph.add"(%[[SCALED]], %[[BIASB]])
// CHECK-NEXT:    "graph.save"(%[[Y]])
func.func @layer_norm() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x3x4xf32>
  %scale = "graph.constant"() {value = dense<2.0> : tensor<3x4xf32>} : () -> tensor<3x4xf32>
  %bias = "graph.constant"() {value = dense<1.0> : tensor<3x4xf32>} : () -> tensor<3x4xf32>
  %y = "graph.layer_norm"(%x, %scale, %bias) {axis = 1 : i64, epsilon = 1.0e-5 : f32} : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  "graph.save"(%y) {name = "y"} : (tensor<2x3x4xf32>) -> ()
  return
}

// -----

// LRN of size 3: squares zero-padded by one channel on each side, three
// shifted slices of the original 4 channels summed, then
// x / (bias + alpha / size * sum) ** beta.

// CHECK-LABEL: func.func @lrn()
// CHECK-NEXT:    %[[X:.*]] = "graph.placeholder"()
// CHECK-NEXT:    %[[SQ:.*]] = "graph.mul"(%[[X]], %[[X]])
// CHECK-NEXT:    %[[PADDED:.*]] = "graph.pad"(%[[SQ]]) {mode = "constant", pads = array<i64: 0, 1, 0, 0, 0, 1, 0, 0>, value = 0.000000e+00 : f32} : (tensor<1x4x2x2xf32>) -> tensor<1x6x2x2xf32>
// CHECK-NEXT:    %[[S0:.*]] = "graph.slice"(%[[PADDED]]) {ends = array<i64: 1, 4, 2, 2>, starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>}
// CHECK-NEXT:    %[[S1:.*]] = "graph.slice"(%[[PADDED]]) {ends = array<i64: 1, 5, 2, 2>, starts = array<i64: 0, 1, 0, 0>, steps = array<i64: 1, 1, 1, 1>}
// CHECK-NEXT:    %[[S2:.*]] = "graph.slice"(%[[PADDED]]) {ends = array<i64: 1, 6, 2, 2>, starts = array<i64: 0, 2, 0, 0>, steps = array<i64: 1, 1, 1, 1>}
// CHECK-NEXT:    %[[SUM:.*]] = "graph.sum"(%[[S0]], %[[S1]], %[[S2]])
// CHECK-NEXT:    %[[AOVERN:.*]] = "graph.splat"() {value = 2.000000e-01 : f32}
// CHECK-NEXT:    %[[SCALED:.*]] = "graph.mul"(%[[AOVERN]], %[[SUM]])
// CHECK-NEXT:    %[[BIAS:.*]] = "graph.splat"() {value = 2.000000e+00 : f32}
// CHECK-NEXT:    %[[BASE:.*]] = "graph.add"(%[[BIAS]], %[[SCALED]])
// CHECK-NEXT:    %[[BETA:.*]] = "graph.splat"() {value = 7.500000e-01 : f32}
// CHECK-NEXT:    %[[DENOMINATOR:.*]] = "graph.pow"(%[[BASE]], %[[BETA]])
// CHECK-NEXT:    %[[Y:.*]] = "graph.div"(%[[X]], %[[DENOMINATOR]])
// CHECK-NEXT:    "graph.save"(%[[Y]])
func.func @lrn() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x4x2x2xf32>
  %y = "graph.lrn"(%x) {size = 3 : i64, alpha = 0.6 : f32, beta = 0.75 : f32, bias = 2.0 : f32} : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x4x2x2xf32>) -> ()
  return
}

// -----

// GELU, exact (erf) form: x/2 * (1 + erf(x / sqrt 2)).

// CHECK-LABEL: func.func @gelu_erf()
// CHECK-NEXT:    %[[X:.*]] = "graph.placeholder"()
// CHECK-NEXT:    %[[SQRT2:.*]] = "graph.splat"() {value = 1.41421354 : f32}
// CHECK-NEXT:    %[[SCALED:.*]] = "graph.div"(%[[X]], %[[SQRT2]])
// CHECK-NEXT:    %[[ERF:.*]] = "graph.erf"(%[[SCALED]])
// CHECK-NEXT:    %[[HALF:.*]] = "graph.splat"() {value = 5.000000e-01 : f32}
// CHECK-NEXT:    %[[HALFX:.*]] = "graph.mul"(%[[HALF]], %[[X]])
// CHECK-NEXT:    %[[ONE:.*]] = "graph.splat"() {value = 1.000000e+00 : f32}
// CHECK-NEXT:    %[[SUM:.*]] = "graph.add"(%[[ONE]], %[[ERF]])
// CHECK-NEXT:    %[[Y:.*]] = "graph.mul"(%[[HALFX]], %[[SUM]])
// CHECK-NEXT:    "graph.save"(%[[Y]])
func.func @gelu_erf() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<8xf32>
  %y = "graph.gelu"(%x) {approximate = "none"} : (tensor<8xf32>) -> tensor<8xf32>
  "graph.save"(%y) {name = "y"} : (tensor<8xf32>) -> ()
  return
}

// -----

// GELU, tanh form: x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).

// CHECK-LABEL: func.func @gelu_tanh()
// CHECK-NEXT:    %[[X:.*]] = "graph.placeholder"()
// CHECK-NEXT:    %[[C:.*]] = "graph.splat"() {value = 4.471500e-02 : f32}
// CHECK-NEXT:    %[[CX:.*]] = "graph.mul"(%[[C]], %[[X]])
// CHECK-NEXT:    %[[CXX:.*]] = "graph.mul"(%[[CX]], %[[X]])
// CHECK-NEXT:    %[[CXXX:.*]] = "graph.mul"(%[[CXX]], %[[X]])
// CHECK-NEXT:    %[[K:.*]] = "graph.splat"() {value = 0.797884583 : f32}
// CHECK-NEXT:    %[[INNER:.*]] = "graph.add"(%[[X]], %[[CXXX]])
// CHECK-NEXT:    %[[ARG:.*]] = "graph.mul"(%[[K]], %[[INNER]])
// CHECK-NEXT:    %[[TANH:.*]] = "graph.tanh"(%[[ARG]])
// CHECK:         "graph.add"(%{{.*}}, %[[TANH]])
// CHECK-NOT:     graph.gelu
func.func @gelu_tanh() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<8xf32>
  %y = "graph.gelu"(%x) {approximate = "tanh"} : (tensor<8xf32>) -> tensor<8xf32>
  "graph.save"(%y) {name = "y"} : (tensor<8xf32>) -> ()
  return
}

// -----

// Swish: x * sigmoid(x).

// CHECK-LABEL: func.func @swish()
// CHECK-NEXT:    %[[X:.*]] = "graph.placeholder"()
// CHECK-NEXT:    %[[S:.*]] = "graph.sigmoid"(%[[X]])
// CHECK-NEXT:    %[[Y:.*]] = "graph.mul"(%[[X]], %[[S]])
// CHECK-NEXT:    "graph.save"(%[[Y]])
func.func @swish() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<8xf32>
  %y = "graph.swish"(%x) : (tensor<8xf32>) -> tensor<8xf32>
  "graph.save"(%y) {name = "y"} : (tensor<8xf32>) -> ()
  return
}

// -----

// Global pooling: one window over the whole 7x5 image.

// CHECK-LABEL: func.func @global_pools()
// CHECK-NEXT:    %[[X:.*]] = "graph.placeholder"()
// CHECK-NEXT:    "graph.avg_pool"(%[[X]]) {ceil_mode = false, count_include_pad = false, kernel = array<i64: 7, 5>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x7x5xf32>) -> tensor<1x3x1x1xf32>
// CHECK-NEXT:    "graph.max_pool"(%[[X]]) {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 7, 5>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x7x5xf32>) -> tensor<1x3x1x1xf32>
func.func @global_pools() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x3x7x5xf32>
  %avg = "graph.global_avg_pool"(%x) : (tensor<1x3x7x5xf32>) -> tensor<1x3x1x1xf32>
  %max = "graph.global_max_pool"(%x) : (tensor<1x3x7x5xf32>) -> tensor<1x3x1x1xf32>
  "graph.save"(%avg) {name = "avg"} : (tensor<1x3x1x1xf32>) -> ()
  "graph.save"(%max) {name = "max"} : (tensor<1x3x1x1xf32>) -> ()
  return
}

// -----

// Ops without a lowering (matmul, relu) are left as they are,
// even by the backend that asks for every lowering.

// CHECK-LABEL: func.func @nothing_to_lower()
// CHECK-NEXT:    "graph.placeholder"
// CHECK-NEXT:    "graph.placeholder"
// CHECK-NEXT:    "graph.matmul"
// CHECK-NEXT:    "graph.relu"
// CHECK-NEXT:    "graph.save"
func.func @nothing_to_lower() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<3x4xf32>
  %m = "graph.matmul"(%x, %w) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %r = "graph.relu"(%m) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  "graph.save"(%r) {name = "y"} : (tensor<2x4xf32>) -> ()
  return
}
