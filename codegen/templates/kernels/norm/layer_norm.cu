{% include "kernels/_common.cuh" %}
{% include "kernels/_rowvec.cuh" %}

// LayerNorm and LayerNormGrad over x viewed as [rows, D]. One kernel per step for both launch
// plans: the row and column building blocks of kernels/_common.cuh take the GPU's form (a block's
// threads stride a row and reduce across the block) or the host emulation's (one thread walks the
// row in vectorised loops), so nothing here depends on the backend.

// The per-element loops are templates on whether gamma and beta are given, so they test neither.
// (Template functions, not generic lambdas: NVRTC 13.0 rejects a lambda with `auto` parameters in
// device code as a host function, "not allowed in JIT mode"; nvcc and NVRTC 13.5 accept it.)
template <bool HasGamma, bool HasBeta, typename T>
__device__ __forceinline__ void normalize_row(long long D, const T* __restrict__ xr, const T* __restrict__ gamma,
                                              const T* __restrict__ beta, T* __restrict__ yr, float mu, float rs) {
  const auto y = [&](float x, float g, float b) {
    float v = (x - mu) * rs;
    if constexpr (HasGamma) v *= g;
    if constexpr (HasBeta) v += b;
    return v;
  };
  // e: x[j], then gamma[j] and beta[j] where given (_rowvec.cuh reads only the inputs passed)
  if constexpr (HasGamma && HasBeta) {
    opgen::row_vstore(D, yr, [&](long long, const float* e) { return y(e[0], e[1], e[2]); }, xr, gamma, beta);
  } else if constexpr (HasGamma) {
    opgen::row_vstore(D, yr, [&](long long, const float* e) { return y(e[0], e[1], 0.f); }, xr, gamma);
  } else if constexpr (HasBeta) {
    opgen::row_vstore(D, yr, [&](long long, const float* e) { return y(e[0], 0.f, e[1]); }, xr, beta);
  } else {
    opgen::row_vstore(D, yr, [&](long long, const float* e) { return y(e[0], 0.f, 0.f); }, xr);
  }
}

// dx of one row; g = dy·gamma (dy without gamma). e: dy[j], x[j], then gamma[j] where given.
template <bool HasGamma, typename T, typename... Gamma>
__device__ __forceinline__ void grad_input_row(long long D, const T* __restrict__ dyr, const T* __restrict__ xr,
                                               T* __restrict__ dxr, float mu, float rs, Gamma... gamma) {
  const auto g = [&](const float* e) {
    if constexpr (HasGamma) return e[0] * e[2];
    else return e[0];
  };
  const float2 sums = opgen::row_vreduce(D, opgen::SumOp{}, make_float2(0.f, 0.f), [&](long long, const float* e) {
    const float gj = g(e);
    return make_float2(gj, gj * ((e[1] - mu) * rs));
  }, dyr, xr, gamma...);
  const float inv_d = D > 0 ? 1.f / static_cast<float>(D) : 0.f;
  const float mean_g = sums.x * inv_d, mean_gx = sums.y * inv_d;
  opgen::row_vstore(D, dxr, [&](long long, const float* e) {
    const float xhat = (e[1] - mu) * rs;
    return rs * (g(e) - mean_g - xhat * mean_gx);
  }, dyr, xr, gamma...);
}

template <typename T, typename S>
__device__ void layer_norm(const T* __restrict__ x, const T* __restrict__ gamma, const T* __restrict__ beta,
                           T* __restrict__ y, S* __restrict__ mean, S* __restrict__ rstd, long long rows,
                           long long D, float epsilon) {
  opgen::for_each_row(rows, [&](long long r) {
    const T* __restrict__ xr = x + r * D;
    T* __restrict__ yr = y + r * D;
    const opgen::MeanVar s = opgen::row_vmean_var(D, [&](long long, const float* e) { return e[0]; }, xr);
    // an empty row (D = 0): mean 0 and variance 0 (MeanVar's count 0), as FusedBatchNormV3 takes an
    // empty channel (PyTorch's native_layer_norm gives rstd NaN there)
    const float mu = s.mean, rs = rsqrtf(s.variance() + epsilon);
    if (gamma != nullptr && beta != nullptr) normalize_row<true, true>(D, xr, gamma, beta, yr, mu, rs);
    else if (gamma != nullptr) normalize_row<true, false>(D, xr, gamma, beta, yr, mu, rs);
    else if (beta != nullptr) normalize_row<false, true>(D, xr, gamma, beta, yr, mu, rs);
    else normalize_row<false, false>(D, xr, gamma, beta, yr, mu, rs);
    if (opgen::row_leader()) {
      mean[r] = static_cast<S>(mu);
      rstd[r] = static_cast<S>(rs);
    }
  });
}

// dx = rstd·(g − mean(g) − x̂·mean(g·x̂)), g = dy·gamma, x̂ = (x − mean)·rstd; one row per block.
template <typename T, typename S>
__device__ void layer_norm_grad_input(const T* __restrict__ dy, const T* __restrict__ x, const S* __restrict__ mean,
                                      const S* __restrict__ rstd, const T* __restrict__ gamma, T* __restrict__ dx,
                                      long long rows, long long D) {
  opgen::for_each_row(rows, [&](long long r) {
    const T* __restrict__ dyr = dy + r * D;
    const T* __restrict__ xr = x + r * D;
    T* __restrict__ dxr = dx + r * D;
    const float mu = static_cast<float>(mean[r]), rs = static_cast<float>(rstd[r]);
    if (gamma != nullptr) grad_input_row<true>(D, dyr, xr, dxr, mu, rs, gamma);
    else grad_input_row<false>(D, dyr, xr, dxr, mu, rs);
  });
}

// Per-column Σ dy·x̂ and Σ dy over a share of the rows (kernels/_common.cuh: column_sums2).
template <typename T, typename S>
__device__ void layer_norm_grad_partials(const T* __restrict__ dy, const T* __restrict__ x,
                                         const S* __restrict__ mean, const S* __restrict__ rstd,
                                         float* __restrict__ partials, long long rows, long long D, long long tile) {
  opgen::column_sums2(
      [&](long long r, long long c) {
        const float d = opgen::to_float(dy[r * D + c]);
        const float xhat = (opgen::to_float(x[r * D + c]) - static_cast<float>(mean[r])) * static_cast<float>(rstd[r]);
        return make_float2(d * xhat, d);
      },
      partials, rows, D, tile);
}

// dgamma and dbeta: each column's shares added in order (deterministic).
template <typename T>
__device__ void layer_norm_grad_params(const float* __restrict__ partials, T* __restrict__ dgamma,
                                       T* __restrict__ dbeta, long long D, long long splits) {
  opgen::for_each_index(D, [&](long long c) {
    const float2 t = opgen::column_total(partials, splits, D, c);
    dgamma[c] = opgen::from_float<T>(t.x);
    dbeta[c] = opgen::from_float<T>(t.y);
  });
}
