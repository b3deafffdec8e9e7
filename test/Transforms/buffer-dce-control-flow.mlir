// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(buffer-dce)' | FileCheck %s

// Dead stores around a loop. A loop writes, in the enclosing block, every
// buffer its body writes there: when nothing reads them after it (here the
// carried `h`, the condition and the iteration number), it is a dead store
// and goes with its body, then the buffers nothing uses.

// CHECK-LABEL: func.func @dead_loop()
// CHECK:       "buffer.weight"() {mutable = true, name = "y"
// CHECK-NEXT:  return

// Inside a body only stores to the body's own buffers can be dead: `exp`'s
// `u` is never read and goes; the copy into the carried `h`, which the
// next iteration and the copy after the loop read, stays, and so does the loop.

// CHECK-LABEL: func.func @live_loop()
// CHECK:        %[[H:.*]] = "buffer.alloc"() {name = "h"
// CHECK:        "buffer.loop"
// CHECK-NEXT:     %[[T:.*]] = "buffer.alloc"() {name = "t"
// CHECK-NEXT:     "buffer.add"(%[[T]], %[[H]], %{{.*}})
// CHECK-NEXT:     "buffer.copy"(%[[H]], %[[T]])
// CHECK-NEXT:     "buffer.dealloc"(%[[T]])
// CHECK-NEXT:     gpu.yield
// CHECK:        "buffer.copy"(%{{.*}}, %[[H]])

func.func @dead_loop() {
  %n = "buffer.constant"() {name = "n", offset = -1 : i64, value = dense<3> : tensor<i64>} : () -> memref<i64>
  %on = "buffer.constant"() {name = "on", offset = -1 : i64, value = dense<true> : tensor<i1>} : () -> memref<i1>
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %c = "buffer.alloc"() {name = "c", offset = -1 : i64} : () -> memref<i1>
  "buffer.copy"(%c, %on) : (memref<i1>, memref<i1>) -> ()
  %i = "buffer.alloc"() {name = "i", offset = -1 : i64} : () -> memref<i64>
  %h = "buffer.alloc"() {name = "h", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.copy"(%h, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.loop"(%n, %c, %i, %h) ({
    %t = "buffer.alloc"() {name = "t", offset = -1 : i64} : () -> memref<2xf32>
    "buffer.add"(%t, %h, %x) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
    "buffer.copy"(%h, %t) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.dealloc"(%t) : (memref<2xf32>) -> ()
    gpu.yield
  }) {num_scan_outputs = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i64>, memref<i1>, memref<i64>, memref<2xf32>) -> ()
  "buffer.dealloc"(%h) : (memref<2xf32>) -> ()
  "buffer.dealloc"(%c) : (memref<i1>) -> ()
  "buffer.dealloc"(%i) : (memref<i64>) -> ()
  return
}

// -----

func.func @live_loop() {
  %n = "buffer.constant"() {name = "n", offset = -1 : i64, value = dense<3> : tensor<i64>} : () -> memref<i64>
  %on = "buffer.constant"() {name = "on", offset = -1 : i64, value = dense<true> : tensor<i1>} : () -> memref<i1>
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %c = "buffer.alloc"() {name = "c", offset = -1 : i64} : () -> memref<i1>
  "buffer.copy"(%c, %on) : (memref<i1>, memref<i1>) -> ()
  %i = "buffer.alloc"() {name = "i", offset = -1 : i64} : () -> memref<i64>
  %h = "buffer.alloc"() {name = "h", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.copy"(%h, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.loop"(%n, %c, %i, %h) ({
    %t = "buffer.alloc"() {name = "t", offset = -1 : i64} : () -> memref<2xf32>
    "buffer.add"(%t, %h, %x) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
    %u = "buffer.alloc"() {name = "u", offset = -1 : i64} : () -> memref<2xf32>
    "buffer.exp"(%u, %t) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.copy"(%h, %t) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.dealloc"(%t) : (memref<2xf32>) -> ()
    "buffer.dealloc"(%u) : (memref<2xf32>) -> ()
    gpu.yield
  }) {num_scan_outputs = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i64>, memref<i1>, memref<i64>, memref<2xf32>) -> ()
  "buffer.copy"(%y, %h) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%h) : (memref<2xf32>) -> ()
  "buffer.dealloc"(%c) : (memref<i1>) -> ()
  "buffer.dealloc"(%i) : (memref<i64>) -> ()
  return
}
