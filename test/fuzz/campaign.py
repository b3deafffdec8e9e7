"""A fuzz campaign: seeded cases over every input kind and tool, run, counted and reported.

`run_campaign(cases, seed)` makes the seeds, then for case i draws a kind
(ONNX, .mlir text, pipeline, npz, .tmodel directory, .tprog, .tarch), mutates
a seed with `random.Random(seed * 1_000_003 + i)` (so any case can be
replayed alone with `--only i`), writes the files into a fresh directory
and runs the tool through `runner.run_case`.
"""

from __future__ import annotations

import random
import shutil
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import onnx

from lamina.passes.registry import REGISTRY

from .mutators import flip_bytes, mutate_json, mutate_onnx, mutate_pipeline, mutate_text
from .runner import OUTCOMES, Case, Result, run_case
from .seeds import Seeds, make_seeds

KINDS = {"onnx": 30, "mlir": 25, "pipeline": 10, "npz": 10, "tmodel": 15, "tprog": 5, "tarch": 5}
FAILURES = ("traceback", "crash", "hang", "accepted-invalid")


def onnx_oracle(path: Path):
    """For an accepted ONNX file: the checker's (full) reason to reject it, else onnxruntime's, else None."""
    def oracle() -> str | None:
        try:
            onnx.checker.check_model(str(path), full_check=True)
        except Exception as error:  # noqa: BLE001 - any rejection is the oracle's answer
            return f"onnx.checker: {str(error).strip().splitlines()[0][:200]}"
        import onnxruntime
        try:
            onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        except Exception as error:  # noqa: BLE001
            return f"onnxruntime: {str(error).strip().splitlines()[0][:200]}"
        return None
    return oracle


def make_case(seeds: Seeds, rng: random.Random, directory: Path) -> Case:
    """Draw a kind, mutate a seed of it, write the files, and say which tool reads them how."""
    kind = rng.choices(list(KINDS), weights=list(KINDS.values()))[0]
    directory.mkdir(parents=True)
    if kind == "onnx":
        name = rng.choice(sorted(seeds.onnx))
        path = directory / rng.choice(["model.onnx", "model.onnx", "model.onnx", "model.json"])
        try:
            data = mutate_onnx(rng, seeds.onnx[name])
        except (ValueError, TypeError):  # a mutation onnx.helper refuses to build: damage bytes instead
            data = flip_bytes(rng, seeds.onnx[name])
        path.write_bytes(data)
        argv = [path.name, "-o", "out.mlir"]
        if rng.random() < 0.1:
            argv += ["--input-shape", rng.choice(["x=1x3x8x8", "x=99999999999999999999", "x=0", "x=", "y=2",
                                                  "x=1x-1", "bogus"])]
        return Case(kind, "lamina-import", tuple(argv), directory, onnx_oracle(path))
    if kind == "mlir":
        name = rng.choice(sorted(seeds.mlir))
        (directory / "input.mlir").write_text(mutate_text(rng, seeds.mlir[name]))
        if name.startswith(("graph", "buffer")) and rng.random() < 0.4:
            return Case(kind, "lamina-run", ("input.mlir",), directory)
        pipeline = {"graph": "builtin.module(graph-optimize)", "buffer": "builtin.module(buffer-dce)",
                    "hir": "builtin.module(convert-hir-to-lir)", "lir": None}[name.split("-")[0]]
        argv = ["input.mlir", "-o", "out.mlir"] + ([f"--pass-pipeline={pipeline}"] if pipeline and rng.random() < 0.6
                                                   else [])
        return Case(kind, "lamina-opt", tuple(argv), directory)
    if kind == "pipeline":
        (directory / "input.mlir").write_text(seeds.mlir[rng.choice(["graph-mlp", "graph-concat", "buffer-mlp"])])
        names = [entry.name for entry in (*REGISTRY.passes(), *REGISTRY.pipelines())]
        pipeline = mutate_pipeline(rng, sorted(n for n in names if "dot" not in n and "cpu" not in n) + ["cse", "canonicalize"])
        return Case(kind, "lamina-opt", ("input.mlir", "-o", "out.mlir", f"--pass-pipeline={pipeline}"), directory)
    if kind == "npz":
        (directory / "input.mlir").write_text(seeds.mlir["graph-mlp"])
        (directory / "in.npz").write_bytes(flip_bytes(rng, seeds.npz))
        argv = ["input.mlir", "--inputs", "in.npz"]
        if rng.random() < 0.2:
            argv = ["input.mlir", "--seed", rng.choice(["-1", "x", "99999999999999999999999", "0"])]
        return Case(kind, "lamina-run", tuple(argv), directory)
    model = directory / "model"
    shutil.copytree(seeds.model_dir, model)
    if kind == "tmodel":
        target = rng.choice(sorted(path.name for path in model.iterdir()))
        path = model / target
        if target.endswith(".tmodel") and rng.random() < 0.8:
            path.write_text(mutate_json(rng, path.read_text()))
        elif target.endswith(".mlir"):
            path.write_text(mutate_text(rng, path.read_text()))
        else:
            path.write_bytes(flip_bytes(rng, path.read_bytes()))
        tool = rng.choice(["lamina-run", "lamina-run", "lamina-disasm"])
        return Case(kind, tool, ("model/model.tmodel",), directory)
    if kind == "tprog":
        (directory / "prog.tprog").write_bytes(flip_bytes(rng, (model / "model.tprog").read_bytes()))
        return Case(kind, "lamina-disasm", ("prog.tprog", "--arch", "pynq-z1"), directory)
    name = rng.choice(sorted(seeds.tarch))
    text = mutate_json(rng, seeds.tarch[name]) if rng.random() < 0.8 else \
        flip_bytes(rng, seeds.tarch[name].encode()).decode("latin-1")
    (directory / "arch.tarch").write_text(text, encoding="latin-1" if rng.random() < 0.1 else "utf-8")
    return Case(kind, "lamina-disasm", ("model/model.tprog", "--arch", "arch.tarch"), directory)


@dataclass
class Report:
    seed: int
    results: list[Result] = field(default_factory=list)
    seconds: float = 0.0

    def counts(self) -> Counter:
        return Counter(result.outcome for result in self.results)

    def failures(self) -> list[tuple[int, Result]]:
        return [(i, r) for i, r in enumerate(self.results) if r.outcome in FAILURES]


def run_campaign(cases: int, seed: int, workdir: Path, *, wall_seconds: float = 60.0, budget_seconds: float | None = None,
                 only: int | None = None, keep: bool = False, progress=None) -> Report:
    """Run `cases` cases (or case `only`), stopping early at `budget_seconds`; a Report."""
    start = time.monotonic()
    seeds = make_seeds(workdir / "seeds")
    report = Report(seed)
    indices = [only] if only is not None else range(cases)
    for index in indices:
        if budget_seconds is not None and time.monotonic() - start > budget_seconds:
            break
        directory = workdir / f"case{index}"
        shutil.rmtree(directory, ignore_errors=True)
        case = make_case(seeds, random.Random(seed * 1_000_003 + index), directory)
        result = run_case(case, wall_seconds)
        report.results.append(result)
        if progress is not None:
            progress(index, result)
        if not keep and result.outcome not in FAILURES:
            shutil.rmtree(directory, ignore_errors=True)
    report.seconds = time.monotonic() - start
    return report


def report_text(report: Report, command: str) -> str:
    """The Markdown report of a campaign."""
    counts = report.counts()
    kinds = Counter((r.case.kind, r.outcome) for r in report.results)
    lines = [f"Command: `{command}`", "",
             f"{len(report.results)} cases, seed {report.seed}, {report.seconds:.0f} s "
             f"({report.seconds / max(len(report.results), 1):.2f} s per case).", "",
             "| outcome | cases |", "|---|---|"]
    lines += [f"| {outcome} | {counts.get(outcome, 0)} |" for outcome in OUTCOMES]
    lines += ["", "| input kind | " + " | ".join(OUTCOMES) + " |", "|---|" + "---|" * len(OUTCOMES)]
    for kind in KINDS:
        lines.append(f"| {kind} | " + " | ".join(str(kinds.get((kind, o), 0)) for o in OUTCOMES) + " |")
    failures = report.failures()
    lines += ["", f"Failures ({len(failures)}):" if failures else "No failures."]
    signatures = Counter((r.outcome, r.case.tool, r.detail[:120]) for _, r in failures)
    for (outcome, tool, detail), count in signatures.most_common(40):
        first = next(i for i, r in failures if (r.outcome, r.case.tool, r.detail[:120]) == (outcome, tool, detail))
        lines.append(f"- {outcome} x{count} in {tool} (first: case {first}): `{detail}`")
    return "\n".join(lines) + "\n"
