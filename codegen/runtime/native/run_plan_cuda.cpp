// The cuda side of the plan's runtime (run_plan_cuda.h): each op's module bound once per device
// (cuda_binding.h), its plan recorded once per set of values (recordings.h), then replayed as a CUDA
// graph (cuda_graphs.h) or run step by step on the caller's stream: launches (cuda_launch.h) and
// GEMM steps (cuda_gemm.h). libcuda and cuBLAS are reached with dlopen (cuda_driver.h,
// cublas_library.h). Built with the host C++ compiler (codegen/runtime/native_cuda.py).
#include "run_plan_cuda.h"

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "call_error.h"
#include "cuda_binding.h"
#include "cuda_driver.h"
#include "cuda_gemm.h"
#include "cuda_graphs.h"
#include "cuda_launch.h"
#include "plan_abi.h"
#include "cuda_recordings.h"

#define OPGEN_NATIVE_API extern "C" __attribute__((visibility("default")))

namespace opgen_native {
namespace {

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

// The step at w[*at] on `stream` (*at moved past it).
int step(const Run& r, const int64_t* w, size_t* at, CUstream stream) {
  if (w[*at] == OPGEN_STEP_LAUNCH) return launch(r.call, r.plan, r.d, r.b, w, at, stream);
  if (w[*at] == OPGEN_STEP_LANES) {  // (the cpu's alone: a stream runs the steps in order anyway)
    *at += (size_t)opgen_step_words(w + *at);
    return OPGEN_OK;
  }
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
  if (has.gemm && !gemm_steps_taken(plan, rec->words, &why)) return fail_call(call, OPGEN_ERR_FALLBACK, why);
  CUcontext current = nullptr;
  if (d->cuCtxGetCurrent(&current) != CUDA_SUCCESS || current != b->ctx) {
    CUresult r = d->cuCtxSetCurrent(b->ctx);
    if (r != CUDA_SUCCESS) return fail_call(call, OPGEN_ERR_RUNTIME, "cuCtxSetCurrent failed: " + d->describe(r));
  }
  const Cublas* cublas = nullptr;
  BlasHandle* blas = has.gemm ? blas_handle(call, *d, b->ctx, &cublas, &code) : nullptr;
  if (has.gemm && blas == nullptr) return code;
  Run run{call, plan, *d, b, cublas, blas};
  auto steps = [&run](const int64_t* w, size_t* at, CUstream stream) { return step(run, w, at, stream); };
  int replayed = replay(call, plan, *d, b->ctx, *rec, has.pointer_list, steps);
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

// run_plan_cuda with C linkage, for the dispatcher of a driver library (run_plan.h's CudaRunner),
// and the run_plan.h ABI it was built with (the dispatcher refuses another).
OPGEN_NATIVE_API int opgen_native_cuda_run_plan(opgen_call* call, const opgen_native::PlanCall* plan) {
  return opgen_native::run_plan_cuda(call, *plan);
}

OPGEN_NATIVE_API long long opgen_native_cuda_plan_abi() { return OPGEN_RUN_PLAN_ABI; }

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
