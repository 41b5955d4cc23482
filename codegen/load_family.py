"""Op families: a `<name>.family.yaml` file beside its member specs declares what they share (type
variables, attrs, lets); a member names it (`family: CudnnRNN`) and declares only what is its own.
This module finds and reads family files; load.py merges a family's declarations into each member,
read as if the member had written them itself (family first, then the member's own), so that the
member's model is the one it had when it declared everything (docs/specs.md, "Families"). A family
may also hold `params:` (merged likewise; a member sets its own value of one only through
`param_overrides:`) and `variants:` (the family's or the member's, not both)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from codegen import naming
from codegen.model import Loc, OpSpec
from codegen.yamlnodes import MapReader, Node, SpecError, parse_yaml

FAMILY_SUFFIX = ".family.yaml"
#: a project's own parity cases for an op, beside its spec (codegen/verify/case_files.py): not a spec
CASES_SUFFIX = ".cases.yaml"

#: The spec keys a family declares for its members, in the order a spec reads them. Each but
#: `variants:` is merged the same way: the family's entries, then the member's own; a member entry
#: that has the name of a family entry is an error at both lines. `variants:` is one ordered list
#: (first match wins), so it is the family's or the member's; a member's own value of a family
#: param goes through `param_overrides:` (load_variants.py), not through this merge.
MERGED_KEYS = ("type_vars", "attrs", "params", "variants", "let")


@dataclass(frozen=True)
class Family:
    """A family file: its name, doc and the declarations (YAML nodes, read in each member's context:
    a let is over the member's input symbols) that its members merge."""

    name: str
    doc: str
    loc: Loc  # its `family:` line
    parts: dict[str, Node]  # spec key (MERGED_KEYS) -> the family's node


def is_family_file(path: Path) -> bool:
    return path.name.endswith(FAMILY_SUFFIX)


def display_path(path: Path, specs_root: Path) -> str:
    """How errors name a file under the spec folder: `specs/rnn/x.yaml` (the folder's name first)."""
    rel = path.relative_to(specs_root).as_posix()
    return (Path(specs_root.name) / rel).as_posix() if specs_root.name else rel


def spec_files(specs_root: Path, suffix: str = ".yaml") -> list[Path]:
    """Every `*.yaml` under `specs_root` but the `_`-prefixed folders (the `_vocab/` vocabularies) and
    the cases files; `suffix=CASES_SUFFIX`: the cases files."""
    return sorted(p for p in specs_root.rglob(f"*{suffix}")
                  if not any(part.startswith("_") for part in p.relative_to(specs_root).parts)
                  and p.name.endswith(CASES_SUFFIX) == (suffix == CASES_SUFFIX))


def load_families(specs_root: Path) -> dict[str, Family]:
    """The family files of the spec folder, by family name (each name once)."""
    families: dict[str, Family] = {}
    for path in filter(is_family_file, spec_files(specs_root)):
        family = _read(path, display_path(path, specs_root))
        first = families.get(family.name)
        if first is not None:
            raise SpecError(family.loc.file, family.loc.line,
                            f"family {family.name!r} is also declared in {first.loc} (a family has one file)")
        families[family.name] = family
    return families


def check_members(families: dict[str, Family], ops: list[OpSpec]) -> None:
    """Each family has a member: its lets are checked only against a member's inputs, so a family
    nobody names would hold declarations nothing ever checked."""
    named = {op.family for op in ops}
    for family in families.values():
        if family.name not in named:
            raise SpecError(family.loc.file, family.loc.line,
                            f"family {family.name!r} has no member (no spec says family: {family.name}): "
                            f"delete the file or name it in its members")


def _read(path: Path, display: str) -> Family:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(display, 1, f"not UTF-8 text: {exc.reason}") from None
    root = parse_yaml(text, display)
    r = MapReader(root, display, "family file", None)
    name_node = r.pop("family", required=True)
    assert name_node is not None
    try:
        name = naming.check_op_name(name_node.value)
    except naming.InvalidName as exc:
        raise SpecError(display, name_node.line, f"family: {exc}") from None
    expected = naming.snake_case(name) + FAMILY_SUFFIX
    # (a file named by the earlier snake-case rule names nothing else: it stays valid)
    if path.name not in (expected, naming.earlier_snake_case(name) + FAMILY_SUFFIX):
        raise SpecError(display, name_node.line, f"family: the file must be named {expected} (got {path.name})")
    doc_node = r.pop("doc")
    if doc_node is not None and not isinstance(doc_node.value, str):
        raise SpecError(display, doc_node.line, f"family {name}: doc: expected a string")
    parts = {key: node for key in MERGED_KEYS if (node := r.pop(key)) is not None}
    r.finish()
    if not parts:
        raise SpecError(display, root.line, f"family {name}: declares nothing to share "
                                            f"(give one of {', '.join(MERGED_KEYS)})")
    doc = doc_node.value.strip() if doc_node is not None else ""
    return Family(name, doc, Loc(display, name_node.line), parts)
