"""The scheduler's view of a HIR program: plain objects, one per memory object and op.

`hir_reader.read_program` builds these from a HIR module; tests build them
directly. Keeping the scheduler on plain objects separates "what the HIR
says" from "how it is scheduled".
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from lamina.target.tcu.data_layout import as_nchw


@dataclass(frozen=True)
class Vars:
    """A tensor in DRAM0, channel-tile major from `base`; a concat view starts `tile_offset` tiles in."""

    name: str
    base: int
    shape: tuple[int, ...]  # logical shape, rank 2 or 4
    tile_offset: int = 0

    @property
    def nchw(self) -> tuple[int, int, int, int]:
        return as_nchw(self.shape)

    @property
    def pixels(self) -> int:
        """Vectors of one channel tile: batch x height x width."""
        n, _, h, w = self.nchw
        return n * h * w

    def addresses(self, tile: int, pixels: np.ndarray) -> np.ndarray:
        """DRAM0 vectors of channel tile `tile` at flat pixel indices ((n * H) + h) * W + w."""
        return self.base + (tile + self.tile_offset) * self.pixels + np.asarray(pixels, np.int64)


@dataclass(frozen=True)
class MatMul:
    """hir.matmul: the layer's first temp from `input` through the weight tiles at DRAM1 `weights_base`."""

    output: str
    shape: tuple[int, ...]  # the output temp's shape
    input: Vars
    weights_base: int
    kernel: tuple[int, int]
    strides: tuple[int, int]
    pads: tuple[int, int, int, int]
    dilations: tuple[int, int]
    tile_slots: tuple[int, ...]
    shift: int | None = None  # the array's rounding position (None: the data type's binary point)


@dataclass(frozen=True)
class Load:
    """hir.load: a Vars tensor into the layer's first temp."""

    output: str
    input: Vars


@dataclass(frozen=True)
class Pool:
    """hir.pool over the temp a `Load` filled (a pool layer is load -> pool -> save)."""

    output: str
    input: str
    shape: tuple[int, ...]
    kind: str  # max | avg
    kernel: tuple[int, int]
    strides: tuple[int, int]
    pads: tuple[int, int, int, int]
    count_include_pad: bool


@dataclass(frozen=True)
class Elementwise:
    """An accumulator op: `op` is add, sub, mul, max, min (binary and channel), relu, clip or leaky_relu.

    `operands` are temp names or Vars; a channel op's constant is `constant`
    (the DRAM1 base of its CT vectors) and `swap` puts it on the left.
    """

    op: str
    output: str
    operands: tuple[str | Vars, ...]
    constant: int | None = None
    swap: bool = False
    params: tuple[float, ...] = ()  # clip: (min, max); leaky_relu: (alpha,)
    shift: int | None = None  # mul: the rounding position of the products (None: the data type's binary point)
    binary_point: int | None = None  # the format of the output (clip's bounds); None: the data type's
    in_place: bool = False  # may write over an input temp that dies here (the HIR op's in-place trait)


@dataclass(frozen=True)
class Save:
    output: Vars
    input: str


@dataclass
class Layer:
    """One layer: a producer (MatMul, Load, or Load + Pool), accumulator ops, saves."""

    index: int
    location: str  # names the layer in errors and statistics
    ops: list = field(default_factory=list)
    page: int = 0  # the consts page its weights are on (0: resident only)


@dataclass(frozen=True)
class HostSegment:
    segment: int
    module: str


@dataclass(frozen=True)
class ConstsImage:
    """DRAM1 contents loaded together: page 0 before the program runs, page k > 0 when the plan says."""

    page: int
    base: int
    image: np.ndarray  # (V, N) storage integers from DRAM1 vector `base`
    room: np.ndarray | None = field(default=None, compare=False, repr=False)  # a buffer `image` starts, if any

    @property
    def end(self) -> int:
        return self.base + len(self.image)

    def extended(self, tail: np.ndarray) -> ConstsImage:
        """This image with `tail` appended: in `room` when it holds both (no copy of the image), else a copy."""
        size = len(self.image) + len(tail)
        if self.room is not None and len(self.room) >= size:
            self.room[len(self.image):size] = tail
            return ConstsImage(self.page, self.base, self.room[:size])
        return ConstsImage(self.page, self.base, np.concatenate([self.image, tail]))


@dataclass
class Program:
    """A HIR program in order: layers and host segments, plus its consts (index = page)."""

    steps: list  # Layer | HostSegment
    consts: list[ConstsImage]
    outputs: frozenset[str] | None = None  # the model's output names; None: unknown (no Vars stays in local memory)
