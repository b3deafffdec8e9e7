// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-hir{arch=%S/Inputs/tiny.tarch})' | FileCheck %s

// Placements on a 4-lane array (Inputs/tiny.tarch): concats, reshapes, and
// what goes to the host.

// Aligned concats are views: concat(concat(conv1, conv2), x) is one Vars
// object, each convolution saves straight into its view, and the model
// input x, which has its own Vars, is copied into its view by a load ->
// save layer. The two convolutions share their weights' Consts.
// CHECK-LABEL: {{^ *}}func.func @main()
// CHECK-NEXT:    %[[X:.*]] = "hir.vars"() {base = 0 : i64, binary_point = 8 : i64, name = "x"} : () -> memref<1x4x2x2xi16>
// CHECK-NEXT:    %[[W:.*]] = "hir.consts"() {base = 0 : i64, binary_point = 8 : i64, page = 0 : i64
// CHECK-NEXT:    %[[CAT:.*]] = "hir.vars"() {base = 4 : i64, binary_point = 8 : i64, name = "cat2"} : () -> memref<1x12x2x2xi16>
// CHECK-NEXT:    %[[V0:.*]] = "hir.view"(%[[CAT]]) {channel_offset = 0 : i64} : (memref<1x12x2x2xi16>) -> memref<1x4x2x2xi16>
// CHECK-NEXT:    %[[V4:.*]] = "hir.view"(%[[CAT]]) {channel_offset = 4 : i64} : (memref<1x12x2x2xi16>) -> memref<1x4x2x2xi16>
// CHECK-NEXT:    %[[V8:.*]] = "hir.view"(%[[CAT]]) {channel_offset = 8 : i64} : (memref<1x12x2x2xi16>) -> memref<1x4x2x2xi16>
// CHECK-NEXT:    %[[Y:.*]] = "hir.vars"() {base = 16 : i64, binary_point = 8 : i64, name = "y"} : () -> memref<1x12x2x2xi16>
// CHECK-NEXT:    %[[T0:.*]] = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64}
// CHECK-NEXT:    "hir.matmul"(%[[T0]], %[[X]], %[[W]])
// CHECK-NEXT:    "hir.save"(%[[V0]], %[[T0]]) {layer = 0 : i64}
// CHECK-NEXT:    %[[T1:.*]] = "hir.temp"() {binary_point = 8 : i64, layer = 1 : i64}
// CHECK-NEXT:    "hir.matmul"(%[[T1]], %[[X]], %[[W]])
// CHECK-NEXT:    "hir.save"(%[[V4]], %[[T1]]) {layer = 1 : i64}
// CHECK-NEXT:    %[[T2:.*]] = "hir.temp"() {binary_point = 8 : i64, layer = 2 : i64}
// CHECK-NEXT:    "hir.load"(%[[T2]], %[[X]]) {layer = 2 : i64}
// CHECK-NEXT:    "hir.save"(%[[V8]], %[[T2]]) {layer = 2 : i64}
// CHECK-NEXT:    %[[T3:.*]] = "hir.temp"() {binary_point = 8 : i64, layer = 3 : i64} : () -> memref<1x12x2x2xi16>
// CHECK-NEXT:    "hir.load"(%[[T3]], %[[CAT]]) {layer = 3 : i64}
// CHECK-NEXT:    "hir.relu"(%[[T3]], %[[T3]]) {layer = 3 : i64}
// CHECK-NEXT:    "hir.save"(%[[Y]], %[[T3]]) {layer = 3 : i64}
// CHECK-NEXT:    return
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x4x2x2xf32> loc("x")
  %w = "graph.constant"() {value = dense<0.25> : tensor<4x4x1x1xf32>} : () -> tensor<4x4x1x1xf32> loc("w")
  %b = "graph.constant"() {value = dense<0.5> : tensor<4xf32>} : () -> tensor<4xf32> loc("b")
  %c1 = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x2x2xf32>, tensor<4x4x1x1xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32> loc("conv1")
  %c2 = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x2x2xf32>, tensor<4x4x1x1xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32> loc("conv2")
  %k = "graph.concat"(%c1, %c2) {axis = 1 : i64} : (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x8x2x2xf32> loc("cat")
  %j = "graph.concat"(%k, %x) {axis = 1 : i64} : (tensor<1x8x2x2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x12x2x2xf32> loc("cat2")
  %r = "graph.relu"(%j) : (tensor<1x12x2x2xf32>) -> tensor<1x12x2x2xf32> loc("relu")
  "graph.save"(%r) {name = "y"} : (tensor<1x12x2x2xf32>) -> () loc("save")
  return
}

// -----

// Not aligned (the second input starts at channel 2): each input goes
// through a 1x1 matmul with 0/1 selection weights into the whole output;
// the second one adds what the first one saved (x + 0 is exact).
// CHECK-LABEL: {{^ *}}func.func @main()
// CHECK:         %[[CONV:.*]] = "hir.vars"() {base = 4 : i64, binary_point = 8 : i64, name = "conv1"} : () -> memref<1x2x2x2xi16>
// CHECK-NEXT:    %[[S1:.*]] = "hir.consts"() {base = 5 : i64, binary_point = 8 : i64, page = 0 : i64, value = dense<{{\[}}[0, 0, 0, 0], [256, 0, 0, 0], [0, 256, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]> : tensor<10x4xi16>}
// CHECK-NEXT:    %[[Y:.*]] = "hir.vars"() {base = 8 : i64, binary_point = 8 : i64, name = "y"} : () -> memref<1x6x2x2xi16>
// CHECK-NEXT:    %[[S2:.*]] = "hir.consts"() {base = 15 : i64, binary_point = 8 : i64, page = 0 : i64, value = dense<{{\[}}[0, 0, 0, 0], [0, 0, 256, 0], [0, 0, 0, 256], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [256, 0, 0, 0], [0, 256, 0, 0]]> : tensor<10x4xi16>}
// CHECK:         "hir.save"(%[[CONV]], %{{.*}}) {layer = 0 : i64}
// CHECK-NEXT:    %[[T1:.*]] = "hir.temp"() {binary_point = 8 : i64, layer = 1 : i64} : () -> memref<1x6x2x2xi16>
// CHECK-NEXT:    "hir.matmul"(%[[T1]], %[[CONV]], %[[S1]]) {{{.*}}tile_slots = array<i64: 0, 1>}
// CHECK-NEXT:    "hir.save"(%[[Y]], %[[T1]]) {layer = 1 : i64}
// CHECK-NEXT:    %[[T2:.*]] = "hir.temp"() {binary_point = 8 : i64, layer = 2 : i64} : () -> memref<1x6x2x2xi16>
// CHECK-NEXT:    "hir.matmul"(%[[T2]], %{{.*}}, %[[S2]]) {{{.*}}tile_slots = array<i64: 0, 1>}
// CHECK-NEXT:    "hir.add"(%[[T2]], %[[T2]], %[[Y]]) {layer = 2 : i64}
// CHECK-NEXT:    "hir.save"(%[[Y]], %[[T2]]) {layer = 2 : i64}
// CHECK-NEXT:    return
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x4x2x2xf32> loc("x")
  %w = "graph.constant"() {value = dense<0.25> : tensor<2x4x1x1xf32>} : () -> tensor<2x4x1x1xf32> loc("w")
  %b = "graph.constant"() {value = dense<0.5> : tensor<2xf32>} : () -> tensor<2xf32> loc("b")
  %c1 = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x2x2xf32>, tensor<2x4x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32> loc("conv1")
  %k = "graph.concat"(%c1, %x) {axis = 1 : i64} : (tensor<1x2x2x2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x6x2x2xf32> loc("cat")
  "graph.save"(%k) {name = "y"} : (tensor<1x6x2x2xf32>) -> () loc("save")
  return
}

// -----

// A flatten feeding a fully-connected layer is fused into its matmul,
// whose kernel is the whole 2x2 image of the rank-4 input. The softmax
// runs on the host: its module reads the logits' Vars by name and saves
// the model output; the logits are an output too, read from DRAM0.
// CHECK-LABEL: {{^ *}}func.func @main()
// CHECK:         %[[CONV:.*]] = "hir.vars"() {base = 4 : i64, binary_point = 8 : i64, name = "conv"} : () -> memref<1x3x2x2xi16>
// CHECK:         %[[LOGITS:.*]] = "hir.vars"() {base = 8 : i64, binary_point = 8 : i64, name = "logits"} : () -> memref<1x5xi16>
// CHECK:         %[[T:.*]] = "hir.temp"() {binary_point = 8 : i64, layer = 1 : i64} : () -> memref<1x5xi16>
// CHECK-NEXT:    "hir.matmul"(%[[T]], %[[CONV]], %{{.*}}) {dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, layer = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, tile_slots = array<i64: 0, 1, 2, 3, 4, 5, 6, 7>}
// CHECK-NEXT:    "hir.save"(%[[LOGITS]], %[[T]]) {layer = 1 : i64}
// CHECK-NEXT:    "hir.host"() {module = "module {{.*}}graph.placeholder\22() {name = \22logits\22} : () -> tensor<1x5xf32>{{.*}}graph.softmax{{.*}}graph.save\22(%1) {name = \22prob\22}{{.*}}", segment = 0 : i64}
// CHECK-NEXT:    return
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x4x2x2xf32> loc("x")
  %w = "graph.constant"() {value = dense<0.25> : tensor<3x4x1x1xf32>} : () -> tensor<3x4x1x1xf32> loc("w")
  %b = "graph.constant"() {value = dense<0.5> : tensor<3xf32>} : () -> tensor<3xf32> loc("b")
  %c1 = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x2x2xf32>, tensor<3x4x1x1xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32> loc("conv")
  %f = "graph.reshape"(%c1) : (tensor<1x3x2x2xf32>) -> tensor<1x12xf32> loc("flatten")
  %fw = "graph.constant"() {value = dense<0.125> : tensor<12x5xf32>} : () -> tensor<12x5xf32> loc("fw")
  %fb = "graph.constant"() {value = dense<1.0> : tensor<5xf32>} : () -> tensor<5xf32> loc("fb")
  %y = "graph.fully_connected"(%f, %fw, %fb) : (tensor<1x12xf32>, tensor<12x5xf32>, tensor<5xf32>) -> tensor<1x5xf32> loc("fc")
  %s = "graph.softmax"(%y) {axis = 1 : i64} : (tensor<1x5xf32>) -> tensor<1x5xf32> loc("softmax")
  "graph.save"(%s) {name = "prob"} : (tensor<1x5xf32>) -> () loc("save")
  "graph.save"(%y) {name = "logits"} : (tensor<1x5xf32>) -> () loc("save")
  return
}

// -----

// A pool is a layer of its own; the reshape (1, 4, 1, 1) -> (1, 4) keeps
// the layout, so the matmul reads the pool's Vars as it is. Not firing: a
// pool with ceil_mode has no HIR form and runs on the host.
// CHECK-LABEL: {{^ *}}func.func @main()
// CHECK:         %[[X:.*]] = "hir.vars"() {base = 0 : i64, binary_point = 8 : i64, name = "x"} : () -> memref<1x4x2x2xi16>
// CHECK-NEXT:    %[[P:.*]] = "hir.vars"() {base = 4 : i64, binary_point = 8 : i64, name = "pool"} : () -> memref<1x4x1x1xi16>
// CHECK:         %[[T:.*]] = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x4x2x2xi16>
// CHECK-NEXT:    "hir.load"(%[[T]], %[[X]]) {layer = 0 : i64}
// CHECK-NEXT:    %[[Q:.*]] = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x4x1x1xi16>
// CHECK-NEXT:    "hir.pool"(%[[Q]], %[[T]]) {count_include_pad = false, kernel = array<i64: 2, 2>, kind = "max", layer = 0 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>}
// CHECK-NEXT:    "hir.save"(%[[P]], %[[Q]]) {layer = 0 : i64}
// CHECK:         "hir.matmul"(%{{.*}}, %[[P]], %{{.*}}) {{{.*}}kernel = array<i64: 1, 1>
// CHECK:         "hir.host"() {module = "{{.*}}graph.max_pool\22(%0) {ceil_mode = true{{.*}}", segment = 0 : i64}
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x4x2x2xf32> loc("x")
  %p = "graph.max_pool"(%x) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x4x2x2xf32>) -> tensor<1x4x1x1xf32> loc("pool")
  %r = "graph.reshape"(%p) : (tensor<1x4x1x1xf32>) -> tensor<1x4xf32> loc("squeeze")
  %w = "graph.constant"() {value = dense<0.125> : tensor<4x5xf32>} : () -> tensor<4x5xf32> loc("w")
  %m = "graph.matmul"(%r, %w) : (tensor<1x4xf32>, tensor<4x5xf32>) -> tensor<1x5xf32> loc("matmul")
  %q = "graph.max_pool"(%x) {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x4x2x2xf32>) -> tensor<1x4x1x1xf32> loc("ceil_pool")
  "graph.save"(%m) {name = "y"} : (tensor<1x5xf32>) -> () loc("save")
  "graph.save"(%q) {name = "z"} : (tensor<1x4x1x1xf32>) -> () loc("save")
  return
}
