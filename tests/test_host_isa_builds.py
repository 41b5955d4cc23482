"""The cpu backend's two builds give the same results: kernels compiled for x86-64-v3 (the default
where the CPU has it: the rest of the suite runs them) against the baseline build
(OPGEN_HOST_ISA=baseline, what a CPU without AVX2 runs; codegen/runtime/host_isa.py).

* Every parity case (scripts/gpu_parity.py: every op, dtype and launch configuration) runs on both
  builds in this process and is compared with parity's per-dtype tolerances.
* The kernel test modules run on the baseline build against their own float64 references in
  tests/test_kernels_sanitized.py's child pytest (its sanitize form, in random order), which takes
  that build for this reason: a separate plain run of the same tests cost ≈ 200 s of CI's CPU.

Where the CPU lacks x86-64-v3 the suite itself runs the baseline build, and the test skips saying
so: only one build can run there."""

from __future__ import annotations

import runpy
import warnings
from pathlib import Path

import pytest

from codegen.runtime import host_isa
from codegen.runtime.cpu import CpuBackend
from codegen.runtime.scope import Scope
from codegen.warmup import generated_ops

TESTS = Path(__file__).resolve().parent
PARITY = runpy.run_path(str(TESTS.parent / "scripts" / "gpu_parity.py"))
MISSING = host_isa.host_missing_v3()
ONE_BUILD = pytest.mark.skipif(bool(MISSING), reason=(
    f"this CPU lacks {', '.join(MISSING)} of x86-64-v3, so the cpu backend (and this whole suite) runs the "
    "baseline build: there is no second build to compare with here"))


def _scope(isa: str) -> Scope:
    """The cpu plan on a backend of its own that compiles for `isa`."""
    scope = Scope("cpu")
    scope.backend = CpuBackend(isa=isa)
    return scope


@ONE_BUILD
def test_every_parity_case_agrees_between_the_baseline_and_v3_builds() -> None:
    baseline, v3 = _scope(host_isa.BASELINE), _scope(host_isa.X86_64_V3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        cases, failed = PARITY["disagreements"](generated_ops(), baseline, v3)
    assert cases > 0
    assert not failed, "x86-64-v3 build against the baseline build:\n" + "\n".join(failed)
    for backend, isa in ((baseline.backend, host_isa.BASELINE), (v3.backend, host_isa.X86_64_V3)):
        assert backend._modules and all(m.isa == isa for m in backend._modules.values())
