// generated from specs/ by opgen — do not edit (opgen 0.1.0)
// The package's ops' Autograd kernel in C++: codegen/torch_autograd_gate.py (opgen's
// docs/pytorch.md). Loaded by the package's torch.py after torch_native.cpp's library.
#include "torch_autograd_gate.h"

// Each op's helper, by its qualified name (the kernel's template argument).
static constexpr char k_bias_add_helper[] = "opgen::_bias_add_autograd";
static constexpr char k_bias_add_grad_helper[] = "opgen::_bias_add_grad_autograd";
static constexpr char k_fused_batch_norm_grad_v3_helper[] = "opgen::_fused_batch_norm_grad_v3_autograd";
static constexpr char k_fused_batch_norm_v3_helper[] = "opgen::_fused_batch_norm_v3_autograd";
static constexpr char k_layer_norm_helper[] = "opgen::_layer_norm_autograd";
static constexpr char k_layer_norm_grad_helper[] = "opgen::_layer_norm_grad_autograd";
static constexpr char k_softmax_helper[] = "opgen::_softmax_autograd";
static constexpr char k_softmax_grad_helper[] = "opgen::_softmax_grad_autograd";
static constexpr char k_cudnn_rnn_backprop_v3_helper[] = "opgen::_cudnn_rnn_backprop_v3_autograd";
static constexpr char k_cudnn_rnn_canonical_to_params_v2_helper[] = "opgen::_cudnn_rnn_canonical_to_params_v2_autograd";
static constexpr char k_cudnn_rnn_params_size_helper[] = "opgen::_cudnn_rnn_params_size_autograd";
static constexpr char k_cudnn_rnn_params_to_canonical_v2_helper[] = "opgen::_cudnn_rnn_params_to_canonical_v2_autograd";
static constexpr char k_cudnn_rnn_v3_helper[] = "opgen::_cudnn_rnn_v3_autograd";
static constexpr char k_dml_rnn_helper[] = "opgen::_dml_rnn_autograd";
static constexpr char k_gru_block_cell_helper[] = "opgen::_gru_block_cell_autograd";
static constexpr char k_gru_block_cell_grad_helper[] = "opgen::_gru_block_cell_grad_autograd";

TORCH_LIBRARY_FRAGMENT(opgen, m) {
  m.def("_bias_add_autograd(Tensor value, Tensor bias, *, str data_format='NHWC') -> Tensor");
  m.def("_bias_add_grad_autograd(Tensor out_backprop, *, str data_format='NHWC') -> Tensor");
  m.def("_fused_batch_norm_grad_v3_autograd(Tensor y_backprop, Tensor x, Tensor scale, Tensor reserve_space_1, Tensor reserve_space_2, Tensor reserve_space_3, *, float epsilon=0.0001, str data_format='NHWC', bool is_training=True) -> (Tensor, Tensor, Tensor, Tensor, Tensor)");
  m.def("_fused_batch_norm_v3_autograd(Tensor x, Tensor scale, Tensor offset, Tensor mean, Tensor variance, *, float epsilon=0.0001, float exponential_avg_factor=1.0, str data_format='NHWC', bool is_training=True) -> (Tensor, Tensor, Tensor, Tensor, Tensor, Tensor)");
  m.def("_layer_norm_autograd(Tensor x, Tensor? gamma=None, Tensor? beta=None, *, float epsilon=1e-05) -> (Tensor, Tensor, Tensor)");
  m.def("_layer_norm_grad_autograd(Tensor dy, Tensor x, Tensor mean, Tensor rstd, Tensor? gamma=None) -> (Tensor, Tensor, Tensor)");
  m.def("_softmax_autograd(Tensor x, *, int axis=-1) -> Tensor");
  m.def("_softmax_grad_autograd(Tensor y, Tensor dy, *, int axis=-1) -> Tensor");
  m.def("_cudnn_rnn_backprop_v3_autograd(Tensor input, Tensor input_h, Tensor input_c, Tensor params, Tensor sequence_lengths, Tensor output, Tensor output_h, Tensor output_c, Tensor output_backprop, Tensor output_h_backprop, Tensor output_c_backprop, Tensor reserve_space, Tensor host_reserved, *, str rnn_mode='lstm', str input_mode='linear_input', str direction='unidirectional', float dropout=0.0, int seed=0, int seed2=0, int num_proj=0, bool time_major=True, bool compute_input_backprop=True) -> (Tensor, Tensor, Tensor, Tensor)");
  m.def("_cudnn_rnn_canonical_to_params_v2_autograd(int num_layers, int num_units, int input_size, Tensor[] weights, Tensor[] biases, *, int num_params_weights=0, int num_params_biases=0, str rnn_mode='lstm', str input_mode='linear_input', str direction='unidirectional', float dropout=0.0, int seed=0, int seed2=0, int num_proj=0) -> Tensor");
  m.def("_cudnn_rnn_params_size_autograd(int num_layers, int num_units, int input_size, *, str t, str s, str rnn_mode='lstm', str input_mode='linear_input', str direction='unidirectional', float dropout=0.0, int seed=0, int seed2=0, int num_proj=0) -> Tensor");
  m.def("_cudnn_rnn_params_to_canonical_v2_autograd(int num_layers, int num_units, int input_size, Tensor params, *, int num_params_weights, int num_params_biases, str rnn_mode='lstm', str input_mode='linear_input', str direction='unidirectional', float dropout=0.0, int seed=0, int seed2=0, int num_proj=0) -> (Tensor[], Tensor[])");
  m.def("_cudnn_rnn_v3_autograd(Tensor input, Tensor input_h, Tensor input_c, Tensor params, Tensor sequence_lengths, *, str rnn_mode='lstm', str input_mode='linear_input', str direction='unidirectional', float dropout=0.0, int seed=0, int seed2=0, int num_proj=0, bool is_training=True, bool time_major=True) -> (Tensor, Tensor, Tensor, Tensor, Tensor)");
  m.def("_dml_rnn_autograd(Tensor input, Tensor weight, Tensor recurrence, Tensor? bias=None, Tensor? hidden_init=None, Tensor? sequence_lengths=None, *, str direction='forward', str[]? activations=None) -> (Tensor, Tensor)");
  m.def("_gru_block_cell_autograd(Tensor x, Tensor h_prev, Tensor w_ru, Tensor w_c, Tensor b_ru, Tensor b_c) -> (Tensor, Tensor, Tensor, Tensor)");
  m.def("_gru_block_cell_grad_autograd(Tensor x, Tensor h_prev, Tensor w_ru, Tensor w_c, Tensor b_ru, Tensor b_c, Tensor r, Tensor u, Tensor c, Tensor d_h) -> (Tensor, Tensor, Tensor, Tensor)");
}

TORCH_LIBRARY_IMPL(opgen, Autograd, m) {
  m.impl("bias_add", torch::CppFunction::makeFromBoxedFunction<&opgen_torch_gate::kernel<k_bias_add_helper>>());
  m.impl("bias_add_grad", torch::CppFunction::makeFromBoxedFunction<&opgen_torch_gate::kernel<k_bias_add_grad_helper>>());
  m.impl("fused_batch_norm_grad_v3", torch::CppFunction::makeFromBoxedFunction<&opgen_torch_gate::kernel<k_fused_batch_norm_grad_v3_helper>>());
  m.impl("fused_batch_norm_v3", torch::CppFunction::makeFromBoxedFunction<&opgen_torch_gate::kernel<k_fused_batch_norm_v3_helper>>());
  m.impl("layer_norm", torch::CppFunction::makeFromBoxedFunction<&opgen_torch_gate::kernel<k_layer_norm_helper>>());
  m.impl("layer_norm_grad", torch::CppFunction::makeFromBoxedFunction<&opgen_torch_gate::kernel<k_layer_norm_grad_helper>>());
  m.impl("softmax", torch::CppFunction::makeFromBoxedFunction<&opgen_torch_gate::kernel<k_softmax_helper>>());
  m.impl("softmax_grad", torch::CppFunction::makeFromBoxedFunction<&opgen_torch_gate::kernel<k_softmax_grad_helper>>());
  m.impl("cudnn_rnn_backprop_v3", torch::CppFunction::makeFromBoxedFunction<&opgen_torch_gate::kernel<k_cudnn_rnn_backprop_v3_helper>>());
  m.impl("cudnn_rnn_canonical_to_params_v2", torch::CppFunction::makeFromBoxedFunction<&opgen_torch_gate::kernel<k_cudnn_rnn_canonical_to_params_v2_helper>>());
  m.impl("cudnn_rnn_params_size", torch::CppFunction::makeFromBoxedFunction<&opgen_torch_gate::kernel<k_cudnn_rnn_params_size_helper>>());
  m.impl("cudnn_rnn_params_to_canonical_v2", torch::CppFunction::makeFromBoxedFunction<&opgen_torch_gate::kernel<k_cudnn_rnn_params_to_canonical_v2_helper>>());
  m.impl("cudnn_rnn_v3", torch::CppFunction::makeFromBoxedFunction<&opgen_torch_gate::kernel<k_cudnn_rnn_v3_helper>>());
  m.impl("dml_rnn", torch::CppFunction::makeFromBoxedFunction<&opgen_torch_gate::kernel<k_dml_rnn_helper>>());
  m.impl("gru_block_cell", torch::CppFunction::makeFromBoxedFunction<&opgen_torch_gate::kernel<k_gru_block_cell_helper>>());
  m.impl("gru_block_cell_grad", torch::CppFunction::makeFromBoxedFunction<&opgen_torch_gate::kernel<k_gru_block_cell_grad_helper>>());
}
