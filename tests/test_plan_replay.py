"""The cpu backend's native replay of a recorded launch plan (codegen/runtime/host/replay.py):
batch records whose buffer arguments index a per-call table, run by the runtime with no Python per
launch. Results equal the printed loop's bit for bit (tests/test_plan.py, every op); here: that
the path is taken, what sends a call back to the checked path, and the runtime's own checks."""

from __future__ import annotations

import ctypes
import struct

import numpy as np
import pytest

from codegen.runtime import host, plan
from codegen.runtime.cpu import CpuBackend
from codegen.runtime.host import replay
from codegen.runtime.host.pack import BATCH_RECORD
from codegen.runtime.host.queue import run_batch
from codegen.runtime.kernels import KernelSource
from codegen.runtime.launches import watch
from codegen.runtime.stats import python_launches
from generated import Scope, fused_batch_norm_grad_v3

X = np.zeros(4, np.float32)  # (a buffer, when a recording is built: only GEMM steps look at it)
PUT = r"""
extern "C" __global__ void put(float* x, long long i, float v) {
  if (threadIdx.x == 0) x[i] = v;
}
"""


@pytest.fixture(autouse=True)
def _python_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Python plan's replay is what these tests hold (the native runner: tests/test_native_exec.py)."""
    monkeypatch.setenv("OPGEN_NATIVE", "0")


@pytest.fixture()
def source(tmp_path):  # type: ignore[no-untyped-def]
    path = tmp_path / "put.cu"
    path.write_text(PUT)
    return KernelSource("Put", path)


def _inputs(seed: int = 0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    dy = rng.standard_normal(x.shape).astype(np.float32)
    c = np.abs(rng.standard_normal(5)).astype(np.float32) + 0.5
    return dy, x, c, c, c, np.zeros(0, np.float32)


def test_generated_plans_replay_natively(monkeypatch: pytest.MonkeyPatch) -> None:
    runs: list[int] = []
    real = replay.run
    monkeypatch.setattr(replay, "run", lambda native, *a: (runs.append(len(native.segments)), real(native, *a)))
    scope = Scope("cpu")
    a = fused_batch_norm_grad_v3(*_inputs(0), scope=scope)
    b = fused_batch_norm_grad_v3(*_inputs(1), scope=scope)
    assert len(runs) == 2 and runs[0] >= 1  # both calls; the second replays the first's recording
    monkeypatch.setenv("OPGEN_PLAN", "loop")
    c = fused_batch_norm_grad_v3(*_inputs(1), scope=scope)
    for x, y in zip(b, c, strict=True):
        assert x.tobytes() == y.tobytes()
    assert a.x_backprop.tobytes() != b.x_backprop.tobytes()


def test_a_buffer_the_table_cannot_take_goes_launch_by_launch() -> None:
    x = np.zeros((4, 4), np.float32)
    assert replay.bind([x, None]) is not None
    table = replay.bind([x, None])
    assert table[0] == x.ctypes.data and table[1] == 0
    assert replay.bind([x[:, ::2]]) is None  # not C-contiguous: the checked path names it
    assert replay.bind([[1.0]]) is None


def test_a_launch_of_other_argument_kinds_is_not_built(source: KernelSource) -> None:
    backend = CpuBackend()
    fn = backend.load(source).get_function("put")
    settings = host.switches._launch_settings()
    good = plan.Recording((plan.Launch("put", (1,), (32,), 0, (plan.Slot(0), np.int64(1), np.float32(2))),))
    assert replay.build(good, [X], lambda s: fn, settings) is not None
    for args in ((plan.Slot(0), np.int32(1), np.float32(2)),  # an int32 for a long long
                 (np.int64(0), np.int64(1), np.float32(2)),  # a scalar for a pointer
                 (plan.Slot(0), plan.Slot(0), np.float32(2)),  # a pointer for a scalar
                 (plan.Slot(0), np.int64(1))):  # too few
        bad = plan.Recording((plan.Launch("put", (1,), (32,), 0, args),))
        assert replay.build(bad, [X], lambda s: fn, settings) is None, args
    too_big = plan.Recording((plan.Launch("put", (1,), (2048,), 0, (plan.Slot(0), np.int64(1), np.float32(2))),))
    assert replay.build(too_big, [X], lambda s: fn, settings) is None  # the checked path raises it, in order


def test_replayed_batches_write_through_the_table(source: KernelSource) -> None:
    backend = CpuBackend()
    fn = backend.load(source).get_function("put")
    rec = plan.Recording(tuple(plan.Launch("put", (1,), (32,), 0, (plan.Slot(k % 2), np.int64(k), np.float32(k + 1)))
                               for k in range(4)))
    native = replay.build(rec, [X, X], lambda s: fn, host.switches._launch_settings())
    assert native is not None and len(native.segments) == 1
    a, b = np.zeros(4, np.float32), np.zeros(4, np.float32)
    replay.run(native, replay.bind([a, b]), [a, b], backend.gemm, ctypes.create_string_buffer(256))
    assert a.tolist() == [1, 0, 3, 0] and b.tolist() == [0, 2, 0, 4]
    c = np.zeros(4, np.float32)  # the same batches, other buffers
    replay.run(native, replay.bind([c, a]), [c, a], backend.gemm, ctypes.create_string_buffer(256))
    assert c.tolist() == [1, 0, 3, 0] and a.tolist() == [1, 2, 3, 4]


def test_the_runtime_checks_table_indices(source: KernelSource) -> None:
    backend = CpuBackend()
    fn = backend.load(source).get_function("put")
    cfg, address = fn._batch_cfg(((1,), (32,), 0, host.switches._launch_settings()))
    x = np.zeros(2, np.float32)
    table = (ctypes.c_uint64 * 1)(x.ctypes.data)
    err = ctypes.create_string_buffer(256)
    fmt = BATCH_RECORD + "Q8xq8xf12x"
    ok = struct.pack(fmt, fn._launch_addr, address, 3, 1, 0, 1, 5.0)
    assert run_batch()(ok, 1, table, 1, err, len(err)) == 1 and x.tolist() == [0, 5]
    beyond = struct.pack(fmt, fn._launch_addr, address, 3, 1, 1, 0, 7.0)  # index 1 of a 1-entry table
    assert run_batch()(beyond, 1, table, 1, err, len(err)) == 0
    assert err.value.decode() == "launch batch: record 0: a buffer-table index beyond the table"
    stray = struct.pack(fmt, fn._launch_addr, address, 3, 1 | 1 << 5, 0, 0, 7.0)  # a flag past nargs
    assert run_batch()(stray, 1, table, 1, err, len(err)) == 0
    assert err.value.decode() == "launch batch: record 0: a buffer-table argument beyond nargs"
    assert x.tolist() == [0, 5]
    del cfg


def test_gemm_steps_go_to_the_blas_where_it_takes_them() -> None:
    """CpuBackend.gemm's BLAS path (tests/test_backend_gemm.py checks its results against float64)."""
    from codegen.runtime.host import blas

    assert blas.find() is not None  # NumPy's own BLAS, mapped into this process
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(12).astype(np.float32), rng.standard_normal(12).astype(np.float32)
    out = np.full(9, np.nan, np.float32)
    assert blas.run(a, b, out, 3, 3, 4, False, False, 0, 0, 0, 0)
    np.testing.assert_allclose(out, (a.reshape(3, 4) @ b.reshape(4, 3)).ravel(), rtol=1e-6)
    half = a.astype(np.float16)
    assert not blas.run(half, half, out.astype(np.float16), 3, 3, 4, False, False, 0, 0, 0, 0)  # NumPy's
    assert not blas.run(a, b, out, 3, 3, 4, False, False, 0, 1, 0, 0)  # a window past a: NumPy's error
    assert not blas.run(a, b.astype(np.float64), out, 3, 3, 4, False, False, 0, 0, 0, 0)
    assert not blas.run(a.reshape(3, 4)[:, ::2], b, out, 3, 3, 2, False, False, 0, 0, 0, 0)


def test_a_recurrent_plan_is_one_native_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """CudnnRNNV3 in float32: its GEMM steps go into the batches, so forward and backward are one
    call into the runtime each, where the printed loop makes hundreds of launches and GEMMs."""
    from test_cudnn_rnn import Case

    calls: list[int] = []
    real = replay.run
    monkeypatch.setattr(replay, "run", lambda native, *a: (calls.append(len(native.segments)), real(native, *a)))
    rnn = Case(direction="bidirectional", layers=2, steps=6, dtype="float32", key=("batch",))
    scope = Scope("cpu")
    before = python_launches["from_python"]
    fw = rnn.forward(scope)
    rnn.backward(scope, fw, *rnn.output_grads(fw))
    assert calls == [1, 1]
    assert python_launches["from_python"] - before == 2  # the counter bench_cudnn_rnn prints
    monkeypatch.setenv("OPGEN_PLAN", "loop")
    before = python_launches["from_python"]
    rnn.backward(scope, fw, *rnn.output_grads(fw))
    # per layer and step at least a batch and the GEMM (both directions' products in one, a strided batch),
    # and the weight gradients' GEMMs
    assert python_launches["from_python"] - before > 2 * 6 * 2


@pytest.mark.parametrize("restore", ["monkeypatch", "own bound method", "deleted"])
def test_a_launch_patched_then_restored_does_not_turn_replay_off(
        monkeypatch: pytest.MonkeyPatch, restore: str) -> None:
    """After a patched launch is restored, replay runs again, however the restoring was done: by
    monkeypatch (whichever way this pytest does it), by setting the backend's own bound method as an
    instance attribute (what older pytest does; the full suite once ran every later plan step by
    step), or by deleting the instance attribute. A watcher set afterwards still sees every launch."""
    scope = Scope("cpu")
    if restore == "monkeypatch":
        with monkeypatch.context() as m:
            m.setattr(scope.backend, "launch", lambda *args, **kwargs: None)
    else:
        own = scope.backend.launch  # the bound method, read before patching
        scope.backend.launch = lambda *args, **kwargs: None
        if restore == "own bound method":
            scope.backend.launch = own
        else:
            del scope.backend.launch
    runs: list[int] = []
    real = replay.run
    monkeypatch.setattr(replay, "run", lambda native, *a: (runs.append(1), real(native, *a)))
    fused_batch_norm_grad_v3(*_inputs(0), scope=scope)
    assert runs == [1]
    seen: list[str] = []
    with watch(scope.backend, lambda src, sym, *a, **k: seen.append(sym)):  # a watcher, declared
        fused_batch_norm_grad_v3(*_inputs(0), scope=scope)
    assert runs == [1] and seen  # every launch went through it
    fused_batch_norm_grad_v3(*_inputs(0), scope=scope)
    # the watcher gone: replayed again (another test's monkeypatch may have left `watched = False` on
    # this process-wide backend: pytest restores a class attribute as an instance one)
    assert runs == [1, 1] and not scope.backend.watched


def test_the_blas_is_used_only_as_numpy_describes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The integer width comes from NumPy's build configuration and the symbols' names agree with
    it; a BLAS NumPy does not describe as OpenBLAS is not called (a wrong width would hand it
    garbage sizes)."""
    from codegen.runtime.host import blas

    describe = blas.numpy_openblas
    found = blas._search()
    assert found is not None and found.int64 == describe()  # this NumPy: its own OpenBLAS
    monkeypatch.setattr(blas, "numpy_openblas", lambda: None)  # another BLAS, or no configuration
    assert blas._search() is None
    monkeypatch.setattr(blas, "numpy_openblas", lambda: not found.int64)  # the other width: other names
    other = blas._search()
    assert other is None or other.path != found.path
    monkeypatch.setattr(np, "show_config", lambda mode="stdout": {"Build Dependencies": {"blas": {
        "name": "mkl-dynamic-lp64-iomp", "found": True}}})
    assert describe() is None


def _records(batch: replay.Batch) -> list[tuple[int, int, int]]:
    """Each record of a batch: (lane, block_lo, block_hi) for a launch, (lane, -1, -1) for a GEMM."""
    from codegen.runtime.host.pack import BATCH_LANE_RECORD, _LaunchCfg

    head, out, at = struct.calcsize(BATCH_LANE_RECORD), [], 0
    for _ in range(batch.count):
        launch, cfg, nargs, lane, _ = struct.unpack_from(BATCH_LANE_RECORD, batch.blob, at)
        at += head + 16 * nargs
        if launch == host.blas.gemm_address():
            out.append((lane, -1, -1))
        else:
            c = _LaunchCfg.from_address(cfg)
            out.append((lane, c.block_lo, c.block_hi))
    return out


def test_a_lanes_span_tags_each_lanes_records(source: KernelSource) -> None:
    fn = CpuBackend().load(source).get_function("put")
    args = (plan.Slot(0), np.int64(0), np.float32(1))

    def put(*grid: int) -> plan.Launch:
        return plan.Launch("put", grid, (32,), 0, args)

    gemm = plan.Gemm(1, 1, 2, (1, 2, 2, False, False, 0, 0, 0, 0, 2, 4, 0, 2))  # 2 products, out at 0 and 2
    steps = (put(1), plan.Lanes(2), gemm, put(3, 2), put(2, 3), put(4, 1, 2), plan.Lanes(0),
             plan.Lanes(2), put(1, 2), plan.Lanes(0))  # (a span right after a span: ordinary records)
    buffers = (X, np.zeros(8, np.float32), np.zeros(4, np.float32))
    native = replay.build(plan.Recording(steps), buffers, lambda symbol: fn, host.switches._launch_settings())
    assert native is not None and len(native.segments) == 1
    assert _records(native.segments[0]) == [
        (0, 0, 0),                 # before the span
        (1, -1, -1), (2, -1, -1),  # the GEMM's products
        (1, 0, 3), (2, 3, 6),      # grid (3, 2): blocks y = 0, then y = 1
        (0, 0, 0),                 # grid (2, 3): its last dimension is not the lanes': one record, every block
        (1, 0, 4), (2, 4, 8),      # grid (4, 1, 2): blocks z = 0, then z = 1
        (0, 0, 0),                 # the second span follows the first's lane records: one record, in order
    ]
