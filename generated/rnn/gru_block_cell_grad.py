# generated from specs/rnn/gru_block_cell_grad.yaml by opgen — do not edit (opgen 0.1.0)
"""GRUBlockCellGrad: Computes the GRU cell back-propagation for 1 time step."""

from __future__ import annotations

import warnings as _warnings
from pathlib import Path
from typing import Any, NamedTuple

import numpy as _np

# isort: split
from codegen.runtime import api as _rt
from codegen.runtime.kernels import KernelSource
from codegen.runtime.scope import Scope

_OP = 'GRUBlockCellGrad'
_KERNELS = KernelSource(_OP, Path(__file__).with_name("gru_block_cell.cu"))
# The launch plan as data (codegen/runtime/plan.py): what _compute runs, recorded once per set of sizes
# and attrs; the loop in _compute is the same plan as Python (OPGEN_PLAN=loop runs it).
_PLAN = _rt.Plan('GRUBlockCellGrad', ('_dtype_T', 'cell_blocks', 'cell_threads', 'batch_size', 'cell_size', 'input_size', 'io_blocks', 'io_threads'), ('h_prev', 'u', 'c', 'd_h', 'd_c_bar', 'd_r_bar_u_bar', 'w_c', 'd_xh2', 'r', 'w_ru', 'd_xh1', 'd_x', 'd_h_prev'), (
    ('launch', 'grad_cell', ('_dtype_T',), ('cell_blocks',), ('cell_threads',), 0, (('buf', 0), ('buf', 1), ('buf', 2), ('buf', 3), ('buf', 4), ('buf', 5), ('scalar', '_np.int64', 'batch_size', None, ()), ('scalar', '_np.int64', 'cell_size', None, ())), ()),
    ('gemm', 4, 6, 7, ('batch_size', ('+', 'input_size', 'cell_size'), 'cell_size', False, True, 0, 0, 0, 0, 1, 0, 0, 0), ()),
    ('launch', 'grad_reset', ('_dtype_T',), ('cell_blocks',), ('cell_threads',), 0, (('buf', 7), ('buf', 0), ('buf', 8), ('buf', 5), ('scalar', '_np.int64', 'batch_size', None, ()), ('scalar', '_np.int64', 'input_size', None, ()), ('scalar', '_np.int64', 'cell_size', None, ())), ()),
    ('gemm', 5, 9, 10, ('batch_size', ('+', 'input_size', 'cell_size'), ('*', 2, 'cell_size'), False, True, 0, 0, 0, 0, 1, 0, 0, 0), ()),
    ('launch', 'grad_inputs', ('_dtype_T',), ('io_blocks',), ('io_threads',), 0, (('buf', 10), ('buf', 7), ('buf', 8), ('buf', 1), ('buf', 3), ('buf', 11), ('buf', 12), ('scalar', '_np.int64', 'batch_size', None, ()), ('scalar', '_np.int64', 'input_size', None, ()), ('scalar', '_np.int64', 'cell_size', None, ())), ()),
), {
    'grad_cell': {('float32',): 'GRUBlockCellGrad__grad_cell__float32', ('float16',): 'GRUBlockCellGrad__grad_cell__float16'},
    'grad_reset': {('float32',): 'GRUBlockCellGrad__grad_reset__float32', ('float16',): 'GRUBlockCellGrad__grad_reset__float16'},
    'grad_inputs': {('float32',): 'GRUBlockCellGrad__grad_inputs__float32', ('float16',): 'GRUBlockCellGrad__grad_inputs__float16'},
})
# The op's native driver (codegen/runtime/native_driver.py): _compute hands it the call first.
_NATIVE = _rt.NativeDriver(_OP, _KERNELS, _PLAN, Path(__file__).with_name("gru_block_cell_grad.driver.cpp"))


class GRUBlockCellGradOutputs(NamedTuple):
    """The outputs of GRUBlockCellGrad, in order."""

    d_x: Any
    """T, shape [batch_size, input_size]. Gradients of the loss with respect to x."""
    d_h_prev: Any
    """T, shape [batch_size, cell_size]. Gradients of the loss with respect to h_prev."""
    d_c_bar: Any
    """T, shape [batch_size, cell_size]. Gradients of the loss with respect to c_bar."""
    d_r_bar_u_bar: Any
    """T, shape [batch_size, 2*cell_size]. Gradients of the loss with respect to r_bar and u_bar; d_r_bar, then d_u_bar."""


class GRUBlockCellGrad:
    """Computes the GRU cell back-propagation for 1 time step.

    Deprecated: TensorFlow has deprecated GRUBlockCellGrad. Its page warns that the API will be removed in a future version once its replacement is stable.

    The gradient of GRUBlockCell (reset applied before the matrix product) with respect to its
    inputs x and h_prev and its pre-activations, given d_h, the gradient of the loss with respect
    to h. `[a | b]` is concatenation along the last axis, `·` the matrix product, `∘` the
    elementwise product, `ᵀ` the transpose:

        d_c_bar = d_h∘(1 − u)∘(1 − c∘c)
        d_u_bar = d_h∘(h_prev − c)∘u∘(1 − u)
        [d_x2 | d_hr] = d_c_bar·w_cᵀ
        d_r_bar = d_hr∘h_prev∘r∘(1 − r)
        d_r_bar_u_bar = [d_r_bar | d_u_bar]
        [d_x1 | d_h1] = d_r_bar_u_bar·w_ruᵀ
        d_x = d_x1 + d_x2
        d_h_prev = d_h1 + d_hr∘r + d_h∘u

    Split by blocks of w_ru = [[w_r_x, w_u_x], [w_r_h_prev, w_u_h_prev]]:
    d_x1 = d_r_bar·w_r_xᵀ + d_u_bar·w_u_xᵀ and d_h1 = d_r_bar·w_r_h_prevᵀ + d_u_bar·w_u_h_prevᵀ.

    The weight and bias gradients are left to the caller (as in TensorFlow, where the Python
    wrapper computes them; here `opgen_ops.gru_block_cell_weight_grads`):

        d_w_ru = [x | h_prev]ᵀ·d_r_bar_u_bar
        d_w_c = [x | r∘h_prev]ᵀ·d_c_bar
        d_b_ru = Σ_batch d_r_bar_u_bar
        d_b_c = Σ_batch d_c_bar

    Corrections to TensorFlow's public page for this op, whose formulas are wrong in these places:
    the second term of d_x_component_1 uses w_u_x (the page says w_r_x); the second term of
    d_h_prev_component_1 uses w_u_h_prev (the page says w_r_h_prev); d_h_prev ends in + d_h∘u
    (the page says + u); d_u_bar uses h_prev (the page says h); the page's d_w_ru and d_w_c
    formulas are swapped; and b_ru is [b_r | b_u], b_c a single vector of cell_size values (the page splits both
    into x and h parts, which do not exist).

    The elementwise steps run in three fused kernels that compute in float32; the two products
    run on the backend's GEMM. Every stored result is rounded to T.

    Create it with `GRUBlockCellGrad.create(scope, x, h_prev, w_ru, w_c, b_ru, b_c, r, u, c, d_h, *options)`, or call
    `gru_block_cell_grad(...)`. The reference page is generated/docs/rnn/gru_block_cell_grad.md.
    """

    OP_NAME = 'GRUBlockCellGrad'
    Outputs = GRUBlockCellGradOutputs

    class Options:
        """Optional attributes for GRUBlockCellGrad; each setter returns the Options, so calls chain."""

        __slots__ = ("_values",)

        def __init__(self) -> None:
            self._values: dict[str, Any] = {}

        def __repr__(self) -> str:
            items = ", ".join(f"{key}={value!r}" for key, value in self._values.items())
            return f"GRUBlockCellGrad.Options({items})"

    @classmethod
    def create(
        cls,
        scope: Scope | str | None,
        x: Any,
        h_prev: Any,
        w_ru: Any,
        w_c: Any,
        b_ru: Any,
        b_c: Any,
        r: Any,
        u: Any,
        c: Any,
        d_h: Any,
        *options: GRUBlockCellGrad.Options,
    ) -> GRUBlockCellGrad:
        """Factory method to create a class wrapping a new GRUBlockCellGrad operation.

        Args:
            scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).
            x: T, shape [batch_size, input_size].
                Input to the GRU cell.
            h_prev: T, shape [batch_size, cell_size].
                State input from the previous GRU cell.
            w_ru: T, shape [input_size + cell_size, 2*cell_size].
                Weight matrix for the reset and update gates; the reset gate's columns,
                then the update gate's; the rows for x, then for h_prev.
            w_c: T, shape [input_size + cell_size, cell_size].
                Weight matrix for the cell connection gate; the rows for x, then for
                r∘h_prev.
            b_ru: T, shape [2*cell_size].
                Bias vector for the reset and update gates; b_r, then b_u (shape-checked
                only).
            b_c: T, shape [cell_size].
                Bias vector for the cell connection gate (shape-checked only).
            r: T, shape [batch_size, cell_size].
                Output of the reset gate (GRUBlockCell's r).
            u: T, shape [batch_size, cell_size].
                Output of the update gate (GRUBlockCell's u).
            c: T, shape [batch_size, cell_size].
                Output of the cell connection gate (GRUBlockCell's c).
            d_h: T, shape [batch_size, cell_size].
                Gradients of the loss with respect to h (GRUBlockCell's output).
            options: GRUBlockCellGrad.Options carrying optional attribute values.

        Raises:
            TypeError: an argument has the wrong type or dtype.
            ValueError: a shape or an attribute value is not valid.
        """
        _merged = _rt.merge_options(_OP, options, cls.Options)
        return cls(_run(
            scope, x, h_prev, w_ru, w_c, b_ru, b_c, r, u, c, d_h,
        ))

    def __init__(self, outputs: GRUBlockCellGradOutputs) -> None:
        self._outputs = outputs

    @property
    def d_x(self) -> Any:
        """Gradients of the loss with respect to x."""
        return self._outputs.d_x

    @property
    def d_h_prev(self) -> Any:
        """Gradients of the loss with respect to h_prev."""
        return self._outputs.d_h_prev

    @property
    def d_c_bar(self) -> Any:
        """Gradients of the loss with respect to c_bar."""
        return self._outputs.d_c_bar

    @property
    def d_r_bar_u_bar(self) -> Any:
        """Gradients of the loss with respect to r_bar and u_bar; d_r_bar, then d_u_bar."""
        return self._outputs.d_r_bar_u_bar

    def output_tuple(self) -> GRUBlockCellGradOutputs:
        """All outputs, in order."""
        return self._outputs

    def __repr__(self) -> str:
        return _rt.op_repr(_OP, self._outputs)


def gru_block_cell_grad(
    x: Any,
    h_prev: Any,
    w_ru: Any,
    w_c: Any,
    b_ru: Any,
    b_c: Any,
    r: Any,
    u: Any,
    c: Any,
    d_h: Any,
    *,
    scope: Scope | str | None = None,
) -> GRUBlockCellGradOutputs:
    """Computes the GRU cell back-propagation for 1 time step.

    Args:
        x: T, shape [batch_size, input_size].
            Input to the GRU cell.
        h_prev: T, shape [batch_size, cell_size].
            State input from the previous GRU cell.
        w_ru: T, shape [input_size + cell_size, 2*cell_size].
            Weight matrix for the reset and update gates; the reset gate's columns, then
            the update gate's; the rows for x, then for h_prev.
        w_c: T, shape [input_size + cell_size, cell_size].
            Weight matrix for the cell connection gate; the rows for x, then for
            r∘h_prev.
        b_ru: T, shape [2*cell_size].
            Bias vector for the reset and update gates; b_r, then b_u (shape-checked
            only).
        b_c: T, shape [cell_size].
            Bias vector for the cell connection gate (shape-checked only).
        r: T, shape [batch_size, cell_size].
            Output of the reset gate (GRUBlockCell's r).
        u: T, shape [batch_size, cell_size].
            Output of the update gate (GRUBlockCell's u).
        c: T, shape [batch_size, cell_size].
            Output of the cell connection gate (GRUBlockCell's c).
        d_h: T, shape [batch_size, cell_size].
            Gradients of the loss with respect to h (GRUBlockCell's output).
        scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).

    Returns:
        GRUBlockCellGradOutputs(d_x, d_h_prev, d_c_bar, d_r_bar_u_bar).

    Raises:
        TypeError: an argument has the wrong type or dtype.
        ValueError: a shape or an attribute value is not valid.
    """
    return _run(scope, x, h_prev, w_ru, w_c, b_ru, b_c, r, u, c, d_h)


def _run(scope: Scope | str | None, x: Any, h_prev: Any, w_ru: Any, w_c: Any, b_ru: Any, b_c: Any, r: Any, u: Any, c: Any, d_h: Any) -> GRUBlockCellGradOutputs:
    _warnings.warn(f"{_OP} is deprecated: " + 'TensorFlow has deprecated GRUBlockCellGrad. Its page warns that the API will be removed in a future version once its replacement is stable.', DeprecationWarning, stacklevel=3)
    if type(x) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (x, h_prev, w_ru, w_c, b_ru, b_c, r, u, c, d_h), (), GRUBlockCellGradOutputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(x, h_prev, w_ru, w_c, b_ru, b_c, r, u, c, d_h)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'x': x, 'h_prev': h_prev, 'w_ru': w_ru, 'w_c': w_c, 'b_ru': b_ru, 'b_c': b_c, 'r': r, 'u': u, 'c': c, 'd_h': d_h}, ())
    return _compute(scope, x, h_prev, w_ru, w_c, b_ru, b_c, r, u, c, d_h)


def _compute(scope: Scope | str | None, x: Any, h_prev: Any, w_ru: Any, w_c: Any, b_ru: Any, b_c: Any, r: Any, u: Any, c: Any, d_h: Any) -> GRUBlockCellGradOutputs:
    _backend = _rt.backend_of(scope, _OP)
    _native = _NATIVE.call(_backend, (x, h_prev, w_ru, w_c, b_ru, b_c, r, u, c, d_h), (), GRUBlockCellGradOutputs)
    if _native is not None:  # the op's native driver ran the call (its outputs made as this NamedTuple)
        return _native
    x = _backend.adopt(_OP, 'x', x)
    _dtype_T = _rt.check_dtype(_OP, 'x', x, ('float32', 'float16'), 'T')
    h_prev = _backend.adopt(_OP, 'h_prev', h_prev)
    _rt.check_same_dtype(_OP, 'h_prev', h_prev, _dtype_T, 'T', 'x')
    w_ru = _backend.adopt(_OP, 'w_ru', w_ru)
    _rt.check_same_dtype(_OP, 'w_ru', w_ru, _dtype_T, 'T', 'x')
    w_c = _backend.adopt(_OP, 'w_c', w_c)
    _rt.check_same_dtype(_OP, 'w_c', w_c, _dtype_T, 'T', 'x')
    b_ru = _backend.adopt(_OP, 'b_ru', b_ru)
    _rt.check_same_dtype(_OP, 'b_ru', b_ru, _dtype_T, 'T', 'x')
    b_c = _backend.adopt(_OP, 'b_c', b_c)
    _rt.check_same_dtype(_OP, 'b_c', b_c, _dtype_T, 'T', 'x')
    r = _backend.adopt(_OP, 'r', r)
    _rt.check_same_dtype(_OP, 'r', r, _dtype_T, 'T', 'x')
    u = _backend.adopt(_OP, 'u', u)
    _rt.check_same_dtype(_OP, 'u', u, _dtype_T, 'T', 'x')
    c = _backend.adopt(_OP, 'c', c)
    _rt.check_same_dtype(_OP, 'c', c, _dtype_T, 'T', 'x')
    d_h = _backend.adopt(_OP, 'd_h', d_h)
    _rt.check_same_dtype(_OP, 'd_h', d_h, _dtype_T, 'T', 'x')
    if x.ndim != 2:
        raise _rt.shape_error(_OP, 'x', ('batch_size', 'input_size'), x.shape, {}, '')
    batch_size = x.shape[0]
    input_size = x.shape[1]
    if h_prev.ndim != 2:
        raise _rt.shape_error(_OP, 'h_prev', ('batch_size', 'cell_size'), h_prev.shape, {'batch_size': batch_size}, '')
    cell_size = h_prev.shape[1]
    if h_prev.shape[0] != batch_size:
        raise _rt.shape_error(_OP, 'h_prev', ('batch_size', 'cell_size'), h_prev.shape, {'batch_size': batch_size, 'cell_size': cell_size}, '')
    if w_ru.ndim != 2:
        raise _rt.shape_error(_OP, 'w_ru', ('input_size + cell_size', '2*cell_size'), w_ru.shape, {'cell_size': cell_size, 'input_size': input_size, 'input_size + cell_size': input_size + cell_size, '2*cell_size': 2*cell_size}, '')
    if w_ru.shape[0] != input_size + cell_size or w_ru.shape[1] != 2*cell_size:
        raise _rt.shape_error(_OP, 'w_ru', ('input_size + cell_size', '2*cell_size'), w_ru.shape, {'cell_size': cell_size, 'input_size': input_size, 'input_size + cell_size': input_size + cell_size, '2*cell_size': 2*cell_size}, '')
    if w_c.ndim != 2:
        raise _rt.shape_error(_OP, 'w_c', ('input_size + cell_size', 'cell_size'), w_c.shape, {'cell_size': cell_size, 'input_size': input_size, 'input_size + cell_size': input_size + cell_size}, '')
    if w_c.shape[0] != input_size + cell_size or w_c.shape[1] != cell_size:
        raise _rt.shape_error(_OP, 'w_c', ('input_size + cell_size', 'cell_size'), w_c.shape, {'cell_size': cell_size, 'input_size': input_size, 'input_size + cell_size': input_size + cell_size}, '')
    if b_ru.ndim != 1:
        raise _rt.shape_error(_OP, 'b_ru', ('2*cell_size',), b_ru.shape, {'cell_size': cell_size, '2*cell_size': 2*cell_size}, '')
    if b_ru.shape[0] != 2*cell_size:
        raise _rt.shape_error(_OP, 'b_ru', ('2*cell_size',), b_ru.shape, {'cell_size': cell_size, '2*cell_size': 2*cell_size}, '')
    if b_c.ndim != 1:
        raise _rt.shape_error(_OP, 'b_c', ('cell_size',), b_c.shape, {'cell_size': cell_size}, '')
    if b_c.shape[0] != cell_size:
        raise _rt.shape_error(_OP, 'b_c', ('cell_size',), b_c.shape, {'cell_size': cell_size}, '')
    if r.ndim != 2:
        raise _rt.shape_error(_OP, 'r', ('batch_size', 'cell_size'), r.shape, {'batch_size': batch_size, 'cell_size': cell_size}, '')
    if r.shape[0] != batch_size or r.shape[1] != cell_size:
        raise _rt.shape_error(_OP, 'r', ('batch_size', 'cell_size'), r.shape, {'batch_size': batch_size, 'cell_size': cell_size}, '')
    if u.ndim != 2:
        raise _rt.shape_error(_OP, 'u', ('batch_size', 'cell_size'), u.shape, {'batch_size': batch_size, 'cell_size': cell_size}, '')
    if u.shape[0] != batch_size or u.shape[1] != cell_size:
        raise _rt.shape_error(_OP, 'u', ('batch_size', 'cell_size'), u.shape, {'batch_size': batch_size, 'cell_size': cell_size}, '')
    if c.ndim != 2:
        raise _rt.shape_error(_OP, 'c', ('batch_size', 'cell_size'), c.shape, {'batch_size': batch_size, 'cell_size': cell_size}, '')
    if c.shape[0] != batch_size or c.shape[1] != cell_size:
        raise _rt.shape_error(_OP, 'c', ('batch_size', 'cell_size'), c.shape, {'batch_size': batch_size, 'cell_size': cell_size}, '')
    if d_h.ndim != 2:
        raise _rt.shape_error(_OP, 'd_h', ('batch_size', 'cell_size'), d_h.shape, {'batch_size': batch_size, 'cell_size': cell_size}, '')
    if d_h.shape[0] != batch_size or d_h.shape[1] != cell_size:
        raise _rt.shape_error(_OP, 'd_h', ('batch_size', 'cell_size'), d_h.shape, {'batch_size': batch_size, 'cell_size': cell_size}, '')
    cells = batch_size*cell_size
    cell_blocks = (min((-(-cells//65536)), 1024) if _backend.name == 'cpu' else min((-(-cells//1024)), 65535))
    cell_threads = max(32, min(256, 32*(-(-cells//128))))
    io_cells = batch_size*(input_size + cell_size)
    io_blocks = (min((-(-io_cells//65536)), 1024) if _backend.name == 'cpu' else min((-(-io_cells//1024)), 65535))
    io_threads = max(32, min(256, 32*(-(-io_cells//128))))
    _shape_d_x = [batch_size, input_size]
    _shape_d_h_prev = [batch_size, cell_size]
    _shape_d_c_bar = [batch_size, cell_size]
    _shape_d_r_bar_u_bar = [batch_size, 2*cell_size]
    d_x = _backend.empty(_shape_d_x, _dtype_T)
    d_h_prev = _backend.empty(_shape_d_h_prev, _dtype_T)
    d_c_bar = _backend.empty(_shape_d_c_bar, _dtype_T)
    d_r_bar_u_bar = _backend.empty(_shape_d_r_bar_u_bar, _dtype_T)
    d_xh2 = _backend.empty([batch_size, input_size + cell_size], _dtype_T)
    d_xh1 = _backend.empty([batch_size, input_size + cell_size], _dtype_T)
    if _rt.plan_as_data():
        _rt.run_plan(_backend, _KERNELS, _PLAN, (_dtype_T, cell_blocks, cell_threads, batch_size, cell_size, input_size, io_blocks, io_threads,), (h_prev, u, c, d_h, d_c_bar, d_r_bar_u_bar, w_c, d_xh2, r, w_ru, d_xh1, d_x, d_h_prev,))
    else:  # the same plan as Python: for a reader, and run with OPGEN_PLAN=loop
        _rt.hold_if_capturing(_backend, (h_prev, u, c, d_h, d_c_bar, d_r_bar_u_bar, w_c, d_xh2, r, w_ru, d_xh1, d_x, d_h_prev,))
        _backend.launch(_KERNELS, _PLAN.symbol('grad_cell', _dtype_T), (cell_blocks,), (cell_threads,), (h_prev, u, c, d_h, d_c_bar, d_r_bar_u_bar, _np.int64(batch_size), _np.int64(cell_size),), 0)
        _backend.gemm(d_c_bar, w_c, d_xh2, batch_size, input_size + cell_size, cell_size, False, True, 0, 0, 0, 0)
        _backend.launch(_KERNELS, _PLAN.symbol('grad_reset', _dtype_T), (cell_blocks,), (cell_threads,), (d_xh2, h_prev, r, d_r_bar_u_bar, _np.int64(batch_size), _np.int64(input_size), _np.int64(cell_size),), 0)
        _backend.gemm(d_r_bar_u_bar, w_ru, d_xh1, batch_size, input_size + cell_size, 2*cell_size, False, True, 0, 0, 0, 0)
        _backend.launch(_KERNELS, _PLAN.symbol('grad_inputs', _dtype_T), (io_blocks,), (io_threads,), (d_xh1, d_xh2, r, u, d_h, d_x, d_h_prev, _np.int64(batch_size), _np.int64(input_size), _np.int64(cell_size),), 0)
    _backend.flush()
    return GRUBlockCellGradOutputs(d_x, d_h_prev, d_c_bar, d_r_bar_u_bar)


def _fake(_backend: Any, x: Any, h_prev: Any, w_ru: Any, w_c: Any, b_ru: Any, b_c: Any, r: Any, u: Any, c: Any, d_h: Any) -> GRUBlockCellGradOutputs:
    """The outputs of a call as empty tensors of the right shapes and dtypes, made by `_backend`
    (the torch registration's fake implementation: nothing runs, no data is read)."""
    _dtype_T = _rt.check_dtype(_OP, 'x', x, ('float32', 'float16'), 'T')
    _rt.check_same_dtype(_OP, 'h_prev', h_prev, _dtype_T, 'T', 'x')
    _rt.check_same_dtype(_OP, 'w_ru', w_ru, _dtype_T, 'T', 'x')
    _rt.check_same_dtype(_OP, 'w_c', w_c, _dtype_T, 'T', 'x')
    _rt.check_same_dtype(_OP, 'b_ru', b_ru, _dtype_T, 'T', 'x')
    _rt.check_same_dtype(_OP, 'b_c', b_c, _dtype_T, 'T', 'x')
    _rt.check_same_dtype(_OP, 'r', r, _dtype_T, 'T', 'x')
    _rt.check_same_dtype(_OP, 'u', u, _dtype_T, 'T', 'x')
    _rt.check_same_dtype(_OP, 'c', c, _dtype_T, 'T', 'x')
    _rt.check_same_dtype(_OP, 'd_h', d_h, _dtype_T, 'T', 'x')
    if x.ndim != 2:
        raise _rt.shape_error(_OP, 'x', ('batch_size', 'input_size'), x.shape, {}, '')
    batch_size = x.shape[0]
    input_size = x.shape[1]
    if h_prev.ndim != 2:
        raise _rt.shape_error(_OP, 'h_prev', ('batch_size', 'cell_size'), h_prev.shape, {'batch_size': batch_size}, '')
    cell_size = h_prev.shape[1]
    if h_prev.shape[0] != batch_size:
        raise _rt.shape_error(_OP, 'h_prev', ('batch_size', 'cell_size'), h_prev.shape, {'batch_size': batch_size, 'cell_size': cell_size}, '')
    if w_ru.ndim != 2:
        raise _rt.shape_error(_OP, 'w_ru', ('input_size + cell_size', '2*cell_size'), w_ru.shape, {'cell_size': cell_size, 'input_size': input_size, 'input_size + cell_size': input_size + cell_size, '2*cell_size': 2*cell_size}, '')
    if w_ru.shape[0] != input_size + cell_size or w_ru.shape[1] != 2*cell_size:
        raise _rt.shape_error(_OP, 'w_ru', ('input_size + cell_size', '2*cell_size'), w_ru.shape, {'cell_size': cell_size, 'input_size': input_size, 'input_size + cell_size': input_size + cell_size, '2*cell_size': 2*cell_size}, '')
    if w_c.ndim != 2:
        raise _rt.shape_error(_OP, 'w_c', ('input_size + cell_size', 'cell_size'), w_c.shape, {'cell_size': cell_size, 'input_size': input_size, 'input_size + cell_size': input_size + cell_size}, '')
    if w_c.shape[0] != input_size + cell_size or w_c.shape[1] != cell_size:
        raise _rt.shape_error(_OP, 'w_c', ('input_size + cell_size', 'cell_size'), w_c.shape, {'cell_size': cell_size, 'input_size': input_size, 'input_size + cell_size': input_size + cell_size}, '')
    if b_ru.ndim != 1:
        raise _rt.shape_error(_OP, 'b_ru', ('2*cell_size',), b_ru.shape, {'cell_size': cell_size, '2*cell_size': 2*cell_size}, '')
    if b_ru.shape[0] != 2*cell_size:
        raise _rt.shape_error(_OP, 'b_ru', ('2*cell_size',), b_ru.shape, {'cell_size': cell_size, '2*cell_size': 2*cell_size}, '')
    if b_c.ndim != 1:
        raise _rt.shape_error(_OP, 'b_c', ('cell_size',), b_c.shape, {'cell_size': cell_size}, '')
    if b_c.shape[0] != cell_size:
        raise _rt.shape_error(_OP, 'b_c', ('cell_size',), b_c.shape, {'cell_size': cell_size}, '')
    if r.ndim != 2:
        raise _rt.shape_error(_OP, 'r', ('batch_size', 'cell_size'), r.shape, {'batch_size': batch_size, 'cell_size': cell_size}, '')
    if r.shape[0] != batch_size or r.shape[1] != cell_size:
        raise _rt.shape_error(_OP, 'r', ('batch_size', 'cell_size'), r.shape, {'batch_size': batch_size, 'cell_size': cell_size}, '')
    if u.ndim != 2:
        raise _rt.shape_error(_OP, 'u', ('batch_size', 'cell_size'), u.shape, {'batch_size': batch_size, 'cell_size': cell_size}, '')
    if u.shape[0] != batch_size or u.shape[1] != cell_size:
        raise _rt.shape_error(_OP, 'u', ('batch_size', 'cell_size'), u.shape, {'batch_size': batch_size, 'cell_size': cell_size}, '')
    if c.ndim != 2:
        raise _rt.shape_error(_OP, 'c', ('batch_size', 'cell_size'), c.shape, {'batch_size': batch_size, 'cell_size': cell_size}, '')
    if c.shape[0] != batch_size or c.shape[1] != cell_size:
        raise _rt.shape_error(_OP, 'c', ('batch_size', 'cell_size'), c.shape, {'batch_size': batch_size, 'cell_size': cell_size}, '')
    if d_h.ndim != 2:
        raise _rt.shape_error(_OP, 'd_h', ('batch_size', 'cell_size'), d_h.shape, {'batch_size': batch_size, 'cell_size': cell_size}, '')
    if d_h.shape[0] != batch_size or d_h.shape[1] != cell_size:
        raise _rt.shape_error(_OP, 'd_h', ('batch_size', 'cell_size'), d_h.shape, {'batch_size': batch_size, 'cell_size': cell_size}, '')
    _shape_d_x = [batch_size, input_size]
    _shape_d_h_prev = [batch_size, cell_size]
    _shape_d_c_bar = [batch_size, cell_size]
    _shape_d_r_bar_u_bar = [batch_size, 2*cell_size]
    d_x = _backend.empty(_shape_d_x, _dtype_T)
    d_h_prev = _backend.empty(_shape_d_h_prev, _dtype_T)
    d_c_bar = _backend.empty(_shape_d_c_bar, _dtype_T)
    d_r_bar_u_bar = _backend.empty(_shape_d_r_bar_u_bar, _dtype_T)
    return GRUBlockCellGradOutputs(d_x, d_h_prev, d_c_bar, d_r_bar_u_bar)
