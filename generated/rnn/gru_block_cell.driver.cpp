// generated from specs/rnn/gru_block_cell.yaml by opgen — do not edit (opgen 0.1.0)
#ifndef OPGEN_DRIVER_PRELUDE  // (the same for every op of the package)
#define OPGEN_DRIVER_PRELUDE
#include "driver.h"
#include "plan_abi.h"
#include "plan_eval.h"
#include "run_plan.h"
#include "checks.h"
#define OPGEN_DRIVER_API extern "C" __attribute__((visibility("default")))
namespace opgen_checks {
// ACCUMULATOR[dtype] (codegen/runtime/dtypes.py)
inline V accumulator(const V& dtype) {
  if (equal(dtype, lit("float16"))) return lit("float32");
  if (equal(dtype, lit("bfloat16"))) return lit("float32");
  if (equal(dtype, lit("float32"))) return lit("float32");
  if (equal(dtype, lit("float64"))) return lit("float64");
  fallback("no accumulator dtype for " + str(dtype));
}
const opgen_value* activation_named(const V& name) {
  static const opgen_value p0[] = {opgen_value{OPGEN_VAL_FLOAT, 0, 0, 0.0, nullptr, 0, nullptr}, opgen_value{OPGEN_VAL_FLOAT, 0, 0, 0.0, nullptr, 0, nullptr}};
  static const opgen_value p1[] = {opgen_value{OPGEN_VAL_FLOAT, 0, 0, 1.0, nullptr, 0, nullptr}, opgen_value{OPGEN_VAL_FLOAT, 0, 0, 0.0, nullptr, 0, nullptr}};
  static const opgen_value p2[] = {opgen_value{OPGEN_VAL_FLOAT, 0, 0, 0.0, nullptr, 0, nullptr}, opgen_value{OPGEN_VAL_FLOAT, 0, 0, 0.0, nullptr, 0, nullptr}};
  static const opgen_value p3[] = {opgen_value{OPGEN_VAL_FLOAT, 0, 0, 1.0, nullptr, 0, nullptr}, opgen_value{OPGEN_VAL_FLOAT, 0, 0, 1.0, nullptr, 0, nullptr}};
  static const opgen_value p4[] = {opgen_value{OPGEN_VAL_FLOAT, 0, 0, 0.0, nullptr, 0, nullptr}, opgen_value{OPGEN_VAL_FLOAT, 0, 0, 0.0, nullptr, 0, nullptr}};
  static const opgen_value p5[] = {opgen_value{OPGEN_VAL_FLOAT, 0, 0, 0.2, nullptr, 0, nullptr}, opgen_value{OPGEN_VAL_FLOAT, 0, 0, 0.5, nullptr, 0, nullptr}};
  static const opgen_value p6[] = {opgen_value{OPGEN_VAL_FLOAT, 0, 0, 0.0, nullptr, 0, nullptr}, opgen_value{OPGEN_VAL_FLOAT, 0, 0, 0.0, nullptr, 0, nullptr}};
  static const opgen_value p7[] = {opgen_value{OPGEN_VAL_FLOAT, 0, 0, 0.01, nullptr, 0, nullptr}, opgen_value{OPGEN_VAL_FLOAT, 0, 0, 0.0, nullptr, 0, nullptr}};
  static const opgen_value p8[] = {opgen_value{OPGEN_VAL_FLOAT, 0, 0, 1.0, nullptr, 0, nullptr}, opgen_value{OPGEN_VAL_FLOAT, 0, 0, 0.0, nullptr, 0, nullptr}};
  static const opgen_value p9[] = {opgen_value{OPGEN_VAL_FLOAT, 0, 0, 1.0, nullptr, 0, nullptr}, opgen_value{OPGEN_VAL_FLOAT, 0, 0, 0.0, nullptr, 0, nullptr}};
  static const opgen_value p10[] = {opgen_value{OPGEN_VAL_FLOAT, 0, 0, 1.6732631921768188, nullptr, 0, nullptr}, opgen_value{OPGEN_VAL_FLOAT, 0, 0, 1.0507010221481323, nullptr, 0, nullptr}};
  static const opgen_value p11[] = {opgen_value{OPGEN_VAL_FLOAT, 0, 0, 0.0, nullptr, 0, nullptr}, opgen_value{OPGEN_VAL_FLOAT, 0, 0, 0.0, nullptr, 0, nullptr}};
  static const opgen_value p12[] = {opgen_value{OPGEN_VAL_FLOAT, 0, 0, 1.0, nullptr, 0, nullptr}, opgen_value{OPGEN_VAL_FLOAT, 0, 0, 0.0, nullptr, 0, nullptr}};
  static const opgen_value p13[] = {opgen_value{OPGEN_VAL_FLOAT, 0, 0, 1.0, nullptr, 0, nullptr}, opgen_value{OPGEN_VAL_FLOAT, 0, 0, 1.0, nullptr, 0, nullptr}};
  static const opgen_value table[] = {opgen_value{OPGEN_VAL_ACT, 0, 0, 0.0, p0, 2, "identity"}, opgen_value{OPGEN_VAL_ACT, 0, 1, 0.0, p1, 2, "linear"}, opgen_value{OPGEN_VAL_ACT, 0, 2, 0.0, p2, 2, "tanh"}, opgen_value{OPGEN_VAL_ACT, 0, 3, 0.0, p3, 2, "scaled_tanh"}, opgen_value{OPGEN_VAL_ACT, 0, 4, 0.0, p4, 2, "sigmoid"}, opgen_value{OPGEN_VAL_ACT, 0, 5, 0.0, p5, 2, "hard_sigmoid"}, opgen_value{OPGEN_VAL_ACT, 0, 6, 0.0, p6, 2, "relu"}, opgen_value{OPGEN_VAL_ACT, 0, 7, 0.0, p7, 2, "leaky_relu"}, opgen_value{OPGEN_VAL_ACT, 0, 8, 0.0, p8, 2, "thresholded_relu"}, opgen_value{OPGEN_VAL_ACT, 0, 9, 0.0, p9, 2, "elu"}, opgen_value{OPGEN_VAL_ACT, 0, 10, 0.0, p10, 2, "scaled_elu"}, opgen_value{OPGEN_VAL_ACT, 0, 11, 0.0, p11, 2, "softsign"}, opgen_value{OPGEN_VAL_ACT, 0, 12, 0.0, p12, 2, "softplus"}, opgen_value{OPGEN_VAL_ACT, 0, 13, 0.0, p13, 2, "parametric_softplus"}};
  for (const opgen_value& a : table) if (a.text != nullptr && equal(name, lit(a.text))) return &a;
  return nullptr;
}
const char* activation_names() { return "identity, linear, tanh, scaled_tanh, sigmoid, hard_sigmoid, relu, leaky_relu, thresholded_relu, elu, scaled_elu, softsign, softplus, parametric_softplus"; }
}  // namespace opgen_checks
OPGEN_DRIVER_API int64_t opgen_driver_abi() { return OPGEN_DRIVER_ABI; }

#endif
namespace opgen_plan {
// GRUBlockCell: its plan as codegen/runtime/plan.py records it (codegen/drivergen.py)
static void opgen_plan_walk_GRUBlockCell(opgen_plan_value* env, const char* backend, Out& out, int64_t* variant) {
  (void)backend;
  if (true) {
    out.put(OPGEN_STEP_GEMM); out.put(0); out.put(1); out.put(2);
    { Num size1 = num(env[0], "batch_size");
      if (size1.is_float) out.put_double(OPGEN_T_FLOAT, size1.f); else { out.put(OPGEN_T_INT); out.put(size1.i); } }
    { Num size2 = mul(integer(2LL), num(env[1], "cell_size"));
      if (size2.is_float) out.put_double(OPGEN_T_FLOAT, size2.f); else { out.put(OPGEN_T_INT); out.put(size2.i); } }
    { Num size3 = num(env[2], "input_size");
      if (size3.is_float) out.put_double(OPGEN_T_FLOAT, size3.f); else { out.put(OPGEN_T_INT); out.put(size3.i); } }
    out.put(OPGEN_T_BOOL); out.put(0);
    out.put(OPGEN_T_BOOL); out.put(0);
    { Num size4 = integer(0LL);
      if (size4.is_float) out.put_double(OPGEN_T_FLOAT, size4.f); else { out.put(OPGEN_T_INT); out.put(size4.i); } }
    { Num size5 = integer(0LL);
      if (size5.is_float) out.put_double(OPGEN_T_FLOAT, size5.f); else { out.put(OPGEN_T_INT); out.put(size5.i); } }
    { Num size6 = integer(0LL);
      if (size6.is_float) out.put_double(OPGEN_T_FLOAT, size6.f); else { out.put(OPGEN_T_INT); out.put(size6.i); } }
    { Num size7 = integer(0LL);
      if (size7.is_float) out.put_double(OPGEN_T_FLOAT, size7.f); else { out.put(OPGEN_T_INT); out.put(size7.i); } }
    { Num size8 = integer(1LL);
      if (size8.is_float) out.put_double(OPGEN_T_FLOAT, size8.f); else { out.put(OPGEN_T_INT); out.put(size8.i); } }
    { Num size9 = integer(0LL);
      if (size9.is_float) out.put_double(OPGEN_T_FLOAT, size9.f); else { out.put(OPGEN_T_INT); out.put(size9.i); } }
    { Num size10 = integer(0LL);
      if (size10.is_float) out.put_double(OPGEN_T_FLOAT, size10.f); else { out.put(OPGEN_T_INT); out.put(size10.i); } }
    { Num size11 = integer(0LL);
      if (size11.is_float) out.put_double(OPGEN_T_FLOAT, size11.f); else { out.put(OPGEN_T_INT); out.put(size11.i); } }
  }
  if (true) {
    out.put(OPGEN_STEP_GEMM); out.put(3); out.put(1); out.put(2);
    { Num size12 = num(env[0], "batch_size");
      if (size12.is_float) out.put_double(OPGEN_T_FLOAT, size12.f); else { out.put(OPGEN_T_INT); out.put(size12.i); } }
    { Num size13 = mul(integer(2LL), num(env[1], "cell_size"));
      if (size13.is_float) out.put_double(OPGEN_T_FLOAT, size13.f); else { out.put(OPGEN_T_INT); out.put(size13.i); } }
    { Num size14 = num(env[1], "cell_size");
      if (size14.is_float) out.put_double(OPGEN_T_FLOAT, size14.f); else { out.put(OPGEN_T_INT); out.put(size14.i); } }
    out.put(OPGEN_T_BOOL); out.put(0);
    out.put(OPGEN_T_BOOL); out.put(0);
    { Num size15 = integer(1LL);
      if (size15.is_float) out.put_double(OPGEN_T_FLOAT, size15.f); else { out.put(OPGEN_T_INT); out.put(size15.i); } }
    { Num size16 = integer(0LL);
      if (size16.is_float) out.put_double(OPGEN_T_FLOAT, size16.f); else { out.put(OPGEN_T_INT); out.put(size16.i); } }
    { Num size17 = mul(mul(num(env[2], "input_size"), integer(2LL)), num(env[1], "cell_size"));
      if (size17.is_float) out.put_double(OPGEN_T_FLOAT, size17.f); else { out.put(OPGEN_T_INT); out.put(size17.i); } }
    { Num size18 = integer(0LL);
      if (size18.is_float) out.put_double(OPGEN_T_FLOAT, size18.f); else { out.put(OPGEN_T_INT); out.put(size18.i); } }
    { Num size19 = integer(1LL);
      if (size19.is_float) out.put_double(OPGEN_T_FLOAT, size19.f); else { out.put(OPGEN_T_INT); out.put(size19.i); } }
    { Num size20 = integer(0LL);
      if (size20.is_float) out.put_double(OPGEN_T_FLOAT, size20.f); else { out.put(OPGEN_T_INT); out.put(size20.i); } }
    { Num size21 = integer(0LL);
      if (size21.is_float) out.put_double(OPGEN_T_FLOAT, size21.f); else { out.put(OPGEN_T_INT); out.put(size21.i); } }
    { Num size22 = integer(0LL);
      if (size22.is_float) out.put_double(OPGEN_T_FLOAT, size22.f); else { out.put(OPGEN_T_INT); out.put(size22.i); } }
  }
  if (true) {
    int64_t sym23 = -1;
    if (sym23 < 0 && env[3].kind == OPGEN_V_STR && env[3].i == 1) sym23 = 3;
    if (sym23 < 0 && env[3].kind == OPGEN_V_STR && env[3].i == 0) sym23 = 2;
    if (sym23 < 0) fail(OPGEN_E_SYMBOL, "kernel 'gates' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym23);
    out.put(1);
    out.put(whole(num(env[4], "cell_blocks"), "a grid size"));
    out.put(1);
    out.put(whole(num(env[5], "cell_threads"), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs24 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(2);
    out.put(OPGEN_T_SLOT); out.put(4);
    out.put(OPGEN_T_SLOT); out.put(3);
    out.put(OPGEN_T_SLOT); out.put(5);
    out.put(OPGEN_T_SLOT); out.put(6);
    out.put(OPGEN_T_SLOT); out.put(7);
    scalar(out, OPGEN_T_I64, num(env[0], "batch_size"), "batch_size");
    scalar(out, OPGEN_T_I64, num(env[1], "cell_size"), "cell_size");
    out.words[nargs24] = (out.used - nargs24 - 1) / 2;
  }
  if (true) {
    out.put(OPGEN_STEP_GEMM); out.put(0); out.put(8); out.put(9);
    { Num size25 = num(env[0], "batch_size");
      if (size25.is_float) out.put_double(OPGEN_T_FLOAT, size25.f); else { out.put(OPGEN_T_INT); out.put(size25.i); } }
    { Num size26 = num(env[1], "cell_size");
      if (size26.is_float) out.put_double(OPGEN_T_FLOAT, size26.f); else { out.put(OPGEN_T_INT); out.put(size26.i); } }
    { Num size27 = num(env[2], "input_size");
      if (size27.is_float) out.put_double(OPGEN_T_FLOAT, size27.f); else { out.put(OPGEN_T_INT); out.put(size27.i); } }
    out.put(OPGEN_T_BOOL); out.put(0);
    out.put(OPGEN_T_BOOL); out.put(0);
    { Num size28 = integer(0LL);
      if (size28.is_float) out.put_double(OPGEN_T_FLOAT, size28.f); else { out.put(OPGEN_T_INT); out.put(size28.i); } }
    { Num size29 = integer(0LL);
      if (size29.is_float) out.put_double(OPGEN_T_FLOAT, size29.f); else { out.put(OPGEN_T_INT); out.put(size29.i); } }
    { Num size30 = integer(0LL);
      if (size30.is_float) out.put_double(OPGEN_T_FLOAT, size30.f); else { out.put(OPGEN_T_INT); out.put(size30.i); } }
    { Num size31 = integer(0LL);
      if (size31.is_float) out.put_double(OPGEN_T_FLOAT, size31.f); else { out.put(OPGEN_T_INT); out.put(size31.i); } }
    { Num size32 = integer(1LL);
      if (size32.is_float) out.put_double(OPGEN_T_FLOAT, size32.f); else { out.put(OPGEN_T_INT); out.put(size32.i); } }
    { Num size33 = integer(0LL);
      if (size33.is_float) out.put_double(OPGEN_T_FLOAT, size33.f); else { out.put(OPGEN_T_INT); out.put(size33.i); } }
    { Num size34 = integer(0LL);
      if (size34.is_float) out.put_double(OPGEN_T_FLOAT, size34.f); else { out.put(OPGEN_T_INT); out.put(size34.i); } }
    { Num size35 = integer(0LL);
      if (size35.is_float) out.put_double(OPGEN_T_FLOAT, size35.f); else { out.put(OPGEN_T_INT); out.put(size35.i); } }
  }
  if (true) {
    out.put(OPGEN_STEP_GEMM); out.put(7); out.put(8); out.put(9);
    { Num size36 = num(env[0], "batch_size");
      if (size36.is_float) out.put_double(OPGEN_T_FLOAT, size36.f); else { out.put(OPGEN_T_INT); out.put(size36.i); } }
    { Num size37 = num(env[1], "cell_size");
      if (size37.is_float) out.put_double(OPGEN_T_FLOAT, size37.f); else { out.put(OPGEN_T_INT); out.put(size37.i); } }
    { Num size38 = num(env[1], "cell_size");
      if (size38.is_float) out.put_double(OPGEN_T_FLOAT, size38.f); else { out.put(OPGEN_T_INT); out.put(size38.i); } }
    out.put(OPGEN_T_BOOL); out.put(0);
    out.put(OPGEN_T_BOOL); out.put(0);
    { Num size39 = integer(1LL);
      if (size39.is_float) out.put_double(OPGEN_T_FLOAT, size39.f); else { out.put(OPGEN_T_INT); out.put(size39.i); } }
    { Num size40 = integer(0LL);
      if (size40.is_float) out.put_double(OPGEN_T_FLOAT, size40.f); else { out.put(OPGEN_T_INT); out.put(size40.i); } }
    { Num size41 = mul(num(env[2], "input_size"), num(env[1], "cell_size"));
      if (size41.is_float) out.put_double(OPGEN_T_FLOAT, size41.f); else { out.put(OPGEN_T_INT); out.put(size41.i); } }
    { Num size42 = integer(0LL);
      if (size42.is_float) out.put_double(OPGEN_T_FLOAT, size42.f); else { out.put(OPGEN_T_INT); out.put(size42.i); } }
    { Num size43 = integer(1LL);
      if (size43.is_float) out.put_double(OPGEN_T_FLOAT, size43.f); else { out.put(OPGEN_T_INT); out.put(size43.i); } }
    { Num size44 = integer(0LL);
      if (size44.is_float) out.put_double(OPGEN_T_FLOAT, size44.f); else { out.put(OPGEN_T_INT); out.put(size44.i); } }
    { Num size45 = integer(0LL);
      if (size45.is_float) out.put_double(OPGEN_T_FLOAT, size45.f); else { out.put(OPGEN_T_INT); out.put(size45.i); } }
    { Num size46 = integer(0LL);
      if (size46.is_float) out.put_double(OPGEN_T_FLOAT, size46.f); else { out.put(OPGEN_T_INT); out.put(size46.i); } }
  }
  if (true) {
    int64_t sym47 = -1;
    if (sym47 < 0 && env[3].kind == OPGEN_V_STR && env[3].i == 1) sym47 = 1;
    if (sym47 < 0 && env[3].kind == OPGEN_V_STR && env[3].i == 0) sym47 = 0;
    if (sym47 < 0) fail(OPGEN_E_SYMBOL, "kernel 'cell' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym47);
    out.put(1);
    out.put(whole(num(env[4], "cell_blocks"), "a grid size"));
    out.put(1);
    out.put(whole(num(env[5], "cell_threads"), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs48 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(10);
    out.put(OPGEN_T_SLOT); out.put(3);
    out.put(OPGEN_T_SLOT); out.put(6);
    out.put(OPGEN_T_SLOT); out.put(9);
    out.put(OPGEN_T_SLOT); out.put(11);
    scalar(out, OPGEN_T_I64, num(env[0], "batch_size"), "batch_size");
    scalar(out, OPGEN_T_I64, num(env[1], "cell_size"), "cell_size");
    out.words[nargs48] = (out.used - nargs48 - 1) / 2;
  }
  *variant = -1;
}

OPGEN_PLAN_API int opgen_plan_GRUBlockCell(const opgen_plan_value* values, int64_t nvalues, const char* backend, int64_t* words, int64_t capacity, int64_t* used, int64_t* variant, char* err, int64_t errlen) {
  Out out{words, capacity, 0};
  try {
    if (nvalues != 6) fail(OPGEN_E_VALUES, "the plan reads 6 names, the call gave " + std::to_string(nvalues));
    if (backend == nullptr) fail(OPGEN_E_VALUES, "no backend named");
    opgen_plan_value env[6] = {};
    for (int64_t k = 0; k < 6; ++k) env[k] = values[k];
    opgen_plan_walk_GRUBlockCell(env, backend, out, variant);
    *used = out.used;
    return OPGEN_PLAN_OK;
  } catch (const Error& e) {
    *used = out.used;
    return report(Error{e.code, "GRUBlockCell: " + e.message}, err, errlen);
  } catch (...) {  // (std::bad_alloc building a message): an error, never an exception through C
    *used = out.used;
    return report(Error{OPGEN_E_INTERNAL, "GRUBlockCell: the native recorder failed"}, err, errlen);
  }
}

OPGEN_PLAN_API const char* opgen_plan_GRUBlockCell_info(int table, int64_t index) {
  static const char* const t0[] = {"batch_size", "cell_size", "input_size", "_dtype_T", "cell_blocks", "cell_threads"};
  if (table == 0) return index >= 0 && index < 6 ? t0[index] : nullptr;
  static const char* const t1[] = {"float16", "float32"};
  if (table == 1) return index >= 0 && index < 2 ? t1[index] : nullptr;
  static const char* const t2[] = {"GRUBlockCell__cell__float16", "GRUBlockCell__cell__float32", "GRUBlockCell__gates__float16", "GRUBlockCell__gates__float32"};
  if (table == 2) return index >= 0 && index < 4 ? t2[index] : nullptr;
  static const char* const t3[] = {nullptr};
  if (table == 3) return index >= 0 && index < 0 ? t3[index] : nullptr;
  return nullptr;
}

}  // namespace opgen_plan
// GRUBlockCell: its wrapper's _compute in C++ (codegen/drivergen_checks.py)
static void opgen_drive_GRUBlockCell(opgen_call* call, bool run) {
  using namespace opgen_checks;
  static const char OP[] = "GRUBlockCell";
  Frame frame;
  if (call->ninputs != 6 || call->nattrs != 0) raise(OPGEN_ERR_RUNTIME, std::string(OP) + ": the driver takes 6 inputs and 0 attrs, the call gave " + std::to_string(call->ninputs) + " and " + std::to_string(call->nattrs));
  call->noutputs = 4;
  V v_x = input_value(call, 0);
  V v_h_prev = input_value(call, 1);
  V v_w_ru = input_value(call, 2);
  V v_w_c = input_value(call, 3);
  V v_b_ru = input_value(call, 4);
  V v_b_c = input_value(call, 5);
  V v__dtype_T;
  int64_t v_batch_size = 0;
  V v_c;
  int64_t v_cell_blocks = 0;
  int64_t v_cell_size = 0;
  int64_t v_cell_threads = 0;
  int64_t v_cells = 0;
  V v_h;
  int64_t v_input_size = 0;
  V v_r;
  V v_rh;
  V v_ru_bar;
  V v_u;
  Shape v__shape_c;
  Shape v__shape_h;
  Shape v__shape_r;
  Shape v__shape_u;
  v_x = adopt(call, OP, "x", v_x);
  v__dtype_T = check_dtype(OP, "x", v_x, {"float32", "float16"}, "T");
  v_h_prev = adopt(call, OP, "h_prev", v_h_prev);
  check_same_dtype(OP, "h_prev", v_h_prev, v__dtype_T, "T", "x");
  v_w_ru = adopt(call, OP, "w_ru", v_w_ru);
  check_same_dtype(OP, "w_ru", v_w_ru, v__dtype_T, "T", "x");
  v_w_c = adopt(call, OP, "w_c", v_w_c);
  check_same_dtype(OP, "w_c", v_w_c, v__dtype_T, "T", "x");
  v_b_ru = adopt(call, OP, "b_ru", v_b_ru);
  check_same_dtype(OP, "b_ru", v_b_ru, v__dtype_T, "T", "x");
  v_b_c = adopt(call, OP, "b_c", v_b_c);
  check_same_dtype(OP, "b_c", v_b_c, v__dtype_T, "T", "x");
  if ((ndim_i(v_x) != 2LL)) {
    shape_error(OP, "x", {"batch_size", "input_size"}, shape(v_x), {}, "");
  }
  v_batch_size = dim_i(v_x, 0LL);
  v_input_size = dim_i(v_x, 1LL);
  if ((ndim_i(v_h_prev) != 2LL)) {
    shape_error(OP, "h_prev", {"batch_size", "cell_size"}, shape(v_h_prev), {Binding{"batch_size", integer(v_batch_size)}}, "");
  }
  v_cell_size = dim_i(v_h_prev, 1LL);
  if ((dim_i(v_h_prev, 0LL) != v_batch_size)) {
    shape_error(OP, "h_prev", {"batch_size", "cell_size"}, shape(v_h_prev), {Binding{"batch_size", integer(v_batch_size)}, Binding{"cell_size", integer(v_cell_size)}}, "");
  }
  if ((ndim_i(v_w_ru) != 2LL)) {
    shape_error(OP, "w_ru", {"input_size + cell_size", "2*cell_size"}, shape(v_w_ru), {Binding{"cell_size", integer(v_cell_size)}, Binding{"input_size", integer(v_input_size)}, Binding{"input_size + cell_size", integer(add_i(v_input_size, v_cell_size))}, Binding{"2*cell_size", integer(mul_i(2LL, v_cell_size))}}, "");
  }
  if (((dim_i(v_w_ru, 0LL) != add_i(v_input_size, v_cell_size)) || (dim_i(v_w_ru, 1LL) != mul_i(2LL, v_cell_size)))) {
    shape_error(OP, "w_ru", {"input_size + cell_size", "2*cell_size"}, shape(v_w_ru), {Binding{"cell_size", integer(v_cell_size)}, Binding{"input_size", integer(v_input_size)}, Binding{"input_size + cell_size", integer(add_i(v_input_size, v_cell_size))}, Binding{"2*cell_size", integer(mul_i(2LL, v_cell_size))}}, "");
  }
  if ((ndim_i(v_w_c) != 2LL)) {
    shape_error(OP, "w_c", {"input_size + cell_size", "cell_size"}, shape(v_w_c), {Binding{"cell_size", integer(v_cell_size)}, Binding{"input_size", integer(v_input_size)}, Binding{"input_size + cell_size", integer(add_i(v_input_size, v_cell_size))}}, "");
  }
  if (((dim_i(v_w_c, 0LL) != add_i(v_input_size, v_cell_size)) || (dim_i(v_w_c, 1LL) != v_cell_size))) {
    shape_error(OP, "w_c", {"input_size + cell_size", "cell_size"}, shape(v_w_c), {Binding{"cell_size", integer(v_cell_size)}, Binding{"input_size", integer(v_input_size)}, Binding{"input_size + cell_size", integer(add_i(v_input_size, v_cell_size))}}, "");
  }
  if ((ndim_i(v_b_ru) != 1LL)) {
    shape_error(OP, "b_ru", {"2*cell_size"}, shape(v_b_ru), {Binding{"cell_size", integer(v_cell_size)}, Binding{"2*cell_size", integer(mul_i(2LL, v_cell_size))}}, "");
  }
  if ((dim_i(v_b_ru, 0LL) != mul_i(2LL, v_cell_size))) {
    shape_error(OP, "b_ru", {"2*cell_size"}, shape(v_b_ru), {Binding{"cell_size", integer(v_cell_size)}, Binding{"2*cell_size", integer(mul_i(2LL, v_cell_size))}}, "");
  }
  if ((ndim_i(v_b_c) != 1LL)) {
    shape_error(OP, "b_c", {"cell_size"}, shape(v_b_c), {Binding{"cell_size", integer(v_cell_size)}}, "");
  }
  if ((dim_i(v_b_c, 0LL) != v_cell_size)) {
    shape_error(OP, "b_c", {"cell_size"}, shape(v_b_c), {Binding{"cell_size", integer(v_cell_size)}}, "");
  }
  v_cells = mul_i(v_batch_size, v_cell_size);
  v_cell_blocks = ((call->device != OPGEN_DEV_CUDA) ? min_i(neg_i(floordiv_i(neg_i(v_cells), 65536LL)), 1024LL) : min_i(neg_i(floordiv_i(neg_i(v_cells), 1024LL)), 65535LL));
  v_cell_threads = max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_cells), 128LL)))));
  v__shape_r = Shape{v_batch_size, v_cell_size};
  v__shape_u = Shape{v_batch_size, v_cell_size};
  v__shape_c = Shape{v_batch_size, v_cell_size};
  v__shape_h = Shape{v_batch_size, v_cell_size};
  v_r = output(call, OP, "r", 0, run, v__shape_r, v__dtype_T);
  v_u = output(call, OP, "u", 1, run, v__shape_u, v__dtype_T);
  v_c = output(call, OP, "c", 2, run, v__shape_c, v__dtype_T);
  v_h = output(call, OP, "h", 3, run, v__shape_h, v__dtype_T);
  if (!run) return;
  v_ru_bar = scratch(call, frame, Shape{v_batch_size, mul_i(2LL, v_cell_size)}, v__dtype_T);
  v_rh = scratch(call, frame, Shape{v_batch_size, v_cell_size}, v__dtype_T);
  static const char* const strings[] = {"float16", "float32"};
  static const char* const symbols[] = {"GRUBlockCell__cell__float16", "GRUBlockCell__cell__float32", "GRUBlockCell__gates__float16", "GRUBlockCell__gates__float32"};
  opgen_plan_value values[6] = {plan_int(v_batch_size), plan_int(v_cell_size), plan_int(v_input_size), plan_value(frame, v__dtype_T, strings, 2), plan_int(v_cell_blocks), plan_int(v_cell_threads)};
  opgen_native::Slot slots[12] = {plan_slot(frame, v_x), plan_slot(frame, v_w_ru), plan_slot(frame, v_ru_bar), plan_slot(frame, v_h_prev), plan_slot(frame, v_b_ru), plan_slot(frame, v_r), plan_slot(frame, v_u), plan_slot(frame, v_rh), plan_slot(frame, v_w_c), plan_slot(frame, v_c), plan_slot(frame, v_b_c), plan_slot(frame, v_h)};
  int rc = opgen_native::run_plan(call, opgen_native::PlanCall{OP, opgen_plan::opgen_plan_GRUBlockCell, symbols, 4, values, 6, slots, 12, frame.value_checks.data(), (int64_t)frame.value_checks.size()});
  if (rc != OPGEN_OK) raise(rc, call->err);
}

OPGEN_DRIVER_API int opgen_shapes_GRUBlockCell(opgen_call* call) {
  return opgen_checks::guarded(call, "GRUBlockCell", [&] { opgen_drive_GRUBlockCell(call, false); });
}

OPGEN_DRIVER_API int opgen_call_GRUBlockCell(opgen_call* call) {
  return opgen_checks::guarded(call, "GRUBlockCell", [&] { opgen_drive_GRUBlockCell(call, true); });
}
