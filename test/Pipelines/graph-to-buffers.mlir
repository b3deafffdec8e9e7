// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-to-buffers)' | FileCheck %s --check-prefix=MEMORY
// RUN: lamina-opt %s --pass-pipeline='builtin.module(graph-to-buffers{scheduler=topological})' \
// RUN:   | FileCheck %s --check-prefix=TOPO

// The whole path on a small graph. The memory scheduler computes the add's
// expensive right operand (a 2 KiB broadcast reduced to 256 bytes) before the
// cheap relu, so the relu's result is never live beside the broadcast
// (2304 bytes instead of 2560). In both, deallocs follow last uses, the add
// runs in place over the relu's buffer, the final reduction writes the output
// weight directly (IRGen's copy is gone), and the relu reuses the
// broadcast's bytes once it is dead. Peaks meet their lower bounds.

// MEMORY:      module attributes {buffer.activation_bytes = 2304 : i64, buffer.activation_lower_bound_bytes = 2304 : i64,
// MEMORY-SAME:   buffer.constant_bytes = 0 : i64, buffer.mutable_bytes = 384 : i64}
// MEMORY:        %[[X:.*]] = "buffer.weight"() {mutable = true, name = "x", offset = 0 : i64, public = true}
// MEMORY-NEXT:   %[[Y:.*]] = "buffer.weight"() {mutable = true, name = "y", offset = 64 : i64, public = true}
// MEMORY-NEXT:   %[[Z:.*]] = "buffer.weight"() {mutable = true, name = "z", offset = 320 : i64, public = true}
// MEMORY-NEXT:   %[[BIG:.*]] = "buffer.alloc"() {name = "broadcast", offset = 0 : i64}
// MEMORY-NEXT:   "buffer.broadcast"(%[[BIG]], %[[X]])
// MEMORY-NEXT:   %[[RIGHT:.*]] = "buffer.alloc"() {name = "reduce_max", offset = 2048 : i64}
// MEMORY-NEXT:   "buffer.reduce_max"(%[[RIGHT]], %[[BIG]])
// MEMORY-NEXT:   "buffer.dealloc"(%[[BIG]])
// MEMORY-NEXT:   %[[LEFT:.*]] = "buffer.alloc"() {name = "relu", offset = 0 : i64}
// MEMORY-NEXT:   "buffer.relu"(%[[LEFT]], %[[Y]])
// MEMORY-NEXT:   "buffer.add"(%[[LEFT]], %[[LEFT]], %[[RIGHT]])
// MEMORY-NEXT:   "buffer.dealloc"(%[[RIGHT]])
// MEMORY-NEXT:   "buffer.reduce_sum"(%[[Z]], %[[LEFT]])
// MEMORY-NEXT:   "buffer.dealloc"(%[[LEFT]])
// MEMORY-NEXT:   return

// TOPO:        module attributes {buffer.activation_bytes = 2560 : i64, buffer.activation_lower_bound_bytes = 2560 : i64,
// TOPO:          "buffer.alloc"() {name = "relu"
// TOPO-NEXT:     "buffer.relu"
// TOPO-NEXT:     "buffer.alloc"() {name = "broadcast"
// TOPO-NEXT:     "buffer.broadcast"
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x16xf32>
  %y = "graph.placeholder"() {name = "y"} : () -> tensor<4x16xf32>
  %left = "graph.relu"(%y) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %big = "graph.broadcast"(%x) : (tensor<1x16xf32>) -> tensor<8x4x16xf32>
  %right = "graph.reduce_max"(%big) {axes = array<i64: 0>, keepdims = false} : (tensor<8x4x16xf32>) -> tensor<4x16xf32>
  %sum = "graph.add"(%left, %right) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %z = "graph.reduce_sum"(%sum) {axes = array<i64: 0>, keepdims = true} : (tensor<4x16xf32>) -> tensor<1x16xf32>
  "graph.save"(%z) {name = "z"} : (tensor<1x16xf32>) -> ()
  return
}
