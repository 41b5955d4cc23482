# generated from specs/rnn/cudnn_rnn_backprop_v3.yaml by opgen — do not edit (opgen 0.1.0)
"""CudnnRNNBackpropV3: Backprop step of CudnnRNNV3."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as _np

# isort: split
from codegen.runtime import api as _rt
from codegen.runtime.kernels import KernelSource
from codegen.runtime.scope import Scope

_OP = 'CudnnRNNBackpropV3'
_KERNELS = KernelSource(_OP, Path(__file__).with_name("cudnn_rnn.cu"))
# The launch plan as data (codegen/runtime/plan.py): what _compute runs, recorded once per set of sizes
# and attrs; the loop in _compute is the same plan as Python (OPGEN_PLAN=loop runs it).
_PLAN = _rt.Plan('CudnnRNNBackpropV3', ('_dtype_T', 'seq_blocks', 'seq_threads', 'swap0', 'swap1', 'input_size', 'rows', 'steps', 'batch', 'out_width', 'time_major', 'num_layers', 'skip', 'dirs', 'w0', 'w1', 'layers_dirs', 'pl_size', 'gate_width', 'h_size', 'acts', 'cell_blocks', 'cell_threads', 'num_units', 'lstm', 'persistent_blocks', 'rnn_mode', 'persistent', 'relu', 'gru', 'proj', 'row_blocks', 'row_threads', 'gemm_steps', 'unprojected_row_tiles', 'lstm_unit_tiles', 'fused_max_depth', 'fused_row_tiles', 'fused_h_tiles', 'fused_unit_tiles', 'fused', 'weights_len', 'bias_blocks', 'bias_threads', 'dx', 'gates', 'unswap0', 'unswap1'), ('input', 'xt', 'ones', 'output_backprop', 'dy', 'sequence_lengths', 'output_h_backprop', 'output_c_backprop', 'dh', 'dc', 'reserve_space', 'dgw', 'dm', 'params', 'dgr', 'dhp', 'input_h_backprop', 'input_c_backprop', 'params_backprop', 'dxt', 'dxl', 'input_backprop'), (
    ('launch', 'to_time_major', ('_dtype_T',), ('seq_blocks',), ('seq_threads',), 0, (('buf', 0), ('buf', 1), ('scalar', '_np.int64', 'swap0', None, ()), ('scalar', '_np.int64', 'swap1', None, ()), ('scalar', '_np.int64', 'input_size', None, ())), ()),
    ('launch', 'fill_ones', ('_dtype_T',), ('seq_blocks',), ('seq_threads',), 0, (('buf', 2), ('scalar', '_np.int64', 'rows', None, ())), ()),
    ('launch', 'grad_output_in', ('_dtype_T',), ('seq_blocks',), ('seq_threads',), 0, (('buf', 3), ('buf', 4), ('buf', 5), ('scalar', '_np.int64', 'steps', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'out_width', None, ()), ('scalar', '_np.int32', 'time_major', None, ())), ()),
    ('repeat', 'back', 'num_layers', (('l', ('-', ('-', 'num_layers', 1), 'back')), ('first', ('-', 1, ('min', 'l', 1))), ('in_width', ('+', ('*', ('*', 'first', 'input_size'), ('-', 1, 'skip')), ('*', ('-', 1, 'first'), 'out_width'))), ('layer_wofs', ('+', ('*', ('*', ('-', 1, 'first'), 'dirs'), 'w0'), ('*', ('*', ('max', ('-', 'l', 1), 0), 'dirs'), 'w1'))), ('layer_w', ('+', 'w1', ('*', 'first', ('-', 'w0', 'w1')))), ('x_ofs', ('+', ('*', 'layers_dirs', 'pl_size'), ('*', ('*', ('*', ('-', 'l', 1), 2), 'rows'), 'out_width'))), ('below_mask_ofs', ('+', 'x_ofs', ('*', 'rows', 'out_width'))), ('layer_cells', ('*', 'rows', 'out_width')), ('layer_rofs', ('+', 'layer_wofs', ('*', 'gate_width', 'in_width'))), ('layer_pofs', ('+', 'layer_rofs', ('*', 'gate_width', 'h_size'))), ('layer_acts_ofs', ('*', ('*', 'l', 'dirs'), 'pl_size')), ('layer_hs_ofs', ('+', 'layer_acts_ofs', ('*', 'rows', 'acts'))), ('layer_cs_ofs', ('+', 'layer_hs_ofs', ('*', ('*', ('+', 'steps', 1), 'batch'), 'h_size')))), (('repeat', 'd', 'dirs', (('p', ('+', ('*', 'l', 'dirs'), 'd')),), (('launch', 'init_grad', ('_dtype_T',), ('cell_blocks',), ('cell_threads',), 0, (('buf', 6), ('buf', 7), ('buf', 8), ('buf', 9), ('scalar', '_np.int64', 'p', None, ()), ('scalar', '_np.int64', 'd', None, ()), ('scalar', '_np.int64', 'layers_dirs', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'h_size', None, ()), ('scalar', '_np.int64', 'num_units', None, ()), ('scalar', '_np.int64', 'lstm', None, ()), ('scalar', '_np.int32', 'time_major', None, ())), ()),), (), 0), ('launch', 'persistent_lstm_grad', ('_dtype_T',), ('persistent_blocks', 'dirs'), (256,), 0, (('buf', 4), ('buf', 10), ('buf', 5), ('buf', 11), ('buf', 8), ('buf', 9), ('buf', 12), ('buf', 13), ('scalar', '_np.int64', 'steps', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'num_units', None, ()), ('scalar', '_np.int64', 'dirs', None, ()), ('scalar', '_np.int64', 'layer_rofs', None, ()), ('scalar', '_np.int64', 'layer_w', None, ()), ('scalar', '_np.int64', 'layer_acts_ofs', None, ()), ('scalar', '_np.int64', 'layer_cs_ofs', None, ()), ('scalar', '_np.int64', 'pl_size', None, ())), (('attr', 'rnn_mode', 'lstm'), 'persistent')), ('launch', 'persistent_gru_grad', ('_dtype_T',), ('persistent_blocks', 'dirs'), (256,), 0, (('buf', 4), ('buf', 10), ('buf', 5), ('buf', 11), ('buf', 14), ('buf', 8), ('buf', 13), ('scalar', '_np.int64', 'steps', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'num_units', None, ()), ('scalar', '_np.int64', 'dirs', None, ()), ('scalar', '_np.int64', 'layer_rofs', None, ()), ('scalar', '_np.int64', 'layer_w', None, ()), ('scalar', '_np.int64', 'layer_acts_ofs', None, ()), ('scalar', '_np.int64', 'layer_hs_ofs', None, ()), ('scalar', '_np.int64', 'pl_size', None, ())), (('attr', 'rnn_mode', 'gru'), 'persistent')), ('launch', 'persistent_rnn_grad', ('_dtype_T',), ('persistent_blocks', 'dirs'), (256,), 0, (('buf', 4), ('buf', 10), ('buf', 5), ('buf', 11), ('buf', 8), ('buf', 13), ('scalar', '_np.int64', 'steps', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'num_units', None, ()), ('scalar', '_np.int64', 'dirs', None, ()), ('scalar', '_np.int64', 'layer_rofs', None, ()), ('scalar', '_np.int64', 'layer_w', None, ()), ('scalar', '_np.int64', 'layer_hs_ofs', None, ()), ('scalar', '_np.int64', 'relu', None, ()), ('scalar', '_np.int64', 'pl_size', None, ())), (('==', ('+', 'lstm', 'gru'), 0), 'persistent')), ('repeat', 's', 'steps', (), (('launch', 'proj_grad', ('_dtype_T',), ('cell_blocks', 'dirs'), ('cell_threads',), 0, (('buf', 4), ('buf', 15), ('buf', 8), ('buf', 5), ('scalar', '_np.int64', 's', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'h_size', None, ()), ('scalar', '_np.int64', 'dirs', None, ()), ('scalar', '_np.int64', 'steps', None, ())), (('==', 'proj', 1),)), ('gemm', 15, 13, 12, ('batch', 'num_units', 'h_size', False, False, 0, ('*', ('*', ('-', ('-', 'steps', 1), 's'), 'batch'), 'h_size'), 'layer_pofs', 0, 'dirs', ('*', ('*', ('+', ('*', 2, 's'), 1), 'batch'), 'h_size'), 'layer_w', ('*', 'batch', 'num_units')), (('==', 'proj', 1),)), ('launch', 'lstm_grad_step', ('_dtype_T',), ('row_blocks', 'dirs'), ('row_threads',), 0, (('buf', 4), ('buf', 12), ('buf', 10), ('buf', 5), ('buf', 11), ('buf', 8), ('buf', 9), ('scalar', '_np.int64', 's', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'num_units', None, ()), ('scalar', '_np.int64', 'h_size', None, ()), ('scalar', '_np.int64', 'dirs', None, ()), ('scalar', '_np.int64', 'proj', None, ()), ('scalar', '_np.int64', 'layer_acts_ofs', None, ()), ('scalar', '_np.int64', 'layer_cs_ofs', None, ()), ('scalar', '_np.int64', 'steps', None, ()), ('scalar', '_np.int64', 'pl_size', None, ())), (('attr', 'rnn_mode', 'lstm'),)), ('launch', 'gru_grad_step', ('_dtype_T',), ('row_blocks', 'dirs'), ('row_threads',), 0, (('buf', 4), ('buf', 10), ('buf', 5), ('buf', 11), ('buf', 14), ('buf', 8), ('scalar', '_np.int64', 's', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'num_units', None, ()), ('scalar', '_np.int64', 'dirs', None, ()), ('scalar', '_np.int64', 'layer_acts_ofs', None, ()), ('scalar', '_np.int64', 'layer_hs_ofs', None, ()), ('scalar', '_np.int64', 'steps', None, ()), ('scalar', '_np.int64', 'pl_size', None, ())), (('attr', 'rnn_mode', 'gru'),)), ('launch', 'rnn_grad_step', ('_dtype_T',), ('row_blocks', 'dirs'), ('row_threads',), 0, (('buf', 4), ('buf', 10), ('buf', 5), ('buf', 11), ('buf', 8), ('scalar', '_np.int64', 's', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'num_units', None, ()), ('scalar', '_np.int64', 'dirs', None, ()), ('scalar', '_np.int64', 'layer_hs_ofs', None, ()), ('scalar', '_np.int64', 'relu', None, ()), ('scalar', '_np.int64', 'steps', None, ()), ('scalar', '_np.int64', 'pl_size', None, ())), (('==', ('+', 'lstm', 'gru'), 0),)), ('gemm', 11, 13, 8, ('batch', 'h_size', 'gate_width', False, False, 1, ('*', ('*', ('-', ('-', 'steps', 1), 's'), 'batch'), 'gate_width'), 'layer_rofs', 0, 'dirs', ('*', ('*', ('+', ('*', 2, 's'), 1), 'batch'), 'gate_width'), 'layer_w', ('*', 'batch', 'h_size')), (('==', 'gru', 0),)), ('gemm', 14, 13, 8, ('batch', 'h_size', 'gate_width', False, False, 1, ('*', ('*', ('-', ('-', 'steps', 1), 's'), 'batch'), 'gate_width'), 'layer_rofs', 0, 'dirs', ('*', ('*', ('+', ('*', 2, 's'), 1), 'batch'), 'gate_width'), 'layer_w', ('*', 'batch', 'h_size')), (('==', 'gru', 1),))), ('gemm_steps',), 'dirs'), ('repeat', 's', ('+', 'steps', 1), (), (('launch', 'fused_lstm_grad', ('_dtype_T',), ('unprojected_row_tiles', 'lstm_unit_tiles', 'dirs'), (256,), 0, (('buf', 4), ('buf', 10), ('buf', 5), ('buf', 11), ('buf', 8), ('buf', 9), ('buf', 13), ('scalar', '_np.int64', 's', None, ()), ('scalar', '_np.int64', 'steps', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'num_units', None, ()), ('scalar', '_np.int64', 'dirs', None, ()), ('scalar', '_np.int64', 'layer_rofs', None, ()), ('scalar', '_np.int64', 'layer_w', None, ()), ('scalar', '_np.int64', 'layer_acts_ofs', None, ()), ('scalar', '_np.int64', 'layer_cs_ofs', None, ()), ('scalar', '_np.int64', 'pl_size', None, ())), (('attr', 'rnn_mode', 'lstm'), ('==', 'proj', 0))), ('repeat', 'phase', 2, (('proj_grad_runs', ('+', ('*', ('-', 1, 'phase'), ('min', 's', 1)), ('*', 'phase', ('min', ('-', 'steps', 's'), 1)))), ('proj_grad_tiles', ('min', ('ceildiv', ('+', 'num_units', ('*', ('-', 1, 'phase'), ('-', 'h_size', 'num_units'))), 32), ('ceildiv', 'fused_max_depth', ('*', 4, 32))))), (('launch', 'fused_proj_cells', ('_dtype_T',), ('fused_row_tiles', 'fused_h_tiles', 'dirs'), (256,), 0, (('buf', 4), ('buf', 5), ('buf', 8), ('buf', 15), ('scalar', '_np.int64', 's', None, ()), ('scalar', '_np.int64', 'steps', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'h_size', None, ()), ('scalar', '_np.int64', 'dirs', None, ())), (('==', 'phase', 1), ('<', 's', 'steps'))), ('launch', 'fused_lstm_proj_grad', ('_dtype_T',), ('fused_row_tiles', 'proj_grad_tiles', 'dirs'), (256,), 0, (('buf', 4), ('buf', 10), ('buf', 5), ('buf', 11), ('buf', 8), ('buf', 9), ('buf', 12), ('buf', 15), ('buf', 13), ('scalar', '_np.int64', 's', None, ()), ('scalar', '_np.int64', 'steps', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'num_units', None, ()), ('scalar', '_np.int64', 'h_size', None, ()), ('scalar', '_np.int64', 'dirs', None, ()), ('scalar', '_np.int64', 'phase', None, ()), ('scalar', '_np.int64', 'layer_rofs', None, ()), ('scalar', '_np.int64', 'layer_pofs', None, ()), ('scalar', '_np.int64', 'layer_w', None, ()), ('scalar', '_np.int64', 'layer_acts_ofs', None, ()), ('scalar', '_np.int64', 'layer_cs_ofs', None, ()), ('scalar', '_np.int64', 'pl_size', None, ())), (('==', 'proj_grad_runs', 1),))), (('==', 'proj', 1),), 0), ('launch', 'fused_gru_grad', ('_dtype_T',), ('unprojected_row_tiles', 'fused_unit_tiles', 'dirs'), (256,), 0, (('buf', 4), ('buf', 10), ('buf', 5), ('buf', 11), ('buf', 14), ('buf', 8), ('buf', 13), ('scalar', '_np.int64', 's', None, ()), ('scalar', '_np.int64', 'steps', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'num_units', None, ()), ('scalar', '_np.int64', 'dirs', None, ()), ('scalar', '_np.int64', 'layer_rofs', None, ()), ('scalar', '_np.int64', 'layer_w', None, ()), ('scalar', '_np.int64', 'layer_acts_ofs', None, ()), ('scalar', '_np.int64', 'layer_hs_ofs', None, ()), ('scalar', '_np.int64', 'pl_size', None, ())), (('attr', 'rnn_mode', 'gru'),)), ('launch', 'fused_rnn_grad', ('_dtype_T',), ('unprojected_row_tiles', 'fused_unit_tiles', 'dirs'), (256,), 0, (('buf', 4), ('buf', 10), ('buf', 5), ('buf', 11), ('buf', 8), ('buf', 13), ('scalar', '_np.int64', 's', None, ()), ('scalar', '_np.int64', 'steps', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'num_units', None, ()), ('scalar', '_np.int64', 'dirs', None, ()), ('scalar', '_np.int64', 'layer_rofs', None, ()), ('scalar', '_np.int64', 'layer_w', None, ()), ('scalar', '_np.int64', 'layer_hs_ofs', None, ()), ('scalar', '_np.int64', 'pl_size', None, ()), ('scalar', '_np.int64', 'relu', None, ())), (('==', ('+', 'lstm', 'gru'), 0),))), ('fused',), 0), ('repeat', 'd', 'dirs', (('p', ('+', ('*', 'l', 'dirs'), 'd')), ('wofs', ('+', 'layer_wofs', ('*', 'd', 'layer_w'))), ('rofs', ('+', 'wofs', ('*', 'gate_width', 'in_width'))), ('pofs', ('+', 'rofs', ('*', 'gate_width', 'h_size'))), ('bofs', ('+', 'weights_len', ('*', ('*', 'p', 2), 'gate_width'))), ('rbofs', ('+', 'bofs', 'gate_width')), ('acts_ofs', ('*', 'p', 'pl_size')), ('hs_ofs', ('+', 'acts_ofs', ('*', 'rows', 'acts'))), ('cs_ofs', ('+', 'hs_ofs', ('*', ('*', ('+', 'steps', 1), 'batch'), 'h_size'))), ('ms_ofs', ('+', 'cs_ofs', ('*', ('*', ('*', 'lstm', ('+', 'steps', 1)), 'batch'), 'num_units'))), ('g_ofs', ('*', ('*', 'd', 'rows'), 'gate_width'))), (('launch', 'final_grad', ('_dtype_T',), ('cell_blocks',), ('cell_threads',), 0, (('buf', 8), ('buf', 9), ('buf', 16), ('buf', 17), ('scalar', '_np.int64', 'p', None, ()), ('scalar', '_np.int64', 'd', None, ()), ('scalar', '_np.int64', 'layers_dirs', None, ()), ('scalar', '_np.int64', 'batch', None, ()), ('scalar', '_np.int64', 'h_size', None, ()), ('scalar', '_np.int64', 'num_units', None, ()), ('scalar', '_np.int64', 'lstm', None, ()), ('scalar', '_np.int32', 'time_major', None, ())), ()), ('gemm', 11, 1, 18, ('gate_width', 'input_size', 'rows', True, False, 0, 'g_ofs', 0, 'wofs', 1, 0, 0, 0), (('==', ('+', 'l', 'skip'), 0),)), ('gemm', 11, 10, 18, ('gate_width', 'out_width', 'rows', True, False, 0, 'g_ofs', 'x_ofs', 'wofs', 1, 0, 0, 0), (('>', 'l', 0),)), ('gemm', 11, 10, 18, ('gate_width', 'h_size', 'rows', True, False, 0, 'g_ofs', ('+', 'hs_ofs', ('*', ('*', 'd', 'batch'), 'h_size')), 'rofs', 1, 0, 0, 0), (('==', 'gru', 0),)), ('gemm', 14, 10, 18, ('gate_width', 'h_size', 'rows', True, False, 0, 'g_ofs', ('+', 'hs_ofs', ('*', ('*', 'd', 'batch'), 'h_size')), 'rofs', 1, 0, 0, 0), (('==', 'gru', 1),)), ('gemm', 15, 10, 18, ('h_size', 'num_units', 'rows', True, False, 0, ('*', ('*', 'd', 'rows'), 'h_size'), 'ms_ofs', 'pofs', 1, 0, 0, 0), (('==', 'proj', 1),)), ('gemm', 2, 11, 18, (1, 'gate_width', 'rows', False, False, 0, 0, 'g_ofs', 'bofs', 1, 0, 0, 0), ()), ('launch', 'copy_span', ('_dtype_T',), ('bias_blocks',), ('bias_threads',), 0, (('buf', 18), ('scalar', '_np.int64', 'bofs', None, ()), ('scalar', '_np.int64', 'rbofs', None, ()), ('scalar', '_np.int64', 'gate_width', None, ())), (('==', 'gru', 0),)), ('gemm', 2, 14, 18, (1, 'gate_width', 'rows', False, False, 0, 0, 'g_ofs', 'rbofs', 1, 0, 0, 0), (('==', 'gru', 1),)), ('gemm', 11, 13, 19, ('rows', 'input_size', 'gate_width', False, False, 0, 'g_ofs', 'wofs', 0, 1, 0, 0, 0), (('==', ('+', ('+', 'l', 'skip'), 'd'), 0), ('==', 'dx', 1))), ('gemm', 11, 13, 19, ('rows', 'input_size', 'gate_width', False, False, 1, 'g_ofs', 'wofs', 0, 1, 0, 0, 0), (('==', ('+', 'l', 'skip'), 0), ('>', 'd', 0), ('==', 'dx', 1))), ('launch', 'skip_grad', ('_dtype_T',), ('seq_blocks',), ('seq_threads',), 0, (('buf', 11), ('buf', 19), ('scalar', '_np.int64', 'rows', None, ()), ('scalar', '_np.int64', 'gates', None, ()), ('scalar', '_np.int64', 'num_units', None, ()), ('scalar', '_np.int64', 'd', None, ())), (('==', 'l', 0), ('==', 'skip', 1), ('==', 'dx', 1))), ('gemm', 11, 13, 20, ('rows', 'out_width', 'gate_width', False, False, 0, 'g_ofs', 'wofs', 0, 1, 0, 0, 0), (('>', 'l', 0), ('==', 'd', 0))), ('gemm', 11, 13, 20, ('rows', 'out_width', 'gate_width', False, False, 1, 'g_ofs', 'wofs', 0, 1, 0, 0, 0), (('>', 'l', 0), ('>', 'd', 0)))), (), 0), ('launch', 'grad_layer_below', ('_dtype_T',), ('seq_blocks',), ('seq_threads',), 0, (('buf', 20), ('buf', 10), ('buf', 4), ('scalar', '_np.int64', 'layer_cells', None, ()), ('scalar', '_np.int64', 'below_mask_ofs', None, ())), (('>', 'l', 0),))), (), 0),
    ('launch', 'from_time_major', ('_dtype_T',), ('seq_blocks',), ('seq_threads',), 0, (('buf', 19), ('buf', 21), ('scalar', '_np.int64', 'unswap0', None, ()), ('scalar', '_np.int64', 'unswap1', None, ()), ('scalar', '_np.int64', 'input_size', None, ())), (('==', 'dx', 1),)),
    ('gemm', 19, 19, 21, ('rows', 'input_size', 0, False, False, 0, 0, 0, 0, 1, 0, 0, 0), (('==', 'dx', 0),)),
), {
    'to_time_major': {('float16',): 'CudnnRNNBackpropV3__to_time_major__float16', ('float32',): 'CudnnRNNBackpropV3__to_time_major__float32', ('float64',): 'CudnnRNNBackpropV3__to_time_major__float64'},
    'fill_ones': {('float16',): 'CudnnRNNBackpropV3__fill_ones__float16', ('float32',): 'CudnnRNNBackpropV3__fill_ones__float32', ('float64',): 'CudnnRNNBackpropV3__fill_ones__float64'},
    'grad_output_in': {('float16',): 'CudnnRNNBackpropV3__grad_output_in__float16', ('float32',): 'CudnnRNNBackpropV3__grad_output_in__float32', ('float64',): 'CudnnRNNBackpropV3__grad_output_in__float64'},
    'init_grad': {('float16',): 'CudnnRNNBackpropV3__init_grad__float16', ('float32',): 'CudnnRNNBackpropV3__init_grad__float32', ('float64',): 'CudnnRNNBackpropV3__init_grad__float64'},
    'persistent_lstm_grad': {('float16',): 'CudnnRNNBackpropV3__persistent_lstm_grad__float16', ('float32',): 'CudnnRNNBackpropV3__persistent_lstm_grad__float32', ('float64',): 'CudnnRNNBackpropV3__persistent_lstm_grad__float64'},
    'persistent_gru_grad': {('float16',): 'CudnnRNNBackpropV3__persistent_gru_grad__float16', ('float32',): 'CudnnRNNBackpropV3__persistent_gru_grad__float32', ('float64',): 'CudnnRNNBackpropV3__persistent_gru_grad__float64'},
    'persistent_rnn_grad': {('float16',): 'CudnnRNNBackpropV3__persistent_rnn_grad__float16', ('float32',): 'CudnnRNNBackpropV3__persistent_rnn_grad__float32', ('float64',): 'CudnnRNNBackpropV3__persistent_rnn_grad__float64'},
    'proj_grad': {('float16',): 'CudnnRNNBackpropV3__proj_grad__float16', ('float32',): 'CudnnRNNBackpropV3__proj_grad__float32', ('float64',): 'CudnnRNNBackpropV3__proj_grad__float64'},
    'lstm_grad_step': {('float16',): 'CudnnRNNBackpropV3__lstm_grad_step__float16', ('float32',): 'CudnnRNNBackpropV3__lstm_grad_step__float32', ('float64',): 'CudnnRNNBackpropV3__lstm_grad_step__float64'},
    'gru_grad_step': {('float16',): 'CudnnRNNBackpropV3__gru_grad_step__float16', ('float32',): 'CudnnRNNBackpropV3__gru_grad_step__float32', ('float64',): 'CudnnRNNBackpropV3__gru_grad_step__float64'},
    'rnn_grad_step': {('float16',): 'CudnnRNNBackpropV3__rnn_grad_step__float16', ('float32',): 'CudnnRNNBackpropV3__rnn_grad_step__float32', ('float64',): 'CudnnRNNBackpropV3__rnn_grad_step__float64'},
    'fused_lstm_grad': {('float16',): 'CudnnRNNBackpropV3__fused_lstm_grad__float16', ('float32',): 'CudnnRNNBackpropV3__fused_lstm_grad__float32', ('float64',): 'CudnnRNNBackpropV3__fused_lstm_grad__float64'},
    'fused_proj_cells': {('float16',): 'CudnnRNNBackpropV3__fused_proj_cells__float16', ('float32',): 'CudnnRNNBackpropV3__fused_proj_cells__float32', ('float64',): 'CudnnRNNBackpropV3__fused_proj_cells__float64'},
    'fused_lstm_proj_grad': {('float16',): 'CudnnRNNBackpropV3__fused_lstm_proj_grad__float16', ('float32',): 'CudnnRNNBackpropV3__fused_lstm_proj_grad__float32', ('float64',): 'CudnnRNNBackpropV3__fused_lstm_proj_grad__float64'},
    'fused_gru_grad': {('float16',): 'CudnnRNNBackpropV3__fused_gru_grad__float16', ('float32',): 'CudnnRNNBackpropV3__fused_gru_grad__float32', ('float64',): 'CudnnRNNBackpropV3__fused_gru_grad__float64'},
    'fused_rnn_grad': {('float16',): 'CudnnRNNBackpropV3__fused_rnn_grad__float16', ('float32',): 'CudnnRNNBackpropV3__fused_rnn_grad__float32', ('float64',): 'CudnnRNNBackpropV3__fused_rnn_grad__float64'},
    'final_grad': {('float16',): 'CudnnRNNBackpropV3__final_grad__float16', ('float32',): 'CudnnRNNBackpropV3__final_grad__float32', ('float64',): 'CudnnRNNBackpropV3__final_grad__float64'},
    'copy_span': {('float16',): 'CudnnRNNBackpropV3__copy_span__float16', ('float32',): 'CudnnRNNBackpropV3__copy_span__float32', ('float64',): 'CudnnRNNBackpropV3__copy_span__float64'},
    'skip_grad': {('float16',): 'CudnnRNNBackpropV3__skip_grad__float16', ('float32',): 'CudnnRNNBackpropV3__skip_grad__float32', ('float64',): 'CudnnRNNBackpropV3__skip_grad__float64'},
    'grad_layer_below': {('float16',): 'CudnnRNNBackpropV3__grad_layer_below__float16', ('float32',): 'CudnnRNNBackpropV3__grad_layer_below__float32', ('float64',): 'CudnnRNNBackpropV3__grad_layer_below__float64'},
    'from_time_major': {('float16',): 'CudnnRNNBackpropV3__from_time_major__float16', ('float32',): 'CudnnRNNBackpropV3__from_time_major__float32', ('float64',): 'CudnnRNNBackpropV3__from_time_major__float64'},
}, variants=('persistent', 'fused', 'gemm_steps'), params={'persistent_max_weights': 4096, 'persistent_max_batch': 64, 'fused_max_depth': 128})
# The op's native driver (codegen/runtime/native_driver.py): _compute hands it the call first.
_NATIVE = _rt.NativeDriver(_OP, _KERNELS, _PLAN, Path(__file__).with_name("cudnn_rnn_backprop_v3.driver.cpp"))

RnnMode = Literal['rnn_relu', 'rnn_tanh', 'lstm', 'gru']

InputMode = Literal['linear_input', 'skip_input', 'auto_select']

Direction = Literal['unidirectional', 'bidirectional']


class CudnnRNNBackpropV3Outputs(NamedTuple):
    """The outputs of CudnnRNNBackpropV3, in order."""

    input_backprop: Any
    """T, shape [steps, batch, input_size] (time_major true) · [batch, steps, input_size] (time_major false). The backprop to input in the forward pass. Has the same shape as input."""
    input_h_backprop: Any
    """T, shape [layers_dirs, batch, h_size] (time_major true) · [batch, layers_dirs, h_size] (time_major false). The backprop to input_h in the forward pass. Has the same shape as input_h."""
    input_c_backprop: Any
    """T, shape [c_layers, batch, num_units] (time_major true) · [batch, c_layers, num_units] (time_major false). The backprop to input_c in the forward pass. Has the same shape as input_c for LSTM; an empty tensor for other models."""
    params_backprop: Any
    """T, shape [params_len]. The backprop to the params buffer in the forward pass. Has the same shape as params."""


class CudnnRNNBackpropV3:
    """Backprop step of CudnnRNNV3.

    Compute the backprop of both data and weights in a RNN. Takes an extra "sequence_lengths"
    input than CudnnRNNBackprop. Given the gradients of a loss with respect to CudnnRNNV3's output,
    output_h and output_c, computes its gradients with respect to input, input_h, input_c and
    params (params_backprop, in the same opaque layout as params), by backpropagation through
    time over what the forward kept in reserve_space (activations, states, layer inputs and the
    dropout masks, so the forward's mask is reused exactly; see CudnnRNNV3 for the layout and the
    equations). The attrs must be those of the forward call; reserve_space must come from a
    training forward (is_training true) on the same shapes.

    Per layer (last to first), per time step (in the reverse of the forward order, both directions
    at once): one kernel forms the gates' pre-activation gradients from the carried dh (and dc), the
    output gradient of that step and the saved activations, and one batched GEMM carries dh to the
    previous step (dh += dG_t·R, both directions' products in one call). That is the cpu backend's
    plan, and the GPU's for CudnnRNNV3's large sizes; below them, on a GPU, both happen in one launch
    per time step for both directions (the fused variant: each block adds its tile of the previous
    step's dG·R to dh, then forms its tile's gradients; three launches with a projection), or, for
    small sizes without a projection, in one launch per layer for all steps of both directions (the
    persistent variant).
    Then, over all steps at once, GEMMs give the weight gradients
    (dW = dGᵀ·X, dR = dGᵀ·H_prev, with a projection dP_proj = dHᵀ·M), the bias gradients
    (1ᵀ·dG) and the gradient of the layer's input (dG·W), which, times the lower layer's dropout
    mask, is that layer's output gradient. Past each sequence's length the output gradient is
    ignored, no weight gradient is gathered and the carried gradients pass through unchanged.
    For gru the recurrent side sees dĥ∘r where the input side sees dĥ (linear before reset).

    Create it with `CudnnRNNBackpropV3.create(scope, input, input_h, input_c, params, sequence_lengths, output, output_h, output_c, output_backprop, output_h_backprop, output_c_backprop, reserve_space, host_reserved, *options)`, or call
    `cudnn_rnn_backprop_v3(...)`. The reference page is generated/docs/rnn/cudnn_rnn_backprop_v3.md.
    """

    OP_NAME = 'CudnnRNNBackpropV3'
    Outputs = CudnnRNNBackpropV3Outputs

    class Options:
        """Optional attributes for CudnnRNNBackpropV3; each setter returns the Options, so calls chain."""

        __slots__ = ("_values",)

        def __init__(self) -> None:
            self._values: dict[str, Any] = {}

        def rnn_mode(self, rnn_mode: RnnMode) -> CudnnRNNBackpropV3.Options:
            """Sets rnn_mode (default 'lstm'). Indicates the type of the RNN model."""
            self._values['rnn_mode'] = rnn_mode
            return self

        def input_mode(self, input_mode: InputMode) -> CudnnRNNBackpropV3.Options:
            """Sets input_mode (default 'linear_input'). Indicates whether there is a linear projection between the input and the actual computation before the first layer. 'skip_input' is only allowed when input_size == num_units; 'auto_select' implies 'skip_input' when input_size == num_units; otherwise, it implies 'linear_input'."""
            self._values['input_mode'] = input_mode
            return self

        def direction(self, direction: Direction) -> CudnnRNNBackpropV3.Options:
            """Sets direction (default 'unidirectional'). Indicates whether a bidirectional model will be used."""
            self._values['direction'] = direction
            return self

        def dropout(self, dropout: float) -> CudnnRNNBackpropV3.Options:
            """Sets dropout (default 0.0). Dropout probability (the mask itself comes from reserve_space)."""
            self._values['dropout'] = dropout
            return self

        def seed(self, seed: int) -> CudnnRNNBackpropV3.Options:
            """Sets seed (default 0). The 1st part of a seed to initialize dropout (unused; the mask comes from reserve_space)."""
            self._values['seed'] = seed
            return self

        def seed2(self, seed2: int) -> CudnnRNNBackpropV3.Options:
            """Sets seed2 (default 0). The 2nd part of a seed to initialize dropout (unused; the mask comes from reserve_space)."""
            self._values['seed2'] = seed2
            return self

        def num_proj(self, num_proj: int) -> CudnnRNNBackpropV3.Options:
            """Sets num_proj (default 0). The output size of the LSTM projection (0: no projection; lstm only)."""
            self._values['num_proj'] = num_proj
            return self

        def time_major(self, time_major: bool) -> CudnnRNNBackpropV3.Options:
            """Sets time_major (default True). Indicates whether the input/output format is time major or batch major."""
            self._values['time_major'] = time_major
            return self

        def compute_input_backprop(self, compute_input_backprop: bool) -> CudnnRNNBackpropV3.Options:
            """Sets compute_input_backprop (default True). false: input_backprop is zeros, and the first layer's dG·W products that form it do not run (opgen's, not TensorFlow's: autograd passes whether the input needs a gradient)."""
            self._values['compute_input_backprop'] = compute_input_backprop
            return self

        def __repr__(self) -> str:
            items = ", ".join(f"{key}={value!r}" for key, value in self._values.items())
            return f"CudnnRNNBackpropV3.Options({items})"

    @staticmethod
    def rnn_mode(rnn_mode: RnnMode) -> CudnnRNNBackpropV3.Options:
        """Options with rnn_mode set (default 'lstm')."""
        return CudnnRNNBackpropV3.Options().rnn_mode(rnn_mode)

    @staticmethod
    def input_mode(input_mode: InputMode) -> CudnnRNNBackpropV3.Options:
        """Options with input_mode set (default 'linear_input')."""
        return CudnnRNNBackpropV3.Options().input_mode(input_mode)

    @staticmethod
    def direction(direction: Direction) -> CudnnRNNBackpropV3.Options:
        """Options with direction set (default 'unidirectional')."""
        return CudnnRNNBackpropV3.Options().direction(direction)

    @staticmethod
    def dropout(dropout: float) -> CudnnRNNBackpropV3.Options:
        """Options with dropout set (default 0.0)."""
        return CudnnRNNBackpropV3.Options().dropout(dropout)

    @staticmethod
    def seed(seed: int) -> CudnnRNNBackpropV3.Options:
        """Options with seed set (default 0)."""
        return CudnnRNNBackpropV3.Options().seed(seed)

    @staticmethod
    def seed2(seed2: int) -> CudnnRNNBackpropV3.Options:
        """Options with seed2 set (default 0)."""
        return CudnnRNNBackpropV3.Options().seed2(seed2)

    @staticmethod
    def num_proj(num_proj: int) -> CudnnRNNBackpropV3.Options:
        """Options with num_proj set (default 0)."""
        return CudnnRNNBackpropV3.Options().num_proj(num_proj)

    @staticmethod
    def time_major(time_major: bool) -> CudnnRNNBackpropV3.Options:
        """Options with time_major set (default True)."""
        return CudnnRNNBackpropV3.Options().time_major(time_major)

    @staticmethod
    def compute_input_backprop(compute_input_backprop: bool) -> CudnnRNNBackpropV3.Options:
        """Options with compute_input_backprop set (default True)."""
        return CudnnRNNBackpropV3.Options().compute_input_backprop(compute_input_backprop)

    @classmethod
    def create(
        cls,
        scope: Scope | str | None,
        input: Any,
        input_h: Any,
        input_c: Any,
        params: Any,
        sequence_lengths: Any,
        output: Any,
        output_h: Any,
        output_c: Any,
        output_backprop: Any,
        output_h_backprop: Any,
        output_c_backprop: Any,
        reserve_space: Any,
        host_reserved: Any,
        *options: CudnnRNNBackpropV3.Options,
    ) -> CudnnRNNBackpropV3:
        """Factory method to create a class wrapping a new CudnnRNNBackpropV3 operation.

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
                last dimension. For other models it is ignored.
            params: T, shape [params_len].
                A 1-D tensor that contains the weights and biases in the opaque layout.
            sequence_lengths: int32, shape [batch].
                A vector of lengths of each input sequence, each in [1, seq_length] (the
                kernels stay in bounds whatever the values).
            output: T, shape [steps, batch, out_width] (time_major true) · [batch, steps, out_width] (time_major false).
                CudnnRNNV3's output (shape-checked only).
            output_h: T, shape [layers_dirs, batch, h_size] (time_major true) · [batch, layers_dirs, h_size] (time_major false).
                CudnnRNNV3's output_h (shape-checked only).
            output_c: T, shape [layers_dirs, batch, c_size] (time_major true) · [batch, layers_dirs, c_size] (time_major false).
                CudnnRNNV3's output_c (shape-checked only; ignored for models other than
                LSTM).
            output_backprop: T, shape [steps, batch, out_width] (time_major true) · [batch, steps, out_width] (time_major false).
                A 3-D tensor with the same shape as output in the forward pass.
            output_h_backprop: T, shape [layers_dirs, batch, h_size] (time_major true) · [batch, layers_dirs, h_size] (time_major false).
                A 3-D tensor with the same shape as output_h in the forward pass.
            output_c_backprop: T, shape [layers_dirs, batch, c_size] (time_major true) · [batch, layers_dirs, c_size] (time_major false).
                A 3-D tensor with the same shape as output_c in the forward pass
                (ignored for models other than LSTM).
            reserve_space: T, shape [reserve_got].
                The same reserve_space produced in the forward operation (with
                is_training true).
            host_reserved: int8.
                The forward operation's host_reserved (not read).
            options: CudnnRNNBackpropV3.Options carrying optional attribute values.

        Raises:
            TypeError: an argument has the wrong type or dtype.
            ValueError: a shape or an attribute value is not valid.
        """
        _merged = _rt.merge_options(_OP, options, cls.Options)
        return cls(_run(
            scope, input, input_h, input_c, params, sequence_lengths, output, output_h, output_c, output_backprop, output_h_backprop, output_c_backprop, reserve_space, host_reserved,
            _merged.get('rnn_mode', 'lstm'),
            _merged.get('input_mode', 'linear_input'),
            _merged.get('direction', 'unidirectional'),
            _merged.get('dropout', 0.0),
            _merged.get('seed', 0),
            _merged.get('seed2', 0),
            _merged.get('num_proj', 0),
            _merged.get('time_major', True),
            _merged.get('compute_input_backprop', True),
        ))

    def __init__(self, outputs: CudnnRNNBackpropV3Outputs) -> None:
        self._outputs = outputs

    @property
    def input_backprop(self) -> Any:
        """The backprop to input in the forward pass. Has the same shape as input."""
        return self._outputs.input_backprop

    @property
    def input_h_backprop(self) -> Any:
        """The backprop to input_h in the forward pass. Has the same shape as input_h."""
        return self._outputs.input_h_backprop

    @property
    def input_c_backprop(self) -> Any:
        """The backprop to input_c in the forward pass. Has the same shape as input_c for LSTM; an empty tensor for other models."""
        return self._outputs.input_c_backprop

    @property
    def params_backprop(self) -> Any:
        """The backprop to the params buffer in the forward pass. Has the same shape as params."""
        return self._outputs.params_backprop

    def output_tuple(self) -> CudnnRNNBackpropV3Outputs:
        """All outputs, in order."""
        return self._outputs

    def __repr__(self) -> str:
        return _rt.op_repr(_OP, self._outputs)


def cudnn_rnn_backprop_v3(
    input: Any,
    input_h: Any,
    input_c: Any,
    params: Any,
    sequence_lengths: Any,
    output: Any,
    output_h: Any,
    output_c: Any,
    output_backprop: Any,
    output_h_backprop: Any,
    output_c_backprop: Any,
    reserve_space: Any,
    host_reserved: Any,
    *,
    rnn_mode: RnnMode = 'lstm',
    input_mode: InputMode = 'linear_input',
    direction: Direction = 'unidirectional',
    dropout: float = 0.0,
    seed: int = 0,
    seed2: int = 0,
    num_proj: int = 0,
    time_major: bool = True,
    compute_input_backprop: bool = True,
    scope: Scope | str | None = None,
) -> CudnnRNNBackpropV3Outputs:
    """Backprop step of CudnnRNNV3.

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
            last dimension. For other models it is ignored.
        params: T, shape [params_len].
            A 1-D tensor that contains the weights and biases in the opaque layout.
        sequence_lengths: int32, shape [batch].
            A vector of lengths of each input sequence, each in [1, seq_length] (the
            kernels stay in bounds whatever the values).
        output: T, shape [steps, batch, out_width] (time_major true) · [batch, steps, out_width] (time_major false).
            CudnnRNNV3's output (shape-checked only).
        output_h: T, shape [layers_dirs, batch, h_size] (time_major true) · [batch, layers_dirs, h_size] (time_major false).
            CudnnRNNV3's output_h (shape-checked only).
        output_c: T, shape [layers_dirs, batch, c_size] (time_major true) · [batch, layers_dirs, c_size] (time_major false).
            CudnnRNNV3's output_c (shape-checked only; ignored for models other than
            LSTM).
        output_backprop: T, shape [steps, batch, out_width] (time_major true) · [batch, steps, out_width] (time_major false).
            A 3-D tensor with the same shape as output in the forward pass.
        output_h_backprop: T, shape [layers_dirs, batch, h_size] (time_major true) · [batch, layers_dirs, h_size] (time_major false).
            A 3-D tensor with the same shape as output_h in the forward pass.
        output_c_backprop: T, shape [layers_dirs, batch, c_size] (time_major true) · [batch, layers_dirs, c_size] (time_major false).
            A 3-D tensor with the same shape as output_c in the forward pass (ignored
            for models other than LSTM).
        reserve_space: T, shape [reserve_got].
            The same reserve_space produced in the forward operation (with is_training
            true).
        host_reserved: int8.
            The forward operation's host_reserved (not read).
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
            Dropout probability (the mask itself comes from reserve_space).
        seed: int; default 0.
            The 1st part of a seed to initialize dropout (unused; the mask comes from
            reserve_space).
        seed2: int; default 0.
            The 2nd part of a seed to initialize dropout (unused; the mask comes from
            reserve_space).
        num_proj: int, >= 0; default 0.
            The output size of the LSTM projection (0: no projection; lstm only).
        time_major: bool; default True.
            Indicates whether the input/output format is time major or batch major.
        compute_input_backprop: bool; default True.
            false: input_backprop is zeros, and the first layer's dG·W products that
            form it do not run (opgen's, not TensorFlow's: autograd passes whether the
            input needs a gradient).
        scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).

    Returns:
        CudnnRNNBackpropV3Outputs(input_backprop, input_h_backprop, input_c_backprop, params_backprop).

    Raises:
        TypeError: an argument has the wrong type or dtype.
        ValueError: a shape or an attribute value is not valid.
    """
    if type(input) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (input, input_h, input_c, params, sequence_lengths, output, output_h, output_c, output_backprop, output_h_backprop, output_c_backprop, reserve_space, host_reserved), (rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj, time_major, compute_input_backprop), CudnnRNNBackpropV3Outputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(input, input_h, input_c, params, sequence_lengths, output, output_h, output_c, output_backprop, output_h_backprop, output_c_backprop, reserve_space, host_reserved)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'input': input, 'input_h': input_h, 'input_c': input_c, 'params': params, 'sequence_lengths': sequence_lengths, 'output': output, 'output_h': output_h, 'output_c': output_c, 'output_backprop': output_backprop, 'output_h_backprop': output_h_backprop, 'output_c_backprop': output_c_backprop, 'reserve_space': reserve_space, 'host_reserved': host_reserved}, (rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj, time_major, compute_input_backprop))
    return _compute(scope, input, input_h, input_c, params, sequence_lengths, output, output_h, output_c, output_backprop, output_h_backprop, output_c_backprop, reserve_space, host_reserved, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj, time_major, compute_input_backprop)


def _run(scope: Scope | str | None, input: Any, input_h: Any, input_c: Any, params: Any, sequence_lengths: Any, output: Any, output_h: Any, output_c: Any, output_backprop: Any, output_h_backprop: Any, output_c_backprop: Any, reserve_space: Any, host_reserved: Any, rnn_mode: Any, input_mode: Any, direction: Any, dropout: Any, seed: Any, seed2: Any, num_proj: Any, time_major: Any, compute_input_backprop: Any) -> CudnnRNNBackpropV3Outputs:
    if type(input) is _np.ndarray:  # NumPy in: the op's native driver first
        _native = _NATIVE.call(_rt.backend_of(scope, _OP), (input, input_h, input_c, params, sequence_lengths, output, output_h, output_c, output_backprop, output_h_backprop, output_c_backprop, reserve_space, host_reserved), (rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj, time_major, compute_input_backprop), CudnnRNNBackpropV3Outputs)
        if _native is not None:
            return _native
    _torch = _rt.torch_call(input, input_h, input_c, params, sequence_lengths, output, output_h, output_c, output_backprop, output_h_backprop, output_c_backprop, reserve_space, host_reserved)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'input': input, 'input_h': input_h, 'input_c': input_c, 'params': params, 'sequence_lengths': sequence_lengths, 'output': output, 'output_h': output_h, 'output_c': output_c, 'output_backprop': output_backprop, 'output_h_backprop': output_h_backprop, 'output_c_backprop': output_c_backprop, 'reserve_space': reserve_space, 'host_reserved': host_reserved}, (rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj, time_major, compute_input_backprop))
    return _compute(scope, input, input_h, input_c, params, sequence_lengths, output, output_h, output_c, output_backprop, output_h_backprop, output_c_backprop, reserve_space, host_reserved, rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj, time_major, compute_input_backprop)


def _compute(scope: Scope | str | None, input: Any, input_h: Any, input_c: Any, params: Any, sequence_lengths: Any, output: Any, output_h: Any, output_c: Any, output_backprop: Any, output_h_backprop: Any, output_c_backprop: Any, reserve_space: Any, host_reserved: Any, rnn_mode: Any, input_mode: Any, direction: Any, dropout: Any, seed: Any, seed2: Any, num_proj: Any, time_major: Any, compute_input_backprop: Any) -> CudnnRNNBackpropV3Outputs:
    _backend = _rt.backend_of(scope, _OP)
    _native = _NATIVE.call(_backend, (input, input_h, input_c, params, sequence_lengths, output, output_h, output_c, output_backprop, output_h_backprop, output_c_backprop, reserve_space, host_reserved), (rnn_mode, input_mode, direction, dropout, seed, seed2, num_proj, time_major, compute_input_backprop), CudnnRNNBackpropV3Outputs)
    if _native is not None:  # the op's native driver ran the call (its outputs made as this NamedTuple)
        return _native
    rnn_mode = _rt.check_enum(_OP, 'rnn_mode', rnn_mode, ('rnn_relu', 'rnn_tanh', 'lstm', 'gru'))
    input_mode = _rt.check_enum(_OP, 'input_mode', input_mode, ('linear_input', 'skip_input', 'auto_select'))
    direction = _rt.check_enum(_OP, 'direction', direction, ('unidirectional', 'bidirectional'))
    dropout = _rt.check_float(_OP, 'dropout', dropout, 0, 1)
    seed = _rt.check_int(_OP, 'seed', seed, None, None, None)
    seed2 = _rt.check_int(_OP, 'seed2', seed2, None, None, None)
    num_proj = _rt.check_int(_OP, 'num_proj', num_proj, 0, None, None)
    time_major = _rt.check_bool(_OP, 'time_major', time_major)
    compute_input_backprop = _rt.check_bool(_OP, 'compute_input_backprop', compute_input_backprop)
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
    output = _backend.adopt(_OP, 'output', output)
    _rt.check_same_dtype(_OP, 'output', output, _dtype_T, 'T', 'input')
    output_h = _backend.adopt(_OP, 'output_h', output_h)
    _rt.check_same_dtype(_OP, 'output_h', output_h, _dtype_T, 'T', 'input')
    output_c = _backend.adopt(_OP, 'output_c', output_c)
    if rnn_mode == 'lstm':
        _rt.check_same_dtype(_OP, 'output_c', output_c, _dtype_T, 'T', 'input')
    output_backprop = _backend.adopt(_OP, 'output_backprop', output_backprop)
    _rt.check_same_dtype(_OP, 'output_backprop', output_backprop, _dtype_T, 'T', 'input')
    output_h_backprop = _backend.adopt(_OP, 'output_h_backprop', output_h_backprop)
    _rt.check_same_dtype(_OP, 'output_h_backprop', output_h_backprop, _dtype_T, 'T', 'input')
    output_c_backprop = _backend.adopt(_OP, 'output_c_backprop', output_c_backprop)
    if rnn_mode == 'lstm':
        _rt.check_same_dtype(_OP, 'output_c_backprop', output_c_backprop, _dtype_T, 'T', 'input')
    reserve_space = _backend.adopt(_OP, 'reserve_space', reserve_space)
    _rt.check_same_dtype(_OP, 'reserve_space', reserve_space, _dtype_T, 'T', 'input')
    host_reserved = _backend.adopt(_OP, 'host_reserved', host_reserved)
    _rt.check_dtype(_OP, 'host_reserved', host_reserved, ('int8',))
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
        if output.ndim != 3:
            raise _rt.shape_error(_OP, 'output', ('steps', 'batch', 'out_width'), output.shape, {'batch': batch, 'steps': steps}, 'time_major true')
        out_width = output.shape[2]
        if output.shape[0] != steps or output.shape[1] != batch:
            raise _rt.shape_error(_OP, 'output', ('steps', 'batch', 'out_width'), output.shape, {'batch': batch, 'out_width': out_width, 'steps': steps}, 'time_major true')
        if output_h.ndim != 3:
            raise _rt.shape_error(_OP, 'output_h', ('layers_dirs', 'batch', 'h_size'), output_h.shape, {'batch': batch, 'h_size': h_size, 'layers_dirs': layers_dirs}, 'time_major true')
        if output_h.shape[0] != layers_dirs or output_h.shape[1] != batch or output_h.shape[2] != h_size:
            raise _rt.shape_error(_OP, 'output_h', ('layers_dirs', 'batch', 'h_size'), output_h.shape, {'batch': batch, 'h_size': h_size, 'layers_dirs': layers_dirs}, 'time_major true')
        if rnn_mode == 'lstm':
            if output_c.ndim != 3:
                raise _rt.shape_error(_OP, 'output_c', ('layers_dirs', 'batch', 'c_size'), output_c.shape, {'batch': batch, 'c_size': c_size, 'layers_dirs': layers_dirs}, 'time_major true')
            if output_c.shape[0] != layers_dirs or output_c.shape[1] != batch or output_c.shape[2] != c_size:
                raise _rt.shape_error(_OP, 'output_c', ('layers_dirs', 'batch', 'c_size'), output_c.shape, {'batch': batch, 'c_size': c_size, 'layers_dirs': layers_dirs}, 'time_major true')
        if output_backprop.ndim != 3:
            raise _rt.shape_error(_OP, 'output_backprop', ('steps', 'batch', 'out_width'), output_backprop.shape, {'batch': batch, 'out_width': out_width, 'steps': steps}, 'time_major true')
        if output_backprop.shape[0] != steps or output_backprop.shape[1] != batch or output_backprop.shape[2] != out_width:
            raise _rt.shape_error(_OP, 'output_backprop', ('steps', 'batch', 'out_width'), output_backprop.shape, {'batch': batch, 'out_width': out_width, 'steps': steps}, 'time_major true')
        if output_h_backprop.ndim != 3:
            raise _rt.shape_error(_OP, 'output_h_backprop', ('layers_dirs', 'batch', 'h_size'), output_h_backprop.shape, {'batch': batch, 'h_size': h_size, 'layers_dirs': layers_dirs}, 'time_major true')
        if output_h_backprop.shape[0] != layers_dirs or output_h_backprop.shape[1] != batch or output_h_backprop.shape[2] != h_size:
            raise _rt.shape_error(_OP, 'output_h_backprop', ('layers_dirs', 'batch', 'h_size'), output_h_backprop.shape, {'batch': batch, 'h_size': h_size, 'layers_dirs': layers_dirs}, 'time_major true')
        if rnn_mode == 'lstm':
            if output_c_backprop.ndim != 3:
                raise _rt.shape_error(_OP, 'output_c_backprop', ('layers_dirs', 'batch', 'c_size'), output_c_backprop.shape, {'batch': batch, 'c_size': c_size, 'layers_dirs': layers_dirs}, 'time_major true')
            if output_c_backprop.shape[0] != layers_dirs or output_c_backprop.shape[1] != batch or output_c_backprop.shape[2] != c_size:
                raise _rt.shape_error(_OP, 'output_c_backprop', ('layers_dirs', 'batch', 'c_size'), output_c_backprop.shape, {'batch': batch, 'c_size': c_size, 'layers_dirs': layers_dirs}, 'time_major true')
        if reserve_space.ndim != 1:
            raise _rt.shape_error(_OP, 'reserve_space', ('reserve_got',), reserve_space.shape, {}, 'time_major true')
        reserve_got = reserve_space.shape[0]
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
        unswap0 = 1
        unswap1 = rows
        dx = (1 if compute_input_backprop else 0)
        bias_blocks = (1 if _backend.name == 'cpu' else min((-(-gate_width//256)), 65535))
        bias_threads = (1 if _backend.name == 'cpu' else max(32, min(256, 32*(-(-gate_width//128)))))
        unprojected_row_tiles = max((-(-batch//32)), 3)
        lstm_unit_tiles = min(fused_unit_tiles, (-(-fused_max_depth//(4*32))))
        _shape_input_backprop = [steps, batch, input_size]
        _shape_input_h_backprop = [layers_dirs, batch, h_size]
        _shape_input_c_backprop = [c_layers, batch, num_units]
        _shape_params_backprop = [params_len]
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
        if output.ndim != 3:
            raise _rt.shape_error(_OP, 'output', ('batch', 'steps', 'out_width'), output.shape, {'batch': batch, 'steps': steps}, 'time_major false')
        out_width = output.shape[2]
        if output.shape[0] != batch or output.shape[1] != steps:
            raise _rt.shape_error(_OP, 'output', ('batch', 'steps', 'out_width'), output.shape, {'batch': batch, 'out_width': out_width, 'steps': steps}, 'time_major false')
        if output_h.ndim != 3:
            raise _rt.shape_error(_OP, 'output_h', ('batch', 'layers_dirs', 'h_size'), output_h.shape, {'batch': batch, 'h_size': h_size, 'layers_dirs': layers_dirs}, 'time_major false')
        if output_h.shape[0] != batch or output_h.shape[1] != layers_dirs or output_h.shape[2] != h_size:
            raise _rt.shape_error(_OP, 'output_h', ('batch', 'layers_dirs', 'h_size'), output_h.shape, {'batch': batch, 'h_size': h_size, 'layers_dirs': layers_dirs}, 'time_major false')
        if rnn_mode == 'lstm':
            if output_c.ndim != 3:
                raise _rt.shape_error(_OP, 'output_c', ('batch', 'layers_dirs', 'c_size'), output_c.shape, {'batch': batch, 'c_size': c_size, 'layers_dirs': layers_dirs}, 'time_major false')
            if output_c.shape[0] != batch or output_c.shape[1] != layers_dirs or output_c.shape[2] != c_size:
                raise _rt.shape_error(_OP, 'output_c', ('batch', 'layers_dirs', 'c_size'), output_c.shape, {'batch': batch, 'c_size': c_size, 'layers_dirs': layers_dirs}, 'time_major false')
        if output_backprop.ndim != 3:
            raise _rt.shape_error(_OP, 'output_backprop', ('batch', 'steps', 'out_width'), output_backprop.shape, {'batch': batch, 'out_width': out_width, 'steps': steps}, 'time_major false')
        if output_backprop.shape[0] != batch or output_backprop.shape[1] != steps or output_backprop.shape[2] != out_width:
            raise _rt.shape_error(_OP, 'output_backprop', ('batch', 'steps', 'out_width'), output_backprop.shape, {'batch': batch, 'out_width': out_width, 'steps': steps}, 'time_major false')
        if output_h_backprop.ndim != 3:
            raise _rt.shape_error(_OP, 'output_h_backprop', ('batch', 'layers_dirs', 'h_size'), output_h_backprop.shape, {'batch': batch, 'h_size': h_size, 'layers_dirs': layers_dirs}, 'time_major false')
        if output_h_backprop.shape[0] != batch or output_h_backprop.shape[1] != layers_dirs or output_h_backprop.shape[2] != h_size:
            raise _rt.shape_error(_OP, 'output_h_backprop', ('batch', 'layers_dirs', 'h_size'), output_h_backprop.shape, {'batch': batch, 'h_size': h_size, 'layers_dirs': layers_dirs}, 'time_major false')
        if rnn_mode == 'lstm':
            if output_c_backprop.ndim != 3:
                raise _rt.shape_error(_OP, 'output_c_backprop', ('batch', 'layers_dirs', 'c_size'), output_c_backprop.shape, {'batch': batch, 'c_size': c_size, 'layers_dirs': layers_dirs}, 'time_major false')
            if output_c_backprop.shape[0] != batch or output_c_backprop.shape[1] != layers_dirs or output_c_backprop.shape[2] != c_size:
                raise _rt.shape_error(_OP, 'output_c_backprop', ('batch', 'layers_dirs', 'c_size'), output_c_backprop.shape, {'batch': batch, 'c_size': c_size, 'layers_dirs': layers_dirs}, 'time_major false')
        if reserve_space.ndim != 1:
            raise _rt.shape_error(_OP, 'reserve_space', ('reserve_got',), reserve_space.shape, {}, 'time_major false')
        reserve_got = reserve_space.shape[0]
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
        unswap0 = steps
        unswap1 = batch
        dx = (1 if compute_input_backprop else 0)
        bias_blocks = (1 if _backend.name == 'cpu' else min((-(-gate_width//256)), 65535))
        bias_threads = (1 if _backend.name == 'cpu' else max(32, min(256, 32*(-(-gate_width//128)))))
        unprojected_row_tiles = max((-(-batch//32)), 3)
        lstm_unit_tiles = min(fused_unit_tiles, (-(-fused_max_depth//(4*32))))
        _shape_input_backprop = [batch, steps, input_size]
        _shape_input_h_backprop = [batch, layers_dirs, h_size]
        _shape_input_c_backprop = [batch, c_layers, num_units]
        _shape_params_backprop = [params_len]
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
    if not (reserve_got == reserve_len):
        raise _rt.constraint_error(_OP, 'reserve_got == reserve_len', {'reserve_got': reserve_got, 'reserve_len': reserve_len}, 'reserve_space must come from CudnnRNNV3 with is_training true, on the same shapes and attrs')
    _rt.check_values_on_device(_backend, _OP, 'sequence_lengths', sequence_lengths, 1, steps, '1', 'steps')
    input_backprop = _backend.empty(_shape_input_backprop, _dtype_T)
    input_h_backprop = _backend.empty(_shape_input_h_backprop, _dtype_T)
    input_c_backprop = _backend.empty(_shape_input_c_backprop, _dtype_T)
    params_backprop = _backend.empty(_shape_params_backprop, _dtype_T)
    xt = _backend.empty([rows*input_size], _dtype_T)
    dxt = _backend.empty([rows*input_size], _dtype_T)
    dy = _backend.empty([rows*out_width], _dtype_T)
    dxl = _backend.empty([rows*out_width], _dtype_T)
    dgw = _backend.empty([dirs*rows*gate_width], _dtype_T)
    dgr = _backend.empty([dirs*rows*gate_width*gru], _dtype_T)
    dh = _backend.empty([dirs*batch*h_size], _dtype_T)
    dc = _backend.empty([dirs*batch*num_units*lstm], _dtype_T)
    dhp = _backend.empty([dirs*rows*num_proj], _dtype_T)
    dm = _backend.empty([dirs*batch*num_units*proj], _dtype_T)
    ones = _backend.empty([rows], _dtype_T)
    if _rt.plan_as_data():
        _rt.run_plan(_backend, _KERNELS, _PLAN, (_dtype_T, seq_blocks, seq_threads, swap0, swap1, input_size, rows, steps, batch, out_width, time_major, num_layers, skip, dirs, w0, w1, layers_dirs, pl_size, gate_width, h_size, acts, cell_blocks, cell_threads, num_units, lstm, persistent_blocks, rnn_mode, persistent, relu, gru, proj, row_blocks, row_threads, gemm_steps, unprojected_row_tiles, lstm_unit_tiles, fused_max_depth, fused_row_tiles, fused_h_tiles, fused_unit_tiles, fused, weights_len, bias_blocks, bias_threads, dx, gates, unswap0, unswap1,), (input, xt, ones, output_backprop, dy, sequence_lengths, output_h_backprop, output_c_backprop, dh, dc, reserve_space, dgw, dm, params, dgr, dhp, input_h_backprop, input_c_backprop, params_backprop, dxt, dxl, input_backprop,))
    else:  # the same plan as Python: for a reader, and run with OPGEN_PLAN=loop
        _rt.hold_if_capturing(_backend, (input, xt, ones, output_backprop, dy, sequence_lengths, output_h_backprop, output_c_backprop, dh, dc, reserve_space, dgw, dm, params, dgr, dhp, input_h_backprop, input_c_backprop, params_backprop, dxt, dxl, input_backprop,))
        _backend.launch(_KERNELS, _PLAN.symbol('to_time_major', _dtype_T), (seq_blocks,), (seq_threads,), (input, xt, _np.int64(swap0), _np.int64(swap1), _np.int64(input_size),), 0)
        _backend.launch(_KERNELS, _PLAN.symbol('fill_ones', _dtype_T), (seq_blocks,), (seq_threads,), (ones, _np.int64(rows),), 0)
        _backend.launch(_KERNELS, _PLAN.symbol('grad_output_in', _dtype_T), (seq_blocks,), (seq_threads,), (output_backprop, dy, sequence_lengths, _np.int64(steps), _np.int64(batch), _np.int64(out_width), _np.int32(time_major),), 0)
        for back in range(num_layers):
            l = num_layers - 1 - back
            first = 1 - min(l, 1)
            in_width = first*input_size*(1 - skip) + (1 - first)*out_width
            layer_wofs = (1 - first)*dirs*w0 + max(l - 1, 0)*dirs*w1
            layer_w = w1 + first*(w0 - w1)
            x_ofs = layers_dirs*pl_size + (l - 1)*2*rows*out_width
            below_mask_ofs = x_ofs + rows*out_width
            layer_cells = rows*out_width
            layer_rofs = layer_wofs + gate_width*in_width
            layer_pofs = layer_rofs + gate_width*h_size
            layer_acts_ofs = l*dirs*pl_size
            layer_hs_ofs = layer_acts_ofs + rows*acts
            layer_cs_ofs = layer_hs_ofs + (steps + 1)*batch*h_size
            for d in range(dirs):
                p = l*dirs + d
                _backend.launch(_KERNELS, _PLAN.symbol('init_grad', _dtype_T), (cell_blocks,), (cell_threads,), (output_h_backprop, output_c_backprop, dh, dc, _np.int64(p), _np.int64(d), _np.int64(layers_dirs), _np.int64(batch), _np.int64(h_size), _np.int64(num_units), _np.int64(lstm), _np.int32(time_major),), 0)
            if rnn_mode == 'lstm' and persistent:
                _backend.launch(_KERNELS, _PLAN.symbol('persistent_lstm_grad', _dtype_T), (persistent_blocks, dirs,), (256,), (dy, reserve_space, sequence_lengths, dgw, dh, dc, dm, params, _np.int64(steps), _np.int64(batch), _np.int64(num_units), _np.int64(dirs), _np.int64(layer_rofs), _np.int64(layer_w), _np.int64(layer_acts_ofs), _np.int64(layer_cs_ofs), _np.int64(pl_size),), 0)
            if rnn_mode == 'gru' and persistent:
                _backend.launch(_KERNELS, _PLAN.symbol('persistent_gru_grad', _dtype_T), (persistent_blocks, dirs,), (256,), (dy, reserve_space, sequence_lengths, dgw, dgr, dh, params, _np.int64(steps), _np.int64(batch), _np.int64(num_units), _np.int64(dirs), _np.int64(layer_rofs), _np.int64(layer_w), _np.int64(layer_acts_ofs), _np.int64(layer_hs_ofs), _np.int64(pl_size),), 0)
            if lstm + gru == 0 and persistent:
                _backend.launch(_KERNELS, _PLAN.symbol('persistent_rnn_grad', _dtype_T), (persistent_blocks, dirs,), (256,), (dy, reserve_space, sequence_lengths, dgw, dh, params, _np.int64(steps), _np.int64(batch), _np.int64(num_units), _np.int64(dirs), _np.int64(layer_rofs), _np.int64(layer_w), _np.int64(layer_hs_ofs), _np.int64(relu), _np.int64(pl_size),), 0)
            if gemm_steps:
                for s in range(steps):
                    if proj == 1:
                        _backend.launch(_KERNELS, _PLAN.symbol('proj_grad', _dtype_T), (cell_blocks, dirs,), (cell_threads,), (dy, dhp, dh, sequence_lengths, _np.int64(s), _np.int64(batch), _np.int64(h_size), _np.int64(dirs), _np.int64(steps),), 0)
                    if proj == 1:
                        _backend.gemm(dhp, params, dm, batch, num_units, h_size, False, False, 0, (steps - 1 - s)*batch*h_size, layer_pofs, 0, dirs, (2*s + 1)*batch*h_size, layer_w, batch*num_units)
                    if rnn_mode == 'lstm':
                        _backend.launch(_KERNELS, _PLAN.symbol('lstm_grad_step', _dtype_T), (row_blocks, dirs,), (row_threads,), (dy, dm, reserve_space, sequence_lengths, dgw, dh, dc, _np.int64(s), _np.int64(batch), _np.int64(num_units), _np.int64(h_size), _np.int64(dirs), _np.int64(proj), _np.int64(layer_acts_ofs), _np.int64(layer_cs_ofs), _np.int64(steps), _np.int64(pl_size),), 0)
                    if rnn_mode == 'gru':
                        _backend.launch(_KERNELS, _PLAN.symbol('gru_grad_step', _dtype_T), (row_blocks, dirs,), (row_threads,), (dy, reserve_space, sequence_lengths, dgw, dgr, dh, _np.int64(s), _np.int64(batch), _np.int64(num_units), _np.int64(dirs), _np.int64(layer_acts_ofs), _np.int64(layer_hs_ofs), _np.int64(steps), _np.int64(pl_size),), 0)
                    if lstm + gru == 0:
                        _backend.launch(_KERNELS, _PLAN.symbol('rnn_grad_step', _dtype_T), (row_blocks, dirs,), (row_threads,), (dy, reserve_space, sequence_lengths, dgw, dh, _np.int64(s), _np.int64(batch), _np.int64(num_units), _np.int64(dirs), _np.int64(layer_hs_ofs), _np.int64(relu), _np.int64(steps), _np.int64(pl_size),), 0)
                    if gru == 0:
                        _backend.gemm(dgw, params, dh, batch, h_size, gate_width, False, False, 1, (steps - 1 - s)*batch*gate_width, layer_rofs, 0, dirs, (2*s + 1)*batch*gate_width, layer_w, batch*h_size)
                    if gru == 1:
                        _backend.gemm(dgr, params, dh, batch, h_size, gate_width, False, False, 1, (steps - 1 - s)*batch*gate_width, layer_rofs, 0, dirs, (2*s + 1)*batch*gate_width, layer_w, batch*h_size)
            if fused:
                for s in range(steps + 1):
                    if rnn_mode == 'lstm' and proj == 0:
                        _backend.launch(_KERNELS, _PLAN.symbol('fused_lstm_grad', _dtype_T), (unprojected_row_tiles, lstm_unit_tiles, dirs,), (256,), (dy, reserve_space, sequence_lengths, dgw, dh, dc, params, _np.int64(s), _np.int64(steps), _np.int64(batch), _np.int64(num_units), _np.int64(dirs), _np.int64(layer_rofs), _np.int64(layer_w), _np.int64(layer_acts_ofs), _np.int64(layer_cs_ofs), _np.int64(pl_size),), 0)
                    if proj == 1:
                        for phase in range(2):
                            proj_grad_runs = (1 - phase)*min(s, 1) + phase*min(steps - s, 1)
                            proj_grad_tiles = min((-(-(num_units + (1 - phase)*(h_size - num_units))//32)), (-(-fused_max_depth//(4*32))))
                            if phase == 1 and s < steps:
                                _backend.launch(_KERNELS, _PLAN.symbol('fused_proj_cells', _dtype_T), (fused_row_tiles, fused_h_tiles, dirs,), (256,), (dy, sequence_lengths, dh, dhp, _np.int64(s), _np.int64(steps), _np.int64(batch), _np.int64(h_size), _np.int64(dirs),), 0)
                            if proj_grad_runs == 1:
                                _backend.launch(_KERNELS, _PLAN.symbol('fused_lstm_proj_grad', _dtype_T), (fused_row_tiles, proj_grad_tiles, dirs,), (256,), (dy, reserve_space, sequence_lengths, dgw, dh, dc, dm, dhp, params, _np.int64(s), _np.int64(steps), _np.int64(batch), _np.int64(num_units), _np.int64(h_size), _np.int64(dirs), _np.int64(phase), _np.int64(layer_rofs), _np.int64(layer_pofs), _np.int64(layer_w), _np.int64(layer_acts_ofs), _np.int64(layer_cs_ofs), _np.int64(pl_size),), 0)
                    if rnn_mode == 'gru':
                        _backend.launch(_KERNELS, _PLAN.symbol('fused_gru_grad', _dtype_T), (unprojected_row_tiles, fused_unit_tiles, dirs,), (256,), (dy, reserve_space, sequence_lengths, dgw, dgr, dh, params, _np.int64(s), _np.int64(steps), _np.int64(batch), _np.int64(num_units), _np.int64(dirs), _np.int64(layer_rofs), _np.int64(layer_w), _np.int64(layer_acts_ofs), _np.int64(layer_hs_ofs), _np.int64(pl_size),), 0)
                    if lstm + gru == 0:
                        _backend.launch(_KERNELS, _PLAN.symbol('fused_rnn_grad', _dtype_T), (unprojected_row_tiles, fused_unit_tiles, dirs,), (256,), (dy, reserve_space, sequence_lengths, dgw, dh, params, _np.int64(s), _np.int64(steps), _np.int64(batch), _np.int64(num_units), _np.int64(dirs), _np.int64(layer_rofs), _np.int64(layer_w), _np.int64(layer_hs_ofs), _np.int64(pl_size), _np.int64(relu),), 0)
            for d in range(dirs):
                p = l*dirs + d
                wofs = layer_wofs + d*layer_w
                rofs = wofs + gate_width*in_width
                pofs = rofs + gate_width*h_size
                bofs = weights_len + p*2*gate_width
                rbofs = bofs + gate_width
                acts_ofs = p*pl_size
                hs_ofs = acts_ofs + rows*acts
                cs_ofs = hs_ofs + (steps + 1)*batch*h_size
                ms_ofs = cs_ofs + lstm*(steps + 1)*batch*num_units
                g_ofs = d*rows*gate_width
                _backend.launch(_KERNELS, _PLAN.symbol('final_grad', _dtype_T), (cell_blocks,), (cell_threads,), (dh, dc, input_h_backprop, input_c_backprop, _np.int64(p), _np.int64(d), _np.int64(layers_dirs), _np.int64(batch), _np.int64(h_size), _np.int64(num_units), _np.int64(lstm), _np.int32(time_major),), 0)
                if l + skip == 0:
                    _backend.gemm(dgw, xt, params_backprop, gate_width, input_size, rows, True, False, 0, g_ofs, 0, wofs)
                if l > 0:
                    _backend.gemm(dgw, reserve_space, params_backprop, gate_width, out_width, rows, True, False, 0, g_ofs, x_ofs, wofs)
                if gru == 0:
                    _backend.gemm(dgw, reserve_space, params_backprop, gate_width, h_size, rows, True, False, 0, g_ofs, hs_ofs + d*batch*h_size, rofs)
                if gru == 1:
                    _backend.gemm(dgr, reserve_space, params_backprop, gate_width, h_size, rows, True, False, 0, g_ofs, hs_ofs + d*batch*h_size, rofs)
                if proj == 1:
                    _backend.gemm(dhp, reserve_space, params_backprop, h_size, num_units, rows, True, False, 0, d*rows*h_size, ms_ofs, pofs)
                _backend.gemm(ones, dgw, params_backprop, 1, gate_width, rows, False, False, 0, 0, g_ofs, bofs)
                if gru == 0:
                    _backend.launch(_KERNELS, _PLAN.symbol('copy_span', _dtype_T), (bias_blocks,), (bias_threads,), (params_backprop, _np.int64(bofs), _np.int64(rbofs), _np.int64(gate_width),), 0)
                if gru == 1:
                    _backend.gemm(ones, dgr, params_backprop, 1, gate_width, rows, False, False, 0, 0, g_ofs, rbofs)
                if l + skip + d == 0 and dx == 1:
                    _backend.gemm(dgw, params, dxt, rows, input_size, gate_width, False, False, 0, g_ofs, wofs, 0)
                if l + skip == 0 and d > 0 and dx == 1:
                    _backend.gemm(dgw, params, dxt, rows, input_size, gate_width, False, False, 1, g_ofs, wofs, 0)
                if l == 0 and skip == 1 and dx == 1:
                    _backend.launch(_KERNELS, _PLAN.symbol('skip_grad', _dtype_T), (seq_blocks,), (seq_threads,), (dgw, dxt, _np.int64(rows), _np.int64(gates), _np.int64(num_units), _np.int64(d),), 0)
                if l > 0 and d == 0:
                    _backend.gemm(dgw, params, dxl, rows, out_width, gate_width, False, False, 0, g_ofs, wofs, 0)
                if l > 0 and d > 0:
                    _backend.gemm(dgw, params, dxl, rows, out_width, gate_width, False, False, 1, g_ofs, wofs, 0)
            if l > 0:
                _backend.launch(_KERNELS, _PLAN.symbol('grad_layer_below', _dtype_T), (seq_blocks,), (seq_threads,), (dxl, reserve_space, dy, _np.int64(layer_cells), _np.int64(below_mask_ofs),), 0)
        if dx == 1:
            _backend.launch(_KERNELS, _PLAN.symbol('from_time_major', _dtype_T), (seq_blocks,), (seq_threads,), (dxt, input_backprop, _np.int64(unswap0), _np.int64(unswap1), _np.int64(input_size),), 0)
        if dx == 0:
            _backend.gemm(dxt, dxt, input_backprop, rows, input_size, 0, False, False, 0, 0, 0, 0)
    _backend.flush()
    return CudnnRNNBackpropV3Outputs(input_backprop, input_h_backprop, input_c_backprop, params_backprop)


def _fake(_backend: Any, input: Any, input_h: Any, input_c: Any, params: Any, sequence_lengths: Any, output: Any, output_h: Any, output_c: Any, output_backprop: Any, output_h_backprop: Any, output_c_backprop: Any, reserve_space: Any, host_reserved: Any, rnn_mode: Any, input_mode: Any, direction: Any, dropout: Any, seed: Any, seed2: Any, num_proj: Any, time_major: Any, compute_input_backprop: Any) -> CudnnRNNBackpropV3Outputs:
    """The outputs of a call as empty tensors of the right shapes and dtypes, made by `_backend`
    (the torch registration's fake implementation: nothing runs, no data is read)."""
    rnn_mode = _rt.check_enum(_OP, 'rnn_mode', rnn_mode, ('rnn_relu', 'rnn_tanh', 'lstm', 'gru'))
    input_mode = _rt.check_enum(_OP, 'input_mode', input_mode, ('linear_input', 'skip_input', 'auto_select'))
    direction = _rt.check_enum(_OP, 'direction', direction, ('unidirectional', 'bidirectional'))
    dropout = _rt.check_float(_OP, 'dropout', dropout, 0, 1)
    seed = _rt.check_int(_OP, 'seed', seed, None, None, None)
    seed2 = _rt.check_int(_OP, 'seed2', seed2, None, None, None)
    num_proj = _rt.check_int(_OP, 'num_proj', num_proj, 0, None, None)
    time_major = _rt.check_bool(_OP, 'time_major', time_major)
    compute_input_backprop = _rt.check_bool(_OP, 'compute_input_backprop', compute_input_backprop)
    _dtype_T = _rt.check_dtype(_OP, 'input', input, ('float16', 'float32', 'float64'), 'T')
    _rt.check_same_dtype(_OP, 'input_h', input_h, _dtype_T, 'T', 'input')
    if rnn_mode == 'lstm':
        _rt.check_same_dtype(_OP, 'input_c', input_c, _dtype_T, 'T', 'input')
    _rt.check_same_dtype(_OP, 'params', params, _dtype_T, 'T', 'input')
    _rt.check_dtype(_OP, 'sequence_lengths', sequence_lengths, ('int32',))
    _rt.check_same_dtype(_OP, 'output', output, _dtype_T, 'T', 'input')
    _rt.check_same_dtype(_OP, 'output_h', output_h, _dtype_T, 'T', 'input')
    if rnn_mode == 'lstm':
        _rt.check_same_dtype(_OP, 'output_c', output_c, _dtype_T, 'T', 'input')
    _rt.check_same_dtype(_OP, 'output_backprop', output_backprop, _dtype_T, 'T', 'input')
    _rt.check_same_dtype(_OP, 'output_h_backprop', output_h_backprop, _dtype_T, 'T', 'input')
    if rnn_mode == 'lstm':
        _rt.check_same_dtype(_OP, 'output_c_backprop', output_c_backprop, _dtype_T, 'T', 'input')
    _rt.check_same_dtype(_OP, 'reserve_space', reserve_space, _dtype_T, 'T', 'input')
    _rt.check_dtype(_OP, 'host_reserved', host_reserved, ('int8',))
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
        if output.ndim != 3:
            raise _rt.shape_error(_OP, 'output', ('steps', 'batch', 'out_width'), output.shape, {'batch': batch, 'steps': steps}, 'time_major true')
        out_width = output.shape[2]
        if output.shape[0] != steps or output.shape[1] != batch:
            raise _rt.shape_error(_OP, 'output', ('steps', 'batch', 'out_width'), output.shape, {'batch': batch, 'out_width': out_width, 'steps': steps}, 'time_major true')
        if output_h.ndim != 3:
            raise _rt.shape_error(_OP, 'output_h', ('layers_dirs', 'batch', 'h_size'), output_h.shape, {'batch': batch, 'h_size': h_size, 'layers_dirs': layers_dirs}, 'time_major true')
        if output_h.shape[0] != layers_dirs or output_h.shape[1] != batch or output_h.shape[2] != h_size:
            raise _rt.shape_error(_OP, 'output_h', ('layers_dirs', 'batch', 'h_size'), output_h.shape, {'batch': batch, 'h_size': h_size, 'layers_dirs': layers_dirs}, 'time_major true')
        if rnn_mode == 'lstm':
            if output_c.ndim != 3:
                raise _rt.shape_error(_OP, 'output_c', ('layers_dirs', 'batch', 'c_size'), output_c.shape, {'batch': batch, 'c_size': c_size, 'layers_dirs': layers_dirs}, 'time_major true')
            if output_c.shape[0] != layers_dirs or output_c.shape[1] != batch or output_c.shape[2] != c_size:
                raise _rt.shape_error(_OP, 'output_c', ('layers_dirs', 'batch', 'c_size'), output_c.shape, {'batch': batch, 'c_size': c_size, 'layers_dirs': layers_dirs}, 'time_major true')
        if output_backprop.ndim != 3:
            raise _rt.shape_error(_OP, 'output_backprop', ('steps', 'batch', 'out_width'), output_backprop.shape, {'batch': batch, 'out_width': out_width, 'steps': steps}, 'time_major true')
        if output_backprop.shape[0] != steps or output_backprop.shape[1] != batch or output_backprop.shape[2] != out_width:
            raise _rt.shape_error(_OP, 'output_backprop', ('steps', 'batch', 'out_width'), output_backprop.shape, {'batch': batch, 'out_width': out_width, 'steps': steps}, 'time_major true')
        if output_h_backprop.ndim != 3:
            raise _rt.shape_error(_OP, 'output_h_backprop', ('layers_dirs', 'batch', 'h_size'), output_h_backprop.shape, {'batch': batch, 'h_size': h_size, 'layers_dirs': layers_dirs}, 'time_major true')
        if output_h_backprop.shape[0] != layers_dirs or output_h_backprop.shape[1] != batch or output_h_backprop.shape[2] != h_size:
            raise _rt.shape_error(_OP, 'output_h_backprop', ('layers_dirs', 'batch', 'h_size'), output_h_backprop.shape, {'batch': batch, 'h_size': h_size, 'layers_dirs': layers_dirs}, 'time_major true')
        if rnn_mode == 'lstm':
            if output_c_backprop.ndim != 3:
                raise _rt.shape_error(_OP, 'output_c_backprop', ('layers_dirs', 'batch', 'c_size'), output_c_backprop.shape, {'batch': batch, 'c_size': c_size, 'layers_dirs': layers_dirs}, 'time_major true')
            if output_c_backprop.shape[0] != layers_dirs or output_c_backprop.shape[1] != batch or output_c_backprop.shape[2] != c_size:
                raise _rt.shape_error(_OP, 'output_c_backprop', ('layers_dirs', 'batch', 'c_size'), output_c_backprop.shape, {'batch': batch, 'c_size': c_size, 'layers_dirs': layers_dirs}, 'time_major true')
        if reserve_space.ndim != 1:
            raise _rt.shape_error(_OP, 'reserve_space', ('reserve_got',), reserve_space.shape, {}, 'time_major true')
        lstm = (0 if rnn_mode in ('rnn_relu', 'rnn_tanh', 'gru') else 1)
        num_units = (h_size if rnn_mode in ('rnn_relu', 'rnn_tanh', 'gru') else c_size)
        c_layers = layers_dirs*lstm
        _shape_input_backprop = [steps, batch, input_size]
        _shape_input_h_backprop = [layers_dirs, batch, h_size]
        _shape_input_c_backprop = [c_layers, batch, num_units]
        _shape_params_backprop = [params_len]
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
        if output.ndim != 3:
            raise _rt.shape_error(_OP, 'output', ('batch', 'steps', 'out_width'), output.shape, {'batch': batch, 'steps': steps}, 'time_major false')
        out_width = output.shape[2]
        if output.shape[0] != batch or output.shape[1] != steps:
            raise _rt.shape_error(_OP, 'output', ('batch', 'steps', 'out_width'), output.shape, {'batch': batch, 'out_width': out_width, 'steps': steps}, 'time_major false')
        if output_h.ndim != 3:
            raise _rt.shape_error(_OP, 'output_h', ('batch', 'layers_dirs', 'h_size'), output_h.shape, {'batch': batch, 'h_size': h_size, 'layers_dirs': layers_dirs}, 'time_major false')
        if output_h.shape[0] != batch or output_h.shape[1] != layers_dirs or output_h.shape[2] != h_size:
            raise _rt.shape_error(_OP, 'output_h', ('batch', 'layers_dirs', 'h_size'), output_h.shape, {'batch': batch, 'h_size': h_size, 'layers_dirs': layers_dirs}, 'time_major false')
        if rnn_mode == 'lstm':
            if output_c.ndim != 3:
                raise _rt.shape_error(_OP, 'output_c', ('batch', 'layers_dirs', 'c_size'), output_c.shape, {'batch': batch, 'c_size': c_size, 'layers_dirs': layers_dirs}, 'time_major false')
            if output_c.shape[0] != batch or output_c.shape[1] != layers_dirs or output_c.shape[2] != c_size:
                raise _rt.shape_error(_OP, 'output_c', ('batch', 'layers_dirs', 'c_size'), output_c.shape, {'batch': batch, 'c_size': c_size, 'layers_dirs': layers_dirs}, 'time_major false')
        if output_backprop.ndim != 3:
            raise _rt.shape_error(_OP, 'output_backprop', ('batch', 'steps', 'out_width'), output_backprop.shape, {'batch': batch, 'out_width': out_width, 'steps': steps}, 'time_major false')
        if output_backprop.shape[0] != batch or output_backprop.shape[1] != steps or output_backprop.shape[2] != out_width:
            raise _rt.shape_error(_OP, 'output_backprop', ('batch', 'steps', 'out_width'), output_backprop.shape, {'batch': batch, 'out_width': out_width, 'steps': steps}, 'time_major false')
        if output_h_backprop.ndim != 3:
            raise _rt.shape_error(_OP, 'output_h_backprop', ('batch', 'layers_dirs', 'h_size'), output_h_backprop.shape, {'batch': batch, 'h_size': h_size, 'layers_dirs': layers_dirs}, 'time_major false')
        if output_h_backprop.shape[0] != batch or output_h_backprop.shape[1] != layers_dirs or output_h_backprop.shape[2] != h_size:
            raise _rt.shape_error(_OP, 'output_h_backprop', ('batch', 'layers_dirs', 'h_size'), output_h_backprop.shape, {'batch': batch, 'h_size': h_size, 'layers_dirs': layers_dirs}, 'time_major false')
        if rnn_mode == 'lstm':
            if output_c_backprop.ndim != 3:
                raise _rt.shape_error(_OP, 'output_c_backprop', ('batch', 'layers_dirs', 'c_size'), output_c_backprop.shape, {'batch': batch, 'c_size': c_size, 'layers_dirs': layers_dirs}, 'time_major false')
            if output_c_backprop.shape[0] != batch or output_c_backprop.shape[1] != layers_dirs or output_c_backprop.shape[2] != c_size:
                raise _rt.shape_error(_OP, 'output_c_backprop', ('batch', 'layers_dirs', 'c_size'), output_c_backprop.shape, {'batch': batch, 'c_size': c_size, 'layers_dirs': layers_dirs}, 'time_major false')
        if reserve_space.ndim != 1:
            raise _rt.shape_error(_OP, 'reserve_space', ('reserve_got',), reserve_space.shape, {}, 'time_major false')
        lstm = (0 if rnn_mode in ('rnn_relu', 'rnn_tanh', 'gru') else 1)
        num_units = (h_size if rnn_mode in ('rnn_relu', 'rnn_tanh', 'gru') else c_size)
        c_layers = layers_dirs*lstm
        _shape_input_backprop = [batch, steps, input_size]
        _shape_input_h_backprop = [batch, layers_dirs, h_size]
        _shape_input_c_backprop = [batch, c_layers, num_units]
        _shape_params_backprop = [params_len]
    input_backprop = _backend.empty(_shape_input_backprop, _dtype_T)
    input_h_backprop = _backend.empty(_shape_input_h_backprop, _dtype_T)
    input_c_backprop = _backend.empty(_shape_input_c_backprop, _dtype_T)
    params_backprop = _backend.empty(_shape_params_backprop, _dtype_T)
    return CudnnRNNBackpropV3Outputs(input_backprop, input_h_backprop, input_c_backprop, params_backprop)
