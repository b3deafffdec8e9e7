// A malformed pipeline is one error naming the column, then the pipeline
// with a caret under that column; never a traceback.

// RUN: not lamina-opt %s --pass-pipeline='builtin.module(canonicalize cse)' 2>&1 | FileCheck %s --check-prefix=COMMA
// COMMA:      lamina-opt: error: pass pipeline, column 29: expected ',' or ')' after 'canonicalize'
// COMMA-NEXT:   builtin.module(canonicalize cse)
// COMMA-NEXT: {{^}}                              ^

// RUN: not lamina-opt %s --pass-pipeline='builtin.module(func.func(cse)' 2>&1 | FileCheck %s --check-prefix=PAREN
// PAREN: lamina-opt: error: pass pipeline, column 15: unbalanced '(': expected ')'

// RUN: not lamina-opt %s --pass-pipeline='builtin.module(cse))' 2>&1 | FileCheck %s --check-prefix=TRAILING
// TRAILING: lamina-opt: error: pass pipeline, column 20: unexpected ')' after the pipeline

// RUN: not lamina-opt %s --pass-pipeline='builtin.module(cse,,canonicalize)' 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: lamina-opt: error: pass pipeline, column 20: expected a pass name, found ','

// RUN: not lamina-opt %s --pass-pipeline='graph-dce,cse' 2>&1 | FileCheck %s --check-prefix=UNANCHORED
// UNANCHORED: lamina-opt: error: pass pipeline, column 1: a pass pipeline names the op it runs on: write 'builtin.module(...)'

// RUN: not lamina-opt %s --pass-pipeline='func.func(cse)' 2>&1 | FileCheck %s --check-prefix=ANCHOR
// ANCHOR: lamina-opt: error: pass pipeline, column 1: pipelines run on 'builtin.module', not 'func.func'

// RUN: not lamina-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations=3)' 2>&1 | FileCheck %s --check-prefix=BRACE
// BRACE: lamina-opt: error: pass pipeline, column 28: unbalanced '{': expected '}'

// RUN: not lamina-opt %s --pass-pipeline='builtin.module(graph-dce{aggressive=true})' 2>&1 | FileCheck %s --check-prefix=LAMINA-OPTION
// LAMINA-OPTION: lamina-opt: error: pass pipeline, column 16: graph-dce: unknown option 'aggressive' (it takes no options)

// RUN: not lamina-opt %s --pass-pipeline='builtin.module(cse, canonicalize{bogus=1})' 2>&1 | FileCheck %s --check-prefix=UPSTREAM-OPTION
// UPSTREAM-OPTION: lamina-opt: error: pass pipeline, column 21: MLIR rejects 'canonicalize{bogus=1}': {{.*}}no such option bogus

// RUN: not lamina-opt %s --pass-pipeline='builtin.module(promote-buffers-to-stack)' 2>&1 | FileCheck %s --check-prefix=NESTING
// NESTING: lamina-opt: error: pass pipeline, column 16: MLIR rejects 'promote-buffers-to-stack': {{.*}}restricted to 'func.func'{{.*}}did you intend to nest?

// COMMA-NOT: Traceback
func.func @main() {
  return
}
