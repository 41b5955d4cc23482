// rt/batch.cpp: opgen_rt_run_batch: the launches Python queued or a recorded launch plan holds
// (one opgen_batch_record each, its arguments by value or as indices into the call's buffer
// table), run in order under one launch lock by one call; a lane run's lanes side by side.
#include "state.h"  // (for readers and tools: runtime.cpp includes it once, first)

namespace {

// True while run_batch runs on this thread (or a helper runs a lane run's records for it): the launch
// lock is held and the fault stack set.
__thread bool tls_in_batch __attribute__((tls_model("initial-exec")));
__thread Worker* tls_lane_worker __attribute__((tls_model("initial-exec")));

typedef int (*launch_fn)(const opgen_launch_cfg*, void**, char*, size_t);

// Runs one record (`index` in the batch; its argument slots at `slots`) with args/ptrs as its argument
// buffers (ptrs[k] = args + 16k, set as far as `pointed` says: all 256 set up front were ~770
// instructions a batch, a tiny launch's third of its own cost). 0, or 1 with its message in err.
int run_record(uint64_t index, const opgen_batch_record& r, const unsigned char* slots, const uint64_t* table,
               uint64_t table_len, unsigned char* args, void** ptrs, unsigned& pointed, char* err, size_t errlen) {
  const char* bad = r.nargs > OPGEN_BATCH_MAX_ARGS ? "too many arguments" : nullptr;
  if (!bad && r.nargs < 64 && r.table_args >> r.nargs) bad = "a buffer-table argument beyond nargs";
  if (!bad) {
    for (; pointed < r.nargs; ++pointed) ptrs[pointed] = args + 16u * pointed;
    memcpy(args, slots, 16u * r.nargs);  // (aligned copies: the blob is a Python bytes object)
    for (uint64_t mask = r.table_args; mask && !bad; mask &= mask - 1) {
      unsigned char* const slot = args + 16u * static_cast<unsigned>(__builtin_ctzll(mask));
      uint64_t entry;
      memcpy(&entry, slot, 8);
      if (entry >= table_len) {
        bad = "a buffer-table index beyond the table";
      } else {
        memcpy(slot, table + entry, 8);
      }
    }
  }
  if (bad) {
    snprintf(err, errlen, "launch batch: record %llu: %s", static_cast<unsigned long long>(index), bad);
    return 1;
  }
  OPGEN_PHASE(const uint64_t wall0 = mono_ns(), cpu0 = cpu_ns());
  const int failed =
      reinterpret_cast<launch_fn>(r.launch)(reinterpret_cast<const opgen_launch_cfg*>(r.cfg), ptrs, err, errlen);
  OPGEN_PHASE(phase_record(r.launch, reinterpret_cast<const void*>(r.cfg), mono_ns() - wall0, cpu_ns() - cpu0));
  return failed;
}

// A lane run (opgen_emu_abi.h): its records, and how its threads run them. Lane L runs on thread
// (L - 1) % threads (thread 0 the caller, t helper t - 1, or the caller where that helper had not started
// when the caller ran its own: rt_lanes), its records in order, each alone on that thread; records after
// the lowest-indexed failure so far are not started (a lower one may still fail: the run reports the
// lowest, as a sequential run would).
struct LaneRun {
  const unsigned char** at;  // record k (batch index first + k): its opgen_batch_record, then its slots
  uint64_t first, n;
  int threads;
  const uint64_t* table;
  uint64_t table_len;
  uint64_t fail_at;  // the lowest batch index failed so far (atomic; UINT64_MAX: none)
  pthread_mutex_t mu;
  char err[2048];    // its message (under mu)
};

void lane_failed(LaneRun& run, uint64_t index, const char* msg) {
  pthread_mutex_lock(&run.mu);
  if (index < run.fail_at) {
    snprintf(run.err, sizeof run.err, "%s", msg);
    __atomic_store_n(&run.fail_at, index, __ATOMIC_RELAXED);
  }
  pthread_mutex_unlock(&run.mu);
}

// rt_lanes' task: the records of thread t's lanes, on the worker of the thread that runs it (a helper's
// own, tls_worker; the caller's, g_caller).
void run_lane_thread(void* arg, uint64_t t) {
  LaneRun& run = *static_cast<LaneRun*>(arg);
  const bool was_in_batch = tls_in_batch;
  tls_in_batch = true;  // (a helper: the caller holds the launch lock; its own fault stack is set)
  tls_lane_worker = tls_worker ? tls_worker : &g_caller;
  alignas(16) unsigned char args[OPGEN_BATCH_MAX_ARGS * 16];
  void* ptrs[OPGEN_BATCH_MAX_ARGS];
  unsigned pointed = 0;
  char err[2048];
  for (uint64_t k = 0; k < run.n; ++k) {
    opgen_batch_record r;
    memcpy(&r, run.at[k], sizeof r);
    if ((r.lane - 1) % static_cast<uint32_t>(run.threads) != t) continue;
    const uint64_t index = run.first + k;
    if (index > __atomic_load_n(&run.fail_at, __ATOMIC_RELAXED)) break;
    err[0] = 0;
    if (run_record(index, r, run.at[k] + sizeof r, run.table, run.table_len, args, ptrs, pointed, err, sizeof err)) {
      lane_failed(run, index, err);
      break;
    }
  }
  tls_lane_worker = nullptr;
  tls_in_batch = was_in_batch;
}

// How many records from `blob` (at most `left`) make a lane run: up to the first without a lane, or a bad
// one (too many arguments: it fails in record order); *end: the first byte after them.
uint64_t lane_run_length(const unsigned char* blob, uint64_t left, const unsigned char** end) {
  uint64_t n = 0;
  for (; n < left; ++n) {
    opgen_batch_record r;
    memcpy(&r, blob, sizeof r);
    if (!r.lane || r.nargs > OPGEN_BATCH_MAX_ARGS) break;
    blob += sizeof r + 16u * r.nargs;
  }
  *end = blob;
  return n;
}

// The lane run of `n` records (lane_run_length's) starting at `blob` (batch index `first`): runs it side
// by side and returns true, or false where it is better run in plain record order (the caller then does
// so): one thread, a sanitized launch (the sanitizer's state is global), a signal handler setting the
// first launch should report, no memory for the run. A failure: *failed_at and err as a sequential run
// gives them.
//
// Its threads: the most any of its records would use on its own (a launch's cfg.nworkers, a GEMM's BLAS
// threads, which gemm.cpp splits a product over), no more than its highest lane, as many as the pool has.
bool run_lanes(const unsigned char* blob, uint64_t n, uint64_t first, const uint64_t* table, uint64_t table_len,
               uint64_t* failed_at, char* err, size_t errlen) {
  if (n == 0) return false;
  const unsigned char** at = static_cast<const unsigned char**>(malloc(n * sizeof *at));
  const opgen_gemm_desc** gemms = static_cast<const opgen_gemm_desc**>(malloc(n * sizeof *gemms));
  LaneRun* run = static_cast<LaneRun*>(malloc(sizeof(LaneRun)));
  uint64_t ngemms = 0;
  bool ran = false;
  int threads = 1;
  uint32_t lanes = 1;
  bool plain = !at || !gemms || !run, launches = false;
  const unsigned char* p = blob;
  for (uint64_t k = 0; k < n && !plain; ++k) {
    opgen_batch_record r;
    memcpy(&r, p, sizeof r);
    at[k] = p;
    p += sizeof r + 16u * r.nargs;
    lanes = r.lane > lanes ? r.lane : lanes;
    if (r.launch == reinterpret_cast<uint64_t>(&opgen_rt_gemm)) {
      gemms[ngemms++] = reinterpret_cast<const opgen_gemm_desc*>(r.cfg);
    } else {
      const opgen_launch_cfg* c = reinterpret_cast<const opgen_launch_cfg*>(r.cfg);
      plain = c->sanitize != 0;
      threads = c->nworkers > threads ? c->nworkers : threads;
      launches = true;
    }
  }
  char setting_err[8];
  plain = plain || (launches && install_signal_handlers(setting_err, sizeof setting_err));
  if (!plain) {
    BlasPause pause;
    const int blas = blas_threads_pause(gemms, ngemms, &pause);
    threads = blas > threads ? blas : threads;
    if (static_cast<uint32_t>(threads) > lanes) threads = static_cast<int>(lanes);
    threads = pool_threads(threads);
    if (threads > 1) {
      run->at = at;
      run->first = first;
      run->n = n;
      run->threads = threads;
      run->table = table;
      run->table_len = table_len;
      run->fail_at = UINT64_MAX;
      pthread_mutex_init(&run->mu, nullptr);
      run->err[0] = 0;
      rt_lanes(threads, &run_lane_thread, run);
      pthread_mutex_destroy(&run->mu);
      if (run->fail_at != UINT64_MAX) {
        *failed_at = run->fail_at;
        snprintf(err, errlen, "%s", run->err);
      }
      ran = true;
    }
    blas_threads_restore(&pause);
  }
  free(at);
  free(gemms);
  free(run);
  return ran;
}

// Runs `count` records in order: each an opgen_batch_record, then its arguments, one 16-byte slot
// each (a slot flagged in table_args holds an index into `table`, whose entry the launch gets); a lane
// run's lanes side by side (run_lanes). Stops at the first launch that fails (its message in err, as a
// launch of its own would give); returns how many records came before it (all: none failed).
uint64_t run_batch(const unsigned char* blob, uint64_t count, const uint64_t* table, uint64_t table_len, char* err,
                   size_t errlen) {
  alignas(16) unsigned char args[OPGEN_BATCH_MAX_ARGS * 16];
  void* ptrs[OPGEN_BATCH_MAX_ARGS];
  unsigned pointed = 0;
  pthread_mutex_lock(&g_launch_mu);  // one lock for the batch (launches of other threads wait)
  stack_t old_alt;
  const bool restore_alt = caller_altstack_enter(&old_alt);
  tls_in_batch = true;
  uint64_t i = 0, plain_until = 0;  // records below plain_until: a lane run found better run in order
  while (i < count) {
    opgen_batch_record r;
    memcpy(&r, blob, sizeof r);
    if (r.lane && i >= plain_until) {
      const unsigned char* end;
      const uint64_t n = lane_run_length(blob, count - i, &end);
      uint64_t failed_at = UINT64_MAX;
      if (run_lanes(blob, n, i, table, table_len, &failed_at, err, errlen)) {
        if (failed_at != UINT64_MAX) {
          i = failed_at;
          break;
        }
        blob = end;
        i += n;
        continue;
      }
      plain_until = i + n;
    }
    if (run_record(i, r, blob + sizeof r, table, table_len, args, ptrs, pointed, err, errlen)) break;
    blob += sizeof r + 16u * r.nargs;
    ++i;
  }
  tls_in_batch = false;
  caller_altstack_leave(restore_alt, &old_alt);
  pthread_mutex_unlock(&g_launch_mu);
  return i;
}

}  // namespace
