"""The NVRTC matrix tests/test_gpu_compile.py uses, for tests that compile their own modules' GPU
form with it (scripts/nvrtc_compile.py: fetched wheels, the cuda backend's options, sm_90 and sm_100)."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

import pytest

PROJECT = Path(__file__).resolve().parent.parent


def nvrtc_compile_module() -> Any:
    spec = importlib.util.spec_from_file_location("nvrtc_compile", PROJECT / "scripts" / "nvrtc_compile.py")
    if "nvrtc_compile" not in sys.modules:
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["nvrtc_compile"] = module  # (dataclasses look their module up)
        spec.loader.exec_module(module)
    return sys.modules["nvrtc_compile"]


def nvrtc_runs(paths: list[Path]) -> list[Any]:
    """The modules compiled in the matrix tests/test_gpu_compile.py compiles (nvrtc_compile.ci_jobs:
    its NVRTC releases, sm_90 and sm_100, line info off and on) with the cuda backend's options, every
    module of every run compiled and no kernel spilling (asserted, naming the release and the
    architecture); skipped as that test skips (a failure under CI). The runs, for their kernels."""
    nvrtc_compile = nvrtc_compile_module()
    try:
        toolkits = [nvrtc_compile.fetch(r) for r in nvrtc_compile.default_releases()]
    except nvrtc_compile.FetchError as exc:
        reason = f"the NVRTC wheels are not in {nvrtc_compile.cache_root()} and could not be downloaded ({exc})"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; CI must run this check")
        pytest.skip(reason)
    runs = nvrtc_compile.run_jobs(nvrtc_compile.ci_jobs(toolkits), paths)
    for run in runs:
        assert not run.error, f"{run.describe()}: {run.error}"
        failed = [f"{m.path}:\n{m.log}" for m in run.modules if not m.ok]
        assert not failed, "\n".join(failed)
    spilled = [f"{run.describe()}: {k.kernel} spills {k.spill_stores} B stored, {k.spill_loads} B loaded"
               for run in runs for k in run.kernels if k.spill_stores or k.spill_loads]
    assert not spilled, "\n".join(spilled)
    return runs
