"""What a package's generated `jax.py` calls (issue 34): one op as `jax.ffi.ffi_call`. At trace time
the op's `_fake` (the torch registration's shape function) checks the inputs' shapes and dtypes
and the attrs with the wrapper's messages and gives the outputs' shapes and dtypes; the call
itself runs the op's handler (codegen/jaxgen.py), registered on first use (jax_library.load)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from codegen import jaxgen
from codegen.runtime import checks, jax_library


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
    """A package's handler library: its source, its ops' (target, handler symbol) pairs and their
    wrapper modules (bound to their kernels when it loads)."""

    source: Path
    targets: tuple[tuple[str, str], ...]
    modules: Callable[[], Sequence[Any]] = field(compare=False)

    def ensure(self) -> None:
        jax_library.load(self.source, self.targets, self.modules())


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


def _encode(op: JaxOp, attr: str, kind: str, value: Any) -> dict[str, Any]:
    """An attr the wrapper's checks accepted as the XLA attribute(s) its handler decodes (jaxgen.ATTR_KINDS)."""
    if kind == "acts":
        return _activations(op, attr, value)
    if kind == "int":
        return {attr: np.int64(value)}
    if kind == "float":
        return {attr: np.float64(value)}
    if kind == "bool":
        return {attr: np.bool_(value)}
    if kind == "ints":
        return {attr: np.array([int(v) for v in value], dtype=np.int64)}
    return {attr: value if isinstance(value, str) else np.dtype(value).name}  # str, enum, type


def call(op: JaxOp, inputs: Sequence[Any], attrs: Sequence[Any]) -> Any:
    """The op's outputs (its Outputs tuple; an output the op did not compute is None)."""
    jax = _jax()
    arrays = [None if v is None else _array(op.name, n, v) for n, v in zip(op.inputs, inputs, strict=True)]
    shapes = op.fake(ShapeBackend(), *arrays, *attrs)  # (raises the wrapper's errors, at trace time)
    op.library.ensure()
    results = [s if s is not None else jax.ShapeDtypeStruct((0,), np.float32) for s in shapes]
    encoded: dict[str, Any] = {jaxgen.PRESENT: np.int64(sum(1 << k for k, a in enumerate(arrays) if a is not None))}
    for (attr, kind), value in zip(op.attrs, attrs, strict=True):
        encoded.update(_encode(op, attr, kind, value))
    out = jax.ffi.ffi_call(op.target, results, vmap_method=op.vmap_method)(
        *(a for a in arrays if a is not None), **encoded)
    return type(shapes)(*(None if s is None else o for s, o in zip(shapes, out, strict=True)))
