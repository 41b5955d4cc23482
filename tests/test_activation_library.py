"""The activation library (built in: codegen/_vocab/activations.yaml; a spec folder's own
_vocab/activations.yaml replaces it) and the spec features DmlRnn brought:
`activation` / `list(activation)` attrs (defaults, `length`, an element as a kernel argument),
input `values: {min, max}` and `accepts_dtypes`.

Bad vocab entries and bad specs stop the loader with `file:line` and the valid choices; a tiny
op using every feature is generated into a temporary package from a spec folder of its own
(with its own vocab) and run on the cpu backend against NumPy.
"""

from __future__ import annotations

import importlib
import math
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
import vector_math_cases

from codegen.cli import main as opgen
from codegen.load import load_specs
from codegen.runtime import host
from codegen.vocab import C_FUNCTIONS, load_activations
from codegen.yamlnodes import SpecError

PROJECT = Path(__file__).resolve().parent.parent
VOCAB_FILE = "specs/_vocab/activations.yaml"

#: A small library: enough to exercise parameters, bounds and the generated dispatch.
VOCAB = """\
activations:
  - name: identity
    formula: "x"
    c: "x"
  - name: leaky
    params:
      - {name: alpha, default: 0.01, doc: The slope below 0.}
    formula: "x if x ≥ 0, else alpha·x"
    c: "x >= 0.0f ? x : alpha * x"
  - name: clip
    params:
      - {name: lo, default: -1.0}
      - {name: hi, default: 1.0, min: 0}
    formula: "min(max(x, lo), hi)"
    c: "fminf(fmaxf(x, lo), hi)"
"""

#: An op with an `activation` attr, a `list(activation)` attr of a declared length, an input with
#: value bounds that accepts further dtypes, and an element of the list as a kernel argument.
OP_SPEC = """\
op: Squash
summary: y[r] = g(f(x[r])) with g the activation of row r's group.
type_vars:
  T: [float32]
attrs:
  - {name: f, type: activation, default: identity}
  - {name: groups, type: list(activation), length: n_groups, default: {name: leaky, alpha: 0.5}}
inputs:
  - {name: x, dtype: T, shape: "[n_groups, width]"}
  - {name: offsets, dtype: uint32, accepts_dtypes: [int64], shape: "[n_groups]", values: {min: 0, max: width}}
outputs:
  - {name: y, dtype: T, shape: "[n_groups, width]"}
kernel:
  source: demo/squash.cu
  specialize: [T]
  launch:
    - repeat:
        var: g
        count: n_groups
        steps:
          - {kernel: squash, grid: [1], block: [32], args: [x, offsets, y, f, "groups[g]", g, width]}
"""

KERNEL = """\
{% include "kernels/_common.cuh" %}

// y[g, i] = groups[g](f(x[g, i])) for i >= offsets[g], else 0
template <typename T>
__device__ void squash(const T* __restrict__ x, const unsigned int* __restrict__ offsets, T* __restrict__ y,
                       opgen::act::Activation f, opgen::act::Activation g_act, long long g, long long width) {
  for (long long i = threadIdx.x; i < width; i += blockDim.x) {
    const long long o = g * width + i;
    y[o] = i >= static_cast<long long>(offsets[g]) ? g_act(f(x[o])) : T(0);
  }
}
"""


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def spec_folder(tmp_path: Path, vocab: str | None = VOCAB, op: str = OP_SPEC) -> Path:
    root = tmp_path / "specs"
    if vocab is not None:
        write(root, "_vocab/activations.yaml", vocab)
    write(root, "demo/squash.yaml", op)
    return root


def load_error(root: Path) -> SpecError:
    with pytest.raises(SpecError) as info:
        load_specs(root)
    return info.value


def line_of(text: str, needle: str) -> int:
    hits = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    assert len(hits) == 1, f"{needle!r} must be on exactly one line, found on {hits}"
    return hits[0]


def check(err: SpecError, file: str, line: int, *fragments: str) -> None:
    text = str(err)
    assert (err.file, err.line) == (file, line), text
    for fragment in fragments:
        assert fragment in err.message, f"{fragment!r} not in {text!r}"


# -- the project's library -------------------------------------------------------------------------
def test_project_library_loads() -> None:
    library = load_specs(PROJECT / "specs").activations
    assert library.names == ("identity", "linear", "tanh", "scaled_tanh", "sigmoid", "hard_sigmoid", "relu",
                             "leaky_relu", "thresholded_relu", "elu", "scaled_elu", "softsign", "softplus",
                             "parametric_softplus")
    assert library.slots == 2
    defaults = {k.name: {p.name: p.default for p in k.params} for k in library.kinds}
    assert defaults["hard_sigmoid"] == {"alpha": 0.2, "beta": 0.5}
    assert defaults["leaky_relu"] == {"alpha": 0.01}
    assert defaults["thresholded_relu"] == {"alpha": 1.0} and defaults["elu"] == {"alpha": 1.0}
    assert round(defaults["scaled_elu"]["alpha"], 4) == 1.6733 and round(defaults["scaled_elu"]["gamma"], 4) == 1.0507
    assert defaults["softplus"] == {"steepness": 1.0}


def test_device_functions_are_generated_into_kernels() -> None:
    source = (PROJECT / "generated" / "rnn" / "dml_rnn.cu").read_text(encoding="utf-8")
    assert "__device__ __forceinline__ float leaky_relu(float x, float alpha) {" in source
    assert "constexpr int kParametricSoftplus = 13;" in source
    assert "opgen::act::Activation{activations_id, activations_p0, activations_p1}" in source
    assert "int activations_id,\n    float activations_p0,\n    float activations_p1," in source


# -- bad vocab entries -----------------------------------------------------------------------------
@pytest.mark.parametrize(("old", "new", "needle", "fragments"), [
    ("activations:", "activation:", "activation:", ("missing required key 'activations'",)),
    ("    c: \"x\"\n", "", "- name: identity", ("activation 'identity': c: missing",)),
    ("default: 0.01, doc", "default: small, doc", "default: small", ("default: str 'small' is not a finite number",)),
    ("{name: hi, default: 1.0, min: 0}", "{name: hi, default: -1.0, min: 0}", "name: hi",
     ("parameter 'hi': default -1.0 is below the minimum 0.0",)),
    ("{name: lo, default: -1.0}", "{name: lo, default: -1.0, step: 2}", "name: lo", ("unknown key 'step'",)),
    ("- name: clip", "- name: leaky  # again", "# again", ("'leaky': declared twice (first at line 5)",)),
    ("- name: clip", "- name: check", "name: check", ("name 'check' is reserved",)),
    ("- name: clip", "- name: Clip", "name: Clip", ("name 'Clip' is not valid",)),
    ("{name: lo, default: -1.0}", "{name: x, default: -1.0}", "name: x,", ("name 'x' is reserved",)),
    ("fminf(fmaxf(x, lo), hi)", "fminf(fmaxf(x, lo), hi); system(0)", "c: \"fminf",
     ("character ';' is not allowed",)),
    ("fminf(fmaxf(x, lo), hi)", "fminf(fmaxf(x, lo), top)", "c: \"fminf", ("unknown name 'top' (known: x, hi, lo)",)),
    ("fminf(fmaxf(x, lo), hi)", "powf(x, hi)", "c: \"powf", ("unknown function 'powf' (allowed: ",)),
    ("fminf(fmaxf(x, lo), hi)", "fminf(fmaxf(x, lo), hi", "c: \"fminf", ("unbalanced '('",)),
    ("fminf(fmaxf(x, lo), hi)", "x /* lo */", "c: \"x /*", ("comments are not allowed",)),
    ("fminf(fmaxf(x, lo), hi)", "x // hi", "c: \"x //", ("comments are not allowed",)),
    ("fminf(fmaxf(x, lo), hi)", "x }; int y = {0", "c: \"x }", ("character '}' is not allowed",)),
    ("    params:\n      - {name: lo, default: -1.0}\n      - {name: hi, default: 1.0, min: 0}\n", "    params: lo\n",
     "params: lo", ("params: expected a list",)),
])
def test_bad_vocab_entries(tmp_path: Path, old: str, new: str, needle: str, fragments: tuple[str, ...]) -> None:
    assert VOCAB.count(old) == 1
    vocab = VOCAB.replace(old, new)
    err = load_error(spec_folder(tmp_path, vocab))
    check(err, VOCAB_FILE, line_of(vocab, needle), *fragments)
    assert err.op is None


def test_empty_library(tmp_path: Path) -> None:
    check(load_error(spec_folder(tmp_path, "activations: []\n")), VOCAB_FILE, 1, "expected a non-empty list")


def test_allowed_c_functions_exist_in_both_compilers() -> None:
    """Every allowed call is a float function of CUDA's math API or a helper of the header."""
    header = (PROJECT / "codegen" / "templates" / "kernels" / "_activations.cuh").read_text(encoding="utf-8")
    helpers = {"tanh_fast", "logistic", "log1p_exp"}
    for name in helpers:
        assert f"float {name}(float v)" in header
    assert all(n.endswith("f") for n in C_FUNCTIONS - helpers)


# -- bad op specs ----------------------------------------------------------------------------------
OP_FILE = "specs/demo/squash.yaml"


@pytest.mark.parametrize(("old", "new", "needle", "fragments"), [
    ("default: identity}", "default: tanh}", "name: f,", ("attr 'f': default: unknown activation 'tanh' "
                                                          "(known: identity, leaky, clip)",)),
    ("{name: leaky, alpha: 0.5}", "{name: leaky, beta: 0.5}", "name: groups",
     ("activation 'leaky' has no parameter 'beta' (its parameters: alpha)",)),
    ("{name: leaky, alpha: 0.5}", "[identity, {name: clip, hi: -2}]", "name: groups",
     ("default[1]: clip hi: -2 is below the minimum 0.0",)),
    ("{name: leaky, alpha: 0.5}", "{alpha: 0.5}", "name: groups", ("missing the activation's 'name'",)),
    ("{name: leaky, alpha: 0.5}", "[]", "name: groups", ("default: the list is empty",)),
    ("length: n_groups,", "length: rows,", "name: groups", ("attr 'groups': length: symbol 'rows' is not bound",)),
    ("type: activation, default: identity", "type: activation, length: 2, default: identity", "name: f,",
     ("attr 'f': unknown key 'length'",)),
    ('"groups[g]"', "groups", "args: [x, offsets", ("'groups' is a list(activation) attr: pass one element",)),
    ('"groups[g]"', '"f[g]"', "args: [x, offsets", ("'f' is not a list(activation) or list(int) attr",)),
    ('"groups[g]"', '"groups[q]"', "args: [x, offsets", ("index: symbol 'q' is not bound",)),
    ("accepts_dtypes: [int64]", "accepts_dtypes: [uint32]", "name: offsets", ("must list other dtypes",)),
    ("accepts_dtypes: [int64]", "accepts_dtypes: [int65]", "name: offsets", ("unknown dtype 'int65'",)),
    ("dtype: uint32, accepts_dtypes", "dtype: T, accepts_dtypes", "name: offsets",
     ("needs a single tensor of a fixed",)),
    ("values: {min: 0, max: width}", "values: {min: 0, max: depth}", "name: offsets",
     ("input 'offsets': values: max: symbol 'depth' is not bound",)),
    ("values: {min: 0, max: width}", "values: {}", "name: offsets", ("values: needs min, max or both",)),
    ("values: {min: 0, max: width}", "values: {least: 0}", "name: offsets", ("unknown key 'least'",)),
])
def test_bad_op_specs(tmp_path: Path, old: str, new: str, needle: str, fragments: tuple[str, ...]) -> None:
    assert OP_SPEC.count(old) == 1, old
    op = OP_SPEC.replace(old, new)
    err = load_error(spec_folder(tmp_path, op=op))
    check(err, OP_FILE, line_of(op, needle), *fragments)
    assert err.op == "Squash"


def test_a_folder_without_a_library_uses_the_built_in_one(tmp_path: Path) -> None:
    """No `_vocab/activations.yaml` in the spec folder: opgen's built-in library (package data), whose
    names the errors list; a folder's own library replaces it whole (the squash ops know no tanh)."""
    err = load_error(spec_folder(tmp_path, vocab=None))
    check(err, OP_FILE, line_of(OP_SPEC, "name: groups,"), "unknown activation 'leaky' (known: identity, linear, tanh,")
    root = spec_folder(tmp_path / "builtin", vocab=None, op=OP_SPEC.replace("name: leaky,", "name: leaky_relu,"))
    library = load_specs(root).activations
    assert library.source == "codegen/_vocab/activations.yaml"
    assert library.names == load_specs(PROJECT / "specs").activations.names and "leaky_relu" in library.names
    assert load_specs(spec_folder(tmp_path / "own")).activations.names == ("identity", "leaky", "clip")


def test_group_named_activations_is_reserved(tmp_path: Path) -> None:
    root = spec_folder(tmp_path)
    write(root, "activations/squash2.yaml", OP_SPEC.replace("op: Squash", "op: Squash2"))
    check(load_error(root), "specs/activations/squash2.yaml", 1, "group folder 'activations' is reserved")


# -- the features end to end -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def squash_ops(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    base = tmp_path_factory.mktemp("squash")
    root = spec_folder(base)
    templates = base / "templates"
    write(templates, "kernels/demo/squash.cu", KERNEL)
    out = base / "pkg" / "squash_ops"
    assert opgen(["generate", "--specs", str(root), "--templates", str(templates), "--out", str(out)]) == 0
    sys.path.insert(0, str(out.parent))
    try:
        return importlib.import_module("squash_ops")
    finally:
        sys.path.remove(str(out.parent))


def _squash_reference(x, offsets, f, groups) -> np.ndarray:
    fns = {"identity": lambda v, **_: v, "leaky": lambda v, alpha: np.where(v >= 0, v, alpha * v),
           "clip": lambda v, lo, hi: np.minimum(np.maximum(v, lo), hi)}
    y = np.zeros(x.shape)
    for g in range(x.shape[0]):
        row = fns[groups[g].name](fns[f.name](x[g].astype(np.float64), **dict(f.params)), **dict(groups[g].params))
        y[g, int(offsets[g]):] = row[int(offsets[g]):]
    return y


def test_features_end_to_end(squash_ops: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_POISON_OUTPUTS", "1")
    act, scope = squash_ops.Activation, squash_ops.Scope("cpu")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 40)).astype(np.float32) * 2
    offsets = np.array([0, 5, 40], np.int64)  # int64 accepted, converted to uint32
    cases = [
        ({}, act.identity(), (act.leaky(alpha=0.5),) * 3),  # the spec's defaults: one for every group
        ({"f": act.clip(lo=-0.5), "groups": "leaky"}, act.clip(lo=-0.5), (act.leaky(),) * 3),
        ({"f": "leaky", "groups": [act.clip(hi=0.25), "identity", act.leaky(alpha=2.0)]}, act.leaky(),
         (act.clip(hi=0.25), act.identity(), act.leaky(alpha=2.0))),
    ]
    for kwargs, f, groups in cases:
        y = squash_ops.squash(x, offsets, scope=scope, **kwargs).y
        np.testing.assert_allclose(y, _squash_reference(x, offsets, f, groups), rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match=r"Squash: attr groups: expected 3 activations \(n_groups = 3\)"):
        squash_ops.squash(x, offsets, groups=["leaky", "clip"], scope=scope)
    with pytest.raises(ValueError, match=r"Squash: attr f: unknown activation 'tanh' \(known: identity, leaky, clip\)"):
        squash_ops.squash(x, offsets, f="tanh", scope=scope)
    with pytest.raises(ValueError, match=r"Squash: offsets: expected every value in \[0, width=40\], got 41"):
        squash_ops.squash(x, np.array([0, 41, 2]), scope=scope)
    with pytest.raises(TypeError, match=r"Squash: offsets: expected dtype uint32, int64, got int32"):
        squash_ops.squash(x, offsets.astype(np.int32), scope=scope)
    assert squash_ops.Squash.f(act.clip())._values == {"f": act.clip()}
    page = (Path(squash_ops.__file__).parent / "docs" / "demo" / "squash.md").read_text(encoding="utf-8")
    assert "| `clip` | lo (-1.0), hi (1.0, ≥ 0.0) | min(max(x, lo), hi) |" in page
    assert "| `groups` | list(activation) | `Activation.leaky(alpha=0.5)` | [activations](#activations): " \
           "`n_groups` of them, or one for all |" in page
    assert "uint32 (int64 accepted and converted)" in page and "Values in [`0`, `width`]" in page


# -- a user library's run form ---------------------------------------------------------------------
GELU_VOCAB = """\
activations:
  - name: gelu
    formula: "x·Φ(x)"
    c: "0.5f * x * (1.0f + erff(x * 0.70710678118654752f))"
  - name: constant
    params:
      - {name: value, default: 1.0, doc: The value.}
    formula: "value"
    c: "value"
  - name: step
    formula: "1 if x > 0, else 0"
    c: "x > 0 ? 1 : 0"
"""
RUNS_KERNEL = """
// out[k·n + i] = activation k of x[i] by Activation::run over runs of 13 (the last one shorter);
// scalar_out the same by f(x).
extern "C" __global__ void runs(const float* x, float* out, float* scalar_out, long long n) {
  const opgen::act::Activation acts[] = {{opgen::act::kGelu, 0.f}, {opgen::act::kConstant, 2.5f},
                                         {opgen::act::kStep, 0.f}};
  for (int k = 0; k < 3; ++k) {
    for (long long j = 0; j < n; j += 13) {
      float v[13] = {};
      const long long m = n - j < 13 ? n - j : 13;
      for (int q = 0; q < m; ++q) v[q] = x[j + q];
      acts[k].run(v);
      for (int q = 0; q < m; ++q) out[k * n + j + q] = v[q];
    }
    for (long long j = 0; j < n; ++j) scalar_out[k * n + j] = acts[k](x[j]);
  }
}
"""


@pytest.mark.parametrize("build", ["sse2", "gpu form"])
def test_a_user_erf_activation_has_a_vector_run_form(tmp_path: Path, build: str) -> None:
    """A user library's erf-based GELU: its run form is the vector twin on the host (vm::erf's
    polynomial, so it differs from the scalar form, the C library's erff, somewhere) and as accurate
    as the scalar form against float64; a function with no vector expression (a parameter alone)
    falls back to the scalar function, and so does one whose vector form would be an int vector
    (`x > 0 ? 1 : 0`: g++ would reinterpret its bits as floats). The GPU form's run is the scalar
    function per element."""
    library = load_activations(spec_folder(tmp_path, GELU_VOCAB))
    options, isa = vector_math_cases.BUILDS[build]
    module = host.load_module(vector_math_cases.library_source(library) + RUNS_KERNEL, options,
                              name_hint="user_activation_runs", isa=isa)
    x = np.concatenate([np.linspace(-6, 6, 200_001), [np.inf, -np.inf, 0.0, -0.0, np.nan]]).astype(np.float32)
    out, scalar_out = np.full((3, x.size), np.nan, np.float32), np.full((3, x.size), np.nan, np.float32)
    module.get_function("runs")((1,), (1,), (x, out, scalar_out, np.int64(x.size)))
    d = x.astype(np.float64)
    with np.errstate(invalid="ignore"):
        want = 0.5 * d * (1.0 + np.vectorize(math.erf)(d / math.sqrt(2.0)))
    # erf's error (≤ 2.5 ulp of |erf| ≤ 1) times 0.5·|x|, and the products' roundings
    tolerance = 0.5 * np.abs(d) * 2.5 * 2.0**-23 + 2.0 * np.abs(want) * 2.0**-24
    finite = np.isfinite(d)
    for got in (out[0], scalar_out[0]):
        assert (np.abs(got[finite] - want[finite]) <= tolerance[finite]).all()
    special = ~finite | (x == 0)  # ±∞, ±0, NaN: the expression's own values (−∞·0 is NaN), the same in both forms
    np.testing.assert_array_equal(out[0][special], scalar_out[0][special])
    np.testing.assert_array_equal(np.signbit(out[0][special]), np.signbit(scalar_out[0][special]))
    differs = (out[0].view(np.uint32) != scalar_out[0].view(np.uint32)).any()
    assert differs == (build != "gpu form"), f"{build}: the run form {'is not' if build != 'gpu form' else 'is'} " \
                                             "the vector twin"
    np.testing.assert_array_equal(out[1], np.full(x.size, 2.5, np.float32))
    np.testing.assert_array_equal(out[1], scalar_out[1])
    np.testing.assert_array_equal(out[2], (x > 0).astype(np.float32))
    np.testing.assert_array_equal(out[2], scalar_out[2])
