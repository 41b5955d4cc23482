"""One kernel module per kernel template (issue 31 item 3, codegen/modules.py): ops whose kernels
share a template (CudnnRNNV3 and CudnnRNNBackpropV3) are generated into one .cu holding the
template once and every member's entry points, and each backend compiles it once per process."""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path
from typing import Any

import pytest

from codegen import lower, modules
from codegen.load import load_specs
from codegen.runtime import host, manifest
from codegen.runtime.cpu import CpuBackend

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
    from codegen import cli

    out = tmp_path / "out"
    assert cli.main(["generate", "--specs", str(PROJECT / "specs"), "--out", str(out)]) == 0
    capsys.readouterr()
    assert cli.main(["check", "--specs", str(PROJECT / "specs"), "--out", str(out)]) == 0
    stdout = capsys.readouterr().out
    assert (f"kernel module {out / 'rnn' / 'cudnn_rnn.cu'} holds CudnnRNNBackpropV3, CudnnRNNV3 (one compile for 2 "
            f"ops)") in stdout
    assert "dml_rnn.cu" not in stdout  # a module of one op: nothing merged to show
