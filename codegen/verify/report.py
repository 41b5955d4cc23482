"""`opgen verify`'s output: one summary table (a row per op, a column per check), then each failing
case (op, case, what differed with its worst element, the kernels' template lines), each skip with
why, and the verdict; or, with `--json`, one JSON document holding the same."""

from __future__ import annotations

import json
from typing import Any

from codegen.verify.checks import Outcome
from codegen.verify.names import CHECKS
from codegen.verify.run import Report

#: failing cases printed per op and check (the JSON document holds them all)
SHOWN = 10


def _cell(outcome: Outcome | None) -> str:
    if outcome is None:
        return "-"
    if outcome.status == "fail":
        return f"FAIL {outcome.failed_cases}/{outcome.cases}"
    if outcome.status == "skip":
        return "skipped"
    if outcome.status == "gaps":
        return f"{len(outcome.note.split('; '))} gaps"
    return f"ok {outcome.cases}"


def verdict(report: Report) -> str:
    status = report.status
    failed = sorted({(o.op, o.check) for o in report.outcomes if o.status == "fail"})
    if status == 1:
        return f"opgen verify: FAILED: {len(failed)} op check(s) failed ({report.took:.1f} s)"
    if status == 2:
        if not report.ops:
            return "opgen verify: nothing checked: no op selected"
        missing = sorted({o.check for o in report.outcomes if o.status == "skip" and o.check in report.required})
        return (f"opgen verify: INCOMPLETE: required check(s) {', '.join(missing)} could not run for some op "
                f"(see the skipped lines; --require sets which are required) ({report.took:.1f} s)")
    return f"opgen verify: {len(report.ops)} op(s) passed every check that ran ({report.took:.1f} s)"


def text(report: Report) -> str:
    by = {(o.op, o.check): o for o in report.outcomes}
    width = max([len(op) for op in report.ops] + [2])
    cols = [max(len(check), 12) for check in CHECKS]
    lines = ["  ".join([f"{'op':<{width}}", *(f"{c:<{w}}" for c, w in zip(CHECKS, cols, strict=True))])]
    for op in report.ops:
        lines.append("  ".join([f"{op:<{width}}",
                                *(f"{_cell(by.get((op, c))):<{w}}" for c, w in zip(CHECKS, cols, strict=True))]))
    for o in report.outcomes:
        if o.status == "fail":
            for f in o.failures[:SHOWN]:
                kernels = f" [kernel {', '.join(f.kernels)}]" if f.kernels else ""
                lines.append(f"FAIL {o.op} {o.check} [{f.case}]: {f.message}{kernels}")
            if len(o.failures) > SHOWN:
                lines.append(f"... and {len(o.failures) - SHOWN} more failing cases of {o.op} {o.check} (--json)")
    skipped: dict[tuple[str, str], list[str]] = {}  # (check, why) → ops: one line for the ops skipped alike
    for o in report.outcomes:
        if o.status == "skip":
            skipped.setdefault((o.check, o.note), []).append(o.op)
    for (check, note), ops in skipped.items():
        required = " (required)" if check in report.required else ""
        lines.append(f"skipped: {check}{required} for {', '.join(ops)}: {note}")
    for o in report.outcomes:
        if o.status == "gaps":
            lines.append(f"coverage: {o.op}: not reached: {o.note}")
    lines.append(verdict(report))
    return "\n".join(lines)


def document(report: Report) -> dict[str, Any]:
    return {
        "status": report.status, "verdict": verdict(report), "required": list(report.required),
        "seconds": round(report.took, 3),
        "ops": {op: {o.check: {"status": o.status, "cases": o.cases, "note": o.note,
                               "failures": [{"case": f.case, "message": f.message, "kernels": f.kernels}
                                            for f in o.failures]}
                     for o in report.outcomes if o.op == op}
                for op in report.ops},
    }


def as_json(report: Report) -> str:
    return json.dumps(document(report), indent=2)
