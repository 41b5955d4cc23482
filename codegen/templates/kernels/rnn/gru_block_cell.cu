{% include "kernels/_common.cuh" %}
{% include "kernels/_activations.cuh" %}

// GRUBlockCell / GRUBlockCellGrad: the elementwise steps of one GRU time step (the matrix products
// are GEMM steps of the launch plans). Every matrix is row-major: an [B, W] matrix's element
// (b, j) is at b·W + j. Arithmetic is in float; T (float or __half) is the storage type.
//
// Forward:  ru_bar = [x | h_prev]·w_ru              (GEMMs)
//           gates:  r = σ(r_bar + b_r), u = σ(u_bar + b_u), rh = r∘h_prev
//           c_bar = [x | rh]·w_c, into c             (GEMMs)
//           cell:   c = tanh(c_bar + b_c) in place, h = u∘h_prev + (1 − u)∘c
// Gradient: grad_cell:   d_c_bar = d_h∘(1 − u)∘(1 − c²), d_u_bar = d_h∘(h_prev − c)∘u∘(1 − u)
//           [d_x2 | d_hr] = d_c_bar·w_cᵀ             (GEMM)
//           grad_reset:  d_r_bar = d_hr∘h_prev∘r∘(1 − r)
//           [d_x1 | d_h1] = [d_r_bar | d_u_bar]·w_ruᵀ (GEMM)
//           grad_inputs: d_x = d_x1 + d_x2, d_h_prev = d_h1 + d_hr∘r + d_h∘u

namespace gru {

// Grid-stride over a [rows, width] matrix, runs of opgen::kRun adjacent elements per thread
// (kernels/_common.cuh).
using opgen::for_each_cell;

// σ, from the activation library (kernels/_activations.cuh): 1 / (1 + e^(−x)) in float.
using opgen::act::sigmoid;

// tanh of the vector math library (kernels/_activations.cuh, kernels/_vmath.cuh): CUDA's tanhf on
// the GPU; on the cpu backend branch-free code instead of the C library's tanhf (through expm1f,
// about four times the cost of expf, it dominated the cell kernel).
using opgen::act::tanh_fast;

// Values per vector-math run call in the host form: several independent vectors, which the math's
// dependency chains need to fill the pipeline (bench/bench_activation_cpu.py).
constexpr int kRunLength = 4 * opgen::kHostRun;

// r = σ(r_bar + b_r), u = σ(u_bar + b_u) from ru_bar = [r_bar | u_bar] (bias not yet added);
// rh = r∘h_prev, the h_prev part of the next product's left operand, from r as stored (rounded
// to T), as the gradient and the weight gradients see it.
template <typename T>
struct Gates {
  const T* ru_bar;
  const T* b_ru;
  const T* h_prev;
  T* r;
  T* u;
  T* rh;
  long long H;
  __device__ __forceinline__ float r_bar(long long b, long long j) const {
    return opgen::to_float(ru_bar[2 * b * H + j]) + opgen::to_float(b_ru[j]);
  }
  __device__ __forceinline__ float u_bar(long long b, long long j) const {
    return opgen::to_float(ru_bar[2 * b * H + H + j]) + opgen::to_float(b_ru[H + j]);
  }
  __device__ __forceinline__ void put(long long b, long long j, float rv, float uv) const {
    const long long o = b * H + j;
    const T rs = opgen::from_float<T>(rv);
    r[o] = rs;
    u[o] = opgen::from_float<T>(uv);
    rh[o] = opgen::from_float<T>(opgen::to_float(rs) * opgen::to_float(h_prev[o]));
  }
  __device__ __forceinline__ void operator()(long long b, long long j) const {
    put(b, j, sigmoid(r_bar(b, j)), sigmoid(u_bar(b, j)));
  }
  // The host form: row b in runs, σ by the vector math's run form.
  __device__ __forceinline__ void row(long long b) const {
    long long j = 0;
    for (; j + kRunLength <= H; j += kRunLength) {
      float rv[kRunLength], uv[kRunLength];
      for (int q = 0; q < kRunLength; ++q) rv[q] = r_bar(b, j + q), uv[q] = u_bar(b, j + q);
      opgen::vm::sigmoid_run(rv);
      opgen::vm::sigmoid_run(uv);
      for (int q = 0; q < kRunLength; ++q) put(b, j + q, rv[q], uv[q]);
    }
    for (; j < H; ++j) (*this)(b, j);
  }
};

// c = tanh(c_bar + b_c) in place (c holds c_bar, without the bias, on entry), and
// h = u∘h_prev + (1 − u)∘c. h uses c as stored (rounded to T), so that h and the c the gradient
// receives agree.
template <typename T>
struct Cell {
  const T* b_c;
  const T* h_prev;
  const T* u;
  T* c;
  T* h;
  long long H;
  __device__ __forceinline__ float c_bar(long long b, long long j) const {
    return opgen::to_float(c[b * H + j]) + opgen::to_float(b_c[j]);
  }
  __device__ __forceinline__ void put(long long b, long long j, float tanh_c) const {
    const long long o = b * H + j;
    const T cs = opgen::from_float<T>(tanh_c);
    const float cv = opgen::to_float(cs), uv = opgen::to_float(u[o]);
    c[o] = cs;
    h[o] = opgen::from_float<T>(uv * opgen::to_float(h_prev[o]) + (1.f - uv) * cv);
  }
  __device__ __forceinline__ void operator()(long long b, long long j) const { put(b, j, tanh_fast(c_bar(b, j))); }
  // The host form: row b in runs, tanh by the vector math's run form.
  __device__ __forceinline__ void row(long long b) const {
    long long j = 0;
    for (; j + kRunLength <= H; j += kRunLength) {
      float v[kRunLength];
      for (int q = 0; q < kRunLength; ++q) v[q] = c_bar(b, j + q);
      opgen::vm::tanh_run(v);
      for (int q = 0; q < kRunLength; ++q) put(b, j + q, v[q]);
    }
    for (; j < H; ++j) (*this)(b, j);
  }
};

// f(b, j) for every cell of [B, H]: on the host f.row(b) for each row, on its block's thread 0
// (runs of kRunLength through the vector math); on the GPU grid-stride per element.
template <typename F>
struct Rows {
  F f;
  __device__ __forceinline__ void operator()(long long b) const { f.row(b); }
};
template <typename F>
__device__ __forceinline__ void for_each_cell_by_rows(const F& f, long long B, long long H) {
#ifdef OPGEN_HOST_FORM
  if (threadIdx.x == 0) opgen::for_each_row(B, Rows<F>{f});
#else
  for_each_cell(f, B, H);
#endif
}

}  // namespace gru

template <typename T>
__device__ void gates(const T* __restrict__ ru_bar, const T* __restrict__ b_ru, const T* __restrict__ h_prev,
                      T* __restrict__ r, T* __restrict__ u, T* __restrict__ rh, long long B, long long H) {
  gru::for_each_cell_by_rows(gru::Gates<T>{ru_bar, b_ru, h_prev, r, u, rh, H}, B, H);
}

template <typename T>
__device__ void cell(const T* __restrict__ b_c, const T* __restrict__ h_prev, const T* __restrict__ u,
                     T* __restrict__ c, T* __restrict__ h, long long B, long long H) {
  gru::for_each_cell_by_rows(gru::Cell<T>{b_c, h_prev, u, c, h, H}, B, H);
}

namespace gru {

// d_c_bar = d_h∘(1 − u)∘(1 − c²); d_u_bar = d_h∘(h_prev − c)∘u∘(1 − u), into the right half of
// d_r_bar_u_bar = [d_r_bar | d_u_bar].
template <typename T>
struct GradCell {
  const T* h_prev;
  const T* u;
  const T* c;
  const T* d_h;
  T* d_c_bar;
  T* d_rbu;
  long long H;
  __device__ __forceinline__ void operator()(long long b, long long j) const {
    const long long o = b * H + j;
    const float uv = opgen::to_float(u[o]), cv = opgen::to_float(c[o]), dh = opgen::to_float(d_h[o]);
    d_c_bar[o] = opgen::from_float<T>(dh * (1.f - uv) * (1.f - cv * cv));
    d_rbu[2 * b * H + H + j] = opgen::from_float<T>(dh * (opgen::to_float(h_prev[o]) - cv) * uv * (1.f - uv));
  }
};

// d_r_bar = d_hr∘h_prev∘r∘(1 − r), with d_hr the h_prev columns of d_xh2 = [d_x2 | d_hr], into
// the left half of d_r_bar_u_bar.
template <typename T>
struct GradReset {
  const T* d_xh2;
  const T* h_prev;
  const T* r;
  T* d_rbu;
  long long I, H;
  __device__ __forceinline__ void operator()(long long b, long long j) const {
    const long long o = b * H + j;
    const float rv = opgen::to_float(r[o]);
    const float d_hr = opgen::to_float(d_xh2[b * (I + H) + I + j]);
    d_rbu[2 * b * H + j] = opgen::from_float<T>(d_hr * opgen::to_float(h_prev[o]) * rv * (1.f - rv));
  }
};

// d_x = d_x1 + d_x2 over the x columns of d_xh1 = [d_x1 | d_h1] and d_xh2 = [d_x2 | d_hr].
template <typename T>
struct GradX {
  const T* d_xh1;
  const T* d_xh2;
  T* d_x;
  long long I, H;
  __device__ __forceinline__ void operator()(long long b, long long j) const {
    const long long o = b * (I + H) + j;
    d_x[b * I + j] = opgen::from_float<T>(opgen::to_float(d_xh1[o]) + opgen::to_float(d_xh2[o]));
  }
};

// d_h_prev = d_h1 + d_hr∘r + d_h∘u over the h_prev columns.
template <typename T>
struct GradHPrev {
  const T* d_xh1;
  const T* d_xh2;
  const T* r;
  const T* u;
  const T* d_h;
  T* d_h_prev;
  long long I, H;
  __device__ __forceinline__ void operator()(long long b, long long j) const {
    const long long o = b * H + j, s = b * (I + H) + I + j;
    d_h_prev[o] = opgen::from_float<T>(opgen::to_float(d_xh1[s]) + opgen::to_float(d_xh2[s]) * opgen::to_float(r[o]) +
                                       opgen::to_float(d_h[o]) * opgen::to_float(u[o]));
  }
};

}  // namespace gru

template <typename T>
__device__ void grad_cell(const T* __restrict__ h_prev, const T* __restrict__ u, const T* __restrict__ c,
                          const T* __restrict__ d_h, T* __restrict__ d_c_bar, T* __restrict__ d_r_bar_u_bar,
                          long long B, long long H) {
  gru::for_each_cell(gru::GradCell<T>{h_prev, u, c, d_h, d_c_bar, d_r_bar_u_bar, H}, B, H);
}

template <typename T>
__device__ void grad_reset(const T* __restrict__ d_xh2, const T* __restrict__ h_prev, const T* __restrict__ r,
                           T* __restrict__ d_r_bar_u_bar, long long B, long long I, long long H) {
  gru::for_each_cell(gru::GradReset<T>{d_xh2, h_prev, r, d_r_bar_u_bar, I, H}, B, H);
}

// Two grid-stride loops in one launch: d_x over [B, I], then d_h_prev over [B, H].
template <typename T>
__device__ void grad_inputs(const T* __restrict__ d_xh1, const T* __restrict__ d_xh2, const T* __restrict__ r,
                            const T* __restrict__ u, const T* __restrict__ d_h, T* __restrict__ d_x,
                            T* __restrict__ d_h_prev, long long B, long long I, long long H) {
  gru::for_each_cell(gru::GradX<T>{d_xh1, d_xh2, d_x, I, H}, B, I);
  gru::for_each_cell(gru::GradHPrev<T>{d_xh1, d_xh2, r, u, d_h, d_h_prev, I, H}, B, H);
}
