// rt/batch.cpp: opgen_rt_run_batch: the launches Python queued or a recorded launch plan holds
// (one opgen_batch_record each, its arguments by value or as indices into the call's buffer
// table), run in order under one launch lock by one call.
#include "state.h"  // (for readers and tools: runtime.cpp includes it once, first)

namespace {

// True while run_batch runs on this thread: it holds g_launch_mu and has set the fault stack.
__thread bool tls_in_batch __attribute__((tls_model("initial-exec")));

// Runs `count` records in order: each an opgen_batch_record, then its arguments, one 16-byte slot
// each (a slot flagged in table_args holds an index into `table`, whose entry the launch gets).
// Stops at the first launch that fails (its message in err, as a launch of its own would give);
// returns how many ran.
uint64_t run_batch(const unsigned char* blob, uint64_t count, const uint64_t* table, uint64_t table_len, char* err,
                   size_t errlen) {
  typedef int (*launch_fn)(const opgen_launch_cfg*, void**, char*, size_t);
  alignas(16) unsigned char args[OPGEN_BATCH_MAX_ARGS * 16];
  // ptrs[k] = args + 16k, set as far as a record's arguments reach: all 256 set up front were ~770
  // instructions a batch, a tiny launch's third of its own cost (a launch reads its nargs only).
  void* ptrs[OPGEN_BATCH_MAX_ARGS];
  unsigned pointed = 0;
  pthread_mutex_lock(&g_launch_mu);  // one lock for the batch (launches of other threads wait)
  stack_t old_alt;
  const bool restore_alt = caller_altstack_enter(&old_alt);
  tls_in_batch = true;
  uint64_t i = 0;
  for (; i < count; ++i) {
    opgen_batch_record r;
    memcpy(&r, blob, sizeof r);
    blob += sizeof r;
    const char* bad = r.nargs > OPGEN_BATCH_MAX_ARGS ? "too many arguments" : nullptr;
    if (!bad && r.nargs < 64 && r.table_args >> r.nargs) bad = "a buffer-table argument beyond nargs";
    if (!bad) {
      for (; pointed < r.nargs; ++pointed) ptrs[pointed] = args + 16u * pointed;
      memcpy(args, blob, 16u * r.nargs);  // (aligned copies: the blob is a Python bytes object)
      blob += 16u * r.nargs;
      for (uint64_t mask = r.table_args; mask && !bad; mask &= mask - 1) {
        unsigned char* const slot = args + 16u * static_cast<unsigned>(__builtin_ctzll(mask));
        uint64_t index;
        memcpy(&index, slot, 8);
        if (index >= table_len) {
          bad = "a buffer-table index beyond the table";
        } else {
          memcpy(slot, table + index, 8);
        }
      }
    }
    if (bad) {
      snprintf(err, errlen, "launch batch: record %llu: %s", static_cast<unsigned long long>(i), bad);
      break;
    }
    OPGEN_PHASE(const uint64_t wall0 = mono_ns(), cpu0 = cpu_ns());
    const int failed =
        reinterpret_cast<launch_fn>(r.launch)(reinterpret_cast<const opgen_launch_cfg*>(r.cfg), ptrs, err, errlen);
    OPGEN_PHASE(phase_record(r.launch, reinterpret_cast<const void*>(r.cfg), mono_ns() - wall0,
                             cpu_ns() - cpu0));
    if (failed) break;
  }
  tls_in_batch = false;
  caller_altstack_leave(restore_alt, &old_alt);
  pthread_mutex_unlock(&g_launch_mu);
  return i;
}

}  // namespace
