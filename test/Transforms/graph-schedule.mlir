// RUN: lamina-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(graph-schedule)' | FileCheck %s --check-prefix=MEMORY
// RUN: lamina-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(graph-schedule{strategy=topological})' | FileCheck %s --check-prefix=TOPO

// The add's right operand needs 1 KiB on the way (the broadcast) and ends as
// 16 bytes: the memory scheduler computes it first, while nothing else is
// live, then the cheap left operand. The topological order keeps operand
// order, so the relu's result sits live beside the broadcast.

// MEMORY-LABEL: func.func @big_subtree_first()
// MEMORY-NEXT:    "graph.placeholder"
// MEMORY-NEXT:    "graph.broadcast"
// MEMORY-NEXT:    "graph.reduce_sum"
// MEMORY-NEXT:    "graph.relu"
// MEMORY-NEXT:    "graph.add"
// MEMORY-NEXT:    "graph.save"

// TOPO-LABEL: func.func @big_subtree_first()
// TOPO-NEXT:    "graph.placeholder"
// TOPO-NEXT:    "graph.relu"
// TOPO-NEXT:    "graph.broadcast"
// TOPO-NEXT:    "graph.reduce_sum"
// TOPO-NEXT:    "graph.add"
// TOPO-NEXT:    "graph.save"
func.func @big_subtree_first() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x4xf32>
  %left = "graph.relu"(%x) : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %big = "graph.broadcast"(%x) : (tensor<1x4xf32>) -> tensor<64x4xf32>
  %right = "graph.reduce_sum"(%big) {axes = array<i64: 0>, keepdims = true} : (tensor<64x4xf32>) -> tensor<1x4xf32>
  %sum = "graph.add"(%left, %right) : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  "graph.save"(%sum) {name = "y"} : (tensor<1x4xf32>) -> ()
  return
}

// -----

// Placeholders come first and each constant right before its first user,
// wherever they were. The memory scheduler runs a save right after the value
// it saves (so the value can die), the topological order from its root.

// MEMORY-LABEL: func.func @interface_ops()
// MEMORY-NEXT:    "graph.placeholder"() {name = "x"}
// MEMORY-NEXT:    "graph.placeholder"() {name = "unused"}
// MEMORY-NEXT:    "graph.relu"
// MEMORY-NEXT:    "graph.save"{{.*}}{name = "early"}
// MEMORY-NEXT:    "graph.constant"
// MEMORY-NEXT:    "graph.mul"
// MEMORY-NEXT:    "graph.save"{{.*}}{name = "late"}

// TOPO-LABEL: func.func @interface_ops()
// TOPO-NEXT:    "graph.placeholder"() {name = "x"}
// TOPO-NEXT:    "graph.placeholder"() {name = "unused"}
// TOPO-NEXT:    "graph.relu"
// TOPO-NEXT:    "graph.constant"
// TOPO-NEXT:    "graph.mul"
// TOPO-NEXT:    "graph.save"{{.*}}{name = "late"}
// TOPO-NEXT:    "graph.save"{{.*}}{name = "early"}
func.func @interface_ops() {
  %c = "graph.constant"() {value = dense<2.0> : tensor<2x3xf32>} : () -> tensor<2x3xf32>
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %r = "graph.relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = "graph.mul"(%r, %c) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %u = "graph.placeholder"() {name = "unused"} : () -> tensor<2x3xf32>
  "graph.save"(%m) {name = "late"} : (tensor<2x3xf32>) -> ()
  "graph.save"(%r) {name = "early"} : (tensor<2x3xf32>) -> ()
  return
}

// -----

// A chain already in order: nothing moves under either strategy. An op
// nobody uses is a root of its own and is kept.

// MEMORY-LABEL: func.func @in_order()
// MEMORY-NEXT:    "graph.placeholder"
// MEMORY-NEXT:    "graph.sigmoid"
// MEMORY-NEXT:    "graph.tanh"
// MEMORY-NEXT:    "graph.save"
// MEMORY-NEXT:    "graph.exp"
// MEMORY-NEXT:    return

// TOPO-LABEL: func.func @in_order()
// TOPO-NEXT:    "graph.placeholder"
// TOPO-NEXT:    "graph.sigmoid"
// TOPO-NEXT:    "graph.tanh"
// TOPO-NEXT:    "graph.save"
// TOPO-NEXT:    "graph.exp"
// TOPO-NEXT:    return
func.func @in_order() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<8xf32>
  %s = "graph.sigmoid"(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %t = "graph.tanh"(%s) : (tensor<8xf32>) -> tensor<8xf32>
  "graph.save"(%t) {name = "y"} : (tensor<8xf32>) -> ()
  %dead = "graph.exp"(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

// Functions without graph ops are not the scheduler's business.

// MEMORY-LABEL: func.func @no_graph_ops()
// MEMORY-NEXT:    arith.constant 1
// MEMORY-NEXT:    arith.constant 2
// TOPO-LABEL: func.func @no_graph_ops()
func.func @no_graph_ops() {
  %a = arith.constant 1 : i32
  %b = arith.constant 2 : i32
  return
}

// -----

// An op of another dialect among graph ops may have effects the scheduler
// cannot see: it refuses to reorder the function.

func.func @mixed() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2xf32>
  // expected-error @+1 {{graph-schedule orders functions of graph ops only; 'arith.constant' may have effects it cannot see}}
  %c = arith.constant 0 : index
  "graph.save"(%x) {name = "y"} : (tensor<2xf32>) -> ()
  return
}
