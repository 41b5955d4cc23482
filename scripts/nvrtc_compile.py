#!/usr/bin/env python3
"""Every kernel module through NVRTC with its kernels' resources: codegen/verify/nvrtc_compile.py,
run from a checkout with nothing installed (its usage and options are there). Its names stay
importable from here for the tests and scripts that load this file."""

from __future__ import annotations

import sys
from pathlib import Path

if str(Path(__file__).resolve().parent.parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from codegen.verify.nvrtc_compile import *  # noqa: F403
from codegen.verify.nvrtc_compile import main

if __name__ == "__main__":
    sys.exit(main())
