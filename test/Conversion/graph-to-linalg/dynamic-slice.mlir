// RUN: lamina-opt %s --pass-pipeline='builtin.module(convert-graph-to-linalg)' | FileCheck %s
// RUN: lamina-opt %s --pass-pipeline='builtin.module(convert-graph-to-linalg)' | mlir-opt | FileCheck %s

// graph.dynamic_slice is one tensor.extract_slice whose offset is the start
// read from its tensor, a negative start counted from the end, then clamped
// so that the 2 rows, 2 apart, fit the 5 (at most 5 - 2 - 1 = 2).
// CHECK-LABEL: func.func @main
// CHECK:       %[[START:.*]] = tensor.extract %{{.*}}[%{{.*}}] : tensor<1xi64>
// CHECK:       arith.cmpi slt, %[[START]], %{{.*}} : i64
// CHECK:       arith.select
// CHECK:       %[[LOW:.*]] = arith.maxsi
// CHECK:       %[[CLAMPED:.*]] = arith.minsi %[[LOW]], %{{.*}} : i64
// CHECK:       %[[OFFSET:.*]] = arith.index_cast %[[CLAMPED]] : i64 to index
// CHECK:       tensor.extract_slice %{{.*}}[%[[OFFSET]], 0] [2, 4] [2, 1] : tensor<5x4xf32> to tensor<2x4xf32>
func.func @main() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<5x4xf32>
  %1 = "graph.placeholder"() {name = "i"} : () -> tensor<1xi64>
  %2 = "graph.dynamic_slice"(%0, %1) {axes = array<i64: 0>, steps = array<i64: 2>} : (tensor<5x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>
  "graph.save"(%2) {name = "y"} : (tensor<2x4xf32>) -> ()
  return
}
