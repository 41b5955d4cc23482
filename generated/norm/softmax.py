# generated from specs/norm/softmax.yaml by opgen — do not edit (opgen 0.1.0)
"""Softmax: Softmax along one dimension."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import numpy as _np

# isort: split
from codegen.runtime import api as _rt
from codegen.runtime.kernels import KernelSource
from codegen.runtime.scope import Scope

_OP = 'Softmax'
_KERNELS = KernelSource(_OP, Path(__file__).with_name("softmax.cu"))
# The launch plan as data (codegen/runtime/plan.py): what _compute runs, recorded once per set of sizes
# and attrs; the loop in _compute is the same plan as Python (OPGEN_PLAN=loop runs it).
_PLAN = _rt.Plan('Softmax', ('_dtype_T', 'row_blocks', 'row_threads', 'rows', 'N', 'inner', 'column_blocks', 'column_threads', 'columns'), ('x', 'y'), (
    ('launch', 'softmax_rows', ('_dtype_T',), ('row_blocks',), ('row_threads',), 0, (('buf', 0), ('buf', 1), ('scalar', '_np.int64', 'rows', None, ()), ('scalar', '_np.int64', 'N', None, ())), (('==', 'inner', 1),)),
    ('launch', 'softmax_columns', ('_dtype_T',), ('column_blocks',), ('column_threads',), 0, (('buf', 0), ('buf', 1), ('scalar', '_np.int64', 'columns', None, ()), ('scalar', '_np.int64', 'N', None, ()), ('scalar', '_np.int64', 'inner', None, ())), (('>', 'inner', 1),)),
), {
    'softmax_rows': {('float16',): 'Softmax__softmax_rows__float16', ('bfloat16',): 'Softmax__softmax_rows__bfloat16', ('float32',): 'Softmax__softmax_rows__float32'},
    'softmax_columns': {('float16',): 'Softmax__softmax_columns__float16', ('bfloat16',): 'Softmax__softmax_columns__bfloat16', ('float32',): 'Softmax__softmax_columns__float32'},
})
# The op's native driver (codegen/runtime/native_driver.py): _compute hands it the call first.
_NATIVE = _rt.NativeDriver(_OP, _KERNELS, _PLAN, Path(__file__).with_name("softmax.driver.cpp"))


class SoftmaxOutputs(NamedTuple):
    """The outputs of Softmax, in order."""

    y: Any
    """T, shape [*outer, N, *inner]. The softmax of x along axis."""


class Softmax:
    """Softmax along one dimension.

    y = exp(x − max(x))/Σ exp(x − max(x)) along dimension `axis` of x, as PyTorch's
    `torch.softmax(x, axis)`, including its handling of non-finite values: a row (the elements
    along `axis` at one position of the other dimensions) holding a NaN or +inf is all NaN, a row of
    -inf only is all NaN, and a -inf element of any other row gives 0. The sums run in float32 for
    every T.

    Create it with `Softmax.create(scope, x, *options)`, or call
    `softmax(...)`. The reference page is generated/docs/norm/softmax.md.
    """

    OP_NAME = 'Softmax'
    Outputs = SoftmaxOutputs

    class Options:
        """Optional attributes for Softmax; each setter returns the Options, so calls chain."""

        __slots__ = ("_values",)

        def __init__(self) -> None:
            self._values: dict[str, Any] = {}

        def axis(self, axis: int) -> Softmax.Options:
            """Sets axis (default -1). The dimension to normalize along (negative counts from the end)."""
            self._values['axis'] = axis
            return self

        def __repr__(self) -> str:
            items = ", ".join(f"{key}={value!r}" for key, value in self._values.items())
            return f"Softmax.Options({items})"

    @staticmethod
    def axis(axis: int) -> Softmax.Options:
        """Options with axis set (default -1)."""
        return Softmax.Options().axis(axis)

    @classmethod
    def create(
        cls,
        scope: Scope | str | None,
        x: Any,
        *options: Softmax.Options,
    ) -> Softmax:
        """Factory method to create a class wrapping a new Softmax operation.

        Args:
            scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).
            x: T, shape [*outer, N, *inner].
                Any tensor of rank 1 or more.
            options: Softmax.Options carrying optional attribute values.

        Raises:
            TypeError: an argument has the wrong type or dtype.
            ValueError: a shape or an attribute value is not valid.
        """
        _merged = _rt.merge_options(_OP, options, cls.Options)
        return cls(_run(
            scope, x,
            _merged.get('axis', -1),
        ))

    def __init__(self, outputs: SoftmaxOutputs) -> None:
        self._outputs = outputs

    @property
    def y(self) -> Any:
        """The softmax of x along axis."""
        return self._outputs.y

    def output_tuple(self) -> SoftmaxOutputs:
        """All outputs, in order."""
        return self._outputs

    def __repr__(self) -> str:
        return _rt.op_repr(_OP, self._outputs)


def softmax(
    x: Any,
    *,
    axis: int = -1,
    scope: Scope | str | None = None,
) -> SoftmaxOutputs:
    """Softmax along one dimension.

    Args:
        x: T, shape [*outer, N, *inner].
            Any tensor of rank 1 or more.
        axis: int; default -1.
            The dimension to normalize along (negative counts from the end).
        scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).

    Returns:
        SoftmaxOutputs(y).

    Raises:
        TypeError: an argument has the wrong type or dtype.
        ValueError: a shape or an attribute value is not valid.
    """
    if type(x) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (x,), (axis,), SoftmaxOutputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(x)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'x': x}, (axis,))
    return _compute(scope, x, axis)


def _run(scope: Scope | str | None, x: Any, axis: Any) -> SoftmaxOutputs:
    if type(x) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (x,), (axis,), SoftmaxOutputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(x)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'x': x}, (axis,))
    return _compute(scope, x, axis)


def _compute(scope: Scope | str | None, x: Any, axis: Any) -> SoftmaxOutputs:
    _backend = _rt.backend_of(scope, _OP)
    _native = _NATIVE.call(_backend, (x,), (axis,), SoftmaxOutputs)
    if _native is not None:  # the op's native driver ran the call (its outputs made as this NamedTuple)
        return _native
    axis = _rt.check_int(_OP, 'axis', axis, None, None, None)
    x = _backend.adopt(_OP, 'x', x)
    _dtype_T = _rt.check_dtype(_OP, 'x', x, ('float16', 'bfloat16', 'float32'), 'T')
    if x.ndim < 1:
        raise _rt.shape_error(_OP, 'x', ('*outer', 'N', '*inner'), x.shape, {}, '')
    _axis_x = _rt.normalize_axis(_OP, 'axis', axis, 'x', x.ndim, 0, 0)
    N = x.shape[_axis_x]
    _group_outer = tuple(x.shape[0:_axis_x])
    outer = _rt.prod(_group_outer)
    _group_inner = tuple(x.shape[_axis_x + 1:x.ndim - 0])
    inner = _rt.prod(_group_inner)
    rows = outer
    columns = outer*inner
    row_threads = (1 if _backend.name == 'cpu' else max(32, min(1024, 32*(-(-N//128)))))
    row_blocks = (min(rows, max(1, min(64, (-(-(rows*N)//4096))))) if _backend.name == 'cpu' else min(rows, 65536))
    column_threads = (1 if _backend.name == 'cpu' else 256)
    column_blocks = (min(columns, max(1, min(64, (-(-(columns*N)//4096))))) if _backend.name == 'cpu' else min((-(-columns//256)), 65536))
    _shape_y = [*_group_outer, N, *_group_inner]
    y = _backend.empty(_shape_y, _dtype_T)
    if _rt.plan_as_data():
        _rt.run_plan(_backend, _KERNELS, _PLAN, (_dtype_T, row_blocks, row_threads, rows, N, inner, column_blocks, column_threads, columns,), (x, y,))
    else:  # the same plan as Python: for a reader, and run with OPGEN_PLAN=loop
        _rt.hold_if_capturing(_backend, (x, y,))
        if inner == 1:
            _backend.launch(_KERNELS, _PLAN.symbol('softmax_rows', _dtype_T), (row_blocks,), (row_threads,), (x, y, _np.int64(rows), _np.int64(N),), 0)
        if inner > 1:
            _backend.launch(_KERNELS, _PLAN.symbol('softmax_columns', _dtype_T), (column_blocks,), (column_threads,), (x, y, _np.int64(columns), _np.int64(N), _np.int64(inner),), 0)
    _backend.flush()
    return SoftmaxOutputs(y)


def _fake(_backend: Any, x: Any, axis: Any) -> SoftmaxOutputs:
    """The outputs of a call as empty tensors of the right shapes and dtypes, made by `_backend`
    (the torch registration's fake implementation: nothing runs, no data is read)."""
    axis = _rt.check_int(_OP, 'axis', axis, None, None, None)
    _dtype_T = _rt.check_dtype(_OP, 'x', x, ('float16', 'bfloat16', 'float32'), 'T')
    if x.ndim < 1:
        raise _rt.shape_error(_OP, 'x', ('*outer', 'N', '*inner'), x.shape, {}, '')
    _axis_x = _rt.normalize_axis(_OP, 'axis', axis, 'x', x.ndim, 0, 0)
    N = x.shape[_axis_x]
    _group_outer = tuple(x.shape[0:_axis_x])
    _group_inner = tuple(x.shape[_axis_x + 1:x.ndim - 0])
    _shape_y = [*_group_outer, N, *_group_inner]
    y = _backend.empty(_shape_y, _dtype_T)
    return SoftmaxOutputs(y)
