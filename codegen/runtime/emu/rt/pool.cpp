// rt/pool.cpp: the worker pool (helper OS threads, started on demand, rebuilt after fork) and
// rt_launch, which runs one launch's blocks on it and on the calling thread.
#include "state.h"  // (for readers and tools: runtime.cpp includes it once, first)

namespace {

constexpr int kMaxWorkers = 256;

struct Job {
  const opgen_launch_desc* desc;  // a launch's blocks, or null: task's parts (rt_parallel, rt_lanes)
  void (*task)(void*, uint64_t);
  void* task_arg;
  int fixed;        // task's parts are the workers' own (rt_lanes): helper h runs part h + 1, the caller 0
  int claimed[kMaxWorkers];  // (fixed) part t was taken, by its helper or by the caller (atomic)
  uint64_t first;   // the launch's first block (cfg block_lo)
  uint64_t nblocks;
  uint64_t next;  // atomic block counter
  uint64_t perm_a, perm_b;
  int random;
  int nparticipants;  // helpers asked to take part (ids below it)
  int active;         // helpers that joined and have not finished
  int closed;         // the caller ran out of blocks: a helper waking now has nothing to take
  uint64_t busy_ns;   // the workers' time in work(), summed (under g_mu)
  int failed;  // atomic
  char err[2048];
};

pthread_mutex_t g_launch_mu = PTHREAD_MUTEX_INITIALIZER;  // one launch at a time (like one stream)
pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t g_work_cv = PTHREAD_COND_INITIALIZER;
pthread_cond_t g_done_cv = PTHREAD_COND_INITIALIZER;
Worker* g_workers[kMaxWorkers];  // pool threads (helpers)
pthread_t g_threads[kMaxWorkers];  // their threads
Worker g_caller;                  // the launching thread runs blocks too (launches are serialised)
int g_nworkers = 0;
int g_helpers_off = -1;  // the CPU the helpers may not run on (keep_helpers_off_caller), -1: none
uint64_t g_gen = 0;  // the job's number (written under g_mu, read by watching helpers without it)
// How long a helper that finished a job watches for the next before it sleeps on g_work_cv, where the
// pool last ran a GEMM's parts (rt_parallel, at g_split_ns) less than kWatchAfterSplitNs ago.
constexpr uint64_t kWatchNs = 200000;
constexpr uint64_t kWatchAfterSplitNs = 2000000;
uint64_t g_split_ns = 0;
Job g_job;

// A launch whose blocks took under kInlineNs of work, summed over the workers (their threads' CPU time,
// which another process's time on a busy machine does not inflate), the last time this kernel ran with
// this configuration runs on the calling thread alone: sharing that much work saves less than waking a
// helper costs (several µs on a quiet machine, tens on a loaded one). The first launch of a kernel and
// configuration, and every larger one, uses the pool. (Guarded by g_launch_mu.)
constexpr uint64_t kInlineNs = 20000;
// A launch of under kCheckedNs of work whose last run on the pool took more than 1/kMinSpeedup of that
// work in wall time (the helpers came too late to share it: woken onto a core a BLAS worker spins on,
// or one another process holds) runs its next kPoolRetry launches on the calling thread, then tries the
// pool again. Larger launches always use the pool: a late helper costs them a small part of their time.
constexpr uint64_t kCheckedNs = 1000000;
constexpr double kMinSpeedup = 1.1;
constexpr uint32_t kPoolRetry = 8;
struct LaunchTime {
  void (*kernel)(const opgen_thread_ctx*, void*);
  uint32_t grid[3], block[3];
  uint64_t range[2];  // cfg block_lo, block_hi: a part of the grid is a configuration of its own
  uint64_t busy_ns;
  uint32_t inline_left;  // launches still to run on the caller alone (the pool did not pay)
};
LaunchTime g_times[256];
uint64_t g_wakes = 0;  // launches that woke helpers (opgen_rt_pool_wakes)

LaunchTime& launch_time(const opgen_launch_desc* d) {
  const opgen_launch_cfg* c = d->cfg;
  uint64_t h = reinterpret_cast<uintptr_t>(d->run_thread);
  for (int i = 0; i < 3; ++i) h = (h ^ c->grid[i] ^ (static_cast<uint64_t>(c->block[i]) << 32)) * 0x100000001B3ull;
  h = (h ^ c->block_lo ^ (c->block_hi << 20)) * 0x100000001B3ull;
  return g_times[(h ^ h >> 29) % 256];
}

bool same_launch(const LaunchTime& t, const opgen_launch_desc* d) {
  const opgen_launch_cfg* c = d->cfg;
  return t.kernel == d->run_thread && !memcmp(t.grid, c->grid, sizeof t.grid) &&
         !memcmp(t.block, c->block, sizeof t.block) && t.range[0] == c->block_lo && t.range[1] == c->block_hi;
}

uint64_t clock_ns(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}
uint64_t cpu_ns() { return clock_ns(CLOCK_THREAD_CPUTIME_ID); }  // the calling thread's CPU time
uint64_t mono_ns() { return clock_ns(CLOCK_MONOTONIC); }

void job_fail(Job& job, const char* msg) {
  pthread_mutex_lock(&g_mu);
  if (!job.failed) {
    snprintf(job.err, sizeof job.err, "%s", msg);
    __atomic_store_n(&job.failed, 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&g_mu);
}

// Takes rt_parallel's parts until none is left.
void work_parts(Job& job) {
  for (;;) {
    const uint64_t i = __atomic_fetch_add(&job.next, 1, __ATOMIC_RELAXED);
    if (i >= job.nblocks) break;
    job.task(job.task_arg, i);
  }
}

// `job` set for `nblocks` blocks (or parts) that up to `participants` helpers may share (under g_mu where
// it is g_job; the caller fills in what the blocks are).
void reset_job(Job& job, uint64_t nblocks, int participants) {
  job.nblocks = nblocks;
  job.next = 0;
  job.failed = 0;
  job.err[0] = 0;
  job.nparticipants = participants;
  job.active = 0;
  job.fixed = 0;
  job.first = 0;
  job.closed = 0;
  job.busy_ns = 0;
}

// Wakes the helpers for g_job (under g_mu).
void wake_helpers() {
  __atomic_add_fetch(&g_gen, 1, __ATOMIC_RELEASE);
  g_wakes++;
  pthread_cond_broadcast(&g_work_cv);
}

// Closes g_job (a helper waking now finds nothing to take) and waits for the helpers that joined it
// (under g_mu).
void close_job() {
  g_job.closed = 1;
  while (g_job.active > 0) pthread_cond_wait(&g_done_cv, &g_mu);
}

void work(Worker* w, Job& job) {
  if (!job.desc) {
    if (job.fixed) {
      const int part = w->id + 1;
      if (!__atomic_exchange_n(&job.claimed[part], 1, __ATOMIC_ACQ_REL))
        job.task(job.task_arg, static_cast<uint64_t>(part));
    } else {
      work_parts(job);
    }
    return;
  }
  const opgen_launch_desc* d = job.desc;
  const opgen_launch_cfg* c = d->cfg;
  const unsigned n = c->block[0] * c->block[1] * c->block[2];
  if (!ensure_stacks(w, n, c->stack_size)) {
    job_fail(job, "out of memory allocating fiber stacks (lower OPGEN_HOST_STACK_KB?)");
    return;
  }
  w->desc = d;
  w->random = job.random;
  w->san = c->sanitize != 0;
#ifdef OPGEN_ASM_SWITCH
  uint32_t mx;
  uint16_t cw;
  asm volatile("stmxcsr %0" : "=m"(mx));
  asm volatile("fnstcw %0" : "=m"(cw));
  w->csr = mx | static_cast<uint64_t>(cw) << 32;
#endif
  for (;;) {
    if (__atomic_load_n(&job.failed, __ATOMIC_ACQUIRE)) break;
    const uint64_t i = __atomic_fetch_add(&job.next, 1, __ATOMIC_RELAXED);
    if (i >= job.nblocks) break;
    uint64_t lin = i;
    if (job.random)
      lin = static_cast<uint64_t>((static_cast<unsigned __int128>(job.perm_a) * i + job.perm_b) % job.nblocks);
    run_block(w, job.first + lin);
    if (w->failed) {
      job_fail(job, w->err);
      break;
    }
  }
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
    if (w->id >= g_job.nparticipants || g_job.closed) continue;
    ++g_job.active;
    pthread_mutex_unlock(&g_mu);
    const uint64_t t0 = cpu_ns();
    work(w, g_job);
    const uint64_t busy = cpu_ns() - t0;
    pthread_mutex_lock(&g_mu);
    g_job.busy_ns += busy;
    if (--g_job.active == 0) pthread_cond_signal(&g_done_cv);
    // While the pool runs split GEMMs (the BLAS's threads' work, gemm.cpp), watch for the next job a
    // while before sleeping, as the BLAS's own threads do: a recurrent op's steps hand the pool a
    // GEMM's parts and a kernel launch every ~100 µs, and a sleeping helper wakes too late to share them.
    pthread_mutex_unlock(&g_mu);
    const uint64_t now = mono_ns();
    if (now - __atomic_load_n(&g_split_ns, __ATOMIC_RELAXED) < kWatchAfterSplitNs) {
      const uint64_t until = now + kWatchNs;
      while (__atomic_load_n(&g_gen, __ATOMIC_ACQUIRE) == w->gen_seen && mono_ns() < until) __builtin_ia32_pause();
    }
    pthread_mutex_lock(&g_mu);
  }
  return nullptr;
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
  g_helpers_off = -1;
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
    pthread_setname_np(th, "opgen-pool");  // (what a profile or /proc names it)
    g_threads[g_nworkers] = th;
    g_workers[g_nworkers++] = w;
    g_helpers_off = -1;  // the new helper may run anywhere yet
  }
  return g_nworkers;
}

// A helper woken while the other cores look busy (a BLAS worker spinning between the GEMMs of a
// recurrent op's steps) is placed on the waking thread's core and preempts it: the launch then runs on
// one core, its caller waiting (bench/RESULTS.md, 2026-11-29 19:26: the LSTM's gate launches 1.2x the
// caller alone, the caller running none of their blocks). So the helpers may run wherever the caller
// may, except on the caller's CPU; set again when the caller has moved.
void keep_helpers_off_caller() {
  const int cpu = sched_getcpu();
  if (cpu < 0 || cpu == g_helpers_off) return;
  cpu_set_t set;
  if (pthread_getaffinity_np(pthread_self(), sizeof set, &set) != 0 || !CPU_ISSET(cpu, &set) || CPU_COUNT(&set) < 2)
    return;
  CPU_CLR(cpu, &set);
  for (int i = 0; i < g_nworkers; ++i) pthread_setaffinity_np(g_threads[i], sizeof set, &set);
  g_helpers_off = cpu;
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
  const uint64_t grid_blocks = static_cast<uint64_t>(c->grid[0]) * c->grid[1] * c->grid[2];
  if (grid_blocks == 0) return 0;
  const uint64_t first = c->block_hi ? c->block_lo : 0;  // the blocks it runs: [first, first + nblocks)
  if (c->block_hi && (c->block_lo >= c->block_hi || c->block_hi > grid_blocks)) {
    snprintf(err, errlen,
             "kernel '%s': block range [%llu, %llu) is not a non-empty part of its grid's %llu blocks (expected "
             "block_lo < block_hi <= %llu, or block_hi 0 for every block)",
             d->kernel, static_cast<unsigned long long>(c->block_lo), static_cast<unsigned long long>(c->block_hi),
             static_cast<unsigned long long>(grid_blocks), static_cast<unsigned long long>(grid_blocks));
    return 1;
  }
  const uint64_t nblocks = c->block_hi ? c->block_hi - c->block_lo : grid_blocks;
  // A batch holds the launch lock and has set the fault handler's stack once for all its launches.
  const bool batched = tls_in_batch;
  // A lane's launch (rt/batch.cpp, on the caller or a helper) runs alone on its thread's own worker.
  Worker* const lane_worker = tls_lane_worker;
  if (!batched) pthread_mutex_lock(&g_launch_mu);
  if (install_signal_handlers(err, errlen)) {
    if (!batched) pthread_mutex_unlock(&g_launch_mu);
    return 1;
  }
  int want = c->nworkers < 1 || lane_worker ? 1 : c->nworkers > kMaxWorkers ? kMaxWorkers : c->nworkers;
  if (static_cast<uint64_t>(want) > nblocks) want = static_cast<int>(nblocks);
  LaunchTime& last = launch_time(d);
  const bool timed = want > 1 && !c->sanitize;  // (a launch that cannot use the pool is not timed)
  const bool again = timed && same_launch(last, d);  // (the last launch of this kernel and configuration)
  uint32_t inline_left = again ? last.inline_left : 0;
  if (again && (last.busy_ns < kInlineNs || inline_left)) {
    want = 1;
    inline_left -= inline_left > 0;
  }
  if (c->sanitize) {
    want = 1;  // one worker: the shadow needs no locks, and findings are deterministic
    if (!san_begin(c)) {
      if (!batched) pthread_mutex_unlock(&g_launch_mu);
      snprintf(err, errlen, "out of memory for the sanitizer's launch state");
      return 1;
    }
  }
  const int helpers = want > 1 ? ensure_workers(want - 1) : 0;  // the caller is the remaining worker
  if (helpers > 0) keep_helpers_off_caller();
  const uint64_t wall0 = timed ? mono_ns() : 0;  // (the helpers' wake-up included)
  // A launch no helper takes part in runs from a job of its own, without g_mu: g_job stays as the last
  // shared job left it (closed, its helpers done), so a helper waking late for that one finds nothing.
  const int participants = want - 1 < helpers ? want - 1 : helpers;
  const bool shared = participants > 0;
  Job alone;
  Job& job = shared ? g_job : alone;
  if (shared) pthread_mutex_lock(&g_mu);
  reset_job(job, nblocks, participants);
  job.first = first;
  job.desc = d;
  job.task = nullptr;
  job.random = c->random_order != 0;
  job.perm_a = 1;
  job.perm_b = 0;
  if (job.random && nblocks > 1) {
    uint64_t s = c->seed ^ 0x5851F42D4C957F2Dull;
    do job.perm_a = 1 + splitmix(s) % (nblocks - 1);
    while (gcd(job.perm_a, nblocks) != 1);
    job.perm_b = splitmix(s) % nblocks;
  }
  if (shared) {
    wake_helpers();
    pthread_mutex_unlock(&g_mu);
  }
  // Run blocks on this thread as well: no wake-up latency for small launches.
  Worker* const saved = tls_worker;
  stack_t old_alt;
  const bool restore_alt = !batched && caller_altstack_enter(&old_alt);
  Worker* const me = lane_worker ? lane_worker : &g_caller;
  tls_worker = me;
  const uint64_t t0 = timed ? cpu_ns() : 0;
  work(me, job);
  const uint64_t busy = timed ? cpu_ns() - t0 : 0;
  tls_worker = saved;
  caller_altstack_leave(restore_alt, &old_alt);
  // Wait for the helpers that took part, not for those still waking up: a launch whose blocks the
  // caller ran alone (a tiny one) does not pay a helper's wake-up latency.
  OPGEN_PHASE(const uint64_t wait0 = mono_ns());
  if (shared) {
    pthread_mutex_lock(&g_mu);
    close_job();
  }
  OPGEN_PHASE(phase_launch(d, want, shared, mono_ns() - wait0));
  if (timed) {
    const uint64_t work_ns = job.busy_ns + busy;
    if (shared && work_ns < kCheckedNs && (mono_ns() - wall0) * kMinSpeedup > work_ns)
      inline_left = kPoolRetry;
    last = LaunchTime{d->run_thread, {c->grid[0], c->grid[1], c->grid[2]},
                      {c->block[0], c->block[1], c->block[2]}, {c->block_lo, c->block_hi}, work_ns, inline_left};
  }
  const int failed = job.failed;
  if (failed && err && errlen) snprintf(err, errlen, "%s", job.err);
  if (shared) pthread_mutex_unlock(&g_mu);
  if (c->sanitize) san_end();
  if (!batched) pthread_mutex_unlock(&g_launch_mu);
  return failed ? 1 : 0;
}

// g_job set for `parts` parts of task(arg, ·) that `participants` helpers share (fixed: helper h runs part
// h + 1 alone, as rt_lanes asks), the helpers woken; the helpers then watch for the next job a while after
// it (g_split_ns), as after a split GEMM: a recurrent op's next step is near. The caller holds the launch lock.
void open_task_job(uint64_t parts, int participants, void (*task)(void*, uint64_t), void* arg, bool fixed) {
  if (participants > 0) keep_helpers_off_caller();
  pthread_mutex_lock(&g_mu);
  reset_job(g_job, parts, participants);
  g_job.desc = nullptr;
  g_job.fixed = fixed ? 1 : 0;
  g_job.task = task;
  g_job.task_arg = arg;
  if (fixed)
    for (int t = 0; t <= participants; ++t) g_job.claimed[t] = 0;
  if (participants > 0) wake_helpers();
  pthread_mutex_unlock(&g_mu);
  __atomic_store_n(&g_split_ns, mono_ns(), __ATOMIC_RELAXED);
}

// Waits for the helpers that joined the task job (open_task_job's) and closes it.
void finish_task_job() {
  pthread_mutex_lock(&g_mu);
  close_job();
  pthread_mutex_unlock(&g_mu);
}

// Runs task(arg, i) for every i below `parts` on the calling thread and up to `threads` − 1 helpers, the
// parts taken in turn, and returns when all have run: work that is not a kernel launch (a GEMM split over
// the pool, gemm.cpp). A task must not fail.
void rt_parallel(uint64_t parts, int threads, void (*task)(void*, uint64_t), void* arg) {
  if (parts == 0) return;
  const bool batched = tls_in_batch;
  if (!batched) pthread_mutex_lock(&g_launch_mu);
  int want = threads < 1 ? 1 : threads > kMaxWorkers ? kMaxWorkers : threads;
  if (static_cast<uint64_t>(want) > parts) want = static_cast<int>(parts);
  const int helpers = ensure_workers(want - 1);
  open_task_job(parts, want - 1 < helpers ? want - 1 : helpers, task, arg, false);
  work_parts(g_job);
  finish_task_job();
  if (!batched) pthread_mutex_unlock(&g_launch_mu);
}

// How many threads the pool can run side by side, up to `want`: the caller and the helpers it has or
// could start (rt_lanes needs no more).
int pool_threads(int want) {
  if (want > kMaxWorkers) want = kMaxWorkers;
  if (want <= 1) return 1;
  const int helpers = ensure_workers(want - 1);
  return 1 + (want - 1 < helpers ? want - 1 : helpers);
}

// Runs task(arg, t) for every t below `threads` (at most pool_threads' count), each on one thread: t 0 on
// the calling thread, t on helper t - 1 (rt/batch.cpp's lane runs: a part is the lanes of one thread);
// a part whose helper has not started it when the caller has run its own the caller runs too (it never
// waits for a helper that has not woken). Returns when all have run. Called within a batch (the launch
// lock held). A task must not fail; part t runs on worker t's state (batch.cpp's run_lane_thread: the
// caller's for 0, helper t - 1's otherwise, on whichever thread runs it).
void rt_lanes(int threads, void (*task)(void*, uint64_t), void* arg) {
  const int participants = pool_threads(threads) - 1;
  open_task_job(static_cast<uint64_t>(participants) + 1, participants, task, arg, true);
  task(arg, 0);
  for (int t = 1; t <= participants; ++t)
    if (!__atomic_exchange_n(&g_job.claimed[t], 1, __ATOMIC_ACQ_REL)) task(arg, static_cast<uint64_t>(t));
  finish_task_job();  // (the helpers running their parts)
}

}  // namespace
