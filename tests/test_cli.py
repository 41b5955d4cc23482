"""The `opgen` command line: generate, check, list, show; the committed generated/ folder is in
sync with specs/ and templates/, and passes ruff and mypy."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import numpy as np
import pytest

from codegen import cli
from codegen.files import MARKER
from codegen.load import load_specs
from codegen.naming import snake_case

PROJECT = cli.PROJECT
SPECS = PROJECT / "specs"
TEMPLATES = PROJECT / "codegen" / "templates"
GENERATED = PROJECT / "generated"
SUMMARY_RE = re.compile(
    r"^opgen generate: (\d+) files, (\d+) written, (\d+) unchanged, (\d+) removed "
    r"\(\d+\.\d\d s\)$",
    re.MULTILINE,
)


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    """`opgen ARGV` in this process: (status, stdout, stderr)."""
    status = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def generate(
    capsys: pytest.CaptureFixture[str], out: Path, specs: Path = SPECS, templates: Path = TEMPLATES
) -> tuple[int, int, int, int, str]:
    status, stdout, stderr = run(capsys, "generate", "--specs", specs, "--templates", templates, "--out", out)
    assert status == 0, stdout + stderr
    match = SUMMARY_RE.search(stdout)
    assert match, stdout
    total, written, unchanged, removed = map(int, match.groups())
    return total, written, unchanged, removed, stdout


def tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def expected_files(specs: Path = SPECS) -> set[str]:
    """What generate must write for a spec folder: per op a wrapper and a page; per kernel template
    the ops use one module, named after it; per op with a launch plan its native driver; per group an
    __init__; the package files (the torch registration, the JAX functions; the activation library's module when the
    folder has one)."""
    # torch.py: the PyTorch registration (torch_native.cpp: in C++; its Autograd kernel: opgen's shared gate);
    # jax.py: the JAX functions (jax_ffi.cpp: their XLA FFI handlers); _opgen.py: the opgen version and
    # generated-code ABI, checked at import
    files = {"__init__.py", "_opgen.py", "py.typed", "docs/index.md", "torch.py", "torch_native.cpp",
             "jax.py", "jax_ffi.cpp"}
    ops = load_specs(specs)
    if ops.activations.kinds:
        files.add("activations.py")
    for op in ops:
        base = f"{op.group}/{op.snake_name}"
        files |= {f"{base}.py", f"docs/{base}.md", f"{op.group}/__init__.py"}
        if op.kernel is not None:
            files.add(op.kernel.source)
        if op.has_launch_plan:  # (opgen's own ops: every driver prints; tests/test_native_checks.py)
            files.add(f"{base}.driver.cpp")
    return files


SMALL_SPEC = """\
op: {op}
summary: {summary}
type_vars:
  T: [float32]
inputs:
  - {{name: x, dtype: T, shape: "[N]"}}
outputs:
  - {{name: y, dtype: T, shape: "[N]"}}
"""


def small_specs(root: Path, ops: dict[str, str]) -> Path:
    """A user's spec folder: `ops` maps "group/OpName" to a summary."""
    for key, summary in ops.items():
        group, op = key.split("/")
        path = root / group / f"{snake_case(op)}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(SMALL_SPEC.format(op=op, summary=summary), encoding="utf-8")
    return root


# -- generate --------------------------------------------------------------------------------------
def test_generate_writes_the_expected_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    total, written, unchanged, removed, stdout = generate(capsys, out)
    files = tree(out)
    assert set(files) == expected_files()
    for rel in (
        "__init__.py",
        "py.typed",
        "nn/__init__.py",
        "nn/fused_batch_norm_v3.py",
        "nn/fused_batch_norm_grad_v3.py",
        "nn/fused_batch_norm.cu",
        "docs/index.md",
        "docs/nn/fused_batch_norm_v3.md",
        "docs/nn/fused_batch_norm_grad_v3.md",
    ):
        assert rel in files, rel
    assert (total, written, unchanged, removed) == (len(files), len(files), 0, 0)
    for rel in files:
        assert f"  wrote   {out / rel}" in stdout
    assert files["py.typed"] == b""
    for rel, data in files.items():
        if rel != "py.typed":
            first = data.decode("utf-8").splitlines()[0]
            assert MARKER in first, f"{rel}: no generated header: {first!r}"
    assert (
        b"# generated from specs/nn/fused_batch_norm_v3.yaml by opgen" in files["nn/fused_batch_norm_v3.py"]
    )


def test_second_generate_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    generate(capsys, out)
    old = 1_000_000_000  # an old mtime, so that any rewrite shows even on a coarse clock
    for p in out.rglob("*"):
        os.utime(p, ns=(old, old))
    total, written, unchanged, removed, stdout = generate(capsys, out)
    assert (written, unchanged, removed) == (0, total, 0)
    assert "0 written" in stdout and "wrote" not in stdout
    assert {p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()} == {old}


def test_generate_is_deterministic(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    generate(capsys, first)
    # the second run in a fresh interpreter with another hash seed: no set or dict order leaks out
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "codegen",
            "generate",
            "--specs",
            str(SPECS),
            "--templates",
            str(TEMPLATES),
            "--out",
            str(second),
        ],
        cwd=PROJECT,
        env=env,
        capture_output=True,
        check=False,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    a, b = tree(first), tree(second)
    assert a.keys() == b.keys()
    assert [rel for rel in a if a[rel] != b[rel]] == []
    # and no output mentions where it was written
    for rel, data in a.items():
        assert str(tmp_path).encode() not in data, rel


def test_generate_removes_stale_files_but_keeps_the_users(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    specs = small_specs(
        tmp_path / "specs", {"demo/KeepOp": "Kept.", "demo/GoneOp": "Gone.", "extra/ExtraOp": "Extra."}
    )
    out = tmp_path / "out"
    generate(capsys, out, specs)
    assert {"demo/gone_op.py", "docs/demo/gone_op.md", "extra/extra_op.py", "extra/__init__.py"} <= set(
        tree(out)
    )
    (out / "demo" / "notes.py").write_text("# my own notes, not generated\nX = 1\n")
    (out / "docs" / "demo" / "mine.md").write_text("# My page\n")
    (out / "extra" / "keep.txt").write_text("mine\n")

    (specs / "demo" / "gone_op.yaml").unlink()
    shutil.rmtree(specs / "extra")
    _, written, _, removed, stdout = generate(capsys, out, specs)
    files = tree(out)
    for rel in (
        "demo/gone_op.py",
        "docs/demo/gone_op.md",
        "extra/extra_op.py",
        "extra/__init__.py",
        "docs/extra/extra_op.md",
    ):
        assert rel not in files, rel
        assert f"  removed {out / rel}" in stdout
    assert removed == 5
    assert written >= 2  # the package __init__ and the index no longer list the removed ops
    assert files["demo/notes.py"] == b"# my own notes, not generated\nX = 1\n"
    assert files["docs/demo/mine.md"] == b"# My page\n"
    assert files["extra/keep.txt"] == b"mine\n"
    assert not (out / "docs" / "extra").exists()  # emptied generated folders go too
    assert set(files) == expected_files(specs) | {"demo/notes.py", "docs/demo/mine.md", "extra/keep.txt"}
    assert b"gone_op" not in files["__init__.py"] and b"GoneOp" not in files["docs/index.md"]


def test_generated_package_imports_under_its_own_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A user generates their own specs into their own package (`--out myops`): `import myops`
    must give their ops, not the project's `generated` package."""
    specs = small_specs(tmp_path / "specs", {"demo/UserOp": "A user's op."})
    package = f"user_ops_{uuid.uuid4().hex[:10]}"
    generate(capsys, tmp_path / package, specs)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(PROJECT)])}
    code = f"import {package} as m; print(m.user_op.__module__)"
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        check=False,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"{package}.demo.user_op"


# -- check -----------------------------------------------------------------------------------------
def test_check_passes_when_in_sync(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    generate(capsys, out)
    status, stdout, _ = run(capsys, "check", "--specs", SPECS, "--templates", TEMPLATES, "--out", out)
    assert status == 0, stdout
    assert re.search(r"^opgen check: \d+ generated files up to date$", stdout, re.MULTILINE), stdout
    assert "\nopgen check: 0 let(s) written twice by ops that could share them" in stdout  # (issue 31's goal)


def test_check_lists_stale_missing_and_extra_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    generate(capsys, out)
    before = tree(out)
    stale = out / "nn" / "fused_batch_norm_v3.py"
    stale.write_text(stale.read_text(encoding="utf-8") + "# edited by hand\n", encoding="utf-8")
    missing = out / "docs" / "nn" / "fused_batch_norm_grad_v3.md"
    missing.unlink()
    extra = out / "nn" / "old_op.py"
    extra.write_text("# generated from specs/nn/old_op.yaml by opgen — do not edit\n")
    status, stdout, _ = run(capsys, "check", "--specs", SPECS, "--templates", TEMPLATES, "--out", out)
    assert status == 1, stdout
    assert "opgen check: 3 generated file(s) out of date" in stdout
    assert f"  stale   {stale}" in stdout
    assert f"  missing {missing}" in stdout
    assert f"  extra   {extra}" in stdout
    # check only reports: the folder is as it was
    after = tree(out)
    assert "docs/nn/fused_batch_norm_grad_v3.md" not in after and "nn/old_op.py" in after
    assert after["nn/fused_batch_norm_v3.py"] == before["nn/fused_batch_norm_v3.py"] + b"# edited by hand\n"


@pytest.mark.parametrize("change", ["modify", "delete"])
def test_check_fails_after_one_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: str
) -> None:
    out = tmp_path / "out"
    generate(capsys, out)
    target = out / "nn" / "fused_batch_norm.cu"
    if change == "modify":
        target.write_bytes(target.read_bytes().replace(b"__global__", b"__global__ ", 1))
    else:
        target.unlink()
    status, stdout, _ = run(capsys, "check", "--specs", SPECS, "--templates", TEMPLATES, "--out", out)
    assert status == 1
    assert "1 generated file(s) out of date" in stdout
    assert f"  {'stale  ' if change == 'modify' else 'missing'} {target}" in stdout


def test_check_ignores_the_users_own_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    generate(capsys, out)
    (out / "nn" / "helpers.py").write_text("X = 1\n")
    (out / "nn" / "__pycache__").mkdir()
    (out / "nn" / "__pycache__" / "x.pyc").write_bytes(b"\0\1")
    status, stdout, _ = run(capsys, "check", "--specs", SPECS, "--templates", TEMPLATES, "--out", out)
    assert status == 0, stdout


def test_project_generated_folder_is_in_sync() -> None:
    """The committed generated/ matches specs/ and templates/ (run `python -m codegen generate`)."""
    proc = subprocess.run(
        [sys.executable, "-m", "codegen", "check"],
        cwd=PROJECT,
        capture_output=True,
        check=False,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, f"`python -m codegen check` failed:\n{proc.stdout}{proc.stderr}"
    assert "up to date" in proc.stdout


def test_check_tokenizes_each_kernel_once(capsys: pytest.CaptureFixture[str]) -> None:
    """`opgen check` reads each rendered kernel with the C++ tokenizer once, for every analysis
    (kernel_check, index_width, the manifest's extern-shared scan): the characters tokenized are
    the kernels' own, plus the little a macro body or a parameter's type adds (not two or three
    times the kernels, as when each analysis tokenized its own copy)."""
    from codegen.runtime import cxx

    kernels = sum(len(p.read_text()) for p in GENERATED.rglob("*.cu"))
    cxx.stream.cache_clear()  # (an earlier check in this process may have left every module's tokens)
    before = cxx.stats["tokenized_chars"]
    status, stdout, _ = run(capsys, "check", "--specs", SPECS, "--templates", TEMPLATES, "--out", GENERATED)
    assert status == 0, stdout
    tokenized = cxx.stats["tokenized_chars"] - before
    assert kernels * 0.9 < tokenized < kernels * 1.1, (tokenized, kernels)


def test_check_imports_neither_numpy_nor_the_runtime_backends() -> None:
    """`opgen check` and `opgen generate` need the C++ scanner, not the host backend (NumPy,
    ctypes): a tenth of a second on every run."""
    code = ("import sys\nfrom codegen import cli\nassert cli.main(['check']) == 0\n"
            "print(sorted(m for m in ('numpy', 'torch', 'codegen.runtime.host') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=PROJECT, capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "[]", proc.stdout


# -- list and show ---------------------------------------------------------------------------------
def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    status, stdout, _ = run(capsys, "list")
    assert status == 0
    lines = stdout.splitlines()
    assert re.search(r"^FusedBatchNormV3 +nn +Batch normalization\.$", stdout, re.MULTILINE), stdout
    assert re.search(
        r"^FusedBatchNormGradV3 +nn +Gradient for batch normalization\.$", stdout, re.MULTILINE
    ), stdout
    assert len(lines) == len(load_specs(SPECS))


def test_list_marks_deprecated_ops(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    specs = small_specs(tmp_path / "specs", {"demo/OldOp": "Old.", "demo/NewOp": "New."})
    path = specs / "demo" / "old_op.yaml"
    path.write_text(path.read_text() + "deprecated: Use NewOp.\n")
    status, stdout, _ = run(capsys, "list", "--specs", specs)
    assert status == 0
    assert stdout.splitlines() == ["NewOp  demo      New.", "OldOp  demo      Old. (deprecated)"]


@pytest.mark.parametrize("name", ["FusedBatchNormGradV3", "fused_batch_norm_grad_v3"])
def test_show(capsys: pytest.CaptureFixture[str], name: str) -> None:
    status, stdout, _ = run(capsys, "show", name)
    assert status == 0
    lines = stdout.splitlines()
    assert lines[0] == "FusedBatchNormGradV3  (nn/fused_batch_norm_grad_v3.yaml)"
    assert lines[1] == "  Gradient for batch normalization."
    assert "  type T: float16 | bfloat16 | float32" in lines
    for section in ("  inputs:", "  attrs:", "  outputs:"):
        assert section in lines
    assert lines.index("  inputs:") < lines.index("  attrs:") < lines.index("  outputs:")
    assert "    scale: float32 [C]" in lines
    assert "    reserve_space_3: U [...]" in lines
    assert any(
        line.startswith("    y_backprop: T [N, H, W, C] (NHWC) · [N, C, H, W] (NCHW)") for line in lines
    )
    assert "    epsilon: float = 0.0001" in lines
    assert "    data_format: enum = 'NHWC' in ['NHWC', 'NCHW', 'NDHWC', 'NCDHW']" in lines
    assert "    is_training: bool = True" in lines
    assert "    scale_backprop: U [C]" in lines
    assert lines[-1] == (
        "  python: fused_batch_norm_grad_v3(y_backprop, x, scale, reserve_space_1, reserve_space_2, "
        "reserve_space_3, *, epsilon=0.0001, data_format='NHWC', is_training=True, scope=None)"
    )


def test_show_input_checks(capsys: pytest.CaptureFixture[str]) -> None:
    """Accepted dtypes, value bounds and conditions of inputs are part of the signature."""
    _, stdout, _ = run(capsys, "show", "DmlRnn")
    assert ("    sequence_lengths: uint32 [1, 1, 1, batch_size] optional (also int32, int64, converted) "
            "values ≥ 0 ≤ seq_length") in stdout.splitlines()
    _, stdout, _ = run(capsys, "show", "CudnnRNNV3")
    assert any(line.startswith("    input_c: T ") and line.endswith(" when rnn_mode = 'lstm'")
               for line in stdout.splitlines())


def test_show_unknown_op(capsys: pytest.CaptureFixture[str]) -> None:
    status, stdout, stderr = run(capsys, "show", "Nope")
    assert status == 2
    assert stdout == ""
    assert "opgen show: no op named 'Nope' (known: Batch, " in stderr
    assert ", FusedBatchNormGradV3, FusedBatchNormV3, " in stderr


def test_unknown_command_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(["frobnicate"])
    assert info.value.code == 2


# -- opgen new: a working starting point for an op -------------------------------------------------
@pytest.mark.parametrize("launch_sizes", ["cpu", "cuda"])
def test_new_op_scaffold_generates_and_runs(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch, launch_sizes: str) -> None:
    specs, templates = tmp_path / "specs", tmp_path / "templates"
    status, out, _ = run(capsys, "new", "ScaleBy", "--group", "demo", "--specs", specs, "--templates", templates)
    assert status == 0, out
    assert (specs / "demo" / "scale_by.yaml").is_file() and (templates / "kernels" / "demo" / "scale_by.cu").is_file()
    package = f"opgen_scaffold_{uuid.uuid4().hex[:12]}"
    status, out, err = run(capsys, "generate", "--specs", specs, "--templates", templates, "--out",
                           tmp_path / package)
    assert status == 0, err
    monkeypatch.syspath_prepend(str(tmp_path))
    ops = importlib.import_module(package)
    scope = ops.Scope("cpu")
    monkeypatch.setattr(scope.backend, "name", launch_sizes)  # both launch-size cases of the scaffold's lets
    monkeypatch.setenv("OPGEN_POISON_OUTPUTS", "1")
    x = np.random.default_rng(0).standard_normal((97, 1031)).astype(np.float32)  # several blocks either way
    np.testing.assert_allclose(ops.scale_by(x, alpha=-1.5, scope=scope).y, -1.5 * x.astype(np.float64), rtol=1e-6)
    half = ops.scale_by(x[:3].astype(np.float16), scope=scope).y
    assert half.dtype == np.float16 and np.array_equal(half, x[:3].astype(np.float16))


def test_new_op_refuses_to_overwrite_and_bad_names(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    specs, templates = tmp_path / "specs", tmp_path / "templates"
    assert run(capsys, "new", "ScaleBy", "--specs", specs, "--templates", templates)[0] == 0
    before = (specs / "custom" / "scale_by.yaml").read_text(encoding="utf-8")
    status, _, err = run(capsys, "new", "ScaleBy", "--specs", specs, "--templates", templates)
    assert status == 2 and "already exist" in err and "nothing was written" in err
    assert (specs / "custom" / "scale_by.yaml").read_text(encoding="utf-8") == before
    status, _, err = run(capsys, "new", "scale_by", "--specs", specs, "--templates", templates)
    assert status == 2 and "op: name 'scale_by' is not valid" in err and "nothing was written" in err
    status, _, err = run(capsys, "new", "Other", "--group", "Bad-Group", "--specs", specs, "--templates", templates)
    assert status == 2 and "group folder 'Bad-Group' is not valid" in err and "nothing was written" in err


# -- lint and type checks of the generated package -------------------------------------------------
def _tool(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(
            f"{module} is not installed (it is in the project's test extra: pip install -e '.[test]')"
        )


def test_generated_code_passes_ruff() -> None:
    _tool("ruff")
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "generated"],
        cwd=PROJECT,
        capture_output=True,
        check=False,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, f"ruff check generated:\n{proc.stdout}{proc.stderr}"


def test_package_index_sorts_imports_of_any_group(tmp_path: Path) -> None:
    """A group folder that sorts before `activations` (abc) still gives a lint-clean __init__."""
    _tool("ruff")
    specs = tmp_path / "specs"
    shutil.copytree(PROJECT / "specs", specs)
    (specs / "abc").mkdir()
    shutil.move(specs / "rnn" / "dml_rnn.yaml", specs / "abc" / "dml_rnn.yaml")  # uses the activation library
    templates = tmp_path / "templates"
    (templates / "kernels" / "abc").mkdir(parents=True)
    shutil.copy(PROJECT / "codegen" / "templates" / "kernels" / "rnn" / "dml_rnn.cu", templates / "kernels" / "abc")
    spec = specs / "abc" / "dml_rnn.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("source: rnn/dml_rnn.cu", "source: abc/dml_rnn.cu"),
                    encoding="utf-8")
    out = tmp_path / "pkg"
    assert cli.main(["generate", "--specs", str(specs), "--templates", str(templates), "--out", str(out)]) == 0
    index = (out / "__init__.py").read_text(encoding="utf-8")
    assert index.index("from .abc.dml_rnn import") < index.index("from .activations import")
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--isolated", "--select", "I,F",
                           str(out / "__init__.py")], capture_output=True, check=False, text=True, timeout=120)
    assert proc.returncode == 0, f"ruff on the index:\n{proc.stdout}{proc.stderr}"


def test_generated_code_passes_mypy(tmp_path: Path) -> None:
    _tool("mypy")
    # a fresh cache: an incremental cache left by an earlier run can report stale results
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "generated", "--ignore-missing-imports", "--cache-dir", str(tmp_path)],
        cwd=PROJECT,
        capture_output=True,
        check=False,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"mypy generated --ignore-missing-imports:\n{proc.stdout}{proc.stderr}"


def test_template_error_exits_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    templates = tmp_path / "templates"
    shutil.copytree(TEMPLATES, templates)
    page = templates / "docs" / "op.md.j2"
    page.write_text(page.read_text(encoding="utf-8") + "{% if %}\n", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / "sentinel.txt").write_text("keep\n")
    status, _, stderr = run(capsys, "generate", "--specs", SPECS, "--templates", templates, "--out", out)
    assert status == 2
    assert "opgen: template error: " in stderr and "op.md.j2" in stderr
    assert "nothing was written" in stderr
    assert tree(out) == {"sentinel.txt": b"keep\n"}


def test_missing_kernel_source_is_a_spec_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a user's spec names a kernel that is neither in their template folder nor built in
    specs = tmp_path / "specs"
    shutil.copytree(SPECS, specs)
    spec = specs / "nn" / "fused_batch_norm_v3.yaml"
    spec.write_text(spec.read_text().replace("source: nn/fused_batch_norm.cu", "source: nn/user_kernel.cu"))
    templates = tmp_path / "templates"
    (templates / "kernels").mkdir(parents=True)
    out = tmp_path / "out"
    status, _, stderr = run(capsys, "generate", "--specs", specs, "--templates", templates, "--out", out)
    assert status == 2
    assert "op FusedBatchNormV3" in stderr
    assert "kernel: source 'nn/user_kernel.cu' not found under templates/kernels/" in stderr
    assert not out.exists()


def _demo(cache: Path) -> str:
    """`opgen demo`'s output in a fresh process with its own kernel cache, generated/ left as it is."""
    code = ("import codegen.demo as d, codegen.files as f; f.apply = lambda *a: None; "
            "raise SystemExit(d.run_demo())")
    env = {**os.environ, "OPGEN_CACHE_DIR": str(cache)}
    proc = subprocess.run([sys.executable, "-c", code], cwd=PROJECT, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_demo_says_whether_the_first_call_compiled(tmp_path: Path) -> None:
    cold = _demo(tmp_path / "cache")
    assert re.search(r"first call [\d.]+ ms \(includes compiling 1 kernel module\), second call [\d.]+ ms", cold), cold
    assert "device: cpu" not in cold or re.search(r"device: cpu \(kernels built for (x86-64-v3|baseline)\)", cold), cold
    warm = _demo(tmp_path / "cache")  # the same cache: nothing to compile
    assert re.search(r"first call [\d.]+ ms \(kernels from the disk cache, nothing compiled\)", warm), warm
    assert "compiling" not in warm


@pytest.mark.parametrize("fault", ["a bad spec", "a missing kernel template", "--specs missing", "--templates missing"])
def test_demo_generates_through_generates_path(fault: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """`opgen demo` generates by `opgen generate`'s one path: what generate refuses, demo refuses with
    the same message (a spec's file:line), exit 2, nothing written."""
    assert run(capsys, "init", tmp_path / "proj")[0] == 0
    root = tmp_path / "proj"
    monkeypatch.chdir(root)
    flags: list[str] = []
    if fault == "a bad spec":
        spec = root / "specs" / "example" / "scaled_tanh.yaml"
        spec.write_text(spec.read_text().replace("{name: alpha, type: float,", "{name: alpha, type: flot,"))
    elif fault == "a missing kernel template":
        (root / "templates" / "kernels" / "example" / "scaled_tanh.cu").unlink()
    else:
        flags = [fault.split()[0], str(tmp_path / "missing")]
    before = tree(root)
    generated = run(capsys, "generate", *flags)
    demo = run(capsys, "demo", *flags)
    assert generated[0] == demo[0] == 2 and demo[1] == "", demo
    assert generated[2] == demo[2] and "nothing was written" in demo[2]
    assert tree(root) == before
    at = "specs/example/scaled_tanh.yaml:"
    if fault == "a bad spec":
        lines = spec.read_text().splitlines()
        at += f"{next(n for n, t in enumerate(lines, 1) if 'flot' in t)}: op ScaledTanh: attr 'alpha': unknown type"
    expected = {"--specs missing": "spec folder not found", "--templates missing": "template folder"}.get(fault, at)
    assert expected in demo[2], demo[2]
