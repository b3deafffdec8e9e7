// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-linalg,linalg-pooling-to-taps)' | FileCheck %s

// A 3x3 stride-2 max pool on 2 x 7 x 7: its 2 x 2 stride phases (strided slices of the image copied
// into zeros, 4 rows of wq = 4 columns: 3 output columns + 1) flattened, and one generic of
// maximumf over the 9 taps' contiguous slices of 32 positions onto the init (-inf where the output
// is, zeros in the dropped positions), tagged lamina.tap_sum for cpu-vectorize; the 3 x 3 output is
// cropped out of rows of 4.

// CHECK-LABEL: func.func @max_pool
// CHECK:         tensor.extract_slice %{{.*}}[0, 0, 0] [2, 4, 4] [1, 2, 2] : tensor<2x7x7xf32> to tensor<2x4x4xf32>
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<2x32xf32>) attrs = {lamina.tap_sum}
// CHECK-COUNT-9:   arith.maximumf
// CHECK:         tensor.extract_slice %{{.*}}[0, 0] [2, 12] [1, 1] : tensor<2x32xf32> to tensor<2x12xf32>
// CHECK:         tensor.extract_slice %{{.*}}[0, 0, 0] [2, 3, 3] [1, 1, 1] : tensor<2x3x4xf32> to tensor<2x3x3xf32>
// CHECK-NOT:     linalg.pooling
func.func @max_pool() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x7x7xf32>
  %y = "graph.max_pool"(%x) {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x7x7xf32>) -> tensor<1x2x3x3xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x2x3x3xf32>) -> ()
  return
}

// -----

// An average pool's window sum (3x3, stride 1, padded by the converter): one generic of addf over the
// 9 taps' slices of the one phase.

// CHECK-LABEL: func.func @avg_pool
// CHECK:         linalg.generic {{.*}} attrs = {lamina.tap_sum}
// CHECK-COUNT-9:   arith.addf
// CHECK-NOT:     linalg.pooling
func.func @avg_pool() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x5x5xf32>
  %y = "graph.avg_pool"(%x) {ceil_mode = false, count_include_pad = true, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x2x5x5xf32>) -> ()
  return
}

// -----

// Not firing: a global pool (one window of 49 taps over the whole image), a batch of two, and a
// float64 pool stay named pools.

// CHECK-LABEL: func.func @not_rewritten
// CHECK-NOT:     lamina.tap_sum
// CHECK:         linalg.pooling_nchw_sum {{.*}} -> tensor<1x2x1x1xf32>
// CHECK:         linalg.pooling_nchw_max {{.*}} -> tensor<2x2x3x3xf32>
// CHECK:         linalg.pooling_nchw_max {{.*}} -> tensor<1x2x3x3xf64>
// CHECK-NOT:     lamina.tap_sum
func.func @not_rewritten() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x7x7xf32>
  %b = "graph.placeholder"() {name = "b"} : () -> tensor<2x2x7x7xf32>
  %d = "graph.placeholder"() {name = "d"} : () -> tensor<1x2x7x7xf64>
  %g = "graph.global_avg_pool"(%x) : (tensor<1x2x7x7xf32>) -> tensor<1x2x1x1xf32>
  %y = "graph.max_pool"(%b) {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x2x7x7xf32>) -> tensor<2x2x3x3xf32>
  %z = "graph.max_pool"(%d) {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x7x7xf64>) -> tensor<1x2x3x3xf64>
  "graph.save"(%g) {name = "g"} : (tensor<1x2x1x1xf32>) -> ()
  "graph.save"(%y) {name = "y"} : (tensor<2x2x3x3xf32>) -> ()
  "graph.save"(%z) {name = "z"} : (tensor<1x2x3x3xf64>) -> ()
  return
}
