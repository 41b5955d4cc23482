// generated from specs/rnn/cudnn_rnn_backprop_v3.yaml, specs/rnn/cudnn_rnn_v3.yaml by opgen — do not edit (opgen 0.1.0)
#line 3 "generated/rnn/cudnn_rnn.cu"
/* CudnnRNNBackpropV3, CudnnRNNV3: the ops that share this kernel module.
 * Kernel source: codegen/templates/kernels/rnn/cudnn_rnn.cu, once; then each op's entry points, generated from its
 * launch plan in specs/. The same text is compiled by NVRTC for the GPU and by the host
 * C++ compiler against opgen's emulation header for the cpu backend. */
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#line 1 "codegen/templates/kernels/rnn/cudnn_rnn.cu"
// CudnnRNNV3 / CudnnRNNBackpropV3: the elementwise steps of a multi-layer, optionally
// bidirectional RNN (rnn_relu, rnn_tanh, lstm with an optional projection, cuDNN's
// linear-before-reset gru). The large matrix products are GEMM steps of the launch plans: per layer
// one input projection for all time steps and both directions and, in the backward, the weight
// gradients over all steps at once. The recurrent product of each step is a GEMM step too (a
// strided batch over the directions) on the cpu plan and the GPU's large sizes, then one step
// kernel per time step for both directions (grid y: the direction) does the rest; below them, on the
// GPU's plan, it lives in the kernels: the persistent variant (small sizes: every step of a layer,
// both directions, in one launch) or the fused one (per time step one launch for both directions, a
// tile of the product through opgen::matmul_tile and then that tile's gates).
//
// Buffers (all row-major, element offsets computed by the launch plan):
//   params   the opaque weights (opgen_ops/cudnn_rnn.py): bW and bR of the pseudo-layer
//            at `bofs` (G·H each).
//   gx       [D, T·B, G·H] the input projection x_t·Wᵀ of every step (time-major rows t·B + b), a
//            slot per direction.
//   gh       [D, B, G·H] the recurrent product h_{t−1}·Rᵀ of this step, a slot per direction.
//   dgw, dgr, dh, dc, dhp, dm (backward): a slot per direction each, direction d's at d times the
//            slot's size.
//   work     the reserve space (or, for inference, a scratch buffer of the same layout); per
//            pseudo-layer at acts_ofs: acts [T, B, A] (lstm: i f g o, gru: r u n (R_h·h + bR_h),
//            rnn: none), then at hs_ofs the h slots [T + 1, B, Hh], at cs_ofs the c slots
//            [T + 1, B, H] (lstm), at ms_ofs m = o∘tanh(c) [T, B, H] (lstm with projection).
//            Slots: direction d writes the state after time t to slot t + 1 − d and reads the
//            previous one from slot t + d; the initial state is slot d·T, the final one slot
//            (1 − d)·T. So the previous states of all steps, in time order, are the T·B rows from
//            slot d on (one GEMM for the recurrent weight gradient).
//   A sequence b is valid at time t when t < len[b]; elsewhere the state is carried unchanged, the
//   output is zero and no gradient reaches the weights.
//
// Arithmetic is in float for float and half storage, in double for double storage.

#line 1 "codegen/templates/kernels/_common.cuh"
// Shared device helpers for opgen kernels: conversions between storage types and float, and
// block-wide reductions. Kernel templates include this file with a Jinja include tag.
namespace opgen {

// The host form of the emulation converts 16-bit values in branch-free float arithmetic and bit
// operations, which the host compiler vectorises in a loop (the emulator's bfloat16 conversions and
// its half ones other than float -> half round through double; kernels/_vmath.cuh's vm::load/store
// use F16C where the build has it): round to nearest even, exactly as the GPU's __float2half_rn and
// __float2bfloat16, a NaN becoming the canonical NaN 0x7FFF as there. After the FP16 library's
// fp16_ieee_from/to_fp32_value. The GPU form (OPGEN_GPU_FORM) calls the GPU's intrinsics, which
// the emulation's cuda_fp16.h/cuda_bf16.h provide, so tests check both paths without a GPU
// (tests/test_exact_16bit.py).
#if defined(OPGEN_HOST_EMU) && !defined(OPGEN_GPU_FORM)
#define OPGEN_HOST_CONVERSIONS 1
#endif

#ifdef OPGEN_HOST_CONVERSIONS
__device__ __forceinline__ unsigned float_bits(float v) { return static_cast<unsigned>(__float_as_int(v)); }
__device__ __forceinline__ float bits_float(unsigned b) { return __int_as_float(static_cast<int>(b)); }
__device__ __forceinline__ float half_bits_to_float(unsigned h) {
  const unsigned w = h << 16, sign = w & 0x80000000u, two_w = w + w;
  const float normalized = bits_float((two_w >> 4) + (0xE0u << 23)) * 0x1.0p-112f;
  const float denormalized = bits_float((two_w >> 17) | (126u << 23)) - 0.5f;
  return bits_float(sign | float_bits(two_w < (1u << 27) ? denormalized : normalized));
}
__device__ __forceinline__ unsigned float_to_half_bits(float v) {
  const float base0 = (fabsf(v) * 0x1.0p+112f) * 0x1.0p-110f;
  const unsigned w = float_bits(v), shl1_w = w + w, sign = w & 0x80000000u;
  unsigned bias = shl1_w & 0xFF000000u;
  bias = bias < 0x71000000u ? 0x71000000u : bias;
  const unsigned bits = float_bits(bits_float((bias >> 1) + 0x07800000u) + base0);
  const unsigned nonsign = ((bits >> 13) & 0x7C00u) + (bits & 0x0FFFu);
  return shl1_w > 0xFF000000u ? 0x7FFFu : (sign >> 16) | nonsign;
}
__device__ __forceinline__ unsigned float_to_bf16_bits(float v) {
  const unsigned w = float_bits(v);
  const bool nan = (w & 0x7FFFFFFFu) > 0x7F800000u;
  return nan ? 0x7FFFu : (w + 0x7FFFu + ((w >> 16) & 1u)) >> 16;
}
#endif

template <typename T> __device__ __forceinline__ float to_float(T v) { return static_cast<float>(v); }
template <> __device__ __forceinline__ float to_float<__half>(__half v) {
#ifdef OPGEN_HOST_CONVERSIONS
  return half_bits_to_float(__half_as_ushort(v));
#else
  return __half2float(v);
#endif
}
template <> __device__ __forceinline__ float to_float<__nv_bfloat16>(__nv_bfloat16 v) {
#ifdef OPGEN_HOST_CONVERSIONS
  return bits_float(static_cast<unsigned>(__bfloat16_as_ushort(v)) << 16);
#else
  return __bfloat162float(v);
#endif
}

template <typename T> __device__ __forceinline__ T from_float(float v) { return static_cast<T>(v); }
template <> __device__ __forceinline__ __half from_float<__half>(float v) {
#ifdef OPGEN_HOST_CONVERSIONS
  return __ushort_as_half(static_cast<unsigned short>(float_to_half_bits(v)));
#else
  return __float2half_rn(v);
#endif
}
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
#ifdef OPGEN_HOST_CONVERSIONS
  return __ushort_as_bfloat16(static_cast<unsigned short>(float_to_bf16_bits(v)));
#else
  return __float2bfloat16(v);
#endif
}

// float32 and the 16-bit storage types, and the latter's bits (to move four of them as one 8-byte
// word without aliasing).
template <typename T> struct is_float32 { static constexpr bool value = false; };
template <> struct is_float32<float> { static constexpr bool value = true; };
// The type a kernel of element type T computes in: float, double for double (acc_t<T>). A float
// attr reaches a float64 specialization as a double, so a parameter declared acc_t<T> keeps it.
template <typename T> struct acc_type { using type = float; };
template <> struct acc_type<double> { using type = double; };
template <typename T> using acc_t = typename acc_type<T>::type;
// The types the row, block and column helpers below compute in: float, or double for a float64
// kernel (its values are summed, merged and stored in double). precision<V> tells a value's kind
// (1: float, float2, MeanVarOf<float>; 2: their double forms; 0: anything else), so a helper
// refuses at compile time, by name, a value it would narrow: a double result stored to a float or
// 16-bit output, double terms into a float accumulator, double2 terms into float partials.
template <typename A, typename B> struct same_type { static constexpr bool value = false; };
template <typename A> struct same_type<A, A> { static constexpr bool value = true; };
template <typename T> struct strip_cvref { using type = T; };
template <typename T> struct strip_cvref<const T> { using type = T; };
template <typename T> struct strip_cvref<T&> { using type = typename strip_cvref<T>::type; };
template <typename T> struct strip_cvref<T&&> { using type = typename strip_cvref<T>::type; };
template <typename V> struct precision { static constexpr int value = 0; };
template <> struct precision<float> { static constexpr int value = 1; };
template <> struct precision<float2> { static constexpr int value = 1; };
template <> struct precision<double> { static constexpr int value = 2; };
template <> struct precision<double2> { static constexpr int value = 2; };
template <typename V> constexpr int precision_of = precision<typename strip_cvref<V>::type>::value;
// Two values of a precision side by side (float2, double2), as the two-sum helpers return them.
template <typename A> struct pair_of;
template <> struct pair_of<float> { using type = float2; };
template <> struct pair_of<double> { using type = double2; };
template <typename A> using pair_t = typename pair_of<A>::type;
__device__ __forceinline__ float2 make_pair(float a, float b) { return make_float2(a, b); }
__device__ __forceinline__ double2 make_pair(double a, double b) { return make_double2(a, b); }
template <typename T> struct is_16bit_float { static constexpr bool value = false; };
template <> struct is_16bit_float<__half> { static constexpr bool value = true; };
template <> struct is_16bit_float<__nv_bfloat16> { static constexpr bool value = true; };
__device__ __forceinline__ unsigned to_bits(__half v) { return __half_as_ushort(v); }
__device__ __forceinline__ unsigned to_bits(__nv_bfloat16 v) { return __bfloat16_as_ushort(v); }
template <typename T> __device__ __forceinline__ T from_bits(unsigned b);
template <> __device__ __forceinline__ __half from_bits<__half>(unsigned b) {
  return __ushort_as_half(static_cast<unsigned short>(b));
}
template <> __device__ __forceinline__ __nv_bfloat16 from_bits<__nv_bfloat16>(unsigned b) {
  return __ushort_as_bfloat16(static_cast<unsigned short>(b));
}

// A stored value as its kernel computes with it (acc_t<T>: exact), and a computed value back to T
// (rounded once, to nearest even). from_acc refuses a double for a float or 16-bit T: a double
// rounded to float and then to 16 bits is rounded twice.
template <typename T> __device__ __forceinline__ acc_t<T> to_acc(T v) {
  if constexpr (same_type<T, double>::value) return v;
  else return to_float(v);
}
template <typename T, typename A> __device__ __forceinline__ T from_acc(A v) {
  static_assert(same_type<A, float>::value || same_type<A, double>::value,
                "opgen::from_acc: the value must be a float or a double");
  if constexpr (same_type<T, double>::value) {
    return static_cast<double>(v);
  } else {
    static_assert(same_type<A, float>::value,
                  "opgen::from_acc: a double value for a float or 16-bit output would be narrowed: compute in "
                  "opgen::acc_t<T>, or round it yourself");
    return from_float<T>(v);
  }
}

// Four consecutive elements, as floats: one 16-byte (float) or 8-byte (half, bfloat16) access when
// the address allows it (a GPU then moves a warp's 4·32 elements in few transactions), else four
// scalar ones. Callers pass element indices that are multiples of 4.
template <typename T>
__device__ __forceinline__ void load4(const T* __restrict__ p, float (&v)[4]) {
  const unsigned long long address = reinterpret_cast<unsigned long long>(p);
  if constexpr (is_float32<T>::value) {
    if (address % 16 == 0) {
      const float4 q = *reinterpret_cast<const float4*>(p);
      v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
      return;
    }
  } else if constexpr (is_16bit_float<T>::value) {
    if (address % 8 == 0) {
      const uint2 q = *reinterpret_cast<const uint2*>(p);
      v[0] = to_float(from_bits<T>(q.x & 0xffffu)), v[1] = to_float(from_bits<T>(q.x >> 16));
      v[2] = to_float(from_bits<T>(q.y & 0xffffu)), v[3] = to_float(from_bits<T>(q.y >> 16));
      return;
    }
  }
#pragma unroll
  for (int j = 0; j < 4; ++j) v[j] = to_float(p[j]);
}

template <typename T>
__device__ __forceinline__ void store4(T* __restrict__ p, const float (&v)[4]) {
  const unsigned long long address = reinterpret_cast<unsigned long long>(p);
  if constexpr (is_float32<T>::value) {
    if (address % 16 == 0) {
      *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
      return;
    }
  } else if constexpr (is_16bit_float<T>::value) {
    if (address % 8 == 0) {
      uint2 q;
      q.x = to_bits(from_float<T>(v[0])) | (to_bits(from_float<T>(v[1])) << 16);
      q.y = to_bits(from_float<T>(v[2])) | (to_bits(from_float<T>(v[3])) << 16);
      *reinterpret_cast<uint2*>(p) = q;
      return;
    }
  }
#pragma unroll
  for (int j = 0; j < 4; ++j) p[j] = from_float<T>(v[j]);
}

// Two consecutive 16-bit elements, as floats: one 4-byte access when the address allows it (a warp
// then reads 128 bytes of a row where one element a lane read 64), else two scalar ones.
template <typename T>
__device__ __forceinline__ void load2(const T* __restrict__ p, float (&v)[2]) {
  static_assert(is_16bit_float<T>::value, "opgen::load2: a pair of 16-bit elements (half, bfloat16)");
  if (reinterpret_cast<unsigned long long>(p) % 4 == 0) {
    const unsigned q = *reinterpret_cast<const unsigned*>(p);
    v[0] = to_float(from_bits<T>(q & 0xffffu)), v[1] = to_float(from_bits<T>(q >> 16));
    return;
  }
  v[0] = to_float(p[0]), v[1] = to_float(p[1]);
}

template <typename T>
__device__ __forceinline__ void store2(T* __restrict__ p, const float (&v)[2]) {
  static_assert(is_16bit_float<T>::value, "opgen::store2: a pair of 16-bit elements (half, bfloat16)");
  if (reinterpret_cast<unsigned long long>(p) % 4 == 0) {
    *reinterpret_cast<unsigned*>(p) = to_bits(from_float<T>(v[0])) | (to_bits(from_float<T>(v[1])) << 16);
    return;
  }
  p[0] = from_float<T>(v[0]), p[1] = from_float<T>(v[1]);
}

// Elements a thread handles side by side (for_each_cell, the batch-norm kernels): more independent
// work per thread and adjacent accesses.
[[maybe_unused]] constexpr long long kRun = 4;

// Calls f(b, j) for every element of a [rows, width] matrix, grid-stride. When a row is a whole
// number of runs and fits in one pass of the grid, each thread takes a run of kRun adjacent
// columns and keeps them on every row it visits (the stride is a whole number of rows), so no
// element needs a division; otherwise one element at a time.
template <typename F>
__device__ __forceinline__ void for_each_cell(const F& f, long long rows, long long width) {
  if (rows <= 0 || width <= 0) return;  // an empty matrix (GRU's d_x with input_size 0, say)
  const long long threads = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (width % kRun == 0 && width <= threads * kRun) {
    const long long rows_per_pass = threads * kRun / width;
    const long long first = t * kRun;
    if (first >= rows_per_pass * width) return;
    const long long b0 = first / width, j = first - b0 * width;
    for (long long b = b0; b < rows; b += rows_per_pass) {
#pragma unroll
      for (long long q = 0; q < kRun; ++q) f(b, j + q);
    }
  } else {
    const long long total = rows * width;
    for (long long idx = t; idx < total; idx += threads) {
      const long long b = idx / width;
      f(b, idx - b * width);
    }
  }
}

template <typename A>
__device__ __forceinline__ A warp_sum(A v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Sums a and b (both float, or both double) over the block; every thread gets both totals.
// blockDim.x must be a multiple of 32 and at most 1024. Ends with a barrier, so it may be called
// again right away.
template <typename A>
__device__ __forceinline__ pair_t<A> block_sum2(A a, A b) {
  __shared__ pair_t<A> partial[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  a = warp_sum(a);
  b = warp_sum(b);
  if (lane == 0) partial[warp] = make_pair(a, b);
  __syncthreads();
  if (warp == 0) {
    pair_t<A> p = lane < warps ? partial[lane] : make_pair(A(0), A(0));
    p.x = warp_sum(p.x);
    p.y = warp_sum(p.y);
    if (lane == 0) partial[0] = p;
  }
  __syncthreads();
  const pair_t<A> total = partial[0];
  __syncthreads();  // partial[0] is overwritten by the next call
  return total;
}


// ---------------------------------------------------------------------------------------------
// Backend-aware building blocks: one kernel source for the GPU and the host emulation.
//
// The host emulation (OPGEN_HOST_EMU) runs every CUDA thread as a fiber: a barrier or a warp
// collective costs a hand-over per thread (~10-30 ns each), and a loop one thread runs is scalar C
// the host compiler can vectorise. So each block below has two forms behind one call: on the GPU
// the block's threads stride the work and reduce with warp shuffles and shared memory; under the
// emulation thread 0 walks the work in order, in runs of kHostRun the compiler keeps in SIMD
// registers, the other threads skip it, and only the barriers that hand a result to every thread
// remain (none with one thread per block). Results agree to float rounding (the order of the sums
// differs). Every function here takes 1-D blocks of any size up to 1024; those that reduce over a
// block must be called by every thread of the block (as __syncthreads), and may be called again
// right away.
// ---------------------------------------------------------------------------------------------

// The host form under the emulation, unless OPGEN_GPU_FORM is defined before this file: the
// emulation then runs the GPU's form (its shuffles, merges and strides), which is how tests check
// both forms without a GPU (tests/test_block_helpers.py, tests/test_norm_ops.py).
#if defined(OPGEN_HOST_EMU) && !defined(OPGEN_GPU_FORM)
#define OPGEN_HOST_FORM 1
#endif

[[maybe_unused]] constexpr int kHostRun = 8;  // elements the host form handles side by side

// max that propagates NaN (fmaxf drops it): a row holding a NaN has a NaN max, as in PyTorch.
__device__ __forceinline__ float nan_max(float a, float b) { return (a > b || a != a) ? a : b; }
__device__ __forceinline__ double nan_max(double a, double b) { return (a > b || a != a) ? a : b; }
template <typename A = float> __device__ __forceinline__ A neg_inf();
template <> __device__ __forceinline__ float neg_inf<float>() { return -__int_as_float(0x7f800000); }
template <> __device__ __forceinline__ double neg_inf<double>() { return -__longlong_as_double(0x7ff0000000000000LL); }

// Count, mean and Σ(x − mean)² of some values (Welford), in float or double; variance() is the
// biased variance.
template <typename A>
struct MeanVarOf {
  A count, mean, m2;
  __device__ __forceinline__ A variance() const { return count > A(0) ? m2 / count : A(0); }
};
using MeanVar = MeanVarOf<float>;
template <> struct precision<MeanVarOf<float>> { static constexpr int value = 1; };
template <> struct precision<MeanVarOf<double>> { static constexpr int value = 2; };

// Reduction operators: op(a, b) with a from lower threads / earlier elements; a and b of one type
// (float or double, and their pairs).
struct SumOp {
  template <typename V> __device__ __forceinline__ V operator()(V a, V b) const { return a + b; }
  __device__ __forceinline__ float2 operator()(float2 a, float2 b) const { return make_float2(a.x + b.x, a.y + b.y); }
  __device__ __forceinline__ double2 operator()(double2 a, double2 b) const {
    return make_double2(a.x + b.x, a.y + b.y);
  }
};
struct MaxOp {
  template <typename V> __device__ __forceinline__ V operator()(V a, V b) const { return nan_max(a, b); }
};
struct WelfordOp {  // Chan et al.'s merge of two partial results
  template <typename A>
  __device__ __forceinline__ MeanVarOf<A> operator()(MeanVarOf<A> a, MeanVarOf<A> b) const {
    const A n = a.count + b.count;
    if (b.count == A(0)) return a;
    if (a.count == A(0)) return b;
    const A d = b.mean - a.mean, fb = b.count / n;
    return MeanVarOf<A>{n, a.mean + d * fb, a.m2 + b.m2 + d * d * a.count * fb};
  }
};

// A term of precision_of<R> as the accumulator type V: the same type, or a float widened to a
// double (exact). Narrowing is refused before this is reached, by the helper's static_assert.
template <typename V, typename R> __device__ __forceinline__ V widen_to(const R& r) {
  if constexpr (same_type<V, R>::value) return r;
  else if constexpr (same_type<R, float2>::value) return make_double2(r.x, r.y);
  else return static_cast<V>(r);
}

// Applies s to each scalar of a value (float, double, their pairs, MeanVarOf): how the warp
// reductions shuffle them. A kernel's own reduction type adds an overload beside it (found by
// argument-dependent lookup).
template <typename S> __device__ __forceinline__ float map_floats(float v, const S& s) { return s(v); }
template <typename S> __device__ __forceinline__ double map_floats(double v, const S& s) { return s(v); }
template <typename S> __device__ __forceinline__ float2 map_floats(float2 v, const S& s) {
  return make_float2(s(v.x), s(v.y));
}
template <typename S> __device__ __forceinline__ double2 map_floats(double2 v, const S& s) {
  return make_double2(s(v.x), s(v.y));
}
template <typename A, typename S> __device__ __forceinline__ MeanVarOf<A> map_floats(MeanVarOf<A> v, const S& s) {
  return MeanVarOf<A>{s(v.count), s(v.mean), s(v.m2)};
}

// The shuffles map_floats applies (function objects with a templated call: NVRTC refuses a generic
// lambda in device code).
struct ShuffleXor {
  unsigned mask;
  int lane_mask;
  template <typename S> __device__ __forceinline__ S operator()(S v) const { return __shfl_xor_sync(mask, v, lane_mask); }
};
struct ShuffleUp {
  unsigned mask;
  unsigned delta;
  template <typename S> __device__ __forceinline__ S operator()(S v) const { return __shfl_up_sync(mask, v, delta); }
};
struct ShuffleFrom {
  unsigned mask;
  int lane;
  template <typename S> __device__ __forceinline__ S operator()(S v) const { return __shfl_sync(mask, v, lane); }
};

// Reduces v over the calling thread's warp (the lanes the block has: its last warp may be partial);
// every lane gets the same value, bit for bit. Every thread of the warp must call it.
template <typename V, typename Op>
__device__ __forceinline__ V warp_reduce(V v, const Op& op) {
  const int lane = threadIdx.x & 31, first = threadIdx.x - lane;
  const int lanes = blockDim.x - first < 32 ? static_cast<int>(blockDim.x) - first : 32;
  const unsigned mask = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u;
#ifdef OPGEN_HOST_FORM
  // one warp barrier per hand-over instead of one per shuffle: lanes meet in shared memory
  __shared__ V slot[1024];
  slot[threadIdx.x] = v;
  __syncwarp(mask);
  V r = slot[first];
  for (int k = 1; k < lanes; ++k) r = op(r, slot[first + k]);
  __syncwarp(mask);  // the slots may be written again by the next call
  return r;
#else
  if (lanes == 32) {
#pragma unroll
    for (int m = 1; m < 32; m <<= 1) {  // butterfly; the lower lane's value first, so lanes agree
      const V o = map_floats(v, ShuffleXor{mask, m});
      v = (lane & m) ? op(o, v) : op(v, o);
    }
    return v;
  }
  // a partial warp: an inclusive scan up (sources are always present lanes), then the last lane's
  for (int d = 1; d < lanes; d <<= 1) {
    const V o = map_floats(v, ShuffleUp{mask, static_cast<unsigned>(d)});
    if (lane >= d) v = op(o, v);
  }
  return map_floats(v, ShuffleFrom{mask, lanes - 1});
#endif
}

// Reduces v over the block; every thread gets the same value. Two barriers: thread 0 writes the
// result between them, and every thread has read the previous call's result before the first.
template <typename V, typename Op>
__device__ __forceinline__ V block_reduce(V v, const Op& op) {
  __shared__ V result;
#ifdef OPGEN_HOST_FORM
  if (blockDim.x == 1) return v;
  __shared__ V part[1024];
  const int parts = blockDim.x;
  part[threadIdx.x] = v;
#else
  __shared__ V part[32];
  const int parts = (blockDim.x + 31) >> 5;
  v = warp_reduce(v, op);
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
#endif
  __syncthreads();
  if (threadIdx.x == 0) {
    V r = part[0];
    for (int k = 1; k < parts; ++k) r = op(r, part[k]);
    result = r;
  }
  __syncthreads();
  return result;
}

// Thread 0's v, to every thread of the block (the same two-barrier protocol as block_reduce).
template <typename V>
__device__ __forceinline__ V block_broadcast(V v) {
#ifdef OPGEN_HOST_FORM
  if (blockDim.x == 1) return v;
#endif
  __shared__ V value;
  __syncthreads();  // every thread has read the previous call's value
  if (threadIdx.x == 0) value = v;
  __syncthreads();
  return value;
}

// ---- A block owns a row -----------------------------------------------------------------------
// for_each_row(rows, f) calls f(r) on every thread of the block for each of the block's rows (a
// contiguous share of [0, rows) per block, in order). Inside f, the row_* functions below work on
// the row's n elements, given as functions of the element index j: on the GPU the block's threads
// stride the row (thread t takes t, t + blockDim.x, ...: coalesced) and reduce across the block;
// under the emulation thread 0 takes every element, in order. Either way element j goes to the
// same thread in every call, so a thread may read back what it wrote in an earlier pass over the
// row without a barrier. Reductions give every thread the result; on an empty row (n = 0) a sum is
// 0, a max -inf, a MeanVar has count 0 (mean 0, variance 0).
//
// f returns float or double (float2 or double2 for the two-sum helpers): the helper computes in
// that type (a float64 kernel's f returns double and gets double sums). Storing a double result to
// a float or 16-bit output is a compile error naming the helper, as is a double term for a float
// accumulator (row_reduce's init).

template <typename F>
__device__ __forceinline__ void for_each_row(long long rows, const F& f) {
  const long long blocks = gridDim.x, per = (rows + blocks - 1) / blocks;
  const long long begin = blockIdx.x * per, end = begin + per < rows ? begin + per : rows;
  for (long long r = begin; r < end; ++r) f(r);
}

// Whether this thread is the one that writes the row's scalar results (mean[r], say).
__device__ __forceinline__ bool row_leader() { return threadIdx.x == 0; }

// f(j) for every element.
template <typename F>
__device__ __forceinline__ void row_for_each(long long n, const F& f) {
#ifdef OPGEN_HOST_FORM
  if (threadIdx.x != 0) return;
  for (long long j = 0; j < n; ++j) f(j);
#else
  for (long long j = threadIdx.x; j < n; j += blockDim.x) f(j);
#endif
}

#define OPGEN_SCALAR_RESULT(HELPER, R)                                                                     \
  static_assert(precision_of<R> != 0 && !same_type<R, float2>::value && !same_type<R, double2>::value,    \
                "opgen::" HELPER ": f must return float or double (widen 16-bit values with opgen::to_acc)")
#define OPGEN_STORES_EXACTLY(HELPER, R, T)                                                                 \
  static_assert(precision_of<R> == 1 || same_type<typename strip_cvref<T>::type, double>::value,           \
                "opgen::" HELPER ": f's result is double but the output element type is not: it would be "   \
                "narrowed (compute in opgen::acc_t<T>, or round it yourself)")

// out[j] = f(j) (rounded once to T) for every element. The host form computes a run of values
// before it stores them, so the compiler can vectorise f's loads although out may alias them.
template <typename T, typename F>
__device__ __forceinline__ void row_store(long long n, T* out, const F& f) {
  using R = typename strip_cvref<decltype(f(0LL))>::type;
  OPGEN_SCALAR_RESULT("row_store", R);
  OPGEN_STORES_EXACTLY("row_store", R, T);
#ifdef OPGEN_HOST_FORM
  if (threadIdx.x != 0) return;
  long long j = 0;
  for (; j + kHostRun <= n; j += kHostRun) {
    R v[kHostRun];
#pragma GCC unroll 8
    for (int q = 0; q < kHostRun; ++q) v[q] = f(j + q);
#pragma GCC unroll 8
    for (int q = 0; q < kHostRun; ++q) out[j + q] = from_acc<T>(v[q]);
  }
  for (; j < n; ++j) out[j] = from_acc<T>(f(j));
#else
  for (long long j = threadIdx.x; j < n; j += blockDim.x) out[j] = from_acc<T>(f(j));
#endif
}

// out[j] = f(j) (rounded to T) for every element, and Σ f(j) (of the unrounded values, in f's
// type) to every thread: a pass that writes a row and sums it (softmax's exponentials).
template <typename T, typename F>
__device__ __forceinline__ auto row_store_sum(long long n, T* out, const F& f) {
  using R = typename strip_cvref<decltype(f(0LL))>::type;
  OPGEN_SCALAR_RESULT("row_store_sum", R);
  OPGEN_STORES_EXACTLY("row_store_sum", R, T);
#ifdef OPGEN_HOST_FORM
  R sum = R(0);
  if (threadIdx.x == 0) {
    R run[kHostRun] = {};
    long long j = 0;
    for (; j + kHostRun <= n; j += kHostRun) {
      R v[kHostRun];
#pragma GCC unroll 8
      for (int q = 0; q < kHostRun; ++q) v[q] = f(j + q);
#pragma GCC unroll 8
      for (int q = 0; q < kHostRun; ++q) out[j + q] = from_acc<T>(v[q]), run[q] += v[q];
    }
    for (; j < n; ++j) {
      const R v = f(j);
      out[j] = from_acc<T>(v);
      run[0] += v;
    }
    for (int w = kHostRun / 2; w > 0; w /= 2) {
      for (int q = 0; q < w; ++q) run[q] += run[q + w];
    }
    sum = run[0];
  }
  return block_broadcast(sum);
#else
  R sum = R(0);
  for (long long j = threadIdx.x; j < n; j += blockDim.x) {
    const R v = f(j);
    out[j] = from_acc<T>(v);
    sum += v;
  }
  return block_reduce(sum, SumOp{});
#endif
}

#ifdef OPGEN_HOST_FORM
// The host form of a row reduction, on the calling thread alone: kHostRun independent partial
// results (no chain of dependent adds), combined pairwise at the end.
template <typename V, typename F, typename Op>
__device__ __forceinline__ V host_reduce(long long n, const F& f, const Op& op, V init) {
  V run[kHostRun];
#pragma GCC unroll 8
  for (int q = 0; q < kHostRun; ++q) run[q] = init;
  long long j = 0;
  for (; j + kHostRun <= n; j += kHostRun) {
#pragma GCC unroll 8
    for (int q = 0; q < kHostRun; ++q) run[q] = op(run[q], widen_to<V>(f(j + q)));
  }
  for (; j < n; ++j) run[0] = op(run[0], widen_to<V>(f(j)));
  for (int w = kHostRun / 2; w > 0; w /= 2) {
    for (int q = 0; q < w; ++q) run[q] = op(run[q], run[q + w]);
  }
  return run[0];
}
#endif

// op over f(j) for every element, from `init` (op's identity, of the accumulator's type: float or
// double, or their pairs; a float f may feed a double accumulator); every thread gets the result.
template <typename V, typename F, typename Op>
__device__ __forceinline__ V row_reduce(long long n, const F& f, const Op& op, V init) {
  using R = typename strip_cvref<decltype(f(0LL))>::type;
  static_assert(precision_of<R> != 0 && precision_of<V> != 0,
                "opgen::row_reduce: f and the accumulator must be float or double (or float2/double2)");
  static_assert(precision_of<R> <= precision_of<V>,
                "opgen::row_reduce: f's result is double but the accumulator (init) is float: the terms would "
                "be narrowed (pass a double init)");
#ifdef OPGEN_HOST_FORM
  return block_broadcast(threadIdx.x == 0 ? host_reduce(n, f, op, init) : init);
#else
  V acc = init;
  for (long long j = threadIdx.x; j < n; j += blockDim.x) acc = op(acc, widen_to<V>(f(j)));
  return block_reduce(acc, op);
#endif
}

// Σ f(j), in f's type.
template <typename F>
__device__ __forceinline__ auto row_sum(long long n, const F& f) {
  using R = typename strip_cvref<decltype(f(0LL))>::type;
  OPGEN_SCALAR_RESULT("row_sum", R);
  return row_reduce(n, f, SumOp{}, R(0));
}
// Two sums at once (f returns a float2 or a double2): one reduction's barriers for both.
template <typename F>
__device__ __forceinline__ auto row_sum2(long long n, const F& f) {
  using P = typename strip_cvref<decltype(f(0LL))>::type;
  static_assert(same_type<P, float2>::value || same_type<P, double2>::value,
                "opgen::row_sum2: f must return float2 or double2");
  return row_reduce(n, f, SumOp{}, P{0, 0});
}
template <typename F>
__device__ __forceinline__ auto row_max(long long n, const F& f) {
  using R = typename strip_cvref<decltype(f(0LL))>::type;
  OPGEN_SCALAR_RESULT("row_max", R);
  return row_reduce(n, f, MaxOp{}, neg_inf<R>());
}

// Count, mean and biased variance of f(j) over the row, in f's type. GPU: Welford per thread,
// merged across the block; host: two passes over the row (the mean, then Σ(f − mean)²), which is
// exact to rounding.
template <typename F>
__device__ __forceinline__ auto row_mean_var(long long n, const F& f) {
  using R = typename strip_cvref<decltype(f(0LL))>::type;
  OPGEN_SCALAR_RESULT("row_mean_var", R);
#ifdef OPGEN_HOST_FORM
  MeanVarOf<R> s{R(0), R(0), R(0)};
  if (threadIdx.x == 0 && n > 0) {
    const R mean = host_reduce(n, f, SumOp{}, R(0)) / static_cast<R>(n);
    const R m2 = host_reduce(n, [&](long long j) { const R d = f(j) - mean; return d * d; }, SumOp{}, R(0));
    s = MeanVarOf<R>{static_cast<R>(n), mean, m2};
  }
  return block_broadcast(s);
#else
  MeanVarOf<R> s{R(0), R(0), R(0)};
  for (long long j = threadIdx.x; j < n; j += blockDim.x) {
    const R v = f(j);
    s.count += R(1);
    const R d = v - s.mean;
    s.mean += d / s.count;
    s.m2 += d * (v - s.mean);
  }
  return block_reduce(s, WelfordOp{});
#endif
}

// ---- The grid over elements and columns -------------------------------------------------------

// f(i) for every i in [0, n), over the whole grid: grid-stride on the GPU; under the emulation each
// thread takes a contiguous share, in order.
template <typename F>
__device__ __forceinline__ void for_each_index(long long n, const F& f) {
  const long long threads = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
#ifdef OPGEN_HOST_FORM
  const long long per = (n + threads - 1) / threads, begin = t * per, end = begin + per < n ? begin + per : n;
  for (long long i = begin; i < end; ++i) f(i);
#else
  for (long long i = t; i < n; i += threads) f(i);
#endif
}

// Per-column sums of pair terms f(r, c) (float2 into float partials, or double2 into double ones)
// of a [rows, width] matrix, in split parts: block (blockIdx.x, blockIdx.y) adds the rows of split
// blockIdx.y (gridDim.y near-equal shares) for the columns [blockIdx.x·tile, +tile), into
// partials[(2·split)·width + c] (.x) and partials[(2·split + 1)·width + c] (.y); column_total adds
// a column's splits in order. Launch a grid of [ceildiv(width, tile), splits]: the GPU wants tile =
// 32 (a warp's lanes take adjacent columns, the warps stride the rows), the emulation one tile of
// the whole width (thread 0 walks its rows in order, each row's columns vectorised).
template <typename F, typename A>
__device__ __forceinline__ void column_sums2(const F& f, A* __restrict__ partials, long long rows, long long width,
                                             long long tile) {
  using P = typename strip_cvref<decltype(f(0LL, 0LL))>::type;
  static_assert(same_type<P, pair_t<A>>::value,
                "opgen::column_sums2: f's pair type must match the partials (float2 terms into float partials, "
                "double2 into double): other terms would be narrowed or summed in the wrong precision");
  const long long splits = gridDim.y, per = (rows + splits - 1) / splits;
  const long long r0 = blockIdx.y * per, r1 = r0 + per < rows ? r0 + per : rows;
  const long long c0 = blockIdx.x * tile, c1 = c0 + tile < width ? c0 + tile : width;
  A* __restrict__ pa = partials + 2 * blockIdx.y * width;
  A* __restrict__ pb = pa + width;
#ifdef OPGEN_HOST_FORM
  if (threadIdx.x != 0) return;
  for (long long c = c0; c < c1; ++c) pa[c] = pb[c] = A(0);
  for (long long r = r0; r < r1; ++r) {
    long long c = c0;
    for (; c + kHostRun <= c1; c += kHostRun) {
      P v[kHostRun];
#pragma GCC unroll 8
      for (int q = 0; q < kHostRun; ++q) v[q] = f(r, c + q);
#pragma GCC unroll 8
      for (int q = 0; q < kHostRun; ++q) pa[c + q] += v[q].x, pb[c + q] += v[q].y;
    }
    for (; c < c1; ++c) {
      const P v = f(r, c);
      pa[c] += v.x, pb[c] += v.y;
    }
  }
#else
  // Only the block's whole warps take rows: warp w walks rows w, w + warps, ... of every column of a
  // pass, so a column needs all `warps` of them, and a partial last warp (blockDim.x not a multiple
  // of 32) lacks some lanes' columns; its threads only meet the barriers. A block under 32 threads
  // is one warp of blockDim.x lanes.
  __shared__ P tile_sums[32][33];  // [warp][lane], padded against bank conflicts
  const int lanes = blockDim.x < 32 ? static_cast<int>(blockDim.x) : 32;  // columns per pass
  const int lane = threadIdx.x % lanes, warp = threadIdx.x / lanes, warps = blockDim.x / lanes;
  for (long long base = c0; base < c1; base += lanes) {
    const long long c = base + lane;
    P s = make_pair(A(0), A(0));
    if (warp < warps && c < c1) {
      for (long long r = r0 + warp; r < r1; r += warps) {
        const P v = f(r, c);
        s.x += v.x, s.y += v.y;
      }
      tile_sums[warp][lane] = s;
    }
    __syncthreads();
    if (warp == 0 && c < c1) {
      for (int w = 1; w < warps; ++w) s.x += tile_sums[w][lane].x, s.y += tile_sums[w][lane].y;
      pa[c] = s.x, pb[c] = s.y;
    }
    __syncthreads();  // tile_sums is written again for the next 32 columns
  }
#endif
}

template <typename A>
__device__ __forceinline__ pair_t<A> column_total(const A* __restrict__ partials, long long splits, long long width,
                                                  long long c) {
  pair_t<A> t = make_pair(A(0), A(0));
  for (long long s = 0; s < splits; ++s) t.x += partials[2 * s * width + c], t.y += partials[(2 * s + 1) * width + c];
  return t;
}

#undef OPGEN_SCALAR_RESULT
#undef OPGEN_STORES_EXACTLY

}  // namespace opgen
#line 1 "codegen/templates/kernels/_matmul.cuh"
// ---- opgen::matmul_tile / opgen::matmul_grid / opgen::matmul_tile_groups: a tiled matrix product for
// kernel authors
// (docs/specs.md, "Writing kernels": the matrix-product building block; tests/test_matmul_block.py).
// Include it in a kernel template with a Jinja include of "kernels/_matmul.cuh" after the one of
// "kernels/_common.cuh" (whose acc_t, to_acc and from_acc it uses; that file has no include guard,
// so this one does not include it). No Jinja syntax below: the text is rendered as a template.
//
// C[m, n] = op(A)[m, k]·op(B)[k, n], or C += op(A)·op(B) with `accumulate` (beta 1). Operands are
// row-major matrices in global memory with leading dimensions: A is stored [m, k] (lda ≥ k), or
// [k, m] with its trans flag (lda ≥ m); B is stored [k, n] (ldb ≥ n), or [n, k] with trans (ldb ≥ k);
// C is [m, n] (ldc ≥ n) and must not overlap A or B. The products are summed in acc_t<T> (float for
// float16, bfloat16 and float; double for double), the old C (accumulate) is added to the sum in
// acc_t<T>, and the result is rounded once to T (from_acc: nearest even). With k = 0, C becomes 0,
// or stays as it is, bit for bit, with accumulate.
//
// matmul_tile<Tiles>(...) computes one BM×BN tile of C, rows [tile_row·BM, +BM) and columns
// [tile_col·BN, +BN) (clipped to m and n; a tile outside C does nothing): the caller maps tiles (or
// rows of a batch) to blocks as it likes. matmul_grid<Tiles>(...) computes all of C, the grid's
// blocks (all three grid dimensions, linearised) taking tiles in turn; launch
// ceildiv(m, BM)·ceildiv(n, BN) blocks for one tile each. Every thread of the block must make the
// call, with the same arguments (the GPU form has barriers), and may make it again right away.
// matmul_tile_groups<Tiles, G>(...) computes that tile of up to G products sharing op(A) (below);
// tile_any_row and for_each_tile_cell help a kernel work on the tile's cells afterwards (at the end).
//
// The two forms (both run on the emulation; OPGEN_GPU_FORM selects the GPU's, as in _common.cuh):
// * GPU form (NVRTC, and the emulation with OPGEN_GPU_FORM): 1-D blocks of exactly
//   Tiles::kThreads threads ((BM/TM)·(BN/TN): 256 for the default 64×64 tile with 4×4 per thread;
//   another size traps). Per BK-deep step, the block stages op(A)'s BM×BK and op(B)'s BK×BN panels
//   in shared memory (as acc_t<T>, at most 48 KiB: a static_assert), then each thread adds TM×TN
//   products into registers. Each element of C is summed in order, p = 0, 1, ..., k−1. A GPU fuses
//   each step into an FMA: the same values for 16-bit operands (their products are exact in float),
//   a rounding less per step for float and double.
// * host form (the cpu backend): 1-D blocks of any size (1 is fastest: every thread is a fiber);
//   no shared memory. The block's threads take groups of the tile's rows (of C, or of Cᵀ for
//   Aᵀ·Bᵀ) round robin, and compute them in register blocks of GCC vectors of kHostRun = 8 values
//   of acc_t, so the loops stay in vector registers (AVX2, or SSE on the baseline build):
//   - op(A)·op(B)ᵀ with both k-contiguous (A not transposed, B transposed: h·Rᵀ): dot products,
//     the k-loop innermost over both rows, 2 rows × 4 columns at a time, in 8 partial sums each:
//     s_q adds the p ≡ q (mod 8) below 8·⌊k/8⌋ in order, the rest are added to s_0 in order, and
//     the element is ((s0 + s4) + (s2 + s6)) + ((s1 + s5) + (s3 + s7)) (_common.cuh's host_reduce);
//   - every other layout: 4 rows × a run of 16 (AVX2 floats) or 8 columns of C (of Cᵀ for Aᵀ·Bᵀ)
//     at a time, p = 0, 1, ..., k−1 in order (the GPU form's order), each step reading a row of
//     op(B) (of op(A)ᵀ) contiguously (copied into a contiguous stack buffer first, a piece of k at
//     a time, where those rows lie a multiple of 1 KiB apart); a tile's last columns one at a time.
//   The host form uses about 10 KiB of a fiber's stack (OPGEN_HOST_STACK_KB, 64 by default).
// Error (any order, either form): |sum − exact| ≤ γ_k·Σ_p |a_ip||b_pj| with γ_k = k·u/(1 − k·u), u
// the unit roundoff of acc_t<T> (2⁻²⁴ float, 2⁻⁵³ double); γ_(k+1)·(Σ_p |a_ip||b_pj| + |c_ij|) with
// accumulate. Then one rounding to T (relative 2⁻¹¹ float16, 2⁻⁸ bfloat16, 2⁻²⁴ float, none for
// double). On the emulation (built with -ffp-contract=off) both forms give the same bits wherever
// their orders are the same.
#ifndef OPGEN_MATMUL_CUH
#define OPGEN_MATMUL_CUH
namespace opgen {

// An input operand: the matrix op(X), element (r, p) read from X's storage.
template <typename T>
struct MatrixIn {
  const T* data;
  long long ld;  // X's leading dimension (its row length in memory)
  bool trans;    // op(X) = Xᵀ
  __device__ __forceinline__ T at(long long r, long long p) const {
    return trans ? data[p * ld + r] : data[r * ld + p];
  }
  __device__ __forceinline__ MatrixIn transposed() const { return MatrixIn{data, ld, !trans}; }
};
template <typename T>
struct MatrixOut {
  T* data;
  long long ld;
};
template <typename T>
__device__ __forceinline__ MatrixIn<T> matrix_in(const T* data, long long ld, bool trans = false) {
  return MatrixIn<T>{data, ld, trans};
}
template <typename T>
__device__ __forceinline__ MatrixOut<T> matrix_out(T* data, long long ld) { return MatrixOut<T>{data, ld}; }

// The tile sizes: BM×BN elements of C per tile, BK-deep shared-memory panels and TM×TN elements per
// thread in the GPU form, which runs kThreads threads per block. The host form uses BM and BN only.
template <int BM_ = 64, int BN_ = 64, int BK_ = 16, int TM_ = 4, int TN_ = 4>
struct MatmulTiles {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, TM = TM_, TN = TN_;
  static constexpr int kThreads = (BM / TM) * (BN / TN);
  static_assert(BM > 0 && BN > 0 && BK > 0 && TM > 0 && TN > 0, "opgen::MatmulTiles: sizes must be positive");
  static_assert(BM % TM == 0 && BN % TN == 0, "opgen::MatmulTiles: TM must divide BM and TN divide BN");
  static_assert(kThreads <= 1024, "opgen::MatmulTiles: (BM/TM)·(BN/TN) threads, at most 1024");
  static_assert(TM * TN <= 64, "opgen::MatmulTiles: at most 64 elements of C per thread (registers)");
  static_assert(BM <= 1024 && BN <= 1024, "opgen::MatmulTiles: BM and BN at most 1024");
  // The GPU form's shared memory for element type T: both panels, in acc_t<T>, a padding column each.
  template <typename T>
  __host__ __device__ static constexpr long long shared_bytes() {
    return static_cast<long long>(BK) * (BM + 1 + BN + 1) * static_cast<long long>(sizeof(acc_t<T>));
  }
};

namespace matmul_detail {

template <typename T, typename A>
__device__ __forceinline__ void store_element(T* c, A v, bool accumulate) {
  *c = from_acc<T>(accumulate ? v + to_acc(*c) : v);
}

#ifdef OPGEN_HOST_FORM
// kHostRun values of acc_t as one GCC vector (an AVX2 register for floats, two SSE ones on the
// baseline build): lane-wise arithmetic, so the partial sums keep their order, and g++ keeps them
// whole (an array of 4×8 scalar sums it leaves scalar).
template <typename A>
struct HostRun {
  typedef A type __attribute__((vector_size(kHostRun * sizeof(A))));
};
template <typename A> using host_run_t = typename HostRun<A>::type;
// A vector register's bytes: 32 where the build targets AVX2, 16 on the x86-64 baseline (16 registers
// either way); the axpy blocks size themselves to keep their sums in half of them.
#ifdef __AVX2__
constexpr int kHostRegisterBytes = 32;
#else
constexpr int kHostRegisterBytes = 16;
#endif

// v = L consecutive values as acc_t<T>, where V is acc_t<T> itself (L = 1) or a run (L = kHostRun).
// (An out-parameter: g++ warns that returning a vector wider than the build's registers changes
// the ABI, although every call here is inlined.)
template <typename V, typename T>
__device__ __forceinline__ void load_lanes(V& v, const T* p) {
  using A = acc_t<T>;
  if constexpr (sizeof(V) == sizeof(A)) {
    v = to_acc(*p);
  } else if constexpr (same_type<T, A>::value) {
    memcpy(&v, p, sizeof v);
  } else {
#pragma GCC unroll 8
    for (int q = 0; q < kHostRun; ++q) v[q] = to_acc(p[q]);
  }
}

// ((s0 + s4) + (s2 + s6)) + ((s1 + s5) + (s3 + s7)) of a run's lanes s_q: host_reduce's pairwise
// order, computed by halving the vector (4 lanes, then 2, then 1).
template <typename V>
__device__ __forceinline__ auto host_run_sum(const V& v) {
  typedef decltype(v[0] + v[0]) A;
  static_assert(sizeof(V) == 8 * sizeof(A), "opgen::matmul: host_run_sum takes runs of 8 lanes");
  typedef A V4 __attribute__((vector_size(4 * sizeof(A))));
  V4 lo, hi;
  memcpy(&lo, &v, sizeof lo);
  memcpy(&hi, reinterpret_cast<const char*>(&v) + sizeof lo, sizeof hi);
  const V4 h = lo + hi;
  return (h[0] + h[2]) + (h[1] + h[3]);
}

// out[r][s] = Σ_p x_r[p]·y_s[p] for RI rows x_r = x + r·ldx and RJ rows y_s = y + s·ldy (both
// k-contiguous), each in the kHostRun partial sums of the header's dot-product order (that of
// _common.cuh's host_reduce); every load serves RI or RJ of the RI·RJ vector sums. Out of line: its
// loop needs 8 vector and 9 integer registers, and inlined into the kernel beside the other forms
// g++ spilled one of them inside the loop (A·Bᵀ 0.29 -> 0.33 ms, bench/bench_matmul_block.py).
template <int RI, int RJ, typename T, typename A>
__device__ __attribute__((noinline)) void host_dots(long long k, const T* x, long long ldx, const T* y, long long ldy,
                                          A (&out)[RI][RJ]) {
  using V = host_run_t<A>;
  V run[RI][RJ];
  for (int r = 0; r < RI; ++r) {
    for (int s = 0; s < RJ; ++s) run[r][s] = V{};
  }
  long long p = 0;
  for (; p + kHostRun <= k; p += kHostRun) {
    V xv[RI];
#pragma GCC unroll 4
    for (int r = 0; r < RI; ++r) load_lanes(xv[r], x + r * ldx + p);
#pragma GCC unroll 4
    for (int s = 0; s < RJ; ++s) {
      V yv;
      load_lanes(yv, y + s * ldy + p);
#pragma GCC unroll 4
      for (int r = 0; r < RI; ++r) run[r][s] += xv[r] * yv;
    }
  }
  for (int r = 0; r < RI; ++r) {
    for (int s = 0; s < RJ; ++s) {
      for (long long e = p; e < k; ++e) run[r][s][0] += to_acc(x[r * ldx + e]) * to_acc(y[s * ldy + e]);
      out[r][s] = host_run_sum(run[r][s]);
    }
  }
}

// acc[r][v] += Σ_p x[r·x_row + p·x_step]·y[p·ldy + v·L + l] for RI rows and NV runs of L lanes
// (V: L lanes of acc_t<T>), p = 0 … k−1 in order, each step reading NV·L consecutive elements of
// y's row p.
template <int RI, int NV, typename V, typename T>
__device__ __forceinline__ void host_axpy_block(long long k, const T* x, long long x_row, long long x_step, const T* y,
                                                long long ldy, V (&acc)[RI][NV]) {
  using A = acc_t<T>;
  constexpr int L = static_cast<int>(sizeof(V) / sizeof(A));
  for (long long p = 0; p < k; ++p) {
    V yv[NV];
    for (int v = 0; v < NV; ++v) load_lanes(yv[v], y + p * ldy + v * L);
#pragma GCC unroll 4
    for (int r = 0; r < RI; ++r) {
      const A xv = to_acc(x[r * x_row + p * x_step]);
      for (int v = 0; v < NV; ++v) acc[r][v] += xv * yv[v];
    }
  }
}

// c[l·c_col] = lane l of v, rounded to T (added to C's value first with accumulate).
template <typename V, typename T>
__device__ __forceinline__ void store_lanes(T* c, long long c_col, const V& v, bool accumulate) {
  using A = acc_t<T>;
  A lanes[sizeof(V) / sizeof(A)];
  memcpy(lanes, &v, sizeof lanes);
  for (int l = 0; l < static_cast<int>(sizeof(V) / sizeof(A)); ++l) store_element(c + l * c_col, lanes[l], accumulate);
}

// The rows of a register block, as a type: a host form's loops pass Rows<G> or Rows<1>.
template <int N> struct Rows { static constexpr int value = N; };

// f(Rows<G>{}, r) for each whole group of G rows [r, r + G) of [first, n), step `stride` between
// groups, then f(Rows<1>{}, r) for each row of a last partial group.
template <int G, typename F>
__device__ __forceinline__ void host_row_groups_from(long long first, long long stride, long long n, const F& f) {
  for (long long r = first; r < n; r += stride) {
    if (r + G <= n) {
      f(Rows<G>{}, r);
    } else {
      for (long long e = r; e < n; ++e) f(Rows<1>{}, e);
    }
  }
}
// The groups of [0, n) the calling thread takes (round robin over the block's threads) / all of them.
template <int G, typename F>
__device__ __forceinline__ void host_row_groups(long long n, const F& f) {
  host_row_groups_from<G>(threadIdx.x * static_cast<long long>(G), static_cast<long long>(blockDim.x) * G, n, f);
}
template <int G, typename F>
__device__ __forceinline__ void host_row_groups_of(long long n, const F& f) {
  host_row_groups_from<G>(0, G, n, f);
}

// Columns [0, NV·L) of every output row r < out_rows (x, y and c at the first row and column), in
// batches of kPackRows rows, each in register blocks of 4 rows over pieces of kPackDepth k-steps (the
// sums carry over from piece to piece, so p stays in order). Where y's rows lie a multiple of 1 KiB
// apart, they fall into a few cache sets and do not stay in L1 between register blocks: each piece
// of y's stripe is then first copied into a contiguous buffer (a BLAS's packing), which they share.
// Uses about 10 KiB of the fiber's stack.
template <int NV, typename V, typename T>
__device__ __forceinline__ void host_axpy_columns(long long k, long long out_rows, const T* x, long long x_row,
                                                  long long x_step, const T* y, long long ldy, T* c, long long c_row,
                                                  long long c_col, bool accumulate) {
  constexpr int L = static_cast<int>(sizeof(V) / sizeof(acc_t<T>)), W = NV * L;
  constexpr int kPackRows = 32;
  constexpr long long kPackDepth = 8192 / (W * static_cast<long long>(sizeof(T)));
  const bool packed = ldy * static_cast<long long>(sizeof(T)) % 1024 == 0;
  T pack[kPackDepth * W];
  V sums[kPackRows][NV];
  for (long long r0 = threadIdx.x * static_cast<long long>(kPackRows); r0 < out_rows;
       r0 += static_cast<long long>(blockDim.x) * kPackRows) {
    const long long rows = out_rows - r0 < kPackRows ? out_rows - r0 : kPackRows;
    for (long long p0 = 0; p0 == 0 || p0 < k; p0 += kPackDepth) {
      const long long depth = k - p0 < kPackDepth ? k - p0 : kPackDepth;
      if (packed) {
        for (long long p = 0; p < depth; ++p) memcpy(pack + p * W, y + (p0 + p) * ldy, W * sizeof(T));
      }
      const T* ys = packed ? pack : y + p0 * ldy;
      const long long lds = packed ? W : ldy;
      const bool last = p0 + kPackDepth >= k;
      host_row_groups_of<4>(rows, [&](auto group, long long r) {
        constexpr int RI = decltype(group)::value;
        V acc[RI][NV];
        for (int e = 0; e < RI; ++e) {
          for (int v = 0; v < NV; ++v) acc[e][v] = p0 == 0 ? V{} : sums[r + e][v];
        }
        host_axpy_block(depth, x + (r0 + r) * x_row + p0 * x_step, x_row, x_step, ys, lds, acc);
        for (int e = 0; e < RI; ++e) {
          for (int v = 0; v < NV; ++v) {
            if (last) store_lanes(c + (r0 + r + e) * c_row + v * L * c_col, c_col, acc[e][v], accumulate);
            else sums[r + e][v] = acc[e][v];
          }
        }
      });
    }
  }
}

// The host form's tile when op(A)'s and op(B)ᵀ's rows are both k-contiguous (A·Bᵀ): C's rows
// [i0, i0 + rows) × columns [j0, j0 + cols) as dot products, register blocks of 2 rows × 4 columns.
template <typename T>
__device__ __forceinline__ void host_dot_tile(long long k, MatrixIn<T> xa, MatrixIn<T> xb, T* c_tile, long long ldc,
                                              long long rows, long long cols, bool accumulate) {
  using A = acc_t<T>;
  constexpr int kDots = 4;
  host_row_groups<2>(rows, [=](auto group, long long i) {
    constexpr int RI = decltype(group)::value;
    const T* x = xa.data + i * xa.ld;
    long long j = 0;
    for (; j + kDots <= cols; j += kDots) {
      A out[RI][kDots];
      host_dots(k, x, xa.ld, xb.data + j * xb.ld, xb.ld, out);
      for (int r = 0; r < RI; ++r) {
        for (int s = 0; s < kDots; ++s) store_element(c_tile + (i + r) * ldc + j + s, out[r][s], accumulate);
      }
    }
    for (; j < cols; ++j) {
      A out[RI][1];
      host_dots(k, x, xa.ld, xb.data + j * xb.ld, xb.ld, out);
      for (int r = 0; r < RI; ++r) store_element(c_tile + (i + r) * ldc + j, out[r][0], accumulate);
    }
  });
}

// The host form's tile for every other layout: runs along the side that is contiguous in memory (y):
// C's rows when op(B)'s rows are (B not transposed: y = op(B)), else Cᵀ's rows (Aᵀ·Bᵀ: y = op(A)ᵀ,
// the output rows are C's columns). Register blocks of 4 rows × NV runs (16 floats with AVX2, else
// 8 values), then 4 rows × one run, then the last columns one at a time. x and y start at the
// tile's first row, c_tile at its first element.
template <typename T>
__device__ __forceinline__ void host_axpy_tile(long long k, MatrixIn<T> x, MatrixIn<T> y, T* c_tile, long long c_row,
                                               long long c_col, long long out_rows, long long out_cols,
                                               bool accumulate) {
  using A = acc_t<T>;
  using V = host_run_t<A>;
  // 4 rows × NV runs in 8 registers at most: 2 runs of floats with AVX2, else 1
  constexpr int NV = 4 * 2 * sizeof(V) <= 8 * kHostRegisterBytes ? 2 : 1, W = NV * kHostRun;
  const long long x_row = x.trans ? 1 : x.ld, x_step = x.trans ? x.ld : 1;
  long long q = 0;
  for (; q + W <= out_cols; q += W) {
    host_axpy_columns<NV, V>(k, out_rows, x.data, x_row, x_step, y.data + q, y.ld, c_tile + q * c_col, c_row, c_col,
                             accumulate);
  }
  for (; q + kHostRun <= out_cols; q += kHostRun) {
    host_axpy_columns<1, V>(k, out_rows, x.data, x_row, x_step, y.data + q, y.ld, c_tile + q * c_col, c_row, c_col,
                            accumulate);
  }
  for (; q < out_cols; ++q) {
    host_axpy_columns<1, A>(k, out_rows, x.data, x_row, x_step, y.data + q, y.ld, c_tile + q * c_col, c_row, c_col,
                            accumulate);
  }
}

// The host form of a tile: C's rows [i0, i0 + rows), columns [j0, j0 + cols); xa = op(A), xb = op(B)ᵀ
// (both [·, k], as matrix_in views: trans means contiguous along the tile's side, not along k).
template <typename T>
__device__ __forceinline__ void host_tile(long long k, MatrixIn<T> xa, MatrixIn<T> xb, MatrixOut<T> c, long long i0,
                                          long long rows, long long j0, long long cols, bool accumulate) {
  T* c_tile = c.data + i0 * c.ld + j0;
  // a view's rows from the tile's first one on: `first` rows in (along its contiguous side when trans)
  const auto from = [](MatrixIn<T> v, long long first) {
    return MatrixIn<T>{v.trans ? v.data + first : v.data + first * v.ld, v.ld, v.trans};
  };
  if (!xa.trans && !xb.trans) {
    host_dot_tile(k, from(xa, i0), from(xb, j0), c_tile, c.ld, rows, cols, accumulate);
  } else if (xb.trans) {
    host_axpy_tile(k, from(xa, i0), from(xb, j0), c_tile, c.ld, 1, rows, cols, accumulate);
  } else {  // Aᵀ·Bᵀ: Cᵀ's rows
    host_axpy_tile(k, from(xb, j0), from(xa, i0), c_tile, 1, c.ld, cols, rows, accumulate);
  }
}

#else  // the GPU form

// s[p][r] = x(r0 + r, p0 + p) for r < R, p < BK: zero beyond `rows` and `depth`. Consecutive
// threads read consecutive addresses (along k, or along the rows when x.trans).
template <int R, int BK, int kThreads, typename A, typename T>
__device__ __forceinline__ void load_panel(A (&s)[BK][R + 1], MatrixIn<T> x, long long r0, long long rows, long long p0,
                                           int depth) {
  for (int e = threadIdx.x; e < R * BK; e += kThreads) {
    const int r = x.trans ? e % R : e / BK;
    const int p = x.trans ? e / R : e % BK;
    s[p][r] = r0 + r < rows && p < depth ? to_acc(x.at(r0 + r, p0 + p)) : A(0);
  }
}

// `groups` products sharing op(A) (G ≥ groups, a compile-time bound for the sums' registers): C_g =
// op(A)·op(B_g), B_g's view (as op(B)ᵀ, xb) and C_g's moved by g·b_step and g·c_step elements. Per
// BK-deep step op(A)'s panel is loaded once for every group; each C_g element is summed exactly as
// with one group.
template <typename Tiles, int G, typename T>
__device__ __forceinline__ void gpu_tile(long long k, MatrixIn<T> xa, MatrixIn<T> xb, long long b_step, MatrixOut<T> c,
                                         long long c_step, int groups, long long m, long long n, long long i0,
                                         long long j0, bool accumulate) {
  using A = acc_t<T>;
  constexpr int BM = Tiles::BM, BN = Tiles::BN, BK = Tiles::BK, TM = Tiles::TM, TN = Tiles::TN;
  constexpr int TX = BN / TN, TY = BM / TM;  // threads along a row of the tile / along a column
  static_assert(Tiles::template shared_bytes<T>() + (G - 1) * BK * (BN + 1) * sizeof(A) <= 48 * 1024,
                "opgen::matmul_tile: the GPU form's panels exceed 48 KiB of shared memory (make BK, BM or BN "
                "smaller)");
  static_assert(G * TM * TN <= 64, "opgen::matmul_tile_groups: at most 64 sums per thread (G·TM·TN, registers)");
  if (blockDim.x != static_cast<unsigned>(Tiles::kThreads)) __trap();  // the layout below needs exactly these
  __shared__ A a_panel[BK][BM + 1];  // a_panel[p][i] = op(A)(i0 + i, p0 + p); padded against bank conflicts
  __shared__ A b_panel[G][BK][BN + 1];  // b_panel[g][p][j] = op(B_g)(p0 + p, j0 + j)
  const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;  // rows ty + r·TY, columns tx + s·TX
  A acc[G][TM][TN];
#pragma unroll
  for (int g = 0; g < G; ++g) {
#pragma unroll
    for (int r = 0; r < TM; ++r) {
#pragma unroll
      for (int s = 0; s < TN; ++s) acc[g][r][s] = A(0);
    }
  }
  for (long long p0 = 0; p0 < k; p0 += BK) {
    const int depth = k - p0 < BK ? static_cast<int>(k - p0) : BK;  // int32 ok: at most BK
    load_panel<BM, BK, Tiles::kThreads>(a_panel, xa, i0, m, p0, depth);
#pragma unroll
    for (int g = 0; g < G; ++g) {
      if (g < groups) {
        load_panel<BN, BK, Tiles::kThreads>(b_panel[g], MatrixIn<T>{xb.data + g * b_step, xb.ld, xb.trans}, j0, n,
                                            p0, depth);
      }
    }
    __syncthreads();
    for (int p = 0; p < depth; ++p) {
      A av[TM];
#pragma unroll
      for (int r = 0; r < TM; ++r) av[r] = a_panel[p][ty + r * TY];
#pragma unroll
      for (int g = 0; g < G; ++g) {
        if (g < groups) {
          A bv[TN];
#pragma unroll
          for (int s = 0; s < TN; ++s) bv[s] = b_panel[g][p][tx + s * TX];
#pragma unroll
          for (int r = 0; r < TM; ++r) {
#pragma unroll
            for (int s = 0; s < TN; ++s) acc[g][r][s] += av[r] * bv[s];
          }
        }
      }
    }
    __syncthreads();  // the panels are written again by the next step (or the next call)
  }
#pragma unroll
  for (int g = 0; g < G; ++g) {
    if (g >= groups) continue;
#pragma unroll
    for (int r = 0; r < TM; ++r) {
      const long long i = i0 + ty + r * TY;
#pragma unroll
      for (int s = 0; s < TN; ++s) {
        const long long j = j0 + tx + s * TX;
        if (i < m && j < n) store_element(c.data + g * c_step + i * c.ld + j, acc[g][r][s], accumulate);
      }
    }
  }
}
#endif

}  // namespace matmul_detail

// The same tile of `groups` products that share op(A) (1 ≤ groups ≤ G): C_g = op(A)·op(B_g) (C_g +=
// with accumulate) for g < groups, where B_g is b with its data moved by g·b_step elements and C_g is
// c with its data moved by g·c_step (the same leading dimensions and transposes): an LSTM's four gates,
// say, R's row blocks a gate apart. Each C_g gets exactly matmul_tile's bits (the same sums in the
// same order). The GPU form loads op(A)'s panel once per BK-deep step for all the groups and keeps
// G·TM·TN sums per thread (at most 64: a static_assert), a B panel per group in shared memory; the
// host form computes the groups one after the other.
template <typename Tiles, int G, typename T>
__device__ __forceinline__ void matmul_tile_groups(long long m, long long n, long long k, MatrixIn<T> a,
                                                   MatrixIn<T> b, MatrixOut<T> c, bool accumulate, long long tile_row,
                                                   long long tile_col, int groups, long long b_step,
                                                   long long c_step) {
  static_assert(G >= 1, "opgen::matmul_tile_groups: G ≥ 1");
  const long long i0 = tile_row * Tiles::BM, j0 = tile_col * Tiles::BN;
  if (i0 < 0 || j0 < 0 || i0 >= m || j0 >= n || (accumulate && k <= 0) || groups < 1) return;
  if (groups > G) __trap();  // more products than the sums' registers hold
  const long long depth = k > 0 ? k : 0;
  // op(A) as [m, k] and op(B)ᵀ as [n, k]: both tile panels are then "rows of the tile × k".
  const MatrixIn<T> xa = a, xb = b.transposed();
#ifdef OPGEN_HOST_FORM
  const long long rows = m - i0 < Tiles::BM ? m - i0 : Tiles::BM, cols = n - j0 < Tiles::BN ? n - j0 : Tiles::BN;
  for (int g = 0; g < groups; ++g) {
    const MatrixIn<T> xb_g{xb.data + g * b_step, xb.ld, xb.trans};
    matmul_detail::host_tile(depth, xa, xb_g, MatrixOut<T>{c.data + g * c_step, c.ld}, i0, rows, j0, cols,
                             accumulate);
  }
#else
  matmul_detail::gpu_tile<Tiles, G>(depth, xa, xb, b_step, c, c_step, groups, m, n, i0, j0, accumulate);
#endif
}

// One BM×BN tile of C = op(A)·op(B) (C += with accumulate): see the header comment.
template <typename Tiles, typename T>
__device__ __forceinline__ void matmul_tile(long long m, long long n, long long k, MatrixIn<T> a, MatrixIn<T> b,
                                            MatrixOut<T> c, bool accumulate, long long tile_row, long long tile_col) {
  matmul_tile_groups<Tiles, 1>(m, n, k, a, b, c, accumulate, tile_row, tile_col, 1, 0LL, 0LL);
}

// All of C, the grid's blocks taking its tiles in turn (row-major tile order).
template <typename Tiles, typename T>
__device__ __forceinline__ void matmul_grid(long long m, long long n, long long k, MatrixIn<T> a, MatrixIn<T> b,
                                            MatrixOut<T> c, bool accumulate) {
  if (m <= 0 || n <= 0) return;
  const long long tiles_n = (n + Tiles::BN - 1) / Tiles::BN, tiles = (m + Tiles::BM - 1) / Tiles::BM * tiles_n;
  const long long blocks = static_cast<long long>(gridDim.x) * static_cast<long long>(gridDim.y) * gridDim.z;
  const long long block =
      blockIdx.x + static_cast<long long>(gridDim.x) * (blockIdx.y + static_cast<long long>(gridDim.y) * blockIdx.z);
  for (long long t = block; t < tiles; t += blocks) {
    matmul_tile<Tiles>(m, n, k, a, b, c, accumulate, t / tiles_n, t % tiles_n);
  }
}

// ---- a fused epilogue: elementwise work on the tile a block's matmul_tile (or _groups) just wrote,
// after a __syncthreads(), so that the product never makes a round trip through another kernel (the
// RNNs' fused steps).

// Whether tile (tile_row, tile_col) lies outside C [m, n] (a grid sized with room to spare): such a
// block returns before its first barrier, as a whole.
template <typename Tiles>
__device__ __forceinline__ bool tile_outside(long long m, long long n, long long tile_row, long long tile_col) {
  return tile_row * Tiles::BM >= m || tile_col * Tiles::BN >= n;
}

// Whether pred(i) holds for any row i of tile `tile_row` (rows [tile_row·BM, +BM) clipped to m):
// every thread gets the same answer, so a block can skip its product together, barriers intact.
template <typename Tiles, typename P>
__device__ __forceinline__ bool tile_any_row(long long m, long long tile_row, const P& pred) {
  bool any = false;
  for (long long i = tile_row * Tiles::BM; i < m && i < (tile_row + 1) * Tiles::BM; ++i) any = any || pred(i);
  return any;
}

// f(i, j_begin, j_end) over the cells of tile (tile_row, tile_col), clipped to m × n: in the host form
// thread 0 takes each row whole (the block's other threads none: a fiber per thread costs more than a
// row), on the GPU each cell goes to a thread of its own (j_end = j_begin + 1), consecutive threads
// on consecutive columns.
template <typename Tiles, typename F>
__device__ __forceinline__ void for_each_tile_cell(long long m, long long n, long long tile_row, long long tile_col,
                                                   const F& f) {
  const long long i0 = tile_row * Tiles::BM, j0 = tile_col * Tiles::BN;
  const long long rows = m - i0 < Tiles::BM ? m - i0 : Tiles::BM, cols = n - j0 < Tiles::BN ? n - j0 : Tiles::BN;
  if (rows <= 0 || cols <= 0) return;
#ifdef OPGEN_HOST_FORM
  if (threadIdx.x != 0) return;
  for (long long r = 0; r < rows; ++r) f(i0 + r, j0, j0 + cols);
#else
  const int n_rows = static_cast<int>(rows), n_cols = static_cast<int>(cols);  // int32 ok: at most 1024 each
  for (int e = threadIdx.x; e < n_rows * n_cols; e += blockDim.x) {  // (a 32-bit division: no runtime call)
    const int r = e / n_cols;
    const long long j = j0 + (e - r * n_cols);
    f(i0 + r, j, j + 1);
  }
#endif
}

// dst = srcᵀ: src [rows, cols] (row-major) into dst [cols, rows], a row of dst per index over the grid: a
// product that would read its B transposed reads this copy as stored (the RNN cpu plans' copies of R:
// OpenBLAS's untransposed kernels are the faster ones there, bench/RESULTS.md 2026-11-30).
template <typename T>
__device__ __forceinline__ void transpose_into(const T* __restrict__ src, T* __restrict__ dst, long long rows,
                                               long long cols) {
  for_each_index(cols, [&](long long k) {
    for (long long g = 0; g < rows; ++g) dst[k * rows + g] = src[g * cols + k];
  });
}

}  // namespace opgen
#endif  // OPGEN_MATMUL_CUH
#line 1 "codegen/templates/kernels/_activations.cuh"
// ---- the activation library, generated from codegen/_vocab/activations.yaml (edit the
// vocab, not this). Include it in any kernel template with a Jinja include of
// "kernels/_activations.cuh" (ops with an activation attr get it automatically). It gives, in
// namespace opgen::act, one float function per activation (opgen::act::tanh(x),
// opgen::act::leaky_relu(x, alpha), ...), its id (opgen::act::kTanh, ...) and
// opgen::act::Activation: an id and its parameters, callable as f(x), which is what a kernel
// receives for an activation argument.
#ifndef OPGEN_ACTIVATIONS_CUH
#define OPGEN_ACTIVATIONS_CUH
#line 1 "codegen/templates/kernels/_vmath.cuh"
// ---- opgen::vm, the vector math library: exp, expm1, log, log1p, tanh, sigmoid and erf for
// kernel authors, each with an error bound in ulps (docs/specs.md, "Writing kernels": the table;
// tests/test_vector_math.py sweeps them; scripts/ulp_table.py prints what they reach). Include it
// in a kernel template with a Jinja include of "kernels/_vmath.cuh" (the activation library
// includes it). Every function has three forms:
//   vm::exp(x)        one float: CUDA's own function (expf, ...), which the emulation maps to the C
//                     library's (per value the fastest there);
//   vm::exp_run(v)    every element of a float array v[R], in place (a run of a row: the host
//                     form computes kLanes at a time in vector registers);
//   vm::exp(vf)       (host form only) a GCC vector of vm::kLanes floats: the code below, no branch per
//                     lane (exp's one branch is on the whole vector).
// vm::load(p)/vm::store(p, v) move kLanes floats, float16 or bfloat16 values between memory and a
// vf (16-bit ones converted exactly as opgen::to_float/from_float). The host form (the emulation's
// cpu build) keeps the vector code in SSE registers at the x86-64 baseline and in AVX registers
// where the build targets AVX2; the GPU form (NVRTC, and the emulation with OPGEN_GPU_FORM) has
// the scalar and run forms only. Both forms of a function are within its bound in ulps, but a
// run's value and a single call's may differ by those ulps.
//
// Special values are exact in every form: e^−∞ = 0, e^+∞ = +∞, e^x overflows to +∞ and reaches
// the subnormals, ln 0 = −∞, ln of a negative = NaN, log1p(−1) = −∞, tanh ±∞ = ±1, erf ±∞ = ±1,
// sigmoid(−∞) = 0, f(±0) = ±0 for expm1, log1p, tanh and erf, NaN in gives NaN out.
#ifndef OPGEN_VMATH_CUH
#define OPGEN_VMATH_CUH
#include <cuda_fp16.h>  // vm::load/vm::store take __half and __nv_bfloat16 runs
#include <cuda_bf16.h>
namespace opgen {
namespace vm {

#if defined(OPGEN_HOST_EMU) && !defined(OPGEN_GPU_FORM)
#define OPGEN_VM_HOST 1
#endif

#ifdef OPGEN_VM_HOST
// As wide as the build's vector registers: g++ splits a wider generic vector, and at the SSE2
// baseline its compares and selects would go lane by lane.
#ifdef __AVX2__
constexpr int kLanes = 8;
#else
constexpr int kLanes = 4;
#endif
typedef float vf __attribute__((vector_size(kLanes * sizeof(float))));
typedef int vi __attribute__((vector_size(kLanes * sizeof(int))));
typedef unsigned vu __attribute__((vector_size(kLanes * sizeof(unsigned))));

// The functions below are templates on the vector type V; I and U are the integer vectors of its
// lanes.
namespace detail {
template <typename V>
struct Lanes {
  typedef int I __attribute__((vector_size(sizeof(V))));
  typedef unsigned U __attribute__((vector_size(sizeof(V))));
};
template <typename V> using I = typename Lanes<V>::I;
template <typename V> using U = typename Lanes<V>::U;

template <typename V> __device__ __forceinline__ V splat(float c) { return c - V{}; }  // c − (+0) is c, −0 too
template <typename V> __device__ __forceinline__ I<V> bits(V v) { return reinterpret_cast<I<V>>(v); }
template <typename V> __device__ __forceinline__ V from_bits(I<V> b) { return reinterpret_cast<V>(b); }
template <typename V> __device__ __forceinline__ V abs(V v) { return from_bits<V>(bits(v) & 0x7fffffff); }
template <typename V> __device__ __forceinline__ V copysign(V magnitude, V sign) {
  return from_bits<V>(bits(magnitude) | (bits(sign) & (-0x7fffffff - 1)));
}
// NaN stays. On x86 one minps/maxps (its unordered case returns the second operand, v), which g++
// does not make of the select: the same bits (the bounds are never ±0).
template <typename V> __device__ __forceinline__ V min(V v, float hi) {
#ifdef __AVX__
  if constexpr (sizeof(V) == 32) return __builtin_ia32_minps256(splat<V>(hi), v);
#endif
#ifdef __SSE__
  if constexpr (sizeof(V) == 16) return __builtin_ia32_minps(splat<V>(hi), v);
#endif
  return v > hi ? splat<V>(hi) : v;
}
template <typename V> __device__ __forceinline__ V max(V v, float lo) {
#ifdef __AVX__
  if constexpr (sizeof(V) == 32) return __builtin_ia32_maxps256(splat<V>(lo), v);
#endif
#ifdef __SSE__
  if constexpr (sizeof(V) == 16) return __builtin_ia32_maxps(splat<V>(lo), v);
#endif
  return v < lo ? splat<V>(lo) : v;
}
// Whether every lane of a compare's mask is true (one movmskps on x86).
template <typename V> __device__ __forceinline__ bool all(I<V> mask) {
#ifdef __AVX__
  if constexpr (sizeof(V) == 32) return __builtin_ia32_movmskps256(reinterpret_cast<V>(mask)) == 0xff;
#endif
#ifdef __SSE__
  if constexpr (sizeof(V) == 16) return __builtin_ia32_movmskps(reinterpret_cast<V>(mask)) == 0xf;
#endif
  for (unsigned q = 0; q < sizeof(V) / sizeof(float); ++q) {
    if (!mask[q]) return false;
  }
  return true;
}
// 2^k for −126 ≤ k ≤ 127 (unsigned: the shift of a NaN's garbage exponent is defined too).
template <typename V> __device__ __forceinline__ V pow2(I<V> k) {
  return from_bits<V>(reinterpret_cast<I<V>>(reinterpret_cast<U<V>>(k + 127) << 23));
}

// x = n·ln 2 + r, |r| ≤ ln 2 / 2, for |x| < 2^22: n rounded by the 1.5·2^23 shifter and read from
// its bits (no float-to-int conversion, so a NaN lane is harmless); ln 2 in two parts (Cody and
// Waite), n·0.693359375 exact for |n| < 2^15.
template <typename V>
struct Ln2Split {
  V r;
  I<V> n;
};
template <typename V> __device__ __forceinline__ Ln2Split<V> split_ln2(V x) {
  const V t = x * 1.44269504088896341f + 12582912.f;
  const V n = t - 12582912.f;
  return {(x - n * 0.693359375f) - n * -2.12194440e-4f, bits(t) - 0x4B400000};
}

// e^r − 1 for |r| ≤ ln 2 / 2: r + r²·P(r), Cephes' expf polynomial.
template <typename V> __device__ __forceinline__ V expm1_reduced(V r) {
  const V p = ((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r + 4.1665795894e-2f) * r +
               1.6666665459e-1f) * r + 5.0000001201e-1f;
  return p * (r * r) + r;
}

// ln(2^k·(1 + f)) + c for f in [√½ − 1, √2 − 1] (c: a small correction, log1p's): FreeBSD's logf
// kernel, s = f/(2 + f), ln(1 + f) = f − f²/2 + s·(f²/2 + R(s²)), R within 2^−34 of its series.
template <typename V> __device__ __forceinline__ V log_kernel(V f, V k, V c) {
  const V s = f / (2.f + f), z = s * s, w = z * z;
  const V r = z * (0.66666662693f + w * 0.28498786688f) + w * (0.40000972152f + w * 0.24279078841f);
  const V hfsq = 0.5f * f * f;
  return (((s * (hfsq + r) + (k * 9.0580006145e-06f + c)) - hfsq) + f) + k * 6.9313812256e-01f;
}

// u = 2^k·m, m in [√½, √2) (u positive and normal): k and m.
template <typename V>
struct Mantissa {
  I<V> k;
  V m;
};
template <typename V> __device__ __forceinline__ Mantissa<V> split_mantissa(V u) {
  const I<V> b = bits(u) + (0x3f800000 - 0x3f3504f3);  // m ≥ √2 moves into the next binade
  return {(b >> 23) - 127, from_bits<V>((b & 0x007fffff) + 0x3f3504f3)};
}

// e^x for every lane in [kExpNormalLo, kExpNormalHi], where 2^n is a normal float (−126 ≤ n ≤ 127):
// no clamp and one factor 2^n. The same bits as exp's general path there: the clamp changes nothing, and
// p·2^n and (p·2^k1)·2^k2 are both one rounding of the same exact product.
constexpr float kExpNormalLo = -87.f, kExpNormalHi = 88.f;
template <typename V> __device__ __forceinline__ V exp_normal(V x) {
  const Ln2Split<V> s = split_ln2(x);
  return (expm1_reduced(s.r) + 1.f) * pow2<V>(s.n);
}

// e^x. In general x is clamped to [−104, 89] (e^−104 rounds to 0, e^89 overflows) and 2^n applied as
// two normal factors, so subnormal results are rounded once from an exact product; where every lane
// is in exp_normal's range (a NaN is not) that shorter path gives the same bits.
template <typename V> __device__ __forceinline__ V exp(V x) {
  if (all<V>((x >= kExpNormalLo) & (x <= kExpNormalHi))) return exp_normal(x);
  const Ln2Split<V> s = split_ln2(max(min(x, 89.f), -104.f));
  const I<V> k1 = s.n >> 1, k2 = s.n - k1;
  return (expm1_reduced(s.r) + 1.f) * pow2<V>(k1) * pow2<V>(k2);
}

// e^x − 1 = 2·(2^(n−1)·(e^r − 1) + (2^(n−1) − ½)): no cancellation near 0, and 2^(n−1) stays a
// normal float for x in [−30, 89] (below −17.4 the result rounds to −1 anyway).
template <typename V> __device__ __forceinline__ V expm1(V x) {
  const Ln2Split<V> s = split_ln2(max(min(x, 89.f), -30.f));
  const V t = pow2<V>(s.n - 1);
  const V y = (t * expm1_reduced(s.r) + (t - 0.5f)) * 2.f;
  return abs(x) < 0x1p-25f ? x : y;  // ±0, subnormals and tiny x: e^x − 1 rounds to x
}

template <typename V> __device__ __forceinline__ V log(V x) {
  const I<V> tiny = x < 0x1p-126f;
  const Mantissa<V> u = split_mantissa(tiny ? x * 0x1p25f : x);  // subnormals scaled into the normals
  const V k = __builtin_convertvector(u.k - (tiny & 25), V);
  const V y = log_kernel(u.m - 1.f, k, V{});
  const V special = x == 0.f ? splat<V>(-__builtin_inff()) : (x < 0.f ? splat<V>(__builtin_nanf("")) : x);
  return (x > 0.f) & (x < __builtin_inff()) ? y : special;  // special: ±0, negatives, +∞, NaN
}

// ln(1 + x): u = 1 + x rounded, and the part of 1 + x that u lost, over u, corrects ln u (FreeBSD's
// log1pf); where 1 + x lies in [√½, √2) the kernel takes f = x itself.
template <typename V> __device__ __forceinline__ V log1p(V x) {
  const V u = 1.f + x;
  const Mantissa<V> s = split_mantissa(u);
  const I<V> k0 = s.k == 0;
  const V lost = (s.k >= 2 ? 1.f - (u - x) : x - (u - 1.f)) / u;
  const V y = log_kernel(k0 ? x : s.m - 1.f, __builtin_convertvector(s.k, V), k0 ? V{} : lost);
  const V special = x == -1.f ? splat<V>(-__builtin_inff()) : (x < -1.f ? splat<V>(__builtin_nanf("")) : x);
  const V r = (x > -1.f) & (x < __builtin_inff()) ? y : special;  // special: ≤ −1, +∞, NaN
  return abs(x) < 0x1p-24f ? x : r;                                 // ±0 and tiny x: x
}

// erf x: x + x·P(x²) for |x| < 0.921875; 1 − e^G(|x|) above, G a fit of ln erfc on [0.921875,
// 3.9375] (erf rounds to 1 beyond); both least-squares fits in float64 (tests/test_vector_math.py
// gives the bound they reach).
template <typename V> __device__ __forceinline__ V erf(V x) {
  const V a = abs(x), t = a * a;
  const V p = (((((8.438768418272957e-05f * t - 0.0008160783909261227f) * t + 0.005202835891395807f) * t -
                 0.02686024084687233f) * t + 0.11283713579177856f) * t - 0.37612634897232056f) * t +
              0.12837916612625122f;
  const V b = min(a, 3.9375f);
  const V g = (((((((-3.248211442041793e-07f * b - 1.6966108887572773e-05f) * b + 0.00041200072155334055f) * b -
                    0.004102726466953754f) * b + 0.024992188438773155f) * b - 0.1081315204501152f) * b -
                 0.6334532499313354f) * b - 1.129472255706787f) * b + 0.00016732893709558994f;
  return copysign(a < 0.921875f ? a + a * p : 1.f - exp(g), x);
}
}  // namespace detail

// Runs of storage values as a vector of floats and back (host form): vm::load(p) reads kLanes
// consecutive floats, float16 or bfloat16 values, vm::store(p, v) writes them rounded as
// opgen::from_float does (kernels/_common.cuh: to nearest even, NaN as 0x7FFF), bit for bit: the
// same branch-free bit arithmetic on every lane (tests/test_vector_math.py compares them).
typedef unsigned short vh __attribute__((vector_size(kLanes * sizeof(unsigned short))));
namespace detail {
__device__ __forceinline__ vf half_to_float(vu h) {
  const vu w = h << 16, sign = w & 0x80000000u, two_w = w + w;
  const vf normalized = reinterpret_cast<vf>((two_w >> 4) + (0xE0u << 23)) * 0x1.0p-112f;
  const vf denormalized = reinterpret_cast<vf>((two_w >> 17) | (126u << 23)) - 0.5f;
  return reinterpret_cast<vf>(sign | reinterpret_cast<vu>(two_w < (1u << 27) ? denormalized : normalized));
}
__device__ __forceinline__ vu float_to_half(vf v) {
  const vf base0 = (abs(v) * 0x1.0p+112f) * 0x1.0p-110f;
  const vu w = reinterpret_cast<vu>(v), shl1_w = w + w, sign = w & 0x80000000u;
  const vu biased = shl1_w & 0xFF000000u;
  const vu bias = biased < 0x71000000u ? vu{} + 0x71000000u : biased;
  const vu bits = reinterpret_cast<vu>(reinterpret_cast<vf>((bias >> 1) + 0x07800000u) + base0);
  const vu nonsign = ((bits >> 13) & 0x7C00u) + (bits & 0x0FFFu);
  return shl1_w > 0xFF000000u ? vu{} + 0x7FFFu : (sign >> 16) | nonsign;
}
__device__ __forceinline__ vu float_to_bf16(vf v) {
  const vu w = reinterpret_cast<vu>(v);
  return (w & 0x7FFFFFFFu) > 0x7F800000u ? vu{} + 0x7FFFu : (w + 0x7FFFu + ((w >> 16) & 1u)) >> 16;
}
__device__ __forceinline__ vu load_bits(const void* p) {
  vh h;
  memcpy(&h, p, sizeof h);
  return __builtin_convertvector(h, vu);
}
__device__ __forceinline__ void store_bits(void* p, vu bits) {
  const vh h = __builtin_convertvector(bits, vh);
  memcpy(p, &h, sizeof h);
}
}  // namespace detail

__device__ __forceinline__ vf load(const float* p) {
  vf v;
  memcpy(&v, p, sizeof v);
  return v;
}
#if defined(__F16C__) && defined(__AVX2__)
// x86-64-v3 has F16C: 8 conversions in one instruction, exact, rounding to nearest even (imm 0);
// only a NaN's bits differ from opgen::from_float's canonical 0x7FFF, and are replaced.
typedef short vs8 __attribute__((vector_size(8 * sizeof(short))));
__device__ __forceinline__ vf load(const __half* p) {
  vs8 h;
  memcpy(&h, p, sizeof h);
  return __builtin_ia32_vcvtph2ps256(h);
}
__device__ __forceinline__ void store(__half* p, vf v) {
  const vs8 nan = __builtin_convertvector(v != v, vs8);
  const vs8 h = nan ? vs8{} + 0x7FFF : __builtin_ia32_vcvtps2ph256(v, 0);
  memcpy(p, &h, sizeof h);
}
#else
__device__ __forceinline__ vf load(const __half* p) { return detail::half_to_float(detail::load_bits(p)); }
__device__ __forceinline__ void store(__half* p, vf v) { detail::store_bits(p, detail::float_to_half(v)); }
#endif
__device__ __forceinline__ vf load(const __nv_bfloat16* p) { return reinterpret_cast<vf>(detail::load_bits(p) << 16); }
__device__ __forceinline__ void store(float* p, vf v) { memcpy(p, &v, sizeof v); }
__device__ __forceinline__ void store(__nv_bfloat16* p, vf v) { detail::store_bits(p, detail::float_to_bf16(v)); }

// The vector forms.
#define OPGEN_VM_VECTOR(name) \
  __device__ __forceinline__ vf name(vf x) { return detail::name(x); }
OPGEN_VM_VECTOR(exp)
OPGEN_VM_VECTOR(expm1)
OPGEN_VM_VECTOR(log)
OPGEN_VM_VECTOR(log1p)
OPGEN_VM_VECTOR(erf)
#undef OPGEN_VM_VECTOR
#endif  // OPGEN_VM_HOST

// The scalar forms, on both backends: CUDA's functions, which the emulation maps to the C
// library's (per value, glibc's expf costs about a quarter of a pass of the vector code, so a
// kernel that calls per element keeps that speed; tests/test_vector_math.py checks the host
// form's bounds on both).
#define OPGEN_VM_CUDA(name, cuda_name) \
  __device__ __forceinline__ float name(float x) { return cuda_name(x); }
OPGEN_VM_CUDA(exp, expf)
OPGEN_VM_CUDA(expm1, expm1f)
OPGEN_VM_CUDA(log, logf)
OPGEN_VM_CUDA(log1p, log1pf)
OPGEN_VM_CUDA(erf, erff)
#undef OPGEN_VM_CUDA

// tanh and sigmoid from vm::exp, one code for a float and (host) a vf.
namespace detail {
__device__ __forceinline__ float abs(float v) { return fabsf(v); }
__device__ __forceinline__ float copysign(float magnitude, float sign) { return copysignf(magnitude, sign); }

// tanh |x|: |x| + |x|·t·P(t), t = x², below 0.625 (a least-squares fit of the series); above,
// (1 − e)/(1 + e), e = e^(−2|x|) < 0.29 (no cancellation); with x's sign.
template <typename V>
__device__ __forceinline__ V tanh_from_exp(V x) {
  const V a = abs(x), t = a * a;
  const V p = ((((0.002314091892912984f * t - 0.008365785703063011f) * t + 0.021776888519525528f) * t -
                0.05396048724651337f) * t + 0.13333310186862946f) * t - 0.3333333432674408f;
  if constexpr (sizeof(V) == sizeof(float)) {  // one value: only the branch it needs
    if (a < 0.625f) return copysign(a + (a * t) * p, x);
  }
  const V e = vm::exp(-2.f * a);
  return copysign(a < 0.625f ? a + (a * t) * p : (1.f - e) / (1.f + e), x);
}

// 1/(1 + e^−x) for x ≥ 0, e^x/(1 + e^x) below: e^−|x| never overflows, and sigmoid(x) reaches the
// subnormals for x < −87. The quotient is corrected for the rounding of d = 1 + e (1 + e = d + lo
// exactly, as 1 ≥ e): n/(d + lo) ≈ n/d·(1 − lo/d).
template <typename V>
__device__ __forceinline__ V sigmoid_from_exp(V x) {
  const V e = vm::exp(-abs(x)), d = 1.f + e, lo = (1.f - d) + e;
  const V r = (x >= 0.f ? 1.f + V{} : e) / d;
  return r - r * (lo / d);
}
}  // namespace detail

// tanh: CUDA's tanhf on the GPU; on the host from expf (the C library's tanhf goes through expm1f,
// about four times the cost of expf).
__device__ __forceinline__ float tanh(float x) {
#ifdef OPGEN_VM_HOST
  return detail::tanh_from_exp(x);
#else
  return tanhf(x);
#endif
}
__device__ __forceinline__ float sigmoid(float x) { return detail::sigmoid_from_exp(x); }
#ifdef OPGEN_VM_HOST
__device__ __forceinline__ vf tanh(vf x) { return detail::tanh_from_exp(x); }
__device__ __forceinline__ vf sigmoid(vf x) { return detail::sigmoid_from_exp(x); }
#endif

// v[q] = f(v[q]) for a run (the host form: kLanes at a time, the rest one by one).
template <typename F, int R>
__device__ __forceinline__ void map_run(float (&v)[R], const F& f) {
  int q = 0;
#ifdef OPGEN_VM_HOST
  for (; q + kLanes <= R; q += kLanes) {
    vf x;
    memcpy(&x, v + q, sizeof x);
    x = f(x);
    memcpy(v + q, &x, sizeof x);
  }
#endif
  for (; q < R; ++q) v[q] = f(v[q]);
}

// Each function's functor (for map_run) and its run form.
#define OPGEN_VM_FUNCTION(name, Functor)                                                         \
  struct Functor {                                                                               \
    template <typename V>                                                                        \
    __device__ __forceinline__ V operator()(V x) const { return name(x); }                       \
  };                                                                                             \
  template <int R>                                                                               \
  __device__ __forceinline__ void name##_run(float (&v)[R]) { map_run(v, Functor{}); }
OPGEN_VM_FUNCTION(exp, Exp)
OPGEN_VM_FUNCTION(expm1, Expm1)
OPGEN_VM_FUNCTION(log, Log)
OPGEN_VM_FUNCTION(log1p, Log1p)
OPGEN_VM_FUNCTION(tanh, Tanh)
OPGEN_VM_FUNCTION(sigmoid, Sigmoid)
OPGEN_VM_FUNCTION(erf, Erf)
#undef OPGEN_VM_FUNCTION

}  // namespace vm
}  // namespace opgen
#endif  // OPGEN_VMATH_CUH
#line 11 "codegen/templates/kernels/_activations.cuh"
namespace opgen {
namespace act {

// The math a C expression of the vocab may call is the vector math library's scalar forms
// (kernels/_vmath.cuh), within the bounds docs/specs.md gives ("Errors in ulps"); these names
// shadow the C library's inside namespace opgen::act.
__device__ __forceinline__ float expf(float v) { return vm::exp(v); }
__device__ __forceinline__ float expm1f(float v) { return vm::expm1(v); }
__device__ __forceinline__ float logf(float v) { return vm::log(v); }
__device__ __forceinline__ float log1pf(float v) { return vm::log1p(v); }
__device__ __forceinline__ float tanhf(float v) { return vm::tanh(v); }
__device__ __forceinline__ float erff(float v) { return vm::erf(v); }

// tanh (vm::tanh: CUDA's tanhf on the GPU; on the host from expf, at a quarter of tanhf's cost).
__device__ __forceinline__ float tanh_fast(float v) { return vm::tanh(v); }

// 1/(1 + e^−v) that reaches the subnormals for v < −87 and never overflows (vm::sigmoid).
__device__ __forceinline__ float logistic(float v) { return vm::sigmoid(v); }

// ln(1 + e^v) without overflow: v + ln(1 + e^(−v)) for v > 0.
__device__ __forceinline__ float log1p_exp(float v) {
  return v > 0.f ? v + vm::log1p(vm::exp(-v)) : vm::log1p(vm::exp(v));
}

#line 36 "codegen/templates/kernels/_activations.cuh"
constexpr int kIdentity = 0;
#line 36 "codegen/templates/kernels/_activations.cuh"
constexpr int kLinear = 1;
#line 36 "codegen/templates/kernels/_activations.cuh"
constexpr int kTanh = 2;
#line 36 "codegen/templates/kernels/_activations.cuh"
constexpr int kScaledTanh = 3;
#line 36 "codegen/templates/kernels/_activations.cuh"
constexpr int kSigmoid = 4;
#line 36 "codegen/templates/kernels/_activations.cuh"
constexpr int kHardSigmoid = 5;
#line 36 "codegen/templates/kernels/_activations.cuh"
constexpr int kRelu = 6;
#line 36 "codegen/templates/kernels/_activations.cuh"
constexpr int kLeakyRelu = 7;
#line 36 "codegen/templates/kernels/_activations.cuh"
constexpr int kThresholdedRelu = 8;
#line 36 "codegen/templates/kernels/_activations.cuh"
constexpr int kElu = 9;
#line 36 "codegen/templates/kernels/_activations.cuh"
constexpr int kScaledElu = 10;
#line 36 "codegen/templates/kernels/_activations.cuh"
constexpr int kSoftsign = 11;
#line 36 "codegen/templates/kernels/_activations.cuh"
constexpr int kSoftplus = 12;
#line 36 "codegen/templates/kernels/_activations.cuh"
constexpr int kParametricSoftplus = 13;
#line 38 "codegen/templates/kernels/_activations.cuh"

#line 40 "codegen/templates/kernels/_activations.cuh"
// identity: x
__device__ __forceinline__ float identity(float x) {
  return x;
}

#line 40 "codegen/templates/kernels/_activations.cuh"
// linear: alpha·x + beta
__device__ __forceinline__ float linear(float x, float alpha, float beta) {
  return alpha * x + beta;
}

#line 40 "codegen/templates/kernels/_activations.cuh"
// tanh: tanh(x)
__device__ __forceinline__ float tanh(float x) {
  return tanh_fast(x);
}

#line 40 "codegen/templates/kernels/_activations.cuh"
// scaled_tanh: alpha·tanh(beta·x)
__device__ __forceinline__ float scaled_tanh(float x, float alpha, float beta) {
  return alpha * tanh_fast(beta * x);
}

#line 40 "codegen/templates/kernels/_activations.cuh"
// sigmoid: 1 / (1 + e^(−x))
__device__ __forceinline__ float sigmoid(float x) {
  return logistic(x);
}

#line 40 "codegen/templates/kernels/_activations.cuh"
// hard_sigmoid: max(0, min(alpha·x + beta, 1))
__device__ __forceinline__ float hard_sigmoid(float x, float alpha, float beta) {
  return fmaxf(0.0f, fminf(alpha * x + beta, 1.0f));
}

#line 40 "codegen/templates/kernels/_activations.cuh"
// relu: max(0, x)
__device__ __forceinline__ float relu(float x) {
  return x > 0.0f ? x : 0.0f;
}

#line 40 "codegen/templates/kernels/_activations.cuh"
// leaky_relu: x if x ≥ 0, else alpha·x
__device__ __forceinline__ float leaky_relu(float x, float alpha) {
  return x >= 0.0f ? x : alpha * x;
}

#line 40 "codegen/templates/kernels/_activations.cuh"
// thresholded_relu: x if x > alpha, else 0
__device__ __forceinline__ float thresholded_relu(float x, float alpha) {
  return x > alpha ? x : 0.0f;
}

#line 40 "codegen/templates/kernels/_activations.cuh"
// elu: x if x ≥ 0, else alpha·(e^x − 1)
__device__ __forceinline__ float elu(float x, float alpha) {
  return x >= 0.0f ? x : alpha * expm1f(x);
}

#line 40 "codegen/templates/kernels/_activations.cuh"
// scaled_elu: gamma·x if x > 0, else gamma·(alpha·e^x − alpha)
__device__ __forceinline__ float scaled_elu(float x, float alpha, float gamma) {
  return x > 0.0f ? gamma * x : gamma * (alpha * expm1f(x));
}

#line 40 "codegen/templates/kernels/_activations.cuh"
// softsign: x / (1 + |x|)
__device__ __forceinline__ float softsign(float x) {
  return x / (1.0f + fabsf(x));
}

#line 40 "codegen/templates/kernels/_activations.cuh"
// softplus: ln(1 + e^(steepness·x)) / steepness
__device__ __forceinline__ float softplus(float x, float steepness) {
  return log1p_exp(steepness * x) / steepness;
}

#line 40 "codegen/templates/kernels/_activations.cuh"
// parametric_softplus: alpha·ln(1 + e^(beta·x))
__device__ __forceinline__ float parametric_softplus(float x, float alpha, float beta) {
  return alpha * log1p_exp(beta * x);
}

#line 46 "codegen/templates/kernels/_activations.cuh"
#ifdef OPGEN_VM_HOST
// The run form's vector twins (host form): each function's C expression again, with x a vm::vf of
// kLanes values (the parameters stay floats) and the math calls vm's vector forms. A twin exists
// where the expression is a vf expression (the SFINAE'd return type): one that is not (a parameter
// alone, say) has none, and its run form calls the scalar function on every element.
namespace lanes {
using vm::vf;
using act::expf, act::expm1f, act::logf, act::log1pf, act::tanhf, act::erff;  // on floats, as above
using act::tanh_fast, act::logistic, act::log1p_exp, ::fabsf, ::fminf, ::fmaxf, ::sqrtf;
__device__ __forceinline__ vf expf(vf v) { return vm::exp(v); }
__device__ __forceinline__ vf expm1f(vf v) { return vm::expm1(v); }
__device__ __forceinline__ vf logf(vf v) { return vm::log(v); }
__device__ __forceinline__ vf log1pf(vf v) { return vm::log1p(v); }
__device__ __forceinline__ vf tanhf(vf v) { return vm::tanh(v); }
__device__ __forceinline__ vf erff(vf v) { return vm::erf(v); }
__device__ __forceinline__ vf tanh_fast(vf v) { return vm::tanh(v); }
__device__ __forceinline__ vf logistic(vf v) { return vm::sigmoid(v); }
__device__ __forceinline__ vf fabsf(vf v) { return vm::detail::abs(v); }
__device__ __forceinline__ vf sqrtf(vf v) {
  for (int q = 0; q < vm::kLanes; ++q) v[q] = ::sqrtf(v[q]);  // correctly rounded, as the scalar's
  return v;
}
// fminf/fmaxf's rule: a NaN operand gives the other one.
__device__ __forceinline__ vf fminf(vf a, vf b) { return (a < b) | (b != b) ? a : b; }
__device__ __forceinline__ vf fmaxf(vf a, vf b) { return (a > b) | (b != b) ? a : b; }
__device__ __forceinline__ vf fminf(vf a, float b) { return fminf(a, b - vf{}); }
__device__ __forceinline__ vf fminf(float a, vf b) { return fminf(a - vf{}, b); }
__device__ __forceinline__ vf fmaxf(vf a, float b) { return fmaxf(a, b - vf{}); }
__device__ __forceinline__ vf fmaxf(float a, vf b) { return fmaxf(a - vf{}, b); }
// ln(1 + e^v) = max(v, 0) + ln(1 + e^−|v|), branch-free.
__device__ __forceinline__ vf log1p_exp(vf v) {
  const vf l = vm::log1p(vm::exp(-vm::detail::abs(v)));
  return v > 0.f ? v + l : l;
}

// V when the expression's type E is V itself (a reference to it too), else no type: g++ converts
// between vectors of one size implicitly, bit for bit, so `x > 0 ? 1 : 0` (an int vector) must not
// pass for a vf.
template <typename E, typename V> struct Exactly {};
template <typename V> struct Exactly<V, V> { typedef V type; };
template <typename V> struct Exactly<V&, V> { typedef V type; };
template <typename V> struct Exactly<const V, V> { typedef V type; };
template <typename V> struct Exactly<const V&, V> { typedef V type; };
#line 90 "codegen/templates/kernels/_activations.cuh"
template <typename V>
__device__ __forceinline__ auto identity(V x)
    -> typename Exactly<decltype(x), V>::type {
  return x;
}
#line 90 "codegen/templates/kernels/_activations.cuh"
template <typename V>
__device__ __forceinline__ auto linear(V x, float alpha, float beta)
    -> typename Exactly<decltype(alpha * x + beta), V>::type {
  return alpha * x + beta;
}
#line 90 "codegen/templates/kernels/_activations.cuh"
template <typename V>
__device__ __forceinline__ auto tanh(V x)
    -> typename Exactly<decltype(tanh_fast(x)), V>::type {
  return tanh_fast(x);
}
#line 90 "codegen/templates/kernels/_activations.cuh"
template <typename V>
__device__ __forceinline__ auto scaled_tanh(V x, float alpha, float beta)
    -> typename Exactly<decltype(alpha * tanh_fast(beta * x)), V>::type {
  return alpha * tanh_fast(beta * x);
}
#line 90 "codegen/templates/kernels/_activations.cuh"
template <typename V>
__device__ __forceinline__ auto sigmoid(V x)
    -> typename Exactly<decltype(logistic(x)), V>::type {
  return logistic(x);
}
#line 90 "codegen/templates/kernels/_activations.cuh"
template <typename V>
__device__ __forceinline__ auto hard_sigmoid(V x, float alpha, float beta)
    -> typename Exactly<decltype(fmaxf(0.0f, fminf(alpha * x + beta, 1.0f))), V>::type {
  return fmaxf(0.0f, fminf(alpha * x + beta, 1.0f));
}
#line 90 "codegen/templates/kernels/_activations.cuh"
template <typename V>
__device__ __forceinline__ auto relu(V x)
    -> typename Exactly<decltype(x > 0.0f ? x : 0.0f), V>::type {
  return x > 0.0f ? x : 0.0f;
}
#line 90 "codegen/templates/kernels/_activations.cuh"
template <typename V>
__device__ __forceinline__ auto leaky_relu(V x, float alpha)
    -> typename Exactly<decltype(x >= 0.0f ? x : alpha * x), V>::type {
  return x >= 0.0f ? x : alpha * x;
}
#line 90 "codegen/templates/kernels/_activations.cuh"
template <typename V>
__device__ __forceinline__ auto thresholded_relu(V x, float alpha)
    -> typename Exactly<decltype(x > alpha ? x : 0.0f), V>::type {
  return x > alpha ? x : 0.0f;
}
#line 90 "codegen/templates/kernels/_activations.cuh"
template <typename V>
__device__ __forceinline__ auto elu(V x, float alpha)
    -> typename Exactly<decltype(x >= 0.0f ? x : alpha * expm1f(x)), V>::type {
  return x >= 0.0f ? x : alpha * expm1f(x);
}
#line 90 "codegen/templates/kernels/_activations.cuh"
template <typename V>
__device__ __forceinline__ auto scaled_elu(V x, float alpha, float gamma)
    -> typename Exactly<decltype(x > 0.0f ? gamma * x : gamma * (alpha * expm1f(x))), V>::type {
  return x > 0.0f ? gamma * x : gamma * (alpha * expm1f(x));
}
#line 90 "codegen/templates/kernels/_activations.cuh"
template <typename V>
__device__ __forceinline__ auto softsign(V x)
    -> typename Exactly<decltype(x / (1.0f + fabsf(x))), V>::type {
  return x / (1.0f + fabsf(x));
}
#line 90 "codegen/templates/kernels/_activations.cuh"
template <typename V>
__device__ __forceinline__ auto softplus(V x, float steepness)
    -> typename Exactly<decltype(log1p_exp(steepness * x) / steepness), V>::type {
  return log1p_exp(steepness * x) / steepness;
}
#line 90 "codegen/templates/kernels/_activations.cuh"
template <typename V>
__device__ __forceinline__ auto parametric_softplus(V x, float alpha, float beta)
    -> typename Exactly<decltype(alpha * log1p_exp(beta * x)), V>::type {
  return alpha * log1p_exp(beta * x);
}
#line 96 "codegen/templates/kernels/_activations.cuh"

// Each function with its parameters p0, ...: f(x) on a float (the scalar function) and, where the
// twin exists, on a vf.
struct Params {
#line 101 "codegen/templates/kernels/_activations.cuh"
  float p0;
#line 101 "codegen/templates/kernels/_activations.cuh"
  float p1;
#line 103 "codegen/templates/kernels/_activations.cuh"
};
template <int Id> struct Kind;
#line 106 "codegen/templates/kernels/_activations.cuh"
template <> struct Kind<kIdentity> : Params {
  __device__ __forceinline__ float operator()(float x) const {
    return act::identity(x);
  }
  template <typename V>
  __device__ __forceinline__ auto operator()(V x) const
      -> decltype(lanes::identity(x)) {
    return lanes::identity(x);
  }
};
#line 106 "codegen/templates/kernels/_activations.cuh"
template <> struct Kind<kLinear> : Params {
  __device__ __forceinline__ float operator()(float x) const {
    return act::linear(x, p0, p1);
  }
  template <typename V>
  __device__ __forceinline__ auto operator()(V x) const
      -> decltype(lanes::linear(x, p0, p1)) {
    return lanes::linear(x, p0, p1);
  }
};
#line 106 "codegen/templates/kernels/_activations.cuh"
template <> struct Kind<kTanh> : Params {
  __device__ __forceinline__ float operator()(float x) const {
    return act::tanh(x);
  }
  template <typename V>
  __device__ __forceinline__ auto operator()(V x) const
      -> decltype(lanes::tanh(x)) {
    return lanes::tanh(x);
  }
};
#line 106 "codegen/templates/kernels/_activations.cuh"
template <> struct Kind<kScaledTanh> : Params {
  __device__ __forceinline__ float operator()(float x) const {
    return act::scaled_tanh(x, p0, p1);
  }
  template <typename V>
  __device__ __forceinline__ auto operator()(V x) const
      -> decltype(lanes::scaled_tanh(x, p0, p1)) {
    return lanes::scaled_tanh(x, p0, p1);
  }
};
#line 106 "codegen/templates/kernels/_activations.cuh"
template <> struct Kind<kSigmoid> : Params {
  __device__ __forceinline__ float operator()(float x) const {
    return act::sigmoid(x);
  }
  template <typename V>
  __device__ __forceinline__ auto operator()(V x) const
      -> decltype(lanes::sigmoid(x)) {
    return lanes::sigmoid(x);
  }
};
#line 106 "codegen/templates/kernels/_activations.cuh"
template <> struct Kind<kHardSigmoid> : Params {
  __device__ __forceinline__ float operator()(float x) const {
    return act::hard_sigmoid(x, p0, p1);
  }
  template <typename V>
  __device__ __forceinline__ auto operator()(V x) const
      -> decltype(lanes::hard_sigmoid(x, p0, p1)) {
    return lanes::hard_sigmoid(x, p0, p1);
  }
};
#line 106 "codegen/templates/kernels/_activations.cuh"
template <> struct Kind<kRelu> : Params {
  __device__ __forceinline__ float operator()(float x) const {
    return act::relu(x);
  }
  template <typename V>
  __device__ __forceinline__ auto operator()(V x) const
      -> decltype(lanes::relu(x)) {
    return lanes::relu(x);
  }
};
#line 106 "codegen/templates/kernels/_activations.cuh"
template <> struct Kind<kLeakyRelu> : Params {
  __device__ __forceinline__ float operator()(float x) const {
    return act::leaky_relu(x, p0);
  }
  template <typename V>
  __device__ __forceinline__ auto operator()(V x) const
      -> decltype(lanes::leaky_relu(x, p0)) {
    return lanes::leaky_relu(x, p0);
  }
};
#line 106 "codegen/templates/kernels/_activations.cuh"
template <> struct Kind<kThresholdedRelu> : Params {
  __device__ __forceinline__ float operator()(float x) const {
    return act::thresholded_relu(x, p0);
  }
  template <typename V>
  __device__ __forceinline__ auto operator()(V x) const
      -> decltype(lanes::thresholded_relu(x, p0)) {
    return lanes::thresholded_relu(x, p0);
  }
};
#line 106 "codegen/templates/kernels/_activations.cuh"
template <> struct Kind<kElu> : Params {
  __device__ __forceinline__ float operator()(float x) const {
    return act::elu(x, p0);
  }
  template <typename V>
  __device__ __forceinline__ auto operator()(V x) const
      -> decltype(lanes::elu(x, p0)) {
    return lanes::elu(x, p0);
  }
};
#line 106 "codegen/templates/kernels/_activations.cuh"
template <> struct Kind<kScaledElu> : Params {
  __device__ __forceinline__ float operator()(float x) const {
    return act::scaled_elu(x, p0, p1);
  }
  template <typename V>
  __device__ __forceinline__ auto operator()(V x) const
      -> decltype(lanes::scaled_elu(x, p0, p1)) {
    return lanes::scaled_elu(x, p0, p1);
  }
};
#line 106 "codegen/templates/kernels/_activations.cuh"
template <> struct Kind<kSoftsign> : Params {
  __device__ __forceinline__ float operator()(float x) const {
    return act::softsign(x);
  }
  template <typename V>
  __device__ __forceinline__ auto operator()(V x) const
      -> decltype(lanes::softsign(x)) {
    return lanes::softsign(x);
  }
};
#line 106 "codegen/templates/kernels/_activations.cuh"
template <> struct Kind<kSoftplus> : Params {
  __device__ __forceinline__ float operator()(float x) const {
    return act::softplus(x, p0);
  }
  template <typename V>
  __device__ __forceinline__ auto operator()(V x) const
      -> decltype(lanes::softplus(x, p0)) {
    return lanes::softplus(x, p0);
  }
};
#line 106 "codegen/templates/kernels/_activations.cuh"
template <> struct Kind<kParametricSoftplus> : Params {
  __device__ __forceinline__ float operator()(float x) const {
    return act::parametric_softplus(x, p0, p1);
  }
  template <typename V>
  __device__ __forceinline__ auto operator()(V x) const
      -> decltype(lanes::parametric_softplus(x, p0, p1)) {
    return lanes::parametric_softplus(x, p0, p1);
  }
};
#line 117 "codegen/templates/kernels/_activations.cuh"

template <typename F, typename = void> struct HasTwin { static constexpr bool value = false; };
template <typename F> struct HasTwin<F, decltype(void((*static_cast<const F*>(nullptr))(vf{})))> {
  static constexpr bool value = true;
};

// v[q] = f(v[q]) for a run: kLanes at a time where f has a twin, the rest one by one.
template <typename F, int R>
__device__ __forceinline__ void map(float (&v)[R], const F& f) {
  if constexpr (HasTwin<F>::value) {
    vm::map_run(v, f);
  } else {
    for (int q = 0; q < R; ++q) v[q] = f(v[q]);
  }
}
}  // namespace lanes
#endif  // OPGEN_VM_HOST

// An activation of the library and its parameters, as launch arguments pass it: `f(x)`, and
// `f.run(v)` for a run of floats in place.
struct Activation {
  int id;
#line 140 "codegen/templates/kernels/_activations.cuh"
  float p0;
#line 140 "codegen/templates/kernels/_activations.cuh"
  float p1;
#line 142 "codegen/templates/kernels/_activations.cuh"

  // v[q] = f(v[q]) for every element of a run: on the host the vector twins, kLanes at a time
  // (within the same bounds in ulps as the scalar function; the tail and functions without a
  // twin: the scalar function); on the GPU the scalar function per element.
  template <int R>
  __device__ __forceinline__ void run(float (&v)[R]) const {
#ifdef OPGEN_VM_HOST
    const lanes::Params p{p0, p1};
    switch (id) {
#line 152 "codegen/templates/kernels/_activations.cuh"
      case kIdentity:
        return lanes::map(v, lanes::Kind<kIdentity>{p});
#line 152 "codegen/templates/kernels/_activations.cuh"
      case kLinear:
        return lanes::map(v, lanes::Kind<kLinear>{p});
#line 152 "codegen/templates/kernels/_activations.cuh"
      case kTanh:
        return lanes::map(v, lanes::Kind<kTanh>{p});
#line 152 "codegen/templates/kernels/_activations.cuh"
      case kScaledTanh:
        return lanes::map(v, lanes::Kind<kScaledTanh>{p});
#line 152 "codegen/templates/kernels/_activations.cuh"
      case kSigmoid:
        return lanes::map(v, lanes::Kind<kSigmoid>{p});
#line 152 "codegen/templates/kernels/_activations.cuh"
      case kHardSigmoid:
        return lanes::map(v, lanes::Kind<kHardSigmoid>{p});
#line 152 "codegen/templates/kernels/_activations.cuh"
      case kRelu:
        return lanes::map(v, lanes::Kind<kRelu>{p});
#line 152 "codegen/templates/kernels/_activations.cuh"
      case kLeakyRelu:
        return lanes::map(v, lanes::Kind<kLeakyRelu>{p});
#line 152 "codegen/templates/kernels/_activations.cuh"
      case kThresholdedRelu:
        return lanes::map(v, lanes::Kind<kThresholdedRelu>{p});
#line 152 "codegen/templates/kernels/_activations.cuh"
      case kElu:
        return lanes::map(v, lanes::Kind<kElu>{p});
#line 152 "codegen/templates/kernels/_activations.cuh"
      case kScaledElu:
        return lanes::map(v, lanes::Kind<kScaledElu>{p});
#line 152 "codegen/templates/kernels/_activations.cuh"
      case kSoftsign:
        return lanes::map(v, lanes::Kind<kSoftsign>{p});
#line 152 "codegen/templates/kernels/_activations.cuh"
      case kSoftplus:
        return lanes::map(v, lanes::Kind<kSoftplus>{p});
#line 152 "codegen/templates/kernels/_activations.cuh"
      case kParametricSoftplus:
        return lanes::map(v, lanes::Kind<kParametricSoftplus>{p});
#line 155 "codegen/templates/kernels/_activations.cuh"
      default:
        break;
    }
#endif
    for (int q = 0; q < R; ++q) v[q] = (*this)(v[q]);
  }

  __device__ __forceinline__ float operator()(float x) const {
    switch (id) {
#line 165 "codegen/templates/kernels/_activations.cuh"
      case kIdentity:
        return act::identity(x);
#line 165 "codegen/templates/kernels/_activations.cuh"
      case kLinear:
        return act::linear(x, p0, p1);
#line 165 "codegen/templates/kernels/_activations.cuh"
      case kTanh:
        return act::tanh(x);
#line 165 "codegen/templates/kernels/_activations.cuh"
      case kScaledTanh:
        return act::scaled_tanh(x, p0, p1);
#line 165 "codegen/templates/kernels/_activations.cuh"
      case kSigmoid:
        return act::sigmoid(x);
#line 165 "codegen/templates/kernels/_activations.cuh"
      case kHardSigmoid:
        return act::hard_sigmoid(x, p0, p1);
#line 165 "codegen/templates/kernels/_activations.cuh"
      case kRelu:
        return act::relu(x);
#line 165 "codegen/templates/kernels/_activations.cuh"
      case kLeakyRelu:
        return act::leaky_relu(x, p0);
#line 165 "codegen/templates/kernels/_activations.cuh"
      case kThresholdedRelu:
        return act::thresholded_relu(x, p0);
#line 165 "codegen/templates/kernels/_activations.cuh"
      case kElu:
        return act::elu(x, p0);
#line 165 "codegen/templates/kernels/_activations.cuh"
      case kScaledElu:
        return act::scaled_elu(x, p0, p1);
#line 165 "codegen/templates/kernels/_activations.cuh"
      case kSoftsign:
        return act::softsign(x);
#line 165 "codegen/templates/kernels/_activations.cuh"
      case kSoftplus:
        return act::softplus(x, p0);
#line 165 "codegen/templates/kernels/_activations.cuh"
      case kParametricSoftplus:
        return act::parametric_softplus(x, p0, p1);
#line 168 "codegen/templates/kernels/_activations.cuh"
      default:
        return x;  // unreachable: wrappers only pass ids of the library
    }
  }
};

}  // namespace act
}  // namespace opgen
#endif  // OPGEN_ACTIVATIONS_CUH
#line 36 "codegen/templates/kernels/rnn/cudnn_rnn.cu"

namespace crnn {

__device__ __forceinline__ float load(const float* p) { return *p; }
__device__ __forceinline__ double load(const double* p) { return *p; }
__device__ __forceinline__ float load(const __half* p) { return __half2float(*p); }
__device__ __forceinline__ void store(float* p, float v) { *p = v; }
__device__ __forceinline__ void store(double* p, double v) { *p = v; }
__device__ __forceinline__ void store(__half* p, float v) { *p = __float2half_rn(v); }

template <typename T> struct Acc { typedef float type; };
template <> struct Acc<double> { typedef double type; };

// The gates' functions: the activation library's (specs/_vocab/activations.yaml) in float, the
// C library's in double.
__device__ __forceinline__ float sigmoid(float v) { return opgen::act::sigmoid(v); }
__device__ __forceinline__ double sigmoid(double v) { return 1.0 / (1.0 + exp(-v)); }
__device__ __forceinline__ float tanh_(float v) { return opgen::act::tanh(v); }
__device__ __forceinline__ double tanh_(double v) { return tanh(v); }
__device__ __forceinline__ float relu(float v) { return opgen::act::relu(v); }
__device__ __forceinline__ double relu(double v) { return v > 0.0 ? v : 0.0; }

// The host form's row loops (OPGEN_HOST_FORM, kernels/_common.cuh): GCC at -O2 vectorises only
// straight-line code (the SLP vectoriser, no branches), not loops of unknown length, and no call
// to expf. So row_runs hands the body runs of kHostRun elements (Run<8>: it keeps them in local
// arrays), and on a run of floats the gates' functions are the vector math library's run forms
// (kernels/_vmath.cuh: vm::sigmoid_run, vm::tanh_run, in vector registers on the host, CUDA's
// functions on the GPU). A run of one element (the GPU, the GPU form, a row's tail) takes the same
// functions one value at a time; double keeps the C library's exp and tanh in both forms, so
// float64 results do not depend on the form.
template <int N>
struct Run {
  static constexpr int n = N;
};

// The type of a row_runs body's run parameter. Generic (auto) only in the host form, which g++
// compiles and which hands runs of kHostRun and of 1; the GPU's form hands Run<1> alone, and NVRTC
// 13.0 rejects a generic lambda in device code ("host functions are not allowed in JIT mode").
#ifdef OPGEN_HOST_FORM
#define CRNN_RUN auto
#else
#define CRNN_RUN crnn::Run<1>
#endif

#ifdef OPGEN_HOST_FORM
#define CRNN_UNROLL _Pragma("GCC unroll 8")
#else
#define CRNN_UNROLL
#endif

// The units [begin, end) of a row that a row function works on, and who takes them: the block's
// threads together (shared = true: for_each_row's rows, the persistent kernels' rows) or the calling
// thread alone (a fused step's GPU form, a thread per (row, unit) of its tile).
struct Span {
  long long begin, end;
  bool shared;
};
__device__ __forceinline__ Span whole_row(long long n) { return Span{0, n, true}; }

// f(j, Run<R>{}) for the runs [j, j + R) that cover the span: in the host form thread 0 takes them all
// (of a shared span), in runs of kHostRun; on the GPU the block's threads stride single elements of a
// shared span, and the calling thread takes each element of its own.
template <typename F>
__device__ __forceinline__ void row_runs(Span span, const F& f) {
#ifdef OPGEN_HOST_FORM
  if (span.shared && threadIdx.x != 0) return;
  long long j = span.begin;
  for (; j + opgen::kHostRun <= span.end; j += opgen::kHostRun) f(j, Run<opgen::kHostRun>{});
  for (; j < span.end; ++j) f(j, Run<1>{});
#else
  const long long first = span.shared ? span.begin + threadIdx.x : span.begin;
  const long long stride = span.shared ? static_cast<long long>(blockDim.x) : 1LL;
  for (long long j = first; j < span.end; j += stride) f(j, Run<1>{});
#endif
}

// f(j) for each element of the span, taken as row_runs takes them.
template <typename F>
__device__ __forceinline__ void span_each(Span span, const F& f) {
  row_runs(span, [&](long long j, CRNN_RUN run) {
    for (int q = 0; q < decltype(run)::n; ++q) f(j + q);
  });
}

// p[q] = v[q] for a run: one output's run stored by itself, so that the host form's vectoriser
// makes it one vector store. Stores of several outputs interleaved in one loop (acts[j + q], then
// acts[H + j + q], ...) stay lane by lane: it cannot prove the outputs apart to reorder them.
template <typename T, typename A, int R>
__device__ __forceinline__ void store_run(T* __restrict__ p, const A (&v)[R]) {
  CRNN_UNROLL for (int q = 0; q < R; ++q) crnn::store(p + q, v[q]);
}

// v[q] = sigmoid(v[q]) (or tanh) for a run.
template <typename A, int R>
__device__ __forceinline__ void sigmoid_run(A (&v)[R]) {
  if constexpr (opgen::is_float32<A>::value) {
    opgen::vm::sigmoid_run(v);
  } else {
    for (int q = 0; q < R; ++q) v[q] = sigmoid(v[q]);
  }
}
template <typename A, int R>
__device__ __forceinline__ void tanh_run(A (&v)[R]) {
  if constexpr (opgen::is_float32<A>::value) {
    opgen::vm::tanh_run(v);
  } else {
    for (int q = 0; q < R; ++q) v[q] = tanh_(v[q]);
  }
}

// v as T stores it (c is rounded to T before tanh reads it back).
__device__ __forceinline__ float stored(float v, const float*) { return v; }
__device__ __forceinline__ double stored(double v, const double*) { return v; }
__device__ __forceinline__ float stored(float v, const __half*) { return __half2float(__float2half_rn(v)); }

// f(i) for i = 0 … n − 1, grid-stride.
template <typename F>
__device__ __forceinline__ void each(long long n, const F& f) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) f(i);
}

// The index of state [p, b, j] in a [LD, B, W] (time-major) or [B, LD, W] tensor.
__device__ __forceinline__ long long state_index(int time_major, long long p, long long b, long long j,
                                                 long long LD, long long B, long long W) {
  return (time_major ? p * B + b : b * LD + p) * W + j;
}

// The dropout hash: splitmix64's finalizer. The mask of element i (time-major [T, B, D·Hh] flat
// index) of layer l's output keeps it when u ≥ rate, u = top 24 bits of
// mix(key + (i + 1)·0x9E3779B97F4A7C15) · 2^-24, key = mix(mix(seed) ^ (seed2 + (l + 1)·0xD1B54A32D192ED03)).
__device__ __forceinline__ unsigned long long mix64(unsigned long long z) {
  z ^= z >> 30;
  z *= 0xBF58476D1CE4E5B9ULL;
  z ^= z >> 27;
  z *= 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return z;
}

}  // namespace crnn

// dst[j, i, k] = src[i, j, k] for src [n0, n1, n2] (n0 = 1: a plain copy), a row of n2 elements
// at a time (no per-element division; the host form's row loop is a vectorised copy).
template <typename T>
__device__ void swap01_(const T* __restrict__ src, T* __restrict__ dst, long long n0, long long n1, long long n2) {
  opgen::for_each_row(n0 * n1, [&](long long q) {  // q indexes dst's rows [n1, n0]
    const long long j = q / n0, i = q - j * n0;
    const T* __restrict__ s = src + (i * n1 + j) * n2;
    T* __restrict__ o = dst + q * n2;
    opgen::row_for_each(n2, [&](long long k) { o[k] = s[k]; });
  });
}

// The input in time-major order [T, B, I] (a copy when it already is).
template <typename T>
__device__ void to_time_major(const T* __restrict__ input, T* __restrict__ xt, long long n0, long long n1,
                              long long n2) {
  swap01_(input, xt, n0, n1, n2);
}

// input_backprop from its time-major form.
template <typename T>
__device__ void from_time_major(const T* __restrict__ dxt, T* __restrict__ input_backprop, long long n0, long long n1,
                                long long n2) {
  swap01_(dxt, input_backprop, n0, n1, n2);
}

// skip_input: every gate's input part is x itself, gx[gx_ofs + r·G·H + g·H + j] = x[r, j] (gx_ofs: the
// direction's slot).
template <typename T>
__device__ void skip_projection(const T* __restrict__ xt, T* __restrict__ gx, long long rows, long long gates,
                                long long H, long long gx_ofs) {
  crnn::each(rows * gates * H, [&](long long o) {
    const long long j = o % H, r = o / (gates * H);
    gx[gx_ofs + o] = xt[r * H + j];
  });
}

// The initial h (and c) of pseudo-layer p into its slot d·T.
template <typename T>
__device__ void init_state(const T* __restrict__ input_h, const T* __restrict__ input_c, T* __restrict__ work,
                           long long p, long long d, long long LD, long long T_, long long B, long long Hh,
                           long long H, long long hs_ofs, long long cs_ofs, long long lstm, int time_major) {
  const long long nh = B * Hh;
  crnn::each(nh + lstm * B * H, [&](long long i) {
    if (i < nh) {
      const long long b = i / Hh, j = i - b * Hh;
      work[hs_ofs + d * T_ * nh + i] = input_h[crnn::state_index(time_major, p, b, j, LD, B, Hh)];
    } else {
      const long long k = i - nh, b = k / H, j = k - b * H;
      work[cs_ofs + d * T_ * B * H + k] = input_c[crnn::state_index(time_major, p, b, j, LD, B, H)];
    }
  });
}

namespace crnn {

// Row b of lstm_step (below), by the block's threads: the step kernel and the persistent one share it.
template <typename T>
__device__ __forceinline__ void lstm_row(long long b, const T* __restrict__ gx, const T* __restrict__ gh,
                                         const T* __restrict__ params, T* __restrict__ work,
                                         const int* __restrict__ lengths, long long t, long long d,
                                         long long B, long long H, long long Hh, long long proj, long long bofs,
                                         long long acts_ofs, long long hs_ofs, long long cs_ofs, long long ms_ofs,
                                         Span span) {
  typedef typename crnn::Acc<T>::type A;
  const long long prev = t + d, next = t + 1 - d;
  const T* __restrict__ bw = params + bofs;
  const T* __restrict__ br = bw + 4 * H;
  T* __restrict__ acts = work + acts_ofs + (t * B + b) * 4 * H;
  const T* __restrict__ c_prev = work + cs_ofs + (prev * B + b) * H;
  T* __restrict__ c_next = work + cs_ofs + (next * B + b) * H;
  T* __restrict__ m_out = proj ? work + ms_ofs + (t * B + b) * H : work + hs_ofs + (next * B + b) * Hh;
  if (t >= lengths[b]) {  // past the end: carry the state
    const T* __restrict__ h_prev = work + hs_ofs + (prev * B + b) * Hh;
    crnn::span_each(span, [&](long long j) {
      for (int g = 0; g < 4; ++g) crnn::store(acts + g * H + j, A(0));
      c_next[j] = c_prev[j];
      if (proj) crnn::store(m_out + j, A(0));
      else m_out[j] = h_prev[j];
    });
    return;
  }
  const T* __restrict__ x = gx + (t * B + b) * 4 * H;
  const T* __restrict__ h = gh + b * 4 * H;
  crnn::row_runs(span, [&](long long j, CRNN_RUN run) {
    constexpr int R = decltype(run)::n;
    A ig[R], fg[R], cg[R], og[R], c[R], tc[R];
    CRNN_UNROLL for (int q = 0; q < R; ++q) {
      const long long k = j + q;
      ig[q] = crnn::load(x + k) + crnn::load(h + k) + crnn::load(bw + k) + crnn::load(br + k);
      fg[q] = crnn::load(x + H + k) + crnn::load(h + H + k) + crnn::load(bw + H + k) + crnn::load(br + H + k);
      cg[q] = crnn::load(x + 2 * H + k) + crnn::load(h + 2 * H + k) + crnn::load(bw + 2 * H + k) +
              crnn::load(br + 2 * H + k);
      og[q] = crnn::load(x + 3 * H + k) + crnn::load(h + 3 * H + k) + crnn::load(bw + 3 * H + k) +
              crnn::load(br + 3 * H + k);
    }
    crnn::sigmoid_run(ig);
    crnn::sigmoid_run(fg);
    crnn::tanh_run(cg);
    crnn::sigmoid_run(og);
    CRNN_UNROLL for (int q = 0; q < R; ++q) {
      c[q] = fg[q] * crnn::load(c_prev + j + q) + ig[q] * cg[q];
      tc[q] = crnn::stored(c[q], c_next);  // tanh of c as stored
    }
    crnn::tanh_run(tc);
    CRNN_UNROLL for (int q = 0; q < R; ++q) tc[q] = og[q] * tc[q];  // m = o∘tanh(c)
    crnn::store_run(acts + j, ig);
    crnn::store_run(acts + H + j, fg);
    crnn::store_run(acts + 2 * H + j, cg);
    crnn::store_run(acts + 3 * H + j, og);
    crnn::store_run(c_next + j, c);
    crnn::store_run(m_out + j, tc);
  });
}

}  // namespace crnn

namespace crnn {

// The unfused step kernels' launch s of every direction of a layer (the GEMM steps' plan): grid
// [row_blocks, D], direction d = blockIdx.y at time t = s (forward) or T − 1 − s (backward), its
// pseudo-layer d·pl_size after direction 0's offsets, its biases d·2·G after, its slots of gx and gh
// ([D, T·B, G] and [D, B, G]) d slots on: one launch where there was one per direction.
struct StepDir {
  long long d, t, pl;
};
__device__ __forceinline__ StepDir step_dir(long long s, long long steps, long long pl_size) {
  const long long d = blockIdx.y;
  return StepDir{d, s + d * (steps - 1 - 2 * s), d * pl_size};
}

}  // namespace crnn

// One LSTM step (launch s, crnn::step_dir): gates from gx + gh + bW + bR, the c slot, and m =
// o∘tanh(c) into the h slot (no projection) or into ms (projection: a GEMM then forms h = m·P_projᵀ).
// A block takes whole rows (sequences b), its threads the row's hidden units: no per-element
// division, and the length test once per row.
template <typename T>
__device__ void lstm_step(const T* __restrict__ gx, const T* __restrict__ gh, const T* __restrict__ params,
                          T* __restrict__ work, const int* __restrict__ lengths, long long s, long long steps,
                          long long B, long long H, long long Hh, long long proj, long long bofs, long long acts_ofs,
                          long long hs_ofs, long long cs_ofs, long long ms_ofs, long long pl_size) {
  const crnn::StepDir q = crnn::step_dir(s, steps, pl_size);
  const long long G = 4 * H;
  opgen::for_each_row(B, [&](long long b) {
    crnn::lstm_row(b, gx + q.d * steps * B * G, gh + q.d * B * G, params, work, lengths, q.t, q.d, B, H, Hh, proj,
                   bofs + q.d * 2 * G, acts_ofs + q.pl, hs_ofs + q.pl, cs_ofs + q.pl, ms_ofs + q.pl,
                   crnn::whole_row(H));
  });
}

// After the projection GEMM (launch s, crnn::step_dir; grid [cell_blocks, D]): sequences past their
// end keep their previous h.
template <typename T>
__device__ void proj_carry(T* __restrict__ work, const int* __restrict__ lengths, long long s, long long steps,
                           long long B, long long Hh, long long hs_ofs, long long pl_size) {
  const crnn::StepDir q = crnn::step_dir(s, steps, pl_size);
  const long long t = q.t, prev = t + q.d, next = t + 1 - q.d;
  hs_ofs += q.pl;
  crnn::each(B * Hh, [&](long long i) {
    const long long b = i / Hh;
    if (t >= lengths[b]) work[hs_ofs + next * B * Hh + i] = work[hs_ofs + prev * B * Hh + i];
  });
}

namespace crnn {

// Row b of gru_step (below), by the block's threads.
template <typename T>
__device__ __forceinline__ void gru_row(long long b, const T* __restrict__ gx, const T* __restrict__ gh,
                                        const T* __restrict__ params, T* __restrict__ work,
                                        const int* __restrict__ lengths, long long t, long long d, long long B,
                                        long long H, long long bofs, long long acts_ofs, long long hs_ofs, Span span) {
  typedef typename crnn::Acc<T>::type A;
  const long long prev = t + d, next = t + 1 - d;
  const T* __restrict__ bw = params + bofs;
  const T* __restrict__ br = bw + 3 * H;
  T* __restrict__ acts = work + acts_ofs + (t * B + b) * 4 * H;
  const T* __restrict__ h_prev = work + hs_ofs + (prev * B + b) * H;
  T* __restrict__ h_next = work + hs_ofs + (next * B + b) * H;
  if (t >= lengths[b]) {
    crnn::span_each(span, [&](long long j) {
      for (int g = 0; g < 4; ++g) crnn::store(acts + g * H + j, A(0));
      h_next[j] = h_prev[j];
    });
    return;
  }
  const T* __restrict__ x = gx + (t * B + b) * 3 * H;
  const T* __restrict__ h = gh + b * 3 * H;
  crnn::row_runs(span, [&](long long j, CRNN_RUN run) {
    constexpr int R = decltype(run)::n;
    A r[R], u[R], hn[R], n[R];
    CRNN_UNROLL for (int q = 0; q < R; ++q) {
      const long long k = j + q;
      r[q] = crnn::load(x + k) + crnn::load(bw + k) + crnn::load(h + k) + crnn::load(br + k);
      u[q] = crnn::load(x + H + k) + crnn::load(bw + H + k) + crnn::load(h + H + k) + crnn::load(br + H + k);
      hn[q] = crnn::load(h + 2 * H + k) + crnn::load(br + 2 * H + k);
    }
    crnn::sigmoid_run(r);
    crnn::sigmoid_run(u);
    CRNN_UNROLL for (int q = 0; q < R; ++q) {
      n[q] = crnn::load(x + 2 * H + j + q) + crnn::load(bw + 2 * H + j + q) + r[q] * hn[q];
    }
    crnn::tanh_run(n);
    A hv[R];
    CRNN_UNROLL for (int q = 0; q < R; ++q) hv[q] = (A(1) - u[q]) * n[q] + u[q] * crnn::load(h_prev + j + q);
    crnn::store_run(acts + j, r);
    crnn::store_run(acts + H + j, u);
    crnn::store_run(acts + 2 * H + j, n);
    crnn::store_run(acts + 3 * H + j, hn);
    crnn::store_run(h_next + j, hv);
  });
}

}  // namespace crnn

// One GRU step (linear before reset): r, u = σ(gx + bW + gh + bR), n = tanh(gx_n + bW_n + r∘(gh_n + bR_n)),
// h = (1 − u)∘n + u∘h_prev; acts keep r, u, n and gh_n + bR_n for the gradient. Launch s and rows as
// in lstm_step.
template <typename T>
__device__ void gru_step(const T* __restrict__ gx, const T* __restrict__ gh, const T* __restrict__ params,
                         T* __restrict__ work, const int* __restrict__ lengths, long long s, long long steps,
                         long long B, long long H, long long bofs, long long acts_ofs, long long hs_ofs,
                         long long pl_size) {
  const crnn::StepDir q = crnn::step_dir(s, steps, pl_size);
  const long long G = 3 * H;
  opgen::for_each_row(B, [&](long long b) {
    crnn::gru_row(b, gx + q.d * steps * B * G, gh + q.d * B * G, params, work, lengths, q.t, q.d, B, H,
                  bofs + q.d * 2 * G, acts_ofs + q.pl, hs_ofs + q.pl, crnn::whole_row(H));
  });
}

namespace crnn {

// Row b of rnn_step (below), by the block's threads.
template <typename T>
__device__ __forceinline__ void rnn_row(long long b, const T* __restrict__ gx, const T* __restrict__ gh,
                                        const T* __restrict__ params, T* __restrict__ work,
                                        const int* __restrict__ lengths, long long t, long long d,
                                        long long B, long long H, long long bofs, long long hs_ofs, long long relu,
                                        Span span) {
  typedef typename crnn::Acc<T>::type A;
  const long long prev = t + d, next = t + 1 - d;
  const T* __restrict__ h_prev = work + hs_ofs + (prev * B + b) * H;
  T* __restrict__ h_next = work + hs_ofs + (next * B + b) * H;
  if (t >= lengths[b]) {
    crnn::span_each(span, [&](long long j) { h_next[j] = h_prev[j]; });
    return;
  }
  const T* __restrict__ x = gx + (t * B + b) * H;
  const T* __restrict__ h = gh + b * H;
  const T* __restrict__ bw = params + bofs;
  crnn::row_runs(span, [&](long long j, CRNN_RUN run) {
    constexpr int R = decltype(run)::n;
    A a[R];
    CRNN_UNROLL for (int q = 0; q < R; ++q) {
      const long long k = j + q;
      a[q] = crnn::load(x + k) + crnn::load(h + k) + crnn::load(bw + k) + crnn::load(bw + H + k);
    }
    if (relu) {
      CRNN_UNROLL for (int q = 0; q < R; ++q) a[q] = crnn::relu(a[q]);
    } else {
      crnn::tanh_run(a);
    }
    CRNN_UNROLL for (int q = 0; q < R; ++q) crnn::store(h_next + j + q, a[q]);
  });
}

}  // namespace crnn

// One rnn_relu / rnn_tanh step: h = act(gx + bW + gh + bR). Launch s and rows as in lstm_step.
template <typename T>
__device__ void rnn_step(const T* __restrict__ gx, const T* __restrict__ gh, const T* __restrict__ params,
                         T* __restrict__ work, const int* __restrict__ lengths, long long s, long long steps,
                         long long B, long long H, long long bofs, long long hs_ofs, long long relu,
                         long long pl_size) {
  const crnn::StepDir q = crnn::step_dir(s, steps, pl_size);
  opgen::for_each_row(B, [&](long long b) {
    crnn::rnn_row(b, gx + q.d * steps * B * H, gh + q.d * B * H, params, work, lengths, q.t, q.d, B, H,
                  bofs + q.d * 2 * H, hs_ofs + q.pl, relu, crnn::whole_row(H));
  });
}

// The persistent variant of one layer, every direction (issue 23; the launch plan's `persistent`
// variant: no projection, gates·H·H ≤ persistent_max_weights, batch ≤ 64): every time step in one
// launch instead of a GEMM and a step kernel per step. Grid [ceildiv(B, 4), D]: block (r, d) takes
// batch rows [4r, 4r + 4) of direction d = blockIdx.y (its pseudo-layer d·pl_size after direction
// 0's offsets, its weights d·layer_w, its biases d·2·G; its slots of gx and gh, as fused_step's); a
// row's recurrence needs only that row, so no block waits for another (no grid-wide barrier). Per step the block's threads form its
// rows of gh = h_prev·Rᵀ (summed in Acc<T>, k = 0, 1, ..., H − 1, stored as T like the GEMM's
// output), then run the step kernel's row function on each row, with a barrier after each phase.
// `kind`: 0 rnn_relu/rnn_tanh, 1 lstm, 2 gru.
template <typename T>
__device__ void persistent_layer(const T* __restrict__ gx, T* __restrict__ gh, const T* __restrict__ params,
                                 T* __restrict__ work, const int* __restrict__ lengths, long long steps, long long B,
                                 long long H, long long gates, long long kind, long long relu, long long rofs,
                                 long long layer_w, long long bofs, long long acts_ofs, long long hs_ofs,
                                 long long cs_ofs, long long pl_size) {
  typedef typename crnn::Acc<T>::type A;
  constexpr int kRows = 4;
  const long long b0 = static_cast<long long>(blockIdx.x) * kRows;
  const long long rows = B - b0 < kRows ? B - b0 : kRows, G = gates * H;
  if (rows <= 0) return;  // (the whole block: no barrier is left waiting)
  const long long d = blockIdx.y, pl = d * pl_size;
  gx += d * steps * B * G;
  gh += d * B * G;
  bofs += d * 2 * G;
  acts_ofs += pl;
  hs_ofs += pl;
  cs_ofs += pl;
  const T* __restrict__ R = params + rofs + d * layer_w;  // [G, H]: gate row c's weights on h
  for (long long s = 0; s < steps; ++s) {
    const long long t = s + d * (steps - 1 - 2 * s);
    const T* __restrict__ h_prev = work + hs_ofs + (t + d) * B * H;
    // a thread per gate column c, for all the block's rows at once: each weight read once per step
    // (the rows' h_prev values are the same address across the warp: broadcasts)
    for (long long c = threadIdx.x; c < G; c += blockDim.x) {
      A sum[kRows];
#pragma unroll
      for (int r = 0; r < kRows; ++r) sum[r] = A(0);
      for (long long k = 0; k < H; ++k) {
        const A w = crnn::load(R + c * H + k);
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
          if (r < rows) sum[r] += crnn::load(h_prev + (b0 + r) * H + k) * w;
        }
      }
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        if (r < rows && t < lengths[b0 + r]) crnn::store(gh + (b0 + r) * G + c, sum[r]);  // (else unread)
      }
    }
    __syncthreads();  // the rows of gh are in place
    for (long long r = 0; r < rows; ++r) {
      if (kind == 1) {
        crnn::lstm_row(b0 + r, gx, gh, params, work, lengths, t, d, B, H, H, 0LL, bofs, acts_ofs, hs_ofs, cs_ofs, 0LL,
                       crnn::whole_row(H));
      } else if (kind == 2) {
        crnn::gru_row(b0 + r, gx, gh, params, work, lengths, t, d, B, H, bofs, acts_ofs, hs_ofs, crnn::whole_row(H));
      } else {
        crnn::rnn_row(b0 + r, gx, gh, params, work, lengths, t, d, B, H, bofs, hs_ofs, relu, crnn::whole_row(H));
      }
    }
    __syncthreads();  // the states of step t are in place before the next step reads them
  }
}

namespace crnn {

// The fused steps' tiles (issue 23 item 1): a block takes 32 batch rows × 32 units of a step, its
// recurrent products through opgen::matmul_tile (kernels/_matmul.cuh; 256 threads in the GPU form,
// a 2×2 piece of each tile per thread) and then the gate math of those cells, so the gates never
// make a round trip through a separate kernel. The launch plans size their grids to match:
// [ceildiv(batch, 32), ceildiv(units, 32), directions] and 256 threads.
typedef opgen::MatmulTiles<32, 32, 16, 2, 2> StepTiles;

// Whether any of the block's rows (its tile's, blockIdx.x) is valid at time t: opgen::tile_any_row.
__device__ __forceinline__ bool tile_rows_live(const int* __restrict__ lengths, long long t, long long B) {
  return opgen::tile_any_row<StepTiles>(B, blockIdx.x, [=](long long b) { return t < lengths[b]; });
}

// The cells of the block's tile of [B, n] (blockIdx.x, .y), through opgen::for_each_tile_cell:
// f(b, j0, j1) takes units [j0, j1) of row b itself (a whole row on thread 0 in the host form, one
// unit on a thread of its own on the GPU): the row functions' span is cell_span(j0, j1).
template <typename F>
__device__ __forceinline__ void tile_cells(long long B, long long n, const F& f) {
  opgen::for_each_tile_cell<StepTiles>(B, n, blockIdx.x, blockIdx.y, f);
}
__device__ __forceinline__ Span cell_span(long long j0, long long j1) { return Span{j0, j1, false}; }

}  // namespace crnn

// The fused variant of one time step s of every direction of a layer (the launch plan's `fused` let:
// the GPU's plan where the persistent variant does not apply). Grid [ceildiv(B, 32), ceildiv(H, 32),
// D]: direction d = blockIdx.z at time t = s (forward) or T − 1 − s (backward), rows and units by
// blockIdx.x and .y. Per block: gh's tile of each gate, h_prev·R_gᵀ (opgen::matmul_tile: summed in
// Acc<T> in order k = 0, 1, ..., Hh − 1, stored as T, as the GEMM's output is), a barrier, then the step
// kernel's row function on the tile's cells. gx and gh hold a slot per direction ([D, T·B, G·H] and
// [D, B, G·H]); the pseudo-layer of direction d lies d·pl_size after direction 0's offsets, its
// weights d·layer_w after, its biases d·2·G·H after. `kind`: 0 rnn_relu/rnn_tanh, 1 lstm, 2 gru. With
// a projection (lstm) the row function writes m = o∘tanh(c) and fused_proj forms h.
template <typename T>
__device__ void fused_step(const T* __restrict__ gx, T* __restrict__ gh, const T* __restrict__ params,
                           T* __restrict__ work, const int* __restrict__ lengths, long long s, long long steps,
                           long long B, long long H, long long Hh, long long gates, long long kind, long long relu,
                           long long proj, long long rofs, long long layer_w, long long bofs, long long acts_ofs,
                           long long hs_ofs, long long cs_ofs, long long ms_ofs, long long pl_size) {
  const long long d = blockIdx.z, t = s + d * (steps - 1 - 2 * s), G = gates * H;
  if (opgen::tile_outside<crnn::StepTiles>(B, H, blockIdx.x, blockIdx.y)) return;  // (before any barrier)
  const long long pl = d * pl_size, bofs_d = bofs + d * 2 * G;
  const T* __restrict__ gx_d = gx + d * steps * B * G;
  T* __restrict__ gh_d = gh + d * B * G;
  if (crnn::tile_rows_live(lengths, t, B)) {
    const T* __restrict__ R = params + rofs + d * layer_w;  // [G, Hh]: gate row c's weights on h
    // the gates' products share h_prev: its panel loaded once for all of them (R_g a gate's H rows on)
    const auto h_prev = opgen::matrix_in(work + hs_ofs + pl + (t + d) * B * Hh, Hh);
    const int n_gates = static_cast<int>(gates);  // int32 ok: 1, 3 or 4
    opgen::matmul_tile_groups<crnn::StepTiles, 4>(B, H, Hh, h_prev, opgen::matrix_in(R, Hh, true),
                                                  opgen::matrix_out(gh_d, G), false, blockIdx.x, blockIdx.y, n_gates,
                                                  H * Hh, H);
  }
  __syncthreads();  // the tile of gh is in place (rows past their end leave it unread)
  crnn::tile_cells(B, H, [=](long long b, long long j0, long long j1) {  // (by value: as persistent_layer's)
    const crnn::Span span = crnn::cell_span(j0, j1);
    if (kind == 1) {
      crnn::lstm_row(b, gx_d, gh_d, params, work, lengths, t, d, B, H, Hh, proj, bofs_d, acts_ofs + pl,
                     hs_ofs + pl, cs_ofs + pl, ms_ofs + pl, span);
    } else if (kind == 2) {
      crnn::gru_row(b, gx_d, gh_d, params, work, lengths, t, d, B, H, bofs_d, acts_ofs + pl, hs_ofs + pl, span);
    } else {
      crnn::rnn_row(b, gx_d, gh_d, params, work, lengths, t, d, B, H, bofs_d, hs_ofs + pl, relu, span);
    }
  });
}

// With a projection, after fused_step: h = m·P_projᵀ for step s of every direction (the GEMM and
// proj_carry of the unfused steps in one launch). Grid [ceildiv(B, 32), ceildiv(Hh, 32), D]; rows
// past their end keep their previous h.
template <typename T>
__device__ void fused_proj(const T* __restrict__ params, T* __restrict__ work, const int* __restrict__ lengths,
                           long long s, long long steps, long long B, long long H, long long Hh, long long pofs,
                           long long layer_w, long long hs_ofs, long long ms_ofs, long long pl_size) {
  const long long d = blockIdx.z, t = s + d * (steps - 1 - 2 * s);
  if (opgen::tile_outside<crnn::StepTiles>(B, Hh, blockIdx.x, blockIdx.y)) return;  // (before any barrier)
  T* __restrict__ hs = work + hs_ofs + d * pl_size;
  T* __restrict__ h_next = hs + (t + 1 - d) * B * Hh;
  const T* __restrict__ h_prev = hs + (t + d) * B * Hh;
  if (crnn::tile_rows_live(lengths, t, B)) {
    const T* __restrict__ m = work + ms_ofs + d * pl_size + t * B * H;
    opgen::matmul_tile<crnn::StepTiles>(B, Hh, H, opgen::matrix_in(m, H),
                                        opgen::matrix_in(params + pofs + d * layer_w, H, true),
                                        opgen::matrix_out(h_next, Hh), false, blockIdx.x, blockIdx.y);
  }
  __syncthreads();  // the tile of h is in place
  crnn::tile_cells(B, Hh, [=](long long b, long long j0, long long j1) {
    const crnn::Span span = crnn::cell_span(j0, j1);
    if (t >= lengths[b]) crnn::span_each(span, [&](long long j) { h_next[b * Hh + j] = h_prev[b * Hh + j]; });
  });
}

// output_h[p] (and output_c[p]) from the final slot (1 − d)·T.
template <typename T>
__device__ void final_state(T* __restrict__ output_h, T* __restrict__ output_c, const T* __restrict__ work,
                            long long p, long long d, long long LD, long long T_, long long B, long long Hh,
                            long long H, long long hs_ofs, long long cs_ofs, long long lstm, int time_major) {
  const long long nh = B * Hh, slot = (1 - d) * T_;
  crnn::each(nh + lstm * B * H, [&](long long i) {
    if (i < nh) {
      const long long b = i / Hh, j = i - b * Hh;
      output_h[crnn::state_index(time_major, p, b, j, LD, B, Hh)] = work[hs_ofs + slot * nh + i];
    } else {
      const long long k = i - nh, b = k / H, j = k - b * H;
      output_c[crnn::state_index(time_major, p, b, j, LD, B, H)] = work[cs_ofs + slot * B * H + k];
    }
  });
}

// Layer l's output [T, B, D·Hh] (forward | backward, zero past each sequence's end) from its h
// slots: for the last layer into `output` in the caller's layout, else (times the dropout mask
// when training with dropout > 0) into work at x_ofs as the next layer's input, the mask at
// x_ofs + T·B·D·Hh. Rows q = (t·B + b)·D + d of Hh elements: element j of row q is flat index
// q·Hh + j, so the host form copies whole rows.
template <typename T>
__device__ void layer_output(T* __restrict__ work, T* __restrict__ output, const int* __restrict__ lengths,
                             long long l, long long L, long long D, long long T_, long long B, long long Hh,
                             long long hs_ofs, long long pl_size, long long x_ofs, float dropout, long long seed,
                             long long seed2, int is_training, int time_major) {
  typedef typename crnn::Acc<T>::type A;
  const long long W = D * Hh, n = T_ * B * W;
  const bool last = l == L - 1, drop = is_training && dropout > 0.f && !last;
  const unsigned long long key =
      crnn::mix64(crnn::mix64(static_cast<unsigned long long>(seed)) ^
                  (static_cast<unsigned long long>(seed2) + static_cast<unsigned long long>(l + 1) * 0xD1B54A32D192ED03ULL));
  const float scale = 1.f / (1.f - dropout);
  opgen::for_each_row(T_ * B * D, [&](long long q) {
    const long long r = q / D, d = q - r * D, t = r / B, b = r - t * B;
    const T* __restrict__ h = work + hs_ofs + d * pl_size + ((t + 1 - d) * B + b) * Hh;
    const bool valid = t < lengths[b];
    const long long base = q * Hh;  // the flat index of element 0
    if (last) {
      T* __restrict__ o = output + (time_major ? base : (b * T_ + t) * W + d * Hh);
      if (valid) opgen::row_for_each(Hh, [&](long long j) { o[j] = h[j]; });
      else opgen::row_for_each(Hh, [&](long long j) { crnn::store(o + j, A(0)); });
      return;
    }
    T* __restrict__ x = work + x_ofs + base;
    T* __restrict__ mask_out = work + x_ofs + n + base;
    if (!drop) {
      opgen::row_for_each(Hh, [&](long long j) {
        crnn::store(x + j, valid ? crnn::load(h + j) : A(0));
        crnn::store(mask_out + j, A(1));
      });
      return;
    }
    opgen::row_for_each(Hh, [&](long long j) {
      const unsigned long long z =
          crnn::mix64(key + static_cast<unsigned long long>(base + j + 1) * 0x9E3779B97F4A7C15ULL);
      const float u = static_cast<float>(z >> 40) * (1.f / 16777216.f);
      const A mask = u >= dropout ? A(scale) : A(0);
      crnn::store(x + j, (valid ? crnn::load(h + j) : A(0)) * mask);
      crnn::store(mask_out + j, mask);
    });
  });
}

// ---------------------------------------------------------------------------------- backward --

// dy [T, B, D·Hh] (time-major) from output_backprop, zero past each sequence's end; a row
// (t, b) of W elements at a time.
template <typename T>
__device__ void grad_output_in(const T* __restrict__ output_backprop, T* __restrict__ dy,
                               const int* __restrict__ lengths, long long T_, long long B, long long W,
                               int time_major) {
  typedef typename crnn::Acc<T>::type A;
  opgen::for_each_row(T_ * B, [&](long long r) {
    const long long t = r / B, b = r - t * B;
    T* __restrict__ o = dy + r * W;
    if (t >= lengths[b]) {
      opgen::row_for_each(W, [&](long long k) { crnn::store(o + k, A(0)); });
      return;
    }
    const T* __restrict__ s = output_backprop + (time_major ? r : b * T_ + t) * W;
    opgen::row_for_each(W, [&](long long k) { o[k] = s[k]; });
  });
}

template <typename T>
__device__ void fill_ones(T* __restrict__ ones, long long n) {
  typedef typename crnn::Acc<T>::type A;
  crnn::each(n, [&](long long i) { crnn::store(ones + i, A(1)); });
}

// rt = R_dᵀ ([Hh, G]) of direction d = blockIdx.y, from R_d ([G, Hh]) at rofs + d·layer_w: the cpu plan's
// per-step product h·Rᵀ then reads its B untransposed, which OpenBLAS's SkylakeX kernels run faster at
// [32, 256]·[256, 1024] (~210 against ~307 µs); NN sums in another order than NT for some sizes, so the
// bits move within the op's ULP bounds (bench/RESULTS.md, 2026-11-30 04:40).
template <typename T>
__device__ void transpose_r(const T* __restrict__ params, T* __restrict__ rt, long long rofs, long long layer_w,
                            long long G, long long Hh) {
  const long long d = blockIdx.y;
  opgen::transpose_into(params + rofs + d * layer_w, rt + d * G * Hh, G, Hh);
}

// buf[to + i] = buf[from + i] for i < n (the spans apart). Outside gru both bias gradients of a
// pseudo-layer are 1ᵀ·dG of the same dG: the second is a copy of the first product rather than the
// same GEMM again (a [1, G·H] product over every step: ~0.3–0.6 ms on the cpu, a copy ~1 µs).
template <typename T>
__device__ void copy_span(T* __restrict__ buf, long long from, long long to, long long n) {
  crnn::each(n, [&](long long i) { buf[to + i] = buf[from + i]; });
}

// The carried gradients of direction d (its slots of dh and dc) start from output_h_backprop[p]
// (and output_c_backprop[p]).
template <typename T>
__device__ void init_grad(const T* __restrict__ output_h_backprop, const T* __restrict__ output_c_backprop,
                          T* __restrict__ dh_slots, T* __restrict__ dc_slots, long long p, long long d, long long LD,
                          long long B, long long Hh, long long H, long long lstm, int time_major) {
  T* __restrict__ dh = dh_slots + d * B * Hh;
  T* __restrict__ dc = dc_slots + lstm * d * B * H;
  const long long nh = B * Hh;
  crnn::each(nh + lstm * B * H, [&](long long i) {
    if (i < nh) {
      const long long b = i / Hh, j = i - b * Hh;
      dh[i] = output_h_backprop[crnn::state_index(time_major, p, b, j, LD, B, Hh)];
    } else {
      const long long k = i - nh, b = k / H, j = k - b * H;
      dc[k] = output_c_backprop[crnn::state_index(time_major, p, b, j, LD, B, H)];
    }
  });
}

// input_h_backprop[p] (and input_c_backprop[p]) from direction d's carried gradients.
template <typename T>
__device__ void final_grad(const T* __restrict__ dh_slots, const T* __restrict__ dc_slots,
                           T* __restrict__ input_h_backprop, T* __restrict__ input_c_backprop, long long p, long long d,
                           long long LD, long long B, long long Hh, long long H, long long lstm, int time_major) {
  const T* __restrict__ dh = dh_slots + d * B * Hh;
  const T* __restrict__ dc = dc_slots + lstm * d * B * H;
  const long long nh = B * Hh;
  crnn::each(nh + lstm * B * H, [&](long long i) {
    if (i < nh) {
      const long long b = i / Hh, j = i - b * Hh;
      input_h_backprop[crnn::state_index(time_major, p, b, j, LD, B, Hh)] = dh[i];
    } else {
      const long long k = i - nh, b = k / H, j = k - b * H;
      input_c_backprop[crnn::state_index(time_major, p, b, j, LD, B, H)] = dc[k];
    }
  });
}

namespace crnn {

// With a projection h = P_proj·m, element j of a row b at time t (`live`: t < len[b]; the rows of
// direction d's slots): dhp[t] = dh + dy[t] for valid sequences (then dh = 0: the recurrent product
// refills it), 0 elsewhere (dh carried on unchanged). proj_grad and fused_proj_cells share it.
template <typename T>
__device__ __forceinline__ void proj_grad_cell(long long j, bool live, const T* __restrict__ dy_row,
                                               T* __restrict__ dhp_row, T* __restrict__ dh_row) {
  typedef typename crnn::Acc<T>::type A;
  crnn::store(dhp_row + j, live ? crnn::load(dh_row + j) + crnn::load(dy_row + j) : A(0));
  if (live) crnn::store(dh_row + j, A(0));
}

}  // namespace crnn

namespace crnn {

// The time of the backward's launch s in direction d: last first forward, first first backward.
__device__ __forceinline__ long long grad_time(long long s, long long steps, long long d) {
  return (steps - 1 - s) * (1 - d) + s * d;
}

}  // namespace crnn

// proj_grad_cell on every element of direction d = blockIdx.y's slots at launch s (crnn::grad_time;
// grid [cell_blocks, D], with the GEMMs of the unfused steps).
template <typename T>
__device__ void proj_grad(const T* __restrict__ dy, T* __restrict__ dhp_slots, T* __restrict__ dh_slots,
                          const int* __restrict__ lengths, long long s, long long B, long long Hh, long long D,
                          long long steps) {
  const long long d = blockIdx.y, t = crnn::grad_time(s, steps, d);
  T* __restrict__ dhp = dhp_slots + d * steps * B * Hh;
  T* __restrict__ dh = dh_slots + d * B * Hh;
  crnn::each(B * Hh, [&](long long i) {
    const long long b = i / Hh;
    crnn::proj_grad_cell(i - b * Hh, t < lengths[b], dy + ((t * B + b) * D + d) * Hh, dhp + (t * B + b) * Hh,
                         dh + b * Hh);
  });
}

namespace crnn {

// Row b of lstm_grad_step (below), by the block's threads: the step kernel and the persistent one share it.
template <typename T>
__device__ __forceinline__ void lstm_grad_row(long long b, const T* __restrict__ dy, const T* __restrict__ dm,
                                              const T* __restrict__ reserve, const int* __restrict__ lengths,
                                              T* __restrict__ dg, T* __restrict__ dh, T* __restrict__ dc, long long t,
                                              long long d, long long B, long long H, long long Hh, long long D,
                                              long long proj, long long acts_ofs, long long cs_ofs, Span span) {
  typedef typename crnn::Acc<T>::type A;
  const long long prev = t + d, next = t + 1 - d;
  T* __restrict__ g = dg + (t * B + b) * 4 * H;
  if (t >= lengths[b]) {
    crnn::span_each(span, [&](long long j) {
      for (int q = 0; q < 4; ++q) crnn::store(g + q * H + j, A(0));
    });
    return;
  }
  const T* __restrict__ acts = reserve + acts_ofs + (t * B + b) * 4 * H;
  const T* __restrict__ c_prev = reserve + cs_ofs + (prev * B + b) * H;
  const T* __restrict__ c_next = reserve + cs_ofs + (next * B + b) * H;
  const T* __restrict__ y = dy + (t * B + b) * D * Hh + d * Hh;
  const T* __restrict__ dmr = dm + b * H;
  T* __restrict__ dhr = dh + b * H;
  T* __restrict__ dcr = dc + b * H;
  crnn::row_runs(span, [&](long long j, CRNN_RUN run) {
    constexpr int R = decltype(run)::n;
    A tc[R], mg[R], gi[R], gf[R], gc[R], go[R], dcn[R];
    CRNN_UNROLL for (int q = 0; q < R; ++q) tc[q] = crnn::load(c_next + j + q);
    crnn::tanh_run(tc);
    if (proj) {  // (the choice outside the run's loop: a branch in it keeps the host form scalar)
      CRNN_UNROLL for (int q = 0; q < R; ++q) mg[q] = crnn::load(dmr + j + q);
    } else {
      CRNN_UNROLL for (int q = 0; q < R; ++q) mg[q] = crnn::load(dhr + j + q) + crnn::load(y + j + q);
    }
    CRNN_UNROLL for (int q = 0; q < R; ++q) {
      const long long k = j + q;
      const A ig = crnn::load(acts + k), fg = crnn::load(acts + H + k), cg = crnn::load(acts + 2 * H + k),
              og = crnn::load(acts + 3 * H + k);
      const A m_grad = mg[q];
      const A dct = crnn::load(dcr + k) + m_grad * og * (A(1) - tc[q] * tc[q]);
      gi[q] = dct * cg * ig * (A(1) - ig);
      gf[q] = dct * crnn::load(c_prev + k) * fg * (A(1) - fg);
      gc[q] = dct * ig * (A(1) - cg * cg);
      go[q] = m_grad * tc[q] * og * (A(1) - og);
      dcn[q] = dct * fg;
    }
    crnn::store_run(g + j, gi);
    crnn::store_run(g + H + j, gf);
    crnn::store_run(g + 2 * H + j, gc);
    crnn::store_run(g + 3 * H + j, go);
    crnn::store_run(dcr + j, dcn);
    if (!proj) {
      CRNN_UNROLL for (int q = 0; q < R; ++q) crnn::store(dhr + j + q, A(0));
    }
  });
}

}  // namespace crnn

// LSTM step gradient at time t: from dm (dh + dy[t], or, with a projection, dhp[t]·P_proj) and
// the carried dc, the pre-activation gradients dg[t] = [di | df | dc̃ | do] (both the W and the R
// side), and the carried dc = dc_t∘f; dh restarts from 0 (the GEMM dh += dg[t]·R follows). Whole
// rows (sequences b) per block, as in lstm_step; launch s of every direction: grid [row_blocks, D],
// direction d = blockIdx.y at time crnn::grad_time(s, steps, d), its pseudo-layer d·pl_size after
// direction 0's offsets, its slots of dg, dh, dc (and dm) d slots on.
template <typename T>
__device__ void lstm_grad_step(const T* __restrict__ dy, const T* __restrict__ dm, const T* __restrict__ reserve,
                               const int* __restrict__ lengths, T* __restrict__ dg, T* __restrict__ dh,
                               T* __restrict__ dc, long long s, long long B, long long H, long long Hh, long long D,
                               long long proj, long long acts_ofs, long long cs_ofs, long long steps,
                               long long pl_size) {
  const long long d = blockIdx.y, t = crnn::grad_time(s, steps, d), pl = d * pl_size;
  T* __restrict__ dg_d = dg + d * steps * B * 4 * H;
  T* __restrict__ dh_d = dh + d * B * Hh;
  T* __restrict__ dc_d = dc + d * B * H;
  const T* __restrict__ dm_d = dm + proj * d * B * H;
  opgen::for_each_row(B, [&](long long b) {
    crnn::lstm_grad_row(b, dy, dm_d, reserve, lengths, dg_d, dh_d, dc_d, t, d, B, H, Hh, D, proj, acts_ofs + pl,
                        cs_ofs + pl, crnn::whole_row(H));
  });
}

namespace crnn {

// Row b of gru_grad_step (below), by the block's threads.
template <typename T>
__device__ __forceinline__ void gru_grad_row(long long b, const T* __restrict__ dy, const T* __restrict__ reserve,
                                             const int* __restrict__ lengths, T* __restrict__ dgw, T* __restrict__ dgr,
                                             T* __restrict__ dh, long long t, long long d, long long B, long long H,
                                             long long D, long long acts_ofs, long long hs_ofs, Span span) {
  typedef typename crnn::Acc<T>::type A;
  const long long prev = t + d;
  T* __restrict__ gw = dgw + (t * B + b) * 3 * H;
  T* __restrict__ gr = dgr + (t * B + b) * 3 * H;
  if (t >= lengths[b]) {
    crnn::span_each(span, [&](long long j) {
      for (int q = 0; q < 3; ++q) {
        crnn::store(gw + q * H + j, A(0));
        crnn::store(gr + q * H + j, A(0));
      }
    });
    return;
  }
  const T* __restrict__ acts = reserve + acts_ofs + (t * B + b) * 4 * H;
  const T* __restrict__ y = dy + (t * B + b) * D * H + d * H;
  const T* __restrict__ h_prev = reserve + hs_ofs + (prev * B + b) * H;
  T* __restrict__ dhr = dh + b * H;
  crnn::row_runs(span, [&](long long j, CRNN_RUN run) {
    constexpr int R = decltype(run)::n;
    A dr[R], du[R], dn[R], dnr[R], dhn[R];
    CRNN_UNROLL for (int q = 0; q < R; ++q) {
      const long long k = j + q;
      const A r = crnn::load(acts + k), u = crnn::load(acts + H + k), n = crnn::load(acts + 2 * H + k),
              hn = crnn::load(acts + 3 * H + k);
      const A grad = crnn::load(dhr + k) + crnn::load(y + k);
      dn[q] = grad * (A(1) - u) * (A(1) - n * n);
      dr[q] = dn[q] * hn * r * (A(1) - r);
      du[q] = grad * (crnn::load(h_prev + k) - n) * u * (A(1) - u);
      dnr[q] = dn[q] * r;
      dhn[q] = grad * u;
    }
    crnn::store_run(gw + j, dr);
    crnn::store_run(gw + H + j, du);
    crnn::store_run(gw + 2 * H + j, dn);
    crnn::store_run(gr + j, dr);
    crnn::store_run(gr + H + j, du);
    crnn::store_run(gr + 2 * H + j, dnr);
    crnn::store_run(dhr + j, dhn);
  });
}

}  // namespace crnn

// GRU step gradient at time t: dgw[t] = [dr | du | dn] (the W side), dgr[t] = [dr | du | dn∘r]
// (the R side), and the direct part of dh_prev, dh∘u. Launch s and rows as in lstm_grad_step.
template <typename T>
__device__ void gru_grad_step(const T* __restrict__ dy, const T* __restrict__ reserve, const int* __restrict__ lengths,
                              T* __restrict__ dgw, T* __restrict__ dgr, T* __restrict__ dh, long long s, long long B,
                              long long H, long long D, long long acts_ofs, long long hs_ofs, long long steps,
                              long long pl_size) {
  const long long d = blockIdx.y, t = crnn::grad_time(s, steps, d), pl = d * pl_size;
  const long long slot = d * steps * B * 3 * H;
  T* __restrict__ dh_d = dh + d * B * H;
  opgen::for_each_row(B, [&](long long b) {
    crnn::gru_grad_row(b, dy, reserve, lengths, dgw + slot, dgr + slot, dh_d, t, d, B, H, D, acts_ofs + pl,
                       hs_ofs + pl, crnn::whole_row(H));
  });
}

namespace crnn {

// Row b of rnn_grad_step (below), by the block's threads.
template <typename T>
__device__ __forceinline__ void rnn_grad_row(long long b, const T* __restrict__ dy, const T* __restrict__ reserve,
                                             const int* __restrict__ lengths, T* __restrict__ dg, T* __restrict__ dh,
                                             long long t, long long d, long long B, long long H, long long D,
                                             long long hs_ofs, long long relu, Span span) {
  typedef typename crnn::Acc<T>::type A;
  const long long next = t + 1 - d;
  T* __restrict__ g = dg + (t * B + b) * H;
  if (t >= lengths[b]) {
    crnn::span_each(span, [&](long long j) { crnn::store(g + j, A(0)); });
    return;
  }
  const T* __restrict__ hs = reserve + hs_ofs + (next * B + b) * H;
  const T* __restrict__ y = dy + (t * B + b) * D * H + d * H;
  T* __restrict__ dhr = dh + b * H;
  crnn::row_runs(span, [&](long long j, CRNN_RUN run) {
    constexpr int R = decltype(run)::n;
    A out[R];
    CRNN_UNROLL for (int q = 0; q < R; ++q) {
      const A h = crnn::load(hs + j + q);
      const A grad = crnn::load(dhr + j + q) + crnn::load(y + j + q);
      out[q] = relu ? (h > A(0) ? grad : A(0)) : grad * (A(1) - h * h);
    }
    CRNN_UNROLL for (int q = 0; q < R; ++q) {
      crnn::store(g + j + q, out[q]);
      crnn::store(dhr + j + q, A(0));
    }
  });
}

}  // namespace crnn

// rnn_relu / rnn_tanh step gradient: dg[t] = (dh + dy[t])∘act'(h), dh restarts from 0. Launch s and
// rows as in lstm_grad_step.
template <typename T>
__device__ void rnn_grad_step(const T* __restrict__ dy, const T* __restrict__ reserve, const int* __restrict__ lengths,
                              T* __restrict__ dg, T* __restrict__ dh, long long s, long long B, long long H,
                              long long D, long long hs_ofs, long long relu, long long steps, long long pl_size) {
  const long long d = blockIdx.y, t = crnn::grad_time(s, steps, d);
  T* __restrict__ dg_d = dg + d * steps * B * H;
  T* __restrict__ dh_d = dh + d * B * H;
  opgen::for_each_row(B, [&](long long b) {
    crnn::rnn_grad_row(b, dy, reserve, lengths, dg_d, dh_d, t, d, B, H, D, hs_ofs + d * pl_size, relu,
                       crnn::whole_row(H));
  });
}

// The gradient's persistent variant of one layer, every direction (the launch plan's `persistent`
// variant, as persistent_layer's): every time step, last first, in one launch. Grid [ceildiv(B, 4),
// D]: block (r, d) takes batch rows [4r, 4r + 4) of direction d = blockIdx.y (its pseudo-layer
// d·pl_size after direction 0's offsets, its weights d·layer_w after, its slots of dG, dh, dc). Per step the block runs the step gradient's row function on each row, `grad_row(b,
// t)` (dG[t] and the carried dc; dh restarts from its direct part), then adds dh += dG[t]·R for its
// rows (summed in Acc<T>, c = 0, 1, ..., G − 1, the old dh added to the sum and rounded once, as the
// GEMM with beta 1 does), a barrier after each phase. Rows past their end have dG[t] = 0: their dh
// stays as it is. `g_side`: the R side of dG (dgr for GRU, else dgw). One kernel per mode below (a
// kernel holding all three row functions spilled registers for float16).
namespace crnn {

template <typename T, typename F>
__device__ __forceinline__ void persistent_grad(const F& grad_row, const T* __restrict__ g_side,
                                                const int* __restrict__ lengths, T* __restrict__ dh,
                                                const T* __restrict__ params, long long d, long long steps,
                                                long long B, long long H, long long gates, long long rofs) {
  typedef typename crnn::Acc<T>::type A;
  constexpr int kRows = 4;
  const long long b0 = static_cast<long long>(blockIdx.x) * kRows;
  const long long rows = B - b0 < kRows ? B - b0 : kRows, G = gates * H;
  if (rows <= 0) return;  // (the whole block: no barrier is left waiting)
  const T* __restrict__ R = params + rofs;  // [G, H]
  for (long long s = 0; s < steps; ++s) {
    const long long t = crnn::grad_time(s, steps, d);
    for (long long r = 0; r < rows; ++r) grad_row(b0 + r, t);
    __syncthreads();  // dG[t] and the direct part of dh are in place
    // a thread per unit k, for all the block's rows at once: each weight read once per step, the
    // lanes of a warp reading consecutive ones (the rows' dG values are broadcasts); int indices
    // where the rule bounds them (with long long ones NVRTC spilled registers here)
    const int h = static_cast<int>(H);  // int32 ok: the persistent rule keeps H·G ≤ 65536
    const int g_len = static_cast<int>(G);  // int32 ok: as H
    const T* __restrict__ g_rows = g_side + (t * B + b0) * G;
    for (int k = threadIdx.x; k < h; k += blockDim.x) {
      A sum[kRows];
#pragma unroll
      for (int r = 0; r < kRows; ++r) sum[r] = A(0);
      for (int c = 0; c < g_len; ++c) {
        const A w = crnn::load(R + static_cast<long long>(c) * h + k);
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
          if (r < rows) sum[r] += crnn::load(g_rows + r * G + c) * w;
        }
      }
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        const long long b = b0 + r;
        if (r < rows && t < lengths[b]) crnn::store(dh + b * H + k, sum[r] + crnn::load(dh + b * H + k));
      }
    }
    __syncthreads();  // dh for the next step is in place
  }
}

}  // namespace crnn

template <typename T>
__device__ void persistent_lstm_grad(const T* __restrict__ dy, const T* __restrict__ reserve,
                                     const int* __restrict__ lengths, T* __restrict__ dgw, T* __restrict__ dh,
                                     T* __restrict__ dc, const T* __restrict__ dm, const T* __restrict__ params,
                                     long long steps, long long B, long long H, long long D, long long rofs,
                                     long long layer_w, long long acts_ofs, long long cs_ofs, long long pl_size) {
  const long long d = blockIdx.y;
  rofs += d * layer_w;
  acts_ofs += d * pl_size;
  cs_ofs += d * pl_size;
  T* __restrict__ dg_d = dgw + d * steps * B * 4 * H;  // direction d's slots
  T* __restrict__ dh_d = dh + d * B * H;
  T* __restrict__ dc_d = dc + d * B * H;
  crnn::persistent_grad(
      [=](long long b, long long t) {  // (by value: a captured reference spilled to local memory)
        crnn::lstm_grad_row(b, dy, dm, reserve, lengths, dg_d, dh_d, dc_d, t, d, B, H, H, D, 0LL, acts_ofs, cs_ofs,
                            crnn::whole_row(H));
      },
      dg_d, lengths, dh_d, params, d, steps, B, H, 4LL, rofs);
}

template <typename T>
__device__ void persistent_gru_grad(const T* __restrict__ dy, const T* __restrict__ reserve,
                                    const int* __restrict__ lengths, T* __restrict__ dgw, T* __restrict__ dgr,
                                    T* __restrict__ dh, const T* __restrict__ params, long long steps, long long B,
                                    long long H, long long D, long long rofs, long long layer_w, long long acts_ofs,
                                    long long hs_ofs, long long pl_size) {
  const long long d = blockIdx.y;
  rofs += d * layer_w;
  acts_ofs += d * pl_size;
  hs_ofs += d * pl_size;
  const long long slot = d * steps * B * 3 * H, dh_slot = d * B * H;  // direction d's slots
  crnn::persistent_grad(
      [=](long long b, long long t) {  // (by value: a captured reference spilled to local memory)
        crnn::gru_grad_row(b, dy, reserve, lengths, dgw + slot, dgr + slot, dh + dh_slot, t, d, B, H, D, acts_ofs,
                           hs_ofs, crnn::whole_row(H));
      },
      dgr + slot, lengths, dh + dh_slot, params, d, steps, B, H, 3LL, rofs);
}

template <typename T>
__device__ void persistent_rnn_grad(const T* __restrict__ dy, const T* __restrict__ reserve,
                                    const int* __restrict__ lengths, T* __restrict__ dgw, T* __restrict__ dh,
                                    const T* __restrict__ params, long long steps, long long B, long long H,
                                    long long D, long long rofs, long long layer_w, long long hs_ofs, long long relu,
                                    long long pl_size) {
  const long long d = blockIdx.y;
  rofs += d * layer_w;
  hs_ofs += d * pl_size;
  T* __restrict__ dg_d = dgw + d * steps * B * H;  // direction d's slots
  T* __restrict__ dh_d = dh + d * B * H;
  crnn::persistent_grad(
      [=](long long b, long long t) {  // (by value: a captured reference spilled to local memory)
        crnn::rnn_grad_row(b, dy, reserve, lengths, dg_d, dh_d, t, d, B, H, D, hs_ofs, relu, crnn::whole_row(H));
      },
      dg_d, lengths, dh_d, params, d, steps, B, H, 1LL, rofs);
}

// The gradient's fused variant (the launch plan's `fused` let, as fused_step's): one launch per
// time step for every direction of a layer, plus a last one, steps + 1 in all, steps last first as
// in the unfused loop. Grid [ceildiv(B, 32), ceildiv(n, 32), D] as fused_step's (n: the units of the
// tile's product); direction d = blockIdx.z with its slots of dG, dh, dc (and dhp, dm). Launch s of
// a block: a matrix product into its tile (`product()`), a barrier, then a cell function on the
// tile's cells (`cells(b, span)`):
// * no projection (fused_<mode>_grad): the recurrent part of the previous step's gradient,
//   dh += dG[t']·R (t' the time of step s − 1; not in launch 0), then the step gradient's row function
//   at the time t of step s (not in launch `steps`): dG[t] and the carried dc, dh restarting from its
//   direct part;
// * with a projection (lstm), three kernels per launch: fused_lstm_proj_grad's phase 0, dh += dG[t']·R
//   alone (k = G, n = Hh; s > 0); then, for s < steps, fused_proj_cells' proj_grad_cell (dhp[t] = dh +
//   dy[t]) and fused_lstm_proj_grad's phase 1, dm = dhp[t]·P (k = Hh, n = H) and the row function,
//   which reads dm.
// Products through opgen::matmul_tile: summed in Acc<T> in order, stored as T (dh += ...: the old dh
// added to the sum and rounded once, as the GEMM with beta 1 does). A product whose rows have all
// ended is skipped (its dG rows are 0: dh += 0 changes nothing; dm is then unread).
namespace crnn {

template <typename P, typename F>
__device__ __forceinline__ void fused_grad(const P& product, const F& cells, bool has_product, bool has_cells,
                                           const int* __restrict__ lengths, long long product_time, long long B,
                                           long long n) {
  if (opgen::tile_outside<crnn::StepTiles>(B, n, blockIdx.x, blockIdx.y)) return;  // (before any barrier)
  if (has_product && crnn::tile_rows_live(lengths, product_time, B)) product();
  __syncthreads();  // the tile's product is in place
  if (has_cells) crnn::tile_cells(B, n, cells);
}

// dh[d] += dG[d][t]·R_d for the block's tile ([B, n] of dh, k = G): the recurrent part of the
// gradient of step t's input state. `g_side`: dgr for GRU, else dgw.
template <typename T>
__device__ __forceinline__ void recurrent_grad_tile(const T* __restrict__ g_side, T* __restrict__ dh,
                                                    const T* __restrict__ params, long long d, long long t,
                                                    long long steps, long long B, long long n, long long G,
                                                    long long rofs, long long layer_w) {
  opgen::matmul_tile<crnn::StepTiles>(B, n, G, opgen::matrix_in(g_side + (d * steps + t) * B * G, G),
                                      opgen::matrix_in(params + rofs + d * layer_w, n),
                                      opgen::matrix_out(dh + d * B * n, n), true, blockIdx.x, blockIdx.y);
}

}  // namespace crnn

// The fused variant's step gradient of an LSTM without a projection (see above).
template <typename T>
__device__ void fused_lstm_grad(const T* __restrict__ dy, const T* __restrict__ reserve,
                                const int* __restrict__ lengths, T* __restrict__ dgw, T* __restrict__ dh,
                                T* __restrict__ dc, const T* __restrict__ params, long long s, long long steps,
                                long long B, long long H, long long D, long long rofs, long long layer_w,
                                long long acts_ofs, long long cs_ofs, long long pl_size) {
  // (d and t are formed inside each phase: held across the product, they spilled registers for float64)
  crnn::fused_grad(
      [=]() {
        const long long d = blockIdx.z;
        crnn::recurrent_grad_tile(dgw, dh, params, d, crnn::grad_time(s - 1, steps, d), steps, B, H, 4 * H, rofs,
                                  layer_w);
      },
      [=](long long b, long long j0, long long j1) {
        const crnn::Span span = crnn::cell_span(j0, j1);
        const long long d = blockIdx.z;
        crnn::lstm_grad_row(b, dy, dy, reserve, lengths, dgw + d * steps * B * 4 * H, dh + d * B * H,
                            dc + d * B * H, crnn::grad_time(s, steps, d), d, B, H, H, D, 0LL, acts_ofs + d * pl_size,
                            cs_ofs + d * pl_size, span);  // (dm: unread without a projection)
      },
      s > 0, s < steps, lengths, crnn::grad_time(s - 1, steps, blockIdx.z), B, H);
}

// With a projection (see above), by `phase`: the recurrent product alone over [B, Hh] (0), or dm =
// dhp[t]·P and the row function over [B, H] (1). (A kernel for both cases spilled registers under
// NVRTC 13.5, and one for phase 0 alone under NVRTC 13.0 for float64.)
template <typename T>
__device__ void fused_lstm_proj_grad(const T* __restrict__ dy, const T* __restrict__ reserve,
                                     const int* __restrict__ lengths, T* __restrict__ dgw, T* __restrict__ dh,
                                     T* __restrict__ dc, T* __restrict__ dm, const T* __restrict__ dhp,
                                     const T* __restrict__ params, long long s, long long steps, long long B,
                                     long long H, long long Hh, long long D, long long phase, long long rofs,
                                     long long pofs, long long layer_w, long long acts_ofs, long long cs_ofs,
                                     long long pl_size) {
  // (d and t formed inside each phase, as in fused_lstm_grad)
  crnn::fused_grad(
      [=]() {
        const long long d = blockIdx.z;
        if (phase == 1) {
          const long long t = crnn::grad_time(s, steps, d);
          opgen::matmul_tile<crnn::StepTiles>(B, H, Hh, opgen::matrix_in(dhp + (d * steps + t) * B * Hh, Hh),
                                              opgen::matrix_in(params + pofs + d * layer_w, H),
                                              opgen::matrix_out(dm + d * B * H, H), false, blockIdx.x, blockIdx.y);
        } else {
          crnn::recurrent_grad_tile(dgw, dh, params, d, crnn::grad_time(s - 1, steps, d), steps, B, Hh, 4 * H, rofs,
                                    layer_w);
        }
      },
      [=](long long b, long long j0, long long j1) {
        const crnn::Span span = crnn::cell_span(j0, j1);
        const long long d = blockIdx.z;
        crnn::lstm_grad_row(b, dy, dm + d * B * H, reserve, lengths, dgw + d * steps * B * 4 * H, dh + d * B * Hh,
                            dc + d * B * H, crnn::grad_time(s, steps, d), d, B, H, Hh, D, 1LL,
                            acts_ofs + d * pl_size, cs_ofs + d * pl_size, span);
      },
      phase == 1 || s > 0, phase == 1 && s < steps, lengths,
      crnn::grad_time(phase == 1 ? s : s - 1, steps, blockIdx.z), B, phase == 1 ? H : Hh);
}

// With a projection, launch s's second kernel (s < steps; see above): dhp[t] = dh + dy[t] over [B, Hh].
template <typename T>
__device__ void fused_proj_cells(const T* __restrict__ dy, const int* __restrict__ lengths, T* __restrict__ dh,
                                 T* __restrict__ dhp, long long s, long long steps, long long B, long long Hh,
                                 long long D) {
  const long long d = blockIdx.z, t = crnn::grad_time(s, steps, d);
  crnn::fused_grad(
      [=]() {},
      [=](long long b, long long j0, long long j1) {
        const crnn::Span span = crnn::cell_span(j0, j1);
        const bool live = t < lengths[b];
        const T* __restrict__ dy_row = dy + ((t * B + b) * D + d) * Hh;
        T* __restrict__ dhp_row = dhp + ((d * steps + t) * B + b) * Hh;
        T* __restrict__ dh_row = dh + (d * B + b) * Hh;
        crnn::span_each(span, [=](long long j) { crnn::proj_grad_cell(j, live, dy_row, dhp_row, dh_row); });
      },
      false, true, lengths, t, B, Hh);
}

template <typename T>
__device__ void fused_gru_grad(const T* __restrict__ dy, const T* __restrict__ reserve,
                               const int* __restrict__ lengths, T* __restrict__ dgw, T* __restrict__ dgr,
                               T* __restrict__ dh, const T* __restrict__ params, long long s, long long steps,
                               long long B, long long H, long long D, long long rofs, long long layer_w,
                               long long acts_ofs, long long hs_ofs, long long pl_size) {
  const long long d = blockIdx.z;
  const long long t = crnn::grad_time(s, steps, d), t_prev = crnn::grad_time(s - 1, steps, d);
  crnn::fused_grad(
      [=]() { crnn::recurrent_grad_tile(dgr, dh, params, d, t_prev, steps, B, H, 3 * H, rofs, layer_w); },
      [=](long long b, long long j0, long long j1) {
        const crnn::Span span = crnn::cell_span(j0, j1);
        const long long slot = d * steps * B * 3 * H;
        crnn::gru_grad_row(b, dy, reserve, lengths, dgw + slot, dgr + slot, dh + d * B * H, t, d, B, H, D,
                           acts_ofs + d * pl_size, hs_ofs + d * pl_size, span);
      },
      s > 0, s < steps, lengths, t_prev, B, H);
}

template <typename T>
__device__ void fused_rnn_grad(const T* __restrict__ dy, const T* __restrict__ reserve,
                               const int* __restrict__ lengths, T* __restrict__ dgw, T* __restrict__ dh,
                               const T* __restrict__ params, long long s, long long steps, long long B, long long H,
                               long long D, long long rofs, long long layer_w, long long hs_ofs, long long pl_size,
                               long long relu) {
  const long long d = blockIdx.z;
  const long long t = crnn::grad_time(s, steps, d), t_prev = crnn::grad_time(s - 1, steps, d);
  crnn::fused_grad(
      [=]() { crnn::recurrent_grad_tile(dgw, dh, params, d, t_prev, steps, B, H, H, rofs, layer_w); },
      [=](long long b, long long j0, long long j1) {
        const crnn::Span span = crnn::cell_span(j0, j1);
        crnn::rnn_grad_row(b, dy, reserve, lengths, dgw + d * steps * B * H, dh + d * B * H, t, d, B, H, D,
                           hs_ofs + d * pl_size, relu, span);
      },
      s > 0, s < steps, lengths, t_prev, B, H);
}

// skip_input: x fed every gate, so its gradient is the sum of the gates' (added onto the other
// direction's when d > 0).
template <typename T>
__device__ void skip_grad(const T* __restrict__ dg_slots, T* __restrict__ dxt, long long rows, long long gates,
                          long long H, long long d) {
  typedef typename crnn::Acc<T>::type A;
  const T* __restrict__ dg = dg_slots + d * rows * gates * H;
  crnn::each(rows * H, [&](long long i) {
    const long long r = i / H, j = i - r * H;
    A s = d > 0 ? crnn::load(dxt + i) : A(0);
    for (long long q = 0; q < gates; ++q) s += crnn::load(dg + (r * gates + q) * H + j);
    crnn::store(dxt + i, s);
  });
}

// The gradient of the layer below's output: its dropout mask (kept in the reserve space) times
// the gradient of this layer's input.
template <typename T>
__device__ void grad_layer_below(const T* __restrict__ dxl, const T* __restrict__ reserve, T* __restrict__ dy,
                                 long long n, long long mask_ofs) {
  crnn::each(n, [&](long long i) { crnn::store(dy + i, crnn::load(dxl + i) * crnn::load(reserve + mask_ofs + i)); });
}

#line 3565 "generated/rnn/cudnn_rnn.cu"
// ---- CudnnRNNBackpropV3: Backprop step of CudnnRNNV3.
// entry points from specs/rnn/cudnn_rnn_backprop_v3.yaml: one per launch step and specialization (T)

extern "C" __global__ void CudnnRNNBackpropV3__to_time_major__float16(
    const __half* __restrict__ input,
    __half* __restrict__ xt,
    long long swap0,
    long long swap1,
    long long input_size) {
  to_time_major<__half>(input, xt, swap0, swap1, input_size);
}

extern "C" __global__ void CudnnRNNBackpropV3__to_time_major__float32(
    const float* __restrict__ input,
    float* __restrict__ xt,
    long long swap0,
    long long swap1,
    long long input_size) {
  to_time_major<float>(input, xt, swap0, swap1, input_size);
}

extern "C" __global__ void CudnnRNNBackpropV3__to_time_major__float64(
    const double* __restrict__ input,
    double* __restrict__ xt,
    long long swap0,
    long long swap1,
    long long input_size) {
  to_time_major<double>(input, xt, swap0, swap1, input_size);
}

extern "C" __global__ void CudnnRNNBackpropV3__fill_ones__float16(
    __half* __restrict__ ones,
    long long rows) {
  fill_ones<__half>(ones, rows);
}

extern "C" __global__ void CudnnRNNBackpropV3__fill_ones__float32(
    float* __restrict__ ones,
    long long rows) {
  fill_ones<float>(ones, rows);
}

extern "C" __global__ void CudnnRNNBackpropV3__fill_ones__float64(
    double* __restrict__ ones,
    long long rows) {
  fill_ones<double>(ones, rows);
}

extern "C" __global__ void CudnnRNNBackpropV3__grad_output_in__float16(
    const __half* __restrict__ output_backprop,
    __half* __restrict__ dy,
    const int* __restrict__ sequence_lengths,
    long long steps,
    long long batch,
    long long out_width,
    int time_major) {
  grad_output_in<__half>(output_backprop, dy, sequence_lengths, steps, batch, out_width, time_major);
}

extern "C" __global__ void CudnnRNNBackpropV3__grad_output_in__float32(
    const float* __restrict__ output_backprop,
    float* __restrict__ dy,
    const int* __restrict__ sequence_lengths,
    long long steps,
    long long batch,
    long long out_width,
    int time_major) {
  grad_output_in<float>(output_backprop, dy, sequence_lengths, steps, batch, out_width, time_major);
}

extern "C" __global__ void CudnnRNNBackpropV3__grad_output_in__float64(
    const double* __restrict__ output_backprop,
    double* __restrict__ dy,
    const int* __restrict__ sequence_lengths,
    long long steps,
    long long batch,
    long long out_width,
    int time_major) {
  grad_output_in<double>(output_backprop, dy, sequence_lengths, steps, batch, out_width, time_major);
}

extern "C" __global__ void CudnnRNNBackpropV3__init_grad__float16(
    const __half* __restrict__ output_h_backprop,
    const __half* __restrict__ output_c_backprop,
    __half* __restrict__ dh,
    __half* __restrict__ dc,
    long long p,
    long long d,
    long long layers_dirs,
    long long batch,
    long long h_size,
    long long num_units,
    long long lstm,
    int time_major) {
  init_grad<__half>(output_h_backprop, output_c_backprop, dh, dc, p, d, layers_dirs, batch, h_size, num_units, lstm, time_major);
}

extern "C" __global__ void CudnnRNNBackpropV3__init_grad__float32(
    const float* __restrict__ output_h_backprop,
    const float* __restrict__ output_c_backprop,
    float* __restrict__ dh,
    float* __restrict__ dc,
    long long p,
    long long d,
    long long layers_dirs,
    long long batch,
    long long h_size,
    long long num_units,
    long long lstm,
    int time_major) {
  init_grad<float>(output_h_backprop, output_c_backprop, dh, dc, p, d, layers_dirs, batch, h_size, num_units, lstm, time_major);
}

extern "C" __global__ void CudnnRNNBackpropV3__init_grad__float64(
    const double* __restrict__ output_h_backprop,
    const double* __restrict__ output_c_backprop,
    double* __restrict__ dh,
    double* __restrict__ dc,
    long long p,
    long long d,
    long long layers_dirs,
    long long batch,
    long long h_size,
    long long num_units,
    long long lstm,
    int time_major) {
  init_grad<double>(output_h_backprop, output_c_backprop, dh, dc, p, d, layers_dirs, batch, h_size, num_units, lstm, time_major);
}

extern "C" __global__ void __launch_bounds__(256) CudnnRNNBackpropV3__persistent_lstm_grad__float16(
    __half* __restrict__ dy,
    const __half* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    __half* __restrict__ dgw,
    __half* __restrict__ dh,
    __half* __restrict__ dc,
    __half* __restrict__ dm,
    const __half* __restrict__ params,
    long long steps,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_rofs,
    long long layer_w,
    long long layer_acts_ofs,
    long long layer_cs_ofs,
    long long pl_size) {
  persistent_lstm_grad<__half>(dy, reserve_space, sequence_lengths, dgw, dh, dc, dm, params, steps, batch, num_units, dirs, layer_rofs, layer_w, layer_acts_ofs, layer_cs_ofs, pl_size);
}

extern "C" __global__ void __launch_bounds__(256) CudnnRNNBackpropV3__persistent_lstm_grad__float32(
    float* __restrict__ dy,
    const float* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    float* __restrict__ dgw,
    float* __restrict__ dh,
    float* __restrict__ dc,
    float* __restrict__ dm,
    const float* __restrict__ params,
    long long steps,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_rofs,
    long long layer_w,
    long long layer_acts_ofs,
    long long layer_cs_ofs,
    long long pl_size) {
  persistent_lstm_grad<float>(dy, reserve_space, sequence_lengths, dgw, dh, dc, dm, params, steps, batch, num_units, dirs, layer_rofs, layer_w, layer_acts_ofs, layer_cs_ofs, pl_size);
}

extern "C" __global__ void __launch_bounds__(256, 1) CudnnRNNBackpropV3__persistent_lstm_grad__float64(
    double* __restrict__ dy,
    const double* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    double* __restrict__ dgw,
    double* __restrict__ dh,
    double* __restrict__ dc,
    double* __restrict__ dm,
    const double* __restrict__ params,
    long long steps,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_rofs,
    long long layer_w,
    long long layer_acts_ofs,
    long long layer_cs_ofs,
    long long pl_size) {
  persistent_lstm_grad<double>(dy, reserve_space, sequence_lengths, dgw, dh, dc, dm, params, steps, batch, num_units, dirs, layer_rofs, layer_w, layer_acts_ofs, layer_cs_ofs, pl_size);
}

extern "C" __global__ void __launch_bounds__(256) CudnnRNNBackpropV3__persistent_gru_grad__float16(
    __half* __restrict__ dy,
    const __half* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    __half* __restrict__ dgw,
    __half* __restrict__ dgr,
    __half* __restrict__ dh,
    const __half* __restrict__ params,
    long long steps,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_rofs,
    long long layer_w,
    long long layer_acts_ofs,
    long long layer_hs_ofs,
    long long pl_size) {
  persistent_gru_grad<__half>(dy, reserve_space, sequence_lengths, dgw, dgr, dh, params, steps, batch, num_units, dirs, layer_rofs, layer_w, layer_acts_ofs, layer_hs_ofs, pl_size);
}

extern "C" __global__ void __launch_bounds__(256) CudnnRNNBackpropV3__persistent_gru_grad__float32(
    float* __restrict__ dy,
    const float* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    float* __restrict__ dgw,
    float* __restrict__ dgr,
    float* __restrict__ dh,
    const float* __restrict__ params,
    long long steps,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_rofs,
    long long layer_w,
    long long layer_acts_ofs,
    long long layer_hs_ofs,
    long long pl_size) {
  persistent_gru_grad<float>(dy, reserve_space, sequence_lengths, dgw, dgr, dh, params, steps, batch, num_units, dirs, layer_rofs, layer_w, layer_acts_ofs, layer_hs_ofs, pl_size);
}

extern "C" __global__ void __launch_bounds__(256, 1) CudnnRNNBackpropV3__persistent_gru_grad__float64(
    double* __restrict__ dy,
    const double* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    double* __restrict__ dgw,
    double* __restrict__ dgr,
    double* __restrict__ dh,
    const double* __restrict__ params,
    long long steps,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_rofs,
    long long layer_w,
    long long layer_acts_ofs,
    long long layer_hs_ofs,
    long long pl_size) {
  persistent_gru_grad<double>(dy, reserve_space, sequence_lengths, dgw, dgr, dh, params, steps, batch, num_units, dirs, layer_rofs, layer_w, layer_acts_ofs, layer_hs_ofs, pl_size);
}

extern "C" __global__ void __launch_bounds__(256) CudnnRNNBackpropV3__persistent_rnn_grad__float16(
    __half* __restrict__ dy,
    const __half* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    __half* __restrict__ dgw,
    __half* __restrict__ dh,
    const __half* __restrict__ params,
    long long steps,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_rofs,
    long long layer_w,
    long long layer_hs_ofs,
    long long relu,
    long long pl_size) {
  persistent_rnn_grad<__half>(dy, reserve_space, sequence_lengths, dgw, dh, params, steps, batch, num_units, dirs, layer_rofs, layer_w, layer_hs_ofs, relu, pl_size);
}

extern "C" __global__ void __launch_bounds__(256) CudnnRNNBackpropV3__persistent_rnn_grad__float32(
    float* __restrict__ dy,
    const float* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    float* __restrict__ dgw,
    float* __restrict__ dh,
    const float* __restrict__ params,
    long long steps,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_rofs,
    long long layer_w,
    long long layer_hs_ofs,
    long long relu,
    long long pl_size) {
  persistent_rnn_grad<float>(dy, reserve_space, sequence_lengths, dgw, dh, params, steps, batch, num_units, dirs, layer_rofs, layer_w, layer_hs_ofs, relu, pl_size);
}

extern "C" __global__ void __launch_bounds__(256, 1) CudnnRNNBackpropV3__persistent_rnn_grad__float64(
    double* __restrict__ dy,
    const double* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    double* __restrict__ dgw,
    double* __restrict__ dh,
    const double* __restrict__ params,
    long long steps,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_rofs,
    long long layer_w,
    long long layer_hs_ofs,
    long long relu,
    long long pl_size) {
  persistent_rnn_grad<double>(dy, reserve_space, sequence_lengths, dgw, dh, params, steps, batch, num_units, dirs, layer_rofs, layer_w, layer_hs_ofs, relu, pl_size);
}

extern "C" __global__ void CudnnRNNBackpropV3__proj_grad__float16(
    __half* __restrict__ dy,
    __half* __restrict__ dhp,
    __half* __restrict__ dh,
    const int* __restrict__ sequence_lengths,
    long long s,
    long long batch,
    long long h_size,
    long long dirs,
    long long steps) {
  proj_grad<__half>(dy, dhp, dh, sequence_lengths, s, batch, h_size, dirs, steps);
}

extern "C" __global__ void CudnnRNNBackpropV3__proj_grad__float32(
    float* __restrict__ dy,
    float* __restrict__ dhp,
    float* __restrict__ dh,
    const int* __restrict__ sequence_lengths,
    long long s,
    long long batch,
    long long h_size,
    long long dirs,
    long long steps) {
  proj_grad<float>(dy, dhp, dh, sequence_lengths, s, batch, h_size, dirs, steps);
}

extern "C" __global__ void CudnnRNNBackpropV3__proj_grad__float64(
    double* __restrict__ dy,
    double* __restrict__ dhp,
    double* __restrict__ dh,
    const int* __restrict__ sequence_lengths,
    long long s,
    long long batch,
    long long h_size,
    long long dirs,
    long long steps) {
  proj_grad<double>(dy, dhp, dh, sequence_lengths, s, batch, h_size, dirs, steps);
}

extern "C" __global__ void CudnnRNNBackpropV3__lstm_grad_step__float16(
    __half* __restrict__ dy,
    __half* __restrict__ dm,
    const __half* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    __half* __restrict__ dgw,
    __half* __restrict__ dh,
    __half* __restrict__ dc,
    long long s,
    long long batch,
    long long num_units,
    long long h_size,
    long long dirs,
    long long proj,
    long long layer_acts_ofs,
    long long layer_cs_ofs,
    long long steps,
    long long pl_size) {
  lstm_grad_step<__half>(dy, dm, reserve_space, sequence_lengths, dgw, dh, dc, s, batch, num_units, h_size, dirs, proj, layer_acts_ofs, layer_cs_ofs, steps, pl_size);
}

extern "C" __global__ void CudnnRNNBackpropV3__lstm_grad_step__float32(
    float* __restrict__ dy,
    float* __restrict__ dm,
    const float* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    float* __restrict__ dgw,
    float* __restrict__ dh,
    float* __restrict__ dc,
    long long s,
    long long batch,
    long long num_units,
    long long h_size,
    long long dirs,
    long long proj,
    long long layer_acts_ofs,
    long long layer_cs_ofs,
    long long steps,
    long long pl_size) {
  lstm_grad_step<float>(dy, dm, reserve_space, sequence_lengths, dgw, dh, dc, s, batch, num_units, h_size, dirs, proj, layer_acts_ofs, layer_cs_ofs, steps, pl_size);
}

extern "C" __global__ void CudnnRNNBackpropV3__lstm_grad_step__float64(
    double* __restrict__ dy,
    double* __restrict__ dm,
    const double* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    double* __restrict__ dgw,
    double* __restrict__ dh,
    double* __restrict__ dc,
    long long s,
    long long batch,
    long long num_units,
    long long h_size,
    long long dirs,
    long long proj,
    long long layer_acts_ofs,
    long long layer_cs_ofs,
    long long steps,
    long long pl_size) {
  lstm_grad_step<double>(dy, dm, reserve_space, sequence_lengths, dgw, dh, dc, s, batch, num_units, h_size, dirs, proj, layer_acts_ofs, layer_cs_ofs, steps, pl_size);
}

extern "C" __global__ void CudnnRNNBackpropV3__gru_grad_step__float16(
    __half* __restrict__ dy,
    const __half* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    __half* __restrict__ dgw,
    __half* __restrict__ dgr,
    __half* __restrict__ dh,
    long long s,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_acts_ofs,
    long long layer_hs_ofs,
    long long steps,
    long long pl_size) {
  gru_grad_step<__half>(dy, reserve_space, sequence_lengths, dgw, dgr, dh, s, batch, num_units, dirs, layer_acts_ofs, layer_hs_ofs, steps, pl_size);
}

extern "C" __global__ void CudnnRNNBackpropV3__gru_grad_step__float32(
    float* __restrict__ dy,
    const float* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    float* __restrict__ dgw,
    float* __restrict__ dgr,
    float* __restrict__ dh,
    long long s,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_acts_ofs,
    long long layer_hs_ofs,
    long long steps,
    long long pl_size) {
  gru_grad_step<float>(dy, reserve_space, sequence_lengths, dgw, dgr, dh, s, batch, num_units, dirs, layer_acts_ofs, layer_hs_ofs, steps, pl_size);
}

extern "C" __global__ void CudnnRNNBackpropV3__gru_grad_step__float64(
    double* __restrict__ dy,
    const double* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    double* __restrict__ dgw,
    double* __restrict__ dgr,
    double* __restrict__ dh,
    long long s,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_acts_ofs,
    long long layer_hs_ofs,
    long long steps,
    long long pl_size) {
  gru_grad_step<double>(dy, reserve_space, sequence_lengths, dgw, dgr, dh, s, batch, num_units, dirs, layer_acts_ofs, layer_hs_ofs, steps, pl_size);
}

extern "C" __global__ void CudnnRNNBackpropV3__rnn_grad_step__float16(
    __half* __restrict__ dy,
    const __half* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    __half* __restrict__ dgw,
    __half* __restrict__ dh,
    long long s,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_hs_ofs,
    long long relu,
    long long steps,
    long long pl_size) {
  rnn_grad_step<__half>(dy, reserve_space, sequence_lengths, dgw, dh, s, batch, num_units, dirs, layer_hs_ofs, relu, steps, pl_size);
}

extern "C" __global__ void CudnnRNNBackpropV3__rnn_grad_step__float32(
    float* __restrict__ dy,
    const float* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    float* __restrict__ dgw,
    float* __restrict__ dh,
    long long s,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_hs_ofs,
    long long relu,
    long long steps,
    long long pl_size) {
  rnn_grad_step<float>(dy, reserve_space, sequence_lengths, dgw, dh, s, batch, num_units, dirs, layer_hs_ofs, relu, steps, pl_size);
}

extern "C" __global__ void CudnnRNNBackpropV3__rnn_grad_step__float64(
    double* __restrict__ dy,
    const double* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    double* __restrict__ dgw,
    double* __restrict__ dh,
    long long s,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_hs_ofs,
    long long relu,
    long long steps,
    long long pl_size) {
  rnn_grad_step<double>(dy, reserve_space, sequence_lengths, dgw, dh, s, batch, num_units, dirs, layer_hs_ofs, relu, steps, pl_size);
}

extern "C" __global__ void __launch_bounds__(256) CudnnRNNBackpropV3__fused_lstm_grad__float16(
    __half* __restrict__ dy,
    const __half* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    __half* __restrict__ dgw,
    __half* __restrict__ dh,
    __half* __restrict__ dc,
    const __half* __restrict__ params,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_rofs,
    long long layer_w,
    long long layer_acts_ofs,
    long long layer_cs_ofs,
    long long pl_size) {
  fused_lstm_grad<__half>(dy, reserve_space, sequence_lengths, dgw, dh, dc, params, s, steps, batch, num_units, dirs, layer_rofs, layer_w, layer_acts_ofs, layer_cs_ofs, pl_size);
}

extern "C" __global__ void __launch_bounds__(256) CudnnRNNBackpropV3__fused_lstm_grad__float32(
    float* __restrict__ dy,
    const float* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    float* __restrict__ dgw,
    float* __restrict__ dh,
    float* __restrict__ dc,
    const float* __restrict__ params,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_rofs,
    long long layer_w,
    long long layer_acts_ofs,
    long long layer_cs_ofs,
    long long pl_size) {
  fused_lstm_grad<float>(dy, reserve_space, sequence_lengths, dgw, dh, dc, params, s, steps, batch, num_units, dirs, layer_rofs, layer_w, layer_acts_ofs, layer_cs_ofs, pl_size);
}

extern "C" __global__ void __launch_bounds__(256, 1) CudnnRNNBackpropV3__fused_lstm_grad__float64(
    double* __restrict__ dy,
    const double* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    double* __restrict__ dgw,
    double* __restrict__ dh,
    double* __restrict__ dc,
    const double* __restrict__ params,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_rofs,
    long long layer_w,
    long long layer_acts_ofs,
    long long layer_cs_ofs,
    long long pl_size) {
  fused_lstm_grad<double>(dy, reserve_space, sequence_lengths, dgw, dh, dc, params, s, steps, batch, num_units, dirs, layer_rofs, layer_w, layer_acts_ofs, layer_cs_ofs, pl_size);
}

extern "C" __global__ void __launch_bounds__(256) CudnnRNNBackpropV3__fused_proj_cells__float16(
    __half* __restrict__ dy,
    const int* __restrict__ sequence_lengths,
    __half* __restrict__ dh,
    __half* __restrict__ dhp,
    long long s,
    long long steps,
    long long batch,
    long long h_size,
    long long dirs) {
  fused_proj_cells<__half>(dy, sequence_lengths, dh, dhp, s, steps, batch, h_size, dirs);
}

extern "C" __global__ void __launch_bounds__(256) CudnnRNNBackpropV3__fused_proj_cells__float32(
    float* __restrict__ dy,
    const int* __restrict__ sequence_lengths,
    float* __restrict__ dh,
    float* __restrict__ dhp,
    long long s,
    long long steps,
    long long batch,
    long long h_size,
    long long dirs) {
  fused_proj_cells<float>(dy, sequence_lengths, dh, dhp, s, steps, batch, h_size, dirs);
}

extern "C" __global__ void __launch_bounds__(256, 1) CudnnRNNBackpropV3__fused_proj_cells__float64(
    double* __restrict__ dy,
    const int* __restrict__ sequence_lengths,
    double* __restrict__ dh,
    double* __restrict__ dhp,
    long long s,
    long long steps,
    long long batch,
    long long h_size,
    long long dirs) {
  fused_proj_cells<double>(dy, sequence_lengths, dh, dhp, s, steps, batch, h_size, dirs);
}

extern "C" __global__ void __launch_bounds__(256) CudnnRNNBackpropV3__fused_lstm_proj_grad__float16(
    __half* __restrict__ dy,
    const __half* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    __half* __restrict__ dgw,
    __half* __restrict__ dh,
    __half* __restrict__ dc,
    __half* __restrict__ dm,
    __half* __restrict__ dhp,
    const __half* __restrict__ params,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long h_size,
    long long dirs,
    long long phase,
    long long layer_rofs,
    long long layer_pofs,
    long long layer_w,
    long long layer_acts_ofs,
    long long layer_cs_ofs,
    long long pl_size) {
  fused_lstm_proj_grad<__half>(dy, reserve_space, sequence_lengths, dgw, dh, dc, dm, dhp, params, s, steps, batch, num_units, h_size, dirs, phase, layer_rofs, layer_pofs, layer_w, layer_acts_ofs, layer_cs_ofs, pl_size);
}

extern "C" __global__ void __launch_bounds__(256) CudnnRNNBackpropV3__fused_lstm_proj_grad__float32(
    float* __restrict__ dy,
    const float* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    float* __restrict__ dgw,
    float* __restrict__ dh,
    float* __restrict__ dc,
    float* __restrict__ dm,
    float* __restrict__ dhp,
    const float* __restrict__ params,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long h_size,
    long long dirs,
    long long phase,
    long long layer_rofs,
    long long layer_pofs,
    long long layer_w,
    long long layer_acts_ofs,
    long long layer_cs_ofs,
    long long pl_size) {
  fused_lstm_proj_grad<float>(dy, reserve_space, sequence_lengths, dgw, dh, dc, dm, dhp, params, s, steps, batch, num_units, h_size, dirs, phase, layer_rofs, layer_pofs, layer_w, layer_acts_ofs, layer_cs_ofs, pl_size);
}

extern "C" __global__ void __launch_bounds__(256, 1) CudnnRNNBackpropV3__fused_lstm_proj_grad__float64(
    double* __restrict__ dy,
    const double* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    double* __restrict__ dgw,
    double* __restrict__ dh,
    double* __restrict__ dc,
    double* __restrict__ dm,
    double* __restrict__ dhp,
    const double* __restrict__ params,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long h_size,
    long long dirs,
    long long phase,
    long long layer_rofs,
    long long layer_pofs,
    long long layer_w,
    long long layer_acts_ofs,
    long long layer_cs_ofs,
    long long pl_size) {
  fused_lstm_proj_grad<double>(dy, reserve_space, sequence_lengths, dgw, dh, dc, dm, dhp, params, s, steps, batch, num_units, h_size, dirs, phase, layer_rofs, layer_pofs, layer_w, layer_acts_ofs, layer_cs_ofs, pl_size);
}

extern "C" __global__ void __launch_bounds__(256) CudnnRNNBackpropV3__fused_gru_grad__float16(
    __half* __restrict__ dy,
    const __half* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    __half* __restrict__ dgw,
    __half* __restrict__ dgr,
    __half* __restrict__ dh,
    const __half* __restrict__ params,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_rofs,
    long long layer_w,
    long long layer_acts_ofs,
    long long layer_hs_ofs,
    long long pl_size) {
  fused_gru_grad<__half>(dy, reserve_space, sequence_lengths, dgw, dgr, dh, params, s, steps, batch, num_units, dirs, layer_rofs, layer_w, layer_acts_ofs, layer_hs_ofs, pl_size);
}

extern "C" __global__ void __launch_bounds__(256) CudnnRNNBackpropV3__fused_gru_grad__float32(
    float* __restrict__ dy,
    const float* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    float* __restrict__ dgw,
    float* __restrict__ dgr,
    float* __restrict__ dh,
    const float* __restrict__ params,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_rofs,
    long long layer_w,
    long long layer_acts_ofs,
    long long layer_hs_ofs,
    long long pl_size) {
  fused_gru_grad<float>(dy, reserve_space, sequence_lengths, dgw, dgr, dh, params, s, steps, batch, num_units, dirs, layer_rofs, layer_w, layer_acts_ofs, layer_hs_ofs, pl_size);
}

extern "C" __global__ void __launch_bounds__(256, 1) CudnnRNNBackpropV3__fused_gru_grad__float64(
    double* __restrict__ dy,
    const double* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    double* __restrict__ dgw,
    double* __restrict__ dgr,
    double* __restrict__ dh,
    const double* __restrict__ params,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_rofs,
    long long layer_w,
    long long layer_acts_ofs,
    long long layer_hs_ofs,
    long long pl_size) {
  fused_gru_grad<double>(dy, reserve_space, sequence_lengths, dgw, dgr, dh, params, s, steps, batch, num_units, dirs, layer_rofs, layer_w, layer_acts_ofs, layer_hs_ofs, pl_size);
}

extern "C" __global__ void __launch_bounds__(256) CudnnRNNBackpropV3__fused_rnn_grad__float16(
    __half* __restrict__ dy,
    const __half* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    __half* __restrict__ dgw,
    __half* __restrict__ dh,
    const __half* __restrict__ params,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_rofs,
    long long layer_w,
    long long layer_hs_ofs,
    long long pl_size,
    long long relu) {
  fused_rnn_grad<__half>(dy, reserve_space, sequence_lengths, dgw, dh, params, s, steps, batch, num_units, dirs, layer_rofs, layer_w, layer_hs_ofs, pl_size, relu);
}

extern "C" __global__ void __launch_bounds__(256) CudnnRNNBackpropV3__fused_rnn_grad__float32(
    float* __restrict__ dy,
    const float* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    float* __restrict__ dgw,
    float* __restrict__ dh,
    const float* __restrict__ params,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_rofs,
    long long layer_w,
    long long layer_hs_ofs,
    long long pl_size,
    long long relu) {
  fused_rnn_grad<float>(dy, reserve_space, sequence_lengths, dgw, dh, params, s, steps, batch, num_units, dirs, layer_rofs, layer_w, layer_hs_ofs, pl_size, relu);
}

extern "C" __global__ void __launch_bounds__(256, 1) CudnnRNNBackpropV3__fused_rnn_grad__float64(
    double* __restrict__ dy,
    const double* __restrict__ reserve_space,
    const int* __restrict__ sequence_lengths,
    double* __restrict__ dgw,
    double* __restrict__ dh,
    const double* __restrict__ params,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long dirs,
    long long layer_rofs,
    long long layer_w,
    long long layer_hs_ofs,
    long long pl_size,
    long long relu) {
  fused_rnn_grad<double>(dy, reserve_space, sequence_lengths, dgw, dh, params, s, steps, batch, num_units, dirs, layer_rofs, layer_w, layer_hs_ofs, pl_size, relu);
}

extern "C" __global__ void CudnnRNNBackpropV3__final_grad__float16(
    __half* __restrict__ dh,
    __half* __restrict__ dc,
    __half* __restrict__ input_h_backprop,
    __half* __restrict__ input_c_backprop,
    long long p,
    long long d,
    long long layers_dirs,
    long long batch,
    long long h_size,
    long long num_units,
    long long lstm,
    int time_major) {
  final_grad<__half>(dh, dc, input_h_backprop, input_c_backprop, p, d, layers_dirs, batch, h_size, num_units, lstm, time_major);
}

extern "C" __global__ void CudnnRNNBackpropV3__final_grad__float32(
    float* __restrict__ dh,
    float* __restrict__ dc,
    float* __restrict__ input_h_backprop,
    float* __restrict__ input_c_backprop,
    long long p,
    long long d,
    long long layers_dirs,
    long long batch,
    long long h_size,
    long long num_units,
    long long lstm,
    int time_major) {
  final_grad<float>(dh, dc, input_h_backprop, input_c_backprop, p, d, layers_dirs, batch, h_size, num_units, lstm, time_major);
}

extern "C" __global__ void CudnnRNNBackpropV3__final_grad__float64(
    double* __restrict__ dh,
    double* __restrict__ dc,
    double* __restrict__ input_h_backprop,
    double* __restrict__ input_c_backprop,
    long long p,
    long long d,
    long long layers_dirs,
    long long batch,
    long long h_size,
    long long num_units,
    long long lstm,
    int time_major) {
  final_grad<double>(dh, dc, input_h_backprop, input_c_backprop, p, d, layers_dirs, batch, h_size, num_units, lstm, time_major);
}

extern "C" __global__ void CudnnRNNBackpropV3__copy_span__float16(
    __half* __restrict__ params_backprop,
    long long bofs,
    long long rbofs,
    long long gate_width) {
  copy_span<__half>(params_backprop, bofs, rbofs, gate_width);
}

extern "C" __global__ void CudnnRNNBackpropV3__copy_span__float32(
    float* __restrict__ params_backprop,
    long long bofs,
    long long rbofs,
    long long gate_width) {
  copy_span<float>(params_backprop, bofs, rbofs, gate_width);
}

extern "C" __global__ void CudnnRNNBackpropV3__copy_span__float64(
    double* __restrict__ params_backprop,
    long long bofs,
    long long rbofs,
    long long gate_width) {
  copy_span<double>(params_backprop, bofs, rbofs, gate_width);
}

extern "C" __global__ void CudnnRNNBackpropV3__skip_grad__float16(
    __half* __restrict__ dgw,
    __half* __restrict__ dxt,
    long long rows,
    long long gates,
    long long num_units,
    long long d) {
  skip_grad<__half>(dgw, dxt, rows, gates, num_units, d);
}

extern "C" __global__ void CudnnRNNBackpropV3__skip_grad__float32(
    float* __restrict__ dgw,
    float* __restrict__ dxt,
    long long rows,
    long long gates,
    long long num_units,
    long long d) {
  skip_grad<float>(dgw, dxt, rows, gates, num_units, d);
}

extern "C" __global__ void CudnnRNNBackpropV3__skip_grad__float64(
    double* __restrict__ dgw,
    double* __restrict__ dxt,
    long long rows,
    long long gates,
    long long num_units,
    long long d) {
  skip_grad<double>(dgw, dxt, rows, gates, num_units, d);
}

extern "C" __global__ void CudnnRNNBackpropV3__grad_layer_below__float16(
    __half* __restrict__ dxl,
    const __half* __restrict__ reserve_space,
    __half* __restrict__ dy,
    long long layer_cells,
    long long below_mask_ofs) {
  grad_layer_below<__half>(dxl, reserve_space, dy, layer_cells, below_mask_ofs);
}

extern "C" __global__ void CudnnRNNBackpropV3__grad_layer_below__float32(
    float* __restrict__ dxl,
    const float* __restrict__ reserve_space,
    float* __restrict__ dy,
    long long layer_cells,
    long long below_mask_ofs) {
  grad_layer_below<float>(dxl, reserve_space, dy, layer_cells, below_mask_ofs);
}

extern "C" __global__ void CudnnRNNBackpropV3__grad_layer_below__float64(
    double* __restrict__ dxl,
    const double* __restrict__ reserve_space,
    double* __restrict__ dy,
    long long layer_cells,
    long long below_mask_ofs) {
  grad_layer_below<double>(dxl, reserve_space, dy, layer_cells, below_mask_ofs);
}

extern "C" __global__ void CudnnRNNBackpropV3__from_time_major__float16(
    __half* __restrict__ dxt,
    __half* __restrict__ input_backprop,
    long long unswap0,
    long long unswap1,
    long long input_size) {
  from_time_major<__half>(dxt, input_backprop, unswap0, unswap1, input_size);
}

extern "C" __global__ void CudnnRNNBackpropV3__from_time_major__float32(
    float* __restrict__ dxt,
    float* __restrict__ input_backprop,
    long long unswap0,
    long long unswap1,
    long long input_size) {
  from_time_major<float>(dxt, input_backprop, unswap0, unswap1, input_size);
}

extern "C" __global__ void CudnnRNNBackpropV3__from_time_major__float64(
    double* __restrict__ dxt,
    double* __restrict__ input_backprop,
    long long unswap0,
    long long unswap1,
    long long input_size) {
  from_time_major<double>(dxt, input_backprop, unswap0, unswap1, input_size);
}

#line 4541 "generated/rnn/cudnn_rnn.cu"
// ---- CudnnRNNV3: A RNN backed by cuDNN.
// entry points from specs/rnn/cudnn_rnn_v3.yaml: one per launch step and specialization (T)

extern "C" __global__ void CudnnRNNV3__to_time_major__float16(
    const __half* __restrict__ input,
    __half* __restrict__ xt,
    long long swap0,
    long long swap1,
    long long input_size) {
  to_time_major<__half>(input, xt, swap0, swap1, input_size);
}

extern "C" __global__ void CudnnRNNV3__to_time_major__float32(
    const float* __restrict__ input,
    float* __restrict__ xt,
    long long swap0,
    long long swap1,
    long long input_size) {
  to_time_major<float>(input, xt, swap0, swap1, input_size);
}

extern "C" __global__ void CudnnRNNV3__to_time_major__float64(
    const double* __restrict__ input,
    double* __restrict__ xt,
    long long swap0,
    long long swap1,
    long long input_size) {
  to_time_major<double>(input, xt, swap0, swap1, input_size);
}

extern "C" __global__ void CudnnRNNV3__skip_projection__float16(
    __half* __restrict__ xt,
    __half* __restrict__ gx,
    long long rows,
    long long gates,
    long long num_units,
    long long gx_ofs) {
  skip_projection<__half>(xt, gx, rows, gates, num_units, gx_ofs);
}

extern "C" __global__ void CudnnRNNV3__skip_projection__float32(
    float* __restrict__ xt,
    float* __restrict__ gx,
    long long rows,
    long long gates,
    long long num_units,
    long long gx_ofs) {
  skip_projection<float>(xt, gx, rows, gates, num_units, gx_ofs);
}

extern "C" __global__ void CudnnRNNV3__skip_projection__float64(
    double* __restrict__ xt,
    double* __restrict__ gx,
    long long rows,
    long long gates,
    long long num_units,
    long long gx_ofs) {
  skip_projection<double>(xt, gx, rows, gates, num_units, gx_ofs);
}

extern "C" __global__ void CudnnRNNV3__init_state__float16(
    const __half* __restrict__ input_h,
    const __half* __restrict__ input_c,
    __half* __restrict__ work,
    long long p,
    long long d,
    long long layers_dirs,
    long long steps,
    long long batch,
    long long h_size,
    long long num_units,
    long long hs_ofs,
    long long cs_ofs,
    long long lstm,
    int time_major) {
  init_state<__half>(input_h, input_c, work, p, d, layers_dirs, steps, batch, h_size, num_units, hs_ofs, cs_ofs, lstm, time_major);
}

extern "C" __global__ void CudnnRNNV3__init_state__float32(
    const float* __restrict__ input_h,
    const float* __restrict__ input_c,
    float* __restrict__ work,
    long long p,
    long long d,
    long long layers_dirs,
    long long steps,
    long long batch,
    long long h_size,
    long long num_units,
    long long hs_ofs,
    long long cs_ofs,
    long long lstm,
    int time_major) {
  init_state<float>(input_h, input_c, work, p, d, layers_dirs, steps, batch, h_size, num_units, hs_ofs, cs_ofs, lstm, time_major);
}

extern "C" __global__ void CudnnRNNV3__init_state__float64(
    const double* __restrict__ input_h,
    const double* __restrict__ input_c,
    double* __restrict__ work,
    long long p,
    long long d,
    long long layers_dirs,
    long long steps,
    long long batch,
    long long h_size,
    long long num_units,
    long long hs_ofs,
    long long cs_ofs,
    long long lstm,
    int time_major) {
  init_state<double>(input_h, input_c, work, p, d, layers_dirs, steps, batch, h_size, num_units, hs_ofs, cs_ofs, lstm, time_major);
}

#ifdef OPGEN_HOST_EMU  // only the cpu plan launches it
extern "C" __global__ void CudnnRNNV3__transpose_r__float16(
    const __half* __restrict__ params,
    __half* __restrict__ rt,
    long long layer_rofs,
    long long layer_w,
    long long gate_width,
    long long h_size) {
  transpose_r<__half>(params, rt, layer_rofs, layer_w, gate_width, h_size);
}
#endif  // OPGEN_HOST_EMU

#ifdef OPGEN_HOST_EMU  // only the cpu plan launches it
extern "C" __global__ void CudnnRNNV3__transpose_r__float32(
    const float* __restrict__ params,
    float* __restrict__ rt,
    long long layer_rofs,
    long long layer_w,
    long long gate_width,
    long long h_size) {
  transpose_r<float>(params, rt, layer_rofs, layer_w, gate_width, h_size);
}
#endif  // OPGEN_HOST_EMU

#ifdef OPGEN_HOST_EMU  // only the cpu plan launches it
extern "C" __global__ void CudnnRNNV3__transpose_r__float64(
    const double* __restrict__ params,
    double* __restrict__ rt,
    long long layer_rofs,
    long long layer_w,
    long long gate_width,
    long long h_size) {
  transpose_r<double>(params, rt, layer_rofs, layer_w, gate_width, h_size);
}
#endif  // OPGEN_HOST_EMU

extern "C" __global__ void __launch_bounds__(256) CudnnRNNV3__persistent_layer__float16(
    __half* __restrict__ gx,
    __half* __restrict__ gh,
    const __half* __restrict__ params,
    __half* __restrict__ work,
    const int* __restrict__ sequence_lengths,
    long long steps,
    long long batch,
    long long num_units,
    long long gates,
    long long rnn_kind,
    long long relu,
    long long layer_rofs,
    long long layer_w,
    long long layer_bofs,
    long long layer_acts_ofs,
    long long layer_hs_ofs,
    long long layer_cs_ofs,
    long long pl_size) {
  persistent_layer<__half>(gx, gh, params, work, sequence_lengths, steps, batch, num_units, gates, rnn_kind, relu, layer_rofs, layer_w, layer_bofs, layer_acts_ofs, layer_hs_ofs, layer_cs_ofs, pl_size);
}

extern "C" __global__ void __launch_bounds__(256) CudnnRNNV3__persistent_layer__float32(
    float* __restrict__ gx,
    float* __restrict__ gh,
    const float* __restrict__ params,
    float* __restrict__ work,
    const int* __restrict__ sequence_lengths,
    long long steps,
    long long batch,
    long long num_units,
    long long gates,
    long long rnn_kind,
    long long relu,
    long long layer_rofs,
    long long layer_w,
    long long layer_bofs,
    long long layer_acts_ofs,
    long long layer_hs_ofs,
    long long layer_cs_ofs,
    long long pl_size) {
  persistent_layer<float>(gx, gh, params, work, sequence_lengths, steps, batch, num_units, gates, rnn_kind, relu, layer_rofs, layer_w, layer_bofs, layer_acts_ofs, layer_hs_ofs, layer_cs_ofs, pl_size);
}

extern "C" __global__ void __launch_bounds__(256, 1) CudnnRNNV3__persistent_layer__float64(
    double* __restrict__ gx,
    double* __restrict__ gh,
    const double* __restrict__ params,
    double* __restrict__ work,
    const int* __restrict__ sequence_lengths,
    long long steps,
    long long batch,
    long long num_units,
    long long gates,
    long long rnn_kind,
    long long relu,
    long long layer_rofs,
    long long layer_w,
    long long layer_bofs,
    long long layer_acts_ofs,
    long long layer_hs_ofs,
    long long layer_cs_ofs,
    long long pl_size) {
  persistent_layer<double>(gx, gh, params, work, sequence_lengths, steps, batch, num_units, gates, rnn_kind, relu, layer_rofs, layer_w, layer_bofs, layer_acts_ofs, layer_hs_ofs, layer_cs_ofs, pl_size);
}

extern "C" __global__ void CudnnRNNV3__lstm_step__float16(
    __half* __restrict__ gx,
    __half* __restrict__ gh,
    const __half* __restrict__ params,
    __half* __restrict__ work,
    const int* __restrict__ sequence_lengths,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long h_size,
    long long proj,
    long long layer_bofs,
    long long layer_acts_ofs,
    long long layer_hs_ofs,
    long long layer_cs_ofs,
    long long layer_ms_ofs,
    long long pl_size) {
  lstm_step<__half>(gx, gh, params, work, sequence_lengths, s, steps, batch, num_units, h_size, proj, layer_bofs, layer_acts_ofs, layer_hs_ofs, layer_cs_ofs, layer_ms_ofs, pl_size);
}

extern "C" __global__ void CudnnRNNV3__lstm_step__float32(
    float* __restrict__ gx,
    float* __restrict__ gh,
    const float* __restrict__ params,
    float* __restrict__ work,
    const int* __restrict__ sequence_lengths,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long h_size,
    long long proj,
    long long layer_bofs,
    long long layer_acts_ofs,
    long long layer_hs_ofs,
    long long layer_cs_ofs,
    long long layer_ms_ofs,
    long long pl_size) {
  lstm_step<float>(gx, gh, params, work, sequence_lengths, s, steps, batch, num_units, h_size, proj, layer_bofs, layer_acts_ofs, layer_hs_ofs, layer_cs_ofs, layer_ms_ofs, pl_size);
}

extern "C" __global__ void CudnnRNNV3__lstm_step__float64(
    double* __restrict__ gx,
    double* __restrict__ gh,
    const double* __restrict__ params,
    double* __restrict__ work,
    const int* __restrict__ sequence_lengths,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long h_size,
    long long proj,
    long long layer_bofs,
    long long layer_acts_ofs,
    long long layer_hs_ofs,
    long long layer_cs_ofs,
    long long layer_ms_ofs,
    long long pl_size) {
  lstm_step<double>(gx, gh, params, work, sequence_lengths, s, steps, batch, num_units, h_size, proj, layer_bofs, layer_acts_ofs, layer_hs_ofs, layer_cs_ofs, layer_ms_ofs, pl_size);
}

extern "C" __global__ void CudnnRNNV3__proj_carry__float16(
    __half* __restrict__ work,
    const int* __restrict__ sequence_lengths,
    long long s,
    long long steps,
    long long batch,
    long long h_size,
    long long layer_hs_ofs,
    long long pl_size) {
  proj_carry<__half>(work, sequence_lengths, s, steps, batch, h_size, layer_hs_ofs, pl_size);
}

extern "C" __global__ void CudnnRNNV3__proj_carry__float32(
    float* __restrict__ work,
    const int* __restrict__ sequence_lengths,
    long long s,
    long long steps,
    long long batch,
    long long h_size,
    long long layer_hs_ofs,
    long long pl_size) {
  proj_carry<float>(work, sequence_lengths, s, steps, batch, h_size, layer_hs_ofs, pl_size);
}

extern "C" __global__ void CudnnRNNV3__proj_carry__float64(
    double* __restrict__ work,
    const int* __restrict__ sequence_lengths,
    long long s,
    long long steps,
    long long batch,
    long long h_size,
    long long layer_hs_ofs,
    long long pl_size) {
  proj_carry<double>(work, sequence_lengths, s, steps, batch, h_size, layer_hs_ofs, pl_size);
}

extern "C" __global__ void CudnnRNNV3__gru_step__float16(
    __half* __restrict__ gx,
    __half* __restrict__ gh,
    const __half* __restrict__ params,
    __half* __restrict__ work,
    const int* __restrict__ sequence_lengths,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long layer_bofs,
    long long layer_acts_ofs,
    long long layer_hs_ofs,
    long long pl_size) {
  gru_step<__half>(gx, gh, params, work, sequence_lengths, s, steps, batch, num_units, layer_bofs, layer_acts_ofs, layer_hs_ofs, pl_size);
}

extern "C" __global__ void CudnnRNNV3__gru_step__float32(
    float* __restrict__ gx,
    float* __restrict__ gh,
    const float* __restrict__ params,
    float* __restrict__ work,
    const int* __restrict__ sequence_lengths,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long layer_bofs,
    long long layer_acts_ofs,
    long long layer_hs_ofs,
    long long pl_size) {
  gru_step<float>(gx, gh, params, work, sequence_lengths, s, steps, batch, num_units, layer_bofs, layer_acts_ofs, layer_hs_ofs, pl_size);
}

extern "C" __global__ void CudnnRNNV3__gru_step__float64(
    double* __restrict__ gx,
    double* __restrict__ gh,
    const double* __restrict__ params,
    double* __restrict__ work,
    const int* __restrict__ sequence_lengths,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long layer_bofs,
    long long layer_acts_ofs,
    long long layer_hs_ofs,
    long long pl_size) {
  gru_step<double>(gx, gh, params, work, sequence_lengths, s, steps, batch, num_units, layer_bofs, layer_acts_ofs, layer_hs_ofs, pl_size);
}

extern "C" __global__ void CudnnRNNV3__rnn_step__float16(
    __half* __restrict__ gx,
    __half* __restrict__ gh,
    const __half* __restrict__ params,
    __half* __restrict__ work,
    const int* __restrict__ sequence_lengths,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long layer_bofs,
    long long layer_hs_ofs,
    long long relu,
    long long pl_size) {
  rnn_step<__half>(gx, gh, params, work, sequence_lengths, s, steps, batch, num_units, layer_bofs, layer_hs_ofs, relu, pl_size);
}

extern "C" __global__ void CudnnRNNV3__rnn_step__float32(
    float* __restrict__ gx,
    float* __restrict__ gh,
    const float* __restrict__ params,
    float* __restrict__ work,
    const int* __restrict__ sequence_lengths,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long layer_bofs,
    long long layer_hs_ofs,
    long long relu,
    long long pl_size) {
  rnn_step<float>(gx, gh, params, work, sequence_lengths, s, steps, batch, num_units, layer_bofs, layer_hs_ofs, relu, pl_size);
}

extern "C" __global__ void CudnnRNNV3__rnn_step__float64(
    double* __restrict__ gx,
    double* __restrict__ gh,
    const double* __restrict__ params,
    double* __restrict__ work,
    const int* __restrict__ sequence_lengths,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long layer_bofs,
    long long layer_hs_ofs,
    long long relu,
    long long pl_size) {
  rnn_step<double>(gx, gh, params, work, sequence_lengths, s, steps, batch, num_units, layer_bofs, layer_hs_ofs, relu, pl_size);
}

extern "C" __global__ void __launch_bounds__(256) CudnnRNNV3__fused_step__float16(
    __half* __restrict__ gx,
    __half* __restrict__ gh,
    const __half* __restrict__ params,
    __half* __restrict__ work,
    const int* __restrict__ sequence_lengths,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long h_size,
    long long gates,
    long long rnn_kind,
    long long relu,
    long long proj,
    long long layer_rofs,
    long long layer_w,
    long long layer_bofs,
    long long layer_acts_ofs,
    long long layer_hs_ofs,
    long long layer_cs_ofs,
    long long layer_ms_ofs,
    long long pl_size) {
  fused_step<__half>(gx, gh, params, work, sequence_lengths, s, steps, batch, num_units, h_size, gates, rnn_kind, relu, proj, layer_rofs, layer_w, layer_bofs, layer_acts_ofs, layer_hs_ofs, layer_cs_ofs, layer_ms_ofs, pl_size);
}

extern "C" __global__ void __launch_bounds__(256) CudnnRNNV3__fused_step__float32(
    float* __restrict__ gx,
    float* __restrict__ gh,
    const float* __restrict__ params,
    float* __restrict__ work,
    const int* __restrict__ sequence_lengths,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long h_size,
    long long gates,
    long long rnn_kind,
    long long relu,
    long long proj,
    long long layer_rofs,
    long long layer_w,
    long long layer_bofs,
    long long layer_acts_ofs,
    long long layer_hs_ofs,
    long long layer_cs_ofs,
    long long layer_ms_ofs,
    long long pl_size) {
  fused_step<float>(gx, gh, params, work, sequence_lengths, s, steps, batch, num_units, h_size, gates, rnn_kind, relu, proj, layer_rofs, layer_w, layer_bofs, layer_acts_ofs, layer_hs_ofs, layer_cs_ofs, layer_ms_ofs, pl_size);
}

extern "C" __global__ void __launch_bounds__(256, 1) CudnnRNNV3__fused_step__float64(
    double* __restrict__ gx,
    double* __restrict__ gh,
    const double* __restrict__ params,
    double* __restrict__ work,
    const int* __restrict__ sequence_lengths,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long h_size,
    long long gates,
    long long rnn_kind,
    long long relu,
    long long proj,
    long long layer_rofs,
    long long layer_w,
    long long layer_bofs,
    long long layer_acts_ofs,
    long long layer_hs_ofs,
    long long layer_cs_ofs,
    long long layer_ms_ofs,
    long long pl_size) {
  fused_step<double>(gx, gh, params, work, sequence_lengths, s, steps, batch, num_units, h_size, gates, rnn_kind, relu, proj, layer_rofs, layer_w, layer_bofs, layer_acts_ofs, layer_hs_ofs, layer_cs_ofs, layer_ms_ofs, pl_size);
}

extern "C" __global__ void __launch_bounds__(256) CudnnRNNV3__fused_proj__float16(
    const __half* __restrict__ params,
    __half* __restrict__ work,
    const int* __restrict__ sequence_lengths,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long h_size,
    long long layer_pofs,
    long long layer_w,
    long long layer_hs_ofs,
    long long layer_ms_ofs,
    long long pl_size) {
  fused_proj<__half>(params, work, sequence_lengths, s, steps, batch, num_units, h_size, layer_pofs, layer_w, layer_hs_ofs, layer_ms_ofs, pl_size);
}

extern "C" __global__ void __launch_bounds__(256) CudnnRNNV3__fused_proj__float32(
    const float* __restrict__ params,
    float* __restrict__ work,
    const int* __restrict__ sequence_lengths,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long h_size,
    long long layer_pofs,
    long long layer_w,
    long long layer_hs_ofs,
    long long layer_ms_ofs,
    long long pl_size) {
  fused_proj<float>(params, work, sequence_lengths, s, steps, batch, num_units, h_size, layer_pofs, layer_w, layer_hs_ofs, layer_ms_ofs, pl_size);
}

extern "C" __global__ void __launch_bounds__(256, 1) CudnnRNNV3__fused_proj__float64(
    const double* __restrict__ params,
    double* __restrict__ work,
    const int* __restrict__ sequence_lengths,
    long long s,
    long long steps,
    long long batch,
    long long num_units,
    long long h_size,
    long long layer_pofs,
    long long layer_w,
    long long layer_hs_ofs,
    long long layer_ms_ofs,
    long long pl_size) {
  fused_proj<double>(params, work, sequence_lengths, s, steps, batch, num_units, h_size, layer_pofs, layer_w, layer_hs_ofs, layer_ms_ofs, pl_size);
}

extern "C" __global__ void CudnnRNNV3__final_state__float16(
    __half* __restrict__ output_h,
    __half* __restrict__ output_c,
    __half* __restrict__ work,
    long long p,
    long long d,
    long long layers_dirs,
    long long steps,
    long long batch,
    long long h_size,
    long long num_units,
    long long hs_ofs,
    long long cs_ofs,
    long long lstm,
    int time_major) {
  final_state<__half>(output_h, output_c, work, p, d, layers_dirs, steps, batch, h_size, num_units, hs_ofs, cs_ofs, lstm, time_major);
}

extern "C" __global__ void CudnnRNNV3__final_state__float32(
    float* __restrict__ output_h,
    float* __restrict__ output_c,
    float* __restrict__ work,
    long long p,
    long long d,
    long long layers_dirs,
    long long steps,
    long long batch,
    long long h_size,
    long long num_units,
    long long hs_ofs,
    long long cs_ofs,
    long long lstm,
    int time_major) {
  final_state<float>(output_h, output_c, work, p, d, layers_dirs, steps, batch, h_size, num_units, hs_ofs, cs_ofs, lstm, time_major);
}

extern "C" __global__ void CudnnRNNV3__final_state__float64(
    double* __restrict__ output_h,
    double* __restrict__ output_c,
    double* __restrict__ work,
    long long p,
    long long d,
    long long layers_dirs,
    long long steps,
    long long batch,
    long long h_size,
    long long num_units,
    long long hs_ofs,
    long long cs_ofs,
    long long lstm,
    int time_major) {
  final_state<double>(output_h, output_c, work, p, d, layers_dirs, steps, batch, h_size, num_units, hs_ofs, cs_ofs, lstm, time_major);
}

extern "C" __global__ void CudnnRNNV3__layer_output__float16(
    __half* __restrict__ work,
    __half* __restrict__ output,
    const int* __restrict__ sequence_lengths,
    long long l,
    long long num_layers,
    long long dirs,
    long long steps,
    long long batch,
    long long h_size,
    long long layer_hs_ofs,
    long long pl_size,
    long long next_x_ofs,
    float dropout,
    long long seed,
    long long seed2,
    int is_training,
    int time_major) {
  layer_output<__half>(work, output, sequence_lengths, l, num_layers, dirs, steps, batch, h_size, layer_hs_ofs, pl_size, next_x_ofs, dropout, seed, seed2, is_training, time_major);
}

extern "C" __global__ void CudnnRNNV3__layer_output__float32(
    float* __restrict__ work,
    float* __restrict__ output,
    const int* __restrict__ sequence_lengths,
    long long l,
    long long num_layers,
    long long dirs,
    long long steps,
    long long batch,
    long long h_size,
    long long layer_hs_ofs,
    long long pl_size,
    long long next_x_ofs,
    float dropout,
    long long seed,
    long long seed2,
    int is_training,
    int time_major) {
  layer_output<float>(work, output, sequence_lengths, l, num_layers, dirs, steps, batch, h_size, layer_hs_ofs, pl_size, next_x_ofs, dropout, seed, seed2, is_training, time_major);
}

extern "C" __global__ void CudnnRNNV3__layer_output__float64(
    double* __restrict__ work,
    double* __restrict__ output,
    const int* __restrict__ sequence_lengths,
    long long l,
    long long num_layers,
    long long dirs,
    long long steps,
    long long batch,
    long long h_size,
    long long layer_hs_ofs,
    long long pl_size,
    long long next_x_ofs,
    double dropout,
    long long seed,
    long long seed2,
    int is_training,
    int time_major) {
  layer_output<double>(work, output, sequence_lengths, l, num_layers, dirs, steps, batch, h_size, layer_hs_ofs, pl_size, next_x_ofs, dropout, seed, seed2, is_training, time_major);
}

// opgen-manifest: {"version":1,"kernels":[{"name":"CudnnRNNBackpropV3__to_time_major__float16","params":[["const __half* __restrict__","input"],["__half* __restrict__","xt"],["long long","swap0"],["long long","swap1"],["long long","input_size"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__to_time_major__float32","params":[["const float* __restrict__","input"],["float* __restrict__","xt"],["long long","swap0"],["long long","swap1"],["long long","input_size"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__to_time_major__float64","params":[["const double* __restrict__","input"],["double* __restrict__","xt"],["long long","swap0"],["long long","swap1"],["long long","input_size"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__fill_ones__float16","params":[["__half* __restrict__","ones"],["long long","rows"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__fill_ones__float32","params":[["float* __restrict__","ones"],["long long","rows"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__fill_ones__float64","params":[["double* __restrict__","ones"],["long long","rows"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__grad_output_in__float16","params":[["const __half* __restrict__","output_backprop"],["__half* __restrict__","dy"],["const int* __restrict__","sequence_lengths"],["long long","steps"],["long long","batch"],["long long","out_width"],["int","time_major"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__grad_output_in__float32","params":[["const float* __restrict__","output_backprop"],["float* __restrict__","dy"],["const int* __restrict__","sequence_lengths"],["long long","steps"],["long long","batch"],["long long","out_width"],["int","time_major"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__grad_output_in__float64","params":[["const double* __restrict__","output_backprop"],["double* __restrict__","dy"],["const int* __restrict__","sequence_lengths"],["long long","steps"],["long long","batch"],["long long","out_width"],["int","time_major"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__init_grad__float16","params":[["const __half* __restrict__","output_h_backprop"],["const __half* __restrict__","output_c_backprop"],["__half* __restrict__","dh"],["__half* __restrict__","dc"],["long long","p"],["long long","d"],["long long","layers_dirs"],["long long","batch"],["long long","h_size"],["long long","num_units"],["long long","lstm"],["int","time_major"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__init_grad__float32","params":[["const float* __restrict__","output_h_backprop"],["const float* __restrict__","output_c_backprop"],["float* __restrict__","dh"],["float* __restrict__","dc"],["long long","p"],["long long","d"],["long long","layers_dirs"],["long long","batch"],["long long","h_size"],["long long","num_units"],["long long","lstm"],["int","time_major"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__init_grad__float64","params":[["const double* __restrict__","output_h_backprop"],["const double* __restrict__","output_c_backprop"],["double* __restrict__","dh"],["double* __restrict__","dc"],["long long","p"],["long long","d"],["long long","layers_dirs"],["long long","batch"],["long long","h_size"],["long long","num_units"],["long long","lstm"],["int","time_major"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__persistent_lstm_grad__float16","params":[["__half* __restrict__","dy"],["const __half* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["__half* __restrict__","dgw"],["__half* __restrict__","dh"],["__half* __restrict__","dc"],["__half* __restrict__","dm"],["const __half* __restrict__","params"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_acts_ofs"],["long long","layer_cs_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__persistent_lstm_grad__float32","params":[["float* __restrict__","dy"],["const float* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["float* __restrict__","dgw"],["float* __restrict__","dh"],["float* __restrict__","dc"],["float* __restrict__","dm"],["const float* __restrict__","params"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_acts_ofs"],["long long","layer_cs_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__persistent_lstm_grad__float64","params":[["double* __restrict__","dy"],["const double* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["double* __restrict__","dgw"],["double* __restrict__","dh"],["double* __restrict__","dc"],["double* __restrict__","dm"],["const double* __restrict__","params"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_acts_ofs"],["long long","layer_cs_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__persistent_gru_grad__float16","params":[["__half* __restrict__","dy"],["const __half* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["__half* __restrict__","dgw"],["__half* __restrict__","dgr"],["__half* __restrict__","dh"],["const __half* __restrict__","params"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_acts_ofs"],["long long","layer_hs_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__persistent_gru_grad__float32","params":[["float* __restrict__","dy"],["const float* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["float* __restrict__","dgw"],["float* __restrict__","dgr"],["float* __restrict__","dh"],["const float* __restrict__","params"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_acts_ofs"],["long long","layer_hs_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__persistent_gru_grad__float64","params":[["double* __restrict__","dy"],["const double* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["double* __restrict__","dgw"],["double* __restrict__","dgr"],["double* __restrict__","dh"],["const double* __restrict__","params"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_acts_ofs"],["long long","layer_hs_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__persistent_rnn_grad__float16","params":[["__half* __restrict__","dy"],["const __half* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["__half* __restrict__","dgw"],["__half* __restrict__","dh"],["const __half* __restrict__","params"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_hs_ofs"],["long long","relu"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__persistent_rnn_grad__float32","params":[["float* __restrict__","dy"],["const float* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["float* __restrict__","dgw"],["float* __restrict__","dh"],["const float* __restrict__","params"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_hs_ofs"],["long long","relu"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__persistent_rnn_grad__float64","params":[["double* __restrict__","dy"],["const double* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["double* __restrict__","dgw"],["double* __restrict__","dh"],["const double* __restrict__","params"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_hs_ofs"],["long long","relu"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__proj_grad__float16","params":[["__half* __restrict__","dy"],["__half* __restrict__","dhp"],["__half* __restrict__","dh"],["const int* __restrict__","sequence_lengths"],["long long","s"],["long long","batch"],["long long","h_size"],["long long","dirs"],["long long","steps"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__proj_grad__float32","params":[["float* __restrict__","dy"],["float* __restrict__","dhp"],["float* __restrict__","dh"],["const int* __restrict__","sequence_lengths"],["long long","s"],["long long","batch"],["long long","h_size"],["long long","dirs"],["long long","steps"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__proj_grad__float64","params":[["double* __restrict__","dy"],["double* __restrict__","dhp"],["double* __restrict__","dh"],["const int* __restrict__","sequence_lengths"],["long long","s"],["long long","batch"],["long long","h_size"],["long long","dirs"],["long long","steps"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__lstm_grad_step__float16","params":[["__half* __restrict__","dy"],["__half* __restrict__","dm"],["const __half* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["__half* __restrict__","dgw"],["__half* __restrict__","dh"],["__half* __restrict__","dc"],["long long","s"],["long long","batch"],["long long","num_units"],["long long","h_size"],["long long","dirs"],["long long","proj"],["long long","layer_acts_ofs"],["long long","layer_cs_ofs"],["long long","steps"],["long long","pl_size"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__lstm_grad_step__float32","params":[["float* __restrict__","dy"],["float* __restrict__","dm"],["const float* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["float* __restrict__","dgw"],["float* __restrict__","dh"],["float* __restrict__","dc"],["long long","s"],["long long","batch"],["long long","num_units"],["long long","h_size"],["long long","dirs"],["long long","proj"],["long long","layer_acts_ofs"],["long long","layer_cs_ofs"],["long long","steps"],["long long","pl_size"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__lstm_grad_step__float64","params":[["double* __restrict__","dy"],["double* __restrict__","dm"],["const double* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["double* __restrict__","dgw"],["double* __restrict__","dh"],["double* __restrict__","dc"],["long long","s"],["long long","batch"],["long long","num_units"],["long long","h_size"],["long long","dirs"],["long long","proj"],["long long","layer_acts_ofs"],["long long","layer_cs_ofs"],["long long","steps"],["long long","pl_size"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__gru_grad_step__float16","params":[["__half* __restrict__","dy"],["const __half* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["__half* __restrict__","dgw"],["__half* __restrict__","dgr"],["__half* __restrict__","dh"],["long long","s"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_acts_ofs"],["long long","layer_hs_ofs"],["long long","steps"],["long long","pl_size"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__gru_grad_step__float32","params":[["float* __restrict__","dy"],["const float* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["float* __restrict__","dgw"],["float* __restrict__","dgr"],["float* __restrict__","dh"],["long long","s"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_acts_ofs"],["long long","layer_hs_ofs"],["long long","steps"],["long long","pl_size"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__gru_grad_step__float64","params":[["double* __restrict__","dy"],["const double* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["double* __restrict__","dgw"],["double* __restrict__","dgr"],["double* __restrict__","dh"],["long long","s"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_acts_ofs"],["long long","layer_hs_ofs"],["long long","steps"],["long long","pl_size"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__rnn_grad_step__float16","params":[["__half* __restrict__","dy"],["const __half* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["__half* __restrict__","dgw"],["__half* __restrict__","dh"],["long long","s"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_hs_ofs"],["long long","relu"],["long long","steps"],["long long","pl_size"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__rnn_grad_step__float32","params":[["float* __restrict__","dy"],["const float* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["float* __restrict__","dgw"],["float* __restrict__","dh"],["long long","s"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_hs_ofs"],["long long","relu"],["long long","steps"],["long long","pl_size"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__rnn_grad_step__float64","params":[["double* __restrict__","dy"],["const double* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["double* __restrict__","dgw"],["double* __restrict__","dh"],["long long","s"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_hs_ofs"],["long long","relu"],["long long","steps"],["long long","pl_size"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__fused_lstm_grad__float16","params":[["__half* __restrict__","dy"],["const __half* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["__half* __restrict__","dgw"],["__half* __restrict__","dh"],["__half* __restrict__","dc"],["const __half* __restrict__","params"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_acts_ofs"],["long long","layer_cs_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__fused_lstm_grad__float32","params":[["float* __restrict__","dy"],["const float* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["float* __restrict__","dgw"],["float* __restrict__","dh"],["float* __restrict__","dc"],["const float* __restrict__","params"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_acts_ofs"],["long long","layer_cs_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__fused_lstm_grad__float64","params":[["double* __restrict__","dy"],["const double* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["double* __restrict__","dgw"],["double* __restrict__","dh"],["double* __restrict__","dc"],["const double* __restrict__","params"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_acts_ofs"],["long long","layer_cs_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__fused_proj_cells__float16","params":[["__half* __restrict__","dy"],["const int* __restrict__","sequence_lengths"],["__half* __restrict__","dh"],["__half* __restrict__","dhp"],["long long","s"],["long long","steps"],["long long","batch"],["long long","h_size"],["long long","dirs"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__fused_proj_cells__float32","params":[["float* __restrict__","dy"],["const int* __restrict__","sequence_lengths"],["float* __restrict__","dh"],["float* __restrict__","dhp"],["long long","s"],["long long","steps"],["long long","batch"],["long long","h_size"],["long long","dirs"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__fused_proj_cells__float64","params":[["double* __restrict__","dy"],["const int* __restrict__","sequence_lengths"],["double* __restrict__","dh"],["double* __restrict__","dhp"],["long long","s"],["long long","steps"],["long long","batch"],["long long","h_size"],["long long","dirs"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__fused_lstm_proj_grad__float16","params":[["__half* __restrict__","dy"],["const __half* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["__half* __restrict__","dgw"],["__half* __restrict__","dh"],["__half* __restrict__","dc"],["__half* __restrict__","dm"],["__half* __restrict__","dhp"],["const __half* __restrict__","params"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","h_size"],["long long","dirs"],["long long","phase"],["long long","layer_rofs"],["long long","layer_pofs"],["long long","layer_w"],["long long","layer_acts_ofs"],["long long","layer_cs_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__fused_lstm_proj_grad__float32","params":[["float* __restrict__","dy"],["const float* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["float* __restrict__","dgw"],["float* __restrict__","dh"],["float* __restrict__","dc"],["float* __restrict__","dm"],["float* __restrict__","dhp"],["const float* __restrict__","params"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","h_size"],["long long","dirs"],["long long","phase"],["long long","layer_rofs"],["long long","layer_pofs"],["long long","layer_w"],["long long","layer_acts_ofs"],["long long","layer_cs_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__fused_lstm_proj_grad__float64","params":[["double* __restrict__","dy"],["const double* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["double* __restrict__","dgw"],["double* __restrict__","dh"],["double* __restrict__","dc"],["double* __restrict__","dm"],["double* __restrict__","dhp"],["const double* __restrict__","params"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","h_size"],["long long","dirs"],["long long","phase"],["long long","layer_rofs"],["long long","layer_pofs"],["long long","layer_w"],["long long","layer_acts_ofs"],["long long","layer_cs_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__fused_gru_grad__float16","params":[["__half* __restrict__","dy"],["const __half* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["__half* __restrict__","dgw"],["__half* __restrict__","dgr"],["__half* __restrict__","dh"],["const __half* __restrict__","params"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_acts_ofs"],["long long","layer_hs_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__fused_gru_grad__float32","params":[["float* __restrict__","dy"],["const float* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["float* __restrict__","dgw"],["float* __restrict__","dgr"],["float* __restrict__","dh"],["const float* __restrict__","params"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_acts_ofs"],["long long","layer_hs_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__fused_gru_grad__float64","params":[["double* __restrict__","dy"],["const double* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["double* __restrict__","dgw"],["double* __restrict__","dgr"],["double* __restrict__","dh"],["const double* __restrict__","params"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_acts_ofs"],["long long","layer_hs_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__fused_rnn_grad__float16","params":[["__half* __restrict__","dy"],["const __half* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["__half* __restrict__","dgw"],["__half* __restrict__","dh"],["const __half* __restrict__","params"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_hs_ofs"],["long long","pl_size"],["long long","relu"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__fused_rnn_grad__float32","params":[["float* __restrict__","dy"],["const float* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["float* __restrict__","dgw"],["float* __restrict__","dh"],["const float* __restrict__","params"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_hs_ofs"],["long long","pl_size"],["long long","relu"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__fused_rnn_grad__float64","params":[["double* __restrict__","dy"],["const double* __restrict__","reserve_space"],["const int* __restrict__","sequence_lengths"],["double* __restrict__","dgw"],["double* __restrict__","dh"],["const double* __restrict__","params"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","dirs"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_hs_ofs"],["long long","pl_size"],["long long","relu"]],"max_threads":256},{"name":"CudnnRNNBackpropV3__final_grad__float16","params":[["__half* __restrict__","dh"],["__half* __restrict__","dc"],["__half* __restrict__","input_h_backprop"],["__half* __restrict__","input_c_backprop"],["long long","p"],["long long","d"],["long long","layers_dirs"],["long long","batch"],["long long","h_size"],["long long","num_units"],["long long","lstm"],["int","time_major"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__final_grad__float32","params":[["float* __restrict__","dh"],["float* __restrict__","dc"],["float* __restrict__","input_h_backprop"],["float* __restrict__","input_c_backprop"],["long long","p"],["long long","d"],["long long","layers_dirs"],["long long","batch"],["long long","h_size"],["long long","num_units"],["long long","lstm"],["int","time_major"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__final_grad__float64","params":[["double* __restrict__","dh"],["double* __restrict__","dc"],["double* __restrict__","input_h_backprop"],["double* __restrict__","input_c_backprop"],["long long","p"],["long long","d"],["long long","layers_dirs"],["long long","batch"],["long long","h_size"],["long long","num_units"],["long long","lstm"],["int","time_major"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__copy_span__float16","params":[["__half* __restrict__","params_backprop"],["long long","bofs"],["long long","rbofs"],["long long","gate_width"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__copy_span__float32","params":[["float* __restrict__","params_backprop"],["long long","bofs"],["long long","rbofs"],["long long","gate_width"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__copy_span__float64","params":[["double* __restrict__","params_backprop"],["long long","bofs"],["long long","rbofs"],["long long","gate_width"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__skip_grad__float16","params":[["__half* __restrict__","dgw"],["__half* __restrict__","dxt"],["long long","rows"],["long long","gates"],["long long","num_units"],["long long","d"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__skip_grad__float32","params":[["float* __restrict__","dgw"],["float* __restrict__","dxt"],["long long","rows"],["long long","gates"],["long long","num_units"],["long long","d"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__skip_grad__float64","params":[["double* __restrict__","dgw"],["double* __restrict__","dxt"],["long long","rows"],["long long","gates"],["long long","num_units"],["long long","d"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__grad_layer_below__float16","params":[["__half* __restrict__","dxl"],["const __half* __restrict__","reserve_space"],["__half* __restrict__","dy"],["long long","layer_cells"],["long long","below_mask_ofs"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__grad_layer_below__float32","params":[["float* __restrict__","dxl"],["const float* __restrict__","reserve_space"],["float* __restrict__","dy"],["long long","layer_cells"],["long long","below_mask_ofs"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__grad_layer_below__float64","params":[["double* __restrict__","dxl"],["const double* __restrict__","reserve_space"],["double* __restrict__","dy"],["long long","layer_cells"],["long long","below_mask_ofs"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__from_time_major__float16","params":[["__half* __restrict__","dxt"],["__half* __restrict__","input_backprop"],["long long","unswap0"],["long long","unswap1"],["long long","input_size"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__from_time_major__float32","params":[["float* __restrict__","dxt"],["float* __restrict__","input_backprop"],["long long","unswap0"],["long long","unswap1"],["long long","input_size"]],"max_threads":1024},{"name":"CudnnRNNBackpropV3__from_time_major__float64","params":[["double* __restrict__","dxt"],["double* __restrict__","input_backprop"],["long long","unswap0"],["long long","unswap1"],["long long","input_size"]],"max_threads":1024},{"name":"CudnnRNNV3__to_time_major__float16","params":[["const __half* __restrict__","input"],["__half* __restrict__","xt"],["long long","swap0"],["long long","swap1"],["long long","input_size"]],"max_threads":1024},{"name":"CudnnRNNV3__to_time_major__float32","params":[["const float* __restrict__","input"],["float* __restrict__","xt"],["long long","swap0"],["long long","swap1"],["long long","input_size"]],"max_threads":1024},{"name":"CudnnRNNV3__to_time_major__float64","params":[["const double* __restrict__","input"],["double* __restrict__","xt"],["long long","swap0"],["long long","swap1"],["long long","input_size"]],"max_threads":1024},{"name":"CudnnRNNV3__skip_projection__float16","params":[["__half* __restrict__","xt"],["__half* __restrict__","gx"],["long long","rows"],["long long","gates"],["long long","num_units"],["long long","gx_ofs"]],"max_threads":1024},{"name":"CudnnRNNV3__skip_projection__float32","params":[["float* __restrict__","xt"],["float* __restrict__","gx"],["long long","rows"],["long long","gates"],["long long","num_units"],["long long","gx_ofs"]],"max_threads":1024},{"name":"CudnnRNNV3__skip_projection__float64","params":[["double* __restrict__","xt"],["double* __restrict__","gx"],["long long","rows"],["long long","gates"],["long long","num_units"],["long long","gx_ofs"]],"max_threads":1024},{"name":"CudnnRNNV3__init_state__float16","params":[["const __half* __restrict__","input_h"],["const __half* __restrict__","input_c"],["__half* __restrict__","work"],["long long","p"],["long long","d"],["long long","layers_dirs"],["long long","steps"],["long long","batch"],["long long","h_size"],["long long","num_units"],["long long","hs_ofs"],["long long","cs_ofs"],["long long","lstm"],["int","time_major"]],"max_threads":1024},{"name":"CudnnRNNV3__init_state__float32","params":[["const float* __restrict__","input_h"],["const float* __restrict__","input_c"],["float* __restrict__","work"],["long long","p"],["long long","d"],["long long","layers_dirs"],["long long","steps"],["long long","batch"],["long long","h_size"],["long long","num_units"],["long long","hs_ofs"],["long long","cs_ofs"],["long long","lstm"],["int","time_major"]],"max_threads":1024},{"name":"CudnnRNNV3__init_state__float64","params":[["const double* __restrict__","input_h"],["const double* __restrict__","input_c"],["double* __restrict__","work"],["long long","p"],["long long","d"],["long long","layers_dirs"],["long long","steps"],["long long","batch"],["long long","h_size"],["long long","num_units"],["long long","hs_ofs"],["long long","cs_ofs"],["long long","lstm"],["int","time_major"]],"max_threads":1024},{"name":"CudnnRNNV3__transpose_r__float16","params":[["const __half* __restrict__","params"],["__half* __restrict__","rt"],["long long","layer_rofs"],["long long","layer_w"],["long long","gate_width"],["long long","h_size"]],"max_threads":1024,"cpu_only":true},{"name":"CudnnRNNV3__transpose_r__float32","params":[["const float* __restrict__","params"],["float* __restrict__","rt"],["long long","layer_rofs"],["long long","layer_w"],["long long","gate_width"],["long long","h_size"]],"max_threads":1024,"cpu_only":true},{"name":"CudnnRNNV3__transpose_r__float64","params":[["const double* __restrict__","params"],["double* __restrict__","rt"],["long long","layer_rofs"],["long long","layer_w"],["long long","gate_width"],["long long","h_size"]],"max_threads":1024,"cpu_only":true},{"name":"CudnnRNNV3__persistent_layer__float16","params":[["__half* __restrict__","gx"],["__half* __restrict__","gh"],["const __half* __restrict__","params"],["__half* __restrict__","work"],["const int* __restrict__","sequence_lengths"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","gates"],["long long","rnn_kind"],["long long","relu"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_bofs"],["long long","layer_acts_ofs"],["long long","layer_hs_ofs"],["long long","layer_cs_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNV3__persistent_layer__float32","params":[["float* __restrict__","gx"],["float* __restrict__","gh"],["const float* __restrict__","params"],["float* __restrict__","work"],["const int* __restrict__","sequence_lengths"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","gates"],["long long","rnn_kind"],["long long","relu"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_bofs"],["long long","layer_acts_ofs"],["long long","layer_hs_ofs"],["long long","layer_cs_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNV3__persistent_layer__float64","params":[["double* __restrict__","gx"],["double* __restrict__","gh"],["const double* __restrict__","params"],["double* __restrict__","work"],["const int* __restrict__","sequence_lengths"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","gates"],["long long","rnn_kind"],["long long","relu"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_bofs"],["long long","layer_acts_ofs"],["long long","layer_hs_ofs"],["long long","layer_cs_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNV3__lstm_step__float16","params":[["__half* __restrict__","gx"],["__half* __restrict__","gh"],["const __half* __restrict__","params"],["__half* __restrict__","work"],["const int* __restrict__","sequence_lengths"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","h_size"],["long long","proj"],["long long","layer_bofs"],["long long","layer_acts_ofs"],["long long","layer_hs_ofs"],["long long","layer_cs_ofs"],["long long","layer_ms_ofs"],["long long","pl_size"]],"max_threads":1024},{"name":"CudnnRNNV3__lstm_step__float32","params":[["float* __restrict__","gx"],["float* __restrict__","gh"],["const float* __restrict__","params"],["float* __restrict__","work"],["const int* __restrict__","sequence_lengths"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","h_size"],["long long","proj"],["long long","layer_bofs"],["long long","layer_acts_ofs"],["long long","layer_hs_ofs"],["long long","layer_cs_ofs"],["long long","layer_ms_ofs"],["long long","pl_size"]],"max_threads":1024},{"name":"CudnnRNNV3__lstm_step__float64","params":[["double* __restrict__","gx"],["double* __restrict__","gh"],["const double* __restrict__","params"],["double* __restrict__","work"],["const int* __restrict__","sequence_lengths"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","h_size"],["long long","proj"],["long long","layer_bofs"],["long long","layer_acts_ofs"],["long long","layer_hs_ofs"],["long long","layer_cs_ofs"],["long long","layer_ms_ofs"],["long long","pl_size"]],"max_threads":1024},{"name":"CudnnRNNV3__proj_carry__float16","params":[["__half* __restrict__","work"],["const int* __restrict__","sequence_lengths"],["long long","s"],["long long","steps"],["long long","batch"],["long long","h_size"],["long long","layer_hs_ofs"],["long long","pl_size"]],"max_threads":1024},{"name":"CudnnRNNV3__proj_carry__float32","params":[["float* __restrict__","work"],["const int* __restrict__","sequence_lengths"],["long long","s"],["long long","steps"],["long long","batch"],["long long","h_size"],["long long","layer_hs_ofs"],["long long","pl_size"]],"max_threads":1024},{"name":"CudnnRNNV3__proj_carry__float64","params":[["double* __restrict__","work"],["const int* __restrict__","sequence_lengths"],["long long","s"],["long long","steps"],["long long","batch"],["long long","h_size"],["long long","layer_hs_ofs"],["long long","pl_size"]],"max_threads":1024},{"name":"CudnnRNNV3__gru_step__float16","params":[["__half* __restrict__","gx"],["__half* __restrict__","gh"],["const __half* __restrict__","params"],["__half* __restrict__","work"],["const int* __restrict__","sequence_lengths"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","layer_bofs"],["long long","layer_acts_ofs"],["long long","layer_hs_ofs"],["long long","pl_size"]],"max_threads":1024},{"name":"CudnnRNNV3__gru_step__float32","params":[["float* __restrict__","gx"],["float* __restrict__","gh"],["const float* __restrict__","params"],["float* __restrict__","work"],["const int* __restrict__","sequence_lengths"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","layer_bofs"],["long long","layer_acts_ofs"],["long long","layer_hs_ofs"],["long long","pl_size"]],"max_threads":1024},{"name":"CudnnRNNV3__gru_step__float64","params":[["double* __restrict__","gx"],["double* __restrict__","gh"],["const double* __restrict__","params"],["double* __restrict__","work"],["const int* __restrict__","sequence_lengths"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","layer_bofs"],["long long","layer_acts_ofs"],["long long","layer_hs_ofs"],["long long","pl_size"]],"max_threads":1024},{"name":"CudnnRNNV3__rnn_step__float16","params":[["__half* __restrict__","gx"],["__half* __restrict__","gh"],["const __half* __restrict__","params"],["__half* __restrict__","work"],["const int* __restrict__","sequence_lengths"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","layer_bofs"],["long long","layer_hs_ofs"],["long long","relu"],["long long","pl_size"]],"max_threads":1024},{"name":"CudnnRNNV3__rnn_step__float32","params":[["float* __restrict__","gx"],["float* __restrict__","gh"],["const float* __restrict__","params"],["float* __restrict__","work"],["const int* __restrict__","sequence_lengths"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","layer_bofs"],["long long","layer_hs_ofs"],["long long","relu"],["long long","pl_size"]],"max_threads":1024},{"name":"CudnnRNNV3__rnn_step__float64","params":[["double* __restrict__","gx"],["double* __restrict__","gh"],["const double* __restrict__","params"],["double* __restrict__","work"],["const int* __restrict__","sequence_lengths"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","layer_bofs"],["long long","layer_hs_ofs"],["long long","relu"],["long long","pl_size"]],"max_threads":1024},{"name":"CudnnRNNV3__fused_step__float16","params":[["__half* __restrict__","gx"],["__half* __restrict__","gh"],["const __half* __restrict__","params"],["__half* __restrict__","work"],["const int* __restrict__","sequence_lengths"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","h_size"],["long long","gates"],["long long","rnn_kind"],["long long","relu"],["long long","proj"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_bofs"],["long long","layer_acts_ofs"],["long long","layer_hs_ofs"],["long long","layer_cs_ofs"],["long long","layer_ms_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNV3__fused_step__float32","params":[["float* __restrict__","gx"],["float* __restrict__","gh"],["const float* __restrict__","params"],["float* __restrict__","work"],["const int* __restrict__","sequence_lengths"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","h_size"],["long long","gates"],["long long","rnn_kind"],["long long","relu"],["long long","proj"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_bofs"],["long long","layer_acts_ofs"],["long long","layer_hs_ofs"],["long long","layer_cs_ofs"],["long long","layer_ms_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNV3__fused_step__float64","params":[["double* __restrict__","gx"],["double* __restrict__","gh"],["const double* __restrict__","params"],["double* __restrict__","work"],["const int* __restrict__","sequence_lengths"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","h_size"],["long long","gates"],["long long","rnn_kind"],["long long","relu"],["long long","proj"],["long long","layer_rofs"],["long long","layer_w"],["long long","layer_bofs"],["long long","layer_acts_ofs"],["long long","layer_hs_ofs"],["long long","layer_cs_ofs"],["long long","layer_ms_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNV3__fused_proj__float16","params":[["const __half* __restrict__","params"],["__half* __restrict__","work"],["const int* __restrict__","sequence_lengths"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","h_size"],["long long","layer_pofs"],["long long","layer_w"],["long long","layer_hs_ofs"],["long long","layer_ms_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNV3__fused_proj__float32","params":[["const float* __restrict__","params"],["float* __restrict__","work"],["const int* __restrict__","sequence_lengths"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","h_size"],["long long","layer_pofs"],["long long","layer_w"],["long long","layer_hs_ofs"],["long long","layer_ms_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNV3__fused_proj__float64","params":[["const double* __restrict__","params"],["double* __restrict__","work"],["const int* __restrict__","sequence_lengths"],["long long","s"],["long long","steps"],["long long","batch"],["long long","num_units"],["long long","h_size"],["long long","layer_pofs"],["long long","layer_w"],["long long","layer_hs_ofs"],["long long","layer_ms_ofs"],["long long","pl_size"]],"max_threads":256},{"name":"CudnnRNNV3__final_state__float16","params":[["__half* __restrict__","output_h"],["__half* __restrict__","output_c"],["__half* __restrict__","work"],["long long","p"],["long long","d"],["long long","layers_dirs"],["long long","steps"],["long long","batch"],["long long","h_size"],["long long","num_units"],["long long","hs_ofs"],["long long","cs_ofs"],["long long","lstm"],["int","time_major"]],"max_threads":1024},{"name":"CudnnRNNV3__final_state__float32","params":[["float* __restrict__","output_h"],["float* __restrict__","output_c"],["float* __restrict__","work"],["long long","p"],["long long","d"],["long long","layers_dirs"],["long long","steps"],["long long","batch"],["long long","h_size"],["long long","num_units"],["long long","hs_ofs"],["long long","cs_ofs"],["long long","lstm"],["int","time_major"]],"max_threads":1024},{"name":"CudnnRNNV3__final_state__float64","params":[["double* __restrict__","output_h"],["double* __restrict__","output_c"],["double* __restrict__","work"],["long long","p"],["long long","d"],["long long","layers_dirs"],["long long","steps"],["long long","batch"],["long long","h_size"],["long long","num_units"],["long long","hs_ofs"],["long long","cs_ofs"],["long long","lstm"],["int","time_major"]],"max_threads":1024},{"name":"CudnnRNNV3__layer_output__float16","params":[["__half* __restrict__","work"],["__half* __restrict__","output"],["const int* __restrict__","sequence_lengths"],["long long","l"],["long long","num_layers"],["long long","dirs"],["long long","steps"],["long long","batch"],["long long","h_size"],["long long","layer_hs_ofs"],["long long","pl_size"],["long long","next_x_ofs"],["float","dropout"],["long long","seed"],["long long","seed2"],["int","is_training"],["int","time_major"]],"max_threads":1024},{"name":"CudnnRNNV3__layer_output__float32","params":[["float* __restrict__","work"],["float* __restrict__","output"],["const int* __restrict__","sequence_lengths"],["long long","l"],["long long","num_layers"],["long long","dirs"],["long long","steps"],["long long","batch"],["long long","h_size"],["long long","layer_hs_ofs"],["long long","pl_size"],["long long","next_x_ofs"],["float","dropout"],["long long","seed"],["long long","seed2"],["int","is_training"],["int","time_major"]],"max_threads":1024},{"name":"CudnnRNNV3__layer_output__float64","params":[["double* __restrict__","work"],["double* __restrict__","output"],["const int* __restrict__","sequence_lengths"],["long long","l"],["long long","num_layers"],["long long","dirs"],["long long","steps"],["long long","batch"],["long long","h_size"],["long long","layer_hs_ofs"],["long long","pl_size"],["long long","next_x_ofs"],["double","dropout"],["long long","seed"],["long long","seed2"],["int","is_training"],["int","time_major"]],"max_threads":1024}],"shared":[],"digest":"25297d3771f706c6aac18677a218e991"}
