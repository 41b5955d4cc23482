// The seam between a generated driver (codegen/drivergen.py: checks, lets, outputs, the plan's
// values and buffers) and the runtime that runs its plan (record or replay, then launch).
// A driver fills a PlanCall and calls opgen_native::run_plan; the runtime records the plan with
// the op's recorder (kept per set of values, as Plan.recording keeps Python's), then runs the
// steps on the call's device: cpu, the host emulation in process; cuda, the driver API.
#ifndef OPGEN_RUN_PLAN_H
#define OPGEN_RUN_PLAN_H

#include <stdint.h>

#include "driver.h"

// The recorder drivergen prints per op (opgen_plan_Op, plan_eval.h states its buffer).
struct opgen_plan_value;
typedef int (*opgen_plan_recorder)(const struct opgen_plan_value* values, int64_t nvalues, const char* backend,
                                   int64_t* words, int64_t capacity, int64_t* used, int64_t* variant, char* err,
                                   int64_t errlen);

// Bump with any change to a struct or rule in this file (2: Slot::size; 3: the cuda runner handed to the
// dispatcher as a CudaRunner).
#define OPGEN_RUN_PLAN_ABI 3

namespace opgen_native {

// A slot of the plan (plan.slots, in order): a buffer (its data pointer, NULL when absent) or a
// list input (`count` pointers at `items`), with the dtype and size its GEMM steps need.
struct Slot {
  void* data;
  const void* const* items;  // a list slot's element pointers, else NULL
  int64_t count;             // -1: a buffer; else the list's length
  int32_t dtype;             // opgen_dtype of the buffer (lists: of their elements)
  int32_t reserved;
  int64_t size;              // a buffer's elements (a GEMM step's window is checked against it)
};

// An input's `values: {min, max, on_device: true}` bounds, which the runtime checks on the device
// and reports as codegen/runtime/device_value_checks.py does (a later call, or a synchronize): the
// driver checks them on the data itself on the cpu, and hands them over on the cuda device.
struct ValueCheck {
  const opgen_tensor* tensor;  // the input (its data, dtype and shape)
  const char* arg;             // its name, for the message
  int32_t has_min;
  int32_t has_max;
  int64_t min;
  int64_t max;
  const char* min_text;        // the spec's expression of each bound ("steps"), as value_error shows it
  const char* max_text;
};

struct PlanCall {
  const char* op;                       // the op's name, for messages and the kernel binding
  opgen_plan_recorder record;           // its recorder
  const char* const* symbols;           // its symbol table (the recorder's symbol indices)
  int64_t nsymbols;
  const struct opgen_plan_value* values;  // plan.names, in order
  int64_t nvalues;
  const Slot* slots;                    // plan.slots, in order
  int64_t nslots;
  const ValueCheck* value_checks;       // the call's device value checks, in the wrapper's order
  int64_t nvalue_checks;
};

// Records (or replays) and runs the plan for `call`'s device; OPGEN_OK or an opgen_result with
// call->err set.
int run_plan(opgen_call* call, const PlanCall& plan);

// The cuda runner (run_plan_cuda.cpp) is a library of its own, built once per process
// (codegen/runtime/native_cuda.py): compiling it into every op's driver library would nearly
// double the library's build. A front-end hands its entry point (opgen_native_cuda_run_plan) to
// each driver library once (opgen_native_use_cuda_runner); until then cuda calls fall back.
typedef int (*CudaRunner)(opgen_call* call, const PlanCall* plan);

}  // namespace opgen_native

extern "C" {
// Sets the runner for OPGEN_DEV_CUDA calls; 0, or nonzero where `abi` (the runner library's
// OPGEN_RUN_PLAN_ABI) is not this library's.
__attribute__((visibility("default"))) int opgen_native_use_cuda_runner(opgen_native::CudaRunner runner,
                                                                        int64_t abi);
}

namespace opgen_native {

}  // namespace opgen_native

#endif  // OPGEN_RUN_PLAN_H
