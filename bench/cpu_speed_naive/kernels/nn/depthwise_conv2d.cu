{% include "kernels/_common.cuh" %}

// The naive DepthwiseConv2d kernels bench/bench_cpu_helpers.py times beside examples/cpu_speed's:
// the same device functions written as plain per-element loops, without kernels/_loops.cuh (what the
// helpers save an author from unrolling by hand). Same results to rounding.

template <typename T>
__device__ void depthwise_conv3x3(const T* __restrict__ x, const T* __restrict__ filter, T* __restrict__ y,
                                  long long planes, long long C, long long H, long long W, long long flip) {
  using A = opgen::acc_t<T>;
  opgen::for_each_index(planes * H, [&](long long r) {
    const long long p = r / H, row = r % H;
    const T* plane = x + p * H * W;
    for (long long col = 0; col < W; ++col) {
      A s = A(0);
      for (int dy = 0; dy < 3; ++dy) {
        for (int dx = 0; dx < 3; ++dx) {
          const long long yy = row + dy - 1, xx = col + dx - 1;
          const int t = flip ? 8 - (3 * dy + dx) : 3 * dy + dx;
          if (yy >= 0 && yy < H && xx >= 0 && xx < W) s += opgen::to_acc(filter[(p % C) * 9 + t]) *
                                                             opgen::to_acc(plane[yy * W + xx]);
        }
      }
      y[r * W + col] = opgen::from_acc<T>(s);
    }
  });
}

template <typename T>
__device__ void depthwise_filter_grad(const T* __restrict__ x, const T* __restrict__ dy, T* __restrict__ dfilter,
                                      long long N, long long C, long long H, long long W) {
  using A = opgen::acc_t<T>;
  opgen::for_each_index(C, [&](long long c) {
    A acc[9] = {};
    for (long long n = 0; n < N; ++n) {
      const long long plane = (n * C + c) * H * W;
      for (long long row = 0; row < H; ++row) {
        for (long long col = 0; col < W; ++col) {
          const A g = opgen::to_acc(dy[plane + row * W + col]);
          for (int ty = 0; ty < 3; ++ty) {
            for (int tx = 0; tx < 3; ++tx) {
              const long long yy = row + ty - 1, xx = col + tx - 1;
              if (yy >= 0 && yy < H && xx >= 0 && xx < W) acc[3 * ty + tx] += g * opgen::to_acc(x[plane + yy * W + xx]);
            }
          }
        }
      }
    }
    for (int t = 0; t < 9; ++t) dfilter[c * 9 + t] = opgen::from_acc<T>(acc[t]);
  });
}
