// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-buffer)' | FileCheck %s

// IRGen of control flow (lamina/passes/conversion/graph_to_buffer_regions.py).
// A loop's condition, iteration number, carried values and scan outputs get
// buffers allocated before it and freed after it; the initial values are
// copied in. The body's own allocs are freed at its end, after it copies
// what it yields into those buffers (a scan output: into the slice, the
// block argument). Here the body swaps its carried values and stacks the old
// `x`: sources that are themselves carried buffers go through temporaries
// first, so every read happens before any write. The condition yielded
// unchanged is not copied.

// CHECK-LABEL: func.func @loop_swaps()
// CHECK:      %[[A:.*]] = "buffer.weight"() {mutable = true, name = "a"
// CHECK:      %[[B:.*]] = "buffer.weight"() {mutable = true, name = "b"
// CHECK:      %[[COND:.*]] = "buffer.alloc"() {name = "loop"
// CHECK-NEXT: "buffer.copy"(%[[COND]], %{{.*}})
// CHECK-NEXT: %[[ITER:.*]] = "buffer.alloc"() {name = "loop.1"
// CHECK-NEXT: %[[X:.*]] = "buffer.alloc"() {name = "loop.2"
// CHECK-NEXT: "buffer.copy"(%[[X]], %[[A]])
// CHECK-NEXT: %[[Y:.*]] = "buffer.alloc"() {name = "loop.3"
// CHECK-NEXT: "buffer.copy"(%[[Y]], %[[B]])
// CHECK-NEXT: %[[XS:.*]] = "buffer.alloc"() {name = "loop.4"
// CHECK-NEXT: "buffer.loop"(%{{.*}}, %[[COND]], %[[ITER]], %[[X]], %[[Y]], %[[XS]]) ({
// CHECK-NEXT: ^bb0(%[[SLICE:.*]]: memref<2xf32>):
// CHECK-NEXT:   %[[SUM:.*]] = "buffer.alloc"() {name = "add"
// CHECK-NEXT:   "buffer.add"(%[[SUM]], %[[X]], %[[A]])
// CHECK-NEXT:   %[[OLDY:.*]] = "buffer.alloc"()
// CHECK-NEXT:   "buffer.copy"(%[[OLDY]], %[[Y]])
// CHECK-NEXT:   %[[OLDX:.*]] = "buffer.alloc"()
// CHECK-NEXT:   "buffer.copy"(%[[OLDX]], %[[X]])
// CHECK-NEXT:   "buffer.copy"(%[[X]], %[[OLDY]])
// CHECK-NEXT:   "buffer.copy"(%[[Y]], %[[SUM]])
// CHECK-NEXT:   "buffer.copy"(%[[SLICE]], %[[OLDX]])
// CHECK-NEXT:   "buffer.dealloc"(%[[SUM]])
// CHECK-NEXT:   "buffer.dealloc"(%[[OLDY]])
// CHECK-NEXT:   "buffer.dealloc"(%[[OLDX]])
// CHECK-NEXT:   gpu.yield
// CHECK-NEXT: }) {num_scan_outputs = 1 : i64
// CHECK-NEXT: "buffer.copy"(%{{.*}}, %[[X]])
// CHECK-NEXT: "buffer.copy"(%{{.*}}, %[[XS]])
// CHECK:      "buffer.dealloc"(%[[X]])
// CHECK-NEXT: "buffer.dealloc"(%[[Y]])
// CHECK-NEXT: "buffer.dealloc"(%[[XS]])
// CHECK-NEXT: return

func.func @loop_swaps() {
  %n = "graph.constant"() {value = dense<3> : tensor<i64>} : () -> tensor<i64>
  %t = "graph.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  %a = "graph.placeholder"() {name = "a"} : () -> tensor<2xf32>
  %b = "graph.placeholder"() {name = "b"} : () -> tensor<2xf32>
  %r:3 = "graph.loop"(%n, %t, %a, %b) ({
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>, %y: tensor<2xf32>):
    %s = "graph.add"(%x, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    gpu.yield %c, %y, %s, %x : tensor<i1>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  }) {num_scan_outputs = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<i64>, tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<3x2xf32>)
  "graph.save"(%r#0) {name = "x"} : (tensor<2xf32>) -> ()
  "graph.save"(%r#2) {name = "xs"} : (tensor<3x2xf32>) -> ()
  return
}

// -----

// At the buffer level a scan runs along axis 0 (a slice is contiguous
// bytes): an input scanned along axis 1 is transposed before the op, an
// output stacked along axis 1 after it. The body's constant is declared
// with the function's, as read-only data that lives for the whole run.

// CHECK-LABEL: func.func @scan_along_axis_1()
// CHECK:      %[[X:.*]] = "buffer.weight"() {mutable = true, name = "x"
// CHECK-NEXT: %[[HALF:.*]] = "buffer.constant"() {name = "constant", offset = -1 : i64, value = dense<5.000000e-01>
// CHECK:      %[[STATE:.*]] = "buffer.alloc"() {name = "scan"
// CHECK-NEXT: "buffer.copy"(%[[STATE]], %{{.*}})
// CHECK-NEXT: %[[XT:.*]] = "buffer.alloc"() {name = "scan.1", offset = -1 : i64} : () -> memref<3x2xf32>
// CHECK-NEXT: "buffer.transpose"(%[[XT]], %[[X]]) {perm = array<i64: 1, 0>}
// CHECK-NEXT: %[[YT:.*]] = "buffer.alloc"() {name = "scan.2", offset = -1 : i64} : () -> memref<3x2xf32>
// CHECK-NEXT: "buffer.scan"(%[[STATE]], %[[XT]], %[[YT]]) ({
// CHECK-NEXT: ^bb0(%[[IN:.*]]: memref<2xf32>, %[[OUT:.*]]: memref<2xf32>):
// CHECK:        "buffer.mul"(%{{.*}}, %[[STATE]], %[[HALF]])
// CHECK:        "buffer.add"(%[[NEXT:.*]], %{{.*}}, %[[IN]])
// CHECK-NEXT:   "buffer.copy"(%[[STATE]], %[[NEXT]])
// CHECK-NEXT:   "buffer.copy"(%[[OUT]], %[[NEXT]])
// CHECK:      scan_input_directions = array<i64: 1>, scan_output_directions = array<i64: 0>
// CHECK-NEXT: %[[Y:.*]] = "buffer.alloc"() {name = "scan.3", offset = -1 : i64} : () -> memref<2x3xf32>
// CHECK-NEXT: "buffer.transpose"(%[[Y]], %[[YT]]) {perm = array<i64: 1, 0>}

func.func @scan_along_axis_1() {
  %h = "graph.placeholder"() {name = "h"} : () -> tensor<2xf32>
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %r:2 = "graph.scan"(%h, %x) ({
  ^bb0(%s: tensor<2xf32>, %v: tensor<2xf32>):
    %k = "graph.constant"() {value = dense<0.5> : tensor<2xf32>} : () -> tensor<2xf32>
    %m = "graph.mul"(%s, %k) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %n = "graph.add"(%m, %v) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    gpu.yield %n, %n : tensor<2xf32>, tensor<2xf32>
  }) {num_scan_inputs = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, scan_input_axes = array<i64: 1>, scan_input_directions = array<i64: 1>, scan_output_axes = array<i64: 1>, scan_output_directions = array<i64: 0>} : (tensor<2xf32>, tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2x3xf32>)
  "graph.save"(%r#1) {name = "y"} : (tensor<2x3xf32>) -> ()
  return
}

