// generated from specs/norm/layer_norm.yaml by opgen — do not edit (opgen 0.1.0)
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
// LayerNorm: its plan as codegen/runtime/plan.py records it (codegen/drivergen.py)
static void opgen_plan_walk_LayerNorm(opgen_plan_value* env, const char* backend, Out& out, int64_t* variant) {
  (void)backend;
  if (true) {
    int64_t sym1 = -1;
    if (sym1 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym1 = 1;
    if (sym1 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym1 = 0;
    if (sym1 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym1 = 2;
    if (sym1 < 0) fail(OPGEN_E_SYMBOL, "kernel 'layer_norm' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym1);
    out.put(1);
    out.put(whole(num(env[1], "row_blocks"), "a grid size"));
    out.put(1);
    out.put(whole(num(env[2], "row_threads"), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs2 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(0);
    out.put(OPGEN_T_SLOT); out.put(1);
    out.put(OPGEN_T_SLOT); out.put(2);
    out.put(OPGEN_T_SLOT); out.put(3);
    out.put(OPGEN_T_SLOT); out.put(4);
    out.put(OPGEN_T_SLOT); out.put(5);
    scalar(out, OPGEN_T_I64, num(env[3], "rows"), "rows");
    scalar(out, OPGEN_T_I64, num(env[4], "D"), "D");
    scalar(out, OPGEN_T_F32, num(env[5], "epsilon"), "epsilon");
    out.words[nargs2] = (out.used - nargs2 - 1) / 2;
  }
  *variant = -1;
}

OPGEN_PLAN_API int opgen_plan_LayerNorm(const opgen_plan_value* values, int64_t nvalues, const char* backend, int64_t* words, int64_t capacity, int64_t* used, int64_t* variant, char* err, int64_t errlen) {
  Out out{words, capacity, 0};
  try {
    if (nvalues != 6) fail(OPGEN_E_VALUES, "the plan reads 6 names, the call gave " + std::to_string(nvalues));
    if (backend == nullptr) fail(OPGEN_E_VALUES, "no backend named");
    opgen_plan_value env[6] = {};
    for (int64_t k = 0; k < 6; ++k) env[k] = values[k];
    opgen_plan_walk_LayerNorm(env, backend, out, variant);
    *used = out.used;
    return OPGEN_PLAN_OK;
  } catch (const Error& e) {
    *used = out.used;
    return report(Error{e.code, "LayerNorm: " + e.message}, err, errlen);
  } catch (...) {  // (std::bad_alloc building a message): an error, never an exception through C
    *used = out.used;
    return report(Error{OPGEN_E_INTERNAL, "LayerNorm: the native recorder failed"}, err, errlen);
  }
}

OPGEN_PLAN_API const char* opgen_plan_LayerNorm_info(int table, int64_t index) {
  static const char* const t0[] = {"_dtype_T", "row_blocks", "row_threads", "rows", "D", "epsilon"};
  if (table == 0) return index >= 0 && index < 6 ? t0[index] : nullptr;
  static const char* const t1[] = {"bfloat16", "float16", "float32"};
  if (table == 1) return index >= 0 && index < 3 ? t1[index] : nullptr;
  static const char* const t2[] = {"LayerNorm__layer_norm__bfloat16", "LayerNorm__layer_norm__float16", "LayerNorm__layer_norm__float32"};
  if (table == 2) return index >= 0 && index < 3 ? t2[index] : nullptr;
  static const char* const t3[] = {nullptr};
  if (table == 3) return index >= 0 && index < 0 ? t3[index] : nullptr;
  return nullptr;
}

}  // namespace opgen_plan
// LayerNorm: its wrapper's _compute in C++ (codegen/drivergen_checks.py)
static void opgen_drive_LayerNorm(opgen_call* call, bool run) {
  using namespace opgen_checks;
  static const char OP[] = "LayerNorm";
  Frame frame;
  if (call->ninputs != 3 || call->nattrs != 1) raise(OPGEN_ERR_RUNTIME, std::string(OP) + ": the driver takes 3 inputs and 1 attrs, the call gave " + std::to_string(call->ninputs) + " and " + std::to_string(call->nattrs));
  call->noutputs = 3;
  V v_x = input_value(call, 0);
  V v_gamma = input_value(call, 1);
  V v_beta = input_value(call, 2);
  V v_epsilon = attr_value(call->attrs[0]);
  int64_t v_D = 0;
  V v__dtype_S;
  V v__dtype_T;
  V v__group_lead;
  int64_t v_lead = 0;
  V v_mean;
  int64_t v_row_blocks = 0;
  int64_t v_row_threads = 0;
  int64_t v_rows = 0;
  V v_rstd;
  V v_y;
  Shape v__shape_mean;
  Shape v__shape_rstd;
  Shape v__shape_y;
  v_epsilon = check_float(OP, "epsilon", v_epsilon, Bound{true, true, 0LL, 0.0, "0"}, no_bound(), true, false);
  v_x = adopt(call, OP, "x", v_x);
  v__dtype_T = check_dtype(OP, "x", v_x, {"float16", "bfloat16", "float32"}, "T");
  v__dtype_S = accumulator(v__dtype_T);
  if ((v_gamma.kind != K_NONE)) {
    v_gamma = adopt(call, OP, "gamma", v_gamma);
    check_same_dtype(OP, "gamma", v_gamma, v__dtype_T, "T", "x");
  }
  if ((v_beta.kind != K_NONE)) {
    v_beta = adopt(call, OP, "beta", v_beta);
    check_same_dtype(OP, "beta", v_beta, v__dtype_T, "T", "x");
  }
  if ((ndim_i(v_x) < 1LL)) {
    shape_error(OP, "x", {"*lead", "D"}, shape(v_x), {}, "");
  }
  v_D = dim_i(v_x, sub_i(ndim_i(v_x), 1LL));
  v__group_lead = dims_slice(v_x, integer(0LL), integer(sub_i(ndim_i(v_x), 1LL)));
  v_lead = prod(v__group_lead).i;
  if ((v_gamma.kind != K_NONE)) {
    if ((ndim_i(v_gamma) != 1LL)) {
      shape_error(OP, "gamma", {"D"}, shape(v_gamma), {Binding{"D", integer(v_D)}}, "");
    }
    if ((dim_i(v_gamma, 0LL) != v_D)) {
      shape_error(OP, "gamma", {"D"}, shape(v_gamma), {Binding{"D", integer(v_D)}}, "");
    }
  }
  if ((v_beta.kind != K_NONE)) {
    if ((ndim_i(v_beta) != 1LL)) {
      shape_error(OP, "beta", {"D"}, shape(v_beta), {Binding{"D", integer(v_D)}}, "");
    }
    if ((dim_i(v_beta, 0LL) != v_D)) {
      shape_error(OP, "beta", {"D"}, shape(v_beta), {Binding{"D", integer(v_D)}}, "");
    }
  }
  v_rows = v_lead;
  v_row_threads = ((call->device != OPGEN_DEV_CUDA) ? 1LL : max_i(32LL, min_i(512LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_D), 128LL))))));
  v_row_blocks = ((call->device != OPGEN_DEV_CUDA) ? min_i(v_rows, max_i(1LL, min_i(64LL, neg_i(floordiv_i(neg_i(mul_i(v_rows, v_D)), 4096LL))))) : min_i(v_rows, 65536LL));
  v__shape_y = Shape{v__group_lead, integer(v_D)};
  v__shape_mean = Shape{v__group_lead};
  v__shape_rstd = Shape{v__group_lead};
  v_y = output(call, OP, "y", 0, run, v__shape_y, v__dtype_T);
  v_mean = output(call, OP, "mean", 1, run, v__shape_mean, v__dtype_S);
  v_rstd = output(call, OP, "rstd", 2, run, v__shape_rstd, v__dtype_S);
  if (!run) return;
  static const char* const strings[] = {"bfloat16", "float16", "float32"};
  static const char* const symbols[] = {"LayerNorm__layer_norm__bfloat16", "LayerNorm__layer_norm__float16", "LayerNorm__layer_norm__float32"};
  opgen_plan_value values[6] = {plan_value(frame, v__dtype_T, strings, 3), plan_int(v_row_blocks), plan_int(v_row_threads), plan_int(v_rows), plan_int(v_D), plan_value(frame, v_epsilon, strings, 3)};
  opgen_native::Slot slots[6] = {plan_slot(frame, v_x), plan_slot(frame, v_gamma), plan_slot(frame, v_beta), plan_slot(frame, v_y), plan_slot(frame, v_mean), plan_slot(frame, v_rstd)};
  int rc = opgen_native::run_plan(call, opgen_native::PlanCall{OP, opgen_plan::opgen_plan_LayerNorm, symbols, 3, values, 6, slots, 6, frame.value_checks.data(), (int64_t)frame.value_checks.size()});
  if (rc != OPGEN_OK) raise(rc, call->err);
}

OPGEN_DRIVER_API int opgen_shapes_LayerNorm(opgen_call* call) {
  return opgen_checks::guarded(call, "LayerNorm", [&] { opgen_drive_LayerNorm(call, false); });
}

OPGEN_DRIVER_API int opgen_call_LayerNorm(opgen_call* call) {
  return opgen_checks::guarded(call, "LayerNorm", [&] { opgen_drive_LayerNorm(call, true); });
}
