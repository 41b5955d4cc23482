# generated from specs/nn/fused_batch_norm_grad_v3.yaml by opgen — do not edit (opgen 0.1.0)
"""FusedBatchNormGradV3: Gradient for batch normalization."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as _np

# isort: split
from codegen.runtime import api as _rt
from codegen.runtime.kernels import KernelSource
from codegen.runtime.scope import Scope

_OP = 'FusedBatchNormGradV3'
_KERNELS = KernelSource(_OP, Path(__file__).with_name("fused_batch_norm.cu"))
# The launch plan as data (codegen/runtime/plan.py): what _compute runs, recorded once per set of sizes
# and attrs; the loop in _compute is the same plan as Python (OPGEN_PLAN=loop runs it).
_PLAN = _rt.Plan('FusedBatchNormGradV3', ('_dtype_T', 'C', 'outer', 'inner', 'epsilon', 'is_training', 'per_channel', 'cblocks', 'once_threads', 'm', 'once', 'splits', 'partials_threads', 'pairs', 'chunk', 'three_launches', 'reduce_threads', 'channel_threads', 'elementwise_blocks', 'elementwise_threads', 'total', 'passes'), ('y_backprop', 'x', 'scale', 'reserve_space_1', 'reserve_space_2', 'x_backprop', 'scale_backprop', 'offset_backprop', 'partials', 'coeffs'), (
    ('launch', 'grad_channels', ('_dtype_T',), ('C',), (1,), 0, (('buf', 0), ('buf', 1), ('buf', 2), ('buf', 3), ('buf', 4), ('buf', 5), ('buf', 6), ('buf', 7), ('scalar', '_np.int64', 'outer', None, ()), ('scalar', '_np.int64', 'C', None, ()), ('scalar', '_np.int64', 'inner', None, ()), ('scalar', '_np.float32', 'epsilon', None, ()), ('scalar', '_np.int32', 'is_training', None, ())), (('==', 'per_channel', 1),)),
    ('launch', 'grad_once', ('_dtype_T',), ('cblocks',), ('once_threads',), 0, (('buf', 0), ('buf', 1), ('buf', 2), ('buf', 3), ('buf', 4), ('buf', 5), ('buf', 6), ('buf', 7), ('scalar', '_np.int64', 'm', None, ()), ('scalar', '_np.int64', 'C', None, ()), ('scalar', '_np.float32', 'epsilon', None, ()), ('scalar', '_np.int32', 'is_training', None, ())), ('once',)),
    ('launch', 'grad_partials', ('_dtype_T',), ('cblocks', 'splits'), ('partials_threads',), 0, (('buf', 0), ('buf', 1), ('buf', 3), ('buf', 8), ('scalar', '_np.int64', 'm', None, ()), ('scalar', '_np.int64', 'C', None, ()), ('scalar', '_np.int64', 'inner', None, ()), ('scalar', '_np.int64', 'splits', None, ()), ('scalar', '_np.int64', 'pairs', None, ())), (('and', ('==', 'chunk', 0), 'three_launches'),)),
    ('launch', 'grad_partials_sliced', ('_dtype_T',), ('cblocks', 'splits'), ('reduce_threads',), 0, (('buf', 0), ('buf', 1), ('buf', 3), ('buf', 8), ('scalar', '_np.int64', 'm', None, ()), ('scalar', '_np.int64', 'C', None, ()), ('scalar', '_np.int64', 'inner', None, ()), ('scalar', '_np.int64', 'splits', None, ())), (('and', ('>', 'chunk', 0), 'three_launches'),)),
    ('launch', 'grad_finalize', ('_dtype_T',), (('ceildiv', 'C', 256),), ('channel_threads',), 0, (('buf', 8), ('buf', 2), ('buf', 3), ('buf', 4), ('buf', 6), ('buf', 7), ('buf', 9), ('scalar', '_np.int64', 'm', None, ()), ('scalar', '_np.int64', 'C', None, ()), ('scalar', '_np.int64', 'splits', None, ()), ('scalar', '_np.float32', 'epsilon', None, ()), ('scalar', '_np.int32', 'is_training', None, ())), ('three_launches',)),
    ('launch', 'grad_input', ('_dtype_T',), ('elementwise_blocks',), ('elementwise_threads',), 0, (('buf', 0), ('buf', 1), ('buf', 9), ('buf', 5), ('scalar', '_np.int64', 'total', None, ()), ('scalar', '_np.int64', 'C', None, ()), ('scalar', '_np.int64', 'inner', None, ()), ('scalar', '_np.int64', 'chunk', None, ()), ('scalar', '_np.int32', 'is_training', None, ())), ('three_launches',)),
), {
    'grad_channels': {('float16',): 'FusedBatchNormGradV3__grad_channels__float16', ('bfloat16',): 'FusedBatchNormGradV3__grad_channels__bfloat16', ('float32',): 'FusedBatchNormGradV3__grad_channels__float32'},
    'grad_once': {('float16',): 'FusedBatchNormGradV3__grad_once__float16', ('bfloat16',): 'FusedBatchNormGradV3__grad_once__bfloat16', ('float32',): 'FusedBatchNormGradV3__grad_once__float32'},
    'grad_partials': {('float16',): 'FusedBatchNormGradV3__grad_partials__float16', ('bfloat16',): 'FusedBatchNormGradV3__grad_partials__bfloat16', ('float32',): 'FusedBatchNormGradV3__grad_partials__float32'},
    'grad_partials_sliced': {('float16',): 'FusedBatchNormGradV3__grad_partials_sliced__float16', ('bfloat16',): 'FusedBatchNormGradV3__grad_partials_sliced__bfloat16', ('float32',): 'FusedBatchNormGradV3__grad_partials_sliced__float32'},
    'grad_finalize': {('float16',): 'FusedBatchNormGradV3__grad_finalize__float16', ('bfloat16',): 'FusedBatchNormGradV3__grad_finalize__bfloat16', ('float32',): 'FusedBatchNormGradV3__grad_finalize__float32'},
    'grad_input': {('float16',): 'FusedBatchNormGradV3__grad_input__float16', ('bfloat16',): 'FusedBatchNormGradV3__grad_input__bfloat16', ('float32',): 'FusedBatchNormGradV3__grad_input__float32'},
}, variants=('once', 'passes'), params={'once_max_rows': 384})
# The op's native driver (codegen/runtime/native_driver.py): _compute hands it the call first.
_NATIVE = _rt.NativeDriver(_OP, _KERNELS, _PLAN, Path(__file__).with_name("fused_batch_norm_grad_v3.driver.cpp"))

DataFormat = Literal['NHWC', 'NCHW', 'NDHWC', 'NCDHW']


class FusedBatchNormGradV3Outputs(NamedTuple):
    """The outputs of FusedBatchNormGradV3, in order."""

    x_backprop: Any
    """T, shape [N, H, W, C] (NHWC) · [N, C, H, W] (NCHW) · [N, D, H, W, C] (NDHWC) · [N, C, D, H, W] (NCDHW). A 4-D or 5-D tensor for the gradient with respect to x."""
    scale_backprop: Any
    """U, shape [C]. A 1-D tensor for the gradient with respect to scale."""
    offset_backprop: Any
    """U, shape [C]. A 1-D tensor for the gradient with respect to offset."""
    reserve_space_4: Any
    """U, shape [0]. Unused placeholder to match the mean input in FusedBatchNorm."""
    reserve_space_5: Any
    """U, shape [0]. Unused placeholder to match the variance input in FusedBatchNorm."""


class FusedBatchNormGradV3:
    """Gradient for batch normalization.

    The size of the activation tensors is given by `data_format`: NHWC or NCHW (4-D), NDHWC or
    NCDHW (5-D); the 1-D tensors have the size of dimension C.

    Training (reserve spaces are the batch mean μ and the biased batch variance σ², r = 1/√(σ²+ε)):
    scale_backprop = Σ dy·(x−μ)·r; offset_backprop = Σ dy;
    x_backprop = scale·r·(dy − mean(dy) − (x−μ)·r²·mean(dy·(x−μ))).

    Inference (reserve spaces are the population mean and variance): x_backprop = dy·scale·r,
    with scale_backprop and offset_backprop as in training.

    Create it with `FusedBatchNormGradV3.create(scope, y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3, *options)`, or call
    `fused_batch_norm_grad_v3(...)`. The reference page is generated/docs/nn/fused_batch_norm_grad_v3.md.
    """

    OP_NAME = 'FusedBatchNormGradV3'
    Outputs = FusedBatchNormGradV3Outputs

    class Options:
        """Optional attributes for FusedBatchNormGradV3; each setter returns the Options, so calls chain."""

        __slots__ = ("_values",)

        def __init__(self) -> None:
            self._values: dict[str, Any] = {}

        def epsilon(self, epsilon: float) -> FusedBatchNormGradV3.Options:
            """Sets epsilon (default 0.0001). A small float number added to the variance of x."""
            self._values['epsilon'] = epsilon
            return self

        def data_format(self, data_format: DataFormat) -> FusedBatchNormGradV3.Options:
            """Sets data_format (default 'NHWC'). The data format for y_backprop, x, x_backprop."""
            self._values['data_format'] = data_format
            return self

        def is_training(self, is_training: bool) -> FusedBatchNormGradV3.Options:
            """Sets is_training (default True). Whether the forward ran in training mode (batch statistics) or inference mode."""
            self._values['is_training'] = is_training
            return self

        def __repr__(self) -> str:
            items = ", ".join(f"{key}={value!r}" for key, value in self._values.items())
            return f"FusedBatchNormGradV3.Options({items})"

    @staticmethod
    def epsilon(epsilon: float) -> FusedBatchNormGradV3.Options:
        """Options with epsilon set (default 0.0001)."""
        return FusedBatchNormGradV3.Options().epsilon(epsilon)

    @staticmethod
    def data_format(data_format: DataFormat) -> FusedBatchNormGradV3.Options:
        """Options with data_format set (default 'NHWC')."""
        return FusedBatchNormGradV3.Options().data_format(data_format)

    @staticmethod
    def is_training(is_training: bool) -> FusedBatchNormGradV3.Options:
        """Options with is_training set (default True)."""
        return FusedBatchNormGradV3.Options().is_training(is_training)

    @classmethod
    def create(
        cls,
        scope: Scope | str | None,
        y_backprop: Any,
        x: Any,
        scale: Any,
        reserve_space_1: Any,
        reserve_space_2: Any,
        reserve_space_3: Any,
        *options: FusedBatchNormGradV3.Options,
    ) -> FusedBatchNormGradV3:
        """Factory method to create a class wrapping a new FusedBatchNormGradV3 operation.

        Args:
            scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).
            y_backprop: T, shape [N, H, W, C] (NHWC) · [N, C, H, W] (NCHW) · [N, D, H, W, C] (NDHWC) · [N, C, D, H, W] (NCDHW).
                A 4-D or 5-D tensor for the gradient with respect to y.
            x: T, shape [N, H, W, C] (NHWC) · [N, C, H, W] (NCHW) · [N, D, H, W, C] (NDHWC) · [N, C, D, H, W] (NCDHW).
                A 4-D or 5-D tensor for the input data.
            scale: float32, shape [C].
                A 1-D tensor for the scaling factor, to scale the normalized x.
            reserve_space_1: U, shape [C].
                When is_training is true, the batch mean from the forward's
                reserve_space_1. When false, the population mean.
            reserve_space_2: U, shape [C].
                When is_training is true, the biased batch variance from the forward's
                reserve_space_2. When false, the population variance.
            reserve_space_3: U, shape [...].
                The forward's reserve_space_3 (unused; any shape: TensorFlow's CPU
                forward returns a 0-d tensor for float16 input).
            options: FusedBatchNormGradV3.Options carrying optional attribute values.

        Raises:
            TypeError: an argument has the wrong type or dtype.
            ValueError: a shape or an attribute value is not valid.
        """
        _merged = _rt.merge_options(_OP, options, cls.Options)
        return cls(_run(
            scope, y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3,
            _merged.get('epsilon', 0.0001),
            _merged.get('data_format', 'NHWC'),
            _merged.get('is_training', True),
        ))

    def __init__(self, outputs: FusedBatchNormGradV3Outputs) -> None:
        self._outputs = outputs

    @property
    def x_backprop(self) -> Any:
        """A 4-D or 5-D tensor for the gradient with respect to x."""
        return self._outputs.x_backprop

    @property
    def scale_backprop(self) -> Any:
        """A 1-D tensor for the gradient with respect to scale."""
        return self._outputs.scale_backprop

    @property
    def offset_backprop(self) -> Any:
        """A 1-D tensor for the gradient with respect to offset."""
        return self._outputs.offset_backprop

    @property
    def reserve_space_4(self) -> Any:
        """Unused placeholder to match the mean input in FusedBatchNorm."""
        return self._outputs.reserve_space_4

    @property
    def reserve_space_5(self) -> Any:
        """Unused placeholder to match the variance input in FusedBatchNorm."""
        return self._outputs.reserve_space_5

    def output_tuple(self) -> FusedBatchNormGradV3Outputs:
        """All outputs, in order."""
        return self._outputs

    def __repr__(self) -> str:
        return _rt.op_repr(_OP, self._outputs)


def fused_batch_norm_grad_v3(
    y_backprop: Any,
    x: Any,
    scale: Any,
    reserve_space_1: Any,
    reserve_space_2: Any,
    reserve_space_3: Any,
    *,
    epsilon: float = 0.0001,
    data_format: DataFormat = 'NHWC',
    is_training: bool = True,
    scope: Scope | str | None = None,
) -> FusedBatchNormGradV3Outputs:
    """Gradient for batch normalization.

    Args:
        y_backprop: T, shape [N, H, W, C] (NHWC) · [N, C, H, W] (NCHW) · [N, D, H, W, C] (NDHWC) · [N, C, D, H, W] (NCDHW).
            A 4-D or 5-D tensor for the gradient with respect to y.
        x: T, shape [N, H, W, C] (NHWC) · [N, C, H, W] (NCHW) · [N, D, H, W, C] (NDHWC) · [N, C, D, H, W] (NCDHW).
            A 4-D or 5-D tensor for the input data.
        scale: float32, shape [C].
            A 1-D tensor for the scaling factor, to scale the normalized x.
        reserve_space_1: U, shape [C].
            When is_training is true, the batch mean from the forward's reserve_space_1.
            When false, the population mean.
        reserve_space_2: U, shape [C].
            When is_training is true, the biased batch variance from the forward's
            reserve_space_2. When false, the population variance.
        reserve_space_3: U, shape [...].
            The forward's reserve_space_3 (unused; any shape: TensorFlow's CPU forward
            returns a 0-d tensor for float16 input).
        epsilon: float, >= 0; default 0.0001.
            A small float number added to the variance of x.
        data_format: enum in ['NHWC', 'NCHW', 'NDHWC', 'NCDHW']; default 'NHWC'.
            The data format for y_backprop, x, x_backprop.
        is_training: bool; default True.
            Whether the forward ran in training mode (batch statistics) or inference
            mode.
        scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).

    Returns:
        FusedBatchNormGradV3Outputs(x_backprop, scale_backprop, offset_backprop, reserve_space_4, reserve_space_5).

    Raises:
        TypeError: an argument has the wrong type or dtype.
        ValueError: a shape or an attribute value is not valid.
    """
    if type(y_backprop) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3), (epsilon, data_format, is_training), FusedBatchNormGradV3Outputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'y_backprop': y_backprop, 'x': x, 'scale': scale, 'reserve_space_1': reserve_space_1, 'reserve_space_2': reserve_space_2, 'reserve_space_3': reserve_space_3}, (epsilon, data_format, is_training))
    return _compute(scope, y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3, epsilon, data_format, is_training)


def _run(scope: Scope | str | None, y_backprop: Any, x: Any, scale: Any, reserve_space_1: Any, reserve_space_2: Any, reserve_space_3: Any, epsilon: Any, data_format: Any, is_training: Any) -> FusedBatchNormGradV3Outputs:
    if type(y_backprop) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3), (epsilon, data_format, is_training), FusedBatchNormGradV3Outputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'y_backprop': y_backprop, 'x': x, 'scale': scale, 'reserve_space_1': reserve_space_1, 'reserve_space_2': reserve_space_2, 'reserve_space_3': reserve_space_3}, (epsilon, data_format, is_training))
    return _compute(scope, y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3, epsilon, data_format, is_training)


def _compute(scope: Scope | str | None, y_backprop: Any, x: Any, scale: Any, reserve_space_1: Any, reserve_space_2: Any, reserve_space_3: Any, epsilon: Any, data_format: Any, is_training: Any) -> FusedBatchNormGradV3Outputs:
    _backend = _rt.backend_of(scope, _OP)
    _native = _NATIVE.call(_backend, (y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3), (epsilon, data_format, is_training), FusedBatchNormGradV3Outputs)
    if _native is not None:  # the op's native driver ran the call (its outputs made as this NamedTuple)
        return _native
    epsilon = _rt.check_float(_OP, 'epsilon', epsilon, 0, None)
    data_format = _rt.check_enum(_OP, 'data_format', data_format, ('NHWC', 'NCHW', 'NDHWC', 'NCDHW'))
    is_training = _rt.check_bool(_OP, 'is_training', is_training)
    y_backprop = _backend.adopt(_OP, 'y_backprop', y_backprop)
    _dtype_T = _rt.check_dtype(_OP, 'y_backprop', y_backprop, ('float16', 'bfloat16', 'float32'), 'T')
    x = _backend.adopt(_OP, 'x', x)
    _rt.check_same_dtype(_OP, 'x', x, _dtype_T, 'T', 'y_backprop')
    scale = _backend.adopt(_OP, 'scale', scale)
    _rt.check_dtype(_OP, 'scale', scale, ('float32',))
    reserve_space_1 = _backend.adopt(_OP, 'reserve_space_1', reserve_space_1)
    _dtype_U = _rt.check_dtype(_OP, 'reserve_space_1', reserve_space_1, ('float32',), 'U')
    reserve_space_2 = _backend.adopt(_OP, 'reserve_space_2', reserve_space_2)
    _rt.check_same_dtype(_OP, 'reserve_space_2', reserve_space_2, _dtype_U, 'U', 'reserve_space_1')
    reserve_space_3 = _backend.adopt(_OP, 'reserve_space_3', reserve_space_3)
    _rt.check_same_dtype(_OP, 'reserve_space_3', reserve_space_3, _dtype_U, 'U', 'reserve_space_1')
    if data_format == 'NHWC':
        if y_backprop.ndim != 4:
            raise _rt.shape_error(_OP, 'y_backprop', ('N', 'H', 'W', 'C'), y_backprop.shape, {}, 'data_format NHWC')
        N = y_backprop.shape[0]
        H = y_backprop.shape[1]
        W = y_backprop.shape[2]
        C = y_backprop.shape[3]
        if x.ndim != 4:
            raise _rt.shape_error(_OP, 'x', ('N', 'H', 'W', 'C'), x.shape, {'C': C, 'H': H, 'N': N, 'W': W}, 'data_format NHWC')
        if x.shape[0] != N or x.shape[1] != H or x.shape[2] != W or x.shape[3] != C:
            raise _rt.shape_error(_OP, 'x', ('N', 'H', 'W', 'C'), x.shape, {'C': C, 'H': H, 'N': N, 'W': W}, 'data_format NHWC')
        if scale.ndim != 1:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NHWC')
        if scale.shape[0] != C:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NHWC')
        if reserve_space_1.ndim != 1:
            raise _rt.shape_error(_OP, 'reserve_space_1', ('C',), reserve_space_1.shape, {'C': C}, 'data_format NHWC')
        if reserve_space_1.shape[0] != C:
            raise _rt.shape_error(_OP, 'reserve_space_1', ('C',), reserve_space_1.shape, {'C': C}, 'data_format NHWC')
        if reserve_space_2.ndim != 1:
            raise _rt.shape_error(_OP, 'reserve_space_2', ('C',), reserve_space_2.shape, {'C': C}, 'data_format NHWC')
        if reserve_space_2.shape[0] != C:
            raise _rt.shape_error(_OP, 'reserve_space_2', ('C',), reserve_space_2.shape, {'C': C}, 'data_format NHWC')
        if reserve_space_3.ndim < 0:
            raise _rt.shape_error(_OP, 'reserve_space_3', ('...',), reserve_space_3.shape, {}, 'data_format NHWC')
        once_max_rows = 384
        outer = N*H*W
        inner = 1
        total = outer*C*inner
        m = outer*inner
        once = _backend.name == 'cuda' and not data_format == 'NCHW' and not data_format == 'NCDHW' and m <= once_max_rows
        passes = not once
        cblocks = (-(-C//32))
        reduce_threads = (32 if _backend.name == 'cpu' else max(32, min(256, 32*(-(-m//32)))))
        channel_threads = max(32, min(256, 32*(-(-C//32))))
        gpu_splits = max(1, min((-(-m//1024)), 512))
        cpu_splits = max(1, min((-(-16//max(1, cblocks))), (-(-m//4096))))
        splits = (cpu_splits if _backend.name == 'cpu' else gpu_splits)
        chunk = (4096 if _backend.name == 'cpu' else 0)
        elementwise_threads = (max(32, min(64, 32*(-(-total//(32*4096))))) if _backend.name == 'cpu' else max(32, min(256, 32*(-(-total//128)))))
        elementwise_blocks = (max(1, (-(-total//(4096*elementwise_threads)))) if _backend.name == 'cpu' else min((-(-total//1024)), 1024))
        once_threads = 32*max(1, min(m, 16))
        channels_first = 0
        per_channel = (channels_first*min(1, C//16)*min(1, inner//2) if _backend.name == 'cpu' else 0)
        pairs = _backend.name == 'cuda' and not _dtype_T == 'float32' and channels_first == 0
        partials_threads = max(32, reduce_threads//(1 + pairs))
        three_launches = passes and per_channel == 0
        _shape_x_backprop = [N, H, W, C]
        _shape_scale_backprop = [C]
        _shape_offset_backprop = [C]
        _shape_reserve_space_4 = [0]
        _shape_reserve_space_5 = [0]
    elif data_format == 'NCHW':
        if y_backprop.ndim != 4:
            raise _rt.shape_error(_OP, 'y_backprop', ('N', 'C', 'H', 'W'), y_backprop.shape, {}, 'data_format NCHW')
        N = y_backprop.shape[0]
        C = y_backprop.shape[1]
        H = y_backprop.shape[2]
        W = y_backprop.shape[3]
        if x.ndim != 4:
            raise _rt.shape_error(_OP, 'x', ('N', 'C', 'H', 'W'), x.shape, {'C': C, 'H': H, 'N': N, 'W': W}, 'data_format NCHW')
        if x.shape[0] != N or x.shape[1] != C or x.shape[2] != H or x.shape[3] != W:
            raise _rt.shape_error(_OP, 'x', ('N', 'C', 'H', 'W'), x.shape, {'C': C, 'H': H, 'N': N, 'W': W}, 'data_format NCHW')
        if scale.ndim != 1:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NCHW')
        if scale.shape[0] != C:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NCHW')
        if reserve_space_1.ndim != 1:
            raise _rt.shape_error(_OP, 'reserve_space_1', ('C',), reserve_space_1.shape, {'C': C}, 'data_format NCHW')
        if reserve_space_1.shape[0] != C:
            raise _rt.shape_error(_OP, 'reserve_space_1', ('C',), reserve_space_1.shape, {'C': C}, 'data_format NCHW')
        if reserve_space_2.ndim != 1:
            raise _rt.shape_error(_OP, 'reserve_space_2', ('C',), reserve_space_2.shape, {'C': C}, 'data_format NCHW')
        if reserve_space_2.shape[0] != C:
            raise _rt.shape_error(_OP, 'reserve_space_2', ('C',), reserve_space_2.shape, {'C': C}, 'data_format NCHW')
        if reserve_space_3.ndim < 0:
            raise _rt.shape_error(_OP, 'reserve_space_3', ('...',), reserve_space_3.shape, {}, 'data_format NCHW')
        once_max_rows = 384
        outer = N
        inner = H*W
        total = outer*C*inner
        m = outer*inner
        once = _backend.name == 'cuda' and not data_format == 'NCHW' and not data_format == 'NCDHW' and m <= once_max_rows
        passes = not once
        cblocks = C
        reduce_threads = (32 if _backend.name == 'cpu' else max(32, min(256, 32*(-(-m//32)))))
        channel_threads = max(32, min(256, 32*(-(-C//32))))
        gpu_splits = max(1, min((-(-m//32768)), 512))
        cpu_splits = max(1, min((-(-16//max(1, cblocks))), (-(-m//4096))))
        splits = (cpu_splits if _backend.name == 'cpu' else gpu_splits)
        chunk = (4096 if _backend.name == 'cpu' else 0)
        elementwise_threads = (max(32, min(64, 32*(-(-total//(32*4096))))) if _backend.name == 'cpu' else max(32, min(256, 32*(-(-total//128)))))
        elementwise_blocks = (max(1, (-(-total//(4096*elementwise_threads)))) if _backend.name == 'cpu' else min((-(-total//1024)), 1024))
        once_threads = 32*max(1, min(m, 16))
        channels_first = 1
        per_channel = (channels_first*min(1, C//16)*min(1, inner//2) if _backend.name == 'cpu' else 0)
        pairs = _backend.name == 'cuda' and not _dtype_T == 'float32' and channels_first == 0
        partials_threads = max(32, reduce_threads//(1 + pairs))
        three_launches = passes and per_channel == 0
        _shape_x_backprop = [N, C, H, W]
        _shape_scale_backprop = [C]
        _shape_offset_backprop = [C]
        _shape_reserve_space_4 = [0]
        _shape_reserve_space_5 = [0]
    elif data_format == 'NDHWC':
        if y_backprop.ndim != 5:
            raise _rt.shape_error(_OP, 'y_backprop', ('N', 'D', 'H', 'W', 'C'), y_backprop.shape, {}, 'data_format NDHWC')
        N = y_backprop.shape[0]
        D = y_backprop.shape[1]
        H = y_backprop.shape[2]
        W = y_backprop.shape[3]
        C = y_backprop.shape[4]
        if x.ndim != 5:
            raise _rt.shape_error(_OP, 'x', ('N', 'D', 'H', 'W', 'C'), x.shape, {'C': C, 'D': D, 'H': H, 'N': N, 'W': W}, 'data_format NDHWC')
        if x.shape[0] != N or x.shape[1] != D or x.shape[2] != H or x.shape[3] != W or x.shape[4] != C:
            raise _rt.shape_error(_OP, 'x', ('N', 'D', 'H', 'W', 'C'), x.shape, {'C': C, 'D': D, 'H': H, 'N': N, 'W': W}, 'data_format NDHWC')
        if scale.ndim != 1:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NDHWC')
        if scale.shape[0] != C:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NDHWC')
        if reserve_space_1.ndim != 1:
            raise _rt.shape_error(_OP, 'reserve_space_1', ('C',), reserve_space_1.shape, {'C': C}, 'data_format NDHWC')
        if reserve_space_1.shape[0] != C:
            raise _rt.shape_error(_OP, 'reserve_space_1', ('C',), reserve_space_1.shape, {'C': C}, 'data_format NDHWC')
        if reserve_space_2.ndim != 1:
            raise _rt.shape_error(_OP, 'reserve_space_2', ('C',), reserve_space_2.shape, {'C': C}, 'data_format NDHWC')
        if reserve_space_2.shape[0] != C:
            raise _rt.shape_error(_OP, 'reserve_space_2', ('C',), reserve_space_2.shape, {'C': C}, 'data_format NDHWC')
        if reserve_space_3.ndim < 0:
            raise _rt.shape_error(_OP, 'reserve_space_3', ('...',), reserve_space_3.shape, {}, 'data_format NDHWC')
        once_max_rows = 384
        outer = N*D*H*W
        inner = 1
        total = outer*C*inner
        m = outer*inner
        once = _backend.name == 'cuda' and not data_format == 'NCHW' and not data_format == 'NCDHW' and m <= once_max_rows
        passes = not once
        cblocks = (-(-C//32))
        reduce_threads = (32 if _backend.name == 'cpu' else max(32, min(256, 32*(-(-m//32)))))
        channel_threads = max(32, min(256, 32*(-(-C//32))))
        gpu_splits = max(1, min((-(-m//1024)), 512))
        cpu_splits = max(1, min((-(-16//max(1, cblocks))), (-(-m//4096))))
        splits = (cpu_splits if _backend.name == 'cpu' else gpu_splits)
        chunk = (4096 if _backend.name == 'cpu' else 0)
        elementwise_threads = (max(32, min(64, 32*(-(-total//(32*4096))))) if _backend.name == 'cpu' else max(32, min(256, 32*(-(-total//128)))))
        elementwise_blocks = (max(1, (-(-total//(4096*elementwise_threads)))) if _backend.name == 'cpu' else min((-(-total//1024)), 1024))
        once_threads = 32*max(1, min(m, 16))
        channels_first = 0
        per_channel = (channels_first*min(1, C//16)*min(1, inner//2) if _backend.name == 'cpu' else 0)
        pairs = _backend.name == 'cuda' and not _dtype_T == 'float32' and channels_first == 0
        partials_threads = max(32, reduce_threads//(1 + pairs))
        three_launches = passes and per_channel == 0
        _shape_x_backprop = [N, D, H, W, C]
        _shape_scale_backprop = [C]
        _shape_offset_backprop = [C]
        _shape_reserve_space_4 = [0]
        _shape_reserve_space_5 = [0]
    elif data_format == 'NCDHW':
        if y_backprop.ndim != 5:
            raise _rt.shape_error(_OP, 'y_backprop', ('N', 'C', 'D', 'H', 'W'), y_backprop.shape, {}, 'data_format NCDHW')
        N = y_backprop.shape[0]
        C = y_backprop.shape[1]
        D = y_backprop.shape[2]
        H = y_backprop.shape[3]
        W = y_backprop.shape[4]
        if x.ndim != 5:
            raise _rt.shape_error(_OP, 'x', ('N', 'C', 'D', 'H', 'W'), x.shape, {'C': C, 'D': D, 'H': H, 'N': N, 'W': W}, 'data_format NCDHW')
        if x.shape[0] != N or x.shape[1] != C or x.shape[2] != D or x.shape[3] != H or x.shape[4] != W:
            raise _rt.shape_error(_OP, 'x', ('N', 'C', 'D', 'H', 'W'), x.shape, {'C': C, 'D': D, 'H': H, 'N': N, 'W': W}, 'data_format NCDHW')
        if scale.ndim != 1:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NCDHW')
        if scale.shape[0] != C:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NCDHW')
        if reserve_space_1.ndim != 1:
            raise _rt.shape_error(_OP, 'reserve_space_1', ('C',), reserve_space_1.shape, {'C': C}, 'data_format NCDHW')
        if reserve_space_1.shape[0] != C:
            raise _rt.shape_error(_OP, 'reserve_space_1', ('C',), reserve_space_1.shape, {'C': C}, 'data_format NCDHW')
        if reserve_space_2.ndim != 1:
            raise _rt.shape_error(_OP, 'reserve_space_2', ('C',), reserve_space_2.shape, {'C': C}, 'data_format NCDHW')
        if reserve_space_2.shape[0] != C:
            raise _rt.shape_error(_OP, 'reserve_space_2', ('C',), reserve_space_2.shape, {'C': C}, 'data_format NCDHW')
        if reserve_space_3.ndim < 0:
            raise _rt.shape_error(_OP, 'reserve_space_3', ('...',), reserve_space_3.shape, {}, 'data_format NCDHW')
        once_max_rows = 384
        outer = N
        inner = D*H*W
        total = outer*C*inner
        m = outer*inner
        once = _backend.name == 'cuda' and not data_format == 'NCHW' and not data_format == 'NCDHW' and m <= once_max_rows
        passes = not once
        cblocks = C
        reduce_threads = (32 if _backend.name == 'cpu' else max(32, min(256, 32*(-(-m//32)))))
        channel_threads = max(32, min(256, 32*(-(-C//32))))
        gpu_splits = max(1, min((-(-m//32768)), 512))
        cpu_splits = max(1, min((-(-16//max(1, cblocks))), (-(-m//4096))))
        splits = (cpu_splits if _backend.name == 'cpu' else gpu_splits)
        chunk = (4096 if _backend.name == 'cpu' else 0)
        elementwise_threads = (max(32, min(64, 32*(-(-total//(32*4096))))) if _backend.name == 'cpu' else max(32, min(256, 32*(-(-total//128)))))
        elementwise_blocks = (max(1, (-(-total//(4096*elementwise_threads)))) if _backend.name == 'cpu' else min((-(-total//1024)), 1024))
        once_threads = 32*max(1, min(m, 16))
        channels_first = 1
        per_channel = (channels_first*min(1, C//16)*min(1, inner//2) if _backend.name == 'cpu' else 0)
        pairs = _backend.name == 'cuda' and not _dtype_T == 'float32' and channels_first == 0
        partials_threads = max(32, reduce_threads//(1 + pairs))
        three_launches = passes and per_channel == 0
        _shape_x_backprop = [N, C, D, H, W]
        _shape_scale_backprop = [C]
        _shape_offset_backprop = [C]
        _shape_reserve_space_4 = [0]
        _shape_reserve_space_5 = [0]
    else:
        raise AssertionError(data_format)
    x_backprop = _backend.empty(_shape_x_backprop, _dtype_T)
    scale_backprop = _backend.empty(_shape_scale_backprop, _dtype_U)
    offset_backprop = _backend.empty(_shape_offset_backprop, _dtype_U)
    reserve_space_4 = _backend.empty(_shape_reserve_space_4, _dtype_U)
    reserve_space_5 = _backend.empty(_shape_reserve_space_5, _dtype_U)
    partials = _backend.empty([splits*three_launches, C, 2], 'float32')
    coeffs = _backend.empty([3*three_launches, C], 'float32')
    if _rt.plan_as_data():
        _rt.run_plan(_backend, _KERNELS, _PLAN, (_dtype_T, C, outer, inner, epsilon, is_training, per_channel, cblocks, once_threads, m, once, splits, partials_threads, pairs, chunk, three_launches, reduce_threads, channel_threads, elementwise_blocks, elementwise_threads, total, passes,), (y_backprop, x, scale, reserve_space_1, reserve_space_2, x_backprop, scale_backprop, offset_backprop, partials, coeffs,))
    else:  # the same plan as Python: for a reader, and run with OPGEN_PLAN=loop
        _rt.hold_if_capturing(_backend, (y_backprop, x, scale, reserve_space_1, reserve_space_2, x_backprop, scale_backprop, offset_backprop, partials, coeffs,))
        if per_channel == 1:
            _backend.launch(_KERNELS, _PLAN.symbol('grad_channels', _dtype_T), (C,), (1,), (y_backprop, x, scale, reserve_space_1, reserve_space_2, x_backprop, scale_backprop, offset_backprop, _np.int64(outer), _np.int64(C), _np.int64(inner), _np.float32(epsilon), _np.int32(is_training),), 0)
        if once:
            _backend.launch(_KERNELS, _PLAN.symbol('grad_once', _dtype_T), (cblocks,), (once_threads,), (y_backprop, x, scale, reserve_space_1, reserve_space_2, x_backprop, scale_backprop, offset_backprop, _np.int64(m), _np.int64(C), _np.float32(epsilon), _np.int32(is_training),), 0)
        if chunk == 0 and three_launches:
            _backend.launch(_KERNELS, _PLAN.symbol('grad_partials', _dtype_T), (cblocks, splits,), (partials_threads,), (y_backprop, x, reserve_space_1, partials, _np.int64(m), _np.int64(C), _np.int64(inner), _np.int64(splits), _np.int64(pairs),), 0)
        if chunk > 0 and three_launches:
            _backend.launch(_KERNELS, _PLAN.symbol('grad_partials_sliced', _dtype_T), (cblocks, splits,), (reduce_threads,), (y_backprop, x, reserve_space_1, partials, _np.int64(m), _np.int64(C), _np.int64(inner), _np.int64(splits),), 0)
        if three_launches:
            _backend.launch(_KERNELS, _PLAN.symbol('grad_finalize', _dtype_T), ((-(-C//256)),), (channel_threads,), (partials, scale, reserve_space_1, reserve_space_2, scale_backprop, offset_backprop, coeffs, _np.int64(m), _np.int64(C), _np.int64(splits), _np.float32(epsilon), _np.int32(is_training),), 0)
        if three_launches:
            _backend.launch(_KERNELS, _PLAN.symbol('grad_input', _dtype_T), (elementwise_blocks,), (elementwise_threads,), (y_backprop, x, coeffs, x_backprop, _np.int64(total), _np.int64(C), _np.int64(inner), _np.int64(chunk), _np.int32(is_training),), 0)
    _backend.flush()
    return FusedBatchNormGradV3Outputs(x_backprop, scale_backprop, offset_backprop, reserve_space_4, reserve_space_5)


def _fake(_backend: Any, y_backprop: Any, x: Any, scale: Any, reserve_space_1: Any, reserve_space_2: Any, reserve_space_3: Any, epsilon: Any, data_format: Any, is_training: Any) -> FusedBatchNormGradV3Outputs:
    """The outputs of a call as empty tensors of the right shapes and dtypes, made by `_backend`
    (the torch registration's fake implementation: nothing runs, no data is read)."""
    epsilon = _rt.check_float(_OP, 'epsilon', epsilon, 0, None)
    data_format = _rt.check_enum(_OP, 'data_format', data_format, ('NHWC', 'NCHW', 'NDHWC', 'NCDHW'))
    is_training = _rt.check_bool(_OP, 'is_training', is_training)
    _dtype_T = _rt.check_dtype(_OP, 'y_backprop', y_backprop, ('float16', 'bfloat16', 'float32'), 'T')
    _rt.check_same_dtype(_OP, 'x', x, _dtype_T, 'T', 'y_backprop')
    _rt.check_dtype(_OP, 'scale', scale, ('float32',))
    _dtype_U = _rt.check_dtype(_OP, 'reserve_space_1', reserve_space_1, ('float32',), 'U')
    _rt.check_same_dtype(_OP, 'reserve_space_2', reserve_space_2, _dtype_U, 'U', 'reserve_space_1')
    _rt.check_same_dtype(_OP, 'reserve_space_3', reserve_space_3, _dtype_U, 'U', 'reserve_space_1')
    if data_format == 'NHWC':
        if y_backprop.ndim != 4:
            raise _rt.shape_error(_OP, 'y_backprop', ('N', 'H', 'W', 'C'), y_backprop.shape, {}, 'data_format NHWC')
        N = y_backprop.shape[0]
        H = y_backprop.shape[1]
        W = y_backprop.shape[2]
        C = y_backprop.shape[3]
        if x.ndim != 4:
            raise _rt.shape_error(_OP, 'x', ('N', 'H', 'W', 'C'), x.shape, {'C': C, 'H': H, 'N': N, 'W': W}, 'data_format NHWC')
        if x.shape[0] != N or x.shape[1] != H or x.shape[2] != W or x.shape[3] != C:
            raise _rt.shape_error(_OP, 'x', ('N', 'H', 'W', 'C'), x.shape, {'C': C, 'H': H, 'N': N, 'W': W}, 'data_format NHWC')
        if scale.ndim != 1:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NHWC')
        if scale.shape[0] != C:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NHWC')
        if reserve_space_1.ndim != 1:
            raise _rt.shape_error(_OP, 'reserve_space_1', ('C',), reserve_space_1.shape, {'C': C}, 'data_format NHWC')
        if reserve_space_1.shape[0] != C:
            raise _rt.shape_error(_OP, 'reserve_space_1', ('C',), reserve_space_1.shape, {'C': C}, 'data_format NHWC')
        if reserve_space_2.ndim != 1:
            raise _rt.shape_error(_OP, 'reserve_space_2', ('C',), reserve_space_2.shape, {'C': C}, 'data_format NHWC')
        if reserve_space_2.shape[0] != C:
            raise _rt.shape_error(_OP, 'reserve_space_2', ('C',), reserve_space_2.shape, {'C': C}, 'data_format NHWC')
        if reserve_space_3.ndim < 0:
            raise _rt.shape_error(_OP, 'reserve_space_3', ('...',), reserve_space_3.shape, {}, 'data_format NHWC')
        _shape_x_backprop = [N, H, W, C]
        _shape_scale_backprop = [C]
        _shape_offset_backprop = [C]
        _shape_reserve_space_4 = [0]
        _shape_reserve_space_5 = [0]
    elif data_format == 'NCHW':
        if y_backprop.ndim != 4:
            raise _rt.shape_error(_OP, 'y_backprop', ('N', 'C', 'H', 'W'), y_backprop.shape, {}, 'data_format NCHW')
        N = y_backprop.shape[0]
        C = y_backprop.shape[1]
        H = y_backprop.shape[2]
        W = y_backprop.shape[3]
        if x.ndim != 4:
            raise _rt.shape_error(_OP, 'x', ('N', 'C', 'H', 'W'), x.shape, {'C': C, 'H': H, 'N': N, 'W': W}, 'data_format NCHW')
        if x.shape[0] != N or x.shape[1] != C or x.shape[2] != H or x.shape[3] != W:
            raise _rt.shape_error(_OP, 'x', ('N', 'C', 'H', 'W'), x.shape, {'C': C, 'H': H, 'N': N, 'W': W}, 'data_format NCHW')
        if scale.ndim != 1:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NCHW')
        if scale.shape[0] != C:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NCHW')
        if reserve_space_1.ndim != 1:
            raise _rt.shape_error(_OP, 'reserve_space_1', ('C',), reserve_space_1.shape, {'C': C}, 'data_format NCHW')
        if reserve_space_1.shape[0] != C:
            raise _rt.shape_error(_OP, 'reserve_space_1', ('C',), reserve_space_1.shape, {'C': C}, 'data_format NCHW')
        if reserve_space_2.ndim != 1:
            raise _rt.shape_error(_OP, 'reserve_space_2', ('C',), reserve_space_2.shape, {'C': C}, 'data_format NCHW')
        if reserve_space_2.shape[0] != C:
            raise _rt.shape_error(_OP, 'reserve_space_2', ('C',), reserve_space_2.shape, {'C': C}, 'data_format NCHW')
        if reserve_space_3.ndim < 0:
            raise _rt.shape_error(_OP, 'reserve_space_3', ('...',), reserve_space_3.shape, {}, 'data_format NCHW')
        _shape_x_backprop = [N, C, H, W]
        _shape_scale_backprop = [C]
        _shape_offset_backprop = [C]
        _shape_reserve_space_4 = [0]
        _shape_reserve_space_5 = [0]
    elif data_format == 'NDHWC':
        if y_backprop.ndim != 5:
            raise _rt.shape_error(_OP, 'y_backprop', ('N', 'D', 'H', 'W', 'C'), y_backprop.shape, {}, 'data_format NDHWC')
        N = y_backprop.shape[0]
        D = y_backprop.shape[1]
        H = y_backprop.shape[2]
        W = y_backprop.shape[3]
        C = y_backprop.shape[4]
        if x.ndim != 5:
            raise _rt.shape_error(_OP, 'x', ('N', 'D', 'H', 'W', 'C'), x.shape, {'C': C, 'D': D, 'H': H, 'N': N, 'W': W}, 'data_format NDHWC')
        if x.shape[0] != N or x.shape[1] != D or x.shape[2] != H or x.shape[3] != W or x.shape[4] != C:
            raise _rt.shape_error(_OP, 'x', ('N', 'D', 'H', 'W', 'C'), x.shape, {'C': C, 'D': D, 'H': H, 'N': N, 'W': W}, 'data_format NDHWC')
        if scale.ndim != 1:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NDHWC')
        if scale.shape[0] != C:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NDHWC')
        if reserve_space_1.ndim != 1:
            raise _rt.shape_error(_OP, 'reserve_space_1', ('C',), reserve_space_1.shape, {'C': C}, 'data_format NDHWC')
        if reserve_space_1.shape[0] != C:
            raise _rt.shape_error(_OP, 'reserve_space_1', ('C',), reserve_space_1.shape, {'C': C}, 'data_format NDHWC')
        if reserve_space_2.ndim != 1:
            raise _rt.shape_error(_OP, 'reserve_space_2', ('C',), reserve_space_2.shape, {'C': C}, 'data_format NDHWC')
        if reserve_space_2.shape[0] != C:
            raise _rt.shape_error(_OP, 'reserve_space_2', ('C',), reserve_space_2.shape, {'C': C}, 'data_format NDHWC')
        if reserve_space_3.ndim < 0:
            raise _rt.shape_error(_OP, 'reserve_space_3', ('...',), reserve_space_3.shape, {}, 'data_format NDHWC')
        _shape_x_backprop = [N, D, H, W, C]
        _shape_scale_backprop = [C]
        _shape_offset_backprop = [C]
        _shape_reserve_space_4 = [0]
        _shape_reserve_space_5 = [0]
    elif data_format == 'NCDHW':
        if y_backprop.ndim != 5:
            raise _rt.shape_error(_OP, 'y_backprop', ('N', 'C', 'D', 'H', 'W'), y_backprop.shape, {}, 'data_format NCDHW')
        N = y_backprop.shape[0]
        C = y_backprop.shape[1]
        D = y_backprop.shape[2]
        H = y_backprop.shape[3]
        W = y_backprop.shape[4]
        if x.ndim != 5:
            raise _rt.shape_error(_OP, 'x', ('N', 'C', 'D', 'H', 'W'), x.shape, {'C': C, 'D': D, 'H': H, 'N': N, 'W': W}, 'data_format NCDHW')
        if x.shape[0] != N or x.shape[1] != C or x.shape[2] != D or x.shape[3] != H or x.shape[4] != W:
            raise _rt.shape_error(_OP, 'x', ('N', 'C', 'D', 'H', 'W'), x.shape, {'C': C, 'D': D, 'H': H, 'N': N, 'W': W}, 'data_format NCDHW')
        if scale.ndim != 1:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NCDHW')
        if scale.shape[0] != C:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NCDHW')
        if reserve_space_1.ndim != 1:
            raise _rt.shape_error(_OP, 'reserve_space_1', ('C',), reserve_space_1.shape, {'C': C}, 'data_format NCDHW')
        if reserve_space_1.shape[0] != C:
            raise _rt.shape_error(_OP, 'reserve_space_1', ('C',), reserve_space_1.shape, {'C': C}, 'data_format NCDHW')
        if reserve_space_2.ndim != 1:
            raise _rt.shape_error(_OP, 'reserve_space_2', ('C',), reserve_space_2.shape, {'C': C}, 'data_format NCDHW')
        if reserve_space_2.shape[0] != C:
            raise _rt.shape_error(_OP, 'reserve_space_2', ('C',), reserve_space_2.shape, {'C': C}, 'data_format NCDHW')
        if reserve_space_3.ndim < 0:
            raise _rt.shape_error(_OP, 'reserve_space_3', ('...',), reserve_space_3.shape, {}, 'data_format NCDHW')
        _shape_x_backprop = [N, C, D, H, W]
        _shape_scale_backprop = [C]
        _shape_offset_backprop = [C]
        _shape_reserve_space_4 = [0]
        _shape_reserve_space_5 = [0]
    else:
        raise AssertionError(data_format)
    x_backprop = _backend.empty(_shape_x_backprop, _dtype_T)
    scale_backprop = _backend.empty(_shape_scale_backprop, _dtype_U)
    offset_backprop = _backend.empty(_shape_offset_backprop, _dtype_U)
    reserve_space_4 = _backend.empty(_shape_reserve_space_4, _dtype_U)
    reserve_space_5 = _backend.empty(_shape_reserve_space_5, _dtype_U)
    return FusedBatchNormGradV3Outputs(x_backprop, scale_backprop, offset_backprop, reserve_space_4, reserve_space_5)
