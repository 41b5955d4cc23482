"""DmlRnn (DirectML's DML_RNN_OPERATOR_DESC) on the cpu emulation backend, and the activation
library's Python side (`generated.Activation`).

Compared against an independent float64 NumPy reference (tests/reference/dml_rnn.py): every
direction, with and without bias / hidden_init / sequence_lengths, lengths including 0 and
seq_length, B = 1, T = 1, H = 1, every activation with non-default parameters, float32 and
float16. Where onnxruntime is installed, also against ONNX's RNN operator (the same computation:
layout 0, sequence_lens, activation_alpha/beta passed explicitly) in the same process. Every test
that runs the op asks the runtime to poison outputs with NaN before the kernels run, so an element
that no kernel writes fails the comparisons.
"""

from __future__ import annotations

import copy
import pickle
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import gpu_plan_with_launches
from messages import assert_message, shape_texts
from reference.dml_rnn import ACTIVATIONS, activation, dml_rnn_reference

import generated
from generated import Activation, DmlRnn, Scope, dml_rnn

OP = "DmlRnn"
DIRECTIONS = ("forward", "backward", "bidirectional")
# float32: products of K ≤ 16 terms round at ~K·2^-24 relative and each step's error is damped by
# the activations' slopes (≤ 1 for the bounded ones, weights scaled so that the state stays O(1)):
# 2e-5 of the scale. float16: every step's state is stored in float16 (half an ulp is 2^-11),
# NumPy's float16 products round as they go, and T steps chain: 1e-2 of the scale. Indexing,
# direction or masking errors are O(1).
TOL = {"float32": 2e-5, "float16": 1e-2}
#: Non-default parameters for every activation of the library.
NON_DEFAULT = {
    "identity": {}, "linear": {"alpha": 0.7, "beta": -0.2}, "tanh": {}, "scaled_tanh": {"alpha": 1.3, "beta": 0.6},
    "sigmoid": {}, "hard_sigmoid": {"alpha": 0.35, "beta": 0.4}, "relu": {}, "leaky_relu": {"alpha": 0.2},
    "thresholded_relu": {"alpha": 0.15}, "elu": {"alpha": 0.6}, "scaled_elu": {"alpha": 1.2, "gamma": 0.8},
    "softsign": {}, "softplus": {"steepness": 2.5}, "parametric_softplus": {"alpha": 0.6, "beta": 1.7},
}
#: Our names → ONNX RNN's (activation_alpha/beta are consumed in order by those that use them).
ONNX_NAMES = {"identity": "Affine", "linear": "Affine", "tanh": "Tanh", "scaled_tanh": "ScaledTanh",
              "sigmoid": "Sigmoid", "hard_sigmoid": "HardSigmoid", "relu": "Relu", "leaky_relu": "LeakyRelu",
              "thresholded_relu": "ThresholdedRelu", "elu": "Elu", "softsign": "Softsign", "softplus": "Softplus"}


@pytest.fixture
def scope(monkeypatch):
    """The cpu backend, asked to fill every output and scratch buffer with NaN before the kernels."""
    monkeypatch.setenv("OPGEN_POISON_OUTPUTS", "1")
    return Scope(device="cpu")


def _rng(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def _dirs(direction: str) -> int:
    return 2 if direction == "bidirectional" else 1


def _inputs(rng, steps, batch, n_in, hidden, direction, dtype="float32", *, bias=False, hidden_init=False,
            lengths=None, weight_scale=1.0) -> dict[str, Any]:
    """The op's inputs as keyword arguments: weights scaled so that pre-activations are O(1)."""
    dt, d = np.dtype(dtype), _dirs(direction)
    scale = weight_scale / np.sqrt(max(n_in + hidden, 1))
    args: dict[str, Any] = {
        "input": rng.normal(0.0, 1.0, (1, steps, batch, n_in)).astype(dt),
        "weight": (rng.normal(0.0, 1.0, (1, d, hidden, n_in)) * scale).astype(dt),
        "recurrence": (rng.normal(0.0, 1.0, (1, d, hidden, hidden)) * scale).astype(dt),
    }
    if bias:
        args["bias"] = rng.normal(0.0, 0.5, (1, 1, d, 2 * hidden)).astype(dt)
    if hidden_init:
        args["hidden_init"] = rng.uniform(-1.0, 1.0, (1, d, batch, hidden)).astype(dt)
    if lengths is not None:
        args["sequence_lengths"] = np.asarray(lengths).reshape(1, 1, 1, batch)
    return args


def _reference(args: dict[str, Any], direction: str, activations=(("tanh", {}),)):
    return dml_rnn_reference(args["input"], args["weight"], args["recurrence"], args.get("bias"),
                             args.get("hidden_init"), args.get("sequence_lengths"), direction, activations)


def _assert_close(name: str, actual: Any, expected: np.ndarray, dtype: str, tol: float | None = None) -> None:
    actual = np.asarray(actual)
    assert actual.shape == expected.shape, f"{name}: shape {actual.shape}, expected {expected.shape}"
    assert actual.dtype == np.dtype(dtype), f"{name}: dtype {actual.dtype}, expected {dtype}"
    a64 = actual.astype(np.float64)
    assert not np.isnan(a64).any(), f"{name}: NaN elements (an output element was never written?)"
    tol = TOL[dtype] if tol is None else tol
    scale = max(1.0, float(np.abs(expected).max()) if expected.size else 1.0)
    np.testing.assert_allclose(a64, expected, rtol=tol, atol=tol * scale, err_msg=name)


def _check(out: Any, ref: tuple[np.ndarray, np.ndarray], dtype: str, tol: float | None = None) -> None:
    _assert_close("output_sequence", out.output_sequence, ref[0], dtype, tol)
    _assert_close("output_single", out.output_single, ref[1], dtype, tol)


def _activation_arg(name: str, params: dict[str, float]) -> Any:
    return getattr(Activation, name)(**params) if params else name


# ---------------------------------------------------------------------------------------------
# Semantics against the float64 reference
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("bias", [False, True], ids=["no_bias", "bias"])
@pytest.mark.parametrize("hidden_init", [False, True], ids=["no_h0", "h0"])
@pytest.mark.parametrize("lengths", [None, [5, 0, 2, 1]], ids=["full", "lengths"])
def test_matches_reference(scope, direction, bias, hidden_init, lengths):
    rng = _rng("options", direction, bias, hidden_init, lengths)
    args = _inputs(rng, 5, 4, 3, 6, direction, bias=bias, hidden_init=hidden_init,
                   lengths=None if lengths is None else np.array(lengths, np.uint32))
    before = {k: v.copy() for k, v in args.items()}
    out = dml_rnn(**args, direction=direction, scope=scope)
    _check(out, _reference(args, direction), "float32")
    for k, v in args.items():
        np.testing.assert_array_equal(v, before[k], err_msg=f"the op modified {k}")


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_float16(scope, direction):
    args = _inputs(_rng("f16", direction), 4, 3, 5, 8, direction, "float16", bias=True, hidden_init=True,
                   lengths=np.array([4, 1, 0], np.uint32))
    _check(dml_rnn(**args, direction=direction, scope=scope), _reference(args, direction), "float16")


@pytest.mark.parametrize(("steps", "batch", "n_in", "hidden"), [
    pytest.param(1, 1, 1, 1, id="T1-B1-I1-H1"),
    pytest.param(1, 3, 2, 5, id="T1"),
    pytest.param(6, 1, 3, 4, id="B1"),
    pytest.param(4, 3, 2, 1, id="H1"),
    pytest.param(3, 2, 1, 7, id="I1-H7"),
    pytest.param(7, 5, 9, 33, id="T7-B5-I9-H33"),
])
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_sizes(scope, steps, batch, n_in, hidden, direction):
    rng = _rng("sizes", steps, batch, n_in, hidden, direction)
    lengths = rng.integers(0, steps + 1, batch).astype(np.uint32)
    lengths[0] = steps
    args = _inputs(rng, steps, batch, n_in, hidden, direction, bias=True, hidden_init=True, lengths=lengths)
    _check(dml_rnn(**args, direction=direction, scope=scope), _reference(args, direction), "float32")


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32])
def test_sequence_length_dtypes(scope, dtype):
    """uint32 as DirectML has it; int32 and int64 (ONNX's and NumPy's defaults) are accepted."""
    lengths = np.array([3, 0, 1], dtype)
    args = _inputs(_rng("len dtype"), 3, 3, 2, 4, "bidirectional", bias=True, lengths=lengths)
    _check(dml_rnn(**args, direction="bidirectional", scope=scope), _reference(args, "bidirectional"), "float32")


def test_all_lengths_zero_and_all_full(scope):
    """len = 0 everywhere: zeros, even with hidden_init; len = T everywhere: as without lengths."""
    args = _inputs(_rng("zeros"), 4, 2, 3, 5, "bidirectional", bias=True, hidden_init=True,
                   lengths=np.zeros(2, np.uint32))
    out = dml_rnn(**args, direction="bidirectional", scope=scope)
    assert not np.asarray(out.output_sequence).any() and not np.asarray(out.output_single).any()
    args["sequence_lengths"] = np.full((1, 1, 1, 2), 4, np.uint32)
    full = dml_rnn(**args, direction="bidirectional", scope=scope)
    del args["sequence_lengths"]
    plain = dml_rnn(**args, direction="bidirectional", scope=scope)
    np.testing.assert_array_equal(full.output_sequence, plain.output_sequence)
    np.testing.assert_array_equal(full.output_single, plain.output_single)


def test_zero_steps(scope):
    """seq_length = 0: an empty output_sequence; output_single is zero (every length is 0)."""
    args = _inputs(_rng("T0"), 0, 3, 2, 4, "bidirectional", hidden_init=True)
    out = dml_rnn(**args, direction="bidirectional", scope=scope)
    assert np.asarray(out.output_sequence).shape == (0, 2, 3, 4)
    _assert_close("output_single", out.output_single, np.zeros((1, 2, 3, 4)), "float32")


def test_several_blocks_under_gpu_launch_sizes(scope, monkeypatch):
    """The `by: backend` lets give a GPU many blocks: the same kernels under those sizes (the cpu
    backend posing as cuda) still cover every element once; H odd takes the one-at-a-time path."""
    monkeypatch.setattr(scope.backend, "name", "cuda")
    for hidden in (600, 301):  # 2400 and 1204 cells: 3 and 2 blocks of 256 threads
        rng = _rng("gpu sizes", hidden)
        args = _inputs(rng, 3, 4, 5, hidden, "bidirectional", bias=True, hidden_init=True,
                       lengths=np.array([3, 2, 0, 1], np.uint32))
        _check(dml_rnn(**args, direction="bidirectional", scope=scope), _reference(args, "bidirectional"),
               "float32", tol=5e-5)


# ---------------------------------------------------------------------------------------------
# Activations
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(NON_DEFAULT))
def test_every_activation_with_non_default_parameters(scope, name):
    """The activation on the backward direction, leaky_relu(0.3) on the forward one; and the same
    function with its default parameters, given by name, for one direction."""
    params = NON_DEFAULT[name]
    rng = _rng("act", name)
    args = _inputs(rng, 4, 3, 3, 5, "bidirectional", bias=True, hidden_init=True,
                   lengths=np.array([4, 2, 0], np.uint32), weight_scale=0.8)
    acts = [Activation.leaky_relu(alpha=0.3), _activation_arg(name, params)]
    out = dml_rnn(**args, direction="bidirectional", activations=acts, scope=scope)
    _check(out, _reference(args, "bidirectional", (("leaky_relu", {"alpha": 0.3}), (name, params))), "float32")
    args = _inputs(rng, 3, 2, 3, 4, "backward", bias=True, weight_scale=0.8)
    out = dml_rnn(**args, direction="backward", activations=name, scope=scope)
    _check(out, _reference(args, "backward", ((name, {}),)), "float32")


def test_device_functions_over_a_range_of_inputs(scope):
    """Each generated device function against the float64 formula at 4001 points in ±30 and at
    ±80/±200 (overflow): one step with I = H = 1, W = 1 and no bias gives output_sequence[0, 0, b]
    = f(x_b)."""
    x = np.concatenate([np.linspace(-30.0, 30.0, 4001), [-200.0, -80.0, -1e-6, 0.0, 1e-6, 80.0, 200.0]])
    x = x.astype(np.float32)
    inputs = {"input": x.reshape(1, 1, -1, 1), "weight": np.ones((1, 1, 1, 1), np.float32),
              "recurrence": np.zeros((1, 1, 1, 1), np.float32)}
    for name, params in NON_DEFAULT.items():
        for values in (params, {}):
            out = dml_rnn(**inputs, activations=_activation_arg(name, values), scope=scope)
            as_passed = {k: float(np.float32(v)) for k, v in values.items()}  # kernels get float32 parameters
            expected = activation(name, as_passed)(x.astype(np.float64))
            got = np.asarray(out.output_sequence).reshape(-1).astype(np.float64)
            assert np.isfinite(got).all(), f"{name}{values}: non-finite results"
            np.testing.assert_allclose(got, expected, rtol=2e-6, atol=2e-6, err_msg=f"{name} {values}")


def test_activation_values():
    a = Activation.leaky_relu(alpha=0.1)
    assert a == Activation("leaky_relu", alpha=0.1) and hash(a) == hash(Activation("leaky_relu", alpha=0.1))
    assert a != Activation.leaky_relu() and repr(a) == "Activation.leaky_relu(alpha=0.1)"
    assert Activation.tanh() == Activation("tanh") and repr(Activation.tanh()) == "Activation.tanh()"
    assert Activation.scaled_elu().params == (("alpha", 1.6732631921768188), ("gamma", 1.0507010221481323))
    assert Activation.of("relu") == Activation.relu()
    assert [s.name for s in Activation.LIBRARY] == list(ACTIVATIONS)
    with pytest.raises(AttributeError):
        a.name = "relu"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(a)) == a and copy.copy(a) == a
    assert generated.Activation is Activation and "Activation" in generated.__all__


@pytest.mark.parametrize(("make", "error", "needles"), [
    (lambda: Activation("tanhh"), ValueError, ("unknown activation 'tanhh'", "identity, linear, tanh")),
    (lambda: Activation.leaky_relu(beta=1.0), TypeError, ("no parameter 'beta'", "alpha (default 0.01)")),
    (lambda: Activation.tanh(alpha=1.0), TypeError, ("no parameter 'alpha'", "its parameters: none")),
    (lambda: Activation.softplus(steepness=0.5), ValueError, ("steepness", ">= 1.0", "0.5")),
    (lambda: Activation.elu(alpha="1"), TypeError, ("alpha", "expected a number", "str")),
    (lambda: Activation.elu(alpha=float("inf")), ValueError, ("alpha", "finite", "inf")),
    (lambda: Activation(3), TypeError, ("expected an activation name", "int 3")),
])
def test_activation_errors(make, error, needles):
    with pytest.raises(error) as ei:
        make()
    for needle in needles:
        assert needle in str(ei.value), f"{needle!r} not in {str(ei.value)!r}"


def test_reference_page_has_the_activation_table():
    page = (Path(generated.__file__).parent / "docs" / "rnn" / "dml_rnn.md").read_text(encoding="utf-8")
    assert "## Activations" in page
    assert "| `leaky_relu` | alpha (0.01) | x if x ≥ 0, else alpha·x |" in page
    assert "| `softplus` | steepness (1.0, ≥ 1.0) | ln(1 + e^(steepness·x)) / steepness |" in page
    assert "| `softsign` |  | x / (1 + \\|x\\|) |" in page
    for name in ACTIVATIONS:
        assert f"| `{name}` |" in page


# ---------------------------------------------------------------------------------------------
# ONNX Runtime's RNN (the same computation) where it is installed
# ---------------------------------------------------------------------------------------------
def onnx_rnn(args: dict[str, Any], direction: str, activations: list[tuple[str, dict[str, float]]]):
    """(output_sequence, output_single) from ONNX Runtime's CPU RNN, layout 0."""
    onnx = pytest.importorskip("onnx", reason="onnx is not installed (pip install -e '.[test]')")
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed (pip install -e '.[test]')")
    from onnx import TensorProto, helper

    x = args["input"][0]
    steps, batch, _ = x.shape
    d, hidden = args["weight"].shape[1:3]
    names, alphas, betas = [], [], []
    for name, params in activations:
        full = {**ACTIVATIONS[name][0], **params}
        names.append(ONNX_NAMES[name])
        if name in ("identity", "linear", "scaled_tanh", "hard_sigmoid"):
            alphas.append(full.get("alpha", 1.0))
            betas.append(full.get("beta", 0.0))
        elif name in ("leaky_relu", "thresholded_relu", "elu"):
            alphas.append(full["alpha"])
    attrs: dict[str, Any] = {"hidden_size": hidden, "activations": names,
                             "direction": {"backward": "reverse"}.get(direction, direction)}
    if alphas:
        attrs["activation_alpha"] = alphas
    if betas:
        attrs["activation_beta"] = betas
    feeds = {"X": x, "W": args["weight"][0], "R": args["recurrence"][0],
             "B": args["bias"][0, 0] if "bias" in args else np.zeros((d, 2 * hidden), np.float32),
             "L": (args["sequence_lengths"].reshape(-1).astype(np.int32) if "sequence_lengths" in args
                   else np.full(batch, steps, np.int32)),
             "H0": args["hidden_init"][0] if "hidden_init" in args else np.zeros((d, batch, hidden), np.float32)}
    f32 = TensorProto.FLOAT
    inputs = [helper.make_tensor_value_info(k, TensorProto.INT32 if k == "L" else f32, list(v.shape))
              for k, v in feeds.items()]
    outputs = [helper.make_tensor_value_info("Y", f32, [steps, d, batch, hidden]),
               helper.make_tensor_value_info("Y_h", f32, [d, batch, hidden])]
    node = helper.make_node("RNN", list(feeds), ["Y", "Y_h"], **attrs)
    model = helper.make_model(helper.make_graph([node], "rnn", inputs, outputs),
                              opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    y, y_h = session.run(None, feeds)
    return y, y_h[None]


ONNX_CASES = [
    ("forward", [("tanh", {})]),
    ("backward", [("relu", {})]),
    ("bidirectional", [("tanh", {}), ("sigmoid", {})]),
] + [("bidirectional", [(name, NON_DEFAULT[name]), ("tanh", {})]) for name in ONNX_NAMES if name != "softplus"] + [
    ("forward", [("softplus", {})]),  # ONNX's Softplus has no steepness
]


@pytest.mark.parametrize(("direction", "acts"), ONNX_CASES,
                         ids=[f"{d}-{'-'.join(n for n, _ in a)}" for d, a in ONNX_CASES])
def test_matches_onnxruntime(scope, direction, acts):
    rng = _rng("onnx", direction, repr(acts))
    args = _inputs(rng, 5, 4, 3, 6, direction, bias=True, hidden_init=True,
                   lengths=np.array([5, 3, 0, 1], np.int32), weight_scale=0.8)
    expected = onnx_rnn(args, direction, acts)
    out = dml_rnn(**args, direction=direction, activations=[_activation_arg(n, p) for n, p in acts], scope=scope)
    # both in float32, in different orders of summation: a few ulp per step
    np.testing.assert_allclose(out.output_sequence, expected[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out.output_single, expected[1], rtol=1e-5, atol=1e-5)
    _check(out, _reference(args, direction, acts), "float32")  # and the reference agrees with both


# ---------------------------------------------------------------------------------------------
# Errors: the op, the argument and the bad value, before any kernel runs
# ---------------------------------------------------------------------------------------------
def _good(direction="bidirectional") -> dict[str, Any]:
    return _inputs(_rng("good"), 3, 2, 4, 5, direction, bias=True, hidden_init=True,
                   lengths=np.array([3, 1], np.uint32))


@pytest.mark.parametrize(("arg", "shape"), [
    ("input", (3, 2, 4)), ("input", (2, 3, 2, 4)),
    ("weight", (1, 1, 5, 4)), ("weight", (1, 2, 5, 3)),
    ("recurrence", (1, 2, 5, 4)), ("recurrence", (2, 5, 5)),
    ("bias", (1, 1, 2, 5)), ("bias", (1, 2, 10)),
    ("hidden_init", (1, 2, 3, 5)), ("hidden_init", (1, 1, 2, 5)),
    ("sequence_lengths", (1, 1, 1, 3)), ("sequence_lengths", (2,)),
])
def test_bad_shapes(scope, arg, shape):
    args = _good()
    args[arg] = np.zeros(shape, args[arg].dtype)
    with pytest.raises(ValueError) as ei:
        dml_rnn(**args, direction="bidirectional", scope=scope)
    assert_message(ei, OP, arg, shape_texts(shape))
    assert "direction bidirectional" in str(ei.value)


@pytest.mark.parametrize(("arg", "dtype"), [
    ("input", np.float64), ("weight", np.float16), ("recurrence", np.float64), ("bias", np.float16),
    ("hidden_init", np.int32), ("sequence_lengths", np.float32), ("sequence_lengths", np.int16),
])
def test_bad_dtypes(scope, arg, dtype):
    args = _good()
    args[arg] = args[arg].astype(dtype)
    with pytest.raises(TypeError) as ei:
        dml_rnn(**args, direction="bidirectional", scope=scope)
    assert_message(ei, OP, arg, np.dtype(dtype).name)


@pytest.mark.parametrize(("lengths", "dtype", "shown"), [
    ([4, 1], np.uint32, "got 4 at index [0, 0, 0, 0]"),
    ([3, 7], np.int64, "got 7 at index [0, 0, 0, 1]"),
    ([3, -1], np.int32, "got -1 at index [0, 0, 0, 1]"),
    ([2**32 + 1, 1], np.int64, f"got {2**32 + 1}"),  # would wrap to 1 as uint32
])
def test_bad_lengths(scope, lengths, dtype, shown):
    args = _good()
    args["sequence_lengths"] = np.array(lengths, dtype).reshape(1, 1, 1, 2)
    with pytest.raises(ValueError) as ei:
        dml_rnn(**args, direction="bidirectional", scope=scope)
    assert_message(ei, OP, "sequence_lengths", shown)
    assert "in [0, seq_length=3]" in str(ei.value)


@pytest.mark.parametrize(("direction", "value", "error", "needles"), [
    ("bidirectional", ["tanh"], ValueError, ("expected 2 activations", "num_directions = 2", "got 1")),
    ("forward", ["tanh", "relu"], ValueError, ("expected 1 activations", "got 2")),
    ("forward", "tanhh", ValueError, ("unknown activation 'tanhh'", "known: identity")),
    ("bidirectional", ["tanh", "rectifier"], ValueError, ("activations[1]", "unknown activation 'rectifier'")),
    ("forward", 3, TypeError, ("expected an activation", "int 3")),
    ("forward", [None], TypeError, ("activations[0]", "NoneType")),
    ("forward", [], ValueError, ("expected 1 activations", "got 0")),
])
def test_bad_activation_lists(scope, direction, value, error, needles):
    args = _good(direction)
    with pytest.raises(error) as ei:
        dml_rnn(**args, direction=direction, activations=value, scope=scope)
    assert_message(ei, OP, "activations", needles[0])
    for needle in needles[1:]:
        assert needle in str(ei.value), f"{needle!r} not in {str(ei.value)!r}"


def test_bad_direction(scope):
    with pytest.raises(ValueError) as ei:
        dml_rnn(**_good(), direction="reverse", scope=scope)
    assert_message(ei, OP, "direction", ("'reverse'",))


def test_class_api(scope):
    args = _good()
    acts = DmlRnn.activations([Activation.relu(), "tanh"])
    op = DmlRnn.create(scope, args["input"], args["weight"], args["recurrence"], args["bias"], args["hidden_init"],
                       args["sequence_lengths"], DmlRnn.direction("bidirectional"), acts)
    _check(op.output_tuple(), _reference(args, "bidirectional", (("relu", {}), ("tanh", {}))), "float32")
    assert repr(op) == "<DmlRnn output_sequence=float32[3, 2, 2, 5] output_single=float32[1, 2, 2, 5]>"


@pytest.mark.parametrize("kernel_form", ["host", "gpu"])
@pytest.mark.parametrize("direction", ["forward", "backward", "bidirectional"])
@pytest.mark.parametrize("batch, hidden, variant", [
    (3, 8, "persistent"), (9, 64, "persistent"), (64, 5, "persistent"), (65, 5, "fused_step"), (70, 40, "fused_step"),
    (3, 65, "fused_step"), (66, 128, "fused_step"), (3, 129, "step"), (65, 300, "step")])
def test_the_gpu_plans_persistent_fused_and_gemm_variants_match_the_cpu_plan(monkeypatch, kernel_form, direction,
                                                                             batch, hidden, variant):
    """The GPU's plan (on the emulation) runs every step in one `persistent` launch where
    hidden_size ≤ 64 and batch_size ≤ 64; else, up to hidden_size 128, a `fused_step` launch per
    step for both directions (tiles of 32 rows × 32 units: 66 or 70 rows and 40 or 128 units put
    several on each axis) and a `final_state`; above that a GEMM and a `step` launch per step. Either way the cpu
    plan's results, within float32's rounding of differently ordered sums, with poisoned outputs
    and lengths from 0 to T."""
    monkeypatch.setenv("OPGEN_POISON_OUTPUTS", "1")
    rng = _rng("persistent", direction, batch, hidden)
    dirs, steps, n_in = (2 if direction == "bidirectional" else 1), 4, 3
    x = rng.standard_normal((1, steps, batch, n_in)).astype(np.float32)
    w = (rng.standard_normal((1, dirs, hidden, n_in)) * 0.5).astype(np.float32)
    r = (rng.standard_normal((1, dirs, hidden, hidden)) / np.sqrt(hidden)).astype(np.float32)
    kwargs = {"direction": direction, "activations": ["tanh", "sigmoid"][:dirs],
              "bias": (rng.standard_normal((1, 1, dirs, 2 * hidden)) * 0.3).astype(np.float32),
              "hidden_init": rng.uniform(-1, 1, (1, dirs, batch, hidden)).astype(np.float32),
              "sequence_lengths": rng.integers(0, steps + 1, (1, 1, 1, batch)).astype(np.uint32)}
    want = dml_rnn(x, w, r, scope=Scope("cpu"), **kwargs)
    gpu, launched = gpu_plan_with_launches(monkeypatch, kernel_form)
    got = dml_rnn(x, w, r, scope=gpu, **kwargs)
    assert variant in launched and ({"persistent", "step", "fused_step"} - {variant}).isdisjoint(launched), launched
    assert launched.count(variant) == (1 if variant == "persistent" else steps)
    assert launched.count("final_state") == (1 if variant == "fused_step" else 0), launched
    # the recurrent sums in another order than BLAS's: |Δ| ≤ γ_H·Σ_k |h_k·R_jk| (γ_256 ≈ 1.5e-5; the
    # sums of |h·R| stay below 1 here), carried through the steps by tanh and sigmoid (slopes ≤ 1)
    bound = steps * hidden * 2.0**-24 / (1 - hidden * 2.0**-24)
    for name, g, e in zip(got._fields, got, want, strict=True):
        np.testing.assert_allclose(g, e, rtol=bound, atol=bound, err_msg=name)


@pytest.mark.parametrize("kernel_form", ["host", "gpu"])
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_the_fused_steps_see_a_tiles_last_row(monkeypatch, kernel_form, direction):
    """Issue 30 item 12: a fused step skips a tile of 32 batch rows whose rows have all ended
    (opgen::tile_any_row), so a tile whose only live row is its last must still be computed. 65
    rows (tiles of rows 0-31, 32-63 and 64), 8 units (the fused variant: batch > 64, hidden ≤ 128),
    3 steps; every sequence 1 long but rows 31 and 63, 3 long: from the second step on (in either
    direction) the first two tiles' only live rows are their last. Against the float64 reference,
    outputs poisoned."""
    monkeypatch.setenv("OPGEN_POISON_OUTPUTS", "1")
    steps, batch = 3, 65
    lengths = np.ones(batch, np.uint32)
    lengths[[31, 63]] = steps
    args = _inputs(_rng("last-row", direction), steps, batch, 4, 8, direction, bias=True, hidden_init=True,
                   lengths=lengths)
    gpu, launched = gpu_plan_with_launches(monkeypatch, kernel_form)
    _check(dml_rnn(**args, direction=direction, scope=gpu), _reference(args, direction), "float32")
    assert launched.count("fused_step") == steps and {"persistent", "step"}.isdisjoint(launched), launched


@pytest.mark.parametrize(("plan", "batch", "hidden", "variant"), [
    ("cuda", 3, 8, "persistent"), ("cuda", 65, 8, "fused"),  # first match wins: persistent, then fused
    ("cuda", 3, 100, "fused"), ("cuda", 3, 130, "gemm_steps"), ("cpu", 3, 8, "gemm_steps")])
def test_the_recording_keeps_the_variant_that_ran(plan, batch, hidden, variant, monkeypatch):
    """The plan's recording names the variant (specs/rnn/dml_rnn.yaml's variants:), read from the
    params as the benchmark reads them; the GPU's plan runs on the emulation. (The Python plan's
    recordings: a call the native driver serves does not update `_PLAN.latest()`.)"""
    monkeypatch.setenv("OPGEN_NATIVE", "0")
    from generated.rnn import dml_rnn as module

    params = module._PLAN.params
    assert params == {"persistent_max_hidden": 64, "persistent_max_batch": 64, "fused_max_hidden": 128}
    assert module._PLAN.variants == ("persistent", "fused", "gemm_steps")
    args = _inputs(_rng("variant", batch, hidden), 2, batch, 3, hidden, "forward")
    _check(dml_rnn(**args, scope=Scope("cpu", launch_plan=plan)), _reference(args, "forward"), "float32", tol=5e-5)
    assert module._PLAN.latest().variant == variant
