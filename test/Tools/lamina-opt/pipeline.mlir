// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-dce, canonicalize, func.func(cse))' | FileCheck %s
// RUN: lamina-opt %s -p 'builtin.module(func.func(cse, graph-dce))' | FileCheck %s --check-prefix=NESTED

// One pipeline mixes Lamina's graph-dce with upstream canonicalize and cse.
// Upstream passes cannot erase graph ops (IRDL ops have no traits, so MLIR
// must assume side effects) but do clean up arith; graph-dce erases the dead
// graph ops.

// CHECK-LABEL: func.func @main()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.relu"(%0)
// CHECK-NEXT:    "graph.save"(%1) {name = "y"}
// CHECK-NEXT:    return

// Nested under func.func, graph-dce runs on each function after cse (which
// merges the constants and leaves one, as there is no canonicalize here).

// NESTED-LABEL: func.func @main()
// NESTED-NEXT:    %c1_i32 = arith.constant 1 : i32
// NESTED-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// NESTED-NEXT:    %1 = "graph.relu"(%0)
// NESTED-NEXT:    "graph.save"(%1) {name = "y"}
// NESTED-NEXT:    return
func.func @main() {
  %c1 = arith.constant 1 : i32
  %c1_again = arith.constant 1 : i32
  %sum = arith.addi %c1, %c1_again : i32
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %1 = "graph.relu"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "graph.exp"(%1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  "graph.save"(%1) {name = "y"} : (tensor<2x3xf32>) -> ()
  return
}
