// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(buffer-inplace)' | FileCheck %s

// A chain of element-wise instructions, each the last use of its input: all
// run in place in the first alloc, which lives until the last one's dealloc.
// In `add`, `lhs` is still needed later, `rhs` dies: the result goes over `rhs`.

// CHECK-LABEL: func.func @chain()
// CHECK:         %[[A:.*]] = "buffer.alloc"() {name = "a"
// CHECK-NEXT:    "buffer.relu"(%[[A]], %{{.*}})
// CHECK-NEXT:    "buffer.sigmoid"(%[[A]], %[[A]])
// CHECK-NEXT:    %[[K:.*]] = "buffer.alloc"() {name = "k"
// CHECK-NEXT:    "buffer.exp"(%[[K]], %{{.*}})
// CHECK-NEXT:    "buffer.add"(%[[A]], %[[K]], %[[A]])
// CHECK-NEXT:    "buffer.copy"(%{{.*}}, %[[K]])
// CHECK-NEXT:    "buffer.dealloc"(%[[K]])
// CHECK-NEXT:    "buffer.copy"(%{{.*}}, %[[A]])
// CHECK-NEXT:    "buffer.dealloc"(%[[A]])
// CHECK-NEXT:    return
func.func @chain() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %z = "buffer.weight"() {name = "z", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.relu"(%a, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.sigmoid"(%b, %a) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2xf32>) -> ()
  %k = "buffer.alloc"() {name = "k", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.exp"(%k, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  %c = "buffer.alloc"() {name = "c", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.add"(%c, %k, %b) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%b) : (memref<2xf32>) -> ()
  "buffer.copy"(%y, %k) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%k) : (memref<2xf32>) -> ()
  "buffer.copy"(%z, %c) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%c) : (memref<2xf32>) -> ()
  return
}

// -----

// Through views: the reshaped input dies at `neg`, which writes over that
// view (the destination has the view's type); the destination's later
// reader reads the view.

// CHECK-LABEL: func.func @view_input()
// CHECK:         %[[A:.*]] = "buffer.alloc"() {name = "a"
// CHECK-NEXT:    "buffer.relu"(%[[A]], %{{.*}})
// CHECK-NEXT:    %[[V:.*]] = "buffer.view"(%[[A]])
// CHECK-NEXT:    "buffer.neg"(%[[V]], %[[V]])
// CHECK-NEXT:    "buffer.copy"(%{{.*}}, %[[V]])
// CHECK-NEXT:    "buffer.dealloc"(%[[A]])
func.func @view_input() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2x2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<4xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2x2xf32>
  "buffer.relu"(%a, %x) : (memref<2x2xf32>, memref<2x2xf32>) -> ()
  %v = "buffer.view"(%a) {byte_offset = 0 : i64} : (memref<2x2xf32>) -> memref<4xf32>
  %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<4xf32>
  "buffer.neg"(%b, %v) : (memref<4xf32>, memref<4xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2x2xf32>) -> ()
  "buffer.copy"(%y, %b) : (memref<4xf32>, memref<4xf32>) -> ()
  "buffer.dealloc"(%b) : (memref<4xf32>) -> ()
  return
}

// -----

// Not fired: the input is read again later (`a`), the input is a weight
// (`x`: model inputs are never overwritten), the instruction is not
// element-wise (`transpose` moves elements, even where it would be the last
// use of `b`), and a comparison's i1 result has another type than its inputs.

// CHECK-LABEL: func.func @not_fired()
// CHECK:         %[[A:.*]] = "buffer.alloc"() {name = "a"
// CHECK-NEXT:    "buffer.relu"(%[[A]], %[[X:[0-9]+]])
// CHECK-NEXT:    %[[B:.*]] = "buffer.alloc"() {name = "b"
// CHECK-NEXT:    "buffer.exp"(%[[B]], %[[A]])
// CHECK-NEXT:    %[[T:.*]] = "buffer.alloc"() {name = "t"
// CHECK-NEXT:    "buffer.transpose"(%[[T]], %[[B]])
// CHECK-NEXT:    "buffer.dealloc"(%[[B]])
// CHECK-NEXT:    %[[E:.*]] = "buffer.alloc"() {name = "e"
// CHECK-NEXT:    "buffer.less"(%[[E]], %[[A]], %[[T]])
func.func @not_fired() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2x2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2x2xi1>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2x2xf32>
  "buffer.relu"(%a, %x) : (memref<2x2xf32>, memref<2x2xf32>) -> ()
  %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<2x2xf32>
  "buffer.exp"(%b, %a) : (memref<2x2xf32>, memref<2x2xf32>) -> ()
  %t = "buffer.alloc"() {name = "t", offset = -1 : i64} : () -> memref<2x2xf32>
  "buffer.transpose"(%t, %b) {perm = array<i64: 1, 0>} : (memref<2x2xf32>, memref<2x2xf32>) -> ()
  "buffer.dealloc"(%b) : (memref<2x2xf32>) -> ()
  %e = "buffer.alloc"() {name = "e", offset = -1 : i64} : () -> memref<2x2xi1>
  "buffer.less"(%e, %a, %t) : (memref<2x2xi1>, memref<2x2xf32>, memref<2x2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2x2xf32>) -> ()
  "buffer.dealloc"(%t) : (memref<2x2xf32>) -> ()
  "buffer.copy"(%y, %e) : (memref<2x2xi1>, memref<2x2xi1>) -> ()
  "buffer.dealloc"(%e) : (memref<2x2xi1>) -> ()
  return
}

// -----

// Not fired: the instruction reads other bytes of the input's alloc, so
// writing over one view would clobber the other before it is read.

// CHECK-LABEL: func.func @reads_other_bytes()
// CHECK:         %[[C:.*]] = "buffer.alloc"() {name = "c"
// CHECK-NEXT:    "buffer.add"(%[[C]], %{{.*}}, %{{.*}})
func.func @reads_other_bytes() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<4xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<4xf32>
  "buffer.relu"(%a, %x) : (memref<4xf32>, memref<4xf32>) -> ()
  %lo = "buffer.view"(%a) {byte_offset = 0 : i64} : (memref<4xf32>) -> memref<2xf32>
  %hi = "buffer.view"(%a) {byte_offset = 8 : i64} : (memref<4xf32>) -> memref<2xf32>
  %c = "buffer.alloc"() {name = "c", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.add"(%c, %hi, %lo) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<4xf32>) -> ()
  "buffer.copy"(%y, %c) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%c) : (memref<2xf32>) -> ()
  return
}

// -----

// A view of the input made after its last access (unused, as IRGen makes for
// a reshape nobody reads) keeps it alive: the input runs `relu` in place but
// keeps its own, later dealloc rather than taking the destination's.

// CHECK-LABEL: func.func @viewed_after_last_access()
// CHECK:         %[[A:.*]] = "buffer.alloc"() {name = "a"
// CHECK-NEXT:    "buffer.exp"(%[[A]], %{{.*}})
// CHECK-NEXT:    "buffer.relu"(%[[A]], %[[A]])
// CHECK-NEXT:    "buffer.view"(%[[A]])
// CHECK-NEXT:    "buffer.dealloc"(%[[A]])
// CHECK-NEXT:    return
func.func @viewed_after_last_access() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<1x1xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<1x1xf32>
  "buffer.exp"(%a, %x) : (memref<1x1xf32>, memref<1x1xf32>) -> ()
  %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<1x1xf32>
  "buffer.relu"(%b, %a) : (memref<1x1xf32>, memref<1x1xf32>) -> ()
  "buffer.dealloc"(%b) : (memref<1x1xf32>) -> ()
  %v = "buffer.view"(%a) {byte_offset = 0 : i64} : (memref<1x1xf32>) -> memref<1xf32>
  "buffer.dealloc"(%a) : (memref<1x1xf32>) -> ()
  return
}
