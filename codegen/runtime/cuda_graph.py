"""A recorded launch plan (codegen/runtime/plan.py) replayed on the cuda backend as a CUDA graph.

The first replay of a recording with some buffers captures its launches into a CUDA graph and
launches the graph; a later call with the same buffers launches that graph again: one graph launch
per call, no Python per kernel.

Where it is captured: on a non-blocking stream of the backend's own (one per thread), never on the
caller's. A capture runs nothing, so nothing orders it against the caller's work, and CuPy refuses
to capture the legacy default stream, the one most callers are on. The graph is then launched on
the caller's current stream, where the launches would have gone.

What a graph bakes in: the kernels, their configurations and scalar arguments (all fixed by the
recording: its sizes, attrs and dtypes), and the device pointer of every buffer. So a recording's
graphs are kept by the data pointers of all the call's buffers (inputs, outputs, scratch): a call
whose buffers sit elsewhere captures anew, and a graph is never launched on pointers other than its
own call's. CuPy's memory pool hands a freed block back to the next allocation of its size, so the
calls of a loop find the same pointers and hit. The stream is not in the key: a graph runs on any
stream. Each recording keeps `MAX_GRAPHS` graphs per device, the least recently used dropped.

Where a graph cannot serve, `GraphReplay.run` returns False and the plan runs launch by launch:

* a GEMM step where the direct cuBLAS path does not take its dtype. Otherwise a GEMM step is
  captured too: the device's cuBLAS handle is bound to the capture stream before the capture
  (CuPy's setStream refuses during one), and each step is one cuBLAS call without setStream
  (`DirectGemm.captured`). A CuPy whose gemm binding sets the current stream itself still refuses:
  that capture fails, and the recording runs launch by launch, counted in `capture_failures`;
* a pointer-list argument (its device array of pointers would have to live as long as the graph;
  no op has one yet);
* the caller's stream capturing already (a user's own capture: the launches go into it, as before);
* a launch the launch-by-launch checks refuse (that path then raises it, after the launches
  before it), checked once per recording before its first capture;
* any error while capturing: the capture is ended, the graph discarded, and the recording runs
  launch by launch from then on;
* a recording whose calls keep bringing new pointers (`GIVE_UP_AFTER` captures, fewer hits than
  captures: CuPy's memory pool switched off, or every output kept), from then on.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from codegen.runtime.checks import dtype_name
from codegen.runtime.cuda_cache import CudaBackendError
from codegen.runtime.gemm import GemmSizes, gemm_into
from codegen.runtime.kernels import KernelSource
from codegen.runtime.plan import Gemm, Launch, Recording, Slot, Slots
from codegen.runtime.stats import counters, python_launches

#: Graphs kept per recording and device (distinct buffer pointers); the least recently used goes first.
MAX_GRAPHS = 8
#: Captures after which a recording whose graphs were launched again fewer times than captured
#: stops capturing (its calls keep finding new pointers: CuPy's pool off, outputs all kept)
GIVE_UP_AFTER = 4 * MAX_GRAPHS

#: stats.py's "cuda_graphs": graphs captured, graph launches, captures that failed (a GPU session
#: reads captures against launches: a loop whose calls keep missing shows as many captures)
stats = counters("cuda_graphs", ("captures", "launches", "capture_failures"))
#: Why the latest capture failed (empty until one does): for diagnostics and the GPU benchmarks.
last_capture_failure: list[str] = [""]


@dataclass(frozen=True)
class _Step:
    """A launch ready to capture: its function resolved and checked, its buffers still slots."""

    function: Any
    grid: tuple[int, ...]
    block: tuple[int, ...]
    shared: int
    args: tuple[Any, ...]


@dataclass(frozen=True)
class _GemmStep:
    """A GEMM step to capture: its buffers still slots."""

    gemm: Gemm


@dataclass
class _Graphs:
    """A recording's graphs on one device, by the data pointers of the call's buffers; `steps` is
    None where the recording cannot be captured."""

    steps: tuple[_Step | _GemmStep, ...] | None
    graphs: OrderedDict[tuple[int, ...], Any] = field(default_factory=OrderedDict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    captures: int = 0
    hits: int = 0

    def get(self, pointers: tuple[int, ...]) -> Any:
        with self.lock:
            graph = self.graphs.get(pointers)
            if graph is not None:
                self.graphs.move_to_end(pointers)
                self.hits += 1
            return graph

    def put(self, pointers: tuple[int, ...], graph: Any) -> None:
        with self.lock:
            self.graphs[pointers] = graph
            while len(self.graphs) > MAX_GRAPHS:
                self.graphs.popitem(last=False)
            self.captures += 1
            if self.captures >= GIVE_UP_AFTER and self.hits < self.captures:
                self.steps = None  # (a capture per call costs more than its launches: launch by launch)


class GraphReplay:
    """The graphs of one cuda backend (`backend`: a codegen.runtime.cuda.CudaBackend, on CuPy `cp`)."""

    def __init__(self, backend: Any, cp: Any) -> None:
        self._backend, self._cp = backend, cp
        self._local = threading.local()  # each thread's capture stream

    def run(self, kernels: KernelSource, recording: Recording, buffers: Sequence[Any]) -> bool:
        """Launch the recording's graph for these buffers (captured now if there is none yet) on
        the current stream and return True; False where it must run launch by launch (see the
        module docstring)."""
        backend = self._backend
        key = ("cuda graphs", backend, kernels)  # (the backend itself: its functions are in the steps)
        graphs: _Graphs | None = recording.native.get(key)
        with backend.device:
            if graphs is None:
                try:
                    steps = self._prepare(kernels, recording)
                except Exception:  # noqa: BLE001 -- a launch the checks refuse: the launch-by-launch path raises it
                    return False
                graphs = recording.native.setdefault(key, _Graphs(steps))
            if graphs.steps is None:
                return False
            if not graphs.steps:  # every launch has an empty grid: nothing to run
                return True
            stream = self._cp.cuda.get_current_stream()
            if _capturing(stream):
                return False
            try:
                pointers = tuple(0 if b is None else b.data.ptr for b in buffers)  # (None: an absent input)
            except AttributeError:  # (a buffer that is not a device array: the checked path says so)
                return False
            graph = graphs.get(pointers)
            if graph is None:
                if not self._gemms_ready(graphs.steps, buffers):
                    graphs.steps = None  # (a dtype the direct cuBLAS path does not take: it will not change)
                    return False
                graph = self._capture(graphs.steps, buffers)
                if graph is None:
                    stats["capture_failures"] += 1
                    graphs.steps = None  # (it would fail again: launch by launch from now on)
                    return False
                stats["captures"] += 1
                graphs.put(pointers, graph)
            try:
                graph.launch(stream)
            except Exception as exc:  # a driver error (a sticky fault of an earlier kernel, say)
                raise CudaBackendError(f"{kernels.op}: launch of the CUDA graph of its plan failed: {exc}") from exc
            python_launches["from_python"] += 1
            stats["launches"] += 1
        return True

    def _prepare(self, kernels: KernelSource, recording: Recording) -> tuple[_Step | _GemmStep, ...] | None:
        """The recording's launches with their functions loaded and checked (no module is loaded
        during a capture), and its GEMM steps; None where it cannot be captured (a pointer list)."""
        steps: list[_Step | _GemmStep] = []
        for step in recording.steps:
            if type(step) is Gemm:
                steps.append(_GemmStep(step))
                continue
            assert type(step) is Launch
            if any(type(a) is Slots for a in step.args):
                return None  # a pointer list
            if 0 in step.grid:  # launches nothing (CudaBackend.launch skips it too)
                continue
            function = self._backend.checked_function(kernels, step.symbol, step.grid, step.block, step.args)
            steps.append(_Step(function, step.grid, step.block, step.shared, step.args))
        return tuple(steps)

    def _gemms_ready(self, steps: tuple[_Step | _GemmStep, ...], buffers: Sequence[Any]) -> bool:
        """Whether the direct cuBLAS path takes every GEMM step's dtype (its self-check run now,
        outside the capture)."""
        gemms = [s.gemm for s in steps if type(s) is _GemmStep]
        if not gemms:
            return True
        direct = self._backend._direct_gemm()
        ready = getattr(direct, "ready", None)
        try:
            return ready is not None and all(ready(dtype_name(buffers[g.out])) for g in gemms)
        except Exception:  # noqa: BLE001 -- a self-check that cannot run: launch by launch
            return False

    def _capture(self, steps: tuple[_Step | _GemmStep, ...], buffers: Sequence[Any]) -> Any:
        """The steps on these buffers captured into a graph, or None (the capture ended and
        discarded) where anything in the capture failed."""
        stream = self._capture_stream()
        direct = self._backend._direct_gemm() if any(type(s) is _GemmStep for s in steps) else None
        with stream:
            try:
                if direct is not None:
                    direct.bind_stream(stream.ptr)  # (before the capture: CuPy refuses setStream in one)
            except Exception as exc:  # noqa: BLE001 -- no handle to bind: launch by launch
                last_capture_failure[0] = f"binding cuBLAS to the capture stream: {exc!r}"
                return None
            stream.begin_capture()
            try:
                for s in steps:
                    if isinstance(s, _GemmStep):
                        _capture_gemm(direct, s.gemm, buffers)
                        continue
                    args = tuple(buffers[a.index] if type(a) is Slot else a for a in s.args)
                    s.function(s.grid, s.block, args, shared_mem=s.shared)
            except BaseException as exc:
                _end_quietly(stream)
                if not isinstance(exc, Exception):
                    raise
                last_capture_failure[0] = f"during the capture: {exc!r}"
                return None
            try:
                return stream.end_capture()
            except Exception as exc:  # noqa: BLE001 -- invalidated or not instantiable: launch by launch
                last_capture_failure[0] = f"ending the capture: {exc!r}"
                return None

    def _capture_stream(self) -> Any:
        stream = getattr(self._local, "stream", None)
        if stream is None:  # (on this backend's device: run() holds it current)
            stream = self._local.stream = self._cp.cuda.Stream(non_blocking=True)
        return stream


def _capture_gemm(direct: Any, gemm: Gemm, buffers: Sequence[Any]) -> None:
    """One GEMM step into the capture: one cuBLAS call, a strided batch's too (an empty product:
    nothing, or a fill)."""
    m, n, k = gemm.sizes[:3]
    a, b, out = buffers[gemm.a], buffers[gemm.b], buffers[gemm.out]
    if m == 0 or n == 0 or k == 0 or gemm.sizes[9] == 0:  # (no cuBLAS call: gemm_into fills or leaves the window)
        gemm_into(_no_matmul, a, b, out, *gemm.sizes)
    else:
        direct.captured(a, b, out, GemmSizes(*gemm.sizes))


def _no_matmul(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("an empty product multiplies nothing")


def _capturing(stream: Any) -> bool:
    """Whether `stream` is capturing; True where it cannot be asked (the legacy stream while a
    blocking stream captures: its launches would be refused just the same)."""
    try:
        return bool(stream.is_capturing())
    except Exception:  # noqa: BLE001 -- cudaErrorStreamCaptureImplicit and the like
        return True


def _end_quietly(stream: Any) -> None:
    try:
        stream.end_capture()
    except Exception:  # noqa: BLE001 -- an invalidated capture says so as it ends: it is discarded anyway
        pass
