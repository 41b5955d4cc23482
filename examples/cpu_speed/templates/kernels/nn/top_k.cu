{% include "kernels/_common.cuh" %}
{% include "kernels/_loops.cuh" %}

// TopK (specs/nn/top_k.yaml): the k largest values of each row and their indices, largest first, a
// NaN above every number, equal values in index order (the first one first). Written with opgen's
// loop helpers (kernels/_loops.cuh), reading a row in runs (kLoopRun values, any stride) twice:
//   1. a bound: the row's first k·(D / k) values split in k groups, each group's maximum by max_into
//      and run_max; the least of them, t0, has k values at or above it (one per group), so nothing
//      below t0 is among the k largest;
//   2. the candidates: a run with no value at or above t0 is skipped after one vectorised test
//      (run_reaches); the others' values at or above t0 (about 2k of 1024 random ones for k = 8) go
//      into the sorted list.
// One pass inserting every value that beats the list's current last one costs about k·ln(D/k)
// inserts a row instead (38 for k = 8 of 1024), each a mispredicted branch or two: slower than both
// passes here (bench/bench_cpu_helpers.py times that form too).

// a ranks above b: greater, or a NaN above a number.
template <typename A>
__device__ __forceinline__ bool topk_above(A a, A b) {
  return a > b || (a != a && b == b);
}

// Inserts (v, i) into the sorted list vals/idx of `filled` entries (at most k kept), after the
// entries it does not rank above: equal values keep index order.
template <typename T, typename A>
__device__ __forceinline__ void topk_insert(T* vals, long long* idx, long long filled, long long k, A v, long long i) {
  long long at = filled < k ? filled : k - 1;
  while (at > 0 && topk_above(v, opgen::to_acc(vals[at - 1]))) {
    if (at < k) vals[at] = vals[at - 1], idx[at] = idx[at - 1];
    --at;
  }
  vals[at] = opgen::from_acc<T>(v);
  idx[at] = i;
}

// The maximum of row[begin, end) (a NaN if one is there), in runs; end > begin.
template <typename T>
__device__ __forceinline__ opgen::acc_t<T> topk_range_max(const T* row, long long begin, long long end) {
  using A = opgen::acc_t<T>;
  constexpr int R = opgen::kLoopRun;
  const A first = opgen::to_acc(row[begin]);
  A m[R];
  for (int q = 0; q < R; ++q) m[q] = first;
  for (long long j = begin; j < end; j += R) {
    A v[R];
    opgen::gather(v, row + j, 1, end - j, first);  // past the end: a value already counted
    opgen::max_into(m, v);
  }
  return opgen::run_max(m);
}

// Row r of x ([rows, D]) into values[r] and indices[r] ([rows, k]); k ≤ D (the spec's where).
template <typename T>
__device__ void top_k(const T* __restrict__ x, T* __restrict__ values, long long* __restrict__ indices,
                      long long rows, long long D, long long k) {
  using A = opgen::acc_t<T>;
  constexpr int R = opgen::kLoopRun;
  opgen::for_each_index(rows, [&](long long r) {
    if (k == 0) return;
    const T* __restrict__ row = x + r * D;
    T* vals = values + r * k;
    long long* idx = indices + r * k;
    // 1. t0: the least of the k groups' maxima (−inf if one holds a NaN: then every value is a candidate)
    const long long group = D / k;
    A t0 = opgen::neg_inf<A>();
    for (long long g = 0; g < k; ++g) {
      const A m = topk_range_max(row, g * group, (g + 1) * group);
      if (m != m) {
        t0 = opgen::neg_inf<A>();
        break;
      }
      t0 = g == 0 || m < t0 ? m : t0;
    }
    // 2. the values at or above t0 (and NaNs), in index order, into the list
    long long filled = 0;
    for (long long j = 0; j < D; j += R) {
      A v[R];
      opgen::gather(v, row + j, 1, D - j, opgen::neg_inf<A>());  // past the row's end: below any candidate
      if (!opgen::run_reaches(v, t0)) continue;
      for (long long q = 0; q < R && j + q < D; ++q) {
        if (v[q] < t0 || (filled == k && !topk_above(v[q], opgen::to_acc(vals[k - 1])))) continue;
        topk_insert(vals, idx, filled, k, v[q], j + q);
        filled += filled < k;
      }
    }
  });
}
