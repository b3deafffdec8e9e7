// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-convert-to-fp16)' | FileCheck %s
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-convert-to-fp16{keep=relu,fully_connected,softmax})' | FileCheck %s --check-prefix=KEEP
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-optimize{fp16=true keep=softmax})' | FileCheck %s --check-prefix=MIXED

// Every computing f32 op runs in f16: one convert after the input, f16
// constants, one convert back before the output; relu reads the f16 result directly.

// CHECK-LABEL: func.func @main()
// CHECK:         %[[X:.*]] = "graph.placeholder"() {name = "x"} : () -> tensor<2x4xf32>
// CHECK-NEXT:    %[[H:.*]] = "graph.convert"(%[[X]]) : (tensor<2x4xf32>) -> tensor<2x4xf16>
// CHECK:         %[[W:.*]] = "graph.constant"() {{.*}} : () -> tensor<4x3xf16>
// CHECK:         %[[B:.*]] = "graph.constant"() {{.*}} : () -> tensor<3xf16>
// CHECK-NEXT:    %[[FC:.*]] = "graph.fully_connected"(%[[H]], %[[W]], %[[B]]) : {{.*}} -> tensor<2x3xf16>
// CHECK-NEXT:    %[[R:.*]] = "graph.relu"(%[[FC]]) : (tensor<2x3xf16>) -> tensor<2x3xf16>
// CHECK-NEXT:    %[[S:.*]] = "graph.softmax"(%[[R]]) {axis = 1 : i64} : (tensor<2x3xf16>) -> tensor<2x3xf16>
// CHECK-NEXT:    %[[Y:.*]] = "graph.convert"(%[[S]]) : (tensor<2x3xf16>) -> tensor<2x3xf32>
// CHECK-NEXT:    "graph.save"(%[[Y]]) {name = "y"}

// Kept kinds stay f32 and nothing converts.
// KEEP-NOT:      f16

// Mixed: softmax stays f32 after the f16 layers.
// MIXED:         "graph.relu"({{.*}}) : (tensor<2x3xf16>) -> tensor<2x3xf16>
// MIXED-NEXT:    "graph.convert"({{.*}}) : (tensor<2x3xf16>) -> tensor<2x3xf32>
// MIXED-NEXT:    "graph.softmax"({{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @main() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x4xf32>
  %1 = "graph.constant"() {value = dense<0.5> : tensor<4x3xf32>} : () -> tensor<4x3xf32>
  %2 = "graph.constant"() {value = dense<[0.1, -0.2, 0.3]> : tensor<3xf32>} : () -> tensor<3xf32>
  %3 = "graph.fully_connected"(%0, %1, %2) : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = "graph.relu"(%3) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = "graph.softmax"(%4) {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  "graph.save"(%5) {name = "y"} : (tensor<2x3xf32>) -> ()
  return
}
