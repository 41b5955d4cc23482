"""examples/cpu_speed, the project whose two ops are written with the CPU-speed loop helpers
(kernels/_loops.cuh; issue 33, item 5): generated as its user would (`opgen generate` in a copy of the
folder), then DepthwiseConv2d, DepthwiseConv2dGrad and TopK against float64 NumPy
(tests/reference/cpu_speed.py) on the three scopes (the cpu plan, the GPU's plan on the emulation,
the GPU form) with poisoned outputs, against PyTorch (F.conv2d(groups=C) and its autograd,
torch.topk), and compiled by NVRTC."""

from __future__ import annotations

import importlib
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from nvrtc_runs import nvrtc_runs
from reference import cpu_speed

from codegen.runtime.scope import Scope

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "cpu_speed"
needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
SCOPES = {"cpu plan": Scope("cpu"), "cuda plan": Scope("cpu", launch_plan="cuda"),
          "gpu form": Scope("cpu", kernel_form="gpu")}
TOL = {np.float32: {"rtol": 2e-5, "atol": 2e-5}, np.float64: {"rtol": 1e-12, "atol": 1e-12}}


@pytest.fixture(scope="module")
def ops(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The example copied to a temporary folder and generated there with its own [tool.opgen]."""
    from codegen.cli import main as opgen

    root = tmp_path_factory.mktemp("example") / "cpu_speed"
    shutil.copytree(EXAMPLE, root)
    cwd = Path.cwd()
    os.chdir(root)
    try:
        assert opgen(["generate"]) == 0
    finally:
        os.chdir(cwd)
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module("cpu_speed_ops")
    finally:
        sys.path.remove(str(root))


@pytest.fixture(autouse=True)
def poisoned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_POISON_OUTPUTS", "1")  # an element no kernel writes is NaN


CONV_SHAPES = [(2, 3, 5, 11), (1, 4, 1, 9), (2, 2, 7, 3), (1, 3, 6, 17), (3, 2, 4, 56), (1, 1, 1, 1), (0, 2, 3, 3)]


# ------------------------------------------------------------------ the depthwise convolution --

@needs_gxx
@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", CONV_SHAPES)
def test_depthwise_conv2d_and_its_gradients_against_numpy(ops: ModuleType, scope: str, dtype: Any,
                                                          shape: tuple[int, ...]) -> None:
    """Widths under a run plus its edges, interiors that are not a multiple of the run, one-row
    images (no window row above or below), an empty batch."""
    rng = np.random.default_rng(sum(shape))
    x = rng.standard_normal(shape).astype(dtype)
    filt = rng.standard_normal((shape[1], 1, 3, 3)).astype(dtype)
    dy = rng.standard_normal(shape).astype(dtype)
    y = ops.depthwise_conv2d(x, filt, scope=SCOPES[scope]).y
    np.testing.assert_allclose(y, cpu_speed.depthwise_conv2d(x, filt), **TOL[dtype])
    grads = ops.depthwise_conv2d_grad(dy, x, filt, scope=SCOPES[scope])
    want_dx, want_dfilter = cpu_speed.depthwise_conv2d_grad(dy, x, filt)
    np.testing.assert_allclose(grads.dx, want_dx, **TOL[dtype])
    np.testing.assert_allclose(grads.dfilter, want_dfilter, rtol=TOL[dtype]["rtol"] * 10,
                               atol=TOL[dtype]["atol"] * np.sqrt(x[:, 0].size + 1))


@needs_gxx
def test_depthwise_conv2d_against_pytorch(ops: ModuleType) -> None:
    """torch.ops and autograd against F.conv2d(groups=C) and its backward; gradcheck in float64."""
    torch = pytest.importorskip("torch")
    importlib.import_module("cpu_speed_ops.torch")
    F = torch.nn.functional
    x = torch.randn(2, 6, 9, 20, dtype=torch.float32, requires_grad=True)
    filt = torch.randn(6, 1, 3, 3, dtype=torch.float32, requires_grad=True)
    y = torch.ops.cpu_speed_ops.depthwise_conv2d(x, filt)
    want = F.conv2d(x, filt, padding=1, groups=6)
    torch.testing.assert_close(y, want, rtol=1e-5, atol=1e-5)
    dy = torch.randn_like(y)
    got = torch.autograd.grad(y, (x, filt), dy)
    expect = torch.autograd.grad(want, (x, filt), dy)
    for g, e in zip(got, expect, strict=True):
        torch.testing.assert_close(g, e, rtol=1e-4, atol=1e-4)
    x64 = torch.randn(1, 2, 4, 11, dtype=torch.float64, requires_grad=True)
    f64 = torch.randn(2, 1, 3, 3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(torch.ops.cpu_speed_ops.depthwise_conv2d, (x64, f64))


# ------------------------------------------------------------------ top-k --

@needs_gxx
@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("shape", "k"), [((5, 1024), 8), ((3, 7), 7), ((4, 19), 3), ((2, 3, 9), 1), ((6, 33), 0),
                                          ((2, 8), 8), ((0, 5), 2)])
def test_top_k_against_numpy(ops: ModuleType, scope: str, dtype: Any, shape: tuple[int, ...], k: int) -> None:
    """Rows that are not a multiple of the run (the gather's tail), k = D, k = 0, no rows."""
    x = np.random.default_rng(k + shape[-1]).standard_normal(shape).astype(dtype)
    got = ops.top_k(x, k=k, scope=SCOPES[scope])
    want_values, want_indices = cpu_speed.top_k(x, k)
    assert np.array_equal(got.values, want_values.astype(dtype)) and np.array_equal(got.indices, want_indices)


@needs_gxx
@pytest.mark.parametrize("scope", SCOPES)
def test_top_k_ranks_nan_first_and_keeps_ties_in_index_order(ops: ModuleType, scope: str) -> None:
    x = np.array([[1, 3, np.nan, 3, 2, -np.inf, np.inf, 3, 0, 5, np.nan, 4, 3, 3, 3, 3, 3, -1]], np.float32)
    got = ops.top_k(x, k=9, scope=SCOPES[scope])
    want_values, want_indices = cpu_speed.top_k(x, 9)
    assert np.array_equal(got.values, want_values.astype(np.float32), equal_nan=True)
    assert got.indices.tolist() == want_indices.tolist() == [[2, 10, 6, 9, 11, 1, 3, 7, 12]]


@needs_gxx
@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize(("D", "k"), [(37, 5), (64, 8), (1000, 3), (9, 4)])
def test_top_k_with_many_ties(ops: ModuleType, scope: str, D: int, k: int) -> None:
    """Values from a handful of integers: the bound (the least group maximum) ties with many values,
    all of which stay candidates, and the first of equal values comes first."""
    x = np.random.default_rng(D).integers(-3, 4, (6, D)).astype(np.float32)
    x[1, D // 2] = -np.inf
    x[2] = 1.0
    got = ops.top_k(x, k=k, scope=SCOPES[scope])
    want_values, want_indices = cpu_speed.top_k(x, k)
    assert np.array_equal(got.values, want_values.astype(np.float32)) and np.array_equal(got.indices, want_indices)


def test_top_k_refuses_k_above_the_row(ops: ModuleType) -> None:
    with pytest.raises(ValueError, match="k must be at most x's last dimension"):
        ops.top_k(np.zeros((2, 4), np.float32), k=5, scope="cpu")


@needs_gxx
def test_top_k_against_pytorch(ops: ModuleType) -> None:
    torch = pytest.importorskip("torch")
    importlib.import_module("cpu_speed_ops.torch")
    x = torch.randn(64, 1000, dtype=torch.float32)
    values, indices = torch.ops.cpu_speed_ops.top_k(x, k=8)
    want = torch.topk(x, 8)
    assert torch.equal(values, want.values) and torch.equal(indices, want.indices)


# ------------------------------------------------------------- NVRTC (the GPU form) --

def test_nvrtc_compiles_the_examples_kernels(ops: ModuleType) -> None:
    """The generated modules in tests/test_gpu_compile.py's NVRTC matrix (sm_90 and sm_100), no spills
    (nvrtc_runs)."""
    for run in nvrtc_runs(sorted((Path(ops.__file__).parent / "nn").glob("*.cu"))):
        assert {"DepthwiseConv2dGrad__depthwise_filter_grad__float32", "TopK__top_k__float64"} \
            <= {k.kernel for k in run.kernels}
