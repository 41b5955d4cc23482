"""The manifest each generated .cu carries (issue 22 item 2): its entry points as pygen wrote them,
read by the host backend and warmup instead of scanning. It must say what the scanner (the compiler's
reading, codegen/runtime/cxx.py) finds, and one edited after generation must not be believed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from codegen import warmup
from codegen.runtime import host, manifest
from codegen.runtime.cpu import GPU_FORM_OPTION

GENERATED = sorted((Path(__file__).resolve().parents[1] / "generated").rglob("*.cu"))


def _stated(source: str) -> tuple[list[tuple[str, tuple[str, ...], int]], list[str]]:
    m = manifest.parse(source)
    return [(k.name, k.param_names, k.max_threads) for k in m.kernels], list(m.shared)


def _scanned(source: str, options: tuple[str, ...]) -> tuple[list[tuple[str, tuple[str, ...], int]], list[str]]:
    kernels = [(k.name, k.param_names, k.max_threads) for k in host.scan_kernels(source, options)]
    return kernels, host.scan_extern_shared(source, options)


def test_every_generated_module_carries_a_manifest():
    assert len(GENERATED) >= 7  # one module per kernel template (codegen/modules.py)
    for path in GENERATED:
        text = path.read_text(encoding="utf-8")
        assert text.rstrip("\n").rpartition("\n")[2].startswith(manifest.MARKER), path.name
        assert manifest.parse(text).kernels, path.name


@pytest.mark.parametrize("options", [(), (GPU_FORM_OPTION,)], ids=["host-form", "gpu-form"])
@pytest.mark.parametrize("path", GENERATED, ids=lambda p: p.stem)
def test_manifest_says_what_the_scanner_reads(path, options):
    text = path.read_text(encoding="utf-8")
    assert _stated(text) == _scanned(text, options)


@pytest.mark.parametrize("path", GENERATED, ids=lambda p: p.stem)
def test_manifest_parameter_types_are_the_declared_ones(path):
    text = path.read_text(encoding="utf-8")
    for k in manifest.parse(text).kernels:
        params = ",\n    ".join(f"{t} {n}" for t, n in k.params)
        assert f"{k.name}(\n    {params}) {{" in text, k.name


# ------------------------------------------------------------ not believed --

BOUNDED = ('extern "C" __global__ void __launch_bounds__(64) fill(float* __restrict__ out, int n) {\n'
           '  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) out[i] = 2.0f;\n}\n')


def _with_manifest(body: str, max_threads: int = 64) -> str:
    stated = manifest.Manifest((manifest.Entry("fill", (("float* __restrict__", "out"), ("int", "n")),
                                               max_threads),))
    return body + manifest.line(stated, body)


def _edit_manifest(source: str, **changes: object) -> str:
    body, _, last = source.rstrip("\n").rpartition("\n")
    fields = json.loads(last[len(manifest.MARKER):])
    fields.update(changes)
    return f"{body}\n{manifest.MARKER}{json.dumps(fields)}\n"


def test_a_manifest_is_read_back_as_written():
    m = manifest.parse(_with_manifest(BOUNDED))
    assert m.kernels == (manifest.Entry("fill", (("float* __restrict__", "out"), ("int", "n")), 64),)
    assert m.shared == ()


@pytest.mark.parametrize("tamper, message", [
    (lambda s: _edit_manifest(s, kernels=[{"name": "fill", "params": [["float*", "out"], ["int", "n"]],
                                           "max_threads": 1024}]), "stale manifest"),
    (lambda s: s.replace("__launch_bounds__(64)", "__launch_bounds__(32)"), "stale manifest"),
    (lambda s: _edit_manifest(s, version=99), "version 99 is not the known 1"),
    (lambda s: s.rstrip("\n")[:-5] + "\n", "malformed manifest"),
    (lambda s: _edit_manifest(s, extra=1), "unknown fields"),
    (lambda s: s + "// a comment after it\n", "no manifest"),
])
def test_a_manifest_not_to_believe_is_refused_with_the_reason(tamper, message):
    source = tamper(_with_manifest(BOUNDED))
    with pytest.raises(manifest.ManifestError, match=message):
        manifest.parse(source)
    assert manifest.read(source) is None


def test_load_module_believes_a_valid_manifest_without_scanning(monkeypatch):
    def no_scan(*args: object) -> None:
        raise AssertionError("scanned a source whose manifest is valid")

    text = GENERATED[0].read_text(encoding="utf-8")
    monkeypatch.setattr(host.glue, "_scan", no_scan)
    kernels, shared = host._entry_points(text, ())
    assert [(k.name, k.param_names, k.max_threads) for k in kernels] == _stated(text)[0]
    assert list(shared) == _stated(text)[1]


def test_a_raised_launch_bound_in_the_manifest_cannot_widen_what_the_emulation_accepts():
    # The manifest claims 1024 threads; the source's __launch_bounds__(64) is what the GPU enforces.
    source = _edit_manifest(_with_manifest(BOUNDED), kernels=[
        {"name": "fill", "params": [["float* __restrict__", "out"], ["int", "n"]], "max_threads": 1024}])
    fn = host.load_module(source, name_hint="manifest_tampered").get_function("fill")
    assert fn.max_threads_per_block == 64
    out = np.full(128, np.nan, np.float32)
    with pytest.raises(host.HostLaunchError, match="64"):
        fn((1,), (128,), (out, np.int32(128)))
    fn((2,), (64,), (out, np.int32(128)))
    assert (out == 2.0).all()


def test_warmup_lists_the_manifests_entry_points_without_scanning(monkeypatch):
    ops = [op for op in warmup.generated_ops() if op.kernels is not None]
    scanned = {op.name: [k.name for k in host.scan_kernels(op.kernels.text) if k.name.startswith(f"{op.name}__")]
               for op in ops}  # a module shared by several ops: each op's own entry points

    def no_scan(*args: object) -> None:
        raise AssertionError("warmup scanned a generated module")

    monkeypatch.setattr(host, "scan_kernels", no_scan)
    assert len(ops) >= 13
    for op in ops:
        assert op.entry_points() == scanned[op.name] != [], op.name
