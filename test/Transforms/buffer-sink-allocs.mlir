// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(buffer-sink-allocs)' | FileCheck %s

// Allocs declared up front move right before their first use: `a` before
// the instruction writing it, `b` before the view of it that is used first.
// Allocs moved to one point keep their order (`c`, then `d`).

// CHECK-LABEL: func.func @declared_early()
// CHECK:         "buffer.weight"() {mutable = true, name = "y"
// CHECK-NEXT:    %[[A:.*]] = "buffer.alloc"() {name = "a"
// CHECK-NEXT:    "buffer.relu"(%[[A]], %{{.*}})
// CHECK-NEXT:    %[[B:.*]] = "buffer.alloc"() {name = "b"
// CHECK-NEXT:    %[[V:.*]] = "buffer.view"(%[[B]])
// CHECK-NEXT:    "buffer.neg"(%[[V]], %[[A]])
// CHECK-NEXT:    "buffer.dealloc"(%[[A]])
// CHECK-NEXT:    %[[C:.*]] = "buffer.alloc"() {name = "c"
// CHECK-NEXT:    %[[D:.*]] = "buffer.alloc"() {name = "d"
// CHECK-NEXT:    "buffer.add"(%[[C]], %[[B]], %[[D]])
func.func @declared_early() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2xf32>
  %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<2xf32>
  %c = "buffer.alloc"() {name = "c", offset = -1 : i64} : () -> memref<2xf32>
  %d = "buffer.alloc"() {name = "d", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.relu"(%a, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  %v = "buffer.view"(%b) {byte_offset = 0 : i64} : (memref<2xf32>) -> memref<2xf32>
  "buffer.neg"(%v, %a) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2xf32>) -> ()
  "buffer.add"(%c, %b, %d) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
  "buffer.copy"(%y, %c) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%b) : (memref<2xf32>) -> ()
  "buffer.dealloc"(%c) : (memref<2xf32>) -> ()
  "buffer.dealloc"(%d) : (memref<2xf32>) -> ()
  return
}

// -----

// IRGen's order (each alloc right before the instruction writing it) is
// already tight: nothing moves.

// CHECK-LABEL: func.func @irgen_order()
// CHECK:         %[[A:.*]] = "buffer.alloc"() {name = "a"
// CHECK-NEXT:    "buffer.relu"(%[[A]], %{{.*}})
// CHECK-NEXT:    %[[B:.*]] = "buffer.alloc"() {name = "b"
// CHECK-NEXT:    "buffer.neg"(%[[B]], %[[A]])
// CHECK-NEXT:    "buffer.copy"(%{{.*}}, %[[B]])
// CHECK-NEXT:    "buffer.dealloc"(%[[A]])
// CHECK-NEXT:    "buffer.dealloc"(%[[B]])
func.func @irgen_order() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.relu"(%a, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.neg"(%b, %a) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.copy"(%y, %b) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2xf32>) -> ()
  "buffer.dealloc"(%b) : (memref<2xf32>) -> ()
  return
}
