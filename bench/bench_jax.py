"""The JAX functions (issue 34) against the same math in JAX, under jax.jit on the cpu: a jitted
function holding one tiny Softmax [2, 8] against jax.nn.softmax (goal: ≤ 1.5×), and Softmax and
LayerNorm at [4096, 4096] float32 against jnp (goal: ≤ 1.0×). The two sides of each pair are timed
interleaved, medians of several rounds.

--cpu-time: the process's CPU time per call (every thread: XLA's pool and opgen's), which moves less
than wall time on a loaded machine; --only TEXT: the pairs whose name contains TEXT. To compare two
trees, run this file with PYTHONPATH at each tree's root in turn (its `generated` is the one timed)."""

from __future__ import annotations

import argparse
import statistics
import time

import jax
import numpy as np
from common import machine, median_seconds

from generated import jax as ops

ROUNDS = 5


def _layer_norm(x: jax.Array) -> jax.Array:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + 1e-5)


def per_call(fn, x, repeat: int, clock) -> float:
    jax.block_until_ready(fn(x))
    return median_seconds(lambda: jax.block_until_ready([fn(x) for _ in range(repeat)]), repeats=3,
                          warmup=1, clock=clock) / repeat


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpu-time", action="store_true", help="the process's CPU time (all threads), not wall")
    parser.add_argument("--only", default="", help="only the pairs whose name contains this")
    args = parser.parse_args()
    clock = time.process_time if args.cpu_time else time.perf_counter
    rng = np.random.default_rng(0)
    tiny, big = rng.standard_normal((2, 8)).astype(np.float32), rng.standard_normal((4096, 4096)).astype(np.float32)
    pairs = {
        "Softmax [2, 8]": (jax.jit(lambda x: ops.softmax(x).y), jax.jit(jax.nn.softmax), tiny, 400),
        "Softmax [4096, 4096]": (jax.jit(lambda x: ops.softmax(x).y), jax.jit(jax.nn.softmax), big, 3),
        "LayerNorm [4096, 4096]": (jax.jit(lambda x: ops.layer_norm(x).y), jax.jit(_layer_norm), big, 3),
    }
    print(f"machine: {machine()}, JAX {jax.__version__}, backend {jax.default_backend()}, "
          f"{'process CPU time' if args.cpu_time else 'wall time'}")
    for name, (opgen, peer, x, repeat) in pairs.items():
        if args.only not in name:
            continue
        ours, theirs = [], []
        for _ in range(ROUNDS):
            ours.append(per_call(opgen, x, repeat, clock))
            theirs.append(per_call(peer, x, repeat, clock))
        a, b = statistics.median(ours), statistics.median(theirs)
        unit, scale = ("µs", 1e6) if a < 1e-3 else ("ms", 1e3)
        print(f"{name}: opgen {a * scale:.1f} {unit}, JAX {b * scale:.1f} {unit}, ratio {a / b:.2f}")


if __name__ == "__main__":
    main()
