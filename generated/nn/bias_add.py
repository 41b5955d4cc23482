# generated from specs/nn/bias_add.yaml by opgen — do not edit (opgen 0.1.0)
"""BiasAdd: Adds a bias to the channel dimension of value."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as _np

# isort: split
from codegen.runtime import api as _rt
from codegen.runtime.kernels import KernelSource
from codegen.runtime.scope import Scope

_OP = 'BiasAdd'
_KERNELS = KernelSource(_OP, Path(__file__).with_name("bias_add.cu"))
# The launch plan as data (codegen/runtime/plan.py): what _compute runs, recorded once per set of sizes
# and attrs; the loop in _compute is the same plan as Python (OPGEN_PLAN=loop runs it).
_PLAN = _rt.Plan('BiasAdd', ('_dtype_T', 'row_blocks', 'row_threads', 'rows', 'width', 'C', 'by_channel'), ('value', 'bias', 'output'), (
    ('launch', 'bias_add', ('_dtype_T',), ('row_blocks',), ('row_threads',), 0, (('buf', 0), ('buf', 1), ('buf', 2), ('scalar', '_np.int64', 'rows', None, ()), ('scalar', '_np.int64', 'width', None, ()), ('scalar', '_np.int64', 'C', None, ()), ('scalar', '_np.int64', 'by_channel', None, ())), ()),
), {
    'bias_add': {('float16',): 'BiasAdd__bias_add__float16', ('bfloat16',): 'BiasAdd__bias_add__bfloat16', ('float32',): 'BiasAdd__bias_add__float32', ('float64',): 'BiasAdd__bias_add__float64'},
})
# The op's native driver (codegen/runtime/native_driver.py): _compute hands it the call first.
_NATIVE = _rt.NativeDriver(_OP, _KERNELS, _PLAN, Path(__file__).with_name("bias_add.driver.cpp"))

DataFormat = Literal['NHWC', 'NCHW']


class BiasAddOutputs(NamedTuple):
    """The outputs of BiasAdd, in order."""

    output: Any
    """T, shape [N, *mid, C] (NHWC) · [N, C, *spatial] (NCHW). value + bias along the channel dimension."""


class BiasAdd:
    """Adds a bias to the channel dimension of value.

    output = value + bias, the bias broadcast along the channel dimension, as TensorFlow's BiasAdd:
    with data_format NHWC the channel dimension is the last one (value is [N, ..., C], rank 2 or
    more); with NCHW it is dimension 1 (value is [N, C, ...]: [N, C, H, W], [N, C, D, H, W], any
    rank 2 or more; rank 2 is [N, C], whose channel dimension is also the last, as TensorFlow's
    kernels run it, though TensorFlow's graph shape check wants rank 3 or more for NCHW).
    16-bit types are added in float32 and rounded once.

    Create it with `BiasAdd.create(scope, value, bias, *options)`, or call
    `bias_add(...)`. The reference page is generated/docs/nn/bias_add.md.
    """

    OP_NAME = 'BiasAdd'
    Outputs = BiasAddOutputs

    class Options:
        """Optional attributes for BiasAdd; each setter returns the Options, so calls chain."""

        __slots__ = ("_values",)

        def __init__(self) -> None:
            self._values: dict[str, Any] = {}

        def data_format(self, data_format: DataFormat) -> BiasAdd.Options:
            """Sets data_format (default 'NHWC'). Where the channel dimension is: last (NHWC) or dimension 1 (NCHW)."""
            self._values['data_format'] = data_format
            return self

        def __repr__(self) -> str:
            items = ", ".join(f"{key}={value!r}" for key, value in self._values.items())
            return f"BiasAdd.Options({items})"

    @staticmethod
    def data_format(data_format: DataFormat) -> BiasAdd.Options:
        """Options with data_format set (default 'NHWC')."""
        return BiasAdd.Options().data_format(data_format)

    @classmethod
    def create(
        cls,
        scope: Scope | str | None,
        value: Any,
        bias: Any,
        *options: BiasAdd.Options,
    ) -> BiasAdd:
        """Factory method to create a class wrapping a new BiasAdd operation.

        Args:
            scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).
            value: T, shape [N, *mid, C] (NHWC) · [N, C, *spatial] (NCHW).
                The tensor, rank 2 or more.
            bias: T, shape [C].
                One value per channel.
            options: BiasAdd.Options carrying optional attribute values.

        Raises:
            TypeError: an argument has the wrong type or dtype.
            ValueError: a shape or an attribute value is not valid.
        """
        _merged = _rt.merge_options(_OP, options, cls.Options)
        return cls(_run(
            scope, value, bias,
            _merged.get('data_format', 'NHWC'),
        ))

    def __init__(self, outputs: BiasAddOutputs) -> None:
        self._outputs = outputs

    @property
    def output(self) -> Any:
        """value + bias along the channel dimension."""
        return self._outputs.output

    def output_tuple(self) -> BiasAddOutputs:
        """All outputs, in order."""
        return self._outputs

    def __repr__(self) -> str:
        return _rt.op_repr(_OP, self._outputs)


def bias_add(
    value: Any,
    bias: Any,
    *,
    data_format: DataFormat = 'NHWC',
    scope: Scope | str | None = None,
) -> BiasAddOutputs:
    """Adds a bias to the channel dimension of value.

    Args:
        value: T, shape [N, *mid, C] (NHWC) · [N, C, *spatial] (NCHW).
            The tensor, rank 2 or more.
        bias: T, shape [C].
            One value per channel.
        data_format: enum in ['NHWC', 'NCHW']; default 'NHWC'.
            Where the channel dimension is: last (NHWC) or dimension 1 (NCHW).
        scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).

    Returns:
        BiasAddOutputs(output).

    Raises:
        TypeError: an argument has the wrong type or dtype.
        ValueError: a shape or an attribute value is not valid.
    """
    if type(value) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (value, bias), (data_format,), BiasAddOutputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(value, bias)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'value': value, 'bias': bias}, (data_format,))
    return _compute(scope, value, bias, data_format)


def _run(scope: Scope | str | None, value: Any, bias: Any, data_format: Any) -> BiasAddOutputs:
    if type(value) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (value, bias), (data_format,), BiasAddOutputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(value, bias)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'value': value, 'bias': bias}, (data_format,))
    return _compute(scope, value, bias, data_format)


def _compute(scope: Scope | str | None, value: Any, bias: Any, data_format: Any) -> BiasAddOutputs:
    _backend = _rt.backend_of(scope, _OP)
    _native = _NATIVE.call(_backend, (value, bias), (data_format,), BiasAddOutputs)
    if _native is not None:  # the op's native driver ran the call (its outputs made as this NamedTuple)
        return _native
    data_format = _rt.check_enum(_OP, 'data_format', data_format, ('NHWC', 'NCHW'))
    value = _backend.adopt(_OP, 'value', value)
    _dtype_T = _rt.check_dtype(_OP, 'value', value, ('float16', 'bfloat16', 'float32', 'float64'), 'T')
    bias = _backend.adopt(_OP, 'bias', bias)
    _rt.check_same_dtype(_OP, 'bias', bias, _dtype_T, 'T', 'value')
    if data_format == 'NHWC':
        if value.ndim < 2:
            raise _rt.shape_error(_OP, 'value', ('N', '*mid', 'C'), value.shape, {}, 'data_format NHWC')
        N = value.shape[0]
        C = value.shape[value.ndim - 1]
        _group_mid = tuple(value.shape[1:value.ndim - 1])
        mid = _rt.prod(_group_mid)
        if bias.ndim != 1:
            raise _rt.shape_error(_OP, 'bias', ('C',), bias.shape, {'C': C}, 'data_format NHWC')
        if bias.shape[0] != C:
            raise _rt.shape_error(_OP, 'bias', ('C',), bias.shape, {'C': C}, 'data_format NHWC')
        outer = N*mid
        inner = 1
        by_channel = inner != 1
        rows = by_channel*outer*C + (1 - by_channel)*outer
        width = by_channel*inner + (1 - by_channel)*C
        row_threads = (1 if _backend.name == 'cpu' else max(32, min(512, 32*(-(-width//128)))))
        row_blocks = (min(rows, max(1, min(16, (-(-(rows*width)//4096))))) if _backend.name == 'cpu' else min(rows, 65536))
        _shape_output = [N, *_group_mid, C]
    elif data_format == 'NCHW':
        if value.ndim < 2:
            raise _rt.shape_error(_OP, 'value', ('N', 'C', '*spatial'), value.shape, {}, 'data_format NCHW')
        N = value.shape[0]
        C = value.shape[1]
        _group_spatial = tuple(value.shape[2:value.ndim - 0])
        spatial = _rt.prod(_group_spatial)
        if bias.ndim != 1:
            raise _rt.shape_error(_OP, 'bias', ('C',), bias.shape, {'C': C}, 'data_format NCHW')
        if bias.shape[0] != C:
            raise _rt.shape_error(_OP, 'bias', ('C',), bias.shape, {'C': C}, 'data_format NCHW')
        outer = N
        inner = spatial
        by_channel = inner != 1
        rows = by_channel*outer*C + (1 - by_channel)*outer
        width = by_channel*inner + (1 - by_channel)*C
        row_threads = (1 if _backend.name == 'cpu' else max(32, min(512, 32*(-(-width//128)))))
        row_blocks = (min(rows, max(1, min(16, (-(-(rows*width)//4096))))) if _backend.name == 'cpu' else min(rows, 65536))
        _shape_output = [N, C, *_group_spatial]
    else:
        raise AssertionError(data_format)
    output = _backend.empty(_shape_output, _dtype_T)
    if _rt.plan_as_data():
        _rt.run_plan(_backend, _KERNELS, _PLAN, (_dtype_T, row_blocks, row_threads, rows, width, C, by_channel,), (value, bias, output,))
    else:  # the same plan as Python: for a reader, and run with OPGEN_PLAN=loop
        _rt.hold_if_capturing(_backend, (value, bias, output,))
        _backend.launch(_KERNELS, _PLAN.symbol('bias_add', _dtype_T), (row_blocks,), (row_threads,), (value, bias, output, _np.int64(rows), _np.int64(width), _np.int64(C), _np.int64(by_channel),), 0)
    _backend.flush()
    return BiasAddOutputs(output)


def _fake(_backend: Any, value: Any, bias: Any, data_format: Any) -> BiasAddOutputs:
    """The outputs of a call as empty tensors of the right shapes and dtypes, made by `_backend`
    (the torch registration's fake implementation: nothing runs, no data is read)."""
    data_format = _rt.check_enum(_OP, 'data_format', data_format, ('NHWC', 'NCHW'))
    _dtype_T = _rt.check_dtype(_OP, 'value', value, ('float16', 'bfloat16', 'float32', 'float64'), 'T')
    _rt.check_same_dtype(_OP, 'bias', bias, _dtype_T, 'T', 'value')
    if data_format == 'NHWC':
        if value.ndim < 2:
            raise _rt.shape_error(_OP, 'value', ('N', '*mid', 'C'), value.shape, {}, 'data_format NHWC')
        N = value.shape[0]
        C = value.shape[value.ndim - 1]
        _group_mid = tuple(value.shape[1:value.ndim - 1])
        if bias.ndim != 1:
            raise _rt.shape_error(_OP, 'bias', ('C',), bias.shape, {'C': C}, 'data_format NHWC')
        if bias.shape[0] != C:
            raise _rt.shape_error(_OP, 'bias', ('C',), bias.shape, {'C': C}, 'data_format NHWC')
        _shape_output = [N, *_group_mid, C]
    elif data_format == 'NCHW':
        if value.ndim < 2:
            raise _rt.shape_error(_OP, 'value', ('N', 'C', '*spatial'), value.shape, {}, 'data_format NCHW')
        N = value.shape[0]
        C = value.shape[1]
        _group_spatial = tuple(value.shape[2:value.ndim - 0])
        if bias.ndim != 1:
            raise _rt.shape_error(_OP, 'bias', ('C',), bias.shape, {'C': C}, 'data_format NCHW')
        if bias.shape[0] != C:
            raise _rt.shape_error(_OP, 'bias', ('C',), bias.shape, {'C': C}, 'data_format NCHW')
        _shape_output = [N, C, *_group_spatial]
    else:
        raise AssertionError(data_format)
    output = _backend.empty(_shape_output, _dtype_T)
    return BiasAddOutputs(output)
