"""Where the drop-in LSTM/GRU's forward + backward time goes, per phase (issue 35 item 6): each GEMM
shape and each kernel launch of the cpu plans, wall and the calling thread's CPU per call, how many
launches woke the emulation pool and how long the caller then waited for its helper, and every
thread's context switches (voluntary: a thread that slept, i.e. a hand-over; involuntary: preempted).

Needs the runtime built with -DOPGEN_RT_PHASES (emu/rt/phases.cpp, hooked into pool.cpp and batch.cpp):
run with CXX="g++ -DOPGEN_RT_PHASES" (the compiler command is part of every cache key, so this builds a
separate runtime and kernel modules and leaves the normal ones alone). On a shared machine read the
p10 columns (a phase's quick runs: what it costs when nothing else takes the core) beside the sums.

    CXX="g++ -DOPGEN_RT_PHASES" python bench/profile_rnn_phases.py [--threads 1|2] [--calls N] [--modes lstm]
"""

from __future__ import annotations

import os
import sys

_threads = next((sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == "--threads"), "2")
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # before NumPy loads
    os.environ[_var] = _threads
os.environ.setdefault("OPGEN_HOST_THREADS", _threads)

import argparse  # noqa: E402
import ctypes  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if PROJECT not in sys.path:
    sys.path.insert(0, PROJECT)

from bench_torch_rnn import LAYERS, SIZE, B, T, forward_backward  # noqa: E402  (bench/ is the script folder)

import generated.torch  # noqa: E402
from codegen.runtime.host.libraries import _RUNTIME  # noqa: E402


def switches() -> dict[int, tuple[int, int, str]]:
    """Every thread of this process: (voluntary, involuntary) context switches and its name."""
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/status") as f:
                fields = dict(line.split(":", 1) for line in f if ":" in line)
        except OSError:
            continue
        out[int(tid)] = (int(fields["voluntary_ctxt_switches"]), int(fields["nonvoluntary_ctxt_switches"]),
                         fields["Name"].strip())
    return out


def phases(reset: bool) -> list[tuple[str, int, int, int, int, int]]:
    fn = _RUNTIME["lib"].opgen_rt_phases
    fn.restype = ctypes.c_char_p
    rows = []
    for line in fn(int(reset)).decode().splitlines():
        key, *nums = line.split("\t")
        rows.append((key, *map(int, nums)))
    return rows


def samples() -> np.ndarray:
    """Every record's (row, wall ns, cpu ns, wait ns) since the last reset, then reset them."""
    fn = _RUNTIME["lib"].opgen_rt_phase_samples
    fn.restype = ctypes.c_void_p
    count = ctypes.c_uint64()
    addr = fn(ctypes.byref(count), 1)
    return np.ctypeslib.as_array(ctypes.cast(addr, ctypes.POINTER(ctypes.c_uint32)),
                                 (count.value, 4)).copy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--modes", default="lstm")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    for mode in args.modes.split(","):
        torch.manual_seed(0)
        cls = generated.torch.LSTM if mode == "lstm" else generated.torch.GRU
        mod = cls(SIZE, SIZE, num_layers=LAYERS, bidirectional=True)
        x = torch.randn(T, B, SIZE)
        grads = [torch.randn(T, B, 2 * SIZE)] + [torch.randn(2 * LAYERS, B, SIZE)] * (2 if mode == "lstm" else 1)
        call = forward_backward(mod, mode, x, grads)

        for _ in range(3):
            call()
        samples()
        phases(reset=True)
        sw0 = switches()
        w0, c0, p0 = time.perf_counter(), time.thread_time(), time.process_time()
        walls = []
        for _ in range(args.calls):
            t = time.perf_counter()
            call()
            walls.append(time.perf_counter() - t)
        w1, c1, p1 = time.perf_counter(), time.thread_time(), time.process_time()
        sw1 = switches()
        n = args.calls
        per = samples()
        rows = phases(reset=True)
        load = os.getloadavg()[0]
        print(f"{mode.upper()} threads {args.threads}, {n} calls, load {load:.1f}: "
              f"per call wall {(w1 - w0) / n * 1e3:.1f} ms "
              f"(median {sorted(walls)[n // 2] * 1e3:.1f}), caller CPU {(c1 - c0) / n * 1e3:.1f} ms, "
              f"process CPU {(p1 - p0) / n * 1e3:.1f} ms")
        print(f"  {'phase':58s} {'n/call':>7s} {'wall ms':>8s} {'cpu ms':>7s} {'us/each':>8s} {'wakes':>6s} "
              f"{'wait ms':>8s} {'p10 us':>7s} {'p50 us':>7s} {'p10cpu':>7s} {'p90 us':>8s} {'max us':>8s}")
        tot_w = tot_c = 0
        quiet = 0.0
        for index, (key, cnt, wall, cpu, wakes, wait) in sorted(enumerate(rows), key=lambda r: -r[1][2]):
            tot_w += wall
            tot_c += cpu
            mine = per[per[:, 0] == index]
            p10, p50 = np.percentile(mine[:, 1], [10, 50]) / 1e3
            quiet += p10 * cnt / n / 1e3
            print(f"  {key[:58]:58s} {cnt / n:7.1f} {wall / n / 1e6:8.2f} {cpu / n / 1e6:7.2f} "
                  f"{wall / cnt / 1e3:8.1f} {wakes / n:6.1f} {wait / n / 1e6:8.2f} {p10:7.1f} {p50:7.1f} "
                  f"{np.percentile(mine[:, 2], 10) / 1e3:7.1f} {np.percentile(mine[:, 1], 90) / 1e3:8.1f} "
                  f"{mine[:, 1].max() / 1e3:8.1f}")
        print(f"  {'all records':58s} {'':7s} {tot_w / n / 1e6:8.2f} {tot_c / n / 1e6:7.2f}")
        print(f"  {'all records at their p10 wall (a quiet-machine estimate)':58s} {'':7s} {quiet:8.2f}")
        print(f"  {'outside the batches (Python, autograd, torch ops)':58s} {'':7s} "
              f"{(w1 - w0) / n * 1e3 - tot_w / n / 1e6:8.2f}")
        print("  context switches per call, by thread (voluntary / involuntary):")
        for tid, (v, i, name) in sorted(sw1.items()):
            v0, i0, _ = sw0.get(tid, (0, 0, name))
            if v - v0 or i - i0:
                print(f"    {tid} {name:16s} {(v - v0) / n:8.1f} / {(i - i0) / n:6.1f}")


if __name__ == "__main__":
    main()
