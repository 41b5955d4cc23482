"""The generated wrappers through their native drivers (codegen/runtime/native_driver.py) against
the same wrappers on their Python path (OPGEN_NATIVE=0, the reference), as a user calls them: the
parity cases (scripts/gpu_parity.py) on the cpu give bit-identical outputs (poisoned before the
call) and are served by the driver, not handed back; bad inputs and attrs raise the same exception
type with the same message on both paths. Each op's smallest cases and its misaligned ones run here
(every case at GPU sizes would take minutes on the emulation): the plan's runtime is held to the
Python plan on every case by tests/test_native_exec.py, the checks by tests/test_native_checks.py."""

from __future__ import annotations

import inspect
import runpy
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from codegen.runtime import native_driver, native_front
from codegen.warmup import generated_ops

PROJECT = Path(__file__).resolve().parent.parent
OPS = [op for op in generated_ops() if getattr(op.module, "_NATIVE", None) is not None]


@pytest.fixture(scope="module")
def cases() -> dict[str, list[Any]]:
    parity = runpy.run_path(str(PROJECT / "scripts" / "gpu_parity.py"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # GRUBlockCell's deprecation
        found: dict[str, list[Any]] = {}
        for op, case in parity["all_cases"](OPS):
            found.setdefault(op.name, []).append(case)
    return {name: _chosen(found[name]) for name in found}


def _size(case: Any) -> int:
    values = [*case.args, *case.kwargs.values()]
    return sum(v.size for v in values if isinstance(v, np.ndarray))


def _chosen(cases: list[Any], smallest: int = 4) -> list[Any]:
    """The smallest cases, and every case whose label says it is misaligned (a fallback path)."""
    ordered = sorted(cases, key=_size)
    return ordered[:smallest] + [c for c in ordered[smallest:] if "misaligned" in c.label][:2]


def _run(op: Any, case: Any, monkeypatch: pytest.MonkeyPatch, native: bool) -> Any:
    monkeypatch.setenv("OPGEN_NATIVE", "1" if native else "0")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            return op.function(*case.args, **case.kwargs, scope="cpu")
        except Exception as e:  # noqa: BLE001  (compared below: the same on both paths)
            return e


def _same(native: Any, python: Any, exact: bool = True) -> None:
    """The same exception, or outputs of the same types, dtypes, shapes and bits (device arrays read
    back; `exact` False: to a tolerance, where the two paths' GEMM arithmetic differs)."""
    if isinstance(python, Exception):
        assert type(native) is type(python) and str(native) == str(python)
        return
    assert not isinstance(native, Exception), native
    assert type(native) is type(python)
    for name, a, b in zip(python._fields, native, python, strict=True):
        assert type(a) is type(b) and a.dtype == b.dtype and a.shape == b.shape, name
        if exact:
            assert np.asarray(a).tobytes() == np.asarray(b).tobytes(), f"output {name} differs"
        else:
            np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=2e-3, atol=2e-3,
                                       err_msg=name)


def test_every_kernel_op_has_a_driver() -> None:
    assert {op.name for op in OPS} >= {"LayerNorm", "Softmax", "BiasAdd", "FusedBatchNormGradV3", "CudnnRNNV3"}


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_parity_cases_bit_identical_and_served_natively(op: Any, cases: dict[str, list[Any]],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_POISON_OUTPUTS", "1")
    driver = op.module._NATIVE
    for case in cases[op.name]:
        python = _run(op, case, monkeypatch, native=False)
        before = driver.served
        native = _run(op, case, monkeypatch, native=True)
        _same(native, python)
        if not isinstance(python, Exception) and not _python_only(op, case):
            why = native_front.extension().last_fallback()
            assert driver.served == before + 1, f"{op.name} {case.label}: handed back to Python ({why})"


def _python_only(op: Any, case: Any) -> bool:
    """Calls the front-end hands to Python by design: an input it cannot pass as it is (a strided
    or misaligned view: the Python path copies it), an `accepts_dtypes` input in its other dtype."""
    values = [*case.args, *case.kwargs.values()]
    arrays = [v for v in values if isinstance(v, np.ndarray)]
    arrays += [x for v in values if isinstance(v, (list, tuple)) for x in v if isinstance(x, np.ndarray)]
    if any(not (a.flags.c_contiguous and a.flags.aligned and a.dtype.isnative) for a in arrays):
        return True
    if op.name == "DmlRnn" and any(a.dtype.kind in "iu" for a in arrays):
        return True
    # a float16/bfloat16 GEMM step: NumPy's matmul runs it (native_cpu.py); an activation instance
    # (the front-end cannot tell this package's Activation class from another's)
    gemm_16 = op.name.startswith(("CudnnRNN", "GRUBlockCell", "DmlRnn")) and any(
        a.dtype.name in ("float16", "bfloat16") for a in arrays)
    flat = [x for v in values for x in (v if isinstance(v, (list, tuple)) else [v])]
    return gemm_16 or any(hasattr(x, "kernel_args") for x in flat)


def _bad_variants(op: Any, case: Any) -> list[tuple[str, tuple[Any, ...], dict[str, Any]]]:
    """A bad dtype and a bad rank for each array argument, a bad value for each attr."""
    bound = inspect.signature(op.function).bind(*case.args, **case.kwargs)
    out: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
    for name, value in bound.arguments.items():
        if isinstance(value, np.ndarray):
            for label, bad in (("dtype", value.astype(np.int16)), ("rank", value[None])):
                args = dict(bound.arguments)
                args[name] = bad
                out.append((f"{name} {label}", (), args))
    for param in inspect.signature(op.function).parameters.values():
        if param.kind is param.KEYWORD_ONLY and param.name != "scope":
            for bad in (-7, "bogus", 1e300, None, True):
                args = dict(bound.arguments)
                args[param.name] = bad
                out.append((f"{param.name}={bad!r}", (), args))
    return out


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_errors_are_the_wrappers(op: Any, cases: dict[str, list[Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    case = min(cases[op.name], key=lambda c: sum(a.size for a in c.args if isinstance(a, np.ndarray)))
    compared = 0
    for label, args, kwargs in _bad_variants(op, case):
        bad = case._replace(label=label, args=args, kwargs=kwargs)
        python = _run(op, bad, monkeypatch, native=False)
        native = _run(op, bad, monkeypatch, native=True)
        _same(native, python)
        compared += isinstance(python, Exception)
    assert compared >= 3, f"{op.name}: too few bad variants raised ({compared})"


def test_a_numpy_call_reaches_the_driver_before_other_python(monkeypatch: pytest.MonkeyPatch) -> None:
    # (the generated function asks the driver first: no torch test, no _run or _compute frame, on a
    # plain call)
    import generated.norm.layer_norm as module

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a plain NumPy call ran Python the driver makes needless")

    rng = np.random.default_rng(0)
    x, gamma = rng.standard_normal((3, 8), dtype=np.float32), rng.standard_normal(8, dtype=np.float32)
    monkeypatch.setenv("OPGEN_NATIVE", "0")
    expected = module.layer_norm(x, gamma, scope="cpu")
    monkeypatch.setenv("OPGEN_NATIVE", "1")
    module.layer_norm(x, gamma, scope="cpu")  # (built and bound before the Python around it is taken away)
    before = module._NATIVE.served
    with monkeypatch.context() as patched:
        patched.setattr(module._rt, "torch_call", never)
        patched.setattr(module, "_compute", never)
        patched.setattr(module, "_run", never)
        got = module.layer_norm(x, gamma, scope="cpu")
    assert module._NATIVE.served == before + 1 and type(got) is module.LayerNormOutputs
    _same(got, expected)
    # handed back (a strided view the driver cannot take): the Python path answers, as before
    strided = np.repeat(x, 2, axis=1)[:, ::2]
    _same(module.layer_norm(strided, gamma, scope="cpu"), expected)
    assert module._NATIVE.served == before + 1
    torch = pytest.importorskip("torch")  # a torch tensor first: the torch path, as before
    out = module.layer_norm(torch.from_numpy(x), torch.from_numpy(gamma), scope="cpu")
    assert isinstance(out.y, torch.Tensor)
    np.testing.assert_array_equal(out.y.numpy(), expected.y)


def test_a_settings_change_between_calls_takes_the_next_call(monkeypatch: pytest.MonkeyPatch) -> None:
    # (the driver keeps its last native cpu call's route until os.environ or a switch changes:
    # each change below must reach the very next call, both ways)
    import generated.norm.softmax as module
    from codegen.runtime.host import switches

    x = np.random.default_rng(1).standard_normal((2, 8), dtype=np.float32)
    monkeypatch.setenv("OPGEN_NATIVE", "1")
    expected = module.softmax(x, scope="cpu")
    driver = module._NATIVE

    def served(**env: str) -> bool:
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        before = driver.served
        _same(module.softmax(x, scope="cpu"), expected)
        return driver.served == before + 1

    assert served() and served()  # (the route kept)
    assert not served(OPGEN_NATIVE="0") and not served()
    assert served(OPGEN_NATIVE="1") and served()
    assert not served(OPGEN_NO_REPLAY="1") and served(OPGEN_NO_REPLAY="0")
    monkeypatch.delenv("OPGEN_NATIVE")  # (unset: on)
    assert served() and served()
    switches.set_sanitize(True)  # (a switch, not the environment: the sanitize build takes every launch)
    try:
        assert not served()
    finally:
        switches.set_sanitize(None)
    assert served()
    # where writes are not counted (settings.environ_version() None) the settings are read at each call
    monkeypatch.setattr(native_driver, "environ_version", lambda: None)
    assert served() and not served(OPGEN_NATIVE="0") and served(OPGEN_NATIVE="1")
