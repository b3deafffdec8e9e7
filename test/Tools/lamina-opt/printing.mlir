// RUN: lamina-opt %s --mlir-print-debuginfo | FileCheck %s --check-prefix=DEBUGINFO
// RUN: lamina-opt %s --mlir-elide-elementsattrs-if-larger=4 | FileCheck %s --check-prefix=ELIDED
// RUN: lamina-opt %s -o %t && FileCheck %s --check-prefix=FULL --input-file=%t
// RUN: lamina-opt < %s | FileCheck %s --check-prefix=FULL

// Locations, elision of large constants, output files and stdin, as the
// corresponding mlir-opt flags do.

// DEBUGINFO: "graph.constant"() {{.*}} loc(#[[LOC:loc[0-9]*]])
// DEBUGINFO: #[[LOC]] = loc("{{.*}}printing.mlir":[[# @LINE + 7]]:8)

// ELIDED: "graph.constant"() {value = dense_resource<__elided__> : tensor<8xf32>}
// ELIDED: "graph.constant"() {value = dense<[1, 2]> : tensor<2xi64>}

// FULL: "graph.constant"() {value = dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00]> : tensor<8xf32>}
func.func @main() {
  %0 = "graph.constant"() {value = dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf32>} : () -> tensor<8xf32>
  %1 = "graph.constant"() {value = dense<[1, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  return
}
