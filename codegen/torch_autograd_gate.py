"""The package's Autograd-key kernel in C++ (issue 32): one translation unit (the package's
`torch_autograd_gate.cpp`) that defines, for each op the package registers, the helper op
`<ns>::_<op>_autograd` of the op's schema and registers codegen/runtime/native/torch_autograd_gate.h's
kernel as the op's Autograd kernel. Printed from the op list the stable registration
(codegen/torch_native.py) is printed from; codegen/runtime/torch_gate.py builds it, the package's
torch.py loads it after the stable library and gives each helper its Python kernel
(codegen/runtime/torch_autograd.py)."""

from __future__ import annotations

from codegen import torchgen
from codegen.model import OpSpec
from codegen.runtime.torch_names import autograd_helper
from codegen.torch_native import cxx_string


def helper_schema(op: OpSpec) -> str:
    """The op's schema under its helper's name (the graph branch's op)."""
    return torchgen.schema(op, autograd_helper(op.snake_name))


def source(ops: list[OpSpec], namespace: str, header: str) -> str:
    """The translation unit for the package's registered ops `ops` (torch.py's), in `namespace`."""
    lines = [header, "// The package's ops' Autograd kernel in C++: codegen/torch_autograd_gate.py (opgen's",
             "// docs/pytorch.md). Loaded by the package's torch.py after torch_native.cpp's library.",
             '#include "torch_autograd_gate.h"', ""]
    lines += ["// Each op's helper, by its qualified name (the kernel's template argument)."]
    lines += [f"static constexpr char k_{op.snake_name}_helper[] = "
              f"{cxx_string(namespace + '::' + autograd_helper(op.snake_name))};" for op in ops]
    lines += ["", f"TORCH_LIBRARY_FRAGMENT({namespace}, m) {{"]
    lines += [f"  m.def({cxx_string(helper_schema(op))});" for op in ops]
    lines += ["}", "", f"TORCH_LIBRARY_IMPL({namespace}, Autograd, m) {{"]
    lines += [f"  m.impl({cxx_string(op.snake_name)}, torch::CppFunction::makeFromBoxedFunction<"
              f"&opgen_torch_gate::kernel<k_{op.snake_name}_helper>>());" for op in ops]
    lines.append("}")
    return "\n".join(lines) + "\n"
