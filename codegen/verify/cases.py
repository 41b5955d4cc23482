"""Where an op's parity cases come from and how one runs: opgen's hand-written builders
(codegen/verify/builders.py, package `generated` only), else the cases derived from its spec
(codegen/inputs.py); `run_case` runs one in a scope, a misaligned NumPy input kept misaligned on a
device."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from codegen.inputs import Case, NotDerivable, derive_cases
from codegen.load import SpecSet, load_specs
from codegen.project import OPGEN_HOME
from codegen.runtime.launches import ALIGNMENT, data_address
from codegen.warmup import GeneratedOp

Builder = Callable[[np.random.Generator], list[Case]]
SPECS = OPGEN_HOME / "specs"  # opgen's own ops' specs (a checkout's; the wheel has none)


def misaligned(a: np.ndarray) -> np.ndarray:
    """A C-contiguous copy of `a` whose data starts one element past a 16-byte boundary: an input
    that takes the kernels' scalar paths where a vector access (load4/store4's float4) needs
    alignment. The wrappers take such a view as it is (it is C-contiguous); run_case makes the same
    offset on the device."""
    flat = np.empty(a.size + ALIGNMENT, a.dtype)
    start = (-(data_address(flat) or 0) % ALIGNMENT) // a.itemsize + 1
    view = flat[start:start + a.size].reshape(a.shape)
    view[...] = a
    return view


def maybe_misaligned(a: np.ndarray, yes: bool) -> np.ndarray:
    return misaligned(a) if yes and a.size else a


@functools.cache
def spec_set(root: Path) -> SpecSet:
    """The spec folder `root` loaded, once per process."""
    return load_specs(root)


def derived_cases(op: GeneratedOp, rng: np.random.Generator, specs: Path = SPECS) -> list[Case]:
    """The cases codegen/inputs.py derives from the op's spec under `specs`; NotDerivable says why
    there are none."""
    if not specs.is_dir():
        raise NotDerivable(op.name, f"no spec folder {specs}")
    specs_here = spec_set(specs)
    spec = next((s for s in specs_here if s.name == op.name), None)
    if spec is None:
        raise NotDerivable(op.name, f"no spec of that name under {specs.name}/")
    return derive_cases(spec, rng, specs_here.activations.names)


def _rng(op: GeneratedOp, seed: int) -> np.random.Generator:
    return np.random.default_rng([seed, sum(map(ord, op.name))])


def builders_for(op: GeneratedOp) -> Mapping[str, Builder]:
    """The hand-written builders that apply to `op`: opgen's own (codegen/verify/builders.py) for the
    package `generated`, none for another package's."""
    if op.module.__name__.split(".")[0] != "generated":
        return {}
    from codegen.verify.builders import BUILDERS  # (the builders import this module)

    return BUILDERS


def all_cases(ops: list[GeneratedOp], seed: int = 0, specs: Path = SPECS) -> Iterator[tuple[GeneratedOp, Case | None]]:
    """(op, case) for every case of every op: its hand-written builder's, else those derived from
    its spec (neither with `replace: true` in its cases file), then its cases file's
    (codegen/verify/case_files.py); (op, None) for an op with none (missing_builder_message says why)."""
    from codegen.verify.case_files import project_cases  # (it imports this module)

    extras = project_cases(specs, seed) if specs.is_dir() else {}
    for op in ops:
        extra = extras.get(op.name)
        build = builders_for(op).get(op.name)
        cases = list(extra.cases) if extra is not None else []
        if extra is None or not extra.replace:
            try:
                cases[:0] = build(_rng(op, seed)) if build is not None else derived_cases(op, _rng(op, seed), specs)
            except NotDerivable:
                pass
        if not cases:
            yield op, None
        for case in cases:
            yield op, case


def missing_builder_message(op: GeneratedOp, specs: Path = SPECS) -> str:
    try:
        derived_cases(op, _rng(op, 0), specs)
        why = "its spec gives cases"
    except NotDerivable as exc:
        why = exc.reason
    if not builders_for(op) and op.module.__name__.split(".")[0] != "generated":
        where = (f"give it a cases file, <group>/{op.function_name}.cases.yaml beside its spec (docs/specs.md, "
                 f"\"Testing your op\")")
    else:
        where = f"register one in codegen/verify/builders.py (@builder({op.name!r}))"
    return (f"no input builder for op {op.name}, and none derived from its spec ({why}): {where} so that parity "
            f"and the sanitizer runs cover it")


def run_case(op: GeneratedOp, case: Case, scope: Any) -> Any:
    """The op on the case's inputs in `scope`; an input that is a misaligned view (misaligned())
    is passed to a device backend as a view with the same offset from a 16-byte boundary (a NumPy
    input would be copied to fresh, aligned device memory)."""
    from codegen.runtime.cpu import CpuBackend
    from codegen.runtime.scope import backend_of

    backend = backend_of(scope, op.name)
    if isinstance(backend, CpuBackend):
        return op.function(*case.args, **case.kwargs, scope=scope)
    args = tuple(_on_device(a, backend) for a in case.args)
    kwargs = {k: _on_device(v, backend) for k, v in case.kwargs.items()}
    return op.function(*args, **kwargs, scope=scope)


def _on_device(value: Any, backend: Any) -> Any:
    """A misaligned NumPy input as a device view at the same offset from a 16-byte boundary; any
    other value as it is (the wrapper adopts it)."""
    if isinstance(value, list):
        return [_on_device(v, backend) for v in value]
    if not isinstance(value, np.ndarray) or not value.size or not (data_address(value) or 0) % ALIGNMENT:
        return value
    offset = (data_address(value) or 0) % ALIGNMENT
    flat = backend.empty((value.size + ALIGNMENT,), value.dtype.name)
    start = (offset - (data_address(flat) or 0)) % ALIGNMENT // value.itemsize
    view = flat[start:start + value.size].reshape(value.shape)
    bits = np.dtype(f"uint{8 * value.itemsize}")  # copied as bits: no dtype-specific copy on the device
    view.view(bits)[...] = backend.adopt("gpu_parity", "misaligned input", value.view(bits))
    return view
