"""Random graph-dialect models, for property tests and benchmarks.

A `GraphRecipe` is a model as plain data: steps (op, operand indices,
attributes), each checked by the op's own shape function when it is added,
so a recipe always builds into a module that verifies. Being data, a recipe
shrinks well under Hypothesis and prints as a readable listing.

`graph_recipes()` draws small models from a mix chosen so that the graph
optimizer has work to do (convolution then batch norm, per-channel scale and
shift, matmul then bias, transpose and reshape chains, expressions over
constants, identities, sums, GELU, swish and layer norm in elementary ops)
next to cases where a rewrite must not fire (a producer with a second user,
a constant on the left of a `sub`, a matmul whose weights are not constant,
a GELU with a wrong constant, a saved intermediate value).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st
from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.model import create_model
from lamina.dialects.types import TensorSpec

F32 = np.dtype(np.float32)


@dataclass(frozen=True)
class Step:
    """One op of a recipe: operands are indices of earlier steps."""

    op: str  # a graph op name, without the dialect prefix
    operands: tuple[int, ...]
    attrs: dict  # Python attribute values, as `GRAPH.create` takes them
    result: TensorSpec | None  # None for `save`, which has no result

    def describe(self, index: int) -> str:
        operands = ", ".join(f"%{i}" for i in self.operands)
        attrs = ", ".join(f"{name}={_short(value)}" for name, value in self.attrs.items())
        text = f"{self.op}({operands})" + (f" {{{attrs}}}" if attrs else "")
        return f"%{index} = {text} : {self.result}" if self.result is not None else text


def _short(value) -> str:
    if isinstance(value, np.ndarray):
        return f"<{value.dtype} {list(value.shape)}>"
    return repr(value)


@dataclass
class GraphRecipe:
    """A model as a list of steps that `build` turns into a graph-dialect module."""

    steps: list[Step] = field(default_factory=list)

    def add(self, op: str, *operands: int, result: TensorSpec | None = None, **attrs) -> int:
        """Append an op; its result type comes from the op's shape function (ShapeError if ill-formed).

        `result` is needed only by ops whose result type is not implied (reshape, broadcast, splat, ...).
        """
        declared = [result] if result is not None else None
        results = GRAPH.ops[op].shape_fn([self.spec(i) for i in operands], attrs, declared)
        self.steps.append(Step(op, tuple(operands), attrs, results[0] if results else None))
        return len(self.steps) - 1

    def placeholder(self, name: str, spec: TensorSpec) -> int:
        return self.add("placeholder", result=spec, name=name)

    def constant(self, array: np.ndarray) -> int:
        return self.add("constant", value=array)

    def save(self, name: str, index: int) -> None:
        self.add("save", index, name=name)

    def spec(self, index: int) -> TensorSpec:
        return self.steps[index].result

    def values(self) -> list[int]:
        """Indices of the steps that have a result."""
        return [i for i, step in enumerate(self.steps) if step.result is not None]

    def inputs(self, seed: int = 0) -> dict[str, np.ndarray]:
        """Seeded N(0, 1) arrays for every placeholder."""
        rng = np.random.default_rng(seed)
        return {step.attrs["name"]: rng.standard_normal(step.result.shape).astype(step.result.dtype)
                for step in self.steps if step.op == "placeholder"}

    def build(self, context: ir.Context) -> ir.Operation:
        """The recipe as a model module; op `i` is located at `name("<op><i>")`."""
        module, block = create_model(context)
        values: list[ir.Value | None] = []
        with context, ir.InsertionPoint.at_block_terminator(block):
            for index, step in enumerate(self.steps):
                with ir.Location.name(f"{step.op}{index}"):
                    op = GRAPH.create(step.op, *(values[i] for i in step.operands),
                                      result_types=[step.result] if step.result is not None else [], **step.attrs)
                values.append(op.results[0] if step.result is not None else None)
        return module

    def __repr__(self) -> str:
        return "GraphRecipe:\n" + "\n".join(f"  {step.describe(i)}" for i, step in enumerate(self.steps))

    def _repr_pretty_(self, printer, cycle) -> None:
        """How Hypothesis prints a falsifying example: the listing, not the dataclass fields."""
        printer.text(repr(self))


# ---------------------------------------------------------------------------
# Hypothesis strategies.
# ---------------------------------------------------------------------------


class _Growing:
    """A recipe being drawn: picks operands among its values and makes constants."""

    def __init__(self, draw, recipe: GraphRecipe, rng: np.random.Generator):
        self.draw = draw
        self.recipe = recipe
        self.rng = rng

    def pick(self, accept=lambda spec: True) -> int:
        """A value whose type `accept`s: the latest one half of the time (so that chains form, and
        shrinking goes there), else any. Every builder accepts the image input, so there is one."""
        candidates = [i for i in reversed(self.recipe.values()) if accept(self.recipe.spec(i))]
        if not self.draw(st.booleans()):
            return candidates[0]
        return candidates[self.draw(st.integers(0, len(candidates) - 1))]

    def constant(self, shape, low: float | None = None, high: float | None = None, scale: float = 1.0) -> int:
        """N(0, scale²) elements, or U(low, high) when bounds are given."""
        if low is None:
            array = self.rng.standard_normal(shape) * scale
        else:
            array = self.rng.uniform(low, high, shape)
        return self.recipe.constant(array.astype(F32))

    def same_type_operand(self, index: int) -> int:
        """A second operand of `index`'s type: another value, a constant, a splat or a broadcast constant."""
        spec = self.recipe.spec(index)
        kinds = ["constant", "splat", "scalar broadcast"]
        if spec.rank >= 2:
            kinds.append("per-channel broadcast")
        if any(self.recipe.spec(i) == spec for i in self.recipe.values()):
            kinds.append("value")
        kind = self.draw(st.sampled_from(kinds))
        if kind == "value":
            return self.pick(lambda s: s == spec)
        if kind == "constant":
            return self.constant(spec.shape)
        if kind == "splat":
            value = self.draw(st.sampled_from([0.0, 1.0, 0.5, -2.0, 3.0]))
            return self.recipe.add("splat", result=spec, value=value)
        if kind == "per-channel broadcast":
            return self.per_channel(spec, 0.5, 1.5)
        return self.recipe.add("broadcast", self.constant((), 0.5, 1.5), result=spec)

    def per_channel(self, spec: TensorSpec, low: float, high: float) -> int:
        """A [C, 1, ...] constant broadcast to `spec` (N x C x ...), as the importer emits per-channel operands."""
        channels = self.constant((spec.shape[1],) + (1,) * (spec.rank - 2), low, high)
        return self.recipe.add("broadcast", channels, result=spec)


def _shape(draw, rank: int, low: int = 1, high: int = 4) -> tuple[int, ...]:
    return tuple(draw(st.integers(low, high)) for _ in range(rank))


def _unary(g: _Growing) -> None:
    x = g.pick()
    op, attrs = g.draw(st.sampled_from([
        ("relu", {}), ("sigmoid", {}), ("tanh", {}), ("neg", {}), ("identity", {}),
        ("dropout", {"ratio": 0.5}), ("leaky_relu", {"alpha": 0.1}), ("clip", {"min": 0.0, "max": 6.0}),
        ("clip", {"min": -1.0, "max": 1.0}),
    ]))
    g.recipe.add(op, x, **attrs)


def _binary(g: _Growing) -> None:
    x = g.pick()
    op = g.draw(st.sampled_from(["add", "sub", "mul", "max", "min"]))
    other = g.same_type_operand(x)
    lhs, rhs = (other, x) if g.draw(st.booleans()) else (x, other)
    g.recipe.add(op, lhs, rhs)


def _constant_arithmetic(g: _Growing, x: int | None = None) -> int:
    """x op c for a per-channel, scalar or full constant c on either side, as converters emit
    scale and shift; c is in [0.5, 2] so that dividing by it (never c / x) stays tame."""
    x = g.pick() if x is None else x
    spec = g.recipe.spec(x)
    kind = g.draw(st.sampled_from(["per-channel", "scalar", "full"] if spec.rank >= 2 else ["scalar", "full"]))
    if kind == "per-channel":
        c = g.per_channel(spec, 0.5, 2.0)
    elif kind == "scalar":
        c = g.recipe.add("broadcast", g.constant((), 0.5, 2.0), result=spec)
    else:
        c = g.constant(spec.shape, 0.5, 2.0)
    op = g.draw(st.sampled_from(["mul", "add", "sub", "div"]))
    lhs, rhs = (c, x) if op != "div" and g.draw(st.booleans()) else (x, c)
    return g.recipe.add(op, lhs, rhs)


def _convolution(g: _Growing) -> None:
    x = g.pick(lambda s: s.rank == 4)
    _, channels, height, width = g.recipe.spec(x).shape
    depthwise = channels > 1 and g.draw(st.booleans())
    group = channels if depthwise else 1
    filters = channels * g.draw(st.integers(1, 2)) if depthwise else g.draw(st.integers(1, 4))
    pad = g.draw(st.integers(0, 1))
    kernel = g.draw(st.integers(1, min(3, height + 2 * pad, width + 2 * pad)))
    stride = g.draw(st.integers(1, 2))
    fan_in = channels // group * kernel * kernel
    weights = g.constant((filters, channels // group, kernel, kernel), scale=np.sqrt(2.0 / fan_in))
    bias = g.constant((filters,), scale=0.5)
    _epilogue(g, g.recipe.add("convolution", x, weights, bias, strides=(stride, stride), pads=(pad,) * 4,
                              dilations=(1, 1), group=group))


def _batch_norm(g: _Growing, x: int | None = None) -> int:
    x = g.pick(lambda s: s.rank >= 2) if x is None else x
    channels = (g.recipe.spec(x).shape[1],)
    scale, bias = g.constant(channels, 0.5, 1.5), g.constant(channels, scale=0.5)
    mean, variance = g.constant(channels, scale=0.5), g.constant(channels, 0.5, 1.5)
    return g.recipe.add("batch_norm", x, scale, bias, mean, variance, epsilon=1e-5)


def _epilogue(g: _Growing, y: int) -> None:
    """What follows a layer in real models: usually one or two of batch norm, scale or shift by a
    constant, relu."""
    for _ in range(g.draw(st.sampled_from([1, 2, 0]))):
        follower = g.draw(st.sampled_from([_batch_norm, _constant_arithmetic, None]))
        y = g.recipe.add("relu", y) if follower is None else follower(g, y)


def _dense(g: _Growing) -> None:
    """x[M, K] @ W[K, N] (+ broadcast bias), as converters emit Gemm, and an epilogue; W is sometimes
    not a constant."""
    x = g.pick(lambda s: s.rank >= 1)
    spec = g.recipe.spec(x)
    if spec.rank != 2:
        rows = spec.shape[0] if spec.rank > 1 else 1
        x = g.recipe.add("reshape", x, result=spec.with_shape((rows, spec.num_elements // rows)))
    rows, depth = g.recipe.spec(x).shape
    if g.draw(st.integers(0, 3)) == 0:
        weights = g.recipe.add("transpose", x, perm=(1, 0))  # x @ x^T: weights computed at run time
    else:
        weights = g.constant((depth, g.draw(st.integers(1, 4))), scale=np.sqrt(1.0 / depth))
    y = g.recipe.add("matmul", x, weights)
    if g.draw(st.booleans()):
        out = g.recipe.spec(y)
        bias = g.recipe.add("broadcast", g.constant(out.shape[1:], scale=0.5), result=out)
        y = g.recipe.add("add", *((bias, y) if g.draw(st.booleans()) else (y, bias)))
    _epilogue(g, y)


def _exported_activation(g: _Growing) -> None:
    """GELU (erf form), swish or layer normalization spelled in elementary ops, as exporters write them;
    a GELU's 0.5 is sometimes 0.55, which must then stay arithmetic."""
    x = g.pick(lambda s: s.rank >= 1)
    spec = g.recipe.spec(x)
    add = g.recipe.add

    def scalar(value: float, like: TensorSpec = spec) -> int:
        return add("splat", result=like, value=value)

    kind = g.draw(st.sampled_from(["gelu", "swish", "layer_norm"]))
    if kind == "swish":
        gate = add("sigmoid", x)
        add("mul", *((gate, x) if g.draw(st.booleans()) else (x, gate)))
    elif kind == "gelu":
        scaled = add("div", x, scalar(np.sqrt(2.0))) if g.draw(st.booleans()) else add("mul", x, scalar(np.sqrt(0.5)))
        half = g.draw(st.sampled_from([0.5, 0.55]))
        add("mul", add("mul", x, add("add", add("erf", scaled), scalar(1.0))), scalar(half))
    else:
        last = (spec.rank - 1,)
        reduced = spec.with_shape((*spec.shape[:-1], 1))
        mean = add("broadcast", add("reduce_mean", x, axes=last, keepdims=True), result=spec)
        centered = add("sub", x, mean)
        variance = add("reduce_mean", add("mul", centered, centered), axes=last, keepdims=True)
        deviation = add("sqrt", add("add", variance, scalar(1e-5, reduced)))
        normalized = add("div", centered, add("broadcast", deviation, result=spec))
        scaled = add("mul", normalized, add("broadcast", g.constant(spec.shape[-1:], 0.5, 1.5), result=spec))
        add("add", scaled, add("broadcast", g.constant(spec.shape[-1:], scale=0.5), result=spec))


def _reshape(g: _Growing) -> None:
    """One or two reshapes in a row (flatten then unflatten, ...)."""
    x = g.pick()
    for _ in range(g.draw(st.integers(1, 2))):
        spec = g.recipe.spec(x)
        x = g.recipe.add("reshape", x, result=spec.with_shape(g.draw(st.sampled_from(_reshape_targets(spec.shape)))))


def _reshape_targets(shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Shapes with the same elements: flattened, two neighbours merged, a 1 inserted or removed, a dim split."""
    targets = {(int(np.prod(shape)),), shape}
    for i in range(len(shape) - 1):
        targets.add(shape[:i] + (shape[i] * shape[i + 1],) + shape[i + 2:])
    for i in range(len(shape) + 1):
        if len(shape) < 4:
            targets.add(shape[:i] + (1,) + shape[i:])
    for i, size in enumerate(shape):
        if size == 1 and len(shape) > 1:
            targets.add(shape[:i] + shape[i + 1:])
        for factor in range(2, size):
            if size % factor == 0 and len(shape) < 4:
                targets.add(shape[:i] + (factor, size // factor) + shape[i + 1:])
    return sorted(targets)


def _transpose(g: _Growing) -> None:
    """One or two transposes in a row, as layout conversions come."""
    x = g.pick(lambda s: s.rank >= 2)
    for _ in range(g.draw(st.integers(1, 2))):
        x = g.recipe.add("transpose", x, perm=tuple(g.draw(st.permutations(range(g.recipe.spec(x).rank)))))


def _concat(g: _Growing) -> None:
    x = g.pick(lambda s: s.rank >= 1)
    spec = g.recipe.spec(x)
    axis = g.draw(st.integers(0, spec.rank - 1))
    if g.draw(st.booleans()):
        other = x
    else:
        shape = list(spec.shape)
        shape[axis] = g.draw(st.integers(1, 3))
        other = g.constant(tuple(shape))
    lhs, rhs = (other, x) if g.draw(st.booleans()) else (x, other)
    g.recipe.add("concat", lhs, rhs, axis=axis)


def _broadcast(g: _Growing) -> None:
    """Size-1 dimensions stretched, and below rank 4 maybe a new leading one (possibly a no-op broadcast)."""
    x = g.pick()
    spec = g.recipe.spec(x)
    shape = tuple(g.draw(st.integers(1, 3)) if d == 1 else d for d in spec.shape)
    if spec.rank < 4 and g.draw(st.booleans()):
        shape = (g.draw(st.integers(1, 2)), *shape)
    g.recipe.add("broadcast", x, result=spec.with_shape(shape))


def _sum(g: _Growing) -> None:
    x = g.pick()
    others = [g.same_type_operand(x) for _ in range(g.draw(st.integers(0, 2)))]
    g.recipe.add("sum", x, *others)


def _pool(g: _Growing) -> None:
    x = g.pick(lambda s: s.rank == 4 and min(s.shape[2:]) >= 2)  # the image input at least
    kind = g.draw(st.sampled_from(["max_pool", "avg_pool", "global_avg_pool"]))
    if kind == "global_avg_pool":
        g.recipe.add(kind, x)
        return
    window = {"kernel": (2, 2), "strides": (g.draw(st.integers(1, 2)),) * 2, "pads": (0, 0, 0, 0), "ceil_mode": False}
    extra = {"dilations": (1, 1)} if kind == "max_pool" else {"count_include_pad": False}
    g.recipe.add(kind, x, **window, **extra)


def _constant(g: _Growing) -> None:
    """A new constant among the values: later ops may take it as their main operand (folding)."""
    g.constant(_shape(g.draw, g.draw(st.integers(1, 4))))


# Layers come twice: most of the optimizer's rewrites start from one.
BUILDERS = (_convolution, _dense, _unary, _binary, _constant_arithmetic, _convolution, _batch_norm, _dense, _reshape,
            _transpose, _concat, _broadcast, _sum, _pool, _exported_activation, _constant)


def image_spec(draw) -> TensorSpec:
    """An N x C x H x W float32 input: batch 1-2, 1-4 channels, 3-6 pixels a side."""
    return TensorSpec((draw(st.integers(1, 2)), draw(st.integers(1, 4)), *_shape(draw, 2, 3, 6)), F32)


@st.composite
def graph_recipes(draw, max_ops: int = 8) -> GraphRecipe:
    """A small float32 model: an image input (and maybe a second input), up to `max_ops` drawn
    building steps (each one or a few ops), the last value and up to two others saved."""
    recipe = GraphRecipe()
    g = _Growing(draw, recipe, np.random.default_rng(draw(st.integers(0, 2**32 - 1))))
    recipe.placeholder("image", image_spec(draw))
    if draw(st.booleans()):
        recipe.placeholder("extra", TensorSpec(_shape(draw, draw(st.integers(1, 4))), F32))
    for _ in range(draw(st.integers(1, max_ops))):
        draw(st.sampled_from(BUILDERS))(g)
    values = recipe.values()
    saved = [values[-1]] + draw(st.lists(st.sampled_from(values[:-1]), max_size=2, unique=True))
    for number, index in enumerate(saved):
        recipe.save(f"output{number}", index)
    return recipe
