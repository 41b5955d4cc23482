// generated from specs/ by opgen — do not edit (opgen 0.1.0)
// The package's ops in JAX through XLA's FFI: codegen/jaxgen.py (opgen's docs/jax.md).
// Built by the package's jax.py on first use.
#include "jax_ffi.h"

namespace ffi = xla::ffi;

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

// What this library was built for: jax_library.py refuses it in another JAX.
extern "C" __attribute__((visibility("default"))) const char* opgen_jax_built_for() {
  return OPGEN_JAX_BUILT_FOR;
}

#pragma GCC visibility push(default)  // (the handlers: found by name)

template <class... Context>
static ffi::Error BiasAdd_impl(ffi::RemainingArgs args, ffi::RemainingRets rets, int64_t present, std::string_view a0, Context... context) {
  opgen_jax::Call call("BiasAdd", args, rets, present, context...);
  call.input();
  call.input();
  call.attr(a0);
  return call.run(opgen_call_BiasAdd, "opgen_call_BiasAdd");
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_BiasAdd_cpu, (BiasAdd_impl<>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present")
                                  .Attr<std::string_view>("data_format"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_BiasAdd_cuda, (BiasAdd_impl<void*, int32_t, ffi::ScratchAllocator>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present")
                                  .Attr<std::string_view>("data_format")
                                  .Ctx<ffi::PlatformStream<void*>>()
                                  .Ctx<ffi::DeviceOrdinal>()
                                  .Ctx<ffi::ScratchAllocator>());

template <class... Context>
static ffi::Error BiasAddGrad_impl(ffi::RemainingArgs args, ffi::RemainingRets rets, int64_t present, std::string_view a0, Context... context) {
  opgen_jax::Call call("BiasAddGrad", args, rets, present, context...);
  call.input();
  call.attr(a0);
  return call.run(opgen_call_BiasAddGrad, "opgen_call_BiasAddGrad");
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_BiasAddGrad_cpu, (BiasAddGrad_impl<>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present")
                                  .Attr<std::string_view>("data_format"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_BiasAddGrad_cuda, (BiasAddGrad_impl<void*, int32_t, ffi::ScratchAllocator>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present")
                                  .Attr<std::string_view>("data_format")
                                  .Ctx<ffi::PlatformStream<void*>>()
                                  .Ctx<ffi::DeviceOrdinal>()
                                  .Ctx<ffi::ScratchAllocator>());

template <class... Context>
static ffi::Error FusedBatchNormGradV3_impl(ffi::RemainingArgs args, ffi::RemainingRets rets, int64_t present, double a0, std::string_view a1, bool a2, Context... context) {
  opgen_jax::Call call("FusedBatchNormGradV3", args, rets, present, context...);
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  call.attr(a0);
  call.attr(a1);
  call.attr(a2);
  return call.run(opgen_call_FusedBatchNormGradV3, "opgen_call_FusedBatchNormGradV3");
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_FusedBatchNormGradV3_cpu, (FusedBatchNormGradV3_impl<>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present")
                                  .Attr<double>("epsilon")
                                  .Attr<std::string_view>("data_format")
                                  .Attr<bool>("is_training"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_FusedBatchNormGradV3_cuda, (FusedBatchNormGradV3_impl<void*, int32_t, ffi::ScratchAllocator>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present")
                                  .Attr<double>("epsilon")
                                  .Attr<std::string_view>("data_format")
                                  .Attr<bool>("is_training")
                                  .Ctx<ffi::PlatformStream<void*>>()
                                  .Ctx<ffi::DeviceOrdinal>()
                                  .Ctx<ffi::ScratchAllocator>());

template <class... Context>
static ffi::Error FusedBatchNormV3_impl(ffi::RemainingArgs args, ffi::RemainingRets rets, int64_t present, double a0, double a1, std::string_view a2, bool a3, Context... context) {
  opgen_jax::Call call("FusedBatchNormV3", args, rets, present, context...);
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  call.attr(a0);
  call.attr(a1);
  call.attr(a2);
  call.attr(a3);
  return call.run(opgen_call_FusedBatchNormV3, "opgen_call_FusedBatchNormV3");
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_FusedBatchNormV3_cpu, (FusedBatchNormV3_impl<>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present")
                                  .Attr<double>("epsilon")
                                  .Attr<double>("exponential_avg_factor")
                                  .Attr<std::string_view>("data_format")
                                  .Attr<bool>("is_training"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_FusedBatchNormV3_cuda, (FusedBatchNormV3_impl<void*, int32_t, ffi::ScratchAllocator>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present")
                                  .Attr<double>("epsilon")
                                  .Attr<double>("exponential_avg_factor")
                                  .Attr<std::string_view>("data_format")
                                  .Attr<bool>("is_training")
                                  .Ctx<ffi::PlatformStream<void*>>()
                                  .Ctx<ffi::DeviceOrdinal>()
                                  .Ctx<ffi::ScratchAllocator>());

template <class... Context>
static ffi::Error LayerNorm_impl(ffi::RemainingArgs args, ffi::RemainingRets rets, int64_t present, double a0, Context... context) {
  opgen_jax::Call call("LayerNorm", args, rets, present, context...);
  call.input();
  call.input();
  call.input();
  call.attr(a0);
  return call.run(opgen_call_LayerNorm, "opgen_call_LayerNorm");
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_LayerNorm_cpu, (LayerNorm_impl<>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present")
                                  .Attr<double>("epsilon"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_LayerNorm_cuda, (LayerNorm_impl<void*, int32_t, ffi::ScratchAllocator>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present")
                                  .Attr<double>("epsilon")
                                  .Ctx<ffi::PlatformStream<void*>>()
                                  .Ctx<ffi::DeviceOrdinal>()
                                  .Ctx<ffi::ScratchAllocator>());

template <class... Context>
static ffi::Error LayerNormGrad_impl(ffi::RemainingArgs args, ffi::RemainingRets rets, int64_t present, Context... context) {
  opgen_jax::Call call("LayerNormGrad", args, rets, present, context...);
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  return call.run(opgen_call_LayerNormGrad, "opgen_call_LayerNormGrad");
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_LayerNormGrad_cpu, (LayerNormGrad_impl<>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_LayerNormGrad_cuda, (LayerNormGrad_impl<void*, int32_t, ffi::ScratchAllocator>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present")
                                  .Ctx<ffi::PlatformStream<void*>>()
                                  .Ctx<ffi::DeviceOrdinal>()
                                  .Ctx<ffi::ScratchAllocator>());

template <class... Context>
static ffi::Error Softmax_impl(ffi::RemainingArgs args, ffi::RemainingRets rets, int64_t present, int64_t a0, Context... context) {
  opgen_jax::Call call("Softmax", args, rets, present, context...);
  call.input();
  call.attr(a0);
  return call.run(opgen_call_Softmax, "opgen_call_Softmax");
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_Softmax_cpu, (Softmax_impl<>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present")
                                  .Attr<int64_t>("axis"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_Softmax_cuda, (Softmax_impl<void*, int32_t, ffi::ScratchAllocator>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present")
                                  .Attr<int64_t>("axis")
                                  .Ctx<ffi::PlatformStream<void*>>()
                                  .Ctx<ffi::DeviceOrdinal>()
                                  .Ctx<ffi::ScratchAllocator>());

template <class... Context>
static ffi::Error SoftmaxGrad_impl(ffi::RemainingArgs args, ffi::RemainingRets rets, int64_t present, int64_t a0, Context... context) {
  opgen_jax::Call call("SoftmaxGrad", args, rets, present, context...);
  call.input();
  call.input();
  call.attr(a0);
  return call.run(opgen_call_SoftmaxGrad, "opgen_call_SoftmaxGrad");
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_SoftmaxGrad_cpu, (SoftmaxGrad_impl<>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present")
                                  .Attr<int64_t>("axis"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_SoftmaxGrad_cuda, (SoftmaxGrad_impl<void*, int32_t, ffi::ScratchAllocator>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present")
                                  .Attr<int64_t>("axis")
                                  .Ctx<ffi::PlatformStream<void*>>()
                                  .Ctx<ffi::DeviceOrdinal>()
                                  .Ctx<ffi::ScratchAllocator>());

template <class... Context>
static ffi::Error CudnnRNNBackpropV3_impl(ffi::RemainingArgs args, ffi::RemainingRets rets, int64_t present, std::string_view a0, std::string_view a1, std::string_view a2, double a3, int64_t a4, int64_t a5, int64_t a6, bool a7, bool a8, Context... context) {
  opgen_jax::Call call("CudnnRNNBackpropV3", args, rets, present, context...);
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  call.attr(a0);
  call.attr(a1);
  call.attr(a2);
  call.attr(a3);
  call.attr(a4);
  call.attr(a5);
  call.attr(a6);
  call.attr(a7);
  call.attr(a8);
  return call.run(opgen_call_CudnnRNNBackpropV3, "opgen_call_CudnnRNNBackpropV3");
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_CudnnRNNBackpropV3_cpu, (CudnnRNNBackpropV3_impl<>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present")
                                  .Attr<std::string_view>("rnn_mode")
                                  .Attr<std::string_view>("input_mode")
                                  .Attr<std::string_view>("direction")
                                  .Attr<double>("dropout")
                                  .Attr<int64_t>("seed")
                                  .Attr<int64_t>("seed2")
                                  .Attr<int64_t>("num_proj")
                                  .Attr<bool>("time_major")
                                  .Attr<bool>("compute_input_backprop"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_CudnnRNNBackpropV3_cuda, (CudnnRNNBackpropV3_impl<void*, int32_t, ffi::ScratchAllocator>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present")
                                  .Attr<std::string_view>("rnn_mode")
                                  .Attr<std::string_view>("input_mode")
                                  .Attr<std::string_view>("direction")
                                  .Attr<double>("dropout")
                                  .Attr<int64_t>("seed")
                                  .Attr<int64_t>("seed2")
                                  .Attr<int64_t>("num_proj")
                                  .Attr<bool>("time_major")
                                  .Attr<bool>("compute_input_backprop")
                                  .Ctx<ffi::PlatformStream<void*>>()
                                  .Ctx<ffi::DeviceOrdinal>()
                                  .Ctx<ffi::ScratchAllocator>());

template <class... Context>
static ffi::Error CudnnRNNV3_impl(ffi::RemainingArgs args, ffi::RemainingRets rets, int64_t present, std::string_view a0, std::string_view a1, std::string_view a2, double a3, int64_t a4, int64_t a5, int64_t a6, bool a7, bool a8, Context... context) {
  opgen_jax::Call call("CudnnRNNV3", args, rets, present, context...);
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  call.attr(a0);
  call.attr(a1);
  call.attr(a2);
  call.attr(a3);
  call.attr(a4);
  call.attr(a5);
  call.attr(a6);
  call.attr(a7);
  call.attr(a8);
  return call.run(opgen_call_CudnnRNNV3, "opgen_call_CudnnRNNV3");
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_CudnnRNNV3_cpu, (CudnnRNNV3_impl<>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present")
                                  .Attr<std::string_view>("rnn_mode")
                                  .Attr<std::string_view>("input_mode")
                                  .Attr<std::string_view>("direction")
                                  .Attr<double>("dropout")
                                  .Attr<int64_t>("seed")
                                  .Attr<int64_t>("seed2")
                                  .Attr<int64_t>("num_proj")
                                  .Attr<bool>("is_training")
                                  .Attr<bool>("time_major"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_CudnnRNNV3_cuda, (CudnnRNNV3_impl<void*, int32_t, ffi::ScratchAllocator>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present")
                                  .Attr<std::string_view>("rnn_mode")
                                  .Attr<std::string_view>("input_mode")
                                  .Attr<std::string_view>("direction")
                                  .Attr<double>("dropout")
                                  .Attr<int64_t>("seed")
                                  .Attr<int64_t>("seed2")
                                  .Attr<int64_t>("num_proj")
                                  .Attr<bool>("is_training")
                                  .Attr<bool>("time_major")
                                  .Ctx<ffi::PlatformStream<void*>>()
                                  .Ctx<ffi::DeviceOrdinal>()
                                  .Ctx<ffi::ScratchAllocator>());

template <class... Context>
static ffi::Error DmlRnn_impl(ffi::RemainingArgs args, ffi::RemainingRets rets, int64_t present, std::string_view a0, ffi::Span<const int64_t> a1, ffi::Span<const double> a1_params, bool a1_single, Context... context) {
  opgen_jax::Call call("DmlRnn", args, rets, present, context...);
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  call.attr(a0);
  call.activations(a1, a1_params, a1_single);
  return call.run(opgen_call_DmlRnn, "opgen_call_DmlRnn");
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_DmlRnn_cpu, (DmlRnn_impl<>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present")
                                  .Attr<std::string_view>("direction")
                                  .Attr<ffi::Span<const int64_t>>("activations")
                                  .Attr<ffi::Span<const double>>("activations__params")
                                  .Attr<bool>("activations__single"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_DmlRnn_cuda, (DmlRnn_impl<void*, int32_t, ffi::ScratchAllocator>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present")
                                  .Attr<std::string_view>("direction")
                                  .Attr<ffi::Span<const int64_t>>("activations")
                                  .Attr<ffi::Span<const double>>("activations__params")
                                  .Attr<bool>("activations__single")
                                  .Ctx<ffi::PlatformStream<void*>>()
                                  .Ctx<ffi::DeviceOrdinal>()
                                  .Ctx<ffi::ScratchAllocator>());

template <class... Context>
static ffi::Error GRUBlockCell_impl(ffi::RemainingArgs args, ffi::RemainingRets rets, int64_t present, Context... context) {
  opgen_jax::Call call("GRUBlockCell", args, rets, present, context...);
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  return call.run(opgen_call_GRUBlockCell, "opgen_call_GRUBlockCell");
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_GRUBlockCell_cpu, (GRUBlockCell_impl<>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_GRUBlockCell_cuda, (GRUBlockCell_impl<void*, int32_t, ffi::ScratchAllocator>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present")
                                  .Ctx<ffi::PlatformStream<void*>>()
                                  .Ctx<ffi::DeviceOrdinal>()
                                  .Ctx<ffi::ScratchAllocator>());

template <class... Context>
static ffi::Error GRUBlockCellGrad_impl(ffi::RemainingArgs args, ffi::RemainingRets rets, int64_t present, Context... context) {
  opgen_jax::Call call("GRUBlockCellGrad", args, rets, present, context...);
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  call.input();
  return call.run(opgen_call_GRUBlockCellGrad, "opgen_call_GRUBlockCellGrad");
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_GRUBlockCellGrad_cpu, (GRUBlockCellGrad_impl<>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(opgen_jax_GRUBlockCellGrad_cuda, (GRUBlockCellGrad_impl<void*, int32_t, ffi::ScratchAllocator>),
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()
                                  .Attr<int64_t>("opgen_present")
                                  .Ctx<ffi::PlatformStream<void*>>()
                                  .Ctx<ffi::DeviceOrdinal>()
                                  .Ctx<ffi::ScratchAllocator>());

#pragma GCC visibility pop
