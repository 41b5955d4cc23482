// A driver call's attrs (driver.h's opgen_value) as a C++ front-end builds them: the PyTorch one
// (torch_stable.h) and the JAX one (jax_ffi.h).
#ifndef OPGEN_CALL_VALUES_H
#define OPGEN_CALL_VALUES_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "driver.h"

namespace opgen_front {

// At most N items in place (a driver call's inputs or attrs: no heap per call); add() false when full.
template <typename T, size_t N>
class Slots {
 public:
  bool add(const T& item) {
    if (size_ == N) return false;
    items_[size_++] = item;
    return true;
  }
  const T* data() const { return items_; }
  size_t size() const { return size_; }
  const T& operator[](size_t k) const { return items_[k]; }

 private:
  T items_[N];
  size_t size_ = 0;
};

// `call` zeroed for a caller that allocates its outputs: everything but the output arrays (2.8 KiB the
// driver writes, each output's before it reads it, when not preallocated: checks.h's output()) and the
// message buffer past its first byte: 81 bytes set, where the struct up to `err` is 2.9 KiB.
inline void clear_call(opgen_call& call) {
  std::memset(&call, 0, offsetof(opgen_call, outputs));
  std::memset(&call.noutputs, 0, offsetof(opgen_call, err) + 1 - offsetof(opgen_call, noutputs));
}

inline opgen_value value(int32_t kind, int64_t i) {
  opgen_value v{};
  v.kind = kind;
  v.i = i;
  return v;
}

// A list of `items`, which must outlive the call (a front-end keeps them in a std::list).
inline opgen_value list_value(const std::vector<opgen_value>& items) {
  opgen_value v = value(OPGEN_VAL_LIST, 0);
  v.items = items.data();
  v.len = static_cast<int64_t>(items.size());
  return v;
}

}  // namespace opgen_front

#endif  // OPGEN_CALL_VALUES_H
