"""The CudnnRNN family on the cpu emulation backend: CudnnRNNV3 and CudnnRNNBackpropV3 against an
independent float64 NumPy reference (tests/reference/cudnn_rnn.py, itself checked against
PyTorch below) over every rnn_mode × direction × input_mode × time_major, 1 to 3 layers,
num_proj, equal and unequal lengths (length 1, a batch of 1); every gradient against central
differences; PyTorch's nn.LSTM / nn.GRU / nn.RNN through the canonical weights and
pack_padded_sequence (forward and backward); dropout; the params ops; bad input.

Every test asks the runtime to poison outputs and scratch buffers with NaN before the kernels
run, so an element that nothing writes fails the comparisons.
"""

from __future__ import annotations

import itertools
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import gpu_plan_with_launches
from messages import assert_message, shape_texts
from reference.cudnn_rnn import GATES, canonical_shapes, dropout_mask, rnn_backward, rnn_forward

from generated import (
    CudnnRNNBackpropV3,
    CudnnRNNV3,
    Scope,
    cudnn_rnn_backprop_v3,
    cudnn_rnn_canonical_to_params_v2,
    cudnn_rnn_params_size,
    cudnn_rnn_params_to_canonical_v2,
    cudnn_rnn_v3,
)
from opgen_ops.cudnn_rnn import params_layout

PROJECT = Path(__file__).resolve().parent.parent
MODES = ("rnn_relu", "rnn_tanh", "lstm", "gru")
DIRECTIONS = ("unidirectional", "bidirectional")
INPUT_MODES = ("linear_input", "skip_input", "auto_select")
FWD, BWD = "CudnnRNNV3", "CudnnRNNBackpropV3"
# float64: the op computes in double, so only the order of the sums differs from the reference
# (a few ulp, times the number of steps and layers). float32: products of K ≤ 4H + D·Hh terms and
# T chained steps, 1e-5 of the scale. float16: every GEMM result, activation and state is stored
# in half precision (2^-11 relative), 2e-2 of the scale. Indexing, direction, masking or layout
# errors are O(1).
TOL = {"float64": 1e-11, "float32": 2e-5, "float16": 2e-2}


pytestmark = pytest.mark.usefixtures("opgen_poison")  # (opgen's pytest plugin) an element no kernel writes is NaN


@pytest.fixture
def scope(device_scope):
    """The selected device (cpu unless the session asked for cuda: conftest.py)."""
    return device_scope


def _host(a) -> np.ndarray:
    """An output as a NumPy array whatever the backend (CuPy arrays are copied)."""
    get = getattr(a, "get", None)
    return get() if callable(get) and hasattr(a, "__cuda_array_interface__") else np.asarray(a)


def _rng(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def _f64(a) -> np.ndarray:
    return _host(a).astype(np.float64)


def _mag(a) -> float:
    a = _f64(a)
    return max(1.0, float(np.abs(a).max())) if a.size else 1.0


def _close(name: str, actual, expected, dtype: str, tol: float | None = None) -> None:
    actual = _host(actual)
    expected = _f64(expected)
    assert actual.shape == expected.shape, f"{name}: shape {actual.shape}, expected {expected.shape}"
    assert actual.dtype == np.dtype(dtype), f"{name}: dtype {actual.dtype}, expected {dtype}"
    assert not np.isnan(_f64(actual)).any(), f"{name}: NaN elements (an output element was never written?)"
    atol = (TOL[dtype] if tol is None else tol) * _mag(expected)
    np.testing.assert_allclose(_f64(actual), expected, rtol=0, atol=atol, err_msg=name)


class Case:
    """One configuration: canonical weights, inputs, the op's attrs, and the reference."""

    def __init__(self, mode="lstm", direction="unidirectional", input_mode="linear_input", layers=1, steps=4,
                 batch=3, input_size=3, units=3, proj=0, time_major=True, lengths=None, dtype="float64",
                 key=(), dropout=0.0, seed=0, seed2=0):
        rng = _rng(mode, direction, input_mode, layers, steps, batch, input_size, units, proj, time_major, dtype, key)
        self.mode, self.direction, self.input_mode, self.L = mode, direction, input_mode, layers
        self.T, self.B, self.I, self.H, self.P = steps, batch, input_size, units, proj
        self.D = 2 if direction == "bidirectional" else 1
        self.Hh = proj or units
        self.tm, self.dtype = time_major, dtype
        self.skip = input_mode == "skip_input" or (input_mode == "auto_select" and input_size == units)
        ws, bs = canonical_shapes(mode, layers, self.D, input_size, units, proj, self.skip)
        scale = 1.0 / np.sqrt(max(units, 1))
        self.weights = [rng.uniform(-1, 1, s).astype(dtype) * np.asarray(scale, dtype) for s in ws]
        self.biases = [rng.uniform(-0.5, 0.5, s).astype(dtype) for s in bs]
        self.params = np.concatenate([w.ravel() for w in self.weights] + [b.ravel() for b in self.biases])
        x = rng.normal(0, 1, (steps, batch, input_size))
        h0 = rng.uniform(-1, 1, (layers * self.D, batch, self.Hh))
        c0 = rng.uniform(-1, 1, (layers * self.D, batch, units))
        tr = (lambda a: a) if time_major else (lambda a: np.ascontiguousarray(np.swapaxes(a, 0, 1)))
        self.x, self.h0, self.c0 = (tr(a).astype(dtype) for a in (x, h0, c0))
        if mode != "lstm":
            self.c0 = np.zeros(0, dtype)  # what TensorFlow passes for the other modes
        self.lengths = np.full(batch, steps, np.int32) if lengths is None else np.asarray(lengths, np.int32)
        self.dropout, self.seed, self.seed2 = dropout, seed, seed2
        self.masks = None
        if dropout > 0:
            self.masks = [dropout_mask(seed, seed2, layer, (steps, batch, self.D * self.Hh), dropout)
                          for layer in range(layers - 1)]
        self.grad_rng = rng

    def attrs(self, **extra) -> dict[str, Any]:
        out = {"rnn_mode": self.mode, "direction": self.direction, "input_mode": self.input_mode,
               "num_proj": self.P, "time_major": self.tm, "dropout": self.dropout, "seed": self.seed,
               "seed2": self.seed2}
        out.update(extra)
        return out

    def reference(self) -> dict:
        return rnn_forward(self.x, self.h0, self.c0, self.weights, self.biases, mode=self.mode,
                           bidirectional=self.D == 2, skip_input=self.skip, num_proj=self.P, lengths=self.lengths,
                           time_major=self.tm, masks=self.masks)

    def forward(self, scope, **extra):
        return cudnn_rnn_v3(self.x, self.h0, self.c0, self.params, self.lengths, scope=scope, **self.attrs(**extra))

    def output_grads(self, fw) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        dt = self.dtype
        dy = self.grad_rng.normal(0, 1, fw.output.shape).astype(dt)
        dh = self.grad_rng.normal(0, 1, fw.output_h.shape).astype(dt)
        dc = self.grad_rng.normal(0, 1, fw.output_c.shape).astype(dt) if self.mode == "lstm" else np.zeros(0, dt)
        return dy, dh, dc

    def backward(self, scope, fw, dy, dh, dc):
        return cudnn_rnn_backprop_v3(self.x, self.h0, self.c0, self.params, self.lengths, fw.output, fw.output_h,
                                     fw.output_c, dy, dh, dc, fw.reserve_space, fw.host_reserved, scope=scope,
                                     **{k: v for k, v in self.attrs().items()})

    def flat_grads(self, ref_grads: dict) -> np.ndarray:
        return np.concatenate([w.ravel() for w in ref_grads["weights"]] + [b.ravel() for b in ref_grads["biases"]])


def _check_case(case: Case, scope) -> None:
    """Forward and backward of the op against the reference, every output and gradient."""
    dt = case.dtype
    fw = case.forward(scope)
    ref = case.reference()
    _close("output", fw.output, ref["output"], dt)
    _close("output_h", fw.output_h, ref["output_h"], dt)
    if case.mode == "lstm":
        _close("output_c", fw.output_c, ref["output_c"], dt)
    else:
        assert fw.output_c.size == 0
    assert fw.reserve_space.ndim == 1 and not np.isnan(_f64(fw.reserve_space)).any()
    assert fw.host_reserved.shape == (0,)
    assert fw.host_reserved.dtype == np.int8
    dy, dh, dc = case.output_grads(fw)
    g = case.backward(scope, fw, dy, dh, dc)
    rg = rnn_backward(ref, dy, dh, dc if case.mode == "lstm" else None)
    _close("input_backprop", g.input_backprop, rg["input"], dt)
    _close("input_h_backprop", g.input_h_backprop, rg["input_h"], dt)
    if case.mode == "lstm":
        _close("input_c_backprop", g.input_c_backprop, rg["input_c"], dt)
    else:
        assert g.input_c_backprop.size == 0
    _close("params_backprop", g.params_backprop, case.flat_grads(rg), dt)


# ---------------------------------------------------------------------------------------------
# The reference itself, against PyTorch (CPU, float64)
# ---------------------------------------------------------------------------------------------
def _torch_module(torch, mode, layers, bidirectional, input_size, units, proj, batch_first):
    kw = {"input_size": input_size, "hidden_size": units, "num_layers": layers, "bidirectional": bidirectional,
          "batch_first": batch_first, "dtype": torch.float64}
    if mode == "lstm":
        return torch.nn.LSTM(proj_size=proj, **kw)
    if mode == "gru":
        return torch.nn.GRU(**kw)
    return torch.nn.RNN(nonlinearity=mode[4:], **kw)


def _load_canonical(torch, module, mode, layers, dirs, proj, weights, biases) -> None:
    """PyTorch's parameters from the canonical lists: no reordering, only concatenation."""
    g = GATES[mode]
    wi = bi = 0
    with torch.no_grad():
        for layer, d in itertools.product(range(layers), range(dirs)):
            sfx = f"l{layer}" + ("_reverse" if d else "")
            for name, count in (("weight_ih_", g), ("weight_hh_", g)):
                getattr(module, name + sfx).copy_(torch.from_numpy(np.concatenate(weights[wi:wi + count])))
                wi += count
            if proj:
                getattr(module, "weight_hr_" + sfx).copy_(torch.from_numpy(weights[wi]))
                wi += 1
            for name in ("bias_ih_", "bias_hh_"):
                getattr(module, name + sfx).copy_(torch.from_numpy(np.concatenate(biases[bi:bi + g])))
                bi += g


def _torch_canonical_grads(module, mode, layers, dirs, proj) -> tuple[list, list]:
    g = GATES[mode]
    weights, biases = [], []
    for layer, d in itertools.product(range(layers), range(dirs)):
        sfx = f"l{layer}" + ("_reverse" if d else "")
        for name in ("weight_ih_", "weight_hh_"):
            weights += np.split(getattr(module, name + sfx).grad.numpy(), g)
        if proj:
            weights.append(getattr(module, "weight_hr_" + sfx).grad.numpy())
        for name in ("bias_ih_", "bias_hh_"):
            biases += np.split(getattr(module, name + sfx).grad.numpy(), g)
    return weights, biases


def _torch_run(case: Case, dy, dh, dc):
    """PyTorch's forward and backward of the case (float64), through pack_padded_sequence."""
    torch = pytest.importorskip("torch")
    module = _torch_module(torch, case.mode, case.L, case.D == 2, case.I, case.H, case.P, not case.tm)
    _load_canonical(torch, module, case.mode, case.L, case.D, case.P, [_f64(w) for w in case.weights],
                    [_f64(b) for b in case.biases])
    state_tm = (lambda a: a) if case.tm else (lambda a: np.ascontiguousarray(np.swapaxes(a, 0, 1)))
    x = torch.tensor(_f64(case.x), requires_grad=True)
    h0 = torch.tensor(state_tm(_f64(case.h0)), requires_grad=True)
    c0 = torch.tensor(state_tm(_f64(case.c0)), requires_grad=True) if case.mode == "lstm" else None
    packed = torch.nn.utils.rnn.pack_padded_sequence(x, torch.tensor(case.lengths.astype(np.int64)),
                                                     batch_first=not case.tm, enforce_sorted=False)
    out, state = module(packed, (h0, c0) if c0 is not None else h0)
    y, _ = torch.nn.utils.rnn.pad_packed_sequence(out, batch_first=not case.tm, total_length=case.T)
    hn = state[0] if c0 is not None else state
    loss = (y * torch.tensor(_f64(dy))).sum() + (hn * torch.tensor(state_tm(_f64(dh)))).sum()
    if c0 is not None:
        loss = loss + (state[1] * torch.tensor(state_tm(_f64(dc)))).sum()
    loss.backward()
    back = (lambda a: a) if case.tm else (lambda a: np.swapaxes(a, 0, 1))
    result = {"output": y.detach().numpy(), "output_h": back(hn.detach().numpy()), "input": x.grad.numpy(),
              "input_h": back(h0.grad.numpy())}
    if c0 is not None:
        result["output_c"] = back(state[1].detach().numpy())
        result["input_c"] = back(c0.grad.numpy())
    result["weights"], result["biases"] = _torch_canonical_grads(module, case.mode, case.L, case.D, case.P)
    return result


TORCH_CASES = [
    pytest.param(dict(mode=m, direction=d, layers=n, proj=p, time_major=tm), id=f"{m}-{d}-L{n}-P{p}-tm{int(tm)}")
    for m, d, n, p, tm in [("lstm", "bidirectional", 2, 0, True), ("lstm", "unidirectional", 3, 2, False),
                           ("lstm", "bidirectional", 2, 2, True), ("gru", "bidirectional", 3, 0, False),
                           ("gru", "unidirectional", 1, 0, True), ("rnn_tanh", "bidirectional", 2, 0, True),
                           ("rnn_relu", "unidirectional", 2, 0, False)]
]


@pytest.mark.parametrize("kw", TORCH_CASES)
def test_reference_matches_pytorch(kw):
    """The float64 reference is PyTorch's computation (unequal lengths, the canonical weights)."""
    case = Case(lengths=[4, 1, 3], units=3, input_size=4, **kw)
    ref = case.reference()
    rng = _rng("torch-ref", kw)
    dy = rng.normal(size=ref["output"].shape)
    dh = rng.normal(size=ref["output_h"].shape)
    dc = rng.normal(size=ref["output_c"].shape) if case.mode == "lstm" else None
    tr = _torch_run(case, dy, dh, dc)
    rg = rnn_backward(ref, dy, dh, dc)
    for name in ("output", "output_h", "output_c"):
        if name in tr:
            np.testing.assert_allclose(ref[name], tr[name], rtol=0, atol=1e-12, err_msg=name)
    for name in ("input", "input_h", "input_c"):
        if name in tr:
            np.testing.assert_allclose(rg[name], tr[name], rtol=0, atol=1e-12, err_msg=name)
    for kind in ("weights", "biases"):
        for k, (a, b) in enumerate(zip(rg[kind], tr[kind], strict=True)):
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-12, err_msg=f"{kind}[{k}]")


@pytest.mark.parametrize("kw", TORCH_CASES)
def test_op_matches_pytorch_through_canonical_weights(scope, kw):
    """The op against PyTorch, float32: params built by CudnnRNNCanonicalToParamsV2 from PyTorch's
    parameter row blocks, params_backprop read back by CudnnRNNParamsToCanonicalV2."""
    case = Case(lengths=[4, 1, 3], units=3, input_size=4, dtype="float32", **kw)
    attrs = {k: v for k, v in case.attrs().items() if k in ("rnn_mode", "direction", "input_mode", "num_proj")}
    params = cudnn_rnn_canonical_to_params_v2(case.L, case.H, case.I, case.weights, case.biases, scope=scope,
                                              **attrs).params
    np.testing.assert_array_equal(_host(params), case.params)
    fw = cudnn_rnn_v3(case.x, case.h0, case.c0, params, case.lengths, scope=scope, **case.attrs())
    dy, dh, dc = case.output_grads(fw)
    g = case.backward(scope, fw, dy, dh, dc)
    tr = _torch_run(case, dy, dh, dc)
    for name, ours in (("output", fw.output), ("output_h", fw.output_h), ("input", g.input_backprop),
                       ("input_h", g.input_h_backprop)):
        _close(name, ours, tr[name], "float32")
    if case.mode == "lstm":
        _close("output_c", fw.output_c, tr["output_c"], "float32")
        _close("input_c", g.input_c_backprop, tr["input_c"], "float32")
    n_w, n_b = len(case.weights), len(case.biases)
    canon = cudnn_rnn_params_to_canonical_v2(case.L, case.H, case.I, g.params_backprop, num_params_weights=n_w,
                                             num_params_biases=n_b, scope=scope, **attrs)
    for kind, ours in (("weights", canon.weights), ("biases", canon.biases)):
        for k, (a, b) in enumerate(zip(ours, tr[kind], strict=True)):
            _close(f"{kind}[{k}]", a, b, "float32")


# ---------------------------------------------------------------------------------------------
# The op against the reference: the whole grid of modes, directions, input modes and layouts
# ---------------------------------------------------------------------------------------------
def _grid():
    cases = []
    for n, (mode, direction, input_mode, tm) in enumerate(itertools.product(MODES, DIRECTIONS, INPUT_MODES,
                                                                             (True, False))):
        layers = 1 + n % 3
        # auto_select: I == H on even cases (skips), I != H on odd ones (linear)
        same = input_mode == "skip_input" or (input_mode == "auto_select" and n % 2 == 0)
        lengths = [[4, 2, 1], None, [1, 4, 3]][n % 3]
        cases.append(pytest.param(dict(mode=mode, direction=direction, input_mode=input_mode, time_major=tm,
                                       layers=layers, input_size=3 if same else 2, units=3, lengths=lengths),
                                  id=f"{mode}-{direction[:3]}-{input_mode}-tm{int(tm)}-L{layers}"))
    return cases


@pytest.mark.parametrize("kw", _grid())
def test_matches_reference(scope, kw):
    _check_case(Case(**kw), scope)


@pytest.mark.parametrize(("direction", "layers", "input_mode", "time_major"),
                         [("unidirectional", 1, "linear_input", True), ("bidirectional", 3, "linear_input", False),
                          ("bidirectional", 2, "skip_input", True), ("unidirectional", 2, "auto_select", False)])
def test_lstm_projection_matches_reference(scope, direction, layers, input_mode, time_major):
    """num_proj: h = P_proj·(o∘tanh(c)), h of width num_proj, c of width num_units."""
    _check_case(Case(mode="lstm", direction=direction, layers=layers, input_mode=input_mode, time_major=time_major,
                     input_size=4, units=4, proj=2, lengths=[4, 1, 2]), scope)


@pytest.mark.parametrize(("batch", "steps", "lengths"),
                         [(1, 1, [1]), (1, 5, [3]), (4, 3, [1, 1, 1, 1]), (4, 3, [3, 3, 3, 3]), (2, 6, [6, 1])])
@pytest.mark.parametrize("mode", MODES)
def test_lengths_edge_cases(scope, mode, batch, steps, lengths):
    """A batch of 1, one step, every length 1, every length T."""
    _check_case(Case(mode=mode, direction="bidirectional", layers=2, batch=batch, steps=steps, lengths=lengths,
                     input_size=2, units=3), scope)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("mode", MODES)
def test_lower_precision(scope, mode, dtype):
    _check_case(Case(mode=mode, direction="bidirectional", layers=2, lengths=[4, 2, 3], input_size=3, units=5,
                     proj=2 if mode == "lstm" else 0, dtype=dtype), scope)


@pytest.mark.parametrize("scale", [1.0, 300.0])
@pytest.mark.parametrize("mode", ["lstm", "gru"])
def test_float32_rows_of_runs(scope, mode, scale):
    """float32 rows of 19 units: on the cpu backend two vectorised runs of 8 (the gates' vector exp)
    and 3 elements one by one; at scale 300 the gates saturate (pre-activations in the hundreds:
    the exp's clamp), against the float64 reference."""
    case = Case(mode=mode, direction="bidirectional", layers=2, lengths=[4, 2, 3], input_size=5, units=19,
                dtype="float32", key=("runs", scale))
    case.x = case.x * np.float32(scale)
    _check_case(case, scope)


@pytest.mark.parametrize("mode", ["lstm", "gru", "rnn_tanh"])  # (relu maps NaN to 0)
def test_nan_propagates_through_the_gates(scope, mode):
    """A NaN input reaches every later output of its sequence and no other sequence (the vector gates
    keep NaN: their clamps and selects must not turn it into a number)."""
    case = Case(mode=mode, steps=3, batch=3, input_size=4, units=19, dtype="float32", key=("nan",))
    case.x[0, 1, 2] = np.nan
    out = _host(case.forward(scope).output)
    assert np.isnan(out[:, 1]).all(), f"{mode}: a NaN input must make its sequence's outputs NaN"
    assert np.isfinite(out[:, [0, 2]]).all(), f"{mode}: other sequences must stay finite"


@pytest.mark.parametrize("launch_sizes", ["backend's own", "cuda's", "cuda's, gpu form"])
def test_larger_sizes_and_grids(scope, monkeypatch, launch_sizes):
    """Several blocks and grid-stride passes in every kernel (B·H and T·B·D·Hh in the thousands),
    under the scope's own launch sizes and the GPU's (`by: backend` lets; the cpu backend poses
    as cuda: many blocks instead of one), and with the GPU's sizes, _common.cuh's row blocks in
    their GPU form (threads stride each row) instead of the host's (thread 0 walks it)."""
    if launch_sizes == "cuda's":
        monkeypatch.setattr(scope.backend, "name", "cuda")
    if launch_sizes == "cuda's, gpu form":
        if scope.backend.name != "cpu":
            pytest.skip("the GPU form on the emulator is the cpu backend's")
        scope = Scope("cpu", launch_plan="cuda", kernel_form="gpu")
    _check_case(Case(mode="lstm", direction="bidirectional", layers=2, steps=3, batch=40, input_size=9, units=70,
                     lengths=np.arange(40) % 3 + 1, time_major=False), scope)
    _check_case(Case(mode="gru", direction="bidirectional", layers=1, steps=3, batch=33, input_size=70, units=70,
                     input_mode="skip_input", lengths=np.arange(33) % 3 + 1), scope)


def test_inference_needs_no_reserve_space(scope):
    case = Case(mode="gru", direction="bidirectional", layers=2, lengths=[4, 2, 3], dropout=0.5, seed=3)
    fw = case.forward(scope, is_training=False)
    assert fw.reserve_space.shape == (0,)
    case.masks = None  # no dropout when not training
    ref = case.reference()
    _close("output", fw.output, ref["output"], "float64")
    _close("output_h", fw.output_h, ref["output_h"], "float64")
    with pytest.raises(ValueError) as ei:
        case.backward(scope, fw, *case.output_grads(fw))
    assert_message(ei, BWD, "reserve_space", "is_training")


def test_class_api(scope):
    case = Case(mode="lstm", layers=2, lengths=[4, 3, 2])
    opts = CudnnRNNV3.Options().rnn_mode("lstm").time_major(True)
    op = CudnnRNNV3.create(scope, case.x, case.h0, case.c0, case.params, case.lengths, opts)
    ref = case.reference()
    _close("output", op.output, ref["output"], "float64")
    dy, dh, dc = case.output_grads(op)
    g = CudnnRNNBackpropV3.create(scope, case.x, case.h0, case.c0, case.params, case.lengths, op.output, op.output_h,
                                  op.output_c, dy, dh, dc, op.reserve_space, op.host_reserved,
                                  CudnnRNNBackpropV3.rnn_mode("lstm"))
    assert g.output_tuple()._fields == ("input_backprop", "input_h_backprop", "input_c_backprop", "params_backprop")
    _close("input_backprop", g.input_backprop, rnn_backward(ref, dy, dh, dc)["input"], "float64")


# ---------------------------------------------------------------------------------------------
# Every gradient against central differences of the forward
# ---------------------------------------------------------------------------------------------
def _loss_parts(case: Case) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    ref = case.reference()
    rng = _rng("fd-weights", case.mode)
    wy = rng.normal(size=ref["output"].shape)
    wh = rng.normal(size=ref["output_h"].shape)
    wc = rng.normal(size=ref["output_c"].shape) if case.mode == "lstm" else None
    return wy, wh, wc


FD_CASES = [
    pytest.param(dict(mode="lstm", direction="bidirectional", layers=2, proj=2, units=3, input_size=2,
                      lengths=[3, 1], time_major=False, dropout=0.4, seed=5, seed2=9), id="lstm-proj-dropout"),
    pytest.param(dict(mode="gru", direction="bidirectional", layers=2, units=2, input_size=2, lengths=[3, 2],
                      input_mode="skip_input", dropout=0.3, seed=1), id="gru-skip-dropout"),
    pytest.param(dict(mode="rnn_tanh", direction="unidirectional", layers=3, units=2, input_size=3,
                      lengths=[2, 3]), id="rnn_tanh-3layers"),
    pytest.param(dict(mode="rnn_relu", direction="bidirectional", layers=1, units=3, input_size=2, lengths=[3, 3]),
                 id="rnn_relu"),
]


@pytest.mark.parametrize("kw", FD_CASES)
def test_gradients_match_finite_differences(scope, kw):
    """loss = Σ wy∘output + Σ wh∘output_h (+ Σ wc∘output_c): the op's gradients of input, input_h,
    input_c and every params element against central differences of the float64 forward (with the
    dropout masks of the op's hash held fixed, so the gradient must use the forward's mask)."""
    case = Case(steps=3, batch=2, **kw)
    wy, wh, wc = _loss_parts(case)
    fw = case.forward(scope, is_training=True)
    g = case.backward(scope, fw, wy, wh, wc if wc is not None else np.zeros(0))

    def loss() -> float:
        ref = case.reference()
        total = float((ref["output"] * wy).sum() + (ref["output_h"] * wh).sum())
        return total + (float((ref["output_c"] * wc).sum()) if wc is not None else 0.0)

    def numeric(array: np.ndarray) -> np.ndarray:
        grad = np.empty(array.shape)
        flat, gflat = array.reshape(-1), grad.reshape(-1)
        for k in range(flat.size):
            keep = flat[k]
            flat[k] = keep + 1e-6
            up = loss()
            flat[k] = keep - 1e-6
            down = loss()
            flat[k] = keep
            gflat[k] = (up - down) / 2e-6
        return grad

    _close("input_backprop", g.input_backprop, numeric(case.x), "float64", 1e-7)
    _close("input_h_backprop", g.input_h_backprop, numeric(case.h0), "float64", 1e-7)
    if case.mode == "lstm":
        _close("input_c_backprop", g.input_c_backprop, numeric(case.c0), "float64", 1e-7)
    flat = np.concatenate([numeric(w).ravel() for w in case.weights] + [numeric(b).ravel() for b in case.biases])
    _close("params_backprop", g.params_backprop, flat, "float64", 1e-7)


# ---------------------------------------------------------------------------------------------
# Dropout
# ---------------------------------------------------------------------------------------------
def _masks_of(case: Case, reserve: np.ndarray) -> list[np.ndarray]:
    """The dropout masks the forward kept in the reserve space (see CudnnRNNV3's layout)."""
    rows, width = case.T * case.B, case.D * case.Hh
    acts = 4 * case.H if case.mode in ("lstm", "gru") else 0
    pl = rows * acts + (case.T + 1) * case.B * case.Hh
    pl += (case.T + 1) * case.B * case.H if case.mode == "lstm" else 0
    pl += rows * case.H if case.P else 0
    base = case.L * case.D * pl
    return [reserve[base + (2 * layer + 1) * rows * width: base + (2 * layer + 2) * rows * width].reshape(
        case.T, case.B, width) for layer in range(case.L - 1)]


def test_dropout_is_deterministic_and_follows_the_documented_hash(scope):
    case = Case(mode="lstm", direction="bidirectional", layers=3, steps=5, batch=4, units=4, input_size=3,
                dropout=0.5, seed=12, seed2=34, lengths=[5, 3, 1, 4])
    a, b = case.forward(scope), case.forward(scope)
    np.testing.assert_array_equal(_host(a.output), _host(b.output))
    np.testing.assert_array_equal(_host(a.reserve_space), _host(b.reserve_space))
    for layer, mask in enumerate(_masks_of(case, _host(a.reserve_space))):
        np.testing.assert_array_equal(mask, case.masks[layer])  # the reference's restatement of the hash
    _check_case(case, scope)  # forward and backward against the reference with those masks


def test_different_seeds_give_different_masks(scope):
    masks = {}
    for seeds in ((0, 0), (1, 0), (0, 1), (7, 7)):
        case = Case(mode="gru", layers=2, steps=6, batch=5, units=8, dropout=0.5, seed=seeds[0], seed2=seeds[1])
        masks[seeds] = _masks_of(case, _host(case.forward(scope).reserve_space))[0]
    for s1, s2 in itertools.combinations(masks, 2):
        assert (masks[s1] != masks[s2]).mean() > 0.3, f"seeds {s1} and {s2} give (nearly) the same mask"


@pytest.mark.parametrize("rate", [0.1, 0.5, 0.8])
def test_dropped_fraction_is_the_rate(scope, rate):
    case = Case(mode="rnn_tanh", direction="bidirectional", layers=2, steps=20, batch=25, units=40, input_size=2,
                dropout=rate, seed=99)
    mask = _masks_of(case, _host(case.forward(scope).reserve_space))[0]  # 40 000 elements
    dropped = float((mask == 0).mean())
    assert abs(dropped - rate) < 0.015, f"dropped {dropped:.4f} of the units, rate {rate}"
    np.testing.assert_allclose(mask[mask != 0], 1 / (1 - np.float32(rate)), rtol=1e-6)


def test_dropout_only_between_layers_and_only_when_training(scope):
    one = Case(mode="lstm", layers=1, dropout=0.9, seed=4)
    one.masks = None
    _close("output", one.forward(scope).output, one.reference()["output"], "float64")  # one layer: nothing
    two = Case(mode="lstm", layers=2, dropout=0.9, seed=4)
    trained, inferred = two.forward(scope), two.forward(scope, is_training=False)
    _close("output", trained.output, two.reference()["output"], "float64")
    two.masks = None
    _close("output (inference)", inferred.output, two.reference()["output"], "float64")
    assert not np.allclose(_host(trained.output), _host(inferred.output))


def test_backward_uses_the_forward_mask_not_its_own_seeds(scope):
    """The backward reads the mask from reserve_space: other seeds on the backprop op change nothing."""
    case = Case(mode="gru", direction="bidirectional", layers=3, dropout=0.5, seed=8, seed2=2, lengths=[4, 2, 3])
    fw = case.forward(scope)
    grads = case.output_grads(fw)
    g1 = case.backward(scope, fw, *grads)
    case.seed, case.seed2 = 100, 200
    g2 = case.backward(scope, fw, *grads)
    for a, b in zip(g1, g2, strict=True):
        np.testing.assert_array_equal(_host(a), _host(b))


# ---------------------------------------------------------------------------------------------
# The params ops
# ---------------------------------------------------------------------------------------------
PARAMS_CONFIGS = [
    ("lstm", "unidirectional", "linear_input", 1, 0), ("lstm", "bidirectional", "linear_input", 3, 0),
    ("lstm", "bidirectional", "skip_input", 2, 2), ("gru", "bidirectional", "auto_select", 2, 0),
    ("rnn_relu", "unidirectional", "skip_input", 2, 0), ("rnn_tanh", "bidirectional", "linear_input", 1, 0),
]


@pytest.mark.parametrize(("mode", "direction", "input_mode", "layers", "proj"), PARAMS_CONFIGS)
def test_params_round_trip(scope, mode, direction, input_mode, layers, proj):
    units, size_in = 4, 4 if input_mode != "linear_input" else 3
    skip = input_mode != "linear_input"
    dirs = 2 if direction == "bidirectional" else 1
    ws, bs = canonical_shapes(mode, layers, dirs, size_in, units, proj, skip)
    rng = _rng("params", mode, direction, input_mode)
    weights = [rng.normal(size=s).astype(np.float32) for s in ws]
    biases = [rng.normal(size=s).astype(np.float32) for s in bs]
    attrs = {"rnn_mode": mode, "direction": direction, "input_mode": input_mode, "num_proj": proj}
    size = _host(cudnn_rnn_params_size(layers, units, size_in, t=np.float32, s=np.int64, scope=scope,
                                       **attrs).params_size)
    assert size.dtype == np.int64 and size.shape == (1,)
    assert int(size[0]) == sum(int(np.prod(s)) for s in ws + bs)
    assert int(size[0]) == params_layout(mode, layers, units, size_in, direction, input_mode, proj).size
    params = cudnn_rnn_canonical_to_params_v2(np.int32(layers), units, size_in, weights, biases,
                                              num_params_weights=len(ws), num_params_biases=len(bs), scope=scope,
                                              **attrs).params
    assert params.shape == (int(size[0]),) and params.dtype == np.float32
    back = cudnn_rnn_params_to_canonical_v2(layers, units, size_in, params, num_params_weights=len(ws),
                                            num_params_biases=len(bs), scope=scope, **attrs)
    for kind, got, want in (("weights", back.weights, weights), ("biases", back.biases, biases)):
        assert len(got) == len(want)
        for k, (a, b) in enumerate(zip(got, want, strict=True)):
            np.testing.assert_array_equal(_host(a), b, err_msg=f"{kind}[{k}]")
    back.weights[0][...] = 0  # copies: the params do not change
    assert np.array_equal(_host(params), _host(cudnn_rnn_canonical_to_params_v2(layers, units, size_in, weights,
                                                                               biases, scope=scope, **attrs).params))


def test_params_size_is_what_the_rnn_ops_expect(scope):
    """A params buffer of CudnnRNNParamsSize elements is accepted; one element more or less is not."""
    case = Case(mode="gru", direction="bidirectional", layers=2, input_size=2, units=3)
    size = _host(cudnn_rnn_params_size(2, 3, 2, t=np.float64, s=np.int32, rnn_mode="gru", direction="bidirectional",
                                       scope=scope).params_size)
    assert int(size[0]) == case.params.size
    for bad in (case.params[:-1], np.concatenate([case.params, [0.0]])):
        with pytest.raises(ValueError) as ei:
            cudnn_rnn_v3(case.x, case.h0, case.c0, bad, case.lengths, scope=scope, **case.attrs())
        assert_message(ei, FWD, "params_len", ("CudnnRNNParamsSize", str(case.params.size)))


@pytest.mark.parametrize(("call", "fragment"), [
    (lambda sc: cudnn_rnn_params_size(1, 4, 3, t=np.float32, s=np.int32, rnn_mode="gru", num_proj=2, scope=sc),
     "num_proj"),
    (lambda sc: cudnn_rnn_params_size(1, 4, 3, t=np.float32, s=np.int32, input_mode="skip_input", scope=sc),
     "input_size"),
    (lambda sc: cudnn_rnn_params_size(0, 4, 3, t=np.float32, s=np.int32, scope=sc), "num_layers"),
    (lambda sc: cudnn_rnn_params_size(1, 4, 3, t=np.int32, s=np.int32, scope=sc), "attr t"),
    (lambda sc: cudnn_rnn_params_to_canonical_v2(1, 4, 3, np.zeros(7, np.float32), num_params_weights=8,
                                                 num_params_biases=8, scope=sc), "params"),
    (lambda sc: cudnn_rnn_params_to_canonical_v2(1, 4, 3, np.zeros(144, np.float32), num_params_weights=6,
                                                 num_params_biases=8, scope=sc), "num_params_weights"),
    (lambda sc: cudnn_rnn_canonical_to_params_v2(1, 4, 3, [np.zeros((4, 3), np.float32)] * 8,
                                                 [np.zeros(4, np.float32)] * 7, scope=sc), "biases"),
    (lambda sc: cudnn_rnn_canonical_to_params_v2(1, 4, 3, [np.zeros((4, 3), np.float32)] * 8,
                                                 [np.zeros(4, np.float32)] * 8, scope=sc), "weights[4]"),
    (lambda sc: cudnn_rnn_canonical_to_params_v2(1, 4, 3, [np.zeros((4, 3), np.float32)] * 4
                                                 + [np.zeros((4, 4), np.float64)] * 4,
                                                 [np.zeros(4, np.float32)] * 8, scope=sc), "weights[4]"),
])
def test_params_ops_reject_bad_input(scope, call, fragment):
    with pytest.raises((ValueError, TypeError)) as ei:
        call(scope)
    assert "CudnnRNN" in str(ei.value) and fragment in str(ei.value), str(ei.value)


# ---------------------------------------------------------------------------------------------
# Bad input: raised before any kernel, naming the op, the argument and the offending value
# ---------------------------------------------------------------------------------------------
def _bad_args(case: Case) -> dict[str, Any]:
    return {"input": case.x, "input_h": case.h0, "input_c": case.c0, "params": case.params,
            "sequence_lengths": case.lengths}


@pytest.mark.parametrize(("arg", "shape", "named", "values"), [
    ("input", (4, 3), "input", shape_texts((4, 3))),
    ("input_h", (1, 2, 4), "input_h", shape_texts((1, 2, 4))),
    ("input_c", (1, 2, 4), "input_c", shape_texts((1, 2, 4))),
    ("input_c", (1, 3, 5), "h_size", "num_units=5"),  # c's width is num_units: h must match it
    ("sequence_lengths", (2,), "sequence_lengths", shape_texts((2,))),
])
def test_rejects_wrong_shapes(scope, arg, shape, named, values):
    case = Case(mode="lstm", units=4, input_size=3)  # input [4, 3, 3], input_h and input_c [1, 3, 4]
    args = _bad_args(case)
    args[arg] = np.zeros(shape, np.int32 if arg == "sequence_lengths" else np.float64)
    with pytest.raises(ValueError) as ei:
        cudnn_rnn_v3(*args.values(), scope=scope, **case.attrs())
    assert_message(ei, FWD, named, values)


def test_batch_major_shapes_are_named_in_errors(scope):
    case = Case(mode="gru", time_major=False)  # input [B=3, T=4, I=3], input_h [B, 1, H]
    with pytest.raises(ValueError) as ei:
        cudnn_rnn_v3(case.x, np.zeros((1, 3, 3)), case.c0, case.params, case.lengths, scope=scope, **case.attrs())
    assert_message(ei, FWD, "input_h", "time_major false")
    assert "expected shape [batch=3, layers_dirs=3, h_size=3] (time_major false), got [1, 3, 3]" in str(ei.value)


@pytest.mark.parametrize(("arg", "dtype"), [("input", "float32"), ("input_h", "float16"), ("params", "float32"),
                                            ("input_c", "float32"), ("sequence_lengths", "int64")])
def test_rejects_wrong_dtypes(scope, arg, dtype):
    case = Case(mode="lstm")
    args = _bad_args(case)
    args[arg] = args[arg].astype(dtype)
    with pytest.raises(TypeError) as ei:
        cudnn_rnn_v3(*args.values(), scope=scope, **case.attrs())
    assert_message(ei, FWD, arg, dtype)


def test_input_c_is_ignored_for_other_modes(scope):
    case = Case(mode="gru")
    for dummy in (np.zeros(0, np.float32), np.zeros((5, 7)), np.zeros((), np.float64)):
        out = cudnn_rnn_v3(case.x, case.h0, dummy, case.params, case.lengths, scope=scope, **case.attrs())
        assert out.output_c.size == 0


@pytest.mark.parametrize("lengths", [[4, 5, 1], [0, 4, 4], [4, -1, 2]])
def test_rejects_lengths_out_of_range(scope, lengths):
    case = Case(mode="lstm", steps=4)
    with pytest.raises(ValueError) as ei:
        cudnn_rnn_v3(case.x, case.h0, case.c0, case.params, np.array(lengths, np.int32), scope=scope, **case.attrs())
    assert_message(ei, FWD, "sequence_lengths", "[1, steps=4]")


def test_rejects_num_proj_without_lstm(scope):
    case = Case(mode="gru")
    with pytest.raises(ValueError) as ei:
        cudnn_rnn_v3(case.x, case.h0, case.c0, case.params, case.lengths, scope=scope, **case.attrs(num_proj=2))
    assert_message(ei, FWD, "num_proj", "lstm")


def test_rejects_skip_input_with_other_sizes(scope):
    case = Case(mode="rnn_tanh", input_size=2, units=3)
    with pytest.raises(ValueError) as ei:
        cudnn_rnn_v3(case.x, case.h0, case.c0, case.params, case.lengths, scope=scope,
                     **case.attrs(input_mode="skip_input"))
    assert_message(ei, FWD, "input_size", "skip_input")


def test_rejects_bad_layer_axis(scope):
    case = Case(mode="rnn_tanh", direction="bidirectional")
    with pytest.raises(ValueError) as ei:
        cudnn_rnn_v3(case.x, np.zeros((3, 3, 3)), case.c0, case.params, case.lengths, scope=scope, **case.attrs())
    assert_message(ei, FWD, "layers_dirs", "layers_dirs=3")


def test_backprop_rejects_mismatched_inputs(scope):
    case = Case(mode="lstm", layers=2)
    fw = case.forward(scope)
    dy, dh, dc = case.output_grads(fw)
    with pytest.raises(ValueError) as ei:
        case.backward(scope, fw, dy[:-1], dh, dc)
    assert_message(ei, BWD, "output_backprop", shape_texts(dy[:-1].shape))
    with pytest.raises(ValueError) as ei:
        cudnn_rnn_backprop_v3(case.x, case.h0, case.c0, case.params, case.lengths, fw.output, fw.output_h,
                              fw.output_c, dy, dh, dc, fw.reserve_space[:-1], fw.host_reserved, scope=scope,
                              **case.attrs())
    assert_message(ei, BWD, "reserve_got", "reserve_space")
    with pytest.raises(ValueError) as ei:  # the attrs must be the forward's
        cudnn_rnn_backprop_v3(case.x, case.h0, case.c0, case.params, case.lengths, fw.output, fw.output_h,
                              fw.output_c, dy, dh, dc, fw.reserve_space, fw.host_reserved, scope=scope,
                              **case.attrs(rnn_mode="gru"))
    assert "CudnnRNNBackpropV3" in str(ei.value)


# ---------------------------------------------------------------------------------------------
# The reference pages and their examples
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["cudnn_rnn_v3", "cudnn_rnn_backprop_v3", "cudnn_rnn_params_size",
                                  "cudnn_rnn_canonical_to_params_v2", "cudnn_rnn_params_to_canonical_v2"])
def test_examples_run(spec):
    from codegen.load import load_spec

    for example in load_spec(PROJECT / "specs" / "rnn" / f"{spec}.yaml", PROJECT / "specs").examples:
        if "import torch" in example:
            pytest.importorskip("torch")
        exec(compile(example, f"{spec} example", "exec"), {})  # our own spec's example


def test_pages_document_the_layouts():
    docs = PROJECT / "generated" / "docs" / "rnn"
    size_page = (docs / "cudnn_rnn_params_size.md").read_text(encoding="utf-8")
    for text in ("W_0 … W_{G−1}, each [H, in]", "weight_ih_l{l}", "bR_0 … bR_{G−1}", "P_proj [P, H]"):
        assert text in size_page, text
    fwd_page = (docs / "cudnn_rnn_v3.md").read_text(encoding="utf-8")
    for text in ("reserve_space", "splitmix64", "linear before reset", "repeat"):
        assert text in fwd_page, text
    assert "Gradient of: [CudnnRNNV3](cudnn_rnn_v3.md)" in (docs / "cudnn_rnn_backprop_v3.md").read_text("utf-8")


# -- issue 12: a huge num_layers fails fast, from arithmetic, before any per-tensor object ---------
def test_layout_counts_match_the_layout() -> None:
    from opgen_ops.cudnn_rnn import layout_counts

    for mode in ("rnn_relu", "rnn_tanh", "lstm", "gru"):
        for direction in ("unidirectional", "bidirectional"):
            for input_mode, size_in in (("linear_input", 3), ("skip_input", 5), ("auto_select", 5),
                                        ("auto_select", 2)):
                for layers in (1, 2, 3):
                    for proj in ((0, 2) if mode == "lstm" else (0,)):
                        layout = params_layout(mode, layers, 5, size_in, direction, input_mode, proj)
                        counts = layout_counts(mode, layers, 5, size_in, direction, input_mode, proj)
                        assert (counts.weights, counts.biases, counts.size) == \
                            (len(layout.weights), len(layout.biases), layout.size)


@pytest.mark.parametrize("layers", [10**6, 2**31 - 1])
def test_a_huge_num_layers_fails_fast_in_the_params_ops(layers: int) -> None:
    import time

    from generated import (
        cudnn_rnn_canonical_to_params_v2,
        cudnn_rnn_params_size,
        cudnn_rnn_params_to_canonical_v2,
    )

    start = time.perf_counter()
    size = cudnn_rnn_params_size(layers, 4, 3, t="float32", s="int64", rnn_mode="lstm", scope="cpu").params_size
    assert int(size[0]) == 4 * 4 * (3 + 4) + (layers - 1) * 4 * 4 * 8 + layers * 8 * 4
    with pytest.raises(ValueError, match=r"attr s: .* elements do not fit in int32"):
        cudnn_rnn_params_size(layers, 4096, 3, t="float32", s="int32", rnn_mode="lstm", scope="cpu")
    w = np.zeros((16, 3), np.float32)
    with pytest.raises(ValueError, match=rf"CudnnRNNCanonicalToParamsV2: weights: expected a list of "
                                         rf"{layers * 8} tensors for this configuration, got 1"):
        cudnn_rnn_canonical_to_params_v2(layers, 4, 3, [w], [np.zeros(16, np.float32)], rnn_mode="lstm",
                                         scope="cpu")
    with pytest.raises(ValueError, match=r"CudnnRNNParamsToCanonicalV2: params: expected shape \[\d+\]"):
        cudnn_rnn_params_to_canonical_v2(layers, 4, 3, np.zeros(10, np.float32), num_params_weights=8,
                                         num_params_biases=8, rnn_mode="lstm", scope="cpu")
    assert time.perf_counter() - start < 5.0  # a hang guard: it took 65 s at 1e6 layers, MemoryError at 2**31-1


@pytest.mark.parametrize("kernel_form", ["host", "gpu"])
@pytest.mark.parametrize("mode, batch, units, proj, variant", [
    ("lstm", 9, 32, 0, "persistent"), ("lstm", 9, 33, 0, "steps"), ("lstm", 64, 5, 0, "persistent"),
    ("lstm", 65, 5, 0, "fused"), ("gru", 5, 36, 0, "persistent"), ("gru", 5, 37, 0, "fused"),
    ("gru", 5, 43, 0, "steps"), ("rnn_tanh", 6, 64, 0, "persistent"), ("rnn_relu", 6, 65, 0, "fused"),
    ("rnn_relu", 6, 129, 0, "steps"), ("rnn_relu", 65, 40, 0, "fused"), ("lstm", 35, 32, 3, "fused"),
    ("lstm", 35, 33, 3, "steps"), ("lstm", 65, 32, 0, "fused"), ("lstm", 65, 33, 0, "steps"),
    ("gru", 70, 42, 0, "fused"), ("gru", 65, 43, 0, "steps"), ("rnn_tanh", 66, 128, 0, "fused"),
    ("lstm", 2, 200, 330, "steps")])
def test_the_gpu_plans_persistent_fused_and_gemm_variants_match_the_reference(monkeypatch, kernel_form, mode, batch,
                                                                              units, proj, variant):
    """The GPU's plan (on the emulation) runs each layer, both directions, in one `persistent_layer`
    launch, and its gradient in one `persistent_<mode>_grad`, where there is no projection,
    gates·units·h_size ≤ 4096 and batch ≤ 64; else, up to gates·max(units, h_size) = 128, the fused
    variant: per time step one `fused_step` for both directions (and a `fused_proj` with a
    projection), and per step one `fused_<mode>_grad` (plus a last one; with a projection
    `fused_lstm_proj_grad` for the recurrent product alone, then `fused_proj_cells` and
    `fused_lstm_proj_grad` for the gates); above that per step a GEMM per direction and one step kernel
    for both directions.
    Either way forward and backward (which reads the forward's reserve) match the float64 reference,
    lengths from 1 to T; the sizes put several tiles of 32 rows and 32 units on each grid axis where
    the tiles' edges can go wrong (35, 65, 66, 70 rows; 37, 40, 42, 65, 128 units), and each rule's
    limits on both sides."""
    scope, launched = gpu_plan_with_launches(monkeypatch, kernel_form)
    steps, layers = 3, 2
    _check_case(Case(mode=mode, direction="bidirectional", layers=layers, steps=steps, batch=batch, input_size=4,
                     units=units, proj=proj, lengths=np.arange(batch) % 3 + 1, key=("variants",)), scope)
    _assert_variant_launched(launched, variant, mode, proj, layers, steps)


def _assert_variant_launched(launched: list[str], variant: str, mode: str, proj: int, layers: int, steps: int) -> None:
    """The kernels of the GPU plan's `variant` ("persistent", "fused" or "steps") for a bidirectional
    forward and backward of `layers` layers and `steps` steps, and none of the others'."""
    family = mode.split("_")[0]
    persistent, fused = variant == "persistent", variant == "fused"
    assert launched.count("persistent_layer") == (layers if persistent else 0), launched  # both directions at once
    assert launched.count(f"persistent_{family}_grad") == (layers if persistent else 0), launched
    assert launched.count("fused_step") == (layers * steps if fused else 0), launched
    assert launched.count("fused_proj") == (layers * steps if fused and proj else 0), launched
    fused_grads = layers * (steps + 1) if fused and not proj else 0
    assert launched.count(f"fused_{family}_grad") == fused_grads, launched
    assert launched.count("fused_lstm_proj_grad") == (layers * 2 * steps if fused and proj else 0), launched
    assert launched.count("fused_proj_cells") == (layers * steps if fused and proj else 0), launched
    step_launches = layers * steps if variant == "steps" else 0  # both directions at once
    assert launched.count(family + "_step") == step_launches, launched
    assert launched.count(family + "_grad_step") == step_launches, launched
    assert launched.count("proj_carry") == (step_launches if proj else 0), launched


def _old_variant_rule(mode: str, batch: int, units: int, proj: int) -> str:
    """The GPU's variant as the family's lets chose it before `variants:` (integer arithmetic: persistent
    is 1 where it applies, 0 or ≥ 2 otherwise), thresholds 4096, 64 and 128 as they were written."""
    def ceildiv(a: int, b: int) -> int:
        return -(-a // b)

    gates, h_size = GATES[mode], proj or units
    gate_width = gates * units
    persistent = (1 - min(proj, 1)) * ceildiv(gate_width * h_size, 4096) * ceildiv(batch, 64)
    large_r = min(ceildiv(max(gates * max(units, h_size), 1), 128) - 1, 1)
    fused = min((persistent - 1) * (persistent - 1), 1) * (1 - large_r)
    gemm_steps = min((persistent - 1) * (persistent - 1), 1) - fused
    assert (persistent == 1) + fused + gemm_steps == 1
    return "persistent" if persistent == 1 else "fused" if fused else "gemm_steps"


@pytest.mark.parametrize("mode, batch, units, proj", [
    # persistent's gates·units·h_size ≤ 4096 on both sides (lstm 32/33 units, gru 36/37, rnn 64/65)
    ("lstm", 2, 32, 0), ("lstm", 2, 33, 0), ("gru", 2, 36, 0), ("gru", 2, 37, 0), ("rnn_tanh", 2, 64, 0),
    ("rnn_relu", 2, 65, 0),
    # its batch ≤ 64; a projection (never persistent)
    ("lstm", 64, 4, 0), ("lstm", 65, 4, 0), ("rnn_tanh", 64, 64, 0), ("rnn_tanh", 65, 64, 0), ("lstm", 2, 4, 3),
    # fused's gates·max(units, h_size) ≤ 128 (lstm 32/33, gru 42/43, rnn 128/129; with a projection)
    ("lstm", 65, 32, 0), ("lstm", 65, 33, 0), ("gru", 65, 42, 0), ("gru", 2, 43, 0), ("rnn_relu", 2, 128, 0),
    ("rnn_relu", 2, 129, 0), ("lstm", 2, 8, 32), ("lstm", 2, 8, 33), ("lstm", 2, 33, 3)])
def test_the_family_variants_choose_what_the_old_integer_rule_chose(mode, batch, units, proj, monkeypatch):
    """specs/rnn/cudnn_rnn.family.yaml's variants, first match wins, over its params, at sizes on both
    sides of each threshold: the GPU's plan (on the emulation) records the variant the lets chose
    before, for the forward and the backward; the cpu plan always GEMM steps. (The Python plan's
    recordings: a call the native driver serves does not update `_PLAN.latest()`.)"""
    monkeypatch.setenv("OPGEN_NATIVE", "0")
    from generated.rnn import cudnn_rnn_backprop_v3 as backward_module
    from generated.rnn import cudnn_rnn_v3 as forward_module

    for module in (forward_module, backward_module):
        assert module._PLAN.variants == ("persistent", "fused", "gemm_steps")
        assert module._PLAN.params == {"persistent_max_weights": 4096, "persistent_max_batch": 64,
                                       "fused_max_depth": 128}
    case = Case(mode=mode, layers=1, steps=1, batch=batch, input_size=2, units=units, proj=proj, dtype="float32",
                key=("old-rule",))
    expected = _old_variant_rule(mode, batch, units, proj)
    for plan, variant in (("cuda", expected), ("cpu", "gemm_steps")):
        scope = Scope("cpu", launch_plan=plan)
        fw = case.forward(scope)
        assert forward_module._PLAN.latest().variant == variant, plan
        case.backward(scope, fw, *case.output_grads(fw))
        assert backward_module._PLAN.latest().variant == variant, plan


@pytest.mark.parametrize("kernel_form", ["host", "gpu"])
@pytest.mark.parametrize("mode, proj", [("lstm", 0), ("lstm", 3), ("gru", 0), ("rnn_tanh", 0)])
def test_the_fused_steps_see_a_tiles_last_row(monkeypatch, kernel_form, mode, proj):
    """Issue 30 item 12: the fused steps skip a tile of 32 batch rows whose rows have all ended
    (opgen::tile_any_row), so a tile whose only live row is its last must still be computed. 65
    rows (tiles of rows 0-31, 32-63 and 64), 8 units (the fused variant: batch > 64, and the
    deepest sum 4·8 = 32), 3 steps; every sequence 1 long but rows 31 and 63, 3 long: from the
    second step on (in either direction) the first two tiles' only live rows are their last.
    Forward and backward against the float64 reference."""
    scope, launched = gpu_plan_with_launches(monkeypatch, kernel_form)
    steps, batch = 3, 65
    lengths = np.ones(batch, np.int32)
    lengths[[31, 63]] = steps
    _check_case(Case(mode=mode, direction="bidirectional", steps=steps, batch=batch, input_size=4, units=8,
                     proj=proj, lengths=lengths, key=("last-row",)), scope)
    _assert_variant_launched(launched, "fused", mode, proj, 1, steps)


def _plan_nodes(steps: int) -> tuple[int, int]:
    """The launches plus GEMM calls (a CUDA graph's nodes) of the GPU plan's forward and backward of
    a 2-layer bidirectional LSTM in the GEMM-step variant (37 units: 4·37 > fused_max_depth and
    4·37·37 > persistent_max_weights), walked on the emulation without running anything."""
    from codegen.runtime.launches import watch

    scope = Scope("cpu", launch_plan="cuda")
    case = Case(direction="bidirectional", layers=2, steps=steps, batch=2, input_size=3, units=37, dtype="float32",
                key=("nodes",))
    counts = [0]  # the forward's, then the backward's

    def count(*args: Any, **kwargs: Any) -> None:
        counts[-1] += 1

    with watch(scope.backend, count, count):
        fw = case.forward(scope)
        counts.append(0)
        case.backward(scope, fw, *case.output_grads(fw))
    return counts[0], counts[1]


def test_a_bidirectional_gemm_step_runs_both_directions_per_launch(monkeypatch):
    """Issue 35 item 1: each time step of a bidirectional layer in the GEMM-step variant is one
    batched GEMM (both directions' recurrent products) and one step kernel (a grid over the
    directions), forward and backward: a step more adds 2 nodes per layer to each pass, not 4 as
    with a GEMM and a kernel per direction (T = 100, B = 64, H = 512: 846 nodes for both passes
    where they were 1,648)."""
    monkeypatch.setenv("OPGEN_NATIVE", "0")  # (the Python plan: its launches go through the backend's methods)
    (fw4, bw4), (fw5, bw5) = _plan_nodes(4), _plan_nodes(5)
    assert (fw5 - fw4, bw5 - bw4) == (2 * 2, 2 * 2)
    assert fw4 == 1 + 2 * (2 * 4 + 6)  # to_time_major, then per layer a batched input projection, 2 init_state,
    # the steps, 2 final_state and layer_output


@pytest.mark.parametrize("kernel_form", ["host", "gpu"])
@pytest.mark.parametrize("mode, units, proj", [("lstm", 33, 0), ("lstm", 9, 35), ("gru", 43, 0), ("rnn_tanh", 129, 0)])
def test_uneven_lengths_in_both_directions_with_one_launch_per_step(monkeypatch, kernel_form, mode, units, proj):
    """The GEMM-step variant's merged directions respect each sequence's length: direction 1 starts
    at its own last step len[b] − 1, so at a given launch the two directions see different sets of
    live sequences. Lengths 1 … T in one batch (T = 6, 2 layers, a projection too), forward and
    backward against the float64 reference, with one step kernel per time step."""
    scope, launched = gpu_plan_with_launches(monkeypatch, kernel_form)
    steps, layers = 6, 2
    _check_case(Case(mode=mode, direction="bidirectional", layers=layers, steps=steps, batch=5, input_size=4,
                     units=units, proj=proj, lengths=[6, 1, 4, 2, 5], dtype="float32", key=("uneven",)), scope)
    _assert_variant_launched(launched, "steps", mode, proj, layers, steps)
