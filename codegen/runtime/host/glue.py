"""A module's entry points and its glue: the kernels and extern shared arrays a source declares
(from its manifest, manifest.py, where it carries one to believe; else scanned as the compiler reads
the source, with cxx.py) and the glue text appended to it (opgen_emu_glue.h's macros), which exports
each kernel's launcher and parameter list to ctypes."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from codegen.runtime import cxx, manifest

from .limits import MAX_THREADS_PER_BLOCK
from .toolchain import translate_options


@dataclass(frozen=True)
class KernelSig:
    name: str
    param_names: tuple[str, ...]
    max_threads: int  # from __launch_bounds__, else 1024


def scan_kernels(source: str, options: Sequence[str] = ()) -> list[KernelSig]:
    """Kernels declared ``extern "C" __global__ void NAME(`` (``__launch_bounds__`` allowed around),
    read as the compiler reads them (codegen.runtime.cxx): a kernel in a branch of ``#if``/``#ifdef``
    known to be off is not one, and object-like macros (the source's and ``-D`` options') are
    expanded, in the kernels and in their launch bounds. A kernel that a function-like macro
    declares is not listed."""
    return list(_scan(source, _option_macros(options))[0])


def device_kernel_names(source: str) -> list[str]:
    """The entry points of `source` as NVRTC compiles it (the host emulation's macro undefined, so a
    kernel only the cpu plan launches is none): what a GPU module of it holds."""
    return [k.name for k in scan_kernels(source, [f"-U{manifest.HOST_EMULATION}"])]


def scan_extern_shared(source: str, options: Sequence[str] = ()) -> list[str]:
    """Names declared ``extern __shared__ T name[];`` (dynamic shared memory), read as scan_kernels reads."""
    return list(_scan(source, _option_macros(options))[1])


def _option_macros(options: Sequence[str]) -> tuple[tuple[str, str | None], ...]:
    """The ``-D NAME[=VALUE]`` / ``-U NAME`` of a module's options, in order (None: undefined)."""
    flags = translate_options(options)
    out: list[tuple[str, str | None]] = []
    for i, flag in enumerate(flags):
        if flag in ("-D", "-U") and i + 1 < len(flags):
            flag += flags[i + 1]
        if flag.startswith("-D") and len(flag) > 2:
            name, _, value = flag[2:].partition("=")
            out.append((name, value if "=" in flag else "1"))
        elif flag.startswith("-U") and len(flag) > 2:
            out.append((flag[2:], None))
    return tuple(out)


def _entry_points(source: str, options: Sequence[str]) -> tuple[tuple[KernelSig, ...], tuple[str, ...]]:
    """The kernels and extern shared arrays of a source: from its manifest where it carries one to
    believe (a generated module: manifest.py; its entry points lie outside any #if, so options do
    not change them), else scanned as the compiler reads the source."""
    stated = manifest.read(source)
    if stated is None:
        return _scan(source, _option_macros(options))
    return tuple(KernelSig(k.name, k.param_names, k.max_threads) for k in stated.kernels), stated.shared


@functools.lru_cache(maxsize=64)
def _scan(source: str, defines: tuple[tuple[str, str | None], ...]) -> tuple[tuple[KernelSig, ...], tuple[str, ...]]:
    """The kernels and extern shared arrays of a source, from one tokenization (cached: the cpu
    backend loads each source once per process, the tests many times)."""
    if not defines:  # as the compiler's checks read it: their tokenization, shared
        tokens = cxx.stream(source).tokens
        return tuple(_kernels(tokens)), tuple(cxx.extern_shared(tokens))
    pp = cxx.Preprocessed()
    for name, value in defines:
        if value is None:
            pp.macros.pop(name, None)
            pp.undefined.add(name)
        else:
            pp.macros[name] = value
            pp.undefined.discard(name)
    tokens = cxx.tokenize(source, pp=pp)
    return tuple(_kernels(tokens)), tuple(cxx.extern_shared(tokens))


def _kernels(tokens: list[cxx.Token]) -> list[KernelSig]:
    found: dict[str, KernelSig] = {}
    for i, t in enumerate(tokens[:-1]):
        if t.text == "extern" and tokens[i + 1].text == '"C"':
            sig = _kernel_at(tokens, i + 2)
            if sig is not None and (sig.name not in found or len(sig.param_names) > len(found[sig.name].param_names)):
                found[sig.name] = sig
    return list(found.values())


def _kernel_at(tokens: list[cxx.Token], j: int) -> KernelSig | None:
    """The kernel whose declaration continues at tokens[j] (just past ``extern "C"``), if it is one."""
    is_global, bound = False, MAX_THREADS_PER_BLOCK
    while j < len(tokens) and tokens[j].kind == "id":
        word = tokens[j].text
        j += 1
        if j < len(tokens) and tokens[j].text == "(":  # __launch_bounds__(...), __attribute__((...))
            end = cxx.match(tokens, j)
            if word == "__launch_bounds__":
                bound = _launch_bound(tokens[j + 1:end - 1])
            j = end
        elif word == "void":
            break
        is_global = is_global or word == "__global__"
    else:
        return None
    if j + 1 < len(tokens) and tokens[j].text == "__launch_bounds__" and tokens[j + 1].text == "(":
        end = cxx.match(tokens, j + 1)
        bound = _launch_bound(tokens[j + 2:end - 1])
        j = end
    if not is_global or j + 1 >= len(tokens) or tokens[j].kind != "id" or tokens[j + 1].text != "(":
        return None
    end = cxx.match(tokens, j + 1)
    params = [p for p in cxx.split_params(tokens[j + 2:end - 1]) if [t.text for t in p] != ["void"]]
    return KernelSig(tokens[j].text, tuple(_param_name(p) for p in params), bound)


def _param_name(param: list[cxx.Token]) -> str:
    """The last name outside brackets: ``x`` of ``const float* __restrict__ x``, of ``float x[4]``."""
    names, depth = [], 0
    for t in param:
        depth += {"[": 1, "]": -1}.get(t.text, 0)
        if t.kind == "id" and depth == 0:
            names.append(t.text)
    return names[-1] if names else "?"


def _launch_bound(args: list[cxx.Token]) -> int:
    """The maximum block size ``__launch_bounds__(args)`` sets: its first argument, an integer
    expression over literals and the source's macros. One the scanner cannot evaluate (a constexpr
    variable, a macro from an included header) falls back to CUDA's limit, 1024: the emulation then
    accepts up to 1024 threads where the GPU, which knows the real bound, may refuse fewer."""
    first = cxx.split_params(args)[:1]
    value = cxx.evaluate([t.text for t in first[0]]) if first else None
    return value if value is not None and 0 < value <= MAX_THREADS_PER_BLOCK else MAX_THREADS_PER_BLOCK


def _glue(kernels: Sequence[KernelSig], shared: Sequence[str]) -> str:
    lines = ["", "// ---- opgen host glue (generated by codegen/runtime/host/glue.py) ----",
             '#include "opgen_emu_glue.h"']
    if shared:
        lines.append("OPGEN_DYN_SMEM_BUFFER()")
        lines += [f"OPGEN_DYN_SMEM_ALIAS({n})" for n in shared]
    else:
        lines.append("OPGEN_NO_DYN_SMEM()")
    lines += [f"OPGEN_KERNEL({k.name})" for k in kernels]
    lines.append("OPGEN_MODULE_EXPORTS()")
    return "\n".join(lines) + "\n"

