"""The package's own PyTorch library with its real drivers (`generated.torch.library_path()`:
codegen/torch_native.py's registration, every op's generated `<op>.driver.cpp` and the cpu plan
runner, binding the kernels' host form itself), registered with OPGEN_TORCH_NATIVE=1 in a fresh
process (tests/torch_native_parity.py; this process keeps the Python registration), so that
`torch.ops.opgen` runs the C++ kernels under the Python fakes and autograd:

* every parity case of every op it registers natively gives bit-identical outputs to the op's
  wrapper on the Python path (OPGEN_NATIVE=0: what the Python registration runs), and where the
  wrapper refuses the call, the same message (as RuntimeError: the stable ABI carries no other type);
* `torch.library.opcheck` passes with the Python fakes on the C++ schemas;
* torch.compile (fullgraph, dynamic sizes) calls the C++ ops.

An AOTInductor package using the same library, in a process that never imports opgen's Python, is
tests/test_torch_native_deploy.py's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")

PROJECT = Path(__file__).resolve().parent.parent
CHILD = PROJECT / "tests" / "torch_native_parity.py"


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    import os

    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(OPGEN_TORCH_NATIVE="1", OPGEN_NATIVE="1", CUDA_VISIBLE_DEVICES="")
    proc = subprocess.run([sys.executable, str(CHILD)], capture_output=True, text=True, env=env, cwd=PROJECT,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    out: dict[str, Any] = json.loads(proc.stdout.splitlines()[-1])
    assert out["native"] is True  # (the child registered the library, not the Python kernels)
    assert out["gated"] is True  # (and the C++ Autograd kernel: opcheck and torch.compile run through it)
    return out


def test_every_parity_case_through_the_cpp_registration_is_bit_identical(report: dict[str, Any]) -> None:
    parity = report["parity"]
    assert parity["mismatches"] == []
    fallbacks = parity["fallbacks"]
    assert {op for op, _ in fallbacks} <= set(parity["gemm_ops"]), fallbacks  # (no GEMM step: always native)
    assert all("GEMM step" in why for _, why in fallbacks), fallbacks
    assert parity["compared"] > len(fallbacks), (parity["compared"], len(fallbacks))


@pytest.mark.parametrize("call, message", [
    ("softmax axis", "Softmax: attr axis: expected a value in [-2, 1] for x of rank 2, got 5"),
    ("layer_norm dtype", "LayerNorm: x: expected dtype T in {float16, bfloat16, float32}, got complex64"),
])
def test_a_refused_call_says_what_the_wrapper_says(report: dict[str, Any], call: str, message: str) -> None:
    wrapper, native = report["refusals"][call]
    assert wrapper == ["error", message]
    assert native == ["error", message]


def test_opcheck_passes_with_the_python_fakes(report: dict[str, Any]) -> None:
    assert report["opcheck"] == ["layer_norm", "softmax", "bias_add"]


def test_torch_compile_calls_the_cpp_op(report: dict[str, Any]) -> None:
    assert report["compiled"] is True
