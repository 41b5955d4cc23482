"""The `autograd:` and `torch:` keys of a spec (docs/pytorch.md): reading them with the op, and
checking an autograd mapping against its gradient op once every spec is loaded.

    gradient: FusedBatchNormGradV3
    autograd:
      outputs: [y]                                 # differentiable outputs; the others get none
      call: {y_backprop: grad(y), x: x, ...}       # gradient-op input ← forward tensor / grad(output)
      attrs: {epsilon: epsilon}                    # optional: by default every attr of the same name;
                                                   # needs_grad(x): whether input x needs a gradient
      grads: {x: x_backprop, scale: scale_backprop}  # forward input ← gradient-op output
      helper: {function: pkg.mod:fn, args: [...], grads: [...]}   # optional
      requires: {is_training: true}                # optional: no backward otherwise
    torch: false | {register: false, reason: ...} | {fake: pkg.mod:fn}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from codegen.model import AttrType, Autograd, GradHelper, OpSpec, Output, RuntimeRef, TensorArg, TorchSpec
from codegen.yamlnodes import Node, SpecError, describe

if TYPE_CHECKING:
    from codegen.load_base import ParserBase

#: the parser's `package.module:function` reader (the one of the `runtime:` key), given the key's name
RuntimeRefParser = Callable[[Node, str], RuntimeRef]


def _names(parser: ParserBase, node: Node | None, what: str) -> tuple[str, ...]:
    items = parser.seq(node, what)
    out = []
    for item in items:
        if not isinstance(item.value, str):
            raise parser.error(item.line, f"{what}: expected names, got {describe(item.value)}")
        out.append(item.value)
    return tuple(out)


def _pairs(parser: ParserBase, node: Node | None, what: str) -> tuple[tuple[str, str], ...]:
    if node is None:
        return ()
    if not isinstance(node.value, dict):
        raise parser.error(node.line, f"{what}: expected a mapping of name to name, got {describe(node.value)}")
    out = []
    for key, value in node.value.items():
        if not isinstance(value.value, str):
            raise parser.error(value.line, f"{what}: {key}: expected a name, got {describe(value.value)}")
        out.append((key, value.value))
    return tuple(out)


def parse_autograd(parser: ParserBase, node: Node | None, runtime_ref: RuntimeRefParser) -> Autograd | None:
    """The `autograd:` mapping, with the names that refer to this op checked here; the names of
    the gradient op are checked by check_autograd."""
    if node is None:
        return None
    r = parser.reader(node, "autograd")
    nodes = {key: r.pop(key, required=key in ("outputs", "call", "grads"))
             for key in ("outputs", "call", "attrs", "grads", "helper", "requires")}
    r.finish()
    lines = {key: n.line for key, n in nodes.items() if n is not None}
    outputs = _names(parser, nodes["outputs"], "autograd: outputs")
    call = _pairs(parser, nodes["call"], "autograd: call")
    attrs = _pairs(parser, nodes["attrs"], "autograd: attrs")
    grads = _pairs(parser, nodes["grads"], "autograd: grads")
    helper_node = nodes["helper"]
    requires = parser._condition(nodes["requires"], "autograd: requires")
    inputs = {a.name for a in parser.inputs}
    produced = {o.name for o in parser.outputs}
    attr_names = {a.name for a in parser.attrs}
    for name in outputs:
        if name not in produced:
            raise parser.error(lines["outputs"], f"autograd: outputs: {name!r} is not an output of this op "
                                          f"(outputs: {', '.join(sorted(produced))})")
    for target, source in call:
        of = Autograd.grad_of(source)
        if of is not None and of not in outputs:
            raise parser.error(lines["call"], f"autograd: call: {target}: {source} needs {of!r} in autograd: outputs")
        if of is None and source not in inputs | produced:
            raise parser.error(lines["call"], f"autograd: call: {target}: {source!r} is neither an input nor an "
                                          f"output of this op (or grad(<output>))")
    for target, source in attrs:
        needs = Autograd.needs_grad_of(source)
        if needs is not None and needs not in inputs:
            raise parser.error(lines["attrs"], f"autograd: attrs: {target}: {source}: {needs!r} is not an input of "
                                               f"this op (inputs: {', '.join(sorted(inputs))})")
        if needs is None and source not in attr_names:
            raise parser.error(lines["attrs"], f"autograd: attrs: {target}: {source!r} is not an attr of this op "
                                               f"(nor needs_grad(<input>))")
    for name, source in grads:
        if name not in inputs:
            raise parser.error(lines["grads"], f"autograd: grads: {name!r} is not an input of this op")
        of = Autograd.grad_of(source)  # an identity gradient: the incoming gradient of an output itself
        if of is not None and of not in outputs:
            raise parser.error(lines["grads"], f"autograd: grads: {name}: {source} needs {of!r} in autograd: outputs")
    helper = None
    if helper_node is not None:
        h = parser.reader(helper_node, "autograd: helper")
        function_node = h.pop("function", required=True)
        assert function_node is not None  # required
        function = runtime_ref(function_node, "autograd: helper: function")
        args = _names(parser, h.pop("args", required=True), "autograd: helper: args")
        helper_grads = _names(parser, h.pop("grads", required=True), "autograd: helper: grads")
        h.finish()
        for name in helper_grads:
            if name not in inputs or name in dict(grads):
                raise parser.error(helper_node.line, f"autograd: helper: grads: {name!r} is not an input of this op "
                                                     f"without a gradient in autograd: grads")
        helper = GradHelper(function, args, helper_grads)
    return Autograd(outputs, call, attrs, grads, parser.loc(node), helper, requires, lines)


def parse_torch(parser: ParserBase, node: Node | None, runtime_ref: RuntimeRefParser, is_runtime: bool) -> TorchSpec:
    """The `torch:` key. A runtime op is registered only with a `fake:` function (its output shapes
    are not in its spec); `false` (or `register: false` with a reason) leaves an op out."""
    if node is None:
        return TorchSpec(register=not is_runtime, reason="a runtime op without a torch: fake function"
                         if is_runtime else "")
    if node.value is False:
        return TorchSpec(register=False, reason="the spec says torch: false")
    r = parser.reader(node, "torch")
    register = parser._flag(r.pop("register"), "torch: register") if "register" in node.value else True
    reason = parser.text(r.pop("reason"), "torch: reason")
    fake_node = r.pop("fake")
    r.finish()
    if not register and not reason:
        raise parser.error(node.line, "torch: register: false needs a reason (it is shown to users)")
    fake = runtime_ref(fake_node, "torch: fake") if fake_node is not None else None
    if register and is_runtime and fake is None:
        raise parser.error(node.line, "torch: a runtime op needs a fake: function (its spec does not give its "
                                      "output shapes), or register: false with a reason")
    return TorchSpec(register, reason, fake)


# -- after every spec is loaded --------------------------------------------------------------------
def _dtype_sets(op: OpSpec, dtype: str) -> set[str]:
    tv = op.type_var(dtype)
    return set(tv.allowed) if tv is not None else {dtype}


def _tensor(op: OpSpec, name: str) -> TensorArg | Output:
    """An input or output (autograd names no other tensor: parse_autograd checked)."""
    tensor = op.tensor(name)
    assert isinstance(tensor, (TensorArg, Output))
    return tensor


def _ranks(op: OpSpec, name: str) -> dict[str, tuple[int, bool] | None]:
    """A tensor's rank per case of its shape switch ("" when unswitched): (rank, exact), where
    exact is False for a shape with dimension groups (`[N, ...]`, `[*lead, D]`: that rank or more);
    None: any rank."""
    shape = _tensor(op, name).shape
    if shape is None:
        return {"": None}
    return {key: (len(p.dims), not p.ellipsis) for key, p in shape.cases}


def _can_match(a: tuple[int, bool] | None, b: tuple[int, bool] | None) -> bool:
    """Whether some tensor can have both ranks."""
    if a is None or b is None:
        return True
    (n, exact_n), (m, exact_m) = a, b
    if exact_n and exact_m:
        return n == m
    return (n >= m) if exact_n else (m >= n) if exact_m else True


def _rank_text(rank: tuple[int, bool] | None) -> str:
    return "any" if rank is None else str(rank[0]) if rank[1] else f">= {rank[0]}"


def _dtype_of(op: OpSpec, name: str) -> str:
    return _tensor(op, name).dtype


def _compatible(fwd: OpSpec, fname: str, grad: OpSpec, gname: str, what: str) -> None:
    """The forward tensor and the gradient-op tensor it feeds (or is fed by) agree in dtype and rank."""
    assert fwd.autograd is not None
    line = fwd.autograd.line(what.split(":")[0])
    fdt, gdt = _dtype_sets(fwd, _dtype_of(fwd, fname)), _dtype_sets(grad, _dtype_of(grad, gname))
    if not fdt & gdt:
        raise SpecError(fwd.loc.file, line, f"autograd: {what}: {fname} ({'|'.join(sorted(fdt))}) cannot be "
                                            f"{grad.name}'s {gname} ({'|'.join(sorted(gdt))})", fwd.name)
    franks, granks = _ranks(fwd, fname), _ranks(grad, gname)
    for key, rank in franks.items():
        # the same case of a switch on the same values, the unswitched shape, else any case of another switch
        others = [granks[key]] if key in granks else [granks[""]] if "" in granks else list(granks.values())
        if not any(_can_match(rank, other) for other in others):
            case = f" ({key})" if key else ""
            raise SpecError(fwd.loc.file, line, f"autograd: {what}: {fname} has rank {_rank_text(rank)}{case}, "
                                                f"{grad.name}'s {gname} has rank "
                                                f"{' or '.join(dict.fromkeys(_rank_text(o) for o in others))}",
                            fwd.name)


def check_autograd(ops: Mapping[str, OpSpec]) -> None:
    """Every autograd mapping against its gradient op: names exist, every required gradient-op
    input and attr is fed, dtypes and ranks agree. Errors point at the forward's `autograd:` line."""
    for fwd in ops.values():
        ag = fwd.autograd
        if ag is None:
            continue

        def fail(message: str, op: OpSpec = fwd, ag: Autograd = ag) -> SpecError:
            """The error at the line of the sub-key the message starts with (call, grads, ...)."""
            return SpecError(op.loc.file, ag.line(message.split(":")[0]), f"autograd: {message}", op.name)

        if fwd.gradient is None:
            raise fail("needs gradient: <the gradient op>")
        grad = ops[fwd.gradient]
        if not grad.torch.register:
            raise fail(f"the gradient op {grad.name} is not registered with torch ({grad.torch.reason})")
        grad_inputs = {a.name: a for a in grad.inputs}
        for target, source in ag.call:
            if target not in grad_inputs:
                raise fail(f"call: {target!r} is not an input of {grad.name} "
                           f"(inputs: {', '.join(grad_inputs)})")
            _compatible(fwd, Autograd.grad_of(source) or source, grad, target, f"call: {target}")
        fed = {t for t, _ in ag.call}
        missing = [a.name for a in grad.inputs if not a.optional and a.name not in fed]
        if missing:
            raise fail(f"call: {grad.name}'s input {missing[0]!r} is not fed")
        fed_attrs = dict(ag.attrs)
        for attr in grad.attrs:
            if attr.name in fed_attrs:
                continue
            if fwd.attr(attr.name) is None and not attr.has_default:
                raise fail(f"attrs: {grad.name}'s attr {attr.name!r} has no default and no forward attr of that name")
        for target, source in fed_attrs.items():
            fed_attr = grad.attr(target)
            if fed_attr is None:
                raise fail(f"attrs: {target!r} is not an attr of {grad.name}")
            if Autograd.needs_grad_of(source) and (fed_attr.type is not AttrType.BOOL or fed_attr.default is not True):
                raise fail(f"attrs: {target}: {source} needs {grad.name}'s {target!r} to be a bool attr with default "
                           f"true (what a caller that cannot tell gets), got {fed_attr.type.value} with default "
                           f"{fed_attr.default!r}")
        grad_outputs = {o.name for o in grad.outputs}
        for name, source in ag.grads:
            of = Autograd.grad_of(source)
            if of is not None:  # grad(y) as x's gradient: y's and x's dtypes and ranks agree
                _compatible(fwd, name, fwd, of, f"grads: {name}")
                continue
            if source not in grad_outputs:
                raise fail(f"grads: {name}: {source!r} is not an output of {grad.name} "
                           f"(outputs: {', '.join(o.name for o in grad.outputs)})")
            _compatible(fwd, name, grad, source, f"grads: {name}")
        if ag.helper is not None:
            known = {a.name for a in fwd.inputs} | {o.name for o in fwd.outputs} | grad_outputs
            for arg in ag.helper.args:
                if arg not in known:
                    raise fail(f"helper: args: {arg!r} is neither a tensor of this op nor an output of {grad.name}")
