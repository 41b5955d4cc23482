// generated from specs/rnn/cudnn_rnn_v3.yaml by opgen — do not edit (opgen 0.1.0)
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
// CudnnRNNV3: its plan as codegen/runtime/plan.py records it (codegen/drivergen.py)
static void opgen_plan_walk_CudnnRNNV3(opgen_plan_value* env, const char* backend, Out& out, int64_t* variant) {
  (void)backend;
  if (true) {
    int64_t sym1 = -1;
    if (sym1 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym1 = 33;
    if (sym1 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym1 = 34;
    if (sym1 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym1 = 35;
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
    int64_t n4 = whole(num(env[6], "num_layers"), "a repeat count");
    for (int64_t i3 = 0; i3 < n4; ++i3) {
      env[45] = value(integer(i3));
      env[46] = value(sub(integer(1LL), min2(num(env[45], "l"), integer(1LL))));
      env[47] = value(add(mul(mul(num(env[46], "first"), num(env[5], "input_size")), sub(integer(1LL), num(env[7], "skip"))), mul(sub(integer(1LL), num(env[46], "first")), num(env[8], "out_width"))));
      env[48] = value(add(mul(mul(sub(integer(1LL), num(env[46], "first")), num(env[9], "dirs")), num(env[10], "w0")), mul(mul(max2(sub(num(env[45], "l"), integer(1LL)), integer(0LL)), num(env[9], "dirs")), num(env[11], "w1"))));
      env[49] = value(add(num(env[11], "w1"), mul(num(env[46], "first"), sub(num(env[10], "w0"), num(env[11], "w1")))));
      env[50] = value(add(mul(num(env[12], "layers_dirs"), num(env[13], "pl_size")), mul(mul(mul(sub(num(env[45], "l"), integer(1LL)), integer(2LL)), num(env[14], "rows")), num(env[8], "out_width"))));
      env[51] = value(add(mul(num(env[12], "layers_dirs"), num(env[13], "pl_size")), mul(mul(mul(num(env[45], "l"), integer(2LL)), num(env[14], "rows")), num(env[8], "out_width"))));
      env[52] = value(add(mul(mul(num(env[45], "l"), num(env[9], "dirs")), num(env[13], "pl_size")), mul(num(env[14], "rows"), num(env[15], "acts"))));
      env[53] = value(add(num(env[48], "layer_wofs"), mul(num(env[16], "gate_width"), num(env[47], "in_width"))));
      env[54] = value(add(num(env[53], "layer_rofs"), mul(num(env[16], "gate_width"), num(env[17], "h_size"))));
      env[55] = value(add(num(env[18], "weights_len"), mul(mul(mul(num(env[45], "l"), num(env[9], "dirs")), integer(2LL)), num(env[16], "gate_width"))));
      env[56] = value(mul(mul(num(env[45], "l"), num(env[9], "dirs")), num(env[13], "pl_size")));
      env[57] = value(add(num(env[52], "layer_hs_ofs"), mul(mul(add(num(env[19], "steps"), integer(1LL)), num(env[20], "batch")), num(env[17], "h_size"))));
      env[58] = value(add(num(env[57], "layer_cs_ofs"), mul(mul(mul(num(env[21], "lstm"), add(num(env[19], "steps"), integer(1LL))), num(env[20], "batch")), num(env[22], "num_units"))));
      if ((equal(add(num(env[45], "l"), num(env[7], "skip")), integer(0LL)))) {
        out.put(OPGEN_STEP_GEMM); out.put(1); out.put(2); out.put(3);
        { Num size5 = num(env[14], "rows");
          if (size5.is_float) out.put_double(OPGEN_T_FLOAT, size5.f); else { out.put(OPGEN_T_INT); out.put(size5.i); } }
        { Num size6 = num(env[16], "gate_width");
          if (size6.is_float) out.put_double(OPGEN_T_FLOAT, size6.f); else { out.put(OPGEN_T_INT); out.put(size6.i); } }
        { Num size7 = num(env[5], "input_size");
          if (size7.is_float) out.put_double(OPGEN_T_FLOAT, size7.f); else { out.put(OPGEN_T_INT); out.put(size7.i); } }
        out.put(OPGEN_T_BOOL); out.put(0);
        out.put(OPGEN_T_BOOL); out.put(1);
        { Num size8 = integer(0LL);
          if (size8.is_float) out.put_double(OPGEN_T_FLOAT, size8.f); else { out.put(OPGEN_T_INT); out.put(size8.i); } }
        { Num size9 = integer(0LL);
          if (size9.is_float) out.put_double(OPGEN_T_FLOAT, size9.f); else { out.put(OPGEN_T_INT); out.put(size9.i); } }
        { Num size10 = num(env[48], "layer_wofs");
          if (size10.is_float) out.put_double(OPGEN_T_FLOAT, size10.f); else { out.put(OPGEN_T_INT); out.put(size10.i); } }
        { Num size11 = integer(0LL);
          if (size11.is_float) out.put_double(OPGEN_T_FLOAT, size11.f); else { out.put(OPGEN_T_INT); out.put(size11.i); } }
        { Num size12 = num(env[9], "dirs");
          if (size12.is_float) out.put_double(OPGEN_T_FLOAT, size12.f); else { out.put(OPGEN_T_INT); out.put(size12.i); } }
        { Num size13 = integer(0LL);
          if (size13.is_float) out.put_double(OPGEN_T_FLOAT, size13.f); else { out.put(OPGEN_T_INT); out.put(size13.i); } }
        { Num size14 = num(env[49], "layer_w");
          if (size14.is_float) out.put_double(OPGEN_T_FLOAT, size14.f); else { out.put(OPGEN_T_INT); out.put(size14.i); } }
        { Num size15 = mul(num(env[14], "rows"), num(env[16], "gate_width"));
          if (size15.is_float) out.put_double(OPGEN_T_FLOAT, size15.f); else { out.put(OPGEN_T_INT); out.put(size15.i); } }
      }
      if ((compare(num(env[45], "l"), integer(0LL)) > 0)) {
        out.put(OPGEN_STEP_GEMM); out.put(4); out.put(2); out.put(3);
        { Num size16 = num(env[14], "rows");
          if (size16.is_float) out.put_double(OPGEN_T_FLOAT, size16.f); else { out.put(OPGEN_T_INT); out.put(size16.i); } }
        { Num size17 = num(env[16], "gate_width");
          if (size17.is_float) out.put_double(OPGEN_T_FLOAT, size17.f); else { out.put(OPGEN_T_INT); out.put(size17.i); } }
        { Num size18 = num(env[8], "out_width");
          if (size18.is_float) out.put_double(OPGEN_T_FLOAT, size18.f); else { out.put(OPGEN_T_INT); out.put(size18.i); } }
        out.put(OPGEN_T_BOOL); out.put(0);
        out.put(OPGEN_T_BOOL); out.put(1);
        { Num size19 = integer(0LL);
          if (size19.is_float) out.put_double(OPGEN_T_FLOAT, size19.f); else { out.put(OPGEN_T_INT); out.put(size19.i); } }
        { Num size20 = num(env[50], "x_ofs");
          if (size20.is_float) out.put_double(OPGEN_T_FLOAT, size20.f); else { out.put(OPGEN_T_INT); out.put(size20.i); } }
        { Num size21 = num(env[48], "layer_wofs");
          if (size21.is_float) out.put_double(OPGEN_T_FLOAT, size21.f); else { out.put(OPGEN_T_INT); out.put(size21.i); } }
        { Num size22 = integer(0LL);
          if (size22.is_float) out.put_double(OPGEN_T_FLOAT, size22.f); else { out.put(OPGEN_T_INT); out.put(size22.i); } }
        { Num size23 = num(env[9], "dirs");
          if (size23.is_float) out.put_double(OPGEN_T_FLOAT, size23.f); else { out.put(OPGEN_T_INT); out.put(size23.i); } }
        { Num size24 = integer(0LL);
          if (size24.is_float) out.put_double(OPGEN_T_FLOAT, size24.f); else { out.put(OPGEN_T_INT); out.put(size24.i); } }
        { Num size25 = num(env[49], "layer_w");
          if (size25.is_float) out.put_double(OPGEN_T_FLOAT, size25.f); else { out.put(OPGEN_T_INT); out.put(size25.i); } }
        { Num size26 = mul(num(env[14], "rows"), num(env[16], "gate_width"));
          if (size26.is_float) out.put_double(OPGEN_T_FLOAT, size26.f); else { out.put(OPGEN_T_INT); out.put(size26.i); } }
      }
      if (true) {
        int64_t n28 = whole(num(env[9], "dirs"), "a repeat count");
        for (int64_t i27 = 0; i27 < n28; ++i27) {
          env[59] = value(integer(i27));
          env[60] = value(add(mul(num(env[45], "l"), num(env[9], "dirs")), num(env[59], "d")));
          env[61] = value(add(num(env[52], "layer_hs_ofs"), mul(num(env[59], "d"), num(env[13], "pl_size"))));
          env[62] = value(add(num(env[61], "hs_ofs"), mul(mul(add(num(env[19], "steps"), integer(1LL)), num(env[20], "batch")), num(env[17], "h_size"))));
          env[63] = value(mul(mul(num(env[59], "d"), num(env[14], "rows")), num(env[16], "gate_width")));
          if ((equal(num(env[45], "l"), integer(0LL))) && (equal(num(env[7], "skip"), integer(1LL)))) {
            int64_t sym29 = -1;
            if (sym29 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym29 = 30;
            if (sym29 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym29 = 31;
            if (sym29 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym29 = 32;
            if (sym29 < 0) fail(OPGEN_E_SYMBOL, "kernel 'skip_projection' has no entry point for the dtypes of " "_dtype_T");
            out.put(OPGEN_STEP_LAUNCH); out.put(sym29);
            out.put(1);
            out.put(whole(num(env[1], "seq_blocks"), "a grid size"));
            out.put(1);
            out.put(whole(num(env[2], "seq_threads"), "a block size"));
            out.put(whole(integer(0LL), "the shared size"));
            int64_t nargs30 = out.used; out.put(0);
            out.put(OPGEN_T_SLOT); out.put(1);
            out.put(OPGEN_T_SLOT); out.put(3);
            scalar(out, OPGEN_T_I64, num(env[14], "rows"), "rows");
            scalar(out, OPGEN_T_I64, num(env[23], "gates"), "gates");
            scalar(out, OPGEN_T_I64, num(env[22], "num_units"), "num_units");
            scalar(out, OPGEN_T_I64, num(env[63], "gx_ofs"), "gx_ofs");
            out.words[nargs30] = (out.used - nargs30 - 1) / 2;
          }
          if (true) {
            int64_t sym31 = -1;
            if (sym31 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym31 = 12;
            if (sym31 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym31 = 13;
            if (sym31 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym31 = 14;
            if (sym31 < 0) fail(OPGEN_E_SYMBOL, "kernel 'init_state' has no entry point for the dtypes of " "_dtype_T");
            out.put(OPGEN_STEP_LAUNCH); out.put(sym31);
            out.put(1);
            out.put(whole(num(env[24], "cell_blocks"), "a grid size"));
            out.put(1);
            out.put(whole(num(env[25], "cell_threads"), "a block size"));
            out.put(whole(integer(0LL), "the shared size"));
            int64_t nargs32 = out.used; out.put(0);
            out.put(OPGEN_T_SLOT); out.put(5);
            out.put(OPGEN_T_SLOT); out.put(6);
            out.put(OPGEN_T_SLOT); out.put(4);
            scalar(out, OPGEN_T_I64, num(env[60], "p"), "p");
            scalar(out, OPGEN_T_I64, num(env[59], "d"), "d");
            scalar(out, OPGEN_T_I64, num(env[12], "layers_dirs"), "layers_dirs");
            scalar(out, OPGEN_T_I64, num(env[19], "steps"), "steps");
            scalar(out, OPGEN_T_I64, num(env[20], "batch"), "batch");
            scalar(out, OPGEN_T_I64, num(env[17], "h_size"), "h_size");
            scalar(out, OPGEN_T_I64, num(env[22], "num_units"), "num_units");
            scalar(out, OPGEN_T_I64, num(env[61], "hs_ofs"), "hs_ofs");
            scalar(out, OPGEN_T_I64, num(env[62], "cs_ofs"), "cs_ofs");
            scalar(out, OPGEN_T_I64, num(env[21], "lstm"), "lstm");
            scalar(out, OPGEN_T_I32, num(env[26], "time_major"), "time_major");
            out.words[nargs32] = (out.used - nargs32 - 1) / 2;
          }
        }
      }
      if ((std::strcmp(backend, "cpu") == 0)) {
        int64_t sym33 = -1;
        if (sym33 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym33 = 36;
        if (sym33 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym33 = 37;
        if (sym33 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym33 = 38;
        if (sym33 < 0) fail(OPGEN_E_SYMBOL, "kernel 'transpose_r' has no entry point for the dtypes of " "_dtype_T");
        out.put(OPGEN_STEP_LAUNCH); out.put(sym33);
        out.put(2);
        out.put(whole(num(env[24], "cell_blocks"), "a grid size"));
        out.put(whole(num(env[9], "dirs"), "a grid size"));
        out.put(1);
        out.put(whole(num(env[25], "cell_threads"), "a block size"));
        out.put(whole(integer(0LL), "the shared size"));
        int64_t nargs34 = out.used; out.put(0);
        out.put(OPGEN_T_SLOT); out.put(2);
        out.put(OPGEN_T_SLOT); out.put(7);
        scalar(out, OPGEN_T_I64, num(env[53], "layer_rofs"), "layer_rofs");
        scalar(out, OPGEN_T_I64, num(env[49], "layer_w"), "layer_w");
        scalar(out, OPGEN_T_I64, num(env[16], "gate_width"), "gate_width");
        scalar(out, OPGEN_T_I64, num(env[17], "h_size"), "h_size");
        out.words[nargs34] = (out.used - nargs34 - 1) / 2;
      }
      if (truth(num(env[30], "persistent"))) {
        int64_t sym35 = -1;
        if (sym35 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym35 = 21;
        if (sym35 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym35 = 22;
        if (sym35 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym35 = 23;
        if (sym35 < 0) fail(OPGEN_E_SYMBOL, "kernel 'persistent_layer' has no entry point for the dtypes of " "_dtype_T");
        out.put(OPGEN_STEP_LAUNCH); out.put(sym35);
        out.put(2);
        out.put(whole(num(env[27], "persistent_blocks"), "a grid size"));
        out.put(whole(num(env[9], "dirs"), "a grid size"));
        out.put(1);
        out.put(whole(integer(256LL), "a block size"));
        out.put(whole(integer(0LL), "the shared size"));
        int64_t nargs36 = out.used; out.put(0);
        out.put(OPGEN_T_SLOT); out.put(3);
        out.put(OPGEN_T_SLOT); out.put(8);
        out.put(OPGEN_T_SLOT); out.put(2);
        out.put(OPGEN_T_SLOT); out.put(4);
        out.put(OPGEN_T_SLOT); out.put(9);
        scalar(out, OPGEN_T_I64, num(env[19], "steps"), "steps");
        scalar(out, OPGEN_T_I64, num(env[20], "batch"), "batch");
        scalar(out, OPGEN_T_I64, num(env[22], "num_units"), "num_units");
        scalar(out, OPGEN_T_I64, num(env[23], "gates"), "gates");
        scalar(out, OPGEN_T_I64, num(env[28], "rnn_kind"), "rnn_kind");
        scalar(out, OPGEN_T_I64, num(env[29], "relu"), "relu");
        scalar(out, OPGEN_T_I64, num(env[53], "layer_rofs"), "layer_rofs");
        scalar(out, OPGEN_T_I64, num(env[49], "layer_w"), "layer_w");
        scalar(out, OPGEN_T_I64, num(env[55], "layer_bofs"), "layer_bofs");
        scalar(out, OPGEN_T_I64, num(env[56], "layer_acts_ofs"), "layer_acts_ofs");
        scalar(out, OPGEN_T_I64, num(env[52], "layer_hs_ofs"), "layer_hs_ofs");
        scalar(out, OPGEN_T_I64, num(env[57], "layer_cs_ofs"), "layer_cs_ofs");
        scalar(out, OPGEN_T_I64, num(env[13], "pl_size"), "pl_size");
        out.words[nargs36] = (out.used - nargs36 - 1) / 2;
      }
      if (truth(num(env[36], "gemm_steps"))) {
        const int64_t lanes39 = std::strcmp(backend, "cpu") == 0 ? whole(num(env[9], "dirs"), "a lanes count") : 0;
        if (lanes39 > 1 && lanes39 <= 256) { out.put(OPGEN_STEP_LANES); out.put(lanes39); }
        int64_t n38 = whole(num(env[19], "steps"), "a repeat count");
        for (int64_t i37 = 0; i37 < n38; ++i37) {
          env[64] = value(integer(i37));
          if ((std::strcmp(backend, "cuda") == 0)) {
            out.put(OPGEN_STEP_GEMM); out.put(4); out.put(2); out.put(8);
            { Num size40 = num(env[20], "batch");
              if (size40.is_float) out.put_double(OPGEN_T_FLOAT, size40.f); else { out.put(OPGEN_T_INT); out.put(size40.i); } }
            { Num size41 = num(env[16], "gate_width");
              if (size41.is_float) out.put_double(OPGEN_T_FLOAT, size41.f); else { out.put(OPGEN_T_INT); out.put(size41.i); } }
            { Num size42 = num(env[17], "h_size");
              if (size42.is_float) out.put_double(OPGEN_T_FLOAT, size42.f); else { out.put(OPGEN_T_INT); out.put(size42.i); } }
            out.put(OPGEN_T_BOOL); out.put(0);
            out.put(OPGEN_T_BOOL); out.put(1);
            { Num size43 = integer(0LL);
              if (size43.is_float) out.put_double(OPGEN_T_FLOAT, size43.f); else { out.put(OPGEN_T_INT); out.put(size43.i); } }
            { Num size44 = add(num(env[52], "layer_hs_ofs"), mul(mul(num(env[64], "s"), num(env[20], "batch")), num(env[17], "h_size")));
              if (size44.is_float) out.put_double(OPGEN_T_FLOAT, size44.f); else { out.put(OPGEN_T_INT); out.put(size44.i); } }
            { Num size45 = num(env[53], "layer_rofs");
              if (size45.is_float) out.put_double(OPGEN_T_FLOAT, size45.f); else { out.put(OPGEN_T_INT); out.put(size45.i); } }
            { Num size46 = integer(0LL);
              if (size46.is_float) out.put_double(OPGEN_T_FLOAT, size46.f); else { out.put(OPGEN_T_INT); out.put(size46.i); } }
            { Num size47 = num(env[9], "dirs");
              if (size47.is_float) out.put_double(OPGEN_T_FLOAT, size47.f); else { out.put(OPGEN_T_INT); out.put(size47.i); } }
            { Num size48 = add(num(env[13], "pl_size"), mul(mul(sub(num(env[19], "steps"), mul(integer(2LL), num(env[64], "s"))), num(env[20], "batch")), num(env[17], "h_size")));
              if (size48.is_float) out.put_double(OPGEN_T_FLOAT, size48.f); else { out.put(OPGEN_T_INT); out.put(size48.i); } }
            { Num size49 = num(env[49], "layer_w");
              if (size49.is_float) out.put_double(OPGEN_T_FLOAT, size49.f); else { out.put(OPGEN_T_INT); out.put(size49.i); } }
            { Num size50 = mul(num(env[20], "batch"), num(env[16], "gate_width"));
              if (size50.is_float) out.put_double(OPGEN_T_FLOAT, size50.f); else { out.put(OPGEN_T_INT); out.put(size50.i); } }
          }
          if ((std::strcmp(backend, "cpu") == 0)) {
            out.put(OPGEN_STEP_GEMM); out.put(4); out.put(7); out.put(8);
            { Num size51 = num(env[20], "batch");
              if (size51.is_float) out.put_double(OPGEN_T_FLOAT, size51.f); else { out.put(OPGEN_T_INT); out.put(size51.i); } }
            { Num size52 = num(env[16], "gate_width");
              if (size52.is_float) out.put_double(OPGEN_T_FLOAT, size52.f); else { out.put(OPGEN_T_INT); out.put(size52.i); } }
            { Num size53 = num(env[17], "h_size");
              if (size53.is_float) out.put_double(OPGEN_T_FLOAT, size53.f); else { out.put(OPGEN_T_INT); out.put(size53.i); } }
            out.put(OPGEN_T_BOOL); out.put(0);
            out.put(OPGEN_T_BOOL); out.put(0);
            { Num size54 = integer(0LL);
              if (size54.is_float) out.put_double(OPGEN_T_FLOAT, size54.f); else { out.put(OPGEN_T_INT); out.put(size54.i); } }
            { Num size55 = add(num(env[52], "layer_hs_ofs"), mul(mul(num(env[64], "s"), num(env[20], "batch")), num(env[17], "h_size")));
              if (size55.is_float) out.put_double(OPGEN_T_FLOAT, size55.f); else { out.put(OPGEN_T_INT); out.put(size55.i); } }
            { Num size56 = integer(0LL);
              if (size56.is_float) out.put_double(OPGEN_T_FLOAT, size56.f); else { out.put(OPGEN_T_INT); out.put(size56.i); } }
            { Num size57 = integer(0LL);
              if (size57.is_float) out.put_double(OPGEN_T_FLOAT, size57.f); else { out.put(OPGEN_T_INT); out.put(size57.i); } }
            { Num size58 = num(env[9], "dirs");
              if (size58.is_float) out.put_double(OPGEN_T_FLOAT, size58.f); else { out.put(OPGEN_T_INT); out.put(size58.i); } }
            { Num size59 = add(num(env[13], "pl_size"), mul(mul(sub(num(env[19], "steps"), mul(integer(2LL), num(env[64], "s"))), num(env[20], "batch")), num(env[17], "h_size")));
              if (size59.is_float) out.put_double(OPGEN_T_FLOAT, size59.f); else { out.put(OPGEN_T_INT); out.put(size59.i); } }
            { Num size60 = mul(num(env[16], "gate_width"), num(env[17], "h_size"));
              if (size60.is_float) out.put_double(OPGEN_T_FLOAT, size60.f); else { out.put(OPGEN_T_INT); out.put(size60.i); } }
            { Num size61 = mul(num(env[20], "batch"), num(env[16], "gate_width"));
              if (size61.is_float) out.put_double(OPGEN_T_FLOAT, size61.f); else { out.put(OPGEN_T_INT); out.put(size61.i); } }
          }
          if ((env[34].kind == OPGEN_V_STR && env[34].i == 4)) {
            int64_t sym62 = -1;
            if (sym62 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym62 = 18;
            if (sym62 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym62 = 19;
            if (sym62 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym62 = 20;
            if (sym62 < 0) fail(OPGEN_E_SYMBOL, "kernel 'lstm_step' has no entry point for the dtypes of " "_dtype_T");
            out.put(OPGEN_STEP_LAUNCH); out.put(sym62);
            out.put(2);
            out.put(whole(num(env[31], "row_blocks"), "a grid size"));
            out.put(whole(num(env[9], "dirs"), "a grid size"));
            out.put(1);
            out.put(whole(num(env[32], "row_threads"), "a block size"));
            out.put(whole(integer(0LL), "the shared size"));
            int64_t nargs63 = out.used; out.put(0);
            out.put(OPGEN_T_SLOT); out.put(3);
            out.put(OPGEN_T_SLOT); out.put(8);
            out.put(OPGEN_T_SLOT); out.put(2);
            out.put(OPGEN_T_SLOT); out.put(4);
            out.put(OPGEN_T_SLOT); out.put(9);
            scalar(out, OPGEN_T_I64, num(env[64], "s"), "s");
            scalar(out, OPGEN_T_I64, num(env[19], "steps"), "steps");
            scalar(out, OPGEN_T_I64, num(env[20], "batch"), "batch");
            scalar(out, OPGEN_T_I64, num(env[22], "num_units"), "num_units");
            scalar(out, OPGEN_T_I64, num(env[17], "h_size"), "h_size");
            scalar(out, OPGEN_T_I64, num(env[33], "proj"), "proj");
            scalar(out, OPGEN_T_I64, num(env[55], "layer_bofs"), "layer_bofs");
            scalar(out, OPGEN_T_I64, num(env[56], "layer_acts_ofs"), "layer_acts_ofs");
            scalar(out, OPGEN_T_I64, num(env[52], "layer_hs_ofs"), "layer_hs_ofs");
            scalar(out, OPGEN_T_I64, num(env[57], "layer_cs_ofs"), "layer_cs_ofs");
            scalar(out, OPGEN_T_I64, num(env[58], "layer_ms_ofs"), "layer_ms_ofs");
            scalar(out, OPGEN_T_I64, num(env[13], "pl_size"), "pl_size");
            out.words[nargs63] = (out.used - nargs63 - 1) / 2;
          }
          if ((equal(num(env[33], "proj"), integer(1LL)))) {
            out.put(OPGEN_STEP_GEMM); out.put(4); out.put(2); out.put(4);
            { Num size64 = num(env[20], "batch");
              if (size64.is_float) out.put_double(OPGEN_T_FLOAT, size64.f); else { out.put(OPGEN_T_INT); out.put(size64.i); } }
            { Num size65 = num(env[17], "h_size");
              if (size65.is_float) out.put_double(OPGEN_T_FLOAT, size65.f); else { out.put(OPGEN_T_INT); out.put(size65.i); } }
            { Num size66 = num(env[22], "num_units");
              if (size66.is_float) out.put_double(OPGEN_T_FLOAT, size66.f); else { out.put(OPGEN_T_INT); out.put(size66.i); } }
            out.put(OPGEN_T_BOOL); out.put(0);
            out.put(OPGEN_T_BOOL); out.put(1);
            { Num size67 = integer(0LL);
              if (size67.is_float) out.put_double(OPGEN_T_FLOAT, size67.f); else { out.put(OPGEN_T_INT); out.put(size67.i); } }
            { Num size68 = add(num(env[58], "layer_ms_ofs"), mul(mul(num(env[64], "s"), num(env[20], "batch")), num(env[22], "num_units")));
              if (size68.is_float) out.put_double(OPGEN_T_FLOAT, size68.f); else { out.put(OPGEN_T_INT); out.put(size68.i); } }
            { Num size69 = num(env[54], "layer_pofs");
              if (size69.is_float) out.put_double(OPGEN_T_FLOAT, size69.f); else { out.put(OPGEN_T_INT); out.put(size69.i); } }
            { Num size70 = add(num(env[52], "layer_hs_ofs"), mul(mul(add(num(env[64], "s"), integer(1LL)), num(env[20], "batch")), num(env[17], "h_size")));
              if (size70.is_float) out.put_double(OPGEN_T_FLOAT, size70.f); else { out.put(OPGEN_T_INT); out.put(size70.i); } }
            { Num size71 = num(env[9], "dirs");
              if (size71.is_float) out.put_double(OPGEN_T_FLOAT, size71.f); else { out.put(OPGEN_T_INT); out.put(size71.i); } }
            { Num size72 = add(num(env[13], "pl_size"), mul(mul(sub(sub(num(env[19], "steps"), integer(1LL)), mul(integer(2LL), num(env[64], "s"))), num(env[20], "batch")), num(env[22], "num_units")));
              if (size72.is_float) out.put_double(OPGEN_T_FLOAT, size72.f); else { out.put(OPGEN_T_INT); out.put(size72.i); } }
            { Num size73 = num(env[49], "layer_w");
              if (size73.is_float) out.put_double(OPGEN_T_FLOAT, size73.f); else { out.put(OPGEN_T_INT); out.put(size73.i); } }
            { Num size74 = add(num(env[13], "pl_size"), mul(mul(sub(sub(num(env[19], "steps"), integer(2LL)), mul(integer(2LL), num(env[64], "s"))), num(env[20], "batch")), num(env[17], "h_size")));
              if (size74.is_float) out.put_double(OPGEN_T_FLOAT, size74.f); else { out.put(OPGEN_T_INT); out.put(size74.i); } }
          }
          if ((equal(num(env[33], "proj"), integer(1LL)))) {
            int64_t sym75 = -1;
            if (sym75 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym75 = 24;
            if (sym75 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym75 = 25;
            if (sym75 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym75 = 26;
            if (sym75 < 0) fail(OPGEN_E_SYMBOL, "kernel 'proj_carry' has no entry point for the dtypes of " "_dtype_T");
            out.put(OPGEN_STEP_LAUNCH); out.put(sym75);
            out.put(2);
            out.put(whole(num(env[24], "cell_blocks"), "a grid size"));
            out.put(whole(num(env[9], "dirs"), "a grid size"));
            out.put(1);
            out.put(whole(num(env[25], "cell_threads"), "a block size"));
            out.put(whole(integer(0LL), "the shared size"));
            int64_t nargs76 = out.used; out.put(0);
            out.put(OPGEN_T_SLOT); out.put(4);
            out.put(OPGEN_T_SLOT); out.put(9);
            scalar(out, OPGEN_T_I64, num(env[64], "s"), "s");
            scalar(out, OPGEN_T_I64, num(env[19], "steps"), "steps");
            scalar(out, OPGEN_T_I64, num(env[20], "batch"), "batch");
            scalar(out, OPGEN_T_I64, num(env[17], "h_size"), "h_size");
            scalar(out, OPGEN_T_I64, num(env[52], "layer_hs_ofs"), "layer_hs_ofs");
            scalar(out, OPGEN_T_I64, num(env[13], "pl_size"), "pl_size");
            out.words[nargs76] = (out.used - nargs76 - 1) / 2;
          }
          if ((env[34].kind == OPGEN_V_STR && env[34].i == 3)) {
            int64_t sym77 = -1;
            if (sym77 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym77 = 9;
            if (sym77 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym77 = 10;
            if (sym77 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym77 = 11;
            if (sym77 < 0) fail(OPGEN_E_SYMBOL, "kernel 'gru_step' has no entry point for the dtypes of " "_dtype_T");
            out.put(OPGEN_STEP_LAUNCH); out.put(sym77);
            out.put(2);
            out.put(whole(num(env[31], "row_blocks"), "a grid size"));
            out.put(whole(num(env[9], "dirs"), "a grid size"));
            out.put(1);
            out.put(whole(num(env[32], "row_threads"), "a block size"));
            out.put(whole(integer(0LL), "the shared size"));
            int64_t nargs78 = out.used; out.put(0);
            out.put(OPGEN_T_SLOT); out.put(3);
            out.put(OPGEN_T_SLOT); out.put(8);
            out.put(OPGEN_T_SLOT); out.put(2);
            out.put(OPGEN_T_SLOT); out.put(4);
            out.put(OPGEN_T_SLOT); out.put(9);
            scalar(out, OPGEN_T_I64, num(env[64], "s"), "s");
            scalar(out, OPGEN_T_I64, num(env[19], "steps"), "steps");
            scalar(out, OPGEN_T_I64, num(env[20], "batch"), "batch");
            scalar(out, OPGEN_T_I64, num(env[22], "num_units"), "num_units");
            scalar(out, OPGEN_T_I64, num(env[55], "layer_bofs"), "layer_bofs");
            scalar(out, OPGEN_T_I64, num(env[56], "layer_acts_ofs"), "layer_acts_ofs");
            scalar(out, OPGEN_T_I64, num(env[52], "layer_hs_ofs"), "layer_hs_ofs");
            scalar(out, OPGEN_T_I64, num(env[13], "pl_size"), "pl_size");
            out.words[nargs78] = (out.used - nargs78 - 1) / 2;
          }
          if ((equal(add(num(env[21], "lstm"), num(env[35], "gru")), integer(0LL)))) {
            int64_t sym79 = -1;
            if (sym79 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym79 = 27;
            if (sym79 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym79 = 28;
            if (sym79 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym79 = 29;
            if (sym79 < 0) fail(OPGEN_E_SYMBOL, "kernel 'rnn_step' has no entry point for the dtypes of " "_dtype_T");
            out.put(OPGEN_STEP_LAUNCH); out.put(sym79);
            out.put(2);
            out.put(whole(num(env[31], "row_blocks"), "a grid size"));
            out.put(whole(num(env[9], "dirs"), "a grid size"));
            out.put(1);
            out.put(whole(num(env[32], "row_threads"), "a block size"));
            out.put(whole(integer(0LL), "the shared size"));
            int64_t nargs80 = out.used; out.put(0);
            out.put(OPGEN_T_SLOT); out.put(3);
            out.put(OPGEN_T_SLOT); out.put(8);
            out.put(OPGEN_T_SLOT); out.put(2);
            out.put(OPGEN_T_SLOT); out.put(4);
            out.put(OPGEN_T_SLOT); out.put(9);
            scalar(out, OPGEN_T_I64, num(env[64], "s"), "s");
            scalar(out, OPGEN_T_I64, num(env[19], "steps"), "steps");
            scalar(out, OPGEN_T_I64, num(env[20], "batch"), "batch");
            scalar(out, OPGEN_T_I64, num(env[22], "num_units"), "num_units");
            scalar(out, OPGEN_T_I64, num(env[55], "layer_bofs"), "layer_bofs");
            scalar(out, OPGEN_T_I64, num(env[52], "layer_hs_ofs"), "layer_hs_ofs");
            scalar(out, OPGEN_T_I64, num(env[29], "relu"), "relu");
            scalar(out, OPGEN_T_I64, num(env[13], "pl_size"), "pl_size");
            out.words[nargs80] = (out.used - nargs80 - 1) / 2;
          }
        }
        if (lanes39 > 1 && lanes39 <= 256) { out.put(OPGEN_STEP_LANES); out.put(0); }
      }
      if (truth(num(env[40], "fused"))) {
        int64_t n82 = whole(num(env[19], "steps"), "a repeat count");
        for (int64_t i81 = 0; i81 < n82; ++i81) {
          env[64] = value(integer(i81));
          if (true) {
            int64_t sym83 = -1;
            if (sym83 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym83 = 6;
            if (sym83 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym83 = 7;
            if (sym83 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym83 = 8;
            if (sym83 < 0) fail(OPGEN_E_SYMBOL, "kernel 'fused_step' has no entry point for the dtypes of " "_dtype_T");
            out.put(OPGEN_STEP_LAUNCH); out.put(sym83);
            out.put(3);
            out.put(whole(num(env[37], "fused_row_tiles"), "a grid size"));
            out.put(whole(num(env[38], "fused_unit_tiles"), "a grid size"));
            out.put(whole(num(env[9], "dirs"), "a grid size"));
            out.put(1);
            out.put(whole(integer(256LL), "a block size"));
            out.put(whole(integer(0LL), "the shared size"));
            int64_t nargs84 = out.used; out.put(0);
            out.put(OPGEN_T_SLOT); out.put(3);
            out.put(OPGEN_T_SLOT); out.put(8);
            out.put(OPGEN_T_SLOT); out.put(2);
            out.put(OPGEN_T_SLOT); out.put(4);
            out.put(OPGEN_T_SLOT); out.put(9);
            scalar(out, OPGEN_T_I64, num(env[64], "s"), "s");
            scalar(out, OPGEN_T_I64, num(env[19], "steps"), "steps");
            scalar(out, OPGEN_T_I64, num(env[20], "batch"), "batch");
            scalar(out, OPGEN_T_I64, num(env[22], "num_units"), "num_units");
            scalar(out, OPGEN_T_I64, num(env[17], "h_size"), "h_size");
            scalar(out, OPGEN_T_I64, num(env[23], "gates"), "gates");
            scalar(out, OPGEN_T_I64, num(env[28], "rnn_kind"), "rnn_kind");
            scalar(out, OPGEN_T_I64, num(env[29], "relu"), "relu");
            scalar(out, OPGEN_T_I64, num(env[33], "proj"), "proj");
            scalar(out, OPGEN_T_I64, num(env[53], "layer_rofs"), "layer_rofs");
            scalar(out, OPGEN_T_I64, num(env[49], "layer_w"), "layer_w");
            scalar(out, OPGEN_T_I64, num(env[55], "layer_bofs"), "layer_bofs");
            scalar(out, OPGEN_T_I64, num(env[56], "layer_acts_ofs"), "layer_acts_ofs");
            scalar(out, OPGEN_T_I64, num(env[52], "layer_hs_ofs"), "layer_hs_ofs");
            scalar(out, OPGEN_T_I64, num(env[57], "layer_cs_ofs"), "layer_cs_ofs");
            scalar(out, OPGEN_T_I64, num(env[58], "layer_ms_ofs"), "layer_ms_ofs");
            scalar(out, OPGEN_T_I64, num(env[13], "pl_size"), "pl_size");
            out.words[nargs84] = (out.used - nargs84 - 1) / 2;
          }
          if ((equal(num(env[33], "proj"), integer(1LL)))) {
            int64_t sym85 = -1;
            if (sym85 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym85 = 3;
            if (sym85 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym85 = 4;
            if (sym85 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym85 = 5;
            if (sym85 < 0) fail(OPGEN_E_SYMBOL, "kernel 'fused_proj' has no entry point for the dtypes of " "_dtype_T");
            out.put(OPGEN_STEP_LAUNCH); out.put(sym85);
            out.put(3);
            out.put(whole(num(env[37], "fused_row_tiles"), "a grid size"));
            out.put(whole(num(env[39], "fused_h_tiles"), "a grid size"));
            out.put(whole(num(env[9], "dirs"), "a grid size"));
            out.put(1);
            out.put(whole(integer(256LL), "a block size"));
            out.put(whole(integer(0LL), "the shared size"));
            int64_t nargs86 = out.used; out.put(0);
            out.put(OPGEN_T_SLOT); out.put(2);
            out.put(OPGEN_T_SLOT); out.put(4);
            out.put(OPGEN_T_SLOT); out.put(9);
            scalar(out, OPGEN_T_I64, num(env[64], "s"), "s");
            scalar(out, OPGEN_T_I64, num(env[19], "steps"), "steps");
            scalar(out, OPGEN_T_I64, num(env[20], "batch"), "batch");
            scalar(out, OPGEN_T_I64, num(env[22], "num_units"), "num_units");
            scalar(out, OPGEN_T_I64, num(env[17], "h_size"), "h_size");
            scalar(out, OPGEN_T_I64, num(env[54], "layer_pofs"), "layer_pofs");
            scalar(out, OPGEN_T_I64, num(env[49], "layer_w"), "layer_w");
            scalar(out, OPGEN_T_I64, num(env[52], "layer_hs_ofs"), "layer_hs_ofs");
            scalar(out, OPGEN_T_I64, num(env[58], "layer_ms_ofs"), "layer_ms_ofs");
            scalar(out, OPGEN_T_I64, num(env[13], "pl_size"), "pl_size");
            out.words[nargs86] = (out.used - nargs86 - 1) / 2;
          }
        }
      }
      if (true) {
        int64_t n88 = whole(num(env[9], "dirs"), "a repeat count");
        for (int64_t i87 = 0; i87 < n88; ++i87) {
          env[59] = value(integer(i87));
          env[60] = value(add(mul(num(env[45], "l"), num(env[9], "dirs")), num(env[59], "d")));
          env[61] = value(add(mul(num(env[60], "p"), num(env[13], "pl_size")), mul(num(env[14], "rows"), num(env[15], "acts"))));
          env[62] = value(add(num(env[61], "hs_ofs"), mul(mul(add(num(env[19], "steps"), integer(1LL)), num(env[20], "batch")), num(env[17], "h_size"))));
          if (true) {
            int64_t sym89 = -1;
            if (sym89 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym89 = 0;
            if (sym89 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym89 = 1;
            if (sym89 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym89 = 2;
            if (sym89 < 0) fail(OPGEN_E_SYMBOL, "kernel 'final_state' has no entry point for the dtypes of " "_dtype_T");
            out.put(OPGEN_STEP_LAUNCH); out.put(sym89);
            out.put(1);
            out.put(whole(num(env[24], "cell_blocks"), "a grid size"));
            out.put(1);
            out.put(whole(num(env[25], "cell_threads"), "a block size"));
            out.put(whole(integer(0LL), "the shared size"));
            int64_t nargs90 = out.used; out.put(0);
            out.put(OPGEN_T_SLOT); out.put(10);
            out.put(OPGEN_T_SLOT); out.put(11);
            out.put(OPGEN_T_SLOT); out.put(4);
            scalar(out, OPGEN_T_I64, num(env[60], "p"), "p");
            scalar(out, OPGEN_T_I64, num(env[59], "d"), "d");
            scalar(out, OPGEN_T_I64, num(env[12], "layers_dirs"), "layers_dirs");
            scalar(out, OPGEN_T_I64, num(env[19], "steps"), "steps");
            scalar(out, OPGEN_T_I64, num(env[20], "batch"), "batch");
            scalar(out, OPGEN_T_I64, num(env[17], "h_size"), "h_size");
            scalar(out, OPGEN_T_I64, num(env[22], "num_units"), "num_units");
            scalar(out, OPGEN_T_I64, num(env[61], "hs_ofs"), "hs_ofs");
            scalar(out, OPGEN_T_I64, num(env[62], "cs_ofs"), "cs_ofs");
            scalar(out, OPGEN_T_I64, num(env[21], "lstm"), "lstm");
            scalar(out, OPGEN_T_I32, num(env[26], "time_major"), "time_major");
            out.words[nargs90] = (out.used - nargs90 - 1) / 2;
          }
        }
      }
      if (true) {
        int64_t sym91 = -1;
        if (sym91 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 0) sym91 = 15;
        if (sym91 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 1) sym91 = 16;
        if (sym91 < 0 && env[0].kind == OPGEN_V_STR && env[0].i == 2) sym91 = 17;
        if (sym91 < 0) fail(OPGEN_E_SYMBOL, "kernel 'layer_output' has no entry point for the dtypes of " "_dtype_T");
        out.put(OPGEN_STEP_LAUNCH); out.put(sym91);
        out.put(1);
        out.put(whole(num(env[1], "seq_blocks"), "a grid size"));
        out.put(1);
        out.put(whole(num(env[2], "seq_threads"), "a block size"));
        out.put(whole(integer(0LL), "the shared size"));
        int64_t nargs92 = out.used; out.put(0);
        out.put(OPGEN_T_SLOT); out.put(4);
        out.put(OPGEN_T_SLOT); out.put(12);
        out.put(OPGEN_T_SLOT); out.put(9);
        scalar(out, OPGEN_T_I64, num(env[45], "l"), "l");
        scalar(out, OPGEN_T_I64, num(env[6], "num_layers"), "num_layers");
        scalar(out, OPGEN_T_I64, num(env[9], "dirs"), "dirs");
        scalar(out, OPGEN_T_I64, num(env[19], "steps"), "steps");
        scalar(out, OPGEN_T_I64, num(env[20], "batch"), "batch");
        scalar(out, OPGEN_T_I64, num(env[17], "h_size"), "h_size");
        scalar(out, OPGEN_T_I64, num(env[52], "layer_hs_ofs"), "layer_hs_ofs");
        scalar(out, OPGEN_T_I64, num(env[13], "pl_size"), "pl_size");
        scalar(out, OPGEN_T_I64, num(env[51], "next_x_ofs"), "next_x_ofs");
        scalar(out, (((env[0].kind == OPGEN_V_STR && env[0].i == 2)) ? OPGEN_T_F64 : OPGEN_T_F32), num(env[41], "dropout"), "dropout");
        scalar(out, OPGEN_T_I64, num(env[42], "seed"), "seed");
        scalar(out, OPGEN_T_I64, num(env[43], "seed2"), "seed2");
        scalar(out, OPGEN_T_I32, num(env[44], "is_training"), "is_training");
        scalar(out, OPGEN_T_I32, num(env[26], "time_major"), "time_major");
        out.words[nargs92] = (out.used - nargs92 - 1) / 2;
      }
    }
  }
  *variant = -1;
  if (*variant < 0 && truth(num(env[30], "persistent"))) *variant = 0;
  if (*variant < 0 && truth(num(env[40], "fused"))) *variant = 1;
  if (*variant < 0 && truth(num(env[36], "gemm_steps"))) *variant = 2;
}

OPGEN_PLAN_API int opgen_plan_CudnnRNNV3(const opgen_plan_value* values, int64_t nvalues, const char* backend, int64_t* words, int64_t capacity, int64_t* used, int64_t* variant, char* err, int64_t errlen) {
  Out out{words, capacity, 0};
  try {
    if (nvalues != 45) fail(OPGEN_E_VALUES, "the plan reads 45 names, the call gave " + std::to_string(nvalues));
    if (backend == nullptr) fail(OPGEN_E_VALUES, "no backend named");
    opgen_plan_value env[65] = {};
    for (int64_t k = 0; k < 45; ++k) env[k] = values[k];
    opgen_plan_walk_CudnnRNNV3(env, backend, out, variant);
    *used = out.used;
    return OPGEN_PLAN_OK;
  } catch (const Error& e) {
    *used = out.used;
    return report(Error{e.code, "CudnnRNNV3: " + e.message}, err, errlen);
  } catch (...) {  // (std::bad_alloc building a message): an error, never an exception through C
    *used = out.used;
    return report(Error{OPGEN_E_INTERNAL, "CudnnRNNV3: the native recorder failed"}, err, errlen);
  }
}

OPGEN_PLAN_API const char* opgen_plan_CudnnRNNV3_info(int table, int64_t index) {
  static const char* const t0[] = {"_dtype_T", "seq_blocks", "seq_threads", "swap0", "swap1", "input_size", "num_layers", "skip", "out_width", "dirs", "w0", "w1", "layers_dirs", "pl_size", "rows", "acts", "gate_width", "h_size", "weights_len", "steps", "batch", "lstm", "num_units", "gates", "cell_blocks", "cell_threads", "time_major", "persistent_blocks", "rnn_kind", "relu", "persistent", "row_blocks", "row_threads", "proj", "rnn_mode", "gru", "gemm_steps", "fused_row_tiles", "fused_unit_tiles", "fused_h_tiles", "fused", "dropout", "seed", "seed2", "is_training"};
  if (table == 0) return index >= 0 && index < 45 ? t0[index] : nullptr;
  static const char* const t1[] = {"float16", "float32", "float64", "gru", "lstm"};
  if (table == 1) return index >= 0 && index < 5 ? t1[index] : nullptr;
  static const char* const t2[] = {"CudnnRNNV3__final_state__float16", "CudnnRNNV3__final_state__float32", "CudnnRNNV3__final_state__float64", "CudnnRNNV3__fused_proj__float16", "CudnnRNNV3__fused_proj__float32", "CudnnRNNV3__fused_proj__float64", "CudnnRNNV3__fused_step__float16", "CudnnRNNV3__fused_step__float32", "CudnnRNNV3__fused_step__float64", "CudnnRNNV3__gru_step__float16", "CudnnRNNV3__gru_step__float32", "CudnnRNNV3__gru_step__float64", "CudnnRNNV3__init_state__float16", "CudnnRNNV3__init_state__float32", "CudnnRNNV3__init_state__float64", "CudnnRNNV3__layer_output__float16", "CudnnRNNV3__layer_output__float32", "CudnnRNNV3__layer_output__float64", "CudnnRNNV3__lstm_step__float16", "CudnnRNNV3__lstm_step__float32", "CudnnRNNV3__lstm_step__float64", "CudnnRNNV3__persistent_layer__float16", "CudnnRNNV3__persistent_layer__float32", "CudnnRNNV3__persistent_layer__float64", "CudnnRNNV3__proj_carry__float16", "CudnnRNNV3__proj_carry__float32", "CudnnRNNV3__proj_carry__float64", "CudnnRNNV3__rnn_step__float16", "CudnnRNNV3__rnn_step__float32", "CudnnRNNV3__rnn_step__float64", "CudnnRNNV3__skip_projection__float16", "CudnnRNNV3__skip_projection__float32", "CudnnRNNV3__skip_projection__float64", "CudnnRNNV3__to_time_major__float16", "CudnnRNNV3__to_time_major__float32", "CudnnRNNV3__to_time_major__float64", "CudnnRNNV3__transpose_r__float16", "CudnnRNNV3__transpose_r__float32", "CudnnRNNV3__transpose_r__float64"};
  if (table == 2) return index >= 0 && index < 39 ? t2[index] : nullptr;
  static const char* const t3[] = {"persistent", "fused", "gemm_steps"};
  if (table == 3) return index >= 0 && index < 3 ? t3[index] : nullptr;
  return nullptr;
}

}  // namespace opgen_plan
// CudnnRNNV3: its wrapper's _compute in C++ (codegen/drivergen_checks.py)
static void opgen_drive_CudnnRNNV3(opgen_call* call, bool run) {
  using namespace opgen_checks;
  static const char OP[] = "CudnnRNNV3";
  Frame frame;
  if (call->ninputs != 5 || call->nattrs != 9) raise(OPGEN_ERR_RUNTIME, std::string(OP) + ": the driver takes 5 inputs and 9 attrs, the call gave " + std::to_string(call->ninputs) + " and " + std::to_string(call->nattrs));
  call->noutputs = 5;
  V v_input = input_value(call, 0);
  V v_input_h = input_value(call, 1);
  V v_input_c = input_value(call, 2);
  V v_params = input_value(call, 3);
  V v_sequence_lengths = input_value(call, 4);
  V v_rnn_mode = attr_value(call->attrs[0]);
  V v_input_mode = attr_value(call->attrs[1]);
  V v_direction = attr_value(call->attrs[2]);
  V v_dropout = attr_value(call->attrs[3]);
  V v_seed = attr_value(call->attrs[4]);
  V v_seed2 = attr_value(call->attrs[5]);
  V v_num_proj = attr_value(call->attrs[6]);
  V v_is_training = attr_value(call->attrs[7]);
  V v_time_major = attr_value(call->attrs[8]);
  V v__dtype_T;
  int64_t v_acts = 0;
  int64_t v_batch = 0;
  int64_t v_c_layers = 0;
  int64_t v_c_size = 0;
  int64_t v_cell_blocks = 0;
  int64_t v_cell_threads = 0;
  int64_t v_cells = 0;
  int64_t v_dirs = 0;
  bool v_fused = false;
  int64_t v_fused_depth = 0;
  int64_t v_fused_h_tiles = 0;
  int64_t v_fused_max_depth = 0;
  int64_t v_fused_row_tiles = 0;
  int64_t v_fused_unit_tiles = 0;
  int64_t v_gate_width = 0;
  int64_t v_gates = 0;
  bool v_gemm_steps = false;
  V v_gh;
  int64_t v_gpu_row_threads = 0;
  int64_t v_gru = 0;
  V v_gx;
  int64_t v_h_size = 0;
  V v_host_reserved;
  int64_t v_input_size = 0;
  int64_t v_layers_dirs = 0;
  int64_t v_lstm = 0;
  int64_t v_num_layers = 0;
  int64_t v_num_units = 0;
  int64_t v_on_cpu = 0;
  int64_t v_out_width = 0;
  V v_output;
  V v_output_c;
  V v_output_h;
  int64_t v_params_len = 0;
  V v_params_size;
  bool v_persistent = false;
  int64_t v_persistent_blocks = 0;
  int64_t v_persistent_max_batch = 0;
  int64_t v_persistent_max_weights = 0;
  V v_pl_size;
  V v_proj;
  int64_t v_relu = 0;
  V v_reserve_len;
  V v_reserve_size;
  V v_reserve_space;
  int64_t v_rnn_kind = 0;
  int64_t v_row_blocks = 0;
  int64_t v_row_threads = 0;
  int64_t v_rows = 0;
  V v_rt;
  int64_t v_seq_blocks = 0;
  int64_t v_seq_cells = 0;
  int64_t v_seq_threads = 0;
  int64_t v_skip = 0;
  int64_t v_steps = 0;
  int64_t v_swap0 = 0;
  int64_t v_swap1 = 0;
  V v_w0;
  V v_w1;
  V v_weights_len;
  V v_work;
  V v_xt;
  Shape v__shape_host_reserved;
  Shape v__shape_output;
  Shape v__shape_output_c;
  Shape v__shape_output_h;
  Shape v__shape_reserve_space;
  v_rnn_mode = check_enum(OP, "rnn_mode", v_rnn_mode, {lit("rnn_relu"), lit("rnn_tanh"), lit("lstm"), lit("gru")});
  v_input_mode = check_enum(OP, "input_mode", v_input_mode, {lit("linear_input"), lit("skip_input"), lit("auto_select")});
  v_direction = check_enum(OP, "direction", v_direction, {lit("unidirectional"), lit("bidirectional")});
  v_dropout = check_float(OP, "dropout", v_dropout, Bound{true, true, 0LL, 0.0, "0"}, Bound{true, true, 1LL, 0.0, "1"}, false, false);
  v_seed = check_int(OP, "seed", v_seed, no_bound(), no_bound(), {}, false, false);
  v_seed2 = check_int(OP, "seed2", v_seed2, no_bound(), no_bound(), {}, false, false);
  v_num_proj = check_int(OP, "num_proj", v_num_proj, Bound{true, true, 0LL, 0.0, "0"}, no_bound(), {}, false, false);
  v_is_training = check_bool(OP, "is_training", v_is_training);
  v_time_major = check_bool(OP, "time_major", v_time_major);
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
    v_reserve_size = (truth(v_is_training) ? v_reserve_len : integer(0LL));
    v_rnn_kind = add_i(v_lstm, mul_i(2LL, v_gru));
    v_on_cpu = ((call->device != OPGEN_DEV_CUDA) ? 1LL : 0LL);
    v__shape_output = Shape{v_steps, v_batch, v_out_width};
    v__shape_output_h = Shape{v_layers_dirs, v_batch, v_h_size};
    v__shape_output_c = Shape{v_c_layers, v_batch, v_num_units};
    v__shape_reserve_space = Shape{v_reserve_size};
    v__shape_host_reserved = Shape{0LL};
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
    v_reserve_size = (truth(v_is_training) ? v_reserve_len : integer(0LL));
    v_rnn_kind = add_i(v_lstm, mul_i(2LL, v_gru));
    v_on_cpu = ((call->device != OPGEN_DEV_CUDA) ? 1LL : 0LL);
    v__shape_output = Shape{v_batch, v_steps, v_out_width};
    v__shape_output_h = Shape{v_batch, v_layers_dirs, v_h_size};
    v__shape_output_c = Shape{v_batch, v_c_layers, v_num_units};
    v__shape_reserve_space = Shape{v_reserve_size};
    v__shape_host_reserved = Shape{0LL};
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
  check_values(call, frame, true, OP, "sequence_lengths", v_sequence_lengths, integer(1LL), integer(v_steps), "1", "steps");
  v_output = output(call, OP, "output", 0, run, v__shape_output, v__dtype_T);
  v_output_h = output(call, OP, "output_h", 1, run, v__shape_output_h, v__dtype_T);
  v_output_c = output(call, OP, "output_c", 2, run, v__shape_output_c, v__dtype_T);
  v_reserve_space = output(call, OP, "reserve_space", 3, run, v__shape_reserve_space, v__dtype_T);
  v_host_reserved = output(call, OP, "host_reserved", 4, run, v__shape_host_reserved, lit("int8"));
  if (!run) return;
  v_work = (truth(v_is_training) ? alias_view(frame, OP, "work", v_reserve_space, Shape{v_reserve_len}) : scratch(call, frame, Shape{v_reserve_len}, v__dtype_T));
  v_xt = scratch(call, frame, Shape{mul_i(v_rows, v_input_size)}, v__dtype_T);
  v_gx = scratch(call, frame, Shape{mul_i(mul_i(v_dirs, v_rows), v_gate_width)}, v__dtype_T);
  v_gh = scratch(call, frame, Shape{mul_i(mul_i(v_dirs, v_batch), v_gate_width)}, v__dtype_T);
  v_rt = scratch(call, frame, Shape{mul_i(mul_i(mul_i(v_dirs, v_gate_width), v_h_size), v_on_cpu)}, v__dtype_T);
  static const char* const strings[] = {"float16", "float32", "float64", "gru", "lstm"};
  static const char* const symbols[] = {"CudnnRNNV3__final_state__float16", "CudnnRNNV3__final_state__float32", "CudnnRNNV3__final_state__float64", "CudnnRNNV3__fused_proj__float16", "CudnnRNNV3__fused_proj__float32", "CudnnRNNV3__fused_proj__float64", "CudnnRNNV3__fused_step__float16", "CudnnRNNV3__fused_step__float32", "CudnnRNNV3__fused_step__float64", "CudnnRNNV3__gru_step__float16", "CudnnRNNV3__gru_step__float32", "CudnnRNNV3__gru_step__float64", "CudnnRNNV3__init_state__float16", "CudnnRNNV3__init_state__float32", "CudnnRNNV3__init_state__float64", "CudnnRNNV3__layer_output__float16", "CudnnRNNV3__layer_output__float32", "CudnnRNNV3__layer_output__float64", "CudnnRNNV3__lstm_step__float16", "CudnnRNNV3__lstm_step__float32", "CudnnRNNV3__lstm_step__float64", "CudnnRNNV3__persistent_layer__float16", "CudnnRNNV3__persistent_layer__float32", "CudnnRNNV3__persistent_layer__float64", "CudnnRNNV3__proj_carry__float16", "CudnnRNNV3__proj_carry__float32", "CudnnRNNV3__proj_carry__float64", "CudnnRNNV3__rnn_step__float16", "CudnnRNNV3__rnn_step__float32", "CudnnRNNV3__rnn_step__float64", "CudnnRNNV3__skip_projection__float16", "CudnnRNNV3__skip_projection__float32", "CudnnRNNV3__skip_projection__float64", "CudnnRNNV3__to_time_major__float16", "CudnnRNNV3__to_time_major__float32", "CudnnRNNV3__to_time_major__float64", "CudnnRNNV3__transpose_r__float16", "CudnnRNNV3__transpose_r__float32", "CudnnRNNV3__transpose_r__float64"};
  opgen_plan_value values[45] = {plan_value(frame, v__dtype_T, strings, 5), plan_int(v_seq_blocks), plan_int(v_seq_threads), plan_int(v_swap0), plan_int(v_swap1), plan_int(v_input_size), plan_int(v_num_layers), plan_int(v_skip), plan_int(v_out_width), plan_int(v_dirs), plan_value(frame, v_w0, strings, 5), plan_value(frame, v_w1, strings, 5), plan_int(v_layers_dirs), plan_value(frame, v_pl_size, strings, 5), plan_int(v_rows), plan_int(v_acts), plan_int(v_gate_width), plan_int(v_h_size), plan_value(frame, v_weights_len, strings, 5), plan_int(v_steps), plan_int(v_batch), plan_int(v_lstm), plan_int(v_num_units), plan_int(v_gates), plan_int(v_cell_blocks), plan_int(v_cell_threads), plan_value(frame, v_time_major, strings, 5), plan_int(v_persistent_blocks), plan_int(v_rnn_kind), plan_int(v_relu), plan_int(v_persistent), plan_int(v_row_blocks), plan_int(v_row_threads), plan_value(frame, v_proj, strings, 5), plan_value(frame, v_rnn_mode, strings, 5), plan_int(v_gru), plan_int(v_gemm_steps), plan_int(v_fused_row_tiles), plan_int(v_fused_unit_tiles), plan_int(v_fused_h_tiles), plan_int(v_fused), plan_value(frame, v_dropout, strings, 5), plan_value(frame, v_seed, strings, 5), plan_value(frame, v_seed2, strings, 5), plan_value(frame, v_is_training, strings, 5)};
  opgen_native::Slot slots[13] = {plan_slot(frame, v_input), plan_slot(frame, v_xt), plan_slot(frame, v_params), plan_slot(frame, v_gx), plan_slot(frame, v_work), plan_slot(frame, v_input_h), plan_slot(frame, v_input_c), plan_slot(frame, v_rt), plan_slot(frame, v_gh), plan_slot(frame, v_sequence_lengths), plan_slot(frame, v_output_h), plan_slot(frame, v_output_c), plan_slot(frame, v_output)};
  int rc = opgen_native::run_plan(call, opgen_native::PlanCall{OP, opgen_plan::opgen_plan_CudnnRNNV3, symbols, 39, values, 45, slots, 13, frame.value_checks.data(), (int64_t)frame.value_checks.size()});
  if (rc != OPGEN_OK) raise(rc, call->err);
}

OPGEN_DRIVER_API int opgen_shapes_CudnnRNNV3(opgen_call* call) {
  return opgen_checks::guarded(call, "CudnnRNNV3", [&] { opgen_drive_CudnnRNNV3(call, false); });
}

OPGEN_DRIVER_API int opgen_call_CudnnRNNV3(opgen_call* call) {
  return opgen_checks::guarded(call, "CudnnRNNV3", [&] { opgen_drive_CudnnRNNV3(call, true); });
}
