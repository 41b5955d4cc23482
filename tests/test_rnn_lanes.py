"""A bidirectional RNN layer's step loop runs its directions as lanes on the cpu (`lanes: dirs` in
specs/rnn/cudnn_rnn_v3.yaml and cudnn_rnn_backprop_v3.yaml): each direction's GEMMs and step
launches in order on a thread of its own, one hand-off to the emulation pool a loop instead of one
per product and launch. Checked on both cpu paths (the native driver's batch, cpu_batch.h; the
Python plan's, host/replay.py): the results at two threads are bit for bit those at one, and the
pool's wake-ups do not grow with the number of steps, where the same loop without lanes (one
direction) wakes it every step."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_host_gemm_split import THREADS, _wakes, blas_threads

from generated import cudnn_rnn_backprop_v3, cudnn_rnn_params_size, cudnn_rnn_v3

pytestmark = pytest.mark.skipif(THREADS is None, reason="needs NumPy's OpenBLAS (its thread-count functions)")

T, B, IN, H = 12, 32, 64, 256  # a step's product (32 x 1024 x 256) is one the pool splits without lanes


def _inputs(direction: str, steps: int) -> tuple[np.ndarray, ...]:
    dirs = 2 if direction == "bidirectional" else 1
    size_of = cudnn_rnn_params_size(1, H, IN, t=np.float32, s=np.int64, rnn_mode="lstm", direction=direction,
                                    scope="cpu")
    size = int(np.asarray(size_of.params_size).reshape(-1)[0])
    rng = np.random.default_rng(7)
    x = rng.standard_normal((steps, B, IN)).astype(np.float32)
    h = rng.standard_normal((dirs, B, H)).astype(np.float32)
    c = rng.standard_normal((dirs, B, H)).astype(np.float32)
    params = (rng.standard_normal(size) * 0.05).astype(np.float32)
    lengths = np.full(B, steps, np.int32)
    return x, h, c, params, lengths


def _call(direction: str, steps: int = T) -> tuple[list[np.ndarray], int]:
    """The forward and backward's outputs, and the pool's wake-ups over both calls (the second of two:
    the first records the plan and sizes the pool)."""
    for _ in range(2):
        outputs, wakes = _run(direction, steps)
    return outputs, wakes


def _run(direction: str, steps: int) -> tuple[list[np.ndarray], int]:
    x, h, c, params, lengths = _inputs(direction, steps)
    attrs: dict[str, Any] = {"rnn_mode": "lstm", "direction": direction}
    wakes = _wakes()
    fwd = cudnn_rnn_v3(x, h, c, params, lengths, is_training=True, scope="cpu", **attrs)
    rng = np.random.default_rng(8)
    dy = rng.standard_normal(fwd.output.shape).astype(np.float32)
    bwd = cudnn_rnn_backprop_v3(x, h, c, params, lengths, fwd.output, fwd.output_h, fwd.output_c, dy,
                                np.zeros_like(fwd.output_h), np.zeros_like(fwd.output_c), fwd.reserve_space,
                                fwd.host_reserved, scope="cpu", **attrs)
    return [np.asarray(a) for a in (*fwd, *bwd)], _wakes() - wakes


@pytest.mark.parametrize("blas", [2, 1])  # (1: the GEMMs are not split; the launches' threads make the lanes')
@pytest.mark.parametrize("native", ["1", "0"])
def test_the_directions_run_as_lanes(native: str, blas: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_NATIVE", native)
    monkeypatch.setenv("OPGEN_HOST_THREADS", "1")
    with blas_threads(1):
        alone, _ = _call("bidirectional")
    monkeypatch.setenv("OPGEN_HOST_THREADS", "2")
    with blas_threads(blas):
        laned, wakes = _call("bidirectional")
        _, wakes_longer = _call("bidirectional", 2 * T)
        _, one_lane = _call("unidirectional")
        _, one_lane_longer = _call("unidirectional", 2 * T)
    assert [a.tobytes() for a in laned] == [a.tobytes() for a in alone]
    assert wakes >= 2, "the forward's and the backward's lane runs were not handed to the pool"
    # T more steps, about the same hand-offs (a launch's pool-or-inline choice is timed, so a few may move);
    # without lanes, 12 more steps woke it 22 more times at one BLAS thread, 73 at two (2026-11-30)
    assert wakes_longer - wakes <= T // 4, f"{T} more steps woke the pool {wakes_longer - wakes} more times"
    if blas == 2:  # each step's product split over the pool where a loop has one lane
        assert one_lane_longer - one_lane >= 2 * T, f"{T} more steps of one lane: {one_lane_longer - one_lane}"
