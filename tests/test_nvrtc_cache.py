"""codegen/verify/nvrtc_cache.py: scripts/nvrtc_compile.py's compiles with an NVRTC pip wheel are kept in
the kernel cache, so a second run over the same source, options and NVRTC (the GPU check rehearsal's
resources step after the CI matrix of tests/test_gpu_compile.py) compiles nothing; anything else
compiles. Needs the 13.0.88 wheel as tests/test_gpu_compile.py does: a failure under CI, a skip
elsewhere."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from codegen.verify import nvrtc_compile

PROJECT = Path(__file__).resolve().parent.parent
KERNEL = 'extern "C" __global__ void Twice__k(float* y) { y[threadIdx.x] *= 2.0f; }\n'


@pytest.fixture(scope="module")
def wheel() -> None:
    release = next(r for r in nvrtc_compile.default_releases() if r.version == nvrtc_compile.PYTORCH_NVRTC)
    try:
        nvrtc_compile.fetch(release)
    except nvrtc_compile.FetchError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"NVRTC {release.version}: {exc}; CI must run this check")
        pytest.skip(f"NVRTC {release.version} not in {nvrtc_compile.cache_root()} and not downloadable ({exc})")


def _compile(module: Path, cache: Path) -> list[str]:
    """The CLI's lines for `module` (NVRTC 13.0.88, line info off and on) with the kernel cache `cache`."""
    proc = subprocess.run([sys.executable, str(PROJECT / "scripts" / "nvrtc_compile.py"), "--nvrtc",
                           nvrtc_compile.PYTORCH_NVRTC, "--modules", str(module)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "OPGEN_CACHE_DIR": str(cache)}, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return [line for line in proc.stdout.splitlines() if module.name in line]


def test_a_second_run_takes_the_first_ones_cubins_and_an_edit_compiles_again(wheel: None, tmp_path: Path) -> None:
    module = tmp_path / "twice.cu"
    module.write_text(KERNEL)
    first = _compile(module, tmp_path / "cache")
    assert len(first) == 2 and all(" ok " in line and "1 kernels" in line for line in first), first
    assert not any("cached" in line for line in first), first
    second = _compile(module, tmp_path / "cache")  # the same kernels, registers, line info off and on
    assert [line.split(" s ", 1)[1] for line in second] == [line.split(" s ", 1)[1] + " (cached cubin)"
                                                            for line in first], (first, second)
    module.write_text(KERNEL.replace("2.0f", "3.0f"))
    edited = _compile(module, tmp_path / "cache")
    assert len(edited) == 2 and not any("cached" in line for line in edited), edited
