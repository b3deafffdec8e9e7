"""Mutations of each input kind: small, structure-aware changes plus raw byte damage.

Every mutator takes a `random.Random` and a valid seed and returns bytes (or
text) that are usually invalid in one specific way: a field of the wrong
type, a number out of range, a name that escapes, a duplicate, a truncation.
"""

from __future__ import annotations

import json
import random
import re

import onnx
from onnx import helper

INTERESTING_INTS = [0, -1, 1, 2, 3, 7, 255, 256, 65535, 65536, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 63 - 1, 2 ** 63,
                    2 ** 64, -2 ** 63, 10 ** 30]
INTERESTING_STRINGS = ["", "x", "graph.", "hir", "lir.", "func.", "../secret", "/etc/passwd", "/dev/zero",
                       "a" * 300, "\u00e9", "\x00", "NaN", "model.tprog", "host-0.mlir", "model.tdata"]
MLIR_TOKENS = ['"graph."', '"hir"', '"lir."', '"func."', "bf16", "f64", "i1", "-1", "0", "99999999999999999999",
               "tensor<?xf32>", "memref<0xf32>", "dense<>", "{", "}", "(", ")", "<", ">", ":", "=", "%0", "^bb0:",
               "loc(", '"', "\\", "dense_resource<__elided__>", "// -----", "builtin.module", "func.func"]


def flip_bytes(rng: random.Random, data: bytes) -> bytes:
    """Random byte damage: flips, truncation, insertion, or repeating a slice."""
    data = bytearray(data)
    choice = rng.randrange(4)
    if choice == 0 and data:
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif choice == 1 and data:
        del data[rng.randrange(len(data)):]
    elif choice == 2:
        at = rng.randrange(len(data) + 1)
        data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    elif data:
        start = rng.randrange(len(data))
        piece = data[start:start + rng.randint(1, 64)]
        at = rng.randrange(len(data) + 1)
        data[at:at] = piece * rng.randint(1, 4)
    return bytes(data)


def _random_value(rng: random.Random):
    return rng.choice([rng.choice(INTERESTING_INTS), rng.choice(INTERESTING_STRINGS), None, True, 1.5, [], {},
                       [rng.choice(INTERESTING_INTS)], {"k": 1}, "x" * rng.randint(0, 5)])


def mutate_json(rng: random.Random, text: str) -> str:
    """Change, delete, duplicate or retype one field somewhere in a JSON document."""
    value = json.loads(text)
    paths = []

    def walk(node, path):
        paths.append(path)
        if isinstance(node, dict):
            for key, child in node.items():
                walk(child, path + [key])
        elif isinstance(node, list):
            for index, child in enumerate(node):
                walk(child, path + [index])

    walk(value, [])
    for _ in range(rng.randint(1, 3)):
        path = rng.choice(paths[1:] or [[]])
        if not path:
            break
        parent = value
        try:
            for key in path[:-1]:
                parent = parent[key]
            last = path[-1]
            action = rng.randrange(5)
            if action == 0:
                del parent[last]
            elif action == 1 and isinstance(parent, list):
                parent.append(parent[last])
            elif action == 2 and isinstance(parent[last], int) and not isinstance(parent[last], bool):
                parent[last] = rng.choice([parent[last] + rng.choice([-1, 1]), rng.choice(INTERESTING_INTS)])
            elif action == 3 and isinstance(parent[last], str):
                parent[last] = rng.choice(INTERESTING_STRINGS)
            else:
                parent[last] = _random_value(rng)
        except (KeyError, IndexError, TypeError):
            continue
    if rng.random() < 0.05:
        return "[" * rng.randint(100, 100000) + "]" * rng.randint(0, 10)
    return json.dumps(value)


def mutate_text(rng: random.Random, text: str) -> str:
    """MLIR text: swap numbers, types and names for odd ones, delete or repeat lines, splice tokens."""
    lines = text.splitlines()
    for _ in range(rng.randint(1, 3)):
        if not lines:
            break
        choice = rng.randrange(6)
        at = rng.randrange(len(lines))
        if choice == 0:
            lines[at] = re.sub(r"-?\d+", lambda m: str(rng.choice(INTERESTING_INTS)) if rng.random() < 0.3
                               else m.group(0), lines[at])
        elif choice == 1:
            del lines[at]
        elif choice == 2:
            lines.insert(at, lines[rng.randrange(len(lines))])
        elif choice == 3:
            words = lines[at].split(" ")
            words[rng.randrange(len(words))] = rng.choice(MLIR_TOKENS)
            lines[at] = " ".join(words)
        elif choice == 4:
            lines[at] = re.sub(r'"(graph|buffer|hir|lir)\.\w+"', lambda m: rng.choice(['"graph."', '"hir"',
                               '"lir."', '"func."', f'"{m.group(1)}.nothing"', m.group(0)]), lines[at])
        else:
            lines[at] = re.sub(r"\b(f32|i16|i64|f16)\b", lambda m: rng.choice(["bf16", "f64", "i8", "i1", "f16",
                               "complex<f32>", "index", m.group(0)]), lines[at])
    return "\n".join(lines) + "\n"


def mutate_onnx(rng: random.Random, data: bytes) -> bytes:
    """A structure-aware change to a model (attributes, tensors, names, shapes), or byte damage."""
    if rng.random() < 0.15:
        return flip_bytes(rng, data)
    model = onnx.ModelProto()
    model.ParseFromString(data)
    graph = model.graph
    for _ in range(rng.randint(1, 2)):
        rng.choice(_ONNX_MUTATIONS)(rng, model, graph)
    return model.SerializeToString()


def _attribute(rng, model, graph):
    node = rng.choice(graph.node)
    if node.attribute and rng.random() < 0.5:
        attribute = rng.choice(node.attribute)
        choice = rng.randrange(4)
        if choice == 0:
            attribute.name = rng.choice([attribute.name.capitalize(), attribute.name + "s", "zebra", ""])
        elif choice == 1:
            node.attribute.append(attribute)
        elif choice == 2:
            node.attribute.remove(attribute)
        else:
            replacement = helper.make_attribute(attribute.name, rng.choice(
                [rng.choice(INTERESTING_INTS[:-4]), [rng.choice(INTERESTING_INTS[:-4])] * rng.randint(1, 5),
                 "SAME_UPPER", 0.5, [1.5, 2.5]]))
            attribute.CopyFrom(replacement)
    else:
        node.attribute.append(helper.make_attribute(rng.choice(["axis", "Axis", "perm", "pads", "alpha", "mode"]),
                                                    rng.choice([1, -1, [0, 1], "x", 2.0])))


def _tensor(rng, model, graph):
    if not graph.initializer:
        return
    tensor = rng.choice(graph.initializer)
    choice = rng.randrange(6)
    if choice == 0:
        tensor.float_data.extend([1.0] * rng.randint(1, 4))
    elif choice == 1 and tensor.dims:
        tensor.dims[rng.randrange(len(tensor.dims))] = rng.choice(INTERESTING_INTS[:-4])
    elif choice == 2:
        tensor.raw_data = tensor.raw_data[:rng.randrange(len(tensor.raw_data) + 1)]
    elif choice == 3:
        graph.initializer.append(tensor)
    elif choice == 4:
        tensor.data_type = rng.choice([0, 2, 3, 6, 7, 8, 9, 10, 11, 16, 21, 99])
    else:
        tensor.data_location = onnx.TensorProto.EXTERNAL
        for key, value in (("location", rng.choice(INTERESTING_STRINGS)), ("offset", rng.choice(["abc", "-1", "0"])),
                           ("length", rng.choice(["1", "x", "99999999999"]))):
            tensor.external_data.add(key=key, value=value)


def _names(rng, model, graph):
    node = rng.choice(graph.node)
    choice = rng.randrange(5)
    if choice == 0 and node.input:
        node.input[rng.randrange(len(node.input))] = rng.choice(["", "nowhere", "x", "y"])
    elif choice == 1:
        node.op_type = rng.choice(["Relu", "Conv", "Foo", "", "If", "Loop", "Constant", "Gather", "Pad", "Clip"])
    elif choice == 2 and node.output:
        node.output[0] = rng.choice(["x", "y", ""])
    elif choice == 3:
        graph.node.remove(node)
    else:
        node.domain = rng.choice(["", "ai.onnx", "com.microsoft", "bogus"])


def _shapes(rng, model, graph):
    value = rng.choice(list(graph.input) + list(graph.output))
    dims = value.type.tensor_type.shape.dim
    if dims and rng.random() < 0.7:
        dim = dims[rng.randrange(len(dims))]
        if rng.random() < 0.5:
            dim.dim_value = rng.choice([0, 1, 2, 1000000, 2 ** 40])
        else:
            dim.dim_param = rng.choice(["N", "batch", ""])
    else:
        value.type.tensor_type.elem_type = rng.choice([0, 2, 7, 9, 10, 11, 16, 99])


def _model_fields(rng, model, graph):
    choice = rng.randrange(3)
    if choice == 0:
        model.opset_import[0].version = rng.choice([1, 6, 7, 11, 13, 21, 30, 0])
    elif choice == 1:
        model.ir_version = rng.choice([0, 1, 3, 7, 11, 99])
    else:
        graph.input.append(graph.input[0])


_ONNX_MUTATIONS = [_attribute, _tensor, _names, _shapes, _model_fields]


def mutate_pipeline(rng: random.Random, passes: list[str]) -> str:
    """A pass pipeline from registered names, with odd nesting, options and syntax."""
    chosen = [rng.choice(passes) for _ in range(rng.randint(1, 4))]
    parts = []
    for name in chosen:
        if rng.random() < 0.3:
            key = rng.choice(["backend", "strategy", "arch", "max-growth", "scheduler", "vectorize", "bogus"])
            name += "{" + key + "=" + rng.choice(["reference", "memory", "-1", "x", "pynq-z1", "true", "",
                                                  "99999999999999999999"]) + "}"
        parts.append(name)
    text = rng.choice(["builtin.module({})", "func.func({})", "builtin.module(func.func({}))", "{}",
                       "builtin.module({}", "builtin.module(({}))"]).format(",".join(parts))
    if rng.random() < 0.2:
        text = flip_bytes(rng, text.encode()).decode("utf-8", "replace")
    return text
