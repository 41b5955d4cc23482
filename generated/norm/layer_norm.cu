// generated from specs/norm/layer_norm.yaml, specs/norm/layer_norm_grad.yaml by opgen — do not edit (opgen 0.1.0)
#line 3 "generated/norm/layer_norm.cu"
/* LayerNorm, LayerNormGrad: the ops that share this kernel module.
 * Kernel source: codegen/templates/kernels/norm/layer_norm.cu, once; then each op's entry points, generated from its
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
#line 1 "codegen/templates/kernels/_rowvec.cuh"
// ---- opgen row blocks with 16-byte accesses (issue 35, item 2). Include it after _common.cuh with
// a Jinja include of "kernels/_rowvec.cuh". The row_v* helpers below are _common.cuh's row_sum,
// row_sum2, row_mean_var and row_store for rows that are arrays of one element type T: instead of a
// function of j that loads its own elements, they take the row's input pointers and call f(j, e)
// with e[k] = input k's element j (as acc_t<T>).
//   The GPU form (NVRTC, and the emulation with OPGEN_GPU_FORM): thread t takes the groups t,
//     t + blockDim.x, ... of kGroup = 8 adjacent elements, each loaded and stored in 16-byte
//     accesses (one for 16-bit T, two for float, four for double) when every pointer of the call
//     starts on 16 bytes, else one element at a time (an odd row length, an offset view); the
//     row's last group may be short. Element j goes to thread (j / kGroup) % blockDim.x whatever
//     the alignment, so a thread may read back what it wrote in an earlier pass over the row
//     without a barrier. The group is 8 elements for every T, not 16 bytes, so that a row is
//     summed in the same order whatever its type: a 16-bit result is the float32 one rounded once
//     (tests/test_exact_16bit.py).
//   The host form: _common.cuh's row helpers on the same f, so the cpu plan's results do not move.
// Results agree with the scalar helpers to float rounding (the GPU form sums a group first).
#ifndef OPGEN_ROWVEC_CUH
#define OPGEN_ROWVEC_CUH
namespace opgen {

constexpr int kGroup = 8;
template <typename T> struct alignas(16) VecBits { T e[kGroup]; };

__device__ __forceinline__ bool aligned16(const void* p) { return reinterpret_cast<unsigned long long>(p) % 16 == 0; }

// The m ≤ kGroup elements at p as stored: 16-byte accesses when `vec` (p on 16 bytes and m ==
// kGroup: the caller checks the base once), else m scalar ones (zeros past m). The loops are
// unrolled with a test, not run to m, so the group stays in registers, not local memory.
template <typename T>
__device__ __forceinline__ VecBits<T> load_bits(const T* __restrict__ p, int m, bool vec) {
  if (vec) return *reinterpret_cast<const VecBits<T>*>(p);
  VecBits<T> b;
#pragma unroll
  for (int q = 0; q < kGroup; ++q) b.e[q] = q < m ? p[q] : from_acc<T>(acc_t<T>(0));
  return b;
}

// The same as acc_t<T> values.
template <typename T>
__device__ __forceinline__ void load_vec(const T* __restrict__ p, int m, bool vec, acc_t<T> (&v)[kGroup]) {
  const VecBits<T> b = load_bits(p, m, vec);
#pragma unroll
  for (int q = 0; q < kGroup; ++q) v[q] = to_acc(b.e[q]);
}

// g(q) for q < m, unrolled (a loop to m would index the group's arrays at run time: local memory).
template <typename G>
__device__ __forceinline__ void each_in_group(int m, const G& g) {
#pragma unroll
  for (int q = 0; q < kGroup; ++q) {
    if (q < m) g(q);
  }
}

// The m ≤ kGroup elements of b to out: 16-byte accesses when `vec` (as load_bits), else m.
template <typename T>
__device__ __forceinline__ void store_bits(T* __restrict__ out, const VecBits<T>& b, int m, bool vec) {
  if (vec) {
    *reinterpret_cast<VecBits<T>*>(out) = b;
  } else {
    each_in_group(m, [&](int q) { out[q] = b.e[q]; });
  }
}

namespace rowvec_detail {
template <typename T, int K> struct Inputs { const T* p[K]; };

template <typename T, typename... P>
__device__ __forceinline__ Inputs<T, 1 + sizeof...(P)> inputs(const T* first, P... rest) {
  return Inputs<T, 1 + sizeof...(P)>{ {first, rest...} };
}

template <typename T, int K>
__device__ __forceinline__ bool all_aligned(const Inputs<T, K>& in, const void* out) {
  bool ok = aligned16(out);
#pragma unroll
  for (int k = 0; k < K; ++k) ok = ok && aligned16(in.p[k]);
  return ok;
}

// Element j of every input (the host form's and a scalar path's load).
template <typename T, int K>
__device__ __forceinline__ void load_one(const Inputs<T, K>& in, long long j, acc_t<T> (&e)[K]) {
#pragma unroll
  for (int k = 0; k < K; ++k) e[k] = to_acc(in.p[k][j]);
}

// visit(j0, m, v) for each of the calling thread's groups (the GPU form's walk over a row), v[k]
// input k's group as stored (converted element by element where used: fewer registers than a
// converted copy of every input's group).
template <typename T, int K, typename V>
__device__ __forceinline__ void walk(long long n, const Inputs<T, K>& in, bool vec, const V& visit) {
  constexpr int W = kGroup;
  const long long groups = (n + W - 1) / W;
  // not unrolled: a block of up to 1024 threads has at most 64 registers each, and its threads'
  // groups keep enough loads in flight
#pragma unroll 1
  for (long long g = threadIdx.x; g < groups; g += blockDim.x) {
    const long long j0 = g * W;
    const int m = n - j0 < W ? static_cast<int>(n - j0) : W;  // int32 ok: under kGroup
    VecBits<T> v[K];
#pragma unroll
    for (int k = 0; k < K; ++k) v[k] = load_bits(in.p[k] + j0, m, vec && m == W);
    visit(j0, m, v);
  }
}

// Element q of a group as f's argument.
template <typename T, int K>
__device__ __forceinline__ void element(const VecBits<T> (&v)[K], int q, acc_t<T> (&e)[K]) {
#pragma unroll
  for (int k = 0; k < K; ++k) e[k] = to_acc(v[k].e[q]);
}
}  // namespace rowvec_detail

#ifndef OPGEN_HOST_FORM
// The GPU form's walk itself, for a kernel's own per-thread reduction (Softmax's online max and
// sum): visit(j0, m, v) for each of the calling thread's groups, v[k].e[q] input k's element j0 + q.
template <typename V, typename T, typename... P>
__device__ __forceinline__ void row_vgroups(long long n, const V& visit, const T* in0, P... ins) {
  const auto in = rowvec_detail::inputs(in0, ins...);
  rowvec_detail::walk(n, in, rowvec_detail::all_aligned(in, in0), visit);
}
#endif

// op over f(j, e) for every element, from init (as row_reduce); every thread gets the result.
template <typename V, typename Op, typename F, typename T, typename... P>
__device__ __forceinline__ V row_vreduce(long long n, const Op& op, V init, const F& f, const T* in0, P... ins) {
  const auto in = rowvec_detail::inputs(in0, ins...);
  constexpr int K = 1 + sizeof...(P);
  using A = acc_t<T>;
#ifdef OPGEN_HOST_FORM
  return row_reduce(n, [&](long long j) { A e[K]; rowvec_detail::load_one(in, j, e); return f(j, e); }, op, init);
#else
  V acc = init;
  const bool vec = rowvec_detail::all_aligned(in, in0);
  rowvec_detail::walk(n, in, vec, [&](long long j0, int m, const VecBits<T> (&v)[K]) {
    each_in_group(m, [&](int q) {
      A e[K];
      rowvec_detail::element(v, q, e);
      acc = op(acc, widen_to<V>(f(j0 + q, e)));
    });
  });
  return block_reduce(acc, op);
#endif
}

template <typename F, typename T, typename... P>
__device__ __forceinline__ auto row_vsum(long long n, const F& f, const T* in0, P... ins) {
  using R = typename strip_cvref<decltype(f(0LL, *static_cast<acc_t<T>(*)[1 + sizeof...(P)]>(nullptr)))>::type;
  return row_vreduce(n, SumOp{}, R(0), f, in0, ins...);
}

// Count, mean and biased variance of f(j, e) over the row (row_mean_var's): the GPU form takes a
// group's mean and Σ(v − mean)² and merges it into the thread's (Chan et al.), the host form is
// row_mean_var's.
template <typename F, typename T, typename... P>
__device__ __forceinline__ auto row_vmean_var(long long n, const F& f, const T* in0, P... ins) {
  const auto in = rowvec_detail::inputs(in0, ins...);
  constexpr int K = 1 + sizeof...(P);
  using A = acc_t<T>;
  using R = typename strip_cvref<decltype(f(0LL, *static_cast<A(*)[K]>(nullptr)))>::type;
#ifdef OPGEN_HOST_FORM
  return row_mean_var(n, [&](long long j) { A e[K]; rowvec_detail::load_one(in, j, e); return f(j, e); });
#else
  MeanVarOf<R> s{R(0), R(0), R(0)};
  const bool vec = rowvec_detail::all_aligned(in, in0);
  rowvec_detail::walk(n, in, vec, [&](long long j0, int m, const VecBits<T> (&v)[K]) {
    R x[kGroup];
    R sum = R(0);
    each_in_group(m, [&](int q) {
      A e[K];
      rowvec_detail::element(v, q, e);
      x[q] = f(j0 + q, e);
      sum += x[q];
    });
    const R mean = sum / static_cast<R>(m);
    R m2 = R(0);
    each_in_group(m, [&](int q) { m2 += (x[q] - mean) * (x[q] - mean); });
    s = WelfordOp{}(s, MeanVarOf<R>{static_cast<R>(m), mean, m2});
  });
  return block_reduce(s, WelfordOp{});
#endif
}

// out[j] = f(j, e) (rounded once to T) for every element.
template <typename F, typename T, typename... P>
__device__ __forceinline__ void row_vstore(long long n, T* out, const F& f, const T* in0, P... ins) {
  const auto in = rowvec_detail::inputs(in0, ins...);
  constexpr int K = 1 + sizeof...(P);
  using A = acc_t<T>;
#ifdef OPGEN_HOST_FORM
  row_store(n, out, [&](long long j) { A e[K]; rowvec_detail::load_one(in, j, e); return f(j, e); });
#else
  const bool vec = rowvec_detail::all_aligned(in, out);
  rowvec_detail::walk(n, in, vec, [&](long long j0, int m, const VecBits<T> (&v)[K]) {
    VecBits<T> b;
    each_in_group(m, [&](int q) {
      A e[K];
      rowvec_detail::element(v, q, e);
      b.e[q] = from_acc<T>(f(j0 + q, e));
    });
    store_bits(out + j0, b, m, vec && m == kGroup);
  });
#endif
}

}  // namespace opgen
#endif  // OPGEN_ROWVEC_CUH
#line 3 "codegen/templates/kernels/norm/layer_norm.cu"

// LayerNorm and LayerNormGrad over x viewed as [rows, D]. One kernel per step for both launch
// plans: the row and column building blocks of kernels/_common.cuh take the GPU's form (a block's
// threads stride a row and reduce across the block) or the host emulation's (one thread walks the
// row in vectorised loops), so nothing here depends on the backend.

// The per-element loops are templates on whether gamma and beta are given, so they test neither.
// (Template functions, not generic lambdas: NVRTC 13.0 rejects a lambda with `auto` parameters in
// device code as a host function, "not allowed in JIT mode"; nvcc and NVRTC 13.5 accept it.)
template <bool HasGamma, bool HasBeta, typename T>
__device__ __forceinline__ void normalize_row(long long D, const T* __restrict__ xr, const T* __restrict__ gamma,
                                              const T* __restrict__ beta, T* __restrict__ yr, float mu, float rs) {
  const auto y = [&](float x, float g, float b) {
    float v = (x - mu) * rs;
    if constexpr (HasGamma) v *= g;
    if constexpr (HasBeta) v += b;
    return v;
  };
  // e: x[j], then gamma[j] and beta[j] where given (_rowvec.cuh reads only the inputs passed)
  if constexpr (HasGamma && HasBeta) {
    opgen::row_vstore(D, yr, [&](long long, const float* e) { return y(e[0], e[1], e[2]); }, xr, gamma, beta);
  } else if constexpr (HasGamma) {
    opgen::row_vstore(D, yr, [&](long long, const float* e) { return y(e[0], e[1], 0.f); }, xr, gamma);
  } else if constexpr (HasBeta) {
    opgen::row_vstore(D, yr, [&](long long, const float* e) { return y(e[0], 0.f, e[1]); }, xr, beta);
  } else {
    opgen::row_vstore(D, yr, [&](long long, const float* e) { return y(e[0], 0.f, 0.f); }, xr);
  }
}

// dx of one row; g = dy·gamma (dy without gamma). e: dy[j], x[j], then gamma[j] where given.
template <bool HasGamma, typename T, typename... Gamma>
__device__ __forceinline__ void grad_input_row(long long D, const T* __restrict__ dyr, const T* __restrict__ xr,
                                               T* __restrict__ dxr, float mu, float rs, Gamma... gamma) {
  const auto g = [&](const float* e) {
    if constexpr (HasGamma) return e[0] * e[2];
    else return e[0];
  };
  const float2 sums = opgen::row_vreduce(D, opgen::SumOp{}, make_float2(0.f, 0.f), [&](long long, const float* e) {
    const float gj = g(e);
    return make_float2(gj, gj * ((e[1] - mu) * rs));
  }, dyr, xr, gamma...);
  const float inv_d = D > 0 ? 1.f / static_cast<float>(D) : 0.f;
  const float mean_g = sums.x * inv_d, mean_gx = sums.y * inv_d;
  opgen::row_vstore(D, dxr, [&](long long, const float* e) {
    const float xhat = (e[1] - mu) * rs;
    return rs * (g(e) - mean_g - xhat * mean_gx);
  }, dyr, xr, gamma...);
}

template <typename T, typename S>
__device__ void layer_norm(const T* __restrict__ x, const T* __restrict__ gamma, const T* __restrict__ beta,
                           T* __restrict__ y, S* __restrict__ mean, S* __restrict__ rstd, long long rows,
                           long long D, float epsilon) {
  opgen::for_each_row(rows, [&](long long r) {
    const T* __restrict__ xr = x + r * D;
    T* __restrict__ yr = y + r * D;
    const opgen::MeanVar s = opgen::row_vmean_var(D, [&](long long, const float* e) { return e[0]; }, xr);
    // an empty row (D = 0): mean 0 and variance 0 (MeanVar's count 0), as FusedBatchNormV3 takes an
    // empty channel (PyTorch's native_layer_norm gives rstd NaN there)
    const float mu = s.mean, rs = rsqrtf(s.variance() + epsilon);
    if (gamma != nullptr && beta != nullptr) normalize_row<true, true>(D, xr, gamma, beta, yr, mu, rs);
    else if (gamma != nullptr) normalize_row<true, false>(D, xr, gamma, beta, yr, mu, rs);
    else if (beta != nullptr) normalize_row<false, true>(D, xr, gamma, beta, yr, mu, rs);
    else normalize_row<false, false>(D, xr, gamma, beta, yr, mu, rs);
    if (opgen::row_leader()) {
      mean[r] = static_cast<S>(mu);
      rstd[r] = static_cast<S>(rs);
    }
  });
}

// dx = rstd·(g − mean(g) − x̂·mean(g·x̂)), g = dy·gamma, x̂ = (x − mean)·rstd; one row per block.
template <typename T, typename S>
__device__ void layer_norm_grad_input(const T* __restrict__ dy, const T* __restrict__ x, const S* __restrict__ mean,
                                      const S* __restrict__ rstd, const T* __restrict__ gamma, T* __restrict__ dx,
                                      long long rows, long long D) {
  opgen::for_each_row(rows, [&](long long r) {
    const T* __restrict__ dyr = dy + r * D;
    const T* __restrict__ xr = x + r * D;
    T* __restrict__ dxr = dx + r * D;
    const float mu = static_cast<float>(mean[r]), rs = static_cast<float>(rstd[r]);
    if (gamma != nullptr) grad_input_row<true>(D, dyr, xr, dxr, mu, rs, gamma);
    else grad_input_row<false>(D, dyr, xr, dxr, mu, rs);
  });
}

// Per-column Σ dy·x̂ and Σ dy over a share of the rows (kernels/_common.cuh: column_sums2).
template <typename T, typename S>
__device__ void layer_norm_grad_partials(const T* __restrict__ dy, const T* __restrict__ x,
                                         const S* __restrict__ mean, const S* __restrict__ rstd,
                                         float* __restrict__ partials, long long rows, long long D, long long tile) {
  opgen::column_sums2(
      [&](long long r, long long c) {
        const float d = opgen::to_float(dy[r * D + c]);
        const float xhat = (opgen::to_float(x[r * D + c]) - static_cast<float>(mean[r])) * static_cast<float>(rstd[r]);
        return make_float2(d * xhat, d);
      },
      partials, rows, D, tile);
}

// dgamma and dbeta: each column's shares added in order (deterministic).
template <typename T>
__device__ void layer_norm_grad_params(const float* __restrict__ partials, T* __restrict__ dgamma,
                                       T* __restrict__ dbeta, long long D, long long splits) {
  opgen::for_each_index(D, [&](long long c) {
    const float2 t = opgen::column_total(partials, splits, D, c);
    dgamma[c] = opgen::from_float<T>(t.x);
    dbeta[c] = opgen::from_float<T>(t.y);
  });
}

#line 1073 "generated/norm/layer_norm.cu"
// ---- LayerNorm: Layer normalization over the last dimension.
// entry points from specs/norm/layer_norm.yaml: one per launch step and specialization (T)

extern "C" __global__ void __launch_bounds__(512, 1) LayerNorm__layer_norm__float16(
    const __half* __restrict__ x,
    const __half* __restrict__ gamma,
    const __half* __restrict__ beta,
    __half* __restrict__ y,
    float* __restrict__ mean,
    float* __restrict__ rstd,
    long long rows,
    long long D,
    float epsilon) {
  layer_norm<__half>(x, gamma, beta, y, mean, rstd, rows, D, epsilon);
}

extern "C" __global__ void __launch_bounds__(512, 1) LayerNorm__layer_norm__bfloat16(
    const __nv_bfloat16* __restrict__ x,
    const __nv_bfloat16* __restrict__ gamma,
    const __nv_bfloat16* __restrict__ beta,
    __nv_bfloat16* __restrict__ y,
    float* __restrict__ mean,
    float* __restrict__ rstd,
    long long rows,
    long long D,
    float epsilon) {
  layer_norm<__nv_bfloat16>(x, gamma, beta, y, mean, rstd, rows, D, epsilon);
}

extern "C" __global__ void __launch_bounds__(512, 1) LayerNorm__layer_norm__float32(
    const float* __restrict__ x,
    const float* __restrict__ gamma,
    const float* __restrict__ beta,
    float* __restrict__ y,
    float* __restrict__ mean,
    float* __restrict__ rstd,
    long long rows,
    long long D,
    float epsilon) {
  layer_norm<float>(x, gamma, beta, y, mean, rstd, rows, D, epsilon);
}

#line 1116 "generated/norm/layer_norm.cu"
// ---- LayerNormGrad: The gradient of LayerNorm.
// entry points from specs/norm/layer_norm_grad.yaml: one per launch step and specialization (T)

extern "C" __global__ void __launch_bounds__(512, 1) LayerNormGrad__layer_norm_grad_input__float16(
    const __half* __restrict__ dy,
    const __half* __restrict__ x,
    const float* __restrict__ mean,
    const float* __restrict__ rstd,
    const __half* __restrict__ gamma,
    __half* __restrict__ dx,
    long long rows,
    long long D) {
  layer_norm_grad_input<__half>(dy, x, mean, rstd, gamma, dx, rows, D);
}

extern "C" __global__ void __launch_bounds__(512, 1) LayerNormGrad__layer_norm_grad_input__bfloat16(
    const __nv_bfloat16* __restrict__ dy,
    const __nv_bfloat16* __restrict__ x,
    const float* __restrict__ mean,
    const float* __restrict__ rstd,
    const __nv_bfloat16* __restrict__ gamma,
    __nv_bfloat16* __restrict__ dx,
    long long rows,
    long long D) {
  layer_norm_grad_input<__nv_bfloat16>(dy, x, mean, rstd, gamma, dx, rows, D);
}

extern "C" __global__ void __launch_bounds__(512, 1) LayerNormGrad__layer_norm_grad_input__float32(
    const float* __restrict__ dy,
    const float* __restrict__ x,
    const float* __restrict__ mean,
    const float* __restrict__ rstd,
    const float* __restrict__ gamma,
    float* __restrict__ dx,
    long long rows,
    long long D) {
  layer_norm_grad_input<float>(dy, x, mean, rstd, gamma, dx, rows, D);
}

extern "C" __global__ void LayerNormGrad__layer_norm_grad_partials__float16(
    const __half* __restrict__ dy,
    const __half* __restrict__ x,
    const float* __restrict__ mean,
    const float* __restrict__ rstd,
    float* __restrict__ partials,
    long long rows,
    long long D,
    long long tile) {
  layer_norm_grad_partials<__half>(dy, x, mean, rstd, partials, rows, D, tile);
}

extern "C" __global__ void LayerNormGrad__layer_norm_grad_partials__bfloat16(
    const __nv_bfloat16* __restrict__ dy,
    const __nv_bfloat16* __restrict__ x,
    const float* __restrict__ mean,
    const float* __restrict__ rstd,
    float* __restrict__ partials,
    long long rows,
    long long D,
    long long tile) {
  layer_norm_grad_partials<__nv_bfloat16>(dy, x, mean, rstd, partials, rows, D, tile);
}

extern "C" __global__ void LayerNormGrad__layer_norm_grad_partials__float32(
    const float* __restrict__ dy,
    const float* __restrict__ x,
    const float* __restrict__ mean,
    const float* __restrict__ rstd,
    float* __restrict__ partials,
    long long rows,
    long long D,
    long long tile) {
  layer_norm_grad_partials<float>(dy, x, mean, rstd, partials, rows, D, tile);
}

extern "C" __global__ void LayerNormGrad__layer_norm_grad_params__float16(
    float* __restrict__ partials,
    __half* __restrict__ dgamma,
    __half* __restrict__ dbeta,
    long long D,
    long long splits) {
  layer_norm_grad_params<__half>(partials, dgamma, dbeta, D, splits);
}

extern "C" __global__ void LayerNormGrad__layer_norm_grad_params__bfloat16(
    float* __restrict__ partials,
    __nv_bfloat16* __restrict__ dgamma,
    __nv_bfloat16* __restrict__ dbeta,
    long long D,
    long long splits) {
  layer_norm_grad_params<__nv_bfloat16>(partials, dgamma, dbeta, D, splits);
}

extern "C" __global__ void LayerNormGrad__layer_norm_grad_params__float32(
    float* __restrict__ partials,
    float* __restrict__ dgamma,
    float* __restrict__ dbeta,
    long long D,
    long long splits) {
  layer_norm_grad_params<float>(partials, dgamma, dbeta, D, splits);
}

// opgen-manifest: {"version":1,"kernels":[{"name":"LayerNorm__layer_norm__float16","params":[["const __half* __restrict__","x"],["const __half* __restrict__","gamma"],["const __half* __restrict__","beta"],["__half* __restrict__","y"],["float* __restrict__","mean"],["float* __restrict__","rstd"],["long long","rows"],["long long","D"],["float","epsilon"]],"max_threads":512},{"name":"LayerNorm__layer_norm__bfloat16","params":[["const __nv_bfloat16* __restrict__","x"],["const __nv_bfloat16* __restrict__","gamma"],["const __nv_bfloat16* __restrict__","beta"],["__nv_bfloat16* __restrict__","y"],["float* __restrict__","mean"],["float* __restrict__","rstd"],["long long","rows"],["long long","D"],["float","epsilon"]],"max_threads":512},{"name":"LayerNorm__layer_norm__float32","params":[["const float* __restrict__","x"],["const float* __restrict__","gamma"],["const float* __restrict__","beta"],["float* __restrict__","y"],["float* __restrict__","mean"],["float* __restrict__","rstd"],["long long","rows"],["long long","D"],["float","epsilon"]],"max_threads":512},{"name":"LayerNormGrad__layer_norm_grad_input__float16","params":[["const __half* __restrict__","dy"],["const __half* __restrict__","x"],["const float* __restrict__","mean"],["const float* __restrict__","rstd"],["const __half* __restrict__","gamma"],["__half* __restrict__","dx"],["long long","rows"],["long long","D"]],"max_threads":512},{"name":"LayerNormGrad__layer_norm_grad_input__bfloat16","params":[["const __nv_bfloat16* __restrict__","dy"],["const __nv_bfloat16* __restrict__","x"],["const float* __restrict__","mean"],["const float* __restrict__","rstd"],["const __nv_bfloat16* __restrict__","gamma"],["__nv_bfloat16* __restrict__","dx"],["long long","rows"],["long long","D"]],"max_threads":512},{"name":"LayerNormGrad__layer_norm_grad_input__float32","params":[["const float* __restrict__","dy"],["const float* __restrict__","x"],["const float* __restrict__","mean"],["const float* __restrict__","rstd"],["const float* __restrict__","gamma"],["float* __restrict__","dx"],["long long","rows"],["long long","D"]],"max_threads":512},{"name":"LayerNormGrad__layer_norm_grad_partials__float16","params":[["const __half* __restrict__","dy"],["const __half* __restrict__","x"],["const float* __restrict__","mean"],["const float* __restrict__","rstd"],["float* __restrict__","partials"],["long long","rows"],["long long","D"],["long long","tile"]],"max_threads":1024},{"name":"LayerNormGrad__layer_norm_grad_partials__bfloat16","params":[["const __nv_bfloat16* __restrict__","dy"],["const __nv_bfloat16* __restrict__","x"],["const float* __restrict__","mean"],["const float* __restrict__","rstd"],["float* __restrict__","partials"],["long long","rows"],["long long","D"],["long long","tile"]],"max_threads":1024},{"name":"LayerNormGrad__layer_norm_grad_partials__float32","params":[["const float* __restrict__","dy"],["const float* __restrict__","x"],["const float* __restrict__","mean"],["const float* __restrict__","rstd"],["float* __restrict__","partials"],["long long","rows"],["long long","D"],["long long","tile"]],"max_threads":1024},{"name":"LayerNormGrad__layer_norm_grad_params__float16","params":[["float* __restrict__","partials"],["__half* __restrict__","dgamma"],["__half* __restrict__","dbeta"],["long long","D"],["long long","splits"]],"max_threads":1024},{"name":"LayerNormGrad__layer_norm_grad_params__bfloat16","params":[["float* __restrict__","partials"],["__nv_bfloat16* __restrict__","dgamma"],["__nv_bfloat16* __restrict__","dbeta"],["long long","D"],["long long","splits"]],"max_threads":1024},{"name":"LayerNormGrad__layer_norm_grad_params__float32","params":[["float* __restrict__","partials"],["float* __restrict__","dgamma"],["float* __restrict__","dbeta"],["long long","D"],["long long","splits"]],"max_threads":1024}],"shared":[],"digest":"8e4d572a499bd09223aa9bc2fcf0781f"}
