"""Sensitive-layer search: which layers stay float so that an int8 graph meets a cosine target.

Mixed precision chosen by measurement, as TPU-MLIR's sensitive-layer search
does (its qtable) and Glow's keep lists do by hand. A layer is a
convolution or fully-connected op with the chain of single-input ops that
follow it alone (relu, pools, reshapes): keeping only the convolution float
would still round its result at the relu. Each layer is quantized alone,
every other op float, on the calibration samples, and its output error
measured against the float graph (the ranking). Then bisection over the
ranking finds the fewest top-ranked layers to keep float for the whole mix
to meet the target over the calibration samples (bisection assumes that
keeping more layers float only brings the graph closer to float). The
result is `graph-quantize`'s `keep-nodes` list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.model import body_ops
from lamina.dialects.values import users
from lamina.passes.graph.graph_identity import output_names
from lamina.passes.graph.quantize import GraphQuantize

from . import graph_interpreter
from .compare import cosine_similarity

Feeds = Mapping[str, np.ndarray]


@dataclass(frozen=True)
class Search:
    keep_nodes: tuple[str, ...]  # node outputs graph-quantize keeps float
    layers: int  # layers the search weighed
    cosine_all_int8: float  # worst output cosine, every layer int8, on the samples
    cosine: float  # the same with `keep_nodes` float
    errors: tuple[tuple[str, float], ...]  # per layer (first node output): its error energy alone, largest first


def layer_chains(module: ir.Operation) -> list[list[str]]:
    """Node-output names of each layer: a matmul-kind op and the single-input ops only it feeds, in order."""
    names = output_names(module)
    chains = []
    for op in body_ops(module):
        view = GRAPH.lookup(op)
        if view is None or view.quantized != "accumulate" or len(op.results) != 1:
            continue
        chain, value = [names[op.results[0]]], op.results[0]
        while True:
            readers = users(value)
            if len(readers) != 1 or len(readers[0].results) != 1 or readers[0].results[0] not in names:
                break
            reader = GRAPH.lookup(readers[0])
            if reader is None or reader.quantized not in ("requantize", "same_scale") or \
                    sum(1 for operand in readers[0].operands if operand in names) != 1:
                break
            value = readers[0].results[0]
            chain.append(names[value])
        chains.append(chain)
    return chains


def search_keep_nodes(module: ir.Operation, profile: str, samples: Sequence[Feeds], target: float,
                      per_channel: bool = True, ranking_samples: int = 2) -> Search:
    """The fewest most sensitive layers to keep float so that every output's cosine against the float graph,
    over `samples` stacked, is at least `target`. Layers are ranked on the first `ranking_samples` samples
    (one interpreter run per layer and sample: the search's cost). `module` is not changed."""
    reference = [graph_interpreter.run(module, feeds) for feeds in samples]
    chains = layer_chains(module)
    every = {name for chain in chains for name in chain}

    def measure(keep: set[str], count: int = len(samples)) -> tuple[float, float]:
        """(largest relative error energy, smallest cosine) over the outputs on the first `count` samples,
        with `keep` float."""
        graph = module.clone()
        GraphQuantize(profile=profile, per_channel=per_channel, keep_nodes=tuple(sorted(keep))).run(graph)
        runs = [graph_interpreter.run(graph, feeds) for feeds in samples[:count]]
        energies, cosines = [], []
        for name in reference[0]:
            ours = np.concatenate([run[name].ravel() for run in runs]).astype(np.float64)
            theirs = np.concatenate([ref[name].ravel() for ref in reference[:count]]).astype(np.float64)
            energies.append(float(np.sum((ours - theirs) ** 2) / max(np.sum(theirs ** 2), 1e-300)))
            cosines.append(cosine_similarity(ours, theirs))
        return max(energies), min(cosines)

    all_int8 = measure(set())[1]
    if all_int8 >= target:
        return Search((), len(chains), all_int8, all_int8, ())
    alone = [(measure(every - set(chain), ranking_samples)[0], chain) for chain in chains]
    ranked = sorted(alone, key=lambda item: -item[0])

    def kept(count: int) -> set[str]:
        return {name for _, chain in ranked[:count] for name in chain}

    # the smallest count of top-ranked layers that meets the target, by bisection (more kept: closer to float)
    low, high, cosine = 0, len(ranked), 1.0
    while high - low > 1:
        middle = (low + high) // 2
        middle_cosine = measure(kept(middle))[1]
        if middle_cosine >= target:
            high, cosine = middle, middle_cosine
        else:
            low = middle
    if high == len(ranked):
        cosine = measure(kept(high))[1]
    return Search(tuple(sorted(kept(high))), len(chains), all_int8, cosine,
                  tuple((chain[0], energy) for energy, chain in ranked))
