// rt/messages.cpp: the runtime's error messages: where (kernel, block, thread), the names of
// barriers and warp operations, failing a fiber (which abandons its block), the deadlock report.
#include "state.h"  // (for readers and tools: runtime.cpp includes it once, first)

namespace {

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

[[noreturn]] void rt_fail(const opgen_thread_ctx* me, const char* msg) {
  fail_fiber(reinterpret_cast<Fiber*>(const_cast<opgen_thread_ctx*>(me)), "%s", msg);
}

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

// " [pc FILE+0xOFFSET]": Python turns it into the kernel source line (addr2line on the module).
size_t append_pc(char* buf, size_t cap, size_t p, const void* pc) {
  Dl_info info;
  if (pc && dladdr(pc, &info) && info.dli_fname)
    return appendf(buf, cap, p, " [pc %s+0x%llx]", info.dli_fname,
                   static_cast<unsigned long long>(static_cast<const char*>(pc) - static_cast<const char*>(info.dli_fbase)));
  return p;
}

const char* base_name(const char* path) {
  const char* slash = path ? strrchr(path, '/') : nullptr;
  return slash ? slash + 1 : path ? path : "?";
}

}  // namespace
