// RUN: lamina-opt %s --pass-pipeline='builtin.module(convert-graph-to-hir{arch=%S/Inputs/tiny.tarch})' | FileCheck %s

// The model's interface: `hir.inputs` and `hir.outputs` name it in order.
// Outputs no layer writes under their own name (a model input, a constant,
// the second name of a value the accelerator computes) are saved by a last
// host segment, which reads the input from the host and the value from its
// Vars. Not firing: an output a layer computes is its Vars (here "y").

// CHECK:       module attributes {hir.architecture = "{{.*}}\22name\22: \22tiny\22{{.*}}", hir.inputs = ["x"], hir.outputs = ["same_as_x", "y", "z", "k"]}
// CHECK:         %[[X:.*]] = "hir.vars"() {base = 0 : i64, binary_point = 8 : i64, name = "x"} : () -> memref<1x4xi16>
// CHECK-NEXT:    %[[Y:.*]] = "hir.vars"() {base = 1 : i64, binary_point = 8 : i64, name = "y"} : () -> memref<1x4xi16>
// CHECK:         "hir.relu"
// CHECK-NEXT:    "hir.save"(%[[Y]], %{{.*}}) {layer = 0 : i64}
// CHECK-NEXT:    "hir.host"() {module = "module {{.*}}{name = \22x\22}{{.*}}{name = \22y\22}{{.*}}{name = \22same_as_x\22}{{.*}}{name = \22z\22}{{.*}}dense<1.500000e+00> : tensor<2xf32>{{.*}}{name = \22k\22}{{.*}}", segment = 0 : i64}
// CHECK-NEXT:    return
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x4xf32>
  %r = "graph.relu"(%x) : (tensor<1x4xf32>) -> tensor<1x4xf32> loc("relu")
  %c = "graph.constant"() {value = dense<1.5> : tensor<2xf32>} : () -> tensor<2xf32>
  "graph.save"(%x) {name = "same_as_x"} : (tensor<1x4xf32>) -> ()
  "graph.save"(%r) {name = "y"} : (tensor<1x4xf32>) -> ()
  "graph.save"(%r) {name = "z"} : (tensor<1x4xf32>) -> ()
  "graph.save"(%c) {name = "k"} : (tensor<2xf32>) -> ()
  return
}
