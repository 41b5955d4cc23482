// rt/fibers.cpp: fibers, one per CUDA thread of the running block: the context switch, their
// stacks (reused across blocks), the direct hand-over from one fiber to the next, and a fiber's
// start and end.
#include "state.h"  // (for readers and tools: runtime.cpp includes it once, first)

// ---------------------------------------------------------------------------
// Context switch. x86-64: save callee-saved registers, MXCSR and the x87
// control word on the old stack, swap stack pointers; the (slow) ldmxcsr and
// fldcw only run when the incoming context's control words differ, which
// they practically never do. Elsewhere: ucontext.
// ---------------------------------------------------------------------------
#ifdef OPGEN_ASM_SWITCH
extern "C" void opgen_switch(void** save_sp, void* new_sp);
extern "C" void opgen_fiber_start();
extern "C" void opgen_call_alone(void (*fn)(const opgen_thread_ctx*, void*), const opgen_thread_ctx* ctx, void* user,
                                 void* top);
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

# opgen_call_alone(fn, ctx, user, top): fn(ctx, user) on the stack below `top` (16-byte aligned), then
# back on the caller's. The control words are put back if fn changed them, as a switch back does.
  .p2align 4
  .globl opgen_call_alone
  .hidden opgen_call_alone
  .type opgen_call_alone,@function
opgen_call_alone:
  pushq %rbp
  movq %rsp, %rbp
  subq $16, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rcx, %rsp
  movq %rdi, %rax
  movq %rsi, %rdi
  movq %rdx, %rsi
  call *%rax
  leaq -16(%rbp), %rsp
  stmxcsr 8(%rsp)
  fnstcw 12(%rsp)
  movl 8(%rsp), %eax
  cmpl (%rsp), %eax
  jne 2f
  movzwl 12(%rsp), %eax
  cmpw 4(%rsp), %ax
  jne 2f
1:
  leave
  ret
2:
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  jmp 1b
  .size opgen_call_alone, .-opgen_call_alone
)");
#endif

namespace {

size_t g_page = 4096;  // set from sysconf by ensure_workers

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
  if (g) {
    w->cur = g;
  } else if (w->alone) {  // the block's one thread, called on its own (run_alone: no pass, no other fiber)
    if (f->state == F_RUNNABLE) return;  // its barrier or warp collective completed at once
    siglongjmp(w->jb, 2);                // it failed (or waits for nothing that can come): run_block reports
  }
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

#ifdef OPGEN_ASM_SWITCH
// A block of one thread with no sanitizer and no random order: that thread called on fiber 0's stack
// (its size and guard page: an overflow is reported as a fiber's), without the fiber's context or the
// scheduler's passes; a barrier or a warp collective of one thread completes at once (yield returns).
void run_alone(Worker* w, Fiber* f) {
  w->cur = f;
  w->pass_pos = w->n;  // (the pass is over: yield finds no fiber to hand over to)
  w->in_kernel = 1;
  opgen_call_alone(w->desc->run_thread, &f->ctx, w->desc->user, stack_top(w, 0));
  w->in_kernel = 0;
  f->state = F_DONE;
  w->done = 1;
  w->warps[0].exited = 1;
}
#endif

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
