# generated from specs/rnn/gru_block_cell.yaml by opgen — do not edit (opgen 0.1.0)
"""GRUBlockCell: Computes the GRU cell forward propagation for 1 time step."""

from __future__ import annotations

import warnings as _warnings
from pathlib import Path
from typing import Any, NamedTuple

import numpy as _np

# isort: split
from codegen.runtime import api as _rt
from codegen.runtime.kernels import KernelSource
from codegen.runtime.scope import Scope

_OP = 'GRUBlockCell'
_KERNELS = KernelSource(_OP, Path(__file__).with_name("gru_block_cell.cu"))
# The launch plan as data (codegen/runtime/plan.py): what _compute runs, recorded once per set of sizes
# and attrs; the loop in _compute is the same plan as Python (OPGEN_PLAN=loop runs it).
_PLAN = _rt.Plan('GRUBlockCell', ('batch_size', 'cell_size', 'input_size', '_dtype_T', 'cell_blocks', 'cell_threads'), ('x', 'w_ru', 'ru_bar', 'h_prev', 'b_ru', 'r', 'u', 'rh', 'w_c', 'c', 'b_c', 'h'), (
    ('gemm', 0, 1, 2, ('batch_size', ('*', 2, 'cell_size'), 'input_size', False, False, 0, 0, 0, 0, 1, 0, 0, 0), ()),
    ('gemm', 3, 1, 2, ('batch_size', ('*', 2, 'cell_size'), 'cell_size', False, False, 1, 0, ('*', ('*', 'input_size', 2), 'cell_size'), 0, 1, 0, 0, 0), ()),
    ('launch', 'gates', ('_dtype_T',), ('cell_blocks',), ('cell_threads',), 0, (('buf', 2), ('buf', 4), ('buf', 3), ('buf', 5), ('buf', 6), ('buf', 7), ('scalar', '_np.int64', 'batch_size', None, ()), ('scalar', '_np.int64', 'cell_size', None, ())), ()),
    ('gemm', 0, 8, 9, ('batch_size', 'cell_size', 'input_size', False, False, 0, 0, 0, 0, 1, 0, 0, 0), ()),
    ('gemm', 7, 8, 9, ('batch_size', 'cell_size', 'cell_size', False, False, 1, 0, ('*', 'input_size', 'cell_size'), 0, 1, 0, 0, 0), ()),
    ('launch', 'cell', ('_dtype_T',), ('cell_blocks',), ('cell_threads',), 0, (('buf', 10), ('buf', 3), ('buf', 6), ('buf', 9), ('buf', 11), ('scalar', '_np.int64', 'batch_size', None, ()), ('scalar', '_np.int64', 'cell_size', None, ())), ()),
), {
    'gates': {('float32',): 'GRUBlockCell__gates__float32', ('float16',): 'GRUBlockCell__gates__float16'},
    'cell': {('float32',): 'GRUBlockCell__cell__float32', ('float16',): 'GRUBlockCell__cell__float16'},
})
# The op's native driver (codegen/runtime/native_driver.py): _compute hands it the call first.
_NATIVE = _rt.NativeDriver(_OP, _KERNELS, _PLAN, Path(__file__).with_name("gru_block_cell.driver.cpp"))


class GRUBlockCellOutputs(NamedTuple):
    """The outputs of GRUBlockCell, in order."""

    r: Any
    """T, shape [batch_size, cell_size]. Output of the reset gate."""
    u: Any
    """T, shape [batch_size, cell_size]. Output of the update gate."""
    c: Any
    """T, shape [batch_size, cell_size]. Output of the cell connection gate."""
    h: Any
    """T, shape [batch_size, cell_size]. Current state of the GRU cell."""


class GRUBlockCell:
    """Computes the GRU cell forward propagation for 1 time step.

    Deprecated: TensorFlow has deprecated GRUBlockCell. Its page warns that the API will be removed in a future version once its replacement is stable.

    One step of a gated recurrent unit, with the reset gate applied BEFORE the matrix product
    (not cuDNN's linear-before-reset variant). `[a | b]` is concatenation along the last axis,
    `·` the matrix product, `∘` the elementwise product, σ the logistic sigmoid:

        [r_bar | u_bar] = [x | h_prev]·w_ru + b_ru
        r = σ(r_bar);  u = σ(u_bar)
        c_bar = [x | r∘h_prev]·w_c + b_c
        c = tanh(c_bar)
        h = u∘h_prev + (1 − u)∘c

    With B = batch_size, I = input_size and H = cell_size: w_ru [I+H, 2H] has columns
    [reset | update] and rows [x part | h_prev part]; b_ru is [b_r | b_u] (2H values) and b_c a
    single [H] vector (there is no separate x/h bias). The products run on the backend's GEMM
    (each as two products over w's x rows and h_prev rows, so no concatenation is built), the
    gates in two fused elementwise kernels that compute in float32: float16 tensors get float32
    gate arithmetic, and every stored result (the products, r, u, c, h) is rounded to T.

    Create it with `GRUBlockCell.create(scope, x, h_prev, w_ru, w_c, b_ru, b_c, *options)`, or call
    `gru_block_cell(...)`. The reference page is generated/docs/rnn/gru_block_cell.md.
    """

    OP_NAME = 'GRUBlockCell'
    Outputs = GRUBlockCellOutputs

    class Options:
        """Optional attributes for GRUBlockCell; each setter returns the Options, so calls chain."""

        __slots__ = ("_values",)

        def __init__(self) -> None:
            self._values: dict[str, Any] = {}

        def __repr__(self) -> str:
            items = ", ".join(f"{key}={value!r}" for key, value in self._values.items())
            return f"GRUBlockCell.Options({items})"

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
        *options: GRUBlockCell.Options,
    ) -> GRUBlockCell:
        """Factory method to create a class wrapping a new GRUBlockCell operation.

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
                Bias vector for the reset and update gates; b_r, then b_u.
            b_c: T, shape [cell_size].
                Bias vector for the cell connection gate.
            options: GRUBlockCell.Options carrying optional attribute values.

        Raises:
            TypeError: an argument has the wrong type or dtype.
            ValueError: a shape or an attribute value is not valid.
        """
        _merged = _rt.merge_options(_OP, options, cls.Options)
        return cls(_run(
            scope, x, h_prev, w_ru, w_c, b_ru, b_c,
        ))

    def __init__(self, outputs: GRUBlockCellOutputs) -> None:
        self._outputs = outputs

    @property
    def r(self) -> Any:
        """Output of the reset gate."""
        return self._outputs.r

    @property
    def u(self) -> Any:
        """Output of the update gate."""
        return self._outputs.u

    @property
    def c(self) -> Any:
        """Output of the cell connection gate."""
        return self._outputs.c

    @property
    def h(self) -> Any:
        """Current state of the GRU cell."""
        return self._outputs.h

    def output_tuple(self) -> GRUBlockCellOutputs:
        """All outputs, in order."""
        return self._outputs

    def __repr__(self) -> str:
        return _rt.op_repr(_OP, self._outputs)


def gru_block_cell(
    x: Any,
    h_prev: Any,
    w_ru: Any,
    w_c: Any,
    b_ru: Any,
    b_c: Any,
    *,
    scope: Scope | str | None = None,
) -> GRUBlockCellOutputs:
    """Computes the GRU cell forward propagation for 1 time step.

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
            Bias vector for the reset and update gates; b_r, then b_u.
        b_c: T, shape [cell_size].
            Bias vector for the cell connection gate.
        scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).

    Returns:
        GRUBlockCellOutputs(r, u, c, h).

    Raises:
        TypeError: an argument has the wrong type or dtype.
        ValueError: a shape or an attribute value is not valid.
    """
    return _run(scope, x, h_prev, w_ru, w_c, b_ru, b_c)


def _run(scope: Scope | str | None, x: Any, h_prev: Any, w_ru: Any, w_c: Any, b_ru: Any, b_c: Any) -> GRUBlockCellOutputs:
    _warnings.warn(f"{_OP} is deprecated: " + 'TensorFlow has deprecated GRUBlockCell. Its page warns that the API will be removed in a future version once its replacement is stable.', DeprecationWarning, stacklevel=3)
    if type(x) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (x, h_prev, w_ru, w_c, b_ru, b_c), (), GRUBlockCellOutputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(x, h_prev, w_ru, w_c, b_ru, b_c)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'x': x, 'h_prev': h_prev, 'w_ru': w_ru, 'w_c': w_c, 'b_ru': b_ru, 'b_c': b_c}, ())
    return _compute(scope, x, h_prev, w_ru, w_c, b_ru, b_c)


def _compute(scope: Scope | str | None, x: Any, h_prev: Any, w_ru: Any, w_c: Any, b_ru: Any, b_c: Any) -> GRUBlockCellOutputs:
    _backend = _rt.backend_of(scope, _OP)
    _native = _NATIVE.call(_backend, (x, h_prev, w_ru, w_c, b_ru, b_c), (), GRUBlockCellOutputs)
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
    cells = batch_size*cell_size
    cell_blocks = (min((-(-cells//65536)), 1024) if _backend.name == 'cpu' else min((-(-cells//1024)), 65535))
    cell_threads = max(32, min(256, 32*(-(-cells//128))))
    _shape_r = [batch_size, cell_size]
    _shape_u = [batch_size, cell_size]
    _shape_c = [batch_size, cell_size]
    _shape_h = [batch_size, cell_size]
    r = _backend.empty(_shape_r, _dtype_T)
    u = _backend.empty(_shape_u, _dtype_T)
    c = _backend.empty(_shape_c, _dtype_T)
    h = _backend.empty(_shape_h, _dtype_T)
    ru_bar = _backend.empty([batch_size, 2*cell_size], _dtype_T)
    rh = _backend.empty([batch_size, cell_size], _dtype_T)
    if _rt.plan_as_data():
        _rt.run_plan(_backend, _KERNELS, _PLAN, (batch_size, cell_size, input_size, _dtype_T, cell_blocks, cell_threads,), (x, w_ru, ru_bar, h_prev, b_ru, r, u, rh, w_c, c, b_c, h,))
    else:  # the same plan as Python: for a reader, and run with OPGEN_PLAN=loop
        _rt.hold_if_capturing(_backend, (x, w_ru, ru_bar, h_prev, b_ru, r, u, rh, w_c, c, b_c, h,))
        _backend.gemm(x, w_ru, ru_bar, batch_size, 2*cell_size, input_size, False, False, 0, 0, 0, 0)
        _backend.gemm(h_prev, w_ru, ru_bar, batch_size, 2*cell_size, cell_size, False, False, 1, 0, input_size*2*cell_size, 0)
        _backend.launch(_KERNELS, _PLAN.symbol('gates', _dtype_T), (cell_blocks,), (cell_threads,), (ru_bar, b_ru, h_prev, r, u, rh, _np.int64(batch_size), _np.int64(cell_size),), 0)
        _backend.gemm(x, w_c, c, batch_size, cell_size, input_size, False, False, 0, 0, 0, 0)
        _backend.gemm(rh, w_c, c, batch_size, cell_size, cell_size, False, False, 1, 0, input_size*cell_size, 0)
        _backend.launch(_KERNELS, _PLAN.symbol('cell', _dtype_T), (cell_blocks,), (cell_threads,), (b_c, h_prev, u, c, h, _np.int64(batch_size), _np.int64(cell_size),), 0)
    _backend.flush()
    return GRUBlockCellOutputs(r, u, c, h)


def _fake(_backend: Any, x: Any, h_prev: Any, w_ru: Any, w_c: Any, b_ru: Any, b_c: Any) -> GRUBlockCellOutputs:
    """The outputs of a call as empty tensors of the right shapes and dtypes, made by `_backend`
    (the torch registration's fake implementation: nothing runs, no data is read)."""
    _dtype_T = _rt.check_dtype(_OP, 'x', x, ('float32', 'float16'), 'T')
    _rt.check_same_dtype(_OP, 'h_prev', h_prev, _dtype_T, 'T', 'x')
    _rt.check_same_dtype(_OP, 'w_ru', w_ru, _dtype_T, 'T', 'x')
    _rt.check_same_dtype(_OP, 'w_c', w_c, _dtype_T, 'T', 'x')
    _rt.check_same_dtype(_OP, 'b_ru', b_ru, _dtype_T, 'T', 'x')
    _rt.check_same_dtype(_OP, 'b_c', b_c, _dtype_T, 'T', 'x')
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
    _shape_r = [batch_size, cell_size]
    _shape_u = [batch_size, cell_size]
    _shape_c = [batch_size, cell_size]
    _shape_h = [batch_size, cell_size]
    r = _backend.empty(_shape_r, _dtype_T)
    u = _backend.empty(_shape_u, _dtype_T)
    c = _backend.empty(_shape_c, _dtype_T)
    h = _backend.empty(_shape_h, _dtype_T)
    return GRUBlockCellOutputs(r, u, c, h)
