"""The resources a batcher holds (issue 12 items 2, 3 and 8): any int64 timeout works (waits are
sliced, never one lock wait past threading.TIMEOUT_MAX), the attrs that size threads, padding and
queues have upper bounds checked before anything starts, worker threads start when work needs them
and exit when idle, and a worker thread that cannot start leaves nothing behind."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from batching_helpers import failures, fresh_name, run_threads, wait_until
from messages import assert_message

from codegen.runtime.batching import BatchingClosedError, BatchingError, batch_function, close_all, registry
from codegen.runtime.batching import scheduler as sched
from codegen.runtime.batching.scheduler import BatchScheduler, Task, close_schedulers, make_config
from generated import batch, unbatch

INT64_MAX = 2**63 - 1


@pytest.fixture(autouse=True)
def closed_after() -> Iterator[None]:
    yield
    close_all(timeout=5.0)


def rows(tag: int, n: int) -> np.ndarray:
    return (tag * 100 + np.arange(n, dtype=np.float64))[:, None] * np.ones(3)


def workers(fn: Any) -> list[threading.Thread]:
    return fn._scheduler.worker_threads()


def call_batch(scope: Any, name: str, x: np.ndarray, **attrs: Any) -> Any:
    kw: dict[str, Any] = {"num_batch_threads": 1, "max_batch_size": 8, "batch_timeout_micros": 2_000_000,
                          "grad_timeout_micros": 0, "shared_name": name} | attrs
    return batch([x], scope=scope, **kw)


def batch_resource(scope: Any, name: str) -> Any:
    return registry.find("Batch", scope.backend, "", name)


# -- item 2: huge timeouts ------------------------------------------------------------------------------
@pytest.mark.parametrize("timeout_micros", [10**16, INT64_MAX])  # past threading.TIMEOUT_MAX
def test_a_huge_batch_timeout_still_batches(timeout_micros: int) -> None:
    @batch_function(max_batch_size=2, batch_timeout_micros=timeout_micros)
    def double(x: np.ndarray) -> np.ndarray:
        return x * 2

    def call(i: int) -> np.ndarray:  # the second call once the first one waits in the open batch
        if i:
            wait_until(lambda: double.stats()["submitted"] == 1, what="first call enqueued")
        return double(rows(i, 1))

    results = run_threads(call, [(0,), (1,)], timeout=10.0)  # the worker died here, and both calls hung
    assert not failures(results)
    for i, result in enumerate(results):
        np.testing.assert_array_equal(result, rows(i, 1) * 2)
    assert double.stats()["batches"] == 1 and all(t.is_alive() for t in workers(double))


def test_batch_op_with_a_huge_timeout(device_scope: Any, to_host: Any) -> None:
    name = fresh_name()

    def call(i: int) -> Any:
        if i:
            wait_until(lambda: batch_resource(device_scope, name) is not None
                       and batch_resource(device_scope, name).scheduler.queued_tasks() == 1, what="first call queued")
        out = call_batch(device_scope, name, rows(i, 1), max_batch_size=2, batch_timeout_micros=INT64_MAX,
                         grad_timeout_micros=INT64_MAX)
        return unbatch(out.batched_tensors[0] * 2, out.batch_index, out.id, timeout_micros=INT64_MAX,
                       shared_name=name, scope=device_scope).unbatched_tensor

    results = run_threads(call, [(0,), (1,)], timeout=10.0)
    assert not failures(results)
    for i, result in enumerate(results):
        np.testing.assert_array_equal(to_host(result), rows(i, 1) * 2)


# -- item 3 and item 8: upper bounds, checked before anything starts --------------------------------
BOUNDS = [
    ({"num_batch_threads": 2**31 - 1}, "num_batch_threads", sched.MAX_BATCH_THREADS),
    ({"max_batch_size": 2**40, "allowed_batch_sizes": [2**40]}, "max_batch_size", sched.MAX_BATCH_SIZE),
    ({"allowed_batch_sizes": [4, 2**40]}, "allowed_batch_sizes[1]", sched.MAX_BATCH_SIZE),
    ({"max_enqueued_batches": 2**40}, "max_enqueued_batches", sched.MAX_ENQUEUED_BATCHES),
]
BOUND_IDS = ["threads", "batch-size", "allowed-size", "enqueued"]


def threads_named(prefix: str) -> int:
    return sum(t.name.startswith(prefix) for t in threading.enumerate())


@pytest.mark.parametrize("attrs, attr, bound", BOUNDS, ids=BOUND_IDS)
def test_batch_function_attrs_have_upper_bounds(attrs: dict[str, Any], attr: str, bound: int) -> None:
    before = threads_named("opgen-batch")
    start = time.monotonic()
    with pytest.raises(ValueError) as info:
        batch_function(**({"max_batch_size": 8, "batch_timeout_micros": 0} | attrs))(lambda x: x)
    assert time.monotonic() - start < 1.0
    assert_message(info, "batch_function", attr, f"<= {bound}")
    assert threads_named("opgen-batch") == before


@pytest.mark.parametrize("attrs, attr, bound", BOUNDS, ids=BOUND_IDS)
def test_batch_op_attrs_have_upper_bounds(device_scope: Any, attrs: dict[str, Any], attr: str, bound: int) -> None:
    name = fresh_name()
    before = threads_named("opgen-batch")
    with pytest.raises(ValueError) as info:  # a MemoryError from the padding before the bound
        call_batch(device_scope, name, rows(0, 1), batch_timeout_micros=0, **attrs)
    assert_message(info, "Batch", attr, f"<= {bound}")
    assert batch_resource(device_scope, name) is None and threads_named("opgen-batch") == before


def test_the_spec_declares_the_runtime_bounds() -> None:
    from codegen.cli import PROJECT
    from codegen.load import load_spec

    spec = load_spec(PROJECT / "specs" / "batching" / "batch.yaml", PROJECT / "specs")
    maxima = {a.name: a.maximum for a in spec.attrs}
    assert maxima["num_batch_threads"] == sched.MAX_BATCH_THREADS
    assert maxima["max_batch_size"] == maxima["allowed_batch_sizes"] == sched.MAX_BATCH_SIZE
    assert maxima["max_enqueued_batches"] == sched.MAX_ENQUEUED_BATCHES


def test_the_largest_accepted_sizes_start_nothing_up_front() -> None:
    f = batch_function(max_batch_size=sched.MAX_BATCH_SIZE, batch_timeout_micros=0,
                       num_batch_threads=sched.MAX_BATCH_THREADS,
                       max_enqueued_batches=sched.MAX_ENQUEUED_BATCHES)(lambda x: x + 1)
    assert workers(f) == []
    np.testing.assert_array_equal(f(rows(0, 2)), rows(0, 2) + 1)
    assert len(workers(f)) == 1  # not MAX_BATCH_THREADS: one call needs one worker


# -- item 3: worker threads on demand ---------------------------------------------------------------
def test_workers_start_when_work_needs_them() -> None:
    @batch_function(max_batch_size=4, batch_timeout_micros=0, num_batch_threads=8)
    def f(x: np.ndarray) -> np.ndarray:
        return x

    assert workers(f) == []  # none before the first call
    for i in range(5):  # one call at a time never needs a second worker
        np.testing.assert_array_equal(f(rows(i, 1)), rows(i, 1))
    assert len(workers(f)) == 1


def test_idle_workers_exit_and_restart_on_demand(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sched, "WORKER_IDLE_EXIT_S", 0.2)

    @batch_function(max_batch_size=1, batch_timeout_micros=0, num_batch_threads=2)
    def f(x: np.ndarray) -> np.ndarray:
        time.sleep(0.05)
        return x

    assert not failures(run_threads(lambda i: f(rows(i, 1)), [(i,) for i in range(4)]))
    threads = workers(f)
    assert 1 <= len(threads) <= 2
    wait_until(lambda: not workers(f), what="idle workers exited")
    for thread in threads:
        thread.join(5.0)
        assert not thread.is_alive()
    np.testing.assert_array_equal(f(rows(7, 1)), rows(7, 1))  # a new call starts a worker again
    assert len(workers(f)) == 1


def test_an_unused_batch_op_batcher_keeps_no_thread(device_scope: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sched, "WORKER_IDLE_EXIT_S", 0.2)
    name = fresh_name()
    call_batch(device_scope, name, rows(0, 1), batch_timeout_micros=0, num_batch_threads=4)
    resource = batch_resource(device_scope, name)
    wait_until(lambda: not resource.scheduler.worker_threads(), what="the idle batcher's worker exited")
    assert not resource.closed  # still registered and usable
    assert int(call_batch(device_scope, name, rows(1, 1), batch_timeout_micros=0,
                          num_batch_threads=4).batched_tensors[0].shape[0]) == 1


def test_an_open_batch_is_watched_while_another_runs() -> None:
    """A batch that becomes ready takes the worker that watched an open batch's deadline; another
    worker starts to watch it, so it still runs on time."""
    release = threading.Event()
    config = make_config("watch", 2, 2, 50_000)
    ran: list[str] = []

    def process(b: Any) -> Callable[[list[Task]], None]:
        ran.append(b.queue.name)
        if b.queue.name == "slow":
            release.wait(10.0)
        return lambda live: None

    scheduler = BatchScheduler("watch", config, process)
    try:
        timed = Task(1, "k", None)
        scheduler.submit(timed, "timed")  # open: runs when its 50 ms pass
        for _ in range(2):
            scheduler.submit(Task(1, "k", None), "slow")  # full: runs at once, and blocks
        start = time.monotonic()
        assert timed.wait(scheduler) is None
        assert time.monotonic() - start < 2.0 and not release.is_set()
    finally:
        release.set()
        scheduler.close()
    assert sorted(ran) == ["slow", "timed"]


def test_two_batches_ready_at_once_run_at_once() -> None:
    """One call can make two batches ready (the open one no longer fits, and its own is full): both
    run in parallel with num_batch_threads=2."""
    barrier = threading.Barrier(2, timeout=3.0)

    @batch_function(max_batch_size=2, batch_timeout_micros=60_000_000, num_batch_threads=2)
    def both(x: np.ndarray) -> np.ndarray:
        barrier.wait()  # raises BrokenBarrierError unless the other batch runs meanwhile
        return x

    def call(i: int) -> np.ndarray:
        if i:
            wait_until(lambda: both.stats()["submitted"] == 1, what="first call enqueued")
        return both(rows(i, 1 + i))

    results = run_threads(call, [(0,), (1,)], timeout=10.0)
    assert not failures(results)
    assert both.stats()["batches"] == 2


def test_a_queue_lives_only_while_it_holds_batches() -> None:
    """batching_queue names are the caller's: one name per call must not leave a queue per name
    behind (every take scans the queues), whether its batch ran or its only task was cancelled."""
    ran = BatchScheduler("ran", make_config("ran", 2, 2, 0), lambda b: lambda live: None)
    waiting = BatchScheduler("waiting", make_config("waiting", 1, 2, 60_000_000), lambda b: lambda live: None)
    try:
        for i in range(200):
            task = Task(1, "k", None)
            ran.submit(task, f"q{i}")
            task.wait(ran)
        cancelled = Task(1, "k", None)
        waiting.submit(cancelled, "gone")
        waiting.cancel(cancelled)
        for scheduler in (ran, waiting):
            assert scheduler._order == [] and scheduler._queues == {}
    finally:
        close_schedulers([ran, waiting], 5.0)


# -- item 3: a worker thread that cannot start ------------------------------------------------------
@pytest.fixture
def failing_start(monkeypatch: pytest.MonkeyPatch) -> Callable[[int], None]:
    """failing_start(k): after k more batch worker threads, Thread.start raises as it does when the
    process is out of threads (other threads start as usual)."""
    original = threading.Thread.start

    def arm(k: int) -> None:
        left = [k]

        def start(self: threading.Thread) -> None:
            if self.name.startswith("opgen-batch"):
                if left[0] <= 0:
                    raise RuntimeError("can't start new thread")
                left[0] -= 1
            original(self)

        monkeypatch.setattr(threading.Thread, "start", start)

    return arm


def test_a_worker_that_cannot_start_leaves_nothing_behind(failing_start: Callable[[int], None],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    @batch_function(max_batch_size=4, batch_timeout_micros=0, num_batch_threads=4)
    def f(x: np.ndarray) -> np.ndarray:
        return x

    failing_start(0)
    with pytest.raises(BatchingError) as info:
        f(rows(0, 1))
    assert_message(info, "batch_function", "worker thread", "can't start new thread")
    assert "not enqueued" in str(info.value)
    assert f._scheduler.queued_tasks() == 0 and f.stats()["submitted"] == 0 and workers(f) == []
    monkeypatch.undo()
    np.testing.assert_array_equal(f(rows(1, 1)), rows(1, 1))  # the next call starts a worker


def test_fewer_workers_than_asked_still_serve_every_call(failing_start: Callable[[int], None]) -> None:
    ran_on: set[str] = set()

    @batch_function(max_batch_size=1, batch_timeout_micros=0, num_batch_threads=4, max_enqueued_batches=10)
    def slow(x: np.ndarray) -> np.ndarray:
        ran_on.add(threading.current_thread().name)
        time.sleep(0.05)
        return x

    failing_start(1)  # the second worker cannot start: the first serves every batch
    results = run_threads(lambda i: slow(rows(i, 1)), [(i,) for i in range(6)])
    assert not failures(results)
    for i, result in enumerate(results):
        np.testing.assert_array_equal(result, rows(i, 1))
    assert len(ran_on) == 1 and len(workers(slow)) == 1


def test_a_batch_op_worker_that_cannot_start(device_scope: Any, failing_start: Callable[[int], None],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    name = fresh_name()
    failing_start(0)
    with pytest.raises(BatchingError) as info:
        call_batch(device_scope, name, rows(0, 1), batch_timeout_micros=0)
    assert_message(info, "Batch", "worker thread", "can't start new thread")
    resource = batch_resource(device_scope, name)
    assert resource.scheduler.queued_tasks() == 0 and not resource.scheduler.worker_threads()
    monkeypatch.undo()
    out = call_batch(device_scope, name, rows(1, 1), batch_timeout_micros=0)
    assert int(out.batched_tensors[0].shape[0]) == 1


# -- issue 20 item 6: many shared_names, padding in bytes, close from inside the batch -----------------
def batch_threads(prefix: str) -> int:
    return sum(t.is_alive() and t.name.startswith("opgen-batch") and prefix in t.name for t in threading.enumerate())


def registered(prefix: str) -> int:
    return sum(prefix in key[3] for key in list(registry._resources))


def test_fresh_shared_names_leave_neither_threads_nor_registry_entries(device_scope: Any) -> None:
    """5,000 fresh shared_names left 5,001 live worker threads (each for 30 s) and 5,000 registry
    entries until exit: idle batchers beyond registry.MAX_IDLE_RESOURCES are released (their workers
    exit at once), so neither grows with the names."""
    prefix = fresh_name()
    keep = getattr(registry, "MAX_IDLE_RESOURCES", 64)
    for i in range(keep + 150):
        out = call_batch(device_scope, f"{prefix}-{i}", rows(i, 1), max_batch_size=1, batch_timeout_micros=0)
        assert int(out.batched_tensors[0].shape[0]) == 1
    assert registered(prefix) <= keep
    wait_until(lambda: batch_threads(prefix) <= keep, timeout=5.0, what="released batchers' workers exited")
    # a released batcher's name starts a fresh one
    out = call_batch(device_scope, f"{prefix}-0", rows(9, 2), max_batch_size=2, batch_timeout_micros=0)
    np.testing.assert_array_equal(to_host_rows(out), rows(9, 2))


def to_host_rows(out: Any) -> np.ndarray:
    from codegen.runtime.arrays import to_host

    return to_host(out.batched_tensors[0])


def test_idle_unbatch_rendezvous_are_released_too(device_scope: Any) -> None:
    prefix = fresh_name()
    keep = getattr(registry, "MAX_IDLE_RESOURCES", 64)
    for i in range(keep + 100):
        name = f"{prefix}-{i}"
        out = call_batch(device_scope, name, rows(i, 1), max_batch_size=1, batch_timeout_micros=0)
        got = unbatch(out.batched_tensors[0], out.batch_index, out.id, timeout_micros=1_000_000, shared_name=name,
                      scope=device_scope).unbatched_tensor
        assert int(got.shape[0]) == 1
    assert registered(prefix) <= keep


def test_the_registry_is_bounded_by_a_named_error(device_scope: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Busy batchers are never released: past registry.MAX_RESOURCES live ones a new shared_name is
    refused by name, with nothing started."""
    monkeypatch.setattr(registry, "MAX_RESOURCES", 3, raising=False)
    prefix = fresh_name()

    def wait_in_batch(i: int) -> Any:  # a task that waits in its open batch until close_all
        return call_batch(device_scope, f"{prefix}-{i}", rows(i, 1), max_batch_size=2,
                          batch_timeout_micros=60_000_000)

    threads = [threading.Thread(target=_swallow, args=(wait_in_batch, i), daemon=True) for i in range(3)]
    for t in threads:
        t.start()
    def queued(i: int) -> int:
        resource = batch_resource(device_scope, f"{prefix}-{i}")
        return 0 if resource is None else resource.scheduler.queued_tasks()

    wait_until(lambda: all(queued(i) == 1 for i in range(3)), what="three busy batchers")
    before = threads_named("opgen-batch")
    with pytest.raises(BatchingError) as info:
        call_batch(device_scope, f"{prefix}-new", rows(9, 1), batch_timeout_micros=0)
    assert_message(info, "Batch", f"{prefix}-new", ("MAX_RESOURCES", "3 live"))
    assert batch_resource(device_scope, f"{prefix}-new") is None and threads_named("opgen-batch") == before
    close_all(timeout=5.0)
    for t in threads:
        t.join(10.0)


def _swallow(fn: Callable[[int], Any], i: int) -> None:
    try:
        fn(i)
    except BatchingError:
        pass


def test_releasing_batchers_while_calls_run_loses_no_call(device_scope: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """With room for one idle batcher, calls on three names from six threads keep releasing each
    other's batchers: a call whose batcher was released before it enqueued takes a fresh one."""
    monkeypatch.setattr(registry, "MAX_IDLE_RESOURCES", 1, raising=False)
    prefix = fresh_name()

    def call(t: int) -> list[int]:
        got = []
        for k in range(40):
            out = call_batch(device_scope, f"{prefix}-{(t + k) % 3}", rows(t, 1), max_batch_size=1,
                             batch_timeout_micros=0)
            got.append(int(out.batched_tensors[0].shape[0]))
        return got

    results = run_threads(call, [(t,) for t in range(6)], timeout=60.0)
    assert not failures(results)
    assert all(r == [1] * 40 for r in results)


def test_padding_is_bounded_in_bytes_for_the_batch_op(device_scope: Any) -> None:
    """One 8 KiB request with allowed_batch_sizes=[2**20] allocated 8 GiB of padding: the padded
    batch's bytes are checked against MAX_BATCH_BYTES before anything is allocated, naming the
    batcher; nothing is enqueued."""
    name = fresh_name()
    x = np.zeros((1, 1024), np.float64)  # 8 KiB a row
    with pytest.raises(ValueError) as info:
        call_batch(device_scope, name, x, max_batch_size=2**20, allowed_batch_sizes=[2**20], batch_timeout_micros=0)
    assert_message(info, "Batch", name, ("8589934592 bytes", "8.0 GiB"))
    assert "MAX_BATCH_BYTES" in str(info.value)
    resource = batch_resource(device_scope, name)
    assert resource is None or resource.scheduler.queued_tasks() == 0


def test_padding_is_bounded_in_bytes_for_batch_function(monkeypatch: pytest.MonkeyPatch) -> None:
    """batch_function alike; and tasks that fit alone but not together go to separate batches
    (the bound is never passed, no caller fails)."""
    monkeypatch.setattr(sched, "MAX_BATCH_BYTES", 3 * 24, raising=False)  # three rows of 3 float64
    calls: list[int] = []

    @batch_function(max_batch_size=8, batch_timeout_micros=200_000, allowed_batch_sizes=[2, 8])
    def f(x: np.ndarray) -> np.ndarray:
        calls.append(int(x.shape[0]))
        return x * 2

    with pytest.raises(ValueError) as info:
        f(rows(0, 3))  # padded to 8 rows: 192 bytes
    assert_message(info, "batch_function", "MAX_BATCH_BYTES", "192 bytes")
    assert f.stats()["submitted"] == 0
    results = run_threads(lambda i: f(rows(i, 1)), [(i,) for i in range(4)])  # 2 rows a batch at most
    assert not failures(results) and all(n <= 2 for n in calls)


def test_close_from_inside_the_batched_function_completes_the_running_batch() -> None:
    """close() from the batched function failed the running batch's callers with
    BatchingClosedError though the function returned: the running batch completes, later calls fail."""
    @batch_function(max_batch_size=2, batch_timeout_micros=5_000_000)
    def f(x: np.ndarray) -> np.ndarray:
        f.close()
        return x + 1

    results = run_threads(lambda i: f(rows(i, 1)), [(0,), (1,)], timeout=20.0,
                          start=lambda i: wait_until(lambda: f.stats()["submitted"] == i + 1, what="enqueued"))
    assert not failures(results), failures(results)
    for i, result in enumerate(results):
        np.testing.assert_array_equal(result, rows(i, 1) + 1)
    with pytest.raises(BatchingClosedError):
        f(rows(2, 1))


def test_close_all_from_inside_a_batch_op_batch_completes_it(device_scope: Any) -> None:
    """The same through the Batch op's runtime: close_all() from the code that holds a batch (after
    Batch returned it) is no problem; from inside the scheduler's process step (a worker thread) it
    completes the running batch."""
    from codegen.runtime.batching import ops

    name = fresh_name()
    original = ops._process_batch

    def closing(batch: Any) -> Any:
        close_all(timeout=5.0)
        return original(batch)

    try:
        ops._process_batch = closing  # type: ignore[assignment]
        out = call_batch(device_scope, name, rows(3, 1), max_batch_size=1, batch_timeout_micros=0)
    finally:
        ops._process_batch = original  # type: ignore[assignment]
    np.testing.assert_array_equal(to_host_rows(out), rows(3, 1))
