// generated from specs/norm/softmax.yaml, specs/norm/softmax_grad.yaml by opgen — do not edit (opgen 0.1.0)
#line 3 "generated/norm/softmax.cu"
/* Softmax, SoftmaxGrad: the ops that share this kernel module.
 * Kernel source: codegen/templates/kernels/norm/softmax.cu, once; then each op's entry points, generated from its
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
#line 4 "codegen/templates/kernels/norm/softmax.cu"

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

#line 1561 "generated/norm/softmax.cu"
// ---- Softmax: Softmax along one dimension.
// entry points from specs/norm/softmax.yaml: one per launch step and specialization (T)

extern "C" __global__ void __launch_bounds__(1024, 1) Softmax__softmax_rows__float16(
    const __half* __restrict__ x,
    __half* __restrict__ y,
    long long rows,
    long long N) {
  softmax_rows<__half>(x, y, rows, N);
}

extern "C" __global__ void __launch_bounds__(1024, 1) Softmax__softmax_rows__bfloat16(
    const __nv_bfloat16* __restrict__ x,
    __nv_bfloat16* __restrict__ y,
    long long rows,
    long long N) {
  softmax_rows<__nv_bfloat16>(x, y, rows, N);
}

extern "C" __global__ void __launch_bounds__(1024, 1) Softmax__softmax_rows__float32(
    const float* __restrict__ x,
    float* __restrict__ y,
    long long rows,
    long long N) {
  softmax_rows<float>(x, y, rows, N);
}

extern "C" __global__ void Softmax__softmax_columns__float16(
    const __half* __restrict__ x,
    __half* __restrict__ y,
    long long columns,
    long long N,
    long long inner) {
  softmax_columns<__half>(x, y, columns, N, inner);
}

extern "C" __global__ void Softmax__softmax_columns__bfloat16(
    const __nv_bfloat16* __restrict__ x,
    __nv_bfloat16* __restrict__ y,
    long long columns,
    long long N,
    long long inner) {
  softmax_columns<__nv_bfloat16>(x, y, columns, N, inner);
}

extern "C" __global__ void Softmax__softmax_columns__float32(
    const float* __restrict__ x,
    float* __restrict__ y,
    long long columns,
    long long N,
    long long inner) {
  softmax_columns<float>(x, y, columns, N, inner);
}

#line 1616 "generated/norm/softmax.cu"
// ---- SoftmaxGrad: The gradient of Softmax.
// entry points from specs/norm/softmax_grad.yaml: one per launch step and specialization (T)

extern "C" __global__ void __launch_bounds__(1024, 1) SoftmaxGrad__softmax_grad_rows__float16(
    const __half* __restrict__ y,
    const __half* __restrict__ dy,
    __half* __restrict__ dx,
    long long rows,
    long long N) {
  softmax_grad_rows<__half>(y, dy, dx, rows, N);
}

extern "C" __global__ void __launch_bounds__(1024, 1) SoftmaxGrad__softmax_grad_rows__bfloat16(
    const __nv_bfloat16* __restrict__ y,
    const __nv_bfloat16* __restrict__ dy,
    __nv_bfloat16* __restrict__ dx,
    long long rows,
    long long N) {
  softmax_grad_rows<__nv_bfloat16>(y, dy, dx, rows, N);
}

extern "C" __global__ void __launch_bounds__(1024, 1) SoftmaxGrad__softmax_grad_rows__float32(
    const float* __restrict__ y,
    const float* __restrict__ dy,
    float* __restrict__ dx,
    long long rows,
    long long N) {
  softmax_grad_rows<float>(y, dy, dx, rows, N);
}

extern "C" __global__ void SoftmaxGrad__softmax_grad_columns__float16(
    const __half* __restrict__ y,
    const __half* __restrict__ dy,
    __half* __restrict__ dx,
    long long columns,
    long long N,
    long long inner) {
  softmax_grad_columns<__half>(y, dy, dx, columns, N, inner);
}

extern "C" __global__ void SoftmaxGrad__softmax_grad_columns__bfloat16(
    const __nv_bfloat16* __restrict__ y,
    const __nv_bfloat16* __restrict__ dy,
    __nv_bfloat16* __restrict__ dx,
    long long columns,
    long long N,
    long long inner) {
  softmax_grad_columns<__nv_bfloat16>(y, dy, dx, columns, N, inner);
}

extern "C" __global__ void SoftmaxGrad__softmax_grad_columns__float32(
    const float* __restrict__ y,
    const float* __restrict__ dy,
    float* __restrict__ dx,
    long long columns,
    long long N,
    long long inner) {
  softmax_grad_columns<float>(y, dy, dx, columns, N, inner);
}

// opgen-manifest: {"version":1,"kernels":[{"name":"Softmax__softmax_rows__float16","params":[["const __half* __restrict__","x"],["__half* __restrict__","y"],["long long","rows"],["long long","N"]],"max_threads":1024},{"name":"Softmax__softmax_rows__bfloat16","params":[["const __nv_bfloat16* __restrict__","x"],["__nv_bfloat16* __restrict__","y"],["long long","rows"],["long long","N"]],"max_threads":1024},{"name":"Softmax__softmax_rows__float32","params":[["const float* __restrict__","x"],["float* __restrict__","y"],["long long","rows"],["long long","N"]],"max_threads":1024},{"name":"Softmax__softmax_columns__float16","params":[["const __half* __restrict__","x"],["__half* __restrict__","y"],["long long","columns"],["long long","N"],["long long","inner"]],"max_threads":1024},{"name":"Softmax__softmax_columns__bfloat16","params":[["const __nv_bfloat16* __restrict__","x"],["__nv_bfloat16* __restrict__","y"],["long long","columns"],["long long","N"],["long long","inner"]],"max_threads":1024},{"name":"Softmax__softmax_columns__float32","params":[["const float* __restrict__","x"],["float* __restrict__","y"],["long long","columns"],["long long","N"],["long long","inner"]],"max_threads":1024},{"name":"SoftmaxGrad__softmax_grad_rows__float16","params":[["const __half* __restrict__","y"],["const __half* __restrict__","dy"],["__half* __restrict__","dx"],["long long","rows"],["long long","N"]],"max_threads":1024},{"name":"SoftmaxGrad__softmax_grad_rows__bfloat16","params":[["const __nv_bfloat16* __restrict__","y"],["const __nv_bfloat16* __restrict__","dy"],["__nv_bfloat16* __restrict__","dx"],["long long","rows"],["long long","N"]],"max_threads":1024},{"name":"SoftmaxGrad__softmax_grad_rows__float32","params":[["const float* __restrict__","y"],["const float* __restrict__","dy"],["float* __restrict__","dx"],["long long","rows"],["long long","N"]],"max_threads":1024},{"name":"SoftmaxGrad__softmax_grad_columns__float16","params":[["const __half* __restrict__","y"],["const __half* __restrict__","dy"],["__half* __restrict__","dx"],["long long","columns"],["long long","N"],["long long","inner"]],"max_threads":1024},{"name":"SoftmaxGrad__softmax_grad_columns__bfloat16","params":[["const __nv_bfloat16* __restrict__","y"],["const __nv_bfloat16* __restrict__","dy"],["__nv_bfloat16* __restrict__","dx"],["long long","columns"],["long long","N"],["long long","inner"]],"max_threads":1024},{"name":"SoftmaxGrad__softmax_grad_columns__float32","params":[["const float* __restrict__","y"],["const float* __restrict__","dy"],["float* __restrict__","dx"],["long long","columns"],["long long","N"],["long long","inner"]],"max_threads":1024}],"shared":[],"digest":"96c3ab550ff8752f9165d55381bd2063"}
