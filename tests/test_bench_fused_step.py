"""bench/bench_fused_step.py's plumbing without a GPU: `--quick` under the CuPy stand-in
(scripts/fake_gpu.py: the kernels are the cpu backend's host-compiled ones, the times the
emulation's, meaningless) times each step form of CudnnRNNV3 / BackpropV3 (persistent, fused,
GEMM steps) for both passes with two directions, and what each form computes agrees with the GEMM
steps' (the bench's own comparison, printed per row)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent


def test_quick_times_every_form_per_pass_and_the_forms_agree(tmp_path: Path) -> None:
    report = tmp_path / "fused.md"
    proc = subprocess.run([sys.executable, str(PROJECT / "scripts" / "fake_gpu.py"),
                           str(PROJECT / "bench" / "bench_fused_step.py"), "--quick", "--dirs", "2", "--markdown",
                           str(report)], capture_output=True, text=True, timeout=600, cwd=PROJECT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [line for line in report.read_text().splitlines() if line.startswith(("forward", "backward"))]
    # one size per form the plan takes, each pass
    assert [(r.split()[0], re.search(r"plan takes (\w+)", r)[1]) for r in rows] == [
        ("forward", "persistent"), ("backward", "persistent"), ("forward", "fused"), ("backward", "fused"),
        ("forward", "GEMM"), ("backward", "GEMM")]
    assert all(" D=2 " in r for r in rows)
    for row in rows:
        forms = re.findall(r"(persistent|fused|GEMM steps) +[\d.]+ µs/step", row)
        assert forms == (["persistent"] if "B=8 " in row else []) + ["fused", "GEMM steps"], row
        differences = [float(v) for v in re.findall(r"\b(?:h|dh|dG) ([\d.e+-]+)", row.split("max |difference|")[1])]
        assert differences and max(differences) < 1e-5, row
