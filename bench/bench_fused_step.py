#!/usr/bin/env python3
"""CudnnRNNV3's three step forms (its launch variants) against each other, on a GPU: the thresholds
of specs/rnn/cudnn_rnn.family.yaml measured.

The GPU's launch plan takes the persistent variant (`persistent_layer`: every step of a layer, both
directions, in one launch, a block per 4 batch rows and direction) where gates·units·h_size ≤
persistent_max_weights and batch ≤ persistent_max_batch; else the fused variant (`fused_step`: per
time step one launch for both directions, each block a 32×32 tile of h·Rᵀ through
opgen::matmul_tile, then that tile's gates) up to fused_depth = gates·max(units, h_size) =
fused_max_depth; above it the GEMM steps (per time step one strided-batched cuBLAS h·Rᵀ for both
directions and one step kernel over both). The thresholds are the family's params, read from each
op's `_PLAN.params`. This measures them, per pass (a bidirectional layer's T forward steps, and
CudnnRNNBackpropV3's T backward steps) and per direction count (`--dirs`: D = 1 and D = 2; every
form runs the directions in one launch, but D = 2 doubles the work of each): float32, all lengths T,
each form runs the generated kernels directly on the same buffers, captured once into a CUDA graph
(as the op's replay runs them) and timed by CUDA events (medians over repeats). Sizes with batch >
persistent_max_batch time the fused form against the GEMM steps on both sides of fused_max_depth;
sizes with a smaller batch time the persistent form against both, on both sides of
persistent_max_weights. What the forms compute (the h states; the gradients dG and dh) is compared
with the GEMM steps' (max |difference|) before timing, so a wrong launch shows.

    python bench/bench_fused_step.py [--repeats 20] [--steps 20] [--dirs 1 2] [--markdown FILE]
    python bench/bench_fused_step.py --quick    # three small sizes, 2 steps, 1 repeat: the plumbing

Each row says which form the plan takes and which was faster ("<-- the switch is wrong here" where
they differ): the figures a threshold is set from (bench/RESULTS.md).

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
# fused_max_depth: the fused form against the GEMM steps
SIZES = [("lstm", 128, 16), ("lstm", 128, 32), ("lstm", 128, 40), ("lstm", 128, 64), ("lstm", 512, 32),
         ("lstm", 512, 64), ("lstm", 128, 128), ("gru", 128, 42), ("gru", 128, 48), ("gru", 512, 42),
         ("gru", 128, 85)]
# batches within persistent_max_batch, gates·units² either side of persistent_max_weights (4096: lstm 32
# units, gru 36): the persistent form against the other two
PERSISTENT_SIZES = [("lstm", 32, 16), ("lstm", 32, 32), ("lstm", 64, 32), ("lstm", 32, 40), ("lstm", 64, 64),
                    ("gru", 32, 36), ("gru", 64, 42)]
# --quick: one size per form the plan takes (persistent, fused, GEMM steps), small
QUICK_SIZES = [("lstm", 8, 8), ("gru", 65, 16), ("lstm", 65, 33)]


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
    """Every form's: gx and gh hold a slot per direction."""
    buf = {k: cp.asarray(host[k]) for k in ("params", "work", "lengths", "dy", "dh", "dc")}
    buf["dgw"] = cp.asarray(np.zeros(lay.dirs * lay.steps * lay.batch * lay.width, np.float32))
    buf["dgr"] = cp.asarray(np.zeros(lay.dirs * lay.steps * lay.batch * lay.width, np.float32))
    buf["gx"] = cp.asarray(host["gx"].ravel())
    buf["gh"] = cp.asarray(np.zeros(lay.dirs * lay.batch * lay.width, np.float32))
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


def persistent_steps(backend: Any, source: Any, lay: Layout, buf: dict[str, Any]) -> None:
    """Every step as the persistent variant's plan launches it: one persistent_layer, every direction."""
    i64 = np.int64
    kind = 1 if lay.mode == "lstm" else 2
    backend.launch(source, "CudnnRNNV3__persistent_layer__float32", (-(-lay.batch // 4), lay.dirs), (256,), (
        buf["gx"], buf["gh"], buf["params"], buf["work"], buf["lengths"], i64(lay.steps), i64(lay.batch),
        i64(lay.units), i64(lay.gates), i64(kind), i64(0), i64(0), i64(lay.layer_w), i64(lay.bofs), i64(0),
        i64(lay.hs_ofs), i64(lay.cs_ofs), i64(lay.pl_size)))


def gemm_steps(backend: Any, source: Any, lay: Layout, buf: dict[str, Any]) -> None:
    """Every step as the GEMM steps' plan launches it: h·Rᵀ of every direction by one strided-batched
    cuBLAS call (direction 1 at time T − 1 − s: its h slot T − s), then one step kernel over them."""
    i64 = np.int64
    B, H, G, T = lay.batch, lay.units, lay.width, lay.steps
    for s in range(T):
        backend.gemm(buf["work"], buf["params"], buf["gh"], B, G, H, False, True, 0, lay.hs_ofs + s * B * H, 0, 0,
                     lay.dirs, lay.pl_size + (T - 2 * s) * B * H, lay.layer_w, B * G)
        common = (buf["gx"], buf["gh"], buf["params"], buf["work"], buf["lengths"], i64(s), i64(T), i64(B), i64(H))
        if lay.mode == "lstm":
            backend.launch(source, "CudnnRNNV3__lstm_step__float32", (B, lay.dirs), (row_threads(lay),), (
                *common, i64(H), i64(0), i64(lay.bofs), i64(0), i64(lay.hs_ofs), i64(lay.cs_ofs), i64(lay.pl_size),
                i64(lay.pl_size)))
        else:
            backend.launch(source, "CudnnRNNV3__gru_step__float32", (B, lay.dirs), (row_threads(lay),), (
                *common, i64(lay.bofs), i64(0), i64(lay.hs_ofs), i64(lay.pl_size)))


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


def persistent_grads(backend: Any, source: Any, lay: Layout, buf: dict[str, Any]) -> None:
    """The backward as the persistent variant's plan launches it: one persistent_<mode>_grad, every
    direction."""
    i64 = np.int64
    grid, sizes = (-(-lay.batch // 4), lay.dirs), (i64(lay.steps), i64(lay.batch), i64(lay.units), i64(lay.dirs))
    if lay.mode == "lstm":
        backend.launch(source, "CudnnRNNBackpropV3__persistent_lstm_grad__float32", grid, (256,), (
            buf["dy"], buf["work"], buf["lengths"], buf["dgw"], buf["dh"], buf["dc"], buf["dy"], buf["params"],
            *sizes, i64(0), i64(lay.layer_w), i64(0), i64(lay.cs_ofs), i64(lay.pl_size)))
    else:
        backend.launch(source, "CudnnRNNBackpropV3__persistent_gru_grad__float32", grid, (256,), (
            buf["dy"], buf["work"], buf["lengths"], buf["dgw"], buf["dgr"], buf["dh"], buf["params"], *sizes, i64(0),
            i64(lay.layer_w), i64(0), i64(lay.hs_ofs), i64(lay.pl_size)))


def gemm_grads(backend: Any, source: Any, lay: Layout, buf: dict[str, Any]) -> None:
    """The backward as the GEMM steps' plan launches it: per step one step gradient kernel over every
    direction, then dh += dG·R of every direction by one strided-batched cuBLAS call (beta 1)."""
    i64 = np.int64
    B, H, G, T = lay.batch, lay.units, lay.width, lay.steps
    for s in range(T):
        if lay.mode == "lstm":
            backend.launch(source, "CudnnRNNBackpropV3__lstm_grad_step__float32", (B, lay.dirs), (row_threads(lay),), (
                buf["dy"], buf["dy"], buf["work"], buf["lengths"], buf["dgw"], buf["dh"], buf["dc"], i64(s), i64(B),
                i64(H), i64(H), i64(lay.dirs), i64(0), i64(0), i64(lay.cs_ofs), i64(T), i64(lay.pl_size)))
        else:
            backend.launch(source, "CudnnRNNBackpropV3__gru_grad_step__float32", (B, lay.dirs), (row_threads(lay),), (
                buf["dy"], buf["work"], buf["lengths"], buf["dgw"], buf["dgr"], buf["dh"], i64(s), i64(B), i64(H),
                i64(lay.dirs), i64(0), i64(lay.hs_ofs), i64(T), i64(lay.pl_size)))
        side = buf["dgw"] if lay.mode == "lstm" else buf["dgr"]
        backend.gemm(side, buf["params"], buf["dh"], B, H, G, False, False, 1, (T - 1 - s) * B * G, 0, 0, lay.dirs,
                     (2 * s + 1) * B * G, lay.layer_w, B * H)


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


def plan_form(params: dict[str, int], lay: Layout) -> str:
    """The form the GPU's plan takes for this layer: the family's variant rule over its params
    (specs/rnn/cudnn_rnn.family.yaml; no projection here, so h_size = units)."""
    if lay.gates * lay.units * lay.units <= params["persistent_max_weights"] and \
            lay.batch <= params["persistent_max_batch"]:
        return "persistent"
    return "fused" if lay.gates * lay.units <= params["fused_max_depth"] else "GEMM steps"


def measure(cp: Any, backend: Any, modules: dict[str, Any], lay: Layout, repeats: int) -> list[str]:
    """A row for the forward and one for the backward (`modules`: the ops' generated modules): the
    forms (the persistent one where the batch is within persistent_max_batch) from the same start,
    what they compute compared with the GEMM steps', then each timed."""
    start = host_buffers(lay)
    depth = lay.gates * lay.units
    rows = []
    for part, forms, results in (
            ("forward", {"persistent": persistent_steps, "fused": fused_steps, "GEMM steps": gemm_steps}, ("h",)),
            ("backward", {"persistent": persistent_grads, "fused": fused_grads, "GEMM steps": gemm_grads},
             ("dh", "dG"))):
        source = modules[part]._KERNELS
        params = modules[part]._PLAN.params  # (the op's own where a member overrides a family param)
        if lay.batch > params["persistent_max_batch"]:
            forms.pop("persistent")
        plan = plan_form(params, lay)
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
        diffs = "; ".join(f"{name} vs GEMM steps: " + ", ".join(
            f"{label} {float(np.abs(a - b).max()):.1e}" for label, a, b in
            zip(results, states[name], states["GEMM steps"], strict=True)) for name in forms if name != "GEMM steps")
        faster = min(times, key=lambda k: times[k])
        per_step = {k: v * 1e3 / lay.steps for k, v in times.items()}
        ratio = {k: v / times["GEMM steps"] for k, v in times.items()}
        timings = ", ".join(f"{name} {per_step[name]:8.2f} µs/step{notes[name]} ({ratio[name]:.2f}× GEMM)"
                            for name in forms)
        rows.append(
            f"{part:<8} {lay.mode:<4} D={lay.dirs} B={lay.batch:<4} H={lay.units:<4} depth {depth:>4} "
            f"weights {lay.gates * lay.units * lay.units:>6} (plan takes {plan:<10}) {timings}; faster: {faster}"
            f"{'' if faster == plan else '  <-- the switch is wrong here'}; max |difference| {diffs}")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="CudnnRNNV3's fused step against GEMM steps on a GPU")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--dirs", type=int, nargs="+", choices=(1, 2), default=[1, 2],
                        help="direction counts to time (the switch may differ: one launch serves both)")
    parser.add_argument("--markdown", type=Path, default=None, help="also write the results here")
    parser.add_argument("--quick", action="store_true",
                        help="three small sizes (one per form the plan takes), 2 steps, 1 repeat: the plumbing")
    ns = parser.parse_args(argv)
    if ns.quick:
        ns.steps, ns.repeats = 2, 1
    cp = cupy_or_reason("bench_fused_step.py")
    if cp is None:
        return 2
    from codegen.runtime.scope import Scope
    from generated.rnn import cudnn_rnn_backprop_v3, cudnn_rnn_v3

    backend = Scope("cuda").backend
    modules = {"forward": cudnn_rnn_v3, "backward": cudnn_rnn_backprop_v3}
    limit = min(m._PLAN.params["persistent_max_batch"] for m in modules.values())
    assert all(batch > limit for _, batch, _ in SIZES), f"a size within the persistent variant's batch ≤ {limit}"
    assert all(batch <= limit for _, batch, _ in PERSISTENT_SIZES), f"a size past the persistent batch ≤ {limit}"
    name = cp.cuda.runtime.getDeviceProperties(0)["name"]
    params = ", ".join(f"{k} {v}" for k, v in modules["forward"]._PLAN.params.items())
    lines = [f"CudnnRNNV3 / BackpropV3 steps, D directions, T={ns.steps}, float32, CUDA graphs, medians of "
             f"{ns.repeats}; GPU: {name.decode() if isinstance(name, bytes) else name}, CuPy {cp.__version__}; "
             f"family params: {params}"]
    sizes = QUICK_SIZES if ns.quick else PERSISTENT_SIZES + SIZES
    for (mode, batch, units), dirs in ((size, dirs) for dirs in ns.dirs for size in sizes):
        for row in measure(cp, backend, modules, Layout(mode, batch, units, ns.steps, dirs), ns.repeats):
            lines.append(row)
            print(row, flush=True)
    if ns.markdown is not None:
        ns.markdown.write_text("## Recurrent step forms (bench/bench_fused_step.py)\n\n```\n" + "\n".join(lines)
                               + "\n```\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
