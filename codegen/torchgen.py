"""Translation of specs into their PyTorch registration (templates/python/torch.py.j2 → the
package's torch.py): the schema of `torch.ops.<namespace>.<function>` and the autograd formula's
setup_context/backward bodies, from the `autograd:` key (codegen/load_autograd.py). The namespace
is the project's (`opgen` for opgen's own ops): a backward calls its gradient op in its own
package's namespace, never another's."""

from __future__ import annotations

from codegen import pygen
from codegen.model import ATTR_TORCH_TYPES, Attr, AttrType, Autograd, OpSpec


def _default(attr: Attr) -> str:
    """An attr's default as schema text (a list(activation) default is written None: none_default)."""
    value = attr.default
    if attr.type is AttrType.ACTIVATION:
        return repr(getattr(value, "name", value))
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(repr(v) for v in value) + "]"
    return repr(value)  # numbers, strings, True/False


def none_default(attr: Attr) -> bool:
    """A default the schema language cannot write (a list of strings): None stands for it."""
    return attr.has_default and attr.type is AttrType.LIST_ACTIVATION


def impl_attr(attr: Attr) -> str:
    """The attr as the implementation passes it to the wrapper (None: the spec's default)."""
    if none_default(attr):
        return f"{attr.name} if {attr.name} is not None else {pygen.py_value(attr.default)}"
    return attr.name


def schema(op: OpSpec, name: str | None = None) -> str:
    """`name(Tensor x, ..., *, float epsilon=0.0001, ...) -> (Tensor, ...)`: inputs positional in
    spec order, attrs keyword-only with their defaults, outputs a tuple in spec order. `name`: the
    op's function name unless given (a helper op of the same schema: codegen/runtime/torch_names.py)."""
    params = []
    for arg in op.inputs:
        kind = "Tensor[]" if arg.is_list else "int" if arg.accepts_python_int else "Tensor"
        params.append(f"{kind}{'?' if arg.optional else ''} {arg.name}" + ("=None" if arg.optional else ""))
    attrs = [f"{ATTR_TORCH_TYPES[a.type]}? {a.name}=None" if none_default(a) else
             f"{ATTR_TORCH_TYPES[a.type]} {a.name}" + (f"={_default(a)}" if a.has_default else "") for a in op.attrs]
    if attrs:
        params += ["*", *attrs]
    outs = ", ".join("Tensor[]" if getattr(o, "is_list", False) else "Tensor" for o in op.outputs)
    return f"{name or op.snake_name}({', '.join(params)}) -> " + (outs if len(op.outputs) == 1 else f"({outs})")


def returns(op: OpSpec, value: str) -> str:
    """What the implementation returns of the outputs `value`: a tuple, or the single output."""
    return f"{value}[0]" if len(op.outputs) == 1 else f"tuple({value})"


def _unpack(names: list[str], used: set[str], value: str, bare_single: bool = False) -> str:
    """`a, _b, c = value`: names the code does not read get a leading underscore. bare_single: value
    is an op's outputs, a lone output returned bare (not a 1-tuple): `a = value`."""
    targets = [n if n in used else f"_{n}" for n in names]
    comma = "," if len(targets) == 1 and not bare_single else ""
    return f"{', '.join(targets)}{comma} = {value}"


def setup_context_body(op: OpSpec) -> list[str]:
    """ctx: the saved forward tensors, the attrs, the non-differentiable outputs."""
    ag = op.autograd
    assert ag is not None
    inputs = [a.name for a in op.inputs]
    outputs = [o.name for o in op.outputs]
    saved = ag.saved(set(inputs) | set(outputs))
    frozen = [o for o in outputs if o not in ag.outputs]
    optional = [a.name for a in op.inputs if a.optional and a.name in _with_gradient(ag)]
    lines = [_unpack(inputs, set(saved) | set(optional), "inputs"),
             _unpack(outputs, set(saved) | set(frozen), "output", bare_single=True)]
    if optional:  # an optional input the caller left out (None) gets no gradient
        lines.append(f"ctx.given = {{{', '.join(f'{n!r}: {n} is not None' for n in optional)}}}")
    if saved:
        lines.append(f"ctx.save_for_backward({', '.join(saved)})")
    lines.append("ctx.attrs = keyword_only_inputs" if op.attrs else "ctx.attrs = {}")
    if frozen:
        lines.append(f"ctx.mark_non_differentiable({', '.join(frozen)})")
    if _lazy_grads(op):
        lines.append("ctx.set_materialize_grads(False)")
    tests = [(f"bool(keyword_only_inputs[{name!r}])" if value else f"not keyword_only_inputs[{name!r}]")
             if isinstance(value, bool) else f"keyword_only_inputs[{name!r}] == {value!r}"
             for name, value in ag.requires.clauses]
    if tests:
        lines.append(f"ctx.has_backward = {' and '.join(tests)}")
    return lines


def backward_body(op: OpSpec, grad: OpSpec, namespace: str) -> list[str]:
    """grads (one per forward output) → the gradient op's call (`torch.ops.<namespace>`) → one
    gradient per forward input."""
    ag = op.autograd
    assert ag is not None
    inputs = [a.name for a in op.inputs]
    outputs = [o.name for o in op.outputs]
    saved = ag.saved(set(inputs) | set(outputs))
    lines = []
    if ag.requires.clauses:
        need = ", ".join(f"{a}={v!r}" for a, v in ag.requires.clauses)
        lines += ["if not ctx.has_backward:",
                  f"    raise RuntimeError({op.name!r} + ': backward needs {need}; the forward ran without it')"]
    if saved:
        lines.append(f"{', '.join(saved)}{',' if len(saved) == 1 else ''} = ctx.saved_tensors")
    read = {f"grad_{Autograd.grad_of(src)}" for _, src in (*ag.call, *ag.grads) if Autograd.grad_of(src)}
    lines.append(_unpack([f"grad_{o}" for o in outputs], read, "grads"))
    if _lazy_grads(op) and len(ag.outputs) > 1:  # a differentiable output nothing used has no gradient
        lines += [f"{g} = torch.zeros_like({g[5:]}) if {g} is None else {g}" for g in sorted(read)]
    args = []
    for target in (a.name for a in grad.inputs):
        source = dict(ag.call).get(target)
        if source is None:
            args.append("None")
            continue
        of = Autograd.grad_of(source)
        args.append(f"grad_{of}.contiguous()" if of is not None else source)
    attr_map = dict(ag.attrs)
    kwargs = []
    for attr in grad.attrs:
        source = attr_map.get(attr.name, attr.name if op.attr(attr.name) is not None else None)
        needs = Autograd.needs_grad_of(source) if source is not None else None
        if needs is not None:
            kwargs.append(f"{attr.name}=ctx.needs_input_grad[{inputs.index(needs)}]")
        elif source is not None:
            kwargs.append(f"{attr.name}=ctx.attrs[{source!r}]")
    call = f"torch.ops.{namespace}.{grad.snake_name}({', '.join(args + kwargs)})"
    grad_outputs = [o.name for o in grad.outputs]
    results = {name: (f"grad_{of}" if (of := Autograd.grad_of(source)) else source) for name, source in ag.grads}
    read = set(results.values()) | set(ag.helper.args if ag.helper else ())
    lines.append(_unpack(grad_outputs, read, call, bare_single=True))
    if ag.helper is not None:
        fn = ag.helper.function
        lines.append(f"from {fn.module} import {fn.function} as _helper")
        names = ", ".join(f"_grad_{g}" for g in ag.helper.grads)
        lines.append(f"{names}{',' if len(ag.helper.grads) == 1 else ''} = _helper({', '.join(ag.helper.args)})")
        results.update({g: f"_grad_{g}" for g in ag.helper.grads})
    optional = {a.name for a in op.inputs if a.optional}
    returned = [results.get(name, "None") if name not in optional or name not in results else
                f"{results[name]} if ctx.given[{name!r}] else None" for name in inputs]
    lines.append("return " + ", ".join(returned) + ("," if len(inputs) == 1 else ""))
    return lines


def _lazy_grads(op: OpSpec) -> bool:
    """Whether the backward gets None, not zeros, for an output's gradient nothing produced
    (ctx.set_materialize_grads(False)): where some output is not differentiable (torch would
    allocate and zero it on every backward: a reserve space of tens of MB), and the backward can
    rebuild each gradient it reads (one differentiable output always has one; several: each
    saved, for its zeros_like)."""
    ag = op.autograd
    assert ag is not None
    outputs = [o.name for o in op.outputs]
    read = {of for _, src in (*ag.call, *ag.grads) if (of := Autograd.grad_of(src))}
    saved = set(ag.saved(set(a.name for a in op.inputs) | set(outputs)))
    return any(o not in ag.outputs for o in outputs) and (len(ag.outputs) == 1 or read <= saved)


def _with_gradient(ag: Autograd) -> set[str]:
    """The forward inputs the backward returns a gradient for."""
    return {name for name, _ in ag.grads} | set(ag.helper.grads if ag.helper else ())


def no_gradient_reason(op: OpSpec) -> str:
    if op.gradient_of is not None:
        return f"it is the gradient of {op.gradient_of} (no second derivative is declared)"
    if op.gradient is not None:
        return f"its gradient op {op.gradient} has no autograd: mapping in the spec"
    return "its spec declares no gradient op"


def params(op: OpSpec) -> str:
    """The implementation's parameters: the schema's, with its defaults (the dispatcher passes
    only the keyword arguments the caller gave), annotated for mypy --strict."""
    names = [a.name + (": Any = None" if a.optional else ": Any") for a in op.inputs]
    attrs = [a.name + (": Any = None" if none_default(a) else f": Any = {pygen.py_value(a.default)}"
                       if a.has_default else ": Any") for a in op.attrs]
    return ", ".join(names + (["*", *attrs] if attrs else []))


def has_tensor_inputs(op: OpSpec) -> bool:
    """Whether the dispatcher can pick the device from a tensor argument (not so for
    CudnnRNNParamsSize, whose inputs are all ints)."""
    return any(not a.accepts_python_int for a in op.inputs)


def setup_context_params(op: OpSpec) -> str:
    """torch passes keyword_only_inputs only to an op that has keyword-only arguments."""
    return "ctx: Any, inputs: Any, keyword_only_inputs: Any, output: Any" if op.attrs else \
        "ctx: Any, inputs: Any, output: Any"


def gradient_doc(op: OpSpec, namespace: str, grad_function: str) -> str:
    """The reference page's sentence on the op's backward (Markdown): its gradient op is
    `torch.ops.<namespace>.<grad_function>`."""
    ag = op.autograd
    if ag is None:
        return f"**Not differentiable:** backward raises `RuntimeError: {op.name} has no gradient: " \
               f"{no_gradient_reason(op)}`."

    def code(names: list[str] | tuple[str, ...]) -> str:
        return ", ".join(f"`{n}`" for n in names)

    with_grad = [name for name, _ in ag.grads] + list(ag.helper.grads if ag.helper else ())
    text = (f"**Differentiable.** Its backward calls `torch.ops.{namespace}.{grad_function}`; "
            f"gradients flow from {code(ag.outputs)} to {code(with_grad)}")
    if ag.requires.clauses:
        text += f" (only when the forward ran with {ag.requires.text()})"
    text += "."
    frozen = [a.name for a in op.inputs if a.name not in with_grad]
    if frozen:
        text += f" {code(frozen)} get no gradient."
    return text
