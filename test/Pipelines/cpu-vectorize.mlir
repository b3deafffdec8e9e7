// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-linalg,cpu-vectorize)' | FileCheck %s

// A 2-D convolution is tiled with the largest divisors up to 1 x 8 filters
// x 1 row x 16 columns x 8 channels x 1 x 1 taps (here 12 filters -> 6, 14
// columns -> 14, untiled), decomposed to 1-D and vectorized; the tag the
// pass uses to find ops is gone afterwards.

// CHECK-LABEL: func.func @convolution
// CHECK:         scf.for %{{.*}} = %c0 to %c12 step %c6
// CHECK:           scf.for %{{.*}} = %c0 to %c14 step %c1
// CHECK:             vector.outerproduct {{.*}} : vector<14xf32>, vector<6xf32>
// CHECK:             vector.transfer_write
// CHECK-NOT:     linalg.conv
// CHECK-NOT:     lamina.cpu_tile
func.func @convolution() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x8x16x16xf32>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<12x8x3x3xf32>
  %b = "graph.splat"() {value = 1.0 : f32} : () -> tensor<12xf32>
  %y = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<12x8x3x3xf32>, tensor<12xf32>) -> tensor<1x12x14x14xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x12x14x14xf32>) -> ()
  return
}

// -----

// Not firing: a convolution with one channel per group is a generic, which stays as it is.

// CHECK-LABEL: func.func @grouped
// CHECK-NOT:     vector.
// CHECK:         linalg.generic
// CHECK-NOT:     vector.
func.func @grouped() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x4x3x3xf32>
  %w = "graph.splat"() {value = 1.0 : f32} : () -> tensor<4x1x1x1xf32>
  %b = "graph.splat"() {value = 0.0 : f32} : () -> tensor<4xf32>
  %y = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 4 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x3x3xf32>, tensor<4x1x1x1xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x4x3x3xf32>) -> ()
  return
}

// -----

// A matmul: 1 x 64 x 8 tiles when they divide (rows 2 -> 1, columns 128 -> 64, depth 12 -> 6).

// CHECK-LABEL: func.func @matmul
// CHECK:         scf.for %{{.*}} = %c0 to %c2 step %c1
// CHECK:           scf.for %{{.*}} = %c0 to %c128 step %c64
// CHECK:             scf.for %{{.*}} = %c0 to %c12 step %c6
// CHECK-NOT:     linalg.matmul
func.func @matmul() {
  %a = "graph.placeholder"() {name = "a"} : () -> tensor<2x12xf32>
  %b = "graph.placeholder"() {name = "b"} : () -> tensor<12x128xf32>
  %y = "graph.matmul"(%a, %b) : (tensor<2x12xf32>, tensor<12x128xf32>) -> tensor<2x128xf32>
  "graph.save"(%y) {name = "y"} : (tensor<2x128xf32>) -> ()
  return
}
