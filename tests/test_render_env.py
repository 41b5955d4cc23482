"""codegen/render.py make_env: the templates call the generator through a listed set of functions
(TEMPLATE_FUNCTIONS), never through a whole module, so the generator's call graph is visible."""

from __future__ import annotations

import inspect
from pathlib import Path

import jinja2
from jinja2 import meta, nodes

from codegen import render

TEMPLATES = Path(render.__file__).resolve().parent / "templates"


def _called_names(source: str, env: jinja2.Environment) -> tuple[set[str], set[str]]:
    """(the bare names a template calls, the names it reads from its context or the globals)."""
    tree = env.parse(source)
    called = {c.node.name for c in tree.find_all(nodes.Call) if isinstance(c.node, nodes.Name)}
    return called, meta.find_undeclared_variables(tree)


def test_every_function_a_template_calls_is_listed() -> None:
    env = render.make_env([TEMPLATES])
    assert not [name for name, value in env.globals.items() if inspect.ismodule(value)]  # no whole module
    unlisted: list[str] = []
    for path in sorted(TEMPLATES.rglob("*.j2")):
        source = path.read_text(encoding="utf-8")
        called, undeclared = _called_names(source, env)
        unlisted += [f"{path.relative_to(TEMPLATES)}: {name}" for name in sorted(called & undeclared)
                     if name not in env.globals]
    assert unlisted == []
    assert set(render.TEMPLATE_FUNCTIONS) <= set(env.globals)


def test_the_check_finds_a_call_of_a_function_that_is_not_listed() -> None:
    env = render.make_env([TEMPLATES])
    called, undeclared = _called_names("{% macro m(x) %}{{ x }}{% endmacro %}{{ m(1) }}{{ unknown_helper(op) }}",
                                       env)
    assert called & undeclared == {"unknown_helper"}  # (the template's own macro is declared)
