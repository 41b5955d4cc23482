"""`--package P [--specs DIR]`, as gpu_parity.py, gpu_sanitize.py and gpu_check.py take them: which
generated package's ops to verify (an import name, found from the current directory too, or the
package's folder) and its spec folder."""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path

from codegen.verify.cases import SPECS  # opgen's own ops' specs


def add_package_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--package", default="generated",
                        help="the generated package whose ops run: an import name (found from the current "
                             "directory too) or its folder (default: generated, opgen's own ops)")
    parser.add_argument("--specs", type=Path, default=None,
                        help="its spec folder, for cases derived from the specs (default: opgen's specs/ for "
                             "generated, else specs/ in the current directory)")


def package_and_specs(parser: argparse.ArgumentParser, package: str, specs: Path | None) -> tuple[str, Path]:
    """`--package` as an import name (made importable from the current directory, or from the folder
    given), and its spec folder (`--specs`, else the default for it); a usage error (exit 2) naming
    what is wrong when the package cannot be imported."""
    from codegen.warmup import resolve_package

    try:
        name = resolve_package(package)
        importlib.import_module(name)
    except (ValueError, ImportError) as exc:
        parser.error(f"--package {package}: cannot import it from {Path.cwd()}: {exc}")
    if specs is None:
        specs = SPECS if name == "generated" else Path("specs")
    return name, specs
