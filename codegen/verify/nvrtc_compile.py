#!/usr/bin/env python3
"""Compile every generated kernel module (generated/**/*.cu, one per kernel template) with NVRTC
exactly as the cuda backend does, line info off and on, and report each kernel's registers,
spills, local and static shared memory against the largest block its op's launch plan can launch
it with.

    python scripts/nvrtc_compile.py                     # the pinned NVRTC releases (pip wheels) in CI's
                                                        # matrix (ci_jobs: sm_90 and sm_100), in parallel
    python scripts/nvrtc_compile.py --nvrtc 13.0.88     # one of them (a version of RELEASES)
    python scripts/nvrtc_compile.py --nvrtc cupy        # the NVRTC CuPy loads, with CuPy's headers (a GPU
                                                        # machine: codegen.runtime.cuda_cache.compile_source)
    python scripts/nvrtc_compile.py --nvrtc DIR/libnvrtc.so.13 --include DIR/include
    ... --arch sm_100     for Blackwell (repeatable; with --nvrtc the default is sm_90, line info off and on)
    ... --markdown FILE   the resource tables (bench/gpu-resources-offline.md is this script's)
    ... --json FILE       every result, machine-readable; --modules PATH... only those modules (a
                          path, or a generated module's bare name: fused_batch_norm.cu)

One line per module and NVRTC; a module that fails to compile is reported (its first error) and
the others go on. Exit status: 0 all compiled and no kernel is over a limit (codegen/resources.py:
a spill, registers × the largest block > 65,536, static shared memory > 48 KiB), 1 otherwise, 2 no
NVRTC could be had (a failed download, no CuPy) or --modules names no module.

The options are `cuda_cache.compile_options` (-std=c++17, --gpu-architecture=sm_90 or --arch's,
--generate-line-info when line info is on, -I of the CUDA headers); the program is named after its
file, as the backend names it. A release is NVRTC's pip wheel with the CUDA runtime wheel of the
same CUDA release for cuda_fp16.h, cuda_bf16.h and math_constants.h (what CuPy's `[ctk]` extra
installs), fetched once by `pip download --no-deps` into OPGEN_NVRTC_CACHE (default
~/.cache/opgen-ci/nvrtc) and unpacked there (libnvrtc and its builtins, the headers). Each release
and line-info setting runs in a process of its own (libnvrtc.so.13 is the soname of every 13.x, so
one process holds one), loaded with ctypes after its libnvrtc-builtins (RTLD_GLOBAL, from the same
folder, else NVRTC cannot find it), as many at once as there are CPUs.

Resources come from the cubin itself (codegen.resources.read_cubin). A cubin does not say how much
of a kernel's local memory is spills, so a module with local memory in any kernel is compiled once
more with --ptxas-options=-v and ptxas's report gives the spill bytes (none without local memory).
"""

from __future__ import annotations

import argparse
import ctypes
import dataclasses
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegen.project import OPGEN_HOME as PROJECT  # a checkout's root (its generated/ and specs/), or site-packages
from codegen.resources import KernelResources, attach_blocks, parse_ptxas, read_cubin, summary, table
from codegen.runtime.kernels import symbol_parts
from codegen.runtime.settings import NVRTC_CACHE
from codegen.verify.nvrtc_cache import CachedCompiler

ARCH = "sm_90"  # a run's default (the GPU checks' H100 and H200)
#: the architectures users run, Hopper and Blackwell: CI compiles every module for each (ci_jobs)
ARCHS = ("sm_90", "sm_100")
VERBOSE_OPTION = "--ptxas-options=-v"
CACHE_ENV = NVRTC_CACHE.name


@dataclass(frozen=True)
class Release:
    """An NVRTC release as pip wheels: NVRTC itself and the CUDA runtime wheel of the same CUDA
    release (the headers)."""

    nvrtc: str  # "nvidia-cuda-nvrtc==13.0.88"
    headers: str  # "nvidia-cuda-runtime==13.0.96"
    note: str = ""

    @property
    def version(self) -> str:
        return self.nvrtc.split("==")[1]

    @property
    def major(self) -> int:
        return int(self.version.split(".")[0])

    def key(self) -> tuple[int, ...]:
        return tuple(int(p) for p in self.version.split("."))


# THE list of NVRTC releases: the test compiles with PYTORCH_NVRTC and the newest of each major
# version here (add a newer release here and it replaces the older one of its major version).
RELEASES = (
    Release("nvidia-cuda-nvrtc==13.0.88", "nvidia-cuda-runtime==13.0.96",
            "CUDA 13.0: what PyTorch's cu130 wheels install, so most likely what a GPU machine loads"),
    Release("nvidia-cuda-nvrtc==13.5.37", "nvidia-cuda-runtime==13.5.37", "the newest CUDA 13"),
    Release("nvidia-cuda-nvrtc-cu12==12.9.86", "nvidia-cuda-runtime-cu12==12.9.79",
            "the newest CUDA 12 (the cuda12 extra)"),
)
PYTORCH_NVRTC = "13.0.88"


def default_releases() -> list[Release]:
    """PYTORCH_NVRTC, then the newest release of each major version, newest major first."""
    chosen = [r for r in RELEASES if r.version == PYTORCH_NVRTC]
    for major in sorted({r.major for r in RELEASES}, reverse=True):
        newest = max((r for r in RELEASES if r.major == major), key=Release.key)
        if newest not in chosen:
            chosen.append(newest)
    return chosen


def release(version: str) -> Release:
    for r in RELEASES:
        if r.version == version:
            return r
    raise KeyError(f"no NVRTC release {version!r} in RELEASES (known: {', '.join(r.version for r in RELEASES)})")


# --------------------------------------------------------------------------- fetching --

class FetchError(RuntimeError):
    """A wheel could not be downloaded or unpacked (no network and not in the cache, ...)."""


def cache_root() -> Path:
    configured = NVRTC_CACHE.get()
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "opgen-ci" / "nvrtc"


@dataclass(frozen=True)
class Toolkit:
    """An NVRTC to run: its libnvrtc, the folder holding cuda_fp16.h, and the release it came from."""

    label: str  # "13.0.88", or the library's path
    library: Path
    include: Path
    release: Release | None = None


def fetch(rel: Release, root: Path | None = None) -> Toolkit:
    """The release's libnvrtc and headers, downloaded and unpacked into the cache on first use."""
    root = root or cache_root()
    lib_dir = _fetched(rel.nvrtc, root, _is_nvrtc_library)
    inc_dir = _fetched(rel.headers, root, lambda name: "/include/" in name)
    libraries = sorted(p for p in lib_dir.rglob(f"libnvrtc.so.{rel.major}*") if ".alt." not in p.name)
    headers = sorted(inc_dir.rglob("cuda_fp16.h"))
    if not libraries or not headers:
        raise FetchError(f"{rel.nvrtc} / {rel.headers}: no libnvrtc.so.{rel.major} or cuda_fp16.h in {root}")
    return Toolkit(rel.version, libraries[0], headers[0].parent, rel)


def _is_nvrtc_library(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    return "/lib/" in name and base.startswith("libnvrtc") and ".so" in base and ".alt." not in base


def _fetched(requirement: str, root: Path, wanted: Any) -> Path:
    """The folder the wheel of `requirement` ("name==version") is unpacked in (its members that
    `wanted(name)` keeps), downloading it first when the cache does not have it."""
    folder = root / requirement.replace("==", "-")
    if (folder / ".complete").is_file():
        return folder
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root, prefix=".fetch-") as tmp:
        proc = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                               "--retries", "2", "--dest", tmp, requirement],
                              capture_output=True, text=True, check=False, timeout=900)
        wheels = sorted(Path(tmp).glob("*.whl"))
        if proc.returncode != 0 or len(wheels) != 1:
            tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-4:])
            raise FetchError(f"pip download {requirement} failed (exit {proc.returncode}):\n{tail}")
        unpacked = Path(tmp) / "unpacked"
        try:
            with zipfile.ZipFile(wheels[0]) as wheel:
                for member in wheel.namelist():
                    if wanted(member) and not member.endswith("/"):
                        wheel.extract(member, unpacked)
        except (OSError, zipfile.BadZipFile) as exc:
            raise FetchError(f"cannot unpack {wheels[0].name}: {exc}") from exc
        (unpacked / ".complete").write_text(f"{wheels[0].name}\n", encoding="utf-8")
        try:
            unpacked.rename(folder)
        except OSError:  # another process put it there first
            if not (folder / ".complete").is_file():
                raise
    return folder


# ----------------------------------------------------------------------------- NVRTC --

class Nvrtc:
    """A libnvrtc loaded with ctypes: version() and compile()."""

    def __init__(self, library: Path | str | ctypes.CDLL):
        if isinstance(library, ctypes.CDLL):
            self.lib = library
        else:
            path = Path(library)
            for builtins in sorted(path.parent.glob("libnvrtc-builtins.so.*")):  # not the .alt. ones
                ctypes.CDLL(str(builtins), mode=ctypes.RTLD_GLOBAL)
            self.lib = ctypes.CDLL(str(path))
        lib, ptr, size_p = self.lib, ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)
        lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        signatures = {
            "nvrtcVersion": [ctypes.POINTER(ctypes.c_int)] * 2,
            "nvrtcCreateProgram": [ctypes.POINTER(ptr), ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ptr, ptr],
            "nvrtcCompileProgram": [ptr, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)],
            "nvrtcDestroyProgram": [ctypes.POINTER(ptr)],
            "nvrtcGetProgramLogSize": [ptr, size_p], "nvrtcGetProgramLog": [ptr, ctypes.c_char_p],
            "nvrtcGetCUBINSize": [ptr, size_p], "nvrtcGetCUBIN": [ptr, ctypes.c_char_p],
        }
        for name, argtypes in signatures.items():
            getattr(lib, name).argtypes = argtypes
            getattr(lib, name).restype = ctypes.c_int

    def version(self) -> str:
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
        return f"{major.value}.{minor.value}"

    def compile(self, source: str, name: str, options: Sequence[str]) -> tuple[bytes | None, str]:
        """(the cubin, or None when NVRTC failed; the program log)."""
        prog = ctypes.c_void_p()
        status = self.lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(), 0, None, None)
        if status:
            return None, f"nvrtcCreateProgram: {self._error(status)}"
        try:
            args = (ctypes.c_char_p * len(options))(*(o.encode() for o in options))
            status = self.lib.nvrtcCompileProgram(prog, len(options), args)
            size = ctypes.c_size_t()
            self.lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
            buf = ctypes.create_string_buffer(size.value + 1)
            self.lib.nvrtcGetProgramLog(prog, buf)
            log = buf.value.decode("utf-8", "replace")
            if status:
                return None, f"{self._error(status)}\n{log}"
            if self.lib.nvrtcGetCUBINSize(prog, ctypes.byref(size)) or size.value == 0:
                return None, f"no cubin (is {name} compiled for a real sm_XX?)\n{log}"
            cubin = ctypes.create_string_buffer(size.value)
            self.lib.nvrtcGetCUBIN(prog, cubin)
            return cubin.raw, log
        finally:
            self.lib.nvrtcDestroyProgram(ctypes.byref(prog))

    def _error(self, status: int) -> str:
        return (self.lib.nvrtcGetErrorString(status) or b"NVRTC error").decode() + f" ({status})"


class CupyNvrtc:
    """The NVRTC CuPy loads, through the backend's own compile (cuda_cache.compile_source); a
    verbose compile (its log is wanted on success) goes to the same libnvrtc through ctypes."""

    def __init__(self) -> None:
        from codegen.runtime import cuda_cache

        self.cache = cuda_cache
        self._version = ".".join(map(str, cuda_cache.nvrtc_version()))
        loaded = cuda_cache._loaded_libnvrtc()
        self.direct = Nvrtc(loaded) if loaded is not None else None

    def version(self) -> str:
        return self._version

    def compile(self, source: str, name: str, options: Sequence[str]) -> tuple[bytes | None, str]:
        if VERBOSE_OPTION in options:
            return self.direct.compile(source, name, options) if self.direct else (None, "no libnvrtc handle")
        try:
            return self.cache.compile_source(source, name, options, "cubin"), ""
        except self.cache.CudaCompileError as exc:
            return None, exc.log or str(exc)


# ----------------------------------------------------------------------------- a run --

@dataclass
class ModuleResult:
    path: str  # relative to the project: "generated/norm/layer_norm.cu"
    ok: bool
    log: str = ""  # NVRTC's log when it failed
    seconds: float = 0.0
    kernels: list[KernelResources] = field(default_factory=list)
    ptxas: list[KernelResources] | None = None  # ptxas -v's report, where the module was compiled verbosely
    cached: bool = False  # its cubin came from the disk cache (nvrtc_cache.py): compiled by an earlier run

    @property
    def error(self) -> str:
        """The first error line of the log."""
        lines = self.log.strip().splitlines()
        return next((line for line in lines if " error" in line or line.startswith("error")),
                    lines[0] if lines else "failed")


@dataclass
class Run:
    """One NVRTC, one line-info setting, every module."""

    label: str  # "13.0.88", "cupy", a library path
    lineinfo: bool
    version: str = ""  # NVRTC's own "13.0"
    arch: str = ARCH
    options: list[str] = field(default_factory=list)  # without the -I folders
    modules: list[ModuleResult] = field(default_factory=list)
    error: str = ""  # the whole run failed (NVRTC did not load, the worker died)

    @property
    def kernels(self) -> list[KernelResources]:
        return [k for m in self.modules for k in m.kernels]

    def describe(self) -> str:
        on = "on" if self.lineinfo else "off"
        return f"{self.label} (NVRTC {self.version or '?'}) for {self.arch}, line info {on}"


def kernel_modules() -> list[Path]:
    return sorted((PROJECT / "generated").rglob("*.cu"))


def module_paths(given: Sequence[Path]) -> list[Path]:
    """--modules' files: each a path to a file, or the bare name of a generated module
    (`fused_batch_norm.cu`, or `fused_batch_norm`). ValueError for any other, naming it and the
    generated modules."""
    known = kernel_modules()
    out = []
    for path in given:
        if path.is_file():
            out.append(path)
            continue
        name = path.name if path.suffix == ".cu" else f"{path.name}.cu"
        found = [m for m in known if m.name == name] if path.parent == Path(".") else []
        if len(found) != 1:
            names = ", ".join(m.relative_to(PROJECT / "generated").as_posix() for m in known) or "none"
            what = "names more than one generated module" if found else "is no file nor a generated module's name"
            raise ValueError(f"--modules {str(path)!r} {what} (the generated modules: {names})")
        out.append(found[0])
    return out


def _op_of(symbol: str) -> str:
    return symbol_parts(symbol)[0]


def compile_modules(compiler: Nvrtc | CupyNvrtc | CachedCompiler, label: str, include: str | None, lineinfo: bool,
                    modules: Sequence[Path], arch: str = ARCH, verbose: Sequence[str] = ()) -> Run:
    """Compile each module (report, never raise, per module). `verbose`: modules always compiled
    once more with ptxas -v (a cross-check of the cubin reader), besides those with local memory."""
    from codegen.runtime.cuda_cache import LINEINFO_OPTION, STD_OPTION, Target, compile_options

    target = Target(arch, "cubin")
    options = compile_options(target, lineinfo=lineinfo, include_dirs=None if include is None else [include])
    run = Run(label, lineinfo, compiler.version(), arch,
              [o for o in options if o in (STD_OPTION, target.option, LINEINFO_OPTION)])
    for path in modules:
        rel = path.resolve().relative_to(PROJECT).as_posix() if path.resolve().is_relative_to(PROJECT) else str(path)
        start = time.perf_counter()
        try:
            source = path.read_text(encoding="utf-8")
            hits = getattr(compiler, "hits", 0)
            cubin, log = compiler.compile(source, path.name, options)
            result = ModuleResult(rel, cubin is not None, "" if cubin else log, time.perf_counter() - start,
                                  cached=getattr(compiler, "hits", 0) > hits)
            if cubin is not None:
                result.kernels = read_cubin(cubin)
                if rel in verbose or str(path) in verbose or any(k.local_bytes for k in result.kernels):
                    _add_ptxas_report(compiler, source, path.name, options, result)
        except Exception as exc:  # noqa: BLE001 -- one module's failure is reported, the others go on
            result = ModuleResult(rel, False, f"{type(exc).__name__}: {exc}", time.perf_counter() - start)
        for kernel in result.kernels:
            kernel.op = _op_of(kernel.kernel)
        run.modules.append(result)
    return run


def _add_ptxas_report(compiler: Nvrtc | CupyNvrtc | CachedCompiler, source: str, name: str, options: Sequence[str],
                      result: ModuleResult) -> None:
    """Spill bytes from ptxas -v (a cubin does not record them)."""
    cubin, log = compiler.compile(source, name, [*options, VERBOSE_OPTION])
    if cubin is None:
        return
    result.ptxas = parse_ptxas("", log)
    reported = {k.kernel: k for k in result.ptxas}
    for kernel in result.kernels:
        found = reported.get(kernel.kernel)
        if found is not None:
            kernel.spill_stores, kernel.spill_loads = found.spill_stores, found.spill_loads


def _worker(job: dict[str, Any]) -> dict[str, Any]:
    """One run in this process (the --worker entry), as JSON."""
    try:
        compiler = CachedCompiler(Nvrtc(job["library"]), job["library"])  # (a second run of the same: no NVRTC)
    except OSError as exc:
        return dataclasses.asdict(Run(job["label"], job["lineinfo"], arch=job["arch"],
                                      error=f"cannot load {job['library']}: {exc}"))
    run = compile_modules(compiler, job["label"], job["include"], job["lineinfo"],
                          [Path(p) for p in job["modules"]], job["arch"], job["verbose"])
    return dataclasses.asdict(run)


def _from_json(data: dict[str, Any]) -> Run:
    modules = []
    for m in data.pop("modules"):
        kernels = [KernelResources(**k) for k in m.pop("kernels")]
        ptxas = m.pop("ptxas")
        modules.append(ModuleResult(**m, kernels=kernels,
                                    ptxas=None if ptxas is None else [KernelResources(**k) for k in ptxas]))
    return Run(**data, modules=modules)


@dataclass(frozen=True)
class Job:
    """One run: every module with one NVRTC, for one architecture, line info off or on."""

    toolkit: Toolkit
    arch: str = ARCH
    lineinfo: bool = False


def ci_jobs(toolkits: Sequence[Toolkit]) -> list[Job]:
    """CI's matrix over `toolkits` (any order): every module for every architecture of ARCHS with
    the newest release and with PyTorch's (what users load, on Hopper and on Blackwell; each has
    spilled where the other did not), once more with line info on with PyTorch's for ARCH (as the GPU
    check compiles), and the other releases for ARCH alone (their front ends reject what the newest
    accepts: issue 18). About as many runs as each release with line info off and on for ARCH alone,
    so the check's time stays where it was. Without PyTorch's release the first toolkit stands in."""
    newest = max(toolkits, key=lambda t: t.release.key() if t.release else ())
    pytorch = next((t for t in toolkits if t.label == PYTORCH_NVRTC), toolkits[0])
    jobs = []
    for toolkit in toolkits:
        every_arch = toolkit is newest or toolkit is pytorch
        jobs += [Job(toolkit, arch) for arch in (ARCHS if every_arch else (ARCH,))]
        if toolkit is pytorch:
            jobs.append(Job(toolkit, ARCH, lineinfo=True))
    return jobs


def cli_jobs(toolkits: Sequence[Toolkit], archs: Sequence[str] | None, chosen: bool) -> list[Job]:
    """The command's runs: CI's matrix (ci_jobs) by default; with releases or architectures named,
    each release for each architecture (default ARCH), line info off and on."""
    if not toolkits:
        return []
    if chosen or archs:
        return [Job(t, arch, on) for t in toolkits for arch in archs or [ARCH] for on in (False, True)]
    return ci_jobs(toolkits)


def run_jobs(matrix: Sequence[Job], modules: Sequence[Path] | None = None, verbose: Sequence[str] = (),
             jobs: int | None = None) -> list[Run]:
    """Each job over every module: one process per job (one NVRTC each), `jobs` (default: the CPUs)
    at a time; the runs in the jobs' order."""
    modules = list(kernel_modules() if modules is None else modules)
    tasks = [{"label": j.toolkit.label, "library": str(j.toolkit.library), "include": str(j.toolkit.include),
              "lineinfo": j.lineinfo, "modules": [str(p) for p in modules], "arch": j.arch, "verbose": list(verbose)}
             for j in matrix]

    def one(job: dict[str, Any]) -> Run:
        failed = Run(job["label"], job["lineinfo"], arch=job["arch"])
        try:
            proc = subprocess.run([sys.executable, "-m", "codegen.verify.nvrtc_compile", "--worker"],
                                  input=json.dumps(job), env=_worker_env(), capture_output=True, text=True,
                                  check=False, timeout=900)
        except subprocess.TimeoutExpired:
            return dataclasses.replace(failed, error="the worker ran over 900 s")
        lines = proc.stdout.strip().splitlines()
        if proc.returncode != 0 or not lines:
            tail = "\n".join(proc.stderr.strip().splitlines()[-6:])
            return dataclasses.replace(failed, error=f"the worker died (exit {proc.returncode}):\n{tail}")
        return _from_json(json.loads(lines[-1]))

    with ThreadPoolExecutor(max_workers=max(1, min(jobs or os.cpu_count() or 1, len(tasks)))) as pool:
        return list(pool.map(one, tasks))


# --------------------------------------------------------------------------- verdicts --

def _worker_env() -> dict[str, str]:
    """The environment of a worker process: this opgen importable (a checkout run as a script too)."""
    path = os.pathsep.join(p for p in (str(PROJECT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path}


def failures(runs: Sequence[Run], specs: Any = None) -> list[str]:
    """Every problem of the runs, one line each: a run or module that failed, a kernel over a
    limit (the largest blocks from `specs`, default: the project's), an entry point of a module's
    source missing from its cubin."""
    from codegen.runtime.host import device_kernel_names

    attach(runs, specs)
    found = []
    for run in runs:
        if run.error:
            found.append(f"{run.describe()}: {run.error}")
        for module in run.modules:
            if not module.ok:
                found.append(f"{run.describe()}: {module.path} does not compile: {module.error}")
                continue
            source = (PROJECT / module.path).read_text(encoding="utf-8") if (PROJECT / module.path).is_file() else ""
            expected = set(device_kernel_names(source))
            missing = sorted(expected - {k.kernel for k in module.kernels})
            if missing:
                found.append(f"{run.describe()}: {module.path}: entry points not in the cubin: {', '.join(missing)}")
            found += [f"{run.describe()}: {k.kernel}: {p}" for k in module.kernels for p in k.problems()]
    return found


def attach(runs: Sequence[Run], specs: Any = None) -> None:
    """Each kernel's largest block, from the specs (default: the project's specs/)."""
    if specs is None:
        from codegen.load import load_specs

        specs = load_specs(PROJECT / "specs")
    attach_blocks([kernel for run in runs for kernel in run.kernels], specs)  # (each op's blocks once for all runs)


def line(run: Run, module: ModuleResult) -> str:
    what = (f"ok     {module.seconds:5.2f} s  {len(module.kernels):3d} kernels, max "
            f"{max((k.registers for k in module.kernels), default=0)} registers"
            + (" (cached cubin)" if module.cached else "")) if module.ok \
        else f"FAILED {module.seconds:5.2f} s  {module.error}"
    return f"  {run.label:<8} {run.arch:<6} line info {'on ' if run.lineinfo else 'off'}  {module.path:<44} {what}"


def markdown(runs: Sequence[Run], toolkits: Sequence[Toolkit] = ()) -> str:
    """The resource tables: one section per NVRTC (its line-info-off run; line info changes no
    resource, and the check covers both), with the NVRTC version, where it came from, and the date."""
    wheels = {t.label: t.release for t in toolkits if t.release is not None}
    today = datetime.date.today().isoformat()
    parts = ["# Kernel resources", "",
             "Every generated module compiled by NVRTC as the cuda backend compiles it (`python "
             "scripts/nvrtc_compile.py --markdown bench/gpu-resources-offline.md`; the options of "
             "`codegen.runtime.cuda_cache.compile_options`), resources read from the cubins "
             "(`codegen/resources.py`). Largest block: the most threads the op's launch plan can launch the "
             "kernel with on the cuda backend (`codegen/launch_space.py`; empty for a kernel only the cpu plan "
             "launches); registers per block: what that block takes (allocated per warp, 8 registers a thread at "
             "a time), at most 65,536. No GPU needed: a GPU's own report is "
             "`bench/gpu-resources.md` (`python bench/gpu_resources.py` on the GPU machine)."]
    for run in runs:
        if run.lineinfo and any((r.label, r.arch) == (run.label, run.arch) and not r.lineinfo for r in runs):
            continue
        rel = wheels.get(run.label)
        source = (f"pip wheels {rel.nvrtc} and {rel.headers} (headers)" if rel else
                  "the NVRTC and headers CuPy loads" if run.label == "cupy" else f"{run.label}")
        compiled = [m for m in run.modules if m.ok]
        failed = [m.path for m in run.modules if not m.ok]
        checked = any((r.label, r.arch, r.lineinfo) == (run.label, run.arch, True) for r in runs)
        parts += ["", f"## NVRTC {run.version or '?'} ({run.label}) for {run.arch}, {today}", "",
                  f"{source}; `{' '.join(run.options)}` plus the headers' -I"
                  + (" (compiled and checked with --generate-line-info too)" if checked else "")
                  + f"; {len(compiled)} modules"
                  + (f", **not compiled: {', '.join(failed)}**" if failed else "") + ".", "",
                  table(run.kernels), "", summary(run.kernels) + "."]
        if run.error:
            parts += ["", f"**The run failed: {run.error}**"]
    return "\n".join(parts) + "\n"


# ------------------------------------------------------------------------------- CLI --

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Compile every generated module with NVRTC and report kernel "
                                                 "resources.")
    parser.add_argument("--nvrtc", action="append", default=[],
                        help="a release version of RELEASES, 'cupy', or a libnvrtc path (repeatable; default: "
                             f"{', '.join(r.version for r in default_releases())})")
    parser.add_argument("--include", help="the CUDA headers' folder for a libnvrtc path")
    parser.add_argument("--arch", action="append", default=None,
                        help=f"a GPU architecture (repeatable; default: CI's matrix, {', '.join(ARCHS)}; "
                             f"{ARCH} with --nvrtc)")
    parser.add_argument("--modules", nargs="*", type=Path, default=None,
                        help="only these .cu files (a path, or a generated module's name: fused_batch_norm.cu)")
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(_worker(json.loads(sys.stdin.read()))))
        return 0
    try:
        modules = module_paths(args.modules) if args.modules is not None else kernel_modules()
    except ValueError as exc:
        print(f"nvrtc_compile: {exc}", file=sys.stderr)
        return 2
    runs: list[Run] = []
    toolkits: list[Toolkit] = []
    try:
        for choice in args.nvrtc or [r.version for r in default_releases()]:
            if choice == "cupy":
                compiler = CupyNvrtc()
                runs += [compile_modules(compiler, "cupy", None, on, modules, arch)
                         for arch in args.arch or [ARCH] for on in (False, True)]
            elif Path(choice).is_file():
                if not args.include:
                    parser.error("--include is needed with a libnvrtc path")
                toolkits.append(Toolkit(choice, Path(choice), Path(args.include)))
            else:
                toolkits.append(fetch(release(choice)))
    except (FetchError, KeyError) as exc:
        print(f"nvrtc_compile: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 -- CuPy or its NVRTC missing: say so, no traceback
        print(f"nvrtc_compile: no NVRTC from CuPy: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    runs += run_jobs(cli_jobs(toolkits, args.arch, chosen=bool(args.nvrtc)), modules)
    for run in runs:
        if run.error:
            print(f"  {run.describe()}: FAILED: {run.error}")
        for module in run.modules:
            print(line(run, module))
    problems = failures(runs)
    for problem in problems:
        print(f"FAIL {problem}")
    for run in runs:
        if not run.lineinfo:
            print(f"{run.describe()}: {summary(run.kernels)}")
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(markdown(runs, toolkits), encoding="utf-8")
        print(f"written: {os.path.relpath(args.markdown)}")
    if args.json:
        args.json.write_text(json.dumps([dataclasses.asdict(r) for r in runs], indent=1), encoding="utf-8")
    print(f"nvrtc_compile: {len(runs)} runs, {sum(len(r.modules) for r in runs)} module compiles, "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
