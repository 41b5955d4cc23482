{% include "kernels/_common.cuh" %}

// Batch normalization over x viewed as [outer, C, inner]: NHWC is [N·H·W, C, 1], NCHW is
// [N, C, H·W]. Per-channel reductions run in two launches: `*_partials` reduces split blockIdx.y
// of every channel's m = outer·inner elements into partials[split][c] (two sums for the
// gradient; the forward's mean, its rounding error and the variance), then `*_finalize` combines the splits in a
// fixed order (deterministic, no atomics) with one thread per channel.
// Channels-last data (inner == 1) is read in tiles of 32 channels × rows, so a warp reads 32
// neighbouring channels of one row (coalesced); channels-first data gives each block one channel.

// Elements a thread handles side by side (kernels/_common.cuh): more independent work per thread
// and adjacent accesses. load4/store4 and channel_partials_sliced's four partial sums assume 4.
using opgen::kRun;

// Split `split`'s share [begin, end) of a channel's m elements: whole runs per split (the last
// split may be short, and the last few empty: begin ≥ end).
__device__ __forceinline__ void split_range(long long m, long long splits, long long split, long long& begin,
                                            long long& end) {
  long long per = (m + splits - 1) / splits;
  per = (per + kRun - 1) / kRun * kRun;
  begin = split * per;
  end = begin + per < m ? begin + per : m;
}

__device__ __forceinline__ void store_partials(float* __restrict__ partials, long long C, long long c, float2 s) {
  partials[2 * (blockIdx.y * C + c)] = s.x;
  partials[2 * (blockIdx.y * C + c) + 1] = s.y;
}

// Column j of a shared tile's first `rows` rows ([row][column], 33 columns: padded against bank
// conflicts), added in row order (deterministic): a block's row groups' or warps' sums of a channel.
template <int Rows>
__device__ __forceinline__ float2 column_sum(const float2 (&tile)[Rows][33], int j, int rows) {
  float2 s = tile[0][j];
  for (int g = 1; g < rows; ++g) {
    s.x += tile[g][j].x;
    s.y += tile[g][j].y;
  }
  return s;
}

// Channel c's elements [begin, end) under the GPU's launch sizes (channels-first), strided over the
// block's threads: g(base, true) for a run of kRun adjacent elements at offset base of x when
// inner % kRun == 0 (then no run straddles two rows, m is a whole number of runs, and so is every
// split), else g(base, false) for single elements.
template <typename G>
__device__ __forceinline__ void for_each_run(long long begin, long long end, long long C, long long inner, long long c,
                                             const G& g) {
  const long long run = inner % kRun == 0 ? kRun : 1;
  long long i = begin + threadIdx.x * run;
  long long o = 0, k = 0;  // element i of the channel is [o, c, k]
  if (i < end) {  // (inner may be 0 when the channel is empty)
    o = i / inner;
    k = i - o * inner;
  }
  const long long step = static_cast<long long>(blockDim.x) * run;
  for (; i < end; i += step) {
    g((o * C + c) * inner + k, run == kRun);
    k += step;
    if (k >= inner) {
      o += k / inner;
      k %= inner;
    }
  }
}

// The shared tile of channel_partials ([row group][lane]) and of channel_partials_pairs ([row group][channel
// of the tile]; at most 16 row groups), padded against bank conflicts: one array for both (a function's
// __shared__ variable is one per kernel that reaches it, not one per caller). grad_partials of 16-bit data
// holds both paths and each launch takes one, for all its threads (its argument `pairs`), so the two
// never use the tile at once; it held a tile for each (12.9 KB of static shared memory, now 8.7 KB).
__device__ __forceinline__ float2 (&partials_tile())[32][33] {
  __shared__ float2 tile[32][33];
  return tile;
}

// Two sums per channel of a functor over the channel's elements; f(offset, c, a, b) adds to a, b
// (f.run4 four adjacent elements; f.pair_load/pair_add two adjacent channels of a row: *_pairs).
// The GPU's launch sizes: a warp reads 32 neighbouring channels of a row (channels-last), or a
// block's threads read runs of kRun adjacent elements, one vector access per operand (channels-first).
template <typename F>
__device__ __forceinline__ void channel_partials(const F& f, float* __restrict__ partials, long long m,
                                                 long long C, long long inner, long long splits) {
  long long begin, end;
  split_range(m, splits, blockIdx.y, begin, end);
  float a = 0.f, b = 0.f;
  if (inner == 1) {
    float2 (&tile)[32][33] = partials_tile();
    const int lane = threadIdx.x & 31, group = threadIdx.x >> 5, groups = blockDim.x >> 5;
    const long long c = blockIdx.x * 32LL + lane;
    if (c < C) {
      for (long long r = begin + group; r < end; r += groups) f(r * C + c, c, a, b);
    }
    tile[group][lane] = make_float2(a, b);
    __syncthreads();
    if (group == 0 && c < C) store_partials(partials, C, c, column_sum(tile, lane, groups));
  } else {
    const long long c = blockIdx.x;
    for_each_run(begin, end, C, inner, c, [&](long long base, bool four) {
      if (four) {
        f.run4(base, c, a, b);  // one vector access per operand where aligned
      } else {
        f(base, c, a, b);
      }
    });
    const float2 s = opgen::block_sum2(a, b);
    if (threadIdx.x == 0) store_partials(partials, C, c, s);
  }
}

// channel_partials' channels-last sums with a lane per two adjacent channels (16-bit data: one
// 4-byte access per operand where C is even and the pointers aligned, f.pair; else two scalar ones):
// the block is half channel_partials', 16 lanes a row group, so groups = blockDim.x / 16 is the
// same row groups and every channel's sums add the same elements in the same order.
template <typename F>
__device__ __forceinline__ void channel_partials_pairs(const F& f, float* __restrict__ partials, long long m,
                                                       long long C, long long splits) {
  long long begin, end;
  split_range(m, splits, blockIdx.y, begin, end);
  float2 (&tile)[32][33] = partials_tile();
  const int lane = threadIdx.x & 15, group = threadIdx.x >> 4, groups = blockDim.x >> 4;
  const long long c = blockIdx.x * 32LL + 2 * lane;
  float a[2] = {}, b[2] = {};
  if (c < C) {
    const bool both = c + 1 < C;  // (an odd C's last channel has no partner)
    long long r = begin + group;
    for (; r + 3 * groups < end; r += 4 * groups) {  // four rows' loads in flight, then their adds in row order
      float g[4][2], v[4][2];
#pragma unroll
      for (int q = 0; q < 4; ++q) f.pair_load((r + q * groups) * C + c, both, g[q], v[q]);
#pragma unroll
      for (int q = 0; q < 4; ++q) f.pair_add(c, both, g[q], v[q], a, b);
    }
    for (; r < end; r += groups) {
      float g[2], v[2];
      f.pair_load(r * C + c, both, g, v);
      f.pair_add(c, both, g, v, a, b);
    }
  }
  tile[group][2 * lane] = make_float2(a[0], b[0]);
  tile[group][2 * lane + 1] = make_float2(a[1], b[1]);
  __syncthreads();
  const long long c0 = blockIdx.x * 32LL, width = C - c0 < 32 ? C - c0 : 32;
  for (long long j = threadIdx.x; j < width; j += blockDim.x) {
    store_partials(partials, C, c0 + j, column_sum(tile, static_cast<int>(j), groups));  // int32 ok: j < 32
  }
}

// Channel c's elements [begin, end) under the cpu backend's launch sizes (channels-first): the
// block's thread t takes the t-th of blockDim.x consecutive slices, and g(base, n) walks it in
// stretches of n consecutive elements at offset base of x (each within one row).
template <typename G>
__device__ __forceinline__ void for_each_stretch(long long begin, long long end, long long C, long long inner,
                                                 long long c, const G& g) {
  const long long len = (end - begin + blockDim.x - 1) / blockDim.x;
  long long i = begin + threadIdx.x * len;
  const long long stop = i + len < end ? i + len : end;
  while (i < stop) {
    const long long o = i / inner, k = i - o * inner;
    const long long n = inner - k < stop - i ? inner - k : stop - i;
    g((o * C + c) * inner + k, n);
    i += n;
  }
}

// Rows [r0, r1) of a channels-last tile's `width` channels from c0, summed into sa[j], sb[j]. W:
// the width at compile time, 32 for a full tile, so the host compiler vectorises the loop over
// the channels (it was scalar, a load, add and store per element); 0: width at run time.
template <int W, typename F>
__device__ __forceinline__ void tile_sums(const F& f, long long r0, long long r1, long long C, long long c0,
                                          long long width, float (&sa)[32], float (&sb)[32]) {
  const long long w = W > 0 ? W : width;
  for (long long r = r0; r < r1; ++r) {
#pragma GCC unroll 32
    for (long long j = 0; j < w; ++j) f(r * C + c0 + j, c0 + j, sa[j], sb[j]);
  }
}

// The same sums under the cpu backend's launch sizes, where a block's threads run one after
// another: each thread sums its own consecutive slice of the split (channels-first: stretches of
// the channel's rows; channels-last: its rows over the tile's 32 channels), in independent partial
// sums the host compiler keeps in SIMD lanes; then the threads' sums are added in order.
template <typename F>
__device__ __forceinline__ void channel_partials_sliced(const F& f, float* __restrict__ partials, long long m,
                                                        long long C, long long inner, long long splits) {
  long long begin, end;
  split_range(m, splits, blockIdx.y, begin, end);
  if (inner == 1) {
    __shared__ float2 sums[32][33];  // [thread][channel of the tile]
    const long long c0 = blockIdx.x * 32LL, width = C - c0 < 32 ? C - c0 : 32;
    const long long rowsets = blockDim.x < 32 ? blockDim.x : 32;
    if (threadIdx.x < rowsets) {
      float sa[32] = {}, sb[32] = {};
      const long long len = (end - begin + rowsets - 1) / rowsets;
      const long long r0 = begin + threadIdx.x * len, r1 = r0 + len < end ? r0 + len : end;
      if (width == 32) {
        tile_sums<32>(f, r0, r1, C, c0, 32, sa, sb);
      } else {
        tile_sums<0>(f, r0, r1, C, c0, width, sa, sb);
      }
      for (int j = 0; j < 32; ++j) sums[threadIdx.x][j] = make_float2(sa[j], sb[j]);
    }
    __syncthreads();
    if (threadIdx.x < width) {
      float2 s = sums[0][threadIdx.x];
      for (long long t = 1; t < rowsets; ++t) {
        s.x += sums[t][threadIdx.x].x;
        s.y += sums[t][threadIdx.x].y;
      }
      store_partials(partials, C, c0 + threadIdx.x, s);
    }
  } else {
    const long long c = blockIdx.x;
    float ra[kRun] = {}, rb[kRun] = {};
    for_each_stretch(begin, end, C, inner, c, [&](long long base, long long n) {
      long long j = 0;
      for (; j + kRun <= n; j += kRun) {
#pragma unroll
        for (long long q = 0; q < kRun; ++q) f(base + j + q, c, ra[q], rb[q]);
      }
      for (; j < n; ++j) f(base + j, c, ra[0], rb[0]);
    });
    const float2 s = opgen::block_sum2((ra[0] + ra[1]) + (ra[2] + ra[3]), (rb[0] + rb[1]) + (rb[2] + rb[3]));
    if (threadIdx.x == 0) store_partials(partials, C, c, s);
  }
}

// Channel c's two sums over all splits, added in split order (deterministic).
__device__ __forceinline__ float2 sum_splits(const float* __restrict__ partials, long long c, long long C,
                                             long long splits) {
  float2 total = make_float2(0.f, 0.f);
  for (long long s = 0; s < splits; ++s) {
    total.x += partials[2 * (s * C + c)];
    total.y += partials[2 * (s * C + c) + 1];
  }
  return total;
}

// ---- The forward's statistics --------------------------------------------------------------------
// Count, mean and biased variance of some of a channel's values. A run of values gets its moments
// in two passes over registers or cache (their sum; then the deviations from their mean and the
// squared deviations, the corrected two-pass formula); runs, threads and splits merge by Chan et
// al.'s formula. No value is compared with an arbitrary one (a single pass of sums shifted by the
// channel's first element lost 1–4 % of the variance when that element was an outlier, issue 20).
// The mean is carried as a pair of floats (mean + err, about twice float32's precision), so the
// difference of two parts' means, which the merge squares, stays exact for data far from 0
// compared with its spread (mean 1e4, std 1); the variance is kept as the mean of the squared
// deviations, not their sum, so no partial result overflows for a channel whose variance float32
// can hold. Non-finite values give what a plain sum gives: a channel holding +inf has the mean
// +inf (NaN with −inf too), one holding NaN the mean NaN; the variance of either is NaN (PyTorch's).
struct Moments {
  float n, mean, err, var;
};

__device__ __forceinline__ bool is_finite(float v) { return fabsf(v) <= 3.402823466e38f; }

// The moments of k values from their two passes: mean = their sum · inv (inv = 1/k; rounded),
// r = Σ(v − mean) and s2 = Σ(v − mean)².
__device__ __forceinline__ Moments passes_moments(float k, float inv, float mean, float r, float s2) {
  const float err = is_finite(mean) ? r * inv : 0.f;  // what the rounded mean misses
  const float var = (s2 - r * err) * inv;  // Σ(v − mean)² − (Σ(v − mean))²/k, over k
  return Moments{k, mean, err, var < 0.f ? 0.f : var};  // (clamps a rounding below 0; NaN stays NaN)
}

// Applies s to each float of the moments: how opgen::warp_reduce shuffles them (found by
// argument-dependent lookup, beside the overloads of kernels/_common.cuh).
template <typename S>
__device__ __forceinline__ Moments map_floats(Moments v, const S& s) {
  return Moments{s(v.n), s(v.mean), s(v.err), s(v.var)};
}

// Chan et al.'s merge of two parts (a from earlier elements / lower threads).
struct MergeMoments {
  __device__ __forceinline__ Moments operator()(Moments a, Moments b) const {
    if (b.n == 0.f) return a;
    if (a.n == 0.f) return b;
    const float n = a.n + b.n, inv = 1.f / n, wa = a.n * inv, wb = b.n * inv;
    const float d = (b.mean - a.mean) + (b.err - a.err);  // the difference of the means
    const float var = (wa * a.var + wb * b.var) + (d * wa) * (d * wb);
    // mean + err = a's + wb·d, as a float pair: TwoSum, then renormalised
    const float t = d * wb, s = a.mean + t, back = s - a.mean;
    const float e = ((a.mean - (s - back)) + (t - back)) + a.err;
    const float mean = s + e, err = e - (mean - s);
    if (!is_finite(a.mean) || !is_finite(b.mean)) return Moments{n, a.mean + b.mean, 0.f, var};  // ±inf, NaN
    return Moments{n, mean, err, var};
  }
};

// Moments of v[0 .. k), 0 < k ≤ K, held in registers.
template <int K>
__device__ __forceinline__ Moments run_moments(const float (&v)[K], int k) {
  float sum = 0.f;
#pragma unroll
  for (int q = 0; q < K; ++q) sum += q < k ? v[q] : 0.f;
  const float fk = static_cast<float>(k), inv = k == K ? 1.f / K : 1.f / fk, mean = sum * inv;
  float r = 0.f, s2 = 0.f;
#pragma unroll
  for (int q = 0; q < K; ++q) {
    const float e = q < k ? v[q] - mean : 0.f;
    r += e;
    s2 += e * e;
  }
  return passes_moments(fk, inv, mean, r, s2);
}

// Moments of v[0 .. k), k > 0, in memory (a loop, not unrolled).
__device__ __forceinline__ Moments buffer_moments(const float* __restrict__ v, int k) {
  float sum = 0.f;
  for (int q = 0; q < k; ++q) sum += v[q];
  const float fk = static_cast<float>(k), inv = 1.f / fk, mean = sum * inv;
  float r = 0.f, s2 = 0.f;
  for (int q = 0; q < k; ++q) {
    const float e = v[q] - mean;
    r += e;
    s2 += e * e;
  }
  return passes_moments(fk, inv, mean, r, s2);
}

// Values a cpu-plan thread takes together (channels-first: kChunk consecutive elements;
// channels-last: about kTileValues of its tile's rows): the second pass reads them back from the
// cache, and one merge covers them.
constexpr int kChunk = 256, kTileValues = 1024;
// Values gathered from short stretches (channels-first rows shorter than a chunk) before a merge:
// a chunk on the host; 8 in NVRTC's build of the cpu plan's kernel (never launched on a GPU, but
// compiled without spilling).
#ifdef OPGEN_HOST_EMU
constexpr int kGather = kChunk;
#else
constexpr int kGather = 8;
#endif

// Moments of the kChunk consecutive elements at p, in independent partial sums the host compiler
// keeps in SIMD registers (two groups of 4 lanes: two chains of adds in flight). On the host,
// 16-bit values are converted once, into a buffer the two passes read (a conversion costs about
// as much as a pass).
template <typename T>
__device__ __forceinline__ Moments chunk_moments(const T* __restrict__ p) {
#ifdef OPGEN_HOST_EMU
  if constexpr (!opgen::is_float32<T>::value) {
    float v[kChunk];
    for (int j = 0; j < kChunk; ++j) v[j] = opgen::to_float(p[j]);
    return chunk_moments(static_cast<const float*>(v));
  }
#endif
  float s[4] = {}, t[4] = {};
  for (int j = 0; j < kChunk; j += 8) {
#pragma unroll
    for (int q = 0; q < 4; ++q) s[q] += opgen::to_float(p[j + q]);
#pragma unroll
    for (int q = 0; q < 4; ++q) t[q] += opgen::to_float(p[j + 4 + q]);
  }
  const float mean = (((s[0] + t[0]) + (s[1] + t[1])) + ((s[2] + t[2]) + (s[3] + t[3]))) * (1.f / kChunk);
  float r[4] = {}, u[4] = {}, s2[4] = {}, u2[4] = {};
  for (int j = 0; j < kChunk; j += 8) {
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const float e = opgen::to_float(p[j + q]) - mean;
      r[q] += e;
      s2[q] += e * e;
    }
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const float e = opgen::to_float(p[j + 4 + q]) - mean;
      u[q] += e;
      u2[q] += e * e;
    }
  }
  return passes_moments(static_cast<float>(kChunk), 1.f / kChunk, mean, ((r[0] + u[0]) + (r[1] + u[1])) + ((r[2] + u[2]) + (r[3] + u[3])),
                        ((s2[0] + u2[0]) + (s2[1] + u2[1])) + ((s2[2] + u2[2]) + (s2[3] + u2[3])));
}

// partials[split][c] = (mean, err, variance); the count follows from the split (split_range).
__device__ __forceinline__ void store_moments(float* __restrict__ partials, long long C, long long c, Moments s) {
  float* __restrict__ p = partials + 3 * (blockIdx.y * C + c);
  p[0] = s.mean;
  p[1] = s.err;
  p[2] = s.var;
}

// Rows [0, rows) of w channels at p (row stride ld), merged into out[j]: each channel's sum, then
// the deviations from its mean. W: the width at compile time, 32 for a full tile, so the host
// compiler vectorises the loops over channels; 0: w at run time.
template <int W, typename V>
__device__ __forceinline__ void tile_group(const V* __restrict__ p, long long ld, int rows, int width,
                                           Moments (&out)[33]) {
  const int w = W > 0 ? W : width;
  const MergeMoments merge;
  float s[32] = {}, e1[32] = {}, e2[32] = {}, mean[32];
  for (int q = 0; q < rows; ++q) {
    for (int j = 0; j < w; ++j) s[j] += opgen::to_float(p[q * ld + j]);
  }
  const float fr = static_cast<float>(rows), inv = 1.f / fr;
  for (int j = 0; j < w; ++j) mean[j] = s[j] * inv;
  for (int q = 0; q < rows; ++q) {
    for (int j = 0; j < w; ++j) {
      const float e = opgen::to_float(p[q * ld + j]) - mean[j];
      e1[j] += e;
      e2[j] += e * e;
    }
  }
  for (int j = 0; j < w; ++j) out[j] = merge(out[j], passes_moments(fr, inv, mean[j], e1[j], e2[j]));
}

// A channels-last tile under the cpu plan: one thread's rows [r0, r1) of channels c0 .. c0 + w, in
// groups of about kTileValues values (16-bit values converted once on the host, as chunk_moments).
template <int W, typename T>
__device__ __forceinline__ void tile_moments(const T* __restrict__ x, long long C, long long c0, int width,
                                             long long r0, long long r1, Moments (&out)[33]) {
  const int w = W > 0 ? W : width, group = kTileValues / w;
  for (int j = 0; j < 32; ++j) out[j] = Moments{0.f, 0.f, 0.f, 0.f};
  for (long long r = r0; r < r1; r += group) {
    const int rows = r1 - r < group ? static_cast<int>(r1 - r) : group;  // int32 ok: at most group
    const T* __restrict__ p = x + r * C + c0;
#ifdef OPGEN_HOST_EMU
    if constexpr (!opgen::is_float32<T>::value) {
      float v[kTileValues];
      for (int q = 0; q < rows; ++q) {
        for (int j = 0; j < w; ++j) v[q * w + j] = opgen::to_float(p[q * C + j]);
      }
      tile_group<W>(static_cast<const float*>(v), w, rows, w, out);
      continue;
    }
#endif
    tile_group<W>(p, C, rows, w, out);
  }
}

// Each channel's moments over split blockIdx.y, into partials[split][c] (store_moments), under the
// GPU's launch sizes: a warp reads 32 neighbouring channels of a row, kRun rows a merge
// (channels-last), or a block's threads read runs of kRun adjacent elements, one vector access
// each (channels-first); then the threads' moments merge across the block.
template <typename T>
__device__ void stats_partials(const T* __restrict__ x, float* __restrict__ partials, long long m, long long C,
                               long long inner, long long splits) {
  long long begin, end;
  split_range(m, splits, blockIdx.y, begin, end);
  const MergeMoments merge;
  Moments acc{0.f, 0.f, 0.f, 0.f};
  if (inner == 1) {
    __shared__ Moments tile[32][33];  // [row group][lane], padded against bank conflicts
    const int lane = threadIdx.x & 31, group = threadIdx.x >> 5, groups = blockDim.x >> 5;
    const long long c = blockIdx.x * 32LL + lane;
    if (c < C) {
      for (long long r = begin + group; r < end; r += kRun * groups) {
        float v[kRun];
        int k = 0;
#pragma unroll
        for (int q = 0; q < kRun; ++q) {
          const long long row = r + q * groups;
          v[q] = row < end ? opgen::to_float(x[row * C + c]) : 0.f;
          k += row < end;
        }
        acc = merge(acc, run_moments(v, k));
      }
    }
    tile[group][lane] = acc;
    __syncthreads();
    if (group == 0 && c < C) {
      for (int g = 1; g < groups; ++g) acc = merge(acc, tile[g][lane]);
      store_moments(partials, C, c, acc);
    }
  } else {
    const long long c = blockIdx.x;
    for_each_run(begin, end, C, inner, c, [&](long long base, bool four) {
      if (four) {
        float v[kRun];
        opgen::load4(x + base, v);  // one vector access where aligned
        acc = merge(acc, run_moments(v, kRun));
      } else {
        const float v[1] = {opgen::to_float(x[base])};
        acc = merge(acc, run_moments(v, 1));
      }
    });
    acc = opgen::block_reduce(acc, merge);
    if (threadIdx.x == 0) store_moments(partials, C, c, acc);
  }
}

// The same under the cpu backend's launch sizes, where a block's threads run one after another:
// each thread takes its own consecutive slice of the split (channels-first: stretches of the
// channel's rows, kChunk elements a merge; channels-last: its rows over the tile's 32 channels,
// kTileRows rows a merge), then the threads' moments merge in order.
template <typename T>
__device__ void stats_partials_sliced(const T* __restrict__ x, float* __restrict__ partials, long long m,
                                      long long C, long long inner, long long splits) {
  long long begin, end;
  split_range(m, splits, blockIdx.y, begin, end);
  const MergeMoments merge;
  if (inner == 1) {
    __shared__ Moments moments[32][33];  // [thread][channel of the tile]
    const long long c0 = blockIdx.x * 32LL, width = C - c0 < 32 ? C - c0 : 32;
    const long long rowsets = blockDim.x < 32 ? blockDim.x : 32;
    if (threadIdx.x < rowsets && width > 0) {  // (a channels-first grid has C blocks: width < 0 past C)
      const long long len = (end - begin + rowsets - 1) / rowsets;
      const long long r0 = begin + threadIdx.x * len, r1 = r0 + len < end ? r0 + len : end;
      if (width == 32) {
        tile_moments<32>(x, C, c0, 32, r0, r1, moments[threadIdx.x]);
      } else {
        tile_moments<0>(x, C, c0, static_cast<int>(width), r0, r1, moments[threadIdx.x]);  // int32 ok: < 32
      }
    }
    __syncthreads();
    if (threadIdx.x < width) {
      Moments s = moments[0][threadIdx.x];
      for (long long t = 1; t < rowsets; ++t) s = merge(s, moments[t][threadIdx.x]);
      store_moments(partials, C, c0 + threadIdx.x, s);
    }
  } else {
    const long long c = blockIdx.x;
    Moments acc{0.f, 0.f, 0.f, 0.f};
    float buf[kGather];  // values from short stretches (buffer_moments reads those written)
    int k = 0;
    for_each_stretch(begin, end, C, inner, c, [&](long long base, long long n) {
      const T* __restrict__ p = x + base;
      for (long long j = 0; j < n;) {
        if (k == 0 && n - j >= kChunk) {  // a whole chunk in place
          acc = merge(acc, chunk_moments(p + j));
          j += kChunk;
          continue;
        }
        buf[k++] = opgen::to_float(p[j++]);
        if (k == kGather) {
          acc = merge(acc, buffer_moments(buf, kGather));
          k = 0;
        }
      }
    });
    if (k > 0) acc = merge(acc, buffer_moments(buf, k));
    acc = opgen::block_reduce(acc, merge);
    if (threadIdx.x == 0) store_moments(partials, C, c, acc);
  }
}

// Per-channel affine coefficients: the elementwise passes compute y = A·x + B (forward) and
// dx = A·dy + B·x + D (gradient), so they need no square roots or divisions per element.

// Training statistics per channel from the splits' moments (merged in split order: deterministic),
// and the forward's coefficients. Non-finite values propagate as in PyTorch: the statistics of a
// channel holding NaN or ±inf are NaN (the mean ±inf for an inf), and so is its whole y.
template <typename T>
__device__ void stats_finalize(const T* __restrict__ x, const float* __restrict__ partials,
                               const float* __restrict__ scale, const float* __restrict__ offset,
                               const float* __restrict__ mean, const float* __restrict__ variance,
                               float* __restrict__ batch_mean, float* __restrict__ batch_variance,
                               float* __restrict__ saved_mean, float* __restrict__ saved_var,
                               float* __restrict__ coeffs, long long m, long long C, long long inner,
                               long long splits, float epsilon, float exponential_avg_factor) {
  (void)x, (void)inner;  // (the launch plan's arguments; the moments need neither)
  const long long c = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= C) return;
  const MergeMoments merge;
  Moments total{0.f, 0.f, 0.f, 0.f};
  for (long long s = 0; s < splits; ++s) {
    long long begin, end;
    split_range(m, splits, s, begin, end);
    if (end > begin) {
      const float* __restrict__ p = partials + 3 * (s * C + c);
      total = merge(total, Moments{static_cast<float>(end - begin), p[0], p[1], p[2]});
    }
  }
  // (m = 0: the moments of nothing, 0 and 0; a variance below 0 was clamped where it was made)
  const float mu = total.mean + total.err, var = total.var;
  const float unbiased = var * (static_cast<float>(m) / static_cast<float>(m > 1 ? m - 1 : 1));  // (var·m may overflow)
  const float f = exponential_avg_factor;
  saved_mean[c] = mu;
  saved_var[c] = var;
  // f == 1 must not read the running statistics: they may be uninitialised (NaN) then.
  batch_mean[c] = f == 1.f ? mu : (1.f - f) * mean[c] + f * mu;
  batch_variance[c] = f == 1.f ? unbiased : (1.f - f) * variance[c] + f * unbiased;
  const float a = scale[c] * rsqrtf(var + epsilon);
  coeffs[2 * c] = a;
  coeffs[2 * c + 1] = offset[c] - mu * a;
}

// Inference: the statistics outputs echo the given population statistics.
template <typename T>
__device__ void inference_stats(const float* __restrict__ scale, const float* __restrict__ offset,
                                const float* __restrict__ mean, const float* __restrict__ variance,
                                float* __restrict__ batch_mean, float* __restrict__ batch_variance,
                                float* __restrict__ saved_mean, float* __restrict__ saved_var,
                                float* __restrict__ coeffs, long long C, float epsilon) {
  const long long c = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= C) return;
  batch_mean[c] = saved_mean[c] = mean[c];
  batch_variance[c] = saved_var[c] = variance[c];
  const float a = scale[c] * rsqrtf(variance[c] + epsilon);
  coeffs[2 * c] = a;
  coeffs[2 * c + 1] = offset[c] - mean[c] * a;
}

// f.store(idx, f.value(idx, c)) for every element idx (of channel c).
//
// chunk > 0 (the cpu backend's launch sizes): thread t takes the `chunk` consecutive elements
// from t·chunk, walking them in stretches of one channel (channels-first) or one row
// (channels-last). The host emulation runs a block's threads one after another, so this streams
// memory in order and the stretches vectorise; on a GPU it would not coalesce.
//
// chunk == 0 (GPU sizes): grid-stride. Each thread takes runs of kRun adjacent elements (more work
// per thread, adjacent accesses), or of 2 for 16-bit data (f.kPairs), where the rows allow
// (runs_of); else one element at a time.
// Values the host form computes side by side before it stores them (two AVX2 registers of floats,
// four SSE ones). NVRTC compiles the cpu plan's kernels too, a GPU never runs them: few there.
#ifdef OPGEN_HOST_EMU
constexpr int kLanes = 16;
#else
constexpr int kLanes = 4;
#endif

// f.store(idx, f.value(idx, c)) for n elements from idx0, of channels c0 + j·kStep (kStep 1 along
// a channels-last row, 0 in a channels-first stretch): runs of kLanes values are computed before
// they are stored, so their loads vectorise (the functor's pointers are not restrict).
template <int kStep, typename F>
__device__ __forceinline__ void store_stretch(const F& f, long long idx0, long long c0, long long n) {
  long long j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    float v[kLanes];
#pragma GCC unroll 16
    for (int q = 0; q < kLanes; ++q) v[q] = f.value(idx0 + j + q, c0 + (j + q) * kStep);
#pragma GCC unroll 16
    for (int q = 0; q < kLanes; ++q) f.store(idx0 + j + q, v[q]);
  }
  for (; j < n; ++j) f.store(idx0 + j, f.value(idx0 + j, c0 + j * kStep));
}

// K adjacent elements at p as floats, and back: one vector access where aligned (K = kRun: 16 or 8
// bytes; K = 2: 4 bytes of 16-bit data).
template <int K, typename T>
__device__ __forceinline__ void load_run(const T* __restrict__ p, float (&v)[K]) {
  if constexpr (K == kRun) {
    opgen::load4(p, v);
  } else {
    opgen::load2(p, v);
  }
}

template <int K, typename T>
__device__ __forceinline__ void store_run(T* __restrict__ p, const float (&v)[K]) {
  if constexpr (K == kRun) {
    opgen::store4(p, v);
  } else {
    opgen::store2(p, v);
  }
}

// for_each_element's GPU form in runs of K adjacent elements a thread (f.run<K>), where a row of
// C·inner elements is a whole number of runs and fits in the grid: the stride is then a whole
// number of rows, so a thread keeps its channel(s) and no element needs a division. False (nothing
// done) where the rows are not.
template <int K, typename F>
__device__ __forceinline__ bool runs_of(const F& f, long long total, long long C, long long inner, long long threads,
                                        long long t) {
  const long long row = C * inner;
  if (row % K != 0 || (inner != 1 && inner % K != 0) || row > threads * K) return false;
  const long long stride = threads * K / row * row;  // elements per pass, whole rows
  const long long first = t * K;
  if (first >= stride) return true;
  const long long c = (first % row) / inner, step = inner == 1 ? 1 : 0;  // channel of each run element
  for (long long idx = first; idx < total; idx += stride) f.template run<K>(idx, c, step);
  return true;
}

template <typename F>
__device__ __forceinline__ void for_each_element(const F& f, long long total, long long C, long long inner,
                                                 long long chunk) {
  const long long threads = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (chunk > 0) {
    long long idx = t * chunk;
    if (idx >= total) return;
    const long long last = idx + chunk < total ? idx + chunk : total;
    long long c = (idx / inner) % C, k = idx % inner;
    while (idx < last) {
      if (inner == 1) {  // the rest of a row: channels c .. C−1
        const long long n = C - c < last - idx ? C - c : last - idx;
        store_stretch<1>(f, idx, c, n);
        idx += n;
        c = 0;
      } else {  // the rest of channel c's stretch of `inner` elements
        const long long n = inner - k < last - idx ? inner - k : last - idx;
        store_stretch<0>(f, idx, c, n);
        idx += n;
        k = 0;
        if (++c == C) c = 0;
      }
    }
    return;
  }
  // runs of kRun adjacent elements (one vector access each); 16-bit data whose rows are not: pairs
  // (one 4-byte access each, where aligned); else one element at a time
  if (runs_of<kRun>(f, total, C, inner, threads, t)) return;
  if constexpr (F::kPairs) {
    if (runs_of<2>(f, total, C, inner, threads, t)) return;
  }
  for (long long idx = t; idx < total; idx += threads) f.store(idx, f.value(idx, (idx / inner) % C));
}

template <typename T>
struct Affine {
  const T* x;
  const float* coeffs;
  T* y;
  __device__ __forceinline__ float value(long long idx, long long c) const {
    return opgen::to_float(x[idx]) * coeffs[2 * c] + coeffs[2 * c + 1];
  }
  __device__ __forceinline__ void store(long long idx, float v) const { y[idx] = opgen::from_float<T>(v); }
  static constexpr bool kPairs = opgen::is_16bit_float<T>::value;  // runs of 2 (for_each_element)
  // elements idx .. idx+K−1 (idx a multiple of K) of channels c, c + step, ..., c + (K−1)·step
  template <int K>
  __device__ __forceinline__ void run(long long idx, long long c, long long step) const {
    float v[K];
    load_run<K>(x + idx, v);
#pragma unroll
    for (int j = 0; j < K; ++j) v[j] = v[j] * coeffs[2 * (c + j * step)] + coeffs[2 * (c + j * step) + 1];
    store_run<K>(y + idx, v);
  }
};

template <typename T>
__device__ void normalize(const T* __restrict__ x, const float* __restrict__ coeffs, T* __restrict__ y,
                          long long total, long long C, long long inner, long long chunk) {
  for_each_element(Affine<T>{x, coeffs, y}, total, C, inner, chunk);
}

// Σ dy and Σ dy·(x−μ) per channel.
template <typename T>
struct GradSums {
  const T* dy;
  const T* x;
  const float* mu;
  __device__ __forceinline__ void operator()(long long offset, long long c, float& a, float& b) const {
    const float g = opgen::to_float(dy[offset]);
    a += g;
    b += g * (opgen::to_float(x[offset]) - mu[c]);
  }
  __device__ __forceinline__ void run4(long long offset, long long c, float& a, float& b) const {
    float g[4], v[4];
    opgen::load4(dy + offset, g);
    opgen::load4(x + offset, v);
    const float m = mu[c];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      a += g[j];
      b += g[j] * (v[j] - m);
    }
  }
  // channels c and c + 1 (only c unless both) of the row at offset: their values, then added as
  // operator() adds each
  __device__ __forceinline__ void pair_load(long long offset, bool both, float (&g)[2], float (&v)[2]) const {
    if (both) {
      opgen::load2(dy + offset, g);
      opgen::load2(x + offset, v);
    } else {
      g[0] = opgen::to_float(dy[offset]), v[0] = opgen::to_float(x[offset]);
      g[1] = v[1] = 0.f;
    }
  }
  __device__ __forceinline__ void pair_add(long long c, bool both, const float (&g)[2], const float (&v)[2],
                                           float (&a)[2], float (&b)[2]) const {
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      if (j == 0 || both) {
        a[j] += g[j];
        b[j] += g[j] * (v[j] - mu[c + j]);
      }
    }
  }
};

template <typename T>
__device__ void grad_partials(const T* __restrict__ dy, const T* __restrict__ x, const float* __restrict__ mu,
                              float* __restrict__ partials, long long m, long long C, long long inner,
                              long long splits, long long pairs) {
  if constexpr (opgen::is_16bit_float<T>::value) {
    if (pairs) {  // (the spec's let pairs: channels-last, a block of half the threads)
      channel_partials_pairs(GradSums<T>{dy, x, mu}, partials, m, C, splits);
      return;
    }
  }
  channel_partials(GradSums<T>{dy, x, mu}, partials, m, C, inner, splits);
}

template <typename T>
__device__ void grad_partials_sliced(const T* __restrict__ dy, const T* __restrict__ x, const float* __restrict__ mu,
                                     float* __restrict__ partials, long long m, long long C, long long inner,
                                     long long splits) {
  channel_partials_sliced(GradSums<T>{dy, x, mu}, partials, m, C, inner, splits);
}

// Channel c's results from its two sums: offset_backprop = Σ dy; scale_backprop = Σ dy·(x−μ)·r;
// and k, the coefficients of dx = A·dy + B·x + D. Training: A = scale·r, B = −A·r·scale_backprop/m,
// D = −A·Σdy/m − B·μ. Inference: A = scale·r, B = D = 0.
__device__ __forceinline__ void grad_results(float sum_dy, float sum_dy_xc, long long c, const float* __restrict__ scale,
                                             const float* __restrict__ mu, const float* __restrict__ var,
                                             float* __restrict__ scale_backprop, float* __restrict__ offset_backprop,
                                             long long m, float epsilon, int is_training, float (&k)[3]) {
  const float r = rsqrtf(var[c] + epsilon);
  offset_backprop[c] = sum_dy;
  scale_backprop[c] = sum_dy_xc * r;
  const float a = scale[c] * r;
  float b = 0.f, d = 0.f;
  if (is_training && m > 0) {
    const float inv_m = 1.f / static_cast<float>(m);
    b = -a * r * (sum_dy_xc * r) * inv_m;
    d = -a * sum_dy * inv_m - b * mu[c];
  }
  k[0] = a;
  k[1] = b;
  k[2] = d;
}

// The splits' sums of each channel, its results and coefficients: A, B and D of all channels one
// after another (coeffs[c], coeffs[C + c], coeffs[2C + c]), so a channels-last row reads each in order.
template <typename T>
__device__ void grad_finalize(const float* __restrict__ partials, const float* __restrict__ scale,
                              const float* __restrict__ mu, const float* __restrict__ var,
                              float* __restrict__ scale_backprop, float* __restrict__ offset_backprop,
                              float* __restrict__ coeffs, long long m, long long C, long long splits,
                              float epsilon, int is_training) {
  const long long c = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= C) return;
  const float2 sums = sum_splits(partials, c, C, splits);
  float k[3];
  grad_results(sums.x, sums.y, c, scale, mu, var, scale_backprop, offset_backprop, m, epsilon, is_training, k);
  coeffs[c] = k[0];
  coeffs[C + c] = k[1];
  coeffs[2 * C + c] = k[2];
}

template <typename T>
struct GradAffine {
  const T* dy;
  const T* x;
  const float* coeffs;  // A, B, D of the C channels (grad_finalize)
  long long C;
  T* dx;
  __device__ __forceinline__ float value(long long idx, long long c) const {
    return coeffs[c] * opgen::to_float(dy[idx]) + coeffs[C + c] * opgen::to_float(x[idx]) + coeffs[2 * C + c];
  }
  __device__ __forceinline__ void store(long long idx, float v) const { dx[idx] = opgen::from_float<T>(v); }
  static constexpr bool kPairs = opgen::is_16bit_float<T>::value;
  template <int K>
  __device__ __forceinline__ void run(long long idx, long long c, long long step) const {
    float g[K], v[K];
    load_run<K>(dy + idx, g);
    load_run<K>(x + idx, v);
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const long long cj = c + j * step;
      v[j] = coeffs[cj] * g[j] + coeffs[C + cj] * v[j] + coeffs[2 * C + cj];
    }
    store_run<K>(dx + idx, v);
  }
};

// Inference: dx = A·dy. x is not read, so a NaN or inf in x leaves dx finite, as in PyTorch and
// TensorFlow (0·inf would be NaN in A·dy + 0·x).
template <typename T>
struct GradScale {
  const T* dy;
  const float* coeffs;  // A of the C channels first (grad_finalize)
  T* dx;
  __device__ __forceinline__ float value(long long idx, long long c) const {
    return coeffs[c] * opgen::to_float(dy[idx]);
  }
  __device__ __forceinline__ void store(long long idx, float v) const { dx[idx] = opgen::from_float<T>(v); }
  static constexpr bool kPairs = opgen::is_16bit_float<T>::value;
  template <int K>
  __device__ __forceinline__ void run(long long idx, long long c, long long step) const {
    float g[K];
    load_run<K>(dy + idx, g);
#pragma unroll
    for (int j = 0; j < K; ++j) g[j] *= coeffs[c + j * step];
    store_run<K>(dx + idx, g);
  }
};

template <typename T>
__device__ void grad_input(const T* __restrict__ dy, const T* __restrict__ x, const float* __restrict__ coeffs,
                           T* __restrict__ dx, long long total, long long C, long long inner, long long chunk,
                           int is_training) {
  if (is_training) {
    for_each_element(GradAffine<T>{dy, x, coeffs, C, dx}, total, C, inner, chunk);
  } else {
    for_each_element(GradScale<T>{dy, coeffs, dx}, total, C, inner, chunk);
  }
}

// ---- The GPU's gradient of channels-last data (NHWC, NDHWC) that fits a block: one launch -------
// A block owns a tile of 32 channels (a warp's lanes: a row's 32 neighbouring channels, coalesced)
// over all m rows, and reads dy and x once: warp w keeps rows w, w + warps, ... (at most
// kOnceRows a thread) in registers as floats and sums them in that order; the warps' sums are
// added in warp order (deterministic), warp 0 forms each channel's results and coefficients as
// grad_finalize does, and every thread writes dx of the rows it kept. The three launches read
// both inputs twice and pass the sums and coefficients through memory. The op's variant `once`
// (m ≤ 16 warps × kOnceRows, the param once_max_rows) chooses it; its block is 32·min(m, 16) threads: the
// 128 registers a thread may hold at 512 keep 2 × 24 values without spilling in every NVRTC of the CI
// (2 × 32 spilled 8 bytes on sm_100, 2 × 16 at 1,024 threads and 64 registers up to 40).
constexpr int kOnceRows = 24;

template <typename T>
__device__ void grad_once(const T* __restrict__ dy, const T* __restrict__ x, const float* __restrict__ scale,
                          const float* __restrict__ mu, const float* __restrict__ var, T* __restrict__ dx,
                          float* __restrict__ scale_backprop, float* __restrict__ offset_backprop, long long m,
                          long long C, float epsilon, int is_training) {
  __shared__ float2 sums[16][33];  // [warp][lane], padded against bank conflicts
  __shared__ float coef[3][32];    // A, B, D of the tile's channels
  __shared__ long long walk_C;     // C, read back after the barrier (below)
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  const long long c = blockIdx.x * 32LL + lane;
  const bool live = c < C;
  const float mc = live ? mu[c] : 0.f;
  // rows warp, warp + warps, ...: n of them; their offsets step by warps·C, walked in order
  const long long kept = live && m > warp ? (m - warp + warps - 1) / warps : 0;
  const int n = static_cast<int>(kept < kOnceRows ? kept : kOnceRows);  // int32 ok: at most kOnceRows
  const long long first = warp * C + c, step = warps * C;
  float g[kOnceRows], v[kOnceRows], a = 0.f, b = 0.f;
  long long at = first;
#pragma unroll
  for (int q = 0; q < kOnceRows; ++q) {
    g[q] = v[q] = 0.f;
    if (q < n) {
      g[q] = opgen::to_float(dy[at]);
      v[q] = opgen::to_float(x[at]);
      a += g[q];
      b += g[q] * (v[q] - mc);
    }
    at += step;
  }
  sums[warp][lane] = make_float2(a, b);
  if (threadIdx.x == 0) walk_C = C;
  __syncthreads();
  if (warp == 0 && live) {
    const float2 s = column_sum(sums, lane, warps);
    float k[3];
    grad_results(s.x, s.y, c, scale, mu, var, scale_backprop, offset_backprop, m, epsilon, is_training, k);
    coef[0][lane] = k[0];
    coef[1][lane] = k[1];
    coef[2][lane] = k[2];
  }
  __syncthreads();
  if (!live) return;  // (no coefficients past the last channel)
  const float ka = coef[0][lane], kb = coef[1][lane], kd = coef[2][lane];
  // The same offsets again, from C as read back: NVRTC would otherwise keep the first walk's 24
  // offsets (48 registers) across the barrier for these stores, and spill.
  const long long wc = walk_C;
  at = warp * wc + c;
#pragma unroll
  for (int q = 0; q < kOnceRows; ++q) {
    if (q < n) {
      // as GradAffine and GradScale: inference reads no x (a NaN in x leaves dx finite)
      const float d = is_training ? ka * g[q] + kb * v[q] + kd : ka * g[q];
      dx[at] = opgen::from_float<T>(d);
    }
    at += warps * wc;
  }
}

// ---- The cpu plan's gradient of channels-first data (NCHW, NCDHW), a block per channel ----------
// One thread owns channel c: its outer rows of `inner` consecutive elements. Pass 1 sums dy and
// dy·(x−μ) in 16 independent sums per quantity (two AVX2 registers, four SSE ones: the adds do not
// wait on each other and the loads vectorise); the channel's results follow as grad_finalize
// computes them; pass 2 writes dx in runs of kLanes while the channel's dy and x are still in the
// cache (32×56×56 floats of each are 800 KB: read once from memory, where the three-launch plan
// read them twice with the partials and coefficients between). Deterministic: one thread, a fixed
// order.
#ifdef OPGEN_HOST_EMU
// Eight floats as one GCC vector: one AVX2 register (two SSE ones on the baseline build). The
// compiler's own vectorisation of lane arrays splits these sums unevenly (scalar, 2- and 4-wide).
typedef float Float8 __attribute__((vector_size(32)));

template <typename T>
__device__ __forceinline__ Float8 load8(const T* __restrict__ p) {
  float f[8];
#pragma GCC unroll 8
  for (int q = 0; q < 8; ++q) f[q] = opgen::to_float(p[q]);
  Float8 v;
  __builtin_memcpy(&v, f, sizeof v);  // (a plain unaligned load for float)
  return v;
}

__device__ __forceinline__ float lane_sum(Float8 v) {
  return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7]));
}
#endif

// Adds Σ g and Σ g·(v − mc) over a row of n elements into the totals ta, tb. On the host: 16
// independent sums per quantity in two vectors, folded pairwise at the row's end; in double
// across rows, so a float sum spans at most n / 16 values.
template <typename T>
__device__ __forceinline__ void add_row_sums(const T* __restrict__ g, const T* __restrict__ v, float mc, long long n,
                                             double& ta, double& tb) {
  long long j = 0;
  float a = 0.f, b = 0.f;
#ifdef OPGEN_HOST_EMU
  Float8 a0 = {}, a1 = {}, b0 = {}, b1 = {};
  for (; j + 16 <= n; j += 16) {
    const Float8 g0 = load8(g + j), g1 = load8(g + j + 8);
    a0 += g0;
    a1 += g1;
    b0 += g0 * (load8(v + j) - mc);
    b1 += g1 * (load8(v + j + 8) - mc);
  }
  a = lane_sum(a0 + a1);
  b = lane_sum(b0 + b1);
#endif
  float ra = 0.f, rb = 0.f;
  for (; j < n; ++j) {
    const float gj = opgen::to_float(g[j]);
    ra += gj;
    rb += gj * (opgen::to_float(v[j]) - mc);
  }
  ta += static_cast<double>(a + ra);
  tb += static_cast<double>(b + rb);
}

template <typename T>
__device__ void grad_channels(const T* __restrict__ dy, const T* __restrict__ x, const float* __restrict__ scale,
                              const float* __restrict__ mu, const float* __restrict__ var, T* __restrict__ dx,
                              float* __restrict__ scale_backprop, float* __restrict__ offset_backprop,
                              long long outer, long long C, long long inner, float epsilon, int is_training) {
  const long long c = blockIdx.x;
  if (threadIdx.x != 0 || c >= C) return;  // (the plan launches blocks of one thread)
  const float mc = mu[c];
  double ta = 0.0, tb = 0.0;
  for (long long o = 0; o < outer; ++o) {
    const T* __restrict__ g = dy + (o * C + c) * inner;
    const T* __restrict__ v = x + (o * C + c) * inner;
    add_row_sums(g, v, mc, inner, ta, tb);
  }
  float k[3];
  grad_results(static_cast<float>(ta), static_cast<float>(tb), c, scale, mu, var, scale_backprop, offset_backprop,
               outer * inner, epsilon, is_training, k);
  // dx row by row, as grad_input writes it: k is A, B, D of one channel, planar coefficients of C = 1
  for (long long o = 0; o < outer; ++o) {
    const long long at = (o * C + c) * inner;
    if (is_training) {
      store_stretch<0>(GradAffine<T>{dy, x, k, 1, dx}, at, 0, inner);
    } else {
      store_stretch<0>(GradScale<T>{dy, k, dx}, at, 0, inner);
    }
  }
}
