// ---- opgen::vm, the vector math library: exp, expm1, log, log1p, tanh, sigmoid and erf for
// kernel authors, each with an error bound in ulps (docs/specs.md, "Writing kernels": the table;
// tests/test_vector_math.py sweeps them; scripts/ulp_table.py prints what they reach). Include it
// in a kernel template with a Jinja include of "kernels/_vmath.cuh" (the activation library
// includes it). Every function has three forms:
//   vm::exp(x)        one float;
//   vm::exp_run(v)    every element of a float array v[R], in place (a run of a row: the host
//                     form computes it in vector registers);
//   vm::exp(vf)       (host form only) a GCC vector of vm::kLanes floats.
// The GPU form (NVRTC, and the emulation with OPGEN_GPU_FORM) is CUDA's own function (expf, ...);
// the host form (the emulation's cpu build) is the branch-free vector code below, which g++ keeps
// in SSE registers at the x86-64 baseline and in AVX registers where the build targets AVX2. The
// scalar host form is the same vector code on one lane, so a value does not depend on whether it
// falls in a run or in a row's tail.
//
// Special values are exact in every form: e^−∞ = 0, e^+∞ = +∞, e^x overflows to +∞ and reaches
// the subnormals, ln 0 = −∞, ln of a negative = NaN, log1p(−1) = −∞, tanh ±∞ = ±1, erf ±∞ = ±1,
// sigmoid(−∞) = 0, f(±0) = ±0 for expm1, log1p, tanh and erf, NaN in gives NaN out.
#ifndef OPGEN_VMATH_CUH
#define OPGEN_VMATH_CUH
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

namespace detail {
__device__ __forceinline__ vf splat(float c) { return c - vf{}; }  // c − (+0) is c, −0 included
__device__ __forceinline__ vi bits(vf v) { return reinterpret_cast<vi>(v); }
__device__ __forceinline__ vf from_bits(vi b) { return reinterpret_cast<vf>(b); }
__device__ __forceinline__ vf abs(vf v) { return from_bits(bits(v) & 0x7fffffff); }
__device__ __forceinline__ vf copysign(vf magnitude, vf sign) {
  return from_bits(bits(magnitude) | (bits(sign) & (-0x7fffffff - 1)));
}
__device__ __forceinline__ vf min(vf v, float hi) { return v > hi ? splat(hi) : v; }  // NaN stays NaN
__device__ __forceinline__ vf max(vf v, float lo) { return v < lo ? splat(lo) : v; }
// 2^k for −126 ≤ k ≤ 127 (unsigned: the shift of a NaN's garbage exponent is defined too).
__device__ __forceinline__ vf pow2(vi k) { return from_bits(reinterpret_cast<vi>(reinterpret_cast<vu>(k + 127) << 23)); }

// x = n·ln 2 + r, |r| ≤ ln 2 / 2, for |x| < 2^22: n rounded by the 1.5·2^23 shifter and read from
// its bits (no float-to-int conversion, so a NaN lane is harmless); ln 2 in two parts (Cody and
// Waite), n·0.693359375 exact for |n| < 2^15.
struct Ln2Split {
  vf r;
  vi n;
};
__device__ __forceinline__ Ln2Split split_ln2(vf x) {
  const vf t = x * 1.44269504088896341f + 12582912.f;
  const vf n = t - 12582912.f;
  return {(x - n * 0.693359375f) - n * -2.12194440e-4f, bits(t) - 0x4B400000};
}

// e^r − 1 for |r| ≤ ln 2 / 2: r + r²·P(r), Cephes' expf polynomial.
__device__ __forceinline__ vf expm1_reduced(vf r) {
  const vf p = ((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r + 4.1665795894e-2f) * r +
                1.6666665459e-1f) * r + 5.0000001201e-1f;
  return p * (r * r) + r;
}

// ln(2^k·(1 + f)) + c for f in [√½ − 1, √2 − 1] (c: a small correction, log1p's): FreeBSD's logf
// kernel, s = f/(2 + f), ln(1 + f) = f − f²/2 + s·(f²/2 + R(s²)), R within 2^−34 of its series.
__device__ __forceinline__ vf log_kernel(vf f, vf k, vf c) {
  const vf s = f / (2.f + f), z = s * s, w = z * z;
  const vf r = z * (0.66666662693f + w * 0.28498786688f) + w * (0.40000972152f + w * 0.24279078841f);
  const vf hfsq = 0.5f * f * f;
  return (((s * (hfsq + r) + (k * 9.0580006145e-06f + c)) - hfsq) + f) + k * 6.9313812256e-01f;
}

// u = 2^k·m, m in [√½, √2) (u positive and normal): k and the bits of m.
struct Mantissa {
  vi k;
  vf m;
};
__device__ __forceinline__ Mantissa split_mantissa(vf u) {
  const vi b = bits(u) + (0x3f800000 - 0x3f3504f3);  // m ≥ √2 moves into the next binade
  return {(b >> 23) - 127, from_bits((b & 0x007fffff) + 0x3f3504f3)};
}
}  // namespace detail

// e^x. x is clamped to [−104, 89] (e^−104 rounds to 0, e^89 overflows) and 2^n applied as two
// normal factors, so subnormal results are rounded once from an exact product.
__device__ __forceinline__ vf exp(vf x) {
  using namespace detail;
  const Ln2Split s = split_ln2(max(min(x, 89.f), -104.f));
  const vi k1 = s.n >> 1, k2 = s.n - k1;
  return (expm1_reduced(s.r) + 1.f) * pow2(k1) * pow2(k2);
}

// e^x − 1 = 2·(2^(n−1)·(e^r − 1) + (2^(n−1) − ½)): no cancellation near 0, and 2^(n−1) stays a
// normal float for x in [−30, 89] (below −17.4 the result rounds to −1 anyway).
__device__ __forceinline__ vf expm1(vf x) {
  using namespace detail;
  const Ln2Split s = split_ln2(max(min(x, 89.f), -30.f));
  const vf t = pow2(s.n - 1);
  const vf y = (t * expm1_reduced(s.r) + (t - 0.5f)) * 2.f;
  return abs(x) < 0x1p-25f ? x : y;  // ±0, subnormals and tiny x: e^x − 1 rounds to x
}

__device__ __forceinline__ vf log(vf x) {
  using namespace detail;
  const vi tiny = x < 0x1p-126f;
  const Mantissa u = split_mantissa(tiny ? x * 0x1p25f : x);  // subnormals scaled into the normals
  const vf k = __builtin_convertvector(u.k - (tiny & 25), vf);
  const vf y = log_kernel(u.m - 1.f, k, vf{});
  const vf special = x == 0.f ? splat(-__builtin_inff()) : (x < 0.f ? splat(__builtin_nanf("")) : x);
  return (x > 0.f) & (x < __builtin_inff()) ? y : special;  // special: ±0, negatives, +∞, NaN
}

// ln(1 + x): u = 1 + x rounded, and the part of 1 + x that u lost, over u, corrects ln u (FreeBSD's
// log1pf); where 1 + x lies in [√½, √2) the kernel takes f = x itself.
__device__ __forceinline__ vf log1p(vf x) {
  using namespace detail;
  const vf u = 1.f + x;
  const Mantissa s = split_mantissa(u);
  const vi k0 = s.k == 0;
  const vf lost = (s.k >= 2 ? 1.f - (u - x) : x - (u - 1.f)) / u;
  const vf y = log_kernel(k0 ? x : s.m - 1.f, __builtin_convertvector(s.k, vf), k0 ? vf{} : lost);
  const vf special = x == -1.f ? splat(-__builtin_inff()) : (x < -1.f ? splat(__builtin_nanf("")) : x);
  const vf r = (x > -1.f) & (x < __builtin_inff()) ? y : special;  // special: ≤ −1, +∞, NaN
  return abs(x) < 0x1p-24f ? x : r;                                  // ±0 and tiny x: x
}

// tanh |x| = −q/(2 + q), q = e^(−2|x|) − 1 (from expm1: no cancellation near 0), with x's sign;
// corrected for the rounding of d = 2 + q as sigmoid is (2 + q = d + lo exactly, as 2 ≥ |q|).
__device__ __forceinline__ vf tanh(vf x) {
  using namespace detail;
  const vf q = expm1(-2.f * abs(x)), d = 2.f + q, lo = (2.f - d) + q;
  const vf r = -q / d;
  return copysign(r - r * (lo / d), x);
}

// 1/(1 + e^−x) for x ≥ 0, e^x/(1 + e^x) below: e^−|x| never overflows, and sigmoid(x) reaches the
// subnormals for x < −87. The quotient is corrected for the rounding of d = 1 + e (1 + e = d + lo
// exactly, as 1 ≥ e): n/(d + lo) ≈ n/d·(1 − lo/d).
__device__ __forceinline__ vf sigmoid(vf x) {
  using namespace detail;
  const vf e = exp(-abs(x)), d = 1.f + e, lo = (1.f - d) + e;
  const vf r = (x >= 0.f ? splat(1.f) : e) / d;
  return r - r * (lo / d);
}

// erf x: x + x·P(x²) for |x| < 0.921875; 1 − e^G(|x|) above, G a fit of ln erfc on [0.921875,
// 3.9375] (erf rounds to 1 beyond); both least-squares fits in float64 (tests/test_vector_math.py
// gives the bound they reach).
__device__ __forceinline__ vf erf(vf x) {
  using namespace detail;
  const vf a = abs(x), t = a * a;
  const vf p = (((((8.438768418272957e-05f * t - 0.0008160783909261227f) * t + 0.005202835891395807f) * t -
                  0.02686024084687233f) * t + 0.11283713579177856f) * t - 0.37612634897232056f) * t +
               0.12837916612625122f;
  const vf b = min(a, 3.9375f);
  const vf g = (((((((-3.248211442041793e-07f * b - 1.6966108887572773e-05f) * b + 0.00041200072155334055f) * b -
                     0.004102726466953754f) * b + 0.024992188438773155f) * b - 0.1081315204501152f) * b -
                  0.6334532499313354f) * b - 1.129472255706787f) * b + 0.00016732893709558994f;
  return copysign(a < 0.921875f ? a + a * p : 1.f - exp(g), x);
}

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

// The scalar host form: lane 0 of the vector form (the same value as in a run).
#define OPGEN_VM_SCALAR(name) \
  __device__ __forceinline__ float name(float x) { return name(detail::splat(x))[0]; }
#else
// The GPU form: CUDA's functions, and sigmoid from expf as the host form computes it.
#define OPGEN_VM_CUDA(name, cuda_name) \
  __device__ __forceinline__ float name(float x) { return cuda_name(x); }
OPGEN_VM_CUDA(exp, expf)
OPGEN_VM_CUDA(expm1, expm1f)
OPGEN_VM_CUDA(log, logf)
OPGEN_VM_CUDA(log1p, log1pf)
OPGEN_VM_CUDA(tanh, tanhf)
OPGEN_VM_CUDA(erf, erff)
#undef OPGEN_VM_CUDA
__device__ __forceinline__ float sigmoid(float x) {
  const float e = expf(-fabsf(x)), d = 1.f + e, lo = (1.f - d) + e;
  const float r = (x >= 0.f ? 1.f : e) / d;
  return r - r * (lo / d);
}
#define OPGEN_VM_SCALAR(name)
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

// Each function's scalar form (host), its functor (for map_run) and its run form.
#define OPGEN_VM_FUNCTION(name, Functor)                                                         \
  OPGEN_VM_SCALAR(name)                                                                          \
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
#undef OPGEN_VM_SCALAR

}  // namespace vm
}  // namespace opgen
#endif  // OPGEN_VMATH_CUH
