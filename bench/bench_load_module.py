"""The first load_module of each generated module in a process, from the disk cache (issue 22 item 2).

Two forms of generated/'s 13 .cu: as written (the manifest line at the end: load_module reads it)
and the same text without that line (what the generator wrote before: load_module scans it with
cxx.py). Each round forgets the process's modules and scans first, so every load is a disk-cache hit
as in a new process; the first round compiles whatever the cache lacks and is not timed."""

from __future__ import annotations

from pathlib import Path

from common import machine, median_seconds

from codegen.runtime import host

ROOT = Path(__file__).resolve().parents[1]


def without_manifest(text: str) -> str:
    return text.rstrip("\n").rpartition("\n")[0] + "\n"


def load_all(texts: list[str]) -> None:
    host.clear_memory_cache()
    host._scan.cache_clear()
    for text in texts:
        host.load_module(text)


def main() -> None:
    with_line = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "generated").glob("*/*.cu"))]
    scanned = [without_manifest(t) for t in with_line]
    print(f"machine: {machine()}")
    print(f"modules: {len(with_line)} ({sum(len(t) for t in with_line) / 1000:.0f} kB)")
    for _ in range(2):  # rounds interleaved: the two forms share the machine's drift
        before = median_seconds(lambda: load_all(scanned), repeats=7, warmup=1)
        after = median_seconds(lambda: load_all(with_line), repeats=7, warmup=1)
        print(f"load_module x{len(with_line)}, scanned: {before * 1e3:.1f} ms, manifest: {after * 1e3:.1f} ms, "
              f"ratio {after / before:.2f}")


if __name__ == "__main__":
    main()
