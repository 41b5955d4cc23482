// A plan's launch step on cuda: checked as codegen/runtime/cuda.py's _check_launch checks it (same
// words), its arguments laid out as the Python plan passes them (codegen/runtime/plan.py's run_plan:
// a slot's data pointer, a scalar in its C type, a pointer list as a device array of its pointers
// and then its count), and made with cuLaunchKernel. An empty grid launches nothing.
#ifndef OPGEN_CUDA_LAUNCH_H
#define OPGEN_CUDA_LAUNCH_H

#include <cstring>
#include <string>
#include <vector>

#include "call_error.h"
#include "cuda_binding.h"
#include "cuda_driver.h"
#include "plan_abi.h"
#include "run_plan.h"

namespace opgen_native {

inline constexpr unsigned kMaxThreads = 1024;
inline constexpr int64_t kMaxGrid[3] = {2147483647, 65535, 65535};

// Python's repr of a list of ints: "[1, 2, 3]".
inline std::string show(const int64_t* v, int64_t n) {
  std::string s = "[";
  for (int64_t k = 0; k < n; ++k) s += (k ? ", " : "") + std::to_string(v[k]);
  return s + "]";
}

// What a recording holds beside launches: a GEMM step (cuBLAS), a pointer list (its device array
// of pointers cannot be captured into a graph).
struct Contents {
  bool gemm = false;
  bool pointer_list = false;
};

inline Contents contents(const std::vector<int64_t>& w) {
  Contents c;
  for (size_t at = 0; at < w.size(); at += (size_t)opgen_step_words(&w[at])) {
    if (w[at] == OPGEN_STEP_LANES) continue;  // (the cpu's alone: none here)
    if (w[at] != OPGEN_STEP_LAUNCH) {
      c.gemm = true;
      continue;
    }
    const int64_t* p = &w[at];
    int64_t ngrid = p[2], nblock = p[3 + ngrid], nargs = p[5 + ngrid + nblock];
    for (int64_t k = 0; k < nargs; ++k) c.pointer_list |= p[6 + ngrid + nblock + 2 * k] == OPGEN_T_SLOTS;
  }
  return c;
}

// A device array of a pointer list's element pointers, from the caller's allocator (scratch).
inline int pointer_array(opgen_call* call, const CudaDriver& d, const Slot& slot, CUstream stream, void** out) {
  if (call->allocator.alloc == nullptr)
    return fail_call(call, OPGEN_ERR_RUNTIME, "no allocator for a pointer list");
  int64_t shape = slot.count, bytes = 8 * (slot.count > 0 ? slot.count : 1);
  char why[512] = "";
  if (call->allocator.alloc(call->allocator.ctx, -1, OPGEN_DT_UINT64, 1, &shape, bytes, out, why, sizeof why))
    return fail_call(call, OPGEN_ERR_MEMORY, why);
  if (slot.count == 0) return OPGEN_OK;
  CUresult r = d.cuMemcpyHtoDAsync_v2((CUdeviceptr)(uintptr_t)*out, slot.items, (size_t)bytes, stream);
  if (r != CUDA_SUCCESS)
    return fail_call(call, OPGEN_ERR_RUNTIME, "copying a pointer list failed: " + d.describe(r));
  return OPGEN_OK;
}

// The launch step at w[*at] on `stream` (*at moved past it): checked, its arguments laid out, launched.
inline int launch(opgen_call* call, const PlanCall& plan, const CudaDriver& d, const Binding* b, const int64_t* w,
                  size_t* at, CUstream stream) {
  const int64_t* p = w + *at;
  int64_t symbol = p[1], ngrid = p[2];
  const int64_t* grid = p + 3;
  int64_t nblock = grid[ngrid];
  const int64_t* block = grid + ngrid + 1;
  int64_t shared = block[nblock], nargs = block[nblock + 1];
  const int64_t* args = block + nblock + 2;
  *at += (size_t)opgen_step_words(p);
  for (int64_t k = 0; k < ngrid; ++k)
    if (grid[k] == 0) return OPGEN_OK;  // nothing to do: an empty tensor (as the Python backend)
  const std::string& name = b->symbols[symbol];
  std::string where = std::string(plan.op) + ": " + name + ": ";
  int64_t threads = 1, bad = ngrid > 3 || nblock > 3;
  for (int64_t k = 0; k < nblock; ++k) {
    threads *= block[k];
    bad |= block[k] <= 0;
  }
  if (0 < b->bounds[symbol] && b->bounds[symbol] < threads && threads <= kMaxThreads)
    return fail_call(call, OPGEN_ERR_VALUE,
                     where + "block " + show(block, nblock) + " has " + std::to_string(threads) +
                         " threads; the kernel's __launch_bounds__ allows at most " +
                         std::to_string(b->bounds[symbol]));
  for (int64_t k = 0; k < ngrid && k < 3; ++k) bad |= grid[k] < 0 || grid[k] > kMaxGrid[k];
  if (bad || threads > kMaxThreads)
    return fail_call(call, OPGEN_ERR_VALUE,
                     where + "invalid launch configuration grid " + show(grid, ngrid) + ", block " +
                         show(block, nblock) + " (at most 1024 threads per block, grid at most " +
                         show(kMaxGrid, 3) + ")");
  if (b->functions[symbol] == nullptr)
    return fail_call(call, OPGEN_ERR_RUNTIME, where + "the kernel is not in the op's module");
  // Each argument's value (8 bytes each, a scalar in its C type at the start), then pointers to them.
  std::vector<uint64_t> store(2 * (size_t)nargs + 1);
  std::vector<void*> params;
  size_t used = 0;
  for (int64_t k = 0; k < nargs; ++k) {
    int64_t tag = args[2 * k], v = args[2 * k + 1];
    uint64_t* cell = &store[used++];
    double real;
    std::memcpy(&real, &v, sizeof real);
    switch (tag) {
      case OPGEN_T_SLOT: std::memcpy(cell, &plan.slots[v].data, sizeof(void*)); break;
      case OPGEN_T_SLOTS: {
        void* array = nullptr;
        if (int r = pointer_array(call, d, plan.slots[v], stream, &array)) return r;
        std::memcpy(cell, &array, sizeof array);
        params.push_back(cell);
        cell = &store[used++];
        std::memcpy(cell, &plan.slots[v].count, sizeof(int64_t));
        break;
      }
      case OPGEN_T_I32: { int32_t x = (int32_t)v; std::memcpy(cell, &x, sizeof x); break; }
      case OPGEN_T_I64: std::memcpy(cell, &v, sizeof v); break;
      case OPGEN_T_F32: { float x = (float)real; std::memcpy(cell, &x, sizeof x); break; }
      case OPGEN_T_F64: std::memcpy(cell, &real, sizeof real); break;
      default: {
        const char* kind = tag == OPGEN_T_BOOL ? "bool" : tag == OPGEN_T_INT ? "int" : "float";
        return fail_call(call, OPGEN_ERR_VALUE,
                         where + "argument " + std::to_string(params.size()) + " is a Python " + kind +
                             "; kernel scalars must be typed NumPy scalars (np.int64, np.float32, np.int32)");
      }
    }
    params.push_back(cell);
  }
  unsigned g[3] = {1, 1, 1}, bl[3] = {1, 1, 1};
  for (int64_t k = 0; k < ngrid; ++k) g[k] = (unsigned)grid[k];
  for (int64_t k = 0; k < nblock; ++k) bl[k] = (unsigned)block[k];
  CUresult r = d.cuLaunchKernel(b->functions[symbol], g[0], g[1], g[2], bl[0], bl[1], bl[2], (unsigned)shared,
                                stream, params.data(), nullptr);
  if (r != CUDA_SUCCESS)
    return fail_call(call, OPGEN_ERR_RUNTIME,
                     where + "launch with grid " + show(grid, ngrid) + ", block " + show(block, nblock) +
                         ", shared_mem " + std::to_string(shared) + " failed: " + d.describe(r));
  return OPGEN_OK;
}

}  // namespace opgen_native

#endif  // OPGEN_CUDA_LAUNCH_H
