"""A generated op's native driver, as its wrapper calls it (issue 32; docs/native.md).

Each wrapper with a kernel launch plan holds a `NativeDriver` (`_NATIVE`) for the `<op>.driver.cpp`
beside it and asks it to run the call first thing (in `_run` when the first input is a NumPy
array, else in `_compute`): `call(backend, inputs, attrs, outputs)` returns the outputs (as the
`outputs` NamedTuple), raises the wrapper's exception with the wrapper's message, or returns None —
then the wrapper runs its Python body, the reference path, as before. None is the answer where the
native path is off (`OPGEN_NATIVE=0`, `OPGEN_PLAN=loop`; `OPGEN_NO_REPLAY` on the cpu), where it has
no form for the call (a backend other than the plain cpu and cuda ones, a watched backend, a cuda
call inside the caller's stream capture — the Python path holds its buffers — an argument the
front-end cannot hand over exactly: codegen/runtime/native/pyentry.cpp), and where it cannot be
built here (warned once).

On the cuda backend the driver's plan runs in the native cuda runtime (native_cuda.py: a library of
its own, handed to each driver library once; libcuda loaded at the first cuda call), the op's module
bound once per device (the kernel cache's cubin, or the stand-in's image where native_cuda says so),
on CuPy's current stream, with outputs and scratch from the backend's `empty`; `OPGEN_NO_REPLAY`
turns its graph replay off, as it does the Python plan's.

The driver's library is built on the first call (the host C++ compiler, cached like kernel
modules: keyed by the driver's source, the native runtime's files, flags, compiler and target;
`opgen warmup` builds it ahead) and bound to the op's kernels as the backend loads them
(codegen/runtime/native_cpu.py), again whenever the launch settings change."""

from __future__ import annotations

import ctypes
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from codegen.runtime import diskcache, native_cpu, native_cuda, native_front, native_plan
from codegen.runtime.cuda import CudaBackend
from codegen.runtime.host import switches
from codegen.runtime.host.errors import HostBackendError, HostCompileError, HostCompilerNotFound
from codegen.runtime.host.toolchain import EMU_DIR
from codegen.runtime.kernels import KernelSource
from codegen.runtime.plan import Plan, PlanError, plan_as_data
from codegen.runtime.settings import (
    HOST_RANDOM_ORDER,
    HOST_SANITIZE,
    HOST_STACK_KB,
    HOST_THREADS,
    NATIVE,
    NO_REPLAY,
    PLAN,
    POISON_OUTPUTS,
    environ_version,
    raw_values,
)

#: driver.h's opgen_device numbers
DEVICE_CPU, DEVICE_CUDA = 0, 1

#: The op's outputs NamedTuple, which the front end makes the outputs as.
_Outputs = TypeVar("_Outputs", bound=tuple[Any, ...])


@dataclass(frozen=True)
class _State:
    """What the settings in force say of every call: the front-end (None: the native path is off)
    whether outputs are poisoned, and what a binding must have been made for (native_cpu.key)."""

    front: Any
    poison: bool
    no_replay: bool  # (the cpu path then runs in Python; the cuda path turns its graphs off)
    binding: tuple[Any, ...]
    cpu: Any  # the front where a call on the plain cpu backend runs natively, else None (one test per call)


#: The raw values of every setting a call's route depends on (a change of any: _state again): the
#: route's and the launch's.
_settings = raw_values(NATIVE, PLAN, NO_REPLAY, POISON_OUTPUTS, HOST_SANITIZE, HOST_THREADS, HOST_RANDOM_ORDER,
                       HOST_STACK_KB)
_STATES: dict[tuple[Any, ...], _State] = {}


def _state(raw: tuple[Any, ...], backend: Any) -> _State:
    on = NATIVE.get() and plan_as_data()
    front, no_replay = native_front.extension() if on else None, bool(NO_REPLAY.get())
    cpu = front if raw[0] == "cpu" and not no_replay else None  # (raw[0]: the backend's name)
    state = _State(front, bool(POISON_OUTPUTS.get()), no_replay, native_cpu.key(backend), cpu)
    if len(_STATES) < 64:
        _STATES[raw] = state
    return state


class NativeDriver:
    """One op's driver: built, loaded and bound on its first call."""

    __slots__ = ("_address", "_bound", "_broken", "_cuda_bound", "_last", "_runner", "kernels", "op", "plan",
                 "served", "source")

    def __init__(self, op: str, kernels: KernelSource, plan: Plan, source: Path):
        self.op = op
        self.kernels = kernels
        self.plan = plan
        self.source = source
        self.served = 0  # calls the driver ran (the rest took the Python path): for tests and benchmarks
        self._runner: native_cpu.NativeCpu | None = None
        self._address = 0
        self._bound: tuple[Any, ...] | None = None
        # device index -> native_cuda.generation() it was bound in (-1 - generation: off in that one)
        self._cuda_bound: dict[int, int] = {}
        self._broken = False
        # The last native cpu call's route — backend, environ_version(), the two switches — and what it
        # found: the front's call, whether outputs are poisoned (one flat tuple: threads see all or
        # none; its items tested in place, no route tuple made per call). The same route again, and
        # nothing is read but the route: any os.environ write or switch changes it (settings.py's
        # doc). None while the route is not known (or environ writes are not counted: read each call).
        self._last: tuple[Any, int, Any, Any, Any, bool] | None = None

    def call(self, backend: Any, inputs: tuple[Any, ...], attrs: tuple[Any, ...],
             outputs: type[_Outputs]) -> _Outputs | None:
        """The outputs of the call run natively (a tuple of the `outputs` tuple subclass: the op's
        NamedTuple), or None: the wrapper's Python path takes it."""
        # (a broken driver keeps no route: _broken is tested where there is none; the switches' values
        # by identity, as a tuple's comparison tests them first: the module's own objects until set)
        last = self._last
        if (last is None or last[0] is not backend or backend.watched or last[1] != environ_version()
                or last[2] is not switches._sanitize or last[3] is not switches._random_seed):
            return self._routed(backend, inputs, attrs, outputs)
        backend.flush()  # the driver runs at once: launches the Python path queued go first
        made = last[4](self._address, inputs, attrs, DEVICE_CPU, last[5], outputs)
        if made is not None:
            self.served += 1
        return made  # type: ignore[no-any-return]

    def _routed(self, backend: Any, inputs: tuple[Any, ...], attrs: tuple[Any, ...],
                outputs: type[_Outputs]) -> _Outputs | None:
        """`call` where the route changed since this driver's last native cpu call: the settings
        read and the binding checked (the route kept where the call runs natively on the cpu)."""
        self._last = None
        if self._broken or backend.watched:
            return None
        version, sanitize, seed = environ_version(), switches._sanitize, switches._random_seed
        raw = (backend.name, sanitize, seed, _settings())
        state = _STATES.get(raw) or _state(raw, backend)
        front = state.cpu  # (tested first: isinstance against a Protocol's subclass costs more than a call)
        if front is None:
            if state.front is not None and isinstance(backend, CudaBackend):
                return self._call_cuda(backend, inputs, attrs, state, outputs)
            return None
        bound = self._bound
        if bound is not state.binding:
            if bound != state.binding and not self._bind(backend):
                return None
            if self._bound == state.binding:
                self._bound = state.binding  # (the state's own tuple: an identity test from now on)
        if version is not None:  # (uncounted writes: the route is read again at every call)
            self._last = (backend, version, sanitize, seed, front.call, state.poison)
        backend.flush()  # the driver runs at once: launches the Python path queued go first
        made = front.call(self._address, inputs, attrs, DEVICE_CPU, state.poison, outputs)
        if made is not None:
            self.served += 1
        return made  # type: ignore[no-any-return]

    def build(self) -> None:
        """Compile (or load from the cache) the driver's library now; its errors raised (opgen warmup)."""
        if self._runner is None:
            self._runner = self._load()

    def _call_cuda(self, backend: CudaBackend, inputs: tuple[Any, ...], attrs: tuple[Any, ...],
                   state: _State, outputs: type[_Outputs]) -> _Outputs | None:
        bound, generation = self._cuda_bound.get(backend.index), native_cuda.generation()
        if bound != generation and (bound == -1 - generation or not self._bind_cuda(backend)):
            return None
        with backend.device:
            stream = backend._cp.cuda.get_current_stream()
            if stream.is_capturing():  # the Python path holds the call's buffers for the caller's graph
                return None
            native_cuda.graphs(not state.no_replay)
            made = state.front.call(self._address, inputs, attrs, DEVICE_CUDA, False, backend.index, stream.ptr,
                                    backend.empty, outputs)
        if made is not None:
            self.served += 1
        return made  # type: ignore[no-any-return]

    def _bind_cuda(self, backend: CudaBackend) -> bool:
        """The op's module bound on the backend's device, and the driver library handed the cuda
        runtime, once per device (again where native_cuda names another libcuda)."""
        generation = native_cuda.generation()
        try:
            if self._runner is None:
                self._runner = self._load()
            native_cuda.hand_runner(self._runner.lib)
            image = native_cuda.module_image(self.kernels, backend.target)
            native_cuda.bind(self.op, backend.index, image, self._runner.recorder(self.op).symbols)
        except native_cuda.NativeCudaError as e:  # (the cpu path stays on; a libcuda named anew is tried)
            self._cuda_bound[backend.index] = -1 - generation
            warnings.warn(f"opgen: {self.op}: the native driver is off on cuda ({e}); the wrapper runs its Python "
                          f"path", RuntimeWarning, stacklevel=4)
            return False
        except (HostCompileError, HostCompilerNotFound, HostBackendError, PlanError, OSError) as e:
            self._broken, self._last = True, None
            warnings.warn(f"opgen: {self.op}: the native driver is off ({e}); the wrapper runs its Python path",
                          RuntimeWarning, stacklevel=4)
            return False
        self._cuda_bound[backend.index] = generation
        return True

    def _bind(self, backend: Any) -> bool:
        try:
            self.build()
            assert self._runner is not None
            self._bound = self._runner.bind(self.kernels, self.plan, backend).key
        except (HostCompileError, HostCompilerNotFound, HostBackendError, PlanError, OSError) as e:
            self._broken, self._last = True, None
            warnings.warn(f"opgen: {self.op}: the native driver is off ({e}); the wrapper runs its Python path",
                          RuntimeWarning, stacklevel=4)
            return False
        return True

    def _load(self) -> native_cpu.NativeCpu:
        # The kernels' digest in the key: a library binds its ops by name, and two packages may hold
        # ops of one name (and one driver) with other kernels; identical ones share a library.
        kernels = diskcache.digest(self.kernels.text.encode())
        source = self.source.read_text() + f"// kernels {kernels}\n"
        plans = native_plan.load(source, self.source.name.split(".")[0],
                                 include=(native_cpu.NATIVE_DIR, EMU_DIR), link=(native_cpu.runner_object(),))
        runner = native_cpu.NativeCpu(plans)
        abi = runner.lib.opgen_driver_abi
        abi.restype, abi.argtypes = ctypes.c_int64, []
        if abi() != native_front.DRIVER_ABI:
            raise PlanError(f"{self.source.name} states driver ABI {abi()}; this runtime reads "
                            f"{native_front.DRIVER_ABI}")
        function = getattr(runner.lib, f"opgen_call_{native_plan.c_name(self.op)}")
        self._address = ctypes.cast(function, ctypes.c_void_p).value or 0
        return runner
