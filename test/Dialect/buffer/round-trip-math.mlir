// RUN: lamina-opt %s | lamina-opt | FileCheck %s

// The buffer instructions of the further element-wise math ops and the index ops
// (graph_math.py, graph_indexing.py): destination first, graph.X's attributes.

// CHECK-LABEL: func.func @math_ops()
func.func @math_ops() {
  // CHECK-NEXT: %0 = "buffer.weight"() {mutable = true, name = "x", offset = -1 : i64, public = true} : () -> memref<2x3xf32>
  %0 = "buffer.weight"() {mutable = true, name = "x", offset = -1 : i64, public = true} : () -> memref<2x3xf32>
  // CHECK-NEXT: %1 = "buffer.weight"() {mutable = true, name = "i", offset = -1 : i64, public = true} : () -> memref<2x3xi32>
  %1 = "buffer.weight"() {mutable = true, name = "i", offset = -1 : i64, public = true} : () -> memref<2x3xi32>
  // CHECK-NEXT: %2 = "buffer.weight"() {mutable = true, name = "u", offset = -1 : i64, public = true} : () -> memref<2x3xui8>
  %2 = "buffer.weight"() {mutable = true, name = "u", offset = -1 : i64, public = true} : () -> memref<2x3xui8>
  // CHECK-NEXT: %3 = "buffer.alloc"() {name = "sin", offset = -1 : i64} : () -> memref<2x3xf32>
  %3 = "buffer.alloc"() {name = "sin", offset = -1 : i64} : () -> memref<2x3xf32>
  // CHECK-NEXT: "buffer.sin"(%3, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  "buffer.sin"(%3, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  // CHECK-NEXT: %4 = "buffer.alloc"() {name = "cos", offset = -1 : i64} : () -> memref<2x3xf32>
  %4 = "buffer.alloc"() {name = "cos", offset = -1 : i64} : () -> memref<2x3xf32>
  // CHECK-NEXT: "buffer.cos"(%4, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  "buffer.cos"(%4, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  // CHECK-NEXT: %5 = "buffer.alloc"() {name = "tan", offset = -1 : i64} : () -> memref<2x3xf32>
  %5 = "buffer.alloc"() {name = "tan", offset = -1 : i64} : () -> memref<2x3xf32>
  // CHECK-NEXT: "buffer.tan"(%5, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  "buffer.tan"(%5, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  // CHECK-NEXT: %6 = "buffer.alloc"() {name = "asin", offset = -1 : i64} : () -> memref<2x3xf32>
  %6 = "buffer.alloc"() {name = "asin", offset = -1 : i64} : () -> memref<2x3xf32>
  // CHECK-NEXT: "buffer.asin"(%6, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  "buffer.asin"(%6, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  // CHECK-NEXT: %7 = "buffer.alloc"() {name = "acos", offset = -1 : i64} : () -> memref<2x3xf32>
  %7 = "buffer.alloc"() {name = "acos", offset = -1 : i64} : () -> memref<2x3xf32>
  // CHECK-NEXT: "buffer.acos"(%7, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  "buffer.acos"(%7, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  // CHECK-NEXT: %8 = "buffer.alloc"() {name = "atan", offset = -1 : i64} : () -> memref<2x3xf32>
  %8 = "buffer.alloc"() {name = "atan", offset = -1 : i64} : () -> memref<2x3xf32>
  // CHECK-NEXT: "buffer.atan"(%8, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  "buffer.atan"(%8, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  // CHECK-NEXT: %9 = "buffer.alloc"() {name = "sinh", offset = -1 : i64} : () -> memref<2x3xf32>
  %9 = "buffer.alloc"() {name = "sinh", offset = -1 : i64} : () -> memref<2x3xf32>
  // CHECK-NEXT: "buffer.sinh"(%9, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  "buffer.sinh"(%9, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  // CHECK-NEXT: %10 = "buffer.alloc"() {name = "cosh", offset = -1 : i64} : () -> memref<2x3xf32>
  %10 = "buffer.alloc"() {name = "cosh", offset = -1 : i64} : () -> memref<2x3xf32>
  // CHECK-NEXT: "buffer.cosh"(%10, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  "buffer.cosh"(%10, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  // CHECK-NEXT: %11 = "buffer.alloc"() {name = "asinh", offset = -1 : i64} : () -> memref<2x3xf32>
  %11 = "buffer.alloc"() {name = "asinh", offset = -1 : i64} : () -> memref<2x3xf32>
  // CHECK-NEXT: "buffer.asinh"(%11, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  "buffer.asinh"(%11, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  // CHECK-NEXT: %12 = "buffer.alloc"() {name = "acosh", offset = -1 : i64} : () -> memref<2x3xf32>
  %12 = "buffer.alloc"() {name = "acosh", offset = -1 : i64} : () -> memref<2x3xf32>
  // CHECK-NEXT: "buffer.acosh"(%12, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  "buffer.acosh"(%12, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  // CHECK-NEXT: %13 = "buffer.alloc"() {name = "atanh", offset = -1 : i64} : () -> memref<2x3xf32>
  %13 = "buffer.alloc"() {name = "atanh", offset = -1 : i64} : () -> memref<2x3xf32>
  // CHECK-NEXT: "buffer.atanh"(%13, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  "buffer.atanh"(%13, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  // CHECK-NEXT: %14 = "buffer.alloc"() {name = "ceil", offset = -1 : i64} : () -> memref<2x3xf32>
  %14 = "buffer.alloc"() {name = "ceil", offset = -1 : i64} : () -> memref<2x3xf32>
  // CHECK-NEXT: "buffer.ceil"(%14, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  "buffer.ceil"(%14, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  // CHECK-NEXT: %15 = "buffer.alloc"() {name = "floor", offset = -1 : i64} : () -> memref<2x3xf32>
  %15 = "buffer.alloc"() {name = "floor", offset = -1 : i64} : () -> memref<2x3xf32>
  // CHECK-NEXT: "buffer.floor"(%15, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  "buffer.floor"(%15, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  // CHECK-NEXT: %16 = "buffer.alloc"() {name = "round", offset = -1 : i64} : () -> memref<2x3xf32>
  %16 = "buffer.alloc"() {name = "round", offset = -1 : i64} : () -> memref<2x3xf32>
  // CHECK-NEXT: "buffer.round"(%16, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  "buffer.round"(%16, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  // CHECK-NEXT: %17 = "buffer.alloc"() {name = "sign", offset = -1 : i64} : () -> memref<2x3xf32>
  %17 = "buffer.alloc"() {name = "sign", offset = -1 : i64} : () -> memref<2x3xf32>
  // CHECK-NEXT: "buffer.sign"(%17, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  "buffer.sign"(%17, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  // CHECK-NEXT: %18 = "buffer.alloc"() {name = "mod", offset = -1 : i64} : () -> memref<2x3xf32>
  %18 = "buffer.alloc"() {name = "mod", offset = -1 : i64} : () -> memref<2x3xf32>
  // CHECK-NEXT: "buffer.mod"(%18, %0, %0) {fmod = true} : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
  "buffer.mod"(%18, %0, %0) {fmod = true} : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
  // CHECK-NEXT: %19 = "buffer.alloc"() {name = "bit_shift", offset = -1 : i64} : () -> memref<2x3xui8>
  %19 = "buffer.alloc"() {name = "bit_shift", offset = -1 : i64} : () -> memref<2x3xui8>
  // CHECK-NEXT: "buffer.bit_shift"(%19, %2, %2) {direction = "right"} : (memref<2x3xui8>, memref<2x3xui8>, memref<2x3xui8>) -> ()
  "buffer.bit_shift"(%19, %2, %2) {direction = "right"} : (memref<2x3xui8>, memref<2x3xui8>, memref<2x3xui8>) -> ()
  // CHECK-NEXT: %20 = "buffer.alloc"() {name = "bitwise_and", offset = -1 : i64} : () -> memref<2x3xi32>
  %20 = "buffer.alloc"() {name = "bitwise_and", offset = -1 : i64} : () -> memref<2x3xi32>
  // CHECK-NEXT: "buffer.bitwise_and"(%20, %1, %1) : (memref<2x3xi32>, memref<2x3xi32>, memref<2x3xi32>) -> ()
  "buffer.bitwise_and"(%20, %1, %1) : (memref<2x3xi32>, memref<2x3xi32>, memref<2x3xi32>) -> ()
  // CHECK-NEXT: %21 = "buffer.alloc"() {name = "bitwise_or", offset = -1 : i64} : () -> memref<2x3xi32>
  %21 = "buffer.alloc"() {name = "bitwise_or", offset = -1 : i64} : () -> memref<2x3xi32>
  // CHECK-NEXT: "buffer.bitwise_or"(%21, %1, %1) : (memref<2x3xi32>, memref<2x3xi32>, memref<2x3xi32>) -> ()
  "buffer.bitwise_or"(%21, %1, %1) : (memref<2x3xi32>, memref<2x3xi32>, memref<2x3xi32>) -> ()
  // CHECK-NEXT: %22 = "buffer.alloc"() {name = "bitwise_xor", offset = -1 : i64} : () -> memref<2x3xi32>
  %22 = "buffer.alloc"() {name = "bitwise_xor", offset = -1 : i64} : () -> memref<2x3xi32>
  // CHECK-NEXT: "buffer.bitwise_xor"(%22, %1, %1) : (memref<2x3xi32>, memref<2x3xi32>, memref<2x3xi32>) -> ()
  "buffer.bitwise_xor"(%22, %1, %1) : (memref<2x3xi32>, memref<2x3xi32>, memref<2x3xi32>) -> ()
  // CHECK-NEXT: %23 = "buffer.alloc"() {name = "bitwise_not", offset = -1 : i64} : () -> memref<2x3xi32>
  %23 = "buffer.alloc"() {name = "bitwise_not", offset = -1 : i64} : () -> memref<2x3xi32>
  // CHECK-NEXT: "buffer.bitwise_not"(%23, %1) : (memref<2x3xi32>, memref<2x3xi32>) -> ()
  "buffer.bitwise_not"(%23, %1) : (memref<2x3xi32>, memref<2x3xi32>) -> ()
  // CHECK-NEXT: %24 = "buffer.alloc"() {name = "arg_max", offset = -1 : i64} : () -> memref<2x1xi64>
  %24 = "buffer.alloc"() {name = "arg_max", offset = -1 : i64} : () -> memref<2x1xi64>
  // CHECK-NEXT: "buffer.arg_max"(%24, %0) {axis = 1 : i64, keepdims = true, select_last_index = false} : (memref<2x1xi64>, memref<2x3xf32>) -> ()
  "buffer.arg_max"(%24, %0) {axis = 1 : i64, keepdims = true, select_last_index = false} : (memref<2x1xi64>, memref<2x3xf32>) -> ()
  // CHECK-NEXT: %25 = "buffer.alloc"() {name = "arg_min", offset = -1 : i64} : () -> memref<3xi64>
  %25 = "buffer.alloc"() {name = "arg_min", offset = -1 : i64} : () -> memref<3xi64>
  // CHECK-NEXT: "buffer.arg_min"(%25, %0) {axis = 0 : i64, keepdims = false, select_last_index = true} : (memref<3xi64>, memref<2x3xf32>) -> ()
  "buffer.arg_min"(%25, %0) {axis = 0 : i64, keepdims = false, select_last_index = true} : (memref<3xi64>, memref<2x3xf32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%3) : (memref<2x3xf32>) -> ()
  "buffer.dealloc"(%3) : (memref<2x3xf32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%4) : (memref<2x3xf32>) -> ()
  "buffer.dealloc"(%4) : (memref<2x3xf32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%5) : (memref<2x3xf32>) -> ()
  "buffer.dealloc"(%5) : (memref<2x3xf32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%6) : (memref<2x3xf32>) -> ()
  "buffer.dealloc"(%6) : (memref<2x3xf32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%7) : (memref<2x3xf32>) -> ()
  "buffer.dealloc"(%7) : (memref<2x3xf32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%8) : (memref<2x3xf32>) -> ()
  "buffer.dealloc"(%8) : (memref<2x3xf32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%9) : (memref<2x3xf32>) -> ()
  "buffer.dealloc"(%9) : (memref<2x3xf32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%10) : (memref<2x3xf32>) -> ()
  "buffer.dealloc"(%10) : (memref<2x3xf32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%11) : (memref<2x3xf32>) -> ()
  "buffer.dealloc"(%11) : (memref<2x3xf32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%12) : (memref<2x3xf32>) -> ()
  "buffer.dealloc"(%12) : (memref<2x3xf32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%13) : (memref<2x3xf32>) -> ()
  "buffer.dealloc"(%13) : (memref<2x3xf32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%14) : (memref<2x3xf32>) -> ()
  "buffer.dealloc"(%14) : (memref<2x3xf32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%15) : (memref<2x3xf32>) -> ()
  "buffer.dealloc"(%15) : (memref<2x3xf32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%16) : (memref<2x3xf32>) -> ()
  "buffer.dealloc"(%16) : (memref<2x3xf32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%17) : (memref<2x3xf32>) -> ()
  "buffer.dealloc"(%17) : (memref<2x3xf32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%18) : (memref<2x3xf32>) -> ()
  "buffer.dealloc"(%18) : (memref<2x3xf32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%19) : (memref<2x3xui8>) -> ()
  "buffer.dealloc"(%19) : (memref<2x3xui8>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%20) : (memref<2x3xi32>) -> ()
  "buffer.dealloc"(%20) : (memref<2x3xi32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%21) : (memref<2x3xi32>) -> ()
  "buffer.dealloc"(%21) : (memref<2x3xi32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%22) : (memref<2x3xi32>) -> ()
  "buffer.dealloc"(%22) : (memref<2x3xi32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%23) : (memref<2x3xi32>) -> ()
  "buffer.dealloc"(%23) : (memref<2x3xi32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%24) : (memref<2x1xi64>) -> ()
  "buffer.dealloc"(%24) : (memref<2x1xi64>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%25) : (memref<3xi64>) -> ()
  "buffer.dealloc"(%25) : (memref<3xi64>) -> ()
  // CHECK-NEXT: %26 = "buffer.weight"() {mutable = true, name = "k", offset = -1 : i64, public = true} : () -> memref<2x1xi64>
  %26 = "buffer.weight"() {mutable = true, name = "k", offset = -1 : i64, public = true} : () -> memref<2x1xi64>
  // CHECK-NEXT: %27 = "buffer.weight"() {mutable = true, name = "u1", offset = -1 : i64, public = true} : () -> memref<2x1xf32>
  %27 = "buffer.weight"() {mutable = true, name = "u1", offset = -1 : i64, public = true} : () -> memref<2x1xf32>
  // CHECK-NEXT: %28 = "buffer.alloc"() {name = "scatter_elements", offset = -1 : i64} : () -> memref<2x3xf32>
  %28 = "buffer.alloc"() {name = "scatter_elements", offset = -1 : i64} : () -> memref<2x3xf32>
  // CHECK-NEXT: "buffer.scatter_elements"(%28, %0, %26, %27) {axis = 1 : i64, reduction = "add"} : (memref<2x3xf32>, memref<2x3xf32>, memref<2x1xi64>, memref<2x1xf32>) -> ()
  "buffer.scatter_elements"(%28, %0, %26, %27) {axis = 1 : i64, reduction = "add"} : (memref<2x3xf32>, memref<2x3xf32>, memref<2x1xi64>, memref<2x1xf32>) -> ()
  // CHECK-NEXT: %29 = "buffer.alloc"() {name = "scatter_nd", offset = -1 : i64} : () -> memref<2x3xf32>
  %29 = "buffer.alloc"() {name = "scatter_nd", offset = -1 : i64} : () -> memref<2x3xf32>
  // CHECK-NEXT: "buffer.scatter_nd"(%29, %0, %26, %0) {reduction = "none"} : (memref<2x3xf32>, memref<2x3xf32>, memref<2x1xi64>, memref<2x3xf32>) -> ()
  "buffer.scatter_nd"(%29, %0, %26, %0) {reduction = "none"} : (memref<2x3xf32>, memref<2x3xf32>, memref<2x1xi64>, memref<2x3xf32>) -> ()
  // CHECK-NEXT: %30 = "buffer.alloc"() {name = "gather_nd", offset = -1 : i64} : () -> memref<2xf32>
  %30 = "buffer.alloc"() {name = "gather_nd", offset = -1 : i64} : () -> memref<2xf32>
  // CHECK-NEXT: "buffer.gather_nd"(%30, %0, %26) {batch_dims = 1 : i64} : (memref<2xf32>, memref<2x3xf32>, memref<2x1xi64>) -> ()
  "buffer.gather_nd"(%30, %0, %26) {batch_dims = 1 : i64} : (memref<2xf32>, memref<2x3xf32>, memref<2x1xi64>) -> ()
  // CHECK-NEXT: %31 = "buffer.weight"() {mutable = true, name = "image", offset = -1 : i64, public = true} : () -> memref<1x2x3x4xf32>
  %31 = "buffer.weight"() {mutable = true, name = "image", offset = -1 : i64, public = true} : () -> memref<1x2x3x4xf32>
  // CHECK-NEXT: %32 = "buffer.weight"() {mutable = true, name = "grid", offset = -1 : i64, public = true} : () -> memref<1x5x6x2xf32>
  %32 = "buffer.weight"() {mutable = true, name = "grid", offset = -1 : i64, public = true} : () -> memref<1x5x6x2xf32>
  // CHECK-NEXT: %33 = "buffer.alloc"() {name = "grid_sample", offset = -1 : i64} : () -> memref<1x2x5x6xf32>
  %33 = "buffer.alloc"() {name = "grid_sample", offset = -1 : i64} : () -> memref<1x2x5x6xf32>
  // CHECK-NEXT: "buffer.grid_sample"(%33, %31, %32) {align_corners = false, mode = "cubic", padding_mode = "reflection"} : (memref<1x2x5x6xf32>, memref<1x2x3x4xf32>, memref<1x5x6x2xf32>) -> ()
  "buffer.grid_sample"(%33, %31, %32) {align_corners = false, mode = "cubic", padding_mode = "reflection"} : (memref<1x2x5x6xf32>, memref<1x2x3x4xf32>, memref<1x5x6x2xf32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%28) : (memref<2x3xf32>) -> ()
  "buffer.dealloc"(%28) : (memref<2x3xf32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%29) : (memref<2x3xf32>) -> ()
  "buffer.dealloc"(%29) : (memref<2x3xf32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%30) : (memref<2xf32>) -> ()
  "buffer.dealloc"(%30) : (memref<2xf32>) -> ()
  // CHECK-NEXT: "buffer.dealloc"(%33) : (memref<1x2x5x6xf32>) -> ()
  "buffer.dealloc"(%33) : (memref<1x2x5x6xf32>) -> ()
  // CHECK-NEXT: return
  return
}
