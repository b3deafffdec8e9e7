// RUN: lamina-opt %s --split-input-file --verify-diagnostics

// The shape functions of lamina/dialects/graph_math.py and graph_indexing.py.

func.func @trigonometry_on_integers() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xi32>
  // expected-error @+1 {{expects a floating-point operand, got tensor<2x3xi32>}}
  %1 = "graph.cos"(%0) : (tensor<2x3xi32>) -> tensor<2x3xi32>
  return
}

// -----

func.func @shift_of_floats() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  // expected-error @+1 {{expects integer operands, got tensor<2x3xf32>}}
  %1 = "graph.bit_shift"(%0, %0) {direction = "left"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @shift_direction() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xui8>
  // expected-error @+1 {{direction must be one of 'left', 'right', got 'up'}}
  %1 = "graph.bit_shift"(%0, %0) {direction = "up"} : (tensor<2x3xui8>, tensor<2x3xui8>) -> tensor<2x3xui8>
  return
}

// -----

func.func @bitwise_not_of_floats() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  // expected-error @+1 {{expects an integer operand, got tensor<2x3xf32>}}
  %1 = "graph.bitwise_not"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @mod_of_booleans() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2xi1>
  // expected-error @+1 {{expects numeric operands, got tensor<2xi1>}}
  %1 = "graph.mod"(%0, %0) {fmod = false} : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @arg_max_axis() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  // expected-error @+1 {{axis 2 out of range for rank 2}}
  %1 = "graph.arg_max"(%0) {axis = 2 : i64, keepdims = true, select_last_index = false} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  return
}

// -----

func.func @arg_min_result_type() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  // expected-error @+1 {{tensor<2xi64>}}
  %1 = "graph.arg_min"(%0) {axis = 1 : i64, keepdims = false, select_last_index = false} : (tensor<2x3xf32>) -> tensor<2xi32>
  return
}

// -----

func.func @scatter_updates_shape() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  %1 = "graph.placeholder"() {name = "i"} : () -> tensor<2x1xi64>
  // expected-error @+1 {{updates tensor<2x3xf32> must have the indices' shape (2, 1)}}
  %2 = "graph.scatter_elements"(%0, %1, %0) {axis = 1 : i64, reduction = "none"} : (tensor<2x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @scatter_nd_index_depth() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  %1 = "graph.placeholder"() {name = "i"} : () -> tensor<1x3xi64>
  %2 = "graph.placeholder"() {name = "u"} : () -> tensor<1xf32>
  // expected-error @+1 {{index tuples of 3 exceed the input's rank 2}}
  %3 = "graph.scatter_nd"(%0, %1, %2) {reduction = "none"} : (tensor<2x3xf32>, tensor<1x3xi64>, tensor<1xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gather_nd_batch_dims_too_many() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  %1 = "graph.placeholder"() {name = "i"} : () -> tensor<2x1xi64>
  // expected-error @+1 {{batch_dims 2 must be below the ranks of the input tensor<2x3xf32> and the indices tensor<2x1xi64>}}
  %2 = "graph.gather_nd"(%0, %1) {batch_dims = 2 : i64} : (tensor<2x3xf32>, tensor<2x1xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @gather_nd_index_depth() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x3xf32>
  %1 = "graph.placeholder"() {name = "i"} : () -> tensor<2x3xi64>
  // expected-error @+1 {{index tuples of 3 do not fit the input's rank 2 after 0 batch dimensions}}
  %2 = "graph.gather_nd"(%0, %1) {batch_dims = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @grid_sample_grid_of_another_rank() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<1x2x3x4xf32>
  %1 = "graph.placeholder"() {name = "g"} : () -> tensor<1x5x6x3xf32>
  // expected-error @+1 {{the grid tensor<1x5x6x3xf32> must be real, of shape (N, *output, 2) with N = 1}}
  %2 = "graph.grid_sample"(%0, %1) {align_corners = false, mode = "linear", padding_mode = "zeros"} : (tensor<1x2x3x4xf32>, tensor<1x5x6x3xf32>) -> tensor<1x2x5x6xf32>
  return
}

// -----

func.func @grid_sample_unknown_mode() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<1x2x3x4xf32>
  %1 = "graph.placeholder"() {name = "g"} : () -> tensor<1x5x6x2xf32>
  // expected-error @+1 {{mode must be one of 'linear', 'nearest', 'cubic', got 'bilinear'}}
  %2 = "graph.grid_sample"(%0, %1) {align_corners = false, mode = "bilinear", padding_mode = "zeros"} : (tensor<1x2x3x4xf32>, tensor<1x5x6x2xf32>) -> tensor<1x2x5x6xf32>
  return
}
