"""The Autograd-key kernel of a generated PyTorch op (issue 32): `torch.library.register_autograd`'s
own kernel, behind a shorter route for the calls that build no graph.

A tensor outside inference mode carries the Autograd key whether or not it requires grad, so the
Python kernel `register_autograd` installs runs on every grad-mode call. That kernel already skips
its autograd.Function when grad mode is off or no input requires grad, but only after packing a
metadata dataclass and two more Python frames per call; here those calls redispatch below autograd
at once, exactly as its no-grad branch does (same keyset, same guard), and every other call is
handed to torch's kernel unchanged (its setup_context, backward, double backward and errors).
PyTorch's stable ABI has no requires-grad query and no below-autograd redispatch, so this kernel
cannot move into the C++ library (torch_native.cpp)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch


def _torch_kernel(op: Any, backward: Callable[..., Any], setup_context: Callable[..., Any]) -> Any | None:
    """The kernel `torch.library.register_autograd` would register for `op` (torch's private
    builder of it), or None where this PyTorch lacks that builder."""
    try:
        from torch._library.autograd import Info, make_autograd_impl
    except ImportError:
        return None
    return make_autograd_impl(op, Info(backward, setup_context))


def register_autograd(qualname: str, backward: Callable[..., Any], *, setup_context: Callable[..., Any],
                      lib: Any) -> None:
    """`torch.library.register_autograd(qualname, backward, setup_context=..., lib=lib)`, whose kernel
    a call that needs no graph bypasses (the module's docstring)."""
    namespace, name = qualname.split("::")
    op = getattr(getattr(torch.ops, namespace), name).default
    graph_kernel = _torch_kernel(op, backward, setup_context)
    if graph_kernel is None:  # (the public route: the same behaviour, without the shortcut)
        torch.library.register_autograd(qualname, backward, setup_context=setup_context, lib=lib)
        return
    below_autograd = torch._C._AutoDispatchBelowAutograd
    after_autograd = torch._C._after_autograd_keyset
    grad_enabled = torch._C.is_grad_enabled
    any_requires_grad = torch._C._any_requires_grad
    redispatch = op._handle.redispatch_boxed  # (OpOverload.redispatch, one Python frame less)

    def autograd_kernel(keyset: Any, *args: Any, **keyword_only: Any) -> Any:
        if grad_enabled() and any_requires_grad(*args):
            return graph_kernel(keyset, *args, **keyword_only)
        with below_autograd():
            return redispatch(keyset & after_autograd, *args, **keyword_only)

    lib.impl(name, autograd_kernel, "Autograd", with_keyset=True)
