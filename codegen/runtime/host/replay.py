"""A recorded launch plan (codegen/runtime/plan.py) replayed on the cpu backend in native batches.

`build` turns a Recording into batch records (opgen_batch_record, emu/opgen_emu_abi.h) once per
module and launch settings: each launch's function, checked configuration and scalar arguments
packed by value, its buffer arguments as indices into a table. `run` binds a call's buffers to
that table (one data pointer per slot, C-contiguity checked once per buffer) and runs the batches
between the GEMM steps with one call into the runtime each: no Python per launch, and the runtime
reads no Python object.
"""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from codegen.runtime import plan
from codegen.runtime.gemm import batch_offsets
from codegen.runtime.stats import python_launches

from . import blas, state
from .errors import HostKernelError
from .module import HostFunction
from .pack import _P_POINTER, BATCH_LANE_RECORD, _LaunchCfg, c_contiguous_address, scalar_code, slot_code
from .queue import run_batch


@dataclass(frozen=True)
class Batch:
    """Launches run by one call into the runtime."""

    blob: bytes
    count: int
    kernels: tuple[str, ...]  # each launch's kernel, for an error message
    keep: tuple[Any, ...]  # the launch configurations the records point at


@dataclass(frozen=True)
class NativePlan:
    slots: int
    segments: tuple[Batch | plan.Gemm, ...]  # a GEMM here runs from Python (not for the BLAS)
    needs: tuple[tuple[int, int, Any], ...]  # (slot, elements, dtype) that its batched GEMMs read or write


def build(recording: plan.Recording, buffers: Sequence[Any], function: Callable[[str], HostFunction],
          settings: tuple[Any, ...]) -> NativePlan | None:
    """The recording as native batches, its GEMM steps among them where the BLAS takes them (for
    these buffers' dtypes: the recording's key fixes them, and `bind` checks); None where a launch
    needs the checked path (a pointer list, an argument of another kind than its parameter, more
    than 64 arguments with buffers), or where a configuration is refused (the checked path then
    raises it in order)."""
    segments: list[Batch | plan.Gemm] = []
    records: list[bytes] = []
    kernels: list[str] = []
    keep: list[Any] = []
    needs: list[tuple[int, Any]] = [(0, None)] * len(buffers)
    lanes = 0  # inside a Lanes span: its count (cpu_batch.h's Builder marks the same records)
    lane_of: list[int] = []  # each record's lane

    def close() -> None:
        if records:
            segments.append(Batch(b"".join(records), len(records), tuple(kernels), tuple(keep)))
            records.clear()
            kernels.clear()
            keep.clear()
            lane_of.clear()

    for step in recording.steps:
        if isinstance(step, plan.Lanes):  # a span after another's records runs as ordinary records
            lanes = step.count if step.count > 1 and not (lane_of and lane_of[-1]) else 0
            continue
        if isinstance(step, plan.Gemm):
            offsets = list(batch_offsets(*step.sizes[6:]))
            by_lane = lanes > 1 and len(offsets) == lanes  # (product i is lane i + 1)
            products = [_gemm_record(step, o, buffers, needs, keep, i + 1 if by_lane else 0)
                        for i, o in enumerate(offsets)]
            if None in products:  # from Python, between batches
                close()
                segments.append(step)
            else:
                for i, product in enumerate(products):  # (a strided batch: a record per product)
                    if product:
                        records.append(product)
                        kernels.append("gemm")
                        lane_of.append(i + 1 if by_lane else 0)
            continue
        if 0 in step.grid:  # an empty tensor: the launch does nothing (CpuBackend.launch skips it too)
            continue
        fn = function(step.symbol)
        nlanes = lanes if lanes > 1 and step.grid[-1] == lanes else 1
        for lane in range(nlanes):  # (lane i + 1: the blocks at index i of the last grid dimension)
            record = _record(fn, step, settings, keep, (lane + 1, nlanes) if nlanes > 1 else None)
            if record is None:
                return None
            records.append(record)
            kernels.append(fn.name)
            lane_of.append(lane + 1 if nlanes > 1 else 0)
    close()
    return NativePlan(len(buffers), tuple(segments),
                      tuple((slot, need, dtype) for slot, (need, dtype) in enumerate(needs) if dtype is not None))


def _gemm_record(step: plan.Gemm, offsets: tuple[int, int, int], buffers: Sequence[Any],
                 needs: list[tuple[int, Any]], keep: list[Any], lane: int) -> bytes | None:
    """A GEMM step's product at these (a, b, out) offsets (one of a strided batch's) as a batch
    record (opgen_rt_gemm) of `lane` (0: none), b"" for one that does nothing, None where it is not
    for the BLAS (blas.run's conditions, on these buffers)."""
    m, n, k, trans_a, trans_b, beta = step.sizes[:6]
    a_offset, b_offset, out_offset = offsets
    found = blas.find()
    dtype = blas.takes(buffers[step.a], buffers[step.b], buffers[step.out])
    if found is None or dtype is None or min(m, n, k, *offsets) < 0:
        return None
    if m == 0 or n == 0:
        return b""
    for slot, need in zip((step.a, step.b, step.out), blas.extents(m, n, k, trans_a, trans_b, a_offset, b_offset,
                                                                   out_offset), strict=True):
        needs[slot] = (max(needs[slot][0], need), dtype)
    desc = found.desc(dtype, m, n, k, trans_a, trans_b, beta, a_offset, b_offset, out_offset)
    keep.append(desc)
    pointers = slot_code(_P_POINTER, 8) * 3
    return struct.pack(BATCH_LANE_RECORD + pointers, blas.gemm_address(), ctypes.addressof(desc), 3, lane, 0b111,
                       step.a, step.b, step.out)


def _record(fn: HostFunction, step: plan.Launch, settings: tuple[Any, ...], keep: list[Any],
            lane: tuple[int, int] | None = None) -> bytes | None:
    """A launch as a batch record; with `lane` (L, n): the record of lane L of n, which runs the blocks
    at index L − 1 of the grid's last dimension (the runtime runs it alone on its lane's thread, and
    takes the run's thread count from the records' nworkers, left as the launch's own)."""
    if len(step.args) != len(fn.params) or len(step.args) > 256:  # (OPGEN_BATCH_MAX_ARGS)
        return None
    codes, values, table_args = [], [], 0
    for k, (arg, (kind, size)) in enumerate(zip(step.args, fn.params, strict=True)):
        if type(arg) is plan.Slot:
            if kind != _P_POINTER or k >= 64:
                return None
            table_args |= 1 << k
            codes.append(slot_code(kind, size))
            values.append(arg.index)
        else:
            code = scalar_code(kind, size, arg)
            if code is None:
                return None
            codes.append(code)
            values.append(arg.item() if arg.dtype.kind in "fb" else int(arg))
    try:
        cfg, address = fn._batch_cfg((step.grid, step.block, step.shared, settings))
    except Exception:  # noqa: BLE001  (the checked path raises it, after the launches before it)
        return None
    if lane is not None:
        cfg = _LaunchCfg.from_buffer_copy(cfg)
        per_lane = cfg.grid[0] * cfg.grid[1] * cfg.grid[2] // lane[1]
        cfg.block_lo, cfg.block_hi = per_lane * (lane[0] - 1), per_lane * lane[0]
        address = ctypes.addressof(cfg)
    keep.append(cfg)
    return struct.pack(BATCH_LANE_RECORD + "".join(codes), fn._launch_addr, address, len(values),
                       0 if lane is None else lane[0], table_args, *values)


def bind(buffers: Sequence[Any], needs: Sequence[tuple[int, int, Any]] = ()) -> Any | None:
    """The call's buffer table (each slot's data pointer, 0 for None); None where a buffer is no
    C-contiguous NumPy array, or is smaller than or of another dtype than a batched GEMM needs
    (`needs`: slot, elements, dtype; the checked path names what is wrong). The hot path of a
    replayed call: one address read per buffer (pack.c_contiguous_address)."""
    values: list[int] = []
    append = values.append
    for buf in buffers:
        if type(buf) is np.ndarray:
            address = c_contiguous_address(buf)
            if address is None:
                return None
            append(address)
        elif buf is None:
            append(0)
        else:
            return None
    for slot, need, dtype in needs:
        buf = buffers[slot]
        if buf is None or buf.size < need or buf.dtype != dtype:
            return None
    return (ctypes.c_uint64 * max(len(values), 1))(*values)


def run(native: NativePlan, table: Any, buffers: Sequence[Any], gemm: Callable[..., None], err: Any) -> None:
    """Run the native plan with `table` bound to `buffers`; the first launch that fails raises
    HostKernelError (the message a launch of its own gives) and the rest do not run."""
    call = run_batch()
    python_launches["from_python"] += len(native.segments)  # (a Python GEMM segment counts in gemm)
    for segment in native.segments:
        if type(segment) is Batch:
            if state.batch_log is not None:  # (a benchmark timing the kernels: batch_timing.py)
                state.batch_log.append((segment.blob, segment.count, table, native.slots, (native, buffers)))
            done = call(segment.blob, segment.count, table, native.slots, err, len(err))
            if done != segment.count:
                raise HostKernelError(err.value.decode("utf-8", "replace")
                                      or f"kernel '{segment.kernels[done]}' failed")
        else:
            assert type(segment) is plan.Gemm
            gemm(buffers[segment.a], buffers[segment.b], buffers[segment.out], *segment.sizes)
