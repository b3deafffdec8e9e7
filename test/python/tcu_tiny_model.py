"""A hand-built `.tmodel` for simulator tests: 1x1 convolution + ReLU, a host step, then more accelerator work.

Plan: (1) accelerator: y = relu(conv1x1(x, W) + b), x (1, 20, 3, 3) -> y (1, 24, 3, 3);
(2) host: s = sigmoid(y) (a Vars entry) and h = tanh(y) (a host-only output);
(3) accelerator: t = s + s. With N = 16 both channel counts need two tiles,
so the MatMuls accumulate over input tiles. The weights are laid out as the
scheduler's (docs/accelerator.md, `hir.matmul`): per output tile its bias
vector, then its tiles of N rows; a second tile gets its zero bias row from
a `zeroes` LoadWeight.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from lamina.target.tcu.architecture import load_architecture
from lamina.target.tcu.data_layout import vector_count
from lamina.target.tcu.encoding import encode
from lamina.target.tcu.model_files import AcceleratorStep, HostStep, TensorEntry, write_model_files
from lamina.target.tcu.program import DataMoveKind, ProgramBuilder, SimdOp

ARCH = load_architecture("ultra96v2")
N = ARCH.array_size
DT = ARCH.data_type
X_SHAPE, Y_SHAPE = (1, 20, 3, 3), (1, 24, 3, 3)
PIXELS = 9
CI_T, CO_T = 2, 2
X_BASE, Y_BASE, S_BASE, T_BASE = 0, 18, 36, 54
WEIGHTS_LOCAL, X_LOCAL, OUT_LOCAL = 0, 100, 200

HOST_MODULE = """module {
  func.func @main() {
    %y = "graph.placeholder"() {name = "y"} : () -> tensor<1x24x3x3xf32>
    %s = "graph.sigmoid"(%y) : (tensor<1x24x3x3xf32>) -> tensor<1x24x3x3xf32>
    %h = "graph.tanh"(%y) : (tensor<1x24x3x3xf32>) -> tensor<1x24x3x3xf32>
    "graph.save"(%s) {name = "s"} : (tensor<1x24x3x3xf32>) -> ()
    "graph.save"(%h) {name = "h"} : (tensor<1x24x3x3xf32>) -> ()
    return
  }
}
"""


def weights_and_bias(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Fixed-point weights (24, 20) and bias (24) as storage integers."""
    rng = np.random.default_rng(seed)
    return DT.from_float(rng.uniform(-0.5, 0.5, (24, 20))), DT.from_float(rng.uniform(-1, 1, 24))


def consts_image(weights: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """Per co_t: its bias vector, then its tiles in ci_t order, N rows each (rows of input lanes)."""
    padded = np.zeros((CO_T * N, CI_T * N), np.int64)
    padded[:24, :20] = weights
    padded_bias = np.zeros(CO_T * N, np.int64)
    padded_bias[:24] = bias
    vectors = []
    for co_t in range(CO_T):
        vectors.append(padded_bias[None, co_t * N:(co_t + 1) * N])
        for ci_t in range(CI_T):
            vectors.append(padded[co_t * N:(co_t + 1) * N, ci_t * N:(ci_t + 1) * N].T)
    return np.concatenate(vectors)


def program() -> tuple[np.ndarray, int]:
    """The record array and where the second accelerator step starts."""
    b = ProgramBuilder(ARCH.simd_registers_depth)
    vectors = CO_T * PIXELS
    per_co_t = 1 + CI_T * N  # bias vector, then the tiles
    b.data_move(DataMoveKind.DRAM1_TO_LOCAL, WEIGHTS_LOCAL, 0, CO_T * per_co_t)
    b.data_move(DataMoveKind.DRAM0_TO_LOCAL, X_LOCAL, X_BASE, CI_T * PIXELS)
    for co_t in range(CO_T):
        bias = WEIGHTS_LOCAL + co_t * per_co_t
        b.load_weight(bias, N + 1)  # bias vector and the first tile
        b.matmul(X_LOCAL, co_t * PIXELS, PIXELS)
        for ci_t in range(1, CI_T):
            b.load_weight(bias + 1 + ci_t * N, N)
            b.load_weight(0, 1, zeroes=True)  # the zero bias row
            b.matmul(X_LOCAL + ci_t * PIXELS, co_t * PIXELS, PIXELS, accumulate=True)
    b.simd(SimdOp.ZERO, dest=1)
    for v in range(vectors):
        b.simd(SimdOp.MAX, left=0, right=1, read=v, write=v)
    b.data_move(DataMoveKind.ACC_TO_LOCAL, OUT_LOCAL, 0, vectors)
    b.data_move(DataMoveKind.LOCAL_TO_DRAM0, OUT_LOCAL, Y_BASE, vectors)
    second = len(b)
    b.data_move(DataMoveKind.DRAM0_TO_LOCAL, OUT_LOCAL, S_BASE, vectors)
    b.data_move(DataMoveKind.LOCAL_TO_ACC, OUT_LOCAL, 0, vectors)
    for v in range(vectors):
        b.simd(SimdOp.ADD, left=0, right=0, read=v, write=v)
    b.data_move(DataMoveKind.ACC_TO_LOCAL, OUT_LOCAL, 0, vectors)
    b.data_move(DataMoveKind.LOCAL_TO_DRAM0, OUT_LOCAL, T_BASE, vectors)
    return b.build(), second


def write_tiny_model(outdir: Path) -> Path:
    """Write the model files; returns the `.tmodel` path."""
    records, second = program()
    paths = write_model_files(
        outdir, "tiny", arch=ARCH,
        inputs=[entry("x", X_BASE, X_SHAPE)],
        outputs=[entry("y", Y_BASE), TensorEntry("h", None, 0, Y_SHAPE), entry("t", T_BASE)],
        vars=[entry("y", Y_BASE), entry("s", S_BASE)],
        plan=[AcceleratorStep(0, second), HostStep("host-0.mlir", ("y",), ("s", "h")),
              AcceleratorStep(second, len(records) - second)],
        program_bytes=encode(records, ARCH), instructions=len(records),
        consts_image=consts_image(*weights_and_bias()), host_modules={"host-0.mlir": HOST_MODULE})
    return paths.tmodel


def entry(name: str, base: int, shape: tuple[int, ...] = Y_SHAPE) -> TensorEntry:
    return TensorEntry(name, base, vector_count(shape, N), shape)


def reference(x: np.ndarray) -> dict[str, np.ndarray]:
    """The outputs computed with NumPy on whole tensors, with the contract's rounding order."""
    weights, bias = weights_and_bias()
    pixels = DT.from_float(x).reshape(20, PIXELS).T  # (pixel, ci)
    padded_w = np.zeros((24, CI_T * N), np.int64)
    padded_w[:, :20] = weights
    padded_x = np.zeros((PIXELS, CI_T * N), np.int64)
    padded_x[:, :20] = pixels
    acc = DT.matmul(padded_x[:, :N], padded_w[:, :N].T, bias)            # first input tile, with bias
    acc = DT.add(acc, DT.matmul(padded_x[:, N:], padded_w[:, N:].T, np.zeros(24, np.int64)))
    y_q = np.maximum(acc, 0)                                              # (pixel, co)
    y = DT.to_float(y_q.T.reshape(Y_SHAPE))
    s_q = DT.from_float(1 / (1 + np.exp(-y.astype(np.float64))).astype(np.float32))
    t = DT.to_float(DT.add(s_q, s_q))
    return {"y": y, "h": np.tanh(y), "t": t}


def float_convolution(x: np.ndarray) -> np.ndarray:
    """relu(W x + b) in float64, for a sanity bound on the fixed-point result."""
    weights, bias = weights_and_bias()
    w, b = DT.to_float(weights).astype(np.float64), DT.to_float(bias).astype(np.float64)
    y = np.einsum("oi,ip->op", w, x.reshape(20, PIXELS).astype(np.float64)) + b[:, None]
    return np.maximum(y, 0).reshape(Y_SHAPE)

