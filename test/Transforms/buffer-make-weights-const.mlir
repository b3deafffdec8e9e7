// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(buffer-make-weights-const)' | FileCheck %s

// A private weight that the program only reads becomes read-only.

// CHECK-LABEL: func.func @read_only_private()
// CHECK:         "buffer.weight"() {mutable = false, name = "w", offset = -1 : i64, public = false}
func.func @read_only_private() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %w = "buffer.weight"() {name = "w", mutable = true, public = false, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  "buffer.add"(%y, %x, %w) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
  return
}

// -----

// Public weights stay mutable even when only read (a model input: the caller
// writes it between runs). A private weight written through a view stays
// mutable too.

// CHECK-LABEL: func.func @not_fired()
// CHECK:         "buffer.weight"() {mutable = true, name = "x", offset = -1 : i64, public = true}
// CHECK-NEXT:    "buffer.weight"() {mutable = true, name = "state", offset = -1 : i64, public = false}
func.func @not_fired() {
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %s = "buffer.weight"() {name = "state", mutable = true, public = false, offset = -1 : i64} : () -> memref<2x2xf32>
  %v = "buffer.view"(%s) {byte_offset = 8 : i64} : (memref<2x2xf32>) -> memref<2xf32>
  "buffer.relu"(%v, %x) : (memref<2xf32>, memref<2xf32>) -> ()
  return
}
