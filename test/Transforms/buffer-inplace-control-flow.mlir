// RUN: lamina-opt %s --pass-pipeline='builtin.module(buffer-inplace)' | FileCheck %s

// In-place around a loop. Inside the body, `tanh` runs in place over `t`,
// the body's own buffer that dies there. `neg` does not run over the carried
// `h`, although this is its last use inside the body: the next iteration
// reads it again (only a block's own allocs are candidates). Before the
// loop, `exp` does not run over `s`: the loop body reads `s` later, which
// counts as a use by the loop.

// CHECK-LABEL: func.func @in_place_in_a_body()
// CHECK:        %[[S:.*]] = "buffer.alloc"() {name = "s"
// CHECK-NEXT:   "buffer.relu"(%[[S]], %{{.*}})
// CHECK-NEXT:   %[[E:.*]] = "buffer.alloc"() {name = "e"
// CHECK-NEXT:   "buffer.exp"(%[[E]], %[[S]])
// CHECK:        %[[H:.*]] = "buffer.alloc"() {name = "h"
// CHECK:        "buffer.loop"
// CHECK-NEXT:     %[[T:.*]] = "buffer.alloc"() {name = "t"
// CHECK-NEXT:     "buffer.neg"(%[[T]], %[[H]])
// CHECK-NEXT:     "buffer.tanh"(%[[T]], %[[T]])
// CHECK-NEXT:     "buffer.add"(%[[H]], %[[T]], %[[S]])
// CHECK-NEXT:     "buffer.dealloc"(%[[T]])
// CHECK-NEXT:     gpu.yield

func.func @in_place_in_a_body() {
  %n = "buffer.constant"() {name = "n", offset = -1 : i64, value = dense<3> : tensor<i64>} : () -> memref<i64>
  %on = "buffer.constant"() {name = "on", offset = -1 : i64, value = dense<true> : tensor<i1>} : () -> memref<i1>
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %c = "buffer.alloc"() {name = "c", offset = -1 : i64} : () -> memref<i1>
  "buffer.copy"(%c, %on) : (memref<i1>, memref<i1>) -> ()
  %i = "buffer.alloc"() {name = "i", offset = -1 : i64} : () -> memref<i64>
  %s = "buffer.alloc"() {name = "s", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.relu"(%s, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  %e = "buffer.alloc"() {name = "e", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.exp"(%e, %s) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.copy"(%y, %e) : (memref<2xf32>, memref<2xf32>) -> ()
  %h = "buffer.alloc"() {name = "h", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.copy"(%h, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.loop"(%n, %c, %i, %h) ({
    %t = "buffer.alloc"() {name = "t", offset = -1 : i64} : () -> memref<2xf32>
    "buffer.neg"(%t, %h) : (memref<2xf32>, memref<2xf32>) -> ()
    %u = "buffer.alloc"() {name = "u", offset = -1 : i64} : () -> memref<2xf32>
    "buffer.tanh"(%u, %t) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.add"(%h, %u, %s) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
    "buffer.dealloc"(%t) : (memref<2xf32>) -> ()
    "buffer.dealloc"(%u) : (memref<2xf32>) -> ()
    gpu.yield
  }) {num_scan_outputs = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i64>, memref<i1>, memref<i64>, memref<2xf32>) -> ()
  "buffer.copy"(%y, %h) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%s) : (memref<2xf32>) -> ()
  "buffer.dealloc"(%e) : (memref<2xf32>) -> ()
  "buffer.dealloc"(%h) : (memref<2xf32>) -> ()
  "buffer.dealloc"(%c) : (memref<i1>) -> ()
  "buffer.dealloc"(%i) : (memref<i64>) -> ()
  return
}
