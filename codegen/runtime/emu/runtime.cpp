// Host runtime for emulated CUDA kernels: a worker-thread pool runs blocks,
// each CUDA thread of a block is a fiber on the worker that owns the block.
// Built once into libopgen_emu_rt.so; kernel modules reach it through the
// opgen_rt_api table (see opgen_emu_abi.h and README.md).
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

constexpr int kMaxWorkers = 256;
constexpr uint64_t kPoison = ~0ull;  // value read from an inactive shuffle source lane

enum FiberState : int { F_RUNNABLE, F_BARRIER, F_WARP, F_DONE };

struct Worker;

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

// initial-exec: readable from a signal handler without __tls_get_addr allocating.
__thread Worker* tls_worker __attribute__((tls_model("initial-exec")));
// True while run_batch runs on this thread: it holds g_launch_mu and has set the fault stack.
__thread bool tls_in_batch __attribute__((tls_model("initial-exec")));

size_t g_page = 4096;

// ------------------------------------------------------- sanitize state --
// Race detection shadow, per byte (per element of a global buffer): the last write, and the reads
// since then that no later access has been ordered after. Ids are global linear thread ids + 1
// (0: none); clocks are the accessing lane's own vector-clock entry. Reads are kept as
//   A: r_id, with r_lanes the lanes of r_id's warp that read (r_clk the largest of their clocks), and
//   B: r_id2, one reader of another warp than A's, or 0.
// Exact for hazards between warps: any access of an interval holding A and B is in another warp
// (or block) than at least one of them. Within A's warp the largest clock stands for every lane's:
// that never orders a read that was not (no miss), and equals each lane's clock while its warp only
// syncs whole (after a partial-mask sync it may report a read that was ordered).
struct Shadow {
  uint32_t w_id, w_bep, w_clk;
  uint32_t r_id, r_bep, r_clk, r_lanes, r_id2;
};
constexpr uint64_t kStaticSmemLimit = 48 * 1024;

struct SanBuf {
  const opgen_san_range* r;
  Shadow* shadow;  // mapped on first access, unmapped after the launch
};

// One launch at a time, and a sanitized launch runs its blocks on one worker: no locking.
struct SanLaunch {
  const opgen_launch_cfg* cfg;
  SanBuf* bufs;
  int nbufs;
  uint64_t* var_stamp;  // block_serial of the block whose shadow of the variable is current
  unsigned char* var_used;
  uint64_t static_used;
  uint64_t dyn_stamp;
  bool races;  // thread ids fit the shadow's 32 bits
};
SanLaunch g_san;
const void* g_api_addr;  // the runtime's function table, which kernel code reads
size_t g_api_size;

}  // namespace

// ---------------------------------------------------------------------------
// Context switch. x86-64: save callee-saved registers, MXCSR and the x87
// control word on the old stack, swap stack pointers; the (slow) ldmxcsr and
// fldcw only run when the incoming context's control words differ, which
// they practically never do. Elsewhere: ucontext.
// ---------------------------------------------------------------------------
#ifdef OPGEN_ASM_SWITCH
extern "C" void opgen_switch(void** save_sp, void* new_sp);
extern "C" void opgen_fiber_start();
asm(R"(
  .text
  .p2align 4
  .globl opgen_switch
  .hidden opgen_switch
  .type opgen_switch,@function
opgen_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  pushq $0
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movl (%rsp), %edx      # same-width reloads: store forwarding works
  movzwl 4(%rsp), %ecx
  movq %rsi, %rsp
  cmpl (%rsp), %edx
  jne 2f
  cmpw 4(%rsp), %cx
  jne 2f
1:
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
2:
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  jmp 1b
  .size opgen_switch, .-opgen_switch

  .p2align 4
  .globl opgen_fiber_start
  .hidden opgen_fiber_start
  .type opgen_fiber_start,@function
opgen_fiber_start:
  movq %r12, %rdi
  call opgen_fiber_main
  ud2
  .size opgen_fiber_start, .-opgen_fiber_start
)");
#endif

extern "C" __attribute__((visibility("hidden"), used, noreturn)) void opgen_fiber_main(Fiber* f);

namespace {

// Next runnable fiber of the current pass, in pass order (shuffled in random mode).
inline Fiber* next_runnable(Worker* w) {
  while (w->pass_pos < w->n) {
    Fiber* f = &w->fibers[w->order[w->pass_pos++]];
    if (f->state == F_RUNNABLE && !(w->defer && ((w->defer >> (f->ctx.warp & 31)) & 1u))) {
      w->progress = true;
      return f;
    }
  }
  return nullptr;
}

// Scheduler -> first fiber of a pass.
inline void resume(Worker* w, Fiber* f) {
  w->cur = f;
#ifdef OPGEN_ASM_SWITCH
  opgen_switch(&w->sched_sp, f->sp);
#else
  swapcontext(&w->sched_uc, &f->uc);
#endif
}

// Suspends f. Control goes straight to the next runnable fiber of the pass
// (one switch, not two via the scheduler); at the end of the pass, or after
// a failure, back to the scheduler.
inline void yield(Fiber* f) {
  Worker* w = f->w;
  Fiber* g = w->failed ? nullptr : next_runnable(w);
  if (g) w->cur = g;
#ifdef OPGEN_ASM_SWITCH
  opgen_switch(&f->sp, g ? g->sp : w->sched_sp);
#else
  swapcontext(&f->uc, g ? &g->uc : &w->sched_uc);
#endif
}

#ifndef OPGEN_ASM_SWITCH
void uc_entry(unsigned lo, unsigned hi) {
  opgen_fiber_main(reinterpret_cast<Fiber*>((static_cast<uintptr_t>(hi) << 32) | lo));
}
#endif

char* stack_base(Worker* w, unsigned i) { return w->stacks + static_cast<size_t>(i) * w->slot + g_page; }

// Stack tops are staggered by a cache line per fiber: otherwise they all share
// one page offset and fight over the same few L1/L2 cache sets.
char* stack_top(Worker* w, unsigned i) { return stack_base(w, i) + w->stack_size - (i & 31) * 64; }

void prepare_fiber(Worker* w, Fiber* f, unsigned i) {
#ifdef OPGEN_ASM_SWITCH
  // Frame popped by opgen_switch: csr, r15, r14, r13, r12 (= fiber), rbx, rbp, return address.
  uint64_t* sp = reinterpret_cast<uint64_t*>(stack_top(w, i));
  *--sp = reinterpret_cast<uint64_t>(&opgen_fiber_start);
  *--sp = 0;                              // rbp
  *--sp = 0;                              // rbx
  *--sp = reinterpret_cast<uint64_t>(f);  // r12
  *--sp = 0;                              // r13
  *--sp = 0;                              // r14
  *--sp = 0;                              // r15
  *--sp = w->csr;
  f->sp = sp;
#else
  getcontext(&f->uc);
  f->uc.uc_stack.ss_sp = stack_base(w, i);
  f->uc.uc_stack.ss_size = static_cast<size_t>(stack_top(w, i) - stack_base(w, i));
  f->uc.uc_link = nullptr;
  uintptr_t p = reinterpret_cast<uintptr_t>(f);
  makecontext(&f->uc, reinterpret_cast<void (*)()>(uc_entry), 2, static_cast<unsigned>(p),
              static_cast<unsigned>(p >> 32));
#endif
}

void free_stacks(Worker* w) {
  if (w->stacks) munmap(w->stacks, w->map_len);
  free(w->fibers);
  free(w->warps);
  free(w->order);
  w->stacks = nullptr;
  w->fibers = nullptr;
  w->warps = nullptr;
  w->order = nullptr;
  w->cap = 0;
}

// Stacks for n fibers; each has a PROT_NONE guard page below it so an
// overflow faults (and is reported) instead of corrupting a neighbour.
bool ensure_stacks(Worker* w, unsigned n, size_t stack_size) {
  stack_size = (stack_size + g_page - 1) / g_page * g_page;
  if (n <= w->cap && stack_size == w->stack_size) return true;
  unsigned cap = n > w->cap ? n : w->cap;
  cap = (cap + 31) / 32 * 32;
  free_stacks(w);
  w->stack_size = stack_size;
  w->slot = stack_size + g_page;
  w->map_len = w->slot * cap;
  void* m = mmap(nullptr, w->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return false;
  w->stacks = static_cast<char*>(m);
  for (unsigned i = 0; i < cap; ++i) mprotect(w->stacks + static_cast<size_t>(i) * w->slot, g_page, PROT_NONE);
  w->fibers = static_cast<Fiber*>(calloc(cap, sizeof(Fiber)));
  w->warps = static_cast<Warp*>(calloc((cap + 31) / 32, sizeof(Warp)));
  w->order = static_cast<unsigned*>(malloc(cap * sizeof(unsigned)));
  if (!w->fibers || !w->warps || !w->order) {
    free_stacks(w);
    return false;
  }
  w->cap = cap;
  return true;
}

uint64_t splitmix(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// --------------------------------------------------------------- messages --

size_t appendf(char* buf, size_t cap, size_t pos, const char* fmt, ...) {
  if (pos >= cap) return pos;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(buf + pos, cap - pos, fmt, ap);
  va_end(ap);
  if (k < 0) return pos;
  return pos + static_cast<size_t>(k) < cap ? pos + static_cast<size_t>(k) : cap - 1;
}

size_t where(Worker* w, const Fiber* f, char* buf, size_t cap) {
  size_t p = appendf(buf, cap, 0, "kernel '%s' block (%u,%u,%u)", w->desc->kernel, w->bidx.x, w->bidx.y, w->bidx.z);
  if (f)
    p = appendf(buf, cap, p, " thread (%u,%u,%u)", f->ctx.thread_idx.x, f->ctx.thread_idx.y, f->ctx.thread_idx.z);
  return appendf(buf, cap, p, ": ");
}

const char* op_name(int op) {
  static const char* const names[OPGEN_W_NUM_OPS] = {
      "__syncwarp", "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync",
      "__any_sync", "__all_sync", "__match_any_sync", "__match_all_sync", "__reduce_add_sync",
      "__reduce_min_sync", "__reduce_max_sync", "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync",
      "__reduce_or_sync", "__reduce_xor_sync"};
  return op >= 0 && op < OPGEN_W_NUM_OPS ? names[op] : "?";
}

const char* sync_name(int kind) {
  switch (kind) {
    case OPGEN_SYNC_COUNT: return "__syncthreads_count";
    case OPGEN_SYNC_AND: return "__syncthreads_and";
    case OPGEN_SYNC_OR: return "__syncthreads_or";
    default: return "__syncthreads";
  }
}

// Aborts the block from inside fiber f: records the message, never resumes f.
[[noreturn]] void fail_fiber(Fiber* f, const char* fmt, ...) {
  Worker* w = f->w;
  if (!w->failed) {
    w->failed = 1;
    size_t p = where(w, f, w->err, sizeof w->err);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err + p, sizeof w->err - p, fmt, ap);
    va_end(ap);
  }
  f->state = F_DONE;
  yield(f);
  abort();  // unreachable: a failed block is never resumed
}

// Appends "a-b, c, ..." for the linear thread ids whose state matches.
size_t append_ids(Worker* w, char* buf, size_t cap, size_t p, int state) {
  bool first = true;
  unsigned i = 0;
  while (i < w->n) {
    if (w->fibers[i].state != state) {
      ++i;
      continue;
    }
    unsigned j = i;
    while (j + 1 < w->n && w->fibers[j + 1].state == state) ++j;
    p = appendf(buf, cap, p, first ? "%u" : ",%u", i);
    if (j > i) p = appendf(buf, cap, p, "-%u", j);
    first = false;
    i = j + 1;
  }
  return p;
}

void report_deadlock(Worker* w) {
  unsigned count[4] = {0, 0, 0, 0};
  int some_op = OPGEN_W_SYNC;
  for (unsigned i = 0; i < w->n; ++i) {
    count[w->fibers[i].state]++;
    if (w->fibers[i].state == F_WARP) some_op = w->fibers[i].wop;
  }
  char* b = w->err;
  const size_t cap = sizeof w->err;
  size_t p = appendf(b, cap, 0, "deadlock in kernel '%s' block (%u,%u,%u): ", w->desc->kernel, w->bidx.x,
                     w->bidx.y, w->bidx.z);
  const char* sep = "";
  if (count[F_BARRIER]) {
    p = appendf(b, cap, p, "threads ");
    p = append_ids(w, b, cap, p, F_BARRIER);
    p = appendf(b, cap, p, " waiting at %s", sync_name(w->bar_kind));
    sep = "; ";
  }
  if (count[F_WARP]) {
    p = appendf(b, cap, p, "%sthreads ", sep);
    p = append_ids(w, b, cap, p, F_WARP);
    p = appendf(b, cap, p, " waiting in warp operation (e.g. %s) for lanes that never arrive", op_name(some_op));
    sep = "; ";
  }
  if (count[F_DONE]) {
    p = appendf(b, cap, p, "%sthreads ", sep);
    p = append_ids(w, b, cap, p, F_DONE);
    p = appendf(b, cap, p, " exited");
  }
  appendf(b, cap, p,
          ". Every thread of a block must reach each __syncthreads() (e.g. no barrier inside a branch "
          "that only some threads take, no early return before a barrier). Thread ids are linear, x fastest.");
  w->failed = 1;
}

// ------------------------------------------------------- warp collectives --

uint64_t shfl_source(const Fiber* base, const Fiber* g, unsigned group, int op) {
  const unsigned lane = g->ctx.lane;
  const unsigned width = static_cast<unsigned>(g->wwidth);
  const unsigned seg_lo = lane & ~(width - 1);
  const unsigned seg_hi = seg_lo + width - 1;
  const unsigned b = static_cast<unsigned>(g->warg) & 31u;  // PTX uses b[4:0]
  long j;
  switch (op) {
    case OPGEN_W_SHFL_IDX: j = seg_lo | (b & (width - 1)); break;
    case OPGEN_W_SHFL_UP: j = static_cast<long>(lane) - b; if (j < static_cast<long>(seg_lo)) return g->wval; break;
    case OPGEN_W_SHFL_DOWN: j = lane + b; if (j > static_cast<long>(seg_hi)) return g->wval; break;
    default: j = lane ^ b; if (j > static_cast<long>(seg_hi)) return g->wval; break;  // xor
  }
  // Reading a lane that is not taking part (exited, absent, not in mask) is undefined in CUDA.
  if (!((group >> j) & 1u)) {
    if (g->w->san)
      fail_fiber(const_cast<Fiber*>(g),
                 "%s: lane %u reads lane %ld, which is not taking part (not in mask 0x%08x, exited or absent): "
                 "the value is undefined on a GPU",
                 op_name(op), lane, j, g->wmask);
    return kPoison;
  }
  return base[j].wval;
}

// Sanitize: a completed __syncwarp() orders its lanes' memory accesses: each gets the join of their
// vector clocks, then a new own clock (what each accesses next comes after everything each did
// before). Shuffles and votes do not: CUDA promises no memory ordering for them, and
// compute-sanitizer's racecheck reports hazards between lanes that only a shuffle separates.
void join_clocks(Fiber* base, unsigned group) {
  uint32_t join[32] = {};
  for (unsigned m = group; m; m &= m - 1) {
    const uint32_t* vc = base[__builtin_ctz(m)].vc;
    for (int k = 0; k < 32; ++k) join[k] = vc[k] > join[k] ? vc[k] : join[k];
  }
  for (unsigned m = group; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    memcpy(base[lane].vc, join, sizeof join);
    base[lane].vc[lane]++;
  }
}

// Completes the collective of the lanes in `mask` if all of them have arrived.
void try_complete_warp(Worker* w, unsigned warp, unsigned mask, Fiber* caller) {
  Warp* wp = &w->warps[warp];
  const unsigned live = wp->existing & ~wp->exited;
  const unsigned group = mask & live;
  if (group == 0 || (wp->waiting & group) != group) return;
  Fiber* base = &w->fibers[warp * 32];
  const int first = __builtin_ctz(group);
  const int op = base[first].wop;
  for (unsigned m = group; m; m &= m - 1) {
    const Fiber* g = &base[__builtin_ctz(m)];
    if (g->wop != op || (g->wmask & live) != group)
      fail_fiber(caller,
                 "lanes of warp %u disagree: lane %d called %s with mask 0x%08x, lane %u called %s with mask "
                 "0x%08x (all lanes named in a mask must make the same *_sync call with the same mask)",
                 warp, first, op_name(op), base[first].wmask, g->ctx.lane, op_name(g->wop), g->wmask);
  }
  unsigned ballot = 0;
  for (unsigned m = group; m; m &= m - 1) {
    const int l = __builtin_ctz(m);
    if (base[l].wval) ballot |= 1u << l;
  }
  uint64_t red = 0;
  if (op >= OPGEN_W_REDUCE_ADD) {
    uint32_t acc = static_cast<uint32_t>(base[first].wval);
    for (unsigned m = group & (group - 1); m; m &= m - 1) {
      const uint32_t v = static_cast<uint32_t>(base[__builtin_ctz(m)].wval);
      switch (op) {
        case OPGEN_W_REDUCE_ADD: acc += v; break;
        case OPGEN_W_REDUCE_MIN_U: acc = v < acc ? v : acc; break;
        case OPGEN_W_REDUCE_MAX_U: acc = v > acc ? v : acc; break;
        case OPGEN_W_REDUCE_MIN_S: acc = static_cast<int32_t>(v) < static_cast<int32_t>(acc) ? v : acc; break;
        case OPGEN_W_REDUCE_MAX_S: acc = static_cast<int32_t>(v) > static_cast<int32_t>(acc) ? v : acc; break;
        case OPGEN_W_REDUCE_AND: acc &= v; break;
        case OPGEN_W_REDUCE_OR: acc |= v; break;
        default: acc ^= v; break;
      }
    }
    red = acc;
  }
  bool all_equal = true;
  for (unsigned m = group; m; m &= m - 1)
    if (base[__builtin_ctz(m)].wval != base[first].wval) all_equal = false;
  if (w->san && op == OPGEN_W_SYNC) join_clocks(base, group);  // only __syncwarp() orders memory
  for (unsigned m = group; m; m &= m - 1) {
    Fiber* g = &base[__builtin_ctz(m)];
    switch (op) {
      case OPGEN_W_SYNC: g->wres = 0; break;
      case OPGEN_W_SHFL_IDX:
      case OPGEN_W_SHFL_UP:
      case OPGEN_W_SHFL_DOWN:
      case OPGEN_W_SHFL_XOR: g->wres = shfl_source(base, g, group, op); break;
      case OPGEN_W_BALLOT: g->wres = ballot; break;
      case OPGEN_W_ANY: g->wres = ballot != 0; break;
      case OPGEN_W_ALL: g->wres = ballot == group; break;
      case OPGEN_W_MATCH_ANY: {
        unsigned same = 0;
        for (unsigned k = group; k; k &= k - 1)
          if (base[__builtin_ctz(k)].wval == g->wval) same |= 1u << __builtin_ctz(k);
        g->wres = same;
        break;
      }
      case OPGEN_W_MATCH_ALL: g->wres = all_equal ? group : 0; break;
      default: g->wres = red; break;
    }
    g->state = F_RUNNABLE;
  }
  wp->waiting &= ~group;
}

// A lane exited: collectives that were only waiting for it may now complete.
void recheck_warp(Worker* w, unsigned warp, Fiber* caller) {
  Warp* wp = &w->warps[warp];
  unsigned pending = wp->waiting;
  if (w->san) {  // synccheck: a mask naming an exited lane is undefined (a GPU may hang)
    for (unsigned m = pending; m; m &= m - 1) {
      const Fiber* g = &w->fibers[warp * 32 + __builtin_ctz(m)];
      if (g->wmask & (1u << caller->ctx.lane))
        fail_fiber(caller,
                   "lane %u of warp %u exited while lane %u waits for it in %s with mask 0x%08x (a warp "
                   "collective whose mask names an exited lane is undefined on a GPU)",
                   caller->ctx.lane, warp, g->ctx.lane, op_name(g->wop), g->wmask);
    }
  }
  while (pending) {
    const unsigned lane = static_cast<unsigned>(__builtin_ctz(pending));
    const unsigned mask = w->fibers[warp * 32 + lane].wmask;
    try_complete_warp(w, warp, mask, caller);
    pending &= ~mask;
    pending &= ~(1u << lane);
    pending &= wp->waiting;
  }
}

// ------------------------------------------------------ runtime api entry --

const char* base_name(const char* path) {
  const char* slash = path ? strrchr(path, '/') : nullptr;
  return slash ? slash + 1 : path ? path : "?";
}

int rt_sync_block(const opgen_thread_ctx* me, int kind, int pred, const char* file, int line) {
  Fiber* f = reinterpret_cast<Fiber*>(const_cast<opgen_thread_ctx*>(me));
  Worker* w = f->w;
  if (w->at_barrier == 0) {
    w->bar_kind = kind;
    w->bar_file = file;
    w->bar_line = line;
    w->bar_first = me->linear;
  } else if (w->bar_kind != kind) {
    fail_fiber(f, "threads of the block met at different barriers: %s and %s", sync_name(w->bar_kind),
               sync_name(kind));
  } else if (line != w->bar_line || (file != w->bar_file && (!file || !w->bar_file || strcmp(file, w->bar_file)))) {
    const opgen_thread_ctx& o = w->fibers[w->bar_first].ctx;
    fail_fiber(f,
               "divergent barrier: this thread reached %s at %s:%d while thread (%u,%u,%u) waits at %s:%d "
               "(every thread of a block must reach the same __syncthreads() call; barriers in branches that "
               "threads take differently are undefined behaviour on a GPU)",
               sync_name(kind), base_name(file), line, o.thread_idx.x, o.thread_idx.y, o.thread_idx.z,
               base_name(w->bar_file), w->bar_line);
  }
  f->state = F_BARRIER;
  w->at_barrier++;
  if (pred) w->bar_true++;
  if (w->at_barrier == w->n) {
    int r = 0;
    if (kind == OPGEN_SYNC_COUNT) r = static_cast<int>(w->bar_true);
    else if (kind == OPGEN_SYNC_AND) r = w->bar_true == w->n;
    else if (kind == OPGEN_SYNC_OR) r = w->bar_true != 0;
    for (unsigned i = 0; i < w->n; ++i) {
      Fiber* g = &w->fibers[i];
      if (g->state == F_BARRIER) {
        g->state = F_RUNNABLE;
        g->bar_result = r;
      }
    }
    w->at_barrier = 0;
    w->bar_true = 0;
    w->bep++;
  }
  yield(f);  // even the last arrival yields, so random order also reshuffles after barriers
  return f->bar_result;
}

uint64_t rt_warp_op(const opgen_thread_ctx* me, int op, unsigned mask, uint64_t value, int arg, int width) {
  Fiber* f = reinterpret_cast<Fiber*>(const_cast<opgen_thread_ctx*>(me));
  Worker* w = f->w;
  const unsigned bit = 1u << me->lane;
  if (!(mask & bit))
    fail_fiber(f, "%s called with mask 0x%08x that does not include the calling lane %u", op_name(op), mask,
               me->lane);
  if (op >= OPGEN_W_SHFL_IDX && op <= OPGEN_W_SHFL_XOR && (width < 1 || width > 32 || (width & (width - 1))))
    fail_fiber(f, "%s: width %d is not a power of two in [1, 32]", op_name(op), width);
  if (w->san) {
    const Warp* wp = &w->warps[me->warp];
    const unsigned gone = mask & ~(wp->existing & ~wp->exited);
    if (gone)
      fail_fiber(f,
                 "%s called with mask 0x%08x, which names lane(s) 0x%08x that %s (a warp collective whose "
                 "mask names an exited or absent lane is undefined on a GPU)",
                 op_name(op), mask, gone, (gone & ~wp->existing) ? "do not exist in this block" : "already exited");
  }
  f->wop = op;
  f->wmask = mask;
  f->wval = value;
  f->warg = arg;
  f->wwidth = width;
  f->state = F_WARP;
  w->warps[me->warp].waiting |= bit;
  try_complete_warp(w, me->warp, mask, f);
  yield(f);
  return f->wres;
}

unsigned rt_active_mask(const opgen_thread_ctx* me) {
  const Fiber* f = reinterpret_cast<const Fiber*>(me);
  // A GPU returns the lanes converged at this instruction, which it never guarantees to be more
  // than the caller: sanitize builds return just that, so code relying on more shows.
  if (f->w->san) return 1u << me->lane;
  const Warp* wp = &f->w->warps[me->warp];
  return wp->existing & ~wp->exited;
}

[[noreturn]] void rt_fail(const opgen_thread_ctx* me, const char* msg) {
  fail_fiber(reinterpret_cast<Fiber*>(const_cast<opgen_thread_ctx*>(me)), "%s", msg);
}

// ------------------------------------------------------------- sanitize --

// " [pc FILE+0xOFFSET]": Python turns it into the kernel source line (addr2line on the module).
size_t append_pc(char* buf, size_t cap, size_t p, const void* pc) {
  Dl_info info;
  if (pc && dladdr(pc, &info) && info.dli_fname)
    return appendf(buf, cap, p, " [pc %s+0x%llx]", info.dli_fname,
                   static_cast<unsigned long long>(static_cast<const char*>(pc) - static_cast<const char*>(info.dli_fbase)));
  return p;
}

// Reports a sanitizer finding from fiber f (message, then the access's pc) and abandons the block.
[[noreturn]] __attribute__((format(printf, 3, 4))) void san_fail(Fiber* f, const void* pc, const char* fmt, ...) {
  char msg[1536];
  va_list ap;
  va_start(ap, fmt);
  size_t p = static_cast<size_t>(vsnprintf(msg, sizeof msg, fmt, ap));
  va_end(ap);
  if (p >= sizeof msg) p = sizeof msg - 1;
  append_pc(msg, sizeof msg, p, pc);
  fail_fiber(f, "%s", msg);
}

struct Who {
  uint32_t id, bep, clk;
  unsigned lane;
  uint64_t block, gwarp;
  const uint32_t* vc;
};

uint64_t block_of(uint32_t id, unsigned n) { return (id - 1) / n; }
uint64_t gwarp_of(uint32_t id, unsigned n) { return block_of(id, n) * ((n + 31) / 32) + ((id - 1) % n) / 32; }
unsigned lane_of(uint32_t id, unsigned n) { return ((id - 1) % n) & 31u; }

// Are the recorded accesses of thread `id` and the lanes `lanes` of its warp (at clocks up to
// `clk`, in barrier interval `bep`) all ordered before the current access of `me`? A barrier orders
// a whole block; a __syncwarp() its lanes (vector clocks); blocks of a launch never are.
// Returns the first lane of `lanes` found unordered with `me`, -1 if all are ordered.
int unordered_lane(uint32_t id, uint32_t bep, uint32_t clk, uint32_t lanes, const Who& me, unsigned n) {
  if (id == me.id && lanes == (1u << me.lane)) return -1;
  const uint64_t gw = gwarp_of(id, n);
  if (gw / ((n + 31) / 32) != me.block) return static_cast<int>(lane_of(id, n));
  if (me.bep > bep) return -1;  // a __syncthreads() came between
  if (gw != me.gwarp) return static_cast<int>(lane_of(id, n));
  for (uint32_t m = lanes & ~(1u << me.lane); m; m &= m - 1)  // program order for the own lane
    if (me.vc[__builtin_ctz(m)] < clk) return __builtin_ctz(m);
  return -1;
}

bool ordered_before(uint32_t id, uint32_t bep, uint32_t clk, const Who& me, unsigned n) {
  return unordered_lane(id, bep, clk, 1u << lane_of(id, n), me, n) < 0;
}

// "thread (x,y,z)" or "thread (x,y,z) of block (a,b,c)" for a recorded id.
size_t describe_id(Worker* w, char* buf, size_t cap, size_t p, uint32_t id, const Who& me) {
  const unsigned n = w->n;
  const opgen_launch_cfg* c = w->desc->cfg;
  const unsigned t = (id - 1) % n, bx = c->block[0], by = c->block[1];
  p = appendf(buf, cap, p, "thread (%u,%u,%u)", t % bx, (t / bx) % by, t / (bx * by));
  const uint64_t b = block_of(id, n);
  if (b != me.block) {
    const uint64_t gx = c->grid[0], gy = c->grid[1];
    p = appendf(buf, cap, p, " of block (%llu,%llu,%llu)", static_cast<unsigned long long>(b % gx),
                static_cast<unsigned long long>((b / gx) % gy), static_cast<unsigned long long>(b / (gx * gy)));
  }
  return p;
}

// The hazard's kind, as compute-sanitizer's racecheck names it: the earlier access, then this one.
const char* hazard_kind(bool write, bool other_wrote) {
  return !write ? "RAW (read after write)" : other_wrote ? "WAW (write after write)" : "WAR (write after read)";
}

[[noreturn]] void report_race(Fiber* f, const Who& me, const char* space, const char* name, uint64_t off,
                              uint64_t size, bool write, uint32_t other, bool other_wrote, const void* pc) {
  Worker* w = f->w;
  char who[160];
  describe_id(w, who, sizeof who, 0, other, me);
  const uint64_t other_block = block_of(other, w->n);
  const char* why = other_block != me.block ? "blocks of one launch run in no defined order"
                    : gwarp_of(other, w->n) != me.gwarp
                        ? "no __syncthreads() between them (__syncwarp() only orders the lanes of one warp)"
                        : "the same warp, but no __syncwarp() of both lanes between them (lanes of a warp run "
                          "independently; shuffles and votes do not order memory)";
  san_fail(f, pc,
           "data race on %s '%s' at byte %llu (of %llu): %s hazard: this thread %s it while %s %s it, "
           "unordered: %s",
           space, name, static_cast<unsigned long long>(off), static_cast<unsigned long long>(size),
           hazard_kind(write, other_wrote), write ? "writes" : "reads", who, other_wrote ? "wrote" : "read", why);
}

// The thread of lane `lane` of the warp of recorded id `id`.
uint32_t lane_id(uint32_t id, int lane, unsigned n) { return id - lane_of(id, n) + static_cast<unsigned>(lane); }

// Race (and, for shared memory, initialisation) check of bytes [off, off + len) of a region.
// One shadow entry per `granule` bytes (a global buffer's element size: less shadow to touch).
void check_races(Fiber* f, Shadow* sh, uint64_t off, uint64_t len, int flags, const char* space, const char* name,
                 uint64_t region_size, bool shared, const void* pc, uint64_t granule = 1) {
  Worker* w = f->w;
  const unsigned n = w->n;
  Who me;
  me.id = static_cast<uint32_t>(w->lin * n + f->ctx.linear + 1);
  me.bep = w->bep;
  me.lane = f->ctx.lane;
  me.clk = f->vc[me.lane];
  me.vc = f->vc;
  me.block = w->lin;
  me.gwarp = w->lin * ((n + 31) / 32) + f->ctx.warp;
  const uint32_t my_lane = 1u << me.lane;
  const bool write = flags & OPGEN_SAN_WRITE;
  for (uint64_t i = off / granule; i <= (off + len - 1) / granule; ++i) {
    Shadow& s = sh[i];
    const uint64_t byte = i * granule < off ? off : i * granule;  // for messages
    if (s.w_id && !ordered_before(s.w_id, s.w_bep, s.w_clk, me, n))
      report_race(f, me, space, name, byte, region_size, write, s.w_id, true, pc);
    if (!write && shared && !s.w_id)
      san_fail(f, pc,
               "read of uninitialised shared memory: byte %llu of '%s' (%llu bytes) was not written by any thread "
               "of this block before this read",
               static_cast<unsigned long long>(byte), name, static_cast<unsigned long long>(region_size));
    const int a_lane = s.r_id ? unordered_lane(s.r_id, s.r_bep, s.r_clk, s.r_lanes, me, n) : -1;
    // B is in another warp than A: unordered unless a barrier orders the interval (same block).
    const bool b_ordered = !s.r_id2 || ordered_before(s.r_id2, s.r_bep, ~0u, me, n);
    if (write) {
      if (a_lane >= 0) report_race(f, me, space, name, byte, region_size, true, lane_id(s.r_id, a_lane, n), false, pc);
      if (!b_ordered) report_race(f, me, space, name, byte, region_size, true, s.r_id2, false, pc);
      s.w_id = me.id;
      s.w_bep = me.bep;
      s.w_clk = me.clk;
      s.r_id = s.r_id2 = 0;
      continue;
    }
    if (a_lane < 0) {  // A (every read of its lanes) is ordered before this read, which stands for it
      s.r_id = me.id;
      s.r_bep = me.bep;
      s.r_clk = me.clk;
      s.r_lanes = my_lane;
      if (b_ordered) s.r_id2 = 0;
    } else if (gwarp_of(s.r_id, n) == me.gwarp) {  // another lane of A's warp
      s.r_lanes |= my_lane;
      s.r_clk = me.clk > s.r_clk ? me.clk : s.r_clk;
      s.r_bep = me.bep < s.r_bep ? me.bep : s.r_bep;
    } else if (b_ordered) {  // another warp than A's: the B to keep
      s.r_id2 = me.id;
    }
  }
}

Shadow* map_shadow(uint64_t bytes) {
  void* m = mmap(nullptr, bytes * sizeof(Shadow), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  return m == MAP_FAILED ? nullptr : static_cast<Shadow*>(m);
}

const char* access_kind(int flags) { return (flags & OPGEN_SAN_ATOMIC) ? "atomic" : (flags & OPGEN_SAN_WRITE) ? "write" : "read"; }

void san_shared(Fiber* f, const char* a, uint64_t size, int flags, const void* pc) {
  Worker* w = f->w;
  const opgen_block_mem& m = w->mem;
  const uint64_t off = static_cast<uint64_t>(a - m.tls);
  uint64_t lo, len;
  const char* name;
  if (m.dyn && a >= m.dyn && a < m.dyn + OPGEN_EMU_MAX_SMEM) {
    const uint64_t d = static_cast<uint64_t>(a - m.dyn), shmem = w->desc->cfg->shmem;
    if (d + size > shmem)
      san_fail(f, pc,
               "out-of-bounds %s of %llu bytes at byte %llu of dynamic shared memory (extern __shared__): the "
               "launch requested %llu bytes (shared_mem)",
               access_kind(flags), static_cast<unsigned long long>(size), static_cast<unsigned long long>(d),
               static_cast<unsigned long long>(shmem));
    if (g_san.dyn_stamp != w->block_serial) {  // fresh shadow for this block
      memset(w->sh + (m.dyn - m.tls), 0, shmem * sizeof(Shadow));
      g_san.dyn_stamp = w->block_serial;
    }
    lo = static_cast<uint64_t>(m.dyn - m.tls);
    len = shmem;
    name = "extern __shared__";
  } else {
    const opgen_launch_cfg* c = g_san.cfg;
    if (c->nvars == 0) return;  // the module's symbols were not readable: no shared-memory checks
    int v = -1;
    for (int i = 0; i < c->nvars; ++i)  // few variables per module
      if (off >= c->vars[i].base && off < c->vars[i].base + (c->vars[i].size ? c->vars[i].size : 1)) v = i;
    if (v < 0) {
      int near = -1;
      for (int i = 0; i < c->nvars; ++i)
        if (c->vars[i].name && c->vars[i].base <= off && (near < 0 || c->vars[i].base > c->vars[near].base)) near = i;
      if (near >= 0)
        san_fail(f, pc,
                 "out-of-bounds %s of %llu bytes in shared memory: %llu bytes past the end of __shared__ '%s' "
                 "(%llu bytes)",
                 access_kind(flags), static_cast<unsigned long long>(size),
                 static_cast<unsigned long long>(off - c->vars[near].base - c->vars[near].size), c->vars[near].name,
                 static_cast<unsigned long long>(c->vars[near].size));
      san_fail(f, pc, "out-of-bounds %s of %llu bytes in shared memory, before every __shared__ variable",
               access_kind(flags), static_cast<unsigned long long>(size));
    }
    const opgen_san_range& r = c->vars[v];
    if (!r.name) return;  // the emulation's own thread_local bookkeeping
    if (off + size > r.base + r.size)
      san_fail(f, pc, "out-of-bounds %s of %llu bytes at byte %llu of __shared__ '%s' (%llu bytes)",
               access_kind(flags), static_cast<unsigned long long>(size),
               static_cast<unsigned long long>(off - r.base), r.name, static_cast<unsigned long long>(r.size));
    if (!g_san.var_used[v]) {  // a GPU refuses a kernel with more than 48 KiB of static shared memory
      g_san.var_used[v] = 1;
      g_san.static_used += r.size;
      if (g_san.static_used > kStaticSmemLimit)
        san_fail(f, pc,
                 "kernel uses %llu bytes of static __shared__ memory (the last one touched: '%s', %llu bytes), "
                 "more than the 48 KiB a GPU allows per block (use dynamic shared memory above that)",
                 static_cast<unsigned long long>(g_san.static_used), r.name, static_cast<unsigned long long>(r.size));
    }
    if (g_san.var_stamp[v] != w->block_serial) {
      memset(w->sh + r.base, 0, r.size * sizeof(Shadow));
      g_san.var_stamp[v] = w->block_serial;
    }
    lo = r.base;
    len = r.size;
    name = r.name;
  }
  if ((flags & OPGEN_SAN_ATOMIC) || !g_san.races) return;
  check_races(f, w->sh + lo, off - lo, size, flags, "shared memory", name, len, true, pc);
}

void san_global(Fiber* f, const char* a, uint64_t size, int flags, const void* pc) {
  const uint64_t x = reinterpret_cast<uint64_t>(a);
  int lo = 0, hi = g_san.nbufs;  // last buffer whose base <= x
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (g_san.bufs[mid].r->base <= x) lo = mid + 1;
    else hi = mid;
  }
  // Buffers may be empty or share a base: look back for one that holds x.
  for (int i = lo - 1; i >= 0 && i >= lo - 4; --i) {
    SanBuf& b = g_san.bufs[i];
    if (x >= b.r->base + b.r->size) continue;
    const uint64_t off = x - b.r->base;
    if (off + size > b.r->size)
      san_fail(f, pc, "out-of-bounds %s of %llu bytes at byte %llu of buffer '%s' (%llu bytes)", access_kind(flags),
               static_cast<unsigned long long>(size), static_cast<unsigned long long>(off), b.r->name,
               static_cast<unsigned long long>(b.r->size));
    if ((flags & OPGEN_SAN_ATOMIC) || !g_san.races) return;
    const uint64_t g = b.r->granule ? b.r->granule : 1;
    if (!b.shadow) b.shadow = map_shadow((b.r->size + g - 1) / g);
    if (b.shadow) check_races(f, b.shadow, off, size, flags, "global buffer", b.r->name, b.r->size, false, pc, g);
    return;
  }
  const SanBuf* before = lo > 0 ? &g_san.bufs[lo - 1] : nullptr;
  const SanBuf* after = lo < g_san.nbufs ? &g_san.bufs[lo] : nullptr;
  if (before && (!after || x - (before->r->base + before->r->size) <= after->r->base - x))
    san_fail(f, pc,
             "out-of-bounds %s of %llu bytes at byte offset %llu of buffer '%s', which has %llu bytes (outside "
             "every buffer of the launch)",
             access_kind(flags), static_cast<unsigned long long>(size),
             static_cast<unsigned long long>(x - before->r->base), before->r->name,
             static_cast<unsigned long long>(before->r->size));
  if (after)
    san_fail(f, pc,
             "out-of-bounds %s of %llu bytes at byte offset -%llu of buffer '%s', which has %llu bytes (outside "
             "every buffer of the launch)",
             access_kind(flags), static_cast<unsigned long long>(size),
             static_cast<unsigned long long>(after->r->base - x), after->r->name,
             static_cast<unsigned long long>(after->r->size));
  san_fail(f, pc, "out-of-bounds %s of %llu bytes at address %p: the launch has no buffer arguments",
           access_kind(flags), static_cast<unsigned long long>(size), static_cast<const void*>(a));
}

void rt_san_access(const opgen_thread_ctx* me, const void* addr, uint64_t size, int flags, const void* pc) {
  Fiber* f = reinterpret_cast<Fiber*>(const_cast<opgen_thread_ctx*>(me));
  Worker* w = f->w;
  if (!w->san || w->failed) return;
  pc = static_cast<const char*>(pc) - 1;  // the return address: step back into the call of the access
  const char* a = static_cast<const char*>(addr);
  const opgen_block_mem& m = w->mem;
  if (a >= w->stacks && a < w->stacks + w->map_len) {
    // local memory (fiber stacks): not checked
  } else if (a >= reinterpret_cast<const char*>(w->fibers) && a < reinterpret_cast<const char*>(w->fibers + w->cap)) {
    // threadIdx, blockIdx...: the runtime's thread contexts
  } else if (a >= static_cast<const char*>(g_api_addr) && a < static_cast<const char*>(g_api_addr) + g_api_size) {
    // the runtime's function table (every barrier and warp collective reads it)
  } else if (a >= m.tls && a < m.tls + m.tls_size) {
    san_shared(f, a, size, flags, pc);
  } else if (a >= m.image_lo && a < m.image_hi) {
    // the module's own constants and string literals
  } else {
    san_global(f, a, size, flags, pc);
  }
  // Random order: preempt now and then, so that a segment of one thread interleaves with others.
  if (w->random && (splitmix(w->rng) & 15) == 0) yield(f);
}

}  // namespace

extern "C" void opgen_fiber_main(Fiber* f) {
  Worker* w = f->w;
  w->desc->run_thread(&f->ctx, w->desc->user);
  f->state = F_DONE;
  w->done++;
  w->warps[f->ctx.warp].exited |= 1u << f->ctx.lane;
  recheck_warp(w, f->ctx.warp, f);
  yield(f);
  abort();  // a finished fiber is never resumed
}

namespace {

// ------------------------------------------------------------- scheduler --

void describe_fault(Worker* w) {
  const int sig = w->fault_sig;
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, sig);
  pthread_sigmask(SIG_UNBLOCK, &s, nullptr);  // we left the handler by longjmp
  const char* what = "illegal instruction (SIGILL)";
  if (sig == SIGSEGV) what = "invalid memory access (SIGSEGV)";
  else if (sig == SIGBUS) what = "bus error (SIGBUS)";
  else if (sig == SIGFPE) what = w->fault_code == FPE_INTDIV ? "integer division by zero (SIGFPE)" : "arithmetic exception (SIGFPE)";
  // The sanitize build compiles UBSan's checks to traps (ud2).
  if (sig == SIGILL && w->san)
    what = "undefined behaviour caught by the sanitize build (signed integer overflow, a shift by a negative or "
           "too large amount, or a misaligned access: a GPU faults on the last)";
  const char* addr = static_cast<const char*>(w->fault_addr);
  size_t p = where(w, w->cur, w->err, sizeof w->err);
  if (sig == SIGSEGV && addr >= w->stacks && addr < w->stacks + w->map_len &&
      static_cast<size_t>(addr - w->stacks) % w->slot < g_page) {
    p = appendf(w->err, sizeof w->err, p,
                "stack overflow: a CUDA thread used more than its %zu KiB fiber stack (large local arrays or deep "
                "recursion); set OPGEN_HOST_STACK_KB to a larger value",
                w->stack_size / 1024);
  } else {
    p = appendf(w->err, sizeof w->err, p, "%s", what);
    if (sig == SIGSEGV || sig == SIGBUS)
      p = appendf(w->err, sizeof w->err, p,
                  " at address %p (out-of-bounds index, or a pointer that is not a live array?)", w->fault_addr);
  }
  append_pc(w->err, sizeof w->err, p, w->fault_pc);
  w->failed = 1;
}

void run_block(Worker* w, uint64_t lin) {
  const opgen_launch_cfg* c = w->desc->cfg;
  const unsigned bx = c->block[0], by = c->block[1], bz = c->block[2];
  const uint64_t gx = c->grid[0], gy = c->grid[1];
  w->bidx = uint3{static_cast<unsigned>(lin % gx), static_cast<unsigned>((lin / gx) % gy),
                  static_cast<unsigned>(lin / (gx * gy))};
  w->n = bx * by * bz;
  w->lin = lin;
  w->done = w->at_barrier = w->bar_true = 0;
  w->bar_kind = OPGEN_SYNC_PLAIN;
  w->bar_file = nullptr;
  w->bar_line = 0;
  w->failed = 0;
  w->cur = nullptr;
  w->defer = 0;
  w->bep = 0;
  w->block_serial++;
  memset(&w->mem, 0, sizeof w->mem);
  w->desc->block_begin(w->desc->user, c->shmem, &w->mem);
  if (w->san && w->mem.tls_size * sizeof(Shadow) > w->sh_len) {  // shadow of the shared memory
    if (w->sh) munmap(w->sh, w->sh_len);
    w->sh = map_shadow(w->mem.tls_size);
    w->sh_len = w->sh ? w->mem.tls_size * sizeof(Shadow) : 0;
    if (!w->sh) w->mem.tls_size = 0;  // no memory for it: shared memory goes unchecked
  }
  const unsigned nw = (w->n + 31) / 32;
  for (unsigned k = 0; k < nw; ++k) {
    const unsigned lanes = w->n - 32 * k >= 32 ? 32 : w->n - 32 * k;
    w->warps[k].existing = lanes == 32 ? ~0u : (1u << lanes) - 1;
    w->warps[k].exited = w->warps[k].waiting = 0;
  }
  const dim3 bdim(bx, by, bz), gdim(c->grid[0], c->grid[1], c->grid[2]);
  uint3 t{0, 0, 0};
  for (unsigned i = 0; i < w->n; ++i) {
    Fiber* f = &w->fibers[i];
    f->ctx.thread_idx = t;
    if (++t.x == bx) {  // x fastest, like CUDA's linear thread id
      t.x = 0;
      if (++t.y == by) {
        t.y = 0;
        ++t.z;
      }
    }
    f->ctx.block_idx = w->bidx;
    f->ctx.block_dim = bdim;
    f->ctx.grid_dim = gdim;
    f->ctx.linear = i;
    f->ctx.lane = i & 31;
    f->ctx.warp = i >> 5;
    f->w = w;
    f->state = F_RUNNABLE;
    f->bar_result = 0;
    memset(f->vc, 0, sizeof f->vc);
    f->vc[f->ctx.lane] = 1;
    prepare_fiber(w, f, i);
    w->order[i] = i;
  }
  if (w->random) w->rng = c->seed ^ (lin + 1) * 0xD1B54A32D192ED03ull;

  int solo = -1;  // random order: the warp running alone, if any
  if (sigsetjmp(w->jb, 0)) {  // a fiber faulted (see on_fault)
    w->in_kernel = 0;
    describe_fault(w);
    return;
  }
  for (;;) {
    if (w->random) {
      for (unsigned i = w->n - 1; i > 0; --i) {
        const unsigned j = static_cast<unsigned>(splitmix(w->rng) % (i + 1));
        const unsigned t = w->order[i];
        w->order[i] = w->order[j];
        w->order[j] = t;
      }
    }
    // Random order also lets one warp run alone for as long as it can (past __syncwarp and warp
    // collectives, up to a __syncthreads or its end), so that it runs several segments ahead of
    // warps that have not started: code that orders warps with warp-level sync shows.
    const unsigned nw = (w->n + 31) / 32;
    w->defer = 0;
    if (w->random && nw > 1) {
      bool can_run = false;
      for (unsigned i = 32 * solo; solo >= 0 && i < w->n && i < 32 * (solo + 1u); ++i)
        can_run |= w->fibers[i].state == F_RUNNABLE;
      if (!can_run) solo = (splitmix(w->rng) & 1) ? static_cast<int>(splitmix(w->rng) % nw) : -1;
      if (solo >= 0) w->defer = (nw >= 32 ? ~0u : (1u << nw) - 1) & ~(1u << solo);
    }
    w->pass_pos = 0;
    w->progress = false;
    if (Fiber* f = next_runnable(w)) {
      w->in_kernel = 1;
      resume(w, f);  // returns when no fiber is runnable for the rest of this pass
      w->in_kernel = 0;
    }
    if (w->failed) return;
    if (w->done == w->n) return;
    if (!w->progress && w->defer) continue;  // only deferred warps could run: next pass
    if (!w->progress) {
      report_deadlock(w);
      return;
    }
  }
}

// ----------------------------------------------------------- worker pool --

struct Job {
  const opgen_launch_desc* desc;
  uint64_t nblocks;
  uint64_t next;  // atomic block counter
  uint64_t perm_a, perm_b;
  int random;
  int nparticipants;
  int active;
  int failed;  // atomic
  char err[2048];
};

pthread_mutex_t g_launch_mu = PTHREAD_MUTEX_INITIALIZER;  // one launch at a time (like one stream)
pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t g_work_cv = PTHREAD_COND_INITIALIZER;
pthread_cond_t g_done_cv = PTHREAD_COND_INITIALIZER;
Worker* g_workers[kMaxWorkers];  // pool threads (helpers)
Worker g_caller;                  // the launching thread runs blocks too (launches are serialised)
int g_nworkers = 0;
uint64_t g_gen = 0;
Job g_job;

void job_fail(const char* msg) {
  pthread_mutex_lock(&g_mu);
  if (!g_job.failed) {
    snprintf(g_job.err, sizeof g_job.err, "%s", msg);
    __atomic_store_n(&g_job.failed, 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&g_mu);
}

void work(Worker* w) {
  const opgen_launch_desc* d = g_job.desc;
  const opgen_launch_cfg* c = d->cfg;
  const unsigned n = c->block[0] * c->block[1] * c->block[2];
  if (!ensure_stacks(w, n, c->stack_size)) {
    job_fail("out of memory allocating fiber stacks (lower OPGEN_HOST_STACK_KB?)");
    return;
  }
  w->desc = d;
  w->random = g_job.random;
  w->san = c->sanitize != 0;
#ifdef OPGEN_ASM_SWITCH
  uint32_t mx;
  uint16_t cw;
  asm volatile("stmxcsr %0" : "=m"(mx));
  asm volatile("fnstcw %0" : "=m"(cw));
  w->csr = mx | static_cast<uint64_t>(cw) << 32;
#endif
  for (;;) {
    if (__atomic_load_n(&g_job.failed, __ATOMIC_ACQUIRE)) break;
    const uint64_t i = __atomic_fetch_add(&g_job.next, 1, __ATOMIC_RELAXED);
    if (i >= g_job.nblocks) break;
    uint64_t lin = i;
    if (g_job.random)
      lin = static_cast<uint64_t>((static_cast<unsigned __int128>(g_job.perm_a) * i + g_job.perm_b) % g_job.nblocks);
    run_block(w, lin);
    if (w->failed) {
      job_fail(w->err);
      break;
    }
  }
}

constexpr size_t kAltStack = 64 * 1024;

// The fault handler needs its own stack to report a fiber stack overflow.
void set_altstack(Worker* w, stack_t* old) {
  if (!w->altstack) {
    void* m = mmap(nullptr, kAltStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    w->altstack = m == MAP_FAILED ? nullptr : m;
  }
  if (!w->altstack) return;
  stack_t ss;
  ss.ss_sp = w->altstack;
  ss.ss_size = kAltStack;
  ss.ss_flags = 0;
  sigaltstack(&ss, old);
}

void* worker_main(void* arg) {
  Worker* w = static_cast<Worker*>(arg);
  tls_worker = w;
  // Asynchronous signals (SIGINT...) belong to Python's main thread.
  sigset_t all;
  sigfillset(&all);
  sigdelset(&all, SIGSEGV);
  sigdelset(&all, SIGBUS);
  sigdelset(&all, SIGFPE);
  sigdelset(&all, SIGILL);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  set_altstack(w, nullptr);
  pthread_mutex_lock(&g_mu);
  for (;;) {
    while (w->gen_seen == g_gen) pthread_cond_wait(&g_work_cv, &g_mu);
    w->gen_seen = g_gen;
    if (w->id >= g_job.nparticipants) continue;
    pthread_mutex_unlock(&g_mu);
    work(w);
    pthread_mutex_lock(&g_mu);
    if (--g_job.active == 0) pthread_cond_signal(&g_done_cv);
  }
  return nullptr;
}

// ----------------------------------------------------------- fault hooks --

const int kFaultSigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
struct sigaction g_old_action[sizeof kFaultSigs / sizeof kFaultSigs[0]];
bool g_signals_installed = false;

void on_fault(int sig, siginfo_t* si, void* uc) {
  Worker* w = tls_worker;
  if (w && w->in_kernel) {
    w->fault_sig = sig;
    w->fault_code = si->si_code;
    w->fault_addr = si->si_addr;
#if defined(__x86_64__)
    w->fault_pc = reinterpret_cast<void*>(static_cast<ucontext_t*>(uc)->uc_mcontext.gregs[REG_RIP]);
#else
    (void)uc;
    w->fault_pc = nullptr;
#endif
    siglongjmp(w->jb, 1);
  }
  // Not a kernel fault: restore the previous handler; the instruction faults again and it runs.
  for (size_t k = 0; k < sizeof kFaultSigs / sizeof kFaultSigs[0]; ++k)
    if (kFaultSigs[k] == sig) sigaction(sig, &g_old_action[k], nullptr);
  if (si->si_code <= 0) raise(sig);  // sent by kill()/raise(): deliver it again
}

void install_signal_handlers() {
  if (g_signals_installed) return;
  g_signals_installed = true;
  const char* env = getenv("OPGEN_HOST_CATCH_SIGNALS");
  if (env && env[0] == '0') return;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (size_t k = 0; k < sizeof kFaultSigs / sizeof kFaultSigs[0]; ++k)
    sigaction(kFaultSigs[k], &sa, &g_old_action[k]);
}

void after_fork_child() {
  // Worker threads do not survive fork(): start from an empty pool.
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
  g_launch_mu = m;
  g_mu = m;
  g_work_cv = cv;
  g_done_cv = cv;
  g_nworkers = 0;
}

int ensure_workers(int n) {
  static bool atfork = false;
  if (!atfork) {
    atfork = true;
    pthread_atfork(nullptr, nullptr, after_fork_child);
    long ps = sysconf(_SC_PAGESIZE);
    if (ps > 0) g_page = static_cast<size_t>(ps);
  }
  while (g_nworkers < n) {
    Worker* w = static_cast<Worker*>(calloc(1, sizeof(Worker)));
    if (!w) break;
    w->id = g_nworkers;
    w->gen_seen = g_gen;
    pthread_t th;
    if (pthread_create(&th, nullptr, worker_main, w) != 0) {
      free(w);
      break;
    }
    pthread_detach(th);
    g_workers[g_nworkers++] = w;
  }
  return g_nworkers;
}

bool san_begin(const opgen_launch_cfg* c) {
  memset(&g_san, 0, sizeof g_san);
  g_san.cfg = c;
  const uint64_t threads = static_cast<uint64_t>(c->grid[0]) * c->grid[1] * c->grid[2] * c->block[0] * c->block[1] *
                           c->block[2];
  g_san.races = threads < 0xFFFFFFFFull;  // ids (thread + 1) fit 32 bits
  g_san.nbufs = c->nbuffers;
  g_san.bufs = static_cast<SanBuf*>(calloc(c->nbuffers + 1, sizeof(SanBuf)));
  g_san.var_stamp = static_cast<uint64_t*>(calloc(c->nvars + 1, sizeof(uint64_t)));
  g_san.var_used = static_cast<unsigned char*>(calloc(c->nvars + 1, 1));
  if (!g_san.bufs || !g_san.var_stamp || !g_san.var_used) return false;
  for (int i = 0; i < c->nbuffers; ++i) g_san.bufs[i].r = &c->buffers[i];
  // Worker block serials only grow, so stamps of an earlier launch never match: start at "none".
  return true;
}

void san_end() {
  for (int i = 0; i < g_san.nbufs; ++i)
    if (g_san.bufs[i].shadow) {
      const uint64_t g = g_san.bufs[i].r->granule ? g_san.bufs[i].r->granule : 1;
      munmap(g_san.bufs[i].shadow, (g_san.bufs[i].r->size + g - 1) / g * sizeof(Shadow));
    }
  free(g_san.bufs);
  free(g_san.var_stamp);
  free(g_san.var_used);
  memset(&g_san, 0, sizeof g_san);
}

uint64_t gcd(uint64_t a, uint64_t b) {
  while (b) {
    const uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

int rt_launch(const opgen_launch_desc* d, char* err, size_t errlen) {
  const opgen_launch_cfg* c = d->cfg;
  const uint64_t nblocks = static_cast<uint64_t>(c->grid[0]) * c->grid[1] * c->grid[2];
  if (nblocks == 0) return 0;
  // A batch holds the launch lock and has set the fault handler's stack once for all its launches.
  const bool batched = tls_in_batch;
  if (!batched) pthread_mutex_lock(&g_launch_mu);
  install_signal_handlers();
  int want = c->nworkers < 1 ? 1 : c->nworkers > kMaxWorkers ? kMaxWorkers : c->nworkers;
  if (static_cast<uint64_t>(want) > nblocks) want = static_cast<int>(nblocks);
  if (c->sanitize) {
    want = 1;  // one worker: the shadow needs no locks, and findings are deterministic
    if (!san_begin(c)) {
      if (!batched) pthread_mutex_unlock(&g_launch_mu);
      snprintf(err, errlen, "out of memory for the sanitizer's launch state");
      return 1;
    }
  }
  const int helpers = ensure_workers(want - 1);  // the caller is the remaining worker
  pthread_mutex_lock(&g_mu);
  g_job.desc = d;
  g_job.nblocks = nblocks;
  g_job.next = 0;
  g_job.failed = 0;
  g_job.err[0] = 0;
  g_job.random = c->random_order != 0;
  g_job.perm_a = 1;
  g_job.perm_b = 0;
  if (g_job.random && nblocks > 1) {
    uint64_t s = c->seed ^ 0x5851F42D4C957F2Dull;
    do g_job.perm_a = 1 + splitmix(s) % (nblocks - 1);
    while (gcd(g_job.perm_a, nblocks) != 1);
    g_job.perm_b = splitmix(s) % nblocks;
  }
  g_job.nparticipants = want - 1 < helpers ? want - 1 : helpers;
  g_job.active = g_job.nparticipants;
  if (g_job.nparticipants > 0) {
    g_gen++;
    pthread_cond_broadcast(&g_work_cv);
  }
  pthread_mutex_unlock(&g_mu);
  // Run blocks on this thread as well: no wake-up latency for small launches.
  Worker* const saved = tls_worker;
  stack_t old_alt;
  old_alt.ss_flags = SS_DISABLE;
  if (!batched) set_altstack(&g_caller, &old_alt);
  tls_worker = &g_caller;
  work(&g_caller);
  tls_worker = saved;
  if (!batched && g_caller.altstack) sigaltstack(&old_alt, nullptr);
  pthread_mutex_lock(&g_mu);
  while (g_job.active > 0) pthread_cond_wait(&g_done_cv, &g_mu);
  const int failed = g_job.failed;
  if (failed && err && errlen) snprintf(err, errlen, "%s", g_job.err);
  pthread_mutex_unlock(&g_mu);
  if (c->sanitize) san_end();
  if (!batched) pthread_mutex_unlock(&g_launch_mu);
  return failed ? 1 : 0;
}

// Launches queued by Python (codegen/runtime/host.py LaunchQueue), run in order by one call: each
// record is an opgen_batch_record, then (args == 0) its arguments, one 16-byte slot each. Stops at
// the first launch that fails (its message in err, as a launch of its own would give); returns how
// many ran, plus kBatchSkipped where it stopped before a launch with an array that is not
// C-contiguous (Python launches that one on its own, whose checks name the argument).
constexpr uint64_t kBatchSkipped = 1ull << 63;

// Where CPython keeps a tuple's items, and a NumPy array its data pointer and flags (a NumPy
// scalar its value, at data): found by Python on probes, set once (opgen_rt_set_object_layout).
struct ObjectLayout {
  uint64_t items, data, flags;
} g_layout;

const char* args_from_tuple(const opgen_batch_record& r, unsigned char* args, uint64_t* skipped) {
  if (!g_layout.items || !g_layout.data || !g_layout.flags) return "argument objects, but no object layout";
  if (r.nargs > 64) return "argument objects beyond the masks' 64 bits";
  const unsigned char* const tuple = reinterpret_cast<const unsigned char*>(r.args);
  for (uint32_t k = 0; k < r.nargs; ++k) {
    unsigned char* const slot = args + 16u * k;
    const unsigned char* o;
    memcpy(&o, tuple + g_layout.items + 8u * k, 8);
    if (r.nulls >> k & 1) {  // None: a null pointer
      memset(slot, 0, 8);
      continue;
    }
    if (r.objects >> k & 1) {  // an array (a scalar object is smaller than flags)
      int flags;
      memcpy(&flags, o + g_layout.flags, sizeof flags);
      if (!(flags & 1)) *skipped = kBatchSkipped;  // not NPY_ARRAY_C_CONTIGUOUS
    } else if (!(r.scalars >> k & 1)) {
      return "an argument neither array, None nor scalar";
    }
    // (a scalar's value: 8 bytes, its own and the rest of the object, which has at least that many)
    memcpy(slot, o + g_layout.data, 8);
  }
  return nullptr;
}

uint64_t run_batch(const unsigned char* blob, uint64_t count, char* err, size_t errlen) {
  typedef int (*launch_fn)(const opgen_launch_cfg*, void**, char*, size_t);
  alignas(16) unsigned char args[OPGEN_BATCH_MAX_ARGS * 16];
  void* ptrs[OPGEN_BATCH_MAX_ARGS];
  for (unsigned k = 0; k < OPGEN_BATCH_MAX_ARGS; ++k) ptrs[k] = args + 16u * k;
  pthread_mutex_lock(&g_launch_mu);  // one lock for the batch (launches of other threads wait)
  stack_t old_alt;
  old_alt.ss_flags = SS_DISABLE;
  set_altstack(&g_caller, &old_alt);
  tls_in_batch = true;
  uint64_t i = 0, skipped = 0;
  for (; i < count; ++i) {
    opgen_batch_record r;
    memcpy(&r, blob, sizeof r);
    blob += sizeof r;
    const char* bad = r.nargs > OPGEN_BATCH_MAX_ARGS ? "too many arguments" : nullptr;
    if (!bad && r.args) {
      bad = args_from_tuple(r, args, &skipped);
    } else if (!bad) {
      memcpy(args, blob, 16u * r.nargs);  // (aligned copies: the blob is a Python bytes object)
      blob += 16u * r.nargs;
    }
    if (bad) {
      snprintf(err, errlen, "launch batch: record %llu: %s", static_cast<unsigned long long>(i), bad);
      break;
    }
    if (skipped) break;
    if (reinterpret_cast<launch_fn>(r.launch)(reinterpret_cast<const opgen_launch_cfg*>(r.cfg), ptrs, err, errlen))
      break;
  }
  tls_in_batch = false;
  if (g_caller.altstack) sigaltstack(&old_alt, nullptr);
  pthread_mutex_unlock(&g_launch_mu);
  return i | skipped;
}

const opgen_rt_api g_api = {OPGEN_EMU_ABI_VERSION, rt_launch,      rt_sync_block, rt_warp_op,
                            rt_active_mask,        rt_fail,        rt_san_access};

}  // namespace

OPGEN_API const opgen_rt_api* opgen_rt_get_api() {
  g_api_addr = &g_api;
  g_api_size = sizeof g_api;
  return &g_api;
}

OPGEN_API uint64_t opgen_rt_run_batch(const unsigned char* blob, uint64_t count, char* err, size_t errlen) {
  return run_batch(blob, count, err, errlen);
}

OPGEN_API void opgen_rt_set_object_layout(uint64_t tuple_items, uint64_t array_data, uint64_t array_flags) {
  g_layout = ObjectLayout{tuple_items, array_data, array_flags};
}
