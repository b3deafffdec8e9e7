// onnxruntime's com.microsoft QOperator ops import as DequantizeLinear -> float op -> QuantizeLinear
// (lamina/frontend/contrib_quantized.py); the ops named after the node.
// RUN: %python %S/Inputs/make_contrib_models.py add %t.add.onnx
// RUN: lamina-import %t.add.onnx | FileCheck %s
// CHECK: %[[X:.*]] = "graph.quantize"(%0) {{.*}} -> tensor<1x2x2x2x!quant.uniform<i8:f32, 0.0199{{[0-9]*}}:3>>
// CHECK: %[[Z:.*]] = "graph.quantize"(%1) {{.*}} -> tensor<1x2x2x2x!quant.uniform<i8:f32, 0.0299{{[0-9]*}}:-5>>
// CHECK: %[[A:.*]] = "graph.dequantize"(%[[X]])
// CHECK: %[[B:.*]] = "graph.dequantize"(%[[Z]])
// CHECK: %[[SUM:.*]] = "graph.add"(%[[A]], %[[B]]) {{.*}} loc(#[[ADD:loc[0-9]+]])
// CHECK: "graph.quantize"(%[[SUM]]) {{.*}} -> tensor<1x2x2x2x!quant.uniform<i8:f32, 0.05{{[0-9]*}}>>
// CHECK: #[[ADD]] = loc("add/Add_2")

// A form Lamina does not rewrite is one line naming the node.
// RUN: %python %S/Inputs/make_contrib_models.py nhwc %t.nhwc.onnx
// RUN: not lamina-import %t.nhwc.onnx 2>&1 | FileCheck %s --check-prefix=NHWC
// NHWC: lamina-import: error: {{.*}}.nhwc.onnx: cannot import the model (1 problem):
// NHWC-NEXT: node 'gap' (QLinearGlobalAveragePool): channels_last = 1 (NHWC) is not supported; only NCHW
