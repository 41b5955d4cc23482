"""CUDA's launch limits as the emulation enforces them, and the module/runtime ABI version."""

from __future__ import annotations

ABI_VERSION = 6  # OPGEN_EMU_ABI_VERSION in emu/opgen_emu_abi.h (checked at load, as MAX_SHARED_MEM)
MAX_THREADS_PER_BLOCK = 1024
MAX_BLOCK_DIM = (1024, 1024, 64)
MAX_GRID_DIM = (2**31 - 1, 65535, 65535)
DEFAULT_MAX_DYNAMIC_SMEM = 48 * 1024  # CUDA's limit unless the kernel opts in
MAX_SHARED_MEM = 227 * 1024  # OPGEN_EMU_MAX_SMEM (checked at load: host/libraries.py _check_layouts)
