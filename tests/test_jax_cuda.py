"""The JAX handlers' CUDA half (generated/jax_ffi.cpp's `opgen_jax_<Op>_cuda`, docs/jax.md) without a
GPU: the handlers' body (codegen/runtime/native/jax_ffi.h's `opgen_jax::drive`, exported as
`opgen_jax_drive`), called as the CUDA handler calls it — the op's driver on the cuda device with
buffers in device memory, a stream and a scratch allocator — on the libcuda stand-in
(codegen/runtime/native/cuda_standin.cpp), leaves outputs bit-identical to the Python cuda plan on the
host (Scope("cpu", kernel_form="gpu"): the same GPU form of the kernels, the same launches) and close
to the cpu handler's under jax.jit (the cpu plan reduces in another order); a misshaped output is
refused by name. The library compiling here at all is the check that the CUDA handlers build without
CUDA's headers. On a GPU session the `gpu` test runs jit, grad and vmap on JAX's CUDA devices."""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from native_driver_harness import ALLOC, DTYPES, VAL_FLOAT, VAL_INT, Allocator, Arg, Tensor, Value
from standin_driver import Standin

from codegen import jaxgen
from codegen.load import load_specs
from codegen.runtime import jax_library, native_cpu, native_cuda, native_plan
from codegen.runtime.jax_abi import PLATFORMS, handler_symbol
from codegen.runtime.scope import Scope

jax = pytest.importorskip("jax", reason="JAX is not installed (the opgen[jax] extra)")
import generated.jax as gj  # noqa: E402  (after the skip: it imports jax)
from generated.norm import layer_norm, softmax  # noqa: E402

PROJECT = Path(__file__).resolve().parent.parent
DEVICE_CUDA, VALUE = 1, 2


class Where(ctypes.Structure):  # jax_ffi.h's opgen_jax_where
    _fields_ = [("device", ctypes.c_int32), ("device_index", ctypes.c_int32), ("stream", ctypes.c_void_p),
                ("scratch", Allocator)]


@pytest.fixture(scope="module")
def library() -> Iterator[tuple[ctypes.CDLL, Standin]]:
    """The package's JAX handler library handed the native cuda runtime on the stand-in, LayerNorm's
    and Softmax's modules bound on its device 0 (as jax_library.bind_cuda binds them on a GPU)."""
    lib, _ = jax_library.build(PROJECT / "generated" / "jax_ffi.cpp")
    cuda = Standin()
    native_cuda.use_driver(cuda.path, standin=True)
    runner = native_cpu.NativeCpu(native_plan.NativePlans(lib))
    native_cuda.hand_runner(lib)
    for module in (layer_norm, softmax):
        op = module._NATIVE.op
        native_cuda.bind(op, 0, native_cuda.module_image(module._KERNELS, None),  # type: ignore[arg-type]
                         runner.recorder(op).symbols)
    lib.opgen_jax_drive.restype = ctypes.c_int
    lib.opgen_jax_drive.argtypes = [ctypes.c_void_p, ctypes.POINTER(Arg), ctypes.c_int64, ctypes.POINTER(Value),
                                    ctypes.c_int64, ctypes.POINTER(Tensor), ctypes.c_int64, ctypes.POINTER(Where),
                                    ctypes.c_char_p, ctypes.c_int64]
    yield lib, cuda
    native_cuda._DRIVER[1] = False


class Device:
    """Arrays in the stand-in's device memory (host memory: NumPy views them) as driver.h's tensors."""

    def __init__(self, cuda: Standin):
        self.cuda = cuda
        self.keep: list[Any] = []

    def array(self, like: np.ndarray) -> np.ndarray:
        pointer = self.cuda.alloc(like.nbytes)
        view = np.ctypeslib.as_array((ctypes.c_uint8 * max(like.nbytes, 1)).from_address(pointer))[:like.nbytes]
        out = view.view(like.dtype).reshape(like.shape)
        out[...] = like
        return out

    def tensor(self, array: np.ndarray) -> Tensor:
        shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
        self.keep.append(shape)
        return Tensor(array.ctypes.data, shape, None, array.ndim, DTYPES.index(array.dtype.name), DEVICE_CUDA, 0,
                      None)

    def scratch(self) -> Allocator:
        def alloc(ctx: Any, index: int, dtype: int, ndim: int, shape: Any, nbytes: int, data: Any, err: Any,
                  errlen: int) -> int:
            data[0] = self.cuda.alloc(nbytes)
            return 0

        callback = ALLOC(alloc)
        self.keep.append(callback)
        return Allocator(callback, None)


def _drive(library: tuple[ctypes.CDLL, Standin], op: str, inputs: list[np.ndarray], attrs: list[Value],
           outputs: list[np.ndarray]) -> tuple[int, str, list[np.ndarray]]:
    """The op's driver run through opgen_jax_drive on the stand-in's device 0 and a stream of its own,
    its outputs poisoned (NaN) device buffers shaped as `outputs`; the result, message and outputs."""
    lib, cuda = library
    device = Device(cuda)
    args = (Arg * len(inputs))(*(Arg(0, 0, device.tensor(device.array(x)), None, 0) for x in inputs))
    outs = [device.array(np.full_like(o, np.nan)) for o in outputs]
    tensors = (Tensor * len(outs))(*(device.tensor(o) for o in outs))
    values = (Value * max(len(attrs), 1))(*attrs)
    stream = cuda.stream()
    where = Where(DEVICE_CUDA, 0, stream, device.scratch())
    err = ctypes.create_string_buffer(1024)
    driver = ctypes.cast(getattr(lib, f"opgen_call_{op}"), ctypes.c_void_p)
    rc = lib.opgen_jax_drive(driver, args, len(inputs), values, len(attrs), tensors, len(outs), ctypes.byref(where),
                             err, 1024)
    cuda.check(cuda.lib.cuStreamSynchronize(stream))
    return rc, err.value.decode(), [o.copy() for o in outs]


def _float(v: float) -> Value:
    return Value(VAL_FLOAT, 0, 0, v, None, 0, None)


def _bits(arrays: Any) -> list[tuple[str, tuple[int, ...], bytes]]:
    return [(a.dtype.name, a.shape, np.ascontiguousarray(a).tobytes()) for a in (np.asarray(x) for x in arrays)]


CASES = {
    "LayerNorm": (layer_norm, gj.layer_norm, lambda r: [r.standard_normal((8, 96), dtype=np.float32),
                                                         r.standard_normal(96, dtype=np.float32),
                                                         r.standard_normal(96, dtype=np.float32)],
                  {"epsilon": 1e-5}, lambda a: [_float(a["epsilon"])]),
    "Softmax": (softmax, gj.softmax, lambda r: [r.standard_normal((6, 40), dtype=np.float32) * 4],
                {"axis": -1}, lambda a: [Value(VAL_INT, 0, a["axis"], 0.0, None, 0, None)]),
}


def test_every_op_has_a_cpu_and_a_cuda_handler_and_cuda_ones_register_only_with_cuda_devices(
        library: tuple[ctypes.CDLL, Standin]) -> None:
    lib, _ = library
    ops = [spec for spec in load_specs(PROJECT / "specs") if jaxgen.not_provided(spec) is None]
    assert ops
    for spec in ops:
        for platform in PLATFORMS:
            assert hasattr(lib, handler_symbol(jaxgen.handler_stem(spec), platform)), (spec.name, platform)
    on_cuda = [d for d in jax.devices() if d.platform in ("gpu", "cuda")]
    assert bool(jax_library.cuda_devices()) == bool(on_cuda)


@pytest.mark.parametrize("op", sorted(CASES))
def test_the_handler_body_on_the_cuda_device_is_the_cuda_plan(
        library: tuple[ctypes.CDLL, Standin], op: str) -> None:
    module, function, make, attrs, encode = CASES[op]
    inputs = make(np.random.default_rng(7))
    cpu = jax.jit(functools.partial(function, **attrs))(*inputs)  # the cpu handler
    wrapper = getattr(module, module.__name__.rsplit(".", 1)[1])
    plan = wrapper(*inputs, **attrs, scope=Scope("cpu", kernel_form="gpu"))  # the Python cuda plan on the host
    rc, message, outputs = _drive(library, op, inputs, encode(attrs), [np.asarray(o) for o in cpu])
    assert (rc, message) == (0, "")
    assert _bits(outputs) == _bits(plan)
    for got, want in zip(outputs, cpu, strict=True):  # (the cpu plan sums in another order: close, not equal)
        np.testing.assert_allclose(got, np.asarray(want), rtol=2e-6, atol=2e-6)


def test_an_output_xla_shaped_otherwise_is_refused_by_name(library: tuple[ctypes.CDLL, Standin]) -> None:
    x = np.ones((4, 10), np.float32)
    rc, message, _ = _drive(library, "Softmax", [x], [Value(VAL_INT, 0, -1, 0.0, None, 0, None)],
                            [np.ones((4, 9), np.float32)])
    assert rc == VALUE and "Softmax" in message and "y" in message and "[4, 10]" in message, message


@pytest.mark.gpu
def test_jit_grad_and_vmap_on_jax_cuda_devices() -> None:
    devices = jax_library.cuda_devices()
    if not devices:
        pytest.skip("JAX has no CUDA devices here (a CUDA jaxlib on a GPU runs this)")
    r = np.random.default_rng(3)
    x = r.standard_normal((16, 64), dtype=np.float32)
    gamma, beta = r.standard_normal(64, dtype=np.float32), r.standard_normal(64, dtype=np.float32)
    on_gpu = jax.device_put(x, devices[0])
    with jax.default_device(jax.devices("cpu")[0]):
        cpu_y = np.asarray(jax.jit(gj.layer_norm)(x, gamma, beta).y)
        cpu_g = np.asarray(jax.grad(lambda v: gj.softmax(gj.layer_norm(v, gamma, beta).y).y.sum())(x))
    gpu = jax.jit(gj.layer_norm)(on_gpu, jax.device_put(gamma, devices[0]), jax.device_put(beta, devices[0]))
    assert gpu.y.devices() == {devices[0]}
    np.testing.assert_allclose(np.asarray(gpu.y), cpu_y, rtol=1e-5, atol=1e-5)
    g = jax.grad(lambda v: gj.softmax(gj.layer_norm(v, gamma, beta).y).y.sum())(on_gpu)
    np.testing.assert_allclose(np.asarray(g), cpu_g, rtol=1e-4, atol=1e-5)
    rows = jax.vmap(lambda row: gj.softmax(row).y)(on_gpu)
    np.testing.assert_allclose(np.asarray(rows), np.asarray(jax.nn.softmax(x, axis=-1)), rtol=1e-5, atol=1e-6)
