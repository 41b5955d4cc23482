"""codegen/runtime/host/batch_timing.py: the kernels of a cpu call, logged at the runtime's batch
entry and run again on their own (bench/bench_host_overhead.py takes them off a call's time)."""

from __future__ import annotations

import numpy as np
import pytest

from codegen.runtime import host
from codegen.runtime.host import switches
from codegen.runtime.host.batch_timing import record_batches, replayer
from generated import Scope, layer_norm

SET_FIRST = 'extern "C" __global__ void set_first(float* x) { if (threadIdx.x == 0) x[0] += 1.f; }'


@pytest.fixture(autouse=True)
def batches_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The batch paths as a benchmark runs them: the sanitize build launches one at a time."""
    monkeypatch.setattr(switches, "_sanitize", False)


def test_queued_launches_are_logged_and_replayed() -> None:
    fn = host.load_module(SET_FIRST, name_hint="batch_timing").get_function("set_first")
    x = np.zeros(4, np.float32)
    queue = host.LaunchQueue()
    with record_batches() as log:
        assert queue.add(fn, (1,), (32,), (x,))
        assert queue.add(fn, (1,), (32,), (x,))
        queue.flush()
    assert [(entry[1], entry[2]) for entry in log] == [(2, None)]  # one batch of two launches, no table
    assert x[0] == 2
    kernels, crossings = replayer(log)
    kernels()  # the same two launches on the same array
    assert x[0] == 4
    crossings()  # empty batches: no kernel runs
    assert x[0] == 4


def test_a_replayed_plan_is_logged_with_its_buffer_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_NATIVE", "0")  # the Python path's replay (the native runner logs nothing here)
    scope = Scope("cpu")
    x = np.arange(16, dtype=np.float32).reshape(2, 8)
    expected = layer_norm(x, scope=scope).y.copy()  # (the first call records the plan; the next replays it)
    with record_batches() as log:
        out = layer_norm(x, scope=scope)
    assert len(log) == 1 and log[0][2] is not None
    kernels, _ = replayer(log)
    out.y.fill(0)
    kernels()  # the plan's launches again, writing the call's output
    np.testing.assert_array_equal(out.y, expected)


def test_a_call_into_the_runtime_that_is_no_batch_is_refused() -> None:
    fn = host.load_module(SET_FIRST, name_hint="batch_timing").get_function("set_first")
    x = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match=r"1 of the 1 calls into the runtime were not launch batches"):
        with record_batches():
            fn((1,), (32,), (x,))  # a launch on its own: the replay would miss it
    assert x[0] == 1


def test_recordings_do_not_nest_and_an_empty_log_is_refused() -> None:
    with record_batches() as log:
        with pytest.raises(RuntimeError, match="a recording is open already"):
            with record_batches():
                pass
    with pytest.raises(ValueError, match="the log is empty: the call ran no kernel"):
        replayer(log)
