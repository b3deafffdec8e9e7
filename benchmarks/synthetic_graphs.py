"""Synthetic models of any size for compile-time benchmarks, with the mix real CNNs give the optimizer.

`synthetic_recipe(num_ops)` chains residual blocks until the model has about
`num_ops` ops. Each block is what the graph pipeline meets in ResNet-like
models, in small tensors (8 channels, 8 x 8 pixels) so that the time goes to
the passes' own work, not to NumPy:
- convolution without bias (filter given transposed, as a constant
  `transpose`, to fold), batch norm (to fold into it), relu; convolution,
  per-channel scale and shift as broadcast `mul`/`add` (to fold), the
  residual `add`, relu;
- an inference `dropout` (to remove), a transpose chain that cancels and a
  reshape chain (to merge), a `sum` (to split into adds);
- a constant expression (`mul` of two constants, to fold) scaling the output;
- every eighth block also saves its output (a second user for its producer).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "test" / "python"))

from random_graphs import F32, GraphRecipe  # noqa: E402

from lamina.dialects.types import TensorSpec  # noqa: E402

CHANNELS, SIZE = 8, 8
IMAGE = TensorSpec((1, CHANNELS, SIZE, SIZE), F32)
BIAS = TensorSpec((CHANNELS,), F32)


class _Blocks:
    """A recipe being filled with residual blocks."""

    def __init__(self, seed: int):
        self.recipe = GraphRecipe()
        self.rng = np.random.default_rng(seed)

    def constant(self, shape, low: float = -1.0, high: float = 1.0) -> int:
        return self.recipe.constant(self.rng.uniform(low, high, shape).astype(F32))

    def per_channel(self, value: int, op: str) -> int:
        channels = self.constant((CHANNELS, 1, 1), 0.5, 1.5)
        return self.recipe.add(op, value, self.recipe.add("broadcast", channels, result=IMAGE))

    def convolution(self, value: int, bias: bool) -> int:
        """Without `bias`, a zero splat as the importer makes for a Conv without B (`graph-cse` then
        merges them all into one value with a use per convolution)."""
        scale = np.sqrt(2.0 / (CHANNELS * 9))
        filter_hwio = self.constant((3, 3, CHANNELS, CHANNELS), -scale, scale)
        filter_oihw = self.recipe.add("transpose", filter_hwio, perm=(3, 2, 0, 1))
        bias = self.constant((CHANNELS,)) if bias else self.recipe.add("splat", result=BIAS, value=0.0)
        return self.recipe.add("convolution", value, filter_oihw, bias,
                               strides=(1, 1), pads=(1, 1, 1, 1), dilations=(1, 1), group=1)

    def batch_norm(self, value: int) -> int:
        params = [self.constant((CHANNELS,), 0.5, 1.5) for _ in range(4)]
        return self.recipe.add("batch_norm", value, *params, epsilon=1e-5)

    def block(self, x: int) -> int:
        add = self.recipe.add
        y = add("relu", self.batch_norm(self.convolution(x, bias=False)))
        y = self.per_channel(self.per_channel(self.convolution(y, bias=True), "mul"), "add")
        y = add("relu", add("add", y, x))
        y = add("dropout", y, ratio=0.1)
        y = add("transpose", add("transpose", y, perm=(0, 2, 3, 1)), perm=(0, 3, 1, 2))
        flat = IMAGE.with_shape((1, CHANNELS * SIZE * SIZE))
        y = add("reshape", add("reshape", y, result=flat), result=IMAGE)
        y = add("sum", y, x, y)
        factor = add("mul", self.constant((CHANNELS, 1, 1), 0.1, 0.2), self.constant((CHANNELS, 1, 1), 1.0, 2.0))
        return add("mul", y, add("broadcast", factor, result=IMAGE))


SAVE_EVERY = 8  # blocks


def synthetic_recipe(num_ops: int, seed: int = 0) -> GraphRecipe:
    """An image input, residual blocks until the model has `num_ops` ops (or one block more), saves."""
    blocks = _Blocks(seed)
    recipe = blocks.recipe
    x = recipe.placeholder("image", IMAGE)
    count = 0
    while len(recipe.steps) + 1 < num_ops:  # + 1: the last save
        x = blocks.block(x)
        count += 1
        if count % SAVE_EVERY == 0:
            recipe.save(f"block{count}", x)
    recipe.save("output", x)
    return recipe
