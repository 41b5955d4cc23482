"""The vector ISA of the cpu backend's builds (codegen/runtime/host_isa.py): x86-64-v3 where the
CPU has every part of it, else the baseline; OPGEN_HOST_ISA forces one; the level is in each
module's cache key and flags, both builds load side by side, and FMA does not fuse a*b+c."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from codegen.runtime import diskcache, host, host_isa
from codegen.runtime.cpu import CpuBackend
from codegen.runtime.kernels import KernelSource

V3_FLAGS = ("fpu sse sse2 cx16 lahf_lm popcnt pni ssse3 sse4_1 sse4_2 avx avx2 bmi1 bmi2 f16c fma abm movbe "
            "xsave")
CPUINFO = f"processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: {V3_FLAGS}\nbogomips\t: 4000\n\n" \
          f"processor\t: 1\nflags\t\t: {V3_FLAGS}\n"
HAS_V3 = not host_isa.host_missing_v3()
NEEDS_V3 = pytest.mark.skipif(not HAS_V3, reason=f"this CPU lacks {', '.join(host_isa.host_missing_v3())} of "
                                                 "x86-64-v3: only the baseline build can run here")

# Which ISA macros the build defines, and a*b+c in float (fused, it would round once).
PROBE = r"""
extern "C" __global__ void probe(int* isa, const float* a, const float* b, const float* c, float* out, int n) {
#if defined(__AVX2__) && defined(__FMA__) && defined(__BMI2__)
  isa[0] = 3;
#elif defined(__AVX__)
  isa[0] = 2;
#else
  isa[0] = 1;
#endif
  for (int i = 0; i < n; ++i) out[i] = a[i] * b[i] + c[i];
}
"""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv(host_isa.ISA_ENV, raising=False)
    host.clear_memory_cache()
    yield tmp_path / "cache"
    host.clear_memory_cache()


def _run_probe(isa: str) -> tuple[int, np.ndarray, host.HostModule]:
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal(4096).astype(np.float32) for _ in range(3))
    out, flag = np.full(4096, np.nan, np.float32), np.zeros(1, np.int32)
    mod = host.load_module(PROBE, name_hint="isa_probe", isa=isa)
    mod.get_function("probe")((1,), (1,), (flag, a, b, c, out, np.int32(4096)))
    unfused = a * b + c  # NumPy rounds the product, then the sum
    np.testing.assert_array_equal(out, unfused)
    return int(flag[0]), out, mod


# ------------------------------------------------------------------------ the CPU's features --

def test_cpu_flags_come_from_the_first_processor_of_cpuinfo() -> None:
    assert host_isa.cpu_flags(CPUINFO) == frozenset(V3_FLAGS.split())
    assert host_isa.cpu_flags("processor\t: 0\nmodel name\t: x\n") is None


def test_x86_64_v3_needs_every_feature_of_the_level() -> None:
    flags = frozenset(V3_FLAGS.split())
    assert host_isa.missing_v3(flags, "x86_64") == ()
    assert host_isa.missing_v3(flags - {"avx2", "fma"}, "x86_64") == ("avx2", "fma")
    assert host_isa.missing_v3(flags - {"abm"}, "x86_64") == ("abm",)  # LZCNT, as cpuinfo names it
    assert host_isa.missing_v3(flags, "aarch64") == ("x86-64",)  # other architectures keep the baseline
    assert host_isa.missing_v3(None, "x86_64") == ("/proc/cpuinfo",)  # unknown: not assumed


def test_auto_chooses_v3_only_where_the_cpu_has_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(host_isa.ISA_ENV, raising=False)
    monkeypatch.setattr(host_isa, "host_missing_v3", lambda: ())
    assert host.resolve_isa() == "x86-64-v3" == host.resolve_isa("auto")
    assert host.resolve_isa("baseline") == "baseline"
    assert host.describe_isa("baseline") == "baseline (the compiler's default target, as asked)"
    assert host.describe_isa().startswith("x86-64-v3 (AVX2, FMA; ")
    monkeypatch.setattr(host_isa, "host_missing_v3", lambda: ("avx2", "fma"))
    assert host.resolve_isa() == "baseline"
    assert "lacks avx2, fma" in host.describe_isa()
    with pytest.raises(host.HostIsaError, match=r"x86-64-v3 .*cannot run it, it lacks avx2, fma; use auto or baseline"):
        host.resolve_isa("x86-64-v3")


def test_the_environment_setting_forces_the_baseline_and_rejects_other_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host_isa, "host_missing_v3", lambda: ())
    monkeypatch.setenv(host_isa.ISA_ENV, "Baseline")
    assert host.resolve_isa() == "baseline"
    assert "OPGEN_HOST_ISA=baseline" in host.describe_isa()
    monkeypatch.setenv(host_isa.ISA_ENV, "")
    assert host.resolve_isa() == "x86-64-v3"
    monkeypatch.setenv(host_isa.ISA_ENV, "avx512")
    with pytest.raises(host.HostIsaError, match=r"OPGEN_HOST_ISA='avx512': expected one of auto, baseline, x86-64-v3"):
        host.resolve_isa()
    with pytest.raises(host.HostIsaError, match=r"expected one of auto, baseline, x86-64-v3, got 'native'"):
        CpuBackend(isa="native")


# ----------------------------------------------------------------------------- the compiler --

def test_an_older_compiler_gets_the_level_flag_by_flag(tmp_path: Path) -> None:
    fake = tmp_path / "old-g++"
    fake.write_text('#!/bin/sh\nfor a in "$@"; do [ "$a" = -march=x86-64-v3 ] && exit 1; done\nexit 0\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    flags = host_isa.compile_flags("x86-64-v3", [str(fake)])
    assert "-march=x86-64-v3" not in flags
    assert {"-mavx2", "-mfma", "-mbmi2", "-mf16c", "-mlzcnt", "-mmovbe"} <= set(flags)
    assert host_isa.compile_flags("baseline", [str(fake)]) == ()


def test_the_installed_compiler_takes_the_level_name() -> None:
    assert host_isa.compile_flags("x86-64-v3", host._compiler_command()) == ("-march=x86-64-v3",)


# ------------------------------------------------------------------------------- the builds --

def test_the_baseline_build_has_no_avx_and_does_not_fuse(cache: Path) -> None:
    level, _, mod = _run_probe("baseline")
    assert level == 1 and mod.isa == "baseline"
    meta = json.loads(diskcache.meta_path(mod.path).read_text())
    assert not any(f.startswith(("-march", "-mavx")) for f in meta["flags"])


@NEEDS_V3
def test_the_v3_build_has_avx2_and_fma_yet_rounds_like_numpy(cache: Path) -> None:
    level, _, mod = _run_probe("x86-64-v3")
    assert level == 3 and mod.isa == "x86-64-v3"  # -ffp-contract=off: a*b+c still rounds twice
    meta = json.loads(diskcache.meta_path(mod.path).read_text())
    assert "-march=x86-64-v3" in meta["flags"]


@NEEDS_V3
def test_both_builds_of_one_source_are_cached_and_loaded_side_by_side(cache: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _, _, v3 = _run_probe("x86-64-v3")
    _, _, base = _run_probe("baseline")
    assert v3.path != base.path and v3.path.exists() and base.path.exists()
    assert host.load_module(PROBE, name_hint="isa_probe") is v3  # auto: the v3 build, from memory
    monkeypatch.setenv(host_isa.ISA_ENV, "baseline")
    assert host.load_module(PROBE, name_hint="isa_probe") is base  # the setting is read at each load
    host.clear_memory_cache()
    compiles = host.stats["compiles"]
    assert host.load_module(PROBE, name_hint="isa_probe").isa == "baseline"  # from the disk cache
    assert host.stats["compiles"] == compiles


def test_a_backend_compiles_for_its_own_isa(cache: Path, tmp_path: Path) -> None:
    (tmp_path / "probe.cu").write_text(PROBE)
    source = KernelSource("isa_probe", tmp_path / "probe.cu")
    backend = CpuBackend(isa="baseline")
    assert backend.load(source).isa == "baseline"
    assert repr(backend) == "CpuBackend(isa='baseline')"
    assert CpuBackend().load(source).isa == host.resolve_isa()
