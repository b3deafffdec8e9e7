// RUN: lamina-opt %s --pass-pipeline='builtin.module(convert-graph-to-hir{arch=%S/Inputs/tiny.tarch samples=2})' | FileCheck %s --check-prefix=CAL
// RUN: lamina-opt %s --pass-pipeline='builtin.module(convert-graph-to-hir{arch=%S/Inputs/tiny.tarch})' | FileCheck %s --check-prefix=TENSIL

// Calibrated formats (samples=2: seeded U[0, 1) inputs). The input x < 1
// gets 14 fractional bits (15 bits hold 2 x its peak); the weights, all
// 0.25, get 16 (0.25 x 2^16 < 32767); the convolution's output is tied to
// the relu and the sum (no product between them), and the group's peak,
// the sum's (about 24 on these samples, times 2 of headroom), leaves 9
// bits for all three. The matmul rounds at 14 + 16 - 9 = 21: the program's
// ARRAY_SHIFT.
// CAL-LABEL: func.func @main()
// CAL-NEXT:    "hir.vars"() {base = 0 : i64, binary_point = 14 : i64, name = "x"}
// CAL-NEXT:    "hir.consts"() {base = 0 : i64, binary_point = 16 : i64, page = 0 : i64,
// CAL-NEXT:    "hir.vars"() {base = 32 : i64, binary_point = 9 : i64, name = "y"}
// CAL-NEXT:    "hir.temp"() {binary_point = 9 : i64, layer = 0 : i64}
// CAL-NEXT:    "hir.matmul"

// Without samples every object is in the data type's format (FP16BP8: 8 bits), as Tensil.
// TENSIL-LABEL: func.func @main()
// TENSIL-NEXT:    "hir.vars"() {base = 0 : i64, binary_point = 8 : i64, name = "x"}
// TENSIL-NEXT:    "hir.consts"() {base = 0 : i64, binary_point = 8 : i64, page = 0 : i64,
// TENSIL-NEXT:    "hir.vars"() {base = 32 : i64, binary_point = 8 : i64, name = "y"}
// TENSIL-NEXT:    "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64}
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x8x4x4xf32> loc("x")
  %w = "graph.constant"() {value = dense<0.25> : tensor<6x8x3x3xf32>} : () -> tensor<6x8x3x3xf32> loc("w")
  %b = "graph.constant"() {value = dense<0.5> : tensor<6xf32>} : () -> tensor<6xf32> loc("b")
  %c = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x4x4xf32>, tensor<6x8x3x3xf32>, tensor<6xf32>) -> tensor<1x6x4x4xf32> loc("conv")
  %r = "graph.relu"(%c) : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32> loc("relu")
  %s = "graph.add"(%r, %r) : (tensor<1x6x4x4xf32>, tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32> loc("sum")
  "graph.save"(%s) {name = "y"} : (tensor<1x6x4x4xf32>) -> () loc("save")
  return
}
