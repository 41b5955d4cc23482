// A measurement prototype for issue 32's grad mode (bench/bench_torch_autograd_gate.py builds and
// loads it; not part of any package): an Autograd-key kernel for three opgen ops in C++, against
// PyTorch's own (non-stable) headers, so built per installed PyTorch. When grad mode is off or no
// tensor input requires grad it redispatches below autograd in C++ (the Python kernel's no-graph
// branch, codegen/runtime/torch_autograd.py, without the Python). A call that would record a graph
// is refused here; the design hands it to the Python autograd through a helper op (RESULTS.md).
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/core/GradMode.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/library.h>

#include <stdexcept>

namespace {

// Whether any tensor argument on the stack (the op's arguments are its top entries) requires grad.
bool any_requires_grad(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
  size_t n = op.schema().arguments().size();
  for (size_t k = stack.size() - n; k < stack.size(); ++k) {
    const c10::IValue& v = stack[k];
    if (v.isTensor() && v.toTensor().requires_grad()) return true;
    if (v.isTensorList())
      for (const at::Tensor& t : v.toTensorList())
        if (t.requires_grad()) return true;
  }
  return false;
}

void autograd_gate(const c10::OperatorHandle& op, c10::DispatchKeySet keys, torch::jit::Stack* stack) {
  if (c10::GradMode::is_enabled() && any_requires_grad(op, *stack))
    throw std::runtime_error(op.schema().name() + ": the prototype gate takes no graph-recording call");
  c10::impl::ExcludeDispatchKeyGuard below(c10::autograd_dispatch_keyset);  // (torch's no-grad branch's guard)
  op.redispatchBoxed(keys & c10::after_autograd_keyset, stack);
}

}  // namespace

TORCH_LIBRARY_IMPL(opgen, Autograd, m) {
  m.impl("layer_norm", torch::CppFunction::makeFromBoxedFunction<&autograd_gate>());
  m.impl("softmax", torch::CppFunction::makeFromBoxedFunction<&autograd_gate>());
  m.impl("fused_batch_norm_grad_v3", torch::CppFunction::makeFromBoxedFunction<&autograd_gate>());
}
