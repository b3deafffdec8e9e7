// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(buffer-allocate)' | FileCheck %s

// Three regions. Activations: %a (160 bytes, 192 with alignment) dies before
// %d (320 bytes) is allocated, so both start at byte 0; %b lives beside %d
// and goes above it: 512 bytes, the lower bound (%b and %d live together).
// The view lives inside %d and gets no offset of its own. The constant sits
// in the read-only region, the two weights one after the other in the
// mutable region.

// CHECK-LABEL: module attributes
// CHECK-SAME:    buffer.activation_bytes = 512 : i64
// CHECK-SAME:    buffer.activation_lower_bound_bytes = 512 : i64
// CHECK-SAME:    buffer.constant_bytes = 192 : i64
// CHECK-SAME:    buffer.mutable_bytes = 384 : i64
// CHECK:       "buffer.weight"() {mutable = true, name = "x", offset = 0 : i64
// CHECK-NEXT:  "buffer.weight"() {mutable = true, name = "y", offset = 192 : i64
// CHECK-NEXT:  "buffer.constant"() {name = "c", offset = 0 : i64
// CHECK-NEXT:  "buffer.alloc"() {name = "a", offset = 0 : i64}
// CHECK-NEXT:  "buffer.relu"
// CHECK-NEXT:  "buffer.alloc"() {name = "b", offset = 320 : i64}
// CHECK-NEXT:  "buffer.add"
// CHECK-NEXT:  "buffer.dealloc"
// CHECK-NEXT:  "buffer.alloc"() {name = "d", offset = 0 : i64}
// CHECK-NEXT:  "buffer.view"{{.*}}{byte_offset = 0 : i64}
func.func @main() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<1x40xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<1x40xf32>
  %c = "buffer.constant"() {name = "c", value = dense<1.0> : tensor<1x40xf32>, offset = -1 : i64} : () -> memref<1x40xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<1x40xf32>
  "buffer.relu"(%a, %x) : (memref<1x40xf32>, memref<1x40xf32>) -> ()
  %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<1x40xf32>
  "buffer.add"(%b, %a, %c) : (memref<1x40xf32>, memref<1x40xf32>, memref<1x40xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<1x40xf32>) -> ()
  %d = "buffer.alloc"() {name = "d", offset = -1 : i64} : () -> memref<1x80xf32>
  %v = "buffer.view"(%d) {byte_offset = 0 : i64} : (memref<1x80xf32>) -> memref<1x40xf32>
  "buffer.neg"(%v, %b) : (memref<1x40xf32>, memref<1x40xf32>) -> ()
  "buffer.dealloc"(%b) : (memref<1x40xf32>) -> ()
  "buffer.copy"(%y, %v) : (memref<1x40xf32>, memref<1x40xf32>) -> ()
  "buffer.dealloc"(%d) : (memref<1x80xf32>) -> ()
  return
}

// -----

// Glow's allocateAll example (MemoryAllocatorTest): a and b of 640 bytes,
// free a, c of 1280 bytes, free b, free c. Placing in program order, first
// fit, would put c above b (2560 bytes); placing the largest buffer first
// reaches the lower bound of 1920 bytes (b and c live together).

// CHECK-LABEL: module attributes
// CHECK-SAME:    buffer.activation_bytes = 1920 : i64
// CHECK-SAME:    buffer.activation_lower_bound_bytes = 1920 : i64
// CHECK:       "buffer.alloc"() {name = "a", offset = 0 : i64}
// CHECK:       "buffer.alloc"() {name = "b", offset = 1280 : i64}
// CHECK:       "buffer.alloc"() {name = "c", offset = 0 : i64}
func.func @main() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<160xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<320xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<160xf32>
  "buffer.relu"(%a, %x) : (memref<160xf32>, memref<160xf32>) -> ()
  %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<160xf32>
  "buffer.neg"(%b, %a) : (memref<160xf32>, memref<160xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<160xf32>) -> ()
  %c = "buffer.alloc"() {name = "c", offset = -1 : i64} : () -> memref<320xf32>
  "buffer.concat"(%c, %b, %b) {axis = 0 : i64} : (memref<320xf32>, memref<160xf32>, memref<160xf32>) -> ()
  "buffer.dealloc"(%b) : (memref<160xf32>) -> ()
  "buffer.copy"(%y, %c) : (memref<320xf32>, memref<320xf32>) -> ()
  "buffer.dealloc"(%c) : (memref<320xf32>) -> ()
  return
}

// -----

// Two allocs live at the same time never share bytes, even when they would
// fit in the same place: the second goes above the first.

// CHECK-LABEL: module attributes
// CHECK-SAME:    buffer.activation_bytes = 128 : i64
// CHECK:       "buffer.alloc"() {name = "a", offset = 0 : i64}
// CHECK:       "buffer.alloc"() {name = "b", offset = 64 : i64}
func.func @main() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<4xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<4xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<4xf32>
  "buffer.relu"(%a, %x) : (memref<4xf32>, memref<4xf32>) -> ()
  %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<4xf32>
  "buffer.exp"(%b, %x) : (memref<4xf32>, memref<4xf32>) -> ()
  "buffer.add"(%y, %a, %b) : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<4xf32>) -> ()
  "buffer.dealloc"(%b) : (memref<4xf32>) -> ()
  return
}

// -----

// Nothing to place in the activation region: its size is 0. A planned
// module is planned again from scratch (the stale offsets go), and a
// read-only weight sits in the read-only region with the constants.

// CHECK-LABEL: module attributes
// CHECK-SAME:    buffer.activation_bytes = 0 : i64
// CHECK-SAME:    buffer.activation_lower_bound_bytes = 0 : i64
// CHECK-SAME:    buffer.constant_bytes = 128 : i64
// CHECK-SAME:    buffer.mutable_bytes = 64 : i64
// CHECK:       "buffer.weight"() {mutable = false, name = "w", offset = 0 : i64
// CHECK-NEXT:  "buffer.constant"() {name = "c", offset = 64 : i64
// CHECK-NEXT:  "buffer.weight"() {mutable = true, name = "y", offset = 0 : i64
module attributes {buffer.activation_bytes = 9000 : i64, buffer.activation_lower_bound_bytes = 9000 : i64,
                   buffer.constant_bytes = 9000 : i64, buffer.mutable_bytes = 9000 : i64} {
  func.func @main() {
    %w = "buffer.weight"() {name = "w", mutable = false, public = false, offset = 4096 : i64} : () -> memref<4xf32>
    %c = "buffer.constant"() {name = "c", value = dense<1.0> : tensor<4xf32>, offset = 128 : i64} : () -> memref<4xf32>
    %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = 64 : i64} : () -> memref<4xf32>
    "buffer.add"(%y, %w, %c) : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
    return
  }
}
