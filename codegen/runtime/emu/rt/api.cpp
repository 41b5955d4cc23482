// rt/api.cpp: what the runtime exports (OPGEN_API, the only symbols it does): the opgen_rt_api
// table kernel modules call, the batch entry points, and the ABI layout and constants texts Python checks.
#include "state.h"  // (for readers and tools: runtime.cpp includes it once, first)

namespace {

const void* g_api_addr;  // the runtime's function table, which kernel code reads
size_t g_api_size;

const opgen_rt_api g_api = {OPGEN_EMU_ABI_VERSION, rt_launch,      rt_sync_block, rt_warp_op,
                            rt_active_mask,        rt_fail,        rt_san_access};

// The ABI layout text (opgen_emu_abi.h), from sizeof and offsetof so that it cannot drift. A field
// added to one of these structs goes in its list too (Python's check names a field it packs that
// the text lacks; the struct's size changes anyway).
struct FieldAt {
  const char* name;
  size_t offset;
};
#define OPGEN_FIELD(T, f) FieldAt{#f, offsetof(T, f)}

template <size_t N>
size_t append_layout(char* buf, size_t cap, size_t p, const char* name, size_t size, const FieldAt (&fields)[N]) {
  p = appendf(buf, cap, p, "%s%s=%zu", p ? "\n" : "", name, size);
  for (const FieldAt& f : fields) p = appendf(buf, cap, p, ";%s=%zu", f.name, f.offset);
  return p;
}

const char* build_abi_layout() {
  using Cfg = opgen_launch_cfg;
  using Record = opgen_batch_record;
  using Range = opgen_san_range;
  using Gemm = opgen_gemm_desc;
  const FieldAt cfg[] = {OPGEN_FIELD(Cfg, grid),       OPGEN_FIELD(Cfg, block),    OPGEN_FIELD(Cfg, shmem),
                         OPGEN_FIELD(Cfg, nworkers),   OPGEN_FIELD(Cfg, random_order), OPGEN_FIELD(Cfg, seed),
                         OPGEN_FIELD(Cfg, stack_size), OPGEN_FIELD(Cfg, sanitize), OPGEN_FIELD(Cfg, nbuffers),
                         OPGEN_FIELD(Cfg, buffers),    OPGEN_FIELD(Cfg, nvars),    OPGEN_FIELD(Cfg, pad_),
                         OPGEN_FIELD(Cfg, vars),       OPGEN_FIELD(Cfg, apart_lo), OPGEN_FIELD(Cfg, apart_hi),
                         OPGEN_FIELD(Cfg, block_lo),   OPGEN_FIELD(Cfg, block_hi)};
  const FieldAt record[] = {OPGEN_FIELD(Record, launch), OPGEN_FIELD(Record, cfg), OPGEN_FIELD(Record, nargs),
                            OPGEN_FIELD(Record, lane), OPGEN_FIELD(Record, table_args)};
  const FieldAt range[] = {OPGEN_FIELD(Range, base), OPGEN_FIELD(Range, size), OPGEN_FIELD(Range, name),
                           OPGEN_FIELD(Range, granule)};
  const FieldAt gemm[] = {OPGEN_FIELD(Gemm, blas),     OPGEN_FIELD(Gemm, dtype),    OPGEN_FIELD(Gemm, int64),
                          OPGEN_FIELD(Gemm, m),        OPGEN_FIELD(Gemm, n),        OPGEN_FIELD(Gemm, k),
                          OPGEN_FIELD(Gemm, trans_a),  OPGEN_FIELD(Gemm, trans_b),  OPGEN_FIELD(Gemm, beta),
                          OPGEN_FIELD(Gemm, pad_),     OPGEN_FIELD(Gemm, a_offset), OPGEN_FIELD(Gemm, b_offset),
                          OPGEN_FIELD(Gemm, out_offset)};
  static char text[2048];
  size_t p = append_layout(text, sizeof text, 0, "opgen_launch_cfg", sizeof(Cfg), cfg);
  p = append_layout(text, sizeof text, p, "opgen_batch_record", sizeof(Record), record);
  p = append_layout(text, sizeof text, p, "opgen_san_range", sizeof(Range), range);
  append_layout(text, sizeof text, p, "opgen_gemm_desc", sizeof(Gemm), gemm);
  return text;
}
#undef OPGEN_FIELD

}  // namespace

OPGEN_API const opgen_rt_api* opgen_rt_get_api() {
  g_api_addr = &g_api;
  g_api_size = sizeof g_api;
  return &g_api;
}

OPGEN_API uint64_t opgen_rt_run_batch(const unsigned char* blob, uint64_t count, const uint64_t* table,
                                      uint64_t table_len, char* err, size_t errlen) {
  return run_batch(blob, count, table, table_len, err, errlen);
}

// A GEMM step (opgen_gemm_desc) with args[0..2] pointing at a, b and out: a batch record's launch
// function, and what the cpu backend's own gemm calls for one step.
OPGEN_API int opgen_rt_gemm(const opgen_launch_cfg* desc, void** args, char* err, size_t errlen) {
  return rt_gemm(desc, args, err, errlen);
}

// How many launches woke the pool's helpers so far (rt/pool.cpp: a launch found tiny runs without).
OPGEN_API uint64_t opgen_rt_pool_wakes(void) {
  pthread_mutex_lock(&g_mu);
  const uint64_t n = g_wakes;
  pthread_mutex_unlock(&g_mu);
  return n;
}

OPGEN_API const char* opgen_rt_abi_layout(void) {
  static const char* const text = build_abi_layout();  // once (a function-local static: thread-safe)
  return text;
}

OPGEN_API const char* opgen_rt_constants(void) {
  static char text[128];
  static const size_t once = appendf(text, sizeof text, 0, "abi_version=%u;max_shared_mem=%u",
                                     static_cast<unsigned>(OPGEN_EMU_ABI_VERSION), OPGEN_EMU_MAX_SMEM);
  (void)once;
  return text;
}
