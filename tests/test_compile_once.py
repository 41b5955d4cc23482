"""Compiling, visibly and once (issue 19, item 6): a lock around each kernel cache entry, so that
processes compiling the same module compile it once (the host cache and the cuda cache), robust to
a crashed or hung holder; XDG_CACHE_HOME; the first compile of a process said once on the "opgen"
logger; `opgen warmup --device cpu --package P` for any package; and the public switch that runs a
kernel's GPU form on the emulation (item 4: Scope("cpu", kernel_form="gpu"))."""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import numpy as np
import pytest

from codegen.runtime import artifacts, diskcache, host
from codegen.runtime.cpu import CpuBackend
from codegen.runtime.kernels import KernelSource
from codegen.runtime.scope import Scope

PROJECT = Path(__file__).resolve().parent.parent
needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")


def _env(cache: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CXX", "OPGEN_HOST_SANITIZE", "XDG_CACHE_HOME")}
    return {**env, "PYTHONPATH": str(PROJECT), "OPGEN_CACHE_DIR": str(cache), **extra}


@pytest.fixture(scope="module")
def runtime_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder holding the emulation runtime already (each process needs it before any module)."""
    cache = tmp_path_factory.mktemp("cache")
    proc = subprocess.run([sys.executable, "-c", "from codegen.runtime import host; host.load_runtime()"],
                          env=_env(cache), capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    return cache


def _race(code: str, cache: Path, processes: int = 3) -> list[dict[str, object]]:
    """Run `code` in `processes` processes that start it at the same moment (each imports first,
    then waits for a go file); each prints one JSON line last."""
    go = cache.parent / f"go-{uuid.uuid4().hex}"
    script = textwrap.dedent("""
        import json, sys, time
        from pathlib import Path
        from codegen.runtime import cuda_cache, diskcache, host
        go = Path(sys.argv[1])
        while not go.exists():
            time.sleep(0.002)
    """) + textwrap.dedent(code)
    procs = [subprocess.Popen([sys.executable, "-c", script, str(go)], env=_env(cache), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(processes)]
    time.sleep(1.0)  # every process imported and is polling
    go.write_text("go")
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results


# --------------------------------------------------------------------- the lock --

@needs_gxx
def test_three_processes_compile_a_host_module_once(runtime_cache: Path) -> None:
    source = (f"// compile-once {uuid.uuid4()}\n"
              'extern "C" __global__ void k(float* x) { x[threadIdx.x] = 2.0f * threadIdx.x; }\n')
    results = _race(f"""
        host.load_module({source!r}, name_hint="compile_once")
        print(json.dumps(host.stats))
    """, runtime_cache)
    assert sum(int(r["compiles"]) for r in results) == 1, results  # type: ignore[call-overload]
    assert sum(int(r["disk_hits"]) for r in results) == 2, results  # type: ignore[call-overload]
    assert sum(int(r["runtime_compiles"]) for r in results) == 0, results  # type: ignore[call-overload]


def test_three_processes_compile_a_cuda_module_once(tmp_path: Path) -> None:
    """The cuda cache's lock, with NVRTC stood in for by a compile that takes 0.5 s."""
    results = _race("""
        cuda_cache.compiler_id = lambda: "fake nvrtc 1.0"
        cuda_cache.compile_options = lambda target, **kw: ("-std=c++17", target.option)
        def compile_source(source, name, options, kind):
            time.sleep(0.5)
            cuda_cache.stats["nvrtc_compiles"] += 1
            return b"\\x7fELF fake cubin of " + source.encode()
        cuda_cache.compile_source = compile_source
        artifact = cuda_cache.load_or_compile("the same source", "same.cu", cuda_cache.Target("sm_90", "cubin"))
        assert artifact.data == b"\\x7fELF fake cubin of the same source", artifact.data
        print(json.dumps({**cuda_cache.stats, "origin": artifact.origin}))
    """, tmp_path / "cache")
    assert sum(int(r["nvrtc_compiles"]) for r in results) == 1, results  # type: ignore[call-overload]
    assert sum(int(r["disk_hits"]) for r in results) == 2, results  # type: ignore[call-overload]
    assert sorted(str(r["origin"]) for r in results) == ["disk", "disk", "nvrtc"]


def _hold_lock(entry: Path, then: str) -> subprocess.Popen[str]:
    """A process that takes the entry's lock, says so, then `then` ("crash": SIGKILL itself; "hang")."""
    code = textwrap.dedent(f"""
        import os, signal, sys, time
        from pathlib import Path
        from codegen.runtime import diskcache
        with diskcache.entry_lock(Path({str(entry)!r})) as locked:
            print("locked" if locked else "not locked", flush=True)
            if {then!r} == "crash":
                os.kill(os.getpid(), signal.SIGKILL)
            time.sleep(60)
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], env=_env(entry.parent), stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def test_a_crashed_lock_holder_does_not_block_the_next_build(tmp_path: Path) -> None:
    entry = tmp_path / "host" / "module-abc.so"
    holder = _hold_lock(entry, "crash")
    assert holder.wait(timeout=60) == -signal.SIGKILL
    assert diskcache.lock_path(entry).exists()  # left behind by the crash: it means nothing
    start = time.monotonic()
    with diskcache.entry_lock(entry, timeout=30) as locked:
        assert locked
    assert time.monotonic() - start < 5


def test_a_hung_lock_holder_is_waited_for_then_built_around(tmp_path: Path) -> None:
    entry = tmp_path / "host" / "module-def.so"
    holder = _hold_lock(entry, "hang")
    try:
        start = time.monotonic()
        with pytest.warns(RuntimeWarning, match=r"held the build lock .*module-def\.so\.lock.* building"), \
                diskcache.entry_lock(entry, timeout=0.5) as locked:
            assert not locked
        assert 0.5 <= time.monotonic() - start < 10
    finally:
        holder.kill()
        holder.wait(timeout=60)


def test_a_lock_that_cannot_be_made_builds_unlocked(tmp_path: Path) -> None:
    entry = tmp_path / "host" / "module.so"
    diskcache.lock_path(entry).mkdir(parents=True)  # a folder where the lock file goes
    with diskcache.entry_lock(entry) as locked:
        assert not locked


# ------------------------------------------------------------------ XDG_CACHE_HOME --

def test_xdg_cache_home_is_honoured_and_opgen_cache_dir_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from codegen.runtime import cuda_cache

    monkeypatch.delenv("OPGEN_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert diskcache.cache_root() == tmp_path / "xdg" / "opgen"
    assert host.cache_dir() == tmp_path / "xdg" / "opgen" / "host"
    assert cuda_cache.cache_dir() == tmp_path / "xdg" / "opgen" / "cuda"
    assert f"XDG_CACHE_HOME={tmp_path / 'xdg'}" in diskcache.describe_root()
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # the XDG spec: a relative path is ignored
    assert diskcache.cache_root() == Path.home() / ".cache" / "opgen"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "mine"))
    assert diskcache.cache_root() == tmp_path / "mine"
    assert host.cache_dir() == tmp_path / "mine" / "host"


# ------------------------------------------------------------ the first compile, said once --

@needs_gxx
def test_the_first_compile_is_logged_once_and_can_be_silenced(runtime_cache: Path) -> None:
    code = textwrap.dedent("""
        import logging, sys, uuid
        if sys.argv[1] == "quiet":
            logging.getLogger("opgen").setLevel(logging.ERROR)
        from codegen.runtime import host
        for _ in range(2):
            host.load_module(f"// {uuid.uuid4()}\\n" 'extern "C" __global__ void k(float* x) { x[0] = 1; }\\n',
                             name_hint="said_once")
        print(host.stats["compiles"])
    """)
    said = subprocess.run([sys.executable, "-c", code, "loud"], env=_env(runtime_cache), capture_output=True,
                          text=True, timeout=300, check=False)
    assert said.returncode == 0, said.stderr
    assert said.stdout.split() == ["2"]
    assert said.stderr.count("compiling kernel modules for the cpu backend") == 1, said.stderr
    assert "said_once" in said.stderr and str(runtime_cache / "host") in said.stderr
    assert "opgen warmup --device cpu" in said.stderr and "setLevel(logging.ERROR)" in said.stderr
    quiet = subprocess.run([sys.executable, "-c", code, "quiet"], env=_env(runtime_cache), capture_output=True,
                           text=True, timeout=300, check=False)
    assert quiet.returncode == 0 and quiet.stdout.split() == ["2"], quiet.stderr
    assert quiet.stderr == ""


def test_a_cache_hit_says_nothing(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(artifacts, "_ANNOUNCED", set())
    caplog.set_level(logging.INFO, logger="opgen")
    host.announce_compile("cpu", "First", Path("/cache"))
    host.announce_compile("cpu", "Second", Path("/cache"))
    host.announce_compile("cuda", "Third", Path("/cache"))
    assert [r.levelno for r in caplog.records] == [logging.WARNING, logging.WARNING]
    assert "starting with First" in caplog.records[0].getMessage()
    assert "for the cuda backend, starting with Third" in caplog.records[1].getMessage()


# ----------------------------------------------------------------- opgen warmup --

def _fixture_package(folder: Path, name: str = "warm_fixture_ops") -> Path:
    from codegen.cli import main as opgen

    fixtures = PROJECT / "tests" / "fixtures"
    out = folder / name
    assert opgen(["generate", "--specs", str(fixtures / "specs"), "--templates", str(fixtures / "templates"),
                  "--out", str(out)]) == 0
    return out


@needs_gxx
def test_warmup_compiles_a_user_package_for_the_cpu_backend(tmp_path: Path, runtime_cache: Path) -> None:
    """From the user's folder, no PYTHONPATH for their package (python -P: not even the current
    directory on sys.path): every module compiled once, then found in the cache."""
    project = tmp_path / "project"
    _fixture_package(project)
    cache = tmp_path / "cache"
    shutil.copytree(runtime_cache, cache)
    argv = [sys.executable, "-P", "-c", "import sys; from codegen.warmup import main; sys.exit(main(sys.argv[1:]))",
            "--jobs", "1", "--device", "cpu", "--package", "warm_fixture_ops"]
    native = _env(cache)  # (the default: the torch module loads its library and C++ Autograd kernel)
    first = subprocess.run(argv, cwd=project, env=native, capture_output=True, text=True, timeout=600,
                           check=False)
    out = first.stdout
    assert first.returncode == 0, out + first.stderr
    assert "opgen warmup: cpu backend (host emulation)" in out and f"cache {cache / 'host'}" in out
    assert "opgen warmup: vector ISA x86-64-v3 (" in out or "opgen warmup: vector ISA baseline (" in out
    assert "emulation runtime  already cached" in out
    ops = [line for line in out.splitlines() if line.lstrip().startswith("[")]
    assert ops and all(any(word in line for word in ("compiled", "no kernels", "shared with")) for line in ops), out
    assert ops[0].lstrip().startswith(f"[1/{len(ops)}]") and " s  " in ops[0]
    compiled = sum("compiled" in line for line in ops)
    assert f"{compiled} modules compiled, 0 already cached, 0 failed" in out
    gate = "compiled" if _torch_here() else "skipped: PyTorch is not installed"  # (its torch module's C++ ones)
    assert f"torch library          {gate}" in out and "torch_native.cpp" in out, out
    assert f"torch Autograd kernel  {gate}" in out and "torch_autograd_gate.cpp" in out, out
    assert first.stderr.count("compiling kernel modules for the cpu backend") == 1
    again = subprocess.run([*argv[:-2], "--package", str(project / "warm_fixture_ops"), "RowStats"], cwd=tmp_path,
                           env=native, capture_output=True, text=True, timeout=600, check=False)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "[1/1] RowStats" in again.stdout and "already cached" in again.stdout, again.stdout
    assert "0 modules compiled, 1 already cached" in again.stdout
    gate = "already cached" if _torch_here() else "skipped: PyTorch is not installed"
    assert f"torch library          {gate}" in again.stdout, again.stdout
    assert f"torch Autograd kernel  {gate}" in again.stdout, again.stdout
    assert again.stderr == ""  # nothing compiled: nothing said


@needs_gxx
def test_warmup_jobs_compile_the_modules_in_processes_of_their_own(tmp_path: Path, runtime_cache: Path) -> None:
    """--jobs 2: each module compiled by a worker process (two at a time) into the cache, counted as
    compiled by this run; the ops' lines as with one job; a second run finds every module cached."""
    project = tmp_path / "project"
    _fixture_package(project)
    cache = tmp_path / "cache"
    shutil.copytree(runtime_cache, cache)
    argv = [sys.executable, "-P", "-c", "import sys; from codegen.warmup import main; sys.exit(main(sys.argv[1:]))",
            "--jobs", "2", "--device", "cpu", "--package", "warm_fixture_ops"]
    env = _env(cache, OPGEN_TORCH_NATIVE="0")  # (the setting warmup follows: neither torch library built)
    first = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=600, check=False)
    out = first.stdout
    assert first.returncode == 0, out + first.stderr
    assert "torch library          skipped: OPGEN_TORCH_NATIVE=0" in out
    modules = len({line.split()[-1] for line in out.splitlines() if "compiled" in line and line.lstrip()[:1] == "["})
    assert modules >= 2, out
    assert f"compiling {modules} modules, 2 at a time" in out
    assert f"{modules} modules compiled, 0 already cached, 0 failed" in out
    assert "compiling kernel modules" not in first.stderr  # the workers compiled: this process only loaded
    again = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert again.returncode == 0 and f"0 modules compiled, {modules} already cached" in again.stdout, again.stdout


def _torch_here() -> bool:
    import importlib.util

    return importlib.util.find_spec("torch") is not None


def test_warmup_skips_the_torch_libraries_where_torch_or_its_headers_are_absent(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Nothing to build with: one line each saying why, no error (the torch module registers its ops
    in Python, or keeps its Python Autograd kernels)."""
    from codegen import warmup

    monkeypatch.setenv("OPGEN_TORCH_AUTOGRAD_GATE", "1")
    monkeypatch.setenv("OPGEN_TORCH_NATIVE", "0")  # (the Python registration: nothing would load them)
    warmup._warm_torch("generated")
    out = capsys.readouterr().out
    assert "torch library          skipped: OPGEN_TORCH_NATIVE=0" in out, out
    assert "torch Autograd kernel  skipped: OPGEN_TORCH_NATIVE=0" in out, out
    monkeypatch.delenv("OPGEN_TORCH_NATIVE")  # (the default: both loaded)
    monkeypatch.setitem(sys.modules, "torch", None)  # (import torch: ImportError)
    warmup._warm_torch("generated")
    out = capsys.readouterr().out
    assert "torch library          skipped: PyTorch is not installed here" in out, out
    assert "torch Autograd kernel  skipped: PyTorch is not installed here" in out, out
    monkeypatch.undo()
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("OPGEN_TORCH_AUTOGRAD_GATE", "1")
    monkeypatch.delenv("OPGEN_TORCH_NATIVE", raising=False)
    monkeypatch.setattr(torch, "__file__", str(PROJECT / "no_torch_here" / "__init__.py"))  # (no include/)
    warmup._warm_torch("generated")
    out = capsys.readouterr().out
    assert f"torch library          skipped: PyTorch {torch.__version__} has no C++ headers" in out, out
    assert f"torch Autograd kernel  skipped: PyTorch {torch.__version__} has no C++ headers" in out, out


def test_warmup_names_a_bad_package_device_or_op(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from codegen.warmup import main

    monkeypatch.chdir(tmp_path)
    assert main(["--device", "cpu", "--package", "no_such_package_here"]) == 2
    assert "cannot import the package 'no_such_package_here'" in capsys.readouterr().err
    assert main(["--device", "cpu", "--package", "./not/a/folder"]) == 2
    assert "nor the folder of a package" in capsys.readouterr().err
    assert main(["--device", "tpu"]) == 2
    assert "expected cpu, cuda or cuda:N, got 'tpu'" in capsys.readouterr().err
    assert main(["--device", "cpu", "NoSuchOp"]) == 2
    assert "no op named 'NoSuchOp'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--jobs", "0"])
    assert "--jobs: expected an int from 1 to 256, got '0'" in capsys.readouterr().err


# ----------------------------------------------------- the GPU form on the emulation --

GPU_FORM_PROBE = """
#ifdef OPGEN_GPU_FORM
#define FORM 2.0f
#else
#define FORM 1.0f
#endif
extern "C" __global__ void form(float* x) { x[0] = FORM; }
"""


@needs_gxx
def test_kernel_form_gpu_compiles_the_gpu_form(tmp_path: Path) -> None:
    path = tmp_path / "form.cu"
    path.write_text(f"// {uuid.uuid4()}\n" + GPU_FORM_PROBE)
    source = KernelSource("FormProbe", path)
    got = {}
    for name, scope in {"host": Scope("cpu"), "cuda plan": Scope("cpu", launch_plan="cuda"),
                        "gpu": Scope("cpu", kernel_form="gpu"),
                        "gpu, cpu plan": Scope("cpu", launch_plan="cpu", kernel_form="gpu")}.items():
        x = np.zeros(1, np.float32)
        scope.backend.launch(source, "form", (1,), (1,), (x,))
        scope.backend.flush()
        got[name] = float(x[0])
    assert got == {"host": 1.0, "cuda plan": 1.0, "gpu": 2.0, "gpu, cpu plan": 2.0}


def test_kernel_form_is_checked_and_shown() -> None:
    scope = Scope("cpu", kernel_form="gpu")
    assert (scope.launch_plan, scope.kernel_form) == ("cuda", "gpu")  # the GPU's kernels and launches
    assert repr(scope) == "Scope(device='cpu', launch_plan='cuda', kernel_form='gpu')"
    assert repr(scope.backend) == "CpuBackend(launch_plan='cuda', kernel_form='gpu')"
    assert Scope("cpu", kernel_form="gpu").backend is not scope.backend  # a backend (and modules) of its own
    assert Scope("cpu", kernel_form="host").backend is Scope("cpu").backend
    assert repr(Scope("cpu")) == "Scope(device='cpu')" and Scope("cpu").kernel_form == "host"
    with pytest.raises(ValueError, match=r"Scope: kernel_form: expected 'host' or 'gpu'.*got 'fast'"):
        Scope("cpu", kernel_form="fast")
    with pytest.raises(ValueError, match=r"kernel_form: .*the former on device 'cpu'.*'host' on 'cuda'"):
        Scope("cuda", kernel_form="host")
    with pytest.raises(ValueError, match="kernel_form"):
        CpuBackend(kernel_form="GPU")
