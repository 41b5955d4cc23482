"""A translation unit of generated drivers (issue 32): the native headers, the tables the drivers
read (accumulator dtypes, the activation library), each op's plan recorder (codegen/drivergen.py)
and its driver (codegen/drivergen_checks.py).

Two forms: `translation_unit` inlines the headers (the tests build one unit of many ops); `op_file`
prints one op's `<op>.driver.cpp` for generated/, which names the headers and the plan's runtime
with `#include` (the loader, codegen/runtime/native_driver.py, compiles it with the runtime's folders
on the include path and their digests in the cache key)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from codegen import drivergen
from codegen.drivergen_checks import c_string, driver_source
from codegen.model import ActivationLibrary, OpSpec
from codegen.runtime.dtypes import ACCUMULATOR
from codegen.runtime.plan import Plan

NATIVE = Path(__file__).resolve().parent / "runtime" / "native"
#: Inlined in this order (a header's `#include "x.h"` of another is dropped: it is already in the unit).
HEADERS = ("driver.h", "plan_abi.h", "plan_eval.h", "run_plan.h", "checks.h")


def _inline(name: str) -> str:
    return drivergen.inlined(NATIVE / name)


def _activation_table(library: ActivationLibrary) -> list[str]:
    """activation_named(): each function of the library with its default parameters, as a front-end
    hands over an activation (driver.h: its id, its kernel parameters padded to the library's slots)."""
    lines = []
    for kind in library.kinds:
        params = [p.default for p in kind.params] + [0.0] * (library.slots - len(kind.params))
        items = ", ".join(f"opgen_value{{OPGEN_VAL_FLOAT, 0, 0, {drivergen.c_double(float(v))}, nullptr, 0, nullptr}}"
                          for v in params) or "opgen_value{}"
        lines.append(f"  static const opgen_value p{kind.id}[] = {{{items}}};")
    entries = ", ".join(f"opgen_value{{OPGEN_VAL_ACT, 0, {k.id}, 0.0, p{k.id}, {library.slots}, {c_string(k.name)}}}"
                        for k in library.kinds)
    return ["const opgen_value* activation_named(const V& name) {", *lines,
            f"  static const opgen_value table[] = {{{entries or 'opgen_value{}'}}};",
            "  for (const opgen_value& a : table) if (a.text != nullptr && equal(name, lit(a.text))) return &a;",
            "  return nullptr;", "}",
            f"const char* activation_names() {{ return {c_string(', '.join(library.names))}; }}"]




def unit_prelude(library: ActivationLibrary, inline: bool = True) -> str:
    """The headers the drivers need (inlined: an edit to one changes the unit's cache key; else as
    `#include`s), the accumulator dtypes (codegen/runtime/dtypes.py's table), the activation library
    and the library's ABI function."""
    accumulate = "\n".join(f"  if (equal(dtype, lit({c_string(k)}))) return lit({c_string(v)});"
                           for k, v in ACCUMULATOR.items())
    headers = [_inline(h) for h in HEADERS] if inline else [f'#include "{h}"' for h in HEADERS]
    return "\n".join([
        *headers,
        "#define OPGEN_DRIVER_API extern \"C\" __attribute__((visibility(\"default\")))",
        "namespace opgen_checks {",
        "// ACCUMULATOR[dtype] (codegen/runtime/dtypes.py)",
        "inline V accumulator(const V& dtype) {",
        accumulate,
        "  fallback(\"no accumulator dtype for \" + str(dtype));",
        "}",
        *_activation_table(library),
        "}  // namespace opgen_checks",
        "OPGEN_DRIVER_API int64_t opgen_driver_abi() { return OPGEN_DRIVER_ABI; }",
        ""])


def translation_unit(ops: Iterable[tuple[OpSpec, Plan]], library: ActivationLibrary, extra: str = "") -> str:
    """Drivers of `ops` (each with its plan's recorder; `library`: their spec folder's activations)
    in one source; `extra` is appended (a test's stand-in for the plan's runtime,
    `opgen_native::run_plan`)."""
    pairs = list(ops)
    parts = [unit_prelude(library), "namespace opgen_plan {"]
    parts += [drivergen.plan_source(plan) for _, plan in pairs]
    parts.append("}  // namespace opgen_plan")
    parts += [driver_source(op, plan) for op, plan in pairs]
    parts.append(extra)
    return "\n".join(parts) + "\n"


def op_file(op: OpSpec, plan: Plan, library: ActivationLibrary, header: str) -> str:
    """One op's `<op>.driver.cpp` for generated/: `header` (the generated-file banner), the prelude
    with the headers included (once per unit: a package's PyTorch library compiles all its drivers
    as one), its recorder and its driver. The plan's runtime is the builder's to link, once per library
    (native_cpu.runner_object; codegen/runtime/native_driver.py, torch_library.py)."""
    return "\n".join([header, "#ifndef OPGEN_DRIVER_PRELUDE  // (the same for every op of the package)",
                      "#define OPGEN_DRIVER_PRELUDE", unit_prelude(library, inline=False), "#endif",
                      "namespace opgen_plan {", drivergen.plan_source(plan), "}  // namespace opgen_plan",
                      driver_source(op, plan)])


def load_runner(plans: Iterable[Plan], name_hint: str = "runner") -> Any:
    """The recorders of `plans` with the plan's runtime linked in (native_cpu.runner_object), without
    drivers, built (from memory, the disk cache, or compiled now) and loaded: a library that runs
    plans for the values and buffers a caller holds (codegen/runtime/native_cpu.py's `run_plan`;
    tests and bench/)."""
    from codegen.runtime import native_cpu, native_plan  # (the host backend: not loaded by `opgen generate`)
    from codegen.runtime.host.toolchain import EMU_DIR

    return native_cpu.NativeCpu(native_plan.load(drivergen.translation_unit(plans), name_hint,
                                                 include=(native_cpu.NATIVE_DIR, EMU_DIR),
                                                 link=(native_cpu.runner_object(),)))
