"""The Autograd-key kernel of a generated PyTorch op (issue 32): `torch.library.register_autograd`'s
own kernel, behind a shorter route for the calls that build no graph.

A tensor outside inference mode carries the Autograd key whether or not it requires grad, so the
Python kernel `register_autograd` installs runs on every grad-mode call. That kernel already skips
its autograd.Function when grad mode is off or no input requires grad, but only after packing a
metadata dataclass and two more Python frames per call; here those calls redispatch below autograd
at once, exactly as its no-grad branch does (same keyset, same guard), and every other call is
handed to torch's kernel unchanged (its setup_context, backward, double backward and errors).
PyTorch's stable ABI has no requires-grad query and no below-autograd redispatch, so this kernel
cannot move into the C++ library (torch_native.cpp); where the package's C++ Autograd kernel is loaded
(opgen's gate library, built against PyTorch's own headers: codegen/runtime/torch_gate.py), that
kernel takes both branches and torch's kernel serves only its graph branch, through the op's helper
`<ns>::_<op>_autograd` (`gated`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from codegen.runtime.torch_names import autograd_helper


def _torch_kernel(op: Any, backward: Callable[..., Any], setup_context: Callable[..., Any]) -> Any | None:
    """The kernel `torch.library.register_autograd` would register for `op` (torch's private
    builder of it), or None where this PyTorch lacks that builder."""
    try:
        from torch._library.autograd import Info, make_autograd_impl
    except ImportError:
        return None
    return make_autograd_impl(op, Info(backward, setup_context))


def register_autograd(qualname: str, backward: Callable[..., Any], *, setup_context: Callable[..., Any],
                      lib: Any, gated: bool = False) -> None:
    """`torch.library.register_autograd(qualname, backward, setup_context=..., lib=lib)`, whose kernel
    a call that needs no graph bypasses (the module's docstring). `gated`: the op's Autograd kernel is
    the C++ one (torch_gate.load returned True), so torch's kernel becomes the only kernel of its helper
    `<ns>::_<op>_autograd`, as CompositeImplicitAutograd: a traced graph decomposes the helper, and the
    autograd.Function's forward redispatches the op itself below autograd (the helper's keyset carries
    the op's backend keys: same schema, same arguments)."""
    namespace, name = qualname.split("::")
    op = getattr(getattr(torch.ops, namespace), name).default
    graph_kernel = _torch_kernel(op, backward, setup_context)
    if gated:
        if graph_kernel is None:  # (torch_gate.load checks for the builder before loading the gate)
            raise RuntimeError(f"{qualname}: this PyTorch has no autograd kernel builder for the C++ gate's helper")
        lib.impl(autograd_helper(name), graph_kernel, "CompositeImplicitAutograd", with_keyset=True)
        return
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
