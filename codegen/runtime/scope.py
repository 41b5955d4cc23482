"""Scope: where generated ops run. `Scope()` picks cuda when CuPy and a GPU are present, else cpu."""

from __future__ import annotations

import re
from typing import Any

from codegen.runtime.cpu import CpuBackend

_cpu_backend: CpuBackend | None = None


def _cpu() -> CpuBackend:
    global _cpu_backend
    if _cpu_backend is None:
        _cpu_backend = CpuBackend()
    return _cpu_backend


def cuda_available() -> tuple[bool, str]:
    """(available, why not). Never imports CuPy at module import time."""
    try:
        import cupy
    except ImportError:
        return False, "CuPy is not installed (pip install 'opgen[cuda]')"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # noqa: BLE001 -- any driver failure means: no usable GPU
        return False, f"CuPy found no usable CUDA driver ({exc})"
    if count == 0:
        return False, "no CUDA device is present"
    return True, ""


class Scope:
    """The device generated ops run on: "cpu", "cuda" or "cuda:N"; None picks cuda if present.

    `launch_plan="cuda"` with device "cpu" runs the GPU's launch plan (its `by: backend` launch
    sizes and `when: {backend: cuda}` steps) on the host emulation: how tests check the GPU plan's
    kernels without a GPU.

    `kernel_form="gpu"` with device "cpu" compiles the kernels in their GPU form (OPGEN_GPU_FORM:
    _common.cuh's building blocks stride rows over the block's threads and reduce with warp
    shuffles and shared memory, as on a GPU, instead of one thread walking each row) and, unless
    `launch_plan` says otherwise, runs the GPU's launch plan: `Scope("cpu", kernel_form="gpu")` is
    the GPU's kernels and launches on the emulation. Slower than the host form (every thread is a
    fiber); for tests."""

    def __init__(self, device: str | None = None, launch_plan: str | None = None, kernel_form: str | None = None):
        if device is None:
            ok, _ = cuda_available()
            device = "cuda" if ok else "cpu"
        if not isinstance(device, str) or not re.fullmatch(r"cpu|cuda(:\d+)?", device):
            raise ValueError(f"Scope: device: expected 'cpu', 'cuda' or 'cuda:N', got {device!r}")
        if launch_plan not in (None, "cpu", "cuda") or (launch_plan == "cuda" and device != "cpu"):
            raise ValueError(f"Scope: launch_plan: expected 'cpu' or 'cuda' (the latter on device 'cpu'), got "
                             f"{launch_plan!r} on {device!r}")
        if kernel_form not in (None, "host", "gpu") or (kernel_form == "host" and device != "cpu"):
            raise ValueError(f"Scope: kernel_form: expected 'host' or 'gpu' (the former on device 'cpu'), got "
                             f"{kernel_form!r} on {device!r}")
        self.device = device
        self.kernel_form = kernel_form or ("host" if device == "cpu" else "gpu")
        gpu_form = device == "cpu" and self.kernel_form == "gpu"
        self.launch_plan = launch_plan or ("cpu" if device == "cpu" and not gpu_form else "cuda")
        self.backend: Any
        if device == "cpu":
            if self.launch_plan == "cpu" and not gpu_form:
                self.backend = _cpu()
            else:
                self.backend = CpuBackend(launch_plan=self.launch_plan, kernel_form=self.kernel_form)
        else:
            ok, why = cuda_available()
            if not ok:
                raise RuntimeError(f"Scope: device {device!r} is not available: {why}. Use Scope('cpu').")
            from codegen.runtime.cuda import cuda_backend

            self.backend = cuda_backend(int(device.partition(":")[2] or 0))

    def synchronize(self) -> None:
        """Wait until the device has finished the work queued so far, and raise the first error a
        check on the device found in it (a `sequence_lengths` out of bounds: docs/specs.md). The
        cpu backend's calls are done when they return: nothing to wait for."""
        sync = getattr(self.backend, "synchronize", None)
        if sync is not None:
            sync()

    def release_capture_buffers(self) -> int:
        """Let go of the buffers the cuda backend holds for op calls made inside a stream capture of
        yours (their scratch and copies, which your CUDA graph points at): call it once those graphs
        will not run again. Returns the bytes released (0 on the cpu backend)."""
        release = getattr(self.backend, "release_capture_buffers", None)
        return int(release()) if release is not None else 0

    def __repr__(self) -> str:
        plan = f", launch_plan={self.launch_plan!r}" if self.device == "cpu" and self.launch_plan != "cpu" else ""
        form = f", kernel_form={self.kernel_form!r}" if self.device == "cpu" and self.kernel_form != "host" else ""
        return f"Scope(device={self.device!r}{plan}{form})"


_default: Scope | None = None


def default_scope() -> Scope:
    global _default
    if _default is None:
        _default = Scope()
    return _default


_by_device: dict[str, Scope] = {}


def backend_of(scope: Scope | str | None, op: str = "") -> Any:
    """The backend of a Scope, of a device string ("cpu", "cuda:1": one Scope per string, made on
    first use) or of the default scope (None)."""
    if scope is None:  # (the default scope read in place once made: every wrapper call without scope= asks)
        return (_default or default_scope()).backend
    if isinstance(scope, Scope):
        return scope.backend
    where = f"{op}: " if op else ""
    if isinstance(scope, str):
        made = _by_device.get(scope)
        if made is None:
            try:
                made = Scope(scope)
            except (ValueError, RuntimeError) as exc:
                raise type(exc)(f"{where}scope: {exc}") from exc
            _by_device[scope] = made
        return made.backend
    raise TypeError(f"{where}scope: expected a Scope (e.g. Scope('cpu')), a device string ('cpu', 'cuda', "
                    f"'cuda:N') or None, got {type(scope).__name__} {scope!r}")
