"""The package's PyTorch library deployed without opgen's Python (codegen/runtime/self_bind.py,
codegen/runtime/native/self_bind_cpu.cpp): `library_path()`'s file, copied with its companions
(`torch_library.companions`) into a folder of their own, runs an AOTInductor package of a model
using LayerNorm, Softmax and GRUBlockCell (a GEMM step: the BLAS the library loads) in a fresh
process that imports torch and nothing of opgen, and gives the bits eager gives here; a library
shipped without its companions, or finding no BLAS, says what is missing."""

from __future__ import annotations

import ctypes
import json
import runpy
import shutil
from pathlib import Path
from typing import Any

import pytest

from codegen.runtime import settings, torch_library
from codegen.runtime.host import blas as host_blas

torch = pytest.importorskip("torch")
from test_torch_native import _fresh  # noqa: E402  (after the skip: it imports torch)

MODEL = """
import torch

class Model(torch.nn.Module):
    def forward(self, x, gamma, beta, gx, h, w_ru, w_c, b_ru, b_c):
        y, _mean, _rstd = torch.ops.opgen.layer_norm(x, gamma, beta, epsilon=1e-5)
        s = torch.ops.opgen.softmax(y, axis=-1)
        r, u, c, h_new = torch.ops.opgen.gru_block_cell(gx, h, w_ru, w_c, b_ru, b_c)
        return y, s, h_new
"""

#: What the fresh process runs: only torch, the library and the package; it says which of opgen's
#: modules it imported (none may be).
CHILD = """
import json, sys, torch
torch.ops.load_library(sys.argv[1])
model = torch._inductor.aoti_load_package(sys.argv[2])
out = model(*torch.load(sys.argv[3]))
torch.save(out, sys.argv[3] + ".aoti")
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("codegen", "generated"))))
"""


def _inputs() -> tuple[Any, ...]:
    g = torch.Generator().manual_seed(0)
    batch, size, cell = 4, 6, 5
    x, gamma, beta = (torch.randn(*s, generator=g) for s in ((batch, 16), (16,), (16,)))
    gru = [torch.randn(*s, generator=g) for s in ((batch, size), (batch, cell), (size + cell, 2 * cell),
                                                   (size + cell, cell), (2 * cell,), (cell,))]
    return (x, gamma, beta, *gru)


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The library and its companions, copied into a folder of their own (as a deployment ships them)."""
    import generated.torch as gt

    folder = tmp_path_factory.mktemp("shipped")
    library = Path(gt.library_path())
    for path in (library, *torch_library.companions(gt._NATIVE_SOURCE)):
        shutil.copy(path, folder / path.name)
    return folder / library.name


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, tuple[Any, ...]]:
    """An AOTInductor package of MODEL (exported with the Python registration), its inputs' file and
    the eager outputs."""
    import generated.torch  # noqa: F401  (registers torch.ops.opgen)

    folder = tmp_path_factory.mktemp("aoti")
    (folder / "model.py").write_text(MODEL)
    model = runpy.run_path(str(folder / "model.py"))["Model"]()
    inputs = _inputs()
    torch.save(inputs, folder / "inputs.pt")
    eager = model(*inputs)
    ep = torch.export.export(model, inputs)
    path = torch._inductor.aoti_compile_and_package(ep, package_path=str(folder / "model.pt2"))
    return Path(path), folder / "inputs.pt", eager


def _blas_env() -> dict[str, str]:
    """The BLAS NumPy uses here, named to the library (a machine may have no system BLAS)."""
    found = host_blas.find()
    return {"OPGEN_BLAS": found.path} if found is not None else {}


def test_an_aotinductor_package_runs_from_the_shipped_library_without_opgens_python(
        shipped: Path, package: tuple[Path, Path, tuple[Any, ...]]) -> None:
    pt2, inputs, eager = package
    env = _blas_env()
    if not env and not _system_blas():
        pytest.skip("no BLAS to name to the library for GRUBlockCell's GEMM steps")
    out = _fresh(CHILD, str(shipped), str(pt2), str(inputs), cwd=inputs.parent, **env)
    assert json.loads(out.splitlines()[-1]) == []  # neither codegen nor generated was imported
    aoti = torch.load(str(inputs) + ".aoti")
    assert len(aoti) == len(eager)
    for got, want in zip(aoti, eager, strict=True):
        assert torch.equal(got, want)


OP_CALL = """
import sys, torch
torch.ops.load_library(sys.argv[1])
try:
    torch.ops.opgen.{call}
except RuntimeError as e:
    print(str(e).splitlines()[0])
else:
    print("ran")
"""
LAYER_NORM = "layer_norm(torch.ones(2, 8), torch.ones(8), torch.zeros(8), epsilon=1e-5)"
GRU = "gru_block_cell(*(torch.ones(*s) for s in ((2, 3), (2, 4), (7, 8), (7, 4), (8,), (4,))))"


def test_a_library_shipped_without_its_companions_names_the_missing_file(shipped: Path, tmp_path: Path) -> None:
    alone = tmp_path / shipped.name
    shutil.copy(shipped, alone)
    said = _fresh(OP_CALL.format(call=LAYER_NORM), str(alone)).strip()
    runtime = torch_library.companions(_source())[0].name
    assert f"cannot open {tmp_path}/{runtime}" in said, said
    assert "ship the library's companions beside it" in said, said
    assert _fresh(OP_CALL.format(call=LAYER_NORM), str(shipped)).strip() == "ran"  # (with them: runs)


def test_no_blas_for_a_gemm_step_says_what_to_install(shipped: Path) -> None:
    if _system_blas():
        pytest.skip("this machine has a system BLAS: the library finds it")
    said = _fresh(OP_CALL.format(call=GRU), str(shipped), OPGEN_BLAS="libm.so.6").strip()
    assert "no BLAS for the GEMM steps: none of libm.so.6, libopenblas.so.0, libblas.so.3" in said, said
    assert "install OpenBLAS (libopenblas0) or name a BLAS library in OPGEN_BLAS" in said, said
    if _blas_env():
        assert _fresh(OP_CALL.format(call=GRU), str(shipped), **_blas_env()).strip() == "ran"


@pytest.mark.parametrize(("setting", "value"), [("HOST_THREADS", "0"), ("HOST_STACK_KB", "8"),
                                              ("HOST_RANDOM_ORDER", "seven")])
def test_a_bad_launch_setting_is_refused_in_the_words_of_the_settings_table(shipped: Path, setting: str,
                                                                            value: str) -> None:
    declared = getattr(settings, setting)
    with pytest.raises(settings.SettingError) as python:
        declared.parse(declared.name, value)
    said = _fresh(OP_CALL.format(call=LAYER_NORM), str(shipped), **{declared.name: value}).strip()
    assert said == f"LayerNorm: this call needs opgen's Python path (LayerNorm: {python.value})"


@pytest.mark.parametrize(("setting", "value"), [("HOST_THREADS", "1"), ("HOST_STACK_KB", " 16 "),
                                              ("HOST_RANDOM_ORDER", "0x2a"), ("HOST_RANDOM_ORDER", " ")])
def test_a_good_launch_setting_is_taken(shipped: Path, setting: str, value: str) -> None:
    declared = getattr(settings, setting)
    if value.strip():  # (blank: unset)
        declared.parse(declared.name, value)  # (Python takes it too)
    assert _fresh(OP_CALL.format(call=LAYER_NORM), str(shipped), **{declared.name: value}).strip() == "ran"


UNBOUND = """
import ctypes, sys, torch
torch.ops.load_library(sys.argv[1])
x = (torch.ones(2, 8), torch.ones(8), torch.zeros(8))
torch.ops.opgen.layer_norm(*x)  # (bound by the library itself)
ctypes.CDLL(sys.argv[1]).opgen_native_unbind_cpu(b"LayerNorm")
try:
    torch.ops.opgen.layer_norm(*x)
except RuntimeError as e:
    print(str(e).splitlines()[0])
"""


def test_an_op_unbound_on_purpose_is_not_bound_again_by_the_library(shipped: Path) -> None:
    said = _fresh(UNBOUND, str(shipped)).strip()
    assert said == "LayerNorm: this call needs opgen's Python path (LayerNorm: no cpu binding (opgen_native_bind_cpu))"


def _source() -> Path:
    import generated.torch as gt

    return gt._NATIVE_SOURCE


def _system_blas() -> bool:
    """Whether a BLAS the library looks for by name loads here."""
    from codegen.runtime.self_bind import BLAS_LIBRARIES

    for name in BLAS_LIBRARIES:
        try:
            ctypes.CDLL(name)
        except OSError:
            continue
        return True
    return False
