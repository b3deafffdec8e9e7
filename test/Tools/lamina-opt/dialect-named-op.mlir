// RUN: not lamina-opt --split-input-file %s 2>&1 | FileCheck %s

// MLIR 22's parser aborts the process ("LLVM ERROR: ... created with
// unregistered dialect") on a generic op named after a loaded dialect with
// no op after it. Lamina refuses such names before parsing: one error line,
// exit status 1, never an abort. A location named like a dialect is fine.

// CHECK:  dialect-named-op.mlir:[[# @LINE + 2]]:3: error: 'graph.' is not an operation name
"builtin.module"() ({
  "graph."() : () -> ()
}) : () -> ()

// -----

// CHECK:  dialect-named-op.mlir:[[# @LINE + 1]]:6: error: 'hir' is not an operation name
%0 = "hir"() : () -> i32

// -----

// CHECK:  dialect-named-op.mlir:[[# @LINE + 1]]:1: error: 'lir.' is not an operation name
"lir."() : () -> ()

// -----

// An escaped name is the same name: \2e is '.'.
// CHECK:  dialect-named-op.mlir:[[# @LINE + 1]]:1: error: 'func.' is not an operation name
"func\2e"() : () -> ()

// -----

// Not fired: a location named "graph" and an op name inside a comment: "graph."()
// CHECK:  node 'graph', node 'hir': error: unregistered operation 'graph.nothing'
"graph.nothing"() : () -> () loc(fused["graph"("a.mlir":1:1), "hir"])
// CHECK-NOT: Traceback
// CHECK-NOT: LLVM ERROR

// -----

// A dense array of index elements aborts the parser too (an assertion).
// CHECK:  dialect-named-op.mlir:[[# @LINE + 1]]:27: error: a dense array holds integers or floats, not index
"graph.nothing"() {perm = array<index: 0, 1>} : () -> ()

// -----

// Reading an integer attribute wider than 64 bits aborted in the bindings (APInt).
// CHECK:  dialect-named-op.mlir:[[# @LINE + 1]]:1: error: 'hir.temp' op attribute 'layer' must be i64: integer attribute 9223372036854775808 : i256 must have at most 64 bits
"hir.temp"() {binary_point = 8 : i64, layer = 9223372036854775808 : i256} : () -> memref<1x4x3x3xi16>
