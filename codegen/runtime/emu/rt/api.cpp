// rt/api.cpp: what the runtime exports (OPGEN_API, the only symbols it does): the opgen_rt_api
// table kernel modules call and the batch entry points.
#include "state.h"  // (for readers and tools: runtime.cpp includes it once, first)

namespace {

const void* g_api_addr;  // the runtime's function table, which kernel code reads
size_t g_api_size;

const opgen_rt_api g_api = {OPGEN_EMU_ABI_VERSION, rt_launch,      rt_sync_block, rt_warp_op,
                            rt_active_mask,        rt_fail,        rt_san_access};

}  // namespace

OPGEN_API const opgen_rt_api* opgen_rt_get_api() {
  g_api_addr = &g_api;
  g_api_size = sizeof g_api;
  return &g_api;
}

OPGEN_API uint64_t opgen_rt_run_batch(const unsigned char* blob, uint64_t count, char* err, size_t errlen) {
  return run_batch(blob, count, err, errlen);
}

OPGEN_API void opgen_rt_set_object_layout(uint64_t tuple_items, uint64_t array_data, uint64_t array_flags) {
  set_object_layout(tuple_items, array_data, array_flags);
}
