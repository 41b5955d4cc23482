// generated from specs/nn/fused_batch_norm_v3.yaml by opgen — do not edit (opgen 0.1.0)
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
// FusedBatchNormV3: its plan as codegen/runtime/plan.py records it (codegen/drivergen.py)
static void opgen_plan_walk_FusedBatchNormV3(opgen_plan_value* env, const char* backend, Out& out, int64_t* variant) {
  (void)backend;
  if (((env[7].kind == OPGEN_V_INT || env[7].kind == OPGEN_V_FLOAT) && equal(num(env[7], "is_training"), integer(1))) && (equal(num(env[8], "chunk"), integer(0LL)))) {
    int64_t sym1 = -1;
    if (sym1 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym1 = 10;
    if (sym1 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym1 = 9;
    if (sym1 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym1 = 11;
    if (sym1 < 0) fail(OPGEN_E_SYMBOL, "kernel 'stats_partials' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym1);
    out.put(2);
    out.put(whole(num(env[1], "cblocks"), "a grid size"));
    out.put(whole(num(env[2], "splits"), "a grid size"));
    out.put(1);
    out.put(whole(num(env[3], "reduce_threads"), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs2 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(0);
    out.put(OPGEN_T_SLOT); out.put(1);
    scalar(out, OPGEN_T_I64, num(env[4], "m"), "m");
    scalar(out, OPGEN_T_I64, num(env[5], "C"), "C");
    scalar(out, OPGEN_T_I64, num(env[6], "inner"), "inner");
    scalar(out, OPGEN_T_I64, num(env[2], "splits"), "splits");
    out.words[nargs2] = (out.used - nargs2 - 1) / 2;
  }
  if (((env[7].kind == OPGEN_V_INT || env[7].kind == OPGEN_V_FLOAT) && equal(num(env[7], "is_training"), integer(1))) && (compare(num(env[8], "chunk"), integer(0LL)) > 0)) {
    int64_t sym3 = -1;
    if (sym3 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym3 = 13;
    if (sym3 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym3 = 12;
    if (sym3 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym3 = 14;
    if (sym3 < 0) fail(OPGEN_E_SYMBOL, "kernel 'stats_partials_sliced' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym3);
    out.put(2);
    out.put(whole(num(env[1], "cblocks"), "a grid size"));
    out.put(whole(num(env[2], "splits"), "a grid size"));
    out.put(1);
    out.put(whole(num(env[3], "reduce_threads"), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs4 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(0);
    out.put(OPGEN_T_SLOT); out.put(1);
    scalar(out, OPGEN_T_I64, num(env[4], "m"), "m");
    scalar(out, OPGEN_T_I64, num(env[5], "C"), "C");
    scalar(out, OPGEN_T_I64, num(env[6], "inner"), "inner");
    scalar(out, OPGEN_T_I64, num(env[2], "splits"), "splits");
    out.words[nargs4] = (out.used - nargs4 - 1) / 2;
  }
  if (((env[7].kind == OPGEN_V_INT || env[7].kind == OPGEN_V_FLOAT) && equal(num(env[7], "is_training"), integer(1)))) {
    int64_t sym5 = -1;
    if (sym5 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym5 = 7;
    if (sym5 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym5 = 6;
    if (sym5 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym5 = 8;
    if (sym5 < 0) fail(OPGEN_E_SYMBOL, "kernel 'stats_finalize' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym5);
    out.put(1);
    out.put(whole(ceildiv(num(env[5], "C"), integer(256LL)), "a grid size"));
    out.put(1);
    out.put(whole(num(env[9], "channel_threads"), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs6 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(0);
    out.put(OPGEN_T_SLOT); out.put(1);
    out.put(OPGEN_T_SLOT); out.put(2);
    out.put(OPGEN_T_SLOT); out.put(3);
    out.put(OPGEN_T_SLOT); out.put(4);
    out.put(OPGEN_T_SLOT); out.put(5);
    out.put(OPGEN_T_SLOT); out.put(6);
    out.put(OPGEN_T_SLOT); out.put(7);
    out.put(OPGEN_T_SLOT); out.put(8);
    out.put(OPGEN_T_SLOT); out.put(9);
    out.put(OPGEN_T_SLOT); out.put(10);
    scalar(out, OPGEN_T_I64, num(env[4], "m"), "m");
    scalar(out, OPGEN_T_I64, num(env[5], "C"), "C");
    scalar(out, OPGEN_T_I64, num(env[6], "inner"), "inner");
    scalar(out, OPGEN_T_I64, num(env[2], "splits"), "splits");
    scalar(out, OPGEN_T_F32, num(env[10], "epsilon"), "epsilon");
    scalar(out, OPGEN_T_F32, num(env[11], "exponential_avg_factor"), "exponential_avg_factor");
    out.words[nargs6] = (out.used - nargs6 - 1) / 2;
  }
  if (((env[7].kind == OPGEN_V_INT || env[7].kind == OPGEN_V_FLOAT) && equal(num(env[7], "is_training"), integer(0)))) {
    int64_t sym7 = -1;
    if (sym7 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym7 = 1;
    if (sym7 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym7 = 0;
    if (sym7 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym7 = 2;
    if (sym7 < 0) fail(OPGEN_E_SYMBOL, "kernel 'inference_stats' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym7);
    out.put(1);
    out.put(whole(ceildiv(num(env[5], "C"), integer(256LL)), "a grid size"));
    out.put(1);
    out.put(whole(num(env[9], "channel_threads"), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs8 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(2);
    out.put(OPGEN_T_SLOT); out.put(3);
    out.put(OPGEN_T_SLOT); out.put(4);
    out.put(OPGEN_T_SLOT); out.put(5);
    out.put(OPGEN_T_SLOT); out.put(6);
    out.put(OPGEN_T_SLOT); out.put(7);
    out.put(OPGEN_T_SLOT); out.put(8);
    out.put(OPGEN_T_SLOT); out.put(9);
    out.put(OPGEN_T_SLOT); out.put(10);
    scalar(out, OPGEN_T_I64, num(env[5], "C"), "C");
    scalar(out, OPGEN_T_F32, num(env[10], "epsilon"), "epsilon");
    out.words[nargs8] = (out.used - nargs8 - 1) / 2;
  }
  if (true) {
    int64_t sym9 = -1;
    if (sym9 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym9 = 4;
    if (sym9 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym9 = 3;
    if (sym9 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym9 = 5;
    if (sym9 < 0) fail(OPGEN_E_SYMBOL, "kernel 'normalize' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym9);
    out.put(1);
    out.put(whole(num(env[12], "elementwise_blocks"), "a grid size"));
    out.put(1);
    out.put(whole(num(env[13], "elementwise_threads"), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs10 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(0);
    out.put(OPGEN_T_SLOT); out.put(10);
    out.put(OPGEN_T_SLOT); out.put(11);
    scalar(out, OPGEN_T_I64, num(env[14], "total"), "total");
    scalar(out, OPGEN_T_I64, num(env[5], "C"), "C");
    scalar(out, OPGEN_T_I64, num(env[6], "inner"), "inner");
    scalar(out, OPGEN_T_I64, num(env[8], "chunk"), "chunk");
    out.words[nargs10] = (out.used - nargs10 - 1) / 2;
  }
  *variant = -1;
}

OPGEN_PLAN_API int opgen_plan_FusedBatchNormV3(const opgen_plan_value* values, int64_t nvalues, const char* backend, int64_t* words, int64_t capacity, int64_t* used, int64_t* variant, char* err, int64_t errlen) {
  Out out{words, capacity, 0};
  try {
    if (nvalues != 15) fail(OPGEN_E_VALUES, "the plan reads 15 names, the call gave " + std::to_string(nvalues));
    if (backend == nullptr) fail(OPGEN_E_VALUES, "no backend named");
    opgen_plan_value env[15] = {};
    for (int64_t k = 0; k < 15; ++k) env[k] = values[k];
    opgen_plan_walk_FusedBatchNormV3(env, backend, out, variant);
    *used = out.used;
    return OPGEN_PLAN_OK;
  } catch (const Error& e) {
    *used = out.used;
    return report(Error{e.code, "FusedBatchNormV3: " + e.message}, err, errlen);
  } catch (...) {  // (std::bad_alloc building a message): an error, never an exception through C
    *used = out.used;
    return report(Error{OPGEN_E_INTERNAL, "FusedBatchNormV3: the native recorder failed"}, err, errlen);
  }
}

OPGEN_PLAN_API const char* opgen_plan_FusedBatchNormV3_info(int table, int64_t index) {
  static const char* const t0[] = {"_dtype_T", "cblocks", "splits", "reduce_threads", "m", "C", "inner", "is_training", "chunk", "channel_threads", "epsilon", "exponential_avg_factor", "elementwise_blocks", "elementwise_threads", "total"};
  if (table == 0) return index >= 0 && index < 15 ? t0[index] : nullptr;
  static const char* const t1[] = {"bfloat16", "float16", "float32"};
  if (table == 1) return index >= 0 && index < 3 ? t1[index] : nullptr;
  static const char* const t2[] = {"FusedBatchNormV3__inference_stats__bfloat16", "FusedBatchNormV3__inference_stats__float16", "FusedBatchNormV3__inference_stats__float32", "FusedBatchNormV3__normalize__bfloat16", "FusedBatchNormV3__normalize__float16", "FusedBatchNormV3__normalize__float32", "FusedBatchNormV3__stats_finalize__bfloat16", "FusedBatchNormV3__stats_finalize__float16", "FusedBatchNormV3__stats_finalize__float32", "FusedBatchNormV3__stats_partials__bfloat16", "FusedBatchNormV3__stats_partials__float16", "FusedBatchNormV3__stats_partials__float32", "FusedBatchNormV3__stats_partials_sliced__bfloat16", "FusedBatchNormV3__stats_partials_sliced__float16", "FusedBatchNormV3__stats_partials_sliced__float32"};
  if (table == 2) return index >= 0 && index < 15 ? t2[index] : nullptr;
  static const char* const t3[] = {nullptr};
  if (table == 3) return index >= 0 && index < 0 ? t3[index] : nullptr;
  return nullptr;
}

}  // namespace opgen_plan
// FusedBatchNormV3: its wrapper's _compute in C++ (codegen/drivergen_checks.py)
static void opgen_drive_FusedBatchNormV3(opgen_call* call, bool run) {
  using namespace opgen_checks;
  static const char OP[] = "FusedBatchNormV3";
  Frame frame;
  if (call->ninputs != 5 || call->nattrs != 4) raise(OPGEN_ERR_RUNTIME, std::string(OP) + ": the driver takes 5 inputs and 4 attrs, the call gave " + std::to_string(call->ninputs) + " and " + std::to_string(call->nattrs));
  call->noutputs = 6;
  V v_x = input_value(call, 0);
  V v_scale = input_value(call, 1);
  V v_offset = input_value(call, 2);
  V v_mean = input_value(call, 3);
  V v_variance = input_value(call, 4);
  V v_epsilon = attr_value(call->attrs[0]);
  V v_exponential_avg_factor = attr_value(call->attrs[1]);
  V v_data_format = attr_value(call->attrs[2]);
  V v_is_training = attr_value(call->attrs[3]);
  int64_t v_C = 0;
  int64_t v_D = 0;
  int64_t v_H = 0;
  int64_t v_N = 0;
  int64_t v_W = 0;
  V v__dtype_T;
  V v__dtype_U;
  V v_batch_mean;
  V v_batch_variance;
  int64_t v_cblocks = 0;
  int64_t v_channel_threads = 0;
  int64_t v_chunk = 0;
  V v_coeffs;
  int64_t v_cpu_splits = 0;
  int64_t v_elementwise_blocks = 0;
  int64_t v_elementwise_threads = 0;
  int64_t v_gpu_splits = 0;
  int64_t v_inner = 0;
  int64_t v_m = 0;
  int64_t v_outer = 0;
  V v_partials;
  int64_t v_reduce_threads = 0;
  V v_reserve_space_1;
  V v_reserve_space_2;
  V v_reserve_space_3;
  int64_t v_splits = 0;
  int64_t v_total = 0;
  V v_y;
  Shape v__shape_batch_mean;
  Shape v__shape_batch_variance;
  Shape v__shape_reserve_space_1;
  Shape v__shape_reserve_space_2;
  Shape v__shape_reserve_space_3;
  Shape v__shape_y;
  v_epsilon = check_float(OP, "epsilon", v_epsilon, Bound{true, true, 0LL, 0.0, "0"}, no_bound(), false, false);
  v_exponential_avg_factor = check_float(OP, "exponential_avg_factor", v_exponential_avg_factor, Bound{true, true, 0LL, 0.0, "0"}, Bound{true, true, 1LL, 0.0, "1"}, false, false);
  v_data_format = check_enum(OP, "data_format", v_data_format, {lit("NHWC"), lit("NCHW"), lit("NDHWC"), lit("NCDHW")});
  v_is_training = check_bool(OP, "is_training", v_is_training);
  v_x = adopt(call, OP, "x", v_x);
  v__dtype_T = check_dtype(OP, "x", v_x, {"float16", "bfloat16", "float32"}, "T");
  v_scale = adopt(call, OP, "scale", v_scale);
  v__dtype_U = check_dtype(OP, "scale", v_scale, {"float32"}, "U");
  v_offset = adopt(call, OP, "offset", v_offset);
  check_same_dtype(OP, "offset", v_offset, v__dtype_U, "U", "scale");
  v_mean = adopt(call, OP, "mean", v_mean);
  check_same_dtype(OP, "mean", v_mean, v__dtype_U, "U", "scale");
  v_variance = adopt(call, OP, "variance", v_variance);
  check_same_dtype(OP, "variance", v_variance, v__dtype_U, "U", "scale");
  if (equal(v_data_format, lit("NHWC"))) {
    if ((ndim_i(v_x) != 4LL)) {
      shape_error(OP, "x", {"N", "H", "W", "C"}, shape(v_x), {}, "data_format NHWC");
    }
    v_N = dim_i(v_x, 0LL);
    v_H = dim_i(v_x, 1LL);
    v_W = dim_i(v_x, 2LL);
    v_C = dim_i(v_x, 3LL);
    if ((ndim_i(v_scale) != 1LL)) {
      shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", integer(v_C)}}, "data_format NHWC");
    }
    if ((dim_i(v_scale, 0LL) != v_C)) {
      shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", integer(v_C)}}, "data_format NHWC");
    }
    if ((ndim_i(v_offset) != 1LL)) {
      shape_error(OP, "offset", {"C"}, shape(v_offset), {Binding{"C", integer(v_C)}}, "data_format NHWC");
    }
    if ((dim_i(v_offset, 0LL) != v_C)) {
      shape_error(OP, "offset", {"C"}, shape(v_offset), {Binding{"C", integer(v_C)}}, "data_format NHWC");
    }
    if ((ndim_i(v_mean) != 1LL)) {
      shape_error(OP, "mean", {"C"}, shape(v_mean), {Binding{"C", integer(v_C)}}, "data_format NHWC");
    }
    if ((dim_i(v_mean, 0LL) != v_C)) {
      shape_error(OP, "mean", {"C"}, shape(v_mean), {Binding{"C", integer(v_C)}}, "data_format NHWC");
    }
    if ((ndim_i(v_variance) != 1LL)) {
      shape_error(OP, "variance", {"C"}, shape(v_variance), {Binding{"C", integer(v_C)}}, "data_format NHWC");
    }
    if ((dim_i(v_variance, 0LL) != v_C)) {
      shape_error(OP, "variance", {"C"}, shape(v_variance), {Binding{"C", integer(v_C)}}, "data_format NHWC");
    }
    v_outer = mul_i(mul_i(v_N, v_H), v_W);
    v_inner = 1LL;
    v_total = mul_i(mul_i(v_outer, v_C), v_inner);
    v_m = mul_i(v_outer, v_inner);
    v_cblocks = neg_i(floordiv_i(neg_i(v_C), 32LL));
    v_reduce_threads = ((call->device != OPGEN_DEV_CUDA) ? 32LL : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_m), 32LL))))));
    v_channel_threads = max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_C), 32LL)))));
    v_gpu_splits = max_i(1LL, min_i(neg_i(floordiv_i(neg_i(v_m), 1024LL)), 512LL));
    v_cpu_splits = max_i(1LL, min_i(neg_i(floordiv_i(neg_i(16LL), max_i(1LL, v_cblocks))), neg_i(floordiv_i(neg_i(v_m), 4096LL))));
    v_splits = ((call->device != OPGEN_DEV_CUDA) ? v_cpu_splits : v_gpu_splits);
    v_chunk = ((call->device != OPGEN_DEV_CUDA) ? 4096LL : 0LL);
    v_elementwise_threads = ((call->device != OPGEN_DEV_CUDA) ? max_i(32LL, min_i(64LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_total), mul_i(32LL, 4096LL)))))) : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_total), 128LL))))));
    v_elementwise_blocks = ((call->device != OPGEN_DEV_CUDA) ? max_i(1LL, neg_i(floordiv_i(neg_i(v_total), mul_i(4096LL, v_elementwise_threads)))) : min_i(neg_i(floordiv_i(neg_i(v_total), 1024LL)), 1024LL));
    v__shape_y = Shape{v_N, v_H, v_W, v_C};
    v__shape_batch_mean = Shape{v_C};
    v__shape_batch_variance = Shape{v_C};
    v__shape_reserve_space_1 = Shape{v_C};
    v__shape_reserve_space_2 = Shape{v_C};
    v__shape_reserve_space_3 = Shape{0LL};
  } else {
    if (equal(v_data_format, lit("NCHW"))) {
      if ((ndim_i(v_x) != 4LL)) {
        shape_error(OP, "x", {"N", "C", "H", "W"}, shape(v_x), {}, "data_format NCHW");
      }
      v_N = dim_i(v_x, 0LL);
      v_C = dim_i(v_x, 1LL);
      v_H = dim_i(v_x, 2LL);
      v_W = dim_i(v_x, 3LL);
      if ((ndim_i(v_scale) != 1LL)) {
        shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", integer(v_C)}}, "data_format NCHW");
      }
      if ((dim_i(v_scale, 0LL) != v_C)) {
        shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", integer(v_C)}}, "data_format NCHW");
      }
      if ((ndim_i(v_offset) != 1LL)) {
        shape_error(OP, "offset", {"C"}, shape(v_offset), {Binding{"C", integer(v_C)}}, "data_format NCHW");
      }
      if ((dim_i(v_offset, 0LL) != v_C)) {
        shape_error(OP, "offset", {"C"}, shape(v_offset), {Binding{"C", integer(v_C)}}, "data_format NCHW");
      }
      if ((ndim_i(v_mean) != 1LL)) {
        shape_error(OP, "mean", {"C"}, shape(v_mean), {Binding{"C", integer(v_C)}}, "data_format NCHW");
      }
      if ((dim_i(v_mean, 0LL) != v_C)) {
        shape_error(OP, "mean", {"C"}, shape(v_mean), {Binding{"C", integer(v_C)}}, "data_format NCHW");
      }
      if ((ndim_i(v_variance) != 1LL)) {
        shape_error(OP, "variance", {"C"}, shape(v_variance), {Binding{"C", integer(v_C)}}, "data_format NCHW");
      }
      if ((dim_i(v_variance, 0LL) != v_C)) {
        shape_error(OP, "variance", {"C"}, shape(v_variance), {Binding{"C", integer(v_C)}}, "data_format NCHW");
      }
      v_outer = v_N;
      v_inner = mul_i(v_H, v_W);
      v_total = mul_i(mul_i(v_outer, v_C), v_inner);
      v_m = mul_i(v_outer, v_inner);
      v_cblocks = v_C;
      v_reduce_threads = ((call->device != OPGEN_DEV_CUDA) ? 32LL : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_m), 32LL))))));
      v_channel_threads = max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_C), 32LL)))));
      v_gpu_splits = max_i(1LL, min_i(neg_i(floordiv_i(neg_i(v_m), 32768LL)), 512LL));
      v_cpu_splits = max_i(1LL, min_i(neg_i(floordiv_i(neg_i(16LL), max_i(1LL, v_cblocks))), neg_i(floordiv_i(neg_i(v_m), 4096LL))));
      v_splits = ((call->device != OPGEN_DEV_CUDA) ? v_cpu_splits : v_gpu_splits);
      v_chunk = ((call->device != OPGEN_DEV_CUDA) ? 4096LL : 0LL);
      v_elementwise_threads = ((call->device != OPGEN_DEV_CUDA) ? max_i(32LL, min_i(64LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_total), mul_i(32LL, 4096LL)))))) : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_total), 128LL))))));
      v_elementwise_blocks = ((call->device != OPGEN_DEV_CUDA) ? max_i(1LL, neg_i(floordiv_i(neg_i(v_total), mul_i(4096LL, v_elementwise_threads)))) : min_i(neg_i(floordiv_i(neg_i(v_total), 1024LL)), 1024LL));
      v__shape_y = Shape{v_N, v_C, v_H, v_W};
      v__shape_batch_mean = Shape{v_C};
      v__shape_batch_variance = Shape{v_C};
      v__shape_reserve_space_1 = Shape{v_C};
      v__shape_reserve_space_2 = Shape{v_C};
      v__shape_reserve_space_3 = Shape{0LL};
    } else {
      if (equal(v_data_format, lit("NDHWC"))) {
        if ((ndim_i(v_x) != 5LL)) {
          shape_error(OP, "x", {"N", "D", "H", "W", "C"}, shape(v_x), {}, "data_format NDHWC");
        }
        v_N = dim_i(v_x, 0LL);
        v_D = dim_i(v_x, 1LL);
        v_H = dim_i(v_x, 2LL);
        v_W = dim_i(v_x, 3LL);
        v_C = dim_i(v_x, 4LL);
        if ((ndim_i(v_scale) != 1LL)) {
          shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", integer(v_C)}}, "data_format NDHWC");
        }
        if ((dim_i(v_scale, 0LL) != v_C)) {
          shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", integer(v_C)}}, "data_format NDHWC");
        }
        if ((ndim_i(v_offset) != 1LL)) {
          shape_error(OP, "offset", {"C"}, shape(v_offset), {Binding{"C", integer(v_C)}}, "data_format NDHWC");
        }
        if ((dim_i(v_offset, 0LL) != v_C)) {
          shape_error(OP, "offset", {"C"}, shape(v_offset), {Binding{"C", integer(v_C)}}, "data_format NDHWC");
        }
        if ((ndim_i(v_mean) != 1LL)) {
          shape_error(OP, "mean", {"C"}, shape(v_mean), {Binding{"C", integer(v_C)}}, "data_format NDHWC");
        }
        if ((dim_i(v_mean, 0LL) != v_C)) {
          shape_error(OP, "mean", {"C"}, shape(v_mean), {Binding{"C", integer(v_C)}}, "data_format NDHWC");
        }
        if ((ndim_i(v_variance) != 1LL)) {
          shape_error(OP, "variance", {"C"}, shape(v_variance), {Binding{"C", integer(v_C)}}, "data_format NDHWC");
        }
        if ((dim_i(v_variance, 0LL) != v_C)) {
          shape_error(OP, "variance", {"C"}, shape(v_variance), {Binding{"C", integer(v_C)}}, "data_format NDHWC");
        }
        v_outer = mul_i(mul_i(mul_i(v_N, v_D), v_H), v_W);
        v_inner = 1LL;
        v_total = mul_i(mul_i(v_outer, v_C), v_inner);
        v_m = mul_i(v_outer, v_inner);
        v_cblocks = neg_i(floordiv_i(neg_i(v_C), 32LL));
        v_reduce_threads = ((call->device != OPGEN_DEV_CUDA) ? 32LL : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_m), 32LL))))));
        v_channel_threads = max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_C), 32LL)))));
        v_gpu_splits = max_i(1LL, min_i(neg_i(floordiv_i(neg_i(v_m), 1024LL)), 512LL));
        v_cpu_splits = max_i(1LL, min_i(neg_i(floordiv_i(neg_i(16LL), max_i(1LL, v_cblocks))), neg_i(floordiv_i(neg_i(v_m), 4096LL))));
        v_splits = ((call->device != OPGEN_DEV_CUDA) ? v_cpu_splits : v_gpu_splits);
        v_chunk = ((call->device != OPGEN_DEV_CUDA) ? 4096LL : 0LL);
        v_elementwise_threads = ((call->device != OPGEN_DEV_CUDA) ? max_i(32LL, min_i(64LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_total), mul_i(32LL, 4096LL)))))) : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_total), 128LL))))));
        v_elementwise_blocks = ((call->device != OPGEN_DEV_CUDA) ? max_i(1LL, neg_i(floordiv_i(neg_i(v_total), mul_i(4096LL, v_elementwise_threads)))) : min_i(neg_i(floordiv_i(neg_i(v_total), 1024LL)), 1024LL));
        v__shape_y = Shape{v_N, v_D, v_H, v_W, v_C};
        v__shape_batch_mean = Shape{v_C};
        v__shape_batch_variance = Shape{v_C};
        v__shape_reserve_space_1 = Shape{v_C};
        v__shape_reserve_space_2 = Shape{v_C};
        v__shape_reserve_space_3 = Shape{0LL};
      } else {
        if (equal(v_data_format, lit("NCDHW"))) {
          if ((ndim_i(v_x) != 5LL)) {
            shape_error(OP, "x", {"N", "C", "D", "H", "W"}, shape(v_x), {}, "data_format NCDHW");
          }
          v_N = dim_i(v_x, 0LL);
          v_C = dim_i(v_x, 1LL);
          v_D = dim_i(v_x, 2LL);
          v_H = dim_i(v_x, 3LL);
          v_W = dim_i(v_x, 4LL);
          if ((ndim_i(v_scale) != 1LL)) {
            shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", integer(v_C)}}, "data_format NCDHW");
          }
          if ((dim_i(v_scale, 0LL) != v_C)) {
            shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", integer(v_C)}}, "data_format NCDHW");
          }
          if ((ndim_i(v_offset) != 1LL)) {
            shape_error(OP, "offset", {"C"}, shape(v_offset), {Binding{"C", integer(v_C)}}, "data_format NCDHW");
          }
          if ((dim_i(v_offset, 0LL) != v_C)) {
            shape_error(OP, "offset", {"C"}, shape(v_offset), {Binding{"C", integer(v_C)}}, "data_format NCDHW");
          }
          if ((ndim_i(v_mean) != 1LL)) {
            shape_error(OP, "mean", {"C"}, shape(v_mean), {Binding{"C", integer(v_C)}}, "data_format NCDHW");
          }
          if ((dim_i(v_mean, 0LL) != v_C)) {
            shape_error(OP, "mean", {"C"}, shape(v_mean), {Binding{"C", integer(v_C)}}, "data_format NCDHW");
          }
          if ((ndim_i(v_variance) != 1LL)) {
            shape_error(OP, "variance", {"C"}, shape(v_variance), {Binding{"C", integer(v_C)}}, "data_format NCDHW");
          }
          if ((dim_i(v_variance, 0LL) != v_C)) {
            shape_error(OP, "variance", {"C"}, shape(v_variance), {Binding{"C", integer(v_C)}}, "data_format NCDHW");
          }
          v_outer = v_N;
          v_inner = mul_i(mul_i(v_D, v_H), v_W);
          v_total = mul_i(mul_i(v_outer, v_C), v_inner);
          v_m = mul_i(v_outer, v_inner);
          v_cblocks = v_C;
          v_reduce_threads = ((call->device != OPGEN_DEV_CUDA) ? 32LL : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_m), 32LL))))));
          v_channel_threads = max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_C), 32LL)))));
          v_gpu_splits = max_i(1LL, min_i(neg_i(floordiv_i(neg_i(v_m), 32768LL)), 512LL));
          v_cpu_splits = max_i(1LL, min_i(neg_i(floordiv_i(neg_i(16LL), max_i(1LL, v_cblocks))), neg_i(floordiv_i(neg_i(v_m), 4096LL))));
          v_splits = ((call->device != OPGEN_DEV_CUDA) ? v_cpu_splits : v_gpu_splits);
          v_chunk = ((call->device != OPGEN_DEV_CUDA) ? 4096LL : 0LL);
          v_elementwise_threads = ((call->device != OPGEN_DEV_CUDA) ? max_i(32LL, min_i(64LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_total), mul_i(32LL, 4096LL)))))) : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_total), 128LL))))));
          v_elementwise_blocks = ((call->device != OPGEN_DEV_CUDA) ? max_i(1LL, neg_i(floordiv_i(neg_i(v_total), mul_i(4096LL, v_elementwise_threads)))) : min_i(neg_i(floordiv_i(neg_i(v_total), 1024LL)), 1024LL));
          v__shape_y = Shape{v_N, v_C, v_D, v_H, v_W};
          v__shape_batch_mean = Shape{v_C};
          v__shape_batch_variance = Shape{v_C};
          v__shape_reserve_space_1 = Shape{v_C};
          v__shape_reserve_space_2 = Shape{v_C};
          v__shape_reserve_space_3 = Shape{0LL};
        } else {
          raise(OPGEN_ERR_RUNTIME, std::string(OP) + ": no shape section for this value");
        }
      }
    }
  }
  v_y = output(call, OP, "y", 0, run, v__shape_y, v__dtype_T);
  v_batch_mean = output(call, OP, "batch_mean", 1, run, v__shape_batch_mean, v__dtype_U);
  v_batch_variance = output(call, OP, "batch_variance", 2, run, v__shape_batch_variance, v__dtype_U);
  v_reserve_space_1 = output(call, OP, "reserve_space_1", 3, run, v__shape_reserve_space_1, v__dtype_U);
  v_reserve_space_2 = output(call, OP, "reserve_space_2", 4, run, v__shape_reserve_space_2, v__dtype_U);
  v_reserve_space_3 = output(call, OP, "reserve_space_3", 5, run, v__shape_reserve_space_3, v__dtype_U);
  if (!run) return;
  v_partials = scratch(call, frame, Shape{v_splits, v_C, 3LL}, lit("float32"));
  v_coeffs = scratch(call, frame, Shape{v_C, 2LL}, lit("float32"));
  static const char* const strings[] = {"bfloat16", "float16", "float32"};
  static const char* const symbols[] = {"FusedBatchNormV3__inference_stats__bfloat16", "FusedBatchNormV3__inference_stats__float16", "FusedBatchNormV3__inference_stats__float32", "FusedBatchNormV3__normalize__bfloat16", "FusedBatchNormV3__normalize__float16", "FusedBatchNormV3__normalize__float32", "FusedBatchNormV3__stats_finalize__bfloat16", "FusedBatchNormV3__stats_finalize__float16", "FusedBatchNormV3__stats_finalize__float32", "FusedBatchNormV3__stats_partials__bfloat16", "FusedBatchNormV3__stats_partials__float16", "FusedBatchNormV3__stats_partials__float32", "FusedBatchNormV3__stats_partials_sliced__bfloat16", "FusedBatchNormV3__stats_partials_sliced__float16", "FusedBatchNormV3__stats_partials_sliced__float32"};
  opgen_plan_value values[15] = {plan_value(frame, v__dtype_T, strings, 3), plan_int(v_cblocks), plan_int(v_splits), plan_int(v_reduce_threads), plan_int(v_m), plan_int(v_C), plan_int(v_inner), plan_value(frame, v_is_training, strings, 3), plan_int(v_chunk), plan_int(v_channel_threads), plan_value(frame, v_epsilon, strings, 3), plan_value(frame, v_exponential_avg_factor, strings, 3), plan_int(v_elementwise_blocks), plan_int(v_elementwise_threads), plan_int(v_total)};
  opgen_native::Slot slots[12] = {plan_slot(frame, v_x), plan_slot(frame, v_partials), plan_slot(frame, v_scale), plan_slot(frame, v_offset), plan_slot(frame, v_mean), plan_slot(frame, v_variance), plan_slot(frame, v_batch_mean), plan_slot(frame, v_batch_variance), plan_slot(frame, v_reserve_space_1), plan_slot(frame, v_reserve_space_2), plan_slot(frame, v_coeffs), plan_slot(frame, v_y)};
  int rc = opgen_native::run_plan(call, opgen_native::PlanCall{OP, opgen_plan::opgen_plan_FusedBatchNormV3, symbols, 15, values, 15, slots, 12, frame.value_checks.data(), (int64_t)frame.value_checks.size()});
  if (rc != OPGEN_OK) raise(rc, call->err);
}

OPGEN_DRIVER_API int opgen_shapes_FusedBatchNormV3(opgen_call* call) {
  return opgen_checks::guarded(call, "FusedBatchNormV3", [&] { opgen_drive_FusedBatchNormV3(call, false); });
}

OPGEN_DRIVER_API int opgen_call_FusedBatchNormV3(opgen_call* call) {
  return opgen_checks::guarded(call, "FusedBatchNormV3", [&] { opgen_drive_FusedBatchNormV3(call, true); });
}
