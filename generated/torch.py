# generated from specs/ by opgen — do not edit (opgen 0.1.0)
"""Every op of this package as a PyTorch op: `import generated.torch`, then
`torch.ops.opgen.<function>(...)`. Generated from the specs: the schema (inputs positional in spec
order, attrs keyword-only with their defaults, outputs a tuple in spec order), one implementation for
CPU and CUDA tensors through the op's wrapper (the tensors' device picks the backend; CUDA work runs
on torch's current stream), a fake implementation from the spec's shape and dtype rules (for
torch.compile, symbolic sizes included), and autograd from the forward op's `autograd:` key (the
backward calls the gradient op of this package's namespace). An op without a gradient raises a clear
error in backward. opgen's docs/pytorch.md explains it all.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import torch

# isort: split
from codegen.runtime import torch_autograd as _torch_autograd
from codegen.runtime import torch_bridge as _tb
from codegen.runtime import torch_gate as _torch_gate
from codegen.runtime import torch_library as _torch_library

from .nn import bias_add as _bias_add
from .nn import bias_add_grad as _bias_add_grad
from .nn import fused_batch_norm_grad_v3 as _fused_batch_norm_grad_v3
from .nn import fused_batch_norm_v3 as _fused_batch_norm_v3
from .norm import layer_norm as _layer_norm
from .norm import layer_norm_grad as _layer_norm_grad
from .norm import softmax as _softmax
from .norm import softmax_grad as _softmax_grad
from .rnn import cudnn_rnn_backprop_v3 as _cudnn_rnn_backprop_v3
from .rnn import cudnn_rnn_canonical_to_params_v2 as _cudnn_rnn_canonical_to_params_v2
from .rnn import cudnn_rnn_params_size as _cudnn_rnn_params_size
from .rnn import cudnn_rnn_params_to_canonical_v2 as _cudnn_rnn_params_to_canonical_v2
from .rnn import cudnn_rnn_v3 as _cudnn_rnn_v3
from .rnn import dml_rnn as _dml_rnn
from .rnn import gru_block_cell as _gru_block_cell
from .rnn import gru_block_cell_grad as _gru_block_cell_grad

#: Ops of this package that are not PyTorch ops, and why.
NOT_REGISTERED: dict[str, str] = {
    'Batch': 'its result depends on what other threads submit to the same batch, which a traced graph cannot express; call it (or batch_function) from Python around a compiled model',
    'Unbatch': 'its result depends on what other threads submit to the same batch, which a traced graph cannot express; call it (or batch_function) from Python around a compiled model',
    'UnbatchGrad': 'its result depends on what other threads submit to the same batch, which a traced graph cannot express; call it (or batch_function) from Python around a compiled model',
}

#: The torch namespace of this package's ops: torch.ops.opgen.<function>.
NAMESPACE = 'opgen'

_NATIVE_SOURCE = Path(__file__).with_name("torch_native.cpp")


def library_path() -> str:
    """The path of this package's native PyTorch library (torch_native.cpp: the schemas, and CPU and
    CUDA kernels calling the ops' native drivers, through PyTorch's stable ABI), built now if the
    kernel cache lacks it. `torch.ops.load_library(library_path())` registers the ops in a process
    that never imports this package (one running an AOTInductor package, say); it defines the
    schemas, which this module has loaded already unless NATIVE is False."""
    return str(_torch_library.build(_NATIVE_SOURCE))


#: Whether the schemas and kernels come from the native library (the default: built on the first
#: import, then cached; OPGEN_TORCH_NATIVE=0, or a library that cannot be built here, which warns
#: once: the Python registration). Python then registers only the fakes, the autograd formulas, the
#: kernels the library lacks and each op's helper that runs a call its driver hands back.
_NATIVE_LIBRARY = _torch_library.register(_NATIVE_SOURCE, [_bias_add, _bias_add_grad, _fused_batch_norm_grad_v3, _fused_batch_norm_v3, _layer_norm, _layer_norm_grad, _softmax, _softmax_grad, _cudnn_rnn_backprop_v3, _cudnn_rnn_v3, _dml_rnn, _gru_block_cell, _gru_block_cell_grad])
NATIVE = _NATIVE_LIBRARY is not None

#: Whether the ops' Autograd kernel is the C++ one (opgen's gate library, one per PyTorch for every
#: package: codegen/runtime/native/torch_autograd_gate.cpp, built against this PyTorch's headers and
#: cached; with NATIVE unless OPGEN_TORCH_AUTOGRAD_GATE=0), registered here for each op with its
#: helper's schema: a grad-mode call that records no graph then skips Python; else the kernels stay in Python.
GATED = NATIVE and _torch_gate.load(__package__ or __name__, NAMESPACE, {
    'bias_add': "_bias_add_autograd(Tensor value, Tensor bias, *, str data_format='NHWC') -> Tensor",
    'bias_add_grad': "_bias_add_grad_autograd(Tensor out_backprop, *, str data_format='NHWC') -> Tensor",
    'fused_batch_norm_grad_v3': "_fused_batch_norm_grad_v3_autograd(Tensor y_backprop, Tensor x, Tensor scale, Tensor reserve_space_1, Tensor reserve_space_2, Tensor reserve_space_3, *, float epsilon=0.0001, str data_format='NHWC', bool is_training=True) -> (Tensor, Tensor, Tensor, Tensor, Tensor)",
    'fused_batch_norm_v3': "_fused_batch_norm_v3_autograd(Tensor x, Tensor scale, Tensor offset, Tensor mean, Tensor variance, *, float epsilon=0.0001, float exponential_avg_factor=1.0, str data_format='NHWC', bool is_training=True) -> (Tensor, Tensor, Tensor, Tensor, Tensor, Tensor)",
    'layer_norm': '_layer_norm_autograd(Tensor x, Tensor? gamma=None, Tensor? beta=None, *, float epsilon=1e-05) -> (Tensor, Tensor, Tensor)',
    'layer_norm_grad': '_layer_norm_grad_autograd(Tensor dy, Tensor x, Tensor mean, Tensor rstd, Tensor? gamma=None) -> (Tensor, Tensor, Tensor)',
    'softmax': '_softmax_autograd(Tensor x, *, int axis=-1) -> Tensor',
    'softmax_grad': '_softmax_grad_autograd(Tensor y, Tensor dy, *, int axis=-1) -> Tensor',
    'cudnn_rnn_backprop_v3': "_cudnn_rnn_backprop_v3_autograd(Tensor input, Tensor input_h, Tensor input_c, Tensor params, Tensor sequence_lengths, Tensor output, Tensor output_h, Tensor output_c, Tensor output_backprop, Tensor output_h_backprop, Tensor output_c_backprop, Tensor reserve_space, Tensor host_reserved, *, str rnn_mode='lstm', str input_mode='linear_input', str direction='unidirectional', float dropout=0.0, int seed=0, int seed2=0, int num_proj=0, bool time_major=True, bool compute_input_backprop=True) -> (Tensor, Tensor, Tensor, Tensor)",
    'cudnn_rnn_canonical_to_params_v2': "_cudnn_rnn_canonical_to_params_v2_autograd(int num_layers, int num_units, int input_size, Tensor[] weights, Tensor[] biases, *, int num_params_weights=0, int num_params_biases=0, str rnn_mode='lstm', str input_mode='linear_input', str direction='unidirectional', float dropout=0.0, int seed=0, int seed2=0, int num_proj=0) -> Tensor",
    'cudnn_rnn_params_size': "_cudnn_rnn_params_size_autograd(int num_layers, int num_units, int input_size, *, str t, str s, str rnn_mode='lstm', str input_mode='linear_input', str direction='unidirectional', float dropout=0.0, int seed=0, int seed2=0, int num_proj=0) -> Tensor",
    'cudnn_rnn_params_to_canonical_v2': "_cudnn_rnn_params_to_canonical_v2_autograd(int num_layers, int num_units, int input_size, Tensor params, *, int num_params_weights, int num_params_biases, str rnn_mode='lstm', str input_mode='linear_input', str direction='unidirectional', float dropout=0.0, int seed=0, int seed2=0, int num_proj=0) -> (Tensor[], Tensor[])",
    'cudnn_rnn_v3': "_cudnn_rnn_v3_autograd(Tensor input, Tensor input_h, Tensor input_c, Tensor params, Tensor sequence_lengths, *, str rnn_mode='lstm', str input_mode='linear_input', str direction='unidirectional', float dropout=0.0, int seed=0, int seed2=0, int num_proj=0, bool is_training=True, bool time_major=True) -> (Tensor, Tensor, Tensor, Tensor, Tensor)",
    'dml_rnn': "_dml_rnn_autograd(Tensor input, Tensor weight, Tensor recurrence, Tensor? bias=None, Tensor? hidden_init=None, Tensor? sequence_lengths=None, *, str direction='forward', str[]? activations=None) -> (Tensor, Tensor)",
    'gru_block_cell': '_gru_block_cell_autograd(Tensor x, Tensor h_prev, Tensor w_ru, Tensor w_c, Tensor b_ru, Tensor b_c) -> (Tensor, Tensor, Tensor, Tensor)',
    'gru_block_cell_grad': '_gru_block_cell_grad_autograd(Tensor x, Tensor h_prev, Tensor w_ru, Tensor w_c, Tensor b_ru, Tensor b_c, Tensor r, Tensor u, Tensor c, Tensor d_h) -> (Tensor, Tensor, Tensor, Tensor)',
})

_Library: Any = torch.library.Library  # (unannotated in torch: called through Any for mypy --strict)
_LIB = _Library(NAMESPACE, "FRAGMENT")


def _no_gradient(op: str, why: str) -> Any:
    def backward(ctx: Any, *grads: Any) -> Any:
        raise RuntimeError(f"{op} has no gradient: {why}")
    return backward


def _no_context(ctx: Any, inputs: Any, output: Any, keyword_only_inputs: Any = None) -> None:
    """The setup_context of an op without a gradient (torch passes keyword_only_inputs only to an
    op with attrs)."""


# -- BiasAdd -------------------------------------------------------------------------------------
if not NATIVE:
    _LIB.define("bias_add(Tensor value, Tensor bias, *, str data_format='NHWC') -> Tensor")


def _bias_add_impl(value: Any, bias: Any, *, data_format: Any = 'NHWC') -> Any:
    out = _tb.run_registered('BiasAdd', _bias_add._compute, {'value': value, 'bias': bias}, (data_format, ))
    return out[0]


def _bias_add_fake(value: Any, bias: Any, *, data_format: Any = 'NHWC') -> Any:
    backend = _tb.fake_backend('BiasAdd', {'value': value, 'bias': bias})
    out = _bias_add._fake(backend, value, bias, data_format)
    return out[0]


if NATIVE:  # (the helper that runs a call the op's driver hands back: its Python kernel)
    _LIB.define("_bias_add_python(Tensor value, Tensor bias, *, str data_format='NHWC') -> Tensor")
    _LIB.impl('_bias_add_python', _bias_add_impl, "CPU")
    _LIB.impl('_bias_add_python', _bias_add_impl, "CUDA")
else:
    _LIB.impl('bias_add', _bias_add_impl, "CPU")
    _LIB.impl('bias_add', _bias_add_impl, "CUDA")
torch.library.register_fake('opgen::bias_add', _bias_add_fake, lib=_LIB)


def _bias_add_setup_context(ctx: Any, inputs: Any, keyword_only_inputs: Any, output: Any) -> None:
    _value, _bias = inputs
    _output = output
    ctx.attrs = keyword_only_inputs


def _bias_add_backward(ctx: Any, *grads: Any) -> Any:
    grad_output, = grads
    output = torch.ops.opgen.bias_add_grad(grad_output.contiguous(), data_format=ctx.attrs['data_format'])
    return grad_output, output


_torch_autograd.register_autograd('opgen::bias_add', _bias_add_backward,
                                  setup_context=_bias_add_setup_context, lib=_LIB, gated=GATED)


# -- BiasAddGrad ---------------------------------------------------------------------------------
if not NATIVE:
    _LIB.define("bias_add_grad(Tensor out_backprop, *, str data_format='NHWC') -> Tensor")


def _bias_add_grad_impl(out_backprop: Any, *, data_format: Any = 'NHWC') -> Any:
    out = _tb.run_registered('BiasAddGrad', _bias_add_grad._compute, {'out_backprop': out_backprop}, (data_format, ))
    return out[0]


def _bias_add_grad_fake(out_backprop: Any, *, data_format: Any = 'NHWC') -> Any:
    backend = _tb.fake_backend('BiasAddGrad', {'out_backprop': out_backprop})
    out = _bias_add_grad._fake(backend, out_backprop, data_format)
    return out[0]


if NATIVE:  # (the helper that runs a call the op's driver hands back: its Python kernel)
    _LIB.define("_bias_add_grad_python(Tensor out_backprop, *, str data_format='NHWC') -> Tensor")
    _LIB.impl('_bias_add_grad_python', _bias_add_grad_impl, "CPU")
    _LIB.impl('_bias_add_grad_python', _bias_add_grad_impl, "CUDA")
else:
    _LIB.impl('bias_add_grad', _bias_add_grad_impl, "CPU")
    _LIB.impl('bias_add_grad', _bias_add_grad_impl, "CUDA")
torch.library.register_fake('opgen::bias_add_grad', _bias_add_grad_fake, lib=_LIB)
_torch_autograd.register_autograd('opgen::bias_add_grad', _no_gradient('BiasAddGrad', 'it is the gradient of BiasAdd (no second derivative is declared)'),
                                  setup_context=_no_context, lib=_LIB, gated=GATED)


# -- FusedBatchNormGradV3 ------------------------------------------------------------------------
if not NATIVE:
    _LIB.define("fused_batch_norm_grad_v3(Tensor y_backprop, Tensor x, Tensor scale, Tensor reserve_space_1, Tensor reserve_space_2, Tensor reserve_space_3, *, float epsilon=0.0001, str data_format='NHWC', bool is_training=True) -> (Tensor, Tensor, Tensor, Tensor, Tensor)")


def _fused_batch_norm_grad_v3_impl(y_backprop: Any, x: Any, scale: Any, reserve_space_1: Any, reserve_space_2: Any, reserve_space_3: Any, *, epsilon: Any = 0.0001, data_format: Any = 'NHWC', is_training: Any = True) -> Any:
    out = _tb.run_registered('FusedBatchNormGradV3', _fused_batch_norm_grad_v3._compute, {'y_backprop': y_backprop, 'x': x, 'scale': scale, 'reserve_space_1': reserve_space_1, 'reserve_space_2': reserve_space_2, 'reserve_space_3': reserve_space_3}, (epsilon, data_format, is_training))
    return tuple(out)


def _fused_batch_norm_grad_v3_fake(y_backprop: Any, x: Any, scale: Any, reserve_space_1: Any, reserve_space_2: Any, reserve_space_3: Any, *, epsilon: Any = 0.0001, data_format: Any = 'NHWC', is_training: Any = True) -> Any:
    backend = _tb.fake_backend('FusedBatchNormGradV3', {'y_backprop': y_backprop, 'x': x, 'scale': scale, 'reserve_space_1': reserve_space_1, 'reserve_space_2': reserve_space_2, 'reserve_space_3': reserve_space_3})
    out = _fused_batch_norm_grad_v3._fake(backend, y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3, epsilon, data_format, is_training)
    return tuple(out)


if NATIVE:  # (the helper that runs a call the op's driver hands back: its Python kernel)
    _LIB.define("_fused_batch_norm_grad_v3_python(Tensor y_backprop, Tensor x, Tensor scale, Tensor reserve_space_1, Tensor reserve_space_2, Tensor reserve_space_3, *, float epsilon=0.0001, str data_format='NHWC', bool is_training=True) -> (Tensor, Tensor, Tensor, Tensor, Tensor)")
    _LIB.impl('_fused_batch_norm_grad_v3_python', _fused_batch_norm_grad_v3_impl, "CPU")
    _LIB.impl('_fused_batch_norm_grad_v3_python', _fused_batch_norm_grad_v3_impl, "CUDA")
else:
    _LIB.impl('fused_batch_norm_grad_v3', _fused_batch_norm_grad_v3_impl, "CPU")
    _LIB.impl('fused_batch_norm_grad_v3', _fused_batch_norm_grad_v3_impl, "CUDA")
torch.library.register_fake('opgen::fused_batch_norm_grad_v3', _fused_batch_norm_grad_v3_fake, lib=_LIB)
_torch_autograd.register_autograd('opgen::fused_batch_norm_grad_v3', _no_gradient('FusedBatchNormGradV3', 'it is the gradient of FusedBatchNormV3 (no second derivative is declared)'),
                                  setup_context=_no_context, lib=_LIB, gated=GATED)


# -- FusedBatchNormV3 ----------------------------------------------------------------------------
if not NATIVE:
    _LIB.define("fused_batch_norm_v3(Tensor x, Tensor scale, Tensor offset, Tensor mean, Tensor variance, *, float epsilon=0.0001, float exponential_avg_factor=1.0, str data_format='NHWC', bool is_training=True) -> (Tensor, Tensor, Tensor, Tensor, Tensor, Tensor)")


def _fused_batch_norm_v3_impl(x: Any, scale: Any, offset: Any, mean: Any, variance: Any, *, epsilon: Any = 0.0001, exponential_avg_factor: Any = 1.0, data_format: Any = 'NHWC', is_training: Any = True) -> Any:
    out = _tb.run_registered('FusedBatchNormV3', _fused_batch_norm_v3._compute, {'x': x, 'scale': scale, 'offset': offset, 'mean': mean, 'variance': variance}, (epsilon, exponential_avg_factor, data_format, is_training))
    return tuple(out)


def _fused_batch_norm_v3_fake(x: Any, scale: Any, offset: Any, mean: Any, variance: Any, *, epsilon: Any = 0.0001, exponential_avg_factor: Any = 1.0, data_format: Any = 'NHWC', is_training: Any = True) -> Any:
    backend = _tb.fake_backend('FusedBatchNormV3', {'x': x, 'scale': scale, 'offset': offset, 'mean': mean, 'variance': variance})
    out = _fused_batch_norm_v3._fake(backend, x, scale, offset, mean, variance, epsilon, exponential_avg_factor, data_format, is_training)
    return tuple(out)


if NATIVE:  # (the helper that runs a call the op's driver hands back: its Python kernel)
    _LIB.define("_fused_batch_norm_v3_python(Tensor x, Tensor scale, Tensor offset, Tensor mean, Tensor variance, *, float epsilon=0.0001, float exponential_avg_factor=1.0, str data_format='NHWC', bool is_training=True) -> (Tensor, Tensor, Tensor, Tensor, Tensor, Tensor)")
    _LIB.impl('_fused_batch_norm_v3_python', _fused_batch_norm_v3_impl, "CPU")
    _LIB.impl('_fused_batch_norm_v3_python', _fused_batch_norm_v3_impl, "CUDA")
else:
    _LIB.impl('fused_batch_norm_v3', _fused_batch_norm_v3_impl, "CPU")
    _LIB.impl('fused_batch_norm_v3', _fused_batch_norm_v3_impl, "CUDA")
torch.library.register_fake('opgen::fused_batch_norm_v3', _fused_batch_norm_v3_fake, lib=_LIB)


def _fused_batch_norm_v3_setup_context(ctx: Any, inputs: Any, keyword_only_inputs: Any, output: Any) -> None:
    x, scale, _offset, _mean, _variance = inputs
    _y, batch_mean, batch_variance, reserve_space_1, reserve_space_2, reserve_space_3 = output
    ctx.save_for_backward(x, scale, reserve_space_1, reserve_space_2, reserve_space_3)
    ctx.attrs = keyword_only_inputs
    ctx.mark_non_differentiable(batch_mean, batch_variance, reserve_space_1, reserve_space_2, reserve_space_3)
    ctx.set_materialize_grads(False)


def _fused_batch_norm_v3_backward(ctx: Any, *grads: Any) -> Any:
    x, scale, reserve_space_1, reserve_space_2, reserve_space_3 = ctx.saved_tensors
    grad_y, _grad_batch_mean, _grad_batch_variance, _grad_reserve_space_1, _grad_reserve_space_2, _grad_reserve_space_3 = grads
    x_backprop, scale_backprop, offset_backprop, _reserve_space_4, _reserve_space_5 = torch.ops.opgen.fused_batch_norm_grad_v3(grad_y.contiguous(), x, scale, reserve_space_1, reserve_space_2, reserve_space_3, epsilon=ctx.attrs['epsilon'], data_format=ctx.attrs['data_format'], is_training=ctx.attrs['is_training'])
    return x_backprop, scale_backprop, offset_backprop, None, None


_torch_autograd.register_autograd('opgen::fused_batch_norm_v3', _fused_batch_norm_v3_backward,
                                  setup_context=_fused_batch_norm_v3_setup_context, lib=_LIB, gated=GATED)


# -- LayerNorm -----------------------------------------------------------------------------------
if not NATIVE:
    _LIB.define('layer_norm(Tensor x, Tensor? gamma=None, Tensor? beta=None, *, float epsilon=1e-05) -> (Tensor, Tensor, Tensor)')


def _layer_norm_impl(x: Any, gamma: Any = None, beta: Any = None, *, epsilon: Any = 1e-05) -> Any:
    out = _tb.run_registered('LayerNorm', _layer_norm._compute, {'x': x, 'gamma': gamma, 'beta': beta}, (epsilon, ))
    return tuple(out)


def _layer_norm_fake(x: Any, gamma: Any = None, beta: Any = None, *, epsilon: Any = 1e-05) -> Any:
    backend = _tb.fake_backend('LayerNorm', {'x': x, 'gamma': gamma, 'beta': beta})
    out = _layer_norm._fake(backend, x, gamma, beta, epsilon)
    return tuple(out)


if NATIVE:  # (the helper that runs a call the op's driver hands back: its Python kernel)
    _LIB.define('_layer_norm_python(Tensor x, Tensor? gamma=None, Tensor? beta=None, *, float epsilon=1e-05) -> (Tensor, Tensor, Tensor)')
    _LIB.impl('_layer_norm_python', _layer_norm_impl, "CPU")
    _LIB.impl('_layer_norm_python', _layer_norm_impl, "CUDA")
else:
    _LIB.impl('layer_norm', _layer_norm_impl, "CPU")
    _LIB.impl('layer_norm', _layer_norm_impl, "CUDA")
torch.library.register_fake('opgen::layer_norm', _layer_norm_fake, lib=_LIB)


def _layer_norm_setup_context(ctx: Any, inputs: Any, keyword_only_inputs: Any, output: Any) -> None:
    x, gamma, beta = inputs
    _y, mean, rstd = output
    ctx.given = {'gamma': gamma is not None, 'beta': beta is not None}
    ctx.save_for_backward(x, mean, rstd, gamma, beta)
    ctx.attrs = keyword_only_inputs
    ctx.mark_non_differentiable(mean, rstd)
    ctx.set_materialize_grads(False)


def _layer_norm_backward(ctx: Any, *grads: Any) -> Any:
    x, mean, rstd, gamma, beta = ctx.saved_tensors
    grad_y, _grad_mean, _grad_rstd = grads
    dx, dgamma, dbeta = torch.ops.opgen.layer_norm_grad(grad_y.contiguous(), x, mean, rstd, gamma)
    from opgen_ops.norm import layer_norm_affine_grads as _helper
    _grad_gamma, _grad_beta = _helper(gamma, beta, dgamma, dbeta)
    return dx, _grad_gamma if ctx.given['gamma'] else None, _grad_beta if ctx.given['beta'] else None


_torch_autograd.register_autograd('opgen::layer_norm', _layer_norm_backward,
                                  setup_context=_layer_norm_setup_context, lib=_LIB, gated=GATED)


# -- LayerNormGrad -------------------------------------------------------------------------------
if not NATIVE:
    _LIB.define('layer_norm_grad(Tensor dy, Tensor x, Tensor mean, Tensor rstd, Tensor? gamma=None) -> (Tensor, Tensor, Tensor)')


def _layer_norm_grad_impl(dy: Any, x: Any, mean: Any, rstd: Any, gamma: Any = None) -> Any:
    out = _tb.run_registered('LayerNormGrad', _layer_norm_grad._compute, {'dy': dy, 'x': x, 'mean': mean, 'rstd': rstd, 'gamma': gamma}, ())
    return tuple(out)


def _layer_norm_grad_fake(dy: Any, x: Any, mean: Any, rstd: Any, gamma: Any = None) -> Any:
    backend = _tb.fake_backend('LayerNormGrad', {'dy': dy, 'x': x, 'mean': mean, 'rstd': rstd, 'gamma': gamma})
    out = _layer_norm_grad._fake(backend, dy, x, mean, rstd, gamma)
    return tuple(out)


if NATIVE:  # (the helper that runs a call the op's driver hands back: its Python kernel)
    _LIB.define('_layer_norm_grad_python(Tensor dy, Tensor x, Tensor mean, Tensor rstd, Tensor? gamma=None) -> (Tensor, Tensor, Tensor)')
    _LIB.impl('_layer_norm_grad_python', _layer_norm_grad_impl, "CPU")
    _LIB.impl('_layer_norm_grad_python', _layer_norm_grad_impl, "CUDA")
else:
    _LIB.impl('layer_norm_grad', _layer_norm_grad_impl, "CPU")
    _LIB.impl('layer_norm_grad', _layer_norm_grad_impl, "CUDA")
torch.library.register_fake('opgen::layer_norm_grad', _layer_norm_grad_fake, lib=_LIB)
_torch_autograd.register_autograd('opgen::layer_norm_grad', _no_gradient('LayerNormGrad', 'it is the gradient of LayerNorm (no second derivative is declared)'),
                                  setup_context=_no_context, lib=_LIB, gated=GATED)


# -- Softmax -------------------------------------------------------------------------------------
if not NATIVE:
    _LIB.define('softmax(Tensor x, *, int axis=-1) -> Tensor')


def _softmax_impl(x: Any, *, axis: Any = -1) -> Any:
    out = _tb.run_registered('Softmax', _softmax._compute, {'x': x}, (axis, ))
    return out[0]


def _softmax_fake(x: Any, *, axis: Any = -1) -> Any:
    backend = _tb.fake_backend('Softmax', {'x': x})
    out = _softmax._fake(backend, x, axis)
    return out[0]


if NATIVE:  # (the helper that runs a call the op's driver hands back: its Python kernel)
    _LIB.define('_softmax_python(Tensor x, *, int axis=-1) -> Tensor')
    _LIB.impl('_softmax_python', _softmax_impl, "CPU")
    _LIB.impl('_softmax_python', _softmax_impl, "CUDA")
else:
    _LIB.impl('softmax', _softmax_impl, "CPU")
    _LIB.impl('softmax', _softmax_impl, "CUDA")
torch.library.register_fake('opgen::softmax', _softmax_fake, lib=_LIB)


def _softmax_setup_context(ctx: Any, inputs: Any, keyword_only_inputs: Any, output: Any) -> None:
    _x, = inputs
    y = output
    ctx.save_for_backward(y)
    ctx.attrs = keyword_only_inputs


def _softmax_backward(ctx: Any, *grads: Any) -> Any:
    y, = ctx.saved_tensors
    grad_y, = grads
    dx = torch.ops.opgen.softmax_grad(y, grad_y.contiguous(), axis=ctx.attrs['axis'])
    return dx,


_torch_autograd.register_autograd('opgen::softmax', _softmax_backward,
                                  setup_context=_softmax_setup_context, lib=_LIB, gated=GATED)


# -- SoftmaxGrad ---------------------------------------------------------------------------------
if not NATIVE:
    _LIB.define('softmax_grad(Tensor y, Tensor dy, *, int axis=-1) -> Tensor')


def _softmax_grad_impl(y: Any, dy: Any, *, axis: Any = -1) -> Any:
    out = _tb.run_registered('SoftmaxGrad', _softmax_grad._compute, {'y': y, 'dy': dy}, (axis, ))
    return out[0]


def _softmax_grad_fake(y: Any, dy: Any, *, axis: Any = -1) -> Any:
    backend = _tb.fake_backend('SoftmaxGrad', {'y': y, 'dy': dy})
    out = _softmax_grad._fake(backend, y, dy, axis)
    return out[0]


if NATIVE:  # (the helper that runs a call the op's driver hands back: its Python kernel)
    _LIB.define('_softmax_grad_python(Tensor y, Tensor dy, *, int axis=-1) -> Tensor')
    _LIB.impl('_softmax_grad_python', _softmax_grad_impl, "CPU")
    _LIB.impl('_softmax_grad_python', _softmax_grad_impl, "CUDA")
else:
    _LIB.impl('softmax_grad', _softmax_grad_impl, "CPU")
    _LIB.impl('softmax_grad', _softmax_grad_impl, "CUDA")
torch.library.register_fake('opgen::softmax_grad', _softmax_grad_fake, lib=_LIB)
_torch_autograd.register_autograd('opgen::softmax_grad', _no_gradient('SoftmaxGrad', 'it is the gradient of Softmax (no second derivative is declared)'),
                                  setup_context=_no_context, lib=_LIB, gated=GATED)


# -- CudnnRNNBackpropV3 --------------------------------------------------------------------------
if not NATIVE:
    _LIB.define("cudnn_rnn_backprop_v3(Tensor input, Tensor input_h, Tensor input_c, Tensor params, Tensor sequence_lengths, Tensor output, Tensor output_h, Tensor output_c, Tensor output_backprop, Tensor output_h_backprop, Tensor output_c_backprop, Tensor reserve_space, Tensor host_reserved, *, str rnn_mode='lstm', str input_mode='linear_input', str direction='unidirectional', float dropout=0.0, int seed=0, int seed2=0, int num_proj=0, bool time_major=True, bool compute_input_backprop=True) -> (Tensor, Tensor, Tensor, Tensor)")


def _cudnn_rnn_backprop_v3_impl(input: Any, input_h: Any, input_c: Any, params: Any, sequence_lengths: Any, output: Any, output_h: Any, output_c: Any, output_backprop: Any, output_h_backprop: Any, output_c_backprop: Any, reserve_space: Any, host_reserved: Any, *, rnn_mode: Any = 'lstm', input_mode: Any = 'linear_input', direction: Any = 'unidirectional', dropout: Any = 0.0, seed: Any = 0, seed2: Any = 0, num_proj: Any = 0, time_major: Any = True, compute_input_backprop: Any = True) -> Any:
    out = _tb.run_registered('CudnnRNNBackpropV3', _cudnn_rnn_backprop_v3._compute, {'input': input, 'input_h': input_h, 'input_c': input_c, 'params': params, 'sequence_lengths': sequence_lengths, 'output': output, 'output_h': output_h, 'output_c': output_c, 'output_backprop': output_backprop, 'output_h_backprop': output_h_backprop, 'output_c_backprop': output_c_backprop, 'reserve_space': reserve_space, 'host_reserved': host_reserved}, (rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj, time_major, compute_input_backprop))
    return tuple(out)


def _cudnn_rnn_backprop_v3_fake(input: Any, input_h: Any, input_c: Any, params: Any, sequence_lengths: Any, output: Any, output_h: Any, output_c: Any, output_backprop: Any, output_h_backprop: Any, output_c_backprop: Any, reserve_space: Any, host_reserved: Any, *, rnn_mode: Any = 'lstm', input_mode: Any = 'linear_input', direction: Any = 'unidirectional', dropout: Any = 0.0, seed: Any = 0, seed2: Any = 0, num_proj: Any = 0, time_major: Any = True, compute_input_backprop: Any = True) -> Any:
    backend = _tb.fake_backend('CudnnRNNBackpropV3', {'input': input, 'input_h': input_h, 'input_c': input_c, 'params': params, 'sequence_lengths': sequence_lengths, 'output': output, 'output_h': output_h, 'output_c': output_c, 'output_backprop': output_backprop, 'output_h_backprop': output_h_backprop, 'output_c_backprop': output_c_backprop, 'reserve_space': reserve_space, 'host_reserved': host_reserved})
    out = _cudnn_rnn_backprop_v3._fake(backend, input, input_h, input_c, params, sequence_lengths, output, output_h, output_c, output_backprop, output_h_backprop, output_c_backprop, reserve_space, host_reserved, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj, time_major, compute_input_backprop)
    return tuple(out)


if NATIVE:  # (the helper that runs a call the op's driver hands back: its Python kernel)
    _LIB.define("_cudnn_rnn_backprop_v3_python(Tensor input, Tensor input_h, Tensor input_c, Tensor params, Tensor sequence_lengths, Tensor output, Tensor output_h, Tensor output_c, Tensor output_backprop, Tensor output_h_backprop, Tensor output_c_backprop, Tensor reserve_space, Tensor host_reserved, *, str rnn_mode='lstm', str input_mode='linear_input', str direction='unidirectional', float dropout=0.0, int seed=0, int seed2=0, int num_proj=0, bool time_major=True, bool compute_input_backprop=True) -> (Tensor, Tensor, Tensor, Tensor)")
    _LIB.impl('_cudnn_rnn_backprop_v3_python', _cudnn_rnn_backprop_v3_impl, "CPU")
    _LIB.impl('_cudnn_rnn_backprop_v3_python', _cudnn_rnn_backprop_v3_impl, "CUDA")
else:
    _LIB.impl('cudnn_rnn_backprop_v3', _cudnn_rnn_backprop_v3_impl, "CPU")
    _LIB.impl('cudnn_rnn_backprop_v3', _cudnn_rnn_backprop_v3_impl, "CUDA")
torch.library.register_fake('opgen::cudnn_rnn_backprop_v3', _cudnn_rnn_backprop_v3_fake, lib=_LIB)
_torch_autograd.register_autograd('opgen::cudnn_rnn_backprop_v3', _no_gradient('CudnnRNNBackpropV3', 'it is the gradient of CudnnRNNV3 (no second derivative is declared)'),
                                  setup_context=_no_context, lib=_LIB, gated=GATED)


# -- CudnnRNNCanonicalToParamsV2 -----------------------------------------------------------------
if not NATIVE:
    _LIB.define("cudnn_rnn_canonical_to_params_v2(int num_layers, int num_units, int input_size, Tensor[] weights, Tensor[] biases, *, int num_params_weights=0, int num_params_biases=0, str rnn_mode='lstm', str input_mode='linear_input', str direction='unidirectional', float dropout=0.0, int seed=0, int seed2=0, int num_proj=0) -> Tensor")


def _cudnn_rnn_canonical_to_params_v2_impl(num_layers: Any, num_units: Any, input_size: Any, weights: Any, biases: Any, *, num_params_weights: Any = 0, num_params_biases: Any = 0, rnn_mode: Any = 'lstm', input_mode: Any = 'linear_input', direction: Any = 'unidirectional', dropout: Any = 0.0, seed: Any = 0, seed2: Any = 0, num_proj: Any = 0) -> Any:
    out = _tb.run_registered('CudnnRNNCanonicalToParamsV2', _cudnn_rnn_canonical_to_params_v2._compute, {'num_layers': num_layers, 'num_units': num_units, 'input_size': input_size, 'weights': weights, 'biases': biases}, (num_params_weights, num_params_biases, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj))
    return out[0]


def _cudnn_rnn_canonical_to_params_v2_fake(num_layers: Any, num_units: Any, input_size: Any, weights: Any, biases: Any, *, num_params_weights: Any = 0, num_params_biases: Any = 0, rnn_mode: Any = 'lstm', input_mode: Any = 'linear_input', direction: Any = 'unidirectional', dropout: Any = 0.0, seed: Any = 0, seed2: Any = 0, num_proj: Any = 0) -> Any:
    backend = _tb.fake_backend('CudnnRNNCanonicalToParamsV2', {'num_layers': num_layers, 'num_units': num_units, 'input_size': input_size, 'weights': weights, 'biases': biases})
    out = _cudnn_rnn_canonical_to_params_v2._fake(backend, num_layers, num_units, input_size, weights, biases, num_params_weights, num_params_biases, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj)
    return out[0]


_LIB.impl('cudnn_rnn_canonical_to_params_v2', _cudnn_rnn_canonical_to_params_v2_impl, "CPU")
_LIB.impl('cudnn_rnn_canonical_to_params_v2', _cudnn_rnn_canonical_to_params_v2_impl, "CUDA")
torch.library.register_fake('opgen::cudnn_rnn_canonical_to_params_v2', _cudnn_rnn_canonical_to_params_v2_fake, lib=_LIB)
_torch_autograd.register_autograd('opgen::cudnn_rnn_canonical_to_params_v2', _no_gradient('CudnnRNNCanonicalToParamsV2', 'its spec declares no gradient op'),
                                  setup_context=_no_context, lib=_LIB, gated=GATED)


# -- CudnnRNNParamsSize --------------------------------------------------------------------------
if not NATIVE:
    _LIB.define("cudnn_rnn_params_size(int num_layers, int num_units, int input_size, *, str t, str s, str rnn_mode='lstm', str input_mode='linear_input', str direction='unidirectional', float dropout=0.0, int seed=0, int seed2=0, int num_proj=0) -> Tensor")


def _cudnn_rnn_params_size_impl(num_layers: Any, num_units: Any, input_size: Any, *, t: Any, s: Any, rnn_mode: Any = 'lstm', input_mode: Any = 'linear_input', direction: Any = 'unidirectional', dropout: Any = 0.0, seed: Any = 0, seed2: Any = 0, num_proj: Any = 0) -> Any:
    out = _tb.run_registered('CudnnRNNParamsSize', _cudnn_rnn_params_size._compute, {'num_layers': num_layers, 'num_units': num_units, 'input_size': input_size}, (t, s, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj))
    return out[0]


def _cudnn_rnn_params_size_fake(num_layers: Any, num_units: Any, input_size: Any, *, t: Any, s: Any, rnn_mode: Any = 'lstm', input_mode: Any = 'linear_input', direction: Any = 'unidirectional', dropout: Any = 0.0, seed: Any = 0, seed2: Any = 0, num_proj: Any = 0) -> Any:
    backend = _tb.fake_backend('CudnnRNNParamsSize', {'num_layers': num_layers, 'num_units': num_units, 'input_size': input_size})
    out = _cudnn_rnn_params_size._fake(backend, num_layers, num_units, input_size, t, s, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj)
    return out[0]


_LIB.impl('cudnn_rnn_params_size', _cudnn_rnn_params_size_impl, "CompositeExplicitAutograd")  # no tensor picks a device: CPU
torch.library.register_fake('opgen::cudnn_rnn_params_size', _cudnn_rnn_params_size_fake, lib=_LIB)
_torch_autograd.register_autograd('opgen::cudnn_rnn_params_size', _no_gradient('CudnnRNNParamsSize', 'its spec declares no gradient op'),
                                  setup_context=_no_context, lib=_LIB, gated=GATED)


# -- CudnnRNNParamsToCanonicalV2 -----------------------------------------------------------------
if not NATIVE:
    _LIB.define("cudnn_rnn_params_to_canonical_v2(int num_layers, int num_units, int input_size, Tensor params, *, int num_params_weights, int num_params_biases, str rnn_mode='lstm', str input_mode='linear_input', str direction='unidirectional', float dropout=0.0, int seed=0, int seed2=0, int num_proj=0) -> (Tensor[], Tensor[])")


def _cudnn_rnn_params_to_canonical_v2_impl(num_layers: Any, num_units: Any, input_size: Any, params: Any, *, num_params_weights: Any, num_params_biases: Any, rnn_mode: Any = 'lstm', input_mode: Any = 'linear_input', direction: Any = 'unidirectional', dropout: Any = 0.0, seed: Any = 0, seed2: Any = 0, num_proj: Any = 0) -> Any:
    out = _tb.run_registered('CudnnRNNParamsToCanonicalV2', _cudnn_rnn_params_to_canonical_v2._compute, {'num_layers': num_layers, 'num_units': num_units, 'input_size': input_size, 'params': params}, (num_params_weights, num_params_biases, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj))
    return tuple(out)


def _cudnn_rnn_params_to_canonical_v2_fake(num_layers: Any, num_units: Any, input_size: Any, params: Any, *, num_params_weights: Any, num_params_biases: Any, rnn_mode: Any = 'lstm', input_mode: Any = 'linear_input', direction: Any = 'unidirectional', dropout: Any = 0.0, seed: Any = 0, seed2: Any = 0, num_proj: Any = 0) -> Any:
    backend = _tb.fake_backend('CudnnRNNParamsToCanonicalV2', {'num_layers': num_layers, 'num_units': num_units, 'input_size': input_size, 'params': params})
    out = _cudnn_rnn_params_to_canonical_v2._fake(backend, num_layers, num_units, input_size, params, num_params_weights, num_params_biases, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj)
    return tuple(out)


_LIB.impl('cudnn_rnn_params_to_canonical_v2', _cudnn_rnn_params_to_canonical_v2_impl, "CPU")
_LIB.impl('cudnn_rnn_params_to_canonical_v2', _cudnn_rnn_params_to_canonical_v2_impl, "CUDA")
torch.library.register_fake('opgen::cudnn_rnn_params_to_canonical_v2', _cudnn_rnn_params_to_canonical_v2_fake, lib=_LIB)
_torch_autograd.register_autograd('opgen::cudnn_rnn_params_to_canonical_v2', _no_gradient('CudnnRNNParamsToCanonicalV2', 'its spec declares no gradient op'),
                                  setup_context=_no_context, lib=_LIB, gated=GATED)


# -- CudnnRNNV3 ----------------------------------------------------------------------------------
if not NATIVE:
    _LIB.define("cudnn_rnn_v3(Tensor input, Tensor input_h, Tensor input_c, Tensor params, Tensor sequence_lengths, *, str rnn_mode='lstm', str input_mode='linear_input', str direction='unidirectional', float dropout=0.0, int seed=0, int seed2=0, int num_proj=0, bool is_training=True, bool time_major=True) -> (Tensor, Tensor, Tensor, Tensor, Tensor)")


def _cudnn_rnn_v3_impl(input: Any, input_h: Any, input_c: Any, params: Any, sequence_lengths: Any, *, rnn_mode: Any = 'lstm', input_mode: Any = 'linear_input', direction: Any = 'unidirectional', dropout: Any = 0.0, seed: Any = 0, seed2: Any = 0, num_proj: Any = 0, is_training: Any = True, time_major: Any = True) -> Any:
    out = _tb.run_registered('CudnnRNNV3', _cudnn_rnn_v3._compute, {'input': input, 'input_h': input_h, 'input_c': input_c, 'params': params, 'sequence_lengths': sequence_lengths}, (rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj, is_training, time_major))
    return tuple(out)


def _cudnn_rnn_v3_fake(input: Any, input_h: Any, input_c: Any, params: Any, sequence_lengths: Any, *, rnn_mode: Any = 'lstm', input_mode: Any = 'linear_input', direction: Any = 'unidirectional', dropout: Any = 0.0, seed: Any = 0, seed2: Any = 0, num_proj: Any = 0, is_training: Any = True, time_major: Any = True) -> Any:
    backend = _tb.fake_backend('CudnnRNNV3', {'input': input, 'input_h': input_h, 'input_c': input_c, 'params': params, 'sequence_lengths': sequence_lengths})
    out = _cudnn_rnn_v3._fake(backend, input, input_h, input_c, params, sequence_lengths, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj, is_training, time_major)
    return tuple(out)


if NATIVE:  # (the helper that runs a call the op's driver hands back: its Python kernel)
    _LIB.define("_cudnn_rnn_v3_python(Tensor input, Tensor input_h, Tensor input_c, Tensor params, Tensor sequence_lengths, *, str rnn_mode='lstm', str input_mode='linear_input', str direction='unidirectional', float dropout=0.0, int seed=0, int seed2=0, int num_proj=0, bool is_training=True, bool time_major=True) -> (Tensor, Tensor, Tensor, Tensor, Tensor)")
    _LIB.impl('_cudnn_rnn_v3_python', _cudnn_rnn_v3_impl, "CPU")
    _LIB.impl('_cudnn_rnn_v3_python', _cudnn_rnn_v3_impl, "CUDA")
else:
    _LIB.impl('cudnn_rnn_v3', _cudnn_rnn_v3_impl, "CPU")
    _LIB.impl('cudnn_rnn_v3', _cudnn_rnn_v3_impl, "CUDA")
torch.library.register_fake('opgen::cudnn_rnn_v3', _cudnn_rnn_v3_fake, lib=_LIB)


def _cudnn_rnn_v3_setup_context(ctx: Any, inputs: Any, keyword_only_inputs: Any, output: Any) -> None:
    input, input_h, input_c, params, sequence_lengths = inputs
    output, output_h, output_c, reserve_space, host_reserved = output
    ctx.save_for_backward(input, input_h, input_c, params, sequence_lengths, output, output_h, output_c, reserve_space, host_reserved)
    ctx.attrs = keyword_only_inputs
    ctx.mark_non_differentiable(reserve_space, host_reserved)
    ctx.set_materialize_grads(False)
    ctx.has_backward = bool(keyword_only_inputs['is_training'])


def _cudnn_rnn_v3_backward(ctx: Any, *grads: Any) -> Any:
    if not ctx.has_backward:
        raise RuntimeError('CudnnRNNV3' + ': backward needs is_training=True; the forward ran without it')
    input, input_h, input_c, params, sequence_lengths, output, output_h, output_c, reserve_space, host_reserved = ctx.saved_tensors
    grad_output, grad_output_h, grad_output_c, _grad_reserve_space, _grad_host_reserved = grads
    grad_output = torch.zeros_like(output) if grad_output is None else grad_output
    grad_output_c = torch.zeros_like(output_c) if grad_output_c is None else grad_output_c
    grad_output_h = torch.zeros_like(output_h) if grad_output_h is None else grad_output_h
    input_backprop, input_h_backprop, input_c_backprop, params_backprop = torch.ops.opgen.cudnn_rnn_backprop_v3(input, input_h, input_c, params, sequence_lengths, output, output_h, output_c, grad_output.contiguous(), grad_output_h.contiguous(), grad_output_c.contiguous(), reserve_space, host_reserved, rnn_mode=ctx.attrs['rnn_mode'], input_mode=ctx.attrs['input_mode'], direction=ctx.attrs['direction'], dropout=ctx.attrs['dropout'], seed=ctx.attrs['seed'], seed2=ctx.attrs['seed2'], num_proj=ctx.attrs['num_proj'], time_major=ctx.attrs['time_major'], compute_input_backprop=ctx.needs_input_grad[0])
    return input_backprop, input_h_backprop, input_c_backprop, params_backprop, None


_torch_autograd.register_autograd('opgen::cudnn_rnn_v3', _cudnn_rnn_v3_backward,
                                  setup_context=_cudnn_rnn_v3_setup_context, lib=_LIB, gated=GATED)


# -- DmlRnn --------------------------------------------------------------------------------------
if not NATIVE:
    _LIB.define("dml_rnn(Tensor input, Tensor weight, Tensor recurrence, Tensor? bias=None, Tensor? hidden_init=None, Tensor? sequence_lengths=None, *, str direction='forward', str[]? activations=None) -> (Tensor, Tensor)")


def _dml_rnn_impl(input: Any, weight: Any, recurrence: Any, bias: Any = None, hidden_init: Any = None, sequence_lengths: Any = None, *, direction: Any = 'forward', activations: Any = None) -> Any:
    out = _tb.run_registered('DmlRnn', _dml_rnn._compute, {'input': input, 'weight': weight, 'recurrence': recurrence, 'bias': bias, 'hidden_init': hidden_init, 'sequence_lengths': sequence_lengths}, (direction, activations if activations is not None else 'tanh'))
    return tuple(out)


def _dml_rnn_fake(input: Any, weight: Any, recurrence: Any, bias: Any = None, hidden_init: Any = None, sequence_lengths: Any = None, *, direction: Any = 'forward', activations: Any = None) -> Any:
    backend = _tb.fake_backend('DmlRnn', {'input': input, 'weight': weight, 'recurrence': recurrence, 'bias': bias, 'hidden_init': hidden_init, 'sequence_lengths': sequence_lengths})
    out = _dml_rnn._fake(backend, input, weight, recurrence, bias, hidden_init, sequence_lengths, direction, activations if activations is not None else 'tanh')
    return tuple(out)


if NATIVE:  # (the helper that runs a call the op's driver hands back: its Python kernel)
    _LIB.define("_dml_rnn_python(Tensor input, Tensor weight, Tensor recurrence, Tensor? bias=None, Tensor? hidden_init=None, Tensor? sequence_lengths=None, *, str direction='forward', str[]? activations=None) -> (Tensor, Tensor)")
    _LIB.impl('_dml_rnn_python', _dml_rnn_impl, "CPU")
    _LIB.impl('_dml_rnn_python', _dml_rnn_impl, "CUDA")
else:
    _LIB.impl('dml_rnn', _dml_rnn_impl, "CPU")
    _LIB.impl('dml_rnn', _dml_rnn_impl, "CUDA")
torch.library.register_fake('opgen::dml_rnn', _dml_rnn_fake, lib=_LIB)
_torch_autograd.register_autograd('opgen::dml_rnn', _no_gradient('DmlRnn', 'its spec declares no gradient op'),
                                  setup_context=_no_context, lib=_LIB, gated=GATED)


# -- GRUBlockCell --------------------------------------------------------------------------------
if not NATIVE:
    _LIB.define('gru_block_cell(Tensor x, Tensor h_prev, Tensor w_ru, Tensor w_c, Tensor b_ru, Tensor b_c) -> (Tensor, Tensor, Tensor, Tensor)')


def _gru_block_cell_impl(x: Any, h_prev: Any, w_ru: Any, w_c: Any, b_ru: Any, b_c: Any) -> Any:
    warnings.warn("GRUBlockCell is deprecated: " + 'TensorFlow has deprecated GRUBlockCell. Its page warns that the API will be removed in a future version once its replacement is stable.', DeprecationWarning, stacklevel=2)
    out = _tb.run_registered('GRUBlockCell', _gru_block_cell._compute, {'x': x, 'h_prev': h_prev, 'w_ru': w_ru, 'w_c': w_c, 'b_ru': b_ru, 'b_c': b_c}, ())
    return tuple(out)


def _gru_block_cell_fake(x: Any, h_prev: Any, w_ru: Any, w_c: Any, b_ru: Any, b_c: Any) -> Any:
    backend = _tb.fake_backend('GRUBlockCell', {'x': x, 'h_prev': h_prev, 'w_ru': w_ru, 'w_c': w_c, 'b_ru': b_ru, 'b_c': b_c})
    out = _gru_block_cell._fake(backend, x, h_prev, w_ru, w_c, b_ru, b_c)
    return tuple(out)


if NATIVE:  # (the helper that runs a call the op's driver hands back: its Python kernel)
    _LIB.define('_gru_block_cell_python(Tensor x, Tensor h_prev, Tensor w_ru, Tensor w_c, Tensor b_ru, Tensor b_c) -> (Tensor, Tensor, Tensor, Tensor)')
    _LIB.impl('_gru_block_cell_python', _gru_block_cell_impl, "CPU")
    _LIB.impl('_gru_block_cell_python', _gru_block_cell_impl, "CUDA")
else:
    _LIB.impl('gru_block_cell', _gru_block_cell_impl, "CPU")
    _LIB.impl('gru_block_cell', _gru_block_cell_impl, "CUDA")
torch.library.register_fake('opgen::gru_block_cell', _gru_block_cell_fake, lib=_LIB)


def _gru_block_cell_setup_context(ctx: Any, inputs: Any, output: Any) -> None:
    x, h_prev, w_ru, w_c, b_ru, b_c = inputs
    r, u, c, _h = output
    ctx.save_for_backward(x, h_prev, w_ru, w_c, b_ru, b_c, r, u, c)
    ctx.attrs = {}
    ctx.mark_non_differentiable(r, u, c)
    ctx.set_materialize_grads(False)


def _gru_block_cell_backward(ctx: Any, *grads: Any) -> Any:
    x, h_prev, w_ru, w_c, b_ru, b_c, r, u, c = ctx.saved_tensors
    _grad_r, _grad_u, _grad_c, grad_h = grads
    d_x, d_h_prev, d_c_bar, d_r_bar_u_bar = torch.ops.opgen.gru_block_cell_grad(x, h_prev, w_ru, w_c, b_ru, b_c, r, u, c, grad_h.contiguous())
    from opgen_ops.gru import gru_block_cell_weight_grads as _helper
    _grad_w_ru, _grad_w_c, _grad_b_ru, _grad_b_c = _helper(x, h_prev, r, d_r_bar_u_bar, d_c_bar)
    return d_x, d_h_prev, _grad_w_ru, _grad_w_c, _grad_b_ru, _grad_b_c


_torch_autograd.register_autograd('opgen::gru_block_cell', _gru_block_cell_backward,
                                  setup_context=_gru_block_cell_setup_context, lib=_LIB, gated=GATED)


# -- GRUBlockCellGrad ----------------------------------------------------------------------------
if not NATIVE:
    _LIB.define('gru_block_cell_grad(Tensor x, Tensor h_prev, Tensor w_ru, Tensor w_c, Tensor b_ru, Tensor b_c, Tensor r, Tensor u, Tensor c, Tensor d_h) -> (Tensor, Tensor, Tensor, Tensor)')


def _gru_block_cell_grad_impl(x: Any, h_prev: Any, w_ru: Any, w_c: Any, b_ru: Any, b_c: Any, r: Any, u: Any, c: Any, d_h: Any) -> Any:
    warnings.warn("GRUBlockCellGrad is deprecated: " + 'TensorFlow has deprecated GRUBlockCellGrad. Its page warns that the API will be removed in a future version once its replacement is stable.', DeprecationWarning, stacklevel=2)
    out = _tb.run_registered('GRUBlockCellGrad', _gru_block_cell_grad._compute, {'x': x, 'h_prev': h_prev, 'w_ru': w_ru, 'w_c': w_c, 'b_ru': b_ru, 'b_c': b_c, 'r': r, 'u': u, 'c': c, 'd_h': d_h}, ())
    return tuple(out)


def _gru_block_cell_grad_fake(x: Any, h_prev: Any, w_ru: Any, w_c: Any, b_ru: Any, b_c: Any, r: Any, u: Any, c: Any, d_h: Any) -> Any:
    backend = _tb.fake_backend('GRUBlockCellGrad', {'x': x, 'h_prev': h_prev, 'w_ru': w_ru, 'w_c': w_c, 'b_ru': b_ru, 'b_c': b_c, 'r': r, 'u': u, 'c': c, 'd_h': d_h})
    out = _gru_block_cell_grad._fake(backend, x, h_prev, w_ru, w_c, b_ru, b_c, r, u, c, d_h)
    return tuple(out)


if NATIVE:  # (the helper that runs a call the op's driver hands back: its Python kernel)
    _LIB.define('_gru_block_cell_grad_python(Tensor x, Tensor h_prev, Tensor w_ru, Tensor w_c, Tensor b_ru, Tensor b_c, Tensor r, Tensor u, Tensor c, Tensor d_h) -> (Tensor, Tensor, Tensor, Tensor)')
    _LIB.impl('_gru_block_cell_grad_python', _gru_block_cell_grad_impl, "CPU")
    _LIB.impl('_gru_block_cell_grad_python', _gru_block_cell_grad_impl, "CUDA")
else:
    _LIB.impl('gru_block_cell_grad', _gru_block_cell_grad_impl, "CPU")
    _LIB.impl('gru_block_cell_grad', _gru_block_cell_grad_impl, "CUDA")
torch.library.register_fake('opgen::gru_block_cell_grad', _gru_block_cell_grad_fake, lib=_LIB)
_torch_autograd.register_autograd('opgen::gru_block_cell_grad', _no_gradient('GRUBlockCellGrad', 'it is the gradient of GRUBlockCell (no second derivative is declared)'),
                                  setup_context=_no_context, lib=_LIB, gated=GATED)


if _NATIVE_LIBRARY is not None:  # (every helper is defined: calls the drivers hand back now run them)
    _torch_library.enable_python_path(_NATIVE_LIBRARY)


#: opgen's drop-in torch.nn modules (docs/pytorch.md), imported on first use: opgen_ops.torch_nn
#: imports this module (the ops it runs), so this module does not import it.
_DROP_IN = ("GRU", "LSTM", "RNN", "BatchNorm2d")


def __getattr__(name: str) -> Any:
    if name in _DROP_IN:
        from opgen_ops import torch_nn

        return getattr(torch_nn, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
