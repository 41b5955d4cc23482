"""The Python registration of a package's torch ops (OPGEN_TORCH_NATIVE=0, and where the native
library cannot be built: docs/pytorch.md), which the rest of the suite no longer runs: its torch
tests import the package's torch module with the default, the native library. The registration's
own test module (opcheck on every op, gradients, torch.compile, the device checks, the errors) runs
again here in a child pytest with OPGEN_TORCH_NATIVE=0, checking there that the module did register
its ops in Python."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

TESTS = Path(__file__).resolve().parent
MODULES = ("test_torch_ops.py",)

CONFTEST_CHECK = """
import generated.torch as gt
assert gt.NATIVE is False, "OPGEN_TORCH_NATIVE=0: the Python registration expected"
"""


def test_the_torch_op_tests_pass_on_the_python_registration(tmp_path: Path) -> None:
    env = {**os.environ, "OPGEN_TORCH_NATIVE": "0", "PYTHONPATH": str(TESTS.parent)}
    check = subprocess.run([sys.executable, "-c", CONFTEST_CHECK], cwd=TESTS.parent, env=env, capture_output=True,
                           text=True, timeout=600, check=False)
    assert check.returncode == 0, check.stderr[-4000:]
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", *(str(TESTS / m) for m in MODULES)]
    proc = subprocess.run(cmd, cwd=TESTS.parent, env=env, capture_output=True, text=True, timeout=1200, check=False)
    tail = (proc.stdout + proc.stderr)[-6000:]
    if proc.returncode != 0:
        pytest.fail("the torch op tests fail on the Python registration (rerun: OPGEN_TORCH_NATIVE=0 python -m "
                    f"pytest {' '.join('tests/' + m for m in MODULES)}):\n{tail}")
    assert " passed" in tail and " failed" not in tail, tail
