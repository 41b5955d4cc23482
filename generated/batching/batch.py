# generated from specs/batching/batch.yaml by opgen — do not edit (opgen 0.1.0)
"""Batch: Batches all the input tensors of concurrent calls nondeterministically."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from codegen.runtime import api as _rt
from codegen.runtime.batching.ops import batch as _runtime
from codegen.runtime.scope import Scope

_OP = 'Batch'


class BatchOutputs(NamedTuple):
    """The outputs of Batch, in order."""

    batched_tensors: Any
    """list of T, each of shape [padded_batch_size, ...]. Either empty tensors (dimension 0 of size 0) or a batch of concatenated tensors."""
    batch_index: Any
    """int64, shape [K, 3]. If batched_tensors is non-empty, has the information to invert it: one row (id, start, end) per task, end exclusive. Else an empty [0, 3] matrix."""
    id: Any
    """int64, shape []. Always contains a scalar with a unique id for this call of Batch."""


class Batch:
    """Batches all the input tensors of concurrent calls nondeterministically.

    When many calls of this op run at the same time on one device with the same container and
    shared_name, their tensors are batched together. Each call is a task with a fresh unique id;
    tasks join batches in enqueue order. A batch closes when it holds max_batch_size rows (or the next
    task does not fit) or when batch_timeout_micros have passed since its first task (the next free
    worker then takes it; while every worker is busy it keeps accepting tasks up to max_batch_size).
    num_batch_threads batches are processed at once, and at most max_enqueued_batches batches wait:
    a call beyond that fails at once with a QueueFullError saying the queue is full.

    Exactly one call of each batch (the last one enqueued) receives the batch: each tensor of
    in_tensors concatenated along dimension 0 over the tasks in enqueue order, padded up to the
    smallest of allowed_batch_sizes that holds it by repeating the first row of the first task, and
    batch_index, one row (id, start, end) per task: its rows of the batch, end exclusive, padding
    excluded. Every other call receives tensors whose dimension 0 is 0 and an empty [0, 3]
    batch_index. Every call receives its own id, with which Unbatch hands it back its rows of the
    computed batch and UnbatchGrad gathers the gradients.

    All tensors of in_tensors are batched together (features and labels, for example, go through one
    Batch call), so they must share dimension 0. A call with more than max_batch_size rows is
    refused; a call with no rows returns at once with empty outputs. Tensors stay on their device:
    NumPy arrays on the cpu backend, CuPy arrays on the cuda backend (concatenation and padding run
    on the GPU); tensors of other dtypes or trailing shapes than the open batch's start a new batch.

    An empty shared_name stands for the op's name: every call with an empty shared_name (in one
    container, on one device) shares one batcher, and the calls sharing a batcher must agree on its
    attrs. The batcher's threads start when its batches need them (up to num_batch_threads), exit
    after 30 s without work, and stop at interpreter exit or on
    codegen.runtime.batching.close_all(). An idle batcher (nothing queued or running) is released
    when more than 64 are idle, so a later call of its shared_name starts a fresh one; at most 4096
    batchers (with Unbatch's and UnbatchGrad's) live at once, and a call that would start one more
    fails with a BatchingError naming it. A padded batch holds at most 2**32 bytes (4 GiB) over its
    tensors: a call whose own padded batch would hold more fails at once with a BatchTooLargeError
    naming the batcher, nothing allocated, and a call that would take the open batch past it starts
    the next batch. To batch a Python function, use codegen.runtime.batching.batch_function, which
    runs the function once per batch.

    Create it with `Batch.create(scope, in_tensors, num_batch_threads, max_batch_size, batch_timeout_micros, grad_timeout_micros, *options)`, or call
    `batch(...)`. The reference page is generated/docs/batching/batch.md.
    """

    OP_NAME = 'Batch'
    Outputs = BatchOutputs

    class Options:
        """Optional attributes for Batch; each setter returns the Options, so calls chain."""

        __slots__ = ("_values",)

        def __init__(self) -> None:
            self._values: dict[str, Any] = {}

        def max_enqueued_batches(self, max_enqueued_batches: int) -> Batch.Options:
            """Sets max_enqueued_batches (default 10). Maximum number of batches enqueued. Default 10; at most 1048576 (2**20)."""
            self._values['max_enqueued_batches'] = max_enqueued_batches
            return self

        def allowed_batch_sizes(self, allowed_batch_sizes: Sequence[int]) -> Batch.Options:
            """Sets allowed_batch_sizes (default ()). Optional list of allowed batch sizes. If left empty, does nothing. Otherwise, supplies a list of batch sizes, causing the op to pad batches up to one of those sizes. The entries must increase monotonically, and the final entry must equal max_batch_size."""
            self._values['allowed_batch_sizes'] = allowed_batch_sizes
            return self

        def container(self, container: str) -> Batch.Options:
            """Sets container (default ''). Controls the scope of sharing of this batch."""
            self._values['container'] = container
            return self

        def shared_name(self, shared_name: str) -> Batch.Options:
            """Sets shared_name (default ''). Concurrently running calls of Batch on the same device with the same container and shared_name batch their elements together. If left empty, the op name is used as the shared name."""
            self._values['shared_name'] = shared_name
            return self

        def batching_queue(self, batching_queue: str) -> Batch.Options:
            """Sets batching_queue (default ''). The queue of the batcher the calls join: calls with different batching_queue values share the batcher's threads but are never batched together."""
            self._values['batching_queue'] = batching_queue
            return self

        def __repr__(self) -> str:
            items = ", ".join(f"{key}={value!r}" for key, value in self._values.items())
            return f"Batch.Options({items})"

    @staticmethod
    def max_enqueued_batches(max_enqueued_batches: int) -> Batch.Options:
        """Options with max_enqueued_batches set (default 10)."""
        return Batch.Options().max_enqueued_batches(max_enqueued_batches)

    @staticmethod
    def allowed_batch_sizes(allowed_batch_sizes: Sequence[int]) -> Batch.Options:
        """Options with allowed_batch_sizes set (default ())."""
        return Batch.Options().allowed_batch_sizes(allowed_batch_sizes)

    @staticmethod
    def container(container: str) -> Batch.Options:
        """Options with container set (default '')."""
        return Batch.Options().container(container)

    @staticmethod
    def shared_name(shared_name: str) -> Batch.Options:
        """Options with shared_name set (default '')."""
        return Batch.Options().shared_name(shared_name)

    @staticmethod
    def batching_queue(batching_queue: str) -> Batch.Options:
        """Options with batching_queue set (default '')."""
        return Batch.Options().batching_queue(batching_queue)

    @classmethod
    def create(
        cls,
        scope: Scope | str | None,
        in_tensors: Any,
        num_batch_threads: int,
        max_batch_size: int,
        batch_timeout_micros: int,
        grad_timeout_micros: int,
        *options: Batch.Options,
    ) -> Batch:
        """Factory method to create a class wrapping a new Batch operation.

        Args:
            scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).
            in_tensors: list of T, shape [B, ...].
                The tensors to be batched, with rank >= 1 and a common dimension 0 (the
                rows of this call).
            num_batch_threads: int, >= 1, <= 1024.
                Number of scheduling threads for processing batches of work. Determines
                the number of batches processed in parallel. Threads start when batches
                need them (none before the first call) and exit after 30 s without work;
                at most 1024.
            max_batch_size: int, >= 1, <= 1048576.
                Batch sizes will never be bigger than this; at most 1048576 (2**20)
                rows, which bounds the padding of a batch in rows (in bytes, a padded
                batch holds at most 2**32).
            batch_timeout_micros: int, >= 0.
                Maximum number of microseconds to wait before outputting an incomplete
                batch. Any int64 value works (2**63 - 1 waits for full batches, and
                close).
            grad_timeout_micros: int, >= 0.
                The timeout to use for the gradient (an Unbatch with this
                timeout_micros). See Unbatch.
            options: Batch.Options carrying optional attribute values.

        Raises:
            TypeError: an argument has the wrong type or dtype.
            ValueError: a shape or an attribute value is not valid.
        """
        _merged = _rt.merge_options(_OP, options, cls.Options)
        return cls(_run(
            scope, in_tensors,
            num_batch_threads,
            max_batch_size,
            _merged.get('max_enqueued_batches', 10),
            batch_timeout_micros,
            _merged.get('allowed_batch_sizes', ()),
            grad_timeout_micros,
            _merged.get('container', ''),
            _merged.get('shared_name', ''),
            _merged.get('batching_queue', ''),
        ))

    def __init__(self, outputs: BatchOutputs) -> None:
        self._outputs = outputs

    @property
    def batched_tensors(self) -> Any:
        """Either empty tensors (dimension 0 of size 0) or a batch of concatenated tensors."""
        return self._outputs.batched_tensors

    @property
    def batch_index(self) -> Any:
        """If batched_tensors is non-empty, has the information to invert it: one row (id, start, end) per task, end exclusive. Else an empty [0, 3] matrix."""
        return self._outputs.batch_index

    @property
    def id(self) -> Any:
        """Always contains a scalar with a unique id for this call of Batch."""
        return self._outputs.id

    def output_tuple(self) -> BatchOutputs:
        """All outputs, in order."""
        return self._outputs

    def __repr__(self) -> str:
        return _rt.op_repr(_OP, self._outputs)


def batch(
    in_tensors: Any,
    *,
    num_batch_threads: int,
    max_batch_size: int,
    max_enqueued_batches: int = 10,
    batch_timeout_micros: int,
    allowed_batch_sizes: Sequence[int] = (),
    grad_timeout_micros: int,
    container: str = '',
    shared_name: str = '',
    batching_queue: str = '',
    scope: Scope | str | None = None,
) -> BatchOutputs:
    """Batches all the input tensors of concurrent calls nondeterministically.

    Args:
        in_tensors: list of T, shape [B, ...].
            The tensors to be batched, with rank >= 1 and a common dimension 0 (the rows
            of this call).
        num_batch_threads: int, >= 1, <= 1024.
            Number of scheduling threads for processing batches of work. Determines the
            number of batches processed in parallel. Threads start when batches need
            them (none before the first call) and exit after 30 s without work; at most
            1024.
        max_batch_size: int, >= 1, <= 1048576.
            Batch sizes will never be bigger than this; at most 1048576 (2**20) rows,
            which bounds the padding of a batch in rows (in bytes, a padded batch holds
            at most 2**32).
        max_enqueued_batches: int, >= 1, <= 1048576; default 10.
            Maximum number of batches enqueued. Default 10; at most 1048576 (2**20).
        batch_timeout_micros: int, >= 0.
            Maximum number of microseconds to wait before outputting an incomplete
            batch. Any int64 value works (2**63 - 1 waits for full batches, and close).
        allowed_batch_sizes: list(int), >= 1, <= 1048576; default ().
            Optional list of allowed batch sizes. If left empty, does nothing.
            Otherwise, supplies a list of batch sizes, causing the op to pad batches up
            to one of those sizes. The entries must increase monotonically, and the
            final entry must equal max_batch_size.
        grad_timeout_micros: int, >= 0.
            The timeout to use for the gradient (an Unbatch with this timeout_micros).
            See Unbatch.
        container: string; default ''.
            Controls the scope of sharing of this batch.
        shared_name: string; default ''.
            Concurrently running calls of Batch on the same device with the same
            container and shared_name batch their elements together. If left empty, the
            op name is used as the shared name.
        batching_queue: string; default ''.
            The queue of the batcher the calls join: calls with different batching_queue
            values share the batcher's threads but are never batched together.
        scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).

    Returns:
        BatchOutputs(batched_tensors, batch_index, id).

    Raises:
        TypeError: an argument has the wrong type or dtype.
        ValueError: a shape or an attribute value is not valid.
    """
    _torch = _rt.torch_call(in_tensors)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'in_tensors': in_tensors}, (num_batch_threads, max_batch_size, max_enqueued_batches, batch_timeout_micros, allowed_batch_sizes, grad_timeout_micros, container, shared_name, batching_queue))
    return _compute(scope, in_tensors, num_batch_threads, max_batch_size, max_enqueued_batches, batch_timeout_micros, allowed_batch_sizes, grad_timeout_micros, container, shared_name, batching_queue)


def _run(scope: Scope | str | None, in_tensors: Any, num_batch_threads: Any, max_batch_size: Any, max_enqueued_batches: Any, batch_timeout_micros: Any, allowed_batch_sizes: Any, grad_timeout_micros: Any, container: Any, shared_name: Any, batching_queue: Any) -> BatchOutputs:
    _torch = _rt.torch_call(in_tensors)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'in_tensors': in_tensors}, (num_batch_threads, max_batch_size, max_enqueued_batches, batch_timeout_micros, allowed_batch_sizes, grad_timeout_micros, container, shared_name, batching_queue))
    return _compute(scope, in_tensors, num_batch_threads, max_batch_size, max_enqueued_batches, batch_timeout_micros, allowed_batch_sizes, grad_timeout_micros, container, shared_name, batching_queue)


def _compute(scope: Scope | str | None, in_tensors: Any, num_batch_threads: Any, max_batch_size: Any, max_enqueued_batches: Any, batch_timeout_micros: Any, allowed_batch_sizes: Any, grad_timeout_micros: Any, container: Any, shared_name: Any, batching_queue: Any) -> BatchOutputs:
    _backend = _rt.backend_of(scope, _OP)
    num_batch_threads = _rt.check_int(_OP, 'num_batch_threads', num_batch_threads, 1, 1024, None)
    max_batch_size = _rt.check_int(_OP, 'max_batch_size', max_batch_size, 1, 1048576, None)
    max_enqueued_batches = _rt.check_int(_OP, 'max_enqueued_batches', max_enqueued_batches, 1, 1048576, None)
    batch_timeout_micros = _rt.check_int(_OP, 'batch_timeout_micros', batch_timeout_micros, 0, None, None)
    allowed_batch_sizes = _rt.check_int_list(_OP, 'allowed_batch_sizes', allowed_batch_sizes, 1, 1048576)
    grad_timeout_micros = _rt.check_int(_OP, 'grad_timeout_micros', grad_timeout_micros, 0, None, None)
    container = _rt.check_str(_OP, 'container', container, None)
    shared_name = _rt.check_str(_OP, 'shared_name', shared_name, None)
    batching_queue = _rt.check_str(_OP, 'batching_queue', batching_queue, None)
    in_tensors = [_backend.adopt(_OP, f'in_tensors[{_i}]', _v) for _i, _v in enumerate(_rt.check_list(_OP, 'in_tensors', in_tensors))]
    if not in_tensors:
        raise ValueError(f'{_OP}: in_tensors: expected a non-empty list of arrays')
    _dtype_T = tuple(_rt.check_dtype(_OP, f'in_tensors[{_i}]', _item, ('float16', 'bfloat16', 'float32', 'float64', 'int8', 'uint8', 'int32', 'uint32', 'int64', 'uint64', 'bool'), 'T') for _i, _item in enumerate(in_tensors))
    if in_tensors[0].ndim < 1:
        raise _rt.shape_error(_OP, 'in_tensors[0]', ('B', '...'), in_tensors[0].shape, {}, '')
    B = in_tensors[0].shape[0]
    for _i, _item in enumerate(in_tensors):
        if _item.ndim < 1:
            raise _rt.shape_error(_OP, f'in_tensors[{_i}]', ('B', '...'), _item.shape, {'B': B}, '')
        if _item.shape[0] != B:
            raise _rt.shape_error(_OP, f'in_tensors[{_i}]', ('B', '...'), _item.shape, {'B': B}, '')
    return BatchOutputs(*_runtime(_OP, _backend, in_tensors=in_tensors, num_batch_threads=num_batch_threads, max_batch_size=max_batch_size, max_enqueued_batches=max_enqueued_batches, batch_timeout_micros=batch_timeout_micros, allowed_batch_sizes=allowed_batch_sizes, grad_timeout_micros=grad_timeout_micros, container=container, shared_name=shared_name, batching_queue=batching_queue))
