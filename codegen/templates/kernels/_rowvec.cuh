// ---- opgen row blocks with 16-byte accesses (issue 35, item 2). Include it after _common.cuh with
// a Jinja include of "kernels/_rowvec.cuh". The row_v* helpers below are _common.cuh's row_sum,
// row_sum2, row_mean_var and row_store for rows that are arrays of one element type T: instead of a
// function of j that loads its own elements, they take the row's input pointers and call f(j, e)
// with e[k] = input k's element j (as acc_t<T>).
//   The GPU form (NVRTC, and the emulation with OPGEN_GPU_FORM): thread t takes the groups t,
//     t + blockDim.x, ... of kGroup = 8 adjacent elements, each loaded and stored in 16-byte
//     accesses (one for 16-bit T, two for float, four for double) when every pointer of the call
//     starts on 16 bytes, else one element at a time (an odd row length, an offset view); the
//     row's last group may be short. Element j goes to thread (j / kGroup) % blockDim.x whatever
//     the alignment, so a thread may read back what it wrote in an earlier pass over the row
//     without a barrier. The group is 8 elements for every T, not 16 bytes, so that a row is
//     summed in the same order whatever its type: a 16-bit result is the float32 one rounded once
//     (tests/test_exact_16bit.py).
//   The host form: _common.cuh's row helpers on the same f, so the cpu plan's results do not move.
// Results agree with the scalar helpers to float rounding (the GPU form sums a group first).
#ifndef OPGEN_ROWVEC_CUH
#define OPGEN_ROWVEC_CUH
namespace opgen {

constexpr int kGroup = 8;
template <typename T> struct alignas(16) VecBits { T e[kGroup]; };

__device__ __forceinline__ bool aligned16(const void* p) { return reinterpret_cast<unsigned long long>(p) % 16 == 0; }

// The m ≤ kGroup elements at p as stored: 16-byte accesses when `vec` (p on 16 bytes and m ==
// kGroup: the caller checks the base once), else m scalar ones (zeros past m). The loops are
// unrolled with a test, not run to m, so the group stays in registers, not local memory.
template <typename T>
__device__ __forceinline__ VecBits<T> load_bits(const T* __restrict__ p, int m, bool vec) {
  if (vec) return *reinterpret_cast<const VecBits<T>*>(p);
  VecBits<T> b;
#pragma unroll
  for (int q = 0; q < kGroup; ++q) b.e[q] = q < m ? p[q] : from_acc<T>(acc_t<T>(0));
  return b;
}

// The same as acc_t<T> values.
template <typename T>
__device__ __forceinline__ void load_vec(const T* __restrict__ p, int m, bool vec, acc_t<T> (&v)[kGroup]) {
  const VecBits<T> b = load_bits(p, m, vec);
#pragma unroll
  for (int q = 0; q < kGroup; ++q) v[q] = to_acc(b.e[q]);
}

// g(q) for q < m, unrolled (a loop to m would index the group's arrays at run time: local memory).
template <typename G>
__device__ __forceinline__ void each_in_group(int m, const G& g) {
#pragma unroll
  for (int q = 0; q < kGroup; ++q) {
    if (q < m) g(q);
  }
}

// The m ≤ kGroup elements of b to out: 16-byte accesses when `vec` (as load_bits), else m.
template <typename T>
__device__ __forceinline__ void store_bits(T* __restrict__ out, const VecBits<T>& b, int m, bool vec) {
  if (vec) {
    *reinterpret_cast<VecBits<T>*>(out) = b;
  } else {
    each_in_group(m, [&](int q) { out[q] = b.e[q]; });
  }
}

namespace rowvec_detail {
template <typename T, int K> struct Inputs { const T* p[K]; };

template <typename T, typename... P>
__device__ __forceinline__ Inputs<T, 1 + sizeof...(P)> inputs(const T* first, P... rest) {
  return Inputs<T, 1 + sizeof...(P)>{ {first, rest...} };
}

template <typename T, int K>
__device__ __forceinline__ bool all_aligned(const Inputs<T, K>& in, const void* out) {
  bool ok = aligned16(out);
#pragma unroll
  for (int k = 0; k < K; ++k) ok = ok && aligned16(in.p[k]);
  return ok;
}

// Element j of every input (the host form's and a scalar path's load).
template <typename T, int K>
__device__ __forceinline__ void load_one(const Inputs<T, K>& in, long long j, acc_t<T> (&e)[K]) {
#pragma unroll
  for (int k = 0; k < K; ++k) e[k] = to_acc(in.p[k][j]);
}

// visit(j0, m, v) for each of the calling thread's groups (the GPU form's walk over a row), v[k]
// input k's group as stored (converted element by element where used: fewer registers than a
// converted copy of every input's group).
template <typename T, int K, typename V>
__device__ __forceinline__ void walk(long long n, const Inputs<T, K>& in, bool vec, const V& visit) {
  constexpr int W = kGroup;
  const long long groups = (n + W - 1) / W;
  // not unrolled: a block of up to 1024 threads has at most 64 registers each, and its threads'
  // groups keep enough loads in flight
#pragma unroll 1
  for (long long g = threadIdx.x; g < groups; g += blockDim.x) {
    const long long j0 = g * W;
    const int m = n - j0 < W ? static_cast<int>(n - j0) : W;  // int32 ok: under kGroup
    VecBits<T> v[K];
#pragma unroll
    for (int k = 0; k < K; ++k) v[k] = load_bits(in.p[k] + j0, m, vec && m == W);
    visit(j0, m, v);
  }
}

// Element q of a group as f's argument.
template <typename T, int K>
__device__ __forceinline__ void element(const VecBits<T> (&v)[K], int q, acc_t<T> (&e)[K]) {
#pragma unroll
  for (int k = 0; k < K; ++k) e[k] = to_acc(v[k].e[q]);
}
}  // namespace rowvec_detail

#ifndef OPGEN_HOST_FORM
// The GPU form's walk itself, for a kernel's own per-thread reduction (Softmax's online max and
// sum): visit(j0, m, v) for each of the calling thread's groups, v[k].e[q] input k's element j0 + q.
template <typename V, typename T, typename... P>
__device__ __forceinline__ void row_vgroups(long long n, const V& visit, const T* in0, P... ins) {
  const auto in = rowvec_detail::inputs(in0, ins...);
  rowvec_detail::walk(n, in, rowvec_detail::all_aligned(in, in0), visit);
}
#endif

// op over f(j, e) for every element, from init (as row_reduce); every thread gets the result.
template <typename V, typename Op, typename F, typename T, typename... P>
__device__ __forceinline__ V row_vreduce(long long n, const Op& op, V init, const F& f, const T* in0, P... ins) {
  const auto in = rowvec_detail::inputs(in0, ins...);
  constexpr int K = 1 + sizeof...(P);
  using A = acc_t<T>;
#ifdef OPGEN_HOST_FORM
  return row_reduce(n, [&](long long j) { A e[K]; rowvec_detail::load_one(in, j, e); return f(j, e); }, op, init);
#else
  V acc = init;
  const bool vec = rowvec_detail::all_aligned(in, in0);
  rowvec_detail::walk(n, in, vec, [&](long long j0, int m, const VecBits<T> (&v)[K]) {
    each_in_group(m, [&](int q) {
      A e[K];
      rowvec_detail::element(v, q, e);
      acc = op(acc, widen_to<V>(f(j0 + q, e)));
    });
  });
  return block_reduce(acc, op);
#endif
}

template <typename F, typename T, typename... P>
__device__ __forceinline__ auto row_vsum(long long n, const F& f, const T* in0, P... ins) {
  using R = typename strip_cvref<decltype(f(0LL, *static_cast<acc_t<T>(*)[1 + sizeof...(P)]>(nullptr)))>::type;
  return row_vreduce(n, SumOp{}, R(0), f, in0, ins...);
}

// Count, mean and biased variance of f(j, e) over the row (row_mean_var's): the GPU form takes a
// group's mean and Σ(v − mean)² and merges it into the thread's (Chan et al.), the host form is
// row_mean_var's.
template <typename F, typename T, typename... P>
__device__ __forceinline__ auto row_vmean_var(long long n, const F& f, const T* in0, P... ins) {
  const auto in = rowvec_detail::inputs(in0, ins...);
  constexpr int K = 1 + sizeof...(P);
  using A = acc_t<T>;
  using R = typename strip_cvref<decltype(f(0LL, *static_cast<A(*)[K]>(nullptr)))>::type;
#ifdef OPGEN_HOST_FORM
  return row_mean_var(n, [&](long long j) { A e[K]; rowvec_detail::load_one(in, j, e); return f(j, e); });
#else
  MeanVarOf<R> s{R(0), R(0), R(0)};
  const bool vec = rowvec_detail::all_aligned(in, in0);
  rowvec_detail::walk(n, in, vec, [&](long long j0, int m, const VecBits<T> (&v)[K]) {
    R x[kGroup];
    R sum = R(0);
    each_in_group(m, [&](int q) {
      A e[K];
      rowvec_detail::element(v, q, e);
      x[q] = f(j0 + q, e);
      sum += x[q];
    });
    const R mean = sum / static_cast<R>(m);
    R m2 = R(0);
    each_in_group(m, [&](int q) { m2 += (x[q] - mean) * (x[q] - mean); });
    s = WelfordOp{}(s, MeanVarOf<R>{static_cast<R>(m), mean, m2});
  });
  return block_reduce(s, WelfordOp{});
#endif
}

// out[j] = f(j, e) (rounded once to T) for every element.
template <typename F, typename T, typename... P>
__device__ __forceinline__ void row_vstore(long long n, T* out, const F& f, const T* in0, P... ins) {
  const auto in = rowvec_detail::inputs(in0, ins...);
  constexpr int K = 1 + sizeof...(P);
  using A = acc_t<T>;
#ifdef OPGEN_HOST_FORM
  row_store(n, out, [&](long long j) { A e[K]; rowvec_detail::load_one(in, j, e); return f(j, e); });
#else
  const bool vec = rowvec_detail::all_aligned(in, out);
  rowvec_detail::walk(n, in, vec, [&](long long j0, int m, const VecBits<T> (&v)[K]) {
    VecBits<T> b;
    each_in_group(m, [&](int q) {
      A e[K];
      rowvec_detail::element(v, q, e);
      b.e[q] = from_acc<T>(f(j0 + q, e));
    });
    store_bits(out + j0, b, m, vec && m == kGroup);
  });
#endif
}

}  // namespace opgen
#endif  // OPGEN_ROWVEC_CUH
