"""The native PyTorch library's pool of large cpu outputs (codegen/runtime/native/host_output_pool.h,
docs/pytorch.md): an output of 8 MiB or more is a block of a process-wide pool made a tensor with
torch_from_blob, handed back when the tensor dies (on any thread) and taken again by the next call
of that size, so its pages are not faulted in and zeroed afresh each call. The drop-in LSTM's reserve
space comes from it with results bit-identical to the pool turned off (the reused block poisoned
first) and within float32 of the float64 NumPy reference; the bound holds; small outputs, a process
exiting with pooled tensors alive and a fork child are unchanged. The pool's lock and fork handlers
are checked from C++ too (tests/fixtures/output_pool_check.cpp), where their absence fails at once."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from reference.cudnn_rnn import canonical_shapes, rnn_backward, rnn_forward

torch = pytest.importorskip("torch")

import generated.torch as opgen_torch  # noqa: E402  (registers torch.ops.opgen.*)
from codegen.runtime import settings as _settings  # noqa: E402
from codegen.runtime import torch_library  # noqa: E402

PROJECT = Path(__file__).resolve().parent.parent
MIB = 1 << 20
MIN_BYTES = 8 * MIB  # OutputPool::kMinBytes (host_pages.h's kHugePageAdviceMinBytes)
MAX_BYTES = 128 * MIB  # OutputPool::kMaxBytes
BLOCK = 2 * MIB  # blocks are whole huge pages

pytestmark = pytest.mark.skipif(not opgen_torch.NATIVE, reason="the native PyTorch library is not loaded here "
                                "(OPGEN_TORCH_NATIVE=0, or it cannot be built): it alone has the pool")


_LIBRARY: list[Path] = []  # (found once)


def _library() -> Path:
    """The package's loaded library (library_path() finds the one `import generated.torch` loaded)."""
    if not _LIBRARY:
        _LIBRARY.append(Path(opgen_torch.library_path()))
    return _LIBRARY[0]


def held() -> int:
    return torch_library.output_pool_bytes(_library())


def block_of(nbytes: int) -> int:
    return -(-nbytes // BLOCK) * BLOCK


@pytest.fixture
def pool() -> Iterator[None]:
    """The pool on and empty (turning it off frees what it holds); on again after the test."""
    gc.collect()
    torch_library.set_output_pool(_library(), False)
    torch_library.set_output_pool(_library(), True)
    assert held() == 0
    yield
    torch_library.set_output_pool(_library(), True)


def pooled(t: Any) -> bool:
    """Whether `t`'s storage is a pool block: torch_from_blob's storage cannot grow, PyTorch's allocator's can."""
    return not t.untyped_storage().resizable()


# ---- the drop-in LSTM's reserve space -------------------------------------------------------------

class Lstm:
    """A 2-layer bidirectional LSTM whose reserve space (~11 MiB) is over the pool's threshold."""

    T, B, SIZE, LAYERS = 24, 32, 128, 2

    def __init__(self) -> None:
        rng = np.random.default_rng(35)
        ws, bs = canonical_shapes("lstm", self.LAYERS, 2, self.SIZE, self.SIZE)
        scale = 1.0 / np.sqrt(self.SIZE)
        self.weights = [(rng.uniform(-1, 1, s) * scale).astype(np.float32) for s in ws]
        self.biases = [rng.uniform(-0.5, 0.5, s).astype(np.float32) for s in bs]
        self.params = np.concatenate([w.ravel() for w in self.weights] + [b.ravel() for b in self.biases])
        self.x = rng.normal(0, 1, (self.T, self.B, self.SIZE)).astype(np.float32)
        self.h0 = rng.uniform(-1, 1, (2 * self.LAYERS, self.B, self.SIZE)).astype(np.float32)
        self.c0 = rng.uniform(-1, 1, (2 * self.LAYERS, self.B, self.SIZE)).astype(np.float32)
        self.dy = rng.normal(0, 1, (self.T, self.B, 2 * self.SIZE)).astype(np.float32)
        self.dh = rng.normal(0, 1, self.h0.shape).astype(np.float32)
        self.dc = rng.normal(0, 1, self.c0.shape).astype(np.float32)

    def forward(self, grad: bool = False) -> tuple[Any, list[Any]]:
        """The op's outputs through torch.ops (is_training: the reserve space is written), and its
        inputs (requiring gradients where `grad`)."""
        inputs = [torch.from_numpy(a.copy()).requires_grad_(grad) for a in (self.x, self.h0, self.c0, self.params)]
        lengths = torch.full((self.B,), self.T, dtype=torch.int32)
        out = torch.ops.opgen.cudnn_rnn_v3(*inputs, lengths, direction="bidirectional", is_training=True)
        return out, inputs

    def reference(self) -> dict[str, Any]:
        return rnn_forward(self.x, self.h0, self.c0, self.weights, self.biases, mode="lstm", bidirectional=True,
                           lengths=np.full(self.B, self.T, np.int32), time_major=True)


def bits(t: Any) -> Any:
    """`t`'s float32 elements as their bits (equal only where every bit is: NaN and -0.0 included);
    another dtype as it is."""
    return t.detach().contiguous().view(torch.int32) if t.dtype == torch.float32 else t


def test_lstm_reserve_space_is_reused_with_the_same_results(pool: None) -> None:
    """The reserve space comes from the pool; freed, its block (poisoned with NaN first) is the next
    call's reserve space, and every output is bit-identical to the pool turned off (PyTorch's
    allocator) and within float32 of the float64 reference: the op writes the whole block."""
    case = Lstm()
    first, _ = case.forward()
    reserve = first[3]
    assert reserve.nbytes >= MIN_BYTES and pooled(reserve)
    assert not any(pooled(t) for t in (first[0], first[1], first[2]))  # (under the threshold: unchanged)
    address, size = reserve.data_ptr(), block_of(reserve.nbytes)
    for t in first:
        if t.is_floating_point():
            t.fill_(float("nan"))
    del first, reserve, t
    assert held() == size  # (its block, back)
    again, _ = case.forward()
    assert again[3].data_ptr() == address, "the freed reserve space's block was not taken again"
    assert held() == 0
    assert torch_library.set_output_pool(_library(), False) is True
    plain, _ = case.forward()
    assert not pooled(plain[3]) and plain[3].data_ptr() != address
    assert not torch.isnan(again[3]).any()
    for k, (a, b) in enumerate(zip(again, plain, strict=True)):
        assert torch.equal(bits(a), bits(b)), f"output {k} differs from the pool's"
    ref = case.reference()
    for k, name in enumerate(("output", "output_h", "output_c")):
        np.testing.assert_allclose(again[k].numpy().astype(np.float64), ref[name], rtol=0, atol=2e-5, err_msg=name)


def test_lstm_gradients_through_a_pooled_reserve_space_are_unchanged(pool: None) -> None:
    """Autograd saves the pooled reserve space for CudnnRNNBackpropV3: its gradients are bit-identical
    to the pool turned off and within float32 of the float64 reference."""
    case = Lstm()
    grads = {}
    for on in (True, False):
        torch_library.set_output_pool(_library(), on)
        out, inputs = case.forward(grad=True)
        assert pooled(out[3]) is on
        torch.autograd.backward([out[0], out[1], out[2]],
                                [torch.from_numpy(g) for g in (case.dy, case.dh, case.dc)])
        grads[on] = [t.grad for t in inputs]
        del out
    for name, a, b in zip(("input", "input_h", "input_c", "params"), grads[True], grads[False], strict=True):
        assert torch.equal(bits(a), bits(b)), name
    ref = rnn_backward(case.reference(), case.dy, case.dh, case.dc)
    flat = np.concatenate([w.ravel() for w in ref["weights"]] + [b.ravel() for b in ref["biases"]])
    for name, got, want in zip(("input", "input_h", "input_c", "params"), grads[True],
                               (ref["input"], ref["input_h"], ref["input_c"], flat), strict=True):
        np.testing.assert_allclose(got.numpy().astype(np.float64), want, rtol=0, atol=1e-4, err_msg=name)


# ---- the pool's rules, on BiasAdd (one output the size of its input) ----------------------------------

def bias_add(mib: float, base: Any | None = None) -> Any:
    """A BiasAdd output of `mib` MiB (float32 rows of 4 KiB; `base`'s leading rows as the input)."""
    rows = int(mib * 256)
    value = base[:rows] if base is not None else torch.ones(rows, 1024)
    return torch.ops.opgen.bias_add(value, torch.zeros(1024))


def test_an_output_freed_on_another_thread_returns_its_block(pool: None) -> None:
    out = bias_add(9)
    assert pooled(out)
    address, size = out.data_ptr(), block_of(out.nbytes)
    assert torch.equal(out, torch.ones(9 * 256, 1024))
    box = [out]
    del out
    freeing = threading.Thread(target=box.clear)
    freeing.start()
    freeing.join()
    assert held() == size
    assert bias_add(9).data_ptr() == address


def test_small_outputs_do_not_come_from_the_pool(pool: None) -> None:
    small = bias_add(7.5)  # (under 8 MiB)
    assert not pooled(small) and small.untyped_storage().resizable()
    del small
    assert held() == 0
    large = bias_add(8)
    assert pooled(large)
    del large
    assert held() == 8 * MIB


def test_a_block_serves_a_request_up_to_half_its_size(pool: None) -> None:
    """As ScratchCache::take: the smallest kept block of the size up to twice it."""
    out = bias_add(20)
    address = out.data_ptr()
    del out
    smaller = bias_add(9)  # (a 10 MiB block wanted: 20 MiB is within twice that)
    assert smaller.data_ptr() == address
    del smaller
    assert held() == 20 * MIB
    tiny = bias_add(8)  # (8 MiB: 20 MiB is more than twice that)
    assert tiny.data_ptr() != address and held() == 20 * MIB


def test_the_pool_keeps_at_most_its_bound(pool: None) -> None:
    """Many sizes freed one after another: what the pool holds never exceeds 128 MiB, the latest
    sizes stay (the oldest let go first), and a block over the bound is never kept."""
    sizes = [9, 40, 12, 31, 17, 60, 23, 50, 10, 33, 70, 11, 14, 80, 15, 16, 13, 90, 8.5, 19]
    base = torch.zeros(131 * 256, 1024)
    seen = address = 0
    for mib in sizes:
        out = bias_add(mib, base)
        assert pooled(out)
        address = out.data_ptr()
        del out
        seen = max(seen, held())
        assert held() <= MAX_BYTES, (mib, held())
    assert seen > MAX_BYTES // 2  # (it did keep blocks)
    assert bias_add(sizes[-1], base).data_ptr() == address, "the latest freed block was let go"
    before = held()
    huge = bias_add(130, base)
    assert pooled(huge)
    del huge
    assert held() == before, "a block over the bound was kept"
    kept = bias_add(19, base).data_ptr()
    assert kept == bias_add(19, base).data_ptr()  # (freed at once, taken again)


def test_the_pool_turned_off_frees_what_it_holds(pool: None) -> None:
    out = bias_add(9)
    del out
    assert held() > 0
    assert torch_library.set_output_pool(_library(), False) is True
    assert held() == 0
    off = bias_add(9)
    assert not pooled(off)
    assert torch_library.set_output_pool(_library(), True) is False


def test_a_pooled_output_behaves_as_a_tensor(pool: None) -> None:
    """What docs/pytorch.md says of it: .numpy() shares it, share_memory_() moves it (its block back
    to the pool), pickling and torch.save copy it, resize_ shrinks and grows back but not beyond (the
    refused resize_ leaves the larger shape, as on any storage that cannot grow)."""
    import io
    import pickle

    out = bias_add(9)
    want = out.clone()
    assert out.numpy().ctypes.data == out.data_ptr()
    assert torch.equal(pickle.loads(pickle.dumps(out)), want)
    buffer = io.BytesIO()
    torch.save(out, buffer)
    buffer.seek(0)
    assert torch.equal(torch.load(buffer), want)
    out.resize_(10, 1024)
    out.resize_(want.shape)
    assert torch.equal(out, want)
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        out.resize_(want.shape[0] + 1, 1024)
    out.resize_(want.shape)  # (PyTorch has set the larger shape before refusing: as for torch.from_numpy's)
    out.share_memory_()
    assert out.is_shared() and torch.equal(out, want)
    assert held() == block_of(want.nbytes)  # (the block it left)


# ---- processes ------------------------------------------------------------------------------------

def _script(script: str, **env_set: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPGEN_TORCH_NATIVE", "OPGEN_TORCH_OUTPUT_POOL")}
    env.update(PYTHONPATH=str(PROJECT), CUDA_VISIBLE_DEVICES="", **env_set)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, env=env,
                          cwd=PROJECT, timeout=600)


_PRELUDE = """
    import threading, torch
    import generated.torch as gt
    def bias_add(mib):
        return torch.ops.opgen.bias_add(torch.ones(int(mib * 256), 1024), torch.zeros(1024))
    def pooled(t):
        return not t.untyped_storage().resizable()
"""


def test_a_process_exits_cleanly_with_pooled_outputs_alive() -> None:
    """Pooled tensors alive at exit (a global, a reference cycle, a thread's) are freed during the
    interpreter's teardown, after static destructors may have run: the pool is never destroyed."""
    proc = _script(_PRELUDE + """
    kept = bias_add(9)
    class Cycle:
        pass
    cycle = Cycle()
    cycle.me, cycle.out = cycle, bias_add(12)
    stop, holding = threading.Event(), threading.Event()
    def hold():
        mine = bias_add(10)
        holding.set()
        stop.wait()
    threading.Thread(target=hold, daemon=True).start()
    holding.wait()  # (a daemon thread still inside an op at exit aborts the process, pool or not)
    assert pooled(kept) and pooled(cycle.out)
    print("alive")
    """)
    assert proc.returncode == 0 and proc.stdout.strip() == "alive", proc.stderr[-3000:]


def test_a_fork_child_runs_the_op_while_the_parent_churns_the_pool() -> None:
    """A thread takes and frees pooled outputs without pause while the main thread forks: each child
    (which may have forked mid-take) runs the op from the pool, its lock free."""
    proc = _script(_PRELUDE + """
    import os, time
    stop = threading.Event()
    def churn():
        while not stop.is_set():
            bias_add(8.5)
    worker = threading.Thread(target=churn)
    worker.start()
    try:
        for _ in range(8):
            time.sleep(0.05)
            pid = os.fork()
            if pid == 0:
                out = bias_add(8.5)
                os._exit(0 if pooled(out) and bool(torch.equal(out, torch.ones(out.shape))) else 3)
            deadline = time.monotonic() + 120
            while True:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    break
                if time.monotonic() > deadline:
                    os.kill(pid, 9)
                    raise SystemExit("a fork child hung")
                time.sleep(0.01)
            assert os.waitstatus_to_exitcode(status) == 0, status
    finally:
        stop.set()
        worker.join()
    print("forked")
    """)
    assert proc.returncode == 0 and proc.stdout.strip() == "forked", proc.stderr[-3000:]


@pytest.fixture(scope="module")
def pool_check(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/fixtures/output_pool_check.cpp built against the pool's header alone (no PyTorch)."""
    from codegen.runtime.host.toolchain import _compiler_command
    from codegen.runtime.torch_library import NATIVE_DIR

    program = tmp_path_factory.mktemp("pool") / "output_pool_check"
    subprocess.run([*_compiler_command(), "-std=c++17", "-O1", "-pthread", "-I", str(NATIVE_DIR),
                    str(PROJECT / "tests" / "fixtures" / "output_pool_check.cpp"), "-o", str(program)],
                   check=True, timeout=300)
    return program


def test_a_fork_child_never_inherits_the_pools_lock_taken(pool_check: Path) -> None:
    """One thread takes and hands back a block without pause, so the pool's lock is held much of the
    time, while the main thread forks 200 times; each child takes a block. Without the pool's fork
    handlers (pthread_atfork) a child hangs within a few forks."""
    proc = subprocess.run([str(pool_check), "fork", "200"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and proc.stdout.strip() == "forked 200", proc.stdout + proc.stderr


def test_threads_never_share_a_block(pool_check: Path) -> None:
    """Four threads take and hand back blocks of three sizes, each writing its mark over its block and
    reading it back: no block is ever two holders' (without the pool's lock this crashes), and what
    the pool holds idle stays within its bound."""
    proc = subprocess.run([str(pool_check), "threads", "20000"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and proc.stdout.startswith("clashes 0,"), proc.stdout + proc.stderr


def test_the_setting_turns_the_pool_off() -> None:
    """OPGEN_TORCH_OUTPUT_POOL=0, read when generated.torch loads its library (settings.py; the flag's
    other spellings are test_settings.py's, the pool on by default this process's own tests)."""
    proc = _script(_PRELUDE + """
    print(pooled(bias_add(9)))
    """, OPGEN_TORCH_OUTPUT_POOL="0")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "False"


def test_a_bad_setting_names_the_variable(monkeypatch: Any) -> None:
    monkeypatch.setenv("OPGEN_TORCH_OUTPUT_POOL", "maybe")
    with pytest.raises(_settings.SettingError, match=r"OPGEN_TORCH_OUTPUT_POOL='maybe': expected 1 or 0"):
        _settings.TORCH_OUTPUT_POOL.get()
