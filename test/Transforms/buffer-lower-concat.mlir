// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(buffer-lower-concat)' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(buffer-lower-concat,buffer-eliminate-copies,buffer-dce)' | FileCheck %s --check-prefix=MERGED

// A channel concat at batch 1: each input is a contiguous part of the
// result, so the concat becomes a copy into a view of each part (lhs at byte
// 0, rhs after its 24 bytes).

// CHECK-LABEL: func.func @channels()
// CHECK:         %[[D:.*]] = "buffer.alloc"() {name = "d"
// CHECK-NEXT:    %[[L:.*]] = "buffer.view"(%[[D]]) {byte_offset = 0 : i64} : (memref<1x4x3xf32>) -> memref<1x2x3xf32>
// CHECK-NEXT:    "buffer.copy"(%[[L]], %{{.*}})
// CHECK-NEXT:    %[[R:.*]] = "buffer.view"(%[[D]]) {byte_offset = 24 : i64} : (memref<1x4x3xf32>) -> memref<1x2x3xf32>
// CHECK-NEXT:    "buffer.copy"(%[[R]], %{{.*}})
// CHECK-NOT:     buffer.concat
func.func @channels() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<1x2x3xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<1x4x3xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<1x2x3xf32>
  "buffer.relu"(%a, %x) : (memref<1x2x3xf32>, memref<1x2x3xf32>) -> ()
  %d = "buffer.alloc"() {name = "d", offset = -1 : i64} : () -> memref<1x4x3xf32>
  "buffer.concat"(%d, %a, %x) {axis = 1 : i64} : (memref<1x4x3xf32>, memref<1x2x3xf32>, memref<1x2x3xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<1x2x3xf32>) -> ()
  "buffer.copy"(%y, %d) : (memref<1x4x3xf32>, memref<1x4x3xf32>) -> ()
  "buffer.dealloc"(%d) : (memref<1x4x3xf32>) -> ()
  return
}

// -----

// At batch 2 an input's part of a channel concat is two separate runs of
// bytes, which no view describes: the concat stays.

// CHECK-LABEL: func.func @batch_two()
// CHECK:         "buffer.concat"
// CHECK-NOT:     buffer.view
// MERGED-LABEL:  func.func @batch_two()
// MERGED:        "buffer.concat"
func.func @batch_two() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2x2x3xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2x4x3xf32>
  "buffer.concat"(%y, %x, %x) {axis = 1 : i64} : (memref<2x4x3xf32>, memref<2x2x3xf32>, memref<2x2x3xf32>) -> ()
  return
}

// -----

// Concat of a concat (the graph's concat is binary, so an N-way concat is a
// chain). After copy elimination every producer writes its own part of the
// output and no copy is left: Glow's concat-of-concat merge, done on buffers.
// The second branch is computed first, and the first writes its part of
// the inner concat while the second's copy is pending: only bytes count.
// Views of views are flattened: each part is one view of the output.

// CHECK-LABEL:  func.func @chain()
// MERGED-LABEL: func.func @chain()
// MERGED:         %[[Y:.*]] = "buffer.weight"() {mutable = true, name = "y"
// MERGED:         %[[B:.*]] = "buffer.view"(%[[Y]]) {byte_offset = 24 : i64} : (memref<1x6x3xf32>) -> memref<1x2x3xf32>
// MERGED-NEXT:    "buffer.neg"(%[[B]], %{{.*}})
// MERGED-NEXT:    %[[A:.*]] = "buffer.view"(%[[Y]]) {byte_offset = 0 : i64} : (memref<1x6x3xf32>) -> memref<1x2x3xf32>
// MERGED-NEXT:    "buffer.relu"(%[[A]], %{{.*}})
// MERGED-NEXT:    %[[C:.*]] = "buffer.view"(%[[Y]]) {byte_offset = 48 : i64} : (memref<1x6x3xf32>) -> memref<1x2x3xf32>
// MERGED-NEXT:    "buffer.exp"(%[[C]], %{{.*}})
// MERGED-NOT:     buffer.copy
// MERGED-NOT:     buffer.alloc
// MERGED:         return
func.func @chain() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<1x2x3xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<1x6x3xf32>
  %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<1x2x3xf32>
  "buffer.neg"(%b, %x) : (memref<1x2x3xf32>, memref<1x2x3xf32>) -> ()
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<1x2x3xf32>
  "buffer.relu"(%a, %x) : (memref<1x2x3xf32>, memref<1x2x3xf32>) -> ()
  %ab = "buffer.alloc"() {name = "ab", offset = -1 : i64} : () -> memref<1x4x3xf32>
  "buffer.concat"(%ab, %a, %b) {axis = 1 : i64} : (memref<1x4x3xf32>, memref<1x2x3xf32>, memref<1x2x3xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<1x2x3xf32>) -> ()
  "buffer.dealloc"(%b) : (memref<1x2x3xf32>) -> ()
  %c = "buffer.alloc"() {name = "c", offset = -1 : i64} : () -> memref<1x2x3xf32>
  "buffer.exp"(%c, %x) : (memref<1x2x3xf32>, memref<1x2x3xf32>) -> ()
  %abc = "buffer.alloc"() {name = "abc", offset = -1 : i64} : () -> memref<1x6x3xf32>
  "buffer.concat"(%abc, %ab, %c) {axis = 1 : i64} : (memref<1x6x3xf32>, memref<1x4x3xf32>, memref<1x2x3xf32>) -> ()
  "buffer.dealloc"(%ab) : (memref<1x4x3xf32>) -> ()
  "buffer.dealloc"(%c) : (memref<1x2x3xf32>) -> ()
  "buffer.copy"(%y, %abc) : (memref<1x6x3xf32>, memref<1x6x3xf32>) -> ()
  "buffer.dealloc"(%abc) : (memref<1x6x3xf32>) -> ()
  return
}

// -----

// Quantized inputs with the result's scale: their stored bytes are the
// result's, so the concat lowers to views of the i8 buffer (3 bytes per part).

// CHECK-LABEL: func.func @same_scale()
// CHECK:         "buffer.view"(%{{.*}}) {byte_offset = 0 : i64} : (memref<1x2x3xi8, {quant = !quant.uniform<i8:f32, 5.000000e-01>}>) -> memref<1x1x3xi8, {quant = !quant.uniform<i8:f32, 5.000000e-01>}>
// CHECK:         "buffer.view"(%{{.*}}) {byte_offset = 3 : i64}
// CHECK-NOT:     buffer.concat
func.func @same_scale() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<1x1x3xi8, {quant = !quant.uniform<i8:f32, 0.5>}>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<1x2x3xi8, {quant = !quant.uniform<i8:f32, 0.5>}>
  %d = "buffer.alloc"() {name = "d", offset = -1 : i64} : () -> memref<1x2x3xi8, {quant = !quant.uniform<i8:f32, 0.5>}>
  "buffer.concat"(%d, %x, %x) {axis = 1 : i64} : (memref<1x2x3xi8, {quant = !quant.uniform<i8:f32, 0.5>}>, memref<1x1x3xi8, {quant = !quant.uniform<i8:f32, 0.5>}>, memref<1x1x3xi8, {quant = !quant.uniform<i8:f32, 0.5>}>) -> ()
  "buffer.copy"(%y, %d) : (memref<1x2x3xi8, {quant = !quant.uniform<i8:f32, 0.5>}>, memref<1x2x3xi8, {quant = !quant.uniform<i8:f32, 0.5>}>) -> ()
  "buffer.dealloc"(%d) : (memref<1x2x3xi8, {quant = !quant.uniform<i8:f32, 0.5>}>) -> ()
  return
}

// -----

// An input of another scale is rescaled by the concat (rounded to the
// result's scale): a copy of its bytes would not be, so the concat stays.

// CHECK-LABEL: func.func @rescaling()
// CHECK:         "buffer.concat"
// CHECK-NOT:     buffer.view
func.func @rescaling() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<1x1x3xi8, {quant = !quant.uniform<i8:f32, 0.25>}>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<1x2x3xi8, {quant = !quant.uniform<i8:f32, 0.5>}>
  %d = "buffer.alloc"() {name = "d", offset = -1 : i64} : () -> memref<1x2x3xi8, {quant = !quant.uniform<i8:f32, 0.5>}>
  "buffer.concat"(%d, %x, %x) {axis = 1 : i64} : (memref<1x2x3xi8, {quant = !quant.uniform<i8:f32, 0.5>}>, memref<1x1x3xi8, {quant = !quant.uniform<i8:f32, 0.25>}>, memref<1x1x3xi8, {quant = !quant.uniform<i8:f32, 0.25>}>) -> ()
  "buffer.copy"(%y, %d) : (memref<1x2x3xi8, {quant = !quant.uniform<i8:f32, 0.5>}>, memref<1x2x3xi8, {quant = !quant.uniform<i8:f32, 0.5>}>) -> ()
  "buffer.dealloc"(%d) : (memref<1x2x3xi8, {quant = !quant.uniform<i8:f32, 0.5>}>) -> ()
  return
}
