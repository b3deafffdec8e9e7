// RUN: lamina-opt %s | lamina-opt | FileCheck %s

// Every lir op parses, verifies and prints back unchanged (generic form: IRDL
// ops have no custom syntax). This is the text `program_to_lir_text` writes:
// test_lir.py checks that a program's LIR equals what MLIR prints back. The
// architecture is a 2x2 array with 256-vector memories, 4 strides per operand
// and 2 SIMD registers; every address range below fits in it.

// CHECK: module attributes {lir.architecture = "{\22name\22: \22small\22, \22data_type\22: \22FP16BP8\22, \22array_size\22: 2, \22dram0_depth\22: 256, \22dram1_depth\22: 256, \22local_depth\22: 256, \22accumulator_depth\22: 256, \22simd_registers_depth\22: 2, \22stride0_depth\22: 4, \22stride1_depth\22: 4, \22number_of_threads\22: 1, \22thread_queue_depth\22: 8}"} {
module attributes {lir.architecture = "{\22name\22: \22small\22, \22data_type\22: \22FP16BP8\22, \22array_size\22: 2, \22dram0_depth\22: 256, \22dram1_depth\22: 256, \22local_depth\22: 256, \22accumulator_depth\22: 256, \22simd_registers_depth\22: 2, \22stride0_depth\22: 4, \22stride1_depth\22: 4, \22number_of_threads\22: 1, \22thread_queue_depth\22: 8}"} {
  // CHECK-NEXT: "lir.noop"() : () -> ()
  "lir.noop"() : () -> ()
  // CHECK-NEXT: "lir.data_move"() {accumulate = false, address = 0 : i64, local = 0 : i64, local_stride = 1 : i64, size = 3 : i64, source = "dram1", stride = 1 : i64, target = "local"} : () -> ()
  "lir.data_move"() {accumulate = false, address = 0 : i64, local = 0 : i64, local_stride = 1 : i64, size = 3 : i64, source = "dram1", stride = 1 : i64, target = "local"} : () -> ()
  // CHECK-NEXT: "lir.data_move"() {accumulate = false, address = 8 : i64, local = 16 : i64, local_stride = 2 : i64, size = 4 : i64, source = "dram0", stride = 8 : i64, target = "local"} : () -> ()
  "lir.data_move"() {accumulate = false, address = 8 : i64, local = 16 : i64, local_stride = 2 : i64, size = 4 : i64, source = "dram0", stride = 8 : i64, target = "local"} : () -> ()
  // CHECK-NEXT: "lir.load_weight"() {local = 0 : i64, local_stride = 1 : i64, size = 3 : i64, zeroes = false} : () -> ()
  "lir.load_weight"() {local = 0 : i64, local_stride = 1 : i64, size = 3 : i64, zeroes = false} : () -> ()
  // CHECK-NEXT: "lir.load_weight"() {local = 0 : i64, local_stride = 1 : i64, size = 1 : i64, zeroes = true} : () -> ()
  "lir.load_weight"() {local = 0 : i64, local_stride = 1 : i64, size = 1 : i64, zeroes = true} : () -> ()
  // CHECK-NEXT: "lir.matmul"() {accumulate = false, accumulator = 0 : i64, accumulator_stride = 1 : i64, local = 16 : i64, local_stride = 2 : i64, size = 4 : i64, zeroes = false} : () -> ()
  "lir.matmul"() {accumulate = false, accumulator = 0 : i64, accumulator_stride = 1 : i64, local = 16 : i64, local_stride = 2 : i64, size = 4 : i64, zeroes = false} : () -> ()
  // CHECK-NEXT: "lir.matmul"() {accumulate = true, accumulator = 0 : i64, accumulator_stride = 4 : i64, local = 0 : i64, local_stride = 1 : i64, size = 2 : i64, zeroes = true} : () -> ()
  "lir.matmul"() {accumulate = true, accumulator = 0 : i64, accumulator_stride = 4 : i64, local = 0 : i64, local_stride = 1 : i64, size = 2 : i64, zeroes = true} : () -> ()
  // CHECK-NEXT: "lir.simd"() {accumulate = false, dest = 1 : i64, left = 0 : i64, op = "zero", read = -1 : i64, right = 0 : i64, write = -1 : i64} : () -> ()
  "lir.simd"() {accumulate = false, dest = 1 : i64, left = 0 : i64, op = "zero", read = -1 : i64, right = 0 : i64, write = -1 : i64} : () -> ()
  // CHECK-NEXT: "lir.simd"() {accumulate = false, dest = 2 : i64, left = 0 : i64, op = "max", read = 3 : i64, right = 1 : i64, write = 5 : i64} : () -> ()
  "lir.simd"() {accumulate = false, dest = 2 : i64, left = 0 : i64, op = "max", read = 3 : i64, right = 1 : i64, write = 5 : i64} : () -> ()
  // CHECK-NEXT: "lir.simd"() {accumulate = true, dest = 0 : i64, left = 2 : i64, op = "multiply", read = -1 : i64, right = 1 : i64, write = 255 : i64} : () -> ()
  "lir.simd"() {accumulate = true, dest = 0 : i64, left = 2 : i64, op = "multiply", read = -1 : i64, right = 1 : i64, write = 255 : i64} : () -> ()
  // CHECK-NEXT: "lir.data_move"() {accumulate = false, address = 5 : i64, local = 20 : i64, local_stride = 1 : i64, size = 1 : i64, source = "accumulator", stride = 1 : i64, target = "local"} : () -> ()
  "lir.data_move"() {accumulate = false, address = 5 : i64, local = 20 : i64, local_stride = 1 : i64, size = 1 : i64, source = "accumulator", stride = 1 : i64, target = "local"} : () -> ()
  // CHECK-NEXT: "lir.data_move"() {accumulate = true, address = 0 : i64, local = 20 : i64, local_stride = 1 : i64, size = 1 : i64, source = "local", stride = 1 : i64, target = "accumulator"} : () -> ()
  "lir.data_move"() {accumulate = true, address = 0 : i64, local = 20 : i64, local_stride = 1 : i64, size = 1 : i64, source = "local", stride = 1 : i64, target = "accumulator"} : () -> ()
  // CHECK-NEXT: "lir.data_move"() {accumulate = false, address = 255 : i64, local = 255 : i64, local_stride = 1 : i64, size = 1 : i64, source = "local", stride = 1 : i64, target = "dram0"} : () -> ()
  "lir.data_move"() {accumulate = false, address = 255 : i64, local = 255 : i64, local_stride = 1 : i64, size = 1 : i64, source = "local", stride = 1 : i64, target = "dram0"} : () -> ()
  // CHECK-NEXT: "lir.configure"() {register = "array_shift", value = 20 : i64} : () -> ()
  "lir.configure"() {register = "array_shift", value = 20 : i64} : () -> ()
  // CHECK-NEXT: "lir.configure"() {register = "simd_shift", value = 0 : i64} : () -> ()
  "lir.configure"() {register = "simd_shift", value = 0 : i64} : () -> ()
  // CHECK-NEXT: }
}
