// The native plan recorder's ABI: the value descriptor, the step buffer and the error codes, what a
// recorder (plan_eval.h, inlined by codegen/drivergen.py) and the runtime that runs its steps
// (run_plan_cuda.cpp) both read. A recorder's success is 0 (driver.h's OPGEN_OK, not named here so
// that both headers can be included together). codegen/runtime/native_plan.py mirrors it with ctypes.
#ifndef OPGEN_PLAN_ABI_H
#define OPGEN_PLAN_ABI_H

#include <stdint.h>

// Bump with any change to the structs, kinds, tags or codes below (the loader refuses a mismatch).
#define OPGEN_PLAN_ABI 2  // 2: the lanes step

enum { OPGEN_V_INT = 0, OPGEN_V_FLOAT = 1, OPGEN_V_STR = 2, OPGEN_V_LIST = 3, OPGEN_V_ACT = 4 };

// One value of a name the plan reads. INT: i (bools are 0/1); FLOAT: f; STR: i is the string's index
// in the op's string table (-1: a string the table lacks, equal to none of the plan's constants);
// LIST: items[0..len); ACT: an activation, i its id and items its parameters (FLOAT).
typedef struct opgen_plan_value {
  int32_t kind;
  int32_t reserved;
  int64_t i;
  double f;
  const struct opgen_plan_value* items;
  int64_t len;
} opgen_plan_value;

// The step buffer (int64 words). A launch: 1, symbol, ngrid, grid..., nblock, block..., shared,
// nargs, then (tag, payload) per argument; a gemm: 2, a, b, out, then (tag, payload) per size (13:
// m, n, k, trans_a, trans_b, beta, the a, b and out offsets, the batch and the a, b and out strides).
// A float payload is the bits of a double (a float32's value widened exactly). Lanes: 3, count: the
// steps up to the next lanes step (count 0) split into `count` independent lanes (plan.py's Lanes;
// recorded for the cpu backend only).
enum { OPGEN_STEP_LAUNCH = 1, OPGEN_STEP_GEMM = 2, OPGEN_STEP_LANES = 3 };
enum { OPGEN_T_SLOT = 0, OPGEN_T_SLOTS = 1, OPGEN_T_I32 = 2, OPGEN_T_I64 = 3, OPGEN_T_F32 = 4, OPGEN_T_F64 = 5,
       OPGEN_T_BOOL = 6, OPGEN_T_INT = 7, OPGEN_T_FLOAT = 8 };
enum { OPGEN_E_VALUES = 1, OPGEN_E_BUFFER = 2, OPGEN_E_OVERFLOW = 3, OPGEN_E_ZERO = 4,
       OPGEN_E_SYMBOL = 5, OPGEN_E_TYPE = 6, OPGEN_E_INTERNAL = 7 };

#ifdef __cplusplus
// The number of words of the step at p (a launch's, from its counts; a GEMM's, 4 + 2 * 13; lanes', 2).
inline int64_t opgen_step_words(const int64_t* p) {
  if (p[0] == OPGEN_STEP_LANES) return 2;
  if (p[0] != OPGEN_STEP_LAUNCH) return 4 + 2 * 13;
  int64_t ngrid = p[2], nblock = p[3 + ngrid], nargs = p[5 + ngrid + nblock];
  return 6 + ngrid + nblock + 2 * nargs;
}
#endif

#endif  // OPGEN_PLAN_ABI_H
