// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(buffer-copy-propagation)' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(buffer-copy-propagation,buffer-dce)' | FileCheck %s --check-prefix=DCE

// After `copy(%b, %a)` the reads of `%b` read `%a`, the chain `copy(%c, %b)`
// included, so the reads of `%c` read `%a` too. The copies stay; with no
// reader left they are dead stores for buffer-dce.

// CHECK-LABEL: func.func @chain()
// CHECK:         %[[A:.*]] = "buffer.alloc"() {name = "a"
// CHECK:         "buffer.copy"(%{{[0-9]+}}, %[[A]])
// CHECK-NEXT:    "buffer.copy"(%{{[0-9]+}}, %[[A]])
// CHECK-NEXT:    "buffer.exp"(%{{.*}}, %[[A]])
// CHECK-NEXT:    "buffer.add"(%{{.*}}, %[[A]], %[[A]])

// DCE-LABEL: func.func @chain()
// DCE-NOT:     name = "b"
// DCE-NOT:     name = "c"
// DCE:         return
func.func @chain() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %z = "buffer.weight"() {name = "z", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.relu"(%a, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<2xf32>
  %c = "buffer.alloc"() {name = "c", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.copy"(%b, %a) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.copy"(%c, %b) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.exp"(%y, %b) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.add"(%z, %c, %b) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2xf32>) -> ()
  "buffer.dealloc"(%b) : (memref<2xf32>) -> ()
  "buffer.dealloc"(%c) : (memref<2xf32>) -> ()
  return
}

// -----

// Once the source is written again, reads of the copy must keep reading the
// copy: only the read before that write changes.

// CHECK-LABEL: func.func @source_overwritten()
// CHECK:         "buffer.copy"(%[[B:[0-9]+]], %[[A:[0-9]+]])
// CHECK-NEXT:    "buffer.exp"(%{{.*}}, %[[A]])
// CHECK-NEXT:    "buffer.neg"(%[[A]], %{{.*}})
// CHECK-NEXT:    "buffer.add"(%{{.*}}, %[[B]], %[[A]])
func.func @source_overwritten() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %z = "buffer.weight"() {name = "z", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.relu"(%a, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.copy"(%b, %a) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.exp"(%y, %b) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.neg"(%a, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.add"(%z, %b, %a) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2xf32>) -> ()
  "buffer.dealloc"(%b) : (memref<2xf32>) -> ()
  return
}

// -----

// An instruction that overwrites the copy reads it first: its read changes,
// later reads (of the new value) do not.

// CHECK-LABEL: func.func @copy_overwritten()
// CHECK:         "buffer.copy"(%[[B:[0-9]+]], %[[A:[0-9]+]])
// CHECK-NEXT:    "buffer.exp"(%[[B]], %[[A]])
// CHECK-NEXT:    "buffer.copy"(%{{.*}}, %[[B]])
func.func @copy_overwritten() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.relu"(%a, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.copy"(%b, %a) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.exp"(%b, %b) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.copy"(%y, %b) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2xf32>) -> ()
  "buffer.dealloc"(%b) : (memref<2xf32>) -> ()
  return
}

// -----

// Not fired: the source is deallocated before the copy is read.

// CHECK-LABEL: func.func @source_dead()
// CHECK:         "buffer.copy"(%[[B:[0-9]+]], %{{.*}})
// CHECK-NEXT:    "buffer.dealloc"
// CHECK-NEXT:    "buffer.exp"(%{{.*}}, %[[B]])
func.func @source_dead() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.relu"(%a, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.copy"(%b, %a) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2xf32>) -> ()
  "buffer.exp"(%y, %b) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%b) : (memref<2xf32>) -> ()
  return
}
