// RUN: lamina-profile %s -o %t.yaml --samples 3 | FileCheck %s --check-prefix=PROFILE
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-quantize{profile=%t.yaml per-channel=true})' | FileCheck %s
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-quantize{profile=%t.yaml keep=fully_connected,relu})' | FileCheck %s --check-prefix=KEEP
// RUN: not lamina-opt %s --pass-pipeline='builtin.module(graph-quantize{profile=%t.yaml keep=nonsense})' 2>&1 | FileCheck %s --check-prefix=BADKEEP
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-optimize{precision=int8 profile=%t.yaml})' | FileCheck %s --check-prefix=PIPELINE
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-optimize)' | FileCheck %s --check-prefix=FLOAT
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-quantize{profile=%t.yaml backend=accelerator})' | FileCheck %s --check-prefix=KEEP
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-quantize{profile=%t.yaml keep=relu})' | FileCheck %s --check-prefix=WIDE
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-quantize{profile=%t.yaml keep-nodes=fc:0})' | FileCheck %s --check-prefix=NODE
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-quantize{profile=%t.yaml per-channel=true keep-nodes=softmax:0})' | FileCheck %s
// RUN: not lamina-opt %s --pass-pipeline='builtin.module(graph-quantize{profile=%t.yaml keep-nodes=fc:1})' 2>&1 | FileCheck %s --check-prefix=BADNODE

// A fully-connected layer and its ReLU become int8 (weights per output channel,
// i32 bias); softmax has no quantized form and reads a dequantized value.

// PROFILE: profiled 4 node outputs over 3 samples

// CHECK-LABEL: func.func @main()
// CHECK:         %[[X:.*]] = "graph.placeholder"() {name = "x"} : () -> tensor<2x4xf32>
// CHECK:         %[[Q:.*]] = "graph.quantize"(%[[X]]) : (tensor<2x4xf32>) -> tensor<2x4x!quant.uniform<i8:f32
// CHECK:         %[[W:.*]] = "graph.constant"() {{.*}} -> tensor<4x3x!quant.uniform<i8<-127:127>:f32:1,
// CHECK:         %[[B:.*]] = "graph.constant"() {{.*}} -> tensor<3x!quant.uniform<i32:f32:0,
// CHECK:         %[[FC:.*]] = "graph.fully_connected"(%[[Q]], %[[W]], %[[B]]) {{.*}} -> tensor<2x3x!quant.uniform<i8:f32
// CHECK:         %[[R:.*]] = "graph.relu"(%[[FC]]) : (tensor<2x3x!quant.uniform<i8:f32
// CHECK:         %[[D:.*]] = "graph.dequantize"(%[[R]]) : (tensor<2x3x!quant.uniform<i8:f32, {{.*}}>>) -> tensor<2x3xf32>
// CHECK:         "graph.softmax"(%[[D]])

// With fully_connected and relu kept in float, or for a backend that runs nothing quantized
// (the accelerator), nothing converts: no borders are left.
// KEEP-NOT:      quant.uniform
// KEEP:          "graph.fully_connected"
// KEEP-NOT:      quant.uniform

// graph-optimize runs the stage after lowering (Glow's position), then simplifies; float leaves it out.
// PIPELINE:      "graph.fully_connected"({{.*}}) -> tensor<2x3x!quant.uniform<i8:f32
// PIPELINE:      "graph.softmax"
// FLOAT-NOT:     quant.uniform

// A layer whose result only float code reads (relu kept in float) keeps its
// i32 accumulator, at input scale x weight scale: it is not rounded to int8.
// WIDE:          %[[FC:.*]] = "graph.fully_connected"({{.*}}) -> tensor<2x3x!quant.uniform<i32:f32, {{[^:]*}}>>
// WIDE:          %[[D:.*]] = "graph.dequantize"(%[[FC]]) : (tensor<2x3x!quant.uniform<i32:f32
// WIDE:          "graph.relu"(%[[D]]) : (tensor<2x3xf32>)

// BADKEEP: option 'keep' names 'nonsense', which is not a graph op kind

// keep-nodes keeps one node in float by its profile name (a sensitive layer): the
// fully-connected layer stays f32 and the relu reads it through a border quantize.
// Naming a node that has no quantized form (the softmax) changes nothing (CHECK above).
// NODE:          %[[FC:.*]] = "graph.fully_connected"({{.*}}) -> tensor<2x3xf32>
// NODE:          %[[Q:.*]] = "graph.quantize"(%[[FC]])
// NODE:          "graph.relu"(%[[Q]]) : (tensor<2x3x!quant.uniform<i8:f32
// BADNODE: option 'keep-nodes' names 'fc:1', which is no node output of this graph
func.func @main() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x4xf32>
  %1 = "graph.constant"() {value = dense<[[0.5, -0.25, 1.0], [0.125, 0.75, -1.0], [-0.5, 0.25, 0.5], [1.0, -1.0, 0.25]]> : tensor<4x3xf32>} : () -> tensor<4x3xf32>
  %2 = "graph.constant"() {value = dense<[0.1, -0.2, 0.3]> : tensor<3xf32>} : () -> tensor<3xf32>
  %3 = "graph.fully_connected"(%0, %1, %2) : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32> loc("fc")
  %4 = "graph.relu"(%3) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("relu")
  %5 = "graph.softmax"(%4) {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("softmax")
  "graph.save"(%5) {name = "y"} : (tensor<2x3xf32>) -> ()
  return
}
