// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-backend-transform)' | FileCheck %s
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-backend-transform{backend=accelerator})' | FileCheck %s
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-backend-transform{backend=reference-lowered})' | FileCheck %s

// No Lamina backend rewrites the lowered graph yet (the accelerator's own
// ops come with its dialects, below the graph level): the pass runs the
// backend's hook, which leaves the graph as it is, batch norm and softmax
// included. test_backends.py shows that the hook is called.

// CHECK-LABEL: func.func @main()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.constant"()
// CHECK-NEXT:    %2 = "graph.batch_norm"(%0, %1, %1, %1, %1)
// CHECK-NEXT:    %3 = "graph.softmax"(%2)
// CHECK-NEXT:    "graph.save"(%3) {name = "y"}
// CHECK-NEXT:    return
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x2x2xf32>
  %c = "graph.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %bn = "graph.batch_norm"(%x, %c, %c, %c, %c) {epsilon = 1.0e-5 : f32} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %sm = "graph.softmax"(%bn) {axis = 1 : i64} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  "graph.save"(%sm) {name = "y"} : (tensor<1x2x2x2xf32>) -> ()
  return
}
