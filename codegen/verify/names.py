"""What the `opgen` command line needs of verify and gpu-check before either runs: the check names and
the GPU check's budget (here, so that building the parser imports no NumPy: `opgen check` stays fast)."""

from __future__ import annotations

#: the cpu checks: required by default (a run that checked nothing cannot pass)
CPU_CHECKS = ("cpu-plan", "cuda-plan", "gpu-form", "sanitize", "random-order")
#: every check of `opgen verify`, in its table's order (codegen/verify/checks.py says what each proves)
CHECKS = ("cpu-plan", "reference", "cuda-plan", "gpu-form", "sanitize", "random-order", "coverage", "cuda", "nvrtc")
#: seconds: the GPU check fits a short lease (codegen/verify/gpu_check.py)
DEFAULT_BUDGET = 480.0
