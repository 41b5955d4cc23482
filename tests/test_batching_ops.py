"""Batch, Unbatch and UnbatchGrad through their generated wrappers (specs/batching/): TensorFlow's
semantics (OPS_REFERENCE §5) and every error path. Concurrent callers are threads that must finish
within a deadline, so a hang fails the test. Each test uses its own shared_name; every resource is
closed after each test. Runs on the device the test session selects (cpu by default)."""

from __future__ import annotations

import signal
import threading
import time
from typing import Any

import numpy as np
import pytest
from batching_helpers import Failed, failures, fresh_name, run_threads, wait_until
from messages import assert_message

from codegen.runtime.batching import (
    BatchingClosedError,
    DeadlineExceededError,
    DuplicateIdError,
    QueueFullError,
    close_all,
    registry,
    set_unbatch_grad_timeout,
)
from generated import Batch, Unbatch, UnbatchGrad, batch, unbatch, unbatch_grad


@pytest.fixture(autouse=True)
def closed_after() -> Any:
    yield
    close_all(timeout=5.0)


@pytest.fixture
def name() -> str:
    return fresh_name()


def rows(tag: int, n: int, width: int = 2) -> np.ndarray:
    """n rows whose values say which call and row they are: row r of call tag is tag*100 + r."""
    return (tag * 100 + np.arange(n, dtype=np.float64))[:, None] * np.ones(width)


def queued(scope: Any, name: str) -> int:
    resource = registry.find("Batch", scope.backend, "", name)
    return 0 if resource is None else resource.scheduler.queued_tasks()


def submitted(scope: Any, name: str) -> int:
    resource = registry.find("Batch", scope.backend, "", name)
    return 0 if resource is None else int(resource.scheduler.stats()["submitted"])


def call_batch(scope: Any, name: str, tensors: list[Any], **attrs: Any) -> Any:
    kw: dict[str, Any] = {"num_batch_threads": 1, "max_batch_size": 8, "batch_timeout_micros": 2_000_000,
                          "grad_timeout_micros": 0, "shared_name": name}
    kw.update(attrs)
    return batch(tensors, scope=scope, **kw)


def in_order(scope: Any, name: str, sizes: list[int], **attrs: Any) -> list[Any]:
    """Batch calls of the given sizes, enqueued one after the other (each thread starts once the
    previous call is queued), so the enqueue order is the list's."""
    def paced(i: int) -> None:
        wait_until(lambda: submitted(scope, name) >= i + 1 or i == len(sizes) - 1, what=f"call {i} enqueued")

    return run_threads(lambda i: call_batch(scope, name, [rows(i, sizes[i])], **attrs),
                       [(i,) for i in range(len(sizes))], start=paced)


# -- Batch semantics -------------------------------------------------------------------------------
def test_one_caller_receives_the_batch_in_enqueue_order(device_scope: Any, to_host: Any, name: str) -> None:
    sizes = [2, 1, 3, 2]  # 8 rows: the batch is full when the last call joins
    results = in_order(device_scope, name, sizes)
    assert not failures(results)
    receivers = [r for r in results if to_host(r.batch_index).shape[0] > 0]
    assert len(receivers) == 1 and receivers[0] is results[-1]  # TensorFlow: the last enqueued
    ids = [int(to_host(r.id)) for r in results]
    assert len(set(ids)) == len(ids)
    expected = np.concatenate([rows(i, n) for i, n in enumerate(sizes)])
    np.testing.assert_array_equal(to_host(receivers[0].batched_tensors[0]), expected)
    starts = np.cumsum([0, *sizes])
    assert to_host(receivers[0].batch_index).tolist() == [[ids[i], starts[i], starts[i + 1]] for i in range(4)]
    for r, n in zip(results[:-1], sizes[:-1], strict=True):
        assert to_host(r.batched_tensors[0]).shape == (0, 2)
        assert to_host(r.batch_index).shape == (0, 3) and to_host(r.batch_index).dtype == np.int64
        assert to_host(r.id).shape == () and to_host(r.id).dtype == np.int64
        assert n > 0


def test_padding_repeats_the_first_row_of_the_first_task(device_scope: Any, to_host: Any, name: str) -> None:
    sizes = [2, 3]  # 5 rows, padded to 8 of [4, 8] once the timeout closes the batch
    results = in_order(device_scope, name, sizes, allowed_batch_sizes=[4, 8], batch_timeout_micros=50_000)
    receiver = results[-1]
    batched = to_host(receiver.batched_tensors[0])
    assert batched.shape == (8, 2)
    np.testing.assert_array_equal(batched[:5], np.concatenate([rows(0, 2), rows(1, 3)]))
    np.testing.assert_array_equal(batched[5:], np.repeat(rows(0, 1), 3, axis=0))
    index = to_host(receiver.batch_index)
    assert index[:, 1:].tolist() == [[0, 2], [2, 5]]  # padding excluded


def test_smallest_allowed_size_that_holds_the_batch(device_scope: Any, to_host: Any, name: str) -> None:
    out = call_batch(device_scope, name, [rows(0, 3)], allowed_batch_sizes=[2, 4, 8], batch_timeout_micros=1000)
    assert to_host(out.batched_tensors[0]).shape == (4, 2)


def test_timeout_closes_a_partial_batch(device_scope: Any, to_host: Any, name: str) -> None:
    start = time.monotonic()
    out = call_batch(device_scope, name, [rows(0, 3)], batch_timeout_micros=20_000)
    assert time.monotonic() - start < 5.0
    np.testing.assert_array_equal(to_host(out.batched_tensors[0]), rows(0, 3))
    assert to_host(out.batch_index).tolist() == [[int(to_host(out.id)), 0, 3]]


def test_a_full_batch_does_not_wait_for_the_timeout(device_scope: Any, name: str) -> None:
    start = time.monotonic()
    results = run_threads(lambda i: call_batch(device_scope, name, [rows(i, 1)], max_batch_size=4,
                                               batch_timeout_micros=60_000_000), [(i,) for i in range(8)])
    assert not failures(results)
    assert time.monotonic() - start < 30.0  # two full batches, never the 60 s timeout


def test_a_task_that_does_not_fit_starts_the_next_batch(device_scope: Any, to_host: Any, name: str) -> None:
    results = in_order(device_scope, name, [3, 1, 2], max_batch_size=4, batch_timeout_micros=50_000)
    indexes = [to_host(r.batch_index)[:, 1:].tolist() for r in results]
    assert indexes == [[], [[0, 3], [3, 4]], [[0, 2]]]  # [3, 1] is full; 2 more rows do not fit it


def test_every_row_in_exactly_one_batch(device_scope: Any, to_host: Any, name: str) -> None:
    sizes = [1 + i % 3 for i in range(40)]
    # room for every batch 40 callers can form: on a loaded machine the one worker may fall behind
    # the 5 ms timeouts, and a full queue (QueueFullError) is not what this test is about
    results = run_threads(lambda i: call_batch(device_scope, name, [rows(i, sizes[i])], batch_timeout_micros=5000,
                                               max_enqueued_batches=64),
                          [(i,) for i in range(40)])
    assert not failures(results)
    ids = {int(to_host(r.id)): i for i, r in enumerate(results)}
    assert len(ids) == 40
    seen: list[int] = []
    for r in results:
        batched, index = to_host(r.batched_tensors[0]), to_host(r.batch_index)
        for key, start, end in index.tolist():
            np.testing.assert_array_equal(batched[start:end], rows(ids[key], sizes[ids[key]]))
            seen.append(key)
        assert batched.shape[0] >= (index[:, 2].max() if len(index) else 0)
    assert sorted(seen) == sorted(ids)  # no loss, no duplication


def test_several_tensors_of_different_dtypes_are_batched_together(device_scope: Any, to_host: Any,
                                                                   name: str) -> None:
    def call(i: int) -> Any:
        return call_batch(device_scope, name, [rows(i, 2).astype(np.float32), np.full(2, i, np.int32)],
                          max_batch_size=4)

    results = run_threads(call, [(0,), (1,)])
    receiver = next(r for r in results if to_host(r.batch_index).shape[0])
    features, labels = (to_host(t) for t in receiver.batched_tensors)
    assert features.dtype == np.float32 and labels.dtype == np.int32 and features.shape == (4, 2)
    order = [k for k, _, _ in to_host(receiver.batch_index).tolist()]
    tags = [next(i for i, r in enumerate(results) if int(to_host(r.id)) == k) for k in order]
    assert labels.tolist() == [tags[0], tags[0], tags[1], tags[1]]
    other = next(r for r in results if r is not receiver)
    assert [to_host(t).shape for t in other.batched_tensors] == [(0, 2), (0,)]


def test_batching_queues_are_never_mixed(device_scope: Any, to_host: Any, name: str) -> None:
    results = run_threads(lambda i: call_batch(device_scope, name, [rows(i, 1)], batching_queue=f"q{i % 2}",
                                               max_batch_size=2), [(i,) for i in range(4)])
    for r in results:
        if to_host(r.batch_index).shape[0]:
            tags = {int(v) // 100 % 2 for v in to_host(r.batched_tensors[0])[:, 0]}
            assert len(tags) == 1


def test_zero_rows_return_at_once(device_scope: Any, to_host: Any, name: str) -> None:
    out = call_batch(device_scope, name, [np.zeros((0, 2))], batch_timeout_micros=60_000_000)
    assert to_host(out.batched_tensors[0]).shape == (0, 2) and to_host(out.batch_index).shape == (0, 3)
    start = time.monotonic()
    back = unbatch(out.batched_tensors[0], out.batch_index, out.id, timeout_micros=60_000_000, shared_name=name,
                   scope=device_scope)
    assert to_host(back.unbatched_tensor).shape == (0, 2) and time.monotonic() - start < 5.0


def test_ids_are_unique_int64_scalars(device_scope: Any, to_host: Any, name: str) -> None:
    ids = [int(to_host(call_batch(device_scope, name, [rows(0, 1)], batch_timeout_micros=0).id)) for _ in range(50)]
    assert len(set(ids)) == 50 and all(0 <= i < 2**63 for i in ids)


def test_class_form_options_and_repr(device_scope: Any, to_host: Any, name: str) -> None:
    op = Batch.create(device_scope, [rows(0, 3)], 1, 8, 1000, 0, Batch.shared_name(name),
                      Batch.Options().allowed_batch_sizes([4, 8]))
    assert to_host(op.batched_tensors[0]).shape == (4, 2)
    assert repr(op).startswith("<Batch batched_tensors=[float64[4, 2]] batch_index=int64[1, 3] id=int64[]")
    back = Unbatch.create(device_scope, op.batched_tensors[0], op.batch_index, op.id, 1_000_000,
                          Unbatch.shared_name(name))
    np.testing.assert_array_equal(to_host(back.unbatched_tensor), rows(0, 3))
    grad = UnbatchGrad.create(device_scope, op.batched_tensors[0], op.batch_index, back.unbatched_tensor, op.id,
                              UnbatchGrad.shared_name(name))
    assert to_host(grad.batched_grad).shape == (3, 2)  # the task's 3 rows: the padding row has no gradient


# -- Unbatch and UnbatchGrad -----------------------------------------------------------------------
def batch_compute_unbatch(scope: Any, name: str, x: np.ndarray, **attrs: Any) -> tuple[Any, Any]:
    out = call_batch(scope, name, [x], **attrs)
    y = out.batched_tensors[0] * 2 + 1  # the compute; empty for all but the receiver
    back = unbatch(y, out.batch_index, out.id, timeout_micros=20_000_000, shared_name=name, scope=scope)
    return out, back.unbatched_tensor


def test_unbatch_returns_each_caller_its_own_rows(device_scope: Any, to_host: Any, name: str) -> None:
    sizes = [1 + i % 4 for i in range(24)]
    results = run_threads(lambda i: batch_compute_unbatch(device_scope, name, rows(i, sizes[i]),
                                                          allowed_batch_sizes=[4, 8], batch_timeout_micros=3000),
                          [(i,) for i in range(24)])
    assert not failures(results)
    for i, (_, mine) in enumerate(results):
        np.testing.assert_array_equal(to_host(mine), rows(i, sizes[i]) * 2 + 1)


def test_unbatch_grad_gathers_the_grads_in_batch_order(device_scope: Any, to_host: Any, name: str) -> None:
    sizes = [2, 1, 2]  # 5 rows, padded to 8

    def forward_backward(i: int) -> Any:
        out, mine = batch_compute_unbatch(device_scope, name, rows(i, sizes[i]), allowed_batch_sizes=[8],
                                          batch_timeout_micros=200_000)
        grad = mine * 0 + (i + 1)  # this caller's downstream gradient
        return out, unbatch_grad(out.batched_tensors[0], out.batch_index, grad, out.id, shared_name=name,
                                 scope=device_scope).batched_grad

    results = run_threads(forward_backward, [(i,) for i in range(3)])
    assert not failures(results)
    holder = [(o, g) for o, g in results if to_host(o.batch_index).shape[0]]
    assert len(holder) == 1
    out, grad = holder[0]
    expected = np.zeros((5, 2))  # the concatenation of the 5 task rows: the 3 padding rows have no gradient
    for key, start, end in to_host(out.batch_index).tolist():
        i = next(i for i, (o, _) in enumerate(results) if int(to_host(o.id)) == key)
        expected[start:end] = i + 1
    np.testing.assert_array_equal(to_host(grad), expected)
    assert all(to_host(g).shape == (0, 2) for o, g in results if o is not out)


def test_unbatch_times_out_with_a_deadline_error(device_scope: Any, name: str) -> None:
    x = np.zeros((0, 2))
    start = time.monotonic()
    with pytest.raises(DeadlineExceededError) as info:
        unbatch(x, np.zeros((0, 3), np.int64), np.int64(12345), timeout_micros=50_000, shared_name=name,
                scope=device_scope)
    assert time.monotonic() - start < 5.0
    assert_message(info, "Unbatch", "id", ("12345", "timeout_micros=50000"))
    assert isinstance(info.value, TimeoutError)


def test_unbatch_with_a_duplicate_waiting_id(device_scope: Any, name: str) -> None:
    empty, index = np.zeros((0, 2)), np.zeros((0, 3), np.int64)

    def wait(_: int) -> Any:
        return unbatch(empty, index, np.int64(7), timeout_micros=300_000, shared_name=name, scope=device_scope)

    results = run_threads(wait, [(0,), (1,)])
    kinds = sorted(type(r.error).__name__ for r in results if isinstance(r, Failed))
    assert kinds == ["DeadlineExceededError", "DuplicateIdError"]
    dup = next(r.error for r in results if isinstance(r.error, DuplicateIdError))
    assert "Unbatch" in str(dup) and "id 7" in str(dup) and "duplicate id" in str(dup)


def test_batch_index_with_an_id_twice(device_scope: Any, name: str) -> None:
    index = np.array([[5, 0, 1], [5, 1, 2]], np.int64)
    with pytest.raises(DuplicateIdError) as info:
        unbatch(np.ones((2, 2)), index, np.int64(5), timeout_micros=1000, shared_name=name, scope=device_scope)
    assert_message(info, "Unbatch", "batch_index", "id 5 appears twice")


@pytest.mark.parametrize("index, fragment", [
    ([[1, 0, 9]], "does not fit batched_tensor, which has 4 rows"),
    ([[1, 3, 2]], "does not fit"),
    ([[1, -1, 2]], "does not fit"),
    ([[1, 0, 3], [2, 2, 4]], "overlap"),
], ids=["past-the-end", "end-before-start", "negative", "overlap"])
def test_batch_index_that_does_not_match_the_tensor(device_scope: Any, name: str, index: list[list[int]],
                                                    fragment: str) -> None:
    with pytest.raises(ValueError) as info:
        unbatch(np.ones((4, 2)), np.array(index, np.int64), np.int64(1), timeout_micros=1000, shared_name=name,
                scope=device_scope)
    assert_message(info, "Unbatch", "batch_index", fragment)


def test_batched_tensor_without_batch_index(device_scope: Any, name: str) -> None:
    with pytest.raises(ValueError) as info:
        unbatch(np.ones((4, 2)), np.zeros((0, 3), np.int64), np.int64(1), timeout_micros=1000, shared_name=name,
                scope=device_scope)
    assert_message(info, "Unbatch", "batch_index", "has 4 rows")


def test_batch_index_must_be_k_by_3_int64(device_scope: Any, name: str) -> None:
    with pytest.raises(ValueError) as info:
        unbatch(np.ones((4, 2)), np.zeros((1, 2), np.int64), np.int64(1), timeout_micros=1000, shared_name=name,
                scope=device_scope)
    assert_message(info, "Unbatch", "batch_index", "[1, 2]")
    with pytest.raises(TypeError) as info:
        unbatch(np.ones((4, 2)), np.zeros((1, 3), np.int32), np.int64(1), timeout_micros=1000, shared_name=name,
                scope=device_scope)
    assert_message(info, "Unbatch", "batch_index", "int32")
    with pytest.raises(ValueError) as info:
        unbatch(np.ones((4, 2)), np.zeros((1, 3), np.int64), np.array([1]), timeout_micros=1000, shared_name=name,
                scope=device_scope)
    assert_message(info, "Unbatch", "id", "[1]")


def test_unbatch_grad_with_a_grad_that_does_not_match_its_rows(device_scope: Any, name: str) -> None:
    index = np.array([[1, 0, 2], [2, 2, 4]], np.int64)
    orig = np.ones((4, 2))

    def deposit(_: int) -> Any:
        return unbatch_grad(np.zeros((0, 2)), np.zeros((0, 3), np.int64), np.ones((3, 2)), np.int64(2),
                            shared_name=name, scope=device_scope)

    run_threads(deposit, [(0,)])
    with pytest.raises(ValueError) as info:
        unbatch_grad(orig, index, np.ones((2, 2)), np.int64(1), shared_name=name, scope=device_scope)
    assert_message(info, "UnbatchGrad", "grad", ("[2, 2]", "[3, 2]"))


def test_unbatch_grad_with_a_duplicate_id(device_scope: Any, name: str) -> None:
    empty, index = np.zeros((0, 2)), np.zeros((0, 3), np.int64)
    unbatch_grad(empty, index, np.ones((1, 2)), np.int64(9), shared_name=name, scope=device_scope)
    with pytest.raises(DuplicateIdError) as info:
        unbatch_grad(empty, index, np.ones((1, 2)), np.int64(9), shared_name=name, scope=device_scope)
    assert_message(info, "UnbatchGrad", "id", "id 9")


def test_unbatch_grad_times_out_naming_the_missing_ids(device_scope: Any, name: str) -> None:
    old = set_unbatch_grad_timeout(0.2)
    try:
        index = np.array([[1, 0, 1], [2, 1, 2]], np.int64)
        with pytest.raises(DeadlineExceededError) as info:
            unbatch_grad(np.ones((2, 2)), index, np.ones((1, 2)), np.int64(1), shared_name=name, scope=device_scope)
        assert_message(info, "UnbatchGrad", "id", "[2]")
    finally:
        set_unbatch_grad_timeout(old)


def test_unbatch_grad_original_input_without_batch_index(device_scope: Any, name: str) -> None:
    with pytest.raises(ValueError) as info:
        unbatch_grad(np.ones((2, 2)), np.zeros((0, 3), np.int64), np.ones((1, 2)), np.int64(1), shared_name=name,
                     scope=device_scope)
    assert_message(info, "UnbatchGrad", "batch_index", "has 2 rows")


# -- Batch errors ----------------------------------------------------------------------------------
def test_in_tensors_with_different_dim_0(device_scope: Any, name: str) -> None:
    with pytest.raises(ValueError) as info:
        call_batch(device_scope, name, [np.ones((3, 2)), np.ones((2, 2))])
    assert_message(info, "Batch", "in_tensors[1]", ("[B=3, ...]", "[2, 2]"))


def test_in_tensors_of_rank_0(device_scope: Any, name: str) -> None:
    with pytest.raises(ValueError) as info:
        call_batch(device_scope, name, [np.float64(1.0)])
    assert_message(info, "Batch", "in_tensors[0]", "got []")


def test_empty_in_tensors_and_a_bad_element(device_scope: Any, name: str) -> None:
    with pytest.raises(ValueError) as info:
        call_batch(device_scope, name, [])
    assert_message(info, "Batch", "in_tensors", "non-empty list")
    with pytest.raises(TypeError) as info:
        call_batch(device_scope, name, [np.ones((2, 2)), "labels"])
    assert_message(info, "Batch", "in_tensors[1]", "str")
    with pytest.raises(TypeError) as info:
        call_batch(device_scope, name, [np.ones((2, 2), np.complex64)])
    assert_message(info, "Batch", "in_tensors[0]", "complex64")


def test_a_task_larger_than_max_batch_size(device_scope: Any, name: str) -> None:
    with pytest.raises(ValueError) as info:
        call_batch(device_scope, name, [rows(0, 9)], max_batch_size=8)
    assert_message(info, "Batch", "in_tensors", ("9 rows", "max_batch_size=8"))


@pytest.mark.parametrize("sizes, fragment", [
    ([4, 2, 8], "2 follows 4"), ([4, 4, 8], "4 follows 4"), ([2, 4], "the last is 4"), ([16], "the last is 16"),
], ids=["decreasing", "repeated", "short", "past-max"])
def test_allowed_batch_sizes_must_increase_to_max_batch_size(device_scope: Any, name: str, sizes: list[int],
                                                             fragment: str) -> None:
    with pytest.raises(ValueError) as info:
        call_batch(device_scope, name, [rows(0, 1)], allowed_batch_sizes=sizes)
    assert_message(info, "Batch", "allowed_batch_sizes", fragment)
    assert "max_batch_size=8" in str(info.value)


@pytest.mark.parametrize("attr, value, error, fragment", [
    ("num_batch_threads", 0, ValueError, ">= 1"),
    ("max_batch_size", "8", TypeError, "'8'"),
    ("max_enqueued_batches", 0, ValueError, ">= 1"),
    ("batch_timeout_micros", -1, ValueError, ">= 0"),
    ("allowed_batch_sizes", [0, 8], ValueError, ">= 1"),
    ("shared_name", 3, TypeError, "3"),
])
def test_attr_checks(device_scope: Any, name: str, attr: str, value: Any, error: type, fragment: str) -> None:
    with pytest.raises(error) as info:
        call_batch(device_scope, name, [rows(0, 1)], **{attr: value})
    assert_message(info, "Batch", attr, fragment)


def test_calls_sharing_a_batcher_must_agree_on_its_attrs(device_scope: Any, name: str) -> None:
    call_batch(device_scope, name, [rows(0, 1)], batch_timeout_micros=0)
    with pytest.raises(ValueError) as info:
        call_batch(device_scope, name, [rows(0, 1)], batch_timeout_micros=0, max_batch_size=4)
    assert_message(info, "Batch", "shared_name", "max_batch_size=8")


def test_a_full_queue_refuses_the_task_at_once(device_scope: Any, to_host: Any, name: str) -> None:
    attrs = {"max_batch_size": 2, "max_enqueued_batches": 1, "batch_timeout_micros": 30_000_000}

    def first(_: int) -> Any:
        return call_batch(device_scope, name, [rows(0, 1)], **attrs)

    done: list[Any] = []
    waiter = threading.Thread(target=lambda: done.append(run_threads(first, [(0,)])), daemon=True)
    waiter.start()
    wait_until(lambda: queued(device_scope, name) == 1, what="first call queued")
    with pytest.raises(QueueFullError) as info:  # 2 rows do not fit the open batch, and no second one may wait
        call_batch(device_scope, name, [rows(1, 2)], **attrs)
    assert_message(info, "Batch", ("queue", "max_enqueued_batches"), "is full")
    third = call_batch(device_scope, name, [rows(2, 1)], **attrs)  # fits: fills the batch, which runs
    waiter.join(10.0)
    assert done and not failures(done[0])
    assert to_host(third.batch_index)[:, 1:].tolist() == [[0, 1], [1, 2]]


# -- faults: interrupted and dying callers, close ----------------------------------------------------
class Interrupted(Exception):
    pass


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise Interrupted


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs signal.setitimer")
def test_an_interrupted_caller_leaves_its_batch(device_scope: Any, to_host: Any, name: str) -> None:
    attrs = {"max_batch_size": 8, "batch_timeout_micros": 1_500_000}
    other: list[Any] = []

    def second() -> None:
        wait_until(lambda: queued(device_scope, name) == 1, what="interrupted call queued")
        other.append(call_batch(device_scope, name, [rows(1, 2)], **attrs))

    thread = threading.Thread(target=second, daemon=True)
    previous = signal.signal(signal.SIGALRM, _raise_interrupt)
    thread.start()
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.4)
        with pytest.raises(Interrupted):
            call_batch(device_scope, name, [rows(0, 3)], **attrs)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    thread.join(10.0)
    assert other, "the other caller did not finish"
    np.testing.assert_array_equal(to_host(other[0].batched_tensors[0]), rows(1, 2))  # no rows of the interrupted
    assert to_host(other[0].batch_index)[:, 1:].tolist() == [[0, 2]]


def test_a_receiver_that_dies_makes_the_others_time_out(device_scope: Any, to_host: Any, name: str) -> None:
    def call(i: int) -> Any:
        out = call_batch(device_scope, name, [rows(i, 1)], max_batch_size=3)
        if to_host(out.batch_index).shape[0]:
            raise RuntimeError("receiver died")
        return unbatch(out.batched_tensors[0], out.batch_index, out.id, timeout_micros=200_000, shared_name=name,
                       scope=device_scope)

    results = run_threads(call, [(i,) for i in range(3)])
    errors = sorted(type(e).__name__ for e in failures(results))
    assert errors == ["DeadlineExceededError", "DeadlineExceededError", "RuntimeError"]


def test_close_completes_a_batch_in_flight_and_later_calls_start_afresh(device_scope: Any, to_host: Any,
                                                                        name: str) -> None:
    results: list[Any] = []
    thread = threading.Thread(target=lambda: results.append(
        run_threads(lambda: call_batch(device_scope, name, [rows(0, 2)], batch_timeout_micros=60_000_000), [()])),
        daemon=True)
    thread.start()
    wait_until(lambda: queued(device_scope, name) == 1, what="call queued")
    start = time.monotonic()
    close_all(timeout=5.0)
    thread.join(10.0)
    assert time.monotonic() - start < 10.0
    (out,) = results[0]
    np.testing.assert_array_equal(to_host(out.batched_tensors[0]), rows(0, 2))  # completed, not lost
    again = call_batch(device_scope, name, [rows(1, 1)], batch_timeout_micros=0)
    np.testing.assert_array_equal(to_host(again.batched_tensors[0]), rows(1, 1))


def test_close_fails_waiting_unbatch_calls(device_scope: Any, name: str) -> None:
    def wait(_: int) -> Any:
        return unbatch(np.zeros((0, 2)), np.zeros((0, 3), np.int64), np.int64(3), timeout_micros=60_000_000,
                       shared_name=name, scope=device_scope)

    timer = threading.Timer(0.3, close_all)
    timer.start()
    (result,) = run_threads(wait, [(0,)], timeout=20.0)
    timer.join()
    assert isinstance(result, Failed) and isinstance(result.error, BatchingClosedError)
    assert "closed" in str(result.error)


def test_the_reference_page_example_runs() -> None:
    from codegen.cli import PROJECT
    from codegen.load import load_spec

    (example,) = load_spec(PROJECT / "specs" / "batching" / "batch.yaml", PROJECT / "specs").examples
    namespace: dict[str, Any] = {}
    exec(compile(example, "batch example", "exec"), namespace)
    assert sorted(namespace["results"]) == list(range(8))
    np.testing.assert_array_equal(namespace["results"][3], np.full((2, 4), 6.0, np.float32))
