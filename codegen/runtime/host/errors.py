"""The host backend's errors: every one is a HostBackendError (and, where it fits, a ValueError,
TypeError or KeyError as well)."""

from __future__ import annotations


class HostBackendError(RuntimeError):
    """Base class of every error raised by the host backend."""


class HostCompilerNotFound(HostBackendError):
    """No usable C++ compiler for the cpu backend."""


class HostCompileError(HostBackendError):
    """The host compiler rejected a kernel source (message includes its stderr)."""

    def __init__(self, message: str, stderr: str = "", source_path: str = "", returncode: int | None = None) -> None:
        super().__init__(message)
        self.stderr = stderr
        self.source_path = source_path
        self.returncode = returncode  # (negative: the compiler was killed by a signal, an OOM kill say)


class HostKernelError(HostBackendError):
    """A kernel failed while running: deadlock, barrier misuse, assert/__trap, memory fault."""


class HostCacheError(HostBackendError):
    """The kernel cache folder cannot be used: not a folder, not writable, or writable by other users."""


class HostIsaError(HostBackendError, ValueError):
    """OPGEN_HOST_ISA or a backend's isa names no level, or one this CPU cannot run."""


class HostLaunchError(HostBackendError, ValueError):
    """Invalid launch configuration (grid, block, shared memory)."""


class HostArgumentError(HostBackendError, TypeError):
    """Kernel arguments do not match the kernel's parameters."""


class HostKernelNotFound(HostBackendError, KeyError):
    """get_function() was asked for a kernel the module does not define."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""

