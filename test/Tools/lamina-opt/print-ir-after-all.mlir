// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-dce, canonicalize, func.func(cse))' \
// RUN:   --mlir-print-ir-after-all -o %t 2>&1 | FileCheck %s

// Lamina and upstream passes run in one MLIR pass manager, so MLIR's IR
// printing shows every pass, in pipeline order, as mlir-opt does.

// CHECK:      // -----// IR Dump After GraphDCE (graph-dce) //----- //
// CHECK-NEXT: module {
// CHECK-NOT:  graph.exp
// CHECK:      arith.addi
// CHECK:      // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// CHECK-NOT:  arith.addi
// CHECK:      // -----// IR Dump After CSE (cse) //----- //
// CHECK-NEXT: func.func @main()
// CHECK-NOT:  IR Dump
func.func @main() {
  %c1 = arith.constant 1 : i32
  %sum = arith.addi %c1, %c1 : i32
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %1 = "graph.exp"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  "graph.save"(%0) {name = "y"} : (tensor<2x3xf32>) -> ()
  return
}
