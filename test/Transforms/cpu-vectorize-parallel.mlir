// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(convert-graph-to-linalg,linalg-convolution-to-matmuls,cpu-vectorize{parallel=true})' | FileCheck %s

// With `parallel`, the register tiles of each op's outermost tiled parallel loop are the
// iterations of an scf.forall (the threads' work items), and the other loops stay scf.for inside
// it in the sequential schedule's order: a 16 x 12 x 256 matmul's 2 row tiles of 8 are shared
// out, the 8 column tiles of 32 and the depth loop run inside each.

// CHECK-LABEL: func.func @matmul
// CHECK:         scf.forall (%{{.*}}) in (2) shared_outs({{.*}}) -> (tensor<16x256xf32>)
// CHECK:           scf.for %{{.*}} = %c0 to %c256 step %c32
// CHECK:             scf.for %{{.*}} = %c0 to %c12 step %c1 iter_args({{.*}}) -> (vector<8x32xf32>)
// CHECK:               vector.outerproduct {{.*}} : vector<8xf32>, vector<32xf32>
// CHECK:           scf.forall.in_parallel
// CHECK-NOT:     linalg.matmul
func.func @matmul() {
  %a = "graph.placeholder"() {name = "a"} : () -> tensor<16x12xf32>
  %b = "graph.placeholder"() {name = "b"} : () -> tensor<12x256xf32>
  %y = "graph.matmul"(%a, %b) : (tensor<16x12xf32>, tensor<12x256xf32>) -> tensor<16x256xf32>
  "graph.save"(%y) {name = "y"} : (tensor<16x256xf32>) -> ()
  return
}

// -----

// With a single row tile (2 rows, untiled) the columns are shared out: 4 tiles of 32.

// CHECK-LABEL: func.func @columns
// CHECK:         scf.forall (%{{.*}}) in (4) shared_outs({{.*}}) -> (tensor<2x128xf32>)
// CHECK:           scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args({{.*}}) -> (vector<2x32xf32>)
func.func @columns() {
  %a = "graph.placeholder"() {name = "a"} : () -> tensor<2x8xf32>
  %b = "graph.placeholder"() {name = "b"} : () -> tensor<8x128xf32>
  %y = "graph.matmul"(%a, %b) : (tensor<2x8xf32>, tensor<8x128xf32>) -> tensor<2x128xf32>
  "graph.save"(%y) {name = "y"} : (tensor<2x128xf32>) -> ()
  return
}

// -----

// Not firing: an op whose parallel loops are single tiles (2 x 12 x 32: rows and columns untiled)
// gets no forall; only its depth loop is tiled.

// CHECK-LABEL: func.func @single_tile
// CHECK-NOT:     scf.forall
// CHECK:         scf.for %{{.*}} = %c0 to %c12 step %c1 iter_args
// CHECK-NOT:     scf.forall
func.func @single_tile() {
  %a = "graph.placeholder"() {name = "a"} : () -> tensor<2x12xf32>
  %b = "graph.placeholder"() {name = "b"} : () -> tensor<12x32xf32>
  %y = "graph.matmul"(%a, %b) : (tensor<2x12xf32>, tensor<12x32xf32>) -> tensor<2x32xf32>
  "graph.save"(%y) {name = "y"} : (tensor<2x32xf32>) -> ()
  return
}
