#!/usr/bin/env python3
"""opgen as a user meets it: the wheel built from this checkout, installed into a fresh venv, used in
a folder outside the repository to start a project of one's own, add an op, generate, check, and
run the ops on NumPy and through torch (autograd and torch.compile). tests/test_installed_wheel.py
runs it in CI; run it by hand with

    python scripts/installed_wheel_check.py [--work DIR] [--keep]

Each step prints `== step: command` and its output; the first failing step ends the run with exit
status 1 and names the step. The venv gets opgen from the wheel alone (`pip install --no-deps
--no-index`); its third-party dependencies (NumPy, Jinja2, PyYAML, torch, pytest) come from this
interpreter's site-packages through a .pth file, so no download is needed and opgen's own editable
install here (its .pth hook is not processed there) cannot shadow the wheel: a step checks that
`codegen` is imported from the venv.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import time
import zipfile
from pathlib import Path

import tutorial_check  # (beside this script: the script's folder is first on sys.path)

PROJECT = Path(__file__).resolve().parent.parent
# What a wheel must carry for generate, check, new and init to work from site-packages (and opgen's
# own ops' hand-written helpers: the params ops' runtime functions, generated.torch's drop-in modules).
WHEEL_MUST_HOLD = ("codegen/templates/python/op.py.j2", "codegen/templates/kernels/_common.cuh",
                   "codegen/templates/kernels/_matmul.cuh", "codegen/templates/scaffold/op.yaml.j2",
                   "codegen/runtime/emu/runtime.cpp", "codegen/runtime/emu/rt/state.h",
                   "codegen/runtime/emu/rt/gemm.cpp", "codegen/py.typed",
                   "opgen_ops/cudnn_rnn.py", "opgen_ops/torch_nn.py", "opgen_ops/py.typed")


class StepFailed(Exception):
    pass


class Journey:
    def __init__(self, work: Path) -> None:
        self.work = work
        self.venv = work / "venv"
        self.bin = self.venv / "bin"
        self.source = work / "source"  # the checkout's copy the wheel is built from
        self.home = work / "user"  # where the user works: outside the repository
        self.env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
        self.env["PATH"] = f"{self.bin}{os.pathsep}{self.env.get('PATH', '')}"
        self.env["OPGEN_CACHE_DIR"] = str(work / "kernel-cache")
        self.env["PYTHONDONTWRITEBYTECODE"] = "1"

    def run(self, name: str, argv: list[str], cwd: Path, timeout: float = 600) -> str:
        print(f"== {name}: {' '.join(argv)}  (in {cwd})", flush=True)
        start = time.monotonic()
        try:
            proc = subprocess.run(argv, cwd=cwd, env=self.env, capture_output=True, text=True, timeout=timeout,
                                  check=False)
        except subprocess.TimeoutExpired as exc:
            raise StepFailed(f"{name}: no result within {timeout:.0f} s") from exc
        out = (proc.stdout + proc.stderr).rstrip()
        if out:
            print(textwrap.indent(out, "   "), flush=True)
        print(f"   ({time.monotonic() - start:.1f} s, exit {proc.returncode})", flush=True)
        if proc.returncode != 0:
            raise StepFailed(f"{name}: exit {proc.returncode}")
        return out

    # ---------------------------------------------------------------------------------- steps --

    def build_wheel(self) -> Path:
        # from a copy: an in-tree build leaves build/ and *.egg-info in the checkout while tests run there
        source = self.source
        shutil.copytree(PROJECT, source, ignore=shutil.ignore_patterns(
            ".git", "build", "dist", "*.egg-info", "__pycache__", ".venv", ".pytest_cache", ".mypy_cache",
            ".ruff_cache", ".hypothesis", ".opgen-cache", "gpu-check"))
        dist = self.work / "dist"
        self.run("build the wheel", [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                                     "-q", "-w", str(dist), str(source)], self.work)
        (wheel,) = dist.glob("opgen-*.whl")
        names = set(zipfile.ZipFile(wheel).namelist())
        missing = [n for n in WHEEL_MUST_HOLD if n not in names]
        if missing:
            raise StepFailed(f"the wheel lacks {', '.join(missing)}")
        if any(n.startswith(("tests/", "specs/", "scripts/")) for n in names):
            raise StepFailed("the wheel carries the repository's tests/, specs/ or scripts/")
        return wheel

    def make_venv(self, wheel: Path) -> None:
        self.run("a fresh venv", [sys.executable, "-m", "venv", "--without-pip", str(self.venv)], self.work)
        purelib = Path(subprocess.check_output([str(self.bin / "python"), "-c",
                                                "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                               text=True).strip())
        here = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
        (purelib / "_opgen_check_dependencies.pth").write_text("\n".join(here) + "\n")
        self.run("install the wheel", [sys.executable, "-m", "pip", "--python", str(self.bin / "python"), "install",
                                       "-q", "--no-deps", "--no-index", str(wheel)], self.work)

    def user_project(self) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        version = self.run("opgen --version", ["opgen", "--version"], self.home)
        where = self.run("codegen comes from the venv", [str(self.bin / "python"), "-c",
                                                         "import codegen; print(codegen.__file__)"], self.home)
        if not where.strip().startswith(str(self.venv)):
            raise StepFailed(f"codegen imported from {where.strip()}, not from the venv's wheel")
        print(f"   opgen {version.split()[-1]} from the wheel", flush=True)
        self.run("opgen init", ["opgen", "init", "myops"], self.home)
        project = self.home / "myops"
        self.run("opgen new", ["opgen", "new", "Triple", "--group", "extra"], project)
        self.run("opgen generate", ["opgen", "generate"], project)
        self.run("opgen check", ["opgen", "check"], project)
        self.run("opgen list", ["opgen", "list"], project)
        self.run("opgen verify", ["opgen", "verify", "--no-nvrtc"], project)
        self.run("the project's own tests", [str(self.bin / "python"), "-m", "pytest", "-q", "-p",
                                             "no:cacheprovider"], project)
        # (their fixtures and options come from opgen's pytest plugin: the wheel's entry point loads it)
        for options in (["--opgen-sanitize"], ["--opgen-random-order", "3"]):
            self.run(f"the project's own tests, {' '.join(options)}",
                     [str(self.bin / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", *options], project)
        script = project / "use_it.py"
        script.write_text(USE_IT)
        self.run("the ops on NumPy and through torch (autograd, torch.compile)",
                 [str(self.bin / "python"), str(script)], project)
        (project / "typed_call.py").write_text(TYPED_CALL)
        self.run("mypy --strict on the package and a call site (py.typed from the wheel)",
                 [str(self.bin / "python"), "-m", "mypy", "--strict", "--cache-dir", str(self.work / "mypy-cache"),
                  "myops", "typed_call.py"], project)
        self.run("ruff's default rules on the package and the call site",
                 [str(self.bin / "python"), "-m", "ruff", "check", "--isolated", "--no-cache", "myops",
                  "typed_call.py"], project)
        self.run("opgen check in a copy of the project", ["opgen", "check"], self._copy(project))

    def tutorial(self) -> None:
        # the tutorial's own commands and files, from the page (as the wheel's source has it), in a fresh folder
        steps = tutorial_check.parse((self.source / tutorial_check.TUTORIAL.relative_to(PROJECT)).read_text())
        home = self.work / "tutorial"
        home.mkdir()
        tutorial_check.run(steps, home, self.run, StepFailed)

    def _copy(self, project: Path) -> Path:
        copy = self.work / "elsewhere" / "myops-copy"
        shutil.copytree(project, copy, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
        return copy


TYPED_CALL = '''\
"""A typed call site: mypy --strict sees the package's and opgen's types (both ship py.typed)."""
import numpy as np
import numpy.typing as npt

from myops import Scope, scaled_tanh, triple


def run(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    scope = Scope("cpu")
    y: npt.NDArray[np.float32] = triple(scaled_tanh(x, alpha=2.0, scope=scope).y, alpha=3.0, scope=scope).y
    return y
'''

USE_IT = '''\
"""A user's call site: the package opgen generated, on NumPy and through torch (autograd and
torch.compile), against float64 references."""
import importlib
import sys
from pathlib import Path

import numpy as np

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

config = tomllib.loads(Path("pyproject.toml").read_text())["tool"]["opgen"]
package = importlib.import_module(config["package"])
rng = np.random.default_rng(0)
x = (rng.standard_normal((4, 37)) * 2).astype(np.float32)
y = package.triple(x, alpha=3.0).y
np.testing.assert_allclose(y, 3.0 * x.astype(np.float64), rtol=1e-6)
y = package.scaled_tanh(x, alpha=-1.5).y
np.testing.assert_allclose(y, -1.5 * np.tanh(x.astype(np.float64)), rtol=1e-6, atol=1e-6)

import torch

importlib.import_module(config["package"] + ".torch")
ops = getattr(torch.ops, config["torch-namespace"])
xt = torch.from_numpy(x).requires_grad_()
yt = ops.scaled_tanh(xt, alpha=0.5)
dy = torch.randn_like(yt)
yt.backward(dy)
t = np.tanh(x.astype(np.float64))
np.testing.assert_allclose(xt.grad.numpy(), dy.numpy() * 0.5 * (1 - t * t), rtol=1e-5, atol=1e-6)


def model(v):
    return (3.0 * ops.scaled_tanh(v, alpha=2.0)).sum()


compiled = torch.compile(model, backend="aot_eager", fullgraph=True)
xc = torch.from_numpy(x).requires_grad_()
loss = compiled(xc)
loss.backward()
np.testing.assert_allclose(loss.item(), float((6.0 * t).sum()), rtol=1e-5)
np.testing.assert_allclose(xc.grad.numpy(), 6.0 * (1 - t * t), rtol=1e-5, atol=1e-5)
tripled = torch.compile(lambda v: ops.triple(v, alpha=3.0), backend="aot_eager", fullgraph=True)(torch.from_numpy(x))
np.testing.assert_allclose(tripled.numpy(), 3.0 * x.astype(np.float64), rtol=1e-6)
print("NumPy, torch autograd and torch.compile (aot_eager, fullgraph) agree with float64 references")
'''


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=None, help="work folder (default: a new temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="opgen-wheel-"))
    work.mkdir(parents=True, exist_ok=True)
    if PROJECT in work.resolve().parents:
        print("installed_wheel_check: --work must be outside the repository", file=sys.stderr)
        return 2
    journey = Journey(work.resolve())
    start = time.monotonic()
    try:
        wheel = journey.build_wheel()
        journey.make_venv(wheel)
        journey.user_project()
        journey.tutorial()
    except StepFailed as exc:
        print(f"installed_wheel_check: FAILED at {exc}", flush=True)
        return 1
    finally:
        if not args.keep and args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    print(f"installed_wheel_check: every step passed ({time.monotonic() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
