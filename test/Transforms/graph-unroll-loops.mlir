// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-unroll-loops{max-trip-count=4})' | FileCheck %s

// Three iterations that always run: three copies of the body, each reading
// the previous carried value; the scan output is their slices concatenated.

// CHECK-LABEL: func.func @constant_trip_count()
// CHECK-NOT:     "graph.loop"
// CHECK:         %[[X:.*]] = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %[[A:.*]] = "graph.add"(%[[X]], %[[X]]) :
// CHECK-NEXT:    %[[B:.*]] = "graph.add"(%[[A]], %[[X]]) :
// CHECK-NEXT:    %[[C:.*]] = "graph.add"(%[[B]], %[[X]]) :
// CHECK:         "graph.concat"
// CHECK:         %[[S:.*]] = "graph.concat"
// CHECK:         "graph.save"(%[[C]]) {name = "last"}
// CHECK-NEXT:    "graph.save"(%[[S]]) {name = "rows"}
func.func @constant_trip_count() {
  %c = "graph.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2xf32>
  %t = "graph.constant"() {value = dense<3> : tensor<i64>} : () -> tensor<i64>
  %0:2 = "graph.loop"(%t, %c, %x) ({
  ^bb0(%i: tensor<i64>, %k: tensor<i1>, %v: tensor<2xf32>):
    %1 = "graph.add"(%v, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    gpu.yield %k, %1, %1 : tensor<i1>, tensor<2xf32>, tensor<2xf32>
  }) {num_scan_outputs = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>)
  "graph.save"(%0#0) {name = "last"} : (tensor<2xf32>) -> ()
  "graph.save"(%0#1) {name = "rows"} : (tensor<3x2xf32>) -> ()
  return
}

// -----

// More iterations than max-trip-count, or a body that may stop early: the loop stays.

// CHECK-LABEL: func.func @not_unrolled()
// CHECK-COUNT-2: "graph.loop"
func.func @not_unrolled() {
  %c = "graph.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2xf32>
  %t = "graph.constant"() {value = dense<5> : tensor<i64>} : () -> tensor<i64>
  %0 = "graph.loop"(%t, %c, %x) ({
  ^bb0(%i: tensor<i64>, %k: tensor<i1>, %v: tensor<2xf32>):
    gpu.yield %k, %v : tensor<i1>, tensor<2xf32>
  }) {num_scan_outputs = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  %s = "graph.constant"() {value = dense<2> : tensor<i64>} : () -> tensor<i64>
  %1 = "graph.loop"(%s, %c, %0) ({
  ^bb0(%i: tensor<i64>, %k: tensor<i1>, %v: tensor<2xf32>):
    %z = "graph.constant"() {value = dense<0.0> : tensor<2xf32>} : () -> tensor<2xf32>
    %more = "graph.less"(%v, %z) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %first = "graph.slice"(%more) {starts = array<i64: 0>, ends = array<i64: 1>, steps = array<i64: 1>} : (tensor<2xi1>) -> tensor<1xi1>
    %flag = "graph.reshape"(%first) : (tensor<1xi1>) -> tensor<i1>
    gpu.yield %flag, %v : tensor<i1>, tensor<2xf32>
  }) {num_scan_outputs = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  "graph.save"(%1) {name = "y"} : (tensor<2xf32>) -> ()
  return
}
