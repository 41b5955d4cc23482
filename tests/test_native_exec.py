"""The native plan runner on the cpu (codegen/runtime/native/run_plan_cpu.h, loaded by
codegen/runtime/native_cpu.py) runs every op's plan as the Python plan runs it on the cpu backend:
for every parity case of scripts/gpu_parity.py, the values and buffers the wrapper hands `run_plan`
are captured (the buffers copied before its kernels run: inputs, and outputs and scratch poisoned),
the wrapper's run gives the reference, and the same plan run natively on the copies gives
bit-identical buffers. And what it refuses: a launch configuration the cpu backend refuses (same
error kind and message), an op without a binding, the sanitize build, a device it has no runner
for; and the recordings it keeps (the last 64 per op)."""

from __future__ import annotations

import contextlib
import runpy
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from codegen import drivergen_unit
from codegen.runtime import api, launches, native_cpu
from codegen.runtime import plan as plan_module
from codegen.runtime.host import HostKernelError, HostLaunchError, switches
from codegen.runtime.plan import Plan
from codegen.runtime.scope import Scope, backend_of
from codegen.warmup import generated_ops

PROJECT = Path(__file__).resolve().parent.parent
OPS = [op for op in generated_ops() if isinstance(getattr(op.module, "_PLAN", None), Plan)]
FALLBACK = native_cpu.RESULTS["ERR_FALLBACK"]


@pytest.fixture(scope="module")
def runner() -> native_cpu.NativeCpu:
    """Every op's recorder and the runner, one translation unit (one compile, cached on disk)."""
    return drivergen_unit.load_runner([op.module._PLAN for op in OPS], "generated")


def _copy(buf: Any) -> Any:
    if isinstance(buf, (list, tuple)):
        return [a.copy() for a in buf]
    return None if buf is None else buf.copy()


def _same_bits(a: Any, b: Any) -> bool:
    if isinstance(a, (list, tuple)):
        return all(_same_bits(x, y) for x, y in zip(a, b, strict=True))
    if a is None:
        return b is None
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


Call = tuple[Any, Plan, tuple[Any, ...], list[Any], tuple[Any, ...]]


def _parity_calls(monkeypatch: pytest.MonkeyPatch, scope: Scope) -> list[Call]:
    """(kernels, plan, values, buffers before, buffers after) of every parity case's call in `scope`."""
    parity = runpy.run_path(str(PROJECT / "scripts" / "gpu_parity.py"))
    monkeypatch.setenv("OPGEN_POISON_OUTPUTS", "1")  # outputs and scratch NaN (-1) until a kernel writes them
    calls: list[Call] = []
    run_plan = plan_module.run_plan

    def hook(backend: Any, kernels: Any, plan: Plan, values: tuple[Any, ...], buffers: tuple[Any, ...]) -> None:
        before = [_copy(b) for b in buffers]
        run_plan(backend, kernels, plan, values, buffers)
        backend.flush()
        calls.append((kernels, plan, values, before, buffers))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # GRUBlockCell's deprecation
        cases = list(parity["all_cases"](OPS))  # (before the hook: a builder may run an op to make inputs)
        monkeypatch.setenv("OPGEN_NATIVE", "0")  # the Python plan: what this hook captures
        monkeypatch.setattr(api, "run_plan", hook)
        for op, case in cases:
            assert case is not None, parity["missing_builder_message"](op)
            parity["run_case"](op, case, scope)
    return calls


@pytest.mark.parametrize("plan_name", ["cpu", "cuda"])  # the cpu's plan, and the GPU's emulated
def test_every_parity_case_runs_natively_bit_identical(runner: native_cpu.NativeCpu, monkeypatch: pytest.MonkeyPatch,
                                                       plan_name: str) -> None:
    scope = Scope("cpu", launch_plan=plan_name)
    calls = _parity_calls(monkeypatch, scope)
    assert {plan.op for _, plan, _, _, _ in calls} == {op.name for op in OPS}
    backend = backend_of(scope, "test")
    bound: set[str] = set()
    fallbacks: list[str] = []
    for kernels, plan, values, before, after in calls:
        if plan.op not in bound:
            runner.bind(kernels, plan, backend)
            bound.add(plan.op)
        try:
            runner.run_plan(plan.op, values, before)
        except native_cpu.NativeRunError as e:  # only where the cpu backend's GEMM is NumPy's matmul
            half = {native_cpu.DTYPES[t] for t in ("float16", "bfloat16") if t in values}
            assert e.code == FALLBACK and half and f"GEMM step on buffers of opgen_dtype {min(half)}" in str(e), e
            fallbacks.append(plan.op)
            continue
        for k, (native, python) in enumerate(zip(before, after, strict=True)):
            assert _same_bits(native, python), f"{plan.op}: slot {plan.slots[k]} differs for values {values}"
    assert len(fallbacks) < len(calls) // 5, fallbacks


def _layer_norm_call(runner: native_cpu.NativeCpu, shape: tuple[int, int] = (2, 8)) -> tuple[Any, ...]:
    """LayerNorm's plan, bound, with a call's values and fresh buffers."""
    from generated.norm import layer_norm as module

    plan = module._PLAN
    runner.bind(module._KERNELS, plan, backend_of(Scope("cpu"), "test"))
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    rows, d = shape
    values = ("float32", min(rows, 64), 1, rows, d, 1e-5)
    buffers = (x, None, None, np.empty_like(x), np.empty(rows, np.float32), np.empty(rows, np.float32))
    return module, plan, values, buffers


def _toy_launch_plan() -> Plan:
    """LayerNorm's kernel launched twice: once as its plan does, then with a grid, block and shared
    size of the call's choosing (to be refused, or not)."""
    from generated.norm import layer_norm as module

    args = (*(("buf", k) for k in range(6)), ("scalar", "_np.int64", "rows", None, ()),
            ("scalar", "_np.int64", "D", None, ()), ("scalar", "_np.float32", "epsilon", None, ()))
    steps = (("launch", "layer_norm", ("_dtype_T",), (1,), (1,), 0, args, ()),
             ("launch", "layer_norm", ("_dtype_T",), ("g",), ("bx", "by"), "shared", args, ()))
    return Plan("ToyLaunch", ("_dtype_T", "g", "bx", "by", "shared", "rows", "D", "epsilon"), module._PLAN.slots,
                steps, module._PLAN.symbols)


@pytest.mark.parametrize("g, bx, by, shared", [
    (1, 64, 32, 0), (1, 1, 1, -1), (1, 1, 1, 48 * 1024 + 1), (-1, 1, 1, 0), (2**31, 1, 1, 0), (1, 0, 1, 0),
    (1, 1, 1025, 0),  # refused
    (0, 1, 1, 0), (2, 4, 2, 16), (1, 1024, 1, 48 * 1024),  # run (a grid of 0: nothing)
])
def test_launch_configurations_are_checked_as_the_cpu_backend_checks_them(g: int, bx: int, by: int,
                                                                          shared: int) -> None:
    from generated.norm import layer_norm as module

    plan = _toy_launch_plan()
    runner = drivergen_unit.load_runner([plan], "toy-launch")
    backend = backend_of(Scope("cpu"), "test")
    runner.bind(module._KERNELS, plan, backend)
    x = np.random.default_rng(1).standard_normal((2, 8)).astype(np.float32)
    values = ("float32", g, bx, by, shared, 2, 8, 1e-5)
    python, native = ([x, None, None, *(np.full(s, np.nan, np.float32) for s in ((2, 8), 2, 2))] for _ in range(2))
    try:
        plan_module.run_plan(backend, module._KERNELS, plan, values, python)
        backend.flush()
        refused = None
    except HostLaunchError as e:
        refused = str(e)
    try:
        runner.run_plan(plan.op, values, native)
        assert refused is None
    except native_cpu.NativeRunError as e:
        assert (e.code, str(e)) == (native_cpu.RESULTS["ERR_VALUE"], refused)
    assert _same_bits(native, python)  # (the launch before a refused one ran on both)
    assert np.isfinite(native[3]).all()


def test_the_good_configuration_runs(runner: native_cpu.NativeCpu) -> None:
    module, plan, values, buffers = _layer_norm_call(runner)
    runner.run_plan(plan.op, values, buffers)
    y, mean, rstd = module.layer_norm(buffers[0], None, None, scope="cpu")
    assert _same_bits(list(buffers[3:]), [y, mean, rstd])


def test_an_op_without_a_binding_falls_back(runner: native_cpu.NativeCpu) -> None:
    """Also where this thread's last call ran it bound (the binding it keeps at hand is dropped)."""
    module, plan, values, buffers = _layer_norm_call(runner)
    runner.run_plan(plan.op, values, buffers)
    runner.unbind(plan.op)
    with pytest.raises(native_cpu.NativeRunError, match="LayerNorm: no cpu binding") as e:
        runner.run_plan(plan.op, values, buffers)
    assert e.value.code == FALLBACK
    runner.bind(module._KERNELS, plan, backend_of(Scope("cpu"), "test"))
    runner.run_plan(plan.op, values, buffers)


@contextlib.contextmanager
def _sanitized(backend: Any) -> Iterator[None]:
    switches.set_sanitize(True)
    try:
        yield
    finally:
        switches.set_sanitize(None)


@pytest.mark.parametrize("route, message", [
    (_sanitized, "the sanitize build runs every launch"),
    (lambda backend: launches.watch(backend, launch=backend.launch), "a watched backend sees every launch"),
])
def test_where_the_cpu_backend_goes_launch_by_launch_calls_fall_back(runner: native_cpu.NativeCpu, route: Any,
                                                                     message: str) -> None:
    module, plan, values, buffers = _layer_norm_call(runner)
    backend = backend_of(Scope("cpu"), "test")
    with route(backend):
        bound = runner.bind(module._KERNELS, plan, backend)
        with pytest.raises(native_cpu.NativeRunError, match=f"LayerNorm: {message}") as e:
            runner.run_plan(plan.op, values, buffers)
        assert e.value.code == FALLBACK
    assert bound.key != native_cpu.key(backend)  # (the front-end binds again)
    runner.bind(module._KERNELS, plan, backend)
    runner.run_plan(plan.op, values, buffers)


def test_a_device_without_a_runner_falls_back(runner: native_cpu.NativeCpu) -> None:
    """The cuda device before a front-end handed the library the cuda runner (native_cuda.hand_runner)."""
    _, plan, values, buffers = _layer_norm_call(runner)
    with pytest.raises(native_cpu.NativeRunError, match="LayerNorm: no cuda runner handed to this driver library") as e:
        runner.run_plan(plan.op, values, buffers, device="cuda")
    assert e.value.code == FALLBACK


def test_the_last_64_recordings_are_kept(runner: native_cpu.NativeCpu) -> None:
    _, plan, values, buffers = _layer_norm_call(runner)

    def run(epsilon: float) -> tuple[int, int, int]:
        runner.run_plan(plan.op, (*values[:-1], epsilon), buffers)
        return runner.recordings(plan.op)

    recorded, replayed, _ = runner.recordings(plan.op)
    for k in range(70):  # 70 new sets of values: the first 6 dropped
        run(1.0 + k)
    assert runner.recordings(plan.op) == (recorded + 70, replayed, 64)
    assert run(1.0 + 69) == (recorded + 70, replayed + 1, 64)  # the most recent: replayed
    assert run(1.0 + 6) == (recorded + 70, replayed + 2, 64)  # the oldest kept: replayed (now the most recent)
    assert run(1.0) == (recorded + 71, replayed + 2, 64)  # dropped: recorded again
    assert run(1.0 + 7) == (recorded + 72, replayed + 2, 64)  # ... which dropped the least recently used (7)


def test_a_recording_another_thread_dropped_is_recorded_again(runner: native_cpu.NativeCpu) -> None:
    """A thread's last recording, found again without a look-up (recordings.h), only while it is
    kept: once 64 others recorded on another thread dropped it, the same values are recorded anew."""
    _, plan, values, buffers = _layer_norm_call(runner)

    def run(epsilon: float) -> tuple[int, int, int]:
        runner.run_plan(plan.op, (*values[:-1], epsilon), buffers)
        return runner.recordings(plan.op)

    recorded, replayed, _ = run(0.25)
    assert run(0.25)[:2] == (recorded, replayed + 1)  # (this thread's last: replayed)
    others = threading.Thread(target=lambda: [run(100.0 + k) for k in range(64)])
    others.start()
    others.join()
    assert run(0.25) == (recorded + 65, replayed + 1, 64)  # dropped by the other thread: recorded again
    assert run(0.25) == (recorded + 65, replayed + 2, 64)


def test_a_kernel_that_fails_says_what_the_cpu_backend_says(runner: native_cpu.NativeCpu) -> None:
    # One row, so one block: with several, whichever block's fault the runtime catches first (they
    # run on several threads) names the block and address, and the two runs may differ.
    module, plan, values, buffers = _layer_norm_call(runner, shape=(1, 8))
    missing = (None, *buffers[1:])  # no x: the kernel reads address 0 (the runtime catches the fault)
    with pytest.raises(HostKernelError) as python:
        plan_module.run_plan(backend_of(Scope("cpu"), "test"), module._KERNELS, plan, values, missing)
    with pytest.raises(native_cpu.NativeRunError) as native:
        runner.run_plan(plan.op, values, missing)
    assert (native.value.code, str(native.value)) == (native_cpu.RESULTS["ERR_RUNTIME"], str(python.value))
    assert "LayerNorm__layer_norm__float32' block (0,0,0)" in str(native.value)


def test_calls_from_several_threads_record_and_run_their_own_values(runner: native_cpu.NativeCpu) -> None:
    module, plan, values, _ = _layer_norm_call(runner)
    x = np.random.default_rng(2).standard_normal((2, 8)).astype(np.float32)
    epsilons = [0.5 + k for k in range(96)]  # more than are kept: the threads record, drop and replay at once
    expected = {e: module.layer_norm(x, None, None, epsilon=e, scope="cpu")[2] for e in epsilons}
    failures: list[str] = []

    def work(offset: int) -> None:
        for k in range(200):  # (each call runs the plan 20 times in C, where the threads meet)
            epsilon = epsilons[(offset * 37 + k * (offset + 1)) % len(epsilons)]
            buffers = (x, None, None, np.empty_like(x), np.empty(2, np.float32), np.empty(2, np.float32))
            runner.run_plan(plan.op, (*values[:-1], epsilon), buffers, repeat=20)
            if buffers[5].tobytes() != expected[epsilon].tobytes():
                failures.append(f"epsilon {epsilon}")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


TOY_LIST_KERNEL = """
extern "C" __global__ void ToyLists__sum__float32(const float* const* items, long long count, float* out,
                                                  long long n) {
  long long i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (long long j = 0; j < count; ++j) s += items[j][i];
  out[i] = s;
}
"""


@pytest.mark.parametrize("count", [3, 0])
def test_a_list_input_is_passed_as_the_python_backend_passes_it(count: int) -> None:
    """A pointer-list slot: its elements' pointers, then their count (no generated op has one yet)."""
    from codegen.runtime.kernels import KernelSource

    source = KernelSource("ToyLists", Path("toy_lists.cu"), text=TOY_LIST_KERNEL)
    plan = Plan("ToyLists", ("_dtype_T", "n"), ("xs", "out"),
                (("launch", "sum", ("_dtype_T",), (1,), ("n",), 0,
                  (("ptrs", 0), ("buf", 1), ("scalar", "_np.int64", "n", None, ())), ()),),
                {"sum": {("float32",): "ToyLists__sum__float32"}})
    runner = drivergen_unit.load_runner([plan], "toy-lists")
    backend = backend_of(Scope("cpu"), "test")
    runner.bind(source, plan, backend)
    items = [np.random.default_rng(k).standard_normal(8).astype(np.float32) for k in range(count)]
    python, native = np.full(8, np.nan, np.float32), np.full(8, np.nan, np.float32)
    plan_module.run_plan(backend, source, plan, ("float32", 8), (items, python))
    backend.flush()
    runner.run_plan(plan.op, ("float32", 8), (items, native))
    assert _same_bits(native, python)
    assert np.array_equal(native, sum(items, np.zeros(8, np.float32)))


@pytest.mark.parametrize("dtype, out_size, runs", [
    (np.float32, 4, True), (np.float64, 4, True),  # the BLAS, in the batch
    (np.float32, 3, False),  # a window past the buffer: the Python backend's checked path raises
    (np.float16, 4, False),  # NumPy's matmul runs it
])
def test_a_gemm_step_runs_where_the_blas_takes_it(dtype: Any, out_size: int, runs: bool) -> None:
    from codegen.runtime.host import blas
    from generated.norm import layer_norm as module

    if blas.find() is None:
        pytest.skip("no BLAS the cpu backend uses (NumPy's matmul runs every GEMM step)")
    plan = Plan("ToyGemm", ("beta",), ("a", "b", "out"),
                (("gemm", 0, 1, 2, (2, 2, 3, False, True, "beta", 0, 0, 0, 1, 0, 0, 0), ()),), {})
    runner = drivergen_unit.load_runner([plan], "toy-gemm")
    runner.bind(module._KERNELS, plan, backend_of(Scope("cpu"), "test"))  # (any module: the plan has no kernel)
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(6).astype(dtype), rng.standard_normal(6).astype(dtype)
    for beta in (0, 1):
        python, native = np.arange(out_size, dtype=dtype), np.arange(out_size, dtype=dtype)
        try:
            plan_module.run_plan(backend_of(Scope("cpu"), "test"), module._KERNELS, plan, (beta,), (a, b, python))
        except ValueError as e:
            assert not runs and "does not fit in a buffer of 3 elements" in str(e)
        if runs:
            runner.run_plan(plan.op, (beta,), (a, b, native))
            assert _same_bits(native, python)
        else:
            with pytest.raises(native_cpu.NativeRunError) as e:
                runner.run_plan(plan.op, (beta,), (a, b, native))
            assert e.value.code == FALLBACK
