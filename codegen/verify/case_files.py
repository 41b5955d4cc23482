"""A project's own parity cases: `<group>/<op>.cases.yaml` beside the op's spec, which `opgen verify`
runs (every check: the sanitize build, random orders and the coverage table included) after the
cases derived from the spec, or instead of them (`replace: true`).

    op: RmsNorm
    reference: my_refs:rms_norm          # the op's float64 reference (else the spec's `reference:`)
    cases:
      - label: 4100 wide, misaligned     # default: "case N"
        inputs:                          # by name; an optional input left out is None
          x: {shape: [3, 4100], dtype: float32, range: [-4, 4], misaligned: true}
          gamma: {shape: [4100], dtype: float32}
        attrs: {epsilon: 0.001}

An input is `{shape, dtype}` with `range: [lo, hi]` (uniform; default: standard normal floats, ints
0 to 9, random bools), `misaligned: true` (data one element past a 16-byte boundary: the kernels'
scalar paths), or `{value: literal, dtype}`; a list input is a list of those. Bad input is a
SpecError at its `file:line`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from codegen.inputs import Case
from codegen.load import function_ref
from codegen.load_family import CASES_SUFFIX, display_path, spec_files
from codegen.model import DType, RuntimeRef
from codegen.verify.cases import maybe_misaligned, spec_set
from codegen.yamlnodes import MapReader, Node, SpecError, describe, parse_yaml, plain


@dataclass
class OpCases:
    """One op's cases file: its cases, its reference, and whether the cases replace the derived ones."""

    op: str
    cases: list[Case] = field(default_factory=list)
    reference: RuntimeRef | None = None
    replace: bool = False


def case_files(specs: Path) -> list[Path]:
    return spec_files(specs, CASES_SUFFIX)


def project_cases(specs: Path, seed: int = 0) -> dict[str, OpCases]:
    """Every cases file of the spec folder read, by op name (one file per op)."""
    ops = {spec.name: spec for spec in spec_set(specs)}
    found: dict[str, OpCases] = {}
    for path in case_files(specs):
        display = display_path(path, specs)
        cases = read_cases(parse_yaml(path.read_text(encoding="utf-8"), display), display, ops, seed)
        if cases.op in found:
            raise SpecError(display, 1, f"op {cases.op} already has a cases file")
        found[cases.op] = cases
    return found


def read_cases(root: Node, file: str, ops: dict[str, Any], seed: int = 0) -> OpCases:
    r = MapReader(root, file, "cases file", None)
    op_node = r.pop("op", required=True)
    assert op_node is not None
    spec = ops.get(op_node.value) if isinstance(op_node.value, str) else None
    if spec is None:
        raise SpecError(file, op_node.line, f"op: no op named {op_node.value!r} in the spec folder "
                                            f"(known: {', '.join(sorted(ops))})")
    r.op = spec.name
    result = OpCases(spec.name)
    ref = r.pop("reference")
    if ref is not None:
        result.reference = function_ref(ref, file, "reference", spec.name)
    replace = r.pop("replace")
    if replace is not None:
        if not isinstance(replace.value, bool):
            raise r.error(replace.line, f"replace: expected true or false, got {describe(replace.value)}")
        result.replace = replace.value
    listed = r.pop("cases", required=True)
    assert listed is not None
    if not isinstance(listed.value, list) or not listed.value:
        raise r.error(listed.line, f"cases: expected a list of cases, got {describe(listed.value)}")
    rng = np.random.default_rng([seed, sum(map(ord, spec.name)), 1])
    result.cases = [_case(node, i, file, spec, rng) for i, node in enumerate(listed.value, 1)]
    r.finish()
    return result


def _case(node: Node, index: int, file: str, spec: Any, rng: np.random.Generator) -> Case:
    r = MapReader(node, file, f"cases[{index}]", spec.name)
    label = r.pop_str("label", default=f"case {index}")
    inputs = r.pop("inputs", required=True)
    assert inputs is not None
    given = MapReader(inputs, file, f"cases[{index}].inputs", spec.name)
    given.allowed = [arg.name for arg in spec.inputs]
    unknown = [name for name in given.items if name not in given.allowed]
    if unknown:  # before a missing input: a misspelt name is both
        given.items = {name: given.items[name] for name in unknown}
        given.finish()
    args: list[Any] = []
    for arg in spec.inputs:
        value = given.pop(arg.name, required=not arg.optional)
        args.append(None if value is None else _input(value, file, spec.name, f"{arg.name}", rng))
    given.finish()
    attrs_node = r.pop("attrs")
    kwargs: dict[str, Any] = {}
    if attrs_node is not None:
        names = {a.name for a in spec.attrs}
        attrs = MapReader(attrs_node, file, f"cases[{index}].attrs", spec.name)
        for name in list(attrs.items):
            if name not in names:
                raise attrs.error(attrs.items[name].line, f"cases[{index}].attrs: no attr named {name!r} "
                                                         f"(the op's: {', '.join(sorted(names)) or 'none'})")
            kwargs[name] = plain(attrs.items.pop(name))
    r.finish()
    while args and args[-1] is None:  # trailing optional inputs left to their defaults
        args.pop()
    return Case(f"{label} (cases file)", tuple(args), kwargs)


def _input(node: Node, file: str, op: str, what: str, rng: np.random.Generator) -> Any:
    if isinstance(node.value, list):  # a list input
        return [_input(item, file, op, f"{what}[{i}]", rng) for i, item in enumerate(node.value)]
    r = MapReader(node, file, what, op)
    dtype_name = r.pop_str("dtype", required=True)
    if dtype_name not in {d.value for d in DType}:
        raise r.error(node.line, f"{what}: dtype: expected one of {', '.join(DType)}, got {dtype_name!r}")
    from codegen.runtime.cpu import numpy_dtype

    dtype = numpy_dtype(dtype_name)
    value = r.pop("value")
    shape_node = r.pop("shape", required=value is None)
    range_node = r.pop("range")
    off_node = r.pop("misaligned")
    r.finish()
    if value is not None:
        return np.asarray(plain(value)).astype(dtype)
    assert shape_node is not None
    shape = plain(shape_node)
    if not isinstance(shape, list) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0
                                              for d in shape):
        raise r.error(shape_node.line, f"{what}: shape: expected a list of sizes ≥ 0, got {describe(shape)}")
    data = _data(rng, tuple(shape), dtype_name, r, range_node, what)
    off = off_node is not None and off_node.value is True
    if off_node is not None and not isinstance(off_node.value, bool):
        raise r.error(off_node.line, f"{what}: misaligned: expected true or false, got {describe(off_node.value)}")
    return maybe_misaligned(data.astype(dtype), off)


def _data(rng: np.random.Generator, shape: tuple[int, ...], dtype: str, r: MapReader, range_node: Node | None,
          what: str) -> np.ndarray:
    if range_node is not None:
        bounds = plain(range_node)
        if not (isinstance(bounds, list) and len(bounds) == 2 and all(isinstance(b, (int, float)) for b in bounds)
                and bounds[0] <= bounds[1]):
            raise r.error(range_node.line, f"{what}: range: expected [lo, hi] with lo ≤ hi, got {describe(bounds)}")
        lo, hi = bounds
        if dtype.startswith(("int", "uint")):
            return rng.integers(int(lo), int(hi) + 1, shape)
        return rng.uniform(lo, hi, shape)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.startswith(("int", "uint")):
        return rng.integers(0, 10, shape)
    return rng.standard_normal(shape)
