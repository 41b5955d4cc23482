// rt/sanitizer.cpp: the sanitize build's checks of every memory access of kernel code
// (rt_san_access): bounds of the launch's buffers and of shared memory, uninitialised shared
// memory, and races, from a shadow of each byte (element) accessed; a launch's state.
#include "state.h"  // (for readers and tools: runtime.cpp includes it once, first)

namespace {

// since then that no later access has been ordered after. Ids are global linear thread ids + 1
// (0: none); clocks are the accessing lane's own vector-clock entry. Reads are kept as
//   A: r_id, with r_lanes the lanes of r_id's warp that read (r_clk the largest of their clocks), and
//   B: r_id2, one reader of another warp than A's, or 0.
// Exact for hazards between warps: any access of an interval holding A and B is in another warp
// (or block) than at least one of them. Within A's warp the largest clock stands for every lane's:
// that never orders a read that was not (no miss), and equals each lane's clock while its warp only
// syncs whole (after a partial-mask sync it may report a read that was ordered).
struct Shadow {
  uint32_t w_id, w_bep, w_clk;
  uint32_t r_id, r_bep, r_clk, r_lanes, r_id2;
};
constexpr uint64_t kStaticSmemLimit = 48 * 1024;

struct SanBuf {
  const opgen_san_range* r;
  Shadow* shadow;  // mapped on first access, unmapped after the launch
};

// One launch at a time, and a sanitized launch runs its blocks on one worker: no locking.
struct SanLaunch {
  const opgen_launch_cfg* cfg;
  SanBuf* bufs;
  int nbufs;
  uint64_t* var_stamp;  // block_serial of the block whose shadow of the variable is current
  unsigned char* var_used;
  uint64_t static_used;
  uint64_t dyn_stamp;
  bool races;  // thread ids fit the shadow's 32 bits
};
SanLaunch g_san;

// Reports a sanitizer finding from fiber f (message, then the access's pc) and abandons the block.
[[noreturn]] __attribute__((format(printf, 3, 4))) void san_fail(Fiber* f, const void* pc, const char* fmt, ...) {
  char msg[1536];
  va_list ap;
  va_start(ap, fmt);
  size_t p = static_cast<size_t>(vsnprintf(msg, sizeof msg, fmt, ap));
  va_end(ap);
  if (p >= sizeof msg) p = sizeof msg - 1;
  append_pc(msg, sizeof msg, p, pc);
  fail_fiber(f, "%s", msg);
}

struct Who {
  uint32_t id, bep, clk;
  unsigned lane;
  uint64_t block, gwarp;
  const uint32_t* vc;
};

uint64_t block_of(uint32_t id, unsigned n) { return (id - 1) / n; }
uint64_t gwarp_of(uint32_t id, unsigned n) { return block_of(id, n) * ((n + 31) / 32) + ((id - 1) % n) / 32; }
unsigned lane_of(uint32_t id, unsigned n) { return ((id - 1) % n) & 31u; }

// Are the recorded accesses of thread `id` and the lanes `lanes` of its warp (at clocks up to
// `clk`, in barrier interval `bep`) all ordered before the current access of `me`? A barrier orders
// a whole block; a __syncwarp() its lanes (vector clocks); blocks of a launch never are.
// Returns the first lane of `lanes` found unordered with `me`, -1 if all are ordered.
int unordered_lane(uint32_t id, uint32_t bep, uint32_t clk, uint32_t lanes, const Who& me, unsigned n) {
  if (id == me.id && lanes == (1u << me.lane)) return -1;
  const uint64_t gw = gwarp_of(id, n);
  if (gw / ((n + 31) / 32) != me.block) return static_cast<int>(lane_of(id, n));
  if (me.bep > bep) return -1;  // a __syncthreads() came between
  if (gw != me.gwarp) return static_cast<int>(lane_of(id, n));
  for (uint32_t m = lanes & ~(1u << me.lane); m; m &= m - 1)  // program order for the own lane
    if (me.vc[__builtin_ctz(m)] < clk) return __builtin_ctz(m);
  return -1;
}

bool ordered_before(uint32_t id, uint32_t bep, uint32_t clk, const Who& me, unsigned n) {
  return unordered_lane(id, bep, clk, 1u << lane_of(id, n), me, n) < 0;
}

// "thread (x,y,z)" or "thread (x,y,z) of block (a,b,c)" for a recorded id.
size_t describe_id(Worker* w, char* buf, size_t cap, size_t p, uint32_t id, const Who& me) {
  const unsigned n = w->n;
  const opgen_launch_cfg* c = w->desc->cfg;
  const unsigned t = (id - 1) % n, bx = c->block[0], by = c->block[1];
  p = appendf(buf, cap, p, "thread (%u,%u,%u)", t % bx, (t / bx) % by, t / (bx * by));
  const uint64_t b = block_of(id, n);
  if (b != me.block) {
    const uint64_t gx = c->grid[0], gy = c->grid[1];
    p = appendf(buf, cap, p, " of block (%llu,%llu,%llu)", static_cast<unsigned long long>(b % gx),
                static_cast<unsigned long long>((b / gx) % gy), static_cast<unsigned long long>(b / (gx * gy)));
  }
  return p;
}

// The hazard's kind, as compute-sanitizer's racecheck names it: the earlier access, then this one.
const char* hazard_kind(bool write, bool other_wrote) {
  return !write ? "RAW (read after write)" : other_wrote ? "WAW (write after write)" : "WAR (write after read)";
}

[[noreturn]] void report_race(Fiber* f, const Who& me, const char* space, const char* name, uint64_t off,
                              uint64_t size, bool write, uint32_t other, bool other_wrote, const void* pc) {
  Worker* w = f->w;
  char who[160];
  describe_id(w, who, sizeof who, 0, other, me);
  const uint64_t other_block = block_of(other, w->n);
  const char* why = other_block != me.block ? "blocks of one launch run in no defined order"
                    : gwarp_of(other, w->n) != me.gwarp
                        ? "no __syncthreads() between them (__syncwarp() only orders the lanes of one warp)"
                        : "the same warp, but no __syncwarp() of both lanes between them (lanes of a warp run "
                          "independently; shuffles and votes do not order memory)";
  san_fail(f, pc,
           "data race on %s '%s' at byte %llu (of %llu): %s hazard: this thread %s it while %s %s it, "
           "unordered: %s",
           space, name, static_cast<unsigned long long>(off), static_cast<unsigned long long>(size),
           hazard_kind(write, other_wrote), write ? "writes" : "reads", who, other_wrote ? "wrote" : "read", why);
}

// The thread of lane `lane` of the warp of recorded id `id`.
uint32_t lane_id(uint32_t id, int lane, unsigned n) { return id - lane_of(id, n) + static_cast<unsigned>(lane); }

// Race (and, for shared memory, initialisation) check of bytes [off, off + len) of a region.
// One shadow entry per `granule` bytes (a global buffer's element size: less shadow to touch).
void check_races(Fiber* f, Shadow* sh, uint64_t off, uint64_t len, int flags, const char* space, const char* name,
                 uint64_t region_size, bool shared, const void* pc, uint64_t granule = 1) {
  Worker* w = f->w;
  const unsigned n = w->n;
  Who me;
  me.id = static_cast<uint32_t>(w->lin * n + f->ctx.linear + 1);
  me.bep = w->bep;
  me.lane = f->ctx.lane;
  me.clk = f->vc[me.lane];
  me.vc = f->vc;
  me.block = w->lin;
  me.gwarp = w->lin * ((n + 31) / 32) + f->ctx.warp;
  const uint32_t my_lane = 1u << me.lane;
  const bool write = flags & OPGEN_SAN_WRITE;
  for (uint64_t i = off / granule; i <= (off + len - 1) / granule; ++i) {
    Shadow& s = sh[i];
    const uint64_t byte = i * granule < off ? off : i * granule;  // for messages
    if (s.w_id && !ordered_before(s.w_id, s.w_bep, s.w_clk, me, n))
      report_race(f, me, space, name, byte, region_size, write, s.w_id, true, pc);
    if (!write && shared && !s.w_id)
      san_fail(f, pc,
               "read of uninitialised shared memory: byte %llu of '%s' (%llu bytes) was not written by any thread "
               "of this block before this read",
               static_cast<unsigned long long>(byte), name, static_cast<unsigned long long>(region_size));
    const int a_lane = s.r_id ? unordered_lane(s.r_id, s.r_bep, s.r_clk, s.r_lanes, me, n) : -1;
    // B is in another warp than A: unordered unless a barrier orders the interval (same block).
    const bool b_ordered = !s.r_id2 || ordered_before(s.r_id2, s.r_bep, ~0u, me, n);
    if (write) {
      if (a_lane >= 0) report_race(f, me, space, name, byte, region_size, true, lane_id(s.r_id, a_lane, n), false, pc);
      if (!b_ordered) report_race(f, me, space, name, byte, region_size, true, s.r_id2, false, pc);
      s.w_id = me.id;
      s.w_bep = me.bep;
      s.w_clk = me.clk;
      s.r_id = s.r_id2 = 0;
      continue;
    }
    if (a_lane < 0) {  // A (every read of its lanes) is ordered before this read, which stands for it
      s.r_id = me.id;
      s.r_bep = me.bep;
      s.r_clk = me.clk;
      s.r_lanes = my_lane;
      if (b_ordered) s.r_id2 = 0;
    } else if (gwarp_of(s.r_id, n) == me.gwarp) {  // another lane of A's warp
      s.r_lanes |= my_lane;
      s.r_clk = me.clk > s.r_clk ? me.clk : s.r_clk;
      s.r_bep = me.bep < s.r_bep ? me.bep : s.r_bep;
    } else if (b_ordered) {  // another warp than A's: the B to keep
      s.r_id2 = me.id;
    }
  }
}

Shadow* map_shadow(uint64_t bytes) {
  void* m = mmap(nullptr, bytes * sizeof(Shadow), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  return m == MAP_FAILED ? nullptr : static_cast<Shadow*>(m);
}

const char* access_kind(int flags) { return (flags & OPGEN_SAN_ATOMIC) ? "atomic" : (flags & OPGEN_SAN_WRITE) ? "write" : "read"; }

void san_shared(Fiber* f, const char* a, uint64_t size, int flags, const void* pc) {
  Worker* w = f->w;
  const opgen_block_mem& m = w->mem;
  const uint64_t off = static_cast<uint64_t>(a - m.tls);
  uint64_t lo, len;
  const char* name;
  if (m.dyn && a >= m.dyn && a < m.dyn + OPGEN_EMU_MAX_SMEM) {
    const uint64_t d = static_cast<uint64_t>(a - m.dyn), shmem = w->desc->cfg->shmem;
    if (d + size > shmem)
      san_fail(f, pc,
               "out-of-bounds %s of %llu bytes at byte %llu of dynamic shared memory (extern __shared__): the "
               "launch requested %llu bytes (shared_mem)",
               access_kind(flags), static_cast<unsigned long long>(size), static_cast<unsigned long long>(d),
               static_cast<unsigned long long>(shmem));
    if (g_san.dyn_stamp != w->block_serial) {  // fresh shadow for this block
      memset(w->sh + (m.dyn - m.tls), 0, shmem * sizeof(Shadow));
      g_san.dyn_stamp = w->block_serial;
    }
    lo = static_cast<uint64_t>(m.dyn - m.tls);
    len = shmem;
    name = "extern __shared__";
  } else {
    const opgen_launch_cfg* c = g_san.cfg;
    if (c->nvars == 0) return;  // the module's symbols were not readable: no shared-memory checks
    int v = -1;
    for (int i = 0; i < c->nvars; ++i)  // few variables per module
      if (off >= c->vars[i].base && off < c->vars[i].base + (c->vars[i].size ? c->vars[i].size : 1)) v = i;
    if (v < 0) {
      int near = -1;
      for (int i = 0; i < c->nvars; ++i)
        if (c->vars[i].name && c->vars[i].base <= off && (near < 0 || c->vars[i].base > c->vars[near].base)) near = i;
      if (near >= 0)
        san_fail(f, pc,
                 "out-of-bounds %s of %llu bytes in shared memory: %llu bytes past the end of __shared__ '%s' "
                 "(%llu bytes)",
                 access_kind(flags), static_cast<unsigned long long>(size),
                 static_cast<unsigned long long>(off - c->vars[near].base - c->vars[near].size), c->vars[near].name,
                 static_cast<unsigned long long>(c->vars[near].size));
      san_fail(f, pc, "out-of-bounds %s of %llu bytes in shared memory, before every __shared__ variable",
               access_kind(flags), static_cast<unsigned long long>(size));
    }
    const opgen_san_range& r = c->vars[v];
    if (!r.name) return;  // the emulation's own thread_local bookkeeping
    if (off + size > r.base + r.size)
      san_fail(f, pc, "out-of-bounds %s of %llu bytes at byte %llu of __shared__ '%s' (%llu bytes)",
               access_kind(flags), static_cast<unsigned long long>(size),
               static_cast<unsigned long long>(off - r.base), r.name, static_cast<unsigned long long>(r.size));
    if (!g_san.var_used[v]) {  // a GPU refuses a kernel with more than 48 KiB of static shared memory
      g_san.var_used[v] = 1;
      g_san.static_used += r.size;
      if (g_san.static_used > kStaticSmemLimit)
        san_fail(f, pc,
                 "kernel uses %llu bytes of static __shared__ memory (the last one touched: '%s', %llu bytes), "
                 "more than the 48 KiB a GPU allows per block (use dynamic shared memory above that)",
                 static_cast<unsigned long long>(g_san.static_used), r.name, static_cast<unsigned long long>(r.size));
    }
    if (g_san.var_stamp[v] != w->block_serial) {
      memset(w->sh + r.base, 0, r.size * sizeof(Shadow));
      g_san.var_stamp[v] = w->block_serial;
    }
    lo = r.base;
    len = r.size;
    name = r.name;
  }
  if ((flags & OPGEN_SAN_ATOMIC) || !g_san.races) return;
  check_races(f, w->sh + lo, off - lo, size, flags, "shared memory", name, len, true, pc);
}

void san_global(Fiber* f, const char* a, uint64_t size, int flags, const void* pc) {
  const uint64_t x = reinterpret_cast<uint64_t>(a);
  int lo = 0, hi = g_san.nbufs;  // last buffer whose base <= x
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (g_san.bufs[mid].r->base <= x) lo = mid + 1;
    else hi = mid;
  }
  // Buffers may be empty or share a base: look back for one that holds x.
  for (int i = lo - 1; i >= 0 && i >= lo - 4; --i) {
    SanBuf& b = g_san.bufs[i];
    if (x >= b.r->base + b.r->size) continue;
    const uint64_t off = x - b.r->base;
    if (off + size > b.r->size)
      san_fail(f, pc, "out-of-bounds %s of %llu bytes at byte %llu of buffer '%s' (%llu bytes)", access_kind(flags),
               static_cast<unsigned long long>(size), static_cast<unsigned long long>(off), b.r->name,
               static_cast<unsigned long long>(b.r->size));
    if ((flags & OPGEN_SAN_ATOMIC) || !g_san.races) return;
    const uint64_t g = b.r->granule ? b.r->granule : 1;
    if (!b.shadow) b.shadow = map_shadow((b.r->size + g - 1) / g);
    if (b.shadow) check_races(f, b.shadow, off, size, flags, "global buffer", b.r->name, b.r->size, false, pc, g);
    return;
  }
  const SanBuf* before = lo > 0 ? &g_san.bufs[lo - 1] : nullptr;
  const SanBuf* after = lo < g_san.nbufs ? &g_san.bufs[lo] : nullptr;
  const SanBuf* near = before && (!after || x - (before->r->base + before->r->size) <= after->r->base - x) ? before
                                                                                                           : after;
  if (!near)
    san_fail(f, pc, "out-of-bounds %s of %llu bytes at address %p: the launch has no buffer arguments",
             access_kind(flags), static_cast<unsigned long long>(size), static_cast<const void*>(a));
  const long long off = static_cast<long long>(x - near->r->base);
  // Outside the memory the buffers were copied into, red zones included, the access did not just
  // run off the nearest buffer: an index far out of range, or a pointer loaded from memory into no
  // buffer (a table's entry into an array the launch was not given, or a wild one; not read: the
  // check comes first).
  const opgen_launch_cfg* c = g_san.cfg;
  if (c->apart_hi && (x < c->apart_lo || x >= c->apart_hi))
    san_fail(f, pc,
             "out-of-bounds %s of %llu bytes at address %p, outside every buffer of the launch and the red zones "
             "around them (byte offset %lld of buffer '%s', the nearest, which has %llu bytes): an index far out "
             "of range, or a pointer to memory the launch does not know (a pointer table's entry into an array "
             "not given to the launch, such as a table that is no host.pointer_table?)",
             access_kind(flags), static_cast<unsigned long long>(size), static_cast<const void*>(a), off,
             near->r->name, static_cast<unsigned long long>(near->r->size));
  san_fail(f, pc,
           "out-of-bounds %s of %llu bytes at byte offset %lld of buffer '%s', which has %llu bytes (outside every "
           "buffer of the launch)",
           access_kind(flags), static_cast<unsigned long long>(size), off, near->r->name,
           static_cast<unsigned long long>(near->r->size));
}

void rt_san_access(const opgen_thread_ctx* me, const void* addr, uint64_t size, int flags, const void* pc) {
  Fiber* f = reinterpret_cast<Fiber*>(const_cast<opgen_thread_ctx*>(me));
  Worker* w = f->w;
  if (!w->san || w->failed) return;
  pc = static_cast<const char*>(pc) - 1;  // the return address: step back into the call of the access
  const char* a = static_cast<const char*>(addr);
  const opgen_block_mem& m = w->mem;
  if (a >= w->stacks && a < w->stacks + w->map_len) {
    // local memory (fiber stacks): not checked
  } else if (a >= reinterpret_cast<const char*>(w->fibers) && a < reinterpret_cast<const char*>(w->fibers + w->cap)) {
    // threadIdx, blockIdx...: the runtime's thread contexts
  } else if (a >= static_cast<const char*>(g_api_addr) && a < static_cast<const char*>(g_api_addr) + g_api_size) {
    // the runtime's function table (every barrier and warp collective reads it)
  } else if (a >= m.tls && a < m.tls + m.tls_size) {
    san_shared(f, a, size, flags, pc);
  } else if (a >= m.image_lo && a < m.image_hi) {
    // the module's own constants and string literals
  } else {
    san_global(f, a, size, flags, pc);
  }
  // Random order: preempt now and then, so that a segment of one thread interleaves with others.
  if (w->random && (splitmix(w->rng) & 15) == 0) yield(f);
}

// The block's shared memory needs a shadow entry per byte of the module's TLS block.
void ensure_shared_shadow(Worker* w) {
  if (w->mem.tls_size * sizeof(Shadow) <= w->sh_len) return;
  if (w->sh) munmap(w->sh, w->sh_len);
  w->sh = map_shadow(w->mem.tls_size);
  w->sh_len = w->sh ? w->mem.tls_size * sizeof(Shadow) : 0;
  if (!w->sh) w->mem.tls_size = 0;  // no memory for it: shared memory goes unchecked
}

bool san_begin(const opgen_launch_cfg* c) {
  memset(&g_san, 0, sizeof g_san);
  g_san.cfg = c;
  const uint64_t threads = static_cast<uint64_t>(c->grid[0]) * c->grid[1] * c->grid[2] * c->block[0] * c->block[1] *
                           c->block[2];
  g_san.races = threads < 0xFFFFFFFFull;  // ids (thread + 1) fit 32 bits
  g_san.nbufs = c->nbuffers;
  g_san.bufs = static_cast<SanBuf*>(calloc(c->nbuffers + 1, sizeof(SanBuf)));
  g_san.var_stamp = static_cast<uint64_t*>(calloc(c->nvars + 1, sizeof(uint64_t)));
  g_san.var_used = static_cast<unsigned char*>(calloc(c->nvars + 1, 1));
  if (!g_san.bufs || !g_san.var_stamp || !g_san.var_used) return false;
  for (int i = 0; i < c->nbuffers; ++i) g_san.bufs[i].r = &c->buffers[i];
  // Worker block serials only grow, so stamps of an earlier launch never match: start at "none".
  return true;
}

void san_end() {
  for (int i = 0; i < g_san.nbufs; ++i)
    if (g_san.bufs[i].shadow) {
      const uint64_t g = g_san.bufs[i].r->granule ? g_san.bufs[i].r->granule : 1;
      munmap(g_san.bufs[i].shadow, (g_san.bufs[i].r->size + g - 1) / g * sizeof(Shadow));
    }
  free(g_san.bufs);
  free(g_san.var_stamp);
  free(g_san.var_used);
  memset(&g_san, 0, sizeof g_san);
}

}  // namespace
