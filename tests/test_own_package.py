"""A user's package is theirs (issue 19): the generated wrappers, torch registration, docstrings and
reference pages use the project's import name and torch namespace; `#line` paths are relative to
the project, so a copy of it generates the same text; two projects' packages (same op names,
different kernels) run side by side in one process, on the cpu backend and through torch.ops, each
backward calling its own namespace; `function_name:` overrides an op's snake_case name; each file
records the opgen version that wrote it and the runtime refuses code of another generated-code ABI;
a generated package and a call site pass `mypy --strict` and ruff's default rules."""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from test_spec_errors import KERNEL as KERNEL_SECTION
from test_spec_errors import line_of

import codegen
from codegen import linemarks
from codegen.load import load_specs
from codegen.project import Project
from codegen.render import render_all
from codegen.runtime import abi
from codegen.yamlnodes import SpecError

REPO = Path(__file__).resolve().parent.parent

FORWARD = """\
op: {op}
summary: y = alpha * x, plus the package's offset.
gradient: {grad}
{function}type_vars:
  T: [float32]
attrs:
  - {{name: alpha, type: float, default: 2.0, doc: The factor.}}
inputs:
  - {{name: x, dtype: T, shape: "[N, C]", doc: The input.}}
outputs:
  - {{name: y, dtype: T, shape: "[N, C]", doc: The result.}}
autograd:
  outputs: [y]
  call: {{dy: grad(y)}}
  grads: {{x: dx}}
"""

GRADIENT = """\
op: {grad}
summary: dx = alpha * dy, plus the package's offset (a wrong gradient, on purpose, when it is not 0).
gradient_of: {op}
{function}type_vars:
  T: [float32]
attrs:
  - {{name: alpha, type: float, default: 2.0, doc: The factor.}}
inputs:
  - {{name: dy, dtype: T, shape: "[N, C]", doc: The gradient of y.}}
outputs:
  - {{name: dx, dtype: T, shape: "[N, C]", doc: The gradient of x.}}
"""

#: Both ops launch the kernel `scale` of demo/scale.cu (test_spec_errors' launch plan), on x → y or dy → dx.
LAUNCH = KERNEL_SECTION.replace("demo/scale_add.cu", "demo/scale.cu")

KERNEL = """\
{{% include "kernels/_common.cuh" %}}

// out = alpha * in + {offset}
template <typename T>
__device__ __forceinline__ void scale(const T* __restrict__ in, T* __restrict__ out, long long N, long long C,
                                      float alpha) {{
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < N * C) out[i] = opgen::from_float<T>(alpha * opgen::to_float(in[i]) + {offset}f);
}}
"""


def write_project(root: Path, package: str, offset: float = 0.0, namespace: str | None = None,
                  op: str = "Scale", function: str | None = None) -> Project:
    """A project at `root`: the op (and its gradient op, `<op>Grad`) under specs/demo/, their kernel
    under templates/kernels/demo/, the package `package` to be generated into root/package."""
    grad = f"{op}Grad"
    names = {op: f"function_name: {function}\n" if function else "",
             grad: f"function_name: {function}_grad\n" if function else ""}
    files = {op: FORWARD.format(op=op, grad=grad, function=names[op]) + LAUNCH,
             grad: GRADIENT.format(op=op, grad=grad, function=names[grad]) + LAUNCH.replace("[x, y,", "[dy, dx,")}
    stems = {op: function or "scale", grad: f"{function}_grad" if function else "scale_grad"}
    for name, text in files.items():
        path = root / "specs" / "demo" / f"{stems[name]}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    kernel = root / "templates" / "kernels" / "demo" / "scale.cu"
    kernel.parent.mkdir(parents=True, exist_ok=True)
    kernel.write_text(KERNEL.format(offset=offset), encoding="utf-8")
    return Project(root=root, specs=root / "specs", templates=(root / "templates",), out=root / package,
                   package=package, torch_namespace=namespace or package)


def render(project: Project) -> dict[str, str]:
    roots = [*project.templates, linemarks.BUILTIN_TEMPLATES]
    return render_all(load_specs(project.specs), roots, project=project)


def generate(project: Project) -> dict[str, str]:
    files = render(project)
    for rel, text in files.items():
        target = project.out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return files


@pytest.fixture
def importable(tmp_path: Path) -> Iterator[list[str]]:
    """Packages generated under tmp_path import (the names appended are forgotten after the test)."""
    sys.path.insert(0, str(tmp_path))
    names: list[str] = []
    try:
        yield names
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.split(".")[0] in names]:
            del sys.modules[name]


def load(importable: list[str], package: str) -> ModuleType:
    importable.append(package)
    return importlib.import_module(package)


# -- names -------------------------------------------------------------------------------------------
def test_a_users_package_names_itself_not_opgens(tmp_path: Path) -> None:
    files = generate(write_project(tmp_path / "proj", "mine_ops", namespace="mine"))
    assert "_opgen.py" in files and files["py.typed"] == ""
    torch_py = files["torch.py"]
    assert "NAMESPACE = 'mine'" in torch_py and '_Library(NAMESPACE, "FRAGMENT")' in torch_py
    assert "torch.library.register_fake('mine::scale'" in torch_py
    assert "torch.ops.mine.scale_grad(grad_y.contiguous(), alpha=ctx.attrs['alpha'])" in torch_py
    assert "torch_nn" not in torch_py  # opgen's drop-in modules belong to opgen's own package
    native = files["torch_native.cpp"]  # the C++ registration: the project's namespace and schemas
    assert "STABLE_TORCH_LIBRARY_FRAGMENT(mine, m)" in native and "STABLE_TORCH_LIBRARY_IMPL(mine, CPU, m)" in native
    assert 'm.def("scale(' in native and "opgen_call_Scale" in native
    assert "torch_autograd_gate.cpp" not in files  # its Autograd kernel: opgen's shared gate, given the helpers
    assert "_torch_gate.load(__package__ or __name__, NAMESPACE, {" in torch_py
    assert "    'scale': '_scale_autograd(" in torch_py
    page = files["docs/demo/scale.md"]
    assert "from mine_ops import Scale, scale" in page
    assert "`import mine_ops.torch` registers this op as `torch.ops.mine.scale`" in page
    assert "Its backward calls `torch.ops.mine.scale_grad`" in page
    assert "Source `templates/kernels/demo/scale.cu`" in page
    assert "The reference page is mine_ops/docs/demo/scale.md." in files["demo/scale.py"]
    assert "`import mine_ops.torch` makes them `torch.ops.mine.<function>`" in files["__init__.py"]
    for rel, text in files.items():
        for foreign in ("from generated", "import generated", "generated/", "torch.ops.opgen", "'opgen::",
                        "FusedBatchNormV3", "../../../docs", "specs/_vocab", str(tmp_path)):
            assert foreign not in text, (rel, foreign)


def test_line_paths_are_relative_to_the_project_so_a_copy_generates_the_same(tmp_path: Path) -> None:
    first = generate(write_project(tmp_path / "a" / "proj", "mine_ops"))
    shutil.copytree(tmp_path / "a" / "proj", tmp_path / "elsewhere")
    copy = Project(root=tmp_path / "elsewhere", specs=tmp_path / "elsewhere" / "specs",
                   templates=(tmp_path / "elsewhere" / "templates",), out=tmp_path / "elsewhere" / "mine_ops",
                   package="mine_ops", torch_namespace="mine_ops")
    assert render(copy) == first  # `opgen check` in the copy: no drift
    kernel = first["demo/scale.cu"]
    assert '#line 1 "codegen/templates/kernels/_common.cuh"' in kernel  # built in: where opgen is installed
    assert '"templates/kernels/demo/scale.cu"' in kernel  # the project's own: from its root
    assert '"mine_ops/demo/scale.cu"' in kernel  # the generated file, in its package
    assert kernel.startswith("// generated from specs/demo/scale.yaml, specs/demo/scale_grad.yaml by opgen — do not "
                             "edit")  # the op and its gradient: one module of their shared template


def test_opgens_own_kernels_are_named_from_the_repository_root() -> None:
    text = (REPO / "generated" / "nn" / "bias_add.cu").read_text(encoding="utf-8")
    lines = [line for line in text.split("\n") if line.startswith("#line")]
    # (the line: the template's first after its includes)
    assert '#line 3 "codegen/templates/kernels/nn/bias_add.cu"' in lines, lines[:5]
    assert {line.split('"')[1].split("/")[0] for line in lines} == {"codegen", "generated"}


# -- two packages, one process -------------------------------------------------------------------------
def two_packages(tmp_path: Path, importable: list[str], prefix: str, module: str = "") -> list[ModuleType]:
    """Two projects with the same ops (Scale, ScaleGrad), `<prefix>_a_ops` whose kernel adds 0 and
    `<prefix>_b_ops` whose kernel adds 1, generated in two folders and imported (`module` of each)."""
    loaded = []
    for name, offset in (("a", 0.0), ("b", 1.0)):
        generate(write_project(tmp_path / name, f"{prefix}_{name}_ops", offset=offset))
        sys.path.insert(1, str(tmp_path / name))
        try:
            loaded.append(load(importable, f"{prefix}_{name}_ops{module}"))
        finally:
            sys.path.remove(str(tmp_path / name))
    return loaded


def test_two_packages_with_the_same_op_names_run_side_by_side(tmp_path: Path, importable: list[str]) -> None:
    a, b = two_packages(tmp_path, importable, "side")
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    for _ in range(2):  # the kernel caches (disk and loaded modules) keep the two apart, either order
        np.testing.assert_array_equal(a.scale(x, scope="cpu").y, 2 * x)
        np.testing.assert_array_equal(b.scale(x, scope="cpu").y, 2 * x + 1)
        np.testing.assert_array_equal(b.scale_grad(x, alpha=3.0, scope="cpu").dx, 3 * x + 1)
        np.testing.assert_array_equal(a.scale_grad(x, alpha=3.0, scope="cpu").dx, 3 * x)


def test_two_packages_torch_ops_each_call_their_own_gradient(tmp_path: Path, importable: list[str]) -> None:
    torch = pytest.importorskip("torch")
    ta, tb = two_packages(tmp_path, importable, "grad", ".torch")
    assert (ta.NAMESPACE, tb.NAMESPACE) == ("grad_a_ops", "grad_b_ops")
    for namespace, offset in (("grad_a_ops", 0.0), ("grad_b_ops", 1.0)):
        x = torch.arange(6, dtype=torch.float32).reshape(2, 3).requires_grad_()
        y = getattr(torch.ops, namespace).scale(x, alpha=3.0)
        torch.testing.assert_close(y, 3 * x.detach() + offset)
        y.backward(torch.ones_like(y))
        assert x.grad is not None  # ScaleGrad of this package: 3 * 1 + its offset
        torch.testing.assert_close(x.grad, torch.full((2, 3), 3.0 + offset))


def test_a_tensor_that_requires_grad_names_the_packages_own_torch_ops(tmp_path: Path,
                                                                     importable: list[str]) -> None:
    torch = pytest.importorskip("torch")
    generate(write_project(tmp_path, "hint_ops", namespace="hint"))
    ops = load(importable, "hint_ops")
    with pytest.raises(TypeError, match=r"Scale: x: .* call torch\.ops\.hint\.\* \(import hint_ops\.torch\) for "
                                        r"autograd"):
        ops.scale(torch.ones(2, 3, requires_grad=True))
    # (the namespace read from hint_ops/torch.py's source: the message builds and registers nothing)
    assert "hint_ops.torch" not in sys.modules and not hasattr(torch.ops.hint, "scale")


# -- function_name ---------------------------------------------------------------------------------------
def test_function_name_overrides_the_snake_case_name(tmp_path: Path, importable: list[str]) -> None:
    files = generate(write_project(tmp_path, "rope_ops", op="RoPE", function="rope"))
    assert {"demo/rope.py", "demo/scale.cu", "demo/rope_grad.py", "docs/demo/rope.md"} <= set(files)
    assert not any("ro_pe" in rel or "ro_pe" in text for rel, text in files.items())
    assert "Gradient op: [RoPEGrad](rope_grad.md)." in files["docs/demo/rope.md"]
    assert "| [RoPE](demo/rope.md) | `rope` |" in files["docs/index.md"]
    ops = load(importable, "rope_ops")
    x = np.ones((2, 2), np.float32)
    np.testing.assert_array_equal(ops.rope(x, scope="cpu").y, 2 * x)
    assert ops.RoPE.create("cpu", x).y.shape == (2, 2)
    torch = pytest.importorskip("torch")
    importlib.import_module("rope_ops.torch")
    t = torch.ones(2, 2, requires_grad=True)
    torch.ops.rope_ops.rope(t).sum().backward()
    assert t.grad is not None and torch.equal(t.grad, torch.full((2, 2), 2.0))


def test_the_spec_file_is_named_after_the_function_name(tmp_path: Path) -> None:
    project = write_project(tmp_path, "p", op="RoPE", function="rope")
    (project.specs / "demo" / "rope.yaml").rename(project.specs / "demo" / "ro_pe.yaml")
    with pytest.raises(SpecError) as info:
        load_specs(project.specs)
    assert (info.value.file, info.value.line) == ("specs/demo/ro_pe.yaml", 4), str(info.value)
    assert "op: the file must be named rope.yaml (got ro_pe.yaml)" in str(info.value)


@pytest.mark.parametrize(("value", "fragment"), [
    ("RoPE", "function_name: 'RoPE' is not a snake_case name"),
    ("ro__pe", "function_name: 'ro__pe' is not a snake_case name"),
    ("class", "function_name: 'class' is not a snake_case name"),
    ("[rope]", "function_name: a list is not a snake_case name"),
    ("torch", "its function name 'torch' is reserved"),
])
def test_a_bad_function_name_is_refused_at_its_line(tmp_path: Path, value: str, fragment: str) -> None:
    project = write_project(tmp_path, "p", op="RoPE", function="rope")
    spec = project.specs / "demo" / "rope.yaml"
    text = spec.read_text().replace("function_name: rope", f"function_name: {value}")
    spec.write_text(text)
    with pytest.raises(SpecError) as info:
        load_specs(project.specs)
    assert info.value.line == line_of(text, "function_name:") and fragment in str(info.value), str(info.value)


def test_two_ops_with_one_function_name_are_refused(tmp_path: Path) -> None:
    project = write_project(tmp_path, "p")
    other = (project.specs / "demo" / "scale.yaml").read_text().replace("op: Scale\n", "op: SCALE\n").replace(
        "gradient: ScaleGrad\n", "")
    other = other[:other.index("autograd:")] + other[other.index("kernel:"):]
    (project.specs / "more").mkdir()
    (project.specs / "more" / "scale.yaml").write_text(other)
    with pytest.raises(SpecError) as info:
        load_specs(project.specs)
    assert str(info.value) == ("specs/more/scale.yaml:1: op SCALE: function name 'scale' is also Scale's "
                               "(specs/demo/scale.yaml:1): the package would export two functions scale and "
                               "register two torch ops scale; give one of them another with function_name:")


def test_a_function_named_like_a_group_is_refused(tmp_path: Path) -> None:
    project = write_project(tmp_path, "p", op="Demo", function="demo")
    with pytest.raises(SpecError) as info:
        load_specs(project.specs)
    assert "function name 'demo' is also a group folder's name" in str(info.value)


# -- versions -----------------------------------------------------------------------------------------------
def test_each_file_records_the_opgen_version_that_wrote_it(tmp_path: Path) -> None:
    files = generate(write_project(tmp_path, "versioned_ops"))
    stamp = f"by opgen — do not edit (opgen {codegen.__version__})"
    assert all(stamp in text.split("\n")[0] for rel, text in files.items() if rel != "py.typed"), \
        [rel for rel, text in files.items() if stamp not in text.split("\n")[0]]
    assert f"OPGEN_VERSION = {codegen.__version__!r}" in files["_opgen.py"]
    assert f"GENERATED_ABI = {abi.GENERATED_ABI}" in files["_opgen.py"]


def test_code_of_another_generated_abi_is_refused_at_import(tmp_path: Path, importable: list[str]) -> None:
    project = write_project(tmp_path, "stale_ops")
    generate(project)
    marker = project.out / "_opgen.py"
    marker.write_text(marker.read_text().replace(f"GENERATED_ABI = {abi.GENERATED_ABI}",
                                                 f"GENERATED_ABI = {abi.GENERATED_ABI + 1}"))
    with pytest.raises(abi.GeneratedCodeError) as info:
        load(importable, "stale_ops.demo.scale")  # any module of it: the package's _opgen runs first
    message = str(info.value)
    assert message.startswith(f"stale_ops: generated by opgen {codegen.__version__} (generated-code ABI "
                              f"{abi.GENERATED_ABI + 1}), which the installed opgen"), message
    assert "comes from a newer opgen" in message and "`opgen generate`" in message
    assert isinstance(info.value, ImportError) and "stale_ops" not in sys.modules  # nothing half-imported stays


# -- conventions: mypy --strict and ruff's default rules ---------------------------------------------------------
CALL_SITE = """\
import numpy as np
import numpy.typing as npt

import typed_ops
from typed_ops import ScaledSum, Scope, row_stats, scaled_sum


def main() -> float:
    x: npt.NDArray[np.float32] = np.ones((2, 3), np.float32)
    out = row_stats(x, want_sum=True, scope=Scope("cpu"))
    op = ScaledSum.create("cpu", [x, x], np.ones(2, np.float32), None, 3, ScaledSum.mode("checked"))
    total: float = float(out.mean.sum()) + float(op.y.sum())
    total += float(scaled_sum([x], np.ones(2, np.float32), width=3, mode="plain").y.sum())
    return total + len(typed_ops.__all__) + len(typed_ops.OPGEN_VERSION)
"""


def test_a_generated_package_and_its_call_site_pass_mypy_strict_and_ruff(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    if subprocess.run([sys.executable, "-m", "ruff", "--version"], capture_output=True, check=False).returncode:
        pytest.skip("ruff is not installed")
    fixtures = REPO / "tests" / "fixtures"
    project = Project(root=tmp_path, specs=fixtures / "specs", templates=(fixtures / "templates",),
                      out=tmp_path / "typed_ops", package="typed_ops", torch_namespace="typed_ops")
    generate(project)
    (tmp_path / "call_site.py").write_text(CALL_SITE)
    # ruff with its default rules (no configuration: --isolated), codegen third-party as for a user
    ruff = subprocess.run([sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "typed_ops",
                           "call_site.py"], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
    # mypy --strict; codegen as an installed typed package (py.typed) whose own errors are not reported
    env = {**os.environ, "MYPYPATH": str(REPO)}
    mypy = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
                           "--cache-dir", str(tmp_path / ".mypy_cache"), "typed_ops", "call_site.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=600)
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr
