// Buffer-level control flow: lamina-opt verifies and prints it back, and stock
// mlir-opt loads the buffer dialect's IRDL with its region ops and parses it.

// RUN: lamina-opt %s | lamina-opt | FileCheck %s
// RUN: lamina-opt --dump-irdl=buffer > %t.irdl
// RUN: mlir-opt --irdl-file=%t.irdl %s | FileCheck %s

// CHECK-LABEL: func.func @control_flow()
// CHECK: "buffer.if"(%0, %[[OUT:.*]]) ({
// CHECK: "buffer.copy"(%[[OUT]], %{{.*}})
// CHECK: gpu.yield
// CHECK: }, {
// CHECK: "buffer.loop"(%2, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) ({
// CHECK-NEXT: ^bb0(%[[SLICE:.*]]: memref<2xf32>):
// CHECK: "buffer.copy"(%[[SLICE]], %{{.*}})
// CHECK: "buffer.scan"(%{{.*}}, %{{.*}}, %3) ({
// CHECK-NEXT: ^bb0(%{{.*}}: memref<2xf32>, %{{.*}}: memref<2xf32>):

func.func @control_flow() {
  %0 = "buffer.weight"() {mutable = true, name = "c", offset = -1 : i64, public = true} : () -> memref<i1>
  %1 = "buffer.weight"() {mutable = true, name = "x", offset = -1 : i64, public = true} : () -> memref<2xf32>
  %2 = "buffer.constant"() {name = "trips", offset = -1 : i64, value = dense<3> : tensor<i64>} : () -> memref<i64>
  %3 = "buffer.weight"() {mutable = true, name = "y", offset = -1 : i64, public = true} : () -> memref<3x2xf32>
  %4 = "buffer.alloc"() {name = "if", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.if"(%0, %4) ({
    %9 = "buffer.alloc"() {name = "relu", offset = -1 : i64} : () -> memref<2xf32>
    "buffer.relu"(%9, %1) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.copy"(%4, %9) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.dealloc"(%9) : (memref<2xf32>) -> ()
    gpu.yield
  }, {
    "buffer.copy"(%4, %1) : (memref<2xf32>, memref<2xf32>) -> ()
    gpu.yield
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i1>, memref<2xf32>) -> ()
  %5 = "buffer.alloc"() {name = "condition", offset = -1 : i64} : () -> memref<i1>
  "buffer.copy"(%5, %0) : (memref<i1>, memref<i1>) -> ()
  %6 = "buffer.alloc"() {name = "iteration", offset = -1 : i64} : () -> memref<i64>
  %7 = "buffer.alloc"() {name = "stacked", offset = -1 : i64} : () -> memref<3x2xf32>
  "buffer.loop"(%2, %5, %6, %4, %7) ({
  ^bb0(%arg0: memref<2xf32>):
    %9 = "buffer.alloc"() {name = "add", offset = -1 : i64} : () -> memref<2xf32>
    "buffer.add"(%9, %4, %1) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
    "buffer.copy"(%4, %9) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.copy"(%arg0, %9) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.dealloc"(%9) : (memref<2xf32>) -> ()
    gpu.yield
  }) {num_scan_outputs = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i64>, memref<i1>, memref<i64>, memref<2xf32>, memref<3x2xf32>) -> ()
  "buffer.dealloc"(%5) : (memref<i1>) -> ()
  "buffer.dealloc"(%6) : (memref<i64>) -> ()
  "buffer.dealloc"(%4) : (memref<2xf32>) -> ()
  %8 = "buffer.alloc"() {name = "state", offset = -1 : i64} : () -> memref<2xf32>
  "buffer.copy"(%8, %1) : (memref<2xf32>, memref<2xf32>) -> ()
  "buffer.scan"(%8, %7, %3) ({
  ^bb0(%arg0: memref<2xf32>, %arg1: memref<2xf32>):
    %9 = "buffer.alloc"() {name = "sum", offset = -1 : i64} : () -> memref<2xf32>
    "buffer.add"(%9, %8, %arg0) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
    "buffer.copy"(%8, %9) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.copy"(%arg1, %9) : (memref<2xf32>, memref<2xf32>) -> ()
    "buffer.dealloc"(%9) : (memref<2xf32>) -> ()
    gpu.yield
  }) {num_scan_inputs = 1 : i64, num_scan_outputs = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, scan_input_directions = array<i64: 1>, scan_output_directions = array<i64: 0>} : (memref<2xf32>, memref<3x2xf32>, memref<3x2xf32>) -> ()
  "buffer.dealloc"(%7) : (memref<3x2xf32>) -> ()
  "buffer.dealloc"(%8) : (memref<2xf32>) -> ()
  return
}
