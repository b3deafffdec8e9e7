"""Finding and reading ONNX files, with errors that say what is wrong with the file."""

from __future__ import annotations

import os
from pathlib import Path

import onnx
from google.protobuf import json_format, text_format
from google.protobuf.message import DecodeError

from lamina.dialects.diagnostics import LaminaError

# The nine small CNNs shipped inside the onnx wheel (weights are ConstantOfShape).
LIGHT_MODEL_DIR = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
LIGHT_PREFIX = "light:"


def light_model_names() -> list[str]:
    """`bvlc_alexnet`, `resnet50`, ...: the names `light:NAME` accepts."""
    return sorted(path.stem.removeprefix("light_") for path in LIGHT_MODEL_DIR.glob("light_*.onnx"))


def resolve_model_path(argument: str) -> str:
    """A model argument as a file path: `light:NAME` names a model in the onnx wheel."""
    if not argument.startswith(LIGHT_PREFIX):
        return argument
    name = argument[len(LIGHT_PREFIX):]
    names = light_model_names()
    if name not in names:
        raise LaminaError(f"{argument}: unknown light model; known: {', '.join(names)}")
    return str(LIGHT_MODEL_DIR / f"light_{name}.onnx")


def load_onnx(path: str) -> onnx.ModelProto:
    """Read an ONNX model (or `light:NAME`), with its external data.

    A missing, unreadable, truncated or non-ONNX file is a LaminaError naming
    the file; protobuf alone would accept an empty file as an empty model.
    """
    path = resolve_model_path(str(path))
    if not os.path.exists(path):
        raise LaminaError(f"{path}: no such file")
    if os.path.isdir(path):
        raise LaminaError(f"{path}: is a directory, not an ONNX model")
    try:
        model = onnx.load(path)
    except DecodeError:
        raise LaminaError(f"{path}: not a valid ONNX model (the protobuf does not decode: truncated or not ONNX)") from None
    except (json_format.ParseError, text_format.ParseError, UnicodeDecodeError) as error:
        # onnx.load picks the format by suffix: .json and .txtpb files are read as text
        raise LaminaError(f"{path}: not a valid ONNX model in the text format its suffix names "
                          f"({_first_line(error)[:200]})") from None
    except OSError as error:
        raise LaminaError(f"{path}: cannot read: {error.strerror or error}") from None
    except onnx.checker.ValidationError as error:  # raised for missing or misplaced external data
        raise LaminaError(f"{path}: cannot load the model's external data ({_first_line(error)})") from None
    except (ValueError, TypeError, RuntimeError) as error:  # external data: offsets not numbers, names too long
        raise LaminaError(f"{path}: cannot load the model's external data ({_first_line(error)[:200]})") from None
    if not model.HasField("graph") or model.ir_version == 0:
        raise LaminaError(f"{path}: not a valid ONNX model (no ir_version or graph)")
    return model


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
