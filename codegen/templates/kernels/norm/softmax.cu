{% include "kernels/_common.cuh" %}

// Softmax and SoftmaxGrad over x viewed as [outer, N, inner] (N: the axis). One kernel per step
// for both launch plans (kernels/_common.cuh's building blocks take each backend's form).
// Non-finite values follow from the formula as in PyTorch: a NaN or +inf makes the row's max NaN
// or +inf, so x − max is NaN somewhere and the sum, hence the row, is NaN; a row of -inf only has
// max -inf and -inf − (-inf) = NaN; a -inf element of a finite row gives exp(-inf) = 0.

// axis last: a block owns a row of N contiguous elements.
template <typename T>
__device__ void softmax_rows(const T* __restrict__ x, T* __restrict__ y, long long rows, long long N) {
  opgen::for_each_row(rows, [&](long long r) {
    const T* __restrict__ xr = x + r * N;
    T* __restrict__ yr = y + r * N;
    const float m = opgen::row_max(N, [&](long long j) { return opgen::to_float(xr[j]); });
    const auto e = [&](long long j) { return expf(opgen::to_float(xr[j]) - m); };
    if constexpr (opgen::is_float32<T>::value) {
      // y holds the exponentials exactly: scale them in place (one exp per element)
      const float inv = 1.f / opgen::row_store_sum(N, yr, e);
      opgen::row_store(N, yr, [&](long long j) { return yr[j] * inv; });
    } else {
      // 16-bit y would round the exponentials twice: compute them again instead
      const float inv = 1.f / opgen::row_sum(N, e);
      opgen::row_store(N, yr, [&](long long j) { return e(j) * inv; });
    }
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
    for (long long j = 0; j < N; ++j) sum += expf(opgen::to_float(x[base + j * inner]) - m);
    const float inv = 1.f / sum;
    for (long long j = 0; j < N; ++j) {
      y[base + j * inner] = opgen::from_float<T>(expf(opgen::to_float(x[base + j * inner]) - m) * inv);
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
