// The libcuda stand-in's state (cuda_standin.cpp: what it stands in for and how strict it is):
// contexts, modules and their functions, streams and their captures, graphs, allocations, the
// sticky fault; and the rules every call shares (a launch run or baked, the legacy stream during a
// capture, the calls a capture forbids).
#ifndef OPGEN_CUDA_STANDIN_STATE_H
#define OPGEN_CUDA_STANDIN_STATE_H

#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cuda_api.h"
#include "opgen_emu_abi.h"

namespace opgen_standin {

inline constexpr int kDevices = 2;
inline constexpr unsigned kMaxThreads = 1024;
inline constexpr unsigned kMaxBlock[3] = {1024, 1024, 64};
inline constexpr unsigned long long kMaxGrid[3] = {2147483647ull, 65535, 65535};
inline constexpr uint64_t kMaxDynamicShared = 48 * 1024;
inline constexpr int CUDA_ERROR_ILLEGAL_ADDRESS = 700;

typedef int (*launch_fn)(const opgen_launch_cfg*, void**, char*, size_t);

struct Stream;
struct Context {
  int device;
  Stream* legacy;
  Stream* per_thread;
};

struct Module;
struct Function {
  Module* module;
  std::string name;
  launch_fn launch;
  std::vector<unsigned> params;  // (kind << 24) | size, from opgen_params_<name>
  unsigned max_threads;
};

struct Module {
  Context* ctx;
  void* lib;
  uint64_t static_smem;
  int threads;
  uint64_t stack;
  std::map<std::string, Function*> functions;
};

// A launch as a graph holds it: the argument bytes copied at capture (pointers baked in). Or a
// library's work on the stream (the cuBLAS stand-in's GEMM): `host` called with its bytes.
struct Node {
  Function* fn;
  opgen_launch_cfg cfg;
  std::vector<std::vector<char>> args;
  void (*host)(const void*) = nullptr;
  std::vector<char> payload;
};

struct Capture {
  int mode;
  std::vector<Node> nodes;
  bool invalidated = false;
};

struct Stream {
  Context* ctx;
  bool blocking;
  Capture* capture = nullptr;
};

struct Graph {
  std::vector<Node> nodes;
};

inline std::recursive_mutex g_mu;
inline bool g_init = false;
inline Context g_ctx[kDevices];
inline thread_local Context* t_current = nullptr;
std::set<Stream*> g_streams;  // created ones (the legacy and per-thread streams are each context's own)
std::map<uintptr_t, size_t> g_allocations;
CUresult g_sticky = CUDA_SUCCESS;
std::string g_fault;
inline bool g_free_launches = false;
long long g_counts[4];  // launch calls, kernels run, graph launches, modules loaded

enum { COUNT_LAUNCHES = 0, COUNT_RUN = 1, COUNT_GRAPHS = 2, COUNT_MODULES = 3 };

inline CUresult fault(CUresult code, const std::string& why) {
  if (g_sticky == CUDA_SUCCESS) {
    g_sticky = code;
    g_fault = why;
  }
  return CUDA_SUCCESS;  // asynchronous on a device: seen by the next call that reports errors
}

// Whether [p, p + 1) lies in a live allocation.
inline bool allocated(uintptr_t p) {
  auto it = g_allocations.upper_bound(p);
  if (it == g_allocations.begin()) return false;
  --it;
  return p < it->first + (it->second ? it->second : 1);
}

inline void run(const Node& node, void** params) {
  g_counts[COUNT_RUN]++;
  const Function* fn = node.fn;
  for (size_t i = 0; i < fn->params.size(); ++i) {
    if ((fn->params[i] >> 24) != 1) continue;  // OPGEN_P_POINTER
    uintptr_t p;
    std::memcpy(&p, params[i], sizeof p);
    if (p != 0 && !allocated(p)) {
      fault(CUDA_ERROR_ILLEGAL_ADDRESS, "kernel '" + fn->name + "' argument " + std::to_string(i) +
                                            " points into no live allocation");
      return;
    }
  }
  if (g_free_launches) return;
  char err[1024] = "";
  if (fn->launch(&node.cfg, params, err, sizeof err) != 0) fault(CUDA_ERROR_LAUNCH_FAILED, err);
}

inline void run_baked(Node& node) {
  if (node.host != nullptr) {
    if (!g_free_launches) node.host(node.payload.data());
    return;
  }
  std::vector<void*> params;
  for (auto& a : node.args) params.push_back(a.data());
  run(node, params.data());
}

inline Stream* resolve(CUstream s) {
  Context* ctx = t_current;
  if (s == nullptr || s == OPGEN_CU_STREAM_LEGACY) return ctx ? ctx->legacy : nullptr;
  if (s == OPGEN_CU_STREAM_PER_THREAD) return ctx ? ctx->per_thread : nullptr;
  Stream* stream = reinterpret_cast<Stream*>(s);
  return g_streams.count(stream) ? stream : nullptr;
}

// The captures an operation that CUDA forbids during them touches: invalidated, and `code` returned.
inline CUresult refuse(CUresult code, const std::vector<Stream*>& captures) {
  for (Stream* s : captures)
    if (s->capture) s->capture->invalidated = true;
  return code;
}

inline std::vector<Stream*> capturing(Context* ctx, bool strict_only) {
  std::vector<Stream*> found;
  for (Stream* s : g_streams)
    if (s->capture && (ctx == nullptr || s->ctx == ctx) &&
        (!strict_only || s->capture->mode != CU_STREAM_CAPTURE_MODE_RELAXED))
      found.push_back(s);
  return found;
}

// The legacy stream used while a blocking stream of its context captures.
inline CUresult legacy_use(Stream* s) {
  if (s != s->ctx->legacy) return CUDA_SUCCESS;
  std::vector<Stream*> blocking;
  for (Stream* c : capturing(s->ctx, false))
    if (c->blocking) blocking.push_back(c);
  return blocking.empty() ? CUDA_SUCCESS : refuse(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, blocking);
}

// An API CUDA calls unsafe during a capture (allocation, freeing, synchronous copies).
inline CUresult unsafe_call() {
  std::vector<Stream*> strict = capturing(nullptr, true);
  return strict.empty() ? CUDA_SUCCESS : refuse(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, strict);
}

inline CUresult ready() {
  if (!g_init) return CUDA_ERROR_NOT_INITIALIZED;
  if (t_current == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  return CUDA_SUCCESS;
}

// The stream a call names, or nullptr with *r saying why (no driver or context, no such stream).
inline Stream* named(CUstream h, CUresult* r) {
  if ((*r = ready()) != CUDA_SUCCESS) return nullptr;
  Stream* s = resolve(h);
  if (s == nullptr) *r = CUDA_ERROR_INVALID_HANDLE;
  return s;
}

// The start of a call on a stream: the state locked, `s` the stream `h` names (else the error
// returned); `r` is left for the call's own results.
#define STANDIN_ON_STREAM(h, s)                      \
  std::lock_guard<std::recursive_mutex> lock(g_mu); \
  CUresult r;                                       \
  Stream* s = named(h, &r);                         \
  if (s == nullptr) return r

// The image's fields, or false for an image that is not the stand-in's.
inline bool parse(const char* image, std::string* runtime, std::string* module, int* threads, uint64_t* stack,
           std::map<std::string, unsigned>* bounds) {
  std::istringstream in(image);
  std::string magic, version;
  if (!(in >> magic >> version) || magic != "opgen-standin-image" || version != "1") return false;
  std::string key;
  while (in >> key) {
    if (key == "runtime") in >> *runtime;
    else if (key == "module") in >> *module;
    else if (key == "threads") in >> *threads;
    else if (key == "stack") in >> *stack;
    else if (key == "kernel") {
      std::string name;
      unsigned bound;
      if (!(in >> name >> bound)) return false;
      (*bounds)[name] = bound;
    } else {
      return false;
    }
  }
  return !runtime->empty() && !module->empty() && *threads > 0;
}

// Each result's name and text, as the driver gives them.
struct ErrorText {
  const char* name;
  const char* text;
};

inline const ErrorText* error_text(CUresult error) {
  static const std::map<int, ErrorText> table = {
      {CUDA_SUCCESS, {"CUDA_SUCCESS", "no error"}},
      {CUDA_ERROR_INVALID_VALUE, {"CUDA_ERROR_INVALID_VALUE", "invalid argument"}},
      {CUDA_ERROR_OUT_OF_MEMORY, {"CUDA_ERROR_OUT_OF_MEMORY", "out of memory"}},
      {CUDA_ERROR_NOT_INITIALIZED, {"CUDA_ERROR_NOT_INITIALIZED", "initialization error"}},
      {CUDA_ERROR_INVALID_DEVICE, {"CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"}},
      {CUDA_ERROR_INVALID_IMAGE, {"CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"}},
      {CUDA_ERROR_INVALID_CONTEXT, {"CUDA_ERROR_INVALID_CONTEXT", "invalid device context"}},
      {CUDA_ERROR_INVALID_HANDLE, {"CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"}},
      {CUDA_ERROR_ILLEGAL_STATE,
       {"CUDA_ERROR_ILLEGAL_STATE", "the operation cannot be performed in the present state"}},
      {CUDA_ERROR_NOT_FOUND, {"CUDA_ERROR_NOT_FOUND", "named symbol not found"}},
      {CUDA_ERROR_ILLEGAL_ADDRESS, {"CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"}},
      {CUDA_ERROR_LAUNCH_FAILED, {"CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"}},
      {CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
       {"CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "operation not permitted when stream is capturing"}},
      {CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
       {"CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", "operation failed due to a previous error during capture"}},
      {CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
       {"CUDA_ERROR_STREAM_CAPTURE_IMPLICIT",
        "operation would make the legacy stream depend on a capturing blocking stream"}}};
  auto it = table.find(error);
  return it == table.end() ? nullptr : &it->second;
}

}  // namespace opgen_standin

#endif  // OPGEN_CUDA_STANDIN_STATE_H
