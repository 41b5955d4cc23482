// opgen_native::run_plan (run_plan.h): the call's device picks its runner: the cpu's, compiled in;
// the cuda one, a library of its own handed over by the front-end (opgen_native_use_cuda_runner).
#include "run_plan.h"

#include <atomic>
#include <cstdio>

#include "run_plan_cpu.h"

namespace opgen_native {
namespace {
std::atomic<CudaRunner> g_cuda_runner{nullptr};
}  // namespace

int run_plan(opgen_call* call, const PlanCall& plan) {
  if (call->device == OPGEN_DEV_CPU) return run_plan_cpu(call, plan);
  if (call->device == OPGEN_DEV_CUDA) {
    // (the cuda runner does not check `values: {on_device: true}` bounds: the Python path's
    // device_value_checks.py does, and reports them at a later call)
    if (plan.nvalue_checks > 0) {
      snprintf(call->err, sizeof call->err, "%s: its inputs' values are checked on the device by the Python path",
               plan.op);
      return OPGEN_ERR_FALLBACK;
    }
    CudaRunner runner = g_cuda_runner.load(std::memory_order_acquire);
    if (runner != nullptr) return runner(call, &plan);
    snprintf(call->err, sizeof call->err, "%s: no cuda runner handed to this driver library", plan.op);
    return OPGEN_ERR_FALLBACK;
  }
  snprintf(call->err, sizeof call->err, "%s: no native runner for device %d", plan.op, call->device);
  return OPGEN_ERR_FALLBACK;
}

}  // namespace opgen_native

extern "C" int opgen_native_use_cuda_runner(opgen_native::CudaRunner runner, int64_t abi) {
  if (abi != OPGEN_RUN_PLAN_ABI) return 1;
  opgen_native::g_cuda_runner.store(runner, std::memory_order_release);
  return 0;
}
