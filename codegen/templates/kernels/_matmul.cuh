// ---- opgen::matmul_tile / opgen::matmul_grid / opgen::matmul_tile_groups: a tiled matrix product for
// kernel authors
// (docs/specs.md, "Writing kernels": the matrix-product building block; tests/test_matmul_block.py).
// Include it in a kernel template with a Jinja include of "kernels/_matmul.cuh" after the one of
// "kernels/_common.cuh" (whose acc_t, to_acc and from_acc it uses; that file has no include guard,
// so this one does not include it). No Jinja syntax below: the text is rendered as a template.
//
// C[m, n] = op(A)[m, k]·op(B)[k, n], or C += op(A)·op(B) with `accumulate` (beta 1). Operands are
// row-major matrices in global memory with leading dimensions: A is stored [m, k] (lda ≥ k), or
// [k, m] with its trans flag (lda ≥ m); B is stored [k, n] (ldb ≥ n), or [n, k] with trans (ldb ≥ k);
// C is [m, n] (ldc ≥ n) and must not overlap A or B. The products are summed in acc_t<T> (float for
// float16, bfloat16 and float; double for double), the old C (accumulate) is added to the sum in
// acc_t<T>, and the result is rounded once to T (from_acc: nearest even). With k = 0, C becomes 0,
// or stays as it is, bit for bit, with accumulate.
//
// matmul_tile<Tiles>(...) computes one BM×BN tile of C, rows [tile_row·BM, +BM) and columns
// [tile_col·BN, +BN) (clipped to m and n; a tile outside C does nothing): the caller maps tiles (or
// rows of a batch) to blocks as it likes. matmul_grid<Tiles>(...) computes all of C, the grid's
// blocks (all three grid dimensions, linearised) taking tiles in turn; launch
// ceildiv(m, BM)·ceildiv(n, BN) blocks for one tile each. Every thread of the block must make the
// call, with the same arguments (the GPU form has barriers), and may make it again right away.
// matmul_tile_groups<Tiles, G>(...) computes that tile of up to G products sharing op(A) (below);
// tile_any_row and for_each_tile_cell help a kernel work on the tile's cells afterwards (at the end).
//
// The two forms (both run on the emulation; OPGEN_GPU_FORM selects the GPU's, as in _common.cuh):
// * GPU form (NVRTC, and the emulation with OPGEN_GPU_FORM): 1-D blocks of exactly
//   Tiles::kThreads threads ((BM/TM)·(BN/TN): 256 for the default 64×64 tile with 4×4 per thread;
//   another size traps). Per BK-deep step, the block stages op(A)'s BM×BK and op(B)'s BK×BN panels
//   in shared memory (as acc_t<T>, at most 48 KiB: a static_assert), then each thread adds TM×TN
//   products into registers. Each element of C is summed in order, p = 0, 1, ..., k−1. A GPU fuses
//   each step into an FMA: the same values for 16-bit operands (their products are exact in float),
//   a rounding less per step for float and double.
// * host form (the cpu backend): 1-D blocks of any size (1 is fastest: every thread is a fiber);
//   no shared memory. The block's threads take groups of the tile's rows (of C, or of Cᵀ for
//   Aᵀ·Bᵀ) round robin, and compute them in register blocks of GCC vectors of kHostRun = 8 values
//   of acc_t, so the loops stay in vector registers (AVX2, or SSE on the baseline build):
//   - op(A)·op(B)ᵀ with both k-contiguous (A not transposed, B transposed: h·Rᵀ): dot products,
//     the k-loop innermost over both rows, 2 rows × 4 columns at a time, in 8 partial sums each:
//     s_q adds the p ≡ q (mod 8) below 8·⌊k/8⌋ in order, the rest are added to s_0 in order, and
//     the element is ((s0 + s4) + (s2 + s6)) + ((s1 + s5) + (s3 + s7)) (_common.cuh's host_reduce);
//   - every other layout: 4 rows × a run of 16 (AVX2 floats) or 8 columns of C (of Cᵀ for Aᵀ·Bᵀ)
//     at a time, p = 0, 1, ..., k−1 in order (the GPU form's order), each step reading a row of
//     op(B) (of op(A)ᵀ) contiguously (copied into a contiguous stack buffer first, a piece of k at
//     a time, where those rows lie a multiple of 1 KiB apart); a tile's last columns one at a time.
//   The host form uses about 10 KiB of a fiber's stack (OPGEN_HOST_STACK_KB, 64 by default).
// Error (any order, either form): |sum − exact| ≤ γ_k·Σ_p |a_ip||b_pj| with γ_k = k·u/(1 − k·u), u
// the unit roundoff of acc_t<T> (2⁻²⁴ float, 2⁻⁵³ double); γ_(k+1)·(Σ_p |a_ip||b_pj| + |c_ij|) with
// accumulate. Then one rounding to T (relative 2⁻¹¹ float16, 2⁻⁸ bfloat16, 2⁻²⁴ float, none for
// double). On the emulation (built with -ffp-contract=off) both forms give the same bits wherever
// their orders are the same.
#ifndef OPGEN_MATMUL_CUH
#define OPGEN_MATMUL_CUH
namespace opgen {

// An input operand: the matrix op(X), element (r, p) read from X's storage.
template <typename T>
struct MatrixIn {
  const T* data;
  long long ld;  // X's leading dimension (its row length in memory)
  bool trans;    // op(X) = Xᵀ
  __device__ __forceinline__ T at(long long r, long long p) const {
    return trans ? data[p * ld + r] : data[r * ld + p];
  }
  __device__ __forceinline__ MatrixIn transposed() const { return MatrixIn{data, ld, !trans}; }
};
template <typename T>
struct MatrixOut {
  T* data;
  long long ld;
};
template <typename T>
__device__ __forceinline__ MatrixIn<T> matrix_in(const T* data, long long ld, bool trans = false) {
  return MatrixIn<T>{data, ld, trans};
}
template <typename T>
__device__ __forceinline__ MatrixOut<T> matrix_out(T* data, long long ld) { return MatrixOut<T>{data, ld}; }

// The tile sizes: BM×BN elements of C per tile, BK-deep shared-memory panels and TM×TN elements per
// thread in the GPU form, which runs kThreads threads per block. The host form uses BM and BN only.
template <int BM_ = 64, int BN_ = 64, int BK_ = 16, int TM_ = 4, int TN_ = 4>
struct MatmulTiles {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, TM = TM_, TN = TN_;
  static constexpr int kThreads = (BM / TM) * (BN / TN);
  static_assert(BM > 0 && BN > 0 && BK > 0 && TM > 0 && TN > 0, "opgen::MatmulTiles: sizes must be positive");
  static_assert(BM % TM == 0 && BN % TN == 0, "opgen::MatmulTiles: TM must divide BM and TN divide BN");
  static_assert(kThreads <= 1024, "opgen::MatmulTiles: (BM/TM)·(BN/TN) threads, at most 1024");
  static_assert(TM * TN <= 64, "opgen::MatmulTiles: at most 64 elements of C per thread (registers)");
  static_assert(BM <= 1024 && BN <= 1024, "opgen::MatmulTiles: BM and BN at most 1024");
  // The GPU form's shared memory for element type T: both panels, in acc_t<T>, a padding column each.
  template <typename T>
  __host__ __device__ static constexpr long long shared_bytes() {
    return static_cast<long long>(BK) * (BM + 1 + BN + 1) * static_cast<long long>(sizeof(acc_t<T>));
  }
};

namespace matmul_detail {

template <typename T, typename A>
__device__ __forceinline__ void store_element(T* c, A v, bool accumulate) {
  *c = from_acc<T>(accumulate ? v + to_acc(*c) : v);
}

#ifdef OPGEN_HOST_FORM
// kHostRun values of acc_t as one GCC vector (an AVX2 register for floats, two SSE ones on the
// baseline build): lane-wise arithmetic, so the partial sums keep their order, and g++ keeps them
// whole (an array of 4×8 scalar sums it leaves scalar).
template <typename A>
struct HostRun {
  typedef A type __attribute__((vector_size(kHostRun * sizeof(A))));
};
template <typename A> using host_run_t = typename HostRun<A>::type;
// A vector register's bytes: 32 where the build targets AVX2, 16 on the x86-64 baseline (16 registers
// either way); the axpy blocks size themselves to keep their sums in half of them.
#ifdef __AVX2__
constexpr int kHostRegisterBytes = 32;
#else
constexpr int kHostRegisterBytes = 16;
#endif

// v = L consecutive values as acc_t<T>, where V is acc_t<T> itself (L = 1) or a run (L = kHostRun).
// (An out-parameter: g++ warns that returning a vector wider than the build's registers changes
// the ABI, although every call here is inlined.)
template <typename V, typename T>
__device__ __forceinline__ void load_lanes(V& v, const T* p) {
  using A = acc_t<T>;
  if constexpr (sizeof(V) == sizeof(A)) {
    v = to_acc(*p);
  } else if constexpr (same_type<T, A>::value) {
    memcpy(&v, p, sizeof v);
  } else {
#pragma GCC unroll 8
    for (int q = 0; q < kHostRun; ++q) v[q] = to_acc(p[q]);
  }
}

// ((s0 + s4) + (s2 + s6)) + ((s1 + s5) + (s3 + s7)) of a run's lanes s_q: host_reduce's pairwise
// order, computed by halving the vector (4 lanes, then 2, then 1).
template <typename V>
__device__ __forceinline__ auto host_run_sum(const V& v) {
  typedef decltype(v[0] + v[0]) A;
  static_assert(sizeof(V) == 8 * sizeof(A), "opgen::matmul: host_run_sum takes runs of 8 lanes");
  typedef A V4 __attribute__((vector_size(4 * sizeof(A))));
  V4 lo, hi;
  memcpy(&lo, &v, sizeof lo);
  memcpy(&hi, reinterpret_cast<const char*>(&v) + sizeof lo, sizeof hi);
  const V4 h = lo + hi;
  return (h[0] + h[2]) + (h[1] + h[3]);
}

// out[r][s] = Σ_p x_r[p]·y_s[p] for RI rows x_r = x + r·ldx and RJ rows y_s = y + s·ldy (both
// k-contiguous), each in the kHostRun partial sums of the header's dot-product order (that of
// _common.cuh's host_reduce); every load serves RI or RJ of the RI·RJ vector sums. Out of line: its
// loop needs 8 vector and 9 integer registers, and inlined into the kernel beside the other forms
// g++ spilled one of them inside the loop (A·Bᵀ 0.29 -> 0.33 ms, bench/bench_matmul_block.py).
template <int RI, int RJ, typename T, typename A>
__device__ __attribute__((noinline)) void host_dots(long long k, const T* x, long long ldx, const T* y, long long ldy,
                                          A (&out)[RI][RJ]) {
  using V = host_run_t<A>;
  V run[RI][RJ];
  for (int r = 0; r < RI; ++r) {
    for (int s = 0; s < RJ; ++s) run[r][s] = V{};
  }
  long long p = 0;
  for (; p + kHostRun <= k; p += kHostRun) {
    V xv[RI];
#pragma GCC unroll 4
    for (int r = 0; r < RI; ++r) load_lanes(xv[r], x + r * ldx + p);
#pragma GCC unroll 4
    for (int s = 0; s < RJ; ++s) {
      V yv;
      load_lanes(yv, y + s * ldy + p);
#pragma GCC unroll 4
      for (int r = 0; r < RI; ++r) run[r][s] += xv[r] * yv;
    }
  }
  for (int r = 0; r < RI; ++r) {
    for (int s = 0; s < RJ; ++s) {
      for (long long e = p; e < k; ++e) run[r][s][0] += to_acc(x[r * ldx + e]) * to_acc(y[s * ldy + e]);
      out[r][s] = host_run_sum(run[r][s]);
    }
  }
}

// acc[r][v] += Σ_p x[r·x_row + p·x_step]·y[p·ldy + v·L + l] for RI rows and NV runs of L lanes
// (V: L lanes of acc_t<T>), p = 0 … k−1 in order, each step reading NV·L consecutive elements of
// y's row p.
template <int RI, int NV, typename V, typename T>
__device__ __forceinline__ void host_axpy_block(long long k, const T* x, long long x_row, long long x_step, const T* y,
                                                long long ldy, V (&acc)[RI][NV]) {
  using A = acc_t<T>;
  constexpr int L = static_cast<int>(sizeof(V) / sizeof(A));
  for (long long p = 0; p < k; ++p) {
    V yv[NV];
    for (int v = 0; v < NV; ++v) load_lanes(yv[v], y + p * ldy + v * L);
#pragma GCC unroll 4
    for (int r = 0; r < RI; ++r) {
      const A xv = to_acc(x[r * x_row + p * x_step]);
      for (int v = 0; v < NV; ++v) acc[r][v] += xv * yv[v];
    }
  }
}

// c[l·c_col] = lane l of v, rounded to T (added to C's value first with accumulate).
template <typename V, typename T>
__device__ __forceinline__ void store_lanes(T* c, long long c_col, const V& v, bool accumulate) {
  using A = acc_t<T>;
  A lanes[sizeof(V) / sizeof(A)];
  memcpy(lanes, &v, sizeof lanes);
  for (int l = 0; l < static_cast<int>(sizeof(V) / sizeof(A)); ++l) store_element(c + l * c_col, lanes[l], accumulate);
}

// The rows of a register block, as a type: a host form's loops pass Rows<G> or Rows<1>.
template <int N> struct Rows { static constexpr int value = N; };

// f(Rows<G>{}, r) for each whole group of G rows [r, r + G) of [first, n), step `stride` between
// groups, then f(Rows<1>{}, r) for each row of a last partial group.
template <int G, typename F>
__device__ __forceinline__ void host_row_groups_from(long long first, long long stride, long long n, const F& f) {
  for (long long r = first; r < n; r += stride) {
    if (r + G <= n) {
      f(Rows<G>{}, r);
    } else {
      for (long long e = r; e < n; ++e) f(Rows<1>{}, e);
    }
  }
}
// The groups of [0, n) the calling thread takes (round robin over the block's threads) / all of them.
template <int G, typename F>
__device__ __forceinline__ void host_row_groups(long long n, const F& f) {
  host_row_groups_from<G>(threadIdx.x * static_cast<long long>(G), static_cast<long long>(blockDim.x) * G, n, f);
}
template <int G, typename F>
__device__ __forceinline__ void host_row_groups_of(long long n, const F& f) {
  host_row_groups_from<G>(0, G, n, f);
}

// Columns [0, NV·L) of every output row r < out_rows (x, y and c at the first row and column), in
// batches of kPackRows rows, each in register blocks of 4 rows over pieces of kPackDepth k-steps (the
// sums carry over from piece to piece, so p stays in order). Where y's rows lie a multiple of 1 KiB
// apart, they fall into a few cache sets and do not stay in L1 between register blocks: each piece
// of y's stripe is then first copied into a contiguous buffer (a BLAS's packing), which they share.
// Uses about 10 KiB of the fiber's stack.
template <int NV, typename V, typename T>
__device__ __forceinline__ void host_axpy_columns(long long k, long long out_rows, const T* x, long long x_row,
                                                  long long x_step, const T* y, long long ldy, T* c, long long c_row,
                                                  long long c_col, bool accumulate) {
  constexpr int L = static_cast<int>(sizeof(V) / sizeof(acc_t<T>)), W = NV * L;
  constexpr int kPackRows = 32;
  constexpr long long kPackDepth = 8192 / (W * static_cast<long long>(sizeof(T)));
  const bool packed = ldy * static_cast<long long>(sizeof(T)) % 1024 == 0;
  T pack[kPackDepth * W];
  V sums[kPackRows][NV];
  for (long long r0 = threadIdx.x * static_cast<long long>(kPackRows); r0 < out_rows;
       r0 += static_cast<long long>(blockDim.x) * kPackRows) {
    const long long rows = out_rows - r0 < kPackRows ? out_rows - r0 : kPackRows;
    for (long long p0 = 0; p0 == 0 || p0 < k; p0 += kPackDepth) {
      const long long depth = k - p0 < kPackDepth ? k - p0 : kPackDepth;
      if (packed) {
        for (long long p = 0; p < depth; ++p) memcpy(pack + p * W, y + (p0 + p) * ldy, W * sizeof(T));
      }
      const T* ys = packed ? pack : y + p0 * ldy;
      const long long lds = packed ? W : ldy;
      const bool last = p0 + kPackDepth >= k;
      host_row_groups_of<4>(rows, [&](auto group, long long r) {
        constexpr int RI = decltype(group)::value;
        V acc[RI][NV];
        for (int e = 0; e < RI; ++e) {
          for (int v = 0; v < NV; ++v) acc[e][v] = p0 == 0 ? V{} : sums[r + e][v];
        }
        host_axpy_block(depth, x + (r0 + r) * x_row + p0 * x_step, x_row, x_step, ys, lds, acc);
        for (int e = 0; e < RI; ++e) {
          for (int v = 0; v < NV; ++v) {
            if (last) store_lanes(c + (r0 + r + e) * c_row + v * L * c_col, c_col, acc[e][v], accumulate);
            else sums[r + e][v] = acc[e][v];
          }
        }
      });
    }
  }
}

// The host form's tile when op(A)'s and op(B)ᵀ's rows are both k-contiguous (A·Bᵀ): C's rows
// [i0, i0 + rows) × columns [j0, j0 + cols) as dot products, register blocks of 2 rows × 4 columns.
template <typename T>
__device__ __forceinline__ void host_dot_tile(long long k, MatrixIn<T> xa, MatrixIn<T> xb, T* c_tile, long long ldc,
                                              long long rows, long long cols, bool accumulate) {
  using A = acc_t<T>;
  constexpr int kDots = 4;
  host_row_groups<2>(rows, [=](auto group, long long i) {
    constexpr int RI = decltype(group)::value;
    const T* x = xa.data + i * xa.ld;
    long long j = 0;
    for (; j + kDots <= cols; j += kDots) {
      A out[RI][kDots];
      host_dots(k, x, xa.ld, xb.data + j * xb.ld, xb.ld, out);
      for (int r = 0; r < RI; ++r) {
        for (int s = 0; s < kDots; ++s) store_element(c_tile + (i + r) * ldc + j + s, out[r][s], accumulate);
      }
    }
    for (; j < cols; ++j) {
      A out[RI][1];
      host_dots(k, x, xa.ld, xb.data + j * xb.ld, xb.ld, out);
      for (int r = 0; r < RI; ++r) store_element(c_tile + (i + r) * ldc + j, out[r][0], accumulate);
    }
  });
}

// The host form's tile for every other layout: runs along the side that is contiguous in memory (y):
// C's rows when op(B)'s rows are (B not transposed: y = op(B)), else Cᵀ's rows (Aᵀ·Bᵀ: y = op(A)ᵀ,
// the output rows are C's columns). Register blocks of 4 rows × NV runs (16 floats with AVX2, else
// 8 values), then 4 rows × one run, then the last columns one at a time. x and y start at the
// tile's first row, c_tile at its first element.
template <typename T>
__device__ __forceinline__ void host_axpy_tile(long long k, MatrixIn<T> x, MatrixIn<T> y, T* c_tile, long long c_row,
                                               long long c_col, long long out_rows, long long out_cols,
                                               bool accumulate) {
  using A = acc_t<T>;
  using V = host_run_t<A>;
  // 4 rows × NV runs in 8 registers at most: 2 runs of floats with AVX2, else 1
  constexpr int NV = 4 * 2 * sizeof(V) <= 8 * kHostRegisterBytes ? 2 : 1, W = NV * kHostRun;
  const long long x_row = x.trans ? 1 : x.ld, x_step = x.trans ? x.ld : 1;
  long long q = 0;
  for (; q + W <= out_cols; q += W) {
    host_axpy_columns<NV, V>(k, out_rows, x.data, x_row, x_step, y.data + q, y.ld, c_tile + q * c_col, c_row, c_col,
                             accumulate);
  }
  for (; q + kHostRun <= out_cols; q += kHostRun) {
    host_axpy_columns<1, V>(k, out_rows, x.data, x_row, x_step, y.data + q, y.ld, c_tile + q * c_col, c_row, c_col,
                            accumulate);
  }
  for (; q < out_cols; ++q) {
    host_axpy_columns<1, A>(k, out_rows, x.data, x_row, x_step, y.data + q, y.ld, c_tile + q * c_col, c_row, c_col,
                            accumulate);
  }
}

// The host form of a tile: C's rows [i0, i0 + rows), columns [j0, j0 + cols); xa = op(A), xb = op(B)ᵀ
// (both [·, k], as matrix_in views: trans means contiguous along the tile's side, not along k).
template <typename T>
__device__ __forceinline__ void host_tile(long long k, MatrixIn<T> xa, MatrixIn<T> xb, MatrixOut<T> c, long long i0,
                                          long long rows, long long j0, long long cols, bool accumulate) {
  T* c_tile = c.data + i0 * c.ld + j0;
  // a view's rows from the tile's first one on: `first` rows in (along its contiguous side when trans)
  const auto from = [](MatrixIn<T> v, long long first) {
    return MatrixIn<T>{v.trans ? v.data + first : v.data + first * v.ld, v.ld, v.trans};
  };
  if (!xa.trans && !xb.trans) {
    host_dot_tile(k, from(xa, i0), from(xb, j0), c_tile, c.ld, rows, cols, accumulate);
  } else if (xb.trans) {
    host_axpy_tile(k, from(xa, i0), from(xb, j0), c_tile, c.ld, 1, rows, cols, accumulate);
  } else {  // Aᵀ·Bᵀ: Cᵀ's rows
    host_axpy_tile(k, from(xb, j0), from(xa, i0), c_tile, 1, c.ld, cols, rows, accumulate);
  }
}

#else  // the GPU form

// s[p][r] = x(r0 + r, p0 + p) for r < R, p < BK: zero beyond `rows` and `depth`. Consecutive
// threads read consecutive addresses (along k, or along the rows when x.trans).
template <int R, int BK, int kThreads, typename A, typename T>
__device__ __forceinline__ void load_panel(A (&s)[BK][R + 1], MatrixIn<T> x, long long r0, long long rows, long long p0,
                                           int depth) {
  for (int e = threadIdx.x; e < R * BK; e += kThreads) {
    const int r = x.trans ? e % R : e / BK;
    const int p = x.trans ? e / R : e % BK;
    s[p][r] = r0 + r < rows && p < depth ? to_acc(x.at(r0 + r, p0 + p)) : A(0);
  }
}

// `groups` products sharing op(A) (G ≥ groups, a compile-time bound for the sums' registers): C_g =
// op(A)·op(B_g), B_g's view (as op(B)ᵀ, xb) and C_g's moved by g·b_step and g·c_step elements. Per
// BK-deep step op(A)'s panel is loaded once for every group; each C_g element is summed exactly as
// with one group.
template <typename Tiles, int G, typename T>
__device__ __forceinline__ void gpu_tile(long long k, MatrixIn<T> xa, MatrixIn<T> xb, long long b_step, MatrixOut<T> c,
                                         long long c_step, int groups, long long m, long long n, long long i0,
                                         long long j0, bool accumulate) {
  using A = acc_t<T>;
  constexpr int BM = Tiles::BM, BN = Tiles::BN, BK = Tiles::BK, TM = Tiles::TM, TN = Tiles::TN;
  constexpr int TX = BN / TN, TY = BM / TM;  // threads along a row of the tile / along a column
  static_assert(Tiles::template shared_bytes<T>() + (G - 1) * BK * (BN + 1) * sizeof(A) <= 48 * 1024,
                "opgen::matmul_tile: the GPU form's panels exceed 48 KiB of shared memory (make BK, BM or BN "
                "smaller)");
  static_assert(G * TM * TN <= 64, "opgen::matmul_tile_groups: at most 64 sums per thread (G·TM·TN, registers)");
  if (blockDim.x != static_cast<unsigned>(Tiles::kThreads)) __trap();  // the layout below needs exactly these
  __shared__ A a_panel[BK][BM + 1];  // a_panel[p][i] = op(A)(i0 + i, p0 + p); padded against bank conflicts
  __shared__ A b_panel[G][BK][BN + 1];  // b_panel[g][p][j] = op(B_g)(p0 + p, j0 + j)
  const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;  // rows ty + r·TY, columns tx + s·TX
  A acc[G][TM][TN];
#pragma unroll
  for (int g = 0; g < G; ++g) {
#pragma unroll
    for (int r = 0; r < TM; ++r) {
#pragma unroll
      for (int s = 0; s < TN; ++s) acc[g][r][s] = A(0);
    }
  }
  for (long long p0 = 0; p0 < k; p0 += BK) {
    const int depth = k - p0 < BK ? static_cast<int>(k - p0) : BK;  // int32 ok: at most BK
    load_panel<BM, BK, Tiles::kThreads>(a_panel, xa, i0, m, p0, depth);
#pragma unroll
    for (int g = 0; g < G; ++g) {
      if (g < groups) {
        load_panel<BN, BK, Tiles::kThreads>(b_panel[g], MatrixIn<T>{xb.data + g * b_step, xb.ld, xb.trans}, j0, n,
                                            p0, depth);
      }
    }
    __syncthreads();
    for (int p = 0; p < depth; ++p) {
      A av[TM];
#pragma unroll
      for (int r = 0; r < TM; ++r) av[r] = a_panel[p][ty + r * TY];
#pragma unroll
      for (int g = 0; g < G; ++g) {
        if (g < groups) {
          A bv[TN];
#pragma unroll
          for (int s = 0; s < TN; ++s) bv[s] = b_panel[g][p][tx + s * TX];
#pragma unroll
          for (int r = 0; r < TM; ++r) {
#pragma unroll
            for (int s = 0; s < TN; ++s) acc[g][r][s] += av[r] * bv[s];
          }
        }
      }
    }
    __syncthreads();  // the panels are written again by the next step (or the next call)
  }
#pragma unroll
  for (int g = 0; g < G; ++g) {
    if (g >= groups) continue;
#pragma unroll
    for (int r = 0; r < TM; ++r) {
      const long long i = i0 + ty + r * TY;
#pragma unroll
      for (int s = 0; s < TN; ++s) {
        const long long j = j0 + tx + s * TX;
        if (i < m && j < n) store_element(c.data + g * c_step + i * c.ld + j, acc[g][r][s], accumulate);
      }
    }
  }
}
#endif

}  // namespace matmul_detail

// The same tile of `groups` products that share op(A) (1 ≤ groups ≤ G): C_g = op(A)·op(B_g) (C_g +=
// with accumulate) for g < groups, where B_g is b with its data moved by g·b_step elements and C_g is
// c with its data moved by g·c_step (the same leading dimensions and transposes): an LSTM's four gates,
// say, R's row blocks a gate apart. Each C_g gets exactly matmul_tile's bits (the same sums in the
// same order). The GPU form loads op(A)'s panel once per BK-deep step for all the groups and keeps
// G·TM·TN sums per thread (at most 64: a static_assert), a B panel per group in shared memory; the
// host form computes the groups one after the other.
template <typename Tiles, int G, typename T>
__device__ __forceinline__ void matmul_tile_groups(long long m, long long n, long long k, MatrixIn<T> a,
                                                   MatrixIn<T> b, MatrixOut<T> c, bool accumulate, long long tile_row,
                                                   long long tile_col, int groups, long long b_step,
                                                   long long c_step) {
  static_assert(G >= 1, "opgen::matmul_tile_groups: G ≥ 1");
  const long long i0 = tile_row * Tiles::BM, j0 = tile_col * Tiles::BN;
  if (i0 < 0 || j0 < 0 || i0 >= m || j0 >= n || (accumulate && k <= 0) || groups < 1) return;
  if (groups > G) __trap();  // more products than the sums' registers hold
  const long long depth = k > 0 ? k : 0;
  // op(A) as [m, k] and op(B)ᵀ as [n, k]: both tile panels are then "rows of the tile × k".
  const MatrixIn<T> xa = a, xb = b.transposed();
#ifdef OPGEN_HOST_FORM
  const long long rows = m - i0 < Tiles::BM ? m - i0 : Tiles::BM, cols = n - j0 < Tiles::BN ? n - j0 : Tiles::BN;
  for (int g = 0; g < groups; ++g) {
    const MatrixIn<T> xb_g{xb.data + g * b_step, xb.ld, xb.trans};
    matmul_detail::host_tile(depth, xa, xb_g, MatrixOut<T>{c.data + g * c_step, c.ld}, i0, rows, j0, cols,
                             accumulate);
  }
#else
  matmul_detail::gpu_tile<Tiles, G>(depth, xa, xb, b_step, c, c_step, groups, m, n, i0, j0, accumulate);
#endif
}

// One BM×BN tile of C = op(A)·op(B) (C += with accumulate): see the header comment.
template <typename Tiles, typename T>
__device__ __forceinline__ void matmul_tile(long long m, long long n, long long k, MatrixIn<T> a, MatrixIn<T> b,
                                            MatrixOut<T> c, bool accumulate, long long tile_row, long long tile_col) {
  matmul_tile_groups<Tiles, 1>(m, n, k, a, b, c, accumulate, tile_row, tile_col, 1, 0LL, 0LL);
}

// All of C, the grid's blocks taking its tiles in turn (row-major tile order).
template <typename Tiles, typename T>
__device__ __forceinline__ void matmul_grid(long long m, long long n, long long k, MatrixIn<T> a, MatrixIn<T> b,
                                            MatrixOut<T> c, bool accumulate) {
  if (m <= 0 || n <= 0) return;
  const long long tiles_n = (n + Tiles::BN - 1) / Tiles::BN, tiles = (m + Tiles::BM - 1) / Tiles::BM * tiles_n;
  const long long blocks = static_cast<long long>(gridDim.x) * static_cast<long long>(gridDim.y) * gridDim.z;
  const long long block =
      blockIdx.x + static_cast<long long>(gridDim.x) * (blockIdx.y + static_cast<long long>(gridDim.y) * blockIdx.z);
  for (long long t = block; t < tiles; t += blocks) {
    matmul_tile<Tiles>(m, n, k, a, b, c, accumulate, t / tiles_n, t % tiles_n);
  }
}

// ---- a fused epilogue: elementwise work on the tile a block's matmul_tile (or _groups) just wrote,
// after a __syncthreads(), so that the product never makes a round trip through another kernel (the
// RNNs' fused steps).

// Whether tile (tile_row, tile_col) lies outside C [m, n] (a grid sized with room to spare): such a
// block returns before its first barrier, as a whole.
template <typename Tiles>
__device__ __forceinline__ bool tile_outside(long long m, long long n, long long tile_row, long long tile_col) {
  return tile_row * Tiles::BM >= m || tile_col * Tiles::BN >= n;
}

// Whether pred(i) holds for any row i of tile `tile_row` (rows [tile_row·BM, +BM) clipped to m):
// every thread gets the same answer, so a block can skip its product together, barriers intact.
template <typename Tiles, typename P>
__device__ __forceinline__ bool tile_any_row(long long m, long long tile_row, const P& pred) {
  bool any = false;
  for (long long i = tile_row * Tiles::BM; i < m && i < (tile_row + 1) * Tiles::BM; ++i) any = any || pred(i);
  return any;
}

// f(i, j_begin, j_end) over the cells of tile (tile_row, tile_col), clipped to m × n: in the host form
// thread 0 takes each row whole (the block's other threads none: a fiber per thread costs more than a
// row), on the GPU each cell goes to a thread of its own (j_end = j_begin + 1), consecutive threads
// on consecutive columns.
template <typename Tiles, typename F>
__device__ __forceinline__ void for_each_tile_cell(long long m, long long n, long long tile_row, long long tile_col,
                                                   const F& f) {
  const long long i0 = tile_row * Tiles::BM, j0 = tile_col * Tiles::BN;
  const long long rows = m - i0 < Tiles::BM ? m - i0 : Tiles::BM, cols = n - j0 < Tiles::BN ? n - j0 : Tiles::BN;
  if (rows <= 0 || cols <= 0) return;
#ifdef OPGEN_HOST_FORM
  if (threadIdx.x != 0) return;
  for (long long r = 0; r < rows; ++r) f(i0 + r, j0, j0 + cols);
#else
  const int n_rows = static_cast<int>(rows), n_cols = static_cast<int>(cols);  // int32 ok: at most 1024 each
  for (int e = threadIdx.x; e < n_rows * n_cols; e += blockDim.x) {  // (a 32-bit division: no runtime call)
    const int r = e / n_cols;
    const long long j = j0 + (e - r * n_cols);
    f(i0 + r, j, j + 1);
  }
#endif
}

// dst = srcᵀ: src [rows, cols] (row-major) into dst [cols, rows], a row of dst per index over the grid: a
// product that would read its B transposed reads this copy as stored (the RNN cpu plans' copies of R:
// OpenBLAS's untransposed kernels are the faster ones there, bench/RESULTS.md 2026-11-30).
template <typename T>
__device__ __forceinline__ void transpose_into(const T* __restrict__ src, T* __restrict__ dst, long long rows,
                                               long long cols) {
  for_each_index(cols, [&](long long k) {
    for (long long g = 0; g < rows; ++g) dst[k * rows + g] = src[g * cols + k];
  });
}

}  // namespace opgen
#endif  // OPGEN_MATMUL_CUH
