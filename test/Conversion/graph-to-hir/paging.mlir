// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-hir{arch=%S/Inputs/small-dram1.tarch})' | FileCheck %s

// Weights larger than DRAM1 (Inputs/small-dram1.tarch: 542 vectors, 512 of
// them reserved for the scheduler's constants, so 30 for weights).

// Everything fits (18 vectors): resident, page 0.
// CHECK-LABEL: {{^ *}}func.func @main()
// CHECK:         "hir.consts"() {base = 0 : i64, binary_point = 8 : i64, page = 0 : i64, {{.*}}} : () -> memref<18x4xi16>
// CHECK-NOT:     "hir.consts"
// CHECK:         return
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x8xf32> loc("x")
  %w1 = "graph.constant"() {value = dense<0.25> : tensor<8x8xf32>} : () -> tensor<8x8xf32> loc("w1")
  %b1 = "graph.constant"() {value = dense<0.5> : tensor<8xf32>} : () -> tensor<8xf32> loc("b1")
  %f1 = "graph.fully_connected"(%x, %w1, %b1) : (tensor<1x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<1x8xf32> loc("fc1")
  "graph.save"(%f1) {name = "y"} : (tensor<1x8xf32>) -> () loc("save")
  return
}

// -----

// Two layers of 18 vectors do not fit together: each layer's weights get a
// page of their own, both from vector 0 (the host loads page 2 over page 1).
// CHECK-LABEL: {{^ *}}func.func @main()
// CHECK:         %[[W1:.*]] = "hir.consts"() {base = 0 : i64, binary_point = 8 : i64, page = 1 : i64, {{.*}}} : () -> memref<18x4xi16>
// CHECK:         %[[W2:.*]] = "hir.consts"() {base = 0 : i64, binary_point = 8 : i64, page = 2 : i64, {{.*}}} : () -> memref<18x4xi16>
// CHECK:         "hir.matmul"(%{{.*}}, %{{.*}}, %[[W1]]) {{{.*}}layer = 0 : i64
// CHECK:         "hir.matmul"(%{{.*}}, %{{.*}}, %[[W2]]) {{{.*}}layer = 1 : i64
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x8xf32> loc("x")
  %w1 = "graph.constant"() {value = dense<0.25> : tensor<8x8xf32>} : () -> tensor<8x8xf32> loc("w1")
  %b1 = "graph.constant"() {value = dense<0.5> : tensor<8xf32>} : () -> tensor<8xf32> loc("b1")
  %f1 = "graph.fully_connected"(%x, %w1, %b1) : (tensor<1x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<1x8xf32> loc("fc1")
  %w2 = "graph.constant"() {value = dense<0.125> : tensor<8x8xf32>} : () -> tensor<8x8xf32> loc("w2")
  %b2 = "graph.constant"() {value = dense<0.75> : tensor<8xf32>} : () -> tensor<8xf32> loc("b2")
  %f2 = "graph.fully_connected"(%f1, %w2, %b2) : (tensor<1x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<1x8xf32> loc("fc2")
  "graph.save"(%f2) {name = "y"} : (tensor<1x8xf32>) -> () loc("save")
  return
}

// -----

// One layer of 36 vectors (4 channel tiles of 9) is split by output
// channels into parts of 3 tiles and 1 tile, on pages 1 and 2, each saving
// into its view of the output; the ReLU becomes a layer of its own.
// CHECK-LABEL: {{^ *}}func.func @main()
// CHECK:         %[[W1:.*]] = "hir.consts"() {base = 0 : i64, binary_point = 8 : i64, page = 1 : i64, {{.*}}} : () -> memref<27x4xi16>
// CHECK-NEXT:    %[[F:.*]] = "hir.vars"() {base = {{[0-9]+}} : i64, binary_point = 8 : i64, name = "fc"} : () -> memref<1x16xi16>
// CHECK-NEXT:    %[[V1:.*]] = "hir.view"(%[[F]]) {channel_offset = 0 : i64} : (memref<1x16xi16>) -> memref<1x12xi16>
// CHECK-NEXT:    %[[W2:.*]] = "hir.consts"() {base = 0 : i64, binary_point = 8 : i64, page = 2 : i64, {{.*}}} : () -> memref<9x4xi16>
// CHECK-NEXT:    %[[V2:.*]] = "hir.view"(%[[F]]) {channel_offset = 12 : i64} : (memref<1x16xi16>) -> memref<1x4xi16>
// CHECK:         "hir.matmul"(%[[T1:.*]], %{{.*}}, %[[W1]])
// CHECK-NEXT:    "hir.save"(%[[V1]], %[[T1]]) {layer = 0 : i64}
// CHECK:         "hir.matmul"(%[[T2:.*]], %{{.*}}, %[[W2]])
// CHECK-NEXT:    "hir.save"(%[[V2]], %[[T2]]) {layer = 1 : i64}
// CHECK:         "hir.load"(%[[T3:.*]], %[[F]]) {layer = 2 : i64}
// CHECK-NEXT:    "hir.relu"(%[[T3]], %[[T3]]) {layer = 2 : i64}
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x8xf32> loc("x")
  %w = "graph.constant"() {value = dense<0.25> : tensor<8x16xf32>} : () -> tensor<8x16xf32> loc("w")
  %b = "graph.constant"() {value = dense<0.5> : tensor<16xf32>} : () -> tensor<16xf32> loc("b")
  %f = "graph.fully_connected"(%x, %w, %b) : (tensor<1x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<1x16xf32> loc("fc")
  %r = "graph.relu"(%f) : (tensor<1x16xf32>) -> tensor<1x16xf32> loc("relu")
  "graph.save"(%r) {name = "y"} : (tensor<1x16xf32>) -> () loc("save")
  return
}
