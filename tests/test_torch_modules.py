"""The drop-in modules (opgen_ops/torch_nn.py, issue 14 item 4) against their torch.nn twins
with the same weights: state_dict keys both ways, outputs, final states and every parameter's
gradient (uni/bidirectional, 2 layers, batch_first, proj_size, bias=False, hx given or not,
packed sequences with unsorted lengths, unbatched input, dropout), the flat params tensor
against the torch.cat path (bit for bit, fallbacks, re-flattening, in-place changes, SGD steps),
BatchNorm2d's running statistics over training steps then eval, and torch.compile(fullgraph=True)
of a BN+ReLU block and a 2-layer bidirectional LSTM classifier: no graph break, equal to eager
step by step."""

from __future__ import annotations

import copy
import io
import pickle
import subprocess
import sys
from multiprocessing.reduction import ForkingPickler
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from torch.nn.utils.rnn import pack_padded_sequence  # noqa: E402

from opgen_ops import torch_nn  # noqa: E402
from opgen_ops.torch_nn import GRU, LSTM, RNN, BatchNorm2d  # noqa: E402

pytestmark = [pytest.mark.filterwarnings("ignore:LSTM with projections is not supported with oneDNN"),
              pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")]

TWINS = {LSTM: torch.nn.LSTM, GRU: torch.nn.GRU, RNN: torch.nn.RNN}
IN, H = 5, 4


def test_generated_torch_serves_the_drop_in_modules_without_importing_them() -> None:
    """No import loop: opgen_ops.torch_nn imports generated.torch (the ops it runs); generated.torch
    imports no module of the drop-ins and serves `generated.torch.LSTM` etc. on first use."""
    code = ("import sys\nimport generated.torch as gt\n"
            "print(sorted(m for m in sys.modules if m.endswith('torch_nn')))\n"
            "from generated.torch import LSTM, BatchNorm2d\nimport opgen_ops.torch_nn as nn\n"
            "print(LSTM is nn.LSTM and BatchNorm2d is nn.BatchNorm2d and gt.GRU is nn.GRU and gt.RNN is nn.RNN)\n"
            "print(hasattr(gt, 'Conv2d'))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parent.parent,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["[]", "True", "False"], proc.stdout


def _pair(cls: Any, seed: int = 0, **kwargs: Any) -> tuple[Any, Any]:
    """(ours, torch.nn's) with torch.nn's weights loaded into ours."""
    torch.manual_seed(seed)
    theirs = TWINS[cls](IN, H, **kwargs)
    ours = cls(IN, H, **kwargs)
    ours.load_state_dict(theirs.state_dict())
    return ours, theirs


def _flat_states(states: Any) -> list[Any]:
    return list(states) if isinstance(states, tuple) else [states]


def _assert_grads_equal(ours: Any, theirs: Any) -> None:
    theirs_named = dict(theirs.named_parameters())
    for name, param in ours.named_parameters():
        torch.testing.assert_close(param.grad, theirs_named[name].grad, atol=1e-5, rtol=1e-4, msg=name)


CONFIGS = [
    pytest.param(LSTM, {}, id="lstm"),
    pytest.param(LSTM, {"num_layers": 2, "bidirectional": True, "batch_first": True}, id="lstm-bi2-batch_first"),
    pytest.param(LSTM, {"num_layers": 2, "bidirectional": True, "proj_size": 3}, id="lstm-bi2-proj"),
    pytest.param(LSTM, {"num_layers": 2, "bias": False, "proj_size": 2, "batch_first": True}, id="lstm-2-nobias-proj"),
    pytest.param(GRU, {"num_layers": 2, "bidirectional": True}, id="gru-bi2"),
    pytest.param(GRU, {"batch_first": True, "bias": False}, id="gru-batch_first-nobias"),
    pytest.param(RNN, {"num_layers": 2, "nonlinearity": "relu", "bidirectional": True}, id="rnn_relu-bi2"),
    pytest.param(RNN, {"num_layers": 2, "batch_first": True}, id="rnn_tanh-2-batch_first"),
]


@pytest.mark.parametrize(("cls", "kwargs"), CONFIGS)
def test_parameters_and_state_dict_keys_are_torch_nns(cls: Any, kwargs: dict[str, Any]) -> None:
    ours, theirs = _pair(cls, **kwargs)
    assert [(n, p.shape) for n, p in ours.named_parameters()] == [(n, p.shape) for n, p in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert ours._flat_weights_names == theirs._flat_weights_names
    with torch.no_grad():  # and back: ours into torch.nn's
        for p in ours.parameters():
            p.mul_(0.5)
    theirs.load_state_dict(ours.state_dict())
    for (name, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items(), strict=True):
        assert torch.equal(a, b), name
    assert repr(ours).split("(", 1)[1] == repr(theirs).split("(", 1)[1]


@pytest.mark.parametrize("given_hx", [False, True], ids=["no-hx", "hx"])
@pytest.mark.parametrize(("cls", "kwargs"), CONFIGS)
def test_outputs_and_gradients_match_torch_nn(cls: Any, kwargs: dict[str, Any], given_hx: bool) -> None:
    ours, theirs = _pair(cls, seed=1, **kwargs)
    t, b = 6, 3
    x = torch.randn((b, t, IN) if kwargs.get("batch_first") else (t, b, IN))
    hx = None
    if given_hx:
        states = 2 * (2 if kwargs.get("bidirectional") else 1) if kwargs.get("num_layers") else \
            (2 if kwargs.get("bidirectional") else 1)
        h = torch.randn(states, b, kwargs.get("proj_size") or H) * 0.5
        hx = (h, torch.randn(states, b, H) * 0.5) if cls is LSTM else h
    results = []
    for model in (ours, theirs):
        xin = x.clone().requires_grad_()
        hin = None if hx is None else (tuple(s.clone().requires_grad_() for s in hx) if cls is LSTM
                                       else hx.clone().requires_grad_())
        output, states = model(xin, hin)
        outs = [output, *_flat_states(states)]
        sum(o.square().sum() * (k + 1) for k, o in enumerate(outs)).backward()
        grads = [xin.grad] + ([] if hin is None else [s.grad for s in _flat_states(hin)])
        results.append((outs, grads))
    for k, (a, b_) in enumerate(zip(results[0][0], results[1][0], strict=True)):
        assert a.shape == b_.shape, k
        torch.testing.assert_close(a, b_, atol=1e-5, rtol=1e-4, msg=f"output {k}")
    for k, (a, b_) in enumerate(zip(results[0][1], results[1][1], strict=True)):
        torch.testing.assert_close(a, b_, atol=1e-5, rtol=1e-4, msg=f"input gradient {k}")
    _assert_grads_equal(ours, theirs)


@pytest.mark.parametrize(("cls", "kwargs"), [
    pytest.param(LSTM, {"num_layers": 2, "bidirectional": True}, id="lstm-bi2"),
    pytest.param(LSTM, {"proj_size": 2, "batch_first": True}, id="lstm-proj-batch_first"),
    pytest.param(GRU, {"num_layers": 2, "bidirectional": True}, id="gru-bi2"),
])
def test_packed_sequences_with_unsorted_lengths(cls: Any, kwargs: dict[str, Any]) -> None:
    ours, theirs = _pair(cls, seed=2, **kwargs)
    lengths = torch.tensor([3, 6, 1, 6, 4])
    dirs = 2 if kwargs.get("bidirectional") else 1
    layers = kwargs.get("num_layers", 1)
    x = torch.randn(6, 5, IN)
    h0 = torch.randn(layers * dirs, 5, kwargs.get("proj_size") or H)
    hx = (h0, torch.randn(layers * dirs, 5, H)) if cls is LSTM else h0
    results = []
    for model in (ours, theirs):
        xin = x.clone().requires_grad_()
        packed = pack_padded_sequence(xin.transpose(0, 1) if kwargs.get("batch_first") else xin, lengths,
                                      batch_first=bool(kwargs.get("batch_first")), enforce_sorted=False)
        output, states = model(packed, hx)
        (output.data.square().sum() + sum(s.square().sum() for s in _flat_states(states))).backward()
        results.append((output, _flat_states(states), xin.grad))
    (a, a_states, a_grad), (b, b_states, b_grad) = results
    assert isinstance(a, type(b))
    for field in ("batch_sizes", "sorted_indices", "unsorted_indices"):
        assert torch.equal(getattr(a, field), getattr(b, field)), field
    torch.testing.assert_close(a.data, b.data, atol=1e-5, rtol=1e-4)
    for s, t in zip(a_states, b_states, strict=True):
        torch.testing.assert_close(s, t, atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(a_grad, b_grad, atol=1e-5, rtol=1e-4)
    _assert_grads_equal(ours, theirs)


@pytest.mark.parametrize("cls", [LSTM, GRU])
def test_unbatched_input(cls: Any) -> None:
    ours, theirs = _pair(cls, seed=3, num_layers=2, bidirectional=True, batch_first=True)
    x = torch.randn(7, IN)
    h0 = torch.randn(4, H)
    hx = (h0, torch.randn(4, H)) if cls is LSTM else h0
    for given in (None, hx):
        a, a_states = ours(x, given)
        b, b_states = theirs(x, given)
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-4)
        for s, t in zip(_flat_states(a_states), _flat_states(b_states), strict=True):
            assert s.shape == t.shape
            torch.testing.assert_close(s, t, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("batch_first", [False, True])
def test_dropout_between_layers_draws_torch_nns_masks_in_eager_cpu(batch_first: bool) -> None:
    """torch's dropout between the layers: for the same torch.manual_seed, the masks torch.nn.LSTM
    draws on the CPU, so outputs and gradients are equal; eval() turns it off."""
    ours, theirs = _pair(LSTM, seed=4, num_layers=3, bidirectional=True, dropout=0.5, batch_first=batch_first)
    x = torch.randn(4, 5, IN)
    outs = []
    for model in (ours, theirs):
        torch.manual_seed(11)
        output, (h_n, c_n) = model(x)
        (output.square().sum() + h_n.sum() + c_n.sum()).backward()
        outs.append(output)
    torch.testing.assert_close(outs[0], outs[1], atol=1e-5, rtol=1e-4)
    _assert_grads_equal(ours, theirs)
    no_dropout, _ = _pair(LSTM, seed=4, num_layers=3, bidirectional=True, batch_first=batch_first)
    assert not torch.allclose(outs[0], no_dropout(x)[0])  # dropout did act
    ours.eval()
    with torch.no_grad():
        torch.testing.assert_close(ours(x)[0], no_dropout(x)[0], atol=1e-6, rtol=1e-5)


def test_eval_mode_still_differentiates() -> None:
    """Like torch.nn.LSTM, eval() changes dropout only: gradients still flow (the op then runs with
    is_training, which is about keeping the reserve space, whenever grad mode is on)."""
    ours, theirs = _pair(LSTM, seed=5, num_layers=2)
    ours.eval()
    theirs.eval()
    x = torch.randn(3, 2, IN)
    ours(x)[0].sum().backward()
    theirs(x)[0].sum().backward()
    _assert_grads_equal(ours, theirs)


def test_bad_arguments_name_the_module_the_argument_and_the_values() -> None:
    with pytest.raises(ValueError, match=r"LSTM: proj_size: expected an int < hidden_size = 4, got 4"):
        LSTM(IN, H, proj_size=4)
    with pytest.raises(ValueError, match=r"GRU: hidden_size: expected an int >= 1, got 0"):
        GRU(IN, 0)
    with pytest.raises(ValueError, match=r"RNN: nonlinearity: expected 'tanh' or 'relu', got 'sigmoid'"):
        RNN(IN, H, nonlinearity="sigmoid")
    with pytest.raises(ValueError, match=r"LSTM: dropout: expected a number in \[0, 1\], got 1.5"):
        LSTM(IN, H, num_layers=2, dropout=1.5)
    with pytest.warns(UserWarning, match="dropout acts between layers only"):
        GRU(IN, H, dropout=0.2)
    lstm = LSTM(IN, H, num_layers=2)
    with pytest.raises(ValueError, match=r"LSTM: input: expected the last dimension to be input_size = 5, "
                                         r"got shape \[3, 2, 6\]"):
        lstm(torch.randn(3, 2, 6))
    with pytest.raises(ValueError, match=r"LSTM: input: expected a 3-D \(batched\) or 2-D \(unbatched\) tensor, "
                                         r"got 4-D"):
        lstm(torch.randn(3, 2, 1, IN))
    with pytest.raises(ValueError, match=r"LSTM: cx: expected shape \[2, 2, 4\], got \[1, 2, 4\]"):
        lstm(torch.randn(3, 2, IN), (torch.zeros(2, 2, H), torch.zeros(1, 2, H)))
    with pytest.raises(ValueError, match=r"GRU: hx: expected shape \[1, 4\] \(unbatched input"):
        GRU(IN, H)(torch.randn(3, IN), torch.zeros(1, 2, H))
    with pytest.raises(TypeError, match=r"LSTM: hx: expected a tuple \(h_0, c_0\)"):
        lstm(torch.randn(3, 2, IN), torch.zeros(2, 2, H))
    bn = BatchNorm2d(3)
    with pytest.raises(ValueError, match=r"BatchNorm2d: input: expected C = num_features = 3 channels"):
        bn(torch.randn(2, 4, 2, 2))
    with pytest.raises(ValueError, match=r"BatchNorm2d: input: expected a 4-D tensor \[N, C, H, W\], got 3-D"):
        bn(torch.randn(2, 3, 2))
    with pytest.raises(ValueError, match=r"BatchNorm2d: input: expected more than 1 value per channel"):
        bn(torch.randn(1, 3, 1, 1))
    with pytest.raises(ValueError, match=r"BatchNorm2d: momentum: expected a number in \[0, 1\] or None, got 2"):
        BatchNorm2d(3, momentum=2)


# -- BatchNorm2d ------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [{}, {"momentum": None}, {"affine": False, "eps": 1e-3},
                                    {"track_running_stats": False}, {"momentum": 0.5, "bias": False}],
                         ids=["default", "cumulative", "no-affine", "no-running-stats", "momentum-0.5-no-bias"])
def test_batch_norm_matches_torch_over_training_steps_then_eval(kwargs: dict[str, Any]) -> None:
    torch.manual_seed(6)
    theirs = torch.nn.BatchNorm2d(3, **kwargs)
    ours = BatchNorm2d(3, **kwargs)
    if theirs.affine:
        with torch.no_grad():
            theirs.weight.uniform_(0.5, 1.5)
            if theirs.bias is not None:
                theirs.bias.uniform_(-0.5, 0.5)
    ours.load_state_dict(theirs.state_dict())
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)
    for step in range(4):
        x = torch.randn(4, 3, 5, 6) * (step + 1) + step
        outs = []
        for model in (ours, theirs):
            xin = x.clone().requires_grad_()
            y = model(xin)
            (y.square() * torch.arange(1.0, 4.0).view(1, 3, 1, 1)).sum().backward()
            outs.append((y, xin.grad))
        torch.testing.assert_close(outs[0][0], outs[1][0], atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(outs[0][1], outs[1][1], atol=1e-4, rtol=1e-4)
        if theirs.affine:
            _assert_grads_equal(ours, theirs)
            ours.zero_grad()
            theirs.zero_grad()
        for (name, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items(), strict=True):
            torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5, msg=f"{name} after step {step}")
    ours.eval()
    theirs.eval()
    x = torch.randn(2, 3, 5, 6) + 1
    torch.testing.assert_close(ours(x), theirs(x), atol=1e-5, rtol=1e-5)
    theirs.load_state_dict(ours.state_dict())  # and back


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")], ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("momentum", [0.1, None], ids=["momentum-0.1", "cumulative"])
def test_batch_norm_non_finite_input_as_torch_nn(value: float, momentum: float | None) -> None:
    """Issue 20 item 2: a NaN or ±inf in a channel made torch.nn's running_var NaN while ours stayed
    finite (the op's batch variance was 0). Outputs, gradients and running statistics as torch.nn's,
    NaN for NaN, inf for inf, then eval with the poisoned statistics."""
    torch.manual_seed(7)
    theirs = torch.nn.BatchNorm2d(3, momentum=momentum)
    ours = BatchNorm2d(3, momentum=momentum)
    ours.load_state_dict(theirs.state_dict())
    x = torch.randn(4, 3, 5, 6)
    x[2, 1, 3, 4] = value
    outs = []
    for model in (ours, theirs):
        xin = x.clone().requires_grad_()
        y = model(xin)
        (y.nan_to_num() * torch.arange(1.0, 4.0).view(1, 3, 1, 1)).sum().backward()
        outs.append((y, xin.grad, *(p.grad for p in model.parameters())))  # weight, bias
    for name, a, b in zip(("y", "x.grad", "weight.grad", "bias.grad"), *outs, strict=True):
        torch.testing.assert_close(a, b, atol=1e-4, rtol=1e-4, equal_nan=True, msg=name)
    for (name, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items(), strict=True):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5, equal_nan=True, msg=name)
    assert ours.running_var is not None and theirs.running_var is not None
    assert ours.running_var[1].isnan() and theirs.running_var[1].isnan()
    ours.eval()
    theirs.eval()
    x = torch.randn(2, 3, 5, 6)
    torch.testing.assert_close(ours(x), theirs(x), atol=1e-5, rtol=1e-5, equal_nan=True)


def test_batch_norm_loads_state_dicts_without_num_batches_tracked() -> None:
    """torch.nn's version-1 state_dicts (before num_batches_tracked) load as in torch.nn."""
    state = torch.nn.BatchNorm2d(3).state_dict()
    del state["num_batches_tracked"]
    state._metadata = {"": {"version": 1}}  # type: ignore[attr-defined]
    ours = BatchNorm2d(3)
    ours.num_batches_tracked.fill_(5)
    ours.load_state_dict(state)
    assert ours.num_batches_tracked.item() == 0


# -- the flat params --------------------------------------------------------------------------
def _count_flat_calls(monkeypatch: Any) -> list[int]:
    """Counts the forwards that pass the flat tensor (not torch.cat) to the op."""
    calls: list[int] = []
    original = torch_nn._FlatParams.apply

    def counted(*args: Any) -> Any:
        calls.append(1)
        return original(*args)

    monkeypatch.setattr(torch_nn._FlatParams, "apply", counted)
    return calls


def _is_flat(model: Any) -> bool:
    return model._flat_is_live(model._opaque_tensors(0, model.num_layers))


def _run(model: Any, x: Any, params: dict[str, Any] | None = None) -> tuple[list[Any], Any]:
    """Outputs and the input's gradient of one forward + backward, with params through functional_call."""
    xin = x.clone().requires_grad_()
    output, states = model(xin) if params is None else torch.func.functional_call(model, params, (xin,))
    outs = [output, *_flat_states(states)]
    sum(o.square().sum() * (k + 1) for k, o in enumerate(outs)).backward()
    return outs, xin.grad


def _clones(model: Any) -> dict[str, Any]:
    return {n: p.detach().clone().requires_grad_(p.requires_grad) for n, p in model.named_parameters()}


@pytest.mark.parametrize(("cls", "kwargs"), CONFIGS)
def test_flat_params_are_bit_identical_to_the_cat_path(cls: Any, kwargs: dict[str, Any], monkeypatch: Any) -> None:
    """The module's parameters are views of its flat tensor, which forward passes to the op (the
    match with torch.nn is test_outputs_and_gradients_match_torch_nn's); functional_call with
    clones takes torch.cat: the same outputs and gradients, bit for bit."""
    calls = _count_flat_calls(monkeypatch)
    ours, _ = _pair(cls, seed=8, **kwargs)
    assert _is_flat(ours)
    flat = ours._flat
    layout = [p.data_ptr() - flat.data_ptr() for p in ours._opaque_tensors(0, ours.num_layers)]
    assert layout == sorted(layout) and len(set(layout)) == len(layout)
    x = torch.randn((3, 6, IN) if kwargs.get("batch_first") else (6, 3, IN))
    assert ours._params(0, ours.num_layers, x).data_ptr() == flat.data_ptr()  # no copy
    outs, x_grad = _run(ours, x)
    assert len(calls) == 2
    # no copy back either: the gradients are views of the op's params gradient
    assert len({p.grad.untyped_storage().data_ptr() for p in ours.parameters()}) == 1
    clones = _clones(ours)
    cat_outs, cat_x_grad = _run(ours, x, clones)
    assert len(calls) == 2  # the clones took torch.cat
    for k, (a, b) in enumerate(zip(outs, cat_outs, strict=True)):
        assert torch.equal(a, b), f"output {k}"
    assert torch.equal(x_grad, cat_x_grad)
    for name, param in ours.named_parameters():
        assert param.grad is not None and torch.equal(param.grad, clones[name].grad), name
    if not kwargs.get("bias", True):  # the zero biases after the parameters stayed zeros
        assert not torch.any(flat[sum(p.numel() for p in ours.parameters()):])


def test_fallback_and_flatten_parameters_after_assign_and_conversions(monkeypatch: Any) -> None:
    """torch.cat under functional_call with other tensors and after load_state_dict(assign=True);
    flatten_parameters() and .double() re-flatten; an in-place load_state_dict keeps the flat
    tensor; frozen parameters get no gradient; deepcopy, pickle and torch.save give working copies."""
    calls = _count_flat_calls(monkeypatch)
    ours, theirs = _pair(LSTM, seed=9, num_layers=2, bidirectional=True, proj_size=3)
    x = torch.randn(5, 2, IN)
    reference, _ = _run(ours, x, _clones(ours))
    assert not calls
    assert not list(ours.buffers()) and list(ours.state_dict()) == list(theirs.state_dict())

    _run(ours, x, dict(ours.named_parameters()))  # its own parameters through functional_call: flat
    assert len(calls) == 1

    ours.load_state_dict({k: v.clone() for k, v in theirs.state_dict().items()}, assign=True)
    assert not _is_flat(ours)
    outs, _ = _run(ours, x)
    assert len(calls) == 1 and all(torch.equal(a, b) for a, b in zip(outs, reference, strict=True))
    param = ours.weight_hh_l1
    ours.flatten_parameters()
    assert _is_flat(ours) and ours.weight_hh_l1 is param  # the same Parameter objects (optimizers hold them)
    outs, _ = _run(ours, x)
    assert len(calls) == 2 and all(torch.equal(a, b) for a, b in zip(outs, reference, strict=True))

    with torch.no_grad():
        theirs.weight_ih_l0.mul_(0.5)
    flat = ours._flat
    ours.load_state_dict(theirs.state_dict())
    assert _is_flat(ours) and ours._flat is flat and torch.equal(ours.weight_ih_l0, theirs.weight_ih_l0)
    reference, _ = _run(ours, x, _clones(ours))

    for copy_of in (copy.deepcopy, lambda m: pickle.loads(pickle.dumps(m)), _torch_save_load):
        twin = copy_of(ours)
        assert _is_flat(twin) and twin._flat.data_ptr() != ours._flat.data_ptr()
        outs, _ = _run(twin, x)
        assert all(torch.equal(a, b) for a, b in zip(outs, reference, strict=True))

    ours.zero_grad()
    ours.weight_ih_l0.requires_grad_(False)
    outs, _ = _run(ours, x)
    assert ours.weight_ih_l0.grad is None and ours.weight_hh_l0.grad is not None
    ours.weight_ih_l0.requires_grad_(True)

    ours.double()
    assert _is_flat(ours) and ours._flat.dtype == torch.float64
    theirs.double()
    calls.clear()
    outs, _ = _run(ours, x.double())
    cat_outs, _ = _run(ours, x.double(), _clones(ours))
    assert len(calls) == 1 and all(torch.equal(a, b) for a, b in zip(outs, cat_outs, strict=True))
    torch.testing.assert_close(outs[0], theirs(x.double())[0])


def _torch_save_load(model: Any) -> Any:
    buffer = io.BytesIO()
    torch.save(model, buffer)
    buffer.seek(0)
    return torch.load(buffer, weights_only=False)


def test_meta_device_then_to_empty_is_flat() -> None:
    model = GRU(IN, H, num_layers=2, bias=False, device="meta")
    model.to_empty(device="cpu")
    model.reset_parameters()
    assert _is_flat(model) and model._flat.device.type == "cpu"
    _, reference = _pair(GRU, seed=10, num_layers=2, bias=False)
    model.load_state_dict(reference.state_dict())
    x = torch.randn(4, 3, IN)
    torch.testing.assert_close(model(x)[0], reference(x)[0], atol=1e-5, rtol=1e-4)


def test_share_memory_keeps_the_flat_tensor_shared_with_workers() -> None:
    """share_memory() moves the flat tensor into shared memory; the copy torch.multiprocessing
    unpickles in a worker (ForkingPickler, with the reductions `import torch` registers; here
    in-process) keeps its flat layout on that memory, so the worker's updates are the parent's
    (Hogwild training), as they would not be if unpickling copied the parameters into a new flat tensor."""
    model = LSTM(IN, H, num_layers=2)
    model.share_memory()
    assert _is_flat(model) and model._flat.is_shared()
    buffer = io.BytesIO()
    ForkingPickler(buffer, pickle.HIGHEST_PROTOCOL).dump(model)
    worker = ForkingPickler.loads(buffer.getvalue())
    assert _is_flat(worker) and worker is not model
    with torch.no_grad():
        worker.weight_hh_l1.add_(1.0)
    assert torch.equal(worker.weight_hh_l1, model.weight_hh_l1)


@pytest.mark.parametrize("cls", [LSTM, GRU, RNN])
def test_changing_a_weight_between_forward_and_backward_raises_as_in_torch_nn(cls: Any) -> None:
    """The flat tensor is the weights' own storage, so the op's backward would see an in-place
    change: autograd refuses it, as for torch.nn's (on the CPU, whose backward saves the weights)."""
    ours, theirs = _pair(cls, seed=11, num_layers=2)
    x = torch.randn(4, 3, IN)
    for model in (ours, theirs):
        model(x)[0].sum().backward()  # no change: no error
        output = model(x)[0]
        with torch.no_grad():
            model.weight_hh_l1.add_(0.1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            output.sum().backward()
    output = ours(x)[0]
    with torch.no_grad():
        theirs.weight_hh_l1.add_(0.1)  # another module's weight: no error
    output.sum().backward()


@pytest.mark.parametrize(("cls", "kwargs"), [
    pytest.param(LSTM, {"num_layers": 2, "bidirectional": True}, id="lstm-bi2"),
    pytest.param(GRU, {"bias": False}, id="gru-nobias"),
])
def test_sgd_steps_equal_the_cat_path(cls: Any, kwargs: dict[str, Any], monkeypatch: Any) -> None:
    """Five SGD steps (momentum, weight decay) on the flat tensor give the parameters that the same
    steps give through torch.cat (a twin loaded with assign=True), bit for bit; the steps, in
    place, keep the parameters in the flat tensor."""
    calls = _count_flat_calls(monkeypatch)
    flat_model, _ = _pair(cls, seed=12, **kwargs)
    cat_model = cls(IN, H, **kwargs)
    cat_model.load_state_dict({k: v.clone() for k, v in flat_model.state_dict().items()}, assign=True)
    assert not _is_flat(cat_model)
    optimizers = [torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-3)
                  for m in (flat_model, cat_model)]
    for step in range(5):
        x = torch.randn(4, 3, IN)
        for model, optimizer in zip((flat_model, cat_model), optimizers, strict=True):
            optimizer.zero_grad()
            output, _ = model(x)
            output.square().mean().backward()
            optimizer.step()
        for (name, a), (_, b) in zip(flat_model.named_parameters(), cat_model.named_parameters(), strict=True):
            assert torch.equal(a, b), f"{name} after step {step}"
    assert _is_flat(flat_model) and not _is_flat(cat_model) and len(calls) == 5


# -- torch.compile ----------------------------------------------------------------------------
class _Block(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.bn = BatchNorm2d(3)

    def forward(self, x: Any) -> Any:
        return self.bn(x).relu().mean((2, 3))


class _Classifier(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lstm = LSTM(IN, H, num_layers=2, bidirectional=True, batch_first=True)
        self.head = torch.nn.Linear(2 * H, 3)

    def forward(self, x: Any) -> Any:
        self.lstm.flatten_parameters()  # as code written for cuDNN does: a no-op in the graph
        out, (h_n, _) = self.lstm(x)
        return self.head(out.mean(1) + h_n[-1].repeat(1, 2))


def _compiled_matches_eager(make: Any, shapes: list[tuple[int, ...]], dynamic: bool) -> None:
    """One model eager, a copy compiled (fullgraph), 3 SGD steps each on the same data: the same
    losses, gradients, parameters and buffers after every step; and no graph break."""
    torch.manual_seed(7)
    eager = make()
    compiled_model = make()
    compiled_model.load_state_dict(eager.state_dict())
    explanation = torch._dynamo.explain(compiled_model)(torch.randn(shapes[0]))
    assert explanation.graph_break_count == 0, explanation.break_reasons
    compiled_model.load_state_dict(eager.state_dict())  # explain ran a forward (running statistics)
    compiled = torch.compile(compiled_model, fullgraph=True, dynamic=dynamic)
    optimizers = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (eager, compiled_model)]
    for step, shape in enumerate(shapes):
        x = torch.randn(shape)
        target = torch.randint(0, 3, (shape[0],))
        losses = []
        for fn, opt in zip((eager, compiled), optimizers, strict=True):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(fn(x), target)
            loss.backward()
            opt.step()
            losses.append(loss)
        torch.testing.assert_close(losses[0], losses[1], atol=1e-5, rtol=1e-5, msg=f"loss at step {step}")
        for (name, a), (_, b) in zip(eager.state_dict().items(), compiled_model.state_dict().items(), strict=True):
            torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5, msg=f"{name} after step {step}")


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_compiled_bn_relu_block_matches_eager(dynamic: bool) -> None:
    shapes = [(4, 3, 5, 6)] * 3 if not dynamic else [(4, 3, 5, 6), (6, 3, 4, 5), (3, 3, 7, 2)]
    _compiled_matches_eager(_Block, shapes, dynamic)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_compiled_bidirectional_lstm_classifier_matches_eager(dynamic: bool) -> None:
    shapes = [(3, 6, IN)] * 3 if not dynamic else [(3, 6, IN), (5, 4, IN), (2, 7, IN)]
    _compiled_matches_eager(_Classifier, shapes, dynamic)


# -- CUDA (run by a GPU session: `python -m pytest -q -m gpu tests/test_torch_modules.py`; skipped elsewhere) --
@pytest.mark.gpu
@pytest.mark.parametrize("cls", [LSTM, GRU], ids=["lstm-bi2", "gru-bi2"])
def test_cuda_modules_run_their_flat_params(cls: Any, monkeypatch: Any) -> None:
    """Moved to cuda, the module re-flattens there and passes the flat tensor (no torch.cat) to the
    op; outputs and gradients match torch.nn's (cuDNN) as on the cpu."""
    if not torch.cuda.is_available():
        pytest.skip("this torch has no CUDA")
    calls = _count_flat_calls(monkeypatch)
    ours, theirs = _pair(cls, seed=11, num_layers=2, bidirectional=True)
    ours, theirs = ours.cuda(), theirs.cuda()
    assert _is_flat(ours) and ours._flat is not None and ours._flat.device.type == "cuda"
    x = torch.randn(6, 3, IN, device="cuda")
    outs, x_grad = _run(ours, x)
    theirs_outs, theirs_x_grad = _run(theirs, x)
    assert calls == [1]
    for k, (a, b) in enumerate(zip(outs, theirs_outs, strict=True)):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-4, msg=f"output {k}")
    torch.testing.assert_close(x_grad, theirs_x_grad, atol=1e-5, rtol=1e-4)
    _assert_grads_equal(ours, theirs)
