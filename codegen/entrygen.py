"""The CUDA side of the lowered kernel ABI (codegen/lower.py): the `extern "C" __global__` entry
points appended to each kernel module (one per kernel template: codegen/modules.py), and the
manifest line that states them for the host backend and warmup (codegen/runtime/manifest.py)."""

from __future__ import annotations

from collections.abc import Sequence

from codegen import lower
from codegen.model import OpSpec
from codegen.runtime.manifest import HOST_EMULATION, MAX_THREADS_PER_BLOCK, Manifest
from codegen.runtime.manifest import Entry as ManifestEntry


def entry_points(op: OpSpec, activation_slots: int = 0) -> list[str]:
    """The extern "C" __global__ entry points appended to the kernel source, one per kernel and
    specialization, printed from the lowered ABI (codegen/lower.py, which states the rules)."""
    out: list[str] = []
    for entry in lower.lower(op, activation_slots).entry_points:
        if entry.cpu_only:  # NVRTC never sees it: a GPU module holds only what the cuda plan launches
            out.append(f"#ifdef {HOST_EMULATION}  // only the cpu plan launches it")
        out.append(f'extern "C" __global__ void {entry.bounds_attribute}{entry.symbol}(')
        out.append("    " + ",\n    ".join(p.decl for p in entry.params) + ") {")
        out.append(f"  {entry.call}({', '.join(a.text for a in entry.args)});")
        out.append("}")
        if entry.cpu_only:
            out.append(f"#endif  // {HOST_EMULATION}")
        out.append("")
    return out


def manifest(ops: Sequence[OpSpec], activation_slots: int = 0, shared: tuple[str, ...] = ()) -> Manifest:
    """The entry points of a module's ops (its members, in order) as its manifest states them
    (codegen/runtime/manifest.py): the lowered ABI that entry_points prints, read by the host
    backend and warmup without scanning."""
    kernels = tuple(ManifestEntry(e.symbol, tuple((p.ctype, p.name) for p in e.params),
                                  e.launch_bounds or MAX_THREADS_PER_BLOCK, e.cpu_only)
                    for op in ops for e in lower.lower(op, activation_slots).entry_points)
    return Manifest(kernels, shared)
