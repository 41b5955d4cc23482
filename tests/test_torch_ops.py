"""Generated ops as PyTorch ops (issue 14, docs/pytorch.md): torch in/torch out through the
wrappers, torch.library.opcheck of every registered op on the parity script's input sets (schema,
fake tensors, autograd registration, AOT dispatch with dynamic shapes), gradients against PyTorch's
own formulas and finite differences, and clear errors where there is no backward."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import generated.torch as opgen_torch  # noqa: E402  (registers torch.ops.opgen.*)
from codegen.load import load_specs  # noqa: E402
from codegen.naming import snake_case  # noqa: E402
from codegen.runtime.activations import ActivationBase  # noqa: E402
from codegen.runtime.torch_bridge import from_array  # noqa: E402
from codegen.warmup import generated_ops  # noqa: E402
from generated import cudnn_rnn_v3, fused_batch_norm_v3  # noqa: E402
from opgen_ops.cudnn_rnn import params_layout  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
PARITY = runpy.run_path(str(SCRIPTS / "gpu_parity.py"))
CASES_PER_OP = 3  # opcheck compiles each case several times: a few diverse cases per op


def _to_torch(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return from_array(value.copy())
    if isinstance(value, list) and value and isinstance(value[0], np.ndarray):
        return [_to_torch(v) for v in value]
    return value


def _attr_to_torch(value: Any) -> Any:
    """Attr values as the schema takes them: activations as text, dtypes as names."""
    if isinstance(value, ActivationBase):
        return value.text()
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], ActivationBase):
        return [v.text() for v in value]
    if isinstance(value, type) and issubclass(value, np.generic):
        return np.dtype(value).name
    return value


def _registered_cases() -> list[Any]:
    cases, seen = [], {}
    ops = [op for op in generated_ops() if op.name not in opgen_torch.NOT_REGISTERED]
    for op, case in PARITY["all_cases"](ops):
        assert case is not None, op.name
        seen[op.name] = seen.get(op.name, 0) + 1
        if seen[op.name] <= CASES_PER_OP:
            cases.append(pytest.param(op, case, id=f"{op.name}-{case.label}"))
    return cases


def test_every_kernel_op_is_registered_and_runtime_ops_say_why_not() -> None:
    for op in generated_ops():
        name = snake_case(op.name)
        if op.name in opgen_torch.NOT_REGISTERED:
            assert not hasattr(torch.ops.opgen, name) or op.name not in ("Batch", "Unbatch", "UnbatchGrad")
            assert opgen_torch.NOT_REGISTERED[op.name]
        else:
            assert hasattr(torch.ops.opgen, name), op.name
    assert set(opgen_torch.NOT_REGISTERED) == {"Batch", "Unbatch", "UnbatchGrad"}


@pytest.mark.parametrize(("op", "case"), _registered_cases())
def test_opcheck(op: Any, case: Any) -> None:
    """Schema, fake tensor (shapes, dtypes, strides, device), autograd registration, AOT dispatch
    with static and dynamic shapes: torch.library.opcheck on each input set."""
    args = tuple(_to_torch(a) for a in case.args)
    kwargs = {k: _to_torch(_attr_to_torch(v)) for k, v in case.kwargs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # GRUBlockCell's deprecation
        result = torch.library.opcheck(getattr(torch.ops.opgen, snake_case(op.name)).default, args, kwargs)
    assert set(result.values()) == {"SUCCESS"}, result


def test_the_registered_op_gives_the_wrappers_results() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    stats = [np.ones(3, np.float32), np.zeros(3, np.float32), np.zeros(3, np.float32), np.ones(3, np.float32)]
    expected = fused_batch_norm_v3(x, *stats, data_format="NCHW", scope="cpu")
    got = torch.ops.opgen.fused_batch_norm_v3(torch.from_numpy(x), *map(torch.from_numpy, stats),
                                              data_format="NCHW")
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert isinstance(g, torch.Tensor)
        np.testing.assert_array_equal(g.numpy(), e)


# -- arrays in, same kind out ------------------------------------------------------------------------
def test_torch_in_torch_out_numpy_in_numpy_out() -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 4, 4, 3)).astype(np.float32)
    stats = [np.ones(3, np.float32), np.zeros(3, np.float32), np.zeros(3, np.float32), np.ones(3, np.float32)]
    as_numpy = fused_batch_norm_v3(x, *stats)
    assert all(isinstance(v, np.ndarray) for v in as_numpy)
    as_torch = fused_batch_norm_v3(torch.from_numpy(x), *map(torch.from_numpy, stats))
    assert all(isinstance(v, torch.Tensor) and v.device.type == "cpu" for v in as_torch)
    for t, n in zip(as_torch, as_numpy, strict=True):
        np.testing.assert_array_equal(t.numpy(), n)


def test_torch_outputs_share_memory_with_the_computed_arrays() -> None:
    """Zero copy both ways: a non-contiguous tensor is read as today's arrays are (copied once),
    a contiguous one is viewed, and the outputs are views of the arrays the kernels wrote."""
    x = torch.randn(2, 4, 4, 3)
    stats = [torch.ones(3), torch.zeros(3), torch.zeros(3), torch.ones(3)]
    y = fused_batch_norm_v3(x, *stats).y
    y_t = fused_batch_norm_v3(x.permute(0, 2, 1, 3).contiguous().permute(0, 2, 1, 3), *stats).y
    assert y.is_contiguous()
    torch.testing.assert_close(y, y_t, rtol=0, atol=0)
    array = y.numpy()
    array[0, 0, 0, 0] = 123.0
    assert y[0, 0, 0, 0].item() == 123.0  # y views the array, no copy


def test_bfloat16_tensors() -> None:
    x = torch.randn(2, 3, 4, 4, dtype=torch.bfloat16)
    stats = [torch.ones(3), torch.zeros(3), torch.zeros(3), torch.ones(3)]
    out = torch.ops.opgen.fused_batch_norm_v3(x, *stats, data_format="NCHW")
    assert out[0].dtype == torch.bfloat16
    ref = torch.nn.functional.batch_norm(x.float(), None, None, training=True, eps=1e-4)
    torch.testing.assert_close(out[0].float(), ref, atol=3e-2, rtol=3e-2)


def test_plain_function_refuses_tensors_that_require_grad_and_points_at_torch_ops() -> None:
    x = torch.randn(2, 4, 4, 3, requires_grad=True)
    stats = [torch.ones(3), torch.zeros(3), torch.zeros(3), torch.ones(3)]
    with pytest.raises(TypeError, match=r"FusedBatchNormV3: x: expected a tensor that does not require grad.*"
                                        r"torch.ops.opgen"):
        fused_batch_norm_v3(x, *stats)


# -- gradients -------------------------------------------------------------------------------------
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_gradients_match_torch(data_format: str, training: bool) -> None:
    torch.manual_seed(0)
    x = torch.randn(3, 4, 5, 6)
    scale, offset = torch.rand(6 if data_format == "NHWC" else 4) + 0.5, torch.randn(6 if data_format == "NHWC" else 4)
    c = scale.numel()
    if data_format == "NCHW":
        x = torch.randn(3, c, 5, 6)
    mean, var = torch.randn(c) * 0.1, torch.rand(c) + 0.5
    dy = torch.randn(x.shape)

    ours = [t.clone().requires_grad_() for t in (x, scale, offset)]
    y = torch.ops.opgen.fused_batch_norm_v3(*ours, mean, var, epsilon=1e-3, data_format=data_format,
                                            is_training=training)[0]
    (y * dy).sum().backward()

    theirs = [t.clone().requires_grad_() for t in (x, scale, offset)]
    nchw = theirs[0] if data_format == "NCHW" else theirs[0].permute(0, 3, 1, 2)
    ref = torch.nn.functional.batch_norm(nchw, None if training else mean, None if training else var,
                                         theirs[1], theirs[2], training=training, eps=1e-3)
    ref = ref if data_format == "NCHW" else ref.permute(0, 2, 3, 1)
    (ref * dy).sum().backward()
    torch.testing.assert_close(y, ref, atol=1e-5, rtol=1e-5)
    for a, b in zip(ours, theirs, strict=True):
        torch.testing.assert_close(a.grad, b.grad, atol=1e-4, rtol=1e-4)


def _torch_gru_cell(x: Any, h: Any, w_ru: Any, w_c: Any, b_ru: Any, b_c: Any) -> Any:
    """GRUBlockCell written in torch (OPS_REFERENCE §4): autograd gives the reference gradients."""
    hidden = h.shape[1]
    ru = torch.sigmoid(torch.cat([x, h], 1) @ w_ru + b_ru)
    r, u = ru[:, :hidden], ru[:, hidden:]
    c = torch.tanh(torch.cat([x, r * h], 1) @ w_c + b_c)
    return u * h + (1 - u) * c


def test_gru_cell_gradients_match_a_torch_gru_cell() -> None:
    torch.manual_seed(1)
    b, i, h = 4, 5, 6
    tensors = [torch.randn(b, i), torch.randn(b, h), torch.randn(i + h, 2 * h) * 0.3, torch.randn(i + h, h) * 0.3,
               torch.randn(2 * h) * 0.1, torch.randn(h) * 0.1]
    dh = torch.randn(b, h)
    ours = [t.clone().requires_grad_() for t in tensors]
    theirs = [t.clone().requires_grad_() for t in tensors]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # TensorFlow deprecated both ops
        out_h = torch.ops.opgen.gru_block_cell(*ours)[3]
        (out_h * dh).sum().backward()
    ref_h = _torch_gru_cell(*theirs)
    (ref_h * dh).sum().backward()
    torch.testing.assert_close(out_h, ref_h, atol=1e-5, rtol=1e-5)
    for name, a, b_ in zip(("x", "h_prev", "w_ru", "w_c", "b_ru", "b_c"), ours, theirs, strict=True):
        torch.testing.assert_close(a.grad, b_.grad, atol=1e-4, rtol=1e-4, msg=name)


@pytest.mark.parametrize(("mode", "direction", "layers"), [("lstm", "unidirectional", 1), ("gru", "bidirectional", 2),
                                                           ("rnn_tanh", "unidirectional", 2)])
def test_cudnn_rnn_gradcheck(mode: str, direction: str, layers: int) -> None:
    """Finite differences in float64 through torch.autograd.gradcheck: inputs, states and params,
    with sequence lengths shorter than T."""
    torch.manual_seed(2)
    t, b, i, h = 4, 2, 3, 3
    dirs = 2 if direction == "bidirectional" else 1
    size = params_layout(mode, layers, h, i, direction).size
    inp = torch.randn(t, b, i, dtype=torch.float64)
    hx = torch.randn(layers * dirs, b, h, dtype=torch.float64) * 0.5
    cx = torch.randn(layers * dirs, b, h, dtype=torch.float64) * 0.5
    params = torch.randn(size, dtype=torch.float64) * 0.4
    lengths = torch.tensor([4, 2], dtype=torch.int32)
    wanted = (inp, hx, cx, params) if mode == "lstm" else (inp, hx, params)

    def f(*xs: Any) -> Any:
        inp_, hx_, *rest = xs
        cx_, p = (rest[0], rest[1]) if mode == "lstm" else (cx, rest[0])
        out = torch.ops.opgen.cudnn_rnn_v3(inp_, hx_, cx_, p, lengths, rnn_mode=mode, direction=direction)
        return out[:3] if mode == "lstm" else out[:2]

    assert torch.autograd.gradcheck(f, [w.clone().requires_grad_() for w in wanted])


def test_backward_allocates_no_gradient_for_an_output_that_is_not_differentiable() -> None:
    """torch would hand the backward zeros for reserve_space (tens of MB at the drop-in LSTM's size,
    allocated and cleared on every backward); the backward gets None for it instead, and zeros
    only for a differentiable output nothing used (output_h here), whose gradient it reads."""
    from torch.utils._python_dispatch import TorchDispatchMode

    size = params_layout("lstm", 1, 3, 2).size
    inp = torch.randn(4, 2, 2, requires_grad=True)
    state = torch.zeros(1, 2, 3)
    params = torch.randn(size, requires_grad=True)
    out = torch.ops.opgen.cudnn_rnn_v3(inp, state, state, params, torch.tensor([4, 3], dtype=torch.int32))
    reserve = out[3].numel()
    created: list[int] = []

    class Allocations(TorchDispatchMode):
        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            result = func(*args, **(kwargs or {}))
            if func.overloadpacket in (torch.ops.aten.zeros, torch.ops.aten.zeros_like, torch.ops.aten.new_zeros,
                                       torch.ops.aten.zero_, torch.ops.aten.fill_):
                created.append(result.numel())
            return result

    with Allocations():
        (out[0].sum() + out[2].sum()).backward()
    assert reserve > 0 and reserve not in created, (reserve, created)
    assert out[1].numel() in created  # output_h's gradient, as zeros
    ref_inp, ref_params = inp.detach().clone().requires_grad_(), params.detach().clone().requires_grad_()
    ref = torch.ops.opgen.cudnn_rnn_v3(ref_inp, state, state, ref_params, torch.tensor([4, 3], dtype=torch.int32))
    torch.autograd.backward([ref[0], ref[1], ref[2]], [torch.ones_like(ref[0]), torch.zeros_like(ref[1]),
                                                       torch.ones_like(ref[2])])
    torch.testing.assert_close(inp.grad, ref_inp.grad, rtol=0, atol=0)
    torch.testing.assert_close(params.grad, ref_params.grad, rtol=0, atol=0)


@pytest.mark.parametrize(("mode", "input_mode"), [("lstm", "linear_input"), ("gru", "skip_input")])
def test_cudnn_rnn_backward_skips_the_input_gradient_nothing_needs(mode: str, input_mode: str) -> None:
    """autograd passes compute_input_backprop = whether the input needs a gradient: without one the
    first layer's dG·W products do not run (the op's input_backprop is zeros then), and every other
    gradient is bit-identical to the run that formed it."""
    torch.manual_seed(3)
    t, b, h, layers = 5, 3, 4, 2
    size = params_layout(mode, layers, h, h, "bidirectional", input_mode).size
    inp = torch.randn(t, b, h)
    state = torch.randn(2 * layers, b, h)
    lengths = torch.tensor([5, 2, 4], dtype=torch.int32)
    grads = {}
    for wanted in (True, False):
        x = inp.clone().requires_grad_(wanted)
        hx, params = state.clone().requires_grad_(), (torch.randn(size, generator=torch.Generator().manual_seed(4)) *
                                                      0.5).requires_grad_()
        cx = hx if mode == "lstm" else torch.zeros(0)
        out = torch.ops.opgen.cudnn_rnn_v3(x, hx, cx, params, lengths, rnn_mode=mode, input_mode=input_mode,
                                           direction="bidirectional")
        (out[0].square().sum() + out[1].sum()).backward()
        grads[wanted] = (x.grad, hx.grad, params.grad)
        if wanted:
            direct = torch.ops.opgen.cudnn_rnn_backprop_v3(
                x.detach(), hx.detach(), cx.detach(), params.detach(), lengths, *[o.detach() for o in out[:3]],
                2 * out[0].detach(), torch.ones_like(out[1]), torch.zeros_like(out[2]), out[3], out[4], rnn_mode=mode,
                input_mode=input_mode, direction="bidirectional", compute_input_backprop=False)
            assert direct[0].shape == x.shape and not direct[0].any()
            torch.testing.assert_close(direct[3], params.grad, rtol=0, atol=0)
    assert grads[True][0] is not None and grads[True][0].abs().sum() > 0 and grads[False][0] is None
    for name, a, b_ in zip(("input_h", "params"), grads[True][1:], grads[False][1:], strict=True):
        torch.testing.assert_close(a, b_, rtol=0, atol=0, msg=name)


def test_cudnn_rnn_backward_needs_training() -> None:
    size = params_layout("lstm", 1, 2, 2).size
    inp = torch.randn(2, 1, 2, requires_grad=True)
    state = torch.zeros(1, 1, 2)
    out = torch.ops.opgen.cudnn_rnn_v3(inp, state, state, torch.randn(size), torch.tensor([2], dtype=torch.int32),
                                       is_training=False)
    with pytest.raises(RuntimeError, match=r"CudnnRNNV3: backward needs is_training=True; the forward ran "
                                           r"without it"):
        out[0].sum().backward()


def test_ops_without_a_gradient_say_so_in_backward() -> None:
    t, b, i, h = 3, 1, 2, 2
    x = torch.randn(1, t, b, i, requires_grad=True)
    out = torch.ops.opgen.dml_rnn(x, torch.randn(1, 1, h, i), torch.randn(1, 1, h, h))
    with pytest.raises(RuntimeError, match="DmlRnn has no gradient: its spec declares no gradient op"):
        out[0].sum().backward()
    y = torch.randn(2, 3, 4, 4, requires_grad=True)
    ones, zeros = torch.ones(4), torch.zeros(4)
    grad = torch.ops.opgen.fused_batch_norm_grad_v3(y, y.detach(), ones, zeros, ones, zeros)
    with pytest.raises(RuntimeError, match="FusedBatchNormGradV3 has no gradient: it is the gradient of "
                                           "FusedBatchNormV3"):
        grad[0].sum().backward()


def test_activation_attrs_with_parameters_through_the_schema() -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 3, 1, 2)).astype(np.float32)
    w, r = (rng.standard_normal((1, 1, 2, 2)).astype(np.float32) for _ in range(2))
    from generated import Activation, dml_rnn

    expected = dml_rnn(x, w, r, activations=[Activation.leaky_relu(alpha=0.25)], scope="cpu")
    got = torch.ops.opgen.dml_rnn(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(r),
                                  activations=["leaky_relu(alpha=0.25)"])
    np.testing.assert_array_equal(got[0].numpy(), expected.output_sequence)


def test_str_list_and_optional_attrs_leak_nothing() -> None:
    # (PyTorch's stable to<std::string> never frees the std::string it makes; a `str[]?` attr's items went
    # through it: DmlRnn's activations=["tanh"] grew a process by ~61 bytes a call, ~6 MiB here, before
    # torch_stable.h's attr_value read them through the shim. A fresh process: what other tests leave
    # registered, opcheck's among them, grows a process's memory on every call of its own. An item past
    # the short-string buffer still grows it by ~100 bytes a call, outside our code: bench/RESULTS.md.)
    if not opgen_torch.NATIVE:
        pytest.skip("the C++ registration (OPGEN_TORCH_NATIVE=1) is what this holds")
    script = """
import os, pathlib, torch
import generated.torch
def resident():
    return int(pathlib.Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
x, w, r = torch.randn(1, 1, 1, 1), torch.randn(1, 1, 1, 1), torch.randn(1, 1, 1, 1)
def call():
    torch.ops.opgen.dml_rnn(x, w, r, activations=["tanh"])
for _ in range(1000):
    call()
before = resident()
for _ in range(100_000):
    call()
print(resident() - before)
"""
    env = {**os.environ, "PYTHONPATH": str(SCRIPTS.parent)}
    grown = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=SCRIPTS.parent,
                           timeout=300, check=True)
    assert int(grown.stdout.split()[-1]) < 2 << 20, grown.stdout


def test_compiled_training_step_has_no_graph_break_and_matches_eager() -> None:
    """A BN + ReLU block and a CudnnRNN layer in one torch.compile(fullgraph=True) graph, with
    dynamic shapes; its gradients equal eager's."""
    torch.manual_seed(4)
    size = params_layout("lstm", 1, 4, 3).size
    params = (torch.randn(size) * 0.3).requires_grad_()
    scale, offset = torch.ones(3, requires_grad=True), torch.zeros(3, requires_grad=True)

    def step(x: Any) -> Any:
        y = torch.ops.opgen.fused_batch_norm_v3(x, scale, offset, torch.zeros(3), torch.ones(3))[0].relu()
        seq = y.reshape(x.shape[0], -1, 3)
        state = torch.zeros(1, seq.shape[1], 4)
        lengths = torch.full((seq.shape[1],), seq.shape[0], dtype=torch.int32)
        out = torch.ops.opgen.cudnn_rnn_v3(seq, state, state, params, lengths)[0]
        return out.square().mean()

    x = torch.randn(5, 2, 1, 3)
    explanation = torch._dynamo.explain(step)(x)
    assert explanation.graph_break_count == 0, explanation.break_reasons
    compiled = torch.compile(step, fullgraph=True, dynamic=True)
    for shape in ((5, 2, 1, 3), (7, 3, 1, 3)):
        x = torch.randn(shape)
        grads = []
        for fn in (step, compiled):
            for p in (params, scale, offset):
                p.grad = None
            fn(x).backward()
            grads.append([p.grad.clone() for p in (params, scale, offset)])
        for a, b in zip(*grads, strict=True):
            torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)


def test_wrapper_call_of_cudnn_rnn_with_torch_matches_numpy() -> None:
    rng = np.random.default_rng(5)
    size = params_layout("gru", 1, 3, 2).size
    args = [rng.standard_normal(s).astype(np.float32) for s in ((4, 2, 2), (1, 2, 3), (1, 2, 3), (size,))]
    lengths = np.array([4, 3], np.int32)
    expected = cudnn_rnn_v3(*args, lengths, rnn_mode="gru")
    got = cudnn_rnn_v3(*map(torch.from_numpy, args), torch.from_numpy(lengths), rnn_mode="gru")
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_array_equal(g.numpy(), e)


# -- CUDA tensors (run by scripts/gpu-check.sh on a GPU; skipped elsewhere with the gpu marker's reason) --
@pytest.mark.gpu
def test_cuda_tensors_in_cuda_tensors_out_on_the_current_stream() -> None:
    if not torch.cuda.is_available():
        pytest.skip("this torch has no CUDA")
    x = torch.randn(4, 8, 5, 5, device="cuda")
    stats = [torch.ones(8, device="cuda"), torch.zeros(8, device="cuda"), torch.zeros(8, device="cuda"),
             torch.ones(8, device="cuda")]
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):  # the op's kernels must run on this stream, ordered with torch's work
        y = x * 2  # torch's own work on the stream, read by the op right after
        out = torch.ops.opgen.fused_batch_norm_v3(y, *stats, data_format="NCHW")
    stream.synchronize()
    assert out[0].device.type == "cuda"
    ref = torch.nn.functional.batch_norm(x * 2, None, None, training=True, eps=1e-4)
    torch.testing.assert_close(out[0], ref, atol=1e-4, rtol=1e-4)
    args = (x.requires_grad_(), stats[0].clone().requires_grad_(), stats[1].clone().requires_grad_(), stats[2],
            stats[3])
    result = torch.library.opcheck(torch.ops.opgen.fused_batch_norm_v3.default, args, {"data_format": "NCHW"})
    assert set(result.values()) == {"SUCCESS"}, result


# -- every op: one case each, with the spec's autograd declaration (issue 20 items 3 and 4) ---------
SPECS = {op.name: op for op in load_specs(SCRIPTS.parent / "specs")}


def _first_cases() -> list[Any]:
    cases, seen = [], set()
    ops = [op for op in generated_ops() if op.name not in opgen_torch.NOT_REGISTERED]
    for op, case in PARITY["all_cases"](ops):
        if op.name not in seen:
            seen.add(op.name)
            cases.append(pytest.param(op, case, id=op.name))
    return cases


def _torch_case(op: Any, case: Any) -> tuple[Any, list[Any], dict[str, Any]]:
    """The op's torch.ops overload, its positional arguments as tensors and its keyword arguments."""
    overload = getattr(torch.ops.opgen, snake_case(op.name)).default
    args = [_to_torch(a) for a in case.args]
    kwargs = {k: _to_torch(_attr_to_torch(v)) for k, v in case.kwargs.items()}
    for arg in overload._schema.arguments[len(args):]:  # optional inputs given by name: positional
        if not arg.kwarg_only:
            args.append(kwargs.pop(arg.name, None))
    return overload, args, kwargs


def _tensor_slots(overload: Any, args: list[Any]) -> list[tuple[str, int, int | None]]:
    """(name, position, list index or None) of every tensor among the arguments."""
    names = [a.name for a in overload._schema.arguments]
    slots: list[tuple[str, int, int | None]] = []
    for i, value in enumerate(args):
        if isinstance(value, torch.Tensor):
            slots.append((names[i], i, None))
        elif isinstance(value, list):
            slots += [(f"{names[i]}[{j}]", i, j) for j, v in enumerate(value) if isinstance(v, torch.Tensor)]
    return slots


def _on(args: list[Any], device: str) -> list[Any]:
    """The arguments with every tensor on `device` (made empty for "cuda", which needs
    FakeTensorMode on a CPU-only torch; fake tensors may be on CUDA)."""
    def move(v: Any) -> Any:
        if not isinstance(v, torch.Tensor):
            return v
        return torch.empty(v.shape, dtype=v.dtype, device=device) if device == "cuda" else v.to(device)

    return [[move(v) for v in a] if isinstance(a, list) else move(a) for a in args]


def _mixed(args: list[Any], other: list[Any], slot: tuple[str, int, int | None]) -> list[Any]:
    """`args` with the one tensor of `slot` taken from `other` (the same arguments on another device)."""
    _, i, j = slot
    out = list(args)
    pairs = enumerate(zip(out[i], other[i], strict=True)) if j is not None else ()
    out[i] = other[i] if j is None else [o if k == j else v for k, (v, o) in pairs]
    return out


def _assert_mismatch(err: BaseException, op: str, arg: str, devices: tuple[str, str]) -> None:
    text = str(err)
    assert "Expected all tensors to be on the same device, but found at least two devices" in text, text
    assert f"{op}: " in text and arg in text, text
    assert all(d in text for d in devices), text


@pytest.mark.parametrize(("op", "case"), _first_cases())
def test_tensors_on_two_devices_are_refused_naming_the_op_and_argument(op: Any, case: Any) -> None:
    """A meta tensor among CPU ones (and a CPU one among meta ones) dispatches to the fake, which
    must not return CPU tensors of uninitialised memory: PyTorch's device-mismatch error, naming the
    op and the argument (issue 20 item 3)."""
    overload, args, kwargs = _torch_case(op, case)
    slots = _tensor_slots(overload, args)
    if len(slots) < 2:
        pytest.skip(f"{op.name} takes one tensor: no mix of devices")
    meta = _on(args, "meta")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for slot in slots:
            for base, other, pair in ((args, meta, ("cpu", "meta")), (meta, args, ("meta", "cpu"))):
                with pytest.raises(RuntimeError) as info:
                    overload(*_mixed(base, other, slot), **kwargs)
                _assert_mismatch(info.value, op.name, slot[0], pair)


@pytest.mark.parametrize(("op", "case"), _first_cases())
def test_tensors_on_two_devices_are_refused_under_torch_compile(op: Any, case: Any) -> None:
    overload, args, kwargs = _torch_case(op, case)
    slots = _tensor_slots(overload, args)
    if len(slots) < 2:
        pytest.skip(f"{op.name} takes one tensor: no mix of devices")
    slot = slots[-1]

    def call(*xs: Any) -> Any:
        return overload(*xs, **kwargs)

    torch._dynamo.reset()
    with warnings.catch_warnings(), pytest.raises(Exception) as info:
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.compile(call, backend="eager", fullgraph=True)(*_mixed(args, _on(args, "meta"), slot))
    _assert_mismatch(info.value, op.name, slot[0], ("cpu", "meta"))


def test_tensors_on_two_devices_are_refused_under_aot_autograd() -> None:
    x, gamma = torch.randn(2, 3, requires_grad=True), torch.ones(3, device="meta")

    def f(x: Any, gamma: Any) -> Any:
        return torch.ops.opgen.layer_norm(x, gamma)[0].sum()

    torch._dynamo.reset()
    with pytest.raises(Exception) as info:
        torch.compile(f, backend="aot_eager", fullgraph=True)(x, gamma)
    _assert_mismatch(info.value, "LayerNorm", "gamma", ("cpu", "meta"))


@pytest.mark.parametrize(("op", "case"), _first_cases())
def test_cuda_tensors_mixed_with_cpu_or_meta_are_refused(op: Any, case: Any) -> None:
    """CUDA among CPU or meta tensors, on fake tensors (so without a GPU): the fake implementation
    (torch.compile, torch.export) and the implementation the CUDA dispatch key runs both refuse."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    overload, args, kwargs = _torch_case(op, case)
    slots = _tensor_slots(overload, args)
    if len(slots) < 2:
        pytest.skip(f"{op.name} takes one tensor: no mix of devices")
    name = snake_case(op.name)
    mode = FakeTensorMode()
    on = {device: [[mode.from_tensor(v) for v in a] if isinstance(a, list) else
                   mode.from_tensor(a) if isinstance(a, torch.Tensor) else a for a in _on(args, device)]
          for device in ("cpu", "meta")}
    with warnings.catch_warnings(), mode:
        warnings.simplefilter("ignore", DeprecationWarning)
        cuda = _on(args, "cuda")
        for other in ("cpu", "meta"):
            mixed = _mixed(on[other], cuda, slots[-1])
            with pytest.raises(RuntimeError) as info:
                overload(*mixed, **kwargs)
            _assert_mismatch(info.value, op.name, slots[-1][0], (other, "cuda"))
        inputs = dict(zip([a.name for a in overload._schema.arguments], mixed, strict=False))
        compute = getattr(opgen_torch, f"_{name}")._compute
        with pytest.raises(RuntimeError) as info:
            from codegen.runtime.torch_bridge import run_registered

            run_registered(op.name, compute, inputs, ())
        _assert_mismatch(info.value, op.name, slots[-1][0], ("meta", "cuda"))


@pytest.mark.parametrize(("op", "case"), _first_cases())
def test_every_op_runs_with_inputs_that_require_grad_and_its_backward_works_or_says_why_not(
        op: Any, case: Any) -> None:
    """Ops with and without attrs (LayerNormGrad, GRUBlockCellGrad have none): the forward runs; the
    backward computes the declared gradients or raises the op's no-gradient error (issue 20 item 4)."""
    overload, args, kwargs = _torch_case(op, case)
    spec = SPECS[op.name]
    leaves = []
    for value in args:
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, torch.Tensor) and v.is_floating_point():
                leaves.append(v.requires_grad_())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        out = overload(*args, **kwargs)
    outs = [t for o in (out if isinstance(out, tuple) else [out]) for t in (o if isinstance(o, list) else [o])]
    differentiable = [o for o in outs if o.requires_grad]
    if not leaves:
        assert not differentiable
        return
    assert differentiable, f"{op.name}: no output requires grad"
    loss = sum(o.float().sum() for o in differentiable)
    ag = spec.autograd
    if ag is None:
        with pytest.raises(RuntimeError, match=f"{op.name} has no gradient: "):
            loss.backward()
        return
    if any(kwargs.get(name, next(a.default for a in spec.attrs if a.name == name)) != value
           for name, value in ag.requires.clauses):
        with pytest.raises(RuntimeError, match=f"{op.name}: backward needs"):
            loss.backward()
        return
    loss.backward()
    assert any(leaf.grad is not None for leaf in leaves), op.name


@pytest.mark.parametrize(("forward", "gradient"), [("layer_norm", "LayerNormGrad"),
                                                   ("gru_block_cell", "GRUBlockCellGrad"),
                                                   ("softmax", "SoftmaxGrad")])
def test_double_backward_names_the_gradient_op_without_a_gradient(forward: str, gradient: str) -> None:
    torch.manual_seed(6)
    if forward == "gru_block_cell":
        b, i, h = 2, 3, 4
        inputs = [torch.randn(b, i), torch.randn(b, h), torch.randn(i + h, 2 * h), torch.randn(i + h, h),
                  torch.randn(2 * h), torch.randn(h)]
        pick = 3  # h
    else:
        inputs, pick = [torch.randn(2, 5)], 0
    leaves = [t.requires_grad_() for t in inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        out = getattr(torch.ops.opgen, forward)(*leaves)
        y = out[pick] if isinstance(out, (tuple, list)) else out
        (grad,) = torch.autograd.grad((y * y).sum(), leaves[0], create_graph=True)  # the gradient op, recorded
        with pytest.raises(RuntimeError, match=f"{gradient} has no gradient: it is the gradient of "):
            grad.sum().backward()
