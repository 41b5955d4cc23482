"""The cuda backend (codegen/runtime/cuda.py, cuda_cache.py) and `opgen warmup`.

Three layers:
* CI, no GPU and no CuPy needed: the cache key, Scope's fallback and its error for "cuda", that
  importing the package never imports CuPy, warmup's exit status without a GPU.
* CuPy's NVRTC present (no GPU needed): every generated kernel compiles to a cubin for sm_90, the
  disk cache (hit in a second process, corrupt entries rebuilt, unwritable folder survived).
* marked gpu (CuPy and a CUDA device): adopt without copies, outputs on the device, CuPy's current
  stream respected (CUDA graph capture), module load from the disk cache in a second process, a
  cached module the driver refuses rebuilt, batch norm against the float64 reference.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings
import zlib
from pathlib import Path
from typing import Any, ClassVar

import fake_cupy
import numpy as np
import pytest
from reference.batch_norm import bn_forward, bn_grad

from codegen.runtime import cuda_cache, diskcache
from codegen.runtime.cuda_cache import cuda_cache_key
from codegen.runtime.scope import Scope, cuda_available

PROJECT = Path(__file__).resolve().parent.parent
GENERATED = PROJECT / "generated"
HAVE_CUDA, WHY_NO_CUDA = cuda_available()



def _nvrtc_status() -> str | None:
    """None when CuPy's NVRTC and the CUDA headers are usable here, else why not."""
    try:
        cuda_cache.nvrtc_version()
        cuda_cache.include_options()
    except Exception as exc:  # noqa: BLE001 -- any failure means: skip with the reason
        return f"needs CuPy's NVRTC and the CUDA headers (pip install cupy-cuda12x 'nvidia-cuda-nvrtc-cu12' " \
               f"'nvidia-cuda-runtime-cu12', or the cuda13x equivalents): {exc}"
    return None


NVRTC_WHY = _nvrtc_status()
needs_nvrtc = pytest.mark.skipif(NVRTC_WHY is not None, reason=NVRTC_WHY or "")
no_gpu_here = pytest.mark.skipif(HAVE_CUDA, reason="a CUDA GPU is present: this checks the behaviour without one")


def run_python(code: str, env: dict[str, str] | None = None, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "PYTHONPATH": str(PROJECT), **(env or {})}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=PROJECT, env=full_env,
                          capture_output=True, text=True, timeout=timeout, check=False)


# ------------------------------------------------------------------------------ cache key --

BASE = ("__global__ void k() {}", ("-std=c++17", "--gpu-architecture=sm_90"), "13.0", "sm_90")


def test_cache_key_is_stable() -> None:
    assert cuda_cache_key(*BASE) == cuda_cache_key(*BASE)
    assert cuda_cache_key(BASE[0], list(BASE[1]), BASE[2], BASE[3]) == cuda_cache_key(*BASE)  # list or tuple
    assert len(cuda_cache_key(*BASE)) == 64


@pytest.mark.parametrize("field, value", [
    (0, "__global__ void k() { }"),                                       # source
    (1, ("-std=c++17", "--gpu-architecture=sm_90", "-DX=1")),            # an added option
    (1, ("--gpu-architecture=sm_90", "-std=c++17")),                     # option order
    (1, ("-std=c++17 --gpu-architecture=sm_90",)),                        # same text, other split
    (2, "12.8"),                                                         # NVRTC version
    (2, "13.0 cuda-headers 0123456789abcdef"),                           # the headers behind it
    (3, "sm_80"),                                                        # arch
    (3, "compute_90"),                                                   # PTX instead of a cubin
])
def test_cache_key_changes_with_each_field(field: int, value: Any) -> None:
    changed: list[Any] = list(BASE)
    changed[field] = value
    assert cuda_cache_key(*changed) != cuda_cache_key(*BASE)


def test_cache_key_is_diskcache_key() -> None:
    """One key function: the cuda key is diskcache.cache_key of the same fields."""
    src, opts, version, arch = BASE
    assert cuda_cache_key(*BASE) == diskcache.cache_key(src, opts, f"nvrtc {version}", arch)


# ------------------------------------------------------------------------ no GPU: fallback --

@no_gpu_here
def test_default_scope_falls_back_to_cpu() -> None:
    assert Scope().device == "cpu"
    assert Scope().backend.name == "cpu"


@no_gpu_here
@pytest.mark.parametrize("device", ["cuda", "cuda:0", "cuda:1"])
def test_scope_cuda_without_a_gpu_is_a_clear_error(device: str) -> None:
    with pytest.raises(RuntimeError, match=rf"Scope: device '{device}' is not available: .+Use Scope\('cpu'\)"):
        Scope(device)


def test_importing_the_package_does_not_import_cupy() -> None:
    proc = run_python("""
        import sys
        import generated, codegen.runtime.cuda, codegen.runtime.cuda_cache, codegen.warmup
        from generated import Scope, fused_batch_norm_grad_v3
        print("cupy imported:", "cupy" in sys.modules)
    """)
    assert proc.returncode == 0, proc.stderr
    assert "cupy imported: False" in proc.stdout


@no_gpu_here
def test_warmup_without_a_gpu_exits_1_with_a_message() -> None:
    proc = run_python("import sys; from codegen.warmup import main; sys.exit(main([]))")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "no usable CUDA GPU" in proc.stderr
    assert "run it on the machine with the GPU" in proc.stderr


@no_gpu_here
def test_run_warmup_without_a_gpu_returns_1(capsys: pytest.CaptureFixture[str]) -> None:
    from codegen.warmup import run_warmup

    assert run_warmup(["FusedBatchNormV3"]) == 1
    assert "no usable CUDA GPU" in capsys.readouterr().err


def test_generated_ops_lists_every_op_module() -> None:
    from codegen.warmup import generated_ops, select_ops

    ops = generated_ops()
    names = {op.name for op in ops}
    assert {"FusedBatchNormV3", "FusedBatchNormGradV3"} <= names
    modules = {p.stem for p in GENERATED.rglob("*.py") if p.name != "__init__.py"}
    # the library, the registrations (PyTorch, JAX), the package's version stamp
    assert {op.function_name for op in ops} == modules - {"activations", "torch", "jax", "_opgen"}
    grad = next(op for op in ops if op.name == "FusedBatchNormGradV3")
    assert "FusedBatchNormGradV3__grad_partials__float32" in grad.entry_points()
    assert select_ops(["fused_batch_norm_v3", "FusedBatchNormV3"], ops) == [
        next(op for op in ops if op.name == "FusedBatchNormV3")]
    with pytest.raises(KeyError, match=r"no op named 'Nope'.*known: "):
        select_ops(["Nope"], ops)


# ---------------------------------------------------------------- NVRTC, no GPU needed --

@needs_nvrtc
def test_options_and_target() -> None:
    target = cuda_cache.target_for("90")
    assert (target.arch, target.kind) == ("sm_90", "cubin")
    options = cuda_cache.compile_options(target)
    assert options[:2] == ("-std=c++17", "--gpu-architecture=sm_90")
    assert any((Path(o[2:]) / "cuda_fp16.h").is_file() for o in options if o.startswith("-I"))
    assert cuda_cache.compiler_id().startswith("{}.{} cuda-headers ".format(*cuda_cache.nvrtc_version()))


def test_lineinfo_option_changes_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """Independent of the caller's environment (gpu-check exports OPGEN_CUDA_LINEINFO=1)."""
    monkeypatch.delenv("OPGEN_CUDA_LINEINFO", raising=False)
    monkeypatch.setattr(cuda_cache, "include_options", lambda: ("-I/cuda/include",))  # no NVRTC needed
    monkeypatch.setattr(cuda_cache, "compiler_id", lambda: "13.0 cuda-headers 0")
    target = cuda_cache.Target("sm_90", "cubin")
    assert "--generate-line-info" not in cuda_cache.compile_options(target)
    plain = cuda_cache.build_key("x", target)
    monkeypatch.setenv("OPGEN_CUDA_LINEINFO", "1")
    assert "--generate-line-info" in cuda_cache.compile_options(target)
    assert cuda_cache.build_key("x", target) != plain


# ------------------------------------------------------- whole cubins (CuPy's getCUBIN) --

def _tiny_elf() -> bytes:
    """A minimal 64-bit little-endian ELF laid out as NVRTC's cubins are: header, one section
    header, then the program header table last (its final field, p_align = 8, ends the file)."""
    import struct

    header = bytearray(64)
    header[:6] = b"\x7fELF\x02\x01"
    struct.pack_into("<QQ", header, 0x20, 128, 64)  # e_phoff, e_shoff
    struct.pack_into("<HHHH", header, 0x36, 56, 1, 64, 1)  # e_phentsize, e_phnum, e_shentsize, e_shnum
    section = struct.pack("<IIQQQQIIQQ", 0, 1, 0, 0, 0, 16, 0, 0, 1, 0)  # PROGBITS at 0, 16 bytes
    program = struct.pack("<IIQQQQQQ", 1, 5, 0, 0, 0, 184, 184, 8)
    return bytes(header) + section + program


def _nvcc_cubin(tmp_path: Path) -> bytes:
    """A real cubin from nvcc (skips where nvcc is not installed)."""
    import shutil

    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc is not installed here")
    (tmp_path / "k.cu").write_text(SMALL)
    subprocess.run([nvcc, "-cubin", "-arch=sm_90", "-o", str(tmp_path / "k.cubin"), str(tmp_path / "k.cu")],
                   check=True, capture_output=True, timeout=120)
    return (tmp_path / "k.cubin").read_bytes()


class _CupyLikeNvrtc:
    """CuPy 14's getCUBIN: NVRTC's cubin less its last byte (stripped as if it were a C string's NUL)."""

    def __init__(self, cubin: bytes) -> None:
        self.cubin = cubin

    def getCUBIN(self, prog: int) -> bytes:
        return self.cubin[:-1]


def test_restore_elf_tail_puts_back_the_byte_cupy_drops(tmp_path: Path) -> None:
    elf = _tiny_elf()
    assert cuda_cache.restore_elf_tail(elf[:-1]) == elf
    assert cuda_cache.restore_elf_tail(elf) == elf  # whole already: unchanged
    assert cuda_cache.restore_elf_tail(elf[:-2]) == elf[:-2]  # not provably one byte short: unchanged
    assert cuda_cache.restore_elf_tail(b"// PTX text") == b"// PTX text"
    real = _nvcc_cubin(tmp_path)
    assert cuda_cache.restore_elf_tail(real[:-1]) == real


def test_full_cubin_asks_libnvrtc_for_nvrtcs_whole_output(monkeypatch: pytest.MonkeyPatch) -> None:
    import ctypes

    elf = _tiny_elf()

    class FakeLib:  # nvrtcGetCUBINSize / nvrtcGetCUBIN of the libnvrtc CuPy loaded
        def nvrtcGetCUBINSize(self, prog: Any, size: Any) -> int:
            size.contents.value = len(elf)
            return 0

        def nvrtcGetCUBIN(self, prog: Any, buf: Any) -> int:
            ctypes.memmove(buf, elf, len(elf))
            return 0

    monkeypatch.setattr(cuda_cache, "_loaded_libnvrtc", lambda: FakeLib())
    assert cuda_cache.full_cubin(_CupyLikeNvrtc(elf), 1) == elf
    monkeypatch.setattr(cuda_cache, "_loaded_libnvrtc", lambda: None)  # no libnvrtc reachable: ELF repair
    assert cuda_cache.full_cubin(_CupyLikeNvrtc(elf), 1) == elf


def test_short_cubins_already_in_the_disk_cache_are_served_whole(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cuda_cache, "compile_options", lambda t: ("-std=c++17", t.option))
    monkeypatch.setattr(cuda_cache, "compiler_id", lambda: "fake")
    target = cuda_cache.Target("sm_90", "cubin")
    key = cuda_cache.build_key(SMALL, target)
    elf = _tiny_elf()
    diskcache.put(cuda_cache.entry_path(key), elf[:-1], {"key": key, "kind": "cubin"})  # as older versions stored
    art = cuda_cache.load_or_compile(SMALL, "small.cu", target)
    assert (art.origin, art.data) == ("disk", elf)


def _cuobjdump() -> str | None:
    """cuobjdump on PATH, in a CUDA toolkit, or from the nvidia-cuda-cuobjdump wheel."""
    import shutil

    found = shutil.which("cuobjdump")
    candidates = [Path(base or ".") / "nvidia" / sub / "bin" / "cuobjdump" for base in sys.path
                  for sub in ("cu13", "cu12")] + [Path("/usr/local/cuda/bin/cuobjdump")]
    return found or next((str(c) for c in candidates if c.is_file() and os.access(c, os.X_OK)), None)


def test_cuobjdump_accepts_whole_cubins_and_rejects_short_ones(tmp_path: Path) -> None:
    tool = _cuobjdump()
    if tool is None:
        pytest.skip("cuobjdump is not installed here (CUDA toolkit or the nvidia-cuda-cuobjdump wheel)")
    real = _nvcc_cubin(tmp_path)

    def accepted(data: bytes) -> bool:
        (tmp_path / "x.cubin").write_bytes(data)
        proc = subprocess.run([tool, "-elf", str(tmp_path / "x.cubin")], capture_output=True, text=True, timeout=60,
                              check=False)
        return proc.returncode == 0 and "does not contain device code" not in proc.stdout + proc.stderr

    assert accepted(real)
    assert not accepted(real[:-1])  # what CuPy's getCUBIN returns
    assert accepted(cuda_cache.full_cubin(_CupyLikeNvrtc(real), 0))


@needs_nvrtc
@pytest.mark.parametrize("path", sorted(GENERATED.rglob("*.cu")), ids=lambda p: p.stem)
def test_generated_kernels_compile_with_nvrtc(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same compile the backend does on a GPU machine (cubin for sm_90), here without a GPU."""
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path))
    art = cuda_cache.load_or_compile(path.read_text(encoding="utf-8"), path.name, cuda_cache.target_for("90"))
    assert art.origin == "nvrtc" and art.kind == "cubin"
    assert art.data[:4] == b"\x7fELF"
    assert cuda_cache.restore_elf_tail(art.data) == art.data  # not one byte short
    from codegen.runtime.host import scan_kernels

    for kernel in scan_kernels(path.read_text(encoding="utf-8")):  # every entry point is in the cubin
        assert kernel.name.encode() in art.data


@needs_nvrtc
def test_compile_error_names_the_file_and_shows_the_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path))
    with pytest.raises(cuda_cache.CudaCompileError, match=r"NVRTC could not compile broken\.cu") as info:
        cuda_cache.load_or_compile('extern "C" __global__ void k() { undefined_thing(); }', "broken.cu",
                                   cuda_cache.target_for("90"))
    assert "undefined_thing" in str(info.value)
    assert not list((tmp_path / "cuda").glob("*.cubin")) if (tmp_path / "cuda").exists() else True


SMALL = 'extern "C" __global__ void opgen_test_kernel(float* x) { x[threadIdx.x] += 1.0f; }\n'


@needs_nvrtc
def test_disk_cache_hit_miss_and_corrupt_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path))
    target = cuda_cache.target_for("90")
    before = dict(cuda_cache.stats)
    first = cuda_cache.load_or_compile(SMALL, "small.cu", target)
    assert first.origin == "nvrtc" and first.path.parent == tmp_path / "cuda"
    assert first.path.name == f"{first.key}.cubin" and first.key == cuda_cache.build_key(SMALL, target)
    meta = json.loads(diskcache.meta_path(first.path).read_text())
    assert meta["key"] == first.key and meta["kind"] == "cubin" and meta["arch"] == "sm_90"

    second = cuda_cache.load_or_compile(SMALL, "small.cu", target)
    assert (second.origin, second.data) == ("disk", first.data)
    assert cuda_cache.stats["nvrtc_compiles"] == before["nvrtc_compiles"] + 1

    first.path.write_bytes(first.data[:100])  # truncated payload: checksum mismatch → miss → rebuilt
    third = cuda_cache.load_or_compile(SMALL, "small.cu", target)
    assert third.origin == "nvrtc" and third.data == first.data
    assert diskcache.get(first.path) is not None  # stored again, valid

    diskcache.meta_path(first.path).write_text("{not json")  # corrupt sidecar: a miss, not a crash
    assert cuda_cache.load_or_compile(SMALL, "small.cu", target).origin == "nvrtc"

    diskcache.put(first.path, b"\x7fELF garbage", {"key": "another", "kind": "cubin"})  # wrong key inside
    assert cuda_cache.load_or_compile(SMALL, "small.cu", target).origin == "nvrtc"
    assert cuda_cache.stats["disk_corrupt"] >= before["disk_corrupt"] + 3


@needs_nvrtc
def test_second_process_reads_the_disk_cache_without_compiling(tmp_path: Path) -> None:
    code = """
        import json
        from codegen.runtime import cuda_cache
        from codegen.warmup import generated_ops
        op = next(o for o in generated_ops() if o.name == "FusedBatchNormGradV3")
        art = cuda_cache.load_or_compile(op.kernels.text, op.kernels.path.name, cuda_cache.target_for("90"))
        print(json.dumps({"origin": art.origin, **cuda_cache.stats}))
    """
    env = {"OPGEN_CACHE_DIR": str(tmp_path)}
    first = run_python(code, env)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout.strip().splitlines()[-1])["nvrtc_compiles"] == 1
    second = run_python(code, env)
    assert second.returncode == 0, second.stderr
    result = json.loads(second.stdout.strip().splitlines()[-1])
    assert result["origin"] == "disk" and result["nvrtc_compiles"] == 0 and result["disk_hits"] == 1


@needs_nvrtc
def test_a_cache_root_that_is_a_file_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The one policy of codegen/runtime/artifacts.py: a cache that cannot be a writable folder is an
    error naming the variable (as on the cpu backend), not worked around in every process."""
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(blocker))
    with pytest.raises(cuda_cache.CudaCacheError, match=r"OPGEN_CACHE_DIR=.*is not a folder"):
        cuda_cache.load_or_compile(SMALL, "small.cu", cuda_cache.target_for("90"))


# ------------------------------------------------- the backend's logic on a fake CuPy --
# codegen/runtime/cuda.py's own logic (adopt, empty, module and function caching, launch checks,
# GEMM views) runs in CI against a stand-in for CuPy whose "device" is host memory and whose
# modules are the cpu backend's host-compiled kernels. It proves no CuPy semantics (the gpu tests
# below do), only that the backend's Python is right.


@pytest.fixture
def fake_cuda(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    """The cuda backend on the fake CuPy, GEMM steps through cupy.matmul (no cuBLAS module)."""
    return fake_cupy.install(monkeypatch, tmp_path)


@pytest.fixture
def fake_cuda_cublas(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    """The cuda backend on the fake CuPy with its fake cuBLAS: GEMM steps as direct calls."""
    return fake_cupy.install(monkeypatch, tmp_path, fake_cupy.FakeCublas())


def test_fake_cupy_scope_and_batch_norm(fake_cuda: Any) -> None:
    from generated import fused_batch_norm_grad_v3, fused_batch_norm_v3

    scope = Scope("cuda")
    assert scope.backend is fake_cuda.backend and repr(scope.backend) == "CudaBackend(device=0, arch=sm_90)"
    rng = np.random.default_rng(5)
    d = _bn_inputs(rng, (2, 3, 4, 5), 3, "float32")  # NCHW: C = 3
    x = d["x"][:, :, :, ::-1]  # a strided view: adopt must make it contiguous
    fwd = fused_batch_norm_v3(x, d["scale"], d["offset"], d["mean"], d["var"], epsilon=1e-3, data_format="NCHW",
                              scope=scope)
    ref = bn_forward(x, d["scale"], d["offset"], d["mean"], d["var"], epsilon=1e-3, data_format="NCHW")
    assert isinstance(fwd.y, fake_cupy.FakeArray)
    _close(fwd.y, ref["y"], "float32", "y")
    grad = fused_batch_norm_grad_v3(d["dy"], x, d["scale"], fwd.reserve_space_1, fwd.reserve_space_2,
                                    fwd.reserve_space_3, epsilon=1e-3, data_format="NCHW", scope=scope)
    gref = bn_grad(d["dy"], x, d["scale"], ref["reserve_space_1"], ref["reserve_space_2"], epsilon=1e-3,
                   data_format="NCHW")
    _close(grad.x_backprop, gref["x_backprop"], "float32", "x_backprop")
    assert fake_cuda.compiled == ["fused_batch_norm.cu"]  # the two ops' one module, compiled once
    fused_batch_norm_v3(x, d["scale"], d["offset"], d["mean"], d["var"], data_format="NCHW", scope=scope)
    assert len(fake_cuda.compiled) == 1  # functions and modules cached in memory


def test_the_stand_in_builds_a_generated_module_as_the_cpu_backend_files_it(fake_cuda: Any,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The stand-in's host build of a generated module is the cpu plan's disk cache entry, not a second
    compile of the same text under another name (the whole suite paid ≈ 30 s of CPU for those)."""
    from codegen.runtime.cpu import CpuBackend
    from codegen.runtime.host import module as host_module
    from generated.nn import bias_add

    expected = CpuBackend().load(bias_add._KERNELS).path
    monkeypatch.setattr(host_module, "_MODULES", {})  # the stand-in's load looks in the disk cache
    assert fake_cuda.backend.load(bias_add._KERNELS).module.host.path == expected


def test_fake_cupy_adopt_empty_pointer_array(fake_cuda: Any) -> None:
    backend = fake_cuda.backend
    dev = backend.adopt("Op", "x", np.arange(6, dtype=np.float32))
    assert isinstance(dev, fake_cupy.FakeArray) and backend.adopt("Op", "x", dev) is dev
    assert backend.adopt("Op", "x", np.float32(2.5)).shape == ()
    with pytest.raises(TypeError, match=r"^Op: x: expected an array"):
        backend.adopt("Op", "x", [1, 2])
    with pytest.raises(TypeError, match=r"^Op: x: dtype object cannot be used on the cuda backend"):
        backend.adopt("Op", "x", np.array([None]))
    out = backend.empty([2, 2], "float32")
    assert np.isnan(out).all() and backend.empty([3], "uint8").tolist() == [255] * 3
    assert backend.empty([2], "int64").tolist() == [-1, -1]
    ptrs = backend.pointer_array([dev, out])
    assert ptrs.tolist() == [dev.data.ptr, out.data.ptr]


def test_fake_cupy_is_as_strict_as_cupy(fake_cuda: Any) -> None:
    """The stand-in refuses what the real CuPy 14 refuses, so CI catches what a GPU would."""
    cp = sys.modules["cupy"]
    from codegen.runtime.kernels import KernelSource

    source = KernelSource("FusedBatchNormV3", GENERATED / "nn" / "fused_batch_norm.cu")
    fn = fake_cuda.backend.function(source, "FusedBatchNormV3__normalize__float32")
    x = fake_cuda.backend.empty([4], "float32")
    args = (x, x, x, np.int64(0), np.int64(1), np.int64(1))
    with pytest.raises(TypeError, match="expected tuple, got list"):
        fn([1], (32,), args)
    with pytest.raises(TypeError, match="expected bytes, got str"):
        cp.cuda.Module().load("not bytes")
    with pytest.raises(BufferError):
        cp.from_dlpack(np.arange(3.0))  # host memory: CuPy will not wrap it
    stream = cp.cuda.Stream()
    with stream:
        stream.begin_capture()
        with pytest.raises(NotImplementedError, match="during stream capture"):
            fake_cupy.FakeCublas().setStream(cp.cuda.device.get_cublas_handle(), stream.ptr)
        stream.end_capture()
    trap = KernelSource("Trap", fake_cuda.tmp_path / "trap.cu")
    trap.path.write_text('extern "C" __global__ void trap_kernel(float* x) { __trap(); }\n')
    fake_cuda.backend.launch(trap, "trap_kernel", (1,), (1,), (x,))  # asynchronous: no error yet
    with pytest.raises(fake_cupy.CUDADriverError, match="CUDA_ERROR_LAUNCH_FAILED"):
        x.get()  # the fault surfaces at the next synchronize, and stays
    with pytest.raises(fake_cupy.CUDADriverError):
        cp.cuda.Device(0).synchronize()


def test_fake_cupy_byte_order_masks_and_grad_tensors(fake_cuda: Any) -> None:
    from generated import fused_batch_norm_v3

    backend = fake_cuda.backend
    for dtype in (">f4", ">i4", "<f4"):
        got = backend.adopt("Op", "x", np.arange(6, dtype=dtype))
        assert got.dtype.isnative and got.tolist() == list(range(6)), dtype
    rng = np.random.default_rng(8)
    d = _bn_inputs(rng, (2, 3, 4, 5), 5, "float32")
    big = {name: value.astype(value.dtype.newbyteorder(">")) for name, value in d.items()}
    fwd = fused_batch_norm_v3(big["x"], big["scale"], big["offset"], big["mean"], big["var"], epsilon=1e-3,
                              scope=Scope("cuda"))
    ref = bn_forward(d["x"], d["scale"], d["offset"], d["mean"], d["var"], epsilon=1e-3)
    _close(fwd.y, ref["y"], "float32", "y")
    with pytest.raises(TypeError, match=r"^Op: x: expected an array without a mask"):
        backend.adopt("Op", "x", np.ma.masked_array([1.0, 2.0], mask=[0, 1]))

    class GradTensor:  # a torch CUDA tensor that requires grad, as adopt sees it
        requires_grad = True
        shape, dtype = (2,), np.dtype(np.float32)
        __cuda_array_interface__: ClassVar = {"shape": (2,), "typestr": "<f4", "data": (0, False), "version": 3}

    with pytest.raises(TypeError, match=r"^Op: x: expected a tensor that does not require grad"):
        backend.adopt("Op", "x", GradTensor())


class _DLPackOn:
    """A DLPack producer over a NumPy array that reports the given DLPack device type."""

    def __init__(self, array: np.ndarray, device_type: int) -> None:
        self.array, self.device_type = array, device_type

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.array.__dlpack__()

    def __dlpack_device__(self) -> tuple[int, int]:
        return (self.device_type, 0)


def test_fake_cupy_dlpack_host_memory_is_copied(fake_cuda: Any) -> None:
    backend = fake_cuda.backend
    host = np.arange(5, dtype=np.float32)
    for device_type in (1, 3):  # kDLCPU, kDLCUDAHost (pinned): copied to the device
        got = backend.adopt("Op", "x", _DLPackOn(host, device_type))
        assert isinstance(got, fake_cupy.FakeArray) and got.data.ptr != host.ctypes.data, device_type
        np.testing.assert_array_equal(got.get(), host)
    on_device = backend.adopt("Op", "x", np.arange(5, dtype=np.float32))
    wrapped = backend.adopt("Op", "x", _DLPackOn(on_device, 2))  # kDLCUDA: no copy
    assert wrapped.data.ptr == on_device.data.ptr
    with pytest.raises(TypeError, match=r"^Op: x: a _DLPackOn on DLPack device type 4 cannot be used"):
        backend.adopt("Op", "x", _DLPackOn(host, 4))


def test_fake_cupy_bfloat16_inputs_and_outputs(fake_cuda: Any) -> None:
    ml_dtypes = pytest.importorskip("ml_dtypes")
    from generated import fused_batch_norm_v3

    backend = fake_cuda.backend
    out = backend.empty([3], "bfloat16")
    assert out.dtype == ml_dtypes.bfloat16 and np.isnan(out.astype(np.float32)).all()  # poisoned
    x = (np.random.default_rng(4).standard_normal((2, 3, 4, 5)) * 2).astype(ml_dtypes.bfloat16)
    adopted = backend.adopt("Op", "x", x)
    assert adopted.dtype == ml_dtypes.bfloat16 and backend.adopt("Op", "x", adopted) is adopted
    c = np.ones(5, np.float32), np.zeros(5, np.float32)
    on_cuda = fused_batch_norm_v3(x, *c, *c, epsilon=1e-3, scope=Scope("cuda"))
    on_cpu = fused_batch_norm_v3(x, *c, *c, epsilon=1e-3, scope=Scope("cpu"))
    assert on_cuda.y.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(on_cuda.y.get().view(np.uint16), np.asarray(on_cpu.y).view(np.uint16))


def test_bfloat16_without_cupy_support_is_a_named_error(fake_cuda: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    ml_dtypes = pytest.importorskip("ml_dtypes")
    cp = sys.modules["cupy"]

    def no_bfloat16(shape: Any, dtype: Any) -> Any:
        raise TypeError("dtype bfloat16 is not supported")  # CuPy < 14

    monkeypatch.setattr(cp, "empty", no_bfloat16)
    monkeypatch.setattr(cp, "asarray", no_bfloat16.__get__(0))
    with pytest.raises(TypeError, match=r"^cuda backend: output: bfloat16 on the cuda backend needs CuPy >= 14"):
        fake_cuda.backend.empty([2], "bfloat16")
    with pytest.raises(TypeError, match=r"^Op: x: bfloat16 on the cuda backend needs CuPy >= 14"):
        fake_cuda.backend.adopt("Op", "x", np.zeros(2, ml_dtypes.bfloat16))


def test_fake_cupy_second_device(fake_cuda: Any) -> None:
    """Device 1's backend: its own modules, arrays made and launched with device 1 current (a
    kernel argument or module of device 0 would fault), and inputs of device 0 copied over."""
    from generated import fused_batch_norm_v3

    rng = np.random.default_rng(6)
    d = _bn_inputs(rng, (2, 3, 4, 5), 5, "float32")
    scope = Scope("cuda:1")
    backend1 = scope.backend
    assert backend1.index == 1 and backend1 is not fake_cuda.backend
    x0 = fake_cuda.backend.adopt("Op", "x", d["x"])
    assert x0.data.device_id == 0
    fwd = fused_batch_norm_v3(x0, d["scale"], d["offset"], d["mean"], d["var"], epsilon=1e-3, scope=scope)
    assert fwd.y.data.device_id == 1
    _close(fwd.y, bn_forward(d["x"], d["scale"], d["offset"], d["mean"], d["var"], epsilon=1e-3)["y"], "float32", "y")
    fake_cupy.state().synchronize()  # no fault anywhere


def test_fake_cupy_launches_go_to_the_current_stream_and_capture(fake_cuda: Any) -> None:
    """As test_launches_use_cupys_current_stream on a GPU: captured launches run only at replay.
    Every buffer the captured call uses is a device array that outlives the graph: an op whose
    plan has a scratch buffer (FusedBatchNormGradV3's partials) frees it when the call returns, and
    the fake reports a graph that still points at it (tests/test_cuda_graph_replay.py)."""
    from reference.norm import layer_norm as layer_norm_ref

    from generated import layer_norm

    cp = sys.modules["cupy"]
    rng = np.random.default_rng(11)
    host_x = rng.standard_normal((6, 7, 33)).astype(np.float32)
    host_gamma, host_beta = rng.standard_normal(33).astype(np.float32), rng.standard_normal(33).astype(np.float32)
    x, gamma, beta = cp.asarray(host_x), cp.asarray(host_gamma), cp.asarray(host_beta)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        layer_norm(x, gamma, beta, scope=Scope("cuda"))
        stream.begin_capture()
        out = layer_norm(x, gamma, beta, scope=Scope("cuda"))
        graph = stream.end_capture()
    assert np.isnan(out.y).all()  # captured, not run
    new_x = rng.standard_normal(x.shape).astype(np.float32)
    x[...] = new_x
    launched = stream.graph_launches
    graph.launch(stream)
    assert stream.graph_launches == launched + 1
    y, mean, rstd = layer_norm_ref(new_x, host_gamma, host_beta, 1e-5)
    for name, got, want in (("y", out.y, y), ("mean", out.mean, mean), ("rstd", out.rstd, rstd)):
        np.testing.assert_allclose(got.get(), want, rtol=1e-5, atol=1e-5, err_msg=name)


@pytest.mark.filterwarnings("ignore:GRUBlockCell is deprecated:DeprecationWarning")
def test_fake_cupy_gemm_steps_during_capture_are_a_clear_error(fake_cuda_cublas: Any) -> None:
    """CuPy's cuBLAS refuses stream capture: a named error, and the direct path stays on."""
    from codegen.runtime.cuda import CudaBackendError
    from generated import gru_block_cell

    cp = sys.modules["cupy"]
    rng = np.random.default_rng(2)
    args = (rng.standard_normal((3, 4)).astype(np.float32), rng.uniform(-1, 1, (3, 5)).astype(np.float32),
            rng.standard_normal((9, 10)).astype(np.float32), rng.standard_normal((9, 5)).astype(np.float32),
            np.zeros(10, np.float32), np.zeros(5, np.float32))
    stream = cp.cuda.Stream()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # a self-check failing in the capture would warn
        for _ in range(2):  # before the self-check ran, and after
            with stream:
                stream.begin_capture()
                with pytest.raises(CudaBackendError, match="GEMM step cannot be captured into a CUDA graph"):
                    gru_block_cell(*args, scope=Scope("cuda"))
                stream.end_capture()
            gru_block_cell(*args, scope=Scope("cuda"))
    assert fake_cuda_cublas.cublas.calls.count("sgemm") > 4  # the direct path ran outside the capture


@pytest.mark.filterwarnings("ignore:GRUBlockCell is deprecated:DeprecationWarning")
def test_with_cublas_through_ctypes_a_users_capture_records_the_gemm_steps(monkeypatch: pytest.MonkeyPatch,
                                                                          tmp_path: Path) -> None:
    """cuBLAS itself captures (cublas_library.py's own handles): after one call outside (the
    self-check), a user's capture records the GEMM steps with the kernels, running nothing; the
    graph launched later computes the op on the inputs' values then."""
    from codegen.runtime.cuda import CudaBackendError
    from generated import gru_block_cell

    fake = fake_cupy.install(monkeypatch, tmp_path, fake_cupy.FakeCublasLibrary())
    cp = sys.modules["cupy"]
    rng = np.random.default_rng(3)
    host = [rng.standard_normal((3, 4)).astype(np.float32), rng.uniform(-1, 1, (3, 5)).astype(np.float32),
            rng.standard_normal((9, 10)).astype(np.float32), rng.standard_normal((9, 5)).astype(np.float32),
            rng.standard_normal(10).astype(np.float32), rng.standard_normal(5).astype(np.float32)]
    args = [cp.asarray(a) for a in host]
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        with pytest.raises(CudaBackendError, match="call the op once outside the capture first"):
            gru_block_cell(*args, scope=Scope("cuda"))
        stream.end_capture()
        monkeypatch.setenv("OPGEN_NO_REPLAY", "1")  # (the user's capture, not the backend's graph)
        gru_block_cell(*args, scope=Scope("cuda"))
        calls = len(fake.cublas.calls)
        stream.begin_capture()
        out = gru_block_cell(*args, scope=Scope("cuda"))
        graph = stream.end_capture()
    assert len(fake.cublas.calls) == calls and np.isnan(out.h.get()).all()  # captured, not run
    kinds = [type(node).__name__ for node in graph.nodes]
    assert kinds.count("_GemmNode") >= 2 and kinds.count("_KernelNode") == 2, kinds  # the products, the kernels
    host[0] = rng.standard_normal((3, 4)).astype(np.float32)
    args[0][...] = host[0]
    graph.launch(stream)  # (its scratch held by the backend since the capture)
    want = gru_block_cell(*host, scope=Scope("cpu"))
    for name in ("r", "u", "c", "h"):
        np.testing.assert_allclose(getattr(out, name).get(), getattr(want, name), rtol=1e-5, atol=1e-5, err_msg=name)
    assert not fake_cupy.state().stale
    Scope("cuda").release_capture_buffers()


def test_cublas_dimensions_above_int32_are_a_clear_error() -> None:
    from codegen.runtime.cublas_gemm import column_major_call
    from codegen.runtime.gemm import GemmSizes

    big = 2**31
    assert column_major_call(0, 0, 0, 4, GemmSizes(2**31 - 1, 1, 1, False, False, 0)).n == 2**31 - 1  # the limit
    with pytest.raises(ValueError, match=r"of at most 2\*\*31-1 = 2147483647, got m=2147483648$"):
        column_major_call(0, 0, 0, 4, GemmSizes(big, 1, 1, False, False, 0))
    with pytest.raises(ValueError, match=r"got k=2147483648, lda=2147483648"):
        column_major_call(0, 0, 0, 4, GemmSizes(1, 1, big, False, True, 0))


def test_fake_cupy_launch_checks(fake_cuda: Any) -> None:
    from codegen.runtime.kernels import KernelSource

    backend, errors = fake_cuda.backend, fake_cuda.module
    source = KernelSource("FusedBatchNormV3", GENERATED / "nn" / "fused_batch_norm.cu")
    x = backend.empty([4], "float32")
    symbol = "FusedBatchNormV3__normalize__float32"
    args = (x, x, x, np.int64(0), np.int64(1), np.int64(1))
    backend.launch(source, symbol, (0,), (32,), args)
    assert fake_cuda.compiled == []  # an empty grid loads nothing
    for grid, block in (((1,), (2048,)), ((1,), (0,)), ((1, 70000), (32,)), ((1, 1, 1, 1), (32,))):
        with pytest.raises(errors.CudaLaunchError, match="invalid launch configuration"):
            backend.launch(source, symbol, grid, block, args)
    with pytest.raises(errors.CudaLaunchError, match="argument 3 is a Python int"):
        backend.launch(source, symbol, (1,), (32,), (x, x, x, 0, np.int64(1), np.int64(1)))
    with pytest.raises(errors.CudaLaunchError, match=rf"FusedBatchNormV3: {symbol}: launch with grid \[1\]"):
        backend.launch(source, symbol, (1,), (32,), (x, x, np.int64(1), np.int64(1)))  # wrong arity
    with pytest.raises(errors.CudaBackendError, match=r"kernel 'Nope' is not in fused_batch_norm\.cu"):
        backend.launch(source, "Nope", (1,), (32,), args)


def test_fake_cupy_modules_hold_only_what_nvrtc_compiles(fake_cuda: Any) -> None:
    """As on a GPU: a kernel only the cpu plan launches (inside `#ifdef OPGEN_HOST_EMU`, `cpu_only` in
    the manifest) is not in the module, so launching it under the cuda plan is an error naming it;
    its cuda-plan sibling of the same module launches."""
    from codegen.runtime.kernels import KernelSource
    from codegen.runtime.manifest import read

    backend, errors = fake_cuda.backend, fake_cuda.module
    source = KernelSource("FusedBatchNormV3", GENERATED / "nn" / "fused_batch_norm.cu")
    stated = read(source.text)
    assert stated is not None
    cpu_only = "FusedBatchNormV3__stats_partials_sliced__float32"
    assert [k.cpu_only for k in stated.kernels if k.name == cpu_only] == [True]
    x, partials = backend.empty([4], "float32"), backend.empty([8], "float32")
    args = (x, partials, np.int64(4), np.int64(1), np.int64(1), np.int64(1))
    backend.launch(source, "FusedBatchNormV3__stats_partials__float32", (1,), (32,), args)
    with pytest.raises(errors.CudaBackendError, match=rf"FusedBatchNormV3: kernel '{cpu_only}' is not in "
                                                       r"fused_batch_norm\.cu: CUDA_ERROR_NOT_FOUND"):
        backend.launch(source, cpu_only, (1,), (32,), args)


def test_fake_cupy_launch_checks_the_manifests_launch_bound(fake_cuda: Any) -> None:
    from codegen.runtime.kernels import KernelSource

    backend, errors = fake_cuda.backend, fake_cuda.module
    source = KernelSource("BiasAdd", GENERATED / "nn" / "bias_add.cu")
    symbol = "BiasAdd__bias_add__float32"
    assert "__launch_bounds__(512, 1) " + symbol in source.text  # its plan's largest block
    x = backend.empty([4], "float32")
    with pytest.raises(errors.CudaLaunchError, match=rf"{symbol}: block \[1024\] has 1024 threads; the kernel's "
                                                     r"__launch_bounds__ allows at most 512"):
        backend.launch(source, symbol, (1,), (1024,), (x,))
    assert fake_cuda.compiled == []  # refused before anything was compiled


def test_fake_cupy_gemm_views(fake_cuda: Any) -> None:
    backend = fake_cuda.backend
    rng = np.random.default_rng(9)
    a = rng.standard_normal(3 + 4 * 5).astype(np.float32)
    b = rng.standard_normal(5 * 6).astype(np.float32)
    out = backend.adopt("g", "out", np.full(2 + 4 * 6, np.nan, np.float32))
    backend.gemm(backend.adopt("g", "a", a), backend.adopt("g", "b", b), out, 4, 6, 5, False, True, 0, 3, 0, 2)
    expected = a[3:].reshape(4, 5).astype(np.float64) @ b.reshape(6, 5).T.astype(np.float64)
    np.testing.assert_allclose(out[2:].reshape(4, 6), expected, rtol=1e-5, atol=1e-5)
    assert np.isnan(out[:2]).all()
    backend.gemm(backend.adopt("g", "a", a), backend.adopt("g", "b", b), out, 4, 6, 5, False, True, 1, 3, 0, 2)
    np.testing.assert_allclose(out[2:].reshape(4, 6), 2 * expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("dtype", "call"), [("float32", "sgemm"), ("float64", "dgemm"), ("float16", "gemmEx")])
def test_fake_cupy_gemm_steps_are_direct_cublas_calls(fake_cuda_cublas: Any, dtype: str, call: str) -> None:
    backend, cublas = fake_cuda_cublas.backend, fake_cuda_cublas.cublas
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(4 * 5).astype(dtype), rng.standard_normal(5 * 6).astype(dtype)
    out = backend.adopt("g", "out", np.full(4 * 6, np.nan, dtype))
    backend.gemm(backend.adopt("g", "a", a), backend.adopt("g", "b", b), out, 4, 6, 5, False, False, 0)
    # four self-check products (one per transpose pair), the strided batch's self-check (one call, two
    # products: the stand-in names each), then this one
    assert cublas.calls == [call] * 4 + ["gemmStridedBatchedEx"] * 2 + [call]
    expected = a.reshape(4, 5).astype(np.float64) @ b.reshape(5, 6).astype(np.float64)
    np.testing.assert_allclose(out.reshape(4, 6), expected, rtol=2e-2 if dtype == "float16" else 1e-5, atol=1e-2)


def test_fake_cupy_wrong_cublas_falls_back_to_matmul(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A cuBLAS wrapper that misbehaves (a changed signature, say) fails the self-check: a warning,
    then every product through cupy.matmul, still right."""

    class SwappedTransposes(fake_cupy.FakeCublas):
        def sgemm(self, h: int, ta: int, tb: int, *rest: Any) -> None:
            super().sgemm(h, tb, ta, *rest)

    fake = fake_cupy.install(monkeypatch, tmp_path, SwappedTransposes())
    backend = fake.backend
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal(3 * 3).astype(np.float32), rng.standard_normal(3 * 3).astype(np.float32)
    out = backend.adopt("g", "out", np.full(9, np.nan, np.float32))
    with pytest.warns(RuntimeWarning, match="direct cuBLAS GEMM disabled for float32"):
        backend.gemm(backend.adopt("g", "a", a), backend.adopt("g", "b", b), out, 3, 3, 3, True, False, 0)
    calls = len(fake.cublas.calls)
    backend.gemm(backend.adopt("g", "a", a), backend.adopt("g", "b", b), out, 3, 3, 3, True, False, 0)
    assert len(fake.cublas.calls) == calls  # the second product did not try cuBLAS again
    expected = a.reshape(3, 3).T.astype(np.float64) @ b.reshape(3, 3).astype(np.float64)
    np.testing.assert_allclose(out.reshape(3, 3), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.filterwarnings("ignore:GRUBlockCell is deprecated:DeprecationWarning")
@pytest.mark.parametrize("gemm_path", ["fake_cuda", "fake_cuda_cublas"])
def test_fake_cupy_gru_runs_through_gemm_and_kernels(request: pytest.FixtureRequest, gemm_path: str) -> None:
    fake_cuda = request.getfixturevalue(gemm_path)  # GEMM steps through cupy.matmul, or direct cuBLAS calls
    from codegen.warmup import generated_ops

    ops = {op.name: op for op in generated_ops()}
    if "GRUBlockCell" not in ops:
        pytest.skip("GRUBlockCell is not generated")
    rng = np.random.default_rng(2)
    batch, inp, cell = 3, 4, 5
    args = (rng.standard_normal((batch, inp)).astype(np.float32),
            rng.uniform(-1, 1, (batch, cell)).astype(np.float32),
            (rng.standard_normal((inp + cell, 2 * cell)) * 0.3).astype(np.float32),
            (rng.standard_normal((inp + cell, cell)) * 0.3).astype(np.float32),
            np.zeros(2 * cell, np.float32), np.zeros(cell, np.float32))
    on_fake = ops["GRUBlockCell"].function(*args, scope=Scope("cuda"))
    on_cpu = ops["GRUBlockCell"].function(*args, scope=Scope("cpu"))
    for name, got, want in zip(on_cpu._fields, on_fake, on_cpu, strict=True):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-6, err_msg=name)
    if fake_cuda.cublas is not None:  # the op's products went through cuBLAS, after the self-check's four
        assert fake_cuda.cublas.calls.count("sgemm") > 4


def test_fake_cupy_warmup_loads_every_entry_point(fake_cuda: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from codegen.warmup import generated_ops, run_warmup

    assert run_warmup([]) == 0
    out = capsys.readouterr().out
    assert "opgen warmup: cuda:0 Fake GPU (sm_90, cubin), NVRTC 99.9, CuPy fake" in out
    with_kernels = [op for op in generated_ops() if op.kernels is not None]
    modules = {op.kernels.path.name for op in with_kernels if op.kernels}
    assert sorted(fake_cuda.compiled) == sorted(modules)  # each module once, however many ops share it
    for op in with_kernels:
        assert op.name in out
    assert f"{len(modules)} modules compiled" in out and "shared with CudnnRNNBackpropV3" in out
    assert run_warmup(["FusedBatchNormV3"]) == 0  # loaded already: nothing compiled again
    assert "already loaded" in capsys.readouterr().out
    assert run_warmup(["NoSuchOp"]) == 2


# ------------------------------------------------------------------------------ GPU --

gpu = pytest.mark.gpu


@pytest.fixture(scope="module")
def cp() -> Any:
    import cupy

    return cupy


@pytest.fixture(scope="module")
def backend() -> Any:
    from codegen.runtime.cuda import cuda_backend

    return cuda_backend(0)


@gpu
def test_scope_picks_cuda_and_caches_one_backend_per_device(backend: Any) -> None:
    assert Scope().device == "cuda"
    assert Scope("cuda").backend is backend is Scope("cuda:0").backend
    assert backend.name == "cuda"


@gpu
def test_scope_with_a_missing_device_index(cp: Any) -> None:
    count = cp.cuda.runtime.getDeviceCount()
    with pytest.raises(RuntimeError, match=f"no CUDA device {count}"):
        Scope(f"cuda:{count}")


@gpu
def test_adopt_numpy_copies_to_the_device(backend: Any, cp: Any) -> None:
    host = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2]  # not contiguous
    arr = backend.adopt("Op", "x", host)
    assert isinstance(arr, cp.ndarray) and arr.flags.c_contiguous and arr.data.device_id == 0
    np.testing.assert_array_equal(arr.get(), host)


@gpu
def test_adopt_cupy_is_not_copied(backend: Any, cp: Any) -> None:
    arr = cp.arange(10, dtype=cp.float32)
    assert backend.adopt("Op", "x", arr) is arr
    strided = cp.arange(20, dtype=cp.float32)[::2]
    got = backend.adopt("Op", "x", strided)
    assert got.flags.c_contiguous and got.data.ptr != strided.data.ptr
    np.testing.assert_array_equal(got.get(), strided.get())


@gpu
def test_adopt_dlpack_and_cuda_array_interface_producers_without_copy(backend: Any, cp: Any) -> None:
    base = cp.arange(8, dtype=cp.float32)

    class DLPackOnly:
        def __init__(self, a: Any) -> None:
            self.a = a

        def __dlpack__(self, **kwargs: Any) -> Any:
            return self.a.__dlpack__(**kwargs)

        def __dlpack_device__(self) -> Any:
            return self.a.__dlpack_device__()

    class CAIOnly:
        def __init__(self, a: Any) -> None:
            self.__cuda_array_interface__ = a.__cuda_array_interface__

    for wrapper in (DLPackOnly(base), CAIOnly(base)):
        got = backend.adopt("Op", "x", wrapper)
        assert isinstance(got, cp.ndarray) and got.data.ptr == base.data.ptr, type(wrapper).__name__


@gpu
def test_adopt_torch_cuda_tensor_without_copy(backend: Any) -> None:
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    t = torch.arange(6, dtype=torch.float32, device="cuda:0")
    got = backend.adopt("Op", "x", t)
    assert got.data.ptr == t.data_ptr()
    cpu_tensor = torch.arange(4, dtype=torch.float32)
    np.testing.assert_array_equal(backend.adopt("Op", "x", cpu_tensor).get(), cpu_tensor.numpy())


@gpu
def test_adopt_from_another_device_copies_here(cp: Any) -> None:
    if cp.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("needs two CUDA devices")
    from codegen.runtime.cuda import cuda_backend

    with cp.cuda.Device(1):
        other = cp.arange(5, dtype=cp.float32)
    got = cuda_backend(0).adopt("Op", "x", other)
    assert got.data.device_id == 0
    np.testing.assert_array_equal(got.get(), np.arange(5, dtype=np.float32))


@gpu
@pytest.mark.parametrize("value", [[1.0, 2.0], "x", None, 3.0])
def test_adopt_rejects_non_arrays_naming_op_and_arg(backend: Any, value: Any) -> None:
    with pytest.raises(TypeError, match=r"^MyOp: my_arg: expected an array"):
        backend.adopt("MyOp", "my_arg", value)


@gpu
def test_empty_and_poison(backend: Any, cp: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_POISON_OUTPUTS", "1")
    out = backend.empty([2, 3], "float32")
    assert isinstance(out, cp.ndarray) and out.shape == (2, 3) and out.dtype == cp.float32
    assert bool(cp.isnan(out).all())
    assert int(backend.empty([4], "int32")[0]) == -1
    ml_dtypes = pytest.importorskip("ml_dtypes")
    bf = backend.empty([3], "bfloat16")  # CuPy 14: ml_dtypes.bfloat16 arrays
    assert bf.dtype == ml_dtypes.bfloat16 and np.isnan(bf.get().astype(np.float32)).all()


@gpu
def test_adopt_bfloat16_big_endian_and_pinned_host_memory(backend: Any, cp: Any) -> None:
    ml_dtypes = pytest.importorskip("ml_dtypes")
    host = np.linspace(-2, 2, 7).astype(ml_dtypes.bfloat16)
    arr = backend.adopt("Op", "x", host)
    assert isinstance(arr, cp.ndarray) and arr.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(arr.get().view(np.uint16), host.view(np.uint16))
    big = np.arange(5, dtype=">f4")
    np.testing.assert_array_equal(backend.adopt("Op", "x", big).get(), np.arange(5, dtype=np.float32))
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    pinned = torch.arange(4, dtype=torch.float32).pin_memory()
    np.testing.assert_array_equal(backend.adopt("Op", "x", pinned).get(), np.arange(4, dtype=np.float32))


@gpu
def test_pointer_array(backend: Any, cp: Any) -> None:
    arrays = [cp.zeros(3, cp.float32) for _ in range(3)]
    ptrs = backend.pointer_array(arrays)
    assert isinstance(ptrs, cp.ndarray) and ptrs.dtype == cp.uint64
    assert ptrs.get().tolist() == [a.data.ptr for a in arrays]


def _bn_inputs(rng: np.random.Generator, shape: tuple[int, ...], c: int, dtype: str) -> dict[str, np.ndarray]:
    return {
        "x": (rng.standard_normal(shape) * 2 + 0.5).astype(dtype),
        "dy": rng.standard_normal(shape).astype(dtype),
        "scale": rng.uniform(0.5, 2, c).astype(np.float32),
        "offset": rng.standard_normal(c).astype(np.float32),
        "mean": rng.standard_normal(c).astype(np.float32),
        "var": rng.uniform(0.5, 2, c).astype(np.float32),
    }


def _close(got: Any, expected: np.ndarray, dtype: str, what: str) -> None:
    got = got.get() if hasattr(got, "get") else np.asarray(got)
    assert not np.isnan(got.astype(np.float64)).any(), f"{what}: NaN (an unwritten element?)"
    rtol, atol = {"float32": (1e-4, 1e-4), "float16": (5e-3, 5e-3)}[dtype]
    scale = max(1.0, float(np.abs(expected).max(initial=0)))
    np.testing.assert_allclose(got.astype(np.float64), expected, rtol=rtol, atol=atol * scale, err_msg=what)


@gpu
@pytest.mark.parametrize("data_format, shape, c", [
    ("NHWC", (2, 3, 4, 5), 5), ("NCHW", (2, 5, 3, 4), 5), ("NHWC", (4, 20, 20, 33), 33),
    ("NCHW", (2, 3, 130, 131), 3), ("NDHWC", (2, 3, 4, 5, 6), 6), ("NCDHW", (1, 3, 2, 5, 7), 3),
])
@pytest.mark.parametrize("is_training", [True, False], ids=["training", "inference"])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_batch_norm_on_cuda_matches_the_float64_reference(data_format: Any, shape: tuple[int, ...], c: int,
                                                         is_training: bool, dtype: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from generated import fused_batch_norm_grad_v3, fused_batch_norm_v3

    monkeypatch.setenv("OPGEN_POISON_OUTPUTS", "1")
    rng = np.random.default_rng(zlib.crc32(repr((data_format, shape, is_training, dtype)).encode()))
    d = _bn_inputs(rng, shape, c, dtype)
    scope = Scope("cuda")
    eps = 1e-3
    fwd = fused_batch_norm_v3(d["x"], d["scale"], d["offset"], d["mean"], d["var"], epsilon=eps,
                              data_format=data_format, is_training=is_training, scope=scope)
    ref = bn_forward(d["x"], d["scale"], d["offset"], d["mean"], d["var"], epsilon=eps,
                     data_format=data_format, is_training=is_training)
    _close(fwd.y, ref["y"], dtype, "y")
    for name in ("batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2"):
        _close(getattr(fwd, name), ref[name], "float32", name)
    rs1, rs2 = (ref["reserve_space_1"], ref["reserve_space_2"])
    grad = fused_batch_norm_grad_v3(d["dy"], d["x"], d["scale"], rs1.astype(np.float32), rs2.astype(np.float32),
                                    fwd.reserve_space_3, epsilon=eps, data_format=data_format,
                                    is_training=is_training, scope=scope)
    gref = bn_grad(d["dy"], d["x"], d["scale"], rs1.astype(np.float32), rs2.astype(np.float32), epsilon=eps,
                   data_format=data_format, is_training=is_training)
    _close(grad.x_backprop, gref["x_backprop"], dtype, "x_backprop")
    for name in ("scale_backprop", "offset_backprop"):
        _close(getattr(grad, name), gref[name], "float32", name)
    for out in (*fwd, *grad):
        assert out.data.device_id == 0 and type(out).__module__.startswith("cupy")


@gpu
def test_launches_use_cupys_current_stream(cp: Any) -> None:
    """Capture the op into a CUDA graph on a side stream: if any kernel went to another stream it
    would run at once on the old data instead of being captured, and the replay would not match."""
    from generated import fused_batch_norm_grad_v3

    rng = np.random.default_rng(11)
    shape, c, eps = (4, 6, 7, 9), 9, 1e-3
    d = _bn_inputs(rng, shape, c, "float32")
    scope = Scope("cuda")
    x, dy = cp.asarray(d["x"]), cp.asarray(d["dy"])
    scale, rs1, rs2 = cp.asarray(d["scale"]), cp.asarray(d["mean"]), cp.asarray(d["var"])
    rs3 = cp.zeros(0, cp.float32)
    cp.cuda.Device(0).synchronize()
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:  # load the kernels and leave the stream's memory pool with blocks of the right sizes
        warm = fused_batch_norm_grad_v3(dy, x, scale, rs1, rs2, rs3, epsilon=eps, scope=scope)
        stream.synchronize()
        del warm
        stream.begin_capture()
        out = fused_batch_norm_grad_v3(dy, x, scale, rs1, rs2, rs3, epsilon=eps, scope=scope)
        graph = stream.end_capture()
    new_x = rng.standard_normal(shape).astype(np.float32)
    x.set(new_x)  # after capture: only the replay can have seen these values
    cp.cuda.Device(0).synchronize()
    graph.launch(stream)
    stream.synchronize()
    ref = bn_grad(d["dy"], new_x, d["scale"], d["mean"], d["var"], epsilon=eps, data_format="NHWC")
    _close(out.x_backprop, ref["x_backprop"], "float32", "x_backprop")
    _close(out.scale_backprop, ref["scale_backprop"], "float32", "scale_backprop")


@gpu
def test_launch_checks_and_empty_grid(backend: Any, cp: Any) -> None:
    from codegen.runtime.cuda import CudaLaunchError
    from codegen.runtime.kernels import KernelSource

    path = GENERATED / "nn" / "fused_batch_norm.cu"
    source = KernelSource("FusedBatchNormV3", path)
    x = cp.zeros(4, cp.float32)
    symbol = "FusedBatchNormV3__normalize__float32"
    backend.launch(source, symbol, (0,), (32,), (x, x, x, np.int64(0), np.int64(1), np.int64(1)))  # no-op
    with pytest.raises(CudaLaunchError, match="invalid launch configuration"):
        backend.launch(source, symbol, (1,), (2048,), (x, x, x, np.int64(0), np.int64(1), np.int64(1)))
    with pytest.raises(CudaLaunchError, match="typed NumPy scalars"):
        backend.launch(source, symbol, (1,), (32,), (x, x, x, 0, np.int64(1), np.int64(1)))
    with pytest.raises(Exception, match=r"not in fused_batch_norm\.cu"):
        backend.launch(source, "NoSuchKernel", (1,), (32,), ())


def _run_op_script() -> str:
    return """
        import json
        import numpy as np
        from codegen.runtime import cuda
        from generated import Scope, fused_batch_norm_grad_v3
        rng = np.random.default_rng(0)
        x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
        out = fused_batch_norm_grad_v3(x, x, np.ones(5, np.float32), np.zeros(5, np.float32),
                                       np.ones(5, np.float32), np.zeros(0, np.float32), scope=Scope("cuda"))
        out.x_backprop.get()
        print(json.dumps(cuda.stats))
    """


@gpu
def test_second_process_loads_modules_from_disk_without_nvrtc(tmp_path: Path) -> None:
    env = {"OPGEN_CACHE_DIR": str(tmp_path)}
    first = run_python(_run_op_script(), env)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout.strip().splitlines()[-1])["nvrtc_compiles"] == 1
    second = run_python(_run_op_script(), env)
    assert second.returncode == 0, second.stderr
    stats = json.loads(second.stdout.strip().splitlines()[-1])
    assert stats["nvrtc_compiles"] == 0 and stats["disk_hits"] == 1 and stats["module_loads"] == 1


@gpu
def test_cached_module_the_driver_refuses_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from codegen.runtime.cuda import CudaBackend
    from codegen.runtime.kernels import KernelSource

    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path))
    source = KernelSource("FusedBatchNormV3", GENERATED / "nn" / "fused_batch_norm.cu")
    first = CudaBackend(0).load(source)
    assert first.origin == "nvrtc"
    path = cuda_cache.entry_path(first.key)
    meta = diskcache.get(path)
    assert meta is not None
    diskcache.put(path, b"\x7fELF but not a cubin", meta.meta)  # checksum fine, content not loadable
    compiles = cuda_cache.stats["nvrtc_compiles"]
    again = CudaBackend(0).load(source)  # a fresh backend: no in-memory module
    assert again.origin == "nvrtc" and cuda_cache.stats["nvrtc_compiles"] == compiles + 1
    entry = diskcache.get(path)
    assert entry is not None and entry.data[:4] == b"\x7fELF" and len(entry.data) > 1000
    assert CudaBackend(0).load(source).origin == "disk"


@gpu
def test_warmup_on_the_gpu(tmp_path: Path) -> None:
    env = {"OPGEN_CACHE_DIR": str(tmp_path)}
    code = "import sys; from codegen.warmup import main; sys.exit(main(sys.argv[1:]))"
    first = subprocess.run([sys.executable, "-c", code, "FusedBatchNormV3"], cwd=PROJECT, capture_output=True,
                           text=True, env={**os.environ, "PYTHONPATH": str(PROJECT), **env}, timeout=300, check=False)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "compiled" in first.stdout
    second = subprocess.run([sys.executable, "-c", code], cwd=PROJECT, capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(PROJECT), **env}, timeout=300, check=False)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "already cached" in second.stdout
