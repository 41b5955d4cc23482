// A stand-in for libcuda (issue 32, item 5): the driver-API functions cuda_api.h lists, run on the
// host emulation, so that the native cuda path is tested without a GPU. Loaded in place of the
// driver (codegen/runtime/native_cuda.py builds it and names it to the runtime).
//
// Device memory is host memory (256-byte aligned). A module image is text naming the host build
// of the GPU form of the op's source (native_cuda.standin_image writes it):
//   opgen-standin-image 1 / runtime <emulation runtime .so> / module <module .so> /
//   threads <OS threads> / stack <fiber stack bytes> / kernel <name> <__launch_bounds__> ...
// A launch calls the module's opgen_launch_<name> (codegen/runtime/host/module.py's ABI) with the
// kernelParams as they are (both take an array of pointers to each argument's value).
//
// Strict where the driver is: a block beyond 1024 threads or the kernel's __launch_bounds__, a grid
// or block dimension beyond CUDA's limits, dynamic shared memory beyond 48 KiB (or what the
// emulation's static shared memory leaves): CUDA_ERROR_INVALID_VALUE. During a stream capture,
// synchronizing the capturing stream or its context, allocating or freeing (global and
// thread-local modes), a synchronous copy, and an async copy on the capturing stream (from
// pageable memory) are CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and
// invalidate the capture; using the legacy stream while a blocking stream captures is
// CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, also invalidating. A captured launch bakes its argument bytes
// (pointers included); a graph replays exactly those. A kernel fault, or a pointer argument in no
// live allocation, is a sticky CUDA_ERROR_LAUNCH_FAILED / CUDA_ERROR_ILLEGAL_ADDRESS returned by
// every later call that reports errors (launches, synchronizations).
//
// Test hooks (not driver API): opgen_standin_set_free_launches(1) makes launches skip the kernel
// (the runtime's own host cost measured alone), opgen_standin_count(what) counts calls,
// opgen_standin_fault() says what the sticky fault was, opgen_standin_clear_fault() forgets it.
// Its state and the rules its calls share: cuda_standin_state.h.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda_api.h"
#include "cuda_standin_state.h"
#include "opgen_emu_abi.h"

#define STANDIN_API extern "C" __attribute__((visibility("default")))

using namespace opgen_standin;

extern "C" {

STANDIN_API CUresult cuInit(unsigned int flags) {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (!g_init) {
    for (int d = 0; d < kDevices; ++d) {
      g_ctx[d].device = d;
      g_ctx[d].legacy = new Stream{&g_ctx[d], true};
      g_ctx[d].per_thread = new Stream{&g_ctx[d], true};
      g_streams.insert(g_ctx[d].legacy);
      g_streams.insert(g_ctx[d].per_thread);
    }
    g_init = true;
  }
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuGetErrorName(CUresult error, const char** text) {
  const ErrorText* e = error_text(error);
  *text = e ? e->name : nullptr;
  return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

STANDIN_API CUresult cuGetErrorString(CUresult error, const char** text) {
  const ErrorText* e = error_text(error);
  *text = e ? e->text : nullptr;
  return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

STANDIN_API CUresult cuDeviceGetCount(int* count) {
  if (!g_init) return CUDA_ERROR_NOT_INITIALIZED;
  *count = kDevices;
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (!g_init) return CUDA_ERROR_NOT_INITIALIZED;
  if (ordinal < 0 || ordinal >= kDevices) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice device) {
  if (!g_init) return CUDA_ERROR_NOT_INITIALIZED;
  if (device < 0 || device >= kDevices) return CUDA_ERROR_INVALID_DEVICE;
  *ctx = reinterpret_cast<CUcontext>(&g_ctx[device]);
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuCtxGetCurrent(CUcontext* ctx) {
  if (!g_init) return CUDA_ERROR_NOT_INITIALIZED;
  *ctx = reinterpret_cast<CUcontext>(t_current);
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuCtxSetCurrent(CUcontext ctx) {
  if (!g_init) return CUDA_ERROR_NOT_INITIALIZED;
  Context* c = reinterpret_cast<Context*>(ctx);
  if (c != nullptr && (c < g_ctx || c >= g_ctx + kDevices)) return CUDA_ERROR_INVALID_CONTEXT;
  t_current = c;
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuCtxSynchronize(void) {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  if (CUresult r = ready()) return r;
  std::vector<Stream*> found = capturing(t_current, false);
  if (!found.empty()) return refuse(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, found);
  return g_sticky;
}

STANDIN_API CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  if (CUresult r = ready()) return r;
  if (module == nullptr || image == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::string runtime, path;
  int threads = 0;
  uint64_t stack = 0;
  std::map<std::string, unsigned> bounds;
  if (!parse(static_cast<const char*>(image), &runtime, &path, &threads, &stack, &bounds))
    return CUDA_ERROR_INVALID_IMAGE;
  void* rt = dlopen(runtime.c_str(), RTLD_NOW | RTLD_LOCAL);  // (already loaded by the process: the same one)
  void* lib = rt ? dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL) : nullptr;
  if (lib == nullptr) return CUDA_ERROR_INVALID_IMAGE;
  auto get_api = reinterpret_cast<const void* (*)()>(dlsym(rt, "opgen_rt_get_api"));
  auto init = reinterpret_cast<int (*)(const void*)>(dlsym(lib, "opgen_module_init"));
  auto smem = reinterpret_cast<uint64_t (*)()>(dlsym(lib, "opgen_module_static_smem"));
  if (!get_api || !init || !smem || init(get_api()) != OPGEN_EMU_ABI_VERSION) return CUDA_ERROR_INVALID_IMAGE;
  Module* m = new Module{t_current, lib, smem(), threads, stack, {}};
  for (auto& [name, bound] : bounds) {
    auto launch = reinterpret_cast<launch_fn>(dlsym(lib, ("opgen_launch_" + name).c_str()));
    auto info = reinterpret_cast<int (*)(unsigned*, int)>(dlsym(lib, ("opgen_params_" + name).c_str()));
    if (!launch || !info) return CUDA_ERROR_INVALID_IMAGE;
    std::vector<unsigned> params(256);
    int n = info(params.data(), 256);
    params.resize(n);
    if (n > 256) info(params.data(), n);
    m->functions[name] = new Function{m, name, launch, params, bound < kMaxThreads ? bound : kMaxThreads};
  }
  g_counts[COUNT_MODULES]++;
  *module = reinterpret_cast<CUmodule>(m);
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuModuleUnload(CUmodule module) {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  if (CUresult r = ready()) return r;
  if (module == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  return CUDA_SUCCESS;  // (its functions stay valid: graphs may hold them; a test process is short)
}

STANDIN_API CUresult cuModuleGetFunction(CUfunction* fn, CUmodule module, const char* name) {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  if (CUresult r = ready()) return r;
  Module* m = reinterpret_cast<Module*>(module);
  if (m == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  auto it = m->functions.find(name);
  if (it == m->functions.end()) return CUDA_ERROR_NOT_FOUND;
  *fn = reinterpret_cast<CUfunction>(it->second);
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuFuncGetAttribute(int* value, int attribute, CUfunction fn) {
  if (fn == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (attribute != CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) return CUDA_ERROR_INVALID_VALUE;
  *value = (int)reinterpret_cast<Function*>(fn)->max_threads;
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                                    unsigned int by, unsigned int bz, unsigned int shared, CUstream hstream,
                                    void** params, void** extra) {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  g_counts[COUNT_LAUNCHES]++;
  if (CUresult r = ready()) return r;
  Function* fn = reinterpret_cast<Function*>(f);
  if (fn == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (fn->module->ctx != t_current) return CUDA_ERROR_INVALID_HANDLE;  // a function of another context
  if (extra != nullptr || (params == nullptr && !fn->params.empty())) return CUDA_ERROR_INVALID_VALUE;
  const unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
  unsigned long long threads = 1, blocks = 1;
  for (int d = 0; d < 3; ++d) {
    if (grid[d] == 0 || grid[d] > kMaxGrid[d] || block[d] == 0 || block[d] > kMaxBlock[d])
      return CUDA_ERROR_INVALID_VALUE;
    threads *= block[d];
    blocks *= grid[d];
  }
  if (threads > fn->max_threads) return CUDA_ERROR_INVALID_VALUE;  // __launch_bounds__ or CUDA's 1024
  // (as HostFunction: the module's static size is every kernel's, in the emulation's one TLS block)
  uint64_t room = OPGEN_EMU_MAX_SMEM - fn->module->static_smem;
  if (shared > (kMaxDynamicShared < room ? kMaxDynamicShared : room)) return CUDA_ERROR_INVALID_VALUE;
  Stream* stream = resolve(hstream);
  if (stream == nullptr || stream->ctx != t_current) return CUDA_ERROR_INVALID_HANDLE;
  if (CUresult r = legacy_use(stream)) return r;
  if (g_sticky != CUDA_SUCCESS) return g_sticky;
  Node node{fn, {}, {}, nullptr, {}};
  std::memcpy(node.cfg.grid, grid, sizeof grid);
  std::memcpy(node.cfg.block, block, sizeof block);
  node.cfg.shmem = shared;
  unsigned long long workers = blocks < (unsigned long long)fn->module->threads ? blocks : fn->module->threads;
  node.cfg.nworkers = (int32_t)(workers < 256 ? workers : 256);
  node.cfg.stack_size = fn->module->stack;
  if (stream->capture == nullptr) {
    run(node, params);
    return CUDA_SUCCESS;
  }
  if (stream->capture->invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  for (size_t i = 0; i < fn->params.size(); ++i) {  // the argument bytes, as the graph keeps them
    const char* at = static_cast<const char*>(params[i]);
    node.args.emplace_back(at, at + (fn->params[i] & 0xFFFFFF));
  }
  stream->capture->nodes.push_back(std::move(node));
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuMemAlloc_v2(CUdeviceptr* ptr, size_t bytes) {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  if (CUresult r = ready()) return r;
  if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = unsafe_call()) return r;
  void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (p == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  g_allocations[(uintptr_t)p] = bytes;
  *ptr = (CUdeviceptr)(uintptr_t)p;
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuMemFree_v2(CUdeviceptr ptr) {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  if (CUresult r = ready()) return r;
  if (CUresult r = unsafe_call()) return r;
  auto it = g_allocations.find((uintptr_t)ptr);
  if (it == g_allocations.end()) return CUDA_ERROR_INVALID_VALUE;
  g_allocations.erase(it);
  std::free((void*)(uintptr_t)ptr);
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t bytes) {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  if (CUresult r = ready()) return r;
  if (CUresult r = unsafe_call()) return r;
  std::memcpy((void*)(uintptr_t)dst, src, bytes);
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t bytes) {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  if (CUresult r = ready()) return r;
  if (CUresult r = unsafe_call()) return r;
  if (g_sticky != CUDA_SUCCESS) return g_sticky;
  std::memcpy(dst, (const void*)(uintptr_t)src, bytes);
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t bytes, CUstream hstream) {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  if (CUresult r = ready()) return r;
  Stream* stream = resolve(hstream);
  if (stream == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (stream->capture) return refuse(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, {stream});  // pageable source
  if (CUresult r = legacy_use(stream)) return r;
  std::memcpy((void*)(uintptr_t)dst, src, bytes);
  return CUDA_SUCCESS;
}

STANDIN_API CUresult opgen_standin_enqueue(CUstream hstream, void (*host)(const void*), const void* data,
                                           size_t bytes);

struct Fill {
  void* at;
  unsigned char value;
  size_t bytes;
};

void fill(const void* p) {
  const Fill* f = static_cast<const Fill*>(p);
  std::memset(f->at, f->value, f->bytes);
}

STANDIN_API CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t bytes, CUstream hstream) {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  if (bytes && !allocated((uintptr_t)dst)) return CUDA_ERROR_INVALID_VALUE;
  Fill f{(void*)(uintptr_t)dst, value, bytes};
  return opgen_standin_enqueue(hstream, fill, &f, sizeof f);
}

STANDIN_API CUresult cuStreamCreate(CUstream* stream, unsigned int flags) {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  if (CUresult r = ready()) return r;
  if (flags > 1) return CUDA_ERROR_INVALID_VALUE;
  Stream* s = new Stream{t_current, flags == 0};  // CU_STREAM_NON_BLOCKING = 1
  g_streams.insert(s);
  *stream = reinterpret_cast<CUstream>(s);
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuStreamDestroy_v2(CUstream hstream) {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  if (CUresult r = ready()) return r;
  Stream* s = resolve(hstream);
  if (s == nullptr || s == s->ctx->legacy || s == s->ctx->per_thread) return CUDA_ERROR_INVALID_HANDLE;
  g_streams.erase(s);
  delete s->capture;
  delete s;
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuStreamSynchronize(CUstream hstream) {
  STANDIN_ON_STREAM(hstream, s);
  if (s->capture) return refuse(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, {s});
  if ((r = legacy_use(s))) return r;
  return g_sticky;
}

STANDIN_API CUresult cuStreamIsCapturing(CUstream hstream, int* status) {
  STANDIN_ON_STREAM(hstream, s);
  *status = s->capture == nullptr ? CU_STREAM_CAPTURE_STATUS_NONE
            : s->capture->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
                                      : CU_STREAM_CAPTURE_STATUS_ACTIVE;
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuStreamBeginCapture_v2(CUstream hstream, int mode) {
  STANDIN_ON_STREAM(hstream, s);
  if (mode < CU_STREAM_CAPTURE_MODE_GLOBAL || mode > CU_STREAM_CAPTURE_MODE_RELAXED) return CUDA_ERROR_INVALID_VALUE;
  if (s == s->ctx->legacy) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;  // the legacy stream cannot capture
  if (s->capture) return CUDA_ERROR_ILLEGAL_STATE;
  s->capture = new Capture{mode, {}};
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuStreamEndCapture(CUstream hstream, CUgraph* graph) {
  STANDIN_ON_STREAM(hstream, s);
  if (s->capture == nullptr) return CUDA_ERROR_ILLEGAL_STATE;
  Capture* c = s->capture;
  s->capture = nullptr;
  *graph = nullptr;
  if (c->invalidated) {
    delete c;
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  }
  *graph = reinterpret_cast<CUgraph>(new Graph{std::move(c->nodes)});
  delete c;
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuEventCreate(CUevent* event, unsigned int flags) {
  if (CUresult r = ready()) return r;
  *event = reinterpret_cast<CUevent>(new int(static_cast<int>(flags)));
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuEventRecord(CUevent event, CUstream hstream) {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  if (CUresult r = ready()) return r;
  if (event == nullptr || resolve(hstream) == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  return legacy_use(resolve(hstream));  // (work runs at its launch: the event is complete at once)
}

STANDIN_API CUresult cuEventSynchronize(CUevent event) {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  if (CUresult r = ready()) return r;
  if (event == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  return g_sticky;
}

STANDIN_API CUresult cuEventDestroy_v2(CUevent event) {
  if (event == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  delete reinterpret_cast<int*>(event);
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuGraphInstantiateWithFlags(CUgraphExec* exec, CUgraph graph, unsigned long long flags) {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  if (CUresult r = ready()) return r;
  if (graph == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = unsafe_call()) return r;
  (void)flags;
  *exec = reinterpret_cast<CUgraphExec>(new Graph(*reinterpret_cast<Graph*>(graph)));
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuGraphLaunch(CUgraphExec exec, CUstream hstream) {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  if (CUresult r = ready()) return r;
  Graph* g = reinterpret_cast<Graph*>(exec);
  Stream* s = resolve(hstream);
  if (g == nullptr || s == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (CUresult r = legacy_use(s)) return r;
  if (g_sticky != CUDA_SUCCESS) return g_sticky;
  if (s->capture) {  // launched into a capture: its nodes become part of it
    if (s->capture->invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    s->capture->nodes.insert(s->capture->nodes.end(), g->nodes.begin(), g->nodes.end());
    return CUDA_SUCCESS;
  }
  g_counts[COUNT_GRAPHS]++;
  for (Node& node : g->nodes) {
    run_baked(node);
    if (g_sticky != CUDA_SUCCESS) break;
  }
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuGraphExecDestroy(CUgraphExec exec) {
  if (exec == nullptr) return CUDA_ERROR_INVALID_VALUE;
  delete reinterpret_cast<Graph*>(exec);
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuGraphDestroy(CUgraph graph) {
  if (graph == nullptr) return CUDA_ERROR_INVALID_VALUE;
  delete reinterpret_cast<Graph*>(graph);
  return CUDA_SUCCESS;
}

// ---- test hooks and the cuBLAS stand-in's seam (not driver API) ----

// Work of another library on `stream` (the cuBLAS stand-in's GEMM): run now, or captured with a
// copy of its bytes while the stream captures. A CUresult.
STANDIN_API CUresult opgen_standin_enqueue(CUstream hstream, void (*host)(const void*), const void* data,
                                           size_t bytes) {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  if (CUresult r = ready()) return r;
  Stream* stream = resolve(hstream);
  if (stream == nullptr || host == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (CUresult r = legacy_use(stream)) return r;
  if (g_sticky != CUDA_SUCCESS) return g_sticky;
  Node node{nullptr, {}, {}, host, std::vector<char>((const char*)data, (const char*)data + bytes)};
  if (stream->capture == nullptr) {
    run_baked(node);
    return CUDA_SUCCESS;
  }
  if (stream->capture->invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  stream->capture->nodes.push_back(std::move(node));
  return CUDA_SUCCESS;
}

STANDIN_API void opgen_standin_set_free_launches(int on) { g_free_launches = on != 0; }

// 0: launch calls, 1: kernels run (graphs' included), 2: graph launches, 3: modules loaded.
STANDIN_API long long opgen_standin_count(int what) { return what >= 0 && what < 4 ? g_counts[what] : -1; }

STANDIN_API const char* opgen_standin_fault(void) { return g_fault.c_str(); }

// Forgets the sticky fault (a real context would have to be destroyed; tests share one process).
STANDIN_API void opgen_standin_clear_fault(void) {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  g_sticky = CUDA_SUCCESS;
  g_fault.clear();
}

}  // extern "C"

// Every function cuda_api.h lists is defined above with its declared type (a mismatch fails here).
#define OPGEN_STANDIN_CHECK(name, ret, params) \
  static_assert(std::is_same<decltype(&name), ret(*) params>::value, #name);
OPGEN_CUDA_FUNCTIONS(OPGEN_STANDIN_CHECK)
