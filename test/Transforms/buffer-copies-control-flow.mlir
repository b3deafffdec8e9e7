// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(buffer-eliminate-copies)' | FileCheck %s --check-prefix=ELIM
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(buffer-copy-propagation)' | FileCheck %s --check-prefix=PROP

// Copies around a loop carrying `h`. A use inside the body is a use by the
// loop, for the whole loop.

// Fired: `s` only fills `h`, so `relu` writes it straight into `h`; and `h`
// is only copied into the output `y` after the loop, which nothing uses
// meanwhile, so the loop carries its value in `y`. The body's copy of its
// next value into the carried buffer stays: `add` reads `h`, and would
// read the value it is computing.

// ELIM-LABEL: func.func @carried_into_the_output()
// ELIM:        %[[Y:.*]] = "buffer.weight"() {mutable = true, name = "y"
// ELIM:        "buffer.relu"(%[[Y]], %{{.*}})
// ELIM-NEXT:   "buffer.loop"(%{{.*}}, %{{.*}}, %{{.*}}, %[[Y]])
// ELIM-NEXT:     %[[T:.*]] = "buffer.alloc"() {name = "t"
// ELIM-NEXT:     "buffer.add"(%[[T]], %[[Y]], %{{.*}})
// ELIM-NEXT:     "buffer.copy"(%[[Y]], %[[T]])
// ELIM-NOT:    "buffer.copy"
// ELIM:        return

// Not fired: `s` is also read inside the body, which rewrites `h` every
// iteration, so `relu` cannot write `s` into `h`; the output `y` is written
// inside the body, so the loop cannot carry `h` in it. (`a`, a copy of `s`
// that nothing writes, does become `s`.)

// ELIM-LABEL: func.func @not_while_the_loop_runs()
// ELIM:        %[[S:.*]] = "buffer.alloc"() {name = "a"
// ELIM-NEXT:   "buffer.relu"(%[[S]], %{{.*}})
// ELIM-NEXT:   %[[H:.*]] = "buffer.alloc"() {name = "h"
// ELIM-NEXT:   "buffer.copy"(%[[H]], %[[S]])
// ELIM:        "buffer.loop"(%{{.*}}, %{{.*}}, %{{.*}}, %[[H]])
// ELIM:          "buffer.add"(%{{.*}}, %[[H]], %[[S]])
// ELIM:          "buffer.copy"(%[[H]], %{{.*}})
// ELIM:        "buffer.copy"(%{{.*}}, %[[H]])

// Propagation fires before the loop and inside the body (a window never
// leaves its block); the loop reads `a` inside its body, which closes the
// window of `copy(a, s)`: its body still reads `a`.

// PROP-LABEL: func.func @carried_into_the_output()
// PROP-LABEL: func.func @not_while_the_loop_runs()
// PROP:        %[[S:.*]] = "buffer.alloc"() {name = "s"
// PROP:        %[[A:.*]] = "buffer.alloc"() {name = "a"
// PROP-NEXT:   "buffer.copy"(%[[A]], %[[S]])
// PROP-NEXT:   %[[B:.*]] = "buffer.alloc"() {name = "b"
// PROP-NEXT:   "buffer.neg"(%[[B]], %[[S]])
// PROP-NEXT:   "buffer.loop"
// PROP-NEXT:     %[[T:.*]] = "buffer.alloc"() {name = "t"
// PROP-NEXT:     "buffer.add"(%[[T]], %{{.*}}, %[[S]])
// PROP-NEXT:     "buffer.mul"(%[[T]], %[[T]], %[[A]])
// PROP-NEXT:     "buffer.copy"(%{{.*}}, %[[T]])
// PROP-NEXT:     "buffer.relu"(%{{.*}}, %[[T]])

func.func @carried_into_the_output() {
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
  "buffer.copy"(%h, %s) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%s) : (memref<2xf32>) -> ()
  "buffer.loop"(%n, %c, %i, %h) ({
    %t = "buffer.alloc"() {name = "t", offset = -1 : i64} : () -> memref<2xf32>
    "buffer.add"(%t, %h, %x) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
    "buffer.copy"(%h, %t) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.dealloc"(%t) : (memref<2xf32>) -> ()
    gpu.yield
  }) {num_scan_outputs = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i64>, memref<i1>, memref<i64>, memref<2xf32>) -> ()
  "buffer.copy"(%y, %h) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%h) : (memref<2xf32>) -> ()
  "buffer.dealloc"(%c) : (memref<i1>) -> ()
  "buffer.dealloc"(%i) : (memref<i64>) -> ()
  return
}

// -----

func.func @not_while_the_loop_runs() {
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
  "buffer.copy"(%h, %s) : (memref<2xf32>, memref<2xf32>) -> ()
  %a = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.copy"(%a, %s) : (memref<2xf32>, memref<2xf32>) -> ()
  %b = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.neg"(%b, %a) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.loop"(%n, %c, %i, %h) ({
    %t = "buffer.alloc"() {name = "t", offset = -1 : i64} : () -> memref<2xf32>
    "buffer.add"(%t, %h, %s) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
    "buffer.mul"(%t, %t, %a) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
    "buffer.copy"(%h, %t) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.relu"(%y, %h) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.dealloc"(%t) : (memref<2xf32>) -> ()
    gpu.yield
  }) {num_scan_outputs = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i64>, memref<i1>, memref<i64>, memref<2xf32>) -> ()
  "buffer.copy"(%y, %h) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.copy"(%y, %b) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.dealloc"(%s) : (memref<2xf32>) -> ()
  "buffer.dealloc"(%h) : (memref<2xf32>) -> ()
  "buffer.dealloc"(%a) : (memref<2xf32>) -> ()
  "buffer.dealloc"(%b) : (memref<2xf32>) -> ()
  "buffer.dealloc"(%c) : (memref<i1>) -> ()
  "buffer.dealloc"(%i) : (memref<i64>) -> ()
  return
}

// -----

// Fired inside a body: `n` is copied into the carried `h` and the body does
// not use `h` between `n`'s producer and the copy (`mul` reads `h` before),
// so `add` computes the next value straight into `h`; `e` goes straight into
// the scan output's slice (the block argument).

// ELIM-LABEL: func.func @next_value_in_place()
// ELIM:        %[[H:.*]] = "buffer.alloc"() {name = "h"
// ELIM:        "buffer.loop"(%{{.*}}, %{{.*}}, %{{.*}}, %[[H]], %{{.*}})
// ELIM-NEXT:   ^bb0(%[[ROW:.*]]: memref<2xf32>):
// ELIM-NEXT:     %[[M:.*]] = "buffer.alloc"() {name = "m"
// ELIM-NEXT:     "buffer.mul"(%[[M]], %[[H]], %{{.*}})
// ELIM-NEXT:     "buffer.add"(%[[H]], %[[M]], %{{.*}})
// ELIM-NEXT:     "buffer.exp"(%[[ROW]], %[[H]])
// ELIM-NEXT:     "buffer.dealloc"(%[[M]])
// ELIM-NEXT:     gpu.yield
func.func @next_value_in_place() {
  %n3 = "buffer.constant"() {name = "n", offset = -1 : i64, value = dense<3> : tensor<i64>} : () -> memref<i64>
  %on = "buffer.constant"() {name = "on", offset = -1 : i64, value = dense<true> : tensor<i1>} : () -> memref<i1>
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<3x2xf32>
  %c = "buffer.alloc"() {name = "c", offset = -1 : i64} : () -> memref<i1>
  "buffer.copy"(%c, %on) : (memref<i1>, memref<i1>) -> ()
  %i = "buffer.alloc"() {name = "i", offset = -1 : i64} : () -> memref<i64>
  %h = "buffer.alloc"() {name = "h", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.copy"(%h, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.loop"(%n3, %c, %i, %h, %y) ({
  ^bb0(%row: memref<2xf32>):
    %m = "buffer.alloc"() {name = "m", offset = -1 : i64} : () -> memref<2xf32>
    "buffer.mul"(%m, %h, %x) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
    %n = "buffer.alloc"() {name = "n", offset = -1 : i64} : () -> memref<2xf32>
    "buffer.add"(%n, %m, %x) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
    %e = "buffer.alloc"() {name = "e", offset = -1 : i64} : () -> memref<2xf32>
    "buffer.exp"(%e, %n) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.copy"(%h, %n) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.copy"(%row, %e) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.dealloc"(%m) : (memref<2xf32>) -> ()
    "buffer.dealloc"(%n) : (memref<2xf32>) -> ()
    "buffer.dealloc"(%e) : (memref<2xf32>) -> ()
    gpu.yield
  }) {num_scan_outputs = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i64>, memref<i1>, memref<i64>, memref<2xf32>, memref<3x2xf32>) -> ()
  "buffer.dealloc"(%c) : (memref<i1>) -> ()
  "buffer.dealloc"(%i) : (memref<i64>) -> ()
  "buffer.dealloc"(%h) : (memref<2xf32>) -> ()
  return
}
