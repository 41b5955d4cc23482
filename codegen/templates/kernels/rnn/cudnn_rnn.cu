// CudnnRNNV3 / CudnnRNNBackpropV3: the elementwise steps of a multi-layer, optionally
// bidirectional RNN (rnn_relu, rnn_tanh, lstm with an optional projection, cuDNN's
// linear-before-reset gru). The large matrix products are GEMM steps of the launch plans: per layer
// one input projection for all time steps and both directions and, in the backward, the weight
// gradients over all steps at once. The recurrent product of each step is a GEMM step too (a
// strided batch over the directions) on the cpu plan and the GPU's large sizes, then one step
// kernel per time step for both directions (grid y: the direction) does the rest; below them, on the
// GPU's plan, it lives in the kernels: the persistent variant (small sizes: every step of a layer,
// both directions, in one launch) or the fused one (per time step one launch for both directions, a
// tile of the product through opgen::matmul_tile and then that tile's gates).
//
// Buffers (all row-major, element offsets computed by the launch plan):
//   params   the opaque weights (opgen_ops/cudnn_rnn.py): bW and bR of the pseudo-layer
//            at `bofs` (G·H each).
//   gx       [D, T·B, G·H] the input projection x_t·Wᵀ of every step (time-major rows t·B + b), a
//            slot per direction.
//   gh       [D, B, G·H] the recurrent product h_{t−1}·Rᵀ of this step, a slot per direction.
//   dgw, dgr, dh, dc, dhp, dm (backward): a slot per direction each, direction d's at d times the
//            slot's size.
//   work     the reserve space (or, for inference, a scratch buffer of the same layout); per
//            pseudo-layer at acts_ofs: acts [T, B, A] (lstm: i f g o, gru: r u n (R_h·h + bR_h),
//            rnn: none), then at hs_ofs the h slots [T + 1, B, Hh], at cs_ofs the c slots
//            [T + 1, B, H] (lstm), at ms_ofs m = o∘tanh(c) [T, B, H] (lstm with projection).
//            Slots: direction d writes the state after time t to slot t + 1 − d and reads the
//            previous one from slot t + d; the initial state is slot d·T, the final one slot
//            (1 − d)·T. So the previous states of all steps, in time order, are the T·B rows from
//            slot d on (one GEMM for the recurrent weight gradient).
//   A sequence b is valid at time t when t < len[b]; elsewhere the state is carried unchanged, the
//   output is zero and no gradient reaches the weights.
//
// Arithmetic is in float for float and half storage, in double for double storage.

{% include "kernels/_common.cuh" %}
{% include "kernels/_matmul.cuh" %}
{% include "kernels/_activations.cuh" %}

namespace crnn {

__device__ __forceinline__ float load(const float* p) { return *p; }
__device__ __forceinline__ double load(const double* p) { return *p; }
__device__ __forceinline__ float load(const __half* p) { return __half2float(*p); }
__device__ __forceinline__ void store(float* p, float v) { *p = v; }
__device__ __forceinline__ void store(double* p, double v) { *p = v; }
__device__ __forceinline__ void store(__half* p, float v) { *p = __float2half_rn(v); }

template <typename T> struct Acc { typedef float type; };
template <> struct Acc<double> { typedef double type; };

// The gates' functions: the activation library's (specs/_vocab/activations.yaml) in float, the
// C library's in double.
__device__ __forceinline__ float sigmoid(float v) { return opgen::act::sigmoid(v); }
__device__ __forceinline__ double sigmoid(double v) { return 1.0 / (1.0 + exp(-v)); }
__device__ __forceinline__ float tanh_(float v) { return opgen::act::tanh(v); }
__device__ __forceinline__ double tanh_(double v) { return tanh(v); }
__device__ __forceinline__ float relu(float v) { return opgen::act::relu(v); }
__device__ __forceinline__ double relu(double v) { return v > 0.0 ? v : 0.0; }

// The host form's row loops (OPGEN_HOST_FORM, kernels/_common.cuh): GCC at -O2 vectorises only
// straight-line code (the SLP vectoriser, no branches), not loops of unknown length, and no call
// to expf. So row_runs hands the body runs of kHostRun elements (Run<8>: it keeps them in local
// arrays), and on a run of floats the gates' functions are the vector math library's run forms
// (kernels/_vmath.cuh: vm::sigmoid_run, vm::tanh_run, in vector registers on the host, CUDA's
// functions on the GPU). A run of one element (the GPU, the GPU form, a row's tail) takes the same
// functions one value at a time; double keeps the C library's exp and tanh in both forms, so
// float64 results do not depend on the form.
template <int N>
struct Run {
  static constexpr int n = N;
};

// The type of a row_runs body's run parameter. Generic (auto) only in the host form, which g++
// compiles and which hands runs of kHostRun and of 1; the GPU's form hands Run<1> alone, and NVRTC
// 13.0 rejects a generic lambda in device code ("host functions are not allowed in JIT mode").
#ifdef OPGEN_HOST_FORM
#define CRNN_RUN auto
#else
#define CRNN_RUN crnn::Run<1>
#endif

#ifdef OPGEN_HOST_FORM
#define CRNN_UNROLL _Pragma("GCC unroll 8")
#else
#define CRNN_UNROLL
#endif

// The units [begin, end) of a row that a row function works on, and who takes them: the block's
// threads together (shared = true: for_each_row's rows, the persistent kernels' rows) or the calling
// thread alone (a fused step's GPU form, a thread per (row, unit) of its tile).
struct Span {
  long long begin, end;
  bool shared;
};
__device__ __forceinline__ Span whole_row(long long n) { return Span{0, n, true}; }

// f(j, Run<R>{}) for the runs [j, j + R) that cover the span: in the host form thread 0 takes them all
// (of a shared span), in runs of kHostRun; on the GPU the block's threads stride single elements of a
// shared span, and the calling thread takes each element of its own.
template <typename F>
__device__ __forceinline__ void row_runs(Span span, const F& f) {
#ifdef OPGEN_HOST_FORM
  if (span.shared && threadIdx.x != 0) return;
  long long j = span.begin;
  for (; j + opgen::kHostRun <= span.end; j += opgen::kHostRun) f(j, Run<opgen::kHostRun>{});
  for (; j < span.end; ++j) f(j, Run<1>{});
#else
  const long long first = span.shared ? span.begin + threadIdx.x : span.begin;
  const long long stride = span.shared ? static_cast<long long>(blockDim.x) : 1LL;
  for (long long j = first; j < span.end; j += stride) f(j, Run<1>{});
#endif
}

// f(j) for each element of the span, taken as row_runs takes them.
template <typename F>
__device__ __forceinline__ void span_each(Span span, const F& f) {
  row_runs(span, [&](long long j, CRNN_RUN run) {
    for (int q = 0; q < decltype(run)::n; ++q) f(j + q);
  });
}

// p[q] = v[q] for a run: one output's run stored by itself, so that the host form's vectoriser
// makes it one vector store. Stores of several outputs interleaved in one loop (acts[j + q], then
// acts[H + j + q], ...) stay lane by lane: it cannot prove the outputs apart to reorder them.
template <typename T, typename A, int R>
__device__ __forceinline__ void store_run(T* __restrict__ p, const A (&v)[R]) {
  CRNN_UNROLL for (int q = 0; q < R; ++q) crnn::store(p + q, v[q]);
}

// v[q] = sigmoid(v[q]) (or tanh) for a run.
template <typename A, int R>
__device__ __forceinline__ void sigmoid_run(A (&v)[R]) {
  if constexpr (opgen::is_float32<A>::value) {
    opgen::vm::sigmoid_run(v);
  } else {
    for (int q = 0; q < R; ++q) v[q] = sigmoid(v[q]);
  }
}
template <typename A, int R>
__device__ __forceinline__ void tanh_run(A (&v)[R]) {
  if constexpr (opgen::is_float32<A>::value) {
    opgen::vm::tanh_run(v);
  } else {
    for (int q = 0; q < R; ++q) v[q] = tanh_(v[q]);
  }
}

// v as T stores it (c is rounded to T before tanh reads it back).
__device__ __forceinline__ float stored(float v, const float*) { return v; }
__device__ __forceinline__ double stored(double v, const double*) { return v; }
__device__ __forceinline__ float stored(float v, const __half*) { return __half2float(__float2half_rn(v)); }

// f(i) for i = 0 … n − 1, grid-stride.
template <typename F>
__device__ __forceinline__ void each(long long n, const F& f) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) f(i);
}

// The index of state [p, b, j] in a [LD, B, W] (time-major) or [B, LD, W] tensor.
__device__ __forceinline__ long long state_index(int time_major, long long p, long long b, long long j,
                                                 long long LD, long long B, long long W) {
  return (time_major ? p * B + b : b * LD + p) * W + j;
}

// The dropout hash: splitmix64's finalizer. The mask of element i (time-major [T, B, D·Hh] flat
// index) of layer l's output keeps it when u ≥ rate, u = top 24 bits of
// mix(key + (i + 1)·0x9E3779B97F4A7C15) · 2^-24, key = mix(mix(seed) ^ (seed2 + (l + 1)·0xD1B54A32D192ED03)).
__device__ __forceinline__ unsigned long long mix64(unsigned long long z) {
  z ^= z >> 30;
  z *= 0xBF58476D1CE4E5B9ULL;
  z ^= z >> 27;
  z *= 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return z;
}

}  // namespace crnn

// dst[j, i, k] = src[i, j, k] for src [n0, n1, n2] (n0 = 1: a plain copy), a row of n2 elements
// at a time (no per-element division; the host form's row loop is a vectorised copy).
template <typename T>
__device__ void swap01_(const T* __restrict__ src, T* __restrict__ dst, long long n0, long long n1, long long n2) {
  opgen::for_each_row(n0 * n1, [&](long long q) {  // q indexes dst's rows [n1, n0]
    const long long j = q / n0, i = q - j * n0;
    const T* __restrict__ s = src + (i * n1 + j) * n2;
    T* __restrict__ o = dst + q * n2;
    opgen::row_for_each(n2, [&](long long k) { o[k] = s[k]; });
  });
}

// The input in time-major order [T, B, I] (a copy when it already is).
template <typename T>
__device__ void to_time_major(const T* __restrict__ input, T* __restrict__ xt, long long n0, long long n1,
                              long long n2) {
  swap01_(input, xt, n0, n1, n2);
}

// input_backprop from its time-major form.
template <typename T>
__device__ void from_time_major(const T* __restrict__ dxt, T* __restrict__ input_backprop, long long n0, long long n1,
                                long long n2) {
  swap01_(dxt, input_backprop, n0, n1, n2);
}

// skip_input: every gate's input part is x itself, gx[gx_ofs + r·G·H + g·H + j] = x[r, j] (gx_ofs: the
// direction's slot).
template <typename T>
__device__ void skip_projection(const T* __restrict__ xt, T* __restrict__ gx, long long rows, long long gates,
                                long long H, long long gx_ofs) {
  crnn::each(rows * gates * H, [&](long long o) {
    const long long j = o % H, r = o / (gates * H);
    gx[gx_ofs + o] = xt[r * H + j];
  });
}

// The initial h (and c) of pseudo-layer p into its slot d·T.
template <typename T>
__device__ void init_state(const T* __restrict__ input_h, const T* __restrict__ input_c, T* __restrict__ work,
                           long long p, long long d, long long LD, long long T_, long long B, long long Hh,
                           long long H, long long hs_ofs, long long cs_ofs, long long lstm, int time_major) {
  const long long nh = B * Hh;
  crnn::each(nh + lstm * B * H, [&](long long i) {
    if (i < nh) {
      const long long b = i / Hh, j = i - b * Hh;
      work[hs_ofs + d * T_ * nh + i] = input_h[crnn::state_index(time_major, p, b, j, LD, B, Hh)];
    } else {
      const long long k = i - nh, b = k / H, j = k - b * H;
      work[cs_ofs + d * T_ * B * H + k] = input_c[crnn::state_index(time_major, p, b, j, LD, B, H)];
    }
  });
}

namespace crnn {

// Row b of lstm_step (below), by the block's threads: the step kernel and the persistent one share it.
template <typename T>
__device__ __forceinline__ void lstm_row(long long b, const T* __restrict__ gx, const T* __restrict__ gh,
                                         const T* __restrict__ params, T* __restrict__ work,
                                         const int* __restrict__ lengths, long long t, long long d,
                                         long long B, long long H, long long Hh, long long proj, long long bofs,
                                         long long acts_ofs, long long hs_ofs, long long cs_ofs, long long ms_ofs,
                                         Span span) {
  typedef typename crnn::Acc<T>::type A;
  const long long prev = t + d, next = t + 1 - d;
  const T* __restrict__ bw = params + bofs;
  const T* __restrict__ br = bw + 4 * H;
  T* __restrict__ acts = work + acts_ofs + (t * B + b) * 4 * H;
  const T* __restrict__ c_prev = work + cs_ofs + (prev * B + b) * H;
  T* __restrict__ c_next = work + cs_ofs + (next * B + b) * H;
  T* __restrict__ m_out = proj ? work + ms_ofs + (t * B + b) * H : work + hs_ofs + (next * B + b) * Hh;
  if (t >= lengths[b]) {  // past the end: carry the state
    const T* __restrict__ h_prev = work + hs_ofs + (prev * B + b) * Hh;
    crnn::span_each(span, [&](long long j) {
      for (int g = 0; g < 4; ++g) crnn::store(acts + g * H + j, A(0));
      c_next[j] = c_prev[j];
      if (proj) crnn::store(m_out + j, A(0));
      else m_out[j] = h_prev[j];
    });
    return;
  }
  const T* __restrict__ x = gx + (t * B + b) * 4 * H;
  const T* __restrict__ h = gh + b * 4 * H;
  crnn::row_runs(span, [&](long long j, CRNN_RUN run) {
    constexpr int R = decltype(run)::n;
    A ig[R], fg[R], cg[R], og[R], c[R], tc[R];
    CRNN_UNROLL for (int q = 0; q < R; ++q) {
      const long long k = j + q;
      ig[q] = crnn::load(x + k) + crnn::load(h + k) + crnn::load(bw + k) + crnn::load(br + k);
      fg[q] = crnn::load(x + H + k) + crnn::load(h + H + k) + crnn::load(bw + H + k) + crnn::load(br + H + k);
      cg[q] = crnn::load(x + 2 * H + k) + crnn::load(h + 2 * H + k) + crnn::load(bw + 2 * H + k) +
              crnn::load(br + 2 * H + k);
      og[q] = crnn::load(x + 3 * H + k) + crnn::load(h + 3 * H + k) + crnn::load(bw + 3 * H + k) +
              crnn::load(br + 3 * H + k);
    }
    crnn::sigmoid_run(ig);
    crnn::sigmoid_run(fg);
    crnn::tanh_run(cg);
    crnn::sigmoid_run(og);
    CRNN_UNROLL for (int q = 0; q < R; ++q) {
      c[q] = fg[q] * crnn::load(c_prev + j + q) + ig[q] * cg[q];
      tc[q] = crnn::stored(c[q], c_next);  // tanh of c as stored
    }
    crnn::tanh_run(tc);
    CRNN_UNROLL for (int q = 0; q < R; ++q) tc[q] = og[q] * tc[q];  // m = o∘tanh(c)
    crnn::store_run(acts + j, ig);
    crnn::store_run(acts + H + j, fg);
    crnn::store_run(acts + 2 * H + j, cg);
    crnn::store_run(acts + 3 * H + j, og);
    crnn::store_run(c_next + j, c);
    crnn::store_run(m_out + j, tc);
  });
}

}  // namespace crnn

namespace crnn {

// The unfused step kernels' launch s of every direction of a layer (the GEMM steps' plan): grid
// [row_blocks, D], direction d = blockIdx.y at time t = s (forward) or T − 1 − s (backward), its
// pseudo-layer d·pl_size after direction 0's offsets, its biases d·2·G after, its slots of gx and gh
// ([D, T·B, G] and [D, B, G]) d slots on: one launch where there was one per direction.
struct StepDir {
  long long d, t, pl;
};
__device__ __forceinline__ StepDir step_dir(long long s, long long steps, long long pl_size) {
  const long long d = blockIdx.y;
  return StepDir{d, s + d * (steps - 1 - 2 * s), d * pl_size};
}

}  // namespace crnn

// One LSTM step (launch s, crnn::step_dir): gates from gx + gh + bW + bR, the c slot, and m =
// o∘tanh(c) into the h slot (no projection) or into ms (projection: a GEMM then forms h = m·P_projᵀ).
// A block takes whole rows (sequences b), its threads the row's hidden units: no per-element
// division, and the length test once per row.
template <typename T>
__device__ void lstm_step(const T* __restrict__ gx, const T* __restrict__ gh, const T* __restrict__ params,
                          T* __restrict__ work, const int* __restrict__ lengths, long long s, long long steps,
                          long long B, long long H, long long Hh, long long proj, long long bofs, long long acts_ofs,
                          long long hs_ofs, long long cs_ofs, long long ms_ofs, long long pl_size) {
  const crnn::StepDir q = crnn::step_dir(s, steps, pl_size);
  const long long G = 4 * H;
  opgen::for_each_row(B, [&](long long b) {
    crnn::lstm_row(b, gx + q.d * steps * B * G, gh + q.d * B * G, params, work, lengths, q.t, q.d, B, H, Hh, proj,
                   bofs + q.d * 2 * G, acts_ofs + q.pl, hs_ofs + q.pl, cs_ofs + q.pl, ms_ofs + q.pl,
                   crnn::whole_row(H));
  });
}

// After the projection GEMM (launch s, crnn::step_dir; grid [cell_blocks, D]): sequences past their
// end keep their previous h.
template <typename T>
__device__ void proj_carry(T* __restrict__ work, const int* __restrict__ lengths, long long s, long long steps,
                           long long B, long long Hh, long long hs_ofs, long long pl_size) {
  const crnn::StepDir q = crnn::step_dir(s, steps, pl_size);
  const long long t = q.t, prev = t + q.d, next = t + 1 - q.d;
  hs_ofs += q.pl;
  crnn::each(B * Hh, [&](long long i) {
    const long long b = i / Hh;
    if (t >= lengths[b]) work[hs_ofs + next * B * Hh + i] = work[hs_ofs + prev * B * Hh + i];
  });
}

namespace crnn {

// Row b of gru_step (below), by the block's threads.
template <typename T>
__device__ __forceinline__ void gru_row(long long b, const T* __restrict__ gx, const T* __restrict__ gh,
                                        const T* __restrict__ params, T* __restrict__ work,
                                        const int* __restrict__ lengths, long long t, long long d, long long B,
                                        long long H, long long bofs, long long acts_ofs, long long hs_ofs, Span span) {
  typedef typename crnn::Acc<T>::type A;
  const long long prev = t + d, next = t + 1 - d;
  const T* __restrict__ bw = params + bofs;
  const T* __restrict__ br = bw + 3 * H;
  T* __restrict__ acts = work + acts_ofs + (t * B + b) * 4 * H;
  const T* __restrict__ h_prev = work + hs_ofs + (prev * B + b) * H;
  T* __restrict__ h_next = work + hs_ofs + (next * B + b) * H;
  if (t >= lengths[b]) {
    crnn::span_each(span, [&](long long j) {
      for (int g = 0; g < 4; ++g) crnn::store(acts + g * H + j, A(0));
      h_next[j] = h_prev[j];
    });
    return;
  }
  const T* __restrict__ x = gx + (t * B + b) * 3 * H;
  const T* __restrict__ h = gh + b * 3 * H;
  crnn::row_runs(span, [&](long long j, CRNN_RUN run) {
    constexpr int R = decltype(run)::n;
    A r[R], u[R], hn[R], n[R];
    CRNN_UNROLL for (int q = 0; q < R; ++q) {
      const long long k = j + q;
      r[q] = crnn::load(x + k) + crnn::load(bw + k) + crnn::load(h + k) + crnn::load(br + k);
      u[q] = crnn::load(x + H + k) + crnn::load(bw + H + k) + crnn::load(h + H + k) + crnn::load(br + H + k);
      hn[q] = crnn::load(h + 2 * H + k) + crnn::load(br + 2 * H + k);
    }
    crnn::sigmoid_run(r);
    crnn::sigmoid_run(u);
    CRNN_UNROLL for (int q = 0; q < R; ++q) {
      n[q] = crnn::load(x + 2 * H + j + q) + crnn::load(bw + 2 * H + j + q) + r[q] * hn[q];
    }
    crnn::tanh_run(n);
    A hv[R];
    CRNN_UNROLL for (int q = 0; q < R; ++q) hv[q] = (A(1) - u[q]) * n[q] + u[q] * crnn::load(h_prev + j + q);
    crnn::store_run(acts + j, r);
    crnn::store_run(acts + H + j, u);
    crnn::store_run(acts + 2 * H + j, n);
    crnn::store_run(acts + 3 * H + j, hn);
    crnn::store_run(h_next + j, hv);
  });
}

}  // namespace crnn

// One GRU step (linear before reset): r, u = σ(gx + bW + gh + bR), n = tanh(gx_n + bW_n + r∘(gh_n + bR_n)),
// h = (1 − u)∘n + u∘h_prev; acts keep r, u, n and gh_n + bR_n for the gradient. Launch s and rows as
// in lstm_step.
template <typename T>
__device__ void gru_step(const T* __restrict__ gx, const T* __restrict__ gh, const T* __restrict__ params,
                         T* __restrict__ work, const int* __restrict__ lengths, long long s, long long steps,
                         long long B, long long H, long long bofs, long long acts_ofs, long long hs_ofs,
                         long long pl_size) {
  const crnn::StepDir q = crnn::step_dir(s, steps, pl_size);
  const long long G = 3 * H;
  opgen::for_each_row(B, [&](long long b) {
    crnn::gru_row(b, gx + q.d * steps * B * G, gh + q.d * B * G, params, work, lengths, q.t, q.d, B, H,
                  bofs + q.d * 2 * G, acts_ofs + q.pl, hs_ofs + q.pl, crnn::whole_row(H));
  });
}

namespace crnn {

// Row b of rnn_step (below), by the block's threads.
template <typename T>
__device__ __forceinline__ void rnn_row(long long b, const T* __restrict__ gx, const T* __restrict__ gh,
                                        const T* __restrict__ params, T* __restrict__ work,
                                        const int* __restrict__ lengths, long long t, long long d,
                                        long long B, long long H, long long bofs, long long hs_ofs, long long relu,
                                        Span span) {
  typedef typename crnn::Acc<T>::type A;
  const long long prev = t + d, next = t + 1 - d;
  const T* __restrict__ h_prev = work + hs_ofs + (prev * B + b) * H;
  T* __restrict__ h_next = work + hs_ofs + (next * B + b) * H;
  if (t >= lengths[b]) {
    crnn::span_each(span, [&](long long j) { h_next[j] = h_prev[j]; });
    return;
  }
  const T* __restrict__ x = gx + (t * B + b) * H;
  const T* __restrict__ h = gh + b * H;
  const T* __restrict__ bw = params + bofs;
  crnn::row_runs(span, [&](long long j, CRNN_RUN run) {
    constexpr int R = decltype(run)::n;
    A a[R];
    CRNN_UNROLL for (int q = 0; q < R; ++q) {
      const long long k = j + q;
      a[q] = crnn::load(x + k) + crnn::load(h + k) + crnn::load(bw + k) + crnn::load(bw + H + k);
    }
    if (relu) {
      CRNN_UNROLL for (int q = 0; q < R; ++q) a[q] = crnn::relu(a[q]);
    } else {
      crnn::tanh_run(a);
    }
    CRNN_UNROLL for (int q = 0; q < R; ++q) crnn::store(h_next + j + q, a[q]);
  });
}

}  // namespace crnn

// One rnn_relu / rnn_tanh step: h = act(gx + bW + gh + bR). Launch s and rows as in lstm_step.
template <typename T>
__device__ void rnn_step(const T* __restrict__ gx, const T* __restrict__ gh, const T* __restrict__ params,
                         T* __restrict__ work, const int* __restrict__ lengths, long long s, long long steps,
                         long long B, long long H, long long bofs, long long hs_ofs, long long relu,
                         long long pl_size) {
  const crnn::StepDir q = crnn::step_dir(s, steps, pl_size);
  opgen::for_each_row(B, [&](long long b) {
    crnn::rnn_row(b, gx + q.d * steps * B * H, gh + q.d * B * H, params, work, lengths, q.t, q.d, B, H,
                  bofs + q.d * 2 * H, hs_ofs + q.pl, relu, crnn::whole_row(H));
  });
}

// The persistent variant of one layer, every direction (issue 23; the launch plan's `persistent`
// variant: no projection, gates·H·H ≤ persistent_max_weights, batch ≤ 64): every time step in one
// launch instead of a GEMM and a step kernel per step. Grid [ceildiv(B, 4), D]: block (r, d) takes
// batch rows [4r, 4r + 4) of direction d = blockIdx.y (its pseudo-layer d·pl_size after direction
// 0's offsets, its weights d·layer_w, its biases d·2·G; its slots of gx and gh, as fused_step's); a
// row's recurrence needs only that row, so no block waits for another (no grid-wide barrier). Per step the block's threads form its
// rows of gh = h_prev·Rᵀ (summed in Acc<T>, k = 0, 1, ..., H − 1, stored as T like the GEMM's
// output), then run the step kernel's row function on each row, with a barrier after each phase.
// `kind`: 0 rnn_relu/rnn_tanh, 1 lstm, 2 gru.
template <typename T>
__device__ void persistent_layer(const T* __restrict__ gx, T* __restrict__ gh, const T* __restrict__ params,
                                 T* __restrict__ work, const int* __restrict__ lengths, long long steps, long long B,
                                 long long H, long long gates, long long kind, long long relu, long long rofs,
                                 long long layer_w, long long bofs, long long acts_ofs, long long hs_ofs,
                                 long long cs_ofs, long long pl_size) {
  typedef typename crnn::Acc<T>::type A;
  constexpr int kRows = 4;
  const long long b0 = static_cast<long long>(blockIdx.x) * kRows;
  const long long rows = B - b0 < kRows ? B - b0 : kRows, G = gates * H;
  if (rows <= 0) return;  // (the whole block: no barrier is left waiting)
  const long long d = blockIdx.y, pl = d * pl_size;
  gx += d * steps * B * G;
  gh += d * B * G;
  bofs += d * 2 * G;
  acts_ofs += pl;
  hs_ofs += pl;
  cs_ofs += pl;
  const T* __restrict__ R = params + rofs + d * layer_w;  // [G, H]: gate row c's weights on h
  for (long long s = 0; s < steps; ++s) {
    const long long t = s + d * (steps - 1 - 2 * s);
    const T* __restrict__ h_prev = work + hs_ofs + (t + d) * B * H;
    // a thread per gate column c, for all the block's rows at once: each weight read once per step
    // (the rows' h_prev values are the same address across the warp: broadcasts)
    for (long long c = threadIdx.x; c < G; c += blockDim.x) {
      A sum[kRows];
#pragma unroll
      for (int r = 0; r < kRows; ++r) sum[r] = A(0);
      for (long long k = 0; k < H; ++k) {
        const A w = crnn::load(R + c * H + k);
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
          if (r < rows) sum[r] += crnn::load(h_prev + (b0 + r) * H + k) * w;
        }
      }
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        if (r < rows && t < lengths[b0 + r]) crnn::store(gh + (b0 + r) * G + c, sum[r]);  // (else unread)
      }
    }
    __syncthreads();  // the rows of gh are in place
    for (long long r = 0; r < rows; ++r) {
      if (kind == 1) {
        crnn::lstm_row(b0 + r, gx, gh, params, work, lengths, t, d, B, H, H, 0LL, bofs, acts_ofs, hs_ofs, cs_ofs, 0LL,
                       crnn::whole_row(H));
      } else if (kind == 2) {
        crnn::gru_row(b0 + r, gx, gh, params, work, lengths, t, d, B, H, bofs, acts_ofs, hs_ofs, crnn::whole_row(H));
      } else {
        crnn::rnn_row(b0 + r, gx, gh, params, work, lengths, t, d, B, H, bofs, hs_ofs, relu, crnn::whole_row(H));
      }
    }
    __syncthreads();  // the states of step t are in place before the next step reads them
  }
}

namespace crnn {

// The fused steps' tiles (issue 23 item 1): a block takes 32 batch rows × 32 units of a step, its
// recurrent products through opgen::matmul_tile (kernels/_matmul.cuh; 256 threads in the GPU form,
// a 2×2 piece of each tile per thread) and then the gate math of those cells, so the gates never
// make a round trip through a separate kernel. The launch plans size their grids to match:
// [ceildiv(batch, 32), ceildiv(units, 32), directions] and 256 threads.
typedef opgen::MatmulTiles<32, 32, 16, 2, 2> StepTiles;

// Whether any of the block's rows (its tile's, blockIdx.x) is valid at time t: opgen::tile_any_row.
__device__ __forceinline__ bool tile_rows_live(const int* __restrict__ lengths, long long t, long long B) {
  return opgen::tile_any_row<StepTiles>(B, blockIdx.x, [=](long long b) { return t < lengths[b]; });
}

// The cells of the block's tile of [B, n] (blockIdx.x, .y), through opgen::for_each_tile_cell:
// f(b, j0, j1) takes units [j0, j1) of row b itself (a whole row on thread 0 in the host form, one
// unit on a thread of its own on the GPU): the row functions' span is cell_span(j0, j1).
template <typename F>
__device__ __forceinline__ void tile_cells(long long B, long long n, const F& f) {
  opgen::for_each_tile_cell<StepTiles>(B, n, blockIdx.x, blockIdx.y, f);
}
__device__ __forceinline__ Span cell_span(long long j0, long long j1) { return Span{j0, j1, false}; }

}  // namespace crnn

// The fused variant of one time step s of every direction of a layer (the launch plan's `fused` let:
// the GPU's plan where the persistent variant does not apply). Grid [ceildiv(B, 32), ceildiv(H, 32),
// D]: direction d = blockIdx.z at time t = s (forward) or T − 1 − s (backward), rows and units by
// blockIdx.x and .y. Per block: gh's tile of each gate, h_prev·R_gᵀ (opgen::matmul_tile: summed in
// Acc<T> in order k = 0, 1, ..., Hh − 1, stored as T, as the GEMM's output is), a barrier, then the step
// kernel's row function on the tile's cells. gx and gh hold a slot per direction ([D, T·B, G·H] and
// [D, B, G·H]); the pseudo-layer of direction d lies d·pl_size after direction 0's offsets, its
// weights d·layer_w after, its biases d·2·G·H after. `kind`: 0 rnn_relu/rnn_tanh, 1 lstm, 2 gru. With
// a projection (lstm) the row function writes m = o∘tanh(c) and fused_proj forms h.
template <typename T>
__device__ void fused_step(const T* __restrict__ gx, T* __restrict__ gh, const T* __restrict__ params,
                           T* __restrict__ work, const int* __restrict__ lengths, long long s, long long steps,
                           long long B, long long H, long long Hh, long long gates, long long kind, long long relu,
                           long long proj, long long rofs, long long layer_w, long long bofs, long long acts_ofs,
                           long long hs_ofs, long long cs_ofs, long long ms_ofs, long long pl_size) {
  const long long d = blockIdx.z, t = s + d * (steps - 1 - 2 * s), G = gates * H;
  if (opgen::tile_outside<crnn::StepTiles>(B, H, blockIdx.x, blockIdx.y)) return;  // (before any barrier)
  const long long pl = d * pl_size, bofs_d = bofs + d * 2 * G;
  const T* __restrict__ gx_d = gx + d * steps * B * G;
  T* __restrict__ gh_d = gh + d * B * G;
  if (crnn::tile_rows_live(lengths, t, B)) {
    const T* __restrict__ R = params + rofs + d * layer_w;  // [G, Hh]: gate row c's weights on h
    // the gates' products share h_prev: its panel loaded once for all of them (R_g a gate's H rows on)
    const auto h_prev = opgen::matrix_in(work + hs_ofs + pl + (t + d) * B * Hh, Hh);
    const int n_gates = static_cast<int>(gates);  // int32 ok: 1, 3 or 4
    opgen::matmul_tile_groups<crnn::StepTiles, 4>(B, H, Hh, h_prev, opgen::matrix_in(R, Hh, true),
                                                  opgen::matrix_out(gh_d, G), false, blockIdx.x, blockIdx.y, n_gates,
                                                  H * Hh, H);
  }
  __syncthreads();  // the tile of gh is in place (rows past their end leave it unread)
  crnn::tile_cells(B, H, [=](long long b, long long j0, long long j1) {  // (by value: as persistent_layer's)
    const crnn::Span span = crnn::cell_span(j0, j1);
    if (kind == 1) {
      crnn::lstm_row(b, gx_d, gh_d, params, work, lengths, t, d, B, H, Hh, proj, bofs_d, acts_ofs + pl,
                     hs_ofs + pl, cs_ofs + pl, ms_ofs + pl, span);
    } else if (kind == 2) {
      crnn::gru_row(b, gx_d, gh_d, params, work, lengths, t, d, B, H, bofs_d, acts_ofs + pl, hs_ofs + pl, span);
    } else {
      crnn::rnn_row(b, gx_d, gh_d, params, work, lengths, t, d, B, H, bofs_d, hs_ofs + pl, relu, span);
    }
  });
}

// With a projection, after fused_step: h = m·P_projᵀ for step s of every direction (the GEMM and
// proj_carry of the unfused steps in one launch). Grid [ceildiv(B, 32), ceildiv(Hh, 32), D]; rows
// past their end keep their previous h.
template <typename T>
__device__ void fused_proj(const T* __restrict__ params, T* __restrict__ work, const int* __restrict__ lengths,
                           long long s, long long steps, long long B, long long H, long long Hh, long long pofs,
                           long long layer_w, long long hs_ofs, long long ms_ofs, long long pl_size) {
  const long long d = blockIdx.z, t = s + d * (steps - 1 - 2 * s);
  if (opgen::tile_outside<crnn::StepTiles>(B, Hh, blockIdx.x, blockIdx.y)) return;  // (before any barrier)
  T* __restrict__ hs = work + hs_ofs + d * pl_size;
  T* __restrict__ h_next = hs + (t + 1 - d) * B * Hh;
  const T* __restrict__ h_prev = hs + (t + d) * B * Hh;
  if (crnn::tile_rows_live(lengths, t, B)) {
    const T* __restrict__ m = work + ms_ofs + d * pl_size + t * B * H;
    opgen::matmul_tile<crnn::StepTiles>(B, Hh, H, opgen::matrix_in(m, H),
                                        opgen::matrix_in(params + pofs + d * layer_w, H, true),
                                        opgen::matrix_out(h_next, Hh), false, blockIdx.x, blockIdx.y);
  }
  __syncthreads();  // the tile of h is in place
  crnn::tile_cells(B, Hh, [=](long long b, long long j0, long long j1) {
    const crnn::Span span = crnn::cell_span(j0, j1);
    if (t >= lengths[b]) crnn::span_each(span, [&](long long j) { h_next[b * Hh + j] = h_prev[b * Hh + j]; });
  });
}

// output_h[p] (and output_c[p]) from the final slot (1 − d)·T.
template <typename T>
__device__ void final_state(T* __restrict__ output_h, T* __restrict__ output_c, const T* __restrict__ work,
                            long long p, long long d, long long LD, long long T_, long long B, long long Hh,
                            long long H, long long hs_ofs, long long cs_ofs, long long lstm, int time_major) {
  const long long nh = B * Hh, slot = (1 - d) * T_;
  crnn::each(nh + lstm * B * H, [&](long long i) {
    if (i < nh) {
      const long long b = i / Hh, j = i - b * Hh;
      output_h[crnn::state_index(time_major, p, b, j, LD, B, Hh)] = work[hs_ofs + slot * nh + i];
    } else {
      const long long k = i - nh, b = k / H, j = k - b * H;
      output_c[crnn::state_index(time_major, p, b, j, LD, B, H)] = work[cs_ofs + slot * B * H + k];
    }
  });
}

// Layer l's output [T, B, D·Hh] (forward | backward, zero past each sequence's end) from its h
// slots: for the last layer into `output` in the caller's layout, else (times the dropout mask
// when training with dropout > 0) into work at x_ofs as the next layer's input, the mask at
// x_ofs + T·B·D·Hh. Rows q = (t·B + b)·D + d of Hh elements: element j of row q is flat index
// q·Hh + j, so the host form copies whole rows.
template <typename T>
__device__ void layer_output(T* __restrict__ work, T* __restrict__ output, const int* __restrict__ lengths,
                             long long l, long long L, long long D, long long T_, long long B, long long Hh,
                             long long hs_ofs, long long pl_size, long long x_ofs, float dropout, long long seed,
                             long long seed2, int is_training, int time_major) {
  typedef typename crnn::Acc<T>::type A;
  const long long W = D * Hh, n = T_ * B * W;
  const bool last = l == L - 1, drop = is_training && dropout > 0.f && !last;
  const unsigned long long key =
      crnn::mix64(crnn::mix64(static_cast<unsigned long long>(seed)) ^
                  (static_cast<unsigned long long>(seed2) + static_cast<unsigned long long>(l + 1) * 0xD1B54A32D192ED03ULL));
  const float scale = 1.f / (1.f - dropout);
  opgen::for_each_row(T_ * B * D, [&](long long q) {
    const long long r = q / D, d = q - r * D, t = r / B, b = r - t * B;
    const T* __restrict__ h = work + hs_ofs + d * pl_size + ((t + 1 - d) * B + b) * Hh;
    const bool valid = t < lengths[b];
    const long long base = q * Hh;  // the flat index of element 0
    if (last) {
      T* __restrict__ o = output + (time_major ? base : (b * T_ + t) * W + d * Hh);
      if (valid) opgen::row_for_each(Hh, [&](long long j) { o[j] = h[j]; });
      else opgen::row_for_each(Hh, [&](long long j) { crnn::store(o + j, A(0)); });
      return;
    }
    T* __restrict__ x = work + x_ofs + base;
    T* __restrict__ mask_out = work + x_ofs + n + base;
    if (!drop) {
      opgen::row_for_each(Hh, [&](long long j) {
        crnn::store(x + j, valid ? crnn::load(h + j) : A(0));
        crnn::store(mask_out + j, A(1));
      });
      return;
    }
    opgen::row_for_each(Hh, [&](long long j) {
      const unsigned long long z =
          crnn::mix64(key + static_cast<unsigned long long>(base + j + 1) * 0x9E3779B97F4A7C15ULL);
      const float u = static_cast<float>(z >> 40) * (1.f / 16777216.f);
      const A mask = u >= dropout ? A(scale) : A(0);
      crnn::store(x + j, (valid ? crnn::load(h + j) : A(0)) * mask);
      crnn::store(mask_out + j, mask);
    });
  });
}

// ---------------------------------------------------------------------------------- backward --

// dy [T, B, D·Hh] (time-major) from output_backprop, zero past each sequence's end; a row
// (t, b) of W elements at a time.
template <typename T>
__device__ void grad_output_in(const T* __restrict__ output_backprop, T* __restrict__ dy,
                               const int* __restrict__ lengths, long long T_, long long B, long long W,
                               int time_major) {
  typedef typename crnn::Acc<T>::type A;
  opgen::for_each_row(T_ * B, [&](long long r) {
    const long long t = r / B, b = r - t * B;
    T* __restrict__ o = dy + r * W;
    if (t >= lengths[b]) {
      opgen::row_for_each(W, [&](long long k) { crnn::store(o + k, A(0)); });
      return;
    }
    const T* __restrict__ s = output_backprop + (time_major ? r : b * T_ + t) * W;
    opgen::row_for_each(W, [&](long long k) { o[k] = s[k]; });
  });
}

template <typename T>
__device__ void fill_ones(T* __restrict__ ones, long long n) {
  typedef typename crnn::Acc<T>::type A;
  crnn::each(n, [&](long long i) { crnn::store(ones + i, A(1)); });
}

// rt = R_dᵀ ([Hh, G]) of direction d = blockIdx.y, from R_d ([G, Hh]) at rofs + d·layer_w: the cpu plan's
// per-step product h·Rᵀ then reads its B untransposed, which OpenBLAS's SkylakeX kernels run faster at
// [32, 256]·[256, 1024] (~210 against ~307 µs); NN sums in another order than NT for some sizes, so the
// bits move within the op's ULP bounds (bench/RESULTS.md, 2026-11-30 04:40).
template <typename T>
__device__ void transpose_r(const T* __restrict__ params, T* __restrict__ rt, long long rofs, long long layer_w,
                            long long G, long long Hh) {
  const long long d = blockIdx.y;
  opgen::transpose_into(params + rofs + d * layer_w, rt + d * G * Hh, G, Hh);
}

// buf[to + i] = buf[from + i] for i < n (the spans apart). Outside gru both bias gradients of a
// pseudo-layer are 1ᵀ·dG of the same dG: the second is a copy of the first product rather than the
// same GEMM again (a [1, G·H] product over every step: ~0.3–0.6 ms on the cpu, a copy ~1 µs).
template <typename T>
__device__ void copy_span(T* __restrict__ buf, long long from, long long to, long long n) {
  crnn::each(n, [&](long long i) { buf[to + i] = buf[from + i]; });
}

// The carried gradients of direction d (its slots of dh and dc) start from output_h_backprop[p]
// (and output_c_backprop[p]).
template <typename T>
__device__ void init_grad(const T* __restrict__ output_h_backprop, const T* __restrict__ output_c_backprop,
                          T* __restrict__ dh_slots, T* __restrict__ dc_slots, long long p, long long d, long long LD,
                          long long B, long long Hh, long long H, long long lstm, int time_major) {
  T* __restrict__ dh = dh_slots + d * B * Hh;
  T* __restrict__ dc = dc_slots + lstm * d * B * H;
  const long long nh = B * Hh;
  crnn::each(nh + lstm * B * H, [&](long long i) {
    if (i < nh) {
      const long long b = i / Hh, j = i - b * Hh;
      dh[i] = output_h_backprop[crnn::state_index(time_major, p, b, j, LD, B, Hh)];
    } else {
      const long long k = i - nh, b = k / H, j = k - b * H;
      dc[k] = output_c_backprop[crnn::state_index(time_major, p, b, j, LD, B, H)];
    }
  });
}

// input_h_backprop[p] (and input_c_backprop[p]) from direction d's carried gradients.
template <typename T>
__device__ void final_grad(const T* __restrict__ dh_slots, const T* __restrict__ dc_slots,
                           T* __restrict__ input_h_backprop, T* __restrict__ input_c_backprop, long long p, long long d,
                           long long LD, long long B, long long Hh, long long H, long long lstm, int time_major) {
  const T* __restrict__ dh = dh_slots + d * B * Hh;
  const T* __restrict__ dc = dc_slots + lstm * d * B * H;
  const long long nh = B * Hh;
  crnn::each(nh + lstm * B * H, [&](long long i) {
    if (i < nh) {
      const long long b = i / Hh, j = i - b * Hh;
      input_h_backprop[crnn::state_index(time_major, p, b, j, LD, B, Hh)] = dh[i];
    } else {
      const long long k = i - nh, b = k / H, j = k - b * H;
      input_c_backprop[crnn::state_index(time_major, p, b, j, LD, B, H)] = dc[k];
    }
  });
}

namespace crnn {

// With a projection h = P_proj·m, element j of a row b at time t (`live`: t < len[b]; the rows of
// direction d's slots): dhp[t] = dh + dy[t] for valid sequences (then dh = 0: the recurrent product
// refills it), 0 elsewhere (dh carried on unchanged). proj_grad and fused_proj_cells share it.
template <typename T>
__device__ __forceinline__ void proj_grad_cell(long long j, bool live, const T* __restrict__ dy_row,
                                               T* __restrict__ dhp_row, T* __restrict__ dh_row) {
  typedef typename crnn::Acc<T>::type A;
  crnn::store(dhp_row + j, live ? crnn::load(dh_row + j) + crnn::load(dy_row + j) : A(0));
  if (live) crnn::store(dh_row + j, A(0));
}

}  // namespace crnn

namespace crnn {

// The time of the backward's launch s in direction d: last first forward, first first backward.
__device__ __forceinline__ long long grad_time(long long s, long long steps, long long d) {
  return (steps - 1 - s) * (1 - d) + s * d;
}

}  // namespace crnn

// proj_grad_cell on every element of direction d = blockIdx.y's slots at launch s (crnn::grad_time;
// grid [cell_blocks, D], with the GEMMs of the unfused steps).
template <typename T>
__device__ void proj_grad(const T* __restrict__ dy, T* __restrict__ dhp_slots, T* __restrict__ dh_slots,
                          const int* __restrict__ lengths, long long s, long long B, long long Hh, long long D,
                          long long steps) {
  const long long d = blockIdx.y, t = crnn::grad_time(s, steps, d);
  T* __restrict__ dhp = dhp_slots + d * steps * B * Hh;
  T* __restrict__ dh = dh_slots + d * B * Hh;
  crnn::each(B * Hh, [&](long long i) {
    const long long b = i / Hh;
    crnn::proj_grad_cell(i - b * Hh, t < lengths[b], dy + ((t * B + b) * D + d) * Hh, dhp + (t * B + b) * Hh,
                         dh + b * Hh);
  });
}

namespace crnn {

// Row b of lstm_grad_step (below), by the block's threads: the step kernel and the persistent one share it.
template <typename T>
__device__ __forceinline__ void lstm_grad_row(long long b, const T* __restrict__ dy, const T* __restrict__ dm,
                                              const T* __restrict__ reserve, const int* __restrict__ lengths,
                                              T* __restrict__ dg, T* __restrict__ dh, T* __restrict__ dc, long long t,
                                              long long d, long long B, long long H, long long Hh, long long D,
                                              long long proj, long long acts_ofs, long long cs_ofs, Span span) {
  typedef typename crnn::Acc<T>::type A;
  const long long prev = t + d, next = t + 1 - d;
  T* __restrict__ g = dg + (t * B + b) * 4 * H;
  if (t >= lengths[b]) {
    crnn::span_each(span, [&](long long j) {
      for (int q = 0; q < 4; ++q) crnn::store(g + q * H + j, A(0));
    });
    return;
  }
  const T* __restrict__ acts = reserve + acts_ofs + (t * B + b) * 4 * H;
  const T* __restrict__ c_prev = reserve + cs_ofs + (prev * B + b) * H;
  const T* __restrict__ c_next = reserve + cs_ofs + (next * B + b) * H;
  const T* __restrict__ y = dy + (t * B + b) * D * Hh + d * Hh;
  const T* __restrict__ dmr = dm + b * H;
  T* __restrict__ dhr = dh + b * H;
  T* __restrict__ dcr = dc + b * H;
  crnn::row_runs(span, [&](long long j, CRNN_RUN run) {
    constexpr int R = decltype(run)::n;
    A tc[R], mg[R], gi[R], gf[R], gc[R], go[R], dcn[R];
    CRNN_UNROLL for (int q = 0; q < R; ++q) tc[q] = crnn::load(c_next + j + q);
    crnn::tanh_run(tc);
    if (proj) {  // (the choice outside the run's loop: a branch in it keeps the host form scalar)
      CRNN_UNROLL for (int q = 0; q < R; ++q) mg[q] = crnn::load(dmr + j + q);
    } else {
      CRNN_UNROLL for (int q = 0; q < R; ++q) mg[q] = crnn::load(dhr + j + q) + crnn::load(y + j + q);
    }
    CRNN_UNROLL for (int q = 0; q < R; ++q) {
      const long long k = j + q;
      const A ig = crnn::load(acts + k), fg = crnn::load(acts + H + k), cg = crnn::load(acts + 2 * H + k),
              og = crnn::load(acts + 3 * H + k);
      const A m_grad = mg[q];
      const A dct = crnn::load(dcr + k) + m_grad * og * (A(1) - tc[q] * tc[q]);
      gi[q] = dct * cg * ig * (A(1) - ig);
      gf[q] = dct * crnn::load(c_prev + k) * fg * (A(1) - fg);
      gc[q] = dct * ig * (A(1) - cg * cg);
      go[q] = m_grad * tc[q] * og * (A(1) - og);
      dcn[q] = dct * fg;
    }
    crnn::store_run(g + j, gi);
    crnn::store_run(g + H + j, gf);
    crnn::store_run(g + 2 * H + j, gc);
    crnn::store_run(g + 3 * H + j, go);
    crnn::store_run(dcr + j, dcn);
    if (!proj) {
      CRNN_UNROLL for (int q = 0; q < R; ++q) crnn::store(dhr + j + q, A(0));
    }
  });
}

}  // namespace crnn

// LSTM step gradient at time t: from dm (dh + dy[t], or, with a projection, dhp[t]·P_proj) and
// the carried dc, the pre-activation gradients dg[t] = [di | df | dc̃ | do] (both the W and the R
// side), and the carried dc = dc_t∘f; dh restarts from 0 (the GEMM dh += dg[t]·R follows). Whole
// rows (sequences b) per block, as in lstm_step; launch s of every direction: grid [row_blocks, D],
// direction d = blockIdx.y at time crnn::grad_time(s, steps, d), its pseudo-layer d·pl_size after
// direction 0's offsets, its slots of dg, dh, dc (and dm) d slots on.
template <typename T>
__device__ void lstm_grad_step(const T* __restrict__ dy, const T* __restrict__ dm, const T* __restrict__ reserve,
                               const int* __restrict__ lengths, T* __restrict__ dg, T* __restrict__ dh,
                               T* __restrict__ dc, long long s, long long B, long long H, long long Hh, long long D,
                               long long proj, long long acts_ofs, long long cs_ofs, long long steps,
                               long long pl_size) {
  const long long d = blockIdx.y, t = crnn::grad_time(s, steps, d), pl = d * pl_size;
  T* __restrict__ dg_d = dg + d * steps * B * 4 * H;
  T* __restrict__ dh_d = dh + d * B * Hh;
  T* __restrict__ dc_d = dc + d * B * H;
  const T* __restrict__ dm_d = dm + proj * d * B * H;
  opgen::for_each_row(B, [&](long long b) {
    crnn::lstm_grad_row(b, dy, dm_d, reserve, lengths, dg_d, dh_d, dc_d, t, d, B, H, Hh, D, proj, acts_ofs + pl,
                        cs_ofs + pl, crnn::whole_row(H));
  });
}

namespace crnn {

// Row b of gru_grad_step (below), by the block's threads.
template <typename T>
__device__ __forceinline__ void gru_grad_row(long long b, const T* __restrict__ dy, const T* __restrict__ reserve,
                                             const int* __restrict__ lengths, T* __restrict__ dgw, T* __restrict__ dgr,
                                             T* __restrict__ dh, long long t, long long d, long long B, long long H,
                                             long long D, long long acts_ofs, long long hs_ofs, Span span) {
  typedef typename crnn::Acc<T>::type A;
  const long long prev = t + d;
  T* __restrict__ gw = dgw + (t * B + b) * 3 * H;
  T* __restrict__ gr = dgr + (t * B + b) * 3 * H;
  if (t >= lengths[b]) {
    crnn::span_each(span, [&](long long j) {
      for (int q = 0; q < 3; ++q) {
        crnn::store(gw + q * H + j, A(0));
        crnn::store(gr + q * H + j, A(0));
      }
    });
    return;
  }
  const T* __restrict__ acts = reserve + acts_ofs + (t * B + b) * 4 * H;
  const T* __restrict__ y = dy + (t * B + b) * D * H + d * H;
  const T* __restrict__ h_prev = reserve + hs_ofs + (prev * B + b) * H;
  T* __restrict__ dhr = dh + b * H;
  crnn::row_runs(span, [&](long long j, CRNN_RUN run) {
    constexpr int R = decltype(run)::n;
    A dr[R], du[R], dn[R], dnr[R], dhn[R];
    CRNN_UNROLL for (int q = 0; q < R; ++q) {
      const long long k = j + q;
      const A r = crnn::load(acts + k), u = crnn::load(acts + H + k), n = crnn::load(acts + 2 * H + k),
              hn = crnn::load(acts + 3 * H + k);
      const A grad = crnn::load(dhr + k) + crnn::load(y + k);
      dn[q] = grad * (A(1) - u) * (A(1) - n * n);
      dr[q] = dn[q] * hn * r * (A(1) - r);
      du[q] = grad * (crnn::load(h_prev + k) - n) * u * (A(1) - u);
      dnr[q] = dn[q] * r;
      dhn[q] = grad * u;
    }
    crnn::store_run(gw + j, dr);
    crnn::store_run(gw + H + j, du);
    crnn::store_run(gw + 2 * H + j, dn);
    crnn::store_run(gr + j, dr);
    crnn::store_run(gr + H + j, du);
    crnn::store_run(gr + 2 * H + j, dnr);
    crnn::store_run(dhr + j, dhn);
  });
}

}  // namespace crnn

// GRU step gradient at time t: dgw[t] = [dr | du | dn] (the W side), dgr[t] = [dr | du | dn∘r]
// (the R side), and the direct part of dh_prev, dh∘u. Launch s and rows as in lstm_grad_step.
template <typename T>
__device__ void gru_grad_step(const T* __restrict__ dy, const T* __restrict__ reserve, const int* __restrict__ lengths,
                              T* __restrict__ dgw, T* __restrict__ dgr, T* __restrict__ dh, long long s, long long B,
                              long long H, long long D, long long acts_ofs, long long hs_ofs, long long steps,
                              long long pl_size) {
  const long long d = blockIdx.y, t = crnn::grad_time(s, steps, d), pl = d * pl_size;
  const long long slot = d * steps * B * 3 * H;
  T* __restrict__ dh_d = dh + d * B * H;
  opgen::for_each_row(B, [&](long long b) {
    crnn::gru_grad_row(b, dy, reserve, lengths, dgw + slot, dgr + slot, dh_d, t, d, B, H, D, acts_ofs + pl,
                       hs_ofs + pl, crnn::whole_row(H));
  });
}

namespace crnn {

// Row b of rnn_grad_step (below), by the block's threads.
template <typename T>
__device__ __forceinline__ void rnn_grad_row(long long b, const T* __restrict__ dy, const T* __restrict__ reserve,
                                             const int* __restrict__ lengths, T* __restrict__ dg, T* __restrict__ dh,
                                             long long t, long long d, long long B, long long H, long long D,
                                             long long hs_ofs, long long relu, Span span) {
  typedef typename crnn::Acc<T>::type A;
  const long long next = t + 1 - d;
  T* __restrict__ g = dg + (t * B + b) * H;
  if (t >= lengths[b]) {
    crnn::span_each(span, [&](long long j) { crnn::store(g + j, A(0)); });
    return;
  }
  const T* __restrict__ hs = reserve + hs_ofs + (next * B + b) * H;
  const T* __restrict__ y = dy + (t * B + b) * D * H + d * H;
  T* __restrict__ dhr = dh + b * H;
  crnn::row_runs(span, [&](long long j, CRNN_RUN run) {
    constexpr int R = decltype(run)::n;
    A out[R];
    CRNN_UNROLL for (int q = 0; q < R; ++q) {
      const A h = crnn::load(hs + j + q);
      const A grad = crnn::load(dhr + j + q) + crnn::load(y + j + q);
      out[q] = relu ? (h > A(0) ? grad : A(0)) : grad * (A(1) - h * h);
    }
    CRNN_UNROLL for (int q = 0; q < R; ++q) {
      crnn::store(g + j + q, out[q]);
      crnn::store(dhr + j + q, A(0));
    }
  });
}

}  // namespace crnn

// rnn_relu / rnn_tanh step gradient: dg[t] = (dh + dy[t])∘act'(h), dh restarts from 0. Launch s and
// rows as in lstm_grad_step.
template <typename T>
__device__ void rnn_grad_step(const T* __restrict__ dy, const T* __restrict__ reserve, const int* __restrict__ lengths,
                              T* __restrict__ dg, T* __restrict__ dh, long long s, long long B, long long H,
                              long long D, long long hs_ofs, long long relu, long long steps, long long pl_size) {
  const long long d = blockIdx.y, t = crnn::grad_time(s, steps, d);
  T* __restrict__ dg_d = dg + d * steps * B * H;
  T* __restrict__ dh_d = dh + d * B * H;
  opgen::for_each_row(B, [&](long long b) {
    crnn::rnn_grad_row(b, dy, reserve, lengths, dg_d, dh_d, t, d, B, H, D, hs_ofs + d * pl_size, relu,
                       crnn::whole_row(H));
  });
}

// The gradient's persistent variant of one layer, every direction (the launch plan's `persistent`
// variant, as persistent_layer's): every time step, last first, in one launch. Grid [ceildiv(B, 4),
// D]: block (r, d) takes batch rows [4r, 4r + 4) of direction d = blockIdx.y (its pseudo-layer
// d·pl_size after direction 0's offsets, its weights d·layer_w after, its slots of dG, dh, dc). Per step the block runs the step gradient's row function on each row, `grad_row(b,
// t)` (dG[t] and the carried dc; dh restarts from its direct part), then adds dh += dG[t]·R for its
// rows (summed in Acc<T>, c = 0, 1, ..., G − 1, the old dh added to the sum and rounded once, as the
// GEMM with beta 1 does), a barrier after each phase. Rows past their end have dG[t] = 0: their dh
// stays as it is. `g_side`: the R side of dG (dgr for GRU, else dgw). One kernel per mode below (a
// kernel holding all three row functions spilled registers for float16).
namespace crnn {

template <typename T, typename F>
__device__ __forceinline__ void persistent_grad(const F& grad_row, const T* __restrict__ g_side,
                                                const int* __restrict__ lengths, T* __restrict__ dh,
                                                const T* __restrict__ params, long long d, long long steps,
                                                long long B, long long H, long long gates, long long rofs) {
  typedef typename crnn::Acc<T>::type A;
  constexpr int kRows = 4;
  const long long b0 = static_cast<long long>(blockIdx.x) * kRows;
  const long long rows = B - b0 < kRows ? B - b0 : kRows, G = gates * H;
  if (rows <= 0) return;  // (the whole block: no barrier is left waiting)
  const T* __restrict__ R = params + rofs;  // [G, H]
  for (long long s = 0; s < steps; ++s) {
    const long long t = crnn::grad_time(s, steps, d);
    for (long long r = 0; r < rows; ++r) grad_row(b0 + r, t);
    __syncthreads();  // dG[t] and the direct part of dh are in place
    // a thread per unit k, for all the block's rows at once: each weight read once per step, the
    // lanes of a warp reading consecutive ones (the rows' dG values are broadcasts); int indices
    // where the rule bounds them (with long long ones NVRTC spilled registers here)
    const int h = static_cast<int>(H);  // int32 ok: the persistent rule keeps H·G ≤ 65536
    const int g_len = static_cast<int>(G);  // int32 ok: as H
    const T* __restrict__ g_rows = g_side + (t * B + b0) * G;
    for (int k = threadIdx.x; k < h; k += blockDim.x) {
      A sum[kRows];
#pragma unroll
      for (int r = 0; r < kRows; ++r) sum[r] = A(0);
      for (int c = 0; c < g_len; ++c) {
        const A w = crnn::load(R + static_cast<long long>(c) * h + k);
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
          if (r < rows) sum[r] += crnn::load(g_rows + r * G + c) * w;
        }
      }
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        const long long b = b0 + r;
        if (r < rows && t < lengths[b]) crnn::store(dh + b * H + k, sum[r] + crnn::load(dh + b * H + k));
      }
    }
    __syncthreads();  // dh for the next step is in place
  }
}

}  // namespace crnn

template <typename T>
__device__ void persistent_lstm_grad(const T* __restrict__ dy, const T* __restrict__ reserve,
                                     const int* __restrict__ lengths, T* __restrict__ dgw, T* __restrict__ dh,
                                     T* __restrict__ dc, const T* __restrict__ dm, const T* __restrict__ params,
                                     long long steps, long long B, long long H, long long D, long long rofs,
                                     long long layer_w, long long acts_ofs, long long cs_ofs, long long pl_size) {
  const long long d = blockIdx.y;
  rofs += d * layer_w;
  acts_ofs += d * pl_size;
  cs_ofs += d * pl_size;
  T* __restrict__ dg_d = dgw + d * steps * B * 4 * H;  // direction d's slots
  T* __restrict__ dh_d = dh + d * B * H;
  T* __restrict__ dc_d = dc + d * B * H;
  crnn::persistent_grad(
      [=](long long b, long long t) {  // (by value: a captured reference spilled to local memory)
        crnn::lstm_grad_row(b, dy, dm, reserve, lengths, dg_d, dh_d, dc_d, t, d, B, H, H, D, 0LL, acts_ofs, cs_ofs,
                            crnn::whole_row(H));
      },
      dg_d, lengths, dh_d, params, d, steps, B, H, 4LL, rofs);
}

template <typename T>
__device__ void persistent_gru_grad(const T* __restrict__ dy, const T* __restrict__ reserve,
                                    const int* __restrict__ lengths, T* __restrict__ dgw, T* __restrict__ dgr,
                                    T* __restrict__ dh, const T* __restrict__ params, long long steps, long long B,
                                    long long H, long long D, long long rofs, long long layer_w, long long acts_ofs,
                                    long long hs_ofs, long long pl_size) {
  const long long d = blockIdx.y;
  rofs += d * layer_w;
  acts_ofs += d * pl_size;
  hs_ofs += d * pl_size;
  const long long slot = d * steps * B * 3 * H, dh_slot = d * B * H;  // direction d's slots
  crnn::persistent_grad(
      [=](long long b, long long t) {  // (by value: a captured reference spilled to local memory)
        crnn::gru_grad_row(b, dy, reserve, lengths, dgw + slot, dgr + slot, dh + dh_slot, t, d, B, H, D, acts_ofs,
                           hs_ofs, crnn::whole_row(H));
      },
      dgr + slot, lengths, dh + dh_slot, params, d, steps, B, H, 3LL, rofs);
}

template <typename T>
__device__ void persistent_rnn_grad(const T* __restrict__ dy, const T* __restrict__ reserve,
                                    const int* __restrict__ lengths, T* __restrict__ dgw, T* __restrict__ dh,
                                    const T* __restrict__ params, long long steps, long long B, long long H,
                                    long long D, long long rofs, long long layer_w, long long hs_ofs, long long relu,
                                    long long pl_size) {
  const long long d = blockIdx.y;
  rofs += d * layer_w;
  hs_ofs += d * pl_size;
  T* __restrict__ dg_d = dgw + d * steps * B * H;  // direction d's slots
  T* __restrict__ dh_d = dh + d * B * H;
  crnn::persistent_grad(
      [=](long long b, long long t) {  // (by value: a captured reference spilled to local memory)
        crnn::rnn_grad_row(b, dy, reserve, lengths, dg_d, dh_d, t, d, B, H, D, hs_ofs, relu, crnn::whole_row(H));
      },
      dg_d, lengths, dh_d, params, d, steps, B, H, 1LL, rofs);
}

// The gradient's fused variant (the launch plan's `fused` let, as fused_step's): one launch per
// time step for every direction of a layer, plus a last one, steps + 1 in all, steps last first as
// in the unfused loop. Grid [ceildiv(B, 32), ceildiv(n, 32), D] as fused_step's (n: the units of the
// tile's product); direction d = blockIdx.z with its slots of dG, dh, dc (and dhp, dm). Launch s of
// a block: a matrix product into its tile (`product()`), a barrier, then a cell function on the
// tile's cells (`cells(b, span)`):
// * no projection (fused_<mode>_grad): the recurrent part of the previous step's gradient,
//   dh += dG[t']·R (t' the time of step s − 1; not in launch 0), then the step gradient's row function
//   at the time t of step s (not in launch `steps`): dG[t] and the carried dc, dh restarting from its
//   direct part;
// * with a projection (lstm), three kernels per launch: fused_lstm_proj_grad's phase 0, dh += dG[t']·R
//   alone (k = G, n = Hh; s > 0); then, for s < steps, fused_proj_cells' proj_grad_cell (dhp[t] = dh +
//   dy[t]) and fused_lstm_proj_grad's phase 1, dm = dhp[t]·P (k = Hh, n = H) and the row function,
//   which reads dm.
// Products through opgen::matmul_tile: summed in Acc<T> in order, stored as T (dh += ...: the old dh
// added to the sum and rounded once, as the GEMM with beta 1 does). A product whose rows have all
// ended is skipped (its dG rows are 0: dh += 0 changes nothing; dm is then unread).
namespace crnn {

template <typename P, typename F>
__device__ __forceinline__ void fused_grad(const P& product, const F& cells, bool has_product, bool has_cells,
                                           const int* __restrict__ lengths, long long product_time, long long B,
                                           long long n) {
  if (opgen::tile_outside<crnn::StepTiles>(B, n, blockIdx.x, blockIdx.y)) return;  // (before any barrier)
  if (has_product && crnn::tile_rows_live(lengths, product_time, B)) product();
  __syncthreads();  // the tile's product is in place
  if (has_cells) crnn::tile_cells(B, n, cells);
}

// dh[d] += dG[d][t]·R_d for the block's tile ([B, n] of dh, k = G): the recurrent part of the
// gradient of step t's input state. `g_side`: dgr for GRU, else dgw.
template <typename T>
__device__ __forceinline__ void recurrent_grad_tile(const T* __restrict__ g_side, T* __restrict__ dh,
                                                    const T* __restrict__ params, long long d, long long t,
                                                    long long steps, long long B, long long n, long long G,
                                                    long long rofs, long long layer_w) {
  opgen::matmul_tile<crnn::StepTiles>(B, n, G, opgen::matrix_in(g_side + (d * steps + t) * B * G, G),
                                      opgen::matrix_in(params + rofs + d * layer_w, n),
                                      opgen::matrix_out(dh + d * B * n, n), true, blockIdx.x, blockIdx.y);
}

}  // namespace crnn

// The fused variant's step gradient of an LSTM without a projection (see above).
template <typename T>
__device__ void fused_lstm_grad(const T* __restrict__ dy, const T* __restrict__ reserve,
                                const int* __restrict__ lengths, T* __restrict__ dgw, T* __restrict__ dh,
                                T* __restrict__ dc, const T* __restrict__ params, long long s, long long steps,
                                long long B, long long H, long long D, long long rofs, long long layer_w,
                                long long acts_ofs, long long cs_ofs, long long pl_size) {
  // (d and t are formed inside each phase: held across the product, they spilled registers for float64)
  crnn::fused_grad(
      [=]() {
        const long long d = blockIdx.z;
        crnn::recurrent_grad_tile(dgw, dh, params, d, crnn::grad_time(s - 1, steps, d), steps, B, H, 4 * H, rofs,
                                  layer_w);
      },
      [=](long long b, long long j0, long long j1) {
        const crnn::Span span = crnn::cell_span(j0, j1);
        const long long d = blockIdx.z;
        crnn::lstm_grad_row(b, dy, dy, reserve, lengths, dgw + d * steps * B * 4 * H, dh + d * B * H,
                            dc + d * B * H, crnn::grad_time(s, steps, d), d, B, H, H, D, 0LL, acts_ofs + d * pl_size,
                            cs_ofs + d * pl_size, span);  // (dm: unread without a projection)
      },
      s > 0, s < steps, lengths, crnn::grad_time(s - 1, steps, blockIdx.z), B, H);
}

// With a projection (see above), by `phase`: the recurrent product alone over [B, Hh] (0), or dm =
// dhp[t]·P and the row function over [B, H] (1). (A kernel for both cases spilled registers under
// NVRTC 13.5, and one for phase 0 alone under NVRTC 13.0 for float64.)
template <typename T>
__device__ void fused_lstm_proj_grad(const T* __restrict__ dy, const T* __restrict__ reserve,
                                     const int* __restrict__ lengths, T* __restrict__ dgw, T* __restrict__ dh,
                                     T* __restrict__ dc, T* __restrict__ dm, const T* __restrict__ dhp,
                                     const T* __restrict__ params, long long s, long long steps, long long B,
                                     long long H, long long Hh, long long D, long long phase, long long rofs,
                                     long long pofs, long long layer_w, long long acts_ofs, long long cs_ofs,
                                     long long pl_size) {
  // (d and t formed inside each phase, as in fused_lstm_grad)
  crnn::fused_grad(
      [=]() {
        const long long d = blockIdx.z;
        if (phase == 1) {
          const long long t = crnn::grad_time(s, steps, d);
          opgen::matmul_tile<crnn::StepTiles>(B, H, Hh, opgen::matrix_in(dhp + (d * steps + t) * B * Hh, Hh),
                                              opgen::matrix_in(params + pofs + d * layer_w, H),
                                              opgen::matrix_out(dm + d * B * H, H), false, blockIdx.x, blockIdx.y);
        } else {
          crnn::recurrent_grad_tile(dgw, dh, params, d, crnn::grad_time(s - 1, steps, d), steps, B, Hh, 4 * H, rofs,
                                    layer_w);
        }
      },
      [=](long long b, long long j0, long long j1) {
        const crnn::Span span = crnn::cell_span(j0, j1);
        const long long d = blockIdx.z;
        crnn::lstm_grad_row(b, dy, dm + d * B * H, reserve, lengths, dgw + d * steps * B * 4 * H, dh + d * B * Hh,
                            dc + d * B * H, crnn::grad_time(s, steps, d), d, B, H, Hh, D, 1LL,
                            acts_ofs + d * pl_size, cs_ofs + d * pl_size, span);
      },
      phase == 1 || s > 0, phase == 1 && s < steps, lengths,
      crnn::grad_time(phase == 1 ? s : s - 1, steps, blockIdx.z), B, phase == 1 ? H : Hh);
}

// With a projection, launch s's second kernel (s < steps; see above): dhp[t] = dh + dy[t] over [B, Hh].
template <typename T>
__device__ void fused_proj_cells(const T* __restrict__ dy, const int* __restrict__ lengths, T* __restrict__ dh,
                                 T* __restrict__ dhp, long long s, long long steps, long long B, long long Hh,
                                 long long D) {
  const long long d = blockIdx.z, t = crnn::grad_time(s, steps, d);
  crnn::fused_grad(
      [=]() {},
      [=](long long b, long long j0, long long j1) {
        const crnn::Span span = crnn::cell_span(j0, j1);
        const bool live = t < lengths[b];
        const T* __restrict__ dy_row = dy + ((t * B + b) * D + d) * Hh;
        T* __restrict__ dhp_row = dhp + ((d * steps + t) * B + b) * Hh;
        T* __restrict__ dh_row = dh + (d * B + b) * Hh;
        crnn::span_each(span, [=](long long j) { crnn::proj_grad_cell(j, live, dy_row, dhp_row, dh_row); });
      },
      false, true, lengths, t, B, Hh);
}

template <typename T>
__device__ void fused_gru_grad(const T* __restrict__ dy, const T* __restrict__ reserve,
                               const int* __restrict__ lengths, T* __restrict__ dgw, T* __restrict__ dgr,
                               T* __restrict__ dh, const T* __restrict__ params, long long s, long long steps,
                               long long B, long long H, long long D, long long rofs, long long layer_w,
                               long long acts_ofs, long long hs_ofs, long long pl_size) {
  const long long d = blockIdx.z;
  const long long t = crnn::grad_time(s, steps, d), t_prev = crnn::grad_time(s - 1, steps, d);
  crnn::fused_grad(
      [=]() { crnn::recurrent_grad_tile(dgr, dh, params, d, t_prev, steps, B, H, 3 * H, rofs, layer_w); },
      [=](long long b, long long j0, long long j1) {
        const crnn::Span span = crnn::cell_span(j0, j1);
        const long long slot = d * steps * B * 3 * H;
        crnn::gru_grad_row(b, dy, reserve, lengths, dgw + slot, dgr + slot, dh + d * B * H, t, d, B, H, D,
                           acts_ofs + d * pl_size, hs_ofs + d * pl_size, span);
      },
      s > 0, s < steps, lengths, t_prev, B, H);
}

template <typename T>
__device__ void fused_rnn_grad(const T* __restrict__ dy, const T* __restrict__ reserve,
                               const int* __restrict__ lengths, T* __restrict__ dgw, T* __restrict__ dh,
                               const T* __restrict__ params, long long s, long long steps, long long B, long long H,
                               long long D, long long rofs, long long layer_w, long long hs_ofs, long long pl_size,
                               long long relu) {
  const long long d = blockIdx.z;
  const long long t = crnn::grad_time(s, steps, d), t_prev = crnn::grad_time(s - 1, steps, d);
  crnn::fused_grad(
      [=]() { crnn::recurrent_grad_tile(dgw, dh, params, d, t_prev, steps, B, H, H, rofs, layer_w); },
      [=](long long b, long long j0, long long j1) {
        const crnn::Span span = crnn::cell_span(j0, j1);
        crnn::rnn_grad_row(b, dy, reserve, lengths, dgw + d * steps * B * H, dh + d * B * H, t, d, B, H, D,
                           hs_ofs + d * pl_size, relu, span);
      },
      s > 0, s < steps, lengths, t_prev, B, H);
}

// skip_input: x fed every gate, so its gradient is the sum of the gates' (added onto the other
// direction's when d > 0).
template <typename T>
__device__ void skip_grad(const T* __restrict__ dg_slots, T* __restrict__ dxt, long long rows, long long gates,
                          long long H, long long d) {
  typedef typename crnn::Acc<T>::type A;
  const T* __restrict__ dg = dg_slots + d * rows * gates * H;
  crnn::each(rows * H, [&](long long i) {
    const long long r = i / H, j = i - r * H;
    A s = d > 0 ? crnn::load(dxt + i) : A(0);
    for (long long q = 0; q < gates; ++q) s += crnn::load(dg + (r * gates + q) * H + j);
    crnn::store(dxt + i, s);
  });
}

// The gradient of the layer below's output: its dropout mask (kept in the reserve space) times
// the gradient of this layer's input.
template <typename T>
__device__ void grad_layer_below(const T* __restrict__ dxl, const T* __restrict__ reserve, T* __restrict__ dy,
                                 long long n, long long mask_ofs) {
  crnn::each(n, [&](long long i) { crnn::store(dy + i, crnn::load(dxl + i) * crnn::load(reserve + mask_ofs + i)); });
}
