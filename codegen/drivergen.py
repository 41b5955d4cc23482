"""The native side of the launch plan: C++ that records an op's plan as `codegen/runtime/plan.py`
records it, printed from the same plan literals (codegen/plan_data.py, from the lowered IR,
codegen/lower.py) — no second reading of the spec.

`plan_source(plan)` prints one op's recorder from its runtime `Plan` (the wrapper's `_PLAN`, or
`runtime_plan(op)` for a spec); `translation_unit(plans)` puts several after the recorder's runtime
(codegen/runtime/native/plan_abi.h and plan_eval.h, inlined so that an edit changes the cache key). Each op
`Op` gets two C functions:

    int opgen_plan_Op(const opgen_plan_value* values, int64_t nvalues, const char* backend,
                      int64_t* words, int64_t capacity, int64_t* used, int64_t* variant,
                      char* err, int64_t errlen);
    const char* opgen_plan_Op_info(int table, int64_t index);  // 0 names, 1 strings, 2 symbols, 3 variants

`values` are those of `plan.names` in order (plan_abi.h states the descriptor; a string is its
index in the op's string table); the steps go to `words` (plan_abi.h states the layout, symbols
as indices in the op's symbol table); the result is 0 or an error code with `err` saying why.
codegen/runtime/native_plan.py compiles and calls it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from codegen import lower, plan_data, variants
from codegen.model import OpSpec
from codegen.runtime.kernels import c_name
from codegen.runtime.plan import GEMM_SIZES, LANES_BACKEND, MAX_LANES, Plan

NATIVE_DIR = Path(__file__).resolve().parent / "runtime" / "native"
RUNTIME_HEADERS = (NATIVE_DIR / "plan_abi.h", NATIVE_DIR / "plan_eval.h")  # inlined, in this order

_CTOR_TAGS = {"_np.int64": "OPGEN_T_I64", "_np.int32": "OPGEN_T_I32", "_np.float32": "OPGEN_T_F32",
              "_np.float64": "OPGEN_T_F64"}
_COMPARE = {"==", "!=", "<", "<=", ">", ">="}
_ARITH = {"+": "add", "-": "sub", "*": "mul", "//": "floordiv", "%": "mod", "ceildiv": "ceildiv"}
_CONDITION_HEADS = {"backend", "attr", "and", "or", "not", *_COMPARE}


def runtime_plan(op: OpSpec) -> Plan:
    """The op's plan as the runtime holds it (what its wrapper's `_PLAN` literal builds)."""
    names, steps = plan_data.encode(op)
    lowered = lower.lower(op)
    return Plan(op.name, names, lowered.plan.slots, steps, lowered.symbols,
                op.variants.names() if op.variants is not None else (), variants.param_values(op) if op.params else {})


def c_double(x: float) -> str:
    """A double as a C++ expression (NaN and the infinities by their macros)."""
    if math.isnan(x):
        return "NAN"
    if math.isinf(x):
        return "INFINITY" if x > 0 else "-INFINITY"
    return repr(x)


def _c_string(text: str) -> str:
    return json.dumps(text)  # ASCII with C-compatible escapes


def _strings(plan: Plan) -> list[str]:
    """The op's string table: every string the plan compares a value with or picks a symbol by."""
    found: set[str] = set()

    def walk(e: Any) -> None:
        if isinstance(e, tuple):
            if e and e[0] == "attr" and isinstance(e[2], str):
                found.add(e[2])
            elif e and e[0] == "scalar" and e[4]:
                found.add("float64")
            for part in e:
                walk(part)

    walk(plan.steps)
    for table in plan.symbols.values():
        for dtypes in table:
            found.update(dtypes)
    return sorted(found)


def plan_tables(plan: Plan) -> tuple[list[str], list[str]]:
    """The recorder's string table (a string value is its index here) and symbol table (a launch's
    kernel is its index here)."""
    return _strings(plan), sorted({sym for table in plan.symbols.values() for sym in table.values()})


class _Printer:
    """One op's recorder as C++ lines."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self.slot = {name: i for i, name in enumerate(plan.names)}
        strings, self.symbols = plan_tables(plan)
        self.strings = {s: i for i, s in enumerate(strings)}
        self.lines: list[str] = []
        self.temp = 0

    def env(self, name: str) -> str:
        if not (isinstance(name, str) and name.isidentifier()):
            raise ValueError(f"{self.plan.op}: {name!r} is not a name the plan reads")
        if name not in self.slot:
            self.slot[name] = len(self.slot)  # a repeat's variable or let: bound by the plan itself
        return f"env[{self.slot[name]}]"

    def fresh(self, stem: str) -> str:
        self.temp += 1
        return f"{stem}{self.temp}"

    # expressions (Num) and conditions (bool), as plan.evaluate reads the literals
    def num(self, e: Any) -> str:
        if isinstance(e, bool):
            return f"integer({int(e)})"
        if isinstance(e, int):
            return f"integer({e}LL)" if -2**63 < e < 2**63 else self._unrepresentable(e)
        if isinstance(e, float):
            return f"real({c_double(e)})"
        if isinstance(e, str):
            return f"num({self.env(e)}, {_c_string(e)})"
        head = e[0]
        if head in _CONDITION_HEADS:
            return f"integer(({self.cond(e)}) ? 1 : 0)"  # a bool used as a number, as Python does
        if head == "neg":
            return f"neg({self.num(e[1])})"
        if head in ("min", "max"):
            text = self.num(e[1])
            for arg in e[2:]:
                text = f"{head}2({text}, {self.num(arg)})"
            return text
        if head in _ARITH:
            return f"{_ARITH[head]}({self.num(e[1])}, {self.num(e[2])})"
        raise ValueError(f"{self.plan.op}: no native form for expression {e!r}")

    def cond(self, e: Any) -> str:
        if not isinstance(e, tuple) or e[0] not in _CONDITION_HEADS:
            return f"truth({self.num(e)})"
        head = e[0]
        if head == "backend":
            return f"(std::strcmp(backend, {_c_string(e[1])}) == 0)"
        if head == "attr":
            value = self.env(e[1])
            if isinstance(e[2], str):
                return f"({value}.kind == OPGEN_V_STR && {value}.i == {self.strings[e[2]]})"
            return f"(({value}.kind == OPGEN_V_INT || {value}.kind == OPGEN_V_FLOAT) && equal({self.num(e[1])}, " \
                   f"{self.num(e[2])}))"
        if head in ("and", "or"):
            joiner = " && " if head == "and" else " || "
            return "(" + (joiner.join(self.cond(c) for c in e[1:]) or ("true" if head == "and" else "false")) + ")"
        if head == "not":
            return f"(!{self.cond(e[1])})"
        if head in ("==", "!="):
            return f"({'' if head == '==' else '!'}equal({self.num(e[1])}, {self.num(e[2])}))"
        return f"(compare({self.num(e[1])}, {self.num(e[2])}) {head} 0)"

    def when(self, tests: Sequence[Any]) -> str:
        return " && ".join(self.cond(t) for t in tests) or "true"

    def value(self, name: str, index: Any) -> str:
        """The descriptor of a name, or of an element of a list name."""
        if index is None:
            return self.env(name)
        return f"item({self.env(name)}, {self.num(index)}, {_c_string(name)})"

    # steps
    def steps(self, steps: Iterable[Any], indent: str) -> None:
        for step in steps:
            getattr(self, f"step_{step[0]}")(step, indent)

    def step_launch(self, step: Any, indent: str) -> None:
        _, kernel, picks, grid, block, shared, args, when = step
        emit = self.lines.append
        emit(f"{indent}if ({self.when(when)}) {{")
        inner = indent + "  "
        sym = self.fresh("sym")
        emit(f"{inner}int64_t {sym} = -1;")
        for dtypes, symbol in self.plan.symbols[kernel].items():
            test = " && ".join(f"{self.env(p)}.kind == OPGEN_V_STR && {self.env(p)}.i == {self.strings[d]}"
                               for p, d in zip(picks, dtypes, strict=True)) or "true"
            emit(f"{inner}if ({sym} < 0 && {test}) {sym} = {self.symbols.index(symbol)};")
        emit(f"{inner}if ({sym} < 0) fail(OPGEN_E_SYMBOL, "
             f"{_c_string(f'kernel {kernel!r} has no entry point for the dtypes of ')}"
             f" {_c_string(', '.join(picks))});")
        emit(f"{inner}out.put(OPGEN_STEP_LAUNCH); out.put({sym});")
        for what, dims in (("grid", grid), ("block", block)):
            emit(f"{inner}out.put({len(dims)});")
            for d in dims:
                emit(f"{inner}out.put(whole({self.num(d)}, {_c_string(f'a {what} size')}));")
        emit(f"{inner}out.put(whole({self.num(shared)}, {_c_string('the shared size')}));")
        count = self.fresh("nargs")
        emit(f"{inner}int64_t {count} = out.used; out.put(0);")
        for arg in args:
            self.arg(arg, inner)
        emit(f"{inner}out.words[{count}] = (out.used - {count} - 1) / 2;")
        emit(f"{indent}}}")

    def arg(self, arg: Any, indent: str) -> None:
        emit = self.lines.append
        kind = arg[0]
        if kind in ("buf", "ptrs"):
            emit(f"{indent}out.put({'OPGEN_T_SLOT' if kind == 'buf' else 'OPGEN_T_SLOTS'}); out.put({arg[1]});")
        elif kind == "act":  # kernel_args(): the id as int32, each parameter as float32
            act = self.fresh("act")
            emit(f"{indent}{{ const opgen_plan_value& {act} = {self.value(arg[1], arg[2])};")
            emit(f"{indent}  if ({act}.kind != OPGEN_V_ACT) fail(OPGEN_E_TYPE, "
                 f"{_c_string(f'name {arg[1]!r} is not an activation')});")
            emit(f"{indent}  scalar(out, OPGEN_T_I32, integer({act}.i), {_c_string(arg[1])});")
            emit(f"{indent}  for (int64_t k = 0; k < {act}.len; ++k) "
                 f"scalar(out, OPGEN_T_F32, num({act}.items[k], {_c_string(arg[1])}), {_c_string(arg[1])}); }}")
        else:  # ("scalar", ctor, name, index, double_when)
            _, ctor, name, index, double_when = arg
            tag = _CTOR_TAGS[ctor]
            if double_when:
                wide = " || ".join(f"({self.env(s)}.kind == OPGEN_V_STR && {self.env(s)}.i == "
                                   f"{self.strings['float64']})" for s in double_when)
                tag = f"(({wide}) ? OPGEN_T_F64 : {tag})"
            emit(f"{indent}scalar(out, {tag}, num({self.value(name, index)}, {_c_string(name)}), {_c_string(name)});")

    def step_gemm(self, step: Any, indent: str) -> None:
        _, a, b, o, sizes, when = step
        if len(sizes) != GEMM_SIZES:  # (the step buffer's layout, plan_abi.h)
            raise ValueError(f"{self.plan.op}: a gemm step with {len(sizes)} sizes, expected {GEMM_SIZES}")
        emit = self.lines.append
        emit(f"{indent}if ({self.when(when)}) {{")
        emit(f"{indent}  out.put(OPGEN_STEP_GEMM); out.put({a}); out.put({b}); out.put({o});")
        for size in sizes:
            if isinstance(size, bool):
                emit(f"{indent}  out.put(OPGEN_T_BOOL); out.put({int(size)});")
            else:
                v = self.fresh("size")
                emit(f"{indent}  {{ Num {v} = {self.num(size)};")
                emit(f"{indent}    if ({v}.is_float) out.put_double(OPGEN_T_FLOAT, {v}.f); "
                     f"else {{ out.put(OPGEN_T_INT); out.put({v}.i); }} }}")
        emit(f"{indent}}}")

    def step_repeat(self, step: Any, indent: str) -> None:
        _, var, count, lets, body, when, lanes = step
        emit = self.lines.append
        i, n = self.fresh("i"), self.fresh("n")
        emit(f"{indent}if ({self.when(when)}) {{")
        lanes_count = self.fresh("lanes") if lanes != 0 else None
        if lanes_count:  # (plan.py's _walk: the lanes marked on LANES_BACKEND only, 2 to MAX_LANES of them)
            emit(f"{indent}  const int64_t {lanes_count} = std::strcmp(backend, {_c_string(LANES_BACKEND)}) == 0 ? "
                 f"whole({self.num(lanes)}, {_c_string('a lanes count')}) : 0;")
            emit(f"{indent}  if ({lanes_count} > 1 && {lanes_count} <= {MAX_LANES}) "
                 f"{{ out.put(OPGEN_STEP_LANES); out.put({lanes_count}); }}")
        emit(f"{indent}  int64_t {n} = whole({self.num(count)}, {_c_string('a repeat count')});")
        emit(f"{indent}  for (int64_t {i} = 0; {i} < {n}; ++{i}) {{")
        emit(f"{indent}    {self.env(var)} = value(integer({i}));")
        for name, expr in lets:
            emit(f"{indent}    {self.env(name)} = value({self.num(expr)});")
        self.steps(body, indent + "    ")
        emit(f"{indent}  }}")
        if lanes_count:
            emit(f"{indent}  if ({lanes_count} > 1 && {lanes_count} <= {MAX_LANES}) "
                 f"{{ out.put(OPGEN_STEP_LANES); out.put(0); }}")
        emit(f"{indent}}}")

    def _unrepresentable(self, e: int) -> str:
        raise ValueError(f"{self.plan.op}: the constant {e} does not fit an int64")



def plan_source(plan: Plan) -> str:
    """The C++ recorder of one op's plan (after plan_eval.h in a translation unit)."""
    p = _Printer(plan)
    p.steps(plan.steps, "  ")
    body = p.lines
    variant = [f"  if (*variant < 0 && truth(num({p.env(v)}, {_c_string(v)}))) *variant = {k};"
               for k, v in enumerate(plan.variants)]
    name = c_name(plan.op)
    tables = (plan.names, list(p.strings), p.symbols, plan.variants)
    lines = [f"// {plan.op}: its plan as codegen/runtime/plan.py records it (codegen/drivergen.py)",
             f"static void opgen_plan_walk_{name}(opgen_plan_value* env, const char* backend, Out& out, "
             "int64_t* variant) {", "  (void)backend;", *body, "  *variant = -1;", *variant, "}", "",
             f"OPGEN_PLAN_API int opgen_plan_{name}(const opgen_plan_value* values, int64_t nvalues, "
             "const char* backend, int64_t* words, int64_t capacity, int64_t* used, int64_t* variant, char* err, "
             "int64_t errlen) {",
             "  Out out{words, capacity, 0};",
             "  try {",
             f"    if (nvalues != {len(plan.names)}) fail(OPGEN_E_VALUES, "
             f"{_c_string(f'the plan reads {len(plan.names)} names, the call gave ')} "
             "+ std::to_string(nvalues));",
             "    if (backend == nullptr) fail(OPGEN_E_VALUES, \"no backend named\");",
             f"    opgen_plan_value env[{max(len(p.slot), 1)}] = {{}};",
             f"    for (int64_t k = 0; k < {len(plan.names)}; ++k) env[k] = values[k];",
             f"    opgen_plan_walk_{name}(env, backend, out, variant);",
             "    *used = out.used;",
             "    return OPGEN_PLAN_OK;",
             "  } catch (const Error& e) {",
             "    *used = out.used;",
             f"    return report(Error{{e.code, {_c_string(plan.op + ': ')} + e.message}}, err, errlen);",
             "  } catch (...) {  // (std::bad_alloc building a message): an error, never an exception through C",
             "    *used = out.used;",
             f"    return report(Error{{OPGEN_E_INTERNAL, {_c_string(plan.op + ': the native recorder failed')}}}, "
             "err, errlen);",
             "  }",
             "}", "",
             f"OPGEN_PLAN_API const char* opgen_plan_{name}_info(int table, int64_t index) {{"]
    for k, table in enumerate(tables):
        entries = ", ".join(_c_string(s) for s in table) or "nullptr"
        lines.append(f"  static const char* const t{k}[] = {{{entries}}};")
        lines.append(f"  if (table == {k}) return index >= 0 && index < {len(table)} ? t{k}[index] : nullptr;")
    lines += ["  return nullptr;", "}", ""]
    return "\n".join(lines)


def inlined(header: Path) -> str:
    """A runtime header's text for a unit that inlines it: its includes of our own headers dropped
    (the unit inlines those before it, in order)."""
    return "\n".join(line for line in header.read_text().splitlines() if not line.startswith('#include "'))


def translation_unit(plans: Iterable[Plan]) -> str:
    """plan_abi.h, plan_eval.h and the recorders of `plans`: one source the host compiler builds."""
    parts = [*(inlined(header) for header in RUNTIME_HEADERS), "namespace opgen_plan {", ""]
    parts += [plan_source(plan) for plan in plans]
    parts.append("}  // namespace opgen_plan")
    return "\n".join(parts) + "\n"
