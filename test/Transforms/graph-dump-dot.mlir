// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-dump-dot{output=%t.dot})' | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --input-file=%t.dot
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-dump-dot)' 2>&1 >/dev/null | FileCheck %s
// RUN: not lamina-opt %s --pass-pipeline='builtin.module(graph-dump-dot{output=%t.missing/graph.dot})' 2>&1 | FileCheck %s --check-prefix=UNWRITABLE

// The model function as a DOT graph: one record per op with its name, the
// ONNX node it came from, its attributes and result type; inputs, constants
// and outputs filled in their own colours (constants show their values up
// to 8 elements, else their count); one edge per operand, from the
// producer, labelled with the operand's name. Written to a file or to stderr;
// the IR itself goes through unchanged.

// IR:      %0 = "graph.placeholder"() {name = "x"}
// IR-NEXT: %1 = "graph.constant"()
// IR-NEXT: %2 = "graph.splat"()
// IR-NEXT: %3 = "graph.fully_connected"(%0, %1, %2)
// IR-NEXT: %4 = "graph.relu"(%3)
// IR-NEXT: "graph.save"(%4) {name = "y"}

// CHECK:      digraph "main" {
// CHECK:        op0 [label="{graph.placeholder|name: x|tensor\<2x3xf32\>}", fillcolor="#cfe2f3"];
// CHECK-NEXT:   op1 [label="{graph.constant|value: 12 elements|tensor\<3x4xf32\>}", fillcolor="#e6e6e6"];
// CHECK-NEXT:   op2 [label="{graph.splat|value: 0.5|tensor\<4xf32\>}", fillcolor="#e6e6e6"];
// CHECK-NEXT:   op3 [label="{graph.fully_connected|fc1|tensor\<2x4xf32\>}"];
// CHECK-NEXT:   op0 -> op3 [label="input"];
// CHECK-NEXT:   op1 -> op3 [label="weights"];
// CHECK-NEXT:   op2 -> op3 [label="bias"];
// CHECK-NEXT:   op4 [label="{graph.relu|relu1|tensor\<2x4xf32\>}"];
// CHECK-NEXT:   op3 -> op4 [label="input"];
// CHECK-NEXT:   op5 [label="{graph.save|name: y}", fillcolor="#f9cb9c"];
// CHECK-NEXT:   op4 -> op5 [label="input"];
// CHECK-NEXT: }

// UNWRITABLE: error: {{.*}}graph.dot: cannot write: No such file or directory
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %w = "graph.constant"() {value = dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>} : () -> tensor<3x4xf32>
  %b = "graph.splat"() {value = 0.5 : f32} : () -> tensor<4xf32>
  %fc = "graph.fully_connected"(%x, %w, %b) : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32> loc("fc1")
  %y = "graph.relu"(%fc) : (tensor<2x4xf32>) -> tensor<2x4xf32> loc("relu1")
  "graph.save"(%y) {name = "y"} : (tensor<2x4xf32>) -> ()
  return
}
