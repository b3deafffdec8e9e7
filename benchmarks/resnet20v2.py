"""ResNet20v2 (CIFAR-10) on zcu104 beside Tensil's published compile of the same network.

Usage: .venv/bin/python benchmarks/resnet20v2.py [--seed N] [--keep DIR]

The network is the Keras `resnet_v2` at depth 20 that Tensil's ZCU104
tutorial compiles, built as an ONNX graph by `test/python/resnet20v2_model.py`
(which says how). Its true MACs, padding taps excluded, round to Tensil's
61.476 M (`test/python/test_resnet20v2.py`), so the topology is the same.

Weights are `ConstantOfShape` placeholders replaced by seeded random ones
(`lamina/frontend/random_weights.py`); the cycle count does not depend on
their values. Compiled with `lamina-compile`'s flow (`compile_model`) for
`zcu104` (Tensil's shipped zcu104.tarch: 16 K local, 4 K accumulator
vectors) and for `zcu104_uram` (49,152 local, 20,480 accumulator vectors),
the architecture of Tensil's published summary, built here from
tensil-facts §1.2. Tensil's figures (../shared/design/reference/tensil-facts.md
§5.3-5.4): zcu104_uram 291,904 cycles (aggregate; 291,769 execution),
50,121 instructions, 20.58 % MAC efficiency (on the execution cycles);
zcu104 293,590 cycles and 50,171 instructions, derived from the shipped
`.tprog` with Tensil's latency model. Both use Tensil's latency model, the
one `lamina/target/tcu/latency.py` implements. Writes
`benchmarks/results/resnet20v2.md` and prints it.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import onnx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "python"))

from import_and_interpret import report_header  # noqa: E402
from resnet20v2_model import TENSIL_TRUE_MACS, resnet20v2, zcu104_uram  # noqa: E402

from lamina.target.tcu.architecture import load_architecture  # noqa: E402
from lamina.driver.compiler import compile_model  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "resnet20v2.md"
COMMAND = ".venv/bin/python benchmarks/resnet20v2.py"
# Tensil's figures per architecture: (cycles, instructions, MAC efficiency or None when not published).
TENSIL = {
    "zcu104_uram": (291_904, 50_121, 0.20576),
    "zcu104": (293_590, 50_171, None),
}


def measure(seed: int, keep: Path | None) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        directory = keep or Path(scratch)
        directory.mkdir(parents=True, exist_ok=True)
        source = directory / "resnet20v2.onnx"
        onnx.save(resnet20v2(), str(source))
        for arch in (zcu104_uram(), load_architecture("zcu104")):
            result = compile_model(source, arch, directory / arch.name, random_weights=seed)
            stats = result.summary.to_json()
            rows.append({"arch": arch.name, "tensil": TENSIL[arch.name], **stats})
            print(f"{arch.name}: {stats['cycles']:,} cycles, {stats['instructions']:,} instructions",
                  file=sys.stderr, flush=True)
    return rows


def table(rows: list[dict], seed: int) -> str:
    lines = [*report_header("ResNet20v2 (CIFAR-10) against Tensil's published compile", COMMAND),
             f"Random weights seed {seed}. Lamina's figures come from the compile summary (`summary.json`); "
             "Tensil's from tensil-facts §5.3-5.4. Same latency model (Tensil's estimator, one thread). "
             "Lamina's cycles are the whole program's (Tensil's aggregate); its MAC efficiency uses them, "
             "Tensil's uses its execution cycles (aggregate minus the last 9 instructions).", "",
             "| architecture | figure | Lamina | Tensil | Lamina / Tensil |", "| --- | --- | ---: | ---: | ---: |"]
    for row in rows:
        cycles, instructions, efficiency = row["tensil"]
        figures = [("cycles (latency model)", row["cycles"], cycles, f"{row['cycles']:,}", f"{cycles:,}"),
                   ("instructions", row["instructions"], instructions, f"{row['instructions']:,}",
                    f"{instructions:,}"),
                   ("true MACs", row["true_macs"], TENSIL_TRUE_MACS, f"{row['true_macs']:,}",
                    f"{TENSIL_TRUE_MACS / 1e6:.3f} M")]
        for label, ours, theirs, shown_ours, shown_theirs in figures:
            lines.append(f"| {row['arch']} | {label} | {shown_ours} | {shown_theirs} | {ours / theirs:.3f}x |")
        theirs = f"{100 * efficiency:.2f} %" if efficiency else "not published"
        lines.append(f"| {row['arch']} | MAC efficiency | {100 * row['mac_efficiency']:.2f} % | {theirs} | |")
        lines.append(f"| {row['arch']} | cycles with host transfers | {row['cycles_with_host_transfers']:,} | "
                     "(not modelled) | |")
        lines.append(f"| {row['arch']} | layers / host segments | {row['layers']} / {len(row['host_segments'])} | "
                     f"27 / - | |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="random weights seed (default 0)")
    parser.add_argument("--keep", type=Path, help="write the ONNX model and the compiled files here")
    parser.add_argument("--output", default=str(RESULTS), help="where to write the markdown table")
    args = parser.parse_args()
    rows = measure(args.seed, args.keep)
    text = table(rows, args.seed)
    Path(args.output).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
