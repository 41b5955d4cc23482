"""`values: {..., on_device: true}` lets the cuda backend launch the kernels before its check of
`sequence_lengths` has said anything (codegen/runtime/device_value_checks.py), on the promise that
those kernels only compare the lengths. This holds them to it: lengths far outside their bounds
(negative, 0, beyond T, 2³¹ − 1) through CudnnRNNV3 and its gradient (every mode, bidirectional,
two layers, with a projection) and DmlRnn (its persistent variant and its GEMM steps), on the stand-in
CuPy whose kernels the host emulation runs. Every call runs to the end with finite outputs, and
Scope.synchronize() raises the error. CI runs this module again under the emulation's sanitize
build (tests/test_kernels_sanitized.py), where any access outside a buffer fails."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import fake_cupy
import numpy as np
import pytest

from codegen.runtime.scope import Scope
from opgen_ops.cudnn_rnn import params_layout

BAD = np.array([-5, 0, 5 + 100, 2**31 - 1, 3], np.int32)  # T = 5: only the last is within [1, T]


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    return fake_cupy.install(monkeypatch, tmp_path, fake_cupy.FakeCublasLibrary())


def _finite(outputs: Any, what: str) -> None:
    for name, value in zip(outputs._fields, outputs, strict=True):
        if value is not None and np.asarray(value.get()).dtype.kind == "f":
            assert np.isfinite(value.get()).all(), f"{what}: {name}"


@pytest.mark.parametrize("mode, proj", [("lstm", 0), ("lstm", 2), ("gru", 0), ("rnn_tanh", 0), ("rnn_relu", 0)])
def test_cudnn_rnn_forward_and_backward_stay_in_bounds(fake: Any, mode: str, proj: int) -> None:
    from generated import cudnn_rnn_backprop_v3, cudnn_rnn_v3

    cp, scope = sys.modules["cupy"], Scope("cuda")
    rng = np.random.default_rng(8)
    steps, batch, n_in, units, layers = 5, len(BAD), 3, 4, 2
    h = proj or units
    size = params_layout(mode, layers, units, n_in, "bidirectional", "linear_input", proj).size
    host = [rng.standard_normal((steps, batch, n_in)), rng.uniform(-1, 1, (2 * layers, batch, h)),
            rng.uniform(-1, 1, (2 * layers, batch, units)) if mode == "lstm" else np.zeros(0),
            rng.uniform(-0.5, 0.5, size)]
    x, h0, c0, params = (cp.asarray(a.astype(np.float32)) for a in host)
    attrs = {"rnn_mode": mode, "direction": "bidirectional", "num_proj": proj}
    lengths = cp.asarray(BAD)
    fw = cudnn_rnn_v3(x, h0, c0, params, lengths, scope=scope, **attrs)
    with pytest.raises(ValueError, match=r"CudnnRNNV3: sequence_lengths: .* got -5 at index \[0\]"):
        scope.synchronize()
    _finite(fw, "forward")
    grads = [cp.asarray(rng.standard_normal(a.shape).astype(np.float32)) for a in (fw.output, fw.output_h)]
    dc = cp.asarray(rng.standard_normal(fw.output_c.shape).astype(np.float32)) if mode == "lstm" else c0
    bw = cudnn_rnn_backprop_v3(x, h0, c0, params, lengths, fw.output, fw.output_h, fw.output_c, *grads, dc,
                               fw.reserve_space, fw.host_reserved, scope=scope, **attrs)
    with pytest.raises(ValueError, match=r"CudnnRNNBackpropV3: sequence_lengths: .* got -5 at index \[0\]"):
        scope.synchronize()
    _finite(bw, "backward")


@pytest.mark.parametrize("batch, hidden", [(5, 8), (70, 3), (5, 300)])  # persistent, fused, GEMM steps (B, H)
def test_dml_rnn_stays_in_bounds(fake: Any, batch: int, hidden: int) -> None:
    from generated import dml_rnn

    cp, scope = sys.modules["cupy"], Scope("cuda")
    rng = np.random.default_rng(9)
    x = cp.asarray(rng.standard_normal((1, 5, batch, 3)).astype(np.float32))
    w = cp.asarray((rng.standard_normal((1, 2, hidden, 3)) * 0.3).astype(np.float32))
    r = cp.asarray((rng.standard_normal((1, 2, hidden, hidden)) / np.sqrt(hidden)).astype(np.float32))
    lengths = np.resize(BAD.astype(np.int64), batch)
    out = dml_rnn(x, w, r, sequence_lengths=cp.asarray(lengths.reshape(1, 1, 1, batch)), direction="bidirectional",
                  scope=scope)
    with pytest.raises(ValueError, match=r"DmlRnn: sequence_lengths: .* got -5 at index \[0, 0, 0, 0\]"):
        scope.synchronize()
    _finite(out, "DmlRnn")
