"""ResNet20v2 against outside figures: Tensil's published compile of the same network on zcu104.

Tensil counts multiply-accumulates with real inputs only (taps on zero
padding excluded, tensil-facts §5.1) and prints 61.476 MMAC for this network
(§5.3); Lamina's scheduler must count the same, to the printed precision.
Tensil's compile needs 291,904 cycles under its own latency model (§5.3),
the model `lamina/target/tcu/latency.py` implements; issue 18 asks for at
most 0.75 of that.
"""

from __future__ import annotations

import onnx
import pytest

from lamina.driver.compiler import compile_model

from resnet20v2_model import TENSIL_CYCLES, TENSIL_TRUE_MACS, resnet20v2


@pytest.fixture(scope="module")
def summary(tmp_path_factory):
    directory = tmp_path_factory.mktemp("resnet20v2")
    source = directory / "resnet20v2.onnx"
    onnx.save(resnet20v2(), str(source))
    return compile_model(source, "zcu104", directory / "out", random_weights=0).summary


def test_true_macs_equal_tensils_published_count(summary):
    assert round(summary.macs, -3) == TENSIL_TRUE_MACS
    # The 3x3 stem on 32 x 32 (pad 1): 3 x 16 pairs, 94 x 94 real taps, Tensil's layer 0 (0.424 MMAC).
    assert summary.layers[0].macs == 3 * 16 * 94 * 94


def test_at_most_three_quarters_of_tensils_cycles_with_every_activation_in_local_memory(summary):
    """Every intermediate activation stays in local memory (residency.py), so DRAM0 carries only the
    input image (32 x 32 pixels, one 32-lane vector of 2-byte values each) and the logits (one vector);
    the compile's own check still finds the simulator equal to the HIR executor bit for bit."""
    assert summary.cycles <= 0.75 * TENSIL_CYCLES
    assert summary.to_json()["dram0_traffic_bytes"] == (32 * 32 + 1) * 32 * 2
    assert summary.accuracy.to_json()["bit_exact"]
