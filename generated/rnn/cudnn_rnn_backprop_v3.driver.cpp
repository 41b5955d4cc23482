// generated from specs/rnn/cudnn_rnn_backprop_v3.yaml by opgen — do not edit (opgen 0.1.0)
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
// CudnnRNNBackpropV3: its plan as codegen/runtime/plan.py records it (codegen/drivergen.py)
static void opgen_plan_walk_CudnnRNNBackpropV3(opgen_plan_value* env, const char* backend, Out& out, int64_t* variant) {
  (void)backend;
  if (true) {
    int64_t sym1 = -1;
    if (sym1 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym1 = 60;
    if (sym1 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym1 = 61;
    if (sym1 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym1 = 62;
    if (sym1 < 0) fail(OPGEN_E_SYMBOL, "kernel 'to_time_major' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym1);
    out.put(1);
    out.put(whole(num(env[1], "seq_blocks"), "a grid size"));
    out.put(1);
    out.put(whole(num(env[2], "seq_threads"), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs2 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(0);
    out.put(OPGEN_T_SLOT); out.put(1);
    scalar(out, OPGEN_T_I64, num(env[3], "swap0"), "swap0");
    scalar(out, OPGEN_T_I64, num(env[4], "swap1"), "swap1");
    scalar(out, OPGEN_T_I64, num(env[5], "input_size"), "input_size");
    out.words[nargs2] = (out.used - nargs2 - 1) / 2;
  }
  if (true) {
    int64_t sym3 = -1;
    if (sym3 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym3 = 3;
    if (sym3 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym3 = 4;
    if (sym3 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym3 = 5;
    if (sym3 < 0) fail(OPGEN_E_SYMBOL, "kernel 'fill_ones' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym3);
    out.put(1);
    out.put(whole(num(env[1], "seq_blocks"), "a grid size"));
    out.put(1);
    out.put(whole(num(env[2], "seq_threads"), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs4 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(2);
    scalar(out, OPGEN_T_I64, num(env[6], "rows"), "rows");
    out.words[nargs4] = (out.used - nargs4 - 1) / 2;
  }
  if (true) {
    int64_t sym5 = -1;
    if (sym5 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym5 = 30;
    if (sym5 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym5 = 31;
    if (sym5 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym5 = 32;
    if (sym5 < 0) fail(OPGEN_E_SYMBOL, "kernel 'grad_output_in' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym5);
    out.put(1);
    out.put(whole(num(env[1], "seq_blocks"), "a grid size"));
    out.put(1);
    out.put(whole(num(env[2], "seq_threads"), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs6 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(3);
    out.put(OPGEN_T_SLOT); out.put(4);
    out.put(OPGEN_T_SLOT); out.put(5);
    scalar(out, OPGEN_T_I64, num(env[7], "steps"), "steps");
    scalar(out, OPGEN_T_I64, num(env[8], "batch"), "batch");
    scalar(out, OPGEN_T_I64, num(env[9], "out_width"), "out_width");
    scalar(out, OPGEN_T_I32, num(env[10], "time_major"), "time_major");
    out.words[nargs6] = (out.used - nargs6 - 1) / 2;
  }
  if (true) {
    int64_t n8 = whole(num(env[11], "num_layers"), "a repeat count");
    for (int64_t i7 = 0; i7 < n8; ++i7) {
      env[48] = value(integer(i7));
      env[49] = value(sub(sub(num(env[11], "num_layers"), integer(1LL)), num(env[48], "back")));
      env[50] = value(sub(integer(1LL), min2(num(env[49], "l"), integer(1LL))));
      env[51] = value(add(mul(mul(num(env[50], "first"), num(env[5], "input_size")), sub(integer(1LL), num(env[12], "skip"))), mul(sub(integer(1LL), num(env[50], "first")), num(env[9], "out_width"))));
      env[52] = value(add(mul(mul(sub(integer(1LL), num(env[50], "first")), num(env[13], "dirs")), num(env[14], "w0")), mul(mul(max2(sub(num(env[49], "l"), integer(1LL)), integer(0LL)), num(env[13], "dirs")), num(env[15], "w1"))));
      env[53] = value(add(num(env[15], "w1"), mul(num(env[50], "first"), sub(num(env[14], "w0"), num(env[15], "w1")))));
      env[54] = value(add(mul(num(env[16], "layers_dirs"), num(env[17], "pl_size")), mul(mul(mul(sub(num(env[49], "l"), integer(1LL)), integer(2LL)), num(env[6], "rows")), num(env[9], "out_width"))));
      env[55] = value(add(num(env[54], "x_ofs"), mul(num(env[6], "rows"), num(env[9], "out_width"))));
      env[56] = value(mul(num(env[6], "rows"), num(env[9], "out_width")));
      env[57] = value(add(num(env[52], "layer_wofs"), mul(num(env[18], "gate_width"), num(env[51], "in_width"))));
      env[58] = value(add(num(env[57], "layer_rofs"), mul(num(env[18], "gate_width"), num(env[19], "h_size"))));
      env[59] = value(mul(mul(num(env[49], "l"), num(env[13], "dirs")), num(env[17], "pl_size")));
      env[60] = value(add(num(env[59], "layer_acts_ofs"), mul(num(env[6], "rows"), num(env[20], "acts"))));
      env[61] = value(add(num(env[60], "layer_hs_ofs"), mul(mul(add(num(env[7], "steps"), integer(1LL)), num(env[8], "batch")), num(env[19], "h_size"))));
      if (true) {
        int64_t n10 = whole(num(env[13], "dirs"), "a repeat count");
        for (int64_t i9 = 0; i9 < n10; ++i9) {
          env[62] = value(integer(i9));
          env[63] = value(add(mul(num(env[49], "l"), num(env[13], "dirs")), num(env[62], "d")));
          if (true) {
            int64_t sym11 = -1;
            if (sym11 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym11 = 36;
            if (sym11 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym11 = 37;
            if (sym11 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym11 = 38;
            if (sym11 < 0) fail(OPGEN_E_SYMBOL, "kernel 'init_grad' has no entry point for the dtypes of " "_dtype_T");
            out.put(OPGEN_STEP_LAUNCH); out.put(sym11);
            out.put(1);
            out.put(whole(num(env[21], "cell_blocks"), "a grid size"));
            out.put(1);
            out.put(whole(num(env[22], "cell_threads"), "a block size"));
            out.put(whole(integer(0LL), "the shared size"));
            int64_t nargs12 = out.used; out.put(0);
            out.put(OPGEN_T_SLOT); out.put(6);
            out.put(OPGEN_T_SLOT); out.put(7);
            out.put(OPGEN_T_SLOT); out.put(8);
            out.put(OPGEN_T_SLOT); out.put(9);
            scalar(out, OPGEN_T_I64, num(env[63], "p"), "p");
            scalar(out, OPGEN_T_I64, num(env[62], "d"), "d");
            scalar(out, OPGEN_T_I64, num(env[16], "layers_dirs"), "layers_dirs");
            scalar(out, OPGEN_T_I64, num(env[8], "batch"), "batch");
            scalar(out, OPGEN_T_I64, num(env[19], "h_size"), "h_size");
            scalar(out, OPGEN_T_I64, num(env[23], "num_units"), "num_units");
            scalar(out, OPGEN_T_I64, num(env[24], "lstm"), "lstm");
            scalar(out, OPGEN_T_I32, num(env[10], "time_major"), "time_major");
            out.words[nargs12] = (out.used - nargs12 - 1) / 2;
          }
        }
      }
      if ((env[26].kind == OPGEN_V_STR && env[26].i == 4) && truth(num(env[27], "persistent"))) {
        int64_t sym13 = -1;
        if (sym13 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym13 = 45;
        if (sym13 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym13 = 46;
        if (sym13 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym13 = 47;
        if (sym13 < 0) fail(OPGEN_E_SYMBOL, "kernel 'persistent_lstm_grad' has no entry point for the dtypes of " "_dtype_T");
        out.put(OPGEN_STEP_LAUNCH); out.put(sym13);
        out.put(2);
        out.put(whole(num(env[25], "persistent_blocks"), "a grid size"));
        out.put(whole(num(env[13], "dirs"), "a grid size"));
        out.put(1);
        out.put(whole(integer(256LL), "a block size"));
        out.put(whole(integer(0LL), "the shared size"));
        int64_t nargs14 = out.used; out.put(0);
        out.put(OPGEN_T_SLOT); out.put(4);
        out.put(OPGEN_T_SLOT); out.put(10);
        out.put(OPGEN_T_SLOT); out.put(5);
        out.put(OPGEN_T_SLOT); out.put(11);
        out.put(OPGEN_T_SLOT); out.put(8);
        out.put(OPGEN_T_SLOT); out.put(9);
        out.put(OPGEN_T_SLOT); out.put(12);
        out.put(OPGEN_T_SLOT); out.put(13);
        scalar(out, OPGEN_T_I64, num(env[7], "steps"), "steps");
        scalar(out, OPGEN_T_I64, num(env[8], "batch"), "batch");
        scalar(out, OPGEN_T_I64, num(env[23], "num_units"), "num_units");
        scalar(out, OPGEN_T_I64, num(env[13], "dirs"), "dirs");
        scalar(out, OPGEN_T_I64, num(env[57], "layer_rofs"), "layer_rofs");
        scalar(out, OPGEN_T_I64, num(env[53], "layer_w"), "layer_w");
        scalar(out, OPGEN_T_I64, num(env[59], "layer_acts_ofs"), "layer_acts_ofs");
        scalar(out, OPGEN_T_I64, num(env[61], "layer_cs_ofs"), "layer_cs_ofs");
        scalar(out, OPGEN_T_I64, num(env[17], "pl_size"), "pl_size");
        out.words[nargs14] = (out.used - nargs14 - 1) / 2;
      }
      if ((env[26].kind == OPGEN_V_STR && env[26].i == 3) && truth(num(env[27], "persistent"))) {
        int64_t sym15 = -1;
        if (sym15 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym15 = 42;
        if (sym15 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym15 = 43;
        if (sym15 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym15 = 44;
        if (sym15 < 0) fail(OPGEN_E_SYMBOL, "kernel 'persistent_gru_grad' has no entry point for the dtypes of " "_dtype_T");
        out.put(OPGEN_STEP_LAUNCH); out.put(sym15);
        out.put(2);
        out.put(whole(num(env[25], "persistent_blocks"), "a grid size"));
        out.put(whole(num(env[13], "dirs"), "a grid size"));
        out.put(1);
        out.put(whole(integer(256LL), "a block size"));
        out.put(whole(integer(0LL), "the shared size"));
        int64_t nargs16 = out.used; out.put(0);
        out.put(OPGEN_T_SLOT); out.put(4);
        out.put(OPGEN_T_SLOT); out.put(10);
        out.put(OPGEN_T_SLOT); out.put(5);
        out.put(OPGEN_T_SLOT); out.put(11);
        out.put(OPGEN_T_SLOT); out.put(14);
        out.put(OPGEN_T_SLOT); out.put(8);
        out.put(OPGEN_T_SLOT); out.put(13);
        scalar(out, OPGEN_T_I64, num(env[7], "steps"), "steps");
        scalar(out, OPGEN_T_I64, num(env[8], "batch"), "batch");
        scalar(out, OPGEN_T_I64, num(env[23], "num_units"), "num_units");
        scalar(out, OPGEN_T_I64, num(env[13], "dirs"), "dirs");
        scalar(out, OPGEN_T_I64, num(env[57], "layer_rofs"), "layer_rofs");
        scalar(out, OPGEN_T_I64, num(env[53], "layer_w"), "layer_w");
        scalar(out, OPGEN_T_I64, num(env[59], "layer_acts_ofs"), "layer_acts_ofs");
        scalar(out, OPGEN_T_I64, num(env[60], "layer_hs_ofs"), "layer_hs_ofs");
        scalar(out, OPGEN_T_I64, num(env[17], "pl_size"), "pl_size");
        out.words[nargs16] = (out.used - nargs16 - 1) / 2;
      }
      if ((equal(add(num(env[24], "lstm"), num(env[29], "gru")), integer(0LL))) && truth(num(env[27], "persistent"))) {
        int64_t sym17 = -1;
        if (sym17 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym17 = 48;
        if (sym17 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym17 = 49;
        if (sym17 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym17 = 50;
        if (sym17 < 0) fail(OPGEN_E_SYMBOL, "kernel 'persistent_rnn_grad' has no entry point for the dtypes of " "_dtype_T");
        out.put(OPGEN_STEP_LAUNCH); out.put(sym17);
        out.put(2);
        out.put(whole(num(env[25], "persistent_blocks"), "a grid size"));
        out.put(whole(num(env[13], "dirs"), "a grid size"));
        out.put(1);
        out.put(whole(integer(256LL), "a block size"));
        out.put(whole(integer(0LL), "the shared size"));
        int64_t nargs18 = out.used; out.put(0);
        out.put(OPGEN_T_SLOT); out.put(4);
        out.put(OPGEN_T_SLOT); out.put(10);
        out.put(OPGEN_T_SLOT); out.put(5);
        out.put(OPGEN_T_SLOT); out.put(11);
        out.put(OPGEN_T_SLOT); out.put(8);
        out.put(OPGEN_T_SLOT); out.put(13);
        scalar(out, OPGEN_T_I64, num(env[7], "steps"), "steps");
        scalar(out, OPGEN_T_I64, num(env[8], "batch"), "batch");
        scalar(out, OPGEN_T_I64, num(env[23], "num_units"), "num_units");
        scalar(out, OPGEN_T_I64, num(env[13], "dirs"), "dirs");
        scalar(out, OPGEN_T_I64, num(env[57], "layer_rofs"), "layer_rofs");
        scalar(out, OPGEN_T_I64, num(env[53], "layer_w"), "layer_w");
        scalar(out, OPGEN_T_I64, num(env[60], "layer_hs_ofs"), "layer_hs_ofs");
        scalar(out, OPGEN_T_I64, num(env[28], "relu"), "relu");
        scalar(out, OPGEN_T_I64, num(env[17], "pl_size"), "pl_size");
        out.words[nargs18] = (out.used - nargs18 - 1) / 2;
      }
      if (truth(num(env[33], "gemm_steps"))) {
        const int64_t lanes21 = std::strcmp(backend, "cpu") == 0 ? whole(num(env[13], "dirs"), "a lanes count") : 0;
        if (lanes21 > 1 && lanes21 <= 256) { out.put(OPGEN_STEP_LANES); out.put(lanes21); }
        int64_t n20 = whole(num(env[7], "steps"), "a repeat count");
        for (int64_t i19 = 0; i19 < n20; ++i19) {
          env[64] = value(integer(i19));
          if ((equal(num(env[30], "proj"), integer(1LL)))) {
            int64_t sym22 = -1;
            if (sym22 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym22 = 51;
            if (sym22 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym22 = 52;
            if (sym22 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym22 = 53;
            if (sym22 < 0) fail(OPGEN_E_SYMBOL, "kernel 'proj_grad' has no entry point for the dtypes of " "_dtype_T");
            out.put(OPGEN_STEP_LAUNCH); out.put(sym22);
            out.put(2);
            out.put(whole(num(env[21], "cell_blocks"), "a grid size"));
            out.put(whole(num(env[13], "dirs"), "a grid size"));
            out.put(1);
            out.put(whole(num(env[22], "cell_threads"), "a block size"));
            out.put(whole(integer(0LL), "the shared size"));
            int64_t nargs23 = out.used; out.put(0);
            out.put(OPGEN_T_SLOT); out.put(4);
            out.put(OPGEN_T_SLOT); out.put(15);
            out.put(OPGEN_T_SLOT); out.put(8);
            out.put(OPGEN_T_SLOT); out.put(5);
            scalar(out, OPGEN_T_I64, num(env[64], "s"), "s");
            scalar(out, OPGEN_T_I64, num(env[8], "batch"), "batch");
            scalar(out, OPGEN_T_I64, num(env[19], "h_size"), "h_size");
            scalar(out, OPGEN_T_I64, num(env[13], "dirs"), "dirs");
            scalar(out, OPGEN_T_I64, num(env[7], "steps"), "steps");
            out.words[nargs23] = (out.used - nargs23 - 1) / 2;
          }
          if ((equal(num(env[30], "proj"), integer(1LL)))) {
            out.put(OPGEN_STEP_GEMM); out.put(15); out.put(13); out.put(12);
            { Num size24 = num(env[8], "batch");
              if (size24.is_float) out.put_double(OPGEN_T_FLOAT, size24.f); else { out.put(OPGEN_T_INT); out.put(size24.i); } }
            { Num size25 = num(env[23], "num_units");
              if (size25.is_float) out.put_double(OPGEN_T_FLOAT, size25.f); else { out.put(OPGEN_T_INT); out.put(size25.i); } }
            { Num size26 = num(env[19], "h_size");
              if (size26.is_float) out.put_double(OPGEN_T_FLOAT, size26.f); else { out.put(OPGEN_T_INT); out.put(size26.i); } }
            out.put(OPGEN_T_BOOL); out.put(0);
            out.put(OPGEN_T_BOOL); out.put(0);
            { Num size27 = integer(0LL);
              if (size27.is_float) out.put_double(OPGEN_T_FLOAT, size27.f); else { out.put(OPGEN_T_INT); out.put(size27.i); } }
            { Num size28 = mul(mul(sub(sub(num(env[7], "steps"), integer(1LL)), num(env[64], "s")), num(env[8], "batch")), num(env[19], "h_size"));
              if (size28.is_float) out.put_double(OPGEN_T_FLOAT, size28.f); else { out.put(OPGEN_T_INT); out.put(size28.i); } }
            { Num size29 = num(env[58], "layer_pofs");
              if (size29.is_float) out.put_double(OPGEN_T_FLOAT, size29.f); else { out.put(OPGEN_T_INT); out.put(size29.i); } }
            { Num size30 = integer(0LL);
              if (size30.is_float) out.put_double(OPGEN_T_FLOAT, size30.f); else { out.put(OPGEN_T_INT); out.put(size30.i); } }
            { Num size31 = num(env[13], "dirs");
              if (size31.is_float) out.put_double(OPGEN_T_FLOAT, size31.f); else { out.put(OPGEN_T_INT); out.put(size31.i); } }
            { Num size32 = mul(mul(add(mul(integer(2LL), num(env[64], "s")), integer(1LL)), num(env[8], "batch")), num(env[19], "h_size"));
              if (size32.is_float) out.put_double(OPGEN_T_FLOAT, size32.f); else { out.put(OPGEN_T_INT); out.put(size32.i); } }
            { Num size33 = num(env[53], "layer_w");
              if (size33.is_float) out.put_double(OPGEN_T_FLOAT, size33.f); else { out.put(OPGEN_T_INT); out.put(size33.i); } }
            { Num size34 = mul(num(env[8], "batch"), num(env[23], "num_units"));
              if (size34.is_float) out.put_double(OPGEN_T_FLOAT, size34.f); else { out.put(OPGEN_T_INT); out.put(size34.i); } }
          }
          if ((env[26].kind == OPGEN_V_STR && env[26].i == 4)) {
            int64_t sym35 = -1;
            if (sym35 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym35 = 39;
            if (sym35 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym35 = 40;
            if (sym35 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym35 = 41;
            if (sym35 < 0) fail(OPGEN_E_SYMBOL, "kernel 'lstm_grad_step' has no entry point for the dtypes of " "_dtype_T");
            out.put(OPGEN_STEP_LAUNCH); out.put(sym35);
            out.put(2);
            out.put(whole(num(env[31], "row_blocks"), "a grid size"));
            out.put(whole(num(env[13], "dirs"), "a grid size"));
            out.put(1);
            out.put(whole(num(env[32], "row_threads"), "a block size"));
            out.put(whole(integer(0LL), "the shared size"));
            int64_t nargs36 = out.used; out.put(0);
            out.put(OPGEN_T_SLOT); out.put(4);
            out.put(OPGEN_T_SLOT); out.put(12);
            out.put(OPGEN_T_SLOT); out.put(10);
            out.put(OPGEN_T_SLOT); out.put(5);
            out.put(OPGEN_T_SLOT); out.put(11);
            out.put(OPGEN_T_SLOT); out.put(8);
            out.put(OPGEN_T_SLOT); out.put(9);
            scalar(out, OPGEN_T_I64, num(env[64], "s"), "s");
            scalar(out, OPGEN_T_I64, num(env[8], "batch"), "batch");
            scalar(out, OPGEN_T_I64, num(env[23], "num_units"), "num_units");
            scalar(out, OPGEN_T_I64, num(env[19], "h_size"), "h_size");
            scalar(out, OPGEN_T_I64, num(env[13], "dirs"), "dirs");
            scalar(out, OPGEN_T_I64, num(env[30], "proj"), "proj");
            scalar(out, OPGEN_T_I64, num(env[59], "layer_acts_ofs"), "layer_acts_ofs");
            scalar(out, OPGEN_T_I64, num(env[61], "layer_cs_ofs"), "layer_cs_ofs");
            scalar(out, OPGEN_T_I64, num(env[7], "steps"), "steps");
            scalar(out, OPGEN_T_I64, num(env[17], "pl_size"), "pl_size");
            out.words[nargs36] = (out.used - nargs36 - 1) / 2;
          }
          if ((env[26].kind == OPGEN_V_STR && env[26].i == 3)) {
            int64_t sym37 = -1;
            if (sym37 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym37 = 33;
            if (sym37 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym37 = 34;
            if (sym37 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym37 = 35;
            if (sym37 < 0) fail(OPGEN_E_SYMBOL, "kernel 'gru_grad_step' has no entry point for the dtypes of " "_dtype_T");
            out.put(OPGEN_STEP_LAUNCH); out.put(sym37);
            out.put(2);
            out.put(whole(num(env[31], "row_blocks"), "a grid size"));
            out.put(whole(num(env[13], "dirs"), "a grid size"));
            out.put(1);
            out.put(whole(num(env[32], "row_threads"), "a block size"));
            out.put(whole(integer(0LL), "the shared size"));
            int64_t nargs38 = out.used; out.put(0);
            out.put(OPGEN_T_SLOT); out.put(4);
            out.put(OPGEN_T_SLOT); out.put(10);
            out.put(OPGEN_T_SLOT); out.put(5);
            out.put(OPGEN_T_SLOT); out.put(11);
            out.put(OPGEN_T_SLOT); out.put(14);
            out.put(OPGEN_T_SLOT); out.put(8);
            scalar(out, OPGEN_T_I64, num(env[64], "s"), "s");
            scalar(out, OPGEN_T_I64, num(env[8], "batch"), "batch");
            scalar(out, OPGEN_T_I64, num(env[23], "num_units"), "num_units");
            scalar(out, OPGEN_T_I64, num(env[13], "dirs"), "dirs");
            scalar(out, OPGEN_T_I64, num(env[59], "layer_acts_ofs"), "layer_acts_ofs");
            scalar(out, OPGEN_T_I64, num(env[60], "layer_hs_ofs"), "layer_hs_ofs");
            scalar(out, OPGEN_T_I64, num(env[7], "steps"), "steps");
            scalar(out, OPGEN_T_I64, num(env[17], "pl_size"), "pl_size");
            out.words[nargs38] = (out.used - nargs38 - 1) / 2;
          }
          if ((equal(add(num(env[24], "lstm"), num(env[29], "gru")), integer(0LL)))) {
            int64_t sym39 = -1;
            if (sym39 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym39 = 54;
            if (sym39 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym39 = 55;
            if (sym39 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym39 = 56;
            if (sym39 < 0) fail(OPGEN_E_SYMBOL, "kernel 'rnn_grad_step' has no entry point for the dtypes of " "_dtype_T");
            out.put(OPGEN_STEP_LAUNCH); out.put(sym39);
            out.put(2);
            out.put(whole(num(env[31], "row_blocks"), "a grid size"));
            out.put(whole(num(env[13], "dirs"), "a grid size"));
            out.put(1);
            out.put(whole(num(env[32], "row_threads"), "a block size"));
            out.put(whole(integer(0LL), "the shared size"));
            int64_t nargs40 = out.used; out.put(0);
            out.put(OPGEN_T_SLOT); out.put(4);
            out.put(OPGEN_T_SLOT); out.put(10);
            out.put(OPGEN_T_SLOT); out.put(5);
            out.put(OPGEN_T_SLOT); out.put(11);
            out.put(OPGEN_T_SLOT); out.put(8);
            scalar(out, OPGEN_T_I64, num(env[64], "s"), "s");
            scalar(out, OPGEN_T_I64, num(env[8], "batch"), "batch");
            scalar(out, OPGEN_T_I64, num(env[23], "num_units"), "num_units");
            scalar(out, OPGEN_T_I64, num(env[13], "dirs"), "dirs");
            scalar(out, OPGEN_T_I64, num(env[60], "layer_hs_ofs"), "layer_hs_ofs");
            scalar(out, OPGEN_T_I64, num(env[28], "relu"), "relu");
            scalar(out, OPGEN_T_I64, num(env[7], "steps"), "steps");
            scalar(out, OPGEN_T_I64, num(env[17], "pl_size"), "pl_size");
            out.words[nargs40] = (out.used - nargs40 - 1) / 2;
          }
          if ((equal(num(env[29], "gru"), integer(0LL)))) {
            out.put(OPGEN_STEP_GEMM); out.put(11); out.put(13); out.put(8);
            { Num size41 = num(env[8], "batch");
              if (size41.is_float) out.put_double(OPGEN_T_FLOAT, size41.f); else { out.put(OPGEN_T_INT); out.put(size41.i); } }
            { Num size42 = num(env[19], "h_size");
              if (size42.is_float) out.put_double(OPGEN_T_FLOAT, size42.f); else { out.put(OPGEN_T_INT); out.put(size42.i); } }
            { Num size43 = num(env[18], "gate_width");
              if (size43.is_float) out.put_double(OPGEN_T_FLOAT, size43.f); else { out.put(OPGEN_T_INT); out.put(size43.i); } }
            out.put(OPGEN_T_BOOL); out.put(0);
            out.put(OPGEN_T_BOOL); out.put(0);
            { Num size44 = integer(1LL);
              if (size44.is_float) out.put_double(OPGEN_T_FLOAT, size44.f); else { out.put(OPGEN_T_INT); out.put(size44.i); } }
            { Num size45 = mul(mul(sub(sub(num(env[7], "steps"), integer(1LL)), num(env[64], "s")), num(env[8], "batch")), num(env[18], "gate_width"));
              if (size45.is_float) out.put_double(OPGEN_T_FLOAT, size45.f); else { out.put(OPGEN_T_INT); out.put(size45.i); } }
            { Num size46 = num(env[57], "layer_rofs");
              if (size46.is_float) out.put_double(OPGEN_T_FLOAT, size46.f); else { out.put(OPGEN_T_INT); out.put(size46.i); } }
            { Num size47 = integer(0LL);
              if (size47.is_float) out.put_double(OPGEN_T_FLOAT, size47.f); else { out.put(OPGEN_T_INT); out.put(size47.i); } }
            { Num size48 = num(env[13], "dirs");
              if (size48.is_float) out.put_double(OPGEN_T_FLOAT, size48.f); else { out.put(OPGEN_T_INT); out.put(size48.i); } }
            { Num size49 = mul(mul(add(mul(integer(2LL), num(env[64], "s")), integer(1LL)), num(env[8], "batch")), num(env[18], "gate_width"));
              if (size49.is_float) out.put_double(OPGEN_T_FLOAT, size49.f); else { out.put(OPGEN_T_INT); out.put(size49.i); } }
            { Num size50 = num(env[53], "layer_w");
              if (size50.is_float) out.put_double(OPGEN_T_FLOAT, size50.f); else { out.put(OPGEN_T_INT); out.put(size50.i); } }
            { Num size51 = mul(num(env[8], "batch"), num(env[19], "h_size"));
              if (size51.is_float) out.put_double(OPGEN_T_FLOAT, size51.f); else { out.put(OPGEN_T_INT); out.put(size51.i); } }
          }
          if ((equal(num(env[29], "gru"), integer(1LL)))) {
            out.put(OPGEN_STEP_GEMM); out.put(14); out.put(13); out.put(8);
            { Num size52 = num(env[8], "batch");
              if (size52.is_float) out.put_double(OPGEN_T_FLOAT, size52.f); else { out.put(OPGEN_T_INT); out.put(size52.i); } }
            { Num size53 = num(env[19], "h_size");
              if (size53.is_float) out.put_double(OPGEN_T_FLOAT, size53.f); else { out.put(OPGEN_T_INT); out.put(size53.i); } }
            { Num size54 = num(env[18], "gate_width");
              if (size54.is_float) out.put_double(OPGEN_T_FLOAT, size54.f); else { out.put(OPGEN_T_INT); out.put(size54.i); } }
            out.put(OPGEN_T_BOOL); out.put(0);
            out.put(OPGEN_T_BOOL); out.put(0);
            { Num size55 = integer(1LL);
              if (size55.is_float) out.put_double(OPGEN_T_FLOAT, size55.f); else { out.put(OPGEN_T_INT); out.put(size55.i); } }
            { Num size56 = mul(mul(sub(sub(num(env[7], "steps"), integer(1LL)), num(env[64], "s")), num(env[8], "batch")), num(env[18], "gate_width"));
              if (size56.is_float) out.put_double(OPGEN_T_FLOAT, size56.f); else { out.put(OPGEN_T_INT); out.put(size56.i); } }
            { Num size57 = num(env[57], "layer_rofs");
              if (size57.is_float) out.put_double(OPGEN_T_FLOAT, size57.f); else { out.put(OPGEN_T_INT); out.put(size57.i); } }
            { Num size58 = integer(0LL);
              if (size58.is_float) out.put_double(OPGEN_T_FLOAT, size58.f); else { out.put(OPGEN_T_INT); out.put(size58.i); } }
            { Num size59 = num(env[13], "dirs");
              if (size59.is_float) out.put_double(OPGEN_T_FLOAT, size59.f); else { out.put(OPGEN_T_INT); out.put(size59.i); } }
            { Num size60 = mul(mul(add(mul(integer(2LL), num(env[64], "s")), integer(1LL)), num(env[8], "batch")), num(env[18], "gate_width"));
              if (size60.is_float) out.put_double(OPGEN_T_FLOAT, size60.f); else { out.put(OPGEN_T_INT); out.put(size60.i); } }
            { Num size61 = num(env[53], "layer_w");
              if (size61.is_float) out.put_double(OPGEN_T_FLOAT, size61.f); else { out.put(OPGEN_T_INT); out.put(size61.i); } }
            { Num size62 = mul(num(env[8], "batch"), num(env[19], "h_size"));
              if (size62.is_float) out.put_double(OPGEN_T_FLOAT, size62.f); else { out.put(OPGEN_T_INT); out.put(size62.i); } }
          }
        }
        if (lanes21 > 1 && lanes21 <= 256) { out.put(OPGEN_STEP_LANES); out.put(0); }
      }
      if (truth(num(env[40], "fused"))) {
        int64_t n64 = whole(add(num(env[7], "steps"), integer(1LL)), "a repeat count");
        for (int64_t i63 = 0; i63 < n64; ++i63) {
          env[64] = value(integer(i63));
          if ((env[26].kind == OPGEN_V_STR && env[26].i == 4) && (equal(num(env[30], "proj"), integer(0LL)))) {
            int64_t sym65 = -1;
            if (sym65 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym65 = 15;
            if (sym65 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym65 = 16;
            if (sym65 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym65 = 17;
            if (sym65 < 0) fail(OPGEN_E_SYMBOL, "kernel 'fused_lstm_grad' has no entry point for the dtypes of " "_dtype_T");
            out.put(OPGEN_STEP_LAUNCH); out.put(sym65);
            out.put(3);
            out.put(whole(num(env[34], "unprojected_row_tiles"), "a grid size"));
            out.put(whole(num(env[35], "lstm_unit_tiles"), "a grid size"));
            out.put(whole(num(env[13], "dirs"), "a grid size"));
            out.put(1);
            out.put(whole(integer(256LL), "a block size"));
            out.put(whole(integer(0LL), "the shared size"));
            int64_t nargs66 = out.used; out.put(0);
            out.put(OPGEN_T_SLOT); out.put(4);
            out.put(OPGEN_T_SLOT); out.put(10);
            out.put(OPGEN_T_SLOT); out.put(5);
            out.put(OPGEN_T_SLOT); out.put(11);
            out.put(OPGEN_T_SLOT); out.put(8);
            out.put(OPGEN_T_SLOT); out.put(9);
            out.put(OPGEN_T_SLOT); out.put(13);
            scalar(out, OPGEN_T_I64, num(env[64], "s"), "s");
            scalar(out, OPGEN_T_I64, num(env[7], "steps"), "steps");
            scalar(out, OPGEN_T_I64, num(env[8], "batch"), "batch");
            scalar(out, OPGEN_T_I64, num(env[23], "num_units"), "num_units");
            scalar(out, OPGEN_T_I64, num(env[13], "dirs"), "dirs");
            scalar(out, OPGEN_T_I64, num(env[57], "layer_rofs"), "layer_rofs");
            scalar(out, OPGEN_T_I64, num(env[53], "layer_w"), "layer_w");
            scalar(out, OPGEN_T_I64, num(env[59], "layer_acts_ofs"), "layer_acts_ofs");
            scalar(out, OPGEN_T_I64, num(env[61], "layer_cs_ofs"), "layer_cs_ofs");
            scalar(out, OPGEN_T_I64, num(env[17], "pl_size"), "pl_size");
            out.words[nargs66] = (out.used - nargs66 - 1) / 2;
          }
          if ((equal(num(env[30], "proj"), integer(1LL)))) {
            int64_t n68 = whole(integer(2LL), "a repeat count");
            for (int64_t i67 = 0; i67 < n68; ++i67) {
              env[65] = value(integer(i67));
              env[66] = value(add(mul(sub(integer(1LL), num(env[65], "phase")), min2(num(env[64], "s"), integer(1LL))), mul(num(env[65], "phase"), min2(sub(num(env[7], "steps"), num(env[64], "s")), integer(1LL)))));
              env[67] = value(min2(ceildiv(add(num(env[23], "num_units"), mul(sub(integer(1LL), num(env[65], "phase")), sub(num(env[19], "h_size"), num(env[23], "num_units")))), integer(32LL)), ceildiv(num(env[36], "fused_max_depth"), mul(integer(4LL), integer(32LL)))));
              if ((equal(num(env[65], "phase"), integer(1LL))) && (compare(num(env[64], "s"), num(env[7], "steps")) < 0)) {
                int64_t sym69 = -1;
                if (sym69 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym69 = 21;
                if (sym69 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym69 = 22;
                if (sym69 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym69 = 23;
                if (sym69 < 0) fail(OPGEN_E_SYMBOL, "kernel 'fused_proj_cells' has no entry point for the dtypes of " "_dtype_T");
                out.put(OPGEN_STEP_LAUNCH); out.put(sym69);
                out.put(3);
                out.put(whole(num(env[37], "fused_row_tiles"), "a grid size"));
                out.put(whole(num(env[38], "fused_h_tiles"), "a grid size"));
                out.put(whole(num(env[13], "dirs"), "a grid size"));
                out.put(1);
                out.put(whole(integer(256LL), "a block size"));
                out.put(whole(integer(0LL), "the shared size"));
                int64_t nargs70 = out.used; out.put(0);
                out.put(OPGEN_T_SLOT); out.put(4);
                out.put(OPGEN_T_SLOT); out.put(5);
                out.put(OPGEN_T_SLOT); out.put(8);
                out.put(OPGEN_T_SLOT); out.put(15);
                scalar(out, OPGEN_T_I64, num(env[64], "s"), "s");
                scalar(out, OPGEN_T_I64, num(env[7], "steps"), "steps");
                scalar(out, OPGEN_T_I64, num(env[8], "batch"), "batch");
                scalar(out, OPGEN_T_I64, num(env[19], "h_size"), "h_size");
                scalar(out, OPGEN_T_I64, num(env[13], "dirs"), "dirs");
                out.words[nargs70] = (out.used - nargs70 - 1) / 2;
              }
              if ((equal(num(env[66], "proj_grad_runs"), integer(1LL)))) {
                int64_t sym71 = -1;
                if (sym71 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym71 = 18;
                if (sym71 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym71 = 19;
                if (sym71 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym71 = 20;
                if (sym71 < 0) fail(OPGEN_E_SYMBOL, "kernel 'fused_lstm_proj_grad' has no entry point for the dtypes of " "_dtype_T");
                out.put(OPGEN_STEP_LAUNCH); out.put(sym71);
                out.put(3);
                out.put(whole(num(env[37], "fused_row_tiles"), "a grid size"));
                out.put(whole(num(env[67], "proj_grad_tiles"), "a grid size"));
                out.put(whole(num(env[13], "dirs"), "a grid size"));
                out.put(1);
                out.put(whole(integer(256LL), "a block size"));
                out.put(whole(integer(0LL), "the shared size"));
                int64_t nargs72 = out.used; out.put(0);
                out.put(OPGEN_T_SLOT); out.put(4);
                out.put(OPGEN_T_SLOT); out.put(10);
                out.put(OPGEN_T_SLOT); out.put(5);
                out.put(OPGEN_T_SLOT); out.put(11);
                out.put(OPGEN_T_SLOT); out.put(8);
                out.put(OPGEN_T_SLOT); out.put(9);
                out.put(OPGEN_T_SLOT); out.put(12);
                out.put(OPGEN_T_SLOT); out.put(15);
                out.put(OPGEN_T_SLOT); out.put(13);
                scalar(out, OPGEN_T_I64, num(env[64], "s"), "s");
                scalar(out, OPGEN_T_I64, num(env[7], "steps"), "steps");
                scalar(out, OPGEN_T_I64, num(env[8], "batch"), "batch");
                scalar(out, OPGEN_T_I64, num(env[23], "num_units"), "num_units");
                scalar(out, OPGEN_T_I64, num(env[19], "h_size"), "h_size");
                scalar(out, OPGEN_T_I64, num(env[13], "dirs"), "dirs");
                scalar(out, OPGEN_T_I64, num(env[65], "phase"), "phase");
                scalar(out, OPGEN_T_I64, num(env[57], "layer_rofs"), "layer_rofs");
                scalar(out, OPGEN_T_I64, num(env[58], "layer_pofs"), "layer_pofs");
                scalar(out, OPGEN_T_I64, num(env[53], "layer_w"), "layer_w");
                scalar(out, OPGEN_T_I64, num(env[59], "layer_acts_ofs"), "layer_acts_ofs");
                scalar(out, OPGEN_T_I64, num(env[61], "layer_cs_ofs"), "layer_cs_ofs");
                scalar(out, OPGEN_T_I64, num(env[17], "pl_size"), "pl_size");
                out.words[nargs72] = (out.used - nargs72 - 1) / 2;
              }
            }
          }
          if ((env[26].kind == OPGEN_V_STR && env[26].i == 3)) {
            int64_t sym73 = -1;
            if (sym73 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym73 = 12;
            if (sym73 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym73 = 13;
            if (sym73 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym73 = 14;
            if (sym73 < 0) fail(OPGEN_E_SYMBOL, "kernel 'fused_gru_grad' has no entry point for the dtypes of " "_dtype_T");
            out.put(OPGEN_STEP_LAUNCH); out.put(sym73);
            out.put(3);
            out.put(whole(num(env[34], "unprojected_row_tiles"), "a grid size"));
            out.put(whole(num(env[39], "fused_unit_tiles"), "a grid size"));
            out.put(whole(num(env[13], "dirs"), "a grid size"));
            out.put(1);
            out.put(whole(integer(256LL), "a block size"));
            out.put(whole(integer(0LL), "the shared size"));
            int64_t nargs74 = out.used; out.put(0);
            out.put(OPGEN_T_SLOT); out.put(4);
            out.put(OPGEN_T_SLOT); out.put(10);
            out.put(OPGEN_T_SLOT); out.put(5);
            out.put(OPGEN_T_SLOT); out.put(11);
            out.put(OPGEN_T_SLOT); out.put(14);
            out.put(OPGEN_T_SLOT); out.put(8);
            out.put(OPGEN_T_SLOT); out.put(13);
            scalar(out, OPGEN_T_I64, num(env[64], "s"), "s");
            scalar(out, OPGEN_T_I64, num(env[7], "steps"), "steps");
            scalar(out, OPGEN_T_I64, num(env[8], "batch"), "batch");
            scalar(out, OPGEN_T_I64, num(env[23], "num_units"), "num_units");
            scalar(out, OPGEN_T_I64, num(env[13], "dirs"), "dirs");
            scalar(out, OPGEN_T_I64, num(env[57], "layer_rofs"), "layer_rofs");
            scalar(out, OPGEN_T_I64, num(env[53], "layer_w"), "layer_w");
            scalar(out, OPGEN_T_I64, num(env[59], "layer_acts_ofs"), "layer_acts_ofs");
            scalar(out, OPGEN_T_I64, num(env[60], "layer_hs_ofs"), "layer_hs_ofs");
            scalar(out, OPGEN_T_I64, num(env[17], "pl_size"), "pl_size");
            out.words[nargs74] = (out.used - nargs74 - 1) / 2;
          }
          if ((equal(add(num(env[24], "lstm"), num(env[29], "gru")), integer(0LL)))) {
            int64_t sym75 = -1;
            if (sym75 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym75 = 24;
            if (sym75 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym75 = 25;
            if (sym75 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym75 = 26;
            if (sym75 < 0) fail(OPGEN_E_SYMBOL, "kernel 'fused_rnn_grad' has no entry point for the dtypes of " "_dtype_T");
            out.put(OPGEN_STEP_LAUNCH); out.put(sym75);
            out.put(3);
            out.put(whole(num(env[34], "unprojected_row_tiles"), "a grid size"));
            out.put(whole(num(env[39], "fused_unit_tiles"), "a grid size"));
            out.put(whole(num(env[13], "dirs"), "a grid size"));
            out.put(1);
            out.put(whole(integer(256LL), "a block size"));
            out.put(whole(integer(0LL), "the shared size"));
            int64_t nargs76 = out.used; out.put(0);
            out.put(OPGEN_T_SLOT); out.put(4);
            out.put(OPGEN_T_SLOT); out.put(10);
            out.put(OPGEN_T_SLOT); out.put(5);
            out.put(OPGEN_T_SLOT); out.put(11);
            out.put(OPGEN_T_SLOT); out.put(8);
            out.put(OPGEN_T_SLOT); out.put(13);
            scalar(out, OPGEN_T_I64, num(env[64], "s"), "s");
            scalar(out, OPGEN_T_I64, num(env[7], "steps"), "steps");
            scalar(out, OPGEN_T_I64, num(env[8], "batch"), "batch");
            scalar(out, OPGEN_T_I64, num(env[23], "num_units"), "num_units");
            scalar(out, OPGEN_T_I64, num(env[13], "dirs"), "dirs");
            scalar(out, OPGEN_T_I64, num(env[57], "layer_rofs"), "layer_rofs");
            scalar(out, OPGEN_T_I64, num(env[53], "layer_w"), "layer_w");
            scalar(out, OPGEN_T_I64, num(env[60], "layer_hs_ofs"), "layer_hs_ofs");
            scalar(out, OPGEN_T_I64, num(env[17], "pl_size"), "pl_size");
            scalar(out, OPGEN_T_I64, num(env[28], "relu"), "relu");
            out.words[nargs76] = (out.used - nargs76 - 1) / 2;
          }
        }
      }
      if (true) {
        int64_t n78 = whole(num(env[13], "dirs"), "a repeat count");
        for (int64_t i77 = 0; i77 < n78; ++i77) {
          env[62] = value(integer(i77));
          env[63] = value(add(mul(num(env[49], "l"), num(env[13], "dirs")), num(env[62], "d")));
          env[68] = value(add(num(env[52], "layer_wofs"), mul(num(env[62], "d"), num(env[53], "layer_w"))));
          env[69] = value(add(num(env[68], "wofs"), mul(num(env[18], "gate_width"), num(env[51], "in_width"))));
          env[70] = value(add(num(env[69], "rofs"), mul(num(env[18], "gate_width"), num(env[19], "h_size"))));
          env[71] = value(add(num(env[41], "weights_len"), mul(mul(num(env[63], "p"), integer(2LL)), num(env[18], "gate_width"))));
          env[72] = value(add(num(env[71], "bofs"), num(env[18], "gate_width")));
          env[73] = value(mul(num(env[63], "p"), num(env[17], "pl_size")));
          env[74] = value(add(num(env[73], "acts_ofs"), mul(num(env[6], "rows"), num(env[20], "acts"))));
          env[75] = value(add(num(env[74], "hs_ofs"), mul(mul(add(num(env[7], "steps"), integer(1LL)), num(env[8], "batch")), num(env[19], "h_size"))));
          env[76] = value(add(num(env[75], "cs_ofs"), mul(mul(mul(num(env[24], "lstm"), add(num(env[7], "steps"), integer(1LL))), num(env[8], "batch")), num(env[23], "num_units"))));
          env[77] = value(mul(mul(num(env[62], "d"), num(env[6], "rows")), num(env[18], "gate_width")));
          if (true) {
            int64_t sym79 = -1;
            if (sym79 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym79 = 6;
            if (sym79 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym79 = 7;
            if (sym79 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym79 = 8;
            if (sym79 < 0) fail(OPGEN_E_SYMBOL, "kernel 'final_grad' has no entry point for the dtypes of " "_dtype_T");
            out.put(OPGEN_STEP_LAUNCH); out.put(sym79);
            out.put(1);
            out.put(whole(num(env[21], "cell_blocks"), "a grid size"));
            out.put(1);
            out.put(whole(num(env[22], "cell_threads"), "a block size"));
            out.put(whole(integer(0LL), "the shared size"));
            int64_t nargs80 = out.used; out.put(0);
            out.put(OPGEN_T_SLOT); out.put(8);
            out.put(OPGEN_T_SLOT); out.put(9);
            out.put(OPGEN_T_SLOT); out.put(16);
            out.put(OPGEN_T_SLOT); out.put(17);
            scalar(out, OPGEN_T_I64, num(env[63], "p"), "p");
            scalar(out, OPGEN_T_I64, num(env[62], "d"), "d");
            scalar(out, OPGEN_T_I64, num(env[16], "layers_dirs"), "layers_dirs");
            scalar(out, OPGEN_T_I64, num(env[8], "batch"), "batch");
            scalar(out, OPGEN_T_I64, num(env[19], "h_size"), "h_size");
            scalar(out, OPGEN_T_I64, num(env[23], "num_units"), "num_units");
            scalar(out, OPGEN_T_I64, num(env[24], "lstm"), "lstm");
            scalar(out, OPGEN_T_I32, num(env[10], "time_major"), "time_major");
            out.words[nargs80] = (out.used - nargs80 - 1) / 2;
          }
          if ((equal(add(num(env[49], "l"), num(env[12], "skip")), integer(0LL)))) {
            out.put(OPGEN_STEP_GEMM); out.put(11); out.put(1); out.put(18);
            { Num size81 = num(env[18], "gate_width");
              if (size81.is_float) out.put_double(OPGEN_T_FLOAT, size81.f); else { out.put(OPGEN_T_INT); out.put(size81.i); } }
            { Num size82 = num(env[5], "input_size");
              if (size82.is_float) out.put_double(OPGEN_T_FLOAT, size82.f); else { out.put(OPGEN_T_INT); out.put(size82.i); } }
            { Num size83 = num(env[6], "rows");
              if (size83.is_float) out.put_double(OPGEN_T_FLOAT, size83.f); else { out.put(OPGEN_T_INT); out.put(size83.i); } }
            out.put(OPGEN_T_BOOL); out.put(1);
            out.put(OPGEN_T_BOOL); out.put(0);
            { Num size84 = integer(0LL);
              if (size84.is_float) out.put_double(OPGEN_T_FLOAT, size84.f); else { out.put(OPGEN_T_INT); out.put(size84.i); } }
            { Num size85 = num(env[77], "g_ofs");
              if (size85.is_float) out.put_double(OPGEN_T_FLOAT, size85.f); else { out.put(OPGEN_T_INT); out.put(size85.i); } }
            { Num size86 = integer(0LL);
              if (size86.is_float) out.put_double(OPGEN_T_FLOAT, size86.f); else { out.put(OPGEN_T_INT); out.put(size86.i); } }
            { Num size87 = num(env[68], "wofs");
              if (size87.is_float) out.put_double(OPGEN_T_FLOAT, size87.f); else { out.put(OPGEN_T_INT); out.put(size87.i); } }
            { Num size88 = integer(1LL);
              if (size88.is_float) out.put_double(OPGEN_T_FLOAT, size88.f); else { out.put(OPGEN_T_INT); out.put(size88.i); } }
            { Num size89 = integer(0LL);
              if (size89.is_float) out.put_double(OPGEN_T_FLOAT, size89.f); else { out.put(OPGEN_T_INT); out.put(size89.i); } }
            { Num size90 = integer(0LL);
              if (size90.is_float) out.put_double(OPGEN_T_FLOAT, size90.f); else { out.put(OPGEN_T_INT); out.put(size90.i); } }
            { Num size91 = integer(0LL);
              if (size91.is_float) out.put_double(OPGEN_T_FLOAT, size91.f); else { out.put(OPGEN_T_INT); out.put(size91.i); } }
          }
          if ((compare(num(env[49], "l"), integer(0LL)) > 0)) {
            out.put(OPGEN_STEP_GEMM); out.put(11); out.put(10); out.put(18);
            { Num size92 = num(env[18], "gate_width");
              if (size92.is_float) out.put_double(OPGEN_T_FLOAT, size92.f); else { out.put(OPGEN_T_INT); out.put(size92.i); } }
            { Num size93 = num(env[9], "out_width");
              if (size93.is_float) out.put_double(OPGEN_T_FLOAT, size93.f); else { out.put(OPGEN_T_INT); out.put(size93.i); } }
            { Num size94 = num(env[6], "rows");
              if (size94.is_float) out.put_double(OPGEN_T_FLOAT, size94.f); else { out.put(OPGEN_T_INT); out.put(size94.i); } }
            out.put(OPGEN_T_BOOL); out.put(1);
            out.put(OPGEN_T_BOOL); out.put(0);
            { Num size95 = integer(0LL);
              if (size95.is_float) out.put_double(OPGEN_T_FLOAT, size95.f); else { out.put(OPGEN_T_INT); out.put(size95.i); } }
            { Num size96 = num(env[77], "g_ofs");
              if (size96.is_float) out.put_double(OPGEN_T_FLOAT, size96.f); else { out.put(OPGEN_T_INT); out.put(size96.i); } }
            { Num size97 = num(env[54], "x_ofs");
              if (size97.is_float) out.put_double(OPGEN_T_FLOAT, size97.f); else { out.put(OPGEN_T_INT); out.put(size97.i); } }
            { Num size98 = num(env[68], "wofs");
              if (size98.is_float) out.put_double(OPGEN_T_FLOAT, size98.f); else { out.put(OPGEN_T_INT); out.put(size98.i); } }
            { Num size99 = integer(1LL);
              if (size99.is_float) out.put_double(OPGEN_T_FLOAT, size99.f); else { out.put(OPGEN_T_INT); out.put(size99.i); } }
            { Num size100 = integer(0LL);
              if (size100.is_float) out.put_double(OPGEN_T_FLOAT, size100.f); else { out.put(OPGEN_T_INT); out.put(size100.i); } }
            { Num size101 = integer(0LL);
              if (size101.is_float) out.put_double(OPGEN_T_FLOAT, size101.f); else { out.put(OPGEN_T_INT); out.put(size101.i); } }
            { Num size102 = integer(0LL);
              if (size102.is_float) out.put_double(OPGEN_T_FLOAT, size102.f); else { out.put(OPGEN_T_INT); out.put(size102.i); } }
          }
          if ((equal(num(env[29], "gru"), integer(0LL)))) {
            out.put(OPGEN_STEP_GEMM); out.put(11); out.put(10); out.put(18);
            { Num size103 = num(env[18], "gate_width");
              if (size103.is_float) out.put_double(OPGEN_T_FLOAT, size103.f); else { out.put(OPGEN_T_INT); out.put(size103.i); } }
            { Num size104 = num(env[19], "h_size");
              if (size104.is_float) out.put_double(OPGEN_T_FLOAT, size104.f); else { out.put(OPGEN_T_INT); out.put(size104.i); } }
            { Num size105 = num(env[6], "rows");
              if (size105.is_float) out.put_double(OPGEN_T_FLOAT, size105.f); else { out.put(OPGEN_T_INT); out.put(size105.i); } }
            out.put(OPGEN_T_BOOL); out.put(1);
            out.put(OPGEN_T_BOOL); out.put(0);
            { Num size106 = integer(0LL);
              if (size106.is_float) out.put_double(OPGEN_T_FLOAT, size106.f); else { out.put(OPGEN_T_INT); out.put(size106.i); } }
            { Num size107 = num(env[77], "g_ofs");
              if (size107.is_float) out.put_double(OPGEN_T_FLOAT, size107.f); else { out.put(OPGEN_T_INT); out.put(size107.i); } }
            { Num size108 = add(num(env[74], "hs_ofs"), mul(mul(num(env[62], "d"), num(env[8], "batch")), num(env[19], "h_size")));
              if (size108.is_float) out.put_double(OPGEN_T_FLOAT, size108.f); else { out.put(OPGEN_T_INT); out.put(size108.i); } }
            { Num size109 = num(env[69], "rofs");
              if (size109.is_float) out.put_double(OPGEN_T_FLOAT, size109.f); else { out.put(OPGEN_T_INT); out.put(size109.i); } }
            { Num size110 = integer(1LL);
              if (size110.is_float) out.put_double(OPGEN_T_FLOAT, size110.f); else { out.put(OPGEN_T_INT); out.put(size110.i); } }
            { Num size111 = integer(0LL);
              if (size111.is_float) out.put_double(OPGEN_T_FLOAT, size111.f); else { out.put(OPGEN_T_INT); out.put(size111.i); } }
            { Num size112 = integer(0LL);
              if (size112.is_float) out.put_double(OPGEN_T_FLOAT, size112.f); else { out.put(OPGEN_T_INT); out.put(size112.i); } }
            { Num size113 = integer(0LL);
              if (size113.is_float) out.put_double(OPGEN_T_FLOAT, size113.f); else { out.put(OPGEN_T_INT); out.put(size113.i); } }
          }
          if ((equal(num(env[29], "gru"), integer(1LL)))) {
            out.put(OPGEN_STEP_GEMM); out.put(14); out.put(10); out.put(18);
            { Num size114 = num(env[18], "gate_width");
              if (size114.is_float) out.put_double(OPGEN_T_FLOAT, size114.f); else { out.put(OPGEN_T_INT); out.put(size114.i); } }
            { Num size115 = num(env[19], "h_size");
              if (size115.is_float) out.put_double(OPGEN_T_FLOAT, size115.f); else { out.put(OPGEN_T_INT); out.put(size115.i); } }
            { Num size116 = num(env[6], "rows");
              if (size116.is_float) out.put_double(OPGEN_T_FLOAT, size116.f); else { out.put(OPGEN_T_INT); out.put(size116.i); } }
            out.put(OPGEN_T_BOOL); out.put(1);
            out.put(OPGEN_T_BOOL); out.put(0);
            { Num size117 = integer(0LL);
              if (size117.is_float) out.put_double(OPGEN_T_FLOAT, size117.f); else { out.put(OPGEN_T_INT); out.put(size117.i); } }
            { Num size118 = num(env[77], "g_ofs");
              if (size118.is_float) out.put_double(OPGEN_T_FLOAT, size118.f); else { out.put(OPGEN_T_INT); out.put(size118.i); } }
            { Num size119 = add(num(env[74], "hs_ofs"), mul(mul(num(env[62], "d"), num(env[8], "batch")), num(env[19], "h_size")));
              if (size119.is_float) out.put_double(OPGEN_T_FLOAT, size119.f); else { out.put(OPGEN_T_INT); out.put(size119.i); } }
            { Num size120 = num(env[69], "rofs");
              if (size120.is_float) out.put_double(OPGEN_T_FLOAT, size120.f); else { out.put(OPGEN_T_INT); out.put(size120.i); } }
            { Num size121 = integer(1LL);
              if (size121.is_float) out.put_double(OPGEN_T_FLOAT, size121.f); else { out.put(OPGEN_T_INT); out.put(size121.i); } }
            { Num size122 = integer(0LL);
              if (size122.is_float) out.put_double(OPGEN_T_FLOAT, size122.f); else { out.put(OPGEN_T_INT); out.put(size122.i); } }
            { Num size123 = integer(0LL);
              if (size123.is_float) out.put_double(OPGEN_T_FLOAT, size123.f); else { out.put(OPGEN_T_INT); out.put(size123.i); } }
            { Num size124 = integer(0LL);
              if (size124.is_float) out.put_double(OPGEN_T_FLOAT, size124.f); else { out.put(OPGEN_T_INT); out.put(size124.i); } }
          }
          if ((equal(num(env[30], "proj"), integer(1LL)))) {
            out.put(OPGEN_STEP_GEMM); out.put(15); out.put(10); out.put(18);
            { Num size125 = num(env[19], "h_size");
              if (size125.is_float) out.put_double(OPGEN_T_FLOAT, size125.f); else { out.put(OPGEN_T_INT); out.put(size125.i); } }
            { Num size126 = num(env[23], "num_units");
              if (size126.is_float) out.put_double(OPGEN_T_FLOAT, size126.f); else { out.put(OPGEN_T_INT); out.put(size126.i); } }
            { Num size127 = num(env[6], "rows");
              if (size127.is_float) out.put_double(OPGEN_T_FLOAT, size127.f); else { out.put(OPGEN_T_INT); out.put(size127.i); } }
            out.put(OPGEN_T_BOOL); out.put(1);
            out.put(OPGEN_T_BOOL); out.put(0);
            { Num size128 = integer(0LL);
              if (size128.is_float) out.put_double(OPGEN_T_FLOAT, size128.f); else { out.put(OPGEN_T_INT); out.put(size128.i); } }
            { Num size129 = mul(mul(num(env[62], "d"), num(env[6], "rows")), num(env[19], "h_size"));
              if (size129.is_float) out.put_double(OPGEN_T_FLOAT, size129.f); else { out.put(OPGEN_T_INT); out.put(size129.i); } }
            { Num size130 = num(env[76], "ms_ofs");
              if (size130.is_float) out.put_double(OPGEN_T_FLOAT, size130.f); else { out.put(OPGEN_T_INT); out.put(size130.i); } }
            { Num size131 = num(env[70], "pofs");
              if (size131.is_float) out.put_double(OPGEN_T_FLOAT, size131.f); else { out.put(OPGEN_T_INT); out.put(size131.i); } }
            { Num size132 = integer(1LL);
              if (size132.is_float) out.put_double(OPGEN_T_FLOAT, size132.f); else { out.put(OPGEN_T_INT); out.put(size132.i); } }
            { Num size133 = integer(0LL);
              if (size133.is_float) out.put_double(OPGEN_T_FLOAT, size133.f); else { out.put(OPGEN_T_INT); out.put(size133.i); } }
            { Num size134 = integer(0LL);
              if (size134.is_float) out.put_double(OPGEN_T_FLOAT, size134.f); else { out.put(OPGEN_T_INT); out.put(size134.i); } }
            { Num size135 = integer(0LL);
              if (size135.is_float) out.put_double(OPGEN_T_FLOAT, size135.f); else { out.put(OPGEN_T_INT); out.put(size135.i); } }
          }
          if (true) {
            out.put(OPGEN_STEP_GEMM); out.put(2); out.put(11); out.put(18);
            { Num size136 = integer(1LL);
              if (size136.is_float) out.put_double(OPGEN_T_FLOAT, size136.f); else { out.put(OPGEN_T_INT); out.put(size136.i); } }
            { Num size137 = num(env[18], "gate_width");
              if (size137.is_float) out.put_double(OPGEN_T_FLOAT, size137.f); else { out.put(OPGEN_T_INT); out.put(size137.i); } }
            { Num size138 = num(env[6], "rows");
              if (size138.is_float) out.put_double(OPGEN_T_FLOAT, size138.f); else { out.put(OPGEN_T_INT); out.put(size138.i); } }
            out.put(OPGEN_T_BOOL); out.put(0);
            out.put(OPGEN_T_BOOL); out.put(0);
            { Num size139 = integer(0LL);
              if (size139.is_float) out.put_double(OPGEN_T_FLOAT, size139.f); else { out.put(OPGEN_T_INT); out.put(size139.i); } }
            { Num size140 = integer(0LL);
              if (size140.is_float) out.put_double(OPGEN_T_FLOAT, size140.f); else { out.put(OPGEN_T_INT); out.put(size140.i); } }
            { Num size141 = num(env[77], "g_ofs");
              if (size141.is_float) out.put_double(OPGEN_T_FLOAT, size141.f); else { out.put(OPGEN_T_INT); out.put(size141.i); } }
            { Num size142 = num(env[71], "bofs");
              if (size142.is_float) out.put_double(OPGEN_T_FLOAT, size142.f); else { out.put(OPGEN_T_INT); out.put(size142.i); } }
            { Num size143 = integer(1LL);
              if (size143.is_float) out.put_double(OPGEN_T_FLOAT, size143.f); else { out.put(OPGEN_T_INT); out.put(size143.i); } }
            { Num size144 = integer(0LL);
              if (size144.is_float) out.put_double(OPGEN_T_FLOAT, size144.f); else { out.put(OPGEN_T_INT); out.put(size144.i); } }
            { Num size145 = integer(0LL);
              if (size145.is_float) out.put_double(OPGEN_T_FLOAT, size145.f); else { out.put(OPGEN_T_INT); out.put(size145.i); } }
            { Num size146 = integer(0LL);
              if (size146.is_float) out.put_double(OPGEN_T_FLOAT, size146.f); else { out.put(OPGEN_T_INT); out.put(size146.i); } }
          }
          if ((equal(num(env[29], "gru"), integer(0LL)))) {
            int64_t sym147 = -1;
            if (sym147 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym147 = 0;
            if (sym147 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym147 = 1;
            if (sym147 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym147 = 2;
            if (sym147 < 0) fail(OPGEN_E_SYMBOL, "kernel 'copy_span' has no entry point for the dtypes of " "_dtype_T");
            out.put(OPGEN_STEP_LAUNCH); out.put(sym147);
            out.put(1);
            out.put(whole(num(env[42], "bias_blocks"), "a grid size"));
            out.put(1);
            out.put(whole(num(env[43], "bias_threads"), "a block size"));
            out.put(whole(integer(0LL), "the shared size"));
            int64_t nargs148 = out.used; out.put(0);
            out.put(OPGEN_T_SLOT); out.put(18);
            scalar(out, OPGEN_T_I64, num(env[71], "bofs"), "bofs");
            scalar(out, OPGEN_T_I64, num(env[72], "rbofs"), "rbofs");
            scalar(out, OPGEN_T_I64, num(env[18], "gate_width"), "gate_width");
            out.words[nargs148] = (out.used - nargs148 - 1) / 2;
          }
          if ((equal(num(env[29], "gru"), integer(1LL)))) {
            out.put(OPGEN_STEP_GEMM); out.put(2); out.put(14); out.put(18);
            { Num size149 = integer(1LL);
              if (size149.is_float) out.put_double(OPGEN_T_FLOAT, size149.f); else { out.put(OPGEN_T_INT); out.put(size149.i); } }
            { Num size150 = num(env[18], "gate_width");
              if (size150.is_float) out.put_double(OPGEN_T_FLOAT, size150.f); else { out.put(OPGEN_T_INT); out.put(size150.i); } }
            { Num size151 = num(env[6], "rows");
              if (size151.is_float) out.put_double(OPGEN_T_FLOAT, size151.f); else { out.put(OPGEN_T_INT); out.put(size151.i); } }
            out.put(OPGEN_T_BOOL); out.put(0);
            out.put(OPGEN_T_BOOL); out.put(0);
            { Num size152 = integer(0LL);
              if (size152.is_float) out.put_double(OPGEN_T_FLOAT, size152.f); else { out.put(OPGEN_T_INT); out.put(size152.i); } }
            { Num size153 = integer(0LL);
              if (size153.is_float) out.put_double(OPGEN_T_FLOAT, size153.f); else { out.put(OPGEN_T_INT); out.put(size153.i); } }
            { Num size154 = num(env[77], "g_ofs");
              if (size154.is_float) out.put_double(OPGEN_T_FLOAT, size154.f); else { out.put(OPGEN_T_INT); out.put(size154.i); } }
            { Num size155 = num(env[72], "rbofs");
              if (size155.is_float) out.put_double(OPGEN_T_FLOAT, size155.f); else { out.put(OPGEN_T_INT); out.put(size155.i); } }
            { Num size156 = integer(1LL);
              if (size156.is_float) out.put_double(OPGEN_T_FLOAT, size156.f); else { out.put(OPGEN_T_INT); out.put(size156.i); } }
            { Num size157 = integer(0LL);
              if (size157.is_float) out.put_double(OPGEN_T_FLOAT, size157.f); else { out.put(OPGEN_T_INT); out.put(size157.i); } }
            { Num size158 = integer(0LL);
              if (size158.is_float) out.put_double(OPGEN_T_FLOAT, size158.f); else { out.put(OPGEN_T_INT); out.put(size158.i); } }
            { Num size159 = integer(0LL);
              if (size159.is_float) out.put_double(OPGEN_T_FLOAT, size159.f); else { out.put(OPGEN_T_INT); out.put(size159.i); } }
          }
          if ((equal(add(add(num(env[49], "l"), num(env[12], "skip")), num(env[62], "d")), integer(0LL))) && (equal(num(env[44], "dx"), integer(1LL)))) {
            out.put(OPGEN_STEP_GEMM); out.put(11); out.put(13); out.put(19);
            { Num size160 = num(env[6], "rows");
              if (size160.is_float) out.put_double(OPGEN_T_FLOAT, size160.f); else { out.put(OPGEN_T_INT); out.put(size160.i); } }
            { Num size161 = num(env[5], "input_size");
              if (size161.is_float) out.put_double(OPGEN_T_FLOAT, size161.f); else { out.put(OPGEN_T_INT); out.put(size161.i); } }
            { Num size162 = num(env[18], "gate_width");
              if (size162.is_float) out.put_double(OPGEN_T_FLOAT, size162.f); else { out.put(OPGEN_T_INT); out.put(size162.i); } }
            out.put(OPGEN_T_BOOL); out.put(0);
            out.put(OPGEN_T_BOOL); out.put(0);
            { Num size163 = integer(0LL);
              if (size163.is_float) out.put_double(OPGEN_T_FLOAT, size163.f); else { out.put(OPGEN_T_INT); out.put(size163.i); } }
            { Num size164 = num(env[77], "g_ofs");
              if (size164.is_float) out.put_double(OPGEN_T_FLOAT, size164.f); else { out.put(OPGEN_T_INT); out.put(size164.i); } }
            { Num size165 = num(env[68], "wofs");
              if (size165.is_float) out.put_double(OPGEN_T_FLOAT, size165.f); else { out.put(OPGEN_T_INT); out.put(size165.i); } }
            { Num size166 = integer(0LL);
              if (size166.is_float) out.put_double(OPGEN_T_FLOAT, size166.f); else { out.put(OPGEN_T_INT); out.put(size166.i); } }
            { Num size167 = integer(1LL);
              if (size167.is_float) out.put_double(OPGEN_T_FLOAT, size167.f); else { out.put(OPGEN_T_INT); out.put(size167.i); } }
            { Num size168 = integer(0LL);
              if (size168.is_float) out.put_double(OPGEN_T_FLOAT, size168.f); else { out.put(OPGEN_T_INT); out.put(size168.i); } }
            { Num size169 = integer(0LL);
              if (size169.is_float) out.put_double(OPGEN_T_FLOAT, size169.f); else { out.put(OPGEN_T_INT); out.put(size169.i); } }
            { Num size170 = integer(0LL);
              if (size170.is_float) out.put_double(OPGEN_T_FLOAT, size170.f); else { out.put(OPGEN_T_INT); out.put(size170.i); } }
          }
          if ((equal(add(num(env[49], "l"), num(env[12], "skip")), integer(0LL))) && (compare(num(env[62], "d"), integer(0LL)) > 0) && (equal(num(env[44], "dx"), integer(1LL)))) {
            out.put(OPGEN_STEP_GEMM); out.put(11); out.put(13); out.put(19);
            { Num size171 = num(env[6], "rows");
              if (size171.is_float) out.put_double(OPGEN_T_FLOAT, size171.f); else { out.put(OPGEN_T_INT); out.put(size171.i); } }
            { Num size172 = num(env[5], "input_size");
              if (size172.is_float) out.put_double(OPGEN_T_FLOAT, size172.f); else { out.put(OPGEN_T_INT); out.put(size172.i); } }
            { Num size173 = num(env[18], "gate_width");
              if (size173.is_float) out.put_double(OPGEN_T_FLOAT, size173.f); else { out.put(OPGEN_T_INT); out.put(size173.i); } }
            out.put(OPGEN_T_BOOL); out.put(0);
            out.put(OPGEN_T_BOOL); out.put(0);
            { Num size174 = integer(1LL);
              if (size174.is_float) out.put_double(OPGEN_T_FLOAT, size174.f); else { out.put(OPGEN_T_INT); out.put(size174.i); } }
            { Num size175 = num(env[77], "g_ofs");
              if (size175.is_float) out.put_double(OPGEN_T_FLOAT, size175.f); else { out.put(OPGEN_T_INT); out.put(size175.i); } }
            { Num size176 = num(env[68], "wofs");
              if (size176.is_float) out.put_double(OPGEN_T_FLOAT, size176.f); else { out.put(OPGEN_T_INT); out.put(size176.i); } }
            { Num size177 = integer(0LL);
              if (size177.is_float) out.put_double(OPGEN_T_FLOAT, size177.f); else { out.put(OPGEN_T_INT); out.put(size177.i); } }
            { Num size178 = integer(1LL);
              if (size178.is_float) out.put_double(OPGEN_T_FLOAT, size178.f); else { out.put(OPGEN_T_INT); out.put(size178.i); } }
            { Num size179 = integer(0LL);
              if (size179.is_float) out.put_double(OPGEN_T_FLOAT, size179.f); else { out.put(OPGEN_T_INT); out.put(size179.i); } }
            { Num size180 = integer(0LL);
              if (size180.is_float) out.put_double(OPGEN_T_FLOAT, size180.f); else { out.put(OPGEN_T_INT); out.put(size180.i); } }
            { Num size181 = integer(0LL);
              if (size181.is_float) out.put_double(OPGEN_T_FLOAT, size181.f); else { out.put(OPGEN_T_INT); out.put(size181.i); } }
          }
          if ((equal(num(env[49], "l"), integer(0LL))) && (equal(num(env[12], "skip"), integer(1LL))) && (equal(num(env[44], "dx"), integer(1LL)))) {
            int64_t sym182 = -1;
            if (sym182 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym182 = 57;
            if (sym182 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym182 = 58;
            if (sym182 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym182 = 59;
            if (sym182 < 0) fail(OPGEN_E_SYMBOL, "kernel 'skip_grad' has no entry point for the dtypes of " "_dtype_T");
            out.put(OPGEN_STEP_LAUNCH); out.put(sym182);
            out.put(1);
            out.put(whole(num(env[1], "seq_blocks"), "a grid size"));
            out.put(1);
            out.put(whole(num(env[2], "seq_threads"), "a block size"));
            out.put(whole(integer(0LL), "the shared size"));
            int64_t nargs183 = out.used; out.put(0);
            out.put(OPGEN_T_SLOT); out.put(11);
            out.put(OPGEN_T_SLOT); out.put(19);
            scalar(out, OPGEN_T_I64, num(env[6], "rows"), "rows");
            scalar(out, OPGEN_T_I64, num(env[45], "gates"), "gates");
            scalar(out, OPGEN_T_I64, num(env[23], "num_units"), "num_units");
            scalar(out, OPGEN_T_I64, num(env[62], "d"), "d");
            out.words[nargs183] = (out.used - nargs183 - 1) / 2;
          }
          if ((compare(num(env[49], "l"), integer(0LL)) > 0) && (equal(num(env[62], "d"), integer(0LL)))) {
            out.put(OPGEN_STEP_GEMM); out.put(11); out.put(13); out.put(20);
            { Num size184 = num(env[6], "rows");
              if (size184.is_float) out.put_double(OPGEN_T_FLOAT, size184.f); else { out.put(OPGEN_T_INT); out.put(size184.i); } }
            { Num size185 = num(env[9], "out_width");
              if (size185.is_float) out.put_double(OPGEN_T_FLOAT, size185.f); else { out.put(OPGEN_T_INT); out.put(size185.i); } }
            { Num size186 = num(env[18], "gate_width");
              if (size186.is_float) out.put_double(OPGEN_T_FLOAT, size186.f); else { out.put(OPGEN_T_INT); out.put(size186.i); } }
            out.put(OPGEN_T_BOOL); out.put(0);
            out.put(OPGEN_T_BOOL); out.put(0);
            { Num size187 = integer(0LL);
              if (size187.is_float) out.put_double(OPGEN_T_FLOAT, size187.f); else { out.put(OPGEN_T_INT); out.put(size187.i); } }
            { Num size188 = num(env[77], "g_ofs");
              if (size188.is_float) out.put_double(OPGEN_T_FLOAT, size188.f); else { out.put(OPGEN_T_INT); out.put(size188.i); } }
            { Num size189 = num(env[68], "wofs");
              if (size189.is_float) out.put_double(OPGEN_T_FLOAT, size189.f); else { out.put(OPGEN_T_INT); out.put(size189.i); } }
            { Num size190 = integer(0LL);
              if (size190.is_float) out.put_double(OPGEN_T_FLOAT, size190.f); else { out.put(OPGEN_T_INT); out.put(size190.i); } }
            { Num size191 = integer(1LL);
              if (size191.is_float) out.put_double(OPGEN_T_FLOAT, size191.f); else { out.put(OPGEN_T_INT); out.put(size191.i); } }
            { Num size192 = integer(0LL);
              if (size192.is_float) out.put_double(OPGEN_T_FLOAT, size192.f); else { out.put(OPGEN_T_INT); out.put(size192.i); } }
            { Num size193 = integer(0LL);
              if (size193.is_float) out.put_double(OPGEN_T_FLOAT, size193.f); else { out.put(OPGEN_T_INT); out.put(size193.i); } }
            { Num size194 = integer(0LL);
              if (size194.is_float) out.put_double(OPGEN_T_FLOAT, size194.f); else { out.put(OPGEN_T_INT); out.put(size194.i); } }
          }
          if ((compare(num(env[49], "l"), integer(0LL)) > 0) && (compare(num(env[62], "d"), integer(0LL)) > 0)) {
            out.put(OPGEN_STEP_GEMM); out.put(11); out.put(13); out.put(20);
            { Num size195 = num(env[6], "rows");
              if (size195.is_float) out.put_double(OPGEN_T_FLOAT, size195.f); else { out.put(OPGEN_T_INT); out.put(size195.i); } }
            { Num size196 = num(env[9], "out_width");
              if (size196.is_float) out.put_double(OPGEN_T_FLOAT, size196.f); else { out.put(OPGEN_T_INT); out.put(size196.i); } }
            { Num size197 = num(env[18], "gate_width");
              if (size197.is_float) out.put_double(OPGEN_T_FLOAT, size197.f); else { out.put(OPGEN_T_INT); out.put(size197.i); } }
            out.put(OPGEN_T_BOOL); out.put(0);
            out.put(OPGEN_T_BOOL); out.put(0);
            { Num size198 = integer(1LL);
              if (size198.is_float) out.put_double(OPGEN_T_FLOAT, size198.f); else { out.put(OPGEN_T_INT); out.put(size198.i); } }
            { Num size199 = num(env[77], "g_ofs");
              if (size199.is_float) out.put_double(OPGEN_T_FLOAT, size199.f); else { out.put(OPGEN_T_INT); out.put(size199.i); } }
            { Num size200 = num(env[68], "wofs");
              if (size200.is_float) out.put_double(OPGEN_T_FLOAT, size200.f); else { out.put(OPGEN_T_INT); out.put(size200.i); } }
            { Num size201 = integer(0LL);
              if (size201.is_float) out.put_double(OPGEN_T_FLOAT, size201.f); else { out.put(OPGEN_T_INT); out.put(size201.i); } }
            { Num size202 = integer(1LL);
              if (size202.is_float) out.put_double(OPGEN_T_FLOAT, size202.f); else { out.put(OPGEN_T_INT); out.put(size202.i); } }
            { Num size203 = integer(0LL);
              if (size203.is_float) out.put_double(OPGEN_T_FLOAT, size203.f); else { out.put(OPGEN_T_INT); out.put(size203.i); } }
            { Num size204 = integer(0LL);
              if (size204.is_float) out.put_double(OPGEN_T_FLOAT, size204.f); else { out.put(OPGEN_T_INT); out.put(size204.i); } }
            { Num size205 = integer(0LL);
              if (size205.is_float) out.put_double(OPGEN_T_FLOAT, size205.f); else { out.put(OPGEN_T_INT); out.put(size205.i); } }
          }
        }
      }
      if ((compare(num(env[49], "l"), integer(0LL)) > 0)) {
        int64_t sym206 = -1;
        if (sym206 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym206 = 27;
        if (sym206 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym206 = 28;
        if (sym206 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym206 = 29;
        if (sym206 < 0) fail(OPGEN_E_SYMBOL, "kernel 'grad_layer_below' has no entry point for the dtypes of " "_dtype_T");
        out.put(OPGEN_STEP_LAUNCH); out.put(sym206);
        out.put(1);
        out.put(whole(num(env[1], "seq_blocks"), "a grid size"));
        out.put(1);
        out.put(whole(num(env[2], "seq_threads"), "a block size"));
        out.put(whole(integer(0LL), "the shared size"));
        int64_t nargs207 = out.used; out.put(0);
        out.put(OPGEN_T_SLOT); out.put(20);
        out.put(OPGEN_T_SLOT); out.put(10);
        out.put(OPGEN_T_SLOT); out.put(4);
        scalar(out, OPGEN_T_I64, num(env[56], "layer_cells"), "layer_cells");
        scalar(out, OPGEN_T_I64, num(env[55], "below_mask_ofs"), "below_mask_ofs");
        out.words[nargs207] = (out.used - nargs207 - 1) / 2;
      }
    }
  }
  if ((equal(num(env[44], "dx"), integer(1LL)))) {
    int64_t sym208 = -1;
    if (sym208 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym208 = 9;
    if (sym208 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym208 = 10;
    if (sym208 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym208 = 11;
    if (sym208 < 0) fail(OPGEN_E_SYMBOL, "kernel 'from_time_major' has no entry point for the dtypes of " "_dtype_T");
    out.put(OPGEN_STEP_LAUNCH); out.put(sym208);
    out.put(1);
    out.put(whole(num(env[1], "seq_blocks"), "a grid size"));
    out.put(1);
    out.put(whole(num(env[2], "seq_threads"), "a block size"));
    out.put(whole(integer(0LL), "the shared size"));
    int64_t nargs209 = out.used; out.put(0);
    out.put(OPGEN_T_SLOT); out.put(19);
    out.put(OPGEN_T_SLOT); out.put(21);
    scalar(out, OPGEN_T_I64, num(env[46], "unswap0"), "unswap0");
    scalar(out, OPGEN_T_I64, num(env[47], "unswap1"), "unswap1");
    scalar(out, OPGEN_T_I64, num(env[5], "input_size"), "input_size");
    out.words[nargs209] = (out.used - nargs209 - 1) / 2;
  }
  if ((equal(num(env[44], "dx"), integer(0LL)))) {
    out.put(OPGEN_STEP_GEMM); out.put(19); out.put(19); out.put(21);
    { Num size210 = num(env[6], "rows");
      if (size210.is_float) out.put_double(OPGEN_T_FLOAT, size210.f); else { out.put(OPGEN_T_INT); out.put(size210.i); } }
    { Num size211 = num(env[5], "input_size");
      if (size211.is_float) out.put_double(OPGEN_T_FLOAT, size211.f); else { out.put(OPGEN_T_INT); out.put(size211.i); } }
    { Num size212 = integer(0LL);
      if (size212.is_float) out.put_double(OPGEN_T_FLOAT, size212.f); else { out.put(OPGEN_T_INT); out.put(size212.i); } }
    out.put(OPGEN_T_BOOL); out.put(0);
    out.put(OPGEN_T_BOOL); out.put(0);
    { Num size213 = integer(0LL);
      if (size213.is_float) out.put_double(OPGEN_T_FLOAT, size213.f); else { out.put(OPGEN_T_INT); out.put(size213.i); } }
    { Num size214 = integer(0LL);
      if (size214.is_float) out.put_double(OPGEN_T_FLOAT, size214.f); else { out.put(OPGEN_T_INT); out.put(size214.i); } }
    { Num size215 = integer(0LL);
      if (size215.is_float) out.put_double(OPGEN_T_FLOAT, size215.f); else { out.put(OPGEN_T_INT); out.put(size215.i); } }
    { Num size216 = integer(0LL);
      if (size216.is_float) out.put_double(OPGEN_T_FLOAT, size216.f); else { out.put(OPGEN_T_INT); out.put(size216.i); } }
    { Num size217 = integer(1LL);
      if (size217.is_float) out.put_double(OPGEN_T_FLOAT, size217.f); else { out.put(OPGEN_T_INT); out.put(size217.i); } }
    { Num size218 = integer(0LL);
      if (size218.is_float) out.put_double(OPGEN_T_FLOAT, size218.f); else { out.put(OPGEN_T_INT); out.put(size218.i); } }
    { Num size219 = integer(0LL);
      if (size219.is_float) out.put_double(OPGEN_T_FLOAT, size219.f); else { out.put(OPGEN_T_INT); out.put(size219.i); } }
    { Num size220 = integer(0LL);
      if (size220.is_float) out.put_double(OPGEN_T_FLOAT, size220.f); else { out.put(OPGEN_T_INT); out.put(size220.i); } }
  }
  *variant = -1;
  if (*variant < 0 && truth(num(env[27], "persistent"))) *variant = 0;
  if (*variant < 0 && truth(num(env[40], "fused"))) *variant = 1;
  if (*variant < 0 && truth(num(env[33], "gemm_steps"))) *variant = 2;
}

OPGEN_PLAN_API int opgen_plan_CudnnRNNBackpropV3(const opgen_plan_value* values, int64_t nvalues, const char* backend, int64_t* words, int64_t capacity, int64_t* used, int64_t* variant, char* err, int64_t errlen) {
  Out out{words, capacity, 0};
  try {
    if (nvalues != 48) fail(OPGEN_E_VALUES, "the plan reads 48 names, the call gave " + std::to_string(nvalues));
    if (backend == nullptr) fail(OPGEN_E_VALUES, "no backend named");
    opgen_plan_value env[78] = {};
    for (int64_t k = 0; k < 48; ++k) env[k] = values[k];
    opgen_plan_walk_CudnnRNNBackpropV3(env, backend, out, variant);
    *used = out.used;
    return OPGEN_PLAN_OK;
  } catch (const Error& e) {
    *used = out.used;
    return report(Error{e.code, "CudnnRNNBackpropV3: " + e.message}, err, errlen);
  } catch (...) {  // (std::bad_alloc building a message): an error, never an exception through C
    *used = out.used;
    return report(Error{OPGEN_E_INTERNAL, "CudnnRNNBackpropV3: the native recorder failed"}, err, errlen);
  }
}

OPGEN_PLAN_API const char* opgen_plan_CudnnRNNBackpropV3_info(int table, int64_t index) {
  static const char* const t0[] = {"_dtype_T", "seq_blocks", "seq_threads", "swap0", "swap1", "input_size", "rows", "steps", "batch", "out_width", "time_major", "num_layers", "skip", "dirs", "w0", "w1", "layers_dirs", "pl_size", "gate_width", "h_size", "acts", "cell_blocks", "cell_threads", "num_units", "lstm", "persistent_blocks", "rnn_mode", "persistent", "relu", "gru", "proj", "row_blocks", "row_threads", "gemm_steps", "unprojected_row_tiles", "lstm_unit_tiles", "fused_max_depth", "fused_row_tiles", "fused_h_tiles", "fused_unit_tiles", "fused", "weights_len", "bias_blocks", "bias_threads", "dx", "gates", "unswap0", "unswap1"};
  if (table == 0) return index >= 0 && index < 48 ? t0[index] : nullptr;
  static const char* const t1[] = {"float16", "float32", "float64", "gru", "lstm"};
  if (table == 1) return index >= 0 && index < 5 ? t1[index] : nullptr;
  static const char* const t2[] = {"CudnnRNNBackpropV3__copy_span__float16", "CudnnRNNBackpropV3__copy_span__float32", "CudnnRNNBackpropV3__copy_span__float64", "CudnnRNNBackpropV3__fill_ones__float16", "CudnnRNNBackpropV3__fill_ones__float32", "CudnnRNNBackpropV3__fill_ones__float64", "CudnnRNNBackpropV3__final_grad__float16", "CudnnRNNBackpropV3__final_grad__float32", "CudnnRNNBackpropV3__final_grad__float64", "CudnnRNNBackpropV3__from_time_major__float16", "CudnnRNNBackpropV3__from_time_major__float32", "CudnnRNNBackpropV3__from_time_major__float64", "CudnnRNNBackpropV3__fused_gru_grad__float16", "CudnnRNNBackpropV3__fused_gru_grad__float32", "CudnnRNNBackpropV3__fused_gru_grad__float64", "CudnnRNNBackpropV3__fused_lstm_grad__float16", "CudnnRNNBackpropV3__fused_lstm_grad__float32", "CudnnRNNBackpropV3__fused_lstm_grad__float64", "CudnnRNNBackpropV3__fused_lstm_proj_grad__float16", "CudnnRNNBackpropV3__fused_lstm_proj_grad__float32", "CudnnRNNBackpropV3__fused_lstm_proj_grad__float64", "CudnnRNNBackpropV3__fused_proj_cells__float16", "CudnnRNNBackpropV3__fused_proj_cells__float32", "CudnnRNNBackpropV3__fused_proj_cells__float64", "CudnnRNNBackpropV3__fused_rnn_grad__float16", "CudnnRNNBackpropV3__fused_rnn_grad__float32", "CudnnRNNBackpropV3__fused_rnn_grad__float64", "CudnnRNNBackpropV3__grad_layer_below__float16", "CudnnRNNBackpropV3__grad_layer_below__float32", "CudnnRNNBackpropV3__grad_layer_below__float64", "CudnnRNNBackpropV3__grad_output_in__float16", "CudnnRNNBackpropV3__grad_output_in__float32", "CudnnRNNBackpropV3__grad_output_in__float64", "CudnnRNNBackpropV3__gru_grad_step__float16", "CudnnRNNBackpropV3__gru_grad_step__float32", "CudnnRNNBackpropV3__gru_grad_step__float64", "CudnnRNNBackpropV3__init_grad__float16", "CudnnRNNBackpropV3__init_grad__float32", "CudnnRNNBackpropV3__init_grad__float64", "CudnnRNNBackpropV3__lstm_grad_step__float16", "CudnnRNNBackpropV3__lstm_grad_step__float32", "CudnnRNNBackpropV3__lstm_grad_step__float64", "CudnnRNNBackpropV3__persistent_gru_grad__float16", "CudnnRNNBackpropV3__persistent_gru_grad__float32", "CudnnRNNBackpropV3__persistent_gru_grad__float64", "CudnnRNNBackpropV3__persistent_lstm_grad__float16", "CudnnRNNBackpropV3__persistent_lstm_grad__float32", "CudnnRNNBackpropV3__persistent_lstm_grad__float64", "CudnnRNNBackpropV3__persistent_rnn_grad__float16", "CudnnRNNBackpropV3__persistent_rnn_grad__float32", "CudnnRNNBackpropV3__persistent_rnn_grad__float64", "CudnnRNNBackpropV3__proj_grad__float16", "CudnnRNNBackpropV3__proj_grad__float32", "CudnnRNNBackpropV3__proj_grad__float64", "CudnnRNNBackpropV3__rnn_grad_step__float16", "CudnnRNNBackpropV3__rnn_grad_step__float32", "CudnnRNNBackpropV3__rnn_grad_step__float64", "CudnnRNNBackpropV3__skip_grad__float16", "CudnnRNNBackpropV3__skip_grad__float32", "CudnnRNNBackpropV3__skip_grad__float64", "CudnnRNNBackpropV3__to_time_major__float16", "CudnnRNNBackpropV3__to_time_major__float32", "CudnnRNNBackpropV3__to_time_major__float64"};
  if (table == 2) return index >= 0 && index < 63 ? t2[index] : nullptr;
  static const char* const t3[] = {"persistent", "fused", "gemm_steps"};
  if (table == 3) return index >= 0 && index < 3 ? t3[index] : nullptr;
  return nullptr;
}

}  // namespace opgen_plan
// CudnnRNNBackpropV3: its wrapper's _compute in C++ (codegen/drivergen_checks.py)
static void opgen_drive_CudnnRNNBackpropV3(opgen_call* call, bool run) {
  using namespace opgen_checks;
  static const char OP[] = "CudnnRNNBackpropV3";
  Frame frame;
  if (call->ninputs != 13 || call->nattrs != 9) raise(OPGEN_ERR_RUNTIME, std::string(OP) + ": the driver takes 13 inputs and 9 attrs, the call gave " + std::to_string(call->ninputs) + " and " + std::to_string(call->nattrs));
  call->noutputs = 4;
  V v_input = input_value(call, 0);
  V v_input_h = input_value(call, 1);
  V v_input_c = input_value(call, 2);
  V v_params = input_value(call, 3);
  V v_sequence_lengths = input_value(call, 4);
  V v_output = input_value(call, 5);
  V v_output_h = input_value(call, 6);
  V v_output_c = input_value(call, 7);
  V v_output_backprop = input_value(call, 8);
  V v_output_h_backprop = input_value(call, 9);
  V v_output_c_backprop = input_value(call, 10);
  V v_reserve_space = input_value(call, 11);
  V v_host_reserved = input_value(call, 12);
  V v_rnn_mode = attr_value(call->attrs[0]);
  V v_input_mode = attr_value(call->attrs[1]);
  V v_direction = attr_value(call->attrs[2]);
  V v_dropout = attr_value(call->attrs[3]);
  V v_seed = attr_value(call->attrs[4]);
  V v_seed2 = attr_value(call->attrs[5]);
  V v_num_proj = attr_value(call->attrs[6]);
  V v_time_major = attr_value(call->attrs[7]);
  V v_compute_input_backprop = attr_value(call->attrs[8]);
  V v__dtype_T;
  int64_t v_acts = 0;
  int64_t v_batch = 0;
  int64_t v_bias_blocks = 0;
  int64_t v_bias_threads = 0;
  int64_t v_c_layers = 0;
  int64_t v_c_size = 0;
  int64_t v_cell_blocks = 0;
  int64_t v_cell_threads = 0;
  int64_t v_cells = 0;
  V v_dc;
  V v_dgr;
  V v_dgw;
  V v_dh;
  V v_dhp;
  int64_t v_dirs = 0;
  V v_dm;
  int64_t v_dx = 0;
  V v_dxl;
  V v_dxt;
  V v_dy;
  bool v_fused = false;
  int64_t v_fused_depth = 0;
  int64_t v_fused_h_tiles = 0;
  int64_t v_fused_max_depth = 0;
  int64_t v_fused_row_tiles = 0;
  int64_t v_fused_unit_tiles = 0;
  int64_t v_gate_width = 0;
  int64_t v_gates = 0;
  bool v_gemm_steps = false;
  int64_t v_gpu_row_threads = 0;
  int64_t v_gru = 0;
  int64_t v_h_size = 0;
  V v_input_backprop;
  V v_input_c_backprop;
  V v_input_h_backprop;
  int64_t v_input_size = 0;
  int64_t v_layers_dirs = 0;
  int64_t v_lstm = 0;
  int64_t v_lstm_unit_tiles = 0;
  int64_t v_num_layers = 0;
  int64_t v_num_units = 0;
  V v_ones;
  int64_t v_out_width = 0;
  V v_params_backprop;
  int64_t v_params_len = 0;
  V v_params_size;
  bool v_persistent = false;
  int64_t v_persistent_blocks = 0;
  int64_t v_persistent_max_batch = 0;
  int64_t v_persistent_max_weights = 0;
  V v_pl_size;
  V v_proj;
  int64_t v_relu = 0;
  int64_t v_reserve_got = 0;
  V v_reserve_len;
  int64_t v_row_blocks = 0;
  int64_t v_row_threads = 0;
  int64_t v_rows = 0;
  int64_t v_seq_blocks = 0;
  int64_t v_seq_cells = 0;
  int64_t v_seq_threads = 0;
  int64_t v_skip = 0;
  int64_t v_steps = 0;
  int64_t v_swap0 = 0;
  int64_t v_swap1 = 0;
  int64_t v_unprojected_row_tiles = 0;
  int64_t v_unswap0 = 0;
  int64_t v_unswap1 = 0;
  V v_w0;
  V v_w1;
  V v_weights_len;
  V v_xt;
  Shape v__shape_input_backprop;
  Shape v__shape_input_c_backprop;
  Shape v__shape_input_h_backprop;
  Shape v__shape_params_backprop;
  v_rnn_mode = check_enum(OP, "rnn_mode", v_rnn_mode, {lit("rnn_relu"), lit("rnn_tanh"), lit("lstm"), lit("gru")});
  v_input_mode = check_enum(OP, "input_mode", v_input_mode, {lit("linear_input"), lit("skip_input"), lit("auto_select")});
  v_direction = check_enum(OP, "direction", v_direction, {lit("unidirectional"), lit("bidirectional")});
  v_dropout = check_float(OP, "dropout", v_dropout, Bound{true, true, 0LL, 0.0, "0"}, Bound{true, true, 1LL, 0.0, "1"}, false, false);
  v_seed = check_int(OP, "seed", v_seed, no_bound(), no_bound(), {}, false, false);
  v_seed2 = check_int(OP, "seed2", v_seed2, no_bound(), no_bound(), {}, false, false);
  v_num_proj = check_int(OP, "num_proj", v_num_proj, Bound{true, true, 0LL, 0.0, "0"}, no_bound(), {}, false, false);
  v_time_major = check_bool(OP, "time_major", v_time_major);
  v_compute_input_backprop = check_bool(OP, "compute_input_backprop", v_compute_input_backprop);
  v_input = adopt(call, OP, "input", v_input);
  v__dtype_T = check_dtype(OP, "input", v_input, {"float16", "float32", "float64"}, "T");
  v_input_h = adopt(call, OP, "input_h", v_input_h);
  check_same_dtype(OP, "input_h", v_input_h, v__dtype_T, "T", "input");
  v_input_c = adopt(call, OP, "input_c", v_input_c);
  if (equal(v_rnn_mode, lit("lstm"))) {
    check_same_dtype(OP, "input_c", v_input_c, v__dtype_T, "T", "input");
  }
  v_params = adopt(call, OP, "params", v_params);
  check_same_dtype(OP, "params", v_params, v__dtype_T, "T", "input");
  v_sequence_lengths = adopt(call, OP, "sequence_lengths", v_sequence_lengths);
  check_dtype(OP, "sequence_lengths", v_sequence_lengths, {"int32"}, nullptr);
  v_output = adopt(call, OP, "output", v_output);
  check_same_dtype(OP, "output", v_output, v__dtype_T, "T", "input");
  v_output_h = adopt(call, OP, "output_h", v_output_h);
  check_same_dtype(OP, "output_h", v_output_h, v__dtype_T, "T", "input");
  v_output_c = adopt(call, OP, "output_c", v_output_c);
  if (equal(v_rnn_mode, lit("lstm"))) {
    check_same_dtype(OP, "output_c", v_output_c, v__dtype_T, "T", "input");
  }
  v_output_backprop = adopt(call, OP, "output_backprop", v_output_backprop);
  check_same_dtype(OP, "output_backprop", v_output_backprop, v__dtype_T, "T", "input");
  v_output_h_backprop = adopt(call, OP, "output_h_backprop", v_output_h_backprop);
  check_same_dtype(OP, "output_h_backprop", v_output_h_backprop, v__dtype_T, "T", "input");
  v_output_c_backprop = adopt(call, OP, "output_c_backprop", v_output_c_backprop);
  if (equal(v_rnn_mode, lit("lstm"))) {
    check_same_dtype(OP, "output_c_backprop", v_output_c_backprop, v__dtype_T, "T", "input");
  }
  v_reserve_space = adopt(call, OP, "reserve_space", v_reserve_space);
  check_same_dtype(OP, "reserve_space", v_reserve_space, v__dtype_T, "T", "input");
  v_host_reserved = adopt(call, OP, "host_reserved", v_host_reserved);
  check_dtype(OP, "host_reserved", v_host_reserved, {"int8"}, nullptr);
  if (truth(v_time_major)) {
    if ((ndim_i(v_input) != 3LL)) {
      shape_error(OP, "input", {"steps", "batch", "input_size"}, shape(v_input), {}, "time_major true");
    }
    v_steps = dim_i(v_input, 0LL);
    v_batch = dim_i(v_input, 1LL);
    v_input_size = dim_i(v_input, 2LL);
    if ((ndim_i(v_input_h) != 3LL)) {
      shape_error(OP, "input_h", {"layers_dirs", "batch", "h_size"}, shape(v_input_h), {Binding{"batch", integer(v_batch)}}, "time_major true");
    }
    v_layers_dirs = dim_i(v_input_h, 0LL);
    v_h_size = dim_i(v_input_h, 2LL);
    if ((dim_i(v_input_h, 1LL) != v_batch)) {
      shape_error(OP, "input_h", {"layers_dirs", "batch", "h_size"}, shape(v_input_h), {Binding{"batch", integer(v_batch)}, Binding{"h_size", integer(v_h_size)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "time_major true");
    }
    if (equal(v_rnn_mode, lit("lstm"))) {
      if ((ndim_i(v_input_c) != 3LL)) {
        shape_error(OP, "input_c", {"layers_dirs", "batch", "c_size"}, shape(v_input_c), {Binding{"batch", integer(v_batch)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "time_major true");
      }
      v_c_size = dim_i(v_input_c, 2LL);
      if (((dim_i(v_input_c, 0LL) != v_layers_dirs) || (dim_i(v_input_c, 1LL) != v_batch))) {
        shape_error(OP, "input_c", {"layers_dirs", "batch", "c_size"}, shape(v_input_c), {Binding{"batch", integer(v_batch)}, Binding{"c_size", integer(v_c_size)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "time_major true");
      }
    }
    if ((ndim_i(v_params) != 1LL)) {
      shape_error(OP, "params", {"params_len"}, shape(v_params), {}, "time_major true");
    }
    v_params_len = dim_i(v_params, 0LL);
    if ((ndim_i(v_sequence_lengths) != 1LL)) {
      shape_error(OP, "sequence_lengths", {"batch"}, shape(v_sequence_lengths), {Binding{"batch", integer(v_batch)}}, "time_major true");
    }
    if ((dim_i(v_sequence_lengths, 0LL) != v_batch)) {
      shape_error(OP, "sequence_lengths", {"batch"}, shape(v_sequence_lengths), {Binding{"batch", integer(v_batch)}}, "time_major true");
    }
    if ((ndim_i(v_output) != 3LL)) {
      shape_error(OP, "output", {"steps", "batch", "out_width"}, shape(v_output), {Binding{"batch", integer(v_batch)}, Binding{"steps", integer(v_steps)}}, "time_major true");
    }
    v_out_width = dim_i(v_output, 2LL);
    if (((dim_i(v_output, 0LL) != v_steps) || (dim_i(v_output, 1LL) != v_batch))) {
      shape_error(OP, "output", {"steps", "batch", "out_width"}, shape(v_output), {Binding{"batch", integer(v_batch)}, Binding{"out_width", integer(v_out_width)}, Binding{"steps", integer(v_steps)}}, "time_major true");
    }
    if ((ndim_i(v_output_h) != 3LL)) {
      shape_error(OP, "output_h", {"layers_dirs", "batch", "h_size"}, shape(v_output_h), {Binding{"batch", integer(v_batch)}, Binding{"h_size", integer(v_h_size)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "time_major true");
    }
    if (((dim_i(v_output_h, 0LL) != v_layers_dirs) || (dim_i(v_output_h, 1LL) != v_batch) || (dim_i(v_output_h, 2LL) != v_h_size))) {
      shape_error(OP, "output_h", {"layers_dirs", "batch", "h_size"}, shape(v_output_h), {Binding{"batch", integer(v_batch)}, Binding{"h_size", integer(v_h_size)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "time_major true");
    }
    if (equal(v_rnn_mode, lit("lstm"))) {
      if ((ndim_i(v_output_c) != 3LL)) {
        shape_error(OP, "output_c", {"layers_dirs", "batch", "c_size"}, shape(v_output_c), {Binding{"batch", integer(v_batch)}, Binding{"c_size", integer(v_c_size)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "time_major true");
      }
      if (((dim_i(v_output_c, 0LL) != v_layers_dirs) || (dim_i(v_output_c, 1LL) != v_batch) || (dim_i(v_output_c, 2LL) != v_c_size))) {
        shape_error(OP, "output_c", {"layers_dirs", "batch", "c_size"}, shape(v_output_c), {Binding{"batch", integer(v_batch)}, Binding{"c_size", integer(v_c_size)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "time_major true");
      }
    }
    if ((ndim_i(v_output_backprop) != 3LL)) {
      shape_error(OP, "output_backprop", {"steps", "batch", "out_width"}, shape(v_output_backprop), {Binding{"batch", integer(v_batch)}, Binding{"out_width", integer(v_out_width)}, Binding{"steps", integer(v_steps)}}, "time_major true");
    }
    if (((dim_i(v_output_backprop, 0LL) != v_steps) || (dim_i(v_output_backprop, 1LL) != v_batch) || (dim_i(v_output_backprop, 2LL) != v_out_width))) {
      shape_error(OP, "output_backprop", {"steps", "batch", "out_width"}, shape(v_output_backprop), {Binding{"batch", integer(v_batch)}, Binding{"out_width", integer(v_out_width)}, Binding{"steps", integer(v_steps)}}, "time_major true");
    }
    if ((ndim_i(v_output_h_backprop) != 3LL)) {
      shape_error(OP, "output_h_backprop", {"layers_dirs", "batch", "h_size"}, shape(v_output_h_backprop), {Binding{"batch", integer(v_batch)}, Binding{"h_size", integer(v_h_size)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "time_major true");
    }
    if (((dim_i(v_output_h_backprop, 0LL) != v_layers_dirs) || (dim_i(v_output_h_backprop, 1LL) != v_batch) || (dim_i(v_output_h_backprop, 2LL) != v_h_size))) {
      shape_error(OP, "output_h_backprop", {"layers_dirs", "batch", "h_size"}, shape(v_output_h_backprop), {Binding{"batch", integer(v_batch)}, Binding{"h_size", integer(v_h_size)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "time_major true");
    }
    if (equal(v_rnn_mode, lit("lstm"))) {
      if ((ndim_i(v_output_c_backprop) != 3LL)) {
        shape_error(OP, "output_c_backprop", {"layers_dirs", "batch", "c_size"}, shape(v_output_c_backprop), {Binding{"batch", integer(v_batch)}, Binding{"c_size", integer(v_c_size)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "time_major true");
      }
      if (((dim_i(v_output_c_backprop, 0LL) != v_layers_dirs) || (dim_i(v_output_c_backprop, 1LL) != v_batch) || (dim_i(v_output_c_backprop, 2LL) != v_c_size))) {
        shape_error(OP, "output_c_backprop", {"layers_dirs", "batch", "c_size"}, shape(v_output_c_backprop), {Binding{"batch", integer(v_batch)}, Binding{"c_size", integer(v_c_size)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "time_major true");
      }
    }
    if ((ndim_i(v_reserve_space) != 1LL)) {
      shape_error(OP, "reserve_space", {"reserve_got"}, shape(v_reserve_space), {}, "time_major true");
    }
    v_reserve_got = dim_i(v_reserve_space, 0LL);
    v_persistent_max_weights = 4096LL;
    v_persistent_max_batch = 64LL;
    v_fused_max_depth = 128LL;
    v_dirs = (equal(v_direction, lit("unidirectional")) ? 1LL : 2LL);
    v_gates = (contains(v_rnn_mode, {lit("rnn_relu"), lit("rnn_tanh")}) ? 1LL : (equal(v_rnn_mode, lit("lstm")) ? 4LL : 3LL));
    v_lstm = (contains(v_rnn_mode, {lit("rnn_relu"), lit("rnn_tanh"), lit("gru")}) ? 0LL : 1LL);
    v_gru = (contains(v_rnn_mode, {lit("rnn_relu"), lit("rnn_tanh"), lit("lstm")}) ? 0LL : 1LL);
    v_relu = (equal(v_rnn_mode, lit("rnn_relu")) ? 1LL : 0LL);
    v_num_units = (contains(v_rnn_mode, {lit("rnn_relu"), lit("rnn_tanh"), lit("gru")}) ? v_h_size : v_c_size);
    v_num_layers = floordiv_i(v_layers_dirs, v_dirs);
    v_proj = min_of(v_num_proj, integer(1LL));
    v_skip = (equal(v_input_mode, lit("linear_input")) ? 0LL : (equal(v_input_mode, lit("skip_input")) ? 1LL : sub_i(1LL, min_i(mul_i(sub_i(v_input_size, v_num_units), sub_i(v_input_size, v_num_units)), 1LL))));
    v_gate_width = mul_i(v_gates, v_num_units);
    v_acts = mul_i(mul_i(4LL, v_num_units), add_i(v_lstm, v_gru));
    v_rows = mul_i(v_steps, v_batch);
    v_out_width = mul_i(v_dirs, v_h_size);
    v_c_layers = mul_i(v_layers_dirs, v_lstm);
    v_w0 = add(integer(add_i(mul_i(mul_i(v_gate_width, v_input_size), sub_i(1LL, v_skip)), mul_i(v_gate_width, v_h_size))), mul(v_num_proj, integer(v_num_units)));
    v_w1 = add(integer(add_i(mul_i(v_gate_width, v_out_width), mul_i(v_gate_width, v_h_size))), mul(v_num_proj, integer(v_num_units)));
    v_weights_len = add(mul(integer(v_dirs), v_w0), mul(integer(mul_i(sub_i(v_num_layers, 1LL), v_dirs)), v_w1));
    v_params_size = add(v_weights_len, integer(mul_i(mul_i(v_layers_dirs, 2LL), v_gate_width)));
    v_pl_size = add(integer(add_i(add_i(mul_i(v_rows, v_acts), mul_i(mul_i(add_i(v_steps, 1LL), v_batch), v_h_size)), mul_i(mul_i(mul_i(v_lstm, add_i(v_steps, 1LL)), v_batch), v_num_units))), mul(mul(v_proj, integer(v_rows)), integer(v_num_units)));
    v_reserve_len = add(mul(integer(v_layers_dirs), v_pl_size), integer(mul_i(mul_i(mul_i(sub_i(v_num_layers, 1LL), 2LL), v_rows), v_out_width)));
    v_swap0 = 1LL;
    v_swap1 = v_rows;
    v_cells = mul_i(v_batch, v_num_units);
    v_cell_blocks = ((call->device != OPGEN_DEV_CUDA) ? 1LL : min_i(neg_i(floordiv_i(neg_i(v_cells), 256LL)), 65535LL));
    v_cell_threads = ((call->device != OPGEN_DEV_CUDA) ? 1LL : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_cells), 128LL))))));
    v_row_blocks = ((call->device != OPGEN_DEV_CUDA) ? min_i(v_batch, 4LL) : min_i(v_batch, 65535LL));
    v_gpu_row_threads = (contains(v_rnn_mode, {lit("rnn_relu"), lit("rnn_tanh")}) ? 256LL : max_i(128LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_num_units), 32LL))))));
    v_row_threads = ((call->device != OPGEN_DEV_CUDA) ? 1LL : v_gpu_row_threads);
    v_persistent_blocks = neg_i(floordiv_i(neg_i(v_batch), 4LL));
    v_fused_depth = mul_i(v_gates, max_i(v_num_units, v_h_size));
    v_persistent = ((call->device == OPGEN_DEV_CUDA) && equal(v_proj, integer(0LL)) && (mul_i(v_gate_width, v_h_size) >= 1LL) && (mul_i(v_gate_width, v_h_size) <= v_persistent_max_weights) && (v_batch >= 1LL) && (v_batch <= v_persistent_max_batch));
    v_fused = (!v_persistent && ((call->device == OPGEN_DEV_CUDA) && (v_fused_depth <= v_fused_max_depth)));
    v_gemm_steps = (!v_persistent && !v_fused);
    v_fused_row_tiles = neg_i(floordiv_i(neg_i(v_batch), 32LL));
    v_fused_unit_tiles = neg_i(floordiv_i(neg_i(v_num_units), 32LL));
    v_fused_h_tiles = min_i(neg_i(floordiv_i(neg_i(v_h_size), 32LL)), neg_i(floordiv_i(neg_i(v_fused_max_depth), mul_i(4LL, 32LL))));
    v_seq_cells = mul_i(v_rows, max_i(v_input_size, v_out_width));
    v_seq_blocks = ((call->device != OPGEN_DEV_CUDA) ? min_i(16LL, neg_i(floordiv_i(neg_i(v_seq_cells), 65536LL))) : min_i(neg_i(floordiv_i(neg_i(v_seq_cells), 256LL)), 65535LL));
    v_seq_threads = ((call->device != OPGEN_DEV_CUDA) ? 1LL : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_seq_cells), 128LL))))));
    v_unswap0 = 1LL;
    v_unswap1 = v_rows;
    v_dx = (truth(v_compute_input_backprop) ? 1LL : 0LL);
    v_bias_blocks = ((call->device != OPGEN_DEV_CUDA) ? 1LL : min_i(neg_i(floordiv_i(neg_i(v_gate_width), 256LL)), 65535LL));
    v_bias_threads = ((call->device != OPGEN_DEV_CUDA) ? 1LL : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_gate_width), 128LL))))));
    v_unprojected_row_tiles = max_i(neg_i(floordiv_i(neg_i(v_batch), 32LL)), 3LL);
    v_lstm_unit_tiles = min_i(v_fused_unit_tiles, neg_i(floordiv_i(neg_i(v_fused_max_depth), mul_i(4LL, 32LL))));
    v__shape_input_backprop = Shape{v_steps, v_batch, v_input_size};
    v__shape_input_h_backprop = Shape{v_layers_dirs, v_batch, v_h_size};
    v__shape_input_c_backprop = Shape{v_c_layers, v_batch, v_num_units};
    v__shape_params_backprop = Shape{v_params_len};
  } else {
    if ((ndim_i(v_input) != 3LL)) {
      shape_error(OP, "input", {"batch", "steps", "input_size"}, shape(v_input), {}, "time_major false");
    }
    v_batch = dim_i(v_input, 0LL);
    v_steps = dim_i(v_input, 1LL);
    v_input_size = dim_i(v_input, 2LL);
    if ((ndim_i(v_input_h) != 3LL)) {
      shape_error(OP, "input_h", {"batch", "layers_dirs", "h_size"}, shape(v_input_h), {Binding{"batch", integer(v_batch)}}, "time_major false");
    }
    v_layers_dirs = dim_i(v_input_h, 1LL);
    v_h_size = dim_i(v_input_h, 2LL);
    if ((dim_i(v_input_h, 0LL) != v_batch)) {
      shape_error(OP, "input_h", {"batch", "layers_dirs", "h_size"}, shape(v_input_h), {Binding{"batch", integer(v_batch)}, Binding{"h_size", integer(v_h_size)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "time_major false");
    }
    if (equal(v_rnn_mode, lit("lstm"))) {
      if ((ndim_i(v_input_c) != 3LL)) {
        shape_error(OP, "input_c", {"batch", "layers_dirs", "c_size"}, shape(v_input_c), {Binding{"batch", integer(v_batch)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "time_major false");
      }
      v_c_size = dim_i(v_input_c, 2LL);
      if (((dim_i(v_input_c, 0LL) != v_batch) || (dim_i(v_input_c, 1LL) != v_layers_dirs))) {
        shape_error(OP, "input_c", {"batch", "layers_dirs", "c_size"}, shape(v_input_c), {Binding{"batch", integer(v_batch)}, Binding{"c_size", integer(v_c_size)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "time_major false");
      }
    }
    if ((ndim_i(v_params) != 1LL)) {
      shape_error(OP, "params", {"params_len"}, shape(v_params), {}, "time_major false");
    }
    v_params_len = dim_i(v_params, 0LL);
    if ((ndim_i(v_sequence_lengths) != 1LL)) {
      shape_error(OP, "sequence_lengths", {"batch"}, shape(v_sequence_lengths), {Binding{"batch", integer(v_batch)}}, "time_major false");
    }
    if ((dim_i(v_sequence_lengths, 0LL) != v_batch)) {
      shape_error(OP, "sequence_lengths", {"batch"}, shape(v_sequence_lengths), {Binding{"batch", integer(v_batch)}}, "time_major false");
    }
    if ((ndim_i(v_output) != 3LL)) {
      shape_error(OP, "output", {"batch", "steps", "out_width"}, shape(v_output), {Binding{"batch", integer(v_batch)}, Binding{"steps", integer(v_steps)}}, "time_major false");
    }
    v_out_width = dim_i(v_output, 2LL);
    if (((dim_i(v_output, 0LL) != v_batch) || (dim_i(v_output, 1LL) != v_steps))) {
      shape_error(OP, "output", {"batch", "steps", "out_width"}, shape(v_output), {Binding{"batch", integer(v_batch)}, Binding{"out_width", integer(v_out_width)}, Binding{"steps", integer(v_steps)}}, "time_major false");
    }
    if ((ndim_i(v_output_h) != 3LL)) {
      shape_error(OP, "output_h", {"batch", "layers_dirs", "h_size"}, shape(v_output_h), {Binding{"batch", integer(v_batch)}, Binding{"h_size", integer(v_h_size)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "time_major false");
    }
    if (((dim_i(v_output_h, 0LL) != v_batch) || (dim_i(v_output_h, 1LL) != v_layers_dirs) || (dim_i(v_output_h, 2LL) != v_h_size))) {
      shape_error(OP, "output_h", {"batch", "layers_dirs", "h_size"}, shape(v_output_h), {Binding{"batch", integer(v_batch)}, Binding{"h_size", integer(v_h_size)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "time_major false");
    }
    if (equal(v_rnn_mode, lit("lstm"))) {
      if ((ndim_i(v_output_c) != 3LL)) {
        shape_error(OP, "output_c", {"batch", "layers_dirs", "c_size"}, shape(v_output_c), {Binding{"batch", integer(v_batch)}, Binding{"c_size", integer(v_c_size)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "time_major false");
      }
      if (((dim_i(v_output_c, 0LL) != v_batch) || (dim_i(v_output_c, 1LL) != v_layers_dirs) || (dim_i(v_output_c, 2LL) != v_c_size))) {
        shape_error(OP, "output_c", {"batch", "layers_dirs", "c_size"}, shape(v_output_c), {Binding{"batch", integer(v_batch)}, Binding{"c_size", integer(v_c_size)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "time_major false");
      }
    }
    if ((ndim_i(v_output_backprop) != 3LL)) {
      shape_error(OP, "output_backprop", {"batch", "steps", "out_width"}, shape(v_output_backprop), {Binding{"batch", integer(v_batch)}, Binding{"out_width", integer(v_out_width)}, Binding{"steps", integer(v_steps)}}, "time_major false");
    }
    if (((dim_i(v_output_backprop, 0LL) != v_batch) || (dim_i(v_output_backprop, 1LL) != v_steps) || (dim_i(v_output_backprop, 2LL) != v_out_width))) {
      shape_error(OP, "output_backprop", {"batch", "steps", "out_width"}, shape(v_output_backprop), {Binding{"batch", integer(v_batch)}, Binding{"out_width", integer(v_out_width)}, Binding{"steps", integer(v_steps)}}, "time_major false");
    }
    if ((ndim_i(v_output_h_backprop) != 3LL)) {
      shape_error(OP, "output_h_backprop", {"batch", "layers_dirs", "h_size"}, shape(v_output_h_backprop), {Binding{"batch", integer(v_batch)}, Binding{"h_size", integer(v_h_size)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "time_major false");
    }
    if (((dim_i(v_output_h_backprop, 0LL) != v_batch) || (dim_i(v_output_h_backprop, 1LL) != v_layers_dirs) || (dim_i(v_output_h_backprop, 2LL) != v_h_size))) {
      shape_error(OP, "output_h_backprop", {"batch", "layers_dirs", "h_size"}, shape(v_output_h_backprop), {Binding{"batch", integer(v_batch)}, Binding{"h_size", integer(v_h_size)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "time_major false");
    }
    if (equal(v_rnn_mode, lit("lstm"))) {
      if ((ndim_i(v_output_c_backprop) != 3LL)) {
        shape_error(OP, "output_c_backprop", {"batch", "layers_dirs", "c_size"}, shape(v_output_c_backprop), {Binding{"batch", integer(v_batch)}, Binding{"c_size", integer(v_c_size)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "time_major false");
      }
      if (((dim_i(v_output_c_backprop, 0LL) != v_batch) || (dim_i(v_output_c_backprop, 1LL) != v_layers_dirs) || (dim_i(v_output_c_backprop, 2LL) != v_c_size))) {
        shape_error(OP, "output_c_backprop", {"batch", "layers_dirs", "c_size"}, shape(v_output_c_backprop), {Binding{"batch", integer(v_batch)}, Binding{"c_size", integer(v_c_size)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "time_major false");
      }
    }
    if ((ndim_i(v_reserve_space) != 1LL)) {
      shape_error(OP, "reserve_space", {"reserve_got"}, shape(v_reserve_space), {}, "time_major false");
    }
    v_reserve_got = dim_i(v_reserve_space, 0LL);
    v_persistent_max_weights = 4096LL;
    v_persistent_max_batch = 64LL;
    v_fused_max_depth = 128LL;
    v_dirs = (equal(v_direction, lit("unidirectional")) ? 1LL : 2LL);
    v_gates = (contains(v_rnn_mode, {lit("rnn_relu"), lit("rnn_tanh")}) ? 1LL : (equal(v_rnn_mode, lit("lstm")) ? 4LL : 3LL));
    v_lstm = (contains(v_rnn_mode, {lit("rnn_relu"), lit("rnn_tanh"), lit("gru")}) ? 0LL : 1LL);
    v_gru = (contains(v_rnn_mode, {lit("rnn_relu"), lit("rnn_tanh"), lit("lstm")}) ? 0LL : 1LL);
    v_relu = (equal(v_rnn_mode, lit("rnn_relu")) ? 1LL : 0LL);
    v_num_units = (contains(v_rnn_mode, {lit("rnn_relu"), lit("rnn_tanh"), lit("gru")}) ? v_h_size : v_c_size);
    v_num_layers = floordiv_i(v_layers_dirs, v_dirs);
    v_proj = min_of(v_num_proj, integer(1LL));
    v_skip = (equal(v_input_mode, lit("linear_input")) ? 0LL : (equal(v_input_mode, lit("skip_input")) ? 1LL : sub_i(1LL, min_i(mul_i(sub_i(v_input_size, v_num_units), sub_i(v_input_size, v_num_units)), 1LL))));
    v_gate_width = mul_i(v_gates, v_num_units);
    v_acts = mul_i(mul_i(4LL, v_num_units), add_i(v_lstm, v_gru));
    v_rows = mul_i(v_steps, v_batch);
    v_out_width = mul_i(v_dirs, v_h_size);
    v_c_layers = mul_i(v_layers_dirs, v_lstm);
    v_w0 = add(integer(add_i(mul_i(mul_i(v_gate_width, v_input_size), sub_i(1LL, v_skip)), mul_i(v_gate_width, v_h_size))), mul(v_num_proj, integer(v_num_units)));
    v_w1 = add(integer(add_i(mul_i(v_gate_width, v_out_width), mul_i(v_gate_width, v_h_size))), mul(v_num_proj, integer(v_num_units)));
    v_weights_len = add(mul(integer(v_dirs), v_w0), mul(integer(mul_i(sub_i(v_num_layers, 1LL), v_dirs)), v_w1));
    v_params_size = add(v_weights_len, integer(mul_i(mul_i(v_layers_dirs, 2LL), v_gate_width)));
    v_pl_size = add(integer(add_i(add_i(mul_i(v_rows, v_acts), mul_i(mul_i(add_i(v_steps, 1LL), v_batch), v_h_size)), mul_i(mul_i(mul_i(v_lstm, add_i(v_steps, 1LL)), v_batch), v_num_units))), mul(mul(v_proj, integer(v_rows)), integer(v_num_units)));
    v_reserve_len = add(mul(integer(v_layers_dirs), v_pl_size), integer(mul_i(mul_i(mul_i(sub_i(v_num_layers, 1LL), 2LL), v_rows), v_out_width)));
    v_swap0 = v_batch;
    v_swap1 = v_steps;
    v_cells = mul_i(v_batch, v_num_units);
    v_cell_blocks = ((call->device != OPGEN_DEV_CUDA) ? 1LL : min_i(neg_i(floordiv_i(neg_i(v_cells), 256LL)), 65535LL));
    v_cell_threads = ((call->device != OPGEN_DEV_CUDA) ? 1LL : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_cells), 128LL))))));
    v_row_blocks = ((call->device != OPGEN_DEV_CUDA) ? min_i(v_batch, 4LL) : min_i(v_batch, 65535LL));
    v_gpu_row_threads = (contains(v_rnn_mode, {lit("rnn_relu"), lit("rnn_tanh")}) ? 256LL : max_i(128LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_num_units), 32LL))))));
    v_row_threads = ((call->device != OPGEN_DEV_CUDA) ? 1LL : v_gpu_row_threads);
    v_persistent_blocks = neg_i(floordiv_i(neg_i(v_batch), 4LL));
    v_fused_depth = mul_i(v_gates, max_i(v_num_units, v_h_size));
    v_persistent = ((call->device == OPGEN_DEV_CUDA) && equal(v_proj, integer(0LL)) && (mul_i(v_gate_width, v_h_size) >= 1LL) && (mul_i(v_gate_width, v_h_size) <= v_persistent_max_weights) && (v_batch >= 1LL) && (v_batch <= v_persistent_max_batch));
    v_fused = (!v_persistent && ((call->device == OPGEN_DEV_CUDA) && (v_fused_depth <= v_fused_max_depth)));
    v_gemm_steps = (!v_persistent && !v_fused);
    v_fused_row_tiles = neg_i(floordiv_i(neg_i(v_batch), 32LL));
    v_fused_unit_tiles = neg_i(floordiv_i(neg_i(v_num_units), 32LL));
    v_fused_h_tiles = min_i(neg_i(floordiv_i(neg_i(v_h_size), 32LL)), neg_i(floordiv_i(neg_i(v_fused_max_depth), mul_i(4LL, 32LL))));
    v_seq_cells = mul_i(v_rows, max_i(v_input_size, v_out_width));
    v_seq_blocks = ((call->device != OPGEN_DEV_CUDA) ? min_i(16LL, neg_i(floordiv_i(neg_i(v_seq_cells), 65536LL))) : min_i(neg_i(floordiv_i(neg_i(v_seq_cells), 256LL)), 65535LL));
    v_seq_threads = ((call->device != OPGEN_DEV_CUDA) ? 1LL : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_seq_cells), 128LL))))));
    v_unswap0 = v_steps;
    v_unswap1 = v_batch;
    v_dx = (truth(v_compute_input_backprop) ? 1LL : 0LL);
    v_bias_blocks = ((call->device != OPGEN_DEV_CUDA) ? 1LL : min_i(neg_i(floordiv_i(neg_i(v_gate_width), 256LL)), 65535LL));
    v_bias_threads = ((call->device != OPGEN_DEV_CUDA) ? 1LL : max_i(32LL, min_i(256LL, mul_i(32LL, neg_i(floordiv_i(neg_i(v_gate_width), 128LL))))));
    v_unprojected_row_tiles = max_i(neg_i(floordiv_i(neg_i(v_batch), 32LL)), 3LL);
    v_lstm_unit_tiles = min_i(v_fused_unit_tiles, neg_i(floordiv_i(neg_i(v_fused_max_depth), mul_i(4LL, 32LL))));
    v__shape_input_backprop = Shape{v_batch, v_steps, v_input_size};
    v__shape_input_h_backprop = Shape{v_batch, v_layers_dirs, v_h_size};
    v__shape_input_c_backprop = Shape{v_batch, v_c_layers, v_num_units};
    v__shape_params_backprop = Shape{v_params_len};
  }
  if (!(v_layers_dirs >= v_dirs)) {
    constraint_error(OP, "layers_dirs >= dirs", {Binding{"dirs", integer(v_dirs)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "input_h must hold num_layers\302\267dirs \342\211\245 dirs states (num_layers \342\211\245 1)");
  }
  if (!(mod_i(v_layers_dirs, v_dirs) == 0LL)) {
    constraint_error(OP, "layers_dirs % dirs == 0", {Binding{"dirs", integer(v_dirs)}, Binding{"layers_dirs", integer(v_layers_dirs)}}, "input_h's layer axis must be num_layers\302\267dirs (2 states per layer when bidirectional)");
  }
  if (!equal(mul(v_num_proj, integer(sub_i(1LL, v_lstm))), integer(0LL))) {
    constraint_error(OP, "num_proj*(1 - lstm) == 0", {Binding{"lstm", integer(v_lstm)}, Binding{"num_proj", v_num_proj}}, "num_proj (a projection) needs rnn_mode lstm");
  }
  if (!equal(integer(v_h_size), add(integer(v_num_units), mul(v_proj, sub(v_num_proj, integer(v_num_units)))))) {
    constraint_error(OP, "h_size == num_units + proj*(num_proj - num_units)", {Binding{"h_size", integer(v_h_size)}, Binding{"num_proj", v_num_proj}, Binding{"num_units", integer(v_num_units)}, Binding{"proj", v_proj}}, "input_h's last axis must be num_units (input_c's), or num_proj with a projection");
  }
  if ((equal(v_input_mode, lit("skip_input")) && !(v_input_size == v_num_units))) {
    constraint_error(OP, "input_size == num_units", {Binding{"input_size", integer(v_input_size)}, Binding{"num_units", integer(v_num_units)}}, "skip_input needs input_size == num_units");
  }
  if (!equal(integer(v_params_len), v_params_size)) {
    constraint_error(OP, "params_len == params_size", {Binding{"params_len", integer(v_params_len)}, Binding{"params_size", v_params_size}}, "params must hold CudnnRNNParamsSize elements for these shapes and attrs");
  }
  if (!equal(integer(v_reserve_got), v_reserve_len)) {
    constraint_error(OP, "reserve_got == reserve_len", {Binding{"reserve_got", integer(v_reserve_got)}, Binding{"reserve_len", v_reserve_len}}, "reserve_space must come from CudnnRNNV3 with is_training true, on the same shapes and attrs");
  }
  check_values(call, frame, true, OP, "sequence_lengths", v_sequence_lengths, integer(1LL), integer(v_steps), "1", "steps");
  v_input_backprop = output(call, OP, "input_backprop", 0, run, v__shape_input_backprop, v__dtype_T);
  v_input_h_backprop = output(call, OP, "input_h_backprop", 1, run, v__shape_input_h_backprop, v__dtype_T);
  v_input_c_backprop = output(call, OP, "input_c_backprop", 2, run, v__shape_input_c_backprop, v__dtype_T);
  v_params_backprop = output(call, OP, "params_backprop", 3, run, v__shape_params_backprop, v__dtype_T);
  if (!run) return;
  v_xt = scratch(call, frame, Shape{mul_i(v_rows, v_input_size)}, v__dtype_T);
  v_dxt = scratch(call, frame, Shape{mul_i(v_rows, v_input_size)}, v__dtype_T);
  v_dy = scratch(call, frame, Shape{mul_i(v_rows, v_out_width)}, v__dtype_T);
  v_dxl = scratch(call, frame, Shape{mul_i(v_rows, v_out_width)}, v__dtype_T);
  v_dgw = scratch(call, frame, Shape{mul_i(mul_i(v_dirs, v_rows), v_gate_width)}, v__dtype_T);
  v_dgr = scratch(call, frame, Shape{mul_i(mul_i(mul_i(v_dirs, v_rows), v_gate_width), v_gru)}, v__dtype_T);
  v_dh = scratch(call, frame, Shape{mul_i(mul_i(v_dirs, v_batch), v_h_size)}, v__dtype_T);
  v_dc = scratch(call, frame, Shape{mul_i(mul_i(mul_i(v_dirs, v_batch), v_num_units), v_lstm)}, v__dtype_T);
  v_dhp = scratch(call, frame, Shape{mul(integer(mul_i(v_dirs, v_rows)), v_num_proj)}, v__dtype_T);
  v_dm = scratch(call, frame, Shape{mul(integer(mul_i(mul_i(v_dirs, v_batch), v_num_units)), v_proj)}, v__dtype_T);
  v_ones = scratch(call, frame, Shape{v_rows}, v__dtype_T);
  static const char* const strings[] = {"float16", "float32", "float64", "gru", "lstm"};
  static const char* const symbols[] = {"CudnnRNNBackpropV3__copy_span__float16", "CudnnRNNBackpropV3__copy_span__float32", "CudnnRNNBackpropV3__copy_span__float64", "CudnnRNNBackpropV3__fill_ones__float16", "CudnnRNNBackpropV3__fill_ones__float32", "CudnnRNNBackpropV3__fill_ones__float64", "CudnnRNNBackpropV3__final_grad__float16", "CudnnRNNBackpropV3__final_grad__float32", "CudnnRNNBackpropV3__final_grad__float64", "CudnnRNNBackpropV3__from_time_major__float16", "CudnnRNNBackpropV3__from_time_major__float32", "CudnnRNNBackpropV3__from_time_major__float64", "CudnnRNNBackpropV3__fused_gru_grad__float16", "CudnnRNNBackpropV3__fused_gru_grad__float32", "CudnnRNNBackpropV3__fused_gru_grad__float64", "CudnnRNNBackpropV3__fused_lstm_grad__float16", "CudnnRNNBackpropV3__fused_lstm_grad__float32", "CudnnRNNBackpropV3__fused_lstm_grad__float64", "CudnnRNNBackpropV3__fused_lstm_proj_grad__float16", "CudnnRNNBackpropV3__fused_lstm_proj_grad__float32", "CudnnRNNBackpropV3__fused_lstm_proj_grad__float64", "CudnnRNNBackpropV3__fused_proj_cells__float16", "CudnnRNNBackpropV3__fused_proj_cells__float32", "CudnnRNNBackpropV3__fused_proj_cells__float64", "CudnnRNNBackpropV3__fused_rnn_grad__float16", "CudnnRNNBackpropV3__fused_rnn_grad__float32", "CudnnRNNBackpropV3__fused_rnn_grad__float64", "CudnnRNNBackpropV3__grad_layer_below__float16", "CudnnRNNBackpropV3__grad_layer_below__float32", "CudnnRNNBackpropV3__grad_layer_below__float64", "CudnnRNNBackpropV3__grad_output_in__float16", "CudnnRNNBackpropV3__grad_output_in__float32", "CudnnRNNBackpropV3__grad_output_in__float64", "CudnnRNNBackpropV3__gru_grad_step__float16", "CudnnRNNBackpropV3__gru_grad_step__float32", "CudnnRNNBackpropV3__gru_grad_step__float64", "CudnnRNNBackpropV3__init_grad__float16", "CudnnRNNBackpropV3__init_grad__float32", "CudnnRNNBackpropV3__init_grad__float64", "CudnnRNNBackpropV3__lstm_grad_step__float16", "CudnnRNNBackpropV3__lstm_grad_step__float32", "CudnnRNNBackpropV3__lstm_grad_step__float64", "CudnnRNNBackpropV3__persistent_gru_grad__float16", "CudnnRNNBackpropV3__persistent_gru_grad__float32", "CudnnRNNBackpropV3__persistent_gru_grad__float64", "CudnnRNNBackpropV3__persistent_lstm_grad__float16", "CudnnRNNBackpropV3__persistent_lstm_grad__float32", "CudnnRNNBackpropV3__persistent_lstm_grad__float64", "CudnnRNNBackpropV3__persistent_rnn_grad__float16", "CudnnRNNBackpropV3__persistent_rnn_grad__float32", "CudnnRNNBackpropV3__persistent_rnn_grad__float64", "CudnnRNNBackpropV3__proj_grad__float16", "CudnnRNNBackpropV3__proj_grad__float32", "CudnnRNNBackpropV3__proj_grad__float64", "CudnnRNNBackpropV3__rnn_grad_step__float16", "CudnnRNNBackpropV3__rnn_grad_step__float32", "CudnnRNNBackpropV3__rnn_grad_step__float64", "CudnnRNNBackpropV3__skip_grad__float16", "CudnnRNNBackpropV3__skip_grad__float32", "CudnnRNNBackpropV3__skip_grad__float64", "CudnnRNNBackpropV3__to_time_major__float16", "CudnnRNNBackpropV3__to_time_major__float32", "CudnnRNNBackpropV3__to_time_major__float64"};
  opgen_plan_value values[48] = {plan_value(frame, v__dtype_T, strings, 5), plan_int(v_seq_blocks), plan_int(v_seq_threads), plan_int(v_swap0), plan_int(v_swap1), plan_int(v_input_size), plan_int(v_rows), plan_int(v_steps), plan_int(v_batch), plan_int(v_out_width), plan_value(frame, v_time_major, strings, 5), plan_int(v_num_layers), plan_int(v_skip), plan_int(v_dirs), plan_value(frame, v_w0, strings, 5), plan_value(frame, v_w1, strings, 5), plan_int(v_layers_dirs), plan_value(frame, v_pl_size, strings, 5), plan_int(v_gate_width), plan_int(v_h_size), plan_int(v_acts), plan_int(v_cell_blocks), plan_int(v_cell_threads), plan_int(v_num_units), plan_int(v_lstm), plan_int(v_persistent_blocks), plan_value(frame, v_rnn_mode, strings, 5), plan_int(v_persistent), plan_int(v_relu), plan_int(v_gru), plan_value(frame, v_proj, strings, 5), plan_int(v_row_blocks), plan_int(v_row_threads), plan_int(v_gemm_steps), plan_int(v_unprojected_row_tiles), plan_int(v_lstm_unit_tiles), plan_int(v_fused_max_depth), plan_int(v_fused_row_tiles), plan_int(v_fused_h_tiles), plan_int(v_fused_unit_tiles), plan_int(v_fused), plan_value(frame, v_weights_len, strings, 5), plan_int(v_bias_blocks), plan_int(v_bias_threads), plan_int(v_dx), plan_int(v_gates), plan_int(v_unswap0), plan_int(v_unswap1)};
  opgen_native::Slot slots[22] = {plan_slot(frame, v_input), plan_slot(frame, v_xt), plan_slot(frame, v_ones), plan_slot(frame, v_output_backprop), plan_slot(frame, v_dy), plan_slot(frame, v_sequence_lengths), plan_slot(frame, v_output_h_backprop), plan_slot(frame, v_output_c_backprop), plan_slot(frame, v_dh), plan_slot(frame, v_dc), plan_slot(frame, v_reserve_space), plan_slot(frame, v_dgw), plan_slot(frame, v_dm), plan_slot(frame, v_params), plan_slot(frame, v_dgr), plan_slot(frame, v_dhp), plan_slot(frame, v_input_h_backprop), plan_slot(frame, v_input_c_backprop), plan_slot(frame, v_params_backprop), plan_slot(frame, v_dxt), plan_slot(frame, v_dxl), plan_slot(frame, v_input_backprop)};
  int rc = opgen_native::run_plan(call, opgen_native::PlanCall{OP, opgen_plan::opgen_plan_CudnnRNNBackpropV3, symbols, 63, values, 48, slots, 22, frame.value_checks.data(), (int64_t)frame.value_checks.size()});
  if (rc != OPGEN_OK) raise(rc, call->err);
}

OPGEN_DRIVER_API int opgen_shapes_CudnnRNNBackpropV3(opgen_call* call) {
  return opgen_checks::guarded(call, "CudnnRNNBackpropV3", [&] { opgen_drive_CudnnRNNBackpropV3(call, false); });
}

OPGEN_DRIVER_API int opgen_call_CudnnRNNBackpropV3(opgen_call* call) {
  return opgen_checks::guarded(call, "CudnnRNNBackpropV3", [&] { opgen_drive_CudnnRNNBackpropV3(call, true); });
}
