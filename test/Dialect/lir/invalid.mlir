// RUN: lamina-opt %s --split-input-file --verify-diagnostics

// One case per rule of the lir verifier (lamina/dialects/lir.py): attributes that do
// not make an instruction, then what `verify_program` checks on the
// instructions against the module's architecture: a 2x2 array, DRAM0 256,
// DRAM1 128, local 64 and accumulators 32 vectors, strides 1 and 2, one SIMD
// register.

// expected-error @+1 {{a LIR module needs the 'lir.architecture' attribute}}
module {
  "lir.noop"() : () -> ()
}

// -----

// expected-error @+1 {{lir.architecture: missing architecture key(s) stride1_depth}}
module attributes {lir.architecture = "{\"name\": \"small\", \"data_type\": \"FP16BP8\", \"array_size\": 2, \"dram0_depth\": 256, \"dram1_depth\": 128, \"local_depth\": 64, \"accumulator_depth\": 32, \"simd_registers_depth\": 1, \"stride0_depth\": 2}"} {
  "lir.noop"() : () -> ()
}

// -----

// --- Attributes that are no instruction ---

module attributes {lir.architecture = "{\"name\": \"small\", \"data_type\": \"FP16BP8\", \"array_size\": 2, \"dram0_depth\": 256, \"dram1_depth\": 128, \"local_depth\": 64, \"accumulator_depth\": 32, \"simd_registers_depth\": 1, \"stride0_depth\": 2, \"stride1_depth\": 2}"} {
  // expected-error @+1 {{'lir.matmul' op (instruction 0): local_stride = 3 is not a power of two}}
  "lir.matmul"() {accumulate = false, accumulator = 0 : i64, accumulator_stride = 1 : i64, local = 0 : i64, local_stride = 3 : i64, size = 1 : i64, zeroes = false} : () -> ()
}

// -----

module attributes {lir.architecture = "{\"name\": \"small\", \"data_type\": \"FP16BP8\", \"array_size\": 2, \"dram0_depth\": 256, \"dram1_depth\": 128, \"local_depth\": 64, \"accumulator_depth\": 32, \"simd_registers_depth\": 1, \"stride0_depth\": 2, \"stride1_depth\": 2}"} {
  "lir.noop"() : () -> ()
  // expected-error @+1 {{'lir.data_move' op (instruction 1): no data move from dram0 to dram1}}
  "lir.data_move"() {accumulate = false, address = 0 : i64, local = 0 : i64, local_stride = 1 : i64, size = 1 : i64, source = "dram0", stride = 1 : i64, target = "dram1"} : () -> ()
}

// -----

module attributes {lir.architecture = "{\"name\": \"small\", \"data_type\": \"FP16BP8\", \"array_size\": 2, \"dram0_depth\": 256, \"dram1_depth\": 128, \"local_depth\": 64, \"accumulator_depth\": 32, \"simd_registers_depth\": 1, \"stride0_depth\": 2, \"stride1_depth\": 2}"} {
  // expected-error @+1 {{'lir.load_weight' op (instruction 0): size = 0 must be at least 1}}
  "lir.load_weight"() {local = 0 : i64, local_stride = 1 : i64, size = 0 : i64, zeroes = false} : () -> ()
}

// -----

module attributes {lir.architecture = "{\"name\": \"small\", \"data_type\": \"FP16BP8\", \"array_size\": 2, \"dram0_depth\": 256, \"dram1_depth\": 128, \"local_depth\": 64, \"accumulator_depth\": 32, \"simd_registers_depth\": 1, \"stride0_depth\": 2, \"stride1_depth\": 2}"} {
  // expected-error @+1 {{unknown SIMD op 'relu'}}
  "lir.simd"() {accumulate = false, dest = 0 : i64, left = 0 : i64, op = "relu", read = 0 : i64, right = 0 : i64, write = 0 : i64} : () -> ()
}

// -----

module attributes {lir.architecture = "{\"name\": \"small\", \"data_type\": \"FP16BP8\", \"array_size\": 2, \"dram0_depth\": 256, \"dram1_depth\": 128, \"local_depth\": 64, \"accumulator_depth\": 32, \"simd_registers_depth\": 1, \"stride0_depth\": 2, \"stride1_depth\": 2}"} {
  // expected-error @+1 {{right = 2 is not 0 (the vector read) or a register 1..1}}
  "lir.simd"() {accumulate = false, dest = 0 : i64, left = 0 : i64, op = "add", read = 0 : i64, right = 2 : i64, write = 0 : i64} : () -> ()
}

// -----

module attributes {lir.architecture = "{\"name\": \"small\", \"data_type\": \"FP16BP8\", \"array_size\": 2, \"dram0_depth\": 256, \"dram1_depth\": 128, \"local_depth\": 64, \"accumulator_depth\": 32, \"simd_registers_depth\": 1, \"stride0_depth\": 2, \"stride1_depth\": 2}"} {
  // expected-error @+1 {{read = -2 is neither an address nor -1 (none)}}
  "lir.simd"() {accumulate = false, dest = 0 : i64, left = 0 : i64, op = "move", read = -2 : i64, right = 0 : i64, write = 0 : i64} : () -> ()
}

// -----

module attributes {lir.architecture = "{\"name\": \"small\", \"data_type\": \"FP16BP8\", \"array_size\": 2, \"dram0_depth\": 256, \"dram1_depth\": 128, \"local_depth\": 64, \"accumulator_depth\": 32, \"simd_registers_depth\": 1, \"stride0_depth\": 2, \"stride1_depth\": 2}"} {
  // expected-error @+1 {{unknown configure register 'dram0_offset'; registers: array_shift, simd_shift}}
  "lir.configure"() {register = "dram0_offset", value = 1 : i64} : () -> ()
}

// -----

module attributes {lir.architecture = "{\"name\": \"small\", \"data_type\": \"FP16BP8\", \"array_size\": 2, \"dram0_depth\": 256, \"dram1_depth\": 128, \"local_depth\": 64, \"accumulator_depth\": 32, \"simd_registers_depth\": 1, \"stride0_depth\": 2, \"stride1_depth\": 2}"} {
  // expected-error @+1 {{value = 48 is not a rounding position 0..47}}
  "lir.configure"() {register = "array_shift", value = 48 : i64} : () -> ()
}

// -----

// --- Instructions against the architecture ---

module attributes {lir.architecture = "{\"name\": \"small\", \"data_type\": \"FP16BP8\", \"array_size\": 2, \"dram0_depth\": 256, \"dram1_depth\": 128, \"local_depth\": 64, \"accumulator_depth\": 32, \"simd_registers_depth\": 1, \"stride0_depth\": 2, \"stride1_depth\": 2}"} {
  // expected-error @+1 {{'lir.matmul' op (instruction 0): MATMUL reads local vectors 60..66 (stride 2) but local has 64 vectors}}
  "lir.matmul"() {accumulate = false, accumulator = 0 : i64, accumulator_stride = 1 : i64, local = 60 : i64, local_stride = 2 : i64, size = 4 : i64, zeroes = false} : () -> ()
  // A zeroes MatMul reads no local memory.
  "lir.matmul"() {accumulate = false, accumulator = 0 : i64, accumulator_stride = 1 : i64, local = 60 : i64, local_stride = 2 : i64, size = 4 : i64, zeroes = true} : () -> ()
  // expected-error @+1 {{'lir.matmul' op (instruction 2): MATMUL writes accumulator vectors 31..32 (stride 1) but accumulator has 32 vectors}}
  "lir.matmul"() {accumulate = true, accumulator = 31 : i64, accumulator_stride = 1 : i64, local = 0 : i64, local_stride = 1 : i64, size = 2 : i64, zeroes = false} : () -> ()
}

// -----

module attributes {lir.architecture = "{\"name\": \"small\", \"data_type\": \"FP16BP8\", \"array_size\": 2, \"dram0_depth\": 256, \"dram1_depth\": 128, \"local_depth\": 64, \"accumulator_depth\": 32, \"simd_registers_depth\": 1, \"stride0_depth\": 2, \"stride1_depth\": 2}"} {
  // expected-error @+1 {{MATMUL operand 1 stride 2^2 is beyond the 2 strides of the architecture}}
  "lir.matmul"() {accumulate = false, accumulator = 0 : i64, accumulator_stride = 4 : i64, local = 0 : i64, local_stride = 1 : i64, size = 1 : i64, zeroes = false} : () -> ()
}

// -----

module attributes {lir.architecture = "{\"name\": \"small\", \"data_type\": \"FP16BP8\", \"array_size\": 2, \"dram0_depth\": 256, \"dram1_depth\": 128, \"local_depth\": 64, \"accumulator_depth\": 32, \"simd_registers_depth\": 1, \"stride0_depth\": 2, \"stride1_depth\": 2}"} {
  // expected-error @+1 {{DATA_MOVE moves dram1 vectors 110..129 (stride 1) but dram1 has 128 vectors}}
  "lir.data_move"() {accumulate = false, address = 110 : i64, local = 0 : i64, local_stride = 1 : i64, size = 20 : i64, source = "dram1", stride = 1 : i64, target = "local"} : () -> ()
  // expected-error @+1 {{DATA_MOVE moves local vectors 0..127 (stride 1) but local has 64 vectors}}
  "lir.data_move"() {accumulate = false, address = 0 : i64, local = 0 : i64, local_stride = 1 : i64, size = 128 : i64, source = "local", stride = 1 : i64, target = "dram0"} : () -> ()
}

// -----

module attributes {lir.architecture = "{\"name\": \"small\", \"data_type\": \"FP16BP8\", \"array_size\": 2, \"dram0_depth\": 256, \"dram1_depth\": 128, \"local_depth\": 64, \"accumulator_depth\": 32, \"simd_registers_depth\": 1, \"stride0_depth\": 2, \"stride1_depth\": 2}"} {
  // expected-error @+1 {{DATA_MOVE moves dram0 vectors 250..256 (stride 2) but dram0 has 256 vectors}}
  "lir.data_move"() {accumulate = false, address = 250 : i64, local = 0 : i64, local_stride = 1 : i64, size = 4 : i64, source = "local", stride = 2 : i64, target = "dram0"} : () -> ()
  // expected-error @+1 {{DATA_MOVE moves accumulator vectors 32..32 (stride 1) but accumulator has 32 vectors}}
  "lir.data_move"() {accumulate = true, address = 32 : i64, local = 0 : i64, local_stride = 1 : i64, size = 1 : i64, source = "local", stride = 1 : i64, target = "accumulator"} : () -> ()
}

// -----

module attributes {lir.architecture = "{\"name\": \"small\", \"data_type\": \"FP16BP8\", \"array_size\": 2, \"dram0_depth\": 256, \"dram1_depth\": 128, \"local_depth\": 64, \"accumulator_depth\": 32, \"simd_registers_depth\": 1, \"stride0_depth\": 2, \"stride1_depth\": 2}"} {
  // expected-error @+1 {{LOAD_WEIGHT reads local vectors 62..64 (stride 1) but local has 64 vectors}}
  "lir.load_weight"() {local = 62 : i64, local_stride = 1 : i64, size = 3 : i64, zeroes = false} : () -> ()
  // expected-error @+1 {{LOAD_WEIGHT pushes 4 vectors but the array holds 3}}
  "lir.load_weight"() {local = 0 : i64, local_stride = 1 : i64, size = 4 : i64, zeroes = false} : () -> ()
}

// -----

module attributes {lir.architecture = "{\"name\": \"small\", \"data_type\": \"FP16BP8\", \"array_size\": 2, \"dram0_depth\": 256, \"dram1_depth\": 128, \"local_depth\": 64, \"accumulator_depth\": 32, \"simd_registers_depth\": 1, \"stride0_depth\": 2, \"stride1_depth\": 2}"} {
  // expected-error @+1 {{SIMD reads accumulator vectors 32..32 (stride 1) but accumulator has 32 vectors}}
  "lir.simd"() {accumulate = false, dest = 1 : i64, left = 0 : i64, op = "move", read = 32 : i64, right = 0 : i64, write = -1 : i64} : () -> ()
  // expected-error @+1 {{SIMD writes accumulator vectors 40..40 (stride 1) but accumulator has 32 vectors}}
  "lir.simd"() {accumulate = false, dest = 0 : i64, left = 1 : i64, op = "move", read = -1 : i64, right = 0 : i64, write = 40 : i64} : () -> ()
}
