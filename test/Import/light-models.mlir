// The light models shipped in the onnx wheel import by name, and the output
// parses back in lamina-opt with its node locations.
// RUN: lamina-import light:resnet50 -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: lamina-opt --mlir-print-debuginfo %t.mlir | FileCheck %s

// CHECK: "graph.placeholder"() {name = "gpu_0/data_0"} : () -> tensor<1x3x224x224xf32>
// CHECK: "graph.convolution"({{.*}}) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
// CHECK: "graph.batch_norm"
// CHECK: "graph.sum"
// CHECK: "graph.fully_connected"
// CHECK: "graph.softmax"({{.*}}) {axis = 1 : i64} : (tensor<1x1000xf32>) -> tensor<1x1000xf32>
// CHECK: "graph.save"({{.*}}) {name = "gpu_0/softmax_1"} : (tensor<1x1000xf32>) -> ()

// RUN: not lamina-import light:resnet 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: lamina-import: error: light:resnet: unknown light model; known: bvlc_alexnet, densenet121, inception_v1, inception_v2, resnet50, shufflenet, squeezenet, vgg19, zfnet512
