{% include "kernels/_common.cuh" %}

// ScaledTanh and its gradient ScaledTanhGrad (specs/example/scaled_tanh.yaml and
// scaled_tanh_grad.yaml): one device function template per launch step. opgen generates the
// extern "C" entry points (one per step and element type) from each spec's launch plan. Arithmetic in
// float, T the storage type (opgen::to_float / opgen::from_float convert); for_each_index strides the
// grid on the GPU and gives each thread a contiguous share on the cpu backend.

// y[i] = alpha·tanh(x[i])
template <typename T>
__device__ void scaled_tanh(const T* __restrict__ x, T* __restrict__ y, long long n, float alpha) {
  opgen::for_each_index(n, [&](long long i) { y[i] = opgen::from_float<T>(alpha * tanhf(opgen::to_float(x[i]))); });
}

// dx[i] = dy[i]·alpha·(1 − tanh²(x[i]))
template <typename T>
__device__ void scaled_tanh_grad(const T* __restrict__ dy, const T* __restrict__ x, T* __restrict__ dx, long long n,
                                 float alpha) {
  opgen::for_each_index(n, [&](long long i) {
    const float t = tanhf(opgen::to_float(x[i]));
    dx[i] = opgen::from_float<T>(opgen::to_float(dy[i]) * alpha * (1.0f - t * t));
  });
}
