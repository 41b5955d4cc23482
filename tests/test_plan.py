"""The launch plan at run time as data (codegen/runtime/plan.py, written by codegen/plan_data.py).

The printed loop in each wrapper is an independent rendering of the same lowered plan: every op
runs its derived cases both ways, with poisoned outputs, and must give bit-identical results and
the same launches. Then the recording: replayed on equal sizes and attrs, re-recorded on any
change, bounded, and bound to each call's own buffers."""

from __future__ import annotations

import contextlib
import random
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from codegen import plan_data, shapes
from codegen.inputs import derive_cases
from codegen.load import load_specs
from codegen.runtime import plan
from codegen.runtime.backend import Backend
from codegen.runtime.launches import record_launches, watch
from codegen.runtime.settings import PLAN, SettingError
from codegen.warmup import generated_ops
from generated import Scope, fused_batch_norm_grad_v3
from generated.nn import fused_batch_norm_grad_v3 as fbn_module

ROOT = Path(__file__).resolve().parents[1]
SPECS = load_specs(ROOT / "specs")
KERNEL_SPECS = [op for op in SPECS if op.runtime is None]
OPS = {op.name: op for op in generated_ops()}
TOY_SYMBOLS = {"k": {(): "Toy__k"}}


@pytest.fixture(autouse=True)
def poison(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_POISON_OUTPUTS", "1")


def _host(value: Any) -> Any:
    if value is None:
        return None
    return np.array(value, copy=True)


def _run(op: Any, case: Any, mode: str, monkeypatch: pytest.MonkeyPatch,
         watch: bool = True) -> tuple[list[Any], list[Any]]:
    """The case's outputs, and its launches as record_launches sees them (`watch`: which also makes
    a recorded plan go launch by launch; else the cpu backend replays it in native batches)."""
    monkeypatch.setenv("OPGEN_PLAN", mode)
    scope = Scope("cpu")
    with (record_launches(scope.backend) if watch else contextlib.nullcontext([])) as made, \
            warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        out = op.function(*case.args, **case.kwargs, scope=scope)
    return [_host(v) for v in out], list(made)


@pytest.mark.parametrize("spec", KERNEL_SPECS, ids=lambda op: op.name)
def test_plan_as_data_equals_the_printed_loop(spec: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    op = OPS[spec.name]
    for case in derive_cases(spec, np.random.default_rng(1), SPECS.activations.names, per_key=1):
        if case.fresh:
            continue
        data, data_launches = _run(op, case, "data", monkeypatch)
        loop, loop_launches = _run(op, case, "loop", monkeypatch)
        native = _run(op, case, "data", monkeypatch, watch=False)[0]  # the cpu backend's native replay
        assert data_launches == loop_launches, case.label
        for a, b, c in zip(data, loop, native, strict=True):
            if a is None or b is None or c is None:
                assert a is None and b is None and c is None, case.label
            else:
                assert a.dtype == b.dtype == c.dtype and a.shape == b.shape == c.shape, case.label
                assert a.tobytes() == b.tobytes() == c.tobytes(), case.label  # bit for bit, NaN poison included


def _fbn_inputs(c: int = 3, seed: int = 0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 2, 3, c)).astype(np.float32)
    dy = rng.standard_normal(x.shape).astype(np.float32)
    scale = rng.standard_normal(c).astype(np.float32)
    mean = x.mean(axis=(0, 1, 2)).astype(np.float32)
    var = (1 / np.sqrt(x.var(axis=(0, 1, 2)) + 1e-3)).astype(np.float32)
    return dy, x, scale, mean, var, np.zeros(0, np.float32)


def test_recording_is_replayed_and_bound_to_each_calls_buffers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_NATIVE", "0")  # the Python plan's recordings (the native runner keeps its own)
    p = fbn_module._PLAN
    p.recordings.clear()
    before = dict(p.stats)
    first = fused_batch_norm_grad_v3(*_fbn_inputs(seed=0), scope="cpu")
    second = fused_batch_norm_grad_v3(*_fbn_inputs(seed=1), scope="cpu")  # same sizes, new values and buffers
    assert p.stats["recorded"] == before["recorded"] + 1 and p.stats["replayed"] == before["replayed"] + 1
    again = fused_batch_norm_grad_v3(*_fbn_inputs(seed=1), scope="cpu")
    for a, b in zip(second, again, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first.x_backprop, second.x_backprop)  # fresh results, not the first call's
    assert not np.shares_memory(first.x_backprop, second.x_backprop)
    fused_batch_norm_grad_v3(*_fbn_inputs(c=5), scope="cpu")  # another size: a new recording
    assert p.stats["recorded"] == before["recorded"] + 2


def test_recordings_are_bounded_least_recently_used_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plan, "MAX_RECORDINGS", 3)
    p = plan.Plan("Toy", ("n",), ("x",), (("launch", "k", (), ("n",), (32,), 0, (("buf", 0),), ()),), TOY_SYMBOLS)
    for n in (1, 2, 3):
        p.recording("cpu", (n,))
    p.recording("cpu", (1,))  # used again: now the most recent
    p.recording("cpu", (4,))
    assert [k[1] for k in p.recordings] == [(3,), (1,), (4,)]
    assert p.recording("cuda", (4,)) is not p.recording("cpu", (4,))  # keyed by backend too


def test_conditions_loops_and_lets_are_recorded_as_the_loop_runs_them() -> None:
    steps = (("repeat", "s", "steps", (("t", ("+", "s", ("*", "d", ("-", ("-", "steps", 1), ("*", 2, "s"))))),),
              (("launch", "step", ("dt",), (("ceildiv", "n", 4),), (("max", 32, "n"),), 0,
                (("buf", 1), ("scalar", "_np.int64", "t", None, ()),
                 ("scalar", "_np.float32", "eps", None, ("dt",))), (("!=", "t", 1),)),
               ("gemm", 0, 1, 1, ("n", "n", "n", False, True, 0, ("*", "t", "n"), 0, 0), (("backend", "cpu"),))),
              (("attr", "train", True),), 0),)
    p = plan.Plan("Toy", ("steps", "d", "n", "dt", "eps", "train"), ("a", "b"), steps,
                  {"step": {("float32",): "K__step__float32", ("float64",): "K__step__float64"}})
    rec = p.record("cpu", (3, 1, 10, "float64", 0.5, True))
    launched = [s for s in rec.steps if isinstance(s, plan.Launch)]
    assert [int(s.args[1]) for s in launched] == [2, 0]  # t = 2, 1, 0; t == 1 skipped
    assert all(s.symbol == "K__step__float64" and s.grid == (3,) and s.block == (32,) for s in launched)
    assert all(type(s.args[2]) is np.float64 for s in launched)  # a float64 specialization: unrounded
    gemms = [s for s in rec.steps if isinstance(s, plan.Gemm)]
    assert [g.sizes[6] for g in gemms] == [20, 10, 0]
    assert p.record("cuda", (3, 1, 10, "float32", 0.5, True)).launches == 2  # the gemms are cpu-only
    assert p.record("cpu", (3, 1, 10, "float32", 0.5, False)).steps == ()


def _random_expr(rng: random.Random, depth: int = 0) -> shapes.Expr:
    if depth > 3 or rng.random() < 0.3:
        return shapes.Num(rng.randint(0, 9)) if rng.random() < 0.5 else shapes.Sym(rng.choice("abc"))
    kind = rng.random()
    if kind < 0.1:
        return shapes.Neg(_random_expr(rng, depth + 1))
    if kind < 0.25:
        args = (_random_expr(rng, depth + 1), _random_expr(rng, depth + 1))
        return shapes.Call(rng.choice(["min", "max", "ceildiv"]), args)
    op = rng.choice(["+", "-", "*", "//", "%", "<", ">=", "=="])
    return shapes.BinOp(op, _random_expr(rng, depth + 1), _random_expr(rng, depth + 1))


def test_expression_literals_evaluate_as_the_printed_python() -> None:
    rng = random.Random(7)
    checked = 0
    for _ in range(2000):
        e = _random_expr(rng)
        env = {"a": rng.randint(-5, 20), "b": rng.randint(1, 7), "c": rng.randint(-3, 3)}
        try:
            expected = eval(shapes.to_python(e), {}, dict(env))
        except ZeroDivisionError:
            with pytest.raises(ZeroDivisionError):
                plan.evaluate(plan_data.expression_literal(e), env)
            continue
        assert plan.evaluate(plan_data.expression_literal(e), env) == expected, shapes.to_text(e)
        checked += 1
    assert checked > 1000


def test_the_setting_takes_data_or_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_PLAN", "loop")
    assert not plan.plan_as_data()
    monkeypatch.setenv("OPGEN_PLAN", "Data")
    assert plan.plan_as_data()
    monkeypatch.setenv("OPGEN_PLAN", "fast")
    with pytest.raises(SettingError, match="OPGEN_PLAN='fast': expected data or loop"):
        PLAN.get()


def test_a_plan_given_the_wrong_values_says_so() -> None:
    p = plan.Plan("Toy", ("n",), (), (), {})
    with pytest.raises(plan.PlanError, match="Toy: the plan reads 1 names, the call gave 2"):
        p.record("cpu", (1, 2))
    p = plan.Plan("Toy", ("dt",), ("x",), (("launch", "k", ("dt",), (1,), (32,), 0, (("buf", 0),), ()),),
                  {"k": {("float32",): "Toy__k__float32"}})
    assert p.record("cpu", ("float32",)).steps[0].symbol == "Toy__k__float32"  # looked up, never built
    with pytest.raises(plan.PlanError, match=r"Toy: kernel 'k' has no entry point for dtypes \('int8',\)"):
        p.record("cpu", ("int8",))


class _StandIn(Backend):
    """A backend declared by subclassing the protocol: no replay or capture of its own (the
    protocol's defaults), every launch and GEMM noted."""

    name = "cpu"

    def __init__(self) -> None:
        self.seen: list[str] = []

    def adopt(self, op: str, arg: str, value: Any) -> Any:
        return value

    def empty(self, shape: Any, dtype: str) -> Any:
        return np.empty(shape, dtype)

    def pointer_array(self, arrays: Any) -> Any:
        return np.zeros(len(arrays), np.uint64)

    def launch(self, source: Any, symbol: str, grid: Any, block: Any, args: Any, shared_mem: int = 0) -> None:
        self.seen.append(symbol)

    def gemm(self, *args: Any) -> None:
        self.seen.append("gemm")

    def flush(self) -> None:
        pass



class _Replaying(_StandIn):
    def replay(self, source: Any, recording: Any, buffers: Any) -> bool:
        return True


def test_run_plan_takes_what_the_backend_declares() -> None:
    """run_plan asks the Backend protocol, never probes: the defaults (no replay, nothing held)
    launch step by step; a backend that replays is not launched step by step unless it is declared
    watched, and then every launch goes through the watcher."""
    p = plan.Plan("Toy", ("n",), ("x",), (("launch", "k", (), ("n",), (32,), 0, (("buf", 0),), ()),
                                          ("gemm", 0, 0, 0, (1, 1, 1, False, False, 0, 0, 0, 0), ())), TOY_SYMBOLS)
    x = np.zeros(4, np.float32)
    plain = _StandIn()
    plan.run_plan(plain, None, p, (2,), (x,))
    assert plain.seen == ["Toy__k", "gemm"]
    replaying = _Replaying()
    plan.run_plan(replaying, None, p, (2,), (x,))
    assert replaying.seen == []  # replayed: no launch by launch
    seen: list[str] = []
    with watch(replaying, lambda src, sym, *a: seen.append(sym)):
        plan.run_plan(replaying, None, p, (2,), (x,))
    assert seen == ["Toy__k"] and replaying.seen == ["gemm"]
    plan.run_plan(replaying, None, p, (2,), (x,))
    assert seen == ["Toy__k"] and not replaying.watched  # the watcher gone: replayed again


def test_run_plan_probes_no_backend() -> None:
    """The seams are declared (codegen/runtime/backend.py): the runtime's plan module looks up no
    backend attribute by name and compares no bound methods."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(plan))
    probes = [n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
              and n.func.id in ("getattr", "hasattr")]
    methods = [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "__func__"]
    assert probes == [] and methods == []
