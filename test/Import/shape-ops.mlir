// Values known at compile time still become ops: Shape is an i64 constant,
// ConstantOfShape a splat; the Reshape target computed from them is static.
// RUN: %python %S/Inputs/make_models.py shape_ops %t.onnx
// RUN: lamina-import %t.onnx | FileCheck %s

// CHECK: %[[X:.*]] = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
// CHECK: %[[SHAPE:.*]] = "graph.constant"() {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64> loc(#[[LSHAPE:loc[0-9]+]])
// CHECK: %[[ONES:.*]] = "graph.splat"() {value = 1.000000e+00 : f32} : () -> tensor<2x3xf32>
// CHECK: %[[SUM:.*]] = "graph.add"(%[[X]], %[[ONES]])
// CHECK: "graph.reduce_prod"(%[[SHAPE]]) {axes = array<i64: 0>, keepdims = true} : (tensor<2xi64>) -> tensor<1xi64>
// CHECK: %[[Y:.*]] = "graph.reshape"(%[[SUM]]) : (tensor<2x3xf32>) -> tensor<6xf32> loc(#[[LFLAT:loc[0-9]+]])
// CHECK: "graph.save"(%[[Y]]) {name = "y"}
// CHECK-DAG: #[[LSHAPE]] = loc("shape")
// CHECK-DAG: #[[LFLAT]] = loc("flatten")
