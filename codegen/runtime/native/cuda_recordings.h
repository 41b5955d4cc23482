// The cuda runner's recordings of one binding (an op on one device), kept per set of plan values as
// Plan.recording keeps Python's: the last 64, least recently used dropped, thread-safe; each holds the
// CUDA graphs made of it. (The cpu runner keeps its recordings per op in recordings.h; the two are to
// become one.) A recording is the recorder's step buffer (plan_abi.h).
#ifndef OPGEN_CUDA_RECORDINGS_H
#define OPGEN_CUDA_RECORDINGS_H

#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "plan_abi.h"

namespace opgen_native {

struct Recorded {
  std::vector<int64_t> words;
  int64_t variant;
  // A runtime's own state of this recording (the cuda runtime's graphs), made on first use.
  mutable std::mutex native_mu;
  mutable std::shared_ptr<void> native;
};

// The values as bytes: each value's kind, then a float's bits (-0.0 as 0.0, equal in Python's dict
// too), a list's or an activation's items, else its int.
inline void value_key(std::string& key, const opgen_plan_value& v) {
  key.append(reinterpret_cast<const char*>(&v.kind), sizeof v.kind);
  double f = v.f == 0.0 ? 0.0 : v.f;
  switch (v.kind) {
    case OPGEN_V_FLOAT: key.append(reinterpret_cast<const char*>(&f), sizeof f); break;
    case OPGEN_V_LIST:
    case OPGEN_V_ACT:
      key.append(reinterpret_cast<const char*>(&v.i), sizeof v.i);
      key.append(reinterpret_cast<const char*>(&v.len), sizeof v.len);
      for (int64_t k = 0; k < v.len; ++k) value_key(key, v.items[k]);
      break;
    default: key.append(reinterpret_cast<const char*>(&v.i), sizeof v.i);
  }
}

class BindingRecordings {
 public:
  static constexpr size_t kKeep = 64;

  // The recording for these values (nullptr: none yet).
  std::shared_ptr<const Recorded> find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);  // most recently used first
    return it->second->second;
  }

  void keep(const std::string& key, std::shared_ptr<const Recorded> recorded) {
    std::lock_guard<std::mutex> lock(mu_);
    if (index_.count(key)) return;  // another thread recorded the same values meanwhile
    order_.emplace_front(key, std::move(recorded));
    index_[key] = order_.begin();
    if (order_.size() > kKeep) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
  }

  size_t size() {
    std::lock_guard<std::mutex> lock(mu_);
    return order_.size();
  }

 private:
  using Entry = std::pair<std::string, std::shared_ptr<const Recorded>>;
  std::mutex mu_;
  std::list<Entry> order_;
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

}  // namespace opgen_native

#endif  // OPGEN_CUDA_RECORDINGS_H
