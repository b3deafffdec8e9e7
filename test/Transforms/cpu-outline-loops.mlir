// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(cpu-outline-loops)' | FileCheck %s

// Each top-level loop nest of a function moves into a private noinline function of its own, called
// in its place: constants and memref globals it uses are recreated inside, every other value it
// uses from outside (the buffers, a loop bound computed outside) is an argument. What is not a loop
// (the alloc, the copy) stays.

// CHECK:       memref.global "private" constant @weights
// CHECK-LABEL: func.func private @main_loop0(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>)
// CHECK-SAME:      attributes {passthrough = ["noinline"]}
// CHECK:         %[[W:.*]] = memref.get_global @weights
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[C4]]
// CHECK:           memref.load %[[W]]
// CHECK-LABEL: func.func private @main_loop1(%{{.*}}: memref<4xf32>, %{{.*}}: index)
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK-LABEL: func.func @main(
// CHECK:         memref.alloc
// CHECK:         call @main_loop0(%arg0, %alloc)
// CHECK:         call @main_loop1(%alloc, %{{.*}})
// CHECK:         memref.copy
// CHECK-NOT:     scf.for
memref.global "private" constant @weights : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func @main(%x: memref<4xf32>, %y: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %w = memref.get_global @weights : memref<4xf32>
  %t = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %a = memref.load %x[%i] : memref<4xf32>
    %b = memref.load %w[%i] : memref<4xf32>
    %s = arith.mulf %a, %b : f32
    memref.store %s, %t[%i] : memref<4xf32>
  }
  %m = arith.minui %n, %c4 : index
  scf.for %i = %c0 to %m step %c1 {
    %a = memref.load %t[%i] : memref<4xf32>
    %s = arith.addf %a, %a : f32
    memref.store %s, %t[%i] : memref<4xf32>
  }
  memref.copy %t, %y : memref<4xf32> to memref<4xf32>
  memref.dealloc %t : memref<4xf32>
  return
}

// -----

// Not firing: a loop with results (a reduction carried in iter_args) stays where it is; a private
// function the pass did not create is marked noinline all the same (LLVM would inline it).

// CHECK-LABEL: func.func private @helper()
// CHECK-SAME:      attributes {passthrough = ["noinline"]}
// CHECK-LABEL: func.func @sum(
// CHECK:         scf.for {{.*}} iter_args
// CHECK-NOT:     call @sum_loop
func.func private @helper() {
  return
}
func.func @sum(%x: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
    %a = memref.load %x[%i] : memref<4xf32>
    %s = arith.addf %acc, %a : f32
    scf.yield %s : f32
  }
  func.call @helper() : () -> ()
  return %r : f32
}
