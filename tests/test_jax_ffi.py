"""The package's ops as JAX functions (generated/jax.py through generated/jax_ffi.cpp's XLA FFI
handlers and the ops' native drivers, on the cpu):

* every parity case of every op JAX gets, under jax.jit, gives bit-identical outputs to the op's
  wrapper, and where the wrapper refuses the call, the same message (at trace time as the wrapper's
  exception; a check of values when the call runs, as XLA's error with the driver's message);
* refused shapes, dtypes and attrs raise at trace time, before anything is built or run;
* jitted calls from several threads at once give each its own answer;
* a handler library built for another JAX is refused by name.

The handler library is built once (the kernel cache keeps it between sessions)."""

from __future__ import annotations

import ctypes
import functools
import inspect
import re
import runpy
import subprocess
import sys
import threading
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from codegen import jaxgen
from codegen.load import load_specs
from codegen.model import GemmStep
from codegen.runtime import jax_library
from codegen.runtime.host.toolchain import _compiler_command
from codegen.warmup import generated_ops

jax = pytest.importorskip("jax", reason="JAX is not installed (the opgen[jax] extra)")
jax.config.update("jax_enable_x64", True)  # (float64 inputs stay float64)
import jax.numpy as jnp  # noqa: E402

import generated.jax as gj  # noqa: E402  (after the skip: it imports jax)

PROJECT = Path(__file__).resolve().parent.parent
SPECS = load_specs(PROJECT / "specs")
BY_NAME = {spec.name: spec for spec in SPECS}
OPS = [op for op in generated_ops() if op.name in BY_NAME and jaxgen.not_provided(BY_NAME[op.name]) is None]


def _jax_fn(name: str) -> Any:
    return getattr(gj, BY_NAME[name].snake_name)


def _run(fn: Any, args: list[Any], attrs: dict[str, Any]) -> tuple[str, Any]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            out = tuple(None if o is None else np.asarray(o) for o in fn(*args, **attrs))  # (XLA's errors: here)
    except Exception as e:  # noqa: BLE001 (what is compared)
        return "error", e
    return "ok", out


def _bits(outputs: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(None if o is None else (o.dtype.name, o.shape, np.ascontiguousarray(o).tobytes()) for o in outputs)


def test_every_parity_case_under_jit_is_bit_identical_to_the_wrapper() -> None:
    parity = runpy.run_path(str(PROJECT / "scripts" / "gpu_parity.py"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        cases = [(op, case) for op, case in parity["all_cases"](OPS) if case is not None]
    fallbacks, compared, refused = [], 0, 0
    for op, case in cases:
        spec = BY_NAME[op.name]
        bound = inspect.signature(op.function).bind(*case.args, **case.kwargs)
        bound.apply_defaults()
        args = [bound.arguments[a.name] for a in spec.inputs]
        attrs = {a.name: bound.arguments[a.name] for a in spec.attrs}
        python = _run(op.function, args, attrs)
        jitted = jax.jit(functools.partial(_jax_fn(op.name), **attrs))  # (the attrs static)
        native = _run(jitted, args, {})
        if native[0] == "error" and "needs opgen's Python path" in str(native[1]):
            fallbacks.append((op.name, str(native[1])))  # (a GEMM the process's BLAS does not take)
            continue
        assert python[0] == native[0], (op.name, case.label, python, native)
        if python[0] == "error":
            if type(native[1]) is type(python[1]):  # a trace-time refusal: the wrapper's exception
                assert str(native[1]) == str(python[1]), (op.name, case.label)
            else:  # a check of values, when the call ran: XLA's error carries the driver's message
                assert str(python[1]) in str(native[1]), (op.name, case.label, native[1])
            refused += 1
        else:
            assert _bits(native[1]) == _bits(python[1]), (op.name, case.label)
            compared += 1
    gemm_ops = {op.name for op in OPS if any(isinstance(s, GemmStep) for s in BY_NAME[op.name].launches())}
    assert {op for op, _ in fallbacks} <= gemm_ops, fallbacks
    assert all("GEMM step" in why for _, why in fallbacks), fallbacks
    assert {op.name for op, _ in cases} == {op.name for op in OPS}
    assert compared > 4 * len(fallbacks), (compared, refused, len(fallbacks))


REFUSED = [  # (op, inputs, attrs): each refused by the wrapper and at trace time alike
    ("Softmax", [np.ones((2, 8), np.float32)], {"axis": 5}),
    ("Softmax", [np.ones((2, 8), np.int32)], {}),
    ("Softmax", [np.ones((2, 8), np.float32)], {"axis": 1.5}),
    ("LayerNorm", [np.ones((2, 8), np.float32), np.ones(7, np.float32), None], {}),
    ("LayerNorm", [np.ones((2, 8), np.float32), None, np.ones(8, np.float64)], {}),
    ("LayerNorm", [np.ones((2, 8), np.float32)], {"epsilon": -1.0}),
    ("LayerNorm", [np.ones((), np.float32)], {}),
    ("BiasAdd", [np.ones((2, 3, 4), np.float32), np.ones(4, np.float32)], {"data_format": "NWHC"}),
    ("BiasAdd", [np.ones((2, 3, 4), np.float32), np.ones(3, np.float32)], {}),
    ("FusedBatchNormV3", [np.ones((1, 2, 2, 3), np.float32)] + [np.ones(3, np.float32)] * 4, {"is_training": 1}),
]


@pytest.mark.parametrize(("name", "args", "attrs"), REFUSED, ids=[f"{r[0]}-{i}" for i, r in enumerate(REFUSED)])
def test_a_refused_call_raises_the_wrappers_error_at_trace_time(name: str, args: list[Any],
                                                                attrs: dict[str, Any]) -> None:
    wrapper = next(op.function for op in OPS if op.name == name)
    with pytest.raises((TypeError, ValueError)) as python:
        wrapper(*args, **attrs)
    with pytest.raises(type(python.value)) as traced:  # (eval_shape: traced, nothing compiled or run)
        jax.eval_shape(lambda *xs: _jax_fn(name)(*xs, **attrs), *args)
    assert str(traced.value) == str(python.value)
    assert str(python.value).startswith(f"{name}: ")


def test_a_check_of_values_is_the_handlers_error_when_the_call_runs() -> None:
    from generated import dml_rnn

    rng = np.random.default_rng(0)
    seq, batch, hidden, inp = 3, 2, 4, 5
    args = [rng.standard_normal((1, seq, batch, inp)).astype(np.float32),
            rng.standard_normal((1, 1, hidden, inp)).astype(np.float32),
            rng.standard_normal((1, 1, hidden, hidden)).astype(np.float32), None, None,
            np.array([1, 9], np.uint32).reshape(1, 1, 1, batch)]
    with pytest.raises(ValueError) as python:
        dml_rnn(*args)
    with pytest.raises(jax.errors.JaxRuntimeError) as native:
        jax.block_until_ready(jax.jit(gj.dml_rnn)(*args))
    assert str(python.value) in str(native.value)
    assert "sequence_lengths" in str(python.value)


def test_jitted_calls_from_several_threads_each_get_their_own_answer() -> None:
    from generated import layer_norm

    f = jax.jit(lambda x, g: gj.layer_norm(x, g, None, epsilon=1e-3))
    rng = np.random.default_rng(1)
    inputs = [(rng.standard_normal((16, 64)).astype(np.float32), rng.standard_normal(64).astype(np.float32))
              for _ in range(8)]
    jax.block_until_ready(f(*inputs[0]))  # (built and compiled once, before the threads)
    got: dict[int, Any] = {}

    def work(k: int) -> None:
        for _ in range(20):
            got[k] = [np.asarray(o) for o in f(*inputs[k])]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k, (x, g) in enumerate(inputs):
        want = layer_norm(x, g, None, epsilon=1e-3)
        assert all(np.array_equal(a, b) for a, b in zip(got[k], want, strict=True)), k


def test_ops_left_out_are_listed_with_why() -> None:
    assert set(gj.NOT_PROVIDED) == {op.name for op in SPECS if jaxgen.not_provided(op) is not None}
    assert {"Batch", "Unbatch", "UnbatchGrad"} <= set(gj.NOT_PROVIDED)
    assert all(not hasattr(gj, BY_NAME[name].snake_name) for name in gj.NOT_PROVIDED)
    assert all(hasattr(gj, BY_NAME[op.name].snake_name) for op in OPS)


def test_an_optional_input_left_out_is_absent_not_zero() -> None:
    x = np.random.default_rng(2).standard_normal((3, 8)).astype(np.float32)
    beta = np.full(8, 0.5, np.float32)
    from generated import layer_norm

    got = jax.jit(lambda x, b: gj.layer_norm(x, None, b))(x, beta)
    assert np.array_equal(np.asarray(got.y), layer_norm(x, None, beta).y)
    assert not np.array_equal(np.asarray(got.y), layer_norm(x, beta, None).y)  # (beta went where beta goes)


BUILT_FOR = '#include <cstdint>\nextern "C" const char* opgen_jax_built_for() { return "%s"; }\n'


def _tiny(tmp_path: Path, text: str) -> Path:
    src, lib = tmp_path / "lib.cpp", tmp_path / "lib.so"
    src.write_text(BUILT_FOR % text)
    subprocess.run([*_compiler_command(), "-shared", "-fPIC", str(src), "-o", str(lib)], check=True)
    return lib


def test_a_library_built_for_another_jax_is_refused_by_name_and_not_loaded(tmp_path: Path) -> None:
    expected = jax_library.built_for()
    assert expected.startswith(f"jax {jax.__version__}, XLA FFI API ")
    other = _tiny(tmp_path, "jax 0.0.1, XLA FFI API 0.1")
    why = f"lib.so: built for jax 0.0.1, XLA FFI API 0.1, this process has {expected}"
    assert jax_library.refusal(ctypes.CDLL(str(other)), "lib.so", expected) == why
    with pytest.warns(jax_library.JaxLibraryWarning, match=re.escape(f"{why}: refused, rebuilt")):
        assert jax_library._opener(expected)(other) is None  # (the cache then drops it and builds anew)


def test_a_library_built_for_this_jax_is_taken(tmp_path: Path) -> None:
    expected = jax_library.built_for()
    lib = _tiny(tmp_path, expected)
    assert jax_library.refusal(ctypes.CDLL(str(lib)), "lib.so", expected) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert jax_library._opener(expected)(lib) is not None


def test_the_cached_library_says_what_it_was_built_for() -> None:
    gj._LIBRARY.ensure()
    lib = jax_library._LOADED[gj._LIBRARY.source]
    assert jax_library.refusal(lib, "jax_ffi", jax_library.built_for()) is None


def test_jnp_and_the_op_agree_in_float32() -> None:  # (a sanity check on the outputs' meaning)
    x = jnp.asarray(np.random.default_rng(3).standard_normal((4, 16)).astype(np.float32))
    y = jax.jit(lambda x: gj.softmax(x).y)(x)
    np.testing.assert_allclose(np.asarray(y), np.asarray(jax.nn.softmax(x, axis=-1)), rtol=1e-5, atol=1e-6)


_HUGE_PAGE_PROBE = r"""
import sys
import jax, jax.numpy as jnp
import generated.jax as gj

def vma_of(address):  # (start, end, VmFlags) of the mapping that holds `address`, from /proc/self/smaps
    start = end = None
    for line in open("/proc/self/smaps"):
        head = line.split()
        if "-" in head[0] and len(head) >= 5 and all(c in "0123456789abcdef-" for c in head[0]):
            start, end = (int(v, 16) for v in head[0].split("-"))
        elif head[0] == "VmFlags:" and start <= address < end:
            return start, end, head[1:]
    raise SystemExit(f"no mapping holds {address:#x}")

for rows in (256, 2048):  # a 1 MiB result (under the advice's 8 MiB floor), a 32 MiB one
    x = jax.jit(lambda: jnp.linspace(-3.0, 3.0, rows * 4096, dtype=jnp.float32).reshape(rows, 4096))()
    y = jax.jit(lambda x: gj.softmax(x, axis=1).y)(x)
    y.block_until_ready()
    p, n = y.unsafe_buffer_pointer(), y.nbytes
    inner = -(-p // (2 << 20)) * (2 << 20)  # the first 2 MiB boundary in the buffer
    start, end, flags = vma_of(inner)
    print(rows, "hg" in flags, start >= p - (p % (2 << 20)) and end <= p + n, flags)
"""


@pytest.mark.skipif(not Path("/sys/kernel/mm/transparent_hugepage/enabled").exists(),
                    reason="the kernel has no transparent huge pages")
def test_the_cpu_handler_advises_huge_pages_for_a_large_result_only_inside_it() -> None:
    """XLA's cpu result buffers are fresh per call; a large one is advised MADV_HUGEPAGE (host_pages.h)
    over its 2 MiB-aligned interior only, a small one not at all (run in a fresh process: its own
    mappings, nothing else advised)."""
    done = subprocess.run([sys.executable, "-c", _HUGE_PAGE_PROBE], capture_output=True, text=True, timeout=600,
                          cwd=PROJECT)
    assert done.returncode == 0, done.stderr[-3000:]
    small, large = (line.split() for line in done.stdout.strip().splitlines()[-2:])
    assert small[:2] == ["256", "False"], done.stdout
    assert large[:3] == ["2048", "True", "True"], done.stdout
