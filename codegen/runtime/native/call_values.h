// A driver call's attrs (driver.h's opgen_value) as a C++ front-end builds them: the PyTorch one
// (torch_stable.h) and the JAX one (jax_ffi.h).
#ifndef OPGEN_CALL_VALUES_H
#define OPGEN_CALL_VALUES_H

#include <cstdint>
#include <vector>

#include "driver.h"

namespace opgen_front {

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
