// RUN: not lamina-opt %s 2>&1 | FileCheck %s
// RUN: echo 'this is not mlir' | not lamina-opt 2>&1 | FileCheck %s --check-prefix=STDIN
// RUN: not lamina-opt %t.does-not-exist 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: echo 'module {}' | not lamina-opt -o %t.no-such-dir/out.mlir 2>&1 | FileCheck %s --check-prefix=UNWRITABLE

// Malformed input is one line naming the file, line and column, and exit
// status 1; files that cannot be read or written are one line too.

// CHECK-NOT:  Traceback
// CHECK:      malformed-input.mlir:[[# @LINE + 3]]:65: error: expected '>' in tensor type
// CHECK-NOT:  {{.}}
func.func @main() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32
  return
}

// STDIN:      <stdin>:1:1: error: custom op 'this' is unknown{{.*}}
// STDIN-NOT:  {{.}}
// MISSING:    lamina-opt: error: {{.*}}does-not-exist: cannot read: No such file or directory
// UNWRITABLE: lamina-opt: error: {{.*}}out.mlir: cannot write: No such file or directory
