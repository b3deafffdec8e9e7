"""Activations that stay in local memory between layers instead of a DRAM0 save/load pair.

Tensil's default (`local-isolated`) and Lamina's scheduler so far round-trip
every layer's output through DRAM0: accumulators -> local -> DRAM0, then
DRAM0 -> local in the next layer. A Vars that only later accelerator layers
of the same accelerator range read, that is no model output and that no host
segment names, can instead be written from the accumulators straight into
local memory, in the layout its reader wants, and read there:

- a matmul reader's zero-padded phase planes (`Planes`, the layout
  `matmul.py` loads a band into), for the whole image, so the reader's
  MatMuls address the planes directly and its band loads disappear;
- other readers (an add of a Vars, a load or pool layer) read any layout that
  stores every pixel, vector by vector (local -> accumulators).

The save costs 1 cycle per vector instead of 2, the reader's load 0 or 1
instead of 2, under the same latency model. Positions of the planes outside
the image that a kernel pixel reads are zeroed once, when the producing layer
starts. The Vars's DRAM0 space is left unwritten.

`plan_residency` decides greedily in program order: a Vars is kept when its
planes fit above the working area every layer of its life needs at its
natural band height and below the Vars already kept; addresses are taken
from the top of local memory down. When they do not fit so, the layers of
its life may take thinner bands below it, if the cycles that costs (each
more band reloads the layer's weight tiles and its input's halo rows,
`shrink`) are fewer than the Vars saves: its DRAM0 save and one read per
reader, less the zeroing of its padding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from lamina.target.tcu.program import DataMoveKind

from .layers import Elementwise, HostSegment, Layer, Load, MatMul, Save, Vars


@dataclass(frozen=True)
class Planes:
    """A Vars in local memory from `base`: per image, channel tile and phase, a plane of rows x columns.

    Pixel (h, w) of the image sits in phase ((h + top) mod sh, (w + left) mod sw) at plane row
    (h + top) div sh, column (w + left) div sw, when the plane stores it (`needed`: the positions some
    kernel pixel reads for a valid output; the others are never read).
    """

    base: int
    images: int
    tiles: int
    height: int
    width: int
    phases: tuple[tuple[int, int], ...]
    strides: tuple[int, int]
    offsets: tuple[int, int]  # top and left padding
    rows: int
    columns: int
    needed: np.ndarray  # (phase, row, column) bool

    @property
    def size(self) -> int:
        return self.images * self.tiles * len(self.phases) * self.rows * self.columns

    def plane(self, image: int, tile: int, phase: int) -> int:
        """Local address of the first vector of a plane."""
        return self.base + ((image * self.tiles + tile) * len(self.phases) + phase) * self.rows * self.columns

    def addresses(self, tile: int, pixels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(stored, local address) of channel tile `tile` at flat pixels ((n * H) + h) * W + w."""
        image, inside = np.divmod(np.asarray(pixels, np.int64), self.height * self.width)
        h, w = np.divmod(inside, self.width)
        (sh, sw), (top, left) = self.strides, self.offsets
        phase_of = np.full((sh, sw), -1, np.int64)
        for index, (ph, pw) in enumerate(self.phases):
            phase_of[ph, pw] = index
        phase = phase_of[(h + top) % sh, (w + left) % sw]
        row, column = (h + top) // sh, (w + left) // sw
        stored = (phase >= 0) & (row < self.rows) & (column < self.columns)
        stored[stored] = self.needed[phase[stored], row[stored], column[stored]]
        local = self.base + (((image * self.tiles + tile) * len(self.phases) + phase) * self.rows + row) \
            * self.columns + column
        return stored, local

    @property
    def complete(self) -> bool:
        """Every pixel is stored (readers other than the matmul the planes were made for need that)."""
        return bool(self.addresses(0, np.arange(self.images * self.height * self.width))[0].all())

    def padding(self) -> np.ndarray:
        """Local addresses of the needed positions outside the image (zero before the planes are read)."""
        (sh, sw), (top, left) = self.strides, self.offsets
        ph = np.array([p[0] for p in self.phases])[:, None, None]
        pw = np.array([p[1] for p in self.phases])[:, None, None]
        h = np.arange(self.rows)[None, :, None] * sh + ph - top
        w = np.arange(self.columns)[None, None, :] * sw + pw - left
        outside = self.needed & ~((h >= 0) & (h < self.height) & (w >= 0) & (w < self.width))
        per_plane = np.flatnonzero(outside.reshape(-1))  # offsets inside one (image, tile) group of planes
        groups = self.base + np.arange(self.images * self.tiles) * len(self.phases) * self.rows * self.columns
        return (groups[:, None] + per_plane[None, :]).reshape(-1)


@dataclass
class Residency:
    """Which Vars stay in local memory (by name), and the local memory each layer may use below them."""

    planes: dict[str, Planes]
    budgets: dict[int, int]  # step position -> local vectors the layer's own plan may use
    starts: dict[int, list[str]]  # step position -> Vars whose padding the layer zeroes before its units

    def of(self, source) -> Planes | None:
        return self.planes.get(source.name) if isinstance(source, Vars) else None


def _reads(layer: Layer) -> list[tuple[Vars, MatMul | None]]:
    """The Vars a layer reads, each with the matmul reading it as input (None: read vector by vector)."""
    reads = []
    for op in layer.ops:
        if isinstance(op, MatMul):
            reads.append((op.input, op))
        elif isinstance(op, Load):
            reads.append((op.input, None))
        elif isinstance(op, Elementwise):
            reads.extend((operand, None) for operand in op.operands if isinstance(operand, Vars))
    return reads


def plan_residency(steps: list, needs: dict[int, tuple[int, int]], planes_for, local_depth: int, lanes: int,
                   outputs: frozenset[str] | None, shrink=None) -> Residency:
    """Decide the resident Vars. `needs[position]`: the local vectors layer `steps[position]` needs at its
    natural band height, with its input planes and without them (its matmul input resident);
    `planes_for(matmul)`: the Planes (at base 0) a matmul reads its input from; `shrink(position,
    input_resident, budget)`: the cycles the layer adds in thinner bands within `budget` local vectors
    (None: it does not fit; no `shrink`: bands stay natural). `outputs` None (a program whose outputs are
    not known): nothing stays."""
    empty = Residency({}, {position: local_depth for position in needs}, {})
    if outputs is None:
        return empty
    host_names = {name for step in steps if isinstance(step, HostSegment)  # a host module's placeholders, saves
                  for name in re.findall(r'name = "([^"]*)"', step.module)}
    writer: dict[str, int] = {}
    readers: dict[str, list[tuple[int, MatMul | None]]] = {}
    seen: dict[str, Vars] = {}
    excluded = set(outputs)
    for position, step in enumerate(steps):
        if not isinstance(step, Layer):
            continue
        saved = [op.output for op in step.ops if isinstance(op, Save)]
        for source in saved + [v for v, _ in _reads(step)]:
            if source.tile_offset or seen.setdefault(source.name, source) != source or source.name in host_names:
                excluded.add(source.name)
        for target in saved:
            if target.name in writer:
                excluded.add(target.name)  # saved by two layers (or twice): keep it simple
            writer[target.name] = position
        for source, matmul in _reads(step):
            if source.name not in writer:
                excluded.add(source.name)  # a model input, or read before written
            readers.setdefault(source.name, []).append((position, matmul))
    kept: dict[str, Planes] = {}
    lives: dict[str, tuple[int, int]] = {}
    budgets = dict.fromkeys(needs, local_depth)
    added = dict.fromkeys(needs, 0)  # cycles each layer's thinner bands add so far
    active: list[str] = []  # kept Vars that may still overlap later candidates (candidates come by first layer)
    for name, first in sorted(writer.items(), key=lambda item: item[1]):
        uses = readers.get(name, [])
        if name in excluded or not uses:
            continue
        last = max(position for position, _ in uses)
        if any(isinstance(step, HostSegment) or (isinstance(step, Layer) and step.page != steps[first].page)
               for step in steps[first:last + 1]):
            continue  # the plan cuts the range there: keep the DRAM0 copy
        planes = _layout([matmul for _, matmul in uses], planes_for, seen[name], lanes)
        if planes is None:
            continue
        life = [position for position in range(first, last + 1) if position in needs]
        resident_input = {position: steps[position].ops[0].input.name == name
                          or steps[position].ops[0].input.name in kept for position in life}
        floor = max(needs[position][resident_input[position]] for position in life)
        active = [other for other in active if lives[other][1] >= first]
        busy = [(kept[other].base, kept[other].base + kept[other].size) for other in active
                if lives[other][0] <= last]
        base = _place(planes.size, floor, busy, local_depth)
        costs: dict[int, int] = {}
        if base is None and shrink is not None:
            base = _place(planes.size, 0, busy, local_depth)
            costs = _thinner_bands(life, base, needs, resident_input, budgets, added, shrink)
            saved = len(uses) * planes.size + planes.size - len(planes.padding())
            if costs is None or sum(costs.values()) - sum(added[p] for p in costs) >= saved:
                continue
        if base is None:
            continue
        kept[name] = planes_for_base(planes, base)
        lives[name] = (first, last)
        active.append(name)
        added.update(costs)
        for position in life:
            budgets[position] = min(budgets[position], base)
    starts: dict[int, list[str]] = {}
    for name, (first, _) in lives.items():
        starts.setdefault(first, []).append(name)
    return Residency(kept, budgets, starts)


def _layout(matmuls: list[MatMul | None], planes_for, source: Vars, lanes: int) -> Planes | None:
    """The one layout every reader can use (at base 0), or None."""
    layouts = {_key(planes): planes for planes in (planes_for(m) for m in matmuls if m is not None)}
    if len(layouts) > 1:
        return None
    planes = next(iter(layouts.values())) if layouts else _plain(source, lanes)
    if None in matmuls and not planes.complete:
        return None
    return planes


def _key(planes: Planes) -> tuple:
    return (planes.phases, planes.strides, planes.offsets, planes.rows, planes.columns, planes.needed.tobytes())


def _plain(source: Vars, lanes: int) -> Planes:
    """Every pixel in order, no padding: one plane of height x width per image and channel tile."""
    images, channels, height, width = source.nchw
    return Planes(0, images, -(-channels // lanes), height, width, ((0, 0),), (1, 1), (0, 0), height, width,
                  np.ones((1, height, width), bool))


def planes_for_base(planes: Planes, base: int) -> Planes:
    """The same planes at another local address."""
    return Planes(base, planes.images, planes.tiles, planes.height, planes.width, planes.phases, planes.strides,
                  planes.offsets, planes.rows, planes.columns, planes.needed)


def _thinner_bands(life: list[int], base: int | None, needs, resident_input: dict[int, bool],
                   budgets: dict[int, int], added: dict[int, int], shrink) -> dict[int, int] | None:
    """The cycles each layer of the life adds in total when it must fit below `base` (None: one cannot)."""
    if base is None:
        return None
    costs = {}
    for position in life:
        budget = min(base, budgets[position])
        if needs[position][resident_input[position]] > budget:
            cost = shrink(position, resident_input[position], budget)
            if cost is None:
                return None
            costs[position] = cost
    return costs


def _place(size: int, floor: int, busy: list[tuple[int, int]], local_depth: int) -> int | None:
    """The highest base where `size` vectors fit above `floor` (the largest working area a layer needs
    during the Vars's life) and clear of the `busy` address ranges (kept Vars living then); None if none."""
    top = local_depth
    for low, high in sorted(busy, reverse=True):
        if high <= top and top - size >= max(high, floor):
            return top - size
        top = min(top, low)
    return top - size if top - size >= floor else None


def load_vars(emitter, source: Vars, planes: Planes | None, tile: int, pixels: np.ndarray, staging: np.ndarray,
              destination: np.ndarray, kind: DataMoveKind = DataMoveKind.LOCAL_TO_ACC) -> None:
    """Channel tile `tile` of `source` at `pixels` into the accumulators at `destination` (a DataMove of
    `kind`): through the local `staging` vectors from DRAM0, or straight from its resident planes."""
    if planes is not None:
        emitter.transfer(kind, planes.addresses(tile, pixels)[1], destination)
        return
    emitter.transfer(DataMoveKind.DRAM0_TO_LOCAL, staging, source.addresses(tile, pixels))
    emitter.transfer(kind, staging, destination)
