# generated from specs/norm/layer_norm_grad.yaml by opgen — do not edit (opgen 0.1.0)
"""LayerNormGrad: The gradient of LayerNorm."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import numpy as _np

# isort: split
from codegen.runtime import api as _rt
from codegen.runtime.kernels import KernelSource
from codegen.runtime.scope import Scope

_OP = 'LayerNormGrad'
_KERNELS = KernelSource(_OP, Path(__file__).with_name("layer_norm.cu"))
# The launch plan as data (codegen/runtime/plan.py): what _compute runs, recorded once per set of sizes
# and attrs; the loop in _compute is the same plan as Python (OPGEN_PLAN=loop runs it).
_PLAN = _rt.Plan('LayerNormGrad', ('_dtype_T', 'row_blocks', 'row_threads', 'rows', 'D', 'tile', 'splits', 'column_threads', 'finish_blocks', 'finish_threads'), ('dy', 'x', 'mean', 'rstd', 'gamma', 'dx', 'partials', 'dgamma', 'dbeta'), (
    ('launch', 'layer_norm_grad_input', ('_dtype_T',), ('row_blocks',), ('row_threads',), 0, (('buf', 0), ('buf', 1), ('buf', 2), ('buf', 3), ('buf', 4), ('buf', 5), ('scalar', '_np.int64', 'rows', None, ()), ('scalar', '_np.int64', 'D', None, ())), ()),
    ('launch', 'layer_norm_grad_partials', ('_dtype_T',), (('ceildiv', 'D', 'tile'), 'splits'), ('column_threads',), 0, (('buf', 0), ('buf', 1), ('buf', 2), ('buf', 3), ('buf', 6), ('scalar', '_np.int64', 'rows', None, ()), ('scalar', '_np.int64', 'D', None, ()), ('scalar', '_np.int64', 'tile', None, ())), ()),
    ('launch', 'layer_norm_grad_params', ('_dtype_T',), ('finish_blocks',), ('finish_threads',), 0, (('buf', 6), ('buf', 7), ('buf', 8), ('scalar', '_np.int64', 'D', None, ()), ('scalar', '_np.int64', 'splits', None, ())), ()),
), {
    'layer_norm_grad_input': {('float16',): 'LayerNormGrad__layer_norm_grad_input__float16', ('bfloat16',): 'LayerNormGrad__layer_norm_grad_input__bfloat16', ('float32',): 'LayerNormGrad__layer_norm_grad_input__float32'},
    'layer_norm_grad_partials': {('float16',): 'LayerNormGrad__layer_norm_grad_partials__float16', ('bfloat16',): 'LayerNormGrad__layer_norm_grad_partials__bfloat16', ('float32',): 'LayerNormGrad__layer_norm_grad_partials__float32'},
    'layer_norm_grad_params': {('float16',): 'LayerNormGrad__layer_norm_grad_params__float16', ('bfloat16',): 'LayerNormGrad__layer_norm_grad_params__bfloat16', ('float32',): 'LayerNormGrad__layer_norm_grad_params__float32'},
})
# The op's native driver (codegen/runtime/native_driver.py): _compute hands it the call first.
_NATIVE = _rt.NativeDriver(_OP, _KERNELS, _PLAN, Path(__file__).with_name("layer_norm_grad.driver.cpp"))


class LayerNormGradOutputs(NamedTuple):
    """The outputs of LayerNormGrad, in order."""

    dx: Any
    """T, shape [*lead, D]. The gradient with respect to x."""
    dgamma: Any
    """T, shape [D]. The gradient with respect to gamma: Σ dy·x̂ over the rows."""
    dbeta: Any
    """T, shape [D]. The gradient with respect to beta: Σ dy over the rows."""


class LayerNormGrad:
    """The gradient of LayerNorm.

    Given dy, the gradient of a loss with respect to LayerNorm's y, and the forward's x, mean and
    rstd, computes the gradients with respect to x, gamma and beta:
    dx = rstd·(g − mean(g) − x̂·mean(g·x̂)) per row, with g = dy·gamma and x̂ = (x − mean)·rstd;
    dgamma = Σ dy·x̂ and dbeta = Σ dy over every row (all leading dimensions). Without gamma (the
    forward ran without one), g = dy, and dgamma and dbeta are still computed: they are the gradients
    a gamma of ones and a beta of zeros would get (torch.ops.opgen.layer_norm's backward returns them
    only for the tensors the forward was given).

    Create it with `LayerNormGrad.create(scope, dy, x, mean, rstd, gamma, *options)`, or call
    `layer_norm_grad(...)`. The reference page is generated/docs/norm/layer_norm_grad.md.
    """

    OP_NAME = 'LayerNormGrad'
    Outputs = LayerNormGradOutputs

    class Options:
        """Optional attributes for LayerNormGrad; each setter returns the Options, so calls chain."""

        __slots__ = ("_values",)

        def __init__(self) -> None:
            self._values: dict[str, Any] = {}

        def __repr__(self) -> str:
            items = ", ".join(f"{key}={value!r}" for key, value in self._values.items())
            return f"LayerNormGrad.Options({items})"

    @classmethod
    def create(
        cls,
        scope: Scope | str | None,
        dy: Any,
        x: Any,
        mean: Any,
        rstd: Any,
        gamma: Any = None,
        *options: LayerNormGrad.Options,
    ) -> LayerNormGrad:
        """Factory method to create a class wrapping a new LayerNormGrad operation.

        Args:
            scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).
            dy: T, shape [*lead, D].
                The gradient with respect to y.
            x: T, shape [*lead, D].
                The forward's input.
            mean: S, shape [*lead].
                The forward's mean output.
            rstd: S, shape [*lead].
                The forward's rstd output.
            gamma: T, shape [D], optional.
                The forward's gamma (ones when absent).
            options: LayerNormGrad.Options carrying optional attribute values.

        Raises:
            TypeError: an argument has the wrong type or dtype.
            ValueError: a shape or an attribute value is not valid.
        """
        _merged = _rt.merge_options(_OP, options, cls.Options)
        return cls(_run(
            scope, dy, x, mean, rstd, gamma,
        ))

    def __init__(self, outputs: LayerNormGradOutputs) -> None:
        self._outputs = outputs

    @property
    def dx(self) -> Any:
        """The gradient with respect to x."""
        return self._outputs.dx

    @property
    def dgamma(self) -> Any:
        """The gradient with respect to gamma: Σ dy·x̂ over the rows."""
        return self._outputs.dgamma

    @property
    def dbeta(self) -> Any:
        """The gradient with respect to beta: Σ dy over the rows."""
        return self._outputs.dbeta

    def output_tuple(self) -> LayerNormGradOutputs:
        """All outputs, in order."""
        return self._outputs

    def __repr__(self) -> str:
        return _rt.op_repr(_OP, self._outputs)


def layer_norm_grad(
    dy: Any,
    x: Any,
    mean: Any,
    rstd: Any,
    gamma: Any = None,
    *,
    scope: Scope | str | None = None,
) -> LayerNormGradOutputs:
    """The gradient of LayerNorm.

    Args:
        dy: T, shape [*lead, D].
            The gradient with respect to y.
        x: T, shape [*lead, D].
            The forward's input.
        mean: S, shape [*lead].
            The forward's mean output.
        rstd: S, shape [*lead].
            The forward's rstd output.
        gamma: T, shape [D], optional.
            The forward's gamma (ones when absent).
        scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).

    Returns:
        LayerNormGradOutputs(dx, dgamma, dbeta).

    Raises:
        TypeError: an argument has the wrong type or dtype.
        ValueError: a shape or an attribute value is not valid.
    """
    if type(dy) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (dy, x, mean, rstd, gamma), (), LayerNormGradOutputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(dy, x, mean, rstd, gamma)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'dy': dy, 'x': x, 'mean': mean, 'rstd': rstd, 'gamma': gamma}, ())
    return _compute(scope, dy, x, mean, rstd, gamma)


def _run(scope: Scope | str | None, dy: Any, x: Any, mean: Any, rstd: Any, gamma: Any) -> LayerNormGradOutputs:
    if type(dy) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (dy, x, mean, rstd, gamma), (), LayerNormGradOutputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(dy, x, mean, rstd, gamma)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'dy': dy, 'x': x, 'mean': mean, 'rstd': rstd, 'gamma': gamma}, ())
    return _compute(scope, dy, x, mean, rstd, gamma)


def _compute(scope: Scope | str | None, dy: Any, x: Any, mean: Any, rstd: Any, gamma: Any) -> LayerNormGradOutputs:
    _backend = _rt.backend_of(scope, _OP)
    _native = _NATIVE.call(_backend, (dy, x, mean, rstd, gamma), (), LayerNormGradOutputs)
    if _native is not None:  # the op's native driver ran the call (its outputs made as this NamedTuple)
        return _native
    dy = _backend.adopt(_OP, 'dy', dy)
    _dtype_T = _rt.check_dtype(_OP, 'dy', dy, ('float16', 'bfloat16', 'float32'), 'T')
    _dtype_S = _rt.ACCUMULATOR[_dtype_T]
    x = _backend.adopt(_OP, 'x', x)
    _rt.check_same_dtype(_OP, 'x', x, _dtype_T, 'T', 'dy')
    mean = _backend.adopt(_OP, 'mean', mean)
    _rt.check_same_dtype(_OP, 'mean', mean, _dtype_S, 'S', 'the accumulator of T')
    rstd = _backend.adopt(_OP, 'rstd', rstd)
    _rt.check_same_dtype(_OP, 'rstd', rstd, _dtype_S, 'S', 'the accumulator of T')
    if gamma is not None:
        gamma = _backend.adopt(_OP, 'gamma', gamma)
        _rt.check_same_dtype(_OP, 'gamma', gamma, _dtype_T, 'T', 'dy')
    if dy.ndim < 1:
        raise _rt.shape_error(_OP, 'dy', ('*lead', 'D'), dy.shape, {}, '')
    D = dy.shape[dy.ndim - 1]
    _group_lead = tuple(dy.shape[0:dy.ndim - 1])
    lead = _rt.prod(_group_lead)
    if x.ndim < 1:
        raise _rt.shape_error(_OP, 'x', ('*lead', 'D'), x.shape, {'D': D, '*lead': _group_lead}, '')
    if x.shape[x.ndim - 1] != D or tuple(x.shape[0:x.ndim - 1]) != _group_lead:
        raise _rt.shape_error(_OP, 'x', ('*lead', 'D'), x.shape, {'D': D, '*lead': _group_lead}, '')
    if mean.ndim < 0:
        raise _rt.shape_error(_OP, 'mean', ('*lead',), mean.shape, {'*lead': _group_lead}, '')
    if tuple(mean.shape[0:mean.ndim - 0]) != _group_lead:
        raise _rt.shape_error(_OP, 'mean', ('*lead',), mean.shape, {'*lead': _group_lead}, '')
    if rstd.ndim < 0:
        raise _rt.shape_error(_OP, 'rstd', ('*lead',), rstd.shape, {'*lead': _group_lead}, '')
    if tuple(rstd.shape[0:rstd.ndim - 0]) != _group_lead:
        raise _rt.shape_error(_OP, 'rstd', ('*lead',), rstd.shape, {'*lead': _group_lead}, '')
    if gamma is not None:
        if gamma.ndim != 1:
            raise _rt.shape_error(_OP, 'gamma', ('D',), gamma.shape, {'D': D}, '')
        if gamma.shape[0] != D:
            raise _rt.shape_error(_OP, 'gamma', ('D',), gamma.shape, {'D': D}, '')
    rows = lead
    row_threads = (1 if _backend.name == 'cpu' else max(32, min(512, 32*(-(-D//128)))))
    row_blocks = (min(rows, max(1, min(64, (-(-(rows*D)//4096))))) if _backend.name == 'cpu' else min(rows, 65536))
    tile = (max(1, D) if _backend.name == 'cpu' else 32)
    splits = (max(1, min(rows, 8)) if _backend.name == 'cpu' else max(1, min((-(-rows//256)), 128)))
    column_threads = (1 if _backend.name == 'cpu' else 256)
    finish_threads = (1 if _backend.name == 'cpu' else 256)
    finish_blocks = (min(D, 8) if _backend.name == 'cpu' else min((-(-D//256)), 1024))
    _shape_dx = [*_group_lead, D]
    _shape_dgamma = [D]
    _shape_dbeta = [D]
    dx = _backend.empty(_shape_dx, _dtype_T)
    dgamma = _backend.empty(_shape_dgamma, _dtype_T)
    dbeta = _backend.empty(_shape_dbeta, _dtype_T)
    partials = _backend.empty([splits, 2, D], 'float32')
    if _rt.plan_as_data():
        _rt.run_plan(_backend, _KERNELS, _PLAN, (_dtype_T, row_blocks, row_threads, rows, D, tile, splits, column_threads, finish_blocks, finish_threads,), (dy, x, mean, rstd, gamma, dx, partials, dgamma, dbeta,))
    else:  # the same plan as Python: for a reader, and run with OPGEN_PLAN=loop
        _rt.hold_if_capturing(_backend, (dy, x, mean, rstd, gamma, dx, partials, dgamma, dbeta,))
        _backend.launch(_KERNELS, _PLAN.symbol('layer_norm_grad_input', _dtype_T), (row_blocks,), (row_threads,), (dy, x, mean, rstd, gamma, dx, _np.int64(rows), _np.int64(D),), 0)
        _backend.launch(_KERNELS, _PLAN.symbol('layer_norm_grad_partials', _dtype_T), ((-(-D//tile)), splits,), (column_threads,), (dy, x, mean, rstd, partials, _np.int64(rows), _np.int64(D), _np.int64(tile),), 0)
        _backend.launch(_KERNELS, _PLAN.symbol('layer_norm_grad_params', _dtype_T), (finish_blocks,), (finish_threads,), (partials, dgamma, dbeta, _np.int64(D), _np.int64(splits),), 0)
    _backend.flush()
    return LayerNormGradOutputs(dx, dgamma, dbeta)


def _fake(_backend: Any, dy: Any, x: Any, mean: Any, rstd: Any, gamma: Any) -> LayerNormGradOutputs:
    """The outputs of a call as empty tensors of the right shapes and dtypes, made by `_backend`
    (the torch registration's fake implementation: nothing runs, no data is read)."""
    _dtype_T = _rt.check_dtype(_OP, 'dy', dy, ('float16', 'bfloat16', 'float32'), 'T')
    _dtype_S = _rt.ACCUMULATOR[_dtype_T]
    _rt.check_same_dtype(_OP, 'x', x, _dtype_T, 'T', 'dy')
    _rt.check_same_dtype(_OP, 'mean', mean, _dtype_S, 'S', 'the accumulator of T')
    _rt.check_same_dtype(_OP, 'rstd', rstd, _dtype_S, 'S', 'the accumulator of T')
    if gamma is not None:
        _rt.check_same_dtype(_OP, 'gamma', gamma, _dtype_T, 'T', 'dy')
    if dy.ndim < 1:
        raise _rt.shape_error(_OP, 'dy', ('*lead', 'D'), dy.shape, {}, '')
    D = dy.shape[dy.ndim - 1]
    _group_lead = tuple(dy.shape[0:dy.ndim - 1])
    if x.ndim < 1:
        raise _rt.shape_error(_OP, 'x', ('*lead', 'D'), x.shape, {'D': D, '*lead': _group_lead}, '')
    if x.shape[x.ndim - 1] != D or tuple(x.shape[0:x.ndim - 1]) != _group_lead:
        raise _rt.shape_error(_OP, 'x', ('*lead', 'D'), x.shape, {'D': D, '*lead': _group_lead}, '')
    if mean.ndim < 0:
        raise _rt.shape_error(_OP, 'mean', ('*lead',), mean.shape, {'*lead': _group_lead}, '')
    if tuple(mean.shape[0:mean.ndim - 0]) != _group_lead:
        raise _rt.shape_error(_OP, 'mean', ('*lead',), mean.shape, {'*lead': _group_lead}, '')
    if rstd.ndim < 0:
        raise _rt.shape_error(_OP, 'rstd', ('*lead',), rstd.shape, {'*lead': _group_lead}, '')
    if tuple(rstd.shape[0:rstd.ndim - 0]) != _group_lead:
        raise _rt.shape_error(_OP, 'rstd', ('*lead',), rstd.shape, {'*lead': _group_lead}, '')
    if gamma is not None:
        if gamma.ndim != 1:
            raise _rt.shape_error(_OP, 'gamma', ('D',), gamma.shape, {'D': D}, '')
        if gamma.shape[0] != D:
            raise _rt.shape_error(_OP, 'gamma', ('D',), gamma.shape, {'D': D}, '')
    _shape_dx = [*_group_lead, D]
    _shape_dgamma = [D]
    _shape_dbeta = [D]
    dx = _backend.empty(_shape_dx, _dtype_T)
    dgamma = _backend.empty(_shape_dgamma, _dtype_T)
    dbeta = _backend.empty(_shape_dbeta, _dtype_T)
    return LayerNormGradOutputs(dx, dgamma, dbeta)
