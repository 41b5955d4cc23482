"""The package's PyTorch registration in C++ through PyTorch's stable ABI (issue 32): one translation
unit (the package's `torch_native.cpp`) that defines the schemas of its kernel ops with
STABLE_TORCH_LIBRARY_FRAGMENT in the package's torch namespace (a fragment, as the Python
registration's: another package may share the namespace) — the same schemas `codegen/torchgen.py`
gives the Python registration — and registers CPU and CUDA kernels (CompositeExplicitAutograd for an op
without tensor inputs) that hand the call to the op's native driver `opgen_call_<Op>`
(codegen/runtime/native/driver.h) through codegen/runtime/native/torch_stable.h; a call the driver
hands back goes to the op's Python helper (torch.py defines it). Fakes and autograd stay in Python
(the package's torch.py). codegen/runtime/torch_library.py builds it."""

from __future__ import annotations

from codegen import torchgen
from codegen.model import ActivationValue, Attr, AttrType, OpSpec
from codegen.runtime.kernels import c_name
from codegen.runtime.torch_names import python_helper

#: The C++ type each schema attr type is read as from the dispatcher's stack.
_ATTR_CXX: dict[AttrType, str] = {
    AttrType.INT: "int64_t", AttrType.FLOAT: "double", AttrType.BOOL: "bool", AttrType.STRING: "std::string",
    AttrType.ENUM: "std::string", AttrType.LIST_INT: "std::vector<int64_t>", AttrType.TYPE: "std::string",
    AttrType.ACTIVATION: "std::string", AttrType.LIST_ACTIVATION: "std::vector<std::string>",
}


def native_kernel(op: OpSpec) -> bool:
    """Whether the op gets a C++ kernel: it has a driver (a kernel launch plan: not a runtime op such
    as CudnnRNNParamsSize) and driver.h's call can return its outputs (tensors, not lists of them, as
    CudnnRNNParamsToCanonicalV2's). The others keep their Python kernels."""
    return op.has_launch_plan and not any(getattr(o, "is_list", False) for o in op.outputs)


def cxx_string(text: str) -> str:
    """A C++ string literal of `text`'s UTF-8 bytes (anything but printable ASCII as octal escapes)."""
    return '"' + "".join(chr(b) if 0x20 <= b < 0x7f and chr(b) not in '"\\' else f"\\{b:03o}"
                         for b in text.encode()) + '"'


def _activation_text(value: object) -> str:
    """An activation default as the schema's `str` takes it: `tanh`, `leaky_relu(alpha=0.1)`."""
    if not isinstance(value, ActivationValue):
        return str(value)
    return repr(value).removeprefix("Activation.") if value.params else value.name


def _none_default(attr: Attr) -> str:
    """The C++ value of a `str[]?` attr's default (the schema writes it None: torchgen.none_default)."""
    values = attr.default if isinstance(attr.default, (list, tuple)) else [attr.default]
    return "std::vector<std::string>{" + ", ".join(cxx_string(_activation_text(v)) for v in values) + "}"


def _kernel(op: OpSpec, namespace: str) -> list[str]:
    """The op's boxed kernel: the stack's arguments (inputs, then attrs) into a Call, the driver
    run, its outputs back onto the stack; a call the driver hands back, the same arguments to the
    op's Python helper (torch_stable.h's Call::fallback)."""
    name = op.snake_name
    lines = [f"static void boxed_{name}(StableIValue* stack, uint64_t, uint64_t) {{",
             f"  opgen_torch::Call call({cxx_string(op.name)});"]
    again = []  # (each argument as the Python helper takes it)
    k = 0
    for arg in op.inputs:
        if arg.is_list:
            lines += [f"  std::vector<Tensor> in_{k} = tsd::to<std::vector<Tensor>>(stack[{k}]);",
                      f"  call.list({cxx_string(arg.name)}, in_{k});"]
            again.append(f"tsd::from(in_{k})")
        elif arg.accepts_python_int:
            lines += [f"  int64_t in_{k} = tsd::to<int64_t>(stack[{k}]);",
                      f"  call.integer({cxx_string(arg.name)}, in_{k}, OPGEN_DT_{str(arg.dtype).upper()});"]
            again.append(f"tsd::from(in_{k})")
        elif arg.optional:
            lines.append(f"  call.optional({cxx_string(arg.name)}, stack[{k}]);")
            again.append(f"call.optional_input({k})")
        else:
            lines.append(f"  call.tensor({cxx_string(arg.name)}, stack[{k}]);")
            again.append(f"call.input({k})")
        k += 1
    for j, attr in enumerate(op.attrs):
        cxx = _ATTR_CXX[attr.type]
        # (attr_value, not stable's to<T>: torch_stable.h's AttrValue says why)
        if torchgen.none_default(attr):
            lines.append(f"  call.attr(opgen_torch::attr_value<std::optional<{cxx}>>(stack[{k}])"
                         f".value_or({_none_default(attr)}));")
            again.append(f"tsd::from(std::optional<{cxx}>(call.attr_as<{cxx}>({j})))")
        else:
            lines.append(f"  call.attr(opgen_torch::attr_value<{cxx}>(stack[{k}]));")
            again.append(f"tsd::from(call.attr_as<{cxx}>({j}))")
        k += 1
    driver = "opgen_call_" + c_name(op.name)
    helper = cxx_string(f"{namespace}::{python_helper(name)}")
    lines += [f"  if (call.run({driver}, {cxx_string(driver)}, {len(op.outputs)}, stack)) return;",
              f"  call.fallback({helper}, {len(op.outputs)}, stack, [&] {{",
              f"    return std::vector<StableIValue>{{{', '.join(again)}}};", "  });", "}"]
    return lines


def driver_declarations(ops: list[OpSpec]) -> list[str]:
    """The C declarations of the ops' drivers, for a front end's unit (the PyTorch library's, the JAX
    handlers'): weak, so that a library built without one says so when it is called."""
    return ["// The drivers (codegen/drivergen.py); weak: a library built without one says so when called.",
            'extern "C" {', *(f"__attribute__((weak)) int opgen_call_{c_name(op.name)}(opgen_call* call);"
                              for op in ops), "}"]


def source(ops: list[OpSpec], namespace: str, header: str) -> str:
    """The translation unit for the package's registered ops `ops` (torch.py's), in `namespace`."""
    native = [op for op in ops if native_kernel(op)]
    lines = [header, "// The package's ops in PyTorch through its stable ABI: codegen/torch_native.py (opgen's",
             "// docs/pytorch.md). Built by the package's torch.library_path().",
             '#include "torch_stable.h"', "",
             "using torch::stable::Tensor;",
             "namespace tsd = torch::stable::detail;  // (its from/to; the global ones are deprecated)",
             "", *driver_declarations(native), ""]
    for op in native:
        lines += [*_kernel(op, namespace), ""]
    lines += ["// Called by the package's torch.py once it has defined the ops' Python helpers (fallback).",
              'extern "C" __attribute__((visibility("default"))) void opgen_torch_enable_python_path() {',
              "  opgen_torch::python_path() = true;", "}", "",
              "// The output pool (host_output_pool.h): on (1) or off (0), or asked (-1); its state before. Set",
              "// from OPGEN_TORCH_OUTPUT_POOL when the package's torch.py loads the library (torch_library.py);",
              "// its idle bytes for tests.",
              'extern "C" __attribute__((visibility("default"))) int opgen_torch_output_pool(int on) {',
              "  opgen_front::OutputPool& pool = opgen_front::OutputPool::instance();",
              "  return on < 0 ? pool.enabled() : pool.set_enabled(on != 0);", "}",
              'extern "C" __attribute__((visibility("default"))) size_t opgen_torch_output_pool_bytes() {',
              "  return opgen_front::OutputPool::instance().bytes();", "}", ""]
    lines.append(f"STABLE_TORCH_LIBRARY_FRAGMENT({namespace}, m) {{")  # (another package may share the namespace)
    lines += [f"  m.def({cxx_string(torchgen.schema(op))});" for op in ops]
    lines.append("}")
    for key in ("CPU", "CUDA", "CompositeExplicitAutograd"):
        mine = [op for op in native if (key == "CompositeExplicitAutograd") != torchgen.has_tensor_inputs(op)]
        if mine:
            lines += ["", f"STABLE_TORCH_LIBRARY_IMPL({namespace}, {key}, m) {{"]
            lines += [f"  m.impl({cxx_string(op.snake_name)}, &boxed_{op.snake_name});" for op in mine]
            lines.append("}")
    return "\n".join(lines) + "\n"
