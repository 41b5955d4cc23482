{% include "kernels/_common.cuh" %}
{% include "kernels/_loops.cuh" %}

// TopK (specs/nn/top_k.yaml): the k largest values of each row and their indices, largest first, a
// NaN above every number, equal values in index order (the first one first). Written with opgen's
// gather and run_max helpers: a row is read in runs (kLoopRun values, any stride), and a run holding
// nothing above the current k-th value is skipped after one vectorised test of its maximum. What is
// left is the inserts (about k·ln(D/k) per row: 38 for k = 8 of 1024), the bulk of the time.

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
    long long j = 0;
    for (; j < k; ++j) topk_insert(vals, idx, j, k, opgen::to_acc(row[j]), j);
    A least = opgen::to_acc(vals[k - 1]);
    for (; j < D; j += R) {
      A v[R];
      opgen::gather(v, row + j, 1, D - j, least);  // past the row's end: the k-th value, which never enters
      if (!topk_above(opgen::run_max(v), least)) continue;  // nothing in the run enters the list
      for (int q = 0; q < R; ++q) {
        if (topk_above(v[q], least)) {
          topk_insert(vals, idx, k, k, v[q], j + q);
          least = opgen::to_acc(vals[k - 1]);
        }
      }
    }
  });
}
