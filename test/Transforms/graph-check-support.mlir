// RUN: lamina-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(graph-check-support{backend=accelerator})' | FileCheck %s
// RUN: not lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-check-support)' \
// RUN:   2>%t.reference.err | FileCheck %s --check-prefix=REFERENCE
// RUN: FileCheck %s --check-prefix=REFERENCE-ERR < %t.reference.err

// Everything the accelerator runs: no diagnostic, the IR is unchanged.

// CHECK-LABEL: func.func @supported()
// CHECK-NEXT:    "graph.placeholder"
// CHECK-NEXT:    "graph.constant"
// CHECK-NEXT:    "graph.constant"
// CHECK-NEXT:    "graph.convolution"
// CHECK-NEXT:    "graph.relu"
// CHECK-NEXT:    "graph.max_pool"
// CHECK-NEXT:    "graph.reshape"
// CHECK-NEXT:    "graph.constant"
// CHECK-NEXT:    "graph.fully_connected"
// CHECK-NEXT:    "graph.splat"
// CHECK-NEXT:    "graph.add"
// CHECK-NEXT:    "graph.save"

// The reference backend runs them too.

// REFERENCE-LABEL: func.func @supported()
func.func @supported() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x4x4xf32>
  %filter = "graph.constant"() {value = dense<1.0> : tensor<3x2x3x3xf32>} : () -> tensor<3x2x3x3xf32>
  %bias = "graph.constant"() {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %conv = "graph.convolution"(%x, %filter, %bias) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %relu = "graph.relu"(%conv) : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %pool = "graph.max_pool"(%relu) {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x2x2xf32>
  %flat = "graph.reshape"(%pool) : (tensor<1x3x2x2xf32>) -> tensor<1x12xf32>
  %w = "graph.constant"() {value = dense<0.5> : tensor<12x3xf32>} : () -> tensor<12x3xf32>
  %fc = "graph.fully_connected"(%flat, %w, %bias) : (tensor<1x12xf32>, tensor<12x3xf32>, tensor<3xf32>) -> tensor<1x3xf32>
  %one = "graph.splat"() {value = 1.0 : f32} : () -> tensor<1x3xf32>
  %y = "graph.add"(%fc, %one) : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
  "graph.save"(%y) {name = "y"} : (tensor<1x3xf32>) -> ()
  return
}

// -----

// Every op the accelerator cannot run is reported at once, each at its own
// location with the reason, then the function once with a summary. Ops it
// has no unit for (softmax needs exp, LRN a power), ops it runs only under
// conditions it checks on types and operands (2-D windows, constant weights,
// concatenation along channels), and ops it wants lowered first. The 2-D
// convolution by constant weights and the channel concat are fine.

// The reference backend runs all of them.

// REFERENCE-LABEL: func.func @unsupported()
// REFERENCE:         "graph.softmax"

// expected-error @+1 {{backend 'accelerator' cannot run 6 ops of @unsupported: graph.batch_norm, graph.concat, graph.convolution x2, graph.lrn, graph.softmax}}
func.func @unsupported() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x4x4xf32>
  // expected-error @+1 {{'graph.softmax' is not supported by backend 'accelerator': no unit of the accelerator computes it (its SIMD unit adds, subtracts, multiplies, takes min/max)}}
  %sm = "graph.softmax"(%x) {axis = 1 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  // expected-error @+1 {{'graph.lrn' is not supported by backend 'accelerator': no unit of the accelerator computes it}}
  %lrn = "graph.lrn"(%x) {size = 3 : i64, alpha = 1.0e-4 : f32, beta = 0.75 : f32, bias = 1.0 : f32} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c2 = "graph.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  // expected-error @+1 {{'graph.batch_norm' is not supported by backend 'accelerator': lower it first: graph-lower makes it sub/mul/add by per-channel constants}}
  %bn = "graph.batch_norm"(%x, %c2, %c2, %c2, %c2) {epsilon = 1.0e-5 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %filter = "graph.constant"() {value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %conv = "graph.convolution"(%x, %filter, %c2) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %input_filter = "graph.placeholder"() {name = "filter"} : () -> tensor<2x2x1xf32>
  %v = "graph.placeholder"() {name = "v"} : () -> tensor<1x2x8xf32>
  // expected-error @+1 {{'graph.convolution' is not supported by backend 'accelerator': only 2-D windows over N x C x H x W tensors; its filter must be a constant: the array loads weights from the Consts bank}}
  %conv1d = "graph.convolution"(%v, %input_filter, %c2) {dilations = array<i64: 1>, group = 1 : i64, pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<1x2x8xf32>, tensor<2x2x1xf32>, tensor<2xf32>) -> tensor<1x2x8xf32>
  %filter_in = "graph.placeholder"() {name = "filter_in"} : () -> tensor<2x2x1x1xf32>
  // expected-error @+1 {{'graph.convolution' is not supported by backend 'accelerator': its filter must be a constant}}
  %conv_in = "graph.convolution"(%x, %filter_in, %c2) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %channels = "graph.concat"(%conv, %conv_in) {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  // expected-error @+1 {{'graph.concat' is not supported by backend 'accelerator': only along channels (axis 1)}}
  %rows = "graph.concat"(%conv, %conv) {axis = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x8x4xf32>
  "graph.save"(%sm) {name = "sm"} : (tensor<1x2x4x4xf32>) -> ()
  "graph.save"(%lrn) {name = "lrn"} : (tensor<1x2x4x4xf32>) -> ()
  "graph.save"(%bn) {name = "bn"} : (tensor<1x2x4x4xf32>) -> ()
  "graph.save"(%conv1d) {name = "conv1d"} : (tensor<1x2x8xf32>) -> ()
  "graph.save"(%channels) {name = "channels"} : (tensor<1x4x4x4xf32>) -> ()
  "graph.save"(%rows) {name = "rows"} : (tensor<1x2x8x4xf32>) -> ()
  return
}

// -----

// A matmul runs on the array only by constant 2-D weights.

// expected-error @+1 {{backend 'accelerator' cannot run 2 ops of @matmul: graph.matmul x2}}
func.func @matmul() {
  %a = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  %b = "graph.placeholder"() {name = "b"} : () -> tensor<3x4xf32>
  %w = "graph.constant"() {value = dense<1.0> : tensor<3x4xf32>} : () -> tensor<3x4xf32>
  %batched = "graph.placeholder"() {name = "batched"} : () -> tensor<5x2x3xf32>
  %ok = "graph.matmul"(%a, %w) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  // expected-error @+1 {{its rhs must be a constant}}
  %by_input = "graph.matmul"(%a, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  // expected-error @+1 {{only 2-D operands: the array multiplies vectors by one weight matrix}}
  %by_batch = "graph.matmul"(%batched, %w) : (tensor<5x2x3xf32>, tensor<3x4xf32>) -> tensor<5x2x4xf32>
  "graph.save"(%ok) {name = "ok"} : (tensor<2x4xf32>) -> ()
  "graph.save"(%by_input) {name = "by_input"} : (tensor<2x4xf32>) -> ()
  "graph.save"(%by_batch) {name = "by_batch"} : (tensor<5x2x4xf32>) -> ()
  return
}

// -----

// Ops of other dialects are not the graph level's: no backend runs them.

// REFERENCE-ERR: graph-check-support.mlir:[[# @LINE + 6]]:8: error: 'arith.constant' is not supported by backend 'reference': not a graph op; backends run graph ops only
// REFERENCE-ERR: graph-check-support.mlir:[[# @LINE + 3]]:1: error: backend 'reference' cannot run 1 op of @other_dialect: arith.constant

// expected-error @+1 {{backend 'accelerator' cannot run 1 op of @other_dialect: arith.constant}}
func.func @other_dialect() {
  // expected-error @+1 {{'arith.constant' is not supported by backend 'accelerator': not a graph op}}
  %c = arith.constant 1 : i32
  return
}
