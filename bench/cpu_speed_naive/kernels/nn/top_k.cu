{% include "kernels/_common.cuh" %}

// The naive TopK kernel bench/bench_cpu_helpers.py times beside examples/cpu_speed's: every element
// compared with the k-th value one by one, without kernels/_loops.cuh's gather runs.

template <typename A>
__device__ __forceinline__ bool topk_above(A a, A b) {
  return a > b || (a != a && b == b);
}

template <typename T>
__device__ void top_k(const T* __restrict__ x, T* __restrict__ values, long long* __restrict__ indices,
                      long long rows, long long D, long long k) {
  using A = opgen::acc_t<T>;
  opgen::for_each_index(rows, [&](long long r) {
    T* vals = values + r * k;
    long long* idx = indices + r * k;
    for (long long j = 0; j < D; ++j) {
      const A v = opgen::to_acc(x[r * D + j]);
      const long long filled = j < k ? j : k;
      if (k == 0 || (filled == k && !topk_above(v, opgen::to_acc(vals[k - 1])))) continue;
      long long at = filled < k ? filled : k - 1;
      while (at > 0 && topk_above(v, opgen::to_acc(vals[at - 1]))) {
        if (at < k) vals[at] = vals[at - 1], idx[at] = idx[at - 1];
        --at;
      }
      vals[at] = opgen::from_acc<T>(v);
      idx[at] = j;
    }
  });
}
