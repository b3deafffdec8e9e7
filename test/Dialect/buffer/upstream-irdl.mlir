// Stock mlir-opt loads the buffer dialect's IRDL (`lamina-opt --dump-irdl`)
// and parses, verifies and prints buffer IR: memref operands, instructions
// without results. Roles, lifetimes and shape rules are Lamina's Python
// verifier's job, so upstream accepts what only lamina-opt rejects.

// RUN: lamina-opt --dump-irdl=buffer > %t.irdl
// RUN: split-file --leading-lines %s %t
// RUN: mlir-opt --irdl-file=%t.irdl %t/valid.mlir | FileCheck %s --check-prefix=VALID
// RUN: not mlir-opt --irdl-file=%t.irdl %t/tensor-operand.mlir 2>&1 | FileCheck %s --check-prefix=TENSOR

// VALID-LABEL: func.func @main()
// VALID-NEXT: %0 = "buffer.weight"() {mutable = true, name = "x", offset = -1 : i64, public = true} : () -> memref<2x3xf32>
// VALID-NEXT: %1 = "buffer.weight"() {mutable = true, name = "y", offset = -1 : i64, public = true} : () -> memref<2x3xf32>
// VALID-NEXT: %2 = "buffer.alloc"() {name = "t", offset = -1 : i64} : () -> memref<2x3xf32>
// VALID-NEXT: "buffer.relu"(%2, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
// VALID-NEXT: "buffer.copy"(%1, %2) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
// VALID-NEXT: "buffer.dealloc"(%2) : (memref<2x3xf32>) -> ()

// TENSOR: error: expected base type 'builtin.memref' but got 'builtin.tensor'

//--- valid.mlir
func.func @main() {
  %0 = "buffer.weight"() {mutable = true, name = "x", offset = -1 : i64, public = true} : () -> memref<2x3xf32>
  %1 = "buffer.weight"() {mutable = true, name = "y", offset = -1 : i64, public = true} : () -> memref<2x3xf32>
  %2 = "buffer.alloc"() {name = "t", offset = -1 : i64} : () -> memref<2x3xf32>
  "buffer.relu"(%2, %0) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  "buffer.copy"(%1, %2) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  "buffer.dealloc"(%2) : (memref<2x3xf32>) -> ()
  return
}

//--- tensor-operand.mlir
func.func @main(%arg0: tensor<2x3xf32>) {
  %0 = "buffer.alloc"() {name = "t", offset = -1 : i64} : () -> memref<2x3xf32>
  "buffer.relu"(%0, %arg0) : (memref<2x3xf32>, tensor<2x3xf32>) -> ()
  "buffer.dealloc"(%0) : (memref<2x3xf32>) -> ()
  return
}
