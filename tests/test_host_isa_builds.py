"""The cpu backend's two builds give the same results: kernels compiled for x86-64-v3 (the default
where the CPU has it: the rest of the suite runs them) against the baseline build
(OPGEN_HOST_ISA=baseline, what a CPU without AVX2 runs; codegen/runtime/host_isa.py).

* Every parity case (scripts/gpu_parity.py: every op, dtype and launch configuration) runs on both
  builds in this process and is compared with parity's per-dtype tolerances.
* The kernel test modules (tests/test_kernels_sanitized.py's list) run once more in a child pytest
  on the baseline build, against their own float64 references. That run starts in the background
  when collection ends (tests/background.py), on the second core, beside the rest of the suite.

Where the CPU lacks x86-64-v3 the suite itself runs the baseline build, and both tests skip saying
so: only one build can run there."""

from __future__ import annotations

import atexit
import os
import runpy
import subprocess
import sys
import time
import warnings
from pathlib import Path

import background
import pytest
from test_kernels_sanitized import KERNEL_TEST_MODULES

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
RERUN = f"{host_isa.ISA_ENV}=baseline python -m pytest {' '.join('tests/' + m for m in KERNEL_TEST_MODULES)}"


def _baseline_kernel_tests() -> tuple[int, str, float]:
    """The kernel test modules in a child pytest on the baseline build: (exit status, output's
    tail, seconds)."""
    env = dict(os.environ, OPGEN_TEST_DEVICE="cpu")
    env[host_isa.ISA_ENV] = host_isa.BASELINE
    env.pop("OPGEN_HOST_SANITIZE", None)  # the plain build (the sanitized run is another test's)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
           *(str(TESTS / m) for m in KERNEL_TEST_MODULES)]
    start = time.perf_counter()
    with subprocess.Popen(cmd, cwd=TESTS.parent, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True) as proc:
        atexit.register(_stop, proc)  # a run that ends first (-x, --collect-only) does not leave it running
        try:
            out, _ = proc.communicate(timeout=900)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
    return proc.returncode, out[-6000:], time.perf_counter() - start


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.kill()


if not MISSING:
    background.register("baseline-isa-kernel-tests", __file__, _baseline_kernel_tests)


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


@ONE_BUILD
def test_the_kernel_tests_pass_on_the_baseline_build() -> None:
    status, tail, _ = background.result("baseline-isa-kernel-tests")
    if status != 0:
        pytest.fail(f"kernel tests fail on the baseline build (rerun: {RERUN}):\n{tail}")
    assert " passed" in tail and " failed" not in tail, tail
