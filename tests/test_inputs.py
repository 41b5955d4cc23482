"""Input cases derived from the spec (codegen/inputs.py): every case the derivation makes for an
op of specs/ or of the fixture specs (tests/fixtures/specs, generated into a temporary package)
passes the generated wrapper's checks on the cpu backend and returns outputs of the shapes and
dtypes the spec declares; the cases cover the shape switch, every dtype, optional inputs, and
the size-1 and 0-sized edge cases where the spec allows them."""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from codegen import shapes
from codegen.inputs import Case, NotDerivable, derive_cases
from codegen.load import SpecSet, load_specs
from codegen.model import Condition, Constraint, OpSpec
from codegen.pygen import switch_attr
from codegen.runtime.arrays import to_host
from codegen.warmup import GeneratedOp, generated_ops

PROJECT = Path(__file__).resolve().parent.parent
FIXTURES = PROJECT / "tests" / "fixtures"
SPECS = load_specs(PROJECT / "specs")
FIXTURE_SPECS = load_specs(FIXTURES / "specs")
NO_EMPTY_CASE = {"ScaledSum"}  # where: B >= 1, and width has min 1: no input can be 0-sized


@pytest.fixture(scope="module")
def fixture_ops(fixture_package: ModuleType) -> dict[str, GeneratedOp]:
    return {op.name: op for op in generated_ops(fixture_package.__name__)}


@pytest.fixture(autouse=True)
def poison(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_POISON_OUTPUTS", "1")


def _cases(spec_set: SpecSet, op: OpSpec, seed: int = 0) -> list[Case]:
    return derive_cases(op, np.random.default_rng(seed), spec_set.activations.names)


def _run_and_check(op: GeneratedOp, cases: list[Case]) -> None:
    for case in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # deprecated ops warn on every call
            out = op.function(*case.args, **case.kwargs, scope="cpu")
        assert case.expect is not None and set(case.expect) == set(out._fields), case.label
        for name, expected in case.expect.items():
            if expected is None:  # an output computed only when its `when:` holds
                assert getattr(out, name) is None, f"{op.name} [{case.label}]: {name} was computed"
                continue
            shape, dtype = expected
            value = to_host(getattr(out, name))
            assert value.shape == shape, f"{op.name} [{case.label}]: {name} {value.shape} != {shape}"
            assert dtype is not None and value.dtype.name == dtype, f"{op.name} [{case.label}]: {name} {value.dtype}"


@pytest.mark.parametrize("spec", [op for op in SPECS if op.runtime is None], ids=lambda op: op.name)
def test_derived_cases_pass_every_ops_wrapper(spec: OpSpec) -> None:
    op = next(o for o in generated_ops() if o.name == spec.name)
    _run_and_check(op, _cases(SPECS, spec))


@pytest.mark.parametrize("spec", list(FIXTURE_SPECS), ids=lambda op: op.name)
def test_derived_cases_pass_the_fixture_ops_wrappers(spec: OpSpec, fixture_ops: dict[str, GeneratedOp]) -> None:
    _run_and_check(fixture_ops[spec.name], _cases(FIXTURE_SPECS, spec))


@pytest.mark.parametrize("spec", [op for op in SPECS if op.runtime is not None], ids=lambda op: op.name)
def test_runtime_ops_are_not_derived_and_say_why(spec: OpSpec) -> None:
    with pytest.raises(NotDerivable, match=rf"^{spec.name}: no derived input cases: a runtime op \("):
        _cases(SPECS, spec)


def _first_array(value: Any) -> Any:
    return value[0] if isinstance(value, list) else value


ALL = [(SPECS, op) for op in SPECS if op.runtime is None] + [(FIXTURE_SPECS, op) for op in FIXTURE_SPECS]


@pytest.mark.parametrize(("spec_set", "spec"), ALL, ids=[op.name for _, op in ALL])
def test_derived_cases_cover_switch_dtypes_optional_inputs_and_edges(spec_set: SpecSet, spec: OpSpec) -> None:
    cases = _cases(spec_set, spec)
    by = switch_attr(spec)
    if by is not None:
        attr = spec.attr(by)
        assert attr is not None
        assert {c.kwargs[by] for c in cases} == ({True, False} if attr.type == "bool" else set(attr.allowed or ()))
    for tv in spec.type_vars:  # each dtype of each type variable, as the dtype of an input's array
        arg = next((a for a in spec.inputs if a.dtype == tv.name), None)
        if arg is None:
            continue
        index = spec.inputs.index(arg)
        dtypes = {_first_array(c.args[index]).dtype.name for c in cases if c.args[index] is not None}
        assert dtypes == set(tv.allowed), (tv.name, dtypes)
    for out in spec.outputs:  # outputs computed only when asked: both ways
        if not out.when.empty:
            assert {c.expect is not None and c.expect[out.name] is None for c in cases} == {True, False}, out.name
    for index, arg in enumerate(spec.inputs):
        if arg.optional:
            assert {c.args[index] is None for c in cases} == {True, False}, arg.name
    arrays = [[_first_array(a) for a in c.args if a is not None and not isinstance(a, int)] for c in cases]
    ones = [a for c, a in zip(cases, arrays, strict=True) if c.label.startswith("derived ones")]
    assert ones and all(d == 1 for d in ones[0][0].shape), [a[0].shape for a in ones]
    empty = [c.label for c, a in zip(cases, arrays, strict=True) if any(x.size == 0 and x.ndim for x in a)
             and c.label.startswith("derived empty")]
    assert bool(empty) == (spec.name not in NO_EMPTY_CASE), empty


def test_same_seed_same_cases_other_seed_other_sizes() -> None:
    spec = next(op for op in SPECS if op.name == "GRUBlockCell")
    first, again, other = _cases(SPECS, spec, 1), _cases(SPECS, spec, 1), _cases(SPECS, spec, 2)
    assert [c.label for c in first] == [c.label for c in again]
    assert all(np.array_equal(a, b) for c, d in zip(first, again, strict=True) for a, b in zip(c.args, d.args,
                                                                                               strict=True))
    assert [c.label for c in first] != [c.label for c in other]


def test_equalities_are_solved_for_their_shape_symbol() -> None:
    """CudnnRNNV3's params_len == params_size: the params length is computed from the other sizes
    and attrs (sampling would almost never hit it)."""
    spec = next(op for op in SPECS if op.name == "CudnnRNNV3")
    from opgen_ops.cudnn_rnn import params_layout

    for case in _cases(SPECS, spec):
        x, h, _, params, lengths = case.args
        attrs: dict[str, Any] = {a.name: case.kwargs.get(a.name, a.default) for a in spec.attrs}
        time_major = attrs["time_major"]
        units = h.shape[2] if attrs["num_proj"] == 0 else case.args[2].shape[2]
        layers = h.shape[0 if time_major else 1] // (2 if attrs["direction"] == "bidirectional" else 1)
        layout = params_layout(attrs["rnn_mode"], layers, units, x.shape[2], attrs["direction"],
                               attrs["input_mode"], attrs["num_proj"])
        assert params.shape == (layout.size,), case.label
        steps = x.shape[0 if time_major else 1]
        assert ((lengths >= 1) & (lengths <= steps)).all(), case.label  # values: {min: 1, max: steps}


def test_unsatisfiable_constraint_is_named() -> None:
    spec = next(op for op in SPECS if op.name == "GRUBlockCell")
    never = Constraint(shapes.parse("batch_size"), "<", shapes.parse("0"), "batch_size < 0", "never holds",
                       Condition(), spec.loc)
    with pytest.raises(NotDerivable, match=r"GRUBlockCell: no derived input cases: no sampled sizes satisfied "
                                           r"the spec in \d+ tries; most often: where 'batch_size < 0' "
                                           r"\(never holds\)"):
        _cases(SPECS, dataclasses.replace(spec, where=(*spec.where, never)))


def test_input_values_and_attr_bounds_are_respected() -> None:
    """DmlRnn's sequence_lengths within [0, seq_length] in every accepted dtype; FusedBatchNormV3's
    exponential_avg_factor within [0, 1] and epsilon >= 0, defaults included."""
    dml = next(op for op in SPECS if op.name == "DmlRnn")
    cases = _cases(SPECS, dml, 3)
    lengths = [(c.args[5], c.args[0].shape[1]) for c in cases if c.args[5] is not None]
    assert lengths and all(((v >= 0) & (v <= t)).all() for v, t in lengths)
    assert {v.dtype.name for v, _ in lengths} == {"uint32", "int32", "int64"}
    bn = next(op for op in SPECS if op.name == "FusedBatchNormV3")
    for case in _cases(SPECS, bn, 3):
        assert 0 <= case.kwargs.get("exponential_avg_factor", 1.0) <= 1
        assert case.kwargs.get("epsilon", 1e-4) >= 0
