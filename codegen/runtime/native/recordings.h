// The recordings of a plan, kept as plan.py's Plan.recording keeps Python's: the op's recorder
// (PlanCall::record) runs once per distinct set of values and backend, its step buffer is kept
// (per op the last kMaxRecordings, least recently used dropped) and replayed. Thread-safe. Each
// device's runner hangs its own form of a recording (the cpu's batch) on it, built on first use.
#ifndef OPGEN_RECORDINGS_H
#define OPGEN_RECORDINGS_H

#include <algorithm>
#include <atomic>
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "plan_eval.h"
#include "run_plan.h"

namespace opgen_native {

constexpr size_t kMaxRecordings = 64;  // plan.py's MAX_RECORDINGS

struct Recording {
  std::vector<int64_t> words;  // the step buffer (plan_eval.h states its layout)
  int64_t variant = -1;
  // A runner's own form of it, and what that was built for (a binding, held so that its address is
  // never another's): set under `mu`.
  mutable std::mutex mu;
  mutable std::shared_ptr<const void> native;
  mutable std::shared_ptr<const void> native_for;
};

struct RecordingStats {
  int64_t recorded, replayed, kept;
};

// The key of a set of values: their words, depth first: a number or a string (its table index) as
// its kind and its value's bits, a list or an activation as its kind, id and length, then its
// items (the kind says which). key_words counts them, put_key writes them (one resize of the key a
// call, not an append per word).
inline bool nested(const opgen_plan_value& v) { return v.kind == OPGEN_V_LIST || v.kind == OPGEN_V_ACT; }

inline size_t key_words(const opgen_plan_value& v) {
  size_t n = nested(v) ? 3 : 2;
  if (nested(v))
    for (int64_t k = 0; k < v.len; ++k) n += key_words(v.items[k]);
  return n;
}

// A number or a string, the usual value (a driver hands ~20 a call): its two words, inline (the
// recursive forms below are calls).
inline __attribute__((always_inline)) char* put_flat_key(const opgen_plan_value& v, char* out) {
  int64_t head[2] = {v.kind, v.i};
  if (v.kind == OPGEN_V_FLOAT) std::memcpy(&head[1], &v.f, sizeof v.f);
  std::memcpy(out, head, sizeof head);
  return out + sizeof head;
}

inline char* put_key(const opgen_plan_value& v, char* out) {
  int64_t head[3] = {v.kind, v.i, v.len};
  if (v.kind == OPGEN_V_FLOAT) std::memcpy(&head[1], &v.f, sizeof v.f);
  if (!nested(v)) {
    std::memcpy(out, head, 2 * sizeof(int64_t));  // (fixed sizes: stores, not a call)
    return out + 2 * sizeof(int64_t);
  }
  std::memcpy(out, head, sizeof head);
  out += sizeof head;
  for (int64_t k = 0; k < v.len; ++k) out = put_key(v.items[k], out);
  return out;
}

class Recordings {
 public:
  // The recording of `plan`'s values on the plan named `backend`: kept, or recorded now and kept.
  // nullptr where the recorder refuses them (`err` says why: the Python plan then raises its own).
  std::shared_ptr<const Recording> get(const PlanCall& plan, const char* backend, std::string& err) {
    thread_local Last last;
    // This thread's last recording, while it is still its op's most recently used (no look-up of
    // the op since: the stamp says) and these are its values: no key made, no lock, no look-up
    // (Softmax's ~610 instructions a call were ~2/3 lock, look-up and key). Exactly one thread's last
    // can be current.
    if (last.op != nullptr && last.owner == this && last.record == plan.record &&
        last.stamp == last.op->stamp.load(std::memory_order_acquire) && last.same(plan, backend)) {
      last.op->replayed.fetch_add(1, std::memory_order_relaxed);
      return last.rec;
    }
    std::string& key = last.spare;  // (this thread's, reused: its heap block taken once, not per call)
    size_t named = std::strlen(backend) + 1, words = 0;
    for (int64_t k = 0; k < plan.nvalues; ++k) words += nested(plan.values[k]) ? key_words(plan.values[k]) : 2;
    key.resize(named + 8 * words);
    char* out = &key[0];
    std::memcpy(out, backend, named);  // (its NUL included)
    out += named;
    for (int64_t k = 0; k < plan.nvalues; ++k)
      out = nested(plan.values[k]) ? put_key(plan.values[k], out) : put_flat_key(plan.values[k], out);
    {
      std::lock_guard<std::mutex> hold(mu_);
      PerOp& op = ops_[plan.record];
      auto found = op.index.find(key);
      if (found != op.index.end()) {
        op.order.splice(op.order.end(), op.order, found->second);  // now the most recently used
        op.replayed.fetch_add(1, std::memory_order_relaxed);
        last.remember(this, plan, op, found->second->second);
        return last.rec;
      }
    }
    std::shared_ptr<Recording> made = record(plan, backend, err);  // (outside the lock: it may take a while)
    if (!made) return nullptr;
    std::lock_guard<std::mutex> hold(mu_);
    PerOp& op = ops_[plan.record];
    auto found = op.index.find(key);
    if (found != op.index.end()) return found->second->second;  // another thread kept one meanwhile
    op.order.emplace_back(key, made);
    op.index[key] = std::prev(op.order.end());
    ++op.recorded;
    if (op.order.size() > kMaxRecordings) {
      op.index.erase(op.order.front().first);
      op.order.pop_front();
    }
    last.remember(this, plan, op, made);
    return made;
  }

  RecordingStats stats(opgen_plan_recorder record) {
    std::lock_guard<std::mutex> hold(mu_);
    const PerOp& op = ops_[record];
    return RecordingStats{op.recorded, op.replayed.load(std::memory_order_relaxed),
                          static_cast<int64_t>(op.order.size())};
  }

 private:
  struct PerOp {
    std::list<std::pair<std::string, std::shared_ptr<const Recording>>> order;  // least recently used first
    std::unordered_map<std::string, decltype(order)::iterator> index;
    int64_t recorded = 0;
    std::atomic<int64_t> replayed{0};  // (a thread's last recording replayed counts without the lock)
    std::atomic<uint64_t> stamp{0};    // bumped (under mu_) by every change of `order` (Last::remember)
  };

  // A thread's last recording: its key (made in `spare`, swapped in), its values where all are
  // numbers and strings (else none: a list's items are not compared), and its op's stamp then.
  struct Last {
    const Recordings* owner = nullptr;
    opgen_plan_recorder record = nullptr;
    PerOp* op = nullptr;  // (an unordered_map's nodes stay where they are)
    uint64_t stamp = 0;
    std::string key, spare;
    std::vector<opgen_plan_value> values;
    bool flat = false;
    std::shared_ptr<const Recording> rec;

    // Under mu_, with `made` now `p`'s most recently used.
    void remember(const Recordings* o, const PlanCall& plan, PerOp& p, std::shared_ptr<const Recording> made) {
      owner = o;
      record = plan.record;
      op = &p;
      stamp = p.stamp.fetch_add(1, std::memory_order_release) + 1;
      key.swap(spare);
      values.assign(plan.values, plan.values + plan.nvalues);
      flat = std::none_of(values.begin(), values.end(), nested);
      rec = std::move(made);
    }

    // Whether `plan`'s values on `backend` are these, by their bytes: equal bytes are equal key
    // words (kind, and the int or the float's bits); bytes that differ elsewhere only miss.
    bool same(const PlanCall& plan, const char* backend) const {
      const size_t n = static_cast<size_t>(plan.nvalues);
      return flat && values.size() == n && std::memcmp(values.data(), plan.values, n * sizeof(opgen_plan_value)) == 0 &&
             std::strcmp(key.c_str(), backend) == 0;  // (the key starts with its backend's name and NUL)
    }
  };

  // The recorder run into a step buffer that grows until the steps fit (as native_plan.py's record).
  static std::shared_ptr<Recording> record(const PlanCall& plan, const char* backend, std::string& err) {
    auto made = std::make_shared<Recording>();
    char message[512] = "";
    for (int64_t capacity = 1 << 12;; capacity *= 4) {
      made->words.resize(static_cast<size_t>(capacity));
      int64_t used = 0;
      int code = plan.record(plan.values, plan.nvalues, backend, made->words.data(), capacity, &used, &made->variant,
                             message, sizeof message);
      if (code == OPGEN_PLAN_OK) {
        made->words.resize(static_cast<size_t>(used));
        return made;
      }
      if (code != OPGEN_E_BUFFER || capacity >= (int64_t(1) << 26)) {
        err = message;
        return nullptr;
      }
    }
  }

  std::mutex mu_;
  std::unordered_map<opgen_plan_recorder, PerOp> ops_;
};

// The process's recordings (every op's, keyed by its recorder).
inline Recordings& recordings() {
  static Recordings kept;
  return kept;
}

}  // namespace opgen_native

#endif  // OPGEN_RECORDINGS_H
