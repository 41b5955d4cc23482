// CUDA device-code emulation for the host (g++) backend. Force-included
// (-include) in front of unchanged .cu kernel sources; see README.md.
// Kept lean on purpose: every module compile pays for what is included here.
#ifndef OPGEN_CUDA_EMU_H
#define OPGEN_CUDA_EMU_H

#define OPGEN_HOST_EMU 1  // lets a kernel source detect this backend (no __CUDA_ARCH__ here)

#include <math.h>  // libstdc++'s math.h: float overloads (expf and exp(float)) in the global namespace
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "opgen_emu_abi.h"

#pragma GCC diagnostic ignored "-Wunknown-pragmas"  // #pragma unroll

// ---------------------------------------------------------------- keywords --
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __grid_constant__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__  // empty: libstdc++ spells __attribute__((__noinline__)) itself
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __device_builtin__
#define __builtin_align__(n) __attribute__((aligned(n)))
// A block runs entirely on one OS thread, so thread_local storage is exactly
// "one copy per running block". Shared memory is poisoned at block start.
#ifdef OPGEN_SANITIZE
// Each variable on a 4 KiB boundary of its own: an overflow lands in the gap after it (reported)
// rather than in a neighbouring variable.
#define __shared__ thread_local __attribute__((aligned(4096)))
#else
#define __shared__ thread_local
#endif

// ------------------------------------------------- built-in variables -----
// Set by the runtime before a fiber runs; restored after every yield point.
static const opgen_rt_api* opgen_rt_;
static thread_local const opgen_thread_ctx* opgen_cur_;

#define threadIdx (opgen_cur_->thread_idx)
#define blockIdx (opgen_cur_->block_idx)
#define blockDim (opgen_cur_->block_dim)
#define gridDim (opgen_cur_->grid_dim)
#define warpSize 32

// Param kind for the launch-time argument check; cuda_fp16.h/cuda_bf16.h specialise it.
template <class T>
struct opgen_param_kind {
  static constexpr unsigned value = 0;
};

// ------------------------------------------------------------ vector types --
#define OPGEN_VEC_124(T, N, A2, A4)                                                                    \
  struct N##1 { T x; };                                                                                \
  struct __attribute__((aligned(A2))) N##2 { T x, y; };                                                \
  struct __attribute__((aligned(A4))) N##4 { T x, y, z, w; };                                          \
  static __forceinline__ N##1 make_##N##1(T x) { N##1 r; r.x = x; return r; }                         \
  static __forceinline__ N##2 make_##N##2(T x, T y) { N##2 r; r.x = x; r.y = y; return r; }           \
  static __forceinline__ N##4 make_##N##4(T x, T y, T z, T w) {                                        \
    N##4 r; r.x = x; r.y = y; r.z = z; r.w = w; return r;                                              \
  }
#define OPGEN_VEC_3(T, N) struct N##3 { T x, y, z; };
#define OPGEN_MAKE_3(T, N) \
  static __forceinline__ N##3 make_##N##3(T x, T y, T z) { N##3 r; r.x = x; r.y = y; r.z = z; return r; }
OPGEN_VEC_124(signed char, char, 2, 4) OPGEN_VEC_3(signed char, char) OPGEN_MAKE_3(signed char, char)
OPGEN_VEC_124(unsigned char, uchar, 2, 4) OPGEN_VEC_3(unsigned char, uchar) OPGEN_MAKE_3(unsigned char, uchar)
OPGEN_VEC_124(short, short, 4, 8) OPGEN_VEC_3(short, short) OPGEN_MAKE_3(short, short)
OPGEN_VEC_124(unsigned short, ushort, 4, 8) OPGEN_VEC_3(unsigned short, ushort) OPGEN_MAKE_3(unsigned short, ushort)
OPGEN_VEC_124(int, int, 8, 16) OPGEN_VEC_3(int, int) OPGEN_MAKE_3(int, int)
OPGEN_VEC_124(unsigned int, uint, 8, 16) OPGEN_MAKE_3(unsigned int, uint)  // uint3: opgen_emu_abi.h
OPGEN_VEC_124(long, long, 16, 16) OPGEN_VEC_3(long, long) OPGEN_MAKE_3(long, long)
OPGEN_VEC_124(unsigned long, ulong, 16, 16) OPGEN_VEC_3(unsigned long, ulong) OPGEN_MAKE_3(unsigned long, ulong)
OPGEN_VEC_124(long long, longlong, 16, 16) OPGEN_VEC_3(long long, longlong) OPGEN_MAKE_3(long long, longlong)
OPGEN_VEC_124(unsigned long long, ulonglong, 16, 16) OPGEN_VEC_3(unsigned long long, ulonglong)
OPGEN_MAKE_3(unsigned long long, ulonglong)
OPGEN_VEC_124(float, float, 8, 16) OPGEN_VEC_3(float, float) OPGEN_MAKE_3(float, float)
OPGEN_VEC_124(double, double, 16, 16) OPGEN_VEC_3(double, double) OPGEN_MAKE_3(double, double)
#undef OPGEN_VEC_124
#undef OPGEN_VEC_3
#undef OPGEN_MAKE_3

// ------------------------------------------------------- errors / assert ---
[[noreturn]] static inline __attribute__((noinline)) void __trap() {
  opgen_rt_->fail(opgen_cur_, "__trap() called");
  __builtin_unreachable();
}
[[noreturn]] static inline void __brkpt() {
  opgen_rt_->fail(opgen_cur_, "__brkpt() called");
  __builtin_unreachable();
}
[[noreturn]] static __attribute__((noinline, unused)) void opgen_assert_fail(const char* expr, const char* file,
                                                                   unsigned line, const char* func) {
  char msg[512];
  snprintf(msg, sizeof msg, "assertion `%s' failed at %s:%u in %s()", expr, file, line, func);
  opgen_rt_->fail(opgen_cur_, msg);
  __builtin_unreachable();
}
#include "include/assert.h"  // assert() -> opgen_assert_fail (also what <assert.h> resolves to)

// ------------------------------------------------------ synchronisation ---
// Every call that may switch fibers re-reads opgen_cur_ afterwards: other
// fibers of this OS thread changed it while this one was suspended.
// OPGEN_FENCE: a full compiler barrier. __shared__ statics never have their
// address taken, so GCC may assume an opaque call cannot touch them and move
// loads/stores across it; other fibers do touch them during the call.
#define OPGEN_FENCE() asm volatile("" ::: "memory")
// The barrier's call site (default arguments are evaluated where __syncthreads() is written) lets
// the runtime report threads that meet at different barriers.
#define OPGEN_SITE const char* opgen_file = __builtin_FILE(), int opgen_line = __builtin_LINE()
static __forceinline__ int opgen_sync(int kind, int pred, const char* file, int line) {
  const opgen_thread_ctx* me = opgen_cur_;
  OPGEN_FENCE();
  const int r = opgen_rt_->sync_block(me, kind, pred, file, line);
  OPGEN_FENCE();
  opgen_cur_ = me;
  return r;
}
static __forceinline__ void __syncthreads(OPGEN_SITE) { opgen_sync(OPGEN_SYNC_PLAIN, 0, opgen_file, opgen_line); }
static __forceinline__ int __syncthreads_count(int p, OPGEN_SITE) {
  return opgen_sync(OPGEN_SYNC_COUNT, p != 0, opgen_file, opgen_line);
}
static __forceinline__ int __syncthreads_and(int p, OPGEN_SITE) {
  return opgen_sync(OPGEN_SYNC_AND, p != 0, opgen_file, opgen_line);
}
static __forceinline__ int __syncthreads_or(int p, OPGEN_SITE) {
  return opgen_sync(OPGEN_SYNC_OR, p != 0, opgen_file, opgen_line);
}
#undef OPGEN_SITE
static __forceinline__ void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static __forceinline__ void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static __forceinline__ void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

static __forceinline__ uint64_t opgen_warp(int op, unsigned mask, uint64_t v, int arg, int width) {
  const opgen_thread_ctx* me = opgen_cur_;
  OPGEN_FENCE();
  const uint64_t r = opgen_rt_->warp_op(me, op, mask, v, arg, width);
  OPGEN_FENCE();
  opgen_cur_ = me;
  return r;
}
template <class T>
static __forceinline__ uint64_t opgen_bits(T v) {
  uint64_t b = 0;
  memcpy(&b, static_cast<const void*>(&v), sizeof(T));
  return b;
}
template <class T>
static __forceinline__ T opgen_from_bits(uint64_t b) {
  T v;
  memcpy(static_cast<void*>(&v), &b, sizeof(T));
  return v;
}

static __forceinline__ void __syncwarp(unsigned mask = 0xFFFFFFFFu) { opgen_warp(OPGEN_W_SYNC, mask, 0, 0, 32); }
static __forceinline__ unsigned __activemask() { return opgen_rt_->active_mask(opgen_cur_); }
static __forceinline__ unsigned __ballot_sync(unsigned mask, int pred) {
  return static_cast<unsigned>(opgen_warp(OPGEN_W_BALLOT, mask, pred != 0, 0, 32));
}
static __forceinline__ int __any_sync(unsigned mask, int pred) {
  return static_cast<int>(opgen_warp(OPGEN_W_ANY, mask, pred != 0, 0, 32));
}
static __forceinline__ int __all_sync(unsigned mask, int pred) {
  return static_cast<int>(opgen_warp(OPGEN_W_ALL, mask, pred != 0, 0, 32));
}

// Same overload set as CUDA's sm_30_intrinsics.h (so the same calls resolve).
#define OPGEN_SHFL(T)                                                                                        \
  static __forceinline__ T __shfl_sync(unsigned m, T v, int src, int w = warpSize) {                       \
    return opgen_from_bits<T>(opgen_warp(OPGEN_W_SHFL_IDX, m, opgen_bits(v), src, w));                      \
  }                                                                                                         \
  static __forceinline__ T __shfl_up_sync(unsigned m, T v, unsigned d, int w = warpSize) {                 \
    return opgen_from_bits<T>(opgen_warp(OPGEN_W_SHFL_UP, m, opgen_bits(v), static_cast<int>(d), w));       \
  }                                                                                                         \
  static __forceinline__ T __shfl_down_sync(unsigned m, T v, unsigned d, int w = warpSize) {               \
    return opgen_from_bits<T>(opgen_warp(OPGEN_W_SHFL_DOWN, m, opgen_bits(v), static_cast<int>(d), w));     \
  }                                                                                                         \
  static __forceinline__ T __shfl_xor_sync(unsigned m, T v, int lm, int w = warpSize) {                    \
    return opgen_from_bits<T>(opgen_warp(OPGEN_W_SHFL_XOR, m, opgen_bits(v), lm, w));                       \
  }                                                                                                         \
  static __forceinline__ unsigned __match_any_sync(unsigned m, T v) {                                      \
    return static_cast<unsigned>(opgen_warp(OPGEN_W_MATCH_ANY, m, opgen_bits(v), 0, 32));                  \
  }                                                                                                         \
  static __forceinline__ unsigned __match_all_sync(unsigned m, T v, int* pred) {                           \
    const unsigned r = static_cast<unsigned>(opgen_warp(OPGEN_W_MATCH_ALL, m, opgen_bits(v), 0, 32));      \
    *pred = r != 0;                                                                                         \
    return r;                                                                                               \
  }
OPGEN_SHFL(int)
OPGEN_SHFL(unsigned int)
OPGEN_SHFL(long)
OPGEN_SHFL(unsigned long)
OPGEN_SHFL(long long)
OPGEN_SHFL(unsigned long long)
OPGEN_SHFL(float)
OPGEN_SHFL(double)

#define OPGEN_WREDUCE(NAME, T, OP)                                                       \
  static __forceinline__ T NAME(unsigned m, T v) {                                     \
    return static_cast<T>(opgen_warp(OP, m, static_cast<uint32_t>(v), 0, 32));         \
  }
OPGEN_WREDUCE(__reduce_add_sync, unsigned, OPGEN_W_REDUCE_ADD)
OPGEN_WREDUCE(__reduce_add_sync, int, OPGEN_W_REDUCE_ADD)
OPGEN_WREDUCE(__reduce_min_sync, unsigned, OPGEN_W_REDUCE_MIN_U)
OPGEN_WREDUCE(__reduce_min_sync, int, OPGEN_W_REDUCE_MIN_S)
OPGEN_WREDUCE(__reduce_max_sync, unsigned, OPGEN_W_REDUCE_MAX_U)
OPGEN_WREDUCE(__reduce_max_sync, int, OPGEN_W_REDUCE_MAX_S)
OPGEN_WREDUCE(__reduce_and_sync, unsigned, OPGEN_W_REDUCE_AND)
OPGEN_WREDUCE(__reduce_or_sync, unsigned, OPGEN_W_REDUCE_OR)
OPGEN_WREDUCE(__reduce_xor_sync, unsigned, OPGEN_W_REDUCE_XOR)

// ---------------------------------------------------------------- atomics --
// Real host atomics: blocks run concurrently on several OS threads. In the sanitize build their
// bodies are not instrumented (atomics never race) and report the access themselves (bounds).
#ifdef OPGEN_SANITIZE
static void opgen_san_atomic(const void* p, uint64_t n, const void* pc);  // opgen_emu_glue.h
#define OPGEN_ATOMIC_FN static __attribute__((noinline, no_sanitize_thread, unused))
#define OPGEN_ATOMIC_NOTE(p) opgen_san_atomic(p, sizeof(*(p)), __builtin_return_address(0))
#else
#define OPGEN_ATOMIC_FN static __forceinline__
#define OPGEN_ATOMIC_NOTE(p) (void)0
#endif
#define OPGEN_ATOMIC_RMW(NAME, T, BUILTIN) \
  OPGEN_ATOMIC_FN T NAME(T* p, T v) { OPGEN_ATOMIC_NOTE(p); return BUILTIN(p, v, __ATOMIC_RELAXED); }
OPGEN_ATOMIC_RMW(atomicAdd, int, __atomic_fetch_add)
OPGEN_ATOMIC_RMW(atomicAdd, unsigned int, __atomic_fetch_add)
OPGEN_ATOMIC_RMW(atomicAdd, unsigned long long, __atomic_fetch_add)
OPGEN_ATOMIC_RMW(atomicSub, int, __atomic_fetch_sub)
OPGEN_ATOMIC_RMW(atomicSub, unsigned int, __atomic_fetch_sub)
OPGEN_ATOMIC_RMW(atomicExch, int, __atomic_exchange_n)
OPGEN_ATOMIC_RMW(atomicExch, unsigned int, __atomic_exchange_n)
OPGEN_ATOMIC_RMW(atomicExch, unsigned long long, __atomic_exchange_n)
OPGEN_ATOMIC_RMW(atomicAnd, int, __atomic_fetch_and)
OPGEN_ATOMIC_RMW(atomicAnd, unsigned int, __atomic_fetch_and)
OPGEN_ATOMIC_RMW(atomicAnd, unsigned long long, __atomic_fetch_and)
OPGEN_ATOMIC_RMW(atomicOr, int, __atomic_fetch_or)
OPGEN_ATOMIC_RMW(atomicOr, unsigned int, __atomic_fetch_or)
OPGEN_ATOMIC_RMW(atomicOr, unsigned long long, __atomic_fetch_or)
OPGEN_ATOMIC_RMW(atomicXor, int, __atomic_fetch_xor)
OPGEN_ATOMIC_RMW(atomicXor, unsigned int, __atomic_fetch_xor)
OPGEN_ATOMIC_RMW(atomicXor, unsigned long long, __atomic_fetch_xor)
#undef OPGEN_ATOMIC_RMW

#define OPGEN_ATOMIC_CAS(T)                                                                  \
  OPGEN_ATOMIC_FN T atomicCAS(T* p, T compare, T val) {                                    \
    OPGEN_ATOMIC_NOTE(p);                                                                    \
    __atomic_compare_exchange_n(p, &compare, val, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
    return compare;                                                                          \
  }
OPGEN_ATOMIC_CAS(int)
OPGEN_ATOMIC_CAS(unsigned int)
OPGEN_ATOMIC_CAS(unsigned long long)
OPGEN_ATOMIC_CAS(unsigned short)
#undef OPGEN_ATOMIC_CAS

// Read-modify-write of any trivially copyable T through a CAS loop on its bits.
template <class T, class U, class F>
OPGEN_ATOMIC_FN T opgen_atomic_update(T* p, F f) {
  OPGEN_ATOMIC_NOTE(p);
  U* q = reinterpret_cast<U*>(p);
  U old = __atomic_load_n(q, __ATOMIC_RELAXED);
  for (;;) {
    T cur;
    memcpy(static_cast<void*>(&cur), &old, sizeof(T));
    const T nv = f(cur);
    U nb;
    memcpy(&nb, static_cast<const void*>(&nv), sizeof(T));
    if (__atomic_compare_exchange_n(q, &old, nb, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return cur;
  }
}
static __forceinline__ float atomicAdd(float* p, float v) {
  return opgen_atomic_update<float, uint32_t>(p, [v](float a) { return a + v; });
}
static __forceinline__ double atomicAdd(double* p, double v) {
  return opgen_atomic_update<double, uint64_t>(p, [v](double a) { return a + v; });
}
static __forceinline__ float atomicExch(float* p, float v) {
  return opgen_atomic_update<float, uint32_t>(p, [v](float) { return v; });
}
#define OPGEN_ATOMIC_MINMAX(T, U)                                                                  \
  static __forceinline__ T atomicMin(T* p, T v) {                                                \
    return opgen_atomic_update<T, U>(p, [v](T a) { return v < a ? v : a; });                      \
  }                                                                                                \
  static __forceinline__ T atomicMax(T* p, T v) {                                                \
    return opgen_atomic_update<T, U>(p, [v](T a) { return v > a ? v : a; });                      \
  }
OPGEN_ATOMIC_MINMAX(int, uint32_t)
OPGEN_ATOMIC_MINMAX(unsigned int, uint32_t)
OPGEN_ATOMIC_MINMAX(long long, uint64_t)
OPGEN_ATOMIC_MINMAX(unsigned long long, uint64_t)
#undef OPGEN_ATOMIC_MINMAX
static __forceinline__ unsigned atomicInc(unsigned* p, unsigned lim) {
  return opgen_atomic_update<unsigned, uint32_t>(p, [lim](unsigned a) { return a >= lim ? 0u : a + 1; });
}
static __forceinline__ unsigned atomicDec(unsigned* p, unsigned lim) {
  return opgen_atomic_update<unsigned, uint32_t>(p, [lim](unsigned a) { return (a == 0 || a > lim) ? lim : a - 1; });
}
// Scoped variants: on the host every atomic is device/system wide anyway.
#define OPGEN_ATOMIC_SCOPES(NAME)                                                                        \
  template <class... A>                                                                                  \
  static __forceinline__ auto NAME##_block(A... a) -> decltype(NAME(a...)) { return NAME(a...); }       \
  template <class... A>                                                                                  \
  static __forceinline__ auto NAME##_system(A... a) -> decltype(NAME(a...)) { return NAME(a...); }
OPGEN_ATOMIC_SCOPES(atomicAdd)
OPGEN_ATOMIC_SCOPES(atomicSub)
OPGEN_ATOMIC_SCOPES(atomicExch)
OPGEN_ATOMIC_SCOPES(atomicMin)
OPGEN_ATOMIC_SCOPES(atomicMax)
OPGEN_ATOMIC_SCOPES(atomicInc)
OPGEN_ATOMIC_SCOPES(atomicDec)
OPGEN_ATOMIC_SCOPES(atomicCAS)
OPGEN_ATOMIC_SCOPES(atomicAnd)
OPGEN_ATOMIC_SCOPES(atomicOr)
OPGEN_ATOMIC_SCOPES(atomicXor)
#undef OPGEN_ATOMIC_SCOPES

// ------------------------------------------------------ memory intrinsics --
template <class T> static __forceinline__ T __ldg(const T* p) { return *p; }
template <class T> static __forceinline__ T __ldcg(const T* p) { return *p; }
template <class T> static __forceinline__ T __ldca(const T* p) { return *p; }
template <class T> static __forceinline__ T __ldcs(const T* p) { return *p; }
template <class T> static __forceinline__ T __ldlu(const T* p) { return *p; }
template <class T> static __forceinline__ T __ldcv(const T* p) { return *p; }
template <class T> static __forceinline__ void __stwb(T* p, T v) { *p = v; }
template <class T> static __forceinline__ void __stcg(T* p, T v) { *p = v; }
template <class T> static __forceinline__ void __stcs(T* p, T v) { *p = v; }
template <class T> static __forceinline__ void __stwt(T* p, T v) { *p = v; }

static __forceinline__ long long clock64() {
#if defined(__x86_64__)
  return static_cast<long long>(__builtin_ia32_rdtsc());
#else
  return static_cast<long long>(clock());
#endif
}
static __forceinline__ void __nanosleep(unsigned) {}

// ---------------------------------------------------------- integer math ---
// min/max: CUDA's overload set (math_functions.hpp), including mixed signedness.
#define OPGEN_MINMAX(R, A, B)                                                                              \
  static __forceinline__ R min(const A a, const B b) { return static_cast<R>(a) < static_cast<R>(b) ? static_cast<R>(a) : static_cast<R>(b); } \
  static __forceinline__ R max(const A a, const B b) { return static_cast<R>(a) > static_cast<R>(b) ? static_cast<R>(a) : static_cast<R>(b); }
OPGEN_MINMAX(int, int, int)
OPGEN_MINMAX(unsigned int, unsigned int, unsigned int)
OPGEN_MINMAX(unsigned int, int, unsigned int)
OPGEN_MINMAX(unsigned int, unsigned int, int)
OPGEN_MINMAX(long, long, long)
OPGEN_MINMAX(unsigned long, unsigned long, unsigned long)
OPGEN_MINMAX(unsigned long, long, unsigned long)
OPGEN_MINMAX(unsigned long, unsigned long, long)
OPGEN_MINMAX(long long, long long, long long)
OPGEN_MINMAX(unsigned long long, unsigned long long, unsigned long long)
OPGEN_MINMAX(unsigned long long, long long, unsigned long long)
OPGEN_MINMAX(unsigned long long, unsigned long long, long long)
#undef OPGEN_MINMAX
static __forceinline__ float min(const float a, const float b) { return fminf(a, b); }
static __forceinline__ float max(const float a, const float b) { return fmaxf(a, b); }
static __forceinline__ double min(const double a, const double b) { return fmin(a, b); }
static __forceinline__ double max(const double a, const double b) { return fmax(a, b); }
static __forceinline__ double min(const float a, const double b) { return fmin(a, b); }
static __forceinline__ double max(const float a, const double b) { return fmax(a, b); }
static __forceinline__ double min(const double a, const float b) { return fmin(a, b); }
static __forceinline__ double max(const double a, const float b) { return fmax(a, b); }
static __forceinline__ unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
static __forceinline__ unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
static __forceinline__ long long llmin(long long a, long long b) { return a < b ? a : b; }
static __forceinline__ long long llmax(long long a, long long b) { return a > b ? a : b; }
static __forceinline__ unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static __forceinline__ unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

static __forceinline__ int __popc(unsigned int x) { return __builtin_popcount(x); }
static __forceinline__ int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static __forceinline__ int __clz(int x) { return x ? __builtin_clz(static_cast<unsigned>(x)) : 32; }
static __forceinline__ int __clzll(long long x) { return x ? __builtin_clzll(static_cast<unsigned long long>(x)) : 64; }
static __forceinline__ int __ffs(int x) { return __builtin_ffs(x); }
static __forceinline__ int __ffsll(long long x) { return __builtin_ffsll(x); }
static __forceinline__ unsigned int __brev(unsigned int x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
  return __builtin_bswap32(x);
}
static __forceinline__ unsigned long long __brevll(unsigned long long x) {
  return (static_cast<unsigned long long>(__brev(static_cast<unsigned>(x))) << 32) | __brev(static_cast<unsigned>(x >> 32));
}
static __forceinline__ unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  const unsigned long long v = (static_cast<unsigned long long>(y) << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= static_cast<unsigned>((v >> (8 * ((s >> (4 * i)) & 7))) & 0xFF) << (8 * i);
  return r;
}
static __forceinline__ unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int s) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>((v << (s & 31)) >> 32);
}
static __forceinline__ unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int s) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>((v << (s > 32 ? 32 : s)) >> 32);
}
static __forceinline__ unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int s) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>(v >> (s & 31));
}
static __forceinline__ unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int s) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>(v >> (s > 32 ? 32 : s));
}
static __forceinline__ int __mulhi(int a, int b) { return static_cast<int>((static_cast<long long>(a) * b) >> 32); }
static __forceinline__ unsigned int __umulhi(unsigned int a, unsigned int b) {
  return static_cast<unsigned>((static_cast<unsigned long long>(a) * b) >> 32);
}
static __forceinline__ long long __mul64hi(long long a, long long b) {
  return static_cast<long long>((static_cast<__int128>(a) * b) >> 64);
}
static __forceinline__ unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
static __forceinline__ int __mul24(int a, int b) { return ((a << 8) >> 8) * ((b << 8) >> 8); }
static __forceinline__ unsigned int __umul24(unsigned int a, unsigned int b) { return (a & 0xFFFFFFu) * (b & 0xFFFFFFu); }
static __forceinline__ int __hadd(int a, int b) { return static_cast<int>((static_cast<long long>(a) + b) >> 1); }
static __forceinline__ int __rhadd(int a, int b) { return static_cast<int>((static_cast<long long>(a) + b + 1) >> 1); }
static __forceinline__ unsigned int __uhadd(unsigned int a, unsigned int b) {
  return static_cast<unsigned>((static_cast<unsigned long long>(a) + b) >> 1);
}
static __forceinline__ unsigned int __urhadd(unsigned int a, unsigned int b) {
  return static_cast<unsigned>((static_cast<unsigned long long>(a) + b + 1) >> 1);
}
static __forceinline__ unsigned int __sad(int a, int b, unsigned int c) {
  return c + static_cast<unsigned>(a > b ? static_cast<long long>(a) - b : static_cast<long long>(b) - a);
}
static __forceinline__ unsigned int __usad(unsigned int a, unsigned int b, unsigned int c) { return c + (a > b ? a - b : b - a); }

// ------------------------------------------------------- bit reinterprets --
static __forceinline__ int __float_as_int(float x) { return opgen_from_bits<int>(opgen_bits(x)); }
static __forceinline__ unsigned int __float_as_uint(float x) { return opgen_from_bits<unsigned>(opgen_bits(x)); }
static __forceinline__ float __int_as_float(int x) { return opgen_from_bits<float>(opgen_bits(x)); }
static __forceinline__ float __uint_as_float(unsigned int x) { return opgen_from_bits<float>(opgen_bits(x)); }
static __forceinline__ long long __double_as_longlong(double x) { return opgen_from_bits<long long>(opgen_bits(x)); }
static __forceinline__ double __longlong_as_double(long long x) { return opgen_from_bits<double>(opgen_bits(x)); }
static __forceinline__ int __double2hiint(double x) { return static_cast<int>(opgen_bits(x) >> 32); }
static __forceinline__ int __double2loint(double x) { return static_cast<int>(opgen_bits(x)); }
static __forceinline__ double __hiloint2double(int hi, int lo) {
  return opgen_from_bits<double>((static_cast<uint64_t>(static_cast<uint32_t>(hi)) << 32) | static_cast<uint32_t>(lo));
}

// ------------------------------------------------------ float conversions --
// CUDA's cvt saturates out-of-range values and maps NaN to 0 (C casts are UB there).
template <class I>
static __forceinline__ I opgen_sat_cast(double v, double lo, double hi) {
  if (v != v) return 0;
  if (v <= lo) return static_cast<I>(lo);
  if (v >= hi) return static_cast<I>(hi);
  return static_cast<I>(v);
}
#define OPGEN_F2I(SUFFIX, ROUND)                                                                                   \
  static __forceinline__ int __float2int_##SUFFIX(float x) { return opgen_sat_cast<int>(ROUND(x), -2147483648.0, 2147483647.0); } \
  static __forceinline__ unsigned __float2uint_##SUFFIX(float x) { return opgen_sat_cast<unsigned>(ROUND(x), 0.0, 4294967295.0); } \
  static __forceinline__ long long __float2ll_##SUFFIX(float x) {                                                  \
    return opgen_sat_cast<long long>(ROUND(x), -9223372036854775808.0, 9223372036854774784.0);                     \
  }                                                                                                                \
  static __forceinline__ unsigned long long __float2ull_##SUFFIX(float x) {                                       \
    return opgen_sat_cast<unsigned long long>(ROUND(x), 0.0, 18446744073709549568.0);                              \
  }                                                                                                                \
  static __forceinline__ int __double2int_##SUFFIX(double x) { return opgen_sat_cast<int>(ROUND(x), -2147483648.0, 2147483647.0); } \
  static __forceinline__ unsigned __double2uint_##SUFFIX(double x) { return opgen_sat_cast<unsigned>(ROUND(x), 0.0, 4294967295.0); } \
  static __forceinline__ long long __double2ll_##SUFFIX(double x) {                                                \
    return opgen_sat_cast<long long>(ROUND(x), -9223372036854775808.0, 9223372036854774784.0);                     \
  }                                                                                                                \
  static __forceinline__ unsigned long long __double2ull_##SUFFIX(double x) {                                     \
    return opgen_sat_cast<unsigned long long>(ROUND(x), 0.0, 18446744073709549568.0);                              \
  }
OPGEN_F2I(rn, nearbyint)
OPGEN_F2I(rz, trunc)
OPGEN_F2I(rd, floor)
OPGEN_F2I(ru, ceil)
#undef OPGEN_F2I
static __forceinline__ float __int2float_rn(int x) { return static_cast<float>(x); }
static __forceinline__ float __uint2float_rn(unsigned x) { return static_cast<float>(x); }
static __forceinline__ float __ll2float_rn(long long x) { return static_cast<float>(x); }
static __forceinline__ float __ull2float_rn(unsigned long long x) { return static_cast<float>(x); }
static __forceinline__ double __int2double_rn(int x) { return x; }
static __forceinline__ double __uint2double_rn(unsigned x) { return x; }
static __forceinline__ double __ll2double_rn(long long x) { return static_cast<double>(x); }
static __forceinline__ double __ull2double_rn(unsigned long long x) { return static_cast<double>(x); }
static __forceinline__ float __double2float_rn(double x) { return static_cast<float>(x); }

// Rounds v to a binary format with `mbits` stored mantissa bits and `ebits`
// exponent bits (half: 10/5, bfloat16: 7/8). mode: 0 nearest-even, 1 toward
// zero, 2 down, 3 up. NaN gives CUDA's canonical 0x7fff. Used by cuda_fp16.h / cuda_bf16.h.
static inline unsigned short opgen_round_small_float(double v, int mbits, int ebits, int mode) {
  const uint64_t u = opgen_bits(v);
  const bool neg = (u >> 63) != 0;
  const unsigned sign = neg ? 1u << (mbits + ebits) : 0u;
  const uint64_t a = u & 0x7FFFFFFFFFFFFFFFull;
  const unsigned expmask = ((1u << ebits) - 1) << mbits;
  if (a > 0x7FF0000000000000ull) return 0x7FFF;
  if (a == 0x7FF0000000000000ull) return static_cast<unsigned short>(sign | expmask);
  if (a == 0) return static_cast<unsigned short>(sign);
  int e = static_cast<int>(a >> 52) - 1023;
  uint64_t m = a & ((1ull << 52) - 1);
  if (e == -1023) e = -1022;  // subnormal double
  else m |= 1ull << 52;
  const int bias = (1 << (ebits - 1)) - 1;
  const int emin = 1 - bias;
  const int shift = 52 + ((e < emin ? emin : e) - mbits) - e;
  uint64_t r, rem, halfway;
  if (shift >= 64) {
    r = 0;
    rem = m;
    halfway = ~0ull;  // m < 2^53 is always below half an ulp here
  } else {
    r = m >> shift;
    rem = m & ((1ull << shift) - 1);
    halfway = 1ull << (shift - 1);
  }
  if (mode == 0) {
    if (rem > halfway || (rem == halfway && (r & 1))) ++r;
  } else if ((mode == 3 && !neg) || (mode == 2 && neg)) {
    if (rem) ++r;
  }
  uint64_t bits = e >= emin ? (static_cast<uint64_t>(e + bias - 1) << mbits) + r : r;
  if (bits >= expmask) {  // overflow: infinity or the largest finite value, by rounding direction
    const bool to_inf = mode == 0 || (mode == 3 && !neg) || (mode == 2 && neg);
    bits = to_inf ? expmask : expmask - 1;
  }
  return static_cast<unsigned short>(sign | bits);
}

// ------------------------------------------------------------ float math ---
// libm supplies the C99 set (expf, log1pf, erff, ...); these are CUDA-only names.
static __forceinline__ float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static __forceinline__ double rsqrt(double x) { return 1.0 / sqrt(x); }
static __forceinline__ float rcbrtf(float x) { return 1.0f / cbrtf(x); }
static __forceinline__ double rcbrt(double x) { return 1.0 / cbrt(x); }
static __forceinline__ float sinpif(float x) { return static_cast<float>(sin(M_PI * static_cast<double>(x))); }
static __forceinline__ float cospif(float x) { return static_cast<float>(cos(M_PI * static_cast<double>(x))); }
static __forceinline__ double sinpi(double x) { return sin(M_PI * x); }
static __forceinline__ double cospi(double x) { return cos(M_PI * x); }
static __forceinline__ void sincospif(float x, float* s, float* c) { *s = sinpif(x); *c = cospif(x); }
static __forceinline__ void sincospi(double x, double* s, double* c) { *s = sinpi(x); *c = cospi(x); }
static __forceinline__ float normcdff(float x) { return 0.5f * erfcf(-x * static_cast<float>(M_SQRT1_2)); }
static __forceinline__ double normcdf(double x) { return 0.5 * erfc(-x * M_SQRT1_2); }
static __forceinline__ float erfcxf(float x) { return static_cast<float>(exp(static_cast<double>(x) * x) * erfc(static_cast<double>(x))); }
static __forceinline__ double erfcx(double x) { return exp(x * x) * erfc(x); }
static inline double erfinv(double y) {
  if (!(y > -1.0 && y < 1.0)) return y == 1.0 ? HUGE_VAL : y == -1.0 ? -HUGE_VAL : NAN;
  // Giles' single-precision approximation, then Newton steps on erf for double accuracy.
  double w = -log((1.0 - y) * (1.0 + y)), x;
  if (w < 5.0) {
    w -= 2.5;
    x = 2.81022636e-08;
    x = 3.43273939e-07 + x * w; x = -3.5233877e-06 + x * w; x = -4.39150654e-06 + x * w;
    x = 0.00021858087 + x * w; x = -0.00125372503 + x * w; x = -0.00417768164 + x * w;
    x = 0.246640727 + x * w; x = 1.50140941 + x * w;
  } else {
    w = sqrt(w) - 3.0;
    x = -0.000200214257;
    x = 0.000100950558 + x * w; x = 0.00134934322 + x * w; x = -0.00367342844 + x * w;
    x = 0.00573950773 + x * w; x = -0.0076224613 + x * w; x = 0.00943887047 + x * w;
    x = 1.00167406 + x * w; x = 2.83297682 + x * w;
  }
  x *= y;
  for (int i = 0; i < 2; ++i) x -= (erf(x) - y) / (M_2_SQRTPI * exp(-x * x));
  return x;
}
static __forceinline__ float erfinvf(float y) { return static_cast<float>(erfinv(y)); }
static __forceinline__ double erfcinv(double y) { return erfinv(1.0 - y); }
static __forceinline__ float erfcinvf(float y) { return static_cast<float>(erfinv(1.0 - static_cast<double>(y))); }
static __forceinline__ float normcdfinvf(float p) { return static_cast<float>(-M_SQRT2 * erfinv(1.0 - 2.0 * p)); }
static __forceinline__ double normcdfinv(double p) { return -M_SQRT2 * erfcinv(2.0 * p); }
static __forceinline__ float rhypotf(float x, float y) { return 1.0f / hypotf(x, y); }
static __forceinline__ float norm3df(float a, float b, float c) { return sqrtf(a * a + b * b + c * c); }
static __forceinline__ float rnorm3df(float a, float b, float c) { return 1.0f / sqrtf(a * a + b * b + c * c); }
static __forceinline__ float fdividef(float a, float b) { return a / b; }
static __forceinline__ float __saturatef(float x) { return x != x ? 0.0f : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
// Fast-math intrinsics: computed at full precision here (GPU results may differ
// by a few ulp). Macros, because glibc already declares these names (unexported).
#define __expf(x) expf(x)
#define __exp10f(x) exp10f(x)
#define __logf(x) logf(x)
#define __log2f(x) log2f(x)
#define __log10f(x) log10f(x)
#define __sinf(x) sinf(x)
#define __cosf(x) cosf(x)
#define __tanf(x) tanf(x)
#define __sincosf(x, s, c) sincosf(x, s, c)
#define __powf(x, y) powf(x, y)
static __forceinline__ float __fdividef(float a, float b) { return a / b; }
static __forceinline__ float __fdiv_rn(float a, float b) { return a / b; }
static __forceinline__ float __frcp_rn(float x) { return 1.0f / x; }
static __forceinline__ float __fsqrt_rn(float x) { return sqrtf(x); }
static __forceinline__ float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
static __forceinline__ float __fadd_rn(float a, float b) { return a + b; }
static __forceinline__ float __fsub_rn(float a, float b) { return a - b; }
static __forceinline__ float __fmul_rn(float a, float b) { return a * b; }
static __forceinline__ float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static __forceinline__ double __dadd_rn(double a, double b) { return a + b; }
static __forceinline__ double __dsub_rn(double a, double b) { return a - b; }
static __forceinline__ double __dmul_rn(double a, double b) { return a * b; }
static __forceinline__ double __ddiv_rn(double a, double b) { return a / b; }
static __forceinline__ double __drcp_rn(double x) { return 1.0 / x; }
static __forceinline__ double __dsqrt_rn(double x) { return sqrt(x); }
static __forceinline__ double __fma_rn(double a, double b, double c) { return fma(a, b, c); }

#endif  // OPGEN_CUDA_EMU_H
