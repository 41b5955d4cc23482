"""The native cuda runtime (codegen/runtime/native/run_plan_cuda.cpp) against the libcuda and cuBLAS
stand-ins: for every parity case (scripts/gpu_parity.py), the plan its call runs, run
through run_plan_cuda — recorded natively, launched with cuLaunchKernel (or replayed as a CUDA
graph), its GEMM steps through cuBLAS, on a stream and device memory — leaves every buffer
bit-identical to the Python cuda plan on the host (Scope("cpu", kernel_form="gpu"): the same GPU
form of the kernels, the same launches, the same GEMM arithmetic). The launch checks in the Python
backend's words; and where the native path cannot run (no libcuda, no cuBLAS, an op not bound) a
fallback that says why."""

from __future__ import annotations

import ctypes
import re
import runpy
import threading
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from standin_driver import CAPTURE_GLOBAL, COUNT_LAUNCHES, COUNT_MODULES, COUNT_RUN, Standin

from codegen import drivergen
from codegen.runtime import api, native_cuda, native_plan
from codegen.runtime.cpu import CpuBackend
from codegen.runtime.cuda import _check_launch
from codegen.runtime.gemm import GemmSizes
from codegen.runtime.plan import Launch, Plan
from codegen.runtime.scope import Scope
from codegen.warmup import generated_ops

PROJECT = Path(__file__).resolve().parent.parent
OPS = [op for op in generated_ops() if isinstance(getattr(op.module, "_PLAN", None), Plan)]
FALLBACK, VALUE = 5, 2


@dataclass
class Run:
    """One run_plan call of a parity case: its plan, kernels and values, and its buffers before and
    after (after the wrapper returned: it flushes the cpu backend's queued launches)."""

    case: str
    plan: Plan
    kernels: Any
    values: tuple[Any, ...]
    live: tuple[Any, ...]
    before: tuple[Any, ...]
    after: tuple[Any, ...] = ()


def _copy(buffers: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(None if b is None else [a.copy() for a in b] if isinstance(b, (list, tuple)) else b.copy()
                 for b in buffers)


def _parity_runs(monkeypatch: pytest.MonkeyPatch) -> list[Run]:
    """Every parity case run once on the host in the cuda plan, its run_plan kept."""
    parity = runpy.run_path(str(PROJECT / "scripts" / "gpu_parity.py"))
    original = api.run_plan
    runs: list[Run] = []

    def hook(backend: Any, kernels: Any, plan: Plan, values: tuple[Any, ...], buffers: tuple[Any, ...]) -> None:
        runs.append(Run("", plan, kernels, values, buffers, _copy(buffers)))
        original(backend, kernels, plan, values, buffers)

    kept: list[Run] = []
    scope = Scope("cpu", kernel_form="gpu")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # GRUBlockCell's deprecation
        cases = list(parity["all_cases"](OPS))
        monkeypatch.setenv("OPGEN_NATIVE", "0")  # the Python plan: what this hook captures
        monkeypatch.setattr(api, "run_plan", hook)
        for k, (op, case) in enumerate(cases):
            assert case is not None, parity["missing_builder_message"](op)
            start = len(runs)
            parity["run_case"](op, case, scope)
            # (a call of several plans would need each plan's buffers at its own end: not taken here)
            assert len(runs) == start + 1, f"{op.name} #{k} ran {len(runs) - start} plans"
            run = runs[start]
            run.case, run.after = f"{op.name} #{k}", _copy(run.live)
            kept.append(run)
    return kept


@pytest.fixture(scope="module")
def plans() -> native_plan.NativePlans:
    return native_plan.load(drivergen.translation_unit(op.module._PLAN for op in OPS), "generated")


@pytest.fixture(scope="module")
def cuda() -> Iterator[Standin]:
    standin = Standin()
    native_cuda.use_driver(standin.path)
    native_cuda.use_cublas(native_cuda.cublas_standin()[1])
    yield standin


class Device:
    """The buffers of one run in the stand-in's device memory, and the runtime's scratch allocator."""

    def __init__(self, cuda: Standin, buffers: tuple[Any, ...]):
        self.cuda = cuda
        self.pointers: list[Any] = []
        self.keep: list[Any] = []
        self.slots = (native_cuda.Slot * max(len(buffers), 1))()
        for slot, b in zip(self.slots, buffers, strict=False):
            slot.count = -1
            first = b[0] if isinstance(b, (list, tuple)) and b else b
            slot.dtype = native_cuda.DTYPES.get(first.dtype.name, -1) if hasattr(first, "dtype") else -1
            if isinstance(b, (list, tuple)):
                items = (ctypes.c_void_p * max(len(b), 1))(*(cuda.to_device(a) for a in b))
                self.keep.append(items)
                slot.items, slot.count = ctypes.cast(items, ctypes.POINTER(ctypes.c_void_p)), len(b)
                self.pointers.append(list(items)[:len(b)])
            elif b is not None:
                slot.data, slot.size = cuda.to_device(b), b.size
                self.pointers.append(slot.data)
            else:
                self.pointers.append(None)

        def alloc(ctx: Any, index: int, dtype: int, ndim: int, shape: Any, nbytes: int, data: Any, err: Any,
                  errlen: int) -> int:
            data[0] = cuda.alloc(nbytes)
            return 0

        self.allocator = native_cuda.Allocator(native_cuda.ALLOC(alloc), None)

    def reset(self, buffers: tuple[Any, ...]) -> None:
        """The buffers' contents written again at the same device pointers."""
        for ptr, b in zip(self.pointers, buffers, strict=True):
            for p, a in zip(ptr, b, strict=True) if isinstance(b, list) else [(ptr, b)] if b is not None else []:
                if a.nbytes:
                    self.cuda.check(self.cuda.lib.cuMemcpyHtoD_v2(p, a.ctypes.data, a.nbytes))

    def read(self, like: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(None if b is None else [self.cuda.to_host(p, a) for p, a in zip(ptr, b, strict=True)]
                     if isinstance(b, list) else self.cuda.to_host(ptr, b) for ptr, b in zip(self.pointers, like,
                                                                                             strict=True))


def run_native(plans: native_plan.NativePlans, cuda: Standin, run: Run, stream: Any = None,
               device: Device | None = None) -> tuple[int, str, Device]:
    """The run's plan through run_plan_cuda on a fresh copy of its buffers (as they were before)."""
    plan = plans.plan(run.plan.op)
    values, keep = plan.encode(run.values)
    device = device or Device(cuda, run.before)
    symbols = (ctypes.c_char_p * max(len(plan.symbols), 1))(*(s.encode() for s in plan.symbols))
    err = ctypes.create_string_buffer(1024)
    rc = native_cuda.runtime().opgen_native_cuda_run(
        run.plan.op.encode(), plan.recorder, symbols, len(plan.symbols), values, len(run.values), device.slots,
        len(run.before), 0, stream, device.allocator, err, 1024)
    del keep
    return rc, err.value.decode(), device


def bind(plans: native_plan.NativePlans, run: Run) -> None:
    module = CpuBackend(launch_plan="cuda", kernel_form="gpu").load(run.kernels)
    native_cuda.bind(run.plan.op, 0, native_cuda.standin_image(module), plans.plan(run.plan.op).symbols)


def _same_bits(a: Any, b: Any) -> bool:
    if isinstance(a, list):
        return all(_same_bits(x, y) for x, y in zip(a, b, strict=True))
    return (a is None and b is None) or (a.shape == b.shape and a.tobytes() == b.tobytes())


def _launch_only(run: Run) -> bool:
    return all(type(s) is Launch for s in run.plan.recording("cuda", run.values).steps)


@pytest.fixture(scope="module")
def runs() -> list[Run]:
    with pytest.MonkeyPatch.context() as monkeypatch:
        return _parity_runs(monkeypatch)


def _each_ops_first(runs: list[Run], count: int) -> list[Run]:
    """Each op's first `count` runs with launches only and first `count` with a GEMM step."""
    seen: dict[tuple[str, bool], int] = {}
    out = []
    for run in runs:
        key = (run.case.split(" ")[0], _launch_only(run))
        if seen.get(key, 0) < count:
            seen[key] = seen.get(key, 0) + 1
            out.append(run)
    return out


@pytest.mark.parametrize("graphs", [True, False], ids=["graph", "launch by launch"])
def test_every_parity_case_runs_natively_bit_identical(plans: native_plan.NativePlans, cuda: Standin,
                                                                   runs: list[Run], graphs: bool) -> None:
    """Every case through the captured graph; launch by launch (the same steps, not captured: a
    second pass over all of them costs the suite its time and proves little more), each op's first
    few of either kind."""
    stream = cuda.stream()
    compared, changed = [], 0
    replayed = native_cuda.stat(native_cuda.GRAPH_LAUNCHES)
    native_cuda.runtime().opgen_native_cuda_graphs(graphs)
    chosen = runs if graphs else _each_ops_first(runs, 3)
    try:
        for run in chosen:
            bind(plans, run)
            rc, err, device = run_native(plans, cuda, run, stream)
            assert rc == 0, f"{run.case}: {err}"
            cuda.check(cuda.lib.cuStreamSynchronize(stream))
            _assert_same(run, device)
            changed += not all(_same_bits(b, a) for b, a in zip(run.before, run.after, strict=True))
            compared.append(run.case)
    finally:
        native_cuda.runtime().opgen_native_cuda_graphs(True)
    assert len(compared) == len(chosen) and len({c.split(" ")[0] for c in compared}) >= 13  # (398 runs when written)
    assert sum(not _launch_only(r) for r in chosen) >= (150 if graphs else 10)  # GEMM steps in 165 of all
    assert changed >= len(compared) * 9 // 10  # the runs wrote their outputs (not a comparison of untouched buffers)
    assert native_cuda.stat(native_cuda.GRAPH_LAUNCHES) - replayed == (len(compared) if graphs else 0)


def _assert_same(run: Run, device: Device) -> None:
    got = device.read(run.before)
    bad = [k for k, (g, a) in enumerate(zip(got, run.after, strict=True)) if not _same_bits(g, a)]
    assert bad == [], f"{run.case}: slots {[run.plan.slots[k] for k in bad]} differ from the Python cuda plan"


def _several_launches(runs: list[Run]) -> Run:
    return next(r for r in runs if _launch_only(r) and len(r.plan.recording("cuda", r.values).steps) >= 2)


def test_a_call_with_the_same_buffers_launches_the_captured_graph_again(plans: native_plan.NativePlans,
                                                                        cuda: Standin, runs: list[Run]) -> None:
    run = _several_launches(runs)
    bind(plans, run)
    stream = cuda.stream()
    rc, err, device = run_native(plans, cuda, run, stream)
    assert rc == 0, err
    captures, replays = native_cuda.stat(native_cuda.GRAPH_CAPTURES), native_cuda.stat(native_cuda.GRAPH_LAUNCHES)
    launch_calls = cuda.count(COUNT_LAUNCHES)
    device.reset(run.before)
    assert run_native(plans, cuda, run, stream, device)[0] == 0
    cuda.check(cuda.lib.cuStreamSynchronize(stream))
    _assert_same(run, device)
    assert cuda.count(COUNT_LAUNCHES) == launch_calls  # no kernel launched one by one: the graph ran them
    assert native_cuda.stat(native_cuda.GRAPH_LAUNCHES) == replays + 1
    assert native_cuda.stat(native_cuda.GRAPH_CAPTURES) == captures
    assert run_native(plans, cuda, run, stream)[0] == 0  # other buffers: captured anew (pointers are baked)
    assert native_cuda.stat(native_cuda.GRAPH_CAPTURES) == captures + 1


def test_in_the_callers_capture_the_launches_join_it(plans: native_plan.NativePlans, cuda: Standin,
                                                     runs: list[Run]) -> None:
    run = _several_launches(runs)
    bind(plans, run)
    stream = cuda.stream()
    device = Device(cuda, run.before)
    ran, captures = cuda.count(COUNT_RUN), native_cuda.stat(native_cuda.GRAPH_CAPTURES)
    cuda.check(cuda.lib.cuStreamBeginCapture_v2(stream, CAPTURE_GLOBAL))
    rc, err, _ = run_native(plans, cuda, run, stream, device)
    exe = cuda.end_capture(stream)
    assert rc == 0, err
    assert cuda.count(COUNT_RUN) == ran and native_cuda.stat(native_cuda.GRAPH_CAPTURES) == captures
    cuda.check(cuda.lib.cuGraphLaunch(exe, stream))
    cuda.check(cuda.lib.cuStreamSynchronize(stream))
    _assert_same(run, device)


def test_without_cublas_a_plan_with_a_gemm_step_falls_back_saying_what_to_install(
        plans: native_plan.NativePlans, cuda: Standin, runs: list[Run]) -> None:
    run = next(r for r in runs if not _launch_only(r))
    bind(plans, run)
    missing = "libopgen-no-such-cublas.so"
    try:
        with pytest.raises(native_cuda.NativeCudaError, match=re.escape(f"{missing} (")) as e:
            native_cuda.use_cublas(missing)
        assert "install cuBLAS 12 or 13" in str(e.value)
        assert run_native(plans, cuda, run)[:2] == (FALLBACK, str(e.value))
    finally:
        native_cuda.use_cublas(native_cuda.cublas_standin()[1])


def test_a_gemm_window_beyond_its_buffer_falls_back_before_anything_runs(
        plans: native_plan.NativePlans, cuda: Standin, runs: list[Run]) -> None:
    run = next(r for r in runs if not _launch_only(r))
    bind(plans, run)
    device = Device(cuda, run.before)
    ran = cuda.count(COUNT_RUN)
    gemm = next(s for s in run.plan.recording("cuda", run.values).steps if type(s) is not Launch)
    out, sizes = gemm.out, GemmSizes(*gemm.sizes)  # (its slot; its window need not reach the slot's end)
    end = max(sizes.out_offset, sizes.out_offset + (sizes.batch - 1) * sizes.out_stride) + sizes.m * sizes.n
    size = device.slots[out].size
    assert end <= size
    device.slots[out].size = end - 1  # (the window's last element no longer in the buffer)
    rc, err, _ = run_native(plans, cuda, run, device=device)
    assert rc == FALLBACK and err.startswith(f"{run.plan.op}: a GEMM step's window [m=")
    assert err.endswith("] does not lie in its buffers") and cuda.count(COUNT_RUN) == ran
    device.slots[out].size = size
    assert run_native(plans, cuda, run, device=device)[0] == 0


def test_an_op_not_bound_falls_back(plans: native_plan.NativePlans, cuda: Standin, runs: list[Run]) -> None:
    run = runs[0]
    native_cuda.use_driver(cuda.path)  # (a driver named again: every binding forgotten)
    rc, err, _ = run_native(plans, cuda, run)
    assert (rc, err) == (FALLBACK, f"{run.plan.op}: its kernels are not bound on cuda device 0")
    bind(plans, run)
    if _launch_only(run):
        assert run_native(plans, cuda, run)[0] == 0


def test_a_missing_libcuda_falls_back_saying_what_to_install(plans: native_plan.NativePlans, cuda: Standin,
                                                             runs: list[Run]) -> None:
    missing = "libopgen-no-such-driver.so.1"
    try:
        with pytest.raises(native_cuda.NativeCudaError, match=re.escape(f"{missing} cannot be loaded")) as e:
            native_cuda.use_driver(missing)
        assert e.value.result == FALLBACK and "install the NVIDIA driver" in str(e.value)
        rc, err, _ = run_native(plans, cuda, runs[0])
        assert rc == FALLBACK and err == str(e.value)
    finally:
        native_cuda.use_driver(cuda.path)


def test_a_launch_the_checks_refuse_is_the_python_backends_message(plans: native_plan.NativePlans,
                                                                   cuda: Standin, runs: list[Run]) -> None:
    """A block beyond the kernel's __launch_bounds__: the stand-in says so through cuFuncGetAttribute,
    the runtime refuses before launching, in the words of codegen/runtime/cuda.py's _check_launch."""
    run = next(r for r in runs if _launch_only(r) and any(
        type(s) is Launch and s.block[0] > 1 for s in r.plan.recording("cuda", r.values).steps))
    bind(plans, run)
    step = next(s for s in run.plan.recording("cuda", run.values).steps if type(s) is Launch and s.block[0] > 1)
    image = native_cuda.standin_image(CpuBackend(launch_plan="cuda", kernel_form="gpu").load(run.kernels))
    bounded = re.sub(rf"^kernel {step.symbol} \d+$", f"kernel {step.symbol} 1", image.decode(), flags=re.M).encode()
    assert bounded != image
    native_cuda.bind(run.plan.op, 0, bounded, plans.plan(run.plan.op).symbols)
    try:
        rc, err, _ = run_native(plans, cuda, run)
        with pytest.raises(ValueError) as python:
            _check_launch(run.kernels, step.symbol, step.grid, step.block, (), 1)
        assert (rc, err) == (VALUE, str(python.value))
    finally:
        bind(plans, run)


LRU_PROBE = r"""
#include "cuda_recordings.h"
// keys 0..63 kept, key 0 used again, key 64 kept: the least recently used (key 1) is dropped
extern "C" __attribute__((visibility("default"))) long long probe() {
  opgen_native::BindingRecordings r;
  for (int k = 0; k < 64; ++k) r.keep(std::to_string(k), std::make_shared<opgen_native::Recorded>());
  bool touched = r.find("0") != nullptr;
  r.keep("64", std::make_shared<opgen_native::Recorded>());
  return (long long)r.size() * 1000 + touched * 100 + (r.find("0") != nullptr) * 10 + (r.find("1") == nullptr);
}
"""


def test_an_ops_recordings_keep_the_last_64_used() -> None:
    from codegen.runtime import diskcache
    from codegen.runtime.host.libraries import _build_or_load
    from codegen.runtime.host.toolchain import _BASE_FLAGS, _compiler_command

    headers = "".join((native_cuda.NATIVE_DIR / h).read_text() for h in ("cuda_recordings.h", "plan_abi.h"))
    key = diskcache.digest((LRU_PROBE + headers).encode())[:32]
    flags = [*_BASE_FLAGS, "-I", str(native_cuda.NATIVE_DIR)]
    lib, _, _ = _build_or_load(f"opgen-test-recordings-{key}", LRU_PROBE, _compiler_command(), flags, runtime=True)
    lib.probe.restype = ctypes.c_longlong
    assert lib.probe() == 64 * 1000 + 111


@pytest.mark.parametrize("kind, tail", [("cubin", b"image"), ("ptx", b"image\0")])
def test_a_device_image_is_the_kernel_caches_module(monkeypatch: pytest.MonkeyPatch, runs: list[Run], kind: str,
                                                    tail: bytes) -> None:
    """On a GPU the runtime loads the kernel cache's module for the op (PTX: up to its NUL)."""
    from codegen.runtime import cuda_cache

    asked: list[tuple[str, str, Any]] = []

    def load_or_compile(source: str, name: str, target: Any, *, force: bool = False) -> Any:
        asked.append((source, name, target))
        return cuda_cache.Artifact(b"image", kind, "key", Path("unused"), "disk", 0.0)

    monkeypatch.setattr(cuda_cache, "load_or_compile", load_or_compile)
    target = cuda_cache.Target("sm_90", kind)
    assert native_cuda.device_image(runs[0].kernels, target) == tail
    assert asked == [(runs[0].kernels.text, runs[0].kernels.path.name, target)]


def test_calls_from_several_threads_at_once(plans: native_plan.NativePlans, cuda: Standin, runs: list[Run]) -> None:
    """Four threads, each with its own stream and buffers, call the same op's plan at once (ctypes
    lets go of the GIL): the recordings, graphs and cuBLAS handle are shared, the results each right."""
    run = next(r for r in runs if not _launch_only(r))
    bind(plans, run)
    devices = [Device(cuda, run.before) for _ in range(4)]
    results: list[Any] = [None] * 4

    def work(k: int) -> None:
        cuda.check(cuda.lib.cuCtxSetCurrent(cuda.ctx))  # (the context is current per thread)
        stream = cuda.stream()
        for _ in range(10):
            devices[k].reset(run.before)
            rc, err, _ = run_native(plans, cuda, run, stream, devices[k])
            if rc:
                results[k] = err
                return
            cuda.check(cuda.lib.cuStreamSynchronize(stream))
        results[k] = devices[k].read(run.before)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got in results:
        assert not isinstance(got, str), got
        assert all(_same_bits(g, a) for g, a in zip(got, run.after, strict=True)), run.case


def test_a_module_is_loaded_once_per_op_device_and_image(plans: native_plan.NativePlans, cuda: Standin,
                                                         runs: list[Run]) -> None:
    run = runs[0]
    image = native_cuda.standin_image(CpuBackend(launch_plan="cuda", kernel_form="gpu").load(run.kernels))
    symbols = plans.plan(run.plan.op).symbols
    native_cuda.bind(run.plan.op, 0, image, symbols)
    loaded = cuda.count(COUNT_MODULES)
    native_cuda.bind(run.plan.op, 0, image, symbols)
    assert cuda.count(COUNT_MODULES) == loaded  # the same image: bound already
    native_cuda.bind(run.plan.op, 1, image, symbols)
    assert cuda.count(COUNT_MODULES) == loaded + 1  # another device: its own context
    native_cuda.bind(run.plan.op, 0, image.replace(b"threads ", b"threads 1"), symbols)
    assert cuda.count(COUNT_MODULES) == loaded + 2  # another image
    native_cuda.bind(run.plan.op, 0, image, symbols)
