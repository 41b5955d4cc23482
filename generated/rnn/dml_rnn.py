# generated from specs/rnn/dml_rnn.yaml by opgen — do not edit (opgen 0.1.0)
"""DmlRnn: One layer of a simple RNN over a whole sequence, as DirectML's DML_RNN_OPERATOR_DESC."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as _np

# isort: split
from codegen.runtime import api as _rt
from codegen.runtime.kernels import KernelSource
from codegen.runtime.scope import Scope

from ..activations import Activation, ActivationLike

_OP = 'DmlRnn'
_KERNELS = KernelSource(_OP, Path(__file__).with_name("dml_rnn.cu"))
# The launch plan as data (codegen/runtime/plan.py): what _compute runs, recorded once per set of sizes
# and attrs; the loop in _compute is the same plan as Python (OPGEN_PLAN=loop runs it).
_PLAN = _rt.Plan('DmlRnn', ('num_directions', 'steps', 'hidden_size', 'input_size', '_dtype_T', 'cell_blocks', 'cell_threads', 'seq_length', 'batch_size', 'persistent_blocks', 'activations', 'backward_first', 'persistent', 'cells', 'step_threads', 'gemm_steps', 'fused_row_tiles', 'fused_unit_tiles', 'fused', 'all_cells'), ('input', 'weight', 'projected', 'hidden_init', 'sequence_lengths', 'output_single', 'recurrence', 'rt', 'bias', 'output_sequence', 'recurrent', 'states'), (
    ('repeat', 'd', 'num_directions', (), (('gemm', 0, 1, 2, ('steps', 'hidden_size', 'input_size', False, True, 0, 0, ('*', ('*', 'd', 'hidden_size'), 'input_size'), ('*', ('*', 'd', 'steps'), 'hidden_size'), 1, 0, 0, 0), ()),), (), 0),
    ('launch', 'init_state', ('_dtype_T',), ('cell_blocks',), ('cell_threads',), 0, (('buf', 3), ('buf', 4), ('buf', 5), ('scalar', '_np.int64', 'seq_length', None, ()), ('scalar', '_np.int64', 'num_directions', None, ()), ('scalar', '_np.int64', 'batch_size', None, ()), ('scalar', '_np.int64', 'hidden_size', None, ())), ()),
    ('launch', 'transpose_recurrence', ('_dtype_T',), (1, 'num_directions'), (1,), 0, (('buf', 6), ('buf', 7), ('scalar', '_np.int64', 'hidden_size', None, ())), (('backend', 'cpu'),)),
    ('launch', 'persistent', ('_dtype_T',), ('persistent_blocks', 'num_directions'), (256,), 0, (('buf', 2), ('buf', 6), ('buf', 8), ('buf', 4), ('buf', 9), ('buf', 5), ('act', 'activations', 0), ('act', 'activations', ('-', 'num_directions', 1)), ('scalar', '_np.int64', 'backward_first', None, ()), ('scalar', '_np.int64', 'seq_length', None, ()), ('scalar', '_np.int64', 'num_directions', None, ()), ('scalar', '_np.int64', 'batch_size', None, ()), ('scalar', '_np.int64', 'hidden_size', None, ())), ('persistent',)),
    ('repeat', 's', 'seq_length', (), (('repeat', 'd', 'num_directions', (), (('gemm', 5, 6, 10, ('batch_size', 'hidden_size', 'hidden_size', False, True, 0, ('*', 'd', 'cells'), ('*', ('*', 'd', 'hidden_size'), 'hidden_size'), ('*', 'd', 'cells'), 1, 0, 0, 0), (('backend', 'cuda'),)), ('gemm', 5, 7, 10, ('batch_size', 'hidden_size', 'hidden_size', False, False, 0, ('*', 'd', 'cells'), ('*', ('*', 'd', 'hidden_size'), 'hidden_size'), ('*', 'd', 'cells'), 1, 0, 0, 0), (('backend', 'cpu'),))), (), 0), ('launch', 'step', ('_dtype_T',), ('cell_blocks',), ('step_threads',), 0, (('buf', 2), ('buf', 10), ('buf', 8), ('buf', 4), ('buf', 9), ('buf', 5), ('act', 'activations', 0), ('act', 'activations', ('-', 'num_directions', 1)), ('scalar', '_np.int64', 's', None, ()), ('scalar', '_np.int64', 'backward_first', None, ()), ('scalar', '_np.int64', 'seq_length', None, ()), ('scalar', '_np.int64', 'num_directions', None, ()), ('scalar', '_np.int64', 'batch_size', None, ()), ('scalar', '_np.int64', 'hidden_size', None, ())), ())), ('gemm_steps',), 0),
    ('repeat', 's', 'seq_length', (), (('launch', 'fused_step', ('_dtype_T',), ('fused_row_tiles', 'fused_unit_tiles', 'num_directions'), (256,), 0, (('buf', 2), ('buf', 10), ('buf', 6), ('buf', 8), ('buf', 4), ('buf', 9), ('buf', 5), ('buf', 11), ('act', 'activations', 0), ('act', 'activations', ('-', 'num_directions', 1)), ('scalar', '_np.int64', 's', None, ()), ('scalar', '_np.int64', 'backward_first', None, ()), ('scalar', '_np.int64', 'seq_length', None, ()), ('scalar', '_np.int64', 'num_directions', None, ()), ('scalar', '_np.int64', 'batch_size', None, ()), ('scalar', '_np.int64', 'hidden_size', None, ())), ()),), ('fused',), 0),
    ('launch', 'final_state', ('_dtype_T',), ('cell_blocks',), ('cell_threads',), 0, (('buf', 11), ('buf', 5), ('scalar', '_np.int64', 'seq_length', None, ()), ('scalar', '_np.int64', 'all_cells', None, ())), (('and', 'fused', ('>', 'seq_length', 0)),)),
), {
    'init_state': {('float32',): 'DmlRnn__init_state__float32', ('float16',): 'DmlRnn__init_state__float16'},
    'transpose_recurrence': {('float32',): 'DmlRnn__transpose_recurrence__float32', ('float16',): 'DmlRnn__transpose_recurrence__float16'},
    'persistent': {('float32',): 'DmlRnn__persistent__float32', ('float16',): 'DmlRnn__persistent__float16'},
    'step': {('float32',): 'DmlRnn__step__float32', ('float16',): 'DmlRnn__step__float16'},
    'fused_step': {('float32',): 'DmlRnn__fused_step__float32', ('float16',): 'DmlRnn__fused_step__float16'},
    'final_state': {('float32',): 'DmlRnn__final_state__float32', ('float16',): 'DmlRnn__final_state__float16'},
}, variants=('persistent', 'fused', 'gemm_steps'), params={'persistent_max_hidden': 64, 'persistent_max_batch': 64, 'fused_max_hidden': 128})
# The op's native driver (codegen/runtime/native_driver.py): _compute hands it the call first.
_NATIVE = _rt.NativeDriver(_OP, _KERNELS, _PLAN, Path(__file__).with_name("dml_rnn.driver.cpp"))

Direction = Literal['forward', 'backward', 'bidirectional']


class DmlRnnOutputs(NamedTuple):
    """The outputs of DmlRnn, in order."""

    output_sequence: Any
    """T, shape [seq_length, 1, batch_size, hidden_size] (forward) · [seq_length, 1, batch_size, hidden_size] (backward) · [seq_length, 2, batch_size, hidden_size] (bidirectional). Every step's state H_t of each direction (OutputSequenceTensor); zero past a sequence's length."""
    output_single: Any
    """T, shape [1, 1, batch_size, hidden_size] (forward) · [1, 1, batch_size, hidden_size] (backward) · [1, 2, batch_size, hidden_size] (bidirectional). The last state of each direction (OutputSingleTensor); zero for an empty sequence."""


class DmlRnn:
    """One layer of a simple RNN over a whole sequence, as DirectML's DML_RNN_OPERATOR_DESC.

    For each direction, with X_t the input at time step t, W, R, Wb, Rb and f that direction's
    weights, biases and activation, and · the matrix product:

        forward:   for t = 0 … seq_length − 1:  H_t = f(X_t·Wᵀ + H_{t−1}·Rᵀ + Wb + Rb)
        backward:  for t = seq_length − 1 … 0:  H_t = f(X_t·Wᵀ + H_{t+1}·Rᵀ + Wb + Rb)

    starting from hidden_init (zeros when absent). Bidirectional runs both, forward first.
    output_sequence[t, d] is H_t of direction d; output_single[0, d] is the last state computed:
    step seq_length − 1 forward, step 0 backward.

    Variable lengths (sequence_lengths, as DirectML and ONNX Runtime behave): for a batch entry of
    length len, output_sequence is zero for t ≥ len; the forward direction stops after step len − 1
    and the backward one starts at step len − 1 (from hidden_init); output_single is that last valid
    state; len = 0 gives zeros; len > seq_length is an error.

    Activations: one per direction (forward's first), from the activation library below; a single
    one applies to every direction. Computation: the input projection X·Wᵀ of every time step is one
    GEMM per direction, then each step is one recurrent GEMM per direction and one fused kernel for
    all directions (the two products, bias, activation, length mask) that writes output_sequence
    and keeps the states in output_single: the cpu backend's plan, and the GPU's above hidden_size
    128. Below that the GPU fuses the recurrent product into the step kernel (one launch per step
    for every direction, each block a tile of 32 sequences × 32 units), or, with hidden_size ≤ 64
    and batch_size ≤ 64, runs every step in one launch (the persistent variant). float16 tensors are
    stored in float16 with float32 arithmetic in the kernels.

    Create it with `DmlRnn.create(scope, input, weight, recurrence, bias, hidden_init, sequence_lengths, *options)`, or call
    `dml_rnn(...)`. The reference page is generated/docs/rnn/dml_rnn.md.
    """

    OP_NAME = 'DmlRnn'
    Outputs = DmlRnnOutputs

    class Options:
        """Optional attributes for DmlRnn; each setter returns the Options, so calls chain."""

        __slots__ = ("_values",)

        def __init__(self) -> None:
            self._values: dict[str, Any] = {}

        def direction(self, direction: Direction) -> DmlRnn.Options:
            """Sets direction (default 'forward'). The direction of the recurrence (DML_RECURRENT_NETWORK_DIRECTION)."""
            self._values['direction'] = direction
            return self

        def activations(self, activations: ActivationLike | Sequence[ActivationLike]) -> DmlRnn.Options:
            """Sets activations (default 'tanh'). The activation f of each direction (ActivationDescs), forward's first; a single one for every direction."""
            self._values['activations'] = activations
            return self

        def __repr__(self) -> str:
            items = ", ".join(f"{key}={value!r}" for key, value in self._values.items())
            return f"DmlRnn.Options({items})"

    @staticmethod
    def direction(direction: Direction) -> DmlRnn.Options:
        """Options with direction set (default 'forward')."""
        return DmlRnn.Options().direction(direction)

    @staticmethod
    def activations(activations: ActivationLike | Sequence[ActivationLike]) -> DmlRnn.Options:
        """Options with activations set (default 'tanh')."""
        return DmlRnn.Options().activations(activations)

    @classmethod
    def create(
        cls,
        scope: Scope | str | None,
        input: Any,
        weight: Any,
        recurrence: Any,
        bias: Any = None,
        hidden_init: Any = None,
        sequence_lengths: Any = None,
        *options: DmlRnn.Options,
    ) -> DmlRnn:
        """Factory method to create a class wrapping a new DmlRnn operation.

        Args:
            scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).
            input: T, shape [1, seq_length, batch_size, input_size].
                The input data X (InputTensor).
            weight: T, shape [1, 1, hidden_size, input_size] (forward) · [1, 1, hidden_size, input_size] (backward) · [1, 2, hidden_size, input_size] (bidirectional).
                The weights W of each direction (WeightTensor), forward's first.
            recurrence: T, shape [1, 1, hidden_size, hidden_size] (forward) · [1, 1, hidden_size, hidden_size] (backward) · [1, 2, hidden_size, hidden_size] (bidirectional).
                The recurrence weights R of each direction (RecurrenceTensor).
            bias: T, shape [1, 1, 1, 2*hidden_size] (forward) · [1, 1, 1, 2*hidden_size] (backward) · [1, 1, 2, 2*hidden_size] (bidirectional), optional.
                The biases [Wb | Rb] of each direction (BiasTensor); zeros when absent.
            hidden_init: T, shape [1, 1, batch_size, hidden_size] (forward) · [1, 1, batch_size, hidden_size] (backward) · [1, 2, batch_size, hidden_size] (bidirectional), optional.
                The initial state of each direction (HiddenInitTensor); zeros when
                absent.
            sequence_lengths: uint32 (or int32, int64), shape [1, 1, 1, batch_size], optional.
                The length of each batch entry's sequence (SequenceLengthsTensor);
                seq_length for all when absent.
            options: DmlRnn.Options carrying optional attribute values.

        Raises:
            TypeError: an argument has the wrong type or dtype.
            ValueError: a shape or an attribute value is not valid.
        """
        _merged = _rt.merge_options(_OP, options, cls.Options)
        return cls(_run(
            scope, input, weight, recurrence, bias, hidden_init, sequence_lengths,
            _merged.get('direction', 'forward'),
            _merged.get('activations', 'tanh'),
        ))

    def __init__(self, outputs: DmlRnnOutputs) -> None:
        self._outputs = outputs

    @property
    def output_sequence(self) -> Any:
        """Every step's state H_t of each direction (OutputSequenceTensor); zero past a sequence's length."""
        return self._outputs.output_sequence

    @property
    def output_single(self) -> Any:
        """The last state of each direction (OutputSingleTensor); zero for an empty sequence."""
        return self._outputs.output_single

    def output_tuple(self) -> DmlRnnOutputs:
        """All outputs, in order."""
        return self._outputs

    def __repr__(self) -> str:
        return _rt.op_repr(_OP, self._outputs)


def dml_rnn(
    input: Any,
    weight: Any,
    recurrence: Any,
    bias: Any = None,
    hidden_init: Any = None,
    sequence_lengths: Any = None,
    *,
    direction: Direction = 'forward',
    activations: ActivationLike | Sequence[ActivationLike] = 'tanh',
    scope: Scope | str | None = None,
) -> DmlRnnOutputs:
    """One layer of a simple RNN over a whole sequence, as DirectML's DML_RNN_OPERATOR_DESC.

    Args:
        input: T, shape [1, seq_length, batch_size, input_size].
            The input data X (InputTensor).
        weight: T, shape [1, 1, hidden_size, input_size] (forward) · [1, 1, hidden_size, input_size] (backward) · [1, 2, hidden_size, input_size] (bidirectional).
            The weights W of each direction (WeightTensor), forward's first.
        recurrence: T, shape [1, 1, hidden_size, hidden_size] (forward) · [1, 1, hidden_size, hidden_size] (backward) · [1, 2, hidden_size, hidden_size] (bidirectional).
            The recurrence weights R of each direction (RecurrenceTensor).
        bias: T, shape [1, 1, 1, 2*hidden_size] (forward) · [1, 1, 1, 2*hidden_size] (backward) · [1, 1, 2, 2*hidden_size] (bidirectional), optional.
            The biases [Wb | Rb] of each direction (BiasTensor); zeros when absent.
        hidden_init: T, shape [1, 1, batch_size, hidden_size] (forward) · [1, 1, batch_size, hidden_size] (backward) · [1, 2, batch_size, hidden_size] (bidirectional), optional.
            The initial state of each direction (HiddenInitTensor); zeros when absent.
        sequence_lengths: uint32 (or int32, int64), shape [1, 1, 1, batch_size], optional.
            The length of each batch entry's sequence (SequenceLengthsTensor);
            seq_length for all when absent.
        direction: enum in ['forward', 'backward', 'bidirectional']; default 'forward'.
            The direction of the recurrence (DML_RECURRENT_NETWORK_DIRECTION).
        activations: list(activation); default 'tanh'.
            The activation f of each direction (ActivationDescs), forward's first; a
            single one for every direction.
        scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).

    Returns:
        DmlRnnOutputs(output_sequence, output_single).

    Raises:
        TypeError: an argument has the wrong type or dtype.
        ValueError: a shape or an attribute value is not valid.
    """
    if type(input) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (input, weight, recurrence, bias, hidden_init, sequence_lengths), (direction, activations), DmlRnnOutputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(input, weight, recurrence, bias, hidden_init, sequence_lengths)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'input': input, 'weight': weight, 'recurrence': recurrence, 'bias': bias, 'hidden_init': hidden_init, 'sequence_lengths': sequence_lengths}, (direction, activations))
    return _compute(scope, input, weight, recurrence, bias, hidden_init, sequence_lengths, direction, activations)


def _run(scope: Scope | str | None, input: Any, weight: Any, recurrence: Any, bias: Any, hidden_init: Any, sequence_lengths: Any, direction: Any, activations: Any) -> DmlRnnOutputs:
    if type(input) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (input, weight, recurrence, bias, hidden_init, sequence_lengths), (direction, activations), DmlRnnOutputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(input, weight, recurrence, bias, hidden_init, sequence_lengths)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'input': input, 'weight': weight, 'recurrence': recurrence, 'bias': bias, 'hidden_init': hidden_init, 'sequence_lengths': sequence_lengths}, (direction, activations))
    return _compute(scope, input, weight, recurrence, bias, hidden_init, sequence_lengths, direction, activations)


def _compute(scope: Scope | str | None, input: Any, weight: Any, recurrence: Any, bias: Any, hidden_init: Any, sequence_lengths: Any, direction: Any, activations: Any) -> DmlRnnOutputs:
    _backend = _rt.backend_of(scope, _OP)
    _native = _NATIVE.call(_backend, (input, weight, recurrence, bias, hidden_init, sequence_lengths), (direction, activations), DmlRnnOutputs)
    if _native is not None:  # the op's native driver ran the call (its outputs made as this NamedTuple)
        return _native
    direction = _rt.check_enum(_OP, 'direction', direction, ('forward', 'backward', 'bidirectional'))
    input = _backend.adopt(_OP, 'input', input)
    _dtype_T = _rt.check_dtype(_OP, 'input', input, ('float32', 'float16'), 'T')
    weight = _backend.adopt(_OP, 'weight', weight)
    _rt.check_same_dtype(_OP, 'weight', weight, _dtype_T, 'T', 'input')
    recurrence = _backend.adopt(_OP, 'recurrence', recurrence)
    _rt.check_same_dtype(_OP, 'recurrence', recurrence, _dtype_T, 'T', 'input')
    if bias is not None:
        bias = _backend.adopt(_OP, 'bias', bias)
        _rt.check_same_dtype(_OP, 'bias', bias, _dtype_T, 'T', 'input')
    if hidden_init is not None:
        hidden_init = _backend.adopt(_OP, 'hidden_init', hidden_init)
        _rt.check_same_dtype(_OP, 'hidden_init', hidden_init, _dtype_T, 'T', 'input')
    if sequence_lengths is not None:
        sequence_lengths = _backend.adopt(_OP, 'sequence_lengths', sequence_lengths)
        _rt.check_dtype(_OP, 'sequence_lengths', sequence_lengths, ('uint32', 'int32', 'int64'))
    if direction == 'forward':
        if input.ndim != 4:
            raise _rt.shape_error(_OP, 'input', ('1', 'seq_length', 'batch_size', 'input_size'), input.shape, {}, 'direction forward')
        seq_length = input.shape[1]
        batch_size = input.shape[2]
        input_size = input.shape[3]
        if input.shape[0] != 1:
            raise _rt.shape_error(_OP, 'input', ('1', 'seq_length', 'batch_size', 'input_size'), input.shape, {'batch_size': batch_size, 'input_size': input_size, 'seq_length': seq_length}, 'direction forward')
        if weight.ndim != 4:
            raise _rt.shape_error(_OP, 'weight', ('1', '1', 'hidden_size', 'input_size'), weight.shape, {'input_size': input_size}, 'direction forward')
        hidden_size = weight.shape[2]
        if weight.shape[0] != 1 or weight.shape[1] != 1 or weight.shape[3] != input_size:
            raise _rt.shape_error(_OP, 'weight', ('1', '1', 'hidden_size', 'input_size'), weight.shape, {'hidden_size': hidden_size, 'input_size': input_size}, 'direction forward')
        if recurrence.ndim != 4:
            raise _rt.shape_error(_OP, 'recurrence', ('1', '1', 'hidden_size', 'hidden_size'), recurrence.shape, {'hidden_size': hidden_size}, 'direction forward')
        if recurrence.shape[0] != 1 or recurrence.shape[1] != 1 or recurrence.shape[2] != hidden_size or recurrence.shape[3] != hidden_size:
            raise _rt.shape_error(_OP, 'recurrence', ('1', '1', 'hidden_size', 'hidden_size'), recurrence.shape, {'hidden_size': hidden_size}, 'direction forward')
        if bias is not None:
            if bias.ndim != 4:
                raise _rt.shape_error(_OP, 'bias', ('1', '1', '1', '2*hidden_size'), bias.shape, {'hidden_size': hidden_size, '2*hidden_size': 2*hidden_size}, 'direction forward')
            if bias.shape[0] != 1 or bias.shape[1] != 1 or bias.shape[2] != 1 or bias.shape[3] != 2*hidden_size:
                raise _rt.shape_error(_OP, 'bias', ('1', '1', '1', '2*hidden_size'), bias.shape, {'hidden_size': hidden_size, '2*hidden_size': 2*hidden_size}, 'direction forward')
        if hidden_init is not None:
            if hidden_init.ndim != 4:
                raise _rt.shape_error(_OP, 'hidden_init', ('1', '1', 'batch_size', 'hidden_size'), hidden_init.shape, {'batch_size': batch_size, 'hidden_size': hidden_size}, 'direction forward')
            if hidden_init.shape[0] != 1 or hidden_init.shape[1] != 1 or hidden_init.shape[2] != batch_size or hidden_init.shape[3] != hidden_size:
                raise _rt.shape_error(_OP, 'hidden_init', ('1', '1', 'batch_size', 'hidden_size'), hidden_init.shape, {'batch_size': batch_size, 'hidden_size': hidden_size}, 'direction forward')
        if sequence_lengths is not None:
            if sequence_lengths.ndim != 4:
                raise _rt.shape_error(_OP, 'sequence_lengths', ('1', '1', '1', 'batch_size'), sequence_lengths.shape, {'batch_size': batch_size}, 'direction forward')
            if sequence_lengths.shape[0] != 1 or sequence_lengths.shape[1] != 1 or sequence_lengths.shape[2] != 1 or sequence_lengths.shape[3] != batch_size:
                raise _rt.shape_error(_OP, 'sequence_lengths', ('1', '1', '1', 'batch_size'), sequence_lengths.shape, {'batch_size': batch_size}, 'direction forward')
        persistent_max_hidden = 64
        persistent_max_batch = 64
        fused_max_hidden = 128
        persistent = _backend.name == 'cuda' and hidden_size >= 1 and hidden_size <= persistent_max_hidden and batch_size >= 1 and batch_size <= persistent_max_batch
        fused = not persistent and (_backend.name == 'cuda' and hidden_size >= 1 and hidden_size <= fused_max_hidden)
        gemm_steps = not persistent and not fused
        num_directions = 1
        backward_first = 0
        steps = seq_length*batch_size
        cells = batch_size*hidden_size
        all_cells = num_directions*cells
        cell_threads = (max(32, min(1024, 32*(-(-hidden_size//128)))) if _backend.name == 'cpu' else max(32, min(256, 32*(-(-cells//128)))))
        cell_blocks = (min((-(-cells//65536)), 64) if _backend.name == 'cpu' else min((-(-cells//1024)), 65535))
        step_threads = (max(32, min(1024, 32*(-(-hidden_size//128)))) if _backend.name == 'cpu' else max(128, min(256, 32*(-(-cells//128)))))
        persistent_blocks = (-(-batch_size//4))
        fused_row_tiles = max((-(-batch_size//32)), 3)
        fused_unit_tiles = (-(-hidden_size//32))
        state_slots = 2*fused
        on_cpu = (1 if _backend.name == 'cpu' else 0)
        _shape_output_sequence = [seq_length, 1, batch_size, hidden_size]
        _shape_output_single = [1, 1, batch_size, hidden_size]
    elif direction == 'backward':
        if input.ndim != 4:
            raise _rt.shape_error(_OP, 'input', ('1', 'seq_length', 'batch_size', 'input_size'), input.shape, {}, 'direction backward')
        seq_length = input.shape[1]
        batch_size = input.shape[2]
        input_size = input.shape[3]
        if input.shape[0] != 1:
            raise _rt.shape_error(_OP, 'input', ('1', 'seq_length', 'batch_size', 'input_size'), input.shape, {'batch_size': batch_size, 'input_size': input_size, 'seq_length': seq_length}, 'direction backward')
        if weight.ndim != 4:
            raise _rt.shape_error(_OP, 'weight', ('1', '1', 'hidden_size', 'input_size'), weight.shape, {'input_size': input_size}, 'direction backward')
        hidden_size = weight.shape[2]
        if weight.shape[0] != 1 or weight.shape[1] != 1 or weight.shape[3] != input_size:
            raise _rt.shape_error(_OP, 'weight', ('1', '1', 'hidden_size', 'input_size'), weight.shape, {'hidden_size': hidden_size, 'input_size': input_size}, 'direction backward')
        if recurrence.ndim != 4:
            raise _rt.shape_error(_OP, 'recurrence', ('1', '1', 'hidden_size', 'hidden_size'), recurrence.shape, {'hidden_size': hidden_size}, 'direction backward')
        if recurrence.shape[0] != 1 or recurrence.shape[1] != 1 or recurrence.shape[2] != hidden_size or recurrence.shape[3] != hidden_size:
            raise _rt.shape_error(_OP, 'recurrence', ('1', '1', 'hidden_size', 'hidden_size'), recurrence.shape, {'hidden_size': hidden_size}, 'direction backward')
        if bias is not None:
            if bias.ndim != 4:
                raise _rt.shape_error(_OP, 'bias', ('1', '1', '1', '2*hidden_size'), bias.shape, {'hidden_size': hidden_size, '2*hidden_size': 2*hidden_size}, 'direction backward')
            if bias.shape[0] != 1 or bias.shape[1] != 1 or bias.shape[2] != 1 or bias.shape[3] != 2*hidden_size:
                raise _rt.shape_error(_OP, 'bias', ('1', '1', '1', '2*hidden_size'), bias.shape, {'hidden_size': hidden_size, '2*hidden_size': 2*hidden_size}, 'direction backward')
        if hidden_init is not None:
            if hidden_init.ndim != 4:
                raise _rt.shape_error(_OP, 'hidden_init', ('1', '1', 'batch_size', 'hidden_size'), hidden_init.shape, {'batch_size': batch_size, 'hidden_size': hidden_size}, 'direction backward')
            if hidden_init.shape[0] != 1 or hidden_init.shape[1] != 1 or hidden_init.shape[2] != batch_size or hidden_init.shape[3] != hidden_size:
                raise _rt.shape_error(_OP, 'hidden_init', ('1', '1', 'batch_size', 'hidden_size'), hidden_init.shape, {'batch_size': batch_size, 'hidden_size': hidden_size}, 'direction backward')
        if sequence_lengths is not None:
            if sequence_lengths.ndim != 4:
                raise _rt.shape_error(_OP, 'sequence_lengths', ('1', '1', '1', 'batch_size'), sequence_lengths.shape, {'batch_size': batch_size}, 'direction backward')
            if sequence_lengths.shape[0] != 1 or sequence_lengths.shape[1] != 1 or sequence_lengths.shape[2] != 1 or sequence_lengths.shape[3] != batch_size:
                raise _rt.shape_error(_OP, 'sequence_lengths', ('1', '1', '1', 'batch_size'), sequence_lengths.shape, {'batch_size': batch_size}, 'direction backward')
        persistent_max_hidden = 64
        persistent_max_batch = 64
        fused_max_hidden = 128
        persistent = _backend.name == 'cuda' and hidden_size >= 1 and hidden_size <= persistent_max_hidden and batch_size >= 1 and batch_size <= persistent_max_batch
        fused = not persistent and (_backend.name == 'cuda' and hidden_size >= 1 and hidden_size <= fused_max_hidden)
        gemm_steps = not persistent and not fused
        num_directions = 1
        backward_first = 1
        steps = seq_length*batch_size
        cells = batch_size*hidden_size
        all_cells = num_directions*cells
        cell_threads = (max(32, min(1024, 32*(-(-hidden_size//128)))) if _backend.name == 'cpu' else max(32, min(256, 32*(-(-cells//128)))))
        cell_blocks = (min((-(-cells//65536)), 64) if _backend.name == 'cpu' else min((-(-cells//1024)), 65535))
        step_threads = (max(32, min(1024, 32*(-(-hidden_size//128)))) if _backend.name == 'cpu' else max(128, min(256, 32*(-(-cells//128)))))
        persistent_blocks = (-(-batch_size//4))
        fused_row_tiles = max((-(-batch_size//32)), 3)
        fused_unit_tiles = (-(-hidden_size//32))
        state_slots = 2*fused
        on_cpu = (1 if _backend.name == 'cpu' else 0)
        _shape_output_sequence = [seq_length, 1, batch_size, hidden_size]
        _shape_output_single = [1, 1, batch_size, hidden_size]
    elif direction == 'bidirectional':
        if input.ndim != 4:
            raise _rt.shape_error(_OP, 'input', ('1', 'seq_length', 'batch_size', 'input_size'), input.shape, {}, 'direction bidirectional')
        seq_length = input.shape[1]
        batch_size = input.shape[2]
        input_size = input.shape[3]
        if input.shape[0] != 1:
            raise _rt.shape_error(_OP, 'input', ('1', 'seq_length', 'batch_size', 'input_size'), input.shape, {'batch_size': batch_size, 'input_size': input_size, 'seq_length': seq_length}, 'direction bidirectional')
        if weight.ndim != 4:
            raise _rt.shape_error(_OP, 'weight', ('1', '2', 'hidden_size', 'input_size'), weight.shape, {'input_size': input_size}, 'direction bidirectional')
        hidden_size = weight.shape[2]
        if weight.shape[0] != 1 or weight.shape[1] != 2 or weight.shape[3] != input_size:
            raise _rt.shape_error(_OP, 'weight', ('1', '2', 'hidden_size', 'input_size'), weight.shape, {'hidden_size': hidden_size, 'input_size': input_size}, 'direction bidirectional')
        if recurrence.ndim != 4:
            raise _rt.shape_error(_OP, 'recurrence', ('1', '2', 'hidden_size', 'hidden_size'), recurrence.shape, {'hidden_size': hidden_size}, 'direction bidirectional')
        if recurrence.shape[0] != 1 or recurrence.shape[1] != 2 or recurrence.shape[2] != hidden_size or recurrence.shape[3] != hidden_size:
            raise _rt.shape_error(_OP, 'recurrence', ('1', '2', 'hidden_size', 'hidden_size'), recurrence.shape, {'hidden_size': hidden_size}, 'direction bidirectional')
        if bias is not None:
            if bias.ndim != 4:
                raise _rt.shape_error(_OP, 'bias', ('1', '1', '2', '2*hidden_size'), bias.shape, {'hidden_size': hidden_size, '2*hidden_size': 2*hidden_size}, 'direction bidirectional')
            if bias.shape[0] != 1 or bias.shape[1] != 1 or bias.shape[2] != 2 or bias.shape[3] != 2*hidden_size:
                raise _rt.shape_error(_OP, 'bias', ('1', '1', '2', '2*hidden_size'), bias.shape, {'hidden_size': hidden_size, '2*hidden_size': 2*hidden_size}, 'direction bidirectional')
        if hidden_init is not None:
            if hidden_init.ndim != 4:
                raise _rt.shape_error(_OP, 'hidden_init', ('1', '2', 'batch_size', 'hidden_size'), hidden_init.shape, {'batch_size': batch_size, 'hidden_size': hidden_size}, 'direction bidirectional')
            if hidden_init.shape[0] != 1 or hidden_init.shape[1] != 2 or hidden_init.shape[2] != batch_size or hidden_init.shape[3] != hidden_size:
                raise _rt.shape_error(_OP, 'hidden_init', ('1', '2', 'batch_size', 'hidden_size'), hidden_init.shape, {'batch_size': batch_size, 'hidden_size': hidden_size}, 'direction bidirectional')
        if sequence_lengths is not None:
            if sequence_lengths.ndim != 4:
                raise _rt.shape_error(_OP, 'sequence_lengths', ('1', '1', '1', 'batch_size'), sequence_lengths.shape, {'batch_size': batch_size}, 'direction bidirectional')
            if sequence_lengths.shape[0] != 1 or sequence_lengths.shape[1] != 1 or sequence_lengths.shape[2] != 1 or sequence_lengths.shape[3] != batch_size:
                raise _rt.shape_error(_OP, 'sequence_lengths', ('1', '1', '1', 'batch_size'), sequence_lengths.shape, {'batch_size': batch_size}, 'direction bidirectional')
        persistent_max_hidden = 64
        persistent_max_batch = 64
        fused_max_hidden = 128
        persistent = _backend.name == 'cuda' and hidden_size >= 1 and hidden_size <= persistent_max_hidden and batch_size >= 1 and batch_size <= persistent_max_batch
        fused = not persistent and (_backend.name == 'cuda' and hidden_size >= 1 and hidden_size <= fused_max_hidden)
        gemm_steps = not persistent and not fused
        num_directions = 2
        backward_first = 0
        steps = seq_length*batch_size
        cells = batch_size*hidden_size
        all_cells = num_directions*cells
        cell_threads = (max(32, min(1024, 32*(-(-hidden_size//128)))) if _backend.name == 'cpu' else max(32, min(256, 32*(-(-cells//128)))))
        cell_blocks = (min((-(-cells//65536)), 64) if _backend.name == 'cpu' else min((-(-cells//1024)), 65535))
        step_threads = (max(32, min(1024, 32*(-(-hidden_size//128)))) if _backend.name == 'cpu' else max(128, min(256, 32*(-(-cells//128)))))
        persistent_blocks = (-(-batch_size//4))
        fused_row_tiles = max((-(-batch_size//32)), 3)
        fused_unit_tiles = (-(-hidden_size//32))
        state_slots = 2*fused
        on_cpu = (1 if _backend.name == 'cpu' else 0)
        _shape_output_sequence = [seq_length, 2, batch_size, hidden_size]
        _shape_output_single = [1, 2, batch_size, hidden_size]
    else:
        raise AssertionError(direction)
    activations = Activation.check_list(_OP, 'activations', activations, num_directions, 'num_directions')
    if sequence_lengths is not None:
        _rt.check_values_on_device(_backend, _OP, 'sequence_lengths', sequence_lengths, 0, seq_length, '0', 'seq_length')
    if sequence_lengths is not None:
        sequence_lengths = sequence_lengths.astype('uint32', copy=False)
    output_sequence = _backend.empty(_shape_output_sequence, _dtype_T)
    output_single = _backend.empty(_shape_output_single, _dtype_T)
    projected = _backend.empty([num_directions, seq_length, batch_size, hidden_size], _dtype_T)
    recurrent = _backend.empty([num_directions, batch_size, hidden_size], _dtype_T)
    states = _backend.empty([state_slots, num_directions, batch_size, hidden_size], _dtype_T)
    rt = _backend.empty([num_directions*hidden_size*hidden_size*on_cpu], _dtype_T)
    if _rt.plan_as_data():
        _rt.run_plan(_backend, _KERNELS, _PLAN, (num_directions, steps, hidden_size, input_size, _dtype_T, cell_blocks, cell_threads, seq_length, batch_size, persistent_blocks, activations, backward_first, persistent, cells, step_threads, gemm_steps, fused_row_tiles, fused_unit_tiles, fused, all_cells,), (input, weight, projected, hidden_init, sequence_lengths, output_single, recurrence, rt, bias, output_sequence, recurrent, states,))
    else:  # the same plan as Python: for a reader, and run with OPGEN_PLAN=loop
        _rt.hold_if_capturing(_backend, (input, weight, projected, hidden_init, sequence_lengths, output_single, recurrence, rt, bias, output_sequence, recurrent, states,))
        for d in range(num_directions):
            _backend.gemm(input, weight, projected, steps, hidden_size, input_size, False, True, 0, 0, d*hidden_size*input_size, d*steps*hidden_size)
        _backend.launch(_KERNELS, _PLAN.symbol('init_state', _dtype_T), (cell_blocks,), (cell_threads,), (hidden_init, sequence_lengths, output_single, _np.int64(seq_length), _np.int64(num_directions), _np.int64(batch_size), _np.int64(hidden_size),), 0)
        if _backend.name == 'cpu':
            _backend.launch(_KERNELS, _PLAN.symbol('transpose_recurrence', _dtype_T), (1, num_directions,), (1,), (recurrence, rt, _np.int64(hidden_size),), 0)
        if persistent:
            _backend.launch(_KERNELS, _PLAN.symbol('persistent', _dtype_T), (persistent_blocks, num_directions,), (256,), (projected, recurrence, bias, sequence_lengths, output_sequence, output_single, *activations[0].kernel_args(), *activations[num_directions - 1].kernel_args(), _np.int64(backward_first), _np.int64(seq_length), _np.int64(num_directions), _np.int64(batch_size), _np.int64(hidden_size),), 0)
        if gemm_steps:
            for s in range(seq_length):
                for d in range(num_directions):
                    if _backend.name == 'cuda':
                        _backend.gemm(output_single, recurrence, recurrent, batch_size, hidden_size, hidden_size, False, True, 0, d*cells, d*hidden_size*hidden_size, d*cells)
                    if _backend.name == 'cpu':
                        _backend.gemm(output_single, rt, recurrent, batch_size, hidden_size, hidden_size, False, False, 0, d*cells, d*hidden_size*hidden_size, d*cells)
                _backend.launch(_KERNELS, _PLAN.symbol('step', _dtype_T), (cell_blocks,), (step_threads,), (projected, recurrent, bias, sequence_lengths, output_sequence, output_single, *activations[0].kernel_args(), *activations[num_directions - 1].kernel_args(), _np.int64(s), _np.int64(backward_first), _np.int64(seq_length), _np.int64(num_directions), _np.int64(batch_size), _np.int64(hidden_size),), 0)
        if fused:
            for s in range(seq_length):
                _backend.launch(_KERNELS, _PLAN.symbol('fused_step', _dtype_T), (fused_row_tiles, fused_unit_tiles, num_directions,), (256,), (projected, recurrent, recurrence, bias, sequence_lengths, output_sequence, output_single, states, *activations[0].kernel_args(), *activations[num_directions - 1].kernel_args(), _np.int64(s), _np.int64(backward_first), _np.int64(seq_length), _np.int64(num_directions), _np.int64(batch_size), _np.int64(hidden_size),), 0)
        if fused and seq_length > 0:
            _backend.launch(_KERNELS, _PLAN.symbol('final_state', _dtype_T), (cell_blocks,), (cell_threads,), (states, output_single, _np.int64(seq_length), _np.int64(all_cells),), 0)
    _backend.flush()
    return DmlRnnOutputs(output_sequence, output_single)


def _fake(_backend: Any, input: Any, weight: Any, recurrence: Any, bias: Any, hidden_init: Any, sequence_lengths: Any, direction: Any, activations: Any) -> DmlRnnOutputs:
    """The outputs of a call as empty tensors of the right shapes and dtypes, made by `_backend`
    (the torch registration's fake implementation: nothing runs, no data is read)."""
    direction = _rt.check_enum(_OP, 'direction', direction, ('forward', 'backward', 'bidirectional'))
    _dtype_T = _rt.check_dtype(_OP, 'input', input, ('float32', 'float16'), 'T')
    _rt.check_same_dtype(_OP, 'weight', weight, _dtype_T, 'T', 'input')
    _rt.check_same_dtype(_OP, 'recurrence', recurrence, _dtype_T, 'T', 'input')
    if bias is not None:
        _rt.check_same_dtype(_OP, 'bias', bias, _dtype_T, 'T', 'input')
    if hidden_init is not None:
        _rt.check_same_dtype(_OP, 'hidden_init', hidden_init, _dtype_T, 'T', 'input')
    if sequence_lengths is not None:
        _rt.check_dtype(_OP, 'sequence_lengths', sequence_lengths, ('uint32', 'int32', 'int64'))
    if direction == 'forward':
        if input.ndim != 4:
            raise _rt.shape_error(_OP, 'input', ('1', 'seq_length', 'batch_size', 'input_size'), input.shape, {}, 'direction forward')
        seq_length = input.shape[1]
        batch_size = input.shape[2]
        input_size = input.shape[3]
        if input.shape[0] != 1:
            raise _rt.shape_error(_OP, 'input', ('1', 'seq_length', 'batch_size', 'input_size'), input.shape, {'batch_size': batch_size, 'input_size': input_size, 'seq_length': seq_length}, 'direction forward')
        if weight.ndim != 4:
            raise _rt.shape_error(_OP, 'weight', ('1', '1', 'hidden_size', 'input_size'), weight.shape, {'input_size': input_size}, 'direction forward')
        hidden_size = weight.shape[2]
        if weight.shape[0] != 1 or weight.shape[1] != 1 or weight.shape[3] != input_size:
            raise _rt.shape_error(_OP, 'weight', ('1', '1', 'hidden_size', 'input_size'), weight.shape, {'hidden_size': hidden_size, 'input_size': input_size}, 'direction forward')
        if recurrence.ndim != 4:
            raise _rt.shape_error(_OP, 'recurrence', ('1', '1', 'hidden_size', 'hidden_size'), recurrence.shape, {'hidden_size': hidden_size}, 'direction forward')
        if recurrence.shape[0] != 1 or recurrence.shape[1] != 1 or recurrence.shape[2] != hidden_size or recurrence.shape[3] != hidden_size:
            raise _rt.shape_error(_OP, 'recurrence', ('1', '1', 'hidden_size', 'hidden_size'), recurrence.shape, {'hidden_size': hidden_size}, 'direction forward')
        if bias is not None:
            if bias.ndim != 4:
                raise _rt.shape_error(_OP, 'bias', ('1', '1', '1', '2*hidden_size'), bias.shape, {'hidden_size': hidden_size, '2*hidden_size': 2*hidden_size}, 'direction forward')
            if bias.shape[0] != 1 or bias.shape[1] != 1 or bias.shape[2] != 1 or bias.shape[3] != 2*hidden_size:
                raise _rt.shape_error(_OP, 'bias', ('1', '1', '1', '2*hidden_size'), bias.shape, {'hidden_size': hidden_size, '2*hidden_size': 2*hidden_size}, 'direction forward')
        if hidden_init is not None:
            if hidden_init.ndim != 4:
                raise _rt.shape_error(_OP, 'hidden_init', ('1', '1', 'batch_size', 'hidden_size'), hidden_init.shape, {'batch_size': batch_size, 'hidden_size': hidden_size}, 'direction forward')
            if hidden_init.shape[0] != 1 or hidden_init.shape[1] != 1 or hidden_init.shape[2] != batch_size or hidden_init.shape[3] != hidden_size:
                raise _rt.shape_error(_OP, 'hidden_init', ('1', '1', 'batch_size', 'hidden_size'), hidden_init.shape, {'batch_size': batch_size, 'hidden_size': hidden_size}, 'direction forward')
        if sequence_lengths is not None:
            if sequence_lengths.ndim != 4:
                raise _rt.shape_error(_OP, 'sequence_lengths', ('1', '1', '1', 'batch_size'), sequence_lengths.shape, {'batch_size': batch_size}, 'direction forward')
            if sequence_lengths.shape[0] != 1 or sequence_lengths.shape[1] != 1 or sequence_lengths.shape[2] != 1 or sequence_lengths.shape[3] != batch_size:
                raise _rt.shape_error(_OP, 'sequence_lengths', ('1', '1', '1', 'batch_size'), sequence_lengths.shape, {'batch_size': batch_size}, 'direction forward')
        _shape_output_sequence = [seq_length, 1, batch_size, hidden_size]
        _shape_output_single = [1, 1, batch_size, hidden_size]
    elif direction == 'backward':
        if input.ndim != 4:
            raise _rt.shape_error(_OP, 'input', ('1', 'seq_length', 'batch_size', 'input_size'), input.shape, {}, 'direction backward')
        seq_length = input.shape[1]
        batch_size = input.shape[2]
        input_size = input.shape[3]
        if input.shape[0] != 1:
            raise _rt.shape_error(_OP, 'input', ('1', 'seq_length', 'batch_size', 'input_size'), input.shape, {'batch_size': batch_size, 'input_size': input_size, 'seq_length': seq_length}, 'direction backward')
        if weight.ndim != 4:
            raise _rt.shape_error(_OP, 'weight', ('1', '1', 'hidden_size', 'input_size'), weight.shape, {'input_size': input_size}, 'direction backward')
        hidden_size = weight.shape[2]
        if weight.shape[0] != 1 or weight.shape[1] != 1 or weight.shape[3] != input_size:
            raise _rt.shape_error(_OP, 'weight', ('1', '1', 'hidden_size', 'input_size'), weight.shape, {'hidden_size': hidden_size, 'input_size': input_size}, 'direction backward')
        if recurrence.ndim != 4:
            raise _rt.shape_error(_OP, 'recurrence', ('1', '1', 'hidden_size', 'hidden_size'), recurrence.shape, {'hidden_size': hidden_size}, 'direction backward')
        if recurrence.shape[0] != 1 or recurrence.shape[1] != 1 or recurrence.shape[2] != hidden_size or recurrence.shape[3] != hidden_size:
            raise _rt.shape_error(_OP, 'recurrence', ('1', '1', 'hidden_size', 'hidden_size'), recurrence.shape, {'hidden_size': hidden_size}, 'direction backward')
        if bias is not None:
            if bias.ndim != 4:
                raise _rt.shape_error(_OP, 'bias', ('1', '1', '1', '2*hidden_size'), bias.shape, {'hidden_size': hidden_size, '2*hidden_size': 2*hidden_size}, 'direction backward')
            if bias.shape[0] != 1 or bias.shape[1] != 1 or bias.shape[2] != 1 or bias.shape[3] != 2*hidden_size:
                raise _rt.shape_error(_OP, 'bias', ('1', '1', '1', '2*hidden_size'), bias.shape, {'hidden_size': hidden_size, '2*hidden_size': 2*hidden_size}, 'direction backward')
        if hidden_init is not None:
            if hidden_init.ndim != 4:
                raise _rt.shape_error(_OP, 'hidden_init', ('1', '1', 'batch_size', 'hidden_size'), hidden_init.shape, {'batch_size': batch_size, 'hidden_size': hidden_size}, 'direction backward')
            if hidden_init.shape[0] != 1 or hidden_init.shape[1] != 1 or hidden_init.shape[2] != batch_size or hidden_init.shape[3] != hidden_size:
                raise _rt.shape_error(_OP, 'hidden_init', ('1', '1', 'batch_size', 'hidden_size'), hidden_init.shape, {'batch_size': batch_size, 'hidden_size': hidden_size}, 'direction backward')
        if sequence_lengths is not None:
            if sequence_lengths.ndim != 4:
                raise _rt.shape_error(_OP, 'sequence_lengths', ('1', '1', '1', 'batch_size'), sequence_lengths.shape, {'batch_size': batch_size}, 'direction backward')
            if sequence_lengths.shape[0] != 1 or sequence_lengths.shape[1] != 1 or sequence_lengths.shape[2] != 1 or sequence_lengths.shape[3] != batch_size:
                raise _rt.shape_error(_OP, 'sequence_lengths', ('1', '1', '1', 'batch_size'), sequence_lengths.shape, {'batch_size': batch_size}, 'direction backward')
        _shape_output_sequence = [seq_length, 1, batch_size, hidden_size]
        _shape_output_single = [1, 1, batch_size, hidden_size]
    elif direction == 'bidirectional':
        if input.ndim != 4:
            raise _rt.shape_error(_OP, 'input', ('1', 'seq_length', 'batch_size', 'input_size'), input.shape, {}, 'direction bidirectional')
        seq_length = input.shape[1]
        batch_size = input.shape[2]
        input_size = input.shape[3]
        if input.shape[0] != 1:
            raise _rt.shape_error(_OP, 'input', ('1', 'seq_length', 'batch_size', 'input_size'), input.shape, {'batch_size': batch_size, 'input_size': input_size, 'seq_length': seq_length}, 'direction bidirectional')
        if weight.ndim != 4:
            raise _rt.shape_error(_OP, 'weight', ('1', '2', 'hidden_size', 'input_size'), weight.shape, {'input_size': input_size}, 'direction bidirectional')
        hidden_size = weight.shape[2]
        if weight.shape[0] != 1 or weight.shape[1] != 2 or weight.shape[3] != input_size:
            raise _rt.shape_error(_OP, 'weight', ('1', '2', 'hidden_size', 'input_size'), weight.shape, {'hidden_size': hidden_size, 'input_size': input_size}, 'direction bidirectional')
        if recurrence.ndim != 4:
            raise _rt.shape_error(_OP, 'recurrence', ('1', '2', 'hidden_size', 'hidden_size'), recurrence.shape, {'hidden_size': hidden_size}, 'direction bidirectional')
        if recurrence.shape[0] != 1 or recurrence.shape[1] != 2 or recurrence.shape[2] != hidden_size or recurrence.shape[3] != hidden_size:
            raise _rt.shape_error(_OP, 'recurrence', ('1', '2', 'hidden_size', 'hidden_size'), recurrence.shape, {'hidden_size': hidden_size}, 'direction bidirectional')
        if bias is not None:
            if bias.ndim != 4:
                raise _rt.shape_error(_OP, 'bias', ('1', '1', '2', '2*hidden_size'), bias.shape, {'hidden_size': hidden_size, '2*hidden_size': 2*hidden_size}, 'direction bidirectional')
            if bias.shape[0] != 1 or bias.shape[1] != 1 or bias.shape[2] != 2 or bias.shape[3] != 2*hidden_size:
                raise _rt.shape_error(_OP, 'bias', ('1', '1', '2', '2*hidden_size'), bias.shape, {'hidden_size': hidden_size, '2*hidden_size': 2*hidden_size}, 'direction bidirectional')
        if hidden_init is not None:
            if hidden_init.ndim != 4:
                raise _rt.shape_error(_OP, 'hidden_init', ('1', '2', 'batch_size', 'hidden_size'), hidden_init.shape, {'batch_size': batch_size, 'hidden_size': hidden_size}, 'direction bidirectional')
            if hidden_init.shape[0] != 1 or hidden_init.shape[1] != 2 or hidden_init.shape[2] != batch_size or hidden_init.shape[3] != hidden_size:
                raise _rt.shape_error(_OP, 'hidden_init', ('1', '2', 'batch_size', 'hidden_size'), hidden_init.shape, {'batch_size': batch_size, 'hidden_size': hidden_size}, 'direction bidirectional')
        if sequence_lengths is not None:
            if sequence_lengths.ndim != 4:
                raise _rt.shape_error(_OP, 'sequence_lengths', ('1', '1', '1', 'batch_size'), sequence_lengths.shape, {'batch_size': batch_size}, 'direction bidirectional')
            if sequence_lengths.shape[0] != 1 or sequence_lengths.shape[1] != 1 or sequence_lengths.shape[2] != 1 or sequence_lengths.shape[3] != batch_size:
                raise _rt.shape_error(_OP, 'sequence_lengths', ('1', '1', '1', 'batch_size'), sequence_lengths.shape, {'batch_size': batch_size}, 'direction bidirectional')
        _shape_output_sequence = [seq_length, 2, batch_size, hidden_size]
        _shape_output_single = [1, 2, batch_size, hidden_size]
    else:
        raise AssertionError(direction)
    output_sequence = _backend.empty(_shape_output_sequence, _dtype_T)
    output_single = _backend.empty(_shape_output_single, _dtype_T)
    return DmlRnnOutputs(output_sequence, output_single)
