// ---- the activation library, generated from {{ activation_library.source | c_comment }} (edit the
// vocab, not this). Include it in any kernel template with a Jinja include of
// "kernels/_activations.cuh" (ops with an activation attr get it automatically). It gives, in
// namespace opgen::act, one float function per activation (opgen::act::tanh(x),
// opgen::act::leaky_relu(x, alpha), ...), its id (opgen::act::kTanh, ...) and
// opgen::act::Activation: an id and its parameters, callable as f(x), which is what a kernel
// receives for an activation argument.
#ifndef OPGEN_ACTIVATIONS_CUH
#define OPGEN_ACTIVATIONS_CUH
{% include "kernels/_vmath.cuh" %}
namespace opgen {
namespace act {

// The math a C expression of the vocab may call is the vector math library's scalar forms
// (kernels/_vmath.cuh), within the bounds docs/specs.md gives ("Errors in ulps"); these names
// shadow the C library's inside namespace opgen::act.
__device__ __forceinline__ float expf(float v) { return vm::exp(v); }
__device__ __forceinline__ float expm1f(float v) { return vm::expm1(v); }
__device__ __forceinline__ float logf(float v) { return vm::log(v); }
__device__ __forceinline__ float log1pf(float v) { return vm::log1p(v); }
__device__ __forceinline__ float tanhf(float v) { return vm::tanh(v); }
__device__ __forceinline__ float erff(float v) { return vm::erf(v); }

// tanh (vm::tanh: CUDA's tanhf on the GPU; on the host from expf, at a quarter of tanhf's cost).
__device__ __forceinline__ float tanh_fast(float v) { return vm::tanh(v); }

// 1/(1 + e^−v) that reaches the subnormals for v < −87 and never overflows (vm::sigmoid).
__device__ __forceinline__ float logistic(float v) { return vm::sigmoid(v); }

// ln(1 + e^v) without overflow: v + ln(1 + e^(−v)) for v > 0.
__device__ __forceinline__ float log1p_exp(float v) {
  return v > 0.f ? v + vm::log1p(vm::exp(-v)) : vm::log1p(vm::exp(v));
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
