"""Run by tests/test_torch_native_e2e.py in a fresh process with OPGEN_TORCH_NATIVE=1 (so
`torch.ops.opgen` is the package's own stable-ABI library, `generated.torch.library_path()`, calling
the ops' native drivers, with the Python fakes and autograd on it): every parity case of every op the
library registers natively, through `torch.ops.opgen` and through its wrapper on the Python path
(OPGEN_NATIVE=0, the reference), plus opcheck and torch.compile on the C++ ops. Prints one JSON
document: what the test asserts on."""

from __future__ import annotations

import inspect
import json
import os
import runpy
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

import generated.torch as gt  # noqa: E402
from codegen import torch_native  # noqa: E402
from codegen.load import load_specs  # noqa: E402
from codegen.model import GemmStep  # noqa: E402
from codegen.warmup import generated_ops  # noqa: E402

SPECS = {spec.name: spec for spec in load_specs(PROJECT / "specs")}
OPS = [op for op in generated_ops() if op.name in SPECS and SPECS[op.name].torch.register]


def _torch_value(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        if x.dtype.name == "bfloat16":  # (ml_dtypes': torch takes its bits)
            return torch.from_numpy(np.array(x).view(np.uint16)).view(torch.bfloat16)
        return torch.from_numpy(np.array(x))  # (a fresh copy: contiguous, aligned, native order)
    if isinstance(x, list) and x and isinstance(x[0], np.ndarray):
        return [_torch_value(v) for v in x]
    return x


def _call(fn: Any, args: Any, kwargs: dict[str, Any]) -> tuple[str, Any]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            out = fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 (what is compared)
        return "error", str(e)
    return "ok", tuple(out) if isinstance(out, (tuple, list)) else (out,)


def _bits(t: Any) -> Any:
    if isinstance(t, (list, tuple)):
        return [_bits(v) for v in t]
    t = _torch_value(t)
    return [str(t.dtype), list(t.shape), t.contiguous().view(torch.uint8).numpy().tobytes().hex() if t.numel() else ""]


def _schema_value(attr: Any, value: Any) -> Any:
    """An attr as torch.ops takes it: a list attr given as one value (the wrappers take either) in a list."""
    return [value] if attr.type.startswith("list(") and not isinstance(value, list) else value


def _reference(op: Any, case: Any) -> tuple[str, Any]:
    """The wrapper on the Python path: what the Python registration runs, with the plan as data."""
    os.environ["OPGEN_NATIVE"] = "0"
    try:
        return _call(op.function, case.args, case.kwargs)
    finally:
        os.environ["OPGEN_NATIVE"] = "1"


def parity() -> dict[str, Any]:
    cases = runpy.run_path(str(PROJECT / "scripts" / "gpu_parity.py"))["all_cases"](OPS)
    fallbacks, mismatches, compared = [], [], 0
    for op, case in cases:
        spec = SPECS[op.name]
        if case is None or not torch_native.native_kernel(spec):
            continue
        bound = inspect.signature(op.function).bind(*case.args, **case.kwargs)
        bound.apply_defaults()
        attrs = {a.name: _schema_value(a, bound.arguments[a.name]) for a in spec.attrs}
        if not all(isinstance(v, (str, int, float, bool, list)) for v in attrs.values()):
            continue  # (an activation object: the schema takes its name as text)
        native = _call(getattr(torch.ops.opgen, spec.snake_name),
                       [_torch_value(bound.arguments[a.name]) for a in spec.inputs], attrs)
        if native[0] == "error" and "needs opgen's Python path" in native[1]:
            fallbacks.append([op.name, native[1]])  # (the runner's fallback: a GEMM the process's BLAS does not take)
            continue
        python = _reference(op, case)
        same = python[0] == native[0] and (python[1] == native[1] if python[0] == "error"
                                           else _bits(python[1]) == _bits(native[1]))
        if not same:
            mismatches.append([op.name, case.label, python[0], native[0],
                               python[1] if python[0] == "error" else "", native[1] if native[0] == "error" else ""])
        compared += 1
    gemm_ops = sorted(op.name for op in OPS if any(isinstance(s, GemmStep) for s in SPECS[op.name].launches()))
    return {"compared": compared, "fallbacks": fallbacks, "mismatches": mismatches, "gemm_ops": gemm_ops}


def refusals() -> dict[str, Any]:
    """(the wrapper's error, torch.ops' error) for calls the checks refuse."""
    from generated import layer_norm, softmax

    x = np.ones((2, 8), np.float32)
    calls = {
        "softmax axis": (lambda: softmax(x, axis=5), lambda: torch.ops.opgen.softmax(torch.ones(2, 8), axis=5)),
        "layer_norm dtype": (lambda: layer_norm(x.astype(np.complex64)),
                             lambda: torch.ops.opgen.layer_norm(torch.ones(2, 8, dtype=torch.complex64))),
    }
    return {name: [_call(f, (), {}) for f in pair] for name, pair in calls.items()}


def opcheck() -> list[str]:
    x = torch.randn(4, 8)
    torch.library.opcheck(torch.ops.opgen.layer_norm.default, (x, torch.randn(8), torch.randn(8)), {"epsilon": 1e-5})
    torch.library.opcheck(torch.ops.opgen.softmax.default, (x,), {"axis": -1})
    torch.library.opcheck(torch.ops.opgen.bias_add.default, (x, torch.randn(8)), {"data_format": "NHWC"})
    return ["layer_norm", "softmax", "bias_add"]


def compiled() -> bool:
    x, gamma = torch.randn(4, 8), torch.randn(8)

    def f(x: Any, gamma: Any) -> Any:
        return torch.ops.opgen.softmax(torch.ops.opgen.layer_norm(x, gamma)[0] + 1.0, axis=-1)

    fn = torch.compile(f, fullgraph=True, dynamic=True)
    torch.testing.assert_close(fn(x, gamma), f(x, gamma))
    torch.testing.assert_close(fn(x[:3], gamma), f(x[:3], gamma))  # (symbolic sizes: the fakes)
    return True


if __name__ == "__main__":
    report = {"native": gt.NATIVE, "gated": gt.GATED, "parity": parity(), "refusals": refusals(), "opcheck": opcheck(),
              "compiled": compiled()}
    print(json.dumps(report))
