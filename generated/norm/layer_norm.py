# generated from specs/norm/layer_norm.yaml by opgen — do not edit (opgen 0.1.0)
"""LayerNorm: Layer normalization over the last dimension."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import numpy as _np

# isort: split
from codegen.runtime import api as _rt
from codegen.runtime.kernels import KernelSource
from codegen.runtime.scope import Scope

_OP = 'LayerNorm'
_KERNELS = KernelSource(_OP, Path(__file__).with_name("layer_norm.cu"))
# The launch plan as data (codegen/runtime/plan.py): what _compute runs, recorded once per set of sizes
# and attrs; the loop in _compute is the same plan as Python (OPGEN_PLAN=loop runs it).
_PLAN = _rt.Plan('LayerNorm', ('_dtype_T', 'row_blocks', 'row_threads', 'rows', 'D', 'epsilon'), ('x', 'gamma', 'beta', 'y', 'mean', 'rstd'), (
    ('launch', 'layer_norm', ('_dtype_T',), ('row_blocks',), ('row_threads',), 0, (('buf', 0), ('buf', 1), ('buf', 2), ('buf', 3), ('buf', 4), ('buf', 5), ('scalar', '_np.int64', 'rows', None, ()), ('scalar', '_np.int64', 'D', None, ()), ('scalar', '_np.float32', 'epsilon', None, ())), ()),
), {
    'layer_norm': {('float16',): 'LayerNorm__layer_norm__float16', ('bfloat16',): 'LayerNorm__layer_norm__bfloat16', ('float32',): 'LayerNorm__layer_norm__float32'},
})
# The op's native driver (codegen/runtime/native_driver.py): _compute hands it the call first.
_NATIVE = _rt.NativeDriver(_OP, _KERNELS, _PLAN, Path(__file__).with_name("layer_norm.driver.cpp"))


class LayerNormOutputs(NamedTuple):
    """The outputs of LayerNorm, in order."""

    y: Any
    """T, shape [*lead, D]. The normalized x."""
    mean: Any
    """S, shape [*lead]. The mean of each row."""
    rstd: Any
    """S, shape [*lead]. 1/√(var + epsilon) of each row (var: the biased variance)."""


class LayerNorm:
    """Layer normalization over the last dimension.

    Normalizes each row of `x` (its last dimension, D elements) to mean 0 and variance 1, then
    scales and shifts it: y = (x − mean)·rstd·gamma + beta, with mean and rstd = 1/√(var + epsilon)
    the row's statistics (the biased variance), as PyTorch's `F.layer_norm(x, [D], gamma, beta,
    epsilon)`. An absent gamma is a gamma of ones, an absent beta a beta of zeros. Rows of D = 0
    elements have mean 0 and variance 0 (rstd = 1/√epsilon; PyTorch gives NaN). The statistics
    are computed and returned in float32 for every T, so they can be passed to LayerNormGrad.

    Create it with `LayerNorm.create(scope, x, gamma, beta, *options)`, or call
    `layer_norm(...)`. The reference page is generated/docs/norm/layer_norm.md.
    """

    OP_NAME = 'LayerNorm'
    Outputs = LayerNormOutputs

    class Options:
        """Optional attributes for LayerNorm; each setter returns the Options, so calls chain."""

        __slots__ = ("_values",)

        def __init__(self) -> None:
            self._values: dict[str, Any] = {}

        def epsilon(self, epsilon: float) -> LayerNorm.Options:
            """Sets epsilon (default 1e-05). Added to the variance before its square root is taken."""
            self._values['epsilon'] = epsilon
            return self

        def __repr__(self) -> str:
            items = ", ".join(f"{key}={value!r}" for key, value in self._values.items())
            return f"LayerNorm.Options({items})"

    @staticmethod
    def epsilon(epsilon: float) -> LayerNorm.Options:
        """Options with epsilon set (default 1e-05)."""
        return LayerNorm.Options().epsilon(epsilon)

    @classmethod
    def create(
        cls,
        scope: Scope | str | None,
        x: Any,
        gamma: Any = None,
        beta: Any = None,
        *options: LayerNorm.Options,
    ) -> LayerNorm:
        """Factory method to create a class wrapping a new LayerNorm operation.

        Args:
            scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).
            x: T, shape [*lead, D].
                Rows of D elements, with any leading dimensions.
            gamma: T, shape [D], optional.
                The scale of each column (ones when absent).
            beta: T, shape [D], optional.
                The shift of each column (zeros when absent).
            options: LayerNorm.Options carrying optional attribute values.

        Raises:
            TypeError: an argument has the wrong type or dtype.
            ValueError: a shape or an attribute value is not valid.
        """
        _merged = _rt.merge_options(_OP, options, cls.Options)
        return cls(_run(
            scope, x, gamma, beta,
            _merged.get('epsilon', 1e-05),
        ))

    def __init__(self, outputs: LayerNormOutputs) -> None:
        self._outputs = outputs

    @property
    def y(self) -> Any:
        """The normalized x."""
        return self._outputs.y

    @property
    def mean(self) -> Any:
        """The mean of each row."""
        return self._outputs.mean

    @property
    def rstd(self) -> Any:
        """1/√(var + epsilon) of each row (var: the biased variance)."""
        return self._outputs.rstd

    def output_tuple(self) -> LayerNormOutputs:
        """All outputs, in order."""
        return self._outputs

    def __repr__(self) -> str:
        return _rt.op_repr(_OP, self._outputs)


def layer_norm(
    x: Any,
    gamma: Any = None,
    beta: Any = None,
    *,
    epsilon: float = 1e-05,
    scope: Scope | str | None = None,
) -> LayerNormOutputs:
    """Layer normalization over the last dimension.

    Args:
        x: T, shape [*lead, D].
            Rows of D elements, with any leading dimensions.
        gamma: T, shape [D], optional.
            The scale of each column (ones when absent).
        beta: T, shape [D], optional.
            The shift of each column (zeros when absent).
        epsilon: float, > 0; default 1e-05.
            Added to the variance before its square root is taken.
        scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).

    Returns:
        LayerNormOutputs(y, mean, rstd).

    Raises:
        TypeError: an argument has the wrong type or dtype.
        ValueError: a shape or an attribute value is not valid.
    """
    if type(x) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (x, gamma, beta), (epsilon,), LayerNormOutputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(x, gamma, beta)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'x': x, 'gamma': gamma, 'beta': beta}, (epsilon,))
    return _compute(scope, x, gamma, beta, epsilon)


def _run(scope: Scope | str | None, x: Any, gamma: Any, beta: Any, epsilon: Any) -> LayerNormOutputs:
    if type(x) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (x, gamma, beta), (epsilon,), LayerNormOutputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(x, gamma, beta)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'x': x, 'gamma': gamma, 'beta': beta}, (epsilon,))
    return _compute(scope, x, gamma, beta, epsilon)


def _compute(scope: Scope | str | None, x: Any, gamma: Any, beta: Any, epsilon: Any) -> LayerNormOutputs:
    _backend = _rt.backend_of(scope, _OP)
    _native = _NATIVE.call(_backend, (x, gamma, beta), (epsilon,), LayerNormOutputs)
    if _native is not None:  # the op's native driver ran the call (its outputs made as this NamedTuple)
        return _native
    epsilon = _rt.check_float(_OP, 'epsilon', epsilon, 0, None, above=True)
    x = _backend.adopt(_OP, 'x', x)
    _dtype_T = _rt.check_dtype(_OP, 'x', x, ('float16', 'bfloat16', 'float32'), 'T')
    _dtype_S = _rt.ACCUMULATOR[_dtype_T]
    if gamma is not None:
        gamma = _backend.adopt(_OP, 'gamma', gamma)
        _rt.check_same_dtype(_OP, 'gamma', gamma, _dtype_T, 'T', 'x')
    if beta is not None:
        beta = _backend.adopt(_OP, 'beta', beta)
        _rt.check_same_dtype(_OP, 'beta', beta, _dtype_T, 'T', 'x')
    if x.ndim < 1:
        raise _rt.shape_error(_OP, 'x', ('*lead', 'D'), x.shape, {}, '')
    D = x.shape[x.ndim - 1]
    _group_lead = tuple(x.shape[0:x.ndim - 1])
    lead = _rt.prod(_group_lead)
    if gamma is not None:
        if gamma.ndim != 1:
            raise _rt.shape_error(_OP, 'gamma', ('D',), gamma.shape, {'D': D}, '')
        if gamma.shape[0] != D:
            raise _rt.shape_error(_OP, 'gamma', ('D',), gamma.shape, {'D': D}, '')
    if beta is not None:
        if beta.ndim != 1:
            raise _rt.shape_error(_OP, 'beta', ('D',), beta.shape, {'D': D}, '')
        if beta.shape[0] != D:
            raise _rt.shape_error(_OP, 'beta', ('D',), beta.shape, {'D': D}, '')
    rows = lead
    row_threads = (1 if _backend.name == 'cpu' else max(32, min(512, 32*(-(-D//128)))))
    row_blocks = (min(rows, max(1, min(64, (-(-(rows*D)//4096))))) if _backend.name == 'cpu' else min(rows, 65536))
    _shape_y = [*_group_lead, D]
    _shape_mean = [*_group_lead]
    _shape_rstd = [*_group_lead]
    y = _backend.empty(_shape_y, _dtype_T)
    mean = _backend.empty(_shape_mean, _dtype_S)
    rstd = _backend.empty(_shape_rstd, _dtype_S)
    if _rt.plan_as_data():
        _rt.run_plan(_backend, _KERNELS, _PLAN, (_dtype_T, row_blocks, row_threads, rows, D, epsilon,), (x, gamma, beta, y, mean, rstd,))
    else:  # the same plan as Python: for a reader, and run with OPGEN_PLAN=loop
        _rt.hold_if_capturing(_backend, (x, gamma, beta, y, mean, rstd,))
        _backend.launch(_KERNELS, _PLAN.symbol('layer_norm', _dtype_T), (row_blocks,), (row_threads,), (x, gamma, beta, y, mean, rstd, _np.int64(rows), _np.int64(D), _np.float32(epsilon),), 0)
    _backend.flush()
    return LayerNormOutputs(y, mean, rstd)


def _fake(_backend: Any, x: Any, gamma: Any, beta: Any, epsilon: Any) -> LayerNormOutputs:
    """The outputs of a call as empty tensors of the right shapes and dtypes, made by `_backend`
    (the torch registration's fake implementation: nothing runs, no data is read)."""
    epsilon = _rt.check_float(_OP, 'epsilon', epsilon, 0, None, above=True)
    _dtype_T = _rt.check_dtype(_OP, 'x', x, ('float16', 'bfloat16', 'float32'), 'T')
    _dtype_S = _rt.ACCUMULATOR[_dtype_T]
    if gamma is not None:
        _rt.check_same_dtype(_OP, 'gamma', gamma, _dtype_T, 'T', 'x')
    if beta is not None:
        _rt.check_same_dtype(_OP, 'beta', beta, _dtype_T, 'T', 'x')
    if x.ndim < 1:
        raise _rt.shape_error(_OP, 'x', ('*lead', 'D'), x.shape, {}, '')
    D = x.shape[x.ndim - 1]
    _group_lead = tuple(x.shape[0:x.ndim - 1])
    if gamma is not None:
        if gamma.ndim != 1:
            raise _rt.shape_error(_OP, 'gamma', ('D',), gamma.shape, {'D': D}, '')
        if gamma.shape[0] != D:
            raise _rt.shape_error(_OP, 'gamma', ('D',), gamma.shape, {'D': D}, '')
    if beta is not None:
        if beta.ndim != 1:
            raise _rt.shape_error(_OP, 'beta', ('D',), beta.shape, {'D': D}, '')
        if beta.shape[0] != D:
            raise _rt.shape_error(_OP, 'beta', ('D',), beta.shape, {'D': D}, '')
    _shape_y = [*_group_lead, D]
    _shape_mean = [*_group_lead]
    _shape_rstd = [*_group_lead]
    y = _backend.empty(_shape_y, _dtype_T)
    mean = _backend.empty(_shape_mean, _dtype_S)
    rstd = _backend.empty(_shape_rstd, _dtype_S)
    return LayerNormOutputs(y, mean, rstd)
