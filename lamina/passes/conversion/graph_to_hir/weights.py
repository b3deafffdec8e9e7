"""Weights as the array loads them: bias vectors, tiles of N vectors and the `tile_slots` map.

A filter (co, ci/groups, kh, kw) with its bias becomes the weights object of
an `hir.matmul` (docs/accelerator.md): tile (co_t, kh, kw, ci_t) holds one
row per input lane i whose lane j is filter[co_t*N + j, ci_t*N + i, kh, kw].
Each co_t stores its bias vector once, right before its first present tile
(`matmul_weight_offsets`), so that tile loads with its bias in one DataMove
and no other tile stores a zero bias row (the scheduler pushes a zero vector
instead): DRAM1 holds only useful vectors. Tiles that are all zero once
converted to the data type are left out (slot -1): grouped and depthwise
convolutions, expanded block-diagonally, keep only the tiles their groups
touch. Everything is vectorized: ResNet-50 has 25 M weights.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lamina.target.tcu.data_layout import channel_tiles
from lamina.target.tcu.fixed_point import DataType
from lamina.dialects.hir import matmul_weight_offsets


_CONVERT_CHUNK = 1 << 22  # scalars converted at once


@dataclass(frozen=True)
class TiledWeights:
    image: np.ndarray  # (tiles * N + co_tiles, N) storage integers: per co_t its bias vector, then its tiles
    tile_slots: tuple[int, ...]  # per (co_t, kh, kw, ci_t): number of the tile in `image`, or -1


def dense_filter(filter_: np.ndarray, groups: int) -> np.ndarray:
    """The (co, ci, kh, kw) filter of a grouped convolution, zero outside its groups' blocks."""
    if groups == 1:
        return filter_
    co, ci_per_group = filter_.shape[:2]
    co_per_group = co // groups
    dense = np.zeros((co, ci_per_group * groups, *filter_.shape[2:]), dtype=filter_.dtype)
    rows = np.arange(co)[:, None]
    columns = (rows // co_per_group) * ci_per_group + np.arange(ci_per_group)[None, :]
    dense[rows, columns] = filter_
    return dense


def fully_connected_filter(weights: np.ndarray, image: tuple[int, int, int] = (0, 1, 1)) -> np.ndarray:
    """The (co, ci, kh, kw) filter of a fully-connected layer's (features, outputs) weights.

    `image` = (c, h, w) of a rank-4 input flattened into the features (the
    flatten -> fully-connected fusion: the kernel is the whole image);
    c = 0 means the input is a matrix already.
    """
    features, outputs = weights.shape
    channels, height, width = image
    if channels == 0:
        return weights.T.reshape(outputs, features, 1, 1)
    return weights.T.reshape(outputs, channels, height, width)


def selection_filter(out_channels: int, in_channels: int, offset: int) -> np.ndarray:
    """The 1x1 filter copying input channel i to output channel offset + i (a misaligned concat)."""
    filter_ = np.zeros((out_channels, in_channels, 1, 1), dtype=np.float32)
    filter_[offset + np.arange(in_channels), np.arange(in_channels), 0, 0] = 1.0
    return filter_


def tile_weights(filter_: np.ndarray, bias: np.ndarray, data_type: DataType, lanes: int) -> TiledWeights:
    """The weights object of a dense (co, ci, kh, kw) filter and its (co,) bias."""
    co, ci, kh, kw = filter_.shape
    co_tiles, ci_tiles = channel_tiles(co, lanes), channel_tiles(ci, lanes)
    padded = np.zeros((co_tiles * lanes, ci_tiles * lanes, kh, kw), dtype=data_type.storage)
    rows = max(1, _CONVERT_CHUNK // (ci * kh * kw))  # from_float works in 64-bit: convert in slices
    for start in range(0, co, rows):
        end = min(start + rows, co)
        padded[start:end, :ci] = data_type.from_float(filter_[start:end])
    # (co_t, lane j, ci_t, row i, kh, kw) -> (co_t, kh, kw, ci_t, row i, lane j)
    tiles = padded.reshape(co_tiles, lanes, ci_tiles, lanes, kh, kw).transpose(0, 4, 5, 2, 3, 1)
    tiles = tiles.reshape(co_tiles, kh * kw * ci_tiles, lanes, lanes)
    present = tiles.any(axis=(2, 3))
    present[:, 0] |= ~present.any(axis=1)  # every co_t keeps a tile, to carry its bias

    flat_present = present.reshape(-1)
    count = int(flat_present.sum())
    slots = np.full(flat_present.shape, -1, dtype=np.int64)
    slots[flat_present] = np.arange(count)
    tile_offsets, bias_offsets = matmul_weight_offsets(slots, co_tiles, lanes)
    bias_rows = np.zeros(co_tiles * lanes, dtype=data_type.storage)
    bias_rows[:co] = data_type.from_float(bias)
    image = np.zeros((count * lanes + co_tiles, lanes), dtype=data_type.storage)
    image[bias_offsets] = bias_rows.reshape(co_tiles, lanes)
    image[tile_offsets[flat_present, None] + np.arange(lanes)] = tiles.reshape(-1, lanes, lanes)[flat_present]
    return TiledWeights(image, tuple(int(s) for s in slots))
