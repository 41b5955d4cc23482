// generated from specs/norm/softmax.yaml by opgen — do not edit (opgen 0.1.0)
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
// Softmax: its plan as codegen/runtime/plan.py records it (codegen/drivergen.py)
static void opgen_plan_walk_Softmax(opgen_plan_value* env, const char* backend, Out& out, int64_t* variant) {
  (void)backend;
  if ((equal(num(env[5], "inner"), integer(1LL)))) {
    int64_t sym1 = -1;
    if (sym1 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym1 = 4;
    if (sym1 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym1 = 3;
    if (sym1 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym1 = 5;
    if (sym1 < 0) fail(OPGEN_E_SYMBOL, "kernel 'softmax_rows' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym1);
    out.put(1);
    out.put(whole(num(env[1], "row_blocks"), "a grid size"));
    out.put(1);
    out.put(whole(num(env[2], "row_threads"), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs2 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(0);
    out.put(OPGEN_T_SLOT); out.put(1);
    scalar(out, OPGEN_T_I64, num(env[3], "rows"), "rows");
    scalar(out, OPGEN_T_I64, num(env[4], "N"), "N");
    out.words[nargs2] = (out.used - nargs2 - 1) / 2;
  }
  if ((compare(num(env[5], "inner"), integer(1LL)) > 0)) {
    int64_t sym3 = -1;
    if (sym3 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym3 = 1;
    if (sym3 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym3 = 0;
    if (sym3 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym3 = 2;
    if (sym3 < 0) fail(OPGEN_E_SYMBOL, "kernel 'softmax_columns' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym3);
    out.put(1);
    out.put(whole(num(env[6], "column_blocks"), "a grid size"));
    out.put(1);
    out.put(whole(num(env[7], "column_threads"), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs4 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(0);
    out.put(OPGEN_T_SLOT); out.put(1);
    scalar(out, OPGEN_T_I64, num(env[8], "columns"), "columns");
    scalar(out, OPGEN_T_I64, num(env[4], "N"), "N");
    scalar(out, OPGEN_T_I64, num(env[5], "inner"), "inner");
    out.words[nargs4] = (out.used - nargs4 - 1) / 2;
  }
  *variant = -1;
}

OPGEN_PLAN_API int opgen_plan_Softmax(const opgen_plan_value* values, int64_t nvalues, const char* backend, int64_t* words, int64_t capacity, int64_t* used, int64_t* variant, char* err, int64_t errlen) {
  Out out{words, capacity, 0};
  try {
    if (nvalues != 9) fail(OPGEN_E_VALUES, "the plan reads 9 names, the call gave " + std::to_string(nvalues));
    if (backend == nullptr) fail(OPGEN_E_VALUES, "no backend named");
    opgen_plan_value env[9] = {};
    for (int64_t k = 0; k < 9; ++k) env[k] = values[k];
    opgen_plan_walk_Softmax(env, backend, out, variant);
    *used = out.used;
    return OPGEN_PLAN_OK;
  } catch (const Error& e) {
    *used = out.used;
    return report(Error{e.code, "Softmax: " + e.message}, err, errlen);
  } catch (...) {  // (std::bad_alloc building a message): an error, never an exception through C
    *used = out.used;
    return report(Error{OPGEN_E_INTERNAL, "Softmax: the native recorder failed"}, err, errlen);
  }
}

OPGEN_PLAN_API const char* opgen_plan_Softmax_info(int table, int64_t index) {
  static const char* const t0[] = {"_dtype_T", "row_blocks", "row_threads", "rows", "N", "inner", "column_blocks", "column_threads", "columns"};
  if (table == 0) return index >= 0 && index < 9 ? t0[index] : nullptr;
  static const char* const t1[] = {"bfloat16", "float16", "float32"};
  if (table == 1) return index >= 0 && index < 3 ? t1[index] : nullptr;
  static const char* const t2[] = {"Softmax__softmax_columns__bfloat16", "Softmax__softmax_columns__float16", "Softmax__softmax_columns__float32", "Softmax__softmax_rows__bfloat16", "Softmax__softmax_rows__float16", "Softmax__softmax_rows__float32"};
  if (table == 2) return index >= 0 && index < 6 ? t2[index] : nullptr;
  static const char* const t3[] = {nullptr};
  if (table == 3) return index >= 0 && index < 0 ? t3[index] : nullptr;
  return nullptr;
}

}  // namespace opgen_plan
// Softmax: its wrapper's _compute in C++ (codegen/drivergen_checks.py)
static void opgen_drive_Softmax(opgen_call* call, bool run) {
  using namespace opgen_checks;
  static const char OP[] = "Softmax";
  Frame frame;
  if (call->ninputs != 1 || call->nattrs != 1) raise(OPGEN_ERR_RUNTIME, std::string(OP) + ": the driver takes 1 inputs and 1 attrs, the call gave " + std::to_string(call->ninputs) + " and " + std::to_string(call->nattrs));
  call->noutputs = 1;
  V v_x = input_value(call, 0);
  V v_axis = attr_value(call->attrs[0]);
  int64_t v_N = 0;
  V v__axis_x;
  V v__dtype_T;
  V v__group_inner;
  V v__group_outer;
  int64_t v_column_blocks = 0;
  int64_t v_column_threads = 0;
  int64_t v_columns = 0;
  int64_t v_inner = 0;
  int64_t v_outer = 0;
  int64_t v_row_blocks = 0;
  int64_t v_row_threads = 0;
  int64_t v_rows = 0;
  V v_y;
  Shape v__shape_y;
  v_axis = check_int(OP, "axis", v_axis, no_bound(), no_bound(), {}, false, false);
  v_x = adopt(call, OP, "x", v_x);
  v__dtype_T = check_dtype(OP, "x", v_x, {"float16", "bfloat16", "float32"}, "T");
  if ((ndim_i(v_x) < 1LL)) {
    shape_error(OP, "x", {"*outer", "N", "*inner"}, shape(v_x), {}, "");
  }
  v__axis_x = normalize_axis(OP, "axis", v_axis, "x", integer(ndim_i(v_x)), 0, 0);
  v_N = dim(v_x, v__axis_x).i;
  v__group_outer = dims_slice(v_x, integer(0LL), v__axis_x);
  v_outer = prod(v__group_outer).i;
  v__group_inner = dims_slice(v_x, add(v__axis_x, integer(1LL)), integer(sub_i(ndim_i(v_x), 0LL)));
  v_inner = prod(v__group_inner).i;
  v_rows = v_outer;
  v_columns = mul_i(v_outer, v_inner);
  v_row_threads = ((call->device != OPGEN_DEV_CUDA) ? 1LL : max_i(32LL, min_i(1024LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_N), 128LL))))));
  v_row_blocks = ((call->device != OPGEN_DEV_CUDA) ? min_i(v_rows, max_i(1LL, min_i(64LL, neg_i(floordiv_i(neg_i(mul_i(v_rows, v_N)), 4096LL))))) : min_i(v_rows, 65536LL));
  v_column_threads = ((call->device != OPGEN_DEV_CUDA) ? 1LL : 256LL);
  v_column_blocks = ((call->device != OPGEN_DEV_CUDA) ? min_i(v_columns, max_i(1LL, min_i(64LL, neg_i(floordiv_i(neg_i(mul_i(v_columns, v_N)), 4096LL))))) : min_i(neg_i(floordiv_i(neg_i(v_columns), 256LL)), 65536LL));
  v__shape_y = Shape{v__group_outer, integer(v_N), v__group_inner};
  v_y = output(call, OP, "y", 0, run, v__shape_y, v__dtype_T);
  if (!run) return;
  static const char* const strings[] = {"bfloat16", "float16", "float32"};
  static const char* const symbols[] = {"Softmax__softmax_columns__bfloat16", "Softmax__softmax_columns__float16", "Softmax__softmax_columns__float32", "Softmax__softmax_rows__bfloat16", "Softmax__softmax_rows__float16", "Softmax__softmax_rows__float32"};
  opgen_plan_value values[9] = {plan_value(frame, v__dtype_T, strings, 3), plan_int(v_row_blocks), plan_int(v_row_threads), plan_int(v_rows), plan_int(v_N), plan_int(v_inner), plan_int(v_column_blocks), plan_int(v_column_threads), plan_int(v_columns)};
  opgen_native::Slot slots[2] = {plan_slot(frame, v_x), plan_slot(frame, v_y)};
  int rc = opgen_native::run_plan(call, opgen_native::PlanCall{OP, opgen_plan::opgen_plan_Softmax, symbols, 6, values, 9, slots, 2, frame.value_checks.data(), (int64_t)frame.value_checks.size()});
  if (rc != OPGEN_OK) raise(rc, call->err);
}

OPGEN_DRIVER_API int opgen_shapes_Softmax(opgen_call* call) {
  return opgen_checks::guarded(call, "Softmax", [&] { opgen_drive_Softmax(call, false); });
}

OPGEN_DRIVER_API int opgen_call_Softmax(opgen_call* call) {
  return opgen_checks::guarded(call, "Softmax", [&] { opgen_drive_Softmax(call, true); });
}
