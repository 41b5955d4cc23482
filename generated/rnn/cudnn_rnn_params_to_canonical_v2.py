# generated from specs/rnn/cudnn_rnn_params_to_canonical_v2.yaml by opgen — do not edit (opgen 0.1.0)
"""CudnnRNNParamsToCanonicalV2: Retrieves CudnnRNN params in canonical form. It supports the projection in LSTM."""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

from codegen.runtime import api as _rt
from codegen.runtime.scope import Scope

# isort: split
from opgen_ops.cudnn_rnn import params_to_canonical as _runtime
from opgen_ops.cudnn_rnn import params_to_canonical_fake as _fake_outputs

_OP = 'CudnnRNNParamsToCanonicalV2'

RnnMode = Literal['rnn_relu', 'rnn_tanh', 'lstm', 'gru']

InputMode = Literal['linear_input', 'skip_input', 'auto_select']

Direction = Literal['unidirectional', 'bidirectional']


class CudnnRNNParamsToCanonicalV2Outputs(NamedTuple):
    """The outputs of CudnnRNNParamsToCanonicalV2, in order."""

    weights: Any
    """list of T, each of shape [rows, cols]. The canonical weight matrices, in cuDNN's order."""
    biases: Any
    """list of T, each of shape [units]. The canonical biases, in cuDNN's order."""


class CudnnRNNParamsToCanonicalV2:
    """Retrieves CudnnRNN params in canonical form. It supports the projection in LSTM.

    Retrieves a set of weights from the opaque params buffer that can be saved and restored in a
    way compatible with future runs: the canonical weights and biases in cuDNN's order, which is
    PyTorch's (see CudnnRNNParamsSize for the order and the layout). The tensors are copies.
    num_params_weights and num_params_biases must be the counts of this configuration: per
    pseudo-layer 2·G weights (G on layer 0 with skip_input) plus one projection with num_proj, and
    2·G biases, G being 4 (lstm), 3 (gru) or 1 (rnn_relu, rnn_tanh).

    Create it with `CudnnRNNParamsToCanonicalV2.create(scope, num_layers, num_units, input_size, params, num_params_weights, num_params_biases, *options)`, or call
    `cudnn_rnn_params_to_canonical_v2(...)`. The reference page is generated/docs/rnn/cudnn_rnn_params_to_canonical_v2.md.
    """

    OP_NAME = 'CudnnRNNParamsToCanonicalV2'
    Outputs = CudnnRNNParamsToCanonicalV2Outputs

    class Options:
        """Optional attributes for CudnnRNNParamsToCanonicalV2; each setter returns the Options, so calls chain."""

        __slots__ = ("_values",)

        def __init__(self) -> None:
            self._values: dict[str, Any] = {}

        def rnn_mode(self, rnn_mode: RnnMode) -> CudnnRNNParamsToCanonicalV2.Options:
            """Sets rnn_mode (default 'lstm'). Indicates the type of the RNN model."""
            self._values['rnn_mode'] = rnn_mode
            return self

        def input_mode(self, input_mode: InputMode) -> CudnnRNNParamsToCanonicalV2.Options:
            """Sets input_mode (default 'linear_input'). Indicates whether there is a linear projection between the input and the actual computation before the first layer. 'skip_input' is only allowed when input_size == num_units (layer 0 then has no input matrices); 'auto_select' implies 'skip_input' when input_size == num_units; otherwise, it implies 'linear_input'."""
            self._values['input_mode'] = input_mode
            return self

        def direction(self, direction: Direction) -> CudnnRNNParamsToCanonicalV2.Options:
            """Sets direction (default 'unidirectional'). Indicates whether a bidirectional model will be used."""
            self._values['direction'] = direction
            return self

        def dropout(self, dropout: float) -> CudnnRNNParamsToCanonicalV2.Options:
            """Sets dropout (default 0.0). Dropout probability (does not change the layout)."""
            self._values['dropout'] = dropout
            return self

        def seed(self, seed: int) -> CudnnRNNParamsToCanonicalV2.Options:
            """Sets seed (default 0). The 1st part of a seed to initialize dropout (does not change the layout)."""
            self._values['seed'] = seed
            return self

        def seed2(self, seed2: int) -> CudnnRNNParamsToCanonicalV2.Options:
            """Sets seed2 (default 0). The 2nd part of a seed to initialize dropout (does not change the layout)."""
            self._values['seed2'] = seed2
            return self

        def num_proj(self, num_proj: int) -> CudnnRNNParamsToCanonicalV2.Options:
            """Sets num_proj (default 0). The output size of the LSTM projection (0: no projection; lstm only)."""
            self._values['num_proj'] = num_proj
            return self

        def __repr__(self) -> str:
            items = ", ".join(f"{key}={value!r}" for key, value in self._values.items())
            return f"CudnnRNNParamsToCanonicalV2.Options({items})"

    @staticmethod
    def rnn_mode(rnn_mode: RnnMode) -> CudnnRNNParamsToCanonicalV2.Options:
        """Options with rnn_mode set (default 'lstm')."""
        return CudnnRNNParamsToCanonicalV2.Options().rnn_mode(rnn_mode)

    @staticmethod
    def input_mode(input_mode: InputMode) -> CudnnRNNParamsToCanonicalV2.Options:
        """Options with input_mode set (default 'linear_input')."""
        return CudnnRNNParamsToCanonicalV2.Options().input_mode(input_mode)

    @staticmethod
    def direction(direction: Direction) -> CudnnRNNParamsToCanonicalV2.Options:
        """Options with direction set (default 'unidirectional')."""
        return CudnnRNNParamsToCanonicalV2.Options().direction(direction)

    @staticmethod
    def dropout(dropout: float) -> CudnnRNNParamsToCanonicalV2.Options:
        """Options with dropout set (default 0.0)."""
        return CudnnRNNParamsToCanonicalV2.Options().dropout(dropout)

    @staticmethod
    def seed(seed: int) -> CudnnRNNParamsToCanonicalV2.Options:
        """Options with seed set (default 0)."""
        return CudnnRNNParamsToCanonicalV2.Options().seed(seed)

    @staticmethod
    def seed2(seed2: int) -> CudnnRNNParamsToCanonicalV2.Options:
        """Options with seed2 set (default 0)."""
        return CudnnRNNParamsToCanonicalV2.Options().seed2(seed2)

    @staticmethod
    def num_proj(num_proj: int) -> CudnnRNNParamsToCanonicalV2.Options:
        """Options with num_proj set (default 0)."""
        return CudnnRNNParamsToCanonicalV2.Options().num_proj(num_proj)

    @classmethod
    def create(
        cls,
        scope: Scope | str | None,
        num_layers: Any,
        num_units: Any,
        input_size: Any,
        params: Any,
        num_params_weights: int,
        num_params_biases: int,
        *options: CudnnRNNParamsToCanonicalV2.Options,
    ) -> CudnnRNNParamsToCanonicalV2:
        """Factory method to create a class wrapping a new CudnnRNNParamsToCanonicalV2 operation.

        Args:
            scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).
            num_layers: int32, shape [].
                Specifies the number of layers in the RNN model (≥ 1).
            num_units: int32, shape [].
                Specifies the size of the hidden state (≥ 1).
            input_size: int32, shape [].
                Specifies the size of the input state.
            params: T, shape [params_len].
                The opaque params buffer (CudnnRNNParamsSize elements).
            num_params_weights: int, >= 1.
                The number of canonical weight tensors.
            num_params_biases: int, >= 1.
                The number of canonical bias tensors.
            options: CudnnRNNParamsToCanonicalV2.Options carrying optional attribute values.

        Raises:
            TypeError: an argument has the wrong type or dtype.
            ValueError: a shape or an attribute value is not valid.
        """
        _merged = _rt.merge_options(_OP, options, cls.Options)
        return cls(_run(
            scope, num_layers, num_units, input_size, params,
            num_params_weights,
            num_params_biases,
            _merged.get('rnn_mode', 'lstm'),
            _merged.get('input_mode', 'linear_input'),
            _merged.get('direction', 'unidirectional'),
            _merged.get('dropout', 0.0),
            _merged.get('seed', 0),
            _merged.get('seed2', 0),
            _merged.get('num_proj', 0),
        ))

    def __init__(self, outputs: CudnnRNNParamsToCanonicalV2Outputs) -> None:
        self._outputs = outputs

    @property
    def weights(self) -> Any:
        """The canonical weight matrices, in cuDNN's order."""
        return self._outputs.weights

    @property
    def biases(self) -> Any:
        """The canonical biases, in cuDNN's order."""
        return self._outputs.biases

    def output_tuple(self) -> CudnnRNNParamsToCanonicalV2Outputs:
        """All outputs, in order."""
        return self._outputs

    def __repr__(self) -> str:
        return _rt.op_repr(_OP, self._outputs)


def cudnn_rnn_params_to_canonical_v2(
    num_layers: Any,
    num_units: Any,
    input_size: Any,
    params: Any,
    *,
    num_params_weights: int,
    num_params_biases: int,
    rnn_mode: RnnMode = 'lstm',
    input_mode: InputMode = 'linear_input',
    direction: Direction = 'unidirectional',
    dropout: float = 0.0,
    seed: int = 0,
    seed2: int = 0,
    num_proj: int = 0,
    scope: Scope | str | None = None,
) -> CudnnRNNParamsToCanonicalV2Outputs:
    """Retrieves CudnnRNN params in canonical form. It supports the projection in LSTM.

    Args:
        num_layers: int32, shape [].
            Specifies the number of layers in the RNN model (≥ 1).
        num_units: int32, shape [].
            Specifies the size of the hidden state (≥ 1).
        input_size: int32, shape [].
            Specifies the size of the input state.
        params: T, shape [params_len].
            The opaque params buffer (CudnnRNNParamsSize elements).
        num_params_weights: int, >= 1.
            The number of canonical weight tensors.
        num_params_biases: int, >= 1.
            The number of canonical bias tensors.
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
        CudnnRNNParamsToCanonicalV2Outputs(weights, biases).

    Raises:
        TypeError: an argument has the wrong type or dtype.
        ValueError: a shape or an attribute value is not valid.
    """
    _torch = _rt.torch_call(num_layers, num_units, input_size, params)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'num_layers': num_layers, 'num_units': num_units, 'input_size': input_size, 'params': params}, (num_params_weights, num_params_biases, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj))
    return _compute(scope, num_layers, num_units, input_size, params, num_params_weights, num_params_biases, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj)


def _run(scope: Scope | str | None, num_layers: Any, num_units: Any, input_size: Any, params: Any, num_params_weights: Any, num_params_biases: Any, rnn_mode: Any, input_mode: Any, direction: Any, dropout: Any, seed: Any, seed2: Any, num_proj: Any) -> CudnnRNNParamsToCanonicalV2Outputs:
    _torch = _rt.torch_call(num_layers, num_units, input_size, params)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'num_layers': num_layers, 'num_units': num_units, 'input_size': input_size, 'params': params}, (num_params_weights, num_params_biases, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj))
    return _compute(scope, num_layers, num_units, input_size, params, num_params_weights, num_params_biases, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj)


def _compute(scope: Scope | str | None, num_layers: Any, num_units: Any, input_size: Any, params: Any, num_params_weights: Any, num_params_biases: Any, rnn_mode: Any, input_mode: Any, direction: Any, dropout: Any, seed: Any, seed2: Any, num_proj: Any) -> CudnnRNNParamsToCanonicalV2Outputs:
    _backend = _rt.backend_of(scope, _OP)
    num_params_weights = _rt.check_int(_OP, 'num_params_weights', num_params_weights, 1, None, None)
    num_params_biases = _rt.check_int(_OP, 'num_params_biases', num_params_biases, 1, None, None)
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
    params = _backend.adopt(_OP, 'params', params)
    _dtype_T = _rt.check_dtype(_OP, 'params', params, ('float16', 'float32', 'float64'), 'T')
    if num_layers.ndim != 0:
        raise _rt.shape_error(_OP, 'num_layers', (), num_layers.shape, {}, '')
    if num_units.ndim != 0:
        raise _rt.shape_error(_OP, 'num_units', (), num_units.shape, {}, '')
    if input_size.ndim != 0:
        raise _rt.shape_error(_OP, 'input_size', (), input_size.shape, {}, '')
    if params.ndim != 1:
        raise _rt.shape_error(_OP, 'params', ('params_len',), params.shape, {}, '')
    return CudnnRNNParamsToCanonicalV2Outputs(*_runtime(_OP, _backend, num_layers=num_layers, num_units=num_units, input_size=input_size, params=params, num_params_weights=num_params_weights, num_params_biases=num_params_biases, rnn_mode=rnn_mode, input_mode=input_mode, direction=direction, dropout=dropout, seed=seed, seed2=seed2, num_proj=num_proj))


def _fake(_backend: Any, num_layers: Any, num_units: Any, input_size: Any, params: Any, num_params_weights: Any, num_params_biases: Any, rnn_mode: Any, input_mode: Any, direction: Any, dropout: Any, seed: Any, seed2: Any, num_proj: Any) -> CudnnRNNParamsToCanonicalV2Outputs:
    """The outputs of a call as empty tensors of the right shapes and dtypes, made by `_backend`
    (the torch registration's fake implementation: nothing runs, no data is read)."""
    return CudnnRNNParamsToCanonicalV2Outputs(*_fake_outputs(_OP, _backend, num_layers=num_layers, num_units=num_units, input_size=input_size, params=params, num_params_weights=num_params_weights, num_params_biases=num_params_biases, rnn_mode=rnn_mode, input_mode=input_mode, direction=direction, dropout=dropout, seed=seed, seed2=seed2, num_proj=num_proj))
