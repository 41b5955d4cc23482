"""An entry point that a spec's plans can launch with more than 256 threads has `__launch_bounds__`
of its largest block (codegen/lower.py: largest_blocks), so NVRTC caps its registers to fit that
block (64 a thread at 1,024 threads) and the host emulation refuses a larger block as the driver
does; up to 256 threads no bound caps anything, and only a constant block's is written. A kernel
only the cpu plan launches is left out of the module as NVRTC reads it (inside `#ifdef OPGEN_HOST_EMU`).
No NVRTC here: tests/test_gpu_compile.py reads the registers from the cubins."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from codegen import lower
from codegen.load import load_specs
from codegen.resources import launch_blocks
from codegen.runtime import host, manifest
from codegen.runtime.manifest import HOST_EMULATION
from codegen.warmup import generated_ops

PROJECT = Path(__file__).resolve().parent.parent
SPECS = {op.name: op for op in load_specs(PROJECT / "specs")}
CPU_ONLY = "FusedBatchNormV3__stats_partials_sliced__float32"  # the cpu plan's sliced statistics


def _text(op: str) -> str:
    spec = SPECS[op]
    return importlib.import_module(f"generated.{spec.group}.{spec.snake_name}")._KERNELS.text  # type: ignore[no-any-return]


def _as_compiled(text: str, cuda: bool) -> set[str]:
    """The entry points of a module as NVRTC (no OPGEN_HOST_EMU) or the host emulation reads it."""
    return {k.name for k in host.scan_kernels(text, [f"-{'U' if cuda else 'D'}{HOST_EMULATION}"])}


def test_an_entry_point_above_256_threads_is_bounded_by_the_largest_block_of_either_plan() -> None:
    checked = 0
    for op in SPECS.values():
        if op.kernel is None:
            continue
        plans = {plan: launch_blocks(op, plan) for plan in ("cuda", "cpu")}
        for entry in lower.lower(op).entry_points:
            largest = max(plans["cuda"].get(entry.symbol, 0), plans["cpu"].get(entry.symbol, 0))
            const = lower._const_threads(entry.step)  # a constant block keeps its own bound
            assert largest > 0 and entry.launch_bounds == (largest if largest > 256 else const), entry.symbol
            assert entry.cpu_only == (entry.symbol not in plans["cuda"]), entry.symbol
            checked += 1
    assert checked > 150
    bounds = {e.symbol: e.launch_bounds for e in lower.lower(SPECS["LayerNorm"]).entry_points}
    assert bounds["LayerNorm__layer_norm__float32"] == 512  # its plan caps the block at 512 (the family says why)
    dml = {e.kernel: e.launch_bounds for e in lower.lower(SPECS["DmlRnn"]).entry_points}
    assert dml["step"] == 1024 and dml["init_state"] == 1024  # the cpu plan's block is the larger for these
    assert dml["final_state"] is None and dml["persistent"] == 256  # up to 256 threads: a constant block's own


def test_the_bound_is_printed_one_block_a_multiprocessor_above_256_threads_and_for_float64() -> None:
    """EntryPoint.bounds_attribute, the one place the form of the bound is chosen: (N, 1) above 256
    threads and for float64, (N) for another constant block, nothing without a bound."""
    entries = {e.symbol: e for op in ("DmlRnn", "CudnnRNNBackpropV3")
               for e in lower.lower(SPECS[op]).entry_points}
    assert entries["DmlRnn__step__float32"].bounds_attribute == "__launch_bounds__(1024, 1) "
    assert entries["DmlRnn__persistent__float32"].bounds_attribute == "__launch_bounds__(256) "
    assert entries["CudnnRNNBackpropV3__persistent_lstm_grad__float64"].bounds_attribute == \
        "__launch_bounds__(256, 1) "
    assert entries["DmlRnn__final_state__float32"].bounds_attribute == ""
    for entry in entries.values():  # what the module declares
        text = _text(entry.symbol.split("__")[0])
        assert f'extern "C" __global__ void {entry.bounds_attribute}{entry.symbol}(' in text, entry.symbol


def test_every_kernel_that_can_take_1024_threads_says_so_in_its_source() -> None:
    """The generated modules carry the bounds (what NVRTC caps registers by): the kernels the cuda
    plan can launch with 1,024 threads (Softmax's and SoftmaxGrad's rows), and those it caps lower
    (LayerNorm's at 512) their own."""
    full = {k.name: k.max_threads for op in ("LayerNorm", "Softmax", "LayerNormGrad")
            for k in host.scan_kernels(_text(op)) if launch_blocks(SPECS[k.name.split("__")[0]]).get(k.name) == 1024}
    assert len(full) >= 6 and set(full.values()) == {1024}
    assert 'extern "C" __global__ void __launch_bounds__(1024, 1) Softmax__softmax_rows__float32(' in _text("Softmax")
    assert 'extern "C" __global__ void __launch_bounds__(512, 1) LayerNorm__layer_norm__float32(' in _text("LayerNorm")


def test_the_host_emulation_refuses_a_block_above_a_generated_kernels_bound() -> None:
    """BiasAdd's kernel takes at most 512 threads (its plan's largest block): 1,024 is refused as the
    driver refuses it, 512 runs."""
    module = host.load_module(_text("BiasAdd"), name_hint="bias_add")
    fn = module.get_function("BiasAdd__bias_add__float32")
    assert fn.max_threads_per_block == 512
    x, bias, y = np.ones(8, np.float32), np.ones(2, np.float32), np.zeros(8, np.float32)
    args: tuple[Any, ...] = (x, bias, y, np.int64(4), np.int64(2), np.int64(2), np.int64(0))  # [4, 2], NHWC
    with pytest.raises(host.HostLaunchError, match=r"1024 threads.*512 \(__launch_bounds__\)"):
        fn((1,), (1024,), args)
    fn((1,), (512,), args)
    assert (y == 2).all()


def test_a_cpu_only_kernel_is_in_the_cpu_module_and_not_in_the_cuda_one() -> None:
    text = _text("FusedBatchNormV3")
    assert CPU_ONLY in _as_compiled(text, cuda=False)
    assert CPU_ONLY not in _as_compiled(text, cuda=True)
    assert "FusedBatchNormV3__stats_partials__float32" in _as_compiled(text, cuda=True)  # the cuda plan's
    stated = {k.name: k.cpu_only for k in manifest.parse(text).kernels}
    assert stated[CPU_ONLY] and not stated["FusedBatchNormV3__stats_partials__float32"]
    assert {name for name, cpu_only in stated.items() if cpu_only} == \
        _as_compiled(text, cuda=False) - _as_compiled(text, cuda=True)
    (op,) = [op for op in generated_ops() if op.name == "FusedBatchNormV3"]
    assert CPU_ONLY in op.entry_points("cpu") and CPU_ONLY not in op.entry_points("cuda")


def test_every_module_leaves_out_exactly_the_kernels_the_cuda_plan_never_launches() -> None:
    for op in SPECS.values():
        if op.kernel is None:
            continue
        on_gpu = _as_compiled(_text(op.name), cuda=True)
        for entry in lower.lower(op).entry_points:
            assert (entry.symbol in on_gpu) != entry.cpu_only, entry.symbol


def test_the_resource_reports_compute_each_ops_largest_blocks_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """nvrtc_compile.attach over two runs of the same kernels (the CI matrix attaches seven): each op's
    launch plan is walked once (seconds for the RNN ops), and every row gets its kernel's block."""
    from codegen import resources
    from codegen.resources import KernelResources
    from codegen.verify import nvrtc_compile

    ops = ["BiasAdd", "LayerNorm"]
    blocks = {op: launch_blocks(SPECS[op]) for op in ops}
    walked: list[str] = []
    monkeypatch.setattr(resources, "launch_blocks", lambda op, plan="cuda": walked.append(op.name) or blocks[op.name])

    def run() -> Any:
        rows = [KernelResources(op, kernel, 32, 0, 0) for op in ops for kernel in blocks[op]]
        return nvrtc_compile.Run("13.0.88", False, modules=[nvrtc_compile.ModuleResult("m.cu", True, kernels=rows)])

    runs = [run(), run()]
    nvrtc_compile.attach(runs, list(SPECS.values()))
    assert sorted(walked) == ops
    assert all(row.max_block == blocks[row.op][row.kernel] > 0 for r in runs for row in r.kernels)
