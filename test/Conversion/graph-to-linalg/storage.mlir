// RUN: lamina-opt %s --pass-pipeline='builtin.module(convert-graph-to-linalg)' | FileCheck %s
// RUN: lamina-opt %s --pass-pipeline='builtin.module(convert-graph-to-linalg)' | mlir-opt | FileCheck %s --check-prefix=UPSTREAM
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-to-cpu)' | FileCheck %s --check-prefix=LLVM

// On the CPU path booleans (i1) and ui8 are stored as signless i8: arith
// computes on signless integers only and memref-to-LLVM cannot store i1
// elements. The function signature, constants and every op's result use
// the storage type; the ops pick unsigned predicates for ui8, and a
// comparison extends its i1 to a 0/1 byte.

// CHECK-LABEL: func.func @bool_and_ui8(
// CHECK-SAME:      %[[A:.*]]: tensor<4xi8>, %[[B:.*]]: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xi8>)
// CHECK:         %[[LESS:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<4xi8>, tensor<4xi8>)
// CHECK:           %[[LT:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : i8
// CHECK:           %[[BYTE:.*]] = arith.extui %[[LT]] : i1 to i8
// CHECK:           linalg.yield %[[BYTE]] : i8
// CHECK:         } -> tensor<4xi8>
// ui8 constants keep their bits: 200 and 255 read as i8.
// CHECK:         %[[C:.*]] = arith.constant dense<[-56, 1, -1, 0]> : tensor<4xi8>
// CHECK:         %[[MAX:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[C]] : tensor<4xi8>, tensor<4xi8>)
// CHECK:           arith.maxui {{.*}} : i8
// CHECK:         %[[TRUE:.*]] = arith.constant dense<1> : tensor<4xi8>
// CHECK:         %[[EQ:.*]] = linalg.generic {{.*}} ins(%[[LESS]], %[[TRUE]] : tensor<4xi8>, tensor<4xi8>)
// CHECK:           arith.cmpi eq, {{.*}} : i8
// A stored boolean is true when nonzero.
// CHECK:         %[[Y:.*]] = linalg.generic {{.*}} ins(%[[EQ]], %[[MAX]], %[[B]] : tensor<4xi8>, tensor<4xi8>, tensor<4xi8>)
// CHECK:           %[[TRUTH:.*]] = arith.cmpi ne, %{{.*}}, %c0_i8 : i8
// CHECK:           arith.select %[[TRUTH]], {{.*}} : i8
// CHECK:         return %[[EQ]], %[[Y]] : tensor<4xi8>, tensor<4xi8>
// UPSTREAM-LABEL: func.func @bool_and_ui8(
// UPSTREAM-NOT:  i1>
// UPSTREAM-NOT:  ui8
// The whole CPU pipeline then loads and stores bytes (an i1 memref would abort memref-to-LLVM),
// in the loops cpu-outline-loops moved out of the model's function.
// LLVM-LABEL:    llvm.func @bool_and_ui8_loop0(
// LLVM:            llvm.load {{.*}} : !llvm.ptr -> i8
// LLVM:          llvm.func @bool_and_ui8(
// LLVM:          llvm.func @_mlir_ciface_bool_and_ui8(
func.func @bool_and_ui8() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<4xui8> loc("a")
  %1 = "graph.placeholder"() {name = "b"} : () -> tensor<4xui8> loc("b")
  %2 = "graph.less"(%0, %1) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1> loc("less")
  %3 = "graph.constant"() {value = dense<[200, 1, 255, 0]> : tensor<4xui8>} : () -> tensor<4xui8> loc("c")
  %4 = "graph.max"(%0, %3) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8> loc("max")
  %5 = "graph.splat"() {value = true} : () -> tensor<4xi1> loc("t")
  %6 = "graph.equal"(%2, %5) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1> loc("eq")
  %7 = "graph.where"(%6, %4, %1) : (tensor<4xi1>, tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8> loc("where")
  "graph.save"(%6) {name = "m"} : (tensor<4xi1>) -> () loc("m")
  "graph.save"(%7) {name = "y"} : (tensor<4xui8>) -> () loc("y")
  return
}
