"""The names of a generated PyTorch op's helper ops (issue 32), in one place: the codegen prints them
into the package's C++ unit (torch_native.cpp) and torch.py (the helper schemas it registers with the
shared gate library), which registers their Python kernels under them. Torch-free, so that the
codegen imports it without torch."""

from __future__ import annotations


def autograd_helper(function: str) -> str:
    """The helper a grad-mode call that records a graph goes to (the C++ Autograd kernel defines it,
    codegen/runtime/torch_autograd.py gives it torch's autograd kernel): `_<function>_autograd`."""
    return f"_{function}_autograd"


def python_helper(function: str) -> str:
    """The helper the native kernel hands a call its driver gives back to (OPGEN_ERR_FALLBACK) when
    the package's torch.py is loaded (which defines it, with the op's Python kernel): `_<function>_python`."""
    return f"_{function}_python"
