// opgen host backend: IEEE binary16 (__half, __half2) with the names and
// semantics of CUDA's cuda_fp16.h, so a kernel including it compiles with
// both nvcc/NVRTC and g++. Arithmetic goes through float and rounds once to
// half (round-to-nearest-even); float has enough precision that this equals
// correctly rounded half arithmetic for + - * / and sqrt.
#ifndef OPGEN_CUDA_FP16_H
#define OPGEN_CUDA_FP16_H
#ifndef OPGEN_HOST_EMU
#error "this cuda_fp16.h is the opgen host-emulation stub; compile through codegen.runtime.host"
#endif

struct __half_raw { unsigned short x; };
struct __half2_raw { unsigned short x, y; };

static __forceinline__ float opgen_half_bits_to_float(unsigned short h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu, man = h & 0x3FFu;
  if (exp == 0x1F) return opgen_from_bits<float>(sign | 0x7F800000u | (man << 13));  // inf / NaN (payload kept)
  if (exp == 0) {
    const float mag = static_cast<float>(man) * 5.9604644775390625e-8f;  // exact: man * 2^-24
    return sign ? -mag : mag;
  }
  return opgen_from_bits<float>(sign | ((exp + 112) << 23) | (man << 13));
}
// float -> binary16 bits rounded to nearest even, NaN -> 0x7FFF: what opgen_round_small_float(f,
// 10, 5, 0) gives for a float (a float16 store of a kernel, __float2half_rn), without the detour
// through double and its branches: F16C's vcvtps2ph (rounding immediate 0: to nearest even) where
// the build has it (x86-64-v3), else the FP16 library's branch-free fp16_ieee_from_fp32_value.
// tests/test_vector_math.py compares it with opgen_round_small_float on every tie and neighbour.
static __forceinline__ unsigned short opgen_float_to_half_rn(float f) {
  if (f != f) return 0x7FFF;
#ifdef __F16C__
  typedef float opgen_v4sf __attribute__((vector_size(16)));
  const auto h = __builtin_ia32_vcvtps2ph(opgen_v4sf{f, 0.f, 0.f, 0.f}, 0);
  return static_cast<unsigned short>(h[0]);
#else
  const uint32_t w = static_cast<uint32_t>(opgen_bits(f)), shl1_w = w + w, sign = w & 0x80000000u;
  const float base0 = (__builtin_fabsf(f) * 0x1.0p+112f) * 0x1.0p-110f;
  uint32_t bias = shl1_w & 0xFF000000u;
  bias = bias < 0x71000000u ? 0x71000000u : bias;
  const uint32_t bits = static_cast<uint32_t>(opgen_bits(opgen_from_bits<float>((bias >> 1) + 0x07800000u) + base0));
  return static_cast<unsigned short>((sign >> 16) | (((bits >> 13) & 0x7C00u) + (bits & 0x0FFFu)));
#endif
}
// Saturating half -> integer conversion (CUDA cvt semantics, NaN -> 0).
template <class I>
static __forceinline__ I opgen_half_to_int(unsigned short h, int mode, double lo, double hi) {
  const double f = opgen_half_bits_to_float(h);
  const double r = mode == 0 ? nearbyint(f) : mode == 1 ? trunc(f) : mode == 2 ? floor(f) : ceil(f);
  return opgen_sat_cast<I>(r, lo, hi);
}

struct __align__(2) __half {
 protected:
  unsigned short __x;

 public:
  __half() = default;
  constexpr __half(const __half_raw& hr) : __x(hr.x) {}
  __half& operator=(const __half_raw& hr) { __x = hr.x; return *this; }
  operator __half_raw() const { __half_raw r; r.x = __x; return r; }
  __half(const float f) : __x(opgen_float_to_half_rn(f)) {}
  __half(const double f) : __x(opgen_round_small_float(f, 10, 5, 0)) {}
  operator float() const { return opgen_half_bits_to_float(__x); }
  __half& operator=(const float f) { __x = opgen_float_to_half_rn(f); return *this; }
  __half& operator=(const double f) { __x = opgen_round_small_float(f, 10, 5, 0); return *this; }
  // Implicit integer conversions, as in CUDA (integer -> half rounds to nearest, half -> integer truncates).
  __half(const short v) : __x(opgen_round_small_float(v, 10, 5, 0)) {}
  __half(const unsigned short v) : __x(opgen_round_small_float(v, 10, 5, 0)) {}
  __half(const int v) : __x(opgen_round_small_float(v, 10, 5, 0)) {}
  __half(const unsigned int v) : __x(opgen_round_small_float(v, 10, 5, 0)) {}
  __half(const long v) : __x(opgen_round_small_float(static_cast<double>(v), 10, 5, 0)) {}
  __half(const unsigned long v) : __x(opgen_round_small_float(static_cast<double>(v), 10, 5, 0)) {}
  __half(const long long v) : __x(opgen_round_small_float(static_cast<double>(v), 10, 5, 0)) {}
  __half(const unsigned long long v) : __x(opgen_round_small_float(static_cast<double>(v), 10, 5, 0)) {}
  operator signed char() const { return opgen_half_to_int<signed char>(__x, 1, -128.0, 127.0); }
  operator unsigned char() const { return opgen_half_to_int<unsigned char>(__x, 1, 0.0, 255.0); }
  operator char() const { return static_cast<char>(opgen_half_to_int<signed char>(__x, 1, -128.0, 127.0)); }
  operator short() const { return opgen_half_to_int<short>(__x, 1, -32768.0, 32767.0); }
  operator unsigned short() const { return opgen_half_to_int<unsigned short>(__x, 1, 0.0, 65535.0); }
  operator int() const { return opgen_half_to_int<int>(__x, 1, -2147483648.0, 2147483647.0); }
  operator unsigned int() const { return opgen_half_to_int<unsigned int>(__x, 1, 0.0, 4294967295.0); }
  operator long() const { return opgen_half_to_int<long>(__x, 1, -9.2233720368547758e18, 9223372036854774784.0); }
  operator unsigned long() const { return opgen_half_to_int<unsigned long>(__x, 1, 0.0, 18446744073709549568.0); }
  operator long long() const { return opgen_half_to_int<long long>(__x, 1, -9.2233720368547758e18, 9223372036854774784.0); }
  operator unsigned long long() const {
    return opgen_half_to_int<unsigned long long>(__x, 1, 0.0, 18446744073709549568.0);
  }
  __half& operator=(const short v) { return *this = __half(v); }
  __half& operator=(const unsigned short v) { return *this = __half(v); }
  __half& operator=(const int v) { return *this = __half(v); }
  __half& operator=(const unsigned int v) { return *this = __half(v); }
  __half& operator=(const long long v) { return *this = __half(v); }
  __half& operator=(const unsigned long long v) { return *this = __half(v); }
  constexpr operator bool() const { return (__x & 0x7FFFu) != 0u; }
};

struct __align__(4) __half2 {
  __half x;
  __half y;
  __half2() = default;
  constexpr __half2(const __half& a, const __half& b) : x(a), y(b) {}
  __half2(const __half2_raw& r) : x(__half_raw{r.x}), y(__half_raw{r.y}) {}
  __half2& operator=(const __half2_raw& r) { x = __half_raw{r.x}; y = __half_raw{r.y}; return *this; }
  operator __half2_raw() const {
    __half2_raw r;
    r.x = static_cast<__half_raw>(x).x;
    r.y = static_cast<__half_raw>(y).x;
    return r;
  }
};

typedef __half half;
typedef __half2 half2;
template <> struct opgen_param_kind<__half> { static constexpr unsigned value = 7; };

// ------------------------------------------------------------ conversions --
static __forceinline__ unsigned short opgen_hbits(const __half h) { return static_cast<__half_raw>(h).x; }
static __forceinline__ __half opgen_hmake(unsigned short b) { __half_raw r; r.x = b; return __half(r); }
static __forceinline__ float __half2float(const __half a) { return opgen_half_bits_to_float(opgen_hbits(a)); }
static __forceinline__ __half __float2half(const float a) { return opgen_hmake(opgen_float_to_half_rn(a)); }
static __forceinline__ __half __float2half_rn(const float a) { return opgen_hmake(opgen_float_to_half_rn(a)); }
static __forceinline__ __half __float2half_rz(const float a) { return opgen_hmake(opgen_round_small_float(a, 10, 5, 1)); }
static __forceinline__ __half __float2half_rd(const float a) { return opgen_hmake(opgen_round_small_float(a, 10, 5, 2)); }
static __forceinline__ __half __float2half_ru(const float a) { return opgen_hmake(opgen_round_small_float(a, 10, 5, 3)); }
static __forceinline__ __half __double2half(const double a) { return opgen_hmake(opgen_round_small_float(a, 10, 5, 0)); }
static __forceinline__ short __half_as_short(const __half h) { return static_cast<short>(opgen_hbits(h)); }
static __forceinline__ unsigned short __half_as_ushort(const __half h) { return opgen_hbits(h); }
static __forceinline__ __half __short_as_half(const short i) { return opgen_hmake(static_cast<unsigned short>(i)); }
static __forceinline__ __half __ushort_as_half(const unsigned short i) { return opgen_hmake(i); }

#define OPGEN_INT_HALF(T, NAME, LO, HI)                                                                     \
  static __forceinline__ __half __##NAME##2half_rn(const T i) { return opgen_hmake(opgen_round_small_float(static_cast<double>(i), 10, 5, 0)); } \
  static __forceinline__ __half __##NAME##2half_rz(const T i) { return opgen_hmake(opgen_round_small_float(static_cast<double>(i), 10, 5, 1)); } \
  static __forceinline__ __half __##NAME##2half_rd(const T i) { return opgen_hmake(opgen_round_small_float(static_cast<double>(i), 10, 5, 2)); } \
  static __forceinline__ __half __##NAME##2half_ru(const T i) { return opgen_hmake(opgen_round_small_float(static_cast<double>(i), 10, 5, 3)); } \
  static __forceinline__ T __half2##NAME##_rn(const __half h) { return opgen_half_to_int<T>(opgen_hbits(h), 0, LO, HI); } \
  static __forceinline__ T __half2##NAME##_rz(const __half h) { return opgen_half_to_int<T>(opgen_hbits(h), 1, LO, HI); } \
  static __forceinline__ T __half2##NAME##_rd(const __half h) { return opgen_half_to_int<T>(opgen_hbits(h), 2, LO, HI); } \
  static __forceinline__ T __half2##NAME##_ru(const __half h) { return opgen_half_to_int<T>(opgen_hbits(h), 3, LO, HI); }
OPGEN_INT_HALF(int, int, -2147483648.0, 2147483647.0)
OPGEN_INT_HALF(unsigned int, uint, 0.0, 4294967295.0)
OPGEN_INT_HALF(short, short, -32768.0, 32767.0)
OPGEN_INT_HALF(unsigned short, ushort, 0.0, 65535.0)
OPGEN_INT_HALF(long long, ll, -9.2233720368547758e18, 9223372036854774784.0)
OPGEN_INT_HALF(unsigned long long, ull, 0.0, 18446744073709549568.0)
#undef OPGEN_INT_HALF

static __forceinline__ __half2 make_half2(const __half x, const __half y) { return __half2(x, y); }
static __forceinline__ __half2 __halves2half2(const __half a, const __half b) { return __half2(a, b); }
static __forceinline__ __half2 __half2half2(const __half a) { return __half2(a, a); }
static __forceinline__ __half2 __float2half2_rn(const float a) { return __half2(__float2half(a), __float2half(a)); }
static __forceinline__ __half2 __floats2half2_rn(const float a, const float b) { return __half2(__float2half(a), __float2half(b)); }
static __forceinline__ float2 __half22float2(const __half2 a) { return make_float2(__half2float(a.x), __half2float(a.y)); }
static __forceinline__ __half2 __float22half2_rn(const float2 a) { return __floats2half2_rn(a.x, a.y); }
static __forceinline__ float __low2float(const __half2 a) { return __half2float(a.x); }
static __forceinline__ float __high2float(const __half2 a) { return __half2float(a.y); }
static __forceinline__ __half __low2half(const __half2 a) { return a.x; }
static __forceinline__ __half __high2half(const __half2 a) { return a.y; }
static __forceinline__ __half2 __low2half2(const __half2 a) { return __half2(a.x, a.x); }
static __forceinline__ __half2 __high2half2(const __half2 a) { return __half2(a.y, a.y); }
static __forceinline__ __half2 __lows2half2(const __half2 a, const __half2 b) { return __half2(a.x, b.x); }
static __forceinline__ __half2 __highs2half2(const __half2 a, const __half2 b) { return __half2(a.y, b.y); }
static __forceinline__ __half2 __lowhigh2highlow(const __half2 a) { return __half2(a.y, a.x); }

// ------------------------------------------------------------- arithmetic --
static __forceinline__ bool opgen_hnan(const __half a) { return (opgen_hbits(a) & 0x7FFFu) > 0x7C00u; }
static __forceinline__ __half __hadd(const __half a, const __half b) { return __float2half(__half2float(a) + __half2float(b)); }
static __forceinline__ __half __hsub(const __half a, const __half b) { return __float2half(__half2float(a) - __half2float(b)); }
static __forceinline__ __half __hmul(const __half a, const __half b) { return __float2half(__half2float(a) * __half2float(b)); }
static __forceinline__ __half __hdiv(const __half a, const __half b) { return __float2half(__half2float(a) / __half2float(b)); }
static __forceinline__ __half __hadd_rn(const __half a, const __half b) { return __hadd(a, b); }
static __forceinline__ __half __hsub_rn(const __half a, const __half b) { return __hsub(a, b); }
static __forceinline__ __half __hmul_rn(const __half a, const __half b) { return __hmul(a, b); }
static __forceinline__ __half __hneg(const __half a) { return opgen_hmake(opgen_hbits(a) ^ 0x8000u); }
static __forceinline__ __half __habs(const __half a) { return opgen_hmake(opgen_hbits(a) & 0x7FFFu); }
static __forceinline__ __half __hfma(const __half a, const __half b, const __half c) {
  return __double2half(fma(static_cast<double>(__half2float(a)), __half2float(b), __half2float(c)));
}
static __forceinline__ __half opgen_hsat(const __half a) {
  if (opgen_hnan(a)) return opgen_hmake(0);
  const float f = __half2float(a);
  return f < 0.0f ? opgen_hmake(0) : f > 1.0f ? opgen_hmake(0x3C00u) : a;
}
static __forceinline__ __half __hadd_sat(const __half a, const __half b) { return opgen_hsat(__hadd(a, b)); }
static __forceinline__ __half __hsub_sat(const __half a, const __half b) { return opgen_hsat(__hsub(a, b)); }
static __forceinline__ __half __hmul_sat(const __half a, const __half b) { return opgen_hsat(__hmul(a, b)); }
static __forceinline__ __half __hfma_sat(const __half a, const __half b, const __half c) { return opgen_hsat(__hfma(a, b, c)); }
static __forceinline__ __half __hfma_relu(const __half a, const __half b, const __half c) {
  const __half r = __hfma(a, b, c);
  return opgen_hnan(r) ? opgen_hmake(0x7FFFu) : __half2float(r) < 0.0f ? opgen_hmake(0) : r;
}

// ------------------------------------------------------------- comparison --
#define OPGEN_HCMP(NAME, OP)                                                                           \
  static __forceinline__ bool NAME(const __half a, const __half b) { return __half2float(a) OP __half2float(b); } \
  static __forceinline__ bool NAME##u(const __half a, const __half b) {                                \
    return opgen_hnan(a) || opgen_hnan(b) || (__half2float(a) OP __half2float(b));                     \
  }
OPGEN_HCMP(__heq, ==)
OPGEN_HCMP(__hlt, <)
OPGEN_HCMP(__hle, <=)
OPGEN_HCMP(__hgt, >)
OPGEN_HCMP(__hge, >=)
#undef OPGEN_HCMP
static __forceinline__ bool __hne(const __half a, const __half b) { return !opgen_hnan(a) && !opgen_hnan(b) && __half2float(a) != __half2float(b); }
static __forceinline__ bool __hneu(const __half a, const __half b) { return __half2float(a) != __half2float(b); }
static __forceinline__ bool __hisnan(const __half a) { return opgen_hnan(a); }
static __forceinline__ int __hisinf(const __half a) {
  return opgen_hbits(a) == 0x7C00u ? 1 : opgen_hbits(a) == 0xFC00u ? -1 : 0;
}
static __forceinline__ __half __hmax(const __half a, const __half b) { return __float2half(fmaxf(__half2float(a), __half2float(b))); }
static __forceinline__ __half __hmin(const __half a, const __half b) { return __float2half(fminf(__half2float(a), __half2float(b))); }
static __forceinline__ __half __hmax_nan(const __half a, const __half b) {
  return opgen_hnan(a) || opgen_hnan(b) ? opgen_hmake(0x7FFFu) : __hmax(a, b);
}
static __forceinline__ __half __hmin_nan(const __half a, const __half b) {
  return opgen_hnan(a) || opgen_hnan(b) ? opgen_hmake(0x7FFFu) : __hmin(a, b);
}

// ------------------------------------------------------------------- math --
#define OPGEN_HMATH(NAME, NAME2, EXPR)                                                                 \
  static __forceinline__ __half NAME(const __half a) { const float x = __half2float(a); return __float2half(EXPR); } \
  static __forceinline__ __half2 NAME2(const __half2 a) { return __half2(NAME(a.x), NAME(a.y)); }
OPGEN_HMATH(hsqrt, h2sqrt, sqrtf(x))
OPGEN_HMATH(hrsqrt, h2rsqrt, 1.0f / sqrtf(x))
OPGEN_HMATH(hrcp, h2rcp, 1.0f / x)
OPGEN_HMATH(hexp, h2exp, expf(x))
OPGEN_HMATH(hexp2, h2exp2, exp2f(x))
OPGEN_HMATH(hexp10, h2exp10, exp10f(x))
OPGEN_HMATH(hlog, h2log, logf(x))
OPGEN_HMATH(hlog2, h2log2, log2f(x))
OPGEN_HMATH(hlog10, h2log10, log10f(x))
OPGEN_HMATH(hsin, h2sin, sinf(x))
OPGEN_HMATH(hcos, h2cos, cosf(x))
OPGEN_HMATH(htanh, h2tanh, tanhf(x))
OPGEN_HMATH(hceil, h2ceil, ceilf(x))
OPGEN_HMATH(hfloor, h2floor, floorf(x))
OPGEN_HMATH(htrunc, h2trunc, truncf(x))
OPGEN_HMATH(hrint, h2rint, nearbyintf(x))
#undef OPGEN_HMATH

// --------------------------------------------------------- half2 lanewise --
static __forceinline__ __half2 __hadd2(const __half2 a, const __half2 b) { return __half2(__hadd(a.x, b.x), __hadd(a.y, b.y)); }
static __forceinline__ __half2 __hsub2(const __half2 a, const __half2 b) { return __half2(__hsub(a.x, b.x), __hsub(a.y, b.y)); }
static __forceinline__ __half2 __hmul2(const __half2 a, const __half2 b) { return __half2(__hmul(a.x, b.x), __hmul(a.y, b.y)); }
static __forceinline__ __half2 __h2div(const __half2 a, const __half2 b) { return __half2(__hdiv(a.x, b.x), __hdiv(a.y, b.y)); }
static __forceinline__ __half2 __hneg2(const __half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }
static __forceinline__ __half2 __habs2(const __half2 a) { return __half2(__habs(a.x), __habs(a.y)); }
static __forceinline__ __half2 __hfma2(const __half2 a, const __half2 b, const __half2 c) {
  return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
static __forceinline__ __half2 __hmax2(const __half2 a, const __half2 b) { return __half2(__hmax(a.x, b.x), __hmax(a.y, b.y)); }
static __forceinline__ __half2 __hmin2(const __half2 a, const __half2 b) { return __half2(__hmin(a.x, b.x), __hmin(a.y, b.y)); }
static __forceinline__ bool __hbeq2(const __half2 a, const __half2 b) { return __heq(a.x, b.x) && __heq(a.y, b.y); }
static __forceinline__ bool __hbne2(const __half2 a, const __half2 b) { return __hne(a.x, b.x) && __hne(a.y, b.y); }
static __forceinline__ bool __hblt2(const __half2 a, const __half2 b) { return __hlt(a.x, b.x) && __hlt(a.y, b.y); }
static __forceinline__ bool __hble2(const __half2 a, const __half2 b) { return __hle(a.x, b.x) && __hle(a.y, b.y); }
static __forceinline__ bool __hbgt2(const __half2 a, const __half2 b) { return __hgt(a.x, b.x) && __hgt(a.y, b.y); }
static __forceinline__ bool __hbge2(const __half2 a, const __half2 b) { return __hge(a.x, b.x) && __hge(a.y, b.y); }

// -------------------------------------------------------------- operators --
static __forceinline__ __half operator+(const __half& a, const __half& b) { return __hadd(a, b); }
static __forceinline__ __half operator-(const __half& a, const __half& b) { return __hsub(a, b); }
static __forceinline__ __half operator*(const __half& a, const __half& b) { return __hmul(a, b); }
static __forceinline__ __half operator/(const __half& a, const __half& b) { return __hdiv(a, b); }
static __forceinline__ __half& operator+=(__half& a, const __half& b) { return a = __hadd(a, b); }
static __forceinline__ __half& operator-=(__half& a, const __half& b) { return a = __hsub(a, b); }
static __forceinline__ __half& operator*=(__half& a, const __half& b) { return a = __hmul(a, b); }
static __forceinline__ __half& operator/=(__half& a, const __half& b) { return a = __hdiv(a, b); }
static __forceinline__ __half& operator++(__half& h) { return h = __hadd(h, opgen_hmake(0x3C00u)); }
static __forceinline__ __half& operator--(__half& h) { return h = __hsub(h, opgen_hmake(0x3C00u)); }
static __forceinline__ __half operator++(__half& h, const int) { const __half r = h; ++h; return r; }
static __forceinline__ __half operator--(__half& h, const int) { const __half r = h; --h; return r; }
static __forceinline__ __half operator+(const __half& h) { return h; }
static __forceinline__ __half operator-(const __half& h) { return __hneg(h); }
static __forceinline__ bool operator==(const __half& a, const __half& b) { return __heq(a, b); }
static __forceinline__ bool operator!=(const __half& a, const __half& b) { return __hneu(a, b); }
static __forceinline__ bool operator>(const __half& a, const __half& b) { return __hgt(a, b); }
static __forceinline__ bool operator<(const __half& a, const __half& b) { return __hlt(a, b); }
static __forceinline__ bool operator>=(const __half& a, const __half& b) { return __hge(a, b); }
static __forceinline__ bool operator<=(const __half& a, const __half& b) { return __hle(a, b); }
static __forceinline__ __half2 operator+(const __half2& a, const __half2& b) { return __hadd2(a, b); }
static __forceinline__ __half2 operator-(const __half2& a, const __half2& b) { return __hsub2(a, b); }
static __forceinline__ __half2 operator*(const __half2& a, const __half2& b) { return __hmul2(a, b); }
static __forceinline__ __half2 operator/(const __half2& a, const __half2& b) { return __h2div(a, b); }
static __forceinline__ __half2& operator+=(__half2& a, const __half2& b) { return a = __hadd2(a, b); }
static __forceinline__ __half2& operator-=(__half2& a, const __half2& b) { return a = __hsub2(a, b); }
static __forceinline__ __half2& operator*=(__half2& a, const __half2& b) { return a = __hmul2(a, b); }
static __forceinline__ __half2& operator/=(__half2& a, const __half2& b) { return a = __h2div(a, b); }
static __forceinline__ __half2 operator+(const __half2& h) { return h; }
static __forceinline__ __half2 operator-(const __half2& h) { return __hneg2(h); }
static __forceinline__ bool operator==(const __half2& a, const __half2& b) { return __hbeq2(a, b); }
static __forceinline__ bool operator!=(const __half2& a, const __half2& b) { return !__hbeq2(a, b); }

// ------------------------------------------------- warp exchange, atomics --
#define OPGEN_HSHFL(T)                                                                                         \
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
OPGEN_HSHFL(__half)
OPGEN_HSHFL(__half2)
#undef OPGEN_HSHFL

static __forceinline__ __half atomicAdd(__half* const p, const __half v) {
  return opgen_atomic_update<__half, unsigned short>(p, [v](__half a) { return __hadd(a, v); });
}
static __forceinline__ __half2 atomicAdd(__half2* const p, const __half2 v) {
  return opgen_atomic_update<__half2, uint32_t>(p, [v](__half2 a) { return __hadd2(a, v); });
}

#define CUDART_INF_FP16 __ushort_as_half((unsigned short)0x7C00U)
#define CUDART_NAN_FP16 __ushort_as_half((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_FP16 __ushort_as_half((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_FP16 __ushort_as_half((unsigned short)0x7BFFU)
#define CUDART_NEG_ZERO_FP16 __ushort_as_half((unsigned short)0x8000U)
#define CUDART_ZERO_FP16 __ushort_as_half((unsigned short)0x0000U)
#define CUDART_ONE_FP16 __ushort_as_half((unsigned short)0x3C00U)

#endif  // OPGEN_CUDA_FP16_H
