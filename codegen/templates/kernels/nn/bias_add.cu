{% include "kernels/_common.cuh" %}
{% include "kernels/_rowvec.cuh" %}

// BiasAdd and BiasAddGrad over value viewed as [outer, C, inner] (NHWC: inner = 1). One kernel per
// step for both launch plans: a block of one thread (the cpu plan) walks its share in order, in runs
// of kBiasRun elements the host compiler keeps in SIMD registers (g++ -O2 leaves a loop of unknown
// length scalar); a larger block (the GPU plan) strides it, adjacent threads on adjacent elements.
// Values are added and summed in opgen::acc_t<T> (float for 16-bit T and float32, double for
// float64) and rounded once (opgen::to_acc / from_acc); rows are stored by opgen::row_vstore
// (kernels/_rowvec.cuh: 16-byte accesses on the GPU).

[[maybe_unused]] constexpr int kBiasRun = 8;

// Σ f(j) over the calling thread's j < n (every j for a block of one thread, in kBiasRun independent
// sums combined pairwise; else j = threadIdx.x + k·blockDim.x).
template <typename A, typename F>
__device__ __forceinline__ A bias_thread_sum(long long n, const F& f) {
  if (blockDim.x != 1) {
    A s = 0;
    for (long long j = threadIdx.x; j < n; j += blockDim.x) s += f(j);
    return s;
  }
  A run[kBiasRun] = {};
  long long j = 0;
  for (; j + kBiasRun <= n; j += kBiasRun) {
#pragma GCC unroll 8
    for (int q = 0; q < kBiasRun; ++q) run[q] += f(j + q);
  }
  for (; j < n; ++j) run[0] += f(j);
  for (int w = kBiasRun / 2; w > 0; w /= 2) {
    for (int q = 0; q < w; ++q) run[q] += run[q + w];
  }
  return run[0];
}

// Σ v over the block, to thread 0 (a fixed tree: deterministic). Every thread must call it; it ends
// with a barrier, so it may be called again right away.
template <typename A>
__device__ __forceinline__ A bias_block_sum(A v) {
  if (blockDim.x == 1) return v;
  __shared__ A part[1024];
  const int t = threadIdx.x, n = blockDim.x;
  part[t] = v;
  __syncthreads();
  for (int w = 1; w < n; w *= 2) {
    if (t % (2 * w) == 0 && t + w < n) part[t] += part[t + w];
    __syncthreads();
  }
  const A total = part[0];
  __syncthreads();  // part[0] is written again by the next call
  return total;
}

// output = value + bias: rows of `width` elements, each with one bias (by_channel: NCHW rows of a
// channel's inner elements, row r is channel r % C) or the bias along it (rows of C elements).
template <typename T>
__device__ void bias_add(const T* __restrict__ x, const T* __restrict__ bias, T* __restrict__ y, long long rows,
                         long long width, long long C, long long by_channel) {
  opgen::for_each_row(rows, [&](long long r) {
    const T* __restrict__ xr = x + r * width;
    T* __restrict__ yr = y + r * width;
    using A = opgen::acc_t<T>;
    if (by_channel) {
      const A b = opgen::to_acc(bias[r % C]);
      opgen::row_vstore(width, yr, [&](long long, const A* e) { return e[0] + b; }, xr);
    } else {
      opgen::row_vstore(width, yr, [&](long long, const A* e) { return e[0] + e[1]; }, xr, bias);
    }
  });
}

// NCHW with spatial dims: block (b, s) sums the channels c = b, b + gridDim.x, ... over split s of the
// outer index (each [o, c] a contiguous run of inner elements) into partials[s·C + c].
template <typename T, typename S>
__device__ void bias_grad_channels(const T* __restrict__ g, S* __restrict__ partials, long long outer, long long C,
                                   long long inner) {
  const long long splits = gridDim.y, per = (outer + splits - 1) / splits;
  const long long o0 = blockIdx.y * per, o1 = o0 + per < outer ? o0 + per : outer;
  for (long long c = blockIdx.x; c < C; c += gridDim.x) {
    S acc = 0;
    for (long long o = o0; o < o1; ++o) {
      const T* __restrict__ run = g + (o * C + c) * inner;
      acc += bias_thread_sum<S>(inner, [&](long long j) { return opgen::to_acc(run[j]); });
    }
    acc = bias_block_sum(acc);
    if (threadIdx.x == 0) partials[blockIdx.y * C + c] = acc;
  }
}

// [outer, C] rows, the cpu plan: block (t, s) sums the columns [t·tile, +tile) over split s of the
// rows into partials[s·C + c], its one thread walking the rows in order and adding each to the
// partial row (vectorised along it).
template <typename T, typename S>
__device__ void bias_grad_columns(const T* __restrict__ g, S* __restrict__ partials, long long rows, long long C,
                                  long long tile) {
  if (threadIdx.x != 0) return;
  const long long splits = gridDim.y, per = (rows + splits - 1) / splits;
  const long long r0 = blockIdx.y * per, r1 = r0 + per < rows ? r0 + per : rows;
  const long long c0 = blockIdx.x * tile, c1 = c0 + tile < C ? c0 + tile : C;
  S* __restrict__ p = partials + blockIdx.y * C + c0;
  for (long long c = 0; c < c1 - c0; ++c) p[c] = 0;
  for (long long r = r0; r < r1; ++r) {
    const T* __restrict__ gr = g + r * C + c0;
    opgen::row_store(c1 - c0, p, [&](long long j) { return p[j] + opgen::to_acc(gr[j]); });
  }
}

// Channels a block of the GPU's column sums takes (the spec's grid: ceildiv(C, 256) blocks of 256
// threads).
constexpr int kBiasChannels = 256;

// [outer, C] rows, the GPU plan: block (b, s) sums channels [b·256, +256) over split s of the rows
// into partials[s·C + c], reading each element once, at full width: a thread owns kGroup = 8
// adjacent channels (16-byte accesses per row where g's base and C allow, else 8 scalar ones:
// _rowvec.cuh's load_vec), the block's 256 threads are 8 rows of 32 lanes (a warp reads 256
// contiguous elements of a row), and each thread walks every 8th row of the split, four rows in
// flight. The rows of lanes are added in order through shared memory (deterministic), in the same
// order for every T (a 16-bit result is the float32 one rounded once).
template <typename T, typename S>
__device__ void bias_grad_vcolumns(const T* __restrict__ g, S* __restrict__ partials, long long rows, long long C) {
  constexpr int W = opgen::kGroup, kLanes = kBiasChannels / W;
  __shared__ S sums[W][kBiasChannels];
  const int lane = threadIdx.x % kLanes, row_lane = threadIdx.x / kLanes;  // row_lane < W: 256 threads
  const long long splits = gridDim.y, per = (rows + splits - 1) / splits;
  const long long r0 = blockIdx.y * per, r1 = r0 + per < rows ? r0 + per : rows;
  const long long c = blockIdx.x * kBiasChannels + lane * W;
  const int m = C - c < W ? static_cast<int>(C - c) : W;  // int32 ok: under kGroup (or negative: no channel)
  const bool vec = opgen::aligned16(g) && C % W == 0;
  S acc[W] = {};
  if (row_lane < W && m > 0) {
    long long r = r0 + row_lane;
    for (; r + 3 * W < r1; r += 4 * W) {
      opgen::acc_t<T> v[4][W];
#pragma unroll
      for (int u = 0; u < 4; ++u) opgen::load_vec(g + (r + u * W) * C + c, m, vec, v[u]);
#pragma unroll
      for (int u = 0; u < 4; ++u) {
#pragma unroll
        for (int q = 0; q < W; ++q) acc[q] += v[u][q];
      }
    }
    for (; r < r1; r += W) {
      opgen::acc_t<T> v[W];
      opgen::load_vec(g + r * C + c, m, vec, v);
#pragma unroll
      for (int q = 0; q < W; ++q) acc[q] += v[q];
    }
  }
  if (row_lane < W) {
#pragma unroll
    for (int q = 0; q < W; ++q) sums[row_lane][lane * W + q] = acc[q];
  }
  __syncthreads();
  if (row_lane == 0) {
    for (int q = 0; q < m; ++q) {
      S t = sums[0][lane * W + q];
      for (int k = 1; k < W; ++k) t += sums[k][lane * W + q];
      partials[blockIdx.y * C + c + q] = t;
    }
  }
}

// output[c] = Σ_s partials[s·C + c], the splits in order (deterministic), rounded once.
template <typename T, typename S>
__device__ void bias_grad_finish(const S* __restrict__ partials, T* __restrict__ out, long long C, long long splits) {
  opgen::for_each_index(C, [&](long long c) {
    S t = 0;
    for (long long s = 0; s < splits; ++s) t += partials[s * C + c];
    out[c] = opgen::from_acc<T>(t);
  });
}
