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
#ifdef OPGEN_VM_HOST
// The run form's vector twins (host form): each function's C expression again, with x a vm::vf of
// kLanes values (the parameters stay floats) and the math calls vm's vector forms. A twin exists
// where the expression is a vf expression (the SFINAE'd return type): one that is not (a parameter
// alone, say) has none, and its run form calls the scalar function on every element.
namespace lanes {
using vm::vf;
using act::expf, act::expm1f, act::logf, act::log1pf, act::tanhf, act::erff;  // on floats, as above
using act::tanh_fast, act::logistic, act::log1p_exp, ::fabsf, ::fminf, ::fmaxf, ::sqrtf;
__device__ __forceinline__ vf expf(vf v) { return vm::exp(v); }
__device__ __forceinline__ vf expm1f(vf v) { return vm::expm1(v); }
__device__ __forceinline__ vf logf(vf v) { return vm::log(v); }
__device__ __forceinline__ vf log1pf(vf v) { return vm::log1p(v); }
__device__ __forceinline__ vf tanhf(vf v) { return vm::tanh(v); }
__device__ __forceinline__ vf erff(vf v) { return vm::erf(v); }
__device__ __forceinline__ vf tanh_fast(vf v) { return vm::tanh(v); }
__device__ __forceinline__ vf logistic(vf v) { return vm::sigmoid(v); }
__device__ __forceinline__ vf fabsf(vf v) { return vm::detail::abs(v); }
__device__ __forceinline__ vf sqrtf(vf v) {
  for (int q = 0; q < vm::kLanes; ++q) v[q] = ::sqrtf(v[q]);  // correctly rounded, as the scalar's
  return v;
}
// fminf/fmaxf's rule: a NaN operand gives the other one.
__device__ __forceinline__ vf fminf(vf a, vf b) { return (a < b) | (b != b) ? a : b; }
__device__ __forceinline__ vf fmaxf(vf a, vf b) { return (a > b) | (b != b) ? a : b; }
__device__ __forceinline__ vf fminf(vf a, float b) { return fminf(a, b - vf{}); }
__device__ __forceinline__ vf fminf(float a, vf b) { return fminf(a - vf{}, b); }
__device__ __forceinline__ vf fmaxf(vf a, float b) { return fmaxf(a, b - vf{}); }
__device__ __forceinline__ vf fmaxf(float a, vf b) { return fmaxf(a - vf{}, b); }
// ln(1 + e^v) = max(v, 0) + ln(1 + e^−|v|), branch-free.
__device__ __forceinline__ vf log1p_exp(vf v) {
  const vf l = vm::log1p(vm::exp(-vm::detail::abs(v)));
  return v > 0.f ? v + l : l;
}

// V when the expression's type E is V itself (a reference to it too), else no type: g++ converts
// between vectors of one size implicitly, bit for bit, so `x > 0 ? 1 : 0` (an int vector) must not
// pass for a vf.
template <typename E, typename V> struct Exactly {};
template <typename V> struct Exactly<V, V> { typedef V type; };
template <typename V> struct Exactly<V&, V> { typedef V type; };
template <typename V> struct Exactly<const V, V> { typedef V type; };
template <typename V> struct Exactly<const V&, V> { typedef V type; };
{% for kind in activation_library.kinds %}
template <typename V>
__device__ __forceinline__ auto {{ kind.name }}(V x{% for p in kind.params %}, float {{ p.name }}{% endfor %})
    -> typename Exactly<decltype({{ kind.c_expr }}), V>::type {
  return {{ kind.c_expr }};
}
{% endfor %}

// Each function with its parameters p0, ...: f(x) on a float (the scalar function) and, where the
// twin exists, on a vf.
struct Params {
{% for i in range(activation_library.slots) %}
  float p{{ i }};
{% endfor %}
};
template <int Id> struct Kind;
{% for kind in activation_library.kinds %}
template <> struct Kind<k{{ kind.name | camel }}> : Params {
  __device__ __forceinline__ float operator()(float x) const {
    return act::{{ kind.name }}(x{% for p in kind.params %}, p{{ loop.index0 }}{% endfor %});
  }
  template <typename V>
  __device__ __forceinline__ auto operator()(V x) const
      -> decltype(lanes::{{ kind.name }}(x{% for p in kind.params %}, p{{ loop.index0 }}{% endfor %})) {
    return lanes::{{ kind.name }}(x{% for p in kind.params %}, p{{ loop.index0 }}{% endfor %});
  }
};
{% endfor %}

template <typename F, typename = void> struct HasTwin { static constexpr bool value = false; };
template <typename F> struct HasTwin<F, decltype(void((*static_cast<const F*>(nullptr))(vf{})))> {
  static constexpr bool value = true;
};

// v[q] = f(v[q]) for a run: kLanes at a time where f has a twin, the rest one by one.
template <typename F, int R>
__device__ __forceinline__ void map(float (&v)[R], const F& f) {
  if constexpr (HasTwin<F>::value) {
    vm::map_run(v, f);
  } else {
    for (int q = 0; q < R; ++q) v[q] = f(v[q]);
  }
}
}  // namespace lanes
#endif  // OPGEN_VM_HOST

// An activation of the library and its parameters, as launch arguments pass it: `f(x)`, and
// `f.run(v)` for a run of floats in place.
struct Activation {
  int id;
{% for i in range(activation_library.slots) %}
  float p{{ i }};
{% endfor %}

  // v[q] = f(v[q]) for every element of a run: on the host the vector twins, kLanes at a time
  // (within the same bounds in ulps as the scalar function; the tail and functions without a
  // twin: the scalar function); on the GPU the scalar function per element.
  template <int R>
  __device__ __forceinline__ void run(float (&v)[R]) const {
#ifdef OPGEN_VM_HOST
    const lanes::Params p{ {%- for i in range(activation_library.slots) %}p{{ i }}{{ ", " if not loop.last }}{% endfor -%} };
    switch (id) {
{% for kind in activation_library.kinds %}
      case k{{ kind.name | camel }}:
        return lanes::map(v, lanes::Kind<k{{ kind.name | camel }}>{p});
{% endfor %}
      default:
        break;
    }
#endif
    for (int q = 0; q < R; ++q) v[q] = (*this)(v[q]);
  }

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
