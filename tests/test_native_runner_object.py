"""The plan's runtime (native_cpu.RUNNER) is compiled once, to an object in the kernel cache, and
linked into each op's driver library (native_cpu.runner_object): before, every driver library
compiled it again, most of that library's build. Each library keeps its own copy (its own
bindings and recordings, as when the runtime was compiled into it). That the drivers so built run
every op as before: tests/test_native_wrappers.py, test_native_exec.py."""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Any

import pytest

from codegen.runtime import native_driver, native_plan
from codegen.runtime.host import libraries
from generated.norm import layer_norm, softmax, softmax_grad


def _fresh_driver(module: Any) -> native_driver.NativeDriver:
    made = module._NATIVE
    return native_driver.NativeDriver(made.op, made.kernels, made.plan, made.source)


def _address(lib: Any, name: str) -> int:
    return ctypes.cast(getattr(lib, name), ctypes.c_void_p).value or 0


@pytest.fixture
def compiled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sources the host compiler is run on, in an empty cache and with nothing in memory."""
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(native_plan, "_LIBRARIES", {})
    monkeypatch.setattr(native_plan, "_OBJECTS", {})
    sources: list[str] = []
    real = libraries._run_compiler

    def counting(cmd: list[str], flags: list[str], src: Path, out: Path, dep: Path | None,
                 extra: Any = ()) -> None:
        sources.append(src.read_text())
        real(cmd, flags, src, out, dep, extra)

    monkeypatch.setattr(libraries, "_run_compiler", counting)
    return sources


def _runners(sources: list[str]) -> list[str]:
    return [text for text in sources if '#include "run_plan_cpu.cpp"' in text]


def test_driver_libraries_link_the_runtime_compiled_once(compiled: list[str], tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    first = [_fresh_driver(m) for m in (layer_norm, softmax)]
    for driver in first:
        driver.build()
    assert len(compiled) == 3 and len(_runners(compiled)) == 1, [s[:200] for s in compiled]
    assert len(list((tmp_path / "host").glob("opgen-runner-*.o"))) == 1
    # Each library has the runtime's entry points, its own copy of them (not one shared library's).
    libs = [d._runner.lib for d in first if d._runner is not None]
    assert len({_address(lib, "opgen_native_bind_cpu") for lib in libs}) == 2
    assert len({_address(lib, "opgen_native_run_plan") for lib in libs}) == 2

    # Another process (nothing in memory): the object comes from the disk cache; only the new op's
    # own library is compiled.
    monkeypatch.setattr(native_plan, "_LIBRARIES", {})
    monkeypatch.setattr(native_plan, "_OBJECTS", {})
    compiled.clear()
    _fresh_driver(softmax_grad).build()
    assert len(compiled) == 1 and not _runners(compiled)



def test_an_object_removed_under_the_process_is_built_again(compiled: list[str]) -> None:
    """A library linking an object this process compiled earlier must not meet a missing file (the
    cache cleared meanwhile): the object is compiled again; while it is there, it is not."""
    source = "extern \"C\" int opgen_probe() { return 7; }\n"
    made = native_plan.object_file(source, "probe")
    assert made.is_file() and native_plan.object_file(source, "probe") == made and len(compiled) == 1
    made.unlink()
    assert native_plan.object_file(source, "probe").is_file() and len(compiled) == 2


def test_the_package_libraries_link_the_runtime_rather_than_compile_it(tmp_path: Path) -> None:
    """The PyTorch and JAX libraries (torch_library.build, jax_library.build: their drivers in one unit)
    link the same object; a registration without drivers links nothing. That they run:
    tests/test_torch_native.py, test_jax_ffi.py."""
    from codegen.runtime import native_cpu, torch_library

    source = Path(layer_norm.__file__).parent.parent / "torch_native.cpp"
    assert "#include \"run_plan_cpu.cpp\"" not in torch_library.drivers_text(source)
    assert "opgen_call_LayerNorm" in torch_library.drivers_text(source)
    assert torch_library.drivers_link(source) == [native_cpu.runner_object()]
    (tmp_path / "torch_native.cpp").write_text("// no drivers beside it\n")
    assert torch_library.drivers_link(tmp_path / "torch_native.cpp") == []
