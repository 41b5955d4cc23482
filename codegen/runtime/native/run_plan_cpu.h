// The cpu side of opgen_native::run_plan: a plan's steps run in process on the host emulation (the
// kernel modules the cpu backend builds, codegen/runtime/host/module.py; the emulation runtime's
// opgen_rt_run_batch, emu/opgen_emu_abi.h), its GEMM steps through the process's BLAS as the cpu
// backend finds it (host/blas.py). The driver library cannot know where the modules live: a Python
// loader binds each op once (codegen/runtime/native_cpu.py), handing in its kernels' entry points,
// the runtime's and BLAS's addresses and the launch settings; run_plan_cpu then runs what the cpu
// backend's replay (host/replay.py) runs, and returns OPGEN_ERR_FALLBACK where that backend would
// take another route (no binding, the sanitize build, a GEMM the BLAS does not take).
#ifndef OPGEN_RUN_PLAN_CPU_H
#define OPGEN_RUN_PLAN_CPU_H

#include <stdint.h>

#include <memory>
#include <string>

#include "run_plan.h"

#define OPGEN_NATIVE_API extern "C" __attribute__((visibility("default")))

// Bump with any change to the structs below (native_cpu.py mirrors them; the loader checks).
#define OPGEN_CPU_BINDING_ABI 1

// One entry point of the op's symbol table (PlanCall::symbols, in that order), as its HostFunction
// holds it.
typedef struct opgen_cpu_kernel {
  const char* symbol;
  uint64_t launch;              // the module's opgen_launch_<symbol>
  const uint32_t* params;       // opgen_params_<symbol>: kind << 24 | size, per parameter
  int64_t nparams;
  int64_t max_threads;          // max_threads_per_block (__launch_bounds__ or CUDA's 1024)
  int64_t max_dynamic_shared;   // max_dynamic_shared_size_bytes
  int64_t static_shared;        // shared_size_bytes
} opgen_cpu_kernel;

// An op's binding. `fallback` non-NULL: every call returns OPGEN_ERR_FALLBACK saying it (the
// Python backend takes another route: the sanitize build).
typedef struct opgen_cpu_binding {
  const char* plan;             // the launch plan the backend runs ("cpu"; "cuda" emulated)
  const opgen_cpu_kernel* kernels;
  int64_t nkernels;
  uint64_t run_batch;           // opgen_rt_run_batch
  uint64_t gemm;                // opgen_rt_gemm
  uint64_t sgemm, dgemm;        // the BLAS's cblas_sgemm/dgemm (0: none; GEMM steps fall back)
  int32_t blas_int64;           // the BLAS takes 64-bit integers
  int32_t random_order;         // the launch settings (host/switches.py _launch_settings)
  int64_t threads;
  uint64_t seed;
  uint64_t stack_size;
  int64_t max_grid[3], max_block[3];  // CUDA's limits (host/limits.py)
  int64_t max_shared;           // MAX_SHARED_MEM
  const char* fallback;
} opgen_cpu_binding;

// Binds (or rebinds: recordings' batches are rebuilt) op `op`; 0, or 1 with `err` set.
OPGEN_NATIVE_API int opgen_native_bind_cpu(const char* op, const opgen_cpu_binding* binding, char* err,
                                           int64_t errlen);
// Forgets op `op`'s binding (its calls fall back until it is bound again; a library that binds
// itself does not bind it again).
OPGEN_NATIVE_API void opgen_native_unbind_cpu(const char* op);
// OPGEN_CPU_BINDING_ABI (0), sizeof(opgen_cpu_kernel) (1), sizeof(opgen_cpu_binding) (2), sizeof(Slot) (3).
OPGEN_NATIVE_API int64_t opgen_native_cpu_abi(int what);

namespace opgen_native {

int run_plan_cpu(opgen_call* call, const PlanCall& plan);

// A library that carries its kernels binds an op itself on its first call without a binding
// (self_bind_cpu.cpp installs one): 0 with the op bound (opgen_native_bind_cpu's way), or 1 with
// `why` set. An op unbound by opgen_native_unbind_cpu is not bound again this way.
typedef int (*CpuBinder)(const PlanCall& plan, std::string& why);
void set_cpu_binder(CpuBinder binder);

// Binds (or rebinds) op `op` to `binding` (cpu_batch.h): opgen_native_bind_cpu's last step.
struct CpuBinding;
void install_cpu_binding(const char* op, std::shared_ptr<const CpuBinding> binding);

}  // namespace opgen_native

#endif  // OPGEN_RUN_PLAN_CPU_H
