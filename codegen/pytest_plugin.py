"""opgen's pytest plugin, registered by the entry point `opgen` (pytest11): pytest loads it in every
run where opgen is installed (`-p no:opgen` leaves it out; `-p opgen` names it where plugin
autoloading is off). It changes nothing until used:

* `--opgen-sanitize` runs every kernel on the cpu backend in the host emulation's sanitize build,
  `--opgen-random-order SEED` in a seeded random thread, warp and block order (both set the
  environment variables, so that subprocesses of the tests run the same way; unset after the run);
* fixtures: `opgen_scope` (the test runs once per scope of codegen.testing.SCOPES: the cpu plan, the
  cuda plan on the emulation, the GPU kernel form, a real GPU, which is skipped with the reason where
  CuPy or a GPU is missing), `opgen_poison` (outputs start as NaN, so an element no kernel writes
  fails the comparison), `opgen_random_order` (parametrize it indirectly with seeds) and
  `opgen_assert_close` (codegen.testing.assert_close: a result against its float64 reference).

Imports nothing heavy (NumPy, the runtime, CuPy) until a fixture is used."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from codegen import testing
from codegen.runtime.settings import HOST_RANDOM_ORDER, HOST_SANITIZE, POISON_OUTPUTS

_ENVIRONMENT_PATCH = pytest.StashKey[pytest.MonkeyPatch]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("opgen", "opgen: kernels on the cpu backend (the host emulation)")
    group.addoption("--opgen-sanitize", action="store_true", default=False, dest="opgen_sanitize",
                    help=f"run cpu-backend kernels in the host emulation's sanitize build ({HOST_SANITIZE.name}=1)")
    group.addoption("--opgen-random-order", type=testing.seed_option, default=None, metavar="SEED",
                    dest="opgen_random_order",
                    help=f"run cpu-backend kernels in a seeded random order ({HOST_RANDOM_ORDER.name}=SEED)")


def _environment(config: pytest.Config) -> dict[str, str]:
    """The environment variables the options ask for (none by default)."""
    wanted = {}
    if config.getoption("opgen_sanitize"):
        wanted[HOST_SANITIZE.name] = "1"
    seed = config.getoption("opgen_random_order")
    if seed is not None:
        wanted[HOST_RANDOM_ORDER.name] = str(seed)
    return wanted


def pytest_configure(config: pytest.Config) -> None:
    patch = config.stash[_ENVIRONMENT_PATCH] = pytest.MonkeyPatch()  # (undone after the run)
    for name, value in _environment(config).items():
        patch.setenv(name, value)


def pytest_unconfigure(config: pytest.Config) -> None:
    patch = config.stash.get(_ENVIRONMENT_PATCH, None)
    if patch is not None:
        patch.undo()


def pytest_report_header(config: pytest.Config) -> str | None:
    """Says how the kernels run when an option changed it (what a rerun of a failure needs)."""
    wanted = _environment(config)
    return "opgen: " + ", ".join(f"{k}={v}" for k, v in wanted.items()) if wanted else None


@pytest.fixture(scope="session", params=testing.SCOPES)
def opgen_scope(request: pytest.FixtureRequest) -> Any:
    """A Scope per codegen.testing.SCOPES (ids cpu-plan, cuda-plan, gpu-form, cuda); one per session,
    so that each plan's backend loads a kernel module once."""
    reason = testing.scope_skip_reason(request.param)
    if reason is not None:
        pytest.skip(reason)
    return testing.make_scope(request.param)


@pytest.fixture
def opgen_poison(monkeypatch: pytest.MonkeyPatch) -> None:
    """Outputs start as NaN (integers: all bits set) during the test."""
    monkeypatch.setenv(POISON_OUTPUTS.name, "1")


@pytest.fixture
def opgen_random_order(request: pytest.FixtureRequest) -> Iterator[int]:
    """Runs the test in random order with seed request.param; the previous order comes back after."""
    if not hasattr(request, "param"):
        pytest.fail("opgen_random_order takes its seeds from an indirect parametrize: "
                    "@pytest.mark.parametrize(\"opgen_random_order\", [1, 2], indirect=True)", pytrace=False)
    with testing.host_random_order(request.param):
        yield request.param


@pytest.fixture(scope="session")
def opgen_assert_close() -> Any:
    """codegen.testing.assert_close(actual, expected_float64, rtol=None, atol=None, name="")."""
    return testing.assert_close
