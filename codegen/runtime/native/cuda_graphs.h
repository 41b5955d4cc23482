// A recording replayed as a CUDA graph, as codegen/runtime/cuda_graph.py does for the Python plan.
//
// Captured on the runtime's own non-blocking stream (one per thread and context: a capture runs
// nothing, so nothing orders it against the caller's work) and launched on the caller's stream.
// A graph bakes every buffer's pointer: a recording's graphs are kept by the slots' pointers, the
// last kMaxGraphs, the least recently used destroyed. Launch by launch instead: a pointer list, the
// caller's stream capturing already (its own capture takes the launches), a capture that failed (a
// launch the checks refuse: the launch-by-launch path then says why), a recording whose calls keep
// bringing new pointers (kGiveUpAfter captures, fewer hits).
#ifndef OPGEN_CUDA_GRAPHS_H
#define OPGEN_CUDA_GRAPHS_H

#include <atomic>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "call_error.h"
#include "cuda_driver.h"
#include "cuda_recordings.h"
#include "run_plan.h"

namespace opgen_native {

enum { GRAPH_CAPTURES = 0, GRAPH_LAUNCHES = 1, GRAPH_FAILURES = 2 };
inline constexpr size_t kMaxGraphs = 8;
inline constexpr int kGiveUpAfter = 4 * (int)kMaxGraphs;
inline std::atomic<long long> g_graph_stats[3];  // captures, launches, capture failures
inline std::atomic<bool> g_graphs{true};          // off: launch by launch (OPGEN_NO_REPLAY's part here)

// A recording's graphs on one device, by its slots' pointers; `never`: it runs launch by launch.
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

// This thread's capture stream in `ctx` (non-blocking: the legacy stream never waits on a capture).
inline CUstream capture_stream(const CudaDriver& d, CUcontext ctx) {
  thread_local std::map<CUcontext, CUstream> streams;
  CUstream& s = streams[ctx];
  if (s == nullptr && d.cuStreamCreate(&s, 1 /* CU_STREAM_NON_BLOCKING */) != CUDA_SUCCESS) s = nullptr;
  return s;
}

// The steps captured on `stream` into an instantiated graph (`step(w, &at, stream)` runs the step
// at w[at]), or nullptr (the capture discarded).
template <class Step>
CUgraphExec capture(opgen_call* call, const CudaDriver& d, const std::vector<int64_t>& w, CUstream stream,
                    const Step& step) {
  if (stream == nullptr || d.cuStreamBeginCapture_v2(stream, CU_STREAM_CAPTURE_MODE_RELAXED) != CUDA_SUCCESS)
    return nullptr;
  bool ok = true;
  for (size_t at = 0; ok && at < w.size();) ok = step(w.data(), &at, stream) == OPGEN_OK;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  ok = d.cuStreamEndCapture(stream, &graph) == CUDA_SUCCESS && ok;
  if (ok && d.cuGraphInstantiateWithFlags(&exec, graph, 0) != CUDA_SUCCESS) exec = nullptr;
  if (graph != nullptr) d.cuGraphDestroy(graph);
  call->err[0] = '\0';  // (a refusal is the launch-by-launch path's to report)
  return ok ? exec : nullptr;
}

// The recording on `call`'s stream as a graph of its steps (captured in `ctx`): 1, run as a graph;
// 0, to run launch by launch; else an opgen_result (the graph's launch failed).
template <class Step>
int replay(opgen_call* call, const PlanCall& plan, const CudaDriver& d, CUcontext ctx, const Recorded& rec,
           bool pointer_list, const Step& step) {
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
    CUgraphExec exec = capture(call, d, rec.words, capture_stream(d, ctx), step);
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

}  // namespace opgen_native

#endif  // OPGEN_CUDA_GRAPHS_H
