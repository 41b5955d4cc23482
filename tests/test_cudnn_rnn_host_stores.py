"""The cpu backend's gate rows (CudnnRNNV3's lstm_row and gru_row, CudnnRNNBackpropV3's lstm_grad_row
and gru_grad_row, their float runs of 8) store each output's run as whole vectors: stores of several
outputs interleaved in one loop were compiled lane by lane (48 single-float stores a run in
lstm_row), a cost on every cell of the drop-in LSTM and GRU (issue 35 item 6). Read from the host
module's machine code (x86-64, objdump); elsewhere skipped."""

from __future__ import annotations

import platform
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from codegen.runtime.kernels import KernelSource
from codegen.runtime.scope import Scope

SOURCE = Path(__file__).resolve().parent.parent / "generated" / "rnn" / "cudnn_rnn.cu"
ROWS = ("lstm_row", "gru_row", "lstm_grad_row", "gru_grad_row")
# one float lane to memory other than the stack: (v)extractps $i, %xmm, mem, or (v)movss %xmm, mem
LANE_STORE = re.compile(r"\bv?(extractps\s+\$0x[0-9a-f]+,|movss\s+)%xmm\d+,(?![^\n]*\(%rsp\))[^\n]*\(")


def _bodies(disassembly: str) -> dict[str, str]:
    """The float Run<8> body of each row function (a lambda inside crnn::<row><float>)."""
    found: dict[str, str] = {}
    for block in disassembly.split("\n\n"):
        head = block.lstrip().split("\n", 1)[0]
        for row in ROWS:
            if f"crnn::{row}<float>(" in head and "Run<8>" in head and head.endswith(">:"):
                found[row] = block
    return found


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="reads x86-64 machine code")
def test_gate_rows_store_whole_vectors():
    objdump = shutil.which("objdump")
    if objdump is None:
        pytest.skip("no objdump on PATH")
    module = Scope("cpu").backend.load(KernelSource("CudnnRNNV3", SOURCE))
    text = subprocess.run([objdump, "-d", "-C", "--no-show-raw-insn", str(module.path)], check=True,
                          capture_output=True, text=True).stdout
    bodies = _bodies(text)
    assert sorted(bodies) == sorted(ROWS), f"row bodies found in {module.path.name}: {sorted(bodies)}"
    lanes = {row: len(LANE_STORE.findall(body)) for row, body in bodies.items()}
    assert lanes == dict.fromkeys(lanes, 0), f"single-float stores per run of 8 (want none): {lanes}"


def test_lane_store_pattern_tells_lanes_from_vectors():
    """The check both ways: a lane store to a row is caught, a vector store or a spill to the stack is not."""
    assert LANE_STORE.search("vextractps $0x3,%xmm5,0x1c(%rax,%r9,4)")
    assert LANE_STORE.search("vmovss %xmm2,0x4(%rdx)")
    assert not LANE_STORE.search("vmovups %ymm1,(%rax,%r9,4)")
    assert not LANE_STORE.search("vmovss %xmm5,0x18(%rsp)")
    assert not LANE_STORE.search("vmovss 0x4(%rdx),%xmm2")
