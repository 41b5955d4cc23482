"""What a backend gives generated wrappers and `run_plan` (codegen/runtime/plan.py): the cpu backend
(cpu.py), the cuda backend (cuda.py) and any stand-in declare it by subclassing `Backend`.

`replay` and `hold_if_capturing` have defaults (no replay: launch by launch; nothing to hold), so a
backend without a recorded-plan form or a capture of its own need not write them. `watched` is
declared by whatever stands in for `launch` or `gemm` (runtime/launches.py `watch`,
`record_launches`): then every launch must go through the stand-in, so `run_plan` does not replay.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from codegen.runtime.kernels import KernelSource


class Backend(Protocol):
    #: the launch plan wrappers run on it ("cpu" or "cuda"; `by: backend` lets, `when: {backend}` steps)
    name: str
    #: something stands in for `launch` or `gemm` and must see every launch (no replay)
    watched: bool = False

    def adopt(self, op: str, arg: str, value: Any) -> Any:
        """An input as this backend's array, ready for a kernel (copied where it must be)."""
        ...

    def empty(self, shape: Sequence[int], dtype: str) -> Any:
        """An uninitialised array of `shape` and dtype name `dtype`."""
        ...

    def pointer_array(self, arrays: Sequence[Any]) -> Any:
        """The data pointers of a list input's arrays, for kernels that take `const T* const*`."""
        ...

    def launch(self, source: KernelSource, symbol: str, grid: Sequence[int], block: Sequence[int],
               args: Sequence[Any], shared_mem: int = 0) -> None:
        """One kernel launch (asynchronous: it may run at the next `flush`)."""
        ...

    def gemm(self, a: Any, b: Any, out: Any, m: int, n: int, k: int, trans_a: bool, trans_b: bool, beta: int,
             a_offset: int = 0, b_offset: int = 0, out_offset: int = 0, batch: int = 1, a_stride: int = 0,
             b_stride: int = 0, out_stride: int = 0) -> None:
        """out[m, n] (+)= op(a)·op(b) over flat row-major buffers at element offsets, after the
        launches before it; `batch` such products, product i at each offset plus i times its stride."""
        ...

    def flush(self) -> None:
        """Run the launches queued so far (generated wrappers call it before they return)."""
        ...

    def replay(self, source: KernelSource, recording: Any, buffers: Sequence[Any]) -> bool:
        """Run a recorded plan in the backend's own form; False: `run_plan` goes launch by launch."""
        return False

    def hold_if_capturing(self, buffers: Sequence[Any]) -> None:
        """Inside a user's stream capture, keep the call's buffers alive (the graph bakes their pointers)."""
        return None
