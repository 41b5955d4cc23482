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
    for _ in range(5):  # the first launches: the pool is woken, and each worker's first blocks (its
        _launch(whose, 2, 0)  # fiber stacks allocated and touched) can take more than kInlineNs
    before = _wakes()
    me = threading.get_native_id()
    for _ in range(20):
        assert (_launch(whose, 2, 0) == me).all()
    assert _wakes() == before, "a launch of a few µs woke the pool's helpers"


def test_a_larger_launch_still_uses_the_pool(whose, monkeypatch):
    monkeypatch.setenv("OPGEN_HOST_THREADS", "2")
    me = threading.get_native_id()
    before = _wakes()
    tids = [_launch(whose, 4, 3_000_000) for _ in range(5)]  # 4 blocks of 3 ms each
    assert _wakes() - before == 5
    assert any((t != me).any() for t in tids), "no block of a 12 ms launch ran on a helper"
