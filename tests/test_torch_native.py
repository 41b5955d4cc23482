"""The package's PyTorch library through the stable ABI (codegen/torch_native.py prints it,
codegen/runtime/torch_library.py builds it, `generated.torch.library_path()` says where it is):

* built once (cached), it loads with `torch.ops.load_library` in a fresh CPU-only process that never
  imports the generated package, and defines every registered op's schema exactly as the Python
  registration does;
* its front-end (codegen/runtime/native/torch_stable.h), run on test drivers that report what they
  were handed (tests/fixtures/torch_test_driver.cpp, in the namespace `opgen_fixture`): tensors
  and attrs converted, a strided input copied, outputs from PyTorch's allocator, an output not
  computed returned empty, scratch usable, a driver's error raised with its message, a driver
  absent from the library named, `opcheck` passing, and an AOTInductor package calling the C++
  op in a fresh process that loads only the package and the library;
* a call its driver hands back refused where no Python helper is defined, else run by the op's
  helper `_<op>_python` through the dispatcher with the caller's arguments;
* the default registration: the package's torch module loads it, and where it cannot be built,
  registers its ops in Python with one warning (the failure remembered: no compiler run next time).
"""

from __future__ import annotations

import codecs
import dataclasses
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from codegen import torch_native, torchgen
from codegen.load import load_specs
from codegen.model import ActivationValue
from codegen.runtime import torch_library
from codegen.runtime.torch_names import python_helper
from codegen.warmup import generated_ops

torch = pytest.importorskip("torch")

PROJECT = Path(__file__).resolve().parent.parent
FIXTURE_DRIVER = PROJECT / "tests" / "fixtures" / "torch_test_driver.cpp"
FIXTURE_OPS = ("LayerNorm", "Softmax", "CudnnRNNParamsSize")


def _fresh(script: str, *args: str, cwd: Path | None = None, timeout: int = 600, **env_set: str) -> str:
    """Runs `script` in a fresh CPU-only Python (no CUDA device visible, the project off sys.path
    unless `env_set` puts it there); its stdout, or the test fails with its stderr."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "OPGEN_TORCH_NATIVE")}
    env.update(CUDA_VISIBLE_DEVICES="", **env_set)
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(script), *args], capture_output=True, text=True,
                          env=env, cwd=cwd or Path("/"), timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc.stdout


@pytest.fixture(scope="module")
def library() -> str:
    import generated.torch as gt

    return gt.library_path()


@pytest.fixture(scope="module")
def fixture_library(tmp_path_factory: pytest.TempPathFactory) -> str:
    """torch_native.py's unit for three ops in `opgen_fixture`, with the test drivers appended."""
    ops = {op.name: op for op in load_specs(PROJECT / "specs") if op.name in FIXTURE_OPS}
    # CudnnRNNParamsSize's signature (int inputs only) on a launch plan, as a user's op could have it
    ops["CudnnRNNParamsSize"] = dataclasses.replace(ops["CudnnRNNParamsSize"], runtime=None,
                                                    kernel=ops["LayerNorm"].kernel)
    source = torch_native.source(sorted(ops.values(), key=lambda o: o.name), "opgen_fixture", "// test unit")
    path = tmp_path_factory.mktemp("torch_native") / "fixture_torch_native.cpp"
    path.write_text(source + FIXTURE_DRIVER.read_text())
    return str(torch_library.build(path))


@pytest.fixture(scope="module")
def fixture_ops(fixture_library: str) -> Any:
    """The fixture library loaded into this process, with fakes for opcheck and torch.export."""
    torch.ops.load_library(fixture_library)
    lib = torch.library.Library("opgen_fixture", "FRAGMENT")

    def layer_norm_fake(x: Any, gamma: Any = None, beta: Any = None, *, epsilon: float = 1e-5) -> Any:
        return torch.empty_like(x), x.new_empty(4), x.new_empty(0)

    torch.library.register_fake("opgen_fixture::layer_norm", layer_norm_fake, lib=lib)
    ops = torch.ops.opgen_fixture
    ops._keep = lib  # (the fakes live as long as the Library object)
    return ops


@pytest.mark.parametrize("text", ['NHWC', 'a"b\\c', "line\nnext\t", "caf\u00e9 \u2192 x?"])
def test_cxx_strings_hold_any_text(text: str) -> None:
    literal = torch_native.cxx_string(text)
    assert literal.isascii() and literal.isprintable()
    assert codecs.escape_decode(literal[1:-1].encode())[0].decode() == text  # (C's escapes are Python's)


def test_a_list_activation_default_with_parameters_is_written_as_its_text() -> None:
    dml = next(op for op in load_specs(PROJECT / "specs") if op.name == "DmlRnn")
    attr = dml.attr("activations")
    assert torch_native._none_default(attr) == 'std::vector<std::string>{"tanh"}'
    both = (ActivationValue("tanh"), ActivationValue("leaky_relu", (("alpha", 0.1),)))
    leaky = dataclasses.replace(attr, default=both)
    assert torch_native._none_default(leaky) == 'std::vector<std::string>{"tanh", "leaky_relu(alpha=0.1)"}'


def test_the_library_defines_every_schema_in_a_fresh_cpu_only_process(library: str) -> None:
    import generated.torch as gt

    own = {op.function_name for op in generated_ops()}  # (other tests may register fixture ops in `opgen`)
    names = sorted(name for name in dir(torch.ops.opgen)
                   if name in own and hasattr(getattr(torch.ops.opgen, name), "default"))
    assert "layer_norm" in names and "batch" not in names
    python = json.loads(_fresh("""
        import json, sys, torch
        import generated.torch as gt
        print(json.dumps({"native": gt.NATIVE, "schemas": {
            n: str(getattr(torch.ops.opgen, n).default._schema) for n in json.loads(sys.argv[1])}}))
    """, json.dumps(names), cwd=PROJECT, PYTHONPATH=str(PROJECT), OPGEN_TORCH_NATIVE="0"))
    assert python["native"] is False  # (the Python registration's schemas: the library's must be the same)
    expected = python["schemas"]
    out = _fresh("""
        import json, sys, torch
        torch.ops.load_library(sys.argv[1])
        names = json.loads(sys.argv[2])
        print(json.dumps({"cuda": torch.cuda.is_available(), "imported": sorted(
            m for m in sys.modules if m.split(".")[0] in ("generated", "codegen", "opgen_ops")),
            "schemas": {n: str(getattr(torch.ops.opgen, n).default._schema) for n in names}}))
    """, library, json.dumps(names))
    seen = json.loads(out)
    assert seen["cuda"] is False and seen["imported"] == []
    assert seen["schemas"] == expected
    assert {n: str(getattr(torch.ops.opgen, n).default._schema) for n in names} == expected  # (this process's)
    assert gt.NATIVE  # (the default: this process loaded the library)


def test_opgen_torch_native_registers_the_library_and_keeps_fakes_in_python(library: str) -> None:
    out = _fresh("""
        import json, torch
        import generated.torch as gt
        from torch._subclasses.fake_tensor import FakeTensorMode
        with FakeTensorMode():
            shapes = [list(t.shape) for t in torch.ops.opgen.layer_norm(torch.empty(2, 8))]
        try:
            torch.ops.opgen.softmax(torch.ones(2, 8))
            error = None
        except RuntimeError as e:
            error = str(e)
        w, b = torch.ops.opgen.cudnn_rnn_params_to_canonical_v2(  # lists out: its Python kernel
            1, 2, 3, torch.zeros(56), num_params_weights=8, num_params_biases=8, rnn_mode="lstm")
        print(json.dumps({"native": gt.NATIVE, "shapes": shapes, "error": error, "lists": [len(w), len(b)]}))
    """, cwd=PROJECT, PYTHONPATH=str(PROJECT), OPGEN_TORCH_NATIVE="1")
    seen = json.loads(out)
    assert seen["native"] is True and seen["shapes"] == [[2, 8], [2], [2]] and seen["lists"] == [8, 8]
    assert seen["error"] is None  # the package's drivers are built in (its *.driver.cpp) and bound


def test_the_library_names_no_cuda_library(library: str) -> None:
    """PyTorch's CUDA symbols are looked up when a CUDA tensor arrives (torch_stable.h), so the
    library loads in a CPU-only PyTorch whatever PyTorch built it."""
    if shutil.which("readelf") is None:
        pytest.skip("no readelf")
    dynamic = subprocess.run(["readelf", "-d", "--dyn-syms", library], capture_output=True, text=True, check=True)
    needed = re.findall(r"\(NEEDED\).*\[(.*)\]", dynamic.stdout)
    assert "libtorch_cpu.so" in needed and not [n for n in needed if "cuda" in n or "cudart" in n], needed
    assert "aoti_torch_get_current_cuda_stream" not in dynamic.stdout


def test_library_path_is_built_once(library: str) -> None:
    import generated.torch as gt

    assert gt.library_path() == library and Path(library).is_file()


@pytest.mark.parametrize("version, refused", [("2.10.1", True), ("2.9.0+cu128", True), ("2.11.0", False),
                                              ("2.13.0+cpu", False), ("3.0.0a0+git1234", False)])
def test_a_pytorch_older_than_the_target_abi_is_refused_by_name(monkeypatch: pytest.MonkeyPatch, version: str,
                                                                 refused: bool) -> None:
    monkeypatch.setattr(torch, "__version__", version)
    if refused:
        expected = rf"needs PyTorch >= 2\.11 .*this is PyTorch {re.escape(version)}$"
        with pytest.raises(torch_library.TorchLibraryError, match=expected):
            torch_library._torch()
    else:
        assert torch_library._torch() is torch


def test_the_front_end_converts_tensors_attrs_and_outputs(fixture_ops: Any) -> None:
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    y, flags, absent = fixture_ops.layer_norm(x, torch.ones(4), epsilon=0.5)
    assert torch.equal(y, 2 * x + 0.5)
    assert flags.tolist() == [1.0, 0.0, 1.0, 1.0]  # gamma given, beta absent, contiguous and aligned, scratch written
    assert absent.shape == (0,) and absent.dtype == torch.float32
    strided = x.t()  # a view the driver cannot read directly: copied once
    y, flags, _ = fixture_ops.layer_norm(strided)
    assert torch.equal(y, 2 * strided + 1e-5) and y.is_contiguous() and flags[2] == 1.0
    raw = bytearray(2) + bytearray(torch.arange(4, dtype=torch.float32).numpy().tobytes())
    misaligned = torch.frombuffer(raw, dtype=torch.float32, offset=2)  # (data 2 bytes past a float's alignment)
    assert misaligned.data_ptr() % 4 == 2
    y, flags, _ = fixture_ops.layer_norm(misaligned, epsilon=0.0)
    assert torch.equal(y, 2 * torch.arange(4, dtype=torch.float32)) and flags[2] == 1.0  # (copied, aligned)


def test_the_front_end_keeps_no_reference_to_its_inputs_or_outputs(fixture_ops: Any) -> None:
    # (the kernels own the stack's input handles and hand the outputs' handles over: one left
    # undeleted keeps a tensor alive, one deleted twice frees it under its owner)
    x, gamma = torch.arange(12, dtype=torch.float32).reshape(3, 4), torch.ones(4)
    before = x._use_count(), gamma._use_count()
    for inputs in ((x, gamma), (x.t(),), (x[:, :2], gamma[:2])):  # (contiguous; strided views, copied once)
        outputs = fixture_ops.layer_norm(*inputs, epsilon=0.5)
        assert [t._use_count() for t in outputs] == [1, 1, 1]
    del inputs, outputs
    assert (x._use_count(), gamma._use_count()) == before


def test_int_inputs_and_str_attrs_reach_the_driver(fixture_ops: Any) -> None:
    out = fixture_ops.cudnn_rnn_params_size(2, 3, 4, t="float32", s="int64")
    assert out.tolist() == [2, 3, 4, len("float32") + len("int64")] and out.device.type == "cpu"
    # (str attrs are read through the shim into the call's own strings: a long one, beyond a
    # std::string's in-place buffer, and UTF-8 bytes arrive whole, and a cpu tensor named "cpu:0"
    # is the cpu's, its device index not read)
    out = fixture_ops.cudnn_rnn_params_size(2, 3, 4, t="a" * 100, s="\u00e9" * 20)
    assert out.tolist() == [2, 3, 4, 100 + 2 * 20]
    y, _, _ = fixture_ops.layer_norm(torch.ones(2, 2, device="cpu:0"), torch.ones(2), epsilon=0.5)
    assert torch.equal(y, torch.full((2, 2), 2.5)) and y.device == torch.device("cpu")
    with pytest.raises(RuntimeError, match=r"^CudnnRNNParamsSize: num_units: 2147483648 does not fit in int32$"):
        fixture_ops.cudnn_rnn_params_size(2, 2**31, 4, t="float32", s="int64")  # (the wrapper's python_int words)


def test_str_attrs_leak_nothing(fixture_ops: Any) -> None:
    # (PyTorch's stable to<std::string> never frees the std::string it makes: two attrs a call grew
    # a process by ~64 bytes a call, 6 MiB here, before the front read them through the shim)
    def resident() -> int:
        return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    call = functools.partial(fixture_ops.cudnn_rnn_params_size, 2, 3, 4, t="float32", s="int64")
    for _ in range(1000):
        call()
    before = resident()
    for _ in range(100_000):
        call()
    assert resident() - before < 2 << 20


def test_a_driver_error_is_a_runtime_error_with_its_message(fixture_ops: Any) -> None:
    with pytest.raises(RuntimeError, match=r"^LayerNorm: epsilon: expected epsilon >= 0, got -1$"):
        fixture_ops.layer_norm(torch.ones(2, 2), epsilon=-1.0)
    with pytest.raises(RuntimeError, match=r"^LayerNorm: x: expected dtype T in \{float32\}, got "):
        fixture_ops.layer_norm(torch.ones(2, 2, dtype=torch.float64))
    with pytest.raises(RuntimeError, match=r"^Softmax: this call needs opgen's Python path \(its native driver "
                                           r"\(opgen_call_Softmax\) is not built into this library\)$"):
        fixture_ops.softmax(torch.ones(2, 2))


def test_a_call_names_a_dtype_opgen_lacks(fixture_ops: Any) -> None:
    # (the front looks the shim's dtype codes up, and names one it does not know as NumPy would)
    with pytest.raises(RuntimeError, match=r"^LayerNorm: x: expected dtype T in \{float32\}, got complex64$"):
        fixture_ops.layer_norm(torch.ones(2, 2, dtype=torch.complex64))
    y, _, _ = fixture_ops.layer_norm(torch.ones(2, 2), torch.ones(2), epsilon=0.5)  # (one it knows: accepted)
    assert torch.equal(y, torch.full((2, 2), 2.5))


def test_a_call_the_driver_hands_back_runs_the_ops_python_helper_once_it_is_defined(
        fixture_ops: Any, fixture_library: str) -> None:
    """OPGEN_ERR_FALLBACK: refused with the driver's reason while no Python helper is defined (a
    process without the package's torch.py), then, once the helpers are defined and the library told
    (what the package's torch.py does), the same arguments go to `_<op>_python` through the
    dispatcher: the caller's tensors (not the front-end's copies), absent optionals as None, the
    attrs and int inputs as given; its outputs are the op's, and its error reaches the caller."""
    x, gamma = torch.arange(6, dtype=torch.float32).reshape(3, 2).t(), torch.ones(3)  # (strided: copied for it)
    with pytest.raises(RuntimeError, match=r"^LayerNorm: this call needs opgen's Python path \(LayerNorm: test driver: "
                                           r"epsilon 7 is handed back\)$"):
        fixture_ops.layer_norm(x, gamma, epsilon=7.0)
    with pytest.raises(RuntimeError, match=r"^CudnnRNNParamsSize: this call needs opgen's Python path"):
        fixture_ops.cudnn_rnn_params_size(2, 3, 4, t="python", s="int64")
    seen: list[tuple[Any, ...]] = []

    def layer_norm(x: Any, gamma: Any = None, beta: Any = None, *, epsilon: float = 1e-5) -> Any:
        seen.append((x, gamma, beta, epsilon))
        if epsilon == 8.0:
            raise ValueError("LayerNorm: epsilon: the Python path refuses 8")
        return 3 * x, x.new_ones(4), x.new_empty(0)

    def params_size(num_layers: int, num_units: int, input_size: int, *, t: str, s: str) -> Any:
        seen.append((num_layers, num_units, input_size, t, s))
        return torch.tensor([num_layers, num_units, input_size, -1])

    specs = {op.name: op for op in load_specs(PROJECT / "specs") if op.name in FIXTURE_OPS}
    lib = torch.library.Library("opgen_fixture", "FRAGMENT")
    for op, kernel, key in ((specs["LayerNorm"], layer_norm, "CPU"),
                            (specs["CudnnRNNParamsSize"], params_size, "CompositeExplicitAutograd")):
        lib.define(torchgen.schema(op, python_helper(op.snake_name)))
        lib.impl(python_helper(op.snake_name), kernel, key)
    fixture_ops._keep_helpers = lib
    torch_library.enable_python_path(Path(fixture_library))
    y, flags, empty = fixture_ops.layer_norm(x, gamma, epsilon=7.0)
    assert torch.equal(y, 3 * x) and flags.tolist() == [1.0] * 4 and empty.shape == (0,)
    (got_x, got_gamma, got_beta, got_epsilon), = seen
    assert got_x.data_ptr() == x.data_ptr() and got_x.stride() == x.stride()  # (the caller's view)
    assert got_gamma.data_ptr() == gamma.data_ptr() and got_beta is None and got_epsilon == 7.0
    assert fixture_ops.cudnn_rnn_params_size(2, 3, 4, t="python", s="int64").tolist() == [2, 3, 4, -1]
    assert seen[1] == (2, 3, 4, "python", "int64")
    with pytest.raises(RuntimeError, match=r"^ValueError: LayerNorm: epsilon: the Python path refuses 8$"):
        fixture_ops.layer_norm(x, epsilon=8.0)
    y, flags, _ = fixture_ops.layer_norm(x, gamma, epsilon=0.5)  # (not handed back: the driver's outputs)
    assert torch.equal(y, 2 * x + 0.5) and len(seen) == 3


def test_opcheck_passes_on_the_cpp_registration(fixture_ops: Any) -> None:
    torch.library.opcheck(fixture_ops.layer_norm.default, (torch.randn(3, 4), torch.randn(4)), {"epsilon": 0.25})


def test_an_aotinductor_package_runs_the_cpp_op_in_a_fresh_process(fixture_library: str, tmp_path: Path) -> None:
    """Exported and compiled in one process (the fixture library and a Python fake loaded), run in
    another that loads only the package and the library."""
    package = tmp_path / "model.pt2"
    x = torch.randn(3, 4)
    torch.save(x, tmp_path / "x.pt")
    _fresh("""
        import sys, torch
        torch.ops.load_library(sys.argv[1])
        torch.library.register_fake("opgen_fixture::layer_norm")(
            lambda x, gamma=None, beta=None, *, epsilon=1e-5: (torch.empty_like(x), x.new_empty(4), x.new_empty(0)))

        class Model(torch.nn.Module):
            def forward(self, x):
                y, flags, _ = torch.ops.opgen_fixture.layer_norm(torch.softmax(x, -1), epsilon=0.25)
                return y * 3, flags

        x = torch.load(sys.argv[3])
        ep = torch.export.export(Model(), (x,))
        torch._inductor.aoti_compile_and_package(ep, package_path=sys.argv[2])
        torch.save(Model()(x), sys.argv[3] + ".eager")
    """, fixture_library, str(package), str(tmp_path / "x.pt"), cwd=tmp_path)
    _fresh("""
        import sys, torch
        torch.ops.load_library(sys.argv[1])
        runner = torch._inductor.aoti_load_package(sys.argv[2])
        torch.save(runner(torch.load(sys.argv[3])), sys.argv[3] + ".aoti")
        assert not [m for m in sys.modules if m.split(".")[0] in ("generated", "codegen", "opgen_ops")]
    """, fixture_library, str(package), str(tmp_path / "x.pt"), cwd=tmp_path)
    eager, aoti = torch.load(tmp_path / "x.pt.eager"), torch.load(tmp_path / "x.pt.aoti")
    assert len(eager) == len(aoti) == 2
    for a, b in zip(eager, aoti, strict=True):
        torch.testing.assert_close(b, a)  # (inductor compiles the softmax around the op: close, not bitwise)


FALLBACK_IMPORT = """
import json, sys, warnings
from codegen.runtime import torch_library
flags = torch_library._flags
torch_library._flags = lambda torch: [*flags(torch), "-include", sys.argv[1]]  # (a header that is not there)
# (the library alone through the wrapper that counts its compiles: the kernels, the emulation runtime and
# the plan's runtime it links keep the suite's compiler, so their cached builds are found, not redone)
torch_library._compiler_command = lambda: [sys.argv[2]]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import generated.torch as gt
import torch
from torch._subclasses.fake_tensor import FakeTensorMode
with FakeTensorMode():
    shapes = [list(t.shape) for t in torch.ops.opgen.layer_norm(torch.empty(2, 8))]
print(json.dumps({"native": gt.NATIVE, "gated": gt.GATED, "shapes": shapes,
                  "helper": hasattr(torch.ops.opgen, "_layer_norm_python"),
                  "warnings": [str(w.message) for w in caught if "opgen" in str(w.message)]}))
"""


def test_a_library_that_cannot_be_built_falls_back_to_the_python_registration_once(tmp_path: Path) -> None:
    """A compile error (a missing header here): the module warns once, naming what the library needs,
    and registers the ops in Python (no helper, no C++ Autograd kernel); the failure is remembered, so
    the next process runs no compiler for it and falls back at once. (The suite's cache: the kernels
    the library carries are there already; the marker, under this build's own key, is removed.)"""
    calls = tmp_path / "compiles"
    wrapper = tmp_path / "cxx"
    wrapper.write_text(f'#!/bin/sh\n[ "$1" = --version ] || echo "$@" >> "{calls}"\nexec c++ "$@"\n')
    wrapper.chmod(0o755)
    env = {"PYTHONPATH": str(PROJECT),
           **{k: os.environ[k] for k in ("OPGEN_CACHE_DIR", "XDG_CACHE_HOME") if k in os.environ}}
    runs, markers = [], set()
    try:
        for _ in range(2):
            out = _fresh(FALLBACK_IMPORT, "opgen_no_such_header.h", str(wrapper), cwd=PROJECT, **env)
            seen = json.loads(out.splitlines()[-1])
            lines = calls.read_text().splitlines() if calls.exists() else []
            runs.append(sum("opgen-torch-torch_native-" in line for line in lines))  # (the library's compiles)
            assert seen["native"] is False and seen["gated"] is False and seen["helper"] is False
            assert seen["shapes"] == [[2, 8], [2], [2]]  # (the Python registration's fake)
            (warning,) = seen["warnings"]
            assert "native PyTorch library of generated's torch ops (torch_native.cpp) cannot be built here" in warning
            assert "opgen_no_such_header.h" in warning and "registered in Python instead" in warning, warning
            assert "needs a C++ compiler" in warning and "with its C++ headers" in warning, warning
            markers.update(re.findall(r"or (\S+\.failed) is removed", warning))
        assert runs == [1, 1], runs  # (one compile, in the first process: the second remembers it)
        assert len(markers) == 1 and Path(next(iter(markers))).is_file(), markers
    finally:
        for marker in markers:
            Path(marker).unlink(missing_ok=True)
