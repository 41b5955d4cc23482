# generated from specs/nn/fused_batch_norm_v3.yaml by opgen — do not edit (opgen 0.1.0)
"""FusedBatchNormV3: Batch normalization."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as _np

# isort: split
from codegen.runtime import api as _rt
from codegen.runtime.kernels import KernelSource
from codegen.runtime.scope import Scope

_OP = 'FusedBatchNormV3'
_KERNELS = KernelSource(_OP, Path(__file__).with_name("fused_batch_norm.cu"))
# The launch plan as data (codegen/runtime/plan.py): what _compute runs, recorded once per set of sizes
# and attrs; the loop in _compute is the same plan as Python (OPGEN_PLAN=loop runs it).
_PLAN = _rt.Plan('FusedBatchNormV3', ('_dtype_T', 'cblocks', 'splits', 'reduce_threads', 'm', 'C', 'inner', 'is_training', 'chunk', 'channel_threads', 'epsilon', 'exponential_avg_factor', 'elementwise_blocks', 'elementwise_threads', 'total'), ('x', 'partials', 'scale', 'offset', 'mean', 'variance', 'batch_mean', 'batch_variance', 'reserve_space_1', 'reserve_space_2', 'coeffs', 'y'), (
    ('launch', 'stats_partials', ('_dtype_T',), ('cblocks', 'splits'), ('reduce_threads',), 0, (('buf', 0), ('buf', 1), ('scalar', '_np.int64', 'm', None, ()), ('scalar', '_np.int64', 'C', None, ()), ('scalar', '_np.int64', 'inner', None, ()), ('scalar', '_np.int64', 'splits', None, ())), (('attr', 'is_training', True), ('==', 'chunk', 0))),
    ('launch', 'stats_partials_sliced', ('_dtype_T',), ('cblocks', 'splits'), ('reduce_threads',), 0, (('buf', 0), ('buf', 1), ('scalar', '_np.int64', 'm', None, ()), ('scalar', '_np.int64', 'C', None, ()), ('scalar', '_np.int64', 'inner', None, ()), ('scalar', '_np.int64', 'splits', None, ())), (('attr', 'is_training', True), ('>', 'chunk', 0))),
    ('launch', 'stats_finalize', ('_dtype_T',), (('ceildiv', 'C', 256),), ('channel_threads',), 0, (('buf', 0), ('buf', 1), ('buf', 2), ('buf', 3), ('buf', 4), ('buf', 5), ('buf', 6), ('buf', 7), ('buf', 8), ('buf', 9), ('buf', 10), ('scalar', '_np.int64', 'm', None, ()), ('scalar', '_np.int64', 'C', None, ()), ('scalar', '_np.int64', 'inner', None, ()), ('scalar', '_np.int64', 'splits', None, ()), ('scalar', '_np.float32', 'epsilon', None, ()), ('scalar', '_np.float32', 'exponential_avg_factor', None, ())), (('attr', 'is_training', True),)),
    ('launch', 'inference_stats', ('_dtype_T',), (('ceildiv', 'C', 256),), ('channel_threads',), 0, (('buf', 2), ('buf', 3), ('buf', 4), ('buf', 5), ('buf', 6), ('buf', 7), ('buf', 8), ('buf', 9), ('buf', 10), ('scalar', '_np.int64', 'C', None, ()), ('scalar', '_np.float32', 'epsilon', None, ())), (('attr', 'is_training', False),)),
    ('launch', 'normalize', ('_dtype_T',), ('elementwise_blocks',), ('elementwise_threads',), 0, (('buf', 0), ('buf', 10), ('buf', 11), ('scalar', '_np.int64', 'total', None, ()), ('scalar', '_np.int64', 'C', None, ()), ('scalar', '_np.int64', 'inner', None, ()), ('scalar', '_np.int64', 'chunk', None, ())), ()),
), {
    'stats_partials': {('float16',): 'FusedBatchNormV3__stats_partials__float16', ('bfloat16',): 'FusedBatchNormV3__stats_partials__bfloat16', ('float32',): 'FusedBatchNormV3__stats_partials__float32'},
    'stats_partials_sliced': {('float16',): 'FusedBatchNormV3__stats_partials_sliced__float16', ('bfloat16',): 'FusedBatchNormV3__stats_partials_sliced__bfloat16', ('float32',): 'FusedBatchNormV3__stats_partials_sliced__float32'},
    'stats_finalize': {('float16',): 'FusedBatchNormV3__stats_finalize__float16', ('bfloat16',): 'FusedBatchNormV3__stats_finalize__bfloat16', ('float32',): 'FusedBatchNormV3__stats_finalize__float32'},
    'inference_stats': {('float16',): 'FusedBatchNormV3__inference_stats__float16', ('bfloat16',): 'FusedBatchNormV3__inference_stats__bfloat16', ('float32',): 'FusedBatchNormV3__inference_stats__float32'},
    'normalize': {('float16',): 'FusedBatchNormV3__normalize__float16', ('bfloat16',): 'FusedBatchNormV3__normalize__bfloat16', ('float32',): 'FusedBatchNormV3__normalize__float32'},
})
# The op's native driver (codegen/runtime/native_driver.py): _compute hands it the call first.
_NATIVE = _rt.NativeDriver(_OP, _KERNELS, _PLAN, Path(__file__).with_name("fused_batch_norm_v3.driver.cpp"))

DataFormat = Literal['NHWC', 'NCHW', 'NDHWC', 'NCDHW']


class FusedBatchNormV3Outputs(NamedTuple):
    """The outputs of FusedBatchNormV3, in order."""

    y: Any
    """T, shape [N, H, W, C] (NHWC) · [N, C, H, W] (NCHW) · [N, D, H, W, C] (NDHWC) · [N, C, D, H, W] (NCDHW). A 4-D or 5-D tensor for the output data."""
    batch_mean: Any
    """U, shape [C]. A 1-D tensor for the computed batch mean, to be used by TensorFlow to compute the running mean."""
    batch_variance: Any
    """U, shape [C]. A 1-D tensor for the computed batch variance (Bessel-corrected: m/(m−1) times the biased variance), to be used by TensorFlow to compute the running variance."""
    reserve_space_1: Any
    """U, shape [C]. The batch mean, reused by the gradient."""
    reserve_space_2: Any
    """U, shape [C]. The biased batch variance, reused by the gradient."""
    reserve_space_3: Any
    """U, shape [0]. An empty placeholder."""


class FusedBatchNormV3:
    """Batch normalization.

    Normalizes `x` per channel. In training mode the statistics are those of the batch (the mean
    and the biased variance over every element of a channel); in inference mode they are the given
    population `mean` and `variance`. The size of the activation tensors is given by
    `data_format`: NHWC or NCHW (4-D), NDHWC or NCDHW (5-D); the 1-D tensors have the size of
    dimension C.

    `reserve_space_1` and `reserve_space_2` hold the batch mean and the biased batch variance, as
    TensorFlow's CPU kernel stores them, so they can be passed to FusedBatchNormGradV3 and are
    interchangeable with TensorFlow's. `reserve_space_3` is an empty placeholder.

    The batch statistics are float32, computed in two passes over each run of a channel's values
    and merged by Chan et al.'s formula: within a few float32 roundings of float64 for any data
    whose variance float32 can hold, outliers and data far from 0 (mean 1e4, std 1) included. A
    NaN or ±inf in a channel propagates as in PyTorch: the channel's variance and y are NaN, its
    mean is ±inf (or NaN), and so are the running statistics it updates.

    Create it with `FusedBatchNormV3.create(scope, x, scale, offset, mean, variance, *options)`, or call
    `fused_batch_norm_v3(...)`. The reference page is generated/docs/nn/fused_batch_norm_v3.md.
    """

    OP_NAME = 'FusedBatchNormV3'
    Outputs = FusedBatchNormV3Outputs

    class Options:
        """Optional attributes for FusedBatchNormV3; each setter returns the Options, so calls chain."""

        __slots__ = ("_values",)

        def __init__(self) -> None:
            self._values: dict[str, Any] = {}

        def epsilon(self, epsilon: float) -> FusedBatchNormV3.Options:
            """Sets epsilon (default 0.0001). A small float number added to the variance of x."""
            self._values['epsilon'] = epsilon
            return self

        def exponential_avg_factor(self, exponential_avg_factor: float) -> FusedBatchNormV3.Options:
            """Sets exponential_avg_factor (default 1.0). Weight of the batch statistics in the running averages: batch_mean = (1 − f)·mean + f·μ (and likewise the variance). 1 returns the batch statistics themselves."""
            self._values['exponential_avg_factor'] = exponential_avg_factor
            return self

        def data_format(self, data_format: DataFormat) -> FusedBatchNormV3.Options:
            """Sets data_format (default 'NHWC'). The data format for x and y."""
            self._values['data_format'] = data_format
            return self

        def is_training(self, is_training: bool) -> FusedBatchNormV3.Options:
            """Sets is_training (default True). Whether to use the batch statistics (training) or the given mean and variance (inference)."""
            self._values['is_training'] = is_training
            return self

        def __repr__(self) -> str:
            items = ", ".join(f"{key}={value!r}" for key, value in self._values.items())
            return f"FusedBatchNormV3.Options({items})"

    @staticmethod
    def epsilon(epsilon: float) -> FusedBatchNormV3.Options:
        """Options with epsilon set (default 0.0001)."""
        return FusedBatchNormV3.Options().epsilon(epsilon)

    @staticmethod
    def exponential_avg_factor(exponential_avg_factor: float) -> FusedBatchNormV3.Options:
        """Options with exponential_avg_factor set (default 1.0)."""
        return FusedBatchNormV3.Options().exponential_avg_factor(exponential_avg_factor)

    @staticmethod
    def data_format(data_format: DataFormat) -> FusedBatchNormV3.Options:
        """Options with data_format set (default 'NHWC')."""
        return FusedBatchNormV3.Options().data_format(data_format)

    @staticmethod
    def is_training(is_training: bool) -> FusedBatchNormV3.Options:
        """Options with is_training set (default True)."""
        return FusedBatchNormV3.Options().is_training(is_training)

    @classmethod
    def create(
        cls,
        scope: Scope | str | None,
        x: Any,
        scale: Any,
        offset: Any,
        mean: Any,
        variance: Any,
        *options: FusedBatchNormV3.Options,
    ) -> FusedBatchNormV3:
        """Factory method to create a class wrapping a new FusedBatchNormV3 operation.

        Args:
            scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).
            x: T, shape [N, H, W, C] (NHWC) · [N, C, H, W] (NCHW) · [N, D, H, W, C] (NDHWC) · [N, C, D, H, W] (NCDHW).
                A 4-D or 5-D tensor for the input data.
            scale: U, shape [C].
                A 1-D tensor for the scaling factor, to scale the normalized x.
            offset: U, shape [C].
                A 1-D tensor for the offset, to shift to the normalized x.
            mean: U, shape [C].
                A 1-D tensor for the population mean. Used for inference only, and as
                the running mean when exponential_avg_factor ≠ 1 in training.
            variance: U, shape [C].
                A 1-D tensor for the population variance. Used for inference only, and
                as the running variance when exponential_avg_factor ≠ 1 in training.
            options: FusedBatchNormV3.Options carrying optional attribute values.

        Raises:
            TypeError: an argument has the wrong type or dtype.
            ValueError: a shape or an attribute value is not valid.
        """
        _merged = _rt.merge_options(_OP, options, cls.Options)
        return cls(_run(
            scope, x, scale, offset, mean, variance,
            _merged.get('epsilon', 0.0001),
            _merged.get('exponential_avg_factor', 1.0),
            _merged.get('data_format', 'NHWC'),
            _merged.get('is_training', True),
        ))

    def __init__(self, outputs: FusedBatchNormV3Outputs) -> None:
        self._outputs = outputs

    @property
    def y(self) -> Any:
        """A 4-D or 5-D tensor for the output data."""
        return self._outputs.y

    @property
    def batch_mean(self) -> Any:
        """A 1-D tensor for the computed batch mean, to be used by TensorFlow to compute the running mean."""
        return self._outputs.batch_mean

    @property
    def batch_variance(self) -> Any:
        """A 1-D tensor for the computed batch variance (Bessel-corrected: m/(m−1) times the biased variance), to be used by TensorFlow to compute the running variance."""
        return self._outputs.batch_variance

    @property
    def reserve_space_1(self) -> Any:
        """The batch mean, reused by the gradient."""
        return self._outputs.reserve_space_1

    @property
    def reserve_space_2(self) -> Any:
        """The biased batch variance, reused by the gradient."""
        return self._outputs.reserve_space_2

    @property
    def reserve_space_3(self) -> Any:
        """An empty placeholder."""
        return self._outputs.reserve_space_3

    def output_tuple(self) -> FusedBatchNormV3Outputs:
        """All outputs, in order."""
        return self._outputs

    def __repr__(self) -> str:
        return _rt.op_repr(_OP, self._outputs)


def fused_batch_norm_v3(
    x: Any,
    scale: Any,
    offset: Any,
    mean: Any,
    variance: Any,
    *,
    epsilon: float = 0.0001,
    exponential_avg_factor: float = 1.0,
    data_format: DataFormat = 'NHWC',
    is_training: bool = True,
    scope: Scope | str | None = None,
) -> FusedBatchNormV3Outputs:
    """Batch normalization.

    Args:
        x: T, shape [N, H, W, C] (NHWC) · [N, C, H, W] (NCHW) · [N, D, H, W, C] (NDHWC) · [N, C, D, H, W] (NCDHW).
            A 4-D or 5-D tensor for the input data.
        scale: U, shape [C].
            A 1-D tensor for the scaling factor, to scale the normalized x.
        offset: U, shape [C].
            A 1-D tensor for the offset, to shift to the normalized x.
        mean: U, shape [C].
            A 1-D tensor for the population mean. Used for inference only, and as the
            running mean when exponential_avg_factor ≠ 1 in training.
        variance: U, shape [C].
            A 1-D tensor for the population variance. Used for inference only, and as
            the running variance when exponential_avg_factor ≠ 1 in training.
        epsilon: float, >= 0; default 0.0001.
            A small float number added to the variance of x.
        exponential_avg_factor: float, >= 0, <= 1; default 1.0.
            Weight of the batch statistics in the running averages: batch_mean = (1 −
            f)·mean + f·μ (and likewise the variance). 1 returns the batch statistics
            themselves.
        data_format: enum in ['NHWC', 'NCHW', 'NDHWC', 'NCDHW']; default 'NHWC'.
            The data format for x and y.
        is_training: bool; default True.
            Whether to use the batch statistics (training) or the given mean and
            variance (inference).
        scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).

    Returns:
        FusedBatchNormV3Outputs(y, batch_mean, batch_variance, reserve_space_1, reserve_space_2, reserve_space_3).

    Raises:
        TypeError: an argument has the wrong type or dtype.
        ValueError: a shape or an attribute value is not valid.
    """
    if type(x) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (x, scale, offset, mean, variance), (epsilon, exponential_avg_factor, data_format, is_training), FusedBatchNormV3Outputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(x, scale, offset, mean, variance)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'x': x, 'scale': scale, 'offset': offset, 'mean': mean, 'variance': variance}, (epsilon, exponential_avg_factor, data_format, is_training))
    return _compute(scope, x, scale, offset, mean, variance, epsilon, exponential_avg_factor, data_format, is_training)


def _run(scope: Scope | str | None, x: Any, scale: Any, offset: Any, mean: Any, variance: Any, epsilon: Any, exponential_avg_factor: Any, data_format: Any, is_training: Any) -> FusedBatchNormV3Outputs:
    if type(x) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (x, scale, offset, mean, variance), (epsilon, exponential_avg_factor, data_format, is_training), FusedBatchNormV3Outputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(x, scale, offset, mean, variance)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'x': x, 'scale': scale, 'offset': offset, 'mean': mean, 'variance': variance}, (epsilon, exponential_avg_factor, data_format, is_training))
    return _compute(scope, x, scale, offset, mean, variance, epsilon, exponential_avg_factor, data_format, is_training)


def _compute(scope: Scope | str | None, x: Any, scale: Any, offset: Any, mean: Any, variance: Any, epsilon: Any, exponential_avg_factor: Any, data_format: Any, is_training: Any) -> FusedBatchNormV3Outputs:
    _backend = _rt.backend_of(scope, _OP)
    _native = _NATIVE.call(_backend, (x, scale, offset, mean, variance), (epsilon, exponential_avg_factor, data_format, is_training), FusedBatchNormV3Outputs)
    if _native is not None:  # the op's native driver ran the call (its outputs made as this NamedTuple)
        return _native
    epsilon = _rt.check_float(_OP, 'epsilon', epsilon, 0, None)
    exponential_avg_factor = _rt.check_float(_OP, 'exponential_avg_factor', exponential_avg_factor, 0, 1)
    data_format = _rt.check_enum(_OP, 'data_format', data_format, ('NHWC', 'NCHW', 'NDHWC', 'NCDHW'))
    is_training = _rt.check_bool(_OP, 'is_training', is_training)
    x = _backend.adopt(_OP, 'x', x)
    _dtype_T = _rt.check_dtype(_OP, 'x', x, ('float16', 'bfloat16', 'float32'), 'T')
    scale = _backend.adopt(_OP, 'scale', scale)
    _dtype_U = _rt.check_dtype(_OP, 'scale', scale, ('float32',), 'U')
    offset = _backend.adopt(_OP, 'offset', offset)
    _rt.check_same_dtype(_OP, 'offset', offset, _dtype_U, 'U', 'scale')
    mean = _backend.adopt(_OP, 'mean', mean)
    _rt.check_same_dtype(_OP, 'mean', mean, _dtype_U, 'U', 'scale')
    variance = _backend.adopt(_OP, 'variance', variance)
    _rt.check_same_dtype(_OP, 'variance', variance, _dtype_U, 'U', 'scale')
    if data_format == 'NHWC':
        if x.ndim != 4:
            raise _rt.shape_error(_OP, 'x', ('N', 'H', 'W', 'C'), x.shape, {}, 'data_format NHWC')
        N = x.shape[0]
        H = x.shape[1]
        W = x.shape[2]
        C = x.shape[3]
        if scale.ndim != 1:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NHWC')
        if scale.shape[0] != C:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NHWC')
        if offset.ndim != 1:
            raise _rt.shape_error(_OP, 'offset', ('C',), offset.shape, {'C': C}, 'data_format NHWC')
        if offset.shape[0] != C:
            raise _rt.shape_error(_OP, 'offset', ('C',), offset.shape, {'C': C}, 'data_format NHWC')
        if mean.ndim != 1:
            raise _rt.shape_error(_OP, 'mean', ('C',), mean.shape, {'C': C}, 'data_format NHWC')
        if mean.shape[0] != C:
            raise _rt.shape_error(_OP, 'mean', ('C',), mean.shape, {'C': C}, 'data_format NHWC')
        if variance.ndim != 1:
            raise _rt.shape_error(_OP, 'variance', ('C',), variance.shape, {'C': C}, 'data_format NHWC')
        if variance.shape[0] != C:
            raise _rt.shape_error(_OP, 'variance', ('C',), variance.shape, {'C': C}, 'data_format NHWC')
        outer = N*H*W
        inner = 1
        total = outer*C*inner
        m = outer*inner
        cblocks = (-(-C//32))
        reduce_threads = (32 if _backend.name == 'cpu' else max(32, min(256, 32*(-(-m//32)))))
        channel_threads = max(32, min(256, 32*(-(-C//32))))
        gpu_splits = max(1, min((-(-m//1024)), 512))
        cpu_splits = max(1, min((-(-16//max(1, cblocks))), (-(-m//4096))))
        splits = (cpu_splits if _backend.name == 'cpu' else gpu_splits)
        chunk = (4096 if _backend.name == 'cpu' else 0)
        elementwise_threads = (max(32, min(64, 32*(-(-total//(32*4096))))) if _backend.name == 'cpu' else max(32, min(256, 32*(-(-total//128)))))
        elementwise_blocks = (max(1, (-(-total//(4096*elementwise_threads)))) if _backend.name == 'cpu' else min((-(-total//1024)), 1024))
        _shape_y = [N, H, W, C]
        _shape_batch_mean = [C]
        _shape_batch_variance = [C]
        _shape_reserve_space_1 = [C]
        _shape_reserve_space_2 = [C]
        _shape_reserve_space_3 = [0]
    elif data_format == 'NCHW':
        if x.ndim != 4:
            raise _rt.shape_error(_OP, 'x', ('N', 'C', 'H', 'W'), x.shape, {}, 'data_format NCHW')
        N = x.shape[0]
        C = x.shape[1]
        H = x.shape[2]
        W = x.shape[3]
        if scale.ndim != 1:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NCHW')
        if scale.shape[0] != C:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NCHW')
        if offset.ndim != 1:
            raise _rt.shape_error(_OP, 'offset', ('C',), offset.shape, {'C': C}, 'data_format NCHW')
        if offset.shape[0] != C:
            raise _rt.shape_error(_OP, 'offset', ('C',), offset.shape, {'C': C}, 'data_format NCHW')
        if mean.ndim != 1:
            raise _rt.shape_error(_OP, 'mean', ('C',), mean.shape, {'C': C}, 'data_format NCHW')
        if mean.shape[0] != C:
            raise _rt.shape_error(_OP, 'mean', ('C',), mean.shape, {'C': C}, 'data_format NCHW')
        if variance.ndim != 1:
            raise _rt.shape_error(_OP, 'variance', ('C',), variance.shape, {'C': C}, 'data_format NCHW')
        if variance.shape[0] != C:
            raise _rt.shape_error(_OP, 'variance', ('C',), variance.shape, {'C': C}, 'data_format NCHW')
        outer = N
        inner = H*W
        total = outer*C*inner
        m = outer*inner
        cblocks = C
        reduce_threads = (32 if _backend.name == 'cpu' else max(32, min(256, 32*(-(-m//32)))))
        channel_threads = max(32, min(256, 32*(-(-C//32))))
        gpu_splits = max(1, min((-(-m//32768)), 512))
        cpu_splits = max(1, min((-(-16//max(1, cblocks))), (-(-m//4096))))
        splits = (cpu_splits if _backend.name == 'cpu' else gpu_splits)
        chunk = (4096 if _backend.name == 'cpu' else 0)
        elementwise_threads = (max(32, min(64, 32*(-(-total//(32*4096))))) if _backend.name == 'cpu' else max(32, min(256, 32*(-(-total//128)))))
        elementwise_blocks = (max(1, (-(-total//(4096*elementwise_threads)))) if _backend.name == 'cpu' else min((-(-total//1024)), 1024))
        _shape_y = [N, C, H, W]
        _shape_batch_mean = [C]
        _shape_batch_variance = [C]
        _shape_reserve_space_1 = [C]
        _shape_reserve_space_2 = [C]
        _shape_reserve_space_3 = [0]
    elif data_format == 'NDHWC':
        if x.ndim != 5:
            raise _rt.shape_error(_OP, 'x', ('N', 'D', 'H', 'W', 'C'), x.shape, {}, 'data_format NDHWC')
        N = x.shape[0]
        D = x.shape[1]
        H = x.shape[2]
        W = x.shape[3]
        C = x.shape[4]
        if scale.ndim != 1:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NDHWC')
        if scale.shape[0] != C:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NDHWC')
        if offset.ndim != 1:
            raise _rt.shape_error(_OP, 'offset', ('C',), offset.shape, {'C': C}, 'data_format NDHWC')
        if offset.shape[0] != C:
            raise _rt.shape_error(_OP, 'offset', ('C',), offset.shape, {'C': C}, 'data_format NDHWC')
        if mean.ndim != 1:
            raise _rt.shape_error(_OP, 'mean', ('C',), mean.shape, {'C': C}, 'data_format NDHWC')
        if mean.shape[0] != C:
            raise _rt.shape_error(_OP, 'mean', ('C',), mean.shape, {'C': C}, 'data_format NDHWC')
        if variance.ndim != 1:
            raise _rt.shape_error(_OP, 'variance', ('C',), variance.shape, {'C': C}, 'data_format NDHWC')
        if variance.shape[0] != C:
            raise _rt.shape_error(_OP, 'variance', ('C',), variance.shape, {'C': C}, 'data_format NDHWC')
        outer = N*D*H*W
        inner = 1
        total = outer*C*inner
        m = outer*inner
        cblocks = (-(-C//32))
        reduce_threads = (32 if _backend.name == 'cpu' else max(32, min(256, 32*(-(-m//32)))))
        channel_threads = max(32, min(256, 32*(-(-C//32))))
        gpu_splits = max(1, min((-(-m//1024)), 512))
        cpu_splits = max(1, min((-(-16//max(1, cblocks))), (-(-m//4096))))
        splits = (cpu_splits if _backend.name == 'cpu' else gpu_splits)
        chunk = (4096 if _backend.name == 'cpu' else 0)
        elementwise_threads = (max(32, min(64, 32*(-(-total//(32*4096))))) if _backend.name == 'cpu' else max(32, min(256, 32*(-(-total//128)))))
        elementwise_blocks = (max(1, (-(-total//(4096*elementwise_threads)))) if _backend.name == 'cpu' else min((-(-total//1024)), 1024))
        _shape_y = [N, D, H, W, C]
        _shape_batch_mean = [C]
        _shape_batch_variance = [C]
        _shape_reserve_space_1 = [C]
        _shape_reserve_space_2 = [C]
        _shape_reserve_space_3 = [0]
    elif data_format == 'NCDHW':
        if x.ndim != 5:
            raise _rt.shape_error(_OP, 'x', ('N', 'C', 'D', 'H', 'W'), x.shape, {}, 'data_format NCDHW')
        N = x.shape[0]
        C = x.shape[1]
        D = x.shape[2]
        H = x.shape[3]
        W = x.shape[4]
        if scale.ndim != 1:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NCDHW')
        if scale.shape[0] != C:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NCDHW')
        if offset.ndim != 1:
            raise _rt.shape_error(_OP, 'offset', ('C',), offset.shape, {'C': C}, 'data_format NCDHW')
        if offset.shape[0] != C:
            raise _rt.shape_error(_OP, 'offset', ('C',), offset.shape, {'C': C}, 'data_format NCDHW')
        if mean.ndim != 1:
            raise _rt.shape_error(_OP, 'mean', ('C',), mean.shape, {'C': C}, 'data_format NCDHW')
        if mean.shape[0] != C:
            raise _rt.shape_error(_OP, 'mean', ('C',), mean.shape, {'C': C}, 'data_format NCDHW')
        if variance.ndim != 1:
            raise _rt.shape_error(_OP, 'variance', ('C',), variance.shape, {'C': C}, 'data_format NCDHW')
        if variance.shape[0] != C:
            raise _rt.shape_error(_OP, 'variance', ('C',), variance.shape, {'C': C}, 'data_format NCDHW')
        outer = N
        inner = D*H*W
        total = outer*C*inner
        m = outer*inner
        cblocks = C
        reduce_threads = (32 if _backend.name == 'cpu' else max(32, min(256, 32*(-(-m//32)))))
        channel_threads = max(32, min(256, 32*(-(-C//32))))
        gpu_splits = max(1, min((-(-m//32768)), 512))
        cpu_splits = max(1, min((-(-16//max(1, cblocks))), (-(-m//4096))))
        splits = (cpu_splits if _backend.name == 'cpu' else gpu_splits)
        chunk = (4096 if _backend.name == 'cpu' else 0)
        elementwise_threads = (max(32, min(64, 32*(-(-total//(32*4096))))) if _backend.name == 'cpu' else max(32, min(256, 32*(-(-total//128)))))
        elementwise_blocks = (max(1, (-(-total//(4096*elementwise_threads)))) if _backend.name == 'cpu' else min((-(-total//1024)), 1024))
        _shape_y = [N, C, D, H, W]
        _shape_batch_mean = [C]
        _shape_batch_variance = [C]
        _shape_reserve_space_1 = [C]
        _shape_reserve_space_2 = [C]
        _shape_reserve_space_3 = [0]
    else:
        raise AssertionError(data_format)
    y = _backend.empty(_shape_y, _dtype_T)
    batch_mean = _backend.empty(_shape_batch_mean, _dtype_U)
    batch_variance = _backend.empty(_shape_batch_variance, _dtype_U)
    reserve_space_1 = _backend.empty(_shape_reserve_space_1, _dtype_U)
    reserve_space_2 = _backend.empty(_shape_reserve_space_2, _dtype_U)
    reserve_space_3 = _backend.empty(_shape_reserve_space_3, _dtype_U)
    partials = _backend.empty([splits, C, 3], 'float32')
    coeffs = _backend.empty([C, 2], 'float32')
    if _rt.plan_as_data():
        _rt.run_plan(_backend, _KERNELS, _PLAN, (_dtype_T, cblocks, splits, reduce_threads, m, C, inner, is_training, chunk, channel_threads, epsilon, exponential_avg_factor, elementwise_blocks, elementwise_threads, total,), (x, partials, scale, offset, mean, variance, batch_mean, batch_variance, reserve_space_1, reserve_space_2, coeffs, y,))
    else:  # the same plan as Python: for a reader, and run with OPGEN_PLAN=loop
        _rt.hold_if_capturing(_backend, (x, partials, scale, offset, mean, variance, batch_mean, batch_variance, reserve_space_1, reserve_space_2, coeffs, y,))
        if is_training and chunk == 0:
            _backend.launch(_KERNELS, _PLAN.symbol('stats_partials', _dtype_T), (cblocks, splits,), (reduce_threads,), (x, partials, _np.int64(m), _np.int64(C), _np.int64(inner), _np.int64(splits),), 0)
        if is_training and chunk > 0:
            _backend.launch(_KERNELS, _PLAN.symbol('stats_partials_sliced', _dtype_T), (cblocks, splits,), (reduce_threads,), (x, partials, _np.int64(m), _np.int64(C), _np.int64(inner), _np.int64(splits),), 0)
        if is_training:
            _backend.launch(_KERNELS, _PLAN.symbol('stats_finalize', _dtype_T), ((-(-C//256)),), (channel_threads,), (x, partials, scale, offset, mean, variance, batch_mean, batch_variance, reserve_space_1, reserve_space_2, coeffs, _np.int64(m), _np.int64(C), _np.int64(inner), _np.int64(splits), _np.float32(epsilon), _np.float32(exponential_avg_factor),), 0)
        if not is_training:
            _backend.launch(_KERNELS, _PLAN.symbol('inference_stats', _dtype_T), ((-(-C//256)),), (channel_threads,), (scale, offset, mean, variance, batch_mean, batch_variance, reserve_space_1, reserve_space_2, coeffs, _np.int64(C), _np.float32(epsilon),), 0)
        _backend.launch(_KERNELS, _PLAN.symbol('normalize', _dtype_T), (elementwise_blocks,), (elementwise_threads,), (x, coeffs, y, _np.int64(total), _np.int64(C), _np.int64(inner), _np.int64(chunk),), 0)
    _backend.flush()
    return FusedBatchNormV3Outputs(y, batch_mean, batch_variance, reserve_space_1, reserve_space_2, reserve_space_3)


def _fake(_backend: Any, x: Any, scale: Any, offset: Any, mean: Any, variance: Any, epsilon: Any, exponential_avg_factor: Any, data_format: Any, is_training: Any) -> FusedBatchNormV3Outputs:
    """The outputs of a call as empty tensors of the right shapes and dtypes, made by `_backend`
    (the torch registration's fake implementation: nothing runs, no data is read)."""
    epsilon = _rt.check_float(_OP, 'epsilon', epsilon, 0, None)
    exponential_avg_factor = _rt.check_float(_OP, 'exponential_avg_factor', exponential_avg_factor, 0, 1)
    data_format = _rt.check_enum(_OP, 'data_format', data_format, ('NHWC', 'NCHW', 'NDHWC', 'NCDHW'))
    is_training = _rt.check_bool(_OP, 'is_training', is_training)
    _dtype_T = _rt.check_dtype(_OP, 'x', x, ('float16', 'bfloat16', 'float32'), 'T')
    _dtype_U = _rt.check_dtype(_OP, 'scale', scale, ('float32',), 'U')
    _rt.check_same_dtype(_OP, 'offset', offset, _dtype_U, 'U', 'scale')
    _rt.check_same_dtype(_OP, 'mean', mean, _dtype_U, 'U', 'scale')
    _rt.check_same_dtype(_OP, 'variance', variance, _dtype_U, 'U', 'scale')
    if data_format == 'NHWC':
        if x.ndim != 4:
            raise _rt.shape_error(_OP, 'x', ('N', 'H', 'W', 'C'), x.shape, {}, 'data_format NHWC')
        N = x.shape[0]
        H = x.shape[1]
        W = x.shape[2]
        C = x.shape[3]
        if scale.ndim != 1:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NHWC')
        if scale.shape[0] != C:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NHWC')
        if offset.ndim != 1:
            raise _rt.shape_error(_OP, 'offset', ('C',), offset.shape, {'C': C}, 'data_format NHWC')
        if offset.shape[0] != C:
            raise _rt.shape_error(_OP, 'offset', ('C',), offset.shape, {'C': C}, 'data_format NHWC')
        if mean.ndim != 1:
            raise _rt.shape_error(_OP, 'mean', ('C',), mean.shape, {'C': C}, 'data_format NHWC')
        if mean.shape[0] != C:
            raise _rt.shape_error(_OP, 'mean', ('C',), mean.shape, {'C': C}, 'data_format NHWC')
        if variance.ndim != 1:
            raise _rt.shape_error(_OP, 'variance', ('C',), variance.shape, {'C': C}, 'data_format NHWC')
        if variance.shape[0] != C:
            raise _rt.shape_error(_OP, 'variance', ('C',), variance.shape, {'C': C}, 'data_format NHWC')
        _shape_y = [N, H, W, C]
        _shape_batch_mean = [C]
        _shape_batch_variance = [C]
        _shape_reserve_space_1 = [C]
        _shape_reserve_space_2 = [C]
        _shape_reserve_space_3 = [0]
    elif data_format == 'NCHW':
        if x.ndim != 4:
            raise _rt.shape_error(_OP, 'x', ('N', 'C', 'H', 'W'), x.shape, {}, 'data_format NCHW')
        N = x.shape[0]
        C = x.shape[1]
        H = x.shape[2]
        W = x.shape[3]
        if scale.ndim != 1:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NCHW')
        if scale.shape[0] != C:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NCHW')
        if offset.ndim != 1:
            raise _rt.shape_error(_OP, 'offset', ('C',), offset.shape, {'C': C}, 'data_format NCHW')
        if offset.shape[0] != C:
            raise _rt.shape_error(_OP, 'offset', ('C',), offset.shape, {'C': C}, 'data_format NCHW')
        if mean.ndim != 1:
            raise _rt.shape_error(_OP, 'mean', ('C',), mean.shape, {'C': C}, 'data_format NCHW')
        if mean.shape[0] != C:
            raise _rt.shape_error(_OP, 'mean', ('C',), mean.shape, {'C': C}, 'data_format NCHW')
        if variance.ndim != 1:
            raise _rt.shape_error(_OP, 'variance', ('C',), variance.shape, {'C': C}, 'data_format NCHW')
        if variance.shape[0] != C:
            raise _rt.shape_error(_OP, 'variance', ('C',), variance.shape, {'C': C}, 'data_format NCHW')
        _shape_y = [N, C, H, W]
        _shape_batch_mean = [C]
        _shape_batch_variance = [C]
        _shape_reserve_space_1 = [C]
        _shape_reserve_space_2 = [C]
        _shape_reserve_space_3 = [0]
    elif data_format == 'NDHWC':
        if x.ndim != 5:
            raise _rt.shape_error(_OP, 'x', ('N', 'D', 'H', 'W', 'C'), x.shape, {}, 'data_format NDHWC')
        N = x.shape[0]
        D = x.shape[1]
        H = x.shape[2]
        W = x.shape[3]
        C = x.shape[4]
        if scale.ndim != 1:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NDHWC')
        if scale.shape[0] != C:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NDHWC')
        if offset.ndim != 1:
            raise _rt.shape_error(_OP, 'offset', ('C',), offset.shape, {'C': C}, 'data_format NDHWC')
        if offset.shape[0] != C:
            raise _rt.shape_error(_OP, 'offset', ('C',), offset.shape, {'C': C}, 'data_format NDHWC')
        if mean.ndim != 1:
            raise _rt.shape_error(_OP, 'mean', ('C',), mean.shape, {'C': C}, 'data_format NDHWC')
        if mean.shape[0] != C:
            raise _rt.shape_error(_OP, 'mean', ('C',), mean.shape, {'C': C}, 'data_format NDHWC')
        if variance.ndim != 1:
            raise _rt.shape_error(_OP, 'variance', ('C',), variance.shape, {'C': C}, 'data_format NDHWC')
        if variance.shape[0] != C:
            raise _rt.shape_error(_OP, 'variance', ('C',), variance.shape, {'C': C}, 'data_format NDHWC')
        _shape_y = [N, D, H, W, C]
        _shape_batch_mean = [C]
        _shape_batch_variance = [C]
        _shape_reserve_space_1 = [C]
        _shape_reserve_space_2 = [C]
        _shape_reserve_space_3 = [0]
    elif data_format == 'NCDHW':
        if x.ndim != 5:
            raise _rt.shape_error(_OP, 'x', ('N', 'C', 'D', 'H', 'W'), x.shape, {}, 'data_format NCDHW')
        N = x.shape[0]
        C = x.shape[1]
        D = x.shape[2]
        H = x.shape[3]
        W = x.shape[4]
        if scale.ndim != 1:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NCDHW')
        if scale.shape[0] != C:
            raise _rt.shape_error(_OP, 'scale', ('C',), scale.shape, {'C': C}, 'data_format NCDHW')
        if offset.ndim != 1:
            raise _rt.shape_error(_OP, 'offset', ('C',), offset.shape, {'C': C}, 'data_format NCDHW')
        if offset.shape[0] != C:
            raise _rt.shape_error(_OP, 'offset', ('C',), offset.shape, {'C': C}, 'data_format NCDHW')
        if mean.ndim != 1:
            raise _rt.shape_error(_OP, 'mean', ('C',), mean.shape, {'C': C}, 'data_format NCDHW')
        if mean.shape[0] != C:
            raise _rt.shape_error(_OP, 'mean', ('C',), mean.shape, {'C': C}, 'data_format NCDHW')
        if variance.ndim != 1:
            raise _rt.shape_error(_OP, 'variance', ('C',), variance.shape, {'C': C}, 'data_format NCDHW')
        if variance.shape[0] != C:
            raise _rt.shape_error(_OP, 'variance', ('C',), variance.shape, {'C': C}, 'data_format NCDHW')
        _shape_y = [N, C, D, H, W]
        _shape_batch_mean = [C]
        _shape_batch_variance = [C]
        _shape_reserve_space_1 = [C]
        _shape_reserve_space_2 = [C]
        _shape_reserve_space_3 = [0]
    else:
        raise AssertionError(data_format)
    y = _backend.empty(_shape_y, _dtype_T)
    batch_mean = _backend.empty(_shape_batch_mean, _dtype_U)
    batch_variance = _backend.empty(_shape_batch_variance, _dtype_U)
    reserve_space_1 = _backend.empty(_shape_reserve_space_1, _dtype_U)
    reserve_space_2 = _backend.empty(_shape_reserve_space_2, _dtype_U)
    reserve_space_3 = _backend.empty(_shape_reserve_space_3, _dtype_U)
    return FusedBatchNormV3Outputs(y, batch_mean, batch_variance, reserve_space_1, reserve_space_2, reserve_space_3)
