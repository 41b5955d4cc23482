// The checks' runtime of a generated driver (codegen/drivergen_checks.py prints, per op, C++ that
// runs the statements of its Python wrapper's `_compute`, up to the plan's call, over these). A value
// `V` is what a wrapper local holds there: None, a bool, an int (int64; beyond it the call falls back
// to Python, whose ints are unbounded), a float, a string, a tuple of dims, a tensor, a list of
// tensors, an activation or a list attr. Every error is the wrapper's: the same kind (driver.h's
// OPGEN_ERR_*) and the same words as codegen/runtime/checks.py formats them, Python's repr included.
// Inlined after driver.h, plan_eval.h and run_plan.h (drivergen_checks.unit_prelude).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <list>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opgen_checks {

// A check that failed: the call's result and its message (caught at the driver's C boundary).
struct Raise {
  int code;
  std::string message;
};

[[noreturn]] inline void raise(int code, const std::string& message) { throw Raise{code, message}; }

enum Kind { K_NONE, K_BOOL, K_INT, K_FLOAT, K_STR, K_DIMS, K_TENSOR, K_TLIST, K_ACT, K_VLIST };

struct V {  // (32 bytes: the driver copies these around a lot)
  int32_t kind = K_NONE;
  int32_t reserved = 0;
  union {
    int64_t i = 0;                       // BOOL, INT; the length of STR, DIMS, TLIST, VLIST
    double f;                            // FLOAT
  };
  union {
    const void* p = nullptr;
    const char* s;                       // STR (not NUL-terminated)
    const int64_t* dims;                 // DIMS
    const opgen_tensor* t;               // TENSOR; TLIST: its items
    const opgen_value* value;            // ACT: the caller's value; VLIST: its items
  };
  int64_t repeat = 0;                    // ACT: 0, one; n > 0, a list of n copies (check_list's)
};

inline V none() { return V{}; }
inline V boolean(bool b) { V v; v.kind = K_BOOL; v.i = b; return v; }
inline V integer(int64_t i) { V v; v.kind = K_INT; v.i = i; return v; }
inline V real(double f) { V v; v.kind = K_FLOAT; v.f = f; return v; }
inline V text(const char* s, int64_t len) { V v; v.kind = K_STR; v.s = s; v.i = len; return v; }
inline V lit(const char* s) { return text(s, (int64_t)std::strlen(s)); }
inline V dims(const int64_t* d, int64_t n) { V v; v.kind = K_DIMS; v.dims = d; v.i = n; return v; }
inline V tensor(const opgen_tensor* t) { V v; v.kind = K_TENSOR; v.t = t; return v; }

inline std::string str_text(const V& v) { return std::string(v.s, (size_t)v.i); }
inline bool is_number(const V& v) { return v.kind == K_BOOL || v.kind == K_INT || v.kind == K_FLOAT; }

// The Python path is needed: a value or an operation outside what the driver models.
[[noreturn]] inline void fallback(const std::string& why) { raise(OPGEN_ERR_FALLBACK, why); }

// ---- Python's repr and str of the values a message shows

// repr(float): the shortest digits that read back the same, in Python's layout (1e-05, 0.1, 1.0, 1e+16).
inline std::string float_repr(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  if (x == 0.0) return std::signbit(x) ? "-0.0" : "0.0";
  char buf[64];
  for (int p = 1; p <= 17; ++p) {
    snprintf(buf, sizeof buf, "%.*e", p - 1, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  // buf: [-]d[.ddd]e[+-]XX: rebuild it as Python's float_repr_style 'short' does
  std::string s(buf);
  bool negative = s[0] == '-';
  if (negative) s.erase(0, 1);
  size_t e = s.find('e');
  int exponent = std::atoi(s.c_str() + e + 1);
  std::string digits;
  for (size_t k = 0; k < e; ++k)
    if (s[k] != '.') digits += s[k];
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out;
  if (exponent >= -4 && exponent < 16) {  // fixed notation
    if (exponent < 0) {
      out = "0." + std::string((size_t)(-exponent - 1), '0') + digits;
    } else if ((int)digits.size() <= exponent + 1) {
      out = digits + std::string((size_t)(exponent + 1 - (int)digits.size()), '0') + ".0";
    } else {
      out = digits.substr(0, (size_t)exponent + 1) + "." + digits.substr((size_t)exponent + 1);
    }
  } else {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char ebuf[16];
    snprintf(ebuf, sizeof ebuf, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    out += ebuf;
  }
  return negative ? "-" + out : out;
}

// repr(str): single quotes unless the text has one and no double quote; escapes as Python's.
inline std::string str_repr(const char* s, int64_t len) {
  bool single = false, dbl = false;
  for (int64_t k = 0; k < len; ++k) {
    single = single || s[k] == '\'';
    dbl = dbl || s[k] == '"';
  }
  char quote = (single && !dbl) ? '"' : '\'';
  std::string out(1, quote);
  for (int64_t k = 0; k < len; ++k) {
    unsigned char c = (unsigned char)s[k];
    if (c == (unsigned char)quote || c == '\\') { out += '\\'; out += (char)c; }
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) { char b[8]; snprintf(b, sizeof b, "\\x%02x", c); out += b; }
    else out += (char)c;  // (UTF-8 passes through; Python escapes non-printable code points, rare in attrs)
  }
  return out + quote;
}

std::string repr(const V& v);

inline std::string value_repr(const opgen_value& v) {
  switch (v.kind) {
    case OPGEN_VAL_INT: return std::to_string(v.i);
    case OPGEN_VAL_FLOAT: return float_repr(v.f);
    case OPGEN_VAL_STR: return str_repr(v.text, v.len);
    case OPGEN_VAL_BOOL: return v.i ? "True" : "False";
    case OPGEN_VAL_NONE: return "None";
    case OPGEN_VAL_LIST: {
      std::string out = "[";
      for (int64_t k = 0; k < v.len; ++k) out += (k ? ", " : "") + value_repr(v.items[k]);
      return out + "]";
    }
    default: fallback("an activation's repr is the Python path's");
  }
}

inline std::string repr(const V& v) {
  switch (v.kind) {
    case K_NONE: return "None";
    case K_BOOL: return v.i ? "True" : "False";
    case K_INT: return std::to_string(v.i);
    case K_FLOAT: return float_repr(v.f);
    case K_STR: return str_repr(v.s, v.i);
    case K_DIMS: {
      std::string out = "(";
      for (int64_t k = 0; k < v.i; ++k) out += (k ? ", " : "") + std::to_string(v.dims[k]);
      return out + (v.i == 1 ? ",)" : ")");
    }
    case K_VLIST: {
      std::string out = "[";
      for (int64_t k = 0; k < v.i; ++k) out += (k ? ", " : "") + value_repr(v.value[k]);
      return out + "]";
    }
    default: fallback("this value's repr is the Python path's");
  }
}

// str(): as repr but a string is its text and a tuple of dims shows as `list(...)` does where a
// message asks for it (shape_error's groups).
inline std::string str(const V& v) { return v.kind == K_STR ? str_text(v) : repr(v); }

inline std::string type_name(const V& v) {
  switch (v.kind) {
    case K_NONE: return "NoneType";
    case K_BOOL: return "bool";
    case K_INT: return "int";
    case K_FLOAT: return "float";
    case K_STR: return "str";
    case K_VLIST: return "list";
    default: fallback("this value's type name is the Python path's");
  }
}

inline std::string dims_list(const int64_t* d, int64_t n) {
  std::string out = "[";
  for (int64_t k = 0; k < n; ++k) out += (k ? ", " : "") + std::to_string(d[k]);
  return out + "]";
}

// ---- numbers: Python's arithmetic (plan_eval.h's), an int64 overflow or a division by zero falling back

inline opgen_plan::Num num(const V& v) {
  if (v.kind == K_INT || v.kind == K_BOOL) return opgen_plan::integer(v.i);
  if (v.kind == K_FLOAT) return opgen_plan::real(v.f);
  fallback("arithmetic on a " + type_name(v) + " is the Python path's");
}

inline V from_num(const opgen_plan::Num& n) { return n.is_float ? real(n.f) : integer(n.i); }

// (The arithmetic's and comparisons' fast paths below are forced inline: a driver's one large
// function otherwise calls each; the rest of each operation stays out of line, OPGEN_COLD. Forcing
// the other helpers too — equal, min_of, max_of, dim, plan_value, dtype_code — saved another ~800
// instructions a FusedBatchNormGradV3 call but took its driver's compile from ~5.6 s to ~8 s.)
#define OPGEN_HOT inline __attribute__((always_inline))
#define OPGEN_COLD __attribute__((noinline, cold))

template <typename F>
OPGEN_COLD V arith(F f, const V& a, const V& b) {
  try {
    return from_num(f(num(a), num(b)));
  } catch (const opgen_plan::Error& e) {  // Python's ints do not overflow; its ZeroDivisionError is its own
    fallback(e.message);
  }
}

// Two ints (or bools, which Python's arithmetic takes as ints): the drivers' usual operands, done
// here inline; floats, an overflow or a division by zero go through arith (plan_eval.h's, the same
// results: these are only its int paths without the call).
OPGEN_HOT bool ints(const V& a, const V& b) {
  return (a.kind == K_INT || a.kind == K_BOOL) && (b.kind == K_INT || b.kind == K_BOOL);
}

OPGEN_HOT V add(const V& a, const V& b) {
  int64_t r;
  if (ints(a, b) && !__builtin_add_overflow(a.i, b.i, &r)) return integer(r);
  return arith(opgen_plan::add, a, b);
}
OPGEN_HOT V sub(const V& a, const V& b) {
  int64_t r;
  if (ints(a, b) && !__builtin_sub_overflow(a.i, b.i, &r)) return integer(r);
  return arith(opgen_plan::sub, a, b);
}
OPGEN_HOT V mul(const V& a, const V& b) {
  int64_t r;
  if (ints(a, b) && !__builtin_mul_overflow(a.i, b.i, &r)) return integer(r);
  return arith(opgen_plan::mul, a, b);
}
OPGEN_HOT V floordiv(const V& a, const V& b) {  // (C truncates, Python floors)
  if (ints(a, b) && b.i > 0) return integer(a.i / b.i - (a.i % b.i != 0 && a.i < 0));
  return arith(opgen_plan::floordiv, a, b);
}
inline V mod(const V& a, const V& b) { return arith(opgen_plan::mod, a, b); }
OPGEN_COLD inline V neg_slow(const V& a) {
  try {
    return from_num(opgen_plan::neg(num(a)));
  } catch (const opgen_plan::Error& e) {
    fallback(e.message);
  }
}
OPGEN_HOT V neg(const V& a) {
  if ((a.kind == K_INT || a.kind == K_BOOL) && a.i != INT64_MIN) return integer(-a.i);
  return neg_slow(a);
}

// The same on plain int64s: where drivergen_checks.py knows both operands are ints (or bools) it
// prints these, no V made; the rare cases (an overflow, a divisor <= 0, a modulo) go through the V
// operations above, so the results and the fallbacks' words are theirs.
OPGEN_COLD inline int64_t arith_i(opgen_plan::Num (*f)(const opgen_plan::Num&, const opgen_plan::Num&), int64_t a,
                                  int64_t b) {
  return arith(f, integer(a), integer(b)).i;
}
OPGEN_HOT int64_t add_i(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? arith_i(opgen_plan::add, a, b) : r;
}
OPGEN_HOT int64_t sub_i(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_sub_overflow(a, b, &r) ? arith_i(opgen_plan::sub, a, b) : r;
}
OPGEN_HOT int64_t mul_i(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? arith_i(opgen_plan::mul, a, b) : r;
}
OPGEN_HOT int64_t floordiv_i(int64_t a, int64_t b) {
  return b > 0 ? a / b - (a % b != 0 && a < 0) : arith_i(opgen_plan::floordiv, a, b);
}
inline int64_t mod_i(int64_t a, int64_t b) { return arith_i(opgen_plan::mod, a, b); }
OPGEN_HOT int64_t neg_i(int64_t a) { return a != INT64_MIN ? -a : neg_slow(integer(a)).i; }
// Python's min(a, b) and max(a, b) of two ints: b only where it is strictly less, or greater.
OPGEN_HOT int64_t min_i(int64_t a, int64_t b) { return b < a ? b : a; }
OPGEN_HOT int64_t max_i(int64_t a, int64_t b) { return b > a ? b : a; }

OPGEN_HOT bool truth(const V& v) {
  switch (v.kind) {
    case K_NONE: return false;
    case K_BOOL: case K_INT: return v.i != 0;
    case K_FLOAT: return v.f != 0.0;
    case K_STR: case K_DIMS: case K_TLIST: case K_VLIST: return v.i != 0;
    default: return true;
  }
}

OPGEN_COLD inline bool equal_slow(const V& a, const V& b) {
  if (is_number(a) && is_number(b)) return opgen_plan::equal(num(a), num(b));  // (two strings: equal's own)
  if (a.kind == K_DIMS && b.kind == K_DIMS)
    return a.i == b.i && (a.i == 0 || std::memcmp(a.dims, b.dims, (size_t)a.i * sizeof(int64_t)) == 0);
  if (a.kind == K_NONE || b.kind == K_NONE) return a.kind == b.kind;
  if (a.kind != b.kind) return false;
  fallback("comparing these values is the Python path's");
}
inline bool equal(const V& a, const V& b) {
  if (ints(a, b)) return a.i == b.i;
  if (a.kind == K_STR && b.kind == K_STR) return a.i == b.i && (a.s == b.s || std::memcmp(a.s, b.s, (size_t)a.i) == 0);
  return equal_slow(a, b);
}

OPGEN_COLD inline int compare_slow(const V& a, const V& b) { return opgen_plan::compare(num(a), num(b)); }
OPGEN_HOT int compare(const V& a, const V& b) {
  if (ints(a, b)) return (a.i > b.i) - (a.i < b.i);
  return compare_slow(a, b);
}

inline bool contains(const V& a, std::initializer_list<V> items) {
  for (const V& item : items)
    if (equal(a, item)) return true;
  return false;
}

inline V min_of(std::initializer_list<V> items) {  // the first of equals, as Python's min
  const V* best = items.begin();
  for (const V& v : items)
    if (compare(v, *best) < 0) best = &v;
  return *best;
}

inline V max_of(std::initializer_list<V> items) {
  const V* best = items.begin();
  for (const V& v : items)
    if (compare(v, *best) > 0) best = &v;
  return *best;
}

// min(a, b) and max(a, b), the drivers' usual pair: two ints (or bools) inline, as the lists' loop
// picks (b only where it is strictly less, or greater); any other pair through that loop.
OPGEN_COLD inline V min_of_slow(const V& a, const V& b) { return min_of({a, b}); }
OPGEN_COLD inline V max_of_slow(const V& a, const V& b) { return max_of({a, b}); }
OPGEN_HOT V min_of(const V& a, const V& b) {
  if (ints(a, b)) return b.i < a.i ? b : a;
  return min_of_slow(a, b);
}
OPGEN_HOT V max_of(const V& a, const V& b) {
  if (ints(a, b)) return b.i > a.i ? b : a;
  return max_of_slow(a, b);
}

inline int64_t whole(const V& v) {
  if (v.kind == K_INT || v.kind == K_BOOL) return v.i;
  fallback("a " + type_name(v) + " where an int is needed is the Python path's");
}

// ---- tensors and their shapes

inline const char* const* dtype_names() {
  static const char* const names[OPGEN_DT_COUNT] = {
      "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
      "float16", "bfloat16", "float32", "float64"};
  return names;
}

inline int64_t itemsize(int32_t dtype) {
  static const int64_t sizes[OPGEN_DT_COUNT] = {1, 1, 1, 2, 2, 4, 4, 8, 8, 2, 2, 4, 8};
  return dtype >= 0 && dtype < OPGEN_DT_COUNT ? sizes[dtype] : 0;
}

// A known dtype's name: the table's own text (dtype_code finds it by its address), its length known.
inline V dtype_value(int32_t code) {
  struct Lengths {
    int64_t n[OPGEN_DT_COUNT];
    Lengths() {
      for (int32_t k = 0; k < OPGEN_DT_COUNT; ++k) n[k] = (int64_t)std::strlen(dtype_names()[k]);
    }
  };
  static const Lengths lengths;
  return text(dtype_names()[code], lengths.n[code]);
}

inline V dtype_of(const V& t) {
  if (t.kind != K_TENSOR) fallback("a dtype of a non-tensor is the Python path's");
  if (t.t->dtype >= 0 && t.t->dtype < OPGEN_DT_COUNT) return dtype_value(t.t->dtype);
  return lit(t.t->name != nullptr ? t.t->name : "unknown");
}

OPGEN_COLD inline int32_t dtype_code_slow(const V& name) {
  for (int32_t k = 0; k < OPGEN_DT_COUNT; ++k)
    if (equal(name, lit(dtype_names()[k]))) return k;
  fallback("dtype " + str(name) + " is not one the driver knows");
}
inline int32_t dtype_code(const V& name) {
  if (name.kind == K_STR)  // (a tensor's dtype name is the table's own text: found by its address, no strlen)
    for (int32_t k = 0; k < OPGEN_DT_COUNT; ++k)
      if (name.s == dtype_names()[k]) return k;
  return dtype_code_slow(name);
}

inline const opgen_tensor& tensor_of(const V& t) {
  if (t.kind != K_TENSOR) fallback("a shape of a " + std::to_string(t.kind) + "-kind value is the Python path's");
  return *t.t;
}

inline V ndim(const V& t) { return integer(tensor_of(t).ndim); }
OPGEN_HOT int64_t ndim_i(const V& t) { return t.kind == K_TENSOR ? t.t->ndim : tensor_of(t).ndim; }
inline V shape(const V& t) { return dims(tensor_of(t).shape, tensor_of(t).ndim); }

OPGEN_COLD inline V dim_slow(const V& t, const V& index) {
  const opgen_tensor& x = tensor_of(t);
  int64_t k = whole(index);
  if (k < 0) k += x.ndim;
  if (k < 0 || k >= x.ndim) raise(OPGEN_ERR_RUNTIME, "a dim index out of range (the wrapper checks the rank first)");
  return integer(x.shape[k]);
}
inline V dim(const V& t, const V& index) {
  if (t.kind == K_TENSOR && index.kind == K_INT && index.i >= 0 && index.i < t.t->ndim)
    return integer(t.t->shape[index.i]);
  return dim_slow(t, index);
}

OPGEN_HOT int64_t dim_i(const V& t, int64_t index) {  // (dim's, on an int index)
  if (t.kind == K_TENSOR && index >= 0 && index < t.t->ndim) return t.t->shape[index];
  return dim_slow(t, integer(index)).i;
}

inline V dims_slice(const V& t, const V& start, const V& stop) {  // tuple(x.shape[start:stop]), both in range
  const opgen_tensor& x = tensor_of(t);
  int64_t a = whole(start), b = whole(stop);
  a = a < 0 ? 0 : (a > x.ndim ? x.ndim : a);
  b = b < a ? a : (b > x.ndim ? x.ndim : b);
  return dims(x.shape + a, b - a);
}

inline V prod(const V& g) {
  V out = integer(1);
  for (int64_t k = 0; k < g.i; ++k) out = mul(out, integer(g.dims[k]));
  return out;
}

inline V len(const V& v) {
  if (v.kind == K_STR || v.kind == K_DIMS || v.kind == K_TLIST || v.kind == K_VLIST) return integer(v.i);
  fallback("len() of this value is the Python path's");
}

inline V item(const V& list, const V& index) {
  int64_t k = whole(index);
  if (k < 0) k += list.i;
  if (list.kind == K_TLIST && k >= 0 && k < list.i) return tensor(list.t + k);
  fallback("this subscript is the Python path's");
}

// ---- the messages of codegen/runtime/checks.py

struct Binding {
  const char* name;
  V value;
};

[[noreturn]] inline void shape_error(const char* op, const std::string& arg, std::initializer_list<const char*> pattern,
                                     const V& actual, std::initializer_list<Binding> bindings, const char* context) {
  std::string dims_text;
  bool first = true;
  for (const char* d : pattern) {
    std::string shown = d;
    for (const Binding& b : bindings) {
      if (std::strcmp(b.name, d) != 0) continue;
      bool identifier = std::isalpha((unsigned char)d[0]) || d[0] == '_';
      for (const char* c = d; *c && identifier; ++c) identifier = std::isalnum((unsigned char)*c) || *c == '_';
      if (d[0] == '*') shown = std::string(d) + "=" + dims_list(b.value.dims, b.value.i);
      else shown = std::string(d) + (identifier ? "=" : " = ") + str(b.value);
      break;
    }
    dims_text += (first ? "" : ", ") + shown;
    first = false;
  }
  std::string where = *context ? std::string(" (") + context + ")" : "";
  raise(OPGEN_ERR_VALUE, std::string(op) + ": " + arg + ": expected shape [" + dims_text + "]" + where + ", got " +
                             dims_list(actual.dims, actual.i));
}

[[noreturn]] inline void constraint_error(const char* op, const char* text, std::initializer_list<Binding> values,
                                          const char* message) {
  std::string bound;
  for (const Binding& b : values) bound += (bound.empty() ? "" : ", ") + std::string(b.name) + "=" + str(b.value);
  raise(OPGEN_ERR_VALUE, std::string(op) + ": requires " + text + " (with " + bound + ")" +
                             (*message ? std::string(": ") + message : ""));
}

inline std::string attr_where(const char* op, std::string_view name) {
  return std::string(op) + ": attr " + std::string(name);
}

[[noreturn]] inline void wrong_type(const char* op, std::string_view name, const std::string& expected, const V& v) {
  raise(OPGEN_ERR_TYPE, attr_where(op, name) + ": expected " + expected + ", got " + type_name(v) + " " + repr(v));
}

// A spec's bound as checks.py holds it: absent, an int or a float, with the text Python prints for it.
struct Bound {
  bool present;
  bool is_int;
  int64_t i;
  double f;
  const char* text;
};

inline Bound no_bound() { return Bound{false, false, 0, 0.0, ""}; }

// Python's `value < bound` (-1), `==` (0) or `>` (1): ints exactly, else through double.
inline int against(const V& value, const Bound& b) {
  if (value.kind != K_FLOAT && b.is_int) return (value.i > b.i) - (value.i < b.i);
  double x = value.kind == K_FLOAT ? value.f : (double)value.i;
  double y = b.is_int ? (double)b.i : b.f;
  return (x > y) - (x < y);
}

inline void check_range(const char* op, std::string_view name, const V& value, const Bound& lo, const Bound& hi,
                        bool above, bool below) {
  if (lo.present && (above ? against(value, lo) <= 0 : against(value, lo) < 0))
    raise(OPGEN_ERR_VALUE, attr_where(op, name) + ": expected a value " + (above ? ">" : ">=") + " " + lo.text +
                               ", got " + repr(value));
  if (hi.present && (below ? against(value, hi) >= 0 : against(value, hi) > 0))
    raise(OPGEN_ERR_VALUE, attr_where(op, name) + ": expected a value " + (below ? "<" : "<=") + " " + hi.text +
                               ", got " + repr(value));
}

inline void check_allowed(const char* op, std::string_view name, const V& value, std::initializer_list<V> allowed) {
  if (allowed.size() == 0 || contains(value, allowed)) return;
  std::string list = "[";
  bool first = true;
  for (const V& a : allowed) {
    list += (first ? "" : ", ") + repr(a);
    first = false;
  }
  raise(OPGEN_ERR_VALUE, attr_where(op, name) + ": expected one of " + list + "], got " + repr(value));
}

// An attr as the front-end classified it (driver.h's opgen_value).
inline V attr_value(const opgen_value& a) {
  switch (a.kind) {
    case OPGEN_VAL_INT: return integer(a.i);
    case OPGEN_VAL_FLOAT: return real(a.f);
    case OPGEN_VAL_STR: return text(a.text, a.len);
    case OPGEN_VAL_BOOL: return boolean(a.i != 0);
    case OPGEN_VAL_NONE: return none();
    case OPGEN_VAL_LIST: { V v; v.kind = K_VLIST; v.value = a.items; v.i = a.len; return v; }
    case OPGEN_VAL_ACT: { V v; v.kind = K_ACT; v.value = &a; v.repeat = 0; return v; }
    default: fallback("an attr of kind " + std::to_string(a.kind) + " is the Python path's");
  }
}

inline V check_bool(const char* op, const char* name, const V& v) {
  if (v.kind != K_BOOL) wrong_type(op, name, "a bool", v);
  return v;
}

inline V check_int(const char* op, std::string_view name, const V& v, const Bound& lo, const Bound& hi,
                   std::initializer_list<V> allowed, bool above = false, bool below = false) {
  if (v.kind != K_INT) wrong_type(op, name, "an int", v);
  check_allowed(op, name, v, allowed);
  static const Bound int64_min{true, true, INT64_MIN, 0.0, "-9223372036854775808"};
  static const Bound int64_max{true, true, INT64_MAX, 0.0, "9223372036854775807"};
  // (int64 values are within TensorFlow's int64 range: the default bounds never refuse one)
  check_range(op, name, v, lo.present ? lo : int64_min, hi.present ? hi : int64_max, above, below);
  return v;
}

inline V check_float(const char* op, const char* name, const V& v, const Bound& lo, const Bound& hi,
                     bool above = false, bool below = false) {
  if (v.kind != K_FLOAT && v.kind != K_INT) wrong_type(op, name, "a float", v);
  V x = real(v.kind == K_INT ? (double)v.i : v.f);
  if (std::isnan(x.f)) raise(OPGEN_ERR_VALUE, attr_where(op, name) + ": expected a number, got nan");
  check_range(op, name, x, lo, hi, above, below);
  return x;
}

inline V check_str(const char* op, const char* name, const V& v, std::initializer_list<V> allowed) {
  if (v.kind != K_STR) wrong_type(op, name, "a string", v);
  check_allowed(op, name, v, allowed);
  return v;
}

inline V check_enum(const char* op, const char* name, const V& v, std::initializer_list<V> allowed) {
  if (v.kind == K_STR && contains(v, allowed)) return v;
  std::string names;
  for (const V& a : allowed) names += (names.empty() ? "" : ", ") + str_text(a);
  if (v.kind != K_STR) wrong_type(op, name, "one of " + names, v);
  raise(OPGEN_ERR_VALUE, attr_where(op, name) + ": expected one of " + names + ", got " + repr(v));
}

inline V check_type(const char* op, const char* name, const V& v, std::initializer_list<V> allowed) {
  if (v.kind == K_ACT) fallback("an activation as a dtype attr is the Python path's");
  if (v.kind != K_STR) wrong_type(op, name, "a dtype", v);
  check_allowed(op, name, v, allowed);
  return v;
}

inline V check_int_list(const char* op, const char* name, const V& v, const Bound& lo, const Bound& hi) {
  if (v.kind != K_VLIST) {
    if (v.kind == K_ACT) fallback("an activation as an int list is the Python path's");
    wrong_type(op, name, "a list of ints", v);
  }
  for (int64_t k = 0; k < v.i; ++k)
    check_int(op, std::string(name) + "[" + std::to_string(k) + "]", attr_value(v.value[k]), lo, hi, {});
  return v;
}

struct Shape;

// A scratch buffer's descriptor and the dims it points at, kept together (the plan's slots point at both).
struct ScratchEntry {
  opgen_tensor t;
  int64_t dims[OPGEN_MAX_NDIM];
};

// What a call owns until its plan has run: scratch descriptors, list pointers, plan values, at
// stable addresses. The first few scratch descriptors in place (a call's usual one to three: no heap
// for them, where a list took three blocks each), then a list; the rest lists (nothing allocated
// until something is kept: most calls keep only scratch).
struct Frame {
  static constexpr int kScratchInPlace = 4;
  ScratchEntry scratch_in_place[kScratchInPlace];  // (not initialised: each is written when kept)
  int nscratch = 0;
  std::list<ScratchEntry> scratch_more;
  std::list<std::vector<const void*>> pointers;
  std::list<std::vector<opgen_plan_value>> values;
  std::list<std::vector<opgen_value>> attrs;
  std::vector<opgen_native::ValueCheck> value_checks;  // (the cuda device's, for the plan's runtime)

  // `t` kept with the dims of `s` (its shape pointing at them)
  opgen_tensor& keep_scratch(const opgen_tensor& t, const Shape& s);
};

// The activation library's function named `name` with its default parameters (printed per unit
// from the spec folder's library: activation_named), or nullptr.
const opgen_value* activation_named(const V& name);
const char* activation_names();

// Activation.of: an activation the front-end handed over (an instance of the library's class), or
// a plain name; the text form `leaky_relu(alpha=0.1)` is parsed by the Python path.
inline const opgen_value* activation_of(const std::string& where, const V& v) {
  if (v.kind == K_ACT) return v.value;
  if (v.kind != K_STR) raise(OPGEN_ERR_TYPE, where + ": expected an activation name (str) or Activation, got " +
                                                 type_name(v) + " " + repr(v));
  if (std::memchr(v.s, '(', (size_t)v.i) != nullptr) fallback("an activation's text form is parsed by the Python path");
  const opgen_value* found = activation_named(v);
  if (found == nullptr)
    raise(OPGEN_ERR_VALUE, where + ": unknown activation " + repr(v) + " (known: " + activation_names() + ")");
  return found;
}

inline V activation_value(const opgen_value* a, int64_t repeat) {
  V v;
  v.kind = K_ACT;
  v.value = a;
  v.repeat = repeat;
  return v;
}

inline V check_activation(const char* op, const char* name, const V& v) {
  return activation_value(activation_of(attr_where(op, name), v), 0);
}

// Activation.check_list: a list of activations or names, or one standing for `length` of them.
inline V check_activation_list(Frame& frame, const char* op, const char* name, const V& v, bool has_length,
                               const V& length) {
  if (v.kind == K_ACT || v.kind == K_STR)
    return activation_value(activation_of(attr_where(op, name), v), has_length ? whole(length) : 1);
  if (v.kind != K_VLIST)
    raise(OPGEN_ERR_TYPE, attr_where(op, name) + ": expected an activation, a name or a list of them, got " +
                              type_name(v) + " " + repr(v));
  frame.attrs.emplace_back();
  std::vector<opgen_value>& items = frame.attrs.back();
  for (int64_t k = 0; k < v.i; ++k)
    items.push_back(*activation_of(attr_where(op, std::string(name) + "[" + std::to_string(k) + "]"),
                                   attr_value(v.value[k])));
  if (has_length && v.i != whole(length)) fallback("the message of an activation list's length shows their reprs");
  if (v.i == 0) raise(OPGEN_ERR_VALUE, attr_where(op, name) + ": expected at least one activation, got an empty list");
  V out = v;
  out.value = items.data();
  return out;
}

// (An argument's label, `arg` below, is a string_view: the drivers pass a literal, read only where a
// message is made; a std::string for each, made per call, cost ~40 instructions.)

// An input as the wrapper's `_backend.adopt` leaves it: a tensor on the call's device, contiguous.
inline V adopt(const opgen_call* call, const char* op, std::string_view arg, const V& v) {
  if (v.kind == K_NONE)
    raise(OPGEN_ERR_TYPE, std::string(op) + ": " + std::string(arg) + ": expected an array (NumPy, CuPy or __dlpack__/"
                                                          "__cuda_array_interface__ producer), got NoneType");
  if (v.kind != K_TENSOR) fallback(std::string(arg) + ": a list where an array is expected is the Python path's");
  const opgen_tensor& t = *v.t;
  if (t.device != call->device || (t.device == OPGEN_DEV_CUDA && t.device_index != call->device_index))
    fallback(std::string(arg) + ": an input on another device is copied by the Python path");
  if (t.strides != nullptr) {
    int64_t expected = 1;
    for (int32_t k = t.ndim - 1; k >= 0; --k) {
      if (t.shape[k] != 1 && t.strides[k] != expected)
        fallback(std::string(arg) + ": a strided input is copied by the Python path");
      expected *= t.shape[k];
    }
  }
  return v;
}

inline V check_list(const char* op, const char* arg, const V& v) {
  if (v.kind == K_TLIST) return v;
  if (v.kind == K_NONE) raise(OPGEN_ERR_TYPE, std::string(op) + ": " + arg + ": expected a list of arrays, got NoneType");
  fallback(std::string(arg) + ": an array where a list is expected is the Python path's");
}

// `[_backend.adopt(_OP, f'x[{_i}]', _v) for _i, _v in enumerate(check_list(...))]`
inline V adopt_list(const opgen_call* call, const char* op, const char* arg, const V& list) {
  for (int64_t k = 0; k < list.i; ++k) adopt(call, op, std::string(arg) + "[" + std::to_string(k) + "]", tensor(list.t + k));
  return list;
}

inline V check_dtype(const char* op, std::string_view arg, const V& t, std::initializer_list<const char*> allowed,
                     const char* type_var) {
  V name = dtype_of(t);
  for (const char* a : allowed)  // (the allowed name by its address where the compiler merged the two)
    if (a == name.s) return name;
  for (const char* a : allowed)
    if (equal(name, lit(a))) return name;  // (the same text)
  std::string listed;
  for (const char* a : allowed) listed += (listed.empty() ? "" : ", ") + std::string(a);
  std::string what = type_var != nullptr ? std::string(type_var) + " in {" + listed + "}" : listed;
  raise(OPGEN_ERR_TYPE, std::string(op) + ": " + std::string(arg) + ": expected dtype " + what + ", got " +
                            str_text(name));
}

inline void check_same_dtype(const char* op, std::string_view arg, const V& t, const V& expected,
                             const char* type_var, const char* bound_by) {
  V name = dtype_of(t);
  if (!equal(name, expected))
    raise(OPGEN_ERR_TYPE, std::string(op) + ": " + std::string(arg) + ": expected dtype " + str_text(expected) + " (" +
                              type_var +
                              ", as " + bound_by + "), got " + str_text(name));
}

inline V normalize_axis(const char* op, const char* attr, const V& value, std::string_view arg, const V& rank,
                        int64_t before, int64_t after) {
  int64_t ndim = whole(rank), v = whole(value);
  int64_t axis = v < 0 ? v + ndim : v;
  if (!(before <= axis && axis < ndim - after))
    raise(OPGEN_ERR_VALUE, std::string(op) + ": attr " + attr + ": expected a value in [" +
                               std::to_string(before - ndim) + ", " + std::to_string(ndim - after - 1) + "] for " +
                               std::string(arg) + " of rank " + std::to_string(ndim) + ", got " + std::to_string(v));
  return integer(axis);
}

// An input's element as Python's `.item()` gives it.
inline V element(const opgen_tensor& t, int64_t k) {
  const char* p = (const char*)t.data;
  switch (t.dtype) {
    case OPGEN_DT_BOOL: return boolean(((const uint8_t*)p)[k] != 0);
    case OPGEN_DT_INT8: return integer(((const int8_t*)p)[k]);
    case OPGEN_DT_UINT8: return integer(((const uint8_t*)p)[k]);
    case OPGEN_DT_INT16: return integer(((const int16_t*)p)[k]);
    case OPGEN_DT_UINT16: return integer(((const uint16_t*)p)[k]);
    case OPGEN_DT_INT32: return integer(((const int32_t*)p)[k]);
    case OPGEN_DT_UINT32: return integer(((const uint32_t*)p)[k]);
    case OPGEN_DT_INT64: return integer(((const int64_t*)p)[k]);
    case OPGEN_DT_FLOAT32: return real(((const float*)p)[k]);
    case OPGEN_DT_FLOAT64: return real(((const double*)p)[k]);
    case OPGEN_DT_FLOAT16: {
      uint16_t h = ((const uint16_t*)p)[k];
      int e = (h >> 10) & 0x1f, m = h & 0x3ff;
      double x = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(m + 1024, e - 25);
      return real((h & 0x8000) ? -x : x);
    }
    case OPGEN_DT_BFLOAT16: {
      uint32_t bits = (uint32_t)((const uint16_t*)p)[k] << 16;
      float x;
      std::memcpy(&x, &bits, sizeof x);
      return real(x);
    }
    default: fallback("the values of this input's dtype are checked by the Python path");
  }
}

inline std::string bound_text(const char* text, const V& value) {
  std::string shown = *text ? text : str(value);
  return shown == str(value) ? shown : shown + "=" + str(value);
}

// `values: {min, max}`: every element within the bounds (NaN never is), checked where the data is;
// `on_device` ones on the cuda device are the plan's runtime's to check (PlanCall.value_checks).
inline void check_values(const opgen_call* call, Frame& frame, bool on_device, const char* op, const char* arg,
                         const V& x, const V& lo, const V& hi, const char* lo_text, const char* hi_text) {
  const opgen_tensor& t = tensor_of(x);
  if (call->device != OPGEN_DEV_CPU) {
    if (!on_device) fallback(std::string(arg) + ": a device input's values are checked by the Python path");
    frame.value_checks.push_back(opgen_native::ValueCheck{
        &t, arg, lo.kind != K_NONE, hi.kind != K_NONE, lo.kind != K_NONE ? whole(lo) : 0,
        hi.kind != K_NONE ? whole(hi) : 0, lo_text, hi_text});
    return;
  }
  int64_t n = 1;
  for (int32_t k = 0; k < t.ndim; ++k) n *= t.shape[k];
  for (int64_t k = 0; k < n; ++k) {
    V e = element(t, k);
    bool bad = (lo.kind != K_NONE && compare(e, lo) < 0) || (hi.kind != K_NONE && compare(e, hi) > 0) ||
               (e.kind == K_FLOAT && std::isnan(e.f));
    if (!bad) continue;
    std::string index = "[";
    int64_t rest = k;
    std::vector<int64_t> at((size_t)t.ndim);
    for (int32_t d = t.ndim - 1; d >= 0; --d) {
      at[(size_t)d] = t.shape[d] ? rest % t.shape[d] : 0;
      rest = t.shape[d] ? rest / t.shape[d] : 0;
    }
    for (int32_t d = 0; d < t.ndim; ++d) index += (d ? ", " : "") + std::to_string(at[(size_t)d]);
    index += "]";
    std::string expected = lo.kind != K_NONE && hi.kind != K_NONE
                               ? "in [" + bound_text(lo_text, lo) + ", " + bound_text(hi_text, hi) + "]"
                               : lo.kind != K_NONE ? ">= " + bound_text(lo_text, lo) : "<= " + bound_text(hi_text, hi);
    raise(OPGEN_ERR_VALUE, std::string(op) + ": " + arg + ": expected every value " + expected + ", got " + repr(e) +
                               " at index " + index);
  }
}

// `x.astype(dtype, copy=False)` (an `accepts_dtypes` input): a no-op when it has the dtype already.
inline V as_dtype(const V& x, const char* dtype, const char* arg) {
  if (x.kind != K_TENSOR || equal(dtype_of(x), lit(dtype))) return x;
  fallback(std::string(arg) + ": converting " + str(dtype_of(x)) + " to " + dtype + " is the Python path's");
}

// ---- outputs, scratch and the plan's call

// A shape being built: `[*_group_lead, D]`.
struct Shape {
  int64_t d[OPGEN_MAX_NDIM];
  int32_t n = 0;
  Shape() {}
  OPGEN_HOT Shape(std::initializer_list<int64_t> items) {  // (dims the driver knows are ints)
    if (items.size() > OPGEN_MAX_NDIM) too_many();
    for (int64_t x : items) d[n++] = x;
  }
  Shape(std::initializer_list<V> items) {
    for (const V& v : items) {
      if (v.kind == K_DIMS) {
        for (int64_t k = 0; k < v.i; ++k) push(v.dims[k]);
      } else {
        push(whole(v));
      }
    }
  }
  void push(int64_t x) {
    if (n >= OPGEN_MAX_NDIM) too_many();
    d[n++] = x;
  }
  [[noreturn]] OPGEN_COLD static void too_many() {
    fallback("a shape of more than " + std::to_string(OPGEN_MAX_NDIM) + " dims");
  }
  // (checked where a buffer is made, as NumPy's empty() does: a later check may refuse the call first)
  int64_t bytes(int32_t dtype) const {
    int64_t total = itemsize(dtype), r;
    for (int32_t k = 0; k < n; ++k) {
      if (d[k] < 0) fallback("a negative dim (" + std::to_string(d[k]) + "): NumPy's error is the Python path's");
      if (__builtin_mul_overflow(total, d[k], &r)) fallback("a buffer beyond int64 bytes: the Python path says so");
      total = r;
    }
    return total;
  }
};

inline void allocate(opgen_call* call, int64_t index, int32_t dtype, int32_t ndim, const int64_t* shape,
                     int64_t bytes, void** data) {
  char err[512];
  err[0] = '\0';  // (an allocator that fails says why here; the rest is never read)
  if (call->allocator.alloc == nullptr) raise(OPGEN_ERR_MEMORY, "the call has no allocator");
  if (call->allocator.alloc(call->allocator.ctx, index, dtype, ndim, shape, bytes, data, err, sizeof err) != 0)
    raise(OPGEN_ERR_MEMORY, err[0] ? err : "the allocator failed");
}

// `y = _backend.empty(_shape_y, dtype)` for output k: its dtype and shape; with `run`, its data from
// the allocator (or the caller's, checked, when preallocated).
inline V output(opgen_call* call, const char* op, const char* name, int64_t k, bool run, const Shape& s, const V& dtype) {
  int32_t code = dtype_code(dtype);
  int64_t bytes = s.bytes(code);  // (a negative dim or a size beyond int64 bytes: before anything is written)
  opgen_tensor& out = call->outputs[k];
  if (call->noutputs < k + 1) call->noutputs = k + 1;
  if (call->preallocated && run) {
    bool same = out.dtype == code && out.ndim == s.n;
    for (int32_t d = 0; same && d < s.n; ++d) same = out.shape[d] == s.d[d];
    if (!same) {
      std::string given = (out.dtype >= 0 && out.dtype < OPGEN_DT_COUNT ? dtype_names()[out.dtype] : "unknown") +
                          dims_list(out.shape, out.ndim);
      raise(OPGEN_ERR_VALUE, std::string(op) + ": output " + name + ": expected " + str_text(dtype) +
                                 dims_list(s.d, s.n) + ", got " + given + " (preallocated)");
    }
    return tensor(&out);
  }
  std::memcpy(call->output_shapes[k], s.d, sizeof(int64_t) * (size_t)s.n);
  out.shape = call->output_shapes[k];
  out.strides = nullptr;
  out.ndim = s.n;
  out.dtype = code;
  out.device = call->device;
  out.device_index = call->device_index;
  out.name = nullptr;
  out.data = nullptr;
  if (run) allocate(call, k, code, s.n, out.shape, bytes, &out.data);
  return tensor(&out);
}

inline opgen_tensor& Frame::keep_scratch(const opgen_tensor& t, const Shape& s) {
  ScratchEntry& e = nscratch < kScratchInPlace ? scratch_in_place[nscratch++] : scratch_more.emplace_back();
  std::memcpy(e.dims, s.d, sizeof(int64_t) * (size_t)s.n);
  e.t = t;
  e.t.shape = e.dims;
  return e.t;
}

// `buf = _backend.empty([dims], dtype)`: a scratch buffer from the allocator (index -1).
inline V scratch(opgen_call* call, Frame& frame, const Shape& s, const V& dtype) {
  int32_t code = dtype_code(dtype);
  opgen_tensor& t = frame.keep_scratch(
      opgen_tensor{nullptr, nullptr, nullptr, s.n, code, call->device, call->device_index, nullptr}, s);
  allocate(call, -1, code, s.n, t.shape, s.bytes(code), &t.data);
  return tensor(&t);
}

// `_rt.alias_view(_OP, name, output, [dims])`: the output's leading elements in the buffer's shape.
inline V alias_view(Frame& frame, const char* op, const char* name, const V& of, const Shape& s) {
  const opgen_tensor& base = tensor_of(of);
  int64_t count = 1, size = 1;
  for (int32_t k = 0; k < s.n; ++k) count *= s.d[k];
  for (int32_t k = 0; k < base.ndim; ++k) size *= base.shape[k];
  if (size < count)
    raise(OPGEN_ERR_VALUE, std::string(op) + ": scratch buffer " + name + ": needs " + std::to_string(count) +
                               " elements of its alias, which has " + std::to_string(size));
  return tensor(&frame.keep_scratch(
      opgen_tensor{base.data, nullptr, nullptr, s.n, base.dtype, base.device, base.device_index, nullptr}, s));
}

// A plan value as codegen/runtime/native_plan.py encodes the Python one; a string is its index in
// the op's plan string table (-1: none of the plan's constants).
OPGEN_COLD inline opgen_plan_value plan_value_slow(Frame& frame, const V& v, const char* const* strings,
                                                  int64_t nstrings) {
  opgen_plan_value out{};
  switch (v.kind) {
    case K_BOOL: case K_INT: out.kind = OPGEN_V_INT; out.i = v.i; return out;
    case K_FLOAT: out.kind = OPGEN_V_FLOAT; out.f = v.f; return out;
    case K_STR:
      out.kind = OPGEN_V_STR;
      out.i = -1;
      for (int64_t k = 0; k < nstrings; ++k)  // (the table's own text where the compiler merged the two: no strlen)
        if (v.s == strings[k]) {
          out.i = k;
          return out;
        }
      for (int64_t k = 0; k < nstrings; ++k)
        if (equal(v, lit(strings[k]))) out.i = k;
      return out;
    default: break;
  }
  auto act = [&](const opgen_value& a) {  // its id, then its parameters (kernel_args()[1:], float32 values)
    frame.values.emplace_back();
    std::vector<opgen_plan_value>& params = frame.values.back();
    for (int64_t k = 0; k < a.len; ++k)
      params.push_back(opgen_plan_value{OPGEN_V_FLOAT, 0, 0, a.items[k].kind == OPGEN_VAL_INT
                                                                 ? (double)(float)a.items[k].i : (double)(float)a.items[k].f,
                                        nullptr, 0});
    return opgen_plan_value{OPGEN_V_ACT, 0, a.i, 0.0, params.data(), (int64_t)params.size()};
  };
  if (v.kind == K_ACT && v.repeat == 0) return act(*v.value);
  std::vector<opgen_plan_value> items;
  if (v.kind == K_ACT) {
    for (int64_t k = 0; k < v.repeat; ++k) items.push_back(act(*v.value));
  } else if (v.kind == K_VLIST) {
    for (int64_t k = 0; k < v.i; ++k) {
      const opgen_value& e = v.value[k];
      if (e.kind == OPGEN_VAL_ACT) items.push_back(act(e));
      else if (e.kind == OPGEN_VAL_INT || e.kind == OPGEN_VAL_BOOL) items.push_back(opgen_plan_value{OPGEN_V_INT, 0, e.i, 0.0, nullptr, 0});
      else if (e.kind == OPGEN_VAL_FLOAT) items.push_back(opgen_plan_value{OPGEN_V_FLOAT, 0, 0, e.f, nullptr, 0});
      else fallback("a list item of kind " + std::to_string(e.kind) + " as a plan value");
    }
  } else {
    fallback("a plan value of kind " + std::to_string(v.kind));
  }
  frame.values.push_back(std::move(items));
  return opgen_plan_value{OPGEN_V_LIST, 0, 0, 0.0, frame.values.back().data(), (int64_t)frame.values.back().size()};
}
// (a number inline: a driver hands the plan ~20 of them a call, each a call of its own before)
OPGEN_HOT opgen_plan_value plan_value(Frame& frame, const V& v, const char* const* strings, int64_t nstrings) {
  if (v.kind == K_BOOL || v.kind == K_INT) return opgen_plan_value{OPGEN_V_INT, 0, v.i, 0.0, nullptr, 0};
  if (v.kind == K_FLOAT) return opgen_plan_value{OPGEN_V_FLOAT, 0, 0, v.f, nullptr, 0};
  return plan_value_slow(frame, v, strings, nstrings);
}

// An int (or a bool) the driver knows is one: plan_value's first case, no V made.
OPGEN_HOT opgen_plan_value plan_int(int64_t i) { return opgen_plan_value{OPGEN_V_INT, 0, i, 0.0, nullptr, 0}; }

// A plan slot: a buffer (NULL when absent) or a list input's element pointers.
OPGEN_COLD inline opgen_native::Slot plan_slot_slow(Frame& frame, const V& v) {
  if (v.kind == K_NONE) return opgen_native::Slot{nullptr, nullptr, -1, OPGEN_DT_OTHER, 0, 0};
  if (v.kind == K_TLIST) {
    frame.pointers.emplace_back();
    for (int64_t k = 0; k < v.i; ++k) frame.pointers.back().push_back(v.t[k].data);
    return opgen_native::Slot{nullptr, frame.pointers.back().data(), v.i, v.i ? v.t[0].dtype : OPGEN_DT_OTHER, 0, 0};
  }
  fallback("a plan slot of kind " + std::to_string(v.kind));
}
// (a tensor inline: a driver hands the plan ~10 of them a call)
OPGEN_HOT opgen_native::Slot plan_slot(Frame& frame, const V& v) {
  if (v.kind != K_TENSOR) return plan_slot_slow(frame, v);
  int64_t size = 1;  // its elements: the runtime checks a GEMM step's window against them
  for (int32_t d = 0; d < v.t->ndim; ++d) size *= v.t->shape[d];
  return opgen_native::Slot{v.t->data, nullptr, -1, v.t->dtype, 0, size};
}

// An input argument as the wrapper's parameter holds it.
inline V input_value(const opgen_call* call, int64_t k) {
  const opgen_arg& a = call->inputs[k];
  if (a.kind == OPGEN_ARG_TENSOR) return tensor(&a.tensor);
  if (a.kind == OPGEN_ARG_LIST) { V v; v.kind = K_TLIST; v.t = a.items; v.i = a.len; return v; }
  return none();
}

inline V backend_name(const opgen_call* call) { return lit(call->device == OPGEN_DEV_CUDA ? "cuda" : "cpu"); }

// The C boundary: a check's error (or any other exception) as the call's result and message.
template <typename F>
inline int guarded(opgen_call* call, const char* op, F body) {
  try {
    body();
    return OPGEN_OK;
  } catch (const Raise& e) {
    snprintf(call->err, sizeof call->err, "%s", e.message.c_str());
    return e.code;
  } catch (const std::bad_alloc&) {
    snprintf(call->err, sizeof call->err, "%s: out of host memory in the driver", op);
    return OPGEN_ERR_MEMORY;
  } catch (...) {
    snprintf(call->err, sizeof call->err, "%s: the native driver failed", op);
    return OPGEN_ERR_RUNTIME;
  }
}

}  // namespace opgen_checks
