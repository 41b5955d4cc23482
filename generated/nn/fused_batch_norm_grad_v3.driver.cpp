// generated from specs/nn/fused_batch_norm_grad_v3.yaml by opgen — do not edit (opgen 0.1.0)
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
// FusedBatchNormGradV3: its plan as codegen/runtime/plan.py records it (codegen/drivergen.py)
static void opgen_plan_walk_FusedBatchNormGradV3(opgen_plan_value* env, const char* backend, Out& out, int64_t* variant) {
  (void)backend;
  if ((equal(num(env[6], "per_channel"), integer(1LL)))) {
    int64_t sym1 = -1;
    if (sym1 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym1 = 1;
    if (sym1 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym1 = 0;
    if (sym1 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym1 = 2;
    if (sym1 < 0) fail(OPGEN_E_SYMBOL, "kernel 'grad_channels' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym1);
    out.put(1);
    out.put(whole(num(env[1], "C"), "a grid size"));
    out.put(1);
    out.put(whole(integer(1LL), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs2 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(0);
    out.put(OPGEN_T_SLOT); out.put(1);
    out.put(OPGEN_T_SLOT); out.put(2);
    out.put(OPGEN_T_SLOT); out.put(3);
    out.put(OPGEN_T_SLOT); out.put(4);
    out.put(OPGEN_T_SLOT); out.put(5);
    out.put(OPGEN_T_SLOT); out.put(6);
    out.put(OPGEN_T_SLOT); out.put(7);
    scalar(out, OPGEN_T_I64, num(env[2], "outer"), "outer");
    scalar(out, OPGEN_T_I64, num(env[1], "C"), "C");
    scalar(out, OPGEN_T_I64, num(env[3], "inner"), "inner");
    scalar(out, OPGEN_T_F32, num(env[4], "epsilon"), "epsilon");
    scalar(out, OPGEN_T_I32, num(env[5], "is_training"), "is_training");
    out.words[nargs2] = (out.used - nargs2 - 1) / 2;
  }
  if (truth(num(env[10], "once"))) {
    int64_t sym3 = -1;
    if (sym3 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym3 = 10;
    if (sym3 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym3 = 9;
    if (sym3 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym3 = 11;
    if (sym3 < 0) fail(OPGEN_E_SYMBOL, "kernel 'grad_once' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym3);
    out.put(1);
    out.put(whole(num(env[7], "cblocks"), "a grid size"));
    out.put(1);
    out.put(whole(num(env[8], "once_threads"), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs4 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(0);
    out.put(OPGEN_T_SLOT); out.put(1);
    out.put(OPGEN_T_SLOT); out.put(2);
    out.put(OPGEN_T_SLOT); out.put(3);
    out.put(OPGEN_T_SLOT); out.put(4);
    out.put(OPGEN_T_SLOT); out.put(5);
    out.put(OPGEN_T_SLOT); out.put(6);
    out.put(OPGEN_T_SLOT); out.put(7);
    scalar(out, OPGEN_T_I64, num(env[9], "m"), "m");
    scalar(out, OPGEN_T_I64, num(env[1], "C"), "C");
    scalar(out, OPGEN_T_F32, num(env[4], "epsilon"), "epsilon");
    scalar(out, OPGEN_T_I32, num(env[5], "is_training"), "is_training");
    out.words[nargs4] = (out.used - nargs4 - 1) / 2;
  }
  if (((equal(num(env[14], "chunk"), integer(0LL))) && truth(num(env[15], "three_launches")))) {
    int64_t sym5 = -1;
    if (sym5 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym5 = 13;
    if (sym5 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym5 = 12;
    if (sym5 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym5 = 14;
    if (sym5 < 0) fail(OPGEN_E_SYMBOL, "kernel 'grad_partials' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym5);
    out.put(2);
    out.put(whole(num(env[7], "cblocks"), "a grid size"));
    out.put(whole(num(env[11], "splits"), "a grid size"));
    out.put(1);
    out.put(whole(num(env[12], "partials_threads"), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs6 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(0);
    out.put(OPGEN_T_SLOT); out.put(1);
    out.put(OPGEN_T_SLOT); out.put(3);
    out.put(OPGEN_T_SLOT); out.put(8);
    scalar(out, OPGEN_T_I64, num(env[9], "m"), "m");
    scalar(out, OPGEN_T_I64, num(env[1], "C"), "C");
    scalar(out, OPGEN_T_I64, num(env[3], "inner"), "inner");
    scalar(out, OPGEN_T_I64, num(env[11], "splits"), "splits");
    scalar(out, OPGEN_T_I64, num(env[13], "pairs"), "pairs");
    out.words[nargs6] = (out.used - nargs6 - 1) / 2;
  }
  if (((compare(num(env[14], "chunk"), integer(0LL)) > 0) && truth(num(env[15], "three_launches")))) {
    int64_t sym7 = -1;
    if (sym7 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym7 = 16;
    if (sym7 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym7 = 15;
    if (sym7 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym7 = 17;
    if (sym7 < 0) fail(OPGEN_E_SYMBOL, "kernel 'grad_partials_sliced' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym7);
    out.put(2);
    out.put(whole(num(env[7], "cblocks"), "a grid size"));
    out.put(whole(num(env[11], "splits"), "a grid size"));
    out.put(1);
    out.put(whole(num(env[16], "reduce_threads"), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs8 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(0);
    out.put(OPGEN_T_SLOT); out.put(1);
    out.put(OPGEN_T_SLOT); out.put(3);
    out.put(OPGEN_T_SLOT); out.put(8);
    scalar(out, OPGEN_T_I64, num(env[9], "m"), "m");
    scalar(out, OPGEN_T_I64, num(env[1], "C"), "C");
    scalar(out, OPGEN_T_I64, num(env[3], "inner"), "inner");
    scalar(out, OPGEN_T_I64, num(env[11], "splits"), "splits");
    out.words[nargs8] = (out.used - nargs8 - 1) / 2;
  }
  if (truth(num(env[15], "three_launches"))) {
    int64_t sym9 = -1;
    if (sym9 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym9 = 4;
    if (sym9 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym9 = 3;
    if (sym9 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym9 = 5;
    if (sym9 < 0) fail(OPGEN_E_SYMBOL, "kernel 'grad_finalize' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym9);
    out.put(1);
    out.put(whole(ceildiv(num(env[1], "C"), integer(256LL)), "a grid size"));
    out.put(1);
    out.put(whole(num(env[17], "channel_threads"), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs10 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(8);
    out.put(OPGEN_T_SLOT); out.put(2);
    out.put(OPGEN_T_SLOT); out.put(3);
    out.put(OPGEN_T_SLOT); out.put(4);
    out.put(OPGEN_T_SLOT); out.put(6);
    out.put(OPGEN_T_SLOT); out.put(7);
    out.put(OPGEN_T_SLOT); out.put(9);
    scalar(out, OPGEN_T_I64, num(env[9], "m"), "m");
    scalar(out, OPGEN_T_I64, num(env[1], "C"), "C");
    scalar(out, OPGEN_T_I64, num(env[11], "splits"), "splits");
    scalar(out, OPGEN_T_F32, num(env[4], "epsilon"), "epsilon");
    scalar(out, OPGEN_T_I32, num(env[5], "is_training"), "is_training");
    out.words[nargs10] = (out.used - nargs10 - 1) / 2;
  }
  if (truth(num(env[15], "three_launches"))) {
    int64_t sym11 = -1;
    if (sym11 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym11 = 7;
    if (sym11 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym11 = 6;
    if (sym11 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym11 = 8;
    if (sym11 < 0) fail(OPGEN_E_SYMBOL, "kernel 'grad_input' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym11);
    out.put(1);
    out.put(whole(num(env[18], "elementwise_blocks"), "a grid size"));
    out.put(1);
    out.put(whole(num(env[19], "elementwise_threads"), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs12 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(0);
    out.put(OPGEN_T_SLOT); out.put(1);
    out.put(OPGEN_T_SLOT); out.put(9);
    out.put(OPGEN_T_SLOT); out.put(5);
    scalar(out, OPGEN_T_I64, num(env[20], "total"), "total");
    scalar(out, OPGEN_T_I64, num(env[1], "C"), "C");
    scalar(out, OPGEN_T_I64, num(env[3], "inner"), "inner");
    scalar(out, OPGEN_T_I64, num(env[14], "chunk"), "chunk");
    scalar(out, OPGEN_T_I32, num(env[5], "is_training"), "is_training");
    out.words[nargs12] = (out.used - nargs12 - 1) / 2;
  }
  *variant = -1;
  if (*variant < 0 && truth(num(env[10], "once"))) *variant = 0;
  if (*variant < 0 && truth(num(env[21], "passes"))) *variant = 1;
}

OPGEN_PLAN_API int opgen_plan_FusedBatchNormGradV3(const opgen_plan_value* values, int64_t nvalues, const char* backend, int64_t* words, int64_t capacity, int64_t* used, int64_t* variant, char* err, int64_t errlen) {
  Out out{words, capacity, 0};
  try {
    if (nvalues != 22) fail(OPGEN_E_VALUES, "the plan reads 22 names, the call gave " + std::to_string(nvalues));
    if (backend == nullptr) fail(OPGEN_E_VALUES, "no backend named");
    opgen_plan_value env[22] = {};
    for (int64_t k = 0; k < 22; ++k) env[k] = values[k];
    opgen_plan_walk_FusedBatchNormGradV3(env, backend, out, variant);
    *used = out.used;
    return OPGEN_PLAN_OK;
  } catch (const Error& e) {
    *used = out.used;
    return report(Error{e.code, "FusedBatchNormGradV3: " + e.message}, err, errlen);
  } catch (...) {  // (std::bad_alloc building a message): an error, never an exception through C
    *used = out.used;
    return report(Error{OPGEN_E_INTERNAL, "FusedBatchNormGradV3: the native recorder failed"}, err, errlen);
  }
}

OPGEN_PLAN_API const char* opgen_plan_FusedBatchNormGradV3_info(int table, int64_t index) {
  static const char* const t0[] = {"_dtype_T", "C", "outer", "inner", "epsilon", "is_training", "per_channel", "cblocks", "once_threads", "m", "once", "splits", "partials_threads", "pairs", "chunk", "three_launches", "reduce_threads", "channel_threads", "elementwise_blocks", "elementwise_threads", "total", "passes"};
  if (table == 0) return index >= 0 && index < 22 ? t0[index] : nullptr;
  static const char* const t1[] = {"bfloat16", "float16", "float32"};
  if (table == 1) return index >= 0 && index < 3 ? t1[index] : nullptr;
  static const char* const t2[] = {"FusedBatchNormGradV3__grad_channels__bfloat16", "FusedBatchNormGradV3__grad_channels__float16", "FusedBatchNormGradV3__grad_channels__float32", "FusedBatchNormGradV3__grad_finalize__bfloat16", "FusedBatchNormGradV3__grad_finalize__float16", "FusedBatchNormGradV3__grad_finalize__float32", "FusedBatchNormGradV3__grad_input__bfloat16", "FusedBatchNormGradV3__grad_input__float16", "FusedBatchNormGradV3__grad_input__float32", "FusedBatchNormGradV3__grad_once__bfloat16", "FusedBatchNormGradV3__grad_once__float16", "FusedBatchNormGradV3__grad_once__float32", "FusedBatchNormGradV3__grad_partials__bfloat16", "FusedBatchNormGradV3__grad_partials__float16", "FusedBatchNormGradV3__grad_partials__float32", "FusedBatchNormGradV3__grad_partials_sliced__bfloat16", "FusedBatchNormGradV3__grad_partials_sliced__float16", "FusedBatchNormGradV3__grad_partials_sliced__float32"};
  if (table == 2) return index >= 0 && index < 18 ? t2[index] : nullptr;
  static const char* const t3[] = {"once", "passes"};
  if (table == 3) return index >= 0 && index < 2 ? t3[index] : nullptr;
  return nullptr;
}

}  // namespace opgen_plan
// FusedBatchNormGradV3: its wrapper's _compute in C++ (codegen/drivergen_checks.py)
static void opgen_drive_FusedBatchNormGradV3(opgen_call* call, bool run) {
  using namespace opgen_checks;
  static const char OP[] = "FusedBatchNormGradV3";
  Frame frame;
  if (call->ninputs != 6 || call->nattrs != 3) raise(OPGEN_ERR_RUNTIME, std::string(OP) + ": the driver takes 6 inputs and 3 attrs, the call gave " + std::to_string(call->ninputs) + " and " + std::to_string(call->nattrs));
  call->noutputs = 5;
  V v_y_backprop = input_value(call, 0);
  V v_x = input_value(call, 1);
  V v_scale = input_value(call, 2);
  V v_reserve_space_1 = input_value(call, 3);
  V v_reserve_space_2 = input_value(call, 4);
  V v_reserve_space_3 = input_value(call, 5);
  V v_epsilon = attr_value(call->attrs[0]);
  V v_data_format = attr_value(call->attrs[1]);
  V v_is_training = attr_value(call->attrs[2]);
  int64_t v_C = 0;
  int64_t v_D = 0;
  int64_t v_H = 0;
  int64_t v_N = 0;
  int64_t v_W = 0;
  V v__dtype_T;
  V v__dtype_U;
  int64_t v_cblocks = 0;
  int64_t v_channel_threads = 0;
  int64_t v_channels_first = 0;
  int64_t v_chunk = 0;
  V v_coeffs;
  int64_t v_cpu_splits = 0;
  int64_t v_elementwise_blocks = 0;
  int64_t v_elementwise_threads = 0;
  int64_t v_gpu_splits = 0;
  int64_t v_inner = 0;
  int64_t v_m = 0;
  V v_offset_backprop;
  bool v_once = false;
  int64_t v_once_max_rows = 0;
  int64_t v_once_threads = 0;
  int64_t v_outer = 0;
  bool v_pairs = false;
  V v_partials;
  int64_t v_partials_threads = 0;
  bool v_passes = false;
  int64_t v_per_channel = 0;
  int64_t v_reduce_threads = 0;
  V v_reserve_space_4;
  V v_reserve_space_5;
  V v_scale_backprop;
  int64_t v_splits = 0;
  bool v_three_launches = false;
  int64_t v_total = 0;
  V v_x_backprop;
  Shape v__shape_offset_backprop;
  Shape v__shape_reserve_space_4;
  Shape v__shape_reserve_space_5;
  Shape v__shape_scale_backprop;
  Shape v__shape_x_backprop;
  v_epsilon = check_float(OP, "epsilon", v_epsilon, Bound{true, true, 0LL, 0.0, "0"}, no_bound(), false, false);
  v_data_format = check_enum(OP, "data_format", v_data_format, {lit("NHWC"), lit("NCHW"), lit("NDHWC"), lit("NCDHW")});
  v_is_training = check_bool(OP, "is_training", v_is_training);
  v_y_backprop = adopt(call, OP, "y_backprop", v_y_backprop);
  v__dtype_T = check_dtype(OP, "y_backprop", v_y_backprop, {"float16", "bfloat16", "float32"}, "T");
  v_x = adopt(call, OP, "x", v_x);
  check_same_dtype(OP, "x", v_x, v__dtype_T, "T", "y_backprop");
  v_scale = adopt(call, OP, "scale", v_scale);
  check_dtype(OP, "scale", v_scale, {"float32"}, nullptr);
  v_reserve_space_1 = adopt(call, OP, "reserve_space_1", v_reserve_space_1);
  v__dtype_U = check_dtype(OP, "reserve_space_1", v_reserve_space_1, {"float32"}, "U");
  v_reserve_space_2 = adopt(call, OP, "reserve_space_2", v_reserve_space_2);
  check_same_dtype(OP, "reserve_space_2", v_reserve_space_2, v__dtype_U, "U", "reserve_space_1");
  v_reserve_space_3 = adopt(call, OP, "reserve_space_3", v_reserve_space_3);
  check_same_dtype(OP, "reserve_space_3", v_reserve_space_3, v__dtype_U, "U", "reserve_space_1");
  if (equal(v_data_format, lit("NHWC"))) {
    if ((ndim_i(v_y_backprop) != 4LL)) {
      shape_error(OP, "y_backprop", {"N", "H", "W", "C"}, shape(v_y_backprop), {}, "data_format NHWC");
    }
    v_N = dim_i(v_y_backprop, 0LL);
    v_H = dim_i(v_y_backprop, 1LL);
    v_W = dim_i(v_y_backprop, 2LL);
    v_C = dim_i(v_y_backprop, 3LL);
    if ((ndim_i(v_x) != 4LL)) {
      shape_error(OP, "x", {"N", "H", "W", "C"}, shape(v_x), {Binding{"C", integer(v_C)}, Binding{"H", integer(v_H)}, Binding{"N", integer(v_N)}, Binding{"W", integer(v_W)}}, "data_format NHWC");
    }
    if (((dim_i(v_x, 0LL) != v_N) || (dim_i(v_x, 1LL) != v_H) || (dim_i(v_x, 2LL) != v_W) || (dim_i(v_x, 3LL) != v_C))) {
      shape_error(OP, "x", {"N", "H", "W", "C"}, shape(v_x), {Binding{"C", integer(v_C)}, Binding{"H", integer(v_H)}, Binding{"N", integer(v_N)}, Binding{"W", integer(v_W)}}, "data_format NHWC");
    }
    if ((ndim_i(v_scale) != 1LL)) {
      shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", integer(v_C)}}, "data_format NHWC");
    }
    if ((dim_i(v_scale, 0LL) != v_C)) {
      shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", integer(v_C)}}, "data_format NHWC");
    }
    if ((ndim_i(v_reserve_space_1) != 1LL)) {
      shape_error(OP, "reserve_space_1", {"C"}, shape(v_reserve_space_1), {Binding{"C", integer(v_C)}}, "data_format NHWC");
    }
    if ((dim_i(v_reserve_space_1, 0LL) != v_C)) {
      shape_error(OP, "reserve_space_1", {"C"}, shape(v_reserve_space_1), {Binding{"C", integer(v_C)}}, "data_format NHWC");
    }
    if ((ndim_i(v_reserve_space_2) != 1LL)) {
      shape_error(OP, "reserve_space_2", {"C"}, shape(v_reserve_space_2), {Binding{"C", integer(v_C)}}, "data_format NHWC");
    }
    if ((dim_i(v_reserve_space_2, 0LL) != v_C)) {
      shape_error(OP, "reserve_space_2", {"C"}, shape(v_reserve_space_2), {Binding{"C", integer(v_C)}}, "data_format NHWC");
    }
    if ((ndim_i(v_reserve_space_3) < 0LL)) {
      shape_error(OP, "reserve_space_3", {"..."}, shape(v_reserve_space_3), {}, "data_format NHWC");
    }
    v_once_max_rows = 384LL;
    v_outer = mul_i(mul_i(v_N, v_H), v_W);
    v_inner = 1LL;
    v_total = mul_i(mul_i(v_outer, v_C), v_inner);
    v_m = mul_i(v_outer, v_inner);
    v_once = ((call->device == OPGEN_DEV_CUDA) && !equal(v_data_format, lit("NCHW")) && !equal(v_data_format, lit("NCDHW")) && (v_m <= v_once_max_rows));
    v_passes = !v_once;
    v_cblocks = neg_i(floordiv_i(neg_i(v_C), 32LL));
    v_reduce_threads = ((call->device != OPGEN_DEV_CUDA) ? 32LL : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_m), 32LL))))));
    v_channel_threads = max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_C), 32LL)))));
    v_gpu_splits = max_i(1LL, min_i(neg_i(floordiv_i(neg_i(v_m), 1024LL)), 512LL));
    v_cpu_splits = max_i(1LL, min_i(neg_i(floordiv_i(neg_i(16LL), max_i(1LL, v_cblocks))), neg_i(floordiv_i(neg_i(v_m), 4096LL))));
    v_splits = ((call->device != OPGEN_DEV_CUDA) ? v_cpu_splits : v_gpu_splits);
    v_chunk = ((call->device != OPGEN_DEV_CUDA) ? 4096LL : 0LL);
    v_elementwise_threads = ((call->device != OPGEN_DEV_CUDA) ? max_i(32LL, min_i(64LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_total), mul_i(32LL, 4096LL)))))) : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_total), 128LL))))));
    v_elementwise_blocks = ((call->device != OPGEN_DEV_CUDA) ? max_i(1LL, neg_i(floordiv_i(neg_i(v_total), mul_i(4096LL, v_elementwise_threads)))) : min_i(neg_i(floordiv_i(neg_i(v_total), 1024LL)), 1024LL));
    v_once_threads = mul_i(32LL, max_i(1LL, min_i(v_m, 16LL)));
    v_channels_first = 0LL;
    v_per_channel = ((call->device != OPGEN_DEV_CUDA) ? mul_i(mul_i(v_channels_first, min_i(1LL, floordiv_i(v_C, 16LL))), min_i(1LL, floordiv_i(v_inner, 2LL))) : 0LL);
    v_pairs = ((call->device == OPGEN_DEV_CUDA) && !equal(v__dtype_T, lit("float32")) && (v_channels_first == 0LL));
    v_partials_threads = max_i(32LL, floordiv_i(v_reduce_threads, add_i(1LL, v_pairs)));
    v_three_launches = (v_passes && (v_per_channel == 0LL));
    v__shape_x_backprop = Shape{v_N, v_H, v_W, v_C};
    v__shape_scale_backprop = Shape{v_C};
    v__shape_offset_backprop = Shape{v_C};
    v__shape_reserve_space_4 = Shape{0LL};
    v__shape_reserve_space_5 = Shape{0LL};
  } else {
    if (equal(v_data_format, lit("NCHW"))) {
      if ((ndim_i(v_y_backprop) != 4LL)) {
        shape_error(OP, "y_backprop", {"N", "C", "H", "W"}, shape(v_y_backprop), {}, "data_format NCHW");
      }
      v_N = dim_i(v_y_backprop, 0LL);
      v_C = dim_i(v_y_backprop, 1LL);
      v_H = dim_i(v_y_backprop, 2LL);
      v_W = dim_i(v_y_backprop, 3LL);
      if ((ndim_i(v_x) != 4LL)) {
        shape_error(OP, "x", {"N", "C", "H", "W"}, shape(v_x), {Binding{"C", integer(v_C)}, Binding{"H", integer(v_H)}, Binding{"N", integer(v_N)}, Binding{"W", integer(v_W)}}, "data_format NCHW");
      }
      if (((dim_i(v_x, 0LL) != v_N) || (dim_i(v_x, 1LL) != v_C) || (dim_i(v_x, 2LL) != v_H) || (dim_i(v_x, 3LL) != v_W))) {
        shape_error(OP, "x", {"N", "C", "H", "W"}, shape(v_x), {Binding{"C", integer(v_C)}, Binding{"H", integer(v_H)}, Binding{"N", integer(v_N)}, Binding{"W", integer(v_W)}}, "data_format NCHW");
      }
      if ((ndim_i(v_scale) != 1LL)) {
        shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", integer(v_C)}}, "data_format NCHW");
      }
      if ((dim_i(v_scale, 0LL) != v_C)) {
        shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", integer(v_C)}}, "data_format NCHW");
      }
      if ((ndim_i(v_reserve_space_1) != 1LL)) {
        shape_error(OP, "reserve_space_1", {"C"}, shape(v_reserve_space_1), {Binding{"C", integer(v_C)}}, "data_format NCHW");
      }
      if ((dim_i(v_reserve_space_1, 0LL) != v_C)) {
        shape_error(OP, "reserve_space_1", {"C"}, shape(v_reserve_space_1), {Binding{"C", integer(v_C)}}, "data_format NCHW");
      }
      if ((ndim_i(v_reserve_space_2) != 1LL)) {
        shape_error(OP, "reserve_space_2", {"C"}, shape(v_reserve_space_2), {Binding{"C", integer(v_C)}}, "data_format NCHW");
      }
      if ((dim_i(v_reserve_space_2, 0LL) != v_C)) {
        shape_error(OP, "reserve_space_2", {"C"}, shape(v_reserve_space_2), {Binding{"C", integer(v_C)}}, "data_format NCHW");
      }
      if ((ndim_i(v_reserve_space_3) < 0LL)) {
        shape_error(OP, "reserve_space_3", {"..."}, shape(v_reserve_space_3), {}, "data_format NCHW");
      }
      v_once_max_rows = 384LL;
      v_outer = v_N;
      v_inner = mul_i(v_H, v_W);
      v_total = mul_i(mul_i(v_outer, v_C), v_inner);
      v_m = mul_i(v_outer, v_inner);
      v_once = ((call->device == OPGEN_DEV_CUDA) && !equal(v_data_format, lit("NCHW")) && !equal(v_data_format, lit("NCDHW")) && (v_m <= v_once_max_rows));
      v_passes = !v_once;
      v_cblocks = v_C;
      v_reduce_threads = ((call->device != OPGEN_DEV_CUDA) ? 32LL : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_m), 32LL))))));
      v_channel_threads = max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_C), 32LL)))));
      v_gpu_splits = max_i(1LL, min_i(neg_i(floordiv_i(neg_i(v_m), 32768LL)), 512LL));
      v_cpu_splits = max_i(1LL, min_i(neg_i(floordiv_i(neg_i(16LL), max_i(1LL, v_cblocks))), neg_i(floordiv_i(neg_i(v_m), 4096LL))));
      v_splits = ((call->device != OPGEN_DEV_CUDA) ? v_cpu_splits : v_gpu_splits);
      v_chunk = ((call->device != OPGEN_DEV_CUDA) ? 4096LL : 0LL);
      v_elementwise_threads = ((call->device != OPGEN_DEV_CUDA) ? max_i(32LL, min_i(64LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_total), mul_i(32LL, 4096LL)))))) : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_total), 128LL))))));
      v_elementwise_blocks = ((call->device != OPGEN_DEV_CUDA) ? max_i(1LL, neg_i(floordiv_i(neg_i(v_total), mul_i(4096LL, v_elementwise_threads)))) : min_i(neg_i(floordiv_i(neg_i(v_total), 1024LL)), 1024LL));
      v_once_threads = mul_i(32LL, max_i(1LL, min_i(v_m, 16LL)));
      v_channels_first = 1LL;
      v_per_channel = ((call->device != OPGEN_DEV_CUDA) ? mul_i(mul_i(v_channels_first, min_i(1LL, floordiv_i(v_C, 16LL))), min_i(1LL, floordiv_i(v_inner, 2LL))) : 0LL);
      v_pairs = ((call->device == OPGEN_DEV_CUDA) && !equal(v__dtype_T, lit("float32")) && (v_channels_first == 0LL));
      v_partials_threads = max_i(32LL, floordiv_i(v_reduce_threads, add_i(1LL, v_pairs)));
      v_three_launches = (v_passes && (v_per_channel == 0LL));
      v__shape_x_backprop = Shape{v_N, v_C, v_H, v_W};
      v__shape_scale_backprop = Shape{v_C};
      v__shape_offset_backprop = Shape{v_C};
      v__shape_reserve_space_4 = Shape{0LL};
      v__shape_reserve_space_5 = Shape{0LL};
    } else {
      if (equal(v_data_format, lit("NDHWC"))) {
        if ((ndim_i(v_y_backprop) != 5LL)) {
          shape_error(OP, "y_backprop", {"N", "D", "H", "W", "C"}, shape(v_y_backprop), {}, "data_format NDHWC");
        }
        v_N = dim_i(v_y_backprop, 0LL);
        v_D = dim_i(v_y_backprop, 1LL);
        v_H = dim_i(v_y_backprop, 2LL);
        v_W = dim_i(v_y_backprop, 3LL);
        v_C = dim_i(v_y_backprop, 4LL);
        if ((ndim_i(v_x) != 5LL)) {
          shape_error(OP, "x", {"N", "D", "H", "W", "C"}, shape(v_x), {Binding{"C", integer(v_C)}, Binding{"D", integer(v_D)}, Binding{"H", integer(v_H)}, Binding{"N", integer(v_N)}, Binding{"W", integer(v_W)}}, "data_format NDHWC");
        }
        if (((dim_i(v_x, 0LL) != v_N) || (dim_i(v_x, 1LL) != v_D) || (dim_i(v_x, 2LL) != v_H) || (dim_i(v_x, 3LL) != v_W) || (dim_i(v_x, 4LL) != v_C))) {
          shape_error(OP, "x", {"N", "D", "H", "W", "C"}, shape(v_x), {Binding{"C", integer(v_C)}, Binding{"D", integer(v_D)}, Binding{"H", integer(v_H)}, Binding{"N", integer(v_N)}, Binding{"W", integer(v_W)}}, "data_format NDHWC");
        }
        if ((ndim_i(v_scale) != 1LL)) {
          shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", integer(v_C)}}, "data_format NDHWC");
        }
        if ((dim_i(v_scale, 0LL) != v_C)) {
          shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", integer(v_C)}}, "data_format NDHWC");
        }
        if ((ndim_i(v_reserve_space_1) != 1LL)) {
          shape_error(OP, "reserve_space_1", {"C"}, shape(v_reserve_space_1), {Binding{"C", integer(v_C)}}, "data_format NDHWC");
        }
        if ((dim_i(v_reserve_space_1, 0LL) != v_C)) {
          shape_error(OP, "reserve_space_1", {"C"}, shape(v_reserve_space_1), {Binding{"C", integer(v_C)}}, "data_format NDHWC");
        }
        if ((ndim_i(v_reserve_space_2) != 1LL)) {
          shape_error(OP, "reserve_space_2", {"C"}, shape(v_reserve_space_2), {Binding{"C", integer(v_C)}}, "data_format NDHWC");
        }
        if ((dim_i(v_reserve_space_2, 0LL) != v_C)) {
          shape_error(OP, "reserve_space_2", {"C"}, shape(v_reserve_space_2), {Binding{"C", integer(v_C)}}, "data_format NDHWC");
        }
        if ((ndim_i(v_reserve_space_3) < 0LL)) {
          shape_error(OP, "reserve_space_3", {"..."}, shape(v_reserve_space_3), {}, "data_format NDHWC");
        }
        v_once_max_rows = 384LL;
        v_outer = mul_i(mul_i(mul_i(v_N, v_D), v_H), v_W);
        v_inner = 1LL;
        v_total = mul_i(mul_i(v_outer, v_C), v_inner);
        v_m = mul_i(v_outer, v_inner);
        v_once = ((call->device == OPGEN_DEV_CUDA) && !equal(v_data_format, lit("NCHW")) && !equal(v_data_format, lit("NCDHW")) && (v_m <= v_once_max_rows));
        v_passes = !v_once;
        v_cblocks = neg_i(floordiv_i(neg_i(v_C), 32LL));
        v_reduce_threads = ((call->device != OPGEN_DEV_CUDA) ? 32LL : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_m), 32LL))))));
        v_channel_threads = max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_C), 32LL)))));
        v_gpu_splits = max_i(1LL, min_i(neg_i(floordiv_i(neg_i(v_m), 1024LL)), 512LL));
        v_cpu_splits = max_i(1LL, min_i(neg_i(floordiv_i(neg_i(16LL), max_i(1LL, v_cblocks))), neg_i(floordiv_i(neg_i(v_m), 4096LL))));
        v_splits = ((call->device != OPGEN_DEV_CUDA) ? v_cpu_splits : v_gpu_splits);
        v_chunk = ((call->device != OPGEN_DEV_CUDA) ? 4096LL : 0LL);
        v_elementwise_threads = ((call->device != OPGEN_DEV_CUDA) ? max_i(32LL, min_i(64LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_total), mul_i(32LL, 4096LL)))))) : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_total), 128LL))))));
        v_elementwise_blocks = ((call->device != OPGEN_DEV_CUDA) ? max_i(1LL, neg_i(floordiv_i(neg_i(v_total), mul_i(4096LL, v_elementwise_threads)))) : min_i(neg_i(floordiv_i(neg_i(v_total), 1024LL)), 1024LL));
        v_once_threads = mul_i(32LL, max_i(1LL, min_i(v_m, 16LL)));
        v_channels_first = 0LL;
        v_per_channel = ((call->device != OPGEN_DEV_CUDA) ? mul_i(mul_i(v_channels_first, min_i(1LL, floordiv_i(v_C, 16LL))), min_i(1LL, floordiv_i(v_inner, 2LL))) : 0LL);
        v_pairs = ((call->device == OPGEN_DEV_CUDA) && !equal(v__dtype_T, lit("float32")) && (v_channels_first == 0LL));
        v_partials_threads = max_i(32LL, floordiv_i(v_reduce_threads, add_i(1LL, v_pairs)));
        v_three_launches = (v_passes && (v_per_channel == 0LL));
        v__shape_x_backprop = Shape{v_N, v_D, v_H, v_W, v_C};
        v__shape_scale_backprop = Shape{v_C};
        v__shape_offset_backprop = Shape{v_C};
        v__shape_reserve_space_4 = Shape{0LL};
        v__shape_reserve_space_5 = Shape{0LL};
      } else {
        if (equal(v_data_format, lit("NCDHW"))) {
          if ((ndim_i(v_y_backprop) != 5LL)) {
            shape_error(OP, "y_backprop", {"N", "C", "D", "H", "W"}, shape(v_y_backprop), {}, "data_format NCDHW");
          }
          v_N = dim_i(v_y_backprop, 0LL);
          v_C = dim_i(v_y_backprop, 1LL);
          v_D = dim_i(v_y_backprop, 2LL);
          v_H = dim_i(v_y_backprop, 3LL);
          v_W = dim_i(v_y_backprop, 4LL);
          if ((ndim_i(v_x) != 5LL)) {
            shape_error(OP, "x", {"N", "C", "D", "H", "W"}, shape(v_x), {Binding{"C", integer(v_C)}, Binding{"D", integer(v_D)}, Binding{"H", integer(v_H)}, Binding{"N", integer(v_N)}, Binding{"W", integer(v_W)}}, "data_format NCDHW");
          }
          if (((dim_i(v_x, 0LL) != v_N) || (dim_i(v_x, 1LL) != v_C) || (dim_i(v_x, 2LL) != v_D) || (dim_i(v_x, 3LL) != v_H) || (dim_i(v_x, 4LL) != v_W))) {
            shape_error(OP, "x", {"N", "C", "D", "H", "W"}, shape(v_x), {Binding{"C", integer(v_C)}, Binding{"D", integer(v_D)}, Binding{"H", integer(v_H)}, Binding{"N", integer(v_N)}, Binding{"W", integer(v_W)}}, "data_format NCDHW");
          }
          if ((ndim_i(v_scale) != 1LL)) {
            shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", integer(v_C)}}, "data_format NCDHW");
          }
          if ((dim_i(v_scale, 0LL) != v_C)) {
            shape_error(OP, "scale", {"C"}, shape(v_scale), {Binding{"C", integer(v_C)}}, "data_format NCDHW");
          }
          if ((ndim_i(v_reserve_space_1) != 1LL)) {
            shape_error(OP, "reserve_space_1", {"C"}, shape(v_reserve_space_1), {Binding{"C", integer(v_C)}}, "data_format NCDHW");
          }
          if ((dim_i(v_reserve_space_1, 0LL) != v_C)) {
            shape_error(OP, "reserve_space_1", {"C"}, shape(v_reserve_space_1), {Binding{"C", integer(v_C)}}, "data_format NCDHW");
          }
          if ((ndim_i(v_reserve_space_2) != 1LL)) {
            shape_error(OP, "reserve_space_2", {"C"}, shape(v_reserve_space_2), {Binding{"C", integer(v_C)}}, "data_format NCDHW");
          }
          if ((dim_i(v_reserve_space_2, 0LL) != v_C)) {
            shape_error(OP, "reserve_space_2", {"C"}, shape(v_reserve_space_2), {Binding{"C", integer(v_C)}}, "data_format NCDHW");
          }
          if ((ndim_i(v_reserve_space_3) < 0LL)) {
            shape_error(OP, "reserve_space_3", {"..."}, shape(v_reserve_space_3), {}, "data_format NCDHW");
          }
          v_once_max_rows = 384LL;
          v_outer = v_N;
          v_inner = mul_i(mul_i(v_D, v_H), v_W);
          v_total = mul_i(mul_i(v_outer, v_C), v_inner);
          v_m = mul_i(v_outer, v_inner);
          v_once = ((call->device == OPGEN_DEV_CUDA) && !equal(v_data_format, lit("NCHW")) && !equal(v_data_format, lit("NCDHW")) && (v_m <= v_once_max_rows));
          v_passes = !v_once;
          v_cblocks = v_C;
          v_reduce_threads = ((call->device != OPGEN_DEV_CUDA) ? 32LL : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_m), 32LL))))));
          v_channel_threads = max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_C), 32LL)))));
          v_gpu_splits = max_i(1LL, min_i(neg_i(floordiv_i(neg_i(v_m), 32768LL)), 512LL));
          v_cpu_splits = max_i(1LL, min_i(neg_i(floordiv_i(neg_i(16LL), max_i(1LL, v_cblocks))), neg_i(floordiv_i(neg_i(v_m), 4096LL))));
          v_splits = ((call->device != OPGEN_DEV_CUDA) ? v_cpu_splits : v_gpu_splits);
          v_chunk = ((call->device != OPGEN_DEV_CUDA) ? 4096LL : 0LL);
          v_elementwise_threads = ((call->device != OPGEN_DEV_CUDA) ? max_i(32LL, min_i(64LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_total), mul_i(32LL, 4096LL)))))) : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_total), 128LL))))));
          v_elementwise_blocks = ((call->device != OPGEN_DEV_CUDA) ? max_i(1LL, neg_i(floordiv_i(neg_i(v_total), mul_i(4096LL, v_elementwise_threads)))) : min_i(neg_i(floordiv_i(neg_i(v_total), 1024LL)), 1024LL));
          v_once_threads = mul_i(32LL, max_i(1LL, min_i(v_m, 16LL)));
          v_channels_first = 1LL;
          v_per_channel = ((call->device != OPGEN_DEV_CUDA) ? mul_i(mul_i(v_channels_first, min_i(1LL, floordiv_i(v_C, 16LL))), min_i(1LL, floordiv_i(v_inner, 2LL))) : 0LL);
          v_pairs = ((call->device == OPGEN_DEV_CUDA) && !equal(v__dtype_T, lit("float32")) && (v_channels_first == 0LL));
          v_partials_threads = max_i(32LL, floordiv_i(v_reduce_threads, add_i(1LL, v_pairs)));
          v_three_launches = (v_passes && (v_per_channel == 0LL));
          v__shape_x_backprop = Shape{v_N, v_C, v_D, v_H, v_W};
          v__shape_scale_backprop = Shape{v_C};
          v__shape_offset_backprop = Shape{v_C};
          v__shape_reserve_space_4 = Shape{0LL};
          v__shape_reserve_space_5 = Shape{0LL};
        } else {
          raise(OPGEN_ERR_RUNTIME, std::string(OP) + ": no shape section for this value");
        }
      }
    }
  }
  v_x_backprop = output(call, OP, "x_backprop", 0, run, v__shape_x_backprop, v__dtype_T);
  v_scale_backprop = output(call, OP, "scale_backprop", 1, run, v__shape_scale_backprop, v__dtype_U);
  v_offset_backprop = output(call, OP, "offset_backprop", 2, run, v__shape_offset_backprop, v__dtype_U);
  v_reserve_space_4 = output(call, OP, "reserve_space_4", 3, run, v__shape_reserve_space_4, v__dtype_U);
  v_reserve_space_5 = output(call, OP, "reserve_space_5", 4, run, v__shape_reserve_space_5, v__dtype_U);
  if (!run) return;
  v_partials = scratch(call, frame, Shape{mul_i(v_splits, v_three_launches), v_C, 2LL}, lit("float32"));
  v_coeffs = scratch(call, frame, Shape{mul_i(3LL, v_three_launches), v_C}, lit("float32"));
  static const char* const strings[] = {"bfloat16", "float16", "float32"};
  static const char* const symbols[] = {"FusedBatchNormGradV3__grad_channels__bfloat16", "FusedBatchNormGradV3__grad_channels__float16", "FusedBatchNormGradV3__grad_channels__float32", "FusedBatchNormGradV3__grad_finalize__bfloat16", "FusedBatchNormGradV3__grad_finalize__float16", "FusedBatchNormGradV3__grad_finalize__float32", "FusedBatchNormGradV3__grad_input__bfloat16", "FusedBatchNormGradV3__grad_input__float16", "FusedBatchNormGradV3__grad_input__float32", "FusedBatchNormGradV3__grad_once__bfloat16", "FusedBatchNormGradV3__grad_once__float16", "FusedBatchNormGradV3__grad_once__float32", "FusedBatchNormGradV3__grad_partials__bfloat16", "FusedBatchNormGradV3__grad_partials__float16", "FusedBatchNormGradV3__grad_partials__float32", "FusedBatchNormGradV3__grad_partials_sliced__bfloat16", "FusedBatchNormGradV3__grad_partials_sliced__float16", "FusedBatchNormGradV3__grad_partials_sliced__float32"};
  opgen_plan_value values[22] = {plan_value(frame, v__dtype_T, strings, 3), plan_int(v_C), plan_int(v_outer), plan_int(v_inner), plan_value(frame, v_epsilon, strings, 3), plan_value(frame, v_is_training, strings, 3), plan_int(v_per_channel), plan_int(v_cblocks), plan_int(v_once_threads), plan_int(v_m), plan_int(v_once), plan_int(v_splits), plan_int(v_partials_threads), plan_int(v_pairs), plan_int(v_chunk), plan_int(v_three_launches), plan_int(v_reduce_threads), plan_int(v_channel_threads), plan_int(v_elementwise_blocks), plan_int(v_elementwise_threads), plan_int(v_total), plan_int(v_passes)};
  opgen_native::Slot slots[10] = {plan_slot(frame, v_y_backprop), plan_slot(frame, v_x), plan_slot(frame, v_scale), plan_slot(frame, v_reserve_space_1), plan_slot(frame, v_reserve_space_2), plan_slot(frame, v_x_backprop), plan_slot(frame, v_scale_backprop), plan_slot(frame, v_offset_backprop), plan_slot(frame, v_partials), plan_slot(frame, v_coeffs)};
  int rc = opgen_native::run_plan(call, opgen_native::PlanCall{OP, opgen_plan::opgen_plan_FusedBatchNormGradV3, symbols, 18, values, 22, slots, 10, frame.value_checks.data(), (int64_t)frame.value_checks.size()});
  if (rc != OPGEN_OK) raise(rc, call->err);
}

OPGEN_DRIVER_API int opgen_shapes_FusedBatchNormGradV3(opgen_call* call) {
  return opgen_checks::guarded(call, "FusedBatchNormGradV3", [&] { opgen_drive_FusedBatchNormGradV3(call, false); });
}

OPGEN_DRIVER_API int opgen_call_FusedBatchNormGradV3(opgen_call* call) {
  return opgen_checks::guarded(call, "FusedBatchNormGradV3", [&] { opgen_drive_FusedBatchNormGradV3(call, true); });
}
