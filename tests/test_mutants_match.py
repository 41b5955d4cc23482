"""scripts/mutation_test.py's mutants still match the templates: each one's text occurs exactly once
in its file (else the script reports it INVALID and the bug it plants is tested by nobody; two had
drifted from the RNN templates unnoticed)."""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
MUTANTS = runpy.run_path(str(REPO / "scripts" / "mutation_test.py"))["MUTANTS"]


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda mu: mu.id)
def test_each_mutants_text_is_in_its_file_once(mutant: Any) -> None:
    text = (REPO / mutant.file).read_text(encoding="utf-8")
    assert text.count(mutant.old) == 1, f"{mutant.id}: its text occurs {text.count(mutant.old)} times in {mutant.file}"
    assert mutant.new != mutant.old, f"{mutant.id}: plants nothing"
