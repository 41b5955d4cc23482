"""The package's JAX functions under JAX's transformations (generated/jax.py, codegen/jax_bridge.py):

* jax.grad through the `autograd:` key (jax.custom_vjp calling the gradient op): every
  differentiable op, and two-op compositions, against finite differences (jax.test_util.check_grads,
  first order; float64 where the ops take it), an op without a gradient and a forward that ran
  without `requires:` refused with the torch registration's words;
* jax.vmap of every op (its vmap_method, derived from the spec) equals the op on each element;
* shard_map over two host devices: each shard one custom call, the single-device result.

The handler library is the one tests/test_jax_ffi.py builds (the kernel cache keeps it)."""

from __future__ import annotations

import dataclasses
import inspect
import os
import runpy
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from codegen import jaxgen
from codegen.load import load_specs
from codegen.warmup import generated_ops

jax = pytest.importorskip("jax", reason="JAX is not installed (the opgen[jax] extra)")
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
from jax.test_util import check_grads as _check_grads  # noqa: E402

import generated.jax as gj  # noqa: E402  (after the skip: it imports jax)

check_grads: Any = _check_grads  # (unannotated in jax)

PROJECT = Path(__file__).resolve().parent.parent
SPECS = load_specs(PROJECT / "specs")
BY_NAME = {spec.name: spec for spec in SPECS}
OPS = [op for op in generated_ops() if op.name in BY_NAME and jaxgen.not_provided(BY_NAME[op.name]) is None]
RNG = np.random.default_rng(0)


def test_grad_of_two_bias_adds_in_float64_matches_finite_differences() -> None:
    x, b1, b2 = RNG.standard_normal((3, 4, 8)), RNG.standard_normal(8), RNG.standard_normal(8)

    def f(x: Any, b1: Any, b2: Any) -> Any:
        return gj.bias_add(jnp.tanh(gj.bias_add(x, b1).output), b2).output

    check_grads(jax.jit(f), (x, b1, b2), order=1, modes=("rev",))


def test_grad_of_layer_norm_then_softmax_matches_finite_differences() -> None:
    x = RNG.standard_normal((3, 8)).astype(np.float32)  # (float32: the ops' widest)
    gamma, beta = (RNG.standard_normal(8).astype(np.float32) for _ in range(2))
    weights = jnp.arange(8, dtype=jnp.float32)

    def f(x: Any, gamma: Any, beta: Any) -> Any:
        return jnp.sum(gj.softmax(gj.layer_norm(x, gamma, beta).y).y * weights)

    check_grads(jax.jit(f), (x, gamma, beta), order=1, modes=("rev",), eps=1e-2, atol=2e-2, rtol=2e-2)


def test_grad_of_a_gru_cell_reaches_its_weights_through_the_helper() -> None:
    b, i, h = 2, 3, 4
    x, h_prev = RNG.standard_normal((b, i)).astype(np.float32), RNG.standard_normal((b, h)).astype(np.float32)
    w_ru, w_c = (RNG.standard_normal((i + h, n)).astype(np.float32) * 0.3 for n in (2 * h, h))
    b_ru, b_c = RNG.standard_normal(2 * h).astype(np.float32), RNG.standard_normal(h).astype(np.float32)

    def f(*args: Any) -> Any:
        return jnp.sum(jnp.sin(gj.gru_block_cell(*args).h))

    # (under jit the backward is traced: the helper computes with jax.numpy, not NumPy)
    check_grads(jax.jit(f), (x, h_prev, w_ru, w_c, b_ru, b_c), order=1, modes=("rev",), eps=1e-2, atol=2e-2,
                rtol=2e-2)


DIFFERENTIABLE = sorted(op.name for op in OPS if BY_NAME[op.name].autograd is not None)


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_every_differentiable_op_matches_finite_differences(name: str) -> None:
    """On its first parity case, through every float input `autograd:` gives a gradient: in float64
    where the op takes it (default tolerances), else in float32 (eps 1e-2, tolerances 3e-2)."""
    spec, fn = BY_NAME[name], getattr(gj, BY_NAME[name].snake_name)
    ag = spec.autograd
    assert ag is not None
    args, attrs = _arguments(name, _first_case(name))
    with_grad = {n for n, _ in ag.grads} | set(ag.helper.grads if ag.helper else ())
    diff = [k for k, a in enumerate(args) if a is not None and spec.inputs[k].name in with_grad
            and np.asarray(a).dtype.kind == "f"]
    outs = [k for k, o in enumerate(spec.outputs) if o.name in ag.outputs]

    def f(*xs: Any) -> Any:
        given = list(args)
        for k, x in zip(diff, xs, strict=True):
            given[k] = x
        out = fn(*given, **attrs)
        return sum(jnp.sum(jnp.sin(out[k].astype(jnp.float64))) for k in outs)

    wide = tuple(np.asarray(args[k], np.float64) for k in diff)
    try:
        jax.eval_shape(f, *wide)
    except TypeError:  # (float64 refused by the op's dtype rule)
        check_grads(jax.jit(f), tuple(np.asarray(args[k]) for k in diff), order=1, modes=("rev",), eps=1e-2,
                    atol=3e-2, rtol=3e-2)
    else:
        check_grads(jax.jit(f), wide, order=1, modes=("rev",))


def test_an_absent_optional_input_gets_no_gradient_and_others_do() -> None:
    x, beta = RNG.standard_normal((3, 8)).astype(np.float32), RNG.standard_normal(8).astype(np.float32)
    dx, dbeta = jax.grad(lambda x, b: jnp.sum(gj.layer_norm(x, None, b).y ** 2), argnums=(0, 1))(x, beta)
    assert dx.shape == x.shape and dbeta.shape == beta.shape
    assert float(jnp.abs(dbeta).sum()) > 0


def test_an_op_without_a_gradient_says_why() -> None:
    y = RNG.standard_normal((2, 8)).astype(np.float32)
    with pytest.raises(RuntimeError, match=r"^SoftmaxGrad has no gradient: it is the gradient of Softmax"):
        jax.grad(lambda dy: jnp.sum(gj.softmax_grad(dy, y).dx))(y)


def test_a_backward_the_forward_did_not_allow_is_refused() -> None:
    case = _first_case("CudnnRNNV3")
    spec = BY_NAME["CudnnRNNV3"]
    args, attrs = _arguments("CudnnRNNV3", case)
    attrs["is_training"] = False
    floats = [k for k, a in enumerate(args) if a is not None and np.asarray(a).dtype.kind == "f"]

    def f(x: Any) -> Any:
        given = list(args)
        given[floats[0]] = x
        return jnp.sum(getattr(gj, spec.snake_name)(*given, **attrs)[0])

    with pytest.raises(RuntimeError, match=r"^CudnnRNNV3: backward needs is_training=True; the forward ran without"):
        jax.grad(f)(args[floats[0]])


def _first_case(name: str) -> Any:
    parity = runpy.run_path(str(PROJECT / "scripts" / "gpu_parity.py"))
    op = next(o for o in OPS if o.name == name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for _, case in parity["all_cases"]([op]):
            args, attrs = _arguments(name, case)
            try:
                op.function(*args, **attrs)
            except (TypeError, ValueError):
                continue  # (a case the wrapper refuses)
            return case
    raise AssertionError(f"{name}: no parity case the wrapper takes")


def _arguments(name: str, case: Any) -> tuple[list[Any], dict[str, Any]]:
    op = next(o for o in OPS if o.name == name)
    spec = BY_NAME[name]
    bound = inspect.signature(op.function).bind(*case.args, **case.kwargs)
    bound.apply_defaults()
    return [bound.arguments[a.name] for a in spec.inputs], {a.name: bound.arguments[a.name] for a in spec.attrs}


@pytest.mark.parametrize("name", sorted(op.name for op in OPS))
def test_vmap_equals_the_op_on_each_element(name: str) -> None:
    args, attrs = _arguments(name, _first_case(name))
    fn = getattr(gj, BY_NAME[name].snake_name)
    scaled: list[Any] = [None if a is None else np.asarray(a) * np.asarray(0.5, np.asarray(a).dtype)
                         if np.asarray(a).dtype.kind == "f" else a for a in args]
    batched = [None if a is None else np.stack([a, s]) for a, s in zip(args, scaled, strict=True)]
    try:
        one = [fn(*args, **attrs), fn(*scaled, **attrs)]
    except Exception as e:
        if "needs opgen's Python path" in str(e):
            pytest.skip(f"{name}: its first case runs a GEMM the BLAS does not take")
        raise
    both = jax.vmap(lambda *xs: fn(*xs, **attrs))(*batched)
    for k, out in enumerate(both):
        if out is None:
            continue
        for element in range(2):
            assert np.array_equal(np.asarray(out[element]), np.asarray(one[element][k]), equal_nan=True), (name, k)


def test_vmap_method_is_broadcast_all_only_where_every_shape_takes_the_same_leading_dims() -> None:
    layer_norm = BY_NAME["LayerNorm"]
    assert jaxgen.vmap_method(layer_norm) == "sequential"  # (gamma [D]: no leading dims)
    assert jaxgen.vmap_method(dataclasses.replace(layer_norm, inputs=layer_norm.inputs[:1])) == "broadcast_all"
    assert jaxgen.vmap_method(BY_NAME["Softmax"]) == "sequential"  # (axis places N: [*outer, N, *inner])
    assert jaxgen.vmap_method(BY_NAME["GRUBlockCell"]) == "sequential"  # (no dims group)


SHARD_MAP = """
import numpy as np, jax, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
import generated.jax as gj
assert len(jax.devices()) == 2, jax.devices()
mesh = Mesh(np.array(jax.devices()), ("d",))
x = np.random.default_rng(0).standard_normal((8, 16)).astype(np.float32)
gamma = np.random.default_rng(1).standard_normal(16).astype(np.float32)
def f(x, gamma):
    return gj.softmax(gj.layer_norm(x, gamma).y).y
sharded = jax.jit(jax.shard_map(f, mesh=mesh, in_specs=(P("d"), P()), out_specs=P("d")))
got = sharded(x, gamma)
hlo = sharded.lower(x, gamma).as_text()
assert hlo.count("custom_call") >= 2, hlo
assert len(got.sharding.device_set) == 2
print(bool(np.array_equal(np.asarray(got), np.asarray(jax.jit(f)(x, gamma)))))
"""


def test_shard_map_over_two_host_devices_gives_the_single_device_result() -> None:
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=2", "PYTHONPATH": str(PROJECT)}
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(SHARD_MAP)], cwd=PROJECT, env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "True", out.stdout
