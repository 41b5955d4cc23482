"""The runtime functions of the Batch, Unbatch and UnbatchGrad ops (specs/batching/).

The generated wrappers check every attr and input (types, ranges, dtypes, ranks, that all of
Batch's in_tensors share dim 0), then call these with the checked values and the scope's backend.
Tensors stay in their array module: NumPy on the cpu backend, CuPy on the cuda backend, where
concatenation and padding run on the device. batch_index and id are read on the host.

- `batch`: each call is a task with a fresh unique id; tasks of one (container, shared_name) are
  batched by a `BatchScheduler`. The last live task of each batch receives the concatenation of every
  task's tensors in enqueue order, padded to the smallest allowed batch size by repeating the first
  row of the first task, and batch_index rows (id, start, end) (end exclusive, padding excluded);
  every other task receives dim-0-empty tensors and an empty [0, 3] batch_index.
- `unbatch`: the call holding the batch splits it by batch_index; each call waits (up to
  timeout_micros) for the rows of its own id.
- `unbatch_grad`: every call deposits its grad under its id; the call holding the batch waits for the
  grads of every id of its batch_index and returns them in batch order (rows of the batch that no
  id covers, the padding, get zeros; TensorFlow leaves them out, which is shorter than the padded
  batch whenever padding was added).
"""

from __future__ import annotations

import itertools
import secrets
import threading
import time
from collections import OrderedDict
from typing import Any

import numpy as np

from codegen.runtime.arrays import array_module, device_scope, to_host
from codegen.runtime.batching import registry
from codegen.runtime.batching.arrays import concat_rows, empty_index, int64_array, row_bytes
from codegen.runtime.batching.errors import BatchingClosedError, DeadlineExceededError, DuplicateIdError
from codegen.runtime.batching.scheduler import DONE, WAIT_SLICE_S, BatchConfig, BatchScheduler, Task, make_config

#: How long the call of UnbatchGrad holding a batch waits for the other calls' grads (the op has no
#: timeout attr; TensorFlow waits without limit). Deposited grads nobody asks for expire as late.
UNBATCH_GRAD_TIMEOUT_S = 60.0
#: How often the rendezvous drop pieces whose deadline passed.
_PURGE_INTERVAL_S = 0.1

_ids = itertools.count(secrets.randbits(62))
_id_lock = threading.Lock()


def new_id() -> int:
    """A fresh id: unique within the process, a random start so ids differ between runs."""
    with _id_lock:
        return next(_ids)


def set_unbatch_grad_timeout(seconds: float) -> float:
    """Sets how long UnbatchGrad's batch holder waits for the other grads; returns the old value."""
    global UNBATCH_GRAD_TIMEOUT_S
    if not seconds > 0:
        raise ValueError(f"set_unbatch_grad_timeout: expected seconds > 0, got {seconds!r}")
    old, UNBATCH_GRAD_TIMEOUT_S = UNBATCH_GRAD_TIMEOUT_S, float(seconds)
    return old


class _EmptyIds:
    """Ids of Batch calls with zero rows: they are in no batch, so Unbatch returns their (empty)
    piece at once instead of waiting for a piece that never comes. Bounded (oldest dropped)."""

    def __init__(self, limit: int = 65536):
        self._ids: OrderedDict[int, None] = OrderedDict()
        self._limit = limit
        self._lock = threading.Lock()

    def add(self, key: int) -> None:
        with self._lock:
            self._ids[key] = None
            if len(self._ids) > self._limit:
                self._ids.popitem(last=False)

    def __contains__(self, key: int) -> bool:
        return key in self._ids  # (a dict lookup: atomic)


_empty_ids = _EmptyIds()


# -- Batch ---------------------------------------------------------------------------------------
_configs: dict[tuple[Any, ...], BatchConfig] = {}


def _config(op: str, *values: Any) -> BatchConfig:
    """make_config, memoised: the wrapper already checked types and ranges, and calls repeat."""
    config = _configs.get(values)
    if config is None:
        config = make_config(op, *values)
        if len(_configs) < 4096:
            _configs[values] = config
    return config


class BatchResource:
    """The scheduler of one (device, container, shared_name) of the Batch op."""

    def __init__(self, name: str, config: BatchConfig):
        self.name, self.config = name, config
        self.scheduler = BatchScheduler(name, config, _process_batch)

    @property
    def closed(self) -> bool:
        return self.scheduler.closed

    @property
    def released(self) -> bool:
        return self.scheduler.released

    @property
    def idle(self) -> bool:
        return self.scheduler.idle

    def release_if_idle(self) -> bool:
        return self.scheduler.release_if_idle()

    def close(self, timeout: float = 5.0) -> None:
        self.scheduler.close(timeout)


def _process_batch(batch: Any) -> Any:
    """Worker thread: concatenate (and pad) every task's tensors; the last live task receives them."""
    tasks: list[Task] = batch.tasks
    first = tasks[0].payload[1]
    with device_scope(first[0]):
        batched = [concat_rows([t.payload[1][i] for t in tasks], batch.padded) for i in range(len(first))]

    def assign(live: list[Task]) -> None:
        rows, start = [], 0
        for task in tasks:
            if task.state == DONE:  # a task whose caller gave up has rows in the batch but no index row
                rows.append((task.payload[0], start, start + task.size))
            start += task.size
        index = int64_array(first[0], rows)
        live[-1].result = (batched, index)

    return assign


def batch(op: str, backend: Any, *, in_tensors: list[Any], num_batch_threads: int, max_batch_size: int,
          max_enqueued_batches: int, batch_timeout_micros: int, allowed_batch_sizes: tuple[int, ...],
          grad_timeout_micros: int, container: str, shared_name: str, batching_queue: str) -> tuple[Any, Any, Any]:
    """Batch: (batched_tensors, batch_index, id). grad_timeout_micros is TensorFlow's timeout for the
    gradient of Batch (an Unbatch); this runtime keeps it as an attr and does not use it."""
    config = _config(op, num_batch_threads, max_batch_size, batch_timeout_micros, max_enqueued_batches,
                     allowed_batch_sizes)
    first = in_tensors[0]
    rows = int(first.shape[0])
    if rows > config.max_batch_size:
        raise ValueError(f"{op}: in_tensors: a task of {rows} rows is larger than max_batch_size="
                         f"{config.max_batch_size}; split it or raise max_batch_size")
    task_id = new_id()
    if rows == 0:  # no rows to batch: empty outputs at once
        _empty_ids.add(task_id)
        return [t[:0] for t in in_tensors], empty_index(first), int64_array(first, task_id)
    key = tuple((type(t), t.shape[1:], t.dtype) for t in in_tensors)
    task = Task(rows, key, (task_id, in_tensors), row_bytes=row_bytes(in_tensors))

    def submit(resource: BatchResource) -> BatchScheduler:
        if resource.config != config:
            raise ValueError(f"{op}: {resource.name} is already batching with {resource.config.text()}; this call "
                             f"asks for {config.text()}: give it its own shared_name")
        resource.scheduler.submit(task, batching_queue)
        return resource.scheduler

    scheduler = registry.with_resource(op, backend, container, shared_name, lambda name: BatchResource(name, config),
                                       submit, schedules=True)
    result = task.wait(scheduler)
    if result is None:
        return [t[:0] for t in in_tensors], empty_index(first), int64_array(first, task_id)
    batched, index = result
    return batched, index, int64_array(first, task_id)


# -- rendezvous helpers --------------------------------------------------------------------------
def _scalar_id(value: Any) -> int:
    return int(to_host(value).reshape(()))


def _index_rows(op: str, batch_index: Any, rows: int, tensor: str) -> list[tuple[int, int, int]]:
    """batch_index as (id, start, end) rows, checked against the tensor's `rows`: inside it, not
    overlapping, each id once."""
    index = to_host(batch_index)
    out: list[tuple[int, int, int]] = [(int(i), int(s), int(e)) for i, s, e in index.tolist()]
    seen: dict[int, int] = {}
    for k, (key, start, end) in enumerate(out):
        if not 0 <= start <= end <= rows:
            raise ValueError(f"{op}: batch_index: row {k} (id {key}, start {start}, end {end}) does not fit "
                             f"{tensor}, which has {rows} rows: batch_index does not match the tensor")
        if key in seen:
            raise DuplicateIdError(f"{op}: batch_index: id {key} appears twice (rows {seen[key]} and {k})")
        seen[key] = k
    spans = sorted((s, e, k) for k, (_, s, e) in enumerate(out) if e > s)
    for (_, end_a, a), (start_b, _, b) in itertools.pairwise(spans):
        if start_b < end_a:
            raise ValueError(f"{op}: batch_index: rows {a} and {b} overlap: batch_index does not match the tensor")
    return out


class _Waiter:
    __slots__ = ("error", "lock", "value")

    def __init__(self) -> None:
        self.value: Any = None
        self.error: BaseException | None = None
        self.lock = _new_locked()


def _new_locked() -> Any:
    lock = threading.Lock()
    lock.acquire()
    return lock


def _wait(lock: Any, deadline: float) -> bool:
    """Waits for `lock` to be released, in slices, until `deadline` (monotonic seconds)."""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return lock.acquire(False)
        if lock.acquire(True, min(left, WAIT_SLICE_S)):
            return True


class _Rendezvous(registry.Releasable):
    """State shared by the Unbatch and UnbatchGrad resources: a lock, pieces parked under an id until
    their deadline, and close()."""

    def __init__(self, name: str):
        self.name = name
        self._lock = threading.Lock()
        self._parked: dict[int, tuple[float, Any]] = {}
        self._next_purge = 0.0
        self._closed = False

    def _idle_locked(self) -> bool:  # (Releasable: nobody waits, nothing parked that has not expired)
        self._purge_locked(time.monotonic())
        return not self._parked and not self._waiters_locked()

    def _waiters_locked(self) -> bool:
        raise NotImplementedError

    def _stop_locked(self) -> None:  # (Releasable: idle, so nobody to fail)
        self._closed = True

    def _purge_locked(self, now: float) -> None:
        if now < self._next_purge:
            return
        self._next_purge = now + _PURGE_INTERVAL_S
        for key in [k for k, (deadline, _) in self._parked.items() if deadline <= now]:
            del self._parked[key]

    def _check_open_locked(self, op: str) -> None:
        if self._closed:
            raise BatchingClosedError(f"{op}: {self.name} is closed")

    def _fail_all_locked(self) -> list[_Waiter]:
        raise NotImplementedError

    def close(self, timeout: float = 5.0) -> None:
        """Fails every waiting call with BatchingClosedError and drops parked pieces."""
        with self._lock:
            self._closed = True
            self._parked.clear()
            waiters = self._fail_all_locked()
        for waiter in waiters:
            waiter.error = BatchingClosedError(f"{self.name} was closed while this call waited")
            waiter.lock.release()


# -- Unbatch -------------------------------------------------------------------------------------
class UnbatchResource(_Rendezvous):
    def __init__(self, name: str):
        super().__init__(name)
        self._waiting: dict[int, _Waiter] = {}

    def _fail_all_locked(self) -> list[_Waiter]:
        waiters = list(self._waiting.values())
        self._waiting.clear()
        return waiters

    def _waiters_locked(self) -> bool:
        return bool(self._waiting)

    def exchange(self, op: str, key: int, pieces: list[tuple[int, Any]], timeout_s: float, timeout_micros: int) -> Any:
        """Hands out `pieces` (id, rows) and returns the piece of `key`, waiting for it if needed."""
        now = time.monotonic()
        deadline = now + timeout_s
        deliver: list[_Waiter] = []
        waiter = None
        with self._lock:
            self._check_open_locked(op)
            self._purge_locked(now)
            if key in self._waiting:
                raise DuplicateIdError(f"{op}: id {key}: another {op} call with this id is already waiting "
                                       f"(duplicate id)")
            for piece_id, _ in pieces:
                if piece_id != key and piece_id not in self._waiting and piece_id in self._parked:
                    raise DuplicateIdError(f"{op}: batch_index: rows for id {piece_id} were already handed out by "
                                           f"another batch (duplicate id)")
            own = self._parked.pop(key, (0.0, None))[1]
            for piece_id, piece in pieces:
                if piece_id == key:
                    own = piece
                    continue
                other = self._waiting.pop(piece_id, None)
                if other is not None:
                    other.value = piece
                    deliver.append(other)
                else:
                    self._parked[piece_id] = (deadline, piece)
            if own is None:
                waiter = self._waiting[key] = _Waiter()
        for other in deliver:
            other.lock.release()
        if waiter is None:
            return own
        if not _wait(waiter.lock, deadline):
            with self._lock:
                if self._waiting.get(key) is waiter:
                    del self._waiting[key]
                    raise DeadlineExceededError(
                        f"{op}: id {key}: its rows did not arrive within timeout_micros={timeout_micros}: the call "
                        f"that received the batch did not run {op} in time (or failed, or used another "
                        f"container/shared_name)")
            waiter.lock.acquire()  # delivered at the last moment: the release is under way
        if waiter.error is not None:
            raise waiter.error
        return waiter.value


def unbatch(op: str, backend: Any, *, batched_tensor: Any, batch_index: Any, id: Any, timeout_micros: int,
            container: str, shared_name: str) -> tuple[Any]:
    """Unbatch: (unbatched_tensor,), this call's rows of the batch."""
    key = _scalar_id(id)
    rows = int(batched_tensor.shape[0])
    holder = int(batch_index.shape[0]) > 0
    if not holder and rows:
        raise ValueError(f"{op}: batch_index is empty while batched_tensor has {rows} rows: only the call that "
                         f"received the batch passes a non-empty batched_tensor, with its batch_index")
    if not holder and key in _empty_ids:  # a Batch call with no rows: nothing will come
        return (batched_tensor[:0],)
    # copies, as TensorFlow's split makes: a piece does not change when the holder reuses its tensor
    pieces = [(k, batched_tensor[s:e].copy()) for k, s, e in _index_rows(op, batch_index, rows, "batched_tensor")] \
        if holder else []
    piece = registry.with_resource(op, backend, container, shared_name, UnbatchResource,
                                   lambda r: r.exchange(op, key, pieces, timeout_micros / 1e6, timeout_micros))
    return (piece,)


# -- UnbatchGrad ---------------------------------------------------------------------------------
class _Pending(_Waiter):
    """A batch holder waiting for grads: what it has and what it misses."""

    __slots__ = ("grads", "holder", "missing")

    def __init__(self, holder: int) -> None:
        super().__init__()
        self.holder = holder
        self.grads: dict[int, Any] = {}
        self.missing: set[int] = set()


class UnbatchGradResource(_Rendezvous):
    def __init__(self, name: str):
        super().__init__(name)
        self._pending: dict[int, _Pending] = {}  # holder id → its batch
        self._wanted: dict[int, _Pending] = {}  # missing id → the batch that wants it

    def _fail_all_locked(self) -> list[_Waiter]:
        waiters: list[_Waiter] = list(self._pending.values())
        self._pending.clear()
        self._wanted.clear()
        return waiters

    def _waiters_locked(self) -> bool:
        return bool(self._pending or self._wanted)

    def exchange(self, op: str, key: int, grad: Any, wanted: list[int] | None, timeout_s: float) -> dict[int, Any]:
        """Deposits `grad` under `key`; a holder (`wanted` = the ids of its batch_index) then waits
        for every wanted grad and gets them by id."""
        now = time.monotonic()
        deadline = now + timeout_s
        complete: _Pending | None = None
        pending = None
        with self._lock:
            self._check_open_locked(op)
            self._purge_locked(now)
            if key in self._parked or key in self._pending:
                raise DuplicateIdError(f"{op}: id {key}: a grad with this id was already given (duplicate id)")
            for wanted_id in wanted or ():
                if wanted_id != key and wanted_id not in self._parked and wanted_id in self._wanted:
                    raise DuplicateIdError(f"{op}: batch_index: id {wanted_id} is already wanted by the batch of id "
                                           f"{self._wanted[wanted_id].holder} (duplicate id)")
            other = self._wanted.pop(key, None)
            if other is not None:
                other.grads[key] = grad
                other.missing.discard(key)
                if not other.missing:
                    complete = other
                    del self._pending[other.holder]
            else:
                self._parked[key] = (deadline, grad)
            if wanted is not None:
                pending = _Pending(key)
                for wanted_id in wanted:
                    hit = self._parked.pop(wanted_id, None)
                    if hit is not None:
                        pending.grads[wanted_id] = hit[1]
                    else:
                        pending.missing.add(wanted_id)
                if pending.missing:
                    self._pending[key] = pending
                    for wanted_id in pending.missing:
                        self._wanted[wanted_id] = pending
        if complete is not None:
            complete.lock.release()
        if pending is None or not pending.missing:
            return pending.grads if pending is not None else {}
        if not _wait(pending.lock, deadline):
            with self._lock:
                if self._pending.get(key) is pending:
                    del self._pending[key]
                    for wanted_id in pending.missing:
                        self._wanted.pop(wanted_id, None)
                    missing = sorted(pending.missing)
                    raise DeadlineExceededError(
                        f"{op}: id {key}: the grads of id(s) {missing} did not arrive within {timeout_s:g} s "
                        f"(their calls did not run {op}, or used another container/shared_name)")
            pending.lock.acquire()
        if pending.error is not None:
            raise pending.error
        return pending.grads


def unbatch_grad(op: str, backend: Any, *, original_input: Any, batch_index: Any, grad: Any, id: Any,
                 container: str, shared_name: str) -> tuple[Any]:
    """UnbatchGrad: (batched_grad,): the batch's grads in batch order for the call holding the
    batch, an empty tensor for the others."""
    key = _scalar_id(id)
    rows = int(original_input.shape[0])
    holder = int(batch_index.shape[0]) > 0
    if not holder:
        if rows:
            raise ValueError(f"{op}: batch_index is empty while original_input has {rows} rows: only the call that "
                             f"received the batch passes a non-empty original_input, with its batch_index")
        if key not in _empty_ids:
            registry.with_resource(op, backend, container, shared_name, UnbatchGradResource,
                                   lambda r: r.exchange(op, key, grad, None, UNBATCH_GRAD_TIMEOUT_S))
        return (grad[:0],)
    if rows == 0:
        raise ValueError(f"{op}: batch_index has {int(batch_index.shape[0])} rows while original_input has none: "
                         f"batch_index does not match the tensor")
    index = _index_rows(op, batch_index, rows, "original_input")
    wanted = [k for k, _, _ in index]
    grads = registry.with_resource(op, backend, container, shared_name, UnbatchGradResource,
                                   lambda r: r.exchange(op, key, grad, wanted, UNBATCH_GRAD_TIMEOUT_S))
    xp = array_module(grad)
    pieces = []
    for k, start, end in index:
        piece = grads[k]
        if tuple(piece.shape) != (end - start, *grad.shape[1:]) or piece.dtype != grad.dtype:
            want = ", ".join(str(d) for d in (end - start, *grad.shape[1:]))
            got = ", ".join(str(d) for d in piece.shape)
            raise ValueError(f"{op}: grad of id {k}: expected shape [{want}] ({grad.dtype}) for its rows "
                             f"{start}..{end} of batch_index, got [{got}] ({piece.dtype})")
        pieces.append(piece if xp is np else xp.asarray(piece))
    return (concat_rows(pieces, 0),)  # the grads in batch_index order; Batch's padding rows have none
