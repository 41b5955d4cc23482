"""The checks `opgen verify` runs, case by case, for each op (their names, as `--require` takes them):

- `cpu-plan`: the cpu launch plan runs every case without an error and writes every output
  (outputs are poisoned with NaN first: an element a kernel forgets shows up);
- `reference`: the cpu plan against the op's float64 reference (`reference:`; skipped without one);
- `cuda-plan`: the GPU's launch plan on the host emulation (Scope("cpu", launch_plan="cuda")) against
  the cpu plan; `gpu-form`: the kernels' GPU form on the host (Scope("cpu", kernel_form="gpu"));
- `sanitize`: both plans again in the host emulation's sanitize build (out-of-bounds accesses, races,
  uninitialised shared memory, barrier misuse: an error naming kernel, thread and template line);
- `random-order`: both plans in a seeded random thread, warp and block order (the seed reproduces a
  failure with any thread count), against the in-order cpu plan;
- `coverage`: what the cuda plan's launches reached of what the spec can launch (gaps are listed, not
  failed: codegen/launch_space.py);
- `cuda`: the cuda backend on a GPU against the cpu plan (skipped without one);
- `nvrtc`: the kernel modules through every NVRTC release installed, resources within the limits
  (codegen/verify/nvrtc.py).

Each comparison is codegen/verify/compare.py's, with its per-dtype tolerances."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from codegen.inputs import Case
from codegen.runtime.launches import Launch, record_launches
from codegen.verify.cases import run_case
from codegen.verify.compare import Result, compare
from codegen.verify.names import CHECKS
from codegen.verify.reference import ReferenceError, reference_outputs
from codegen.warmup import GeneratedOp


@dataclass
class Failure:
    """One failing case of one check: what differed (worst element included) and the template lines
    of the kernels the case launched."""

    case: str
    message: str
    kernels: list[str] = field(default_factory=list)


@dataclass
class Outcome:
    """One op's result in one check: "pass", "fail" or "skip" (with why), the cases it ran."""

    op: str
    check: str
    status: str = "pass"
    cases: int = 0
    note: str = ""
    failures: list[Failure] = field(default_factory=list)

    @property
    def failed_cases(self) -> int:
        return len({f.case for f in self.failures})

    def fail(self, failure: Failure) -> None:
        self.status = "fail"
        self.failures.append(failure)

    def skip(self, why: str) -> None:
        if self.status == "pass" and not self.cases:
            self.status, self.note = "skip", why


@dataclass
class Scopes:
    """The scopes a run compares: the cpu plan, the cuda plan on the emulation, the GPU kernel form,
    and the cuda backend where a GPU is usable (None, with why not, elsewhere)."""

    cpu: Any
    cuda_plan: Any
    gpu_form: Any
    cuda: Any | None
    no_cuda: str

    @classmethod
    def make(cls) -> Scopes:
        from codegen.runtime.scope import Scope, cuda_available

        ok, why = cuda_available()
        return cls(Scope("cpu"), Scope("cpu", launch_plan="cuda"), Scope("cpu", kernel_form="gpu"),
                   Scope("cuda") if ok else None, "" if ok else f"needs a CUDA GPU and CuPy: {why}")


def error_text(exc: BaseException) -> str:
    """The exception as one message: its class's own name and its text (a sanitizer report's lines)."""
    return f"{type(exc).__name__}: {exc}"


@contextmanager
def _switched(sanitize: bool = False, seed: int | None = None) -> Iterator[None]:
    """The host emulation's sanitize build / random order on for the block, as they were after."""
    from codegen.runtime.host import switches

    saved = (switches._sanitize, switches._random_seed)
    try:
        if sanitize:
            switches.set_sanitize(True)
        if seed is not None:
            switches.set_random_order(seed)
        yield
    finally:
        switches._sanitize, switches._random_seed = saved


def kernel_lines(op: GeneratedOp, launches: list[Launch]) -> list[str]:
    """`template file:line (kernel)` of each kernel the launches ran: where its device function is
    defined in the template (read back through the generated module's #line directives)."""
    if op.kernels is None:
        return []
    from codegen.runtime.line_map import LineMap

    text = op.kernels.text
    lines = text.split("\n")
    where = LineMap(str(op.kernels.path), text)
    found: list[str] = []
    for kernel in dict.fromkeys(launch.kernel for launch in launches):
        pattern = re.compile(rf"\b{re.escape(kernel)}\s*\(")
        hits = [n for n, line in enumerate(lines, 1) if pattern.search(line) and "extern" not in line]
        defined = [n for n in hits if "__device__" in lines[n - 1] or "void" in lines[n - 1]] or hits
        if defined:
            found.append(f"{where(defined[0])} ({kernel})")
    return found


class OpRun:
    """One op's cases through every check: `run(case)` per case, then `outcomes`."""

    def __init__(self, op: GeneratedOp, scopes: Scopes, seed: int, reference: Callable[..., Any] | None,
                 reference_why: str) -> None:
        self.op, self.scopes, self.seed, self.reference = op, scopes, seed, reference
        self.outcomes = {check: Outcome(op.name, check) for check in CHECKS if check not in ("coverage", "nvrtc")}
        if reference is None:
            self.outcomes["reference"].skip(reference_why)
        if scopes.cuda is None:
            self.outcomes["cuda"].skip(scopes.no_cuda)
        self.launches: list[tuple[str, Launch]] = []  # the cuda plan's, for the coverage table

    def _run(self, case: Case, scope: Any) -> tuple[Any, list[Launch]]:
        with record_launches(scope.backend) as launches:
            out = run_case(self.op, case, scope)
        return out, list(launches)

    def _compared(self, check: str, case: Case, expected: Any, scope: Any, **switches: Any) -> list[Launch]:
        """The case in `scope` (under the switches) against `expected`, into `check`'s outcome."""
        outcome = self.outcomes[check]
        launches: list[Launch] = []
        try:
            with _switched(**switches):
                out, launches = self._run(case, scope)
            result = compare(self.op.name, case.label, expected, out, case.fresh,
                             sides=("cpu plan", _side(check, scope)))
        except Exception as exc:  # noqa: BLE001 -- a kernel's or wrapper's error is the case's failure
            result = Result(self.op.name, case.label, False, "", float("nan"), f"error: {error_text(exc)}")
        outcome.cases += 1
        if not result.ok:
            side = ""  # (the sanitize and random-order checks run both plans: which one, and the seed)
            if switches:
                seed = f", seed {switches['seed']} (--seed)" if switches.get("seed") is not None else ""
                side = f"{_side(check, scope)}{seed}: "
            outcome.fail(Failure(case.label, side + result.message, kernel_lines(self.op, launches)))
        return launches

    def run(self, case: Case) -> None:
        """`HostCompilerNotFound` goes to the caller: no check can run here, whatever the kernel."""
        from codegen.runtime.host.errors import HostCompilerNotFound

        scopes, base = self.scopes, self.outcomes["cpu-plan"]
        try:
            expected, launches = self._run(case, scopes.cpu)
        except HostCompilerNotFound:
            raise
        except Exception as exc:  # noqa: BLE001
            base.cases += 1
            base.fail(Failure(case.label, f"error: {error_text(exc)}"))
            return
        base.cases += 1
        unwritten = compare(self.op.name, case.label, expected, expected, case.fresh, sides=("cpu plan", "cpu plan"))
        if not unwritten.ok:  # NaN left by the poisoning: an output element no kernel wrote
            base.fail(Failure(case.label, unwritten.message, kernel_lines(self.op, launches)))
            return
        self._check_reference(case, expected, launches)
        plan_launches = self._compared("cuda-plan", case, expected, scopes.cuda_plan)
        self.launches += [(case.label, launch) for launch in plan_launches]
        self._compared("gpu-form", case, expected, scopes.gpu_form)
        if scopes.cuda is not None:
            self._compared("cuda", case, expected, scopes.cuda)
        for scope in (scopes.cpu, scopes.cuda_plan):
            self._compared("sanitize", case, expected, scope, sanitize=True)
            self._compared("random-order", case, expected, scope, seed=self.seed)
        for check in ("sanitize", "random-order"):
            self.outcomes[check].cases -= 1  # two runs of one case: counted once

    def _check_reference(self, case: Case, expected: Any, launches: list[Launch]) -> None:
        if self.reference is None:
            return
        outcome = self.outcomes["reference"]
        outcome.cases += 1
        try:
            want, names = reference_outputs(self.reference, case, expected._fields)
            got = type(want)(*(getattr(expected, name) for name in names))
            result = compare(self.op.name, case.label, want, got, case.fresh, sides=("reference", "cpu plan"),
                             same_dtype=False)
        except (ReferenceError, Exception) as exc:  # noqa: BLE001 -- the reference's own failure is reported too
            result = Result(self.op.name, case.label, False, "", float("nan"), f"reference: {error_text(exc)}")
        if not result.ok:
            outcome.fail(Failure(case.label, result.message, kernel_lines(self.op, launches)))


def _side(check: str, scope: Any) -> str:
    """How a message names the run compared with the in-order cpu plan."""
    plan = f"{scope.launch_plan} plan"
    return {"gpu-form": "gpu form", "cuda": "cuda", "sanitize": f"{plan} sanitized",
            "random-order": f"{plan} in random order"}.get(check, plan)
