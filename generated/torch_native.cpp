// generated from specs/ by opgen — do not edit (opgen 0.1.0)
// The package's ops in PyTorch through its stable ABI: codegen/torch_native.py (opgen's
// docs/pytorch.md). Built by the package's torch.library_path().
#include "torch_stable.h"

using torch::stable::Tensor;
namespace tsd = torch::stable::detail;  // (its from/to; the global ones are deprecated)

// The drivers (codegen/drivergen.py); weak: a library built without one says so when called.
extern "C" {
__attribute__((weak)) int opgen_call_BiasAdd(opgen_call* call);
__attribute__((weak)) int opgen_call_BiasAddGrad(opgen_call* call);
__attribute__((weak)) int opgen_call_FusedBatchNormGradV3(opgen_call* call);
__attribute__((weak)) int opgen_call_FusedBatchNormV3(opgen_call* call);
__attribute__((weak)) int opgen_call_LayerNorm(opgen_call* call);
__attribute__((weak)) int opgen_call_LayerNormGrad(opgen_call* call);
__attribute__((weak)) int opgen_call_Softmax(opgen_call* call);
__attribute__((weak)) int opgen_call_SoftmaxGrad(opgen_call* call);
__attribute__((weak)) int opgen_call_CudnnRNNBackpropV3(opgen_call* call);
__attribute__((weak)) int opgen_call_CudnnRNNV3(opgen_call* call);
__attribute__((weak)) int opgen_call_DmlRnn(opgen_call* call);
__attribute__((weak)) int opgen_call_GRUBlockCell(opgen_call* call);
__attribute__((weak)) int opgen_call_GRUBlockCellGrad(opgen_call* call);
}

static void boxed_bias_add(StableIValue* stack, uint64_t, uint64_t) {
  opgen_torch::Call call("BiasAdd");
  call.tensor("value", stack[0]);
  call.tensor("bias", stack[1]);
  call.attr(opgen_torch::attr_value<std::string>(stack[2]));
  if (call.run(opgen_call_BiasAdd, "opgen_call_BiasAdd", 1, stack)) return;
  call.fallback("opgen::_bias_add_python", 1, stack, [&] {
    return std::vector<StableIValue>{call.input(0), call.input(1), tsd::from(call.attr_as<std::string>(0))};
  });
}

static void boxed_bias_add_grad(StableIValue* stack, uint64_t, uint64_t) {
  opgen_torch::Call call("BiasAddGrad");
  call.tensor("out_backprop", stack[0]);
  call.attr(opgen_torch::attr_value<std::string>(stack[1]));
  if (call.run(opgen_call_BiasAddGrad, "opgen_call_BiasAddGrad", 1, stack)) return;
  call.fallback("opgen::_bias_add_grad_python", 1, stack, [&] {
    return std::vector<StableIValue>{call.input(0), tsd::from(call.attr_as<std::string>(0))};
  });
}

static void boxed_fused_batch_norm_grad_v3(StableIValue* stack, uint64_t, uint64_t) {
  opgen_torch::Call call("FusedBatchNormGradV3");
  call.tensor("y_backprop", stack[0]);
  call.tensor("x", stack[1]);
  call.tensor("scale", stack[2]);
  call.tensor("reserve_space_1", stack[3]);
  call.tensor("reserve_space_2", stack[4]);
  call.tensor("reserve_space_3", stack[5]);
  call.attr(opgen_torch::attr_value<double>(stack[6]));
  call.attr(opgen_torch::attr_value<std::string>(stack[7]));
  call.attr(opgen_torch::attr_value<bool>(stack[8]));
  if (call.run(opgen_call_FusedBatchNormGradV3, "opgen_call_FusedBatchNormGradV3", 5, stack)) return;
  call.fallback("opgen::_fused_batch_norm_grad_v3_python", 5, stack, [&] {
    return std::vector<StableIValue>{call.input(0), call.input(1), call.input(2), call.input(3), call.input(4), call.input(5), tsd::from(call.attr_as<double>(0)), tsd::from(call.attr_as<std::string>(1)), tsd::from(call.attr_as<bool>(2))};
  });
}

static void boxed_fused_batch_norm_v3(StableIValue* stack, uint64_t, uint64_t) {
  opgen_torch::Call call("FusedBatchNormV3");
  call.tensor("x", stack[0]);
  call.tensor("scale", stack[1]);
  call.tensor("offset", stack[2]);
  call.tensor("mean", stack[3]);
  call.tensor("variance", stack[4]);
  call.attr(opgen_torch::attr_value<double>(stack[5]));
  call.attr(opgen_torch::attr_value<double>(stack[6]));
  call.attr(opgen_torch::attr_value<std::string>(stack[7]));
  call.attr(opgen_torch::attr_value<bool>(stack[8]));
  if (call.run(opgen_call_FusedBatchNormV3, "opgen_call_FusedBatchNormV3", 6, stack)) return;
  call.fallback("opgen::_fused_batch_norm_v3_python", 6, stack, [&] {
    return std::vector<StableIValue>{call.input(0), call.input(1), call.input(2), call.input(3), call.input(4), tsd::from(call.attr_as<double>(0)), tsd::from(call.attr_as<double>(1)), tsd::from(call.attr_as<std::string>(2)), tsd::from(call.attr_as<bool>(3))};
  });
}

static void boxed_layer_norm(StableIValue* stack, uint64_t, uint64_t) {
  opgen_torch::Call call("LayerNorm");
  call.tensor("x", stack[0]);
  call.optional("gamma", stack[1]);
  call.optional("beta", stack[2]);
  call.attr(opgen_torch::attr_value<double>(stack[3]));
  if (call.run(opgen_call_LayerNorm, "opgen_call_LayerNorm", 3, stack)) return;
  call.fallback("opgen::_layer_norm_python", 3, stack, [&] {
    return std::vector<StableIValue>{call.input(0), call.optional_input(1), call.optional_input(2), tsd::from(call.attr_as<double>(0))};
  });
}

static void boxed_layer_norm_grad(StableIValue* stack, uint64_t, uint64_t) {
  opgen_torch::Call call("LayerNormGrad");
  call.tensor("dy", stack[0]);
  call.tensor("x", stack[1]);
  call.tensor("mean", stack[2]);
  call.tensor("rstd", stack[3]);
  call.optional("gamma", stack[4]);
  if (call.run(opgen_call_LayerNormGrad, "opgen_call_LayerNormGrad", 3, stack)) return;
  call.fallback("opgen::_layer_norm_grad_python", 3, stack, [&] {
    return std::vector<StableIValue>{call.input(0), call.input(1), call.input(2), call.input(3), call.optional_input(4)};
  });
}

static void boxed_softmax(StableIValue* stack, uint64_t, uint64_t) {
  opgen_torch::Call call("Softmax");
  call.tensor("x", stack[0]);
  call.attr(opgen_torch::attr_value<int64_t>(stack[1]));
  if (call.run(opgen_call_Softmax, "opgen_call_Softmax", 1, stack)) return;
  call.fallback("opgen::_softmax_python", 1, stack, [&] {
    return std::vector<StableIValue>{call.input(0), tsd::from(call.attr_as<int64_t>(0))};
  });
}

static void boxed_softmax_grad(StableIValue* stack, uint64_t, uint64_t) {
  opgen_torch::Call call("SoftmaxGrad");
  call.tensor("y", stack[0]);
  call.tensor("dy", stack[1]);
  call.attr(opgen_torch::attr_value<int64_t>(stack[2]));
  if (call.run(opgen_call_SoftmaxGrad, "opgen_call_SoftmaxGrad", 1, stack)) return;
  call.fallback("opgen::_softmax_grad_python", 1, stack, [&] {
    return std::vector<StableIValue>{call.input(0), call.input(1), tsd::from(call.attr_as<int64_t>(0))};
  });
}

static void boxed_cudnn_rnn_backprop_v3(StableIValue* stack, uint64_t, uint64_t) {
  opgen_torch::Call call("CudnnRNNBackpropV3");
  call.tensor("input", stack[0]);
  call.tensor("input_h", stack[1]);
  call.tensor("input_c", stack[2]);
  call.tensor("params", stack[3]);
  call.tensor("sequence_lengths", stack[4]);
  call.tensor("output", stack[5]);
  call.tensor("output_h", stack[6]);
  call.tensor("output_c", stack[7]);
  call.tensor("output_backprop", stack[8]);
  call.tensor("output_h_backprop", stack[9]);
  call.tensor("output_c_backprop", stack[10]);
  call.tensor("reserve_space", stack[11]);
  call.tensor("host_reserved", stack[12]);
  call.attr(opgen_torch::attr_value<std::string>(stack[13]));
  call.attr(opgen_torch::attr_value<std::string>(stack[14]));
  call.attr(opgen_torch::attr_value<std::string>(stack[15]));
  call.attr(opgen_torch::attr_value<double>(stack[16]));
  call.attr(opgen_torch::attr_value<int64_t>(stack[17]));
  call.attr(opgen_torch::attr_value<int64_t>(stack[18]));
  call.attr(opgen_torch::attr_value<int64_t>(stack[19]));
  call.attr(opgen_torch::attr_value<bool>(stack[20]));
  call.attr(opgen_torch::attr_value<bool>(stack[21]));
  if (call.run(opgen_call_CudnnRNNBackpropV3, "opgen_call_CudnnRNNBackpropV3", 4, stack)) return;
  call.fallback("opgen::_cudnn_rnn_backprop_v3_python", 4, stack, [&] {
    return std::vector<StableIValue>{call.input(0), call.input(1), call.input(2), call.input(3), call.input(4), call.input(5), call.input(6), call.input(7), call.input(8), call.input(9), call.input(10), call.input(11), call.input(12), tsd::from(call.attr_as<std::string>(0)), tsd::from(call.attr_as<std::string>(1)), tsd::from(call.attr_as<std::string>(2)), tsd::from(call.attr_as<double>(3)), tsd::from(call.attr_as<int64_t>(4)), tsd::from(call.attr_as<int64_t>(5)), tsd::from(call.attr_as<int64_t>(6)), tsd::from(call.attr_as<bool>(7)), tsd::from(call.attr_as<bool>(8))};
  });
}

static void boxed_cudnn_rnn_v3(StableIValue* stack, uint64_t, uint64_t) {
  opgen_torch::Call call("CudnnRNNV3");
  call.tensor("input", stack[0]);
  call.tensor("input_h", stack[1]);
  call.tensor("input_c", stack[2]);
  call.tensor("params", stack[3]);
  call.tensor("sequence_lengths", stack[4]);
  call.attr(opgen_torch::attr_value<std::string>(stack[5]));
  call.attr(opgen_torch::attr_value<std::string>(stack[6]));
  call.attr(opgen_torch::attr_value<std::string>(stack[7]));
  call.attr(opgen_torch::attr_value<double>(stack[8]));
  call.attr(opgen_torch::attr_value<int64_t>(stack[9]));
  call.attr(opgen_torch::attr_value<int64_t>(stack[10]));
  call.attr(opgen_torch::attr_value<int64_t>(stack[11]));
  call.attr(opgen_torch::attr_value<bool>(stack[12]));
  call.attr(opgen_torch::attr_value<bool>(stack[13]));
  if (call.run(opgen_call_CudnnRNNV3, "opgen_call_CudnnRNNV3", 5, stack)) return;
  call.fallback("opgen::_cudnn_rnn_v3_python", 5, stack, [&] {
    return std::vector<StableIValue>{call.input(0), call.input(1), call.input(2), call.input(3), call.input(4), tsd::from(call.attr_as<std::string>(0)), tsd::from(call.attr_as<std::string>(1)), tsd::from(call.attr_as<std::string>(2)), tsd::from(call.attr_as<double>(3)), tsd::from(call.attr_as<int64_t>(4)), tsd::from(call.attr_as<int64_t>(5)), tsd::from(call.attr_as<int64_t>(6)), tsd::from(call.attr_as<bool>(7)), tsd::from(call.attr_as<bool>(8))};
  });
}

static void boxed_dml_rnn(StableIValue* stack, uint64_t, uint64_t) {
  opgen_torch::Call call("DmlRnn");
  call.tensor("input", stack[0]);
  call.tensor("weight", stack[1]);
  call.tensor("recurrence", stack[2]);
  call.optional("bias", stack[3]);
  call.optional("hidden_init", stack[4]);
  call.optional("sequence_lengths", stack[5]);
  call.attr(opgen_torch::attr_value<std::string>(stack[6]));
  call.attr(opgen_torch::attr_value<std::optional<std::vector<std::string>>>(stack[7]).value_or(std::vector<std::string>{"tanh"}));
  if (call.run(opgen_call_DmlRnn, "opgen_call_DmlRnn", 2, stack)) return;
  call.fallback("opgen::_dml_rnn_python", 2, stack, [&] {
    return std::vector<StableIValue>{call.input(0), call.input(1), call.input(2), call.optional_input(3), call.optional_input(4), call.optional_input(5), tsd::from(call.attr_as<std::string>(0)), tsd::from(std::optional<std::vector<std::string>>(call.attr_as<std::vector<std::string>>(1)))};
  });
}

static void boxed_gru_block_cell(StableIValue* stack, uint64_t, uint64_t) {
  opgen_torch::Call call("GRUBlockCell");
  call.tensor("x", stack[0]);
  call.tensor("h_prev", stack[1]);
  call.tensor("w_ru", stack[2]);
  call.tensor("w_c", stack[3]);
  call.tensor("b_ru", stack[4]);
  call.tensor("b_c", stack[5]);
  if (call.run(opgen_call_GRUBlockCell, "opgen_call_GRUBlockCell", 4, stack)) return;
  call.fallback("opgen::_gru_block_cell_python", 4, stack, [&] {
    return std::vector<StableIValue>{call.input(0), call.input(1), call.input(2), call.input(3), call.input(4), call.input(5)};
  });
}

static void boxed_gru_block_cell_grad(StableIValue* stack, uint64_t, uint64_t) {
  opgen_torch::Call call("GRUBlockCellGrad");
  call.tensor("x", stack[0]);
  call.tensor("h_prev", stack[1]);
  call.tensor("w_ru", stack[2]);
  call.tensor("w_c", stack[3]);
  call.tensor("b_ru", stack[4]);
  call.tensor("b_c", stack[5]);
  call.tensor("r", stack[6]);
  call.tensor("u", stack[7]);
  call.tensor("c", stack[8]);
  call.tensor("d_h", stack[9]);
  if (call.run(opgen_call_GRUBlockCellGrad, "opgen_call_GRUBlockCellGrad", 4, stack)) return;
  call.fallback("opgen::_gru_block_cell_grad_python", 4, stack, [&] {
    return std::vector<StableIValue>{call.input(0), call.input(1), call.input(2), call.input(3), call.input(4), call.input(5), call.input(6), call.input(7), call.input(8), call.input(9)};
  });
}

// Called by the package's torch.py once it has defined the ops' Python helpers (fallback).
extern "C" __attribute__((visibility("default"))) void opgen_torch_enable_python_path() {
  opgen_torch::python_path() = true;
}

// The output pool (host_output_pool.h): on (1) or off (0), or asked (-1); its state before. Set
// from OPGEN_TORCH_OUTPUT_POOL when the package's torch.py loads the library (torch_library.py);
// its idle bytes for tests.
extern "C" __attribute__((visibility("default"))) int opgen_torch_output_pool(int on) {
  opgen_front::OutputPool& pool = opgen_front::OutputPool::instance();
  return on < 0 ? pool.enabled() : pool.set_enabled(on != 0);
}
extern "C" __attribute__((visibility("default"))) size_t opgen_torch_output_pool_bytes() {
  return opgen_front::OutputPool::instance().bytes();
}

STABLE_TORCH_LIBRARY_FRAGMENT(opgen, m) {
  m.def("bias_add(Tensor value, Tensor bias, *, str data_format='NHWC') -> Tensor");
  m.def("bias_add_grad(Tensor out_backprop, *, str data_format='NHWC') -> Tensor");
  m.def("fused_batch_norm_grad_v3(Tensor y_backprop, Tensor x, Tensor scale, Tensor reserve_space_1, Tensor reserve_space_2, Tensor reserve_space_3, *, float epsilon=0.0001, str data_format='NHWC', bool is_training=True) -> (Tensor, Tensor, Tensor, Tensor, Tensor)");
  m.def("fused_batch_norm_v3(Tensor x, Tensor scale, Tensor offset, Tensor mean, Tensor variance, *, float epsilon=0.0001, float exponential_avg_factor=1.0, str data_format='NHWC', bool is_training=True) -> (Tensor, Tensor, Tensor, Tensor, Tensor, Tensor)");
  m.def("layer_norm(Tensor x, Tensor? gamma=None, Tensor? beta=None, *, float epsilon=1e-05) -> (Tensor, Tensor, Tensor)");
  m.def("layer_norm_grad(Tensor dy, Tensor x, Tensor mean, Tensor rstd, Tensor? gamma=None) -> (Tensor, Tensor, Tensor)");
  m.def("softmax(Tensor x, *, int axis=-1) -> Tensor");
  m.def("softmax_grad(Tensor y, Tensor dy, *, int axis=-1) -> Tensor");
  m.def("cudnn_rnn_backprop_v3(Tensor input, Tensor input_h, Tensor input_c, Tensor params, Tensor sequence_lengths, Tensor output, Tensor output_h, Tensor output_c, Tensor output_backprop, Tensor output_h_backprop, Tensor output_c_backprop, Tensor reserve_space, Tensor host_reserved, *, str rnn_mode='lstm', str input_mode='linear_input', str direction='unidirectional', float dropout=0.0, int seed=0, int seed2=0, int num_proj=0, bool time_major=True, bool compute_input_backprop=True) -> (Tensor, Tensor, Tensor, Tensor)");
  m.def("cudnn_rnn_canonical_to_params_v2(int num_layers, int num_units, int input_size, Tensor[] weights, Tensor[] biases, *, int num_params_weights=0, int num_params_biases=0, str rnn_mode='lstm', str input_mode='linear_input', str direction='unidirectional', float dropout=0.0, int seed=0, int seed2=0, int num_proj=0) -> Tensor");
  m.def("cudnn_rnn_params_size(int num_layers, int num_units, int input_size, *, str t, str s, str rnn_mode='lstm', str input_mode='linear_input', str direction='unidirectional', float dropout=0.0, int seed=0, int seed2=0, int num_proj=0) -> Tensor");
  m.def("cudnn_rnn_params_to_canonical_v2(int num_layers, int num_units, int input_size, Tensor params, *, int num_params_weights, int num_params_biases, str rnn_mode='lstm', str input_mode='linear_input', str direction='unidirectional', float dropout=0.0, int seed=0, int seed2=0, int num_proj=0) -> (Tensor[], Tensor[])");
  m.def("cudnn_rnn_v3(Tensor input, Tensor input_h, Tensor input_c, Tensor params, Tensor sequence_lengths, *, str rnn_mode='lstm', str input_mode='linear_input', str direction='unidirectional', float dropout=0.0, int seed=0, int seed2=0, int num_proj=0, bool is_training=True, bool time_major=True) -> (Tensor, Tensor, Tensor, Tensor, Tensor)");
  m.def("dml_rnn(Tensor input, Tensor weight, Tensor recurrence, Tensor? bias=None, Tensor? hidden_init=None, Tensor? sequence_lengths=None, *, str direction='forward', str[]? activations=None) -> (Tensor, Tensor)");
  m.def("gru_block_cell(Tensor x, Tensor h_prev, Tensor w_ru, Tensor w_c, Tensor b_ru, Tensor b_c) -> (Tensor, Tensor, Tensor, Tensor)");
  m.def("gru_block_cell_grad(Tensor x, Tensor h_prev, Tensor w_ru, Tensor w_c, Tensor b_ru, Tensor b_c, Tensor r, Tensor u, Tensor c, Tensor d_h) -> (Tensor, Tensor, Tensor, Tensor)");
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CPU, m) {
  m.impl("bias_add", &boxed_bias_add);
  m.impl("bias_add_grad", &boxed_bias_add_grad);
  m.impl("fused_batch_norm_grad_v3", &boxed_fused_batch_norm_grad_v3);
  m.impl("fused_batch_norm_v3", &boxed_fused_batch_norm_v3);
  m.impl("layer_norm", &boxed_layer_norm);
  m.impl("layer_norm_grad", &boxed_layer_norm_grad);
  m.impl("softmax", &boxed_softmax);
  m.impl("softmax_grad", &boxed_softmax_grad);
  m.impl("cudnn_rnn_backprop_v3", &boxed_cudnn_rnn_backprop_v3);
  m.impl("cudnn_rnn_v3", &boxed_cudnn_rnn_v3);
  m.impl("dml_rnn", &boxed_dml_rnn);
  m.impl("gru_block_cell", &boxed_gru_block_cell);
  m.impl("gru_block_cell_grad", &boxed_gru_block_cell_grad);
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CUDA, m) {
  m.impl("bias_add", &boxed_bias_add);
  m.impl("bias_add_grad", &boxed_bias_add_grad);
  m.impl("fused_batch_norm_grad_v3", &boxed_fused_batch_norm_grad_v3);
  m.impl("fused_batch_norm_v3", &boxed_fused_batch_norm_v3);
  m.impl("layer_norm", &boxed_layer_norm);
  m.impl("layer_norm_grad", &boxed_layer_norm_grad);
  m.impl("softmax", &boxed_softmax);
  m.impl("softmax_grad", &boxed_softmax_grad);
  m.impl("cudnn_rnn_backprop_v3", &boxed_cudnn_rnn_backprop_v3);
  m.impl("cudnn_rnn_v3", &boxed_cudnn_rnn_v3);
  m.impl("dml_rnn", &boxed_dml_rnn);
  m.impl("gru_block_cell", &boxed_gru_block_cell);
  m.impl("gru_block_cell_grad", &boxed_gru_block_cell_grad);
}
