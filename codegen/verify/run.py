"""`opgen verify`'s run: every case of every op through the checks (codegen/verify/checks.py), then
the launch coverage per op and the exit status.

Exit status: 1 when a kernel fails a check (a failure is definite news, so it wins), else 2 when a
required check could not run for some op (skipped: no cases, no GPU, no reference...) or no op was
selected, else 0."""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codegen.inputs import Case
from codegen.runtime.settings import POISON_OUTPUTS
from codegen.verify.case_files import project_cases
from codegen.verify.cases import all_cases, missing_builder_message, spec_set
from codegen.verify.checks import OpRun, Outcome, Scopes
from codegen.verify.coverage import launch_gaps
from codegen.verify.names import CHECKS
from codegen.verify.nvrtc import nvrtc_outcomes
from codegen.verify.reference import load_reference
from codegen.warmup import GeneratedOp


@dataclass
class Report:
    ops: list[str]
    outcomes: list[Outcome]
    required: tuple[str, ...]
    took: float

    @property
    def status(self) -> int:
        if any(o.status == "fail" for o in self.outcomes):
            return 1
        if not self.ops or any(o.status == "skip" and o.check in self.required for o in self.outcomes):
            return 2
        return 0


def _spec_keys(specs: Path) -> dict[str, Any]:
    """The ops' specs by name, where there is a spec folder (opgen's own from a wheel have none)."""
    if not specs.is_dir():
        return {}
    return {spec.name: spec for spec in spec_set(specs)}


def _reference(op: GeneratedOp, spec: Any, extra: Any) -> tuple[Any, str]:
    """(the op's reference function or None, why there is none): the cases file's `reference:`, else
    the spec's."""
    ref = extra.reference if extra is not None and extra.reference is not None else getattr(spec, "reference", None)
    if ref is None:
        return None, ("no reference declared (add `reference: module.path:function` to the spec or its cases "
                      "file)")
    return load_reference(ref), ""


def _cases(op: GeneratedOp, specs: Path, seed: int) -> tuple[list[Case], str]:
    """The op's cases (codegen/verify/cases.py), and why there are none."""
    cases = [case for _, case in all_cases([op], seed, specs) if case is not None]
    return cases, "" if cases else missing_builder_message(op, specs)


def verify(ops: list[GeneratedOp], specs: Path, required: tuple[str, ...], seed: int = 0,
           max_cases: int | None = None, nvrtc: bool = True) -> Report:
    """`nvrtc=False`: the NVRTC compiles left out (skipped, saying so)."""
    POISON_OUTPUTS.set("1")  # an element a kernel forgets to write shows up as NaN
    warnings.filterwarnings("ignore", r".* is deprecated: ", DeprecationWarning)
    start = time.perf_counter()
    from codegen.runtime.host.errors import HostCompilerNotFound

    scopes = Scopes.make()
    needs = ""  # why no check can run on this machine (no C++ compiler for the host emulation)
    specs_by_name = _spec_keys(specs)
    extras = project_cases(specs, seed) if specs.is_dir() else {}
    outcomes: list[Outcome] = []
    for op in ops:
        reference, why = _reference(op, specs_by_name.get(op.name), extras.get(op.name))
        run = OpRun(op, scopes, seed, reference, why)
        cases, why_none = _cases(op, specs, seed)
        for case in (cases[:max_cases] if max_cases is not None else cases) if not needs else ():
            try:
                run.run(case)
            except HostCompilerNotFound as exc:
                needs = f"needs a C++ compiler for the host emulation: {exc}"
        ran_none = "no case ran (--max-cases 0)" if max_cases == 0 else "no case ran: the cpu plan failed every case"
        for outcome in run.outcomes.values():  # (a check that ran no case says why: never a pass)
            outcome.skip(needs or (f"no cases: {why_none}" if not cases else ran_none))
        outcomes += run.outcomes.values()
        coverage = Outcome(op.name, "coverage", cases=len({label for label, _ in run.launches}))
        if op.name not in specs_by_name:
            coverage.skip("needs the op's spec (its launch space)")
        elif not run.outcomes["cuda-plan"].cases:
            coverage.skip(run.outcomes["cuda-plan"].note or "the cuda plan ran no case")
        else:
            gaps = launch_gaps([op], [launch for _, launch in run.launches], "cuda", specs)
            coverage.status = "gaps" if gaps else "pass"
            coverage.note = "; ".join(gap.removeprefix(f"{op.name}: ") for gap in gaps)
        outcomes.append(coverage)
    if nvrtc:
        outcomes += nvrtc_outcomes(ops, specs)
    else:
        outcomes += [Outcome(op.name, "nvrtc", status="skip", note="left out (--no-nvrtc)") for op in ops]
    order = {check: i for i, check in enumerate(CHECKS)}
    outcomes.sort(key=lambda o: ([op.name for op in ops].index(o.op), order[o.check]))
    return Report([op.name for op in ops], outcomes, required, time.perf_counter() - start)
