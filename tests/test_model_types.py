"""The typed spec model: the dtype and attr-type enums, their exhaustive target tables, the
generic Switch and the traversal helpers on OpSpec."""

from __future__ import annotations

import ast
import enum
from pathlib import Path

import pytest

from codegen import model
from codegen.load import load_specs
from codegen.model import (
    ACCUMULATOR,
    ATTR_C_TYPES,
    ATTR_PY_CTORS,
    ATTR_TORCH_TYPES,
    ATTR_TYPES,
    DTYPE_ACCUMULATORS,
    DTYPE_KINDS,
    DTYPES,
    AttrType,
    DType,
    RepeatStep,
    Switch,
)
from codegen.pygen import ATTR_PY_TYPES
from codegen.shapes import ShapePattern

SPECS = Path(__file__).resolve().parent.parent / "specs"

DTYPE_TABLES = {"DTYPES": DTYPES, "DTYPE_KINDS": DTYPE_KINDS, "DTYPE_ACCUMULATORS": DTYPE_ACCUMULATORS}
ATTR_TABLES = {"ATTR_C_TYPES": ATTR_C_TYPES, "ATTR_PY_CTORS": ATTR_PY_CTORS, "ATTR_TORCH_TYPES": ATTR_TORCH_TYPES,
               "ATTR_PY_TYPES": ATTR_PY_TYPES}
CODEGEN = Path(model.__file__).resolve().parent


@pytest.mark.parametrize("name", DTYPE_TABLES)
def test_every_dtype_has_an_entry_in_each_dtype_table(name: str) -> None:
    table = DTYPE_TABLES[name]
    assert set(table) == set(DType), f"{name}: missing {set(DType) - set(table)}, extra {set(table) - set(DType)}"
    assert all(isinstance(key, DType) for key in table)


@pytest.mark.parametrize("name", ATTR_TABLES)
def test_every_attr_type_has_an_entry_in_each_attr_table(name: str) -> None:
    table = ATTR_TABLES[name]
    assert set(table) == set(AttrType), f"{name}: missing {set(AttrType) - set(table)}"
    assert all(isinstance(key, AttrType) for key in table)


def test_an_attr_type_added_without_an_entry_fails_at_import() -> None:
    """`exhaustive` wraps each attr-type table at import: with one more AttrType member (here an
    enum of every member and `complex`), every table lacks it and the check names table and member."""
    extended = enum.StrEnum("AttrType", {**{m.name: m.value for m in AttrType}, "COMPLEX": "complex"})
    for name, table in ATTR_TABLES.items():
        assert model.exhaustive(AttrType, name, table) is table  # today's: complete
        with pytest.raises(TypeError, match=rf"{name}: no entry for AttrType complex$"):
            model.exhaustive(extended, name, {extended[k.name]: v for k, v in table.items()})


def _attr_type_subject(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "type") or (isinstance(node, ast.Name)
                                                                          and node.id == "kind")


def test_no_attr_type_is_compared_with_a_string() -> None:
    """Attr types are dispatched on the AttrType enum (an exhaustive table, or a match ending in
    assert_never, which mypy checks), never compared with their strings; and every match over an
    attr type ends in assert_never."""
    names = {m.value for m in AttrType}

    def strings(node: ast.AST) -> set[str]:
        items = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
        return {i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)}

    found: list[str] = []
    for path in sorted(CODEGEN.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(CODEGEN)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                if any(_attr_type_subject(s) for s in sides) and any(strings(s) & names for s in sides):
                    found.append(f"{where}: {ast.unparse(node)}")
            elif isinstance(node, ast.Match) and _attr_type_subject(node.subject):
                last = node.cases[-1].body[-1]
                if not (isinstance(last, ast.Expr) and isinstance(last.value, ast.Call)
                        and ast.unparse(last.value.func) == "assert_never"):
                    found.append(f"{where}: a match over an attr type without assert_never")
    assert found == []


def test_the_enums_still_read_as_their_strings() -> None:
    """StrEnum members compare, format, hash and repr as the strings the compiler used before
    (generated code writes dtypes with !r, so the repr matters for byte-identical output)."""
    assert DType.FLOAT16 == "float16" and f"{DType.FLOAT16}" == "float16" and str(DType.FLOAT16) == "float16"
    assert repr(DType.BFLOAT16) == "'bfloat16'" and repr((DType.FLOAT32,)) == "('float32',)"
    assert repr(AttrType.LIST_INT) == "'list(int)'"
    assert {"float16": 1}[DType.FLOAT16] == 1 and DTYPES["float32"] == "float"
    assert ATTR_TYPES == ("int", "float", "bool", "string", "enum", "list(int)", "type", "activation",
                          "list(activation)")


def test_typed_accumulators_agree_with_the_runtime_table() -> None:
    assert {d: a for d, a in DTYPE_ACCUMULATORS.items() if a is not None} == ACCUMULATOR
    assert set(model.FLOAT_DTYPES) == {d for d in DType if DTYPE_ACCUMULATORS[d] is not None}


@pytest.fixture(scope="module")
def ops() -> list[model.OpSpec]:
    return list(load_specs(SPECS))


def test_the_loader_produces_enum_members(ops: list[model.OpSpec]) -> None:
    for op in ops:
        for attr in op.attrs:
            assert isinstance(attr.type, AttrType), (op.name, attr.name)
            if attr.type == AttrType.TYPE:
                assert all(isinstance(v, DType) for v in attr.allowed or ())
        for tv in op.type_vars:
            assert all(isinstance(d, DType) for d in tv.allowed), (op.name, tv.name)
        for tensor in op.tensors():
            is_name = op.type_var(tensor.dtype) is not None or op.attr(tensor.dtype) is not None
            assert is_name or isinstance(tensor.dtype, DType), (op.name, tensor.name, tensor.dtype)


def test_switches_carry_their_case_type(ops: list[model.OpSpec]) -> None:
    for op in ops:
        for tensor in (*op.inputs, *op.outputs):
            assert all(isinstance(p, ShapePattern) for p in tensor.patterns())
        for let in op.lets:
            assert not any(isinstance(e, ShapePattern) for e in let.value.values())
    sw: Switch[int] = Switch("mode", (("a", 1), ("b", 2)))
    assert sw.values() == (1, 2) and sw.case("b") == 2 and Switch(None, (("", 7),)).case("anything") == 7


def test_traversals_match_hand_written_walks(ops: list[model.OpSpec]) -> None:
    for op in ops:
        scratch = op.kernel.scratch if op.kernel is not None else ()
        assert op.tensors() == (*op.inputs, *op.outputs, *scratch)
        for tensor in op.tensors():
            assert op.tensor(tensor.name) is tensor

        def walk(steps: tuple[model.Step, ...]) -> list[model.Step]:
            out: list[model.Step] = []
            for step in steps:
                out.append(step)
                if isinstance(step, RepeatStep):
                    out += walk(step.steps)
            return out

        everything = walk(op.kernel.launch) if op.kernel is not None else []
        assert list(op.walk_steps()) == everything
        assert op.launches() == [s for s in everything if not isinstance(s, RepeatStep)]
        symbols = set()
        for arg in op.inputs:
            for pattern in arg.patterns():
                symbols |= {s for d in pattern.dims for s in model.symbols(d)} | set(pattern.group_names())
        assert op.input_symbols() == symbols
    assert any(op.kernel is not None and any(isinstance(s, RepeatStep) for s in op.walk_steps()) for op in ops)


@pytest.mark.parametrize(("text", "reason"), [("N + 1", "none"), ("(N > 1) + 2", "partial"), ("1 < N < 3", None),
                                              ("(1 < N) < 3", "chained")])
def test_the_comparison_parser_refuses_what_is_not_one_comparison(text: str, reason: str | None) -> None:
    """shapes.parse_comparison reads where: lines and steps' when: comparisons alike."""
    from codegen import shapes

    with pytest.raises((shapes.ComparisonError, shapes.ShapeSyntaxError)) as info:
        shapes.parse_comparison(text)
    if reason is None:  # a bare chain does not even parse
        assert isinstance(info.value, shapes.ShapeSyntaxError) and "do not chain" in info.value.message
    else:
        assert isinstance(info.value, shapes.ComparisonError) and info.value.reason == reason


def test_the_comparison_parser_splits() -> None:
    from codegen import shapes

    lhs, op, rhs = shapes.parse_comparison("2*N >= max(C, 1)")
    assert (shapes.to_text(lhs), op, shapes.to_text(rhs)) == ("2*N", ">=", "max(C, 1)")
