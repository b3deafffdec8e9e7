// Stock mlir-opt loads the lir dialect's IRDL (`lamina-opt --dump-irdl`) and
// parses, verifies and prints LIR: attribute-only ops without operands or
// results. Address ranges against the architecture are Lamina's Python
// verifier's job, so upstream accepts what only lamina-opt rejects.

// RUN: lamina-opt --dump-irdl=lir > %t.irdl
// RUN: split-file --leading-lines %s %t
// RUN: mlir-opt --irdl-file=%t.irdl %t/valid.mlir | FileCheck %s --check-prefix=VALID
// RUN: not lamina-opt %t/valid.mlir 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not mlir-opt --irdl-file=%t.irdl %t/missing-attribute.mlir 2>&1 | FileCheck %s --check-prefix=MISSING

// VALID: "lir.matmul"() {accumulate = false, accumulator = 4096 : i64, accumulator_stride = 1 : i64, local = 0 : i64, local_stride = 1 : i64, size = 1 : i64, zeroes = false} : () -> ()
// VALID-NEXT: "lir.simd"() {accumulate = false, dest = 1 : i64, left = 0 : i64, op = "zero", read = -1 : i64, right = 0 : i64, write = -1 : i64} : () -> ()

// RANGE: valid.mlir:21:3: error: 'lir.matmul' op (instruction 0): MATMUL writes accumulator vectors 4096..4096 (stride 1) but accumulator has 32 vectors

// MISSING: error: 'lir.load_weight' op attribute "size" is expected but not provided

//--- valid.mlir
module attributes {lir.architecture = "{\"name\": \"small\", \"data_type\": \"FP16BP8\", \"array_size\": 2, \"dram0_depth\": 256, \"dram1_depth\": 128, \"local_depth\": 64, \"accumulator_depth\": 32, \"simd_registers_depth\": 1, \"stride0_depth\": 2, \"stride1_depth\": 2}"} {
  "lir.matmul"() {accumulate = false, accumulator = 4096 : i64, accumulator_stride = 1 : i64, local = 0 : i64, local_stride = 1 : i64, size = 1 : i64, zeroes = false} : () -> ()
  "lir.simd"() {accumulate = false, dest = 1 : i64, left = 0 : i64, op = "zero", read = -1 : i64, right = 0 : i64, write = -1 : i64} : () -> ()
}

//--- missing-attribute.mlir
"lir.load_weight"() {local = 0 : i64, local_stride = 1 : i64, zeroes = false} : () -> ()
