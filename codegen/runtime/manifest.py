"""The manifest a generated `.cu` carries on its last line: its entry points as the generator wrote them.

    // opgen-manifest: {"version": 1, "kernels": [...], "shared": [...], "digest": "..."}

Each kernel is ``{"name": SYMBOL, "params": [[C_TYPE, NAME], ...], "max_threads": N}`` (N: its
``__launch_bounds__``, else CUDA's limit 1024), with ``"cpu_only": true`` for an entry point only the cpu
plan launches (the module holds it inside ``#ifdef OPGEN_HOST_EMU``: the host emulation compiles it,
NVRTC does not); ``shared`` lists the module's ``extern __shared__``
arrays. The host backend and warmup read this line instead of tokenizing the whole source with
cxx.py (codegen/runtime/host/glue.py scans a source without one). ``digest`` covers the text above the
line and the manifest's own fields, so a source or manifest edited by hand after generation is not
believed: ``read`` returns None and the caller scans what the compiler will read. Only
json and hashlib: the cuda backend and warmup read it without the host backend's imports.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

MARKER = "// opgen-manifest: "
VERSION = 1
MAX_THREADS_PER_BLOCK = 1024
HOST_EMULATION = "OPGEN_HOST_EMU"  # defined by the host emulation's cuda_emu.h, never by NVRTC


class ManifestError(ValueError):
    """A source's manifest line is missing, malformed, of an unknown version or stale."""


@dataclass(frozen=True)
class Entry:
    name: str
    params: tuple[tuple[str, str], ...]  # (C type, name) per parameter
    max_threads: int = MAX_THREADS_PER_BLOCK
    cpu_only: bool = False  # only the cpu plan launches it: not in the module as NVRTC compiles it

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(name for _, name in self.params)


@dataclass(frozen=True)
class Manifest:
    kernels: tuple[Entry, ...]
    shared: tuple[str, ...] = ()


def line(manifest: Manifest, body: str) -> str:
    """The manifest line to append to ``body`` (the module's text, ending in a newline)."""
    fields = _fields(manifest)
    fields["digest"] = _digest(body, fields)
    return MARKER + json.dumps(fields, separators=(",", ":")) + "\n"


def parse(source: str) -> Manifest:
    """The manifest on the last line of ``source``; ManifestError says why there is none to believe."""
    body, _, last = source.rstrip("\n").rpartition("\n")
    if not last.startswith(MARKER):
        raise ManifestError(f"no manifest: the last line does not start with {MARKER.strip()!r}")
    try:
        fields = json.loads(last[len(MARKER):])
        version, digest = fields.pop("version"), fields.pop("digest")
        if version != VERSION:
            raise ManifestError(f"manifest version {version!r} is not the known {VERSION}")
        manifest = Manifest(tuple(Entry(k["name"], tuple((t, n) for t, n in k["params"]), int(k["max_threads"]),
                                        k.get("cpu_only") is True)
                                  for k in fields.pop("kernels")), tuple(fields.pop("shared")))
    except ManifestError:
        raise
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ManifestError(f"malformed manifest ({type(exc).__name__}: {exc})") from exc
    if fields:
        raise ManifestError(f"manifest has unknown fields {sorted(fields)}")
    if digest != _digest(body + "\n", _fields(manifest)):
        raise ManifestError("stale manifest: its digest does not match the source and manifest above it "
                            "(edited after generation; regenerate with `python -m codegen generate`)")
    return manifest


def read(source: str) -> Manifest | None:
    """parse's manifest, or None where there is none to believe (the caller then scans the source)."""
    if MARKER not in source[-65536:]:  # the common foreign source: no json work at all
        return None
    try:
        return parse(source)
    except ManifestError:
        return None


def _fields(manifest: Manifest) -> dict[str, object]:
    return {"version": VERSION,
            "kernels": [{"name": k.name, "params": [list(p) for p in k.params], "max_threads": k.max_threads,
                         **({"cpu_only": True} if k.cpu_only else {})} for k in manifest.kernels],
            "shared": list(manifest.shared)}


def _digest(body: str, fields: dict[str, object]) -> str:
    payload = {k: v for k, v in fields.items() if k != "digest"}
    h = hashlib.sha256(body.encode("utf-8"))
    h.update(json.dumps(payload, sort_keys=True).encode("utf-8"))
    return h.hexdigest()[:32]
