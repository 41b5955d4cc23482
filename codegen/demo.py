"""`opgen demo`: generate a project's ops, then run them on the default device and say what
happened — the README's first command.

- In opgen's own repository: generate every op, then run FusedBatchNormV3 and its gradient.
- In a project of your own: generate it, then run each kernel op once on inputs derived from its
  spec (codegen/inputs.py).
- Anywhere else: nothing is generated; FusedBatchNormV3 and its gradient run from opgen's own ops
  as installed.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from codegen.project import Project, find_config, find_project


def device_line(device: str) -> str:
    """`device: cuda`, or on the cpu the vector ISA its kernels are built for: `device: cpu
    (kernels built for x86-64-v3)`."""
    if device != "cpu":
        return f"device: {device}"
    from codegen.runtime import host

    return f"device: cpu (kernels built for {host.resolve_isa()})"


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


def run_demo(project: Project | None = None) -> int:
    """The demo of `project` (None: the project of the current directory, if any)."""
    if project is None and find_config(Path.cwd()) is not None:
        project = find_project(Path.cwd())
    if project is None:
        print("opgen demo: no [tool.opgen] project here: running opgen's own ops as installed (nothing generated; "
              "`opgen init DIR` starts a project of your own)")
        return builtin_demo(importlib.import_module("generated"))
    from codegen.cli import generate  # (the command line's module: it imports this one only when run)

    start = time.perf_counter()
    ops, files, result = generate(project)
    print(f"generated {len(ops)} ops ({len(files)} files, {len(result.written)} changed) "
          f"in {time.perf_counter() - start:.2f} s")
    package = import_package(project)  # after generating, so the package is current
    if project.is_opgen_itself:
        return builtin_demo(package)
    return project_demo(package, ops)


def import_package(project: Project) -> ModuleType:
    """The project's generated package, imported under its name from its folder."""
    loaded = sys.modules.get(project.package)
    if loaded is not None and [Path(p).resolve() for p in getattr(loaded, "__path__", [])] == [project.out]:
        return loaded
    spec = importlib.util.spec_from_file_location(project.package, project.out / "__init__.py",
                                                  submodule_search_locations=[str(project.out)])
    if spec is None or spec.loader is None:  # pragma: no cover
        raise ImportError(f"cannot import {project.package} from {project.out}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[project.package] = module
    spec.loader.exec_module(module)
    return module


def _host(a: Any) -> np.ndarray:
    return np.asarray(a.get() if hasattr(a, "get") else a)


def project_demo(package: ModuleType, ops: list[Any]) -> int:
    """Each kernel op of a project once, on the first case derived from its spec, twice (the first
    call says whether it compiled)."""
    from codegen.inputs import NotDerivable, derive_cases

    scope = package.Scope()
    print(device_line(scope.device))
    names = ops.activations.names if hasattr(ops, "activations") else ()
    for op in sorted(ops, key=lambda o: o.name):
        function = getattr(package, op.snake_name)
        if op.kernel is None:
            print(f"{op.name}: no kernel of its own (runtime op), not run")
            continue
        try:
            cases = derive_cases(op, np.random.default_rng(0), activations=names)
        except NotDerivable as exc:
            print(f"{op.name}: not run ({exc})")
            continue
        case = max(cases, key=lambda c: sum(np.size(a) for a in c.args if isinstance(a, np.ndarray)))
        shapes = ", ".join(f"{list(np.shape(a))} {np.asarray(a).dtype}" for a in case.args if isinstance(a, np.ndarray))
        before = compile_counts(scope.device)
        start = time.perf_counter()
        out = function(*case.args, **case.kwargs, scope=scope)
        took = time.perf_counter() - start
        note = compile_note(before, compile_counts(scope.device))
        start = time.perf_counter()
        function(*case.args, **case.kwargs, scope=scope)
        again = time.perf_counter() - start
        results = ", ".join(f"{name} {list(_host(value).shape)}" for name, value in zip(out._fields, out, strict=True)
                            if value is not None)
        print(f"{op.name} on {shapes}: first call {took * 1e3:.1f} ms ({note}), second call {again * 1e3:.1f} ms "
              f"→ {results}")
    return 0


def builtin_demo(generated: ModuleType) -> int:
    """FusedBatchNormV3 and its gradient, from opgen's own ops (`generated`)."""
    scope = generated.Scope()
    print(device_line(scope.device))
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
    y = _host(fwd.y)
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
    dx = _host(grad.x_backprop)
    print(f"FusedBatchNormGradV3 with dy = 1: max |x_backprop| = {np.abs(dx).max():.2e} (0 in exact arithmetic), "
          f"offset_backprop = {float(_host(grad.offset_backprop)[0]):.0f} (= N·H·W = {8 * 16 * 16})")
    return 0
