"""`#line` directives in generated kernels (codegen/linemarks.py): compiler errors and sanitizer
findings name the kernel template's own file:line; the directives are the only difference from the
unmarked text, their paths are relative (to the project's root; the built-in templates are
codegen/templates/...), and every line they map lands on the right source line."""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
import numpy as np
import pytest
from test_kernel_check import GOOD, generate

from codegen import cli, linemarks, modules
from codegen.linemarks import LineMap
from codegen.load import load_specs
from codegen.render import make_env, module_text, render_module
from codegen.runtime import host, manifest

PROJECT = cli.PROJECT
DIRECTIVE = re.compile(r'#line (\d+) "([^"]*)"')
TEMPLATE = "templates/kernels/demo/scale_add.cu"


def unmarked(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if not DIRECTIVE.fullmatch(line))


def assert_lines_map(text: str, read: dict[str, list[str]]) -> int:
    """Every line of `text` that a directive maps into a file of `read` (its lines) is that file's
    line, unless the file's line is Jinja (which renders to something else); lines mapped into
    the generated file are themselves. Returns the number of lines checked."""
    lines, marks, checked = text.split("\n"), LineMap("?", text), 0
    for number, line in enumerate(lines, 1):
        if DIRECTIVE.fullmatch(line):
            continue
        where = marks(number)
        if where.file.startswith("generated/"):  # the generated file, named by its package
            assert lines[where.line - 1] == line, (where, line)
        elif where.file in read:
            source = read[where.file][where.line - 1]
            if re.search(r"\{[{%#]|[}%#]\}", source):  # Jinja: renders to other text
                continue
            assert source == line, (str(where), line, source)
        else:
            continue
        checked += 1
    return checked


@pytest.mark.parametrize("specs,templates", [
    ("specs", []), ("tests/fixtures/specs", ["tests/fixtures/templates"])], ids=["specs", "fixtures"])
def test_generated_kernels_map_every_line_to_its_template(tmp_path: Path, specs: str, templates: list[str]) -> None:
    out = tmp_path / "out"
    argv = ["generate", "--specs", str(PROJECT / specs), "--out", str(out)]
    for t in templates:
        argv += ["--templates", str(PROJECT / t)]
    assert cli.main(argv) == 0
    kernels = sorted(out.rglob("*.cu"))
    roots = cli.template_roots([PROJECT / t for t in templates])
    assert kernels
    read: dict[str, list[str]] = {}
    for cu in kernels:
        text = cu.read_text()
        paths = {m.group(2) for m in DIRECTIVE.finditer(text)}
        # relative paths only: the text does not depend on where the checkout or the output is
        assert str(tmp_path) not in text and str(PROJECT) not in text
        rel = cu.relative_to(out).as_posix()
        assert f"generated/{rel}" in paths  # the generated file, by its package's name (wherever it is written)
        for p in paths - {f"generated/{rel}"}:  # the templates, from the project's root (the repository)
            assert p.startswith(("codegen/templates/kernels/", "tests/fixtures/templates/kernels/")), p
            file = PROJECT / p
            assert any(file.is_relative_to(root) for root in roots), p
            read.setdefault(p, file.read_text().split("\n"))
        assert assert_lines_map(text, read) > 10, cu


def test_directives_are_the_only_difference_from_the_unmarked_kernel() -> None:
    """What `git diff generated/` showed when the directives came in: added #line lines only (each
    module: its template once, then every member's entry points)."""
    roots = cli.template_roots(None)
    env = make_env(roots)
    ops = load_specs(PROJECT / "specs")
    env.globals["activation_library"] = ops.activations  # type: ignore[attr-defined]
    checked = 0
    for module in modules.module_groups(ops):
        marked = render_module(env, module, roots)
        plain = module_text(env, module)  # as before: no directives
        marked, _, stated = marked.rstrip("\n").rpartition("\n")  # and the manifest line after it all
        assert stated.startswith(manifest.MARKER), module.path
        assert unmarked(marked + "\n") == unmarked(plain.replace(linemarks.RESUME + "\n", "")), module.path
        assert "OPGEN_RESUME" not in marked and DIRECTIVE.search(marked)
        checked += 1
    assert checked >= 5


CASES = """\
// plain line 1
{% for i in range(3) %}
__device__ int k{{ i }}() { return {{ i }}; }
// inside the loop, line 4
{% endfor %}
{% set captured %}
// captured text, output later
{% endset %}
#define TWO_LINES(a) \\
  (a)
{% if true -%}
// after whitespace control
{%- endif %}
int joined = 1;{% if true %}
// the line after a trailing tag
{% endif %}
{{ captured }}
{% raw %}
// {{ raw }} text
{% endraw %}
{{ "multi
line" }}
// plain line 23
"""


def test_marked_templates_render_the_same_text_plus_directives(tmp_path: Path) -> None:
    folder = tmp_path / "templates" / "kernels"
    folder.mkdir(parents=True)
    (folder / "cases.cu").write_text(CASES)
    base = jinja2.FileSystemLoader(str(tmp_path / "templates"))
    options = {"trim_blocks": True, "lstrip_blocks": True, "keep_trailing_newline": True}
    plain = jinja2.Environment(loader=base, **options).get_template("kernels/cases.cu").render()
    loader = linemarks.MarkingLoader(base, [tmp_path / "templates"], lambda name: name.startswith("kernels/"))
    marked = jinja2.Environment(loader=loader, **options).get_template("kernels/cases.cu").render()
    assert unmarked(marked) == plain.rstrip("\n") + "\n" or unmarked(marked) == plain
    assert '#line 1 "templates/kernels/cases.cu"' in marked
    assert "\\\n#line" not in marked  # never inside a macro's continued line
    assert "captured text, output later\n" in plain and assert_lines_map(
        marked, {"templates/kernels/cases.cu": CASES.split("\n")}) >= 6
    resumed = linemarks.resume(marked + f"{linemarks.RESUME}\n// generated\n", "generated/demo/cases.cu")
    lines = resumed.split("\n")
    assert lines[-3] == f'#line {len(lines) - 1} "generated/demo/cases.cu"' and lines[-2] == "// generated"


def compile_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], kernel: str) -> tuple[str, str]:
    """The C++ error of `kernel` as `opgen generate`'s check reports it (exit 2, nothing written) and
    as the cpu backend's compile of the module reports it (generated with --no-compile)."""
    status, err = generate(tmp_path, kernel, capsys=capsys)
    assert status == 2 and "opgen: nothing was written" in err and not (tmp_path / "out").exists(), err
    assert generate(tmp_path, kernel, capsys=capsys, flags=("--no-compile",))[0] == 0
    text = (tmp_path / "out" / "demo" / "scale_add.cu").read_text()
    with pytest.raises(host.HostCompileError) as info:
        host.load_module(text, name_hint="ScaleAdd")
    return err, str(info.value)


def test_a_syntax_error_in_a_kernel_names_the_template_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))
    loop = "{% for i in range(3) %}\n__device__ int k{{ i }}() { return {{ i }}; }\n{% endfor %}\n"
    kernel = GOOD.replace("// y = alpha * x, elementwise\n", loop + "// y = alpha * x, elementwise\n")
    kernel = kernel.replace("  if (i < N * C)", "  int oops = ;\n  if (i < N * C)")
    line = kernel.split("\n").index("  int oops = ;") + 1
    at_generate, message = compile_error(tmp_path, capsys, kernel)
    assert at_generate.startswith(f"opgen: error: {TEMPLATE}:{line}: C++ error: "), at_generate
    assert re.search(rf"(^|\s){re.escape(TEMPLATE)}:{line}:\d+: error", message), message


def test_an_error_in_an_entry_point_names_the_generated_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))
    # a device function the check accepts (a deduced functor type) but no call can instantiate
    kernel = GOOD.replace("const T* __restrict__ x, T* __restrict__ y", "const T* __restrict__ x, F y").replace(
        "template <typename T>\n__device__ __forceinline__ void scale", "template <typename T, typename F>\n"
        "__device__ __forceinline__ void scale").replace("y[i] = ", "y(i) = ")
    at_generate, message = compile_error(tmp_path, capsys, kernel)
    generated = (tmp_path / "out" / "demo" / "scale_add.cu").read_text().split("\n")
    line = next(n for n, text in enumerate(kernel.split("\n"), 1) if "y(i) = " in text)
    assert at_generate.startswith(f"opgen: error: {TEMPLATE}:{line}: C++ error: 'y' cannot be used as a function"), \
        at_generate
    for said in (at_generate, message):
        m = re.search(r"generated/demo/scale_add\.cu:(\d+):\d+: +required from here", said)
        assert m is not None, said
        assert generated[int(m.group(1)) - 1].strip().startswith("scale<float>("), said  # the entry point's call
    assert re.search(rf"{re.escape(TEMPLATE)}:{line}:\d+: error: .y. cannot be used as a function", message), message


def test_a_sanitizer_finding_names_the_template_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))
    kernel = GOOD.replace("if (i < N * C) y[i]", "if (i <= N * C) y[i]")  # one element past the end
    assert generate(tmp_path, kernel, capsys=capsys)[0] == 0
    text = (tmp_path / "out" / "demo" / "scale_add.cu").read_text()
    module = host.load_module(text, name_hint="ScaleAdd", sanitize=True)
    x, y = np.ones(8, np.float32), np.zeros(8, np.float32)
    line = kernel.split("\n").index("  if (i <= N * C) y[i] = opgen::from_float<T>(alpha * opgen::to_float(x[i]));")
    host.set_sanitize(True)
    try:
        with pytest.raises(host.HostKernelError) as info:
            module.get_function("ScaleAdd__scale__float32")((1, 1, 1), (32, 1, 1),
                                                            (x, y, np.int64(2), np.int64(4), np.float32(2)))
    finally:
        host.set_sanitize(None)
    assert f"line {line + 1} of {TEMPLATE} (" in str(info.value), str(info.value)


def test_each_kernel_template_compiles_once_for_all_ops(monkeypatch: pytest.MonkeyPatch) -> None:
    """render_all marks and compiles each kernel template once, however many ops render it (the
    shared headers and module.cu.j2 are in every module's .cu; a forward op and its gradient share theirs)."""
    from codegen.render import render_all

    served: dict[str, int] = {}
    get_source = linemarks.MarkingLoader.get_source

    def counted(self: linemarks.MarkingLoader, environment: jinja2.Environment, template: str):  # type: ignore[no-untyped-def]
        served[template] = served.get(template, 0) + 1
        return get_source(self, environment, template)

    monkeypatch.setattr(linemarks.MarkingLoader, "get_source", counted)
    render_all(load_specs(PROJECT / "specs"), cli.template_roots(None))
    assert served["kernels/module.cu.j2"] == 1 and served["kernels/_common.cuh"] == 1, served
    assert max(served.values()) == 1, served
