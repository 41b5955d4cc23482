"""opgen: an op compiler (YAML op specs to CUDA kernels, typed Python wrappers and reference pages)."""

from codegen._version import __version__

__all__ = ["__version__"]
