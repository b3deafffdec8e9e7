"""Running one fuzz case: a forked child runs a tool's `main(argv)` under resource limits.

The parent imports every tool once; each case forks it (a few milliseconds
instead of a second of interpreter start-up), and the child sets its
limits (address space, CPU time), points stdout/stderr at files, and calls
the tool in process. A Python exception the tool lets escape is a
traceback; a signal (an LLVM abort, a segfault, the CPU limit) is a crash;
a child still running at the wall-clock limit is killed and is a hang. Exit
1 or 2 with an `error:` line and no traceback is a clean rejection, exit 0
is an accepted input, which the case's oracle (the ONNX checker, then
onnxruntime) may call invalid.
"""

from __future__ import annotations

import os
import resource
import signal
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from lamina.tools import lamina_compile, lamina_disasm, lamina_import, lamina_opt, lamina_run

TOOLS: dict[str, Callable[[list[str]], int]] = {
    "lamina-import": lamina_import.main, "lamina-opt": lamina_opt.main, "lamina-run": lamina_run.main,
    "lamina-disasm": lamina_disasm.main, "lamina-compile": lamina_compile.main,
}
MEMORY_LIMIT = 3 << 30  # bytes of address space per case
TRACEBACK_STATUS = 70  # the child's exit status for an escaped exception
ORACLE_STATUS = 71  # accepted, but the oracle says the input is invalid
ORACLE_MARK = "fuzz: the tool accepted the input; running the oracle"
OUTCOMES = ("clean", "accepted", "accepted-invalid", "traceback", "crash", "hang")


@dataclass(frozen=True)
class Case:
    """One tool run on files already written into `directory`."""

    kind: str  # onnx, mlir, pipeline, npz, tmodel, tprog, tarch
    tool: str
    argv: tuple[str, ...]
    directory: Path
    oracle: Callable[[], str | None] | None = None  # for accepted inputs: why the input is invalid, or None


@dataclass(frozen=True)
class Result:
    case: Case
    outcome: str
    seconds: float
    detail: str  # the error line, the traceback's last line, the signal, or the oracle's reason


def run_case(case: Case, wall_seconds: float) -> Result:
    """Fork, run the tool in the child, classify how it ended."""
    start = time.monotonic()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        _child(case, wall_seconds)
    status = _wait(pid, wall_seconds)
    seconds = time.monotonic() - start
    if status is None:
        return Result(case, "hang", seconds, f"still running after {wall_seconds:.0f} s")
    stderr = _tail(case.directory / "stderr.txt")
    if os.WIFSIGNALED(status) and ORACLE_MARK in stderr:
        # the oracle itself (onnxruntime) died on an input Lamina and the ONNX checker accept
        return Result(case, "accepted", seconds, f"the oracle crashed: {signal.Signals(os.WTERMSIG(status)).name}")
    if os.WIFSIGNALED(status):
        return Result(case, "crash", seconds, f"{signal.Signals(os.WTERMSIG(status)).name}: {_last_line(stderr)}")
    code = os.WEXITSTATUS(status)
    if code == TRACEBACK_STATUS or "Traceback (most recent call last)" in stderr:
        return Result(case, "traceback", seconds, _last_line(stderr))
    if code == ORACLE_STATUS:
        return Result(case, "accepted-invalid", seconds, _last_line(stderr))
    if code == 0:
        return Result(case, "accepted", seconds, "")
    if code in (1, 2) and "error:" in stderr:
        return Result(case, "clean", seconds, _last_line(stderr))
    return Result(case, "crash", seconds, f"exit {code}: {_last_line(stderr)}")


def _child(case: Case, wall_seconds: float) -> None:
    """In the forked child: limits, redirections, the tool, the oracle; never returns."""
    code = TRACEBACK_STATUS
    try:
        os.setsid()
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        cpu = int(wall_seconds) + 5
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
        resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 20, 256 << 20))
        os.chdir(case.directory)
        for fd, name in ((1, "stdout.txt"), (2, "stderr.txt")):
            target = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(target, fd)
            os.close(target)
        sys.stdout = os.fdopen(1, "w", closefd=False)
        sys.stderr = os.fdopen(2, "w", closefd=False)
        sys.stdin = open(os.devnull)
        try:
            code = TOOLS[case.tool](list(case.argv))
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
        if code == 0 and case.oracle is not None:
            print(ORACLE_MARK, file=sys.stderr, flush=True)
            reason = case.oracle()
            if reason:
                print(f"oracle: accepted an invalid input: {reason}", file=sys.stderr)
                code = ORACLE_STATUS
    except BaseException:  # the point of the fuzzer: any escape is recorded
        traceback.print_exc()
        code = TRACEBACK_STATUS
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:
            pass
        os._exit(code)


def _wait(pid: int, wall_seconds: float) -> int | None:
    """The child's status, or None after killing it at the wall-clock limit."""
    deadline = time.monotonic() + wall_seconds
    delay = 0.002
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.monotonic() > deadline:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
            return None
        time.sleep(delay)
        delay = min(delay * 2, 0.05)


def _tail(path: Path, limit: int = 20000) -> str:
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - limit))
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    for line in lines:
        if "error:" in line or line.startswith("oracle:"):
            return line[:300]
    return lines[-1][:300] if lines else ""
