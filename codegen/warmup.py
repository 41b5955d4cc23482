"""`opgen warmup [OPS...] [--package P] [--device cpu|cuda|cuda:N]`: compile every kernel module of
the named ops (all ops when none are named) of a generated package (the built-in `generated`, or
yours) for one backend into the disk cache, so that later processes load kernels without compiling
them. One line per op as it goes: its place in the run, entry points, compiled or already cached
(or shared with the op that compiled its module: ops sharing a kernel template share one,
codegen/modules.py), seconds, module; then the package's C++ Autograd kernel for PyTorch, where
its torch module would build it (or why not). Also `python -m codegen.warmup ...`.

`generated_ops()` lists the ops of a generated package (scripts/gpu_parity.py,
scripts/gpu_sanitize.py and bench/gpu_resources.py use it too, so new ops are covered by all of
them without a list to keep up to date); `resolve_package()` finds a package by import name from
the current directory, or by its folder's path.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import pkgutil
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from codegen.naming import FRAMEWORK_MODULES, symbol_op
from codegen.runtime import manifest
from codegen.runtime.kernels import KernelSource

#: The package warmup compiles when none is named: opgen's own ops.
DEFAULT_PACKAGE = "generated"


@dataclass(frozen=True)
class GeneratedOp:
    name: str  # "FusedBatchNormGradV3"
    function_name: str  # "fused_batch_norm_grad_v3"
    module: ModuleType
    kernels: KernelSource | None  # None for an op that launches no kernel of its own

    @property
    def function(self) -> Any:
        return getattr(self.module, self.function_name)

    def entry_points(self, backend: str = "cpu") -> list[str]:
        """The op's own `extern "C" __global__` kernels in its module as `backend` ("cpu", "cuda")
        compiles it (every specialization; a module that several ops share holds each one's; on cuda
        without those only the cpu plan launches): its manifest's, else (a .cu edited after
        generation, an older generator's) those the host backend's scan finds."""
        if self.kernels is None:
            return []
        stated = manifest.read(self.kernels.text)
        if stated is not None:
            names = [k.name for k in stated.kernels if backend == "cpu" or not k.cpu_only]
        else:
            from codegen.runtime.host import scan_kernels

            emulation = f"-{'D' if backend == 'cpu' else 'U'}{manifest.HOST_EMULATION}"
            names = [k.name for k in scan_kernels(self.kernels.text, [emulation])]
        return [n for n in names if symbol_op(n) == self.name]


def generated_ops(package: str = DEFAULT_PACKAGE) -> list[GeneratedOp]:
    """Every op module of the generated package (a module defining `_OP`), sorted by name."""
    root = importlib.import_module(package)
    frameworks = {f"{package}.{name}" for name in FRAMEWORK_MODULES}
    ops: list[GeneratedOp] = []
    for info in pkgutil.walk_packages(root.__path__, f"{package}."):
        if info.ispkg or info.name in frameworks:  # (no op there; importing one imports PyTorch or JAX)
            continue
        module = importlib.import_module(info.name)
        name = getattr(module, "_OP", None)
        if not isinstance(name, str):
            continue
        function_name = info.name.rsplit(".", 1)[1]
        kernels = getattr(module, "_KERNELS", None)
        ops.append(GeneratedOp(name, function_name, module, kernels if isinstance(kernels, KernelSource) else None))
    return sorted(ops, key=lambda op: op.name)


def select_ops(names: list[str], ops: list[GeneratedOp]) -> list[GeneratedOp]:
    """The ops named (class or function name), in the order given; all when none. KeyError lists
    the known names."""
    if not names:
        return ops
    by_name = {op.name: op for op in ops} | {op.function_name: op for op in ops}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise KeyError(f"no op named {', '.join(map(repr, unknown))} (known: {', '.join(op.name for op in ops)})")
    return list({by_name[n].name: by_name[n] for n in names}.values())


def resolve_package(package: str) -> str:
    """The import name of the generated package `package`: an import name (found from the current
    directory too, as `python -m` finds it: the current directory goes first on sys.path when the
    name is not importable otherwise) or the path of the package's folder (its parent goes first on
    sys.path). ValueError when it is neither."""
    if re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", package):
        name, root = package, Path.cwd()
        try:
            found = importlib.util.find_spec(name.split(".")[0]) is not None
        except (ImportError, ValueError):
            found = False
        if found:
            return name
    else:
        folder = Path(package).expanduser().resolve()
        if not (folder / "__init__.py").is_file():
            raise ValueError(f"package {package!r}: not an import name, nor the folder of a package (no "
                             f"{folder / '__init__.py'})")
        name, root = folder.name, folder.parent
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
        importlib.invalidate_caches()
    return name


def _device(device: int | str) -> str:
    """"cpu", "cuda", "cuda:N", or N (an int or digits): cuda:N."""
    text = str(device).strip()
    if text.isdigit():
        return f"cuda:{int(text)}"
    if not re.fullmatch(r"cpu|cuda(:\d+)?", text):
        raise ValueError(f"--device: expected cpu, cuda or cuda:N, got {device!r}")
    return text


def run_warmup(ops: list[str], device: int | str = 0, package: str = DEFAULT_PACKAGE, jobs: int = 1) -> int:
    """Compile the named ops' kernels (all ops when `ops` is empty) of `package` for `device` ("cpu",
    "cuda", "cuda:N", or a GPU index) into the disk cache and print what was done; with `jobs` > 1,
    that many modules compile at once, each in a process of its own (`_compile_apart`). 0: done; 1: no
    usable GPU here (for a cuda device); 2: an unknown op, package or device; 3: a kernel failed to
    compile or load. For the cpu device, 1 means no usable C++ compiler."""
    try:
        where = _device(device)
    except ValueError as exc:
        print(f"opgen warmup: {exc}", file=sys.stderr)
        return 2
    if where != "cpu":
        from codegen.runtime.scope import cuda_available

        ok, why = cuda_available()
        if not ok:
            print(f"opgen warmup: no usable CUDA GPU on this machine: {why}.\n"
                  f"opgen warmup compiles kernels for the GPU it runs on; run it on the machine with the GPU "
                  f"(or `opgen warmup --device cpu` for the cpu backend).", file=sys.stderr)
            return 1
    try:
        name = resolve_package(package)
        selected = select_ops(list(ops), generated_ops(name))
    except KeyError as exc:
        print(f"opgen warmup: {exc.args[0]}", file=sys.stderr)
        return 2
    except (ValueError, ImportError) as exc:
        print(f"opgen warmup: cannot import the package {package!r} from {Path.cwd()}: {exc}", file=sys.stderr)
        return 2
    return _warm(selected, where, name, jobs)


def _compile_apart(selected: list[GeneratedOp], where: str, package: str, jobs: int) -> set[Any]:
    """Each distinct module of `selected` compiled into the disk cache by a `python -m codegen.warmup
    OP --jobs 1` process of its own, `jobs` at a time, the largest first: a compile runs in one
    thread, and the backends build modules one at a time in a process. Returns the modules a worker
    compiled (the loop after this finds them in the cache: they count as compiled by this run). A
    worker that fails is ignored here: that loop then compiles the module itself and reports why."""
    firsts: dict[Any, GeneratedOp] = {}
    for op in selected:
        if op.kernels is not None:
            firsts.setdefault(op.kernels.module, op)
    if jobs < 2 or len(firsts) < 2:
        return set()
    order = sorted(firsts.values(), key=lambda op: -len(op.kernels.text))  # type: ignore[union-attr]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))  # the package found as here
    workers = min(jobs, len(order))
    print(f"opgen warmup: compiling {len(order)} modules, {workers} at a time", flush=True)

    def compile_one(op: GeneratedOp) -> bool:
        done = subprocess.run([sys.executable, "-m", "codegen.warmup", op.name, "--device", where, "--package",
                               package, "--jobs", "1"], env=env, capture_output=True, text=True, check=False)
        return done.returncode == 0 and re.search(r"\b1 modules compiled\b", done.stdout) is not None

    with ThreadPoolExecutor(workers) as pool:
        compiled = list(pool.map(compile_one, order))
    return {op.kernels.module for op, yes in zip(order, compiled, strict=True) if yes}  # type: ignore[union-attr]


def _warm(selected: list[GeneratedOp], where: str, package: str, jobs: int = 1) -> int:
    start = time.perf_counter()
    if where == "cpu":
        from codegen.runtime import host
        from codegen.runtime.cpu import CpuBackend

        cpu = CpuBackend()
        t0 = time.perf_counter()
        try:
            print(f"opgen warmup: cpu backend (host emulation), compiler {host.describe_compiler()}")
            print(f"opgen warmup: vector ISA {host.describe_isa()}")
            print(f"opgen warmup: cache {host.cache_dir()}")
            how = "compiled" if host.load_runtime() else "already cached"
        except host.HostBackendError as exc:
            print(f"opgen warmup: the cpu backend cannot compile here: {exc}", file=sys.stderr)
            return 1
        print(f"  emulation runtime  {how}  {time.perf_counter() - t0:.2f} s", flush=True)

        def load(op: GeneratedOp) -> str:
            assert op.kernels is not None
            seen = (host.stats["compiles"], host.stats["disk_hits"])
            cpu.load(op.kernels)
            native = getattr(op.module, "_NATIVE", None)
            if native is not None:  # its native driver (codegen/runtime/native_driver.py) too
                native.build()
            after = (host.stats["compiles"], host.stats["disk_hits"])
            return "nvrtc" if after[0] > seen[0] else "disk" if after[1] > seen[1] else "memory"
    else:
        from codegen.runtime import cuda_cache
        from codegen.runtime.cuda import cuda_backend

        backend = cuda_backend(int(where.partition(":")[2] or 0))
        print(f"opgen warmup: {backend.describe()}")
        print(f"opgen warmup: cache {cuda_cache.cache_dir()}")

        def load(op: GeneratedOp) -> str:
            assert op.kernels is not None
            loaded = backend.load(op.kernels)
            for symbol in op.entry_points("cuda"):
                backend.function(op.kernels, symbol)
            return str(loaded.origin)

    compiled_apart = _compile_apart(selected, where, package, jobs)
    print(f"opgen warmup: {len(selected)} ops of {package}")
    counts = {"nvrtc": 0, "disk": 0, "memory": 0}  # per module: the ops sharing one load it once
    loaded: dict[Any, str] = {}  # module → the first op that loaded it
    entries = failed = 0
    width = max((len(op.name) for op in selected), default=0)
    count = len(str(len(selected)))
    for i, op in enumerate(selected, 1):
        step = f"[{i:>{count}}/{len(selected)}]"
        if op.kernels is None:
            print(f"  {step} {op.name:<{width}}  no kernels of its own", flush=True)
            continue
        t0 = time.perf_counter()
        try:
            origin = load(op)
            origin = "nvrtc" if op.kernels.module in compiled_apart else origin
            symbols = op.entry_points("cpu" if where == "cpu" else "cuda")
        except Exception as exc:  # noqa: BLE001 -- report every op, then fail
            failed += 1
            print(f"  {step} {op.name:<{width}}  FAILED: {exc}", flush=True)
            continue
        first = loaded.setdefault(op.kernels.module, op.name)
        if first == op.name:
            counts[origin] += 1
        entries += len(symbols)
        how = {"nvrtc": "compiled", "disk": "already cached", "memory": "already loaded"}[origin]
        how = how if first == op.name else f"shared with {first}"
        print(f"  {step} {op.name:<{width}}  {len(symbols):3d} entry points  {how:<15} "
              f"{time.perf_counter() - t0:6.2f} s  {op.kernels.path.name}", flush=True)
    _warm_torch(package)
    print(f"opgen warmup: {len(selected)} ops, {entries} entry points: {counts['nvrtc']} modules compiled, "
          f"{counts['disk'] + counts['memory']} already cached, {failed} failed "
          f"({time.perf_counter() - start:.2f} s)")
    return 3 if failed else 0


def _warm_torch(package: str) -> None:
    """The package's PyTorch libraries, which its torch module loads by default (unless
    OPGEN_TORCH_NATIVE=0), built into the cache too, on either device (the host compiler builds
    them): the stable library (torch_native.cpp: codegen/runtime/torch_library.py) and the C++
    Autograd kernel (opgen's gate library, one per PyTorch for every package: torch_gate.py), one
    line each saying what happened; never a failure of warmup: where one cannot be built, the torch module registers
    its ops in Python, or keeps its Python Autograd kernels."""
    folder = Path(next(iter(importlib.import_module(package).__path__)))  # (as generated_ops walks it)
    from codegen.runtime import torch_gate

    for label, source in (("torch library", folder / "torch_native.cpp"), ("torch Autograd kernel", torch_gate.SOURCE)):
        t0 = time.perf_counter()
        if not (folder / "torch.py").is_file() or not (folder / "torch_native.cpp").is_file():
            how = "skipped: the package has no torch module"
        elif source is torch_gate.SOURCE:
            how = torch_gate.warm()
        else:
            from codegen.runtime import torch_library

            how = torch_library.warm(source)
        print(f"  {label:<21}  {how}  {time.perf_counter() - t0:.2f} s  {source.name}", flush=True)


def add_arguments(parser: argparse.ArgumentParser, project_default: bool = False) -> None:
    """The warmup command's arguments, defined once for `python -m codegen.warmup` (main) and
    `opgen warmup` (codegen/cli.py), each of which parses them once. With `project_default`
    (`opgen warmup`), --package defaults to None: the project's package, else generated."""
    parser.add_argument("ops", nargs="*", metavar="OP", help="ops to compile (FusedBatchNormV3 or "
                                                             "fused_batch_norm_v3); all when none")
    default = "the package of the project here, else generated: opgen's own ops" if project_default else \
        "generated, opgen's own ops"
    parser.add_argument("--package", default=None if project_default else DEFAULT_PACKAGE,
                        help=f"the generated package: an import name, found from the current directory too, "
                             f"or the package's folder (default: {default})")
    parser.add_argument("--device", default="cuda",
                        help="the backend to compile for: cpu (the host emulation), cuda or cuda:N (a bare N: "
                             "cuda:N; default: cuda, the GPU of this machine)")
    parser.add_argument("--jobs", type=_jobs, default=os.cpu_count() or 1,
                        help="modules compiled at once, each in a process of its own (default: the CPUs here)")


def _jobs(text: str) -> int:
    """--jobs N: 1 ≤ N ≤ 256 (each job is a compiler process)."""
    if not text.isdigit() or not 1 <= int(text) <= 256:
        raise argparse.ArgumentTypeError(f"expected an int from 1 to 256, got {text!r}")
    return int(text)


DESCRIPTION = "Compile kernels for one backend into the disk cache."


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="opgen warmup", description=DESCRIPTION)
    add_arguments(parser)
    args = parser.parse_args(argv)
    return run_warmup(args.ops, args.device, args.package, args.jobs)


if __name__ == "__main__":
    sys.exit(main())
