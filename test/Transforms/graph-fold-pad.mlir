// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fold-pad)' | FileCheck %s

// A zero pad of the spatial dims folds into the convolution's pads (added to
// its own); the pad goes.

// CHECK-LABEL: func.func @conv()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.constant"()
// CHECK-NEXT:    %2 = "graph.splat"()
// CHECK-NEXT:    %3 = "graph.convolution"(%0, %1, %2) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 3, 2, 1>, strides = array<i64: 1, 1>}
// CHECK-NOT:     graph.pad
func.func @conv() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x5x5xf32>
  %w = "graph.constant"() {value = dense<1.0> : tensor<3x2x3x3xf32>} : () -> tensor<3x2x3x3xf32>
  %b = "graph.splat"() {value = 0.0 : f32} : () -> tensor<3xf32>
  %p = "graph.pad"(%x) {mode = "constant", pads = array<i64: 0, 0, 0, 2, 0, 0, 1, 0>, value = 0.0 : f32} : (tensor<1x2x5x5xf32>) -> tensor<1x2x6x7xf32>
  %y = "graph.convolution"(%p, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x6x7xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x6x7xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x3x6x7xf32>) -> ()
  return
}

// -----

// Max pools fold a -inf pad; an average pool folds a zero pad only when it
// counts padding in its divisor.

// CHECK-LABEL: func.func @pools()
// CHECK:         "graph.max_pool"(%0) {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>
// CHECK:         "graph.avg_pool"(%0) {ceil_mode = false, count_include_pad = true, kernel = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>
// CHECK-NOT:     graph.pad
func.func @pools() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x4x4xf32>
  %m = "graph.pad"(%x) {mode = "constant", pads = array<i64: 0, 0, 1, 1, 0, 0, 0, 0>, value = 0xFF800000 : f32} : (tensor<1x2x4x4xf32>) -> tensor<1x2x5x5xf32>
  %y = "graph.max_pool"(%m) {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x4x4xf32>
  %a = "graph.pad"(%x) {mode = "constant", pads = array<i64: 0, 0, 1, 1, 0, 0, 0, 0>, value = 0.0 : f32} : (tensor<1x2x4x4xf32>) -> tensor<1x2x5x5xf32>
  %z = "graph.avg_pool"(%a) {ceil_mode = false, count_include_pad = true, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x4x4xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x2x4x4xf32>) -> ()
  "graph.save"(%z) {name = "z"} : (tensor<1x2x4x4xf32>) -> ()
  return
}

// -----

// Not folded: a reflect pad, a pad of the channel dim, a zero pad before a
// max pool, an average pool that does not count padding, a ceil_mode pool.

// CHECK-LABEL: func.func @kept()
// CHECK-COUNT-5: "graph.pad"
func.func @kept() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x4x4xf32>
  %w = "graph.constant"() {value = dense<1.0> : tensor<1x2x1x1xf32>} : () -> tensor<1x2x1x1xf32>
  %w3 = "graph.constant"() {value = dense<1.0> : tensor<1x3x1x1xf32>} : () -> tensor<1x3x1x1xf32>
  %b = "graph.splat"() {value = 0.0 : f32} : () -> tensor<1xf32>
  %r = "graph.pad"(%x) {mode = "reflect", pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 0.0 : f32} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32>
  %c1 = "graph.convolution"(%r, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x6x6xf32>, tensor<1x2x1x1xf32>, tensor<1xf32>) -> tensor<1x1x6x6xf32>
  %c = "graph.pad"(%x) {mode = "constant", pads = array<i64: 0, 1, 0, 0, 0, 0, 0, 0>, value = 0.0 : f32} : (tensor<1x2x4x4xf32>) -> tensor<1x3x4x4xf32>
  %c2 = "graph.convolution"(%c, %w3, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<1x3x1x1xf32>, tensor<1xf32>) -> tensor<1x1x4x4xf32>
  %z = "graph.pad"(%x) {mode = "constant", pads = array<i64: 0, 0, 1, 1, 0, 0, 0, 0>, value = 0.0 : f32} : (tensor<1x2x4x4xf32>) -> tensor<1x2x5x5xf32>
  %m = "graph.max_pool"(%z) {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x4x4xf32>
  %a = "graph.avg_pool"(%z) {ceil_mode = false, count_include_pad = false, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x4x4xf32>
  %e = "graph.pad"(%x) {mode = "constant", pads = array<i64: 0, 0, 1, 1, 0, 0, 0, 0>, value = 0.0 : f32} : (tensor<1x2x4x4xf32>) -> tensor<1x2x5x5xf32>
  %cm = "graph.avg_pool"(%e) {ceil_mode = true, count_include_pad = true, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  %w4 = "graph.pad"(%x) {mode = "edge", pads = array<i64: 0, 0, 1, 1, 0, 0, 0, 0>, value = 0.0 : f32} : (tensor<1x2x4x4xf32>) -> tensor<1x2x5x5xf32>
  "graph.save"(%c1) {name = "c1"} : (tensor<1x1x6x6xf32>) -> ()
  "graph.save"(%c2) {name = "c2"} : (tensor<1x1x4x4xf32>) -> ()
  "graph.save"(%m) {name = "m"} : (tensor<1x2x4x4xf32>) -> ()
  "graph.save"(%a) {name = "a"} : (tensor<1x2x4x4xf32>) -> ()
  "graph.save"(%cm) {name = "cm"} : (tensor<1x2x3x3xf32>) -> ()
  "graph.save"(%w4) {name = "w4"} : (tensor<1x2x5x5xf32>) -> ()
  return
}
