// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-raise-fully-connected)' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-raise-fully-connected)' --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// MatMul + Add as the importer emits them (the [3] bias broadcast to the
// product's [2, 3]) become one fully_connected whose bias is the broadcast's
// source, at the fused location of the matmul and the add.

// CHECK-LABEL: func.func @matmul_add()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.constant"() {value = dense<1.000000e+00> : tensor<5x3xf32>}
// CHECK-NEXT:    %2 = "graph.constant"() {value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>}
// CHECK-NEXT:    %3 = "graph.fully_connected"(%0, %1, %2) : (tensor<2x5xf32>, tensor<5x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    "graph.save"(%3) {name = "y"}
// CHECK-NEXT:    return
// LOC-LABEL: func.func @matmul_add()
// LOC:         "graph.fully_connected"{{.*}} loc([[FUSED:#loc[0-9]*]])
// LOC-DAG:     [[MATMUL:#loc[0-9]*]] = loc("matmul")
// LOC-DAG:     [[ADD:#loc[0-9]*]] = loc("add")
// LOC-DAG:     [[FUSED]] = loc(fused[[[MATMUL]], [[ADD]]])
func.func @matmul_add() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x5xf32>
  %w = "graph.constant"() {value = dense<1.0> : tensor<5x3xf32>} : () -> tensor<5x3xf32>
  %product = "graph.matmul"(%x, %w) : (tensor<2x5xf32>, tensor<5x3xf32>) -> tensor<2x3xf32> loc("matmul")
  %b = "graph.constant"() {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %bb = "graph.broadcast"(%b) : (tensor<3xf32>) -> tensor<2x3xf32>
  %y = "graph.add"(%product, %bb) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc("add")
  "graph.save"(%y) {name = "y"} : (tensor<2x3xf32>) -> ()
  return
}

// -----

// The bias may come first, be a [1, 3] row (reshaped to the [3] bias) and
// be known only at run time; a one-row product needs no broadcast.

// CHECK-LABEL: func.func @row_bias_first()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.placeholder"() {name = "b"}
// CHECK-NEXT:    %2 = "graph.splat"() {value = 1.000000e+00 : f32} : () -> tensor<5x3xf32>
// CHECK-NEXT:    %3 = "graph.reshape"(%1) : (tensor<1x3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %4 = "graph.fully_connected"(%0, %2, %3) : (tensor<1x5xf32>, tensor<5x3xf32>, tensor<3xf32>) -> tensor<1x3xf32>
// CHECK-NEXT:    "graph.save"(%4) {name = "y"}
func.func @row_bias_first() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x5xf32>
  %b = "graph.placeholder"() {name = "b"} : () -> tensor<1x3xf32>
  %w = "graph.splat"() {value = 1.0 : f32} : () -> tensor<5x3xf32>
  %product = "graph.matmul"(%x, %w) : (tensor<1x5xf32>, tensor<5x3xf32>) -> tensor<1x3xf32>
  %y = "graph.add"(%b, %product) : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x3xf32>) -> ()
  return
}

// -----

// A scalar bias is broadcast to the [3] bias.

// CHECK-LABEL: func.func @scalar_bias()
// CHECK:         %[[SCALAR:.*]] = "graph.constant"() {value = dense<5.000000e-01> : tensor<f32>}
// CHECK-NEXT:    %[[VECTOR:.*]] = "graph.reshape"(%[[SCALAR]]) : (tensor<f32>) -> tensor<1xf32>
// CHECK-NEXT:    %[[BIAS:.*]] = "graph.broadcast"(%[[VECTOR]]) : (tensor<1xf32>) -> tensor<3xf32>
// CHECK-NEXT:    "graph.fully_connected"(%{{.*}}, %{{.*}}, %[[BIAS]])
func.func @scalar_bias() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x5xf32>
  %w = "graph.splat"() {value = 1.0 : f32} : () -> tensor<5x3xf32>
  %product = "graph.matmul"(%x, %w) : (tensor<2x5xf32>, tensor<5x3xf32>) -> tensor<2x3xf32>
  %b = "graph.constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %bb = "graph.broadcast"(%b) : (tensor<f32>) -> tensor<2x3xf32>
  %y = "graph.add"(%product, %bb) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  "graph.save"(%y) {name = "y"} : (tensor<2x3xf32>) -> ()
  return
}

// -----

// Not a layer: weights known only at run time, a product that is also
// saved, a bias that differs between rows, and a batched (3-D) matmul.

// CHECK-LABEL: func.func @not_a_layer()
// CHECK-NOT:     graph.fully_connected
// CHECK-COUNT-4: "graph.add"
// CHECK-NOT:     graph.fully_connected
func.func @not_a_layer() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x5xf32>
  %b = "graph.constant"() {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %bb = "graph.broadcast"(%b) : (tensor<3xf32>) -> tensor<2x3xf32>
  %runtime_w = "graph.placeholder"() {name = "w"} : () -> tensor<5x3xf32>
  %p0 = "graph.matmul"(%x, %runtime_w) : (tensor<2x5xf32>, tensor<5x3xf32>) -> tensor<2x3xf32>
  %y0 = "graph.add"(%p0, %bb) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  "graph.save"(%y0) {name = "runtime_weights"} : (tensor<2x3xf32>) -> ()
  %w = "graph.splat"() {value = 1.0 : f32} : () -> tensor<5x3xf32>
  %p1 = "graph.matmul"(%x, %w) : (tensor<2x5xf32>, tensor<5x3xf32>) -> tensor<2x3xf32>
  %y1 = "graph.add"(%p1, %bb) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  "graph.save"(%y1) {name = "shared_product"} : (tensor<2x3xf32>) -> ()
  "graph.save"(%p1) {name = "product"} : (tensor<2x3xf32>) -> ()
  %p2 = "graph.matmul"(%x, %w) : (tensor<2x5xf32>, tensor<5x3xf32>) -> tensor<2x3xf32>
  %column = "graph.constant"() {value = dense<[[1.0], [2.0]]> : tensor<2x1xf32>} : () -> tensor<2x1xf32>
  %cb = "graph.broadcast"(%column) : (tensor<2x1xf32>) -> tensor<2x3xf32>
  %y2 = "graph.add"(%p2, %cb) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  "graph.save"(%y2) {name = "per_row_bias"} : (tensor<2x3xf32>) -> ()
  %batch = "graph.placeholder"() {name = "batch"} : () -> tensor<4x2x5xf32>
  %w3 = "graph.splat"() {value = 1.0 : f32} : () -> tensor<4x5x3xf32>
  %p3 = "graph.matmul"(%batch, %w3) : (tensor<4x2x5xf32>, tensor<4x5x3xf32>) -> tensor<4x2x3xf32>
  %b3 = "graph.broadcast"(%b) : (tensor<3xf32>) -> tensor<4x2x3xf32>
  %y3 = "graph.add"(%p3, %b3) : (tensor<4x2x3xf32>, tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
  "graph.save"(%y3) {name = "batched"} : (tensor<4x2x3xf32>) -> ()
  return
}
