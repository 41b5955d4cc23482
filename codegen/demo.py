"""`opgen demo`: generate every op, then run one generated op on the default device and say what
happened — the README's first command."""

from __future__ import annotations

import time

import numpy as np

from codegen.cli import BUILTIN_TEMPLATES, PROJECT
from codegen.files import apply, plan
from codegen.load import load_specs
from codegen.render import render_all


def compile_counts(device: str) -> tuple[int, int]:
    """(kernel modules compiled, modules loaded from the disk cache) so far in this process, on
    the backend of `device`."""
    if device == "cpu":
        from codegen.runtime import host

        return host.stats["compiles"], host.stats["disk_hits"]
    from codegen.runtime import cuda_cache

    return cuda_cache.stats["nvrtc_compiles"], cuda_cache.stats["disk_hits"]


def compile_note(before: tuple[int, int], after: tuple[int, int]) -> str:
    """What a call did besides running, from the compile counts around it: `compiled 2 kernel
    modules`, `kernels from the disk cache, nothing compiled`, or `nothing compiled`."""
    compiled, cached = after[0] - before[0], after[1] - before[1]
    if compiled:
        return f"includes compiling {compiled} kernel module{'s' if compiled != 1 else ''}" + (
            f", {cached} from the disk cache" if cached else "")
    if cached:
        return "kernels from the disk cache, nothing compiled"
    return "nothing compiled"


def run_demo() -> int:
    start = time.perf_counter()
    ops = load_specs(PROJECT / "specs")
    files = render_all(ops, [BUILTIN_TEMPLATES])
    result = plan(files, PROJECT / "generated")
    apply(files, PROJECT / "generated", result)
    print(f"generated {len(ops)} ops ({len(files)} files, {len(result.written)} changed) "
          f"in {time.perf_counter() - start:.2f} s")

    import generated  # after generating, so the package is current

    scope = generated.Scope()
    print(f"device: {scope.device}")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 16, 16, 32)).astype(np.float32) * 3 + 1
    scale = rng.uniform(0.5, 2.0, 32).astype(np.float32)
    offset = rng.standard_normal(32).astype(np.float32)
    zeros, ones = np.zeros(32, np.float32), np.ones(32, np.float32)
    before = compile_counts(scope.device)
    start = time.perf_counter()
    fwd = generated.fused_batch_norm_v3(x, scale, offset, zeros, ones, epsilon=1e-3, scope=scope)
    took = time.perf_counter() - start
    first = compile_note(before, compile_counts(scope.device))
    y = np.asarray(fwd.y.get() if hasattr(fwd.y, "get") else fwd.y)
    normalized = (y - offset) / scale
    start = time.perf_counter()
    generated.fused_batch_norm_v3(x, scale, offset, zeros, ones, epsilon=1e-3, scope=scope)
    again = time.perf_counter() - start
    print(f"FusedBatchNormV3 (NHWC, training) on x {list(x.shape)} float32: first call {took * 1e3:.1f} ms "
          f"({first}), second call {again * 1e3:.1f} ms")
    print(f"  per-channel mean of (y - offset)/scale: max |.| = {np.abs(normalized.mean(axis=(0, 1, 2))).max():.2e}")
    print(f"  per-channel std  of (y - offset)/scale: {normalized.std(axis=(0, 1, 2)).min():.4f} .. "
          f"{normalized.std(axis=(0, 1, 2)).max():.4f}  (1 up to epsilon)")
    grad = generated.fused_batch_norm_grad_v3(np.ones_like(x), x, scale, fwd.reserve_space_1, fwd.reserve_space_2,
                                              fwd.reserve_space_3, epsilon=1e-3, scope=scope)
    dx = np.asarray(grad.x_backprop.get() if hasattr(grad.x_backprop, "get") else grad.x_backprop)
    print(f"FusedBatchNormGradV3 with dy = 1: max |x_backprop| = {np.abs(dx).max():.2e} (0 in exact arithmetic), "
          f"offset_backprop = {float(np.asarray(grad.offset_backprop)[0]):.0f} (= N·H·W = {8 * 16 * 16})")
    return 0
