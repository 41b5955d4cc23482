# generated from specs/norm/softmax_grad.yaml by opgen — do not edit (opgen 0.1.0)
"""SoftmaxGrad: The gradient of Softmax."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import numpy as _np

# isort: split
from codegen.runtime import api as _rt
from codegen.runtime.kernels import KernelSource
from codegen.runtime.scope import Scope

_OP = 'SoftmaxGrad'
_KERNELS = KernelSource(_OP, Path(__file__).with_name("softmax.cu"))
# The launch plan as data (codegen/runtime/plan.py): what _compute runs, recorded once per set of sizes
# and attrs; the loop in _compute is the same plan as Python (OPGEN_PLAN=loop runs it).
_PLAN = _rt.Plan('SoftmaxGrad', ('_dtype_T', 'row_blocks', 'row_threads', 'rows', 'N', 'inner', 'column_blocks', 'column_threads', 'columns'), ('y', 'dy', 'dx'), (
    ('launch', 'softmax_grad_rows', ('_dtype_T',), ('row_blocks',), ('row_threads',), 0, (('buf', 0), ('buf', 1), ('buf', 2), ('scalar', '_np.int64', 'rows', None, ()), ('scalar', '_np.int64', 'N', None, ())), (('==', 'inner', 1),)),
    ('launch', 'softmax_grad_columns', ('_dtype_T',), ('column_blocks',), ('column_threads',), 0, (('buf', 0), ('buf', 1), ('buf', 2), ('scalar', '_np.int64', 'columns', None, ()), ('scalar', '_np.int64', 'N', None, ()), ('scalar', '_np.int64', 'inner', None, ())), (('>', 'inner', 1),)),
), {
    'softmax_grad_rows': {('float16',): 'SoftmaxGrad__softmax_grad_rows__float16', ('bfloat16',): 'SoftmaxGrad__softmax_grad_rows__bfloat16', ('float32',): 'SoftmaxGrad__softmax_grad_rows__float32'},
    'softmax_grad_columns': {('float16',): 'SoftmaxGrad__softmax_grad_columns__float16', ('bfloat16',): 'SoftmaxGrad__softmax_grad_columns__bfloat16', ('float32',): 'SoftmaxGrad__softmax_grad_columns__float32'},
})
# The op's native driver (codegen/runtime/native_driver.py): _compute hands it the call first.
_NATIVE = _rt.NativeDriver(_OP, _KERNELS, _PLAN, Path(__file__).with_name("softmax_grad.driver.cpp"))


class SoftmaxGradOutputs(NamedTuple):
    """The outputs of SoftmaxGrad, in order."""

    dx: Any
    """T, shape [*outer, N, *inner]. The gradient with respect to Softmax's x."""


class SoftmaxGrad:
    """The gradient of Softmax.

    Given Softmax's output y and dy, the gradient of a loss with respect to y, computes
    dx = y·(dy − Σ dy·y) along dimension `axis`, as PyTorch's softmax backward. The sums run in
    float32 for every T.

    Create it with `SoftmaxGrad.create(scope, y, dy, *options)`, or call
    `softmax_grad(...)`. The reference page is generated/docs/norm/softmax_grad.md.
    """

    OP_NAME = 'SoftmaxGrad'
    Outputs = SoftmaxGradOutputs

    class Options:
        """Optional attributes for SoftmaxGrad; each setter returns the Options, so calls chain."""

        __slots__ = ("_values",)

        def __init__(self) -> None:
            self._values: dict[str, Any] = {}

        def axis(self, axis: int) -> SoftmaxGrad.Options:
            """Sets axis (default -1). The dimension Softmax normalized along (negative counts from the end)."""
            self._values['axis'] = axis
            return self

        def __repr__(self) -> str:
            items = ", ".join(f"{key}={value!r}" for key, value in self._values.items())
            return f"SoftmaxGrad.Options({items})"

    @staticmethod
    def axis(axis: int) -> SoftmaxGrad.Options:
        """Options with axis set (default -1)."""
        return SoftmaxGrad.Options().axis(axis)

    @classmethod
    def create(
        cls,
        scope: Scope | str | None,
        y: Any,
        dy: Any,
        *options: SoftmaxGrad.Options,
    ) -> SoftmaxGrad:
        """Factory method to create a class wrapping a new SoftmaxGrad operation.

        Args:
            scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).
            y: T, shape [*outer, N, *inner].
                Softmax's output.
            dy: T, shape [*outer, N, *inner].
                The gradient with respect to y.
            options: SoftmaxGrad.Options carrying optional attribute values.

        Raises:
            TypeError: an argument has the wrong type or dtype.
            ValueError: a shape or an attribute value is not valid.
        """
        _merged = _rt.merge_options(_OP, options, cls.Options)
        return cls(_run(
            scope, y, dy,
            _merged.get('axis', -1),
        ))

    def __init__(self, outputs: SoftmaxGradOutputs) -> None:
        self._outputs = outputs

    @property
    def dx(self) -> Any:
        """The gradient with respect to Softmax's x."""
        return self._outputs.dx

    def output_tuple(self) -> SoftmaxGradOutputs:
        """All outputs, in order."""
        return self._outputs

    def __repr__(self) -> str:
        return _rt.op_repr(_OP, self._outputs)


def softmax_grad(
    y: Any,
    dy: Any,
    *,
    axis: int = -1,
    scope: Scope | str | None = None,
) -> SoftmaxGradOutputs:
    """The gradient of Softmax.

    Args:
        y: T, shape [*outer, N, *inner].
            Softmax's output.
        dy: T, shape [*outer, N, *inner].
            The gradient with respect to y.
        axis: int; default -1.
            The dimension Softmax normalized along (negative counts from the end).
        scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).

    Returns:
        SoftmaxGradOutputs(dx).

    Raises:
        TypeError: an argument has the wrong type or dtype.
        ValueError: a shape or an attribute value is not valid.
    """
    if type(y) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (y, dy), (axis,), SoftmaxGradOutputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(y, dy)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'y': y, 'dy': dy}, (axis,))
    return _compute(scope, y, dy, axis)


def _run(scope: Scope | str | None, y: Any, dy: Any, axis: Any) -> SoftmaxGradOutputs:
    if type(y) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (y, dy), (axis,), SoftmaxGradOutputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(y, dy)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'y': y, 'dy': dy}, (axis,))
    return _compute(scope, y, dy, axis)


def _compute(scope: Scope | str | None, y: Any, dy: Any, axis: Any) -> SoftmaxGradOutputs:
    _backend = _rt.backend_of(scope, _OP)
    _native = _NATIVE.call(_backend, (y, dy), (axis,), SoftmaxGradOutputs)
    if _native is not None:  # the op's native driver ran the call (its outputs made as this NamedTuple)
        return _native
    axis = _rt.check_int(_OP, 'axis', axis, None, None, None)
    y = _backend.adopt(_OP, 'y', y)
    _dtype_T = _rt.check_dtype(_OP, 'y', y, ('float16', 'bfloat16', 'float32'), 'T')
    dy = _backend.adopt(_OP, 'dy', dy)
    _rt.check_same_dtype(_OP, 'dy', dy, _dtype_T, 'T', 'y')
    if y.ndim < 1:
        raise _rt.shape_error(_OP, 'y', ('*outer', 'N', '*inner'), y.shape, {}, '')
    _axis_y = _rt.normalize_axis(_OP, 'axis', axis, 'y', y.ndim, 0, 0)
    N = y.shape[_axis_y]
    _group_outer = tuple(y.shape[0:_axis_y])
    outer = _rt.prod(_group_outer)
    _group_inner = tuple(y.shape[_axis_y + 1:y.ndim - 0])
    inner = _rt.prod(_group_inner)
    if dy.ndim < 1:
        raise _rt.shape_error(_OP, 'dy', ('*outer', 'N', '*inner'), dy.shape, {'N': N, '*outer': _group_outer, '*inner': _group_inner}, '')
    _axis_dy = _rt.normalize_axis(_OP, 'axis', axis, 'dy', dy.ndim, 0, 0)
    if dy.shape[_axis_dy] != N or tuple(dy.shape[0:_axis_dy]) != _group_outer or tuple(dy.shape[_axis_dy + 1:dy.ndim - 0]) != _group_inner:
        raise _rt.shape_error(_OP, 'dy', ('*outer', 'N', '*inner'), dy.shape, {'N': N, '*outer': _group_outer, '*inner': _group_inner}, '')
    rows = outer
    columns = outer*inner
    row_threads = (1 if _backend.name == 'cpu' else max(32, min(1024, 32*(-(-N//128)))))
    row_blocks = (min(rows, max(1, min(64, (-(-(rows*N)//4096))))) if _backend.name == 'cpu' else min(rows, 65536))
    column_threads = (1 if _backend.name == 'cpu' else 256)
    column_blocks = (min(columns, max(1, min(64, (-(-(columns*N)//4096))))) if _backend.name == 'cpu' else min((-(-columns//256)), 65536))
    _shape_dx = [*_group_outer, N, *_group_inner]
    dx = _backend.empty(_shape_dx, _dtype_T)
    if _rt.plan_as_data():
        _rt.run_plan(_backend, _KERNELS, _PLAN, (_dtype_T, row_blocks, row_threads, rows, N, inner, column_blocks, column_threads, columns,), (y, dy, dx,))
    else:  # the same plan as Python: for a reader, and run with OPGEN_PLAN=loop
        _rt.hold_if_capturing(_backend, (y, dy, dx,))
        if inner == 1:
            _backend.launch(_KERNELS, _PLAN.symbol('softmax_grad_rows', _dtype_T), (row_blocks,), (row_threads,), (y, dy, dx, _np.int64(rows), _np.int64(N),), 0)
        if inner > 1:
            _backend.launch(_KERNELS, _PLAN.symbol('softmax_grad_columns', _dtype_T), (column_blocks,), (column_threads,), (y, dy, dx, _np.int64(columns), _np.int64(N), _np.int64(inner),), 0)
    _backend.flush()
    return SoftmaxGradOutputs(dx)


def _fake(_backend: Any, y: Any, dy: Any, axis: Any) -> SoftmaxGradOutputs:
    """The outputs of a call as empty tensors of the right shapes and dtypes, made by `_backend`
    (the torch registration's fake implementation: nothing runs, no data is read)."""
    axis = _rt.check_int(_OP, 'axis', axis, None, None, None)
    _dtype_T = _rt.check_dtype(_OP, 'y', y, ('float16', 'bfloat16', 'float32'), 'T')
    _rt.check_same_dtype(_OP, 'dy', dy, _dtype_T, 'T', 'y')
    if y.ndim < 1:
        raise _rt.shape_error(_OP, 'y', ('*outer', 'N', '*inner'), y.shape, {}, '')
    _axis_y = _rt.normalize_axis(_OP, 'axis', axis, 'y', y.ndim, 0, 0)
    N = y.shape[_axis_y]
    _group_outer = tuple(y.shape[0:_axis_y])
    _group_inner = tuple(y.shape[_axis_y + 1:y.ndim - 0])
    if dy.ndim < 1:
        raise _rt.shape_error(_OP, 'dy', ('*outer', 'N', '*inner'), dy.shape, {'N': N, '*outer': _group_outer, '*inner': _group_inner}, '')
    _axis_dy = _rt.normalize_axis(_OP, 'axis', axis, 'dy', dy.ndim, 0, 0)
    if dy.shape[_axis_dy] != N or tuple(dy.shape[0:_axis_dy]) != _group_outer or tuple(dy.shape[_axis_dy + 1:dy.ndim - 0]) != _group_inner:
        raise _rt.shape_error(_OP, 'dy', ('*outer', 'N', '*inner'), dy.shape, {'N': N, '*outer': _group_outer, '*inner': _group_inner}, '')
    _shape_dx = [*_group_outer, N, *_group_inner]
    dx = _backend.empty(_shape_dx, _dtype_T)
    return SoftmaxGradOutputs(dx)
