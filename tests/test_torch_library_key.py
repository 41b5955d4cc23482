"""The PyTorch library's cache key holds the native runtime's headers (codegen/runtime/torch_library.py):
a compile error is remembered under the key (torch_build's `.failed` marker), so a header fixed
afterwards must give another key, or the library would never be tried again."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")

from codegen.runtime import torch_build, torch_library


class _Stop(Exception):
    pass


def _stem_of_build(source: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    seen: list[str] = []

    def capture(stem: str, *args: Any, **kwargs: Any) -> Path:
        seen.append(stem)
        raise _Stop

    monkeypatch.setattr(torch_build, "build", capture)
    monkeypatch.setattr(torch_build, "cached", lambda stem: True)  # (no "building" message)
    with pytest.raises(_Stop):
        torch_library.build(source)
    return seen[0]


def test_an_edited_native_header_makes_another_library_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "pkg" / "torch_native.cpp"  # (a package without drivers: nothing else compiled)
    source.parent.mkdir()
    source.write_text("// a registration unit\n")
    headers = tmp_path / "native"
    shutil.copytree(torch_library.NATIVE_DIR, headers)
    monkeypatch.setattr(torch_library, "NATIVE_DIR", headers)
    before = _stem_of_build(source, monkeypatch)
    assert _stem_of_build(source, monkeypatch) == before  # (the same headers: the same key)
    with (headers / "driver.h").open("a") as f:
        f.write("\n// edited\n")
    torch_library.native_plan.folder_digest.cache_clear()  # (read once per process: a new process's view)
    assert _stem_of_build(source, monkeypatch) != before
