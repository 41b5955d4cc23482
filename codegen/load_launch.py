"""The kernel section of a spec: source, specializations, scratch buffers and the launch plan
(kernel launches, GEMM steps and repeat loops), validated with `file:line` errors."""

from __future__ import annotations

import re

from codegen import shapes
from codegen.load_base import ARG_NAME_RE, INDEXED_ARG_RE, KERNEL_NAME_RE, SOURCE_RE, ParserBase
from codegen.model import (
    ArgIndex,
    AttrType,
    GemmStep,
    KernelSpec,
    LaunchStep,
    RepeatStep,
    Scratch,
)
from codegen.yamlnodes import Node, describe


class LaunchPlanParser(ParserBase):
    """Reads `kernel:` once the op's inputs, attrs, outputs and lets are known."""

    def _kernel(self, node: Node | None) -> KernelSpec | None:
        if node is None:
            return None
        r = self.reader(node, "kernel")
        source_node = r.pop("source", required=True)
        assert source_node is not None
        if not isinstance(source_node.value, str) or not SOURCE_RE.fullmatch(source_node.value):
            raise self.error(source_node.line, f"kernel: source {source_node.value!r} must be a relative path "
                                               f"like nn/name.cu (lower_case parts, no '..')")
        specialize = []
        for n in self.seq(r.pop("specialize"), "kernel.specialize"):
            type_attr = next((a for a in self.attrs if a.name == n.value and a.type is AttrType.TYPE), None)
            if type_attr is not None:  # one entry point per dtype the attr allows
                if type_attr.allowed is None:
                    raise self.error(n.line, f"kernel: specialize: type attr {n.value!r} needs an allowed: list "
                                             f"(one entry point per dtype)")
                specialize.append(str(n.value))
                continue
            if not any(t.name == n.value for t in self.type_vars):
                raise self.error(n.line, f"kernel: specialize: {n.value!r} is not a type variable or a type attr")
            if any(t.name == n.value and t.is_list for t in self.type_vars):
                raise self.error(n.line, f"kernel: specialize: {n.value!r} is a list type variable (a dtype per "
                                         f"element), which a kernel cannot specialize on")
            specialize.append(str(n.value))
        self.scratch = self._scratch(r.pop("scratch"))
        self.loop_symbols: list[str] = []
        launch_node = r.pop("launch", required=True)
        assert launch_node is not None
        steps = tuple(self._launch_step(n) for n in self.seq(launch_node, "kernel.launch"))
        if not steps:
            raise self.error(launch_node.line, "kernel: launch: needs at least one step")
        r.finish()
        return KernelSpec(source_node.value, tuple(specialize), steps, self.loc(node), self.scratch)

    def _scratch(self, node: Node | None) -> tuple[Scratch, ...]:
        out = []
        taken = {a.name for a in self.inputs} | {o.name for o in self.outputs} | {a.name for a in self.attrs}
        taken |= {let.name for let in self.lets}
        bound = (self._input_symbols() | {a.name for a in self.attrs if a.type is AttrType.INT}
                 | {x.name for x in self.lets})
        for n in self.seq(node, "kernel.scratch"):
            r = self.reader(n, "scratch buffer")
            name = self.identifier(r.pop("name"), "scratch buffer", ARG_NAME_RE, n.line)
            what = r.what = f"scratch buffer {name!r}"
            if name in taken:
                raise self.error(n.line, f"{what}: the name is already used by an input, output, attr or let")
            taken.add(name)
            dtype = self._dtype_ref(r.pop("dtype"), what, n.line)
            shape_node = r.pop("shape", required=True)
            assert shape_node is not None
            pattern = self._pattern(shape_node, f"{what}: shape")
            if pattern.ellipsis:
                raise self.error(shape_node.line, f"{what}: the shape must be fully known (no '...')")
            for dim in pattern.dims:
                self._require_bound(dim, bound, f"{what}: shape", self.loc(shape_node))
            alias_node = r.pop("alias")
            when_node = r.pop("when")
            alias = None
            if alias_node is not None:
                target = next((o for o in self.outputs if o.name == alias_node.value), None)
                if target is None:
                    raise self.error(alias_node.line, f"{what}: alias: {alias_node.value!r} is not an output of "
                                                      f"this op")
                if target.dtype != dtype:
                    raise self.error(alias_node.line, f"{what}: alias: output {target.name!r} has dtype "
                                                      f"{target.dtype}, the buffer {dtype}")
                alias = target.name
            elif when_node is not None:
                raise self.error(when_node.line, f"{what}: 'when' needs an 'alias'")
            when = self._condition(when_node, what)
            r.finish()
            out.append(Scratch(name, dtype, pattern, self.loc(n), alias, when))
        return tuple(out)

    def _gemm_step(self, node: Node, gemm: Node) -> GemmStep:
        outer = self.reader(node, "launch step")
        outer.pop("gemm")
        when = self._condition(outer.pop("when"), "gemm step", checks=True)
        outer.finish()
        r = self.reader(gemm, "gemm step")
        tensors = {a.name: a.dtype for a in self.inputs if not a.is_list}
        writable = {o.name: o.dtype for o in self.outputs} | {b.name: b.dtype for b in self.scratch}
        names = {}
        for key in ("a", "b", "out"):
            n = r.pop(key, required=True)
            assert n is not None
            allowed = writable if key == "out" else tensors | writable
            if n.value not in allowed:
                kind = "an output or scratch buffer" if key == "out" else "a tensor input, output or scratch buffer"
                raise self.error(n.line, f"gemm step: {key}: {n.value!r} is not {kind} of this op")
            names[key] = str(n.value)
        dtypes = {(tensors | writable)[names[k]] for k in ("a", "b", "out")}
        if len(dtypes) != 1:
            raise self.error(gemm.line, f"gemm step: a, b and out must have one dtype, got {sorted(dtypes)}")
        exprs = {}
        for key in ("m", "n", "k"):
            n = r.pop(key, required=True)
            assert n is not None
            exprs[key] = self._bound_expr(n, f"gemm step: {key}")
        offsets = {}
        for key in ("a_offset", "b_offset", "out_offset", "batch", "a_stride", "b_stride", "out_stride"):
            n = r.pop(key)
            offsets[key] = self._bound_expr(n, f"gemm step: {key}") if n is not None else None
            if n is not None and key.endswith("_stride") and "batch" not in gemm.value:
                raise self.error(n.line, f"gemm step: {key} needs batch (the number of strided products)")
        flags = {key: self._flag(r.pop(key), f"gemm step: {key}") for key in ("trans_a", "trans_b")}
        beta_node = r.pop("beta")
        beta = 0
        if beta_node is not None:
            if beta_node.value not in (0, 1) or isinstance(beta_node.value, bool):
                raise self.error(beta_node.line, f"gemm step: beta must be 0 or 1, got {describe(beta_node.value)}")
            beta = int(beta_node.value)
        r.finish()
        return GemmStep(names["a"], names["b"], names["out"], exprs["m"], exprs["n"], exprs["k"], when,
                        self.loc(node), flags["trans_a"], flags["trans_b"], beta, **offsets)

    def _repeat_step(self, node: Node, loop: Node) -> RepeatStep:
        outer = self.reader(node, "launch step")
        outer.pop("repeat")
        when = self._condition(outer.pop("when"), "repeat step", checks=True)
        outer.finish()
        r = self.reader(loop, "repeat step")
        var = self.identifier(r.pop("var"), "repeat step: var", ARG_NAME_RE, loop.line)
        what = r.what = f"repeat step {var!r}"
        count_node = r.pop("count", required=True)
        assert count_node is not None
        count = self._expr(count_node, f"{what}: count")
        self._require_bound(count, self._launch_symbols(), f"{what}: count", self.loc(count_node))
        self._new_loop_symbol(var, loop.line, what)
        lanes_node = r.pop("lanes")
        lanes = None
        if lanes_node is not None:
            lanes = self._expr(lanes_node, f"{what}: lanes")
            self._require_bound(lanes, self._launch_symbols(), f"{what}: lanes", self.loc(lanes_node))
        lets: list[tuple[str, shapes.Expr]] = []
        lets_node = r.pop("let")
        if lets_node is not None and not isinstance(lets_node.value, dict):
            raise self.error(lets_node.line, f"{what}: let: expected a mapping of names to expressions, "
                                             f"got {describe(lets_node.value)}")
        self.loop_symbols.append(var)
        try:
            for name, expr_node in (lets_node.value.items() if lets_node is not None else ()):
                self._new_loop_symbol(name, expr_node.line, f"{what}: let")
                expr = self._expr(expr_node, f"{what}: let {name}")
                self._require_bound(expr, self._launch_symbols(), f"{what}: let {name}", self.loc(expr_node))
                lets.append((name, expr))
                self.loop_symbols.append(name)
            steps_node = r.pop("steps", required=True)
            assert steps_node is not None
            steps = tuple(self._launch_step(n) for n in self.seq(steps_node, f"{what}: steps"))
            if not steps:
                raise self.error(steps_node.line, f"{what}: steps: needs at least one step")
        finally:
            del self.loop_symbols[len(self.loop_symbols) - 1 - len(lets):]
        r.finish()
        if lanes is not None:
            self._check_lanes(steps, lanes, what)
        return RepeatStep(var, count, tuple(lets), steps, when, self.loc(node), lanes)

    def _check_lanes(self, steps: tuple[LaunchStep | GemmStep | RepeatStep, ...], lanes: shapes.Expr,
                     what: str) -> None:
        """Every step inside a loop with `lanes` says which lane each part of it is: a GEMM step by its
        `batch` (product i is lane i), a launch by its last grid dimension (blocks at index i are lane
        i), both the loop's lanes expression as written; a loop inside has no lanes of its own."""
        text = shapes.to_text(lanes)
        for step in steps:
            if isinstance(step, RepeatStep):
                if step.lanes is not None:
                    raise self.error(step.loc.line, f"{what}: lanes: a loop inside a loop with lanes has none "
                                                    f"of its own")
                self._check_lanes(step.steps, lanes, what)
            elif isinstance(step, GemmStep):
                if step.batch is None or step.batch != lanes:
                    got = "none" if step.batch is None else repr(shapes.to_text(step.batch))
                    raise self.error(step.loc.line, f"{what}: lanes: {text!r}: a gemm step inside needs "
                                                    f"batch: {text} (product i is lane i), got {got}")
            elif step.grid[-1] != lanes:
                raise self.error(step.loc.line, f"{what}: lanes: {text!r}: launch step {step.kernel!r} needs "
                                                f"{text} as its last grid dimension (its blocks at index i are "
                                                f"lane i), got {shapes.to_text(step.grid[-1])!r}")

    def _indexed_arg(self, node: Node, name: str, index: str, what: str) -> ArgIndex:
        """`activations[d]`: one element of a list(activation) or list(int) attr, at a bound index."""
        attr = next((a for a in self.attrs if a.name == name), None)
        if attr is None or attr.type not in (AttrType.LIST_ACTIVATION, AttrType.LIST_INT):
            lists = [a.name for a in self.attrs if a.type in (AttrType.LIST_ACTIVATION, AttrType.LIST_INT)]
            raise self.error(node.line, f"{what}: argument {node.value!r}: {name!r} is not a list(activation) or "
                                        f"list(int) attr (those attrs: {lists})")
        expr = self._bound_expr(Node(index.strip(), node.line), f"{what}: argument {node.value!r}: index")
        return ArgIndex(name, expr)

    def _new_loop_symbol(self, name: str, line: int, what: str) -> None:
        """A loop variable or loop let becomes a local of the wrapper: a fresh, valid name."""
        self._check_symbol_name(name, line, what)
        taken = self._launch_names() | {a.name for a in self.attrs}
        if name in taken:
            raise self.error(line, f"{what}: {name!r} is already an input, output, attr, let, shape symbol, "
                                   f"scratch buffer or enclosing loop's name")

    def _check_not_the_function(self, node: Node, arg: object, function: str, what: str) -> None:
        """The entry point of a step calls its device function with its parameters, named after the
        arguments (a list input's count `x_count`, an activation's `act_id`, `act_p0`, ..., a list
        element's `act_1`): none may be the function's name, which it would hide."""
        if not isinstance(arg, str):
            return
        names = {arg}
        if any(a.name == arg and a.is_list for a in self.inputs):
            names.add(f"{arg}_count")
        if any(a.name == arg and a.type in (AttrType.ACTIVATION, AttrType.LIST_ACTIVATION, AttrType.LIST_INT)
               for a in self.attrs):
            names |= {f"{arg}_id"} | ({function} if re.fullmatch(rf"{re.escape(arg)}_p?\d+", function) else set())
        if function in names:
            raise self.error(node.line, f"{what}: argument {arg!r} has the name of the step's device function "
                                        f"{function!r}, which the entry point calls: rename one of them")

    def _launch_step(self, node: Node) -> LaunchStep | GemmStep | RepeatStep:
        if isinstance(node.value, dict) and "gemm" in node.value:
            return self._gemm_step(node, node.value["gemm"])
        if isinstance(node.value, dict) and "repeat" in node.value:
            return self._repeat_step(node, node.value["repeat"])
        r = self.reader(node, "launch step")
        name = self.identifier(r.pop("kernel"), "launch step", KERNEL_NAME_RE, node.line)
        what = f"launch step {name!r}"
        r.what = what
        dims = {}
        for key in ("grid", "block"):
            dim_node = r.pop(key, required=True)
            assert dim_node is not None
            items = dim_node.value if isinstance(dim_node.value, list) else [dim_node]
            if not 1 <= len(items) <= 3:
                raise self.error(dim_node.line, f"{what}: {key} needs 1 to 3 dimensions")
            dims[key] = tuple(self._bound_expr(n, f"{what}: {key}") for n in items)
        shared_node = r.pop("shared_bytes")
        shared = self._bound_expr(shared_node, f"{what}: shared_bytes") if shared_node is not None else None
        args: list[str | ArgIndex] = []
        known = self._launch_names()
        for n in self.seq(r.pop("args", required=True), f"{what}: args"):
            indexed = INDEXED_ARG_RE.fullmatch(n.value) if isinstance(n.value, str) else None
            self._check_not_the_function(n, indexed.group(1) if indexed else n.value, name, what)
            if indexed is not None:
                args.append(self._indexed_arg(n, indexed.group(1), indexed.group(2), what))
                continue
            if n.value not in known:
                raise self.error(n.line, f"{what}: argument {n.value!r} is not an input, output, scratch buffer, "
                                         f"attr, let or shape symbol of this op")
            attr = next((a for a in self.attrs if a.name == n.value), None)
            if attr is not None and attr.type is AttrType.LIST_ACTIVATION:
                raise self.error(n.line, f"{what}: argument {n.value!r} is a list(activation) attr: pass one "
                                         f"element, such as {n.value}[d]")
            args.append(str(n.value))
        when = self._condition(r.pop("when"), what, checks=True)
        r.finish()
        return LaunchStep(name, dims["grid"], dims["block"], tuple(args), when, self.loc(node), shared)
