"""One kernel module per kernel template (issue 31 item 3, codegen/modules.py): ops whose kernels
share a template (CudnnRNNV3 and CudnnRNNBackpropV3) are generated into one .cu holding the
template once and every member's entry points, and each backend compiles it once per process."""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codegen import cli, lower, modules
from codegen.load import load_specs
from codegen.runtime import host, manifest
from codegen.runtime.cpu import CpuBackend
from codegen.runtime.kernels import KernelSource

PROJECT = Path(__file__).resolve().parent.parent
RNN = ("CudnnRNNV3", "CudnnRNNBackpropV3")


def test_ops_sharing_a_template_share_one_module_named_after_it() -> None:
    groups = {m.path: m.names for m in modules.module_groups(load_specs(PROJECT / "specs"))}
    assert groups["rnn/cudnn_rnn.cu"] == ["CudnnRNNBackpropV3", "CudnnRNNV3"]
    assert groups["nn/fused_batch_norm.cu"] == ["FusedBatchNormGradV3", "FusedBatchNormV3"]
    assert groups["rnn/dml_rnn.cu"] == ["DmlRnn"]  # a template only one op uses: a module of its own, named alike
    assert all(path.endswith(".cu") for path in groups)
    assert sum(map(len, groups.values())) == len([op for op in load_specs(PROJECT / "specs") if op.kernel])


def test_the_rnn_module_states_both_ops_entry_points() -> None:
    ops = {op.name: op for op in load_specs(PROJECT / "specs")}
    text = (PROJECT / "generated" / "rnn" / "cudnn_rnn.cu").read_text(encoding="utf-8")
    stated = [k.name for k in manifest.parse(text).kernels]
    lowered = [e.symbol for name in sorted(RNN) for e in lower.lower(ops[name], 0).entry_points]
    assert stated == lowered  # the union, each op's in order, every symbol its own op's
    assert {s.split("__")[0] for s in stated} == set(RNN)
    assert text.count('#line 1 "codegen/templates/kernels/rnn/cudnn_rnn.cu"') == 1  # the template once
    assert not (PROJECT / "generated" / "rnn" / "cudnn_rnn_v3.cu").exists()


def _wrappers() -> list[Any]:
    return [importlib.import_module(f"generated.rnn.{name}") for name in ("cudnn_rnn_v3", "cudnn_rnn_backprop_v3")]


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_loading_both_rnn_ops_compiles_their_module_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cpu backend asks the host compiler (or its cache) for the RNN family's kernels once."""
    asked: list[str] = []
    real = host.load_module

    def counted(source: str, *args: Any, **kwargs: Any) -> Any:
        asked.append(source)
        return real(source, *args, **kwargs)

    monkeypatch.setattr(host, "load_module", counted)
    forward, backward = _wrappers()
    assert forward._KERNELS.path == backward._KERNELS.path
    assert (forward._KERNELS.op, backward._KERNELS.op) == RNN  # messages still name each op
    backend = CpuBackend()
    assert backend.load(forward._KERNELS) is backend.load(backward._KERNELS)
    assert len(asked) == 1, [len(text) for text in asked]


def test_check_lists_the_ops_that_share_a_module(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert cli.main(["generate", "--specs", str(PROJECT / "specs"), "--out", str(out)]) == 0
    capsys.readouterr()
    assert cli.main(["check", "--specs", str(PROJECT / "specs"), "--out", str(out)]) == 0
    stdout = capsys.readouterr().out
    assert (f"kernel module {out / 'rnn' / 'cudnn_rnn.cu'} holds CudnnRNNBackpropV3, CudnnRNNV3 (one compile for 2 "
            f"ops)") in stdout
    assert "dml_rnn.cu" not in stdout  # a module of one op: nothing merged to show


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_a_wrapper_finds_its_module_in_another_group_folder(tmp_path: Path) -> None:
    """Ops in group `other` whose template is nn/bias_add.cu: the module is nn/bias_add.cu, and each
    wrapper (other/*.py) loads it from there."""
    specs = tmp_path / "specs" / "other"
    specs.mkdir(parents=True)
    for name in ("bias_add.family.yaml", "bias_add.yaml", "bias_add_grad.yaml"):  # (the pair is a family)
        shutil.copy(PROJECT / "specs" / "nn" / name, specs / name)
    out = tmp_path / "cross_ops"
    assert cli.main(["generate", "--specs", str(tmp_path / "specs"), "--out", str(out), "--package", "cross_ops",
                     "--torch-namespace", "cross_ops"]) == 0
    assert (out / "nn" / "bias_add.cu").is_file() and not (out / "other" / "bias_add.cu").exists()
    assert 'Path(__file__).parent / "../nn/bias_add.cu"' in (out / "other" / "bias_add.py").read_text()
    code = ("import numpy as np, cross_ops as p; "
            "y = p.bias_add(np.ones((2, 3), np.float32), np.arange(3, dtype=np.float32)); print(y.output.tolist())")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": f"{tmp_path}:{PROJECT}"}, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]"


def test_kernel_sources_share_a_module_file_until_the_file_changes(tmp_path: Path) -> None:
    path = tmp_path / "m.cu"
    path.write_text("// one\n")
    a, b = KernelSource("A", path), KernelSource("B", path)
    assert a.module is b.module and a.text == "// one\n"  # read once, for both
    path.write_text("// two, regenerated\n")
    c = KernelSource("A", path)  # a wrapper imported again after its package was regenerated
    assert c.module is not a.module and c.text == "// two, regenerated\n"
    assert a.text == b.text == "// one\n"
    assert KernelSource("B", path).module is c.module
