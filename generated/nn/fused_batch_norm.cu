// generated from specs/nn/fused_batch_norm_grad_v3.yaml, specs/nn/fused_batch_norm_v3.yaml by opgen — do not edit (opgen 0.1.0)
#line 3 "generated/nn/fused_batch_norm.cu"
/* FusedBatchNormGradV3, FusedBatchNormV3: the ops that share this kernel module.
 * Kernel source: codegen/templates/kernels/nn/fused_batch_norm.cu, once; then each op's entry points, generated from its
 * launch plan in specs/. The same text is compiled by NVRTC for the GPU and by the host
 * C++ compiler against opgen's emulation header for the cpu backend. */
#include <cuda_fp16.h>
#include <cuda_bf16.h>

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
#line 2 "codegen/templates/kernels/nn/fused_batch_norm.cu"

// Batch normalization over x viewed as [outer, C, inner]: NHWC is [N·H·W, C, 1], NCHW is
// [N, C, H·W]. Per-channel reductions run in two launches: `*_partials` reduces split blockIdx.y
// of every channel's m = outer·inner elements into partials[split][c] (two sums for the
// gradient; the forward's mean, its rounding error and the variance), then `*_finalize` combines the splits in a
// fixed order (deterministic, no atomics) with one thread per channel.
// Channels-last data (inner == 1) is read in tiles of 32 channels × rows, so a warp reads 32
// neighbouring channels of one row (coalesced); channels-first data gives each block one channel.

// Elements a thread handles side by side (kernels/_common.cuh): more independent work per thread
// and adjacent accesses. load4/store4 and channel_partials_sliced's four partial sums assume 4.
using opgen::kRun;

// Split `split`'s share [begin, end) of a channel's m elements: whole runs per split (the last
// split may be short, and the last few empty: begin ≥ end).
__device__ __forceinline__ void split_range(long long m, long long splits, long long split, long long& begin,
                                            long long& end) {
  long long per = (m + splits - 1) / splits;
  per = (per + kRun - 1) / kRun * kRun;
  begin = split * per;
  end = begin + per < m ? begin + per : m;
}

__device__ __forceinline__ void store_partials(float* __restrict__ partials, long long C, long long c, float2 s) {
  partials[2 * (blockIdx.y * C + c)] = s.x;
  partials[2 * (blockIdx.y * C + c) + 1] = s.y;
}

// Column j of a shared tile's first `rows` rows ([row][column], 33 columns: padded against bank
// conflicts), added in row order (deterministic): a block's row groups' or warps' sums of a channel.
template <int Rows>
__device__ __forceinline__ float2 column_sum(const float2 (&tile)[Rows][33], int j, int rows) {
  float2 s = tile[0][j];
  for (int g = 1; g < rows; ++g) {
    s.x += tile[g][j].x;
    s.y += tile[g][j].y;
  }
  return s;
}

// Channel c's elements [begin, end) under the GPU's launch sizes (channels-first), strided over the
// block's threads: g(base, true) for a run of kRun adjacent elements at offset base of x when
// inner % kRun == 0 (then no run straddles two rows, m is a whole number of runs, and so is every
// split), else g(base, false) for single elements.
template <typename G>
__device__ __forceinline__ void for_each_run(long long begin, long long end, long long C, long long inner, long long c,
                                             const G& g) {
  const long long run = inner % kRun == 0 ? kRun : 1;
  long long i = begin + threadIdx.x * run;
  long long o = 0, k = 0;  // element i of the channel is [o, c, k]
  if (i < end) {  // (inner may be 0 when the channel is empty)
    o = i / inner;
    k = i - o * inner;
  }
  const long long step = static_cast<long long>(blockDim.x) * run;
  for (; i < end; i += step) {
    g((o * C + c) * inner + k, run == kRun);
    k += step;
    if (k >= inner) {
      o += k / inner;
      k %= inner;
    }
  }
}

// The shared tile of channel_partials ([row group][lane]) and of channel_partials_pairs ([row group][channel
// of the tile]; at most 16 row groups), padded against bank conflicts: one array for both (a function's
// __shared__ variable is one per kernel that reaches it, not one per caller). grad_partials of 16-bit data
// holds both paths and each launch takes one, for all its threads (its argument `pairs`), so the two
// never use the tile at once; it held a tile for each (12.9 KB of static shared memory, now 8.7 KB).
__device__ __forceinline__ float2 (&partials_tile())[32][33] {
  __shared__ float2 tile[32][33];
  return tile;
}

// Two sums per channel of a functor over the channel's elements; f(offset, c, a, b) adds to a, b
// (f.run4 four adjacent elements; f.pair_load/pair_add two adjacent channels of a row: *_pairs).
// The GPU's launch sizes: a warp reads 32 neighbouring channels of a row (channels-last), or a
// block's threads read runs of kRun adjacent elements, one vector access per operand (channels-first).
template <typename F>
__device__ __forceinline__ void channel_partials(const F& f, float* __restrict__ partials, long long m,
                                                 long long C, long long inner, long long splits) {
  long long begin, end;
  split_range(m, splits, blockIdx.y, begin, end);
  float a = 0.f, b = 0.f;
  if (inner == 1) {
    float2 (&tile)[32][33] = partials_tile();
    const int lane = threadIdx.x & 31, group = threadIdx.x >> 5, groups = blockDim.x >> 5;
    const long long c = blockIdx.x * 32LL + lane;
    if (c < C) {
      for (long long r = begin + group; r < end; r += groups) f(r * C + c, c, a, b);
    }
    tile[group][lane] = make_float2(a, b);
    __syncthreads();
    if (group == 0 && c < C) store_partials(partials, C, c, column_sum(tile, lane, groups));
  } else {
    const long long c = blockIdx.x;
    for_each_run(begin, end, C, inner, c, [&](long long base, bool four) {
      if (four) {
        f.run4(base, c, a, b);  // one vector access per operand where aligned
      } else {
        f(base, c, a, b);
      }
    });
    const float2 s = opgen::block_sum2(a, b);
    if (threadIdx.x == 0) store_partials(partials, C, c, s);
  }
}

// channel_partials' channels-last sums with a lane per two adjacent channels (16-bit data: one
// 4-byte access per operand where C is even and the pointers aligned, f.pair; else two scalar ones):
// the block is half channel_partials', 16 lanes a row group, so groups = blockDim.x / 16 is the
// same row groups and every channel's sums add the same elements in the same order.
template <typename F>
__device__ __forceinline__ void channel_partials_pairs(const F& f, float* __restrict__ partials, long long m,
                                                       long long C, long long splits) {
  long long begin, end;
  split_range(m, splits, blockIdx.y, begin, end);
  float2 (&tile)[32][33] = partials_tile();
  const int lane = threadIdx.x & 15, group = threadIdx.x >> 4, groups = blockDim.x >> 4;
  const long long c = blockIdx.x * 32LL + 2 * lane;
  float a[2] = {}, b[2] = {};
  if (c < C) {
    const bool both = c + 1 < C;  // (an odd C's last channel has no partner)
    long long r = begin + group;
    for (; r + 3 * groups < end; r += 4 * groups) {  // four rows' loads in flight, then their adds in row order
      float g[4][2], v[4][2];
#pragma unroll
      for (int q = 0; q < 4; ++q) f.pair_load((r + q * groups) * C + c, both, g[q], v[q]);
#pragma unroll
      for (int q = 0; q < 4; ++q) f.pair_add(c, both, g[q], v[q], a, b);
    }
    for (; r < end; r += groups) {
      float g[2], v[2];
      f.pair_load(r * C + c, both, g, v);
      f.pair_add(c, both, g, v, a, b);
    }
  }
  tile[group][2 * lane] = make_float2(a[0], b[0]);
  tile[group][2 * lane + 1] = make_float2(a[1], b[1]);
  __syncthreads();
  const long long c0 = blockIdx.x * 32LL, width = C - c0 < 32 ? C - c0 : 32;
  for (long long j = threadIdx.x; j < width; j += blockDim.x) {
    store_partials(partials, C, c0 + j, column_sum(tile, static_cast<int>(j), groups));  // int32 ok: j < 32
  }
}

// Channel c's elements [begin, end) under the cpu backend's launch sizes (channels-first): the
// block's thread t takes the t-th of blockDim.x consecutive slices, and g(base, n) walks it in
// stretches of n consecutive elements at offset base of x (each within one row).
template <typename G>
__device__ __forceinline__ void for_each_stretch(long long begin, long long end, long long C, long long inner,
                                                 long long c, const G& g) {
  const long long len = (end - begin + blockDim.x - 1) / blockDim.x;
  long long i = begin + threadIdx.x * len;
  const long long stop = i + len < end ? i + len : end;
  while (i < stop) {
    const long long o = i / inner, k = i - o * inner;
    const long long n = inner - k < stop - i ? inner - k : stop - i;
    g((o * C + c) * inner + k, n);
    i += n;
  }
}

// Rows [r0, r1) of a channels-last tile's `width` channels from c0, summed into sa[j], sb[j]. W:
// the width at compile time, 32 for a full tile, so the host compiler vectorises the loop over
// the channels (it was scalar, a load, add and store per element); 0: width at run time.
template <int W, typename F>
__device__ __forceinline__ void tile_sums(const F& f, long long r0, long long r1, long long C, long long c0,
                                          long long width, float (&sa)[32], float (&sb)[32]) {
  const long long w = W > 0 ? W : width;
  for (long long r = r0; r < r1; ++r) {
#pragma GCC unroll 32
    for (long long j = 0; j < w; ++j) f(r * C + c0 + j, c0 + j, sa[j], sb[j]);
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
  split_range(m, splits, blockIdx.y, begin, end);
  if (inner == 1) {
    __shared__ float2 sums[32][33];  // [thread][channel of the tile]
    const long long c0 = blockIdx.x * 32LL, width = C - c0 < 32 ? C - c0 : 32;
    const long long rowsets = blockDim.x < 32 ? blockDim.x : 32;
    if (threadIdx.x < rowsets) {
      float sa[32] = {}, sb[32] = {};
      const long long len = (end - begin + rowsets - 1) / rowsets;
      const long long r0 = begin + threadIdx.x * len, r1 = r0 + len < end ? r0 + len : end;
      if (width == 32) {
        tile_sums<32>(f, r0, r1, C, c0, 32, sa, sb);
      } else {
        tile_sums<0>(f, r0, r1, C, c0, width, sa, sb);
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
    float ra[kRun] = {}, rb[kRun] = {};
    for_each_stretch(begin, end, C, inner, c, [&](long long base, long long n) {
      long long j = 0;
      for (; j + kRun <= n; j += kRun) {
#pragma unroll
        for (long long q = 0; q < kRun; ++q) f(base + j + q, c, ra[q], rb[q]);
      }
      for (; j < n; ++j) f(base + j, c, ra[0], rb[0]);
    });
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

// ---- The forward's statistics --------------------------------------------------------------------
// Count, mean and biased variance of some of a channel's values. A run of values gets its moments
// in two passes over registers or cache (their sum; then the deviations from their mean and the
// squared deviations, the corrected two-pass formula); runs, threads and splits merge by Chan et
// al.'s formula. No value is compared with an arbitrary one (a single pass of sums shifted by the
// channel's first element lost 1–4 % of the variance when that element was an outlier, issue 20).
// The mean is carried as a pair of floats (mean + err, about twice float32's precision), so the
// difference of two parts' means, which the merge squares, stays exact for data far from 0
// compared with its spread (mean 1e4, std 1); the variance is kept as the mean of the squared
// deviations, not their sum, so no partial result overflows for a channel whose variance float32
// can hold. Non-finite values give what a plain sum gives: a channel holding +inf has the mean
// +inf (NaN with −inf too), one holding NaN the mean NaN; the variance of either is NaN (PyTorch's).
struct Moments {
  float n, mean, err, var;
};

__device__ __forceinline__ bool is_finite(float v) { return fabsf(v) <= 3.402823466e38f; }

// The moments of k values from their two passes: mean = their sum · inv (inv = 1/k; rounded),
// r = Σ(v − mean) and s2 = Σ(v − mean)².
__device__ __forceinline__ Moments passes_moments(float k, float inv, float mean, float r, float s2) {
  const float err = is_finite(mean) ? r * inv : 0.f;  // what the rounded mean misses
  const float var = (s2 - r * err) * inv;  // Σ(v − mean)² − (Σ(v − mean))²/k, over k
  return Moments{k, mean, err, var < 0.f ? 0.f : var};  // (clamps a rounding below 0; NaN stays NaN)
}

// Applies s to each float of the moments: how opgen::warp_reduce shuffles them (found by
// argument-dependent lookup, beside the overloads of kernels/_common.cuh).
template <typename S>
__device__ __forceinline__ Moments map_floats(Moments v, const S& s) {
  return Moments{s(v.n), s(v.mean), s(v.err), s(v.var)};
}

// Chan et al.'s merge of two parts (a from earlier elements / lower threads).
struct MergeMoments {
  __device__ __forceinline__ Moments operator()(Moments a, Moments b) const {
    if (b.n == 0.f) return a;
    if (a.n == 0.f) return b;
    const float n = a.n + b.n, inv = 1.f / n, wa = a.n * inv, wb = b.n * inv;
    const float d = (b.mean - a.mean) + (b.err - a.err);  // the difference of the means
    const float var = (wa * a.var + wb * b.var) + (d * wa) * (d * wb);
    // mean + err = a's + wb·d, as a float pair: TwoSum, then renormalised
    const float t = d * wb, s = a.mean + t, back = s - a.mean;
    const float e = ((a.mean - (s - back)) + (t - back)) + a.err;
    const float mean = s + e, err = e - (mean - s);
    if (!is_finite(a.mean) || !is_finite(b.mean)) return Moments{n, a.mean + b.mean, 0.f, var};  // ±inf, NaN
    return Moments{n, mean, err, var};
  }
};

// Moments of v[0 .. k), 0 < k ≤ K, held in registers.
template <int K>
__device__ __forceinline__ Moments run_moments(const float (&v)[K], int k) {
  float sum = 0.f;
#pragma unroll
  for (int q = 0; q < K; ++q) sum += q < k ? v[q] : 0.f;
  const float fk = static_cast<float>(k), inv = k == K ? 1.f / K : 1.f / fk, mean = sum * inv;
  float r = 0.f, s2 = 0.f;
#pragma unroll
  for (int q = 0; q < K; ++q) {
    const float e = q < k ? v[q] - mean : 0.f;
    r += e;
    s2 += e * e;
  }
  return passes_moments(fk, inv, mean, r, s2);
}

// Moments of v[0 .. k), k > 0, in memory (a loop, not unrolled).
__device__ __forceinline__ Moments buffer_moments(const float* __restrict__ v, int k) {
  float sum = 0.f;
  for (int q = 0; q < k; ++q) sum += v[q];
  const float fk = static_cast<float>(k), inv = 1.f / fk, mean = sum * inv;
  float r = 0.f, s2 = 0.f;
  for (int q = 0; q < k; ++q) {
    const float e = v[q] - mean;
    r += e;
    s2 += e * e;
  }
  return passes_moments(fk, inv, mean, r, s2);
}

// Values a cpu-plan thread takes together (channels-first: kChunk consecutive elements;
// channels-last: about kTileValues of its tile's rows): the second pass reads them back from the
// cache, and one merge covers them.
constexpr int kChunk = 256, kTileValues = 1024;
// Values gathered from short stretches (channels-first rows shorter than a chunk) before a merge:
// a chunk on the host; 8 in NVRTC's build of the cpu plan's kernel (never launched on a GPU, but
// compiled without spilling).
#ifdef OPGEN_HOST_EMU
constexpr int kGather = kChunk;
#else
constexpr int kGather = 8;
#endif

// Moments of the kChunk consecutive elements at p, in independent partial sums the host compiler
// keeps in SIMD registers (two groups of 4 lanes: two chains of adds in flight). On the host,
// 16-bit values are converted once, into a buffer the two passes read (a conversion costs about
// as much as a pass).
template <typename T>
__device__ __forceinline__ Moments chunk_moments(const T* __restrict__ p) {
#ifdef OPGEN_HOST_EMU
  if constexpr (!opgen::is_float32<T>::value) {
    float v[kChunk];
    for (int j = 0; j < kChunk; ++j) v[j] = opgen::to_float(p[j]);
    return chunk_moments(static_cast<const float*>(v));
  }
#endif
  float s[4] = {}, t[4] = {};
  for (int j = 0; j < kChunk; j += 8) {
#pragma unroll
    for (int q = 0; q < 4; ++q) s[q] += opgen::to_float(p[j + q]);
#pragma unroll
    for (int q = 0; q < 4; ++q) t[q] += opgen::to_float(p[j + 4 + q]);
  }
  const float mean = (((s[0] + t[0]) + (s[1] + t[1])) + ((s[2] + t[2]) + (s[3] + t[3]))) * (1.f / kChunk);
  float r[4] = {}, u[4] = {}, s2[4] = {}, u2[4] = {};
  for (int j = 0; j < kChunk; j += 8) {
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const float e = opgen::to_float(p[j + q]) - mean;
      r[q] += e;
      s2[q] += e * e;
    }
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const float e = opgen::to_float(p[j + 4 + q]) - mean;
      u[q] += e;
      u2[q] += e * e;
    }
  }
  return passes_moments(static_cast<float>(kChunk), 1.f / kChunk, mean, ((r[0] + u[0]) + (r[1] + u[1])) + ((r[2] + u[2]) + (r[3] + u[3])),
                        ((s2[0] + u2[0]) + (s2[1] + u2[1])) + ((s2[2] + u2[2]) + (s2[3] + u2[3])));
}

// partials[split][c] = (mean, err, variance); the count follows from the split (split_range).
__device__ __forceinline__ void store_moments(float* __restrict__ partials, long long C, long long c, Moments s) {
  float* __restrict__ p = partials + 3 * (blockIdx.y * C + c);
  p[0] = s.mean;
  p[1] = s.err;
  p[2] = s.var;
}

// Rows [0, rows) of w channels at p (row stride ld), merged into out[j]: each channel's sum, then
// the deviations from its mean. W: the width at compile time, 32 for a full tile, so the host
// compiler vectorises the loops over channels; 0: w at run time.
template <int W, typename V>
__device__ __forceinline__ void tile_group(const V* __restrict__ p, long long ld, int rows, int width,
                                           Moments (&out)[33]) {
  const int w = W > 0 ? W : width;
  const MergeMoments merge;
  float s[32] = {}, e1[32] = {}, e2[32] = {}, mean[32];
  for (int q = 0; q < rows; ++q) {
    for (int j = 0; j < w; ++j) s[j] += opgen::to_float(p[q * ld + j]);
  }
  const float fr = static_cast<float>(rows), inv = 1.f / fr;
  for (int j = 0; j < w; ++j) mean[j] = s[j] * inv;
  for (int q = 0; q < rows; ++q) {
    for (int j = 0; j < w; ++j) {
      const float e = opgen::to_float(p[q * ld + j]) - mean[j];
      e1[j] += e;
      e2[j] += e * e;
    }
  }
  for (int j = 0; j < w; ++j) out[j] = merge(out[j], passes_moments(fr, inv, mean[j], e1[j], e2[j]));
}

// A channels-last tile under the cpu plan: one thread's rows [r0, r1) of channels c0 .. c0 + w, in
// groups of about kTileValues values (16-bit values converted once on the host, as chunk_moments).
template <int W, typename T>
__device__ __forceinline__ void tile_moments(const T* __restrict__ x, long long C, long long c0, int width,
                                             long long r0, long long r1, Moments (&out)[33]) {
  const int w = W > 0 ? W : width, group = kTileValues / w;
  for (int j = 0; j < 32; ++j) out[j] = Moments{0.f, 0.f, 0.f, 0.f};
  for (long long r = r0; r < r1; r += group) {
    const int rows = r1 - r < group ? static_cast<int>(r1 - r) : group;  // int32 ok: at most group
    const T* __restrict__ p = x + r * C + c0;
#ifdef OPGEN_HOST_EMU
    if constexpr (!opgen::is_float32<T>::value) {
      float v[kTileValues];
      for (int q = 0; q < rows; ++q) {
        for (int j = 0; j < w; ++j) v[q * w + j] = opgen::to_float(p[q * C + j]);
      }
      tile_group<W>(static_cast<const float*>(v), w, rows, w, out);
      continue;
    }
#endif
    tile_group<W>(p, C, rows, w, out);
  }
}

// Each channel's moments over split blockIdx.y, into partials[split][c] (store_moments), under the
// GPU's launch sizes: a warp reads 32 neighbouring channels of a row, kRun rows a merge
// (channels-last), or a block's threads read runs of kRun adjacent elements, one vector access
// each (channels-first); then the threads' moments merge across the block.
template <typename T>
__device__ void stats_partials(const T* __restrict__ x, float* __restrict__ partials, long long m, long long C,
                               long long inner, long long splits) {
  long long begin, end;
  split_range(m, splits, blockIdx.y, begin, end);
  const MergeMoments merge;
  Moments acc{0.f, 0.f, 0.f, 0.f};
  if (inner == 1) {
    __shared__ Moments tile[32][33];  // [row group][lane], padded against bank conflicts
    const int lane = threadIdx.x & 31, group = threadIdx.x >> 5, groups = blockDim.x >> 5;
    const long long c = blockIdx.x * 32LL + lane;
    if (c < C) {
      for (long long r = begin + group; r < end; r += kRun * groups) {
        float v[kRun];
        int k = 0;
#pragma unroll
        for (int q = 0; q < kRun; ++q) {
          const long long row = r + q * groups;
          v[q] = row < end ? opgen::to_float(x[row * C + c]) : 0.f;
          k += row < end;
        }
        acc = merge(acc, run_moments(v, k));
      }
    }
    tile[group][lane] = acc;
    __syncthreads();
    if (group == 0 && c < C) {
      for (int g = 1; g < groups; ++g) acc = merge(acc, tile[g][lane]);
      store_moments(partials, C, c, acc);
    }
  } else {
    const long long c = blockIdx.x;
    for_each_run(begin, end, C, inner, c, [&](long long base, bool four) {
      if (four) {
        float v[kRun];
        opgen::load4(x + base, v);  // one vector access where aligned
        acc = merge(acc, run_moments(v, kRun));
      } else {
        const float v[1] = {opgen::to_float(x[base])};
        acc = merge(acc, run_moments(v, 1));
      }
    });
    acc = opgen::block_reduce(acc, merge);
    if (threadIdx.x == 0) store_moments(partials, C, c, acc);
  }
}

// The same under the cpu backend's launch sizes, where a block's threads run one after another:
// each thread takes its own consecutive slice of the split (channels-first: stretches of the
// channel's rows, kChunk elements a merge; channels-last: its rows over the tile's 32 channels,
// kTileRows rows a merge), then the threads' moments merge in order.
template <typename T>
__device__ void stats_partials_sliced(const T* __restrict__ x, float* __restrict__ partials, long long m,
                                      long long C, long long inner, long long splits) {
  long long begin, end;
  split_range(m, splits, blockIdx.y, begin, end);
  const MergeMoments merge;
  if (inner == 1) {
    __shared__ Moments moments[32][33];  // [thread][channel of the tile]
    const long long c0 = blockIdx.x * 32LL, width = C - c0 < 32 ? C - c0 : 32;
    const long long rowsets = blockDim.x < 32 ? blockDim.x : 32;
    if (threadIdx.x < rowsets && width > 0) {  // (a channels-first grid has C blocks: width < 0 past C)
      const long long len = (end - begin + rowsets - 1) / rowsets;
      const long long r0 = begin + threadIdx.x * len, r1 = r0 + len < end ? r0 + len : end;
      if (width == 32) {
        tile_moments<32>(x, C, c0, 32, r0, r1, moments[threadIdx.x]);
      } else {
        tile_moments<0>(x, C, c0, static_cast<int>(width), r0, r1, moments[threadIdx.x]);  // int32 ok: < 32
      }
    }
    __syncthreads();
    if (threadIdx.x < width) {
      Moments s = moments[0][threadIdx.x];
      for (long long t = 1; t < rowsets; ++t) s = merge(s, moments[t][threadIdx.x]);
      store_moments(partials, C, c0 + threadIdx.x, s);
    }
  } else {
    const long long c = blockIdx.x;
    Moments acc{0.f, 0.f, 0.f, 0.f};
    float buf[kGather];  // values from short stretches (buffer_moments reads those written)
    int k = 0;
    for_each_stretch(begin, end, C, inner, c, [&](long long base, long long n) {
      const T* __restrict__ p = x + base;
      for (long long j = 0; j < n;) {
        if (k == 0 && n - j >= kChunk) {  // a whole chunk in place
          acc = merge(acc, chunk_moments(p + j));
          j += kChunk;
          continue;
        }
        buf[k++] = opgen::to_float(p[j++]);
        if (k == kGather) {
          acc = merge(acc, buffer_moments(buf, kGather));
          k = 0;
        }
      }
    });
    if (k > 0) acc = merge(acc, buffer_moments(buf, k));
    acc = opgen::block_reduce(acc, merge);
    if (threadIdx.x == 0) store_moments(partials, C, c, acc);
  }
}

// Per-channel affine coefficients: the elementwise passes compute y = A·x + B (forward) and
// dx = A·dy + B·x + D (gradient), so they need no square roots or divisions per element.

// Training statistics per channel from the splits' moments (merged in split order: deterministic),
// and the forward's coefficients. Non-finite values propagate as in PyTorch: the statistics of a
// channel holding NaN or ±inf are NaN (the mean ±inf for an inf), and so is its whole y.
template <typename T>
__device__ void stats_finalize(const T* __restrict__ x, const float* __restrict__ partials,
                               const float* __restrict__ scale, const float* __restrict__ offset,
                               const float* __restrict__ mean, const float* __restrict__ variance,
                               float* __restrict__ batch_mean, float* __restrict__ batch_variance,
                               float* __restrict__ saved_mean, float* __restrict__ saved_var,
                               float* __restrict__ coeffs, long long m, long long C, long long inner,
                               long long splits, float epsilon, float exponential_avg_factor) {
  (void)x, (void)inner;  // (the launch plan's arguments; the moments need neither)
  const long long c = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= C) return;
  const MergeMoments merge;
  Moments total{0.f, 0.f, 0.f, 0.f};
  for (long long s = 0; s < splits; ++s) {
    long long begin, end;
    split_range(m, splits, s, begin, end);
    if (end > begin) {
      const float* __restrict__ p = partials + 3 * (s * C + c);
      total = merge(total, Moments{static_cast<float>(end - begin), p[0], p[1], p[2]});
    }
  }
  // (m = 0: the moments of nothing, 0 and 0; a variance below 0 was clamped where it was made)
  const float mu = total.mean + total.err, var = total.var;
  const float unbiased = var * (static_cast<float>(m) / static_cast<float>(m > 1 ? m - 1 : 1));  // (var·m may overflow)
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

// f.store(idx, f.value(idx, c)) for every element idx (of channel c).
//
// chunk > 0 (the cpu backend's launch sizes): thread t takes the `chunk` consecutive elements
// from t·chunk, walking them in stretches of one channel (channels-first) or one row
// (channels-last). The host emulation runs a block's threads one after another, so this streams
// memory in order and the stretches vectorise; on a GPU it would not coalesce.
//
// chunk == 0 (GPU sizes): grid-stride. Each thread takes runs of kRun adjacent elements (more work
// per thread, adjacent accesses), or of 2 for 16-bit data (f.kPairs), where the rows allow
// (runs_of); else one element at a time.
// Values the host form computes side by side before it stores them (two AVX2 registers of floats,
// four SSE ones). NVRTC compiles the cpu plan's kernels too, a GPU never runs them: few there.
#ifdef OPGEN_HOST_EMU
constexpr int kLanes = 16;
#else
constexpr int kLanes = 4;
#endif

// f.store(idx, f.value(idx, c)) for n elements from idx0, of channels c0 + j·kStep (kStep 1 along
// a channels-last row, 0 in a channels-first stretch): runs of kLanes values are computed before
// they are stored, so their loads vectorise (the functor's pointers are not restrict).
template <int kStep, typename F>
__device__ __forceinline__ void store_stretch(const F& f, long long idx0, long long c0, long long n) {
  long long j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    float v[kLanes];
#pragma GCC unroll 16
    for (int q = 0; q < kLanes; ++q) v[q] = f.value(idx0 + j + q, c0 + (j + q) * kStep);
#pragma GCC unroll 16
    for (int q = 0; q < kLanes; ++q) f.store(idx0 + j + q, v[q]);
  }
  for (; j < n; ++j) f.store(idx0 + j, f.value(idx0 + j, c0 + j * kStep));
}

// K adjacent elements at p as floats, and back: one vector access where aligned (K = kRun: 16 or 8
// bytes; K = 2: 4 bytes of 16-bit data).
template <int K, typename T>
__device__ __forceinline__ void load_run(const T* __restrict__ p, float (&v)[K]) {
  if constexpr (K == kRun) {
    opgen::load4(p, v);
  } else {
    opgen::load2(p, v);
  }
}

template <int K, typename T>
__device__ __forceinline__ void store_run(T* __restrict__ p, const float (&v)[K]) {
  if constexpr (K == kRun) {
    opgen::store4(p, v);
  } else {
    opgen::store2(p, v);
  }
}

// for_each_element's GPU form in runs of K adjacent elements a thread (f.run<K>), where a row of
// C·inner elements is a whole number of runs and fits in the grid: the stride is then a whole
// number of rows, so a thread keeps its channel(s) and no element needs a division. False (nothing
// done) where the rows are not.
template <int K, typename F>
__device__ __forceinline__ bool runs_of(const F& f, long long total, long long C, long long inner, long long threads,
                                        long long t) {
  const long long row = C * inner;
  if (row % K != 0 || (inner != 1 && inner % K != 0) || row > threads * K) return false;
  const long long stride = threads * K / row * row;  // elements per pass, whole rows
  const long long first = t * K;
  if (first >= stride) return true;
  const long long c = (first % row) / inner, step = inner == 1 ? 1 : 0;  // channel of each run element
  for (long long idx = first; idx < total; idx += stride) f.template run<K>(idx, c, step);
  return true;
}

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
        store_stretch<1>(f, idx, c, n);
        idx += n;
        c = 0;
      } else {  // the rest of channel c's stretch of `inner` elements
        const long long n = inner - k < last - idx ? inner - k : last - idx;
        store_stretch<0>(f, idx, c, n);
        idx += n;
        k = 0;
        if (++c == C) c = 0;
      }
    }
    return;
  }
  // runs of kRun adjacent elements (one vector access each); 16-bit data whose rows are not: pairs
  // (one 4-byte access each, where aligned); else one element at a time
  if (runs_of<kRun>(f, total, C, inner, threads, t)) return;
  if constexpr (F::kPairs) {
    if (runs_of<2>(f, total, C, inner, threads, t)) return;
  }
  for (long long idx = t; idx < total; idx += threads) f.store(idx, f.value(idx, (idx / inner) % C));
}

template <typename T>
struct Affine {
  const T* x;
  const float* coeffs;
  T* y;
  __device__ __forceinline__ float value(long long idx, long long c) const {
    return opgen::to_float(x[idx]) * coeffs[2 * c] + coeffs[2 * c + 1];
  }
  __device__ __forceinline__ void store(long long idx, float v) const { y[idx] = opgen::from_float<T>(v); }
  static constexpr bool kPairs = opgen::is_16bit_float<T>::value;  // runs of 2 (for_each_element)
  // elements idx .. idx+K−1 (idx a multiple of K) of channels c, c + step, ..., c + (K−1)·step
  template <int K>
  __device__ __forceinline__ void run(long long idx, long long c, long long step) const {
    float v[K];
    load_run<K>(x + idx, v);
#pragma unroll
    for (int j = 0; j < K; ++j) v[j] = v[j] * coeffs[2 * (c + j * step)] + coeffs[2 * (c + j * step) + 1];
    store_run<K>(y + idx, v);
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
  // channels c and c + 1 (only c unless both) of the row at offset: their values, then added as
  // operator() adds each
  __device__ __forceinline__ void pair_load(long long offset, bool both, float (&g)[2], float (&v)[2]) const {
    if (both) {
      opgen::load2(dy + offset, g);
      opgen::load2(x + offset, v);
    } else {
      g[0] = opgen::to_float(dy[offset]), v[0] = opgen::to_float(x[offset]);
      g[1] = v[1] = 0.f;
    }
  }
  __device__ __forceinline__ void pair_add(long long c, bool both, const float (&g)[2], const float (&v)[2],
                                           float (&a)[2], float (&b)[2]) const {
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      if (j == 0 || both) {
        a[j] += g[j];
        b[j] += g[j] * (v[j] - mu[c + j]);
      }
    }
  }
};

template <typename T>
__device__ void grad_partials(const T* __restrict__ dy, const T* __restrict__ x, const float* __restrict__ mu,
                              float* __restrict__ partials, long long m, long long C, long long inner,
                              long long splits, long long pairs) {
  if constexpr (opgen::is_16bit_float<T>::value) {
    if (pairs) {  // (the spec's let pairs: channels-last, a block of half the threads)
      channel_partials_pairs(GradSums<T>{dy, x, mu}, partials, m, C, splits);
      return;
    }
  }
  channel_partials(GradSums<T>{dy, x, mu}, partials, m, C, inner, splits);
}

template <typename T>
__device__ void grad_partials_sliced(const T* __restrict__ dy, const T* __restrict__ x, const float* __restrict__ mu,
                                     float* __restrict__ partials, long long m, long long C, long long inner,
                                     long long splits) {
  channel_partials_sliced(GradSums<T>{dy, x, mu}, partials, m, C, inner, splits);
}

// Channel c's results from its two sums: offset_backprop = Σ dy; scale_backprop = Σ dy·(x−μ)·r;
// and k, the coefficients of dx = A·dy + B·x + D. Training: A = scale·r, B = −A·r·scale_backprop/m,
// D = −A·Σdy/m − B·μ. Inference: A = scale·r, B = D = 0.
__device__ __forceinline__ void grad_results(float sum_dy, float sum_dy_xc, long long c, const float* __restrict__ scale,
                                             const float* __restrict__ mu, const float* __restrict__ var,
                                             float* __restrict__ scale_backprop, float* __restrict__ offset_backprop,
                                             long long m, float epsilon, int is_training, float (&k)[3]) {
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
  k[0] = a;
  k[1] = b;
  k[2] = d;
}

// The splits' sums of each channel, its results and coefficients: A, B and D of all channels one
// after another (coeffs[c], coeffs[C + c], coeffs[2C + c]), so a channels-last row reads each in order.
template <typename T>
__device__ void grad_finalize(const float* __restrict__ partials, const float* __restrict__ scale,
                              const float* __restrict__ mu, const float* __restrict__ var,
                              float* __restrict__ scale_backprop, float* __restrict__ offset_backprop,
                              float* __restrict__ coeffs, long long m, long long C, long long splits,
                              float epsilon, int is_training) {
  const long long c = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= C) return;
  const float2 sums = sum_splits(partials, c, C, splits);
  float k[3];
  grad_results(sums.x, sums.y, c, scale, mu, var, scale_backprop, offset_backprop, m, epsilon, is_training, k);
  coeffs[c] = k[0];
  coeffs[C + c] = k[1];
  coeffs[2 * C + c] = k[2];
}

template <typename T>
struct GradAffine {
  const T* dy;
  const T* x;
  const float* coeffs;  // A, B, D of the C channels (grad_finalize)
  long long C;
  T* dx;
  __device__ __forceinline__ float value(long long idx, long long c) const {
    return coeffs[c] * opgen::to_float(dy[idx]) + coeffs[C + c] * opgen::to_float(x[idx]) + coeffs[2 * C + c];
  }
  __device__ __forceinline__ void store(long long idx, float v) const { dx[idx] = opgen::from_float<T>(v); }
  static constexpr bool kPairs = opgen::is_16bit_float<T>::value;
  template <int K>
  __device__ __forceinline__ void run(long long idx, long long c, long long step) const {
    float g[K], v[K];
    load_run<K>(dy + idx, g);
    load_run<K>(x + idx, v);
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const long long cj = c + j * step;
      v[j] = coeffs[cj] * g[j] + coeffs[C + cj] * v[j] + coeffs[2 * C + cj];
    }
    store_run<K>(dx + idx, v);
  }
};

// Inference: dx = A·dy. x is not read, so a NaN or inf in x leaves dx finite, as in PyTorch and
// TensorFlow (0·inf would be NaN in A·dy + 0·x).
template <typename T>
struct GradScale {
  const T* dy;
  const float* coeffs;  // A of the C channels first (grad_finalize)
  T* dx;
  __device__ __forceinline__ float value(long long idx, long long c) const {
    return coeffs[c] * opgen::to_float(dy[idx]);
  }
  __device__ __forceinline__ void store(long long idx, float v) const { dx[idx] = opgen::from_float<T>(v); }
  static constexpr bool kPairs = opgen::is_16bit_float<T>::value;
  template <int K>
  __device__ __forceinline__ void run(long long idx, long long c, long long step) const {
    float g[K];
    load_run<K>(dy + idx, g);
#pragma unroll
    for (int j = 0; j < K; ++j) g[j] *= coeffs[c + j * step];
    store_run<K>(dx + idx, g);
  }
};

template <typename T>
__device__ void grad_input(const T* __restrict__ dy, const T* __restrict__ x, const float* __restrict__ coeffs,
                           T* __restrict__ dx, long long total, long long C, long long inner, long long chunk,
                           int is_training) {
  if (is_training) {
    for_each_element(GradAffine<T>{dy, x, coeffs, C, dx}, total, C, inner, chunk);
  } else {
    for_each_element(GradScale<T>{dy, coeffs, dx}, total, C, inner, chunk);
  }
}

// ---- The GPU's gradient of channels-last data (NHWC, NDHWC) that fits a block: one launch -------
// A block owns a tile of 32 channels (a warp's lanes: a row's 32 neighbouring channels, coalesced)
// over all m rows, and reads dy and x once: warp w keeps rows w, w + warps, ... (at most
// kOnceRows a thread) in registers as floats and sums them in that order; the warps' sums are
// added in warp order (deterministic), warp 0 forms each channel's results and coefficients as
// grad_finalize does, and every thread writes dx of the rows it kept. The three launches read
// both inputs twice and pass the sums and coefficients through memory. The op's variant `once`
// (m ≤ 16 warps × kOnceRows, the param once_max_rows) chooses it; its block is 32·min(m, 16) threads: the
// 128 registers a thread may hold at 512 keep 2 × 24 values without spilling in every NVRTC of the CI
// (2 × 32 spilled 8 bytes on sm_100, 2 × 16 at 1,024 threads and 64 registers up to 40).
constexpr int kOnceRows = 24;

template <typename T>
__device__ void grad_once(const T* __restrict__ dy, const T* __restrict__ x, const float* __restrict__ scale,
                          const float* __restrict__ mu, const float* __restrict__ var, T* __restrict__ dx,
                          float* __restrict__ scale_backprop, float* __restrict__ offset_backprop, long long m,
                          long long C, float epsilon, int is_training) {
  __shared__ float2 sums[16][33];  // [warp][lane], padded against bank conflicts
  __shared__ float coef[3][32];    // A, B, D of the tile's channels
  __shared__ long long walk_C;     // C, read back after the barrier (below)
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  const long long c = blockIdx.x * 32LL + lane;
  const bool live = c < C;
  const float mc = live ? mu[c] : 0.f;
  // rows warp, warp + warps, ...: n of them; their offsets step by warps·C, walked in order
  const long long kept = live && m > warp ? (m - warp + warps - 1) / warps : 0;
  const int n = static_cast<int>(kept < kOnceRows ? kept : kOnceRows);  // int32 ok: at most kOnceRows
  const long long first = warp * C + c, step = warps * C;
  float g[kOnceRows], v[kOnceRows], a = 0.f, b = 0.f;
  long long at = first;
#pragma unroll
  for (int q = 0; q < kOnceRows; ++q) {
    g[q] = v[q] = 0.f;
    if (q < n) {
      g[q] = opgen::to_float(dy[at]);
      v[q] = opgen::to_float(x[at]);
      a += g[q];
      b += g[q] * (v[q] - mc);
    }
    at += step;
  }
  sums[warp][lane] = make_float2(a, b);
  if (threadIdx.x == 0) walk_C = C;
  __syncthreads();
  if (warp == 0 && live) {
    const float2 s = column_sum(sums, lane, warps);
    float k[3];
    grad_results(s.x, s.y, c, scale, mu, var, scale_backprop, offset_backprop, m, epsilon, is_training, k);
    coef[0][lane] = k[0];
    coef[1][lane] = k[1];
    coef[2][lane] = k[2];
  }
  __syncthreads();
  if (!live) return;  // (no coefficients past the last channel)
  const float ka = coef[0][lane], kb = coef[1][lane], kd = coef[2][lane];
  // The same offsets again, from C as read back: NVRTC would otherwise keep the first walk's 24
  // offsets (48 registers) across the barrier for these stores, and spill.
  const long long wc = walk_C;
  at = warp * wc + c;
#pragma unroll
  for (int q = 0; q < kOnceRows; ++q) {
    if (q < n) {
      // as GradAffine and GradScale: inference reads no x (a NaN in x leaves dx finite)
      const float d = is_training ? ka * g[q] + kb * v[q] + kd : ka * g[q];
      dx[at] = opgen::from_float<T>(d);
    }
    at += warps * wc;
  }
}

// ---- The cpu plan's gradient of channels-first data (NCHW, NCDHW), a block per channel ----------
// One thread owns channel c: its outer rows of `inner` consecutive elements. Pass 1 sums dy and
// dy·(x−μ) in 16 independent sums per quantity (two AVX2 registers, four SSE ones: the adds do not
// wait on each other and the loads vectorise); the channel's results follow as grad_finalize
// computes them; pass 2 writes dx in runs of kLanes while the channel's dy and x are still in the
// cache (32×56×56 floats of each are 800 KB: read once from memory, where the three-launch plan
// read them twice with the partials and coefficients between). Deterministic: one thread, a fixed
// order.
#ifdef OPGEN_HOST_EMU
// Eight floats as one GCC vector: one AVX2 register (two SSE ones on the baseline build). The
// compiler's own vectorisation of lane arrays splits these sums unevenly (scalar, 2- and 4-wide).
typedef float Float8 __attribute__((vector_size(32)));

template <typename T>
__device__ __forceinline__ Float8 load8(const T* __restrict__ p) {
  float f[8];
#pragma GCC unroll 8
  for (int q = 0; q < 8; ++q) f[q] = opgen::to_float(p[q]);
  Float8 v;
  __builtin_memcpy(&v, f, sizeof v);  // (a plain unaligned load for float)
  return v;
}

__device__ __forceinline__ float lane_sum(Float8 v) {
  return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7]));
}
#endif

// Adds Σ g and Σ g·(v − mc) over a row of n elements into the totals ta, tb. On the host: 16
// independent sums per quantity in two vectors, folded pairwise at the row's end; in double
// across rows, so a float sum spans at most n / 16 values.
template <typename T>
__device__ __forceinline__ void add_row_sums(const T* __restrict__ g, const T* __restrict__ v, float mc, long long n,
                                             double& ta, double& tb) {
  long long j = 0;
  float a = 0.f, b = 0.f;
#ifdef OPGEN_HOST_EMU
  Float8 a0 = {}, a1 = {}, b0 = {}, b1 = {};
  for (; j + 16 <= n; j += 16) {
    const Float8 g0 = load8(g + j), g1 = load8(g + j + 8);
    a0 += g0;
    a1 += g1;
    b0 += g0 * (load8(v + j) - mc);
    b1 += g1 * (load8(v + j + 8) - mc);
  }
  a = lane_sum(a0 + a1);
  b = lane_sum(b0 + b1);
#endif
  float ra = 0.f, rb = 0.f;
  for (; j < n; ++j) {
    const float gj = opgen::to_float(g[j]);
    ra += gj;
    rb += gj * (opgen::to_float(v[j]) - mc);
  }
  ta += static_cast<double>(a + ra);
  tb += static_cast<double>(b + rb);
}

template <typename T>
__device__ void grad_channels(const T* __restrict__ dy, const T* __restrict__ x, const float* __restrict__ scale,
                              const float* __restrict__ mu, const float* __restrict__ var, T* __restrict__ dx,
                              float* __restrict__ scale_backprop, float* __restrict__ offset_backprop,
                              long long outer, long long C, long long inner, float epsilon, int is_training) {
  const long long c = blockIdx.x;
  if (threadIdx.x != 0 || c >= C) return;  // (the plan launches blocks of one thread)
  const float mc = mu[c];
  double ta = 0.0, tb = 0.0;
  for (long long o = 0; o < outer; ++o) {
    const T* __restrict__ g = dy + (o * C + c) * inner;
    const T* __restrict__ v = x + (o * C + c) * inner;
    add_row_sums(g, v, mc, inner, ta, tb);
  }
  float k[3];
  grad_results(static_cast<float>(ta), static_cast<float>(tb), c, scale, mu, var, scale_backprop, offset_backprop,
               outer * inner, epsilon, is_training, k);
  // dx row by row, as grad_input writes it: k is A, B, D of one channel, planar coefficients of C = 1
  for (long long o = 0; o < outer; ++o) {
    const long long at = (o * C + c) * inner;
    if (is_training) {
      store_stretch<0>(GradAffine<T>{dy, x, k, 1, dx}, at, 0, inner);
    } else {
      store_stretch<0>(GradScale<T>{dy, k, dx}, at, 0, inner);
    }
  }
}

#line 1794 "generated/nn/fused_batch_norm.cu"
// ---- FusedBatchNormGradV3: Gradient for batch normalization.
// entry points from specs/nn/fused_batch_norm_grad_v3.yaml: one per launch step and specialization (T)

#ifdef OPGEN_HOST_EMU  // only the cpu plan launches it
extern "C" __global__ void __launch_bounds__(1) FusedBatchNormGradV3__grad_channels__float16(
    const __half* __restrict__ y_backprop,
    const __half* __restrict__ x,
    const float* __restrict__ scale,
    const float* __restrict__ reserve_space_1,
    const float* __restrict__ reserve_space_2,
    __half* __restrict__ x_backprop,
    float* __restrict__ scale_backprop,
    float* __restrict__ offset_backprop,
    long long outer,
    long long C,
    long long inner,
    float epsilon,
    int is_training) {
  grad_channels<__half>(y_backprop, x, scale, reserve_space_1, reserve_space_2, x_backprop, scale_backprop, offset_backprop, outer, C, inner, epsilon, is_training);
}
#endif  // OPGEN_HOST_EMU

#ifdef OPGEN_HOST_EMU  // only the cpu plan launches it
extern "C" __global__ void __launch_bounds__(1) FusedBatchNormGradV3__grad_channels__bfloat16(
    const __nv_bfloat16* __restrict__ y_backprop,
    const __nv_bfloat16* __restrict__ x,
    const float* __restrict__ scale,
    const float* __restrict__ reserve_space_1,
    const float* __restrict__ reserve_space_2,
    __nv_bfloat16* __restrict__ x_backprop,
    float* __restrict__ scale_backprop,
    float* __restrict__ offset_backprop,
    long long outer,
    long long C,
    long long inner,
    float epsilon,
    int is_training) {
  grad_channels<__nv_bfloat16>(y_backprop, x, scale, reserve_space_1, reserve_space_2, x_backprop, scale_backprop, offset_backprop, outer, C, inner, epsilon, is_training);
}
#endif  // OPGEN_HOST_EMU

#ifdef OPGEN_HOST_EMU  // only the cpu plan launches it
extern "C" __global__ void __launch_bounds__(1) FusedBatchNormGradV3__grad_channels__float32(
    const float* __restrict__ y_backprop,
    const float* __restrict__ x,
    const float* __restrict__ scale,
    const float* __restrict__ reserve_space_1,
    const float* __restrict__ reserve_space_2,
    float* __restrict__ x_backprop,
    float* __restrict__ scale_backprop,
    float* __restrict__ offset_backprop,
    long long outer,
    long long C,
    long long inner,
    float epsilon,
    int is_training) {
  grad_channels<float>(y_backprop, x, scale, reserve_space_1, reserve_space_2, x_backprop, scale_backprop, offset_backprop, outer, C, inner, epsilon, is_training);
}
#endif  // OPGEN_HOST_EMU

extern "C" __global__ void __launch_bounds__(512, 1) FusedBatchNormGradV3__grad_once__float16(
    const __half* __restrict__ y_backprop,
    const __half* __restrict__ x,
    const float* __restrict__ scale,
    const float* __restrict__ reserve_space_1,
    const float* __restrict__ reserve_space_2,
    __half* __restrict__ x_backprop,
    float* __restrict__ scale_backprop,
    float* __restrict__ offset_backprop,
    long long m,
    long long C,
    float epsilon,
    int is_training) {
  grad_once<__half>(y_backprop, x, scale, reserve_space_1, reserve_space_2, x_backprop, scale_backprop, offset_backprop, m, C, epsilon, is_training);
}

extern "C" __global__ void __launch_bounds__(512, 1) FusedBatchNormGradV3__grad_once__bfloat16(
    const __nv_bfloat16* __restrict__ y_backprop,
    const __nv_bfloat16* __restrict__ x,
    const float* __restrict__ scale,
    const float* __restrict__ reserve_space_1,
    const float* __restrict__ reserve_space_2,
    __nv_bfloat16* __restrict__ x_backprop,
    float* __restrict__ scale_backprop,
    float* __restrict__ offset_backprop,
    long long m,
    long long C,
    float epsilon,
    int is_training) {
  grad_once<__nv_bfloat16>(y_backprop, x, scale, reserve_space_1, reserve_space_2, x_backprop, scale_backprop, offset_backprop, m, C, epsilon, is_training);
}

extern "C" __global__ void __launch_bounds__(512, 1) FusedBatchNormGradV3__grad_once__float32(
    const float* __restrict__ y_backprop,
    const float* __restrict__ x,
    const float* __restrict__ scale,
    const float* __restrict__ reserve_space_1,
    const float* __restrict__ reserve_space_2,
    float* __restrict__ x_backprop,
    float* __restrict__ scale_backprop,
    float* __restrict__ offset_backprop,
    long long m,
    long long C,
    float epsilon,
    int is_training) {
  grad_once<float>(y_backprop, x, scale, reserve_space_1, reserve_space_2, x_backprop, scale_backprop, offset_backprop, m, C, epsilon, is_training);
}

extern "C" __global__ void FusedBatchNormGradV3__grad_partials__float16(
    const __half* __restrict__ y_backprop,
    const __half* __restrict__ x,
    const float* __restrict__ reserve_space_1,
    float* __restrict__ partials,
    long long m,
    long long C,
    long long inner,
    long long splits,
    long long pairs) {
  grad_partials<__half>(y_backprop, x, reserve_space_1, partials, m, C, inner, splits, pairs);
}

extern "C" __global__ void FusedBatchNormGradV3__grad_partials__bfloat16(
    const __nv_bfloat16* __restrict__ y_backprop,
    const __nv_bfloat16* __restrict__ x,
    const float* __restrict__ reserve_space_1,
    float* __restrict__ partials,
    long long m,
    long long C,
    long long inner,
    long long splits,
    long long pairs) {
  grad_partials<__nv_bfloat16>(y_backprop, x, reserve_space_1, partials, m, C, inner, splits, pairs);
}

extern "C" __global__ void FusedBatchNormGradV3__grad_partials__float32(
    const float* __restrict__ y_backprop,
    const float* __restrict__ x,
    const float* __restrict__ reserve_space_1,
    float* __restrict__ partials,
    long long m,
    long long C,
    long long inner,
    long long splits,
    long long pairs) {
  grad_partials<float>(y_backprop, x, reserve_space_1, partials, m, C, inner, splits, pairs);
}

#ifdef OPGEN_HOST_EMU  // only the cpu plan launches it
extern "C" __global__ void FusedBatchNormGradV3__grad_partials_sliced__float16(
    const __half* __restrict__ y_backprop,
    const __half* __restrict__ x,
    const float* __restrict__ reserve_space_1,
    float* __restrict__ partials,
    long long m,
    long long C,
    long long inner,
    long long splits) {
  grad_partials_sliced<__half>(y_backprop, x, reserve_space_1, partials, m, C, inner, splits);
}
#endif  // OPGEN_HOST_EMU

#ifdef OPGEN_HOST_EMU  // only the cpu plan launches it
extern "C" __global__ void FusedBatchNormGradV3__grad_partials_sliced__bfloat16(
    const __nv_bfloat16* __restrict__ y_backprop,
    const __nv_bfloat16* __restrict__ x,
    const float* __restrict__ reserve_space_1,
    float* __restrict__ partials,
    long long m,
    long long C,
    long long inner,
    long long splits) {
  grad_partials_sliced<__nv_bfloat16>(y_backprop, x, reserve_space_1, partials, m, C, inner, splits);
}
#endif  // OPGEN_HOST_EMU

#ifdef OPGEN_HOST_EMU  // only the cpu plan launches it
extern "C" __global__ void FusedBatchNormGradV3__grad_partials_sliced__float32(
    const float* __restrict__ y_backprop,
    const float* __restrict__ x,
    const float* __restrict__ reserve_space_1,
    float* __restrict__ partials,
    long long m,
    long long C,
    long long inner,
    long long splits) {
  grad_partials_sliced<float>(y_backprop, x, reserve_space_1, partials, m, C, inner, splits);
}
#endif  // OPGEN_HOST_EMU

extern "C" __global__ void FusedBatchNormGradV3__grad_finalize__float16(
    float* __restrict__ partials,
    const float* __restrict__ scale,
    const float* __restrict__ reserve_space_1,
    const float* __restrict__ reserve_space_2,
    float* __restrict__ scale_backprop,
    float* __restrict__ offset_backprop,
    float* __restrict__ coeffs,
    long long m,
    long long C,
    long long splits,
    float epsilon,
    int is_training) {
  grad_finalize<__half>(partials, scale, reserve_space_1, reserve_space_2, scale_backprop, offset_backprop, coeffs, m, C, splits, epsilon, is_training);
}

extern "C" __global__ void FusedBatchNormGradV3__grad_finalize__bfloat16(
    float* __restrict__ partials,
    const float* __restrict__ scale,
    const float* __restrict__ reserve_space_1,
    const float* __restrict__ reserve_space_2,
    float* __restrict__ scale_backprop,
    float* __restrict__ offset_backprop,
    float* __restrict__ coeffs,
    long long m,
    long long C,
    long long splits,
    float epsilon,
    int is_training) {
  grad_finalize<__nv_bfloat16>(partials, scale, reserve_space_1, reserve_space_2, scale_backprop, offset_backprop, coeffs, m, C, splits, epsilon, is_training);
}

extern "C" __global__ void FusedBatchNormGradV3__grad_finalize__float32(
    float* __restrict__ partials,
    const float* __restrict__ scale,
    const float* __restrict__ reserve_space_1,
    const float* __restrict__ reserve_space_2,
    float* __restrict__ scale_backprop,
    float* __restrict__ offset_backprop,
    float* __restrict__ coeffs,
    long long m,
    long long C,
    long long splits,
    float epsilon,
    int is_training) {
  grad_finalize<float>(partials, scale, reserve_space_1, reserve_space_2, scale_backprop, offset_backprop, coeffs, m, C, splits, epsilon, is_training);
}

extern "C" __global__ void FusedBatchNormGradV3__grad_input__float16(
    const __half* __restrict__ y_backprop,
    const __half* __restrict__ x,
    float* __restrict__ coeffs,
    __half* __restrict__ x_backprop,
    long long total,
    long long C,
    long long inner,
    long long chunk,
    int is_training) {
  grad_input<__half>(y_backprop, x, coeffs, x_backprop, total, C, inner, chunk, is_training);
}

extern "C" __global__ void FusedBatchNormGradV3__grad_input__bfloat16(
    const __nv_bfloat16* __restrict__ y_backprop,
    const __nv_bfloat16* __restrict__ x,
    float* __restrict__ coeffs,
    __nv_bfloat16* __restrict__ x_backprop,
    long long total,
    long long C,
    long long inner,
    long long chunk,
    int is_training) {
  grad_input<__nv_bfloat16>(y_backprop, x, coeffs, x_backprop, total, C, inner, chunk, is_training);
}

extern "C" __global__ void FusedBatchNormGradV3__grad_input__float32(
    const float* __restrict__ y_backprop,
    const float* __restrict__ x,
    float* __restrict__ coeffs,
    float* __restrict__ x_backprop,
    long long total,
    long long C,
    long long inner,
    long long chunk,
    int is_training) {
  grad_input<float>(y_backprop, x, coeffs, x_backprop, total, C, inner, chunk, is_training);
}

#line 2071 "generated/nn/fused_batch_norm.cu"
// ---- FusedBatchNormV3: Batch normalization.
// entry points from specs/nn/fused_batch_norm_v3.yaml: one per launch step and specialization (T)

extern "C" __global__ void FusedBatchNormV3__stats_partials__float16(
    const __half* __restrict__ x,
    float* __restrict__ partials,
    long long m,
    long long C,
    long long inner,
    long long splits) {
  stats_partials<__half>(x, partials, m, C, inner, splits);
}

extern "C" __global__ void FusedBatchNormV3__stats_partials__bfloat16(
    const __nv_bfloat16* __restrict__ x,
    float* __restrict__ partials,
    long long m,
    long long C,
    long long inner,
    long long splits) {
  stats_partials<__nv_bfloat16>(x, partials, m, C, inner, splits);
}

extern "C" __global__ void FusedBatchNormV3__stats_partials__float32(
    const float* __restrict__ x,
    float* __restrict__ partials,
    long long m,
    long long C,
    long long inner,
    long long splits) {
  stats_partials<float>(x, partials, m, C, inner, splits);
}

#ifdef OPGEN_HOST_EMU  // only the cpu plan launches it
extern "C" __global__ void FusedBatchNormV3__stats_partials_sliced__float16(
    const __half* __restrict__ x,
    float* __restrict__ partials,
    long long m,
    long long C,
    long long inner,
    long long splits) {
  stats_partials_sliced<__half>(x, partials, m, C, inner, splits);
}
#endif  // OPGEN_HOST_EMU

#ifdef OPGEN_HOST_EMU  // only the cpu plan launches it
extern "C" __global__ void FusedBatchNormV3__stats_partials_sliced__bfloat16(
    const __nv_bfloat16* __restrict__ x,
    float* __restrict__ partials,
    long long m,
    long long C,
    long long inner,
    long long splits) {
  stats_partials_sliced<__nv_bfloat16>(x, partials, m, C, inner, splits);
}
#endif  // OPGEN_HOST_EMU

#ifdef OPGEN_HOST_EMU  // only the cpu plan launches it
extern "C" __global__ void FusedBatchNormV3__stats_partials_sliced__float32(
    const float* __restrict__ x,
    float* __restrict__ partials,
    long long m,
    long long C,
    long long inner,
    long long splits) {
  stats_partials_sliced<float>(x, partials, m, C, inner, splits);
}
#endif  // OPGEN_HOST_EMU

extern "C" __global__ void FusedBatchNormV3__stats_finalize__float16(
    const __half* __restrict__ x,
    float* __restrict__ partials,
    const float* __restrict__ scale,
    const float* __restrict__ offset,
    const float* __restrict__ mean,
    const float* __restrict__ variance,
    float* __restrict__ batch_mean,
    float* __restrict__ batch_variance,
    float* __restrict__ reserve_space_1,
    float* __restrict__ reserve_space_2,
    float* __restrict__ coeffs,
    long long m,
    long long C,
    long long inner,
    long long splits,
    float epsilon,
    float exponential_avg_factor) {
  stats_finalize<__half>(x, partials, scale, offset, mean, variance, batch_mean, batch_variance, reserve_space_1, reserve_space_2, coeffs, m, C, inner, splits, epsilon, exponential_avg_factor);
}

extern "C" __global__ void FusedBatchNormV3__stats_finalize__bfloat16(
    const __nv_bfloat16* __restrict__ x,
    float* __restrict__ partials,
    const float* __restrict__ scale,
    const float* __restrict__ offset,
    const float* __restrict__ mean,
    const float* __restrict__ variance,
    float* __restrict__ batch_mean,
    float* __restrict__ batch_variance,
    float* __restrict__ reserve_space_1,
    float* __restrict__ reserve_space_2,
    float* __restrict__ coeffs,
    long long m,
    long long C,
    long long inner,
    long long splits,
    float epsilon,
    float exponential_avg_factor) {
  stats_finalize<__nv_bfloat16>(x, partials, scale, offset, mean, variance, batch_mean, batch_variance, reserve_space_1, reserve_space_2, coeffs, m, C, inner, splits, epsilon, exponential_avg_factor);
}

extern "C" __global__ void FusedBatchNormV3__stats_finalize__float32(
    const float* __restrict__ x,
    float* __restrict__ partials,
    const float* __restrict__ scale,
    const float* __restrict__ offset,
    const float* __restrict__ mean,
    const float* __restrict__ variance,
    float* __restrict__ batch_mean,
    float* __restrict__ batch_variance,
    float* __restrict__ reserve_space_1,
    float* __restrict__ reserve_space_2,
    float* __restrict__ coeffs,
    long long m,
    long long C,
    long long inner,
    long long splits,
    float epsilon,
    float exponential_avg_factor) {
  stats_finalize<float>(x, partials, scale, offset, mean, variance, batch_mean, batch_variance, reserve_space_1, reserve_space_2, coeffs, m, C, inner, splits, epsilon, exponential_avg_factor);
}

extern "C" __global__ void FusedBatchNormV3__inference_stats__float16(
    const float* __restrict__ scale,
    const float* __restrict__ offset,
    const float* __restrict__ mean,
    const float* __restrict__ variance,
    float* __restrict__ batch_mean,
    float* __restrict__ batch_variance,
    float* __restrict__ reserve_space_1,
    float* __restrict__ reserve_space_2,
    float* __restrict__ coeffs,
    long long C,
    float epsilon) {
  inference_stats<__half>(scale, offset, mean, variance, batch_mean, batch_variance, reserve_space_1, reserve_space_2, coeffs, C, epsilon);
}

extern "C" __global__ void FusedBatchNormV3__inference_stats__bfloat16(
    const float* __restrict__ scale,
    const float* __restrict__ offset,
    const float* __restrict__ mean,
    const float* __restrict__ variance,
    float* __restrict__ batch_mean,
    float* __restrict__ batch_variance,
    float* __restrict__ reserve_space_1,
    float* __restrict__ reserve_space_2,
    float* __restrict__ coeffs,
    long long C,
    float epsilon) {
  inference_stats<__nv_bfloat16>(scale, offset, mean, variance, batch_mean, batch_variance, reserve_space_1, reserve_space_2, coeffs, C, epsilon);
}

extern "C" __global__ void FusedBatchNormV3__inference_stats__float32(
    const float* __restrict__ scale,
    const float* __restrict__ offset,
    const float* __restrict__ mean,
    const float* __restrict__ variance,
    float* __restrict__ batch_mean,
    float* __restrict__ batch_variance,
    float* __restrict__ reserve_space_1,
    float* __restrict__ reserve_space_2,
    float* __restrict__ coeffs,
    long long C,
    float epsilon) {
  inference_stats<float>(scale, offset, mean, variance, batch_mean, batch_variance, reserve_space_1, reserve_space_2, coeffs, C, epsilon);
}

extern "C" __global__ void FusedBatchNormV3__normalize__float16(
    const __half* __restrict__ x,
    float* __restrict__ coeffs,
    __half* __restrict__ y,
    long long total,
    long long C,
    long long inner,
    long long chunk) {
  normalize<__half>(x, coeffs, y, total, C, inner, chunk);
}

extern "C" __global__ void FusedBatchNormV3__normalize__bfloat16(
    const __nv_bfloat16* __restrict__ x,
    float* __restrict__ coeffs,
    __nv_bfloat16* __restrict__ y,
    long long total,
    long long C,
    long long inner,
    long long chunk) {
  normalize<__nv_bfloat16>(x, coeffs, y, total, C, inner, chunk);
}

extern "C" __global__ void FusedBatchNormV3__normalize__float32(
    const float* __restrict__ x,
    float* __restrict__ coeffs,
    float* __restrict__ y,
    long long total,
    long long C,
    long long inner,
    long long chunk) {
  normalize<float>(x, coeffs, y, total, C, inner, chunk);
}

// opgen-manifest: {"version":1,"kernels":[{"name":"FusedBatchNormGradV3__grad_channels__float16","params":[["const __half* __restrict__","y_backprop"],["const __half* __restrict__","x"],["const float* __restrict__","scale"],["const float* __restrict__","reserve_space_1"],["const float* __restrict__","reserve_space_2"],["__half* __restrict__","x_backprop"],["float* __restrict__","scale_backprop"],["float* __restrict__","offset_backprop"],["long long","outer"],["long long","C"],["long long","inner"],["float","epsilon"],["int","is_training"]],"max_threads":1,"cpu_only":true},{"name":"FusedBatchNormGradV3__grad_channels__bfloat16","params":[["const __nv_bfloat16* __restrict__","y_backprop"],["const __nv_bfloat16* __restrict__","x"],["const float* __restrict__","scale"],["const float* __restrict__","reserve_space_1"],["const float* __restrict__","reserve_space_2"],["__nv_bfloat16* __restrict__","x_backprop"],["float* __restrict__","scale_backprop"],["float* __restrict__","offset_backprop"],["long long","outer"],["long long","C"],["long long","inner"],["float","epsilon"],["int","is_training"]],"max_threads":1,"cpu_only":true},{"name":"FusedBatchNormGradV3__grad_channels__float32","params":[["const float* __restrict__","y_backprop"],["const float* __restrict__","x"],["const float* __restrict__","scale"],["const float* __restrict__","reserve_space_1"],["const float* __restrict__","reserve_space_2"],["float* __restrict__","x_backprop"],["float* __restrict__","scale_backprop"],["float* __restrict__","offset_backprop"],["long long","outer"],["long long","C"],["long long","inner"],["float","epsilon"],["int","is_training"]],"max_threads":1,"cpu_only":true},{"name":"FusedBatchNormGradV3__grad_once__float16","params":[["const __half* __restrict__","y_backprop"],["const __half* __restrict__","x"],["const float* __restrict__","scale"],["const float* __restrict__","reserve_space_1"],["const float* __restrict__","reserve_space_2"],["__half* __restrict__","x_backprop"],["float* __restrict__","scale_backprop"],["float* __restrict__","offset_backprop"],["long long","m"],["long long","C"],["float","epsilon"],["int","is_training"]],"max_threads":512},{"name":"FusedBatchNormGradV3__grad_once__bfloat16","params":[["const __nv_bfloat16* __restrict__","y_backprop"],["const __nv_bfloat16* __restrict__","x"],["const float* __restrict__","scale"],["const float* __restrict__","reserve_space_1"],["const float* __restrict__","reserve_space_2"],["__nv_bfloat16* __restrict__","x_backprop"],["float* __restrict__","scale_backprop"],["float* __restrict__","offset_backprop"],["long long","m"],["long long","C"],["float","epsilon"],["int","is_training"]],"max_threads":512},{"name":"FusedBatchNormGradV3__grad_once__float32","params":[["const float* __restrict__","y_backprop"],["const float* __restrict__","x"],["const float* __restrict__","scale"],["const float* __restrict__","reserve_space_1"],["const float* __restrict__","reserve_space_2"],["float* __restrict__","x_backprop"],["float* __restrict__","scale_backprop"],["float* __restrict__","offset_backprop"],["long long","m"],["long long","C"],["float","epsilon"],["int","is_training"]],"max_threads":512},{"name":"FusedBatchNormGradV3__grad_partials__float16","params":[["const __half* __restrict__","y_backprop"],["const __half* __restrict__","x"],["const float* __restrict__","reserve_space_1"],["float* __restrict__","partials"],["long long","m"],["long long","C"],["long long","inner"],["long long","splits"],["long long","pairs"]],"max_threads":1024},{"name":"FusedBatchNormGradV3__grad_partials__bfloat16","params":[["const __nv_bfloat16* __restrict__","y_backprop"],["const __nv_bfloat16* __restrict__","x"],["const float* __restrict__","reserve_space_1"],["float* __restrict__","partials"],["long long","m"],["long long","C"],["long long","inner"],["long long","splits"],["long long","pairs"]],"max_threads":1024},{"name":"FusedBatchNormGradV3__grad_partials__float32","params":[["const float* __restrict__","y_backprop"],["const float* __restrict__","x"],["const float* __restrict__","reserve_space_1"],["float* __restrict__","partials"],["long long","m"],["long long","C"],["long long","inner"],["long long","splits"],["long long","pairs"]],"max_threads":1024},{"name":"FusedBatchNormGradV3__grad_partials_sliced__float16","params":[["const __half* __restrict__","y_backprop"],["const __half* __restrict__","x"],["const float* __restrict__","reserve_space_1"],["float* __restrict__","partials"],["long long","m"],["long long","C"],["long long","inner"],["long long","splits"]],"max_threads":1024,"cpu_only":true},{"name":"FusedBatchNormGradV3__grad_partials_sliced__bfloat16","params":[["const __nv_bfloat16* __restrict__","y_backprop"],["const __nv_bfloat16* __restrict__","x"],["const float* __restrict__","reserve_space_1"],["float* __restrict__","partials"],["long long","m"],["long long","C"],["long long","inner"],["long long","splits"]],"max_threads":1024,"cpu_only":true},{"name":"FusedBatchNormGradV3__grad_partials_sliced__float32","params":[["const float* __restrict__","y_backprop"],["const float* __restrict__","x"],["const float* __restrict__","reserve_space_1"],["float* __restrict__","partials"],["long long","m"],["long long","C"],["long long","inner"],["long long","splits"]],"max_threads":1024,"cpu_only":true},{"name":"FusedBatchNormGradV3__grad_finalize__float16","params":[["float* __restrict__","partials"],["const float* __restrict__","scale"],["const float* __restrict__","reserve_space_1"],["const float* __restrict__","reserve_space_2"],["float* __restrict__","scale_backprop"],["float* __restrict__","offset_backprop"],["float* __restrict__","coeffs"],["long long","m"],["long long","C"],["long long","splits"],["float","epsilon"],["int","is_training"]],"max_threads":1024},{"name":"FusedBatchNormGradV3__grad_finalize__bfloat16","params":[["float* __restrict__","partials"],["const float* __restrict__","scale"],["const float* __restrict__","reserve_space_1"],["const float* __restrict__","reserve_space_2"],["float* __restrict__","scale_backprop"],["float* __restrict__","offset_backprop"],["float* __restrict__","coeffs"],["long long","m"],["long long","C"],["long long","splits"],["float","epsilon"],["int","is_training"]],"max_threads":1024},{"name":"FusedBatchNormGradV3__grad_finalize__float32","params":[["float* __restrict__","partials"],["const float* __restrict__","scale"],["const float* __restrict__","reserve_space_1"],["const float* __restrict__","reserve_space_2"],["float* __restrict__","scale_backprop"],["float* __restrict__","offset_backprop"],["float* __restrict__","coeffs"],["long long","m"],["long long","C"],["long long","splits"],["float","epsilon"],["int","is_training"]],"max_threads":1024},{"name":"FusedBatchNormGradV3__grad_input__float16","params":[["const __half* __restrict__","y_backprop"],["const __half* __restrict__","x"],["float* __restrict__","coeffs"],["__half* __restrict__","x_backprop"],["long long","total"],["long long","C"],["long long","inner"],["long long","chunk"],["int","is_training"]],"max_threads":1024},{"name":"FusedBatchNormGradV3__grad_input__bfloat16","params":[["const __nv_bfloat16* __restrict__","y_backprop"],["const __nv_bfloat16* __restrict__","x"],["float* __restrict__","coeffs"],["__nv_bfloat16* __restrict__","x_backprop"],["long long","total"],["long long","C"],["long long","inner"],["long long","chunk"],["int","is_training"]],"max_threads":1024},{"name":"FusedBatchNormGradV3__grad_input__float32","params":[["const float* __restrict__","y_backprop"],["const float* __restrict__","x"],["float* __restrict__","coeffs"],["float* __restrict__","x_backprop"],["long long","total"],["long long","C"],["long long","inner"],["long long","chunk"],["int","is_training"]],"max_threads":1024},{"name":"FusedBatchNormV3__stats_partials__float16","params":[["const __half* __restrict__","x"],["float* __restrict__","partials"],["long long","m"],["long long","C"],["long long","inner"],["long long","splits"]],"max_threads":1024},{"name":"FusedBatchNormV3__stats_partials__bfloat16","params":[["const __nv_bfloat16* __restrict__","x"],["float* __restrict__","partials"],["long long","m"],["long long","C"],["long long","inner"],["long long","splits"]],"max_threads":1024},{"name":"FusedBatchNormV3__stats_partials__float32","params":[["const float* __restrict__","x"],["float* __restrict__","partials"],["long long","m"],["long long","C"],["long long","inner"],["long long","splits"]],"max_threads":1024},{"name":"FusedBatchNormV3__stats_partials_sliced__float16","params":[["const __half* __restrict__","x"],["float* __restrict__","partials"],["long long","m"],["long long","C"],["long long","inner"],["long long","splits"]],"max_threads":1024,"cpu_only":true},{"name":"FusedBatchNormV3__stats_partials_sliced__bfloat16","params":[["const __nv_bfloat16* __restrict__","x"],["float* __restrict__","partials"],["long long","m"],["long long","C"],["long long","inner"],["long long","splits"]],"max_threads":1024,"cpu_only":true},{"name":"FusedBatchNormV3__stats_partials_sliced__float32","params":[["const float* __restrict__","x"],["float* __restrict__","partials"],["long long","m"],["long long","C"],["long long","inner"],["long long","splits"]],"max_threads":1024,"cpu_only":true},{"name":"FusedBatchNormV3__stats_finalize__float16","params":[["const __half* __restrict__","x"],["float* __restrict__","partials"],["const float* __restrict__","scale"],["const float* __restrict__","offset"],["const float* __restrict__","mean"],["const float* __restrict__","variance"],["float* __restrict__","batch_mean"],["float* __restrict__","batch_variance"],["float* __restrict__","reserve_space_1"],["float* __restrict__","reserve_space_2"],["float* __restrict__","coeffs"],["long long","m"],["long long","C"],["long long","inner"],["long long","splits"],["float","epsilon"],["float","exponential_avg_factor"]],"max_threads":1024},{"name":"FusedBatchNormV3__stats_finalize__bfloat16","params":[["const __nv_bfloat16* __restrict__","x"],["float* __restrict__","partials"],["const float* __restrict__","scale"],["const float* __restrict__","offset"],["const float* __restrict__","mean"],["const float* __restrict__","variance"],["float* __restrict__","batch_mean"],["float* __restrict__","batch_variance"],["float* __restrict__","reserve_space_1"],["float* __restrict__","reserve_space_2"],["float* __restrict__","coeffs"],["long long","m"],["long long","C"],["long long","inner"],["long long","splits"],["float","epsilon"],["float","exponential_avg_factor"]],"max_threads":1024},{"name":"FusedBatchNormV3__stats_finalize__float32","params":[["const float* __restrict__","x"],["float* __restrict__","partials"],["const float* __restrict__","scale"],["const float* __restrict__","offset"],["const float* __restrict__","mean"],["const float* __restrict__","variance"],["float* __restrict__","batch_mean"],["float* __restrict__","batch_variance"],["float* __restrict__","reserve_space_1"],["float* __restrict__","reserve_space_2"],["float* __restrict__","coeffs"],["long long","m"],["long long","C"],["long long","inner"],["long long","splits"],["float","epsilon"],["float","exponential_avg_factor"]],"max_threads":1024},{"name":"FusedBatchNormV3__inference_stats__float16","params":[["const float* __restrict__","scale"],["const float* __restrict__","offset"],["const float* __restrict__","mean"],["const float* __restrict__","variance"],["float* __restrict__","batch_mean"],["float* __restrict__","batch_variance"],["float* __restrict__","reserve_space_1"],["float* __restrict__","reserve_space_2"],["float* __restrict__","coeffs"],["long long","C"],["float","epsilon"]],"max_threads":1024},{"name":"FusedBatchNormV3__inference_stats__bfloat16","params":[["const float* __restrict__","scale"],["const float* __restrict__","offset"],["const float* __restrict__","mean"],["const float* __restrict__","variance"],["float* __restrict__","batch_mean"],["float* __restrict__","batch_variance"],["float* __restrict__","reserve_space_1"],["float* __restrict__","reserve_space_2"],["float* __restrict__","coeffs"],["long long","C"],["float","epsilon"]],"max_threads":1024},{"name":"FusedBatchNormV3__inference_stats__float32","params":[["const float* __restrict__","scale"],["const float* __restrict__","offset"],["const float* __restrict__","mean"],["const float* __restrict__","variance"],["float* __restrict__","batch_mean"],["float* __restrict__","batch_variance"],["float* __restrict__","reserve_space_1"],["float* __restrict__","reserve_space_2"],["float* __restrict__","coeffs"],["long long","C"],["float","epsilon"]],"max_threads":1024},{"name":"FusedBatchNormV3__normalize__float16","params":[["const __half* __restrict__","x"],["float* __restrict__","coeffs"],["__half* __restrict__","y"],["long long","total"],["long long","C"],["long long","inner"],["long long","chunk"]],"max_threads":1024},{"name":"FusedBatchNormV3__normalize__bfloat16","params":[["const __nv_bfloat16* __restrict__","x"],["float* __restrict__","coeffs"],["__nv_bfloat16* __restrict__","y"],["long long","total"],["long long","C"],["long long","inner"],["long long","chunk"]],"max_threads":1024},{"name":"FusedBatchNormV3__normalize__float32","params":[["const float* __restrict__","x"],["float* __restrict__","coeffs"],["float* __restrict__","y"],["long long","total"],["long long","C"],["long long","inner"],["long long","chunk"]],"max_threads":1024}],"shared":[],"digest":"415b561b82b4327ac700e4f7c4fc7b57"}
