// A stand-in for cuBLAS beside the libcuda stand-in (cuda_standin.cpp): the GEMM functions
// cuda_api.h lists, each call turned back into the row-major GEMM step it came from and run by the
// emulation runtime's opgen_rt_gemm through the process's BLAS — exactly as the cpu backend runs a
// GEMM step (codegen/runtime/host/blas.py), so results match the Python cuda plan on the host bit
// for bit. The work goes on the handle's stream through the libcuda stand-in (run now, or captured
// into a graph while the stream captures).
//
// A column-major call C[m', n'] = op(A)·op(B) is the row-major step out[m = n', n = m'] =
// op(a = B)·op(b = A), trans_a = transb, trans_b = transa (codegen/runtime/cublas_gemm.py's mapping,
// inverted); leading dimensions must be the contiguous ones that mapping gives, else
// CUBLAS_STATUS_NOT_SUPPORTED. alpha must be 1 and beta 0 or 1 (the only ones GEMM steps use).
// float16 (cublasGemmEx with float32 compute) is computed as NumPy's matmul computes it, which is
// the cpu backend's GEMM for float16 (it has no BLAS for it).
//
// opgen_cublas_standin_configure names opgen_rt_gemm, a float32 and a float64 opgen_gemm_desc
// template (the BLAS function and its integer width: host/blas.py's Blas.desc) and the libcuda
// stand-in's opgen_standin_enqueue; until then every call is CUBLAS_STATUS_NOT_INITIALIZED.
#include <cstring>
#include <type_traits>

#include "cuda_api.h"
#include "opgen_emu_abi.h"

#define STANDIN_API extern "C" __attribute__((visibility("default")))

namespace {

typedef int (*gemm_fn)(const void* desc, void** args, char* err, size_t errlen);
typedef CUresult (*enqueue_fn)(CUstream, void (*)(const void*), const void*, size_t);

struct Handle {
  CUstream stream = nullptr;
};

struct Config {
  gemm_fn gemm = nullptr;
  opgen_gemm_desc f32{}, f64{};
  enqueue_fn enqueue = nullptr;
} g_config;

const opgen_gemm_desc kHalf{};  // float16: no BLAS descriptor, run by half_gemm

// One GEMM as it travels on the stream: the runtime's function, its descriptor, the three pointers.
struct Work {
  gemm_fn gemm;
  opgen_gemm_desc desc;
  void* ptrs[3];
};

// float16 as NumPy's matmul computes it (the cpu backend's GEMM for float16: no BLAS): each element
// a float sum over k in order, rounded to half once; beta 1 then adds it to out in float, rounded
// again (`out += a @ b`).
void half_gemm(const opgen_gemm_desc& d, const _Float16* a, const _Float16* b, _Float16* out) {
  for (int64_t i = 0; i < d.m; ++i)
    for (int64_t j = 0; j < d.n; ++j) {
      float sum = 0.0f;
      for (int64_t p = 0; p < d.k; ++p)
        sum += (float)a[d.trans_a ? p * d.m + i : i * d.k + p] * (float)b[d.trans_b ? j * d.k + p : p * d.n + j];
      _Float16& o = out[i * d.n + j];
      o = d.beta ? (_Float16)((float)o + (float)(_Float16)sum) : (_Float16)sum;
    }
}

void run(const void* p) {
  Work w;
  std::memcpy(&w, p, sizeof w);
  if (w.gemm == nullptr)
    return half_gemm(w.desc, (const _Float16*)w.ptrs[0], (const _Float16*)w.ptrs[1], (_Float16*)w.ptrs[2]);
  void* args[3] = {&w.ptrs[0], &w.ptrs[1], &w.ptrs[2]};
  char err[256];
  w.gemm(&w.desc, args, err, sizeof err);  // (the BLAS has no failure on valid sizes)
}

cublasStatus_t gemm(cublasHandle_t h, const opgen_gemm_desc& base, int transa, int transb, int m, int n, int k,
                    double alpha, const void* a, int lda, const void* b, int ldb, double beta, void* c, int ldc) {
  Handle* handle = reinterpret_cast<Handle*>(h);
  if (handle == nullptr || g_config.gemm == nullptr || g_config.enqueue == nullptr)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || k < 0 || (transa != CUBLAS_OP_N && transa != CUBLAS_OP_T) ||
      (transb != CUBLAS_OP_N && transb != CUBLAS_OP_T))
    return CUBLAS_STATUS_INVALID_VALUE;
  // the row-major step: out[rm, rn] = op(ra)·op(rb)
  int rm = n, rn = m;
  bool trans_a = transb == CUBLAS_OP_T, trans_b = transa == CUBLAS_OP_T;
  auto at_least_1 = [](int v) { return v > 1 ? v : 1; };
  if (alpha != 1.0 || (beta != 0.0 && beta != 1.0) || ldc != at_least_1(rn) ||
      lda != at_least_1(trans_b ? k : rn) || ldb != at_least_1(trans_a ? rm : k))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  Work w{&base == &kHalf ? nullptr : g_config.gemm, base, {const_cast<void*>(b), const_cast<void*>(a), c}};
  w.desc.m = rm;
  w.desc.n = rn;
  w.desc.k = k;
  w.desc.trans_a = trans_a;
  w.desc.trans_b = trans_b;
  w.desc.beta = beta != 0.0;
  w.desc.a_offset = w.desc.b_offset = w.desc.out_offset = 0;
  return g_config.enqueue(handle->stream, run, &w, sizeof w) == CUDA_SUCCESS ? CUBLAS_STATUS_SUCCESS
                                                                            : CUBLAS_STATUS_EXECUTION_FAILED;
}

}  // namespace

extern "C" {

STANDIN_API cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
  *handle = reinterpret_cast<cublasHandle_t>(new Handle());
  return CUBLAS_STATUS_SUCCESS;
}

STANDIN_API cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  delete reinterpret_cast<Handle*>(handle);
  return CUBLAS_STATUS_SUCCESS;
}

STANDIN_API cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, CUstream stream) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  reinterpret_cast<Handle*>(handle)->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}

STANDIN_API cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void* workspace, size_t bytes) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  return workspace == nullptr && bytes > 0 ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_SUCCESS;
}

STANDIN_API cublasStatus_t cublasSgemm_v2 OPGEN_CUBLAS_GEMM(float) {
  return gemm(h, g_config.f32, transa, transb, m, n, k, *alpha, a, lda, b, ldb, *beta, c, ldc);
}

STANDIN_API cublasStatus_t cublasDgemm_v2 OPGEN_CUBLAS_GEMM(double) {
  return gemm(h, g_config.f64, transa, transb, m, n, k, *alpha, a, lda, b, ldb, *beta, c, ldc);
}

STANDIN_API cublasStatus_t cublasGemmEx(cublasHandle_t h, int transa, int transb, int m, int n, int k,
                                        const void* alpha, const void* a, int atype, int lda, const void* b, int btype,
                                        int ldb, const void* beta, void* c, int ctype, int ldc, int compute, int algo) {
  if (atype != CUDA_R_16F || btype != CUDA_R_16F || ctype != CUDA_R_16F || compute != CUBLAS_COMPUTE_32F ||
      algo != CUBLAS_GEMM_DEFAULT)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  return gemm(h, kHalf, transa, transb, m, n, k, *static_cast<const float*>(alpha), a, lda, b, ldb,
              *static_cast<const float*>(beta), c, ldc);
}

// A strided batch: each product as a call of its own on the stream, in order (the row-major steps
// they came from; strides in elements of the data type).
STANDIN_API cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, int transa, int transb, int m, int n, int k,
                                                      const void* alpha, const void* a, int atype, int lda,
                                                      long long stride_a, const void* b, int btype, int ldb,
                                                      long long stride_b, const void* beta, void* c, int ctype,
                                                      int ldc, long long stride_c, int batch, int compute, int algo) {
  const bool wide = atype == CUDA_R_64F;
  const int want_compute = wide ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
  if (atype != btype || atype != ctype || compute != want_compute || algo != CUBLAS_GEMM_DEFAULT || batch < 0 ||
      (atype != CUDA_R_16F && atype != CUDA_R_32F && atype != CUDA_R_64F))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  const opgen_gemm_desc& base = atype == CUDA_R_16F ? kHalf : wide ? g_config.f64 : g_config.f32;
  const size_t item = atype == CUDA_R_16F ? 2 : wide ? 8 : 4;
  const double alpha_v = wide ? *static_cast<const double*>(alpha) : *static_cast<const float*>(alpha);
  const double beta_v = wide ? *static_cast<const double*>(beta) : *static_cast<const float*>(beta);
  for (int i = 0; i < batch; ++i) {
    cublasStatus_t s = gemm(h, base, transa, transb, m, n, k, alpha_v, static_cast<const char*>(a) + i * stride_a * item,
                            lda, static_cast<const char*>(b) + i * stride_b * item, ldb, beta_v,
                            static_cast<char*>(c) + i * stride_c * item, ldc);
    if (s != CUBLAS_STATUS_SUCCESS) return s;
  }
  return CUBLAS_STATUS_SUCCESS;
}

STANDIN_API void opgen_cublas_standin_configure(void* gemm, const opgen_gemm_desc* f32, const opgen_gemm_desc* f64,
                                                void* enqueue) {
  g_config.gemm = reinterpret_cast<gemm_fn>(gemm);
  g_config.f32 = *f32;
  g_config.f64 = *f64;
  g_config.enqueue = reinterpret_cast<enqueue_fn>(enqueue);
}

}  // extern "C"

// Every function cuda_api.h lists for cuBLAS is defined above with its declared type.
#define OPGEN_CUBLAS_STANDIN_CHECK(name, ret, params) \
  static_assert(std::is_same<decltype(&name), ret(*) params>::value, #name);
OPGEN_CUBLAS_FUNCTIONS(OPGEN_CUBLAS_STANDIN_CHECK)
