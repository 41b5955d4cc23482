// run_plan_cpu (run_plan_cpu.h): the op's binding, its recording (recordings.h) and that
// recording's batch (cpu_batch.h), then one call into the emulation runtime with the call's
// buffers bound to the batch's table, as the cpu backend's replay runs it (host/replay.py run).
#include "run_plan_cpu.h"

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "cpu_batch.h"
#include "recordings.h"

namespace opgen_native {
namespace {

std::mutex g_bindings_mu;
std::unordered_map<std::string, std::shared_ptr<const CpuBinding>> g_bindings;  // by op
std::unordered_set<std::string> g_unbound;  // ops opgen_native_unbind_cpu forgot: not self-bound
CpuBinder g_binder = nullptr;
std::atomic<uint64_t> g_bindings_changed{0};  // bumped (under g_bindings_mu) by every bind and unbind

std::shared_ptr<const CpuBinding> binding_of(const char* op) {
  // This thread's last answer (its op's name compared: a caller's name may sit where another's
  // did), reused while no binding changed since: no lock, no look-up on a thread calling one op
  // over and over.
  thread_local struct { std::string op; uint64_t changed; std::shared_ptr<const CpuBinding> binding; } last{};
  if (last.binding && last.changed == g_bindings_changed.load(std::memory_order_acquire) && last.op == op)
    return last.binding;
  std::lock_guard<std::mutex> hold(g_bindings_mu);
  last.op.assign(op);  // (reused: an op's name past the short-string size took a heap block per call)
  auto found = g_bindings.find(last.op);
  last.changed = g_bindings_changed.load(std::memory_order_relaxed);
  last.binding = found == g_bindings.end() ? nullptr : found->second;
  return last.binding;
}

// The op's binding, made by the library's binder where it has one and nothing bound the op yet.
std::shared_ptr<const CpuBinding> bound_or_self_bound(const PlanCall& plan, std::string& why) {
  std::shared_ptr<const CpuBinding> b = binding_of(plan.op);
  if (b) return b;
  CpuBinder binder;
  {
    std::lock_guard<std::mutex> hold(g_bindings_mu);
    binder = g_unbound.count(plan.op) ? nullptr : g_binder;
  }
  why = std::string(plan.op) + ": no cpu binding (opgen_native_bind_cpu)";
  if (binder && binder(plan, why) == 0) b = binding_of(plan.op);
  return b;
}

int say(opgen_call* call, int code, const std::string& message) {
  snprintf(call->err, sizeof call->err, "%s", message.c_str());
  return code;
}

// This thread's last batch and what it was built of (held, so that neither address is another's
// meanwhile), and its buffer table (reused: its heap block taken once).
struct ThreadRun {
  std::shared_ptr<const Recording> rec;
  std::shared_ptr<const CpuBinding> b;
  std::shared_ptr<const CpuBatch> batch;
  std::vector<uint64_t> table;
};

// The recording's batch for this binding: made once (the recording holds it); this thread's last
// one without the recording's lock (a batch is a function of its recording and binding alone).
const CpuBatch& batch_of(const std::shared_ptr<const Recording>& rec, const std::shared_ptr<const CpuBinding>& b,
                         const PlanCall& plan, ThreadRun& mine) {
  if (mine.rec == rec && mine.b == b) return *mine.batch;
  std::shared_ptr<const CpuBatch> made;
  {
    std::lock_guard<std::mutex> hold(rec->mu);
    if (rec->native_for != b || !rec->native) {
      rec->native = build_batch(*rec, *b, plan);
      rec->native_for = b;
    }
    made = std::static_pointer_cast<const CpuBatch>(rec->native);
  }
  mine.rec = rec;
  mine.b = b;
  mine.batch = std::move(made);
  return *mine.batch;
}

// The call's buffer table: each slot's data pointer, then each list slot's pointers and count.
// False where a batched GEMM's buffer is not what it needs (the Python backend's checked path).
bool bind_table(const CpuBatch& batch, const PlanCall& plan, std::vector<uint64_t>& table) {
  if (plan.nslots != batch.nslots) return false;
  for (const GemmNeed& need : batch.needs) {
    const Slot& s = plan.slots[need.slot];
    if (s.count >= 0 || s.dtype != need.dtype || s.size < need.elements) return false;
  }
  table.resize(static_cast<size_t>(plan.nslots) + 2 * batch.lists.size());
  for (int64_t k = 0; k < plan.nslots; ++k) table[k] = reinterpret_cast<uint64_t>(plan.slots[k].data);
  for (size_t j = 0; j < batch.lists.size(); ++j) {
    const Slot& s = plan.slots[batch.lists[j]];
    table[plan.nslots + 2 * j] = reinterpret_cast<uint64_t>(s.items);
    table[plan.nslots + 2 * j + 1] = static_cast<uint64_t>(s.count < 0 ? 0 : s.count);
  }
  return true;
}

}  // namespace

void install_cpu_binding(const char* op, std::shared_ptr<const CpuBinding> binding) {
  std::lock_guard<std::mutex> hold(g_bindings_mu);
  g_unbound.erase(op);
  g_bindings[op] = std::move(binding);  // (calls in flight keep the binding they took)
  g_bindings_changed.fetch_add(1, std::memory_order_release);
}

void set_cpu_binder(CpuBinder binder) {
  std::lock_guard<std::mutex> hold(g_bindings_mu);
  g_binder = binder;
}

int run_plan_cpu(opgen_call* call, const PlanCall& plan) {
  std::string why;
  std::shared_ptr<const CpuBinding> b = bound_or_self_bound(plan, why);
  if (!b) return say(call, OPGEN_ERR_FALLBACK, why);
  if (!b->fallback.empty()) return say(call, OPGEN_ERR_FALLBACK, std::string(plan.op) + ": " + b->fallback);
  std::shared_ptr<const Recording> rec = recordings().get(plan, b->plan.c_str(), why);
  if (!rec) return say(call, OPGEN_ERR_FALLBACK, why);
  thread_local ThreadRun mine;
  const CpuBatch& batch = batch_of(rec, b, plan, mine);
  if (!batch.fallback.empty()) return say(call, OPGEN_ERR_FALLBACK, batch.fallback);
  std::vector<uint64_t>& table = mine.table;
  if (!bind_table(batch, plan, table))
    return say(call, OPGEN_ERR_FALLBACK, std::string(plan.op) + ": a GEMM step's buffer is not what it needs, or the "
                                                                "call's slots are not the plan's");
  typedef uint64_t (*run_batch_fn)(const unsigned char*, uint64_t, const uint64_t*, uint64_t, char*, size_t);
  call->err[0] = '\0';
  uint64_t done = reinterpret_cast<run_batch_fn>(b->run_batch)(batch.blob.data(), batch.count, table.data(),
                                                                table.size(), call->err, sizeof call->err);
  if (done != batch.count)  // (HostKernelError)
    return call->err[0] ? OPGEN_ERR_RUNTIME
                        : say(call, OPGEN_ERR_RUNTIME, "kernel '" + batch.names[done] + "' failed");
  if (!batch.refused.empty()) return say(call, OPGEN_ERR_VALUE, batch.refused);  // (HostLaunchError)
  return OPGEN_OK;
}

}  // namespace opgen_native

OPGEN_NATIVE_API int opgen_native_bind_cpu(const char* op, const opgen_cpu_binding* in, char* err, int64_t errlen) {
  using opgen_native::CpuBinding;
  using opgen_native::CpuKernel;
  try {
    auto b = std::make_shared<CpuBinding>();
    b->plan = in->plan ? in->plan : "cpu";
    for (int64_t k = 0; k < in->nkernels; ++k) {
      const opgen_cpu_kernel& kin = in->kernels[k];
      b->kernels.push_back(CpuKernel{kin.symbol ? kin.symbol : "", kin.launch,
                                     std::vector<uint32_t>(kin.params, kin.params + kin.nparams), kin.max_threads,
                                     kin.max_dynamic_shared, kin.static_shared});
    }
    b->run_batch = in->run_batch;
    b->gemm = in->gemm;
    b->sgemm = in->sgemm;
    b->dgemm = in->dgemm;
    b->blas_int64 = in->blas_int64 != 0;
    b->random_order = in->random_order != 0;
    b->threads = in->threads;
    b->seed = in->seed;
    b->stack_size = in->stack_size;
    for (int axis = 0; axis < 3; ++axis) {
      b->max_grid[axis] = in->max_grid[axis];
      b->max_block[axis] = in->max_block[axis];
    }
    b->max_shared = in->max_shared;
    b->fallback = in->fallback ? in->fallback : "";
    if (!b->run_batch || !b->gemm) {
      snprintf(err, static_cast<size_t>(errlen), "%s: no emulation runtime to bind", op);
      return 1;
    }
    opgen_native::install_cpu_binding(op, std::move(b));
    return 0;
  } catch (const std::exception& e) {
    snprintf(err, static_cast<size_t>(errlen), "%s: binding failed: %s", op, e.what());
    return 1;
  }
}

OPGEN_NATIVE_API void opgen_native_unbind_cpu(const char* op) {
  std::lock_guard<std::mutex> hold(opgen_native::g_bindings_mu);
  opgen_native::g_bindings.erase(op);
  opgen_native::g_unbound.insert(op);
  opgen_native::g_bindings_changed.fetch_add(1, std::memory_order_release);
}

OPGEN_NATIVE_API int64_t opgen_native_cpu_abi(int what) {
  switch (what) {
    case 0: return OPGEN_CPU_BINDING_ABI;
    case 1: return static_cast<int64_t>(sizeof(opgen_cpu_kernel));
    case 2: return static_cast<int64_t>(sizeof(opgen_cpu_binding));
    case 3: return static_cast<int64_t>(sizeof(opgen_native::Slot));
    default: return -1;
  }
}
