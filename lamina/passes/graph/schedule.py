"""graph-schedule: order a graph function's ops for IRGen (Glow's graph scheduler)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Literal

from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.graph_control_flow import outer_operands
from lamina.dialects.irdl import STORAGE
from lamina.dialects.types import spec_of
from lamina.passes.options import option
from lamina.passes.registry import Pass, PassError, register_pass

# Graph ops that hold data rather than compute it: they become weights at the
# buffer level, so they take no activation memory and are not scheduled
# (Glow's `Storage` nodes).
STORAGE_OPS = GRAPH.with_trait(STORAGE)


@register_pass
@dataclass(frozen=True)
class GraphSchedule(Pass):
    """Reorder each graph function so IRGen's instruction order keeps little memory live.

    IRGen emits instructions in op order, so the order fixes every
    activation's lifetime and thus the schedule's peak memory. Two of Glow's
    schedulers:

    - `memory` (Glow's default, ChildMemSizeBasedScheduler, a generalized
      Sethi-Ullman order): a depth-first walk from the function's roots
      (saves, unused ops) that computes an op's operands largest
      `max memory - result memory` first, so the subtree that frees the most
      memory once done runs while little else is live; an op's saves run
      right after it, so a saved value dies as soon as possible.
    - `topological` (Glow's TopologicalSortBasedScheduler): the plain
      post-order of that walk, operands in order.

    Placeholders come first, in their original order; each constant comes
    right before its first user (constants nobody uses stay with the
    placeholders). Any topological order of pure ops computes the same
    values, so the pass is legal on any graph function; it orders whole
    entry blocks and refuses (with an error at the op) functions that hold
    ops of other dialects, whose effects it cannot see.
    """

    name = "graph-schedule"
    summary = "Order graph ops to keep peak activation memory low (Glow's graph scheduler)"

    strategy: Literal["memory", "topological"] = option("memory", "memory: child-memory-size order; "
                                                                  "topological: plain post-order")

    def run(self, op: ir.Operation) -> None:
        for block in _graph_function_blocks(op):
            graph = _Graph(block)
            order = graph.memory_order() if self.strategy == "memory" else graph.topological_order()
            terminator = block.operations[len(block.operations) - 1].operation
            for index in graph.with_storage(order):
                graph.ops[index].move_before(terminator)


def _graph_function_blocks(root: ir.Operation) -> list[ir.Block]:
    """The entry blocks of the functions under `root` that hold graph ops."""
    blocks = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "func.func" and len(op.regions[0].blocks) and _holds_graph_ops(op.regions[0].blocks[0]):
            blocks.append(op.regions[0].blocks[0])
        return ir.WalkResult.ADVANCE

    root.walk(visit, ir.WalkOrder.PRE_ORDER)
    return blocks


def _holds_graph_ops(block: ir.Block) -> bool:
    return any(GRAPH.lookup(op.operation) is not None for op in block.operations)


class _Graph:
    """A block's ops as a dependence graph, by index in program order."""

    def __init__(self, block: ir.Block):
        self.ops = [op.operation for op in block.operations][:-1]  # the terminator stays last
        for op in self.ops:
            if GRAPH.lookup(op) is None:
                raise PassError(f"graph-schedule orders functions of graph ops only; '{op.name}' may have "
                                "effects it cannot see", op.location)
        index_of = {result: i for i, op in enumerate(self.ops) for result in op.results}
        self.kinds = [GRAPH.lookup(op).name for op in self.ops]
        # Operands produced in this block, in operand order (repeats kept: they do not matter); a region
        # op's regions' reads of this block's values too, so those are computed before it.
        self.inputs = [[index_of[v] for v in (*op.operands, *outer_operands(op)) if v in index_of] for op in self.ops]
        self.users: list[list[int]] = [[] for _ in self.ops]
        for user, inputs in enumerate(self.inputs):
            for producer in dict.fromkeys(inputs):
                self.users[producer].append(user)
        self.result_bytes = [0 if kind in STORAGE_OPS else sum(spec_of(r.type).nbytes for r in op.results)
                             for op, kind in zip(self.ops, self.kinds)]

    def is_storage(self, node: int) -> bool:
        return self.kinds[node] in STORAGE_OPS

    def roots(self) -> list[int]:
        return [node for node, users in enumerate(self.users) if not users]

    # -- Glow's TopologicalSortBasedScheduler --------------------------------

    def topological_order(self) -> list[int]:
        scheduler = _DepthFirst(self, lambda node: self.inputs[node], lambda node: ())
        return scheduler.run()

    # -- Glow's ChildMemSizeBasedScheduler -----------------------------------

    def memory_order(self) -> list[int]:
        max_bytes = self._max_bytes()
        freed = [max_bytes[n] - self.result_bytes[n] for n in range(len(self.ops))]

        def children(node: int) -> list[int]:
            # Stable: among equals, operand order.
            return sorted(self.inputs[node], key=lambda child: -freed[child])

        def free_users(node: int) -> list[int]:
            # Users nothing reads that need no memory (saves): run them now, so the value dies early.
            return [user for user in self.users[node] if not self.users[user] and self.result_bytes[user] == 0]

        return _DepthFirst(self, children, free_users).run()

    def _max_bytes(self) -> list[int]:
        """Glow's `maxMemSize`: the most memory live while an op's operands are computed.

        Operand 0 is computed first; each later operand's result then stays
        live beside the earlier ones' (program order is topological).
        """
        max_bytes = [0] * len(self.ops)
        for node, inputs in enumerate(self.inputs):
            if not inputs:
                continue
            first, *others = inputs
            peak = max(self.result_bytes[first], max_bytes[first])
            for other in others:
                if self.is_storage(other):
                    continue
                peak = max(peak + self.result_bytes[other], max_bytes[other])
            max_bytes[node] = peak
        return max_bytes

    # -- Placing what the schedulers leave out --------------------------------

    def with_storage(self, order: list[int]) -> list[int]:
        """`order` with placeholders first and each constant right before its first user."""
        full = [n for n in range(len(self.ops))
                if self.kinds[n] == "placeholder" or (self.is_storage(n) and not self.users[n])]
        placed = set(full)
        for node in order:
            for producer in self.inputs[node]:
                if self.is_storage(producer) and producer not in placed:
                    placed.add(producer)
                    full.append(producer)
            full.append(node)
        return full


class _DepthFirst:
    """Glow's scheduling walk: from each root in program order, schedule an op
    after its `children` (in the order given) and follow it with its `followers`.

    Storage ops are never scheduled here. The recursion runs on an explicit
    stack of generators: chains of thousands of ops are common.
    """

    def __init__(self, graph: _Graph, children, followers):
        self.graph = graph
        self.children = children
        self.followers = followers
        self.scheduled: list[int] = []
        self.done: set[int] = set()

    def run(self) -> list[int]:
        for root in self.graph.roots():
            stack = [self._visit(root)]
            while stack:
                child = next(stack[-1], None)
                if child is None:
                    stack.pop()
                else:
                    stack.append(self._visit(child))
        return self.scheduled

    def _visit(self, node: int) -> Iterator[int]:
        if node in self.done or self.graph.is_storage(node):
            return
        yield from self.children(node)
        if node in self.done:  # scheduled meanwhile, by a child's followers
            return
        self.done.add(node)
        self.scheduled.append(node)
        yield from self.followers(node)
