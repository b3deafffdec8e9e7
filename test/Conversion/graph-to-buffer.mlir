// RUN: lamina-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(convert-graph-to-buffer)' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(convert-graph-to-buffer)' --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// A convolution layer: the placeholder, the constant and the save's output
// are declared first (Glow's `declare` section), in graph order; then each
// computation gets an alloc right before its instruction, whose first
// operand is that alloc (`out`) and whose other operands are the buffers
// holding graph.X's operands. The save becomes a copy into the output
// weight. Every dealloc is at the end, in allocation order; nothing is
// planned yet (offset -1).

// CHECK-LABEL: func.func @conv_relu()
// CHECK-NEXT:    %[[X:.*]] = "buffer.weight"() {mutable = true, name = "x", offset = -1 : i64, public = true} : () -> memref<1x2x4x4xf32>
// CHECK-NEXT:    %[[W:.*]] = "buffer.constant"() {name = "w", offset = -1 : i64, value = dense<5.000000e-01> : tensor<3x2x3x3xf32>} : () -> memref<3x2x3x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = "buffer.weight"() {mutable = true, name = "y", offset = -1 : i64, public = true} : () -> memref<1x3x4x4xf32>
// CHECK-NEXT:    %[[B:.*]] = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<3xf32>
// CHECK-NEXT:    "buffer.splat"(%[[B]]) {value = 0.000000e+00 : f32}
// CHECK-NEXT:    %[[CONV:.*]] = "buffer.alloc"() {name = "conv", offset = -1 : i64} : () -> memref<1x3x4x4xf32>
// CHECK-NEXT:    "buffer.convolution"(%[[CONV]], %[[X]], %[[W]], %[[B]]) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
// CHECK-NEXT:    %[[RELU:.*]] = "buffer.alloc"() {name = "relu", offset = -1 : i64} : () -> memref<1x3x4x4xf32>
// CHECK-NEXT:    "buffer.relu"(%[[RELU]], %[[CONV]])
// CHECK-NEXT:    "buffer.copy"(%[[Y]], %[[RELU]])
// CHECK-NEXT:    "buffer.dealloc"(%[[B]])
// CHECK-NEXT:    "buffer.dealloc"(%[[CONV]])
// CHECK-NEXT:    "buffer.dealloc"(%[[RELU]])
// CHECK-NEXT:    return
func.func @conv_relu() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x4x4xf32> loc("x")
  %1 = "graph.constant"() {value = dense<0.5> : tensor<3x2x3x3xf32>} : () -> tensor<3x2x3x3xf32> loc("w")
  %2 = "graph.splat"() {value = 0.0 : f32} : () -> tensor<3xf32> loc("b")
  %3 = "graph.convolution"(%0, %1, %2) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32> loc("conv")
  %4 = "graph.relu"(%3) : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> loc("relu")
  "graph.save"(%4) {name = "y"} : (tensor<1x3x4x4xf32>) -> () loc("y")
  return
}

// Each op keeps the location of the graph op it comes from: the alloc and
// the instruction the node's, the output weight and its copy the save's.

// LOC-LABEL: func.func @conv_relu()
// LOC:         "buffer.weight"() {{.*}}name = "x"{{.*}} loc([[XLOC:#loc[0-9]+]])
// LOC-NEXT:    "buffer.constant"() {{.*}} loc([[WLOC:#loc[0-9]+]])
// LOC-NEXT:    "buffer.weight"() {{.*}}name = "y"{{.*}} loc([[YLOC:#loc[0-9]+]])
// LOC-NEXT:    "buffer.alloc"() {{.*}} loc([[BLOC:#loc[0-9]+]])
// LOC-NEXT:    "buffer.splat"{{.*}} loc([[BLOC]])
// LOC-NEXT:    "buffer.alloc"() {{.*}} loc([[CONVLOC:#loc[0-9]+]])
// LOC-NEXT:    "buffer.convolution"{{.*}} loc([[CONVLOC]])
// LOC-NEXT:    "buffer.alloc"() {{.*}} loc([[RELULOC:#loc[0-9]+]])
// LOC-NEXT:    "buffer.relu"{{.*}} loc([[RELULOC]])
// LOC-NEXT:    "buffer.copy"{{.*}} loc([[YLOC]])
// LOC-NEXT:    "buffer.dealloc"{{.*}} loc([[BLOC]])
// LOC-NEXT:    "buffer.dealloc"{{.*}} loc([[CONVLOC]])
// LOC-NEXT:    "buffer.dealloc"{{.*}} loc([[RELULOC]])
// LOC-DAG:   [[XLOC]] = loc("x")
// LOC-DAG:   [[WLOC]] = loc("w")
// LOC-DAG:   [[YLOC]] = loc("y")
// LOC-DAG:   [[BLOC]] = loc("b")
// LOC-DAG:   [[CONVLOC]] = loc("conv")
// LOC-DAG:   [[RELULOC]] = loc("relu")

// -----

// A reshape is a view of its input's buffer (byte offset 0), never an
// alloc: of a weight, of an activation, and of another view. Saving a
// reshaped value copies from the view.

// CHECK-LABEL: func.func @reshape_views()
// CHECK-NEXT:    %[[X:.*]] = "buffer.weight"() {{.*}}name = "x"
// CHECK-NEXT:    %[[Y:.*]] = "buffer.weight"() {{.*}}name = "y"{{.*}} -> memref<6xf32>
// CHECK-NEXT:    %[[FLAT:.*]] = "buffer.view"(%[[X]]) {byte_offset = 0 : i64} : (memref<2x3xf32>) -> memref<6xf32>
// CHECK-NEXT:    %[[EXP:.*]] = "buffer.alloc"() {name = "exp", offset = -1 : i64} : () -> memref<6xf32>
// CHECK-NEXT:    "buffer.exp"(%[[EXP]], %[[FLAT]])
// CHECK-NEXT:    %[[UP:.*]] = "buffer.view"(%[[EXP]]) {byte_offset = 0 : i64} : (memref<6xf32>) -> memref<3x2xf32>
// CHECK-NEXT:    %[[BACK:.*]] = "buffer.view"(%[[UP]]) {byte_offset = 0 : i64} : (memref<3x2xf32>) -> memref<6xf32>
// CHECK-NEXT:    "buffer.copy"(%[[Y]], %[[BACK]])
// CHECK-NEXT:    "buffer.dealloc"(%[[EXP]])
// CHECK-NEXT:    return
func.func @reshape_views() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %1 = "graph.reshape"(%0) : (tensor<2x3xf32>) -> tensor<6xf32>
  %2 = "graph.exp"(%1) : (tensor<6xf32>) -> tensor<6xf32> loc("exp")
  %3 = "graph.reshape"(%2) : (tensor<6xf32>) -> tensor<3x2xf32>
  %4 = "graph.reshape"(%3) : (tensor<3x2xf32>) -> tensor<6xf32>
  "graph.save"(%4) {name = "y"} : (tensor<6xf32>) -> ()
  return
}

// -----

// An N-way concat is a chain of binary graph.concat ops: one alloc and one
// instruction each, the second reading the first's buffer. Without a
// location, an alloc is named after its op, uniquely.

// CHECK-LABEL: func.func @concat()
// CHECK-NEXT:    %[[A:.*]] = "buffer.weight"() {{.*}}name = "a"
// CHECK-NEXT:    %[[B:.*]] = "buffer.weight"() {{.*}}name = "b"
// CHECK-NEXT:    %[[C:.*]] = "buffer.weight"() {{.*}}name = "c"
// CHECK-NEXT:    %[[Y:.*]] = "buffer.weight"() {{.*}}name = "y"
// CHECK-NEXT:    %[[AB:.*]] = "buffer.alloc"() {name = "concat", offset = -1 : i64} : () -> memref<2x5xf32>
// CHECK-NEXT:    "buffer.concat"(%[[AB]], %[[A]], %[[B]]) {axis = 1 : i64}
// CHECK-NEXT:    %[[ABC:.*]] = "buffer.alloc"() {name = "concat.1", offset = -1 : i64} : () -> memref<2x9xf32>
// CHECK-NEXT:    "buffer.concat"(%[[ABC]], %[[AB]], %[[C]]) {axis = 1 : i64}
// CHECK-NEXT:    "buffer.copy"(%[[Y]], %[[ABC]])
// CHECK-NEXT:    "buffer.dealloc"(%[[AB]])
// CHECK-NEXT:    "buffer.dealloc"(%[[ABC]])
// CHECK-NEXT:    return
func.func @concat() {
  %0 = "graph.placeholder"() {name = "a"} : () -> tensor<2x2xf32>
  %1 = "graph.placeholder"() {name = "b"} : () -> tensor<2x3xf32>
  %2 = "graph.placeholder"() {name = "c"} : () -> tensor<2x4xf32>
  %3 = "graph.concat"(%0, %1) {axis = 1 : i64} : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x5xf32>
  %4 = "graph.concat"(%3, %2) {axis = 1 : i64} : (tensor<2x5xf32>, tensor<2x4xf32>) -> tensor<2x9xf32>
  "graph.save"(%4) {name = "y"} : (tensor<2x9xf32>) -> ()
  return
}

// -----

// Constants keep their data and are named after their location; names are
// unique, and never those of the model's inputs and outputs (a constant
// located "x" is "x.1"). An unnamed constant is "constant".

// CHECK-LABEL: func.func @constant_names()
// CHECK-NEXT:    "buffer.weight"() {{.*}}name = "x"
// CHECK-NEXT:    "buffer.constant"() {name = "bias", offset = -1 : i64, value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}
// CHECK-NEXT:    "buffer.constant"() {name = "bias.1", offset = -1 : i64, value = dense<[3.000000e+00, 4.000000e+00]> : tensor<2xf32>}
// CHECK-NEXT:    "buffer.constant"() {name = "x.1", offset = -1 : i64, value = dense<5.000000e+00> : tensor<2xf32>}
// CHECK-NEXT:    "buffer.constant"() {name = "constant", offset = -1 : i64, value = dense<[true, false]> : tensor<2xi1>}
// CHECK-NEXT:    "buffer.weight"() {{.*}}name = "y"
// CHECK-NEXT:    "buffer.alloc"() {name = "add"
// CHECK-NEXT:    "buffer.add"
// CHECK-NEXT:    "buffer.alloc"() {name = "add.1"
// CHECK-NEXT:    "buffer.add"
// CHECK-NEXT:    "buffer.alloc"() {name = "where"
// CHECK-NEXT:    "buffer.where"
func.func @constant_names() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2xf32>
  %1 = "graph.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32> loc("bias")
  %2 = "graph.constant"() {value = dense<[3.0, 4.0]> : tensor<2xf32>} : () -> tensor<2xf32> loc("bias")
  %3 = "graph.constant"() {value = dense<5.0> : tensor<2xf32>} : () -> tensor<2xf32> loc("x")
  %4 = "graph.constant"() {value = dense<[true, false]> : tensor<2xi1>} : () -> tensor<2xi1>
  %5 = "graph.add"(%0, %1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %6 = "graph.add"(%2, %3) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %7 = "graph.where"(%4, %5, %6) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  "graph.save"(%7) {name = "y"} : (tensor<2xf32>) -> ()
  return
}

// -----

// The interface stays whole: an unused input is still a weight; an input
// saved as it is is copied weight to weight (no alloc); a value saved twice
// gets two output weights and two copies. Unused computations still run
// (dead-store elimination is another pass's job).

// CHECK-LABEL: func.func @interface()
// CHECK-NEXT:    %[[X:.*]] = "buffer.weight"() {{.*}}name = "x"
// CHECK-NEXT:    %[[UNUSED:.*]] = "buffer.weight"() {{.*}}name = "unused"
// CHECK-NEXT:    %[[X_OUT:.*]] = "buffer.weight"() {{.*}}name = "x_out"
// CHECK-NEXT:    %[[Y1:.*]] = "buffer.weight"() {{.*}}name = "y1"
// CHECK-NEXT:    %[[Y2:.*]] = "buffer.weight"() {{.*}}name = "y2"
// CHECK-NEXT:    "buffer.copy"(%[[X_OUT]], %[[X]])
// CHECK-NEXT:    %[[NEG:.*]] = "buffer.alloc"() {name = "neg"
// CHECK-NEXT:    "buffer.neg"(%[[NEG]], %[[X]])
// CHECK-NEXT:    %[[ABS:.*]] = "buffer.alloc"() {name = "abs"
// CHECK-NEXT:    "buffer.abs"(%[[ABS]], %[[X]])
// CHECK-NEXT:    "buffer.copy"(%[[Y1]], %[[NEG]])
// CHECK-NEXT:    "buffer.copy"(%[[Y2]], %[[NEG]])
// CHECK-NEXT:    "buffer.dealloc"(%[[NEG]])
// CHECK-NEXT:    "buffer.dealloc"(%[[ABS]])
// CHECK-NEXT:    return
func.func @interface() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2xf32>
  %1 = "graph.placeholder"() {name = "unused"} : () -> tensor<2xf32>
  "graph.save"(%0) {name = "x_out"} : (tensor<2xf32>) -> ()
  %2 = "graph.neg"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  %3 = "graph.abs"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  "graph.save"(%2) {name = "y1"} : (tensor<2xf32>) -> ()
  "graph.save"(%2) {name = "y2"} : (tensor<2xf32>) -> ()
  return
}

// -----

// Nothing to convert: a function without graph ops stays as it is.

// CHECK-LABEL: func.func @empty()
// CHECK-NEXT:    return
func.func @empty() {
  return
}

// -----

// IRGen converts graph functions only: another dialect's op is an error at
// that op, and so is a function that is already at the buffer level.

func.func @not_graph() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2xf32>
  // expected-error @+1 {{'arith.constant' is not a graph op; IRGen converts graph functions only}}
  %c0 = arith.constant 0 : index
  "graph.save"(%0) {name = "y"} : (tensor<2xf32>) -> ()
  return
}

// -----

func.func @already_buffers() {
  // expected-error @+1 {{'buffer.weight' is not a graph op; IRGen converts graph functions only}}
  %0 = "buffer.weight"() {mutable = true, name = "x", offset = -1 : i64, public = true} : () -> memref<2xf32>
  return
}

// -----

// A save named like a placeholder (a training function's Save(SGD, W))
// writes that placeholder's weight in place: no second weight "w", and the
// copy comes after every other instruction, so after the multiply that still
// reads the old value. The save named "y" gets its own weight, as always.
// CHECK-LABEL: func.func @update_in_place()
// CHECK-NEXT:    %[[W:.*]] = "buffer.weight"() {mutable = true, name = "w", offset = -1 : i64, public = true} : () -> memref<4xf32>
// CHECK-NEXT:    %[[Y:.*]] = "buffer.weight"() {mutable = true, name = "y", offset = -1 : i64, public = true} : () -> memref<4xf32>
// CHECK-NOT:     name = "w"
// CHECK:         %[[NEW:.*]] = "buffer.alloc"() {name = "step", offset = -1 : i64}
// CHECK-NEXT:    "buffer.add"(%[[NEW]], %[[W]], %[[W]])
// CHECK:         "buffer.mul"(%[[SQUARE:.*]], %[[W]], %[[W]])
// CHECK-NEXT:    "buffer.copy"(%[[Y]], %[[SQUARE]])
// CHECK-NEXT:    "buffer.copy"(%[[W]], %[[NEW]])
// CHECK-NEXT:    "buffer.dealloc"(%[[NEW]])
func.func @update_in_place() {
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<4xf32> loc("w")
  %new = "graph.add"(%w, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("step")
  "graph.save"(%new) {name = "w"} : (tensor<4xf32>) -> () loc("update")
  %square = "graph.mul"(%w, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("square")
  "graph.save"(%square) {name = "y"} : (tensor<4xf32>) -> () loc("save")
  return
}
