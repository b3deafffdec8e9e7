// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-linalg)' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-linalg)' | mlir-opt --split-input-file | FileCheck %s --check-prefix=UPSTREAM

// Element-wise ops become identity-mapped, all-parallel linalg.generic ops
// whose body follows the reference kernel; upstream mlir-opt, without any
// Lamina dialect, reads the result.

// CHECK-DAG:   #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @relu_div(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3xf32>, %[[I:.*]]: tensor<4xi32>) -> (tensor<2x3xf32>, tensor<4xi32>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK:         %[[RELU:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : tensor<2x3xf32>) outs(%[[E]] : tensor<2x3xf32>)
// CHECK:           arith.maximumf
// CHECK:         %[[DIV:.*]] = linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins(%[[I]], %[[I]] : tensor<4xi32>, tensor<4xi32>)
// Integer division: x / 0 is 0 and MIN / -1 wraps instead of trapping.
// CHECK:           %[[BY_ZERO:.*]] = arith.cmpi eq, %[[RHS:.*]], %c0_i32
// CHECK:           %[[BY_MINUS_ONE:.*]] = arith.cmpi eq, %[[RHS]], %c-1_i32
// CHECK:           %[[SAFE:.*]] = arith.select {{.*}}, %c1_i32, %[[RHS]]
// CHECK:           arith.divsi {{.*}}, %[[SAFE]]
// CHECK:         return %[[RELU]], %[[DIV]]
// UPSTREAM-LABEL: func.func @relu_div(
// UPSTREAM-NOT:  graph.
func.func @relu_div() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32> loc("x")
  %1 = "graph.relu"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("relu")
  %2 = "graph.placeholder"() {name = "i"} : () -> tensor<4xi32> loc("i")
  %3 = "graph.div"(%2, %2) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32> loc("div")
  "graph.save"(%1) {name = "y"} : (tensor<2x3xf32>) -> () loc("y")
  "graph.save"(%3) {name = "q"} : (tensor<4xi32>) -> () loc("q")
  return
}

// -----

// GELU (erf form) is one generic with math.erf in its body; converting
// f32 to i64 truncates (fptosi).

// CHECK-LABEL: func.func @gelu_convert(
// CHECK:         linalg.generic
// CHECK:           math.erf
// CHECK:         linalg.generic
// CHECK:           arith.fptosi {{.*}} : f32 to i64
// CHECK:         } -> tensor<8xi64>
func.func @gelu_convert() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<8xf32> loc("x")
  %1 = "graph.gelu"(%0) {approximate = "none"} : (tensor<8xf32>) -> tensor<8xf32> loc("gelu")
  %2 = "graph.convert"(%1) : (tensor<8xf32>) -> tensor<8xi64> loc("convert")
  "graph.save"(%2) {name = "y"} : (tensor<8xi64>) -> () loc("y")
  return
}

// -----

// Not firing: identity, dropout, a one-input sum and a convert to the same
// type build nothing; the input is the output.

// CHECK-LABEL: func.func @nothing_to_compute(
// CHECK-SAME:      %[[X:.*]]: tensor<3xf32>) -> tensor<3xf32>
// CHECK-NOT:     linalg
// CHECK:         return %[[X]] : tensor<3xf32>
func.func @nothing_to_compute() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<3xf32> loc("x")
  %1 = "graph.identity"(%0) : (tensor<3xf32>) -> tensor<3xf32> loc("identity")
  %2 = "graph.dropout"(%1) {ratio = 0.5 : f32} : (tensor<3xf32>) -> tensor<3xf32> loc("dropout")
  %3 = "graph.sum"(%2) : (tensor<3xf32>) -> tensor<3xf32> loc("sum")
  %4 = "graph.convert"(%3) : (tensor<3xf32>) -> tensor<3xf32> loc("convert")
  "graph.save"(%4) {name = "y"} : (tensor<3xf32>) -> () loc("y")
  return
}
