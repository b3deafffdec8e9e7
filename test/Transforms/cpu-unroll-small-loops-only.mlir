// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(cpu-unroll-small-loops-only)' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(cpu-unroll-small-loops-only,convert-scf-to-cf,convert-vector-to-llvm,finalize-memref-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,llvm-loop-annotations,convert-func-to-llvm,reconcile-unrealized-casts)' | FileCheck %s --check-prefix=LLVM

// Loops get LLVM's unroll-disable annotation unless they run a constant number of iterations, at
// most 8, with only such loops inside. A register tile's loop nest (bounds not constant) is
// annotated; so is a 3-iteration loop around a 64-iteration one (the one inside is not small). A
// max pool's 3 x 3 window (both loops small) is left alone, for LLVM to unroll.

// CHECK:       #[[UNROLL:.*]] = #llvm.loop_unroll<disable = true>
// CHECK:       #[[ROLLED:.*]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
// CHECK-LABEL: func.func @vector_nest
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             vector.load
// CHECK:           } {llvm.loop_annotation = #[[ROLLED]]}
// CHECK:         } {llvm.loop_annotation = #[[ROLLED]]}
// CHECK-LABEL: func.func @small_around_large
// CHECK:           } {llvm.loop_annotation = #[[ROLLED]]}
// CHECK:         } {llvm.loop_annotation = #[[ROLLED]]}
// CHECK-LABEL: func.func @pool_window
// CHECK-NOT:     llvm.loop_annotation

// After convert-cf-to-llvm, llvm-loop-annotations moves the annotation carried to each back edge
// into the branch's loop_annotation (loop metadata); the window loops' back edges have none.

// LLVM-LABEL:   llvm.func @vector_nest
// LLVM-COUNT-2: llvm.br ^{{.*}} {loop_annotation = #
// LLVM-LABEL:   llvm.func @small_around_large
// LLVM-COUNT-2: llvm.br ^{{.*}} {loop_annotation = #
// LLVM-LABEL:   llvm.func @pool_window
// LLVM-NOT:     loop_annotation
func.func @vector_nest(%n: index, %v: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c8 {
      %x = vector.load %v[%j] : memref<?xf32>, vector<8xf32>
      vector.store %x, %v[%j] : memref<?xf32>, vector<8xf32>
    }
  }
  return
}
func.func @small_around_large(%x: memref<3x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      memref.store %f, %x[%i, %j] : memref<3x64xf32>
    }
  }
  return
}
func.func @pool_window(%x: memref<3x3xf32>, %y: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %u = %c0 to %c3 step %c1 {
    scf.for %v = %c0 to %c3 step %c1 {
      %a = memref.load %x[%u, %v] : memref<3x3xf32>
      %b = memref.load %y[%c0] : memref<1xf32>
      %m = arith.maximumf %a, %b : f32
      memref.store %m, %y[%c0] : memref<1xf32>
    }
  }
  return
}
