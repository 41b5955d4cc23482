"""The kernel cache as a trust boundary (issue 12, items 9-11): what makes two host builds the same
(the whole compiler command and version), which loaded module a cpu backend launches (the source's,
not the first one of the same op name), and which cache folders and entries are trusted at all.

Trust is decided from each file's owner and mode (os.stat), never by trying to write: root may write
anywhere, and these tests run as root in some places."""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import tempfile
import uuid
from pathlib import Path

import numpy as np
import pytest

from codegen.runtime import artifacts, diskcache, host
from codegen.runtime.cpu import CpuBackend
from codegen.runtime.kernels import KernelSource

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
OTHER_UID = 54321  # a uid no test machine's user has


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private cache folder, whatever the caller's environment says."""
    root = tmp_path / "cache"
    root.mkdir(mode=0o755)
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(root))
    monkeypatch.delenv("CXX", raising=False)
    monkeypatch.delenv("OPGEN_HOST_SANITIZE", raising=False)
    return root


def _source(tag: str, body: str = "x[0] = VALUE;") -> str:
    return (f"// {tag} {uuid.uuid4()}\n#ifndef VALUE\n#define VALUE 1.0f\n#endif\n"
            f'extern "C" __global__ void k(float* x) {{ {body} }}\n')


def _run(module: host.HostModule) -> float:
    x = np.zeros(1, np.float32)
    module.get_function("k")((1,), (1,), (x,))
    return float(x[0])


# ------------------------------------------------------------ 9: compiler key --

@needs_gxx
def test_flags_inside_cxx_are_part_of_the_key(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = _source("cxx-flags")
    assert _run(host.load_module(src, name_hint="cxxflags")) == 1.0
    host.clear_memory_cache()
    monkeypatch.setenv("CXX", "g++ -DVALUE=2.0f")  # same compiler, a flag in $CXX
    assert _run(host.load_module(src, name_hint="cxxflags")) == 2.0  # not the plain build from disk
    assert len(list((cache / "host").glob("cxxflags-*.so"))) == 2


def _fake_compiler(path: Path, second_line: str, mtime_ns: int) -> None:
    path.write_text('#!/bin/sh\nif [ "$1" = "--version" ]; then echo "g++ (Fake) 13.2.0"; '
                    f'echo "{second_line}"; exit 0; fi\nexec g++ "$@"\n')
    path.chmod(0o755)
    os.utime(path, ns=(mtime_ns, mtime_ns))


@needs_gxx
def test_whole_version_output_and_resolved_path_are_part_of_the_key(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    cxx = tmp_path / "fake-g++"
    monkeypatch.setenv("CXX", str(cxx))
    _fake_compiler(cxx, "configured with: --enable-a", 1_000_000_000)
    first = host.compiler_id()
    _fake_compiler(cxx, "configured with: --enable-b", 2_000_000_000)  # same first line
    second = host.compiler_id()
    assert first != second and "--enable-b" in second and "--enable-b" in host.compiler_version()

    link = tmp_path / "g++-link"  # a symlink names the real compiler in the id
    link.symlink_to(cxx)
    monkeypatch.setenv("CXX", f"{link} -O3")
    ident = host.compiler_id()
    assert str(cxx) in ident and "-O3" in ident


# ----------------------------------------------------- 10: cpu modules by source --

@needs_gxx
def test_cpu_backend_keeps_modules_apart_by_source_not_op_name(cache: Path, tmp_path: Path) -> None:
    one, two = tmp_path / "one.cu", tmp_path / "two.cu"
    one.write_text(_source("pkg-one", "x[0] = 1.0f;"))
    two.write_text(_source("pkg-two", "x[0] = 2.0f;"))
    backend = CpuBackend()
    results = []
    for source in (KernelSource("SameOp", one), KernelSource("SameOp", two), KernelSource("SameOp", one)):
        x = np.zeros(1, np.float32)
        backend.launch(source, "k", (1,), (1,), (x,))
        backend.flush()  # (launches are queued until a flush, as generated wrappers do before returning)
        results.append(float(x[0]))
    assert results == [1.0, 2.0, 1.0]


# ---------------------------------------------------------- 11: trust boundary --

@needs_gxx
@pytest.mark.parametrize("mode", [0o775, 0o757, 0o1777])
def test_cache_folder_writable_by_others_is_refused(cache: Path, mode: int) -> None:
    cache.chmod(mode)
    with pytest.raises(host.HostCacheError, match=r"OPGEN_CACHE_DIR=.*writable by .*chmod go-w"):
        host.load_module(_source("shared-folder"), name_hint="refused")
    assert not (cache / "host").exists()  # nothing was written into it


@needs_gxx
def test_folder_above_the_cache_writable_by_others_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # others could swap the cache folder itself
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(shared / "mine"))
    with pytest.raises(host.HostCacheError, match=r"shared is not safe: .*all users"):
        host.load_module(_source("shared-parent"), name_hint="refused")
    shared.chmod(0o1777)  # a sticky folder such as /tmp protects what is ours in it
    assert _run(host.load_module(_source("sticky-parent"), name_hint="sticky")) == 1.0
    assert stat.S_IMODE((shared / "mine").stat().st_mode) & 0o022 == 0


@needs_gxx
@as_root
def test_cache_folder_of_another_user_is_refused(cache: Path) -> None:
    (cache / "host").mkdir(mode=0o755)
    os.chown(cache / "host", OTHER_UID, -1)
    with pytest.raises(host.HostCacheError, match=f"owned by another user \\(uid {OTHER_UID}"):
        host.load_module(_source("other-owner"), name_hint="refused")


def _built(cache: Path, hint: str) -> tuple[str, Path]:
    src = _source(hint)
    host.load_module(src, name_hint=hint)
    host.clear_memory_cache()
    (so,) = (cache / "host").glob(f"{hint}-*.so")
    return src, so


@needs_gxx
@pytest.mark.parametrize("which", ["payload", "sidecar"])
def test_entry_writable_by_others_is_ignored_and_rebuilt(cache: Path, which: str) -> None:
    src, so = _built(cache, f"shared-{which}")
    planted = so if which == "payload" else diskcache.meta_path(so)
    planted.chmod(0o666)
    compiles = host.stats["compiles"]
    with pytest.warns(RuntimeWarning, match=r"ignoring kernel cache entry .*writable by"):
        assert _run(host.load_module(src, name_hint=f"shared-{which}")) == 1.0
    assert host.stats["compiles"] == compiles + 1
    assert stat.S_IMODE(planted.stat().st_mode) & 0o022 == 0  # replaced by a trusted one


@needs_gxx
@as_root
def test_entry_of_another_user_is_ignored_and_rebuilt(cache: Path) -> None:
    src, so = _built(cache, "planted")
    # A re-signed library of someone else's: its checksum is right, it must still never be loaded.
    diskcache.put(so, b"\x7fELF not a library", {"deps": []})
    os.chown(so, OTHER_UID, -1)
    compiles = host.stats["compiles"]
    with pytest.warns(RuntimeWarning, match=f"owned by another user \\(uid {OTHER_UID}"):
        assert _run(host.load_module(src, name_hint="planted")) == 1.0
    assert host.stats["compiles"] == compiles + 1 and so.stat().st_uid == os.geteuid()


@needs_gxx
@pytest.mark.parametrize("deps", [5, "x", [["a"]], [[1, 2]], [["bad\0path", "0"]], {"a": "b"}])
def test_sidecar_with_malformed_fields_is_a_miss(cache: Path, deps: object) -> None:
    src, so = _built(cache, "malformed")
    meta = json.loads(diskcache.meta_path(so).read_text())
    meta["deps"] = deps  # checksum still right: only the field is bad
    diskcache.write_atomic(diskcache.meta_path(so), json.dumps(meta).encode())
    compiles = host.stats["compiles"]
    assert _run(host.load_module(src, name_hint="malformed")) == 1.0
    assert host.stats["compiles"] == compiles + 1
    host.clear_memory_cache()
    host.load_module(src, name_hint="malformed")  # rebuilt once, then a hit again
    assert host.stats["compiles"] == compiles + 1


@needs_gxx
def test_cache_dir_that_is_a_file_names_the_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(blocker))
    with pytest.raises(host.HostCacheError, match=r"OPGEN_CACHE_DIR=.*a-file.*is not a folder"):
        host.load_module(_source("file-root"), name_hint="fileroot")


@needs_gxx
@pytest.mark.skipif(os.geteuid() == 0, reason="root may write a read-only folder")
def test_unwritable_cache_dir_names_the_variable(cache: Path) -> None:
    cache.chmod(0o555)
    try:
        with pytest.raises(host.HostCacheError, match=r"not writable \(OPGEN_CACHE_DIR="):
            host.load_module(_source("read-only"), name_hint="readonly")
    finally:
        cache.chmod(0o755)


def test_new_cache_folders_are_never_group_writable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "a" / "b"))
    old = os.umask(0o002)  # a common default for users: mkdir -p would make 0775 folders
    try:
        diskcache.put(diskcache.cache_root() / "cuda" / "x.bin", b"data")
    finally:
        os.umask(old)
    for folder in (tmp_path / "a", tmp_path / "a" / "b", tmp_path / "a" / "b" / "cuda"):
        assert stat.S_IMODE(folder.stat().st_mode) & 0o022 == 0, folder
    assert diskcache.get(diskcache.cache_root() / "cuda" / "x.bin") is not None


def test_cuda_cache_entries_get_the_same_checks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cuda backend's disk cache goes through diskcache.get/put: the same refusals apply."""
    from codegen.runtime import cuda_cache

    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "c"))
    path = cuda_cache.entry_path("0" * 64)
    diskcache.put(path, b"\x7fELF cubin", {"key": "0" * 64, "kind": "cubin"})
    assert diskcache.get(path) is not None
    path.chmod(0o646)
    with pytest.warns(RuntimeWarning, match="writable by all users"):
        assert diskcache.get(path) is None
    path.chmod(0o644)
    cuda_cache.cache_dir().chmod(0o775)
    with pytest.raises(diskcache.UnsafeCacheError, match="writable by its group"):
        diskcache.get(path)
    with pytest.raises(diskcache.UnsafeCacheError):
        diskcache.put(path, b"\x7fELF cubin")
    _fake_nvrtc(monkeypatch)
    with pytest.raises(cuda_cache.CudaCacheError, match="writable by its group"):  # not a mere write failure
        cuda_cache.load_or_compile("unsafe", "unsafe.cu", cuda_cache.Target("sm_90", "cubin"))


# ------------------------------------------- issue 20, item 8: a cache or compiler gone wrong --

@needs_gxx
def test_cxx_that_a_shell_cannot_split_names_cxx(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CXX", 'g++ "-O2')
    with pytest.raises(host.HostCompilerNotFound, match=r"CXX='g\+\+ \"-O2' cannot be split .*No closing quotation"):
        host.load_module(_source("bad-quote"), name_hint="badquote")


@needs_gxx
@pytest.mark.parametrize("cxx", ["true", "echo"])
def test_cxx_that_writes_no_library_names_cxx(cache: Path, monkeypatch: pytest.MonkeyPatch, cxx: str) -> None:
    monkeypatch.setenv("CXX", cxx)
    with pytest.raises(host.HostCompilerNotFound, match=rf"CXX='{cxx}' \(.*{cxx}\) exited 0 but wrote no library"):
        host.load_module(_source(f"cxx-{cxx}"), name_hint="nolibrary")
    assert not list((cache / "host").glob("nolibrary-*.so"))


def _no_space(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


@needs_gxx
@pytest.mark.parametrize("where", ["source", "library", "compiler"])
def test_a_full_disk_under_the_cache_builds_outside_it_and_runs(cache: Path, tmp_path: Path, where: str,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(artifacts, "_WARNED", set())
    host._runtime_api()  # (the runtime is this process's already: only the module meets the full disk)
    if where == "source":
        monkeypatch.setattr(diskcache, "write_atomic", _no_space)
    elif where == "library":
        monkeypatch.setattr(diskcache, "put", _no_space)
    else:  # g++ itself cannot write its output into the cache
        wrapper = tmp_path / "cxx"
        wrapper.write_text(f'#!/bin/sh\nfor a; do case "$a" in {cache}/*out.so) echo "ld: final link failed: '
                           f'No space left on device" >&2; exit 1;; esac; done\nexec g++ "$@"\n')
        wrapper.chmod(0o755)
        monkeypatch.setenv("CXX", str(wrapper))
    with pytest.warns(RuntimeWarning) as caught:
        module = host.load_module(_source(f"full-{where}"), name_hint="fulldisk")
    message = str(caught[0].message)
    assert f"cannot use the kernel cache at {cache / 'host'}" in message and "OPGEN_CACHE_DIR=" in message
    assert "no space left on device" in message.lower() and "outside the cache" in message
    assert "Free space there, or set OPGEN_CACHE_DIR to a folder on another disk" in message
    assert _run(module) == 1.0
    assert cache not in module.path.parents and module.path.is_file()  # the private copy, until exit
    assert not list((cache / "host").glob("fulldisk-*.so"))


@needs_gxx
def test_a_full_disk_everywhere_names_the_cache_and_the_variable(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host._runtime_api()
    monkeypatch.setattr(artifacts, "_WARNED", set())
    monkeypatch.setattr(diskcache, "write_atomic", _no_space)
    monkeypatch.setattr(tempfile, "mkdtemp", _no_space)
    with pytest.raises(host.HostCacheError, match=rf"kernel cache at {cache / 'host'} cannot take it .*No space"
                                                  r".*no temporary folder.*OPGEN_CACHE_DIR"):
        host.load_module(_source("full-everywhere"), name_hint="fulleverywhere")


@needs_gxx
@pytest.mark.parametrize("which", ["library", "sidecar", "source"])
def test_a_folder_where_a_cache_entry_should_be(cache: Path, which: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty folder in an entry's place is removed and the entry rebuilt; a folder with files in it
    is named, to be removed, and the module runs meanwhile (built outside the cache)."""
    monkeypatch.setattr(artifacts, "_WARNED", set())
    src = _source(f"folder-{which}")
    path = host.load_module(src, name_hint="folderentry").path
    blocked = {"library": path, "sidecar": diskcache.meta_path(path), "source": path.with_suffix(".cu")}[which]
    for p in (path, diskcache.meta_path(path), path.with_suffix(".cu")):
        p.unlink()
    blocked.mkdir()
    host.clear_memory_cache()
    assert _run(host.load_module(src, name_hint="folderentry")) == 1.0  # (an empty folder: removed, rebuilt)
    assert blocked.is_file() and diskcache.get(path) is not None
    for p in (path, diskcache.meta_path(path), path.with_suffix(".cu")):
        p.unlink()
    blocked.mkdir()
    (blocked / "something").write_text("not ours to delete")
    for _ in range(2):  # every run works, and says what to remove
        host.clear_memory_cache()
        with pytest.warns(RuntimeWarning, match=rf"{blocked} is a folder where a cache entry should be.*outside "
                                                rf"the cache.*Remove it \(rm -r {blocked}\)"):
            assert _run(host.load_module(src, name_hint="folderentry")) == 1.0
        monkeypatch.setattr(artifacts, "_WARNED", set())
    assert (blocked / "something").is_file()


def _fake_nvrtc(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from codegen.runtime import cuda_cache

    compiled: list[str] = []

    def compile_source(source: str, name: str, options: object, kind: str) -> bytes:
        compiled.append(name)
        return b"\x7fELF cubin of " + source.encode()

    monkeypatch.setattr(cuda_cache, "compiler_id", lambda: "fake nvrtc 1.0")
    monkeypatch.setattr(cuda_cache, "compile_options", lambda target, **kw: ("-std=c++17", target.option))
    monkeypatch.setattr(cuda_cache, "compile_source", compile_source)
    monkeypatch.setattr(artifacts, "_WARNED", set())
    return compiled


def test_a_full_disk_under_the_cuda_cache_warns_naming_it_and_runs(cache: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from codegen.runtime import cuda_cache

    compiled = _fake_nvrtc(monkeypatch)
    monkeypatch.setattr(diskcache, "put", _no_space)
    with pytest.warns(RuntimeWarning, match=rf"cannot use the kernel cache at {cache / 'cuda'} \(OPGEN_CACHE_DIR=.*"
                                            r"No space left.*outside the cache.*Free space there"):
        artifact = cuda_cache.load_or_compile("full", "full.cu", cuda_cache.Target("sm_90", "cubin"))
    assert artifact.data == b"\x7fELF cubin of full" and compiled == ["full.cu"]


def test_a_folder_where_a_cuda_cache_entry_should_be(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from codegen.runtime import cuda_cache

    compiled = _fake_nvrtc(monkeypatch)
    target = cuda_cache.Target("sm_90", "cubin")
    first = cuda_cache.load_or_compile("folder", "folder.cu", target)
    diskcache.remove(first.path)
    first.path.mkdir()  # empty: removed, and the entry rebuilt
    assert cuda_cache.load_or_compile("folder", "folder.cu", target).origin == "nvrtc"
    assert cuda_cache.load_or_compile("folder", "folder.cu", target).origin == "disk"
    diskcache.remove(first.path)
    first.path.mkdir()
    (first.path / "file").write_text("not ours")
    with pytest.warns(RuntimeWarning, match=rf"{first.path} is a folder where a cache entry should be.*outside "
                                            rf"the cache.*Remove it \(rm -r {first.path}\)"):
        assert cuda_cache.load_or_compile("folder", "folder.cu", target).data == b"\x7fELF cubin of folder"
    assert compiled == ["folder.cu"] * 3


# ------------- issue 22, item 4: one policy for a cache that cannot take an entry, on both backends --
# codegen/runtime/artifacts.py: a cache folder that cannot be a writable folder is the backend's cache
# error naming the variable; a full disk costs the cache, not the kernel (built outside it, warned
# once per cause in the same words). The cuda backend runs on a fake NVRTC (_fake_nvrtc).

def _build(backend: str, tag: str) -> object:
    """A module of `tag` built on `backend`: the cpu backend's library, the cuda backend's cubin."""
    from codegen.runtime import cuda_cache

    if backend == "cpu":  # (the same text within a test, whose cache root is its own)
        text = f"// {tag} {diskcache.cache_root()}\n" + 'extern "C" __global__ void k(float* x) { x[0] = 1.0f; }\n'
        return host.load_module(text, name_hint=tag)
    return cuda_cache.load_or_compile(tag, f"{tag}.cu", cuda_cache.Target("sm_90", "cubin"))


def _cache_error(backend: str) -> type[Exception]:
    from codegen.runtime import cuda_cache

    return host.HostCacheError if backend == "cpu" else cuda_cache.CudaCacheError


@pytest.fixture(params=["cpu", "cuda"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "cpu" and shutil.which("g++") is None:
        pytest.skip("needs g++")
    if request.param == "cuda":
        _fake_nvrtc(monkeypatch)
    monkeypatch.setattr(artifacts, "_WARNED", set())
    return request.param


def test_one_policy_a_cache_root_that_is_a_file_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         backend: str) -> None:
    host._runtime_api()  # (the runtime is this process's already: only the module meets the cache)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(blocker))
    with pytest.raises(_cache_error(backend), match=r"OPGEN_CACHE_DIR=.*a-file.*is not a folder"):
        _build(backend, "policyfile")


def test_one_policy_a_read_only_cache_loads_its_entries_and_names_the_variable_on_a_miss(
        cache: Path, backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    host._runtime_api()
    _build(backend, "policyhit")
    host.clear_memory_cache()
    folder = cache / ("host" if backend == "cpu" else "cuda")
    access = os.access  # read-only as diskcache sees it (root may write a chmod 555 folder)
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: Path(p) != folder and access(p, mode, **kw))
    _build(backend, "policyhit")  # a hit needs no write access
    with pytest.raises(_cache_error(backend), match=r"not writable \(OPGEN_CACHE_DIR="):
        _build(backend, "policymiss")


def test_one_policy_a_full_disk_builds_outside_the_cache_and_warns_once(cache: Path, backend: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    host._runtime_api()
    monkeypatch.setattr(diskcache, "put", _no_space)
    folder = cache / ("host" if backend == "cpu" else "cuda")
    with pytest.warns(RuntimeWarning) as caught:
        first = _build(backend, "policyfull")
    message = str(caught[0].message)
    assert message.startswith(f"opgen: cannot use the kernel cache at {folder} (OPGEN_CACHE_DIR=")
    assert "no space left on device" in message.lower() and "outside the cache instead" in message
    assert "Free space there, or set OPGEN_CACHE_DIR to a folder on another disk" in message
    assert first is not None and not list(folder.glob("policyfull-*.so" if backend == "cpu" else "*.cubin"))
    host.clear_memory_cache()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the same cause again: built outside again, not warned again
        _build(backend, "policyfull")
