"""`opgen verify` (codegen/verify/): an `opgen init` project's ops pass every cpu check; the same project
with a deliberately broken kernel fails (exit 1) naming the op, the case, the worst element and the
template line; a required check that cannot run exits 2; `reference:` and cases files are read, and bad
ones are refused at their file:line (exit 2). opgen's own ops verify too."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from codegen.cli import PROJECT
from codegen.cli import main as opgen

KERNEL = Path("templates/kernels/example/scaled_tanh.cu")
GOOD = "y[i] = opgen::from_float<T>(alpha * tanhf(opgen::to_float(x[i])));"
REFERENCE = "import numpy as np\n\n\ndef scaled_tanh(x, alpha=1.0):\n    return alpha * np.tanh(x)\n"
CASES = """op: ScaledTanh
cases:
  - label: wide misaligned
    inputs:
      x: {shape: [3, 700], dtype: float32, range: [-4, 4], misaligned: true}
    attrs: {alpha: -2.5}
"""


def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, kernel: str | None = None,
            reference: bool = False, cases: str | None = None) -> Path:
    """An `opgen init` project named `name` (a package of its own per test: imports do not mix), its
    kernel's line replaced by `kernel`, with a reference module and a cases file when asked, generated;
    the current directory is its root."""
    root = tmp_path / name
    assert opgen(["init", str(root)]) == 0
    monkeypatch.chdir(root)
    if kernel is not None:
        text = KERNEL.read_text()
        assert GOOD in text
        KERNEL.write_text(text.replace(GOOD, kernel))
    if reference:
        (root / f"{name}_refs.py").write_text(REFERENCE)
        spec = root / "specs/example/scaled_tanh.yaml"
        spec.write_text(spec.read_text().replace("family: ScaledTanh", f"reference: {name}_refs:scaled_tanh\n"
                                                                         "family: ScaledTanh", 1))
    if cases is not None:
        (root / "specs/example/scaled_tanh.cases.yaml").write_text(cases)
    assert opgen(["generate"]) == 0
    monkeypatch.syspath_prepend(str(root))
    return root


def verify(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    status = opgen(["verify", *args])
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def test_an_init_project_passes_every_cpu_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    project(tmp_path, monkeypatch, "verify_ok", reference=True, cases=CASES)
    status, out = verify(capsys, "--json")
    document = json.loads(out)
    assert status == 0 and document["status"] == 0, out
    assert set(document["ops"]) == {"ScaledTanh", "ScaledTanhGrad"}
    tanh = document["ops"]["ScaledTanh"]
    for check in ("cpu-plan", "reference", "cuda-plan", "gpu-form", "sanitize", "random-order"):
        assert tanh[check]["status"] == "pass" and tanh[check]["cases"] >= 3, (check, tanh[check])
    # the cases file's misaligned, multi-block case closes the coverage gaps the derived cases leave
    assert tanh["coverage"]["status"] == "pass", tanh["coverage"]
    assert document["ops"]["ScaledTanhGrad"]["coverage"]["status"] == "gaps"
    assert "misaligned" in document["ops"]["ScaledTanhGrad"]["coverage"]["note"]
    assert document["ops"]["ScaledTanhGrad"]["reference"]["status"] == "skip"
    status, out = verify(capsys)  # the table: a row per op, a column per check
    assert status == 0, out
    assert out.splitlines()[0].split()[:3] == ["op", "cpu-plan", "reference"]
    assert "skipped: reference for ScaledTanhGrad: no reference declared" in out


def test_a_kernel_that_computes_a_wrong_element_fails_naming_case_element_and_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    wrong = "y[i] = opgen::from_float<T>(alpha * tanhf(opgen::to_float(x[i])) * (i == 1000 ? 1.5f : 1.0f));"
    project(tmp_path, monkeypatch, "verify_wrong", kernel=wrong, reference=True, cases=CASES)
    status, out = verify(capsys, "ScaledTanh")
    assert status == 1, out
    fails = [line for line in out.splitlines() if line.startswith("FAIL ")]
    assert fails == [fails[0]] and "FAIL ScaledTanh reference [wide misaligned (cases file)]" in fails[0], out
    assert "worst at [1, 300]" in fails[0] and "kernel templates/kernels/example/scaled_tanh.cu:" in fails[0], out
    assert "opgen verify: FAILED" in out


def test_an_out_of_bounds_read_fails_the_sanitize_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    oob = "y[i] = opgen::from_float<T>(alpha * tanhf(opgen::to_float(x[i + (i == n - 1 && n > 600)])));"
    project(tmp_path, monkeypatch, "verify_oob", kernel=oob, cases=CASES)
    status, out = verify(capsys, "scaled_tanh", "--json")
    assert status == 1, out
    sanitize = json.loads(out)["ops"]["ScaledTanh"]["sanitize"]
    assert sanitize["status"] == "fail", out  # (the whole report: which checks ran which cases, if it ever passes)
    assert {f["case"] for f in sanitize["failures"]} == {"wide misaligned (cases file)"}
    # Both plans, each the same report whatever the heap's layout: the sanitize build runs the kernel on
    # copies of its arrays set apart by red zones (host_sanitize.BuffersApart), so x[n] is in no buffer.
    assert sorted(f["message"].split(":")[0] for f in sanitize["failures"]) == [
        "cpu plan sanitized", "cuda plan sanitized"], out
    for failure in sanitize["failures"]:
        message = failure["message"]
        assert "kernel 'ScaledTanh__scaled_tanh__float32'" in message, out
        assert "out-of-bounds read of 4 bytes at byte offset 8400 of buffer 'x', which has 8400 bytes" in message, out
        assert "templates/kernels/example/scaled_tanh.cu" in message, out


def test_a_required_check_that_cannot_run_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    project(tmp_path, monkeypatch, "verify_required")
    status, out = verify(capsys, "ScaledTanh", "--require", "reference")
    assert status == 2, out
    assert "skipped: reference (required) for ScaledTanh: no reference declared" in out
    assert "opgen verify: INCOMPLETE: required check(s) reference" in out
    status, out = verify(capsys, "ScaledTanh", "--require", "cpu-plan")  # and the other way round
    assert status == 0, out


def test_a_cases_file_that_takes_every_case_away_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """`replace: true` (no derived cases) with no cases of its own would leave the op unchecked."""
    project(tmp_path, monkeypatch, "verify_none", cases="op: ScaledTanh\nreplace: true\ncases: []\n")
    status, out = verify(capsys, "ScaledTanh")
    assert status == 2
    assert "specs/example/scaled_tanh.cases.yaml:3: op ScaledTanh: cases: expected a list of cases" in out


@pytest.mark.parametrize(("text", "where", "message"), [
    ("op: ScaledTanhh\ncases: []\n", ":1:", "op: no op named 'ScaledTanhh'"),
    (CASES.replace("x: {", "z: {"), ":5:", "unknown key 'z'"),
    (CASES.replace("float32", "float31"), ":5:", "dtype: expected one of"),
    (CASES.replace("alpha: -2.5", "beta: 1"), ":6:", "no attr named 'beta'"),
    (CASES.replace("[3, 700]", "[3, -1]"), ":5:", "shape: expected a list of sizes"),
    (CASES + "reference: Not A Ref\n", ":7:", "reference: 'Not A Ref' is not a function reference"),
])
def test_a_bad_cases_file_is_refused_at_its_line(text: str, where: str, message: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    name = f"verify_bad_cases_{abs(hash(text)) % 10**8}"  # (a package imported once per name and process)
    project(tmp_path, monkeypatch, name, cases=text)  # (generate ignores cases files)
    status, out = verify(capsys)
    assert status == 2, out
    assert f"specs/example/scaled_tanh.cases.yaml{where}" in out and message in out, out


def test_a_bad_reference_is_refused_at_its_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path, monkeypatch, "verify_bad_ref")
    spec = root / "specs/example/scaled_tanh.yaml"
    good = spec.read_text()
    line = good.splitlines().index("family: ScaledTanh  # the lets both share: scaled_tanh.family.yaml") + 1
    spec.write_text(good.replace("family: ScaledTanh", "reference: 3\nfamily: ScaledTanh", 1))
    for command in (["generate"], ["verify"]):
        capsys.readouterr()
        assert opgen(command) == 2
        err = capsys.readouterr().err
        assert f"specs/example/scaled_tanh.yaml:{line}: op ScaledTanh: reference: 3 is not a function reference" in err
    spec.write_text(good.replace("family: ScaledTanh", "reference: no_such_refs:scaled_tanh\nfamily: ScaledTanh", 1))
    status, out = verify(capsys)
    assert status == 2
    assert f"specs/example/scaled_tanh.yaml:{line}: reference no_such_refs:scaled_tanh: cannot import" in out


def test_opgens_own_ops_verify(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(PROJECT)
    monkeypatch.setattr(sys, "path", list(sys.path))
    status, out = verify(capsys, "LayerNorm", "BiasAdd", "--max-cases", "2", "--json")
    document = json.loads(out)
    assert status == 0, out
    for op in ("LayerNorm", "BiasAdd"):
        for check in ("cpu-plan", "cuda-plan", "gpu-form", "sanitize", "random-order"):
            assert document["ops"][op][check] == {"status": "pass", "cases": 2, "note": "", "failures": []}


def test_the_gpu_scripts_take_a_projects_cases_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """scripts/gpu_parity.py and gpu_sanitize.py run codegen/verify/cases.py's all_cases: the derived
    cases, then the cases file's (`replace: true`: those only)."""
    from codegen.verify.cases import all_cases
    from codegen.warmup import generated_ops, select_ops

    root = project(tmp_path, monkeypatch, "verify_gpu_cases", cases=CASES)
    ops = select_ops(["ScaledTanh"], generated_ops("verify_gpu_cases"))
    labels = [case.label for _, case in all_cases(ops, specs=root / "specs") if case is not None]
    assert labels[-1] == "wide misaligned (cases file)" and len(labels) > 1
    (root / "specs/example/scaled_tanh.cases.yaml").write_text(CASES.replace("cases:", "replace: true\ncases:"))
    assert [case.label for _, case in all_cases(ops, specs=root / "specs")] == ["wide misaligned (cases file)"]


def test_gpu_check_runs_a_projects_ops(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`opgen gpu-check` in a project: the steps of `bash scripts/gpu-check.sh` on the project's package
    (its rehearsal here, on the CuPy stand-in: a checkout's), the summary in gpu-check/ there; without a
    GPU and without --rehearsal it fails naming why, never a pass."""
    import os
    import subprocess

    root = project(tmp_path, monkeypatch, "verify_gpu_check", cases=CASES)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PROJECT), os.environ.get("PYTHONPATH", "")])}
    env.pop("OUT", None)
    proc = subprocess.run([sys.executable, "-m", "codegen", "gpu-check", "--rehearsal", "--budget", "400"], cwd=root,
                          env=env, capture_output=True, text=True, timeout=900, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "Traceback" not in out, out
    summary = (root / "gpu-check" / "summary.md").read_text()
    for step in ("parity", "memcheck", "racecheck", "synccheck", "resources"):
        assert f"| {step} | ok |" in summary, summary
    assert "| gpu tests | skip |" in summary and "opgen's own (not run for --package)" in summary
    assert "wide misaligned (cases file)" in (root / "gpu-check" / "parity.md").read_text()
    proc = subprocess.run([sys.executable, "-m", "codegen", "gpu-check", "--results", str(tmp_path / "real")],
                          cwd=root, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 1 and "| environment | FAIL |" in (tmp_path / "real" / "summary.md").read_text()


def test_nvrtc_without_a_release_installed_is_skipped_saying_what_it_needs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    project(tmp_path, monkeypatch, "verify_no_nvrtc")
    monkeypatch.setenv("OPGEN_NVRTC_CACHE", str(tmp_path / "empty"))
    status, out = verify(capsys, "ScaledTanh", "--max-cases", "1")
    assert status == 0, out  # not required by default
    assert "skipped: nvrtc for ScaledTanh: needs an NVRTC release: none installed in" in out, out
    status, out = verify(capsys, "ScaledTanh", "--max-cases", "1", "--require", "nvrtc")
    assert status == 2 and "skipped: nvrtc (required) for ScaledTanh: needs an NVRTC release" in out, out
    status, out = verify(capsys, "ScaledTanh", "--max-cases", "0")  # nothing ran: not a pass
    assert status == 2 and "skipped: cpu-plan (required) for ScaledTanh: no case ran (--max-cases 0)" in out, out


def test_nvrtc_fails_a_kernel_over_the_shared_memory_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """The NVRTC releases installed compile the module in CI's matrix, for sm_90 and sm_100 (the
    releases are in the cache where CI fetched them for tests/test_gpu_compile.py); 64 KiB of static
    shared memory is over the 48 KiB limit, and each architecture's run says so."""
    from codegen.verify.nvrtc import installed_releases

    if not installed_releases():
        pytest.skip("needs an NVRTC release in the cache (python -m codegen.verify.nvrtc_compile fetches them)")
    project(tmp_path, monkeypatch, "verify_nvrtc_limit")
    status, out = verify(capsys, "ScaledTanh", "--max-cases", "1", "--require", "nvrtc", "--json")
    assert status == 0 and json.loads(out)["ops"]["ScaledTanh"]["nvrtc"]["status"] == "pass", out
    loop = f"  opgen::for_each_index(n, [&](long long i) {{ {GOOD} }});"
    text = KERNEL.read_text()
    assert loop in text
    KERNEL.write_text(text.replace(loop, "  __shared__ float big[16384];\n  big[threadIdx.x] = 0.0f;\n"
                                         "  __syncthreads();\n" + loop.replace("x[i]))", "x[i]) + big[0])")))
    assert opgen(["generate"]) == 0
    status, out = verify(capsys, "ScaledTanh", "--max-cases", "1", "--require", "nvrtc", "--json")
    nvrtc = json.loads(out)["ops"]["ScaledTanh"]["nvrtc"]
    assert status == 1 and nvrtc["status"] == "fail", out
    assert all("shared" in f["message"] for f in nvrtc["failures"]), nvrtc
    for arch in ("sm_90", "sm_100"):  # CI's matrix, each architecture's run named
        assert any(f"for {arch}, " in f["message"] for f in nvrtc["failures"]), nvrtc


def test_a_race_fails_the_random_order_and_sanitize_checks_naming_the_seed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Thread 0 copies the element the last thread writes: right in order, wrong in another order."""
    race = ("y[i == n - 1 ? 0 : i] = opgen::from_float<T>(alpha * tanhf(opgen::to_float(x[i]))); "
            "if (i == 0) y[n - 1] = y[0];")
    project(tmp_path, monkeypatch, "verify_race", kernel=race, cases=CASES)
    status, out = verify(capsys, "ScaledTanh", "--no-nvrtc", "--seed", "3", "--json")
    checks = json.loads(out)["ops"]["ScaledTanh"]
    assert status == 1 and checks["random-order"]["status"] == "fail", out
    assert any("in random order, seed 3 (--seed)" in f["message"] for f in checks["random-order"]["failures"])
    assert any("data race" in f["message"] for f in checks["sanitize"]["failures"]), checks["sanitize"]


def test_without_a_compiler_the_cpu_checks_are_skipped_saying_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    project(tmp_path, monkeypatch, "verify_no_cxx")
    monkeypatch.setenv("CXX", str(tmp_path / "no-such-g++"))
    status, out = verify(capsys, "--no-nvrtc")
    assert status == 2 and "Traceback" not in out, out
    assert "skipped: cpu-plan (required) for ScaledTanh, ScaledTanhGrad: needs a C++ compiler for the host emulation: "\
           "CXX=" in out, out
    assert "FAIL" not in out
