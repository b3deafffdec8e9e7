"""The scheduler keeps values in local memory across layers (residency.py) only when every reader can
use one layout that fits, and takes thinner bands only when they cost less than the DRAM0 round trip;
results stay equal to the HIR executor."""

from __future__ import annotations

import numpy as np
import pytest

from lamina.target.tcu.architecture import Architecture
from lamina.target.tcu.data_layout import vector_count
from lamina.target.tcu.fixed_point import FP16BP8
from lamina.target.tcu.program import DataMoveKind
from lamina.passes.conversion.hir_to_lir.matmul import MatMulProducer
from lamina.runtime.hir_interpreter import run_hir
from hir_programs import ARTY, TINY, HirBuilder, dram0_vectors, int_array, run_scheduled, weight_tiles


def test_resnet_style_blocks_stay_within_the_architecture_and_agree():
    """conv-relu, conv + residual-relu, a strided 1x1 projection: three layers whose intermediate values a
    and b stay in local memory (residency.py): DRAM0 sees x read and c written, nothing else."""
    rng = np.random.default_rng(5)
    lanes = ARTY.array_size
    x = rng.integers(-512, 512, (1, 12, 10, 10))
    hir = HirBuilder(ARTY)
    xv = hir.vars("x", x.shape)
    shapes = [(1, 12, 10, 10), (1, 12, 10, 10), (1, 20, 5, 5)]
    a, b, c = (hir.vars(name, shape) for name, shape in zip("abc", shapes))
    layers = [(xv, a, (3, 3), (1, 1), (1, 1, 1, 1), None), (a, b, (3, 3), (1, 1), (1, 1, 1, 1), xv),
              (b, c, (1, 1), (2, 2), (0, 0, 0, 0), None)]
    for index, (source, target, kernel, strides, pads, residual) in enumerate(layers):
        co, ci = hir.shapes[target][1], hir.shapes[source][1]
        image, slots = weight_tiles(rng.integers(-48, 48, (co, ci, *kernel)), rng.integers(-256, 256, co), lanes)
        t = hir.temp(index, hir.shapes[target])
        hir.op("matmul", [t, source, hir.consts(image)], index, kernel=int_array(kernel), strides=int_array(strides),
               pads=int_array(pads), dilations=int_array((1, 1)), tile_slots=int_array(slots))
        if residual is not None:
            hir.op("add", [t, t, residual], index)
        hir.op("relu", [t, t], index)
        hir.op("save", [target, t], index)
    module = hir.module(["x"], ["c"])
    got, result = run_scheduled(module, {"x": x}, {"c": shapes[2]})
    expected = run_hir(module, {"x": FP16BP8.to_float(x)})["c"]
    np.testing.assert_array_equal(FP16BP8.to_float(got["c"]), expected)
    assert [layer.index for layer in result.layers] == [0, 1, 2]
    for layer in result.layers:
        assert 0 < layer.local_vectors <= ARTY.local_depth
        assert 0 < layer.accumulator_vectors <= ARTY.accumulator_depth
        assert layer.true_macs > 0 and 0 < layer.mac_efficiency < 1
    assert result.layers[2].true_macs == 20 * 12 * 5 * 5
    places = {}
    for op in module.regions[0].blocks[0].operations[0].regions[0].blocks[0].operations:
        if op.operation.name == "hir.vars":
            places[op.attributes["name"].value] = op.attributes["base"].value
    vectors = {name: set(range(places[name], places[name] + vector_count(shape, lanes)))
               for name, shape in (("x", x.shape), ("c", shapes[2]))}
    assert dram0_vectors(result.program, DataMoveKind.DRAM0_TO_LOCAL) == vectors["x"]
    assert dram0_vectors(result.program, DataMoveKind.LOCAL_TO_DRAM0) == vectors["c"]
    # 3x3, pad 1 on 10 x 10: per dimension the three kernel rows see 9, 10 and 9 real input rows, so
    # taps on zero padding are not counted (Tensil's definition): 28 x 28, not 9 x 10 x 10.
    assert result.layers[0].true_macs == 12 * 12 * 28 * 28


def _cramped(local_depth: int) -> Architecture:
    return Architecture(name="cramped", data_type=FP16BP8, array_size=4, dram0_depth=1 << 16, dram1_depth=1 << 16,
                        local_depth=local_depth, accumulator_depth=64, simd_registers_depth=1, stride0_depth=8,
                        stride1_depth=8)


def _two_readers(arch: Architecture, second_kernel: tuple[int, int], batch: int):
    """x -> a (1x1 conv), then a read by a 3x3 pad-1 conv (-> b) and by a conv of `second_kernel` (-> c)."""
    rng = np.random.default_rng(11)
    shape = (batch, 4, 6, 6)
    x = rng.integers(-512, 512, shape)
    hir = HirBuilder(arch)
    xv, av, bv, cv = (hir.vars(name, shape) for name in "xabc")
    for index, (source, target, kernel) in enumerate([(xv, av, (1, 1)), (av, bv, (3, 3)), (av, cv, second_kernel)]):
        image, slots = weight_tiles(rng.integers(-48, 48, (4, 4, *kernel)), rng.integers(-256, 256, 4),
                                    arch.array_size)
        pad = kernel[0] // 2
        t = hir.temp(index, shape)
        hir.op("matmul", [t, source, hir.consts(image)], index, kernel=int_array(kernel), strides=int_array((1, 1)),
               pads=int_array((pad, pad, pad, pad)), dilations=int_array((1, 1)), tile_slots=int_array(slots))
        hir.op("save", [target, t], index)
    module = hir.module(["x"], ["b", "c"])
    got, result = run_scheduled(module, {"x": x}, {"b": shape, "c": shape})
    expected = run_hir(module, {"x": FP16BP8.to_float(x)})
    for name in "bc":
        np.testing.assert_array_equal(FP16BP8.to_float(got[name]), expected[name])
    return len(dram0_vectors(result.program, DataMoveKind.LOCAL_TO_DRAM0))


@pytest.mark.parametrize("arch, second_kernel, batch, a_in_dram0", [
    (TINY, (3, 3), 1, False),  # both readers address the same padded planes: a stays in local memory
    (TINY, (3, 3), 2, False),  # two images: a plane group per image
    (TINY, (1, 1), 1, True),   # the readers want different planes: a goes through DRAM0
    # a's 64-vector planes do not fit above the natural working area, but do above thinner bands
    (_cramped(112), (3, 3), 1, False),
    (_cramped(80), (3, 3), 1, True),  # nor above bands of one row (64 + 18 vectors)
])
def test_a_value_stays_in_local_memory_only_when_every_reader_can_use_one_layout_that_fits(
        arch, second_kernel, batch, a_in_dram0):
    per_value = 36 * batch  # vectors of one 4-channel 6 x 6 value
    assert _two_readers(arch, second_kernel, batch) == 2 * per_value + (per_value if a_in_dram0 else 0)


def test_thinner_bands_are_taken_only_when_they_cost_less_than_the_dram0_round_trip(monkeypatch):
    """In the cramped architecture a stays in local memory because one more band costs 4 weight tiles and
    2 halo rows; were a band to cost 1,000 cycles, its DRAM0 save and two reads (108 vectors) would win."""
    monkeypatch.setattr(MatMulProducer, "stage_cycles", lambda self, input_resident: 1000)
    assert _two_readers(_cramped(112), (3, 3), 1) == 3 * 36
