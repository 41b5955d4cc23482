#!/usr/bin/env python3
"""CudnnRNNV3 + CudnnRNNBackpropV3 (forward in training mode, then the whole backward: input,
state and params gradients) against PyTorch's nn.LSTM / nn.GRU forward + autograd backward with
the same weights, in the same run. LSTM and GRU, 2 layers, bidirectional, float32.

* cpu (default): T=50, B=32, I=H=256, equal lengths; the cpu backend against PyTorch CPU (NumPy's
  BLAS runs our GEMMs, called from the emulation runtime; --threads sets both sides' threads).
  Goal (issues 21 and 23): ≤ 1.0×.
* Both print the calls from Python that start device work per forward+backward (goal, issue 23:
  ≤ 8; the printed loop made 848 on the cuda plan).
* cuda (--device cuda): T=100, B=64, I=H=512; the cuda backend against PyTorch's cuDNN RNN, with
  equal lengths (goal: within 1.3×) and with unequal lengths, uniform in [1, T] (ours through
  sequence_lengths, PyTorch's through a PackedSequence, packing and padding included; goal:
  faster than cuDNN). CUDA-event medians around each whole call.

Medians over interleaved rounds (each a median of a few calls), so that load on a shared machine
hits both sides alike. On the cpu, --threads N (default 1) gives both sides N threads: NumPy's
OpenBLAS (set before NumPy loads) and PyTorch's intra-op pool. With more threads than free cores
the BLAS and OpenMP pools spin-wait against each other (and against the emulator's block
threads), and both sides' times turn erratic on a loaded machine.

--cpu-time measures the calling thread's CPU time instead (one thread: the time other processes
take from a loaded machine does not count). The header names OpenBLAS's kernel set (the
environment's OPENBLAS_CORETYPE, or its own pick); --blas-core NAME sets another for one run
(bench/blas_core.py).

    python bench/bench_cudnn_rnn.py [--device cpu|cuda] [--threads 1] [--rounds 7] [--repeats 3] [--quick]
                                    [--cpu-time] [--blas-core NAME] [--markdown FILE]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from blas_core import choose_from_argv, loaded_core  # bench/ is the script folder


def _threads_from_argv() -> int:
    """--threads, read before NumPy is imported (OpenBLAS sizes its pool when it loads)."""
    for i, arg in enumerate(sys.argv):
        if arg == "--threads" and i + 1 < len(sys.argv):
            return int(sys.argv[i + 1])
        if arg.startswith("--threads="):
            return int(arg.split("=", 1)[1])
    return 1


THREADS = _threads_from_argv()
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = str(THREADS)
if "--cpu-time" in sys.argv:
    os.environ["OPGEN_HOST_THREADS"] = "1"  # every kernel on the calling thread, whose CPU time counts
BLAS_CORE = choose_from_argv()  # OpenBLAS's kernel set, also before NumPy loads

import numpy as np  # noqa: E402 -- after the thread settings

PROJECT = Path(__file__).resolve().parent.parent
if str(PROJECT) not in sys.path:
    sys.path.insert(0, str(PROJECT))

from common import cpu_seconds, machine, median_seconds  # noqa: E402 -- bench/ is the script folder
from gpu_timing import cupy_or_reason  # noqa: E402

from codegen.runtime.stats import python_launches  # noqa: E402
from generated import Scope, cudnn_rnn_backprop_v3, cudnn_rnn_v3  # noqa: E402
from generated.rnn import cudnn_rnn_backprop_v3 as backward_module  # noqa: E402
from generated.rnn import cudnn_rnn_v3 as forward_module  # noqa: E402
from opgen_ops.cudnn_rnn import GATES  # noqa: E402

#: the variant thresholds (specs/rnn/cudnn_rnn.family.yaml's params), read from the plan, not restated
PARAMS = forward_module._PLAN.params
#: the LSTM's largest units in the persistent variant (gates·units² ≤ persistent_max_weights; GRU's and
#: RNN's are larger)
PERSISTENT_LSTM_UNITS = math.isqrt(PARAMS["persistent_max_weights"] // 4)

LAYERS = 2
Mode = Literal["lstm", "gru"]
MODES: tuple[Mode, ...] = ("lstm", "gru")


def canonical_from_torch(module: Any, mode: str, layers: int) -> tuple[list[Any], list[Any]]:
    """PyTorch's parameters as the canonical lists (row blocks of weight_ih/hh, bias_ih/hh)."""
    g = GATES[mode]
    weights, biases = [], []
    for layer in range(layers):
        for sfx in ("", "_reverse"):
            for name in ("weight_ih_l", "weight_hh_l"):
                weights += list(getattr(module, f"{name}{layer}{sfx}").detach().chunk(g))
            for name in ("bias_ih_l", "bias_hh_l"):
                biases += list(getattr(module, f"{name}{layer}{sfx}").detach().chunk(g))
    return weights, biases


def setup(torch: Any, mode: str, steps: int, batch: int, size: int, device: str, lengths: np.ndarray):
    """PyTorch's module and inputs, our params (the same weights) and the output gradients."""
    torch.manual_seed(0)
    cls = torch.nn.LSTM if mode == "lstm" else torch.nn.GRU
    module = cls(size, size, num_layers=LAYERS, bidirectional=True).to(device)
    weights, biases = canonical_from_torch(module, mode, LAYERS)
    params = torch.cat([t.reshape(-1) for t in weights + biases]).contiguous()
    x = torch.randn(steps, batch, size, device=device)
    h0 = torch.zeros(2 * LAYERS, batch, size, device=device)
    c0 = torch.zeros(2 * LAYERS, batch, size, device=device)
    dy = torch.randn(steps, batch, 2 * size, device=device)
    mask = (torch.arange(steps, device=device)[:, None] < torch.as_tensor(lengths, device=device)[None, :])
    dy = dy * mask[:, :, None]  # padded steps get no gradient on either side
    dh = torch.randn(2 * LAYERS, batch, size, device=device)
    dc = torch.randn(2 * LAYERS, batch, size, device=device)
    return module, params, x, h0, c0, dy, dh, dc


def torch_step(torch: Any, module: Any, mode: str, x: Any, h0: Any, c0: Any, dy: Any, dh: Any, dc: Any,
               lengths: np.ndarray | None) -> Callable[[], None]:
    """PyTorch's forward + backward (all gradients: input, states, weights)."""
    xs, h0s, c0s = (t.detach().clone().requires_grad_(True) for t in (x, h0, c0))
    lens = torch.as_tensor(lengths, dtype=torch.int64) if lengths is not None else None

    def run() -> None:
        module.zero_grad(set_to_none=True)
        inp = xs if lens is None else torch.nn.utils.rnn.pack_padded_sequence(xs, lens, enforce_sorted=False)
        out, state = module(inp, (h0s, c0s) if mode == "lstm" else h0s)
        if lens is not None:
            out, _ = torch.nn.utils.rnn.pad_packed_sequence(out, total_length=x.shape[0])
        tensors, grads = [out], [dy]
        if mode == "lstm":
            tensors += [state[0], state[1]]
            grads += [dh, dc]
        else:
            tensors.append(state)
            grads.append(dh)
        torch.autograd.backward(tensors, grads)

    return run


def ours_step(scope: Scope, mode: Mode, x: Any, h0: Any, c0: Any, params: Any, lengths: Any, dy: Any, dh: Any,
              dc: Any) -> Callable[[], None]:
    c_in = c0 if mode == "lstm" else c0[:0, 0, 0]
    dc_in = dc if mode == "lstm" else dc[:0, 0, 0]

    def run() -> None:
        fw = cudnn_rnn_v3(x, h0, c_in, params, lengths, scope=scope, rnn_mode=mode, direction="bidirectional")
        cudnn_rnn_backprop_v3(x, h0, c_in, params, lengths, fw.output, fw.output_h, fw.output_c, dy, dh, dc_in,
                              fw.reserve_space, fw.host_reserved, scope=scope, rnn_mode=mode, direction="bidirectional")

    return run


def variants_ran() -> str:
    """The launch variants of the last forward and backward calls (their plans' recordings keep them)."""
    ran = [m._PLAN.latest() for m in (forward_module, backward_module)]
    return "variant: forward {}, backward {}".format(*(r.variant if r is not None else "?" for r in ran))


def launches_per_call(fn: Callable[[], None]) -> int:
    """Calls from Python that start device work (kernel launches, launch batches, GEMMs, graph
    launches: codegen/runtime/stats.py) in one call of `fn`, after a warm-up call."""
    fn()
    before = python_launches["from_python"]
    fn()
    return python_launches["from_python"] - before


def interleaved(a: Callable[[], float], b: Callable[[], float], rounds: int) -> tuple[float, float]:
    ta, tb = [], []
    for _ in range(rounds):
        ta.append(a())
        tb.append(b())
    return statistics.median(ta), statistics.median(tb)


def round_seconds(fn: Callable[[], None], repeats: int, cpu_time: bool) -> Callable[[], float]:
    """One round: the median seconds per call, wall time or (cpu_time) the calling thread's CPU time."""
    if cpu_time:
        return lambda: cpu_seconds(fn, repeats=repeats, warmup=0)[1]
    return lambda: median_seconds(fn, repeats=repeats, warmup=0)


def bench_cpu(args: argparse.Namespace) -> list[str]:
    import torch

    torch.set_num_threads(THREADS)
    steps, batch, size = (20, 16, 128) if args.quick else (50, 32, 256)
    scope = Scope("cpu")
    lengths = np.full(batch, steps, np.int32)
    lines = [f"machine: {machine()}, NumPy {np.__version__}, PyTorch {torch.__version__} "
             f"({torch.get_num_threads()} threads; OpenBLAS {os.environ['OPENBLAS_NUM_THREADS']} threads, "
             f"{loaded_core()} kernels: {BLAS_CORE}); {'CPU time of the calling thread' if args.cpu_time else 'wall'}",
             f"T={steps} B={batch} I=H={size}, {LAYERS} layers, bidirectional, float32, forward (training) + backward"]
    for mode in MODES:
        module, params, x, h0, c0, dy, dh, dc = setup(torch, mode, steps, batch, size, "cpu", lengths)
        ours = ours_step(scope, mode, x.numpy(), h0.numpy(), c0.numpy(), params.numpy(), lengths, dy.numpy(),
                         dh.numpy(), dc.numpy())
        theirs = torch_step(torch, module, mode, x, h0, c0, dy, dh, dc, None)
        ours(), theirs()  # compile, warm up
        launches = launches_per_call(ours)
        t_ours, t_torch = interleaved(round_seconds(ours, args.repeats, args.cpu_time),
                                      round_seconds(theirs, args.repeats, args.cpu_time), args.rounds)
        lines.append(f"{mode:<4}: cpu backend {t_ours * 1e3:8.1f} ms, PyTorch CPU {t_torch * 1e3:8.1f} ms, "
                     f"ratio {t_ours / t_torch:.2f}; launches from Python per forward+backward: {launches}; "
                     f"{variants_ran()}")
    return lines


def bench_cuda(args: argparse.Namespace) -> list[str]:
    cp = cupy_or_reason("bench_cudnn_rnn")
    if cp is None:
        raise SystemExit(2)
    import torch

    steps, batch, size = (20, 16, 128) if args.quick else (100, 64, 512)
    scope = Scope("cuda")
    stream = cp.cuda.get_current_stream()
    rng = np.random.default_rng(0)
    cases = {"equal": np.full(batch, steps, np.int32),
             "unequal": rng.integers(1, steps + 1, batch).astype(np.int32)}
    lines = [f"device: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, CuPy {cp.__version__}, "
             f"PyTorch {torch.__version__} (cuDNN {torch.backends.cudnn.version()})",
             f"T={steps} B={batch} I=H={size}, {LAYERS} layers, bidirectional, float32, forward (training) + backward; "
             f"unequal lengths: mean {cases['unequal'].mean():.1f}"]

    def gpu_ms(fn: Callable[[], None]) -> Callable[[], float]:
        def timed() -> float:
            start, end = cp.cuda.Event(), cp.cuda.Event()
            times = []
            for _ in range(args.repeats):
                torch.cuda.synchronize()
                start.record(stream)
                fn()
                torch.cuda.synchronize()  # PyTorch runs on its own stream
                end.record(stream)
                end.synchronize()
                times.append(cp.cuda.get_elapsed_time(start, end))
            return statistics.median(times) / 1e3

        return timed

    def compare(mode: str, kind: str, lengths: np.ndarray, steps: int, batch: int, size: int) -> str:
        module, params, x, h0, c0, dy, dh, dc = setup(torch, mode, steps, batch, size, "cuda", lengths)
        x_, h0_, c0_, params_, dy_, dh_, dc_ = (cp.asarray(t) for t in (x, h0, c0, params, dy, dh, dc))
        ours = ours_step(scope, mode, x_, h0_, c0_, params_, cp.asarray(lengths), dy_, dh_, dc_)
        theirs = torch_step(torch, module, mode, x, h0, c0, dy, dh, dc, None if kind == "equal" else lengths)
        for _ in range(3):
            ours(), theirs()
        launches = launches_per_call(ours)
        t_ours, t_torch = interleaved(gpu_ms(ours), gpu_ms(theirs), args.rounds)
        return (f"{mode:<4} {kind:<7}: cuda backend {t_ours * 1e3:8.2f} ms, PyTorch cuDNN {t_torch * 1e3:8.2f} ms, "
                f"ratio {t_ours / t_torch:.2f}; launches from Python per forward+backward: {launches}; "
                f"{variants_ran()}")

    for mode in MODES:
        for kind, lengths in cases.items():
            lines.append(compare(mode, kind, lengths, steps, batch, size))
    # small sizes: H = 128 (the GEMM steps; the persistent variant before 2026-11-28, 17× cuDNN) and
    # the LSTM's largest persistent H (no projection, batch ≤ persistent_max_batch; each row names its variant)
    for small in (128, PERSISTENT_LSTM_UNITS):
        lines.append(f"T={steps} B={batch // 2} I=H={small}, otherwise as above")
        for mode in MODES:
            lines.append(compare(mode, "equal", np.full(batch // 2, steps, np.int32), steps, batch // 2, small))
    from codegen.runtime.cuda_graph import last_capture_failure
    from codegen.runtime.stats import snapshot

    lines.append(f"CUDA graph counters after the run: {snapshot().get('cuda_graphs', {})}; "
                 f"device-side value checks: {snapshot().get('value_checks', {})}; "
                 f"latest capture failure: {last_capture_failure[0] or 'none'}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--threads", type=int, default=1, help="BLAS and PyTorch threads on the cpu (default 1)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small shapes (a smoke test)")
    parser.add_argument("--cpu-time", action="store_true",
                        help="the calling thread's CPU time (every kernel on it: OPGEN_HOST_THREADS=1), not wall time")
    parser.add_argument("--blas-core", default=None,
                        help="OPENBLAS_CORETYPE for this run (default: the environment's; bench/blas_core.py)")
    parser.add_argument("--markdown", type=Path, default=None, help="also write the results to this file")
    args = parser.parse_args()
    lines = (bench_cpu if args.device == "cpu" else bench_cuda)(args)
    for line in lines:
        print(line, flush=True)
    if args.markdown is not None:
        title = f"# CudnnRNNV3 + CudnnRNNBackpropV3, {args.device} (bench/bench_cudnn_rnn.py)"
        args.markdown.write_text("\n".join([title, "", "```", *lines, "```", ""]), encoding="utf-8")


if __name__ == "__main__":
    main()
