"""Real-sized weights keep the text form usable: print, parse back, elide for people.

The light models' weights are ConstantOfShape fills (splats); with random
weights they become dense constants (ResNet-50: ~100 MB, VGG-19: ~550 MB),
printed as hex and parsed back bit-exactly; or written beside the text in binary
(`external_weights.py`) and read back bit-exactly.
"""

import numpy as np
import pytest

from lamina.dialects.context import InvalidIR, make_context, parse_module, print_module
from lamina.dialects.external_weights import write_module
from lamina.dialects.model import body_ops
from lamina.frontend.onnx_importer import import_model
from light_models import load_light_model, randomize_weights


def _round_trip(name: str):
    context = make_context()
    module = import_model(randomize_weights(load_light_model(name), seed=0), context)
    text = print_module(module)
    parsed = parse_module(text, context, f"{name}.mlir")
    assert print_module(parsed) == text
    weights = [op for op in body_ops(module) if op.name == "graph.constant"]
    parsed_weights = [op for op in body_ops(parsed) if op.name == "graph.constant"]
    assert sum(np.array(op.attributes["value"]).nbytes for op in parsed_weights) > 50e6
    for original, back in zip(weights, parsed_weights):
        assert np.array_equal(np.array(original.attributes["value"]), np.array(back.attributes["value"]))
    return module, context


def test_resnet50_random_weights_round_trip_and_elide(tmp_path):
    module, context = _round_trip("resnet50")
    write_module(module, tmp_path / "resnet50.mlir")  # the weights beside the text, in binary
    assert (tmp_path / "resnet50.mlir").stat().st_size < 1_000_000
    assert 100e6 < (tmp_path / "resnet50.weights.npz").stat().st_size < 105e6
    parsed = parse_module((tmp_path / "resnet50.mlir").read_text(), context, str(tmp_path / "resnet50.mlir"))
    assert print_module(parsed) == print_module(module)
    elided = print_module(module, elide=True)
    assert len(elided) < 200_000  # readable: the 100 MB of weights are gone
    with pytest.raises(InvalidIR, match=r"resnet50-elided.mlir:\d+:\d+: error: this constant was elided"):
        parse_module(elided, context, "resnet50-elided.mlir")


@pytest.mark.slow
def test_vgg19_random_weights_round_trip():
    _round_trip("vgg19")
