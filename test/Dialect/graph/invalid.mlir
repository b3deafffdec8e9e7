// RUN: lamina-opt %s --split-input-file --verify-diagnostics

// One case per verification rule: IRDL's structural constraints (checked by
// MLIR while parsing) and the shape functions of lamina/dialects/graph.py (checked
// by lamina-opt right after parsing).

// --- Structure (IRDL) ---

func.func @wrong_operand_count() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  // expected-error @+1 {{op expects exactly 1 operands, but got 2}}
  %1 = "graph.relu"(%0, %0) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @wrong_result_count() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  // expected-error @+1 {{op expects exactly 0 results, but got 1}}
  %1 = "graph.save"(%0) {name = "y"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @missing_attribute() {
  // expected-error @+1 {{'graph.placeholder' op attribute "name" is expected but not provided}}
  %0 = "graph.placeholder"() : () -> tensor<2x3xf32>
  return
}

// -----

func.func @wrong_attribute_kind() {
  // expected-error @+1 {{expected base attribute 'builtin.string' but got 'builtin.integer'}}
  %0 = "graph.placeholder"() {name = 3 : i64} : () -> tensor<2x3xf32>
  return
}

// -----

func.func @scalar_where_array_expected() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  // expected-error @+1 {{expected base attribute 'builtin.dense_array' but got 'builtin.integer'}}
  %1 = "graph.transpose"(%0) {perm = 1 : i64} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @not_a_tensor() {
  // expected-error @+1 {{expected base type 'builtin.tensor' but got 'builtin.integer'}}
  %0 = "graph.placeholder"() {name = "x"} : () -> i32
  return
}

// -----

func.func @syntax_error() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  // expected-error @+1 {{expected ')' to end operand list}}
  %1 = "graph.relu"(%0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// --- Types every op needs ---

// -----

func.func @dynamic_shape() {
  // expected-error @+1 {{'graph.placeholder' op expected a static shape, got tensor<?x3xf32>}}
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<?x3xf32>
  return
}

// -----

func.func @unsupported_element_type() {
  // expected-error @+1 {{'graph.placeholder' op element type bf16 is not supported}}
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2xbf16>
  return
}

// -----

func.func @wrong_result_type() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  // expected-error @+1 {{'graph.relu' op result type mismatch: expected tensor<2x3xf32>, got tensor<3x2xf32>}}
  %1 = "graph.relu"(%0) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @empty_placeholder_name() {
  // expected-error @+1 {{placeholder needs a non-empty name}}
  %0 = "graph.placeholder"() {name = ""} : () -> tensor<2x3xf32>
  return
}

// -----

func.func @splat_of_a_string() {
  // expected-error @+1 {{'graph.splat' op attribute 'value' must be scalar: expected an integer or float attribute}}
  %0 = "graph.splat"() {value = "zero"} : () -> tensor<2x3xf32>
  return
}

// --- Layers ---

// -----

func.func @convolution_wrong_channels() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<1x4x8x8xf32>
  %1 = "graph.splat"() {value = 0.5 : f32} : () -> tensor<6x3x3x3xf32>
  %2 = "graph.splat"() {value = 0.0 : f32} : () -> tensor<6xf32>
  // expected-error @+1 {{filter expects 3 input channels, input has 4}}
  %3 = "graph.convolution"(%0, %1, %2) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x3x3x3xf32>, tensor<6xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @convolution_bad_group() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<1x4x8x8xf32>
  %1 = "graph.splat"() {value = 0.5 : f32} : () -> tensor<6x2x3x3xf32>
  %2 = "graph.splat"() {value = 0.0 : f32} : () -> tensor<6xf32>
  // expected-error @+1 {{group 3 must divide input channels 4 and filters 6}}
  %3 = "graph.convolution"(%0, %1, %2) {dilations = array<i64: 1, 1>, group = 3 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @convolution_bad_pads_length() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<1x4x8x8xf32>
  %1 = "graph.splat"() {value = 0.5 : f32} : () -> tensor<6x4x3x3xf32>
  %2 = "graph.splat"() {value = 0.0 : f32} : () -> tensor<6xf32>
  // expected-error @+1 {{'pads' needs 4 values, got 2}}
  %3 = "graph.convolution"(%0, %1, %2) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @convolution_bad_bias() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<1x4x8x8xf32>
  %1 = "graph.splat"() {value = 0.5 : f32} : () -> tensor<6x4x3x3xf32>
  %2 = "graph.splat"() {value = 0.0 : f32} : () -> tensor<4xf32>
  // expected-error @+1 {{bias must be [6], got tensor<4xf32>}}
  %3 = "graph.convolution"(%0, %1, %2) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>, tensor<4xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @pool_window_too_large() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<1x4x8x8xf32>
  // expected-error @+1 {{window of extent 9 does not fit input of size 8 with pads 0,0}}
  %1 = "graph.max_pool"(%0) {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 9, 9>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  return
}

// -----

func.func @pool_zero_stride() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<1x4x8x8xf32>
  // expected-error @+1 {{strides must be >= 1}}
  %1 = "graph.avg_pool"(%0) {ceil_mode = false, count_include_pad = false, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 0, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

func.func @fully_connected_features() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x16xf32>
  %1 = "graph.splat"() {value = 0.5 : f32} : () -> tensor<8x10xf32>
  %2 = "graph.splat"() {value = 0.0 : f32} : () -> tensor<10xf32>
  // expected-error @+1 {{input has 16 features, weights expect 8}}
  %3 = "graph.fully_connected"(%0, %1, %2) : (tensor<2x16xf32>, tensor<8x10xf32>, tensor<10xf32>) -> tensor<2x10xf32>
  return
}

// -----

func.func @matmul_contracting_sizes() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  %1 = "graph.placeholder"() {name = "b"} : () -> tensor<4x5xf32>
  // expected-error @+1 {{contracting sizes differ: tensor<2x3xf32> and tensor<4x5xf32>}}
  %2 = "graph.matmul"(%0, %1) : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @batch_norm_parameters() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<1x4x8x8xf32>
  %1 = "graph.splat"() {value = 1.0 : f32} : () -> tensor<3xf32>
  // expected-error @+1 {{batch_norm parameters must be [4], got tensor<3xf32>}}
  %2 = "graph.batch_norm"(%0, %1, %1, %1, %1) {epsilon = 0.125 : f32} : (tensor<1x4x8x8xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @softmax_axis_out_of_range() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  // expected-error @+1 {{axis 2 out of range for rank 2}}
  %1 = "graph.softmax"(%0) {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// --- Element-wise ---

// -----

func.func @elementwise_mismatched_types() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  %1 = "graph.placeholder"() {name = "b"} : () -> tensor<1x3xf32>
  // expected-error @+1 {{operands must have the same type (broadcast explicitly), got tensor<2x3xf32> and tensor<1x3xf32>}}
  %2 = "graph.add"(%0, %1) : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @comparison_result_not_i1() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  // expected-error @+1 {{result type mismatch: expected tensor<2x3xi1>, got tensor<2x3xf32>}}
  %1 = "graph.less"(%0, %0) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @where_condition_not_i1() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  // expected-error @+1 {{condition must be i1, got tensor<2x3xf32>}}
  %1 = "graph.where"(%0, %0, %0) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @float_op_on_integers() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xi32>
  // expected-error @+1 {{expects a floating-point operand, got tensor<2x3xi32>}}
  %1 = "graph.sigmoid"(%0) : (tensor<2x3xi32>) -> tensor<2x3xi32>
  return
}

// -----

func.func @clip_min_above_max() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  // expected-error @+1 {{min 6.0 exceeds max 0.0}}
  %1 = "graph.clip"(%0) {max = 0.0 : f32, min = 6.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gelu_unknown_approximation() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  // expected-error @+1 {{approximate must be one of 'none', 'tanh', got 'fast'}}
  %1 = "graph.gelu"(%0) {approximate = "fast"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// --- Data movement ---

// -----

func.func @reshape_element_count() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  // expected-error @+1 {{cannot reshape tensor<2x3xf32> into tensor<4x2xf32>}}
  %1 = "graph.reshape"(%0) : (tensor<2x3xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @broadcast_incompatible() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  // expected-error @+1 {{shapes (2, 3) and (4, 3) do not broadcast}}
  %1 = "graph.broadcast"(%0) : (tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @transpose_bad_perm() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  // expected-error @+1 {{perm [0, 0] is not a permutation of rank 2}}
  %1 = "graph.transpose"(%0) {perm = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @concat_mismatch() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  %1 = "graph.placeholder"() {name = "b"} : () -> tensor<2x4xf32>
  // expected-error @+1 {{inputs tensor<2x3xf32> and tensor<2x4xf32> differ outside axis 0}}
  %2 = "graph.concat"(%0, %1) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @slice_start_out_of_range() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  // expected-error @+1 {{dimension 1: start 4 and end 3 must be normalized into [0, 3]}}
  %1 = "graph.slice"(%0) {ends = array<i64: 2, 3>, starts = array<i64: 0, 4>, steps = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x0xf32>
  return
}

// -----

func.func @pad_unknown_mode() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  // expected-error @+1 {{mode must be one of 'constant', 'reflect', 'edge', got 'wrap'}}
  %1 = "graph.pad"(%0) {mode = "wrap", pads = array<i64: 0, 1, 0, 1>, value = 0.0 : f32} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @gather_float_indices() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  %1 = "graph.placeholder"() {name = "i"} : () -> tensor<4xf32>
  // expected-error @+1 {{indices must be i32 or i64, got tensor<4xf32>}}
  %2 = "graph.gather"(%0, %1) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @reduce_unsorted_axes() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  // expected-error @+1 {{axes [1, 0] must be sorted and unique}}
  %1 = "graph.reduce_sum"(%0) {axes = array<i64: 1, 0>, keepdims = false} : (tensor<2x3xf32>) -> tensor<f32>
  return
}
