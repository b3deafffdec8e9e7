// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-linalg)' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-linalg)' | mlir-opt --split-input-file | FileCheck %s --check-prefix=UPSTREAM

// gather_nd and grid_sample are generics over the result reading their
// sources with tensor.extract: gather_nd extracts the index tuple, wraps a
// negative index and clamps it into the axis; grid_sample (nearest, zeros)
// denormalizes each coordinate in the grid's type, rounds half to even,
// masks the taps outside the input and sums in f64.

// CHECK-LABEL: func.func @gather_nd(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3x4xf32>, %[[I:.*]]: tensor<2x5x1xi64>) -> tensor<2x5x4xf32>
// CHECK:         linalg.generic {{.*}} outs(
// CHECK:           %[[B:.*]] = linalg.index 0 : index
// CHECK:           %[[J:.*]] = linalg.index 1 : index
// CHECK:           tensor.extract %[[I]][%[[B]], %[[J]], %{{.*}}] : tensor<2x5x1xi64>
// CHECK:           arith.cmpi slt
// CHECK:           arith.select
// CHECK:           arith.maxsi
// CHECK:           %[[AT:.*]] = arith.minsi
// CHECK:           %[[REST:.*]] = linalg.index 2 : index
// CHECK:           %[[E:.*]] = tensor.extract %[[X]][%[[B]], %[[AT]], %[[REST]]] : tensor<2x3x4xf32>
// CHECK:           linalg.yield %[[E]] : f32
// UPSTREAM-LABEL: func.func @gather_nd(
// UPSTREAM:         linalg.generic
func.func @gather_nd() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3x4xf32> loc("x")
  %1 = "graph.placeholder"() {name = "i"} : () -> tensor<2x5x1xi64> loc("i")
  %2 = "graph.gather_nd"(%0, %1) {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x5x1xi64>) -> tensor<2x5x4xf32> loc("gather_nd")
  "graph.save"(%2) {name = "y"} : (tensor<2x5x4xf32>) -> () loc("y")
  return
}


// -----

// CHECK-LABEL: func.func @grid_sample(
// CHECK-SAME:      %[[X:.*]]: tensor<1x2x3x4xf32>, %[[G:.*]]: tensor<1x5x6x2xf32>) -> tensor<1x2x5x6xf32>
// CHECK:         linalg.generic {{.*}} outs(
// CHECK:           tensor.extract %[[G]]{{.*}} : tensor<1x5x6x2xf32>
// CHECK:           math.roundeven %{{.*}} : f32
// CHECK:           tensor.extract %[[G]]{{.*}} : tensor<1x5x6x2xf32>
// CHECK:           math.roundeven %{{.*}} : f32
// CHECK:           arith.cmpi sge
// CHECK:           arith.cmpi slt
// CHECK:           arith.select %{{.*}} : f64
// CHECK:           tensor.extract %[[X]]{{.*}} : tensor<1x2x3x4xf32>
// CHECK:           arith.extf %{{.*}} : f32 to f64
// CHECK:           %[[SUM:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK:           linalg.yield %[[SUM]] : f32
// UPSTREAM-LABEL: func.func @grid_sample(
// UPSTREAM:         math.roundeven
func.func @grid_sample() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x3x4xf32> loc("x")
  %1 = "graph.placeholder"() {name = "g"} : () -> tensor<1x5x6x2xf32> loc("g")
  %2 = "graph.grid_sample"(%0, %1) {align_corners = false, mode = "nearest", padding_mode = "zeros"} : (tensor<1x2x3x4xf32>, tensor<1x5x6x2xf32>) -> tensor<1x2x5x6xf32> loc("grid_sample")
  "graph.save"(%2) {name = "y"} : (tensor<1x2x5x6xf32>) -> () loc("y")
  return
}
