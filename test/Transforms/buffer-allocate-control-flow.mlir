// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(buffer-allocate)' | FileCheck %s

// Memory planning numbers a region op's ops inside its span. The loop's
// condition `c`, iteration number `i`, carried `h` and `s` (read by the
// body) are allocated before the loop and freed after it: live during every
// iteration, so the body's `t` and `u` get other bytes. `t` and `u` live one
// after the other within an iteration, and share bytes.

// CHECK:       module attributes {buffer.activation_bytes = 320 : i64, buffer.activation_lower_bound_bytes = 320 : i64
// CHECK-LABEL: func.func @offsets_around_a_loop()
// CHECK:        "buffer.alloc"() {name = "c", offset = 0 : i64}
// CHECK:        "buffer.alloc"() {name = "i", offset = 64 : i64}
// CHECK:        "buffer.alloc"() {name = "s", offset = 128 : i64}
// CHECK:        "buffer.alloc"() {name = "h", offset = 192 : i64}
// CHECK:        "buffer.loop"
// CHECK-NEXT:     "buffer.alloc"() {name = "t", offset = 256 : i64}
// CHECK:          "buffer.alloc"() {name = "u", offset = 256 : i64}

// Only one branch of an If runs: each branch's buffers may take the same bytes.

// CHECK-LABEL: func.func @branches_share_bytes()
// CHECK:          "buffer.alloc"() {name = "a", offset = 0 : i64}
// CHECK:          "buffer.alloc"() {name = "b", offset = 0 : i64}

func.func @offsets_around_a_loop() {
  %n = "buffer.constant"() {name = "n", offset = -1 : i64, value = dense<3> : tensor<i64>} : () -> memref<i64>
  %on = "buffer.constant"() {name = "on", offset = -1 : i64, value = dense<true> : tensor<i1>} : () -> memref<i1>
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %c = "buffer.alloc"() {name = "c", offset = -1 : i64} : () -> memref<i1>
  "buffer.copy"(%c, %on) : (memref<i1>, memref<i1>) -> ()
  %i = "buffer.alloc"() {name = "i", offset = -1 : i64} : () -> memref<i64>
  %s = "buffer.alloc"() {name = "s", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.relu"(%s, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  %h = "buffer.alloc"() {name = "h", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.copy"(%h, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.loop"(%n, %c, %i, %h) ({
    %t = "buffer.alloc"() {name = "t", offset = -1 : i64} : () -> memref<2xf32>
    "buffer.add"(%t, %h, %s) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
    "buffer.copy"(%h, %t) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.dealloc"(%t) : (memref<2xf32>) -> ()
    %u = "buffer.alloc"() {name = "u", offset = -1 : i64} : () -> memref<2xf32>
    "buffer.exp"(%u, %h) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.copy"(%y, %u) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.dealloc"(%u) : (memref<2xf32>) -> ()
    gpu.yield
  }) {num_scan_outputs = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i64>, memref<i1>, memref<i64>, memref<2xf32>) -> ()
  "buffer.dealloc"(%s) : (memref<2xf32>) -> ()
  "buffer.copy"(%y, %h) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%h) : (memref<2xf32>) -> ()
  "buffer.dealloc"(%c) : (memref<i1>) -> ()
  "buffer.dealloc"(%i) : (memref<i64>) -> ()
  return
}

// -----

func.func @branches_share_bytes() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %on = "buffer.weight"() {name = "on", mutable = true, public = true, offset = -1 : i64} : () -> memref<i1>
  "buffer.if"(%on, %y) ({
    %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2xf32>
    "buffer.exp"(%a, %x) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.neg"(%y, %a) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.dealloc"(%a) : (memref<2xf32>) -> ()
    gpu.yield
  }, {
    %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<2xf32>
    "buffer.tanh"(%b, %x) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.relu"(%y, %b) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.dealloc"(%b) : (memref<2xf32>) -> ()
    gpu.yield
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i1>, memref<2xf32>) -> ()
  return
}
