"""The vector math library (codegen/templates/kernels/_vmath.cuh) and the activation library under
measurement: the dense input grids, the kernels that evaluate every function's forms on them through
the host toolchain, and the documented bounds (read from docs/specs.md's tables, so the test and
the docs cannot disagree). Used by tests/test_vector_math.py and scripts/ulp_table.py.

Builds: "sse2" is the cpu backend's baseline build (the x86-64 baseline, vm::kLanes = 4), "avx2"
its x86-64-v3 build (AVX2, FMA: vm::kLanes = 8, F16C conversions), "avx2 fma" the same with
-ffp-contract=fast (multiply-adds fused: the bounds hold for such a build too), "gpu form" defines
OPGEN_GPU_FORM: vm's functions are then CUDA's names, which the emulation maps to the C library,
checked against CUDA's documented bounds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from codegen.linemarks import BUILTIN_TEMPLATES
from codegen.model import ActivationLibrary
from codegen.render import make_env
from codegen.runtime import host
from codegen.vocab import builtin_activations

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs" / "specs.md"
FUNCTIONS = ("exp", "expm1", "log", "log1p", "tanh", "sigmoid", "erf")
#: Activations of the built-in library measured (the rest are exact arithmetic: x, alpha·x + beta, max, ...)
ACTIVATIONS = ("tanh", "scaled_tanh", "sigmoid", "elu", "scaled_elu", "softplus", "parametric_softplus")
#: build → (compiler options, the cpu backend's vector ISA)
BUILDS = {"sse2": ((), "baseline"), "avx2": ((), "x86-64-v3"), "avx2 fma": (("-ffp-contract=fast",), "x86-64-v3"),
          "gpu form": (("-DOPGEN_GPU_FORM",), "baseline")}

KERNELS = r"""
// out[f·n + i] = f(x[i]) by the run form (runs of 8 from a row's start, then single values: a
// kernel's row loop); scalar_out the same by the scalar form alone.
template <typename F>
__device__ void by_runs(const float* x, float* y, long long n, F f) {
  long long j = 0;
  for (; j + 8 <= n; j += 8) {
    float v[8];
    for (int q = 0; q < 8; ++q) v[q] = x[j + q];
    opgen::vm::map_run(v, f);
    for (int q = 0; q < 8; ++q) y[j + q] = v[q];
  }
  for (; j < n; ++j) y[j] = f(x[j]);
}
template <typename F>
__device__ void one_by_one(const float* x, float* y, long long n, F f) {
  for (long long j = 0; j < n; ++j) y[j] = f(x[j]);
}
extern "C" __global__ void vm_functions(const float* x, float* out, float* scalar_out, long long n) {
  const opgen::vm::Exp f0;
  const opgen::vm::Expm1 f1;
  const opgen::vm::Log f2;
  const opgen::vm::Log1p f3;
  const opgen::vm::Tanh f4;
  const opgen::vm::Sigmoid f5;
  const opgen::vm::Erf f6;
  by_runs(x, out, n, f0), by_runs(x, out + n, n, f1), by_runs(x, out + 2 * n, n, f2);
  by_runs(x, out + 3 * n, n, f3), by_runs(x, out + 4 * n, n, f4), by_runs(x, out + 5 * n, n, f5);
  by_runs(x, out + 6 * n, n, f6);
  one_by_one(x, scalar_out, n, f0), one_by_one(x, scalar_out + n, n, f1), one_by_one(x, scalar_out + 2 * n, n, f2);
  one_by_one(x, scalar_out + 3 * n, n, f3), one_by_one(x, scalar_out + 4 * n, n, f4);
  one_by_one(x, scalar_out + 5 * n, n, f5), one_by_one(x, scalar_out + 6 * n, n, f6);
}
// vm::load/vm::store of 16-bit runs against opgen::to_float/from_float, element by element (n: a
// multiple of vm::kLanes). The host form's: in the GPU form the kernels do nothing.
template <typename T>
__device__ void convert_runs(const T* bits, float* loaded, float* loaded_ref, const float* x, T* stored,
                             T* stored_ref, long long n) {
#ifdef OPGEN_VM_HOST
  for (long long j = 0; j < n; j += opgen::vm::kLanes) {
    opgen::vm::store(loaded + j, opgen::vm::load(bits + j));
    opgen::vm::store(stored + j, opgen::vm::load(x + j));
  }
  for (long long j = 0; j < n; ++j) {
    loaded_ref[j] = opgen::to_float(bits[j]);
    stored_ref[j] = opgen::from_float<T>(x[j]);
  }
#endif
}
extern "C" __global__ void convert_half(const __half* bits, float* loaded, float* loaded_ref, const float* x,
                                       __half* stored, __half* stored_ref, long long n) {
  convert_runs(bits, loaded, loaded_ref, x, stored, stored_ref, n);
}
extern "C" __global__ void convert_bf16(const __nv_bfloat16* bits, float* loaded, float* loaded_ref, const float* x,
                                       __nv_bfloat16* stored, __nv_bfloat16* stored_ref, long long n) {
  convert_runs(bits, loaded, loaded_ref, x, stored, stored_ref, n);
}
// The emulation's float -> half conversion (cuda_fp16.h: F16C or bit arithmetic) beside its exact
// rounding of the value as a double (cuda_emu.h), which it replaced for floats.
extern "C" __global__ void half_rn(const float* x, __half* fast, __half* exact, long long n) {
  for (long long j = 0; j < n; ++j) {
    fast[j] = __float2half_rn(x[j]);
    exact[j] = __ushort_as_half(opgen_round_small_float(static_cast<double>(x[j]), 10, 5, 0));
  }
}
extern "C" __global__ void activations(const float* x, float* out, long long n) {
  namespace act = opgen::act;
  for (long long j = 0; j < n; ++j) {
    out[j] = act::tanh(x[j]);
    out[n + j] = act::scaled_tanh(x[j], 1.0f, 1.0f);
    out[2 * n + j] = act::sigmoid(x[j]);
    out[3 * n + j] = act::elu(x[j], 1.0f);
    out[4 * n + j] = act::scaled_elu(x[j], 1.67326319217681884765625f, 1.05070102214813232421875f);
    out[5 * n + j] = act::softplus(x[j], 1.0f);
    out[6 * n + j] = act::parametric_softplus(x[j], 1.0f, 1.0f);
  }
}
"""
#: Run lengths the run-form test uses: every tail length behind full vectors of 4 or 8 lanes, and
#: runs shorter than a vector.
RUN_LENGTHS = tuple(range(1, 17))


def _activation_runs_kernel() -> str:
    """`activation_runs`: out[k·n + i] = activation k (default parameters) of x[i] by Activation::run
    over consecutive runs of r values (r in RUN_LENGTHS), the last run shorter; scalar_out the same
    by the scalar form f(x)."""
    library = builtin_activations()
    acts = []
    for kind in library.kinds:
        params = [f"{p.default!r}f" for p in kind.params] + ["0.f"] * (library.slots - len(kind.params))
        acts.append("opgen::act::Activation{" + ", ".join([str(kind.id), *params]) + "}")
    cases = "\n".join(f"      case {r}: by_activation_runs<{r}>(x, y, n, f); break;" for r in RUN_LENGTHS)
    return f"""
template <int R>
__device__ void by_activation_runs(const float* x, float* y, long long n, const opgen::act::Activation& f) {{
  for (long long j = 0; j < n; j += R) {{
    float v[R];
    const long long m = n - j < R ? n - j : R;
    for (int q = 0; q < R; ++q) v[q] = q < m ? x[j + q] : 0.f;
    f.run(v);
    for (int q = 0; q < m; ++q) y[j + q] = v[q];
  }}
}}
extern "C" __global__ void activation_runs(const float* x, float* out, float* scalar_out, long long n, long long r) {{
  const opgen::act::Activation acts[] = {{{", ".join(acts)}}};
  for (int k = 0; k < {len(acts)}; ++k) {{
    const opgen::act::Activation& f = acts[k];
    float* const y = out + k * n;
    switch (r) {{
{cases}
      default: break;
    }}
    for (long long j = 0; j < n; ++j) scalar_out[k * n + j] = f(x[j]);
  }}
}}
"""


SCALED_ELU = (1.67326319217681884765625, 1.05070102214813232421875)  # ONNX's Selu defaults, as the kernel passes


def floats(*parts: object) -> np.ndarray:
    return np.concatenate([np.asarray(p, np.float64).ravel() for p in parts]).astype(np.float32)


def around(points: list[float], half_width: int = 2000) -> np.ndarray:
    """Every float within half_width floats of each point (the branch points, seen float by float)."""
    out = []
    for p in np.array(points, np.float32):
        bits = np.int64(p.view(np.int32))
        steps = np.arange(-half_width, half_width + 1, dtype=np.int64)
        signed = np.where(bits < 0, -(bits & 0x7FFFFFFF), bits) + steps  # walk across zero too
        raw = np.where(signed < 0, (-signed) | 0x80000000, signed).astype(np.uint32)
        out.append(raw.view(np.float32))
    return np.concatenate(out)


SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 1.0, 2.0**-149, -(2.0**-149), 2.0**-126,
                    np.finfo(np.float32).max, -np.finfo(np.float32).max], np.float32)


@cache
def grid() -> np.ndarray:
    """One grid for every function (about 4 million floats): dense linear sweeps of each function's
    interesting range, every float next to each branch point and clamp of _vmath.cuh, log-spaced
    magnitudes from the smallest subnormal to the largest float of both signs, and the specials."""
    ln2 = np.log(2.0)
    branch_points = [0.0, ln2 / 2, -ln2 / 2, 3 * ln2 / 2, -3 * ln2 / 2,   # the reduction's rounding of n
                     89.0, 88.72283935546875, -87.33654022216797, -103.97208, -104.0, -30.0, -17.33,  # clamps
                     88.0, -87.0,  # exp's shorter path (all of a vector's lanes in [−87, 88])
                     2.0**-25, -(2.0**-25), 2.0**-24, -(2.0**-24), 2.0**-126,   # the tiny-x and subnormal cut-offs
                     np.sqrt(0.5), np.sqrt(2.0), np.sqrt(0.5) - 1, np.sqrt(2.0) - 1, -1.0, 1.0, 2.0, 0.5,
                     0.921875, -0.921875, 3.9375, -3.9375, 0.625, -0.625, 9.01, -9.01]  # erf's, tanh's
    magnitudes = np.float32(2.0) ** np.linspace(-149, 127.99, 400_001)
    return floats(
        np.linspace(-105, 90, 1_200_001), np.linspace(-12, 12, 1_200_001), np.linspace(-1, 1, 400_001),
        np.linspace(-1.0, -0.25, 200_001), np.linspace(0.25, 4.5, 200_001),
        magnitudes, -magnitudes, around(branch_points), SPECIALS)


def library_source(library: ActivationLibrary) -> str:
    """kernels/_common.cuh and an activation library's kernels/_activations.cuh (which includes
    kernels/_vmath.cuh), rendered: the head of a test kernel source."""
    env = make_env([BUILTIN_TEMPLATES])
    env.globals["activation_library"] = library
    common = (BUILTIN_TEMPLATES / "kernels" / "_common.cuh").read_text(encoding="utf-8")
    return ("#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n" + common +
            env.get_template("kernels/_activations.cuh").render())


@cache
def _source() -> str:
    return library_source(builtin_activations()) + KERNELS + _activation_runs_kernel()


def module(build: str) -> host.HostModule:
    options, isa = BUILDS[build]
    return host.load_module(_source(), options, name_hint="vector_math", isa=isa)


def evaluate(build: str, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every function of FUNCTIONS at x: ([function, i] by the run form, the same by the scalar form)."""
    runs = np.full((len(FUNCTIONS), x.size), np.nan, np.float32)
    scalars = np.full_like(runs, np.nan)
    module(build).get_function("vm_functions")((1,), (1,), (x, runs, scalars, np.int64(x.size)))
    return runs, scalars


def convert(build: str, kind: str, bits: np.ndarray, x: np.ndarray) -> dict[str, np.ndarray]:
    """vm::load of the 16-bit `bits` and vm::store of the floats x (kind: "half" or "bf16"), each
    beside opgen::to_float/from_float of the same values (the host form only)."""
    n = bits.size
    out: dict[str, np.ndarray] = {
        "loaded": np.full(n, np.nan, np.float32), "loaded_ref": np.full(n, np.nan, np.float32),
        "stored": np.zeros(n, np.uint16), "stored_ref": np.ones(n, np.uint16)}
    as16 = (lambda a: a.view(np.float16)) if kind == "half" else (lambda a: a)  # the kernel's element type
    args = (as16(bits), out["loaded"], out["loaded_ref"], x, as16(out["stored"]), as16(out["stored_ref"]), np.int64(n))
    module(build).get_function(f"convert_{kind}")((1,), (1,), args)
    return out


def half_rn(build: str, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The emulation's __float2half_rn of x and opgen_round_small_float's rounding of it, as bits."""
    fast, exact = np.zeros(x.size, np.float16), np.ones(x.size, np.float16)
    module(build).get_function("half_rn")((1,), (1,), (x, fast, exact, np.int64(x.size)))
    return fast.view(np.uint16), exact.view(np.uint16)


def evaluate_activations(build: str, x: np.ndarray) -> np.ndarray:
    out = np.full((len(ACTIVATIONS), x.size), np.nan, np.float32)
    module(build).get_function("activations")((1,), (1,), (x, out, np.int64(x.size)))
    return out


def evaluate_activation_runs(build: str, x: np.ndarray, run_length: int) -> tuple[np.ndarray, np.ndarray]:
    """Every built-in activation (default parameters, in the library's order) at x: ([k, i] by
    Activation::run over runs of run_length values, the same by the scalar form)."""
    kinds = len(builtin_activations().kinds)
    runs = np.full((kinds, x.size), np.nan, np.float32)
    scalars = np.full_like(runs, np.nan)
    module(build).get_function("activation_runs")((1,), (1,), (x, runs, scalars, np.int64(x.size),
                                                                np.int64(run_length)))
    return runs, scalars


def activation_reference(name: str, x: np.ndarray) -> np.ndarray:
    """The float64 value of a built-in activation (default parameters) at float32 points x."""
    from reference.ulp import reference

    d = np.asarray(x, np.float32).astype(np.float64)
    alpha, gamma = SCALED_ELU
    with np.errstate(over="ignore", invalid="ignore"):  # NaN in, NaN out
        table = {
            "tanh": lambda: np.tanh(d), "scaled_tanh": lambda: np.tanh(d), "sigmoid": lambda: reference("sigmoid", x),
            "elu": lambda: np.where(d >= 0, d, np.expm1(d)),
            "scaled_elu": lambda: np.where(d > 0, gamma * d, gamma * alpha * np.expm1(d)),
            "softplus": lambda: np.logaddexp(0.0, d), "parametric_softplus": lambda: np.logaddexp(0.0, d),
        }
        return table[name]()


@dataclass(frozen=True)
class Bound:
    """A documented bound in ulps: the host form's and the GPU form's."""
    host: float
    gpu: float


def _table_rows(heading: str) -> dict[str, list[str]]:
    """The rows of the first Markdown table after `heading` in docs/specs.md, by first cell (backticks off)."""
    text = DOCS.read_text(encoding="utf-8")
    start = text.index(heading)
    rows: dict[str, list[str]] = {}
    for line in text[start:].splitlines()[1:]:
        if rows and not line.startswith("|"):
            break
        if line.startswith("|") and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[cells[0].strip("`")] = cells[1:]
    return rows


def _ulps(cell: str) -> float:
    match = re.search(r"([0-9.]+)", cell)
    assert match, f"docs/specs.md: no bound in {cell!r}"
    return float(match.group(1))


@cache
def documented_bounds() -> dict[str, Bound]:
    """vm::NAME → its bounds, from docs/specs.md's table "Errors in ulps" (columns: GPU form, its
    bound, host bound, ...)."""
    rows = _table_rows("#### Errors in ulps")
    return {name.removeprefix("vm::").removesuffix("(x)"): Bound(host=_ulps(cells[2]), gpu=_ulps(cells[1]))
            for name, cells in rows.items() if name.startswith("vm::")}


@cache
def documented_activation_bounds() -> dict[str, Bound]:
    """Activation name → its bounds, from docs/specs.md's table of the activation library's errors."""
    rows = _table_rows("#### The built-in activations' errors")
    return {name: Bound(host=_ulps(cells[0]), gpu=_ulps(cells[1])) for name, cells in rows.items()
            if name and name != "activation"}
