"""Conditions in the spec language (docs/specs.md, "Conditions"): `and`/`or`/`not` in the one parser
(shapes.py), typed against the op (codegen/conditions.py), evaluated by runtime/plan.py's one
evaluator on both sides of the wall; launch variants (`variants:`, first match wins, `otherwise`
required) and tunable parameters (`params:`); the recording keeps which variant ran."""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from test_spec_conditions import FLAG
from test_spec_errors import BASE, check, line_of, load_error, replace_once, with_kernel, write_spec

from codegen import lower, plan_data, pygen, shapes, spec_print
from codegen.load import load_specs
from codegen.runtime import plan

ATTRS = FLAG + """\
  - name: depth
    type: int
    default: 2
    doc: A count.
"""


def spec(extra: str = "", when: str | None = None, args: str = "[x, y, N, C, alpha]") -> str:
    """BASE with bool/enum/int attrs and a kernel whose one step has `when` and `args`; `extra`
    goes before outputs (params:, variants:, let:)."""
    text = with_kernel(replace_once(BASE, "attrs:\n", "attrs:\n" + ATTRS))
    text = replace_once(text, "outputs:", extra + "outputs:")
    text = replace_once(text, "      args: [x, y, N, C, alpha]\n", f"      args: {args}\n")
    return text + (f"      when: {when}\n" if when is not None else "")


def load(tmp_path: Path, text: str) -> Any:
    root = tmp_path / "specs"
    write_spec(root, text)
    return load_specs(root)[0]


# -- the parser ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "tree"), [
    ("a or b and c", shapes.Logic("or", (shapes.Sym("a"), shapes.Logic("and", (shapes.Sym("b"), shapes.Sym("c")))))),
    ("(a or b) and c", shapes.Logic("and", (shapes.Logic("or", (shapes.Sym("a"), shapes.Sym("b"))), shapes.Sym("c")))),
    ("not a == 1", shapes.Not(shapes.BinOp("==", shapes.Sym("a"), shapes.Num(1)))),
    ("not a and b", shapes.Logic("and", (shapes.Not(shapes.Sym("a")), shapes.Sym("b")))),
    ("a + 1 < b * 2 or c", shapes.Logic("or", (
        shapes.BinOp("<", shapes.BinOp("+", shapes.Sym("a"), shapes.Num(1)),
                     shapes.BinOp("*", shapes.Sym("b"), shapes.Num(2))), shapes.Sym("c")))),
    ("a and b and c", shapes.Logic("and", (shapes.Sym("a"), shapes.Sym("b"), shapes.Sym("c")))),
])
def test_precedence_or_and_not_comparison_arithmetic(text: str, tree: shapes.Expr) -> None:
    assert shapes.parse_condition(text) == tree
    assert shapes.parse_condition(shapes.to_text(tree)) == tree  # the printer's parentheses round-trip


@pytest.mark.parametrize(("text", "column", "fragment"), [
    ("a and", 6, "expected a number, a symbol or '('"),
    ("(a or b", 1, "unclosed '('"),
    ("a < b < c", 7, "comparisons do not chain"),
    ("a or or b", 6, "'or' is a condition operator"),
])
def test_parser_refusals_name_the_column(text: str, column: int, fragment: str) -> None:
    with pytest.raises(shapes.ShapeSyntaxError) as info:
        shapes.parse_condition(text)
    assert info.value.column == column and fragment in info.value.message


def test_dimensions_refuse_the_condition_words() -> None:
    with pytest.raises(shapes.ShapeSyntaxError, match="'and' is a condition operator: not allowed outside"):
        shapes.parse("N and C")
    with pytest.raises(shapes.ShapeSyntaxError, match="'not' is a condition operator"):
        shapes.parse_dim("not N")
    with pytest.raises(ValueError):
        shapes.Sym("or")


# -- typing: each refusal at file:line, naming the op, the key and what was expected ---------------
@pytest.mark.parametrize(("when", "fragment"), [
    ('"T == 3"', "'T' is a type variable, compared with the int 3: expected one of its values written bare "
                 "(float32, float16)"),
    ('"mode == slow"', "'slow' is not a value of 'mode' (fast, exact)"),
    ('"mode < fast"', "only == and != compare it"),
    ('"flag + 1 > 1"', "arithmetic on a bool: 'flag' in 'flag + 1' is true or false"),
    ('"(N > 1 and C > 1) * 2 > 1"', "arithmetic on a bool"),
    ('"N and C"', "'and' expects conditions (comparisons, bool attrs, boolean lets, variants), got the int "
                  "expression 'N'"),
    ('"not depth"', "'not' expects conditions"),
    ('"backend == tpu"', "'tpu' is not a value of 'backend' (cpu, cuda)"),
    ('"mode"', "'mode' is an enum attr: compare it with == or != to one of its values (fast, exact)"),
    ('"N > 1 and Q > 1"', "symbol 'Q' is not bound"),
])
def test_ill_typed_step_conditions(tmp_path: Path, when: str, fragment: str) -> None:
    text = spec(when=when)
    check(load_error(tmp_path, text), line_of(text, "when:"), f"launch step 'scale': when: {when[1:-1]!r}: "
          if "not bound" not in fragment else "launch step 'scale': when")
    check(load_error(tmp_path, text), line_of(text, "when:"), fragment)


def test_ill_typed_let_and_where_conditions(tmp_path: Path) -> None:
    text = spec("let:\n  big: \"N > 4 and T == 2\"\n")
    check(load_error(tmp_path, text), line_of(text, "big:"),
          "let.big: 'N > 4 and T == 2': 'T == 2': 'T' is a type variable")
    text = replace_once(spec(), "outputs:", 'where:\n  - {check: "N >= 1", when: "mode == quick"}\noutputs:')
    check(load_error(tmp_path, text), line_of(text, "quick"),
          "where: when: 'mode == quick': 'quick' is not a value")


def test_well_typed_conditions_load_as_typed_trees(tmp_path: Path) -> None:
    op = load(tmp_path, spec(when='"(mode == exact or not flag) and backend == cuda and T != float16 and N > 1"'))
    (step,) = op.kernel.launch
    assert step.when.test == shapes.Logic("and", (
        shapes.Logic("or", (shapes.Is("mode", "exact"), shapes.Not(shapes.Is("flag", True)))),
        shapes.Is("backend", "cuda"), shapes.Not(shapes.Is("T", "float16")),
        shapes.BinOp(">", shapes.Sym("N"), shapes.Num(1))))
    assert plan_data.condition_literal(step.when) == (
        ("and", ("or", ("attr", "mode", "exact"), ("not", ("attr", "flag", True))), ("backend", "cuda"),
         ("not", ("attr", "T", "float16")), (">", "N", 1)),)
    # a plain comparison keeps today's form (plans of untouched specs print as before)
    op = load(tmp_path, spec(when='"N > 1"'))
    assert op.kernel.launch[0].when.checks == ((shapes.Sym("N"), ">", shapes.Num(1)),)


# -- one evaluator: the printed loop's Python and the plan's literal agree -------------------------
def test_printed_conditions_and_plan_literals_agree(tmp_path: Path) -> None:
    conditions = ['"(mode == exact or not flag) and backend == cuda"', '"not (N > 2 or C == 1) or T == float16"',
                  '"flag and mode != fast and depth*N >= C"', '"not not flag or N < C and C < 3"']
    rng = random.Random(3)
    for when in conditions:
        op = load(tmp_path, spec(when=when))
        cond = op.kernel.launch[0].when
        source = pygen._condition(op, cond)
        literal = plan_data.condition_literal(cond, lambda n: "_dtype_T" if n == "T" else n)
        for _ in range(200):
            env = {"N": rng.randint(0, 5), "C": rng.randint(0, 5), "depth": rng.randint(0, 3),
                   "flag": rng.random() < 0.5, "mode": rng.choice(["fast", "exact"]),
                   "_dtype_T": rng.choice(["float32", "float16"])}
            backend = rng.choice(["cpu", "cuda"])
            printed = eval(source, {}, {**env, "_backend": SimpleNamespace(name=backend)})
            assert bool(printed) == plan.holds(literal, env, backend), (when, env, backend)


def _random_condition(rng: random.Random, depth: int = 0) -> shapes.Expr:
    kind = rng.random()
    if depth > 3 or kind < 0.3:
        return shapes.BinOp(rng.choice(["<", ">=", "==", "!="]), shapes.Sym(rng.choice("abc")),
                            shapes.Num(rng.randint(0, 4)))
    if kind < 0.45:
        return shapes.Not(_random_condition(rng, depth + 1))
    if kind < 0.55:
        return shapes.Is("m", rng.choice(["x", "y"]))
    args = tuple(_random_condition(rng, depth + 1) for _ in range(rng.randint(2, 3)))
    return shapes.Logic(rng.choice(["and", "or"]), args)


def test_condition_literals_evaluate_as_the_printed_python() -> None:
    rng = random.Random(11)
    for _ in range(1000):
        e = _random_condition(rng)
        env = {"a": rng.randint(0, 4), "b": rng.randint(0, 4), "c": rng.randint(0, 4), "m": rng.choice("xy")}
        expected = bool(eval(shapes.to_python(e), {}, dict(env)))
        assert plan.evaluate(plan_data.expression_literal(e), env) == expected, shapes.to_text(e)


# -- boolean lets ----------------------------------------------------------------------------------
def test_boolean_let_is_a_kernel_argument_of_0_or_1(tmp_path: Path) -> None:
    op = load(tmp_path, spec('let:\n  big: "N > 4 and (flag or mode == exact)"\n', args="[x, y, N, C, big]"))
    body = "\n".join(pygen.run_body(op))
    assert "big = N > 4 and (flag or mode == 'exact')" in body
    _, steps = plan_data.encode(op)
    assert steps[0][6][-1] == ("scalar", "_np.int64", "big", None, ())
    p = plan.Plan(op.name, *plan_data.encode(op)[:1], ("x", "y"), steps, lower.lower(op).symbols)
    for big, expected in ((True, 1), (False, 0)):
        values = {"N": 5, "C": 2, "_dtype_T": "float32", "big": big}
        (launch,) = p.record("cpu", tuple(values[n] for n in p.names)).steps
        assert launch.args[-1] == expected and type(launch.args[-1]).__name__ == "int64"


# -- variants and params ---------------------------------------------------------------------------
VARIANTS = """\
params:
  wide_max: {value: 8, doc: The widest row the wide variant takes.}
variants:
  wide:
    when: "backend == cuda and C <= wide_max"
    doc: One launch per row.
  small: {when: "N <= 4", doc: Everything at once.}
  otherwise: steps
let:
  slots: 1 + small*(N - 1)
"""


def test_variants_first_match_wins_exactly_one_true(tmp_path: Path) -> None:
    op = load(tmp_path, spec(VARIANTS, when="small", args="[x, y, N, C, slots]"))
    assert [v.name for v in op.variants.cases] == ["wide", "small"] and op.variants.otherwise == "steps"
    assert [(p.name, p.value) for p in op.params] == [("wide_max", 8)]
    names, steps = plan_data.encode(op)
    assert {"wide", "small", "steps"} <= set(names)  # read by the plan, to record which ran
    p = plan.Plan(op.name, names, ("x", "y"), steps, lower.lower(op).symbols, variants=op.variants.names(),
                  params={"wide_max": 8})
    body = "\n".join(pygen.run_body(op))
    assert "small = not wide and N <= 4" in body and "steps = not wide and not small" in body
    for backend, n, c, expected in (("cuda", 2, 3, "wide"),  # both wide and small hold: the first wins
                                    ("cpu", 2, 3, "small"), ("cuda", 2, 9, "small"), ("cpu", 9, 3, "steps")):
        env: dict[str, Any] = {"N": n, "C": c, "wide_max": 8, "_dtype_T": "float32"}
        for let in op.lets:  # the wrapper's order, by the plan's evaluator
            env[let.name] = plan.evaluate(plan_data.expression_literal(let.value.only()), env, backend)
        assert [v for v in op.variants.names() if env[v]] == [expected]
        rec = p.record(backend, tuple(env[name] for name in names))
        assert rec.variant == expected and rec.launches == (expected == "small")


def test_variant_conditions_and_params_print_and_reload(tmp_path: Path) -> None:
    op = load(tmp_path, spec(VARIANTS, when="small", args="[x, y, N, C, slots]"))
    again = load(tmp_path, spec_print.print_spec(op))
    assert spec_print.same_meaning(op, again)
    assert [v.name for v in again.variants.cases] == ["wide", "small"] and again.lets[-1].name == "slots"


def test_a_variant_list_without_otherwise(tmp_path: Path) -> None:
    text = spec(VARIANTS.replace("  otherwise: steps\n", ""), when="small")
    # (a mapping's line is its first entry's)
    check(load_error(tmp_path, text), line_of(text, "  wide:"), "variants: no 'otherwise: <name>'")


@pytest.mark.parametrize(("old", "new", "needle", "fragment"), [
    ("  otherwise: steps\n", "  otherwise: small\n", "otherwise: small", "'small' is also a variant with a condition"),
    ('"N <= 4"', '"N + 4"', "small:", "variants.small: when: 'N + 4': expected a condition"),
    ('"backend == cuda and C <= wide_max"', '"backend == cuda and C <= wide_maxx"', "wide_maxx",
     "symbol 'wide_maxx' is not bound"),
    ("wide_max: {value: 8,", "wide_max: {value: -8,", "wide_max:", "params.wide_max: value: expected a non-negative"),
    ("  slots: 1 + small*(N - 1)\n", "  small: N\n", "  small: N", "param/variant/let name 'small' is used twice"),
])
def test_variant_and_param_refusals(tmp_path: Path, old: str, new: str, needle: str, fragment: str) -> None:
    text = spec(replace_once(VARIANTS, old, new), when="N > 0")
    check(load_error(tmp_path, text), line_of(text, needle), fragment)


def test_the_cudnn_rule_is_expressible(tmp_path: Path) -> None:
    """CudnnRNNV3's rule (its lead migrates it): an enum test, arithmetic over lets and params."""
    rule = """\
params:
  persistent_max_weights: {value: 65536, doc: The persistent kernel's weights in shared memory.}
  persistent_max_batch: {value: 64, doc: Its rows.}
  fused_max_depth: {value: 128, doc: The fused sums' depth.}
variants:
  persistent:
    when: "backend == cuda and mode == fast and gates*C*N <= persistent_max_weights and N <= persistent_max_batch"
  fused: {when: "backend == cuda and depth*C <= fused_max_depth"}
  otherwise: gemm_steps
let:
  gates: {by: mode, fast: 4, exact: 3}
  gx_slots: 1 + fused*(depth - 1)
"""
    op = load(tmp_path, spec(rule, when="fused or persistent", args="[x, y, N, C, gx_slots]"))
    env: dict[str, Any] = {"N": 2, "C": 8, "depth": 3, "mode": "exact", "flag": True}
    env.update({p.name: p.value for p in op.params})
    for let in op.lets:
        env[let.name] = plan.evaluate(plan_data.expression_literal(let.value.case(env["mode"])), env, "cuda")
    assert (env["persistent"], env["fused"], env["gemm_steps"], env["gx_slots"]) == (False, True, False, 3)


def test_a_step_condition_bounds_its_divisors_only_where_it_must_hold(tmp_path: Path) -> None:
    """`C > 0` in an `and` lets the step divide by C; in an `or` it need not hold, so it does not."""
    grid = 'grid: ["ceildiv(N*C, 256)"]'
    text = replace_once(spec(when='"flag and C > 0"'), grid, 'grid: ["ceildiv(N, C)"]')
    assert load(tmp_path, text).kernel.launch[0].when.test is not None
    text = replace_once(spec(when='"flag or C > 0"'), grid, 'grid: ["ceildiv(N, C)"]')
    check(load_error(tmp_path, text), line_of(text, "kernel: scale"), "ceildiv(N, C) divides by C, which may be 0")


def test_a_where_line_under_a_condition(tmp_path: Path) -> None:
    """The wrapper checks it only when its condition holds (an `or` kept whole before the `and`)."""
    text = replace_once(spec(), "outputs:", 'where:\n  - {check: "N >= 2", when: "flag or mode == exact"}\noutputs:')
    body = "\n".join(pygen.run_body(load(tmp_path, text)))
    assert "if (flag or mode == 'exact') and not (N >= 2):" in body
