"""The host backend's reading of a kernel source (issue 22 item 2): which `extern "C" __global__`
kernels a module has and their `__launch_bounds__` follow the preprocessor as the compiler does
(`#if`/`#ifdef`/`#elif`/`#else` over the source's own macros, object-like macros expanded), so a
disabled kernel does not break `load_module` and a launch bound spelled with a macro is enforced."""

from __future__ import annotations

import numpy as np
import pytest

from codegen.runtime import host


def _names(source: str) -> list[str]:
    return sorted(k.name for k in host.scan_kernels(source))


def _bounds(source: str) -> dict[str, int]:
    return {k.name: k.max_threads for k in host.scan_kernels(source)}


FILL = "{{ out[threadIdx.x] = {value}.0f; }}"


def _kernel(name: str, value: int, bounds: str = "") -> str:
    lb = f"__launch_bounds__({bounds}) " if bounds else ""
    return f'extern "C" __global__ void {lb}{name}(float* out) ' + FILL.format(value=value) + "\n"


# ------------------------------------------------------------ conditionals --

def test_kernel_inside_if_0_is_not_a_kernel_and_the_module_loads():
    source = _kernel("live", 1) + "#if 0\n" + _kernel("disabled", 2) + "#endif\n"
    assert _names(source) == ["live"]
    mod = host.load_module(source, name_hint="scan_if0")
    assert mod.kernel_names == ["live"]
    out = np.full(32, -1.0, np.float32)
    mod.get_function("live")((1,), (32,), (out,))
    assert (out == 1.0).all()
    with pytest.raises(KeyError, match="'disabled' not found"):
        mod.get_function("disabled")


@pytest.mark.parametrize("directives, expected", [
    ("#define ON 1\n#if ON\n{a}#else\n{b}#endif\n", ["a"]),
    ("#define ON 0\n#if ON\n{a}#else\n{b}#endif\n", ["b"]),
    ("#define V 3\n#if V == 1\n{a}#elif V == 3\n{b}#else\n{c}#endif\n", ["b"]),
    ("#define V 2\n#if V == 1\n{a}#elif V == 3\n{b}#else\n{c}#endif\n", ["c"]),
    ("#define HAVE_A\n#ifdef HAVE_A\n{a}#endif\n#ifndef HAVE_A\n{b}#endif\n", ["a"]),
    ("#define HAVE_A\n#if defined(HAVE_A) && !defined HAVE_B\n{a}#endif\n", ["a"]),
    ("#define X 1\n#undef X\n#ifdef X\n{a}#else\n{b}#endif\n", ["b"]),
    ("#define ON 0\n#if 0\n#undef ON\n#define ON 1\n#endif\n#if ON\n{a}#endif\n{b}", ["b"]),  # dead defines
    ("#if 0\n#if 1\n{a}#endif\n#else\n{b}#endif\n", ["b"]),  # nested in a dead branch
    ("#if 1 ? 0 : 1\n{a}#elif (1 << 3) / 3 == 2 && -1 < 0\n{b}#endif\n", ["b"]),
])
def test_conditionals_over_the_sources_own_macros(directives, expected):
    source = directives.format(a=_kernel("a", 1), b=_kernel("b", 2), c=_kernel("c", 3))
    assert _names(source) == expected


def test_a_condition_the_scanner_cannot_know_keeps_every_branch():
    """`__CUDA_ARCH__` and friends come from the compiler: both branches are read (the kernels a
    module lists may then include one the compiler drops, as before)."""
    source = "#ifdef __CUDA_ARCH__\n" + _kernel("a", 1) + "#else\n" + _kernel("b", 2) + "#endif\n"
    assert _names(source) == ["a", "b"]


def test_disabled_extern_shared_is_not_aliased():
    source = ("#if 0\nextern __shared__ float gone[];\n#endif\n"
              'extern "C" __global__ void uses(float* out) { extern __shared__ float buf[]; '
              "buf[threadIdx.x] = 5.0f; __syncthreads(); out[threadIdx.x] = buf[threadIdx.x]; }\n")
    assert host.scan_extern_shared(source) == ["buf"]
    out = np.zeros(16, np.float32)
    host.load_module(source, name_hint="scan_shared").get_function("uses")((1,), (16,), (out,),
                                                                           shared_mem=16 * 4)
    assert (out == 5.0).all()


# ----------------------------------------------------------- launch bounds --

def test_launch_bound_from_a_macro_is_enforced():
    source = "#define LB 128\n" + _kernel("lb", 7, "LB")
    assert _bounds(source) == {"lb": 128}
    fn = host.load_module(source, name_hint="scan_lb").get_function("lb")
    out = np.zeros(256, np.float32)
    fn((1,), (128,), (out,))
    assert (out[:128] == 7.0).all()
    with pytest.raises(host.HostLaunchError, match=r"256 threads, more than 128 \(__launch_bounds__\)"):
        fn((1,), (256,), (out,))


@pytest.mark.parametrize("spelling, bound", [
    ("64", 64),
    ("0x40u", 64),
    ("2 * LB", 256),
    ("(LB + 32) / 2, 4", 80),
    ("LB << 1", 256),
    ("HALF", 64),  # a macro whose replacement uses another macro
    ("LB, MIN_BLOCKS", 128),
])
def test_launch_bound_expressions(spelling, bound):
    source = "#define LB 128\n#define HALF (LB / 2)\n#define MIN_BLOCKS 2\n" + _kernel("k", 1, spelling)
    assert _bounds(source) == {"k": bound}


def test_launch_bound_the_scanner_cannot_evaluate_falls_back_to_cudas_limit():
    """A name the source does not define (from an include, a constexpr variable): the documented
    fallback is CUDA's own limit, 1024, and the compiler still applies the real bound on the GPU."""
    source = _kernel("k", 1, "kBlock")
    assert _bounds(source) == {"k": host.MAX_THREADS_PER_BLOCK}


def test_launch_bound_under_a_conditional_macro():
    source = ("#define WIDE 0\n#if WIDE\n#define LB 512\n#else\n#define LB 256\n#endif\n"
              + _kernel("k", 1, "LB"))
    assert _bounds(source) == {"k": 256}


# ------------------------------------------------------------ macro kernels --

def test_kernel_declared_by_an_object_like_macro_is_found():
    source = ('#define DECLARE_ONE extern "C" __global__ void one(float* out) { out[threadIdx.x] = 1.0f; }\n'
              "DECLARE_ONE\n")
    assert _names(source) == ["one"]
    out = np.zeros(8, np.float32)
    host.load_module(source, name_hint="scan_macro").get_function("one")((1,), (8,), (out,))
    assert (out == 1.0).all()


def test_kernel_declared_by_a_function_like_macro_is_not_listed():
    """Function-like macros are not expanded (documented): such a kernel is not listed, so
    get_function names it as missing instead of the build failing."""
    source = ('#define KERNEL(name) extern "C" __global__ void name(float* out) { out[0] = 1.0f; }\n'
              "KERNEL(made)\n" + _kernel("plain", 2))
    assert _names(source) == ["plain"]


def test_parameter_names_and_duplicate_declarations():
    source = ('extern "C" __global__ void k(const float* __restrict__ a, int n);\n'
              'extern "C" __global__ void __launch_bounds__(32) k(const float* __restrict__ a, int n) { }\n'
              'extern "C" __global__ void v(void) { }\n'
              'extern "C" __global__ void arr(float x[4], unsigned long long m) { }\n')
    sigs = {k.name: k.param_names for k in host.scan_kernels(source)}
    assert sigs == {"k": ("a", "n"), "v": (), "arr": ("x", "m")}


# ---------------------------------------------------------- -D/-U options --

def test_macros_from_the_options_are_honoured():
    source = "#ifdef WITH_B\n" + _kernel("second", 2, "LB") + "#endif\n" + _kernel("first", 1)
    assert _names(source) == ["first", "second"]  # WITH_B unknown: read
    assert sorted(k.name for k in host.scan_kernels(source, ("-UWITH_B",))) == ["first"]
    sigs = host.scan_kernels(source, ("--define-macro=WITH_B", "-D", "LB=32"))
    assert {k.name: k.max_threads for k in sigs} == {"first": 1024, "second": 32}
    fn = host.load_module(source, ("-DWITH_B", "-DLB=32"), name_hint="scan_options").get_function("second")
    out = np.zeros(64, np.float32)
    fn((1,), (32,), (out,))
    with pytest.raises(host.HostLaunchError, match=r"more than 32 \(__launch_bounds__\)"):
        fn((1,), (64,), (out,))
