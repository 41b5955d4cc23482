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

// One product of the step: product i of a strided batch (a, b, out at their offsets plus i strides).
template <typename T>
int typed_gemm(const opgen_gemm_desc& d, const T* a, const T* b, T* out, int64_t i, char* err, size_t errlen) {
  T* const c = out + d.out_offset + i * d.out_stride;
  const size_t count = static_cast<size_t>(d.m) * static_cast<size_t>(d.n);
  if (d.k == 0) {  // an empty sum
    if (!d.beta) memset(c, 0, count * sizeof(T));
    return 0;
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
  const T* const ai = a + d.a_offset + i * d.a_stride;
  const T* const bi = b + d.b_offset + i * d.b_stride;
  if (d.int64) {
    call_gemm<T, int64_t>(d, ai, bi, dst);
  } else {
    call_gemm<T, int32_t>(d, ai, bi, dst);
  }
  if (sum) {
    for (size_t j = 0; j < count; ++j) c[j] += sum[j];
    free(sum);
  }
  return 0;
}

// The BLAS's process-wide thread count (OpenBLAS's get/set_num_threads, found in the library that
// exports `blas`), so that a strided batch's products, run at once on the pool's threads, each run
// on one BLAS thread: an OpenBLAS call on two threads hands work over per call (costly for the
// small per-step products) and two such calls at once contend for its one thread pool. The count is
// process-wide (OpenBLAS's pthreads build has no per-thread one: its set_num_threads_local sets the
// same count there), hence set around the whole batch, under the launch lock. None found
// (another BLAS): the products run one after the other, as the BLAS threads them.
struct BlasThreads {
  uint64_t blas;
  int (*get)();
  void (*set)(int);
};

BlasThreads blas_threads(uint64_t blas) {
  static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  static BlasThreads found[4];  // (a process has one BLAS, two functions: few)
  static int nfound = 0;
  pthread_mutex_lock(&mu);
  BlasThreads r{blas, nullptr, nullptr};
  int j = 0;
  while (j < nfound && found[j].blas != blas) ++j;
  if (j < nfound) {
    r = found[j];
  } else {
    Dl_info info;
    void* lib = dladdr(reinterpret_cast<void*>(blas), &info) && info.dli_fname
                    ? dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD)
                    : nullptr;
    // host/blas.py _SYMBOLS's libraries: NumPy's wheels' OpenBLAS (ILP64 or not), a plain OpenBLAS
    static const char* const names[][2] = {
        {"scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"},
        {"scipy_openblas_get_num_threads", "scipy_openblas_set_num_threads"},
        {"openblas_get_num_threads64_", "openblas_set_num_threads64_"},
        {"openblas_get_num_threads", "openblas_set_num_threads"}};
    for (const auto& name : names) {
      void* get = lib ? dlsym(lib, name[0]) : nullptr;
      void* set = lib ? dlsym(lib, name[1]) : nullptr;
      if (get && set) {
        r.get = reinterpret_cast<int (*)()>(get);
        r.set = reinterpret_cast<void (*)(int)>(set);
        break;
      }
    }
    if (lib) dlclose(lib);  // (RTLD_NOLOAD: a reference taken and given back; the library stays)
    if (nfound < 4) found[nfound++] = r;
  }
  pthread_mutex_unlock(&mu);
  return r;
}

struct Products {
  const opgen_gemm_desc* d;
  const void* a;
  const void* b;
  void* out;
  int failed;  // atomic: the first failure's message is in err
  char err[256];
};

template <typename T>
void product_task(void* ctx, uint64_t i) {
  Products& p = *static_cast<Products*>(ctx);
  char err[256];
  if (typed_gemm<T>(*p.d, static_cast<const T*>(p.a), static_cast<const T*>(p.b), static_cast<T*>(p.out),
                    static_cast<int64_t>(i), err, sizeof err) &&
      !__atomic_exchange_n(&p.failed, 1, __ATOMIC_ACQ_REL))
    memcpy(p.err, err, sizeof err);
}

template <typename T>
int typed_step(const opgen_gemm_desc& d, void** args, char* err, size_t errlen) {
  const T* a;
  const T* b;
  T* out;
  memcpy(&a, args[0], sizeof a);
  memcpy(&b, args[1], sizeof b);
  memcpy(&out, args[2], sizeof out);
  if (d.m == 0 || d.n == 0 || d.batch <= 0) return 0;
  if (d.k != 0 && (!a || !b || !out)) {
    snprintf(err, errlen, "gemm: a null buffer");
    return 1;
  }
  const BlasThreads threads = d.batch > 1 && d.k != 0 ? blas_threads(d.blas) : BlasThreads{};
  if (!threads.set) {
    for (int64_t i = 0; i < d.batch; ++i)
      if (typed_gemm<T>(d, a, b, out, i, err, errlen)) return 1;
    return 0;
  }
  // On one BLAS thread whatever the pool's size, so that the bits do not depend on OPGEN_HOST_THREADS;
  // under the launch lock (a batch holds it), so that two callers' settings do not interleave.
  const bool batched = tls_in_batch;
  if (!batched) pthread_mutex_lock(&g_launch_mu);
  const int before = threads.get();
  if (before != 1) threads.set(1);
  Products p{&d, a, b, out, 0, {0}};
  rt_parallel(static_cast<uint64_t>(d.batch), d.nworkers, product_task<T>, &p);
  if (before != 1) threads.set(before);
  if (!batched) pthread_mutex_unlock(&g_launch_mu);
  if (p.failed) snprintf(err, errlen, "%s", p.err);
  return p.failed;
}

// A batch record's launch function for a GEMM step: `cfg` is its opgen_gemm_desc.
int rt_gemm(const opgen_launch_cfg* cfg, void** args, char* err, size_t errlen) {
  const opgen_gemm_desc& d = *reinterpret_cast<const opgen_gemm_desc*>(cfg);
  if (!d.blas) {
    snprintf(err, errlen, "gemm: no BLAS function");
    return 1;
  }
  return d.dtype == 1 ? typed_step<double>(d, args, err, errlen) : typed_step<float>(d, args, err, errlen);
}

}  // namespace
