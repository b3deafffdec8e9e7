// Before opset 13, Softmax coerces its input to 2-D at `axis`.
// RUN: %python %S/Inputs/make_models.py softmax_opset9 %t.onnx
// RUN: lamina-import %t.onnx | FileCheck %s

// CHECK: %[[X:.*]] = "graph.placeholder"() {name = "x"} : () -> tensor<2x3x4xf32>
// CHECK-NEXT: %[[M:.*]] = "graph.reshape"(%[[X]]) : (tensor<2x3x4xf32>) -> tensor<2x12xf32> loc(#[[L:loc[0-9]+]])
// CHECK-NEXT: %[[S:.*]] = "graph.softmax"(%[[M]]) {axis = 1 : i64} : (tensor<2x12xf32>) -> tensor<2x12xf32> loc(#[[L]])
// CHECK-NEXT: %[[Y:.*]] = "graph.reshape"(%[[S]]) : (tensor<2x12xf32>) -> tensor<2x3x4xf32> loc(#[[L]])
// CHECK-NEXT: "graph.save"(%[[Y]]) {name = "y"}
// CHECK: #[[L]] = loc("softmax")
