"""The PyTorch library with the real drivers in it (codegen/torch_native.py's registration, in the
namespace `opgen_e2e`, and the package's drivers' unit beside it as `native_drivers.cpp`:
codegen/drivergen_unit.py's recorders and drivers with the cpu plan runner), bound to the cpu
backend's kernels (codegen/runtime/torch_library.bind_cpu):

* every parity case of every registered op through `torch.ops.opgen_e2e` gives bit-identical
  outputs to the Python registration (`torch.ops.opgen`, the wrappers), and where the wrapper
  refuses the call, the same message (as RuntimeError: the stable ABI carries no other type);
* `torch.library.opcheck` passes with the Python fakes registered on the C++ schemas;
* an AOTInductor package of a model using LayerNorm and Softmax, run in a fresh process that loads
  only the package and the library and never imports the generated package, matches eager. That
  process binds the kernels with opgen's Python runtime (codegen.runtime.native_cpu): this test's
  library does not carry the kernels' host form; the package's own does and binds itself
  (tests/test_torch_native_deploy.py).
"""

from __future__ import annotations

import inspect
import json
import runpy
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from codegen import drivergen_checks, drivergen_unit, torch_native
from codegen.load import load_specs
from codegen.model import GemmStep
from codegen.runtime import native_cpu, torch_library
from codegen.warmup import generated_ops

torch = pytest.importorskip("torch")
from test_torch_native import _fresh  # noqa: E402  (after the skip: it imports torch)

PROJECT = Path(__file__).resolve().parent.parent
SPECS = load_specs(PROJECT / "specs")
BY_NAME = {spec.name: spec for spec in SPECS}
OPS = [op for op in generated_ops() if op.name in BY_NAME and BY_NAME[op.name].torch.register]


def drivers_unit(ops: list[Any]) -> str:
    """The drivers' unit of `ops` (generated op modules) with the cpu plan runner."""
    pairs = [(BY_NAME[op.name], op.module._PLAN) for op in ops if drivergen_checks.has_driver(BY_NAME[op.name])]
    return drivergen_unit.translation_unit(pairs, SPECS.activations, native_cpu.RUNNER)


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The registration of every registered op in `opgen_e2e` with their drivers beside it: built."""
    folder = tmp_path_factory.mktemp("e2e")
    registered = sorted((BY_NAME[op.name] for op in OPS), key=lambda o: (o.group, o.snake_name))
    (folder / "torch_native.cpp").write_text(torch_native.source(registered, "opgen_e2e", "// e2e unit"))
    (folder / torch_library.DRIVERS).write_text(drivers_unit(OPS))
    return folder / "torch_native.cpp"


@pytest.fixture(scope="module")
def e2e(library: Path) -> Any:
    """The library loaded and bound in this process, with the Python registration's fakes on its ops."""
    import generated.torch as gt

    torch_library.load(library, [op.module for op in OPS])
    lib = torch.library.Library("opgen_e2e", "FRAGMENT")
    for op in OPS:
        name = BY_NAME[op.name].snake_name
        torch.library.register_fake(f"opgen_e2e::{name}", getattr(gt, f"_{name}_fake"), lib=lib)
    ops = torch.ops.opgen_e2e
    ops._keep = lib
    return ops


def _torch_value(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        if x.dtype.name == "bfloat16":  # (ml_dtypes': torch takes its bits)
            return torch.from_numpy(np.array(x).view(np.uint16)).view(torch.bfloat16)
        return torch.from_numpy(np.array(x))  # (a fresh copy: contiguous, aligned, native order)
    if isinstance(x, list) and x and isinstance(x[0], np.ndarray):
        return [_torch_value(v) for v in x]
    return x


def _call(fn: Any, args: list[Any], attrs: dict[str, Any]) -> tuple[str, Any]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            out = fn(*args, **attrs)
    except Exception as e:  # noqa: BLE001 (what is compared)
        return "error", str(e)
    return "ok", out if isinstance(out, (tuple, list)) else (out,)


def _bits(t: Any) -> tuple[Any, ...]:
    if isinstance(t, (list, tuple)):
        return tuple(_bits(v) for v in t)
    return str(t.dtype), tuple(t.shape), t.contiguous().view(torch.uint8).numpy().tobytes() if t.numel() else b""


def test_every_parity_case_through_the_cpp_registration_is_bit_identical(e2e: Any) -> None:
    parity = runpy.run_path(str(PROJECT / "scripts" / "gpu_parity.py"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        cases = [(op, case) for op, case in parity["all_cases"](OPS) if torch_native.native_kernel(BY_NAME[op.name])]
    fallbacks, compared = [], 0
    for op, case in cases:
        spec = BY_NAME[op.name]
        bound = inspect.signature(op.function).bind(*case.args, **case.kwargs)
        bound.apply_defaults()
        args = [_torch_value(bound.arguments[a.name]) for a in spec.inputs]
        attrs = {a.name: bound.arguments[a.name] for a in spec.attrs}
        if not all(isinstance(v, (str, int, float, bool, list)) for v in attrs.values()):
            continue  # (an activation object: the schema takes its name as text)
        python = _call(getattr(torch.ops.opgen, spec.snake_name), args, attrs)
        native = _call(getattr(e2e, spec.snake_name), args, attrs)
        if native[0] == "error" and "needs opgen's Python path" in native[1]:
            fallbacks.append((op.name, native[1]))  # (the runner's fallback: a GEMM the process's BLAS does not take)
            continue
        assert python[0] == native[0], (op.name, case.label, python, native)
        if python[0] == "error":
            assert native[1] == python[1], (op.name, case.label)
        else:
            assert _bits(native[1]) == _bits(python[1]), (op.name, case.label)
        compared += 1
    gemm_ops = {op.name for op in OPS if any(isinstance(s, GemmStep) for s in BY_NAME[op.name].launches())}
    assert {op for op, _ in fallbacks} <= gemm_ops, fallbacks  # (an op without GEMM steps always runs natively)
    assert all("GEMM step" in why for _, why in fallbacks), fallbacks
    assert compared > len(fallbacks), (compared, len(fallbacks))


def test_a_refused_call_says_what_the_wrapper_says(e2e: Any) -> None:
    x = torch.ones(2, 8)
    with pytest.raises(ValueError) as python:
        torch.ops.opgen.softmax(x, axis=5)
    with pytest.raises(RuntimeError) as native:
        e2e.softmax(x, axis=5)
    assert str(native.value) == str(python.value)
    assert str(python.value) == "Softmax: attr axis: expected a value in [-2, 1] for x of rank 2, got 5"


def test_a_dtype_opgen_does_not_know_is_named_as_the_wrapper_names_it(e2e: Any) -> None:
    x = torch.ones(2, 8, dtype=torch.complex64)
    with pytest.raises(TypeError) as python:
        torch.ops.opgen.layer_norm(x)
    with pytest.raises(RuntimeError) as native:
        e2e.layer_norm(x)
    assert str(native.value) == str(python.value)
    assert str(python.value) == "LayerNorm: x: expected dtype T in {float16, bfloat16, float32}, got complex64"


def test_opcheck_passes_with_the_python_fakes(e2e: Any) -> None:
    x = torch.randn(4, 8)
    torch.library.opcheck(e2e.layer_norm.default, (x, torch.randn(8), torch.randn(8)), {"epsilon": 1e-5})
    torch.library.opcheck(e2e.softmax.default, (x,), {"axis": -1})
    torch.library.opcheck(e2e.bias_add.default, (x, torch.randn(8)), {"data_format": "NHWC"})


def test_torch_compile_calls_the_cpp_op(e2e: Any) -> None:
    x, gamma = torch.randn(4, 8), torch.randn(8)

    def f(x: Any, gamma: Any) -> Any:
        return e2e.softmax(e2e.layer_norm(x, gamma)[0] + 1.0, axis=-1)

    compiled = torch.compile(f, fullgraph=True, dynamic=True)
    torch.testing.assert_close(compiled(x, gamma), f(x, gamma))
    torch.testing.assert_close(compiled(x[:3], gamma), f(x[:3], gamma))  # (symbolic sizes: the fakes)


MODEL = """
import sys, torch

class Model(torch.nn.Module):
    def forward(self, x, gamma, beta):
        y, _mean, _rstd = torch.ops.opgen_e2e.layer_norm(x, gamma, beta, epsilon=1e-5)
        return torch.ops.opgen_e2e.softmax(y * 2.0, axis=-1)
"""


def test_an_aotinductor_package_of_layer_norm_and_softmax_runs_without_the_generated_package(
        e2e: Any, library: Path, tmp_path: Path) -> None:
    path = torch_library.build(library)
    inputs = (torch.randn(4, 16), torch.randn(16), torch.randn(16))
    torch.save(inputs, tmp_path / "inputs.pt")
    model = runpy.run_path(str(_write(tmp_path / "model.py", MODEL)))["Model"]()
    eager = model(*inputs)
    ep = torch.export.export(model, inputs)
    package = torch._inductor.aoti_compile_and_package(ep, package_path=str(tmp_path / "model.pt2"))
    modules = {op.name: str(op.module._KERNELS.path) for op in OPS if op.name in ("LayerNorm", "Softmax")}
    out = _fresh("""
        import json, sys, torch
        torch.ops.load_library(sys.argv[1])
        # (binding the kernels still takes opgen's Python runtime, not the generated package)
        from pathlib import Path
        from codegen.runtime import native_cpu, native_plan
        from codegen.runtime.kernels import KernelSource
        from codegen.runtime.scope import Scope, backend_of
        import ctypes
        runner = native_cpu.NativeCpu(native_plan.NativePlans(ctypes.CDLL(sys.argv[1])))
        class _Named:
            def __init__(self, op): self.op = op
        for op, cu in json.loads(sys.argv[3]).items():
            runner.bind(KernelSource(op, Path(cu)), _Named(op), backend_of(Scope("cpu"), op))
        model = torch._inductor.aoti_load_package(sys.argv[2])
        out = model(*torch.load(sys.argv[4]))
        torch.save(out, sys.argv[4] + ".aoti")
        print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("generated", "opgen_ops"))))
    """, str(path), package, json.dumps(modules), str(tmp_path / "inputs.pt"), cwd=tmp_path,
        PYTHONPATH=str(PROJECT))
    assert json.loads(out.splitlines()[-1]) == []
    aoti = torch.load(tmp_path / "inputs.pt.aoti")
    aoti = aoti[0] if isinstance(aoti, (list, tuple)) else aoti
    torch.testing.assert_close(aoti, eager)  # (inductor compiles the `* 2.0` between the ops)


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path
