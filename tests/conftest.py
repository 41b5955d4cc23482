"""What opgen's own suite adds to opgen's pytest plugin (codegen/pytest_plugin.py: --opgen-sanitize,
--opgen-random-order SEED, the opgen_scope / opgen_poison / opgen_random_order / opgen_assert_close
fixtures), which it uses as a project does.

* `--host-sanitize` and `--host-random-order SEED` are the suite's older names of the plugin's two
  options. tests/test_kernels_sanitized.py runs the kernel tests once more that way in every CI run.
* `--backend cpu|cuda` (or env OPGEN_TEST_DEVICE, default "cpu") names the device that tests using
  the `device` / `device_scope` fixtures run their ops on. Asking for cuda where no usable GPU is
  present stops the session with the reason (it never silently falls back to cpu).
* Tests marked `gpu` run where CuPy and a CUDA device are present, whatever the device setting,
  and are skipped elsewhere with the reason (also summarised at the end of the run).

Nothing here changes how the existing tests run by default.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import worker_threads

from codegen.testing import seed_option

worker_threads.apply()  # under pytest-xdist, before NumPy or PyTorch loads: their pools get the worker's cores

# The plugin: loaded already by its entry point where opgen is installed with it (registering the
# module twice, under two names, is an error), else here.
pytest_plugins = [] if "codegen.pytest_plugin" in sys.modules else ["codegen.pytest_plugin"]

DEVICE_ENV = "OPGEN_TEST_DEVICE"
_SKIPPED_GPU: list[str] = []
_BUILDS_CHECKED: list[bool] = []  # tests/test_host_isa_builds.py was selected


@functools.cache
def gpu_skip_reason() -> str | None:
    """Why tests that need a GPU cannot run here (None: they can); imports CuPy only when asked."""
    from codegen.testing import scope_skip_reason

    return scope_skip_reason("cuda")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--backend", choices=("cpu", "cuda"), default=None,
                     help=f"device for tests that use the `device` fixture (default: ${DEVICE_ENV} or cpu)")
    # (the plugin's options under the suite's older names: same destinations, so either sets them)
    parser.addoption("--host-sanitize", action="store_true", default=False, dest="opgen_sanitize",
                     help="the same as --opgen-sanitize")
    parser.addoption("--host-random-order", type=seed_option, default=None, metavar="SEED", dest="opgen_random_order",
                     help="the same as --opgen-random-order SEED")


def selected_device(config: pytest.Config) -> str:
    value = config.getoption("--backend") or os.environ.get(DEVICE_ENV, "").strip() or "cpu"
    if value not in ("cpu", "cuda") and not value.startswith("cuda:"):
        raise pytest.UsageError(f"{DEVICE_ENV}/--backend: expected cpu, cuda or cuda:N, got {value!r}")
    return value


def pytest_configure(config: pytest.Config) -> None:
    device = selected_device(config)
    if device != "cpu":
        reason = gpu_skip_reason()
        if reason is not None:
            raise pytest.UsageError(f"tests asked for device {device!r} ({DEVICE_ENV}/--backend), but it {reason}")
        os.environ[DEVICE_ENV] = device  # subprocesses started by tests see the same choice


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    gpu_items = [item for item in items if item.get_closest_marker("gpu") is not None]
    if not gpu_items:
        return
    reason = gpu_skip_reason()
    if reason is None:
        return
    marker = pytest.mark.skip(reason=reason)
    for item in gpu_items:
        item.add_marker(marker)
    _SKIPPED_GPU[:] = [reason, str(len(gpu_items))]


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the heavy background checks (tests/background.py) whose tests were selected (none for
    --collect-only: nothing would wait for them, and the NVRTC matrix's thread pool keeps the
    interpreter alive until it ends)."""
    import background

    if session.config.option.collectonly:
        return

    if _xdist_worker(session.config):  # (the workers share their basetemps' parent: one folder per run)
        background.share(session.config._tmp_path_factory.getbasetemp().parent)
    selected = {str(item.path) for item in session.items}
    background.start_for(selected)
    _BUILDS_CHECKED[:] = [any(path.endswith("test_host_isa_builds.py") for path in selected)]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A pytest-xdist worker whose tests are done waits for the background jobs it claimed: another
    worker's test may be waiting for their outcome. (Not after a stop: -x, ^C.)"""
    if not _xdist_worker(session.config):
        return
    session.config.workeroutput["opgen_summary"] = (_SKIPPED_GPU, _BUILDS_CHECKED)  # (for the terminal summary)
    if not (session.shouldstop or session.shouldfail) and exitstatus != pytest.ExitCode.INTERRUPTED:
        import background

        background.wait_started()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """pytest-xdist's controller: what the workers' collection found, for the terminal summary (every
    worker collects the same tests)."""
    skipped_gpu, builds_checked = getattr(node, "workeroutput", {}).get("opgen_summary", ([], []))
    _SKIPPED_GPU[:] = _SKIPPED_GPU or skipped_gpu
    _BUILDS_CHECKED[:] = _BUILDS_CHECKED or builds_checked


def _xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _SKIPPED_GPU:
        reason, count = _SKIPPED_GPU
        terminalreporter.write_line(f"gpu: {count} test(s) marked gpu skipped: {reason}")
    if _BUILDS_CHECKED and _BUILDS_CHECKED[0]:
        terminalreporter.write_line(f"cpu backend builds: {_builds_ran()}")


def _builds_ran() -> str:
    """Which of the cpu backend's builds this run tested (tests/test_host_isa_builds.py)."""
    from codegen.runtime import host, host_isa

    missing = host_isa.host_missing_v3()
    if missing:
        return (f"the baseline only (this CPU lacks {', '.join(missing)} of x86-64-v3); the suite's kernels: "
                f"{host.describe_isa()}")
    if host.resolve_isa() == host_isa.BASELINE:  # (OPGEN_HOST_ISA=baseline)
        return f"the suite's kernels: {host.describe_isa()}; x86-64-v3 in tests/test_host_isa_builds.py's parity cases"
    return f"the suite's kernels: {host.describe_isa()}; the baseline build too (tests/test_host_isa_builds.py)"


@pytest.fixture(scope="session")
def device(pytestconfig: pytest.Config) -> str:
    """"cpu" (default) or "cuda"/"cuda:N": where device-parametrised tests run their ops."""
    return selected_device(pytestconfig)


@pytest.fixture(scope="session")
def device_scope(device: str) -> Any:
    """A Scope on the selected device."""
    from codegen.runtime.scope import Scope

    return Scope(device)


def _to_host(value: Any) -> Any:
    import numpy as np

    get = getattr(value, "get", None)
    if callable(get) and hasattr(value, "__cuda_array_interface__"):
        return get()
    return np.asarray(value)


@pytest.fixture(scope="session")
def to_host() -> Any:
    """A function: an output as a NumPy array whatever the backend (CuPy arrays are copied)."""
    return _to_host


def gpu_plan_with_launches(monkeypatch: pytest.MonkeyPatch, kernel_form: str) -> tuple[Any, list[str]]:
    """Scope("cpu", launch_plan="cuda", kernel_form=kernel_form) (the GPU's plan on the emulation)
    and the list its backend appends each launched kernel's name to (replay off, so that every
    launch goes through the spied method): what a test asserts to know which variant ran."""
    from codegen.runtime.kernels import symbol_parts
    from generated import Scope

    monkeypatch.setenv("OPGEN_NO_REPLAY", "1")
    scope = Scope("cpu", launch_plan="cuda", kernel_form=kernel_form)
    launched: list[str] = []
    launch = type(scope.backend).launch
    monkeypatch.setattr(scope.backend, "launch", lambda src, symbol, *a, **k: (
        launched.append(symbol_parts(symbol)[1]), launch(scope.backend, src, symbol, *a, **k))[1])
    monkeypatch.setattr(scope.backend, "watched", True)  # (declared: run_plan sends every launch through it)
    return scope, launched


@pytest.fixture(scope="session")
def fixture_package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The test ops of tests/fixtures/ (specs and kernel templates) generated once per session into
    a temporary package `fixture_ops`, imported; tests of spec features run them end to end."""
    import importlib
    import sys
    from pathlib import Path

    from codegen.cli import main as opgen

    fixtures = Path(__file__).parent / "fixtures"
    root = tmp_path_factory.mktemp("pkg")
    status = opgen(["generate", "--specs", str(fixtures / "specs"), "--templates", str(fixtures / "templates"),
                    "--out", str(root / "fixture_ops")])
    assert status == 0
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module("fixture_ops")
    finally:
        sys.path.remove(str(root))
