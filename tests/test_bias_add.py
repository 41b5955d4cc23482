"""BiasAdd and BiasAddGrad (group nn, issue 15) on the cpu backend: against the float64 references
of tests/reference/bias_add.py and PyTorch (value + bias.view(...), autograd for the bias's
gradient), with outputs poisoned (an element no kernel writes is NaN), under both launch plans
(Scope("cpu", launch_plan="cuda") runs the GPU plan's launch sizes: blocks of many threads striding
the rows, the block sums), ranks 2 to 5, both data formats, empty tensors, 16-bit and 64-bit types."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pytest
from reference import bias_add as ref

from generated import Scope, bias_add, bias_add_grad

ml_dtypes = pytest.importorskip("ml_dtypes")

DTYPES = {"float32": np.float32, "float64": np.float64, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}
# (rtol, atol relative to the output's scale): every output is rounded once from float32 (double)
TOL = {"float32": (1e-5, 1e-6), "float64": (1e-12, 1e-13), "float16": (1e-3, 1e-3), "bfloat16": (8e-3, 8e-3)}
PLANS = ["cpu", "cuda", "gpu-form"]
Format = Literal["NHWC", "NCHW"]
SHAPES = [(4, 5), (1, 1), (3, 7, 9), (2, 3, 4, 5), (2, 3, 1, 2, 3), (2, 70, 1, 1), (2, 3, 600), (33, 40, 5),
          (130, 40), (70, 520), (0, 3), (3, 0), (0, 3, 4), (2, 0, 4), (2, 3, 0), (2, 3, 0, 4)]


pytestmark = pytest.mark.usefixtures("opgen_poison")  # (opgen's pytest plugin) an element no kernel writes is NaN


def _scope(plan: str) -> Scope:
    """The cpu backend under a launch plan, or "gpu-form": the GPU's plan and building blocks."""
    if plan == "gpu-form":
        return Scope("cpu", launch_plan="cuda", kernel_form="gpu")
    return Scope("cpu", launch_plan=plan)


def _close(got: np.ndarray, want: np.ndarray, dtype: str, what: str) -> None:
    rtol, atol = TOL[dtype]
    scale = max(1.0, float(np.abs(want).max())) if want.size else 1.0
    np.testing.assert_allclose(np.asarray(got).astype(np.float64), want, rtol=rtol, atol=atol * scale, err_msg=what)


def _channels(shape: tuple[int, ...], data_format: str) -> int:
    return shape[ref.channel_axis(len(shape), data_format)]


@pytest.mark.parametrize("plan", PLANS)
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_bias_add_and_its_gradient_against_the_reference(plan: str, dtype: str, data_format: Format,
                                                         shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng([len(shape), *shape, len(data_format), len(dtype)])
    scope = _scope(plan)
    value = rng.standard_normal(shape).astype(DTYPES[dtype])
    bias = rng.standard_normal(_channels(shape, data_format)).astype(DTYPES[dtype])
    out = bias_add(value, bias, data_format=data_format, scope=scope).output
    assert out.dtype == value.dtype and out.shape == shape
    _close(out, ref.bias_add(value, bias, data_format), dtype, "output")
    grad = bias_add_grad(value, data_format=data_format, scope=scope).output
    assert grad.dtype == value.dtype and grad.shape == bias.shape
    _close(grad, ref.bias_add_grad(value, data_format), dtype, "bias gradient")


@pytest.mark.parametrize("plan", PLANS)
def test_a_large_gradient_sums_in_float32_for_16_bit_types(plan: str) -> None:
    # 20000 ones per channel: a float16 running sum stops at 2048, a float32 one is exact
    for dtype in ("float16", "bfloat16"):
        ones = np.ones((100, 4, 200), DTYPES[dtype])
        grad = bias_add_grad(ones, data_format="NCHW", scope=_scope(plan)).output
        want = np.full(4, 20000.0).astype(DTYPES[dtype]).astype(np.float64)
        np.testing.assert_array_equal(grad.astype(np.float64), want, err_msg=dtype)


@pytest.mark.parametrize("plan", PLANS)
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_an_offset_view_gives_the_aligned_result(plan: str, dtype: str) -> None:
    """value one element past 16 bytes (every row's base off 16 bytes: the GPU's scalar path)."""
    rng = np.random.default_rng(35)
    buf = rng.standard_normal(130 * 40 + 16).astype(DTYPES[dtype])
    start = (-buf.ctypes.data % 16) // buf.itemsize + 1
    value, bias = buf[start:start + 130 * 40].reshape(130, 40), buf[start:start + 40]
    assert value.ctypes.data % 16 and bias.ctypes.data % 16
    scope = _scope(plan)
    got = bias_add(value, bias, scope=scope).output
    np.testing.assert_array_equal(got, bias_add(value.copy(), bias.copy(), scope=scope).output)
    grad = bias_add_grad(value, scope=scope).output
    np.testing.assert_array_equal(grad, bias_add_grad(value.copy(), scope=scope).output)
    _close(grad, ref.bias_add_grad(value, "NHWC"), dtype, "bias gradient")


def test_rank_2_nchw_is_the_channel_at_dim_1() -> None:
    value, bias = np.arange(6, dtype=np.float32).reshape(2, 3), np.array([10, 20, 30], np.float32)
    fmts: tuple[Format, ...] = ("NHWC", "NCHW")
    for fmt in fmts:
        np.testing.assert_array_equal(bias_add(value, bias, data_format=fmt, scope="cpu").output,
                                      [[10, 21, 32], [13, 24, 35]])
        np.testing.assert_array_equal(bias_add_grad(value, data_format=fmt, scope="cpu").output, [3, 5, 7])


@pytest.mark.parametrize(("value_shape", "bias_shape", "fmt", "message"), [
    ((5,), (5,), "NHWC", "BiasAdd: value: expected shape [N, *mid, C]"),
    ((5,), (5,), "NCHW", "BiasAdd: value: expected shape [N, C, *spatial]"),
    ((2, 3, 4), (3,), "NHWC", "BiasAdd: bias: expected shape [C=4]"),
    ((2, 3, 4), (4,), "NCHW", "BiasAdd: bias: expected shape [C=3]"),
])
def test_bad_shapes_name_the_op_the_argument_and_both_shapes(value_shape: tuple[int, ...], bias_shape: tuple[int, ...],
                                                             fmt: Format, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("*", r"\*")) as info:
        bias_add(np.zeros(value_shape, np.float32), np.zeros(bias_shape, np.float32), data_format=fmt, scope="cpu")
    assert str(list(value_shape if "value" in message else bias_shape)) in str(info.value)


def test_bad_dtypes_and_formats_are_refused() -> None:
    with pytest.raises(TypeError, match="BiasAdd: bias"):
        bias_add(np.zeros((2, 3), np.float32), np.zeros(3, np.float64), scope="cpu")
    with pytest.raises(ValueError, match="BiasAddGrad: attr data_format: expected one of NHWC, NCHW"):
        bias_add_grad(np.zeros((2, 3), np.float32), data_format="NDHWC", scope="cpu")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="BiasAddGrad: out_backprop: expected shape"):
        bias_add_grad(np.zeros(3, np.float32), scope="cpu")


# -- against PyTorch ---------------------------------------------------------------------------------
torch_only = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _torch() -> Any:
    torch = pytest.importorskip("torch")
    import generated.torch  # noqa: F401  (registers torch.ops.opgen.*)

    return torch


@torch_only
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("shape", [(4, 5), (2, 3, 7), (2, 6, 5, 4), (2, 3, 4, 5, 6)], ids=str)
def test_bias_add_and_the_bias_gradient_match_pytorch(dtype: str, data_format: Format, shape: tuple[int, ...]) -> None:
    torch = _torch()
    tdtype = getattr(torch, dtype)
    gen = torch.Generator().manual_seed(len(shape))
    axis = ref.channel_axis(len(shape), data_format)
    value = torch.randn(shape, generator=gen, dtype=torch.float64).to(tdtype)
    bias = torch.randn(shape[axis], generator=gen, dtype=torch.float64).to(tdtype).requires_grad_()
    dy = torch.randn(shape, generator=gen, dtype=torch.float64).to(tdtype)
    view = [1] * len(shape)
    view[axis] = -1
    want = value + bias.view(view)
    want_grad, = torch.autograd.grad(want, bias, dy)
    got = torch.ops.opgen.bias_add(value, bias.detach(), data_format=data_format)
    got_grad = torch.ops.opgen.bias_add_grad(dy, data_format=data_format)
    assert got.dtype == got_grad.dtype == tdtype
    rtol, atol = TOL[dtype]
    torch.testing.assert_close(got, want.detach(), rtol=rtol, atol=atol)
    scale = max(1.0, float(want_grad.abs().max()))
    torch.testing.assert_close(got_grad.double(), want_grad.double(), rtol=rtol * 4, atol=atol * 4 * scale)


@torch_only
@pytest.mark.parametrize(("data_format", "shape"), [("NHWC", (2, 3, 4, 5)), ("NCHW", (2, 5, 3, 4)), ("NCHW", (3, 5)),
                                                    ("NHWC", (4, 5))])
def test_the_torch_backward_is_the_identity_and_bias_add_grad(data_format: str, shape: tuple[int, ...]) -> None:
    """autograd: value's gradient is the incoming gradient itself (grad(output)), bias's is
    BiasAddGrad of it: finite differences in float64, and PyTorch's own autograd."""
    torch = _torch()
    value = torch.randn(*shape, dtype=torch.float64, requires_grad=True)
    bias = torch.randn(5, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda v, b: torch.ops.opgen.bias_add(v, b, data_format=data_format),
                                    (value, bias))
    dy = torch.randn(*shape, dtype=torch.float64)
    (torch.ops.opgen.bias_add(value, bias, data_format=data_format) * dy).sum().backward()
    view = [1] * len(shape)
    view[-1 if data_format == "NHWC" else 1] = 5
    ref_v, ref_b = value.detach().clone().requires_grad_(), bias.detach().clone().requires_grad_()
    ((ref_v + ref_b.view(view)) * dy).sum().backward()
    torch.testing.assert_close(value.grad, ref_v.grad)
    torch.testing.assert_close(bias.grad, ref_b.grad)
