"""Every CI run checks the kernels once more under the host emulation's sanitize build and a random
thread, warp and block order (opgen's pytest plugin, codegen/pytest_plugin.py): the kernel test
modules run again in a child pytest with --opgen-sanitize and --opgen-random-order SEED, so an
out-of-bounds access, a race, uninitialised shared memory, undefined behaviour or barrier/warp
misuse in any kernel they launch fails CI with the kernel, block, thread and source line. The run
uses the baseline build (OPGEN_HOST_ISA=baseline), so it is also the kernel tests' run on the build a
CPU without AVX2 gets (tests/test_host_isa_builds.py compares that build's plain form with x86-64-v3's
on every parity case); the rest of the suite runs x86-64-v3."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from codegen.runtime import host_isa

TESTS = Path(__file__).resolve().parent

# The modules whose tests launch the generated kernels on the cpu backend (both launch sizes).
KERNEL_TEST_MODULES = (
    "test_fused_batch_norm.py",
    "test_kernels_random_order.py",
    "test_kernels_gpu_sizes.py",
    "test_block_helpers.py",
    "test_gru_block_cell.py",
    "test_dml_rnn.py",
    "test_cudnn_rnn.py",
    "test_activation_library.py",
    "test_norm_ops.py",
    "test_bias_add.py",
    "test_kernels_with_bad_lengths.py",
    "test_loops.py",
    "test_cpu_speed_example.py",
    "test_generated_features.py",  # the fixture op's list input: reads through a pointer table
    "test_float64_building_blocks.py",
)
SEED = 20261124  # fixed: a failure reproduces with the same command


def test_kernel_tests_pass_sanitized_in_random_order(tmp_path: Path) -> None:
    # On the baseline build (SSE2; a CPU without x86-64-v3 runs nothing else): this run is also the kernel
    # tests' run on that build, whose plain -O2 form tests/test_host_isa_builds.py compares with x86-64-v3's
    # on every parity case; the rest of the suite runs x86-64-v3.
    # (OPGEN_TORCH_NATIVE=0: the torch tests among them run the Python registration, which the rest of
    # the suite, on the native library by default, leaves to tests/test_torch_python_registration.py)
    env = {**os.environ, "OPGEN_TEST_DEVICE": "cpu", host_isa.ISA_ENV: host_isa.BASELINE, "OPGEN_TORCH_NATIVE": "0"}
    options = ["--opgen-sanitize", "--opgen-random-order", str(SEED)]
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", *options,
           *(str(TESTS / m) for m in KERNEL_TEST_MODULES)]
    proc = subprocess.run(cmd, cwd=TESTS.parent, env=env, capture_output=True, text=True, timeout=900)
    tail = (proc.stdout + proc.stderr)[-6000:]
    if proc.returncode != 0:
        pytest.fail("kernel tests fail under the sanitize build in random order "
                    f"(rerun: {host_isa.ISA_ENV}=baseline python -m pytest {' '.join(options)} "
                    f"{' '.join('tests/' + m for m in KERNEL_TEST_MODULES)}):\n{tail}")
    assert " passed" in tail and " failed" not in tail, tail
