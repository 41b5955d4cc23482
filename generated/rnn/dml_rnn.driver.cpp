// generated from specs/rnn/dml_rnn.yaml by opgen — do not edit (opgen 0.1.0)
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
// DmlRnn: its plan as codegen/runtime/plan.py records it (codegen/drivergen.py)
static void opgen_plan_walk_DmlRnn(opgen_plan_value* env, const char* backend, Out& out, int64_t* variant) {
  (void)backend;
  if (true) {
    int64_t n2 = whole(num(env[0], "num_directions"), "a repeat count");
    for (int64_t i1 = 0; i1 < n2; ++i1) {
      env[20] = value(integer(i1));
      if (true) {
        out.put(OPGEN_STEP_GEMM); out.put(0); out.put(1); out.put(2);
        { Num size3 = num(env[1], "steps");
          if (size3.is_float) out.put_double(OPGEN_T_FLOAT, size3.f); else { out.put(OPGEN_T_INT); out.put(size3.i); } }
        { Num size4 = num(env[2], "hidden_size");
          if (size4.is_float) out.put_double(OPGEN_T_FLOAT, size4.f); else { out.put(OPGEN_T_INT); out.put(size4.i); } }
        { Num size5 = num(env[3], "input_size");
          if (size5.is_float) out.put_double(OPGEN_T_FLOAT, size5.f); else { out.put(OPGEN_T_INT); out.put(size5.i); } }
        out.put(OPGEN_T_BOOL); out.put(0);
        out.put(OPGEN_T_BOOL); out.put(1);
        { Num size6 = integer(0LL);
          if (size6.is_float) out.put_double(OPGEN_T_FLOAT, size6.f); else { out.put(OPGEN_T_INT); out.put(size6.i); } }
        { Num size7 = integer(0LL);
          if (size7.is_float) out.put_double(OPGEN_T_FLOAT, size7.f); else { out.put(OPGEN_T_INT); out.put(size7.i); } }
        { Num size8 = mul(mul(num(env[20], "d"), num(env[2], "hidden_size")), num(env[3], "input_size"));
          if (size8.is_float) out.put_double(OPGEN_T_FLOAT, size8.f); else { out.put(OPGEN_T_INT); out.put(size8.i); } }
        { Num size9 = mul(mul(num(env[20], "d"), num(env[1], "steps")), num(env[2], "hidden_size"));
          if (size9.is_float) out.put_double(OPGEN_T_FLOAT, size9.f); else { out.put(OPGEN_T_INT); out.put(size9.i); } }
        { Num size10 = integer(1LL);
          if (size10.is_float) out.put_double(OPGEN_T_FLOAT, size10.f); else { out.put(OPGEN_T_INT); out.put(size10.i); } }
        { Num size11 = integer(0LL);
          if (size11.is_float) out.put_double(OPGEN_T_FLOAT, size11.f); else { out.put(OPGEN_T_INT); out.put(size11.i); } }
        { Num size12 = integer(0LL);
          if (size12.is_float) out.put_double(OPGEN_T_FLOAT, size12.f); else { out.put(OPGEN_T_INT); out.put(size12.i); } }
        { Num size13 = integer(0LL);
          if (size13.is_float) out.put_double(OPGEN_T_FLOAT, size13.f); else { out.put(OPGEN_T_INT); out.put(size13.i); } }
      }
    }
  }
  if (true) {
    int64_t sym14 = -1;
    if (sym14 < 0 && env[4].kind == OPGEN_V_STR && env[4].i == 1) sym14 = 5;
    if (sym14 < 0 && env[4].kind == OPGEN_V_STR && env[4].i == 0) sym14 = 4;
    if (sym14 < 0) fail(OPGEN_E_SYMBOL, "kernel 'init_state' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym14);
    out.put(1);
    out.put(whole(num(env[5], "cell_blocks"), "a grid size"));
    out.put(1);
    out.put(whole(num(env[6], "cell_threads"), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs15 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(3);
    out.put(OPGEN_T_SLOT); out.put(4);
    out.put(OPGEN_T_SLOT); out.put(5);
    scalar(out, OPGEN_T_I64, num(env[7], "seq_length"), "seq_length");
    scalar(out, OPGEN_T_I64, num(env[0], "num_directions"), "num_directions");
    scalar(out, OPGEN_T_I64, num(env[8], "batch_size"), "batch_size");
    scalar(out, OPGEN_T_I64, num(env[2], "hidden_size"), "hidden_size");
    out.words[nargs15] = (out.used - nargs15 - 1) / 2;
  }
  if ((std::strcmp(backend, "cpu") == 0)) {
    int64_t sym16 = -1;
    if (sym16 < 0 && env[4].kind == OPGEN_V_STR && env[4].i == 1) sym16 = 11;
    if (sym16 < 0 && env[4].kind == OPGEN_V_STR && env[4].i == 0) sym16 = 10;
    if (sym16 < 0) fail(OPGEN_E_SYMBOL, "kernel 'transpose_recurrence' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym16);
    out.put(2);
    out.put(whole(integer(1LL), "a grid size"));
    out.put(whole(num(env[0], "num_directions"), "a grid size"));
    out.put(1);
    out.put(whole(integer(1LL), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs17 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(6);
    out.put(OPGEN_T_SLOT); out.put(7);
    scalar(out, OPGEN_T_I64, num(env[2], "hidden_size"), "hidden_size");
    out.words[nargs17] = (out.used - nargs17 - 1) / 2;
  }
  if (truth(num(env[12], "persistent"))) {
    int64_t sym18 = -1;
    if (sym18 < 0 && env[4].kind == OPGEN_V_STR && env[4].i == 1) sym18 = 7;
    if (sym18 < 0 && env[4].kind == OPGEN_V_STR && env[4].i == 0) sym18 = 6;
    if (sym18 < 0) fail(OPGEN_E_SYMBOL, "kernel 'persistent' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym18);
    out.put(2);
    out.put(whole(num(env[9], "persistent_blocks"), "a grid size"));
    out.put(whole(num(env[0], "num_directions"), "a grid size"));
    out.put(1);
    out.put(whole(integer(256LL), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs19 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(2);
    out.put(OPGEN_T_SLOT); out.put(6);
    out.put(OPGEN_T_SLOT); out.put(8);
    out.put(OPGEN_T_SLOT); out.put(4);
    out.put(OPGEN_T_SLOT); out.put(9);
    out.put(OPGEN_T_SLOT); out.put(5);
    { const opgen_plan_value& act20 = item(env[10], integer(0LL), "activations");
      if (act20.kind != OPGEN_V_ACT) fail(OPGEN_E_TYPE, "name 'activations' is not an activation");
      scalar(out, OPGEN_T_I32, integer(act20.i), "activations");
      for (int64_t k = 0; k < act20.len; ++k) scalar(out, OPGEN_T_F32, num(act20.items[k], "activations"), "activations"); }
    { const opgen_plan_value& act21 = item(env[10], sub(num(env[0], "num_directions"), integer(1LL)), "activations");
      if (act21.kind != OPGEN_V_ACT) fail(OPGEN_E_TYPE, "name 'activations' is not an activation");
      scalar(out, OPGEN_T_I32, integer(act21.i), "activations");
      for (int64_t k = 0; k < act21.len; ++k) scalar(out, OPGEN_T_F32, num(act21.items[k], "activations"), "activations"); }
    scalar(out, OPGEN_T_I64, num(env[11], "backward_first"), "backward_first");
    scalar(out, OPGEN_T_I64, num(env[7], "seq_length"), "seq_length");
    scalar(out, OPGEN_T_I64, num(env[0], "num_directions"), "num_directions");
    scalar(out, OPGEN_T_I64, num(env[8], "batch_size"), "batch_size");
    scalar(out, OPGEN_T_I64, num(env[2], "hidden_size"), "hidden_size");
    out.words[nargs19] = (out.used - nargs19 - 1) / 2;
  }
  if (truth(num(env[15], "gemm_steps"))) {
    int64_t n23 = whole(num(env[7], "seq_length"), "a repeat count");
    for (int64_t i22 = 0; i22 < n23; ++i22) {
      env[21] = value(integer(i22));
      if (true) {
        int64_t n25 = whole(num(env[0], "num_directions"), "a repeat count");
        for (int64_t i24 = 0; i24 < n25; ++i24) {
          env[20] = value(integer(i24));
          if ((std::strcmp(backend, "cuda") == 0)) {
            out.put(OPGEN_STEP_GEMM); out.put(5); out.put(6); out.put(10);
            { Num size26 = num(env[8], "batch_size");
              if (size26.is_float) out.put_double(OPGEN_T_FLOAT, size26.f); else { out.put(OPGEN_T_INT); out.put(size26.i); } }
            { Num size27 = num(env[2], "hidden_size");
              if (size27.is_float) out.put_double(OPGEN_T_FLOAT, size27.f); else { out.put(OPGEN_T_INT); out.put(size27.i); } }
            { Num size28 = num(env[2], "hidden_size");
              if (size28.is_float) out.put_double(OPGEN_T_FLOAT, size28.f); else { out.put(OPGEN_T_INT); out.put(size28.i); } }
            out.put(OPGEN_T_BOOL); out.put(0);
            out.put(OPGEN_T_BOOL); out.put(1);
            { Num size29 = integer(0LL);
              if (size29.is_float) out.put_double(OPGEN_T_FLOAT, size29.f); else { out.put(OPGEN_T_INT); out.put(size29.i); } }
            { Num size30 = mul(num(env[20], "d"), num(env[13], "cells"));
              if (size30.is_float) out.put_double(OPGEN_T_FLOAT, size30.f); else { out.put(OPGEN_T_INT); out.put(size30.i); } }
            { Num size31 = mul(mul(num(env[20], "d"), num(env[2], "hidden_size")), num(env[2], "hidden_size"));
              if (size31.is_float) out.put_double(OPGEN_T_FLOAT, size31.f); else { out.put(OPGEN_T_INT); out.put(size31.i); } }
            { Num size32 = mul(num(env[20], "d"), num(env[13], "cells"));
              if (size32.is_float) out.put_double(OPGEN_T_FLOAT, size32.f); else { out.put(OPGEN_T_INT); out.put(size32.i); } }
            { Num size33 = integer(1LL);
              if (size33.is_float) out.put_double(OPGEN_T_FLOAT, size33.f); else { out.put(OPGEN_T_INT); out.put(size33.i); } }
            { Num size34 = integer(0LL);
              if (size34.is_float) out.put_double(OPGEN_T_FLOAT, size34.f); else { out.put(OPGEN_T_INT); out.put(size34.i); } }
            { Num size35 = integer(0LL);
              if (size35.is_float) out.put_double(OPGEN_T_FLOAT, size35.f); else { out.put(OPGEN_T_INT); out.put(size35.i); } }
            { Num size36 = integer(0LL);
              if (size36.is_float) out.put_double(OPGEN_T_FLOAT, size36.f); else { out.put(OPGEN_T_INT); out.put(size36.i); } }
          }
          if ((std::strcmp(backend, "cpu") == 0)) {
            out.put(OPGEN_STEP_GEMM); out.put(5); out.put(7); out.put(10);
            { Num size37 = num(env[8], "batch_size");
              if (size37.is_float) out.put_double(OPGEN_T_FLOAT, size37.f); else { out.put(OPGEN_T_INT); out.put(size37.i); } }
            { Num size38 = num(env[2], "hidden_size");
              if (size38.is_float) out.put_double(OPGEN_T_FLOAT, size38.f); else { out.put(OPGEN_T_INT); out.put(size38.i); } }
            { Num size39 = num(env[2], "hidden_size");
              if (size39.is_float) out.put_double(OPGEN_T_FLOAT, size39.f); else { out.put(OPGEN_T_INT); out.put(size39.i); } }
            out.put(OPGEN_T_BOOL); out.put(0);
            out.put(OPGEN_T_BOOL); out.put(0);
            { Num size40 = integer(0LL);
              if (size40.is_float) out.put_double(OPGEN_T_FLOAT, size40.f); else { out.put(OPGEN_T_INT); out.put(size40.i); } }
            { Num size41 = mul(num(env[20], "d"), num(env[13], "cells"));
              if (size41.is_float) out.put_double(OPGEN_T_FLOAT, size41.f); else { out.put(OPGEN_T_INT); out.put(size41.i); } }
            { Num size42 = mul(mul(num(env[20], "d"), num(env[2], "hidden_size")), num(env[2], "hidden_size"));
              if (size42.is_float) out.put_double(OPGEN_T_FLOAT, size42.f); else { out.put(OPGEN_T_INT); out.put(size42.i); } }
            { Num size43 = mul(num(env[20], "d"), num(env[13], "cells"));
              if (size43.is_float) out.put_double(OPGEN_T_FLOAT, size43.f); else { out.put(OPGEN_T_INT); out.put(size43.i); } }
            { Num size44 = integer(1LL);
              if (size44.is_float) out.put_double(OPGEN_T_FLOAT, size44.f); else { out.put(OPGEN_T_INT); out.put(size44.i); } }
            { Num size45 = integer(0LL);
              if (size45.is_float) out.put_double(OPGEN_T_FLOAT, size45.f); else { out.put(OPGEN_T_INT); out.put(size45.i); } }
            { Num size46 = integer(0LL);
              if (size46.is_float) out.put_double(OPGEN_T_FLOAT, size46.f); else { out.put(OPGEN_T_INT); out.put(size46.i); } }
            { Num size47 = integer(0LL);
              if (size47.is_float) out.put_double(OPGEN_T_FLOAT, size47.f); else { out.put(OPGEN_T_INT); out.put(size47.i); } }
          }
        }
      }
      if (true) {
        int64_t sym48 = -1;
        if (sym48 < 0 && env[4].kind == OPGEN_V_STR && env[4].i == 1) sym48 = 9;
        if (sym48 < 0 && env[4].kind == OPGEN_V_STR && env[4].i == 0) sym48 = 8;
        if (sym48 < 0) fail(OPGEN_E_SYMBOL, "kernel 'step' has no entry point for the dtypes of " "_dtype_T");
        out.put(OPGEN_STEP_LAUNCH); out.put(sym48);
        out.put(1);
        out.put(whole(num(env[5], "cell_blocks"), "a grid size"));
        out.put(1);
        out.put(whole(num(env[14], "step_threads"), "a block size"));
        out.put(whole(integer(0LL), "the shared size"));
        int64_t nargs49 = out.used; out.put(0);
        out.put(OPGEN_T_SLOT); out.put(2);
        out.put(OPGEN_T_SLOT); out.put(10);
        out.put(OPGEN_T_SLOT); out.put(8);
        out.put(OPGEN_T_SLOT); out.put(4);
        out.put(OPGEN_T_SLOT); out.put(9);
        out.put(OPGEN_T_SLOT); out.put(5);
        { const opgen_plan_value& act50 = item(env[10], integer(0LL), "activations");
          if (act50.kind != OPGEN_V_ACT) fail(OPGEN_E_TYPE, "name 'activations' is not an activation");
          scalar(out, OPGEN_T_I32, integer(act50.i), "activations");
          for (int64_t k = 0; k < act50.len; ++k) scalar(out, OPGEN_T_F32, num(act50.items[k], "activations"), "activations"); }
        { const opgen_plan_value& act51 = item(env[10], sub(num(env[0], "num_directions"), integer(1LL)), "activations");
          if (act51.kind != OPGEN_V_ACT) fail(OPGEN_E_TYPE, "name 'activations' is not an activation");
          scalar(out, OPGEN_T_I32, integer(act51.i), "activations");
          for (int64_t k = 0; k < act51.len; ++k) scalar(out, OPGEN_T_F32, num(act51.items[k], "activations"), "activations"); }
        scalar(out, OPGEN_T_I64, num(env[21], "s"), "s");
        scalar(out, OPGEN_T_I64, num(env[11], "backward_first"), "backward_first");
        scalar(out, OPGEN_T_I64, num(env[7], "seq_length"), "seq_length");
        scalar(out, OPGEN_T_I64, num(env[0], "num_directions"), "num_directions");
        scalar(out, OPGEN_T_I64, num(env[8], "batch_size"), "batch_size");
        scalar(out, OPGEN_T_I64, num(env[2], "hidden_size"), "hidden_size");
        out.words[nargs49] = (out.used - nargs49 - 1) / 2;
      }
    }
  }
  if (truth(num(env[18], "fused"))) {
    int64_t n53 = whole(num(env[7], "seq_length"), "a repeat count");
    for (int64_t i52 = 0; i52 < n53; ++i52) {
      env[21] = value(integer(i52));
      if (true) {
        int64_t sym54 = -1;
        if (sym54 < 0 && env[4].kind == OPGEN_V_STR && env[4].i == 1) sym54 = 3;
        if (sym54 < 0 && env[4].kind == OPGEN_V_STR && env[4].i == 0) sym54 = 2;
        if (sym54 < 0) fail(OPGEN_E_SYMBOL, "kernel 'fused_step' has no entry point for the dtypes of " "_dtype_T");
        out.put(OPGEN_STEP_LAUNCH); out.put(sym54);
        out.put(3);
        out.put(whole(num(env[16], "fused_row_tiles"), "a grid size"));
        out.put(whole(num(env[17], "fused_unit_tiles"), "a grid size"));
        out.put(whole(num(env[0], "num_directions"), "a grid size"));
        out.put(1);
        out.put(whole(integer(256LL), "a block size"));
        out.put(whole(integer(0LL), "the shared size"));
        int64_t nargs55 = out.used; out.put(0);
        out.put(OPGEN_T_SLOT); out.put(2);
        out.put(OPGEN_T_SLOT); out.put(10);
        out.put(OPGEN_T_SLOT); out.put(6);
        out.put(OPGEN_T_SLOT); out.put(8);
        out.put(OPGEN_T_SLOT); out.put(4);
        out.put(OPGEN_T_SLOT); out.put(9);
        out.put(OPGEN_T_SLOT); out.put(5);
        out.put(OPGEN_T_SLOT); out.put(11);
        { const opgen_plan_value& act56 = item(env[10], integer(0LL), "activations");
          if (act56.kind != OPGEN_V_ACT) fail(OPGEN_E_TYPE, "name 'activations' is not an activation");
          scalar(out, OPGEN_T_I32, integer(act56.i), "activations");
          for (int64_t k = 0; k < act56.len; ++k) scalar(out, OPGEN_T_F32, num(act56.items[k], "activations"), "activations"); }
        { const opgen_plan_value& act57 = item(env[10], sub(num(env[0], "num_directions"), integer(1LL)), "activations");
          if (act57.kind != OPGEN_V_ACT) fail(OPGEN_E_TYPE, "name 'activations' is not an activation");
          scalar(out, OPGEN_T_I32, integer(act57.i), "activations");
          for (int64_t k = 0; k < act57.len; ++k) scalar(out, OPGEN_T_F32, num(act57.items[k], "activations"), "activations"); }
        scalar(out, OPGEN_T_I64, num(env[21], "s"), "s");
        scalar(out, OPGEN_T_I64, num(env[11], "backward_first"), "backward_first");
        scalar(out, OPGEN_T_I64, num(env[7], "seq_length"), "seq_length");
        scalar(out, OPGEN_T_I64, num(env[0], "num_directions"), "num_directions");
        scalar(out, OPGEN_T_I64, num(env[8], "batch_size"), "batch_size");
        scalar(out, OPGEN_T_I64, num(env[2], "hidden_size"), "hidden_size");
        out.words[nargs55] = (out.used - nargs55 - 1) / 2;
      }
    }
  }
  if ((truth(num(env[18], "fused")) && (compare(num(env[7], "seq_length"), integer(0LL)) > 0))) {
    int64_t sym58 = -1;
    if (sym58 < 0 && env[4].kind == OPGEN_V_STR && env[4].i == 1) sym58 = 1;
    if (sym58 < 0 && env[4].kind == OPGEN_V_STR && env[4].i == 0) sym58 = 0;
    if (sym58 < 0) fail(OPGEN_E_SYMBOL, "kernel 'final_state' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym58);
    out.put(1);
    out.put(whole(num(env[5], "cell_blocks"), "a grid size"));
    out.put(1);
    out.put(whole(num(env[6], "cell_threads"), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs59 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(11);
    out.put(OPGEN_T_SLOT); out.put(5);
    scalar(out, OPGEN_T_I64, num(env[7], "seq_length"), "seq_length");
    scalar(out, OPGEN_T_I64, num(env[19], "all_cells"), "all_cells");
    out.words[nargs59] = (out.used - nargs59 - 1) / 2;
  }
  *variant = -1;
  if (*variant < 0 && truth(num(env[12], "persistent"))) *variant = 0;
  if (*variant < 0 && truth(num(env[18], "fused"))) *variant = 1;
  if (*variant < 0 && truth(num(env[15], "gemm_steps"))) *variant = 2;
}

OPGEN_PLAN_API int opgen_plan_DmlRnn(const opgen_plan_value* values, int64_t nvalues, const char* backend, int64_t* words, int64_t capacity, int64_t* used, int64_t* variant, char* err, int64_t errlen) {
  Out out{words, capacity, 0};
  try {
    if (nvalues != 20) fail(OPGEN_E_VALUES, "the plan reads 20 names, the call gave " + std::to_string(nvalues));
    if (backend == nullptr) fail(OPGEN_E_VALUES, "no backend named");
    opgen_plan_value env[22] = {};
    for (int64_t k = 0; k < 20; ++k) env[k] = values[k];
    opgen_plan_walk_DmlRnn(env, backend, out, variant);
    *used = out.used;
    return OPGEN_PLAN_OK;
  } catch (const Error& e) {
    *used = out.used;
    return report(Error{e.code, "DmlRnn: " + e.message}, err, errlen);
  } catch (...) {  // (std::bad_alloc building a message): an error, never an exception through C
    *used = out.used;
    return report(Error{OPGEN_E_INTERNAL, "DmlRnn: the native recorder failed"}, err, errlen);
  }
}

OPGEN_PLAN_API const char* opgen_plan_DmlRnn_info(int table, int64_t index) {
  static const char* const t0[] = {"num_directions", "steps", "hidden_size", "input_size", "_dtype_T", "cell_blocks", "cell_threads", "seq_length", "batch_size", "persistent_blocks", "activations", "backward_first", "persistent", "cells", "step_threads", "gemm_steps", "fused_row_tiles", "fused_unit_tiles", "fused", "all_cells"};
  if (table == 0) return index >= 0 && index < 20 ? t0[index] : nullptr;
  static const char* const t1[] = {"float16", "float32"};
  if (table == 1) return index >= 0 && index < 2 ? t1[index] : nullptr;
  static const char* const t2[] = {"DmlRnn__final_state__float16", "DmlRnn__final_state__float32", "DmlRnn__fused_step__float16", "DmlRnn__fused_step__float32", "DmlRnn__init_state__float16", "DmlRnn__init_state__float32", "DmlRnn__persistent__float16", "DmlRnn__persistent__float32", "DmlRnn__step__float16", "DmlRnn__step__float32", "DmlRnn__transpose_recurrence__float16", "DmlRnn__transpose_recurrence__float32"};
  if (table == 2) return index >= 0 && index < 12 ? t2[index] : nullptr;
  static const char* const t3[] = {"persistent", "fused", "gemm_steps"};
  if (table == 3) return index >= 0 && index < 3 ? t3[index] : nullptr;
  return nullptr;
}

}  // namespace opgen_plan
// DmlRnn: its wrapper's _compute in C++ (codegen/drivergen_checks.py)
static void opgen_drive_DmlRnn(opgen_call* call, bool run) {
  using namespace opgen_checks;
  static const char OP[] = "DmlRnn";
  Frame frame;
  if (call->ninputs != 6 || call->nattrs != 2) raise(OPGEN_ERR_RUNTIME, std::string(OP) + ": the driver takes 6 inputs and 2 attrs, the call gave " + std::to_string(call->ninputs) + " and " + std::to_string(call->nattrs));
  call->noutputs = 2;
  V v_input = input_value(call, 0);
  V v_weight = input_value(call, 1);
  V v_recurrence = input_value(call, 2);
  V v_bias = input_value(call, 3);
  V v_hidden_init = input_value(call, 4);
  V v_sequence_lengths = input_value(call, 5);
  V v_direction = attr_value(call->attrs[0]);
  V v_activations = attr_value(call->attrs[1]);
  V v__dtype_T;
  int64_t v_all_cells = 0;
  int64_t v_backward_first = 0;
  int64_t v_batch_size = 0;
  int64_t v_cell_blocks = 0;
  int64_t v_cell_threads = 0;
  int64_t v_cells = 0;
  bool v_fused = false;
  int64_t v_fused_max_hidden = 0;
  int64_t v_fused_row_tiles = 0;
  int64_t v_fused_unit_tiles = 0;
  bool v_gemm_steps = false;
  int64_t v_hidden_size = 0;
  int64_t v_input_size = 0;
  int64_t v_num_directions = 0;
  int64_t v_on_cpu = 0;
  V v_output_sequence;
  V v_output_single;
  bool v_persistent = false;
  int64_t v_persistent_blocks = 0;
  int64_t v_persistent_max_batch = 0;
  int64_t v_persistent_max_hidden = 0;
  V v_projected;
  V v_recurrent;
  V v_rt;
  int64_t v_seq_length = 0;
  int64_t v_state_slots = 0;
  V v_states;
  int64_t v_step_threads = 0;
  int64_t v_steps = 0;
  Shape v__shape_output_sequence;
  Shape v__shape_output_single;
  v_direction = check_enum(OP, "direction", v_direction, {lit("forward"), lit("backward"), lit("bidirectional")});
  v_input = adopt(call, OP, "input", v_input);
  v__dtype_T = check_dtype(OP, "input", v_input, {"float32", "float16"}, "T");
  v_weight = adopt(call, OP, "weight", v_weight);
  check_same_dtype(OP, "weight", v_weight, v__dtype_T, "T", "input");
  v_recurrence = adopt(call, OP, "recurrence", v_recurrence);
  check_same_dtype(OP, "recurrence", v_recurrence, v__dtype_T, "T", "input");
  if ((v_bias.kind != K_NONE)) {
    v_bias = adopt(call, OP, "bias", v_bias);
    check_same_dtype(OP, "bias", v_bias, v__dtype_T, "T", "input");
  }
  if ((v_hidden_init.kind != K_NONE)) {
    v_hidden_init = adopt(call, OP, "hidden_init", v_hidden_init);
    check_same_dtype(OP, "hidden_init", v_hidden_init, v__dtype_T, "T", "input");
  }
  if ((v_sequence_lengths.kind != K_NONE)) {
    v_sequence_lengths = adopt(call, OP, "sequence_lengths", v_sequence_lengths);
    check_dtype(OP, "sequence_lengths", v_sequence_lengths, {"uint32", "int32", "int64"}, nullptr);
  }
  if (equal(v_direction, lit("forward"))) {
    if ((ndim_i(v_input) != 4LL)) {
      shape_error(OP, "input", {"1", "seq_length", "batch_size", "input_size"}, shape(v_input), {}, "direction forward");
    }
    v_seq_length = dim_i(v_input, 1LL);
    v_batch_size = dim_i(v_input, 2LL);
    v_input_size = dim_i(v_input, 3LL);
    if ((dim_i(v_input, 0LL) != 1LL)) {
      shape_error(OP, "input", {"1", "seq_length", "batch_size", "input_size"}, shape(v_input), {Binding{"batch_size", integer(v_batch_size)}, Binding{"input_size", integer(v_input_size)}, Binding{"seq_length", integer(v_seq_length)}}, "direction forward");
    }
    if ((ndim_i(v_weight) != 4LL)) {
      shape_error(OP, "weight", {"1", "1", "hidden_size", "input_size"}, shape(v_weight), {Binding{"input_size", integer(v_input_size)}}, "direction forward");
    }
    v_hidden_size = dim_i(v_weight, 2LL);
    if (((dim_i(v_weight, 0LL) != 1LL) || (dim_i(v_weight, 1LL) != 1LL) || (dim_i(v_weight, 3LL) != v_input_size))) {
      shape_error(OP, "weight", {"1", "1", "hidden_size", "input_size"}, shape(v_weight), {Binding{"hidden_size", integer(v_hidden_size)}, Binding{"input_size", integer(v_input_size)}}, "direction forward");
    }
    if ((ndim_i(v_recurrence) != 4LL)) {
      shape_error(OP, "recurrence", {"1", "1", "hidden_size", "hidden_size"}, shape(v_recurrence), {Binding{"hidden_size", integer(v_hidden_size)}}, "direction forward");
    }
    if (((dim_i(v_recurrence, 0LL) != 1LL) || (dim_i(v_recurrence, 1LL) != 1LL) || (dim_i(v_recurrence, 2LL) != v_hidden_size) || (dim_i(v_recurrence, 3LL) != v_hidden_size))) {
      shape_error(OP, "recurrence", {"1", "1", "hidden_size", "hidden_size"}, shape(v_recurrence), {Binding{"hidden_size", integer(v_hidden_size)}}, "direction forward");
    }
    if ((v_bias.kind != K_NONE)) {
      if ((ndim_i(v_bias) != 4LL)) {
        shape_error(OP, "bias", {"1", "1", "1", "2*hidden_size"}, shape(v_bias), {Binding{"hidden_size", integer(v_hidden_size)}, Binding{"2*hidden_size", integer(mul_i(2LL, v_hidden_size))}}, "direction forward");
      }
      if (((dim_i(v_bias, 0LL) != 1LL) || (dim_i(v_bias, 1LL) != 1LL) || (dim_i(v_bias, 2LL) != 1LL) || (dim_i(v_bias, 3LL) != mul_i(2LL, v_hidden_size)))) {
        shape_error(OP, "bias", {"1", "1", "1", "2*hidden_size"}, shape(v_bias), {Binding{"hidden_size", integer(v_hidden_size)}, Binding{"2*hidden_size", integer(mul_i(2LL, v_hidden_size))}}, "direction forward");
      }
    }
    if ((v_hidden_init.kind != K_NONE)) {
      if ((ndim_i(v_hidden_init) != 4LL)) {
        shape_error(OP, "hidden_init", {"1", "1", "batch_size", "hidden_size"}, shape(v_hidden_init), {Binding{"batch_size", integer(v_batch_size)}, Binding{"hidden_size", integer(v_hidden_size)}}, "direction forward");
      }
      if (((dim_i(v_hidden_init, 0LL) != 1LL) || (dim_i(v_hidden_init, 1LL) != 1LL) || (dim_i(v_hidden_init, 2LL) != v_batch_size) || (dim_i(v_hidden_init, 3LL) != v_hidden_size))) {
        shape_error(OP, "hidden_init", {"1", "1", "batch_size", "hidden_size"}, shape(v_hidden_init), {Binding{"batch_size", integer(v_batch_size)}, Binding{"hidden_size", integer(v_hidden_size)}}, "direction forward");
      }
    }
    if ((v_sequence_lengths.kind != K_NONE)) {
      if ((ndim_i(v_sequence_lengths) != 4LL)) {
        shape_error(OP, "sequence_lengths", {"1", "1", "1", "batch_size"}, shape(v_sequence_lengths), {Binding{"batch_size", integer(v_batch_size)}}, "direction forward");
      }
      if (((dim_i(v_sequence_lengths, 0LL) != 1LL) || (dim_i(v_sequence_lengths, 1LL) != 1LL) || (dim_i(v_sequence_lengths, 2LL) != 1LL) || (dim_i(v_sequence_lengths, 3LL) != v_batch_size))) {
        shape_error(OP, "sequence_lengths", {"1", "1", "1", "batch_size"}, shape(v_sequence_lengths), {Binding{"batch_size", integer(v_batch_size)}}, "direction forward");
      }
    }
    v_persistent_max_hidden = 64LL;
    v_persistent_max_batch = 64LL;
    v_fused_max_hidden = 128LL;
    v_persistent = ((call->device == OPGEN_DEV_CUDA) && (v_hidden_size >= 1LL) && (v_hidden_size <= v_persistent_max_hidden) && (v_batch_size >= 1LL) && (v_batch_size <= v_persistent_max_batch));
    v_fused = (!v_persistent && ((call->device == OPGEN_DEV_CUDA) && (v_hidden_size >= 1LL) && (v_hidden_size <= v_fused_max_hidden)));
    v_gemm_steps = (!v_persistent && !v_fused);
    v_num_directions = 1LL;
    v_backward_first = 0LL;
    v_steps = mul_i(v_seq_length, v_batch_size);
    v_cells = mul_i(v_batch_size, v_hidden_size);
    v_all_cells = mul_i(v_num_directions, v_cells);
    v_cell_threads = ((call->device != OPGEN_DEV_CUDA) ? max_i(32LL, min_i(1024LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_hidden_size), 128LL))))) : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_cells), 128LL))))));
    v_cell_blocks = ((call->device != OPGEN_DEV_CUDA) ? min_i(neg_i(floordiv_i(neg_i(v_cells), 65536LL)), 64LL) : min_i(neg_i(floordiv_i(neg_i(v_cells), 1024LL)), 65535LL));
    v_step_threads = ((call->device != OPGEN_DEV_CUDA) ? max_i(32LL, min_i(1024LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_hidden_size), 128LL))))) : max_i(128LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_cells), 128LL))))));
    v_persistent_blocks = neg_i(floordiv_i(neg_i(v_batch_size), 4LL));
    v_fused_row_tiles = max_i(neg_i(floordiv_i(neg_i(v_batch_size), 32LL)), 3LL);
    v_fused_unit_tiles = neg_i(floordiv_i(neg_i(v_hidden_size), 32LL));
    v_state_slots = mul_i(2LL, v_fused);
    v_on_cpu = ((call->device != OPGEN_DEV_CUDA) ? 1LL : 0LL);
    v__shape_output_sequence = Shape{v_seq_length, 1LL, v_batch_size, v_hidden_size};
    v__shape_output_single = Shape{1LL, 1LL, v_batch_size, v_hidden_size};
  } else {
    if (equal(v_direction, lit("backward"))) {
      if ((ndim_i(v_input) != 4LL)) {
        shape_error(OP, "input", {"1", "seq_length", "batch_size", "input_size"}, shape(v_input), {}, "direction backward");
      }
      v_seq_length = dim_i(v_input, 1LL);
      v_batch_size = dim_i(v_input, 2LL);
      v_input_size = dim_i(v_input, 3LL);
      if ((dim_i(v_input, 0LL) != 1LL)) {
        shape_error(OP, "input", {"1", "seq_length", "batch_size", "input_size"}, shape(v_input), {Binding{"batch_size", integer(v_batch_size)}, Binding{"input_size", integer(v_input_size)}, Binding{"seq_length", integer(v_seq_length)}}, "direction backward");
      }
      if ((ndim_i(v_weight) != 4LL)) {
        shape_error(OP, "weight", {"1", "1", "hidden_size", "input_size"}, shape(v_weight), {Binding{"input_size", integer(v_input_size)}}, "direction backward");
      }
      v_hidden_size = dim_i(v_weight, 2LL);
      if (((dim_i(v_weight, 0LL) != 1LL) || (dim_i(v_weight, 1LL) != 1LL) || (dim_i(v_weight, 3LL) != v_input_size))) {
        shape_error(OP, "weight", {"1", "1", "hidden_size", "input_size"}, shape(v_weight), {Binding{"hidden_size", integer(v_hidden_size)}, Binding{"input_size", integer(v_input_size)}}, "direction backward");
      }
      if ((ndim_i(v_recurrence) != 4LL)) {
        shape_error(OP, "recurrence", {"1", "1", "hidden_size", "hidden_size"}, shape(v_recurrence), {Binding{"hidden_size", integer(v_hidden_size)}}, "direction backward");
      }
      if (((dim_i(v_recurrence, 0LL) != 1LL) || (dim_i(v_recurrence, 1LL) != 1LL) || (dim_i(v_recurrence, 2LL) != v_hidden_size) || (dim_i(v_recurrence, 3LL) != v_hidden_size))) {
        shape_error(OP, "recurrence", {"1", "1", "hidden_size", "hidden_size"}, shape(v_recurrence), {Binding{"hidden_size", integer(v_hidden_size)}}, "direction backward");
      }
      if ((v_bias.kind != K_NONE)) {
        if ((ndim_i(v_bias) != 4LL)) {
          shape_error(OP, "bias", {"1", "1", "1", "2*hidden_size"}, shape(v_bias), {Binding{"hidden_size", integer(v_hidden_size)}, Binding{"2*hidden_size", integer(mul_i(2LL, v_hidden_size))}}, "direction backward");
        }
        if (((dim_i(v_bias, 0LL) != 1LL) || (dim_i(v_bias, 1LL) != 1LL) || (dim_i(v_bias, 2LL) != 1LL) || (dim_i(v_bias, 3LL) != mul_i(2LL, v_hidden_size)))) {
          shape_error(OP, "bias", {"1", "1", "1", "2*hidden_size"}, shape(v_bias), {Binding{"hidden_size", integer(v_hidden_size)}, Binding{"2*hidden_size", integer(mul_i(2LL, v_hidden_size))}}, "direction backward");
        }
      }
      if ((v_hidden_init.kind != K_NONE)) {
        if ((ndim_i(v_hidden_init) != 4LL)) {
          shape_error(OP, "hidden_init", {"1", "1", "batch_size", "hidden_size"}, shape(v_hidden_init), {Binding{"batch_size", integer(v_batch_size)}, Binding{"hidden_size", integer(v_hidden_size)}}, "direction backward");
        }
        if (((dim_i(v_hidden_init, 0LL) != 1LL) || (dim_i(v_hidden_init, 1LL) != 1LL) || (dim_i(v_hidden_init, 2LL) != v_batch_size) || (dim_i(v_hidden_init, 3LL) != v_hidden_size))) {
          shape_error(OP, "hidden_init", {"1", "1", "batch_size", "hidden_size"}, shape(v_hidden_init), {Binding{"batch_size", integer(v_batch_size)}, Binding{"hidden_size", integer(v_hidden_size)}}, "direction backward");
        }
      }
      if ((v_sequence_lengths.kind != K_NONE)) {
        if ((ndim_i(v_sequence_lengths) != 4LL)) {
          shape_error(OP, "sequence_lengths", {"1", "1", "1", "batch_size"}, shape(v_sequence_lengths), {Binding{"batch_size", integer(v_batch_size)}}, "direction backward");
        }
        if (((dim_i(v_sequence_lengths, 0LL) != 1LL) || (dim_i(v_sequence_lengths, 1LL) != 1LL) || (dim_i(v_sequence_lengths, 2LL) != 1LL) || (dim_i(v_sequence_lengths, 3LL) != v_batch_size))) {
          shape_error(OP, "sequence_lengths", {"1", "1", "1", "batch_size"}, shape(v_sequence_lengths), {Binding{"batch_size", integer(v_batch_size)}}, "direction backward");
        }
      }
      v_persistent_max_hidden = 64LL;
      v_persistent_max_batch = 64LL;
      v_fused_max_hidden = 128LL;
      v_persistent = ((call->device == OPGEN_DEV_CUDA) && (v_hidden_size >= 1LL) && (v_hidden_size <= v_persistent_max_hidden) && (v_batch_size >= 1LL) && (v_batch_size <= v_persistent_max_batch));
      v_fused = (!v_persistent && ((call->device == OPGEN_DEV_CUDA) && (v_hidden_size >= 1LL) && (v_hidden_size <= v_fused_max_hidden)));
      v_gemm_steps = (!v_persistent && !v_fused);
      v_num_directions = 1LL;
      v_backward_first = 1LL;
      v_steps = mul_i(v_seq_length, v_batch_size);
      v_cells = mul_i(v_batch_size, v_hidden_size);
      v_all_cells = mul_i(v_num_directions, v_cells);
      v_cell_threads = ((call->device != OPGEN_DEV_CUDA) ? max_i(32LL, min_i(1024LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_hidden_size), 128LL))))) : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_cells), 128LL))))));
      v_cell_blocks = ((call->device != OPGEN_DEV_CUDA) ? min_i(neg_i(floordiv_i(neg_i(v_cells), 65536LL)), 64LL) : min_i(neg_i(floordiv_i(neg_i(v_cells), 1024LL)), 65535LL));
      v_step_threads = ((call->device != OPGEN_DEV_CUDA) ? max_i(32LL, min_i(1024LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_hidden_size), 128LL))))) : max_i(128LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_cells), 128LL))))));
      v_persistent_blocks = neg_i(floordiv_i(neg_i(v_batch_size), 4LL));
      v_fused_row_tiles = max_i(neg_i(floordiv_i(neg_i(v_batch_size), 32LL)), 3LL);
      v_fused_unit_tiles = neg_i(floordiv_i(neg_i(v_hidden_size), 32LL));
      v_state_slots = mul_i(2LL, v_fused);
      v_on_cpu = ((call->device != OPGEN_DEV_CUDA) ? 1LL : 0LL);
      v__shape_output_sequence = Shape{v_seq_length, 1LL, v_batch_size, v_hidden_size};
      v__shape_output_single = Shape{1LL, 1LL, v_batch_size, v_hidden_size};
    } else {
      if (equal(v_direction, lit("bidirectional"))) {
        if ((ndim_i(v_input) != 4LL)) {
          shape_error(OP, "input", {"1", "seq_length", "batch_size", "input_size"}, shape(v_input), {}, "direction bidirectional");
        }
        v_seq_length = dim_i(v_input, 1LL);
        v_batch_size = dim_i(v_input, 2LL);
        v_input_size = dim_i(v_input, 3LL);
        if ((dim_i(v_input, 0LL) != 1LL)) {
          shape_error(OP, "input", {"1", "seq_length", "batch_size", "input_size"}, shape(v_input), {Binding{"batch_size", integer(v_batch_size)}, Binding{"input_size", integer(v_input_size)}, Binding{"seq_length", integer(v_seq_length)}}, "direction bidirectional");
        }
        if ((ndim_i(v_weight) != 4LL)) {
          shape_error(OP, "weight", {"1", "2", "hidden_size", "input_size"}, shape(v_weight), {Binding{"input_size", integer(v_input_size)}}, "direction bidirectional");
        }
        v_hidden_size = dim_i(v_weight, 2LL);
        if (((dim_i(v_weight, 0LL) != 1LL) || (dim_i(v_weight, 1LL) != 2LL) || (dim_i(v_weight, 3LL) != v_input_size))) {
          shape_error(OP, "weight", {"1", "2", "hidden_size", "input_size"}, shape(v_weight), {Binding{"hidden_size", integer(v_hidden_size)}, Binding{"input_size", integer(v_input_size)}}, "direction bidirectional");
        }
        if ((ndim_i(v_recurrence) != 4LL)) {
          shape_error(OP, "recurrence", {"1", "2", "hidden_size", "hidden_size"}, shape(v_recurrence), {Binding{"hidden_size", integer(v_hidden_size)}}, "direction bidirectional");
        }
        if (((dim_i(v_recurrence, 0LL) != 1LL) || (dim_i(v_recurrence, 1LL) != 2LL) || (dim_i(v_recurrence, 2LL) != v_hidden_size) || (dim_i(v_recurrence, 3LL) != v_hidden_size))) {
          shape_error(OP, "recurrence", {"1", "2", "hidden_size", "hidden_size"}, shape(v_recurrence), {Binding{"hidden_size", integer(v_hidden_size)}}, "direction bidirectional");
        }
        if ((v_bias.kind != K_NONE)) {
          if ((ndim_i(v_bias) != 4LL)) {
            shape_error(OP, "bias", {"1", "1", "2", "2*hidden_size"}, shape(v_bias), {Binding{"hidden_size", integer(v_hidden_size)}, Binding{"2*hidden_size", integer(mul_i(2LL, v_hidden_size))}}, "direction bidirectional");
          }
          if (((dim_i(v_bias, 0LL) != 1LL) || (dim_i(v_bias, 1LL) != 1LL) || (dim_i(v_bias, 2LL) != 2LL) || (dim_i(v_bias, 3LL) != mul_i(2LL, v_hidden_size)))) {
            shape_error(OP, "bias", {"1", "1", "2", "2*hidden_size"}, shape(v_bias), {Binding{"hidden_size", integer(v_hidden_size)}, Binding{"2*hidden_size", integer(mul_i(2LL, v_hidden_size))}}, "direction bidirectional");
          }
        }
        if ((v_hidden_init.kind != K_NONE)) {
          if ((ndim_i(v_hidden_init) != 4LL)) {
            shape_error(OP, "hidden_init", {"1", "2", "batch_size", "hidden_size"}, shape(v_hidden_init), {Binding{"batch_size", integer(v_batch_size)}, Binding{"hidden_size", integer(v_hidden_size)}}, "direction bidirectional");
          }
          if (((dim_i(v_hidden_init, 0LL) != 1LL) || (dim_i(v_hidden_init, 1LL) != 2LL) || (dim_i(v_hidden_init, 2LL) != v_batch_size) || (dim_i(v_hidden_init, 3LL) != v_hidden_size))) {
            shape_error(OP, "hidden_init", {"1", "2", "batch_size", "hidden_size"}, shape(v_hidden_init), {Binding{"batch_size", integer(v_batch_size)}, Binding{"hidden_size", integer(v_hidden_size)}}, "direction bidirectional");
          }
        }
        if ((v_sequence_lengths.kind != K_NONE)) {
          if ((ndim_i(v_sequence_lengths) != 4LL)) {
            shape_error(OP, "sequence_lengths", {"1", "1", "1", "batch_size"}, shape(v_sequence_lengths), {Binding{"batch_size", integer(v_batch_size)}}, "direction bidirectional");
          }
          if (((dim_i(v_sequence_lengths, 0LL) != 1LL) || (dim_i(v_sequence_lengths, 1LL) != 1LL) || (dim_i(v_sequence_lengths, 2LL) != 1LL) || (dim_i(v_sequence_lengths, 3LL) != v_batch_size))) {
            shape_error(OP, "sequence_lengths", {"1", "1", "1", "batch_size"}, shape(v_sequence_lengths), {Binding{"batch_size", integer(v_batch_size)}}, "direction bidirectional");
          }
        }
        v_persistent_max_hidden = 64LL;
        v_persistent_max_batch = 64LL;
        v_fused_max_hidden = 128LL;
        v_persistent = ((call->device == OPGEN_DEV_CUDA) && (v_hidden_size >= 1LL) && (v_hidden_size <= v_persistent_max_hidden) && (v_batch_size >= 1LL) && (v_batch_size <= v_persistent_max_batch));
        v_fused = (!v_persistent && ((call->device == OPGEN_DEV_CUDA) && (v_hidden_size >= 1LL) && (v_hidden_size <= v_fused_max_hidden)));
        v_gemm_steps = (!v_persistent && !v_fused);
        v_num_directions = 2LL;
        v_backward_first = 0LL;
        v_steps = mul_i(v_seq_length, v_batch_size);
        v_cells = mul_i(v_batch_size, v_hidden_size);
        v_all_cells = mul_i(v_num_directions, v_cells);
        v_cell_threads = ((call->device != OPGEN_DEV_CUDA) ? max_i(32LL, min_i(1024LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_hidden_size), 128LL))))) : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_cells), 128LL))))));
        v_cell_blocks = ((call->device != OPGEN_DEV_CUDA) ? min_i(neg_i(floordiv_i(neg_i(v_cells), 65536LL)), 64LL) : min_i(neg_i(floordiv_i(neg_i(v_cells), 1024LL)), 65535LL));
        v_step_threads = ((call->device != OPGEN_DEV_CUDA) ? max_i(32LL, min_i(1024LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_hidden_size), 128LL))))) : max_i(128LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_cells), 128LL))))));
        v_persistent_blocks = neg_i(floordiv_i(neg_i(v_batch_size), 4LL));
        v_fused_row_tiles = max_i(neg_i(floordiv_i(neg_i(v_batch_size), 32LL)), 3LL);
        v_fused_unit_tiles = neg_i(floordiv_i(neg_i(v_hidden_size), 32LL));
        v_state_slots = mul_i(2LL, v_fused);
        v_on_cpu = ((call->device != OPGEN_DEV_CUDA) ? 1LL : 0LL);
        v__shape_output_sequence = Shape{v_seq_length, 2LL, v_batch_size, v_hidden_size};
        v__shape_output_single = Shape{1LL, 2LL, v_batch_size, v_hidden_size};
      } else {
        raise(OPGEN_ERR_RUNTIME, std::string(OP) + ": no shape section for this value");
      }
    }
  }
  v_activations = check_activation_list(frame, OP, "activations", v_activations, true, integer(v_num_directions));
  if ((v_sequence_lengths.kind != K_NONE)) {
    check_values(call, frame, true, OP, "sequence_lengths", v_sequence_lengths, integer(0LL), integer(v_seq_length), "0", "seq_length");
  }
  if ((v_sequence_lengths.kind != K_NONE)) {
    v_sequence_lengths = as_dtype(v_sequence_lengths, "uint32", "sequence_lengths");
  }
  v_output_sequence = output(call, OP, "output_sequence", 0, run, v__shape_output_sequence, v__dtype_T);
  v_output_single = output(call, OP, "output_single", 1, run, v__shape_output_single, v__dtype_T);
  if (!run) return;
  v_projected = scratch(call, frame, Shape{v_num_directions, v_seq_length, v_batch_size, v_hidden_size}, v__dtype_T);
  v_recurrent = scratch(call, frame, Shape{v_num_directions, v_batch_size, v_hidden_size}, v__dtype_T);
  v_states = scratch(call, frame, Shape{v_state_slots, v_num_directions, v_batch_size, v_hidden_size}, v__dtype_T);
  v_rt = scratch(call, frame, Shape{mul_i(mul_i(mul_i(v_num_directions, v_hidden_size), v_hidden_size), v_on_cpu)}, v__dtype_T);
  static const char* const strings[] = {"float16", "float32"};
  static const char* const symbols[] = {"DmlRnn__final_state__float16", "DmlRnn__final_state__float32", "DmlRnn__fused_step__float16", "DmlRnn__fused_step__float32", "DmlRnn__init_state__float16", "DmlRnn__init_state__float32", "DmlRnn__persistent__float16", "DmlRnn__persistent__float32", "DmlRnn__step__float16", "DmlRnn__step__float32", "DmlRnn__transpose_recurrence__float16", "DmlRnn__transpose_recurrence__float32"};
  opgen_plan_value values[20] = {plan_int(v_num_directions), plan_int(v_steps), plan_int(v_hidden_size), plan_int(v_input_size), plan_value(frame, v__dtype_T, strings, 2), plan_int(v_cell_blocks), plan_int(v_cell_threads), plan_int(v_seq_length), plan_int(v_batch_size), plan_int(v_persistent_blocks), plan_value(frame, v_activations, strings, 2), plan_int(v_backward_first), plan_int(v_persistent), plan_int(v_cells), plan_int(v_step_threads), plan_int(v_gemm_steps), plan_int(v_fused_row_tiles), plan_int(v_fused_unit_tiles), plan_int(v_fused), plan_int(v_all_cells)};
  opgen_native::Slot slots[12] = {plan_slot(frame, v_input), plan_slot(frame, v_weight), plan_slot(frame, v_projected), plan_slot(frame, v_hidden_init), plan_slot(frame, v_sequence_lengths), plan_slot(frame, v_output_single), plan_slot(frame, v_recurrence), plan_slot(frame, v_rt), plan_slot(frame, v_bias), plan_slot(frame, v_output_sequence), plan_slot(frame, v_recurrent), plan_slot(frame, v_states)};
  int rc = opgen_native::run_plan(call, opgen_native::PlanCall{OP, opgen_plan::opgen_plan_DmlRnn, symbols, 12, values, 20, slots, 12, frame.value_checks.data(), (int64_t)frame.value_checks.size()});
  if (rc != OPGEN_OK) raise(rc, call->err);
}

OPGEN_DRIVER_API int opgen_shapes_DmlRnn(opgen_call* call) {
  return opgen_checks::guarded(call, "DmlRnn", [&] { opgen_drive_DmlRnn(call, false); });
}

OPGEN_DRIVER_API int opgen_call_DmlRnn(opgen_call* call) {
  return opgen_checks::guarded(call, "DmlRnn", [&] { opgen_drive_DmlRnn(call, true); });
}
