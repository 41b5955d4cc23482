// rt/gemm.cpp: a launch plan's GEMM step through the process's BLAS (opgen_gemm_desc), so that a
// recorded plan's GEMMs run in the same batch as its kernels, with no Python between them.
#include "state.h"  // (for readers and tools: runtime.cpp includes it once, first)

namespace {

enum { kRowMajor = 101, kNoTrans = 111, kTrans = 112 };

template <typename T, typename Int>
using cblas_gemm_fn = void (*)(int, int, int, Int, Int, Int, T, const T*, Int, const T*, Int, T, T*, Int);

// One product, or a part of it: rows [r0, r1) and columns [c0, c1) of the row-major [m, n] result.
template <typename T, typename Int>
void call_gemm(const opgen_gemm_desc& d, const T* a, const T* b, T* c, int64_t r0, int64_t r1, int64_t c0,
               int64_t c1) {
  const Int lda = d.trans_a ? d.m : d.k, ldb = d.trans_b ? d.k : d.n;
  a += d.trans_a ? r0 : r0 * d.k;
  b += d.trans_b ? c0 * d.k : c0;
  reinterpret_cast<cblas_gemm_fn<T, Int>>(d.blas)(kRowMajor, d.trans_a ? kTrans : kNoTrans,
                                                  d.trans_b ? kTrans : kNoTrans, r1 - r0, c1 - c0, d.k, T(1), a,
                                                  lda, b, ldb, T(0), c + r0 * d.n + c0, d.n);
}

// The BLAS's own thread count, where it is an OpenBLAS that says (its get/set functions named as its
// cblas_?gemm is: `scipy_cblas_sgemm64_` -> `scipy_openblas_set_num_threads64_`); else none.
struct BlasThreads {
  const void* blas = nullptr;  // the GEMM function these were looked up for
  int (*get)() = nullptr;
  void (*set)(int) = nullptr;
};

BlasThreads find_blas_threads(const void* blas) {
  BlasThreads t;
  t.blas = blas;
  Dl_info info;
  if (!dladdr(blas, &info) || !info.dli_fname || !info.dli_sname) return t;
  const char* name = info.dli_sname;
  const char* cblas = strstr(name, "cblas_");
  if (!cblas || strlen(cblas) < 11) return t;  // "cblas_sgemm"
  const int prefix = static_cast<int>(cblas - name);
  const char* suffix = cblas + 11;
  void* lib = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (!lib) return t;
  char get[128], set[128];
  snprintf(get, sizeof get, "%.*sopenblas_get_num_threads%s", prefix, name, suffix);
  snprintf(set, sizeof set, "%.*sopenblas_set_num_threads%s", prefix, name, suffix);
  void* g = dlsym(lib, get);
  void* s = dlsym(lib, set);
  if (g && s) {
    t.get = reinterpret_cast<int (*)()>(g);
    t.set = reinterpret_cast<void (*)(int)>(s);
  }
  dlclose(lib);  // (RTLD_NOLOAD: the library stays, loaded by whoever loaded it)
  return t;
}

// Where the BLAS runs on several threads, every product runs with one BLAS thread instead, and one of at
// least kSplitMin multiply-adds is split over the emulation pool: the BLAS's idle workers spin for a
// while after each threaded call (OpenBLAS: ~0.1 s), holding the cores that the pool's kernel launches
// between the products need (bench/RESULTS.md, 2026-11-30 s10-lstm). A part is whole rows (or columns)
// of the result, a multiple of kSplitAlign of them, which OpenBLAS sums as one thread sums the whole
// product (every shape tests/test_host_gemm_split.py and the parity cases hold; one float64 shape found
// otherwise differs in its last bits, as OpenBLAS's own threads do there); kSplitParts parts a thread.
constexpr int64_t kSplitMin = int64_t(1) << 22;
constexpr int64_t kSplitAlign = 64;
constexpr int64_t kSplitParts = 1;
// A product of one row or one column (a matrix-vector product: the RNN backprop's bias gradients, 1ᵀ·dG)
// runs in parts of kThinPart columns (rows) at any thread count, spread over the pool where the BLAS has
// threads: OpenBLAS takes [1, 1600] x [1600, 1024] through its packing GEMM path at 726 µs on one thread
// of the session VM, and the same product as two 512-column parts through its small-matrix path at 275
// µs (bench/RESULTS.md, 2026-11-30 s12). The parts are the same at every thread count, so the bits do
// not depend on it (they differ from one whole product's in the last place).
constexpr int64_t kThinPart = 512;

int64_t min64(int64_t x, int64_t y) { return x < y ? x : y; }

template <typename T, typename Int>
struct SplitGemm {
  const opgen_gemm_desc* d;
  const T* a;
  const T* b;
  T* c;
  bool by_rows;
  int64_t parts, extent;
  int64_t width;  // each part's rows (columns), or 0: aligned slices spread evenly over `parts`
  static void run(void* self, uint64_t i) {
    const SplitGemm& s = *static_cast<SplitGemm*>(self);
    const int64_t units = (s.extent + kSplitAlign - 1) / kSplitAlign;
    const int64_t at = static_cast<int64_t>(i);
    const int64_t lo = min64(s.extent, s.width ? at * s.width : units * at / s.parts * kSplitAlign);
    const int64_t hi = min64(s.extent, s.width ? lo + s.width : units * (at + 1) / s.parts * kSplitAlign);
    if (s.by_rows) {
      call_gemm<T, Int>(*s.d, s.a, s.b, s.c, lo, hi, 0, s.d->n);
    } else {
      call_gemm<T, Int>(*s.d, s.a, s.b, s.c, 0, s.d->m, lo, hi);
    }
  }
};

// The BlasThreads of a GEMM function, looked up once per thread (a lane run's threads look theirs up too).
const BlasThreads& blas_threads_of(const void* blas) {
  static __thread BlasThreads cache[4];
  static __thread unsigned next;
  for (const BlasThreads& t : cache)
    if (t.blas == blas) return t;
  BlasThreads& t = cache[next++ % 4];
  t = find_blas_threads(blas);
  return t;
}

// The product into c: by the BLAS as it is set where that is one thread (or unknown), else as above. In
// a lane run (rt/batch.cpp) the product is the thread's alone: whole, its BLAS paused at one thread.
template <typename T, typename Int>
void product(const opgen_gemm_desc& d, const T* a, const T* b, T* c) {
  const BlasThreads& threads = blas_threads_of(reinterpret_cast<const void*>(d.blas));
  const int nthreads = threads.get && !tls_lane_worker ? threads.get() : 1;
  const bool by_rows = d.m >= d.n;
  const int64_t extent = by_rows ? d.m : d.n;
  if ((d.m == 1 || d.n == 1) && extent > kThinPart) {  // in fixed parts: the same at every thread count
    SplitGemm<T, Int> s{&d, a, b, c, by_rows, (extent + kThinPart - 1) / kThinPart, extent, kThinPart};
    if (nthreads < 2) {
      for (int64_t i = 0; i < s.parts; ++i) SplitGemm<T, Int>::run(&s, static_cast<uint64_t>(i));
      return;
    }
    threads.set(1);
    rt_parallel(static_cast<uint64_t>(s.parts), nthreads, &SplitGemm<T, Int>::run, &s);
    threads.set(nthreads);
    return;
  }
  if (nthreads < 2) {
    call_gemm<T, Int>(d, a, b, c, 0, d.m, 0, d.n);
    return;
  }
  threads.set(1);
  const int64_t parts = min64(nthreads * kSplitParts, extent / kSplitAlign);
  if (parts >= 2 && d.m * d.n * d.k >= kSplitMin) {
    SplitGemm<T, Int> s{&d, a, b, c, by_rows, parts, extent, 0};
    rt_parallel(static_cast<uint64_t>(parts), nthreads, &SplitGemm<T, Int>::run, &s);
  } else {
    call_gemm<T, Int>(d, a, b, c, 0, d.m, 0, d.n);
  }
  threads.set(nthreads);
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
    product<T, int64_t>(d, a + d.a_offset, b + d.b_offset, dst);
  } else {
    product<T, int32_t>(d, a + d.a_offset, b + d.b_offset, dst);
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

// A lane run's GEMMs at one BLAS thread each (product() runs a lane's product whole, and the count is
// process-wide: set once for the run, not per product from several threads at once).
int blas_threads_pause(const opgen_gemm_desc* const* descs, uint64_t n, BlasPause* pause) {
  pause->n = 0;
  int most = 1;
  for (uint64_t i = 0; i < n; ++i) {
    const BlasThreads& t = blas_threads_of(reinterpret_cast<const void*>(descs[i]->blas));
    if (!t.get) continue;
    bool seen = false;
    for (int k = 0; k < pause->n; ++k) seen = seen || pause->set[k] == t.set;
    if (seen || pause->n == 4) continue;
    const int had = t.get();
    most = had > most ? had : most;
    pause->set[pause->n] = t.set;
    pause->saved[pause->n++] = had;
    if (had != 1) t.set(1);
  }
  return most;
}

void blas_threads_restore(const BlasPause* pause) {
  for (int k = 0; k < pause->n; ++k)
    if (pause->saved[k] != 1) pause->set[k](pause->saved[k]);
}

}  // namespace
