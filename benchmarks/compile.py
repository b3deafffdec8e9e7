"""lamina-compile's wall time, CPU time, peak memory and bytes written, against issue 18's targets.

    python benchmarks/compile.py [--runs resnet50:ultra96v2,vgg19:zcu104] [--modes default,no-check]
                                 [--output benchmarks/results/compile.md]

Each run is `lamina-compile light:MODEL --arch ARCH --random-weights 0 -o DIR`
(mode `no-check` adds `--no-check`) in a fresh process under `/usr/bin/time`,
which gives the wall and CPU seconds and the peak RSS; the bytes written are
the sizes of the files in DIR afterwards. The stage seconds (wall, and CPU of
the whole process) come from the compile's own summary.json. Targets (issue 18): ResNet-50 -> ultra96v2 at most
5 s wall, 1 GB peak RSS and 150 MB written; VGG-19 -> zcu104 at most 15 s.
Timings depend on the machine's load: the table records the 1-minute load
average before and after each run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import load_average  # noqa: E402
from import_and_interpret import report_header  # noqa: E402

TARGETS = {("resnet50", "ultra96v2"): {"wall": 5.0, "rss_mb": 1000.0, "written_mb": 150.0},
           ("vgg19", "zcu104"): {"wall": 15.0}}
MODES = {"default": (), "no-check": ("--no-check",)}
TIME = "/usr/bin/time"


def measure(model: str, arch: str, mode: str) -> dict:
    """One compile in a fresh process: wall, user and system seconds, peak RSS, bytes written, stages."""
    with tempfile.TemporaryDirectory(prefix="lamina-compile-bench-") as workdir:
        outdir = Path(workdir) / "out"
        command = [TIME, "-f", "%e %U %S %M", sys.executable, "-m", "lamina.tools.lamina_compile", f"light:{model}",
                   "--arch", arch, "--random-weights", "0", "-o", str(outdir), *MODES[mode]]
        load_before = load_average()
        done = subprocess.run(command, capture_output=True, text=True)
        load_after = load_average()
        if done.returncode != 0:
            raise RuntimeError(done.stderr.strip().splitlines()[-1])
        wall, user, system, rss_kb = done.stderr.strip().splitlines()[-1].split()
        files = {path.name: path.stat().st_size for path in outdir.iterdir()}
        summary = json.loads((outdir / "summary.json").read_text())
        stages = {name: (seconds, summary["stage_cpu_seconds"][name])
                  for name, seconds in summary["stage_seconds"].items()}
    return {"model": model, "arch": arch, "mode": mode, "wall": float(wall), "user": float(user),
            "system": float(system), "rss_mb": int(rss_kb) / 1000, "written_mb": sum(files.values()) / 1e6,
            "files": files, "stages": stages, "load": (load_before, load_after)}


def verdict(row: dict, key: str) -> str:
    target = TARGETS.get((row["model"], row["arch"]), {}).get(key)
    if target is None:
        return f"{row[key]:.1f}"
    return f"{row[key]:.1f} ({'meets' if row[key] <= target else 'misses'} ≤ {target:g}: {row[key] / target:.2f}×)"


def table(rows: list[dict]) -> str:
    lines = ["| model → arch | mode | wall s | user s | sys s | peak RSS MB | written MB | load before/after |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['model']} → {row['arch']} | {row['mode']} | {verdict(row, 'wall')} | {row['user']:.1f} "
                     f"| {row['system']:.1f} | {verdict(row, 'rss_mb')} | {verdict(row, 'written_mb')} "
                     f"| {row['load'][0]:.1f} / {row['load'][1]:.1f} |")
    lines += ["", "Stage seconds, wall / CPU of every thread (from summary.json), and files written (MB):", ""]
    for row in rows:
        stages = ", ".join(f"{name} {wall:.2f} / {cpu:.2f}" for name, (wall, cpu) in row["stages"].items())
        files = ", ".join(f"{name} {size / 1e6:.1f}" for name, size in sorted(row["files"].items(),
                                                                             key=lambda item: -item[1]))
        lines.append(f"- {row['model']} → {row['arch']}, {row['mode']}: {stages}. Files: {files}.")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default="resnet50:ultra96v2,vgg19:zcu104", help="MODEL:ARCH,...")
    parser.add_argument("--modes", default="default,no-check", help=f"from {', '.join(MODES)}")
    parser.add_argument("--output", default=str(Path(__file__).parent / "results" / "compile.md"))
    args = parser.parse_args()
    header = report_header("lamina-compile: wall and CPU time, peak memory, bytes written",
                           f"python benchmarks/compile.py --runs {args.runs} --modes {args.modes}")
    notes = ["", "Each run: `lamina-compile light:MODEL --arch ARCH --random-weights 0 -o DIR` (mode no-check adds",
             "`--no-check`) under `/usr/bin/time`; written = the files in DIR. Targets (issue 18) in parentheses.", ""]
    rows = []
    for run in args.runs.split(","):
        model, arch = run.split(":")
        for mode in args.modes.split(","):
            rows.append(measure(model, arch, mode))
            print(table(rows[-1:]).splitlines()[2], file=sys.stderr, flush=True)
            Path(args.output).write_text("\n".join(header + notes) + "\n" + table(rows), encoding="utf-8")  # so far
    print(table(rows))


if __name__ == "__main__":
    main()
