// rt/gemm.cpp: a launch plan's GEMM step through the process's BLAS (opgen_gemm_desc), so that a
// recorded plan's GEMMs run in the same batch as its kernels, with no Python between them.
#include "state.h"  // (for readers and tools: runtime.cpp includes it once, first)

namespace {

enum { kRowMajor = 101, kNoTrans = 111, kTrans = 112 };

template <typename T, typename Int>
using cblas_gemm_fn = void (*)(int, int, int, Int, Int, Int, T, const T*, Int, const T*, Int, T, T*, Int);

template <typename T, typename Int>
void call_gemm(const opgen_gemm_desc& d, const T* a, const T* b, T* c) {
  const Int lda = d.trans_a ? d.m : d.k, ldb = d.trans_b ? d.k : d.n;
  reinterpret_cast<cblas_gemm_fn<T, Int>>(d.blas)(kRowMajor, d.trans_a ? kTrans : kNoTrans,
                                                  d.trans_b ? kTrans : kNoTrans, d.m, d.n, d.k, T(1), a, lda, b,
                                                  ldb, T(0), c, d.n);
}

template <typename T>
int typed_gemm(const opgen_gemm_desc& d, void** args, char* err, size_t errlen) {
  const T* a;
  const T* b;
  T* out;
  memcpy(&a, args[0], sizeof a);
  memcpy(&b, args[1], sizeof b);
  memcpy(&out, args[2], sizeof out);
  if (d.m == 0 || d.n == 0) return 0;
  T* const c = out + d.out_offset;
  const size_t count = static_cast<size_t>(d.m) * static_cast<size_t>(d.n);
  if (d.k == 0) {  // an empty sum
    if (!d.beta) memset(c, 0, count * sizeof(T));
    return 0;
  }
  if (!a || !b || !out) {
    snprintf(err, errlen, "gemm: a null buffer");
    return 1;
  }
  T* dst = c;
  T* sum = nullptr;
  if (d.beta) {  // the product rounded on its own, then added: NumPy's `out += a @ b`
    sum = static_cast<T*>(malloc(count * sizeof(T)));
    if (!sum) {
      snprintf(err, errlen, "gemm: out of memory for a [%lld, %lld] product", static_cast<long long>(d.m),
               static_cast<long long>(d.n));
      return 1;
    }
    dst = sum;
  }
  if (d.int64) {
    call_gemm<T, int64_t>(d, a + d.a_offset, b + d.b_offset, dst);
  } else {
    call_gemm<T, int32_t>(d, a + d.a_offset, b + d.b_offset, dst);
  }
  if (sum) {
    for (size_t i = 0; i < count; ++i) c[i] += sum[i];
    free(sum);
  }
  return 0;
}

// A batch record's launch function for a GEMM step: `cfg` is its opgen_gemm_desc.
int rt_gemm(const opgen_launch_cfg* cfg, void** args, char* err, size_t errlen) {
  const opgen_gemm_desc& d = *reinterpret_cast<const opgen_gemm_desc*>(cfg);
  if (!d.blas) {
    snprintf(err, errlen, "gemm: no BLAS function");
    return 1;
  }
  return d.dtype == 1 ? typed_gemm<double>(d, args, err, errlen) : typed_gemm<float>(d, args, err, errlen);
}

}  // namespace
