"""A package's ops in JAX (issue 34): the C++ half, one XLA FFI handler per kernel op (the package's
`jax_ffi.cpp`, built by codegen/runtime/jax_library.py), and what the package's `jax.py`
(templates/python/jax.py.j2) needs to call it: which ops JAX gets, their FFI target names, how each
attr travels as an XLA attribute. A handler fills codegen/runtime/native/jax_ffi.h's Call from XLA's
call frame and runs the op's native driver `opgen_call_<Op>` (driver.h): one handler body per op, bound
twice, for the cpu and for CUDA (XLA's stream, device ordinal and scratch allocator)."""

from __future__ import annotations

from codegen import torch_native, torchgen
from codegen.model import AttrType, Autograd, OpSpec
from codegen.runtime.jax_abi import PLATFORMS, PRESENT, handler_symbol
from codegen.runtime.kernels import c_name

#: How each attr type travels as an XLA attribute (jax.py encodes, the handler decodes, by this
#: name): `acts` is an activation or a list of them, as ids, their kernel parameters and a flag for
#: a single one (three attributes: `<attr>`, `<attr>__params`, `<attr>__single`).
ATTR_KINDS: dict[AttrType, str] = {
    AttrType.INT: "int", AttrType.FLOAT: "float", AttrType.BOOL: "bool", AttrType.STRING: "str",
    AttrType.ENUM: "str", AttrType.TYPE: "str", AttrType.LIST_INT: "ints", AttrType.ACTIVATION: "acts",
    AttrType.LIST_ACTIVATION: "acts",
}

#: The FFI attribute type each kind is decoded as (a Span views XLA's dense array attribute).
_FFI_TYPES = {"int": "int64_t", "float": "double", "bool": "bool", "str": "std::string_view",
              "ints": "ffi::Span<const int64_t>"}



def not_provided(op: OpSpec) -> str | None:
    """Why the op is not a JAX function (None: it is). The torch registration's reason for an op
    it leaves out (the runtime ops: data-dependent shapes), else what the FFI call cannot carry."""
    if not op.torch.register:
        return op.torch.reason
    if not torch_native.native_kernel(op):
        return "it has no native driver (no kernel launch plan, or list outputs): its Python body runs it"
    if any(a.is_list or a.accepts_python_int for a in op.inputs):
        return "a list or int input: not an XLA buffer"
    if len(op.inputs) > 62:
        return "more inputs than the present-mask attribute holds"
    return None


def provided(ops: list[OpSpec]) -> list[OpSpec]:
    return [op for op in ops if not_provided(op) is None]


def target(namespace: str, op: OpSpec) -> str:
    """The op's FFI target name, per package: XLA's registry is one per process."""
    return f"{namespace}.{op.name}"


def handler_stem(op: OpSpec) -> str:
    """The op's handlers' symbols less the platform (jax_abi.handler_symbol adds it)."""
    return f"opgen_jax_{c_name(op.name)}"


#: What XLA hands each platform's handler beyond the op's buffers and attrs (XLA's context; the
#: handler body's trailing parameter pack, which picks opgen_jax::Call's constructor).
_CONTEXT = {"cpu": ((), ()),
            "CUDA": (("void*", "int32_t", "ffi::ScratchAllocator"),
                     ("ffi::PlatformStream<void*>", "ffi::DeviceOrdinal", "ffi::ScratchAllocator"))}


def vmap_method(op: OpSpec) -> str:
    """How `jax.vmap` maps the op (ffi_call's vmap_method): `broadcast_all` (one call on the
    batched buffers) where every input and output takes leading dims, the same group first in each
    (`[*lead, D]`, `[*lead]`) and no attr places a dim (Softmax's axis would then count the batch
    dim); else `sequential` (one call per batch element)."""
    tensors = [*op.inputs, *op.outputs]
    leads = set()
    for t in tensors:
        patterns = t.patterns() if hasattr(t, "patterns") else ()
        if getattr(t, "axis", None) is not None or not patterns:
            return "sequential"
        for p in patterns:
            if len(p.groups) != 1 or p.groups[0][0] != 0:
                return "sequential"
            leads.add(p.groups[0][1])
    return "broadcast_all" if len(leads) == 1 else "sequential"


def takes_activations(ops: list[OpSpec]) -> bool:
    """Whether jax.py needs the package's Activation class (an op JAX gets has an activation attr)."""
    return any(kind == "acts" for op in provided(ops) for _, kind in attr_kinds(op))


def input_names(op: OpSpec) -> tuple[str, ...]:
    return tuple(a.name for a in op.inputs)


def attr_kinds(op: OpSpec) -> tuple[tuple[str, str], ...]:
    """(name, kind) of each attr in the spec's order: what jax.py encodes."""
    return tuple((a.name, ATTR_KINDS[a.type]) for a in op.attrs)


def _handler(op: OpSpec) -> list[str]:
    name = c_name(op.name)
    params = ["ffi::RemainingArgs args", "ffi::RemainingRets rets", "int64_t present"]
    binding = [f'.Attr<int64_t>("{PRESENT}")']
    body = []
    for k, (attr, kind) in enumerate(attr_kinds(op)):
        if kind == "acts":
            params += [f"ffi::Span<const int64_t> a{k}", f"ffi::Span<const double> a{k}_params", f"bool a{k}_single"]
            binding += [f'.Attr<ffi::Span<const int64_t>>("{attr}")',
                        f'.Attr<ffi::Span<const double>>("{attr}__params")', f'.Attr<bool>("{attr}__single")']
            body.append(f"  call.activations(a{k}, a{k}_params, a{k}_single);")
        else:
            params.append(f"{_FFI_TYPES[kind]} a{k}")
            binding.append(f'.Attr<{_FFI_TYPES[kind]}>("{attr}")')
            body.append(f"  call.attr(a{k});")
    lines = ["template <class... Context>",
             f"static ffi::Error {name}_impl({', '.join(params)}, Context... context) {{",
             f"  opgen_jax::Call call({torch_native.cxx_string(op.name)}, args, rets, present, context...);"]
    lines += ["  call.input();"] * len(op.inputs)
    lines += body
    lines += [f"  return call.run(opgen_call_{name}, {torch_native.cxx_string('opgen_call_' + name)});", "}"]
    for platform in PLATFORMS:
        types, decoded = _CONTEXT[platform]
        lines += [f"XLA_FFI_DEFINE_HANDLER_SYMBOL({handler_symbol(handler_stem(op), platform)}, "
                  f"({name}_impl<{', '.join(types)}>),",  # (parenthesized: the macro would split its commas)
                  "                              ffi::Ffi::Bind().RemainingArgs().RemainingRets()" +
                  "".join(f"\n                                  {b}" for b in binding) +
                  "".join(f"\n                                  .Ctx<{c}>()" for c in decoded) + ");"]
    return lines


def source(ops: list[OpSpec], header: str) -> str:
    """The translation unit of the handlers of the package's ops `ops` (those JAX gets)."""
    mine = provided(ops)
    lines = [header, "// The package's ops in JAX through XLA's FFI: codegen/jaxgen.py (opgen's docs/jax.md).",
             "// Built by the package's jax.py on first use.", '#include "jax_ffi.h"', "",
             "namespace ffi = xla::ffi;", "", *torch_native.driver_declarations(mine),
             "", "// What this library was built for: jax_library.py refuses it in another JAX.",
              'extern "C" __attribute__((visibility("default"))) const char* opgen_jax_built_for() {',
              "  return OPGEN_JAX_BUILT_FOR;", "}", "",
              "#pragma GCC visibility push(default)  // (the handlers: found by name)"]
    for op in mine:
        lines += ["", *_handler(op)]
    lines += ["", "#pragma GCC visibility pop"]
    return "\n".join(lines) + "\n"


def gradient(op: OpSpec, by_name: dict[str, OpSpec]) -> str:
    """The op's backward as jax.py's literal of a jax_bridge.Gradient ("None": no `autograd:`, or a
    gradient op JAX does not get), read as the torch registration's backward reads it
    (torchgen.backward_body): each gradient-op input's source (a forward tensor, `grad(<output>)` or
    None), each gradient-op attr's forward attr, each forward input's gradient (a gradient-op output
    or `grad(<output>)`), the helper and the `requires:` clauses."""
    ag = op.autograd
    grad = by_name.get(op.gradient) if op.gradient else None
    if ag is None or grad is None or not_provided(grad) is not None:
        return "None"
    call = dict(ag.call)
    attr_map = dict(ag.attrs)
    attrs = []
    for attr in grad.attrs:
        source = attr_map.get(attr.name, attr.name if op.attr(attr.name) is not None else None)
        if source is not None and Autograd.needs_grad_of(source) is None:  # (needs_grad: JAX cannot tell; the
            attrs.append((attr.name, source))                               # attr's default, true, stands)
    helper = None
    if ag.helper is not None:
        fn = ag.helper.function
        helper = (fn.module, fn.function, tuple(ag.helper.args), tuple(ag.helper.grads))
    parts = [f"lambda: {grad.snake_name}", repr(tuple(call.get(a.name) for a in grad.inputs)), repr(tuple(attrs)),
             repr(tuple(ag.grads)), repr(tuple(o.name for o in grad.outputs)), repr(helper),
             repr(tuple(ag.requires.clauses))]
    return f"_jb.Gradient({', '.join(parts)})"


def no_gradient(op: OpSpec, by_name: dict[str, OpSpec]) -> str:
    """Why the op's JAX function has no gradient ("" when it has one)."""
    grad = by_name.get(op.gradient) if op.gradient else None
    if op.autograd is not None and grad is not None and not_provided(grad) is not None:
        return f"its gradient op {grad.name} is not a JAX function ({not_provided(grad)})"
    return "" if op.autograd is not None else torchgen.no_gradient_reason(op)


def output_names(op: OpSpec) -> tuple[str, ...]:
    return tuple(o.name for o in op.outputs)
