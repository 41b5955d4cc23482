# generated from specs/rnn/cudnn_rnn_canonical_to_params_v2.yaml by opgen — do not edit (opgen 0.1.0)
"""CudnnRNNCanonicalToParamsV2: Converts CudnnRNN params from canonical form to usable form. It supports the projection in LSTM."""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

from codegen.runtime import api as _rt
from codegen.runtime.scope import Scope

# isort: split
from opgen_ops.cudnn_rnn import canonical_to_params as _runtime
from opgen_ops.cudnn_rnn import canonical_to_params_fake as _fake_outputs

_OP = 'CudnnRNNCanonicalToParamsV2'

RnnMode = Literal['rnn_relu', 'rnn_tanh', 'lstm', 'gru']

InputMode = Literal['linear_input', 'skip_input', 'auto_select']

Direction = Literal['unidirectional', 'bidirectional']


class CudnnRNNCanonicalToParamsV2Outputs(NamedTuple):
    """The outputs of CudnnRNNCanonicalToParamsV2, in order."""

    params: Any
    """T, shape [params_size]. The opaque params buffer (CudnnRNNParamsSize elements)."""


class CudnnRNNCanonicalToParamsV2:
    """Converts CudnnRNN params from canonical form to usable form. It supports the projection in LSTM.

    Writes a set of weights into the opaque params buffer so they can be used in upcoming training
    or inferences. The canonical weights and biases come in cuDNN's order, which is PyTorch's, so
    weights move between this op, TensorFlow and PyTorch without reordering (see
    CudnnRNNParamsSize for the order and the layout). Each tensor's shape is checked against its
    place in the layout; num_params_weights and num_params_biases, when not 0, must equal the
    lists' lengths (TensorFlow infers them from the lists).

    Create it with `CudnnRNNCanonicalToParamsV2.create(scope, num_layers, num_units, input_size, weights, biases, *options)`, or call
    `cudnn_rnn_canonical_to_params_v2(...)`. The reference page is generated/docs/rnn/cudnn_rnn_canonical_to_params_v2.md.
    """

    OP_NAME = 'CudnnRNNCanonicalToParamsV2'
    Outputs = CudnnRNNCanonicalToParamsV2Outputs

    class Options:
        """Optional attributes for CudnnRNNCanonicalToParamsV2; each setter returns the Options, so calls chain."""

        __slots__ = ("_values",)

        def __init__(self) -> None:
            self._values: dict[str, Any] = {}

        def num_params_weights(self, num_params_weights: int) -> CudnnRNNCanonicalToParamsV2.Options:
            """Sets num_params_weights (default 0). The number of weight tensors (0: the length of weights)."""
            self._values['num_params_weights'] = num_params_weights
            return self

        def num_params_biases(self, num_params_biases: int) -> CudnnRNNCanonicalToParamsV2.Options:
            """Sets num_params_biases (default 0). The number of bias tensors (0: the length of biases)."""
            self._values['num_params_biases'] = num_params_biases
            return self

        def rnn_mode(self, rnn_mode: RnnMode) -> CudnnRNNCanonicalToParamsV2.Options:
            """Sets rnn_mode (default 'lstm'). Indicates the type of the RNN model."""
            self._values['rnn_mode'] = rnn_mode
            return self

        def input_mode(self, input_mode: InputMode) -> CudnnRNNCanonicalToParamsV2.Options:
            """Sets input_mode (default 'linear_input'). Indicates whether there is a linear projection between the input and the actual computation before the first layer. 'skip_input' is only allowed when input_size == num_units (layer 0 then has no input matrices); 'auto_select' implies 'skip_input' when input_size == num_units; otherwise, it implies 'linear_input'."""
            self._values['input_mode'] = input_mode
            return self

        def direction(self, direction: Direction) -> CudnnRNNCanonicalToParamsV2.Options:
            """Sets direction (default 'unidirectional'). Indicates whether a bidirectional model will be used."""
            self._values['direction'] = direction
            return self

        def dropout(self, dropout: float) -> CudnnRNNCanonicalToParamsV2.Options:
            """Sets dropout (default 0.0). Dropout probability (does not change the layout)."""
            self._values['dropout'] = dropout
            return self

        def seed(self, seed: int) -> CudnnRNNCanonicalToParamsV2.Options:
            """Sets seed (default 0). The 1st part of a seed to initialize dropout (does not change the layout)."""
            self._values['seed'] = seed
            return self

        def seed2(self, seed2: int) -> CudnnRNNCanonicalToParamsV2.Options:
            """Sets seed2 (default 0). The 2nd part of a seed to initialize dropout (does not change the layout)."""
            self._values['seed2'] = seed2
            return self

        def num_proj(self, num_proj: int) -> CudnnRNNCanonicalToParamsV2.Options:
            """Sets num_proj (default 0). The output size of the LSTM projection (0: no projection; lstm only)."""
            self._values['num_proj'] = num_proj
            return self

        def __repr__(self) -> str:
            items = ", ".join(f"{key}={value!r}" for key, value in self._values.items())
            return f"CudnnRNNCanonicalToParamsV2.Options({items})"

    @staticmethod
    def num_params_weights(num_params_weights: int) -> CudnnRNNCanonicalToParamsV2.Options:
        """Options with num_params_weights set (default 0)."""
        return CudnnRNNCanonicalToParamsV2.Options().num_params_weights(num_params_weights)

    @staticmethod
    def num_params_biases(num_params_biases: int) -> CudnnRNNCanonicalToParamsV2.Options:
        """Options with num_params_biases set (default 0)."""
        return CudnnRNNCanonicalToParamsV2.Options().num_params_biases(num_params_biases)

    @staticmethod
    def rnn_mode(rnn_mode: RnnMode) -> CudnnRNNCanonicalToParamsV2.Options:
        """Options with rnn_mode set (default 'lstm')."""
        return CudnnRNNCanonicalToParamsV2.Options().rnn_mode(rnn_mode)

    @staticmethod
    def input_mode(input_mode: InputMode) -> CudnnRNNCanonicalToParamsV2.Options:
        """Options with input_mode set (default 'linear_input')."""
        return CudnnRNNCanonicalToParamsV2.Options().input_mode(input_mode)

    @staticmethod
    def direction(direction: Direction) -> CudnnRNNCanonicalToParamsV2.Options:
        """Options with direction set (default 'unidirectional')."""
        return CudnnRNNCanonicalToParamsV2.Options().direction(direction)

    @staticmethod
    def dropout(dropout: float) -> CudnnRNNCanonicalToParamsV2.Options:
        """Options with dropout set (default 0.0)."""
        return CudnnRNNCanonicalToParamsV2.Options().dropout(dropout)

    @staticmethod
    def seed(seed: int) -> CudnnRNNCanonicalToParamsV2.Options:
        """Options with seed set (default 0)."""
        return CudnnRNNCanonicalToParamsV2.Options().seed(seed)

    @staticmethod
    def seed2(seed2: int) -> CudnnRNNCanonicalToParamsV2.Options:
        """Options with seed2 set (default 0)."""
        return CudnnRNNCanonicalToParamsV2.Options().seed2(seed2)

    @staticmethod
    def num_proj(num_proj: int) -> CudnnRNNCanonicalToParamsV2.Options:
        """Options with num_proj set (default 0)."""
        return CudnnRNNCanonicalToParamsV2.Options().num_proj(num_proj)

    @classmethod
    def create(
        cls,
        scope: Scope | str | None,
        num_layers: Any,
        num_units: Any,
        input_size: Any,
        weights: Any,
        biases: Any,
        *options: CudnnRNNCanonicalToParamsV2.Options,
    ) -> CudnnRNNCanonicalToParamsV2:
        """Factory method to create a class wrapping a new CudnnRNNCanonicalToParamsV2 operation.

        Args:
            scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).
            num_layers: int32, shape [].
                Specifies the number of layers in the RNN model (≥ 1).
            num_units: int32, shape [].
                Specifies the size of the hidden state (≥ 1).
            input_size: int32, shape [].
                Specifies the size of the input state.
            weights: list of T.
                The canonical weight matrices: per pseudo-layer W_0 … W_{G−1}
                [num_units, in], R_0 … R_{G−1} [num_units, Hh], and P_proj [num_proj,
                num_units] with a projection.
            biases: list of T.
                The canonical biases: per pseudo-layer bW_0 … bW_{G−1}, bR_0 … bR_{G−1},
                each [num_units].
            options: CudnnRNNCanonicalToParamsV2.Options carrying optional attribute values.

        Raises:
            TypeError: an argument has the wrong type or dtype.
            ValueError: a shape or an attribute value is not valid.
        """
        _merged = _rt.merge_options(_OP, options, cls.Options)
        return cls(_run(
            scope, num_layers, num_units, input_size, weights, biases,
            _merged.get('num_params_weights', 0),
            _merged.get('num_params_biases', 0),
            _merged.get('rnn_mode', 'lstm'),
            _merged.get('input_mode', 'linear_input'),
            _merged.get('direction', 'unidirectional'),
            _merged.get('dropout', 0.0),
            _merged.get('seed', 0),
            _merged.get('seed2', 0),
            _merged.get('num_proj', 0),
        ))

    def __init__(self, outputs: CudnnRNNCanonicalToParamsV2Outputs) -> None:
        self._outputs = outputs

    @property
    def params(self) -> Any:
        """The opaque params buffer (CudnnRNNParamsSize elements)."""
        return self._outputs.params

    def output_tuple(self) -> CudnnRNNCanonicalToParamsV2Outputs:
        """All outputs, in order."""
        return self._outputs

    def __repr__(self) -> str:
        return _rt.op_repr(_OP, self._outputs)


def cudnn_rnn_canonical_to_params_v2(
    num_layers: Any,
    num_units: Any,
    input_size: Any,
    weights: Any,
    biases: Any,
    *,
    num_params_weights: int = 0,
    num_params_biases: int = 0,
    rnn_mode: RnnMode = 'lstm',
    input_mode: InputMode = 'linear_input',
    direction: Direction = 'unidirectional',
    dropout: float = 0.0,
    seed: int = 0,
    seed2: int = 0,
    num_proj: int = 0,
    scope: Scope | str | None = None,
) -> CudnnRNNCanonicalToParamsV2Outputs:
    """Converts CudnnRNN params from canonical form to usable form. It supports the projection in LSTM.

    Args:
        num_layers: int32, shape [].
            Specifies the number of layers in the RNN model (≥ 1).
        num_units: int32, shape [].
            Specifies the size of the hidden state (≥ 1).
        input_size: int32, shape [].
            Specifies the size of the input state.
        weights: list of T.
            The canonical weight matrices: per pseudo-layer W_0 … W_{G−1} [num_units,
            in], R_0 … R_{G−1} [num_units, Hh], and P_proj [num_proj, num_units] with a
            projection.
        biases: list of T.
            The canonical biases: per pseudo-layer bW_0 … bW_{G−1}, bR_0 … bR_{G−1},
            each [num_units].
        num_params_weights: int, >= 0; default 0.
            The number of weight tensors (0: the length of weights).
        num_params_biases: int, >= 0; default 0.
            The number of bias tensors (0: the length of biases).
        rnn_mode: enum in ['rnn_relu', 'rnn_tanh', 'lstm', 'gru']; default 'lstm'.
            Indicates the type of the RNN model.
        input_mode: enum in ['linear_input', 'skip_input', 'auto_select']; default 'linear_input'.
            Indicates whether there is a linear projection between the input and the
            actual computation before the first layer. 'skip_input' is only allowed when
            input_size == num_units (layer 0 then has no input matrices); 'auto_select'
            implies 'skip_input' when input_size == num_units; otherwise, it implies
            'linear_input'.
        direction: enum in ['unidirectional', 'bidirectional']; default 'unidirectional'.
            Indicates whether a bidirectional model will be used.
        dropout: float, >= 0, <= 1; default 0.0.
            Dropout probability (does not change the layout).
        seed: int; default 0.
            The 1st part of a seed to initialize dropout (does not change the layout).
        seed2: int; default 0.
            The 2nd part of a seed to initialize dropout (does not change the layout).
        num_proj: int, >= 0; default 0.
            The output size of the LSTM projection (0: no projection; lstm only).
        scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).

    Returns:
        CudnnRNNCanonicalToParamsV2Outputs(params).

    Raises:
        TypeError: an argument has the wrong type or dtype.
        ValueError: a shape or an attribute value is not valid.
    """
    _torch = _rt.torch_call(num_layers, num_units, input_size, weights, biases)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'num_layers': num_layers, 'num_units': num_units, 'input_size': input_size, 'weights': weights, 'biases': biases}, (num_params_weights, num_params_biases, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj))
    return _compute(scope, num_layers, num_units, input_size, weights, biases, num_params_weights, num_params_biases, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj)


def _run(scope: Scope | str | None, num_layers: Any, num_units: Any, input_size: Any, weights: Any, biases: Any, num_params_weights: Any, num_params_biases: Any, rnn_mode: Any, input_mode: Any, direction: Any, dropout: Any, seed: Any, seed2: Any, num_proj: Any) -> CudnnRNNCanonicalToParamsV2Outputs:
    _torch = _rt.torch_call(num_layers, num_units, input_size, weights, biases)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'num_layers': num_layers, 'num_units': num_units, 'input_size': input_size, 'weights': weights, 'biases': biases}, (num_params_weights, num_params_biases, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj))
    return _compute(scope, num_layers, num_units, input_size, weights, biases, num_params_weights, num_params_biases, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj)


def _compute(scope: Scope | str | None, num_layers: Any, num_units: Any, input_size: Any, weights: Any, biases: Any, num_params_weights: Any, num_params_biases: Any, rnn_mode: Any, input_mode: Any, direction: Any, dropout: Any, seed: Any, seed2: Any, num_proj: Any) -> CudnnRNNCanonicalToParamsV2Outputs:
    _backend = _rt.backend_of(scope, _OP)
    num_params_weights = _rt.check_int(_OP, 'num_params_weights', num_params_weights, 0, None, None)
    num_params_biases = _rt.check_int(_OP, 'num_params_biases', num_params_biases, 0, None, None)
    rnn_mode = _rt.check_enum(_OP, 'rnn_mode', rnn_mode, ('rnn_relu', 'rnn_tanh', 'lstm', 'gru'))
    input_mode = _rt.check_enum(_OP, 'input_mode', input_mode, ('linear_input', 'skip_input', 'auto_select'))
    direction = _rt.check_enum(_OP, 'direction', direction, ('unidirectional', 'bidirectional'))
    dropout = _rt.check_float(_OP, 'dropout', dropout, 0, 1)
    seed = _rt.check_int(_OP, 'seed', seed, None, None, None)
    seed2 = _rt.check_int(_OP, 'seed2', seed2, None, None, None)
    num_proj = _rt.check_int(_OP, 'num_proj', num_proj, 0, None, None)
    num_layers = _rt.python_int(_OP, 'num_layers', num_layers, 'int32')
    num_layers = _backend.adopt(_OP, 'num_layers', num_layers)
    _rt.check_dtype(_OP, 'num_layers', num_layers, ('int32',))
    num_units = _rt.python_int(_OP, 'num_units', num_units, 'int32')
    num_units = _backend.adopt(_OP, 'num_units', num_units)
    _rt.check_dtype(_OP, 'num_units', num_units, ('int32',))
    input_size = _rt.python_int(_OP, 'input_size', input_size, 'int32')
    input_size = _backend.adopt(_OP, 'input_size', input_size)
    _rt.check_dtype(_OP, 'input_size', input_size, ('int32',))
    weights = [_backend.adopt(_OP, f'weights[{_i}]', _v) for _i, _v in enumerate(_rt.check_list(_OP, 'weights', weights))]
    if not weights:
        raise ValueError(f'{_OP}: weights: expected a non-empty list of arrays')
    _dtype_T = _rt.check_dtype(_OP, 'weights[0]', weights[0], ('float16', 'float32', 'float64'), 'T')
    for _i, _item in enumerate(weights):
        _rt.check_same_dtype(_OP, f'weights[{_i}]', _item, _dtype_T, 'T', 'weights[0]')
    biases = [_backend.adopt(_OP, f'biases[{_i}]', _v) for _i, _v in enumerate(_rt.check_list(_OP, 'biases', biases))]
    if not biases:
        raise ValueError(f'{_OP}: biases: expected a non-empty list of arrays')
    _rt.check_same_dtype(_OP, 'biases[0]', biases[0], _dtype_T, 'T', 'weights[0]')
    for _i, _item in enumerate(biases):
        _rt.check_same_dtype(_OP, f'biases[{_i}]', _item, _dtype_T, 'T', 'weights[0]')
    if num_layers.ndim != 0:
        raise _rt.shape_error(_OP, 'num_layers', (), num_layers.shape, {}, '')
    if num_units.ndim != 0:
        raise _rt.shape_error(_OP, 'num_units', (), num_units.shape, {}, '')
    if input_size.ndim != 0:
        raise _rt.shape_error(_OP, 'input_size', (), input_size.shape, {}, '')
    return CudnnRNNCanonicalToParamsV2Outputs(*_runtime(_OP, _backend, num_layers=num_layers, num_units=num_units, input_size=input_size, weights=weights, biases=biases, num_params_weights=num_params_weights, num_params_biases=num_params_biases, rnn_mode=rnn_mode, input_mode=input_mode, direction=direction, dropout=dropout, seed=seed, seed2=seed2, num_proj=num_proj))


def _fake(_backend: Any, num_layers: Any, num_units: Any, input_size: Any, weights: Any, biases: Any, num_params_weights: Any, num_params_biases: Any, rnn_mode: Any, input_mode: Any, direction: Any, dropout: Any, seed: Any, seed2: Any, num_proj: Any) -> CudnnRNNCanonicalToParamsV2Outputs:
    """The outputs of a call as empty tensors of the right shapes and dtypes, made by `_backend`
    (the torch registration's fake implementation: nothing runs, no data is read)."""
    return CudnnRNNCanonicalToParamsV2Outputs(*_fake_outputs(_OP, _backend, num_layers=num_layers, num_units=num_units, input_size=input_size, weights=weights, biases=biases, num_params_weights=num_params_weights, num_params_biases=num_params_biases, rnn_mode=rnn_mode, input_mode=input_mode, direction=direction, dropout=dropout, seed=seed, seed2=seed2, num_proj=num_proj))
