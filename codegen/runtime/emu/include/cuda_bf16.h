// opgen host backend: bfloat16 (__nv_bfloat16, __nv_bfloat162) with the names
// and semantics of CUDA's cuda_bf16.h. Arithmetic goes through float and
// rounds once to bfloat16 (round-to-nearest-even), which is correctly rounded.
#ifndef OPGEN_CUDA_BF16_H
#define OPGEN_CUDA_BF16_H
#ifndef OPGEN_HOST_EMU
#error "this cuda_bf16.h is the opgen host-emulation stub; compile through codegen.runtime.host"
#endif
#include "cuda_fp16.h"  // CUDA's cuda_bf16.h also makes the half types available

struct __nv_bfloat16_raw { unsigned short x; };
struct __nv_bfloat162_raw { unsigned short x, y; };

static __forceinline__ float opgen_bf16_bits_to_float(unsigned short b) {
  return opgen_from_bits<float>(static_cast<uint32_t>(b) << 16);
}
#define OPGEN_BF16(v) opgen_round_small_float(static_cast<double>(v), 7, 8, 0)

struct __align__(2) __nv_bfloat16 {
 protected:
  unsigned short __x;

 public:
  __nv_bfloat16() = default;
  constexpr __nv_bfloat16(const __nv_bfloat16_raw& hr) : __x(hr.x) {}
  __nv_bfloat16& operator=(const __nv_bfloat16_raw& hr) { __x = hr.x; return *this; }
  operator __nv_bfloat16_raw() const { __nv_bfloat16_raw r; r.x = __x; return r; }
  __nv_bfloat16(const float f) : __x(OPGEN_BF16(f)) {}
  __nv_bfloat16(const double f) : __x(OPGEN_BF16(f)) {}
  explicit __nv_bfloat16(const __half f) : __x(OPGEN_BF16(static_cast<float>(f))) {}
  operator float() const { return opgen_bf16_bits_to_float(__x); }
  __nv_bfloat16& operator=(const float f) { __x = OPGEN_BF16(f); return *this; }
  __nv_bfloat16& operator=(const double f) { __x = OPGEN_BF16(f); return *this; }
  __nv_bfloat16(const short v) : __x(OPGEN_BF16(v)) {}
  __nv_bfloat16(const unsigned short v) : __x(OPGEN_BF16(v)) {}
  __nv_bfloat16(const int v) : __x(OPGEN_BF16(v)) {}
  __nv_bfloat16(const unsigned int v) : __x(OPGEN_BF16(v)) {}
  __nv_bfloat16(const long v) : __x(OPGEN_BF16(v)) {}
  __nv_bfloat16(const unsigned long v) : __x(OPGEN_BF16(v)) {}
  __nv_bfloat16(const long long v) : __x(OPGEN_BF16(v)) {}
  __nv_bfloat16(const unsigned long long v) : __x(OPGEN_BF16(v)) {}
  operator short() const { return opgen_sat_cast<short>(trunc(static_cast<double>(float(*this))), -32768.0, 32767.0); }
  operator unsigned short() const { return opgen_sat_cast<unsigned short>(trunc(static_cast<double>(float(*this))), 0.0, 65535.0); }
  operator int() const { return opgen_sat_cast<int>(trunc(static_cast<double>(float(*this))), -2147483648.0, 2147483647.0); }
  operator unsigned int() const { return opgen_sat_cast<unsigned>(trunc(static_cast<double>(float(*this))), 0.0, 4294967295.0); }
  operator long long() const {
    return opgen_sat_cast<long long>(trunc(static_cast<double>(float(*this))), -9.2233720368547758e18, 9223372036854774784.0);
  }
  operator unsigned long long() const {
    return opgen_sat_cast<unsigned long long>(trunc(static_cast<double>(float(*this))), 0.0, 18446744073709549568.0);
  }
  constexpr operator bool() const { return (__x & 0x7FFFu) != 0u; }
};

struct __align__(4) __nv_bfloat162 {
  __nv_bfloat16 x;
  __nv_bfloat16 y;
  __nv_bfloat162() = default;
  constexpr __nv_bfloat162(const __nv_bfloat16& a, const __nv_bfloat16& b) : x(a), y(b) {}
  __nv_bfloat162(const __nv_bfloat162_raw& r) : x(__nv_bfloat16_raw{r.x}), y(__nv_bfloat16_raw{r.y}) {}
  operator __nv_bfloat162_raw() const {
    __nv_bfloat162_raw r;
    r.x = static_cast<__nv_bfloat16_raw>(x).x;
    r.y = static_cast<__nv_bfloat16_raw>(y).x;
    return r;
  }
};
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;
template <> struct opgen_param_kind<__nv_bfloat16> { static constexpr unsigned value = 8; };

static __forceinline__ unsigned short opgen_bbits(const __nv_bfloat16 h) { return static_cast<__nv_bfloat16_raw>(h).x; }
static __forceinline__ __nv_bfloat16 opgen_bmake(unsigned short b) { __nv_bfloat16_raw r; r.x = b; return __nv_bfloat16(r); }
static __forceinline__ float __bfloat162float(const __nv_bfloat16 a) { return opgen_bf16_bits_to_float(opgen_bbits(a)); }
static __forceinline__ __nv_bfloat16 __float2bfloat16(const float a) { return opgen_bmake(OPGEN_BF16(a)); }
static __forceinline__ __nv_bfloat16 __float2bfloat16_rn(const float a) { return opgen_bmake(OPGEN_BF16(a)); }
static __forceinline__ __nv_bfloat16 __float2bfloat16_rz(const float a) { return opgen_bmake(opgen_round_small_float(a, 7, 8, 1)); }
static __forceinline__ __nv_bfloat16 __float2bfloat16_rd(const float a) { return opgen_bmake(opgen_round_small_float(a, 7, 8, 2)); }
static __forceinline__ __nv_bfloat16 __float2bfloat16_ru(const float a) { return opgen_bmake(opgen_round_small_float(a, 7, 8, 3)); }
static __forceinline__ __nv_bfloat16 __double2bfloat16(const double a) { return opgen_bmake(OPGEN_BF16(a)); }
static __forceinline__ short __bfloat16_as_short(const __nv_bfloat16 h) { return static_cast<short>(opgen_bbits(h)); }
static __forceinline__ unsigned short __bfloat16_as_ushort(const __nv_bfloat16 h) { return opgen_bbits(h); }
static __forceinline__ __nv_bfloat16 __short_as_bfloat16(const short i) { return opgen_bmake(static_cast<unsigned short>(i)); }
static __forceinline__ __nv_bfloat16 __ushort_as_bfloat16(const unsigned short i) { return opgen_bmake(i); }
static __forceinline__ __nv_bfloat16 __int2bfloat16_rn(const int i) { return opgen_bmake(OPGEN_BF16(i)); }
static __forceinline__ __nv_bfloat16 __uint2bfloat16_rn(const unsigned i) { return opgen_bmake(OPGEN_BF16(i)); }
static __forceinline__ __nv_bfloat16 __ll2bfloat16_rn(const long long i) { return opgen_bmake(OPGEN_BF16(i)); }
static __forceinline__ int __bfloat162int_rn(const __nv_bfloat16 h) { return __float2int_rn(__bfloat162float(h)); }
static __forceinline__ int __bfloat162int_rz(const __nv_bfloat16 h) { return __float2int_rz(__bfloat162float(h)); }
static __forceinline__ __nv_bfloat162 make_bfloat162(const __nv_bfloat16 x, const __nv_bfloat16 y) { return __nv_bfloat162(x, y); }
static __forceinline__ __nv_bfloat162 __halves2bfloat162(const __nv_bfloat16 a, const __nv_bfloat16 b) { return __nv_bfloat162(a, b); }
static __forceinline__ __nv_bfloat162 __bfloat162bfloat162(const __nv_bfloat16 a) { return __nv_bfloat162(a, a); }
static __forceinline__ __nv_bfloat162 __float2bfloat162_rn(const float a) { return __nv_bfloat162(__float2bfloat16(a), __float2bfloat16(a)); }
static __forceinline__ __nv_bfloat162 __floats2bfloat162_rn(const float a, const float b) {
  return __nv_bfloat162(__float2bfloat16(a), __float2bfloat16(b));
}
static __forceinline__ float2 __bfloat1622float2(const __nv_bfloat162 a) {
  return make_float2(__bfloat162float(a.x), __bfloat162float(a.y));
}
static __forceinline__ __nv_bfloat162 __float22bfloat162_rn(const float2 a) { return __floats2bfloat162_rn(a.x, a.y); }
static __forceinline__ float __low2float(const __nv_bfloat162 a) { return __bfloat162float(a.x); }
static __forceinline__ float __high2float(const __nv_bfloat162 a) { return __bfloat162float(a.y); }
static __forceinline__ __nv_bfloat16 __low2bfloat16(const __nv_bfloat162 a) { return a.x; }
static __forceinline__ __nv_bfloat16 __high2bfloat16(const __nv_bfloat162 a) { return a.y; }

// Arithmetic, comparisons and math reuse the half function names, as CUDA does.
static __forceinline__ bool opgen_bnan(const __nv_bfloat16 a) { return (opgen_bbits(a) & 0x7FFFu) > 0x7F80u; }
#define OPGEN_BBIN(NAME, OP)                                                                                 \
  static __forceinline__ __nv_bfloat16 NAME(const __nv_bfloat16 a, const __nv_bfloat16 b) {               \
    return __float2bfloat16(__bfloat162float(a) OP __bfloat162float(b));                                    \
  }
OPGEN_BBIN(__hadd, +)
OPGEN_BBIN(__hsub, -)
OPGEN_BBIN(__hmul, *)
OPGEN_BBIN(__hdiv, /)
OPGEN_BBIN(__hadd_rn, +)
OPGEN_BBIN(__hsub_rn, -)
OPGEN_BBIN(__hmul_rn, *)
#undef OPGEN_BBIN
static __forceinline__ __nv_bfloat16 __hneg(const __nv_bfloat16 a) { return opgen_bmake(opgen_bbits(a) ^ 0x8000u); }
static __forceinline__ __nv_bfloat16 __habs(const __nv_bfloat16 a) { return opgen_bmake(opgen_bbits(a) & 0x7FFFu); }
static __forceinline__ __nv_bfloat16 __hfma(const __nv_bfloat16 a, const __nv_bfloat16 b, const __nv_bfloat16 c) {
  return __double2bfloat16(fma(static_cast<double>(__bfloat162float(a)), __bfloat162float(b), __bfloat162float(c)));
}
static __forceinline__ __nv_bfloat16 __hmax(const __nv_bfloat16 a, const __nv_bfloat16 b) {
  return __float2bfloat16(fmaxf(__bfloat162float(a), __bfloat162float(b)));
}
static __forceinline__ __nv_bfloat16 __hmin(const __nv_bfloat16 a, const __nv_bfloat16 b) {
  return __float2bfloat16(fminf(__bfloat162float(a), __bfloat162float(b)));
}
#define OPGEN_BCMP(NAME, OP)                                                                                   \
  static __forceinline__ bool NAME(const __nv_bfloat16 a, const __nv_bfloat16 b) {                           \
    return __bfloat162float(a) OP __bfloat162float(b);                                                        \
  }
OPGEN_BCMP(__heq, ==)
OPGEN_BCMP(__hlt, <)
OPGEN_BCMP(__hle, <=)
OPGEN_BCMP(__hgt, >)
OPGEN_BCMP(__hge, >=)
OPGEN_BCMP(__hneu, !=)
#undef OPGEN_BCMP
static __forceinline__ bool __hne(const __nv_bfloat16 a, const __nv_bfloat16 b) {
  return !opgen_bnan(a) && !opgen_bnan(b) && __bfloat162float(a) != __bfloat162float(b);
}
static __forceinline__ bool __hisnan(const __nv_bfloat16 a) { return opgen_bnan(a); }
static __forceinline__ int __hisinf(const __nv_bfloat16 a) {
  return opgen_bbits(a) == 0x7F80u ? 1 : opgen_bbits(a) == 0xFF80u ? -1 : 0;
}
#define OPGEN_BMATH(NAME, NAME2, EXPR)                                                                          \
  static __forceinline__ __nv_bfloat16 NAME(const __nv_bfloat16 a) {                                         \
    const float x = __bfloat162float(a);                                                                      \
    return __float2bfloat16(EXPR);                                                                            \
  }                                                                                                           \
  static __forceinline__ __nv_bfloat162 NAME2(const __nv_bfloat162 a) { return __nv_bfloat162(NAME(a.x), NAME(a.y)); }
OPGEN_BMATH(hsqrt, h2sqrt, sqrtf(x))
OPGEN_BMATH(hrsqrt, h2rsqrt, 1.0f / sqrtf(x))
OPGEN_BMATH(hrcp, h2rcp, 1.0f / x)
OPGEN_BMATH(hexp, h2exp, expf(x))
OPGEN_BMATH(hexp2, h2exp2, exp2f(x))
OPGEN_BMATH(hexp10, h2exp10, exp10f(x))
OPGEN_BMATH(hlog, h2log, logf(x))
OPGEN_BMATH(hlog2, h2log2, log2f(x))
OPGEN_BMATH(hlog10, h2log10, log10f(x))
OPGEN_BMATH(hsin, h2sin, sinf(x))
OPGEN_BMATH(hcos, h2cos, cosf(x))
OPGEN_BMATH(htanh, h2tanh, tanhf(x))
OPGEN_BMATH(hceil, h2ceil, ceilf(x))
OPGEN_BMATH(hfloor, h2floor, floorf(x))
OPGEN_BMATH(htrunc, h2trunc, truncf(x))
OPGEN_BMATH(hrint, h2rint, nearbyintf(x))
#undef OPGEN_BMATH
static __forceinline__ __nv_bfloat162 __hadd2(const __nv_bfloat162 a, const __nv_bfloat162 b) {
  return __nv_bfloat162(__hadd(a.x, b.x), __hadd(a.y, b.y));
}
static __forceinline__ __nv_bfloat162 __hsub2(const __nv_bfloat162 a, const __nv_bfloat162 b) {
  return __nv_bfloat162(__hsub(a.x, b.x), __hsub(a.y, b.y));
}
static __forceinline__ __nv_bfloat162 __hmul2(const __nv_bfloat162 a, const __nv_bfloat162 b) {
  return __nv_bfloat162(__hmul(a.x, b.x), __hmul(a.y, b.y));
}
static __forceinline__ __nv_bfloat162 __hfma2(const __nv_bfloat162 a, const __nv_bfloat162 b, const __nv_bfloat162 c) {
  return __nv_bfloat162(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}

static __forceinline__ __nv_bfloat16 operator+(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hadd(a, b); }
static __forceinline__ __nv_bfloat16 operator-(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hsub(a, b); }
static __forceinline__ __nv_bfloat16 operator*(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hmul(a, b); }
static __forceinline__ __nv_bfloat16 operator/(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hdiv(a, b); }
static __forceinline__ __nv_bfloat16& operator+=(__nv_bfloat16& a, const __nv_bfloat16& b) { return a = __hadd(a, b); }
static __forceinline__ __nv_bfloat16& operator-=(__nv_bfloat16& a, const __nv_bfloat16& b) { return a = __hsub(a, b); }
static __forceinline__ __nv_bfloat16& operator*=(__nv_bfloat16& a, const __nv_bfloat16& b) { return a = __hmul(a, b); }
static __forceinline__ __nv_bfloat16& operator/=(__nv_bfloat16& a, const __nv_bfloat16& b) { return a = __hdiv(a, b); }
static __forceinline__ __nv_bfloat16 operator+(const __nv_bfloat16& h) { return h; }
static __forceinline__ __nv_bfloat16 operator-(const __nv_bfloat16& h) { return __hneg(h); }
static __forceinline__ bool operator==(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __heq(a, b); }
static __forceinline__ bool operator!=(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hneu(a, b); }
static __forceinline__ bool operator>(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hgt(a, b); }
static __forceinline__ bool operator<(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hlt(a, b); }
static __forceinline__ bool operator>=(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hge(a, b); }
static __forceinline__ bool operator<=(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hle(a, b); }
static __forceinline__ __nv_bfloat162 operator+(const __nv_bfloat162& a, const __nv_bfloat162& b) { return __hadd2(a, b); }
static __forceinline__ __nv_bfloat162 operator-(const __nv_bfloat162& a, const __nv_bfloat162& b) { return __hsub2(a, b); }
static __forceinline__ __nv_bfloat162 operator*(const __nv_bfloat162& a, const __nv_bfloat162& b) { return __hmul2(a, b); }

#define OPGEN_BSHFL(T)                                                                                         \
  static __forceinline__ T __shfl_sync(const unsigned m, const T v, const int src, const int w = warpSize) {  \
    return opgen_from_bits<T>(opgen_warp(OPGEN_W_SHFL_IDX, m, opgen_bits(v), src, w));                        \
  }                                                                                                           \
  static __forceinline__ T __shfl_up_sync(const unsigned m, const T v, const unsigned d, const int w = warpSize) { \
    return opgen_from_bits<T>(opgen_warp(OPGEN_W_SHFL_UP, m, opgen_bits(v), static_cast<int>(d), w));         \
  }                                                                                                           \
  static __forceinline__ T __shfl_down_sync(const unsigned m, const T v, const unsigned d, const int w = warpSize) { \
    return opgen_from_bits<T>(opgen_warp(OPGEN_W_SHFL_DOWN, m, opgen_bits(v), static_cast<int>(d), w));       \
  }                                                                                                           \
  static __forceinline__ T __shfl_xor_sync(const unsigned m, const T v, const int lm, const int w = warpSize) { \
    return opgen_from_bits<T>(opgen_warp(OPGEN_W_SHFL_XOR, m, opgen_bits(v), lm, w));                         \
  }
OPGEN_BSHFL(__nv_bfloat16)
OPGEN_BSHFL(__nv_bfloat162)
#undef OPGEN_BSHFL

static __forceinline__ __nv_bfloat16 atomicAdd(__nv_bfloat16* const p, const __nv_bfloat16 v) {
  return opgen_atomic_update<__nv_bfloat16, unsigned short>(p, [v](__nv_bfloat16 a) { return __hadd(a, v); });
}
static __forceinline__ __nv_bfloat162 atomicAdd(__nv_bfloat162* const p, const __nv_bfloat162 v) {
  return opgen_atomic_update<__nv_bfloat162, uint32_t>(p, [v](__nv_bfloat162 a) { return __hadd2(a, v); });
}

#define CUDART_INF_BF16 __ushort_as_bfloat16((unsigned short)0x7F80U)
#define CUDART_NAN_BF16 __ushort_as_bfloat16((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_BF16 __ushort_as_bfloat16((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_BF16 __ushort_as_bfloat16((unsigned short)0x7F7FU)
#define CUDART_NEG_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x8000U)
#define CUDART_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x0000U)
#define CUDART_ONE_BF16 __ushort_as_bfloat16((unsigned short)0x3F80U)

#undef OPGEN_BF16
#endif  // OPGEN_CUDA_BF16_H
