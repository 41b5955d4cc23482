// opgen_native::run_plan (run_plan.h): the call's device picks its runner.
#include "run_plan.h"

#include <cstdio>

#include "run_plan_cpu.h"

namespace opgen_native {

int run_plan(opgen_call* call, const PlanCall& plan) {
  if (call->device == OPGEN_DEV_CPU) return run_plan_cpu(call, plan);
  snprintf(call->err, sizeof call->err, "%s: no native runner for device %d yet", plan.op, call->device);
  return OPGEN_ERR_FALLBACK;
}

}  // namespace opgen_native
