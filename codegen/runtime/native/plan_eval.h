// The native plan recorder's runtime: Python's integer semantics (floor division and modulo,
// ceildiv, min/max, mixed int/float comparison) with int64 overflow refused instead of undefined.
// codegen/drivergen.py inlines this text at the top of every translation unit it prints (after
// plan_abi.h, likewise inlined: an edit to either changes the cache key) and then one function per
// op. Guarded, and its success code named OPGEN_PLAN_OK, so that a driver's translation unit may
// also include the plan's runtime (run_plan.h, whose driver.h names the driver's own OPGEN_OK).
#ifndef OPGEN_PLAN_EVAL_H
#define OPGEN_PLAN_EVAL_H
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#define OPGEN_PLAN_API extern "C" __attribute__((visibility("default")))

#include "plan_abi.h"  // the descriptor, the step buffer, the codes (inlined before this text in a unit)

enum { OPGEN_PLAN_OK = 0 };

namespace opgen_plan {

struct Error {
  int code;
  std::string message;
};

[[noreturn]] inline void fail(int code, const std::string& message) { throw Error{code, message}; }

// A number as Python holds it: an int (int64 here; beyond it is refused) or a float.
struct Num {
  bool is_float;
  int64_t i;
  double f;
  double real() const { return is_float ? f : (double)i; }
};

inline Num integer(int64_t v) { return Num{false, v, 0.0}; }
inline Num real(double v) { return Num{true, 0, v}; }

// A number bound by the plan itself (a repeat's variable, a let) as a descriptor.
inline opgen_plan_value value(const Num& n) {
  return opgen_plan_value{n.is_float ? OPGEN_V_FLOAT : OPGEN_V_INT, 0, n.i, n.f, nullptr, 0};
}

inline std::string show(const Num& a) {
  char buf[64];
  if (a.is_float) snprintf(buf, sizeof buf, "%.17g", a.f);
  else snprintf(buf, sizeof buf, "%lld", (long long)a.i);
  return buf;
}

inline Num num(const opgen_plan_value& v, const char* name) {
  if (v.kind == OPGEN_V_INT) return integer(v.i);
  if (v.kind == OPGEN_V_FLOAT) return real(v.f);
  fail(OPGEN_E_TYPE, std::string("name '") + name + "' is not a number (kind " + std::to_string(v.kind) + ")");
}

inline const opgen_plan_value& item(const opgen_plan_value& v, const Num& index, const char* name) {
  if (v.kind != OPGEN_V_LIST) fail(OPGEN_E_TYPE, std::string("name '") + name + "' is not a list");
  if (index.is_float) fail(OPGEN_E_TYPE, std::string("list '") + name + "' indexed by a float");
  int64_t k = index.i < 0 ? index.i + v.len : index.i;  // Python's negative indices
  if (k < 0 || k >= v.len)
    fail(OPGEN_E_VALUES, std::string("index ") + show(index) + " out of range for list '" + name + "' of length " +
         std::to_string(v.len));
  return v.items[k];
}

[[noreturn]] inline void overflow(const char* op, const Num& a, const Num& b) {
  fail(OPGEN_E_OVERFLOW, "int64 overflow in " + show(a) + " " + op + " " + show(b));
}

inline Num add(const Num& a, const Num& b) {
  if (a.is_float || b.is_float) return real(a.real() + b.real());
  int64_t r;
  if (__builtin_add_overflow(a.i, b.i, &r)) overflow("+", a, b);
  return integer(r);
}

inline Num sub(const Num& a, const Num& b) {
  if (a.is_float || b.is_float) return real(a.real() - b.real());
  int64_t r;
  if (__builtin_sub_overflow(a.i, b.i, &r)) overflow("-", a, b);
  return integer(r);
}

inline Num mul(const Num& a, const Num& b) {
  if (a.is_float || b.is_float) return real(a.real() * b.real());
  int64_t r;
  if (__builtin_mul_overflow(a.i, b.i, &r)) overflow("*", a, b);
  return integer(r);
}

inline Num neg(const Num& a) {
  if (a.is_float) return real(-a.f);
  if (a.i == INT64_MIN) fail(OPGEN_E_OVERFLOW, "int64 overflow in -(" + show(a) + ")");
  return integer(-a.i);
}

// Python's float floor division and modulo (CPython's float_floor_div / float_rem).
inline void float_divmod(double vx, double wx, double* floordiv, double* mod) {
  double m = std::fmod(vx, wx);
  double div = (vx - m) / wx;
  if (m != 0.0) {
    if ((wx < 0) != (m < 0)) { m += wx; div -= 1.0; }
  } else {
    m = std::copysign(0.0, wx);
  }
  double fl;
  if (div != 0.0) {
    fl = std::floor(div);
    if (div - fl > 0.5) fl += 1.0;
  } else {
    fl = std::copysign(0.0, vx / wx);
  }
  *floordiv = fl;
  *mod = m;
}

inline void nonzero(const char* op, const Num& a, const Num& b) {
  if (b.real() == 0.0) fail(OPGEN_E_ZERO, "division by zero in " + show(a) + " " + op + " " + show(b));
}

inline Num floordiv(const Num& a, const Num& b) {
  nonzero("//", a, b);
  if (a.is_float || b.is_float) {
    double q, m;
    float_divmod(a.real(), b.real(), &q, &m);
    return real(q);
  }
  if (a.i == INT64_MIN && b.i == -1) overflow("//", a, b);
  int64_t q = a.i / b.i;
  if ((a.i % b.i != 0) && ((a.i < 0) != (b.i < 0))) q -= 1;  // C truncates, Python floors
  return integer(q);
}

inline Num mod(const Num& a, const Num& b) {
  nonzero("%", a, b);
  if (a.is_float || b.is_float) {
    double q, m;
    float_divmod(a.real(), b.real(), &q, &m);
    return real(m);
  }
  if (b.i == -1) return integer(0);  // INT64_MIN % -1 is undefined in C, 0 in Python
  int64_t r = a.i % b.i;
  if (r != 0 && ((r < 0) != (b.i < 0))) r += b.i;
  return integer(r);
}

// -(-a // b), as plan.py; on ints without the negations, which overflow where the result does not.
inline Num ceildiv(const Num& a, const Num& b) {
  if (a.is_float || b.is_float) return neg(floordiv(neg(a), b));
  nonzero("ceildiv", a, b);
  if (a.i == INT64_MIN && b.i == -1) overflow("ceildiv", a, b);
  int64_t q = a.i / b.i;
  if ((a.i % b.i != 0) && ((a.i < 0) == (b.i < 0))) q += 1;  // C truncates, ceildiv rounds up
  return integer(q);
}

// Mixed int/float comparison as Python's (exact for ints; a float compared through double).
inline int compare(const Num& a, const Num& b) {
  if (!a.is_float && !b.is_float) return (a.i > b.i) - (a.i < b.i);
  double x = a.real(), y = b.real();
  return (x > y) - (x < y);
}

inline bool equal(const Num& a, const Num& b) {
  if (!a.is_float && !b.is_float) return a.i == b.i;
  return a.real() == b.real();  // (a NaN equals nothing)
}

inline Num min2(const Num& a, const Num& b) { return (b.real() == b.real() && compare(b, a) < 0) ? b : a; }
inline Num max2(const Num& a, const Num& b) { return (b.real() == b.real() && compare(b, a) > 0) ? b : a; }

inline bool truth(const Num& a) { return a.is_float ? a.f != 0.0 : a.i != 0; }

inline int64_t whole(const Num& a, const char* what) {
  if (a.is_float) fail(OPGEN_E_TYPE, std::string(what) + " is a float (" + show(a) + "), expected an int");
  return a.i;
}

// The flat step buffer the caller provides.
struct Out {
  int64_t* words;
  int64_t capacity;
  int64_t used;
  void put(int64_t w) {
    if (used >= capacity)
      fail(OPGEN_E_BUFFER, "the step buffer of " + std::to_string(capacity) + " words is too small");
    words[used++] = w;
  }
  void put_double(int tag, double d) {
    int64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    put(tag);
    put(bits);
  }
};

// A scalar kernel argument through its NumPy constructor (np.int64, np.int32, np.float32, np.float64).
inline void scalar(Out& out, int tag, const Num& v, const char* name) {
  if (tag == OPGEN_T_F64) return out.put_double(tag, v.real());
  if (tag == OPGEN_T_F32) return out.put_double(tag, (double)(float)v.real());
  int64_t x = v.i;
  if (v.is_float) {  // NumPy truncates a float toward zero
    if (!(v.f > -9223372036854775808.0 && v.f < 9223372036854775808.0))
      fail(OPGEN_E_OVERFLOW, std::string("scalar '") + name + "' = " + show(v) + " does not fit an int64");
    x = (int64_t)v.f;
  }
  if (tag == OPGEN_T_I32 && (x < INT32_MIN || x > INT32_MAX))
    fail(OPGEN_E_OVERFLOW, std::string("scalar '") + name + "' = " + show(integer(x)) + " does not fit an int32");
  out.put(tag);
  out.put(x);
}

// The plan's result or its error, as the C interface returns them.
inline int report(const Error& e, char* err, int64_t errlen) {
  if (err != nullptr && errlen > 0) snprintf(err, (size_t)errlen, "%s", e.message.c_str());
  return e.code;
}

}  // namespace opgen_plan

// The ABI this library was built with (0) and the descriptor's size (1), for the loader's check;
// not in the plan runner's object (native_cpu.py's runner_object), which the recorders' unit links.
#ifndef OPGEN_PLAN_NO_ABI_ENTRY
OPGEN_PLAN_API int64_t opgen_plan_abi(int what) {
  return what == 0 ? OPGEN_PLAN_ABI : (int64_t)sizeof(opgen_plan_value);
}
#endif

#endif  // OPGEN_PLAN_EVAL_H
