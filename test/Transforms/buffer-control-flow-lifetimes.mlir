// RUN: lamina-opt %s --pass-pipeline='builtin.module(buffer-hoist-deallocs)' | FileCheck %s --check-prefix=HOIST
// RUN: lamina-opt %s --pass-pipeline='builtin.module(buffer-sink-allocs)' | FileCheck %s --check-prefix=SINK

// Lifetimes around a loop. `h` is carried: it is read and rewritten by every
// iteration. `s` is written inside the body and read after the loop. A use
// inside the body is a use by the loop: `h`'s and `s`'s deallocs go after
// the loop, not after their last use inside the body (the body would free
// them at the first iteration), and `s`'s alloc goes right before the loop,
// not into the body (it would be allocated anew every iteration). Inside the
// body both passes fire on the body's own `t`: freed right after its last
// use there, allocated right before its first.

// HOIST-LABEL: func.func @carried_lives_across_the_loop()
// HOIST:        %[[S:.*]] = "buffer.alloc"() {name = "s"
// HOIST-NEXT:   %[[H:.*]] = "buffer.alloc"() {name = "h"
// HOIST:        "buffer.loop"
// HOIST-NEXT:     %[[T:.*]] = "buffer.alloc"() {name = "t"
// HOIST-NEXT:     "buffer.add"(%[[T]], %[[H]], %{{.*}})
// HOIST-NEXT:     "buffer.tanh"(%[[H]], %[[T]])
// HOIST-NEXT:     "buffer.dealloc"(%[[T]])
// HOIST-NEXT:     "buffer.relu"(%[[S]], %{{.*}})
// HOIST-NEXT:     gpu.yield
// HOIST-NEXT:   })
// HOIST-NEXT:   "buffer.dealloc"
// HOIST-NEXT:   "buffer.dealloc"
// HOIST-NEXT:   "buffer.copy"(%{{.*}}, %[[S]])
// HOIST-NEXT:   "buffer.dealloc"(%[[S]])
// HOIST-NEXT:   "buffer.copy"(%{{.*}}, %[[H]])
// HOIST-NEXT:   "buffer.dealloc"(%[[H]])
// HOIST-NEXT:   return

// SINK-LABEL: func.func @carried_lives_across_the_loop()
// SINK:         %[[H:.*]] = "buffer.alloc"() {name = "h"
// SINK-NEXT:    "buffer.copy"(%[[H]], %{{.*}})
// SINK-NEXT:    %[[I:.*]] = "buffer.alloc"() {name = "i"
// SINK-NEXT:    %[[S:.*]] = "buffer.alloc"() {name = "s"
// SINK-NEXT:    "buffer.loop"(%{{.*}}, %{{.*}}, %[[I]], %[[H]])
// SINK-NEXT:      %[[T:.*]] = "buffer.alloc"() {name = "t"
// SINK-NEXT:      "buffer.add"(%[[T]], %[[H]], %{{.*}})
// SINK-NEXT:      "buffer.tanh"(%[[H]], %[[T]])
// SINK-NEXT:      "buffer.relu"(%[[S]], %{{.*}})
// SINK-NEXT:      "buffer.dealloc"(%[[T]])
// SINK-NEXT:      gpu.yield

func.func @carried_lives_across_the_loop() {
  %n = "buffer.constant"() {name = "n", offset = -1 : i64, value = dense<3> : tensor<i64>} : () -> memref<i64>
  %on = "buffer.constant"() {name = "on", offset = -1 : i64, value = dense<true> : tensor<i1>} : () -> memref<i1>
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %c = "buffer.alloc"() {name = "c", offset = -1 : i64} : () -> memref<i1>
  "buffer.copy"(%c, %on) : (memref<i1>, memref<i1>) -> ()
  %i = "buffer.alloc"() {name = "i", offset = -1 : i64} : () -> memref<i64>
  %s = "buffer.alloc"() {name = "s", offset = -1 : i64} : () -> memref<2xf32>
  %h = "buffer.alloc"() {name = "h", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.copy"(%h, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.loop"(%n, %c, %i, %h) ({
    %t = "buffer.alloc"() {name = "t", offset = -1 : i64} : () -> memref<2xf32>
    "buffer.add"(%t, %h, %x) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
    "buffer.tanh"(%h, %t) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.relu"(%s, %x) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.dealloc"(%t) : (memref<2xf32>) -> ()
    gpu.yield
  }) {num_scan_outputs = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i64>, memref<i1>, memref<i64>, memref<2xf32>) -> ()
  "buffer.copy"(%y, %s) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.copy"(%y, %h) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%s) : (memref<2xf32>) -> ()
  "buffer.dealloc"(%h) : (memref<2xf32>) -> ()
  "buffer.dealloc"(%c) : (memref<i1>) -> ()
  "buffer.dealloc"(%i) : (memref<i64>) -> ()
  return
}
