# generated from specs/rnn/cudnn_rnn_params_size.yaml by opgen — do not edit (opgen 0.1.0)
"""CudnnRNNParamsSize: Computes size of weights that can be used by a Cudnn RNN model."""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

from codegen.runtime import api as _rt
from codegen.runtime.scope import Scope

# isort: split
from opgen_ops.cudnn_rnn import params_size as _runtime
from opgen_ops.cudnn_rnn import params_size_fake as _fake_outputs

_OP = 'CudnnRNNParamsSize'

RnnMode = Literal['rnn_relu', 'rnn_tanh', 'lstm', 'gru']

InputMode = Literal['linear_input', 'skip_input', 'auto_select']

Direction = Literal['unidirectional', 'bidirectional']


class CudnnRNNParamsSizeOutputs(NamedTuple):
    """The outputs of CudnnRNNParamsSize, in order."""

    params_size: Any
    """s, shape [1]. The number of elements of the params buffer."""


class CudnnRNNParamsSize:
    """Computes size of weights that can be used by a Cudnn RNN model.

    Return the params size that can be used by the Cudnn RNN model. Subsequent weight allocation
    and initialization should use this size. The size is a number of elements (of any t: the
    layout has no padding), returned as a [1] tensor of dtype s.

    The opaque layout (this project's own; cuDNN's is device-specific) is the canonical weights,
    then the canonical biases, each flattened row-major and concatenated in cuDNN's order, which
    is PyTorch's: per pseudo-layer p = l·D + d (layer-major, the forward direction before the
    backward one), with G gates (lstm 4: i, f, c, o; gru 3: r, u, h; rnn_relu and rnn_tanh 1),
    H = num_units, Hh = num_proj or H, and in = input_size on layer 0 (none with skip_input),
    D·Hh above:

        weights of p:  W_0 … W_{G−1}, each [H, in]   (PyTorch's weight_ih_l{l} row blocks)
                       R_0 … R_{G−1}, each [H, Hh]   (weight_hh_l{l})
                       P_proj [P, H]                 (lstm with num_proj only: weight_hr_l{l})
        biases of p:   bW_0 … bW_{G−1}, bR_0 … bR_{G−1}, each [H]   (bias_ih_l{l}, bias_hh_l{l})

    So the W matrices of one pseudo-layer form one [G·H, in] matrix and its R matrices one
    [G·H, Hh] matrix, which CudnnRNNV3 multiplies in one GEMM each; the params hold
    L·D·(G·H·(in + Hh) + P·H + 2·G·H) elements in all (with in per layer), no padding.

    Create it with `CudnnRNNParamsSize.create(scope, num_layers, num_units, input_size, t, s, *options)`, or call
    `cudnn_rnn_params_size(...)`. The reference page is generated/docs/rnn/cudnn_rnn_params_size.md.
    """

    OP_NAME = 'CudnnRNNParamsSize'
    Outputs = CudnnRNNParamsSizeOutputs

    class Options:
        """Optional attributes for CudnnRNNParamsSize; each setter returns the Options, so calls chain."""

        __slots__ = ("_values",)

        def __init__(self) -> None:
            self._values: dict[str, Any] = {}

        def rnn_mode(self, rnn_mode: RnnMode) -> CudnnRNNParamsSize.Options:
            """Sets rnn_mode (default 'lstm'). Indicates the type of the RNN model."""
            self._values['rnn_mode'] = rnn_mode
            return self

        def input_mode(self, input_mode: InputMode) -> CudnnRNNParamsSize.Options:
            """Sets input_mode (default 'linear_input'). Indicates whether there is a linear projection between the input and the actual computation before the first layer. 'skip_input' is only allowed when input_size == num_units (layer 0 then has no input matrices); 'auto_select' implies 'skip_input' when input_size == num_units; otherwise, it implies 'linear_input'."""
            self._values['input_mode'] = input_mode
            return self

        def direction(self, direction: Direction) -> CudnnRNNParamsSize.Options:
            """Sets direction (default 'unidirectional'). Indicates whether a bidirectional model will be used."""
            self._values['direction'] = direction
            return self

        def dropout(self, dropout: float) -> CudnnRNNParamsSize.Options:
            """Sets dropout (default 0.0). Dropout probability (does not change the layout)."""
            self._values['dropout'] = dropout
            return self

        def seed(self, seed: int) -> CudnnRNNParamsSize.Options:
            """Sets seed (default 0). The 1st part of a seed to initialize dropout (does not change the layout)."""
            self._values['seed'] = seed
            return self

        def seed2(self, seed2: int) -> CudnnRNNParamsSize.Options:
            """Sets seed2 (default 0). The 2nd part of a seed to initialize dropout (does not change the layout)."""
            self._values['seed2'] = seed2
            return self

        def num_proj(self, num_proj: int) -> CudnnRNNParamsSize.Options:
            """Sets num_proj (default 0). The output size of the LSTM projection (0: no projection; lstm only)."""
            self._values['num_proj'] = num_proj
            return self

        def __repr__(self) -> str:
            items = ", ".join(f"{key}={value!r}" for key, value in self._values.items())
            return f"CudnnRNNParamsSize.Options({items})"

    @staticmethod
    def rnn_mode(rnn_mode: RnnMode) -> CudnnRNNParamsSize.Options:
        """Options with rnn_mode set (default 'lstm')."""
        return CudnnRNNParamsSize.Options().rnn_mode(rnn_mode)

    @staticmethod
    def input_mode(input_mode: InputMode) -> CudnnRNNParamsSize.Options:
        """Options with input_mode set (default 'linear_input')."""
        return CudnnRNNParamsSize.Options().input_mode(input_mode)

    @staticmethod
    def direction(direction: Direction) -> CudnnRNNParamsSize.Options:
        """Options with direction set (default 'unidirectional')."""
        return CudnnRNNParamsSize.Options().direction(direction)

    @staticmethod
    def dropout(dropout: float) -> CudnnRNNParamsSize.Options:
        """Options with dropout set (default 0.0)."""
        return CudnnRNNParamsSize.Options().dropout(dropout)

    @staticmethod
    def seed(seed: int) -> CudnnRNNParamsSize.Options:
        """Options with seed set (default 0)."""
        return CudnnRNNParamsSize.Options().seed(seed)

    @staticmethod
    def seed2(seed2: int) -> CudnnRNNParamsSize.Options:
        """Options with seed2 set (default 0)."""
        return CudnnRNNParamsSize.Options().seed2(seed2)

    @staticmethod
    def num_proj(num_proj: int) -> CudnnRNNParamsSize.Options:
        """Options with num_proj set (default 0)."""
        return CudnnRNNParamsSize.Options().num_proj(num_proj)

    @classmethod
    def create(
        cls,
        scope: Scope | str | None,
        num_layers: Any,
        num_units: Any,
        input_size: Any,
        t: str,
        s: str,
        *options: CudnnRNNParamsSize.Options,
    ) -> CudnnRNNParamsSize:
        """Factory method to create a class wrapping a new CudnnRNNParamsSize operation.

        Args:
            scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).
            num_layers: int32, shape [].
                Specifies the number of layers in the RNN model (≥ 1).
            num_units: int32, shape [].
                Specifies the size of the hidden state (≥ 1).
            input_size: int32, shape [].
                Specifies the size of the input state.
            t: type in ['float16', 'float32', 'float64'].
                The element type of the params (TensorFlow's T).
            s: type in ['int32', 'int64'].
                The dtype of the result (TensorFlow's S).
            options: CudnnRNNParamsSize.Options carrying optional attribute values.

        Raises:
            TypeError: an argument has the wrong type or dtype.
            ValueError: a shape or an attribute value is not valid.
        """
        _merged = _rt.merge_options(_OP, options, cls.Options)
        return cls(_run(
            scope, num_layers, num_units, input_size,
            t,
            s,
            _merged.get('rnn_mode', 'lstm'),
            _merged.get('input_mode', 'linear_input'),
            _merged.get('direction', 'unidirectional'),
            _merged.get('dropout', 0.0),
            _merged.get('seed', 0),
            _merged.get('seed2', 0),
            _merged.get('num_proj', 0),
        ))

    def __init__(self, outputs: CudnnRNNParamsSizeOutputs) -> None:
        self._outputs = outputs

    @property
    def params_size(self) -> Any:
        """The number of elements of the params buffer."""
        return self._outputs.params_size

    def output_tuple(self) -> CudnnRNNParamsSizeOutputs:
        """All outputs, in order."""
        return self._outputs

    def __repr__(self) -> str:
        return _rt.op_repr(_OP, self._outputs)


def cudnn_rnn_params_size(
    num_layers: Any,
    num_units: Any,
    input_size: Any,
    *,
    t: str,
    s: str,
    rnn_mode: RnnMode = 'lstm',
    input_mode: InputMode = 'linear_input',
    direction: Direction = 'unidirectional',
    dropout: float = 0.0,
    seed: int = 0,
    seed2: int = 0,
    num_proj: int = 0,
    scope: Scope | str | None = None,
) -> CudnnRNNParamsSizeOutputs:
    """Computes size of weights that can be used by a Cudnn RNN model.

    Args:
        num_layers: int32, shape [].
            Specifies the number of layers in the RNN model (≥ 1).
        num_units: int32, shape [].
            Specifies the size of the hidden state (≥ 1).
        input_size: int32, shape [].
            Specifies the size of the input state.
        t: type in ['float16', 'float32', 'float64'].
            The element type of the params (TensorFlow's T).
        s: type in ['int32', 'int64'].
            The dtype of the result (TensorFlow's S).
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
        CudnnRNNParamsSizeOutputs(params_size).

    Raises:
        TypeError: an argument has the wrong type or dtype.
        ValueError: a shape or an attribute value is not valid.
    """
    _torch = _rt.torch_call(num_layers, num_units, input_size)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'num_layers': num_layers, 'num_units': num_units, 'input_size': input_size}, (t, s, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj))
    return _compute(scope, num_layers, num_units, input_size, t, s, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj)


def _run(scope: Scope | str | None, num_layers: Any, num_units: Any, input_size: Any, t: Any, s: Any, rnn_mode: Any, input_mode: Any, direction: Any, dropout: Any, seed: Any, seed2: Any, num_proj: Any) -> CudnnRNNParamsSizeOutputs:
    _torch = _rt.torch_call(num_layers, num_units, input_size)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'num_layers': num_layers, 'num_units': num_units, 'input_size': input_size}, (t, s, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj))
    return _compute(scope, num_layers, num_units, input_size, t, s, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj)


def _compute(scope: Scope | str | None, num_layers: Any, num_units: Any, input_size: Any, t: Any, s: Any, rnn_mode: Any, input_mode: Any, direction: Any, dropout: Any, seed: Any, seed2: Any, num_proj: Any) -> CudnnRNNParamsSizeOutputs:
    _backend = _rt.backend_of(scope, _OP)
    t = _rt.check_type(_OP, 't', t, ('float16', 'float32', 'float64'))
    s = _rt.check_type(_OP, 's', s, ('int32', 'int64'))
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
    if num_layers.ndim != 0:
        raise _rt.shape_error(_OP, 'num_layers', (), num_layers.shape, {}, '')
    if num_units.ndim != 0:
        raise _rt.shape_error(_OP, 'num_units', (), num_units.shape, {}, '')
    if input_size.ndim != 0:
        raise _rt.shape_error(_OP, 'input_size', (), input_size.shape, {}, '')
    return CudnnRNNParamsSizeOutputs(*_runtime(_OP, _backend, num_layers=num_layers, num_units=num_units, input_size=input_size, t=t, s=s, rnn_mode=rnn_mode, input_mode=input_mode, direction=direction, dropout=dropout, seed=seed, seed2=seed2, num_proj=num_proj))


def _fake(_backend: Any, num_layers: Any, num_units: Any, input_size: Any, t: Any, s: Any, rnn_mode: Any, input_mode: Any, direction: Any, dropout: Any, seed: Any, seed2: Any, num_proj: Any) -> CudnnRNNParamsSizeOutputs:
    """The outputs of a call as empty tensors of the right shapes and dtypes, made by `_backend`
    (the torch registration's fake implementation: nothing runs, no data is read)."""
    return CudnnRNNParamsSizeOutputs(*_fake_outputs(_OP, _backend, num_layers=num_layers, num_units=num_units, input_size=input_size, t=t, s=s, rnn_mode=rnn_mode, input_mode=input_mode, direction=direction, dropout=dropout, seed=seed, seed2=seed2, num_proj=num_proj))
