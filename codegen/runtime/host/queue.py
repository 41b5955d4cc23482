"""The LaunchQueue: a thread's launches, run in order by one call into the runtime."""

from __future__ import annotations

import ctypes
from typing import Any

from codegen.runtime.settings import HOST_SANITIZE
from codegen.runtime.stats import python_launches

from . import state, switches
from .errors import HostKernelError
from .libraries import _RUNTIME, _runtime_api
from .module import HostFunction
from .pack import c_contiguous_address
from .switches import _launch_settings, sanitize_enabled


class LaunchQueue:
    """Launches waiting to run, in order, in one call into the runtime (opgen_rt_run_batch): a
    small launch then costs a few microseconds of Python and no ctypes call of its own. Used by
    one thread (CpuBackend keeps one per thread). Whoever reads or writes the launches' buffers on
    the host calls flush() first; the queue holds the arrays until then."""

    def __init__(self) -> None:
        self._records: list[bytes] = []
        self._keep: list[tuple[Any, ...]] = []  # (fn, args, cfg, grid, block, shared_mem) of each record
        self._settings: tuple[int, int | None, int] | None = None
        self._err = ctypes.create_string_buffer(1024)

    def __len__(self) -> int:
        return len(self._records)

    def add(self, fn: HostFunction, grid: tuple[Any, ...], block: tuple[Any, ...], args: Any,
            shared_mem: Any = 0) -> bool:
        """Queue the launch; False where it must run on its own (fn(...), after a flush): the
        sanitize build, arguments the fast path does not take (the checked path names what is
        wrong), dimensions not plain ints. Raises what the launch would for a bad configuration.
        The hot path of every cpu launch: one struct.pack of the record (opgen_batch_record)."""
        if switches._sanitize is not False and (switches._sanitize is True or HOST_SANITIZE.is_set()) and (
                sanitize_enabled()):  # the sanitize build checks each launch's buffers: one at a time
            return False
        if type(args) is not tuple:
            return False
        types = tuple(map(type, args))
        try:
            packer = fn._batch_packers[types]
        except KeyError:
            packer = fn._batch_packer(types, args)
        if packer is None:
            return False
        for v in grid:  # (32.0 == 32 as a key, but is no dimension)
            if type(v) is not int:
                return False
        for v in block:
            if type(v) is not int:
                return False
        settings = self._settings or _launch_settings()  # read once a batch (no change inside a wrapper)
        key = (grid, block, shared_mem, settings)
        made = fn._batch_cfgs.get(key)
        if made is None or type(shared_mem) is not int:
            made = fn._batch_cfg(key)
        values = list(args)
        for i in packer.arrays:
            address = c_contiguous_address(args[i])
            if address is None:
                return False
            values[i] = address
        for i in packer.nulls:
            values[i] = 0
        record = packer.record.pack(fn._launch_addr, made[1], len(values), 0, *values)
        self._records.append(record)
        self._keep.append((fn, args, made[0], grid, block, shared_mem))
        self._settings = settings
        return True

    def flush(self) -> None:
        """Run the queued launches in order; the first that fails raises its HostKernelError (the
        same message as a launch of its own) and the later ones do not run."""
        records = self._records
        if not records:
            return
        keep = self._keep
        self._records, self._keep, self._settings = [], [], None
        err = self._err
        python_launches["from_python"] += 1
        blob = b"".join(records)
        if state.batch_log is not None:  # (a benchmark timing the kernels: batch_timing.py)
            state.batch_log.append((blob, len(records), None, 0, keep))
        done = run_batch()(blob, len(records), None, 0, err, len(err))
        if done != len(records):
            fn = keep[done][0]
            raise HostKernelError(err.value.decode("utf-8", "replace") or f"kernel '{fn.name}' failed")


def run_batch() -> Any:
    """The runtime's opgen_rt_run_batch(blob, count, table, table_len, err, errlen) -> launches run."""
    run = _RUNTIME.get("run_batch")
    if run is None:
        _runtime_api()  # (loaded with the first module; here for safety)
        run = _RUNTIME["lib"].opgen_rt_run_batch
        run.argtypes = [ctypes.c_char_p, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_char_p,
                        ctypes.c_size_t]
        run.restype = ctypes.c_uint64
        _RUNTIME["run_batch"] = run
    return run
