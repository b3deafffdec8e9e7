// RUN: lamina-opt %s --split-input-file --verify-diagnostics

// One case per verification rule of the buffer dialect: the shape rules of
// each op (lamina/dialects/buffer.py, checked op by op) and the whole-function rules
// of lamina/dialects/buffer_verifier.py (writes, lifetimes, aliasing, placement).

// --- Shape rules, op by op ---

func.func @instruction_destination_type() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2x3xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<3x2xf32>
  // expected-error @+1 {{destination tensor<3x2xf32> does not have the result type tensor<2x3xf32> of graph.relu}}
  "buffer.relu"(%a, %x) : (memref<3x2xf32>, memref<2x3xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<3x2xf32>) -> ()
  return
}

// -----

func.func @instruction_operands() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2x3xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<3x3xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2x3xf32>
  // expected-error @+1 {{'buffer.add' op}}
  "buffer.add"(%a, %x, %y) : (memref<2x3xf32>, memref<2x3xf32>, memref<3x3xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2x3xf32>) -> ()
  return
}

// -----

func.func @copy_types() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2x3xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<6xf32>
  // expected-error @+1 {{copy needs buffers of one type}}
  "buffer.copy"(%y, %x) : (memref<6xf32>, memref<2x3xf32>) -> ()
  return
}

// -----

func.func @view_out_of_bounds() {
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2x3xf32>
  // expected-error @+1 {{view of 16 bytes at byte 16 does not fit in a buffer of 24 bytes}}
  %v = "buffer.view"(%a) {byte_offset = 16 : i64} : (memref<2x3xf32>) -> memref<4xf32>
  "buffer.dealloc"(%a) : (memref<2x3xf32>) -> ()
  return
}

// -----

func.func @view_element_type() {
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2x3xf32>
  // expected-error @+1 {{a view keeps the element type}}
  %v = "buffer.view"(%a) {byte_offset = 0 : i64} : (memref<2x3xf32>) -> memref<6xi32>
  "buffer.dealloc"(%a) : (memref<2x3xf32>) -> ()
  return
}

// -----

func.func @constant_type() {
  // expected-error @+1 {{result type mismatch: expected tensor<2xf32>, got tensor<3xf32>}}
  %c = "buffer.constant"() {name = "c", value = dense<1.0> : tensor<2xf32>, offset = -1 : i64} : () -> memref<3xf32>
  return
}

// -----

func.func @not_a_memref() {
  // expected-error @+1 {{expected base type 'builtin.memref' but got 'builtin.tensor'}}
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> tensor<2xf32>
  return
}

// --- Writes go to writable buffers ---

// -----

func.func @write_constant() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %c = "buffer.constant"() {name = "c", value = dense<1.0> : tensor<2xf32>, offset = -1 : i64} : () -> memref<2xf32>
  // expected-error @+1 {{writes read-only buffer 'c'}}
  "buffer.relu"(%c, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  return
}

// -----

// Through a view, and by a copy: still a write.
func.func @write_constant_through_view() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %c = "buffer.constant"() {name = "c", value = dense<1.0> : tensor<2x2xf32>, offset = -1 : i64} : () -> memref<2x2xf32>
  %v = "buffer.view"(%c) {byte_offset = 8 : i64} : (memref<2x2xf32>) -> memref<2xf32>
  // expected-error @+1 {{writes read-only buffer 'c'}}
  "buffer.copy"(%v, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  return
}

// -----

func.func @write_immutable_weight() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %w = "buffer.weight"() {name = "w", mutable = false, public = false, offset = -1 : i64} : () -> memref<2xf32>
  // expected-error @+1 {{writes read-only buffer 'w'}}
  "buffer.neg"(%w, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  return
}

// --- Lifetimes ---

// -----

func.func @use_after_dealloc() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.relu"(%a, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2xf32>) -> ()
  // expected-error @+1 {{uses buffer 'a' after its dealloc}}
  "buffer.copy"(%y, %a) : (memref<2xf32>, memref<2xf32>) -> ()
  return
}

// -----

// A view's uses are uses of its root buffer.
func.func @view_used_after_dealloc() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2x2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<4xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2x2xf32>
  "buffer.relu"(%a, %x) : (memref<2x2xf32>, memref<2x2xf32>) -> ()
  %v = "buffer.view"(%a) {byte_offset = 0 : i64} : (memref<2x2xf32>) -> memref<4xf32>
  "buffer.dealloc"(%a) : (memref<2x2xf32>) -> ()
  // expected-error @+1 {{uses buffer 'a' after its dealloc}}
  "buffer.copy"(%y, %v) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

// Creating a view of a dead buffer is a use too.
func.func @view_created_after_dealloc() {
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2x2xf32>
  "buffer.dealloc"(%a) : (memref<2x2xf32>) -> ()
  // expected-error @+1 {{uses buffer 'a' after its dealloc}}
  %v = "buffer.view"(%a) {byte_offset = 0 : i64} : (memref<2x2xf32>) -> memref<4xf32>
  return
}

// -----

func.func @dealloc_twice() {
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.dealloc"(%a) : (memref<2xf32>) -> ()
  // expected-error @+1 {{deallocates buffer 'a' a second time}}
  "buffer.dealloc"(%a) : (memref<2xf32>) -> ()
  return
}

// -----

func.func @dealloc_weight() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  // expected-error @+1 {{deallocates a weight, not a 'buffer.alloc'}}
  "buffer.dealloc"(%x) : (memref<2xf32>) -> ()
  return
}

// -----

// A view is deallocated through its root buffer only.
func.func @dealloc_view() {
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2x2xf32>
  %v = "buffer.view"(%a) {byte_offset = 0 : i64} : (memref<2x2xf32>) -> memref<4xf32>
  // expected-error @+1 {{deallocates a view, not a 'buffer.alloc'}}
  "buffer.dealloc"(%v) : (memref<4xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2x2xf32>) -> ()
  return
}

// -----

func.func @missing_dealloc() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  // expected-error @+1 {{buffer 'a' is never deallocated}}
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.relu"(%a, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  return
}

// --- In place: only element-wise instructions, on exactly the bytes they read ---

// -----

func.func @matmul_in_place() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2x2xf32>
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2x2xf32>
  "buffer.relu"(%a, %x) : (memref<2x2xf32>, memref<2x2xf32>) -> ()
  // expected-error @+1 {{operand #1 reads bytes of 'a' that operand #0 writes; only element-wise instructions run in place}}
  "buffer.matmul"(%a, %a, %x) : (memref<2x2xf32>, memref<2x2xf32>, memref<2x2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2x2xf32>) -> ()
  return
}

// -----

// Element-wise, but shifted by one element: each write clobbers a later read.
func.func @shifted_in_place() {
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<3xf32>
  %lo = "buffer.view"(%a) {byte_offset = 0 : i64} : (memref<3xf32>) -> memref<2xf32>
  %hi = "buffer.view"(%a) {byte_offset = 4 : i64} : (memref<3xf32>) -> memref<2xf32>
  // expected-error @+1 {{operand #1 reads bytes of 'a' that operand #0 writes}}
  "buffer.neg"(%hi, %lo) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<3xf32>) -> ()
  return
}

// --- The memory plan ---

// -----

module attributes {buffer.activation_bytes = 192 : i64, buffer.mutable_bytes = 128 : i64} {
  func.func @overlapping_allocs() {
    %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = 0 : i64} : () -> memref<16xf32>
    %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = 64 : i64} : () -> memref<16xf32>
    %a = "buffer.alloc"() {name = "a", offset = 0 : i64} : () -> memref<32xf32>
    %lo = "buffer.view"(%a) {byte_offset = 0 : i64} : (memref<32xf32>) -> memref<16xf32>
    "buffer.relu"(%lo, %x) : (memref<16xf32>, memref<16xf32>) -> ()
    // `a` is still live: its bytes cannot be reused yet.
    // expected-error @+1 {{bytes [64, 128) overlap those of 'a' ([0, 128) in 'buffer.activation_bytes'), which is live at the same time}}
    %b = "buffer.alloc"() {name = "b", offset = 64 : i64} : () -> memref<16xf32>
    "buffer.neg"(%b, %lo) : (memref<16xf32>, memref<16xf32>) -> ()
    "buffer.dealloc"(%a) : (memref<32xf32>) -> ()
    "buffer.copy"(%y, %b) : (memref<16xf32>, memref<16xf32>) -> ()
    "buffer.dealloc"(%b) : (memref<16xf32>) -> ()
    return
  }
}

// -----

// Not an error: `b` starts after `a`'s dealloc, so it may take `a`'s bytes.
module attributes {buffer.activation_bytes = 64 : i64, buffer.mutable_bytes = 128 : i64} {
  func.func @reuse_after_dealloc() {
    %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = 0 : i64} : () -> memref<16xf32>
    %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = 64 : i64} : () -> memref<16xf32>
    %a = "buffer.alloc"() {name = "a", offset = 0 : i64} : () -> memref<16xf32>
    "buffer.relu"(%a, %x) : (memref<16xf32>, memref<16xf32>) -> ()
    "buffer.copy"(%y, %a) : (memref<16xf32>, memref<16xf32>) -> ()
    "buffer.dealloc"(%a) : (memref<16xf32>) -> ()
    %b = "buffer.alloc"() {name = "b", offset = 0 : i64} : () -> memref<16xf32>
    "buffer.neg"(%b, %y) : (memref<16xf32>, memref<16xf32>) -> ()
    "buffer.copy"(%y, %b) : (memref<16xf32>, memref<16xf32>) -> ()
    "buffer.dealloc"(%b) : (memref<16xf32>) -> ()
    return
  }
}

// -----

// Weights live through the whole program: two in one region never share bytes.
module attributes {buffer.mutable_bytes = 192 : i64} {
  func.func @overlapping_weights() {
    %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = 0 : i64} : () -> memref<32xf32>
    // expected-error @+1 {{bytes [64, 192) overlap those of 'x' ([0, 128) in 'buffer.mutable_bytes')}}
    %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = 64 : i64} : () -> memref<32xf32>
    "buffer.copy"(%y, %x) : (memref<32xf32>, memref<32xf32>) -> ()
    return
  }
}

// -----

module attributes {buffer.constant_bytes = 64 : i64} {
  func.func @beyond_region() {
    // expected-error @+1 {{bytes [64, 72) do not fit in the 64 bytes of 'buffer.constant_bytes'}}
    %c = "buffer.constant"() {name = "c", value = dense<1.0> : tensor<2xf32>, offset = 64 : i64} : () -> memref<2xf32>
    return
  }
}

// -----

module attributes {buffer.activation_bytes = 128 : i64} {
  func.func @misaligned() {
    // expected-error @+1 {{offset 8 is not a multiple of 64 bytes}}
    %a = "buffer.alloc"() {name = "a", offset = 8 : i64} : () -> memref<2xf32>
    "buffer.dealloc"(%a) : (memref<2xf32>) -> ()
    return
  }
}

// -----

// A planned offset needs the size of its region on the module.
func.func @region_size_missing() {
  // expected-error @+1 {{is placed at offset 0 but the module records no 'buffer.activation_bytes'}}
  %a = "buffer.alloc"() {name = "a", offset = 0 : i64} : () -> memref<2xf32>
  "buffer.dealloc"(%a) : (memref<2xf32>) -> ()
  return
}

// -----

module attributes {buffer.constant_bytes = "64"} {
  func.func @region_size_of_the_wrong_type() {
    // expected-error @+1 {{module attribute 'buffer.constant_bytes' must be an integer byte size, got "64"}}
    %c = "buffer.constant"() {name = "c", value = dense<1.0> : tensor<2xf32>, offset = 0 : i64} : () -> memref<2xf32>
    return
  }
}
