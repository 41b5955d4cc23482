"""Inputs and attrs the fault probe of issue 12 found mishandled: non-native byte order, masked
arrays, torch tensors that require grad, NumPy arrays as attrs, int attrs outside int64, device
strings as scopes."""

from __future__ import annotations

import runpy
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from codegen.runtime.arrays import to_host
from generated import Scope, cudnn_rnn_v3, fused_batch_norm_grad_v3, fused_batch_norm_v3

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
PARITY = runpy.run_path(str(SCRIPTS / "gpu_parity.py"))


def _byte_swapped(value: Any) -> Any:
    """The same values in the other byte order ('<f4' → '>f4'), lists element by element."""
    if isinstance(value, (list, tuple)):
        return type(value)(_byte_swapped(v) for v in value)
    if isinstance(value, int) and not isinstance(value, bool):  # the params ops' int32 scalar inputs
        return np.array(value, ">i4")
    if isinstance(value, np.ndarray) and value.dtype.kind in "fiu" and value.dtype.itemsize > 1 \
            and value.dtype.name != "bfloat16":
        return value.astype(value.dtype.newbyteorder("S"))
    return value


def _flat_outputs(out: Any, fresh: tuple[str, ...]) -> list[tuple[str, np.ndarray]]:
    pairs: list[tuple[str, np.ndarray]] = []
    for name, value in zip(out._fields, out, strict=True):
        if name in fresh:
            continue
        items = value if isinstance(value, list) else [value]
        pairs += [(f"{name}[{i}]", to_host(v)) for i, v in enumerate(items)]
    return pairs


def _kernel_cases() -> list[Any]:
    from codegen.warmup import generated_ops

    cases = []
    for op, case in PARITY["all_cases"]([op for op in generated_ops() if op.name not in ("Batch", "Unbatch",
                                                                                          "UnbatchGrad")]):
        assert case is not None
        if _has_swappable(case.args):  # (bfloat16 has one byte order: a case with only those has nothing to swap)
            cases.append(pytest.param(op, case, id=f"{op.name}-{case.label}"))
    return cases


def _has_swappable(args: Any) -> bool:
    return any(_has_swappable(a) if isinstance(a, (list, tuple)) else
               (isinstance(a, int) and not isinstance(a, bool)) or
               (isinstance(a, np.ndarray) and a is not _byte_swapped(a)) for a in args)


def _assert_same_outputs(op: Any, case: Any, transform: Any) -> None:
    """The case's outputs, and those of its inputs through `transform`, are bit-identical and native."""
    changed = tuple(transform(a) for a in case.args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # GRUBlockCell's deprecation
        native = op.function(*case.args, **case.kwargs, scope=Scope("cpu"))
        other = op.function(*changed, **case.kwargs, scope=Scope("cpu"))
    for (name, a), (_, b) in zip(_flat_outputs(native, case.fresh), _flat_outputs(other, case.fresh), strict=True):
        assert a.dtype.isnative and b.dtype.isnative, name
        np.testing.assert_array_equal(b, a, err_msg=f"{op.name} {case.label}: {name}")


@pytest.mark.parametrize(("op", "case"), _kernel_cases())
def test_big_endian_inputs_give_the_native_results(op: Any, case: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every op, every parity case: the inputs in swapped byte order give bit-identical outputs
    (adopt converts them once; the kernels read raw bytes)."""
    monkeypatch.setenv("OPGEN_POISON_OUTPUTS", "1")
    _assert_same_outputs(op, case, _byte_swapped)


def _bn_inputs(c: int = 3) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 4, 5, c)).astype(np.float32)
    return x, np.ones(c, np.float32), np.zeros(c, np.float32), np.zeros(c, np.float32), np.ones(c, np.float32)


def test_big_endian_sequence_lengths_are_read_as_values() -> None:
    """CudnnRNN's int32 sequence_lengths in '>i4': the lengths mean the same steps."""
    rng = np.random.default_rng(2)
    t, b, i, h = 5, 3, 4, 6
    x = rng.standard_normal((t, b, i)).astype(np.float32)
    hx = np.zeros((1, b, h), np.float32)
    size = 4 * h * (i + h) + 8 * h
    params = rng.standard_normal(size).astype(np.float32) * 0.1
    lengths = np.array([5, 2, 1], np.int32)
    native = cudnn_rnn_v3(x, hx, hx, params, lengths, rnn_mode="lstm", scope="cpu")
    swapped = cudnn_rnn_v3(x, hx, hx, params, lengths.astype(">i4"), rnn_mode="lstm", scope="cpu")
    np.testing.assert_array_equal(swapped.output, native.output)
    assert np.all(native.output[2:, 1] == 0) and np.all(native.output[1:, 2] == 0)  # padding steps are zero


def test_masked_arrays_are_refused_by_name() -> None:
    x, *rest = _bn_inputs()
    with pytest.raises(TypeError, match=r"FusedBatchNormV3: x: expected an array without a mask, got a NumPy "
                                        r"masked array"):
        fused_batch_norm_v3(np.ma.masked_array(x, mask=x > 0), *rest, scope="cpu")
    with pytest.raises(TypeError, match=r"FusedBatchNormV3: scale: .*masked array"):
        fused_batch_norm_v3(x, np.ma.masked_array(rest[0]), *rest[1:], scope="cpu")


def test_a_torch_tensor_that_requires_grad_is_refused_by_name() -> None:
    torch = pytest.importorskip("torch")
    x, *rest = _bn_inputs()
    with pytest.raises(TypeError, match=r"FusedBatchNormV3: x: expected a tensor that does not require grad, got a "
                                        r"Tensor with requires_grad=True: call torch.ops.opgen"):
        fused_batch_norm_v3(torch.tensor(x, requires_grad=True), *rest, scope="cpu")


def test_numpy_scalars_and_0d_arrays_are_accepted_as_attrs() -> None:
    x, *rest = _bn_inputs()
    plain = fused_batch_norm_v3(x, *rest, epsilon=1e-3, data_format="NHWC", is_training=True, scope="cpu").y
    for epsilon, fmt, training in ((np.float32(1e-3), np.str_("NHWC"), np.bool_(True)),
                                   (np.array(1e-3), np.array("NHWC"), np.array(True))):
        out = fused_batch_norm_v3(x, *rest, epsilon=epsilon, data_format=fmt, is_training=training, scope="cpu")
        np.testing.assert_array_equal(out.y, plain)


@pytest.mark.parametrize(("attr", "value", "message"), [
    ("epsilon", np.array([1e-3]), r"attr epsilon: expected a float, got a 1-d array of shape \[1\]"),
    ("is_training", np.array([[True]]), r"attr is_training: expected a bool, got a 2-d array of shape \[1, 1\]"),
    ("data_format", np.array(["NHWC"]), r"attr data_format: expected one of NHWC, .*got a 1-d array"),
])
def test_arrays_of_rank_1_or_more_as_attrs_are_refused_by_name(attr: str, value: Any, message: str) -> None:
    x, *rest = _bn_inputs()
    with pytest.raises(TypeError, match=rf"FusedBatchNormV3: {message}"):
        fused_batch_norm_v3(x, *rest, scope="cpu", **{attr: value})


def test_a_0d_float_array_is_not_an_int_attr() -> None:
    from codegen.runtime.checks import check_int

    assert check_int("Op", "n", np.array(3)) == 3
    with pytest.raises(TypeError, match=r"Op: attr n: expected an int, got float64 np.float64\(3.5\)"):
        check_int("Op", "n", np.array(3.5))


@pytest.mark.parametrize("seed", [2**63, -(2**63) - 1, 2**70])
def test_int_attrs_outside_int64_are_refused_by_name(seed: int) -> None:
    x = np.zeros((2, 1, 3), np.float32)
    hx = np.zeros((1, 1, 2), np.float32)
    params = np.zeros(2 * (3 + 2) + 4, np.float32)
    with pytest.raises(ValueError, match=r"CudnnRNNV3: attr seed: expected a value (<= 9223372036854775807|>= "
                                         r"-9223372036854775808), got"):
        cudnn_rnn_v3(x, hx, hx, params, np.array([2], np.int32), rnn_mode="rnn_tanh", seed=seed, scope="cpu")


def test_int64_extremes_are_accepted_as_seeds() -> None:
    x = np.ones((2, 1, 3), np.float32)
    hx = np.zeros((1, 1, 2), np.float32)
    params = np.full(2 * (3 + 2) + 4, 0.1, np.float32)
    for seed in (2**63 - 1, -(2**63)):
        out = cudnn_rnn_v3(x, hx, hx, params, np.array([2], np.int32), rnn_mode="rnn_tanh", seed=seed,
                           seed2=seed, scope="cpu")
        assert np.isfinite(out.output).all()


def test_a_device_string_is_a_scope() -> None:
    x, *rest = _bn_inputs()
    by_string = fused_batch_norm_v3(x, *rest, scope="cpu").y
    np.testing.assert_array_equal(by_string, fused_batch_norm_v3(x, *rest, scope=Scope("cpu")).y)


@pytest.mark.parametrize(("scope", "error", "message"), [
    ("gpu", ValueError, r"FusedBatchNormV3: scope: Scope: device: expected 'cpu', 'cuda' or 'cuda:N', got 'gpu'"),
    (3, TypeError, r"FusedBatchNormV3: scope: expected a Scope \(e.g. Scope\('cpu'\)\), a device string"),
])
def test_a_bad_scope_is_named(scope: Any, error: type[Exception], message: str) -> None:
    x, *rest = _bn_inputs()
    with pytest.raises(error, match=message):
        fused_batch_norm_v3(x, *rest, scope=scope)


def test_reserve_space_3_of_any_shape_is_accepted() -> None:
    """TensorFlow's CPU forward returns reserve_space_3 as a 0-d tensor for float16 input: the
    gradient ignores it, so any shape is accepted."""
    x, scale, offset, mean, variance = _bn_inputs()
    fwd = fused_batch_norm_v3(x, scale, offset, mean, variance, scope="cpu")
    dy = np.random.default_rng(3).standard_normal(x.shape).astype(np.float32)
    expected = fused_batch_norm_grad_v3(dy, x, scale, fwd.reserve_space_1, fwd.reserve_space_2,
                                        fwd.reserve_space_3, scope="cpu")
    for space in (np.zeros((), np.float32), np.zeros((2, 3), np.float32), np.zeros(0, np.float32)):
        got = fused_batch_norm_grad_v3(dy, x, scale, fwd.reserve_space_1, fwd.reserve_space_2, space, scope="cpu")
        np.testing.assert_array_equal(got.x_backprop, expected.x_backprop)


# -- issue 20 item 7: misaligned arrays ------------------------------------------------------------
def _misaligned(value: Any) -> Any:
    """The same values in memory one byte off their type's alignment (np.frombuffer(..., offset=1)),
    lists element by element; empty arrays, arrays of 1-byte types (always aligned) and ints stay."""
    if isinstance(value, (list, tuple)):
        return type(value)(_misaligned(v) for v in value)
    if not isinstance(value, np.ndarray) or value.dtype.alignment == 1 or value.size == 0:
        return value
    buf = np.zeros(value.nbytes + 1, np.uint8)
    out = np.frombuffer(buf, value.dtype, count=value.size, offset=1).reshape(value.shape)
    out[...] = value
    assert not out.flags.aligned and np.array_equal(out, value, equal_nan=True)
    return out


def _misalignable_cases() -> list[Any]:
    return [p for p in _kernel_cases()
            if any(a is not _misaligned(a) for a in p.values[1].args if isinstance(a, (np.ndarray, list, tuple)))]


@pytest.mark.parametrize(("op", "case"), _misalignable_cases())
def test_misaligned_inputs_give_the_aligned_results(op: Any, case: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every op, every parity case: inputs one byte off their alignment give bit-identical outputs
    (adopt copies them once; the kernels never see a misaligned pointer)."""
    monkeypatch.setenv("OPGEN_POISON_OUTPUTS", "1")
    _assert_same_outputs(op, case, _misaligned)


def test_misaligned_inputs_are_copied_once_into_aligned_memory() -> None:
    """np.frombuffer(buf, np.float32, offset=1) reached the kernels as it was (undefined behaviour:
    the sanitize build reported a misaligned access). adopt copies it, in the same copy as a byte
    swap ('>f4' one byte off) or a non-contiguous layout; 0-d arrays stay 0-d."""
    backend = Scope("cpu").backend
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for value in (_misaligned(x), _misaligned(x.astype(">f4")), _misaligned(x)[:, ::2],
                  _misaligned(np.array(5.0, np.float32))):
        got = backend.adopt("Op", "x", value)
        assert got.flags.aligned and got.flags.c_contiguous and got.dtype.isnative, value.dtype
        assert not np.shares_memory(got, value) and got.shape == value.shape
        np.testing.assert_array_equal(got, value)


def test_views_offset_by_whole_elements_stay_zero_copy() -> None:
    """scripts/gpu_parity.py's misaligned views are one element off a 16-byte boundary, aligned to
    their element: used as they are (the kernels' vector paths test 16-byte alignment themselves)."""
    backend = Scope("cpu").backend
    base = np.arange(33, dtype=np.float32)
    view = base[1:]
    assert view.ctypes.data % 16 != 0
    assert backend.adopt("Op", "x", view) is view
    half = np.arange(9, dtype=np.float16)[1:]
    assert backend.adopt("Op", "x", half) is half


def test_a_misaligned_input_runs_clean_under_the_sanitize_build(monkeypatch: pytest.MonkeyPatch) -> None:
    from codegen.runtime import host
    from generated import bias_add

    x = np.random.default_rng(4).standard_normal((3, 5)).astype(np.float32)
    bias = np.arange(5, dtype=np.float32)
    monkeypatch.setattr(host.switches, "_sanitize", True)
    got = bias_add(_misaligned(x), _misaligned(bias), scope="cpu").output
    np.testing.assert_array_equal(got, x + bias)


def test_misaligned_device_arrays_are_copied_as_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cuda backend (on the CuPy stand-in): a device array one byte off is copied once as raw
    bytes (a copy kernel would read it misaligned too), a host one is aligned before its upload, one
    neither aligned nor contiguous is refused by name."""
    import ctypes

    import fake_cupy

    fake = fake_cupy.install(monkeypatch, tmp_path)
    copies: list[int] = []

    def copy_from_device_async(self: Any, src: Any, size: int, stream: Any = None) -> None:
        copies.append(size)
        ctypes.memmove(self.ptr, src.ptr, size)

    monkeypatch.setattr(fake_cupy.FakePointer, "copy_from_device_async", copy_from_device_async, raising=False)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    device = _misaligned(x).view(fake_cupy.FakeArray)
    got = fake.backend.adopt("Op", "x", device)
    assert copies == [48] and got.data.ptr % 4 == 0 and got.flags.c_contiguous
    np.testing.assert_array_equal(got.get(), x)
    host = fake.backend.adopt("Op", "x", _misaligned(x))
    assert host.data.ptr % 4 == 0
    np.testing.assert_array_equal(host.get(), x)
    with pytest.raises(TypeError, match=r"Op: x: a float32\[3, 2\] device array whose data is not aligned to its "
                                        r"element type \(4 bytes\) and not C-contiguous"):
        fake.backend.adopt("Op", "x", device[:, ::2])


# -- issue 20 item 8: clear messages -------------------------------------------------------------------
@pytest.mark.parametrize("value", [10**400, -(10**400)], ids=["10**400", "-10**400"])
def test_a_float_attr_too_large_for_a_float_is_named(value: int) -> None:
    """10**400 as a float attr raised Python's bare OverflowError (int too large to convert to float)."""
    x, *rest = _bn_inputs()
    with pytest.raises(ValueError, match=r"FusedBatchNormV3: attr epsilon: expected a float \(\|value\| <= "
                                         r"1\.7976931348623157e\+308\), got an int of 401 digits \(-?100000\.\.\.\), "
                                         r"too large for a float"):
        fused_batch_norm_v3(x, *rest, epsilon=value, scope="cpu")


def test_an_input_whose_copy_exceeds_the_memory_available_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """A broadcast view of one element whose contiguous copy needs 32 GiB: refused before anything
    is allocated, naming the op, the argument and the bytes (NumPy raised a bare MemoryError, or
    the copy ran the machine out of memory part-way)."""
    from codegen.runtime import checks
    from generated import bias_add

    big = np.broadcast_to(np.zeros(1, np.float32), (2**31, 4))
    monkeypatch.setattr(checks, "available_memory", lambda: 2**33)
    with pytest.raises(MemoryError, match=r"BiasAdd: value: a contiguous copy of this float32\[2147483648, 4\] input "
                                          r"needs 34359738368 bytes \(32\.0 GiB\), more than the 8589934592 bytes "
                                          r"\(8\.0 GiB\) of host memory available: pass a C-contiguous"):
        bias_add(big, np.zeros(4, np.float32), scope="cpu")
    monkeypatch.setattr(checks, "available_memory", lambda: None)  # nothing known: the allocation decides
    huge = np.broadcast_to(np.zeros(1, np.float32), (2**48,))  # 1 PiB
    with pytest.raises(MemoryError, match=r"BiasAdd: value: a contiguous copy of this float32\[70368744177664, 4\] "
                                          r"input needs 1125899906842624 bytes \(1048576\.0 GiB\), the allocation "
                                          r"failed"):
        bias_add(huge.reshape(2**46, 4), np.zeros(4, np.float32), scope="cpu")


def test_available_memory_is_what_the_os_reports() -> None:
    from codegen.runtime.checks import available_memory

    avail = available_memory()
    assert avail is None or 0 < avail < 2**60


def test_a_device_copy_beyond_the_free_device_memory_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cuda backend (on the CuPy stand-in): a non-contiguous device array whose contiguous copy
    needs more than the device's free memory (cudaMemGetInfo) is refused by name."""
    import sys

    import fake_cupy

    fake = fake_cupy.install(monkeypatch, tmp_path)
    monkeypatch.setattr(sys.modules["cupy"].cuda.runtime, "memGetInfo", lambda: (1024, 2**34), raising=False)
    device = np.zeros((64, 8), np.float32).view(fake_cupy.FakeArray)[:, :5]  # 1280 bytes as a contiguous copy
    with pytest.raises(MemoryError, match=r"Op: x: a contiguous copy of this float32\[64, 5\] input needs 1280 bytes, "
                                          r"more than the 1024 bytes of cuda:0 memory available"):
        fake.backend.adopt("Op", "x", device)
    assert fake.backend.adopt("Op", "x", device[:, :1].reshape(64)).shape == (64,)  # 256 bytes: copied
