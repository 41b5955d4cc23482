# generated from specs/nn/bias_add_grad.yaml by opgen — do not edit (opgen 0.1.0)
"""BiasAddGrad: The gradient of BiasAdd with respect to the bias."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as _np

# isort: split
from codegen.runtime import api as _rt
from codegen.runtime.kernels import KernelSource
from codegen.runtime.scope import Scope

_OP = 'BiasAddGrad'
_KERNELS = KernelSource(_OP, Path(__file__).with_name("bias_add.cu"))
# The launch plan as data (codegen/runtime/plan.py): what _compute runs, recorded once per set of sizes
# and attrs; the loop in _compute is the same plan as Python (OPGEN_PLAN=loop runs it).
_PLAN = _rt.Plan('BiasAddGrad', ('_dtype_T', 'channel_blocks', 'channel_splits', 'channel_threads', 'outer', 'C', 'inner', 'by_channel', 'tile', 'column_splits', 'finish_blocks', 'finish_threads', 'splits'), ('out_backprop', 'partials', 'output'), (
    ('launch', 'bias_grad_channels', ('_dtype_T',), ('channel_blocks', 'channel_splits'), ('channel_threads',), 0, (('buf', 0), ('buf', 1), ('scalar', '_np.int64', 'outer', None, ()), ('scalar', '_np.int64', 'C', None, ()), ('scalar', '_np.int64', 'inner', None, ())), (('==', 'by_channel', 1),)),
    ('launch', 'bias_grad_columns', ('_dtype_T',), (('ceildiv', 'C', 'tile'), 'column_splits'), (1,), 0, (('buf', 0), ('buf', 1), ('scalar', '_np.int64', 'outer', None, ()), ('scalar', '_np.int64', 'C', None, ()), ('scalar', '_np.int64', 'tile', None, ())), (('and', ('==', 'by_channel', 0), ('backend', 'cpu')),)),
    ('launch', 'bias_grad_vcolumns', ('_dtype_T',), (('ceildiv', 'C', 256), 'column_splits'), (256,), 0, (('buf', 0), ('buf', 1), ('scalar', '_np.int64', 'outer', None, ()), ('scalar', '_np.int64', 'C', None, ())), (('and', ('==', 'by_channel', 0), ('backend', 'cuda')),)),
    ('launch', 'bias_grad_finish', ('_dtype_T',), ('finish_blocks',), ('finish_threads',), 0, (('buf', 1), ('buf', 2), ('scalar', '_np.int64', 'C', None, ()), ('scalar', '_np.int64', 'splits', None, ())), ()),
), {
    'bias_grad_channels': {('float16',): 'BiasAddGrad__bias_grad_channels__float16', ('bfloat16',): 'BiasAddGrad__bias_grad_channels__bfloat16', ('float32',): 'BiasAddGrad__bias_grad_channels__float32', ('float64',): 'BiasAddGrad__bias_grad_channels__float64'},
    'bias_grad_columns': {('float16',): 'BiasAddGrad__bias_grad_columns__float16', ('bfloat16',): 'BiasAddGrad__bias_grad_columns__bfloat16', ('float32',): 'BiasAddGrad__bias_grad_columns__float32', ('float64',): 'BiasAddGrad__bias_grad_columns__float64'},
    'bias_grad_vcolumns': {('float16',): 'BiasAddGrad__bias_grad_vcolumns__float16', ('bfloat16',): 'BiasAddGrad__bias_grad_vcolumns__bfloat16', ('float32',): 'BiasAddGrad__bias_grad_vcolumns__float32', ('float64',): 'BiasAddGrad__bias_grad_vcolumns__float64'},
    'bias_grad_finish': {('float16',): 'BiasAddGrad__bias_grad_finish__float16', ('bfloat16',): 'BiasAddGrad__bias_grad_finish__bfloat16', ('float32',): 'BiasAddGrad__bias_grad_finish__float32', ('float64',): 'BiasAddGrad__bias_grad_finish__float64'},
})
# The op's native driver (codegen/runtime/native_driver.py): _compute hands it the call first.
_NATIVE = _rt.NativeDriver(_OP, _KERNELS, _PLAN, Path(__file__).with_name("bias_add_grad.driver.cpp"))

DataFormat = Literal['NHWC', 'NCHW']


class BiasAddGradOutputs(NamedTuple):
    """The outputs of BiasAddGrad, in order."""

    output: Any
    """T, shape [C]. The gradient with respect to the bias."""


class BiasAddGrad:
    """The gradient of BiasAdd with respect to the bias.

    output[c] = the sum of out_backprop over every dimension but the channel dimension, as
    TensorFlow's BiasAddGrad: the last dimension with data_format NHWC, dimension 1 with NCHW (rank
    2: [N, C]). The output has out_backprop's type; 16-bit types are summed in float32 and float64 in
    float64, and rounded once. BiasAdd's gradient with respect to value is out_backprop itself.

    Create it with `BiasAddGrad.create(scope, out_backprop, *options)`, or call
    `bias_add_grad(...)`. The reference page is generated/docs/nn/bias_add_grad.md.
    """

    OP_NAME = 'BiasAddGrad'
    Outputs = BiasAddGradOutputs

    class Options:
        """Optional attributes for BiasAddGrad; each setter returns the Options, so calls chain."""

        __slots__ = ("_values",)

        def __init__(self) -> None:
            self._values: dict[str, Any] = {}

        def data_format(self, data_format: DataFormat) -> BiasAddGrad.Options:
            """Sets data_format (default 'NHWC'). Where the channel dimension is: last (NHWC) or dimension 1 (NCHW)."""
            self._values['data_format'] = data_format
            return self

        def __repr__(self) -> str:
            items = ", ".join(f"{key}={value!r}" for key, value in self._values.items())
            return f"BiasAddGrad.Options({items})"

    @staticmethod
    def data_format(data_format: DataFormat) -> BiasAddGrad.Options:
        """Options with data_format set (default 'NHWC')."""
        return BiasAddGrad.Options().data_format(data_format)

    @classmethod
    def create(
        cls,
        scope: Scope | str | None,
        out_backprop: Any,
        *options: BiasAddGrad.Options,
    ) -> BiasAddGrad:
        """Factory method to create a class wrapping a new BiasAddGrad operation.

        Args:
            scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).
            out_backprop: T, shape [N, *mid, C] (NHWC) · [N, C, *spatial] (NCHW).
                The gradient with respect to BiasAdd's output, rank 2 or more.
            options: BiasAddGrad.Options carrying optional attribute values.

        Raises:
            TypeError: an argument has the wrong type or dtype.
            ValueError: a shape or an attribute value is not valid.
        """
        _merged = _rt.merge_options(_OP, options, cls.Options)
        return cls(_run(
            scope, out_backprop,
            _merged.get('data_format', 'NHWC'),
        ))

    def __init__(self, outputs: BiasAddGradOutputs) -> None:
        self._outputs = outputs

    @property
    def output(self) -> Any:
        """The gradient with respect to the bias."""
        return self._outputs.output

    def output_tuple(self) -> BiasAddGradOutputs:
        """All outputs, in order."""
        return self._outputs

    def __repr__(self) -> str:
        return _rt.op_repr(_OP, self._outputs)


def bias_add_grad(
    out_backprop: Any,
    *,
    data_format: DataFormat = 'NHWC',
    scope: Scope | str | None = None,
) -> BiasAddGradOutputs:
    """The gradient of BiasAdd with respect to the bias.

    Args:
        out_backprop: T, shape [N, *mid, C] (NHWC) · [N, C, *spatial] (NCHW).
            The gradient with respect to BiasAdd's output, rank 2 or more.
        data_format: enum in ['NHWC', 'NCHW']; default 'NHWC'.
            Where the channel dimension is: last (NHWC) or dimension 1 (NCHW).
        scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).

    Returns:
        BiasAddGradOutputs(output).

    Raises:
        TypeError: an argument has the wrong type or dtype.
        ValueError: a shape or an attribute value is not valid.
    """
    if type(out_backprop) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (out_backprop,), (data_format,), BiasAddGradOutputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(out_backprop)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'out_backprop': out_backprop}, (data_format,))
    return _compute(scope, out_backprop, data_format)


def _run(scope: Scope | str | None, out_backprop: Any, data_format: Any) -> BiasAddGradOutputs:
    if type(out_backprop) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (out_backprop,), (data_format,), BiasAddGradOutputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(out_backprop)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'out_backprop': out_backprop}, (data_format,))
    return _compute(scope, out_backprop, data_format)


def _compute(scope: Scope | str | None, out_backprop: Any, data_format: Any) -> BiasAddGradOutputs:
    _backend = _rt.backend_of(scope, _OP)
    _native = _NATIVE.call(_backend, (out_backprop,), (data_format,), BiasAddGradOutputs)
    if _native is not None:  # the op's native driver ran the call (its outputs made as this NamedTuple)
        return _native
    data_format = _rt.check_enum(_OP, 'data_format', data_format, ('NHWC', 'NCHW'))
    out_backprop = _backend.adopt(_OP, 'out_backprop', out_backprop)
    _dtype_T = _rt.check_dtype(_OP, 'out_backprop', out_backprop, ('float16', 'bfloat16', 'float32', 'float64'), 'T')
    _dtype_S = _rt.ACCUMULATOR[_dtype_T]
    if data_format == 'NHWC':
        if out_backprop.ndim < 2:
            raise _rt.shape_error(_OP, 'out_backprop', ('N', '*mid', 'C'), out_backprop.shape, {}, 'data_format NHWC')
        N = out_backprop.shape[0]
        C = out_backprop.shape[out_backprop.ndim - 1]
        _group_mid = tuple(out_backprop.shape[1:out_backprop.ndim - 1])
        mid = _rt.prod(_group_mid)
        outer = N*mid
        inner = 1
        by_channel = inner != 1
        channel_splits = (max(1, min(outer, 16)) if _backend.name == 'cpu' else max(1, min(outer, (-(-2048//max(1, C))))))
        channel_blocks = (min(C, (-(-16//channel_splits))) if _backend.name == 'cpu' else min(C, 65535))
        column_splits = (max(1, min(outer, 16)) if _backend.name == 'cpu' else max(1, min((-(-outer//64)), (-(-1024//max(1, (-(-C//256))))))))
        splits = by_channel*channel_splits + (1 - by_channel)*column_splits
        channel_threads = (1 if _backend.name == 'cpu' else max(32, min(256, 32*(-(-inner//128)))))
        tile = max(1, C)
        finish_threads = (1 if _backend.name == 'cpu' else 256)
        finish_blocks = (min(C, 2) if _backend.name == 'cpu' else min((-(-C//256)), 1024))
        _shape_output = [C]
    elif data_format == 'NCHW':
        if out_backprop.ndim < 2:
            raise _rt.shape_error(_OP, 'out_backprop', ('N', 'C', '*spatial'), out_backprop.shape, {}, 'data_format NCHW')
        N = out_backprop.shape[0]
        C = out_backprop.shape[1]
        _group_spatial = tuple(out_backprop.shape[2:out_backprop.ndim - 0])
        spatial = _rt.prod(_group_spatial)
        outer = N
        inner = spatial
        by_channel = inner != 1
        channel_splits = (max(1, min(outer, 16)) if _backend.name == 'cpu' else max(1, min(outer, (-(-2048//max(1, C))))))
        channel_blocks = (min(C, (-(-16//channel_splits))) if _backend.name == 'cpu' else min(C, 65535))
        column_splits = (max(1, min(outer, 16)) if _backend.name == 'cpu' else max(1, min((-(-outer//64)), (-(-1024//max(1, (-(-C//256))))))))
        splits = by_channel*channel_splits + (1 - by_channel)*column_splits
        channel_threads = (1 if _backend.name == 'cpu' else max(32, min(256, 32*(-(-inner//128)))))
        tile = max(1, C)
        finish_threads = (1 if _backend.name == 'cpu' else 256)
        finish_blocks = (min(C, 2) if _backend.name == 'cpu' else min((-(-C//256)), 1024))
        _shape_output = [C]
    else:
        raise AssertionError(data_format)
    output = _backend.empty(_shape_output, _dtype_T)
    partials = _backend.empty([splits, C], _dtype_S)
    if _rt.plan_as_data():
        _rt.run_plan(_backend, _KERNELS, _PLAN, (_dtype_T, channel_blocks, channel_splits, channel_threads, outer, C, inner, by_channel, tile, column_splits, finish_blocks, finish_threads, splits,), (out_backprop, partials, output,))
    else:  # the same plan as Python: for a reader, and run with OPGEN_PLAN=loop
        _rt.hold_if_capturing(_backend, (out_backprop, partials, output,))
        if by_channel == 1:
            _backend.launch(_KERNELS, _PLAN.symbol('bias_grad_channels', _dtype_T), (channel_blocks, channel_splits,), (channel_threads,), (out_backprop, partials, _np.int64(outer), _np.int64(C), _np.int64(inner),), 0)
        if by_channel == 0 and _backend.name == 'cpu':
            _backend.launch(_KERNELS, _PLAN.symbol('bias_grad_columns', _dtype_T), ((-(-C//tile)), column_splits,), (1,), (out_backprop, partials, _np.int64(outer), _np.int64(C), _np.int64(tile),), 0)
        if by_channel == 0 and _backend.name == 'cuda':
            _backend.launch(_KERNELS, _PLAN.symbol('bias_grad_vcolumns', _dtype_T), ((-(-C//256)), column_splits,), (256,), (out_backprop, partials, _np.int64(outer), _np.int64(C),), 0)
        _backend.launch(_KERNELS, _PLAN.symbol('bias_grad_finish', _dtype_T), (finish_blocks,), (finish_threads,), (partials, output, _np.int64(C), _np.int64(splits),), 0)
    _backend.flush()
    return BiasAddGradOutputs(output)


def _fake(_backend: Any, out_backprop: Any, data_format: Any) -> BiasAddGradOutputs:
    """The outputs of a call as empty tensors of the right shapes and dtypes, made by `_backend`
    (the torch registration's fake implementation: nothing runs, no data is read)."""
    data_format = _rt.check_enum(_OP, 'data_format', data_format, ('NHWC', 'NCHW'))
    _dtype_T = _rt.check_dtype(_OP, 'out_backprop', out_backprop, ('float16', 'bfloat16', 'float32', 'float64'), 'T')
    _dtype_S = _rt.ACCUMULATOR[_dtype_T]
    if data_format == 'NHWC':
        if out_backprop.ndim < 2:
            raise _rt.shape_error(_OP, 'out_backprop', ('N', '*mid', 'C'), out_backprop.shape, {}, 'data_format NHWC')
        C = out_backprop.shape[out_backprop.ndim - 1]
        _group_mid = tuple(out_backprop.shape[1:out_backprop.ndim - 1])
        _shape_output = [C]
    elif data_format == 'NCHW':
        if out_backprop.ndim < 2:
            raise _rt.shape_error(_OP, 'out_backprop', ('N', 'C', '*spatial'), out_backprop.shape, {}, 'data_format NCHW')
        C = out_backprop.shape[1]
        _group_spatial = tuple(out_backprop.shape[2:out_backprop.ndim - 0])
        _shape_output = [C]
    else:
        raise AssertionError(data_format)
    output = _backend.empty(_shape_output, _dtype_T)
    return BiasAddGradOutputs(output)
