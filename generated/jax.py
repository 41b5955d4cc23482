# generated from specs/ by opgen — do not edit (opgen 0.1.0)
"""Every kernel op of this package as a JAX function: `from generated import jax as ops`,
then `ops.<function>(...)` inside `jax.jit` or outside. Generated from the specs: inputs positional in
spec order (an optional one may be None), attrs keyword-only and static with their defaults,
outputs the op's Outputs tuple of arrays. Each call is one `jax.ffi.ffi_call` of the op's XLA FFI
handler (jax_ffi.cpp, which runs the op's native driver on the cpu), built and registered on first
use. The spec's shape, dtype and attr checks raise at trace time with the wrapper's messages (the
same shape functions as the PyTorch registration's fakes); checks of values are the handler's
errors when the call runs. opgen's docs/jax.md explains it all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jax  # noqa: F401  (this module is JAX's: without it, an ImportError here)

# isort: split
from codegen.runtime import jax_bridge as _jb

from .activations import Activation as _Activation
from .nn import bias_add as _bias_add
from .nn import bias_add_grad as _bias_add_grad
from .nn import fused_batch_norm_grad_v3 as _fused_batch_norm_grad_v3
from .nn import fused_batch_norm_v3 as _fused_batch_norm_v3
from .norm import layer_norm as _layer_norm
from .norm import layer_norm_grad as _layer_norm_grad
from .norm import softmax as _softmax
from .norm import softmax_grad as _softmax_grad
from .rnn import cudnn_rnn_backprop_v3 as _cudnn_rnn_backprop_v3
from .rnn import cudnn_rnn_v3 as _cudnn_rnn_v3
from .rnn import dml_rnn as _dml_rnn
from .rnn import gru_block_cell as _gru_block_cell
from .rnn import gru_block_cell_grad as _gru_block_cell_grad

#: Ops of this package that are not JAX functions, and why.
NOT_PROVIDED: dict[str, str] = {
    'Batch': 'its result depends on what other threads submit to the same batch, which a traced graph cannot express; call it (or batch_function) from Python around a compiled model',
    'CudnnRNNCanonicalToParamsV2': 'it has no native driver (no kernel launch plan, or list outputs): its Python body runs it',
    'CudnnRNNParamsSize': 'it has no native driver (no kernel launch plan, or list outputs): its Python body runs it',
    'CudnnRNNParamsToCanonicalV2': 'it has no native driver (no kernel launch plan, or list outputs): its Python body runs it',
    'Unbatch': 'its result depends on what other threads submit to the same batch, which a traced graph cannot express; call it (or batch_function) from Python around a compiled model',
    'UnbatchGrad': 'its result depends on what other threads submit to the same batch, which a traced graph cannot express; call it (or batch_function) from Python around a compiled model',
}

_LIBRARY = _jb.Library(Path(__file__).with_name("jax_ffi.cpp"), (
    ('opgen.BiasAdd', 'opgen_jax_BiasAdd'),
    ('opgen.BiasAddGrad', 'opgen_jax_BiasAddGrad'),
    ('opgen.FusedBatchNormGradV3', 'opgen_jax_FusedBatchNormGradV3'),
    ('opgen.FusedBatchNormV3', 'opgen_jax_FusedBatchNormV3'),
    ('opgen.LayerNorm', 'opgen_jax_LayerNorm'),
    ('opgen.LayerNormGrad', 'opgen_jax_LayerNormGrad'),
    ('opgen.Softmax', 'opgen_jax_Softmax'),
    ('opgen.SoftmaxGrad', 'opgen_jax_SoftmaxGrad'),
    ('opgen.CudnnRNNBackpropV3', 'opgen_jax_CudnnRNNBackpropV3'),
    ('opgen.CudnnRNNV3', 'opgen_jax_CudnnRNNV3'),
    ('opgen.DmlRnn', 'opgen_jax_DmlRnn'),
    ('opgen.GRUBlockCell', 'opgen_jax_GRUBlockCell'),
    ('opgen.GRUBlockCellGrad', 'opgen_jax_GRUBlockCellGrad'),
), lambda: [_bias_add, _bias_add_grad, _fused_batch_norm_grad_v3, _fused_batch_norm_v3, _layer_norm, _layer_norm_grad, _softmax, _softmax_grad, _cudnn_rnn_backprop_v3, _cudnn_rnn_v3, _dml_rnn, _gru_block_cell, _gru_block_cell_grad])


# -- BiasAdd -------------------------------------------------------------------------------------
_OP_BIAS_ADD = _jb.JaxOp('BiasAdd', 'opgen.BiasAdd', _bias_add._fake, ('value', 'bias'), (('data_format', 'str'),), _LIBRARY,
    vmap_method='sequential', outputs=('output',), gradient=_jb.Gradient(lambda: bias_add_grad, ('grad(output)',), (('data_format', 'data_format'),), (('value', 'grad(output)'), ('bias', 'output')), ('output',), None, ()), no_gradient='')


def bias_add(value: Any, bias: Any, *, data_format: Any = 'NHWC') -> Any:
    """BiasAdd through XLA's FFI: Adds a bias to the channel dimension of value. Returns BiasAdd's Outputs of arrays."""
    return _jb.call(_OP_BIAS_ADD, (value, bias), (data_format, ))


# -- BiasAddGrad ---------------------------------------------------------------------------------
_OP_BIAS_ADD_GRAD = _jb.JaxOp('BiasAddGrad', 'opgen.BiasAddGrad', _bias_add_grad._fake, ('out_backprop',), (('data_format', 'str'),), _LIBRARY,
    vmap_method='sequential', outputs=('output',), gradient=None, no_gradient='it is the gradient of BiasAdd (no second derivative is declared)')


def bias_add_grad(out_backprop: Any, *, data_format: Any = 'NHWC') -> Any:
    """BiasAddGrad through XLA's FFI: The gradient of BiasAdd with respect to the bias. Returns BiasAddGrad's Outputs of arrays."""
    return _jb.call(_OP_BIAS_ADD_GRAD, (out_backprop, ), (data_format, ))


# -- FusedBatchNormGradV3 ------------------------------------------------------------------------
_OP_FUSED_BATCH_NORM_GRAD_V3 = _jb.JaxOp('FusedBatchNormGradV3', 'opgen.FusedBatchNormGradV3', _fused_batch_norm_grad_v3._fake, ('y_backprop', 'x', 'scale', 'reserve_space_1', 'reserve_space_2', 'reserve_space_3'), (('epsilon', 'float'), ('data_format', 'str'), ('is_training', 'bool')), _LIBRARY,
    vmap_method='sequential', outputs=('x_backprop', 'scale_backprop', 'offset_backprop', 'reserve_space_4', 'reserve_space_5'), gradient=None, no_gradient='it is the gradient of FusedBatchNormV3 (no second derivative is declared)')


def fused_batch_norm_grad_v3(y_backprop: Any, x: Any, scale: Any, reserve_space_1: Any, reserve_space_2: Any, reserve_space_3: Any, *, epsilon: Any = 0.0001, data_format: Any = 'NHWC', is_training: Any = True) -> Any:
    """FusedBatchNormGradV3 through XLA's FFI: Gradient for batch normalization. Returns FusedBatchNormGradV3's Outputs of arrays."""
    return _jb.call(_OP_FUSED_BATCH_NORM_GRAD_V3, (y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3), (epsilon, data_format, is_training))


# -- FusedBatchNormV3 ----------------------------------------------------------------------------
_OP_FUSED_BATCH_NORM_V3 = _jb.JaxOp('FusedBatchNormV3', 'opgen.FusedBatchNormV3', _fused_batch_norm_v3._fake, ('x', 'scale', 'offset', 'mean', 'variance'), (('epsilon', 'float'), ('exponential_avg_factor', 'float'), ('data_format', 'str'), ('is_training', 'bool')), _LIBRARY,
    vmap_method='sequential', outputs=('y', 'batch_mean', 'batch_variance', 'reserve_space_1', 'reserve_space_2', 'reserve_space_3'), gradient=_jb.Gradient(lambda: fused_batch_norm_grad_v3, ('grad(y)', 'x', 'scale', 'reserve_space_1', 'reserve_space_2', 'reserve_space_3'), (('epsilon', 'epsilon'), ('data_format', 'data_format'), ('is_training', 'is_training')), (('x', 'x_backprop'), ('scale', 'scale_backprop'), ('offset', 'offset_backprop')), ('x_backprop', 'scale_backprop', 'offset_backprop', 'reserve_space_4', 'reserve_space_5'), None, ()), no_gradient='')


def fused_batch_norm_v3(x: Any, scale: Any, offset: Any, mean: Any, variance: Any, *, epsilon: Any = 0.0001, exponential_avg_factor: Any = 1.0, data_format: Any = 'NHWC', is_training: Any = True) -> Any:
    """FusedBatchNormV3 through XLA's FFI: Batch normalization. Returns FusedBatchNormV3's Outputs of arrays."""
    return _jb.call(_OP_FUSED_BATCH_NORM_V3, (x, scale, offset, mean, variance), (epsilon, exponential_avg_factor, data_format, is_training))


# -- LayerNorm -----------------------------------------------------------------------------------
_OP_LAYER_NORM = _jb.JaxOp('LayerNorm', 'opgen.LayerNorm', _layer_norm._fake, ('x', 'gamma', 'beta'), (('epsilon', 'float'),), _LIBRARY,
    vmap_method='sequential', outputs=('y', 'mean', 'rstd'), gradient=_jb.Gradient(lambda: layer_norm_grad, ('grad(y)', 'x', 'mean', 'rstd', 'gamma'), (), (('x', 'dx'),), ('dx', 'dgamma', 'dbeta'), ('opgen_ops.norm', 'layer_norm_affine_grads', ('gamma', 'beta', 'dgamma', 'dbeta'), ('gamma', 'beta')), ()), no_gradient='')


def layer_norm(x: Any, gamma: Any = None, beta: Any = None, *, epsilon: Any = 1e-05) -> Any:
    """LayerNorm through XLA's FFI: Layer normalization over the last dimension. Returns LayerNorm's Outputs of arrays."""
    return _jb.call(_OP_LAYER_NORM, (x, gamma, beta), (epsilon, ))


# -- LayerNormGrad -------------------------------------------------------------------------------
_OP_LAYER_NORM_GRAD = _jb.JaxOp('LayerNormGrad', 'opgen.LayerNormGrad', _layer_norm_grad._fake, ('dy', 'x', 'mean', 'rstd', 'gamma'), (), _LIBRARY,
    vmap_method='sequential', outputs=('dx', 'dgamma', 'dbeta'), gradient=None, no_gradient='it is the gradient of LayerNorm (no second derivative is declared)')


def layer_norm_grad(dy: Any, x: Any, mean: Any, rstd: Any, gamma: Any = None) -> Any:
    """LayerNormGrad through XLA's FFI: The gradient of LayerNorm. Returns LayerNormGrad's Outputs of arrays."""
    return _jb.call(_OP_LAYER_NORM_GRAD, (dy, x, mean, rstd, gamma), ())


# -- Softmax -------------------------------------------------------------------------------------
_OP_SOFTMAX = _jb.JaxOp('Softmax', 'opgen.Softmax', _softmax._fake, ('x',), (('axis', 'int'),), _LIBRARY,
    vmap_method='sequential', outputs=('y',), gradient=_jb.Gradient(lambda: softmax_grad, ('y', 'grad(y)'), (('axis', 'axis'),), (('x', 'dx'),), ('dx',), None, ()), no_gradient='')


def softmax(x: Any, *, axis: Any = -1) -> Any:
    """Softmax through XLA's FFI: Softmax along one dimension. Returns Softmax's Outputs of arrays."""
    return _jb.call(_OP_SOFTMAX, (x, ), (axis, ))


# -- SoftmaxGrad ---------------------------------------------------------------------------------
_OP_SOFTMAX_GRAD = _jb.JaxOp('SoftmaxGrad', 'opgen.SoftmaxGrad', _softmax_grad._fake, ('y', 'dy'), (('axis', 'int'),), _LIBRARY,
    vmap_method='sequential', outputs=('dx',), gradient=None, no_gradient='it is the gradient of Softmax (no second derivative is declared)')


def softmax_grad(y: Any, dy: Any, *, axis: Any = -1) -> Any:
    """SoftmaxGrad through XLA's FFI: The gradient of Softmax. Returns SoftmaxGrad's Outputs of arrays."""
    return _jb.call(_OP_SOFTMAX_GRAD, (y, dy), (axis, ))


# -- CudnnRNNBackpropV3 --------------------------------------------------------------------------
_OP_CUDNN_RNN_BACKPROP_V3 = _jb.JaxOp('CudnnRNNBackpropV3', 'opgen.CudnnRNNBackpropV3', _cudnn_rnn_backprop_v3._fake, ('input', 'input_h', 'input_c', 'params', 'sequence_lengths', 'output', 'output_h', 'output_c', 'output_backprop', 'output_h_backprop', 'output_c_backprop', 'reserve_space', 'host_reserved'), (('rnn_mode', 'str'), ('input_mode', 'str'), ('direction', 'str'), ('dropout', 'float'), ('seed', 'int'), ('seed2', 'int'), ('num_proj', 'int'), ('time_major', 'bool'), ('compute_input_backprop', 'bool')), _LIBRARY,
    vmap_method='sequential', outputs=('input_backprop', 'input_h_backprop', 'input_c_backprop', 'params_backprop'), gradient=None, no_gradient='it is the gradient of CudnnRNNV3 (no second derivative is declared)')


def cudnn_rnn_backprop_v3(input: Any, input_h: Any, input_c: Any, params: Any, sequence_lengths: Any, output: Any, output_h: Any, output_c: Any, output_backprop: Any, output_h_backprop: Any, output_c_backprop: Any, reserve_space: Any, host_reserved: Any, *, rnn_mode: Any = 'lstm', input_mode: Any = 'linear_input', direction: Any = 'unidirectional', dropout: Any = 0.0, seed: Any = 0, seed2: Any = 0, num_proj: Any = 0, time_major: Any = True, compute_input_backprop: Any = True) -> Any:
    """CudnnRNNBackpropV3 through XLA's FFI: Backprop step of CudnnRNNV3. Returns CudnnRNNBackpropV3's Outputs of arrays."""
    return _jb.call(_OP_CUDNN_RNN_BACKPROP_V3, (input, input_h, input_c, params, sequence_lengths, output, output_h, output_c, output_backprop, output_h_backprop, output_c_backprop, reserve_space, host_reserved), (rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj, time_major, compute_input_backprop))


# -- CudnnRNNV3 ----------------------------------------------------------------------------------
_OP_CUDNN_RNN_V3 = _jb.JaxOp('CudnnRNNV3', 'opgen.CudnnRNNV3', _cudnn_rnn_v3._fake, ('input', 'input_h', 'input_c', 'params', 'sequence_lengths'), (('rnn_mode', 'str'), ('input_mode', 'str'), ('direction', 'str'), ('dropout', 'float'), ('seed', 'int'), ('seed2', 'int'), ('num_proj', 'int'), ('is_training', 'bool'), ('time_major', 'bool')), _LIBRARY,
    vmap_method='sequential', outputs=('output', 'output_h', 'output_c', 'reserve_space', 'host_reserved'), gradient=_jb.Gradient(lambda: cudnn_rnn_backprop_v3, ('input', 'input_h', 'input_c', 'params', 'sequence_lengths', 'output', 'output_h', 'output_c', 'grad(output)', 'grad(output_h)', 'grad(output_c)', 'reserve_space', 'host_reserved'), (('rnn_mode', 'rnn_mode'), ('input_mode', 'input_mode'), ('direction', 'direction'), ('dropout', 'dropout'), ('seed', 'seed'), ('seed2', 'seed2'), ('num_proj', 'num_proj'), ('time_major', 'time_major')), (('input', 'input_backprop'), ('input_h', 'input_h_backprop'), ('input_c', 'input_c_backprop'), ('params', 'params_backprop')), ('input_backprop', 'input_h_backprop', 'input_c_backprop', 'params_backprop'), None, (('is_training', True),)), no_gradient='')


def cudnn_rnn_v3(input: Any, input_h: Any, input_c: Any, params: Any, sequence_lengths: Any, *, rnn_mode: Any = 'lstm', input_mode: Any = 'linear_input', direction: Any = 'unidirectional', dropout: Any = 0.0, seed: Any = 0, seed2: Any = 0, num_proj: Any = 0, is_training: Any = True, time_major: Any = True) -> Any:
    """CudnnRNNV3 through XLA's FFI: A RNN backed by cuDNN. Returns CudnnRNNV3's Outputs of arrays."""
    return _jb.call(_OP_CUDNN_RNN_V3, (input, input_h, input_c, params, sequence_lengths), (rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj, is_training, time_major))


# -- DmlRnn --------------------------------------------------------------------------------------
_OP_DML_RNN = _jb.JaxOp('DmlRnn', 'opgen.DmlRnn', _dml_rnn._fake, ('input', 'weight', 'recurrence', 'bias', 'hidden_init', 'sequence_lengths'), (('direction', 'str'), ('activations', 'acts')), _LIBRARY, activation=_Activation,
    vmap_method='sequential', outputs=('output_sequence', 'output_single'), gradient=None, no_gradient='its spec declares no gradient op')


def dml_rnn(input: Any, weight: Any, recurrence: Any, bias: Any = None, hidden_init: Any = None, sequence_lengths: Any = None, *, direction: Any = 'forward', activations: Any = None) -> Any:
    """DmlRnn through XLA's FFI: One layer of a simple RNN over a whole sequence, as DirectML's DML_RNN_OPERATOR_DESC. Returns DmlRnn's Outputs of arrays."""
    return _jb.call(_OP_DML_RNN, (input, weight, recurrence, bias, hidden_init, sequence_lengths), (direction, activations if activations is not None else 'tanh'))


# -- GRUBlockCell --------------------------------------------------------------------------------
_OP_GRU_BLOCK_CELL = _jb.JaxOp('GRUBlockCell', 'opgen.GRUBlockCell', _gru_block_cell._fake, ('x', 'h_prev', 'w_ru', 'w_c', 'b_ru', 'b_c'), (), _LIBRARY,
    vmap_method='sequential', outputs=('r', 'u', 'c', 'h'), gradient=_jb.Gradient(lambda: gru_block_cell_grad, ('x', 'h_prev', 'w_ru', 'w_c', 'b_ru', 'b_c', 'r', 'u', 'c', 'grad(h)'), (), (('x', 'd_x'), ('h_prev', 'd_h_prev')), ('d_x', 'd_h_prev', 'd_c_bar', 'd_r_bar_u_bar'), ('opgen_ops.gru', 'gru_block_cell_weight_grads', ('x', 'h_prev', 'r', 'd_r_bar_u_bar', 'd_c_bar'), ('w_ru', 'w_c', 'b_ru', 'b_c')), ()), no_gradient='')


def gru_block_cell(x: Any, h_prev: Any, w_ru: Any, w_c: Any, b_ru: Any, b_c: Any) -> Any:
    """GRUBlockCell through XLA's FFI: Computes the GRU cell forward propagation for 1 time step. Returns GRUBlockCell's Outputs of arrays."""
    return _jb.call(_OP_GRU_BLOCK_CELL, (x, h_prev, w_ru, w_c, b_ru, b_c), ())


# -- GRUBlockCellGrad ----------------------------------------------------------------------------
_OP_GRU_BLOCK_CELL_GRAD = _jb.JaxOp('GRUBlockCellGrad', 'opgen.GRUBlockCellGrad', _gru_block_cell_grad._fake, ('x', 'h_prev', 'w_ru', 'w_c', 'b_ru', 'b_c', 'r', 'u', 'c', 'd_h'), (), _LIBRARY,
    vmap_method='sequential', outputs=('d_x', 'd_h_prev', 'd_c_bar', 'd_r_bar_u_bar'), gradient=None, no_gradient='it is the gradient of GRUBlockCell (no second derivative is declared)')


def gru_block_cell_grad(x: Any, h_prev: Any, w_ru: Any, w_c: Any, b_ru: Any, b_c: Any, r: Any, u: Any, c: Any, d_h: Any) -> Any:
    """GRUBlockCellGrad through XLA's FFI: Computes the GRU cell back-propagation for 1 time step. Returns GRUBlockCellGrad's Outputs of arrays."""
    return _jb.call(_OP_GRU_BLOCK_CELL_GRAD, (x, h_prev, w_ru, w_c, b_ru, b_c, r, u, c, d_h), ())

