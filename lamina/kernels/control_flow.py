"""Interpreter kernels of the region-carrying graph ops: If, Loop, Scan; and of dynamic_slice, the slice a
loop body takes at its iteration number.

A region kernel gets the op, its `Node`, its operand arrays and `run_region`
(block, argument arrays) -> yielded arrays, which the interpreter provides so
that a region sees the values of its enclosing blocks.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from mlir import ir

from lamina.dialects.graph_control_flow import dynamic_starts, region_block

from .graph_kernels import KernelError, Node, kernel

RunRegion = Callable[[ir.Block, list[np.ndarray]], list[np.ndarray]]
RegionKernel = Callable[[ir.Operation, Node, list[np.ndarray], RunRegion], list[np.ndarray]]
REGION_KERNELS: dict[str, RegionKernel] = {}


def region_kernel(name: str):
    def register(function: RegionKernel) -> RegionKernel:
        REGION_KERNELS[name] = function
        return function

    return register


def truth(array: np.ndarray) -> bool:
    """The value of a one-element condition tensor."""
    return bool(np.asarray(array).reshape(-1)[0])


@kernel("dynamic_slice")
def dynamic_slice(node: Node, data: np.ndarray, starts: np.ndarray) -> np.ndarray:
    index = [slice(None)] * data.ndim
    for axis, start, step in zip(node.attrs["axes"], starts.tolist(), node.attrs["steps"]):
        size = node.result.shape[axis]
        first = dynamic_starts(start, size, data.shape[axis], step)
        index[axis] = slice(first, first + (size - 1) * step + 1, step)
    return data[tuple(index)]


@region_kernel("if")
def run_if(op, node, operands, run_region):
    return run_region(region_block(op, 0 if truth(operands[0]) else 1), [])


@region_kernel("loop")
def run_loop(op, node, operands, run_region):
    trip_count, condition, *carried = operands
    body = region_block(op, 0)
    scan_specs = node.results[len(carried):]
    slices: list[list[np.ndarray]] = [[] for _ in scan_specs]
    iteration, keep_going = 0, truth(condition)
    while iteration < int(trip_count) and keep_going:
        condition, *rest = run_region(body, [np.array(iteration, np.int64), np.asarray(condition), *carried])
        carried = rest[:len(carried)]
        for collected, value in zip(slices, rest[len(carried):]):
            collected.append(value)
        keep_going = truth(condition)
        iteration += 1
    stacked = []
    for spec, collected in zip(scan_specs, slices):
        if iteration != spec.shape[0]:
            raise KernelError(f"the loop ran {iteration} iterations, but its scan outputs have the static length "
                              f"{spec.shape[0]}")
        stacked.append(np.stack(collected) if collected else np.zeros(spec.shape, spec.dtype))
    return [*carried, *stacked]


def _positions(length: int, direction: int) -> range:
    return range(length - 1, -1, -1) if direction else range(length)


@region_kernel("scan")
def run_scan(op, node, operands, run_region):
    attrs = node.attrs
    states = operands[:len(operands) - attrs["num_scan_inputs"]]
    inputs = operands[len(states):]
    axes, directions = attrs["scan_input_axes"], attrs["scan_input_directions"]
    length = inputs[0].shape[axes[0]]
    body = region_block(op, 0)
    slices: list[list[np.ndarray]] = [[] for _ in attrs["scan_output_axes"]]
    for step in range(length):
        arguments = [np.take(x, _positions(length, d)[step], axis=a) for x, a, d in zip(inputs, axes, directions)]
        states, outputs = _split(run_region(body, [*states, *arguments]), len(states))
        for collected, value in zip(slices, outputs):
            collected.append(value)
    stacked = []
    for collected, axis, direction in zip(slices, attrs["scan_output_axes"], attrs["scan_output_directions"]):
        ordered = collected[::-1] if direction else collected
        stacked.append(np.stack(ordered, axis=axis))
    return [*states, *stacked]


def _split(values: list[np.ndarray], count: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    return values[:count], values[count:]
