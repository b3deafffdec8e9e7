// NumPy broadcasting becomes graph.broadcast; variadic Sum stays one op;
// Concat of three inputs is a chain of binary concats.
// RUN: %python %S/Inputs/make_models.py elementwise %t.onnx
// RUN: lamina-import %t.onnx | FileCheck %s

// CHECK: %[[A:.*]] = "graph.placeholder"() {name = "a"} : () -> tensor<3x1xf32>
// CHECK: %[[B:.*]] = "graph.placeholder"() {name = "b"} : () -> tensor<4xf32>
// CHECK: %[[A2:.*]] = "graph.broadcast"(%[[A]]) : (tensor<3x1xf32>) -> tensor<3x4xf32> loc(#[[LADD:loc[0-9]+]])
// CHECK: %[[B2:.*]] = "graph.broadcast"(%[[B]]) : (tensor<4xf32>) -> tensor<3x4xf32> loc(#[[LADD]])
// CHECK: %[[S:.*]] = "graph.add"(%[[A2]], %[[B2]]) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32> loc(#[[LADD]])
// CHECK: %[[T:.*]] = "graph.sum"(%[[S]], %{{.*}}, %{{.*}}) : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK: %[[C1:.*]] = "graph.concat"(%[[T]], %[[S]]) {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x8xf32> loc(#[[LCAT:loc[0-9]+]])
// CHECK: %[[C2:.*]] = "graph.concat"(%[[C1]], %[[A]]) {axis = 1 : i64} : (tensor<3x8xf32>, tensor<3x1xf32>) -> tensor<3x9xf32> loc(#[[LCAT]])
// CHECK: "graph.save"(%[[C2]]) {name = "y"}
// CHECK-DAG: #[[LADD]] = loc("add")
// CHECK-DAG: #[[LCAT]] = loc("concat")
