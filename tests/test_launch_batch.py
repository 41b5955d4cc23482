"""The cpu backend's launch queue (CpuBackend.launch queues, flush() runs the queue in one call
into the emulation runtime, host.LaunchQueue): results bit-identical to launching one at a time,
launches wait for a flush and run in order, a failing launch stops the rest with the message a
launch of its own gives, GEMM steps and returning wrappers flush, and what cannot be queued (the
sanitize build, unusual arguments) still runs in order."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_cudnn_rnn import Case

from codegen.runtime import host
from codegen.runtime.cpu import CpuBackend
from codegen.runtime.kernels import KernelSource
from codegen.testing import host_random_order
from generated import (
    Scope,
    fused_batch_norm_grad_v3,
    fused_batch_norm_v3,
    gru_block_cell,
    gru_block_cell_grad,
    layer_norm,
    softmax,
)

SOURCE = r"""
extern "C" __global__ void put(float* x, long long i, float v) {
  if (blockIdx.x == 0 && threadIdx.x == 0) x[i] = v;
}
extern "C" __global__ void trap_at(float* x, long long block, long long thread) {
  if (blockIdx.x == block && threadIdx.x == thread) __trap();
}
// every argument kind the queue packs: pointers (null too), signed/unsigned ints, float, double, bool
extern "C" __global__ void kinds(const float* a, const float* maybe, double* out, long long i, unsigned int u,
                                 float f, double d, bool b, signed char c) {
  if (threadIdx.x != 0) return;
  out[0] = a[i];
  out[1] = maybe ? 1.0 : 0.0;
  out[2] = u;
  out[3] = f;
  out[4] = d;
  out[5] = b ? 1.0 : 0.0;
  out[6] = c;
}
"""


@pytest.fixture
def source(tmp_path: Path) -> KernelSource:
    path = tmp_path / "batch_kernels.cu"
    path.write_text(SOURCE)
    return KernelSource("BatchTest", path)


def _bits(value: Any) -> list[bytes]:
    """Every array field of an op's outputs as raw bytes (NaN payloads and signed zeros count)."""
    fields = value._asdict() if hasattr(value, "_asdict") else vars(value)
    return [np.ascontiguousarray(v).tobytes() for v in fields.values() if isinstance(v, np.ndarray)]


def _unbatched(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every launch on its own, as before the queue: HostFunction.__call__ at launch time."""
    monkeypatch.setattr(host.LaunchQueue, "add", lambda self, *args: False)


def _runs(case: str, scope: Scope) -> list[Any]:
    rng = np.random.default_rng(7)
    if case == "batch_norm":
        x = rng.standard_normal((2, 5, 7, 33)).astype(np.float32)
        dy = rng.standard_normal(x.shape).astype(np.float32)
        c = 33
        scale, offset = rng.uniform(0.5, 2, c).astype(np.float32), rng.standard_normal(c).astype(np.float32)
        fw = fused_batch_norm_v3(x, scale, offset, np.zeros(c, np.float32), np.ones(c, np.float32), scope=scope)
        grad = fused_batch_norm_grad_v3(dy, x, scale, fw.reserve_space_1, fw.reserve_space_2, fw.reserve_space_3,
                                        scope=scope)
        return [fw, grad]
    if case == "norms":
        x = rng.standard_normal((9, 70)).astype(np.float32)
        return [layer_norm(x, np.ones(70, np.float32), np.zeros(70, np.float32), scope=scope), softmax(x, scope=scope)]
    if case == "gru":  # GEMM steps between kernels
        b, i, h = 3, 4, 5
        f32 = np.float32
        x, h_prev = rng.standard_normal((b, i)).astype(f32), rng.uniform(-1, 1, (b, h)).astype(f32)
        w_ru = (rng.standard_normal((i + h, 2 * h)) * 0.4).astype(f32)
        w_c = (rng.standard_normal((i + h, h)) * 0.4).astype(f32)
        b_ru, b_c = rng.standard_normal(2 * h).astype(f32), rng.standard_normal(h).astype(f32)
        with pytest.warns(DeprecationWarning):
            fw = gru_block_cell(x, h_prev, w_ru, w_c, b_ru, b_c, scope=scope)
            grad = gru_block_cell_grad(x, h_prev, w_ru, w_c, b_ru, b_c, fw.r, fw.u, fw.c,
                                       rng.standard_normal((b, h)).astype(f32), scope=scope)
        return [fw, grad]
    assert case == "cudnn_rnn"  # kernels and GEMMs interleaved over the time steps, both directions
    rnn = Case(direction="bidirectional", layers=2, steps=5, dtype="float32", key=("batch",))
    fw = rnn.forward(scope)
    return [fw, rnn.backward(scope, fw, *rnn.output_grads(fw))]


@pytest.mark.parametrize("seed", [None, 5])
@pytest.mark.parametrize("case", ["batch_norm", "norms", "gru", "cudnn_rnn"])
def test_queued_launches_give_the_bits_of_launches_one_at_a_time(case: str, seed: int | None,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Three ways to run the same plans: replayed natively (a recorded plan's batches, the default),
    queued (the printed loop, OPGEN_PLAN=loop) and each launch on its own: the same bits."""
    monkeypatch.setenv("OPGEN_NATIVE", "0")  # the Python path's three ways (the native runner: test_native_wrappers)
    batches: list[int] = []
    flush = host.LaunchQueue.flush
    replays: list[bool] = []
    replay = CpuBackend.replay

    def counted(self: host.LaunchQueue) -> None:
        batches.append(len(self))
        flush(self)

    def counted_replay(self: CpuBackend, *args: Any) -> bool:
        replays.append(replay(self, *args))
        return replays[-1]

    monkeypatch.setattr(host.LaunchQueue, "flush", counted)
    monkeypatch.setattr(CpuBackend, "replay", counted_replay)
    with host_random_order(seed):
        replayed = [_bits(out) for out in _runs(case, Scope("cpu"))]
        assert replays and all(replays), replays  # every plan ran as native batches
        monkeypatch.setenv("OPGEN_PLAN", "loop")
        queued = [_bits(out) for out in _runs(case, Scope("cpu"))]
        assert max(batches) >= (2 if case in ("batch_norm", "cudnn_rnn") else 1), batches  # several launches as one
        if case in ("gru", "cudnn_rnn"):
            assert len(batches) > 2, batches  # GEMM steps flushed in the middle of the two ops
        with monkeypatch.context() as m:
            _unbatched(m)
            alone = [_bits(out) for out in _runs(case, Scope("cpu"))]
    assert replayed == queued == alone


def test_launches_wait_for_flush_and_run_in_order(source: KernelSource) -> None:
    backend = CpuBackend()
    x = np.zeros(2, np.float32)
    backend.launch(source, "put", (1,), (32,), (x, np.int64(0), np.float32(1)))
    backend.launch(source, "put", (1,), (32,), (x, np.int64(0), np.float32(2)))
    backend.launch(source, "put", (0,), (32,), (x, np.int64(1), np.float32(9)))  # an empty grid: skipped
    assert x.tolist() == [0, 0]
    assert len(backend._queue()) == 2
    backend.flush()
    assert x.tolist() == [2, 0]
    backend.flush()  # nothing queued: nothing happens
    assert x.tolist() == [2, 0]


def test_a_native_call_runs_after_the_launches_its_thread_queued(source: KernelSource,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The native driver runs at once: the launches the Python path queued on this thread go first
    (NativeDriver.call flushes them); a thread that queued nothing has no queue made for it."""
    from generated.norm import softmax as softmax_module

    monkeypatch.setenv("OPGEN_NATIVE", "1")
    scope = Scope("cpu")
    x = np.zeros((1, 4), np.float32)
    softmax(x, scope=scope)  # (the driver built and routed)
    served = softmax_module._NATIVE.served
    scope.backend.launch(source, "put", (1,), (32,), (x, np.int64(0), np.float32(50)))
    y, = softmax(x, scope=scope)
    assert softmax_module._NATIVE.served == served + 1
    assert y[0, 0] > 0.99, "the native call ran before the queued launch"
    seen: list[bool] = []

    def elsewhere() -> None:
        scope.backend.flush()
        seen.append(hasattr(scope.backend._local, "queue"))

    thread = threading.Thread(target=elsewhere)
    thread.start()
    thread.join()
    assert seen == [False]


def test_a_failing_launch_stops_the_batch_with_its_own_message(source: KernelSource) -> None:
    backend = CpuBackend()
    x = np.zeros(2, np.float32)
    trap = (x, np.int64(1), np.int64(3))
    with pytest.raises(host.HostKernelError) as alone:  # the message of the launch on its own
        host.load_module(source.text, name_hint=source.op).get_function("trap_at")((2,), (32,), trap)
    assert "block (1,0,0)" in str(alone.value) and "thread (3,0,0)" in str(alone.value)
    backend.launch(source, "put", (1,), (32,), (x, np.int64(0), np.float32(1)))
    backend.launch(source, "trap_at", (2,), (32,), trap)
    backend.launch(source, "put", (1,), (32,), (x, np.int64(1), np.float32(1)))
    with pytest.raises(host.HostKernelError) as queued:
        backend.flush()
    assert str(queued.value) == str(alone.value)
    assert x.tolist() == [1, 0]  # the launch before ran, the one after did not
    assert len(backend._queue()) == 0
    backend.flush()  # the failed batch is gone
    backend.launch(source, "put", (1,), (32,), (x, np.int64(1), np.float32(3)))
    backend.flush()
    assert x.tolist() == [1, 3]


def test_a_bad_launch_configuration_runs_the_launches_before_it_first(source: KernelSource) -> None:
    backend = CpuBackend()
    x = np.zeros(2, np.float32)
    backend.launch(source, "put", (1,), (32,), (x, np.int64(0), np.float32(1)))
    with pytest.raises(host.HostLaunchError, match=r"kernel 'put': block \(32, 32, 2\) has 2048 threads"):
        backend.launch(source, "put", (1,), (32, 32, 2), (x, np.int64(1), np.float32(1)))
    assert x.tolist() == [1, 0]
    with pytest.raises(host.HostLaunchError, match=r"grid must be an int or a tuple"):
        backend.launch(source, "put", (1.0,), (32,), (x, np.int64(1), np.float32(1)))  # 1.0 == 1, yet no dim


def test_a_gemm_step_sees_the_launches_before_it(source: KernelSource) -> None:
    backend = CpuBackend()
    a, b, out = np.zeros(4, np.float32), np.ones(4, np.float32), np.zeros(4, np.float32)
    backend.launch(source, "put", (1,), (32,), (a, np.int64(1), np.float32(5)))  # a = [[0, 5], [0, 0]]
    backend.gemm(a, b, out, 2, 2, 2, False, False, 0)
    assert out.tolist() == [5, 5, 0, 0]


def test_every_argument_kind_and_unusual_arrays(source: KernelSource) -> None:
    backend = CpuBackend()
    a = np.arange(8, dtype=np.float32)
    a.flags.writeable = False  # read-only inputs pass
    out = np.zeros(7)
    args = (a, None, out, np.int64(3), np.uint32(2**32 - 1), np.float32(0.1), np.float64(-2.5), np.bool_(True),
            np.int8(-7))
    backend.launch(source, "kinds", (1,), (32,), args)
    backend.flush()
    assert out.tolist() == [3, 0, 2**32 - 1, float(np.float32(0.1)), -2.5, 1, -7]
    out[:] = 0  # signedness as the kernel has it, whatever the scalar's (as a launch of its own)
    backend.launch(source, "kinds", (1,), (32,), (a, a, out, np.uint64(1), np.int32(-1), np.float32(1),
                                                  np.float64(1), np.bool_(False), np.uint8(200)))
    backend.flush()
    assert out.tolist() == [1, 1, 2**32 - 1, 1, 1, 0, -56]
    x = np.zeros(2, np.float32)
    backend.launch(source, "put", (1,), (32,), (x, np.int64(0), np.float32(1)))
    with pytest.raises(host.HostArgumentError, match=r"kernel 'kinds' parameter 0 'a' \(pointer\): array is not C-"):
        backend.launch(source, "kinds", (1,), (32,), (a[::2], None, out, *args[3:]))  # the checked path names it
    assert x.tolist() == [1, 0]  # the launch queued before it ran first
    with pytest.raises(host.HostArgumentError, match=r"parameter 3 'i' \(int64\): got Python int"):
        backend.launch(source, "kinds", (1,), (32,), (a, None, out, 3, *args[4:]))


def test_the_sanitize_build_runs_each_launch_at_once(source: KernelSource, monkeypatch: pytest.MonkeyPatch) -> None:
    backend = CpuBackend()
    x = np.zeros(2, np.float32)
    backend.launch(source, "put", (1,), (32,), (x, np.int64(0), np.float32(1)))
    monkeypatch.setattr(host.switches, "_sanitize", True)
    with pytest.raises(host.HostKernelError, match=r"out-of-bounds write"):
        backend.launch(source, "put", (1,), (32,), (x, np.int64(2), np.float32(1)))
    assert x.tolist() == [1, 0]  # the queued launch ran first


def test_each_thread_has_its_own_queue(source: KernelSource) -> None:
    backend = CpuBackend()
    results: dict[int, list[float]] = {}
    barrier = threading.Barrier(2)

    def work(k: int) -> None:
        x = np.zeros(1, np.float32)
        backend.launch(source, "put", (1,), (32,), (x, np.int64(0), np.float32(k)))
        barrier.wait()  # both queued before either flushes
        before = x.tolist()
        barrier.wait()
        backend.flush()
        results[k] = before + x.tolist()

    threads = [threading.Thread(target=work, args=(k,)) for k in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {1: [0, 1], 2: [0, 2]}
