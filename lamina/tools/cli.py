"""What every Lamina tool shares: user errors become one line and exit 1."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Callable

from lamina.dialects.diagnostics import LaminaError


def run_tool(tool: str, body: Callable[[], int | None]) -> int:
    """Run a tool's body; a `LaminaError` prints `tool: error: ...` and returns 1.

    Any other exception is a bug in Lamina and keeps its traceback. A
    reader that closes stdout early (`| head`) ends the tool quietly.
    """
    try:
        status = body() or 0
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except LaminaError as error:
        lines = str(error).splitlines() or ["unknown error"]
        print(f"{tool}: error: {lines[0]}", file=sys.stderr)
        for line in lines[1:]:
            print(f"  {line}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{tool}: interrupted", file=sys.stderr)
        return 130


def parse_arguments(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """`parser.parse_args`, where `--help | head` ends quietly too."""
    try:
        return parser.parse_args(argv)
    except BrokenPipeError:
        _silence_stdout()
        raise SystemExit(0) from None


def _silence_stdout() -> None:
    """After a broken pipe: Python would report it again when it flushes stdout at exit."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def read_text(path: str) -> str:
    """File text, or stdin for '-'; a missing or unreadable file is a LaminaError."""
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise LaminaError(f"{path}: cannot read: {error.strerror if isinstance(error, OSError) else error}") from None


def write_text(path: str, text: str) -> None:
    """Write to a file, or stdout for '-'."""
    if path == "-":
        sys.stdout.write(text)
        return
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as error:
        raise LaminaError(f"{path}: cannot write: {error.strerror}") from None
