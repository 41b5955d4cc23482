{% include "kernels/_common.cuh" %}
{% include "kernels/_vmath.cuh" %}
{% include "kernels/_rowvec.cuh" %}

// Softmax and SoftmaxGrad over x viewed as [outer, N, inner] (N: the axis). One kernel per step
// for both launch plans (kernels/_common.cuh's building blocks take each backend's form).
// Non-finite values follow from the formula as in PyTorch: a NaN or +inf makes the row's max NaN
// or +inf, so x − max is NaN somewhere and the sum, hence the row, is NaN; a row of -inf only has
// max -inf and -inf − (-inf) = NaN; a -inf element of a finite row gives exp(-inf) = 0.

#ifdef OPGEN_HOST_FORM
// The host form (kernels/_common.cuh: thread 0 walks the row) in vector registers: vm::kLanes
// elements at a time through vm::load/vm::store (16-bit values converted exactly as
// opgen::to_float/from_float do) and vm::exp (kernels/_vmath.cuh), the row's tail one by one.
using opgen::vm::vf;
constexpr int kLanes = opgen::vm::kLanes;
// A 16-bit row's exponentials kept in float32 (16 KiB of the fiber's stack, OPGEN_HOST_STACK_KB: 64 by
// default); a multiple of kLanes, so the runs after them start where a whole row's would.
constexpr long long kHostRowBuf = 4096;

// The row's max m, NaN-propagating as opgen::nan_max (kLanes partial maxima, then the tail), and
// whether every x − m is in vm::exp_normal's range: the row's min, read in the same pass, is near
// enough below m (x − m ≥ min − m, rounding being monotonic) and m is finite (a NaN or ±inf m is not).
struct HostRowMax {
  float m;
  bool exp_normal;
};
template <typename T>
__device__ __forceinline__ HostRowMax host_row_max(long long n, const T* __restrict__ x) {
  vf mv = opgen::vm::detail::splat<vf>(opgen::neg_inf()), lv = -mv;
  long long j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    const vf v = opgen::vm::load(x + j);
    mv = (mv > v) | (mv != mv) ? mv : v;
    lv = v < lv ? v : lv;
  }
  float m = opgen::neg_inf(), lo = -m;
  for (int q = 0; q < kLanes; ++q) m = opgen::nan_max(m, mv[q]), lo = fminf(lo, lv[q]);
  for (; j < n; ++j) m = opgen::nan_max(m, opgen::to_float(x[j]));  // the tail takes the scalar exp
  return {m, lo - m >= opgen::vm::detail::kExpNormalLo && m - m == 0.f};
}

// Σ e^(x_j − m) over the row, each exponential also handed to store_run(j, kLanes of them) or
// store_one(j, one): kLanes partial sums (the tail's into the first), added pairwise. The runs take
// vm::exp, or where the row allows (host_row_max) its shorter form, which gives the same bits.
template <typename T, typename Exp, typename Run, typename One>
__device__ __forceinline__ float host_exp_runs(long long n, const T* __restrict__ x, float m, const Exp& exp,
                                               const Run& store_run, const One& store_one) {
  vf acc = {};
  long long j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    const vf v = exp(opgen::vm::load(x + j) - m);
    store_run(j, v);
    acc += v;
  }
  for (; j < n; ++j) {
    const float v = opgen::vm::exp(opgen::to_float(x[j]) - m);
    store_one(j, v);
    acc[0] += v;
  }
  for (int w = kLanes / 2; w > 0; w /= 2) {
    for (int q = 0; q < w; ++q) acc[q] += acc[q + w];
  }
  return acc[0];
}
template <typename T, typename Run, typename One>
__device__ __forceinline__ float host_exp_row(long long n, const T* __restrict__ x, HostRowMax r, const Run& store_run,
                                              const One& store_one) {
  if (r.exp_normal) {
    return host_exp_runs(n, x, r.m, [](vf v) { return opgen::vm::detail::exp_normal(v); }, store_run, store_one);
  }
  return host_exp_runs(n, x, r.m, [](vf v) { return opgen::vm::exp(v); }, store_run, store_one);
}
#endif

#ifndef OPGEN_HOST_FORM
// Two partial results (max, Σ e^(x − max)) of a row as one: the smaller max's sum rescaled. A
// partial whose max is -inf has sum 0 (every element -inf adds nothing); a NaN or +inf max makes the
// sum NaN, and the row NaN in the pass that writes it, as the two-pass form.
__device__ __forceinline__ float2 softmax_merge(float2 a, float2 b) {
  const float m = opgen::nan_max(a.x, b.x);
  if (m == opgen::neg_inf()) return make_float2(m, 0.f);
  const float sa = a.x == m ? a.y : a.y * opgen::vm::exp(a.x - m);
  const float sb = b.x == m ? b.y : b.y * opgen::vm::exp(b.x - m);
  return make_float2(m, sa + sb);
}
struct SoftmaxMerge {
  __device__ __forceinline__ float2 operator()(float2 a, float2 b) const { return softmax_merge(a, b); }
};

// A group of n elements into a thread's (max, sum): the group's max first, then its exponentials.
template <typename T>
__device__ __forceinline__ void softmax_add(float2& ms, const opgen::VecBits<T>& v, int n) {
  const auto x_q = [&](int q) { return opgen::to_float(v.e[q]); };
  float gm = opgen::neg_inf();
  opgen::each_in_group(n, [&](int q) { gm = opgen::nan_max(gm, x_q(q)); });
  ms = softmax_merge(ms, make_float2(gm, 0.f));
  if (ms.x == opgen::neg_inf()) return;  // nothing to add yet: every element so far is -inf
  opgen::each_in_group(n, [&](int q) { ms.y += opgen::vm::exp(x_q(q) - ms.x); });
}

// Groups a thread keeps in registers: a row of at most kSoftmaxCached·blockDim.x groups (8192
// elements with 1024 threads) is read once and written once. One: two took the 16-bit kernel to 70
// registers (NVRTC 13.0, sm_90), over 1024 threads' 64.
constexpr int kSoftmaxCached = 1;

// A row that fits in the block's registers: thread t keeps groups t and t + blockDim.x (the walk of
// _rowvec.cuh, so the same elements go to the same threads).
template <typename T>
__device__ __forceinline__ void softmax_row_cached(const T* __restrict__ xr, T* __restrict__ yr, long long N) {
  constexpr int W = opgen::kGroup;
  const bool vec = opgen::aligned16(xr) && opgen::aligned16(yr);
  opgen::VecBits<T> cache[kSoftmaxCached];
  int count[kSoftmaxCached];
  float2 ms = make_float2(opgen::neg_inf(), 0.f);
#pragma unroll
  for (int c = 0; c < kSoftmaxCached; ++c) {
    const long long j0 = (threadIdx.x + c * static_cast<long long>(blockDim.x)) * W;
    count[c] = j0 >= N ? 0 : N - j0 < W ? static_cast<int>(N - j0) : W;  // int32 ok: under kGroup
    cache[c] = opgen::load_bits(xr + j0, count[c], vec && count[c] == W);
    softmax_add(ms, cache[c], count[c]);
  }
  ms = opgen::block_reduce(ms, SoftmaxMerge{});
  const float m = ms.x, inv = 1.f / ms.y;
#pragma unroll
  for (int c = 0; c < kSoftmaxCached; ++c) {
    const long long j0 = (threadIdx.x + c * static_cast<long long>(blockDim.x)) * W;
    opgen::VecBits<T> b;
    opgen::each_in_group(count[c], [&](int q) {
      b.e[q] = opgen::from_float<T>(opgen::vm::exp(opgen::to_float(cache[c].e[q]) - m) * inv);
    });
    opgen::store_bits(yr + j0, b, count[c], vec && count[c] == W);
  }
}
#endif

// axis last: a block owns a row of N contiguous elements.
template <typename T>
__device__ void softmax_rows(const T* __restrict__ x, T* __restrict__ y, long long rows, long long N) {
  opgen::for_each_row(rows, [&](long long r) {
    const T* __restrict__ xr = x + r * N;
    T* __restrict__ yr = y + r * N;
#ifdef OPGEN_HOST_FORM
    if (threadIdx.x != 0) return;  // thread 0 takes the row: no barrier here
    const HostRowMax row = host_row_max(N, xr);
    if constexpr (opgen::is_float32<T>::value) {
      // y holds the exponentials exactly: scale them in place (one exp per element)
      const float inv = 1.f / host_exp_row(N, xr, row, [&](long long j, vf v) { opgen::vm::store(yr + j, v); },
                                           [&](long long j, float v) { yr[j] = v; });
      opgen::row_store(N, yr, [&](long long j) { return yr[j] * inv; });
    } else {
      // 16-bit y would round the exponentials twice: the row's first kHostRowBuf of them are kept in
      // float32 on the fiber's stack (one exp per element, as PyTorch's float buffer), the rest are
      // computed again (the same runs of kLanes, so the same values: bit for bit either way)
      float kept[kHostRowBuf];
      const long long nk = N < kHostRowBuf ? N : kHostRowBuf;
      const float inv = 1.f / host_exp_row(N, xr, row, [&](long long j, vf v) {
        if (j < nk) opgen::vm::store(kept + j, v);
      }, [&](long long j, float v) {
        if (j < nk) kept[j] = v;
      });
      long long j = 0;
      for (; j + kLanes <= nk; j += kLanes) opgen::vm::store(yr + j, opgen::vm::load(kept + j) * inv);
      for (; j < nk; ++j) yr[j] = opgen::from_float<T>(kept[j] * inv);
      host_exp_row(N - nk, xr + nk, row, [&](long long i, vf v) { opgen::vm::store(yr + nk + i, v * inv); },
                   [&](long long i, float v) { yr[nk + i] = opgen::from_float<T>(v * inv); });
    }
#else
    const long long groups = (N + opgen::kGroup - 1) / opgen::kGroup;
    if (groups <= kSoftmaxCached * static_cast<long long>(blockDim.x)) {
      softmax_row_cached(xr, yr, N);
      return;
    }
    // One read for the max and the sum (online: a thread's sum is rescaled when its max grows), one
    // for y: x is read twice and y written once, 16 bytes per access where aligned (_rowvec.cuh).
    float2 ms = make_float2(opgen::neg_inf(), 0.f);
    opgen::row_vgroups(N, [&](long long, int n, const opgen::VecBits<T> (&v)[1]) { softmax_add(ms, v[0], n); }, xr);
    ms = opgen::block_reduce(ms, SoftmaxMerge{});
    const float m = ms.x, inv = 1.f / ms.y;
    opgen::row_vstore(N, yr, [&](long long, const float* e) { return opgen::vm::exp(e[0] - m) * inv; }, xr);
#endif
  });
}

// Another axis: a thread owns column k = (o, i), the N elements o·N·inner + i + j·inner.
template <typename T>
__device__ void softmax_columns(const T* __restrict__ x, T* __restrict__ y, long long columns, long long N,
                                long long inner) {
  opgen::for_each_index(columns, [&](long long k) {
    const long long o = k / inner, base = o * N * inner + (k - o * inner);
    float m = opgen::neg_inf();
    for (long long j = 0; j < N; ++j) m = opgen::nan_max(m, opgen::to_float(x[base + j * inner]));
    float sum = 0.f;
    for (long long j = 0; j < N; ++j) sum += opgen::vm::exp(opgen::to_float(x[base + j * inner]) - m);
    const float inv = 1.f / sum;
    for (long long j = 0; j < N; ++j) {
      y[base + j * inner] = opgen::from_float<T>(opgen::vm::exp(opgen::to_float(x[base + j * inner]) - m) * inv);
    }
  });
}

// dx = y·(dy − Σ dy·y) along the axis.
template <typename T>
__device__ void softmax_grad_rows(const T* __restrict__ y, const T* __restrict__ dy, T* __restrict__ dx,
                                  long long rows, long long N) {
  opgen::for_each_row(rows, [&](long long r) {
    const T* __restrict__ yr = y + r * N;
    const T* __restrict__ dyr = dy + r * N;
    // e = {dy[j], y[j]}
    const float s = opgen::row_vsum(N, [&](long long, const float* e) { return e[0] * e[1]; }, dyr, yr);
    opgen::row_vstore(N, dx + r * N, [&](long long, const float* e) { return e[1] * (e[0] - s); }, dyr, yr);
  });
}

template <typename T>
__device__ void softmax_grad_columns(const T* __restrict__ y, const T* __restrict__ dy, T* __restrict__ dx,
                                     long long columns, long long N, long long inner) {
  opgen::for_each_index(columns, [&](long long k) {
    const long long o = k / inner, base = o * N * inner + (k - o * inner);
    float s = 0.f;
    for (long long j = 0; j < N; ++j) s += opgen::to_float(dy[base + j * inner]) * opgen::to_float(y[base + j * inner]);
    for (long long j = 0; j < N; ++j) {
      const long long idx = base + j * inner;
      dx[idx] = opgen::from_float<T>(opgen::to_float(y[idx]) * (opgen::to_float(dy[idx]) - s));
    }
  });
}
