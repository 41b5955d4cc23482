// rt/batch.cpp: opgen_rt_run_batch: the launches Python queued (one opgen_batch_record each, the
// arguments read from the Python tuple through the object layout Python found), run in order
// under one launch lock by one call.
#include "state.h"  // (for readers and tools: runtime.cpp includes it once, first)

namespace {

// True while run_batch runs on this thread: it holds g_launch_mu and has set the fault stack.
__thread bool tls_in_batch __attribute__((tls_model("initial-exec")));

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

void set_object_layout(uint64_t tuple_items, uint64_t array_data, uint64_t array_flags) {
  g_layout = ObjectLayout{tuple_items, array_data, array_flags};
}

}  // namespace
