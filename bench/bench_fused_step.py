#!/usr/bin/env python3
"""CudnnRNNV3's fused recurrent step (issue 23 item 1) against the GEMM steps it replaces, on a GPU.

The GPU's launch plan takes the fused variant (`fused_step`: per time step one launch for both
directions, each block a 32×32 tile of h·Rᵀ through opgen::matmul_tile, then that tile's gates)
outside the persistent variant's limits up to fused_depth = gates·max(units, h_size) =
fused_max_depth (the family param of specs/rnn/cudnn_rnn.family.yaml, read from each op's
`_PLAN.params`), and above it the GEMM steps (per step and direction a cuBLAS h·Rᵀ and the step
kernel). That switch was set to 128 from this benchmark's run on an H200 (bench/RESULTS.md,
2026-11-28; the cost model's 256 before it took the slower form at depths 192 and 256); it
measures it: for a bidirectional layer's T forward steps, and CudnnRNNBackpropV3's T backward
steps, float32, all lengths T, both forms run the generated kernels directly on the same buffers,
each captured once into a CUDA graph (as the op's replay runs them) and timed by CUDA events
(medians over repeats), at sizes on both sides of the switch. What both forms compute (the h
states; the gradients dG and dh) is compared (max |difference|) before timing, so a wrong launch
shows.


    python bench/bench_fused_step.py [--repeats 20] [--steps 20] [--dirs 1 2] [--markdown FILE]

Each size is timed with one direction and with two (`--dirs`): the fused form runs every direction
in one launch, the GEMM steps one after the other, so the switch may differ between them.

Exit status 2 where no GPU (CuPy and a CUDA device) is at hand.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

PROJECT = Path(__file__).resolve().parent.parent
for folder in (PROJECT, PROJECT / "bench"):  # (bench/ too: scripts/fake_gpu.py runs this as a path)
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from gpu_timing import cupy_or_reason, median_ms  # noqa: E402 -- bench/ is the script folder

TILE = 32  # StepTiles' rows and units per block (kernels/rnn/cudnn_rnn.cu)
# (mode, batch, units): batches above the persistent variant's (persistent_max_batch), depths either side of
# fused_max_depth
SIZES = [("lstm", 128, 16), ("lstm", 128, 32), ("lstm", 128, 40), ("lstm", 128, 64), ("lstm", 512, 32),
         ("lstm", 512, 64), ("lstm", 128, 128), ("gru", 128, 42), ("gru", 128, 48), ("gru", 512, 42),
         ("gru", 128, 85)]


@dataclass(frozen=True)
class Layout:
    """One layer's buffers as the kernels see them (offsets in elements), over `dirs` directions (the
    fused form runs them all in one launch, the GEMM steps one after the other)."""

    mode: str
    batch: int
    units: int
    steps: int
    dirs: int = 2

    @property
    def gates(self) -> int:
        return 4 if self.mode == "lstm" else 3

    @property
    def width(self) -> int:  # G·H, a step's gate columns
        return self.gates * self.units

    @property
    def layer_w(self) -> int:  # a direction's recurrent weights [G·H, H]
        return self.width * self.units

    @property
    def bofs(self) -> int:  # the biases after both directions' weights, 2·G·H per direction
        return self.dirs * self.layer_w

    @property
    def hs_ofs(self) -> int:  # per direction: acts [T, B, 4H], h slots [T + 1, B, H], c slots (lstm)
        return self.steps * self.batch * 4 * self.units

    @property
    def cs_ofs(self) -> int:
        return self.hs_ofs + (self.steps + 1) * self.batch * self.units

    @property
    def pl_size(self) -> int:
        return self.cs_ofs + (self.steps + 1) * self.batch * self.units * (self.mode == "lstm")


def host_buffers(lay: Layout, seed: int = 0) -> dict[str, np.ndarray]:
    """The start of both forms: gx [dirs, T·B, G·H], params, work (random h and c slots), lengths."""
    rng = np.random.default_rng(seed)
    scale = 1.0 / np.sqrt(lay.units)
    return {
        "gx": (rng.standard_normal((lay.dirs, lay.steps * lay.batch * lay.width)) * 0.5).astype(np.float32),
        "params": rng.uniform(-scale, scale, lay.dirs * lay.layer_w + lay.dirs * 2 * lay.width).astype(np.float32),
        "work": rng.uniform(-1, 1, lay.dirs * lay.pl_size).astype(np.float32),
        "lengths": np.full(lay.batch, lay.steps, np.int32),
        # the backward's: the output gradient [T, B, dirs·H], carried dh (and dc) per direction
        "dy": rng.standard_normal(lay.steps * lay.batch * lay.dirs * lay.units).astype(np.float32),
        "dh": rng.standard_normal(lay.dirs * lay.batch * lay.units).astype(np.float32),
        "dc": rng.standard_normal(lay.dirs * lay.batch * lay.units).astype(np.float32),
    }


def device_buffers(cp: Any, lay: Layout, host: dict[str, np.ndarray]) -> dict[str, Any]:
    """The fused form's gx and gh hold a slot per direction; the GEMM steps' form gets a gx and a gh
    per direction (gx_0, gh_0, ...), as its plan's direction loop reuses one of each."""
    buf = {k: cp.asarray(host[k]) for k in ("params", "work", "lengths", "dy", "dh", "dc")}
    buf["dgw"] = cp.asarray(np.zeros(lay.dirs * lay.steps * lay.batch * lay.width, np.float32))
    buf["dgr"] = cp.asarray(np.zeros(lay.dirs * lay.steps * lay.batch * lay.width, np.float32))
    buf["gx"] = cp.asarray(host["gx"].ravel())
    buf["gh"] = cp.asarray(np.zeros(lay.dirs * lay.batch * lay.width, np.float32))
    for d in range(lay.dirs):
        buf[f"gx_{d}"] = cp.asarray(host["gx"][d])
        buf[f"gh_{d}"] = cp.asarray(np.zeros(lay.batch * lay.width, np.float32))
    return buf


def row_threads(lay: Layout) -> int:
    """The step kernels' block on the GPU's plan (gpu_row_threads: lstm and gru)."""
    return max(128, min(256, 32 * -(-lay.units // 32)))


def fused_steps(backend: Any, source: Any, lay: Layout, buf: dict[str, Any]) -> None:
    """Every step as the fused variant's plan launches it: one fused_step for both directions."""
    i64 = np.int64
    grid = (-(-lay.batch // TILE), -(-lay.units // TILE), lay.dirs)
    kind = 1 if lay.mode == "lstm" else 2
    for s in range(lay.steps):
        backend.launch(source, "CudnnRNNV3__fused_step__float32", grid, (256,), (
            buf["gx"], buf["gh"], buf["params"], buf["work"], buf["lengths"], i64(s), i64(lay.steps),
            i64(lay.batch), i64(lay.units), i64(lay.units), i64(lay.gates), i64(kind), i64(0), i64(0), i64(0),
            i64(lay.layer_w), i64(lay.bofs), i64(0), i64(lay.hs_ofs), i64(lay.cs_ofs), i64(lay.pl_size),
            i64(lay.pl_size)))


def gemm_steps(backend: Any, source: Any, lay: Layout, buf: dict[str, Any]) -> None:
    """Every step as the GEMM steps' plan launches it: per direction h·Rᵀ by cuBLAS, then the step
    kernel (the plan's direction loop, each direction its own slot of gx and gh here)."""
    i64 = np.int64
    B, H, G = lay.batch, lay.units, lay.width
    for s in range(lay.steps):
        for d in range(lay.dirs):
            t = s + d * (lay.steps - 1 - 2 * s)
            pl = d * lay.pl_size
            backend.gemm(buf["work"], buf["params"], buf[f"gh_{d}"], B, G, H, False, True, 0,
                         pl + lay.hs_ofs + (t + d) * B * H, d * lay.layer_w, 0)
            common = (buf[f"gx_{d}"], buf[f"gh_{d}"], buf["params"], buf["work"], buf["lengths"], i64(t), i64(d),
                      i64(B), i64(H))
            if lay.mode == "lstm":
                backend.launch(source, "CudnnRNNV3__lstm_step__float32", (B,), (row_threads(lay),), (
                    *common, i64(H), i64(0), i64(lay.bofs + d * 2 * G), i64(pl), i64(pl + lay.hs_ofs),
                    i64(pl + lay.cs_ofs), i64(pl + lay.pl_size)))
            else:
                backend.launch(source, "CudnnRNNV3__gru_step__float32", (B,), (row_threads(lay),), (
                    *common, i64(lay.bofs + d * 2 * G), i64(pl), i64(pl + lay.hs_ofs)))


def fused_grads(backend: Any, source: Any, lay: Layout, buf: dict[str, Any]) -> None:
    """The backward as the fused variant's plan launches it: steps + 1 launches of fused_<mode>_grad,
    each adding the previous step's dG·R to dh and forming this step's dG, both directions."""
    i64 = np.int64
    grid = (max(-(-lay.batch // TILE), 3), -(-lay.units // TILE), lay.dirs)
    for s in range(lay.steps + 1):
        head = (buf["dy"], buf["work"], buf["lengths"], buf["dgw"])
        sizes = (i64(s), i64(lay.steps), i64(lay.batch), i64(lay.units), i64(lay.dirs), i64(0), i64(lay.layer_w))
        if lay.mode == "lstm":
            backend.launch(source, "CudnnRNNBackpropV3__fused_lstm_grad__float32", grid, (256,), (
                *head, buf["dh"], buf["dc"], buf["params"], *sizes, i64(0), i64(lay.cs_ofs), i64(lay.pl_size)))
        else:
            backend.launch(source, "CudnnRNNBackpropV3__fused_gru_grad__float32", grid, (256,), (
                *head, buf["dgr"], buf["dh"], buf["params"], *sizes, i64(0), i64(lay.hs_ofs), i64(lay.pl_size)))


def gemm_grads(backend: Any, source: Any, lay: Layout, buf: dict[str, Any]) -> None:
    """The backward as the GEMM steps' plan launches it: per step and direction the step gradient
    kernel, then dh += dG·R by cuBLAS (beta 1)."""
    i64 = np.int64
    B, H, G, T = lay.batch, lay.units, lay.width, lay.steps
    for s in range(T):
        for d in range(lay.dirs):
            t = (T - 1 - s) * (1 - d) + s * d
            pl = d * lay.pl_size
            if lay.mode == "lstm":
                backend.launch(source, "CudnnRNNBackpropV3__lstm_grad_step__float32", (B,), (row_threads(lay),), (
                    buf["dy"], buf["dy"], buf["work"], buf["lengths"], buf["dgw"], buf["dh"], buf["dc"], i64(t),
                    i64(d), i64(B), i64(H), i64(H), i64(lay.dirs), i64(0), i64(pl), i64(pl + lay.cs_ofs), i64(T)))
            else:
                backend.launch(source, "CudnnRNNBackpropV3__gru_grad_step__float32", (B,), (row_threads(lay),), (
                    buf["dy"], buf["work"], buf["lengths"], buf["dgw"], buf["dgr"], buf["dh"], i64(t), i64(d),
                    i64(B), i64(H), i64(lay.dirs), i64(pl), i64(pl + lay.hs_ofs), i64(T)))
            side = buf["dgw"] if lay.mode == "lstm" else buf["dgr"]
            backend.gemm(side, buf["params"], buf["dh"], B, H, G, False, False, 1, (d * T + t) * B * G,
                         d * lay.layer_w, d * B * H)


def timed(cp: Any, run: Any, repeats: int) -> tuple[float, str]:
    """Median ms of run() captured once into a CUDA graph on a stream of its own (run once eagerly
    first: cuBLAS's first call on a handle must come outside a capture), or, where the capture
    fails (no cuBLAS through ctypes: CuPy's binding refuses a capture), of run() launched eagerly,
    with why."""
    run()
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        try:
            run()
        except Exception as exc:  # noqa: BLE001 -- reported in the row, timed eagerly instead
            try:
                stream.end_capture()
            except Exception:  # noqa: BLE001 -- the capture is already invalid
                pass
            eager = cp.cuda.get_current_stream()
            return median_ms(cp, eager, lambda _: run(), repeats, 1), f" (eager: no capture, {type(exc).__name__})"
        graph = stream.end_capture()
    return median_ms(cp, stream, lambda _: graph.launch(stream), repeats, 1), ""


def measure(cp: Any, backend: Any, modules: dict[str, Any], lay: Layout, repeats: int) -> list[str]:
    """A row for the forward and one for the backward (`modules`: the ops' generated modules): both
    forms from the same start, what they compute compared, then each timed."""
    start = host_buffers(lay)
    depth = lay.gates * lay.units
    rows = []
    for part, forms, results in (
            ("forward", {"fused": fused_steps, "GEMM steps": gemm_steps}, ("h",)),
            ("backward", {"fused": fused_grads, "GEMM steps": gemm_grads}, ("dh", "dG"))):
        source = modules[part]._KERNELS
        switch = modules[part]._PLAN.params["fused_max_depth"]  # (the op's own where a member overrides it)
        plan = "fused" if depth <= switch else "GEMM steps"
        states, times, notes = {}, {}, {}
        for name, form in forms.items():
            buf = device_buffers(cp, lay, start)
            form(backend, source, lay, buf)  # from the same start: the results must agree
            cp.cuda.get_current_stream().synchronize()
            if part == "forward":
                states[name] = [cp.asnumpy(buf["work"]).reshape(lay.dirs, lay.pl_size)[:, lay.hs_ofs:lay.cs_ofs]]
            else:
                states[name] = [cp.asnumpy(buf["dh"]), cp.asnumpy(buf["dgw"])]
            buf = device_buffers(cp, lay, start)
            times[name], notes[name] = timed(cp, lambda f=form, b=buf, src=source: f(backend, src, lay, b), repeats)
        diffs = ", ".join(f"{label} {float(np.abs(a - b).max()):.1e}" for label, a, b in
                          zip(results, states["fused"], states["GEMM steps"], strict=True))
        faster = min(times, key=lambda k: times[k])
        per_step = {k: v * 1e3 / lay.steps for k, v in times.items()}
        rows.append(
            f"{part:<8} {lay.mode:<4} D={lay.dirs} B={lay.batch:<4} H={lay.units:<4} depth {depth:>4} "
            f"({'≤' if depth <= switch else '>'} fused_max_depth {switch}: plan takes {plan:<10}) "
            f"fused {per_step['fused']:8.2f} "
            f"µs/step{notes['fused']}, GEMM steps {per_step['GEMM steps']:8.2f} µs/step{notes['GEMM steps']}, "
            f"fused / GEMM {times['fused'] / times['GEMM steps']:.2f}; faster: {faster}"
            f"{'' if faster == plan else '  <-- the switch is wrong here'}; max |difference| {diffs}")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="CudnnRNNV3's fused step against GEMM steps on a GPU")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--dirs", type=int, nargs="+", choices=(1, 2), default=[1, 2],
                        help="direction counts to time (the switch may differ: one launch serves both)")
    parser.add_argument("--markdown", type=Path, default=None, help="also write the results here")
    ns = parser.parse_args(argv)
    cp = cupy_or_reason("bench_fused_step.py")
    if cp is None:
        return 2
    from codegen.runtime.scope import Scope
    from generated.rnn import cudnn_rnn_backprop_v3, cudnn_rnn_v3

    backend = Scope("cuda").backend
    modules = {"forward": cudnn_rnn_v3, "backward": cudnn_rnn_backprop_v3}
    limit = min(m._PLAN.params["persistent_max_batch"] for m in modules.values())
    assert all(batch > limit for _, batch, _ in SIZES), f"a size within the persistent variant's batch ≤ {limit}"
    name = cp.cuda.runtime.getDeviceProperties(0)["name"]
    lines = [f"CudnnRNNV3 / BackpropV3 steps, D directions, T={ns.steps}, float32, CUDA graphs, medians of "
             f"{ns.repeats}; GPU: {name.decode() if isinstance(name, bytes) else name}, CuPy {cp.__version__}"]
    for (mode, batch, units), dirs in ((size, dirs) for dirs in ns.dirs for size in SIZES):
        for row in measure(cp, backend, modules, Layout(mode, batch, units, ns.steps, dirs), ns.repeats):
            lines.append(row)
            print(row, flush=True)
    if ns.markdown is not None:
        ns.markdown.write_text("## Fused recurrent step (bench/bench_fused_step.py)\n\n```\n" + "\n".join(lines)
                               + "\n```\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
