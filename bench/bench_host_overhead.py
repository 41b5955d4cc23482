"""Host overhead of a call on the cpu backend, tiny inputs: issue 32's cpu goals and their baseline.

LayerNorm [2, 8], Softmax [2, 8] and FusedBatchNormGradV3 [1, 1, 1, 2] (NHWC, float32), each timed
as a whole call through the generated wrapper (NumPy arrays) and through torch.ops.opgen (torch
tensors), against PyTorch's matching op in the same run (torch.nn.functional.layer_norm,
torch.softmax, torch.ops.aten.native_batch_norm_backward on the same values in NCHW).

The host overhead of a path is its call's time less the kernels' own execution, which the runtime
times (codegen/runtime/host/batch_timing.py): one call of that path is recorded at the runtime's
launch-batch entry, and its batches are run again on their own (same kernels, buffers and launch
configurations; no checks, plan or allocation), less as many calls with an empty batch (ctypes and
the runtime's batch entry, which count as overhead). Goals (issue 32): overhead ≤ 3 µs through the
wrapper and ≤ 5 µs through torch.ops; whole calls ≤ 2× PyTorch through either path.

Each figure is the median over interleaved rounds (the best round in brackets: on a shared machine
the steadier measure of what a call costs), each round's the median of 3 samples of `repeat` calls.
PyTorch runs on 2 threads; the emulation on OPGEN_HOST_THREADS, 1 unless the environment sets it:
these launches have 1 or 2 blocks, and a second block handed to the pool's helper thread costs a
wake-up (11–97 µs on the loaded 2-core VM of RESULTS.md's baseline, varying from run to run), which
would swamp both the kernels' execution and the call path's (OPGEN_HOST_THREADS=2 shows it).
Supersedes bench_overhead.py's whole-call figure (which has no PyTorch peer); that script's
"launches stubbed" split, and bench_torch_dispatch.py's, stay there.

--cpu-time times the calling thread's CPU time instead of the wall clock, with PyTorch on 1 thread
(so that all of both sides' work is on that thread): the time other processes take from a shared
machine then does not count (common.cpu_seconds).

The wrappers call their op's native driver (docs/native.md) unless `--python` (OPGEN_NATIVE=0, the
Python path); torch.ops runs the package's default registration, the stable-ABI library calling the
drivers, unless `--torch-python` (OPGEN_TORCH_NATIVE=0: the Python registration; `--torch-native`,
the default now, is still accepted). torch.ops is timed twice: in grad mode (the default:
the op's Autograd-key kernel runs on every call: in Python, codegen/runtime/torch_autograd.py, or
with the native library in C++ where the package's gate loads, docs/pytorch.md; the header says which) and
under `torch.inference_mode()` (the autograd keys excluded, as in a deployed or inference model: the
call goes straight to the op's CPU kernel), each against PyTorch's op in the same mode; the mode is
entered once per sample of `repeat` calls, not per call. Their verdict lines also give aten's nearest
op called the same way, by name through `torch.ops` (torch.ops.aten.native_layer_norm, _softmax,
native_batch_norm_backward), in the same mode and rounds: what PyTorch's own route costs. The
kernels' own execution is recorded on the Python path (the native runner enters the emulation
without the batch log), the same kernels either way.

    python bench/bench_host_overhead.py [--quick] [--cpu-time] [--python] [--torch-python] [--blas-core NAME]
"""

from __future__ import annotations

import os
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

if "--cpu-time" in sys.argv:
    os.environ["OPGEN_HOST_THREADS"] = "1"  # every block on the calling thread, whose CPU time counts
os.environ.setdefault("OPGEN_HOST_THREADS", "1")
os.environ["OPGEN_NATIVE"] = "0" if "--python" in sys.argv else "1"
os.environ["OPGEN_TORCH_NATIVE"] = "0" if "--torch-python" in sys.argv else "1"  # (read on generated.torch's import)
from blas_core import choose_from_argv, loaded_core  # (bench/ is the script folder)

BLAS_CORE = choose_from_argv()  # (before NumPy loads; these ops run no GEMM step, printed for the record)

import numpy as np  # noqa: E402
import torch  # noqa: E402

PROJECT = Path(__file__).resolve().parent.parent
if str(PROJECT) not in sys.path:
    sys.path.insert(0, str(PROJECT))

from common import cpu_seconds, machine, median_seconds  # noqa: E402

import generated.torch  # noqa: E402  (registers torch.ops.opgen.*)
from codegen.runtime.host.batch_timing import record_batches, replayer  # noqa: E402
from generated import Scope, fused_batch_norm_grad_v3, layer_norm, softmax  # noqa: E402

PATHS = ("wrapper", "torch.ops", "torch.ops inference")
INFERENCE = " inference"  # (a path or peer timed under torch.inference_mode())
CLOCKS = {False: "wall clock", True: "the calling thread's CPU time"}
GOALS = {"wrapper": 3.0, "torch.ops": 5.0, "torch.ops inference": 5.0}  # µs of host overhead (issue 32)
RATIO_GOAL = 2.0  # a whole call against PyTorch's, through either path (issue 32)


def cases(scope: Scope) -> dict[str, dict[str, Callable[[], object]]]:
    """Per op: the call through each path and PyTorch's ("peer"), on the same values, and aten's
    nearest op called as torch.ops.opgen's are, by name through `torch.ops` ("floor": PyTorch's own
    cost of that route, its kernel included); the inference ones are the grad-mode calls, timed
    under torch.inference_mode()."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 8), dtype=np.float32)
    gamma, beta = rng.standard_normal(8, dtype=np.float32), rng.standard_normal(8, dtype=np.float32)
    tx, tgamma, tbeta = (torch.from_numpy(a) for a in (x, gamma, beta))
    dy4 = rng.standard_normal((1, 1, 1, 2), dtype=np.float32)
    x4 = rng.standard_normal((1, 1, 1, 2), dtype=np.float32)
    scale, mean = rng.standard_normal(2, dtype=np.float32), rng.standard_normal(2, dtype=np.float32)
    inv = rng.uniform(0.5, 2.0, 2).astype(np.float32)
    empty = np.zeros(0, np.float32)
    t4 = [torch.from_numpy(a) for a in (dy4, x4, scale, mean, inv, empty)]
    nchw = [t.permute(0, 3, 1, 2).contiguous() for t in t4[:2]]  # [1, 2, 1, 1]: PyTorch's layout
    ops = torch.ops.opgen

    def aten_bn_backward() -> object:
        return torch.ops.aten.native_batch_norm_backward(
            nchw[0], nchw[1], t4[2], None, None, t4[3], t4[4], True, 1e-4, [True, True, True])

    table = {
        "LayerNorm [2, 8]": {
            "wrapper": lambda: layer_norm(x, gamma, beta, scope=scope),
            "torch.ops": lambda: ops.layer_norm(tx, tgamma, tbeta),
            "peer": lambda: torch.nn.functional.layer_norm(tx, (8,), tgamma, tbeta),
            "floor": lambda: torch.ops.aten.native_layer_norm(tx, [8], tgamma, tbeta, 1e-5),
        },
        "Softmax [2, 8]": {
            "wrapper": lambda: softmax(x, scope=scope),
            "torch.ops": lambda: ops.softmax(tx),
            "peer": lambda: torch.softmax(tx, -1),
            "floor": lambda: torch.ops.aten._softmax(tx, -1, False),
        },
        "FusedBatchNormGradV3 [1, 1, 1, 2]": {
            "wrapper": lambda: fused_batch_norm_grad_v3(dy4, x4, scale, mean, inv, empty, scope=scope),
            "torch.ops": lambda: ops.fused_batch_norm_grad_v3(*t4),
            "peer": aten_bn_backward,
            "floor": aten_bn_backward,  # (the peer is aten's op through torch.ops already)
        },
    }
    for fns in table.values():
        for way in ("torch.ops", "peer", "floor"):
            fns[way + INFERENCE] = fns[way]
    return table


def kernel_timers(call: Callable[[], object]) -> tuple[Callable[[], None], Callable[[], None], int]:
    """(kernels, crossings, batches) of one recorded call of `call` (batch_timing.replayer; the log
    holds the call's buffers, outputs included)."""
    call()  # (warm: modules loaded, the plan recorded, so the call recorded is a steady-state one)
    native, os.environ["OPGEN_NATIVE"] = os.environ["OPGEN_NATIVE"], "0"  # (the log sees the Python path's)
    try:
        call()
        with record_batches() as log:
            call()
    finally:
        os.environ["OPGEN_NATIVE"] = native
    return (*replayer(log), len(log))


def _figures(us: dict[tuple[str, str], float], op: str, path: str) -> tuple[float, float, float]:
    """(PyTorch's call in the path's mode, the path's call, its kernels' own execution) in µs."""
    peer = "peer" + INFERENCE if path.endswith(INFERENCE) else "peer"
    return us[op, peer], us[op, path], us[op, f"{path} kernels"] - us[op, f"{path} crossings"]


def _batch(fn: Callable[[], object], repeat: int, inference: bool) -> Callable[[], None]:
    """`repeat` calls of fn, under torch.inference_mode() where asked (entered once for all)."""
    def calls() -> None:
        with torch.inference_mode(inference):
            for _ in range(repeat):
                fn()
    return calls


def _floor(us: dict[tuple[str, str], float], op: str, path: str) -> str:
    """A torch.ops path's call beside PyTorch's own op through torch.ops in the same mode."""
    if not path.startswith("torch.ops"):
        return ""
    floor = "floor" + INFERENCE if path.endswith(INFERENCE) else "floor"
    return f"; ours {us[op, path]:.1f} µs, PyTorch's own route (torch.ops.aten) {us[op, floor]:.1f} µs"


def _verdict(met: bool) -> str:
    return "met" if met else "NOT met"


def main() -> None:
    quick = "--quick" in sys.argv
    repeat, rounds = (30, 2) if quick else (400, 7)
    cpu_time = "--cpu-time" in sys.argv
    torch.set_num_threads(1 if cpu_time else 2)
    load_before = os.getloadavg()
    scope = Scope("cpu")
    timed: dict[tuple[str, str], Callable[[], object]] = {}
    batches: dict[tuple[str, str], int] = {}
    ops = cases(scope)
    for op, fns in ops.items():
        for way, fn in fns.items():
            timed[op, way] = fn
        for path in PATHS:  # (the native torch library's kernels are the wrapper's: the log cannot see them)
            torch_path = path.startswith("torch.ops")
            source = fns["wrapper"] if torch_path and os.environ["OPGEN_TORCH_NATIVE"] == "1" else fns[path]
            timed[op, f"{path} kernels"], timed[op, f"{path} crossings"], batches[op, path] = kernel_timers(source)
    samples: dict[tuple[str, str], list[float]] = {key: [] for key in timed}
    for _ in range(rounds):  # interleaved, so the machine's noise falls on every figure alike
        for key, fn in timed.items():
            calls = _batch(fn, repeat, key[1].endswith(INFERENCE))
            seconds = cpu_seconds(calls, repeats=3, warmup=1)[1] if cpu_time else median_seconds(calls, 3, 1)
            samples[key].append(seconds / repeat)
    med = {key: statistics.median(v) * 1e6 for key, v in samples.items()}
    best = {key: min(v) * 1e6 for key, v in samples.items()}
    print(f"machine: {machine()}; torch {torch.__version__} ({torch.get_num_threads()} threads), "
          f"OPGEN_HOST_THREADS={os.environ['OPGEN_HOST_THREADS']}, {BLAS_CORE} (loaded: {loaded_core()}); "
          f"OPGEN_NATIVE={os.environ['OPGEN_NATIVE']}, OPGEN_TORCH_NATIVE={os.environ.get('OPGEN_TORCH_NATIVE', '0')}; "
          f"Autograd kernel: {'C++' if getattr(generated.torch, 'GATED', False) else 'Python'}")
    print(f"load average before {load_before[0]:.2f}, after {os.getloadavg()[0]:.2f}; "
          f"{rounds} rounds x 3 samples x {repeat} calls{' (--quick)' if quick else ''}, "
          f"{CLOCKS[cpu_time]}; "
          "each figure: median of the rounds (best round)")
    print("| op, float32, cpu | PyTorch | path | call | / PyTorch | kernels' own | host overhead (goal) | batches |")
    print("|---|---|---|---|---|---|---|---|")
    for op in ops:
        for path in PATHS:
            (peer, call, kernels), (peer_b, call_b, kernels_b) = (_figures(us, op, path) for us in (med, best))
            print(f"| {op} | {peer:.1f} ({peer_b:.1f}) µs | {path} | {call:.1f} ({call_b:.1f}) µs | "
                  f"{call / peer:.2f}x ({call_b / peer_b:.2f}x) | {kernels:.1f} ({kernels_b:.1f}) µs | "
                  f"{call - kernels:.1f} ({call_b - kernels_b:.1f}) µs (≤ {GOALS[path]:.0f}) | {batches[op, path]} |")
    print(f"goals (issue 32; the medians above): host overhead ≤ the path's goal, whole call ≤ {RATIO_GOAL:.0f}x "
          "PyTorch")
    for op in ops:
        for path in PATHS:
            peer, call, kernels = _figures(med, op, path)
            print(f"- {op}, {path}: host overhead {call - kernels:.1f} µs ≤ {GOALS[path]:.0f}: "
                  f"{_verdict(call - kernels <= GOALS[path])}; whole call {call / peer:.2f}x ≤ {RATIO_GOAL:.0f}x: "
                  f"{_verdict(call / peer <= RATIO_GOAL)}{_floor(med, op, path)}")
    crossing = statistics.median(med[op, f"{path} crossings"] / batches[op, path] for op in ops for path in PATHS)
    print(f"one empty batch from Python (ctypes and the runtime's batch entry; in the overhead): {crossing:.1f} µs")

if __name__ == "__main__":
    main()
