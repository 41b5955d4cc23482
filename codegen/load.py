"""Spec files → `OpSpec`s. Every key is popped; anything left over, missing or malformed is a
`SpecError` naming `file:line`, the op and the bad value (DESIGN.md, pipeline rules 1–2, 5).
The parser is in three parts: load_base.py (state, helpers, expressions, conditions, symbol
binding), load_launch.py (the kernel and its launch plan) and this module (the op, read in the
phases of `_SpecParser.parse`)."""

from __future__ import annotations

import keyword
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple
from typing import TypeVar as TypingTypeVar

from codegen import bounds, conditions, naming, shapes, variants
from codegen.load_autograd import check_autograd, parse_autograd, parse_torch
from codegen.load_base import (
    ARG_NAME_RE,
)
from codegen.load_family import Family, check_members, display_path, is_family_file, load_families, spec_files
from codegen.load_launch import LaunchPlanParser
from codegen.load_variants import VariantsParser
from codegen.model import (
    ATTR_TYPES,
    BACKEND_SWITCH,
    BACKENDS,
    DTYPE_ACCUMULATORS,
    DTYPES,
    INT_DTYPES,
    ON_DEVICE_VALUE_DTYPES,
    ActivationLibrary,
    ActivationValue,
    Attr,
    AttrType,
    Autograd,
    Condition,
    Constraint,
    DType,
    KernelSpec,
    LaunchStep,
    Let,
    Loc,
    OpSpec,
    Output,
    Param,
    RepeatStep,
    RuntimeRef,
    Step,
    Switch,
    TensorArg,
    TorchSpec,
    TypeVar,
    shape_symbols,
)
from codegen.naming import snake_case
from codegen.shapes import Expr, ShapePattern
from codegen.yamlnodes import MapReader, Node, SpecError, describe, parse_yaml

OP_NAME_RE = naming.OP_NAME_RE
#: `runtime: package.module:function`: a dotted module path and a function, lower_case identifiers.
RUNTIME_RE = re.compile(r"^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*:[a-z_][a-z0-9_]*$")
ACTIVATION_TYPES = (AttrType.ACTIVATION, AttrType.LIST_ACTIVATION)
_Case = TypingTypeVar("_Case")
_Declared = TypingTypeVar("_Declared", TypeVar, Attr, Param, Let)


class SpecSet(list[OpSpec]):
    """The ops of a spec folder (a list), the shared vocabularies of its `_vocab/` folder and its
    op families (`*.family.yaml`)."""

    def __init__(self, ops: list[OpSpec], activations: ActivationLibrary,
                 families: dict[str, Family] | None = None):
        super().__init__(ops)
        self.activations = activations
        self.families = families or {}


def load_specs(specs_root: Path) -> SpecSet:
    """Load every `*.yaml` under `specs_root` (skipping `_`-prefixed folders, such as the `_vocab/`
    vocabularies, loaded first; the `*.family.yaml` family files, read before the specs that name
    them) and cross-check."""
    from codegen.vocab import load_activations

    library = load_activations(specs_root)
    families = load_families(specs_root)
    files = [p for p in spec_files(specs_root) if not is_family_file(p)]
    ops = [load_spec(p, specs_root, library, families=families) for p in files]
    naming.check_unique(ops)
    check_members(families, ops)
    _check_links(ops)
    return SpecSet(ops, library, families)


def load_spec(path: Path, specs_root: Path, activations: ActivationLibrary | None = None,
              text: str | None = None, families: dict[str, Family] | None = None) -> OpSpec:
    """The op of the spec at `path` (its `text` when given: `opgen new` checks a spec before writing it),
    merged with its family (from `families`, else read from the spec folder)."""
    rel = path.relative_to(specs_root).as_posix()
    display = display_path(path, specs_root)
    try:
        text = path.read_text(encoding="utf-8") if text is None else text
    except UnicodeDecodeError as exc:
        raise SpecError(display, 1, f"not UTF-8 text: {exc.reason}") from None
    root = parse_yaml(text, display)
    group = Path(rel).parent.as_posix()
    if not Path(rel).parent.parts:
        raise SpecError(display, 1, "a spec must live in a group folder (specs/<group>/name.yaml)")
    try:
        naming.check_group(group)
    except naming.InvalidName as exc:
        raise SpecError(display, 1, str(exc)) from None
    parser = _SpecParser(display, group, rel, activations or ActivationLibrary())
    parser.families = load_families(specs_root) if families is None else families
    return parser.parse(root, path.stem)


def _check_links(ops: list[OpSpec]) -> None:
    """Each gradient/gradient_of names an op of the folder, the two agree, and autograd holds."""
    by_name = {op.name: op for op in ops}
    for op in ops:
        for key, target in (("gradient", op.gradient), ("gradient_of", op.gradient_of)):
            if target is not None and target not in by_name:
                raise SpecError(op.loc.file, op.link_lines.get(key, op.loc.line),
                                f"{key}: no op named {target!r} (known: {', '.join(sorted(by_name))})", op.name)
        if op.gradient is not None and by_name[op.gradient].gradient_of not in (None, op.name):
            raise SpecError(op.loc.file, op.loc.line,
                            f"gradient: {op.gradient} says it is the gradient of "
                            f"{by_name[op.gradient].gradient_of}", op.name)
    check_autograd(by_name)


def function_ref(node: Node, file: str, what: str, op: str | None = None) -> RuntimeRef:
    """`package.module:function` at `node` (a spec's `runtime:`, `reference:`, a cases file's
    `reference:`), or a SpecError at its line."""
    value = node.value
    if not isinstance(value, str) or not RUNTIME_RE.fullmatch(value):
        raise SpecError(file, node.line, f"{what}: {value!r} is not a function reference like "
                                         f"package.module:function (lower_case Python identifiers)", op)
    module, function = value.split(":")
    for part in [*module.split("."), function]:
        if keyword.iskeyword(part):
            raise SpecError(file, node.line, f"{what}: {value!r}: {part!r} is a Python keyword", op)
    return RuntimeRef(module, function, Loc(file, node.line))


class _Header(NamedTuple):
    """The op-level keys read first: names, texts and gradient links."""

    function_name: str | None
    summary: str
    description: str
    deprecated: str | None
    gradient: str | None
    gradient_of: str | None
    link_lines: dict[str, int]


class _SpecParser(LaunchPlanParser, VariantsParser):
    """One spec's parser. `parse` runs the phases in order; each reads its keys with what the
    earlier ones set on the parser (attrs before shapes, shapes before lets, all before the launch
    plan), so the order is the order in which a spec's names become known."""

    families: dict[str, Family]  # the spec folder's, by name (set by load_spec)
    family: Family | None = None  # the one this spec names
    earlier_rule = False  # the spec file is named by the earlier snake-case rule (OpSpec.earlier_rule)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.merged_keys: set[str] = set()  # the MERGED_KEYS read so far

    # -- top level: the phases -------------------------------------------------------------
    def parse(self, root: Node, stem: str) -> OpSpec:
        r = MapReader(root, self.file, "spec", None)
        header = self._read_header(r, root, stem)
        self._read_declarations(r)
        self._read_inputs(r)
        self._read_lets_outputs_where(r)
        kernel = self._read_launch(r)
        examples, autograd, torch = self._read_extras(r, header.gradient)
        reference = self._reference(r.pop("reference"))
        r.finish()
        # (a key added to load_family.MERGED_KEYS needs its phase's _merged call: none is dropped unread)
        assert self.family is None or set(self.family.parts) <= self.merged_keys, self.family.parts
        self._cross_check(kernel)
        return OpSpec(
            name=self._op_name(), summary=header.summary, description=header.description, group=self.group,
            source=self.rel, loc=self.loc(root), type_vars=self.type_vars, inputs=self.inputs, attrs=self.attrs,
            outputs=self.outputs, where=self.where_constraints, lets=self.lets, params=self.params,
            variants=self.variants, kernel=kernel, runtime=self.runtime,
            deprecated=header.deprecated, gradient=header.gradient, gradient_of=header.gradient_of,
            examples=examples, link_lines=header.link_lines, autograd=autograd, torch=torch,
            function_name=header.function_name, earlier_rule=self.earlier_rule,
            family=self.family.name if self.family is not None else None, reference=reference)

    def _op_name(self) -> str:
        assert self.op is not None  # set by the first phase
        return self.op

    def _read_header(self, r: MapReader, root: Node, stem: str) -> _Header:
        """Phase 1, keys: the op's name (which must match the file's), texts and gradient links."""
        name_node = r.pop("op", required=True)
        assert name_node is not None
        self.op = self.checked_name(naming.check_op_name, name_node.line, "op", name_node.value)
        r.op = self.op
        function_node = r.pop("function_name")
        function_name = self._function_name(function_node)
        snake = function_name or snake_case(self.op)
        snake_line = (function_node or name_node).line
        self.checked_name(naming.check_function_name, snake_line, "op", snake)
        self.earlier_rule = function_name is None and snake != stem and naming.earlier_snake_case(self.op) == stem
        if self.earlier_rule:  # a file named by the earlier rule keeps its function's name (opgen generate warns)
            function_name = snake = stem
        if snake != stem:
            raise self.error(snake_line, f"op: the file must be named {snake}.yaml (got {stem}.yaml)")
        summary = self.text(r.pop("summary", required=True), "summary", required=True, one_line=True)
        description = self.text(r.pop("description"), "description")
        deprecated = self.text(r.pop("deprecated"), "deprecated") or None
        link_nodes = {key: r.pop(key) for key in ("gradient", "gradient_of")}
        gradient = self._op_ref(link_nodes["gradient"], "gradient")
        gradient_of = self._op_ref(link_nodes["gradient_of"], "gradient_of")
        link_lines = {k: n.line for k, n in link_nodes.items() if n is not None}
        self.family = self._family(r.pop("family"))
        return _Header(function_name, summary, description, deprecated, gradient, gradient_of, link_lines)

    def _read_declarations(self, r: MapReader) -> None:
        """Phase 2, what everything else refers to: the runtime function, type variables and attrs."""
        self.runtime = self._runtime(r.pop("runtime"))
        self.type_vars = self._merged(r, "type_vars", self._type_vars, "type variable")
        self.attrs = self._merged(r, "attrs", lambda node, _: self._attrs(node), "attr")

    def _read_inputs(self, r: MapReader) -> None:
        """Phase 3, shapes: named shapes, then the inputs, whose shapes bind the symbols."""
        self.named_shapes = self._named_shapes(r.pop("shapes"))
        self.inputs = self._inputs(r.pop("inputs"))
        self._check_unique([(a.name, a.loc) for a in self.inputs] + [(a.name, a.loc) for a in self.attrs],
                           "input/attr")

    def _read_lets_outputs_where(self, r: MapReader) -> None:
        """Phase 4, lets over the bound symbols, the outputs and the `where:` constraints (set on the
        parser together, once all three are read: a let's name is checked against inputs only)."""
        params = self._merged(r, "params", lambda node, _: self._params(node), "param",
                              "; a member sets its own value with param_overrides:")
        self.params = self._param_overrides(r.pop("param_overrides"), params,
                                            self.family.name if self.family is not None else None)
        variants_file, variants_node = self._variants_node(r)
        with self.reading(variants_file):
            self.flags.update(self._variant_names(variants_node))
        self.lets = variants.arrange(self.params, (), None)  # the params, bound for the lets
        declared = self._merged(r, "let", lambda node, _: self._lets(node), "let")
        self.lets = variants.arrange(self.params, declared, None)
        with self.reading(variants_file):
            self.variants = self._variants(variants_node)
        lets = variants.arrange(self.params, declared, self.variants)
        self._check_unique(sorted(((let.name, let.loc) for let in lets), key=lambda n: n[1].line), "param/variant/let")
        outputs = self._outputs(r.pop("outputs", required=True))
        self._check_unique([(o.name, o.loc) for o in outputs], "output")
        self.lets = lets
        where = self._where(r.pop("where"))
        self.outputs, self.where_constraints = outputs, where

    def _read_launch(self, r: MapReader) -> KernelSpec | None:
        """Phase 5, the kernel and its launch plan (load_launch.py), and how it fits the op."""
        kernel = self._kernel(r.pop("kernel"))
        self._check_type_attr_dtypes(kernel)
        if kernel is not None and self.runtime is not None:
            raise self.error(self.runtime.loc.line, f"runtime: an op is implemented by a kernel launch plan or by a "
                                                    f"runtime function, not both (the kernel section is at line "
                                                    f"{kernel.loc.line})")
        self._check_list_type_vars()
        return kernel

    def _read_extras(self, r: MapReader,
                     gradient: str | None) -> tuple[tuple[str, ...], Autograd | None, TorchSpec]:
        """Phase 6, what only documents and wraps the op: examples, `autograd:` and `torch:`."""
        examples = tuple(self.text(n, "examples[]", required=True) for n in self.seq(r.pop("examples"), "examples"))
        autograd = parse_autograd(self, r.pop("autograd"), self._function_ref)
        torch = parse_torch(self, r.pop("torch"), self._function_ref, self.runtime is not None)
        if autograd is not None and gradient is None:
            raise self.error(autograd.loc.line, "autograd: needs gradient: <the gradient op> beside it")
        return examples, autograd, torch

    def _cross_check(self, kernel: KernelSpec | None) -> None:
        """Phase 7, checks across the whole op: symbol names, every symbol bound, no zero divisor."""
        self._check_all_symbol_names()
        self._check_symbols_bound()
        self._check_divisors(kernel)

    def _family(self, node: Node | None) -> Family | None:
        """`family: CudnnRNN`: the family whose file declares what this op shares with its other members."""
        if node is None:
            return None
        family = self.families.get(node.value) if isinstance(node.value, str) else None
        if family is None:
            known = ", ".join(sorted(self.families)) or "none"
            raise self.error(node.line, f"family: no family named {node.value!r} in the spec folder (known: "
                                        f"{known}; a family is declared by a <name>.family.yaml file)")
        return family

    def _variants_node(self, r: MapReader) -> tuple[str, Node | None]:
        """`variants:` (and the file it is in): one ordered list, so the family's or the member's."""
        self.merged_keys.add("variants")
        own = r.pop("variants")
        theirs = self.family.parts.get("variants") if self.family is not None else None
        if theirs is None:
            return self.file, own
        assert self.family is not None
        if own is not None:
            raise self.error(own.line, f"variants: family {self.family.name} declares the variants at "
                                       f"{self.family.loc.file}:{theirs.line}: a member uses them or declares "
                                       f"its own, not both (remove one of the two)")
        return self.family.loc.file, theirs

    def _merged(self, r: MapReader, key: str,
                read: Callable[[Node | None, tuple[_Declared, ...]], tuple[_Declared, ...]],
                what: str, hint: str = "") -> tuple[_Declared, ...]:
        """The declarations under `key` (load_family.MERGED_KEYS): the family's, read as this op's
        (their locations in the family file), then the op's own (`read` gets the family's ones, which
        the op's may refer to). An own one named like a family one is an error at both lines."""
        self.merged_keys.add(key)
        shared: tuple[_Declared, ...] = ()
        if self.family is not None and key in self.family.parts:
            with self.reading(self.family.loc.file):
                shared = read(self.family.parts[key], ())
        own = read(r.pop(key), shared)
        theirs = {item.name: item.loc for item in shared}
        for item in own:
            if item.name in theirs:
                assert self.family is not None
                raise self.error(item.loc.line, f"{what} {item.name!r} is already declared by family "
                                                f"{self.family.name} at {theirs[item.name]}: a member declares "
                                                f"only what is its own (remove one of the two{hint})")
        return shared + own

    def _function_name(self, node: Node | None) -> str | None:
        """`function_name: rope`: the op's snake_case name when the derived one reads badly (RoPE →
        ro_pe): its function, module, spec file and torch op."""
        if node is None:
            return None
        return self.checked_name(naming.check_given_function_name, node.line, "function_name", node.value)

    def _runtime(self, node: Node | None) -> RuntimeRef | None:
        """`runtime: package.module:function`: the function that implements the op (no kernel)."""
        return None if node is None else self._function_ref(node, "runtime")

    def _reference(self, node: Node | None) -> RuntimeRef | None:
        """`reference: package.module:function`: the op's float64 reference, which `opgen verify`
        compares the cpu plan with (imported only there: a spec loads without it)."""
        return None if node is None else self._function_ref(node, "reference")

    def _function_ref(self, node: Node, what: str) -> RuntimeRef:
        return function_ref(node, self.file, what, self.op)

    def _check_list_type_vars(self) -> None:
        """A list type variable (one dtype per element) is bound by exactly one list input and used
        only by list inputs and outputs (and no kernel specializes on it: see _kernel)."""
        for tv in self.type_vars:
            if not tv.is_list:
                continue
            binder = None
            for arg in self.inputs:
                if arg.dtype != tv.name:
                    continue
                if not arg.is_list:
                    raise self.error(arg.loc.line, f"input {arg.name!r}: dtype {tv.name} is a list type variable "
                                                   f"(one dtype per element): only a list input can use it")
                if binder is not None:
                    raise self.error(arg.loc.line, f"input {arg.name!r}: list type variable {tv.name} is already "
                                                   f"bound by input {binder!r}: only one input can bind it")
                binder = arg.name
            if binder is None:
                raise self.error_at(tv.loc, f"type_vars.{tv.name}: a list type variable must be the dtype of a "
                                              f"list input, which binds it")
            for out in self.outputs:
                if out.dtype == tv.name and not out.is_list:
                    raise self.error(out.loc.line, f"output {out.name!r}: dtype {tv.name} is a list type variable: "
                                                   f"only a list output can use it")

    def _op_ref(self, node: Node | None, what: str) -> str | None:
        if node is None:
            return None
        if not isinstance(node.value, str) or not OP_NAME_RE.fullmatch(node.value):
            raise self.error(node.line, f"{what}: {node.value!r} is not an op name")
        return node.value

    def _check_unique(self, names: list[tuple[str, Loc]], what: str) -> None:
        seen: dict[str, Loc] = {}
        for name, loc in names:
            if name in seen:
                first = seen[name]
                where = f"line {first.line}" if first.file == loc.file else str(first)  # (a family's: its file)
                raise self.error_at(loc, f"{what} name {name!r} is used twice (first at {where})")
            seen[name] = loc

    # -- type variables and attrs ----------------------------------------------------------
    def _type_vars(self, node: Node | None, earlier: tuple[TypeVar, ...] = ()) -> tuple[TypeVar, ...]:
        """`type_vars:` (`earlier`: those declared before, by the op's family, which `accumulates:` may name)."""
        if node is None:
            return ()
        if not isinstance(node.value, dict):
            raise self.error(node.line, f"type_vars: expected a mapping of name to dtypes, got {describe(node.value)}")
        out: list[TypeVar] = []
        for name, body in node.value.items():
            self.checked_name(naming.check_type_var_name, body.line, "type_vars", name)
            accumulates = None
            if isinstance(body.value, list):
                allowed_node, doc, is_list = body, "", False
            else:
                r = self.reader(body, f"type_vars.{name}")
                acc_node = r.pop("accumulates")
                allowed_node = r.pop("allowed", required=acc_node is None)
                doc = self.text(r.pop("doc"), f"type_vars.{name}.doc")
                is_list = self._flag(r.pop("list"), f"type_vars.{name}: list")
                r.finish()
                if acc_node is not None:
                    accumulates, allowed = self._accumulator(acc_node, allowed_node, name, [*earlier, *out])
                    out.append(TypeVar(name, allowed, doc, self.loc(body), is_list, accumulates))
                    continue
            assert allowed_node is not None
            allowed = tuple(self._dtype_name(n, f"type_vars.{name}") for n in self.seq(allowed_node, name))
            if not allowed:
                raise self.error(allowed_node.line, f"type_vars.{name}: needs at least one dtype")
            out.append(TypeVar(name, allowed, doc, self.loc(body), is_list))
        return tuple(out)

    def _accumulator(self, node: Node, allowed_node: Node | None, name: str,
                     earlier: list[TypeVar]) -> tuple[str, tuple[DType, ...]]:
        """`S: {accumulates: T}`: S is the dtype T's reductions accumulate in (ACCUMULATOR: float16
        and bfloat16 in float32); T is a float type variable declared before S."""
        source = next((tv for tv in earlier if tv.name == node.value), None)
        if source is None or source.accumulates is not None or source.is_list:
            raise self.error(node.line, f"type_vars.{name}: accumulates: {node.value!r} is not a type variable "
                                        f"declared before it (a plain one)")
        if allowed_node is not None:
            raise self.error(allowed_node.line, f"type_vars.{name}: its dtypes follow from accumulates: (no allowed:)")
        accumulators = [DTYPE_ACCUMULATORS[d] for d in source.allowed]
        bad = [d for d, acc in zip(source.allowed, accumulators, strict=True) if acc is None]
        if bad:
            raise self.error(node.line, f"type_vars.{name}: accumulates: {source.name} allows {bad[0]}, which has no "
                                        f"accumulator dtype (float types only)")
        return source.name, tuple(dict.fromkeys(acc for acc in accumulators if acc is not None))

    def _dtype_name(self, node: Node, what: str) -> DType:
        if node.value not in DTYPES:
            raise self.error(node.line, f"{what}: unknown dtype {node.value!r} (known: {', '.join(DTYPES)})")
        return DType(node.value)

    def _attrs(self, node: Node | None) -> tuple[Attr, ...]:
        return tuple(self._attr(n) for n in self.seq(node, "attrs"))

    def _attr(self, node: Node) -> Attr:
        r = self.reader(node, "attr")
        name = self.identifier(r.pop("name"), "attr", ARG_NAME_RE, node.line)
        what = f"attr {name!r}"
        r.what = what
        type_node = r.pop("type", required=True)
        assert type_node is not None
        if type_node.value not in ATTR_TYPES:
            raise self.error(type_node.line, f"{what}: unknown type {type_node.value!r} "
                                             f"(known: {', '.join(ATTR_TYPES)})")
        kind = AttrType(type_node.value)
        doc = self.text(r.pop("doc"), f"{what}: doc")
        if kind in ACTIVATION_TYPES:
            return self._activation_attr(r, node, name, kind, doc)
        allowed_node = r.pop("values" if kind is AttrType.ENUM else "allowed")
        allowed: tuple[Any, ...] | None = None
        if kind is AttrType.ENUM and allowed_node is None:
            raise self.error(node.line, f"{what}: an enum needs 'values'")
        if kind is AttrType.ENUM:
            assert self.op is not None
            self.checked_name(naming.check_enum_alias, node.line, what, name, self.op)
        if allowed_node is not None:
            if kind in (AttrType.FLOAT, AttrType.BOOL, AttrType.LIST_INT):
                raise self.error(allowed_node.line, f"{what}: 'allowed' is not supported for type {kind}")
            items = self.seq(allowed_node, what)
            if not items:
                raise self.error(allowed_node.line, f"{what}: the list of values is empty")
            item_kind = AttrType.STRING if kind is AttrType.ENUM else kind
            allowed = tuple(self._attr_scalar(n, item_kind, what) for n in items)
            if kind is AttrType.ENUM:
                for n, v in zip(items, allowed, strict=True):
                    if not re.fullmatch(r"[A-Za-z0-9_]+", str(v)):
                        raise self.error(n.line, f"{what}: enum value {v!r} must be letters, digits or _")
            if len(set(allowed)) != len(allowed):
                raise self.error(allowed_node.line, f"{what}: duplicate values in {list(allowed)}")
        minimum, above = self._bound_pair(r, "min", "above", kind, what)
        maximum, below = self._bound_pair(r, "max", "below", kind, what)
        default_node = r.pop("default")
        default: Any = None
        if default_node is not None:
            default = self._attr_value(default_node, kind, what, "default")
            self._check_attr_value(default, default_node.line, allowed, minimum, maximum, what, "default")
            too_low = above and minimum is not None and default <= minimum
            if too_low or (below and maximum is not None and default >= maximum):
                bound = f"above {minimum}" if too_low else f"below {maximum}"
                raise self.error(default_node.line, f"{what}: default {default!r} is not {bound}")
        r.finish()
        return Attr(name=name, type=kind, doc=doc, loc=self.loc(node), default=default,
                    has_default=default_node is not None, allowed=allowed, minimum=minimum, maximum=maximum,
                    minimum_exclusive=above, maximum_exclusive=below)

    def _bound_pair(self, r: MapReader, inclusive: str, exclusive: str, kind: AttrType,
                    what: str) -> tuple[float | None, bool]:
        """`min:`/`max:` (inclusive) or `above:`/`below:` (exclusive), not both."""
        inc, exc = r.pop(inclusive), r.pop(exclusive)
        if inc is not None and exc is not None:
            raise self.error(exc.line, f"{what}: give {inclusive} or {exclusive}, not both")
        if exc is not None:
            return self._bound(exc, kind, what), True
        return self._bound(inc, kind, what), False

    def _activation_attr(self, r: MapReader, node: Node, name: str, kind: AttrType, doc: str) -> Attr:
        """An `activation` / `list(activation)` attr: functions of the activation library. A list may
        declare its `length` (an expression: a single function given for it is repeated)."""
        what = r.what
        if not self.activations.kinds:
            raise self.error(node.line, f"{what}: type {kind} needs the activation library "
                                        f"(_vocab/activations.yaml in the spec folder), and there is none")
        length_node = r.pop("length") if kind is AttrType.LIST_ACTIVATION else None
        length = self._expr(length_node, f"{what}: length") if length_node is not None else None
        default_node = r.pop("default")
        default: Any = None
        if default_node is not None:
            if kind is AttrType.LIST_ACTIVATION and isinstance(default_node.value, list):
                if not default_node.value:
                    raise self.error(default_node.line, f"{what}: default: the list is empty")
                default = tuple(self._activation_value(n, f"{what}: default[{i}]")
                                for i, n in enumerate(default_node.value))
            else:
                default = self._activation_value(default_node, f"{what}: default")
        r.finish()
        return Attr(name=name, type=kind, doc=doc, loc=self.loc(node), default=default,
                    has_default=default_node is not None, length=length)

    def _activation_value(self, node: Node, what: str) -> ActivationValue:
        """`tanh` or `{name: leaky_relu, alpha: 0.1}`, checked against the library."""
        items: dict[str, Node] = {}
        if isinstance(node.value, dict):
            items = dict(node.value)
            name_node = items.pop("name", None)
            if name_node is None:
                raise self.error(node.line, f"{what}: missing the activation's 'name'")
            name = name_node.value
        elif isinstance(node.value, str):
            name = node.value
        else:
            raise self.error(node.line, f"{what}: expected an activation name or {{name: ..., parameter: value}}, "
                                        f"got {describe(node.value)}")
        kind = self.activations.get(name) if isinstance(name, str) else None
        if kind is None:
            raise self.error(node.line, f"{what}: unknown activation {name!r} "
                                        f"(known: {', '.join(self.activations.names)})")
        params = []
        for pname, pnode in items.items():
            param = next((p for p in kind.params if p.name == pname), None)
            if param is None:
                known = ", ".join(p.name for p in kind.params) or "none"
                raise self.error(pnode.line, f"{what}: activation {name!r} has no parameter {pname!r} "
                                             f"(its parameters: {known})")
            v = pnode.value
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise self.error(pnode.line, f"{what}: {name} {pname}: {describe(v)} is not a finite number")
            if param.minimum is not None and v < param.minimum:
                raise self.error(pnode.line, f"{what}: {name} {pname}: {v!r} is below the minimum {param.minimum}")
            if param.maximum is not None and v > param.maximum:
                raise self.error(pnode.line, f"{what}: {name} {pname}: {v!r} is above the maximum {param.maximum}")
            params.append((pname, float(v)))
        return ActivationValue(name, tuple(params))

    # -- shapes ----------------------------------------------------------------------------
    def _enum_attr(self, name: Any, line: int) -> tuple[str, ...]:
        """The case keys of a switch on an enum attr (its values), a bool attr ("true", "false"), or
        an int or string attr with an `allowed:` list (its values, as text)."""
        attr = next((a for a in self.attrs if a.name == name), None)
        if attr is not None and attr.type is AttrType.BOOL:
            return ("true", "false")
        if attr is None or attr.type not in (AttrType.ENUM, AttrType.INT, AttrType.STRING) or attr.allowed is None:
            enums = [a.name for a in self.attrs if a.type in (AttrType.ENUM, AttrType.BOOL) or
                     (a.type in (AttrType.INT, AttrType.STRING) and a.allowed is not None)]
            raise self.error(line, f"by: {name!r} is not an enum, bool, or int/string attr with allowed: values "
                                   f"(those here: {enums})")
        return tuple(str(v) for v in attr.allowed)

    def _switch(self, node: Node, what: str, parse_case: Callable[[Node, str], _Case]) -> Switch[_Case]:
        """A value or `{by: attr, VALUE: ..., ...}` covering every value of the enum attr."""
        if isinstance(node.value, dict) and "by" in node.value:
            by_node = node.value["by"]
            if by_node.value == BACKEND_SWITCH and parse_case != self._let_value:
                raise self.error(by_node.line, f"{what}: only a let may switch by {BACKEND_SWITCH}")
            values = BACKENDS if by_node.value == BACKEND_SWITCH else self._enum_attr(by_node.value, by_node.line)
            cases = {str(k): v for k, v in node.value.items() if k != "by"}  # (YAML reads `2:` as an int)
            missing = [v for v in values if v not in cases]
            extra = [k for k in cases if k not in values]
            if extra:
                raise self.error(cases[extra[0]].line,
                                 f"{what}: {extra[0]!r} is not a value of {by_node.value} ({list(values)})")
            if missing:
                raise self.error(node.line, f"{what}: no case for {by_node.value} = {missing[0]!r}")
            return Switch(by_node.value, tuple((v, parse_case(cases[v], f"{what} ({v})")) for v in values))
        return Switch(None, (("", parse_case(node, what)),))

    def _shape(self, node: Node | None, what: str) -> Switch[ShapePattern] | None:
        if node is None:
            return None
        if isinstance(node.value, str) and re.fullmatch(r"[a-z_][a-z0-9_]*", node.value):
            if node.value not in self.named_shapes:
                raise self.error(node.line, f"{what}: no shape named {node.value!r} under 'shapes' "
                                            f"(known: {sorted(self.named_shapes)})")
            return self.named_shapes[node.value]
        return self._switch(node, what, self._pattern)

    def _named_shapes(self, node: Node | None) -> dict[str, Switch[ShapePattern]]:
        if node is None:
            return {}
        if not isinstance(node.value, dict):
            raise self.error(node.line, f"shapes: expected a mapping of name to shape, got {describe(node.value)}")
        self.named_shapes = {}
        out = {}
        for name, body in node.value.items():
            if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
                raise self.error(body.line, f"shapes: name {name!r} is not valid (lower_case)")
            out[name] = self._switch(body, f"shapes.{name}", self._pattern)
        return out

    # -- inputs, outputs, lets, where ------------------------------------------------------
    def _inputs(self, node: Node | None) -> tuple[TensorArg, ...]:
        out: list[TensorArg] = []
        for n in self.seq(node, "inputs"):
            r = self.reader(n, "input")
            name = self.identifier(r.pop("name"), "input", ARG_NAME_RE, n.line)
            r.what = what = f"input {name!r}"
            dtype = self._dtype_ref(r.pop("dtype"), what, n.line)
            shape = self._shape(r.pop("shape"), f"{what}: shape")
            optional = self._flag(r.pop("optional"), f"{what}: optional")
            is_list = self._flag(r.pop("list"), f"{what}: list")
            py_int_node = r.pop("accepts_python_int")
            py_int = self._flag(py_int_node, f"{what}: accepts_python_int")
            if py_int and (dtype not in INT_DTYPES or is_list or optional):
                assert py_int_node is not None
                raise self.error(py_int_node.line, f"{what}: accepts_python_int needs a required, non-list input of "
                                                   f"an integer dtype, got {dtype}")
            accepts = self._accepts_dtypes(r.pop("accepts_dtypes"), what, dtype, is_list)
            values_min, values_max, on_device = self._value_bounds(r.pop("values"), what, is_list,
                                                                   (dtype, *accepts))
            when_node = r.pop("when")
            when = self._condition(when_node, what)
            if when_node is not None and (optional or is_list):
                raise self.error(when_node.line, f"{what}: 'when' applies to required, non-list inputs only")
            axis = self._axis(r.pop("axis"), what, shape, n.line, out)
            doc = self.text(r.pop("doc"), f"{what}: doc")
            r.finish()
            out.append(TensorArg(name, dtype, shape, doc, self.loc(n), optional, is_list, py_int, accepts,
                                 values_min, values_max, on_device, when, axis))
        self._check_conditional_symbols(out)
        self._check_groups(out)
        return tuple(out)

    def _axis(self, node: Node | None, what: str, shape: Switch[ShapePattern] | None, line: int,
              earlier: list[TensorArg]) -> str | None:
        """`axis: <int attr>`: places the one dim between a shape's two groups, `[*outer, N, *inner]`
        (negative values count from the end). Two groups need it unless an earlier required input
        bound both (their lengths then place the dim); one or none cannot use it."""
        patterns = shape.values() if shape is not None else ()
        two = [p for p in patterns if len(p.groups) == 2]
        if node is None:
            bound = shape_symbols((a for a in earlier if not a.optional), dims=False)
            if any(not (p.groups[0][1] in bound and p.groups[1][1] in bound) for p in two):
                raise self.error(line, f"{what}: a shape with two dimension groups needs 'axis: <int attr>' to "
                                       f"place the dim between them (or groups an earlier input bound)")
            return None
        attr = next((a for a in self.attrs if a.name == node.value), None)
        if attr is None or attr.type is not AttrType.INT:
            raise self.error(node.line, f"{what}: axis: {node.value!r} is not an int attr")
        if not two or len(two) != len(patterns):
            raise self.error(node.line, f"{what}: axis: needs a shape with two dimension groups in every case, "
                                        f"like [*outer, N, *inner]")
        for pattern in two:
            (first, _), (second, _) = pattern.groups
            if second != first + 1:
                raise self.error(node.line, f"{what}: axis: exactly one dim stands between the two groups, got "
                                            f"{shapes.shape_to_text(pattern)}")
        return str(node.value)

    def _check_groups(self, inputs: list[TensorArg]) -> None:
        """A named group is not also a symbol, an input, an attr; an optional input uses only groups
        bound before it, as with symbols."""
        taken = {a.name for a in inputs} | {a.name for a in self.attrs}
        symbols = shape_symbols(inputs, groups=False)
        for arg in inputs:
            for pattern in arg.patterns():
                for name in pattern.group_names():
                    if name in taken or name in symbols:
                        raise self.error(arg.loc.line, f"input {arg.name!r}: group *{name} has the name of a "
                                                       f"symbol, input or attr")

    def _check_type_attr_dtypes(self, kernel: KernelSpec | None) -> None:
        """An output whose dtype a type attr names needs a kernel specialized on that attr (so that
        each of its allowed dtypes has an entry point)."""
        for out in self.outputs:
            is_type_attr = any(a.name == out.dtype and a.type is AttrType.TYPE for a in self.attrs)
            if kernel is not None and is_type_attr and out.dtype not in kernel.specialize:
                raise self.error(out.loc.line, f"output {out.name!r}: dtype {out.dtype} is a type attr: add it to "
                                               f"the kernel's specialize: list")

    def _check_output_groups(self, shape: Switch[ShapePattern], what: str, line: int) -> None:
        """A kernel op's output shape is fully known: its groups are named and bound by an input."""
        bound = shape_symbols((a for a in self.inputs if not a.optional), dims=False)
        for pattern in shape.values():
            for _, name in pattern.groups:
                if not name:
                    raise self.error(line, f"{what}: an output shape must be fully known: '...' is not (name the "
                                           f"group, like *lead, in an input and reuse it here)")
                if name not in bound:
                    raise self.error(line, f"{what}: group *{name} is bound by no required input")

    def _check_conditional_symbols(self, inputs: list[TensorArg]) -> None:
        """A symbol first bound by an input that is checked only `when` something holds exists only
        then: other inputs may use it only under the same condition, outputs never (lets may, in
        a case of a switch on the condition's attr)."""
        bound: dict[str, Condition] = {}
        for arg in inputs:
            for pattern in arg.patterns():
                for sym in (s for dim in pattern.dims for s in shapes.symbols(dim)):
                    first = bound.setdefault(sym, arg.when)
                    if first.clauses and first != arg.when:
                        raise self.error(arg.loc.line, f"input {arg.name!r}: symbol {sym!r} is bound only when "
                                                       f"{first.text()}; use it under the same 'when'")
        self.conditional_symbols = {sym: c for sym, c in bound.items() if c.clauses}

    def _accepts_dtypes(self, node: Node | None, what: str, dtype: DType | str,
                        is_list: bool) -> tuple[DType, ...]:
        """`accepts_dtypes: [int32, int64]`: further dtypes the wrapper takes and converts to `dtype`
        (after the value checks, so a value the conversion would wrap is still caught)."""
        if node is None:
            return ()
        if dtype not in DTYPES or is_list:
            raise self.error(node.line, f"{what}: accepts_dtypes needs a single tensor of a fixed dtype "
                                        f"(not a type variable or a list)")
        items = tuple(self._dtype_name(n, f"{what}: accepts_dtypes") for n in self.seq(node, what))
        if not items or dtype in items or len(set(items)) != len(items):
            raise self.error(node.line, f"{what}: accepts_dtypes must list other dtypes than {dtype}, each once")
        return items

    def _value_bounds(self, node: Node | None, what: str, is_list: bool,
                      dtypes: tuple[DType | str, ...]) -> tuple[shapes.Expr | None, shapes.Expr | None, bool]:
        """`values: {min: 0, max: seq_length}`: bounds every element must respect, checked on the
        host before any kernel runs (expressions over bound symbols, int attrs and lets).
        `on_device: true`: on the cuda backend a kernel checks them and a later call reports a bad
        value (no host synchronisation): only for an integer input whose kernels merely compare
        its values, so that any value stays in bounds."""
        if node is None:
            return None, None, False
        if is_list:
            raise self.error(node.line, f"{what}: values: not supported for list inputs")
        r = self.reader(node, f"{what}: values")
        bounds = []
        for key in ("min", "max"):
            n = r.pop(key)
            bounds.append(self._expr(n, f"{what}: values: {key}") if n is not None else None)
        on_device_node = r.pop("on_device")
        on_device = self._flag(on_device_node, f"{what}: values: on_device")
        r.finish()
        taken = [d for d in dtypes if d not in ON_DEVICE_VALUE_DTYPES]
        if on_device and taken:
            assert on_device_node is not None
            raise self.error(on_device_node.line, f"{what}: values: on_device checks int32, int64 or uint32 inputs "
                                                  f"(its dtype and accepts_dtypes), got {', '.join(map(str, taken))}")
        if bounds == [None, None]:
            raise self.error(node.line, f"{what}: values: needs min, max or both")
        return bounds[0], bounds[1], on_device

    def _outputs(self, node: Node | None) -> tuple[Output, ...]:
        out = []
        for n in self.seq(node, "outputs"):
            r = self.reader(n, "output")
            name = self.identifier(r.pop("name"), "output", ARG_NAME_RE, n.line)
            r.what = what = f"output {name!r}"
            dtype_node = r.pop("dtype")
            dtype: DType | str
            if dtype_node is not None and any(a.name == dtype_node.value and a.type is AttrType.TYPE
                                              for a in self.attrs):
                dtype = str(dtype_node.value)  # the dtype a type attr names (a kernel must specialize on it)
            else:
                dtype = self._dtype_ref(dtype_node, what, n.line)
            shape_node = r.pop("shape", required=True)
            shape = self._shape(shape_node, f"{what}: shape")
            assert shape is not None and shape_node is not None
            if self.runtime is None:
                self._check_output_groups(shape, what, shape_node.line)
            list_node = r.pop("list")
            is_list = self._flag(list_node, f"{what}: list")
            if is_list and self.runtime is None:
                assert list_node is not None
                raise self.error(list_node.line, f"{what}: a list output needs a runtime op (`runtime:`); a kernel "
                                                 f"launch plan cannot produce one")
            when_node = r.pop("when")
            when = self._condition(when_node, what)
            if when_node is not None and self.runtime is not None:
                raise self.error(when_node.line, f"{what}: when: a runtime op's function makes every output")
            doc = self.text(r.pop("doc"), f"{what}: doc")
            r.finish()
            out.append(Output(name, dtype, shape, doc, self.loc(n), is_list, when))
        if not out and node is not None:
            raise self.error(node.line, "outputs: an op needs at least one output")
        return tuple(out)

    def _lets(self, node: Node | None) -> tuple[Let, ...]:
        if node is None:
            return ()
        if not isinstance(node.value, dict):
            raise self.error(node.line, f"let: expected a mapping of name to expression, got {describe(node.value)}")
        out = []
        for name, body in node.value.items():
            self._check_symbol_name(name, body.line, "let")
            let = Let(name, self._switch(body, f"let.{name}", self._let_value), self.loc(body))
            if any(conditions.typed(e, self._condition_names())[1] != conditions.INT for e in let.value.values()):
                self.flags.add(name)  # a boolean let
            out.append(let)
        return tuple(out)

    def _where(self, node: Node | None) -> tuple[Constraint, ...]:
        out = []
        for n in self.seq(node, "where"):
            check_node: Node | None
            if isinstance(n.value, str):
                check_node, message, when = n, "", Condition()
            else:
                r = self.reader(n, "where")
                check_node = r.pop("check", required=True)
                message = self.text(r.pop("message"), "where: message", one_line=True)
                when = self._condition(r.pop("when"), "where", checks=True)
                r.finish()
            assert check_node is not None
            lhs, op, rhs = self._comparison_parts(check_node, "where")
            text = str(check_node.value)
            out.append(Constraint(lhs, op, rhs, text.strip(), message, when, self.loc(check_node)))
        return tuple(out)

    # -- op-level symbol checks ------------------------------------------------------------
    def _check_all_symbol_names(self) -> None:
        int_attrs = {a.name for a in self.attrs if a.type is AttrType.INT}
        for tensor, what in self._shaped_tensors():
            for pattern in tensor.patterns():
                for dim in pattern.dims:
                    for sym in shapes.symbols(dim):
                        if sym not in int_attrs:
                            self._check_symbol_name(sym, tensor.loc.line, what)
                for group in pattern.group_names():
                    self._check_cxx_name(group, tensor.loc.line, f"{what}: group *{group}")  # (a kernel may take it)

    def _shaped_tensors(self) -> list[tuple[TensorArg | Output, str]]:
        """The inputs and outputs, each with the name its errors give it."""
        tensors: list[tuple[TensorArg | Output, str]] = [(a, f"input {a.name!r}") for a in self.inputs]
        return tensors + [(o, f"output {o.name!r}") for o in self.outputs]

    def _check_divisors(self, kernel: KernelSpec | None) -> None:
        """No `//`, `%` or `ceildiv` may divide by a value that can be 0 (codegen/bounds.py)."""
        known: dict[str, float] = {a.name: bounds.UNBOUNDED if a.minimum is None else math.ceil(a.minimum)
                                   for a in self.attrs if a.type is AttrType.INT}
        for c in self.where_constraints:
            if c.when.empty:
                bounds.refine(known, c.lhs, c.op, c.rhs)

        def check(e: Expr, line: int, what: str, scope: dict[str, float]) -> None:
            message = bounds.zero_divisor_message(e, scope)
            if message is not None:
                raise self.error(line, f"{what}: {message}")

        for tensor, what in self._shaped_tensors():
            for pattern in tensor.patterns():
                for dim in pattern.dims:
                    check(dim, tensor.loc.line, f"{what}: shape", known)
        for let in self.lets:
            with self.reading(let.loc.file):  # (a family's let: its error names the family file)
                for expr in let.value.values():
                    check(expr, let.loc.line, f"let {let.name}", known)
            known[let.name] = min(bounds.lower_bound(e, known) for e in let.value.values())
        for c in self.where_constraints:
            for expr in (c.lhs, c.rhs):
                check(expr, c.loc.line, f"where {c.text!r}", known)
        if kernel is not None:
            for scratch in kernel.scratch:
                for dim in scratch.shape.dims:
                    check(dim, scratch.loc.line, f"scratch {scratch.name!r}: shape", known)
            self._check_step_divisors(kernel.launch, known, check)

    def _check_step_divisors(self, steps: tuple[Step, ...], outer: dict[str, float],
                             check: Callable[[Expr, int, str, dict[str, float]], None]) -> None:
        for step in steps:
            known = dict(outer)
            for part in bounds.conjuncts(step.when.expr()):  # a step runs only when its comparisons hold
                if isinstance(part, shapes.BinOp):
                    bounds.refine(known, part.left, part.op, part.right)
            if isinstance(step, RepeatStep):
                check(step.count, step.loc.line, "repeat: count", known)
                known[step.var] = 0
                for name, expr in step.lets:
                    check(expr, step.loc.line, f"repeat: let {name}", known)
                    known[name] = bounds.lower_bound(expr, known)
                self._check_step_divisors(step.steps, known, check)
                continue
            exprs = (*step.grid, *step.block, *((step.shared_bytes,) if step.shared_bytes is not None else ())) \
                if isinstance(step, LaunchStep) else step.exprs()
            for expr in exprs:
                check(expr, step.loc.line, f"launch step {getattr(step, 'kernel', 'gemm')!r}", known)

    def _check_symbols_bound(self) -> None:
        """Every symbol an output, a let, a where or a launch uses must be bound by an input
        shape, a let before it, or an int attr."""
        bound = self._input_symbols() | {a.name for a in self.attrs if a.type is AttrType.INT}
        conditional = getattr(self, "conditional_symbols", {})
        for let in self.lets:
            for key, expr in let.value.cases:
                self._require_bound(expr, bound, f"let {let.name}", let.loc)
                for sym in shapes.symbols(expr):
                    when = conditional.get(sym)
                    if when is not None and not any(a == let.value.by and str(v).lower() == key.lower()
                                                    for a, v in when.clauses):
                        raise self.error_at(let.loc, f"let {let.name}: symbol {sym!r} is bound only when "
                                                       f"{when.text()}: use it in that case of a switch on it")
            bound.add(let.name)
        for out in self.outputs if self.runtime is None else ():  # a runtime function sizes its outputs
            for pattern in out.patterns():
                for dim in pattern.dims:
                    self._require_bound(dim, bound - set(conditional), f"output {out.name!r}: shape", out.loc)
        floats = {a.name for a in self.attrs if a.type is AttrType.FLOAT}  # compared in Python: where may use them
        for c in self.where_constraints:
            for expr in (c.lhs, c.rhs):
                self._require_bound(expr, bound | floats, f"where {c.text!r}", c.loc)
        for attr in self.attrs:  # list(activation) lengths and input value bounds: checked after the lets
            if attr.length is not None:
                self._require_bound(attr.length, bound, f"attr {attr.name!r}: length", attr.loc)
        for arg in self.inputs:
            for key, limit in (("min", arg.values_min), ("max", arg.values_max)):
                if limit is not None:
                    self._require_bound(limit, bound, f"input {arg.name!r}: values: {key}", arg.loc)
