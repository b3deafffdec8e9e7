// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(buffer-dce)' | FileCheck %s

// Nothing reads `b` or `c`: their stores are dead, `c`'s first (it feeds
// nothing live), and with them their allocs, views and deallocs. `a` stays:
// the output copy reads it.

// CHECK-LABEL: func.func @dead_chain()
// CHECK:         %[[A:.*]] = "buffer.alloc"() {name = "a"
// CHECK-NEXT:    "buffer.relu"(%[[A]], %{{.*}})
// CHECK-NEXT:    "buffer.copy"(%{{.*}}, %[[A]])
// CHECK-NEXT:    "buffer.dealloc"(%[[A]])
// CHECK-NEXT:    return
func.func @dead_chain() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2x2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2x2xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2x2xf32>
  "buffer.relu"(%a, %x) : (memref<2x2xf32>, memref<2x2xf32>) -> ()
  %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<2x2xf32>
  "buffer.exp"(%b, %a) : (memref<2x2xf32>, memref<2x2xf32>) -> ()
  %v = "buffer.view"(%b) {byte_offset = 0 : i64} : (memref<2x2xf32>) -> memref<4xf32>
  %c = "buffer.alloc"() {name = "c", offset = -1 : i64} : () -> memref<4xf32>
  "buffer.neg"(%c, %v) : (memref<4xf32>, memref<4xf32>) -> ()
  "buffer.copy"(%y, %a) : (memref<2x2xf32>, memref<2x2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2x2xf32>) -> ()
  "buffer.dealloc"(%b) : (memref<2x2xf32>) -> ()
  "buffer.dealloc"(%c) : (memref<4xf32>) -> ()
  return
}

// -----

// A store whose value is overwritten in full before anything reads it is
// dead (the later one is read), even though its buffer is read afterwards.

// CHECK-LABEL: func.func @overwritten()
// CHECK:         %[[A:.*]] = "buffer.alloc"() {name = "a"
// CHECK-NEXT:    "buffer.neg"(%[[A]], %{{.*}})
// CHECK-NEXT:    "buffer.copy"(%{{.*}}, %[[A]])
func.func @overwritten() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.relu"(%a, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.neg"(%a, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.copy"(%y, %a) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2xf32>) -> ()
  return
}

// -----

// Not fired: a write through a view of half the buffer leaves the other half
// of the earlier store to be read, and an in-place instruction reads the
// value it overwrites.

// CHECK-LABEL: func.func @partly_overwritten()
// CHECK:         "buffer.relu"
// CHECK-NEXT:    "buffer.view"
// CHECK-NEXT:    "buffer.neg"
// CHECK-NEXT:    "buffer.exp"
// CHECK-NEXT:    "buffer.copy"
func.func @partly_overwritten() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<4xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<4xf32>
  %h = "buffer.weight"() {name = "h", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<4xf32>
  "buffer.relu"(%a, %x) : (memref<4xf32>, memref<4xf32>) -> ()
  %lo = "buffer.view"(%a) {byte_offset = 0 : i64} : (memref<4xf32>) -> memref<2xf32>
  "buffer.neg"(%lo, %h) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.exp"(%a, %a) : (memref<4xf32>, memref<4xf32>) -> ()
  "buffer.copy"(%y, %a) : (memref<4xf32>, memref<4xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<4xf32>) -> ()
  return
}

// -----

// Not fired: weights are observable, whoever writes them last. The private
// weight's store stays although nothing in the program reads it.

// CHECK-LABEL: func.func @weights()
// CHECK:         "buffer.relu"(%{{.*}}, %{{.*}})
// CHECK-NEXT:    "buffer.neg"(%{{.*}}, %{{.*}})
// CHECK-NEXT:    return
func.func @weights() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %s = "buffer.weight"() {name = "state", mutable = true, public = false, offset = -1 : i64} : () -> memref<2xf32>
  "buffer.relu"(%y, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.neg"(%s, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  return
}

// -----

// An alloc nothing reads or writes goes with its view and its dealloc.

// CHECK-LABEL: func.func @dead_alloc()
// CHECK-NEXT:    return
func.func @dead_alloc() {
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<4xf32>
  %v = "buffer.view"(%a) {byte_offset = 0 : i64} : (memref<4xf32>) -> memref<2x2xf32>
  "buffer.dealloc"(%a) : (memref<4xf32>) -> ()
  return
}
