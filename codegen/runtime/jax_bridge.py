"""What a package's generated `jax.py` calls (issue 34): one op as `jax.ffi.ffi_call`. At trace time
the op's `_fake` (the torch registration's shape function) checks the inputs' shapes and dtypes
and the attrs with the wrapper's messages and gives the outputs' shapes and dtypes; the call
itself runs the op's handler (codegen/jaxgen.py), registered on first use (jax_library.load)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from codegen.runtime import checks, jax_library
from codegen.runtime.jax_abi import PRESENT


def _jax() -> Any:
    import jax

    return jax


class ShapeBackend:
    """What a `_fake` call allocates with under JAX: the outputs' shapes and dtypes only."""

    name = "cpu"

    def empty(self, shape: Sequence[int], dtype: str) -> Any:
        jax = _jax()
        return jax.ShapeDtypeStruct(tuple(int(d) for d in shape), jax.numpy.dtype(dtype))


@dataclass(frozen=True)
class Library:
    """A package's handler library: its source, its ops' (target, handler stem) pairs and their
    wrapper modules (bound to their kernels when it loads)."""

    source: Path
    targets: tuple[tuple[str, str], ...]
    modules: Callable[[], Sequence[Any]] = field(compare=False)

    def ensure(self) -> None:
        jax_library.load(self.source, self.targets, self.modules())


@dataclass(frozen=True)
class Gradient:
    """A forward op's backward (codegen/jaxgen.gradient): `function()` is the gradient op's; the
    rest names where each of its inputs and attrs comes from and what each forward input gets."""

    function: Callable[[], Callable[..., Any]]  # the gradient op's function in the same module
    inputs: tuple[str | None, ...]
    attrs: tuple[tuple[str, str], ...]
    grads: tuple[tuple[str, str], ...]
    outputs: tuple[str, ...]
    helper: tuple[str, str, tuple[str, ...], tuple[str, ...]] | None = None
    requires: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class JaxOp:
    """One op as jax.py calls it: its name, FFI target, wrapper `_fake`, inputs and (attr, kind)s."""

    name: str
    target: str
    fake: Callable[..., Any]
    inputs: tuple[str, ...]
    attrs: tuple[tuple[str, str], ...]
    library: Library
    vmap_method: str = "sequential"
    activation: Any = None  # the package's Activation class, for an op with activation attrs
    outputs: tuple[str, ...] = ()
    gradient: Gradient | None = None
    no_gradient: str = ""  # why there is none (the torch registration's words)


def _array(op: str, arg: str, value: Any) -> Any:
    checks.require_array(op, arg, value)  # (the wrapper's message for something not an array)
    return _jax().numpy.asarray(value)


def _activations(op: JaxOp, attr: str, value: Any) -> dict[str, Any]:
    """An activation attr (an instance, a name, its text form, or a list of them) as its ids, its
    kernel parameters and whether it was one (the driver repeats a single one)."""
    single = isinstance(value, str) or not isinstance(value, Sequence)
    items = [op.activation.of(v, f"{op.name}: attr {attr}") for v in ([value] if single else value)]
    args = [a.kernel_args() for a in items]
    return {attr: np.array([int(a[0]) for a in args], dtype=np.int64),
            f"{attr}__params": np.array([float(p) for a in args for p in a[1:]], dtype=np.float64),
            f"{attr}__single": np.bool_(single)}


#: Each attr kind but `acts` (codegen/jaxgen.ATTR_KINDS) as the XLA attribute its handler decodes.
_ENCODE: dict[str, Callable[[Any], Any]] = {
    "int": np.int64, "float": np.float64, "bool": np.bool_,
    "ints": lambda value: np.array([int(v) for v in value], dtype=np.int64),
    "str": lambda value: value if isinstance(value, str) else np.dtype(value).name,  # (a type attr's dtype)
}


def _encode(op: JaxOp, attr: str, kind: str, value: Any) -> dict[str, Any]:
    """An attr the wrapper's checks accepted as the XLA attribute(s) its handler decodes."""
    return _activations(op, attr, value) if kind == "acts" else {attr: _ENCODE[kind](value)}


def call(op: JaxOp, inputs: Sequence[Any], attrs: Sequence[Any]) -> Any:
    """The op's outputs (its Outputs tuple; an output the op did not compute is None), differentiable
    through the op's `autograd:` (jax.custom_vjp)."""
    arrays = [None if v is None else _array(op.name, n, v) for n, v in zip(op.inputs, inputs, strict=True)]
    shapes = op.fake(ShapeBackend(), *arrays, *attrs)  # (raises the wrapper's errors, at trace time)
    op.library.ensure()
    run = _ffi(op, shapes, arrays, attrs)
    given = [k for k, a in enumerate(arrays) if a is not None]

    def primal(*xs: Any) -> tuple[Any, ...]:
        return tuple(run(*xs))

    def fwd(*xs: Any) -> tuple[tuple[Any, ...], Any]:
        out = primal(*xs)
        return out, (xs, out)

    def bwd(saved: Any, cotangents: tuple[Any, ...]) -> tuple[Any, ...]:
        xs, out = saved
        return _backward(op, dict(zip((op.inputs[k] for k in given), xs, strict=True)),
                         dict(zip(op.outputs, out, strict=True)), dict(zip(op.outputs, cotangents, strict=True)),
                         dict(zip((a for a, _ in op.attrs), attrs, strict=True)), [op.inputs[k] for k in given])

    differentiable = _jax().custom_vjp(primal)
    differentiable.defvjp(fwd, bwd)
    out = differentiable(*(arrays[k] for k in given))
    return type(shapes)(*(None if s is None else o for s, o in zip(shapes, out, strict=True)))


def _ffi(op: JaxOp, shapes: Sequence[Any], arrays: Sequence[Any], attrs: Sequence[Any]) -> Callable[..., Any]:
    """The ffi_call of the op's handler for the given inputs (None: absent) and checked attrs."""
    jax = _jax()
    results = [s if s is not None else jax.ShapeDtypeStruct((0,), np.float32) for s in shapes]
    encoded: dict[str, Any] = {PRESENT: np.int64(sum(1 << k for k, a in enumerate(arrays) if a is not None))}
    for (attr, kind), value in zip(op.attrs, attrs, strict=True):
        encoded.update(_encode(op, attr, kind, value))
    call = jax.ffi.ffi_call(op.target, results, vmap_method=op.vmap_method)
    return lambda *xs: call(*xs, **encoded)


def _backward(op: JaxOp, inputs: dict[str, Any], outputs: dict[str, Any], cotangents: dict[str, Any],
              attrs: dict[str, Any], given: list[str]) -> tuple[Any, ...]:
    """One cotangent per given input (None: none flows to it), from the gradient op's call as the
    torch registration's backward makes it (torchgen.backward_body)."""
    grad = op.gradient
    if grad is None:
        raise RuntimeError(f"{op.name} has no gradient: {op.no_gradient}")
    unmet = [(a, v) for a, v in grad.requires if (bool(attrs[a]) != v if isinstance(v, bool) else attrs[a] != v)]
    if unmet:
        need = ", ".join(f"{a}={v!r}" for a, v in grad.requires)
        raise RuntimeError(f"{op.name}: backward needs {need}; the forward ran without it")
    tensors = {**inputs, **outputs}

    def source(name: str) -> Any:
        of = name[5:-1] if name.startswith("grad(") and name.endswith(")") else None
        return cotangents[of] if of is not None else tensors.get(name)

    args = [None if s is None else source(s) for s in grad.inputs]
    got = grad.function()(*args, **{name: attrs[src] for name, src in grad.attrs})
    tensors.update(zip(grad.outputs, got, strict=True))
    results = {name: source(src) for name, src in grad.grads}
    if grad.helper is not None:
        module, function, args_of, grads_of = grad.helper
        helper = getattr(importlib.import_module(module), function)
        results.update(zip(grads_of, helper(*(tensors.get(a) for a in args_of)), strict=True))
    return tuple(results.get(name) for name in given)
