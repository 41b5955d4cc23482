"""codegen.runtime.cxx: the C++ tokenizer and preprocessor under kernel_check, index_width and the
host backend's kernel scan. Each expected value is worked out by hand from C's rules."""

from __future__ import annotations

import pytest

from codegen.runtime import cxx


def _texts(source: str, pp: cxx.Preprocessed | None = None) -> list[str]:
    return [t.text for t in cxx.tokenize(source, pp=pp)]


@pytest.mark.parametrize("expression, value", [
    ("7 / 2", 3),
    ("-7 / 2", -3),  # C truncates toward zero (Python's // would give -4)
    ("-7 % 2", -1),
    ("1 << 4 >> 2", 4),
    ("2 + 3 * 4", 14),
    ("(2 + 3) * 4", 20),
    ("1 ? 2 : 3", 2),
    ("0 ? 2 : 1 ? 3 : 4", 3),
    ("5 > 3 && 2 >= 2", 1),
    ("!1 || ~0 == -1", 1),
    ("0x10 | 0b11 ^ 010", 16 | (3 ^ 8)),
    ("128u", 128),
    ("1'000", 1000),
])
def test_integer_expressions(expression, value):
    assert cxx.evaluate(_texts(expression)) == value


@pytest.mark.parametrize("expression", [
    "N",  # a name nothing defines
    "N * 2",
    "1 / 0",
    "sizeof(float)",
    "2.5",
    "1 +",
])
def test_what_cannot_be_evaluated_is_none(expression):
    assert cxx.evaluate(_texts(expression)) is None


def test_unknowns_that_do_not_matter_do_not_spread():
    assert cxx.evaluate(_texts("0 && N")) == 0
    assert cxx.evaluate(_texts("1 || N")) == 1
    assert cxx.evaluate(_texts("N ? 4 : 4")) == 4


def test_macros_expand_in_expressions_and_defined_is_an_operator_in_conditions():
    pp = cxx.Preprocessed(macros={"LB": "128", "TWICE": "(2 * LB)"})
    assert cxx.evaluate(_texts("TWICE + 1"), pp) == 257
    assert cxx.evaluate(_texts("defined(LB) && !defined OTHER"), pp, conditional=True) is None  # OTHER unknown
    pp.undefined.add("OTHER")
    assert cxx.evaluate(_texts("defined(LB) && !defined OTHER"), pp, conditional=True) == 1


def test_tokens_keep_their_physical_lines_across_directives_and_dead_branches():
    source = "int a;\n#if 0\nint b;\n#endif\n/* two\nlines */ int c;\n"
    assert [(t.text, t.line) for t in cxx.tokenize(source)] == [("int", 1), ("a", 1), (";", 1), ("int", 6),
                                                               ("c", 6), (";", 6)]


def test_preprocessed_records_macros_and_function_macros():
    pp = cxx.Preprocessed()
    _texts("#define A 1 // note\n#define F(x) helper(x)\n#if A\n#undef A\n#endif\n", pp)
    assert "A" not in pp.macros and "A" in pp.undefined
    assert pp.function_macros == {"F"} and "helper" in pp.macro_words


def test_self_referential_macro_stops():
    pp = cxx.Preprocessed(macros={"X": "X + 1"})
    assert _texts("X", pp) == ["X", "+", "1"]


@pytest.mark.parametrize("second, expected", [
    ("1", ["a", "b"]),  # #elif 1 is taken if #if was not: #else is off
    ("0", ["a", "c"]),  # #elif 0 is off; #else is taken if #if was not
])
def test_branches_after_an_unknown_if(second, expected):
    source = f"#if UNKNOWN\nint a;\n#elif {second}\nint b;\n#else\nint c;\n#endif\n"
    assert [w for w in _texts(source) if w not in ("int", ";")] == expected



def _closes_agree(text: str) -> None:
    tokens = cxx.tokenize(text)
    expected = {k: cxx.match(tokens, k, t.text, {"(": ")", "[": "]", "{": "}"}[t.text])
                for k, t in enumerate(tokens) if t.text in ("(", "[", "{")}
    assert cxx.closes(tokens) == expected


@pytest.mark.parametrize("source", [
    "void f() { if (a[i]) { g(b[(j)]); } }",
    "#ifdef X\nvoid f() {\n#else\nvoid f(int) {\n#endif\n  h(); }",  # unknown #if: both branches read
    "}) ] { ( [ x ) } ( a",  # stray closers, unclosed openers
])
def test_closes_is_match_for_every_bracket(source: str) -> None:
    """closes (one pass, for kernel_check's scanner) finds for each bracket what match finds walking."""
    _closes_agree(source)


def test_closes_is_match_in_the_generated_kernels() -> None:
    from pathlib import Path

    for path in sorted((Path(__file__).resolve().parent.parent / "generated").rglob("*.cu"))[:4]:
        _closes_agree(path.read_text())
