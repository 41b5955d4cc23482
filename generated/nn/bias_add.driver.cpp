// generated from specs/nn/bias_add.yaml by opgen — do not edit (opgen 0.1.0)
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
// BiasAdd: its plan as codegen/runtime/plan.py records it (codegen/drivergen.py)
static void opgen_plan_walk_BiasAdd(opgen_plan_value* env, const char* backend, Out& out, int64_t* variant) {
  (void)backend;
  if (true) {
    int64_t sym1 = -1;
    if (sym1 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym1 = 1;
    if (sym1 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym1 = 0;
    if (sym1 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym1 = 2;
    if (sym1 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 3) sym1 = 3;
    if (sym1 < 0) fail(OPGEN_E_SYMBOL, "kernel 'bias_add' has no entry point for the dtypes of " "_dtype_T");
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
    scalar(out, OPGEN_T_I64, num(env[3], "rows"), "rows");
    scalar(out, OPGEN_T_I64, num(env[4], "width"), "width");
    scalar(out, OPGEN_T_I64, num(env[5], "C"), "C");
    scalar(out, OPGEN_T_I64, num(env[6], "by_channel"), "by_channel");
    out.words[nargs2] = (out.used - nargs2 - 1) / 2;
  }
  *variant = -1;
}

OPGEN_PLAN_API int opgen_plan_BiasAdd(const opgen_plan_value* values, int64_t nvalues, const char* backend, int64_t* words, int64_t capacity, int64_t* used, int64_t* variant, char* err, int64_t errlen) {
  Out out{words, capacity, 0};
  try {
    if (nvalues != 7) fail(OPGEN_E_VALUES, "the plan reads 7 names, the call gave " + std::to_string(nvalues));
    if (backend == nullptr) fail(OPGEN_E_VALUES, "no backend named");
    opgen_plan_value env[7] = {};
    for (int64_t k = 0; k < 7; ++k) env[k] = values[k];
    opgen_plan_walk_BiasAdd(env, backend, out, variant);
    *used = out.used;
    return OPGEN_PLAN_OK;
  } catch (const Error& e) {
    *used = out.used;
    return report(Error{e.code, "BiasAdd: " + e.message}, err, errlen);
  } catch (...) {  // (std::bad_alloc building a message): an error, never an exception through C
    *used = out.used;
    return report(Error{OPGEN_E_INTERNAL, "BiasAdd: the native recorder failed"}, err, errlen);
  }
}

OPGEN_PLAN_API const char* opgen_plan_BiasAdd_info(int table, int64_t index) {
  static const char* const t0[] = {"_dtype_T", "row_blocks", "row_threads", "rows", "width", "C", "by_channel"};
  if (table == 0) return index >= 0 && index < 7 ? t0[index] : nullptr;
  static const char* const t1[] = {"bfloat16", "float16", "float32", "float64"};
  if (table == 1) return index >= 0 && index < 4 ? t1[index] : nullptr;
  static const char* const t2[] = {"BiasAdd__bias_add__bfloat16", "BiasAdd__bias_add__float16", "BiasAdd__bias_add__float32", "BiasAdd__bias_add__float64"};
  if (table == 2) return index >= 0 && index < 4 ? t2[index] : nullptr;
  static const char* const t3[] = {nullptr};
  if (table == 3) return index >= 0 && index < 0 ? t3[index] : nullptr;
  return nullptr;
}

}  // namespace opgen_plan
// BiasAdd: its wrapper's _compute in C++ (codegen/drivergen_checks.py)
static void opgen_drive_BiasAdd(opgen_call* call, bool run) {
  using namespace opgen_checks;
  static const char OP[] = "BiasAdd";
  Frame frame;
  if (call->ninputs != 2 || call->nattrs != 1) raise(OPGEN_ERR_RUNTIME, std::string(OP) + ": the driver takes 2 inputs and 1 attrs, the call gave " + std::to_string(call->ninputs) + " and " + std::to_string(call->nattrs));
  call->noutputs = 1;
  V v_value = input_value(call, 0);
  V v_bias = input_value(call, 1);
  V v_data_format = attr_value(call->attrs[0]);
  int64_t v_C = 0;
  int64_t v_N = 0;
  V v__dtype_T;
  V v__group_mid;
  V v__group_spatial;
  bool v_by_channel = false;
  int64_t v_inner = 0;
  int64_t v_mid = 0;
  int64_t v_outer = 0;
  V v_output;
  int64_t v_row_blocks = 0;
  int64_t v_row_threads = 0;
  int64_t v_rows = 0;
  int64_t v_spatial = 0;
  int64_t v_width = 0;
  Shape v__shape_output;
  v_data_format = check_enum(OP, "data_format", v_data_format, {lit("NHWC"), lit("NCHW")});
  v_value = adopt(call, OP, "value", v_value);
  v__dtype_T = check_dtype(OP, "value", v_value, {"float16", "bfloat16", "float32", "float64"}, "T");
  v_bias = adopt(call, OP, "bias", v_bias);
  check_same_dtype(OP, "bias", v_bias, v__dtype_T, "T", "value");
  if (equal(v_data_format, lit("NHWC"))) {
    if ((ndim_i(v_value) < 2LL)) {
      shape_error(OP, "value", {"N", "*mid", "C"}, shape(v_value), {}, "data_format NHWC");
    }
    v_N = dim_i(v_value, 0LL);
    v_C = dim_i(v_value, sub_i(ndim_i(v_value), 1LL));
    v__group_mid = dims_slice(v_value, integer(1LL), integer(sub_i(ndim_i(v_value), 1LL)));
    v_mid = prod(v__group_mid).i;
    if ((ndim_i(v_bias) != 1LL)) {
      shape_error(OP, "bias", {"C"}, shape(v_bias), {Binding{"C", integer(v_C)}}, "data_format NHWC");
    }
    if ((dim_i(v_bias, 0LL) != v_C)) {
      shape_error(OP, "bias", {"C"}, shape(v_bias), {Binding{"C", integer(v_C)}}, "data_format NHWC");
    }
    v_outer = mul_i(v_N, v_mid);
    v_inner = 1LL;
    v_by_channel = (v_inner != 1LL);
    v_rows = add_i(mul_i(mul_i(v_by_channel, v_outer), v_C), mul_i(sub_i(1LL, v_by_channel), v_outer));
    v_width = add_i(mul_i(v_by_channel, v_inner), mul_i(sub_i(1LL, v_by_channel), v_C));
    v_row_threads = ((call->device != OPGEN_DEV_CUDA) ? 1LL : max_i(32LL, min_i(512LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_width), 128LL))))));
    v_row_blocks = ((call->device != OPGEN_DEV_CUDA) ? min_i(v_rows, max_i(1LL, min_i(16LL, neg_i(floordiv_i(neg_i(mul_i(v_rows, v_width)), 4096LL))))) : min_i(v_rows, 65536LL));
    v__shape_output = Shape{integer(v_N), v__group_mid, integer(v_C)};
  } else {
    if (equal(v_data_format, lit("NCHW"))) {
      if ((ndim_i(v_value) < 2LL)) {
        shape_error(OP, "value", {"N", "C", "*spatial"}, shape(v_value), {}, "data_format NCHW");
      }
      v_N = dim_i(v_value, 0LL);
      v_C = dim_i(v_value, 1LL);
      v__group_spatial = dims_slice(v_value, integer(2LL), integer(sub_i(ndim_i(v_value), 0LL)));
      v_spatial = prod(v__group_spatial).i;
      if ((ndim_i(v_bias) != 1LL)) {
        shape_error(OP, "bias", {"C"}, shape(v_bias), {Binding{"C", integer(v_C)}}, "data_format NCHW");
      }
      if ((dim_i(v_bias, 0LL) != v_C)) {
        shape_error(OP, "bias", {"C"}, shape(v_bias), {Binding{"C", integer(v_C)}}, "data_format NCHW");
      }
      v_outer = v_N;
      v_inner = v_spatial;
      v_by_channel = (v_inner != 1LL);
      v_rows = add_i(mul_i(mul_i(v_by_channel, v_outer), v_C), mul_i(sub_i(1LL, v_by_channel), v_outer));
      v_width = add_i(mul_i(v_by_channel, v_inner), mul_i(sub_i(1LL, v_by_channel), v_C));
      v_row_threads = ((call->device != OPGEN_DEV_CUDA) ? 1LL : max_i(32LL, min_i(512LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_width), 128LL))))));
      v_row_blocks = ((call->device != OPGEN_DEV_CUDA) ? min_i(v_rows, max_i(1LL, min_i(16LL, neg_i(floordiv_i(neg_i(mul_i(v_rows, v_width)), 4096LL))))) : min_i(v_rows, 65536LL));
      v__shape_output = Shape{integer(v_N), integer(v_C), v__group_spatial};
    } else {
      raise(OPGEN_ERR_RUNTIME, std::string(OP) + ": no shape section for this value");
    }
  }
  v_output = output(call, OP, "output", 0, run, v__shape_output, v__dtype_T);
  if (!run) return;
  static const char* const strings[] = {"bfloat16", "float16", "float32", "float64"};
  static const char* const symbols[] = {"BiasAdd__bias_add__bfloat16", "BiasAdd__bias_add__float16", "BiasAdd__bias_add__float32", "BiasAdd__bias_add__float64"};
  opgen_plan_value values[7] = {plan_value(frame, v__dtype_T, strings, 4), plan_int(v_row_blocks), plan_int(v_row_threads), plan_int(v_rows), plan_int(v_width), plan_int(v_C), plan_int(v_by_channel)};
  opgen_native::Slot slots[3] = {plan_slot(frame, v_value), plan_slot(frame, v_bias), plan_slot(frame, v_output)};
  int rc = opgen_native::run_plan(call, opgen_native::PlanCall{OP, opgen_plan::opgen_plan_BiasAdd, symbols, 4, values, 7, slots, 3, frame.value_checks.data(), (int64_t)frame.value_checks.size()});
  if (rc != OPGEN_OK) raise(rc, call->err);
}

OPGEN_DRIVER_API int opgen_shapes_BiasAdd(opgen_call* call) {
  return opgen_checks::guarded(call, "BiasAdd", [&] { opgen_drive_BiasAdd(call, false); });
}

OPGEN_DRIVER_API int opgen_call_BiasAdd(opgen_call* call) {
  return opgen_checks::guarded(call, "BiasAdd", [&] { opgen_drive_BiasAdd(call, true); });
}
