// A recording of a plan (recordings.h) as the batch the emulation runtime runs in one call
// (opgen_rt_run_batch: opgen_batch_record per launch or GEMM, emu/opgen_emu_abi.h), as
// host/replay.py builds it from a Python Recording: each launch's function, its configuration
// checked as HostFunction._checked_cfg checks it (same limits, same messages), its scalars packed by
// value and its buffers as indices into the call's table; a GEMM step as a record of opgen_rt_gemm.
// Built once per recording and binding; a call binds its buffers to the table (cpu_run.h).
#ifndef OPGEN_CPU_BATCH_H
#define OPGEN_CPU_BATCH_H

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "opgen_emu_abi.h"
#include "recordings.h"
#include "run_plan_cpu.h"

namespace opgen_native {

// The parameter kinds a module reports (OPGEN_P_* in emu/include/opgen_emu_glue.h; host/pack.py
// mirrors them too).
enum { kParamPointer = 1, kParamFloat = 2, kParamSint = 3, kParamUint = 4 };

struct CpuKernel {
  std::string symbol;
  uint64_t launch;
  std::vector<uint32_t> params;
  int64_t max_threads, max_dynamic_shared, static_shared;
};

// An op's binding (opgen_cpu_binding, copied).
struct CpuBinding {
  std::string plan;
  std::vector<CpuKernel> kernels;
  uint64_t run_batch, gemm, sgemm, dgemm;
  bool blas_int64, random_order;
  int64_t threads;
  uint64_t seed, stack_size;
  int64_t max_grid[3], max_block[3], max_shared;
  std::string fallback;
  std::string no_blas;  // why GEMM steps have no BLAS, where the binder knows better than NumPy's path
};

// What a batched GEMM reads or writes of a slot: the call's buffer must be of `dtype` and hold as
// many elements (else the Python backend takes its checked path: a fallback).
struct GemmNeed {
  int64_t slot, elements;
  int32_t dtype;
};

struct CpuBatch {
  int64_t nslots = 0;  // the plan's slots when it was built (a call with another count falls back)
  std::vector<unsigned char> blob;  // `count` records, each followed by its 16-byte argument slots
  uint64_t count = 0;
  std::vector<std::string> names;   // each record's kernel ("gemm"), for a message without one
  std::deque<opgen_launch_cfg> cfgs;  // (a deque: the records point at them)
  std::deque<opgen_gemm_desc> gemms;
  std::vector<GemmNeed> needs;
  std::vector<int64_t> lists;  // list slots: table[nslots + 2j] their pointers, table[nslots + 2j + 1] their count
  std::string refused;   // a launch configuration refused after the records ran (HostLaunchError: ValueError)
  std::string fallback;  // non-empty: the Python backend takes another route (why)
};

namespace cpu_batch {

inline std::string dims_text(const std::vector<int64_t>& d) {  // a Python tuple's repr
  std::string s = "(";
  for (size_t k = 0; k < d.size(); ++k) s += (k ? ", " : "") + std::to_string(d[k]);
  return s + (d.size() == 1 ? ",)" : ")");
}

// pack.py _dims: 1-3 dimensions, each in [1, limit]; "" or the message.
inline std::string check_dims(const char* what, const std::vector<int64_t>& d, const int64_t* limits,
                              unsigned out[3]) {
  if (d.empty() || d.size() > 3)
    return std::string(what) + " must be an int or a tuple of 1-3 ints, got " + dims_text(d);
  for (int axis = 0; axis < 3; ++axis) {
    int64_t v = axis < static_cast<int>(d.size()) ? d[axis] : 1;
    if (v < 1 || v > limits[axis])
      return std::string(what) + "[" + std::to_string(axis) + "] = " + std::to_string(v) +
             " is out of CUDA's range [1, " + std::to_string(limits[axis]) + "] (got " + what + "=" + dims_text(d) +
             ")";
    out[axis] = static_cast<unsigned>(v);
  }
  return "";
}

// HostFunction._checked_cfg: the configuration, or "" with `refused` set.
inline bool checked_cfg(const CpuKernel& fn, const CpuBinding& b, const std::vector<int64_t>& grid,
                        const std::vector<int64_t>& block, int64_t shared, opgen_launch_cfg& cfg,
                        std::string& refused) {
  cfg = opgen_launch_cfg{};
  refused = check_dims("grid", grid, b.max_grid, cfg.grid);
  if (refused.empty()) refused = check_dims("block", block, b.max_block, cfg.block);
  if (!refused.empty()) return false;
  int64_t nthreads = int64_t(cfg.block[0]) * cfg.block[1] * cfg.block[2];
  if (nthreads > fn.max_threads) {
    const char* why = fn.max_threads < b.max_block[0] ? "__launch_bounds__" : "CUDA's limit";
    refused = "kernel '" + fn.symbol + "': block " + dims_text({cfg.block[0], cfg.block[1], cfg.block[2]}) + " has " +
              std::to_string(nthreads) + " threads, more than " + std::to_string(fn.max_threads) + " (" + why + ")";
    return false;
  }
  if (shared < 0) {
    refused = "shared_mem must be a non-negative int, got " + std::to_string(shared);
    return false;
  }
  if (shared > fn.max_dynamic_shared) {
    refused = "kernel '" + fn.symbol + "': shared_mem=" + std::to_string(shared) + " bytes exceeds the " +
              std::to_string(fn.max_dynamic_shared) + "-byte limit (CUDA allows 48 KiB unless " +
              "max_dynamic_shared_size_bytes is raised, at most " + std::to_string(b.max_shared - fn.static_shared) +
              " here)";
    return false;
  }
  int64_t nblocks = int64_t(cfg.grid[0]) * cfg.grid[1] * cfg.grid[2];
  cfg.shmem = static_cast<uint64_t>(shared);
  cfg.nworkers = static_cast<int32_t>(std::max<int64_t>(1, std::min<int64_t>({b.threads, nblocks, 256})));
  cfg.random_order = b.random_order ? 1 : 0;
  cfg.seed = b.random_order ? b.seed : 0;
  cfg.stack_size = b.stack_size;
  return true;
}

struct Builder {
  const Recording& rec;
  const CpuBinding& b;
  const PlanCall& plan;
  CpuBatch& out;
  size_t at = 0;
  int64_t lanes = 0;      // inside a lanes step's span: its count (a GEMM's product i, a launch's blocks at
                          // index i of its last grid dimension are lane i + 1 of their records), else 0
  uint32_t last_lane = 0;  // the lane of the last record put (a lane run must follow an ordinary record)

  int64_t take() { return at < rec.words.size() ? rec.words[at++] : throw std::string("a truncated step buffer"); }

  void put_record(uint64_t launch, uint64_t cfg, uint32_t nargs, uint64_t table_args, uint32_t lane = 0) {
    opgen_batch_record r{launch, cfg, nargs, lane, table_args};
    last_lane = lane;
    const unsigned char* p = reinterpret_cast<const unsigned char*>(&r);
    out.blob.insert(out.blob.end(), p, p + sizeof r);
  }

  void put_arg(uint64_t value) {  // one 16-byte argument slot
    unsigned char slot[16] = {};
    std::memcpy(slot, &value, sizeof value);
    out.blob.insert(out.blob.end(), slot, slot + 16);
  }

  // A launch step; false where the batch stops (a refusal or a fallback).
  bool launch() {
    int64_t symbol = take();
    std::vector<int64_t> grid(static_cast<size_t>(take())), block;
    for (int64_t& d : grid) d = take();
    block.resize(static_cast<size_t>(take()));
    for (int64_t& d : block) d = take();
    int64_t shared = take(), nargs = take();
    std::vector<std::pair<int64_t, int64_t>> args(static_cast<size_t>(nargs));
    for (auto& a : args) a = {take(), take()};
    if (std::find(grid.begin(), grid.end(), 0) != grid.end()) return true;  // an empty tensor: nothing runs
    if (symbol < 0 || symbol >= static_cast<int64_t>(b.kernels.size()) || symbol >= plan.nsymbols ||
        b.kernels[symbol].symbol != plan.symbols[symbol])
      return fail("the binding's symbol table is not the recorder's (bind the op again)");
    const CpuKernel& fn = b.kernels[symbol];
    uint64_t table_args = 0;
    size_t k = 0;  // the kernel's parameter
    auto param = [&](int kind, int size) {
      if (k >= fn.params.size()) return false;
      int pk = int(fn.params[k] >> 24), ps = int(fn.params[k] & 0xFFFFFF);
      bool ok = kind == kParamPointer ? pk == kParamPointer && ps == 8
                                      : (pk == kind || (kind == kParamSint && pk == kParamUint)) && ps == size;
      return ok;
    };
    std::vector<std::pair<int, std::array<unsigned char, 16>>> packed;  // (is a table index, slot)
    auto push = [&](bool table, const void* v, size_t n) {
      std::array<unsigned char, 16> s{};
      std::memcpy(s.data(), v, n);
      packed.push_back({table, s});
      ++k;
    };
    for (auto [tag, payload] : args) {
      double d;
      std::memcpy(&d, &payload, sizeof d);
      if ((tag == OPGEN_T_SLOT || tag == OPGEN_T_SLOTS) && (payload < 0 || payload >= plan.nslots))
        return fail("a launch argument names slot " + std::to_string(payload) + " of " + std::to_string(plan.nslots));
      if (tag == OPGEN_T_SLOT && param(kParamPointer, 8)) {
        uint64_t index = static_cast<uint64_t>(payload);
        push(true, &index, 8);
      } else if (tag == OPGEN_T_SLOTS && param(kParamPointer, 8)) {  // its pointers, then their count (int64)
        uint64_t index = static_cast<uint64_t>(plan.nslots + 2 * list_index(payload));
        push(true, &index, 8);
        if (!param(kParamSint, 8)) return fail_args(fn);
        ++index;
        push(true, &index, 8);
      } else if (tag == OPGEN_T_I32 && param(kParamSint, 4)) {
        int32_t v = static_cast<int32_t>(payload);
        push(false, &v, 4);
      } else if (tag == OPGEN_T_I64 && param(kParamSint, 8)) {
        push(false, &payload, 8);
      } else if (tag == OPGEN_T_F32 && param(kParamFloat, 4)) {
        float v = static_cast<float>(d);
        push(false, &v, 4);
      } else if (tag == OPGEN_T_F64 && param(kParamFloat, 8)) {
        push(false, &d, 8);
      } else {
        return fail_args(fn);
      }
    }
    if (k != fn.params.size() || k > OPGEN_BATCH_MAX_ARGS) return fail_args(fn);
    for (size_t j = 0; j < packed.size(); ++j) {
      if (!packed[j].first) continue;
      if (j >= 64) return fail("kernel '" + fn.symbol + "' takes a buffer beyond its 64th argument");
      table_args |= uint64_t(1) << j;
    }
    opgen_launch_cfg cfg;
    if (!checked_cfg(fn, b, grid, block, shared, cfg, out.refused)) return false;
    // In a lanes span, lane i + 1 runs the blocks at index i of the last grid dimension (consecutive in
    // the blocks' linear order); the runtime runs a lane's launch alone on its thread, and takes the
    // run's thread count from the records' nworkers (left as the launch's own).
    const int64_t nlanes = lanes > 1 && grid.back() == lanes ? lanes : 1;
    const uint64_t per_lane = uint64_t(cfg.grid[0]) * cfg.grid[1] * cfg.grid[2] / uint64_t(nlanes);
    for (int64_t lane = 0; lane < nlanes; ++lane) {
      out.cfgs.push_back(cfg);
      if (nlanes > 1) {
        out.cfgs.back().block_lo = per_lane * uint64_t(lane);
        out.cfgs.back().block_hi = per_lane * uint64_t(lane + 1);
      }
      put_record(fn.launch, reinterpret_cast<uint64_t>(&out.cfgs.back()), static_cast<uint32_t>(packed.size()),
                 table_args, nlanes > 1 ? static_cast<uint32_t>(lane + 1) : 0);
      for (auto& p : packed) out.blob.insert(out.blob.end(), p.second.begin(), p.second.end());
      out.names.push_back(fn.symbol);
      ++out.count;
    }
    return true;
  }

  // A lanes step: a span's start (count > 1) or end (0). A span right after another's records runs
  // as ordinary records: lanes run side by side only between ordinary records.
  bool lanes_step() {
    const int64_t count = take();
    if (count < 0) return fail("a lanes step of " + std::to_string(count) + " lanes");
    lanes = count > 1 && last_lane == 0 ? count : 0;
    return true;
  }

  int64_t list_index(int64_t slot) {
    for (size_t j = 0; j < out.lists.size(); ++j)
      if (out.lists[j] == slot) return static_cast<int64_t>(j);
    out.lists.push_back(slot);
    return static_cast<int64_t>(out.lists.size() - 1);
  }

  // A GEMM step (host/replay.py _gemm_record: a strided batch as a record per product); false where
  // the Python backend runs it from Python.
  bool gemm() {
    int64_t slot[3] = {take(), take(), take()};
    int64_t s[13];
    for (int64_t& v : s) {
      int64_t tag = take();
      v = take();
      if (tag == OPGEN_T_FLOAT) return fail("a GEMM step's size is a float");
    }
    const int64_t m = s[0], n = s[1], k = s[2], ta = s[3], tb = s[4], beta = s[5], batch = s[9];
    if (!b.sgemm || !b.dgemm)
      return fail(b.no_blas.empty() ? "no BLAS bound for the GEMM steps (NumPy's matmul runs them)" : b.no_blas);
    // the offsets of the batch's last product (the offsets move linearly: the first and the last bound them)
    const int64_t last[3] = {s[6] + (batch - 1) * s[10], s[7] + (batch - 1) * s[11], s[8] + (batch - 1) * s[12]};
    if (*std::min_element(s, s + 10) < 0 || *std::min_element(last, last + 3) < 0)
      return fail("a GEMM step with a negative size, batch or offset");
    for (int j = 0; j < 3; ++j)
      if (slot[j] < 0 || slot[j] >= plan.nslots || plan.slots[slot[j]].count >= 0)
        return fail("a GEMM step on a slot that is no buffer");
    int32_t dtype = plan.slots[slot[2]].dtype;
    if ((dtype != OPGEN_DT_FLOAT32 && dtype != OPGEN_DT_FLOAT64) || plan.slots[slot[0]].dtype != dtype ||
        plan.slots[slot[1]].dtype != dtype)
      return fail("a GEMM step on buffers of opgen_dtype " + std::to_string(plan.slots[slot[0]].dtype) + ", " +
                  std::to_string(plan.slots[slot[1]].dtype) + " and " + std::to_string(dtype) +
                  ", which the BLAS does not take (NumPy's matmul runs it)");
    if (m == 0 || n == 0 || batch == 0) return true;
    const int64_t sizes[3] = {m * k, n * k, m * n};  // host/blas.py extents
    for (int j = 0; j < 3; ++j) add_need(slot[j], std::max(s[6 + j], last[j]) + sizes[j], dtype);
    const int32_t kind = dtype == OPGEN_DT_FLOAT64 ? 1 : 0;
    const bool by_lane = lanes > 1 && batch == lanes;  // (in a lanes span, product i is lane i + 1)
    for (int64_t i = 0; i < batch; ++i) {
      out.gemms.push_back(opgen_gemm_desc{kind ? b.dgemm : b.sgemm, kind, b.blas_int64 ? 1 : 0, m, n, k,
                                          int32_t(ta != 0), int32_t(tb != 0), int32_t(beta != 0), 0,
                                          s[6] + i * s[10], s[7] + i * s[11], s[8] + i * s[12]});
      put_record(b.gemm, reinterpret_cast<uint64_t>(&out.gemms.back()), 3, 0b111,
                 by_lane ? static_cast<uint32_t>(i + 1) : 0);
      for (int64_t v : slot) put_arg(static_cast<uint64_t>(v));
      out.names.push_back("gemm");
      ++out.count;
    }
    return true;
  }

  void add_need(int64_t slot, int64_t elements, int32_t dtype) {
    for (GemmNeed& need : out.needs)
      if (need.slot == slot) {
        need.elements = std::max(need.elements, elements);
        return;
      }
    out.needs.push_back(GemmNeed{slot, elements, dtype});
  }

  bool fail(const std::string& why) {
    out.fallback = plan.op + std::string(": ") + why;
    return false;
  }

  bool fail_args(const CpuKernel& fn) {  // the checked path names what is wrong (HostArgumentError)
    return fail("kernel '" + fn.symbol + "': the recorded arguments do not match its parameters");
  }
};

}  // namespace cpu_batch

// The batch of `rec` for binding `b` (its `refused` or `fallback` set where the Python backend
// would stop or go another way).
inline std::shared_ptr<const CpuBatch> build_batch(const Recording& rec, const CpuBinding& b, const PlanCall& plan) {
  auto out = std::make_shared<CpuBatch>();
  out->nslots = plan.nslots;
  cpu_batch::Builder builder{rec, b, plan, *out};
  try {
    while (builder.at < rec.words.size()) {
      int64_t kind = builder.take();
      bool go = kind == OPGEN_STEP_LAUNCH  ? builder.launch()
                : kind == OPGEN_STEP_GEMM  ? builder.gemm()
                : kind == OPGEN_STEP_LANES ? builder.lanes_step()
                                           : builder.fail("an unknown step kind " + std::to_string(kind));
      if (!go) break;
    }
  } catch (const std::string& why) {
    builder.fail(why);
  }
  return out;
}

}  // namespace opgen_native

#endif  // OPGEN_CPU_BATCH_H
