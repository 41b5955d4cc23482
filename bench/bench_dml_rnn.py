#!/usr/bin/env python3
"""DmlRnn (issue 6): T=100, B=32, I=H=256, bidirectional, tanh, with biases, float32; equal and
variable sequence lengths.

* cpu backend, against ONNX Runtime's CPU RNN (the same computation: layout 0, sequence_lens) in
  the same run, medians over interleaved rounds so that load changes hit both sides alike; and,
  for context, the same math in NumPy (the same GEMMs, vectorised elementwise steps). Goal: within
  2x of ONNX Runtime.
* on a GPU (CuPy and a CUDA device present, or --gpu): the cuda backend against PyTorch's nn.RNN
  (cuDNN) on the same shapes (variable lengths through pack_padded_sequence), CUDA-event medians
  of one eager call each. Goal: within 1.5x, and faster than cuDNN with variable lengths.

    python bench/bench_dml_rnn.py [--cpu-only] [--gpu | --gpu-only] [--rounds 7] [--markdown bench/gpu-dml-rnn.md]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np

PROJECT = Path(__file__).resolve().parent.parent
if str(PROJECT) not in sys.path:
    sys.path.insert(0, str(PROJECT))

from common import machine, median_seconds  # noqa: E402 -- bench/ is the script folder

from generated import Scope, dml_rnn  # noqa: E402
from generated.rnn import dml_rnn as dml_module  # noqa: E402

T, B, N_IN, H, D = 100, 32, 256, 256, 2


def make_inputs(seed: int = 0, batch: int = B, hidden: int = H) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    scale = 1.0 / np.sqrt(N_IN + hidden)
    return {
        "input": rng.standard_normal((1, T, batch, N_IN)).astype(np.float32),
        "weight": (rng.standard_normal((1, D, hidden, N_IN)) * scale).astype(np.float32),
        "recurrence": (rng.standard_normal((1, D, hidden, hidden)) * scale).astype(np.float32),
        "bias": (rng.standard_normal((1, 1, D, 2 * hidden)) * 0.1).astype(np.float32),
    }


def variable_lengths(seed: int = 1) -> np.ndarray:
    """Lengths spread over 1 … T (mean about T/2), as a padded batch of real sequences has them."""
    return np.random.default_rng(seed).integers(1, T + 1, B).astype(np.uint32)


def onnx_session(hidden: int) -> Any:
    try:
        import onnxruntime as ort
        from onnx import TensorProto, helper
    except ImportError:
        return None
    f32 = TensorProto.FLOAT
    shapes = {"X": [T, B, N_IN], "W": [D, H, N_IN], "R": [D, H, H], "B": [D, 2 * H]}
    inputs = [helper.make_tensor_value_info(k, f32, v) for k, v in shapes.items()]
    inputs.append(helper.make_tensor_value_info("L", TensorProto.INT32, [B]))
    outputs = [helper.make_tensor_value_info("Y", f32, [T, D, B, H]),
               helper.make_tensor_value_info("Y_h", f32, [D, B, H])]
    node = helper.make_node("RNN", ["X", "W", "R", "B", "L"], ["Y", "Y_h"], hidden_size=hidden,
                            direction="bidirectional", activations=["Tanh", "Tanh"])
    model = helper.make_model(helper.make_graph([node], "rnn", inputs, outputs),
                              opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 8
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def numpy_rnn(args: dict[str, np.ndarray], lengths: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The same computation in NumPy: one input GEMM per direction, then per step a GEMM and
    vectorised bias + tanh + mask (NumPy's BLAS, as the cpu backend's GEMM steps)."""
    x = args["input"][0]
    seq = np.empty((T, D, B, H), np.float32)
    single = np.empty((1, D, B, H), np.float32)
    lens = np.full(B, T) if lengths is None else lengths.astype(np.int64)
    for d in range(D):
        proj = (x.reshape(T * B, N_IN) @ args["weight"][0, d].T).reshape(T, B, H)
        bias = args["bias"][0, 0, d, :H] + args["bias"][0, 0, d, H:]
        h = np.zeros((B, H), np.float32)
        for s in range(T):
            t = s if d == 0 else T - 1 - s
            live = (t < lens)[:, None]
            new = np.tanh(proj[t] + h @ args["recurrence"][0, d].T + bias)
            h = np.where(live, new, h)
            seq[t, d] = np.where(live, new, 0.0)
        single[0, d] = np.where((lens > 0)[:, None], h, 0.0)
    return seq, single


def interleaved(fns: dict[str, Any], rounds: int, repeats: int = 3) -> dict[str, float]:
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(rounds):
        for k, fn in fns.items():
            times[k].append(median_seconds(fn, repeats=repeats, warmup=1))
    return {k: statistics.median(v) for k, v in times.items()}


def bench_cpu(rounds: int) -> list[str]:
    scope = Scope("cpu")
    args = make_inputs()
    session = onnx_session(H)
    lines = [f"machine: {machine()}, NumPy {np.__version__}"]
    if session is None:
        lines.append("onnxruntime is not installed: no peer on the cpu (pip install -e '.[test]')")
    else:
        import onnxruntime

        lines.append(f"onnxruntime {onnxruntime.__version__} (CPUExecutionProvider, its default threads)")
    for label, lengths in (("equal lengths", None), ("variable lengths", variable_lengths())):
        kwargs = {} if lengths is None else {"sequence_lengths": lengths.reshape(1, 1, 1, B)}
        ours = dml_rnn(**args, **kwargs, direction="bidirectional", scope=scope)  # compiles, checks
        fns: dict[str, Any] = {
            "cpu backend": lambda kw=kwargs: dml_rnn(**args, **kw, direction="bidirectional", scope=scope),
            "numpy": lambda ln=lengths: numpy_rnn(args, ln),
        }
        ref = numpy_rnn(args, lengths)
        err = max(float(np.abs(np.asarray(ours.output_sequence) - ref[0]).max()),
                  float(np.abs(np.asarray(ours.output_single) - ref[1]).max()))
        if session is not None:
            feeds = {"X": args["input"][0], "W": args["weight"][0], "R": args["recurrence"][0],
                     "B": args["bias"][0, 0],
                     "L": (np.full(B, T) if lengths is None else lengths).astype(np.int32)}
            y, y_h = session.run(None, feeds)
            err = max(err, float(np.abs(np.asarray(ours.output_sequence) - y).max()),
                      float(np.abs(np.asarray(ours.output_single)[0] - y_h).max()))
            fns["onnxruntime"] = lambda f=feeds: session.run(None, f)
        t = interleaved(fns, rounds)
        row = f"{label:<17}: cpu backend {t['cpu backend'] * 1e3:7.2f} ms, numpy {t['numpy'] * 1e3:7.2f} ms"
        if "onnxruntime" in t:
            row += (f", onnxruntime {t['onnxruntime'] * 1e3:7.2f} ms, cpu backend / onnxruntime "
                    f"{t['cpu backend'] / t['onnxruntime']:.2f}")
        lines.append(row + f" (max |difference| {err:.1e})")
    return lines


def bench_gpu(repeats: int) -> list[str]:
    import cupy as cp
    from gpu_timing import median_ms, torch_cuda

    scope = Scope("cuda")
    host = make_inputs()
    args = {k: cp.asarray(v) for k, v in host.items()}
    torch = torch_cuda()
    stream = cp.cuda.get_current_stream()
    lines = [f"GPU: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, CuPy {cp.__version__}"]
    rnn = None
    if torch is None:
        lines.append("PyTorch with CUDA is not importable: no peer on the GPU")
    else:
        rnn = torch.nn.RNN(N_IN, H, nonlinearity="tanh", bidirectional=True).cuda()
        with torch.no_grad():  # the same weights: ours [1, D, H, N_IN] → torch's per direction
            for d, suffix in enumerate(("", "_reverse")):
                getattr(rnn, f"weight_ih_l0{suffix}").copy_(torch.from_numpy(host["weight"][0, d]))
                getattr(rnn, f"weight_hh_l0{suffix}").copy_(torch.from_numpy(host["recurrence"][0, d]))
                getattr(rnn, f"bias_ih_l0{suffix}").copy_(torch.from_numpy(host["bias"][0, 0, d, :H]))
                getattr(rnn, f"bias_hh_l0{suffix}").copy_(torch.from_numpy(host["bias"][0, 0, d, H:]))
        lines.append(f"PyTorch {torch.__version__}, cuDNN {torch.backends.cudnn.version()} (nn.RNN, no grad)")
    for label, lengths in (("equal lengths", None), ("variable lengths", variable_lengths())):
        kwargs = {} if lengths is None else {"sequence_lengths": cp.asarray(lengths.reshape(1, 1, 1, B))}

        def ours(_: int, kw: dict[str, Any] = kwargs) -> object:
            return dml_rnn(**args, **kw, direction="bidirectional", scope=scope)

        for _ in range(3):
            out = ours(0)
        ours_ms = median_ms(cp, stream, ours, repeats, 1)
        row = f"{label:<17}: cuda backend ({variant_ran()}) {ours_ms:7.3f} ms"
        if rnn is not None:
            x = torch.as_tensor(args["input"][0], device="cuda")

            def theirs(_: int, ln: np.ndarray | None = lengths, x: Any = x) -> object:
                with torch.no_grad():
                    if ln is None:
                        return rnn(x)
                    packed = torch.nn.utils.rnn.pack_padded_sequence(x, torch.from_numpy(ln.astype(np.int64)),
                                                                     enforce_sorted=False)
                    return rnn(packed)

            for _ in range(3):
                y = theirs(0)
            if lengths is None:
                ours_seq = torch.as_tensor(out.output_sequence, device="cuda")  # [T, D, B, H] → [T, B, D·H]
                check = float((ours_seq.permute(0, 2, 1, 3).reshape(T, B, D * H) - y[0]).abs().max())
                row += f" (max |ours − torch| {check:.1e})"
            torch_stream = cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)
            theirs_ms = median_ms(cp, torch_stream, theirs, repeats, 1)
            row += f", torch nn.RNN (cuDNN) {theirs_ms:7.3f} ms, ratio {ours_ms / theirs_ms:.2f}"
        lines.append(row)
    lines += variants_gpu(cp, scope, stream, repeats)
    return lines


#: the op's tunable parameters (specs/rnn/dml_rnn.yaml's params:), read from its plan, not restated
PARAMS = dml_module._PLAN.params
VARIANTS_HIDDEN = PARAMS["persistent_max_hidden"]  # the persistent variant's largest hidden_size
VARIANTS_BATCH = PARAMS["persistent_max_batch"]  # and batch_size


def variant_ran() -> str:
    """The launch variant of the last call (its plan's recording keeps it)."""
    latest = dml_module._PLAN.latest()
    return str(latest.variant) if latest is not None else "?"


def variants_gpu(cp: Any, scope: Scope, stream: Any, repeats: int) -> list[str]:
    """The GPU plan's two forms at nearly the same work, in the same process, at the persistent
    variant's largest hidden_size: its largest batch (one launch for every step) against one more
    (the fused variant: one launch per step for both directions, a tile of H·Rᵀ and its cells per
    block), per batch row. Each row names the variant the plan recorded."""
    from gpu_timing import median_ms

    lines = [f"T={T} I={N_IN} H={VARIANTS_HIDDEN} bidirectional tanh, float32: the variants at their limits"]
    per_row = {}
    last, over = VARIANTS_BATCH, VARIANTS_BATCH + 1
    for batch in (last, over):
        args = {k: cp.asarray(v) for k, v in make_inputs(2, batch, VARIANTS_HIDDEN).items()}

        def ours(_: int, a: dict[str, Any] = args) -> object:
            return dml_rnn(**a, direction="bidirectional", scope=scope)

        for _ in range(3):
            ours(0)
        ms = median_ms(cp, stream, ours, repeats, 1)
        per_row[batch] = ms / batch
        lines.append(f"B={batch} ({variant_ran()}): cuda backend {ms:7.3f} ms, {per_row[batch] * 1e3:6.2f} µs per "
                     f"batch row")
    lines.append(f"persistent / fused steps, per batch row: {per_row[last] / per_row[over]:.2f}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="DmlRnn against ONNX Runtime (cpu) and cuDNN (GPU)")
    parser.add_argument("--cpu-only", action="store_true")
    parser.add_argument("--gpu", action="store_true", help="fail if no GPU instead of skipping the GPU part")
    parser.add_argument("--gpu-only", action="store_true", help="the GPU part alone (implies --gpu)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--repeats", type=int, default=30, help="GPU timings per side")
    parser.add_argument("--markdown", type=Path, default=None, help="also write the results here")
    ns = parser.parse_args(argv)
    lines = [f"DmlRnn T={T} B={B} I={N_IN} H={H} bidirectional tanh, biases, float32"]
    if not ns.gpu_only:
        lines += bench_cpu(ns.rounds)
    status = 0
    if not ns.cpu_only:
        from codegen.runtime.scope import cuda_available

        ok, why = cuda_available()
        if ok:
            lines += bench_gpu(ns.repeats)
        else:
            lines.append(f"GPU part skipped: {why}")
            status = 1 if ns.gpu or ns.gpu_only else 0
    print("\n".join(lines))
    if ns.markdown is not None:
        ns.markdown.write_text("## DmlRnn (bench/bench_dml_rnn.py)\n\n```\n" + "\n".join(lines) + "\n```\n",
                               encoding="utf-8")
    return status


if __name__ == "__main__":
    sys.exit(main())
