"""bench/bench_host_overhead.py runs end to end (--quick) and prints every line of its table."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parent.parent
OPS = ("LayerNorm [2, 8]", "Softmax [2, 8]", "FusedBatchNormGradV3 [1, 1, 1, 2]")


@pytest.mark.parametrize("clock", [[], ["--cpu-time"]], ids=["wall", "cpu-time"])
def test_bench_host_overhead_quick(clock: list[str]) -> None:
    # the build a benchmark times: the sanitize build's launches run one by one, and are refused by
    # its kernel timing (tests/test_batch_timing.py); random order only slows the same launches
    env = {k: v for k, v in os.environ.items() if k not in ("OPGEN_HOST_SANITIZE", "OPGEN_HOST_RANDOM_ORDER")}
    proc = subprocess.run([sys.executable, str(PROJECT / "bench" / "bench_host_overhead.py"), "--quick", *clock],
                          cwd=PROJECT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("machine: ") and "OPGEN_HOST_THREADS=" in lines[0] and "torch " in lines[0]
    assert lines[1].startswith("load average before ") and ("CPU time" in lines[1]) == bool(clock)
    rows = [line for line in lines if line.startswith("| ") and "µs" in line]
    assert [(row.split(" | ")[0][2:], row.split(" | ")[2]) for row in rows] == [
        (op, path) for op in OPS for path in ("wrapper", "torch.ops", "torch.ops inference")]
    for row in rows:
        assert row.count("µs") == 4 and row.endswith(" | 1 |")  # one launch batch per call, replayed
    verdicts = [line for line in lines if line.startswith("- ")]
    assert len(verdicts) == len(rows)
    for line in verdicts:  # a torch.ops path's verdict beside aten's nearest op through torch.ops
        assert ("PyTorch's own route (torch.ops.aten) " in line) == (", torch.ops" in line), line
    assert lines[-1].startswith("one empty batch from Python")
