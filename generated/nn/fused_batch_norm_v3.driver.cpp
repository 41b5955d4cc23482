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
  V v_C;
  V v_D;
  V v_H;
  V v_N;
  V v_W;
  V v__dtype_T;
  V v__dtype_U;
  V v_batch_mean;
  V v_batch_variance;
  V v_cblocks;
  V v_channel_threads;
  V v_chunk;
  V v_coeffs;
  V v_cpu_splits;
  V v_elementwise_blocks;
  V v_elementwise_threads;
  V v_gpu_splits;
  V v_inner;
  V v_m;
  V v_outer;
  V v_partials;
  V v_reduce_threads;
  V v_reserve_space_1;
  V v_reserve_space_2;
  V v_reserve_space_3;
  V v_splits;
  V v_total;
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
  if (truth(boolean(equal(v_data_format, lit("NHWC"))))) {
    if (truth(boolean(!equal(ndim(v_x), integer(4LL))))) {
      shape_error(OP, "x", {"N", "H", "W", "C"}, shape(v_x), {}, "data_format NHWC");
    }
    v_N = dim(v_x, integer(0LL));
    v_H = dim(v_x, integer(1LL));
    v_W = dim(v_x, integer(2LL));
    v_C = dim(v_x, integer(3LL));
    if (truth(boolean(!equal(ndim(v_scale), integer(1LL))))) {
      shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", v_C}}, "data_format NHWC");
    }
    if (truth(boolean(!equal(dim(v_scale, integer(0LL)), v_C)))) {
      shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", v_C}}, "data_format NHWC");
    }
    if (truth(boolean(!equal(ndim(v_offset), integer(1LL))))) {
      shape_error(OP, "offset", {"C"}, shape(v_offset), {Binding{"C", v_C}}, "data_format NHWC");
    }
    if (truth(boolean(!equal(dim(v_offset, integer(0LL)), v_C)))) {
      shape_error(OP, "offset", {"C"}, shape(v_offset), {Binding{"C", v_C}}, "data_format NHWC");
    }
    if (truth(boolean(!equal(ndim(v_mean), integer(1LL))))) {
      shape_error(OP, "mean", {"C"}, shape(v_mean), {Binding{"C", v_C}}, "data_format NHWC");
    }
    if (truth(boolean(!equal(dim(v_mean, integer(0LL)), v_C)))) {
      shape_error(OP, "mean", {"C"}, shape(v_mean), {Binding{"C", v_C}}, "data_format NHWC");
    }
    if (truth(boolean(!equal(ndim(v_variance), integer(1LL))))) {
      shape_error(OP, "variance", {"C"}, shape(v_variance), {Binding{"C", v_C}}, "data_format NHWC");
    }
    if (truth(boolean(!equal(dim(v_variance, integer(0LL)), v_C)))) {
      shape_error(OP, "variance", {"C"}, shape(v_variance), {Binding{"C", v_C}}, "data_format NHWC");
    }
    v_outer = mul(mul(v_N, v_H), v_W);
    v_inner = integer(1LL);
    v_total = mul(mul(v_outer, v_C), v_inner);
    v_m = mul(v_outer, v_inner);
    v_cblocks = neg(floordiv(neg(v_C), integer(32LL)));
    v_reduce_threads = (truth(boolean(equal(backend_name(call), lit("cpu")))) ? integer(32LL) : max_of(integer(32LL), min_of(integer(256LL), mul(integer(32LL), neg(floordiv(neg(v_m), integer(32LL)))))));
    v_channel_threads = max_of(integer(32LL), min_of(integer(256LL), mul(integer(32LL), neg(floordiv(neg(v_C), integer(32LL))))));
    v_gpu_splits = max_of(integer(1LL), min_of(neg(floordiv(neg(v_m), integer(1024LL))), integer(512LL)));
    v_cpu_splits = max_of(integer(1LL), min_of(neg(floordiv(neg(integer(16LL)), max_of(integer(1LL), v_cblocks))), neg(floordiv(neg(v_m), integer(4096LL)))));
    v_splits = (truth(boolean(equal(backend_name(call), lit("cpu")))) ? v_cpu_splits : v_gpu_splits);
    v_chunk = (truth(boolean(equal(backend_name(call), lit("cpu")))) ? integer(4096LL) : integer(0LL));
    v_elementwise_threads = (truth(boolean(equal(backend_name(call), lit("cpu")))) ? max_of(integer(32LL), min_of(integer(64LL), mul(integer(32LL), neg(floordiv(neg(v_total), mul(integer(32LL), integer(4096LL))))))) : max_of(integer(32LL), min_of(integer(256LL), mul(integer(32LL), neg(floordiv(neg(v_total), integer(128LL)))))));
    v_elementwise_blocks = (truth(boolean(equal(backend_name(call), lit("cpu")))) ? max_of(integer(1LL), neg(floordiv(neg(v_total), mul(integer(4096LL), v_elementwise_threads)))) : min_of(neg(floordiv(neg(v_total), integer(1024LL))), integer(1024LL)));
    v__shape_y = Shape{v_N, v_H, v_W, v_C};
    v__shape_batch_mean = Shape{v_C};
    v__shape_batch_variance = Shape{v_C};
    v__shape_reserve_space_1 = Shape{v_C};
    v__shape_reserve_space_2 = Shape{v_C};
    v__shape_reserve_space_3 = Shape{integer(0LL)};
  } else {
    if (truth(boolean(equal(v_data_format, lit("NCHW"))))) {
      if (truth(boolean(!equal(ndim(v_x), integer(4LL))))) {
        shape_error(OP, "x", {"N", "C", "H", "W"}, shape(v_x), {}, "data_format NCHW");
      }
      v_N = dim(v_x, integer(0LL));
      v_C = dim(v_x, integer(1LL));
      v_H = dim(v_x, integer(2LL));
      v_W = dim(v_x, integer(3LL));
      if (truth(boolean(!equal(ndim(v_scale), integer(1LL))))) {
        shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", v_C}}, "data_format NCHW");
      }
      if (truth(boolean(!equal(dim(v_scale, integer(0LL)), v_C)))) {
        shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", v_C}}, "data_format NCHW");
      }
      if (truth(boolean(!equal(ndim(v_offset), integer(1LL))))) {
        shape_error(OP, "offset", {"C"}, shape(v_offset), {Binding{"C", v_C}}, "data_format NCHW");
      }
      if (truth(boolean(!equal(dim(v_offset, integer(0LL)), v_C)))) {
        shape_error(OP, "offset", {"C"}, shape(v_offset), {Binding{"C", v_C}}, "data_format NCHW");
      }
      if (truth(boolean(!equal(ndim(v_mean), integer(1LL))))) {
        shape_error(OP, "mean", {"C"}, shape(v_mean), {Binding{"C", v_C}}, "data_format NCHW");
      }
      if (truth(boolean(!equal(dim(v_mean, integer(0LL)), v_C)))) {
        shape_error(OP, "mean", {"C"}, shape(v_mean), {Binding{"C", v_C}}, "data_format NCHW");
      }
      if (truth(boolean(!equal(ndim(v_variance), integer(1LL))))) {
        shape_error(OP, "variance", {"C"}, shape(v_variance), {Binding{"C", v_C}}, "data_format NCHW");
      }
      if (truth(boolean(!equal(dim(v_variance, integer(0LL)), v_C)))) {
        shape_error(OP, "variance", {"C"}, shape(v_variance), {Binding{"C", v_C}}, "data_format NCHW");
      }
      v_outer = v_N;
      v_inner = mul(v_H, v_W);
      v_total = mul(mul(v_outer, v_C), v_inner);
      v_m = mul(v_outer, v_inner);
      v_cblocks = v_C;
      v_reduce_threads = (truth(boolean(equal(backend_name(call), lit("cpu")))) ? integer(32LL) : max_of(integer(32LL), min_of(integer(256LL), mul(integer(32LL), neg(floordiv(neg(v_m), integer(32LL)))))));
      v_channel_threads = max_of(integer(32LL), min_of(integer(256LL), mul(integer(32LL), neg(floordiv(neg(v_C), integer(32LL))))));
      v_gpu_splits = max_of(integer(1LL), min_of(neg(floordiv(neg(v_m), integer(32768LL))), integer(512LL)));
      v_cpu_splits = max_of(integer(1LL), min_of(neg(floordiv(neg(integer(16LL)), max_of(integer(1LL), v_cblocks))), neg(floordiv(neg(v_m), integer(4096LL)))));
      v_splits = (truth(boolean(equal(backend_name(call), lit("cpu")))) ? v_cpu_splits : v_gpu_splits);
      v_chunk = (truth(boolean(equal(backend_name(call), lit("cpu")))) ? integer(4096LL) : integer(0LL));
      v_elementwise_threads = (truth(boolean(equal(backend_name(call), lit("cpu")))) ? max_of(integer(32LL), min_of(integer(64LL), mul(integer(32LL), neg(floordiv(neg(v_total), mul(integer(32LL), integer(4096LL))))))) : max_of(integer(32LL), min_of(integer(256LL), mul(integer(32LL), neg(floordiv(neg(v_total), integer(128LL)))))));
      v_elementwise_blocks = (truth(boolean(equal(backend_name(call), lit("cpu")))) ? max_of(integer(1LL), neg(floordiv(neg(v_total), mul(integer(4096LL), v_elementwise_threads)))) : min_of(neg(floordiv(neg(v_total), integer(1024LL))), integer(1024LL)));
      v__shape_y = Shape{v_N, v_C, v_H, v_W};
      v__shape_batch_mean = Shape{v_C};
      v__shape_batch_variance = Shape{v_C};
      v__shape_reserve_space_1 = Shape{v_C};
      v__shape_reserve_space_2 = Shape{v_C};
      v__shape_reserve_space_3 = Shape{integer(0LL)};
    } else {
      if (truth(boolean(equal(v_data_format, lit("NDHWC"))))) {
        if (truth(boolean(!equal(ndim(v_x), integer(5LL))))) {
          shape_error(OP, "x", {"N", "D", "H", "W", "C"}, shape(v_x), {}, "data_format NDHWC");
        }
        v_N = dim(v_x, integer(0LL));
        v_D = dim(v_x, integer(1LL));
        v_H = dim(v_x, integer(2LL));
        v_W = dim(v_x, integer(3LL));
        v_C = dim(v_x, integer(4LL));
        if (truth(boolean(!equal(ndim(v_scale), integer(1LL))))) {
          shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", v_C}}, "data_format NDHWC");
        }
        if (truth(boolean(!equal(dim(v_scale, integer(0LL)), v_C)))) {
          shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", v_C}}, "data_format NDHWC");
        }
        if (truth(boolean(!equal(ndim(v_offset), integer(1LL))))) {
          shape_error(OP, "offset", {"C"}, shape(v_offset), {Binding{"C", v_C}}, "data_format NDHWC");
        }
        if (truth(boolean(!equal(dim(v_offset, integer(0LL)), v_C)))) {
          shape_error(OP, "offset", {"C"}, shape(v_offset), {Binding{"C", v_C}}, "data_format NDHWC");
        }
        if (truth(boolean(!equal(ndim(v_mean), integer(1LL))))) {
          shape_error(OP, "mean", {"C"}, shape(v_mean), {Binding{"C", v_C}}, "data_format NDHWC");
        }
        if (truth(boolean(!equal(dim(v_mean, integer(0LL)), v_C)))) {
          shape_error(OP, "mean", {"C"}, shape(v_mean), {Binding{"C", v_C}}, "data_format NDHWC");
        }
        if (truth(boolean(!equal(ndim(v_variance), integer(1LL))))) {
          shape_error(OP, "variance", {"C"}, shape(v_variance), {Binding{"C", v_C}}, "data_format NDHWC");
        }
        if (truth(boolean(!equal(dim(v_variance, integer(0LL)), v_C)))) {
          shape_error(OP, "variance", {"C"}, shape(v_variance), {Binding{"C", v_C}}, "data_format NDHWC");
        }
        v_outer = mul(mul(mul(v_N, v_D), v_H), v_W);
        v_inner = integer(1LL);
        v_total = mul(mul(v_outer, v_C), v_inner);
        v_m = mul(v_outer, v_inner);
        v_cblocks = neg(floordiv(neg(v_C), integer(32LL)));
        v_reduce_threads = (truth(boolean(equal(backend_name(call), lit("cpu")))) ? integer(32LL) : max_of(integer(32LL), min_of(integer(256LL), mul(integer(32LL), neg(floordiv(neg(v_m), integer(32LL)))))));
        v_channel_threads = max_of(integer(32LL), min_of(integer(256LL), mul(integer(32LL), neg(floordiv(neg(v_C), integer(32LL))))));
        v_gpu_splits = max_of(integer(1LL), min_of(neg(floordiv(neg(v_m), integer(1024LL))), integer(512LL)));
        v_cpu_splits = max_of(integer(1LL), min_of(neg(floordiv(neg(integer(16LL)), max_of(integer(1LL), v_cblocks))), neg(floordiv(neg(v_m), integer(4096LL)))));
        v_splits = (truth(boolean(equal(backend_name(call), lit("cpu")))) ? v_cpu_splits : v_gpu_splits);
        v_chunk = (truth(boolean(equal(backend_name(call), lit("cpu")))) ? integer(4096LL) : integer(0LL));
        v_elementwise_threads = (truth(boolean(equal(backend_name(call), lit("cpu")))) ? max_of(integer(32LL), min_of(integer(64LL), mul(integer(32LL), neg(floordiv(neg(v_total), mul(integer(32LL), integer(4096LL))))))) : max_of(integer(32LL), min_of(integer(256LL), mul(integer(32LL), neg(floordiv(neg(v_total), integer(128LL)))))));
        v_elementwise_blocks = (truth(boolean(equal(backend_name(call), lit("cpu")))) ? max_of(integer(1LL), neg(floordiv(neg(v_total), mul(integer(4096LL), v_elementwise_threads)))) : min_of(neg(floordiv(neg(v_total), integer(1024LL))), integer(1024LL)));
        v__shape_y = Shape{v_N, v_D, v_H, v_W, v_C};
        v__shape_batch_mean = Shape{v_C};
        v__shape_batch_variance = Shape{v_C};
        v__shape_reserve_space_1 = Shape{v_C};
        v__shape_reserve_space_2 = Shape{v_C};
        v__shape_reserve_space_3 = Shape{integer(0LL)};
      } else {
        if (truth(boolean(equal(v_data_format, lit("NCDHW"))))) {
          if (truth(boolean(!equal(ndim(v_x), integer(5LL))))) {
            shape_error(OP, "x", {"N", "C", "D", "H", "W"}, shape(v_x), {}, "data_format NCDHW");
          }
          v_N = dim(v_x, integer(0LL));
          v_C = dim(v_x, integer(1LL));
          v_D = dim(v_x, integer(2LL));
          v_H = dim(v_x, integer(3LL));
          v_W = dim(v_x, integer(4LL));
          if (truth(boolean(!equal(ndim(v_scale), integer(1LL))))) {
            shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", v_C}}, "data_format NCDHW");
          }
          if (truth(boolean(!equal(dim(v_scale, integer(0LL)), v_C)))) {
            shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", v_C}}, "data_format NCDHW");
          }
          if (truth(boolean(!equal(ndim(v_offset), integer(1LL))))) {
            shape_error(OP, "offset", {"C"}, shape(v_offset), {Binding{"C", v_C}}, "data_format NCDHW");
          }
          if (truth(boolean(!equal(dim(v_offset, integer(0LL)), v_C)))) {
            shape_error(OP, "offset", {"C"}, shape(v_offset), {Binding{"C", v_C}}, "data_format NCDHW");
          }
          if (truth(boolean(!equal(ndim(v_mean), integer(1LL))))) {
            shape_error(OP, "mean", {"C"}, shape(v_mean), {Binding{"C", v_C}}, "data_format NCDHW");
          }
          if (truth(boolean(!equal(dim(v_mean, integer(0LL)), v_C)))) {
            shape_error(OP, "mean", {"C"}, shape(v_mean), {Binding{"C", v_C}}, "data_format NCDHW");
          }
          if (truth(boolean(!equal(ndim(v_variance), integer(1LL))))) {
            shape_error(OP, "variance", {"C"}, shape(v_variance), {Binding{"C", v_C}}, "data_format NCDHW");
          }
          if (truth(boolean(!equal(dim(v_variance, integer(0LL)), v_C)))) {
            shape_error(OP, "variance", {"C"}, shape(v_variance), {Binding{"C", v_C}}, "data_format NCDHW");
          }
          v_outer = v_N;
          v_inner = mul(mul(v_D, v_H), v_W);
          v_total = mul(mul(v_outer, v_C), v_inner);
          v_m = mul(v_outer, v_inner);
          v_cblocks = v_C;
          v_reduce_threads = (truth(boolean(equal(backend_name(call), lit("cpu")))) ? integer(32LL) : max_of(integer(32LL), min_of(integer(256LL), mul(integer(32LL), neg(floordiv(neg(v_m), integer(32LL)))))));
          v_channel_threads = max_of(integer(32LL), min_of(integer(256LL), mul(integer(32LL), neg(floordiv(neg(v_C), integer(32LL))))));
          v_gpu_splits = max_of(integer(1LL), min_of(neg(floordiv(neg(v_m), integer(32768LL))), integer(512LL)));
          v_cpu_splits = max_of(integer(1LL), min_of(neg(floordiv(neg(integer(16LL)), max_of(integer(1LL), v_cblocks))), neg(floordiv(neg(v_m), integer(4096LL)))));
          v_splits = (truth(boolean(equal(backend_name(call), lit("cpu")))) ? v_cpu_splits : v_gpu_splits);
          v_chunk = (truth(boolean(equal(backend_name(call), lit("cpu")))) ? integer(4096LL) : integer(0LL));
          v_elementwise_threads = (truth(boolean(equal(backend_name(call), lit("cpu")))) ? max_of(integer(32LL), min_of(integer(64LL), mul(integer(32LL), neg(floordiv(neg(v_total), mul(integer(32LL), integer(4096LL))))))) : max_of(integer(32LL), min_of(integer(256LL), mul(integer(32LL), neg(floordiv(neg(v_total), integer(128LL)))))));
          v_elementwise_blocks = (truth(boolean(equal(backend_name(call), lit("cpu")))) ? max_of(integer(1LL), neg(floordiv(neg(v_total), mul(integer(4096LL), v_elementwise_threads)))) : min_of(neg(floordiv(neg(v_total), integer(1024LL))), integer(1024LL)));
          v__shape_y = Shape{v_N, v_C, v_D, v_H, v_W};
          v__shape_batch_mean = Shape{v_C};
          v__shape_batch_variance = Shape{v_C};
          v__shape_reserve_space_1 = Shape{v_C};
          v__shape_reserve_space_2 = Shape{v_C};
          v__shape_reserve_space_3 = Shape{integer(0LL)};
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
  v_partials = scratch(call, frame, Shape{v_splits, v_C, integer(3LL)}, lit("float32"));
  v_coeffs = scratch(call, frame, Shape{v_C, integer(2LL)}, lit("float32"));
  static const char* const strings[] = {"bfloat16", "float16", "float32"};
  static const char* const symbols[] = {"FusedBatchNormV3__inference_stats__bfloat16", "FusedBatchNormV3__inference_stats__float16", "FusedBatchNormV3__inference_stats__float32", "FusedBatchNormV3__normalize__bfloat16", "FusedBatchNormV3__normalize__float16", "FusedBatchNormV3__normalize__float32", "FusedBatchNormV3__stats_finalize__bfloat16", "FusedBatchNormV3__stats_finalize__float16", "FusedBatchNormV3__stats_finalize__float32", "FusedBatchNormV3__stats_partials__bfloat16", "FusedBatchNormV3__stats_partials__float16", "FusedBatchNormV3__stats_partials__float32", "FusedBatchNormV3__stats_partials_sliced__bfloat16", "FusedBatchNormV3__stats_partials_sliced__float16", "FusedBatchNormV3__stats_partials_sliced__float32"};
  opgen_plan_value values[15] = {plan_value(frame, v__dtype_T, strings, 3), plan_value(frame, v_cblocks, strings, 3), plan_value(frame, v_splits, strings, 3), plan_value(frame, v_reduce_threads, strings, 3), plan_value(frame, v_m, strings, 3), plan_value(frame, v_C, strings, 3), plan_value(frame, v_inner, strings, 3), plan_value(frame, v_is_training, strings, 3), plan_value(frame, v_chunk, strings, 3), plan_value(frame, v_channel_threads, strings, 3), plan_value(frame, v_epsilon, strings, 3), plan_value(frame, v_exponential_avg_factor, strings, 3), plan_value(frame, v_elementwise_blocks, strings, 3), plan_value(frame, v_elementwise_threads, strings, 3), plan_value(frame, v_total, strings, 3)};
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
