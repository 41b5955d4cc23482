{% include "kernels/_common.cuh" %}

// Batch normalization over x viewed as [outer, C, inner]: NHWC is [N·H·W, C, 1], NCHW is
// [N, C, H·W]. The per-channel passes run one block per channel; the elementwise passes run a
// grid-stride loop over every element.
// Offset of element i (0 <= i < outer·inner) of channel c.
__device__ __forceinline__ long long channel_offset(long long i, long long c, long long C, long long inner) {
  if (inner == 1) return i * C + c;
  const long long o = i / inner;
  return (o * C + c) * inner + (i - o * inner);
}

__device__ __forceinline__ long long channel_of(long long idx, long long C, long long inner) {
  return (idx / inner) % C;
}

// Training statistics of channel blockIdx.x: the mean, then the biased variance around it (two
// passes, so the variance keeps its precision when the mean is large).
template <typename T>
__device__ void batch_stats(const T* __restrict__ x, const float* __restrict__ mean,
                            const float* __restrict__ variance, float* __restrict__ batch_mean,
                            float* __restrict__ batch_variance, float* __restrict__ saved_mean,
                            float* __restrict__ saved_var, long long outer, long long C, long long inner,
                            float exponential_avg_factor) {
  const long long c = blockIdx.x, m = outer * inner;
  float sum = 0.f;
  for (long long i = threadIdx.x; i < m; i += blockDim.x) sum += opgen::to_float(x[channel_offset(i, c, C, inner)]);
  const float mu = m > 0 ? opgen::block_sum2(sum, 0.f).x / static_cast<float>(m) : 0.f;
  float sq = 0.f;
  for (long long i = threadIdx.x; i < m; i += blockDim.x) {
    const float d = opgen::to_float(x[channel_offset(i, c, C, inner)]) - mu;
    sq += d * d;
  }
  const float var = m > 0 ? opgen::block_sum2(sq, 0.f).x / static_cast<float>(m) : 0.f;
  if (threadIdx.x == 0) {
    const float unbiased = var * static_cast<float>(m) / static_cast<float>(m > 1 ? m - 1 : 1);
    const float f = exponential_avg_factor;
    saved_mean[c] = mu;
    saved_var[c] = var;
    // f == 1 must not read the running statistics: they may be uninitialised (NaN) then.
    batch_mean[c] = f == 1.f ? mu : (1.f - f) * mean[c] + f * mu;
    batch_variance[c] = f == 1.f ? unbiased : (1.f - f) * variance[c] + f * unbiased;
  }
}

// Inference: the statistics outputs echo the given population statistics.
template <typename T>
__device__ void copy_stats(const float* __restrict__ mean, const float* __restrict__ variance,
                           float* __restrict__ batch_mean, float* __restrict__ batch_variance,
                           float* __restrict__ saved_mean, float* __restrict__ saved_var, long long C) {
  const long long c = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c < C) {
    batch_mean[c] = saved_mean[c] = mean[c];
    batch_variance[c] = saved_var[c] = variance[c];
  }
}

template <typename T>
__device__ void normalize(const T* __restrict__ x, const float* __restrict__ scale,
                          const float* __restrict__ offset, const float* __restrict__ mu,
                          const float* __restrict__ var, T* __restrict__ y, long long total, long long C,
                          long long inner, float epsilon) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; idx < total; idx += stride) {
    const long long c = channel_of(idx, C, inner);
    const float r = rsqrtf(var[c] + epsilon);
    y[idx] = opgen::from_float<T>((opgen::to_float(x[idx]) - mu[c]) * r * scale[c] + offset[c]);
  }
}

// Per channel: offset_backprop = Σ dy and scale_backprop = Σ dy·(x−μ)·r.
template <typename T>
__device__ void grad_sums(const T* __restrict__ dy, const T* __restrict__ x, const float* __restrict__ mu,
                          const float* __restrict__ var, float* __restrict__ scale_backprop,
                          float* __restrict__ offset_backprop, long long outer, long long C, long long inner,
                          float epsilon) {
  const long long c = blockIdx.x, m = outer * inner;
  const float mean = mu[c];
  float sum_dy = 0.f, sum_dy_xc = 0.f;
  for (long long i = threadIdx.x; i < m; i += blockDim.x) {
    const long long k = channel_offset(i, c, C, inner);
    const float g = opgen::to_float(dy[k]);
    sum_dy += g;
    sum_dy_xc += g * (opgen::to_float(x[k]) - mean);
  }
  const float2 sums = opgen::block_sum2(sum_dy, sum_dy_xc);
  if (threadIdx.x == 0) {
    offset_backprop[c] = sums.x;
    scale_backprop[c] = sums.y * rsqrtf(var[c] + epsilon);
  }
}

// x_backprop from the per-channel sums. Training: scale·r·(dy − Σdy/m − (x−μ)·r·Σdy(x−μ)r/m);
// inference: dy·scale·r.
template <typename T>
__device__ void grad_input(const T* __restrict__ dy, const T* __restrict__ x, const float* __restrict__ scale,
                           const float* __restrict__ mu, const float* __restrict__ var,
                           const float* __restrict__ scale_backprop, const float* __restrict__ offset_backprop,
                           T* __restrict__ dx, long long total, long long C, long long inner, float epsilon,
                           int is_training) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  const float inv_m = C > 0 && total > 0 ? static_cast<float>(C) / static_cast<float>(total) : 0.f;
  for (long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; idx < total; idx += stride) {
    const long long c = channel_of(idx, C, inner);
    const float r = rsqrtf(var[c] + epsilon);
    const float g = opgen::to_float(dy[idx]);
    float out;
    if (is_training) {
      const float xc = opgen::to_float(x[idx]) - mu[c];
      out = scale[c] * r * (g - offset_backprop[c] * inv_m - xc * r * scale_backprop[c] * inv_m);
    } else {
      out = g * scale[c] * r;
    }
    dx[idx] = opgen::from_float<T>(out);
  }
}
