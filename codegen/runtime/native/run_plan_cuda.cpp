// The cuda side of the plan's runtime (run_plan_cuda.h): each op's module bound once per device,
// its plan recorded once per set of values (recordings.h), its launches checked as
// codegen/runtime/cuda.py's _check_launch checks them (same words) and made with cuLaunchKernel on
// the caller's stream, or replayed as a CUDA graph captured once per buffer pointers (below, as
// codegen/runtime/cuda_graph.py). Arguments as the Python backend passes them
// (codegen/runtime/plan.py's run_plan): a slot's data pointer, a scalar in its C type, a pointer
// list as a device array of its pointers and then its count (int64). Built with the host C++
// compiler (codegen/runtime/native_cuda.py).
#include "run_plan_cuda.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cuda_driver.h"
#include "cuda_gemm.h"
#include "plan_abi.h"
#include "recordings.h"

#define OPGEN_NATIVE_API extern "C" __attribute__((visibility("default")))

namespace opgen_native {
namespace {

constexpr unsigned kMaxThreads = 1024;
constexpr int64_t kMaxGrid[3] = {2147483647, 65535, 65535};

// One op's kernels on one device: its module, a function and launch bound per symbol of the
// recorder's table (nullptr: not in the module, refused when a launch names it), its recordings.
struct Binding {
  CUcontext ctx;
  CUmodule module;
  size_t image_hash;
  std::vector<std::string> symbols;
  std::vector<CUfunction> functions;
  std::vector<int> bounds;
  Recordings recordings;
};

std::mutex g_mu;  // the driver and the bindings
CudaDriver* g_driver = nullptr;
std::string g_driver_why;
bool g_driver_tried = false;
std::map<std::pair<std::string, int>, std::unique_ptr<Binding>> g_bindings;
// Bindings replaced (another image, another driver): kept, never freed, as a call on another thread
// may still be running on one (a front-end rebinds rarely: a driver named anew, a kernel rebuilt).
std::vector<std::unique_ptr<Binding>> g_retired;

void retire(std::unique_ptr<Binding>& b) {
  if (b) g_retired.push_back(std::move(b));
}

// cuBLAS, loaded at the first GEMM step, and a handle per context (never freed: calls on other
// threads may hold one; a library named anew gets handles anew).
Cublas* g_cublas = nullptr;
std::string g_cublas_why;
bool g_cublas_tried = false;
std::map<CUcontext, BlasHandle*> g_blas_handles;

// One call's context: what each step needs (cublas and blas: where the plan has a GEMM step).
struct Run {
  opgen_call* call;
  const PlanCall& plan;
  const CudaDriver& d;
  Binding* b;
  const Cublas* cublas;
  BlasHandle* blas;
};

void copy_err(char* err, int64_t errlen, const std::string& message) {
  if (err != nullptr && errlen > 0) snprintf(err, (size_t)errlen, "%s", message.c_str());
}

// The driver, loaded on first use (g_mu held).
CudaDriver* driver_locked() {
  if (!g_driver_tried) {
    g_driver_tried = true;
    g_driver = load_cuda_driver(kDefaultLibcuda, &g_driver_why);
  }
  return g_driver;
}

// Python's repr of a list of ints: "[1, 2, 3]".
std::string show(const int64_t* v, int64_t n) {
  std::string s = "[";
  for (int64_t k = 0; k < n; ++k) s += (k ? ", " : "") + std::to_string(v[k]);
  return s + "]";
}

std::shared_ptr<const Recorded> record(opgen_call* call, const PlanCall& plan, Binding* b, int* code) {
  std::string key;
  for (int64_t k = 0; k < plan.nvalues; ++k) value_key(key, plan.values[k]);
  std::shared_ptr<const Recorded> found = b->recordings.find(key);
  if (found) return found;
  auto made = std::make_shared<Recorded>();
  for (int64_t capacity = 1 << 12;; capacity *= 4) {
    made->words.resize(capacity);
    int64_t used = 0;
    int r = plan.record(plan.values, plan.nvalues, "cuda", made->words.data(), capacity, &used, &made->variant,
                        call->err, sizeof call->err);
    if (r == 0) {
      made->words.resize(used);
      break;
    }
    if (r != OPGEN_E_BUFFER || capacity >= (1 << 26)) {
      *code = OPGEN_ERR_RUNTIME;
      return nullptr;
    }
  }
  b->recordings.keep(key, made);
  return made;
}

// What a recording holds beside launches: a GEMM step (cuBLAS), a pointer list (its device array
// of pointers cannot be captured into a graph).
struct Contents {
  bool gemm = false;
  bool pointer_list = false;
};

Contents contents(const std::vector<int64_t>& w) {
  Contents c;
  for (size_t at = 0; at < w.size();) {
    if (w[at] != OPGEN_STEP_LAUNCH) {
      c.gemm = true;
      at += kGemmWords;
      continue;
    }
    size_t ngrid = (size_t)w[at + 2];
    size_t nblock = (size_t)w[at + 3 + ngrid];
    size_t nargs = (size_t)w[at + 5 + ngrid + nblock];
    for (size_t k = 0; k < nargs; ++k) c.pointer_list |= w[at + 6 + ngrid + nblock + 2 * k] == OPGEN_T_SLOTS;
    at += 6 + ngrid + nblock + 2 * nargs;
  }
  return c;
}

// A device array of a pointer list's element pointers, from the caller's allocator (scratch).
int pointer_array(opgen_call* call, const CudaDriver& d, const Slot& slot, CUstream stream, void** out) {
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

int launch(opgen_call* call, const PlanCall& plan, const CudaDriver& d, Binding* b, const int64_t* w, size_t* at,
           CUstream stream) {
  const int64_t* p = w + *at;
  int64_t symbol = p[1], ngrid = p[2];
  const int64_t* grid = p + 3;
  int64_t nblock = grid[ngrid];
  const int64_t* block = grid + ngrid + 1;
  int64_t shared = block[nblock], nargs = block[nblock + 1];
  const int64_t* args = block + nblock + 2;
  *at += 6 + ngrid + nblock + 2 * nargs;
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

int step(const Run& r, const int64_t* w, size_t* at, CUstream stream) {
  if (w[*at] == OPGEN_STEP_LAUNCH) return launch(r.call, r.plan, r.d, r.b, w, at, stream);
  return gemm(r.call, r.plan, r.d, *r.cublas, *r.blas, w, at, stream);
}

// The device's cuBLAS handle (its context current), made on first use outside any capture:
// nullptr with the call failed (a fallback where cuBLAS cannot be loaded).
BlasHandle* blas_handle(opgen_call* call, const CudaDriver& d, CUcontext ctx, const Cublas** cublas, int* code) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_cublas_tried) {
    g_cublas_tried = true;
    g_cublas = load_cublas(nullptr, &g_cublas_why);
  }
  *cublas = g_cublas;
  if (g_cublas == nullptr) {
    *code = fail_call(call, OPGEN_ERR_FALLBACK, g_cublas_why);
    return nullptr;
  }
  BlasHandle*& h = g_blas_handles[ctx];
  if (h != nullptr) return h;
  auto made = new BlasHandle();
  cublasStatus_t s = g_cublas->cublasCreate_v2(&made->handle);
  CUresult r = s == CUBLAS_STATUS_SUCCESS ? d.cuMemAlloc_v2(&made->workspace, kCublasWorkspace) : CUDA_SUCCESS;
  if (s != CUBLAS_STATUS_SUCCESS || r != CUDA_SUCCESS) {
    *code = fail_call(call, OPGEN_ERR_RUNTIME,
                      s != CUBLAS_STATUS_SUCCESS ? cublas_failure(*g_cublas, "cublasCreate_v2", s)
                                                 : "allocating cuBLAS's workspace failed: " + d.describe(r));
    return nullptr;  // (a handle made stays unfreed: a rare failure)
  }
  return h = made;
}

// ---- a recording replayed as a CUDA graph (as codegen/runtime/cuda_graph.py does) ----
//
// Captured on the runtime's own non-blocking stream (one per thread and context: a capture runs
// nothing, so nothing orders it against the caller's work) and launched on the caller's stream.
// A graph bakes every buffer's pointer: a recording's graphs are kept by the slots' pointers, the
// last kMaxGraphs, the least recently used destroyed. Launch by launch instead: a pointer list, the
// caller's stream capturing already (its own capture takes the launches), a capture that failed (a
// launch the checks refuse: the launch-by-launch path then says why), a recording whose calls keep
// bringing new pointers (kGiveUpAfter captures, fewer hits).
constexpr size_t kMaxGraphs = 8;
constexpr int kGiveUpAfter = 4 * (int)kMaxGraphs;
std::atomic<long long> g_graph_stats[3];  // captures, launches, capture failures
std::atomic<bool> g_graphs{true};          // off: every recording launch by launch (OPGEN_NO_REPLAY's part here)
enum { GRAPH_CAPTURES = 0, GRAPH_LAUNCHES = 1, GRAPH_FAILURES = 2 };

struct Graphs {
  Graphs(const CudaDriver* driver, bool pointer_list) : d(driver), never(pointer_list) {}
  const CudaDriver* d;
  bool never;
  int captures = 0, hits = 0;
  std::list<std::pair<std::vector<void*>, CUgraphExec>> execs;  // most recently used first
  ~Graphs() {
    for (auto& e : execs) d->cuGraphExecDestroy(e.second);
  }
};

CUstream capture_stream(const CudaDriver& d, CUcontext ctx) {
  thread_local std::map<CUcontext, CUstream> streams;
  CUstream& s = streams[ctx];
  if (s == nullptr && d.cuStreamCreate(&s, 1 /* CU_STREAM_NON_BLOCKING */) != CUDA_SUCCESS) s = nullptr;
  return s;
}

// The steps captured on `stream` into an instantiated graph, or nullptr (the capture discarded).
CUgraphExec capture(const Run& run, const std::vector<int64_t>& w, CUstream stream) {
  const CudaDriver& d = run.d;
  if (stream == nullptr || d.cuStreamBeginCapture_v2(stream, CU_STREAM_CAPTURE_MODE_RELAXED) != CUDA_SUCCESS)
    return nullptr;
  bool ok = true;
  for (size_t at = 0; ok && at < w.size();) ok = step(run, w.data(), &at, stream) == OPGEN_OK;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  ok = d.cuStreamEndCapture(stream, &graph) == CUDA_SUCCESS && ok;
  if (ok && d.cuGraphInstantiateWithFlags(&exec, graph, 0) != CUDA_SUCCESS) exec = nullptr;
  if (graph != nullptr) d.cuGraphDestroy(graph);
  run.call->err[0] = '\0';  // (a refusal is the launch-by-launch path's to report)
  return ok ? exec : nullptr;
}

// 1: run as a graph; 0: to run launch by launch; else an opgen_result (the graph's launch failed).
int replay(const Run& run, const Recorded& rec, bool pointer_list) {
  opgen_call* call = run.call;
  const PlanCall& plan = run.plan;
  const CudaDriver& d = run.d;
  std::lock_guard<std::mutex> lock(rec.native_mu);
  if (rec.native == nullptr) rec.native = std::make_shared<Graphs>(&d, pointer_list);
  Graphs& g = *static_cast<Graphs*>(rec.native.get());
  int status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (!g_graphs || g.never || d.cuStreamIsCapturing((CUstream)call->stream, &status) != CUDA_SUCCESS ||
      status != CU_STREAM_CAPTURE_STATUS_NONE)
    return 0;
  std::vector<void*> key;
  for (int64_t k = 0; k < plan.nslots; ++k) key.push_back(plan.slots[k].data);
  auto it = g.execs.begin();
  while (it != g.execs.end() && it->first != key) ++it;
  if (it != g.execs.end()) {
    g.execs.splice(g.execs.begin(), g.execs, it);
    g.hits++;
  } else {
    CUgraphExec exec = capture(run, rec.words, capture_stream(d, run.b->ctx));
    if (exec == nullptr) {
      g_graph_stats[GRAPH_FAILURES]++;
      g.never = true;  // (it would fail again: launch by launch from now on)
      return 0;
    }
    g_graph_stats[GRAPH_CAPTURES]++;
    g.execs.emplace_front(key, exec);
    if (g.execs.size() > kMaxGraphs) {
      d.cuGraphExecDestroy(g.execs.back().second);
      g.execs.pop_back();
    }
    if (++g.captures >= kGiveUpAfter && g.hits < g.captures) g.never = true;
  }
  CUresult r = d.cuGraphLaunch(g.execs.front().second, (CUstream)call->stream);
  if (r != CUDA_SUCCESS)
    return fail_call(call, OPGEN_ERR_RUNTIME,
                     std::string(plan.op) + ": launch of the CUDA graph of its plan failed: " + d.describe(r));
  g_graph_stats[GRAPH_LAUNCHES]++;
  return 1;
}

}  // namespace

int run_plan_cuda(opgen_call* call, const PlanCall& plan) {
  CudaDriver* d;
  Binding* b;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    d = driver_locked();
    if (d == nullptr) return fail_call(call, OPGEN_ERR_FALLBACK, g_driver_why);
    auto it = g_bindings.find({plan.op, call->device_index});
    b = it == g_bindings.end() ? nullptr : it->second.get();
  }
  if (b == nullptr)
    return fail_call(call, OPGEN_ERR_FALLBACK,
                     std::string(plan.op) + ": its kernels are not bound on cuda device " +
                         std::to_string(call->device_index));
  if ((size_t)plan.nsymbols != b->symbols.size())
    return fail_call(call, OPGEN_ERR_RUNTIME,
                     std::string(plan.op) + ": the plan names " + std::to_string(plan.nsymbols) +
                         " kernels, its binding " + std::to_string(b->symbols.size()));
  int code = OPGEN_OK;
  std::shared_ptr<const Recorded> rec = record(call, plan, b, &code);
  if (rec == nullptr) return code;
  Contents has = contents(rec->words);
  std::string why;
  if (has.gemm && !gemm_dtypes_taken(plan, rec->words, &why)) return fail_call(call, OPGEN_ERR_FALLBACK, why);
  CUcontext current = nullptr;
  if (d->cuCtxGetCurrent(&current) != CUDA_SUCCESS || current != b->ctx) {
    CUresult r = d->cuCtxSetCurrent(b->ctx);
    if (r != CUDA_SUCCESS) return fail_call(call, OPGEN_ERR_RUNTIME, "cuCtxSetCurrent failed: " + d->describe(r));
  }
  const Cublas* cublas = nullptr;
  BlasHandle* blas = has.gemm ? blas_handle(call, *d, b->ctx, &cublas, &code) : nullptr;
  if (has.gemm && blas == nullptr) return code;
  Run run{call, plan, *d, b, cublas, blas};
  int replayed = replay(run, *rec, has.pointer_list);
  if (replayed != 0) return replayed == 1 ? OPGEN_OK : replayed;
  const std::vector<int64_t>& w = rec->words;
  for (size_t at = 0; at < w.size();)
    if (int r = step(run, w.data(), &at, (CUstream)call->stream)) return r;
  return OPGEN_OK;
}

}  // namespace opgen_native

OPGEN_NATIVE_API int opgen_native_cuda_driver(const char* path, char* err, int64_t errlen) {
  using namespace opgen_native;
  std::lock_guard<std::mutex> lock(g_mu);
  for (auto& [key, b] : g_bindings) retire(b);  // (modules of another driver: unusable with this one)
  g_bindings.clear();
  g_driver_tried = true;
  g_driver = load_cuda_driver(path ? path : kDefaultLibcuda, &g_driver_why);
  if (g_driver == nullptr) copy_err(err, errlen, g_driver_why);
  return g_driver == nullptr ? OPGEN_ERR_FALLBACK : OPGEN_OK;
}

OPGEN_NATIVE_API int opgen_native_cuda_bind(const char* op, int32_t device_index, const void* image,
                                            int64_t image_bytes, const char* const* symbols, int64_t nsymbols,
                                            char* err, int64_t errlen) {
  using namespace opgen_native;
  std::lock_guard<std::mutex> lock(g_mu);
  CudaDriver* d = driver_locked();
  if (d == nullptr) {
    copy_err(err, errlen, g_driver_why);
    return OPGEN_ERR_FALLBACK;
  }
  size_t hash = std::hash<std::string>()(std::string(static_cast<const char*>(image), (size_t)image_bytes));
  auto& slot = g_bindings[{op, device_index}];
  if (slot && slot->image_hash == hash && slot->symbols.size() == (size_t)nsymbols) return OPGEN_OK;
  auto failed = [&](const std::string& what, CUresult r) {
    copy_err(err, errlen, std::string(op) + ": " + what + " on cuda device " + std::to_string(device_index) +
                              " failed: " + d->describe(r));
    return OPGEN_ERR_RUNTIME;
  };
  CUdevice dev;
  CUcontext ctx, before = nullptr;
  CUresult r = d->cuDeviceGet(&dev, device_index);
  if (r != CUDA_SUCCESS) return failed("cuDeviceGet", r);
  if ((r = d->cuDevicePrimaryCtxRetain(&ctx, dev)) != CUDA_SUCCESS) return failed("cuDevicePrimaryCtxRetain", r);
  d->cuCtxGetCurrent(&before);
  if ((r = d->cuCtxSetCurrent(ctx)) != CUDA_SUCCESS) return failed("cuCtxSetCurrent", r);
  auto b = std::make_unique<Binding>();
  b->ctx = ctx;
  b->image_hash = hash;
  r = d->cuModuleLoadData(&b->module, image);
  for (int64_t k = 0; r == CUDA_SUCCESS && k < nsymbols; ++k) {
    CUfunction fn = nullptr;
    int bound = (int)kMaxThreads;
    if (d->cuModuleGetFunction(&fn, b->module, symbols[k]) == CUDA_SUCCESS)
      r = d->cuFuncGetAttribute(&bound, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn);
    b->symbols.emplace_back(symbols[k]);
    b->functions.push_back(fn);
    b->bounds.push_back(bound);
  }
  d->cuCtxSetCurrent(before);
  if (r != CUDA_SUCCESS) return failed("loading its module", r);
  retire(slot);
  slot = std::move(b);
  return OPGEN_OK;
}

// One run of a plan without a generated driver (the tests, the benchmark): the PlanCall's parts,
// the device, the stream and a scratch allocator. An OPGEN_* result with err set.
OPGEN_NATIVE_API int opgen_native_cuda_run(const char* op, opgen_plan_recorder record, const char* const* symbols,
                                           int64_t nsymbols, const opgen_plan_value* values, int64_t nvalues,
                                           const opgen_native::Slot* slots, int64_t nslots, int32_t device_index,
                                           void* stream, opgen_allocator allocator, char* err, int64_t errlen) {
  static thread_local opgen_call call;
  call.device = OPGEN_DEV_CUDA;
  call.device_index = device_index;
  call.stream = stream;
  call.allocator = allocator;
  call.err[0] = '\0';
  opgen_native::PlanCall plan{op, record, symbols, nsymbols, values, nvalues, slots, nslots};
  int r = opgen_native::run_plan_cuda(&call, plan);
  if (r != OPGEN_OK) opgen_native::copy_err(err, errlen, call.err);
  return r;
}

// The graph replay's counters: 0 graphs captured, 1 graph launches, 2 captures that failed.
OPGEN_NATIVE_API long long opgen_native_cuda_stat(int what) {
  return what >= 0 && what < 3 ? opgen_native::g_graph_stats[what].load() : -1;
}

// Graph replay on (1, the default) or off (0: launch by launch, as OPGEN_NO_REPLAY asks of Python's).
OPGEN_NATIVE_API void opgen_native_cuda_graphs(int on) { opgen_native::g_graphs = on != 0; }

OPGEN_NATIVE_API int opgen_native_cuda_cublas(const char* path, char* err, int64_t errlen) {
  using namespace opgen_native;
  std::lock_guard<std::mutex> lock(g_mu);
  g_blas_handles.clear();  // (handles of another library: never freed, a call may hold one)
  g_cublas_tried = true;
  g_cublas = load_cublas(path, &g_cublas_why);
  if (g_cublas == nullptr) copy_err(err, errlen, g_cublas_why);
  return g_cublas == nullptr ? OPGEN_ERR_FALLBACK : OPGEN_OK;
}
