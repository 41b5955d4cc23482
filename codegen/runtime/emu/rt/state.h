// rt/state.h: what the runtime's parts share. The per-block state (Fiber, Warp, Worker), and every
// function and variable one part uses of another, declared here and defined by the part named
// beside it. Everything stays in the anonymous namespace: the parts are one translation unit
// (runtime.cpp), and nothing but api.cpp's OPGEN_API functions leaves it.
#ifndef OPGEN_RT_STATE_H
#define OPGEN_RT_STATE_H

#include "opgen_emu_abi.h"

#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__x86_64__) && !defined(OPGEN_EMU_USE_UCONTEXT)
#define OPGEN_ASM_SWITCH 1
#endif

#define OPGEN_API extern "C" __attribute__((visibility("default")))

namespace {

enum FiberState : int { F_RUNNABLE, F_BARRIER, F_WARP, F_DONE };

struct Worker;
struct Shadow;  // sanitizer.cpp

struct Fiber {
  opgen_thread_ctx ctx;  // first member: the module's ctx pointer is the fiber pointer
  Worker* w;
  int state;
  int bar_pred, bar_result;
  int wop, warg, wwidth;
  unsigned wmask;
  uint64_t wval, wres;
  // Sanitize: vector clock over the lanes of its warp. vc[own lane] counts this lane's completed
  // __syncwarp() calls (from 1); vc[k] is the latest clock of lane k this lane is ordered after.
  uint32_t vc[32];
#ifdef OPGEN_ASM_SWITCH
  void* sp;
#else
  ucontext_t uc;
#endif
};

struct Warp {
  unsigned existing;  // lanes that exist (partial last warp)
  unsigned exited;
  unsigned waiting;   // lanes blocked in a warp collective
};

struct Worker {
  int id;
  uint64_t gen_seen;
  // Fibers and their stacks, reused across blocks (grown on demand).
  Fiber* fibers;
  Warp* warps;
  unsigned* order;
  unsigned cap;
  char* stacks;
  size_t slot;        // guard page + stack
  size_t map_len;
  size_t stack_size;
  // Current block.
  const opgen_launch_desc* desc;
  uint3 bidx;
  unsigned n, done, at_barrier, bar_true;
  int bar_kind;
  const char* bar_file;  // call site of the first arrival at the barrier now filling
  int bar_line;
  unsigned bar_first;
  uint64_t lin;       // the block's linear index
  unsigned defer;     // random order: warps left out of the current pass
  // Sanitize builds.
  int san;
  uint32_t bep;       // completed __syncthreads of the block (barrier epoch)
  uint64_t block_serial;
  opgen_block_mem mem;
  struct Shadow* sh;  // one entry per byte of the module's TLS block (shared memory)
  size_t sh_len;      // bytes mapped
  Fiber* cur;
  unsigned pass_pos;  // position in `order` of the current scheduling pass
  bool progress;      // some fiber ran during this pass
  uint64_t rng;
  int random;
  bool alone;         // the block runs its one thread by run_alone (fibers.cpp), not as a fiber
  int failed;
  char err[2048];
#ifdef OPGEN_ASM_SWITCH
  void* sched_sp;
  uint64_t csr;       // MXCSR | x87 control word << 32, given to new fibers
#else
  ucontext_t sched_uc;
#endif
  // Synchronous faults (SIGSEGV...) inside a fiber longjmp back to the scheduler.
  sigjmp_buf jb;
  volatile sig_atomic_t in_kernel;
  volatile int fault_sig;
  volatile int fault_code;
  void* volatile fault_addr;
  void* volatile fault_pc;
  void* altstack;
};

// --- shared variables ----------------------------------------------------------------------------
extern __thread Worker* tls_worker __attribute__((tls_model("initial-exec")));  // faults.cpp
extern __thread bool tls_in_batch __attribute__((tls_model("initial-exec")));   // batch.cpp
// batch.cpp: while this thread runs a lane run's records, the worker its launches run on (else null)
extern __thread Worker* tls_lane_worker __attribute__((tls_model("initial-exec")));
extern size_t g_page;                // fibers.cpp
extern pthread_mutex_t g_launch_mu;  // pool.cpp: one launch at a time (like one stream)
extern Worker g_caller;              // pool.cpp: the launching thread's worker
extern const void* g_api_addr;       // api.cpp: the function table kernel code reads
extern size_t g_api_size;

// --- fibers.cpp ----------------------------------------------------------------------------------
inline void resume(Worker* w, Fiber* f);
inline void yield(Fiber* f);
void prepare_fiber(Worker* w, Fiber* f, unsigned i);
#ifdef OPGEN_ASM_SWITCH
void run_alone(Worker* w, Fiber* f);
#endif
bool ensure_stacks(Worker* w, unsigned n, size_t stack_size);

// --- messages.cpp --------------------------------------------------------------------------------
size_t appendf(char* buf, size_t cap, size_t pos, const char* fmt, ...);
size_t where(Worker* w, const Fiber* f, char* buf, size_t cap);
size_t append_pc(char* buf, size_t cap, size_t p, const void* pc);
const char* op_name(int op);
const char* sync_name(int kind);
const char* base_name(const char* path);
[[noreturn]] void fail_fiber(Fiber* f, const char* fmt, ...);
[[noreturn]] void rt_fail(const opgen_thread_ctx* me, const char* msg);
void report_deadlock(Worker* w);

// --- warps.cpp -----------------------------------------------------------------------------------
void recheck_warp(Worker* w, unsigned warp, Fiber* caller);
uint64_t rt_warp_op(const opgen_thread_ctx* me, int op, unsigned mask, uint64_t value, int arg, int width);
unsigned rt_active_mask(const opgen_thread_ctx* me);

// --- barriers.cpp --------------------------------------------------------------------------------
int rt_sync_block(const opgen_thread_ctx* me, int kind, int pred, const char* file, int line);

// --- sanitizer.cpp -------------------------------------------------------------------------------
void ensure_shared_shadow(Worker* w);
bool san_begin(const opgen_launch_cfg* c);
void san_end();
void rt_san_access(const opgen_thread_ctx* me, const void* addr, uint64_t size, int flags, const void* pc);

// --- scheduler.cpp -------------------------------------------------------------------------------
inline Fiber* next_runnable(Worker* w);
uint64_t splitmix(uint64_t& s);
void run_block(Worker* w, uint64_t lin);

// --- settings.cpp (generated from codegen/runtime/settings.py) ----------------------------------
int setting_host_catch_signals(int* value, char* err, size_t errlen);

// --- faults.cpp ----------------------------------------------------------------------------------
void describe_fault(Worker* w);
void set_altstack(Worker* w, stack_t* old);
bool caller_altstack_enter(stack_t* old);  // true: caller_altstack_leave puts `old` back
void caller_altstack_leave(bool restore, const stack_t* old);
int install_signal_handlers(char* err, size_t errlen);  // 1: $OPGEN_HOST_CATCH_SIGNALS is bad

// --- pool.cpp ------------------------------------------------------------------------------------
int rt_launch(const opgen_launch_desc* d, char* err, size_t errlen);
void rt_parallel(uint64_t parts, int threads, void (*task)(void*, uint64_t), void* arg);
int pool_threads(int want);
void rt_lanes(int threads, void (*task)(void*, uint64_t), void* arg);
uint64_t cpu_ns();   // the calling thread's CPU time
uint64_t mono_ns();  // CLOCK_MONOTONIC

// --- gemm.cpp ------------------------------------------------------------------------------------
int rt_gemm(const opgen_launch_cfg* cfg, void** args, char* err, size_t errlen);
// A lane run's GEMMs (descs[0..n)) at one BLAS thread: sets each BLAS's thread count to 1 and returns
// the most threads one had (1 where none says), which blas_threads_restore puts back.
struct BlasPause {
  int n;                  // the BLAS libraries paused (up to 4; a fifth keeps its threads)
  void (*set[4])(int);    // each one's set-thread-count function
  int saved[4];           // and its count before
};
int blas_threads_pause(const opgen_gemm_desc* const* descs, uint64_t n, BlasPause* pause);
void blas_threads_restore(const BlasPause* pause);

// --- batch.cpp -----------------------------------------------------------------------------------
uint64_t run_batch(const unsigned char* blob, uint64_t count, const uint64_t* table, uint64_t table_len, char* err,
                   size_t errlen);

}  // namespace

// api.cpp: a GEMM step's batch record function (its `launch`).
OPGEN_API int opgen_rt_gemm(const opgen_launch_cfg* desc, void** args, char* err, size_t errlen);

// fibers.cpp: a fiber's life (called by the assembly entry, or ucontext's).
extern "C" __attribute__((visibility("hidden"), used, noreturn)) void opgen_fiber_main(Fiber* f);

#endif  // OPGEN_RT_STATE_H
