"""Contract tests of the tiled matrix-product building block, templates/kernels/_matmul.cuh
(opgen::matmul_tile, opgen::matmul_grid, opgen::matmul_tile_groups), in both of its forms: the
host emulation's (the default under the emulation) and the GPU's (OPGEN_GPU_FORM: shared-memory
panels, barriers, a thread per TM×TN of the tile). Every module is the sanitize build
(out-of-bounds, races, uninitialised shared memory), run in order and in seeded random orders.

* C = op(A)·op(B) and C += op(A)·op(B) for float32, float64, float16 and bfloat16, all four
  transpose combinations, m, n, k not multiples of the tile (1, tile − 1, tile + 1, random), k = 0,
  leading dimensions larger than the width (the padding holds NaN, and C's padding must stay NaN);
  outputs start as NaN;
* within the header's error bound of an exact reference: |error| ≤ γ_k·Σ|a||b| in acc_t, then one
  rounding to T (float64: ≤ γ_k ≈ k·2⁻⁵³ relative to Σ|a||b|);
* the 16-bit types: bit for bit the round to nearest of the float32 sum taken in the order the
  header documents for the form and layout (their products are exact in float32, so the order
  alone defines the sum), computed here in NumPy;
* both forms give the same bits where their orders are the same (every layout but A·Bᵀ);
* caller-chosen tile coordinates (a 2-D grid of tiles; several tiles per block, in any order);
* the host form with k not, and exactly, a whole number of the pieces it sums k in (the layouts
  other than A·Bᵀ);
* matmul_tile_groups: up to 4 products sharing op(A), each bit for bit matmul_tile's;
* the GPU form's block shape and shared-memory bound are enforced, and NVRTC (the releases users
  run) compiles it without a spill, within the registers and shared memory of its block.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from codegen.testing import host_random_order

ml_dtypes = pytest.importorskip("ml_dtypes")

from codegen import index_width  # noqa: E402
from codegen.linemarks import BUILTIN_TEMPLATES  # noqa: E402
from codegen.render import make_env  # noqa: E402
from codegen.runtime import host  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
HEADER = REPO / "codegen" / "templates" / "kernels" / "_matmul.cuh"

# element type: (C++ type, NumPy type, unit roundoff of acc_t, unit roundoff of T, smallest subnormal of T)
TYPES = {
    "float32": ("float", np.float32, 2.0**-24, 2.0**-24, 2.0**-149),
    "float64": ("double", np.float64, 2.0**-53, 0.0, 0.0),
    "float16": ("__half", np.float16, 2.0**-24, 2.0**-11, 2.0**-24),
    "bfloat16": ("__nv_bfloat16", ml_dtypes.bfloat16, 2.0**-24, 2.0**-8, 2.0**-133),
}
SIXTEEN_BIT = ("float16", "bfloat16")


@dataclass(frozen=True)
class Tiles:
    cxx: str
    bm: int
    bn: int
    threads: int  # the GPU form's block


TILES = {
    "small": Tiles("opgen::MatmulTiles<16, 16, 8, 2, 2>", 16, 16, 64),
    "default": Tiles("opgen::MatmulTiles<>", 64, 64, 256),
    "narrow": Tiles("opgen::MatmulTiles<32, 8, 4, 4, 1>", 32, 8, 64),
}

SIGNATURE = ("(const T* a, const T* b, T* c, long long m, long long n, long long k, long long lda, long long ldb, "
             "long long ldc, long long flags)")
OPERANDS = ("m, n, k, opgen::matrix_in(a, lda, (flags & 1) != 0), opgen::matrix_in(b, ldb, (flags & 2) != 0), "
            "opgen::matrix_out(c, ldc), (flags & 4) != 0")
# grid: matmul_grid over any grid; tiles2d: block (x, y) computes tile (y, x); reversed: each block
# takes several tiles, last to first, column by column
BODIES = {
    "grid": "opgen::matmul_grid<TILES>(OPERANDS);",
    "tiles2d": "opgen::matmul_tile<TILES>(OPERANDS, blockIdx.y, blockIdx.x);",
    "reversed": """const long long tiles_m = (m + TILES::BM - 1) / TILES::BM, tiles_n = (n + TILES::BN - 1) / TILES::BN;
  for (long long t = tiles_m * tiles_n - 1 - blockIdx.x; t >= 0; t -= gridDim.x)
    opgen::matmul_tile<TILES>(OPERANDS, t % tiles_m, t / tiles_m);""",
}


GROUPS_BODY = ("opgen::matmul_tile_groups<TILES, 4>(OPERANDS, blockIdx.y, blockIdx.x, static_cast<int>(groups), "
               "b_step, c_step);")


def _kernels() -> str:
    out = []
    for dtype, (cxx, *_rest) in TYPES.items():  # up to 4 products sharing op(A), small tiles
        signature = SIGNATURE.replace("T*", cxx + "*").replace(
            "long long flags)", "long long flags, long long groups, long long b_step, long long c_step)")
        text = GROUPS_BODY.replace("OPERANDS", OPERANDS).replace("TILES", TILES["small"].cxx)
        out.append(f'extern "C" __global__ void groups_small_{dtype}{signature} {{\n  {text}\n}}\n')
    for tiles_name, tiles in TILES.items():
        for dtype, (cxx, *_rest) in TYPES.items():
            for body_name, body in BODIES.items():
                if body_name != "grid" and tiles_name != "small":
                    continue
                text = body.replace("OPERANDS", OPERANDS).replace("TILES", tiles.cxx)
                out.append(f'extern "C" __global__ void {body_name}_{tiles_name}_{dtype}'
                           f'{SIGNATURE.replace("T*", cxx + "*")} {{\n  {text}\n}}\n')
    return "\n".join(out)


PRELUDE = "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n"
FORMS = ["host", "gpu"]
_MODULES: dict[str, host.HostModule] = {}


# As a kernel template includes the headers (rendered by opgen's Jinja environment: the header
# holds no Jinja syntax); twice, as two partials might: the include guard keeps one copy.
INCLUDES = "\n".join(['{% include "kernels/_common.cuh" %}', *['{% include "kernels/_matmul.cuh" %}'] * 2, ""])


@cache
def _rendered_headers() -> str:
    return make_env([BUILTIN_TEMPLATES]).from_string(INCLUDES).render()


def _source(form: str, kernels: str) -> str:
    define = "#define OPGEN_GPU_FORM 1\n" if form == "gpu" else ""
    return PRELUDE + define + _rendered_headers() + kernels


def _module(form: str) -> host.HostModule:
    """The sanitize build of the test kernels in one form (built once)."""
    if form not in _MODULES:
        _MODULES[form] = host.load_module(_source(form, _kernels()), name_hint=f"matmul_block_{form}", sanitize=True)
    return _MODULES[form]


# ---- operands and references ------------------------------------------------------------------

@dataclass
class Operand:
    """A rows×cols matrix stored row-major with leading dimension ld ≥ cols in a flat buffer of exactly
    (rows − 1)·ld + cols elements (an access past the last element is out of bounds); the padding holds
    NaN."""

    dense: np.ndarray
    buffer: np.ndarray
    ld: int

    def set(self, row: int, col: int, value: float) -> None:
        self.dense[row, col] = self.buffer[row * self.ld + col] = value


def _stored(dense: np.ndarray, pad: int) -> Operand:
    rows, cols = dense.shape
    ld = cols + pad
    full = np.full((max(rows, 1), ld), np.nan, dense.dtype)
    full[:rows, :cols] = dense
    size = (rows - 1) * ld + cols if rows and cols else 0
    return Operand(dense, full.reshape(-1)[:size].copy(), ld)


def _random(rng: np.random.Generator, shape: tuple[int, int], dtype: type) -> np.ndarray:
    return rng.standard_normal(shape).astype(dtype)


@dataclass
class Case:
    dtype: str
    m: int
    n: int
    k: int
    trans_a: bool
    trans_b: bool
    accumulate: bool
    pad: int = 0
    row_bytes: int = 0  # if set, every operand's rows lie this many bytes apart (else ld = width + pad)

    def make(self, seed: int) -> tuple[Operand, Operand, Operand]:
        """A, B (as stored: transposed where their flag says) and C (poisoned, or old values)."""
        np_type = TYPES[self.dtype][1]
        rng = np.random.default_rng(seed)
        a = _random(rng, (self.k, self.m) if self.trans_a else (self.m, self.k), np_type)
        b = _random(rng, (self.n, self.k) if self.trans_b else (self.k, self.n), np_type)
        c = _random(rng, (self.m, self.n), np_type) if self.accumulate else np.full((self.m, self.n), np.nan, np_type)
        pads = [self.pad, self.pad + 1, self.pad + 2]
        if self.row_bytes:
            pads = [self.row_bytes // np.dtype(np_type).itemsize - x.shape[1] for x in (a, b, c)]
        return _stored(a, pads[0]), _stored(b, pads[1]), _stored(c, pads[2])

    @property
    def flags(self) -> np.int64:
        return np.int64(self.trans_a | self.trans_b << 1 | self.accumulate << 2)


def _run(module: host.HostModule, kernel: str, case: Case, grid: tuple[int, ...], block: int,
         seed: int | None = None, prepare: Callable[[Operand, Operand, Operand], None] | None = None,
         ) -> tuple[np.ndarray, Operand, Operand, Operand]:
    """C as the kernel leaves it (its padding checked untouched), and the operands; `prepare` edits
    the operands first."""
    a, b, c = case.make(case.m * 1000 + case.n * 10 + case.k)
    if prepare is not None:
        prepare(a, b, c)
    before = c.buffer.copy()
    with host_random_order(seed):
        module.get_function(f"{kernel}_{case.dtype}")(grid, (block,), (
            a.buffer, b.buffer, c.buffer, np.int64(case.m), np.int64(case.n), np.int64(case.k), np.int64(a.ld),
            np.int64(b.ld), np.int64(c.ld), case.flags))
    padding = np.ones(c.buffer.shape, bool)
    for i in range(case.m):
        padding[i * c.ld:i * c.ld + case.n] = False
    bits = np.uint64 if case.dtype == "float64" else np.uint32 if case.dtype == "float32" else np.uint16
    np.testing.assert_array_equal(c.buffer[padding].view(bits), before[padding].view(bits),
                                  err_msg="C's padding (beyond n in each row) was written")
    got = np.stack([c.buffer[i * c.ld:i * c.ld + case.n] for i in range(case.m)])
    return got, a, b, c


def _ops(case: Case, a: Operand, b: Operand) -> tuple[np.ndarray, np.ndarray]:
    """op(A) and op(B) as dense float64 matrices."""
    oa = a.dense.astype(np.float64)
    ob = b.dense.astype(np.float64)
    return (oa.T if case.trans_a else oa), (ob.T if case.trans_b else ob)


def _gamma(k: int, u: float) -> float:
    return k * u / (1 - k * u)


def check_bound(case: Case, got: np.ndarray, a: Operand, b: Operand, c: Operand) -> None:
    """|got − exact| ≤ γ_k·S + u_T·(|exact| + γ_k·S) + the smallest subnormal of T, S = Σ|a||b| (+ |c|)."""
    _cxx, _np_type, u_acc, u_t, tiny = TYPES[case.dtype]
    oa, ob = _ops(case, a, b)
    if case.dtype == "float64":  # the products of doubles are not exact in double: sum in long double
        exact = oa.astype(np.longdouble) @ ob.astype(np.longdouble)
        slack = case.k * 2.0**-63  # the reference's own error, relative to S
    else:
        exact, slack = oa @ ob, case.k * 2.0**-53
    scale = np.abs(oa) @ np.abs(ob)
    terms = case.k
    if case.accumulate:
        old = c.dense.astype(np.float64)
        exact, scale, terms = exact + old, scale + np.abs(old), case.k + 1
    err_sum = (_gamma(terms, u_acc) + slack) * scale
    bound = err_sum + u_t * (np.abs(exact.astype(np.float64)) + err_sum) + tiny
    error = np.abs(got.astype(np.float64) - exact).astype(np.float64)
    assert np.isfinite(got).all(), "a NaN or infinity in C (an element not written, or padding read)"
    worst = np.unravel_index(np.argmax(error - bound), error.shape) if error.size else None
    assert (error <= bound).all(), f"error {error[worst]:.3g} > bound {bound[worst]:.3g} at {worst}"


def ordered_sum_f32(case: Case, a: Operand, b: Operand, c: Operand, order: str) -> np.ndarray:
    """The float32 sum of the float32 products (exact for 16-bit operands) in the header's order:
    'sequential' (p = 0 … k−1) or 'dots' (8 strided partial sums, the tail on s_0, then
    ((s0 + s4) + (s2 + s6)) + ((s1 + s5) + (s3 + s7))); plus the old C; not yet rounded to T."""
    oa, ob = (x.astype(np.float32) for x in _ops(case, a, b))
    prod = oa[:, :, None] * ob[None, :, :]  # the products, [m, k, n] (exact for 16-bit operands)
    k = case.k
    if order == "sequential":
        acc = np.zeros((case.m, case.n), np.float32)
        for p in range(k):
            acc = acc + prod[:, p, :]
    else:
        runs = np.zeros((8, case.m, case.n), np.float32)
        full = k - k % 8
        for p in range(full):
            runs[p % 8] = runs[p % 8] + prod[:, p, :]
        for p in range(full, k):
            runs[0] = runs[0] + prod[:, p, :]
        for w in (4, 2, 1):
            for q in range(w):
                runs[q] = runs[q] + runs[q + w]
        acc = runs[0]
    if case.accumulate:
        acc = acc + c.dense.astype(np.float32)
    return acc


def host_order(case: Case) -> str:
    """The summation order of the host form: dot products where both operands are k-contiguous."""
    return "dots" if not case.trans_a and case.trans_b else "sequential"


def check_16bit_order(case: Case, got: np.ndarray, a: Operand, b: Operand, c: Operand, form: str) -> None:
    order = host_order(case) if form == "host" else "sequential"
    want = ordered_sum_f32(case, a, b, c, order).astype(TYPES[case.dtype][1])
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))


def run_checked(form: str, kernel: str, case: Case, grid: tuple[int, ...], block: int,
                seed: int | None = None) -> np.ndarray:
    """C from the kernel, checked against the error bound (and, 16-bit, against the form's order)."""
    got, a, b, c = _run(_module(form), kernel, case, grid, block, seed)
    check_bound(case, got, a, b, c)
    if case.dtype in SIXTEEN_BIT:
        check_16bit_order(case, got, a, b, c, form)
    return got


# ---- the cases -----------------------------------------------------------------------------------

# (m, n, k) around the small tile (16×16, 8 deep): 1, tile − 1, tile + 1, several tiles, k = 0
SHAPES = [(1, 1, 1), (15, 17, 9), (17, 15, 7), (16, 16, 16), (33, 31, 40), (3, 40, 0), (2, 3, 100)]
_rng = np.random.default_rng(23)
SHAPES += [tuple(int(v) for v in (_rng.integers(1, 50), _rng.integers(1, 50), _rng.integers(0, 70))) for _ in range(3)]
LAYOUTS = [(False, False), (False, True), (True, False), (True, True)]


def _layout_id(layout: tuple[bool, bool]) -> str:
    return ("T" if layout[0] else "N") + ("T" if layout[1] else "N")


def _grid(case: Case, tiles: Tiles) -> tuple[int]:
    return (max(1, -(-case.m // tiles.bm) * -(-case.n // tiles.bn)),)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("accumulate", [False, True], ids=["assign", "accumulate"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=_layout_id)
@pytest.mark.parametrize("dtype", list(TYPES))
def test_products_within_the_bound_and_in_order(dtype: str, layout: tuple[bool, bool], accumulate: bool,
                                                form: str) -> None:
    tiles = TILES["small"]
    block = tiles.threads if form == "gpu" else 3
    for index, (m, n, k) in enumerate(SHAPES):
        case = Case(dtype, m, n, k, *layout, accumulate, pad=index % 3 * 2)
        run_checked(form, "grid_small", case, _grid(case, tiles), block)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("dtype", list(TYPES))
def test_k_zero_gives_zero_or_leaves_c_as_it_was(dtype: str, form: str) -> None:
    module, tiles = _module(form), TILES["small"]
    block = tiles.threads if form == "gpu" else 1
    specials = np.array([-0.0, np.nan, np.inf]).astype(TYPES[dtype][1])  # kept bit for bit

    def poke(_a: Operand, _b: Operand, c: Operand) -> None:
        for j, value in enumerate(specials):
            c.set(0, j, value)

    for layout in LAYOUTS:
        case = Case(dtype, 17, 5, 0, *layout, accumulate=False, pad=1)
        got, *_ = _run(module, "grid_small", case, _grid(case, tiles), block)
        assert (got == 0).all() and not np.signbit(got.astype(np.float64)).any()
        case = Case(dtype, 17, 5, 0, *layout, accumulate=True, pad=1)
        got, _a, _b, c = _run(module, "grid_small", case, _grid(case, tiles), block, prepare=poke)
        assert got.tobytes() == c.dense.tobytes()


@pytest.mark.parametrize("layout", LAYOUTS, ids=_layout_id)
@pytest.mark.parametrize("dtype", list(TYPES))
def test_forms_agree_bit_for_bit_where_their_orders_do(dtype: str, layout: tuple[bool, bool]) -> None:
    tiles = TILES["small"]
    for accumulate in (False, True):
        case = Case(dtype, 33, 31, 40, *layout, accumulate, pad=1)
        host_c, *_ = _run(_module("host"), "grid_small", case, _grid(case, tiles), 1)
        gpu_c, *_ = _run(_module("gpu"), "grid_small", case, _grid(case, tiles), tiles.threads)
        if host_order(case) == "sequential":
            assert host_c.tobytes() == gpu_c.tobytes()


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("form", FORMS)
def test_random_order(form: str, seed: int) -> None:
    """Seeded random thread, warp and block orders (a missing barrier between the panels' writes and
    reads shows as a wrong sum), several tiles per block."""
    tiles = TILES["small"]
    block = tiles.threads if form == "gpu" else 5
    for dtype in ("float32", "bfloat16"):
        for layout in LAYOUTS:
            case = Case(dtype, 37, 35, 29, *layout, accumulate=seed == 2, pad=seed)
            run_checked(form, "grid_small", case, (2,), block, seed=seed)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("kernel", ["tiles2d", "reversed"])
def test_tiles_mapped_by_the_caller(kernel: str, form: str) -> None:
    tiles = TILES["small"]
    block = tiles.threads if form == "gpu" else 2
    for dtype in TYPES:
        for layout in LAYOUTS:
            case = Case(dtype, 40, 23, 19, *layout, accumulate=layout[0], pad=2)
            grid = (-(-23 // 16), -(-40 // 16)) if kernel == "tiles2d" else (2,)
            run_checked(form, f"{kernel}_small", case, grid, block, seed=7)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("groups", [1, 3, 4])
def test_groups_sharing_a_give_each_products_bits(groups: int, form: str) -> None:
    """matmul_tile_groups: `groups` products C_g = op(A)·op(B_g) that share op(A), B_g and C_g a
    fixed step apart in their buffers, give each C_g bit for bit what matmul_tile gives it alone,
    for every dtype and layout, with and without accumulate; a group past `groups` is left alone."""
    tiles = TILES["small"]
    block = tiles.threads if form == "gpu" else 2
    module = _module(form)
    for dtype in TYPES:
        for layout in LAYOUTS:
            case = Case(dtype, 40, 23, 19, *layout, accumulate=layout[1], pad=1)
            parts = [case.make(100 * g + 7) for g in range(groups + 1)]  # the last one: not a group
            a = parts[0][0]
            b_all = np.concatenate([p[1].buffer for p in parts])
            c_all = np.concatenate([p[2].buffer for p in parts])
            b_step, c_step = parts[0][1].buffer.size, parts[0][2].buffer.size
            grid = (-(-case.n // tiles.bn), -(-case.m // tiles.bm))
            with host_random_order(11):
                module.get_function(f"groups_small_{dtype}")(grid, (block,), (
                    a.buffer, b_all, c_all, np.int64(case.m), np.int64(case.n), np.int64(case.k), np.int64(a.ld),
                    np.int64(parts[0][1].ld), np.int64(parts[0][2].ld), case.flags, np.int64(groups),
                    np.int64(b_step), np.int64(c_step)))
            bits = np.uint64 if dtype == "float64" else np.uint32 if dtype == "float32" else np.uint16
            for g in range(groups + 1):
                _a, b_g, c_g = parts[g]
                want = c_g.buffer.copy()
                if g < groups:  # alone: C_g = op(A)·op(B_g) by matmul_tile, tile for tile
                    with host_random_order(11):
                        module.get_function(f"tiles2d_small_{dtype}")(grid, (block,), (
                            a.buffer, b_g.buffer, want, np.int64(case.m), np.int64(case.n), np.int64(case.k),
                            np.int64(a.ld), np.int64(b_g.ld), np.int64(c_g.ld), case.flags))
                got = c_all[g * c_step:(g + 1) * c_step]
                np.testing.assert_array_equal(got.view(bits), want.view(bits),
                                              err_msg=f"{dtype} {layout} group {g} of {groups}")


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("tiles_name", ["default", "narrow"])
def test_other_tile_shapes(tiles_name: str, form: str) -> None:
    """The default 64×64 tile (256 threads in the GPU form) and a narrow one (TN = 1), around their
    tile sizes; the host form with blocks of 1 and of the GPU form's size."""
    tiles = TILES[tiles_name]
    shapes = [(tiles.bm + 1, tiles.bn - 1, 17), (tiles.bm - 1, 2 * tiles.bn + 1, 33)]
    for dtype in TYPES:
        for layout in LAYOUTS:
            for index, (m, n, k) in enumerate(shapes):
                case = Case(dtype, m, n, k, *layout, accumulate=index == 1, pad=index)
                block = tiles.threads if form == "gpu" or index == 1 else 1
                run_checked(form, f"grid_{tiles_name}", case, _grid(case, tiles), block)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("layout", LAYOUTS, ids=_layout_id)
def test_long_k_and_rows_a_power_of_two_apart(layout: tuple[bool, bool], form: str) -> None:
    """k = 300 (the host form's runs sum k in pieces of 128 or 256 steps, carrying the sums over) with
    rows 4 KiB apart (where it first copies each piece of op(B)'s, or op(A)ᵀ's, stripe into a
    contiguous buffer), in a 64×64 tile of 37 rows (two batches of 32) and 45 columns (runs of 16
    and 8, then one at a time)."""
    tiles = TILES["default"]
    for dtype in TYPES:
        for accumulate in (False, True):
            case = Case(dtype, 37, 45, 300, *layout, accumulate, row_bytes=4096)
            block = tiles.threads if form == "gpu" else 1 + accumulate
            run_checked(form, "grid_default", case, _grid(case, tiles), block)


@pytest.mark.parametrize("accumulate", [False, True], ids=["assign", "accumulate"])
@pytest.mark.parametrize("layout", [x for x in LAYOUTS if x != (False, True)], ids=_layout_id)
def test_host_form_k_a_whole_number_of_pack_pieces(layout: tuple[bool, bool], accumulate: bool) -> None:
    """The host form's layouts other than A·Bᵀ sum k in pieces of 8192 / (W·sizeof(T)) steps (W: the
    run's width, 16, 8 or 1 columns) and store after the last piece: k an exact multiple of it, so the
    last piece ends exactly at k (k = 512: the runs of 16 and 8, their stripes 4 KiB apart, packed;
    k = 4096: the single columns too). 25 columns (of C, or of Cᵀ for Aᵀ·Bᵀ): 16 + 8 + 1."""
    tiles = TILES["default"]
    for dtype in TYPES:
        for k, extra in ((512, {"row_bytes": 4096}), (4096, {"pad": 1})):
            case = Case(dtype, 25, 25, k, *layout, accumulate, **extra)
            run_checked("host", "grid_default", case, _grid(case, tiles), 1)


@pytest.mark.parametrize("threads", [1, 2, 7, 64, 100])
def test_host_form_takes_any_block_size(threads: int) -> None:
    for layout in LAYOUTS:
        case = Case("bfloat16", 37, 41, 23, *layout, accumulate=True, pad=1)
        got, a, b, c = _run(_module("host"), "grid_small", case, (3,), threads)
        check_16bit_order(case, got, a, b, c, "host")


def test_gpu_form_refuses_another_block_size() -> None:
    case = Case("float32", 20, 20, 5, False, False, False)
    with pytest.raises(host.HostKernelError, match="trap"):
        _run(_module("gpu"), "grid_small", case, (4,), 32)


def test_double_accumulates_in_double() -> None:
    """1 + 2⁻⁴⁰ summed 3 times: exact in double, 3 in float."""
    def ones(a: Operand, b: Operand, _c: Operand) -> None:
        for p in range(3):
            a.set(0, p, 1.0 + 2.0**-40), b.set(p, 0, 1.0)

    for form in FORMS:
        case = Case("float64", 1, 1, 3, False, False, False)
        block = TILES["small"].threads if form == "gpu" else 1
        got, *_ = _run(_module(form), "grid_small", case, (1,), block, prepare=ones)
        assert got[0, 0] == 3 * (1.0 + 2.0**-40)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("layout", LAYOUTS, ids=_layout_id)
def test_infinities_and_nans_propagate(layout: tuple[bool, bool], form: str) -> None:
    """op(A)[0, 0] = ∞: row 0 is ±∞ (NaN where op(B)[0, j] = 0); a NaN in op(B)'s column 2 makes
    that column NaN: as IEEE float64 products summed in any order."""
    tiles = TILES["small"]
    case = Case("float32", 19, 21, 11, *layout, accumulate=False)

    def specials(a: Operand, b: Operand, _c: Operand) -> None:
        a.set(0, 0, np.inf)  # op(A)[0, 0], stored at [0, 0] either way
        b.set(0, 1, 0.0)  # op(B)[0, 1] when B is not transposed, op(B)[1, 0] when it is
        b.set(*((2, 3) if layout[1] else (3, 2)), np.nan)  # op(B)[3, 2]

    block = tiles.threads if form == "gpu" else 1
    got, a, b, _c = _run(_module(form), "grid_small", case, _grid(case, tiles), block, prepare=specials)
    oa, ob = _ops(case, a, b)
    with np.errstate(invalid="ignore"):
        want = (oa[:, :, None] * ob[None, :, :]).sum(1)  # IEEE products (a BLAS may skip zeros)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isposinf(got), np.isposinf(want))
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(want))
    assert np.isnan(got[:, 2]).all() and np.isinf(got[0]).sum() >= case.n - 2


# ---- compile-time bounds -------------------------------------------------------------------------

REFUSED = {
    "shared memory": ("double", "opgen::MatmulTiles<128, 128, 32, 8, 8>",
                      "the GPU form's panels exceed 48 KiB of shared memory"),
    "threads": ("float", "opgen::MatmulTiles<128, 128, 8, 2, 2>", "threads, at most 1024"),
    "divides": ("float", "opgen::MatmulTiles<64, 64, 8, 3, 4>", "TM must divide BM"),
    "registers": ("float", "opgen::MatmulTiles<64, 64, 8, 8, 16>", "at most 64 elements of C per thread"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_tile_sizes_are_bounded_at_compile_time(case: str) -> None:
    cxx, tiles, message = REFUSED[case]
    kernel = (f'extern "C" __global__ void k{SIGNATURE.replace("T*", cxx + "*")} {{\n'
              f'  opgen::matmul_grid<{tiles}>({OPERANDS});\n}}\n')
    with pytest.raises(host.HostCompileError, match=message):
        host.load_module(_source("gpu", kernel), name_hint=f"matmul_refused_{case.replace(' ', '_')}")


def test_float_tiles_within_48_kib_compile() -> None:
    """The same 128×128×32 tile that double refuses fits in float (33 KiB)."""
    kernel = (f'extern "C" __global__ void k{SIGNATURE.replace("T*", "float*")} {{\n'
              f'  opgen::matmul_grid<opgen::MatmulTiles<128, 128, 32, 8, 8>>({OPERANDS});\n}}\n')
    host.load_module(_source("gpu", kernel), name_hint="matmul_float_128")


def test_header_indexes_with_64_bit_integers() -> None:
    """`opgen generate` scans every kernel that includes the header (codegen/index_width.py)."""
    assert index_width.scan(HEADER.read_text()) == []


def test_gpu_form_compiles_with_the_nvrtc_users_run(tmp_path: Path) -> None:
    """scripts/nvrtc_compile.py's releases (NVRTC 13.0.88, the newest 13.x and 12.x, from their pip
    wheels in OPGEN_NVRTC_CACHE) compile every test kernel's GPU form, line info off and on: no
    spill, registers × the tile's threads ≤ 65,536, static shared memory ≤ 48 KiB."""
    module = tmp_path / "matmul_block.cu"
    module.write_text(PRELUDE + _rendered_headers() + _kernels())  # NVRTC: the GPU form, no define needed
    report = tmp_path / "runs.json"
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "nvrtc_compile.py"), "--modules", str(module),
                           "--json", str(report)], cwd=REPO, capture_output=True, text=True, timeout=600)
    if proc.returncode == 2:  # no NVRTC could be had (not cached, not downloadable)
        reason = f"no NVRTC: {proc.stdout[-500:]}{proc.stderr[-500:]}"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    runs = json.loads(report.read_text())
    assert runs
    for run in runs:
        assert not run["error"], run["error"]
        (compiled,) = run["modules"]
        assert compiled["ok"], compiled["log"]
        assert len(compiled["kernels"]) == _kernels().count("__global__")
        for kernel in compiled["kernels"]:
            threads = TILES[kernel["kernel"].split("_")[1]].threads
            assert kernel["spill_stores"] == kernel["spill_loads"] == 0, kernel
            assert kernel["registers"] * threads <= 65536, kernel
            assert kernel["shared_bytes"] <= 48 * 1024, kernel
