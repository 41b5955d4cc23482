{% include "kernels/_common.cuh" %}
{% include "kernels/_matmul.cuh" %}

// DmlRnn: the elementwise part of DirectML's simple RNN. The matrix products are GEMM steps of the
// launch plan (on the GPU up to hidden_size 256 the recurrent one lives in `fused_step` or
// `persistent`, at the end): per direction d, projected[d] = X·W[d]ᵀ for every time step at once;
// per step s, recurrent[d] = H[d]·R[d]ᵀ with H[d] the state of direction d, kept in output_single[0, d]. Then
// `step` finishes step s of every direction, for every batch entry b and unit j, with t the time
// step direction d is at (s forward, seq_length − 1 − s backward):
//
//   t < len[b]:  H[d, b, j] = f_d(projected[d, t, b, j] + recurrent[d, b, j] + Wb[d, j] + Rb[d, j]);
//                output_sequence[t, d, b, j] = H[d, b, j]
//   t ≥ len[b]:  output_sequence[t, d, b, j] = 0, H unchanged
//
// so the forward recurrence stops after step len − 1 (H is then the last valid state), and the
// backward one, walking t down from seq_length − 1, starts at t = len − 1 from the initial state.
// `init_state` sets H to hidden_init, or zero, and to zero where len = 0 (which no step changes).
// Row-major tensors; arithmetic in float, T (float or __half) the storage type. The activation
// library (opgen::act) is included above the body: the op has an activation attr.

namespace dml_rnn {

// A batch entry's length: sequence_lengths[b], or seq_length when there are none.
__device__ __forceinline__ long long length_of(const unsigned int* lengths, long long b, long long seq_length) {
  return lengths != nullptr ? static_cast<long long>(lengths[b]) : seq_length;
}

// The activation's argument: X_t·Wᵀ + H·Rᵀ (each as its buffer stores it) + Wb[d, j] + Rb[d, j].
// `step` and `persistent` both take it from here.
template <typename T>
__device__ __forceinline__ float activation_arg(float projected, float recurrent, const T* bias, long long d,
                                                long long j, long long H) {
  float v = projected + recurrent;
  if (bias != nullptr) v += opgen::to_float(bias[d * 2 * H + j]) + opgen::to_float(bias[d * 2 * H + H + j]);
  return v;
}

template <typename T>
struct InitState {
  const T* hidden_init;  // [1, D, B, H] or null
  const unsigned int* lengths;  // [B] or null
  T* state;  // output_single: [1, D, B, H]
  long long seq_length, D, cells, H;
  __device__ __forceinline__ void operator()(long long b, long long j) const {
    const bool empty = length_of(lengths, b, seq_length) == 0;
    for (long long d = 0; d < D; ++d) {
      const long long o = d * cells + b * H + j;
      state[o] = (hidden_init != nullptr && !empty) ? hidden_init[o] : opgen::from_float<T>(0.f);
    }
  }
};

template <typename T>
struct Step {
  const T* projected;  // [D, seq_length, B, H]: X_t·Wᵀ
  const T* recurrent;  // [D, B, H]: H·Rᵀ
  const T* bias;  // [1, 1, D, 2H] ([Wb | Rb] per direction) or null
  const unsigned int* lengths;  // [B] or null
  T* out;  // output_sequence: [seq_length, D, B, H]
  T* state;  // output_single: [1, D, B, H]
  opgen::act::Activation f0, f1;  // the activations of directions 0 and 1
  long long s, backward_first, seq_length, D, cells, H;
  __device__ __forceinline__ long long time_of(long long d) const {
    return (backward_first + d) != 0 ? seq_length - 1 - s : s;
  }
  // The activation's argument at (d, t, b, j).
  __device__ __forceinline__ float pre(long long d, long long t, long long b, long long j) const {
    const long long o = b * H + j;
    return activation_arg(opgen::to_float(projected[(d * seq_length + t) * cells + o]),
                          opgen::to_float(recurrent[d * cells + o]), bias, d, j, H);
  }
  __device__ __forceinline__ void put(long long d, long long t, long long o, float h) const {
    const T stored = opgen::from_float<T>(h);
    state[d * cells + o] = stored;
    out[(t * D + d) * cells + o] = stored;
  }
  __device__ __forceinline__ void operator()(long long b, long long j) const {
    const long long len = length_of(lengths, b, seq_length), o = b * H + j;
    for (long long d = 0; d < D; ++d) {
      const long long t = time_of(d);
      if (t < len) {
        const float v = pre(d, t, b, j);
        put(d, t, o, d == 0 ? f0(v) : f1(v));
      } else {
        out[(t * D + d) * cells + o] = opgen::from_float<T>(0.f);
      }
    }
  }
  // Row b in runs of kRunLength, each activation applied to a whole run (Activation::run: the
  // vector math, kLanes at a time), the rest one by one: the host form's loop (one thread per
  // block). 32 values are several independent vectors, which the math's long dependency chains
  // need to fill the pipeline (bench/bench_activation_cpu.py: runs of 32 take half the time of 8).
  static constexpr int kRunLength = 4 * opgen::kHostRun;
  __device__ __forceinline__ void row(long long b) const {
    const long long len = length_of(lengths, b, seq_length);
    for (long long d = 0; d < D; ++d) {
      const long long t = time_of(d);
      const opgen::act::Activation& f = d == 0 ? f0 : f1;
      if (t >= len) {
        for (long long j = 0; j < H; ++j) out[(t * D + d) * cells + b * H + j] = opgen::from_float<T>(0.f);
        continue;
      }
      long long j = 0;
      for (; j + kRunLength <= H; j += kRunLength) {
        float v[kRunLength];
        for (int q = 0; q < kRunLength; ++q) v[q] = pre(d, t, b, j + q);
        f.run(v);
        for (int q = 0; q < kRunLength; ++q) put(d, t, b * H + j + q, v[q]);
      }
      for (; j < H; ++j) put(d, t, b * H + j, f(pre(d, t, b, j)));
    }
  }
};

// Step's rows over the blocks, each on its block's thread 0 (the host form).
template <typename T>
struct StepRows {
  Step<T> step;
  __device__ __forceinline__ void operator()(long long b) const { step.row(b); }
};

// The persistent variant's shape: a block of kPersistentThreads threads per kPersistentRows batch
// rows and direction, hidden_size ≤ kPersistentMaxH (the launch plan's `persistent` let).
constexpr int kPersistentThreads = 256, kPersistentRows = 4, kPersistentMaxH = 256;
static_assert(kPersistentMaxH <= kPersistentThreads, "persistent: a thread per unit");

}  // namespace dml_rnn

template <typename T>
__device__ void init_state(const T* __restrict__ hidden_init, const unsigned int* __restrict__ sequence_lengths,
                           T* __restrict__ output_single, long long seq_length, long long D, long long B,
                           long long H) {
  opgen::for_each_cell(
      dml_rnn::InitState<T>{hidden_init, sequence_lengths, output_single, seq_length, D, B * H, H}, B, H);
}

template <typename T>
__device__ void step(const T* __restrict__ projected, const T* __restrict__ recurrent, const T* __restrict__ bias,
                     const unsigned int* __restrict__ sequence_lengths, T* __restrict__ output_sequence,
                     T* __restrict__ output_single, opgen::act::Activation f0, opgen::act::Activation f1,
                     long long s, long long backward_first, long long seq_length, long long D, long long B,
                     long long H) {
  const dml_rnn::Step<T> f{projected, recurrent, bias, sequence_lengths, output_sequence, output_single,
                           f0, f1, s, backward_first, seq_length, D, B * H, H};
#ifdef OPGEN_HOST_FORM
  if (threadIdx.x == 0) opgen::for_each_row(B, dml_rnn::StepRows<T>{f});
#else
  opgen::for_each_cell(f, B, H);
#endif
}

// `persistent`: every step of every direction in one launch, for small batches and states (the
// launch plan's `persistent` let). Block (r, d) owns batch rows [4r, 4r + 4) of direction d and walks
// all seq_length steps; a row's state depends only on that row, so no block waits for another (no
// grid-wide barrier). The rows' states stay in shared memory, in float (each the exact value of its
// stored T); R[d] is read from global memory (the L2 cache keeps it after the first step). Thread j
// owns unit j of every row; per step it sums h[row]·R[d, j, :] in float, k = 0, 1, ..., H − 1,
// rounds the sum to T as the GEMM step's `recurrent` buffer would, and then applies `step`'s
// formula. A barrier separates the step's reads of the states from its writes.
template <typename T>
__device__ void persistent(const T* __restrict__ projected, const T* __restrict__ recurrence,
                           const T* __restrict__ bias, const unsigned int* __restrict__ sequence_lengths,
                           T* __restrict__ output_sequence, T* __restrict__ output_single, opgen::act::Activation f0,
                           opgen::act::Activation f1, long long backward_first, long long seq_length, long long D,
                           long long B, long long H) {
  __shared__ float state[dml_rnn::kPersistentRows * dml_rnn::kPersistentMaxH];
  const long long d = blockIdx.y, b0 = static_cast<long long>(blockIdx.x) * dml_rnn::kPersistentRows;
  const long long rows = B - b0 < dml_rnn::kPersistentRows ? B - b0 : dml_rnn::kPersistentRows;
  if (rows <= 0 || H > dml_rnn::kPersistentMaxH) return;  // (the whole block: no barrier is left waiting)
  const long long cells = B * H, elements = rows * H;
  const T* R = recurrence + d * H * H;
  for (long long e = threadIdx.x; e < elements; e += blockDim.x) {
    state[e] = opgen::to_float(output_single[d * cells + b0 * H + e]);
  }
  __syncthreads();
  for (long long s = 0; s < seq_length; ++s) {
    const long long t = (backward_first + d) != 0 ? seq_length - 1 - s : s;
    // a thread per unit j (H ≤ kPersistentThreads), for all the block's rows at once: each weight
    // read once per step (the rows' states are the same address across the warp: broadcasts)
    const long long j = threadIdx.x;
    float next[dml_rnn::kPersistentRows];  // (unrolled, no early exit: kept in registers)
    if (j < H) {
      float sum[dml_rnn::kPersistentRows];
#pragma unroll
      for (int r = 0; r < dml_rnn::kPersistentRows; ++r) sum[r] = 0.f;
      for (long long k = 0; k < H; ++k) {
        const float w = opgen::to_float(R[j * H + k]);
#pragma unroll
        for (int r = 0; r < dml_rnn::kPersistentRows; ++r) {
          if (r < rows) sum[r] += state[r * H + k] * w;
        }
      }
#pragma unroll
      for (int r = 0; r < dml_rnn::kPersistentRows; ++r) {
        const long long b = b0 + r;
        next[r] = 0.f;
        if (r < rows && t < dml_rnn::length_of(sequence_lengths, b, seq_length)) {
          const float v = dml_rnn::activation_arg(opgen::to_float(projected[(d * seq_length + t) * cells + b * H + j]),
                                                  opgen::to_float(opgen::from_float<T>(sum[r])), bias, d, j, H);
          next[r] = d == 0 ? f0(v) : f1(v);  // (a reference to either parameter would copy it to local memory)
        }
      }
    }
    __syncthreads();  // every thread has read the states of step s − 1
    if (j < H) {
#pragma unroll
      for (int r = 0; r < dml_rnn::kPersistentRows; ++r) {
        const long long b = b0 + r;
        if (r < rows) {
          T* out = output_sequence + (t * D + d) * cells + b * H + j;
          if (t < dml_rnn::length_of(sequence_lengths, b, seq_length)) {
            const T stored = opgen::from_float<T>(next[r]);
            state[r * H + j] = opgen::to_float(stored);
            *out = stored;
          } else {
            *out = opgen::from_float<T>(0.f);
          }
        }
      }
    }
    __syncthreads();  // the states of step s are in place
  }
  for (long long e = threadIdx.x; e < elements; e += blockDim.x) {
    output_single[d * cells + b0 * H + e] = opgen::from_float<T>(state[e]);
  }
}

namespace dml_rnn {

// The fused variant's tiles (as CudnnRNNV3's crnn::StepTiles): 32 batch rows × 32 units per block,
// 256 threads in the GPU form.
typedef opgen::MatmulTiles<32, 32, 16, 2, 2> StepTiles;

}  // namespace dml_rnn

// `fused_step`: step s of every direction in one launch (the launch plan's `fused` let: the GPU's
// plan where the persistent variant does not apply, hidden_size ≤ 256). Grid [ceildiv(B, 32),
// ceildiv(H, 32), D]: block (x, y, d) takes batch rows [32x, 32x + 32) and units [32y, 32y + 32) of
// direction d. It forms its tile of H·Rᵀ (opgen::matmul_tile: summed in float in order k = 0, 1,
// ..., H − 1 and stored as T into `recurrent`, as the GEMM step's output is), then, after a barrier,
// the step's formula on the tile's cells. Other blocks read every unit of a row's state while this
// one writes its cells, so the states alternate between two buffers: step s reads the state from
// output_single (s = 0) or states[(s − 1) % 2] and writes states[s % 2] (the state carried on
// unchanged where t ≥ len); `final_state` copies the last one into output_single.
template <typename T>
__device__ void fused_step(const T* __restrict__ projected, T* __restrict__ recurrent,
                           const T* __restrict__ recurrence, const T* __restrict__ bias,
                           const unsigned int* __restrict__ sequence_lengths, T* __restrict__ output_sequence,
                           T* __restrict__ output_single, T* __restrict__ states, opgen::act::Activation f0,
                           opgen::act::Activation f1, long long s, long long backward_first, long long seq_length,
                           long long D, long long B, long long H) {
  typedef dml_rnn::StepTiles Tiles;
  if (opgen::tile_outside<Tiles>(B, H, blockIdx.x, blockIdx.y)) return;  // (before any barrier)
  const long long d = blockIdx.z, cells = B * H;
  const long long t = (backward_first + d) != 0 ? seq_length - 1 - s : s;
  const T* __restrict__ src = (s == 0 ? output_single : states + ((s - 1) % 2) * D * cells) + d * cells;
  T* __restrict__ dst = states + (s % 2) * D * cells + d * cells;
  T* __restrict__ rec = recurrent + d * cells;
  // (a tile whose rows have all ended skips the product: the same answer on every thread)
  if (opgen::tile_any_row<Tiles>(B, blockIdx.x, [=](long long b) {
        return t < dml_rnn::length_of(sequence_lengths, b, seq_length);
      })) {
    opgen::matmul_tile<Tiles>(B, H, H, opgen::matrix_in(src, H), opgen::matrix_in(recurrence + d * H * H, H, true),
                              opgen::matrix_out(rec, H), false, blockIdx.x, blockIdx.y);
  }
  __syncthreads();  // the tile of H·Rᵀ is in place
  opgen::for_each_tile_cell<Tiles>(B, H, blockIdx.x, blockIdx.y, [=](long long b, long long j0, long long j1) {
    const bool live = t < dml_rnn::length_of(sequence_lengths, b, seq_length);
    for (long long o = b * H + j0; o < b * H + j1; ++o) {
      T* out = output_sequence + (t * D + d) * cells + o;
      if (live) {
        const float v = dml_rnn::activation_arg(opgen::to_float(projected[(d * seq_length + t) * cells + o]),
                                                opgen::to_float(rec[o]), bias, d, o - b * H, H);
        const T stored = opgen::from_float<T>(d == 0 ? f0(v) : f1(v));
        dst[o] = stored;
        *out = stored;
      } else {
        dst[o] = src[o];
        *out = opgen::from_float<T>(0.f);
      }
    }
  });
}

// rt[d] = R[d]ᵀ for direction d = blockIdx.y: the cpu plan's per-step product H·R[d]ᵀ then reads its B
// untransposed, which OpenBLAS's SkylakeX kernels run faster ([32, 256]·[256, 256]: ~50 against ~73 µs
// CPU at one thread); NN sums in another order than NT for some sizes (bench/RESULTS.md, 2026-11-30 04:40).
template <typename T>
__device__ void transpose_recurrence(const T* __restrict__ recurrence, T* __restrict__ rt, long long H) {
  const long long d = blockIdx.y;
  opgen::transpose_into(recurrence + d * H * H, rt + d * H * H, H, H);
}

// After the fused steps: the last state (in states[(seq_length − 1) % 2]) into output_single.
template <typename T>
__device__ void final_state(const T* __restrict__ states, T* __restrict__ output_single, long long seq_length,
                            long long n) {
  const T* __restrict__ last = states + ((seq_length - 1) % 2) * n;
  opgen::for_each_index(n, [&](long long i) { output_single[i] = last[i]; });
}
