// A plan's GEMM step on cuda: one cuBLAS call on the stream, as codegen/runtime/cublas_gemm.py's
// DirectGemm makes it. Row-major out[m, n] (+)= op(a)·op(b) is, column-major, outᵀ = op(b)ᵀ·op(a)ᵀ:
// cuBLAS gets b first, each transposed exactly when the step says so. float32 (Sgemm), float64
// (Dgemm), float16 (GemmEx, float32 accumulation); beta 1 accumulates in place. An empty product
// launches nothing, or fills the window with zeros (beta 0), as gemm.py's gemm_into. A strided batch
// (batch > 1) is one cublasGemmStridedBatchedEx call (b's stride first, as its pointer), as
// cublas_gemm.py's DirectGemm makes it.
#ifndef OPGEN_CUDA_GEMM_H
#define OPGEN_CUDA_GEMM_H

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "call_error.h"
#include "cublas_library.h"
#include "cuda_driver.h"
#include "plan_abi.h"
#include "run_plan.h"

namespace opgen_native {

constexpr size_t kCublasWorkspace = 32 << 20;   // cublas_library.py's WORKSPACE_BYTES
constexpr int64_t kCublasIntMax = 2147483647;   // cuBLAS's dimensions are C ints

// A device's cuBLAS handle with a workspace of its own (without one cuBLAS takes workspace from
// its pool, which a capture must not; cublasSetStream resets it, so each call sets it again).
struct BlasHandle {
  cublasHandle_t handle = nullptr;
  CUdeviceptr workspace = 0;
  std::mutex mu;
};

struct GemmStep {
  int64_t a, b, out, m, n, k, trans_a, trans_b, beta, a_offset, b_offset, out_offset, batch, a_stride, b_stride,
      out_stride;
};

inline GemmStep gemm_step(const int64_t* p) {  // p: the step's first word
  const int64_t* s = p + 4;
  return GemmStep{p[1],  p[2],  p[3],  s[1],  s[3],  s[5],  s[7],  s[9],
                  s[11], s[13], s[15], s[17], s[19], s[21], s[23], s[25]};
}

inline int gemm_itemsize(int32_t dtype) {
  return dtype == OPGEN_DT_FLOAT32 ? 4 : dtype == OPGEN_DT_FLOAT64 ? 8 : dtype == OPGEN_DT_FLOAT16 ? 2 : 0;
}

// Whether cuBLAS takes every GEMM step of `w` here (three buffers of one dtype, float16/32/64, each
// holding the step's window: what the cpu runner checks before its batch runs); else why not, for
// the Python path to run the call (its backend checks the windows and names what is wrong).
inline bool gemm_steps_taken(const PlanCall& plan, const std::vector<int64_t>& w, std::string* why) {
  for (size_t at = 0; at < w.size(); at += (size_t)opgen_step_words(&w[at])) {
    if (w[at] != OPGEN_STEP_GEMM) continue;
    GemmStep g = gemm_step(&w[at]);
    const int64_t slot[3] = {g.a, g.b, g.out};
    for (int64_t s : slot)
      if (s < 0 || s >= plan.nslots || plan.slots[s].count >= 0) {
        *why = std::string(plan.op) + ": a GEMM step on a slot that is no buffer";
        return false;
      }
    int32_t dt = plan.slots[g.out].dtype;
    if (!gemm_itemsize(dt) || plan.slots[g.a].dtype != dt || plan.slots[g.b].dtype != dt) {
      *why = std::string(plan.op) + ": a GEMM step on buffers of dtypes (" + std::to_string(plan.slots[g.a].dtype) +
             ", " + std::to_string(plan.slots[g.b].dtype) + ", " + std::to_string(dt) +
             ") (driver.h's opgen_dtype), which the native cuda runtime does not run (cuBLAS here: one of "
             "float16, float32, float64)";
      return false;
    }
    if (g.m == 0 || g.n == 0 || g.batch == 0) continue;  // (nothing read or written)
    // the first and the last product of a strided batch bound the rest (the offsets move linearly)
    const int64_t r = g.batch - 1;
    const int64_t first[3] = {g.a_offset, g.b_offset, g.out_offset};
    const int64_t last[3] = {g.a_offset + r * g.a_stride, g.b_offset + r * g.b_stride, g.out_offset + r * g.out_stride};
    const int64_t sizes[10] = {g.m, g.n, g.k, g.batch, first[0], first[1], first[2], last[0], last[1], last[2]};
    const int64_t extents[3] = {g.m * g.k, g.n * g.k, g.m * g.n};
    bool fits = *std::min_element(sizes, sizes + 10) >= 0;
    for (int j = 0; j < 3 && fits; ++j) fits = std::max(first[j], last[j]) + extents[j] <= plan.slots[slot[j]].size;
    if (!fits) {
      *why = std::string(plan.op) + ": a GEMM step's window [m=" + std::to_string(g.m) + ", n=" +
             std::to_string(g.n) + ", k=" + std::to_string(g.k) + "] does not lie in its buffers";
      return false;
    }
  }
  return true;
}

// The step at w[*at] on `stream` (*at moved past it).
inline int gemm(opgen_call* call, const PlanCall& plan, const CudaDriver& d, const Cublas& c, BlasHandle& h,
                const int64_t* w, size_t* at, CUstream stream) {
  GemmStep g = gemm_step(w + *at);
  *at += (size_t)opgen_step_words(w + *at);
  if (g.m == 0 || g.n == 0 || g.batch == 0) return OPGEN_OK;
  int32_t dtype = plan.slots[g.out].dtype;
  int64_t size = gemm_itemsize(dtype);
  char* out = static_cast<char*>(plan.slots[g.out].data) + g.out_offset * size;
  if (g.k == 0) {  // an empty sum: out = 0 (beta 0) or left as it is (beta 1), product by product
    for (int64_t i = 0; i < g.batch && !g.beta; ++i) {
      CUresult r = d.cuMemsetD8Async((CUdeviceptr)(uintptr_t)(out + i * g.out_stride * size), 0, g.m * g.n * size,
                                     stream);
      if (r != CUDA_SUCCESS)
        return fail_call(call, OPGEN_ERR_RUNTIME,
                         std::string(plan.op) + ": clearing a GEMM step's output failed: " + d.describe(r));
    }
    return OPGEN_OK;
  }
  auto at_least_1 = [](int64_t v) { return v > 1 ? v : 1; };
  int64_t lda = at_least_1(g.trans_b ? g.k : g.n), ldb = at_least_1(g.trans_a ? g.m : g.k), ldc = at_least_1(g.n);
  const char* names[] = {"m", "n", "k", "lda", "ldb", "ldc", "batch"};
  const int64_t dims[] = {g.m, g.n, g.k, lda, ldb, ldc, g.batch};
  std::string big;
  for (int i = 0; i < 7; ++i)
    if (dims[i] > kCublasIntMax)
      big += (big.empty() ? "" : ", ") + std::string(names[i]) + "=" + std::to_string(dims[i]);
  if (!big.empty())
    return fail_call(call, OPGEN_ERR_VALUE,
                     "cuda backend: GEMM step [m=" + std::to_string(g.m) + ", n=" + std::to_string(g.n) +
                         ", k=" + std::to_string(g.k) +
                         "]: cuBLAS takes dimensions of at most 2**31-1 = 2147483647, got " + big);
  const void* a = static_cast<const char*>(plan.slots[g.b].data) + g.b_offset * size;  // (column-major: b first)
  const void* b = static_cast<const char*>(plan.slots[g.a].data) + g.a_offset * size;
  int ta = g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, tb = g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  int m = (int)g.n, n = (int)g.m, k = (int)g.k;
  static const float one_f = 1.0f, zero_f = 0.0f;
  static const double one_d = 1.0, zero_d = 0.0;
  std::lock_guard<std::mutex> lock(h.mu);
  const char* fn = "cublasSetStream_v2";
  cublasStatus_t s = c.cublasSetStream_v2(h.handle, stream);
  if (s == CUBLAS_STATUS_SUCCESS) {
    fn = "cublasSetWorkspace_v2";
    s = c.cublasSetWorkspace_v2(h.handle, (void*)(uintptr_t)h.workspace, kCublasWorkspace);
  }
  if (s == CUBLAS_STATUS_SUCCESS && g.batch != 1) {
    fn = "cublasGemmStridedBatchedEx";
    const bool wide = dtype == OPGEN_DT_FLOAT64;
    const int type = wide ? CUDA_R_64F : dtype == OPGEN_DT_FLOAT32 ? CUDA_R_32F : CUDA_R_16F;
    const void* one = wide ? (const void*)&one_d : (const void*)&one_f;
    const void* beta = g.beta ? one : wide ? (const void*)&zero_d : (const void*)&zero_f;
    s = c.cublasGemmStridedBatchedEx(h.handle, ta, tb, m, n, k, one, a, type, (int)lda, g.b_stride, b, type, (int)ldb,
                                     g.a_stride, beta, out, type, (int)ldc, g.out_stride, (int)g.batch,
                                     wide ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  } else if (s == CUBLAS_STATUS_SUCCESS && dtype == OPGEN_DT_FLOAT64) {
    fn = "cublasDgemm_v2";
    s = c.cublasDgemm_v2(h.handle, ta, tb, m, n, k, &one_d, (const double*)a, (int)lda, (const double*)b, (int)ldb,
                         g.beta ? &one_d : &zero_d, (double*)out, (int)ldc);
  } else if (s == CUBLAS_STATUS_SUCCESS && dtype == OPGEN_DT_FLOAT32) {
    fn = "cublasSgemm_v2";
    s = c.cublasSgemm_v2(h.handle, ta, tb, m, n, k, &one_f, (const float*)a, (int)lda, (const float*)b, (int)ldb,
                         g.beta ? &one_f : &zero_f, (float*)out, (int)ldc);
  } else if (s == CUBLAS_STATUS_SUCCESS) {  // float16 storage, float32 accumulation
    fn = "cublasGemmEx";
    s = c.cublasGemmEx(h.handle, ta, tb, m, n, k, &one_f, a, CUDA_R_16F, (int)lda, b, CUDA_R_16F, (int)ldb,
                       g.beta ? &one_f : &zero_f, out, CUDA_R_16F, (int)ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  }
  if (s != CUBLAS_STATUS_SUCCESS)
    return fail_call(call, OPGEN_ERR_RUNTIME, cublas_failure(c, fn, s));
  return OPGEN_OK;
}

}  // namespace opgen_native

#endif  // OPGEN_CUDA_GEMM_H
