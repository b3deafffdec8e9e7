// RUN: lamina-opt %s | FileCheck %s
// RUN: lamina-opt %s | lamina-opt | FileCheck %s

// The further element-wise math ops (lamina/dialects/graph_math.py) and the index ops
// (graph_indexing.py) print and parse back unchanged.

// CHECK-LABEL: func.func @math_ops()
func.func @math_ops() {
  // CHECK-NEXT: "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.placeholder"() {name = "i"} : () -> tensor<2x3xi32>
  %i = "graph.placeholder"() {name = "i"} : () -> tensor<2x3xi32>
  // CHECK-NEXT: "graph.placeholder"() {name = "u"} : () -> tensor<2x3xui8>
  %u = "graph.placeholder"() {name = "u"} : () -> tensor<2x3xui8>
  // CHECK-NEXT: "graph.sin"(%{{[0-9#]+}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %f0 = "graph.sin"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.cos"(%{{[0-9#]+}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %f1 = "graph.cos"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.tan"(%{{[0-9#]+}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %f2 = "graph.tan"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.asin"(%{{[0-9#]+}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %f3 = "graph.asin"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.acos"(%{{[0-9#]+}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %f4 = "graph.acos"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.atan"(%{{[0-9#]+}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %f5 = "graph.atan"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.sinh"(%{{[0-9#]+}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %f6 = "graph.sinh"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.cosh"(%{{[0-9#]+}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %f7 = "graph.cosh"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.asinh"(%{{[0-9#]+}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %f8 = "graph.asinh"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.acosh"(%{{[0-9#]+}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %f9 = "graph.acosh"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.atanh"(%{{[0-9#]+}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %f10 = "graph.atanh"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.ceil"(%{{[0-9#]+}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %f11 = "graph.ceil"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.floor"(%{{[0-9#]+}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %f12 = "graph.floor"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.round"(%{{[0-9#]+}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %f13 = "graph.round"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.sign"(%{{[0-9#]+}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %f14 = "graph.sign"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.mod"(%{{[0-9#]+}}, %{{[0-9#]+}}) {fmod = true} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %m0 = "graph.mod"(%x, %x) {fmod = true} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.mod"(%{{[0-9#]+}}, %{{[0-9#]+}}) {fmod = false} : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %m1 = "graph.mod"(%i, %i) {fmod = false} : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  // CHECK-NEXT: "graph.bit_shift"(%{{[0-9#]+}}, %{{[0-9#]+}}) {direction = "left"} : (tensor<2x3xui8>, tensor<2x3xui8>) -> tensor<2x3xui8>
  %s0 = "graph.bit_shift"(%u, %u) {direction = "left"} : (tensor<2x3xui8>, tensor<2x3xui8>) -> tensor<2x3xui8>
  // CHECK-NEXT: "graph.bitwise_and"(%{{[0-9#]+}}, %{{[0-9#]+}}) : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %b0 = "graph.bitwise_and"(%i, %i) : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  // CHECK-NEXT: "graph.bitwise_or"(%{{[0-9#]+}}, %{{[0-9#]+}}) : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %b1 = "graph.bitwise_or"(%i, %i) : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  // CHECK-NEXT: "graph.bitwise_xor"(%{{[0-9#]+}}, %{{[0-9#]+}}) : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %b2 = "graph.bitwise_xor"(%i, %i) : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  // CHECK-NEXT: "graph.bitwise_not"(%{{[0-9#]+}}) : (tensor<2x3xi32>) -> tensor<2x3xi32>
  %b3 = "graph.bitwise_not"(%i) : (tensor<2x3xi32>) -> tensor<2x3xi32>
  // CHECK-NEXT: "graph.arg_max"(%{{[0-9#]+}}) {axis = 1 : i64, keepdims = true, select_last_index = false} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  %a0 = "graph.arg_max"(%x) {axis = 1 : i64, keepdims = true, select_last_index = false} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  // CHECK-NEXT: "graph.arg_min"(%{{[0-9#]+}}) {axis = 0 : i64, keepdims = false, select_last_index = true} : (tensor<2x3xf32>) -> tensor<3xi64>
  %a1 = "graph.arg_min"(%x) {axis = 0 : i64, keepdims = false, select_last_index = true} : (tensor<2x3xf32>) -> tensor<3xi64>
  // CHECK-NEXT: "graph.placeholder"() {name = "u1"} : () -> tensor<2x1xf32>
  %u1 = "graph.placeholder"() {name = "u1"} : () -> tensor<2x1xf32>
  // CHECK-NEXT: "graph.placeholder"() {name = "k"} : () -> tensor<2x1xi64>
  %k = "graph.placeholder"() {name = "k"} : () -> tensor<2x1xi64>
  // CHECK-NEXT: "graph.scatter_elements"(%{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}}) {axis = 1 : i64, reduction = "add"} : (tensor<2x3xf32>, tensor<2x1xi64>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %e0 = "graph.scatter_elements"(%x, %k, %u1) {axis = 1 : i64, reduction = "add"} : (tensor<2x3xf32>, tensor<2x1xi64>, tensor<2x1xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.scatter_nd"(%{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}}) {reduction = "none"} : (tensor<2x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %e1 = "graph.scatter_nd"(%x, %k, %x) {reduction = "none"} : (tensor<2x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "graph.top_k"(%{{[0-9#]+}}) {axis = 1 : i64, k = 2 : i64, largest = true} : (tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
  %t:2 = "graph.top_k"(%x) {axis = 1 : i64, k = 2 : i64, largest = true} : (tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
  // CHECK-NEXT: "graph.gather_nd"(%{{[0-9#]+}}, %{{[0-9#]+}}) {batch_dims = 1 : i64} : (tensor<2x3xf32>, tensor<2x1xi64>) -> tensor<2xf32>
  %g = "graph.gather_nd"(%x, %k) {batch_dims = 1 : i64} : (tensor<2x3xf32>, tensor<2x1xi64>) -> tensor<2xf32>
  // CHECK-NEXT: "graph.placeholder"() {name = "image"} : () -> tensor<1x2x3x4xf32>
  %image = "graph.placeholder"() {name = "image"} : () -> tensor<1x2x3x4xf32>
  // CHECK-NEXT: "graph.placeholder"() {name = "grid"} : () -> tensor<1x5x6x2xf32>
  %grid = "graph.placeholder"() {name = "grid"} : () -> tensor<1x5x6x2xf32>
  // CHECK-NEXT: "graph.grid_sample"(%{{[0-9#]+}}, %{{[0-9#]+}}) {align_corners = false, mode = "cubic", padding_mode = "reflection"} : (tensor<1x2x3x4xf32>, tensor<1x5x6x2xf32>) -> tensor<1x2x5x6xf32>
  %s = "graph.grid_sample"(%image, %grid) {align_corners = false, mode = "cubic", padding_mode = "reflection"} : (tensor<1x2x3x4xf32>, tensor<1x5x6x2xf32>) -> tensor<1x2x5x6xf32>
  // CHECK-NEXT: return
  return
}
