// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(cpu-keep-vector-loops-rolled)' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(cpu-keep-vector-loops-rolled,convert-scf-to-cf,convert-vector-to-llvm,finalize-memref-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,llvm-loop-annotations,convert-func-to-llvm,reconcile-unrealized-casts)' | FileCheck %s --check-prefix=LLVM

// A loop nest with vector code inside: both loops (the one around the vector ops and the one around
// it) get LLVM's unroll-disable annotation. A loop with scalar code only (the max pool's window in
// the second function) is left alone, for LLVM to unroll.

// CHECK:       #[[UNROLL:.*]] = #llvm.loop_unroll<disable = true>
// CHECK:       #[[ROLLED:.*]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
// CHECK-LABEL: func.func @vector_nest
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             vector.load
// CHECK:           } {llvm.loop_annotation = #[[ROLLED]]}
// CHECK:         } {llvm.loop_annotation = #[[ROLLED]]}
// CHECK-LABEL: func.func @scalar_loop
// CHECK:         scf.for
// CHECK-NOT:     llvm.loop_annotation

// After convert-cf-to-llvm, llvm-loop-annotations moves the annotation carried to each back edge
// into the branch's loop_annotation (loop metadata); the scalar loop's back edge has none.

// LLVM-LABEL: llvm.func @vector_nest
// LLVM-COUNT-2: llvm.br ^{{.*}} {loop_annotation = #
// LLVM-LABEL: llvm.func @scalar_loop
// LLVM-NOT:   loop_annotation
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
func.func @scalar_loop(%n: index, %x: memref<?xf32>, %y: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %k = %c0 to %c3 step %c1 {
    %a = memref.load %x[%k] : memref<?xf32>
    %b = memref.load %y[%c0] : memref<1xf32>
    %m = arith.maximumf %a, %b : f32
    memref.store %m, %y[%c0] : memref<1xf32>
  }
  return
}
