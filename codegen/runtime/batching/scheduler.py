"""The batch scheduler behind the Batch op and `batch_function`.

Callers on many threads submit tasks (a task is some rows: the dim-0 slices of one call's tensors).
Tasks join the open batch of their queue in arrival order; a batch closes when it holds
`max_batch_size` rows, when the next task does not fit, when the next task's tensors cannot be
concatenated with it (another dtype or trailing shape), or when a free worker finds that
`batch_timeout_micros` have passed since its first task. `num_batch_threads` worker threads process
closed batches, so that many batches are in flight at once; at most `max_enqueued_batches` batches
(the open one included) wait per queue, and a task that would need one more is refused with
`QueueFullError` at once. This is TensorFlow's shared batch scheduler (a timed-out batch keeps
accepting tasks while every worker is busy, up to max_batch_size).

Workers start on demand: work that no idle worker can take starts one, up to num_batch_threads,
and a worker idle for `WORKER_IDLE_EXIT_S` exits, so an unused batcher holds no thread. The attrs
that size resources have upper bounds (`MAX_BATCH_THREADS`, `MAX_BATCH_SIZE`,
`MAX_ENQUEUED_BATCHES`), checked by `make_config` before anything starts; any int64 timeout works
(waits are sliced, never one wait past `threading.TIMEOUT_MAX`). A padded batch holds at most
`MAX_BATCH_BYTES` bytes: a task whose own padded batch would hold more is refused at submit
(`BatchTooLargeError`, nothing enqueued), and a task that would take an open batch past it starts
the next batch instead, so no batch is ever allocated past the bound.

The owner supplies `process(batch)`: it runs on a worker thread, builds the batch's result and
returns `assign(live_tasks)`, which hands each task still waiting its part (an exception in either
goes to every caller of the batch). Waits are bounded: callers wait in slices so an interrupt is
noticed, a caller that is interrupted leaves its batch (if the batch has not started) or gives up
its result, and `close()` completes what it can within its timeout and fails the rest with
`BatchingClosedError`.
"""

from __future__ import annotations

import _thread
import copy
import itertools
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from codegen.runtime.batching.errors import BatchingClosedError, BatchingError, BatchTooLargeError, QueueFullError
from codegen.runtime.batching.registry import Releasable
from codegen.runtime.checks import check_int, check_int_list

#: Task states. A task is QUEUED in an open or closed batch, CLAIMED once a worker took its batch,
#: DONE once it has its result or error, CANCELLED when its caller gave up.
QUEUED, CLAIMED, DONE, CANCELLED = range(4)

#: Longest single blocking wait of a caller: waits are sliced so interrupts are noticed promptly.
WAIT_SLICE_S = 0.5
#: Longest single wait of a worker (it is also woken by new batches and by close()); longer waits,
#: such as a batch_timeout_micros of years, are sliced: one lock wait past threading.TIMEOUT_MAX
#: raises OverflowError.
IDLE_WAIT_S = 5.0
#: A worker with no batch to run or watch for this long exits; the next batch starts one again.
WORKER_IDLE_EXIT_S = 30.0

#: Upper bounds of the attrs that size a batcher's resources (worker threads; rows one batch is
#: padded to; batches queued), checked by make_config before anything starts. specs/batching/batch.yaml
#: declares the same `max` (a test keeps them equal).
MAX_BATCH_THREADS = 1024
MAX_BATCH_SIZE = 2**20
MAX_ENQUEUED_BATCHES = 2**20
#: Bytes one padded batch may hold, over all its tensors (the rows of max_batch_size bound the
#: padding in rows; this, in bytes: one 8 KiB row padded to 2**20 rows would be 8 GiB).
MAX_BATCH_BYTES = 2**32

_monotonic = time.monotonic


@dataclass(frozen=True)
class BatchConfig:
    """A scheduler's parameters, validated by `make_config`."""

    num_batch_threads: int
    max_batch_size: int
    batch_timeout_micros: int
    max_enqueued_batches: int = 10
    allowed_batch_sizes: tuple[int, ...] = ()

    def padded_size(self, rows: int) -> int:
        """The smallest allowed batch size that holds `rows` (rows itself when none are given)."""
        for size in self.allowed_batch_sizes:
            if size >= rows:
                return size
        return rows

    def text(self) -> str:
        return (f"num_batch_threads={self.num_batch_threads}, max_batch_size={self.max_batch_size}, "
                f"batch_timeout_micros={self.batch_timeout_micros}, "
                f"max_enqueued_batches={self.max_enqueued_batches}, "
                f"allowed_batch_sizes={list(self.allowed_batch_sizes)}")


def make_config(owner: str, num_batch_threads: Any, max_batch_size: Any, batch_timeout_micros: Any,
                max_enqueued_batches: Any = 10, allowed_batch_sizes: Any = ()) -> BatchConfig:
    """Checks the parameters (types, ranges up to the MAX_* bounds, and that allowed_batch_sizes is
    strictly increasing and ends with max_batch_size, as TensorFlow requires); errors start with `owner`."""
    threads = check_int(owner, "num_batch_threads", num_batch_threads, 1, MAX_BATCH_THREADS)
    largest = check_int(owner, "max_batch_size", max_batch_size, 1, MAX_BATCH_SIZE)
    timeout = check_int(owner, "batch_timeout_micros", batch_timeout_micros, 0)
    enqueued = check_int(owner, "max_enqueued_batches", max_enqueued_batches, 1, MAX_ENQUEUED_BATCHES)
    sizes = check_int_list(owner, "allowed_batch_sizes", () if allowed_batch_sizes is None else allowed_batch_sizes,
                           1, MAX_BATCH_SIZE)
    for before, after in itertools.pairwise(sizes):
        if after <= before:
            raise ValueError(f"{owner}: attr allowed_batch_sizes: expected strictly increasing sizes ending with "
                             f"max_batch_size={largest}, got {list(sizes)} ({after} follows {before})")
    if sizes and sizes[-1] != largest:
        raise ValueError(f"{owner}: attr allowed_batch_sizes: expected strictly increasing sizes ending with "
                         f"max_batch_size={largest}, got {list(sizes)} (the last is {sizes[-1]})")
    return BatchConfig(threads, largest, timeout, enqueued, sizes)


def caller_error(error: BaseException) -> BaseException:
    """The exception one caller raises for a batch's shared exception: a copy, so that callers on
    many threads do not all extend one traceback (the original is its __cause__)."""
    if error.__traceback__ is None:  # made for this task alone (closed, ...)
        return error
    try:
        dup = copy.copy(error)
    except Exception:  # noqa: BLE001 -- an exception type that cannot be copied is raised as it is
        return error
    if type(dup) is not type(error):
        return error
    dup.__cause__ = error
    dup.__traceback__ = None
    return dup


class Task:
    """One call's rows. `key` says which tasks can share a batch (equal keys); `payload` is the
    owner's (the tensors); `row_bytes`, the bytes of one row over the tensors (equal for equal keys;
    0: not counted against MAX_BATCH_BYTES). The result or error is set by the scheduler; a sync
    caller waits on a private lock, an async caller gets `callback(task)` on the worker thread."""

    __slots__ = ("_callback", "_lock", "batch", "error", "key", "payload", "result", "row_bytes", "size", "state")

    def __init__(self, size: int, key: Any, payload: Any, callback: Callable[[Task], None] | None = None,
                 row_bytes: int = 0):
        self.size, self.key, self.payload, self.row_bytes = size, key, payload, row_bytes
        self.result: Any = None
        self.error: BaseException | None = None
        self.state = QUEUED
        self.batch: _Batch | None = None
        self._callback = callback
        if callback is None:
            self._lock = _thread.allocate_lock()
            self._lock.acquire()

    def wait(self, scheduler: BatchScheduler) -> Any:
        """Blocks until the task is done; returns its result or raises its error. An interrupt
        (KeyboardInterrupt, an exception from a signal handler) withdraws the task first."""
        lock = self._lock
        try:
            while not lock.acquire(True, WAIT_SLICE_S):
                pass
        except BaseException:
            scheduler.cancel(self)
            raise
        if self.error is not None:
            raise caller_error(self.error)
        return self.result

    def _wake(self) -> None:
        callback = self._callback
        if callback is None:
            self._lock.release()
            return
        try:
            callback(self)
        except Exception:  # noqa: BLE001 -- e.g. the caller's event loop is closed: nobody is left to tell
            pass


class _Batch:
    __slots__ = ("deadline", "key", "padded", "queue", "size", "tasks")

    def __init__(self, queue: _Queue, key: Any, deadline: float):
        self.queue, self.key, self.deadline = queue, key, deadline
        self.tasks: list[Task] = []
        self.size = 0
        self.padded = 0


class _Queue:
    __slots__ = ("name", "open", "ready")

    def __init__(self, name: str):
        self.name = name
        self.open: _Batch | None = None
        self.ready: deque[_Batch] = deque()


class _Worker:
    """A worker thread's own wake-up condition (on its scheduler's lock), so that new work wakes
    exactly one idle worker, and otherwise starts one; and the batch it runs."""

    __slots__ = ("batch", "thread", "wake")

    def __init__(self, lock: threading.Lock):
        self.wake = threading.Condition(lock)
        self.thread: threading.Thread | None = None
        self.batch: _Batch | None = None


#: Every scheduler not yet garbage: closed at interpreter exit.
_live: weakref.WeakSet[BatchScheduler] = weakref.WeakSet()
_live_lock = threading.Lock()


def live_schedulers() -> list[BatchScheduler]:
    with _live_lock:
        return list(_live)


class BatchScheduler(Releasable):
    """Batches tasks for one resource (a (container, shared_name) of the Batch op, or one
    batch_function). Worker threads start when work needs them and exit when idle."""

    def __init__(self, name: str, config: BatchConfig, process: Callable[[_Batch], Callable[[list[Task]], None]]):
        self.name, self.config = name, config
        self._process = process
        self._lock = threading.Lock()
        self._queues: dict[str, _Queue] = {}
        self._order: list[_Queue] = []
        self._next = 0  # round-robin position over the queues
        self._workers: list[_Worker] = []  # live workers; each removes itself when it exits
        self._idle: list[_Worker] = []  # workers waiting that nobody has woken yet
        self._spawned = 0
        self._in_flight: set[_Batch] = set()
        self._closed = False
        self._submitted = self._tasks = self._batches = self._rows = self._padded_rows = 0
        self._timeout_s = config.batch_timeout_micros / 1e6
        with _live_lock:
            _live.add(self)

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"{len(self._workers)} worker thread(s)"
        return f"<BatchScheduler {self.name} {state}: {self.config.text()}>"

    def _idle_locked(self) -> bool:  # (Releasable: no task is queued and no batch runs)
        return not self._in_flight and not self._has_work_locked()

    def _stop_locked(self) -> None:  # (Releasable: released when idle; the workers exit at once)
        self._stop_accepting_locked()

    def worker_threads(self) -> list[threading.Thread]:
        """The live worker threads (none while idle)."""
        with self._lock:
            return [w.thread for w in self._workers if w.thread is not None]

    # -- callers ---------------------------------------------------------------------------
    def submit(self, task: Task, queue: str = "") -> None:
        """Adds the task to its queue's open batch (or a new one). Raises QueueFullError when the
        queue already holds max_enqueued_batches batches, BatchingClosedError after close(), and
        BatchingError when no worker thread runs and none can be started (nothing is enqueued)."""
        config = self.config
        if task.size > config.max_batch_size:
            raise ValueError(f"{self.name}: a task of {task.size} rows is larger than "
                             f"max_batch_size={config.max_batch_size}")
        if self._batch_bytes(task, task.size) > MAX_BATCH_BYTES:
            raise self._too_large(task)
        with self._lock:
            if self._closed:
                raise BatchingClosedError(f"{self.name}: the batch scheduler is closed; no new tasks are accepted")
            q = self._queues.get(queue)
            if q is None:
                q = _Queue(queue)
            batch = q.open
            wake = False
            if batch is not None and (batch.size + task.size > config.max_batch_size or batch.key != task.key
                                      or self._batch_bytes(task, batch.size + task.size) > MAX_BATCH_BYTES):
                if len(q.ready) + 1 >= config.max_enqueued_batches:
                    raise self._queue_full(q)
                wake = True
            elif batch is None:
                if len(q.ready) >= config.max_enqueued_batches:
                    raise self._queue_full(q)
                wake = True
            # a task is enqueued only where a worker will run it: a failed start leaves nothing behind
            started = not self._workers and self._start_first_worker_locked()
            if q.name not in self._queues:
                self._queues[q.name] = q
                self._order.append(q)
            if wake and batch is not None:
                q.ready.append(batch)
                q.open = batch = None
            if batch is None:
                batch = q.open = _Batch(q, task.key, _monotonic() + self._timeout_s)
            batch.tasks.append(task)
            batch.size += task.size
            task.batch = batch
            self._submitted += 1
            if batch.size >= config.max_batch_size:
                q.ready.append(batch)
                q.open = None
                wake = True
            if wake and not started:  # (a worker just started looks for work first thing)
                self._wake_locked()

    def _batch_bytes(self, task: Task, rows: int) -> int:
        """Bytes of a batch of `rows` rows of the task's kind, padded."""
        return self.config.padded_size(rows) * task.row_bytes

    def _too_large(self, task: Task) -> BatchTooLargeError:
        padded = self.config.padded_size(task.size)
        why = "allowed_batch_sizes" if padded > task.size else "no padding"
        need = padded * task.row_bytes
        return BatchTooLargeError(
            f"{self.name}: a task of {task.size} row(s) of {task.row_bytes} bytes makes a batch of {padded} rows "
            f"({why}), {need} bytes ({need / 2**30:.1f} GiB), more than a batch may hold (MAX_BATCH_BYTES = "
            f"{MAX_BATCH_BYTES} bytes, {MAX_BATCH_BYTES / 2**30:.1f} GiB); the task was not enqueued: use smaller "
            f"allowed_batch_sizes or rows")

    def _queue_full(self, q: _Queue) -> QueueFullError:
        queue = f" (batching_queue {q.name!r})" if q.name else ""
        return QueueFullError(f"{self.name}: the batch queue{queue} is full: {self.config.max_enqueued_batches} "
                              f"batches are already waiting (max_enqueued_batches={self.config.max_enqueued_batches}); "
                              f"the task was not enqueued, retry later or raise max_enqueued_batches")

    def cancel(self, task: Task) -> None:
        """The caller gave up: a task still queued leaves its batch; a claimed one gets no result."""
        with self._lock:
            if task.state == QUEUED and task.batch is not None:
                batch = task.batch
                batch.tasks.remove(task)
                batch.size -= task.size
                if not batch.tasks:
                    q = batch.queue
                    if q.open is batch:
                        q.open = None
                    elif batch in q.ready:
                        q.ready.remove(batch)
                    self._drop_if_empty_locked(q)
            if task.state in (QUEUED, CLAIMED):
                task.state = CANCELLED

    def queued_tasks(self) -> int:
        """Tasks waiting in batches that no worker has taken yet."""
        with self._lock:
            return sum(len(b.tasks) for q in self._order for b in (*q.ready, *((q.open,) if q.open else ())))

    def stats(self) -> dict[str, float]:
        """Counters since start: tasks submitted, tasks and rows processed, batches, padding rows,
        mean batch size."""
        with self._lock:
            batches = self._batches
            return {"submitted": self._submitted, "tasks": self._tasks, "batches": batches, "rows": self._rows,
                    "padded_rows": self._padded_rows,
                    "mean_batch_size": self._rows / batches if batches else 0.0,
                    "mean_tasks_per_batch": self._tasks / batches if batches else 0.0}

    # -- workers ---------------------------------------------------------------------------
    def _start_worker_locked(self) -> None:
        """Starts one worker thread; it is registered only once it runs (Thread.start may raise)."""
        worker = _Worker(self._lock)
        thread = threading.Thread(target=self._work, args=(worker,), name=f"opgen-batch {self.name} #{self._spawned}",
                                  daemon=True)
        thread.start()  # the thread waits for the lock, which is held here, before it looks at anything
        worker.thread = thread
        self._spawned += 1
        self._workers.append(worker)

    def _start_first_worker_locked(self) -> bool:
        try:
            self._start_worker_locked()
        except Exception as exc:
            raise BatchingError(f"{self.name}: could not start a worker thread ({type(exc).__name__}: {exc}); the "
                                f"task was not enqueued") from exc
        return True

    def _wake_locked(self) -> None:
        """There is work: wake an idle worker, else start one if fewer than num_batch_threads run
        (else a busy worker takes it when it is done)."""
        if self._idle:
            self._idle.pop().wake.notify()
        elif not self._closed and len(self._workers) < self.config.num_batch_threads:
            try:
                self._start_worker_locked()
            except Exception:  # noqa: BLE001 -- the workers already running take the work when free
                pass

    def _has_work_locked(self) -> bool:
        return any(q.ready or q.open is not None for q in self._order)

    def _work(self, worker: _Worker) -> None:
        with self._lock:
            try:
                self._serve_locked(worker)
            finally:
                self._workers.remove(worker)
                if worker in self._idle:
                    self._idle.remove(worker)

    def _serve_locked(self, worker: _Worker) -> None:
        """A worker's loop (the lock held except while a batch runs): take a batch and run it, or
        wait for one; exit on close or after WORKER_IDLE_EXIT_S with no batch to run or watch."""
        lock = self._lock
        idle_since = _monotonic()
        while True:
            batch = self._take_locked()
            if batch is None:
                if self._closed:
                    return
                wait = self._wait_time_locked()
                if wait is None:  # no open batch to watch
                    wait = idle_since + WORKER_IDLE_EXIT_S - _monotonic()
                    if wait <= 0:
                        return
                self._idle.append(worker)
                worker.wake.wait(min(wait, IDLE_WAIT_S))
                if worker in self._idle:
                    self._idle.remove(worker)
                continue
            if self._has_work_locked():  # what is left needs a worker to run or watch it
                self._wake_locked()
            self._in_flight.add(batch)
            worker.batch = batch
            lock.release()
            try:
                self._run(batch)
            finally:
                lock.acquire()
                self._in_flight.discard(batch)
                worker.batch = None
            idle_since = _monotonic()

    def _take_locked(self) -> _Batch | None:
        """A closed batch (round-robin over the queues), else an open batch whose timeout has passed
        (any open batch once closing)."""
        order = self._order
        n = len(order)
        batch = None
        for k in range(n):
            q = order[(self._next + k) % n]
            if q.ready:
                batch = q.ready.popleft()
                break
        else:
            now = _monotonic()
            for k in range(n):
                q = order[(self._next + k) % n]
                if q.open is not None and (self._closed or now >= q.open.deadline):
                    batch, q.open = q.open, None
                    break
        if batch is None:
            return None
        self._next = (self._next + k + 1) % n
        self._drop_if_empty_locked(q)
        for task in batch.tasks:
            task.state = CLAIMED
        batch.padded = self.config.padded_size(batch.size)
        self._tasks += len(batch.tasks)
        self._batches += 1
        self._rows += batch.size
        self._padded_rows += batch.padded - batch.size
        return batch

    def _drop_if_empty_locked(self, q: _Queue) -> None:
        """A queue lives only while it holds batches: batching_queue names come and go, and every
        take scans the queues."""
        if q.ready or q.open is not None or self._queues.get(q.name) is not q:
            return
        i = self._order.index(q)
        del self._order[i]
        del self._queues[q.name]
        if self._next > i:
            self._next -= 1
        if self._next >= len(self._order):
            self._next = 0

    def _wait_time_locked(self) -> float | None:
        """Seconds until the first open batch times out; None when there is none."""
        now = _monotonic()
        waits = [q.open.deadline - now for q in self._order if q.open is not None]
        return max(0.0, min(waits)) if waits else None

    def _run(self, batch: _Batch) -> None:
        error: BaseException | None = None
        assign = None
        try:
            assign = self._process(batch)
        except BaseException as exc:  # noqa: BLE001 -- whatever it is, every caller of the batch gets it
            error = exc
        with self._lock:
            live = [t for t in batch.tasks if t.state == CLAIMED]
            for task in live:
                task.state = DONE
        if error is None and live and assign is not None:
            try:
                assign(live)
            except BaseException as exc:  # noqa: BLE001 -- as above
                error = exc
        for task in live:
            if error is not None:
                task.error = error
            task._wake()

    # -- lifecycle -------------------------------------------------------------------------
    def _stop_accepting_locked(self) -> None:
        self._closed = True
        for worker in self._idle:  # they finish what is queued, then exit
            worker.wake.notify()
        self._idle.clear()

    def close(self, timeout: float = 5.0) -> None:
        """Stops accepting tasks; the workers finish the batches already formed (open ones at once)
        for up to `timeout` seconds; every task not completed by then fails with
        BatchingClosedError. Safe to call twice, and from a batch's own function: that batch (the
        one the calling worker runs) completes as usual, only later calls fail."""
        me = threading.current_thread()
        with self._lock:
            self._stop_accepting_locked()
            threads = [w.thread for w in self._workers if w.thread is not None]
            own = {w.batch for w in self._workers if w.thread is me and w.batch is not None}
        deadline = _monotonic() + timeout
        for thread in threads:
            if thread is not me:  # (timeout=inf waits for good: one join past TIMEOUT_MAX raises OverflowError)
                thread.join(min(max(0.0, deadline - _monotonic()), threading.TIMEOUT_MAX))
        failed: list[Task] = []
        with self._lock:
            for q in self._order:
                batches = [*q.ready, *((q.open,) if q.open is not None else ())]
                q.ready.clear()
                q.open = None
                failed += [t for b in batches for t in b.tasks if t.state == QUEUED]
            failed += [t for b in self._in_flight if b not in own for t in b.tasks if t.state == CLAIMED]
            for task in failed:
                task.state = DONE
                task.error = BatchingClosedError(f"{self.name}: the batch scheduler was closed before this task's "
                                                 f"batch completed")
        for task in failed:
            task._wake()


def close_schedulers(schedulers: Sequence[BatchScheduler], timeout: float) -> None:
    """Closes several schedulers within one overall timeout (all stop accepting at once)."""
    for scheduler in schedulers:
        with scheduler._lock:
            scheduler._stop_accepting_locked()
    deadline = _monotonic() + timeout
    for scheduler in schedulers:
        scheduler.close(max(0.0, deadline - _monotonic()))
