"""Every generated kernel module compiles with the NVRTC users run, exactly as the cuda backend
compiles it, for the GPUs users run (sm_90 and sm_100), and every kernel fits the largest block its
spec can launch.

scripts/nvrtc_compile.py compiles each generated/*/*.cu with the options of
`cuda_cache.compile_options` (-std=c++17, --gpu-architecture, the CUDA headers' -I) with NVRTC from
its pip wheels: 13.0.88 (what PyTorch's cu130 wheels install, so most likely what a GPU machine
loads), the newest 13.x and the newest 12.x (the `cuda12` extra), each with the CUDA runtime wheel of
its release for the headers. The matrix (nvrtc_compile.ci_jobs): the newest release and 13.0.88
compile every module for sm_90 (Hopper) and sm_100 (Blackwell), 13.0.88 once more with line info on
(as the GPU check compiles), 12.x for sm_90; each run a process of its own, in parallel. NVRTC 13.0
and 12.9 reject device code that 13.5 and nvcc accept (a generic lambda is a host function to them),
so no other compiler stands in for them. From the cubins, for each architecture: no spill, registers
× the largest block ≤ 65,536, static shared memory ≤ 48 KiB (codegen/resources.py), and each kernel's
`__launch_bounds__` is its largest block where that is above 256 threads (so NVRTC capped its
registers to fit it).

The wheels are downloaded once (`pip download`) into OPGEN_NVRTC_CACHE (default
~/.cache/opgen-ci/nvrtc). Not there and not downloadable: a failure under CI (the project promises
this check runs there), a visible skip elsewhere. The heavy part runs once per session (a
module-scoped fixture); the rest are plain unit tests.

A compile error here is also how a mismatch between a spec's launch args and its kernel's device
function shows up (docs/specs.md, "Kernels and the launch plan").
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import background
import pytest

from codegen.lower import lower
from codegen.resources import KernelResources, block_registers, launch_blocks, parse_ptxas

PROJECT = Path(__file__).resolve().parent.parent
PROBE = PROJECT / "tests" / "fixtures" / "kernel_resources_probe.cu"
CROSSCHECK = "generated/nn/fused_batch_norm.cu"  # static shared memory, barriers, both ops' kernels

# A generic lambda in device code: what NVRTC 13.0 rejected in LayerNorm and CudnnRNN (issue 18).
GENERIC_LAMBDA = """\
template <typename F> __device__ float apply(F f, float v) { return f(v); }
extern "C" __global__ void Broken__twice(float* y) { y[0] = apply([](auto v) { return v * 2; }, y[0]); }
"""


def _load(name: str, path: Path) -> ModuleType:
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # (dataclasses look their module up)
        spec.loader.exec_module(module)
    return sys.modules[name]


nvrtc_compile = _load("nvrtc_compile", PROJECT / "scripts" / "nvrtc_compile.py")
RELEASES = [r.version for r in nvrtc_compile.default_releases()]
NEWEST = max(nvrtc_compile.default_releases(), key=lambda r: r.key()).version
PYTORCH = nvrtc_compile.PYTORCH_NVRTC
# (release, architecture, line info): the runs of nvrtc_compile.ci_jobs
MATRIX = [(v, arch, False) for v in RELEASES for arch in (nvrtc_compile.ARCHS if v in (NEWEST, PYTORCH) else ["sm_90"])]
MATRIX.append((PYTORCH, "sm_90", True))


def _fetch_and_compile() -> dict[tuple[str, str, bool], Any]:
    """(release, architecture, line info) → its run over every module and the probe, all runs in
    parallel: the heavy part, started in the background when collection ends (tests/background.py)."""
    toolkits = [nvrtc_compile.fetch(r) for r in nvrtc_compile.default_releases()]
    found = nvrtc_compile.run_jobs(nvrtc_compile.ci_jobs(toolkits), [*nvrtc_compile.kernel_modules(), PROBE],
                                   verbose=[CROSSCHECK])
    return {(run.label, run.arch, run.lineinfo): run for run in found}


background.register("nvrtc-matrix", __file__, _fetch_and_compile)


@pytest.fixture(scope="module")
def runs() -> dict[tuple[str, str, bool], Any]:
    try:
        return background.result("nvrtc-matrix")  # type: ignore[no-any-return]
    except nvrtc_compile.FetchError as exc:
        reason = (f"the NVRTC wheels are not in {nvrtc_compile.cache_root()} and could not be downloaded "
                  f"({exc})")
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; CI must run this check")
        pytest.skip(reason)


def _modules(run: Any) -> Any:
    """The run without the probe (whose kernels spill on purpose)."""
    return dataclasses.replace(run, modules=[m for m in run.modules if Path(m.path).name != PROBE.name])


def _probe(run: Any) -> dict[str, KernelResources]:
    (module,) = [m for m in run.modules if Path(m.path).name == PROBE.name]
    assert module.ok, module.log
    return {k.kernel: k for k in module.kernels}


def test_there_are_kernels_to_compile() -> None:
    assert nvrtc_compile.kernel_modules(), "generated/ holds no .cu files"


def test_the_releases_are_pytorchs_and_the_newest_of_each_major_version() -> None:
    releases = nvrtc_compile.default_releases()
    assert releases[0].version == nvrtc_compile.PYTORCH_NVRTC == "13.0.88"
    for major in {r.major for r in nvrtc_compile.RELEASES}:
        newest = max((r for r in nvrtc_compile.RELEASES if r.major == major), key=lambda r: r.key())
        assert newest in releases
    assert {r.major for r in releases} == {12, 13}


def test_the_matrix_is_ci_jobs() -> None:
    toolkits = [nvrtc_compile.Toolkit(r.version, Path("lib"), Path("include"), r)
                for r in nvrtc_compile.default_releases()]
    assert sorted((j.toolkit.label, j.arch, j.lineinfo) for j in nvrtc_compile.ci_jobs(toolkits)) == sorted(MATRIX)
    assert {arch for _, arch, _ in MATRIX} == {"sm_90", "sm_100"} and len(MATRIX) <= 2 * len(RELEASES)


def test_ci_jobs_finds_pytorchs_release_in_any_order() -> None:
    """opgen verify passes the releases installed, newest first: the matrix is the same."""
    toolkits = [nvrtc_compile.Toolkit(r.version, Path("lib"), Path("include"), r)
                for r in sorted(nvrtc_compile.default_releases(), key=lambda r: r.key(), reverse=True)]
    assert toolkits[0].label != PYTORCH
    assert sorted((j.toolkit.label, j.arch, j.lineinfo) for j in nvrtc_compile.ci_jobs(toolkits)) == sorted(MATRIX)


def test_the_command_compiles_cis_matrix_unless_told_otherwise() -> None:
    """scripts/nvrtc_compile.py (and bench/gpu-resources-offline.md, its report): CI's matrix by
    default; a release or an architecture named: those, line info off and on."""
    toolkits = [nvrtc_compile.Toolkit(r.version, Path("lib"), Path("include"), r)
                for r in nvrtc_compile.default_releases()]

    def runs(jobs: list[Any]) -> list[tuple[str, str, bool]]:
        return sorted((j.toolkit.label, j.arch, j.lineinfo) for j in jobs)

    assert runs(nvrtc_compile.cli_jobs(toolkits, None, chosen=False)) == sorted(MATRIX)
    assert runs(nvrtc_compile.cli_jobs(toolkits[:1], None, chosen=True)) == [(PYTORCH, "sm_90", False),
                                                                             (PYTORCH, "sm_90", True)]
    assert runs(nvrtc_compile.cli_jobs(toolkits, ["sm_100"], chosen=False)) == sorted(
        (v, "sm_100", on) for v in RELEASES for on in (False, True))
    assert nvrtc_compile.cli_jobs([], None, chosen=True) == []  # (CuPy's NVRTC runs apart)


@pytest.mark.parametrize("job", MATRIX, ids=lambda job: f"{job[0]}-{job[1]}-lineinfo-{'on' if job[2] else 'off'}")
def test_every_module_compiles(runs: dict[tuple[str, str, bool], Any], job: tuple[str, str, bool]) -> None:
    run = _modules(runs[job])
    assert not run.error, f"{run.describe()}: {run.error}"
    assert len(run.modules) == len(nvrtc_compile.kernel_modules())
    assert run.version == ".".join(job[0].split(".")[:2]) and run.arch == job[1]
    failed = [f"--- {run.describe()}: {m.path}:\n{m.log}" for m in run.modules if not m.ok]
    assert not failed, f"{len(failed)} module compile(s) failed with {run.describe()}:\n" + "\n".join(failed)


@pytest.mark.parametrize("job", MATRIX, ids=lambda job: f"{job[0]}-{job[1]}-lineinfo-{'on' if job[2] else 'off'}")
def test_every_kernel_is_within_the_limits_of_its_largest_block(runs: dict[tuple[str, str, bool], Any],
                                                                job: tuple[str, str, bool]) -> None:
    """No spill, registers × the largest block ≤ 65,536 and the rest of codegen/resources.py's limits,
    for each architecture; a kernel either plan can launch with more than 256 threads has that
    largest block as its __launch_bounds__ (in the cubin), so a kernel the cuda plan launches with
    1,024 threads has at most 64 registers because NVRTC capped them, not by luck."""
    run = _modules(runs[job])
    problems = nvrtc_compile.failures([run])
    assert not problems, "\n".join(problems)
    kernels = run.kernels
    planned = _planned()
    assert planned and set(planned) == {k.kernel for k in kernels}  # every kernel the GPU plan launches, no other
    assert all(k.max_block == planned[k.kernel] for k in kernels)
    assert all(k.spill_stores == k.spill_loads == 0 for k in kernels)
    bounds = {e.symbol: e.launch_bounds for op in _specs() if op.kernel is not None for e in lower(op).entry_points}
    unbounded = [f"{k.kernel}: __launch_bounds__ {k.max_threads}, expected {bounds[k.kernel]}" for k in kernels
                 if k.max_threads != (bounds[k.kernel] or -1)]  # (-1: none, up to 256 threads)
    assert not unbounded, "\n".join(unbounded)
    full = [k for k in kernels if k.max_block == 1024]
    assert full and all(k.registers <= 64 for k in full)


@pytest.mark.parametrize("job", MATRIX, ids=lambda job: f"{job[0]}-{job[1]}-lineinfo-{'on' if job[2] else 'off'}")
def test_grad_partials_of_16_bit_data_holds_one_tile(runs: dict[tuple[str, str, bool], Any],
                                                     job: tuple[str, str, bool]) -> None:
    """FusedBatchNormGradV3's grad_partials of 16-bit data holds both channels-last paths (a lane per
    channel; a lane per two, `pairs`), a launch taking one: their shared tile is one array, so its static
    shared memory is float32's, which holds the first path only (it held both tiles: 12,928 bytes)."""
    kernels = {k.kernel: k for k in runs[job].kernels}
    one = kernels["FusedBatchNormGradV3__grad_partials__float32"].shared_bytes
    assert [kernels[f"FusedBatchNormGradV3__grad_partials__{t}"].shared_bytes for t in ("float16", "bfloat16")] == \
        [one, one]


@pytest.mark.parametrize("version", RELEASES)
def test_the_cubin_reader_agrees_with_ptxas(runs: dict[tuple[str, bool], Any], version: str) -> None:
    """Registers, static shared memory, local memory and barriers as read from the cubin equal
    ptxas's own -v report of the same compile, for a module with shared memory and barriers and for
    the probe (spills, a stack array, __launch_bounds__)."""
    run = runs[version, "sm_90", False]
    checked = 0
    for module in run.modules:
        if module.ptxas is None:
            continue
        reported = {k.kernel: k for k in module.ptxas}
        assert {k.kernel for k in module.kernels} == set(reported), module.path
        for k in module.kernels:
            p = reported[k.kernel]
            assert (k.registers, k.shared_bytes, k.local_bytes, k.barriers) == \
                   (p.registers, p.shared_bytes, p.local_bytes, p.barriers), k.kernel
            checked += 1
    assert {m.path for m in run.modules if m.ptxas is not None} >= {CROSSCHECK}
    assert checked >= 18
    probe = _probe(run)
    spill, stack, shared = probe["Probe__spill"], probe["Probe__stack"], probe["Probe__shared"]
    assert spill.spill_stores > 0 and spill.spill_loads > 0 and spill.local_bytes > 0
    assert "spills registers" in " ".join(spill.problems())
    assert stack.local_bytes > 0 and stack.spill_stores == stack.spill_loads == 0 and stack.max_threads == 128
    assert not stack.problems()
    assert shared.shared_bytes == 4096 * 4 and shared.barriers == 1 and shared.local_bytes == 0


def test_a_module_nvrtc_rejects_is_reported_and_the_others_go_on(runs: dict[tuple[str, bool], Any],
                                                                  tmp_path: Path) -> None:
    """The CLI with NVRTC 13.0.88 on a generic lambda in device code (the bug of issue 18) and a
    good module: the bad one is named with NVRTC's error, the good one compiled, exit status 1."""
    bad = tmp_path / "broken.cu"
    bad.write_text(GENERIC_LAMBDA, encoding="utf-8")
    good = PROJECT / "generated" / "nn" / "bias_add.cu"
    proc = subprocess.run([sys.executable, str(PROJECT / "scripts" / "nvrtc_compile.py"), "--nvrtc", "13.0.88",
                           "--modules", str(bad), str(good)], capture_output=True, text=True, timeout=300,
                          check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "Traceback" not in out, out
    assert "broken.cu" in out and "FAILED" in out and "host function" in out, out
    assert "generated/nn/bias_add.cu" in out and "16 kernels" in out, out  # BiasAdd's 4 and BiasAddGrad's 12


# -------------------------------------------------------------- no NVRTC needed --

def test_modules_takes_a_generated_modules_bare_name_or_a_path() -> None:
    module = PROJECT / CROSSCHECK
    assert nvrtc_compile.module_paths([Path("fused_batch_norm.cu"), Path("fused_batch_norm")]) == [module, module]
    assert nvrtc_compile.module_paths([Path(CROSSCHECK), PROBE]) == [Path(CROSSCHECK), PROBE]


@pytest.mark.parametrize("given", ["fused_batch_norm.cuh", "nn/nope.cu", "elsewhere/fused_batch_norm.cu"])
def test_modules_refuses_a_name_of_no_module_naming_the_modules(given: str,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Exit 2 before any NVRTC is fetched, the message naming the argument and what there is."""
    assert nvrtc_compile.main(["--modules", "layer_norm.cu", given]) == 2
    err = capsys.readouterr().err
    assert f"--modules {given!r} is no file nor a generated module's name" in err
    assert "nn/fused_batch_norm.cu" in err and "norm/layer_norm.cu" in err


@functools.cache
def _planned() -> dict[str, int]:
    """Every GPU entry point → its largest block (the launch plans walked once, not once per run: a second each)."""
    return {symbol: block for op in _specs() for symbol, block in launch_blocks(op).items()}


def _specs() -> list[Any]:
    from codegen.load import load_specs

    return list(load_specs(PROJECT / "specs"))


def test_largest_blocks_come_from_the_launch_plans_cuda_case() -> None:
    specs = {op.name: op for op in _specs()}
    layer_norm = launch_blocks(specs["LayerNorm"])
    assert set(layer_norm.values()) == {512}  # max(32, min(512, 32*ceildiv(D, 128)))
    assert set(layer_norm) == {f"LayerNorm__layer_norm__{t}" for t in ("float32", "float16", "bfloat16")}
    assert set(launch_blocks(specs["BiasAdd"]).values()) == {512}
    grad = launch_blocks(specs["LayerNormGrad"])
    assert grad["LayerNormGrad__layer_norm_grad_partials__float32"] == 256  # a constant on the cuda backend
    assert launch_blocks(specs["CudnnRNNParamsSize"]) == {}  # no kernel of its own
    batch_norm = launch_blocks(specs["FusedBatchNormV3"])
    assert batch_norm["FusedBatchNormV3__stats_partials__float32"] == 256
    assert "FusedBatchNormV3__stats_partials_sliced__float32" not in batch_norm  # the cpu plan's kernel


def test_limits() -> None:
    assert block_registers(64, 1024) == 65536
    assert block_registers(62, 1024) == 65536  # allocated 8 a thread at a time: 64
    assert block_registers(85, 768) == 88 * 768
    ok = KernelResources("Op", "Op__k", 64, 48 * 1024, 0, 0, 0, max_block=1024)
    assert not ok.problems()
    assert "65536" in " ".join(dataclasses.replace(ok, registers=65).problems())
    assert "static shared" in " ".join(dataclasses.replace(ok, shared_bytes=48 * 1024 + 1).problems())
    assert "allows 512" in " ".join(dataclasses.replace(ok, max_threads=512).problems())
    assert not dataclasses.replace(ok, registers=255, max_block=-1).problems()  # no plan known: no block check


def test_ptxas_report_counts_a_device_functions_spills_for_its_entry_point() -> None:
    report = """\
ptxas info    : Compiling entry function 'Op__k' for 'sm_90'
ptxas info    : Function properties for Op__k
ptxas         .     128 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 1024 bytes smem
ptxas info    : Function properties for _Z1fPfi
ptxas         .     0 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
"""
    (k,) = parse_ptxas("Op", report)
    assert (k.registers, k.barriers, k.shared_bytes, k.local_bytes) == (40, 1, 1024, 128)
    assert (k.spill_stores, k.spill_loads) == (12, 12)


def test_ptxas_report_with_a_stack_frame_keeps_its_shared_memory() -> None:
    """A kernel with a stack frame reports its cumulative stack size between barriers and smem
    (FusedBatchNormV3's stats_partials_sliced since the Chan merges); its smem is still read."""
    report = """\
ptxas info    : Compiling entry function 'Op__k' for 'sm_90'
ptxas info    : Function properties for Op__k
    544 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 124 registers, used 1 barriers, 544 bytes cumulative stack size, 17420 bytes smem
"""
    (k,) = parse_ptxas("Op", report)
    assert (k.registers, k.barriers, k.shared_bytes, k.local_bytes) == (124, 1, 17420, 544)


def test_gpu_resources_reports_a_module_that_does_not_load_and_measures_the_others(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """bench/gpu_resources.py on the CuPy stand-in: Softmax's module fails to load, BiasAdd's
    kernels are measured; the report names the failure and the exit status is 1."""
    import types

    import fake_cupy

    from codegen.warmup import generated_ops

    fake = fake_cupy.install(monkeypatch, tmp_path)
    cupy = sys.modules["cupy"]
    names = ["NUM_REGS", "SHARED_SIZE_BYTES", "LOCAL_SIZE_BYTES", "MAX_THREADS_PER_BLOCK"]
    values = {i: v for i, v in enumerate((40, 0, 0, 1024))}
    driver = types.SimpleNamespace(**vars(cupy.cuda.driver), funcGetAttribute=lambda attr, ptr: values[attr],
                                   **{f"CU_FUNC_ATTRIBUTE_{n}": i for i, n in enumerate(names)})
    monkeypatch.setattr(cupy.cuda, "driver", driver)
    monkeypatch.setattr(fake_cupy.FakeFunction, "ptr", 1, raising=False)
    gpu_resources = _load("gpu_resources", PROJECT / "bench" / "gpu_resources.py")
    ops = [op for op in generated_ops() if op.name in ("BiasAdd", "Softmax")]
    monkeypatch.setattr(gpu_resources, "generated_ops", lambda: ops)
    real_load = fake.module.CudaBackend.load

    def load(self: Any, source: Any) -> Any:
        if source.op == "Softmax":
            raise fake.module.cuda_cache.CudaCompileError("NVRTC could not compile softmax.cu: error: nope")
        return real_load(self, source)

    monkeypatch.setattr(fake.module.CudaBackend, "load", load)
    report = tmp_path / "resources.md"
    status = gpu_resources.main(["--markdown", str(report)])
    out = capsys.readouterr().out
    assert status == 1, out
    text = report.read_text(encoding="utf-8")
    assert "Softmax (softmax.cu): CudaCompileError: NVRTC could not compile softmax.cu" in text
    assert "| BiasAdd | BiasAdd__bias_add__float32 | 40 | 0 | 0 |  |  | 512 | 20480 | 1024 |" in text
