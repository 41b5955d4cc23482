{% include "kernels/_common.cuh" %}
{% include "kernels/_loops.cuh" %}

// DepthwiseConv2d and DepthwiseConv2dGrad (specs/nn/): a 3×3 depthwise convolution NCHW, stride 1,
// padding 1, written with opgen's loop helpers (kernels/_loops.cuh): conv3x3_row computes a row in
// runs the host compiler keeps in vector registers, conv3x3_row_taps sums a row's share of the
// filter gradient. Arithmetic in opgen::acc_t<T> (float, double for float64), rounded once.

// y[n, c] = x[n, c] ⋆ filter[c] (flip = 0), or dx[n, c] = dy[n, c] ⋆ filter[c] turned by 180°
// (flip = 1: the input gradient, a convolution with the rotated window). Units are rows of the
// N·C planes: a thread per row share (the cpu plan: one-thread blocks, a contiguous share each).
template <typename T>
__device__ void depthwise_conv3x3(const T* __restrict__ x, const T* __restrict__ filter, T* __restrict__ y,
                                  long long planes, long long C, long long H, long long W, long long flip) {
  using A = opgen::acc_t<T>;
  opgen::for_each_index(planes * H, [&](long long r) {
    const long long p = r / H, row = r % H;
    A k[9];
    for (int t = 0; t < 9; ++t) k[t] = opgen::to_acc(filter[(p % C) * 9 + (flip ? 8 - t : t)]);
    opgen::conv3x3_row(x + p * H * W, H, W, row, k, y + r * W);
  });
}

// dfilter[c, 0, i, j] = Σ_n Σ_rows the taps of dy[n, c] against x[n, c]: a thread per channel,
// walking its N planes in address order.
template <typename T>
__device__ void depthwise_filter_grad(const T* __restrict__ x, const T* __restrict__ dy, T* __restrict__ dfilter,
                                      long long N, long long C, long long H, long long W) {
  using A = opgen::acc_t<T>;
  opgen::for_each_index(C, [&](long long c) {
    A acc[9] = {};
    for (long long n = 0; n < N; ++n) {
      const long long plane = (n * C + c) * H * W;
      for (long long row = 0; row < H; ++row) opgen::conv3x3_row_taps(x + plane, H, W, row, dy + plane + row * W, acc);
    }
    for (int t = 0; t < 9; ++t) dfilter[c * 9 + t] = opgen::from_acc<T>(acc[t]);
  });
}
