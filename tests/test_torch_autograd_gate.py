"""The packages' C++ Autograd kernel (one gate library per PyTorch,
codegen/runtime/native/torch_autograd_gate.cpp, built by codegen/runtime/torch_gate.py, the package's
ops registered through it), loaded with the native library (OPGEN_TORCH_NATIVE=1, the default) in a
fresh process (tests/torch_autograd_gate_child.py):

* a grad-mode call with no input requiring grad enters no Python kernel (only torch's op packet);
* a call that records a graph goes through the helper `opgen::_<op>_autograd` to torch's Python kernel:
  gradients (against torch's own layer_norm, and gradcheck in float64), double backward (the gradient
  op recorded; its missing second derivative refused by name), opcheck with inputs requiring grad
  (test_autograd_registration included), torch.compile (fullgraph, dynamic) forward and backward, and
  torch.export's graph naming only `opgen.<op>`;
* with the gate off (OPGEN_TORCH_AUTOGRAD_GATE=0) or unbuildable (a compile error), the Python Autograd
  kernels stay (today's behaviour): the same results, one warning only where it could not be built;
* packages register through the shared library: once per (namespace, op) and process, all or nothing,
  a refusal (a helper defined already, a bad schema) warning once per package;
* a failed build is remembered in the cache under its key: a later process runs no compiler for it
  (a counting $CXX) and still warns once; another key, or the marker removed, compiles again; a
  compiler killed by a signal is not remembered.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")

from codegen import torchgen
from codegen.load import load_specs

PROJECT = Path(__file__).resolve().parent.parent
CHILD = PROJECT / "tests" / "torch_autograd_gate_child.py"
RUNS = {"gated": ([], {}), "off": ([], {"OPGEN_TORCH_AUTOGRAD_GATE": "0"}), "broken": (["--break-build"], {})}


def _child(args: list[str], env_set: dict[str, str]) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPGEN_TORCH_AUTOGRAD_GATE",)}
    env.update(PYTHONPATH=str(PROJECT), OPGEN_TORCH_NATIVE="1", CUDA_VISIBLE_DEVICES="", **env_set)
    proc = subprocess.run([sys.executable, str(CHILD), *args], capture_output=True, text=True, env=env, cwd=PROJECT,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "Overriding a previously registered kernel" not in proc.stderr  # (one Autograd kernel per op)
    out: dict[str, Any] = json.loads(proc.stdout.splitlines()[-1])
    assert out["native"] is True
    return out


@pytest.fixture(scope="module", params=list(RUNS))
def run(request: pytest.FixtureRequest) -> tuple[str, dict[str, Any]]:
    return request.param, _child(*RUNS[request.param])


def test_the_gate_is_loaded_only_where_it_is_on_and_builds(run: tuple[str, dict[str, Any]]) -> None:
    name, out = run
    assert out["gated"] is (name == "gated")
    if name == "broken":
        (warning,) = out["warnings"]
        assert "C++ Autograd kernel" in warning and "compilation failed" in warning and "stay in Python" in warning
    else:
        assert out["warnings"] == []


def test_a_call_that_records_no_graph_skips_python_only_where_gated(run: tuple[str, dict[str, Any]]) -> None:
    name, out = run
    frames = [f for f in out["no_graph_frames"] if not f.startswith("_ops.py:")]  # (torch's packet's __call__)
    assert frames == ([] if name == "gated" else ["torch_autograd.py:autograd_kernel"])


def test_the_graph_branch_gives_torchs_gradients(run: tuple[str, dict[str, Any]]) -> None:
    graph = run[1]["graph"]
    assert graph["grad_fn"] == "GeneratedBackwardFor_opgen_layer_norm_defaultBackward"
    assert graph["frozen"] == [False, False]  # (mean and rstd: not differentiable)
    assert graph["dx"] < 1e-5 and graph["dgamma"] < 1e-5  # (against torch.nn.functional.layer_norm)
    assert graph["gradcheck"] is True


def test_double_backward_records_the_gradient_op_and_refuses_its_missing_gradient(
        run: tuple[str, dict[str, Any]]) -> None:
    graph = run[1]["graph"]
    assert graph["double_grad_fn"] == "GeneratedBackwardFor_opgen_softmax_grad_defaultBackward"
    assert graph["double_backward"] == ("SoftmaxGrad has no gradient: it is the gradient of Softmax "
                                        "(no second derivative is declared)")


def test_opcheck_compile_and_export(run: tuple[str, dict[str, Any]]) -> None:
    out = run[1]
    assert out["opcheck"] == {"layer_norm": {}, "softmax": {}, "bias_add": {}}  # (every test: SUCCESS)
    assert out["compiled"] < 1e-5
    assert out["exported"] == ["<built-in function getitem>", "opgen.layer_norm.default", "opgen.softmax.default"]


def test_the_torch_module_registers_every_op_with_its_helpers_schema() -> None:
    ops = [op for op in load_specs(PROJECT / "specs") if op.torch.register]
    text = (PROJECT / "generated" / "torch.py").read_text()
    assert "GATED = NATIVE and _torch_gate.load(__package__ or __name__, NAMESPACE, {" in text
    for op in ops:
        helper = f"_{op.snake_name}_autograd" + torchgen.schema(op)[len(op.snake_name):]  # (the op's own schema)
        assert f"    {op.snake_name!r}: {helper!r},\n" in text
    assert not (PROJECT / "generated" / "torch_autograd_gate.cpp").exists()  # (one shared unit: torch_gate.SOURCE)


# Registration through the shared library in one process: a namespace of the test's own (an op with a
# CPU kernel defined in Python), registered, registered again (a torch module run twice: nothing
# twice), refused where its helper exists already (another package claiming the same ops), and all or
# nothing where one helper's schema is bad.
_REGISTER = """
import json, warnings
import torch
from codegen.runtime import torch_gate
lib = torch.library.Library("opgen_gate_t", "DEF")
for name in ("twice", "thrice"):
    lib.define(name + "(Tensor x) -> Tensor")
lib.impl("twice", lambda x: x * 2, "CPU")
lib.impl("thrice", lambda x: x * 3, "CPU")
helpers = {"twice": "_twice_autograd(Tensor x) -> Tensor"}
out = {"first": torch_gate.load("pkg_a", "opgen_gate_t", helpers),
       "again": torch_gate.load("pkg_a", "opgen_gate_t", helpers)}
with torch.no_grad():
    out["value"] = torch.ops.opgen_gate_t.twice(torch.ones(2)).tolist()
out["dump"] = torch._C._dispatch_dump("opgen_gate_t::twice")
torch_gate._REGISTERED.clear()  # (as another package of the same namespace and op would)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out["claimed"] = torch_gate.load("pkg_b", "opgen_gate_t", helpers)
    out["bad"] = torch_gate.load("pkg_c", "opgen_gate_t", {"thrice": "_thrice_autograd(Tensor x) -> Tensor",
                                                          "twice": "_oops_autograd(Tensor x -> Tensor"})
    out["thrice_helper"] = hasattr(torch.ops.opgen_gate_t, "_thrice_autograd")
    out["bad_again"] = torch_gate.load("pkg_c", "opgen_gate_t", {"thrice": "_thrice_autograd(Tensor x) -> Tensor"})
out["warnings"] = [str(w.message) for w in caught if "opgen" in str(w.message)]
print(json.dumps(out))
"""


def test_packages_register_through_the_shared_library_once_and_all_or_nothing() -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPGEN_TORCH_AUTOGRAD_GATE"}
    env.update(PYTHONPATH=str(PROJECT), CUDA_VISIBLE_DEVICES="")
    proc = subprocess.run([sys.executable, "-c", _REGISTER], capture_output=True, text=True, env=env, cwd=PROJECT,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "Overriding a previously registered kernel" not in proc.stderr  # (the second load registered nothing)
    out = json.loads(proc.stdout.splitlines()[-1])
    assert out["first"] is True and out["again"] is True and out["value"] == [2.0, 2.0]
    (autograd,) = [line for line in out["dump"].splitlines() if line.startswith("Autograd")]
    assert autograd.startswith("Autograd[alias]: registered at") and "opgen-torch-gate-" in autograd  # (the gate)
    assert out["claimed"] is False and out["bad"] is False
    claimed, bad = out["warnings"]  # (one per package: pkg_c's second refusal warns no more)
    assert "pkg_b's torch ops" in claimed and "registering opgen_gate_t's ops failed" in claimed
    assert "pkg_c's torch ops" in bad and "registering opgen_gate_t's ops failed" in bad
    assert out["thrice_helper"] is False  # (the refused call left no helper behind)
    assert out["bad_again"] is True  # (so the good part alone registers later)


# A gate that fails to compile, in a fresh cache: the failure is remembered (the compiler runs once
# for a key), the fallback still warns once per process, and a changed key (other flags) compiles again.
_LOAD_BROKEN = """
import json, sys, warnings
from codegen.runtime import torch_gate
flags = torch_gate._flags
torch_gate._flags = lambda t: [*flags(t), "-include", sys.argv[1]]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    loaded = torch_gate.load("generated", "opgen", {})
warm = torch_gate.warm()  # (opgen warmup's step, after it)
print(json.dumps({"loaded": loaded, "warnings": [str(w.message) for w in caught if "opgen" in str(w.message)],
                  "warm": warm}))
"""


def _load_broken(tmp_path: Path, header: str, killed: bool = False) -> tuple[int, str, str]:
    """A fresh process loading the gate built with `-include header` (missing: a compile error) by a
    $CXX that counts its compiling runs (not --version) and, `killed`, dies of SIGKILL in them; the
    compiler's runs so far, the one warning, and then what warmup's step says."""
    calls = tmp_path / "compiles"
    wrapper = tmp_path / ("cxx-killed" if killed else "cxx")
    die = ' && kill -KILL $$' if killed else ''
    wrapper.write_text(f'#!/bin/sh\n[ "$1" = --version ] || {{ echo run >> "{calls}"{die}; }}\nexec c++ "$@"\n')
    wrapper.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "OPGEN_TORCH_AUTOGRAD_GATE"}
    env.update(PYTHONPATH=str(PROJECT), CXX=str(wrapper), OPGEN_CACHE_DIR=str(tmp_path / "cache"),
               OPGEN_TORCH_NATIVE="1")  # (where warmup builds it)
    proc = subprocess.run([sys.executable, "-c", _LOAD_BROKEN, header], capture_output=True, text=True, env=env,
                          cwd=PROJECT, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = json.loads(proc.stdout.splitlines()[-1])
    assert out["loaded"] is False
    (warning,) = out["warnings"]
    return len(calls.read_text().splitlines()) if calls.exists() else 0, warning, out["warm"]


def test_a_failed_build_is_remembered_until_its_key_changes(tmp_path: Path) -> None:
    compiles, first, warm = _load_broken(tmp_path, "opgen_no_such_header.h")
    assert compiles == 1 and "compilation failed" in first and "remembered in the cache" in first
    assert warm.startswith("skipped: host C++ compilation failed") and "remembered from an earlier build" in warm
    marker = next((tmp_path / "cache" / "host").glob("opgen-torch-gate-torch_autograd_gate-*.failed"))
    assert str(marker) in first and "stay in Python" in first
    compiles, again, _ = _load_broken(tmp_path, "opgen_no_such_header.h")  # a fresh process: no compiler run
    assert compiles == 1 and "compilation failed" in again and "remembered from an earlier build" in again
    assert str(marker) in again
    compiles, other, _ = _load_broken(tmp_path, "opgen_no_such_header_either.h")  # another key: compiled again
    assert compiles == 2 and "remembered in the cache" in other
    marker.unlink()  # the retry the warning offers: removing the marker compiles that key again
    compiles, _, _ = _load_broken(tmp_path, "opgen_no_such_header.h")
    assert compiles == 3


def test_a_compiler_killed_by_a_signal_is_not_remembered(tmp_path: Path) -> None:
    """(An OOM kill, say: it may pass next time.) Every attempt runs the compiler; no marker."""
    compiles, warning, warm = _load_broken(tmp_path, "opgen_no_such_header.h", killed=True)
    assert compiles == 2 and "compilation failed (exit -9)" in warning and "remembered" not in warning
    assert warm.startswith("not built: host C++ compilation failed (exit -9)")  # (warmup's step tried again)
    assert not list((tmp_path / "cache" / "host").glob("*.failed"))


def test_a_library_without_the_gates_entry_point_is_refused_by_name(tmp_path: Path) -> None:
    # (a shared library that is not the gate: the import gets TorchGateUnavailable, which load()
    # turns into its one warning, not an AttributeError out of ctypes)
    from codegen.runtime import torch_gate

    source = tmp_path / "not_gate.c"
    source.write_text("int opgen_something_else(void) { return 0; }\n")
    library = tmp_path / "libnot_gate.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(library), str(source)], check=True, timeout=120)
    with pytest.raises(torch_gate.TorchGateUnavailable, match=r"libnot_gate\.so lacks opgen_gate_register"):
        torch_gate._register(library, "opgen_gate_missing", {"op": "_op_autograd(Tensor x) -> Tensor"})
    assert ("opgen_gate_missing", "op") not in torch_gate._REGISTERED
