// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(buffer-hoist-deallocs)' | FileCheck %s

// IRGen leaves every dealloc at the end of the function: each moves right
// after the last op using its buffer. For `b` that is the copy reading its
// view. `a` and `c` die at the same instruction: their deallocs keep their
// order.

// CHECK-LABEL: func.func @irgen_order()
// CHECK:         %[[A:.*]] = "buffer.alloc"() {name = "a"
// CHECK-NEXT:    "buffer.relu"(%[[A]], %{{.*}})
// CHECK-NEXT:    %[[B:.*]] = "buffer.alloc"() {name = "b"
// CHECK-NEXT:    "buffer.neg"(%[[B]], %{{.*}})
// CHECK-NEXT:    %[[V:.*]] = "buffer.view"(%[[B]])
// CHECK-NEXT:    %[[C:.*]] = "buffer.alloc"() {name = "c"
// CHECK-NEXT:    "buffer.exp"(%[[C]], %{{.*}})
// CHECK-NEXT:    %[[D:.*]] = "buffer.alloc"() {name = "d"
// CHECK-NEXT:    "buffer.add"(%[[D]], %[[A]], %[[C]])
// CHECK-NEXT:    "buffer.dealloc"(%[[A]])
// CHECK-NEXT:    "buffer.dealloc"(%[[C]])
// CHECK-NEXT:    "buffer.copy"(%{{.*}}, %[[V]])
// CHECK-NEXT:    "buffer.dealloc"(%[[B]])
// CHECK-NEXT:    "buffer.copy"(%{{.*}}, %[[D]])
// CHECK-NEXT:    "buffer.dealloc"(%[[D]])
// CHECK-NEXT:    return
func.func @irgen_order() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2x2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<4xf32>
  %z = "buffer.weight"() {name = "z", mutable = true, public = true, offset = -1 : i64} : () -> memref<2x2xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2x2xf32>
  "buffer.relu"(%a, %x) : (memref<2x2xf32>, memref<2x2xf32>) -> ()
  %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<2x2xf32>
  "buffer.neg"(%b, %x) : (memref<2x2xf32>, memref<2x2xf32>) -> ()
  %v = "buffer.view"(%b) {byte_offset = 0 : i64} : (memref<2x2xf32>) -> memref<4xf32>
  %c = "buffer.alloc"() {name = "c", offset = -1 : i64} : () -> memref<2x2xf32>
  "buffer.exp"(%c, %x) : (memref<2x2xf32>, memref<2x2xf32>) -> ()
  %d = "buffer.alloc"() {name = "d", offset = -1 : i64} : () -> memref<2x2xf32>
  "buffer.add"(%d, %a, %c) : (memref<2x2xf32>, memref<2x2xf32>, memref<2x2xf32>) -> ()
  "buffer.copy"(%y, %v) : (memref<4xf32>, memref<4xf32>) -> ()
  "buffer.copy"(%z, %d) : (memref<2x2xf32>, memref<2x2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2x2xf32>) -> ()
  "buffer.dealloc"(%b) : (memref<2x2xf32>) -> ()
  "buffer.dealloc"(%c) : (memref<2x2xf32>) -> ()
  "buffer.dealloc"(%d) : (memref<2x2xf32>) -> ()
  return
}

// -----

// Deallocs already right after their last use do not move.

// CHECK-LABEL: func.func @already_tight()
// CHECK:         %[[A:.*]] = "buffer.alloc"() {name = "a"
// CHECK-NEXT:    "buffer.relu"(%[[A]], %{{.*}})
// CHECK-NEXT:    "buffer.copy"(%{{.*}}, %[[A]])
// CHECK-NEXT:    "buffer.dealloc"(%[[A]])
// CHECK-NEXT:    return
func.func @already_tight() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.relu"(%a, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.copy"(%y, %a) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2xf32>) -> ()
  return
}

// -----

// An alloc nothing uses is deallocated right after it is allocated; creating
// a view is a use, even when nothing reads the view.

// CHECK-LABEL: func.func @unused()
// CHECK-NEXT:    %[[A:.*]] = "buffer.alloc"() {name = "a"
// CHECK-NEXT:    "buffer.dealloc"(%[[A]])
// CHECK-NEXT:    %[[B:.*]] = "buffer.alloc"() {name = "b"
// CHECK-NEXT:    "buffer.view"(%[[B]])
// CHECK-NEXT:    "buffer.dealloc"(%[[B]])
// CHECK-NEXT:    return
func.func @unused() {
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2xf32>
  %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<2xf32>
  %v = "buffer.view"(%b) {byte_offset = 4 : i64} : (memref<2xf32>) -> memref<1xf32>
  "buffer.dealloc"(%a) : (memref<2xf32>) -> ()
  "buffer.dealloc"(%b) : (memref<2xf32>) -> ()
  return
}
