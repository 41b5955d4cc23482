# generated from specs/rnn/cudnn_rnn_v3.yaml by opgen — do not edit (opgen 0.1.0)
"""CudnnRNNV3: A RNN backed by cuDNN."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as _np

# isort: split
from codegen.runtime import api as _rt
from codegen.runtime.kernels import KernelSource
from codegen.runtime.scope import Scope

_OP = 'CudnnRNNV3'
_KERNELS = KernelSource(_OP, Path(__file__).with_name("cudnn_rnn.cu"))
# The launch plan as data (codegen/runtime/plan.py): what _compute runs, recorded once per set of sizes
# and attrs; the loop in _compute is the same plan as Python (OPGEN_PLAN=loop runs it).
_PLAN = _rt.Plan('CudnnRNNV3', ('_dtype_T', 'seq_blocks', 'seq_threads', 'swap0', 'swap1', 'input_size', 'num_layers', 'skip', 'out_width', 'dirs', 'w0', 'w1', 'layers_dirs', 'pl_size', 'rows', 'acts', 'gate_width', 'h_size', 'weights_len', 'steps', 'batch', 'lstm', 'num_units', 'gates', 'cell_blocks', 'cell_threads', 'time_major', 'persistent_blocks', 'rnn_kind', 'relu', 'persistent', 'row_blocks', 'row_threads', 'proj', 'rnn_mode', 'gru', 'gemm_steps', 'fused_row_tiles', 'fused_unit_tiles', 'fused_h_tiles', 'fused', 'dropout', 'seed', 'seed2', 'is_training'), ('input', 'xt', 'params', 'gx', 'work', 'input_h', 'input_c', 'rt', 'gh', 'sequence_lengths', 'output_h', 'output_c', 'output'), (
    ('launch', 'to_time_major', ('_dtype_T',), ('seq_blocks',), ('seq_threads',), 0, (('buf', 0), ('buf', 1), ('scalar', '_np.int64', 'swap0', None, ()), ('scalar', '_np.int64', 'swap1', None, ()), ('scalar', '_np.int64', 'input_size', None, ())), ()),
    ('repeat', 'l', 'num_layers', (('first', ('-', 1, ('min', 'l', 1))), ('in_width', ('+', ('*', ('*', 'first', 'input_size'), ('-', 1, 'skip')), ('*', ('-', 1, 'first'), 'out_width'))), ('layer_wofs', ('+', ('*', ('*', ('-', 1, 'first'), 'dirs'), 'w0'), ('*', ('*', ('max', ('-', 'l', 1), 0), 'dirs'), 'w1'))), ('layer_w', ('+', 'w1', ('*', 'first', ('-', 'w0', 'w1')))), ('x_ofs', ('+', ('*', 'layers_dirs', 'pl_size'), ('*', ('*', ('*', ('-', 'l', 1), 2), 'rows'), 'out_width'))), ('next_x_ofs', ('+', ('*', 'layers_dirs', 'pl_size'), ('*', ('*', ('*', 'l', 2), 'rows'), 'out_width'))), ('layer_hs_ofs', ('+', ('*', ('*', 'l', 'dirs'), 'pl_size'), ('*', 'rows', 'acts'))), ('layer_rofs', ('+', 'layer_wofs', ('*', 'gate_width', 'in_width'))), ('layer_pofs', ('+', 'layer_rofs', ('*', 'gate_width', 'h_size'))), ('layer_bofs', ('+', 'weights_len', ('*', ('*', ('*', 'l', 'dirs'), 2), 'gate_width'))), ('layer_acts_ofs', ('*', ('*', 'l', 'dirs'), 'pl_size')), ('layer_cs_ofs', ('+', 'layer_hs_ofs', ('*', ('*', ('+', 'steps', 1), 'batch'), 'h_size'))), ('layer_ms_ofs', ('+', 'layer_cs_ofs', ('*', ('*', ('*', 'lstm', ('+', 'steps', 1)), 'batch'), 'num_units')))), (('gemm', 1, 2, 3, ('rows', 'gate_width', 'input_size', False, True, 0, 0, 'layer_wofs', 0, 'dirs', 0, 'layer_w', ('*', 'rows', 'gate_width')), (('==', ('+', 'l', 'skip'), 0),)), ('gemm', 4, 2, 3, ('rows', 'gate_width', 'out_width', False, True, 0, 'x_ofs', 'layer_wofs', 0, 'dirs', 0, 'layer_w', ('*', 'rows', 'gate_width')), (('>', 'l', 0),)), ('repeat', 'd', 'dirs', (('p', ('+', ('*', 'l', 'dirs'), 'd')), ('hs_ofs', ('+', 'layer_hs_ofs', ('*', 'd', 'pl_size'))), ('cs_ofs', ('+', 'hs_ofs', ('*', ('*', ('+', 'steps', 1), 'batch'), 'h_size'))), ('gx_ofs', ('*', ('*', 'd', 'rows'), 'gate_width'))), (('launch', 'skip_projection', ('_dtype_T',), ('seq_blocks',), ('seq_threads',), 0, (('buf', 1), ('buf', 3), ('scalar', '_np.int64', 'rows', None, ()), ('scalar', '_np.int64', 'gates', None, ()), ('scalar', '_np.int64', 'num_units', None, ()), ('scalar', '_np.int64', 'gx_ofs', None, ())), (('==', 'l', 0), ('==', 'skip', 1))), ('launch', 'init_state', ('_dtype_T',), ('cell_blocks',), ('cell_threads',), 0, (('buf', 5), ('buf', 6), ('buf', 4), ('scalar', '_np.int64', 'p', None, ()), ('scalar', '_np.int64', 'd', None, ()), ('scalar', '_np.int64', 'layers_dirs', None, ()), ('scalar', '_np.int64', 'steps', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'h_size', None, ()), ('scalar', '_np.int64', 'num_units', None, ()), ('scalar', '_np.int64', 'hs_ofs', None, ()), ('scalar', '_np.int64', 'cs_ofs', None, ()), ('scalar', '_np.int64', 'lstm', None, ()), ('scalar', '_np.int32', 'time_major', None, ())), ())), (), 0), ('launch', 'transpose_r', ('_dtype_T',), ('cell_blocks', 'dirs'), ('cell_threads',), 0, (('buf', 2), ('buf', 7), ('scalar', '_np.int64', 'layer_rofs', None, ()), ('scalar', '_np.int64', 'layer_w', None, ()), ('scalar', '_np.int64', 'gate_width', None, ()), ('scalar', '_np.int64', 'h_size', None, ())), (('backend', 'cpu'),)), ('launch', 'persistent_layer', ('_dtype_T',), ('persistent_blocks', 'dirs'), (256,), 0, (('buf', 3), ('buf', 8), ('buf', 2), ('buf', 4), ('buf', 9), ('scalar', '_np.int64', 'steps', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'num_units', None, ()), ('scalar', '_np.int64', 'gates', None, ()), ('scalar', '_np.int64', 'rnn_kind', None, ()), ('scalar', '_np.int64', 'relu', None, ()), ('scalar', '_np.int64', 'layer_rofs', None, ()), ('scalar', '_np.int64', 'layer_w', None, ()), ('scalar', '_np.int64', 'layer_bofs', None, ()), ('scalar', '_np.int64', 'layer_acts_ofs', None, ()), ('scalar', '_np.int64', 'layer_hs_ofs', None, ()), ('scalar', '_np.int64', 'layer_cs_ofs', None, ()), ('scalar', '_np.int64', 'pl_size', None, ())), ('persistent',)), ('repeat', 's', 'steps', (), (('gemm', 4, 2, 8, ('batch', 'gate_width', 'h_size', False, True, 0, ('+', 'layer_hs_ofs', ('*', ('*', 's', 'batch'), 'h_size')), 'layer_rofs', 0, 'dirs', ('+', 'pl_size', ('*', ('*', ('-', 'steps', ('*', 2, 's')), 'batch'), 'h_size')), 'layer_w', ('*', 'batch', 'gate_width')), (('backend', 'cuda'),)), ('gemm', 4, 7, 8, ('batch', 'gate_width', 'h_size', False, False, 0, ('+', 'layer_hs_ofs', ('*', ('*', 's', 'batch'), 'h_size')), 0, 0, 'dirs', ('+', 'pl_size', ('*', ('*', ('-', 'steps', ('*', 2, 's')), 'batch'), 'h_size')), ('*', 'gate_width', 'h_size'), ('*', 'batch', 'gate_width')), (('backend', 'cpu'),)), ('launch', 'lstm_step', ('_dtype_T',), ('row_blocks', 'dirs'), ('row_threads',), 0, (('buf', 3), ('buf', 8), ('buf', 2), ('buf', 4), ('buf', 9), ('scalar', '_np.int64', 's', None, ()), ('scalar', '_np.int64', 'steps', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'num_units', None, ()), ('scalar', '_np.int64', 'h_size', None, ()), ('scalar', '_np.int64', 'proj', None, ()), ('scalar', '_np.int64', 'layer_bofs', None, ()), ('scalar', '_np.int64', 'layer_acts_ofs', None, ()), ('scalar', '_np.int64', 'layer_hs_ofs', None, ()), ('scalar', '_np.int64', 'layer_cs_ofs', None, ()), ('scalar', '_np.int64', 'layer_ms_ofs', None, ()), ('scalar', '_np.int64', 'pl_size', None, ())), (('attr', 'rnn_mode', 'lstm'),)), ('gemm', 4, 2, 4, ('batch', 'h_size', 'num_units', False, True, 0, ('+', 'layer_ms_ofs', ('*', ('*', 's', 'batch'), 'num_units')), 'layer_pofs', ('+', 'layer_hs_ofs', ('*', ('*', ('+', 's', 1), 'batch'), 'h_size')), 'dirs', ('+', 'pl_size', ('*', ('*', ('-', ('-', 'steps', 1), ('*', 2, 's')), 'batch'), 'num_units')), 'layer_w', ('+', 'pl_size', ('*', ('*', ('-', ('-', 'steps', 2), ('*', 2, 's')), 'batch'), 'h_size'))), (('==', 'proj', 1),)), ('launch', 'proj_carry', ('_dtype_T',), ('cell_blocks', 'dirs'), ('cell_threads',), 0, (('buf', 4), ('buf', 9), ('scalar', '_np.int64', 's', None, ()), ('scalar', '_np.int64', 'steps', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'h_size', None, ()), ('scalar', '_np.int64', 'layer_hs_ofs', None, ()), ('scalar', '_np.int64', 'pl_size', None, ())), (('==', 'proj', 1),)), ('launch', 'gru_step', ('_dtype_T',), ('row_blocks', 'dirs'), ('row_threads',), 0, (('buf', 3), ('buf', 8), ('buf', 2), ('buf', 4), ('buf', 9), ('scalar', '_np.int64', 's', None, ()), ('scalar', '_np.int64', 'steps', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'num_units', None, ()), ('scalar', '_np.int64', 'layer_bofs', None, ()), ('scalar', '_np.int64', 'layer_acts_ofs', None, ()), ('scalar', '_np.int64', 'layer_hs_ofs', None, ()), ('scalar', '_np.int64', 'pl_size', None, ())), (('attr', 'rnn_mode', 'gru'),)), ('launch', 'rnn_step', ('_dtype_T',), ('row_blocks', 'dirs'), ('row_threads',), 0, (('buf', 3), ('buf', 8), ('buf', 2), ('buf', 4), ('buf', 9), ('scalar', '_np.int64', 's', None, ()), ('scalar', '_np.int64', 'steps', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'num_units', None, ()), ('scalar', '_np.int64', 'layer_bofs', None, ()), ('scalar', '_np.int64', 'layer_hs_ofs', None, ()), ('scalar', '_np.int64', 'relu', None, ()), ('scalar', '_np.int64', 'pl_size', None, ())), (('==', ('+', 'lstm', 'gru'), 0),))), ('gemm_steps',), 'dirs'), ('repeat', 's', 'steps', (), (('launch', 'fused_step', ('_dtype_T',), ('fused_row_tiles', 'fused_unit_tiles', 'dirs'), (256,), 0, (('buf', 3), ('buf', 8), ('buf', 2), ('buf', 4), ('buf', 9), ('scalar', '_np.int64', 's', None, ()), ('scalar', '_np.int64', 'steps', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'num_units', None, ()), ('scalar', '_np.int64', 'h_size', None, ()), ('scalar', '_np.int64', 'gates', None, ()), ('scalar', '_np.int64', 'rnn_kind', None, ()), ('scalar', '_np.int64', 'relu', None, ()), ('scalar', '_np.int64', 'proj', None, ()), ('scalar', '_np.int64', 'layer_rofs', None, ()), ('scalar', '_np.int64', 'layer_w', None, ()), ('scalar', '_np.int64', 'layer_bofs', None, ()), ('scalar', '_np.int64', 'layer_acts_ofs', None, ()), ('scalar', '_np.int64', 'layer_hs_ofs', None, ()), ('scalar', '_np.int64', 'layer_cs_ofs', None, ()), ('scalar', '_np.int64', 'layer_ms_ofs', None, ()), ('scalar', '_np.int64', 'pl_size', None, ())), ()), ('launch', 'fused_proj', ('_dtype_T',), ('fused_row_tiles', 'fused_h_tiles', 'dirs'), (256,), 0, (('buf', 2), ('buf', 4), ('buf', 9), ('scalar', '_np.int64', 's', None, ()), ('scalar', '_np.int64', 'steps', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'num_units', None, ()), ('scalar', '_np.int64', 'h_size', None, ()), ('scalar', '_np.int64', 'layer_pofs', None, ()), ('scalar', '_np.int64', 'layer_w', None, ()), ('scalar', '_np.int64', 'layer_hs_ofs', None, ()), ('scalar', '_np.int64', 'layer_ms_ofs', None, ()), ('scalar', '_np.int64', 'pl_size', None, ())), (('==', 'proj', 1),))), ('fused',), 0), ('repeat', 'd', 'dirs', (('p', ('+', ('*', 'l', 'dirs'), 'd')), ('hs_ofs', ('+', ('*', 'p', 'pl_size'), ('*', 'rows', 'acts'))), ('cs_ofs', ('+', 'hs_ofs', ('*', ('*', ('+', 'steps', 1), 'batch'), 'h_size')))), (('launch', 'final_state', ('_dtype_T',), ('cell_blocks',), ('cell_threads',), 0, (('buf', 10), ('buf', 11), ('buf', 4), ('scalar', '_np.int64', 'p', None, ()), ('scalar', '_np.int64', 'd', None, ()), ('scalar', '_np.int64', 'layers_dirs', None, ()), ('scalar', '_np.int64', 'steps', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'h_size', None, ()), ('scalar', '_np.int64', 'num_units', None, ()), ('scalar', '_np.int64', 'hs_ofs', None, ()), ('scalar', '_np.int64', 'cs_ofs', None, ()), ('scalar', '_np.int64', 'lstm', None, ()), ('scalar', '_np.int32', 'time_major', None, ())), ()),), (), 0), ('launch', 'layer_output', ('_dtype_T',), ('seq_blocks',), ('seq_threads',), 0, (('buf', 4), ('buf', 12), ('buf', 9), ('scalar', '_np.int64', 'l', None, ()), ('scalar', '_np.int64', 'num_layers', None, ()), ('scalar', '_np.int64', 'dirs', None, ()), ('scalar', '_np.int64', 'steps', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'h_size', None, ()), ('scalar', '_np.int64', 'layer_hs_ofs', None, ()), ('scalar', '_np.int64', 'pl_size', None, ()), ('scalar', '_np.int64', 'next_x_ofs', None, ()), ('scalar', '_np.float32', 'dropout', None, ('_dtype_T',)), ('scalar', '_np.int64', 'seed', None, ()), ('scalar', '_np.int64', 'seed2', None, ()), ('scalar', '_np.int32', 'is_training', None, ()), ('scalar', '_np.int32', 'time_major', None, ())), ())), (), 0),
), {
    'to_time_major': {('float16',): 'CudnnRNNV3__to_time_major__float16', ('float32',): 'CudnnRNNV3__to_time_major__float32', ('float64',): 'CudnnRNNV3__to_time_major__float64'},
    'skip_projection': {('float16',): 'CudnnRNNV3__skip_projection__float16', ('float32',): 'CudnnRNNV3__skip_projection__float32', ('float64',): 'CudnnRNNV3__skip_projection__float64'},
    'init_state': {('float16',): 'CudnnRNNV3__init_state__float16', ('float32',): 'CudnnRNNV3__init_state__float32', ('float64',): 'CudnnRNNV3__init_state__float64'},
    'transpose_r': {('float16',): 'CudnnRNNV3__transpose_r__float16', ('float32',): 'CudnnRNNV3__transpose_r__float32', ('float64',): 'CudnnRNNV3__transpose_r__float64'},
    'persistent_layer': {('float16',): 'CudnnRNNV3__persistent_layer__float16', ('float32',): 'CudnnRNNV3__persistent_layer__float32', ('float64',): 'CudnnRNNV3__persistent_layer__float64'},
    'lstm_step': {('float16',): 'CudnnRNNV3__lstm_step__float16', ('float32',): 'CudnnRNNV3__lstm_step__float32', ('float64',): 'CudnnRNNV3__lstm_step__float64'},
    'proj_carry': {('float16',): 'CudnnRNNV3__proj_carry__float16', ('float32',): 'CudnnRNNV3__proj_carry__float32', ('float64',): 'CudnnRNNV3__proj_carry__float64'},
    'gru_step': {('float16',): 'CudnnRNNV3__gru_step__float16', ('float32',): 'CudnnRNNV3__gru_step__float32', ('float64',): 'CudnnRNNV3__gru_step__float64'},
    'rnn_step': {('float16',): 'CudnnRNNV3__rnn_step__float16', ('float32',): 'CudnnRNNV3__rnn_step__float32', ('float64',): 'CudnnRNNV3__rnn_step__float64'},
    'fused_step': {('float16',): 'CudnnRNNV3__fused_step__float16', ('float32',): 'CudnnRNNV3__fused_step__float32', ('float64',): 'CudnnRNNV3__fused_step__float64'},
    'fused_proj': {('float16',): 'CudnnRNNV3__fused_proj__float16', ('float32',): 'CudnnRNNV3__fused_proj__float32', ('float64',): 'CudnnRNNV3__fused_proj__float64'},
    'final_state': {('float16',): 'CudnnRNNV3__final_state__float16', ('float32',): 'CudnnRNNV3__final_state__float32', ('float64',): 'CudnnRNNV3__final_state__float64'},
    'layer_output': {('float16',): 'CudnnRNNV3__layer_output__float16', ('float32',): 'CudnnRNNV3__layer_output__float32', ('float64',): 'CudnnRNNV3__layer_output__float64'},
}, variants=('persistent', 'fused', 'gemm_steps'), params={'persistent_max_weights': 4096, 'persistent_max_batch': 64, 'fused_max_depth': 128})
# The op's native driver (codegen/runtime/native_driver.py): _compute hands it the call first.
_NATIVE = _rt.NativeDriver(_OP, _KERNELS, _PLAN, Path(__file__).with_name("cudnn_rnn_v3.driver.cpp"))

RnnMode = Literal['rnn_relu', 'rnn_tanh', 'lstm', 'gru']

InputMode = Literal['linear_input', 'skip_input', 'auto_select']

Direction = Literal['unidirectional', 'bidirectional']


class CudnnRNNV3Outputs(NamedTuple):
    """The outputs of CudnnRNNV3, in order."""

    output: Any
    """T, shape [steps, batch, out_width] (time_major true) · [batch, steps, out_width] (time_major false). If time_major is true, a 3-D tensor of shape [seq_length, batch_size, dir * num_units]; if false, [batch_size, seq_length, dir * num_units]. Zero past each sequence's length."""
    output_h: Any
    """T, shape [layers_dirs, batch, h_size] (time_major true) · [batch, layers_dirs, h_size] (time_major false). The same shape as input_h; each direction's final state."""
    output_c: Any
    """T, shape [c_layers, batch, num_units] (time_major true) · [batch, c_layers, num_units] (time_major false). The same shape as input_c for LSTM. An empty tensor for other models."""
    reserve_space: Any
    """T, shape [reserve_size]. What CudnnRNNBackpropV3 needs (activations, states, layer inputs, dropout masks); empty when is_training is false."""
    host_reserved: Any
    """int8, shape [0]. An empty placeholder (this implementation keeps nothing on the host)."""


class CudnnRNNV3:
    """A RNN backed by cuDNN.

    Computes the RNN from the input and initial states, with respect to the params buffer. Accepts
    one extra input "sequence_lengths" than CudnnRNN. B is the batch size, T the number of time
    steps, I the input size, H num_units, Hh the width of h (H, or num_proj with a projection),
    L the number of layers, D the number of directions (1 or 2), σ the logistic sigmoid, ∘ the
    elementwise product; every gate has an input-side bias bW and a recurrent bias bR:

        rnn_relu, rnn_tanh:  h_t = act(W·x_t + bW + R·h_{t−1} + bR)
        lstm:  i, f, o = σ(W_*·x_t + bW_* + R_*·h_{t−1} + bR_*);  c̃ = tanh(W_c·x_t + bW_c + R_c·h_{t−1} + bR_c)
               c_t = f∘c_{t−1} + i∘c̃;  h_t = o∘tanh(c_t), or P_proj·(o∘tanh(c_t)) with num_proj > 0
        gru (linear before reset):  r, u = σ(W_*·x_t + bW_* + R_*·h_{t−1} + bR_*)
               h̃ = tanh(W_h·x_t + bW_h + r∘(R_h·h_{t−1} + bR_h));  h_t = (1 − u)∘h̃ + u∘h_{t−1}

    No forget-gate bias is added and nothing is clipped. With skip_input (or auto_select and
    I = H) the first layer has no input matrices: x_t itself is added to every gate. A
    bidirectional layer's output is [forward | backward]; layer l > 0 reads layer l − 1's output.
    output_h[l·D + d] (and output_c) hold each direction's final state.

    sequence_lengths: sequence b is processed for t < len[b] (1 ≤ len[b] ≤ T); output is zero for
    t ≥ len[b]; the forward direction's final state is that of step len[b] − 1, and the backward
    direction starts at t = len[b] − 1 from the initial state (its final state is that of step 0).

    dropout: when training with dropout > 0, each non-final layer's output is multiplied by a mask
    before it feeds the next layer: element i (time-major flat index over [T, B, D·Hh]) of layer
    l's output is kept, scaled by 1/(1 − dropout), when u ≥ dropout, u = (z >> 40)·2^-24 with
    z = mix(key + (i + 1)·0x9E3779B97F4A7C15), key = mix(mix(seed) ^ (seed2 + (l + 1)·0xD1B54A32D192ED03))
    in 64-bit unsigned arithmetic and mix splitmix64's finalizer (z ^= z >> 30; z *= 0xBF58476D1CE4E5B9;
    z ^= z >> 27; z *= 0x94D049BB133111EB; z ^= z >> 31). The same seeds on the same shapes give the same
    mask on every backend (also for seed = seed2 = 0, which TensorFlow would randomise); the mask is
    kept in reserve_space for CudnnRNNBackpropV3. Dropout never touches x, the recurrence or the
    final layer's output.

    params is this project's opaque layout (see CudnnRNNParamsSize): the canonical weights, then
    the canonical biases, flattened in cuDNN's order. CudnnRNNCanonicalToParamsV2 builds it.

    Internally every layer runs one GEMM for the input projections of all steps and both directions
    (a strided batch), then per time step one batched GEMM for both directions' recurrent products and
    one kernel for both directions' gates (direction 1 walking time backwards; with a projection, a
    second batched GEMM and a small kernel): the cpu backend's plan, and the GPU's where
    gates·max(num_units, h_size) > fused_max_depth. Below that, on a GPU, the recurrent product and the
    gates are one launch per time step for both directions (the fused variant: each block computes its
    tile of 32 sequences × 32 units of h_{t−1}·Rᵀ, then those cells' gates; with a projection a second
    launch forms h), or, for small sizes without a projection (gates·num_units² ≤
    persistent_max_weights, batch ≤ persistent_max_batch), one launch per layer for all steps of both
    directions (the persistent variant). The thresholds are the family's params (Parameters, below).
    reserve_space (training only; empty for
    inference, which then works in a scratch buffer of the same layout) holds, per pseudo-layer
    p = l·D + d, the gate activations [T, B, 4H] (lstm: i f c̃ o; gru: r u h̃ (R_h·h + bR_h); none
    for rnn_*), the h states [T + 1, B, Hh], the c states [T + 1, B, H] (lstm) and o∘tanh(c)
    [T, B, H] (lstm with a projection); then, per layer l ≥ 1, its input [T, B, D·Hh] (after
    dropout) and the dropout mask. Arithmetic is in float (double for float64 tensors).

    Create it with `CudnnRNNV3.create(scope, input, input_h, input_c, params, sequence_lengths, *options)`, or call
    `cudnn_rnn_v3(...)`. The reference page is generated/docs/rnn/cudnn_rnn_v3.md.
    """

    OP_NAME = 'CudnnRNNV3'
    Outputs = CudnnRNNV3Outputs

    class Options:
        """Optional attributes for CudnnRNNV3; each setter returns the Options, so calls chain."""

        __slots__ = ("_values",)

        def __init__(self) -> None:
            self._values: dict[str, Any] = {}

        def rnn_mode(self, rnn_mode: RnnMode) -> CudnnRNNV3.Options:
            """Sets rnn_mode (default 'lstm'). Indicates the type of the RNN model."""
            self._values['rnn_mode'] = rnn_mode
            return self

        def input_mode(self, input_mode: InputMode) -> CudnnRNNV3.Options:
            """Sets input_mode (default 'linear_input'). Indicates whether there is a linear projection between the input and the actual computation before the first layer. 'skip_input' is only allowed when input_size == num_units; 'auto_select' implies 'skip_input' when input_size == num_units; otherwise, it implies 'linear_input'."""
            self._values['input_mode'] = input_mode
            return self

        def direction(self, direction: Direction) -> CudnnRNNV3.Options:
            """Sets direction (default 'unidirectional'). Indicates whether a bidirectional model will be used."""
            self._values['direction'] = direction
            return self

        def dropout(self, dropout: float) -> CudnnRNNV3.Options:
            """Sets dropout (default 0.0). Dropout probability between layers. When set to 0, dropout is disabled."""
            self._values['dropout'] = dropout
            return self

        def seed(self, seed: int) -> CudnnRNNV3.Options:
            """Sets seed (default 0). The 1st part of a seed to initialize dropout."""
            self._values['seed'] = seed
            return self

        def seed2(self, seed2: int) -> CudnnRNNV3.Options:
            """Sets seed2 (default 0). The 2nd part of a seed to initialize dropout."""
            self._values['seed2'] = seed2
            return self

        def num_proj(self, num_proj: int) -> CudnnRNNV3.Options:
            """Sets num_proj (default 0). The output size of the LSTM projection (0: no projection; lstm only)."""
            self._values['num_proj'] = num_proj
            return self

        def is_training(self, is_training: bool) -> CudnnRNNV3.Options:
            """Sets is_training (default True). Indicates whether this operation is used for inference or training (dropout, and a reserve space for the backward)."""
            self._values['is_training'] = is_training
            return self

        def time_major(self, time_major: bool) -> CudnnRNNV3.Options:
            """Sets time_major (default True). Indicates whether the input/output format is time major or batch major."""
            self._values['time_major'] = time_major
            return self

        def __repr__(self) -> str:
            items = ", ".join(f"{key}={value!r}" for key, value in self._values.items())
            return f"CudnnRNNV3.Options({items})"

    @staticmethod
    def rnn_mode(rnn_mode: RnnMode) -> CudnnRNNV3.Options:
        """Options with rnn_mode set (default 'lstm')."""
        return CudnnRNNV3.Options().rnn_mode(rnn_mode)

    @staticmethod
    def input_mode(input_mode: InputMode) -> CudnnRNNV3.Options:
        """Options with input_mode set (default 'linear_input')."""
        return CudnnRNNV3.Options().input_mode(input_mode)

    @staticmethod
    def direction(direction: Direction) -> CudnnRNNV3.Options:
        """Options with direction set (default 'unidirectional')."""
        return CudnnRNNV3.Options().direction(direction)

    @staticmethod
    def dropout(dropout: float) -> CudnnRNNV3.Options:
        """Options with dropout set (default 0.0)."""
        return CudnnRNNV3.Options().dropout(dropout)

    @staticmethod
    def seed(seed: int) -> CudnnRNNV3.Options:
        """Options with seed set (default 0)."""
        return CudnnRNNV3.Options().seed(seed)

    @staticmethod
    def seed2(seed2: int) -> CudnnRNNV3.Options:
        """Options with seed2 set (default 0)."""
        return CudnnRNNV3.Options().seed2(seed2)

    @staticmethod
    def num_proj(num_proj: int) -> CudnnRNNV3.Options:
        """Options with num_proj set (default 0)."""
        return CudnnRNNV3.Options().num_proj(num_proj)

    @staticmethod
    def is_training(is_training: bool) -> CudnnRNNV3.Options:
        """Options with is_training set (default True)."""
        return CudnnRNNV3.Options().is_training(is_training)

    @staticmethod
    def time_major(time_major: bool) -> CudnnRNNV3.Options:
        """Options with time_major set (default True)."""
        return CudnnRNNV3.Options().time_major(time_major)

    @classmethod
    def create(
        cls,
        scope: Scope | str | None,
        input: Any,
        input_h: Any,
        input_c: Any,
        params: Any,
        sequence_lengths: Any,
        *options: CudnnRNNV3.Options,
    ) -> CudnnRNNV3:
        """Factory method to create a class wrapping a new CudnnRNNV3 operation.

        Args:
            scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).
            input: T, shape [steps, batch, input_size] (time_major true) · [batch, steps, input_size] (time_major false).
                If time_major is true, a 3-D tensor of shape [seq_length, batch_size,
                input_size]; if false, [batch_size, seq_length, input_size].
            input_h: T, shape [layers_dirs, batch, h_size] (time_major true) · [batch, layers_dirs, h_size] (time_major false).
                If time_major is true, a 3-D tensor of shape [num_layer * dir,
                batch_size, num_units]; if false, [batch_size, num_layer * dir,
                num_units] (num_units is num_proj with a projection).
            input_c: T, shape [layers_dirs, batch, c_size] (time_major true) · [batch, layers_dirs, c_size] (time_major false).
                For LSTM, a 3-D tensor of the shape of input_h but with num_units as its
                last dimension. For other models it is ignored (any tensor, an empty one
                say).
            params: T, shape [params_len].
                A 1-D tensor that contains the weights and biases in the opaque layout
                (CudnnRNNParamsSize elements; CudnnRNNCanonicalToParamsV2 builds it).
            sequence_lengths: int32, shape [batch].
                A vector of lengths of each input sequence, each in [1, seq_length] (the
                kernels stay in bounds whatever the values).
            options: CudnnRNNV3.Options carrying optional attribute values.

        Raises:
            TypeError: an argument has the wrong type or dtype.
            ValueError: a shape or an attribute value is not valid.
        """
        _merged = _rt.merge_options(_OP, options, cls.Options)
        return cls(_run(
            scope, input, input_h, input_c, params, sequence_lengths,
            _merged.get('rnn_mode', 'lstm'),
            _merged.get('input_mode', 'linear_input'),
            _merged.get('direction', 'unidirectional'),
            _merged.get('dropout', 0.0),
            _merged.get('seed', 0),
            _merged.get('seed2', 0),
            _merged.get('num_proj', 0),
            _merged.get('is_training', True),
            _merged.get('time_major', True),
        ))

    def __init__(self, outputs: CudnnRNNV3Outputs) -> None:
        self._outputs = outputs

    @property
    def output(self) -> Any:
        """If time_major is true, a 3-D tensor of shape [seq_length, batch_size, dir * num_units]; if false, [batch_size, seq_length, dir * num_units]. Zero past each sequence's length."""
        return self._outputs.output

    @property
    def output_h(self) -> Any:
        """The same shape as input_h; each direction's final state."""
        return self._outputs.output_h

    @property
    def output_c(self) -> Any:
        """The same shape as input_c for LSTM. An empty tensor for other models."""
        return self._outputs.output_c

    @property
    def reserve_space(self) -> Any:
        """What CudnnRNNBackpropV3 needs (activations, states, layer inputs, dropout masks); empty when is_training is false."""
        return self._outputs.reserve_space

    @property
    def host_reserved(self) -> Any:
        """An empty placeholder (this implementation keeps nothing on the host)."""
        return self._outputs.host_reserved

    def output_tuple(self) -> CudnnRNNV3Outputs:
        """All outputs, in order."""
        return self._outputs

    def __repr__(self) -> str:
        return _rt.op_repr(_OP, self._outputs)


def cudnn_rnn_v3(
    input: Any,
    input_h: Any,
    input_c: Any,
    params: Any,
    sequence_lengths: Any,
    *,
    rnn_mode: RnnMode = 'lstm',
    input_mode: InputMode = 'linear_input',
    direction: Direction = 'unidirectional',
    dropout: float = 0.0,
    seed: int = 0,
    seed2: int = 0,
    num_proj: int = 0,
    is_training: bool = True,
    time_major: bool = True,
    scope: Scope | str | None = None,
) -> CudnnRNNV3Outputs:
    """A RNN backed by cuDNN.

    Args:
        input: T, shape [steps, batch, input_size] (time_major true) · [batch, steps, input_size] (time_major false).
            If time_major is true, a 3-D tensor of shape [seq_length, batch_size,
            input_size]; if false, [batch_size, seq_length, input_size].
        input_h: T, shape [layers_dirs, batch, h_size] (time_major true) · [batch, layers_dirs, h_size] (time_major false).
            If time_major is true, a 3-D tensor of shape [num_layer * dir, batch_size,
            num_units]; if false, [batch_size, num_layer * dir, num_units] (num_units is
            num_proj with a projection).
        input_c: T, shape [layers_dirs, batch, c_size] (time_major true) · [batch, layers_dirs, c_size] (time_major false).
            For LSTM, a 3-D tensor of the shape of input_h but with num_units as its
            last dimension. For other models it is ignored (any tensor, an empty one
            say).
        params: T, shape [params_len].
            A 1-D tensor that contains the weights and biases in the opaque layout
            (CudnnRNNParamsSize elements; CudnnRNNCanonicalToParamsV2 builds it).
        sequence_lengths: int32, shape [batch].
            A vector of lengths of each input sequence, each in [1, seq_length] (the
            kernels stay in bounds whatever the values).
        rnn_mode: enum in ['rnn_relu', 'rnn_tanh', 'lstm', 'gru']; default 'lstm'.
            Indicates the type of the RNN model.
        input_mode: enum in ['linear_input', 'skip_input', 'auto_select']; default 'linear_input'.
            Indicates whether there is a linear projection between the input and the
            actual computation before the first layer. 'skip_input' is only allowed when
            input_size == num_units; 'auto_select' implies 'skip_input' when input_size
            == num_units; otherwise, it implies 'linear_input'.
        direction: enum in ['unidirectional', 'bidirectional']; default 'unidirectional'.
            Indicates whether a bidirectional model will be used.
        dropout: float, >= 0, <= 1; default 0.0.
            Dropout probability between layers. When set to 0, dropout is disabled.
        seed: int; default 0.
            The 1st part of a seed to initialize dropout.
        seed2: int; default 0.
            The 2nd part of a seed to initialize dropout.
        num_proj: int, >= 0; default 0.
            The output size of the LSTM projection (0: no projection; lstm only).
        is_training: bool; default True.
            Indicates whether this operation is used for inference or training (dropout,
            and a reserve space for the backward).
        time_major: bool; default True.
            Indicates whether the input/output format is time major or batch major.
        scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).

    Returns:
        CudnnRNNV3Outputs(output, output_h, output_c, reserve_space, host_reserved).

    Raises:
        TypeError: an argument has the wrong type or dtype.
        ValueError: a shape or an attribute value is not valid.
    """
    if type(input) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (input, input_h, input_c, params, sequence_lengths), (rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj, is_training, time_major), CudnnRNNV3Outputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(input, input_h, input_c, params, sequence_lengths)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'input': input, 'input_h': input_h, 'input_c': input_c, 'params': params, 'sequence_lengths': sequence_lengths}, (rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj, is_training, time_major))
    return _compute(scope, input, input_h, input_c, params, sequence_lengths, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj, is_training, time_major)


def _run(scope: Scope | str | None, input: Any, input_h: Any, input_c: Any, params: Any, sequence_lengths: Any, rnn_mode: Any, input_mode: Any, direction: Any, dropout: Any, seed: Any, seed2: Any, num_proj: Any, is_training: Any, time_major: Any) -> CudnnRNNV3Outputs:
    if type(input) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (input, input_h, input_c, params, sequence_lengths), (rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj, is_training, time_major), CudnnRNNV3Outputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(input, input_h, input_c, params, sequence_lengths)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'input': input, 'input_h': input_h, 'input_c': input_c, 'params': params, 'sequence_lengths': sequence_lengths}, (rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj, is_training, time_major))
    return _compute(scope, input, input_h, input_c, params, sequence_lengths, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj, is_training, time_major)


def _compute(scope: Scope | str | None, input: Any, input_h: Any, input_c: Any, params: Any, sequence_lengths: Any, rnn_mode: Any, input_mode: Any, direction: Any, dropout: Any, seed: Any, seed2: Any, num_proj: Any, is_training: Any, time_major: Any) -> CudnnRNNV3Outputs:
    _backend = _rt.backend_of(scope, _OP)
    _native = _NATIVE.call(_backend, (input, input_h, input_c, params, sequence_lengths), (rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj, is_training, time_major), CudnnRNNV3Outputs)
    if _native is not None:  # the op's native driver ran the call (its outputs made as this NamedTuple)
        return _native
    rnn_mode = _rt.check_enum(_OP, 'rnn_mode', rnn_mode, ('rnn_relu', 'rnn_tanh', 'lstm', 'gru'))
    input_mode = _rt.check_enum(_OP, 'input_mode', input_mode, ('linear_input', 'skip_input', 'auto_select'))
    direction = _rt.check_enum(_OP, 'direction', direction, ('unidirectional', 'bidirectional'))
    dropout = _rt.check_float(_OP, 'dropout', dropout, 0, 1)
    seed = _rt.check_int(_OP, 'seed', seed, None, None, None)
    seed2 = _rt.check_int(_OP, 'seed2', seed2, None, None, None)
    num_proj = _rt.check_int(_OP, 'num_proj', num_proj, 0, None, None)
    is_training = _rt.check_bool(_OP, 'is_training', is_training)
    time_major = _rt.check_bool(_OP, 'time_major', time_major)
    input = _backend.adopt(_OP, 'input', input)
    _dtype_T = _rt.check_dtype(_OP, 'input', input, ('float16', 'float32', 'float64'), 'T')
    input_h = _backend.adopt(_OP, 'input_h', input_h)
    _rt.check_same_dtype(_OP, 'input_h', input_h, _dtype_T, 'T', 'input')
    input_c = _backend.adopt(_OP, 'input_c', input_c)
    if rnn_mode == 'lstm':
        _rt.check_same_dtype(_OP, 'input_c', input_c, _dtype_T, 'T', 'input')
    params = _backend.adopt(_OP, 'params', params)
    _rt.check_same_dtype(_OP, 'params', params, _dtype_T, 'T', 'input')
    sequence_lengths = _backend.adopt(_OP, 'sequence_lengths', sequence_lengths)
    _rt.check_dtype(_OP, 'sequence_lengths', sequence_lengths, ('int32',))
    if time_major:
        if input.ndim != 3:
            raise _rt.shape_error(_OP, 'input', ('steps', 'batch', 'input_size'), input.shape, {}, 'time_major true')
        steps = input.shape[0]
        batch = input.shape[1]
        input_size = input.shape[2]
        if input_h.ndim != 3:
            raise _rt.shape_error(_OP, 'input_h', ('layers_dirs', 'batch', 'h_size'), input_h.shape, {'batch': batch}, 'time_major true')
        layers_dirs = input_h.shape[0]
        h_size = input_h.shape[2]
        if input_h.shape[1] != batch:
            raise _rt.shape_error(_OP, 'input_h', ('layers_dirs', 'batch', 'h_size'), input_h.shape, {'batch': batch, 'h_size': h_size, 'layers_dirs': layers_dirs}, 'time_major true')
        if rnn_mode == 'lstm':
            if input_c.ndim != 3:
                raise _rt.shape_error(_OP, 'input_c', ('layers_dirs', 'batch', 'c_size'), input_c.shape, {'batch': batch, 'layers_dirs': layers_dirs}, 'time_major true')
            c_size = input_c.shape[2]
            if input_c.shape[0] != layers_dirs or input_c.shape[1] != batch:
                raise _rt.shape_error(_OP, 'input_c', ('layers_dirs', 'batch', 'c_size'), input_c.shape, {'batch': batch, 'c_size': c_size, 'layers_dirs': layers_dirs}, 'time_major true')
        if params.ndim != 1:
            raise _rt.shape_error(_OP, 'params', ('params_len',), params.shape, {}, 'time_major true')
        params_len = params.shape[0]
        if sequence_lengths.ndim != 1:
            raise _rt.shape_error(_OP, 'sequence_lengths', ('batch',), sequence_lengths.shape, {'batch': batch}, 'time_major true')
        if sequence_lengths.shape[0] != batch:
            raise _rt.shape_error(_OP, 'sequence_lengths', ('batch',), sequence_lengths.shape, {'batch': batch}, 'time_major true')
        persistent_max_weights = 4096
        persistent_max_batch = 64
        fused_max_depth = 128
        dirs = (1 if direction == 'unidirectional' else 2)
        gates = (1 if rnn_mode in ('rnn_relu', 'rnn_tanh') else 4 if rnn_mode == 'lstm' else 3)
        lstm = (0 if rnn_mode in ('rnn_relu', 'rnn_tanh', 'gru') else 1)
        gru = (0 if rnn_mode in ('rnn_relu', 'rnn_tanh', 'lstm') else 1)
        relu = (1 if rnn_mode == 'rnn_relu' else 0)
        num_units = (h_size if rnn_mode in ('rnn_relu', 'rnn_tanh', 'gru') else c_size)
        num_layers = layers_dirs//dirs
        proj = min(num_proj, 1)
        skip = (0 if input_mode == 'linear_input' else 1 if input_mode == 'skip_input' else 1 - min((input_size - num_units)*(input_size - num_units), 1))
        gate_width = gates*num_units
        acts = 4*num_units*(lstm + gru)
        rows = steps*batch
        out_width = dirs*h_size
        c_layers = layers_dirs*lstm
        w0 = gate_width*input_size*(1 - skip) + gate_width*h_size + num_proj*num_units
        w1 = gate_width*out_width + gate_width*h_size + num_proj*num_units
        weights_len = dirs*w0 + (num_layers - 1)*dirs*w1
        params_size = weights_len + layers_dirs*2*gate_width
        pl_size = rows*acts + (steps + 1)*batch*h_size + lstm*(steps + 1)*batch*num_units + proj*rows*num_units
        reserve_len = layers_dirs*pl_size + (num_layers - 1)*2*rows*out_width
        swap0 = 1
        swap1 = rows
        cells = batch*num_units
        cell_blocks = (1 if _backend.name == 'cpu' else min((-(-cells//256)), 65535))
        cell_threads = (1 if _backend.name == 'cpu' else max(32, min(256, 32*(-(-cells//128)))))
        row_blocks = (min(batch, 4) if _backend.name == 'cpu' else min(batch, 65535))
        gpu_row_threads = (256 if rnn_mode in ('rnn_relu', 'rnn_tanh') else max(128, min(256, 32*(-(-num_units//32)))))
        row_threads = (1 if _backend.name == 'cpu' else gpu_row_threads)
        persistent_blocks = (-(-batch//4))
        fused_depth = gates*max(num_units, h_size)
        persistent = _backend.name == 'cuda' and proj == 0 and gate_width*h_size >= 1 and gate_width*h_size <= persistent_max_weights and batch >= 1 and batch <= persistent_max_batch
        fused = not persistent and (_backend.name == 'cuda' and fused_depth <= fused_max_depth)
        gemm_steps = not persistent and not fused
        fused_row_tiles = (-(-batch//32))
        fused_unit_tiles = (-(-num_units//32))
        fused_h_tiles = min((-(-h_size//32)), (-(-fused_max_depth//(4*32))))
        seq_cells = rows*max(input_size, out_width)
        seq_blocks = (min(16, (-(-seq_cells//65536))) if _backend.name == 'cpu' else min((-(-seq_cells//256)), 65535))
        seq_threads = (1 if _backend.name == 'cpu' else max(32, min(256, 32*(-(-seq_cells//128)))))
        reserve_size = (reserve_len if is_training else 0)
        rnn_kind = lstm + 2*gru
        on_cpu = (1 if _backend.name == 'cpu' else 0)
        _shape_output = [steps, batch, out_width]
        _shape_output_h = [layers_dirs, batch, h_size]
        _shape_output_c = [c_layers, batch, num_units]
        _shape_reserve_space = [reserve_size]
        _shape_host_reserved = [0]
    else:
        if input.ndim != 3:
            raise _rt.shape_error(_OP, 'input', ('batch', 'steps', 'input_size'), input.shape, {}, 'time_major false')
        batch = input.shape[0]
        steps = input.shape[1]
        input_size = input.shape[2]
        if input_h.ndim != 3:
            raise _rt.shape_error(_OP, 'input_h', ('batch', 'layers_dirs', 'h_size'), input_h.shape, {'batch': batch}, 'time_major false')
        layers_dirs = input_h.shape[1]
        h_size = input_h.shape[2]
        if input_h.shape[0] != batch:
            raise _rt.shape_error(_OP, 'input_h', ('batch', 'layers_dirs', 'h_size'), input_h.shape, {'batch': batch, 'h_size': h_size, 'layers_dirs': layers_dirs}, 'time_major false')
        if rnn_mode == 'lstm':
            if input_c.ndim != 3:
                raise _rt.shape_error(_OP, 'input_c', ('batch', 'layers_dirs', 'c_size'), input_c.shape, {'batch': batch, 'layers_dirs': layers_dirs}, 'time_major false')
            c_size = input_c.shape[2]
            if input_c.shape[0] != batch or input_c.shape[1] != layers_dirs:
                raise _rt.shape_error(_OP, 'input_c', ('batch', 'layers_dirs', 'c_size'), input_c.shape, {'batch': batch, 'c_size': c_size, 'layers_dirs': layers_dirs}, 'time_major false')
        if params.ndim != 1:
            raise _rt.shape_error(_OP, 'params', ('params_len',), params.shape, {}, 'time_major false')
        params_len = params.shape[0]
        if sequence_lengths.ndim != 1:
            raise _rt.shape_error(_OP, 'sequence_lengths', ('batch',), sequence_lengths.shape, {'batch': batch}, 'time_major false')
        if sequence_lengths.shape[0] != batch:
            raise _rt.shape_error(_OP, 'sequence_lengths', ('batch',), sequence_lengths.shape, {'batch': batch}, 'time_major false')
        persistent_max_weights = 4096
        persistent_max_batch = 64
        fused_max_depth = 128
        dirs = (1 if direction == 'unidirectional' else 2)
        gates = (1 if rnn_mode in ('rnn_relu', 'rnn_tanh') else 4 if rnn_mode == 'lstm' else 3)
        lstm = (0 if rnn_mode in ('rnn_relu', 'rnn_tanh', 'gru') else 1)
        gru = (0 if rnn_mode in ('rnn_relu', 'rnn_tanh', 'lstm') else 1)
        relu = (1 if rnn_mode == 'rnn_relu' else 0)
        num_units = (h_size if rnn_mode in ('rnn_relu', 'rnn_tanh', 'gru') else c_size)
        num_layers = layers_dirs//dirs
        proj = min(num_proj, 1)
        skip = (0 if input_mode == 'linear_input' else 1 if input_mode == 'skip_input' else 1 - min((input_size - num_units)*(input_size - num_units), 1))
        gate_width = gates*num_units
        acts = 4*num_units*(lstm + gru)
        rows = steps*batch
        out_width = dirs*h_size
        c_layers = layers_dirs*lstm
        w0 = gate_width*input_size*(1 - skip) + gate_width*h_size + num_proj*num_units
        w1 = gate_width*out_width + gate_width*h_size + num_proj*num_units
        weights_len = dirs*w0 + (num_layers - 1)*dirs*w1
        params_size = weights_len + layers_dirs*2*gate_width
        pl_size = rows*acts + (steps + 1)*batch*h_size + lstm*(steps + 1)*batch*num_units + proj*rows*num_units
        reserve_len = layers_dirs*pl_size + (num_layers - 1)*2*rows*out_width
        swap0 = batch
        swap1 = steps
        cells = batch*num_units
        cell_blocks = (1 if _backend.name == 'cpu' else min((-(-cells//256)), 65535))
        cell_threads = (1 if _backend.name == 'cpu' else max(32, min(256, 32*(-(-cells//128)))))
        row_blocks = (min(batch, 4) if _backend.name == 'cpu' else min(batch, 65535))
        gpu_row_threads = (256 if rnn_mode in ('rnn_relu', 'rnn_tanh') else max(128, min(256, 32*(-(-num_units//32)))))
        row_threads = (1 if _backend.name == 'cpu' else gpu_row_threads)
        persistent_blocks = (-(-batch//4))
        fused_depth = gates*max(num_units, h_size)
        persistent = _backend.name == 'cuda' and proj == 0 and gate_width*h_size >= 1 and gate_width*h_size <= persistent_max_weights and batch >= 1 and batch <= persistent_max_batch
        fused = not persistent and (_backend.name == 'cuda' and fused_depth <= fused_max_depth)
        gemm_steps = not persistent and not fused
        fused_row_tiles = (-(-batch//32))
        fused_unit_tiles = (-(-num_units//32))
        fused_h_tiles = min((-(-h_size//32)), (-(-fused_max_depth//(4*32))))
        seq_cells = rows*max(input_size, out_width)
        seq_blocks = (min(16, (-(-seq_cells//65536))) if _backend.name == 'cpu' else min((-(-seq_cells//256)), 65535))
        seq_threads = (1 if _backend.name == 'cpu' else max(32, min(256, 32*(-(-seq_cells//128)))))
        reserve_size = (reserve_len if is_training else 0)
        rnn_kind = lstm + 2*gru
        on_cpu = (1 if _backend.name == 'cpu' else 0)
        _shape_output = [batch, steps, out_width]
        _shape_output_h = [batch, layers_dirs, h_size]
        _shape_output_c = [batch, c_layers, num_units]
        _shape_reserve_space = [reserve_size]
        _shape_host_reserved = [0]
    if not (layers_dirs >= dirs):
        raise _rt.constraint_error(_OP, 'layers_dirs >= dirs', {'dirs': dirs, 'layers_dirs': layers_dirs}, 'input_h must hold num_layers·dirs ≥ dirs states (num_layers ≥ 1)')
    if not (layers_dirs%dirs == 0):
        raise _rt.constraint_error(_OP, 'layers_dirs % dirs == 0', {'dirs': dirs, 'layers_dirs': layers_dirs}, "input_h's layer axis must be num_layers·dirs (2 states per layer when bidirectional)")
    if not (num_proj*(1 - lstm) == 0):
        raise _rt.constraint_error(_OP, 'num_proj*(1 - lstm) == 0', {'lstm': lstm, 'num_proj': num_proj}, 'num_proj (a projection) needs rnn_mode lstm')
    if not (h_size == num_units + proj*(num_proj - num_units)):
        raise _rt.constraint_error(_OP, 'h_size == num_units + proj*(num_proj - num_units)', {'h_size': h_size, 'num_proj': num_proj, 'num_units': num_units, 'proj': proj}, "input_h's last axis must be num_units (input_c's), or num_proj with a projection")
    if input_mode == 'skip_input' and not (input_size == num_units):
        raise _rt.constraint_error(_OP, 'input_size == num_units', {'input_size': input_size, 'num_units': num_units}, 'skip_input needs input_size == num_units')
    if not (params_len == params_size):
        raise _rt.constraint_error(_OP, 'params_len == params_size', {'params_len': params_len, 'params_size': params_size}, 'params must hold CudnnRNNParamsSize elements for these shapes and attrs')
    _rt.check_values_on_device(_backend, _OP, 'sequence_lengths', sequence_lengths, 1, steps, '1', 'steps')
    output = _backend.empty(_shape_output, _dtype_T)
    output_h = _backend.empty(_shape_output_h, _dtype_T)
    output_c = _backend.empty(_shape_output_c, _dtype_T)
    reserve_space = _backend.empty(_shape_reserve_space, _dtype_T)
    host_reserved = _backend.empty(_shape_host_reserved, 'int8')
    work = _rt.alias_view(_OP, 'work', reserve_space, [reserve_len]) if is_training else _backend.empty([reserve_len], _dtype_T)
    xt = _backend.empty([rows*input_size], _dtype_T)
    gx = _backend.empty([dirs*rows*gate_width], _dtype_T)
    gh = _backend.empty([dirs*batch*gate_width], _dtype_T)
    rt = _backend.empty([dirs*gate_width*h_size*on_cpu], _dtype_T)
    if _rt.plan_as_data():
        _rt.run_plan(_backend, _KERNELS, _PLAN, (_dtype_T, seq_blocks, seq_threads, swap0, swap1, input_size, num_layers, skip, out_width, dirs, w0, w1, layers_dirs, pl_size, rows, acts, gate_width, h_size, weights_len, steps, batch, lstm, num_units, gates, cell_blocks, cell_threads, time_major, persistent_blocks, rnn_kind, relu, persistent, row_blocks, row_threads, proj, rnn_mode, gru, gemm_steps, fused_row_tiles, fused_unit_tiles, fused_h_tiles, fused, dropout, seed, seed2, is_training,), (input, xt, params, gx, work, input_h, input_c, rt, gh, sequence_lengths, output_h, output_c, output,))
    else:  # the same plan as Python: for a reader, and run with OPGEN_PLAN=loop
        _rt.hold_if_capturing(_backend, (input, xt, params, gx, work, input_h, input_c, rt, gh, sequence_lengths, output_h, output_c, output,))
        _backend.launch(_KERNELS, _PLAN.symbol('to_time_major', _dtype_T), (seq_blocks,), (seq_threads,), (input, xt, _np.int64(swap0), _np.int64(swap1), _np.int64(input_size),), 0)
        for l in range(num_layers):
            first = 1 - min(l, 1)
            in_width = first*input_size*(1 - skip) + (1 - first)*out_width
            layer_wofs = (1 - first)*dirs*w0 + max(l - 1, 0)*dirs*w1
            layer_w = w1 + first*(w0 - w1)
            x_ofs = layers_dirs*pl_size + (l - 1)*2*rows*out_width
            next_x_ofs = layers_dirs*pl_size + l*2*rows*out_width
            layer_hs_ofs = l*dirs*pl_size + rows*acts
            layer_rofs = layer_wofs + gate_width*in_width
            layer_pofs = layer_rofs + gate_width*h_size
            layer_bofs = weights_len + l*dirs*2*gate_width
            layer_acts_ofs = l*dirs*pl_size
            layer_cs_ofs = layer_hs_ofs + (steps + 1)*batch*h_size
            layer_ms_ofs = layer_cs_ofs + lstm*(steps + 1)*batch*num_units
            if l + skip == 0:
                _backend.gemm(xt, params, gx, rows, gate_width, input_size, False, True, 0, 0, layer_wofs, 0, dirs, 0, layer_w, rows*gate_width)
            if l > 0:
                _backend.gemm(work, params, gx, rows, gate_width, out_width, False, True, 0, x_ofs, layer_wofs, 0, dirs, 0, layer_w, rows*gate_width)
            for d in range(dirs):
                p = l*dirs + d
                hs_ofs = layer_hs_ofs + d*pl_size
                cs_ofs = hs_ofs + (steps + 1)*batch*h_size
                gx_ofs = d*rows*gate_width
                if l == 0 and skip == 1:
                    _backend.launch(_KERNELS, _PLAN.symbol('skip_projection', _dtype_T), (seq_blocks,), (seq_threads,), (xt, gx, _np.int64(rows), _np.int64(gates), _np.int64(num_units), _np.int64(gx_ofs),), 0)
                _backend.launch(_KERNELS, _PLAN.symbol('init_state', _dtype_T), (cell_blocks,), (cell_threads,), (input_h, input_c, work, _np.int64(p), _np.int64(d), _np.int64(layers_dirs), _np.int64(steps), _np.int64(batch), _np.int64(h_size), _np.int64(num_units), _np.int64(hs_ofs), _np.int64(cs_ofs), _np.int64(lstm), _np.int32(time_major),), 0)
            if _backend.name == 'cpu':
                _backend.launch(_KERNELS, _PLAN.symbol('transpose_r', _dtype_T), (cell_blocks, dirs,), (cell_threads,), (params, rt, _np.int64(layer_rofs), _np.int64(layer_w), _np.int64(gate_width), _np.int64(h_size),), 0)
            if persistent:
                _backend.launch(_KERNELS, _PLAN.symbol('persistent_layer', _dtype_T), (persistent_blocks, dirs,), (256,), (gx, gh, params, work, sequence_lengths, _np.int64(steps), _np.int64(batch), _np.int64(num_units), _np.int64(gates), _np.int64(rnn_kind), _np.int64(relu), _np.int64(layer_rofs), _np.int64(layer_w), _np.int64(layer_bofs), _np.int64(layer_acts_ofs), _np.int64(layer_hs_ofs), _np.int64(layer_cs_ofs), _np.int64(pl_size),), 0)
            if gemm_steps:
                for s in range(steps):
                    if _backend.name == 'cuda':
                        _backend.gemm(work, params, gh, batch, gate_width, h_size, False, True, 0, layer_hs_ofs + s*batch*h_size, layer_rofs, 0, dirs, pl_size + (steps - 2*s)*batch*h_size, layer_w, batch*gate_width)
                    if _backend.name == 'cpu':
                        _backend.gemm(work, rt, gh, batch, gate_width, h_size, False, False, 0, layer_hs_ofs + s*batch*h_size, 0, 0, dirs, pl_size + (steps - 2*s)*batch*h_size, gate_width*h_size, batch*gate_width)
                    if rnn_mode == 'lstm':
                        _backend.launch(_KERNELS, _PLAN.symbol('lstm_step', _dtype_T), (row_blocks, dirs,), (row_threads,), (gx, gh, params, work, sequence_lengths, _np.int64(s), _np.int64(steps), _np.int64(batch), _np.int64(num_units), _np.int64(h_size), _np.int64(proj), _np.int64(layer_bofs), _np.int64(layer_acts_ofs), _np.int64(layer_hs_ofs), _np.int64(layer_cs_ofs), _np.int64(layer_ms_ofs), _np.int64(pl_size),), 0)
                    if proj == 1:
                        _backend.gemm(work, params, work, batch, h_size, num_units, False, True, 0, layer_ms_ofs + s*batch*num_units, layer_pofs, layer_hs_ofs + (s + 1)*batch*h_size, dirs, pl_size + (steps - 1 - 2*s)*batch*num_units, layer_w, pl_size + (steps - 2 - 2*s)*batch*h_size)
                    if proj == 1:
                        _backend.launch(_KERNELS, _PLAN.symbol('proj_carry', _dtype_T), (cell_blocks, dirs,), (cell_threads,), (work, sequence_lengths, _np.int64(s), _np.int64(steps), _np.int64(batch), _np.int64(h_size), _np.int64(layer_hs_ofs), _np.int64(pl_size),), 0)
                    if rnn_mode == 'gru':
                        _backend.launch(_KERNELS, _PLAN.symbol('gru_step', _dtype_T), (row_blocks, dirs,), (row_threads,), (gx, gh, params, work, sequence_lengths, _np.int64(s), _np.int64(steps), _np.int64(batch), _np.int64(num_units), _np.int64(layer_bofs), _np.int64(layer_acts_ofs), _np.int64(layer_hs_ofs), _np.int64(pl_size),), 0)
                    if lstm + gru == 0:
                        _backend.launch(_KERNELS, _PLAN.symbol('rnn_step', _dtype_T), (row_blocks, dirs,), (row_threads,), (gx, gh, params, work, sequence_lengths, _np.int64(s), _np.int64(steps), _np.int64(batch), _np.int64(num_units), _np.int64(layer_bofs), _np.int64(layer_hs_ofs), _np.int64(relu), _np.int64(pl_size),), 0)
            if fused:
                for s in range(steps):
                    _backend.launch(_KERNELS, _PLAN.symbol('fused_step', _dtype_T), (fused_row_tiles, fused_unit_tiles, dirs,), (256,), (gx, gh, params, work, sequence_lengths, _np.int64(s), _np.int64(steps), _np.int64(batch), _np.int64(num_units), _np.int64(h_size), _np.int64(gates), _np.int64(rnn_kind), _np.int64(relu), _np.int64(proj), _np.int64(layer_rofs), _np.int64(layer_w), _np.int64(layer_bofs), _np.int64(layer_acts_ofs), _np.int64(layer_hs_ofs), _np.int64(layer_cs_ofs), _np.int64(layer_ms_ofs), _np.int64(pl_size),), 0)
                    if proj == 1:
                        _backend.launch(_KERNELS, _PLAN.symbol('fused_proj', _dtype_T), (fused_row_tiles, fused_h_tiles, dirs,), (256,), (params, work, sequence_lengths, _np.int64(s), _np.int64(steps), _np.int64(batch), _np.int64(num_units), _np.int64(h_size), _np.int64(layer_pofs), _np.int64(layer_w), _np.int64(layer_hs_ofs), _np.int64(layer_ms_ofs), _np.int64(pl_size),), 0)
            for d in range(dirs):
                p = l*dirs + d
                hs_ofs = p*pl_size + rows*acts
                cs_ofs = hs_ofs + (steps + 1)*batch*h_size
                _backend.launch(_KERNELS, _PLAN.symbol('final_state', _dtype_T), (cell_blocks,), (cell_threads,), (output_h, output_c, work, _np.int64(p), _np.int64(d), _np.int64(layers_dirs), _np.int64(steps), _np.int64(batch), _np.int64(h_size), _np.int64(num_units), _np.int64(hs_ofs), _np.int64(cs_ofs), _np.int64(lstm), _np.int32(time_major),), 0)
            _backend.launch(_KERNELS, _PLAN.symbol('layer_output', _dtype_T), (seq_blocks,), (seq_threads,), (work, output, sequence_lengths, _np.int64(l), _np.int64(num_layers), _np.int64(dirs), _np.int64(steps), _np.int64(batch), _np.int64(h_size), _np.int64(layer_hs_ofs), _np.int64(pl_size), _np.int64(next_x_ofs), (_np.float64 if _dtype_T == 'float64' else _np.float32)(dropout), _np.int64(seed), _np.int64(seed2), _np.int32(is_training), _np.int32(time_major),), 0)
    _backend.flush()
    return CudnnRNNV3Outputs(output, output_h, output_c, reserve_space, host_reserved)


def _fake(_backend: Any, input: Any, input_h: Any, input_c: Any, params: Any, sequence_lengths: Any, rnn_mode: Any, input_mode: Any, direction: Any, dropout: Any, seed: Any, seed2: Any, num_proj: Any, is_training: Any, time_major: Any) -> CudnnRNNV3Outputs:
    """The outputs of a call as empty tensors of the right shapes and dtypes, made by `_backend`
    (the torch registration's fake implementation: nothing runs, no data is read)."""
    min = _rt.sym_min
    rnn_mode = _rt.check_enum(_OP, 'rnn_mode', rnn_mode, ('rnn_relu', 'rnn_tanh', 'lstm', 'gru'))
    input_mode = _rt.check_enum(_OP, 'input_mode', input_mode, ('linear_input', 'skip_input', 'auto_select'))
    direction = _rt.check_enum(_OP, 'direction', direction, ('unidirectional', 'bidirectional'))
    dropout = _rt.check_float(_OP, 'dropout', dropout, 0, 1)
    seed = _rt.check_int(_OP, 'seed', seed, None, None, None)
    seed2 = _rt.check_int(_OP, 'seed2', seed2, None, None, None)
    num_proj = _rt.check_int(_OP, 'num_proj', num_proj, 0, None, None)
    is_training = _rt.check_bool(_OP, 'is_training', is_training)
    time_major = _rt.check_bool(_OP, 'time_major', time_major)
    _dtype_T = _rt.check_dtype(_OP, 'input', input, ('float16', 'float32', 'float64'), 'T')
    _rt.check_same_dtype(_OP, 'input_h', input_h, _dtype_T, 'T', 'input')
    if rnn_mode == 'lstm':
        _rt.check_same_dtype(_OP, 'input_c', input_c, _dtype_T, 'T', 'input')
    _rt.check_same_dtype(_OP, 'params', params, _dtype_T, 'T', 'input')
    _rt.check_dtype(_OP, 'sequence_lengths', sequence_lengths, ('int32',))
    if time_major:
        if input.ndim != 3:
            raise _rt.shape_error(_OP, 'input', ('steps', 'batch', 'input_size'), input.shape, {}, 'time_major true')
        steps = input.shape[0]
        batch = input.shape[1]
        if input_h.ndim != 3:
            raise _rt.shape_error(_OP, 'input_h', ('layers_dirs', 'batch', 'h_size'), input_h.shape, {'batch': batch}, 'time_major true')
        layers_dirs = input_h.shape[0]
        h_size = input_h.shape[2]
        if input_h.shape[1] != batch:
            raise _rt.shape_error(_OP, 'input_h', ('layers_dirs', 'batch', 'h_size'), input_h.shape, {'batch': batch, 'h_size': h_size, 'layers_dirs': layers_dirs}, 'time_major true')
        if rnn_mode == 'lstm':
            if input_c.ndim != 3:
                raise _rt.shape_error(_OP, 'input_c', ('layers_dirs', 'batch', 'c_size'), input_c.shape, {'batch': batch, 'layers_dirs': layers_dirs}, 'time_major true')
            c_size = input_c.shape[2]
            if input_c.shape[0] != layers_dirs or input_c.shape[1] != batch:
                raise _rt.shape_error(_OP, 'input_c', ('layers_dirs', 'batch', 'c_size'), input_c.shape, {'batch': batch, 'c_size': c_size, 'layers_dirs': layers_dirs}, 'time_major true')
        if params.ndim != 1:
            raise _rt.shape_error(_OP, 'params', ('params_len',), params.shape, {}, 'time_major true')
        if sequence_lengths.ndim != 1:
            raise _rt.shape_error(_OP, 'sequence_lengths', ('batch',), sequence_lengths.shape, {'batch': batch}, 'time_major true')
        if sequence_lengths.shape[0] != batch:
            raise _rt.shape_error(_OP, 'sequence_lengths', ('batch',), sequence_lengths.shape, {'batch': batch}, 'time_major true')
        dirs = (1 if direction == 'unidirectional' else 2)
        lstm = (0 if rnn_mode in ('rnn_relu', 'rnn_tanh', 'gru') else 1)
        gru = (0 if rnn_mode in ('rnn_relu', 'rnn_tanh', 'lstm') else 1)
        num_units = (h_size if rnn_mode in ('rnn_relu', 'rnn_tanh', 'gru') else c_size)
        num_layers = layers_dirs//dirs
        proj = min(num_proj, 1)
        acts = 4*num_units*(lstm + gru)
        rows = steps*batch
        out_width = dirs*h_size
        c_layers = layers_dirs*lstm
        pl_size = rows*acts + (steps + 1)*batch*h_size + lstm*(steps + 1)*batch*num_units + proj*rows*num_units
        reserve_len = layers_dirs*pl_size + (num_layers - 1)*2*rows*out_width
        reserve_size = (reserve_len if is_training else 0)
        _shape_output = [steps, batch, out_width]
        _shape_output_h = [layers_dirs, batch, h_size]
        _shape_output_c = [c_layers, batch, num_units]
        _shape_reserve_space = [reserve_size]
        _shape_host_reserved = [0]
    else:
        if input.ndim != 3:
            raise _rt.shape_error(_OP, 'input', ('batch', 'steps', 'input_size'), input.shape, {}, 'time_major false')
        batch = input.shape[0]
        steps = input.shape[1]
        if input_h.ndim != 3:
            raise _rt.shape_error(_OP, 'input_h', ('batch', 'layers_dirs', 'h_size'), input_h.shape, {'batch': batch}, 'time_major false')
        layers_dirs = input_h.shape[1]
        h_size = input_h.shape[2]
        if input_h.shape[0] != batch:
            raise _rt.shape_error(_OP, 'input_h', ('batch', 'layers_dirs', 'h_size'), input_h.shape, {'batch': batch, 'h_size': h_size, 'layers_dirs': layers_dirs}, 'time_major false')
        if rnn_mode == 'lstm':
            if input_c.ndim != 3:
                raise _rt.shape_error(_OP, 'input_c', ('batch', 'layers_dirs', 'c_size'), input_c.shape, {'batch': batch, 'layers_dirs': layers_dirs}, 'time_major false')
            c_size = input_c.shape[2]
            if input_c.shape[0] != batch or input_c.shape[1] != layers_dirs:
                raise _rt.shape_error(_OP, 'input_c', ('batch', 'layers_dirs', 'c_size'), input_c.shape, {'batch': batch, 'c_size': c_size, 'layers_dirs': layers_dirs}, 'time_major false')
        if params.ndim != 1:
            raise _rt.shape_error(_OP, 'params', ('params_len',), params.shape, {}, 'time_major false')
        if sequence_lengths.ndim != 1:
            raise _rt.shape_error(_OP, 'sequence_lengths', ('batch',), sequence_lengths.shape, {'batch': batch}, 'time_major false')
        if sequence_lengths.shape[0] != batch:
            raise _rt.shape_error(_OP, 'sequence_lengths', ('batch',), sequence_lengths.shape, {'batch': batch}, 'time_major false')
        dirs = (1 if direction == 'unidirectional' else 2)
        lstm = (0 if rnn_mode in ('rnn_relu', 'rnn_tanh', 'gru') else 1)
        gru = (0 if rnn_mode in ('rnn_relu', 'rnn_tanh', 'lstm') else 1)
        num_units = (h_size if rnn_mode in ('rnn_relu', 'rnn_tanh', 'gru') else c_size)
        num_layers = layers_dirs//dirs
        proj = min(num_proj, 1)
        acts = 4*num_units*(lstm + gru)
        rows = steps*batch
        out_width = dirs*h_size
        c_layers = layers_dirs*lstm
        pl_size = rows*acts + (steps + 1)*batch*h_size + lstm*(steps + 1)*batch*num_units + proj*rows*num_units
        reserve_len = layers_dirs*pl_size + (num_layers - 1)*2*rows*out_width
        reserve_size = (reserve_len if is_training else 0)
        _shape_output = [batch, steps, out_width]
        _shape_output_h = [batch, layers_dirs, h_size]
        _shape_output_c = [batch, c_layers, num_units]
        _shape_reserve_space = [reserve_size]
        _shape_host_reserved = [0]
    output = _backend.empty(_shape_output, _dtype_T)
    output_h = _backend.empty(_shape_output_h, _dtype_T)
    output_c = _backend.empty(_shape_output_c, _dtype_T)
    reserve_space = _backend.empty(_shape_reserve_space, _dtype_T)
    host_reserved = _backend.empty(_shape_host_reserved, 'int8')
    return CudnnRNNV3Outputs(output, output_h, output_c, reserve_space, host_reserved)
