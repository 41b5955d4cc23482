// generated from specs/nn/fused_batch_norm_grad_v3.yaml by opgen — do not edit
/* FusedBatchNormGradV3: Gradient for batch normalization.
 * Kernel source: templates/kernels/nn/fused_batch_norm.cu; entry points generated from the launch
 * plan in specs/nn/fused_batch_norm_grad_v3.yaml. The same text is compiled by NVRTC for the GPU and by the host
 * C++ compiler against opgen's emulation header for the cpu backend. */
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// Shared device helpers for opgen kernels: conversions between storage types and float, and
// block-wide reductions. Kernel templates include this file with a Jinja include tag.
namespace opgen {

template <typename T> __device__ __forceinline__ float to_float(T v) { return static_cast<float>(v); }
template <> __device__ __forceinline__ float to_float<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_float<__nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

template <typename T> __device__ __forceinline__ T from_float(float v) { return static_cast<T>(v); }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16(v);
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Sums a and b over the block; every thread gets both totals. blockDim.x must be a multiple of
// 32 and at most 1024. Ends with a barrier, so it may be called again right away.
__device__ __forceinline__ float2 block_sum2(float a, float b) {
  __shared__ float2 partial[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  a = warp_sum(a);
  b = warp_sum(b);
  if (lane == 0) partial[warp] = make_float2(a, b);
  __syncthreads();
  if (warp == 0) {
    float2 p = lane < warps ? partial[lane] : make_float2(0.f, 0.f);
    p.x = warp_sum(p.x);
    p.y = warp_sum(p.y);
    if (lane == 0) partial[0] = p;
  }
  __syncthreads();
  const float2 total = partial[0];
  __syncthreads();  // partial[0] is overwritten by the next call
  return total;
}

}  // namespace opgen

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

// ---- entry points: one per launch step and specialization (T)

extern "C" __global__ void __launch_bounds__(256) FusedBatchNormGradV3__grad_sums__float16(
    const __half* __restrict__ y_backprop,
    const __half* __restrict__ x,
    const float* __restrict__ reserve_space_1,
    const float* __restrict__ reserve_space_2,
    float* __restrict__ scale_backprop,
    float* __restrict__ offset_backprop,
    long long outer,
    long long C,
    long long inner,
    float epsilon) {
  grad_sums<__half>(y_backprop, x, reserve_space_1, reserve_space_2, scale_backprop, offset_backprop, outer, C, inner, epsilon);
}

extern "C" __global__ void __launch_bounds__(256) FusedBatchNormGradV3__grad_sums__bfloat16(
    const __nv_bfloat16* __restrict__ y_backprop,
    const __nv_bfloat16* __restrict__ x,
    const float* __restrict__ reserve_space_1,
    const float* __restrict__ reserve_space_2,
    float* __restrict__ scale_backprop,
    float* __restrict__ offset_backprop,
    long long outer,
    long long C,
    long long inner,
    float epsilon) {
  grad_sums<__nv_bfloat16>(y_backprop, x, reserve_space_1, reserve_space_2, scale_backprop, offset_backprop, outer, C, inner, epsilon);
}

extern "C" __global__ void __launch_bounds__(256) FusedBatchNormGradV3__grad_sums__float32(
    const float* __restrict__ y_backprop,
    const float* __restrict__ x,
    const float* __restrict__ reserve_space_1,
    const float* __restrict__ reserve_space_2,
    float* __restrict__ scale_backprop,
    float* __restrict__ offset_backprop,
    long long outer,
    long long C,
    long long inner,
    float epsilon) {
  grad_sums<float>(y_backprop, x, reserve_space_1, reserve_space_2, scale_backprop, offset_backprop, outer, C, inner, epsilon);
}

extern "C" __global__ void __launch_bounds__(256) FusedBatchNormGradV3__grad_input__float16(
    const __half* __restrict__ y_backprop,
    const __half* __restrict__ x,
    const float* __restrict__ scale,
    const float* __restrict__ reserve_space_1,
    const float* __restrict__ reserve_space_2,
    float* __restrict__ scale_backprop,
    float* __restrict__ offset_backprop,
    __half* __restrict__ x_backprop,
    long long total,
    long long C,
    long long inner,
    float epsilon,
    int is_training) {
  grad_input<__half>(y_backprop, x, scale, reserve_space_1, reserve_space_2, scale_backprop, offset_backprop, x_backprop, total, C, inner, epsilon, is_training);
}

extern "C" __global__ void __launch_bounds__(256) FusedBatchNormGradV3__grad_input__bfloat16(
    const __nv_bfloat16* __restrict__ y_backprop,
    const __nv_bfloat16* __restrict__ x,
    const float* __restrict__ scale,
    const float* __restrict__ reserve_space_1,
    const float* __restrict__ reserve_space_2,
    float* __restrict__ scale_backprop,
    float* __restrict__ offset_backprop,
    __nv_bfloat16* __restrict__ x_backprop,
    long long total,
    long long C,
    long long inner,
    float epsilon,
    int is_training) {
  grad_input<__nv_bfloat16>(y_backprop, x, scale, reserve_space_1, reserve_space_2, scale_backprop, offset_backprop, x_backprop, total, C, inner, epsilon, is_training);
}

extern "C" __global__ void __launch_bounds__(256) FusedBatchNormGradV3__grad_input__float32(
    const float* __restrict__ y_backprop,
    const float* __restrict__ x,
    const float* __restrict__ scale,
    const float* __restrict__ reserve_space_1,
    const float* __restrict__ reserve_space_2,
    float* __restrict__ scale_backprop,
    float* __restrict__ offset_backprop,
    float* __restrict__ x_backprop,
    long long total,
    long long C,
    long long inner,
    float epsilon,
    int is_training) {
  grad_input<float>(y_backprop, x, scale, reserve_space_1, reserve_space_2, scale_backprop, offset_backprop, x_backprop, total, C, inner, epsilon, is_training);
}

