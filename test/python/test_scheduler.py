"""The scheduler (convert-hir-to-lir): scheduled programs, run on the simulated machine, equal the HIR
executor and a plain NumPy fixed-point model exactly; layers that cannot fit say so; usage stays in the
architecture."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from lamina.target.tcu.architecture import Architecture
from lamina.target.tcu.data_layout import channel_tiles
from lamina.target.tcu.fixed_point import FP16BP8
from lamina.target.tcu.latency import instruction_cycles
from lamina.target.tcu.program import DataMoveKind, LoadWeightFlag, Opcode
from lamina.dialects.diagnostics import LaminaError
from lamina.dialects.hir import window_output_shape
from lamina.passes.conversion.hir_to_lir import schedule
from lamina.runtime.hir_interpreter import run_hir

from hir_programs import ARTY, TINY, WIDE, HirBuilder, int_array, memref_type, run_scheduled, weight_tiles


def numpy_conv(x, filters, bias, strides, pads, dilations, lanes, data_type=FP16BP8):
    """Plain NumPy fixed point: per output pixel and channel tile, the contract's rounding order."""
    n, ci, h, w = x.shape
    co, _, kh, kw = filters.shape
    ho, wo = window_output_shape(x.shape, {"kernel": (kh, kw), "strides": strides, "pads": pads,
                                           "dilations": dilations})
    out = np.zeros((n, co, ho, wo), np.int64)
    _, slots = weight_tiles(filters, bias, lanes)
    slots = np.asarray(slots).reshape(channel_tiles(co, lanes), kh, kw, channel_tiles(ci, lanes))
    for b, oy, ox, co_t in itertools.product(range(n), range(ho), range(wo), range(channel_tiles(co, lanes))):
        acc = None
        cos = slice(co_t * lanes, min(co, (co_t + 1) * lanes))
        for y, xk, ci_t in itertools.product(range(kh), range(kw), range(channel_tiles(ci, lanes))):
            if slots[co_t, y, xk, ci_t] < 0:
                continue
            iy, ix = oy * strides[0] - pads[0] + y * dilations[0], ox * strides[1] - pads[1] + xk * dilations[1]
            cis = slice(ci_t * lanes, min(ci, (ci_t + 1) * lanes))
            pixel = x[b, cis, iy, ix] if 0 <= iy < h and 0 <= ix < w else np.zeros(cis.stop - cis.start, np.int64)
            exact = (pixel[:, None] * filters[cos, cis, y, xk].T).sum(axis=0)
            if acc is None:
                exact = exact + (bias[cos] << data_type.binary_point)
            rounded = data_type.saturate(data_type.round_shift(exact, data_type.binary_point))
            acc = rounded if acc is None else data_type.add(acc, rounded)
        out[b, cos, oy, ox] = acc
    return out


# -- convolutions ------------------------------------------------------------------------------------------

EPILOGUES = ("relu", "residual", "clip", "leaky_relu", "channel", "binary")


@st.composite
def conv_cases(draw):
    arch = draw(st.sampled_from([TINY, ARTY, WIDE]))
    groups_kind = draw(st.sampled_from(["dense", "depthwise", "two"]))
    ci = draw(st.integers(1, 12))
    if groups_kind == "depthwise":
        co, groups = ci, ci
    elif groups_kind == "two" and ci % 2 == 0:
        co, groups = 2 * draw(st.integers(1, 5)), 2
    else:
        co, groups = draw(st.integers(1, 12)), 1
    kernel = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    strides = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilations = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    pads = tuple(draw(st.integers(0, 2)) for _ in range(4))
    h, w = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    assume(all(size + pads[i] + pads[i + 2] >= dilations[i] * (kernel[i] - 1) + 1
               for i, size in enumerate((h, w))))
    epilogue = draw(st.lists(st.sampled_from(EPILOGUES), max_size=3))
    return dict(arch=arch, n=draw(st.integers(1, 2)), ci=ci, co=co, groups=groups, kernel=kernel, strides=strides,
                dilations=dilations, pads=pads, h=h, w=w, epilogue=epilogue, seed=draw(st.integers(0, 2**16)))


def build_conv(case):
    """A one-layer HIR model: a grouped convolution, an epilogue of accumulator ops, one save."""
    arch, lanes = case["arch"], case["arch"].array_size
    rng = np.random.default_rng(case["seed"])
    n, ci, co, groups = case["n"], case["ci"], case["co"], case["groups"]
    kh, kw = case["kernel"]
    filters = np.zeros((co, ci, kh, kw), np.int64)
    per_in, per_out = ci // groups, co // groups
    scale = arch.data_type.one // FP16BP8.one  # the same real values in any data type
    for g in range(groups):
        filters[g * per_out:(g + 1) * per_out, g * per_in:(g + 1) * per_in] = scale * rng.integers(
            -96, 96, (per_out, per_in, kh, kw))
    bias = scale * rng.integers(-512, 512, co)
    x = scale * rng.integers(-1024, 1024, (n, ci, case["h"], case["w"]))
    attrs = {"kernel": case["kernel"], "strides": case["strides"], "pads": case["pads"],
             "dilations": case["dilations"]}
    out_shape = (n, co, *window_output_shape(x.shape, attrs))
    hir = HirBuilder(arch)
    x_value = hir.vars("x", x.shape)
    y_value = hir.vars("y", out_shape)
    feeds = {"x": x}
    image, slots = weight_tiles(filters, bias, lanes)
    weights = hir.consts(image)
    t = hir.temp(0, out_shape)
    hir.op("matmul", [t, x_value, weights], 0, kernel=int_array(case["kernel"]), strides=int_array(case["strides"]),
           pads=int_array(case["pads"]), dilations=int_array(case["dilations"]), tile_slots=int_array(slots))
    for step in case["epilogue"]:
        if step == "relu":
            hir.op("relu", [t, t], 0)
        elif step == "residual" and "r" not in feeds:
            feeds["r"] = scale * rng.integers(-4096, 4096, out_shape)
            hir.op("add", [t, t, hir.vars("r", out_shape)], 0)  # objects may be declared anywhere before use
        elif step == "clip":
            hir.op("clip", [t, t], 0, min="-1.5 : f32", max="2.25 : f32")
        elif step == "leaky_relu":
            hir.op("leaky_relu", [t, t], 0, alpha="0.1 : f32")
        elif step == "channel":
            constant = scale * rng.integers(-300, 300, (channel_tiles(co, lanes), lanes))
            op = ["add", "sub", "mul", "max", "min"][int(rng.integers(5))]
            hir.op("channel", [t, t, hir.consts(constant)], 0, op=f'"{op}"',
                   swap="true" if rng.integers(2) else "false")
        elif step == "binary":
            u = hir.temp(0, out_shape)
            hir.op("relu", [u, t], 0)
            hir.op("binary", [t, u, t], 0, op=f'"{["add", "sub", "mul", "max", "min"][int(rng.integers(5))]}"')
    hir.op("save", [y_value, t], 0)
    return hir.module(list(feeds), ["y"]), feeds, filters, bias, out_shape


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conv_cases())
def test_convolution_layers_equal_the_hir_executor(case):
    check_convolution(case)


@pytest.mark.slow
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conv_cases())
def test_convolution_sweep(case):
    check_convolution(case)


def check_convolution(case):
    """Machine == HIR executor (and == NumPy without an epilogue); usage within the architecture."""
    module, feeds, filters, bias, out_shape = build_conv(case)
    got, result = run_scheduled(module, feeds, {"y": out_shape})
    data_type = case["arch"].data_type
    expected = run_hir(module, {k: data_type.to_float(v) for k, v in feeds.items()})["y"]
    np.testing.assert_array_equal(data_type.to_float(got["y"]), expected)
    if not case["epilogue"]:
        reference = numpy_conv(feeds["x"], filters, bias, case["strides"], case["pads"], case["dilations"],
                               case["arch"].array_size, data_type)
        np.testing.assert_array_equal(got["y"], reference)
    (layer,) = result.layers
    assert layer.local_vectors <= case["arch"].local_depth
    assert layer.accumulator_vectors <= case["arch"].accumulator_depth


def test_small_accumulators_split_a_layer_into_stages_that_still_agree():
    case = dict(arch=TINY, n=1, ci=5, co=6, groups=1, kernel=(3, 3), strides=(1, 1), dilations=(1, 1),
                pads=(1, 1, 1, 1), h=8, w=8, epilogue=["relu", "residual"], seed=3)
    module, feeds, *_ = build_conv(case)
    got, result = run_scheduled(module, feeds, {"y": (1, 6, 8, 8)})
    expected = run_hir(module, {k: FP16BP8.to_float(v) for k, v in feeds.items()})["y"]
    np.testing.assert_array_equal(FP16BP8.to_float(got["y"]), expected)
    (layer,) = result.layers
    assert layer.stages > 1 and layer.partitions == layer.stages * 2
    assert layer.accumulator_vectors <= TINY.accumulator_depth


def test_bands_are_as_even_as_their_count_allows():
    """8 output rows whose accumulators hold 5 rows at most ((5 - 1) x 10 + 8 positions + a scratch vector):
    two stages of 4 rows, not 5 and 3, the same instructions' worth in less memory."""
    arch = Architecture(name="fifty", data_type=FP16BP8, array_size=4, dram0_depth=1 << 16, dram1_depth=1 << 16,
                        local_depth=1024, accumulator_depth=50, simd_registers_depth=1, stride0_depth=8,
                        stride1_depth=8)
    case = dict(arch=arch, n=1, ci=4, co=4, groups=1, kernel=(3, 3), strides=(1, 1), dilations=(1, 1),
                pads=(1, 1, 1, 1), h=8, w=8, epilogue=[], seed=5)
    module, feeds, *_ = build_conv(case)
    got, result = run_scheduled(module, feeds, {"y": (1, 4, 8, 8)})
    expected = run_hir(module, {k: FP16BP8.to_float(v) for k, v in feeds.items()})["y"]
    np.testing.assert_array_equal(FP16BP8.to_float(got["y"]), expected)
    (layer,) = result.layers
    assert layer.stages == 2 and layer.accumulator_vectors == (4 - 1) * 10 + 8 + 1


def test_one_matmul_per_output_row_skips_garbage_columns_and_padding():
    """3x3 stride-1 conv, pad 1, 4 -> 4 channels, 6x6: one band, 9 tiles, each applied by one MatMul per
    output row (plane rows 8 apart), never over the 2 garbage columns of the planes. The first tile
    overwrites, so it covers all 6 x 6 outputs; the others accumulate and leave out the output rows and
    columns where their kernel pixel reads zero padding (kernel row 0 reads padding for output row 0,
    column 2 for output column 5, ...). Only the first MatMul after each LoadWeight pays the fill."""
    case = dict(arch=ARTY, n=1, ci=4, co=4, groups=1, kernel=(3, 3), strides=(1, 1), dilations=(1, 1),
                pads=(1, 1, 1, 1), h=6, w=6, epilogue=[], seed=0)
    module, *_ = build_conv(case)
    program = schedule(module).program
    expected = []  # (accumulate, accumulator address, local offset from the tile's first, size) per MatMul
    for i, j in itertools.product(range(3), range(3)):
        if (i, j) == (0, 0):
            expected += [(0, r * 8, r * 8, 6) for r in range(6)]
            continue
        rows = [r for r in range(6) if 0 <= r + i - 1 < 6]
        columns = [c for c in range(6) if 0 <= c + j - 1 < 6]
        expected += [(1, r * 8 + columns[0], r * 8 + columns[0], len(columns)) for r in rows]
    matmuls = program[program["opcode"] == Opcode.MATMUL]
    after_load = np.flatnonzero(np.r_[0, program["opcode"][:-1]][program["opcode"] == Opcode.MATMUL]
                                == Opcode.LOAD_WEIGHT)
    tile_local = np.repeat(matmuls["op0"][after_load] - matmuls["op1"][after_load],
                           np.diff(np.append(after_load, len(matmuls))))
    got = list(zip(matmuls["flags"].tolist(), matmuls["op1"].tolist(),
                   (matmuls["op0"] - tile_local).tolist(), (matmuls["op2"] + 1).tolist()))
    assert got == expected
    cycles = instruction_cycles(program, ARTY)[program["opcode"] == Opcode.MATMUL]
    assert len(after_load) == 9 and cycles.sum() == sum(size for *_, size in expected) + 9 * ARTY.array_size


def _weight_loads(program: np.ndarray) -> list[tuple]:
    """The weight traffic, readable: ("move", local, DRAM1 address, size) and ("load", local, size, zeroes)."""
    loads = []
    for record in program:
        if record["opcode"] == Opcode.DATA_MOVE and record["flags"] == DataMoveKind.DRAM1_TO_LOCAL:
            loads.append(("move", int(record["op0"]), int(record["op1"]), int(record["op2"]) + 1))
        elif record["opcode"] == Opcode.LOAD_WEIGHT:
            loads.append(("load", int(record["op0"]), int(record["op1"]) + 1,
                          bool(record["flags"] & LoadWeightFlag.ZEROES)))
    return loads


def test_only_the_first_tile_of_a_channel_tile_loads_a_bias_row():
    """1x1 conv, 2N -> 2N channels, no padding: per co_t, the first tile moves its bias with it (N+1 vectors,
    one LoadWeight of N+1); before the second, one zero vector overwrites the slot's bias row, and the second
    moves only its N rows to slot + 1, then the same LoadWeight of N+1."""
    n = ARTY.array_size
    case = dict(arch=ARTY, n=1, ci=2 * n, co=2 * n, groups=1, kernel=(1, 1), strides=(1, 1), dilations=(1, 1),
                pads=(0, 0, 0, 0), h=3, w=3, epilogue=[], seed=1)
    module, *_ = build_conv(case)
    result = schedule(module)
    program = result.program
    loads = _weight_loads(program)
    slot, zeros = loads[0][1], loads[2][2]
    assert not result.consts[0].image[zeros].any()  # the bias row is cleared from the zero block
    per_co_t = 1 + 2 * n  # in DRAM1: the bias vector, then two tiles of N rows
    expected = []
    for start in (0, per_co_t):
        expected += [("move", slot, start, n + 1), ("load", slot, n + 1, False),
                     ("move", slot, zeros, 1), ("move", slot + 1, start + 1 + n, n), ("load", slot, n + 1, False)]
    assert loads == expected
    # every MatMul still follows a LoadWeight, so it pays the array fill once, as before
    previous = program["opcode"][np.flatnonzero(program["opcode"] == Opcode.MATMUL) - 1]
    assert (previous == Opcode.LOAD_WEIGHT).all()


# -- fully connected ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("batch,features,outputs", [(1, 20, 10), (5, 9, 17)])
def test_fully_connected_over_a_matrix(batch, features, outputs):
    lanes = ARTY.array_size
    rng = np.random.default_rng(batch)
    filters = rng.integers(-96, 96, (outputs, features, 1, 1))
    bias = rng.integers(-512, 512, outputs)
    x = rng.integers(-1024, 1024, (batch, features))
    hir = HirBuilder(ARTY)
    xv, yv = hir.vars("x", x.shape), hir.vars("y", (batch, outputs))
    image, slots = weight_tiles(filters, bias, lanes)
    t = hir.temp(0, (batch, outputs))
    hir.op("matmul", [t, xv, hir.consts(image)], 0, kernel=int_array((1, 1)), strides=int_array((1, 1)),
           pads=int_array((0, 0, 0, 0)), dilations=int_array((1, 1)), tile_slots=int_array(slots))
    hir.op("save", [yv, t], 0)
    module = hir.module(["x"], ["y"])
    got, result = run_scheduled(module, {"x": x}, {"y": (batch, outputs)})
    reference = numpy_conv(x.reshape(batch, features, 1, 1), filters, bias, (1, 1), (0, 0, 0, 0), (1, 1), lanes)
    np.testing.assert_array_equal(got["y"], reference.reshape(batch, outputs))
    matmuls = result.program[result.program["opcode"] == Opcode.MATMUL]
    assert set((matmuls["op2"] + 1).tolist()) == {batch}  # the batch rides along one MatMul


def test_flatten_then_fully_connected():
    lanes = ARTY.array_size
    rng = np.random.default_rng(7)
    filters = rng.integers(-64, 64, (5, 3, 2, 3))
    bias = rng.integers(-512, 512, 5)
    x = rng.integers(-1024, 1024, (2, 3, 2, 3))
    hir = HirBuilder(ARTY)
    xv, yv = hir.vars("x", x.shape), hir.vars("y", (2, 5))
    image, slots = weight_tiles(filters, bias, lanes)
    t = hir.temp(0, (2, 5))
    hir.op("matmul", [t, xv, hir.consts(image)], 0, kernel=int_array((2, 3)), strides=int_array((1, 1)),
           pads=int_array((0, 0, 0, 0)), dilations=int_array((1, 1)), tile_slots=int_array(slots))
    hir.op("save", [yv, t], 0)
    module = hir.module(["x"], ["y"])
    got, _ = run_scheduled(module, {"x": x}, {"y": (2, 5)})
    reference = numpy_conv(x, filters, bias, (1, 1), (0, 0, 0, 0), (1, 1), lanes)
    np.testing.assert_array_equal(got["y"], reference.reshape(2, 5))
    expected = run_hir(module, {"x": FP16BP8.to_float(x)})["y"]
    np.testing.assert_array_equal(FP16BP8.to_float(got["y"]), expected)


# -- pooling and plain load layers -------------------------------------------------------------------------


@st.composite
def pool_cases(draw):
    kernel = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    pads = tuple(draw(st.integers(0, k - 1)) for k in (*kernel, *kernel))
    h, w = draw(st.integers(1, 9)), draw(st.integers(1, 9))
    assume(h + pads[0] + pads[2] >= kernel[0] and w + pads[1] + pads[3] >= kernel[1])
    return dict(arch=draw(st.sampled_from([TINY, ARTY])), kind=draw(st.sampled_from(["max", "avg"])),
                kernel=kernel, strides=(draw(st.integers(1, 3)), draw(st.integers(1, 3))), pads=pads,
                count_include_pad=draw(st.booleans()), n=draw(st.integers(1, 2)), c=draw(st.integers(1, 10)),
                h=h, w=w, seed=draw(st.integers(0, 2**16)))


def numpy_pool(x, case, data_type=FP16BP8):
    """Plain NumPy: each output's in-bounds window pixels in (kh, kw) order, then scale factors."""
    from lamina.target.tcu.fixed_point import scale_factors

    attrs = {k: case[k] for k in ("kernel", "strides", "pads")}
    ho, wo = window_output_shape(x.shape, attrs)
    out = np.zeros((*x.shape[:2], ho, wo), np.int64)
    for oy, ox in itertools.product(range(ho), range(wo)):
        pixels = [x[:, :, oy * case["strides"][0] - case["pads"][0] + y, ox * case["strides"][1] - case["pads"][1] + z]
                  for y, z in itertools.product(range(case["kernel"][0]), range(case["kernel"][1]))
                  if 0 <= oy * case["strides"][0] - case["pads"][0] + y < x.shape[2]
                  and 0 <= ox * case["strides"][1] - case["pads"][1] + z < x.shape[3]]
        value = pixels[0]
        for p in pixels[1:]:
            value = np.maximum(value, p) if case["kind"] == "max" else data_type.add(value, p)
        if case["kind"] == "avg":
            count = case["kernel"][0] * case["kernel"][1] if case["count_include_pad"] else len(pixels)
            for factor in (scale_factors(1.0 / count, data_type) if count > 1 else []):
                value = data_type.mul(value, factor)
        out[:, :, oy, ox] = value
    return out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pool_cases())
def test_pool_layers_equal_the_hir_executor_and_numpy(case):
    rng = np.random.default_rng(case["seed"])
    x = rng.integers(-4096, 4096, (case["n"], case["c"], case["h"], case["w"]))
    out_shape = (case["n"], case["c"], *window_output_shape(x.shape, case))
    hir = HirBuilder(case["arch"])
    xv, yv = hir.vars("x", x.shape), hir.vars("y", out_shape)
    loaded, pooled = hir.temp(0, x.shape), hir.temp(0, out_shape)
    hir.op("load", [loaded, xv], 0)
    hir.op("pool", [pooled, loaded], 0, kind=f'"{case["kind"]}"', kernel=int_array(case["kernel"]),
           strides=int_array(case["strides"]), pads=int_array(case["pads"]),
           count_include_pad="true" if case["count_include_pad"] else "false")
    hir.op("save", [yv, pooled], 0)
    module = hir.module(["x"], ["y"])
    got, _ = run_scheduled(module, {"x": x}, {"y": out_shape})
    np.testing.assert_array_equal(got["y"], numpy_pool(x, case))
    expected = run_hir(module, {"x": FP16BP8.to_float(x)})["y"]
    np.testing.assert_array_equal(FP16BP8.to_float(got["y"]), expected)


def test_a_load_layer_adds_two_tensors_then_relus():
    rng = np.random.default_rng(1)
    a, b = rng.integers(-30000, 30000, (2, 9, 3, 5)), rng.integers(-30000, 30000, (2, 9, 3, 5))
    hir = HirBuilder(TINY)
    av, bv, yv = hir.vars("a", a.shape), hir.vars("b", b.shape), hir.vars("y", a.shape)
    t = hir.temp(0, a.shape)
    hir.op("load", [t, av], 0)
    hir.op("add", [t, t, bv], 0)
    hir.op("relu", [t, t], 0)
    hir.op("save", [yv, t], 0)
    module = hir.module(["a", "b"], ["y"])
    got, result = run_scheduled(module, {"a": a, "b": b}, {"y": a.shape})
    np.testing.assert_array_equal(got["y"], np.maximum(FP16BP8.add(a, b), 0))  # saturating add, then relu
    assert result.layers[0].stages > 1  # 30 vectors per tile do not fit 64 accumulators twice over


# -- resources and errors ----------------------------------------------------------------------------------


def test_a_layer_whose_single_row_does_not_fit_names_layer_memory_and_excess():
    small = Architecture(name="small", data_type=FP16BP8, array_size=4, dram0_depth=1 << 16,
                         dram1_depth=1 << 16, local_depth=64, accumulator_depth=64, simd_registers_depth=1,
                         stride0_depth=8, stride1_depth=8)
    case = dict(arch=small, n=1, ci=16, co=4, groups=1, kernel=(3, 3), strides=(1, 1), dilations=(1, 1),
                pads=(1, 1, 1, 1), h=4, w=8, epilogue=[], seed=0)
    module, *_ = build_conv(case)
    # one output row: 4 channel tiles x 3 plane rows x 10 columns = 120 input vectors + a 5-vector weight slot
    # + 8 staging + 1 scratch = 134 of 64
    with pytest.raises(LaminaError, match=r"test.mlir:\d+:\d+: layer 0 does not fit the small local memory: its "
                                          r"smallest stage \(one output row\) needs 134 vectors, 64 are "
                                          r"available \(70 too many\)"):
        schedule(module)


def test_host_segments_split_the_plan():
    hir = HirBuilder(ARTY)
    xv, yv = hir.vars("x", (1, 8, 2, 2)), hir.vars("y", (1, 8, 2, 2))
    for layer in (0, 1):
        t = hir.temp(layer, (1, 8, 2, 2))
        hir.op("load", [t, xv], layer)
        hir.op("save", [yv, t], layer)
        if layer == 0:
            hir.lines.append('"hir.host"() {segment = 0 : i64, module = "module {}"} : () -> ()')
    result = schedule(hir.module(["x"], ["y"]))
    kinds = [step["kind"] for step in result.plan]
    assert kinds == ["accelerator", "host", "accelerator"]
    first, _, second = result.plan
    assert first["first"] == 0 and second["first"] == first["count"]
    assert second["first"] + second["count"] == len(result.program)


def test_concat_views_are_written_and_read_at_their_channel_offsets():
    """Two layers save into channel views of one Vars; a 1x1 conv reads the second view."""
    lanes = ARTY.array_size
    rng = np.random.default_rng(11)
    a, b = rng.integers(-2048, 2048, (1, 8, 3, 4)), rng.integers(-2048, 2048, (1, 8, 3, 4))
    hir = HirBuilder(ARTY)
    av, bv = hir.vars("a", a.shape), hir.vars("b", b.shape)
    cat, y = hir.vars("cat", (1, 16, 3, 4)), hir.vars("y", (1, 5, 3, 4))
    views = []
    for offset in (0, 8):
        views.append(hir._name())
        hir.lines.append(f'{views[-1]} = "hir.view"({cat}) {{channel_offset = {offset} : i64}} : '
                         f"({memref_type((1, 16, 3, 4))}) -> {memref_type((1, 8, 3, 4))}")
        hir.shapes[views[-1]] = (1, 8, 3, 4)
    for layer, (source, view) in enumerate(zip((av, bv), views)):
        t = hir.temp(layer, (1, 8, 3, 4))
        hir.op("load", [t, source], layer)
        hir.op("relu", [t, t], layer)
        hir.op("save", [view, t], layer)
    filters, bias = rng.integers(-64, 64, (5, 8, 1, 1)), rng.integers(-256, 256, 5)
    image, slots = weight_tiles(filters, bias, lanes)
    t = hir.temp(2, (1, 5, 3, 4))
    hir.op("matmul", [t, views[1], hir.consts(image)], 2, kernel=int_array((1, 1)), strides=int_array((1, 1)),
           pads=int_array((0, 0, 0, 0)), dilations=int_array((1, 1)), tile_slots=int_array(slots))
    hir.op("save", [y, t], 2)
    module = hir.module(["a", "b"], ["cat", "y"])
    got, _ = run_scheduled(module, {"a": a, "b": b}, {"cat": (1, 16, 3, 4), "y": (1, 5, 3, 4)})
    np.testing.assert_array_equal(got["cat"], np.concatenate([np.maximum(a, 0), np.maximum(b, 0)], axis=1))
    reference = numpy_conv(np.maximum(b, 0), filters, bias, (1, 1), (0, 0, 0, 0), (1, 1), lanes)
    np.testing.assert_array_equal(got["y"], reference)


def test_a_pool_after_a_matmul_in_one_layer_is_refused():
    hir = HirBuilder(ARTY)
    xv, yv = hir.vars("x", (1, 8, 4, 4)), hir.vars("y", (1, 8, 2, 2))
    image, slots = weight_tiles(np.ones((8, 8, 1, 1), np.int64), np.zeros(8, np.int64), ARTY.array_size)
    t, u = hir.temp(0, (1, 8, 4, 4)), hir.temp(0, (1, 8, 2, 2))
    hir.op("matmul", [t, xv, hir.consts(image)], 0, kernel=int_array((1, 1)), strides=int_array((1, 1)),
           pads=int_array((0, 0, 0, 0)), dilations=int_array((1, 1)), tile_slots=int_array(slots))
    hir.op("pool", [u, t], 0, kind='"max"', kernel=int_array((2, 2)), strides=int_array((2, 2)), pads=int_array((0, 0, 0, 0)),
           count_include_pad="false")
    hir.op("save", [yv, u], 0)
    with pytest.raises(LaminaError, match=r"test.mlir:\d+:\d+: layer 0 has a Pool after its start; only accumulator "
                                          r"ops and saves may follow a matmul, load or pool"):
        schedule(hir.module(["x"], ["y"]))


def test_an_add_of_vars_keeps_its_lhs_when_the_lhs_is_saved_later():
    """Not in place: the Vars goes into the output's region and the lhs is added with SIMD."""
    rng = np.random.default_rng(2)
    a, b = rng.integers(-30000, 30000, (1, 6, 2, 3)), rng.integers(-30000, 30000, (1, 6, 2, 3))
    hir = HirBuilder(TINY)
    av, bv, yv, zv = (hir.vars(name, a.shape) for name in "abyz")
    t, u = hir.temp(0, a.shape), hir.temp(0, a.shape)
    hir.op("load", [t, av], 0)
    hir.op("add", [u, t, bv], 0)
    hir.op("save", [yv, u], 0)
    hir.op("save", [zv, t], 0)
    got, result = run_scheduled(hir.module(["a", "b"], ["y", "z"]), {"a": a, "b": b}, {"y": a.shape, "z": a.shape})
    np.testing.assert_array_equal(got["y"], FP16BP8.add(a, b))
    np.testing.assert_array_equal(got["z"], a)
    assert (result.program["opcode"] == Opcode.SIMD).any()


def test_an_architecture_without_simd_registers_is_refused():
    registerless = Architecture(name="registerless", data_type=FP16BP8, array_size=4, dram0_depth=1024,
                                dram1_depth=1024, local_depth=256, accumulator_depth=64, simd_registers_depth=0,
                                stride0_depth=8, stride1_depth=8)
    hir = HirBuilder(registerless)
    xv, yv = hir.vars("x", (1, 4, 2, 2)), hir.vars("y", (1, 4, 2, 2))
    t = hir.temp(0, (1, 4, 2, 2))
    hir.op("load", [t, xv], 0)
    hir.op("save", [yv, t], 0)
    with pytest.raises(LaminaError, match="architecture registerless has no SIMD register; the scheduler needs one"):
        schedule(hir.module(["x"], ["y"]))
