{% include "kernels/_common.cuh" %}

// Batch normalization over x viewed as [outer, C, inner]: NHWC is [N·H·W, C, 1], NCHW is
// [N, C, H·W]. Per-channel sums run in two launches: `*_partials` reduces split blockIdx.y of
// every channel's m = outer·inner elements into partials[split][c][2], then `*_finalize` adds
// the splits in a fixed order (deterministic, no atomics) with one thread per channel.
// Channels-last data (inner == 1) is read in tiles of 32 channels × rows, so a warp reads 32
// neighbouring channels of one row (coalesced); channels-first data gives each block one channel.

// Elements a thread handles side by side (kernels/_common.cuh): more independent work per thread
// and adjacent accesses. load4/store4 and channel_partials_sliced's four partial sums assume 4.
using opgen::kRun;

// Split blockIdx.y's share [begin, end) of a channel's m elements: whole runs per split (the last
// split may be short).
__device__ __forceinline__ void split_range(long long m, long long splits, long long& begin, long long& end) {
  long long per = (m + splits - 1) / splits;
  per = (per + kRun - 1) / kRun * kRun;
  begin = blockIdx.y * per;
  end = begin + per < m ? begin + per : m;
}

__device__ __forceinline__ void store_partials(float* __restrict__ partials, long long C, long long c, float2 s) {
  partials[2 * (blockIdx.y * C + c)] = s.x;
  partials[2 * (blockIdx.y * C + c) + 1] = s.y;
}

// Two sums per channel of a functor over the channel's elements; f(offset, c, a, b) adds to a, b
// (f.run4 four adjacent elements). The GPU's launch sizes: a warp reads 32 neighbouring channels
// of a row (channels-last), or a block's threads read runs of kRun adjacent elements, one vector
// access per operand (channels-first).
template <typename F>
__device__ __forceinline__ void channel_partials(const F& f, float* __restrict__ partials, long long m,
                                                 long long C, long long inner, long long splits) {
  long long begin, end;
  split_range(m, splits, begin, end);
  float a = 0.f, b = 0.f;
  if (inner == 1) {
    __shared__ float2 tile[32][33];  // [row group][lane], padded against bank conflicts
    const int lane = threadIdx.x & 31, group = threadIdx.x >> 5, groups = blockDim.x >> 5;
    const long long c = blockIdx.x * 32LL + lane;
    if (c < C) {
      for (long long r = begin + group; r < end; r += groups) f(r * C + c, c, a, b);
    }
    tile[group][lane] = make_float2(a, b);
    __syncthreads();
    if (group == 0 && c < C) {
      float2 s = tile[0][lane];
      for (int g = 1; g < groups; ++g) {
        s.x += tile[g][lane].x;
        s.y += tile[g][lane].y;
      }
      store_partials(partials, C, c, s);
    }
  } else {
    // Runs of kRun adjacent elements per thread when they never straddle two rows: inner % kRun
    // == 0 (then m is a whole number of runs, and so is every split), single elements otherwise.
    const long long c = blockIdx.x, run = inner % kRun == 0 ? kRun : 1;
    long long i = begin + threadIdx.x * run;
    long long o = 0, k = 0;  // element i of the channel is [o, c, k]
    if (i < end) {  // (inner may be 0 when the channel is empty)
      o = i / inner;
      k = i - o * inner;
    }
    const long long step = static_cast<long long>(blockDim.x) * run;
    for (; i < end; i += step) {
      const long long base = (o * C + c) * inner + k;
      if (run == kRun) {
        f.run4(base, c, a, b);  // one vector access per operand where aligned
      } else {
        f(base, c, a, b);
      }
      k += step;
      if (k >= inner) {
        o += k / inner;
        k %= inner;
      }
    }
    const float2 s = opgen::block_sum2(a, b);
    if (threadIdx.x == 0) store_partials(partials, C, c, s);
  }
}

// The same sums under the cpu backend's launch sizes, where a block's threads run one after
// another: each thread sums its own consecutive slice of the split (channels-first: stretches of
// the channel's rows; channels-last: its rows over the tile's 32 channels), in independent partial
// sums the host compiler keeps in SIMD lanes; then the threads' sums are added in order.
template <typename F>
__device__ __forceinline__ void channel_partials_sliced(const F& f, float* __restrict__ partials, long long m,
                                                        long long C, long long inner, long long splits) {
  long long begin, end;
  split_range(m, splits, begin, end);
  if (inner == 1) {
    __shared__ float2 sums[32][33];  // [thread][channel of the tile]
    const long long c0 = blockIdx.x * 32LL, width = C - c0 < 32 ? C - c0 : 32;
    const long long rowsets = blockDim.x < 32 ? blockDim.x : 32;
    if (threadIdx.x < rowsets) {
      float sa[32] = {}, sb[32] = {};
      const long long len = (end - begin + rowsets - 1) / rowsets;
      const long long r0 = begin + threadIdx.x * len, r1 = r0 + len < end ? r0 + len : end;
      for (long long r = r0; r < r1; ++r) {
        for (long long j = 0; j < width; ++j) f(r * C + c0 + j, c0 + j, sa[j], sb[j]);
      }
      for (int j = 0; j < 32; ++j) sums[threadIdx.x][j] = make_float2(sa[j], sb[j]);
    }
    __syncthreads();
    if (threadIdx.x < width) {
      float2 s = sums[0][threadIdx.x];
      for (long long t = 1; t < rowsets; ++t) {
        s.x += sums[t][threadIdx.x].x;
        s.y += sums[t][threadIdx.x].y;
      }
      store_partials(partials, C, c0 + threadIdx.x, s);
    }
  } else {
    const long long c = blockIdx.x;
    const long long len = (end - begin + blockDim.x - 1) / blockDim.x;
    long long i = begin + threadIdx.x * len;
    const long long stop = i + len < end ? i + len : end;
    float ra[kRun] = {}, rb[kRun] = {};
    while (i < stop) {
      const long long o = i / inner, k = i - o * inner;
      const long long n = inner - k < stop - i ? inner - k : stop - i;
      const long long base = (o * C + c) * inner + k;
      long long j = 0;
      for (; j + kRun <= n; j += kRun) {
#pragma unroll
        for (long long q = 0; q < kRun; ++q) f(base + j + q, c, ra[q], rb[q]);
      }
      for (; j < n; ++j) f(base + j, c, ra[0], rb[0]);
      i += n;
    }
    const float2 s = opgen::block_sum2((ra[0] + ra[1]) + (ra[2] + ra[3]), (rb[0] + rb[1]) + (rb[2] + rb[3]));
    if (threadIdx.x == 0) store_partials(partials, C, c, s);
  }
}

// Channel c's two sums over all splits, added in split order (deterministic).
__device__ __forceinline__ float2 sum_splits(const float* __restrict__ partials, long long c, long long C,
                                             long long splits) {
  float2 total = make_float2(0.f, 0.f);
  for (long long s = 0; s < splits; ++s) {
    total.x += partials[2 * (s * C + c)];
    total.y += partials[2 * (s * C + c) + 1];
  }
  return total;
}

// Shifted sums Σ(x−K) and Σ(x−K)² with K = the channel's first element: one pass, and the
// variance keeps its precision when the mean is large compared with the spread.
template <typename T>
struct ShiftedSums {
  const T* x;
  long long inner;
  __device__ __forceinline__ void operator()(long long offset, long long c, float& a, float& b) const {
    const float d = opgen::to_float(x[offset]) - opgen::to_float(x[c * inner]);
    a += d;
    b += d * d;
  }
  // elements offset .. offset+3 (offset a multiple of 4) of channel c, added in order
  __device__ __forceinline__ void run4(long long offset, long long c, float& a, float& b) const {
    float v[4];
    opgen::load4(x + offset, v);
    const float shift = opgen::to_float(x[c * inner]);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float d = v[j] - shift;
      a += d;
      b += d * d;
    }
  }
};

template <typename T>
__device__ void stats_partials(const T* __restrict__ x, float* __restrict__ partials, long long m, long long C,
                               long long inner, long long splits) {
  channel_partials(ShiftedSums<T>{x, inner}, partials, m, C, inner, splits);
}

template <typename T>
__device__ void stats_partials_sliced(const T* __restrict__ x, float* __restrict__ partials, long long m,
                                      long long C, long long inner, long long splits) {
  channel_partials_sliced(ShiftedSums<T>{x, inner}, partials, m, C, inner, splits);
}

// Per-channel affine coefficients: the elementwise passes compute y = A·x + B (forward) and
// dx = A·dy + B·x + D (gradient), so they need no square roots or divisions per element.

// Training statistics per channel from the partial sums, and the forward's coefficients.
template <typename T>
__device__ void stats_finalize(const T* __restrict__ x, const float* __restrict__ partials,
                               const float* __restrict__ scale, const float* __restrict__ offset,
                               const float* __restrict__ mean, const float* __restrict__ variance,
                               float* __restrict__ batch_mean, float* __restrict__ batch_variance,
                               float* __restrict__ saved_mean, float* __restrict__ saved_var,
                               float* __restrict__ coeffs, long long m, long long C, long long inner,
                               long long splits, float epsilon, float exponential_avg_factor) {
  const long long c = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= C) return;
  const float2 sums = sum_splits(partials, c, C, splits);
  const float sum = sums.x, sq = sums.y;
  float mu = 0.f, var = 0.f;
  if (m > 0) {
    const float fm = static_cast<float>(m), shift = opgen::to_float(x[c * inner]);
    mu = shift + sum / fm;
    var = fmaxf((sq - sum * sum / fm) / fm, 0.f);
  }
  const float unbiased = var * static_cast<float>(m) / static_cast<float>(m > 1 ? m - 1 : 1);
  const float f = exponential_avg_factor;
  saved_mean[c] = mu;
  saved_var[c] = var;
  // f == 1 must not read the running statistics: they may be uninitialised (NaN) then.
  batch_mean[c] = f == 1.f ? mu : (1.f - f) * mean[c] + f * mu;
  batch_variance[c] = f == 1.f ? unbiased : (1.f - f) * variance[c] + f * unbiased;
  const float a = scale[c] * rsqrtf(var + epsilon);
  coeffs[2 * c] = a;
  coeffs[2 * c + 1] = offset[c] - mu * a;
}

// Inference: the statistics outputs echo the given population statistics.
template <typename T>
__device__ void inference_stats(const float* __restrict__ scale, const float* __restrict__ offset,
                                const float* __restrict__ mean, const float* __restrict__ variance,
                                float* __restrict__ batch_mean, float* __restrict__ batch_variance,
                                float* __restrict__ saved_mean, float* __restrict__ saved_var,
                                float* __restrict__ coeffs, long long C, float epsilon) {
  const long long c = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= C) return;
  batch_mean[c] = saved_mean[c] = mean[c];
  batch_variance[c] = saved_var[c] = variance[c];
  const float a = scale[c] * rsqrtf(variance[c] + epsilon);
  coeffs[2 * c] = a;
  coeffs[2 * c + 1] = offset[c] - mean[c] * a;
}

// Calls f(idx, c) for every element idx of channel c.
//
// chunk > 0 (the cpu backend's launch sizes): thread t takes the `chunk` consecutive elements
// from t·chunk, walking them in stretches of one channel (channels-first) or one row
// (channels-last). The host emulation runs a block's threads one after another, so this streams
// memory in order and the stretches vectorise; on a GPU it would not coalesce.
//
// chunk == 0 (GPU sizes): grid-stride. Each thread takes runs of kRun adjacent elements (more work
// per thread, adjacent accesses) when a row of C·inner elements is a whole number of runs; where a
// row fits in the grid the stride is a whole number of rows, so a thread keeps its channel(s) and
// no element needs a division.
template <typename F>
__device__ __forceinline__ void for_each_element(const F& f, long long total, long long C, long long inner,
                                                 long long chunk) {
  const long long threads = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (chunk > 0) {
    long long idx = t * chunk;
    if (idx >= total) return;
    const long long last = idx + chunk < total ? idx + chunk : total;
    long long c = (idx / inner) % C, k = idx % inner;
    while (idx < last) {
      if (inner == 1) {  // the rest of a row: channels c .. C−1
        const long long n = C - c < last - idx ? C - c : last - idx;
        for (long long j = 0; j < n; ++j) f(idx + j, c + j);
        idx += n;
        c = 0;
      } else {  // the rest of channel c's stretch of `inner` elements
        const long long n = inner - k < last - idx ? inner - k : last - idx;
        for (long long j = 0; j < n; ++j) f(idx + j, c);
        idx += n;
        k = 0;
        if (++c == C) c = 0;
      }
    }
    return;
  }
  const long long row = C * inner;
  const bool runs = row % kRun == 0 && (inner == 1 || inner % kRun == 0);
  if (runs && row <= threads * kRun) {
    const long long stride = threads * kRun / row * row;  // elements per pass, whole rows
    const long long first = t * kRun;
    if (first >= stride) return;
    const long long c = (first % row) / inner, step = inner == 1 ? 1 : 0;  // channel of each run element
    for (long long idx = first; idx < total; idx += stride) f.run4(idx, c, step);  // vector accesses
  } else {
    for (long long idx = t; idx < total; idx += threads) f(idx, (idx / inner) % C);
  }
}

template <typename T>
struct Affine {
  const T* x;
  const float* coeffs;
  T* y;
  __device__ __forceinline__ void operator()(long long idx, long long c) const {
    y[idx] = opgen::from_float<T>(opgen::to_float(x[idx]) * coeffs[2 * c] + coeffs[2 * c + 1]);
  }
  // elements idx .. idx+3 (idx a multiple of 4) of channels c, c + step, c + 2·step, c + 3·step
  __device__ __forceinline__ void run4(long long idx, long long c, long long step) const {
    float v[4];
    opgen::load4(x + idx, v);
#pragma unroll
    for (int j = 0; j < 4; ++j) v[j] = v[j] * coeffs[2 * (c + j * step)] + coeffs[2 * (c + j * step) + 1];
    opgen::store4(y + idx, v);
  }
};

template <typename T>
__device__ void normalize(const T* __restrict__ x, const float* __restrict__ coeffs, T* __restrict__ y,
                          long long total, long long C, long long inner, long long chunk) {
  for_each_element(Affine<T>{x, coeffs, y}, total, C, inner, chunk);
}

// Σ dy and Σ dy·(x−μ) per channel.
template <typename T>
struct GradSums {
  const T* dy;
  const T* x;
  const float* mu;
  __device__ __forceinline__ void operator()(long long offset, long long c, float& a, float& b) const {
    const float g = opgen::to_float(dy[offset]);
    a += g;
    b += g * (opgen::to_float(x[offset]) - mu[c]);
  }
  __device__ __forceinline__ void run4(long long offset, long long c, float& a, float& b) const {
    float g[4], v[4];
    opgen::load4(dy + offset, g);
    opgen::load4(x + offset, v);
    const float m = mu[c];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      a += g[j];
      b += g[j] * (v[j] - m);
    }
  }
};

template <typename T>
__device__ void grad_partials(const T* __restrict__ dy, const T* __restrict__ x, const float* __restrict__ mu,
                              float* __restrict__ partials, long long m, long long C, long long inner,
                              long long splits) {
  channel_partials(GradSums<T>{dy, x, mu}, partials, m, C, inner, splits);
}

template <typename T>
__device__ void grad_partials_sliced(const T* __restrict__ dy, const T* __restrict__ x, const float* __restrict__ mu,
                                     float* __restrict__ partials, long long m, long long C, long long inner,
                                     long long splits) {
  channel_partials_sliced(GradSums<T>{dy, x, mu}, partials, m, C, inner, splits);
}

// offset_backprop = Σ dy; scale_backprop = Σ dy·(x−μ)·r; and the coefficients of
// dx = A·dy + B·x + D. Training: A = scale·r, B = −A·r·scale_backprop/m, D = −A·Σdy/m − B·μ.
// Inference: A = scale·r, B = D = 0.
template <typename T>
__device__ void grad_finalize(const float* __restrict__ partials, const float* __restrict__ scale,
                              const float* __restrict__ mu, const float* __restrict__ var,
                              float* __restrict__ scale_backprop, float* __restrict__ offset_backprop,
                              float* __restrict__ coeffs, long long m, long long C, long long splits,
                              float epsilon, int is_training) {
  const long long c = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= C) return;
  const float2 sums = sum_splits(partials, c, C, splits);
  const float sum_dy = sums.x, sum_dy_xc = sums.y;
  const float r = rsqrtf(var[c] + epsilon);
  offset_backprop[c] = sum_dy;
  scale_backprop[c] = sum_dy_xc * r;
  const float a = scale[c] * r;
  float b = 0.f, d = 0.f;
  if (is_training && m > 0) {
    const float inv_m = 1.f / static_cast<float>(m);
    b = -a * r * (sum_dy_xc * r) * inv_m;
    d = -a * sum_dy * inv_m - b * mu[c];
  }
  coeffs[3 * c] = a;
  coeffs[3 * c + 1] = b;
  coeffs[3 * c + 2] = d;
}

template <typename T>
struct GradAffine {
  const T* dy;
  const T* x;
  const float* coeffs;
  T* dx;
  __device__ __forceinline__ void operator()(long long idx, long long c) const {
    const float* k = coeffs + 3 * c;
    dx[idx] = opgen::from_float<T>(k[0] * opgen::to_float(dy[idx]) + k[1] * opgen::to_float(x[idx]) + k[2]);
  }
  __device__ __forceinline__ void run4(long long idx, long long c, long long step) const {
    float g[4], v[4];
    opgen::load4(dy + idx, g);
    opgen::load4(x + idx, v);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float* k = coeffs + 3 * (c + j * step);
      v[j] = k[0] * g[j] + k[1] * v[j] + k[2];
    }
    opgen::store4(dx + idx, v);
  }
};

template <typename T>
__device__ void grad_input(const T* __restrict__ dy, const T* __restrict__ x, const float* __restrict__ coeffs,
                           T* __restrict__ dx, long long total, long long C, long long inner, long long chunk) {
  for_each_element(GradAffine<T>{dy, x, coeffs, dx}, total, C, inner, chunk);
}
