// RUN: lamina-opt --list-passes | FileCheck %s

// CHECK-LABEL: Lamina passes:
// CHECK:         graph-dce Erase graph ops whose results are unused
// CHECK:         graph-verify Check every op's structural and shape rules
// CHECK-LABEL: Lamina pipelines:
// CHECK:       Upstream MLIR passes (canonicalize, cse, ...) are accepted too
