"""`opgen generate` checks every launch step against its device function (codegen/kernel_check.py):
a planted mismatch stops it with the step's `file:line`, exit status 2 and nothing written; the
signature scanner reads the kernels of specs/ and of the test fixtures without a false alarm."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from test_spec_errors import FILE, OP, line_of, with_kernel, write_spec

from codegen import cli, kernel_check
from codegen.load import load_specs
from codegen.model import LaunchStep, OpSpec
from codegen.render import make_env, render_kernel

PROJECT = cli.PROJECT
SPEC = with_kernel()  # ScaleAdd: launch step `scale` with args [x, y, N, C, alpha], specialized on T

GOOD = """\
{% include "kernels/_common.cuh" %}

// y = alpha * x, elementwise
template <typename T>
__device__ __forceinline__ void scale(const T* __restrict__ x, T* __restrict__ y, long long N,
                                      long long C, float alpha) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < N * C) y[i] = opgen::from_float<T>(alpha * opgen::to_float(x[i]));
}
"""

SIGNATURE = """\
__device__ __forceinline__ void scale(const T* __restrict__ x, T* __restrict__ y, long long N,
                                      long long C, float alpha) {"""


def rendered_kernels(specs: str = "specs", templates: Sequence[str] = ()) -> Iterator[tuple[OpSpec, str]]:
    """(op, its .cu as render_kernel writes it) for each kernel op of a spec folder of the project."""
    ops = load_specs(PROJECT / specs)
    roots = cli.template_roots([PROJECT / t for t in templates])
    env = make_env(roots)
    env.globals["activation_library"] = ops.activations  # type: ignore[attr-defined]
    for op in ops:
        if op.kernel is not None:
            yield op, render_kernel(env, op, roots)


def generate(tmp_path: Path, kernel: str, spec: str = SPEC, capsys: pytest.CaptureFixture[str] | None = None,
             flags: tuple[str, ...] = ()) -> tuple[int, str]:
    """`opgen generate [flags]` of the ScaleAdd spec with `kernel` as its template: (status, stderr)."""
    write_spec(tmp_path / "specs", spec)
    source = tmp_path / "templates" / "kernels" / "demo" / "scale_add.cu"
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text(kernel)
    status = cli.main(["generate", "--specs", str(tmp_path / "specs"), "--templates", str(tmp_path / "templates"),
                       "--out", str(tmp_path / "out"), *flags])
    err = capsys.readouterr().err if capsys is not None else ""
    return status, err


def refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], kernel: str, spec: str = SPEC,
            step_line: str = "- kernel: scale") -> str:
    """The message of a refused generate (exit 2 at the launch step's line, nothing written)."""
    status, err = generate(tmp_path, kernel, spec, capsys)
    assert status == 2, err
    assert not (tmp_path / "out").exists()
    prefix = f"opgen: error: {FILE}:{line_of(spec, step_line)}: op {OP}: launch step 'scale': "
    assert err.startswith(prefix), err
    assert "opgen: nothing was written" in err
    return err.splitlines()[0][len(prefix):]


def test_a_matching_kernel_generates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert generate(tmp_path, GOOD, capsys=capsys)[0] == 0
    assert (tmp_path / "out" / "demo" / "scale_add.cu").is_file()


@pytest.mark.parametrize("params", [
    "const T* x, const T* y, long long N, long long C, float alpha",  # an output to a const pointer
    "const T* x, T* y, long long N, long long C, double alpha",  # scalars convert
    "const T* x, T* y, long long N, long long C, float alpha, int extra = 0",  # a default
    "const T* x, T* y, long long N, ...",  # C varargs take the rest
    "const T x[], T* y, long long N, long long C, float alpha",  # an array parameter is a pointer
    "const T* x, T* y, const long long& N, long long C, const float& alpha",  # const references
])
def test_signatures_the_compiler_accepts_are_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      params: str) -> None:
    kernel = GOOD.replace(SIGNATURE, f"__device__ void scale({params}) {{")
    # (the launch-step check's judgement alone: GOOD's body does not compile with every one of them,
    # writing to a const y or naming parameters that varargs took, which the C++ check would report)
    assert generate(tmp_path, kernel, capsys=capsys, flags=("--no-compile",))[0] == 0, capsys.readouterr().err


def test_missing_device_function(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    message = refused(tmp_path, capsys, GOOD.replace("void scale(", "void scal("))
    assert message == ("no device function 'scale' in templates/kernels/demo/scale_add.cu (did you mean scal?)")


def test_missing_device_function_lists_what_is_there(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    message = refused(tmp_path, capsys, GOOD.replace("void scale(", "void multiply_by_alpha("))
    assert message.endswith("(its device functions: multiply_by_alpha)"), message


def test_too_few_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kernel = GOOD.replace("long long C, float alpha)", "long long C, float alpha, float beta)")
    message = refused(tmp_path, capsys, kernel)
    line = line_of(kernel, "void scale(")
    assert message.startswith(f"templates/kernels/demo/scale_add.cu:{line}: scale takes 6 argument(s) "), message
    assert message.endswith("the step gives 5 (x, y, N, C, alpha)"), message


def test_too_many_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    message = refused(tmp_path, capsys, GOOD.replace(",\n                                      long long C,", ","))
    assert "scale takes 4 argument(s) (const T* __restrict__ x, T* __restrict__ y, long long N, float alpha), " \
           "the step gives 5" in message


def test_a_scalar_given_to_a_pointer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    message = refused(tmp_path, capsys, GOOD.replace("long long N,", "const long long* N,"))
    assert "argument 3, dim N (long long N), for parameter `const long long* N`: a pointer parameter given a " \
           "scalar" in message


def test_a_tensor_given_to_a_scalar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    message = refused(tmp_path, capsys, GOOD.replace("const T* __restrict__ x,", "float x,"))
    assert "argument 1, input x (const float* __restrict__ x), for parameter `float x`: a scalar parameter " \
           "given a pointer" in message


def test_an_input_given_to_a_non_const_pointer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    message = refused(tmp_path, capsys, GOOD.replace("const T* __restrict__ x,", "T* __restrict__ x,"))
    assert "argument 1, input x" in message and "for parameter `T* __restrict__ x`: a read-only input given to " \
           "a non-const pointer: declare the parameter const" in message


def test_another_element_type_names_the_specialization(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # float32 matches; float16 does not
    message = refused(tmp_path, capsys, GOOD.replace("const T* __restrict__ x,", "const float* __restrict__ x,"))
    assert message.endswith("for parameter `const float* __restrict__ x`: element type float, given __half "
                            "(specialized T=float16)"), message


def test_a_plain_function_given_template_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    message = refused(tmp_path, capsys, GOOD.replace("template <typename T>\n", "using T = float;\n"))
    assert message.endswith("scale is not a template, the step specializes it on 1 type(s)"), message


def test_a_function_inside_a_namespace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kernel = GOOD.replace("template <typename T>", "namespace k {\ntemplate <typename T>") + "}  // namespace k\n"
    assert "is declared in namespace k" in refused(tmp_path, capsys, kernel)
    assert generate(tmp_path / "b", kernel + "using k::scale;\n", capsys=capsys)[0] == 0  # made visible: fine


def test_a_host_function(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    message = refused(tmp_path, capsys, GOOD.replace("__device__ __forceinline__ void scale(", "inline void scale("))
    assert message.endswith("scale is not a __device__ function"), message


def test_another_launch_of_the_same_kernel_with_other_arguments(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    step = "    - kernel: scale\n      grid: [\"ceildiv(N*C, 256)\"]\n      block: [256]\n"
    spec = SPEC + step + "      args: [x, y, C, N, alpha]\n"
    status, err = generate(tmp_path, GOOD, spec, capsys)
    assert status == 2
    assert f"{FILE}:{line_of(spec, 'args: [x, y, C, N, alpha]') - 3}: op {OP}: launch step 'scale': passes " \
           f"(x, y, C, N, alpha), but the step at line {line_of(spec, 'args: [x, y, N, C, alpha]') - 3}" in err


def test_comments_strings_and_other_declarations_do_not_confuse_the_scanner(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    noise = """\
// void scale(int only_one);  (a comment)
/* template <typename T> __device__ void scale(T a); */
#define SCALE_SIGNATURE "void scale(int)"
struct Scaler {  // a member function is not a free function
  __device__ void scale(int a) const {}
};
constexpr int kTable[] = {1, 2, 3};
static_assert(sizeof(int) == 4, "int is 4 bytes { }");
template <typename T, int N = (3 > 2) ? 4 : 8> struct Pack { T v[N]; };
"""
    assert generate(tmp_path, noise + GOOD, capsys=capsys)[0] == 0, capsys.readouterr().err
    message = refused(tmp_path / "b", capsys, noise + GOOD.replace("void scale(", "void scalar("))
    assert "no device function 'scale'" in message


def test_scanner_takes_signatures_apart() -> None:
    unit = kernel_check.scan("""
namespace outer { namespace { template <typename T, int N = 4> __device__ __forceinline__ float
  f(const T* const* __restrict__ xs, float (&v)[4], long long& n, const opgen::act::Activation& act,
    unsigned int k = N < 3 ? 1 : 2, Foo<Bar<T>> w = {}) { return 0; } } }
using namespace outer;
__device__ void g(void);
""")
    (f,) = kernel_check.visible(unit, "f")
    assert f.template is not None and [t.name for t in f.template] == ["T", "N"] and f.template[1].default
    xs, v, n, act, k, w = f.params
    assert (xs.type.base, xs.type.consts, xs.name) == ("T", (True, True, False), "xs")
    assert (v.type.reference, v.type.depth, v.name) == ("&", 1, "v")
    assert (n.type.base, n.type.reference, n.type.depth) == ("long long", "&", 0)
    assert (act.type.base, act.type.consts[0], act.name) == ("opgen::act::Activation", True, "act")
    assert (k.type.base, k.default) == ("int unsigned", True)
    assert (w.type.base, w.default, w.name) == ("Foo<Bar<T>>", True, "w")
    (g,) = kernel_check.visible(unit, "g")
    assert g.params == () and g.device and g.template is None


@pytest.mark.parametrize("specs,templates", [
    ("specs", []), ("tests/fixtures/specs", ["tests/fixtures/templates"])], ids=["specs", "fixtures"])
def test_every_launch_step_of_the_project_finds_its_device_function(specs: str, templates: list[str]) -> None:
    """Not vacuous: each step of every kernel op has a visible device function whose parameters
    take the step's arguments (render_kernel would raise otherwise)."""
    checked = 0
    for op, text in rendered_kernels(specs, templates):
        assert op.kernel is not None
        unit = kernel_check.scan(text)
        for step in op.kernel.launches():
            if isinstance(step, LaunchStep):
                assert [f for f in kernel_check.visible(unit, step.kernel) if f.device], (op.name, step.kernel)
                checked += 1
    assert checked >= 5



def test_macros_and_disabled_sections(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # an object-like macro is expanded: DEVICE is __device__, RESTRICT continues on the next line
    macros = "#define DEVICE __device__ __forceinline__\n#define RESTRICT \\\n  __restrict__\n"
    kernel = macros + GOOD.replace("__device__ __forceinline__ void scale(const T* __restrict__ x",
                                   "DEVICE void scale(const T* RESTRICT x")
    assert generate(tmp_path / "a", kernel, capsys=capsys)[0] == 0, capsys.readouterr().err
    message = refused(tmp_path / "b", capsys, kernel.replace("const T* RESTRICT x", "T* RESTRICT x"))
    assert "a read-only input given to a non-const pointer" in message
    # a function a function-like macro declares is left to the compiler
    made = ("#define MAKE(name) template <typename T> __device__ void name(const T*, T*, long long, long long, "
            "float) {}\n")
    assert generate(tmp_path / "c", made + "MAKE(scale)\n", capsys=capsys)[0] == 0
    # an `#if 0` section does not count
    disabled = "#if 0\n" + GOOD + "#else\n// nothing\n#endif\n"
    assert "no device function 'scale'" in refused(tmp_path / "d", capsys, disabled)


def test_conditionals_over_the_kernels_own_macros_choose_one_branch() -> None:
    """kernel_check reads the branch the compiler compiles (codegen/runtime/cxx.py): here the int
    overload only, so a float argument would be judged against it alone."""
    source = ("#define USE_INT 1\n#if USE_INT\n__device__ void f(int* x);\n#else\n__device__ void f(float* x);\n"
              "#endif\n#ifndef USE_INT\n__device__ void f(double* x);\n#endif\n")
    assert [f.params[0].type.base for f in kernel_check.visible(kernel_check.scan(source), "f")] == ["int"]
    unknown = source.replace("#define USE_INT 1\n", "")  # a condition the scanner cannot know: both read
    assert sorted(f.params[0].type.base for f in kernel_check.visible(kernel_check.scan(unknown), "f")) == [
        "double", "float", "int"]
