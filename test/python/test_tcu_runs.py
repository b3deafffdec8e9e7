"""The simulator's batched runs (array runs, periodic SIMD runs) against one-by-one execution, and compiled
models against the HIR executor with several inputs simulated together."""

import numpy as np
import onnx
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

from lamina.dialects.context import make_context, parse_module
from lamina.driver.compiler import compile_model
from lamina.runtime.hir_interpreter import inputs as hir_inputs
from lamina.runtime.hir_interpreter import run_hir
from lamina.runtime import tcu_array_runs
from lamina.runtime.tcu_array_runs import RunFields, array_run_lengths, structure_of
from lamina.runtime.tcu_matmul_grid import MatMulGrid
from lamina.runtime.tcu_machine import Machine
from lamina.runtime.tcu_simd_runs import SimdFields, SimdRuns
from lamina.runtime.tcu_simulator import simulate_samples
from lamina.target.tcu.architecture import Architecture
from lamina.target.tcu.fixed_point import FP16BP8, FP32BP16
from lamina.target.tcu.program import ConfigRegister, DataMoveKind, ProgramBuilder, SimdOp

N = 4
ARCH = Architecture(name="tiny", data_type=FP16BP8, array_size=N, dram0_depth=64, dram1_depth=64,
                    local_depth=64, accumulator_depth=32, simd_registers_depth=1, stride0_depth=8, stride1_depth=8)
MAX, MIN = FP16BP8.maximum, FP16BP8.minimum


def _machines(program: np.ndarray, seed: int, scale: int, inputs: int = 2) -> list[Machine]:
    """The program run batched and one by one on the same random state (`inputs` copies, each different)."""
    rng = np.random.default_rng(seed)
    state = {name: rng.integers(-scale, scale, (inputs, *shape)) for name, shape in
             (("DRAM0", (64, N)), ("DRAM1", (1, 64, N)), ("local memory", (64, N)), ("accumulators", (32, N)))}
    state["DRAM1"] = state["DRAM1"][0]
    weights = rng.integers(-scale, scale, (inputs, N + 1, N))
    registers = rng.integers(-scale, scale, (inputs, 1, N))
    machines = []
    for batch in (True, False):
        machine = Machine(ARCH, 64, 64, inputs)
        for name, value in state.items():
            machine.batched[name][:] = value
        machine.batched_weights[:] = weights
        machine.batched_registers[:] = registers
        machine.shifts[ConfigRegister.ARRAY_SHIFT] = 8
        machine.run(program, batch=batch)
        machines.append(machine)
    return machines


def _assert_same(batched: Machine, single: Machine) -> None:
    for name in batched.batched:
        np.testing.assert_array_equal(batched.batched[name], single.batched[name], err_msg=name)
    np.testing.assert_array_equal(batched.batched_weights, single.batched_weights)
    np.testing.assert_array_equal(batched.batched_registers, single.batched_registers)
    assert batched.saturations.by_opcode == single.saturations.by_opcode


# -- array runs ---------------------------------------------------------------------------------

_ARRAY_STEP = st.one_of(
    # DataMove DRAM0/DRAM1 -> local: local address, DRAM address, size, local stride
    st.tuples(st.just("move"), st.booleans(), st.integers(0, 40), st.integers(0, 40), st.integers(1, 6),
              st.sampled_from([1, 2])),
    # LoadWeight: local address, size, zeroes
    st.tuples(st.just("load"), st.integers(0, 50), st.integers(1, N + 3), st.booleans()),
    # MatMul: local address, accumulator address, size, accumulate, zeroes, accumulator stride
    st.tuples(st.just("matmul"), st.integers(0, 50), st.integers(0, 24), st.integers(1, 6), st.booleans(),
              st.booleans(), st.sampled_from([1, 2])),
)


def _array_program(steps) -> np.ndarray:
    b = ProgramBuilder(ARCH.simd_registers_depth)
    for step in steps:
        if step[0] == "move":
            _, from_dram1, local, address, size, stride = step
            kind = DataMoveKind.DRAM1_TO_LOCAL if from_dram1 else DataMoveKind.DRAM0_TO_LOCAL
            b.data_move(kind, min(local, 63 - (size - 1) * stride), address, size, local_stride=stride)
        elif step[0] == "load":
            _, local, size, zeroes = step
            b.load_weight(min(local, 64 - size), size, zeroes=zeroes)
        else:
            _, local, accumulator, size, accumulate, zeroes, stride = step
            b.matmul(min(local, 64 - size), min(accumulator, 31 - (size - 1) * stride), size, accumulate=accumulate,
                     zeroes=zeroes, accumulator_stride=stride)
    return b.build()


@settings(max_examples=150, deadline=None)
@given(steps=st.lists(_ARRAY_STEP, min_size=1, max_size=14), seed=st.integers(0, 2**16),
       scale=st.sampled_from([2 * 256, MAX]))
def test_array_runs_equal_one_by_one(steps, seed, scale):
    """Random DataMoves, LoadWeights and MatMuls (overlapping rows, partial loads, large values that saturate)."""
    _assert_same(*_machines(_array_program(steps), seed, scale))


def test_a_move_over_rows_a_matmul_read_ends_the_run():
    b = ProgramBuilder()
    b.data_move(DataMoveKind.DRAM1_TO_LOCAL, 40, 0, N + 1)   # weights
    b.load_weight(40, N + 1)
    b.matmul(0, 0, 4)                                         # reads local 0-3
    b.data_move(DataMoveKind.DRAM0_TO_LOCAL, 2, 8, 4)        # overwrites local 2-5: a write after that read
    b.matmul(0, 4, 4)                                         # reads the new local 2-3
    program = b.build()
    assert array_run_lengths(program).tolist() == [5, 4, 3, 2, 1]
    assert Machine(ARCH, 64, 64).array_runs.execute(RunFields(program), structure_of(program)) == 3
    _assert_same(*_machines(program, 0, 2 * 256))


def _three_weight_tiles(local: int, size: int):
    """Three tiles, each moved from DRAM1 into the same local rows, loaded, then multiplied into accumulators
    0.. (size vectors from local 0), the later ones accumulating."""
    b = ProgramBuilder()
    for tile in range(3):
        b.data_move(DataMoveKind.DRAM1_TO_LOCAL, local, 5 * tile, N + 1)
        b.load_weight(local, N + 1)
        b.matmul(0, 0, size, accumulate=tile > 0)
    return b.build()


def test_weights_reloaded_between_matmuls_are_read_before_the_next_move():
    """The weight tile rows are rewritten by every tile's DataMove; each LoadWeight sees its own tile."""
    program = _three_weight_tiles(local=40, size=8)
    assert Machine(ARCH, 64, 64).array_runs.execute(RunFields(program), structure_of(program)) == len(program)
    _assert_same(*_machines(program, 1, 2 * 256))


def test_chain_that_saturates_counts_like_one_by_one():
    b = ProgramBuilder()
    b.load_weight(40, N + 1)
    for tile in range(6):
        b.matmul(0, 0, 8, accumulate=tile > 0)
    batched, single = _machines(b.build(), 2, MAX)
    _assert_same(batched, single)
    assert batched.saturations.by_opcode.get("MATMUL", 0) > 0


def _grid_program(tiles: int, row_starts: list[int], size: int, skips: list[tuple[int, int]], restart: bool,
                  zeroes: list[tuple[int, int]], weights_kind: DataMoveKind) -> np.ndarray:
    """A convolution's run: per weight tile a DataMove of the tile, a LoadWeight and one MatMul per output row
    (`row_starts` in the accumulators, `size` vectors each), all accumulating except each row's first if
    `restart`; the (tile, row) pairs of `skips` have no MatMul (rows that read only padding), those of `zeroes`
    read zeroes. Weights from DRAM0 differ between the inputs run together."""
    b = ProgramBuilder()
    started = set()
    for tile in range(tiles):
        b.data_move(weights_kind, 44, 5 * tile, N + 1)
        b.load_weight(44, N + 1)
        for row, start in enumerate(row_starts):
            if (tile, row) not in skips:
                b.matmul(3 * tile + 2 * row, start, size, accumulate=row in started or not restart,
                         zeroes=(tile, row) in zeroes)
                started.add(row)
    return b.build()


@settings(max_examples=60, deadline=None)
@given(tiles=st.integers(1, 5), rows=st.integers(1, 4), size=st.integers(1, 3), restart=st.booleans(),
       weights_kind=st.sampled_from([DataMoveKind.DRAM0_TO_LOCAL, DataMoveKind.DRAM1_TO_LOCAL]),
       data=st.data(), seed=st.integers(0, 2**16), scale=st.sampled_from([2 * 256, MAX]))
def test_matmul_grids_equal_one_by_one(tiles, rows, size, restart, weights_kind, data, seed, scale):
    """Tiles by output rows, with skipped rows, zero inputs and sums that saturate, as one dense grid."""
    starts = data.draw(st.permutations(range(0, 8 * size, size)).map(lambda p: list(p[:rows])))
    pairs = st.tuples(st.integers(0, tiles - 1), st.integers(0, rows - 1))
    skips = data.draw(st.lists(pairs, max_size=3))
    zeroes = data.draw(st.lists(pairs, max_size=2))
    program = _grid_program(tiles, starts, size, skips, restart, zeroes, weights_kind)
    assume((program["opcode"] == 1).any())  # every (tile, row) skipped: no grid to compare
    fields = RunFields(program)
    matmul = np.flatnonzero(fields.opcode == 1)
    assert MatMulGrid.of(fields, matmul, ARCH.accumulator_depth) is not None
    _assert_same(*_machines(program, seed, scale))


def test_a_tile_writing_a_row_twice_or_restarting_a_row_is_not_a_grid():
    for restart in (False, True):
        b = ProgramBuilder()
        b.load_weight(44, N + 1)
        b.matmul(0, 0, 4)
        b.load_weight(44, N + 1)
        b.matmul(4, 0, 4, accumulate=True)
        if restart:  # a later tile starts rows 0-3 again from its output: two segments
            b.load_weight(44, N + 1)
            b.matmul(8, 0, 4)
        else:  # rows 2-3 again in the same tile
            b.matmul(8, 2, 4, accumulate=True)
        program = b.build()
        fields = RunFields(program)
        assert MatMulGrid.of(fields, np.flatnonzero(fields.opcode == 1), ARCH.accumulator_depth) is None
        _assert_same(*_machines(program, 6, MAX))


@pytest.mark.parametrize("scales, row, other, clipped", [
    ((1, 1, -1), [12767, 7], [1, 2, 3, 4], 1), ((1, -1, 1), [20000, 7], [1, 2, 3, 4], 0),
    ((-1.5, 2, 0), [2767, 4], [0, 1, 2, 2], 1)])  # -1.5 x (1, 2, 3, 4) rounds to even: -2, -3, -4, -6
def test_grid_rows_whose_bounds_fail_add_tile_by_tile(scales, row, other, clipped):
    """Outputs 20000 20000 -20000: one by one the second add clips at the maximum and the row ends at 12767,
    where the plain sum would be 20000. 20000 -20000 20000 fails the bounds too but never clips: no saturation
    is counted. -30000 40000 0: the partial sums stay inside but the second output clips to 32767. The other
    row never clips."""
    program = _three_weight_tiles(local=44, size=2)
    results = []
    for batch in (True, False):
        machine = Machine(ARCH, 64, 64)
        for tile, scale in enumerate(scales):
            machine.batched["DRAM1"][0, 5 * tile + 1:5 * tile + 1 + N] = scale * 256 * np.eye(N, dtype=np.int16)
        machine.local[0] = [20000, 7, 0, 0]
        machine.local[1] = [1, 2, 3, 4]
        machine.run(program, batch=batch)
        results.append(machine)
    _assert_same(*results)
    assert results[0].accumulators[0].tolist() == [*row, 0, 0]
    assert results[0].accumulators[1].tolist() == other
    assert results[0].saturations.by_opcode == ({"MATMUL": clipped} if clipped else {})


@pytest.mark.parametrize("plan_bytes, plans", [(1 << 27, 2), (1, 1)])
def test_runs_equal_but_for_dram_addresses_share_a_plan(plan_bytes, plans, monkeypatch):
    """A convolution's output tiles: the same instructions with other weight addresses; a different run gets
    its own plan. Past the machine's budget for plans, they are dropped and made again."""
    monkeypatch.setattr(tcu_array_runs, "_PLAN_BYTES", plan_bytes)
    b = ProgramBuilder()
    for weights, accumulator in ((0, 0), (20, 0), (40, 4)):
        for tile in range(2):
            b.data_move(DataMoveKind.DRAM1_TO_LOCAL, 44, weights + 5 * tile, N + 1)
            b.load_weight(44, N + 1)
            b.matmul(8 * tile, accumulator, 6, accumulate=tile > 0)
        b.simd(SimdOp.MAX, right=1, read=accumulator, write=accumulator + 10)  # ends the run
    program = b.build()
    batched, single = _machines(program, 7, 2 * 256)
    _assert_same(batched, single)
    assert len(batched.array_runs.plans) == plans


# -- periodic SIMD runs -------------------------------------------------------------------------


def _max_pool(b: ProgramBuilder, outputs: int, read0: int, write0: int) -> None:
    """A 1-D pool of three: per output a Move into register 1, a Max into it and a Max written out."""
    for k in range(outputs):
        b.simd(SimdOp.MOVE, dest=1, read=read0 + 2 * k)
        b.simd(SimdOp.MAX, right=1, dest=1, read=read0 + 2 * k + 1)
        b.simd(SimdOp.MAX, right=1, read=read0 + 2 * k + 2, write=write0 + k)


def test_a_pool_runs_as_blocks_and_equals_one_by_one():
    b = ProgramBuilder()
    _max_pool(b, 6, 0, 20)
    program = b.build()
    run = SimdRuns(program, SimdFields.of(program, 1)).at(0)
    assert (run.period, run.blocks) == (3, 6)
    _assert_same(*_machines(program, 3, MAX))


def test_a_block_reading_an_earlier_block_write_is_cut_there():
    b = ProgramBuilder()
    _max_pool(b, 6, 0, 8)  # output 0 is written at 8, which block 3 (reading 6-8) reads
    program = b.build()
    run = SimdRuns(program, SimdFields.of(program, 1)).at(0)
    assert (run.period, run.blocks) == (3, 3)
    _assert_same(*_machines(program, 4, MAX))


def test_a_block_reading_its_register_before_writing_it_is_not_batched():
    b = ProgramBuilder()
    for k in range(4):  # a running max: each instruction reads the register the previous one wrote
        b.simd(SimdOp.MAX, right=1, dest=1, read=k)
        b.simd(SimdOp.ADD, right=1, read=k, write=10 + k)
    program = b.build()
    assert SimdRuns(program, SimdFields.of(program, 1)).at(0).blocks == 1
    _assert_same(*_machines(program, 5, MAX))


def test_equal_stretches_of_simd_instructions_share_their_calls():
    """A ReLU over the same rows after each output tile: planned once; another stretch gets its own."""
    b = ProgramBuilder()
    for rows in (range(4), range(4), range(2, 6)):
        b.simd(SimdOp.ZERO, dest=1)
        for row in rows:
            b.simd(SimdOp.MAX, right=1, read=row, write=row)
        b.load_weight(44, 1)  # ends the stretch
    program = b.build()
    batched, single = _machines(program, 8, MAX)
    _assert_same(batched, single)
    assert len(batched.simd_plans) == 2


_SIMD_POSITION = st.tuples(
    st.sampled_from(list(SimdOp)), st.integers(0, 1), st.integers(0, 1), st.integers(0, 1),  # op, left, right, dest
    st.booleans(), st.booleans(), st.booleans(),                                            # read, write, accumulate
    st.integers(0, 31), st.integers(0, 31))                                                  # read0, write0


@settings(max_examples=150, deadline=None)
@given(block=st.lists(_SIMD_POSITION, min_size=1, max_size=5), steps=st.tuples(st.integers(-3, 3), st.integers(-3, 3)),
       blocks=st.integers(1, 6), seed=st.integers(0, 2**16), scale=st.sampled_from([2 * 256, MAX]))
def test_periodic_simd_runs_equal_one_by_one(block, steps, blocks, seed, scale):
    b = ProgramBuilder(ARCH.simd_registers_depth)
    for k in range(blocks):
        for op, left, right, dest, read, write, accumulate, read0, write0 in block:
            b.simd(op, left=left, right=right, dest=dest, read=(read0 + steps[0] * k) % 32 if read else None,
                   write=(write0 + steps[1] * k) % 32 if write else None, accumulate=accumulate)
    _assert_same(*_machines(b.build(), seed, scale))


# -- compiled models: the simulator equals the HIR executor, several inputs at once -----------------


def _residual_cnn(channels: int, size: int) -> onnx.ModelProto:
    """conv 3x3 -> relu -> max pool 3x3/2 -> conv 1x1 + residual -> relu -> global average pool -> gemm."""
    rng = np.random.default_rng(0)

    def he(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * np.sqrt(2.0 / np.prod(shape[1:]))).astype(np.float32)

    weights = {"w1": he(channels, 3, 3, 3), "b1": rng.uniform(-0.5, 0.5, channels).astype(np.float32),
               "w2": he(channels, channels, 1, 1), "b2": rng.uniform(-0.5, 0.5, channels).astype(np.float32),
               "fc": he(10, channels), "fc_b": rng.uniform(-0.5, 0.5, 10).astype(np.float32)}
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p"], name="pool", kernel_shape=[3, 3], strides=[2, 2],
                         pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["p", "w2", "b2"], ["c2"], name="conv2", kernel_shape=[1, 1]),
        helper.make_node("Add", ["c2", "p"], ["s"], name="residual"),
        helper.make_node("Relu", ["s"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten", axis=1),
        helper.make_node("Gemm", ["f", "fc", "fc_b"], ["y"], name="fc", transB=1),
    ]
    graph = helper.make_graph(nodes, "residual_cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                                    [1, 3, size, size])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
                              [numpy_helper.from_array(value, name) for name, value in weights.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.mark.parametrize("arch, channels, size", [("arty-a7", 24, 12), ("ultra96v2", 40, 16)])
def test_inputs_simulated_together_equal_the_hir_executor(arch, channels, size, tmp_path):
    source = tmp_path / "model.onnx"
    source.write_bytes(_residual_cnn(channels, size).SerializeToString())
    compile_model(source, arch, tmp_path / "out", samples=2, check=False)
    hir_file = tmp_path / "out" / "hir.mlir"
    hir = parse_module(hir_file.read_text(), make_context(), str(hir_file))
    rng = np.random.default_rng(2)
    samples = [{name: rng.random(spec.shape, dtype=np.float32) for name, spec in hir_inputs(hir).items()}
               for _ in range(3)]
    results = list(simulate_samples(tmp_path / "out" / "model.tmodel", samples, together=3))
    one_by_one = list(simulate_samples(tmp_path / "out" / "model.tmodel", samples, batch=False))
    for sample, result, single in zip(samples, results, one_by_one):
        expected = run_hir(hir, sample)
        assert result.outputs.keys() == expected.keys()
        for name in expected:
            np.testing.assert_array_equal(result.outputs[name], expected[name])
            np.testing.assert_array_equal(single.outputs[name], expected[name])
    totals = {}  # saturation counts of inputs run together are their sums
    for single in one_by_one:
        for opcode, count in single.saturations.items():
            totals[opcode] = totals.get(opcode, 0) + count
    assert results[0].saturations == totals


def _exact_matmul(inputs: np.ndarray, weights: np.ndarray, bias: np.ndarray, shift: int, data_type) -> np.ndarray:
    """Python integers: the sum plus the shifted bias, rounded to nearest even at `shift`, saturated."""
    def rounded(value: int) -> int:
        floor = value >> shift
        remainder, half = value - (floor << shift), (1 << shift) >> 1
        up = shift > 0 and (remainder > half or (remainder == half and floor & 1))
        return min(max(floor + up, data_type.minimum), data_type.maximum)

    return np.array([[rounded(sum(int(x) * int(w) for x, w in zip(row, column)) + (int(b) << shift))
                      for column, b in zip(weights.T, bias)] for row in inputs])


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**16), lanes=st.sampled_from([4, 16, 32]), case=st.sampled_from([
    (FP16BP8, 47, 256), (FP16BP8, 47, MAX + 1), (FP32BP16, 24, 1 << 28)]), data=st.data())
def test_matmul_in_float_equals_the_integer_definition(seed, lanes, case, data):
    """`DataType.matmul` (its float path where exact, else int64) against Python integers."""
    data_type, max_shift, scale = case
    shift = data.draw(st.integers(0, max_shift))
    rng = np.random.default_rng(seed)
    inputs, weights = rng.integers(-scale, scale, (3, lanes)), rng.integers(-scale, scale, (lanes, lanes))
    bias = rng.integers(-scale, scale, lanes)
    np.testing.assert_array_equal(data_type.matmul(inputs, weights, bias, shift),
                                  _exact_matmul(inputs, weights, bias, shift, data_type))


def test_matmul_just_above_a_tie_rounds_up_in_32_bits():
    """2^54 + 2^29 + 1 at shift 30 is just above 2^24 + 1/2: float64 would drop the 1 and round to even."""
    inputs = np.array([[1 << 27, 1 << 15, 1, 0]])
    weights = np.zeros((4, 4), np.int64)
    weights[:3, 0] = [1 << 27, 1 << 14, 1]
    assert FP32BP16.matmul(inputs, weights, np.zeros(4, np.int64), 30)[0, 0] == (1 << 24) + 1
