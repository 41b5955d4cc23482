// opgen host backend: per-module glue. codegen/runtime/host/glue.py appends
// `#include "opgen_emu_glue.h"` plus one OPGEN_KERNEL(name) per kernel to the
// end of every kernel source. Not meant to be included by kernel code.
#ifndef OPGEN_EMU_GLUE_H
#define OPGEN_EMU_GLUE_H

#include <link.h>

#include <type_traits>
#include <utility>

#define OPGEN_EXPORT extern "C" __attribute__((visibility("default"))) OPGEN_NOSAN

// Sanitize builds instrument every memory access of the module (see README.md); the glue itself
// is not kernel code and must not be checked.
#ifdef OPGEN_SANITIZE
#define OPGEN_NOSAN __attribute__((no_sanitize_thread))
#else
#define OPGEN_NOSAN
#endif

// ---------------------------------------------------------------- params --
// Parameter kinds reported to Python for argument checking (host/pack.py mirrors these).
enum : unsigned {
  OPGEN_P_POINTER = 1, OPGEN_P_FLOAT = 2, OPGEN_P_SINT = 3, OPGEN_P_UINT = 4,
  OPGEN_P_BOOL = 5, OPGEN_P_OTHER = 6, OPGEN_P_HALF = 7, OPGEN_P_BF16 = 8
};
template <class T>
constexpr unsigned opgen_kind_of() {
  if constexpr (opgen_param_kind<T>::value != 0) return opgen_param_kind<T>::value;
  else if constexpr (std::is_pointer<T>::value) return OPGEN_P_POINTER;
  else if constexpr (std::is_same<T, bool>::value) return OPGEN_P_BOOL;
  else if constexpr (std::is_floating_point<T>::value) return OPGEN_P_FLOAT;
  else if constexpr (std::is_enum<T>::value)
    return std::is_signed<typename std::underlying_type<T>::type>::value ? OPGEN_P_SINT : OPGEN_P_UINT;
  else if constexpr (std::is_integral<T>::value) return std::is_signed<T>::value ? OPGEN_P_SINT : OPGEN_P_UINT;
  else return OPGEN_P_OTHER;
}
// Writes (kind << 24 | sizeof) per parameter; returns the parameter count.
template <class... A>
static OPGEN_NOSAN int opgen_param_info(void (*)(A...), unsigned* out, int cap) {
  const unsigned info[] = {0u, ((opgen_kind_of<A>() << 24) | static_cast<unsigned>(sizeof(A)))...};
  const int n = static_cast<int>(sizeof...(A));
  for (int i = 0; i < n && i < cap; ++i) out[i] = info[i + 1];
  return n;
}
// Calls f with a[i] pointing at the i-th argument value (like cuLaunchKernel's kernelParams).
// The parameter types come from f's type: Python never has to parse them for the call.
template <class... A, size_t... I>
static __forceinline__ OPGEN_NOSAN void opgen_invoke_impl(void (*f)(A...), void** a, std::index_sequence<I...>) {
  (void)a;
  f(*static_cast<A*>(a[I])...);
}
template <class... A>
static OPGEN_NOSAN void opgen_invoke(void (*f)(A...), void** a) {
  opgen_invoke_impl(f, a, std::index_sequence_for<A...>{});
}

// ------------------------------------------------------ shared memory ----
// All thread_local storage of this module is shared memory (see cuda_emu.h);
// what the launching kernel can touch is filled with 0xFF (NaN / -1) before each
// block so that reading uninitialised shared memory gives garbage instead of
// last block's values.
struct opgen_tls_span {
  char* base;
  size_t size;
  const char* image_lo;  // the module's loaded segments
  const char* image_hi;
};
static thread_local opgen_tls_span opgen_tls_;
static char* opgen_dyn_smem_base();  // defined by OPGEN_DYN_SMEM_BUFFER / OPGEN_NO_DYN_SMEM

static OPGEN_NOSAN int opgen_find_tls(struct dl_phdr_info* info, size_t, void* data) {
  const uintptr_t self = reinterpret_cast<uintptr_t>(&opgen_find_tls);
  bool mine = false;
  size_t tls = 0;
  uintptr_t image_lo = UINTPTR_MAX, image_hi = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    const uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && self >= lo && self < lo + ph.p_memsz) mine = true;
    if (ph.p_type == PT_LOAD) {
      image_lo = lo < image_lo ? lo : image_lo;
      image_hi = lo + ph.p_memsz > image_hi ? lo + ph.p_memsz : image_hi;
    }
    if (ph.p_type == PT_TLS) tls = ph.p_memsz;
  }
  if (!mine) return 0;
  opgen_tls_span* out = static_cast<opgen_tls_span*>(data);
  out->base = static_cast<char*>(info->dlpi_tls_data);  // this thread's copy
  out->size = tls;
  out->image_lo = reinterpret_cast<const char*>(image_lo);
  out->image_hi = reinterpret_cast<const char*>(image_hi);
  return 1;
}

// Each kernel's table of the static __shared__ bytes it can touch (its own variables, those of the
// functions it calls, and any the build could not place): [0] the number of (offset in the TLS
// block, size) pairs after it, or OPGEN_SMEM_ALL where the build did not say (another compiler, an
// indirect call): then the module's whole TLS block is poisoned. host/smem_spans.py writes the
// tables into the built library; `volatile` keeps GCC from folding the placeholder in.
#define OPGEN_SMEM_RANGES 16
#define OPGEN_SMEM_ALL UINT64_MAX
typedef volatile uint64_t opgen_smem_table[1 + 2 * OPGEN_SMEM_RANGES];

static OPGEN_NOSAN void opgen_block_begin(const opgen_smem_table& spans, uint64_t shmem, opgen_block_mem* mem) {
  if (!opgen_tls_.base) {  // first block on this OS thread (the access above allocated the TLS block)
    opgen_tls_span s{nullptr, 0, nullptr, nullptr};
    dl_iterate_phdr(opgen_find_tls, &s);
    if (!s.base) return;
    opgen_tls_ = s;
  }
  const opgen_tls_span s = opgen_tls_;
  char* const end = s.base + s.size;
  char* const dyn = opgen_dyn_smem_base();
  const bool dyn_inside = dyn && dyn >= s.base && dyn + OPGEN_EMU_MAX_SMEM <= end;
  // Only the requested dynamic bytes (plus a little slack) are poisoned: the buffer is 227 KiB.
  const size_t used = shmem + 256 < OPGEN_EMU_MAX_SMEM ? shmem + 256 : OPGEN_EMU_MAX_SMEM;
  const uint64_t n = spans[0];
  bool known = n <= OPGEN_SMEM_RANGES;
  for (uint64_t i = 0; known && i < n; ++i) known = spans[1 + 2 * i] + spans[2 + 2 * i] <= s.size;
  if (known) {
    for (uint64_t i = 0; i < n; ++i) memset(s.base + spans[1 + 2 * i], 0xFF, spans[2 + 2 * i]);
    if (dyn_inside) memset(dyn, 0xFF, used);
  } else if (dyn_inside) {
    memset(s.base, 0xFF, static_cast<size_t>(dyn - s.base));
    memset(dyn, 0xFF, used);
    memset(dyn + OPGEN_EMU_MAX_SMEM, 0xFF, static_cast<size_t>(end - (dyn + OPGEN_EMU_MAX_SMEM)));
  } else {
    memset(s.base, 0xFF, s.size);
  }
  // Restore our own bookkeeping, which the memset may just have poisoned. The fence
  // stops GCC from deleting this "redundant" store: it cannot see that the
  // memset (through a pointer from dl_iterate_phdr) overwrote opgen_tls_.
  asm volatile("" : : "r"(&opgen_tls_) : "memory");
  opgen_tls_ = s;
  mem->tls = s.base;
  mem->tls_size = s.size;
  mem->dyn = dyn;
  mem->image_lo = s.image_lo;
  mem->image_hi = s.image_hi;
}

// `extern __shared__ T name[];` declares a TLS symbol `name`; each such name is
// made an assembler alias of one 227 KiB TLS buffer, so all of them share the
// same base address, like CUDA's dynamic shared memory.
#ifdef OPGEN_SANITIZE
#define OPGEN_DYN_SMEM_ALIGN 4096  // the alignment __shared__ promises in the sanitize build
#else
#define OPGEN_DYN_SMEM_ALIGN 128
#endif
#define OPGEN_DYN_SMEM_BUFFER()                                                                   \
  extern "C" {                                                                                    \
  __attribute__((aligned(OPGEN_DYN_SMEM_ALIGN), used)) thread_local unsigned char                 \
      opgen_dyn_smem[OPGEN_EMU_MAX_SMEM];                                                         \
  }                                                                                               \
  static OPGEN_NOSAN char* opgen_dyn_smem_base() { return reinterpret_cast<char*>(opgen_dyn_smem); }
#define OPGEN_NO_DYN_SMEM() \
  static char* opgen_dyn_smem_base() { return nullptr; }
#define OPGEN_DYN_SMEM_ALIAS(name) asm(".globl " #name "\n\t.hidden " #name "\n\t.set " #name ", opgen_dyn_smem");

// ------------------------------------------------------- sanitize hooks --
// -fsanitize=thread (the instrumentation only: host_sanitize.FLAGS links no libtsan) makes GCC
// call these before every load and store of kernel code, shared-memory accesses at constant
// offsets included (-fsanitize=kernel-address leaves those out for thread_local variables, and
// __shared__ is thread_local here). They hand each access to the runtime (bounds, races,
// uninitialised shared memory), which may switch fibers meanwhile.
#ifdef OPGEN_SANITIZE
static OPGEN_NOSAN __attribute__((noinline)) void opgen_san(const void* a, uint64_t n, int flags, const void* pc) {
  const opgen_thread_ctx* me = opgen_cur_;
  // The store that restores opgen_cur_ after a fiber switch: it still names the fiber that ran last.
  if (!me || a == static_cast<const void*>(&opgen_cur_)) return;
  opgen_rt_->san_access(me, a, n, flags, pc);
  opgen_cur_ = me;
}
#define OPGEN_SAN_HOOKS(N)                                                                  \
  extern "C" OPGEN_NOSAN void __tsan_read##N(void* a) {                                    \
    opgen_san(a, N, 0, __builtin_return_address(0));                                       \
  }                                                                                        \
  extern "C" OPGEN_NOSAN void __tsan_write##N(void* a) {                                   \
    opgen_san(a, N, OPGEN_SAN_WRITE, __builtin_return_address(0));                         \
  }                                                                                        \
  extern "C" OPGEN_NOSAN void __tsan_unaligned_read##N(void* a) {                          \
    opgen_san(a, N, 0, __builtin_return_address(0));                                       \
  }                                                                                        \
  extern "C" OPGEN_NOSAN void __tsan_unaligned_write##N(void* a) {                         \
    opgen_san(a, N, OPGEN_SAN_WRITE, __builtin_return_address(0));                         \
  }
OPGEN_SAN_HOOKS(1)
OPGEN_SAN_HOOKS(2)
OPGEN_SAN_HOOKS(4)
OPGEN_SAN_HOOKS(8)
OPGEN_SAN_HOOKS(16)
#undef OPGEN_SAN_HOOKS
extern "C" OPGEN_NOSAN void __tsan_read_range(void* a, unsigned long n) {
  opgen_san(a, n, 0, __builtin_return_address(0));
}
extern "C" OPGEN_NOSAN void __tsan_write_range(void* a, unsigned long n) {
  opgen_san(a, n, OPGEN_SAN_WRITE, __builtin_return_address(0));
}
// (GCC also calls these; none of them is an access of kernel data.)
extern "C" OPGEN_NOSAN void __tsan_init() {}
extern "C" OPGEN_NOSAN void __tsan_func_entry(void*) {}
extern "C" OPGEN_NOSAN void __tsan_func_exit() {}
extern "C" OPGEN_NOSAN void __tsan_vptr_update(void*, void*) {}
extern "C" OPGEN_NOSAN void __tsan_vptr_read(void*) {}
extern "C" OPGEN_NOSAN void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
extern "C" OPGEN_NOSAN void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
static OPGEN_NOSAN void opgen_san_atomic(const void* p, uint64_t n, const void* pc) {
  opgen_san(p, n, OPGEN_SAN_WRITE | OPGEN_SAN_ATOMIC, pc);
}
#endif

// --------------------------------------------------------------- exports --
static OPGEN_NOSAN int opgen_launch_impl(const char* name, void (*run)(const opgen_thread_ctx*, void*),
                             void (*begin)(void*, uint64_t, opgen_block_mem*), const opgen_launch_cfg* cfg,
                             void** args, char* err, size_t errlen) {
  if (!opgen_rt_) {
    snprintf(err, errlen, "module not initialised (opgen_module_init was not called)");
    return 2;
  }
  opgen_launch_desc d;
  d.kernel = name;
  d.cfg = cfg;
  d.run_thread = run;
  d.block_begin = begin;
  d.user = args;
  return opgen_rt_->launch(&d, err, errlen);
}

#define OPGEN_KERNEL(K)                                                                              \
  static OPGEN_NOSAN void opgen_run_##K(const struct opgen_thread_ctx* c, void* a) {                        \
    opgen_cur_ = c;                                                                                  \
    opgen_invoke(&::K, static_cast<void**>(a)); /* ::K: a kernel named c or a is not the parameter */ \
  }                                                                                                  \
  extern "C" __attribute__((used, visibility("hidden"))) opgen_smem_table opgen_smem_##K = {OPGEN_SMEM_ALL}; \
  static OPGEN_NOSAN void opgen_begin_##K(void*, uint64_t shmem, opgen_block_mem* mem) {                \
    opgen_block_begin(opgen_smem_##K, shmem, mem);                                                   \
  }                                                                                                  \
  OPGEN_EXPORT int opgen_params_##K(unsigned* out, int cap) { return opgen_param_info(&::K, out, cap); } \
  OPGEN_EXPORT int opgen_launch_##K(const struct opgen_launch_cfg* cfg, void** args, char* err, size_t errlen) { \
    return opgen_launch_impl(#K, opgen_run_##K, opgen_begin_##K, cfg, args, err, errlen);            \
  }

#define OPGEN_MODULE_EXPORTS()                                                                 \
  OPGEN_EXPORT int opgen_module_init(const opgen_rt_api* api) {                                \
    if (!api || api->abi_version != OPGEN_EMU_ABI_VERSION) return -1;                          \
    opgen_rt_ = api;                                                                           \
    return OPGEN_EMU_ABI_VERSION;                                                              \
  }                                                                                            \
  /* Bytes of static __shared__ storage (the module's TLS minus the dynamic buffer). */       \
  OPGEN_EXPORT uint64_t opgen_module_static_smem() {                                           \
    opgen_tls_span s{nullptr, 0, nullptr, nullptr};                                            \
    dl_iterate_phdr(opgen_find_tls, &s);                                                       \
    const uint64_t internal = sizeof(opgen_tls_span) + sizeof(void*);                          \
    uint64_t n = s.size > internal ? s.size - internal : 0;                                    \
    if (opgen_dyn_smem_base()) n = n > OPGEN_EMU_MAX_SMEM ? n - OPGEN_EMU_MAX_SMEM : 0;        \
    return n;                                                                                  \
  }

#endif  // OPGEN_EMU_GLUE_H
