"""Torch tensors in generated ops: torch in, torch out, without copies where the memory allows.

A generated wrapper's `_run` asks `torch_call(*inputs)` whether any input is a torch tensor; if so,
`TorchCall.run` converts the inputs (CPU tensors to NumPy views, CUDA tensors to CuPy views through
DLPack), runs the op on the tensors' device, on torch's current CUDA stream, and converts every
output back (`torch.from_numpy` / `torch.from_dlpack`: views, not copies). Nothing here imports
torch unless a torch tensor is already at hand.

Also here, for the torch registration (generated/torch.py): `sym_max`/`sym_min` (shape arithmetic
on symbolic sizes without guards), `fake_backend` (the outputs of a fake call as empty tensors) and
`same_device` (tensors on two devices are refused, as PyTorch refuses them).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import importlib
import importlib.util
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

_Outputs = TypeVar("_Outputs", bound=tuple[Any, ...])  # an op's outputs (its NamedTuple)

_TENSOR_TYPES: set[type] = set()  # torch.Tensor and its subclasses, once seen (no torch import here)


def _is_torch(value: Any) -> bool:
    kind = type(value)
    if kind in _TENSOR_TYPES:
        return True
    if kind.__module__.startswith("torch") and hasattr(value, "requires_grad"):
        _TENSOR_TYPES.add(kind)
        return True
    return False


def _first_tensor(values: Any) -> Any | None:
    """The first torch tensor among the values (a list's elements included), or None; NumPy arrays
    and None pass with one type test each (the fast path of every wrapper call)."""
    for value in values:
        if type(value) is np.ndarray or value is None:
            continue
        if isinstance(value, (list, tuple)):
            found = next((v for v in value if _is_torch(v)), None)
            if found is not None:
                return found
        elif _is_torch(value):
            return value
    return None


def same_device(op: str, inputs: dict[str, Any]) -> Any | None:
    """The device of the torch tensors among the inputs (list elements included), None without
    any. Tensors on two devices (cpu and meta, cpu and cuda, cuda:0 and cuda:1) are refused as
    PyTorch's own ops refuse them, naming the op and both arguments: a meta tensor among CPU ones
    would otherwise reach the fake implementation, which returns uninitialised CPU tensors."""
    first: Any = None
    first_name = ""
    for name, value in inputs.items():
        if type(value) is np.ndarray or value is None:
            continue
        items = enumerate(value) if isinstance(value, (list, tuple)) else ((None, value),)
        for index, item in items:
            if not _is_torch(item):
                continue
            if first is None:
                first, first_name = item.device, name if index is None else f"{name}[{index}]"
            elif item.device != first:
                arg = name if index is None else f"{name}[{index}]"
                raise RuntimeError(f"{op}: {arg} is on {item.device}, {first_name} on {first}: Expected all tensors "
                                   f"to be on the same device, but found at least two devices, {first} and "
                                   f"{item.device}!")
    return first


def torch_call(*inputs: Any) -> TorchCall | None:
    """A TorchCall when some input (or list element) is a torch tensor, else None."""
    example = _first_tensor(inputs)
    return None if example is None else TorchCall(example)


def _torch() -> Any:
    return sys.modules["torch"]  # a torch tensor is at hand, so torch is imported


def to_numpy(tensor: Any) -> Any:
    """A CPU tensor as a NumPy view (bfloat16 through ml_dtypes, which NumPy lacks)."""
    torch = _torch()
    if tensor.dtype is torch.bfloat16:
        import ml_dtypes

        return tensor.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return tensor.numpy()


_BFLOAT16: set[Any] = set()  # the ml_dtypes bfloat16 dtype, once seen (dtype.name is slow)


def from_array(array: Any) -> Any:
    """A NumPy or CuPy array as a torch tensor sharing its memory (lists element by element)."""
    torch = _torch()
    if type(array) is np.ndarray:
        dtype = array.dtype
        if dtype.kind == "V" and (dtype in _BFLOAT16 or dtype.name == "bfloat16"):
            _BFLOAT16.add(dtype)
            return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
        return torch.from_numpy(array)
    if isinstance(array, list):
        return [from_array(a) for a in array]
    if _is_torch(array) or not hasattr(array, "__dlpack__"):
        return array  # already a tensor, or not an array
    return torch.from_dlpack(array)


class TorchCall:
    """One call of an op with torch tensors: their device picks the scope, outputs come back as
    tensors on it. `registered`: the call of a torch.ops.opgen implementation, below autograd,
    whose inputs may still carry requires_grad (their data is read, not their graph)."""

    def __init__(self, example: Any, registered: bool = False) -> None:
        self.device = example.device if example is not None else _torch().device("cpu")
        self.registered = registered
        self.package = "generated"  # the generated package of the op (run sets it), for messages

    def scope(self, scope: Any) -> Any:
        """The scope of the tensors' device when the caller gave none ("cpu", "cuda:N")."""
        if scope is not None:
            return scope
        device = self.device
        return "cpu" if device.type == "cpu" else f"cuda:{device.index or 0}"

    def adopt(self, op: str, arg: str, value: Any) -> Any:
        if not _is_torch(value):
            if isinstance(value, (list, tuple)):
                return [self.adopt(op, f"{arg}[{i}]", v) for i, v in enumerate(value)]
            return value
        if value.requires_grad:
            if not self.registered:
                raise TypeError(f"{op}: {arg}: expected a tensor that does not require grad, got a Tensor with "
                                f"requires_grad=True: call {_torch_ops(self.package)} for autograd, or pass "
                                f"value.detach()")
            value = value.detach()
        if not value.is_cuda:
            if value.device.type != "cpu":
                raise TypeError(f"{op}: {arg}: expected a CPU or CUDA tensor, got one on {value.device}")
            return to_numpy(value)
        import cupy

        return cupy.from_dlpack(value)

    @contextlib.contextmanager
    def stream(self) -> Iterator[None]:
        """CUDA work on torch's current stream of the device, so it orders with torch's own work."""
        import cupy

        torch = _torch()
        handle = torch.cuda.current_stream(self.device).cuda_stream
        with cupy.cuda.Device(self.device.index or 0), cupy.cuda.ExternalStream(handle):
            yield

    def run(self, op: str, compute: Callable[..., _Outputs], scope: Any, inputs: dict[str, Any],
            attrs: tuple[Any, ...]) -> _Outputs:
        """compute(scope, *inputs, *attrs) on converted inputs; the outputs (a NamedTuple) as tensors."""
        self.package = getattr(compute, "__module__", None) or self.package
        same_device(op, inputs)
        arrays = [self.adopt(op, name, value) for name, value in inputs.items()]
        if self.device.type == "cuda":
            with self.stream():
                out = compute(self.scope(scope), *arrays, *attrs)
        else:
            out = compute(self.scope(scope), *arrays, *attrs)
        return type(out)(*[from_array(v) for v in out])


def _torch_ops(module: str) -> str:
    """Where the ops of the generated package of `module` are torch ops: `torch.ops.<namespace>.*
    (import <package>.torch)`, the namespace read from that torch module."""
    package = module.partition(".")[0]
    try:
        namespace = _torch_namespace(f"{package}.torch")
    except (ImportError, AttributeError):  # (not a generated package: the message stays general)
        return f"the op in torch.ops (import {package}.torch)"
    return f"torch.ops.{namespace}.* (import {package}.torch)"


_NAMESPACE_LINE = re.compile(r"^NAMESPACE = (.+)$", re.MULTILINE)


def _torch_namespace(name: str) -> Any:
    """The NAMESPACE of the torch module `name`: read from its source where it is not imported yet, so
    an error message does not build and load the package's PyTorch libraries (seconds of compiler, and
    its ops registered as a side effect); imported where its source cannot be read."""
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.find_spec(name)
        if spec is None:
            raise ImportError(f"no module named {name!r}")
        try:
            found = _NAMESPACE_LINE.search(Path(spec.origin or "").read_text(encoding="utf-8"))
            if found:
                return ast.literal_eval(found.group(1))
        except (OSError, UnicodeDecodeError, ValueError, SyntaxError):
            pass
        module = importlib.import_module(name)
    return module.NAMESPACE


def run_registered(op: str, compute: Callable[..., Any], inputs: dict[str, Any], attrs: tuple[Any, ...]) -> Any:
    """A torch.ops.opgen implementation: the op's `_compute` on the tensors' device; the outputs as
    tensors (on the CPU for an op without tensor inputs, CudnnRNNParamsSize)."""
    call = TorchCall(_first_tensor(inputs.values()), registered=True)  # the first tensor gives the device
    return absent_as_empty(call.run(op, compute, None, inputs, attrs), call.device)


def absent_as_empty(outputs: Any, device: Any) -> Any:
    """An output a spec's `when:` did not compute (None) as an empty float32 tensor: a torch op's
    schema has no optional outputs."""
    if all(v is not None for v in outputs):
        return outputs
    return type(outputs)(*[_torch().empty(0, device=device) if v is None else v for v in outputs])


# -- symbolic sizes (fake tensors under torch.compile(dynamic=True)) ---------------------------------
def sym_max(*args: Any) -> Any:
    """max() of sizes that may be SymInts: torch.sym_max records no guard, Python's max would."""
    if all(type(a) is int for a in args):
        return max(args)
    return functools.reduce(_torch().sym_max, args)


def sym_min(*args: Any) -> Any:
    if all(type(a) is int for a in args):
        return min(args)
    return functools.reduce(_torch().sym_min, args)


_TORCH_DTYPES = {"float16", "bfloat16", "float32", "float64", "int8", "uint8", "int32", "int64", "bool",
                 "uint32", "uint64"}


def torch_dtype(name: str) -> Any:
    if name not in _TORCH_DTYPES:
        raise TypeError(f"no torch dtype for {name!r}")
    return getattr(_torch(), name)


class FakeBackend:
    """What a generated `_fake` call allocates with: empty tensors on the inputs' device (fake
    tensors under FakeTensorMode), named as the backend that would run there (launch sizes may
    differ per backend; outputs never should)."""

    def __init__(self, device: Any = None) -> None:
        self.device = device if device is not None else _torch().device("cpu")  # (no tensor input)
        self.name = "cpu" if self.device.type == "cpu" else "cuda"

    def empty(self, shape: list[Any], dtype: str) -> Any:
        return _torch().empty(shape, dtype=torch_dtype(dtype), device=self.device)


def fake_backend(op: str, inputs: dict[str, Any]) -> FakeBackend:
    """The FakeBackend of a generated `_fake` call: its inputs' one device (same_device refuses
    tensors on two), the CPU for an op without tensor inputs."""
    return FakeBackend(device=same_device(op, inputs))
