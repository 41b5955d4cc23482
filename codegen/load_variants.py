"""Reading `params:` (tunable integer constants), `param_overrides:` (a family member's own values of
its family's params) and `variants:` (named launch variants, first match wins, `otherwise` required)
of a spec; codegen/variants.py turns them into lets."""

from __future__ import annotations

import dataclasses

from codegen.load_base import INT64_MAX, ParserBase
from codegen.model import Param, Variant, Variants
from codegen.yamlnodes import Node, describe


class VariantsParser(ParserBase):
    def _params(self, node: Node | None) -> tuple[Param, ...]:
        if node is None:
            return ()
        if not isinstance(node.value, dict) or not node.value:
            raise self.error(node.line, f"params: expected a mapping of name to {{value: int, doc: text}}, "
                                        f"got {describe(node.value)}")
        out = []
        for name, body in node.value.items():
            self._check_symbol_name(name, body.line, "params")
            r = self.reader(body, f"params.{name}")
            value_node = r.pop("value", required=True)
            assert value_node is not None
            value = self._param_value(value_node, f"params.{name}: value")
            doc = self.text(r.pop("doc", required=True), f"params.{name}: doc", required=True)
            r.finish()
            out.append(Param(name, value, doc, self.loc(body)))
        return tuple(out)

    def _param_value(self, node: Node, what: str) -> int:
        value = node.value
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= INT64_MAX:
            raise self.error(node.line, f"{what}: expected a non-negative int, got {describe(value)}")
        return value

    def _param_overrides(self, node: Node | None, params: tuple[Param, ...], family: str | None) -> tuple[Param, ...]:
        """`param_overrides: {fused_max_depth: 96}`: this member's own values of its family's params
        (where its forward and backward differ); the family's doc stays, the value is the member's."""
        if node is None:
            return params
        if family is None:
            raise self.error(node.line, "param_overrides: only a family member overrides params (its family's); "
                                        "declare the op's own under params:")
        if not isinstance(node.value, dict) or not node.value:
            raise self.error(node.line, f"param_overrides: expected a mapping of a family param's name to its "
                                        f"value for this op, got {describe(node.value)}")
        by_name = {p.name: p for p in params}
        for name, value_node in node.value.items():
            theirs = by_name.get(name)
            if theirs is None or theirs.loc.file == self.file:
                known = ", ".join(p.name for p in params if p.loc.file != self.file) or "none"
                raise self.error(value_node.line, f"param_overrides: {name!r} is not a param of family {family} "
                                                  f"(its params: {known})")
            value = self._param_value(value_node, f"param_overrides.{name}")
            by_name[name] = dataclasses.replace(theirs, value=value, loc=self.loc(value_node),
                                                family_value=theirs.value)
        return tuple(by_name.values())

    def _variant_names(self, node: Node | None) -> tuple[str, ...]:
        """The variants' names (with `otherwise`'s), checked: known before the lets are typed, since a
        let may read them."""
        if node is None:
            return ()
        if not isinstance(node.value, dict) or not node.value:
            raise self.error(node.line, f"variants: expected a mapping of name to {{when: condition, doc: text}} "
                                        f"ending with otherwise: name, got {describe(node.value)}")
        other = node.value.get("otherwise")
        if other is None:
            raise self.error(node.line, "variants: no 'otherwise: <name>' (the variant that runs when no "
                                        "condition holds; first match wins)")
        if not isinstance(other.value, str):
            raise self.error(other.line, f"variants: otherwise: expected a variant name, got {describe(other.value)}")
        names = [*(k for k in node.value if k != "otherwise"), other.value]
        if not names[:-1]:
            raise self.error(node.line, "variants: needs at least one variant with a condition before otherwise")
        for name, line in zip(names, [n.line for k, n in node.value.items() if k != "otherwise"] + [other.line],
                              strict=True):
            self._check_symbol_name(name, line, "variants")
        if other.value in names[:-1]:
            raise self.error(other.line, f"variants: otherwise: {other.value!r} is also a variant with a condition")
        return tuple(names)

    def _variants(self, node: Node | None) -> Variants | None:
        if node is None:
            return None
        cases = []
        for name, body in node.value.items():
            if name == "otherwise":
                continue
            r = self.reader(body, f"variants.{name}")
            when_node = r.pop("when", required=True)
            when = self._condition(when_node, f"variants.{name}", checks=True)
            doc = self.text(r.pop("doc"), f"variants.{name}: doc")
            r.finish()
            cases.append(Variant(name, when, doc, self.loc(body)))
        return Variants(tuple(cases), node.value["otherwise"].value, self.loc(node))
