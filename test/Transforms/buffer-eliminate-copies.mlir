// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(buffer-eliminate-copies)' | FileCheck %s

// IRGen's output: compute into an alloc, copy into the output weight. The
// instructions filling the alloc (here also one running in place) fill the
// weight instead; the copy and the alloc go.

// CHECK-LABEL: func.func @output_copy()
// CHECK:         %[[Y:.*]] = "buffer.weight"() {mutable = true, name = "y"
// CHECK-NEXT:    "buffer.relu"(%[[Y]], %{{.*}})
// CHECK-NEXT:    "buffer.exp"(%[[Y]], %[[Y]])
// CHECK-NEXT:    return
func.func @output_copy() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.relu"(%a, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.exp"(%a, %a) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.copy"(%y, %a) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2xf32>) -> ()
  return
}

// -----

// A reshaped output: the copy reads a view of the alloc, so the producer
// writes a view of the weight with the alloc's shape. The alloc's later
// reader reads the weight (nothing writes it after the copy).

// CHECK-LABEL: func.func @reshaped_output()
// CHECK:         %[[Y:.*]] = "buffer.weight"() {mutable = true, name = "y"
// CHECK:         %[[V:.*]] = "buffer.view"(%[[Y]]) {byte_offset = 0 : i64} : (memref<4xf32>) -> memref<2x2xf32>
// CHECK-NEXT:    "buffer.relu"(%[[V]], %{{.*}})
// CHECK-NEXT:    "buffer.neg"(%{{.*}}, %[[V]])
// CHECK-NEXT:    return
func.func @reshaped_output() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2x2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<4xf32>
  %z = "buffer.weight"() {name = "z", mutable = true, public = true, offset = -1 : i64} : () -> memref<2x2xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2x2xf32>
  "buffer.relu"(%a, %x) : (memref<2x2xf32>, memref<2x2xf32>) -> ()
  %v = "buffer.view"(%a) {byte_offset = 0 : i64} : (memref<2x2xf32>) -> memref<4xf32>
  "buffer.copy"(%y, %v) : (memref<4xf32>, memref<4xf32>) -> ()
  "buffer.neg"(%z, %a) : (memref<2x2xf32>, memref<2x2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2x2xf32>) -> ()
  return
}

// -----

// A copy into an alloc declared after the source: the destination's alloc
// moves up to take the source's place.

// CHECK-LABEL: func.func @into_later_alloc()
// CHECK:         %[[B:.*]] = "buffer.alloc"() {name = "b"
// CHECK-NEXT:    "buffer.relu"(%[[B]], %{{.*}})
// CHECK-NEXT:    "buffer.neg"(%{{.*}}, %[[B]])
// CHECK-NEXT:    "buffer.dealloc"(%[[B]])
// CHECK-NEXT:    return
func.func @into_later_alloc() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.relu"(%a, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.copy"(%b, %a) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2xf32>) -> ()
  "buffer.neg"(%y, %b) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%b) : (memref<2xf32>) -> ()
  return
}

// -----

// Not fired: the destination alloc is deallocated before the source's last
// use (creating a view of it), so it cannot take the source's place.

// CHECK-LABEL: func.func @destination_dies_first()
// CHECK:         "buffer.copy"(%[[B:[0-9]+]], %{{[0-9]+}})
// CHECK-NEXT:    "buffer.neg"(%{{.*}}, %[[B]])
// CHECK-NEXT:    "buffer.dealloc"(%[[B]])
// CHECK-NEXT:    "buffer.view"
func.func @destination_dies_first() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.relu"(%a, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.copy"(%b, %a) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.neg"(%y, %b) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%b) : (memref<2xf32>) -> ()
  %v = "buffer.view"(%a) {byte_offset = 4 : i64} : (memref<2xf32>) -> memref<1xf32>
  "buffer.dealloc"(%a) : (memref<2xf32>) -> ()
  return
}

// -----

// A copy of bytes onto themselves goes (with the views only it used).

// CHECK-LABEL: func.func @onto_itself()
// CHECK:         "buffer.relu"
// CHECK-NEXT:    "buffer.dealloc"
// CHECK-NEXT:    return
func.func @onto_itself() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<4xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<4xf32>
  "buffer.relu"(%a, %x) : (memref<4xf32>, memref<4xf32>) -> ()
  %v = "buffer.view"(%a) {byte_offset = 0 : i64} : (memref<4xf32>) -> memref<2x2xf32>
  %w = "buffer.view"(%a) {byte_offset = 0 : i64} : (memref<4xf32>) -> memref<2x2xf32>
  "buffer.copy"(%v, %w) : (memref<2x2xf32>, memref<2x2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<4xf32>) -> ()
  return
}

// -----

// Not fired: the output weight is read while the alloc is being computed
// (it would see the new value too early), and a copy between two halves of
// one buffer moves bytes.

// CHECK-LABEL: func.func @destination_busy()
// CHECK:         "buffer.relu"(%[[A:[0-9]+]], %{{.*}})
// CHECK-NEXT:    "buffer.add"
// CHECK-NEXT:    "buffer.copy"(%{{.*}}, %[[A]])
// CHECK:         %[[LO:[0-9]+]] = "buffer.view"(%{{[0-9]+}}) {byte_offset = 0
// CHECK-NEXT:    %[[HI:[0-9]+]] = "buffer.view"(%{{[0-9]+}}) {byte_offset = 8
// CHECK-NEXT:    "buffer.relu"(%[[LO]], %{{.*}})
// CHECK-NEXT:    "buffer.copy"(%[[HI]], %[[LO]])
// CHECK-NEXT:    "buffer.copy"(%{{[0-9]+}}, %[[HI]])
func.func @destination_busy() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %z = "buffer.weight"() {name = "z", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.relu"(%a, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.add"(%z, %y, %a) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
  "buffer.copy"(%y, %a) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2xf32>) -> ()
  %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<4xf32>
  %lo = "buffer.view"(%b) {byte_offset = 0 : i64} : (memref<4xf32>) -> memref<2xf32>
  %hi = "buffer.view"(%b) {byte_offset = 8 : i64} : (memref<4xf32>) -> memref<2xf32>
  "buffer.relu"(%lo, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.copy"(%hi, %lo) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.copy"(%y, %hi) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%b) : (memref<4xf32>) -> ()
  return
}

// -----

// The alloc changes after the copy into `y`, which must keep the copied
// value: that copy stays. The last copy, into `z`, goes (the alloc becomes
// `z`), and a copy from a weight (an input saved as an output) is not an
// alloc's to eliminate.

// CHECK-LABEL: func.func @source_changes()
// CHECK:         %[[Y:.*]] = "buffer.weight"() {mutable = true, name = "y"
// CHECK-NEXT:    %[[Z:.*]] = "buffer.weight"() {mutable = true, name = "z"
// CHECK-NEXT:    %[[W:.*]] = "buffer.weight"() {mutable = true, name = "w"
// CHECK-NEXT:    "buffer.relu"(%[[Z]], %[[X:[0-9]+]])
// CHECK-NEXT:    "buffer.copy"(%[[Y]], %[[Z]])
// CHECK-NEXT:    "buffer.exp"(%[[Z]], %[[Z]])
// CHECK-NEXT:    "buffer.copy"(%[[W]], %[[X]])
// CHECK-NEXT:    return
func.func @source_changes() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %z = "buffer.weight"() {name = "z", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %w = "buffer.weight"() {name = "w", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.relu"(%a, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.copy"(%y, %a) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.exp"(%a, %a) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.copy"(%z, %a) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.copy"(%w, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2xf32>) -> ()
  return
}

// -----

// Only the bytes the copy writes count. Here `%b` writes the same part of
// `%d` the copy fills while `%a` is alive: computing `%a` in that part
// would be overwritten, so the copy stays. (The other half of `%d` being
// written meanwhile would not block: see buffer-lower-concat.mlir.)

// CHECK-LABEL: func.func @same_bytes_written_meanwhile()
// CHECK:         "buffer.copy"
func.func @same_bytes_written_meanwhile() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<4xf32>
  %d = "buffer.alloc"() {name = "d", offset = -1 : i64} : () -> memref<4xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.relu"(%a, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  %lo = "buffer.view"(%d) {byte_offset = 0 : i64} : (memref<4xf32>) -> memref<2xf32>
  "buffer.neg"(%lo, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.exp"(%y, %d) : (memref<4xf32>, memref<4xf32>) -> ()
  "buffer.copy"(%lo, %a) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2xf32>) -> ()
  "buffer.copy"(%y, %d) : (memref<4xf32>, memref<4xf32>) -> ()
  "buffer.dealloc"(%d) : (memref<4xf32>) -> ()
  return
}
