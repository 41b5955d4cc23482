"""The native plan recorders (codegen/drivergen.py, loaded by codegen/runtime/native_plan.py) record
every op's plan exactly as `Plan.record` does: for the plan values of every parity case
(scripts/gpu_parity.py's all_cases, gathered by running each case once with a hook on run_plan, on the
cpu plan and on the cuda plan) on both backends' names, step for step — symbols, grids, blocks,
shared sizes, scalar arguments' values and types, slots, GEMM sizes and the variant. And the
arithmetic where C and Python differ (floor division and modulo of negatives), conditions, and
what the recorder refuses (an int64 overflow, a division by zero, a step buffer too small) with a
message instead of a crash."""

from __future__ import annotations

import runpy
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from codegen import drivergen
from codegen.runtime import api, native_plan
from codegen.runtime.plan import Gemm, Lanes, Launch, Plan, Recording
from codegen.runtime.scope import Scope
from codegen.warmup import generated_ops

PROJECT = Path(__file__).resolve().parent.parent
OPS = [op for op in generated_ops() if isinstance(getattr(op.module, "_PLAN", None), Plan)]


class _Stop(Exception):
    """Raised by the hook: the plan's values are what the test wants, not the kernels' run."""


def _parity_values(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Plan, str, tuple[Any, ...]]]:
    """(plan, backend name, values) of every parity case's call, on the cpu plan and the cuda plan."""
    parity = runpy.run_path(str(PROJECT / "scripts" / "gpu_parity.py"))
    seen: list[tuple[Plan, str, tuple[Any, ...]]] = []

    def hook(backend: Any, kernels: Any, plan: Plan, values: tuple[Any, ...], buffers: Any) -> None:
        seen.append((plan, backend.name, values))
        raise _Stop

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # GRUBlockCell's deprecation
        cases = list(parity["all_cases"](OPS))  # (before the hook: a builder may run an op to make inputs)
        monkeypatch.setenv("OPGEN_NATIVE", "0")  # the Python plan: what this hook captures
        monkeypatch.setattr(api, "run_plan", hook)
        for scope in (Scope("cpu"), Scope("cpu", launch_plan="cuda")):
            for op, case in cases:
                assert case is not None, parity["missing_builder_message"](op)
                with pytest.raises(_Stop):
                    parity["run_case"](op, case, scope)
    return seen


@pytest.fixture(scope="module")
def library() -> native_plan.NativePlans:
    """Every generated op's recorder in one translation unit (one compile, cached on disk)."""
    return native_plan.load(drivergen.translation_unit(op.module._PLAN for op in OPS), "generated")


def _same(native: Recording, python: Recording) -> None:
    """Equal step for step, and every scalar argument of the same type (np.int32(1) == np.int64(1))."""
    assert native == python
    for n, p in zip(native.steps, python.steps, strict=True):
        if isinstance(p, Launch):
            assert [type(a) for a in n.args] == [type(a) for a in p.args], p.symbol
        elif isinstance(p, Gemm):
            assert [type(s) for s in n.sizes] == [type(s) for s in p.sizes]


def test_every_parity_case_records_natively_as_in_python(library: native_plan.NativePlans,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    gathered = _parity_values(monkeypatch)
    assert {plan.op for plan, _, _ in gathered} == {op.name for op in OPS}
    assert {backend for _, backend, _ in gathered} == {"cpu", "cuda"}
    lanes: dict[str, set[int]] = {"cpu": set(), "cuda": set()}
    for plan, _, values in gathered:
        for name in ("cpu", "cuda"):  # the values of one backend's plan recorded for both
            python = plan.record(name, values)
            _same(library.plan(plan.op).record(name, values), python)
            lanes[name] |= {s.count for s in python.steps if isinstance(s, Lanes)}
    # the bidirectional RNN loops' lanes, on the cpu alone: a span of 2 lanes, then its end
    assert lanes == {"cpu": {2, 0}, "cuda": set()}


def test_the_plan_drivergen_reads_from_a_spec_is_the_wrappers() -> None:
    """runtime_plan(spec) (what the compiler hands drivergen) is the generated module's `_PLAN`."""
    from codegen.load import load_specs

    specs = {spec.name: spec for spec in load_specs(PROJECT / "specs")}
    for op in OPS:
        ours, theirs = drivergen.runtime_plan(specs[op.name]), op.module._PLAN
        fields = ("op", "names", "slots", "steps", "symbols", "variants", "params")
        assert [getattr(ours, f) for f in fields] == [getattr(theirs, f) for f in fields], op.name


@pytest.mark.parametrize("step, message", [
    (("launch", "k", ("_dtype_T",), (("pow", "a", 2),), (32,), 0, (), ()), "no native form for expression"),
    (("launch", "k", ("_dtype_T",), (1,), (32,), 0, (("scalar", "_np.int64", ("+", "a", 1), None, ()),), ()),
     "is not a name the plan reads"),
    (("gemm", 0, 0, 0, (1, 1, 1, False, False, 0, 0, 0, 0), ()), "a gemm step with 9 sizes, expected 13"),
])
def test_a_plan_form_drivergen_does_not_know_is_refused(step: Any, message: str) -> None:
    with pytest.raises(ValueError, match=f"Toy: .*{message}"):
        drivergen.plan_source(_toy(step))


# A toy plan for the arithmetic and the refusals: one kernel whose sizes and arguments are expressions.
TOY_SYMBOLS = {"k": {("float32",): "Toy__k_float32", ("float64",): "Toy__k_float64"}}


def _toy(*steps: Any, names: tuple[str, ...] = ("a", "b", "_dtype_T")) -> Plan:
    return Plan("Toy", names, ("x",), steps, TOY_SYMBOLS)


def _launch(args: tuple[Any, ...], when: tuple[Any, ...] = (), grid: tuple[Any, ...] = (1,)) -> tuple[Any, ...]:
    return ("launch", "k", ("_dtype_T",), grid, (32,), 0, args, when)


def _scalar(e: Any) -> tuple[Any, ...]:
    return ("scalar", "_np.int64", e, None, ())


TOY = _toy(
    ("repeat", "i", 2, (("q", ("//", "a", "b")), ("r", ("%", "a", "b")), ("c", ("ceildiv", "a", "b"))),
     (_launch((("buf", 0), _scalar("q"), _scalar("r"), _scalar("c"), _scalar("i"))),), (), 0),
    _launch((("scalar", "_np.float32", "a", None, ("_dtype_T",)),),
            (("or", ("and", (">", "a", 0), ("not", ("<", "b", 0))), ("backend", "cuda")),)),
    ("gemm", 0, 0, 0, (("max", "a", 1), ("min", "b", 2), 3, True, False, 0, 0, 0, 0, 1, 0, 0, 0),
     (("attr", "_dtype_T", "float64"),)),
)


@pytest.fixture(scope="module")
def toy() -> native_plan.NativePlan:
    return native_plan.load(drivergen.translation_unit([TOY]), "toy").plan("Toy")


@pytest.mark.parametrize("a, b", [(7, 2), (-7, 2), (7, -2), (-7, -2), (0, -3), (-(2**63), 3), (2**63 - 1, -1)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("backend", ["cpu", "cuda"])
def test_floor_division_modulo_and_conditions_as_python(toy: native_plan.NativePlan, a: int, b: int, dtype: str,
                                                        backend: str) -> None:
    values = (a, b, dtype)
    python = TOY.record(backend, values)
    _same(toy.record(backend, values), python)
    assert python.steps[0].args[1:4] == (a // b, a % b, -(-a // b))


def test_floats_where_python_takes_them(toy: native_plan.NativePlan) -> None:
    for values in ((-7.5, 2, "float32"), (7, -0.5, "float64"), (-7, 2.5, "float32")):
        _same(toy.record("cpu", values), TOY.record("cpu", values))


@pytest.mark.parametrize("a, b, message", [
    (-(2**63), -1, "int64 overflow in -9223372036854775808 // -1"),
    (1, 0, "division by zero in 1 // 0"),
])
def test_refused_with_a_message(toy: native_plan.NativePlan, a: int, b: int, message: str) -> None:
    with pytest.raises(native_plan.NativePlanError, match="Toy: " + message.replace("-", "\\-")):
        toy.record("cpu", (a, b, "float32"))


@pytest.mark.parametrize("lanes, marked", [(2, True), (256, True), (1, False), (0, False), (257, False)])
def test_a_loop_with_lanes_marks_its_span_on_the_cpu_alone(lanes: int, marked: bool) -> None:
    plan = _toy(("repeat", "i", 2, (), (_launch((_scalar("i"),)),), (), ("+", "a", 0)))
    native = native_plan.load(drivergen.translation_unit([plan]), "toy").plan("Toy")
    for backend in ("cpu", "cuda"):
        python = plan.record(backend, (lanes, 1, "float32"))
        _same(native.record(backend, (lanes, 1, "float32")), python)
        kinds = [type(s).__name__ if not isinstance(s, Lanes) else s.count for s in python.steps]
        span = marked and backend == "cpu"
        assert kinds == ([lanes] if span else []) + ["Launch", "Launch"] + ([0] if span else [])


def test_an_overflowing_expression_is_refused() -> None:
    plan = _toy(("repeat", "i", 1, (("p", ("*", "a", "b")),), (_launch((_scalar("p"),)),), (), 0))
    native = native_plan.load(drivergen.translation_unit([plan]), "toy").plan("Toy")
    assert native.record("cpu", (2**40, 2**20, "float32")) == plan.record("cpu", (2**40, 2**20, "float32"))
    with pytest.raises(native_plan.NativePlanError, match=r"Toy: int64 overflow in 1099511627776 \* 8388608"):
        native.record("cpu", (2**40, 2**23, "float32"))
    with pytest.raises(native_plan.NativePlanError, match=r"Toy: a = 9223372036854775808 does not fit an int64"):
        native.record("cpu", (2**63, 1, "float32"))


def test_an_int32_argument_out_of_range_is_refused() -> None:
    plan = _toy(_launch((("scalar", "_np.int32", "a", None, ()),)))
    native = native_plan.load(drivergen.translation_unit([plan]), "toy").plan("Toy")
    assert native.record("cpu", (2**31 - 1, 0, "float32")).steps[0].args == (np.int32(2**31 - 1),)
    with pytest.raises(native_plan.NativePlanError, match="Toy: scalar 'a' = 2147483648 does not fit an int32"):
        native.record("cpu", (2**31, 0, "float32"))


def test_a_step_buffer_too_small_is_refused(toy: native_plan.NativePlan) -> None:
    values = (7, 2, "float32")
    with pytest.raises(native_plan.NativePlanError, match="the step buffer of 8 words is too small") as info:
        toy.record_into("cpu", values, 8)
    assert info.value.code == native_plan.E_BUFFER
    assert toy.record("cpu", values, capacity=8) == TOY.record("cpu", values)  # record grows it


def test_a_dtype_without_an_entry_point_is_refused(toy: native_plan.NativePlan) -> None:
    with pytest.raises(native_plan.NativePlanError, match="Toy: kernel 'k' has no entry point for the dtypes of "
                                                          "_dtype_T"):
        toy.record("cpu", (7, 2, "float16"))


def test_numpy_scalars_are_taken_and_a_value_without_a_native_form_refused(toy: native_plan.NativePlan) -> None:
    values = (np.int64(-7), np.bool_(True), "float64")
    assert toy.record("cpu", values) == TOY.record("cpu", values)  # (a GEMM size: Python's min keeps np.True_)
    with pytest.raises(native_plan.NativePlanError, match=r"Toy: b = \{\} \(dict\) has no native form"):
        toy.record("cpu", (1, {}, "float32"))


def test_a_c_caller_without_a_backend_is_refused(toy: native_plan.NativePlan) -> None:
    """The C interface itself (the next slices' callers are C): a null backend is an error code and a message."""
    import ctypes

    lib = native_plan.load(drivergen.translation_unit([TOY]), "toy").lib
    words, used, variant = (ctypes.c_int64 * 64)(), ctypes.c_int64(0), ctypes.c_int64(0)
    err = ctypes.create_string_buffer(128)
    code = lib.opgen_plan_Toy(None, 3, None, words, 64, ctypes.byref(used), ctypes.byref(variant), err, 128)
    assert (code, err.value) == (1, b"Toy: no backend named")
