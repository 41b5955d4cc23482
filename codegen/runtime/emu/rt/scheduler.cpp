// rt/scheduler.cpp: running one block on a worker: its fibers set up, then scheduling passes over
// them (in thread order, or shuffled in random order, where one warp may also run alone) until all
// exited, one failed, or a pass in which none could run (a deadlock).
#include "state.h"  // (for readers and tools: runtime.cpp includes it once, first)

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

uint64_t splitmix(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void run_block(Worker* w, uint64_t lin) {
  const opgen_launch_cfg* c = w->desc->cfg;
  const unsigned bx = c->block[0], by = c->block[1], bz = c->block[2];
  const uint64_t gx = c->grid[0], gy = c->grid[1];
  // (a 1-D grid's block index is lin itself: no 64-bit divisions, tens of cycles each, per block)
  w->bidx = lin < gx ? uint3{static_cast<unsigned>(lin), 0, 0}
                     : uint3{static_cast<unsigned>(lin % gx), static_cast<unsigned>((lin / gx) % gy),
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
#ifdef OPGEN_ASM_SWITCH
  // One thread, nothing to interleave it with: called directly (run_alone). The sanitizer and random
  // order keep the fibers (their checks and shuffles run in the scheduler's passes).
  w->alone = w->n == 1 && !w->san && !w->random;
#endif
  memset(&w->mem, 0, sizeof w->mem);
  w->desc->block_begin(w->desc->user, c->shmem, &w->mem);
  if (w->san) ensure_shared_shadow(w);
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
    if (w->san) {  // (the vector clocks are the sanitizer's alone: its launches set them, others skip them)
      memset(f->vc, 0, sizeof f->vc);
      f->vc[f->ctx.lane] = 1;
    }
    prepare_fiber(w, f, i);  // (also a lone thread's: a branch per fiber would cost more than its stores)
    w->order[i] = i;
  }
  if (w->random) w->rng = c->seed ^ (lin + 1) * 0xD1B54A32D192ED03ull;

  int solo = -1;  // random order: the warp running alone, if any
  if (const int jumped = sigsetjmp(w->jb, 0)) {  // a fiber faulted (on_fault), or the lone thread stopped (yield)
    w->in_kernel = 0;
    if (jumped == 1) describe_fault(w);
    else if (!w->failed) report_deadlock(w);
    return;
  }
#ifdef OPGEN_ASM_SWITCH
  if (w->alone) {
    run_alone(w, &w->fibers[0]);
    return;
  }
#endif
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

}  // namespace
