"""codegen/lower.py: the one decision of every op's kernel ABI and launch plan.

Checked against what reaches the compilers and the runtime: the manifest each generated .cu
carries (written from the IR) and the entry points the host backend's own C++ scan finds in that
source (an independent reading), and the plan's slots against the op's tensors."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from codegen import lower, naming
from codegen.load import load_specs
from codegen.runtime import manifest
from codegen.runtime.host import scan_kernels

ROOT = Path(__file__).resolve().parents[1]
SPECS = load_specs(ROOT / "specs")
KERNEL_OPS = [op for op in SPECS if op.kernel is not None]


def _source(op) -> str:
    module = importlib.import_module(f"generated.{op.group}.{op.snake_name}")
    return module._KERNELS.text


@pytest.mark.parametrize("op", KERNEL_OPS, ids=lambda op: op.name)
def test_entry_points_are_what_the_compiled_source_declares(op) -> None:
    lowered = lower.lower(op, SPECS.activations.slots)
    text = _source(op)
    # (the module a forward op shares with its gradient holds both ops' entry points: this op's are its own)
    scanned = {k.name: k for k in scan_kernels(text.rpartition(manifest.MARKER)[0])
               if naming.symbol_op(k.name) == op.name}
    assert [e.symbol for e in lowered.entry_points] == list(scanned), op.name
    for entry in lowered.entry_points:
        assert tuple(p.name for p in entry.params) == scanned[entry.symbol].param_names, entry.symbol
        assert (entry.launch_bounds or 1024) == scanned[entry.symbol].max_threads
        # every parameter is handed to the device function exactly once, in order
        assert [p for a in entry.args for p in a.params] == list(entry.params)
        assert entry.symbol == naming.kernel_symbol(op.name, entry.kernel, entry.dtypes)
    stated = manifest.parse(text)
    assert [(k.name, k.params) for k in stated.kernels if naming.symbol_op(k.name) == op.name] == [
        (e.symbol, tuple((p.ctype, p.name) for p in e.params)) for e in lowered.entry_points]


@pytest.mark.parametrize("op", KERNEL_OPS, ids=lambda op: op.name)
def test_plan_slots_are_the_ops_tensors_and_roles_match(op) -> None:
    lowered = lower.lower(op, SPECS.activations.slots)
    assert op.kernel is not None
    tensors = {a.name for a in op.inputs} | {o.name for o in op.outputs} | {b.name for b in op.kernel.scratch}
    assert set(lowered.plan.slots) <= tensors
    launched = {s.kernel for s in lower.walk(lowered.plan.steps) if isinstance(s, lower.Launch)}
    assert launched == {e.kernel for e in lowered.entry_points}
    inputs = {a.name for a in op.inputs}
    for entry in lowered.entry_points:
        for p in entry.params:
            if p.role == lower.Role.INPUT:
                assert p.ctype.startswith("const ") and p.pointer and p.spec_name in inputs
            elif p.role in (lower.Role.OUTPUT, lower.Role.SCRATCH):
                assert not p.ctype.startswith("const ") and p.pointer
            else:
                assert not p.pointer and p.py_ctor is not None


def test_a_launch_steps_arguments_lower_to_slots_scalars_and_activations() -> None:
    op = next(o for o in SPECS if o.name == "DmlRnn")
    plan = lower.lower(op, SPECS.activations.slots).plan
    kinds = {type(a) for s in lower.walk(plan.steps) if isinstance(s, lower.Launch) for a in s.args}
    assert {lower.Buffer, lower.Scalar, lower.ActivationArg} <= kinds
    rnn = next(o for o in SPECS if o.name == "CudnnRNNV3")
    plan = lower.lower(rnn, SPECS.activations.slots).plan
    assert any(isinstance(s, lower.Repeat) for s in plan.steps)
    assert any(isinstance(s, lower.Gemm) for s in lower.walk(plan.steps))
    floats = [a for s in lower.walk(plan.steps) if isinstance(s, lower.Launch) for a in s.args
              if isinstance(a, lower.Scalar) and a.name == "dropout"]
    assert floats and all(a.double_when == ("T",) for a in floats)  # float64 specializations take it as a double


def test_param_descriptions_name_the_spec() -> None:
    p = lower.Param("acts_1", lower.Role.LIST_ELEMENT, "long long", "_np.int64", "acts")
    assert p.what() == "attr acts (element 1)"
    assert lower.Param("x", lower.Role.INPUT, "const float* __restrict__", None, "x").what() == "input x"
    assert lower.Param("n_count", lower.Role.LIST_COUNT, "long long", "_np.int64", "n").what() == (
        "the length of list input n")
    assert lower.Param("N", lower.Role.DIM, "long long", "_np.int64", "N").what() == "dim N"


@pytest.mark.parametrize("op", KERNEL_OPS, ids=lambda op: op.name)
def test_the_plan_launches_the_entry_points_it_carries(op) -> None:
    """The symbol rule is applied once, to the entry points: the wrapper's plan carries their
    symbols by kernel and dtypes, and every launch step names a kernel of that table."""
    module = importlib.import_module(f"generated.{op.group}.{op.snake_name}")
    lowered = lower.lower(op, SPECS.activations.slots)
    assert module._PLAN.symbols == lowered.symbols
    assert module._PLAN.symbols == {e.kernel: {d.dtypes: d.symbol for d in lowered.entries_of(e.kernel)}
                                    for e in lowered.entry_points}

    def kernels(steps) -> set[str]:  # type: ignore[no-untyped-def]
        found = set()
        for s in steps:
            if s[0] == "launch":
                found.add(s[1])
            elif s[0] == "repeat":
                found |= kernels(s[4])
        return found

    assert kernels(module._PLAN.steps) <= set(lowered.symbols)


def test_only_runtime_kernels_spells_the_symbol_rule() -> None:
    """`Op__kernel__dtype` is written in runtime/kernels.py only (kernel_symbol, symbol_parts): no
    other module of the generator or the runtime joins or splits names at "__" (the printed loop and
    runtime/plan.py look symbols up)."""
    import ast

    package = Path(lower.__file__).resolve().parent
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in ("__", " + '__' + ") \
                    and path.relative_to(package).as_posix() != "runtime/kernels.py":
                found.append(f"{path.relative_to(package)}:{node.lineno}")
    assert found == []
