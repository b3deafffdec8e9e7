// RUN: lamina-opt %s --pass-pipeline='builtin.module(buffer-share)' | FileCheck %s

// Sharing around a loop. Each block shares among its own allocs. Inside the
// body, `w` takes `v` (freed before it). `v` does not take the carried `h`,
// although `h`'s last use inside the body comes before `v`'s alloc: `h` is
// read again by the next iteration, and its dealloc is after the loop. After
// the loop, `after` takes `h`.

// CHECK-LABEL: func.func @share_around_a_loop()
// CHECK:        %[[H:.*]] = "buffer.alloc"() {name = "h"
// CHECK:        "buffer.loop"(%{{.*}}, %{{.*}}, %{{.*}}, %[[H]])
// CHECK-NEXT:     "buffer.relu"(%[[H]], %[[H]])
// CHECK-NEXT:     %[[V:.*]] = "buffer.alloc"() {name = "v"
// CHECK-NEXT:     "buffer.neg"(%[[V]], %{{.*}})
// CHECK-NEXT:     "buffer.copy"(%{{.*}}, %[[V]])
// CHECK-NEXT:     "buffer.exp"(%[[V]], %{{.*}})
// CHECK-NEXT:     "buffer.copy"(%{{.*}}, %[[V]])
// CHECK-NEXT:     "buffer.dealloc"(%[[V]])
// CHECK-NEXT:     gpu.yield
// CHECK:        "buffer.neg"(%[[H]], %{{.*}})
// CHECK-NEXT:   "buffer.copy"(%{{.*}}, %[[H]])
// CHECK-NEXT:   "buffer.dealloc"(%[[H]])
// CHECK-NOT:    "buffer.alloc"

func.func @share_around_a_loop() {
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
    "buffer.relu"(%h, %h) : (memref<2xf32>, memref<2xf32>) -> ()
    %v = "buffer.alloc"() {name = "v", offset = -1 : i64} : () -> memref<2xf32>
    "buffer.neg"(%v, %x) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.copy"(%y, %v) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.dealloc"(%v) : (memref<2xf32>) -> ()
    %w = "buffer.alloc"() {name = "w", offset = -1 : i64} : () -> memref<2xf32>
    "buffer.exp"(%w, %x) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.copy"(%y, %w) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.dealloc"(%w) : (memref<2xf32>) -> ()
    gpu.yield
  }) {num_scan_outputs = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i64>, memref<i1>, memref<i64>, memref<2xf32>) -> ()
  "buffer.dealloc"(%h) : (memref<2xf32>) -> ()
  %after = "buffer.alloc"() {name = "after", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.neg"(%after, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.copy"(%y, %after) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%after) : (memref<2xf32>) -> ()
  "buffer.dealloc"(%c) : (memref<i1>) -> ()
  "buffer.dealloc"(%i) : (memref<i64>) -> ()
  return
}
