// rt/phases.cpp: a timing harness, compiled only with -DOPGEN_RT_PHASES (bench/profile_rnn_phases.py
// builds it through CXX, a separate cache key): per kind of batch record (a GEMM's shape, a kernel and
// its grid), the wall and calling-thread CPU time, the launches that woke the pool and the caller's
// wait for its helpers. OPGEN_PHASE(...) is the hook pool.cpp and batch.cpp use; without the macro it
// is nothing.
#include "state.h"  // (for readers and tools: runtime.cpp includes it once, first)

#ifdef OPGEN_RT_PHASES
#define OPGEN_PHASE(...) __VA_ARGS__

namespace {

struct PhaseRow {
  char key[96];
  uint64_t n, wall, cpu, wakes, wait;
};
struct PhaseSample {
  uint32_t row, wall_ns, cpu_ns, wait_ns;
};
constexpr size_t kPhaseSamples = 1 << 20;
PhaseRow g_phase[64];
PhaseSample g_samples[kPhaseSamples];
size_t g_nsamples;
// What the launch the current record ran says about itself (set by rt_launch, read by run_batch).
__thread char tls_phase_key[96];
__thread uint64_t tls_phase_wake, tls_phase_wait;

uint32_t clip32(uint64_t v) { return v > 0xffffffffu ? 0xffffffffu : static_cast<uint32_t>(v); }

void phase_launch(const opgen_launch_desc* d, int want, bool woke, uint64_t wait_ns) {
  const opgen_launch_cfg* c = d->cfg;
  snprintf(tls_phase_key, sizeof tls_phase_key, "%s [%u,%u,%u] w%d", d->kernel, c->grid[0], c->grid[1], c->grid[2],
           want);
  tls_phase_wake = woke;
  tls_phase_wait = wait_ns;
}

pthread_mutex_t g_phase_mu = PTHREAD_MUTEX_INITIALIZER;  // (a lane run's threads record side by side)

// One record of run_batch: `cfg` a GEMM's descriptor where no launch named itself.
void phase_record(uint64_t launch, const void* cfg, uint64_t wall, uint64_t cpu) {
  if (launch == reinterpret_cast<uint64_t>(&opgen_rt_gemm) || !tls_phase_key[0]) {
    const opgen_gemm_desc& g = *static_cast<const opgen_gemm_desc*>(cfg);
    snprintf(tls_phase_key, sizeof tls_phase_key, "gemm %lldx%lldx%lld%s%s", static_cast<long long>(g.m),
             static_cast<long long>(g.n), static_cast<long long>(g.k), g.trans_a ? " tA" : "", g.trans_b ? " tB" : "");
  }
  pthread_mutex_lock(&g_phase_mu);
  for (PhaseRow& r : g_phase) {
    if (!r.key[0]) snprintf(r.key, sizeof r.key, "%s", tls_phase_key);
    if (strcmp(r.key, tls_phase_key)) continue;
    r.n++, r.wall += wall, r.cpu += cpu, r.wakes += tls_phase_wake, r.wait += tls_phase_wait;
    if (g_nsamples < kPhaseSamples)
      g_samples[g_nsamples++] = {static_cast<uint32_t>(&r - g_phase), clip32(wall), clip32(cpu), clip32(tls_phase_wait)};
    break;
  }
  pthread_mutex_unlock(&g_phase_mu);
  tls_phase_key[0] = 0;
  tls_phase_wake = tls_phase_wait = 0;
}

}  // namespace

// The rows so far, a line each: key, count, wall, cpu, wakes, wait (ns, tab-separated); reset clears them.
OPGEN_API const char* opgen_rt_phases(int reset) {
  static char text[16384];
  text[0] = 0;
  size_t p = 0;
  for (PhaseRow& r : g_phase) {
    if (!r.key[0]) break;
    p = appendf(text, sizeof text, p, "%s\t%llu\t%llu\t%llu\t%llu\t%llu\n", r.key, static_cast<unsigned long long>(r.n),
                static_cast<unsigned long long>(r.wall), static_cast<unsigned long long>(r.cpu),
                static_cast<unsigned long long>(r.wakes), static_cast<unsigned long long>(r.wait));
  }
  if (reset) memset(g_phase, 0, sizeof g_phase);
  return text;
}

// Each record since the last reset as 4 uint32 (its row in opgen_rt_phases' text, wall, cpu, wait ns).
OPGEN_API const void* opgen_rt_phase_samples(uint64_t* count, int reset) {
  *count = g_nsamples;
  if (reset) g_nsamples = 0;
  return g_samples;
}

#else
#define OPGEN_PHASE(...)
#endif
