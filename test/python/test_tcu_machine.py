"""The simulated processing unit: each instruction against hand-computed results."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lamina.target.tcu.architecture import Architecture
from lamina.target.tcu.fixed_point import FP16BP8, FP32BP16
from lamina.target.tcu.program import DataMoveKind, ProgramBuilder, SimdOp
from lamina.dialects.diagnostics import LaminaError
from lamina.runtime.tcu_machine import ACCUMULATORS, DRAM0, DRAM1, LOCAL, Machine, memory_extents
from lamina.runtime.tcu_simd_runs import SimdFields, SimdRuns

N = 4
ARCH = Architecture(name="tiny", data_type=FP16BP8, array_size=N, dram0_depth=64, dram1_depth=64,
                    local_depth=64, accumulator_depth=32, simd_registers_depth=1,
                    stride0_depth=8, stride1_depth=8)
ONE = FP16BP8.one
MAX, MIN = FP16BP8.maximum, FP16BP8.minimum


def _machine() -> Machine:
    return Machine(ARCH, 64, 64)


def _run(machine: Machine, build) -> Machine:
    builder = ProgramBuilder(ARCH.simd_registers_depth)
    build(builder)
    machine.run(builder.build())
    return machine


# -- fixed point -----------------------------------------------------------------


def test_rounding_is_to_nearest_with_ties_to_even():
    exact = np.array([128, 384, 640, -128, -384, 129, -129, 127])  # x.5 ties and near-ties, in 1/256
    assert FP16BP8.round_shift(exact, 8).tolist() == [0, 2, 2, 0, -2, 1, -1, 0]
    assert FP16BP8.from_float(np.array([0.5, 1.5, 2.5, -0.5, -1.5]) / 256).tolist() == [0, 2, 2, 0, -2]


def test_saturation_at_both_ends():
    assert FP16BP8.add(np.array([MAX, MIN]), np.array([1, -1])).tolist() == [MAX, MIN]
    assert FP16BP8.mul(np.array([100 * ONE, 100 * ONE]), np.array([100 * ONE, -100 * ONE])).tolist() == [MAX, MIN]
    assert FP16BP8.from_float(np.array([1e9, -1e9, 127.998, -128.0])).tolist() == [MAX, MIN, MAX, MIN]
    assert FP32BP16.from_float(np.array([1e12, -1e12])).tolist() == [FP32BP16.maximum, FP32BP16.minimum]


def test_multiply_rounds_once_at_the_binary_point():
    # 1.5/256 * 1.0 is exact; 3/256 * 0.5 = 1.5/256 ties to 2/256; 5/256 * 0.5 = 2.5/256 ties to 2/256
    assert FP16BP8.mul(np.array([3, 3, 5]), np.array([ONE, ONE // 2, ONE // 2])).tolist() == [3, 2, 2]


# -- DataMove ----------------------------------------------------------------------


def test_data_moves_with_strides_between_all_memories():
    machine = _machine()
    dram0 = machine.memories[DRAM0]
    dram0[:16] = np.arange(16 * N).reshape(16, N)

    def build(b):
        b.data_move(DataMoveKind.DRAM0_TO_LOCAL, 1, 0, 3, local_stride=2, stride=4)   # local 1,3,5 <- dram0 0,4,8
        b.data_move(DataMoveKind.LOCAL_TO_ACC, 3, 10, 2)                              # acc 10,11 <- local 3,4
        b.data_move(DataMoveKind.LOCAL_TO_ACC_ACCUMULATE, 1, 10, 1)                   # acc 10 += local 1
        b.data_move(DataMoveKind.ACC_TO_LOCAL, 20, 10, 2)                             # local 20,21 <- acc 10,11
        b.data_move(DataMoveKind.LOCAL_TO_DRAM1, 20, 7, 2, stride=8)                  # dram1 7,15 <- local 20,21
        b.data_move(DataMoveKind.DRAM1_TO_LOCAL, 30, 15, 1)
        b.data_move(DataMoveKind.LOCAL_TO_DRAM0, 30, 40, 1)
    _run(machine, build)
    local, acc, dram1 = machine.local, machine.accumulators, machine.memories[DRAM1]
    np.testing.assert_array_equal(local[[1, 3, 5]], dram0[[0, 4, 8]])
    np.testing.assert_array_equal(acc[10], dram0[4] + dram0[0])
    np.testing.assert_array_equal(acc[11], np.zeros(N))  # local 4 was never written
    np.testing.assert_array_equal(dram1[[7, 15]], acc[[10, 11]])
    np.testing.assert_array_equal(dram0[40], acc[11])


def test_accumulating_move_saturates():
    machine = _machine()
    machine.local[0] = [MAX, MIN, 5, -5]
    machine.accumulators[0] = [1, -1, 1, 1]
    _run(machine, lambda b: b.data_move(DataMoveKind.LOCAL_TO_ACC_ACCUMULATE, 0, 0, 1))
    assert machine.accumulators[0].tolist() == [MAX, MIN, 6, -4]
    assert machine.saturations.by_opcode == {"DATA_MOVE": 2}


# -- LoadWeight and MatMul --------------------------------------------------------------


def test_full_weight_load_puts_the_lowest_address_in_the_bias_row():
    machine = _machine()
    machine.local[8:8 + N + 1] = np.arange((N + 1) * N).reshape(N + 1, N) + 1
    _run(machine, lambda b: b.load_weight(8, N + 1))
    np.testing.assert_array_equal(machine.weights, machine.local[8:8 + N + 1])


def test_partial_weight_loads_shift_earlier_rows_down():
    machine = _machine()
    machine.local[0:N + 1] = np.arange((N + 1) * N).reshape(N + 1, N) + 1
    machine.local[20] = 100
    machine.local[22] = 200

    def build(b):
        b.load_weight(0, N + 1)
        b.load_weight(20, 2, local_stride=2)  # pushes local 22, then local 20
    _run(machine, build)
    expected = np.concatenate([machine.local[[20, 22]], machine.local[0:N - 1]])
    np.testing.assert_array_equal(machine.weights, expected)
    _run(machine, lambda b: b.load_weight(0, 3, zeroes=True))
    np.testing.assert_array_equal(machine.weights[:3], 0)
    np.testing.assert_array_equal(machine.weights[3:], expected[:N + 1 - 3])


def test_weight_rows_then_one_zero_push_load_a_tile_with_a_zero_bias_row():
    """The scheduler's load of a tile stored without a bias row: N rows from slot + 1, then `zeroes` of 1."""
    machine = _machine()
    machine.local[0:N + 1] = np.arange((N + 1) * N).reshape(N + 1, N) + 1  # row 0: a stale bias
    _run(machine, lambda b: b.load_weight(0, N + 1))

    def build(b):
        b.load_weight(1, N)
        b.load_weight(0, 1, zeroes=True)
    _run(machine, build)
    np.testing.assert_array_equal(machine.weights[0], 0)
    np.testing.assert_array_equal(machine.weights[1:], machine.local[1:N + 1])


def test_matmul_rounds_once_per_output_and_adds_the_bias():
    machine = _machine()
    weights = np.zeros((N + 1, N), np.int64)
    weights[0] = [ONE, 0, 0, -ONE]          # bias row: 1.0, 0, 0, -1.0
    weights[1, 0] = weights[2, 0] = 1       # out0 = x0/256 + x1/256 + 1.0
    weights[1, 1] = 3 * ONE                  # out1 = 3 x0
    weights[3, 2] = 3 * ONE                  # out2 = 3 x2 (saturates for x2 = ±100)
    machine.local[0:N + 1] = weights
    machine.local[10] = [ONE // 2, ONE // 2, 100 * ONE, 0]    # x = 0.5, 0.5, 100, 0
    machine.local[12] = [ONE, 0, -100 * ONE, 0]

    def build(b):
        b.load_weight(0, N + 1)
        b.matmul(10, 4, 2, local_stride=2, accumulator_stride=4)  # acc 4, 8
        b.matmul(0, 4, 1, zeroes=True, accumulate=True)           # acc 4 += bias
    _run(machine, build)
    # out0 = 2*128/256 rounded once = 1 lsb, + 1.0 (per-MAC rounding would lose both halves)
    assert machine.accumulators[8].tolist() == [1 + ONE, 3 * ONE, MIN, -ONE]
    assert machine.accumulators[4].tolist() == [1 + 2 * ONE, 3 * ONE // 2, MAX, -2 * ONE]
    assert machine.saturations.by_opcode == {"MATMUL": 2}  # lane 2 of both outputs


# -- SIMD ------------------------------------------------------------------------------------

LHS = np.array([3 * ONE, 0, -2 * ONE, MAX])
RHS = np.array([ONE // 2, 5, -2 * ONE, 1])
SIMD_EXPECTED = {
    SimdOp.NOOP: LHS,
    SimdOp.ZERO: [0, 0, 0, 0],
    SimdOp.MOVE: LHS,
    SimdOp.NOT: [0, ONE, 0, 0],
    SimdOp.AND: [ONE, 0, ONE, ONE],
    SimdOp.OR: [ONE, ONE, ONE, ONE],
    SimdOp.INCREMENT: [4 * ONE, ONE, -ONE, MAX],
    SimdOp.DECREMENT: [2 * ONE, -ONE, -3 * ONE, MAX - ONE],
    SimdOp.ADD: [3 * ONE + ONE // 2, 5, -4 * ONE, MAX],
    SimdOp.SUBTRACT: [3 * ONE - ONE // 2, -5, 0, MAX - 1],
    SimdOp.MULTIPLY: [3 * ONE // 2, 0, 4 * ONE, 128],  # MAX * 1/256 = 127.996 rounds to 128/256
    SimdOp.ABS: [3 * ONE, 0, 2 * ONE, MAX],
    SimdOp.GREATER: [ONE, 0, 0, ONE],
    SimdOp.GREATER_EQUAL: [ONE, 0, ONE, ONE],
    SimdOp.MIN: [ONE // 2, 0, -2 * ONE, 1],
    SimdOp.MAX: [3 * ONE, 5, -2 * ONE, MAX],
}


@pytest.mark.parametrize("op", list(SimdOp), ids=lambda op: op.name)
def test_simd_op(op):
    machine = _machine()
    machine.accumulators[2] = LHS
    machine.registers[0] = RHS
    _run(machine, lambda b: b.simd(op, left=0, right=1, read=2, write=7))
    assert machine.accumulators[7].tolist() == list(SIMD_EXPECTED[op])


def test_simd_abs_saturates_the_minimum():
    machine = _machine()
    machine.accumulators[0] = [MIN, -1, 1, 0]
    _run(machine, lambda b: b.simd(SimdOp.ABS, read=0, write=0))
    assert machine.accumulators[0].tolist() == [MAX, 1, 1, 0]
    assert machine.saturations.by_opcode == {"SIMD": 1}


def test_simd_register_destination_accumulate_and_no_read():
    machine = _machine()
    machine.accumulators[0] = [1, 2, 3, 4]
    machine.accumulators[5] = [MAX, 10, 10, 10]

    def build(b):
        b.simd(SimdOp.MOVE, read=0, dest=1)                        # register <- acc 0, acc untouched
        b.simd(SimdOp.ADD, left=0, right=1, read=0, write=5, accumulate=True)  # acc5 += 2 * acc0
        b.simd(SimdOp.INCREMENT, write=6)                          # no read: input 0 -> 1.0
    _run(machine, build)
    assert machine.registers[0].tolist() == [1, 2, 3, 4]
    assert machine.accumulators[5].tolist() == [MAX, 14, 16, 18]
    assert machine.accumulators[6].tolist() == [ONE] * N
    assert machine.accumulators[0].tolist() == [1, 2, 3, 4]


# -- checks before running ------------------------------------------------------------------


def test_extents_and_out_of_range_accesses_name_the_instruction():
    b = ProgramBuilder()
    b.data_move(DataMoveKind.DRAM0_TO_LOCAL, 0, 10, 4, stride=2)
    b.data_move(DataMoveKind.DRAM1_TO_LOCAL, 0, 3, 1)
    b.simd(SimdOp.MOVE, read=31, write=0)
    extents = memory_extents(b.build(), ARCH)
    assert extents == {DRAM0: 17, DRAM1: 4, LOCAL: 4, ACCUMULATORS: 32}
    b.matmul(60, 0, 5)
    with pytest.raises(LaminaError, match=r"instruction 3 \(MATMUL\) reaches local memory vector 64, past its depth"):
        memory_extents(b.build(), ARCH)
    with pytest.raises(LaminaError, match=r"instruction 5 \(SIMD\) reaches accumulators vector 32"):
        _machine().run(_simd_at(32))


def _simd_at(address):
    b = ProgramBuilder()
    for _ in range(5):
        b.noop()
    b.simd(SimdOp.ZERO, write=address)
    return b.build()


def test_machine_refuses_dram_it_did_not_allocate_and_unsupported_instructions():
    b = ProgramBuilder()
    b.data_move(DataMoveKind.LOCAL_TO_DRAM0, 0, 63, 1)
    with pytest.raises(LaminaError, match="allocated 8 vectors"):
        Machine(ARCH, 8, 8).run(b.build())
    program = b.build()
    program["opcode"] = 5
    with pytest.raises(LaminaError, match=r"instruction 0 \(LOAD_LUT\) is not supported"):
        _machine().run(program)
    program["opcode"], program["flags"] = 2, 7
    with pytest.raises(LaminaError, match="unknown DataMove kind"):
        _machine().run(program)


# -- SIMD batching ------------------------------------------------------------------------------


def test_runs_are_found_and_chains_are_not_batched():
    b = ProgramBuilder()
    for i in range(6):
        b.simd(SimdOp.MAX, right=1, read=i, write=i)           # in place: one run of 6
    for i in range(4):
        b.simd(SimdOp.ADD, left=0, right=1, read=10 + i, write=11 + i)  # a chain: each reads the last write
    program = b.build()
    runs = SimdRuns(program, SimdFields.of(program, 1))
    assert (runs.at(0).period, runs.at(0).blocks) == (1, 6)
    assert all(runs.at(6 + k).blocks == 1 for k in range(4))
    machine = _machine()
    machine.accumulators[10] = ONE
    machine.registers[0] = ONE
    machine.run(program)
    assert machine.accumulators[10:15, 0].tolist() == [ONE, 2 * ONE, 3 * ONE, 4 * ONE, 5 * ONE]


_SIMD_RUN = st.tuples(
    st.sampled_from(list(SimdOp)), st.integers(0, 1), st.integers(0, 1),   # op, left, right
    st.sampled_from([0, 0, 0, 1]),                                          # dest
    st.booleans(), st.booleans(), st.booleans(),                            # read, write, accumulate
    st.integers(0, 31), st.integers(-3, 3), st.integers(0, 31), st.integers(-3, 3),  # read0, step, write0, step
    st.integers(1, 8))                                                       # length


@settings(max_examples=150, deadline=None)
@given(runs=st.lists(_SIMD_RUN, min_size=1, max_size=6), seed=st.integers(0, 2**16))
def test_batched_simd_equals_one_by_one(runs, seed):
    b = ProgramBuilder(ARCH.simd_registers_depth)
    for op, left, right, dest, read, write, accumulate, r0, rs, w0, ws, length in runs:
        for i in range(length):
            b.simd(op, left=left, right=right, dest=dest, read=(r0 + rs * i) % 32 if read else None,
                   write=(w0 + ws * i) % 32 if write else None, accumulate=accumulate)
        b.noop()
    program = b.build()
    rng = np.random.default_rng(seed)
    state = rng.integers(MIN, MAX + 1, (32, N))
    machines = []
    for batch in (True, False):
        machine = _machine()
        machine.accumulators[:] = state
        machine.registers[:] = state[-1]
        machine.run(program, batch=batch)
        machines.append(machine)
    np.testing.assert_array_equal(machines[0].accumulators, machines[1].accumulators)
    np.testing.assert_array_equal(machines[0].registers, machines[1].registers)
    assert machines[0].saturations.by_opcode == machines[1].saturations.by_opcode


_MATMUL = st.tuples(st.integers(0, 40), st.integers(0, 24), st.integers(1, 6), st.booleans(), st.booleans(),
                    st.sampled_from([1, 2]))  # local, accumulator, size, accumulate, zeroes, accumulator stride


@settings(max_examples=100, deadline=None)
@given(groups=st.lists(st.lists(_MATMUL, min_size=1, max_size=5), min_size=1, max_size=4),
       seed=st.integers(0, 2**16))
def test_batched_matmuls_equal_one_by_one(groups, seed):
    b = ProgramBuilder(ARCH.simd_registers_depth)
    for k, group in enumerate(groups):
        b.load_weight(50 - k, N + 1)
        for local, accumulator, size, accumulate, zeroes, stride in group:
            b.matmul(local, min(accumulator, 32 - 1 - (size - 1) * stride), size, accumulate=accumulate,
                     zeroes=zeroes, accumulator_stride=stride)
    program = b.build()
    rng = np.random.default_rng(seed)
    local, accumulators = rng.integers(-2 * ONE, 2 * ONE, (64, N)), rng.integers(MIN, MAX + 1, (32, N))
    machines = []
    for batch in (True, False):
        machine = _machine()
        machine.local[:], machine.accumulators[:] = local, accumulators
        machine.run(program, batch=batch)
        machines.append(machine)
    np.testing.assert_array_equal(machines[0].accumulators, machines[1].accumulators)
    assert machines[0].saturations.by_opcode == machines[1].saturations.by_opcode


def test_fp32_machine_stores_32_bit_values_exactly():
    arch = Architecture(name="wide", data_type=FP32BP16, array_size=N, dram0_depth=8, dram1_depth=8,
                        local_depth=16, accumulator_depth=8, simd_registers_depth=1, stride0_depth=4,
                        stride1_depth=4)
    machine = Machine(arch, 8, 8)
    one, top = FP32BP16.one, FP32BP16.maximum
    machine.local[0] = [3 * one, 0, 0, 0]                    # bias row
    machine.local[1] = [one // 2, 1 << 20, 0, 0]             # input lane 0 weights: 0.5, 16.0
    machine.local[6] = [1000 * one, 10000 * one, 0, -1]      # x
    machine.local[7] = [top, 1, 0, 0]
    b = ProgramBuilder(1)
    b.load_weight(0, N + 1)
    b.matmul(6, 0, 1)
    b.data_move(DataMoveKind.LOCAL_TO_ACC_ACCUMULATE, 7, 0, 1)
    machine.run(b.build())
    # lane 0: 1000 * 0.5 + 3 = 503, then + top saturates; lane 1: 1000 * 16 = 16000 (+ 1 lsb)
    assert machine.accumulators[0].tolist() == [top, 16000 * one + 1, 0, 0]
    assert machine.saturations.by_opcode == {"DATA_MOVE": 1}
