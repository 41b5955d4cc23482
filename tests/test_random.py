"""Random numbers in kernels (issue 33, item 4): opgen::philox4x32_10 and its uniform helpers
(codegen/templates/kernels/_random.cuh) against Random123's published known-answer vectors and an
independent NumPy reimplementation (tests/reference/philox.py), in both kernel forms on the cpu
backend and compiled by NVRTC; and the dropout pattern of docs/specs.md ("Random numbers"), the
fixture ops of tests/fixtures/dropout/: the seed and offset are int64 tensor inputs, so the mask is
the same on every scope, the gradient uses the forward's mask, and six seeds compile once under
torch.compile."""

from __future__ import annotations

import importlib
import importlib.util
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from nvrtc_runs import nvrtc_compile_module, nvrtc_runs
from reference import philox

from codegen.linemarks import BUILTIN_TEMPLATES
from codegen.runtime.kernels import KernelSource
from codegen.runtime.scope import Scope

PROJECT = Path(__file__).resolve().parent.parent
FIXTURES = PROJECT / "tests" / "fixtures" / "dropout"
needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")

# Random123's known-answer vectors for philox4x32 with 10 rounds (counter words, key words, the
# result), the three standard ones of its examples/kat_vectors file (Random123 1.x, D. E. Shaw
# Research): every word 0, every word 0xffffffff, and the digits of pi.
KAT = [
    ((0x00000000, 0x00000000, 0x00000000, 0x00000000), (0x00000000, 0x00000000),
     (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF),
     (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]

#: The scopes the kernel tests use: the cpu plan, the GPU's plan on the emulation, the GPU form.
SCOPES = {"cpu plan": Scope("cpu"), "cuda plan": Scope("cpu", launch_plan="cuda"),
          "gpu form": Scope("cpu", kernel_form="gpu")}
#: Kernel form → the scope that runs it on the cpu backend.
FORMS = {"host": SCOPES["cpu plan"], "gpu": SCOPES["gpu form"]}

PROBE_KERNELS = r"""
// out[4i..4i+3] = philox4x32_10(counters[4i..], keys[2i..]): one result per thread, grid-stride.
extern "C" __global__ void philox_words(const unsigned* counters, const unsigned* keys, unsigned* out, long long n) {
  const long long threads = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += threads) {
    const uint4 c = make_uint4(counters[4 * i], counters[4 * i + 1], counters[4 * i + 2], counters[4 * i + 3]);
    const uint4 r = opgen::philox4x32_10(c, make_uint2(keys[2 * i], keys[2 * i + 1]));
    for (long long q = 0; q < 4; ++q) out[4 * i + q] = opgen::philox_word(r, q);
  }
}

// The stream a kernel draws: block i of (seed, offset), through philox_key and philox_counter.
extern "C" __global__ void philox_stream(long long seed, long long offset, unsigned* out, long long n) {
  const long long threads = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += threads) {
    const uint4 r = opgen::philox4x32_10(opgen::philox_counter(static_cast<unsigned long long>(i),
                                                               static_cast<unsigned long long>(offset)),
                                         opgen::philox_key(static_cast<unsigned long long>(seed)));
    for (long long q = 0; q < 4; ++q) out[4 * i + q] = opgen::philox_word(r, q);
  }
}

// The uniform helpers of each word (uniform_double of words 2i, 2i + 1).
extern "C" __global__ void uniforms(const unsigned* words, float* open_above, float* open_below, double* wide,
                                    long long n) {
  for (long long i = 0; i < n; ++i) {
    open_above[i] = opgen::uniform_float(words[i]);
    open_below[i] = opgen::uniform_float_nonzero(words[i]);
    if (i % 2 == 0 && i + 1 < n) wide[i / 2] = opgen::uniform_double(words[i], words[i + 1]);
  }
}
"""


def probe_source() -> str:
    """The header as a kernel template includes it, then the probe kernels."""
    header = (BUILTIN_TEMPLATES / "kernels" / "_random.cuh").read_text(encoding="utf-8")
    return header + PROBE_KERNELS


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> KernelSource:
    path = tmp_path_factory.mktemp("philox") / "philox_probe.cu"
    path.write_text(probe_source(), encoding="utf-8")
    return KernelSource("PhiloxProbe", path)


def _run(scope: Scope, probe: KernelSource, symbol: str, args: tuple[Any, ...], grid: int = 3,
         block: int = 32) -> None:
    scope.backend.launch(probe, symbol, (grid,), (block,), args)
    scope.backend.flush()


def _words(scope: Scope, probe: KernelSource, counters: np.ndarray, keys: np.ndarray) -> np.ndarray:
    out = np.zeros((len(counters), 4), np.uint32)
    _run(scope, probe, "philox_words", (np.ascontiguousarray(counters, np.uint32),
                                        np.ascontiguousarray(keys, np.uint32), out, np.int64(len(counters))))
    return out


# ------------------------------------------------------------------ the generator --

@pytest.mark.parametrize(("counter", "key", "want"), KAT)
def test_the_numpy_reference_gives_random123s_known_answers(counter, key, want) -> None:
    assert tuple(philox.philox4x32_10(np.array([counter]), key)[0]) == want


@needs_gxx
@pytest.mark.parametrize("form", FORMS)
def test_the_kernel_gives_random123s_known_answers(form: str, probe: KernelSource) -> None:
    got = _words(FORMS[form], probe, np.array([c for c, _, _ in KAT]), np.array([k for _, k, _ in KAT]))
    for (counter, key, want), row in zip(KAT, got, strict=True):
        assert tuple(int(w) for w in row) == want, f"{form} form: counter {counter} key {key}: got {row}"


@needs_gxx
@pytest.mark.parametrize("form", FORMS)
def test_the_kernel_equals_the_reference_on_many_counters_and_keys(form: str, probe: KernelSource) -> None:
    """10,000 random counters and keys, plus carries: words at 0xffffffff, the top bit, 0."""
    rng = np.random.default_rng(33)
    counters = rng.integers(0, 2**32, (10_000, 4), dtype=np.uint64)
    keys = rng.integers(0, 2**32, (10_000, 2), dtype=np.uint64)
    edges = np.array([0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0xFFFFFFFF], np.uint64)
    counters[:216, :] = edges[np.indices((6, 6, 6)).reshape(3, -1).T[:, [0, 1, 2, 0]]]
    keys[:36] = edges[np.indices((6, 6)).reshape(2, -1).T]
    got = _words(FORMS[form], probe, counters, keys)
    want = philox.philox4x32_10(counters, (keys[:, 0], keys[:, 1]))
    bad = np.flatnonzero((got != want).any(axis=1))
    assert not bad.size, f"{form} form: {bad.size} differ, the first at counter {counters[bad[0]]} key {keys[bad[0]]}"


@needs_gxx
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(("seed", "offset"), [(0, 0), (1234, 7), (-1, -1), (2**62 + 12345, 2**40 + 3)])
def test_the_stream_of_a_seed_and_offset(form: str, seed: int, offset: int, probe: KernelSource) -> None:
    """philox_key(seed) and philox_counter(i, offset) as documented: low word first."""
    n = 1000
    out = np.zeros((n, 4), np.uint32)
    _run(FORMS[form], probe, "philox_stream", (np.int64(seed), np.int64(offset), out, np.int64(n)))
    want = philox.philox4x32_10(philox.counters(np.arange(n), offset), philox.key_of(seed))
    assert np.array_equal(out, want)


@needs_gxx
@pytest.mark.parametrize("form", FORMS)
def test_the_uniform_helpers(form: str, probe: KernelSource) -> None:
    """[0, 1) and (0, 1] from 24 bits, [0, 1) from 53: exact, the ends included where promised."""
    words = np.concatenate([np.array([0, 0xFF, 0x100, 0xFFFFFF00, 0xFFFFFFFF, 0x80000000], np.uint32),
                            np.random.default_rng(4).integers(0, 2**32, 10_000, dtype=np.uint32)])
    n = len(words)
    above, below, wide = np.zeros(n, np.float32), np.zeros(n, np.float32), np.zeros(n // 2, np.float64)
    _run(FORMS[form], probe, "uniforms", (words, above, below, wide, np.int64(n)), grid=1, block=1)
    assert np.array_equal(above.astype(np.float64), philox.uniform_float(words))
    assert np.array_equal(below.astype(np.float64), philox.uniform_float_nonzero(words))
    assert np.array_equal(wide, philox.uniform_double(words[0::2], words[1::2]))
    assert above[0] == 0.0 and above[4] == np.float32(1 - 2.0**-24) and above.max() < 1.0
    assert below[0] == np.float32(2.0**-24) and below[4] == 1.0 and below.min() > 0.0
    assert wide.min() >= 0.0 and wide.max() < 1.0


# ------------------------------------------------------------- NVRTC (the GPU form) --

def test_nvrtc_compiles_the_header_and_the_dropout_kernels(tmp_path: Path, dropout_ops: ModuleType) -> None:
    """The probe and the dropout fixture's module in tests/test_gpu_compile.py's NVRTC matrix
    (PyTorch's 13.0.88, the newest 13.x and 12.x; sm_90 and sm_100), with the cuda backend's options,
    no spills (nvrtc_runs); skipped as that test skips (a failure under CI)."""
    probe_path = tmp_path / "philox_probe.cu"
    probe_path.write_text(probe_source(), encoding="utf-8")
    module = Path(dropout_ops.__file__).parent / "nn" / "dropout.cu"
    runs = nvrtc_runs([probe_path, module])
    nvrtc_compile = nvrtc_compile_module()
    assert {run.arch for run in runs} == set(nvrtc_compile.ARCHS)
    assert {run.label for run in runs} == {r.version for r in nvrtc_compile.default_releases()}
    for run in runs:
        kernels = {k.kernel for k in run.kernels}
        assert {"philox_words", "philox_stream", "Dropout__dropout__float32", "DropoutGrad__dropout__float64"} \
            <= kernels


# -------------------------------------------------------- the dropout pattern --

@pytest.fixture(scope="module")
def dropout_ops(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """tests/fixtures/dropout generated into a package of its own (its own torch namespace)."""
    from codegen.cli import main as opgen

    root = tmp_path_factory.mktemp("dropout")
    assert opgen(["generate", "--specs", str(FIXTURES / "specs"), "--templates", str(FIXTURES / "templates"),
                  "--out", str(root / "dropout_ops"), "--package", "dropout_ops",
                  "--torch-namespace", "dropout_ops"]) == 0
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module("dropout_ops")
    finally:
        sys.path.remove(str(root))


def _scalar(v: int) -> np.ndarray:
    return np.array(v, np.int64)


def _dropout(ops: ModuleType, x: np.ndarray, seed: int, offset: int, rate: float,
             scope: str = "cpu plan") -> np.ndarray:
    """Dropout on the cpu backend in `scope` (SCOPES), the seed and offset as 0-d int64 arrays."""
    out = ops.dropout(x, _scalar(seed), _scalar(offset), rate=rate, scope=SCOPES[scope])
    return np.asarray(out.y)


def reference_dropout(x: np.ndarray, seed: int, offset: int, rate: float) -> np.ndarray:
    """Float64: the mask from the NumPy Philox, element i from word i % 4 of block i // 4."""
    n = x.size
    words = philox.philox4x32_10(philox.counters(np.arange((n + 3) // 4), offset), philox.key_of(seed)).reshape(-1)[:n]
    keep = philox.uniform_float(words) >= np.float32(rate)
    return np.where(keep, x.astype(np.float64).reshape(-1) / (1.0 - np.float64(np.float32(rate))), 0.0).reshape(x.shape)


@needs_gxx
@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dropout_equals_the_reference_on_every_scope(dropout_ops: ModuleType, scope: str, dtype: Any) -> None:
    """The mask bit for bit (same seed and offset, same mask on every scope), the kept values to rounding."""
    x = np.random.default_rng(1).standard_normal((3, 1001)).astype(dtype) + 5.0  # no zero among the inputs
    for seed, offset, rate in [(42, 0, 0.5), (-7, 2**33 + 1, 0.1), (2**63 - 1, 5, 0.9)]:
        got = _dropout(dropout_ops, x, seed, offset, rate, scope)
        want = reference_dropout(x, seed, offset, rate)
        assert np.array_equal(got == 0, want == 0), (scope, seed, offset, rate)
        np.testing.assert_allclose(got, want, rtol=2e-7 if dtype == np.float32 else 1e-15)


@needs_gxx
@pytest.mark.parametrize("opgen_random_order", [1, 2], indirect=True)
def test_dropout_mask_does_not_depend_on_the_thread_order(dropout_ops: ModuleType, opgen_random_order: int) -> None:
    """The GPU's plan (256 threads a block, several blocks) in a seeded random thread, warp and block order."""
    x = np.random.default_rng(2).standard_normal(5000).astype(np.float32) + 5.0
    np.testing.assert_allclose(_dropout(dropout_ops, x, 5, 9, 0.3, "cuda plan"), reference_dropout(x, 5, 9, 0.3),
                               rtol=2e-7)


@needs_gxx
def test_dropout_keep_rate_is_within_binomial_bounds(dropout_ops: ModuleType) -> None:
    """Kept fraction within 5 standard deviations of 1 − rate, for several rates and seeds; rate 0
    keeps everything."""
    n = 200_003
    x = np.ones(n, np.float32)
    for rate in (0.1, 0.5, 0.75):
        for seed in (0, 1, 99):
            kept = int(np.count_nonzero(_dropout(dropout_ops, x, seed, 0, rate)))
            mean, sd = n * (1 - rate), np.sqrt(n * rate * (1 - rate))
            assert abs(kept - mean) < 5 * sd, (rate, seed, kept, mean)
    assert np.count_nonzero(_dropout(dropout_ops, x, 3, 0, 0.0)) == n


@needs_gxx
def test_dropout_seeds_and_offsets_give_other_masks(dropout_ops: ModuleType) -> None:
    x = np.ones(4096, np.float32)
    base = _dropout(dropout_ops, x, 7, 0, 0.5) != 0
    assert np.array_equal(base, _dropout(dropout_ops, x, 7, 0, 0.5) != 0)  # the same: reproducible
    for seed, offset in [(8, 0), (7, 1), (7 + 2**32, 0), (7, 2**32)]:  # either word of either input counts
        other = _dropout(dropout_ops, x, seed, offset, 0.5) != 0
        assert 0.4 < np.mean(base != other) < 0.6, (seed, offset)  # independent masks differ in about half
    prefix = _dropout(dropout_ops, x[:1001], 7, 0, 0.5) != 0  # element i's draw does not depend on the size
    assert np.array_equal(prefix, base[:1001])


@needs_gxx
def test_dropout_gradient_uses_the_forwards_mask(dropout_ops: ModuleType) -> None:
    """Through torch.ops and autograd: x.grad = dy where the forward kept x (scaled the same), 0 where it dropped it."""
    torch = pytest.importorskip("torch")
    importlib.import_module("dropout_ops.torch")
    x = torch.randn(5, 333, dtype=torch.float64) + 3.0
    x.requires_grad_(True)
    seed, offset = torch.tensor(11, dtype=torch.int64), torch.tensor(4, dtype=torch.int64)
    y = torch.ops.dropout_ops.dropout(x, seed, offset, rate=0.3)
    dy = torch.randn_like(y)
    y.backward(dy)
    kept = y.detach() != 0
    scale = 1 / (1 - np.float64(np.float32(0.3)))
    assert torch.equal(x.grad != 0, kept)
    torch.testing.assert_close(x.grad, torch.where(kept, dy * scale, torch.zeros_like(dy)), rtol=1e-15, atol=0)
    torch.testing.assert_close(y.detach(), torch.where(kept, x.detach() * scale, torch.zeros_like(dy)), rtol=1e-15,
                               atol=0)


@needs_gxx
def test_six_seeds_compile_once(dropout_ops: ModuleType) -> None:
    """The seed and offset are tensors: torch.compile traces one graph for six seeds, and each
    compiled call gives the eager call's mask. The control: six values of an attr (the rate) are six
    graphs, as six seeds were when the seed was an int attr."""
    torch = pytest.importorskip("torch")
    importlib.import_module("dropout_ops.torch")
    from torch._dynamo.testing import CompileCounter

    torch._dynamo.reset()
    counter = CompileCounter()

    def step(x: Any, seed: Any, offset: Any) -> Any:
        return torch.ops.dropout_ops.dropout(x, seed, offset, rate=0.5) * 2.0

    compiled = torch.compile(step, backend=counter, fullgraph=True)
    x = torch.randn(64, 32) + 3.0
    masks = []
    for seed in range(6):
        s, o = torch.tensor(seed, dtype=torch.int64), torch.tensor(0, dtype=torch.int64)
        got = compiled(x, s, o)
        assert torch.equal(got, step(x, s, o))
        masks.append(got != 0)
    assert counter.frame_count == 1, f"{counter.frame_count} graphs for 6 seeds"
    assert all(not torch.equal(masks[0], m) for m in masks[1:])
    # The control: an attr is part of the graph, so six rates are six graphs (as six int-attr seeds were).
    torch._dynamo.reset()
    by_attr = CompileCounter()
    with_rate = torch.compile(lambda x, rate: torch.ops.dropout_ops.dropout(x, s, o, rate=rate), backend=by_attr,
                              fullgraph=True)
    for rate in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6):
        with_rate(x, rate)
    assert by_attr.frame_count == 6


def test_the_documented_kernel_is_the_fixtures() -> None:
    """docs/specs.md ("Random numbers") shows the fixture's device function as it is."""
    docs = (PROJECT / "docs" / "specs.md").read_text(encoding="utf-8")
    section = docs[docs.index("### Random numbers"):]
    shown = section[section.index("template <typename T>"):]
    shown = shown[:shown.index("```")]
    kernel = (FIXTURES / "templates" / "kernels" / "nn" / "dropout.cu").read_text(encoding="utf-8")
    assert kernel[kernel.index("template <typename T>"):] == shown
