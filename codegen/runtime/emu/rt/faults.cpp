// rt/faults.cpp: synchronous faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL) inside a fiber: the handler
// (on a per-worker signal stack) jumps back to the scheduler, which reports the fault; faults
// outside kernels go to the previous handler.
#include "state.h"  // (for readers and tools: runtime.cpp includes it once, first)

namespace {

// initial-exec: readable from a signal handler without __tls_get_addr allocating.
__thread Worker* tls_worker __attribute__((tls_model("initial-exec")));

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

// The launching thread's fault stack. The caller's worker (g_caller) runs blocks on whichever thread
// launches, so its stack is swapped in per launch and the thread's own put back: two syscalls a
// launch. A thread with no signal stack of its own is given one of its own instead, kept until it
// exits (a batch then costs no syscall); whoever installs another later saves and restores ours.
struct CallerAltstack {
  bool checked = false;  // this thread's signal stack was looked at
  void* kept = nullptr;  // ours, installed for good
  ~CallerAltstack() {
    if (!kept) return;
    stack_t cur;
    if (sigaltstack(nullptr, &cur) == 0 && cur.ss_sp == kept && !(cur.ss_flags & SS_DISABLE)) {
      stack_t off;
      memset(&off, 0, sizeof off);
      off.ss_flags = SS_DISABLE;
      sigaltstack(&off, nullptr);
    }
    munmap(kept, kAltStack);
  }
};
thread_local CallerAltstack tls_caller_alt;

bool caller_altstack_enter(stack_t* old) {
  CallerAltstack& a = tls_caller_alt;
  if (a.kept) return false;
  if (!a.checked) {
    a.checked = true;
    stack_t cur;
    if (sigaltstack(nullptr, &cur) == 0 && (cur.ss_flags & SS_DISABLE)) {
      void* m = mmap(nullptr, kAltStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (m != MAP_FAILED) {
        stack_t ss;
        ss.ss_sp = m;
        ss.ss_size = kAltStack;
        ss.ss_flags = 0;
        if (sigaltstack(&ss, nullptr) == 0) {
          a.kept = m;
          return false;
        }
        munmap(m, kAltStack);
      }
    }
  }
  old->ss_flags = SS_DISABLE;
  set_altstack(&g_caller, old);
  return g_caller.altstack != nullptr;
}

void caller_altstack_leave(bool restore, const stack_t* old) {
  if (restore) sigaltstack(old, nullptr);
}

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

int install_signal_handlers(char* err, size_t errlen) {
  if (g_signals_installed) return 0;
  int catch_signals;
  if (setting_host_catch_signals(&catch_signals, err, errlen)) return 1;  // (read again at the next launch)
  g_signals_installed = true;
  if (!catch_signals) return 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (size_t k = 0; k < sizeof kFaultSigs / sizeof kFaultSigs[0]; ++k)
    sigaction(kFaultSigs[k], &sa, &g_old_action[k]);
  return 0;
}

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

}  // namespace
