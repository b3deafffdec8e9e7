// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-hir{arch=%S/Inputs/tiny.tarch})' | FileCheck %s

// Layers on a 4-lane array (Inputs/tiny.tarch). Inputs first in DRAM0 from
// vector 0; weights in DRAM1, per output channel tile its bias vector then
// its tiles of N = 4 vectors; every other Vars placed by lifetime. An op writes over its input's temp when nothing else
// reads that value; a value read outside its layer is saved at its end.

// A convolution starts a layer and absorbs the relu. 8 -> 6 channels is
// 2 x 2 channel tiles x 9 kernel pixels = 36 tiles, all present: 2 bias
// vectors and 36 x 4 rows.
// CHECK-LABEL: {{^ *}}func.func @main()
// CHECK-NEXT:    %[[X:.*]] = "hir.vars"() {base = 0 : i64, binary_point = 8 : i64, name = "x"} : () -> memref<1x8x4x4xi16>
// CHECK-NEXT:    %[[W:.*]] = "hir.consts"() {base = 0 : i64, binary_point = 8 : i64, page = 0 : i64, value = dense<"0x{{[0-9A-F]+}}"> : tensor<146x4xi16>} : () -> memref<146x4xi16>
// CHECK-NEXT:    %[[Y:.*]] = "hir.vars"() {base = 32 : i64, binary_point = 8 : i64, name = "y"} : () -> memref<1x6x4x4xi16>
// CHECK-NEXT:    %[[T:.*]] = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x6x4x4xi16>
// CHECK-NEXT:    "hir.matmul"(%[[T]], %[[X]], %[[W]]) {dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, layer = 0 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, tile_slots = array<i64: 0, 1, 2, {{.*}}, 34, 35>}
// CHECK-NEXT:    "hir.relu"(%[[T]], %[[T]]) {layer = 0 : i64}
// CHECK-NEXT:    "hir.save"(%[[Y]], %[[T]]) {layer = 0 : i64}
// CHECK-NEXT:    return
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x8x4x4xf32> loc("x")
  %w = "graph.constant"() {value = dense<0.25> : tensor<6x8x3x3xf32>} : () -> tensor<6x8x3x3xf32> loc("w")
  %b = "graph.constant"() {value = dense<0.5> : tensor<6xf32>} : () -> tensor<6xf32> loc("b")
  %c = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x4x4xf32>, tensor<6x8x3x3xf32>, tensor<6xf32>) -> tensor<1x6x4x4xf32> loc("conv")
  %r = "graph.relu"(%c) : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32> loc("relu")
  "graph.save"(%r) {name = "y"} : (tensor<1x6x4x4xf32>) -> () loc("save")
  return
}

// -----

// A depthwise convolution expands block-diagonally: of the 2 x 2 tiles of
// each kernel pixel only the diagonal ones are present, the others are -1;
// each channel tile's bias vector comes right before its first present tile.
// CHECK-LABEL: {{^ *}}func.func @main()
// CHECK:         "hir.consts"() {base = 0 : i64, binary_point = 8 : i64, page = 0 : i64, value = dense<{{\[}}[128, 128, 128, 128], [64, 0, 0, 0], [0, 64, 0, 0], [0, 0, 64, 0], [0, 0, 0, 64], [128, 128, 128, 128], [64, 0, 0, 0], {{.*}}]> : tensor<10x4xi16>}
// CHECK:         "hir.matmul"({{.*}}) {dilations = array<i64: 1, 1>, kernel = array<i64: 1, 1>, layer = 0 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>, tile_slots = array<i64: 0, -1, -1, 1>}
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x8x4x4xf32> loc("x")
  %w = "graph.constant"() {value = dense<0.25> : tensor<8x1x1x1xf32>} : () -> tensor<8x1x1x1xf32> loc("w")
  %b = "graph.constant"() {value = dense<0.5> : tensor<8xf32>} : () -> tensor<8xf32> loc("b")
  %c = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 8 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x4x4xf32>, tensor<8x1x1x1xf32>, tensor<8xf32>) -> tensor<1x8x2x2xf32> loc("conv")
  "graph.save"(%c) {name = "y"} : (tensor<1x8x2x2xf32>) -> () loc("save")
  return
}

// -----

// A residual block: the add reads the input from its Vars and joins the
// convolution's layer with the relu after it. The sum is also an output,
// so it is saved; the relu then needs a temp of its own.
// CHECK-LABEL: {{^ *}}func.func @main()
// CHECK-NEXT:    %[[X:.*]] = "hir.vars"() {base = 0 : i64, binary_point = 8 : i64, name = "x"} : () -> memref<1x4x4x4xi16>
// CHECK-NEXT:    %[[W:.*]] = "hir.consts"() {base = 0 : i64, binary_point = 8 : i64, page = 0 : i64, {{.*}}} : () -> memref<5x4xi16>
// CHECK-NEXT:    %[[SUM:.*]] = "hir.vars"() {base = 16 : i64, binary_point = 8 : i64, name = "sum"} : () -> memref<1x4x4x4xi16>
// CHECK-NEXT:    %[[Y:.*]] = "hir.vars"() {base = 32 : i64, binary_point = 8 : i64, name = "y"} : () -> memref<1x4x4x4xi16>
// CHECK-NEXT:    %[[T:.*]] = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64}
// CHECK-NEXT:    "hir.matmul"(%[[T]], %[[X]], %[[W]])
// CHECK-NEXT:    "hir.add"(%[[T]], %[[T]], %[[X]]) {layer = 0 : i64}
// CHECK-NEXT:    %[[R:.*]] = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64}
// CHECK-NEXT:    "hir.relu"(%[[R]], %[[T]]) {layer = 0 : i64}
// CHECK-NEXT:    "hir.save"(%[[SUM]], %[[T]]) {layer = 0 : i64}
// CHECK-NEXT:    "hir.save"(%[[Y]], %[[R]]) {layer = 0 : i64}
// CHECK-NEXT:    return
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x4x4x4xf32> loc("x")
  %w = "graph.constant"() {value = dense<0.25> : tensor<4x4x1x1xf32>} : () -> tensor<4x4x1x1xf32> loc("w")
  %b = "graph.constant"() {value = dense<0.5> : tensor<4xf32>} : () -> tensor<4xf32> loc("b")
  %c = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32> loc("conv")
  %a = "graph.add"(%x, %c) : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> loc("add")
  %r = "graph.relu"(%a) : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> loc("relu")
  "graph.save"(%a) {name = "sum"} : (tensor<1x4x4x4xf32>) -> () loc("save")
  "graph.save"(%r) {name = "y"} : (tensor<1x4x4x4xf32>) -> () loc("save")
  return
}

// -----

// DenseNet's unfolded batch norm: sub, mul, add by broadcast per-channel
// constants (CT vectors; the constant on the left sets `swap`), then relu,
// all in one layer that starts by loading its input.
// CHECK-LABEL: {{^ *}}func.func @main()
// CHECK:         %[[M:.*]] = "hir.consts"() {base = 0 : i64, binary_point = 8 : i64, page = 0 : i64, value = dense<{{\[}}[256, 512, 768, 1024], [1280, 0, 0, 0]]> : tensor<2x4xi16>}
// CHECK:         %[[S:.*]] = "hir.consts"() {base = 2 : i64, binary_point = 8 : i64, page = 0 : i64, value = dense<{{\[}}[128, 128, 128, 128], [128, 0, 0, 0]]> : tensor<2x4xi16>}
// CHECK:         %[[T:.*]] = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64}
// CHECK-NEXT:    "hir.load"(%[[T]], %{{.*}}) {layer = 0 : i64}
// CHECK-NEXT:    "hir.channel"(%[[T]], %[[T]], %[[M]]) {layer = 0 : i64, op = "sub", swap = false}
// CHECK-NEXT:    "hir.channel"(%[[T]], %[[T]], %[[S]]) {layer = 0 : i64, op = "mul", swap = true}
// CHECK-NEXT:    "hir.relu"(%[[T]], %[[T]]) {layer = 0 : i64}
// CHECK-NEXT:    "hir.save"
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x5x2x2xf32> loc("x")
  %m = "graph.constant"() {value = dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]], [[5.0]]]]> : tensor<1x5x1x1xf32>} : () -> tensor<1x5x1x1xf32> loc("mean")
  %mb = "graph.broadcast"(%m) : (tensor<1x5x1x1xf32>) -> tensor<1x5x2x2xf32> loc("mean")
  %s = "graph.splat"() {value = 0.5 : f32} : () -> tensor<1x5x2x2xf32> loc("scale")
  %d = "graph.sub"(%x, %mb) : (tensor<1x5x2x2xf32>, tensor<1x5x2x2xf32>) -> tensor<1x5x2x2xf32> loc("sub")
  %p = "graph.mul"(%s, %d) : (tensor<1x5x2x2xf32>, tensor<1x5x2x2xf32>) -> tensor<1x5x2x2xf32> loc("mul")
  %r = "graph.relu"(%p) : (tensor<1x5x2x2xf32>) -> tensor<1x5x2x2xf32> loc("relu")
  "graph.save"(%r) {name = "y"} : (tensor<1x5x2x2xf32>) -> () loc("save")
  return
}

// -----

// Not firing: a constant that varies along pixels is no per-channel
// constant, so that sub runs on the host.
// CHECK-LABEL: {{^ *}}func.func @main()
// CHECK-NEXT:    "hir.vars"() {base = 0 : i64, binary_point = 8 : i64, name = "x"}
// CHECK-NEXT:    "hir.host"() {module = "{{.*}}graph.sub{{.*}}", segment = 0 : i64}
// CHECK-NEXT:    return
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x1x1x2xf32> loc("x")
  %k = "graph.constant"() {value = dense<[[[[1.0, 2.0]]]]> : tensor<1x1x1x2xf32>} : () -> tensor<1x1x1x2xf32> loc("k")
  %d = "graph.sub"(%x, %k) : (tensor<1x1x1x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32> loc("sub")
  "graph.save"(%d) {name = "y"} : (tensor<1x1x1x2xf32>) -> () loc("save")
  return
}

// -----

// A product of two values no layer holds (an LSTM's gates, computed on the
// host) starts a layer with one load: the rhs is read from its Vars, into a
// temp of its own (the load into the output must not overwrite the lhs).
// CHECK-LABEL: {{^ *}}func.func @main()
// CHECK-DAG:     %[[X:.*]] = "hir.vars"() {base = 0 : i64, binary_point = {{.*}}, name = "x"}
// CHECK-DAG:     %[[Y:.*]] = "hir.vars"() {base = 1 : i64, binary_point = {{.*}}, name = "y"}
// CHECK:         %[[T:.*]] = "hir.temp"() {{.*}}layer = 0 : i64
// CHECK-NEXT:    "hir.load"(%[[T]], %[[X]]) {layer = 0 : i64}
// CHECK-NEXT:    %[[P:.*]] = "hir.temp"() {{.*}}layer = 0 : i64
// CHECK-NEXT:    "hir.binary"(%[[P]], %[[T]], %[[Y]]) {layer = 0 : i64, op = "mul"}
// CHECK-NEXT:    "hir.save"({{.*}}, %[[P]]) {layer = 0 : i64}
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x4xf32> loc("x")
  %y = "graph.placeholder"() {name = "y"} : () -> tensor<1x4xf32> loc("y")
  %p = "graph.mul"(%x, %y) : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32> loc("gate")
  "graph.save"(%p) {name = "p"} : (tensor<1x4xf32>) -> () loc("save")
  return
}

// -----

// Not when the layer holds the operands: a product of two temps.
// CHECK-LABEL: {{^ *}}func.func @main()
// CHECK:         "hir.load"(%[[T:.*]], %{{.*}}) {layer = 0 : i64}
// CHECK-NEXT:    "hir.relu"(%[[T]], %[[T]]) {layer = 0 : i64}
// CHECK-NEXT:    "hir.binary"(%[[P:.*]], %[[T]], %[[T]]) {layer = 0 : i64, op = "mul"}
// CHECK-NEXT:    "hir.save"({{.*}}, %[[P]]) {layer = 0 : i64}
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x4xf32> loc("x")
  %r = "graph.relu"(%x) : (tensor<1x4xf32>) -> tensor<1x4xf32> loc("relu")
  %p = "graph.mul"(%r, %r) : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32> loc("square")
  "graph.save"(%p) {name = "p"} : (tensor<1x4xf32>) -> () loc("save")
  return
}
