// RUN: %python -m lamina.tools.lamina_disasm %S/Inputs/xor.tmodel -o %t.mlir
// RUN: lamina-opt %t.mlir | FileCheck %s
// RUN: %python -m lamina.tools.lamina_disasm %S/Inputs/xor.tprog --arch %S/Inputs/tiny.tarch | FileCheck %s --check-prefix=TPROG
// RUN: %python -m lamina.tools.lamina_disasm %S/Inputs/xor.tprog --arch %S/Inputs/small-local.tarch 2>&1 >/dev/null | FileCheck %s --check-prefix=WARN
// RUN: not %python -m lamina.tools.lamina_disasm %S/Inputs/xor.tprog 2>&1 | FileCheck %s --check-prefix=NO-ARCH
// RUN: not %python -m lamina.tools.lamina_disasm %S/Inputs/xor.tprog --arch ultra96v2 2>&1 | FileCheck %s --check-prefix=SIZE
// RUN: not %python -m lamina.tools.lamina_disasm %S/Inputs/xor.tprog --arch nosuch 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// lamina-disasm prints Tensil's XOR example program (tensil-facts §2.1, 2x2
// array, 4-byte instructions) as LIR that lamina-opt parses and verifies.
// A program that breaks the architecture's limits is shown with warnings;
// files that cannot be decoded are one-line errors.

// CHECK: module attributes {lir.architecture = "{\22name\22: \22xor\22, {{.*}}\22array_size\22: 2,
// CHECK-NEXT: "lir.data_move"() {accumulate = false, address = 0 : i64, local = 0 : i64, local_stride = 1 : i64, size = 3 : i64, source = "dram1", stride = 1 : i64, target = "local"} : () -> ()
// CHECK-NEXT: "lir.load_weight"() {local = 0 : i64, local_stride = 1 : i64, size = 3 : i64, zeroes = false} : () -> ()
// CHECK-NEXT: "lir.matmul"() {accumulate = false, accumulator = 0 : i64, accumulator_stride = 1 : i64, local = 3 : i64, local_stride = 1 : i64, size = 1 : i64, zeroes = false} : () -> ()
// CHECK-NEXT: "lir.simd"() {accumulate = false, dest = 1 : i64, left = 0 : i64, op = "zero", read = -1 : i64, right = 0 : i64, write = -1 : i64} : () -> ()
// CHECK-NEXT: "lir.simd"() {accumulate = false, dest = 0 : i64, left = 0 : i64, op = "max", read = 0 : i64, right = 1 : i64, write = 1 : i64} : () -> ()
// CHECK-NEXT: "lir.data_move"() {accumulate = false, address = 1 : i64, local = 4 : i64, local_stride = 1 : i64, size = 1 : i64, source = "accumulator", stride = 1 : i64, target = "local"} : () -> ()
// CHECK-NEXT: "lir.data_move"() {accumulate = false, address = 1 : i64, local = 4 : i64, local_stride = 1 : i64, size = 1 : i64, source = "local", stride = 1 : i64, target = "dram0"} : () -> ()
// CHECK-NEXT: }

// TPROG: \22name\22: \22tiny\22
// TPROG: "lir.simd"() {accumulate = false, dest = 0 : i64, left = 0 : i64, op = "max", read = 0 : i64, right = 1 : i64, write = 1 : i64} : () -> ()

// WARN: lamina-disasm: warning: {{.*}}xor.tprog: instruction 5: DATA_MOVE moves local vectors 4..4 (stride 1) but local has 4 vectors (and 1 more instructions)
// WARN-NOT: error

// NO-ARCH: lamina-disasm: error: {{.*}}xor.tprog: give the program's architecture with --arch NAME|file.tarch (or disassemble its .tmodel)
// SIZE: lamina-disasm: error: {{.*}}xor.tprog: 28 bytes is not a whole number of 9-byte instructions for architecture 'ultra96v2'
// UNKNOWN: lamina-disasm: error: unknown architecture 'nosuch'; named architectures: arty-a7, pynq-z1, ultra96v2, zcu104, or give a .tarch file
