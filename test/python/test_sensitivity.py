"""The sensitive-layer search (lamina/runtime/sensitivity.py) against onnxruntime's float model."""

from __future__ import annotations

import numpy as np
import onnxruntime
import pytest

from lamina.dialects.context import make_context
from lamina.frontend.onnx_importer import import_model
from lamina.passes.graph.quantize import GraphQuantize
from lamina.passes.pass_manager import run_pipeline
from lamina.quantization.profile import write_profile
from lamina.runtime import graph_interpreter
from lamina.runtime.compare import cosine_similarity
from lamina.runtime.profiler import profile_graph
from lamina.runtime.sensitivity import layer_chains, search_keep_nodes

from qdq_models import calibration_inputs, float_cnn


@pytest.fixture(scope="module")
def profiled(tmp_path_factory):
    """float_cnn at the precision stage's position, its profile on 8 samples, and those samples."""
    module = import_model(float_cnn(), make_context())
    run_pipeline(module, "builtin.module(graph-optimize{backend=reference})")
    pristine = module.clone()
    samples = calibration_inputs(8)
    path = tmp_path_factory.mktemp("profile") / "p.yaml"
    write_profile(profile_graph(module, samples), path)
    return pristine, str(path), samples


def onnxruntime_cosine(module, keep_nodes: tuple[str, ...], profile: str) -> float:
    """Cosine of the quantized graph (interpreter) against onnxruntime's float model on unseen inputs."""
    graph = module.clone()
    GraphQuantize(profile=profile, per_channel=True, keep_nodes=keep_nodes).run(graph)
    session = onnxruntime.InferenceSession(float_cnn().SerializeToString(), providers=["CPUExecutionProvider"])
    samples = calibration_inputs(8, seed=11)
    ours = np.stack([graph_interpreter.run(graph, s)["y"] for s in samples])
    theirs = np.stack([session.run(None, s)[0] for s in samples])
    return cosine_similarity(ours, theirs)


def test_a_layer_is_its_matmul_op_and_the_single_input_ops_after_it(profiled):
    """conv1 -> relu1 -> pool1 | conv2 -> relu2 -> gap -> flatten | fc (the names as in the profile)."""
    module, _, _ = profiled
    chains = layer_chains(module)
    assert [len(chain) for chain in chains] == [3, 4, 1]
    assert [chain[0].split(":")[0] for chain in chains] == ["conv1", "conv2", "fc"]


def test_a_met_target_keeps_every_layer_int8(profiled):
    module, profile, samples = profiled
    search = search_keep_nodes(module, profile, samples, 0.9)
    assert search.keep_nodes == () and search.cosine == search.cosine_all_int8 >= 0.9


def test_a_strict_target_keeps_the_fewest_sensitive_layers_float(profiled):
    """All int8 gives 0.999948 here, against 0.99998: the search ranks the layers by their error alone and keeps
    the two worst float (conv2, fc; keeping conv2 alone gives 0.999966), not the third, and the mix is closer to
    onnxruntime's float on inputs it did not see."""
    module, profile, samples = profiled
    search = search_keep_nodes(module, profile, samples, 0.99998)
    assert search.cosine_all_int8 < 0.99998 <= search.cosine
    energies = [energy for _, energy in search.errors]
    assert energies == sorted(energies, reverse=True) and len(energies) == 3
    kept_layers = [chain[0] for chain in layer_chains(module) if chain[0] in search.keep_nodes]
    assert kept_layers == sorted(name for name, _ in search.errors[:2]) == ["conv2:0", "fc:0"]
    assert onnxruntime_cosine(module, search.keep_nodes, profile) > onnxruntime_cosine(module, (), profile)
