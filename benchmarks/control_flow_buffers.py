"""Control flow at the buffer level: memory plans and copies of If/Loop/Scan models, outputs against onnxruntime.

Usage: .venv/bin/python benchmarks/control_flow_buffers.py [--output benchmarks/results/control_flow_buffers.md]

Each model (the hand-written ones of `test/python/test_buffer_control_flow.py`
and the scripted PyTorch loop of `test_torch_control_flow.py`) goes through
`graph-optimize{backend=reference-lowered}` and `graph-to-buffers`, then runs
in the buffer interpreter. Per model: its region ops, the activation arena
and the planner's lower bound (the most bytes live at once; a body's
buffers counted inside the region op's span), the copies left inside region
bodies against those IRGen emitted (yields into carried buffers and scan
slices, which copy elimination removes where the body does not use the
buffer meanwhile), and the largest difference from onnxruntime.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import onnxruntime
from mlir import ir

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "python"))

from test_buffer_control_flow import HAND_WRITTEN, TO_BUFFERS  # noqa: E402
from test_torch_control_flow import MODELS  # noqa: E402

from lamina.dialects.buffer_verifier import ACTIVATION_BYTES  # noqa: E402
from lamina.dialects.context import make_context  # noqa: E402
from lamina.frontend.onnx_importer import import_model  # noqa: E402
from lamina.passes.buffer.allocate import ACTIVATION_LOWER_BOUND_BYTES  # noqa: E402
from lamina.passes.pass_manager import run_pipeline  # noqa: E402
from lamina.runtime import buffer_interpreter  # noqa: E402

def _body_copies(module: ir.Operation) -> tuple[int, dict[str, int]]:
    """Copies inside region bodies, and the region ops by name."""
    copies, regions = 0, {}

    def visit(op: ir.Operation) -> ir.WalkResult:
        nonlocal copies
        if op.name.startswith("buffer.") and len(op.regions):
            regions[op.name] = regions.get(op.name, 0) + 1
        parent = op.parent
        if op.name == "buffer.copy" and parent is not None and parent.name.startswith("buffer."):
            copies += 1
        return ir.WalkResult.ADVANCE

    module.walk(visit)
    return copies, regions


def measure(name: str, proto, feeds) -> str:
    session = onnxruntime.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    want = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))
    irgen = import_model(proto, make_context())
    run_pipeline(irgen, "builtin.module(graph-optimize{backend=reference-lowered},graph-schedule,"
                        "convert-graph-to-buffer)")
    emitted, _ = _body_copies(irgen)
    module = import_model(proto, make_context())
    run_pipeline(module, TO_BUFFERS)
    left, regions = _body_copies(module)
    got = buffer_interpreter.run(module, feeds)
    error = max(float(np.max(np.abs(got[key] - array))) for key, array in want.items())
    arena = ir.IntegerAttr(module.attributes[ACTIVATION_BYTES]).value
    bound = ir.IntegerAttr(module.attributes[ACTIVATION_LOWER_BOUND_BYTES]).value
    shown = ", ".join(f"{count} {op.split('.')[1]}" for op, count in sorted(regions.items()))
    return f"| {name} | {shown} | {arena} | {bound} | {left} of {emitted} | {error:.2g} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, help="also write the table to this file")
    args = parser.parse_args()
    cases = {name: (build(), feeds) for name, (build, feeds) in HAND_WRITTEN.items()}
    model, feeds, = MODELS["scripted data-dependent loop"]
    cases["PyTorch scripted loop"] = (model, feeds)
    lines = ["| model | region ops | arena bytes | lower bound bytes | copies in bodies (left of emitted) | "
             "max abs error vs onnxruntime |", "| --- | --- | ---: | ---: | ---: | ---: |"]
    for name, (proto, inputs) in cases.items():
        lines.append(measure(name, proto, inputs))
        print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    if args.output:
        args.output.write_text(f"`.venv/bin/python benchmarks/control_flow_buffers.py`\n\n{text}")


if __name__ == "__main__":
    main()
