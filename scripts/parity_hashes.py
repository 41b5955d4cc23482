#!/usr/bin/env python3
"""A fingerprint of every parity case's outputs, bit for bit, in the four combinations the host
emulation runs: the cpu and the cuda launch plan, each with the kernels in their host and their GPU
form. A refactor that must not change results (issue 31's families, a moved let) compares the
fingerprints of the old and the new head:

    python scripts/parity_hashes.py --out /tmp/before.json        # at the old head
    python scripts/parity_hashes.py --compare /tmp/before.json    # at the new one: exit 1 if any differs

Cases are scripts/gpu_parity.py's (seed 0), outputs poisoned with NaN before each call; a case whose
call raises is recorded by its error's type, so an op that starts or stops failing also differs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

PROJECT = Path(__file__).resolve().parent.parent
for _folder in (PROJECT, PROJECT / "scripts"):
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))

os.environ.setdefault("OPGEN_POISON_OUTPUTS", "1")

import gpu_parity  # noqa: E402

from codegen.runtime import host  # noqa: E402
from codegen.runtime.arrays import to_host  # noqa: E402
from codegen.runtime.scope import Scope  # noqa: E402
from codegen.warmup import generated_ops  # noqa: E402


@contextmanager
def gpu_form() -> Iterator[None]:
    """The cpu backend's modules built with `OPGEN_GPU_FORM` (as tests/test_parity_coverage.py does)."""
    load = host.load_module

    def gpu_form_module(text: str, *args: Any, **kwargs: Any) -> Any:
        return load("#define OPGEN_GPU_FORM 1\n" + text, *args, **kwargs)

    host.load_module = gpu_form_module  # type: ignore[assignment]
    try:
        yield
    finally:
        host.load_module = load  # type: ignore[assignment]


def digest(value: Any) -> str:
    """sha256 over an op's outputs: each array's dtype, shape and bytes, in order (None as a mark)."""
    h = hashlib.sha256()

    def add(v: Any) -> None:
        if v is None:
            h.update(b"<none>")
        elif isinstance(v, (list, tuple)):
            h.update(f"<{len(v)}>".encode())
            for item in v:
                add(item)
        else:
            a = np.ascontiguousarray(to_host(v))
            h.update(f"{a.dtype.str}{a.shape}".encode())
            h.update(a.tobytes())

    add(list(value) if isinstance(value, tuple) else value)
    return h.hexdigest()


COMBINATIONS: dict[str, tuple[str, bool]] = {
    "cpu-plan/host-form": ("cpu", False),
    "cuda-plan/host-form": ("cuda", False),
    "cpu-plan/gpu-form": ("cpu", True),
    "cuda-plan/gpu-form": ("cuda", True),
}


def fingerprints(ops: list[str] | None, progress: Callable[[str], None]) -> dict[str, str]:
    out: dict[str, str] = {}
    chosen = [op for op in generated_ops() if ops is None or op.name in ops]
    for name, (plan, gpu) in COMBINATIONS.items():
        with gpu_form() if gpu else _nothing():
            scope = Scope("cpu", launch_plan=plan)  # a fresh backend: its own modules
            for op, case in gpu_parity.all_cases(chosen):
                if case is None:
                    continue
                key = f"{op.name} [{case.label}] {name}"
                try:
                    result = gpu_parity.run_case(op, case, scope)
                    out[key] = digest(_without(result, case.fresh))
                except Exception as exc:  # noqa: BLE001 (recorded: a case that starts failing differs)
                    out[key] = f"error {type(exc).__name__}"
        progress(f"{name}: {sum(k.endswith(name) for k in out)} cases")
    return out


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def _without(result: Any, fresh: tuple[str, ...]) -> Any:
    """The outputs that are the same from call to call (Batch's fresh ids left out)."""
    if fresh and hasattr(result, "_fields"):
        return [getattr(result, f) for f in result._fields if f not in fresh]
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ops", nargs="*", help="only these ops")
    p.add_argument("--out", type=Path, help="write the fingerprints here (JSON)")
    p.add_argument("--compare", type=Path, help="compare with fingerprints written before; exit 1 if any differs")
    args = p.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        found = fingerprints(args.ops, lambda line: print(line, flush=True))
    if args.out:
        args.out.write_text(json.dumps(found, indent=0, sort_keys=True) + "\n")
    if args.compare:
        before = json.loads(args.compare.read_text())
        if args.ops:
            before = {k: v for k, v in before.items() if k.split(" [")[0] in args.ops}
        changed = sorted(k for k in before.keys() & found.keys() if before[k] != found[k])
        gone, new = sorted(before.keys() - found.keys()), sorted(found.keys() - before.keys())
        for label, keys in (("differs", changed), ("missing now", gone), ("new", new)):
            for k in keys:
                print(f"{label}: {k}")
        print(f"{len(before.keys() & found.keys()) - len(changed)} identical, {len(changed)} differ, "
              f"{len(gone)} missing, {len(new)} new")
        return 1 if changed or gone else 0
    print(f"{len(found)} fingerprints")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
