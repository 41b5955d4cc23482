"""The GPU check's scripts, run here where they can be: the parity script's inputs (hand-written
builders, else cases derived from the spec) cover every generated op and agree cpu against cpu,
and cpu against the cuda backend on a stand-in CuPy (tests/fake_cupy.py), so a GPU session does
not find them, or the cuda backend's Python, broken; a new op without a builder is covered by
its derived cases."""

from __future__ import annotations

import runpy
import warnings
from pathlib import Path

import fake_cupy
import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def test_parity_inputs_cover_every_op_and_run(capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_POISON_OUTPUTS", "1")  # the script sets it: restored after the test
    module = runpy.run_path(str(SCRIPTS / "gpu_parity.py"))
    from codegen.warmup import generated_ops

    missing = [op.name for op, case in module["all_cases"](generated_ops()) if case is None]
    assert not missing, f"scripts/gpu_parity.py has no inputs for {missing} (no builder, none derived)"
    with warnings.catch_warnings():
        status = module["main"](["--devices", "cpu", "cpu"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert " 0 failed" in out


def test_a_new_op_without_a_builder_runs_on_derived_cases(capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The fixture ops (tests/fixtures/specs) have no hand-written builder: the parity run derives
    their cases from their specs and passes (outputs computed only when asked included)."""
    from codegen.cli import main as opgen
    from codegen.load import load_specs

    fixtures = SCRIPTS.parent / "tests" / "fixtures"
    assert opgen(["generate", "--specs", str(fixtures / "specs"), "--templates", str(fixtures / "templates"),
                  "--out", str(tmp_path / "parity_fixture_ops")]) == 0
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("OPGEN_POISON_OUTPUTS", "1")
    module = runpy.run_path(str(SCRIPTS / "gpu_parity.py"))
    names = [op.name for op in load_specs(fixtures / "specs")]
    assert {"ScaledSum", "TinyRnn", "GroupOps", "RowStats"} <= set(names)
    assert not set(names) & set(module["BUILDERS"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # ScaledSum is deprecated
        status = module["main"](["--devices", "cpu", "cpu", "--package", "parity_fixture_ops",
                                 "--specs", str(fixtures / "specs")])
    out = capsys.readouterr().out
    assert status == 0, out
    rows = {f[0]: int(f[1]) for f in map(str.split, out.splitlines()) if f and f[0] in names}  # op, cases
    assert set(rows) == set(names) and all(count >= 3 for count in rows.values()), out


def test_an_op_with_no_builder_and_no_derivable_cases_fails_the_run_saying_why(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A runtime op (its inputs mean more than the spec says) without its builder: not derived, so
    the run fails naming the op, the reason and where to add a builder."""
    monkeypatch.setenv("OPGEN_POISON_OUTPUTS", "1")
    module = runpy.run_path(str(SCRIPTS / "gpu_parity.py"))
    monkeypatch.delitem(module["BUILDERS"], "UnbatchGrad")
    status = module["main"](["--devices", "cpu", "cpu", "--ops", "UnbatchGrad"])
    out = capsys.readouterr().out
    assert status == 1, out
    assert ("FAIL UnbatchGrad [-]: no input builder for op UnbatchGrad, and none derived from its spec (a runtime op "
            "(codegen.runtime.batching.ops:unbatch_grad)") in out
    assert "register one in codegen/verify/builders.py (@builder('UnbatchGrad'))" in out


def test_parity_of_every_op_on_the_fake_cuda_backend(capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The parity run cpu against cuda, where "cuda" is the cuda backend on the stand-in CuPy
    (kernels host-compiled, GEMM steps as direct calls of the NumPy cuBLAS): every op's wrapper
    through the cuda backend's adopt, empty, launch and gemm, in CI."""
    fake = fake_cupy.install(monkeypatch, tmp_path, fake_cupy.FakeCublas())
    module = runpy.run_path(str(SCRIPTS / "gpu_parity.py"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # a failed cuBLAS self-check would hide the direct path
        status = module["main"](["--devices", "cpu", "cuda"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert fake.cublas.calls, "no GEMM step went through the direct cuBLAS path"


# ------------------------------------------------------------------- the CUDA extras --

def test_cuda_extras_match_the_drivers_cuda_major_version() -> None:
    tomllib = pytest.importorskip("tomllib")
    project = SCRIPTS.parent
    extras = tomllib.loads((project / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    def cupy(extra: str) -> list[str]:  # the extra's CuPy packages: exactly one, of the driver's major version
        return [r.split("[")[0] for r in extras[extra] if r.startswith("cupy")]

    assert cupy("cuda13") == ["cupy-cuda13x"]
    assert cupy("cuda12") == ["cupy-cuda12x"]
    assert extras["cuda"] == extras["cuda13"]  # the default, as the README says
    readme = (project / "README.md").read_text()
    assert "pip install -e '.[cuda13]'" in readme and "pip install -e '.[cuda12]'" in readme
