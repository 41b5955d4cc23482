"""Shared resources of the batching ops, one per (device, container, shared_name) and kind, like
TensorFlow's resource manager; and their lifecycle.

An empty shared_name names the op itself ("Batch", "Unbatch", "UnbatchGrad"): TensorFlow uses the
op's node name, and a Python call has no node, so every call of an op with an empty shared_name
shares one resource per container and device. Give each batching site its own shared_name.

Resources start on first use. One that is idle (nothing queued, running, waiting or parked) may be
released: when a new resource starts and more than MAX_IDLE_RESOURCES are idle, the least recently
used idle ones are closed (their worker threads exit at once) and forgotten, so a later call of
their name starts a fresh one; so one fresh shared_name per call leaves neither a thread nor an
entry behind each. At most MAX_RESOURCES resources live at once (busy ones are never released): a
new one beyond that is refused with a BatchingError naming it. `close_all()` closes every resource
and every `batch_function` scheduler (a later call starts fresh resources). At interpreter exit,
once the main thread ends, no new batching work is accepted and batches already formed run at once
(as concurrent.futures does), so threads still waiting finish; then everything is closed.
"""

from __future__ import annotations

import atexit
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from codegen.runtime.batching.errors import BatchingClosedError, BatchingError

#: How long interpreter exit waits for batches in flight before failing their callers.
EXIT_TIMEOUT_S = 2.0
#: Idle resources kept for reuse; beyond, the least recently used idle ones are released.
MAX_IDLE_RESOURCES = 64
#: Resources (Batch, Unbatch and UnbatchGrad, all containers and devices) live at once.
MAX_RESOURCES = 4096
#: How many times a call looks its resource up again when a new resource released it meanwhile.
_RELEASED_RETRIES = 8


class Resource(Protocol):
    @property
    def closed(self) -> bool: ...

    @property
    def released(self) -> bool: ...

    @property
    def idle(self) -> bool: ...

    def close(self, timeout: float = ...) -> None: ...

    def release_if_idle(self) -> bool: ...


R = TypeVar("R", bound=Resource)


class Releasable:
    """closed, released, idle and release_if_idle, over a subclass's `_lock`, `_closed`,
    `_idle_locked()` (nothing queued, running, waiting or parked) and `_stop_locked()` (closing,
    under the lock, when idle)."""

    _lock: threading.Lock
    _closed: bool
    _released = False

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def released(self) -> bool:
        """Closed by release_if_idle (not by close): a call that finds it so may start a fresh one."""
        return self._released

    @property
    def idle(self) -> bool:
        with self._lock:
            return self._idle_locked()

    def release_if_idle(self) -> bool:
        """Closes it if it is idle, atomically with its calls (a later call finds it closed and
        released). Returns whether it did."""
        with self._lock:
            if self._closed or not self._idle_locked():
                return False
            self._released = True
            self._stop_locked()
            return True

    def _idle_locked(self) -> bool:
        raise NotImplementedError

    def _stop_locked(self) -> None:
        raise NotImplementedError

_lock = threading.Lock()
_resources: OrderedDict[tuple[Any, ...], Any] = OrderedDict()  # least recently used first
_exiting = False  # no new resources at all
_draining = False  # no new schedulers (the main thread has ended)


def device_key(backend: Any) -> tuple[str, int]:
    """Which device a backend runs on: tensors of different devices are never batched together."""
    return str(getattr(backend, "name", type(backend).__name__)), int(getattr(backend, "index", 0) or 0)


def describe(kind: str, container: str, shared_name: str) -> str:
    return f"{kind} (container {container!r}, shared_name {shared_name!r})"


def lookup(kind: str, backend: Any, container: str, shared_name: str, create: Callable[[str], R],
           schedules: bool = False) -> R:
    """The live resource of this kind and name on the backend's device, created on first use:
    `create(description)` (`schedules`: the resource runs a scheduler)."""
    name = shared_name or kind
    key = (kind, device_key(backend), container, name)
    with _lock:
        resource = _resources.get(key)
        if resource is not None and not resource.closed:
            _resources.move_to_end(key)
            return resource
        if _exiting or (schedules and _draining):
            raise BatchingClosedError(f"{kind}: the interpreter is exiting; no new batching work is accepted")
        _resources.pop(key, None)
        _release_idle_locked()
        if len(_resources) >= MAX_RESOURCES:
            raise BatchingError(f"{describe(kind, container, name)}: {len(_resources)} live batching resources, the "
                                f"most there may be (registry.MAX_RESOURCES = {MAX_RESOURCES}), and none idle: give "
                                f"calls fewer distinct shared_names, or close_all()")
        resource = _resources[key] = create(describe(kind, container, name))
        return resource


def _release_idle_locked() -> None:
    """Before a new resource starts: closes and forgets the least recently used idle resources, so
    that with the new one at most MAX_IDLE_RESOURCES are idle (and the closed ones). A resource's
    release_if_idle is atomic with its own calls: a call that had looked it up just before finds it
    closed and `released`, and looks it up again (with_resource)."""
    idle = [key for key, r in _resources.items() if r.closed or r.idle]
    excess = len(idle) - (MAX_IDLE_RESOURCES - 1)
    for key in idle:
        resource = _resources[key]
        if resource.closed:
            del _resources[key]
        elif excess > 0 and resource.release_if_idle():
            del _resources[key]
            excess -= 1


T = TypeVar("T")


def with_resource(kind: str, backend: Any, container: str, shared_name: str, create: Callable[[str], R],
                  use: Callable[[R], T], schedules: bool = False) -> T:
    """use(the live resource) (lookup's); when the resource was released between the lookup and its
    use (use raised BatchingClosedError for a released resource), a fresh one is looked up."""
    for attempt in range(_RELEASED_RETRIES + 1):
        resource = lookup(kind, backend, container, shared_name, create, schedules)
        try:
            return use(resource)
        except BatchingClosedError:
            if not resource.released or attempt == _RELEASED_RETRIES:
                raise
    raise AssertionError("unreachable")


def find(kind: str, backend: Any, container: str, shared_name: str) -> Any:
    """The live resource of this kind and name on the backend's device, or None (no creation)."""
    with _lock:
        resource = _resources.get((kind, device_key(backend), container, shared_name or kind))
    return None if resource is None or resource.closed else resource


def close_all(timeout: float = 5.0) -> None:
    """Closes every batching resource and batch_function scheduler: batches already formed are
    completed within `timeout` seconds, every other waiting call fails with BatchingClosedError.
    Later calls start new resources."""
    from codegen.runtime.batching.scheduler import close_schedulers, live_schedulers

    with _lock:
        resources = list(_resources.values())
        _resources.clear()
    # schedulers first (their batches may still feed the rendezvous), then the rendezvous
    close_schedulers(live_schedulers(), timeout)
    for resource in resources:
        resource.close(timeout)


def _drain_at_exit() -> None:
    """When the main thread ends (before Python waits for the other non-daemon threads): no new
    tasks; batches already formed run at once, so callers still waiting finish instead of holding
    up the exit until their batch times out. Rendezvous stay open for them until the real exit."""
    from codegen.runtime.batching.scheduler import close_schedulers, live_schedulers

    global _draining
    with _lock:
        _draining = True
    close_schedulers(live_schedulers(), EXIT_TIMEOUT_S)


def _at_exit() -> None:
    global _exiting
    with _lock:
        _exiting = True
    close_all(EXIT_TIMEOUT_S)


# threading._register_atexit is what concurrent.futures uses for the same purpose
_register_thread_exit = getattr(threading, "_register_atexit", None)
if _register_thread_exit is not None:
    _register_thread_exit(_drain_at_exit)
atexit.register(_at_exit)
