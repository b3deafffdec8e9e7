"""Large constants kept out of the text: `dense_resource<KEY>` in the IR, the data in a `.npz` next to it.

Printed inline, ResNet-50's 25 M weights take 200 MB of hex per level and
seconds to print and parse. A module written with `write_module` keeps
constants of at most `INLINE_ELEMENTS` elements inline (`dense<...>`, so lit
tests still read as documentation) and refers to larger ones by content key;
the module attribute `lamina.weights_file = "NAME.npz"` names the weights file,
which must sit in the same directory as the IR. Keys are content hashes, so
levels written into one directory share one file and each tensor is stored
once. `parse_module` (context.py) calls `attach_weights`, which loads the keys
back as ordinary dense constants: every pass sees `DenseElementsAttr` only.
"""

from __future__ import annotations

import hashlib
import re
import zipfile
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

import numpy as np
from mlir import ir

from .attr_kinds import ELEMENTS, elements_view
from .diagnostics import LaminaError, format_location

WEIGHTS_ATTRIBUTE = "lamina.weights_file"
INLINE_ELEMENTS = 1024  # constants with more elements than this go to the weights file
# How MLIR prints an elements attribute above `large_elements_limit`; `write_module` swaps in the key.
_ELIDED = "dense_resource<__elided__>"
# A key as written, and the `_N` MLIR appends when a context has already seen that key.
_RESOURCE = re.compile(r"dense_resource<(?P<key>w_[0-9a-f]{16})(?:_\d+)?>")


def weights_file_name(ir_file: str | Path) -> str:
    """The weights file written beside `ir_file` by tools that write one IR file (`out.mlir` -> `out.weights.npz`)."""
    return f"{Path(ir_file).stem}.weights.npz"


class WeightsFile:
    """A `.npz` of content-keyed arrays, appended to by every module written with it. It is started afresh on
    the first write unless `keep` (IR already on disk may name it: its keys stay)."""

    def __init__(self, path: Path, keep: bool = False):
        self.path = path
        self._keys: set[str] | None = None  # None: nothing written yet
        self._keep = keep

    @contextmanager
    def adding(self) -> Iterator[Callable[[np.ndarray, ir.Type], str]]:
        """A function storing an array of an MLIR type (unless stored already) and returning its key."""
        if self._keys is None and self._keep and self.path.exists():
            self._keys = {name.removesuffix(".npy") for name in _names(self.path)}
        mode = "w" if self._keys is None else "a"
        self._keys = self._keys or set()
        try:
            with zipfile.ZipFile(self.path, mode, zipfile.ZIP_STORED, allowZip64=True) as archive:
                def add(array: np.ndarray, type_: ir.Type) -> str:
                    key = _key(array, type_)
                    if key not in self._keys:
                        with archive.open(f"{key}.npy", "w", force_zip64=True) as member:
                            np.lib.format.write_array(member, array, allow_pickle=False)
                        self._keys.add(key)
                    return key

                yield add
        except OSError as error:
            raise LaminaError(f"{self.path}: cannot write: {error.strerror}") from None


def _names(path: Path) -> list[str]:
    try:
        with zipfile.ZipFile(path) as archive:
            return archive.namelist()
    except (OSError, zipfile.BadZipFile) as error:
        raise LaminaError(f"{path}: cannot read the weights: {error}") from None


def write_module(module: ir.Operation, path: Path, weights: WeightsFile | None = None, *,
                 debug_info: bool = True) -> None:
    """Write `module` to `path`, its large constants into `weights` (default: `weights_file_name(path)`
    beside it, written only if the module has large constants)."""
    weights = weights or WeightsFile(path.parent / weights_file_name(path))
    text = external_text(module, weights, debug_info=debug_info)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise LaminaError(f"{path}: cannot write: {error.strerror}") from None


def external_text(module: ir.Operation, weights: WeightsFile, *, debug_info: bool = True) -> str:
    """The module's text with every large constant as `dense_resource<KEY>`, the data stored in `weights`.

    MLIR elides the large constants (in the order they are printed, which is
    the order of a walk: the constants have no regions); each is checked
    against its type before its key replaces it. Text where that does not add
    up (a large elements attribute nested elsewhere) is printed inline.
    """
    large = _attributes(module, _is_large)
    if not large:
        return module.get_asm(enable_debug_info=debug_info)
    module.attributes[WEIGHTS_ATTRIBUTE] = ir.StringAttr.get(weights.path.name, module.context)
    try:
        pieces = module.get_asm(enable_debug_info=debug_info, large_elements_limit=INLINE_ELEMENTS).split(_ELIDED)
    finally:
        del module.attributes[WEIGHTS_ATTRIBUTE]
    if len(pieces) != len(large) + 1 or not all(piece.startswith(f" : {attr.type}")
                                                 for piece, (_, _, attr) in zip(pieces[1:], large)):
        return module.get_asm(enable_debug_info=debug_info)
    with weights.adding() as add:  # one array at a time, straight from the attribute's storage
        keys = [add(elements_view(attr), attr.type) for _, _, attr in large]
    out = [pieces[0]]
    for key, piece in zip(keys, pieces[1:]):
        out += [f"dense_resource<{key}>", piece]
    return "".join(out)


def _key(array: np.ndarray, type_: ir.Type) -> str:
    digest = hashlib.blake2b(np.ascontiguousarray(array).data, digest_size=8)
    digest.update(str(type_).encode())
    return f"w_{digest.hexdigest()}"


def _attributes(module: ir.Operation, wanted) -> list[tuple[ir.Operation, str, ir.Attribute]]:
    """(op, attribute name, attribute) for every top-level op attribute `wanted(attribute)` accepts, in walk order."""
    found = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        attributes = op.attributes
        for named in (attributes[i] for i in range(len(attributes))):
            if wanted(named.attr):
                found.append((op, named.name, named.attr))
        return ir.WalkResult.ADVANCE

    module.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def _is_resource(attr: ir.Attribute) -> bool:
    return type(attr) is ir.Attribute and str(attr).startswith("dense_resource<")  # not downcast by the bindings


def _is_large(attr: ir.Attribute) -> bool:
    return (isinstance(attr, ir.DenseElementsAttr) and not attr.is_splat
            and int(np.prod(ir.ShapedType(attr.type).shape)) > INLINE_ELEMENTS)


def attach_weights(module: ir.Operation, text: str, source_name: str) -> None:
    """Replace each `dense_resource<KEY>` by the dense constant stored under KEY in the file the module's
    `lamina.weights_file` names, which must sit beside `source_name`; then drop that attribute."""
    if WEIGHTS_ATTRIBUTE not in module.attributes:
        if "dense_resource<" in text:
            first = next(iter(_attributes(module, _is_resource)), None)
            if first is not None:
                raise LaminaError(f"{format_location(first[0].location)}: error: dense_resource constants need "
                                  f"the weights file named by the module attribute '{WEIGHTS_ATTRIBUTE}'")
        return
    path = _weights_path(module, source_name)
    try:
        with np.load(path, allow_pickle=False) as archive:
            for op, name, attr in _attributes(module, _is_resource):
                op.attributes[name] = _stored(archive, op, attr, path)
    except (OSError, zipfile.BadZipFile, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise LaminaError(f"{path}: cannot read the weights: {reason}") from None
    del module.attributes[WEIGHTS_ATTRIBUTE]


def _weights_path(module: ir.Operation, source_name: str) -> Path:
    """The weights file: a plain file name, resolved in the directory of the IR file (never elsewhere)."""
    name = ir.StringAttr(module.attributes[WEIGHTS_ATTRIBUTE]).value
    where = f"{source_name}: error:"
    if name in ("", ".", "..") or "/" in name or "\\" in name:
        raise LaminaError(f"{where} {WEIGHTS_ATTRIBUTE} must name a file in the IR's directory, got '{name}'")
    if source_name in ("-", "") or source_name.startswith("<"):
        raise LaminaError(f"{where} the IR names weights file '{name}' but was not read from a file: "
                          "read it from its directory")
    return Path(source_name).parent / name


def _stored(archive, op: ir.Operation, attr: ir.Attribute, path: Path) -> ir.Attribute:
    """The dense constant stored for `attr`, checked against its type."""
    where = f"{format_location(op.location)}: error:"
    match = _RESOURCE.match(str(attr))
    key = match.group("key") if match else str(attr).split(">")[0][len("dense_resource<"):]
    if match is None or key not in archive.files:
        raise LaminaError(f"{where} constant '{key}' is not in {path.name}")
    array = archive[key]
    shape = ir.ShapedType(attr.type).shape
    dense = ELEMENTS.encode(array.reshape(shape) if array.size == int(np.prod(shape)) else array)
    if dense.type != attr.type:
        raise LaminaError(f"{where} constant '{key}' in {path.name} is {dense.type}, the IR says {attr.type}")
    return dense
