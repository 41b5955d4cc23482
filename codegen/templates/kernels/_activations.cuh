// ---- the activation library, generated from {{ activation_library.source | c_comment }} (edit the
// vocab, not this). Include it in any kernel template with a Jinja include of
// "kernels/_activations.cuh" (ops with an activation attr get it automatically). It gives, in
// namespace opgen::act, one float function per activation (opgen::act::tanh(x),
// opgen::act::leaky_relu(x, alpha), ...), its id (opgen::act::kTanh, ...) and
// opgen::act::Activation: an id and its parameters, callable as f(x), which is what a kernel
// receives for an activation argument.
#ifndef OPGEN_ACTIVATIONS_CUH
#define OPGEN_ACTIVATIONS_CUH
namespace opgen {
namespace act {

// tanh from one expf: sign(v)·(1 − e^(−2|v|))/(1 + e^(−2|v|)), and for |v| < 1/4 (where that
// difference loses bits) its odd Taylor series to v⁹ (truncation error below 1e-8 relative).
// Within a few float ulp of tanh everywhere; NaN stays NaN, ±inf gives ±1. On the cpu backend the
// C library's tanhf goes through expm1f, about four times the cost of expf.
__device__ __forceinline__ float tanh_fast(float v) {
  const float a = fabsf(v);
  if (a < 0.25f) {
    const float v2 = v * v;  // tanh v = v − v³/3 + 2v⁵/15 − 17v⁷/315 + 62v⁹/2835 − …
    return v + v * v2 * (-1.f / 3.f + v2 * (2.f / 15.f + v2 * (-17.f / 315.f + v2 * (62.f / 2835.f))));
  }
  const float e = expf(-2.f * a);
  return copysignf((1.f - e) / (1.f + e), v);
}

// ln(1 + e^v) without overflow: v + ln(1 + e^(−v)) for v > 0.
__device__ __forceinline__ float log1p_exp(float v) {
  return v > 0.f ? v + log1pf(expf(-v)) : log1pf(expf(v));
}

{% for kind in activation_library.kinds %}
constexpr int k{{ kind.name | camel }} = {{ kind.id }};
{% endfor %}

{% for kind in activation_library.kinds %}
// {{ kind.name }}: {{ kind.formula | c_comment }}
__device__ __forceinline__ float {{ kind.name }}(float x{% for p in kind.params %}, float {{ p.name }}{% endfor %}) {
  return {{ kind.c_expr }};
}

{% endfor %}
// An activation of the library and its parameters, as launch arguments pass it: `f(x)`.
struct Activation {
  int id;
{% for i in range(activation_library.slots) %}
  float p{{ i }};
{% endfor %}

  __device__ __forceinline__ float operator()(float x) const {
    switch (id) {
{% for kind in activation_library.kinds %}
      case k{{ kind.name | camel }}:
        return act::{{ kind.name }}(x{% for p in kind.params %}, p{{ loop.index0 }}{% endfor %});
{% endfor %}
      default:
        return x;  // unreachable: wrappers only pass ids of the library
    }
  }
};

}  // namespace act
}  // namespace opgen
#endif  // OPGEN_ACTIVATIONS_CUH
