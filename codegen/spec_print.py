"""An `OpSpec` back to spec YAML: `print_spec(op)` writes text that the loader reads into an equal
model (DESIGN.md, pipeline rule 1: a spec that parses prints back to the same meaning).

A family member prints as its spec reads: `family:` and only its own declarations.
Equal up to source locations (`same_meaning`, `without_locs`) and up to spelling: named `shapes:`
come back inlined where they are used, every mapping in block style, keys in the loader's order.
tests/test_spec_roundtrip.py holds every spec of specs/ and random ones to it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import yaml

from codegen import variants
from codegen.model import (
    ActivationValue,
    ArgIndex,
    Attr,
    AttrType,
    Autograd,
    Condition,
    Constraint,
    GemmStep,
    KernelSpec,
    LaunchStep,
    Loc,
    OpSpec,
    Output,
    RepeatStep,
    Scratch,
    Step,
    Switch,
    TensorArg,
    TorchSpec,
    TypeVar,
)
from codegen.shapes import BinOp, Expr, ShapePattern, shape_to_text, to_text

__all__ = ["print_spec", "same_meaning", "without_locs"]

Data = dict[str, Any]


def print_spec(op: OpSpec) -> str:
    """The spec text of `op` (see the module docstring)."""
    return yaml.dump(_op(op), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1 << 30)


# -- comparing models ------------------------------------------------------------------------------
_NOWHERE = Loc("", 0)


def without_locs(value: Any) -> Any:
    """`value` with every source location (`Loc`) replaced by one placeholder, through dataclasses,
    tuples and dicts: what is left is the meaning of a spec, not where its text stood."""
    if isinstance(value, Loc):
        return _NOWHERE
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: without_locs(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init}
        return dataclasses.replace(value, **changes)
    if isinstance(value, tuple):
        return tuple(without_locs(v) for v in value)
    if isinstance(value, dict):
        return {k: without_locs(v) for k, v in value.items()}
    return value


def same_meaning(a: OpSpec, b: OpSpec) -> bool:
    """Whether two models say the same, wherever their specs' lines were."""
    return bool(without_locs(a) == without_locs(b))


# -- YAML text -------------------------------------------------------------------------------------
class _Dumper(yaml.SafeDumper):
    """Multi-line text (descriptions, examples) as literal blocks; enum members as their strings;
    no anchors and aliases (specs refuse them)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None  # (PyYAML falls back to quotes where a block cannot hold it)
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(value), style=style)


_Dumper.add_representer(str, _text)
_Dumper.add_multi_representer(str, _text)  # DType, AttrType


def _put(data: Data, key: str, value: Any, omit: Any = None) -> None:
    """`data[key] = value` unless the value is the loader's default for a missing key."""
    if value is not omit and value != omit:
        data[key] = value


def _expr(e: Expr) -> str | int:
    text = to_text(e)
    return int(text) if text.isdigit() else text


def _switch(sw: Switch[Any], case: Any) -> Any:
    """A plain value, or `{by: attr, CASE: value, ...}`."""
    if sw.by is None:
        return case(sw.only())
    return {"by": sw.by, **{key: case(value) for key, value in sw.cases}}


def _shape(sw: Switch[ShapePattern]) -> Any:
    return _switch(sw, shape_to_text)


def _condition(c: Condition) -> Any:
    """`{attr: value, ...}`, or (with comparisons or a condition text) a list of that mapping and
    the texts, or the one text."""
    clauses = dict(c.clauses)
    if not c.checks and c.test is None:
        return clauses
    texts = [to_text(BinOp(op, lhs, rhs)) for lhs, op, rhs in c.checks]
    texts += [to_text(c.test)] if c.test is not None else []
    if not clauses and len(texts) == 1:
        return texts[0]
    return ([clauses] if clauses else []) + texts


def _variants(op: OpSpec) -> Data | None:
    if op.variants is None or op.variants.loc.file != op.loc.file:  # (none, or its family's)
        return None
    data: Data = {}
    for v in op.variants.cases:
        data[v.name] = {"when": _condition(v.when)}
        _put(data[v.name], "doc", v.doc, "")
    data["otherwise"] = op.variants.otherwise
    return data


def _op(op: OpSpec) -> Data:
    data: Data = {"op": op.name}
    _put(data, "function_name", op.function_name)
    data["summary"] = op.summary
    _put(data, "description", op.description, "")
    _put(data, "deprecated", op.deprecated)
    _put(data, "gradient", op.gradient)
    _put(data, "gradient_of", op.gradient_of)
    _put(data, "family", op.family)  # (its family file declares the rest: `op.own` keeps the op's own)
    _put(data, "runtime", op.runtime.text() if op.runtime is not None else None)
    _put(data, "type_vars", {tv.name: _type_var(tv) for tv in op.own(op.type_vars)}, {})
    _put(data, "attrs", [_attr(a) for a in op.own(op.attrs)], [])
    _put(data, "inputs", [_input(a) for a in op.inputs], [])
    own_params = op.own(op.params)
    _put(data, "params", {p.name: {"value": p.value, "doc": p.doc} for p in own_params if p.family_value is None}, {})
    _put(data, "param_overrides", {p.name: p.value for p in own_params if p.family_value is not None}, {})
    _put(data, "variants", _variants(op))
    _put(data, "let", {let.name: _switch(let.value, _expr) for let in op.own(variants.declared_lets(op))}, {})
    data["outputs"] = [_output(o) for o in op.outputs]
    _put(data, "where", [_where(c) for c in op.where], [])
    _put(data, "kernel", _kernel(op.kernel) if op.kernel is not None else None)
    _put(data, "examples", list(op.examples), [])
    _put(data, "autograd", _autograd(op.autograd) if op.autograd is not None else None)
    _put(data, "torch", _torch(op.torch, op.runtime is not None))
    _put(data, "reference", op.reference.text() if op.reference is not None else None)
    return data


def _type_var(tv: TypeVar) -> Data:
    data: Data = {}
    if tv.accumulates is not None:
        data["accumulates"] = tv.accumulates  # (its dtypes follow)
    else:
        data["allowed"] = list(tv.allowed)
    _put(data, "doc", tv.doc, "")
    _put(data, "list", tv.is_list, False)
    return data


def _attr_value(value: Any) -> Any:
    if isinstance(value, ActivationValue):
        return {"name": value.name, **dict(value.params)} if value.params else value.name
    if isinstance(value, tuple):
        return [_attr_value(v) for v in value]
    return value


def _attr(a: Attr) -> Data:
    data: Data = {"name": a.name, "type": a.type}
    _put(data, "doc", a.doc, "")
    if a.allowed is not None:
        data["values" if a.type == AttrType.ENUM else "allowed"] = list(a.allowed)
    _put(data, "above" if a.minimum_exclusive else "min", a.minimum)
    _put(data, "below" if a.maximum_exclusive else "max", a.maximum)
    _put(data, "length", _expr(a.length) if a.length is not None else None)
    if a.has_default:
        data["default"] = _attr_value(a.default)
    return data


def _input(a: TensorArg) -> Data:
    data: Data = {"name": a.name, "dtype": a.dtype}
    _put(data, "shape", _shape(a.shape) if a.shape is not None else None)
    _put(data, "optional", a.optional, False)
    _put(data, "list", a.is_list, False)
    _put(data, "accepts_python_int", a.accepts_python_int, False)
    _put(data, "accepts_dtypes", list(a.accepts_dtypes), [])
    values: dict[str, object] = {key: _expr(e) for key, e in (("min", a.values_min), ("max", a.values_max))
                                 if e is not None}
    _put(values, "on_device", a.values_on_device, False)
    _put(data, "values", values, {})
    _put(data, "when", _condition(a.when), {})
    _put(data, "axis", a.axis)
    _put(data, "doc", a.doc, "")
    return data


def _output(o: Output) -> Data:
    data: Data = {"name": o.name, "dtype": o.dtype, "shape": _shape(o.shape)}
    _put(data, "list", o.is_list, False)
    _put(data, "when", _condition(o.when), {})
    _put(data, "doc", o.doc, "")
    return data


def _where(c: Constraint) -> Any:
    if not c.message and c.when.empty:
        return c.text
    data: Data = {"check": c.text}
    _put(data, "message", c.message, "")
    _put(data, "when", _condition(c.when), {})
    return data


def _kernel(k: KernelSpec) -> Data:
    data: Data = {"source": k.source}
    _put(data, "specialize", list(k.specialize), [])
    _put(data, "scratch", [_scratch(b) for b in k.scratch], [])
    data["launch"] = [_step(s) for s in k.launch]
    return data


def _scratch(b: Scratch) -> Data:
    data: Data = {"name": b.name, "dtype": b.dtype, "shape": shape_to_text(b.shape)}
    _put(data, "alias", b.alias)
    _put(data, "when", _condition(b.when), {})
    return data


def _step(step: Step) -> Data:
    data: Data
    if isinstance(step, GemmStep):
        data = {"gemm": _gemm(step)}
    elif isinstance(step, RepeatStep):
        loop: Data = {"var": step.var, "count": _expr(step.count)}
        _put(loop, "lanes", _expr(step.lanes) if step.lanes is not None else None)
        _put(loop, "let", {name: _expr(e) for name, e in step.lets}, {})
        loop["steps"] = [_step(s) for s in step.steps]
        data = {"repeat": loop}
    else:
        data = _launch(step)
    _put(data, "when", _condition(step.when), {})
    return data


def _launch(step: LaunchStep) -> Data:
    data: Data = {"kernel": step.kernel, "grid": [_expr(e) for e in step.grid],
                  "block": [_expr(e) for e in step.block]}
    _put(data, "shared_bytes", _expr(step.shared_bytes) if step.shared_bytes is not None else None)
    data["args"] = [str(a) if isinstance(a, ArgIndex) else a for a in step.args]
    return data


def _gemm(g: GemmStep) -> Data:
    data: Data = {"a": g.a, "b": g.b, "out": g.out, "m": _expr(g.m), "n": _expr(g.n), "k": _expr(g.k)}
    for key in ("a_offset", "b_offset", "out_offset", "batch", "a_stride", "b_stride", "out_stride"):
        offset = getattr(g, key)
        _put(data, key, _expr(offset) if offset is not None else None)
    _put(data, "trans_a", g.trans_a, False)
    _put(data, "trans_b", g.trans_b, False)
    _put(data, "beta", g.beta, 0)
    return data


def _autograd(ag: Autograd) -> Data:
    data: Data = {"outputs": list(ag.outputs), "call": dict(ag.call)}
    _put(data, "attrs", dict(ag.attrs), {})
    data["grads"] = dict(ag.grads)
    if ag.helper is not None:
        data["helper"] = {"function": ag.helper.function.text(), "args": list(ag.helper.args),
                          "grads": list(ag.helper.grads)}
    _put(data, "requires", _condition(ag.requires), {})
    return data


def _torch(torch: TorchSpec, is_runtime: bool) -> Data | None:
    """None where the loader's default for an op without `torch:` says the same."""
    default = TorchSpec(register=not is_runtime,
                        reason="a runtime op without a torch: fake function" if is_runtime else "")
    if torch == default:
        return None
    data: Data = {"register": torch.register}
    _put(data, "reason", torch.reason, "")
    _put(data, "fake", torch.fake.text() if torch.fake is not None else None)
    return data
