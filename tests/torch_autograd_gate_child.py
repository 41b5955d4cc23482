"""Child of tests/test_torch_autograd_gate.py: imports the package's torch module with
OPGEN_TORCH_NATIVE=1 (the environment the parent sets, OPGEN_TORCH_AUTOGRAD_GATE included) and prints
one JSON line: whether the C++ Autograd kernel was loaded, which Python frames a grad-mode call with no
input requiring grad entered, and what the graph branch gives (autograd, gradcheck, double backward,
opcheck, torch.compile, torch.export). `--break-build`: the gate's compile fails (a missing header),
as where PyTorch's headers are broken: the package must keep its Python kernels."""

from __future__ import annotations

import json
import sys
import warnings
from typing import Any

import torch

if "--break-build" in sys.argv:
    from codegen.runtime import torch_gate

    flags = torch_gate._flags
    torch_gate._flags = lambda t: [*flags(t), "-include", "opgen_no_such_header.h"]

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import generated.torch as gt

ops = torch.ops.opgen


def python_frames(call: Any) -> list[str]:
    """The Python functions entered during `call()` (none, where the whole call stays in C++)."""
    entered: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            entered.append(f"{frame.f_code.co_filename.rsplit('/', 1)[-1]}:{frame.f_code.co_name}")

    x, gamma, beta = torch.randn(2, 8), torch.randn(8), torch.randn(8)
    call(x, gamma, beta)  # (warm)
    sys.setprofile(profile)
    try:
        call(x, gamma, beta)
    finally:
        sys.setprofile(None)
    return [f for f in entered if not f.endswith(":<lambda>")]


def graph_branch() -> dict[str, Any]:
    x = torch.randn(3, 8, requires_grad=True)
    gamma = torch.randn(8, requires_grad=True)
    y, mean, rstd = ops.layer_norm(x, gamma, None, epsilon=1e-3)
    dy = torch.randn(3, 8)
    (y * dy).sum().backward()
    ref_x, ref_g = x.detach().clone().requires_grad_(), gamma.detach().clone().requires_grad_()
    torch.nn.functional.layer_norm(ref_x, (8,), ref_g, None, eps=1e-3).mul(dy).sum().backward()
    value = torch.randn(2, 3, 5, dtype=torch.float64, requires_grad=True)
    bias = torch.randn(5, dtype=torch.float64, requires_grad=True)
    s = torch.randn(2, 5, requires_grad=True)
    (grad,) = torch.autograd.grad((ops.softmax(s) ** 2).sum(), s, create_graph=True)
    try:
        grad.sum().backward()
        second = "no error"
    except RuntimeError as e:
        second = str(e).splitlines()[0]
    return {"grad_fn": type(y.grad_fn).__name__, "frozen": [mean.requires_grad, rstd.requires_grad],
            "dx": float((x.grad - ref_x.grad).abs().max()), "dgamma": float((gamma.grad - ref_g.grad).abs().max()),
            "gradcheck": torch.autograd.gradcheck(lambda v, b: ops.bias_add(v, b), (value, bias)),
            "double_grad_fn": type(grad.grad_fn).__name__, "double_backward": second}


def opcheck() -> dict[str, Any]:
    """torch.library.opcheck's every test (test_autograd_registration included), inputs requiring grad."""
    x = torch.randn(4, 8, requires_grad=True)
    checks = {"layer_norm": (ops.layer_norm.default, (x, torch.randn(8, requires_grad=True), torch.randn(8)),
                             {"epsilon": 1e-5}),
              "softmax": (ops.softmax.default, (x,), {"axis": -1}),
              "bias_add": (ops.bias_add.default, (x, torch.randn(8, requires_grad=True)), {"data_format": "NHWC"})}
    return {name: {k: v for k, v in torch.library.opcheck(op, args, kwargs).items() if v != "SUCCESS"}
            for name, (op, args, kwargs) in checks.items()}


def compiled() -> float:
    """The largest difference of a compiled (fullgraph, dynamic) forward and backward to eager's."""
    def f(x: Any, gamma: Any) -> Any:
        return ops.softmax(ops.layer_norm(x, gamma)[0] + 1.0, axis=-1).pow(2).sum()

    fn = torch.compile(f, fullgraph=True, dynamic=True)
    worst = 0.0
    for rows in (4, 3):
        x, gamma = torch.randn(rows, 8, requires_grad=True), torch.randn(8, requires_grad=True)
        got = torch.autograd.grad(fn(x, gamma), [x, gamma])
        want = torch.autograd.grad(f(x, gamma), [x, gamma])
        worst = max(worst, *(float((a - b).abs().max()) for a, b in zip(got, want, strict=True)))
    return worst


def exported() -> list[str]:
    """The targets of the call nodes of an exported module's graph (inputs requiring grad)."""
    class M(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.gamma = torch.nn.Parameter(torch.randn(8))

        def forward(self, x: Any) -> Any:
            return ops.softmax(ops.layer_norm(x, self.gamma)[0])

    program = torch.export.export(M(), (torch.randn(4, 8, requires_grad=True),))
    return sorted({str(n.target) for n in program.graph.nodes if n.op == "call_function"})


if __name__ == "__main__":
    report = {"native": gt.NATIVE, "gated": gt.GATED,
              "warnings": [str(w.message) for w in caught if "Autograd kernel" in str(w.message)],
              "no_graph_frames": python_frames(lambda x, g, b: ops.layer_norm(x, g, b)),
              "graph": graph_branch(), "opcheck": opcheck(), "compiled": compiled(), "exported": exported()}
    print(json.dumps(report))
