"""opgen's pytest plugin (codegen/pytest_plugin.py, issue 33 item 2) and its helpers (codegen/testing.py):
it imports nothing heavy, changes nothing in a run that does not use it, its options set the host
emulation's switches for the run (and only for it), the suite's older option names are aliases of
the same options, and its fixtures (scopes, poisoned outputs, random order, the float64 comparison)
do what they say. Child runs load it by name with plugin autoloading off, so that they do not depend
on which opgen is installed here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from codegen import testing
from codegen.runtime import host
from codegen.runtime.settings import HOST_RANDOM_ORDER, HOST_SANITIZE, POISON_OUTPUTS
from codegen.toml_lines import tomllib

REPO = Path(__file__).resolve().parents[1]
SWITCHES = (HOST_SANITIZE.name, HOST_RANDOM_ORDER.name, POISON_OUTPUTS.name)
PROBE_ENV = "OPGEN_PLUGIN_PROBE"  # set by the child run of test_the_suites_aliases_set_the_same_options


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SWITCHES}
    env.update(PYTHONPATH=str(REPO), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    return env


def child_pytest(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """pytest in `folder` (no conftest, no ini) with the plugin named on the command line."""
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-p",
                           "codegen.pytest_plugin", *args], cwd=folder, env=child_env(), capture_output=True,
                          text=True, timeout=300, check=False)


def test_the_entry_point_names_the_plugin() -> None:
    with (REPO / "pyproject.toml").open("rb") as f:
        project = tomllib.load(f)["project"]
    assert project["entry-points"]["pytest11"] == {"opgen": "codegen.pytest_plugin"}


def test_importing_the_plugin_imports_nothing_heavy() -> None:
    """pytest imports it in every run of every environment where opgen is installed."""
    code = ("import sys, codegen.pytest_plugin; print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('numpy', 'torch', 'cupy', 'jinja2', 'yaml') or m.startswith(('codegen.runtime.host', "
            "'codegen.runtime.scope', 'codegen.runtime.cpu', 'codegen.runtime.cuda'))))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=child_env(), capture_output=True, text=True,
                          timeout=120, check=False)
    assert (proc.returncode, proc.stdout.strip()) == (0, "[]"), proc.stderr


PROBE = f"""
import os, sys

def test_probe():
    from codegen.runtime import host
    assert (host.sanitize_enabled(), host.random_order()) == eval(os.environ["EXPECT"])
    assert "numpy" in sys.modules  # (imported by the runtime just now)

def test_untouched():
    assert os.environ.get({POISON_OUTPUTS.name!r}) is None
"""


@pytest.mark.parametrize(("options", "expected"), [
    ((), (False, None)),  # off by default: a plain run runs the plain build
    (("--opgen-sanitize",), (True, None)),
    (("--opgen-random-order", "3"), (False, 3)),
    (("--opgen-sanitize", "--opgen-random-order", "0x10"), (True, 16)),
])
def test_options_set_the_switches_of_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: tuple[str, ...],
                                             expected: tuple[bool, int | None]) -> None:
    (tmp_path / "test_probe.py").write_text(PROBE)
    monkeypatch.setenv("EXPECT", repr(expected))
    proc = child_pytest(tmp_path, "-v", *options)  # (-q -v: the header, with what the options changed)
    assert proc.returncode == 0 and "2 passed" in proc.stdout, proc.stdout + proc.stderr
    header = [line for line in proc.stdout.splitlines() if line.startswith("opgen: ")]
    wanted = {HOST_SANITIZE.name: "1"} if expected[0] else {}
    if expected[1] is not None:
        wanted[HOST_RANDOM_ORDER.name] = str(expected[1])
    assert header == ([f"opgen: {', '.join(f'{k}={v}' for k, v in wanted.items())}"] if wanted else [])


def test_options_are_unset_after_the_run(tmp_path: Path) -> None:
    """What was in the environment before comes back (an in-process pytest.main leaves no trace)."""
    (tmp_path / "test_probe.py").write_text(PROBE)
    script = (f"import os, pytest; os.environ[{HOST_RANDOM_ORDER.name!r}] = '5'; os.environ['EXPECT'] = '(True, 3)'\n"
              "status = pytest.main(['-q', '-p', 'codegen.pytest_plugin', '--opgen-sanitize', '--opgen-random-order', "
              "'3', 'test_probe.py'])\n"
              f"print('after', int(status), os.environ.get({HOST_SANITIZE.name!r}), "
              f"os.environ.get({HOST_RANDOM_ORDER.name!r}))\n")
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=child_env(), capture_output=True,
                          text=True, timeout=300, check=False)
    assert proc.stdout.splitlines()[-1] == "after 0 None 5", proc.stdout + proc.stderr


def test_a_bad_seed_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "test_probe.py").write_text(PROBE)
    proc = child_pytest(tmp_path, "--opgen-random-order", "three")
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "--opgen-random-order" in proc.stderr and "SEED='three': expected an integer seed" in proc.stderr


def test_the_suites_aliases_set_the_same_options() -> None:
    """--host-sanitize and --host-random-order (tests/conftest.py) are the plugin's two options."""
    env = {**child_env(), PROBE_ENV: "1", "EXPECT": "(True, 7)"}
    env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--host-sanitize",
                           "--host-random-order", "7", f"{Path(__file__).name}::test_probe_of_the_aliases"],
                          cwd=REPO / "tests", env=env, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0 and "1 passed" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.skipif(PROBE_ENV not in os.environ, reason="run by test_the_suites_aliases_set_the_same_options")
def test_probe_of_the_aliases(pytestconfig: pytest.Config) -> None:
    assert (host.sanitize_enabled(), host.random_order()) == eval(os.environ["EXPECT"])
    assert (pytestconfig.getoption("opgen_sanitize"), pytestconfig.getoption("opgen_random_order")) == (True, 7)


# -- fixtures ----------------------------------------------------------------------------------------------
def test_scope_fixture_gives_each_plan(opgen_scope: object, request: pytest.FixtureRequest) -> None:
    name = request.node.callspec.params["opgen_scope"]
    want = {"cpu-plan": ("cpu", "cpu", "host"), "cuda-plan": ("cpu", "cuda", "host"),
            "gpu-form": ("cpu", "cuda", "gpu"), "cuda": ("cuda", "cuda", "gpu")}[name]
    assert (opgen_scope.device, opgen_scope.launch_plan, opgen_scope.kernel_form) == want  # type: ignore[attr-defined]


def test_the_cuda_scope_is_skipped_with_its_reason(tmp_path: Path) -> None:
    (tmp_path / "test_scopes.py").write_text("def test_scope(opgen_scope):\n    assert opgen_scope is not None\n")
    proc = child_pytest(tmp_path, "-vv")  # (-q -vv: a line per test)
    ids = [line.split("::")[1].split()[0] for line in proc.stdout.splitlines() if "::test_scope[" in line]
    assert ids == [f"test_scope[{name}]" for name in testing.SCOPES], proc.stdout
    reason = testing.scope_skip_reason("cuda")
    if reason is None:
        assert proc.returncode == 0 and "4 passed" in proc.stdout, proc.stdout
    else:
        assert proc.returncode == 0 and "3 passed, 1 skipped" in proc.stdout and reason in proc.stdout, proc.stdout


def test_poison_fixture(opgen_poison: None) -> None:
    assert os.environ[POISON_OUTPUTS.name] == "1"


@pytest.mark.parametrize("opgen_random_order", [4, 0], indirect=True)
def test_random_order_fixture(opgen_random_order: int) -> None:
    assert host.random_order() == opgen_random_order


def test_random_order_fixture_needs_its_seeds(tmp_path: Path) -> None:
    (tmp_path / "test_order.py").write_text("def test_order(opgen_random_order):\n    pass\n")
    proc = child_pytest(tmp_path)
    assert proc.returncode == 1 and "opgen_random_order takes its seeds from an indirect parametrize" in proc.stdout


# -- the comparison with a float64 reference ---------------------------------------------------------------
def test_assert_close_accepts_results_within_the_tolerance_of_their_dtype(opgen_assert_close: object) -> None:
    assert opgen_assert_close is testing.assert_close
    want = np.array([[0.0, 1.0, -2.5], [np.inf, -np.inf, np.nan]])
    for dtype in (np.float64, np.float32, np.float16):
        testing.assert_close(want.astype(dtype), want)
    testing.assert_close(np.float32(1.0 + 2e-7) * np.ones(3, np.float32), np.ones(3))
    testing.assert_close(np.float16(1.0009765625), np.float64(1.0))  # one float16 ulp above 1
    testing.assert_close(np.arange(4, dtype=np.int32), np.arange(4.0))
    testing.assert_close(np.zeros((0, 3), np.float32), np.zeros((0, 3)))


@pytest.mark.parametrize(("got", "want", "message"), [
    (np.array([1.0, 2.0, 3.001], np.float32), np.array([1.0, 2.0, 3.0]),
     "y: 1 of 3 elements (float32) differ from the reference beyond 1e-05·|expected| + 1e-06; worst at index [2]: "
     "got 3.000999927520752, expected 3.0 (error 0.001)"),
    (np.array([[1.0, np.nan], [2.0, 2.5]], np.float32), np.array([[1.0, 5.0], [2.0, 2.0]]),  # an unwritten element
     "y: 2 of 4 elements (float32) differ from the reference beyond 1e-05·|expected| + 1e-06; worst at index [0, 1]: "
     "got nan, expected 5.0 (error nan)"),
    (np.array([np.inf], np.float16), np.array([-np.inf]), "worst at index [0]: got inf, expected -inf"),
    (np.array([3], np.int64), np.array([3.5]), "(int64) differ from the reference beyond 0·|expected| + 0;"),
    (np.zeros(3, np.float32), np.zeros(4), "y: shape [3], expected [4] (the reference's)"),
])
def test_assert_close_names_the_worst_element(got: np.ndarray, want: np.ndarray, message: str) -> None:
    with pytest.raises(AssertionError) as info:
        testing.assert_close(got, want, name="y")
    assert message in str(info.value)


def test_assert_close_takes_tolerances_and_tensors() -> None:
    testing.assert_close(np.array([1.01], np.float32), np.array([1.0]), rtol=0.02)
    with pytest.raises(AssertionError, match=r"beyond 0·\|expected\| \+ 0.001"):
        testing.assert_close(np.array([1.01], np.float32), np.array([1.0]), rtol=0, atol=1e-3)
    torch = pytest.importorskip("torch")
    x = torch.ones(3, requires_grad=True) * 2
    testing.assert_close(x, np.full(3, 2.0))
