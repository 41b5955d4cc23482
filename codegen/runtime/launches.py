"""An opt-in record of kernel launches: which kernel, dtype and launch configuration each launch of
the generated wrappers used (scripts/gpu_parity.py's coverage table, tests/test_parity_coverage.py).

    with record_launches(scope.backend) as launches:
        layer_norm(x, scope=scope)
    launches[0]   # Launch(op='LayerNorm', kernel='layer_norm', dtypes=('float32',), grid=(64,),
                  #        block=(1024,), shared_mem=0, plan='cuda', misaligned=False)

While it is open, the recorder stands in for the `launch` method of the backend objects it was given
(and `gemm` too when it does not execute) through `watch`, which declares them watched (no plan
replay) and removes the stand-ins on exit, so a launch costs nothing more when no recorder is
open. Recorders nest (the inner one records and hands the launch on to the outer one). A launch
with a 0 in its grid launches nothing on either backend and is not recorded.

`execute=False` records the launch plan only: no kernel is loaded or run and GEMM steps do nothing,
so outputs are left as allocated (NaN under OPGEN_POISON_OUTPUTS). On the cpu backend posing as the
GPU (Scope("cpu", launch_plan="cuda")) that walks the GPU's launch plan over GPU-size inputs in
the time the wrappers' Python takes, without the emulation's cost of running 1024-thread blocks.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from codegen.runtime.kernels import symbol_parts

__all__ = ["ALIGNMENT", "Launch", "data_address", "record_launches", "watch"]

#: bytes: a launch is `misaligned` when an array argument's data does not start at a multiple of this
#: (the widest vector access the kernels make: float4, kernels/_common.cuh load4/store4)
ALIGNMENT = 16


class Launch(NamedTuple):
    """One kernel launch: the op (its KernelSource's), the spec's kernel name and the
    specialization's dtypes (parsed from the symbol `Op__kernel__dtype...`), the configuration,
    the launch plan of the backend (its `name`: "cpu" or "cuda") and whether any array argument's
    data started off a multiple of ALIGNMENT bytes."""

    op: str
    kernel: str
    dtypes: tuple[str, ...]
    grid: tuple[int, ...]
    block: tuple[int, ...]
    shared_mem: int
    plan: str
    misaligned: bool

    @property
    def threads(self) -> int:
        """Threads per block."""
        n = 1
        for d in self.block:
            n *= d
        return n


def data_address(value: Any) -> int | None:
    """The address of an array's first element: a CuPy array's device pointer, a NumPy array's
    host one; None for what is not an array (scalars, None)."""
    if isinstance(value, np.ndarray):  # (its buffer protocol refuses some dtypes: bfloat16)
        return int(value.__array_interface__["data"][0])
    if value is None or isinstance(value, (np.generic, int, float)):
        return None
    pointer = getattr(getattr(value, "data", None), "ptr", None)  # CuPy
    if isinstance(pointer, int):
        return pointer
    interface = getattr(value, "__cuda_array_interface__", None)
    if isinstance(interface, dict) and "data" in interface:
        return int(interface["data"][0])
    return None


def _misaligned(args: Sequence[Any]) -> bool:
    for value in args:
        address = data_address(value)
        if address is not None and address % ALIGNMENT and getattr(value, "size", 0) != 0:
            return True
    return False


def _launch_record(backend: Any, source: Any, symbol: str, grid: Sequence[int], block: Sequence[int],
                   args: Sequence[Any], shared_mem: int) -> Launch:
    _, kernel, dtypes = symbol_parts(symbol)
    return Launch(source.op, kernel, dtypes,
                  tuple(int(g) for g in grid), tuple(int(b) for b in block), int(shared_mem),
                  str(getattr(backend, "name", "?")), _misaligned(args))


@contextlib.contextmanager
def watch(backend: Any, launch: Callable[..., None] | None = None,
          gemm: Callable[..., None] | None = None) -> Iterator[None]:
    """Stand `launch` and/or `gemm` in for the backend's own while the block runs, declared
    (`Backend.watched`): `run_plan` then sends every launch through them and does not replay. On
    exit the instance's attributes are as they were (watchers nest: an inner one's stand-in may
    call the outer one's)."""
    given = {"launch": launch, "gemm": gemm, "watched": True}
    before = {name: backend.__dict__[name] for name in given if name in backend.__dict__}
    try:
        for name, value in given.items():
            if value is not None:
                setattr(backend, name, value)
        yield
    finally:
        for name in given:
            if name in before:
                setattr(backend, name, before[name])
            elif name in backend.__dict__:
                delattr(backend, name)


def _no_gemm(*args: Any, **kwargs: Any) -> None:
    """A GEMM step when only the plan is recorded (`execute=False`)."""


@contextlib.contextmanager
def record_launches(*backends: Any, execute: bool = True) -> Iterator[list[Launch]]:
    """Record every launch the given backends (`scope.backend`) get while the block runs, in order,
    into the list it yields; `execute=False`: record only (no kernel runs, GEMM steps do nothing)."""
    launches: list[Launch] = []
    with contextlib.ExitStack() as stack:
        watched: list[Any] = []
        for backend in backends:
            if any(backend is b for b in watched):
                continue
            watched.append(backend)
            forward = backend.launch  # the method, or an enclosing recorder's

            def launch(source: Any, symbol: str, grid: Sequence[int], block: Sequence[int], args: Sequence[Any],
                       shared_mem: int = 0, _backend: Any = backend, _forward: Any = forward) -> None:
                if 0 not in grid:
                    launches.append(_launch_record(_backend, source, symbol, grid, block, args, shared_mem))
                if execute:
                    _forward(source, symbol, grid, block, args, shared_mem)

            stack.enter_context(watch(backend, launch, None if execute else _no_gemm))
        yield launches
