"""The GPU check's environment line and its list of missing pieces, each named with what to
install: the GPU and driver, NVRTC (and whether it can build for the GPU's architecture), CuPy,
PyTorch, g++, compute-sanitizer, and every other Python module the check's steps import (MODULES).
Never raises: a probe that fails is a named line.

    python scripts/gpu_env.py        # prints the line and the missing pieces; exit 1 if any
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import site
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

#: Every Python module the GPU check's steps import besides CuPy and torch (probed on their own: their
#: versions matter), with what installs it. gpu_check.py says which steps need which; a step that
#: needs a missing one is skipped, naming it.
MODULES = {
    "numpy": "pip install numpy", "jinja2": "pip install jinja2", "yaml": "pip install pyyaml",
    "ml_dtypes": "pip install ml_dtypes (bfloat16 arrays; opgen's cuda, torch and test extras include it)",
    "pytest": "pip install pytest", "hypothesis": "pip install hypothesis",
}


def missing_modules() -> dict[str, str]:
    """{module: what is wrong and what to install} for each of MODULES that does not import here."""
    missing = {}
    for module, install in MODULES.items():
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:  # one it imports is missing: not the module itself
                missing[module] = f"import failed ({exc}): {install} again, with its dependencies"
            else:
                missing[module] = f"not installed ({install})"
        except Exception as exc:  # noqa: BLE001 -- a broken install: named, not raised
            missing[module] = f"import failed ({type(exc).__name__}: {exc}): {install} again"
    return missing


@dataclass
class Environment:
    facts: list[str] = field(default_factory=list)  # "GPU NVIDIA H100 80GB HBM3 (sm_90)", ...
    missing: list[str] = field(default_factory=list)  # "compute-sanitizer: not found (...)"
    modules: dict[str, str] = field(default_factory=dict)  # missing_modules(), also lines of `missing`
    gpu: bool = False
    sanitizer: str | None = None

    def line(self) -> str:
        return "; ".join(self.facts)


def _run(argv: list[str], timeout: float = 20) -> str | None:
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def find_sanitizer() -> str | None:
    """compute-sanitizer: on PATH, in the pip wheels' folders (nvidia-cuda-sanitizer-api puts it in
    site-packages/nvidia/cu13/bin or cu12/bin), or in a CUDA toolkit."""
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    bases = dict.fromkeys([*sys.path, *site.getsitepackages(), site.getusersitepackages()])
    candidates = [Path(b) / sub for b in bases if b for sub in
                  ("nvidia/cu13/bin/compute-sanitizer", "nvidia/cu12/bin/compute-sanitizer",
                   "nvidia/cuda_sanitizer_api/compute-sanitizer/compute-sanitizer")]
    candidates += sorted(Path("/usr/local").glob("cuda*/bin/compute-sanitizer"))
    candidates += sorted(Path("/usr/local").glob("cuda*/compute-sanitizer/compute-sanitizer"))
    candidates += sorted(Path("/opt/nvidia").glob("*/compute-sanitizer"))
    return next((str(c) for c in candidates if c.is_file() and os.access(c, os.X_OK)), None)


def probe() -> Environment:
    env = Environment()
    smi = _run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"])
    if smi:
        env.facts.append(f"nvidia-smi: {smi.splitlines()[0]}")
    _probe_cuda(env)
    _probe_torch(env)
    cxx = os.environ.get("CXX", "g++").split()[0]
    version = _run([cxx, "--version"]) if shutil.which(cxx) else None
    if version:
        env.facts.append(version.splitlines()[0])
    else:
        env.missing.append(f"{cxx}: not found (the cpu backend, and so the parity step's reference side, needs a "
                           f"C++ compiler: apt-get install g++, or set CXX)")
    env.sanitizer = find_sanitizer()
    if env.sanitizer:
        version = _run([env.sanitizer, "--version"]) or ""
        env.facts.append(f"compute-sanitizer {version.splitlines()[-1] if version else '(version unknown)'}")
    else:
        env.missing.append("compute-sanitizer: not found on PATH, in site-packages/nvidia/cu13|cu12/bin or "
                           "/usr/local/cuda*/bin (the CUDA toolkit, or pip install nvidia-cuda-sanitizer-api)")
    env.facts.append(f"Python {sys.version.split()[0]}")
    env.modules = missing_modules()
    env.missing += [f"{module}: {why}" for module, why in env.modules.items()]
    return env


def _probe_cuda(env: Environment) -> None:
    from codegen.runtime import cuda_cache
    from codegen.runtime.scope import cuda_available

    if importlib.util.find_spec("cupy") is None:
        env.missing.append("CuPy: not installed (pip install 'opgen[cuda13]' for CUDA 13 drivers, "
                           "'opgen[cuda12]' for CUDA 12)")
        return
    ok, why = cuda_available()
    import cupy

    env.facts.append(f"CuPy {cupy.__version__}")
    try:
        major, minor = cuda_cache.nvrtc_version()
        env.facts.append(f"NVRTC {major}.{minor}")
    except Exception as exc:  # noqa: BLE001 -- named, not raised
        env.missing.append(f"NVRTC: not usable ({exc})")
        return
    if not ok:
        env.missing.append(f"GPU: none usable ({why})")
        return
    try:
        props = cupy.cuda.runtime.getDeviceProperties(0)
        name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        cc = f"{props.get('major', '?')}{props.get('minor', '')}"
        env.facts.append(f"GPU 0: {name} (sm_{cc})")
        driver = cupy.cuda.runtime.driverGetVersion()
        env.facts.append(f"driver CUDA {driver // 1000}.{driver % 1000 // 10}")
        archs = cuda_cache.supported_archs()
        if archs and cc.isdigit() and int(cc) not in archs and int(cc) < min(archs):
            env.missing.append(f"NVRTC {major}.{minor} cannot build for sm_{cc} (it supports sm_{min(archs)}.."
                               f"sm_{max(archs)}): install the nvidia-cuda-nvrtc wheel of the driver's CUDA")
            return
    except Exception as exc:  # noqa: BLE001 -- a fake or partial CuPy: the line says so
        env.facts.append(f"GPU 0: properties not readable ({type(exc).__name__}: {exc})")
    env.gpu = True


def _probe_torch(env: Environment) -> None:
    if importlib.util.find_spec("torch") is None:
        env.missing.append("torch: not installed (the benchmarks' peers and the torch tests need it)")
        return
    try:
        import torch

        cuda = torch.version.cuda or "no CUDA"
        env.facts.append(f"torch {torch.__version__} ({cuda}, cuda available: {torch.cuda.is_available()})")
    except Exception as exc:  # noqa: BLE001
        env.missing.append(f"torch: import failed ({type(exc).__name__}: {exc})")


def main() -> int:
    env = probe()
    print(env.line())
    for line in env.missing:
        print(f"missing: {line}")
    return 1 if env.missing else 0


if __name__ == "__main__":
    sys.exit(main())
