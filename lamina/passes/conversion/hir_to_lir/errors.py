"""Scheduler errors that know where in the HIR they arise, so the pass can report them there."""

from __future__ import annotations

from mlir import ir

from lamina.dialects.diagnostics import LaminaError


class ScheduleError(LaminaError):
    """`where: detail`; the pass reports `detail` at `location`, or at layer `layer_index`'s first op."""

    def __init__(self, where: str, detail: str, *, location: ir.Location | None = None,
                 layer_index: int | None = None):
        super().__init__(f"{where}: {detail}")
        self.detail = detail
        self.location = location
        self.layer_index = layer_index
