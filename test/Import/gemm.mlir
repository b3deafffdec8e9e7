// Gemm is Glow's fully-connected layer when alpha = beta = 1 and C is a row;
// otherwise matmul, then a multiply by alpha.
// RUN: %python %S/Inputs/make_models.py gemm %t.onnx
// RUN: lamina-import %t.onnx | FileCheck %s

// CHECK: %[[X:.*]] = "graph.placeholder"() {name = "x"} : () -> tensor<2x8xf32>
// CHECK: %[[W:.*]] = "graph.constant"() {{.*}} -> tensor<4x8xf32>
// CHECK: %[[WT:.*]] = "graph.transpose"(%[[W]]) {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32> loc(#[[LFC:loc[0-9]+]])
// CHECK: %[[B:.*]] = "graph.constant"() {{.*}} -> tensor<4xf32>
// CHECK: %[[FC:.*]] = "graph.fully_connected"(%[[X]], %[[WT]], %[[B]]) : (tensor<2x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<2x4xf32> loc(#[[LFC]])
// CHECK: %[[V:.*]] = "graph.constant"() {{.*}} -> tensor<4x3xf32>
// CHECK: %[[MM:.*]] = "graph.matmul"(%[[FC]], %[[V]]) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32> loc(#[[LS:loc[0-9]+]])
// CHECK: %[[ALPHA:.*]] = "graph.splat"() {value = 5.000000e-01 : f32} : () -> tensor<2x3xf32> loc(#[[LS]])
// CHECK: "graph.mul"(%[[MM]], %[[ALPHA]]) {{.*}} loc(#[[LS]])
// CHECK-NOT: "graph.fully_connected"
// CHECK-DAG: #[[LFC]] = loc("fc")
// CHECK-DAG: #[[LS]] = loc("scaled")
