// RUN: lamina-opt %s --split-input-file --verify-diagnostics

// One case per verification rule of the hir dialect: shape rules op by op,
// then the module rules that need the architecture (4 lanes here) or
// several ops (which object an operand is, temps staying in their layer).

module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4}"} {
  func.func @matmul_output_pixels() {
    %x = "hir.vars"() {binary_point = 8 : i64, name = "x", base = 0 : i64} : () -> memref<1x4x3x3xi16>
    %w = "hir.consts"() {binary_point = 8 : i64, base = 0 : i64, page = 0 : i64, value = dense<0> : tensor<5x4xi16>} : () -> memref<5x4xi16>
    %t = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x4x3x3xi16>
    // expected-error @+1 {{output tensor<1x4x3x3xi16> must be 1x1 pixels}}
    "hir.matmul"(%t, %x, %w) {layer = 0 : i64, kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tile_slots = array<i64: 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<1x4x3x3xi16>, memref<1x4x3x3xi16>, memref<5x4xi16>) -> ()
    return
  }
}

// -----

module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4}"} {
  func.func @matmul_tile_slots() {
    %x = "hir.vars"() {binary_point = 8 : i64, name = "x", base = 0 : i64} : () -> memref<1x4x3x3xi16>
    %w = "hir.consts"() {binary_point = 8 : i64, base = 0 : i64, page = 0 : i64, value = dense<0> : tensor<5x4xi16>} : () -> memref<5x4xi16>
    %t = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x8x3x3xi16>
    // expected-error @+1 {{tile_slots needs one entry per (co_t, kh, kw, ci_t) = 2, got 1}}
    "hir.matmul"(%t, %x, %w) {layer = 0 : i64, kernel = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tile_slots = array<i64: 0>} : (memref<1x8x3x3xi16>, memref<1x4x3x3xi16>, memref<5x4xi16>) -> ()
    return
  }
}

// -----

module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4}"} {
  func.func @matmul_slots_out_of_order() {
    %x = "hir.vars"() {binary_point = 8 : i64, name = "x", base = 0 : i64} : () -> memref<1x8xi16>
    %w = "hir.consts"() {binary_point = 8 : i64, base = 0 : i64, page = 0 : i64, value = dense<0> : tensor<9x4xi16>} : () -> memref<9x4xi16>
    %t = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x4xi16>
    // expected-error @+1 {{tile_slots must number the present tiles 0, 1, ... in (co_t, kh, kw, ci_t) order (-1 = absent)}}
    "hir.matmul"(%t, %x, %w) {layer = 0 : i64, kernel = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tile_slots = array<i64: 1, 0>} : (memref<1x4xi16>, memref<1x8xi16>, memref<9x4xi16>) -> ()
    return
  }
}

// -----

module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4}"} {
  func.func @matmul_channel_tile_without_tile() {
    %x = "hir.vars"() {binary_point = 8 : i64, name = "x", base = 0 : i64} : () -> memref<1x4xi16>
    %w = "hir.consts"() {binary_point = 8 : i64, base = 0 : i64, page = 0 : i64, value = dense<0> : tensor<5x4xi16>} : () -> memref<5x4xi16>
    %t = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x8xi16>
    // expected-error @+1 {{every output channel tile needs a present tile (it carries the bias)}}
    "hir.matmul"(%t, %x, %w) {layer = 0 : i64, kernel = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tile_slots = array<i64: 0, -1>} : (memref<1x8xi16>, memref<1x4xi16>, memref<5x4xi16>) -> ()
    return
  }
}

// -----

module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4}"} {
  func.func @matmul_weights_size() {
    %x = "hir.vars"() {binary_point = 8 : i64, name = "x", base = 0 : i64} : () -> memref<1x4xi16>
    %w = "hir.consts"() {binary_point = 8 : i64, base = 0 : i64, page = 0 : i64, value = dense<0> : tensor<8x4xi16>} : () -> memref<8x4xi16>
    %t = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x4xi16>
    // expected-error @+1 {{weights must be 5 vectors of N lanes (1 bias vectors and 1 tiles of N vectors), got tensor<8x4xi16>}}
    "hir.matmul"(%t, %x, %w) {layer = 0 : i64, kernel = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tile_slots = array<i64: 0>} : (memref<1x4xi16>, memref<1x4xi16>, memref<8x4xi16>) -> ()
    return
  }
}

// -----

module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4}"} {
  func.func @flatten_matmul_kernel() {
    %x = "hir.vars"() {binary_point = 8 : i64, name = "x", base = 0 : i64} : () -> memref<1x4x3x3xi16>
    %w = "hir.consts"() {binary_point = 8 : i64, base = 0 : i64, page = 0 : i64, value = dense<0> : tensor<5x4xi16>} : () -> memref<5x4xi16>
    %t = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x4xi16>
    // expected-error @+1 {{needs the whole image [3, 3] as kernel}}
    "hir.matmul"(%t, %x, %w) {layer = 0 : i64, kernel = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tile_slots = array<i64: 0>} : (memref<1x4xi16>, memref<1x4x3x3xi16>, memref<5x4xi16>) -> ()
    return
  }
}

// -----

module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4}"} {
  func.func @consts_rank() {
    // expected-error @+1 {{a consts value is a V x N image of storage integers}}
    %w = "hir.consts"() {binary_point = 8 : i64, base = 0 : i64, page = 0 : i64, value = dense<0> : tensor<20xi16>} : () -> memref<20xi16>
    return
  }
}

// -----

module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4}"} {
  func.func @elementwise_shapes() {
    %t = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x4x3x3xi16>
    %u = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x4x2x2xi16>
    // expected-error @+1 {{operands must have one type}}
    "hir.binary"(%t, %t, %u) {layer = 0 : i64, op = "add"} : (memref<1x4x3x3xi16>, memref<1x4x3x3xi16>, memref<1x4x2x2xi16>) -> ()
    return
  }
}

// -----

module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4}"} {
  func.func @binary_op_name() {
    %t = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x4xi16>
    // expected-error @+1 {{op must be one of add, sub, mul, max, min, got 'div'}}
    "hir.binary"(%t, %t, %t) {layer = 0 : i64, op = "div"} : (memref<1x4xi16>, memref<1x4xi16>, memref<1x4xi16>) -> ()
    return
  }
}

// -----

module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4}"} {
  func.func @pool_output() {
    %t = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x4x4x4xi16>
    %u = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x4x3x3xi16>
    // expected-error @+1 {{output must be tensor<1x4x2x2xi16> for input tensor<1x4x4x4xi16>}}
    "hir.pool"(%u, %t) {layer = 0 : i64, kind = "max", kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, count_include_pad = false} : (memref<1x4x3x3xi16>, memref<1x4x4x4xi16>) -> ()
    return
  }
}

// -----

module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4}"} {
  func.func @channel_constant_tiles() {
    %t = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x8xi16>
    %c = "hir.consts"() {binary_point = 8 : i64, base = 0 : i64, page = 0 : i64, value = dense<0> : tensor<1x4xi16>} : () -> memref<1x4xi16>
    // expected-error @+1 {{a per-channel constant for 8 channels is one vector per channel tile}}
    "hir.channel"(%t, %t, %c) {layer = 0 : i64, op = "add", swap = false} : (memref<1x8xi16>, memref<1x8xi16>, memref<1x4xi16>) -> ()
    return
  }
}

// -----

module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4}"} {
  func.func @view_outside_source() {
    %v = "hir.vars"() {binary_point = 8 : i64, name = "v", base = 0 : i64} : () -> memref<1x8xi16>
    // expected-error @+1 {{channels [8, 12) are not inside the 8}}
    %w = "hir.view"(%v) {channel_offset = 8 : i64} : (memref<1x8xi16>) -> memref<1x4xi16>
    return
  }
}

// -----

module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4}"} {
  func.func @vars_rank() {
    // expected-error @+1 {{a memory object must be a rank-2 or rank-4 tensor}}
    %v = "hir.vars"() {binary_point = 8 : i64, name = "v", base = 0 : i64} : () -> memref<8xi16>
    return
  }
}

// -----

// --- Module rules ---

// expected-error @+1 {{a HIR module needs the module attribute 'hir.architecture'}}
module {
  func.func @no_architecture() {
    %v = "hir.vars"() {binary_point = 8 : i64, name = "v", base = 0 : i64} : () -> memref<1x8xi16>
    return
  }
}

// -----

module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4}"} {
  func.func @view_alignment() {
    %v = "hir.vars"() {binary_point = 8 : i64, name = "v", base = 0 : i64} : () -> memref<1x8xi16>
    // expected-error @+1 {{channel_offset 2 is not a multiple of the array size 4}}
    %w = "hir.view"(%v) {channel_offset = 2 : i64} : (memref<1x8xi16>) -> memref<1x4xi16>
    return
  }
}

// -----

module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4}"} {
  func.func @consts_lanes() {
    // expected-error @+1 {{consts must have 4 lanes (the array size), got 8}}
    %w = "hir.consts"() {binary_point = 8 : i64, base = 0 : i64, page = 0 : i64, value = dense<0> : tensor<9x8xi16>} : () -> memref<9x8xi16>
    return
  }
}

// -----

module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4}"} {
  func.func @save_from_vars() {
    %x = "hir.vars"() {binary_point = 8 : i64, name = "x", base = 0 : i64} : () -> memref<1x4xi16>
    %y = "hir.vars"() {binary_point = 8 : i64, name = "y", base = 1 : i64} : () -> memref<1x4xi16>
    // expected-error @+1 {{operand 'input' must be a temp object, got vars}}
    "hir.save"(%y, %x) {layer = 0 : i64} : (memref<1x4xi16>, memref<1x4xi16>) -> ()
    return
  }
}

// -----

module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4}"} {
  func.func @temp_across_layers() {
    %x = "hir.vars"() {binary_point = 8 : i64, name = "x", base = 0 : i64} : () -> memref<1x4xi16>
    %t = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x4xi16>
    "hir.load"(%t, %x) {layer = 0 : i64} : (memref<1x4xi16>, memref<1x4xi16>) -> ()
    // expected-error @+1 {{operand 'input' is a temp of another layer: temps never cross layers}}
    "hir.save"(%x, %t) {layer = 1 : i64} : (memref<1x4xi16>, memref<1x4xi16>) -> ()
    return
  }
}

// -----

// Objects lie within their DRAM: 9 vectors from base 1016 end past 1024.
module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4}"} {
  func.func @vars_past_dram0() {
    // expected-error @+1 {{vectors [1016, 1025) are not within DRAM0's depth 1024}}
    %x = "hir.vars"() {binary_point = 8 : i64, name = "x", base = 1016 : i64} : () -> memref<1x4x3x3xi16>
    return
  }
}

// -----

// Not firing: the last 9 vectors of DRAM0.
module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4}"} {
  func.func @vars_at_the_end_of_dram0() {
    %x = "hir.vars"() {binary_point = 8 : i64, name = "x", base = 1015 : i64} : () -> memref<1x4x3x3xi16>
    return
  }
}

// -----

// Formats: ops that do not multiply keep one binary point; a product rounds at input + weight - output.

module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4}"} {
  func.func @formats_differ_without_a_product() {
    %x = "hir.vars"() {binary_point = 8 : i64, name = "x", base = 0 : i64} : () -> memref<1x4xi16>
    %t = "hir.temp"() {binary_point = 10 : i64, layer = 0 : i64} : () -> memref<1x4xi16>
    // expected-error @+1 {{operands must share one binary point (only multiplying ops rescale), got output 10, input 8}}
    "hir.load"(%t, %x) {layer = 0 : i64} : (memref<1x4xi16>, memref<1x4xi16>) -> ()
    return
  }
}

// -----

module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4}"} {
  func.func @consts_past_dram1() {
    // expected-error @+1 {{vectors [1023, 1025) are not within DRAM1's depth 1024}}
    %w = "hir.consts"() {binary_point = 8 : i64, base = 1023 : i64, page = 0 : i64, value = dense<0> : tensor<2x4xi16>} : () -> memref<2x4xi16>
    return
  }
}

// -----

// expected-error @+1 {{module attribute 'hir.inputs' must be an array of strings, got "x"}}
module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4}", hir.inputs = "x", hir.outputs = ["y"]} {
  func.func @interface_of_the_wrong_type() {
    %x = "hir.vars"() {binary_point = 8 : i64, name = "x", base = 0 : i64} : () -> memref<1x4x3x3xi16>
    return
  }
}

// -----

// expected-error @+1 {{module attribute 'hir.architecture': not a JSON string}}
module attributes {hir.architecture = 5 : i64} {
  func.func @architecture_of_the_wrong_type() {
    %x = "hir.vars"() {binary_point = 8 : i64, name = "x", base = 0 : i64} : () -> memref<1x4x3x3xi16>
    return
  }
}

// -----

module attributes {hir.architecture = "{\22accumulator_depth\22: 256, \22array_size\22: 4, \22data_type\22: \22FP16BP8\22, \22dram0_depth\22: 1024, \22dram1_depth\22: 1024, \22local_depth\22: 256, \22name\22: \22tiny\22, \22simd_registers_depth\22: 1, \22stride0_depth\22: 4, \22stride1_depth\22: 4}"} {
  func.func @product_rounds_below_bit_zero() {
    %x = "hir.vars"() {binary_point = 2 : i64, name = "x", base = 0 : i64} : () -> memref<1x4xi16>
    %w = "hir.consts"() {binary_point = 3 : i64, base = 0 : i64, page = 0 : i64, value = dense<0> : tensor<5x4xi16>} : () -> memref<5x4xi16>
    %t = "hir.temp"() {binary_point = 9 : i64, layer = 0 : i64} : () -> memref<1x4xi16>
    // expected-error @+1 {{rounds its products at bit -4, outside 0..47 (input + weight - output binary points)}}
    "hir.matmul"(%t, %x, %w) {layer = 0 : i64, kernel = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tile_slots = array<i64: 0>} : (memref<1x4xi16>, memref<1x4xi16>, memref<5x4xi16>) -> ()
    return
  }
}
