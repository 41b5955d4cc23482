"""The generated wrappers through their native drivers on the cuda backend, without a GPU: the cuda
backend on the CuPy stand-in (tests/fake_cupy.py) whose device memory is the libcuda stand-in's
(codegen/runtime/native/cuda_standin.cpp), so that the same arrays serve the Python path (the fake's
kernels and GEMMs) and the native one (the driver's checks, the native cuda runtime's launches on
the stand-in, its GEMM steps on the cuBLAS stand-in). Each op's smallest parity cases
(scripts/gpu_parity.py) give bit-identical outputs (poisoned before the call) on both paths and are
served natively; bad inputs and attrs raise alike; the front-end hands back to Python what it
cannot take as it is (a host array, a strided view, a call inside the caller's capture)."""

from __future__ import annotations

import ctypes
import runpy
import types
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fake_cupy
import numpy as np
import pytest
from standin_driver import Standin
from test_native_wrappers import _bad_variants, _chosen, _same

from codegen.runtime import native_cuda, native_front
from codegen.runtime.cpu import GPU_FORM_OPTION
from codegen.runtime.native_driver import NativeDriver
from codegen.warmup import generated_ops

PROJECT = Path(__file__).resolve().parent.parent
OPS = [op for op in generated_ops() if getattr(op.module, "_NATIVE", None) is not None]
#: ops with GEMM steps: the CuPy stand-in's matmul (NumPy) is not the cuBLAS stand-in's arithmetic, so
#: their outputs are compared to a tolerance here (tests/test_native_cuda.py holds the native runtime's
#: GEMM steps bit-identical to the Python cuda plan's on the host)
GEMM_OPS = {"CudnnRNNV3", "CudnnRNNBackpropV3", "DmlRnn", "GRUBlockCell", "GRUBlockCellGrad"}
#: why a call goes to Python by design: its inputs' `values: {on_device: true}` bounds (run_plan.cpp)
DEVICE_VALUE_CHECKS = "its inputs' values are checked on the device by the Python path"


@pytest.fixture(scope="module")
def standin() -> Iterator[Standin]:
    cuda = Standin()
    native_cuda.use_driver(cuda.path, standin=True)
    native_cuda.use_cublas(native_cuda.cublas_standin()[1])
    yield cuda
    native_cuda._DRIVER[1] = False


@pytest.fixture(scope="module")
def cases() -> dict[str, list[Any]]:
    parity = runpy.run_path(str(PROJECT / "scripts" / "gpu_parity.py"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        found: dict[str, list[Any]] = {}
        for op, case in parity["all_cases"](OPS):
            found.setdefault(op.name, []).append(case)
    return {name: _chosen(found[name], smallest=3) for name in found}


@pytest.fixture
def gpu(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, standin: Standin) -> Any:
    """The cuda backend on the CuPy stand-in, its arrays in the libcuda stand-in's memory, the
    wrappers' native cuda path on (install turns it off for the fake alone)."""
    native_path = NativeDriver._call_cuda
    found = fake_cupy.install(monkeypatch, tmp_path)
    monkeypatch.setattr(NativeDriver, "_call_cuda", native_path)

    def allocate(nbytes: int, device: int) -> np.ndarray:
        pointer = standin.alloc(nbytes)  # (never freed: a test's few MiB; an empty array's a live byte)
        return np.ctypeslib.as_array((ctypes.c_uint8 * max(nbytes, 1)).from_address(pointer))[:nbytes]

    monkeypatch.setattr(fake_cupy.state().pool, "allocate", allocate)
    # the GPU form of the kernels, as the stand-in's images hold them
    monkeypatch.setattr(fake_cupy.FakeModule, "options", (GPU_FORM_OPTION,))
    return found


def _on_device(value: Any) -> Any:
    import cupy  # the stand-in, installed by the fixture

    if isinstance(value, np.ndarray):
        return cupy.asarray(value)
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, np.ndarray) for v in value):
        return type(value)(cupy.asarray(v) for v in value)
    return value


def _run(op: Any, args: tuple[Any, ...], kwargs: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
         native: bool, standin: Standin) -> Any:
    monkeypatch.setenv("OPGEN_NATIVE", "1" if native else "0")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            out = op.function(*args, **kwargs, scope="cuda")
        except Exception as e:  # noqa: BLE001  (compared: the same on both paths)
            return e
    rc = standin.lib.cuCtxSynchronize()
    assert rc == 0, f"{op.name} native={native}: CUresult {rc}: {standin.lib.opgen_standin_fault()}"
    return out


def _device_case(case: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    return tuple(_on_device(a) for a in case.args), {k: _on_device(v) for k, v in case.kwargs.items()}


def _contiguous(case: Any) -> bool:
    values = [*case.args, *case.kwargs.values()]
    flat = [x for v in values for x in (v if isinstance(v, (list, tuple)) else [v])]
    arrays = [a for a in flat if isinstance(a, np.ndarray)]
    return all(a.flags.c_contiguous and a.flags.aligned and a.dtype.isnative for a in arrays) and not any(
        hasattr(x, "kernel_args") for x in flat)


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_parity_cases_bit_identical_and_served_natively_on_cuda(op: Any, cases: dict[str, list[Any]], gpu: Any,
                                                                standin: Standin,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    driver = op.module._NATIVE
    served = by_design = 0
    for case in cases[op.name]:
        if not _contiguous(case):
            continue
        args, kwargs = _device_case(case)
        python = _run(op, args, kwargs, monkeypatch, False, standin)
        before = driver.served
        native = _run(op, args, kwargs, monkeypatch, True, standin)
        _same(native, python, exact=op.name not in GEMM_OPS)
        why = native_front.extension().last_fallback()
        if isinstance(python, Exception):
            continue
        if why.endswith(DEVICE_VALUE_CHECKS):
            by_design += 1
        else:
            assert driver.served == before + 1, f"{op.name} {case.label}: handed back to Python ({why})"
            served += 1
    assert served + by_design >= 1, f"{op.name}: no case ran"  # (the cuDNN RNNs: every case checks its lengths)


@pytest.mark.parametrize("op", [op for op in OPS if op.name in ("LayerNorm", "Softmax", "BiasAddGrad")],
                         ids=lambda op: op.name)
def test_errors_are_the_wrappers_on_cuda(op: Any, cases: dict[str, list[Any]], gpu: Any, standin: Standin,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    case = cases[op.name][0]
    compared = 0
    for label, args, kwargs in _bad_variants(op, case):
        bad = case._replace(label=label, args=args, kwargs=kwargs)
        device_args, device_kwargs = _device_case(bad)
        python = _run(op, device_args, device_kwargs, monkeypatch, False, standin)
        native = _run(op, device_args, device_kwargs, monkeypatch, True, standin)
        _same(native, python)
        compared += isinstance(python, Exception)
    assert compared >= 3


def _softmax(cases: dict[str, list[Any]]) -> tuple[Any, Any]:
    op = next(op for op in OPS if op.name == "Softmax")
    return op, cases["Softmax"][0]


def test_what_the_front_end_cannot_take_goes_to_python(cases: dict[str, list[Any]], gpu: Any, standin: Standin,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A host array (the Python path copies it to the device), a strided device view (it makes it
    contiguous), an array on another device: handed back, saying why, and still right."""
    import cupy

    op, _ = _softmax(cases)
    x = np.random.default_rng(0).standard_normal((4, 6)).astype(np.float32)
    driver = op.module._NATIVE
    monkeypatch.setenv("OPGEN_NATIVE", "1")
    wide = cupy.asarray(np.concatenate([x, x], axis=-1))
    with cupy.cuda.Device(1):
        elsewhere = cupy.asarray(x)
    for given, why in ((x, "CuPy array on the call's device"), (wide[:, :6], "CuPy array on the call's device"),
                       (elsewhere, "CuPy array on the call's device")):
        before = driver.served
        out = op.function(given, scope="cuda")
        assert driver.served == before and why in native_front.extension().last_fallback()
        expected = op.function(cupy.asarray(x), scope="cuda")
        standin.check(standin.lib.cuCtxSynchronize())
        assert np.asarray(out[0]).tobytes() == np.asarray(expected[0]).tobytes()


def test_inside_the_callers_capture_the_python_path_holds_the_buffers(cases: dict[str, list[Any]], gpu: Any,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import cupy

    op, case = _softmax(cases)
    x = cupy.asarray(case.args[0])
    driver = op.module._NATIVE
    monkeypatch.setenv("OPGEN_NATIVE", "1")
    stream = cupy.cuda.Stream()
    with stream:
        stream.begin_capture()
        before = driver.served
        op.function(x, scope="cuda")
        stream.end_capture()
    assert driver.served == before


def test_no_replay_runs_launch_by_launch(cases: dict[str, list[Any]], gpu: Any, standin: Standin,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """OPGEN_NO_REPLAY turns the native runtime's graph replay off, as it does the Python plan's."""
    import cupy

    op, case = _softmax(cases)
    x = cupy.asarray(case.args[0])
    monkeypatch.setenv("OPGEN_NATIVE", "1")
    served = op.module._NATIVE.served
    for no_replay, graphs in (("1", 0), ("0", 2)):
        monkeypatch.setenv("OPGEN_NO_REPLAY", no_replay)
        launched = native_cuda.stat(native_cuda.GRAPH_LAUNCHES)
        op.function(x, scope="cuda")
        op.function(x, scope="cuda")
        assert native_cuda.stat(native_cuda.GRAPH_LAUNCHES) - launched == graphs
    assert op.module._NATIVE.served == served + 4


def test_without_libcuda_one_warning_says_what_to_install_and_python_runs(
        cases: dict[str, list[Any]], gpu: Any, standin: Standin, monkeypatch: pytest.MonkeyPatch) -> None:
    import cupy

    op, _ = _softmax(cases)
    x = cupy.asarray(np.random.default_rng(1).standard_normal((3, 5)).astype(np.float32))
    monkeypatch.setenv("OPGEN_NATIVE", "0")
    expected = np.asarray(op.function(x, scope="cuda")[0]).tobytes()
    monkeypatch.setenv("OPGEN_NATIVE", "1")
    driver = op.module._NATIVE
    try:
        with pytest.raises(native_cuda.NativeCudaError):
            native_cuda.use_driver("libopgen-no-such-driver.so.1", standin=True)
        served = driver.served
        with pytest.warns(RuntimeWarning, match="the native driver is off on cuda .*install the NVIDIA driver"):
            out = op.function(x, scope="cuda")
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # (once: the next call goes to Python without a word)
            again = op.function(x, scope="cuda")
        assert driver.served == served
        assert np.asarray(out[0]).tobytes() == np.asarray(again[0]).tobytes() == expected
    finally:
        native_cuda.use_driver(standin.path, standin=True)
    op.function(x, scope="cuda")
    assert driver.served == served + 1  # a libcuda named anew: bound again


class _Foreign:
    """An array by __cuda_array_interface__ alone (its fields given), with CuPy's `data.device_id`
    where `device` is not None."""

    def __init__(self, interface: dict[str, Any], device: int | None = 0) -> None:
        self.__cuda_array_interface__ = interface
        if device is not None:
            self.data = types.SimpleNamespace(device_id=device, ptr=interface["data"][0])


def test_the_front_end_reads_cuda_array_interface(cases: dict[str, list[Any]], gpu: Any,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Explicit C strides are taken; a misaligned pointer, a foreign byte order, a mask, a producer
    without CuPy's device, another device: handed back (the Python path copies or converts)."""
    import cupy

    op, _ = _softmax(cases)
    monkeypatch.setenv("OPGEN_NATIVE", "1")
    x = cupy.asarray(np.random.default_rng(2).standard_normal((4, 6)).astype(np.float32))
    expected = np.asarray(op.function(x, scope="cuda")[0]).tobytes()  # (binds the driver)
    driver, front, backend = op.module._NATIVE, native_front.extension(), gpu.backend
    ptr = x.data.ptr
    good = {"version": 2, "shape": (4, 6), "typestr": "<f4", "data": (ptr, False), "strides": (24, 4)}

    def call(obj: Any) -> Any:
        return front.call(driver._address, (obj,), (-1,), 1, False, 0, 0, backend.empty)

    taken = call(_Foreign(good))
    assert taken is not None and np.asarray(taken[0]).tobytes() == expected
    misaligned = {**good, "shape": (5,), "strides": None, "data": (ptr + 2, False)}
    for refused in (_Foreign(misaligned), _Foreign({**good, "typestr": ">f4"}),
                    _Foreign({**good, "mask": object()}), _Foreign(good, device=None), _Foreign(good, device=1),
                    _Foreign({**good, "strides": (4, 16)})):
        assert call(refused) is None, refused.__cuda_array_interface__
        assert "CuPy array on the call's device" in front.last_fallback()
