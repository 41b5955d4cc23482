"""`opgen generate`'s C++ check (codegen/cxx_check.py): a changed kernel module's host form is
compiled with -fsyntax-only; an error is reported at the template's `file:line` and nothing is
written; `--no-compile` skips it; an unchanged module is not compiled again, nor one whose text
passed before (the kernel cache remembers it); a missing compiler is one line, and generation goes on."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import run
from test_spec_errors import line_of

from codegen import cli, cxx_check

needs_compiler = pytest.mark.skipif(shutil.which("g++") is None and shutil.which("c++") is None,
                                    reason="the C++ check needs g++")
GOOD = "opgen::to_float(x[i])"
BAD = "opgen::to_floot(x[i])"  # no such function: an error only the compiler finds


def project(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> tuple[Path, Path, Path]:
    """`opgen new ScaleBy --group demo`: (specs, templates, its kernel template)."""
    specs, templates = tmp_path / "specs", tmp_path / "templates"
    assert run(capsys, "new", "ScaleBy", "--group", "demo", "--specs", specs, "--templates", templates)[0] == 0
    kernel = templates / "kernels" / "demo" / "scale_by.cu"
    assert GOOD in kernel.read_text(encoding="utf-8")
    return specs, templates, kernel


def generate(capsys: pytest.CaptureFixture[str], specs: Path, templates: Path, out: Path,
             *flags: str) -> tuple[int, str, str]:
    return run(capsys, "generate", "--specs", specs, "--templates", templates, "--out", out, *flags)


def break_kernel(kernel: Path) -> int:
    """The template with an error the compiler finds: the line it is on."""
    text = kernel.read_text(encoding="utf-8").replace(GOOD, BAD)
    kernel.write_text(text, encoding="utf-8")
    return line_of(text, BAD)


class CountedCompiles:
    """cxx_check._compile, counted: which modules the check compiled."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, cache: Path) -> None:
        monkeypatch.setenv("OPGEN_CACHE_DIR", str(cache))  # (an empty one: what passed before is remembered there)
        self.paths: list[str] = []
        real = cxx_check._compile

        def counted(command: list[str], folder: Path, path: str, text: str) -> str | None:
            self.paths.append(path)
            return real(command, folder, path, text)

        monkeypatch.setattr(cxx_check, "_compile", counted)


@needs_compiler
def test_an_error_in_a_template_is_reported_at_its_line_and_nothing_is_written(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    specs, templates, kernel = project(capsys, tmp_path)
    line = break_kernel(kernel)
    status, _, err = generate(capsys, specs, templates, tmp_path / "out")
    assert status == 2, err
    lines = err.splitlines()
    assert lines[0].startswith(f"opgen: error: templates/kernels/demo/scale_by.cu:{line}: C++ error: 'to_floot' is "
                               f"not a member of 'opgen'"), err
    assert "(the host form of kernel module demo/scale_by.cu; `opgen generate --no-compile` skips this check)" \
        in lines[0]
    assert lines[-1] == "opgen: nothing was written"
    assert not (tmp_path / "out").exists()
    # over a package generated before: it stays as it was
    kernel.write_text(kernel.read_text(encoding="utf-8").replace(BAD, GOOD), encoding="utf-8")
    assert generate(capsys, specs, templates, tmp_path / "out")[0] == 0
    before = {p: p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file()}
    break_kernel(kernel)
    status, _, err = generate(capsys, specs, templates, tmp_path / "out")
    assert status == 2 and f"scale_by.cu:{line}: C++ error:" in err, err
    assert {p: p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file()} == before


@needs_compiler
def test_a_good_template_generates_as_before_and_an_unchanged_one_is_not_compiled_again(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    specs, templates, _ = project(capsys, tmp_path)
    compiles = CountedCompiles(monkeypatch, tmp_path / "cache")
    status, out, err = generate(capsys, specs, templates, tmp_path / "out")
    assert (status, err) == (0, ""), err  # no warning, no note
    assert (tmp_path / "out" / "demo" / "scale_by.cu").is_file() and "written" in out
    assert compiles.paths == ["demo/scale_by.cu"]
    status, out, err = generate(capsys, specs, templates, tmp_path / "out")
    assert (status, err) == (0, "") and " 0 written" in out, out
    assert compiles.paths == ["demo/scale_by.cu"]  # the module is what the folder holds: no compile
    status, out, err = generate(capsys, specs, templates, tmp_path / "elsewhere")
    assert (status, err) == (0, "") and (tmp_path / "elsewhere" / "demo" / "scale_by.cu").is_file()
    assert compiles.paths == ["demo/scale_by.cu"]  # its text passed before: no compile either


def test_no_compile_skips_the_check(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    specs, templates, kernel = project(capsys, tmp_path)
    break_kernel(kernel)
    compiles = CountedCompiles(monkeypatch, tmp_path / "cache")
    status, _, err = generate(capsys, specs, templates, tmp_path / "out", "--no-compile")
    assert (status, err) == (0, ""), err
    assert BAD in (tmp_path / "out" / "demo" / "scale_by.cu").read_text(encoding="utf-8")
    assert compiles.paths == []


@pytest.mark.parametrize("cxx", [None, "no-such-compiler-here"])
def test_a_missing_compiler_is_one_line_and_generation_goes_on(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               cxx: str | None) -> None:
    specs, templates, _ = project(capsys, tmp_path)
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no g++, no c++
    if cxx is None:
        monkeypatch.delenv("CXX", raising=False)
    else:
        monkeypatch.setenv("CXX", cxx)
    status, _, err = generate(capsys, specs, templates, tmp_path / "out")
    assert status == 0, err
    [line] = err.splitlines()
    assert line.startswith("opgen generate: skipped the C++ check: needs g++ ("), line
    assert ("no C++ compiler found ($CXX unset, no g++ or c++ on PATH)" if cxx is None else
            "CXX='no-such-compiler-here' is not an executable C++ compiler") in line, line
    assert line.endswith("; or pass --no-compile"), line
    assert (tmp_path / "out" / "demo" / "scale_by.cu").is_file()


@needs_compiler
def test_generate_with_the_check_imports_neither_numpy_nor_the_host_backend(capsys: pytest.CaptureFixture[str],
                                                                             tmp_path: Path) -> None:
    specs, templates, _ = project(capsys, tmp_path)
    code = (f"import sys\nfrom codegen import cli\n"
            f"assert cli.main(['generate', '--specs', {str(specs)!r}, '--templates', {str(templates)!r}, '--out', "
            f"{str(tmp_path / 'out')!r}]) == 0\n"
            "print(sorted(m for m in ('numpy', 'torch', 'codegen.runtime.host') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=cli.PROJECT, capture_output=True, text=True, timeout=300,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "[]", proc.stdout
