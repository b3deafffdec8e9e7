// Conv with SAME_UPPER padding and no bias, then an unnamed Relu: explicit
// pads, a zero bias, and node names (or <OpType>_<index>) as locations.
// RUN: %python %S/Inputs/make_models.py conv %t.onnx
// RUN: lamina-import %t.onnx | FileCheck %s

// CHECK-LABEL: func.func @main()
// CHECK: %[[X:.*]] = "graph.placeholder"() {name = "x"} : () -> tensor<1x3x8x8xf32> loc(#[[LX:loc[0-9]+]])
// CHECK: %[[W:.*]] = "graph.constant"() {value = dense<{{.*}}> : tensor<4x3x3x3xf32>} : () -> tensor<4x3x3x3xf32> loc(#[[LW:loc[0-9]+]])
// CHECK: %[[B:.*]] = "graph.splat"() {value = 0.000000e+00 : f32} : () -> tensor<4xf32> loc(#[[LCONV:loc[0-9]+]])
// CHECK: %[[C:.*]] = "graph.convolution"(%[[X]], %[[W]], %[[B]]) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>}
// CHECK-SAME: -> tensor<1x4x4x4xf32> loc(#[[LCONV]])
// CHECK: %[[R:.*]] = "graph.relu"(%[[C]]) : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> loc(#[[LRELU:loc[0-9]+]])
// CHECK: "graph.save"(%[[R]]) {name = "y"} : (tensor<1x4x4x4xf32>) -> () loc(#[[LY:loc[0-9]+]])
// CHECK-DAG: #[[LX]] = loc("x")
// CHECK-DAG: #[[LW]] = loc("w")
// CHECK-DAG: #[[LCONV]] = loc("conv1")
// CHECK-DAG: #[[LRELU]] = loc("Relu_1")
// CHECK-DAG: #[[LY]] = loc("y")
