// rt/warps.cpp: warp collectives (__shfl*_sync, votes, __match_*, __reduce_*_sync, __syncwarp):
// each lane blocks until every live lane of its mask arrived; the last arrival computes every
// lane's result.
#include "state.h"  // (for readers and tools: runtime.cpp includes it once, first)

namespace {

constexpr uint64_t kPoison = ~0ull;  // value read from an inactive shuffle source lane

uint64_t shfl_source(const Fiber* base, const Fiber* g, unsigned group, int op) {
  const unsigned lane = g->ctx.lane;
  const unsigned width = static_cast<unsigned>(g->wwidth);
  const unsigned seg_lo = lane & ~(width - 1);
  const unsigned seg_hi = seg_lo + width - 1;
  const unsigned b = static_cast<unsigned>(g->warg) & 31u;  // PTX uses b[4:0]
  long j;
  switch (op) {
    case OPGEN_W_SHFL_IDX: j = seg_lo | (b & (width - 1)); break;
    case OPGEN_W_SHFL_UP: j = static_cast<long>(lane) - b; if (j < static_cast<long>(seg_lo)) return g->wval; break;
    case OPGEN_W_SHFL_DOWN: j = lane + b; if (j > static_cast<long>(seg_hi)) return g->wval; break;
    default: j = lane ^ b; if (j > static_cast<long>(seg_hi)) return g->wval; break;  // xor
  }
  // Reading a lane that is not taking part (exited, absent, not in mask) is undefined in CUDA.
  if (!((group >> j) & 1u)) {
    if (g->w->san)
      fail_fiber(const_cast<Fiber*>(g),
                 "%s: lane %u reads lane %ld, which is not taking part (not in mask 0x%08x, exited or absent): "
                 "the value is undefined on a GPU",
                 op_name(op), lane, j, g->wmask);
    return kPoison;
  }
  return base[j].wval;
}

// Sanitize: a completed __syncwarp() orders its lanes' memory accesses: each gets the join of their
// vector clocks, then a new own clock (what each accesses next comes after everything each did
// before). Shuffles and votes do not: CUDA promises no memory ordering for them, and
// compute-sanitizer's racecheck reports hazards between lanes that only a shuffle separates.
void join_clocks(Fiber* base, unsigned group) {
  uint32_t join[32] = {};
  for (unsigned m = group; m; m &= m - 1) {
    const uint32_t* vc = base[__builtin_ctz(m)].vc;
    for (int k = 0; k < 32; ++k) join[k] = vc[k] > join[k] ? vc[k] : join[k];
  }
  for (unsigned m = group; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    memcpy(base[lane].vc, join, sizeof join);
    base[lane].vc[lane]++;
  }
}

// Completes the collective of the lanes in `mask` if all of them have arrived.
void try_complete_warp(Worker* w, unsigned warp, unsigned mask, Fiber* caller) {
  Warp* wp = &w->warps[warp];
  const unsigned live = wp->existing & ~wp->exited;
  const unsigned group = mask & live;
  if (group == 0 || (wp->waiting & group) != group) return;
  Fiber* base = &w->fibers[warp * 32];
  const int first = __builtin_ctz(group);
  const int op = base[first].wop;
  for (unsigned m = group; m; m &= m - 1) {
    const Fiber* g = &base[__builtin_ctz(m)];
    if (g->wop != op || (g->wmask & live) != group)
      fail_fiber(caller,
                 "lanes of warp %u disagree: lane %d called %s with mask 0x%08x, lane %u called %s with mask "
                 "0x%08x (all lanes named in a mask must make the same *_sync call with the same mask)",
                 warp, first, op_name(op), base[first].wmask, g->ctx.lane, op_name(g->wop), g->wmask);
  }
  unsigned ballot = 0;
  for (unsigned m = group; m; m &= m - 1) {
    const int l = __builtin_ctz(m);
    if (base[l].wval) ballot |= 1u << l;
  }
  uint64_t red = 0;
  if (op >= OPGEN_W_REDUCE_ADD) {
    uint32_t acc = static_cast<uint32_t>(base[first].wval);
    for (unsigned m = group & (group - 1); m; m &= m - 1) {
      const uint32_t v = static_cast<uint32_t>(base[__builtin_ctz(m)].wval);
      switch (op) {
        case OPGEN_W_REDUCE_ADD: acc += v; break;
        case OPGEN_W_REDUCE_MIN_U: acc = v < acc ? v : acc; break;
        case OPGEN_W_REDUCE_MAX_U: acc = v > acc ? v : acc; break;
        case OPGEN_W_REDUCE_MIN_S: acc = static_cast<int32_t>(v) < static_cast<int32_t>(acc) ? v : acc; break;
        case OPGEN_W_REDUCE_MAX_S: acc = static_cast<int32_t>(v) > static_cast<int32_t>(acc) ? v : acc; break;
        case OPGEN_W_REDUCE_AND: acc &= v; break;
        case OPGEN_W_REDUCE_OR: acc |= v; break;
        default: acc ^= v; break;
      }
    }
    red = acc;
  }
  bool all_equal = true;
  for (unsigned m = group; m; m &= m - 1)
    if (base[__builtin_ctz(m)].wval != base[first].wval) all_equal = false;
  if (w->san && op == OPGEN_W_SYNC) join_clocks(base, group);  // only __syncwarp() orders memory
  for (unsigned m = group; m; m &= m - 1) {
    Fiber* g = &base[__builtin_ctz(m)];
    switch (op) {
      case OPGEN_W_SYNC: g->wres = 0; break;
      case OPGEN_W_SHFL_IDX:
      case OPGEN_W_SHFL_UP:
      case OPGEN_W_SHFL_DOWN:
      case OPGEN_W_SHFL_XOR: g->wres = shfl_source(base, g, group, op); break;
      case OPGEN_W_BALLOT: g->wres = ballot; break;
      case OPGEN_W_ANY: g->wres = ballot != 0; break;
      case OPGEN_W_ALL: g->wres = ballot == group; break;
      case OPGEN_W_MATCH_ANY: {
        unsigned same = 0;
        for (unsigned k = group; k; k &= k - 1)
          if (base[__builtin_ctz(k)].wval == g->wval) same |= 1u << __builtin_ctz(k);
        g->wres = same;
        break;
      }
      case OPGEN_W_MATCH_ALL: g->wres = all_equal ? group : 0; break;
      default: g->wres = red; break;
    }
    g->state = F_RUNNABLE;
  }
  wp->waiting &= ~group;
}

// A lane exited: collectives that were only waiting for it may now complete.
void recheck_warp(Worker* w, unsigned warp, Fiber* caller) {
  Warp* wp = &w->warps[warp];
  unsigned pending = wp->waiting;
  if (w->san) {  // synccheck: a mask naming an exited lane is undefined (a GPU may hang)
    for (unsigned m = pending; m; m &= m - 1) {
      const Fiber* g = &w->fibers[warp * 32 + __builtin_ctz(m)];
      if (g->wmask & (1u << caller->ctx.lane))
        fail_fiber(caller,
                   "lane %u of warp %u exited while lane %u waits for it in %s with mask 0x%08x (a warp "
                   "collective whose mask names an exited lane is undefined on a GPU)",
                   caller->ctx.lane, warp, g->ctx.lane, op_name(g->wop), g->wmask);
    }
  }
  while (pending) {
    const unsigned lane = static_cast<unsigned>(__builtin_ctz(pending));
    const unsigned mask = w->fibers[warp * 32 + lane].wmask;
    try_complete_warp(w, warp, mask, caller);
    pending &= ~mask;
    pending &= ~(1u << lane);
    pending &= wp->waiting;
  }
}

uint64_t rt_warp_op(const opgen_thread_ctx* me, int op, unsigned mask, uint64_t value, int arg, int width) {
  Fiber* f = reinterpret_cast<Fiber*>(const_cast<opgen_thread_ctx*>(me));
  Worker* w = f->w;
  const unsigned bit = 1u << me->lane;
  if (!(mask & bit))
    fail_fiber(f, "%s called with mask 0x%08x that does not include the calling lane %u", op_name(op), mask,
               me->lane);
  if (op >= OPGEN_W_SHFL_IDX && op <= OPGEN_W_SHFL_XOR && (width < 1 || width > 32 || (width & (width - 1))))
    fail_fiber(f, "%s: width %d is not a power of two in [1, 32]", op_name(op), width);
  if (w->san) {
    const Warp* wp = &w->warps[me->warp];
    const unsigned gone = mask & ~(wp->existing & ~wp->exited);
    if (gone)
      fail_fiber(f,
                 "%s called with mask 0x%08x, which names lane(s) 0x%08x that %s (a warp collective whose "
                 "mask names an exited or absent lane is undefined on a GPU)",
                 op_name(op), mask, gone, (gone & ~wp->existing) ? "do not exist in this block" : "already exited");
  }
  f->wop = op;
  f->wmask = mask;
  f->wval = value;
  f->warg = arg;
  f->wwidth = width;
  f->state = F_WARP;
  w->warps[me->warp].waiting |= bit;
  try_complete_warp(w, me->warp, mask, f);
  yield(f);
  return f->wres;
}

unsigned rt_active_mask(const opgen_thread_ctx* me) {
  const Fiber* f = reinterpret_cast<const Fiber*>(me);
  // A GPU returns the lanes converged at this instruction, which it never guarantees to be more
  // than the caller: sanitize builds return just that, so code relying on more shows.
  if (f->w->san) return 1u << me->lane;
  const Warp* wp = &f->w->warps[me->warp];
  return wp->existing & ~wp->exited;
}

}  // namespace
