// The cuda side of the plan's runtime (run_plan.h's seam): the plan recorded (kept per set of
// values) and its launches made through the CUDA driver API, reached with dlopen (no CUDA toolkit
// at build time). run_plan_cuda.cpp holds it; the dispatcher `run_plan` calls it for OPGEN_DEV_CUDA.
#ifndef OPGEN_RUN_PLAN_CUDA_H
#define OPGEN_RUN_PLAN_CUDA_H

#include "run_plan.h"

namespace opgen_native {

// OPGEN_OK, OPGEN_ERR_FALLBACK (no libcuda, the op not bound on this device, a GEMM step without
// cuBLAS or of a dtype it does not take here: the message says which), OPGEN_ERR_VALUE (a launch
// configuration the checks refuse, in the Python backend's words; a GEMM dimension beyond cuBLAS's
// ints) or OPGEN_ERR_RUNTIME (the driver or cuBLAS refused), with call->err set.
int run_plan_cuda(opgen_call* call, const PlanCall& plan);

}  // namespace opgen_native

extern "C" {

// Which libcuda to use from now on (NULL: libcuda.so.1; the stand-in's path in its tests): loaded
// now, the bindings made with another forgotten. 0, or nonzero with err saying what to install.
int opgen_native_cuda_driver(const char* path, char* err, int64_t errlen);

// Which cuBLAS GEMM steps use from now on (NULL: libcublas.so.13, else .12; the stand-in's path in
// its tests): loaded now. 0, or nonzero with err saying what to install.
int opgen_native_cuda_cublas(const char* path, char* err, int64_t errlen);

// Binds an op's kernels on a device, once per (op, device, image): its module loaded with
// cuModuleLoadData from `image` (the kernel cache's cubin; the stand-in's own image in a stand-in
// build) into the device's primary context, and each of `symbols` (the recorder's symbol table)
// looked up. An OPGEN_* result with err set.
int opgen_native_cuda_bind(const char* op, int32_t device_index, const void* image, int64_t image_bytes,
                           const char* const* symbols, int64_t nsymbols, char* err, int64_t errlen);

// The graph replay's counters (0 captures, 1 graph launches, 2 captures that failed), and its switch
// (1, the default: a recording's launches captured once per slot pointers and replayed as a CUDA
// graph; 0: launch by launch, what OPGEN_NO_REPLAY asks of the Python plan).
long long opgen_native_cuda_stat(int what);
void opgen_native_cuda_graphs(int on);

}  // extern "C"

#endif  // OPGEN_RUN_PLAN_CUDA_H
