"""Names: one function for each name the compiler derives (DESIGN.md, pipeline rule 6), and the
rules every name a spec gives or derives must follow, in one place: the loader (with the spec's
`file:line`), the activation library and `opgen new` (before it writes anything) all check names
here, so each rule and its message are the same everywhere.

A `check_*` function returns the name when it is valid and raises `InvalidName` (its message
without a location: the caller adds its own) when not. `check_unique` compares the names derived
from every op of a spec folder: two ops may not share any of them.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from codegen.load_cxx import cxx_taken
from codegen.runtime.kernels import kernel_symbol as kernel_symbol  # (the rule lives with the runtime, which reads it)
from codegen.runtime.kernels import symbol_parts
from codegen.yamlnodes import SpecError, describe

if TYPE_CHECKING:
    from codegen.model import OpSpec

# The snake-case rule (docs/specs.md, "Function names", has it with a table of examples): a word
# starts at a capital after a lowercase letter (BiasAdd → bias_add), and a capital run splits before
# its last capital when a lowercase letter follows (CudnnRNNParamsSize → cudnn_rnn_params_size); a
# digit group stays with the letters before it, and letters after it without a new word join it
# (DepthwiseConv2d → depthwise_conv2d, Conv2D → conv2d); a trailing version is a word of its own even
# after a capital run (CudnnRNNV3 → cudnn_rnn_v3, FusedBatchNormV3 → fused_batch_norm_v3).
_BOUNDARY = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z0-9])(?=[A-Z][a-z])|(?<=[A-Z0-9])(?=V\d+$)")


def snake_case(camel: str) -> str:
    """FusedBatchNormGradV3 → fused_batch_norm_grad_v3; DepthwiseConv2d → depthwise_conv2d."""
    return _BOUNDARY.sub("_", camel).lower()


# The earlier rule, kept only to tell a project which of its function names the current rule
# changes (load.py: a spec file still named by it keeps its name, with a warning).
_EARLIER_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b)|[A-Z]?[a-z]+|[A-Z]+|\d+")


def earlier_snake_case(camel: str) -> str:
    """The earlier rule, every digit group a word: DepthwiseConv2d → depthwise_conv_2_d."""
    words = _EARLIER_WORD.findall(re.sub(r"(?<=[A-Za-z])V(\d+)$", r"_V\1", camel))
    out: list[str] = []
    for word in words:
        if word.isdigit() and out and out[-1] == "v":  # a version number sticks to the V before it
            out[-1] += word
        else:
            out.append(word.lower())
    return "_".join(out)


def earlier_rule_warning(op: OpSpec) -> str | None:
    """What `opgen generate` says of an op whose function name the current rule would change (its
    spec file is named by the earlier rule, so it keeps the name): the `function_name:` that keeps it."""
    if not op.earlier_rule:
        return None
    return (f"{op.loc}: op {op.name}: its function name {op.snake_name} follows the earlier snake-case rule (the "
            f"current one gives {snake_case(op.name)}); it keeps it, but write `function_name: {op.snake_name}` "
            f"under `op: {op.name}` to keep it for good, or rename the spec file to {snake_case(op.name)}.yaml to "
            f"take the new name")


def camel_case(snake: str) -> str:
    """data_format → DataFormat (type aliases for enum attrs)."""
    return "".join(part.capitalize() for part in snake.split("_"))


def symbol_op(symbol: str) -> str:
    """The op whose entry point `symbol` is (the symbol rule's first part): a module shared by
    several ops (codegen/modules.py) holds the entry points of each."""
    return symbol_parts(symbol)[0]


def dtype_local(type_var: str) -> str:
    """The wrapper's local holding a type variable's dtype; prefixed so that a type variable T and
    a shape symbol T (time steps) can coexist."""
    return f"_dtype_{type_var}"


def outputs_class(op: str) -> str:
    return f"{op}Outputs"


# -- the rules ---------------------------------------------------------------------------------------
OP_NAME_RE = re.compile(r"^[A-Z][A-Za-z0-9]*$")
TYPE_VAR_RE = re.compile(r"^[A-Z][A-Za-z0-9]*$")
GROUP_RE = re.compile(r"^[a-z][a-z0-9_]*$")
#: Inputs, attrs, outputs, scratch buffers, loop variables.
ARG_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")
#: A launch step's device function (`kernel: row_scale`).
KERNEL_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")
#: `function_name:` (an op's snake_case name given in its spec).
FUNCTION_NAME_RE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
ACTIVATION_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")

#: Names the generated package exports besides its ops' (its __init__'s __all__).
PACKAGE_NAMES = frozenset({"OPGEN_VERSION", "Scope", "Activation", "ActivationLike"})
#: Module-level CamelCase names of a generated wrapper and of the package: an op, a type variable
#: or an enum's type alias may not take them.
MODULE_NAMES = frozenset({"Any", "Literal", "NamedTuple", "Path", "Sequence", "KernelSource", "Options",
                          "Outputs"}) | PACKAGE_NAMES
#: Top-level names of the generated package that a group folder may not take, and what has them.
RESERVED_GROUPS = {"activations": "activations.py, the activation library", "docs": "docs/, the reference pages",
                   "torch": "torch.py, the PyTorch registration", "jax": "jax.py, the JAX functions"}
#: The generated package's framework modules: no op, and each imports its framework (PyTorch, JAX).
FRAMEWORK_MODULES = ("torch", "jax")
#: Function names an op may not have: the generated package's top-level modules and folders
#: (`torch`, `jax`, `activations`, `docs`) and the module-level names of a generated wrapper that are
#: lower_case.
RESERVED_FUNCTIONS = frozenset({"torch", "jax", "activations", "docs", "annotations", "warnings"})
#: Names a generated wrapper uses for itself: an argument, output or symbol may not take them.
RESERVED_ARGS = frozenset({"scope", "options", "self", "cls", "create", "outputs", "op_name", "output_tuple",
                           "min", "max", "ceildiv", "enumerate", "backend", "len", "list", "tuple", "int", "float",
                           "bool", "str"})
#: Functions an activation's C expression may call: float math (in namespace opgen::act the vector
#: math library's) and the helpers templates/kernels/_activations.cuh defines.
ACTIVATION_C_FUNCTIONS = frozenset({"expf", "logf", "log1pf", "expm1f", "tanhf", "erff", "fabsf", "fminf", "fmaxf",
                                    "sqrtf", "tanh_fast", "logistic", "log1p_exp"})
#: Names an activation may not take: members of the generated Python `Activation` class and of
#: the C++ `opgen::act` namespace, and `x`, its formula's argument.
RESERVED_ACTIVATIONS = frozenset({"name", "params", "of", "check", "check_list", "kernel_args", "library", "slots",
                                  "Activation", "mro", "x"}) | ACTIVATION_C_FUNCTIONS


class InvalidName(ValueError):
    """A name that breaks a rule; the message names it and the rule, without a location."""


def check_op_name(value: Any) -> str:
    """An op's name: CamelCase, no Python keyword, none of the names the package or a wrapper
    defines (its class is exported beside them)."""
    if not isinstance(value, str) or not OP_NAME_RE.fullmatch(value):
        raise InvalidName(f"name {value!r} is not valid (expected CamelCase, {OP_NAME_RE.pattern})")
    if keyword.iskeyword(value) or value in MODULE_NAMES:
        raise InvalidName(f"name {value!r} is reserved (a name the generated package or its wrappers define: "
                          f"{', '.join(sorted(MODULE_NAMES))})")
    return value


def check_group(group: str) -> str:
    """A group folder (`nn`, `a/b`): each part a lower_case identifier (it becomes a package),
    the first none of the generated package's own top-level names."""
    parts = group.split("/")
    for part in parts:
        if not GROUP_RE.fullmatch(part) or keyword.iskeyword(part):
            raise InvalidName(f"group folder {part!r} is not valid (lower_case identifiers only, "
                              f"{GROUP_RE.pattern}, not Python keywords)")
    if parts[0] in RESERVED_GROUPS:
        raise InvalidName(f"group folder {parts[0]!r} is reserved (the generated package's "
                          f"{RESERVED_GROUPS[parts[0]]})")
    return group


def check_given_function_name(value: Any) -> str:
    """`function_name:` as written: a snake_case name, no Python keyword."""
    if not isinstance(value, str) or not FUNCTION_NAME_RE.fullmatch(value) or keyword.iskeyword(value):
        shown = repr(value) if isinstance(value, str) else describe(value)
        raise InvalidName(f"{shown} is not a snake_case name (expected {FUNCTION_NAME_RE.pattern}, not a "
                          f"Python keyword)")
    return value


def check_function_name(snake: str) -> str:
    """An op's function name, given or derived from its name (While → while): its function, module,
    spec file and torch op are named by it."""
    if keyword.iskeyword(snake):
        raise InvalidName(f"its function name {snake!r} is a Python keyword; give another with function_name:")
    if snake in RESERVED_FUNCTIONS:
        raise InvalidName(f"its function name {snake!r} is reserved (a name the generated package or its "
                          f"wrappers use); give another with function_name:")
    return snake


def check_identifier(value: Any, pattern: re.Pattern[str]) -> str:
    """An argument-like name (input, attr, output, scratch buffer, loop variable, kernel): it
    matches `pattern`, is no Python keyword nor a name the wrapper uses, and can name a kernel's
    parameter."""
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise InvalidName(f"name {value!r} is not valid (expected {pattern.pattern})")
    if keyword.iskeyword(value) or value in RESERVED_ARGS:
        raise InvalidName(f"name {value!r} is reserved")
    return check_kernel_parameter(value)


def check_kernel_parameter(name: str) -> str:
    """A name that may become a kernel's parameter (or is its device function): no C++ keyword and
    no name the kernels' headers define (codegen/load_cxx.py)."""
    why = cxx_taken(name)
    if why is not None:
        raise InvalidName(f"name {name!r} is {why}, which a kernel's parameter cannot be named: rename it")
    return name


def check_symbol_name(name: str) -> str:
    """A shape symbol or let: it becomes a local of the generated wrapper, so it must not shadow
    the wrapper's own names or Python's."""
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name):
        raise InvalidName(f"name {name!r} is not valid (expected an identifier)")
    if name.startswith("_") or keyword.iskeyword(name) or name in RESERVED_ARGS:
        raise InvalidName(f"symbol {name!r} is reserved (no leading _, keywords or names the wrapper uses)")
    return check_kernel_parameter(name)


def check_type_var_name(name: str) -> str:
    """A type variable: CamelCase (so never a dtype's name), no keyword or module-level name of the
    wrapper."""
    if not TYPE_VAR_RE.fullmatch(name) or keyword.iskeyword(name) or name in MODULE_NAMES:
        raise InvalidName(f"name {name!r} is not valid (expected CamelCase)")
    return name


def check_enum_alias(attr: str, op: str) -> str:
    """An enum attr's type alias (data_format → DataFormat) is a module-level name of the wrapper
    beside the op's class and its outputs class."""
    alias = camel_case(attr)
    if alias in MODULE_NAMES or alias in (op, outputs_class(op)):
        raise InvalidName(f"its type alias {alias} would shadow a name of the generated module; rename the attr")
    return alias


def check_activation_name(value: Any) -> str:
    """An activation or one of its parameters: lower_case, no keyword, none of the names of the
    generated `Activation` class or the kernels' `opgen::act` namespace."""
    if not isinstance(value, str) or not ACTIVATION_NAME_RE.fullmatch(value):
        raise InvalidName(f"name {value!r} is not valid (expected {ACTIVATION_NAME_RE.pattern})")
    if keyword.iskeyword(value) or value in RESERVED_ACTIVATIONS:
        raise InvalidName(f"name {value!r} is reserved")
    return value


# -- across ops --------------------------------------------------------------------------------------
def exported_names(op: OpSpec) -> dict[str, str]:
    """What the generated package exports for the op (its __init__'s __all__), by what each is."""
    return {op.name: "class", outputs_class(op.name): "outputs class", op.snake_name: "function"}


def check_unique(ops: Iterable[OpSpec]) -> None:
    """Two ops may share no derived name: op name; function name (which is also the op's module,
    its spec and generated files' names and its torch op, torch.ops.<namespace>.<function>); no
    name the package exports (FooOutputs: op Foo's outputs class and op FooOutputs's class); and
    no module path (an op's module a.b and the group folder a/b). A SpecError at the later op's
    spec names both ops and the name."""
    ops = list(ops)
    by_name: dict[str, OpSpec] = {}
    by_function: dict[str, OpSpec] = {}
    exported: dict[str, tuple[OpSpec, str]] = {}
    folders = {"/".join(parts[:i]) for parts in (op.group.split("/") for op in ops) for i in range(1, len(parts) + 1)}
    for op in ops:
        if op.name in by_name:
            raise SpecError(op.loc.file, op.loc.line,
                            f"op name {op.name!r} is also declared in {by_name[op.name].loc}", op.name)
        by_name[op.name] = op
        other = by_function.get(op.snake_name)
        if other is not None:  # FooBar and FooBAR: one function, module and torch op name for two ops
            raise SpecError(op.loc.file, op.loc.line,
                            f"function name {op.snake_name!r} is also {other.name}'s ({other.loc}): the package "
                            f"would export two functions {op.snake_name} and register two torch ops "
                            f"{op.snake_name}; give one of them another with function_name:", op.name)
        by_function[op.snake_name] = op
        if op.snake_name in folders:  # `from .nn.nn import nn` would hide the group
            raise SpecError(op.loc.file, op.loc.line,
                            f"function name {op.snake_name!r} is also a group folder's name: give the op "
                            f"another with function_name:", op.name)
        module = f"{op.group}/{op.snake_name}"
        if module in folders:  # a/b.py beside the folder a/b/: one module name for both
            raise SpecError(op.loc.file, op.loc.line,
                            f"module {module.replace('/', '.')} (its function name {op.snake_name!r} in group "
                            f"{op.group}) is also the group folder {module}'s package: give the op another "
                            f"with function_name:", op.name)
        for name, what in exported_names(op).items():
            seen = exported.get(name)
            if seen is not None:
                raise SpecError(op.loc.file, op.loc.line,
                                f"its {what} {name!r} is also the {seen[1]} of {seen[0].name} ({seen[0].loc}): "
                                f"the package exports one {name}; rename one of them", op.name)
            exported[name] = (op, what)
