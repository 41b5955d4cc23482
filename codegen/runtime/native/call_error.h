// A call's refusal: its result (driver.h's opgen_result) with the call's message set. Every refusal
// of the native cuda runtime goes through here.
#ifndef OPGEN_CALL_ERROR_H
#define OPGEN_CALL_ERROR_H

#include <cstdio>
#include <string>

#include "driver.h"

namespace opgen_native {

inline int fail_call(opgen_call* call, int code, const std::string& message) {
  snprintf(call->err, sizeof call->err, "%s", message.c_str());
  return code;
}

}  // namespace opgen_native

#endif  // OPGEN_CALL_ERROR_H
