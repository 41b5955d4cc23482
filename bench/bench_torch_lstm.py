"""Training step of a 2-layer bidirectional LSTM classifier (goal <= 1.1x torch.nn.LSTM eager,
issues 23 and 35; issue 14 asked 1.2x): opgen's LSTM module (torch.ops.opgen.cudnn_rnn_v3 on the cpu
backend) under torch.compile against torch.nn.LSTM eager, CPU, both with torch.set_num_threads(2).
One step = forward, loss, backward and an SGD step; T=50, B=32, I=H=256, batch first, the same weights and data for both
(and, for context, opgen's LSTM eager).
Medians over interleaved rounds, so the machine's noise falls on both alike.

    python bench/bench_torch_lstm.py [--rounds N] [--profile] [--cpu-time] [--blas-core NAME]

--profile adds torch.profiler tables of one step of each (where the time goes). --cpu-time measures
the CPU time of the calling thread with one thread everywhere (PyTorch, OpenBLAS for our GEMMs,
OPGEN_HOST_THREADS=1): on a loaded machine the time other processes take does not count.
--blas-core NAME runs our GEMMs on another OpenBLAS kernel set (bench/blas_core.py; the header
names the one in use).
"""

from __future__ import annotations

import os
import sys

from blas_core import choose_from_argv, loaded_core  # bench/ is the script folder

CPU_TIME = "--cpu-time" in sys.argv
if CPU_TIME:  # before NumPy loads: OpenBLAS sizes its pool then
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPGEN_HOST_THREADS"):
        os.environ[_var] = "1"
BLAS_CORE = choose_from_argv()  # OpenBLAS's kernel set (our GEMMs), also before NumPy loads

import argparse  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

import torch  # noqa: E402

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if PROJECT not in sys.path:  # run as a script from anywhere: the project's packages
    sys.path.insert(0, PROJECT)

from common import interleaved_medians, machine  # noqa: E402

import generated.torch  # noqa: E402, F401  (registers torch.ops.opgen.*)
from codegen.runtime import host  # noqa: E402
from opgen_ops.torch_nn import LSTM  # noqa: E402

T, B, IN, H, CLASSES = 50, 32, 256, 256, 10


class Classifier(torch.nn.Module):
    def __init__(self, lstm: type[torch.nn.Module]) -> None:
        super().__init__()
        self.lstm = lstm(IN, H, num_layers=2, bidirectional=True, batch_first=True)
        self.head = torch.nn.Linear(2 * H, CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out, _ = self.lstm(x)
        return self.head(out.mean(1))


def training_step(model: torch.nn.Module, forward: Any, x: torch.Tensor, y: torch.Tensor) -> Any:
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def step() -> None:
        opt.zero_grad(set_to_none=True)
        torch.nn.functional.cross_entropy(forward(x), y).backward()
        opt.step()

    return step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--cpu-time", action="store_true", help="CPU time of the calling thread, one thread each")
    parser.add_argument("--blas-core", default=None,
                        help="OPENBLAS_CORETYPE for this run (default: the environment's; bench/blas_core.py)")
    args = parser.parse_args()
    torch.set_num_threads(1 if args.cpu_time else 2)
    torch.manual_seed(0)
    theirs = Classifier(torch.nn.LSTM)
    ours = Classifier(LSTM)
    ours.load_state_dict(theirs.state_dict())
    x = torch.randn(B, T, IN)
    y = torch.randint(0, CLASSES, (B,))
    compiled = torch.compile(ours, fullgraph=True)
    start = time.perf_counter()
    compiled(x).sum().backward()  # compile the forward and the backward graphs
    print(f"compile (forward and backward): {time.perf_counter() - start:.1f} s")
    ours_eager = Classifier(LSTM)  # for context: the same module without torch.compile
    ours_eager.load_state_dict(theirs.state_dict())
    steps = {"opgen LSTM, torch.compile": training_step(ours, compiled, x, y),
             "torch.nn.LSTM, eager": training_step(theirs, theirs, x, y),
             "opgen LSTM, eager": training_step(ours_eager, ours_eager, x, y)}
    med, samples = interleaved_medians(steps, args.rounds, args.cpu_time)
    print(f"machine: {machine()}, torch {torch.__version__}, threads {torch.get_num_threads()}"
          f"{', CPU time of the calling thread' if args.cpu_time else ''}; cpu backend build: {host.describe_isa()}; "
          f"OpenBLAS {loaded_core()} kernels ({BLAS_CORE})")
    print(f"T={T}, B={B}, I={IN}, H={H}, 2 layers, bidirectional, float32; medians of {args.rounds} rounds "
          f"(each a median of 3 steps)")
    for name, value in med.items():
        spread = ", ".join(f"{v * 1e3:.0f}" for v in samples[name])
        print(f"{name:28s} {value * 1e3:8.1f} ms/step  (rounds: {spread})")
    ratio = med["opgen LSTM, torch.compile"] / med["torch.nn.LSTM, eager"]
    print(f"ratio opgen / torch.nn: {ratio:.2f}x (goal <= 1.1x, issue 35)")
    if args.profile:
        for name, step in steps.items():
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
                step()
            print(f"\n== {name}")
            print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=12))


if __name__ == "__main__":
    main()
