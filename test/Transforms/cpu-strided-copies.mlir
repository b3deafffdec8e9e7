// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(cpu-strided-copies)' | FileCheck %s

// A copy out of a strided view (a slice) becomes a linalg.copy of the same views: loops LLVM
// vectorizes, not the C runner utils' element-by-element memrefCopy.

// CHECK-LABEL: func.func @from_slice
// CHECK-NOT:     memref.copy
// CHECK:         linalg.copy {{.*}} ins(%arg0 : memref<4x8xf32, strided<[16, 1], offset: 2>>) outs(%arg1 : memref<4x8xf32>)
func.func @from_slice(%a: memref<4x8xf32, strided<[16, 1], offset: 2>>, %b: memref<4x8xf32>) {
  memref.copy %a, %b : memref<4x8xf32, strided<[16, 1], offset: 2>> to memref<4x8xf32>
  return
}

// -----

// Into a padded interior (a pool's padded input), inside a loop: rewritten where it is.

// CHECK-LABEL: func.func @into_interior
// CHECK:         scf.for
// CHECK:           linalg.copy {{.*}} outs(%{{.*}} : memref<2x3x3xf32, strided<[25, 5, 1], offset: 6>>)
// CHECK-NOT:     memref.copy
func.func @into_interior(%a: memref<2x3x3xf32>, %b: memref<2x5x5xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c2 step %c1 {
    %view = memref.subview %b[0, 1, 1] [2, 3, 3] [1, 1, 1] : memref<2x5x5xf32> to memref<2x3x3xf32, strided<[25, 5, 1], offset: 6>>
    memref.copy %a, %view : memref<2x3x3xf32> to memref<2x3x3xf32, strided<[25, 5, 1], offset: 6>>
  }
  return
}

// -----

// Not firing: between identity layouts memrefCopy calls memcpy, and an unranked copy has no static layout.

// CHECK-LABEL: func.func @contiguous
// CHECK:         memref.copy %arg0, %arg1 : memref<4x8xf32> to memref<4x8xf32>
// CHECK:         memref.copy %arg2, %arg3 : memref<*xf32> to memref<*xf32>
// CHECK-NOT:     linalg.copy
func.func @contiguous(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %c: memref<*xf32>, %d: memref<*xf32>) {
  memref.copy %a, %b : memref<4x8xf32> to memref<4x8xf32>
  memref.copy %c, %d : memref<*xf32> to memref<*xf32>
  return
}

// -----

// A copy of a view onto itself (two identical subviews of one buffer: what bufferization leaves of an
// in-place insert) is erased; one onto a different view of the same buffer is not.

// CHECK-LABEL: func.func @self_copy
// CHECK-NOT:     memref.copy
// CHECK:         linalg.copy {{.*}} ins(%{{.*}} : memref<2x3xf32, strided<[5, 1], offset: 6>>) outs(%{{.*}} : memref<2x3xf32, strided<[5, 1], offset: 1>>)
// CHECK-NOT:     memref.copy
// CHECK-NOT:     linalg.copy
func.func @self_copy(%b: memref<4x5xf32>) {
  %v1 = memref.subview %b[1, 1] [2, 3] [1, 1] : memref<4x5xf32> to memref<2x3xf32, strided<[5, 1], offset: 6>>
  %v2 = memref.subview %b[1, 1] [2, 3] [1, 1] : memref<4x5xf32> to memref<2x3xf32, strided<[5, 1], offset: 6>>
  %v3 = memref.subview %b[0, 1] [2, 3] [1, 1] : memref<4x5xf32> to memref<2x3xf32, strided<[5, 1], offset: 1>>
  memref.copy %v1, %v2 : memref<2x3xf32, strided<[5, 1], offset: 6>> to memref<2x3xf32, strided<[5, 1], offset: 6>>
  memref.copy %v1, %v3 : memref<2x3xf32, strided<[5, 1], offset: 6>> to memref<2x3xf32, strided<[5, 1], offset: 1>>
  return
}
