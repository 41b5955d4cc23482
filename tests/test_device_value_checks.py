"""`values: {..., on_device: true}` (codegen/runtime/device_value_checks.py): on the cuda backend
a kernel checks an input's bounds and a later call, or Scope.synchronize(), raises the error; no
copy to the host inside the call. On the stand-in CuPy (tests/fake_cupy.py), whose kernels run on
the host emulation, with a knob that keeps events unfinished (a GPU still busy)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import fake_cupy
import numpy as np
import pytest

from codegen.runtime import device_value_checks
from codegen.runtime.device_value_checks import BLOCK, MAX_PENDING, kernel_source
from codegen.runtime.scope import Scope

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    return fake_cupy.install(monkeypatch, tmp_path, fake_cupy.FakeCublasLibrary())  # (cuBLAS as a GPU gets it)


def _cp() -> Any:
    return sys.modules["cupy"]


def _first_bad(fake: Any, values: np.ndarray, lo: int, hi: int) -> int:
    """The check kernel's answer for `values` on the fake's device (the host emulation)."""
    cp, backend = _cp(), fake.backend
    flat = cp.asarray(values.reshape(-1))
    out = backend.empty([1], "int64")
    backend.launch(kernel_source(), f"opgen_value_check__{values.dtype}", (1,), (BLOCK,),
                   (flat, np.int64(flat.size), np.int64(lo), np.int64(hi), out))
    return int(out.get()[0])


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint32"])
def test_the_kernel_finds_the_first_element_outside_the_bounds(fake: Any, dtype: str) -> None:
    rng = np.random.default_rng(1)
    for n in (1, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 17):
        values = rng.integers(1, 51, n).astype(dtype)
        assert _first_bad(fake, values, 1, 50) == n, "every value within: n"
        for bad in sorted({0, n // 3, n - 1}):
            for wrong in (0, 51):
                v = values.copy()
                v[bad] = wrong
                v[-1] = 99 if bad != n - 1 else v[-1]  # a later offender does not hide the first
                assert _first_bad(fake, v, 1, 50) == bad, (n, bad, wrong)
    if dtype == "int64":
        values = np.array([5, -(2**40), 2**40], np.int64)
        assert _first_bad(fake, values, 0, 10) == 1
        assert _first_bad(fake, values, -(2**41), 2**41) == 3  # 64-bit bounds, 64-bit values


def _cudnn_args(lengths: np.ndarray) -> tuple[list[Any], dict[str, Any]]:
    rng = np.random.default_rng(4)
    steps, batch, n_in, units = 5, len(lengths), 3, 4
    from opgen_ops.cudnn_rnn import params_layout

    size = params_layout("gru", 1, units, n_in, "unidirectional", "linear_input", 0).size
    cp = _cp()
    args = [cp.asarray(rng.standard_normal((steps, batch, n_in)).astype(np.float32)),
            cp.asarray(rng.standard_normal((1, batch, units)).astype(np.float32)),
            cp.asarray(np.zeros(0, np.float32)), cp.asarray(rng.uniform(-0.5, 0.5, size).astype(np.float32)),
            cp.asarray(lengths.astype(np.int32))]
    return args, {"rnn_mode": "gru"}


def _call(lengths: np.ndarray) -> Any:
    from generated import cudnn_rnn_v3

    args, attrs = _cudnn_args(lengths)
    return cudnn_rnn_v3(*args, scope=Scope("cuda"), **attrs)


def test_a_bad_length_is_raised_by_the_next_call_with_no_host_copy_in_either(fake: Any) -> None:
    state = fake_cupy.state()
    _call(np.array([5, 4, 3], np.int32))  # (the first call: cuBLAS's self-check copies)
    copies = len(state.host_copies)
    _call(np.array([5, 0, 3], np.int32))  # 0: outside [1, steps]; the call runs (kernels stay in bounds)
    # (the earlier call's finished check is read: 8 bytes, on the checks' own stream, never the caller's)
    caller = _cp().cuda.get_current_stream().ptr
    assert caller not in state.host_copies[copies:], "nothing copied back on the caller's stream"
    assert len(state.host_copies) - copies <= 1
    with pytest.raises(ValueError, match=r"^CudnnRNNV3: sequence_lengths: expected every value in \[1, steps=5\], "
                                         r"got 0 at index \[1\] \(found by the check on the device, after the call "
                                         r"that received it returned\)$"):
        _call(np.array([5, 4, 3], np.int32))
    _call(np.array([5, 4, 3], np.int32))  # reported once: the next calls are clean
    Scope("cuda").synchronize()


def test_while_the_gpu_is_busy_the_error_waits_for_synchronize(fake: Any) -> None:
    state = fake_cupy.state()
    state.gpu_behind = True
    _call(np.array([6, 1, 1], np.int32))  # 6 > steps
    _call(np.array([1, 1, 1], np.int32))  # the check has not finished: nothing to say yet
    with pytest.raises(ValueError, match=r"got 6 at index \[0\]"):
        Scope("cuda").synchronize()
    Scope("cuda").synchronize()  # the good call's check: clean


def test_checks_in_flight_are_bounded(fake: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past MAX_PENDING unfinished checks, a call waits for the oldest (and reports it if bad)."""
    monkeypatch.setattr(device_value_checks, "MAX_PENDING", 3)
    fake_cupy.state().gpu_behind = True
    pending = fake.backend._value_checks._pending
    for _ in range(5):
        _call(np.array([1, 2, 3], np.int32))
        assert len(pending) <= 3
    _call(np.array([9, 2, 3], np.int32))
    for _ in range(2):
        _call(np.array([1, 2, 3], np.int32))
    with pytest.raises(ValueError, match="got 9 at index"):  # the bad one became the oldest
        _call(np.array([1, 2, 3], np.int32))
    assert MAX_PENDING == 64  # (the documented bound)


def test_inside_a_users_capture_nothing_is_checked_or_left_pending(fake: Any) -> None:
    cp = _cp()
    args, attrs = _cudnn_args(np.array([0, 9, 2], np.int32))
    from generated import cudnn_rnn_v3

    good, _ = _cudnn_args(np.array([1, 2, 3], np.int32))
    cudnn_rnn_v3(*good, scope=Scope("cuda"), **attrs)  # (outside: cuBLAS's self-check)
    Scope("cuda").synchronize()
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        cudnn_rnn_v3(*args, scope=Scope("cuda"), **attrs)
        stream.end_capture()
    assert not fake.backend._value_checks._pending
    Scope("cuda").synchronize()


def test_dml_rnn_lengths_of_every_accepted_dtype_are_checked_on_the_device(fake: Any) -> None:
    from generated import dml_rnn

    cp, rng = _cp(), np.random.default_rng(2)
    x = cp.asarray(rng.standard_normal((1, 3, 2, 4)).astype(np.float32))
    w = cp.asarray(rng.standard_normal((1, 1, 5, 4)).astype(np.float32))
    r = cp.asarray(rng.standard_normal((1, 1, 5, 5)).astype(np.float32))
    for dtype, bad in (("int32", -1), ("int64", 2**33), ("uint32", 4)):
        lengths = cp.asarray(np.array([[[[3, bad]]]]).astype(dtype))
        dml_rnn(x, w, r, sequence_lengths=lengths, scope=Scope("cuda"))
        with pytest.raises(ValueError, match=rf"DmlRnn: sequence_lengths: expected every value in \[0, "
                                             rf"seq_length=3\], got {bad} at index \[0, 0, 0, 1\]"):
            Scope("cuda").synchronize()


def test_the_cpu_backend_still_checks_before_the_kernels() -> None:
    from generated import cudnn_rnn_v3

    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"got 0 at index \[1\]$"):
        cudnn_rnn_v3(rng.standard_normal((5, 2, 3)).astype(np.float32), np.zeros((1, 2, 4), np.float32),
                     np.zeros(0, np.float32), np.zeros(108, np.float32), np.array([5, 0], np.int32),
                     rnn_mode="gru", scope=Scope("cpu"))
    Scope("cpu").synchronize()  # nothing to wait for


def test_the_check_kernel_compiles_with_the_nvrtc_users_run(tmp_path: Path) -> None:
    """scripts/nvrtc_compile.py's NVRTC releases compile the check's module for the GPU."""
    module = tmp_path / "opgen_value_check.cu"
    module.write_text(kernel_source().text)
    report = tmp_path / "runs.json"
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "nvrtc_compile.py"), "--modules", str(module),
                           "--json", str(report)], cwd=REPO, capture_output=True, text=True, timeout=600)
    if proc.returncode == 2:
        reason = f"no NVRTC: {proc.stdout[-500:]}{proc.stderr[-500:]}"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    for run in json.loads(report.read_text()):
        assert not run["error"], run["error"]
        (compiled,) = run["modules"]
        assert compiled["ok"], compiled["log"]
        assert len(compiled["kernels"]) == 3


def test_the_spec_flag_loads_prints_and_is_checked() -> None:
    from codegen.load import load_spec
    from codegen.spec_print import print_spec
    from codegen.vocab import load_activations
    from codegen.yamlnodes import SpecError

    specs = REPO / "specs"
    path = specs / "rnn" / "cudnn_rnn_v3.yaml"
    library = load_activations(specs)
    spec = load_spec(path, specs, library)
    (lengths,) = [a for a in spec.inputs if a.name == "sequence_lengths"]
    assert lengths.values_on_device
    assert "on_device: true" in print_spec(spec)
    text = path.read_text()
    line = text[:text.index("on_device: true")].count("\n") + 1
    with pytest.raises(SpecError, match=rf"cudnn_rnn_v3.yaml:{line}: .*on_device"):
        load_spec(path, specs, library, text=text.replace("on_device: true", "on_device: maybe"))


@pytest.mark.gpu
def test_on_the_gpu_a_bad_length_is_raised_by_synchronize_and_good_ones_pass() -> None:
    """The check kernel compiled by the GPU's NVRTC: every dtype, sizes around the block, the
    first offender named; a call with good lengths leaves nothing to report."""
    import cupy as cp

    from generated import cudnn_rnn_v3, dml_rnn

    rng = np.random.default_rng(6)
    scope = Scope("cuda")
    x = cp.asarray(rng.standard_normal((1, 7, 300, 4)).astype(np.float32))
    w = cp.asarray(rng.standard_normal((1, 1, 5, 4)).astype(np.float32))
    r = cp.asarray(rng.standard_normal((1, 1, 5, 5)).astype(np.float32))
    for dtype in ("int32", "int64", "uint32"):
        lengths = rng.integers(0, 8, 300).astype(dtype)
        dml_rnn(x, w, r, sequence_lengths=cp.asarray(lengths.reshape(1, 1, 1, 300)), scope=scope)
        scope.synchronize()
        for bad in (0, 255, 256, 299):
            wrong = lengths.copy()
            wrong[bad], wrong[-1] = 8, 9 if bad != 299 else 8
            dml_rnn(x, w, r, sequence_lengths=cp.asarray(wrong.reshape(1, 1, 1, 300)), scope=scope)
            with pytest.raises(ValueError, match=rf"got 8 at index \[0, 0, 0, {bad}\]"):
                scope.synchronize()
    args = [cp.asarray(rng.standard_normal((5, 3, 3)).astype(np.float32)), cp.zeros((1, 3, 4), np.float32),
            cp.zeros(0, np.float32), cp.zeros(108, np.float32), cp.asarray(np.array([5, 6, 1], np.int32))]
    cudnn_rnn_v3(*args, rnn_mode="gru", scope=scope)
    with pytest.raises(ValueError, match=r"CudnnRNNV3: sequence_lengths: .* got 6 at index \[1\] \(found by"):
        cudnn_rnn_v3(*args[:4], cp.asarray(np.array([5, 5, 1], np.int32)), rnn_mode="gru", scope=scope)
        scope.synchronize()


def test_threads_sharing_a_backend_report_each_bad_check_once(fake: Any) -> None:
    """Calls from several threads on one device (each thread capturing its graphs on a stream of
    its own): the one bad length is raised exactly once, by whichever call or synchronize finds it
    finished."""
    from concurrent.futures import ThreadPoolExecutor

    _call(np.array([1, 2, 3], np.int32))  # (cuBLAS's self-check, once)
    errors: list[str] = []

    def work(i: int) -> None:
        for k in range(6):
            try:
                _call(np.array([1, 0 if (i, k) == (2, 3) else 2, 3], np.int32))
            except ValueError as exc:
                errors.append(str(exc))

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(work, range(4)))
    try:
        Scope("cuda").synchronize()
    except ValueError as exc:
        errors.append(str(exc))
    assert len(errors) == 1 and "got 0 at index [1]" in errors[0], errors


@pytest.mark.parametrize("change", [("dtype: int32", "dtype: float32"), ("dtype: int32", "dtype: T")])
def test_on_device_on_an_input_the_check_cannot_take_is_a_spec_error(change: tuple[str, str]) -> None:
    """The check kernel takes int32, int64 and uint32: any other dtype (or a type variable) is an
    error at the flag's line, before anything is written."""
    from codegen.load import load_spec
    from codegen.vocab import load_activations
    from codegen.yamlnodes import SpecError

    specs = REPO / "specs"
    path = specs / "rnn" / "cudnn_rnn_v3.yaml"
    text = path.read_text()
    head, lengths = text.split("  - name: sequence_lengths\n", 1)
    text = head + "  - name: sequence_lengths\n" + lengths.replace(*change, 1)
    line = text[:text.index("on_device: true")].count("\n") + 1
    with pytest.raises(SpecError, match=rf"cudnn_rnn_v3.yaml:{line}: .*on_device checks int32, int64 or uint32 "
                                        rf"inputs .*got (float32|T)"):
        load_spec(path, specs, load_activations(specs), text=text)


def test_the_loader_and_the_check_kernel_agree_on_the_dtypes() -> None:
    from codegen.model import ON_DEVICE_VALUE_DTYPES

    assert set(ON_DEVICE_VALUE_DTYPES) == set(device_value_checks._TYPES)
