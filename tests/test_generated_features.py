"""Spec features the batch-norm ops do not use, proven end to end on a test op (ScaledSum in
tests/fixtures/): list inputs passed to a kernel as a pointer array, optional inputs, required
attrs, int attrs in shapes, where-constraints with conditions, list(int) and type attrs, a
deprecation message, and a user's own template folder. The op is generated into a temporary
package and run on the cpu backend against NumPy."""

from __future__ import annotations

import warnings
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def ops(fixture_package: ModuleType) -> ModuleType:
    return fixture_package


pytestmark = pytest.mark.usefixtures("opgen_poison")  # (opgen's pytest plugin) an element no kernel writes is NaN


def call(ops: ModuleType, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return ops.scaled_sum(*args, scope=ops.Scope("cpu"), **kwargs)


def arrays(rng: np.random.Generator, k: int, b: int, i: int, dtype=np.float32) -> list[np.ndarray]:
    return [rng.standard_normal((b, i)).astype(dtype) for _ in range(k)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("k", [1, 3])
def test_list_input_reaches_the_kernel(ops: ModuleType, dtype: type, k: int) -> None:
    rng = np.random.default_rng(k)
    xs, scale = arrays(rng, k, 5, 7, dtype), rng.standard_normal(5).astype(dtype)
    out = call(ops, xs, scale, width=7, alpha=0.5)
    expected = 0.5 * scale.astype(np.float64)[:, None] * np.sum([x.astype(np.float64) for x in xs], axis=0)
    np.testing.assert_allclose(out.y, expected, rtol=1e-5, atol=1e-6)
    assert out.y.dtype == dtype
    assert out.count.tolist() == [k]


def test_optional_input_and_condition(ops: ModuleType) -> None:
    rng = np.random.default_rng(1)
    xs, scale, bias = arrays(rng, 2, 3, 4), rng.standard_normal(3).astype(np.float32), np.arange(4, dtype=np.float32)
    plain = call(ops, xs, scale, bias, width=4)  # mode plain: the bias step does not run
    checked = call(ops, xs, scale, bias, width=4, mode="checked")
    np.testing.assert_allclose(checked.y - plain.y, np.broadcast_to(bias, (3, 4)), rtol=1e-5, atol=1e-5)


def test_deprecation_warns_with_the_spec_message(ops: ModuleType) -> None:
    rng = np.random.default_rng(2)
    with pytest.warns(DeprecationWarning, match="ScaledSum is deprecated: Use ScaledSumV2."):
        ops.scaled_sum(arrays(rng, 1, 2, 3), np.ones(2, np.float32), width=3, scope=ops.Scope("cpu"))


def test_create_takes_required_attrs_positionally(ops: ModuleType) -> None:
    rng = np.random.default_rng(3)
    xs = arrays(rng, 2, 2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        op = ops.ScaledSum.create(ops.Scope("cpu"), xs, np.ones(2, np.float32), None, 3,
                                  ops.ScaledSum.alpha(2.0), ops.ScaledSum.Options().mode("checked").repeat([2, 3]))
    np.testing.assert_allclose(op.y, 2.0 * (xs[0] + xs[1]), rtol=1e-6)
    assert "mode='checked'" in repr(ops.ScaledSum.Options().mode("checked"))


def test_list_elements_are_checked_one_by_one(ops: ModuleType) -> None:
    rng = np.random.default_rng(4)
    xs = arrays(rng, 3, 2, 3)
    with pytest.raises(ValueError, match=r"ScaledSum: xs\[2\]: expected shape \[B=2, width=3\].*got \[2, 4\]"):
        call(ops, [*xs[:2], np.zeros((2, 4), np.float32)], np.ones(2, np.float32), width=3)
    with pytest.raises(TypeError, match=r"ScaledSum: xs\[1\]: expected dtype float32 \(T, as xs\[0\]\), got float64"):
        call(ops, [xs[0], xs[1].astype(np.float64)], np.ones(2, np.float32), width=3)
    with pytest.raises(ValueError, match="ScaledSum: xs: expected a non-empty list of arrays"):
        call(ops, [], np.ones(2, np.float32), width=3)
    with pytest.raises(TypeError, match="ScaledSum: xs: expected a list of arrays, got ndarray"):
        call(ops, xs[0], np.ones(2, np.float32), width=3)


def test_int_attr_is_a_shape_symbol(ops: ModuleType) -> None:
    xs = arrays(np.random.default_rng(5), 1, 2, 3)
    with pytest.raises(ValueError, match=r"ScaledSum: xs\[0\]: expected shape \[B=2, width=4\].*got \[2, 3\]"):
        call(ops, xs, np.ones(2, np.float32), width=4)
    with pytest.raises(ValueError, match=r"ScaledSum: attr width: expected a value >= 1, got 0"):
        call(ops, xs, np.ones(2, np.float32), width=0)


def test_optional_input_is_checked_when_given(ops: ModuleType) -> None:
    xs = arrays(np.random.default_rng(6), 1, 2, 3)
    with pytest.raises(ValueError, match=r"ScaledSum: bias: expected shape \[width=3\], got \[4\]"):
        call(ops, xs, np.ones(2, np.float32), np.ones(4, np.float32), width=3)


def test_where_constraint_only_when_its_condition_holds(ops: ModuleType) -> None:
    xs = arrays(np.random.default_rng(7), 1, 65, 64)  # 4160 elements
    call(ops, xs, np.ones(65, np.float32), width=64)  # plain mode: no limit
    with pytest.raises(ValueError, match=r"ScaledSum: requires total <= 4096 \(with total=4160\): at most 4096"):
        call(ops, xs, np.ones(65, np.float32), width=64, mode="checked")


@pytest.mark.parametrize(("kwargs", "error", "pattern"), [
    ({"repeat": [1, 0]}, ValueError, r"attr repeat\[1\]: expected a value >= 1, got 0"),
    ({"repeat": 3}, TypeError, r"attr repeat: expected a list of ints, got int 3"),
    ({"out_type": "int8"}, ValueError, r"attr out_type: expected one of \['float32', 'float64'\], got 'int8'"),
    ({"out_type": np.float64}, None, None),
    ({"mode": "fast"}, ValueError, r"attr mode: expected one of plain, checked, got 'fast'"),
    ({"alpha": "2"}, TypeError, r"attr alpha: expected a float, got str '2'"),
])
def test_attr_kinds(ops: ModuleType, kwargs: dict, error: type | None, pattern: str | None) -> None:
    xs = arrays(np.random.default_rng(8), 1, 2, 3)
    if error is None:
        call(ops, xs, np.ones(2, np.float32), width=3, **kwargs)
        return
    with pytest.raises(error, match="ScaledSum: " + pattern):
        call(ops, xs, np.ones(2, np.float32), width=3, **kwargs)


def tiny_rnn_reference(x: np.ndarray, w: np.ndarray, r: np.ndarray) -> np.ndarray:
    x, w, r = (a.astype(np.float64) for a in (x, w, r))
    steps, batch, _ = x.shape
    dirs, hidden, _ = w.shape
    y = np.zeros((steps, dirs, batch, hidden))
    for d in range(dirs):
        h = np.zeros((batch, hidden))
        for t in (range(steps) if d == 0 else reversed(range(steps))):
            h = np.tanh(x[t] @ w[d].T + h @ r[d].T)
            y[t, d] = h
    return y


@pytest.mark.parametrize("dirs", [1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nested_repeat_steps_run_a_recurrence(ops: ModuleType, dirs: int, dtype: type) -> None:
    rng = np.random.default_rng(dirs)
    steps, batch, n_in, hidden = 5, 3, 4, 6
    x = rng.standard_normal((steps, batch, n_in)).astype(dtype)
    w = (rng.standard_normal((dirs, hidden, n_in)) * 0.5).astype(dtype)
    r = (rng.standard_normal((dirs, hidden, hidden)) * 0.5).astype(dtype)
    y = ops.tiny_rnn(x, w, r, scope=ops.Scope("cpu")).y
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(y, tiny_rnn_reference(x, w, r), rtol=rtol, atol=rtol)


def test_repeat_steps_on_the_reference_page(ops: ModuleType) -> None:
    page = (Path(ops.__file__).parent / "docs" / "demo" / "tiny_rnn.md").read_text(encoding="utf-8")
    assert "| repeat | always | | | for d in 0 … dirs − 1 |" in page
    assert "| ↳ repeat | always | | | for s in 0 … steps − 1; t = s + d*(steps - 1 - 2*s) |" in page
    assert "| ↳ ↳ `step` |" in page


@pytest.mark.parametrize(("backend_name", "threads"), [("cpu", 32), ("cuda", 128)])
def test_let_switched_by_backend(ops: ModuleType, monkeypatch: pytest.MonkeyPatch, backend_name: str,
                                 threads: int) -> None:
    scope = ops.Scope("cpu")
    backend, launch = scope.backend, scope.backend.launch
    blocks: list[tuple[int, ...]] = []

    def recording_launch(source, symbol, grid, block, args, shared=0):  # type: ignore[no-untyped-def]
        if symbol.startswith("TinyRnn__step"):
            blocks.append(tuple(block))
        return launch(source, symbol, grid, block, args, shared)

    monkeypatch.setattr(backend, "launch", recording_launch)
    monkeypatch.setattr(backend, "watched", True)
    monkeypatch.setattr(backend, "name", backend_name)  # the wrapper reads the backend's name
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 2, 2))
    w, r = rng.standard_normal((1, 4, 2)) * 0.5, rng.standard_normal((1, 4, 4)) * 0.5
    y = ops.tiny_rnn(x, w, r, scope=scope).y
    np.testing.assert_allclose(y, tiny_rnn_reference(x, w, r), rtol=1e-12, atol=1e-12)
    assert blocks == [(threads,)] * 3
