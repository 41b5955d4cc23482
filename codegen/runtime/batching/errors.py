"""The exceptions of the batching runtime. Every message names the op (or the batched function),
what was expected and what happened."""

from __future__ import annotations


class BatchingError(RuntimeError):
    """Base class of the batching runtime's own failures."""


class QueueFullError(BatchingError):
    """A task was refused because max_enqueued_batches batches are already waiting."""


class BatchingClosedError(BatchingError):
    """The scheduler or rendezvous was closed (explicitly, or at interpreter exit) before the task
    could complete."""


class DeadlineExceededError(BatchingError, TimeoutError):
    """A rendezvous (Unbatch, UnbatchGrad) did not complete before its deadline."""


class DuplicateIdError(BatchingError, ValueError):
    """Two invocations used the same id in one Unbatch/UnbatchGrad resource."""


class BatchTooLargeError(BatchingError, ValueError):
    """A task whose padded batch would hold more than MAX_BATCH_BYTES bytes was refused."""
