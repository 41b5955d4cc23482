"""Request batching across concurrent callers: the runtime behind the Batch, Unbatch and
UnbatchGrad ops (generated/batching/) and the `batch_function` decorator.

- `batch_function(max_batch_size=..., batch_timeout_micros=...)`: make a function of a batch
  callable per request from many threads (`fn(x)`) or coroutines (`await fn.async_call(x)`).
- `close_all()`: stop every batching resource and scheduler (also done at interpreter exit).
- Errors: `QueueFullError`, `DeadlineExceededError`, `DuplicateIdError`, `BatchingClosedError`,
  `BatchTooLargeError`, all `BatchingError`s.
"""

from codegen.runtime.batching.errors import (
    BatchingClosedError,
    BatchingError,
    BatchTooLargeError,
    DeadlineExceededError,
    DuplicateIdError,
    QueueFullError,
)
from codegen.runtime.batching.function import BatchedFunction, batch_function
from codegen.runtime.batching.ops import set_unbatch_grad_timeout
from codegen.runtime.batching.registry import close_all
from codegen.runtime.batching.scheduler import BatchConfig, BatchScheduler, Task, make_config

__all__ = [
    "BatchConfig", "BatchScheduler", "BatchTooLargeError", "BatchedFunction", "BatchingClosedError", "BatchingError",
    "DeadlineExceededError", "DuplicateIdError", "QueueFullError", "Task", "batch_function", "close_all",
    "make_config", "set_unbatch_grad_timeout",
]
