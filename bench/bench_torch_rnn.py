"""The drop-in LSTM and GRU (generated.torch.LSTM / GRU with torch.nn's weights) forward + backward
against torch.nn.LSTM / GRU eager on the CPU (issue 35 item 6: goal <= 1.0x). T=50, B=32, I=H=256,
2 layers, bidirectional, float32, time major; one call = forward, then autograd's backward of the
output and the final states against fixed gradients: the parameters' gradients, and the input's
only with --input-grad (a model's first layer gets none: the input is data).
Medians over interleaved rounds (each a median of 3 calls), so the machine's noise falls on both; also
the median of the per-round ratios (each round's ours / torch.nn), the steadier measure.

    python bench/bench_torch_rnn.py [--rounds N] [--threads 2] [--cpu-time] [--input-grad]
                                    [--modes lstm,gru] [--blas-core NAME] [--rusage]

--threads sets both sides' threads (default 2: the issue's setting); --cpu-time measures the
calling thread's CPU time with one thread everywhere (on a loaded machine the time other processes
take does not count). The header names OpenBLAS's kernel set (bench/blas_core.py). --rusage adds,
per side, the process's minor page faults, system CPU time and context switches per call (medians
over the rounds' calls, the two sides alternated call by call): load-independent evidence of the
kernel's share of a call (fresh pages faulted in, hand-overs) where wall ratios are noisy.
"""

from __future__ import annotations

import os
import sys

from blas_core import choose_from_argv, loaded_core  # bench/ is the script folder

CPU_TIME = "--cpu-time" in sys.argv
_threads = next((sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == "--threads"), "2")
_threads = "1" if CPU_TIME else _threads
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # before NumPy loads
    os.environ[_var] = _threads
if CPU_TIME:
    os.environ["OPGEN_HOST_THREADS"] = "1"
BLAS_CORE = choose_from_argv()

import argparse  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
from collections.abc import Callable  # noqa: E402

import torch  # noqa: E402

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if PROJECT not in sys.path:  # run as a script from anywhere: the project's packages
    sys.path.insert(0, PROJECT)

from common import interleaved_medians, machine  # noqa: E402

import generated.torch  # noqa: E402  (registers torch.ops.opgen.*; LSTM/GRU are its drop-in modules)
from codegen.runtime import host  # noqa: E402

T, B, SIZE, LAYERS = 50, 32, 256, 2


def forward_backward(module: torch.nn.Module, mode: str, x: torch.Tensor,
                     grads: list[torch.Tensor]) -> Callable[[], None]:
    def run() -> None:
        module.zero_grad(set_to_none=True)
        out, state = module(x)
        outs = [out] + (list(state) if mode == "lstm" else [state])
        torch.autograd.backward(outs, grads)
    return run


def rusage_per_call(calls: dict[str, Callable[[], None]], rounds: int) -> dict[str, dict[str, float]]:
    """Per name, the medians over `rounds` calls (the names alternated call by call) of the process's
    minor page faults, system CPU (ms) and voluntary / involuntary context switches during a call."""
    fields = {"page faults": "ru_minflt", "system ms": "ru_stime", "voluntary switches": "ru_nvcsw",
              "involuntary switches": "ru_nivcsw"}
    seen: dict[str, dict[str, list[float]]] = {name: {k: [] for k in fields} for name in calls}
    for _ in range(rounds):
        for name, fn in calls.items():
            before = resource.getrusage(resource.RUSAGE_SELF)
            fn()
            after = resource.getrusage(resource.RUSAGE_SELF)
            for key, field in fields.items():
                delta = getattr(after, field) - getattr(before, field)
                seen[name][key].append(delta * 1e3 if key == "system ms" else delta)
    return {name: {k: statistics.median(v) for k, v in by.items()} for name, by in seen.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--cpu-time", action="store_true")
    parser.add_argument("--input-grad", action="store_true", help="the input requires grad too")
    parser.add_argument("--modes", default="lstm,gru")
    parser.add_argument("--blas-core", default=None)
    parser.add_argument("--rusage", action="store_true", help="page faults, system CPU, switches per call")
    args = parser.parse_args()
    torch.set_num_threads(int(_threads))
    print(f"machine: {machine()}, torch {torch.__version__}, threads {torch.get_num_threads()}"
          f"{', CPU time of the calling thread' if args.cpu_time else ', wall'}; cpu backend build: "
          f"{host.describe_isa()}; OpenBLAS {loaded_core()} kernels ({BLAS_CORE})")
    print(f"T={T}, B={B}, I=H={SIZE}, {LAYERS} layers, bidirectional, float32, input grad: {args.input_grad}; "
          f"medians of {args.rounds} rounds (each a median of 3 calls)")
    for mode in args.modes.split(","):
        torch.manual_seed(0)
        peer_cls, ours_cls = (torch.nn.LSTM, generated.torch.LSTM) if mode == "lstm" else \
            (torch.nn.GRU, generated.torch.GRU)
        theirs = peer_cls(SIZE, SIZE, num_layers=LAYERS, bidirectional=True)
        ours = ours_cls(SIZE, SIZE, num_layers=LAYERS, bidirectional=True)
        ours.load_state_dict(theirs.state_dict())
        x = torch.randn(T, B, SIZE, requires_grad=args.input_grad)
        grads = [torch.randn(T, B, 2 * SIZE)] + [torch.randn(2 * LAYERS, B, SIZE)] * (2 if mode == "lstm" else 1)
        calls = {"opgen": forward_backward(ours, mode, x, grads), "torch.nn": forward_backward(theirs, mode, x, grads)}
        med, samples = interleaved_medians(calls, args.rounds, args.cpu_time)
        rounds = {name: ", ".join(f"{v * 1e3:.0f}" for v in samples[name]) for name in calls}
        print(f"{mode.upper():4s} opgen {med['opgen'] * 1e3:7.1f} ms  torch.nn {med['torch.nn'] * 1e3:7.1f} ms  "
              f"ratio {med['opgen'] / med['torch.nn']:.2f}x (goal <= 1.0x)  "
              f"[rounds: opgen {rounds['opgen']}; torch.nn {rounds['torch.nn']}]")
        # A round times both sides back to back, so its ratio shares that round's load: steadier
        # than the ratio of the two medians when the machine's load moves between rounds.
        ratios = [a / b for a, b in zip(samples["opgen"], samples["torch.nn"], strict=True)]
        print(f"{mode.upper():4s} median of per-round ratios {statistics.median(ratios):.2f}x (goal <= 1.0x)  "
              f"[rounds: {', '.join(f'{r:.2f}' for r in ratios)}]")
        if args.rusage:
            for name, figures in rusage_per_call(calls, args.rounds).items():
                print(f"{mode.upper():4s} {name:8s} per call (median of {args.rounds}): " +
                      ", ".join(f"{k} {v:.1f}" if k == "system ms" else f"{k} {v:.0f}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
