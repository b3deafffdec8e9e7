// RUN: lamina-opt %s --split-input-file --verify-diagnostics

// What the buffer dialect's region ops (lamina/dialects/buffer_control_flow.py)
// and the whole-function rules (buffer_verifier.py) reject about control flow.

func.func @if_condition_is_one_bool() {
  %c = "buffer.weight"() {name = "c", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xi1>
  // expected-error @+1 {{condition must be a one-element i1 buffer, got tensor<2xi1>}}
  "buffer.if"(%c) ({
    gpu.yield
  }, {
    gpu.yield
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<2xi1>) -> ()
  return
}

// -----

func.func @regions_yield_nothing() {
  %c = "buffer.weight"() {name = "c", mutable = true, public = true, offset = -1 : i64} : () -> memref<i1>
  // expected-error @+1 {{then_branch ends with a gpu.yield of values; buffer regions write buffers and yield nothing}}
  "buffer.if"(%c) ({
    gpu.yield %c : memref<i1>
  }, {
    gpu.yield
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i1>) -> ()
  return
}

// -----

func.func @loop_body_takes_scan_slices() {
  %n = "buffer.constant"() {name = "n", offset = -1 : i64, value = dense<3> : tensor<i64>} : () -> memref<i64>
  %c = "buffer.weight"() {name = "c", mutable = true, public = true, offset = -1 : i64} : () -> memref<i1>
  %i = "buffer.weight"() {name = "i", mutable = true, public = true, offset = -1 : i64} : () -> memref<i64>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<3x2xf32>
  // expected-error @+1 {{body takes arguments (tensor<2xf32>), its block has (tensor<3xf32>)}}
  "buffer.loop"(%n, %c, %i, %y) ({
  ^bb0(%slice: memref<3xf32>):
    gpu.yield
  }) {num_scan_outputs = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i64>, memref<i1>, memref<i64>, memref<3x2xf32>) -> ()
  return
}

// -----

func.func @scanned_lengths_agree() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<3x2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<4x2xf32>
  // expected-error @+1 {{scanned buffers have different lengths [3, 4] along axis 0}}
  "buffer.scan"(%x, %y) ({
  ^bb0(%a: memref<2xf32>, %b: memref<2xf32>):
    gpu.yield
  }) {num_scan_inputs = 1 : i64, num_scan_outputs = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, scan_input_directions = array<i64: 0>, scan_output_directions = array<i64: 0>} : (memref<3x2xf32>, memref<4x2xf32>) -> ()
  return
}

// -----

// A loop body freeing a buffer of the enclosing block would free it at every
// iteration (and the next iteration would read freed memory).
func.func @dealloc_in_the_allocating_block() {
  %n = "buffer.constant"() {name = "n", offset = -1 : i64, value = dense<3> : tensor<i64>} : () -> memref<i64>
  %c = "buffer.weight"() {name = "c", mutable = true, public = true, offset = -1 : i64} : () -> memref<i1>
  %i = "buffer.weight"() {name = "i", mutable = true, public = true, offset = -1 : i64} : () -> memref<i64>
  %h = "buffer.alloc"() {name = "h", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.loop"(%n, %c, %i, %h) ({
    // expected-error @+1 {{deallocates buffer 'h' inside a region it was not allocated in}}
    "buffer.dealloc"(%h) : (memref<2xf32>) -> ()
    gpu.yield
  }) {num_scan_outputs = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i64>, memref<i1>, memref<i64>, memref<2xf32>) -> ()
  return
}

// -----

// A use inside a region is a use by the region op: `t` is read by the loop
// body after its dealloc.
func.func @region_use_after_dealloc() {
  %n = "buffer.constant"() {name = "n", offset = -1 : i64, value = dense<3> : tensor<i64>} : () -> memref<i64>
  %c = "buffer.weight"() {name = "c", mutable = true, public = true, offset = -1 : i64} : () -> memref<i1>
  %i = "buffer.weight"() {name = "i", mutable = true, public = true, offset = -1 : i64} : () -> memref<i64>
  %h = "buffer.weight"() {name = "h", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %t = "buffer.alloc"() {name = "t", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.relu"(%t, %h) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%t) : (memref<2xf32>) -> ()
  // expected-error @+1 {{uses buffer 't' after its dealloc}}
  "buffer.loop"(%n, %c, %i, %h) ({
    "buffer.add"(%h, %h, %t) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
    gpu.yield
  }) {num_scan_outputs = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i64>, memref<i1>, memref<i64>, memref<2xf32>) -> ()
  return
}

// -----

func.func @regions_write_no_constant() {
  %c = "buffer.weight"() {name = "c", mutable = true, public = true, offset = -1 : i64} : () -> memref<i1>
  %k = "buffer.constant"() {name = "k", offset = -1 : i64, value = dense<1.0> : tensor<2xf32>} : () -> memref<2xf32>
  // expected-error @+1 {{writes read-only buffer 'k'}}
  "buffer.if"(%c) ({
    // expected-error @+1 {{writes read-only buffer 'k'}}
    "buffer.neg"(%k, %k) : (memref<2xf32>, memref<2xf32>) -> ()
    gpu.yield
  }, {
    gpu.yield
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i1>) -> ()
  return
}

// -----

func.func @loop_trip_count_type() {
  %n = "buffer.constant"() {name = "n", offset = -1 : i64, value = dense<3> : tensor<i32>} : () -> memref<i32>
  %c = "buffer.weight"() {name = "c", mutable = true, public = true, offset = -1 : i64} : () -> memref<i1>
  %i = "buffer.weight"() {name = "i", mutable = true, public = true, offset = -1 : i64} : () -> memref<i64>
  // expected-error @+1 {{trip_count must be memref<i64>, got tensor<i32>}}
  "buffer.loop"(%n, %c, %i) ({
    gpu.yield
  }) {num_scan_outputs = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i32>, memref<i1>, memref<i64>) -> ()
  return
}

// -----

func.func @loop_scan_output_count() {
  %n = "buffer.constant"() {name = "n", offset = -1 : i64, value = dense<3> : tensor<i64>} : () -> memref<i64>
  %c = "buffer.weight"() {name = "c", mutable = true, public = true, offset = -1 : i64} : () -> memref<i1>
  %i = "buffer.weight"() {name = "i", mutable = true, public = true, offset = -1 : i64} : () -> memref<i64>
  // expected-error @+1 {{num_scan_outputs 1 does not fit 0 buffers}}
  "buffer.loop"(%n, %c, %i) ({
    gpu.yield
  }) {num_scan_outputs = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i64>, memref<i1>, memref<i64>) -> ()
  return
}

// -----

func.func @scan_directions() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<3x2xf32>
  // expected-error @+1 {{needs one direction per scanned input and scan output}}
  "buffer.scan"(%x) ({
  ^bb0(%a: memref<2xf32>):
    gpu.yield
  }) {num_scan_inputs = 1 : i64, num_scan_outputs = 0 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, scan_input_directions = array<i64: 0, 1>, scan_output_directions = array<i64>} : (memref<3x2xf32>) -> ()
  return
}

// -----

func.func @scan_counts() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<3x2xf32>
  // expected-error @+1 {{num_scan_inputs 1 and num_scan_outputs 1 do not fit 1 buffers}}
  "buffer.scan"(%x) ({
  ^bb0(%a: memref<2xf32>):
    gpu.yield
  }) {num_scan_inputs = 1 : i64, num_scan_outputs = 1 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, scan_input_directions = array<i64: 0>, scan_output_directions = array<i64: 0>} : (memref<3x2xf32>) -> ()
  return
}

// -----

func.func @scanned_buffers_have_an_axis() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<f32>
  // expected-error @+1 {{scanned buffers need a leading axis}}
  "buffer.scan"(%x) ({
  ^bb0(%a: memref<f32>):
    gpu.yield
  }) {num_scan_inputs = 1 : i64, num_scan_outputs = 0 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, scan_input_directions = array<i64: 0>, scan_output_directions = array<i64>} : (memref<f32>) -> ()
  return
}

// -----

func.func @one_block_per_region() {
  %c = "buffer.weight"() {name = "c", mutable = true, public = true, offset = -1 : i64} : () -> memref<i1>
  // expected-error @+1 {{else_branch must have exactly one block, has 2}}
  "buffer.if"(%c) ({
    gpu.yield
  }, {
    gpu.yield
  ^bb1:
    gpu.yield
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i1>) -> ()
  return
}

// -----

func.func @loop_condition_and_iteration_are_scalars() {
  %n = "buffer.constant"() {name = "n", offset = -1 : i64, value = dense<3> : tensor<i64>} : () -> memref<i64>
  %c = "buffer.weight"() {name = "c", mutable = true, public = true, offset = -1 : i64} : () -> memref<1xi1>
  %i = "buffer.weight"() {name = "i", mutable = true, public = true, offset = -1 : i64} : () -> memref<i64>
  // expected-error @+1 {{condition must be memref<i1>, got tensor<1xi1>}}
  "buffer.loop"(%n, %c, %i) ({
    gpu.yield
  }) {num_scan_outputs = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i64>, memref<1xi1>, memref<i64>) -> ()
  %j = "buffer.weight"() {name = "j", mutable = true, public = true, offset = -1 : i64} : () -> memref<i32>
  %d = "buffer.weight"() {name = "d", mutable = true, public = true, offset = -1 : i64} : () -> memref<i1>
  // expected-error @+1 {{iteration must be memref<i64>, got tensor<i32>}}
  "buffer.loop"(%n, %d, %j) ({
    gpu.yield
  }) {num_scan_outputs = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i64>, memref<i1>, memref<i32>) -> ()
  %s = "buffer.weight"() {name = "s", mutable = true, public = true, offset = -1 : i64} : () -> memref<f32>
  // expected-error @+1 {{scan outputs need a leading iteration dimension}}
  "buffer.loop"(%n, %d, %i, %s) ({
    gpu.yield
  }) {num_scan_outputs = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i64>, memref<i1>, memref<i64>, memref<f32>) -> ()
  return
}
