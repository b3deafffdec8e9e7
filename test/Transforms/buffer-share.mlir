// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(buffer-share)' | FileCheck %s

// `b` starts after `a` is deallocated and has its size and element type: it
// becomes `a`, whose lifetime now runs to `b`'s dealloc. `c` has another
// shape of the same size: it becomes a view of `a` (the most recently freed
// buffer of its size, after `b`'s dealloc).

// CHECK-LABEL: func.func @reuse()
// CHECK:         %[[A:.*]] = "buffer.alloc"() {name = "a"
// CHECK-NEXT:    "buffer.relu"(%[[A]], %{{.*}})
// CHECK-NEXT:    "buffer.copy"(%{{.*}}, %[[A]])
// CHECK-NEXT:    "buffer.neg"(%[[A]], %{{.*}})
// CHECK-NEXT:    "buffer.copy"(%{{.*}}, %[[A]])
// CHECK-NEXT:    %[[C:.*]] = "buffer.view"(%[[A]]) {byte_offset = 0 : i64} : (memref<4xf32>) -> memref<2x2xf32>
// CHECK-NEXT:    "buffer.exp"(%[[C]], %{{.*}})
// CHECK-NEXT:    "buffer.copy"(%{{.*}}, %[[C]])
// CHECK-NEXT:    "buffer.dealloc"(%[[A]])
// CHECK-NEXT:    return
func.func @reuse() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<4xf32>
  %m = "buffer.weight"() {name = "m", mutable = true, public = true, offset = -1 : i64} : () -> memref<2x2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<4xf32>
  %z = "buffer.weight"() {name = "z", mutable = true, public = true, offset = -1 : i64} : () -> memref<2x2xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<4xf32>
  "buffer.relu"(%a, %x) : (memref<4xf32>, memref<4xf32>) -> ()
  "buffer.copy"(%y, %a) : (memref<4xf32>, memref<4xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<4xf32>) -> ()
  %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<4xf32>
  "buffer.neg"(%b, %x) : (memref<4xf32>, memref<4xf32>) -> ()
  "buffer.copy"(%y, %b) : (memref<4xf32>, memref<4xf32>) -> ()
  "buffer.dealloc"(%b) : (memref<4xf32>) -> ()
  %c = "buffer.alloc"() {name = "c", offset = -1 : i64} : () -> memref<2x2xf32>
  "buffer.exp"(%c, %m) : (memref<2x2xf32>, memref<2x2xf32>) -> ()
  "buffer.copy"(%z, %c) : (memref<2x2xf32>, memref<2x2xf32>) -> ()
  "buffer.dealloc"(%c) : (memref<2x2xf32>) -> ()
  return
}

// -----

// Not fired: `b` is allocated while `a` is live; `c` comes after `a`'s and
// `b`'s deallocs but has another size, `d` another element type.

// CHECK-LABEL: func.func @not_fired()
// CHECK-COUNT-4: "buffer.alloc"
// CHECK-NOT:     "buffer.view"
func.func @not_fired() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<4xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<4xf32>
  %h = "buffer.weight"() {name = "h", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %i = "buffer.weight"() {name = "i", mutable = true, public = true, offset = -1 : i64} : () -> memref<4xi32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<4xf32>
  "buffer.relu"(%a, %x) : (memref<4xf32>, memref<4xf32>) -> ()
  %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<4xf32>
  "buffer.neg"(%b, %a) : (memref<4xf32>, memref<4xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<4xf32>) -> ()
  "buffer.copy"(%y, %b) : (memref<4xf32>, memref<4xf32>) -> ()
  "buffer.dealloc"(%b) : (memref<4xf32>) -> ()
  %c = "buffer.alloc"() {name = "c", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.exp"(%c, %h) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.copy"(%h, %c) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%c) : (memref<2xf32>) -> ()
  %d = "buffer.alloc"() {name = "d", offset = -1 : i64} : () -> memref<4xi32>
  "buffer.abs"(%d, %i) : (memref<4xi32>, memref<4xi32>) -> ()
  "buffer.copy"(%i, %d) : (memref<4xi32>, memref<4xi32>) -> ()
  "buffer.dealloc"(%d) : (memref<4xi32>) -> ()
  return
}
