"""`opgen verify`'s `nvrtc` check: every kernel module of the ops compiled by the NVRTC releases
installed here, in CI's matrix (nvrtc_compile.ci_jobs: sm_90 and sm_100, line info off and on), as
the cuda backend compiles it, and each kernel's registers, spills, local and static shared memory
held to the limits for the largest block its launch plan can launch, per architecture (a problem
line names its run's release and architecture; codegen/verify/nvrtc_compile.py does the compiling;
codegen/resources.py has the limits).

"Installed" is a release of nvrtc_compile.RELEASES unpacked in its cache ($OPGEN_NVRTC_CACHE):
nothing is downloaded here. With none the check is skipped, saying what it needs."""

from __future__ import annotations

from pathlib import Path

from codegen.runtime.kernels import kernel_symbol
from codegen.verify.cases import spec_set
from codegen.verify.checks import Failure, Outcome
from codegen.verify.nvrtc_compile import (
    CACHE_ENV,
    RELEASES,
    FetchError,
    Toolkit,
    cache_root,
    ci_jobs,
    failures,
    fetch,
    run_jobs,
)
from codegen.warmup import GeneratedOp


def installed_releases() -> list[Toolkit]:
    """The releases whose wheels are unpacked in the cache, newest first."""
    root = cache_root()
    found = []
    for rel in sorted(RELEASES, key=lambda r: r.key(), reverse=True):
        if all((root / req.replace("==", "-") / ".complete").is_file() for req in (rel.nvrtc, rel.headers)):
            try:
                found.append(fetch(rel, root))
            except FetchError:  # unpacked but unusable: as if not there
                continue
    return found


def nvrtc_outcomes(ops: list[GeneratedOp], specs: Path) -> list[Outcome]:
    """One outcome per op: each problem line of the runs (nvrtc_compile.failures) goes to the ops it
    names (a kernel `Op__...`), else to the ops of the module it names, else to every op."""
    outcomes = {op.name: Outcome(op.name, "nvrtc") for op in ops}
    modules: dict[Path, list[str]] = {}
    for op in ops:
        if op.kernels is None:
            outcomes[op.name].skip("no kernels of its own")
        else:
            modules.setdefault(op.kernels.path, []).append(op.name)
    toolkits = installed_releases()
    if not toolkits:
        versions = ", ".join(r.version for r in RELEASES)
        for name in (n for names in modules.values() for n in names):
            outcomes[name].skip(f"needs an NVRTC release: none installed in {cache_root()} (${CACHE_ENV}; "
                                f"`python -m codegen.verify.nvrtc_compile` fetches {versions} there)")
        return list(outcomes.values())
    if modules:
        jobs = ci_jobs(toolkits)
        runs = run_jobs(jobs, list(modules))
        for problem in failures(runs, spec_set(specs) if specs.is_dir() else []):
            named = [n for n in outcomes if kernel_symbol(n, "", ()) in problem]  # (its kernels' symbols: "Op__...")
            named = named or [n for path, names in modules.items() if str(path) in problem for n in names]
            for name in named or [n for names in modules.values() for n in names]:
                outcomes[name].fail(Failure("compile", problem))
        for names in modules.values():
            for name in names:
                outcomes[name].cases = len(jobs)  # one per release, architecture and line-info setting
    return list(outcomes.values())
