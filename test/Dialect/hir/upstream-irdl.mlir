// Stock mlir-opt loads the hir dialect's IRDL (`lamina-opt --dump-irdl`) and
// parses, verifies and prints HIR: memref objects, layer ops without
// results. Shape, alignment and layer rules are Lamina's Python verifier's
// job, so upstream accepts what only lamina-opt rejects.

// RUN: lamina-opt --dump-irdl=hir > %t.irdl
// RUN: split-file --leading-lines %s %t
// RUN: mlir-opt --irdl-file=%t.irdl %t/valid.mlir | FileCheck %s --check-prefix=VALID
// RUN: not mlir-opt --irdl-file=%t.irdl %t/tensor-operand.mlir 2>&1 | FileCheck %s --check-prefix=TENSOR

// VALID-LABEL: func.func @main()
// VALID-NEXT: %0 = "hir.vars"() {base = 0 : i64, binary_point = 8 : i64, name = "x"} : () -> memref<1x4xi16>
// VALID-NEXT: %1 = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x4xi16>
// VALID-NEXT: "hir.load"(%1, %0) {layer = 0 : i64} : (memref<1x4xi16>, memref<1x4xi16>) -> ()
// VALID-NEXT: "hir.relu"(%1, %1) {layer = 0 : i64} : (memref<1x4xi16>, memref<1x4xi16>) -> ()
// VALID-NEXT: "hir.save"(%0, %1) {layer = 0 : i64} : (memref<1x4xi16>, memref<1x4xi16>) -> ()

// TENSOR: error: expected base type 'builtin.memref' but got 'builtin.tensor'

//--- valid.mlir
func.func @main() {
  %0 = "hir.vars"() {binary_point = 8 : i64, base = 0 : i64, name = "x"} : () -> memref<1x4xi16>
  %1 = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x4xi16>
  "hir.load"(%1, %0) {layer = 0 : i64} : (memref<1x4xi16>, memref<1x4xi16>) -> ()
  "hir.relu"(%1, %1) {layer = 0 : i64} : (memref<1x4xi16>, memref<1x4xi16>) -> ()
  "hir.save"(%0, %1) {layer = 0 : i64} : (memref<1x4xi16>, memref<1x4xi16>) -> ()
  return
}

//--- tensor-operand.mlir
func.func @main(%arg0: tensor<1x4xi16>) {
  %0 = "hir.temp"() {binary_point = 8 : i64, layer = 0 : i64} : () -> memref<1x4xi16>
  "hir.load"(%0, %arg0) {layer = 0 : i64} : (memref<1x4xi16>, tensor<1x4xi16>) -> ()
  return
}
