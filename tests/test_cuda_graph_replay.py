"""The cuda backend's recorded launch plans as CUDA graphs (codegen/runtime/cuda_graph.py), on the
stand-in CuPy (tests/fake_cupy.py), which models stream capture strictly: pointers baked at
capture, calls CUDA refuses during a capture, a graph launched on the stream it is given.

Every kernel-only op gives the bits of its launch-by-launch run (OPGEN_NO_REPLAY=1) with poisoned
outputs, one graph launch and no kernel launch from Python on a hit; new input values are seen by a
graph, new buffers never meet a stale one; the graphs kept are bounded; a plan with GEMM steps,
a user's own capture, a refused launch and a failed capture all go launch by launch, as before."""

from __future__ import annotations

import runpy
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fake_cupy
import numpy as np
import pytest
from reference.norm import layer_norm as layer_norm_ref

from codegen.runtime import cuda_graph, device_value_checks, plan
from codegen.runtime.kernels import KernelSource
from codegen.runtime.scope import Scope
from codegen.runtime.stats import python_launches

PROJECT = Path(__file__).resolve().parent.parent
F32 = np.float32


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    """The cuda backend on the fake CuPy with its cuBLAS (outputs poisoned: install sets it)."""
    return fake_cupy.install(monkeypatch, tmp_path, fake_cupy.FakeCublas())


def _cp() -> Any:
    return sys.modules["cupy"]


def _host(out: Any) -> list[np.ndarray | None]:
    """Each output copied to the host (None stays None: an output computed only when asked)."""
    return [None if v is None else np.asarray(v.get()) for v in out]


def _same_bits(got: list[np.ndarray | None], want: list[np.ndarray | None], what: str) -> None:
    assert len(got) == len(want), what
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert (g is None) == (w is None), f"{what}: output {i}"
        if g is not None and w is not None:
            assert g.dtype == w.dtype and g.shape == w.shape and g.tobytes() == w.tobytes(), f"{what}: output {i}"


def _counts() -> tuple[int, int, int]:
    """(kernel launch calls, graph launches, the runtime's launches from Python) so far."""
    st = fake_cupy.state()
    return st.kernel_calls, st.graph_launches, python_launches["from_python"]


def _delta(before: tuple[int, int, int]) -> tuple[int, int, int]:
    return tuple(a - b for a, b in zip(_counts(), before, strict=True))  # type: ignore[return-value]


# Each kernel-only op (`ls generated/nn generated/norm`), with its launch plan's branches: (function
# name in generated, builder of its inputs as NumPy arrays, keyword arguments).
def _bn_args(rng: np.random.Generator, shape: tuple[int, ...], c: int) -> list[np.ndarray]:
    return [rng.standard_normal(shape).astype(F32), rng.standard_normal(c).astype(F32),
            rng.standard_normal(c).astype(F32), rng.standard_normal(c).astype(F32),
            (np.abs(rng.standard_normal(c)) + 0.5).astype(F32)]


def _bn_grad_args(rng: np.random.Generator, shape: tuple[int, ...] = (2, 3, 4, 5)) -> list[np.ndarray]:
    x, scale, _, mean, var = _bn_args(rng, shape, shape[-1])
    return [rng.standard_normal(x.shape).astype(F32), x, scale, mean, var, np.zeros(0, F32)]


def _ln_grad_args(rng: np.random.Generator) -> list[np.ndarray]:
    x = rng.standard_normal((7, 40)).astype(F32)
    _, mean, rstd = layer_norm_ref(x, None, None, 1e-5)
    return [rng.standard_normal(x.shape).astype(F32), x, mean.astype(F32), rstd.astype(F32),
            rng.standard_normal(40).astype(F32)]


CASES: dict[str, tuple[str, Callable[[np.random.Generator], list[np.ndarray]], dict[str, Any]]] = {
    "BiasAdd-NHWC": ("bias_add", lambda r: [r.standard_normal((2, 3, 4, 5)).astype(F32),
                                            r.standard_normal(5).astype(F32)], {}),
    "BiasAdd-NCHW": ("bias_add", lambda r: [r.standard_normal((2, 5, 3, 4)).astype(F32),
                                            r.standard_normal(5).astype(F32)], {"data_format": "NCHW"}),
    "BiasAddGrad-NHWC": ("bias_add_grad", lambda r: [r.standard_normal((6, 7, 5)).astype(F32)], {}),
    "BiasAddGrad-NCHW": ("bias_add_grad", lambda r: [r.standard_normal((3, 5, 40)).astype(F32)],
                         {"data_format": "NCHW"}),
    "FusedBatchNormV3-training": ("fused_batch_norm_v3", lambda r: _bn_args(r, (2, 3, 4, 5), 5), {}),
    "FusedBatchNormV3-NCHW-inference": ("fused_batch_norm_v3", lambda r: _bn_args(r, (2, 5, 3, 4), 5),
                                        {"data_format": "NCHW", "is_training": False}),
    "FusedBatchNormGradV3": ("fused_batch_norm_grad_v3", _bn_grad_args, {}),
    "FusedBatchNormGradV3-inference": ("fused_batch_norm_grad_v3", _bn_grad_args, {"is_training": False}),
    "LayerNorm": ("layer_norm", lambda r: [r.standard_normal((6, 33)).astype(F32), r.standard_normal(33).astype(F32),
                                           r.standard_normal(33).astype(F32)], {}),
    "LayerNorm-no-affine": ("layer_norm", lambda r: [r.standard_normal((5, 8)).astype(F32)], {}),
    "LayerNormGrad": ("layer_norm_grad", _ln_grad_args, {}),
    "Softmax-rows": ("softmax", lambda r: [r.standard_normal((6, 33)).astype(F32)], {}),
    "Softmax-columns": ("softmax", lambda r: [r.standard_normal((3, 9, 4)).astype(F32)], {"axis": 1}),
    "SoftmaxGrad-rows": ("softmax_grad", lambda r: [r.random((6, 33)).astype(F32),
                                                    r.standard_normal((6, 33)).astype(F32)], {}),
    "SoftmaxGrad-columns": ("softmax_grad", lambda r: [r.random((3, 9, 4)).astype(F32),
                                                       r.standard_normal((3, 9, 4)).astype(F32)], {"axis": 1}),
}


def _op(name: str) -> Callable[..., Any]:
    import generated

    return getattr(generated, name)  # type: ignore[no-any-return]


@pytest.mark.parametrize("case", list(CASES))
def test_every_kernel_only_op_replays_its_launch_by_launch_bits(fake: Any, case: str,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    name, build, kwargs = CASES[case]
    fn = _op(name)
    inputs = [_cp().asarray(a) for a in build(np.random.default_rng(3))]  # device arrays: fixed pointers
    monkeypatch.setenv("OPGEN_NO_REPLAY", "1")
    before = _counts()
    want = _host(fn(*inputs, **kwargs, scope=Scope("cuda")))
    launches, graphs, _ = _delta(before)
    assert launches > 0 and graphs == 0
    monkeypatch.delenv("OPGEN_NO_REPLAY")
    before = _counts()
    first = _host(fn(*inputs, **kwargs, scope=Scope("cuda")))  # captured (its launches), then launched
    assert _delta(before)[:2] == (launches, 1)
    before, captures = _counts(), cuda_graph.stats["captures"]
    second = _host(fn(*inputs, **kwargs, scope=Scope("cuda")))  # the same pointers (the pool's blocks): a hit
    assert _delta(before) == (0, 1, 1), "a hit: one graph launch, no kernel launch from Python"
    assert cuda_graph.stats["captures"] == captures
    _same_bits(first, want, f"{case}: captured")
    _same_bits(second, want, f"{case}: replayed")
    assert want[0] is not None and np.isfinite(want[0]).all(), "the first output was computed"
    assert not fake_cupy.state().stale
    fake_cupy.state().synchronize()


def test_new_input_values_after_capture_give_fresh_results(fake: Any) -> None:
    from generated import fused_batch_norm_grad_v3, layer_norm

    cp, rng = _cp(), np.random.default_rng(5)
    x, gamma, beta = (cp.asarray(a) for a in CASES["LayerNorm"][1](rng))
    layer_norm(x, gamma, beta, scope=Scope("cuda"))
    layer_norm(x, gamma, beta, scope=Scope("cuda"))
    for _ in range(3):
        new_x = rng.standard_normal(x.shape).astype(F32)
        x[...] = new_x  # the same buffer, new values: the graph reads them
        before = _counts()
        out = layer_norm(x, gamma, beta, scope=Scope("cuda"))
        assert _delta(before)[:2] == (0, 1)
        y, _, rstd = layer_norm_ref(new_x, gamma.get(), beta.get(), 1e-5)
        np.testing.assert_allclose(out.y.get(), y, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(out.rstd.get(), rstd, rtol=1e-5, atol=1e-5)
        del out
    dy, xb, scale, mean_b, var_b, empty = (cp.asarray(a) for a in _bn_grad_args(rng))
    fused_batch_norm_grad_v3(dy, xb, scale, mean_b, var_b, empty, scope=Scope("cuda"))
    fused_batch_norm_grad_v3(dy, xb, scale, mean_b, var_b, empty, scope=Scope("cuda"))
    host_args = _bn_grad_args(np.random.default_rng(9))
    dy[...], xb[...] = host_args[0], host_args[1]
    before = _counts()
    got = _host(fused_batch_norm_grad_v3(dy, xb, scale, mean_b, var_b, empty, scope=Scope("cuda")))
    assert _delta(before)[:2] == (0, 1)
    _same_bits(got, _host(fused_batch_norm_grad_v3(host_args[0], host_args[1], scale.get(), mean_b.get(), var_b.get(),
                                                   empty.get(), scope=Scope("cuda"))), "new values")
    assert not fake_cupy.state().stale


def test_new_buffers_never_reuse_a_stale_graph(fake: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Outputs kept alive (new pointers every call), inputs swapped between two buffers: each call
    whose pointers differ captures its own graph, and every result is its own call's."""
    from generated import softmax_grad

    cp, rng = _cp(), np.random.default_rng(7)
    a, b = (cp.asarray(rng.standard_normal((4, 20)).astype(F32)) for _ in range(2))
    kept = []
    calls = [(a, b), (b, a), (a, b), (b, a)]
    for i, (y, dy) in enumerate(calls):
        before = _counts()
        kept.append(softmax_grad(y, dy, scope=Scope("cuda")))
        assert _delta(before)[:2] == (1, 1), f"call {i}: its output is a new buffer: a new graph"
    monkeypatch.setenv("OPGEN_NO_REPLAY", "1")
    for (y, dy), out in zip(calls, kept, strict=True):
        _same_bits(_host(out), _host(softmax_grad(y, dy, scope=Scope("cuda"))), "kept output")
    assert not fake_cupy.state().stale


def test_the_graphs_kept_per_recording_are_bounded(fake: Any) -> None:
    from generated import softmax
    from generated.norm import softmax as module

    x = _cp().asarray(np.random.default_rng(1).standard_normal((3, 11)).astype(F32))
    kept = [softmax(x, scope=Scope("cuda")) for _ in range(cuda_graph.MAX_GRAPHS + 3)]  # new outputs: new graphs
    recording = list(module._PLAN.recordings.values())[-1]  # (the one used last)
    graphs = next(v for k, v in recording.native.items() if k[1] is fake.backend)
    assert len(graphs.graphs) == cuda_graph.MAX_GRAPHS
    del kept[-1]  # its blocks go back to the pool, and the next call gets them: the newest graph, kept
    before = _counts()
    kept.append(softmax(x, scope=Scope("cuda")))
    assert _delta(before)[:2] == (0, 1)


def test_no_replay_turns_off_recording_reuse_graphs_and_native_batches(fake: Any,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from codegen.runtime.cpu import CpuBackend
    from generated import bias_add
    from generated.nn import bias_add as module

    monkeypatch.setenv("OPGEN_NO_REPLAY", "1")
    value, bias = np.ones((3, 17), F32), np.arange(17, dtype=F32)
    kept = len(module._PLAN.recordings)
    before = _counts()
    for _ in range(3):
        out = bias_add(value, bias, scope=Scope("cuda")).output
        np.testing.assert_array_equal(out.get(), value + bias)
    launches, graphs, _ = _delta(before)
    assert launches == 3 and graphs == 0 and len(module._PLAN.recordings) == kept

    def refuse(*args: Any) -> bool:
        raise AssertionError("a backend replay with OPGEN_NO_REPLAY=1")

    monkeypatch.setattr(CpuBackend, "replay", refuse)
    np.testing.assert_array_equal(bias_add(value, bias, scope=Scope("cpu")).output, value + bias)
    assert len(module._PLAN.recordings) == kept


PARITY = runpy.run_path(str(PROJECT / "scripts" / "gpu_parity.py"))


def _gemm_op_runs(op_name: str) -> tuple[Any, Any, Any, tuple[int, int, int]]:
    """Three calls of an op with GEMM steps on the cuda backend: (the op, its case, the last
    outputs, the counts' deltas over the last two calls)."""
    from codegen.warmup import generated_ops

    op = next(o for o in generated_ops() if o.name == op_name)
    case = PARITY["BUILDERS"][op_name](np.random.default_rng(0))[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # GRUBlockCell's deprecation
        PARITY["run_case"](op, case, Scope("cuda"))  # (recorded, captured if it can be)
        before = _counts()
        for _ in range(2):
            out = PARITY["run_case"](op, case, Scope("cuda"))
    return op, case, out, _delta(before)


@pytest.mark.parametrize("op_name", ["GRUBlockCell", "DmlRnn", "CudnnRNNV3"])
def test_plans_with_gemm_steps_run_launch_by_launch_where_cublas_refuses_capture(fake: Any, op_name: str) -> None:
    """A CuPy whose gemm binding sets the current stream itself refuses cuBLAS in any capture: the
    capture fails once (counted), and the recording runs launch by launch, with the cpu backend's
    results within parity's tolerance."""
    failures = cuda_graph.stats["capture_failures"]
    op, case, out, (launches, graphs, _) = _gemm_op_runs(op_name)
    assert launches > 0 and graphs == 0
    assert cuda_graph.stats["capture_failures"] == failures + 1
    assert fake.cublas.calls, "the GEMM steps went through cuBLAS"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        ref = PARITY["run_case"](op, case, Scope("cpu"))
    result = PARITY["compare"](op_name, case.label, ref, out)
    assert result.ok, result


@pytest.mark.parametrize("library", ["ctypes", "binding-leaves-stream"])
@pytest.mark.parametrize("op_name", ["GRUBlockCell", "DmlRnn", "CudnnRNNV3"])
def test_plans_with_gemm_steps_are_graphed_where_cublas_captures(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                                  op_name: str, library: str) -> None:
    """cuBLAS through ctypes with our own handles (cublas_library.py: what a GPU gets), or a CuPy
    gemm binding that leaves the stream to the handle: the handle is bound to the capture stream
    before the capture, so the GEMM steps are captured with the kernels; each later call is one
    graph launch, bit for bit the launch-by-launch results."""
    cublas = fake_cupy.FakeCublasLibrary() if library == "ctypes" else fake_cupy.FakeCublas(binding_sets_stream=False)
    fake = fake_cupy.install(monkeypatch, tmp_path, cublas)
    failures = cuda_graph.stats["capture_failures"]
    checks = device_value_checks.stats["launched"]
    op, case, out, (_, graphs, from_python) = _gemm_op_runs(op_name)
    # each call one graph launch from Python (a call whose inputs the pool put elsewhere captures anew),
    # and one check kernel where the call's sequence_lengths are checked on the device
    checks = device_value_checks.stats["launched"] - checks
    assert checks in (0, 3) and (graphs, from_python) == (2, 2 + checks * 2 // 3)
    assert cuda_graph.stats["capture_failures"] == failures
    calls = len(fake.cublas.calls)
    monkeypatch.setenv("OPGEN_NO_REPLAY", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        alone = PARITY["run_case"](op, case, Scope("cuda"))
    assert len(fake.cublas.calls) > calls  # (launch by launch: cuBLAS called now)
    _same_bits(_host(out), _host(alone), op_name)


def test_a_users_own_capture_receives_the_launches_as_before(fake: Any) -> None:
    """On a stream that is capturing, the op's launches go into the user's capture (no graph of
    the backend's, no capture of its own); outside it, the backend's graph runs on that stream."""
    from generated import layer_norm

    cp, rng = _cp(), np.random.default_rng(11)
    x, gamma, beta = (cp.asarray(a) for a in CASES["LayerNorm"][1](rng))
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        layer_norm(x, gamma, beta, scope=Scope("cuda"))
        assert stream.graph_launches == 1  # the backend's graph, launched on the caller's stream
        stream.begin_capture()
        before = _counts()
        out = layer_norm(x, gamma, beta, scope=Scope("cuda"))
        assert _delta(before)[:2] == (1, 0) and len(stream.capture.nodes) == 1
        graph = stream.end_capture()
    assert np.isnan(out.y).all()  # captured, not run
    new_x = rng.standard_normal(x.shape).astype(F32)
    x[...] = new_x
    other = cp.cuda.Stream()
    graph.launch(other)  # a graph launched on another stream runs there
    assert other.graph_launches == 1 and stream.graph_launches == 1
    y, _, _ = layer_norm_ref(new_x, gamma.get(), beta.get(), 1e-5)
    np.testing.assert_allclose(out.y.get(), y, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("plan", ["data", "loop"])
def test_a_users_graph_keeps_the_calls_scratch_until_released(fake: Any, monkeypatch: pytest.MonkeyPatch,
                                                               plan: str) -> None:
    """FusedBatchNormGradV3 frees its scratch (partials) when the call returns, and a user's graph
    of the call points at it: inside the user's capture the backend holds every buffer of the call,
    so the graph runs right, again and again, until Scope.release_capture_buffers(); after that the
    scratch is freed and the fake reports the graph's stale pointer (what a GPU would do silently).
    The same with the plan run as the printed loop (OPGEN_PLAN=loop)."""
    from generated import fused_batch_norm_grad_v3

    monkeypatch.setenv("OPGEN_PLAN", plan)
    cp, rng = _cp(), np.random.default_rng(2)
    # 2·16·13 = 416 rows a channel: past grad_once's 384 (which keeps its rows in registers), so the
    # cuda plan's three launches pass the partials through the call's scratch
    host = _bn_grad_args(rng, (2, 16, 13, 5))
    args = [cp.asarray(a) for a in host]
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        out = fused_batch_norm_grad_v3(*args, scope=Scope("cuda"))
        graph = stream.end_capture()
        for _ in range(2):
            host[0] = rng.standard_normal(host[0].shape).astype(F32)
            args[0][...] = host[0]
            graph.launch()
            want = fused_batch_norm_grad_v3(*host, scope=Scope("cpu"))
            for name in ("x_backprop", "scale_backprop", "offset_backprop"):
                np.testing.assert_allclose(getattr(out, name).get(), getattr(want, name), rtol=1e-4, atol=1e-4,
                                           err_msg=name)
    assert not fake_cupy.state().stale
    assert Scope("cuda").release_capture_buffers() > 0
    assert Scope("cuda").release_capture_buffers() == 0
    with stream:
        graph.launch()
    assert fake_cupy.state().stale and "its buffer was freed after the capture" in fake_cupy.state().stale[0]
    with pytest.raises(fake_cupy.CUDADriverError, match="CUDA_ERROR_ILLEGAL_ADDRESS"):
        out.x_backprop.get()


def test_calls_outside_a_capture_hold_nothing(fake: Any) -> None:
    from generated import fused_batch_norm_grad_v3

    cp = _cp()
    args = [cp.asarray(a) for a in _bn_grad_args(np.random.default_rng(3))]
    fused_batch_norm_grad_v3(*args, scope=Scope("cuda"))
    assert Scope("cuda").release_capture_buffers() == 0
    assert Scope("cpu").release_capture_buffers() == 0


def test_holding_past_a_gibibyte_warns(fake: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from codegen.runtime import cuda

    monkeypatch.setattr(cuda, "HELD_WARNING_BYTES", 64)
    cp = _cp()
    args = [cp.asarray(a) for a in _bn_grad_args(np.random.default_rng(4))]
    stream = cp.cuda.Stream(non_blocking=True)
    from generated import fused_batch_norm_grad_v3

    with stream, pytest.warns(ResourceWarning, match=r"release_capture_buffers"):
        stream.begin_capture()
        fused_batch_norm_grad_v3(*args, scope=Scope("cuda"))
        stream.end_capture()
    Scope("cuda").release_capture_buffers()


# A hand-made plan (codegen/runtime/plan.py literals) around one tiny kernel.
PUT = r"""
extern "C" __global__ void put(float* x, long long i, float v) {
  if (threadIdx.x == 0) x[i] = v;
}
"""


def _put_plan(block: int = 1) -> plan.Plan:
    args = (("buf", 0), ("scalar", "_np.int64", "i", None, ()), ("scalar", "_np.float32", "v", None, ()))
    return plan.Plan("Put", ("i", "v"), ("x",), (("launch", "put", (), (1,), (block,), 0, args, ()),),
                     {"put": {(): "put"}})


@pytest.fixture
def put(tmp_path: Path) -> KernelSource:
    path = tmp_path / "put.cu"
    path.write_text(PUT)
    return KernelSource("Put", path)


def test_a_launch_the_checks_refuse_is_raised_as_before(fake: Any, put: KernelSource) -> None:
    from codegen.runtime.cuda import CudaLaunchError

    x = fake.backend.empty([4], "float32")
    with pytest.raises(CudaLaunchError, match=r"Put: put: invalid launch configuration grid \[1\], block \[2048\]"):
        plan.run_plan(fake.backend, put, _put_plan(block=2048), (1, 2.5), (x,))
    assert not fake_cupy.state().captures


def test_arrays_on_another_device_fault_as_launch_by_launch(fake: Any, put: KernelSource,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The graph bakes the other device's pointer: its kernel faults at the next synchronize, as
    the launch does without graphs."""
    cp = _cp()
    for replay in ("0", "1"):
        monkeypatch.setenv("OPGEN_NO_REPLAY", replay)
        fake_cupy.state().fault = None
        with cp.cuda.Device(1):
            x = cp.empty(4, F32)
        plan.run_plan(fake.backend, put, _put_plan(), (1, 2.5), (x,))
        with pytest.raises(fake_cupy.CUDADriverError, match="a kernel argument lives on another device"):
            fake_cupy.state().synchronize()


def test_a_failed_capture_is_ended_and_the_plan_runs_launch_by_launch(fake: Any, put: KernelSource,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    real_end = fake_cupy.FakeStream.end_capture

    def invalidated(self: Any) -> Any:
        self.capture.invalidated = "something refused in the capture"
        return real_end(self)

    monkeypatch.setattr(fake_cupy.FakeStream, "end_capture", invalidated)
    p = _put_plan()
    x = _cp().asarray(np.zeros(4, F32))
    before = _counts()
    for _ in range(3):
        x[...] = 0
        plan.run_plan(fake.backend, put, p, (1, 2.5), (x,))
        assert x.get().tolist() == [0, 2.5, 0, 0]
    assert _delta(before)[:2] == (1 + 3, 0)  # one captured launch, then three launches; no graph
    assert not fake_cupy.state().captures  # the capture was ended
    assert all(g.steps is None for r in p.recordings.values() for g in r.native.values())  # not tried again


def test_pointer_lists_run_launch_by_launch(fake: Any, put: KernelSource) -> None:
    args = (("ptrs", 0), ("scalar", "_np.int64", "i", None, ()))
    p = plan.Plan("Put", ("i",), ("xs",), (("launch", "put", (), (1,), (1,), 0, args, ()),),
                  {"put": {(): "put"}})
    recording = p.recording("cuda", (0,))
    assert fake.backend.replay(put, recording, ([],)) is False


# ------------------------------------------------------------------ the fake's capture rules --

def test_the_fake_refuses_what_cuda_refuses_during_a_capture(fake: Any) -> None:
    cp = _cp()
    x = cp.asarray(np.arange(4, dtype=F32))
    with pytest.raises(RuntimeError, match=r"cannot capture on the default \(legacy\) stream"):
        cp.cuda.get_current_stream().begin_capture()
    stream = cp.cuda.Stream(non_blocking=True)
    illegal: list[tuple[str, Callable[[], Any]]] = [
        ("cudaStreamSynchronize", stream.synchronize),
        ("cudaDeviceSynchronize", cp.cuda.Device(0).synchronize),
        ("device-to-host copy", x.get),
        ("device-to-host copy", lambda: cp.asnumpy(x)),
    ]
    for what, call in illegal:
        with stream:
            stream.begin_capture()
            with pytest.raises(fake_cupy.CUDARuntimeError, match=what):
                call()
            with pytest.raises(fake_cupy.CUDARuntimeError, match="cudaErrorStreamCaptureInvalidated"):
                stream.end_capture()
        assert not stream.is_capturing()
    blocking = cp.cuda.Stream()
    with blocking:
        blocking.begin_capture()
    with pytest.raises(fake_cupy.CUDARuntimeError, match="cudaErrorStreamCaptureImplicit"):
        x.get()  # on the legacy stream while a blocking stream captures
    with blocking, pytest.raises(fake_cupy.CUDARuntimeError, match="Invalidated"):
        blocking.end_capture()
    with stream:
        stream.begin_capture()
        with pytest.raises(NotImplementedError, match="during stream capture"):
            cp.matmul(x.reshape(2, 2), x.reshape(2, 2))  # CuPy refuses before any CUDA call: still valid
        stream.end_capture()


def test_the_fake_allocates_in_a_capture_as_its_mode_allows(fake: Any) -> None:
    cp = _cp()
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()  # CuPy's default mode: relaxed, cudaMalloc allowed
        cp.empty(1000, F32)
        stream.end_capture()
        cp.empty(3000, F32)  # (freed at once: a block of its size in the pool)
        stream.begin_capture(mode=fake_cupy.CAPTURE_GLOBAL)
        cp.empty(3000, F32)  # from the pool: no cudaMalloc
        with pytest.raises(fake_cupy.CUDARuntimeError, match=r"cudaMalloc"):
            cp.empty(5000, F32)
        with pytest.raises(fake_cupy.CUDARuntimeError, match="Invalidated"):
            stream.end_capture()


def test_a_graph_bakes_pointers_not_arrays(fake: Any, put: KernelSource) -> None:
    """New contents of a captured buffer are seen; a new array at the same address (the pool's
    block back) is written; a freed one is a fault."""
    cp = _cp()
    fn = fake.backend.function(put, "put")
    stream = cp.cuda.Stream(non_blocking=True)
    x = cp.asarray(np.zeros(4, F32))
    address = x.data.ptr
    with stream:
        stream.begin_capture()
        fn((1,), (1,), (x, np.int64(1), F32(7)))
        graph = stream.end_capture()
    del x  # freed: the block back in the pool
    graph.launch(stream)
    assert f"0x{address:x}" in fake_cupy.state().stale[0]
    fake_cupy.state().fault, fake_cupy.state().stale[:] = None, []
    y = cp.asarray(np.zeros(4, F32))  # the same block again
    assert y.data.ptr == address
    graph.launch(stream)
    assert y.get().tolist() == [0, 7, 0, 0] and not fake_cupy.state().stale


def test_a_plan_with_only_empty_grids_launches_nothing(fake: Any) -> None:
    from generated import softmax

    x = _cp().asarray(np.zeros((0, 7), F32))
    before = _counts()
    for _ in range(2):
        assert softmax(x, scope=Scope("cuda")).y.shape == (0, 7)
    assert _delta(before)[:2] == (0, 0)


def test_a_recording_whose_calls_keep_missing_stops_capturing(fake: Any) -> None:
    """Every output kept: each call has new pointers, so each would capture (costlier than its
    launches); after GIVE_UP_AFTER such captures the recording runs launch by launch."""
    from generated import bias_add

    value = _cp().asarray(np.ones((2, 9), F32))
    bias = _cp().asarray(np.arange(9, dtype=F32))
    kept = []
    before = _counts()
    for _ in range(cuda_graph.GIVE_UP_AFTER + 5):
        kept.append(bias_add(value, bias, scope=Scope("cuda")).output)
    launches, graphs, _ = _delta(before)
    assert graphs == cuda_graph.GIVE_UP_AFTER and launches == cuda_graph.GIVE_UP_AFTER + 5
    for out in kept:
        np.testing.assert_array_equal(out.get(), np.ones((2, 9), F32) + np.arange(9, dtype=F32))


def test_a_second_device_captures_on_its_own_stream(fake: Any) -> None:
    """The backend of cuda:1 captures on a stream of device 1 (CuPy refuses a stream of another
    device) and its graphs are its own; an input on device 0 is copied as before."""
    from generated import softmax

    cp = _cp()
    host = np.random.default_rng(4).standard_normal((5, 12)).astype(F32)
    with cp.cuda.Device(1):
        x1 = cp.asarray(host)
    x0 = cp.asarray(host)
    outs = []
    before = _counts()
    for x in (x1, x1, x0):
        out = softmax(x, scope=Scope("cuda:1")).y
        assert out.data.device_id == 1
        with cp.cuda.Device(1):
            outs.append(out.get())
        del out
    assert _delta(before)[1] == 3
    for got in outs:
        np.testing.assert_array_equal(got, outs[0])
    fake_cupy.state().synchronize()


# ------------------------------------------------------------------------------ GPU --
# The same on a real GPU (the GPU check runs them): CuPy's own pool decides the pointers, so a hit
# is looked for over a few calls; kernels that reduce with atomics may sum in another order, so
# results are compared within float32's rounding, not bit for bit.

gpu = pytest.mark.gpu


@gpu
@pytest.mark.parametrize("case", list(CASES))
def test_on_the_gpu_graphs_match_launch_by_launch_and_hit(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import cupy as cp

    name, build, kwargs = CASES[case]
    fn = _op(name)
    inputs = [cp.asarray(a) for a in build(np.random.default_rng(3))]
    monkeypatch.setenv("OPGEN_NO_REPLAY", "1")
    want = _host(fn(*inputs, **kwargs, scope=Scope("cuda")))
    monkeypatch.delenv("OPGEN_NO_REPLAY")
    captures, launches = cuda_graph.stats["captures"], cuda_graph.stats["launches"]
    calls = 4
    for _ in range(calls):  # on CuPy's current stream: the legacy default stream
        got = _host(fn(*inputs, **kwargs, scope=Scope("cuda")))
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            if w is not None:
                np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=f"{case}: output {i}")
    assert cuda_graph.stats["launches"] - launches == calls, "every call one graph launch"
    assert cuda_graph.stats["captures"] - captures < calls, "CuPy's pool gave some call its pointers back: a hit"


@gpu
def test_on_the_gpu_a_graph_sees_new_input_values_on_a_side_stream() -> None:
    import cupy as cp

    from generated import layer_norm

    rng = np.random.default_rng(5)
    x, gamma, beta = (cp.asarray(a) for a in CASES["LayerNorm"][1](rng))
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        for _ in range(4):
            new_x = rng.standard_normal(x.shape).astype(F32)
            x.set(new_x, stream=stream)
            out = layer_norm(x, gamma, beta, scope=Scope("cuda"))
            y, _, _ = layer_norm_ref(new_x, gamma.get(), beta.get(), 1e-5)
            np.testing.assert_allclose(out.y.get(stream=stream), y, rtol=1e-5, atol=1e-5)
            del out


@gpu
@pytest.mark.parametrize("op_name", ["GRUBlockCell", "DmlRnn", "CudnnRNNV3", "CudnnRNNBackpropV3"])
def test_on_the_gpu_gemm_plans_are_graphs_matching_launch_by_launch(op_name: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The GEMM steps captured through cuBLAS by ctypes (cublas_library.py): every parity case of the
    op within parity's tolerance of launch by launch, no capture failing, and graphs launched (a case
    whose GEMM dtype or layout the direct path does not take runs launch by launch)."""
    from codegen.warmup import generated_ops

    op = next(o for o in generated_ops() if o.name == op_name)
    cases = PARITY["BUILDERS"][op_name](np.random.default_rng(0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # GRUBlockCell's deprecation
        graphed = []
        for case in cases:
            monkeypatch.setenv("OPGEN_NO_REPLAY", "1")
            want = PARITY["run_case"](op, case, Scope("cuda"))
            monkeypatch.delenv("OPGEN_NO_REPLAY")
            failures, launches = cuda_graph.stats["capture_failures"], cuda_graph.stats["launches"]
            for _ in range(3):
                got = PARITY["run_case"](op, case, Scope("cuda"))
            assert cuda_graph.stats["capture_failures"] == failures, cuda_graph.last_capture_failure[0]
            if cuda_graph.stats["launches"] - launches == 3:
                graphed.append(case.label)
            result = PARITY["compare"](op_name, case.label, want, got)
            assert result.ok, result
    assert len(graphed) * 2 >= len(cases), f"graphed: {graphed} of {[c.label for c in cases]}"
