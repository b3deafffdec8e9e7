"""lamina-compile's memory and CPU time by stage: where the peak RSS comes from.

    python benchmarks/compile_memory.py MODEL ARCH [--no-check]

Runs `compile_model(light:MODEL, ARCH, random_weights=0)` in this process
(with one BLAS thread, as `lamina-compile` runs) while a thread samples the
RSS every 20 ms; prints per stage the RSS at its end, the highest RSS
sampled during it and its CPU seconds (every thread of the process), then
the process's VmHWM (the true peak: a spike shorter than 20 ms is missed by
the sampling), the activation peak and, with the check, its ACCURACY
section. `benchmarks/compile.py` gives the whole compile's figures in a
fresh process; this one says which stage holds the peak.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as lamina-compile sets it, before NumPy loads

from lamina.driver.accuracy import accuracy_text  # noqa: E402
from lamina.driver.compiler import compile_model  # noqa: E402


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def peak_rss_mb() -> float:
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith("VmHWM"))
    return int(line.split()[1]) / 1e3


class StageSampler:
    """Hears each stage start (`compile_model`'s progress) and samples the RSS in a thread."""

    def __init__(self):
        self.stage, self.rows = "start", []
        self.peak, self.cpu = rss_mb(), time.process_time()
        self.running = True
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()

    def _sample(self) -> None:
        while self.running:
            self.peak = max(self.peak, rss_mb())
            time.sleep(0.02)

    def __call__(self, stage: str) -> None:
        now, rss = time.process_time(), rss_mb()
        self.rows.append((self.stage, rss, max(self.peak, rss), now - self.cpu))
        self.stage, self.peak, self.cpu = stage, rss, now

    def stop(self) -> None:
        self("done")
        self.running = False
        self.thread.join()


def main() -> None:
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    model, arch, check = sys.argv[1], sys.argv[2], "--no-check" not in sys.argv[3:]
    sampler = StageSampler()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="lamina-compile-memory-") as workdir:
        result = compile_model(f"light:{model}", arch, workdir, random_weights=0, progress=sampler, check=check)
    sampler.stop()
    wall = time.perf_counter() - start
    print(f"{model} -> {arch}, {'default (check)' if check else '--no-check'}; load average {os.getloadavg()[0]:.1f}")
    print("| stage | RSS at its end (MB) | peak during it (MB) | CPU s |")
    print("|---|---:|---:|---:|")
    for stage, rss, peak, cpu in sampler.rows[1:]:
        print(f"| {stage} | {rss:,.0f} | {peak:,.0f} | {cpu:.2f} |")
    print(f"VmHWM {peak_rss_mb():,.0f} MB; CPU {time.process_time():.1f} s; wall {wall:.1f} s (after imports)")
    print(f"activation peak {result.activation_peak:.3g}")
    if result.summary.accuracy is not None:
        print(accuracy_text(result.summary.accuracy))


if __name__ == "__main__":
    main()
