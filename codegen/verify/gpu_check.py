#!/usr/bin/env python3
"""Everything only a machine with an NVIDIA GPU can prove, in one command that fits a short lease
(`bash scripts/gpu-check.sh` runs this for opgen's own ops; `opgen gpu-check` for a project's).
Steps, in the order of what they prove:

| step | what it runs | estimate on an H100/H200 | limit |
|---|---|---:|---:|
| environment | GPU, driver, NVRTC, CuPy, torch, g++, compute-sanitizer, modules (gpu_env.py) | 5 s | 30 s |
| compile | every module with the machine's NVRTC into the kernel cache (opgen warmup) | 30 s | 150 s |
| parity | every op, cpu ⇄ cuda, coverage table (gpu_parity.py) | 40 s | 150 s |
| memcheck | every parity case under compute-sanitizer memcheck | 10 s | 120 s |
| racecheck | the ops with shared memory outside rnn/, under racecheck | 20 s | 90 s |
| racecheck rnn | the RNN ops with shared memory (rnn/: CudnnRNN, DmlRnn, GRU cell), under racecheck | 60 s | 150 s |
| synccheck | the ops with shared memory, every group | 10 s | 60 s |
| resources | registers, spills, shared/local memory from the cubins, limits (nvrtc_compile.py) | 45 s | 120 s |
| benchmarks | norms, batch-norm gradient, LSTM/GRU, GRU cell, DmlRnn vs PyTorch/cuDNN | 60 s | 60 s each |
| bench fused step | persistent, fused, GEMM RNN steps (forward, backward; D = 1, 2) at the thresholds | 40 s | 60 s |
| gpu tests | the tests marked gpu, on the cuda backend | 40 s | 90 s |

The estimates (360 s in all, within the default 480 s budget: test_gpu_check holds the sum to it)
are the H100 and H200 runs' times (bench/gpu-check-*.md), rounded up; the latest H200 run (53c29c9)
took 270 s over these steps. Racecheck took 14-16 s over the 7 ops with shared memory before the
RNN kernels had any and 67 s over 10 once they had: about 50 s is the RNN modules', now a step of
its own with its own limit, so that a slow racecheck over them cannot take the other ops' racecheck
with it. The fused-step benchmark took 5 s for D = 2 alone and now runs D = 1 and D = 2, forward and
backward, with the persistent form timed too, so several times that (the rehearsal runs D = 1 on
the CuPy stand-in: its plumbing, not its time). The run's budget (480 s by default) bounds the sum:
a step starts with at most the time left, and a step the budget no longer holds is listed as not
run, so the later (less fundamental) steps are the ones a short lease loses.

Results go to the folder `--out`, else `$OUT`, else bench/gpu-check/: summary.md (rewritten after
every step: the environment line, a table of the steps, each step's report, the tail of each
failure), steps.log (every step's output as it is printed), and the reports parity.md and
resources.md: four files. A step that fails (a module NVRTC rejects, no compute-sanitizer) is a
line of the summary; the next step still runs. A Python module a step imports that is missing
(NEEDS; ml_dtypes, say) fails the environment step, which names it with what to install, and
skips the steps that import it ("skipped: needs ml_dtypes") rather than failing each. No pip
install: the checkout is put on PYTHONPATH and the machine's CuPy and torch are used.

    bash scripts/gpu-check.sh [--budget 480] [--out DIR] [--ops OP ...] [--package P [--specs DIR]] [--rehearsal]

`--package P` checks the ops of your own generated package (an import name, found from the current
directory, or the package's folder; `--specs`: its spec folder, default specs/ here): compile,
parity, the sanitizers (racecheck and synccheck over every op of P) and the resources of P's
kernels; opgen's own benchmarks and tests are not run for it.

`--rehearsal` runs every step's plumbing without a GPU: the CuPy stand-in (tests/fake_cupy.py,
kernels host-compiled) in place of the GPU, the cpu backend for the benchmark, compute-sanitizer's
steps without the tool; CI runs it (tests/test_gpu_check.py). Exit status: 0 when no step failed.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import re
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any

from codegen.project import OPGEN_HOME as PROJECT  # a checkout's root, or site-packages
from codegen.runtime.settings import CUDA_LINEINFO
from codegen.verify.check_runner import CheckRun, Step
from codegen.verify.gpu_env import missing_modules, probe
from codegen.verify.names import DEFAULT_BUDGET
from codegen.verify.package_args import add_package_arguments, package_and_specs

#: a checkout's scripts: the rehearsal's CuPy stand-in and the shared-memory ops of opgen's own package
SCRIPTS = PROJECT / "scripts"


#: The Python modules each step imports (gpu_env.MODULES says what installs each): opgen's own
#: dependencies, every step; and these, by step. A step run on the rehearsal's CuPy stand-in
#: (fake_gpu.py, which loads tests/fake_cupy.py) imports pytest too.
OPGEN_MODULES = ("numpy", "jinja2", "yaml")
NEEDS = {"parity": ("ml_dtypes",), "memcheck": ("ml_dtypes",), "racecheck": ("ml_dtypes",),
         "racecheck rnn": ("ml_dtypes",), "synccheck": ("ml_dtypes",),
         "gpu tests": ("pytest", "hypothesis", "ml_dtypes")}


def needs(step: Step) -> list[str]:
    """The Python modules `step` imports."""
    stand_in = any("fake_gpu.py" in str(part) for part in step.command or ())
    return list(dict.fromkeys((*OPGEN_MODULES, *NEEDS.get(step.name, ()), *(("pytest",) if stand_in else ()))))


def skip_without_modules(steps: list[Step], missing: dict[str, str]) -> None:
    """A step that needs a module missing here is skipped, naming it (not failed by its import)."""
    for step in steps:
        gone = [module for module in needs(step) if module in missing]
        if step.name != "environment" and not step.skip_reason and gone:
            step.skip_reason = f"needs {', '.join(gone)} (the environment step says what to install)"


def environment_step(args: argparse.Namespace, gpu: bool) -> Step:
    """The environment as a step of the table: FAIL without a GPU or with a Python module a later
    step imports missing (each named with what to install), warn for another missing piece."""
    def check(emit) -> tuple[str, str]:  # type: ignore[no-untyped-def]
        if args.rehearsal:
            modules = missing_modules()
            if modules:
                return "FAIL", "; ".join(f"{module}: {why}" for module, why in modules.items())
            return "ok", "rehearsal: the CuPy stand-in in place of a GPU"
        env = probe()
        if not env.gpu or env.modules:
            return "FAIL", "; ".join(env.missing) or "no usable GPU"
        return ("warn", "missing: " + "; ".join(env.missing)) if env.missing else ("ok", env.line())
    return Step("environment", "a GPU, NVRTC for its architecture, CuPy, torch, g++, compute-sanitizer, the "
                "Python modules the steps import", 30, function=check)


def python_command(rehearsal: bool, *argv: str) -> list[str]:
    """A Python step's command: with the CuPy stand-in under --rehearsal."""
    if rehearsal:
        return [sys.executable, str(SCRIPTS / "fake_gpu.py"), *argv]
    return [sys.executable, *argv]


def package_args(args: argparse.Namespace) -> list[str]:
    """`--package P --specs DIR` for the steps' scripts (nothing for opgen's own package)."""
    if args.package == "generated" and args.specs is None:
        return []
    return ["--package", args.package, *(["--specs", str(args.specs)] if args.specs is not None else [])]


def host_compile_every_module(package: str = "generated"):  # type: ignore[no-untyped-def]
    """The rehearsal's compile step: every module of `package` built for the host emulation (the same
    source)."""
    def check(emit) -> tuple[str, str]:  # type: ignore[no-untyped-def]
        return _host_compile(emit, package)
    return check


def _host_compile(emit, package: str) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    from codegen.runtime.host import load_module
    from codegen.warmup import generated_ops, resolve_package

    failed = []
    modules: dict[Path, tuple[Any, list[str]]] = {}  # each module once, with the ops sharing it (codegen/modules.py)
    for op in generated_ops(resolve_package(package)):
        if op.kernels is not None:
            modules.setdefault(op.kernels.path, (op.kernels, []))[1].append(op.name)
    for kernels, names in modules.values():
        try:
            load_module(kernels.text, name_hint=kernels.path.stem)
            emit(f"  {kernels.path.name}: compiled for the host emulation ({', '.join(names)})")
        except Exception as exc:  # noqa: BLE001 -- report each module, then fail
            failed.append(kernels.path.name)
            emit(f"  {kernels.path.name}: FAILED: {exc}")
    if failed:
        return "FAIL", f"{len(failed)} of {len(modules)} modules failed: {', '.join(failed)}"
    return "ok", f"{len(modules)} modules compiled (host emulation: a rehearsal)"


#: the spec group whose shared-memory ops racecheck checks in a step of its own ("racecheck rnn")
RNN_GROUP = "rnn"
#: the files the shared-memory ops step writes (in the run's work folder): the ops outside RNN_GROUP, those in it
SHARED_OPS, SHARED_RNN_OPS = "shared-ops", "shared-ops-rnn"


def sanitizer_ops_command(rehearsal: bool, work: Path) -> list[str]:
    """A shell command that writes the ops racecheck and synccheck check to work/SHARED_OPS (outside
    RNN_GROUP) and work/SHARED_RNN_OPS (in it)."""
    script = " ".join(python_command(rehearsal, str(SCRIPTS / "gpu_shared_memory_ops.py")))
    return ["bash", "-c", f"{script} --except-group {RNN_GROUP} > {work / SHARED_OPS} && "
                          f"{script} --group {RNN_GROUP} > {work / SHARED_RNN_OPS}"]


def sanitize_step(tool: str, sanitizer: str | None, rehearsal: bool, ops: list[str], work: Path,
                  shared: tuple[str, ...], timeout: float, package: list[str] | None = None,
                  name: str = "", proves: str = "") -> Step:
    """compute-sanitizer --tool TOOL over the parity cases: of the ops listed in the work folder's
    `shared` files (the shared-memory ops step's) for opgen's own package, of `ops` where given,
    every op of another `package` or where `shared` is empty. A `shared` list that is empty runs
    nothing. Without the tool: skipped by name (a rehearsal runs the cases without it)."""
    proves = proves or {"memcheck": "no out-of-bounds or misaligned access, no leak, every op",
                        "racecheck": "no shared-memory hazard between threads, ops with shared memory",
                        "synccheck": "no barrier misuse, ops with shared memory"}[tool]
    name = name or tool
    run = " ".join(shlex.quote(a) for a in [*python_command(rehearsal, "-m", "codegen.verify.gpu_sanitize"),
                                             *(package or [])])
    prefix = ""
    if ops:
        run += " --ops " + " ".join(ops)
    elif shared and not package:
        files = " ".join(str(work / f) for f in shared)
        prefix = f'ops=$(cat {files}); [ -n "${{ops// }}" ] || {{ echo "no ops to check"; exit 0; }}; '
        run += " --ops $ops"
    if sanitizer is not None and not rehearsal:
        command = ["bash", "-c", f"{prefix}{sanitizer} --tool {tool} --error-exitcode 86 --print-limit 50 {run}"]
        return Step(name, proves, timeout, command=command)
    if rehearsal:
        return Step(name, proves + " (rehearsal: the cases without compute-sanitizer)", timeout,
                    command=["bash", "-c", prefix + run])
    return Step(name, proves, timeout, skip_reason="compute-sanitizer not found (the CUDA toolkit, or pip install "
                                                   "nvidia-cuda-sanitizer-api)")


def steps(args: argparse.Namespace, out: Path, work: Path, sanitizer: str | None, gpu: bool,
          missing: dict[str, str]) -> list[Step]:
    rh = args.rehearsal
    py = lambda *argv: python_command(rh, *argv)  # noqa: E731
    ops = ["--ops", *args.ops] if args.ops else []
    package = package_args(args)
    own = "opgen's own (not run for --package)" if package else ""
    no_gpu = "" if gpu or rh else "no usable GPU (see the environment line)"
    result: list[Step] = [environment_step(args, gpu)]
    if rh:
        result.append(Step("compile", "every module compiles (rehearsal: for the host emulation)", 300,
                           function=host_compile_every_module(args.package)))
    else:
        result.append(Step("compile", "every module compiles with this machine's NVRTC for its GPU", 150,
                           command=py("-m", "codegen.warmup", *args.ops, *package[:2]), skip_reason=no_gpu))
    result.append(Step("parity", "cpu and cuda agree on every op's cases; the coverage table", 150,
                       command=py("-m", "codegen.verify.gpu_parity", "--out", str(out / "parity.md"), *ops, *package),
                       report=out / "parity.md", skip_reason=no_gpu))
    result.append(sanitize_step("memcheck", sanitizer, rh, args.ops, work, (), 120, package))
    result.append(Step("shared-memory ops", "which ops racecheck and synccheck check", 60,
                       command=sanitizer_ops_command(rh, work),
                       skip_reason=no_gpu or ("racecheck and synccheck check every op of the package" if package
                                              else "")))
    result.append(sanitize_step("racecheck", sanitizer, rh, args.ops, work, (SHARED_OPS,), 90, package,
                                proves=f"no shared-memory hazard between threads, ops with shared memory "
                                       f"outside {RNN_GROUP}/"))
    rnn = sanitize_step("racecheck", sanitizer, rh, [], work, (SHARED_RNN_OPS,), 150, package, "racecheck rnn",
                        f"no shared-memory hazard between threads, the {RNN_GROUP}/ ops with shared memory")
    rnn.skip_reason = rnn.skip_reason or ("racecheck checks the ops given" if args.ops else
                                          "racecheck checks every op of the package" if package else "")
    result.append(rnn)
    result.append(sanitize_step("synccheck", sanitizer, rh, args.ops, work, (SHARED_OPS, SHARED_RNN_OPS), 60, package))
    # registers, spills, local and static shared memory from the cubins, checked against the limits
    # (codegen/resources.py); the rehearsal compiles with NVRTC 13.0.88's pip wheel instead of CuPy's,
    # on CI's 2 cores beside the rest of the suite (60 s alone there), hence its longer limit
    nvrtc = "13.0.88" if rh else "cupy"
    modules = ["--modules", *map(str, package_modules(args.package))] if package else []
    what = f"registers, spills, shared and local memory within limits (NVRTC: {nvrtc})"
    result.append(Step("resources", what, 300 if rh else 120,
                       command=[sys.executable, "-m", "codegen.verify.nvrtc_compile", "--nvrtc", nvrtc,
                                "--markdown", str(out / "resources.md"), *modules],
                       report=out / "resources.md", skip_reason=no_gpu))
    benches = bench_steps(rh, work, no_gpu)
    for step in benches if own else []:
        step.skip_reason = own
    result += benches
    tests = ["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-m", "gpu", str(PROJECT / "tests")]
    if own:
        result.append(Step("gpu tests", "opgen's gpu-marked tests", 90, skip_reason=own))
    elif rh:
        result.append(Step("gpu tests", "the gpu-marked tests collect (rehearsal)", 120,
                           command=[sys.executable, *tests, "--collect-only"]))
    else:
        result.append(Step("gpu tests", "the gpu-marked tests pass on the cuda backend", 90, command=py(*tests),
                           env={"OPGEN_TEST_DEVICE": "cuda"}, skip_reason=no_gpu))
    for step in result:
        step.env = {**step.env}
    skip_without_modules(result, missing)
    return result


def package_modules(package: str) -> list[Path]:
    """The kernel modules (one per kernel template, `<group>/<template>.cu`) of the generated package `package`."""
    from codegen.warmup import resolve_package

    spec = importlib.util.find_spec(resolve_package(package))
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    return sorted(p for folder in folders for p in Path(folder).rglob("*.cu"))


def bench_steps(rehearsal: bool, work: Path, no_gpu: str) -> list[Step]:
    bench = PROJECT / "bench"
    gpu_only = "needs a GPU and PyTorch with CUDA (not rehearsed)" if rehearsal else no_gpu
    norm = work / "bench-norm.md"
    if rehearsal:
        first = Step("bench norms", "the norm benchmark's plumbing (rehearsal: cpu backend, tiny shapes)", 120,
                     command=[sys.executable, str(bench / "bench_norm_gpu.py"), "--device", "cpu", "--quick",
                              "--repeats", "3", "--markdown", str(norm)], report=norm)
    else:
        first = Step("bench norms", "LayerNorm, Softmax, BiasAdd (and grads) vs PyTorch", 60,
                     command=[sys.executable, str(bench / "bench_norm_gpu.py"), "--repeats", "20", "--markdown",
                              str(norm)], report=norm, skip_reason=no_gpu)
    steps = [first]
    for name, proves, argv, report in (
            ("bench batch norm", "FusedBatchNormGradV3 vs PyTorch/cuDNN",
             ["bench_batch_norm_gpu.py", "--quick", "--repeats", "20"], "bench-batch-norm.md"),
            ("bench cudnn rnn", "LSTM/GRU forward+backward vs cuDNN through torch.nn",
             ["bench_cudnn_rnn.py", "--device", "cuda", "--rounds", "3", "--repeats", "2"], "bench-cudnn-rnn.md"),
            ("bench gru cell", "GRUBlockCell(+Grad) vs PyTorch",
             ["bench_gru_gpu.py", "--repeats", "20"], "bench-gru.md"),
            ("bench dml rnn", "DmlRnn vs cuDNN nn.RNN",
             ["bench_dml_rnn.py", "--gpu-only", "--repeats", "10"], "bench-dml-rnn.md")):
        path = work / report
        steps.append(Step(name, proves, 60, command=[sys.executable, str(bench / argv[0]), *argv[1:],
                                                     "--markdown", str(path)], report=path, skip_reason=gpu_only))
    fused = work / "bench-fused-step.md"
    fused_command = [sys.executable, str(bench / "bench_fused_step.py"), "--repeats", "20"]
    if rehearsal:  # no torch needed: the CuPy stand-in runs it (its times are the emulation's)
        steps.append(Step("bench fused step", "the fused-step benchmark's plumbing (rehearsal: the CuPy stand-in)",
                          60, command=[sys.executable, str(SCRIPTS / "fake_gpu.py"),
                                       *fused_command[1:2], "--quick", "--dirs", "1", "--markdown", str(fused)],
                          report=fused))  # (D = 1 alone: the time; tests/test_bench_fused_step.py runs D = 2)
    else:
        steps.append(Step("bench fused step", "CudnnRNNV3's persistent, fused and GEMM step forms against each "
                          "other (the family's thresholds; forward and backward, D = 1 and 2)", 60,
                          command=[*fused_command, "--markdown", str(fused)], report=fused, skip_reason=no_gpu))
    return steps


def main(argv: list[str] | None = None, prog: str | None = None, default_out: Path | None = None) -> int:
    """`default_out`: the results folder without --out and $OUT (default: a checkout's bench/gpu-check)."""
    parser = argparse.ArgumentParser(prog=prog, description="The GPU check (see the module docstring).")
    parser.add_argument("--out", type=Path, default=None, help="results folder (default $OUT, else bench/gpu-check)")
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET, help="seconds for the whole run")
    parser.add_argument("--ops", nargs="*", default=[], help="only these ops (parity, sanitizer, compile)")
    parser.add_argument("--rehearsal", action="store_true", help="without a GPU: the CuPy stand-in in its place")
    add_package_arguments(parser)
    args = parser.parse_args(argv)
    if args.rehearsal and not (SCRIPTS / "fake_gpu.py").is_file():
        parser.error(f"--rehearsal needs a checkout of opgen (its scripts/fake_gpu.py and tests/fake_cupy.py); "
                     f"this opgen is installed in {PROJECT}")
    if args.package == "generated" and not (PROJECT / "bench").is_dir():
        parser.error("opgen's own ops are checked from a checkout of opgen (bash scripts/gpu-check.sh: its "
                     "benchmarks and tests); in a project, `opgen gpu-check` checks the project's ops")
    if args.package != "generated":
        package_and_specs(parser, args.package, args.specs)  # importable, or a usage error naming it
        if not re.fullmatch(r"[\w.]+", args.package):  # a folder: absolute, whatever the steps' folder
            args.package = str(Path(args.package).resolve())
        if args.specs is not None:
            args.specs = args.specs.resolve()
    out = args.out or Path(os.environ.get("OUT") or default_out or PROJECT / "bench" / "gpu-check")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(PROJECT), os.environ.get("PYTHONPATH", "")) if p)
    os.environ["PYTHONUNBUFFERED"] = "1"
    CUDA_LINEINFO.set("1")  # sanitizer reports name source lines; one cache key for every step
    env = probe() if not args.rehearsal else None
    missing = env.modules if env is not None else missing_modules()
    header = [f"mode: {'rehearsal (no GPU: the CuPy stand-in)' if args.rehearsal else 'GPU'}; "
              f"budget {args.budget:.0f} s" + (f"; ops: {' '.join(args.ops)}" if args.ops else "")
              + (f"; package: {args.package}" if args.package != "generated" else "")]
    if env is not None:
        header += ["", f"environment: {env.line()}"] + [f"- missing: {m}" for m in env.missing]
    else:
        header += ["", "environment: rehearsal (no GPU probed)"]
        header += [f"- missing: {module}: {why}" for module, why in missing.items()]
    run = CheckRun("gpu-check", out, args.budget, header)
    for line in header:
        run.emit(line)
    with tempfile.TemporaryDirectory(prefix="opgen-gpu-check-") as tmp:
        gpu = env.gpu if env is not None else False
        sanitizer = env.sanitizer if env is not None else None
        status = run.run(steps(args, out, Path(tmp), sanitizer, gpu, missing))
        if env is not None and not env.gpu:
            status = 1  # a GPU check without a GPU proves nothing: never a pass
    run.print_table()
    print("gpu-check: " + ("all steps passed" if status == 0 else "FAILED (see the summary)"))
    return status


if __name__ == "__main__":
    sys.exit(main())
