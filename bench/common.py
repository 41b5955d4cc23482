"""Timing helpers for the benchmarks: medians over repeats, and a line describing the machine."""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable, Mapping


def _samples(fn: Callable[[], object], repeats: int, warmup: int, clock: Callable[[], float]) -> list[float]:
    """Seconds per call of fn on `clock`, after `warmup` calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = clock()
        fn()
        times.append(clock() - start)
    return times


def median_seconds(fn: Callable[[], object], repeats: int = 15, warmup: int = 2,
                   clock: Callable[[], float] = time.perf_counter) -> float:
    return statistics.median(_samples(fn, repeats, warmup, clock))


def cpu_seconds(fn: Callable[[], object], repeats: int = 30, warmup: int = 2) -> tuple[float, float]:
    """(min, median) CPU time of the calling thread per call: with every worker on that thread
    (OPGEN_HOST_THREADS=1, torch.set_num_threads(1)) the time other processes take from the
    machine does not count, so a loaded shared machine still compares two builds fairly."""
    times = _samples(fn, repeats, warmup, time.thread_time)
    return min(times), statistics.median(times)


def interleaved_medians(calls: Mapping[str, Callable[[], object]], rounds: int,
                        cpu_time: bool) -> tuple[dict[str, float], dict[str, list[float]]]:
    """(median, every round's figure) per name, in seconds: each round times every call in turn
    (a median of 3 after a warm-up call; cpu_time: the calling thread's CPU time), so the noise
    of a shared machine falls on all of them alike."""
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, fn in calls.items():
            samples[name].append(cpu_seconds(fn, repeats=3, warmup=1)[1] if cpu_time else
                                 median_seconds(fn, repeats=3, warmup=1))
    return {name: statistics.median(v) for name, v in samples.items()}, samples


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"
