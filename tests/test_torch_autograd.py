"""The generated ops' Autograd-key kernel (codegen/runtime/torch_autograd.py): a grad-mode call that
builds no graph goes below autograd without entering torch's register_autograd kernel, and one that
builds a graph is handed to that kernel (which then records the op's backward)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import generated.torch  # noqa: E402,F401  (registers torch.ops.opgen.*)

TORCH_KERNEL = str(Path(torch.__file__).parent / "_library" / "autograd.py")  # make_autograd_impl's kernel


@contextlib.contextmanager
def _torch_kernel_frames() -> Iterator[list[str]]:
    """The names of the Python frames entered in torch's autograd-kernel module meanwhile."""
    entered: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_filename == TORCH_KERNEL:
            entered.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        yield entered
    finally:
        sys.setprofile(None)


def _layer_norm(requires_grad: bool) -> Callable[[], Any]:
    x = torch.randn(2, 8, requires_grad=requires_grad)
    gamma, beta = torch.randn(8), torch.randn(8)
    return lambda: torch.ops.opgen.layer_norm(x, gamma, beta, epsilon=1e-3)


@pytest.mark.parametrize("mode", ["grad", "no_grad"])
def test_a_call_that_builds_no_graph_skips_torchs_autograd_kernel(mode: str) -> None:
    call = _layer_norm(requires_grad=mode == "no_grad")  # (under no_grad, an input that requires grad)
    with torch.inference_mode():
        expected = call()
    with torch.set_grad_enabled(mode == "grad"), _torch_kernel_frames() as entered:
        got = call()
    assert entered == []
    assert all(t.grad_fn is None and not t.requires_grad for t in got)
    for a, b in zip(got, expected, strict=True):
        assert torch.equal(a, b)


def test_a_call_that_builds_a_graph_runs_torchs_autograd_kernel() -> None:
    with _torch_kernel_frames() as entered:
        y, mean, rstd = _layer_norm(requires_grad=True)()
    assert "forward" in entered  # (its autograd.Function's)
    assert y.requires_grad and y.grad_fn is not None and not mean.requires_grad and not rstd.requires_grad
    y.sum().backward()
