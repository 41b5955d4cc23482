"""`batch_function`: the everyday way to batch requests.

```python
@batch_function(max_batch_size=32, batch_timeout_micros=1000)
def model(x):                   # x: [B, ...], the rows of many requests (and padding)
    return x @ weights          # an array, or a tuple/list/dict of arrays, with B rows each

y = model(x_one_request)        # from any thread: runs in a batch, returns this request's rows
y = await model.async_call(x)   # from asyncio
```

Each call is a task on the function's own `BatchScheduler` (started on the first call, closed by
`close()` or at interpreter exit). The function runs once per batch on a worker thread with every
argument concatenated along dim 0 (in the arrays' own module: NumPy, or CuPy on the GPU) and padded
to the smallest of `allowed_batch_sizes` that holds the batch; each caller gets its own rows of every
output, padding removed. If the function raises, every caller of that batch gets the exception.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from codegen.runtime.arrays import device_scope
from codegen.runtime.batching.arrays import concat_rows, row_bytes
from codegen.runtime.batching.scheduler import DONE, BatchScheduler, Task, caller_error, make_config

if TYPE_CHECKING:
    import asyncio


def batch_function(*, max_batch_size: int, batch_timeout_micros: int, allowed_batch_sizes: Sequence[int] | None = None,
                   num_batch_threads: int = 1, max_enqueued_batches: int = 10) -> Callable[[Callable[..., Any]],
                                                                                           BatchedFunction]:
    """Decorator: calls of the decorated function from many threads (or coroutines) are batched.

    Args:
        max_batch_size: the most rows in one batch (at most MAX_BATCH_SIZE, 2**20); a call with
            more rows is refused.
        batch_timeout_micros: how long a batch waits for more calls after its first one (any int64).
        allowed_batch_sizes: optional strictly increasing sizes ending with max_batch_size; each
            batch is padded up to the smallest one that holds it (the first row repeated). A padded
            batch holds at most MAX_BATCH_BYTES (2**32) bytes: a call whose own would hold more
            raises BatchTooLargeError at once.
        num_batch_threads: how many batches run at once (worker threads, at most
            MAX_BATCH_THREADS, 1024); threads start when batches need them and exit when idle.
        max_enqueued_batches: how many batches may wait (at most MAX_ENQUEUED_BATCHES, 2**20);
            beyond that a call raises QueueFullError.

    The bounds (codegen.runtime.batching.scheduler) are checked here, before any thread starts.
    """
    def decorate(fn: Callable[..., Any]) -> BatchedFunction:
        return BatchedFunction(fn, max_batch_size=max_batch_size, batch_timeout_micros=batch_timeout_micros,
                               allowed_batch_sizes=allowed_batch_sizes, num_batch_threads=num_batch_threads,
                               max_enqueued_batches=max_enqueued_batches)

    return decorate


def _rows_of(output: Any, start: int, end: int) -> Any:
    """One caller's rows of the function's output: an array, or tuples, lists, named tuples and
    dicts of them (nested), rebuilt with the same structure."""
    if isinstance(output, dict):
        return {k: _rows_of(v, start, end) for k, v in output.items()}
    if isinstance(output, (tuple, list)):
        parts = [_rows_of(v, start, end) for v in output]
        if isinstance(output, list):
            return parts
        return type(output)(*parts) if hasattr(output, "_fields") else tuple(parts)
    return output[start:end]


def _leaves(output: Any, path: str = "") -> list[tuple[str, Any]]:
    """The arrays of an output structure, with where they are (`[0]`, `['logits']`)."""
    if isinstance(output, dict):
        return [leaf for k, v in output.items() for leaf in _leaves(v, f"{path}[{k!r}]")]
    if isinstance(output, (tuple, list)):
        return [leaf for i, v in enumerate(output) for leaf in _leaves(v, f"{path}[{i}]")]
    return [(path, output)]


class BatchedFunction:
    """A function whose calls are batched (see `batch_function`)."""

    def __init__(self, fn: Callable[..., Any], *, max_batch_size: int, batch_timeout_micros: int,
                 allowed_batch_sizes: Sequence[int] | None = None, num_batch_threads: int = 1,
                 max_enqueued_batches: int = 10):
        if not callable(fn):
            raise TypeError(f"batch_function: expected a function, got {type(fn).__name__} {fn!r}")
        functools.update_wrapper(self, fn)
        self.name = f"batch_function({getattr(fn, '__qualname__', repr(fn))})"
        self.config = make_config(self.name, num_batch_threads, max_batch_size, batch_timeout_micros,
                                  max_enqueued_batches, allowed_batch_sizes)
        self._fn = fn
        self._scheduler = BatchScheduler(self.name, self.config, self._process)

    def __repr__(self) -> str:
        return f"<{self.name}: {self.config.text()}>"

    # -- calls -----------------------------------------------------------------------------
    def _task(self, args: tuple[Any, ...], callback: Callable[[Task], None] | None = None) -> Task:
        name = self.name
        if not args:
            raise TypeError(f"{name}: expected at least one array argument (the rows to batch), got none")
        for i, value in enumerate(args):
            if not (hasattr(value, "shape") and hasattr(value, "dtype")):
                raise TypeError(f"{name}: argument {i}: expected an array, got {type(value).__name__}")
            if len(value.shape) == 0:
                raise ValueError(f"{name}: argument {i}: expected an array with a batch dimension (rank >= 1), "
                                 f"got shape []")
        rows = int(args[0].shape[0])
        for i, value in enumerate(args[1:], 1):
            if int(value.shape[0]) != rows:
                raise ValueError(f"{name}: argument {i}: expected {rows} rows (dim 0 of argument 0), got shape "
                                 f"[{', '.join(str(d) for d in value.shape)}]")
        if rows > self.config.max_batch_size:
            raise ValueError(f"{name}: a call of {rows} rows is larger than max_batch_size="
                             f"{self.config.max_batch_size}; split it or raise max_batch_size")
        key = tuple((type(a), a.shape[1:], a.dtype) for a in args)
        return Task(rows, key, args, callback, row_bytes(args))

    def __call__(self, *args: Any) -> Any:
        """Runs this call's rows in a batch and returns its rows of the outputs. A call with no rows
        runs the function at once, unbatched."""
        task = self._task(args)
        if task.size == 0:
            return self._fn(*args)
        self._scheduler.submit(task)
        return task.wait(self._scheduler)

    async def async_call(self, *args: Any) -> Any:
        """`await fn.async_call(x)`: as a call, without blocking the event loop. Cancelling the
        awaiting coroutine withdraws the call from its batch (if the batch has not started)."""
        import asyncio  # here, not at import: `import generated` should not pay for asyncio

        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()

        def done(task: Task) -> None:  # on the worker thread
            loop.call_soon_threadsafe(_settle, future, task)

        task = self._task(args, done)
        if task.size == 0:
            return self._fn(*args)
        self._scheduler.submit(task)
        try:
            return await future
        except asyncio.CancelledError:
            self._scheduler.cancel(task)
            raise

    # -- the batch -------------------------------------------------------------------------
    def _process(self, batch: Any) -> Callable[[list[Task]], None]:
        tasks: list[Task] = batch.tasks
        first = tasks[0].payload
        padded = batch.padded
        with device_scope(first[0]):
            inputs = [concat_rows([t.payload[i] for t in tasks], padded) for i in range(len(first))]
            output = self._fn(*inputs)
        for path, value in _leaves(output):
            shape = getattr(value, "shape", None)
            if shape is None or len(shape) == 0 or int(shape[0]) != padded:
                got = f"shape [{', '.join(str(d) for d in shape)}]" if shape is not None else type(value).__name__
                raise ValueError(f"{self.name}: output{path}: expected an array with {padded} rows (the batch's "
                                 f"size, padding included), got {got}")

        def assign(live: list[Task]) -> None:
            start = 0
            for task in tasks:
                end = start + task.size
                if task.state == DONE:
                    task.result = _rows_of(output, start, end)
                start = end

        return assign

    # -- lifecycle -------------------------------------------------------------------------
    def close(self, timeout: float = 5.0) -> None:
        """Stops the scheduler: batches already formed complete (within `timeout` seconds), later
        calls raise BatchingClosedError. From inside the function, the running batch completes."""
        self._scheduler.close(timeout)

    @property
    def closed(self) -> bool:
        return self._scheduler.closed

    def stats(self) -> dict[str, float]:
        """The scheduler's counters: tasks, batches, rows, padded_rows, mean_batch_size, ..."""
        return self._scheduler.stats()

    def __enter__(self) -> BatchedFunction:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _settle(future: asyncio.Future[Any], task: Task) -> None:
    if future.done():  # cancelled meanwhile
        return
    if task.error is not None:
        future.set_exception(caller_error(task.error))
    else:
        future.set_result(task.result)
