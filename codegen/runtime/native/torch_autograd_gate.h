// The Autograd-key kernel of a package's PyTorch ops in C++ (issue 32; torch_autograd_gate.cpp beside
// it registers it for a package's ops at run time, codegen/runtime/torch_gate.py builds that unit once
// per PyTorch for every package). PyTorch's own headers,
// not its stable ABI (which has no requires-grad query and no redispatch below autograd): the library
// is built per installed PyTorch, and only where a process runs autograd (an AOTInductor process loads
// the stable library alone).
//
// A call that records no graph (grad mode off, or no tensor argument requiring grad) redispatches below
// autograd at once, as torch's own kernel (torch._library.autograd) does in that case, without Python.
// A call that records one goes through the dispatcher to `<ns>::_<op>_autograd`, the op's helper of the
// same schema, whose only kernel is that Python kernel (CompositeImplicitAutograd: a traced or exported
// graph decomposes it and shows `<ns>::<op>`).
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/core/GradMode.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/library.h>

#include <string>
#include <utility>

namespace opgen_torch_gate {

// Whether any tensor argument of the call on `stack` (its top entries) requires grad.
inline bool any_requires_grad(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
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

// One op's kernel, holding its helper's qualified name (`ns::_op_autograd`: the package's torch.py
// spells it, from codegen/runtime/torch_names.py): one boxed functor per op, no per-package code.
class Kernel final : public c10::OperatorKernel {
 public:
  explicit Kernel(std::string helper) : helper_(std::move(helper)) {}

  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet keys, torch::jit::Stack* stack) {
    if (c10::GradMode::is_enabled() && any_requires_grad(op, *stack)) {
      // (looked up per call: the branch runs Python's autograd, which costs far more than the lookup)
      c10::Dispatcher::singleton().findSchemaOrThrow(helper_.c_str(), "").callBoxed(stack);
      return;
    }
    c10::impl::ExcludeDispatchKeyGuard below(c10::autograd_dispatch_keyset);  // (torch's no-graph guard)
    op.redispatchBoxed(keys & c10::after_autograd_keyset, stack);
  }

 private:
  std::string helper_;
};

}  // namespace opgen_torch_gate
