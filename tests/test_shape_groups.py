"""Rank polymorphism (issue 15): named dimension groups (`[*lead, D]`, reused by outputs, the
product of their dims as a symbol) and an int axis attr splitting an input into
`[*outer, N, *inner]`, end to end on a test op (tests/fixtures/specs/groups/group_ops.yaml)
generated into a temporary package and run on the cpu backend against NumPy."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from test_spec_errors import line_of, write_spec

from codegen.load import load_specs
from codegen.yamlnodes import SpecError

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def ops(fixture_package: ModuleType) -> ModuleType:
    return fixture_package


@pytest.fixture(autouse=True)
def poison(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_POISON_OUTPUTS", "1")


@pytest.mark.parametrize("lead", [(), (3,), (2, 3), (2, 1, 4)])
@pytest.mark.parametrize(("zshape", "axis"), [((5,), 0), ((2, 5, 3), 1), ((2, 5, 3), -2), ((4, 5), -1),
                                              ((5, 2, 3), 0), ((2, 3, 5), 2)])
def test_groups_and_axis_against_numpy(ops: ModuleType, lead: tuple[int, ...], zshape: tuple[int, ...],
                                       axis: int) -> None:
    rng = np.random.default_rng([len(lead), axis + 10])
    x = rng.standard_normal((*lead, 4))
    scale = rng.standard_normal(4)
    z = rng.standard_normal(zshape)
    out = ops.group_ops(x, scale, z, axis=axis, scope="cpu")
    np.testing.assert_allclose(out.y, x * scale, rtol=1e-12)
    assert out.rowsum.shape == lead
    np.testing.assert_allclose(out.rowsum, (x * scale).sum(-1), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out.s, z.sum(axis), rtol=1e-12, atol=1e-12)


def test_empty_groups_and_empty_dims(ops: ModuleType) -> None:
    out = ops.group_ops(np.zeros((0, 3)), np.ones(3), np.zeros((2, 0, 3)), axis=1, scope="cpu")
    assert out.y.shape == (0, 3) and out.rowsum.shape == (0,)
    np.testing.assert_array_equal(out.s, np.zeros((2, 3)))


def test_group_errors_name_the_op_the_argument_and_the_bound_dims(ops: ModuleType) -> None:
    x, scale, z = np.zeros((2, 3, 4)), np.ones(4), np.zeros(5)
    with pytest.raises(ValueError, match=r"GroupOps: row_weight: expected shape \[\*lead=\[2, 3\]\], got \[3, 2\]"):
        ops.group_ops(x, scale, z, np.zeros((3, 2)), axis=0, scope="cpu")
    with pytest.raises(ValueError, match=r"GroupOps: x: expected shape \[\*lead, D\], got \[\]"):
        ops.group_ops(np.zeros(()), scale, z, axis=0, scope="cpu")
    with pytest.raises(ValueError, match=r"GroupOps: scale: expected shape \[D=4\], got \[3\]"):
        ops.group_ops(x, np.ones(3), z, axis=0, scope="cpu")


@pytest.mark.parametrize("axis", [3, -4, 2**40])
def test_an_axis_out_of_range_is_named(ops: ModuleType, axis: int) -> None:
    with pytest.raises(ValueError, match=rf"GroupOps: attr axis: expected a value in \[-3, 2\] for z of rank 3, "
                                         rf"got {axis}"):
        ops.group_ops(np.zeros((2, 4)), np.ones(4), np.zeros((2, 5, 3)), axis=axis, scope="cpu")


def test_the_reference_page_and_signature_show_groups(ops: ModuleType) -> None:
    page = (Path(ops.__file__).parent / "docs" / "groups" / "group_ops.md").read_text()
    assert "[*lead, D]" in page and "[*outer, N, *inner]" in page and "[*outer, *inner]" in page


# -- spec errors ------------------------------------------------------------------------------------
BASE = """\
op: G
summary: A test.
type_vars:
  T: [float32]
attrs:
  - {name: axis, type: int, default: -1, doc: An axis.}
inputs:
  - {name: x, dtype: T, shape: "[*lead, D]", doc: An input.}
outputs:
  - {name: y, dtype: T, shape: "[*lead, D]", doc: An output.}
"""


@pytest.mark.parametrize(("old", "new", "needle", "fragment"), [
    ('shape: "[*lead, D]", doc: An output.', 'shape: "[..., D]", doc: An output.', "An output",
     "an output shape must be fully known: '...' is not"),
    ('shape: "[*lead, D]", doc: An output.', 'shape: "[*rest, D]", doc: An output.', "An output",
     "group *rest is bound by no required input"),
    ('shape: "[*lead, D]", doc: An input.', 'shape: "[*outer, D, *lead]", doc: An input.', "An input",
     "a shape with two dimension groups needs 'axis: <int attr>'"),
    ('shape: "[*lead, D]", doc: An input.', 'shape: "[*lead, D]", axis: axis, doc: An input.', "An input",
     "axis: needs a shape with two dimension groups"),
    ('shape: "[*lead, D]", doc: An input.', 'shape: "[*outer, D, E, *lead]", axis: axis, doc: An input.',
     "An input", "exactly one dim stands between the two groups"),
    ('shape: "[*lead, D]", doc: An input.', 'shape: "[*D, D]", doc: An input.', "An input",
     "group *D has the name of a symbol"),
    ('shape: "[*lead, D]", doc: An input.', 'shape: "[*outer, D, *lead]", axis: D, doc: An input.', "An input",
     "axis: 'D' is not an int attr"),
])
def test_group_spec_errors(tmp_path: Path, old: str, new: str, needle: str, fragment: str) -> None:
    text = BASE.replace(old, new)
    assert text != BASE
    write_spec(tmp_path / "specs", text, "g")
    with pytest.raises(SpecError) as info:
        load_specs(tmp_path / "specs")
    assert info.value.line == line_of(text, needle), str(info.value)
    assert fragment in info.value.message, str(info.value)


def test_a_group_is_a_symbol_in_lets(tmp_path: Path) -> None:
    text = BASE.replace("outputs:", "let:\n  rows: lead\n  total: lead*D\noutputs:")
    write_spec(tmp_path / "specs", text, "g")
    (op,) = load_specs(tmp_path / "specs")
    assert [let.name for let in op.lets] == ["rows", "total"]


# -- RowStats: accumulator type variables, above/below bounds, float attrs in where and when,
# -- comparisons in lets, steps for one backend's plan, Scope(launch_plan=...) ----------------------
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("plan", ["cpu", "cuda"])
def test_row_stats_accumulate_in_float32_for_float16(ops: ModuleType, dtype: type, plan: str) -> None:
    from codegen.runtime.scope import Scope

    rng = np.random.default_rng(7)
    x = rng.standard_normal((3, 2, 5)).astype(dtype)
    out = ops.row_stats(x, scale=2.0, shift=0.5, scope=Scope("cpu", launch_plan=plan))
    expected_dtype = np.float64 if dtype == np.float64 else np.float32
    assert out.mean.dtype == expected_dtype and out.mean.shape == (3, 2)
    ref = 2.0 * x.astype(np.float64).sum(-1) / 5 + 0.5
    np.testing.assert_allclose(out.mean, ref, rtol=1e-6 if dtype != np.float64 else 1e-12)
    assert out.single.tolist() == [0]
    assert ops.row_stats(x[..., :1], scope=Scope("cpu", launch_plan=plan)).single.tolist() == [1]


def test_the_launch_plan_is_the_scopes(ops: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each backend's steps run only under its plan: count the launches per plan."""
    from codegen.runtime.scope import Scope

    for plan, expected in (("cpu", "RowStats__row_mean_loop__float32__int64"),
                           ("cuda", "RowStats__row_mean_strided__float32__int64")):
        scope = Scope("cpu", launch_plan=plan)
        seen: list[str] = []

        def counting(src: object, sym: str, *args: object, _seen: list[str] = seen,
                     _launch: object = scope.backend.launch, **kwargs: object) -> None:
            _seen.append(sym)
            _launch(src, sym, *args, **kwargs)  # type: ignore[operator]

        monkeypatch.setattr(scope.backend, "launch", counting)
        monkeypatch.setattr(scope.backend, "watched", True)
        ops.row_stats(np.ones((2, 3), np.float32), scope=scope)
        assert seen == [expected], plan
    assert repr(Scope("cpu", launch_plan="cuda")) == "Scope(device='cpu', launch_plan='cuda')"
    with pytest.raises(ValueError, match="Scope: launch_plan: expected 'cpu' or 'cuda'"):
        Scope("cpu", launch_plan="tpu")


@pytest.mark.parametrize(("scale", "message"), [(0.0, r"attr scale: expected a value > 0, got 0.0"),
                                                (1000, r"attr scale: expected a value < 1000, got 1000"),
                                                (-1.0, r"attr scale: expected a value > 0")])
def test_exclusive_bounds(ops: ModuleType, scale: float, message: str) -> None:
    with pytest.raises(ValueError, match=rf"RowStats: {message}"):
        ops.row_stats(np.ones((2, 3), np.float32), scale=scale, scope="cpu")
    assert "&gt; 0, &lt; 1000" in (Path(ops.__file__).parent / "docs" / "groups" / "row_stats.md").read_text()


def test_a_where_line_with_a_float_attr(ops: ModuleType) -> None:
    with pytest.raises(ValueError, match=r"RowStats: requires scale \* D < 100000 \(with D=200, scale=600.0\): "
                                         r"scale times the row length"):
        ops.row_stats(np.ones((1, 200), np.float32), scale=600.0, scope="cpu")


FEATURE_BASE = """\
op: F
summary: A test.
type_vars:
  T: [float16, float32]
  S: {accumulates: T}
attrs:
  - {name: eps, type: float, default: 0.5, doc: An epsilon.}
inputs:
  - {name: x, dtype: T, shape: "[N]", doc: An input.}
outputs:
  - {name: y, dtype: S, shape: "[N]", doc: An output.}
"""


@pytest.mark.parametrize(("old", "new", "fragment"), [
    ("  S: {accumulates: T}", "  S: {accumulates: U}", "accumulates: 'U' is not a type variable declared before it"),
    ("  S: {accumulates: T}", "  S: {accumulates: T, allowed: [float32]}", "its dtypes follow from accumulates:"),
    ("  T: [float16, float32]", "  T: [float16, int32]", "allows int32, which has no accumulator dtype"),
    ("default: 0.5, doc", "default: 0.5, min: 0, above: 0, doc", "give min or above, not both"),
    ("default: 0.5, doc", "default: 0.5, above: 0.5, doc", "default 0.5 is not above 0.5"),
    ("outputs:", "let:\n  half: eps\noutputs:", "symbol 'eps' is not bound by any input shape, int attr, earlier let "
                                                "or enclosing repeat (a float attr"),
])
def test_feature_spec_errors(tmp_path: Path, old: str, new: str, fragment: str) -> None:
    text = FEATURE_BASE.replace(old, new)
    assert text != FEATURE_BASE
    write_spec(tmp_path / "specs", text, "f")
    with pytest.raises(SpecError) as info:
        load_specs(tmp_path / "specs")
    assert fragment in info.value.message, str(info.value)


def test_an_accumulator_type_variable_loads(tmp_path: Path) -> None:
    write_spec(tmp_path / "specs", FEATURE_BASE, "f")
    (op,) = load_specs(tmp_path / "specs")
    s = op.type_var("S")
    assert s is not None and s.accumulates == "T" and s.allowed == ("float32",)


# -- outputs computed only when asked (when:), output dtypes from a type attr ------------------------
@pytest.mark.parametrize("plan", ["cpu", "cuda"])
def test_an_output_computed_only_when_asked(ops: ModuleType, plan: str) -> None:
    from codegen.runtime.scope import Scope

    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    scope = Scope("cpu", launch_plan=plan)
    assert ops.row_stats(x, scope=scope).sum is None
    out = ops.row_stats(x, want_sum=True, scope=scope)
    np.testing.assert_array_equal(out.sum, x.sum(-1))
    np.testing.assert_allclose(out.mean, x.mean(-1), rtol=1e-6)


@pytest.mark.parametrize("flag_type", ["int32", "int64", np.int32])
def test_an_output_dtype_from_a_type_attr(ops: ModuleType, flag_type: object) -> None:
    out = ops.row_stats(np.ones((2, 1), np.float16), flag_type=flag_type, scope="cpu")
    assert out.single.dtype == np.dtype(flag_type) and out.single.tolist() == [1]
    with pytest.raises(ValueError, match=r"RowStats: attr flag_type: expected one of \['int32', 'int64'\], got "
                                         r"'float32'"):
        ops.row_stats(np.ones((2, 1), np.float16), flag_type="float32", scope="cpu")


def test_optional_outputs_and_type_attr_dtypes_through_torch(ops: ModuleType) -> None:
    torch = pytest.importorskip("torch")
    importlib.import_module(f"{ops.__name__}.torch")  # registers the fixture ops (their own names)
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    _mean, single, total = torch.ops.opgen.row_stats(x, want_sum=False, flag_type="int32")
    assert total.shape == (0,) and single.dtype == torch.int32
    mean, _single, total = torch.ops.opgen.row_stats(x, want_sum=True)
    torch.testing.assert_close(total, x.sum(-1))
    torch.testing.assert_close(mean, x.mean(-1))
    result = torch.library.opcheck(torch.ops.opgen.row_stats.default, (x,), {"want_sum": True, "flag_type": "int32"})
    assert set(result.values()) == {"SUCCESS"}, result


def test_a_type_attr_dtype_needs_the_kernel_to_specialize_on_it(tmp_path: Path) -> None:
    spec = (FIXTURES / "specs" / "groups" / "row_stats.yaml").read_text().replace("  specialize: [T, flag_type]",
                                                                                  "  specialize: [T]")
    write_spec(tmp_path / "specs", spec, "row_stats", group="groups")
    with pytest.raises(SpecError) as info:
        load_specs(tmp_path / "specs")
    assert "output 'single': dtype flag_type is a type attr: add it to the kernel's specialize: list" in str(info.value)


# -- shapes and lets switched by an int or string attr with allowed: values ---------------------------
@pytest.mark.parametrize(("rank", "shape"), [(1, (5,)), (2, (3, 4))])
@pytest.mark.parametrize("layout", ["rows", "cols"])
def test_shapes_switched_by_an_int_attr(ops: ModuleType, rank: int, shape: tuple[int, ...], layout: str) -> None:
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    np.testing.assert_array_equal(ops.rank_switch(x, rank=rank, layout=layout, scope="cpu").y, x)
    with pytest.raises(ValueError, match=rf"RankSwitch: x: expected shape \[N(, M)?\] \(rank {3 - rank}\)"):
        ops.rank_switch(x, rank=3 - rank, scope="cpu")


def test_a_switch_on_an_int_attr_without_allowed_values_is_refused(tmp_path: Path) -> None:
    spec = (FIXTURES / "specs" / "groups" / "rank_switch.yaml").read_text().replace(
        "{name: rank, type: int, allowed: [1, 2], default: 1,", "{name: rank, type: int, default: 1,")
    write_spec(tmp_path / "specs", spec, "rank_switch", group="groups")
    with pytest.raises(SpecError) as info:
        load_specs(tmp_path / "specs")
    assert "by: 'rank' is not an enum, bool, or int/string attr with allowed: values" in str(info.value)


def test_groups_bound_earlier_place_the_dim_between_them(ops: ModuleType) -> None:
    """z_like declares no axis: z's groups (bound through axis) place its middle dim."""
    z = np.zeros((2, 5, 3))
    out = ops.group_ops(np.zeros((1, 4)), np.ones(4), z, None, np.zeros((2, 5, 3)), axis=1, scope="cpu")
    assert out.s.shape == (2, 3)
    for bad in ((2, 5, 3, 1), (2, 4, 3), (2, 5), (1, 2, 5, 3)):
        with pytest.raises(ValueError, match=r"GroupOps: z_like: expected shape \[\*outer=\[2\], N=5, \*inner=\[3\]\]"):
            ops.group_ops(np.zeros((1, 4)), np.ones(4), z, None, np.zeros(bad), axis=1, scope="cpu")
