"""Lanes in the emulation runtime's batches (emu/rt/batch.cpp, opgen_emu_abi.h): a lane run's lanes
run side by side, each lane's records in order on one thread (lane L on thread (L - 1) % T, the caller
thread 0), with one hand-off to the pool for the whole run; results bit-identical to the same records
in plain order; a launch's block range runs exactly its blocks; a failure reports what a sequential
run reports (the lowest failing record, its message, the records before it); a sanitized run falls
back to plain order. Batches are packed by hand, as host/replay.py packs them."""

from __future__ import annotations

import ctypes
import struct
import threading
from typing import Any

import numpy as np
import pytest
from test_host_gemm_split import THREADS, _wakes, blas_threads

from codegen.runtime import host
from codegen.runtime.host import blas, pack
from codegen.runtime.host.queue import run_batch
from codegen.runtime.host_sanitize import SanRange

pytestmark = pytest.mark.skipif(THREADS is None or blas.find() is None,
                                reason="needs NumPy's OpenBLAS (its thread-count functions)")

KERNELS = r"""
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

extern "C" __global__ void scale_add(float* y, const float* x, float a, long long n) {
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = y[i] * a + x[i];
}
// Each block writes its linear index (x fastest) into its threads' elements, and the grid's size.
extern "C" __global__ void where(float* out, long long* grid) {
  unsigned lin = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  out[lin * blockDim.x + threadIdx.x] = static_cast<float>(lin);
  if (threadIdx.x == 0) grid[lin] = gridDim.x * gridDim.y * gridDim.z;
}
// The OS thread that ran it, after spinning `spin_ns`.
extern "C" __global__ void whose(long long* tid, long long slot, long long spin_ns) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  do clock_gettime(CLOCK_MONOTONIC, &b);
  while ((b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec) < spin_ns);
  tid[slot] = syscall(SYS_gettid);
}
// A store through `x` (a wild pointer: an invalid memory access, caught).
extern "C" __global__ void poke(float* x, long long i) {
  if (blockIdx.x == 0 && threadIdx.x == 0) x[i] = 1.0f;
}
"""

P, I64, F32 = "Q8x", "q8x", "f12x"  # a pointer, a long long, a float: one 16-byte slot each
WILD = 16  # an address no process maps


@pytest.fixture(scope="module")
def kernels() -> Any:
    return host.load_module(KERNELS, name_hint="emu_lanes_tests")


@pytest.fixture(scope="module")
def sanitized() -> Any:
    return host.load_module(KERNELS, name_hint="emu_lanes_tests", sanitize=True)


class Batch:
    """Records packed by hand (opgen_batch_record then its slots), their cfgs and descs kept alive."""

    def __init__(self) -> None:
        self.records: list[bytes] = []
        self.keep: list[Any] = []

    def launch(self, fn: Any, grid: tuple[int, ...], block: int, slots: list[tuple[str, Any]], lane: int = 0,
               workers: int = 2, block_range: tuple[int, int] = (0, 0), seed: int | None = None,
               cfg: Any = None) -> None:
        if cfg is None:
            cfg = pack._LaunchCfg()
            cfg.grid[:] = (*grid, *(1,) * (3 - len(grid)))
            cfg.block[:] = (block, 1, 1)
            cfg.nworkers = workers
            cfg.random_order = 0 if seed is None else 1
            cfg.seed = seed or 0
            cfg.stack_size = 64 * 1024
            cfg.block_lo, cfg.block_hi = block_range
        self.keep.append(cfg)
        self._record(fn._launch_addr, ctypes.addressof(cfg), slots, lane)

    def gemm(self, a: np.ndarray, b: np.ndarray, out: np.ndarray, m: int, n: int, k: int, beta: int = 0,
             lane: int = 0) -> None:
        found = blas.find()
        assert found is not None
        desc = found.desc(a.dtype, m, n, k, False, False, beta, 0, 0, 0)
        self.keep.append(desc)
        self._record(blas.gemm_address(), ctypes.addressof(desc), [(P, a.ctypes.data), (P, b.ctypes.data),
                                                                   (P, out.ctypes.data)], lane)

    def _record(self, launch: int, cfg: int, slots: list[tuple[str, Any]], lane: int, table_args: int = 0) -> None:
        fmt = pack.BATCH_LANE_RECORD + "".join(code for code, _ in slots)
        self.records.append(struct.pack(fmt, launch, cfg, len(slots), lane, table_args, *(v for _, v in slots)))

    def without_lanes(self) -> Batch:
        plain = Batch()
        plain.keep = self.keep
        at = struct.calcsize(pack.BATCH_RECORD) - 12  # the lane field: after launch, cfg, nargs
        plain.records = [r[:at] + b"\0\0\0\0" + r[at + 4:] for r in self.records]
        return plain

    def run(self, table: list[int] | None = None) -> tuple[int, str, int]:
        """(records run, the error text, the calling OS thread), the batch run on a thread of its own
        joined with a timeout: a hang fails the test instead of hanging it."""
        got: list[Any] = []
        err = ctypes.create_string_buffer(4096)
        entries = (ctypes.c_uint64 * len(table))(*table) if table else None

        def call() -> None:
            done = run_batch()(b"".join(self.records), len(self.records), entries, len(table or ()), err, len(err))
            got.append((int(done), err.value.decode(), threading.get_native_id()))

        worker = threading.Thread(target=call, daemon=True)
        worker.start()
        worker.join(120)
        assert got, "the batch did not return within 120 s"
        return got[0]


# --- results ---------------------------------------------------------------------------------------------------

M, N, K = 64, 256, 256  # 4 Mi multiply-adds: at two BLAS threads a product gemm.cpp splits over the pool


def _two_lanes(kernels: Any, workers: int, rng: np.random.Generator) -> tuple[Batch, dict[str, np.ndarray]]:
    """Two lanes of GEMMs and launches, each a chain (a lane reads its own earlier writes), interleaved;
    an ordinary record after the run reads both; then a second lane run. Outputs NaN-poisoned."""
    scale_add = kernels.get_function("scale_add")
    arrays: dict[str, np.ndarray] = {}
    for lane in (1, 2):
        arrays[f"a{lane}"] = rng.standard_normal((M, K)).astype(np.float32)
        arrays[f"b{lane}"] = rng.standard_normal((K, N)).astype(np.float32)
        arrays[f"e{lane}"] = rng.standard_normal((N, M)).astype(np.float32)
        arrays[f"x{lane}"] = rng.standard_normal((M, N)).astype(np.float32)
        arrays[f"c{lane}"] = np.full((M, N), np.nan, np.float32)
        arrays[f"d{lane}"] = rng.standard_normal((M, M)).astype(np.float32)
        arrays[f"f{lane}"] = np.full((M, N), np.nan, np.float32)
    batch = Batch()

    def add(lane: int, y: str, x: str, a: float, count: int) -> None:
        batch.launch(scale_add, ((count + 127) // 128,), 128,
                     [(P, arrays[y].ctypes.data), (P, arrays[x].ctypes.data), (F32, a), (I64, count)],
                     lane=lane, workers=workers)

    for lane in (1, 2):  # record order: lane 1 and lane 2 alternate
        batch.gemm(arrays[f"a{lane}"], arrays[f"b{lane}"], arrays[f"c{lane}"], M, N, K, lane=lane)
    for lane in (1, 2):
        add(lane, f"c{lane}", f"x{lane}", 0.5, M * N)
    for lane in (1, 2):
        batch.gemm(arrays[f"c{lane}"], arrays[f"e{lane}"], arrays[f"d{lane}"], M, M, N, beta=1, lane=lane)
    for lane in (1, 2):
        add(lane, f"d{lane}", f"d{lane}", 0.25, M * M)
    add(0, "d1", "d2", 1.0, M * M)  # reads both lanes: the run's join comes before it
    for lane in (1, 2):  # a second lane run
        batch.gemm(arrays[f"d{lane}"], arrays[f"c{lane}"], arrays[f"f{lane}"], M, N, M, lane=lane)
    return batch, arrays


@pytest.mark.parametrize("threads", [1, 2])
def test_a_lane_run_matches_plain_order_bit_for_bit(kernels: Any, threads: int) -> None:
    results = []
    for laned in (True, False):
        batch, arrays = _two_lanes(kernels, threads, np.random.default_rng(5))
        d_before = {lane: arrays[f"d{lane}"].astype(np.float64) for lane in (1, 2)}
        with blas_threads(threads):
            done, err, _ = (batch if laned else batch.without_lanes()).run()
            assert THREADS is not None and THREADS[0]() == threads, "the BLAS's thread count was not put back"
        assert (done, err) == (len(batch.records), "")
        results.append({name: arrays[name].copy() for name in ("c1", "c2", "d1", "d2", "f1", "f2")})
        # an independent float64 reference, from the same float32 inputs
        ref_d = {}
        for lane in (1, 2):
            a, b, e, x = (arrays[f"{v}{lane}"].astype(np.float64) for v in "abex")
            c = (a @ b) * 0.5 + x
            np.testing.assert_allclose(arrays[f"c{lane}"], c, rtol=1e-4, atol=1e-3)
            ref_d[lane] = (d_before[lane] + c @ e) * 0.25 + (d_before[lane] + c @ e)
        d1 = ref_d[1] + ref_d[2]
        np.testing.assert_allclose(arrays["d1"], d1, rtol=1e-4, atol=2e-2)
        np.testing.assert_allclose(arrays["d2"], ref_d[2], rtol=1e-4, atol=2e-2)
        for lane in (1, 2):
            f = arrays[f"d{lane}"].astype(np.float64) @ arrays[f"c{lane}"].astype(np.float64)
            np.testing.assert_allclose(arrays[f"f{lane}"], f, rtol=1e-4, atol=1.0)
    for name in results[0]:
        assert results[0][name].tobytes() == results[1][name].tobytes(), name


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("seed", [None, 3])
def test_a_block_range_runs_exactly_its_blocks(kernels: Any, threads: int, seed: int | None) -> None:
    where = kernels.get_function("where")
    grid, block = (4, 3, 2), 8
    blocks = 4 * 3 * 2
    spans = [(5, 9), (0, 1), (23, 24), (0, blocks), (0, 0)]  # (0, 0): every block
    outs = [np.full(blocks * block, np.nan, np.float32) for _ in spans]
    sizes = [np.full(blocks, -1, np.int64) for _ in spans]
    batch = Batch()
    for k, span in enumerate(spans):
        batch.launch(where, grid, block, [(P, outs[k].ctypes.data), (P, sizes[k].ctypes.data)], lane=1 + k % 2,
                     workers=threads, block_range=span, seed=seed)
    with blas_threads(threads):
        assert batch.run()[:2] == (len(spans), "")
    for (lo, hi), out, size in zip(spans, outs, sizes, strict=True):
        hi = hi or blocks
        lin = np.repeat(np.arange(blocks), block).astype(np.float32)
        inside = (lin >= lo) & (lin < hi)
        np.testing.assert_array_equal(out[inside], lin[inside])
        assert np.isnan(out[~inside]).all(), f"[{lo}, {hi}) wrote blocks outside it"
        np.testing.assert_array_equal(size[lo:hi], blocks)  # gridDim: the whole grid's
        assert (np.delete(size, np.arange(lo, hi)) == -1).all()


# --- threads ---------------------------------------------------------------------------------------------------

def test_two_lanes_run_on_two_threads_with_one_hand_off(kernels: Any) -> None:
    whose = kernels.get_function("whose")
    tid = np.zeros(3, np.int64)
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((M, K)).astype(np.float32), rng.standard_normal((K, N)).astype(np.float32)
    outs = [np.full((M, N), np.nan, np.float32) for _ in range(2)]
    batch = Batch()
    for lane in (1, 2, 3):  # lane 3: thread (3 - 1) % 2 = 0, the caller's
        # (lane 1 spins 0.2 s: the caller takes a helper's lanes itself where the helper has not started them
        # by the time it has run its own)
        batch.launch(whose, (1,), 32, [(P, tid.ctypes.data), (I64, lane - 1), (I64, 200_000_000 if lane == 1 else 0)],
                     lane=lane)
    for lane in (1, 2):
        batch.gemm(a, b, outs[lane - 1], M, N, K, lane=lane)
    with blas_threads(2):
        wakes = _wakes()
        done, err, caller = batch.run()
        woke = _wakes() - wakes
        assert THREADS is not None and THREADS[0]() == 2, "the BLAS's thread count was not put back"
    assert (done, err) == (len(batch.records), "")
    assert tid[0] == caller and tid[2] == caller, "lanes 1 and 3 run on the calling thread"
    assert tid[1] not in (0, caller), "lane 2 ran on the calling thread"
    assert woke == 1, f"the lane run handed off to the pool {woke} times, not once (split GEMMs?)"
    assert outs[0].tobytes() == outs[1].tobytes()
    np.testing.assert_allclose(outs[0], a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-3)
    # the same records in plain order: the products split over the pool, each its own hand-off
    tid[:] = 0
    with blas_threads(2):
        wakes = _wakes()
        done, err, caller = batch.without_lanes().run()
        assert (done, err) == (len(batch.records), "")
        assert _wakes() - wakes >= 2
    assert set(tid) == {caller}


# --- failures --------------------------------------------------------------------------------------------------

def _same_as_plain(batch: Batch, table: list[int] | None = None) -> tuple[int, str]:
    with blas_threads(2):
        laned = batch.run(table)[:2]
        assert THREADS is not None and THREADS[0]() == 2, "the BLAS's thread count was not put back"
        plain = batch.without_lanes().run(table)[:2]
    assert laned == plain
    return laned


@pytest.mark.parametrize("span", [(5, 3), (4, 4), (0, 25), (30, 40)])
def test_a_bad_block_range_fails_as_in_plain_order(kernels: Any, span: tuple[int, int]) -> None:
    where = kernels.get_function("where")
    out, size = np.zeros(24 * 8, np.float32), np.zeros(24, np.int64)
    batch = Batch()
    for lane in (1, 2, 1, 2):
        batch.launch(where, (4, 3, 2), 8, [(P, out.ctypes.data), (P, size.ctypes.data)], lane=lane)
    batch.launch(where, (4, 3, 2), 8, [(P, out.ctypes.data), (P, size.ctypes.data)], lane=2, block_range=span)
    batch.launch(where, (4, 3, 2), 8, [(P, out.ctypes.data), (P, size.ctypes.data)], lane=1)
    done, err = _same_as_plain(batch)
    assert done == 4
    assert err == (f"kernel 'where': block range [{span[0]}, {span[1]}) is not a non-empty part of its grid's 24 "
                   f"blocks (expected block_lo < block_hi <= 24, or block_hi 0 for every block)")


@pytest.mark.parametrize("fails", [(3,), (3, 6), (6, 3), (2, 3)], ids=lambda f: "at" + "-".join(map(str, f)))
def test_a_failing_launch_reports_the_lowest_failing_record(kernels: Any, fails: tuple[int, ...]) -> None:
    """Records alternate lanes 1 and 2; the ones at `fails` store through a wild pointer."""
    poke, scale_add = kernels.get_function("poke"), kernels.get_function("scale_add")
    y, x = np.zeros(64, np.float32), np.ones(64, np.float32)
    a, b = np.ones((M, K), np.float32), np.ones((K, N), np.float32)
    products = [np.zeros((M, N), np.float32) for _ in range(2)]
    batch = Batch()
    for k in range(8):
        if k in (0, 1):  # (a GEMM first in each lane: the BLAS's count is put back after a failure too)
            batch.gemm(a, b, products[k], M, N, K, lane=1 + k)
        if k in fails:
            batch.launch(poke, (1,), 32, [(P, WILD), (I64, 0)], lane=1 + k % 2)
        else:
            batch.launch(scale_add, (1,), 64, [(P, y.ctypes.data), (P, x.ctypes.data), (F32, 1.0), (I64, 64)],
                         lane=1 + k % 2)
    done, err = _same_as_plain(batch)
    assert done == min(fails) + 2  # (the two GEMMs come first)
    assert "kernel 'poke'" in err and "invalid memory access (SIGSEGV)" in err, err
    # the pool still works
    y[:] = 0
    assert Batch.run(_only(batch, [k for k in range(10) if k - 2 not in fails]))[:2] == (10 - len(fails), "")


def _only(batch: Batch, keep: list[int]) -> Batch:
    part = Batch()
    part.keep = batch.keep
    part.records = [batch.records[k] for k in keep]
    return part


def test_a_bad_table_index_in_a_lane_fails_as_in_plain_order(kernels: Any) -> None:
    scale_add = kernels.get_function("scale_add")
    y, x = np.zeros(64, np.float32), np.ones(64, np.float32)
    batch = Batch()
    for k in range(4):
        cfg = pack._LaunchCfg()
        cfg.grid[:] = (1, 1, 1)
        cfg.block[:] = (64, 1, 1)
        cfg.nworkers, cfg.stack_size = 2, 64 * 1024
        batch.keep.append(cfg)
        index = 5 if k == 2 else k % 2  # table entries: y, x; 5 is beyond the table
        batch._record(scale_add._launch_addr, ctypes.addressof(cfg), [(P, index), (P, x.ctypes.data), (F32, 2.0),
                                                                      (I64, 64)], 1 + k % 2, table_args=0b1)
    done, err = _same_as_plain(batch, [y.ctypes.data, x.ctypes.data])
    assert (done, err) == (2, "launch batch: record 2: a buffer-table index beyond the table")


# --- sanitize --------------------------------------------------------------------------------------------------

def test_a_sanitized_lane_run_runs_in_plain_order(sanitized: Any) -> None:
    scale_add = sanitized.get_function("scale_add")
    y, x = np.zeros(64, np.float32), np.ones(64, np.float32)
    ranges = (SanRange * 2)(*sorted([SanRange(y.ctypes.data, y.nbytes, b"y", 4), SanRange(x.ctypes.data, x.nbytes,
                                                                                          b"x", 4)],
                                    key=lambda r: r.base))
    shared = sanitized.shared_vars
    batch = Batch()
    for k, count in enumerate([64, 64, 64, 65, 64]):  # record 3 reads and writes one past the end
        cfg = pack._LaunchCfg()
        cfg.grid[:] = (1, 1, 1)
        cfg.block[:] = (96, 1, 1)
        cfg.nworkers, cfg.stack_size = 2, 64 * 1024
        cfg.sanitize, cfg.nbuffers, cfg.buffers = 1, 2, ranges
        cfg.nvars, cfg.vars = shared.count, shared.table
        batch.launch(scale_add, (), 0, [(P, y.ctypes.data), (P, x.ctypes.data), (F32, 2.0), (I64, count)],
                     lane=1 + k % 2, cfg=cfg)
    with blas_threads(2):
        wakes = _wakes()
        done, err, _ = batch.run()
        assert _wakes() == wakes, "a sanitized lane run used the pool"
        after_lanes = y.copy()
        y[:] = 0
        assert batch.without_lanes().run()[:2] == (done, err)
    assert done == 3
    assert "kernel 'scale_add'" in err and "out-of-bounds" in err, err
    np.testing.assert_array_equal(after_lanes, y)
