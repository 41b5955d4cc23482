// rt/barriers.cpp: __syncthreads and its _count/_and/_or forms: a thread blocks until every
// thread of its block arrived, at the same call site and of the same kind.
#include "state.h"  // (for readers and tools: runtime.cpp includes it once, first)

namespace {

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

}  // namespace
