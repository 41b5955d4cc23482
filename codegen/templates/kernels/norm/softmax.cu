{% include "kernels/_common.cuh" %}
{% include "kernels/_vmath.cuh" %}

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

// The row's max, NaN-propagating as opgen::nan_max: kLanes partial maxima, then the tail.
template <typename T>
__device__ __forceinline__ float host_row_max(long long n, const T* __restrict__ x) {
  vf mv = opgen::vm::detail::splat<vf>(opgen::neg_inf());
  long long j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    const vf v = opgen::vm::load(x + j);
    mv = (mv > v) | (mv != mv) ? mv : v;
  }
  float m = opgen::neg_inf();
  for (int q = 0; q < kLanes; ++q) m = opgen::nan_max(m, mv[q]);
  for (; j < n; ++j) m = opgen::nan_max(m, opgen::to_float(x[j]));
  return m;
}

// Σ e^(x_j − m) over the row, each exponential also handed to store_run(j, kLanes of them) or
// store_one(j, one): kLanes partial sums (the tail's into the first), added pairwise.
template <typename T, typename Run, typename One>
__device__ __forceinline__ float host_exp_row(long long n, const T* __restrict__ x, float m, const Run& store_run,
                                              const One& store_one) {
  vf acc = {};
  long long j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    const vf v = opgen::vm::exp(opgen::vm::load(x + j) - m);
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
#endif

// axis last: a block owns a row of N contiguous elements.
template <typename T>
__device__ void softmax_rows(const T* __restrict__ x, T* __restrict__ y, long long rows, long long N) {
  opgen::for_each_row(rows, [&](long long r) {
    const T* __restrict__ xr = x + r * N;
    T* __restrict__ yr = y + r * N;
#ifdef OPGEN_HOST_FORM
    if (threadIdx.x != 0) return;  // thread 0 takes the row: no barrier here
    const float m = host_row_max(N, xr);
    if constexpr (opgen::is_float32<T>::value) {
      // y holds the exponentials exactly: scale them in place (one exp per element)
      const float inv = 1.f / host_exp_row(N, xr, m, [&](long long j, vf v) { opgen::vm::store(yr + j, v); },
                                           [&](long long j, float v) { yr[j] = v; });
      opgen::row_store(N, yr, [&](long long j) { return yr[j] * inv; });
    } else {
      // 16-bit y would round the exponentials twice: the row's first kHostRowBuf of them are kept in
      // float32 on the fiber's stack (one exp per element, as PyTorch's float buffer), the rest are
      // computed again (the same runs of kLanes, so the same values: bit for bit either way)
      float kept[kHostRowBuf];
      const long long nk = N < kHostRowBuf ? N : kHostRowBuf;
      const float inv = 1.f / host_exp_row(N, xr, m, [&](long long j, vf v) {
        if (j < nk) opgen::vm::store(kept + j, v);
      }, [&](long long j, float v) {
        if (j < nk) kept[j] = v;
      });
      long long j = 0;
      for (; j + kLanes <= nk; j += kLanes) opgen::vm::store(yr + j, opgen::vm::load(kept + j) * inv);
      for (; j < nk; ++j) yr[j] = opgen::from_float<T>(kept[j] * inv);
      host_exp_row(N - nk, xr + nk, m, [&](long long i, vf v) { opgen::vm::store(yr + nk + i, v * inv); },
                   [&](long long i, float v) { yr[nk + i] = opgen::from_float<T>(v * inv); });
    }
#else
    const float m = opgen::row_max(N, [&](long long j) { return opgen::to_float(xr[j]); });
    const auto e = [&](long long j) { return opgen::vm::exp(opgen::to_float(xr[j]) - m); };
    if constexpr (opgen::is_float32<T>::value) {
      // y holds the exponentials exactly: scale them in place (one exp per element)
      const float inv = 1.f / opgen::row_store_sum(N, yr, e);
      opgen::row_store(N, yr, [&](long long j) { return yr[j] * inv; });
    } else {
      // 16-bit y would round the exponentials twice: compute them again instead
      const float inv = 1.f / opgen::row_sum(N, e);
      opgen::row_store(N, yr, [&](long long j) { return e(j) * inv; });
    }
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
    const float s = opgen::row_sum(N, [&](long long j) { return opgen::to_float(dyr[j]) * opgen::to_float(yr[j]); });
    opgen::row_store(N, dx + r * N, [&](long long j) {
      return opgen::to_float(yr[j]) * (opgen::to_float(dyr[j]) - s);
    });
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
