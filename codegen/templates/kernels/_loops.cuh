// ---- opgen loops: the per-thread loops a kernel author would otherwise unroll by hand for the cpu
// backend (docs/specs.md, "Writing kernels": "Loops at CPU speed"). Include it after _common.cuh
// with a Jinja include of "kernels/_loops.cuh". Each helper has two forms giving the same results:
//   the host form (the emulation's cpu build): runs of R consecutive elements, each run's body
//     unrolled and its values computed before they are stored, which g++ -O2 keeps in vector
//     registers (it leaves a loop of unknown length scalar), then a scalar tail;
//   the GPU form (NVRTC, and the emulation with OPGEN_GPU_FORM): the plain loop.
// Where both forms do the same arithmetic in the same order the results are bit for bit the same
// (store_runs, gather, scatter, run_reaches, conv3x3_row); run_max and max_into up to a zero's sign
// and which NaN; conv3x3_row_taps sums in another order in each form (equal to rounding).
// tests/test_loops.py checks both forms against float64 NumPy.
#ifndef OPGEN_LOOPS_CUH
#define OPGEN_LOOPS_CUH
namespace opgen {

constexpr int kLoopRun = 8;  // a run: one AVX2 register of floats, two SSE ones

// ---------------------------------------------------------------------------------------------
// Elementwise loops with several outputs. f(j, v) computes element j's K values into v[0..K-1]
// (type A = acc_t of the first output: float, or double for float64 outputs) and must not write
// memory; store_runs then stores v[k] into outs_k[j], rounded once (from_acc). The host form
// computes a whole run before storing it, so an output that aliases an input cannot stop the
// vectoriser.
namespace loops_detail {
template <int R, typename A, typename T, typename... Ts>
__device__ __forceinline__ void store_values(const A (*v)[R], long long j, int count, T* out, Ts*... rest) {
  for (int q = 0; q < count; ++q) out[j + q] = from_acc<T>(v[0][q]);
  if constexpr (sizeof...(Ts) > 0) store_values<R>(v + 1, j, count, rest...);
}
// The integer of a value's width: a vector compare's lanes, a shuffle's indices.
template <typename A> struct lane_int { typedef int type; };
template <> struct lane_int<double> { typedef long long type; };
}  // namespace loops_detail

template <int R = kLoopRun, typename F, typename T, typename... Ts>
__device__ __forceinline__ void store_runs(long long begin, long long end, const F& f, T* out, Ts*... rest) {
  using A = acc_t<T>;
  constexpr int K = 1 + sizeof...(Ts);
  static_assert((same_type<acc_t<Ts>, A>::value && ...),
                "opgen::store_runs: every output must compute in the first one's type (acc_t)");
  long long j = begin;
#ifdef OPGEN_HOST_FORM
  for (; j + R <= end; j += R) {
    A v[K][R];
#pragma GCC unroll 16
    for (int q = 0; q < R; ++q) {
      A w[K];
      f(j + q, w);
#pragma GCC unroll 16
      for (int k = 0; k < K; ++k) v[k][q] = w[k];
    }
    loops_detail::store_values<R>(v, j, R, out, rest...);
  }
#endif
  for (; j < end; ++j) {  // the host form's tail; the GPU form's whole loop
    A v[K][1];
    A w[K];
    f(j, w);
    for (int k = 0; k < K; ++k) v[k][0] = w[k];
    loops_detail::store_values<1>(v, j, 1, out, rest...);
  }
}

// store_runs over [0, n) shared by every thread of the grid: on the host a contiguous share per
// thread (for_each_index's), on the GPU each thread every threads-th element.
template <int R = kLoopRun, typename F, typename T, typename... Ts>
__device__ __forceinline__ void store_runs_grid(long long n, const F& f, T* out, Ts*... rest) {
  const long long threads = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
#ifdef OPGEN_HOST_FORM
  const long long per = (n + threads - 1) / threads, begin = t * per < n ? t * per : n;
  store_runs<R>(begin, begin + per < n ? begin + per : n, f, out, rest...);
#else
  for (long long i = t; i < n; i += threads) store_runs<1>(i, i + 1, f, out, rest...);
#endif
}

// ---------------------------------------------------------------------------------------------
// Gathers: v[q] = p[q·stride] (widened: to_acc) for q < count, `fill` beyond; scatter stores
// v[q] to p[q·stride] (rounded once: from_acc) for q < count. A run of a column, a channel of
// NHWC, a row read backwards (a negative stride). The host form unrolls a whole run.
template <int R, typename A, typename T>
__device__ __forceinline__ void gather(A (&v)[R], const T* p, long long stride, long long count = R, A fill = A(0)) {
  static_assert(same_type<A, acc_t<T>>::value, "opgen::gather: the array's type must be acc_t of the element type");
#ifdef OPGEN_HOST_FORM
  if (count >= R) {
#pragma GCC unroll 16
    for (int q = 0; q < R; ++q) v[q] = to_acc(p[q * stride]);
    return;
  }
#endif
  for (int q = 0; q < R; ++q) v[q] = q < count ? to_acc(p[q * stride]) : fill;
}

template <int R, typename A, typename T>
__device__ __forceinline__ void scatter(T* p, long long stride, const A (&v)[R], long long count = R) {
#ifdef OPGEN_HOST_FORM
  if (count >= R) {
#pragma GCC unroll 16
    for (int q = 0; q < R; ++q) p[q * stride] = from_acc<T>(v[q]);
    return;
  }
#endif
  for (int q = 0; q < R && q < count; ++q) p[q * stride] = from_acc<T>(v[q]);
}

// The largest value of a run, a NaN if it holds one (nan_max's order); of max_into's lanes, a row's
// maximum. The host form reduces the run in a GCC vector (a compare-and-select tree g++ -O2 will not
// vectorise from scalar code); the two forms may differ in the sign of a zero maximum and in which
// NaN comes out.
template <int R, typename A>
__device__ __forceinline__ A run_max(const A (&v)[R]) {
#ifdef OPGEN_HOST_FORM
  static_assert(R >= 2 && (R & (R - 1)) == 0, "opgen::run_max: the host form wants a power-of-two run");
  typedef A V __attribute__((vector_size(R * sizeof(A))));
  typedef typename loops_detail::lane_int<A>::type I;
  typedef I M __attribute__((vector_size(R * sizeof(A))));
  V m;
  __builtin_memcpy(&m, v, sizeof m);
  for (int half = R / 2; half > 0; half /= 2) {
    M take;
    for (int q = 0; q < R; ++q) take[q] = (q + half) % R;
    const V other = __builtin_shuffle(m, take);
    m = (m > other) | (m != m) ? m : other;
  }
  return m[0];
#else
  A m = v[0];
  for (int q = 1; q < R; ++q) m = nan_max(m, v[q]);
  return m;
#endif
}

// acc[q] = nan_max(acc[q], v[q]) for every lane: R running maxima of a row read in runs, no chain
// of dependent compares (run_max(acc) at the end gives the row's). The host form works in a GCC
// vector; both forms give the same values, up to the sign of a zero and which NaN.
template <int R, typename A>
__device__ __forceinline__ void max_into(A (&acc)[R], const A (&v)[R]) {
#ifdef OPGEN_HOST_FORM
  typedef A V __attribute__((vector_size(R * sizeof(A))));
  V m, x;
  __builtin_memcpy(&m, acc, sizeof m);
  __builtin_memcpy(&x, v, sizeof x);
  m = (m > x) | (m != m) ? m : x;
  __builtin_memcpy(acc, &m, sizeof m);
#else
  for (int q = 0; q < R; ++q) acc[q] = nan_max(acc[q], v[q]);
#endif
}

// Whether a run holds a value at or above t, or a NaN (t itself not a NaN): a run's test before its
// elements are looked at one by one (top-k skips a run with nothing that could enter its list). The
// host form compares the whole run in a GCC vector and ORs the lanes' masks, no branch per element;
// both forms give the same answer.
template <int R, typename A>
__device__ __forceinline__ bool run_reaches(const A (&v)[R], A t) {
#ifdef OPGEN_HOST_FORM
  typedef A V __attribute__((vector_size(R * sizeof(A))));
  typedef typename loops_detail::lane_int<A>::type I;
  typedef I M __attribute__((vector_size(R * sizeof(A))));
  V x;
  __builtin_memcpy(&x, v, sizeof x);
  const M hit = (x >= t) | (x != x);
  unsigned long long words[sizeof(M) / 8];
  __builtin_memcpy(words, &hit, sizeof words);
  unsigned long long any = 0;
#pragma GCC unroll 16
  for (unsigned w = 0; w < sizeof(M) / 8; ++w) any |= words[w];
  return any != 0;
#else
  bool any = false;
  for (int q = 0; q < R; ++q) any = any || v[q] >= t || v[q] != v[q];
  return any;
#endif
}

// ---------------------------------------------------------------------------------------------
// A 3×3 direct convolution over one h×w plane, stride 1, padding 1 (F.conv2d's cross-correlation:
// the window's taps outside the plane contribute nothing). k holds the nine weights row-major.

// Output element (y, x): Σ k[3·dy + dx]·in[(y + dy − 1)·w + x + dx − 1] over the taps inside the
// plane, in A from +0, dy then dx ascending: the order every form sums in.
template <typename A, typename T>
__device__ __forceinline__ A conv3x3_at(const T* in, long long h, long long w, long long y, long long x,
                                        const A (&k)[9]) {
  A s = A(0);
  for (int dy = 0; dy < 3; ++dy) {
    const long long yy = y + dy - 1;
    if (yy < 0 || yy >= h) continue;
    for (int dx = 0; dx < 3; ++dx) {
      const long long xx = x + dx - 1;
      if (xx >= 0 && xx < w) s += k[3 * dy + dx] * to_acc(in[yy * w + xx]);
    }
  }
  return s;
}

// out[x] = conv3x3_at(in, h, w, y, x, k) for the row's x < w, rounded once to U. The host form
// takes the interior columns in runs of R (the last run moved back to end at the row's last
// interior column: some columns computed twice, the same value), the two edge columns alone.
template <int R = kLoopRun, typename A, typename T, typename U>
__device__ __forceinline__ void conv3x3_row(const T* __restrict__ in, long long h, long long w, long long y,
                                            const A (&k)[9], U* __restrict__ out) {
  static_assert(same_type<A, acc_t<T>>::value, "opgen::conv3x3_row: the weights' type must be acc_t of the input's");
#ifdef OPGEN_HOST_FORM
  if (w >= R + 2) {
    const int first = y > 0 ? 0 : 1, last = y + 1 < h ? 2 : 1;  // the window's rows inside the plane
    A left = A(0), right = A(0);  // conv3x3_at's sums for x = 0 and w − 1, in its order, no branch per tap
    for (int dy = first; dy <= last; ++dy) {
      const T* __restrict__ p = in + (y + dy - 1) * w;
      left += k[3 * dy + 1] * to_acc(p[0]);
      left += k[3 * dy + 2] * to_acc(p[1]);
      right += k[3 * dy] * to_acc(p[w - 2]);
      right += k[3 * dy + 1] * to_acc(p[w - 1]);
    }
    out[0] = from_acc<U>(left);
    for (long long x0 = 1; x0 < w - 1; x0 += R) {
      const long long x = x0 + R <= w - 1 ? x0 : w - 1 - R;  // the last run ends at column w − 2
      A v[R] = {};
      for (int dy = first; dy <= last; ++dy) {
        const T* __restrict__ p = in + (y + dy - 1) * w + x - 1;
#pragma GCC unroll 3
        for (int dx = 0; dx < 3; ++dx) {
          const A kk = k[3 * dy + dx];
#pragma GCC unroll 16
          for (int q = 0; q < R; ++q) v[q] += kk * to_acc(p[dx + q]);
        }
      }
#pragma GCC unroll 16
      for (int q = 0; q < R; ++q) out[x + q] = from_acc<U>(v[q]);
    }
    out[w - 1] = from_acc<U>(right);
    return;
  }
#endif
  for (long long x = 0; x < w; ++x) out[x] = from_acc<U>(conv3x3_at(in, h, w, y, x, k));
}

// The nine correlations of one output row's gradient g (w values) with the input rows around it:
// acc[3·dy + dx] += Σ_x g[x]·in[(y + dy − 1)·w + x + dx − 1] over the taps inside the plane (a
// depthwise convolution's filter gradient, row by row). The host form keeps R partial sums per tap
// across the interior columns (the last run masks the columns an earlier run took) and adds them
// pairwise; the GPU form adds the terms in order: equal to rounding.
template <int R = kLoopRun, typename A, typename T, typename G>
__device__ __forceinline__ void conv3x3_row_taps(const T* __restrict__ in, long long h, long long w, long long y,
                                                 const G* __restrict__ g, A (&acc)[9]) {
  static_assert(same_type<A, acc_t<T>>::value && same_type<A, acc_t<G>>::value,
                "opgen::conv3x3_row_taps: the sums' type must be acc_t of the input's and the gradient's");
  const int first = y > 0 ? 0 : 1, last = y + 1 < h ? 2 : 1;
  long long x = 0;
#ifdef OPGEN_HOST_FORM
  if (w >= R + 2) {
    A part[9][R] = {};
    for (long long x0 = 1; x0 < w - 1; x0 += R) {
      const long long xs = x0 + R <= w - 1 ? x0 : w - 1 - R;
      const long long skip = x0 - xs;  // lanes an earlier run took
      A gq[R];
#pragma GCC unroll 16
      for (int q = 0; q < R; ++q) gq[q] = to_acc(g[xs + q]);
      for (int dy = first; dy <= last; ++dy) {
        const T* __restrict__ p = in + (y + dy - 1) * w + xs - 1;
#pragma GCC unroll 3
        for (int dx = 0; dx < 3; ++dx) {
#pragma GCC unroll 16
          for (int q = 0; q < R; ++q) part[3 * dy + dx][q] += q >= skip ? gq[q] * to_acc(p[dx + q]) : A(0);
        }
      }
    }
    for (int t = 0; t < 9; ++t) {
      for (int half = R / 2; half > 0; half /= 2) {
        for (int q = 0; q < half; ++q) part[t][q] += part[t][q + half];
      }
      acc[t] += part[t][0];
    }
    // the edge columns, in the GPU form's order below
    for (long long xe = 0; xe < w; xe += w - 1) {
      for (int dy = first; dy <= last; ++dy) {
        for (int dx = 0; dx < 3; ++dx) {
          const long long xx = xe + dx - 1;
          if (xx >= 0 && xx < w) acc[3 * dy + dx] += to_acc(g[xe]) * to_acc(in[(y + dy - 1) * w + xx]);
        }
      }
    }
    return;
  }
#endif
  for (; x < w; ++x) {
    const A gx = to_acc(g[x]);
    for (int dy = first; dy <= last; ++dy) {
      for (int dx = 0; dx < 3; ++dx) {
        const long long xx = x + dx - 1;
        if (xx >= 0 && xx < w) acc[3 * dy + dx] += gx * to_acc(in[(y + dy - 1) * w + xx]);
      }
    }
  }
}

}  // namespace opgen
#endif  // OPGEN_LOOPS_CUH
