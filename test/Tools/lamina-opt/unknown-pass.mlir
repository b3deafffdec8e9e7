// RUN: not lamina-opt %s --pass-pipeline='builtin.module(canonicalize, graph-dec)' 2>&1 | FileCheck %s
// RUN: not lamina-opt %s --pass-pipeline='builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=NO-MATCH

// An unknown pass is one line naming it and its column, suggesting close
// matches among Lamina's passes and pointing at --list-passes.

// CHECK:      lamina-opt: error: pass pipeline, column 30: unknown pass or pipeline 'graph-dec'; did you mean 'graph-dce' or 'graph-cse'? (see lamina-opt --list-passes)
// CHECK-NEXT:   builtin.module(canonicalize, graph-dec)
// CHECK-NEXT: {{^}}                               ^
// CHECK-NOT:  Traceback

// NO-MATCH: lamina-opt: error: pass pipeline, column 16: unknown pass or pipeline 'no-such-pass' (see lamina-opt --list-passes)
func.func @main() {
  return
}
