"""Dialects as data: one Python definition yields the IRDL module, the builders,
the accessors and the semantic verifier.

MLIR 22's Python bindings load IRDL dialects but give IRDL ops no traits, no
custom syntax and no verifier hooks. A `DialectDef` therefore carries, per op,
the structural part (operands, results, typed attributes: emitted as IRDL and
checked by MLIR itself, also by upstream `mlir-opt --irdl-file`) and the
semantic part (a shape function checked in Python by `verify_op`).

Each operand, result and attribute gets its own IRDL constraint value: IRDL
ties uses of one constraint value together, which is never what we mean here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from mlir import ir
from mlir.dialects import irdl as irdl_dialect

# Re-exported: the dialect tables import the attribute kinds with DialectDef.
from .attr_kinds import BOOL, ELEMENTS, F32, F32S, I64, I64S, SCALAR, STR, AttrKind, encode_scalar  # noqa: F401
from .diagnostics import LaminaError, format_location
from .types import ShapeError, TensorSpec, UnsupportedType, spec_of, to_memref, to_mlir


# ---------------------------------------------------------------------------
# Op definitions.
# ---------------------------------------------------------------------------

# Shape function: (operand specs, decoded attrs, declared result specs or None)
# -> result specs. Raises ShapeError when the op is ill-formed. Ops whose result
# cannot be derived from operands (reshape, placeholder, ...) read `declared`.
ShapeFn = Callable[[list[TensorSpec], dict, "list[TensorSpec] | None"], list[TensorSpec]]


# Op traits: facts about an op that passes query (`OpDef.has`, `DialectDef.with_trait`)
# instead of keeping lists of op names. Graph ops have value semantics, so every
# op is pure (free of side effects) except those marked INTERFACE.
ELEMENTWISE = "elementwise"  # result element i reads only operand elements i (Glow's dataParallel)
REARRANGING = "rearranging"  # result elements are copies of elements of the one operand
CONSTANT = "constant"  # the result is data known at compile time
INTERFACE = "interface"  # a model input or output: has effects, kept even when unused
FORWARDING = "forwarding"  # the result is the first operand (removable)
STORAGE = "storage"  # the result lives in its own storage (a model input or a weight), not in activation memory
COMMUTATIVE = "commutative"  # operands may be swapped
IN_PLACE = "in-place"  # may write its result over an input of the same type that dies there (Glow's inplaceOperand)
VIEW = "view"  # the result is the operand's elements seen in another shape: a view of its memory, no copy
LAYER = "layer"  # input x weights + a per-output-channel bias (Glow's Convolution and FullyConnected nodes)
MEMORY_OBJECT = "memory-object"  # declares memory (a buffer, a Vars, Consts or Temp object) rather than computing
PROBE = "probe"  # records the values it reads (Glow's Profile mode): an effect, kept even when unused
PRECISION = "precision"  # converts precisions (quantize, dequantize) or observes values for them (profile)
BOUNDED = "bounded"  # the result lies within the op's `min` and `max` attributes, whatever its input (clip)
TRAITS = (ELEMENTWISE, REARRANGING, CONSTANT, INTERFACE, FORWARDING, STORAGE, COMMUTATIVE, IN_PLACE, VIEW, LAYER,
          MEMORY_OBJECT, PROBE, PRECISION, BOUNDED)


# IRDL 22 verifies every value of a variadic group against one constraint
# variable, which ties their types together; a group of values of different
# types (If results, Loop carried values) is this many optional slots instead.
MAX_MIXED = 16

# How an instruction uses a buffer operand (Glow's @in, @out, @inout). Tensor
# operands of value-semantics ops are all "in".
ROLES = ("in", "out", "inout")

# How an op with `!quant.uniform` operands computes (Glow's quantized nodes):
# - "accumulate": integer products summed in i32 onto an i32 bias whose scale is
#   input scale x weight scale, then requantized to the result's scale
#   (convolution, fully_connected);
# - "requantize": on the real values its operands stand for, the result rounded
#   to its own scale (add, average pooling, relu, ...);
# - "same_scale": moves stored values; the result keeps its input's scale
#   (reshape, transpose, max pooling, ...);
# - "carrier": holds, reads, writes or converts stored values without computing
#   (constant, placeholder, save, quantize, dequantize).
QUANTIZED_KINDS = ("accumulate", "requantize", "same_scale", "carrier")


@dataclass(frozen=True)
class OpDef:
    """One op of a dialect: its signature, its semantics in one line, its shape rule.

    `roles` maps operands to how the op uses them (default "in"); it is defined
    here once and read by every pass that reasons about reads and writes.
    `traits` are the op's facts from `TRAITS`; `enums` gives the allowed values
    of string attributes, checked by the verifier and read by the importer.
    Both default to empty, so an op defined without them behaves as a plain
    pure op.
    """

    name: str
    summary: str
    operands: tuple[str, ...] = ()
    results: tuple[str, ...] = ("output",)
    attrs: dict[str, AttrKind] = field(default_factory=dict)
    shape_fn: ShapeFn | None = None
    variadic: str | None = None  # the name of the one variadic operand group, if any
    roles: dict[str, str] = field(default_factory=dict)
    value_base: str = "!builtin.tensor"  # the IRDL base of operand and result types
    quantized: str | None = None  # how a quantized instance computes (QUANTIZED_KINDS); None: it has none
    # Control flow (docs/control-flow.md): named regions, a variadic result
    # group, and whether the variadic groups hold values of different types
    # (emitted as MAX_MIXED optional slots, each its own IRDL constraint).
    regions: tuple[str, ...] = ()
    variadic_results: str | None = None
    mixed: bool = False
    # A check of what a shape function cannot see (regions): the problem, or None.
    op_check: Callable[[ir.Operation], str | None] | None = None
    traits: frozenset[str] = frozenset()
    enums: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # A training op (a gradient or the SGD update): every backend lowers it into
    # ordinary ops, so no executor needs a kernel for it (Glow's XGrad and SGD nodes).
    training: bool = False
    # (operand, axis): the operand whose `axis` indexes the result's channels (axis 1), each
    # channel scaled by its slice: a per-channel multiply after the op folds into that operand
    # (and, for a LAYER, an add into its bias); quantization gives it per-channel scales.
    channel_weights: tuple[str, int] | None = None

    def __post_init__(self):
        unknown = {n: r for n, r in self.roles.items() if n not in self.operands or r not in ROLES}
        assert not unknown, f"{self.name}: bad roles {unknown}"
        assert self.quantized in (None, *QUANTIZED_KINDS), f"{self.name}: bad quantized kind {self.quantized}"
        object.__setattr__(self, "traits", frozenset(self.traits))
        assert self.traits <= set(TRAITS), f"{self.name}: unknown traits {sorted(self.traits - set(TRAITS))}"
        bad_enums = [n for n in self.enums if self.attrs.get(n) is not STR]
        assert not bad_enums, f"{self.name}: enums on non-string attributes {bad_enums}"

    def has(self, trait: str) -> bool:
        assert trait in TRAITS, trait
        return trait in self.traits

    def enum_problem(self, attrs: dict) -> str | None:
        """Why a string attribute holds a value its enum does not allow, or None."""
        for name, allowed in self.enums.items():
            if attrs.get(name) not in allowed:
                shown = ", ".join(repr(value) for value in allowed)
                return f"{name} must be one of {shown}, got {attrs.get(name)!r}"
        return None

    def role(self, operand: str) -> str:
        return self.roles.get(operand, "in")

    def operand_roles(self, count: int) -> list[str]:
        """The role of each of `count` actual operands (a variadic group repeats its role)."""
        if self.variadic is None:
            return [self.role(name) for name in self.operands]
        index = self.operands.index(self.variadic)
        fixed_after = len(self.operands) - index - 1
        repeated = count - index - fixed_after
        names = [*self.operands[:index], *([self.variadic] * repeated), *self.operands[index + 1:]]
        return [self.role(name) for name in names]

    def irdl(self) -> str:
        """The `irdl.operation` text for this op."""
        lines = [f"  irdl.operation @{self.name} {{"]
        counter = iter(range(1_000_000))

        def constraint(base: str | None, rhs: str = "irdl.any") -> str:
            value = f"%c{next(counter)}"
            rhs = f'irdl.base "{base}"' if base else rhs
            lines.append(f"    {value} = {rhs}")
            return value

        def group(names: tuple[str, ...], variadic: str | None) -> str:
            entries = []
            for name in names:
                if name == variadic and self.mixed:
                    entries += [f"{name}{i}: optional {constraint(self.value_base)}" for i in range(MAX_MIXED)]
                else:
                    prefix = "variadic " if name == variadic else ""
                    entries.append(f"{name}: {prefix}{constraint(self.value_base)}")
            return ", ".join(entries)

        attr_values = {name: constraint(kind.irdl_base) for name, kind in self.attrs.items()}
        operands = group(self.operands, self.variadic)
        results = group(self.results, self.variadic_results)
        regions = ", ".join(f"{name}: {constraint(None, 'irdl.region')}" for name in self.regions)
        if attr_values:
            entries = ", ".join(f'"{name}" = {value}' for name, value in attr_values.items())
            lines.append(f"    irdl.attributes {{{entries}}}")
        if operands:
            lines.append(f"    irdl.operands({operands})")
        if results:
            lines.append(f"    irdl.results({results})")
        if regions:
            lines.append(f"    irdl.regions({regions})")
        lines.append("  }")
        return "\n".join(lines)

    def segment_sizes(self, names: tuple[str, ...], variadic: str | None, count: int) -> list[int] | None:
        """The IRDL segment sizes of `count` values of a mixed group list, or None when not mixed.

        Raises ShapeError when the group exceeds MAX_MIXED values."""
        if not self.mixed or variadic is None:
            return None
        fixed = len(names) - 1
        extra = count - fixed
        if not 0 <= extra <= MAX_MIXED:
            raise ShapeError(f"{self.name} takes at most {MAX_MIXED} values in '{variadic}', got {extra}")
        sizes = []
        for name in names:
            sizes += [1 if i < extra else 0 for i in range(MAX_MIXED)] if name == variadic else [1]
        return sizes


# A whole-module check a dialect adds to the per-op ones (lifetimes, aliasing):
# module operation -> (location, message) pairs.
ModuleVerifier = Callable[[ir.Operation], list[tuple[ir.Location, str]]]


@dataclass
class DialectDef:
    """A dialect as a table of `OpDef`s.

    `values` says whether its ops exchange tensors (value semantics) or
    memrefs (buffers); `module_verifier`, if any, checks what no single op can.
    """

    name: str
    summary: str
    ops: dict[str, OpDef] = field(default_factory=dict)
    values: str = "tensor"
    module_verifier: ModuleVerifier | None = None

    def __post_init__(self):
        assert self.values in ("tensor", "memref"), self.values

    def op(self, name: str, summary: str, **kwargs) -> OpDef:
        base = "!builtin.tensor" if self.values == "tensor" else "!builtin.memref"
        definition = OpDef(name=name, summary=summary, value_base=base, **kwargs)
        assert name not in self.ops, f"duplicate op {self.name}.{name}"
        self.ops[name] = definition
        return definition

    def with_trait(self, trait: str) -> frozenset[str]:
        """The names of this dialect's ops that have `trait`."""
        assert trait in TRAITS, trait
        return frozenset(name for name, definition in self.ops.items() if trait in definition.traits)

    def irdl(self) -> str:
        """The IRDL module text, loadable by `irdl.load_dialects` and `mlir-opt --irdl-file`."""
        body = "\n".join(definition.irdl() for definition in self.ops.values())
        return f"irdl.dialect @{self.name} {{\n{body}\n}}\n"

    def load(self, context: ir.Context) -> None:
        with context:
            irdl_dialect.load_dialects(ir.Module.parse(self.irdl()))

    def lookup(self, op: ir.Operation) -> OpDef | None:
        dialect, _, name = op.name.partition(".")
        return self.ops.get(name) if dialect == self.name else None

    def require(self, op: ir.Operation, consumer: str) -> OpDef:
        """The definition of `op`; a LaminaError at its location if it is not
        one of this dialect's ops (`consumer` names who cannot handle it)."""
        definition = self.lookup(op)
        if definition is None:
            raise LaminaError(f"{format_location(op.location)}: error: '{op.name}' is not a {self.name} op; "
                              f"{consumer} cannot execute it")
        return definition

    # -- building ---------------------------------------------------------

    def create(
        self,
        op_name: str,
        /,
        *operands: ir.Value,
        result_types: Sequence[TensorSpec] | None = None,
        loc: ir.Location | None = None,
        **attrs,
    ) -> ir.Operation:
        """Create `<dialect>.<name>` at the current insertion point.

        Attributes are given as Python values and encoded by their kind; result
        types are inferred by the op's shape function unless given (ops whose
        result cannot be inferred require them). Raises ShapeError when the op
        would not verify.
        """
        name = op_name
        definition = self.ops[name]
        missing = set(definition.attrs) - set(attrs)
        extra = set(attrs) - set(definition.attrs)
        if missing or extra:
            raise ShapeError(f"{self.name}.{name}: missing attributes {sorted(missing)}, unknown {sorted(extra)}")
        regions = len(definition.regions)
        if definition.variadic is None and len(operands) != len(definition.operands):
            raise ShapeError(f"{self.name}.{name} takes {len(definition.operands)} operands, got {len(operands)}")
        enum_problem = definition.enum_problem(attrs)
        if enum_problem:
            raise ShapeError(f"{self.name}.{name}: {enum_problem}")
        operand_specs = [spec_of(v.type) for v in operands]
        declared = list(result_types) if result_types is not None else None
        results = definition.shape_fn(operand_specs, dict(attrs), declared) if definition.shape_fn else declared or []
        if declared is not None and not same_types(results, declared):
            raise ShapeError(f"{self.name}.{name}: declared results {declared} but the op produces {results}")
        results = declared if declared is not None else results  # declared quantized scales win
        encoded = {}
        for attr_name, kind in definition.attrs.items():
            value = attrs[attr_name]
            if kind is SCALAR:
                # Typed like the first result, or the destination of a buffer instruction.
                typed_like = results[0] if results else operand_specs[0]
                encoded[attr_name] = encode_scalar(value, typed_like.dtype)
            else:
                encoded[attr_name] = value if isinstance(value, ir.Attribute) else kind.encode(value)
        for key, names, variadic, count in (("operandSegmentSizes", definition.operands, definition.variadic,
                                              len(operands)),
                                             ("resultSegmentSizes", definition.results, definition.variadic_results,
                                              len(results))):
            sizes = definition.segment_sizes(names, variadic, count)
            if sizes is not None:
                encoded[key] = ir.DenseI32ArrayAttr.get(sizes)
        return ir.Operation.create(
            f"{self.name}.{name}",
            results=[(to_mlir if self.values == "tensor" else to_memref)(r) for r in results],
            operands=list(operands),
            attributes=encoded,
            regions=regions,
            loc=loc,
        )

    # -- inspecting ---------------------------------------------------------

    def view(self, op) -> "OpView":
        op = op.operation
        definition = self.lookup(op)
        if definition is None:
            raise ValueError(f"{op.name} is not a {self.name} op")
        return OpView(op, definition)

    # -- verifying -----------------------------------------------------------

    def verify_op(self, op: ir.Operation) -> str | None:
        """Semantic check of one op of this dialect; the problem, or None."""
        view = self.view(op)
        try:
            attrs = view.attrs()
            operand_specs = [spec_of(v.type) for v in op.operands]
            declared = [spec_of(r.type) for r in op.results]
        except (ShapeError, UnsupportedType) as error:
            return str(error)
        enum_problem = view.definition.enum_problem(attrs)
        if enum_problem:
            return enum_problem
        if view.definition.shape_fn is not None:
            try:
                expected = view.definition.shape_fn(operand_specs, attrs, declared)
            except ShapeError as error:
                return str(error)
            if not same_types(expected, declared):
                shown = ", ".join(str(s) for s in expected)
                return f"result type mismatch: expected {shown}, got {', '.join(str(s) for s in declared)}"
        return view.definition.op_check(op) if view.definition.op_check else None


def same_types(expected: Sequence[TensorSpec], declared: Sequence[TensorSpec]) -> bool:
    """Whether declared result types are what a shape rule expects. A quantized
    result may have any stored integer type and scale (a u8 convolution of i8 data
    is fine): the rule fixes only its shape."""
    return len(expected) == len(declared) and all(
        e == d or (e.quant is not None and d.quant is not None and e.shape == d.shape)
        for e, d in zip(expected, declared))


class OpView:
    """Named access to an op's operands, results and decoded attributes."""

    def __init__(self, op: ir.Operation, definition: OpDef):
        self.op = op
        self.definition = definition

    @property
    def name(self) -> str:
        return self.definition.name

    def operand(self, name: str) -> ir.Value:
        return self.op.operands[self.definition.operands.index(name)]

    def attr(self, name: str):
        kind = self.definition.attrs[name]
        try:
            attribute = self.op.attributes[name]
        except KeyError:
            raise ShapeError(f"missing attribute '{name}'") from None
        try:
            return kind.decode(attribute)
        except (ValueError, TypeError) as error:
            raise ShapeError(f"attribute '{name}' must be {kind.name}: {error}") from None

    def attrs(self) -> dict:
        return {name: self.attr(name) for name in self.definition.attrs}

    def operand_specs(self) -> list[TensorSpec]:
        return [spec_of(v.type) for v in self.op.operands]

    def result_specs(self) -> list[TensorSpec]:
        return [spec_of(r.type) for r in self.op.results]
