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
