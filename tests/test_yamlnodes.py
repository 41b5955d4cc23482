"""yamlnodes reads specs with libyaml's composer where it can (a spec folder ~15x faster than
PyYAML's): the trees it gives are PyYAML's own, line for line, and text it cannot take (too deep,
refused) is judged by PyYAML's composer as before."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from codegen import yamlnodes

REPO = Path(__file__).resolve().parent.parent
YAML_FILES = sorted([*(REPO / "specs").rglob("*.yaml"), *(REPO / "tests").rglob("*.yaml"),
                     *(REPO / "codegen").rglob("*.yaml")])


@pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML without libyaml")
def test_libyaml_trees_are_pyyamls() -> None:
    assert YAML_FILES
    for path in YAML_FILES:
        text = path.read_text(encoding="utf-8")
        ours = yamlnodes._convert(yaml.compose(text, Loader=yaml.CSafeLoader), str(path))
        assert ours == yamlnodes._convert(yaml.compose(text, Loader=yamlnodes._Loader), str(path)), path


def test_refusals_are_pyyamls() -> None:
    with pytest.raises(yamlnodes.SpecError, match=r"x\.yaml:3: .*nested deeper than 64"):
        yamlnodes.parse_yaml("a: 1\nb:\n  " + "[" * 100 + "]" * 100 + "\n", "x.yaml")
    with pytest.raises(yamlnodes.SpecError, match=r"x\.yaml:2: invalid YAML: mapping values are not allowed here"):
        yamlnodes.parse_yaml("a: b\nc: d: e\n", "x.yaml")
