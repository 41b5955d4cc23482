"""Kernel modules: which ops' kernels compile together. Ops whose `kernel: source:` is the same
template (a forward op and its gradient) share ONE generated module, the template rendered once
and every member's entry points after it, so each backend compiles it once. `module_groups` is the
one place that decides the grouping (today by kernel source, which is what makes a family of ops).
A module is named after its template: `kernels/rnn/cudnn_rnn.cu` → `rnn/cudnn_rnn.cu` in the
generated package, also for a template that only one op uses."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass

from codegen.model import OpSpec


@dataclass(frozen=True)
class KernelModule:
    """One generated `.cu`: the kernel template `source` and the ops (sorted by name) whose entry points it holds."""

    source: str  # the template's path under kernels/ ("rnn/cudnn_rnn.cu")
    ops: tuple[OpSpec, ...]

    @property
    def path(self) -> str:
        """The module's path in the generated package (as its template's under kernels/)."""
        return module_path(self.ops[0])

    @property
    def names(self) -> list[str]:
        return [op.name for op in self.ops]


def module_path(op: OpSpec) -> str:
    """The path in the generated package of the module holding `op`'s kernels."""
    assert op.kernel is not None
    return posixpath.normpath(op.kernel.source)


def module_groups(ops: Iterable[OpSpec]) -> list[KernelModule]:
    """The kernel modules of `ops` (those with a kernel), sorted by path: ops sharing a kernel source share one."""
    by_path: dict[str, list[OpSpec]] = {}
    for op in sorted(ops, key=lambda o: o.name):
        if op.kernel is not None:
            by_path.setdefault(module_path(op), []).append(op)
    return [KernelModule(members[0].kernel.source, tuple(members))  # type: ignore[union-attr]
            for _, members in sorted(by_path.items())]


def wrapper_reference(op: OpSpec) -> str:
    """The op's module as a path relative to the folder of its wrapper (`<group>/<op>.py`)."""
    return posixpath.relpath(module_path(op), op.group)
