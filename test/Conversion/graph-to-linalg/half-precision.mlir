// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-linalg)' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-linalg)' | mlir-opt --split-input-file > /dev/null

// An f16 convolution sums in f32: the input is extended by a generic, the
// constant filter and bias at compile time, and the f32 result is rounded
// to f16 once (arith.truncf).

// CHECK-LABEL: func.func @convolution(%arg0: tensor<1x2x3x3xf16>) -> tensor<1x2x3x3xf16>
// CHECK:         linalg.generic {{.*}} ins(%arg0 : tensor<1x2x3x3xf16>) outs(%{{.*}} : tensor<1x2x3x3xf32>)
// CHECK:           arith.extf {{.*}} : f16 to f32
// CHECK:         arith.constant dense<{{.*}}> : tensor<2x2x1x1xf32>
// CHECK:         arith.constant dense<[5.000000e-01, -2.500000e-01]> : tensor<2xf32>
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) outs(%{{.*}} : tensor<1x2x3x3xf32>)
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x3x3xf16>)
// CHECK:           arith.truncf {{.*}} : f32 to f16
func.func @convolution() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x3x3xf16>
  %w = "graph.constant"() {value = dense<[[[[1.0]], [[2.0]]], [[[-1.0]], [[0.5]]]]> : tensor<2x2x1x1xf16>} : () -> tensor<2x2x1x1xf16>
  %b = "graph.constant"() {value = dense<[0.5, -0.25]> : tensor<2xf16>} : () -> tensor<2xf16>
  %y = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x3x3xf16>, tensor<2x2x1x1xf16>, tensor<2xf16>) -> tensor<1x2x3x3xf16>
  "graph.save"(%y) {name = "y"} : (tensor<1x2x3x3xf16>) -> ()
  return
}

// -----

// An f16 matrix product of two inputs: both extended, one f32 matmul, one rounding.
// An f32 one (not firing) has no casts.

// CHECK-LABEL: func.func @matmul
// CHECK-COUNT-2: arith.extf {{.*}} : f16 to f32
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3x4xf32>) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK:         arith.truncf {{.*}} : f32 to f16
// CHECK-NOT:     arith.extf
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3x4xf32>) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK-NOT:     arith.truncf
func.func @matmul() {
  %a = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf16>
  %b = "graph.placeholder"() {name = "b"} : () -> tensor<3x4xf16>
  %c = "graph.matmul"(%a, %b) : (tensor<2x3xf16>, tensor<3x4xf16>) -> tensor<2x4xf16>
  "graph.save"(%c) {name = "c"} : (tensor<2x4xf16>) -> ()
  %d = "graph.placeholder"() {name = "d"} : () -> tensor<2x3xf32>
  %e = "graph.placeholder"() {name = "e"} : () -> tensor<3x4xf32>
  %f = "graph.matmul"(%d, %e) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  "graph.save"(%f) {name = "f"} : (tensor<2x4xf32>) -> ()
  return
}
