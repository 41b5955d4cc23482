"""Spec → model → text → model gives the same model (codegen/spec_print.py): every spec of specs/,
and random small specs; a printer that drops something is caught."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen import spec_print
from codegen.load import load_spec, load_specs
from codegen.model import ActivationLibrary, OpSpec
from codegen.spec_print import print_spec, same_meaning, without_locs
from codegen.vocab import builtin_activations
from codegen.yamlnodes import SpecError

SPECS = Path(__file__).resolve().parent.parent / "specs"


def reload(op: OpSpec, text: str, root: Path = SPECS, library: ActivationLibrary | None = None) -> OpSpec:
    """The model of `text`, read as the spec file `op` came from."""
    return load_spec(root / op.source, root, library, text=text)


@pytest.fixture(scope="module")
def spec_set() -> Any:
    return load_specs(SPECS)


def test_every_spec_round_trips(spec_set: Any) -> None:
    assert len(spec_set) >= 19
    for op in spec_set:
        text = print_spec(op)
        again = reload(op, text, library=spec_set.activations)
        assert same_meaning(op, again), op.name
        assert print_spec(again) == text, f"{op.name}: printing is not stable"


def test_same_meaning_ignores_only_locations(spec_set: Any) -> None:
    op = spec_set[0]
    assert without_locs(op) != op  # the locations were replaced ...
    moved = reload(op, "\n\n" + print_spec(op), library=spec_set.activations)
    assert moved.loc != op.loc and same_meaning(op, moved)  # ... so two lines lower is the same spec
    assert not same_meaning(op, spec_set[1])


def test_a_dropped_default_in_the_text_is_caught(spec_set: Any) -> None:
    """Mutating the printer's output (an attr's default line removed) changes the model, and the
    comparison sees it."""
    caught = 0
    for op in spec_set:
        text = print_spec(op)
        lines = text.splitlines(keepends=True)
        for i, line in enumerate(lines):
            if re.match(r"\s+default: \S", line) and not line.rstrip().endswith(":"):
                mutated = "".join(lines[:i] + lines[i + 1:])
                assert not same_meaning(op, reload(op, mutated, library=spec_set.activations)), op.name
                caught += 1
                break
    assert caught >= 5


def test_a_printer_that_drops_defaults_fails_the_round_trip(spec_set: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The planted bug: `_attr` forgets `default:`. The round-trip check of specs/ fails for every
    op with an optional attr of its own (and only for those: a family member's shared attrs are in its family
    file, which the printer does not write)."""
    honest = spec_print._attr

    def forgetful(attr: Any) -> dict[str, Any]:
        data = honest(attr)
        data.pop("default", None)
        return data

    monkeypatch.setattr(spec_print, "_attr", forgetful)
    for op in spec_set:
        differs = not same_meaning(op, reload(op, print_spec(op), library=spec_set.activations))
        assert differs == bool(op.own(op.optional_attrs)), op.name


# -- random specs ----------------------------------------------------------------------------------
FLOATS = ["float16", "bfloat16", "float32", "float64"]
DTYPES = [*FLOATS, "int8", "uint8", "int32", "uint32", "int64", "uint64", "bool"]
#: text that YAML must quote or block (colons, hashes, quotes, leading dashes, non-ASCII)
texts = st.text(st.sampled_from(list("abc XYZ:#'\"-[]{}!&*,.?|>%@`μ·−\\")), min_size=1, max_size=30).filter(
    lambda t: t.strip() != "")
paragraphs = st.lists(texts, min_size=1, max_size=4).map("\n".join)


@st.composite
def attr_decls(draw: st.DrawFn) -> list[dict[str, Any]]:
    attrs: list[dict[str, Any]] = []
    if draw(st.booleans()):
        a: dict[str, Any] = {"name": "k", "type": "int"}
        lo = draw(st.none() | st.integers(-5, 5))
        if lo is not None:
            a["above" if draw(st.booleans()) else "min"] = lo
        if draw(st.booleans()):
            a["max"] = 100
        if draw(st.booleans()):
            a["default"] = 50
        attrs.append(a)
    if draw(st.booleans()):
        a = {"name": "eps", "type": "float", "doc": draw(texts)}
        if draw(st.booleans()):
            a["above"] = 0
        a["default"] = draw(st.floats(1e-9, 10.0))
        attrs.append(a)
    if draw(st.booleans()):
        attrs.append({"name": "flag", "type": "bool", "default": draw(st.booleans())})
    attrs.append({"name": "layout", "type": "enum", "values": ["ROWS", "COLS"], "default": draw(
        st.sampled_from(["ROWS", "COLS"]))})
    if draw(st.booleans()):
        a = {"name": "label", "type": "string", "default": draw(texts).strip().replace("\n", " ")}
        attrs.append(a)
    if draw(st.booleans()):
        attrs.append({"name": "sizes", "type": "list(int)", "default": draw(st.lists(st.integers(0, 9), max_size=3))})
    if draw(st.booleans()):
        allowed = draw(st.lists(st.sampled_from(DTYPES), min_size=1, max_size=3, unique=True))
        attrs.append({"name": "out_type", "type": "type", "allowed": allowed, "default": allowed[0]})
    if draw(st.booleans()):
        act: Any = draw(st.sampled_from(["tanh", "relu", {"name": "leaky_relu", "alpha": 0.25}]))
        attrs.append({"name": "act", "type": "activation", "default": act})
    return attrs


@st.composite
def spec_texts(draw: st.DrawFn) -> str:
    spec: dict[str, Any] = {"op": "RandOp", "summary": draw(texts).replace("\n", " ")}
    if draw(st.booleans()):
        spec["description"] = draw(paragraphs)
    spec["type_vars"] = {"T": {"allowed": draw(st.lists(st.sampled_from(FLOATS), min_size=1, max_size=3,
                                                         unique=True))},
                         "S": {"accumulates": "T", "doc": "accumulator"}}
    attrs = draw(attr_decls())
    spec["attrs"] = attrs
    names = {a["name"] for a in attrs}
    switched = draw(st.booleans())
    x_shape: Any = {"by": "layout", "ROWS": "[N, C]", "COLS": "[C, N]"} if switched else \
        draw(st.sampled_from(["[N, C]", "[*lead, N, C]", "[N, 2*C + 1]"]))
    inputs: list[dict[str, Any]] = [{"name": "x", "dtype": "T", "shape": x_shape, "doc": draw(texts)}]
    if draw(st.booleans()):
        inputs.append({"name": "scale", "dtype": "T", "shape": "[C]", "optional": True})
    if draw(st.booleans()):
        inputs.append({"name": "index", "dtype": draw(st.sampled_from(["int32", "int64"])), "shape": "[N]",
                       "values": {"min": 0, "max": "C - 1"}, "accepts_dtypes": ["uint8"]})
    spec["inputs"] = inputs
    spec["let"] = {"rows": "N", "threads": {"by": "backend", "cpu": 1, "cuda": "min(1024, 32*ceildiv(C, 32))"}}
    outputs: list[dict[str, Any]] = [{"name": "y", "dtype": "T", "shape": "[N, C]"}]
    if draw(st.booleans()):
        outputs.append({"name": "total", "dtype": "S", "shape": "[N]", "doc": draw(texts)})
    if "out_type" in names and draw(st.booleans()):
        outputs.append({"name": "cast", "dtype": "out_type", "shape": "[N, C]"})
    if "flag" in names and draw(st.booleans()):
        outputs.append({"name": "maybe", "dtype": "float32", "shape": "[N]", "when": {"flag": True}})
    spec["outputs"] = outputs
    where: list[Any] = []
    if draw(st.booleans()):
        where.append("N >= 1")
    if draw(st.booleans()):
        where.append({"check": "C <= 4096", "message": draw(texts).replace("\n", " ")})
    if "k" in names and draw(st.booleans()):
        where.append({"check": "k  <  C+1", "when": {"layout": "COLS"}})
    if where:
        spec["where"] = where
    specialize = ["T"] + (["out_type"] if any(o["name"] == "cast" for o in outputs) else [])
    step: dict[str, Any] = {"kernel": "rand_kernel", "grid": ["ceildiv(rows, 4)"], "block": ["threads"],
                            "args": ["x", "y", "rows", "C"]}
    if draw(st.booleans()):
        step["when"] = draw(st.sampled_from([{"layout": "ROWS"}, "N > 0", [{"backend": "cpu"}, "C >= 2"]]))
    if draw(st.booleans()):
        step["shared_bytes"] = "4 * threads"
    steps: list[Any] = [step]
    if draw(st.booleans()):
        inner = {"kernel": "rand_loop", "grid": [1], "block": [32], "args": ["y", "i", "j"]}
        steps.append({"repeat": {"var": "i", "count": "C", "let": {"j": "C - 1 - i"}, "steps": [inner]},
                      "when": "C > 1"})
    kernel: dict[str, Any] = {"source": "g/rand_op.cu", "specialize": specialize, "launch": steps}
    if draw(st.booleans()):
        kernel["scratch"] = [{"name": "partial", "dtype": "T", "shape": "[rows]"}]
        steps.append({"gemm": {"a": "x", "b": "y", "out": "partial", "m": "rows", "n": 1, "k": "C",
                               "trans_b": draw(st.booleans()), "beta": draw(st.sampled_from([0, 1]))}})
    spec["kernel"] = kernel
    if draw(st.booleans()):
        spec["examples"] = [draw(paragraphs)]
    if draw(st.booleans()):
        spec["torch"] = draw(st.sampled_from([False, {"register": False, "reason": "not yet"}]))
    if draw(st.booleans()):
        spec["deprecated"] = draw(texts).replace("\n", " ")
    return yaml.safe_dump(spec, sort_keys=False, allow_unicode=True)


RANDOM_ROOT = Path("specs")
RANDOM_PATH = RANDOM_ROOT / "g" / "rand_op.yaml"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec_texts())
def test_random_specs_round_trip(text: str) -> None:
    library = builtin_activations()
    op = load_spec(RANDOM_PATH, RANDOM_ROOT, library, text=text)  # (every generated spec is valid)
    printed = print_spec(op)
    again = load_spec(RANDOM_PATH, RANDOM_ROOT, library, text=printed)
    assert same_meaning(op, again), printed
    assert print_spec(again) == printed


def test_the_random_specs_are_valid_and_varied() -> None:
    """The generator's specs load (a SpecError there is a generator bug, not a printer's) and
    reach the features the printer must handle."""
    library = builtin_activations()
    seen: set[str] = set()

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(spec_texts())
    def collect(text: str) -> None:
        try:
            op = load_spec(RANDOM_PATH, RANDOM_ROOT, library, text=text)
        except SpecError as exc:  # pragma: no cover - shown when it happens
            raise AssertionError(f"{exc}\n{text}") from None
        seen.update(a.type for a in op.attrs)
        seen.update(type(s).__name__ for s in op.walk_steps())
        seen.update("switch" for i in op.inputs if i.shape is not None and i.shape.by is not None)

    collect()
    assert {"int", "float", "enum", "LaunchStep", "RepeatStep", "GemmStep", "switch"} <= seen
