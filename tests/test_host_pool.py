"""The emulation's worker pool (emu/rt/pool.cpp): a launch whose blocks took little work the last
time its kernel ran with that configuration runs on the calling thread alone (waking a helper
costs more than it saves), and the caller never waits for a helper that has not joined; larger
launches still share their blocks with the pool."""

from __future__ import annotations

import ctypes
import threading

import numpy as np
import pytest

from codegen.runtime import host
from codegen.runtime.host.libraries import _RUNTIME

KERNELS = r"""
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// Each block writes the OS thread that ran it, after spinning `spin_ns` (its work).
extern "C" __global__ void whose(long long* tid, long long spin_ns) {
  if (threadIdx.x != 0) return;
  timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  do clock_gettime(CLOCK_MONOTONIC, &b);
  while ((b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec) < spin_ns);
  tid[blockIdx.x] = static_cast<long long>(syscall(SYS_gettid));
}
"""


@pytest.fixture(scope="module")
def whose():
    return host.load_module(KERNELS, name_hint="host_pool_tests").get_function("whose")


def _wakes() -> int:
    fn = _RUNTIME["lib"].opgen_rt_pool_wakes
    fn.restype = ctypes.c_uint64
    return int(fn())


def _launch(whose, blocks: int, spin_ns: int) -> np.ndarray:
    tid = np.zeros(blocks, np.int64)
    whose((blocks,), (32,), (tid, np.int64(spin_ns)))
    return tid


def test_a_tiny_launch_runs_on_the_calling_thread(whose, monkeypatch):
    monkeypatch.setenv("OPGEN_HOST_THREADS", "2")
    me = threading.get_native_id()
    # the first launches wake the pool, and each worker's first blocks (its fiber stacks allocated and
    # touched) can take more than kInlineNs; so can a launch preempted on a loaded machine (the suite's
    # other worker), after which the next launch uses the pool once: hence a share, not every launch
    for _ in range(50):
        if (_launch(whose, 2, 0) == me).all():
            break
    before = _wakes()
    inline = sum(bool((_launch(whose, 2, 0) == me).all()) for _ in range(40))
    woke = _wakes() - before
    assert woke <= 10 and inline >= 20, f"of 40 launches of a few µs, {inline} ran on the caller, {woke} woke the pool"


def test_a_larger_launch_still_uses_the_pool(whose, monkeypatch):
    monkeypatch.setenv("OPGEN_HOST_THREADS", "2")
    me = threading.get_native_id()
    before = _wakes()
    tids = [_launch(whose, 4, 3_000_000) for _ in range(5)]  # 4 blocks of 3 ms each
    assert _wakes() - before == 5
    assert any((t != me).any() for t in tids), "no block of a 12 ms launch ran on a helper"
