// RUN: lamina-opt %s | lamina-opt | FileCheck %s

// buffer.dynamic_slice, derived from graph.dynamic_slice.

// CHECK-LABEL: func.func @dynamic_slice()
func.func @dynamic_slice() {
  %0 = "buffer.weight"() {mutable = false, name = "x", offset = -1 : i64, public = true} : () -> memref<5x4xf32>
  %1 = "buffer.weight"() {mutable = false, name = "i", offset = -1 : i64, public = true} : () -> memref<1xi64>
  %2 = "buffer.weight"() {mutable = true, name = "y", offset = -1 : i64, public = true} : () -> memref<2x4xf32>
  // CHECK: "buffer.dynamic_slice"(%2, %0, %1) {axes = array<i64: 0>, steps = array<i64: 2>} : (memref<2x4xf32>, memref<5x4xf32>, memref<1xi64>) -> ()
  "buffer.dynamic_slice"(%2, %0, %1) {axes = array<i64: 0>, steps = array<i64: 2>} : (memref<2x4xf32>, memref<5x4xf32>, memref<1xi64>) -> ()
  return
}
