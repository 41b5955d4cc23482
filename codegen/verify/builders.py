"""opgen's own ops' parity cases, by hand: `@builder("Op")` registers a function of a NumPy
Generator returning the op's list of `Case` (codegen/verify/cases.py), used instead of the cases
derived from its spec (codegen/inputs.py). These take GPU sizes that reach every launch
configuration the specs can choose (every kernel, block-size class, grid of 1 and more, dtype, and
misaligned inputs; tests/test_parity_coverage.py holds them to it). They apply to the package
`generated` only; a project's own ops add cases in a cases file (codegen/verify/case_files.py)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from codegen.inputs import Case
from codegen.verify.cases import Builder, maybe_misaligned, misaligned

BUILDERS: dict[str, Builder] = {}


def builder(op_name: str) -> Callable[[Builder], Builder]:
    def register(fn: Builder) -> Builder:
        BUILDERS[op_name] = fn
        return fn
    return register


# ------------------------------------------------------------------------- batch norm --

BN_SHAPES = [  # (data_format, shape): ragged sizes; the larger ones split each channel's sum
    ("NHWC", (2, 3, 4, 5)),
    ("NCHW", (2, 5, 3, 4)),
    ("NHWC", (4, 20, 20, 33)),    # m = 1600: 2 splits of the channels-last reduction
    ("NCHW", (2, 3, 130, 131)),   # m = 34060: 2 splits of the channels-first reduction
    ("NDHWC", (2, 3, 4, 5, 6)),
    ("NCDHW", (1, 3, 2, 5, 7)),
    ("NHWC", (1, 1, 1, 1)),
    ("NCHW", (0, 3, 2, 2)),       # empty: no elements per channel
    ("NHWC", (2, 4, 5, 300)),     # m = 40 (64 threads a channel), C = 300; the gradient's grad_once: 512 threads
    ("NCHW", (1, 100, 2, 2)),     # C = 100, 400 elements: 128 threads a channel step and an element step
    ("NHWC", (2, 64, 64, 36)),    # 295 K elements: 8 splits on the GPU; the cpu plan's 64-thread blocks, 2 of them
    # (last, so the cases above keep their data and fingerprints) m = 2, 3, 8: grad_once's 64, 128, 256 threads
    ("NHWC", (1, 1, 2, 40)),
    ("NDHWC", (1, 1, 1, 3, 7)),
    ("NHWC", (2, 2, 2, 70)),
    ("NCHW", (1, 300, 5, 8)),     # m = 40, C = 300, three launches: 64 threads a channel, the channel step in 2 blocks
    ("NHWC", (1, 1, 385, 5)),     # m = 385, a row past grad_once: three launches, one tile of channels
]
BN_DTYPES = ("float32", "float16", "bfloat16")


def _channels(data_format: str, shape: tuple[int, ...]) -> int:
    return shape[1] if data_format.startswith("NC") else shape[-1]


def _bn_stats(rng: np.random.Generator, c: int) -> tuple[np.ndarray, ...]:
    scale = rng.uniform(0.5, 2, c).astype(np.float32)
    offset = rng.standard_normal(c).astype(np.float32)
    mean = rng.standard_normal(c).astype(np.float32)
    variance = rng.uniform(0.5, 2, c).astype(np.float32)
    return scale, offset, mean, variance


def _bn_cases() -> Iterator[tuple[str, tuple[int, ...], str, bool, bool, str]]:
    """(data_format, shape, dtype, is_training, misaligned, label) of every batch-norm case: each
    shape in each dtype, training and inference, half of them with misaligned activations (load4's
    scalar path; the other half its vector path where inner is a multiple of 4)."""
    for i, (data_format, shape) in enumerate(BN_SHAPES):
        for j, dtype in enumerate(BN_DTYPES):
            for is_training in (True, False):
                off = (i + j + is_training) % 2 == 1
                yield (data_format, shape, dtype, is_training, off,
                       f"{data_format} {list(shape)} {dtype} {'train' if is_training else 'infer'}"
                       f"{' misaligned' if off else ''}")


def _dtype(name: str) -> Any:
    from codegen.runtime.cpu import numpy_dtype

    return numpy_dtype(name)


@builder("FusedBatchNormV3")
def _bn_forward(rng: np.random.Generator) -> list[Case]:
    cases = []
    for data_format, shape, dtype, is_training, off, label in _bn_cases():
        c = _channels(data_format, shape)
        x = maybe_misaligned((rng.standard_normal(shape) * 2 + 0.5).astype(_dtype(dtype)), off)
        factor = 0.25 if shape == (2, 3, 4, 5) else 1.0
        cases.append(Case(label, (x, *_bn_stats(rng, c)),
                          {"epsilon": 1e-3, "data_format": data_format, "is_training": is_training,
                           "exponential_avg_factor": factor}))
    return cases


@builder("FusedBatchNormGradV3")
def _bn_grad(rng: np.random.Generator) -> list[Case]:
    cases = []
    for data_format, shape, dtype, is_training, off, label in _bn_cases():
        c = _channels(data_format, shape)
        x = (rng.standard_normal(shape) * 2 + 0.5).astype(_dtype(dtype))
        dy = rng.standard_normal(shape).astype(_dtype(dtype))
        scale, _, mean, variance = _bn_stats(rng, c)
        if is_training and x.size:  # the batch statistics the forward would have produced
            axes = tuple(i for i in range(x.ndim) if i != (1 if data_format.startswith("NC") else x.ndim - 1))
            mean = x.astype(np.float64).mean(axis=axes).astype(np.float32)
            variance = x.astype(np.float64).var(axis=axes).astype(np.float32)
        cases.append(Case(label, (maybe_misaligned(dy, off), maybe_misaligned(x, off), scale, mean, variance,
                                  np.zeros(0, np.float32)),
                          {"epsilon": 1e-3, "data_format": data_format, "is_training": is_training}))
    return cases


# ----------------------------------------------------------------------- norm and bias --
# Sizes that take every launch configuration of the GPU plan: the row kernels' blocks are
# max(32, min(1024, 32·ceildiv(D, 128))) threads (BiasAdd: at most 512), so D = 100, 200, 300, 1000,
# 2000 and 4100 (and 65536, 64 elements a thread) give 32, 64, 96, 256, 512 and 1024; more than
# 65536 rows make a block walk several; LayerNormGrad splits its column sums over more than 256 rows.
# Each kernel meets every dtype; some inputs are misaligned views. Small and edge cases come first
# (tests/test_torch_ops.py takes the first few of each op).

NORM_ROWS = [  # (lead, D, dtype, with gamma, with beta, misaligned)
    ((2, 3), 5, "float32", True, True, False),
    ((4,), 1, "bfloat16", False, False, False),       # D = 1
    ((3,), 24, "float16", True, False, True),
    ((0, 3), 7, "float32", True, True, False),        # no rows
    ((3,), 0, "bfloat16", True, True, False),         # rows of no elements
    ((7,), 100, "bfloat16", False, True, False),      # 32 threads
    ((5, 6), 200, "float16", True, True, True),       # 64
    ((17,), 300, "float32", False, False, False),     # 96 (class 128)
    ((4, 75), 1000, "bfloat16", True, True, True),    # 256; 300 rows: 2 splits of the column sums
    ((3,), 2000, "float16", True, False, False),      # 512
    ((1,), 4100, "float32", True, True, True),        # 1024, one block
    ((5,), 4100, "bfloat16", False, False, False),    # 1024
    ((8,), 65536, "float16", True, True, False),      # 1024 threads, 64 elements each
    ((70000,), 3, "float32", True, True, True),       # 65536 blocks of 1 or 2 rows; 128 splits
    ((9,), 1001, "float16", False, True, True),       # odd D
]


def _norm_label(lead: tuple[int, ...], d: int, dtype: str, *notes: str) -> str:
    return " ".join((f"[{', '.join(map(str, (*lead, d)))}] {dtype}", *(n for n in notes if n)))


def _norm_inputs(rng: np.random.Generator, lead: tuple[int, ...], d: int, dtype: str, gamma: bool, beta: bool
                 ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    x = (rng.standard_normal((*lead, d)) * 2 + 0.5).astype(_dtype(dtype))
    g = rng.uniform(0.5, 1.5, d).astype(_dtype(dtype)) if gamma else None
    b = rng.standard_normal(d).astype(_dtype(dtype)) if beta else None
    return x, g, b


@builder("LayerNorm")
def _layer_norm(rng: np.random.Generator) -> list[Case]:
    cases: list[Case] = []
    for lead, d, dtype, gamma, beta, off in NORM_ROWS:
        x, g, b = _norm_inputs(rng, lead, d, dtype, gamma, beta)
        args = (maybe_misaligned(x, off), g if g is None else maybe_misaligned(g, off), b)
        cases.append(Case(_norm_label(lead, d, dtype, "+gamma" * gamma, "+beta" * beta, "misaligned" * off),
                          args, {"epsilon": 1e-5} if len(cases) % 2 else {}))
    return cases


@builder("LayerNormGrad")
def _layer_norm_grad(rng: np.random.Generator) -> list[Case]:
    cases = []
    for lead, d, dtype, gamma, _, off in NORM_ROWS:
        x, g, _ = _norm_inputs(rng, lead, d, dtype, gamma, False)
        x64 = x.astype(np.float64)
        mean = x64.mean(axis=-1) if d else np.zeros(lead)
        rstd = 1 / np.sqrt((x64.var(axis=-1) if d else np.zeros(lead)) + 1e-5)
        dy = rng.standard_normal(x.shape).astype(x.dtype)
        args = (maybe_misaligned(dy, off), maybe_misaligned(x, off), mean.astype(np.float32),
                maybe_misaligned(rstd.astype(np.float32), off), g)
        cases.append(Case(_norm_label(lead, d, dtype, "+gamma" * gamma, "misaligned" * off), args, {}))
    return cases


SOFTMAX_SHAPES = [  # (shape, axis, dtype, misaligned): axis last takes the row kernels (blocks by N as
    # LayerNorm's by D), another axis the column kernels (256 threads a block, a thread a column)
    ((2, 5), -1, "float32", False),
    ((4, 3, 2), 1, "bfloat16", False),                # columns: 8 of them, one block
    ((1,), 0, "float16", False),                      # one element
    ((3, 0), -1, "float32", False),                   # empty rows
    ((6, 100), 1, "float16", True),                   # rows: 32 threads
    ((10, 200), -1, "bfloat16", False),               # 64
    ((7, 300), -1, "float32", True),                  # 96
    ((2, 3, 1000), 2, "float16", False),              # 256
    ((3, 2000), -1, "bfloat16", True),                # 512
    ((2, 4100), -1, "float32", False),                # 1024
    ((4, 65536), -1, "bfloat16", False),              # 1024, 64 elements a thread
    ((70000, 3), -1, "float16", True),                # more rows than blocks
    ((4, 1000, 70), 1, "float32", True),              # columns: 280 of 1000 elements, 2 blocks
    ((300, 5, 3), -3, "float16", False),              # columns: 15 of 300
    ((2, 1001, 300), -2, "bfloat16", True),           # columns: 600, odd N
]


def _softmax_input(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    x = rng.standard_normal(shape) * 3
    if x.size > 2 and x.shape[-1] > 1:
        x.flat[1] = -np.inf  # a -inf element of a row that has finite ones: 0
    return x.astype(_dtype(dtype))


@builder("Softmax")
def _softmax(rng: np.random.Generator) -> list[Case]:
    return [Case(f"{list(shape)} axis {axis} {dtype}{' misaligned' if off else ''}",
                 (maybe_misaligned(_softmax_input(rng, shape, dtype), off),), {"axis": axis})
            for shape, axis, dtype, off in SOFTMAX_SHAPES]


@builder("SoftmaxGrad")
def _softmax_grad(rng: np.random.Generator) -> list[Case]:
    cases = []
    for shape, axis, dtype, off in SOFTMAX_SHAPES:
        x = _softmax_input(rng, shape, dtype).astype(np.float64)
        e = np.exp(x - (x.max(axis=axis, keepdims=True) if x.size else 0))
        y = (e / e.sum(axis=axis, keepdims=True)).astype(_dtype(dtype))
        dy = rng.standard_normal(shape).astype(_dtype(dtype))
        cases.append(Case(f"{list(shape)} axis {axis} {dtype}{' misaligned' if off else ''}",
                          (maybe_misaligned(y, off), maybe_misaligned(dy, off)), {"axis": axis}))
    return cases


BIAS_SHAPES = [  # (data_format, shape, dtype, misaligned). BiasAdd's rows: a channel's inner elements
    # (NCHW with spatial dims) or C elements, max(32, min(512, 32·ceildiv(width, 128))) threads a
    # row. BiasAddGrad: NCHW sums a channel's runs (max(32, min(256, 32·ceildiv(inner, 128)))
    # threads, a fixed tree over them) over splits of N; otherwise tiles of min(256, 32·ceildiv(C,
    # 32)) columns over splits of 64 rows (at most 1024); its last step adds the splits.
    ("NHWC", (2, 3), "float32", False),
    ("NCHW", (2, 3, 4, 5), "float64", False),
    ("NCHW", (3, 2), "bfloat16", False),              # rank 2: rows of C
    ("NHWC", (0, 4, 3), "float16", False),            # empty
    ("NCHW", (1, 1, 100), "bfloat16", False),         # one row (channel), 32 threads, grids of 1
    ("NHWC", (3, 4, 50), "float64", True),            # C = 50: 64 threads a tile
    ("NHWC", (3, 200), "float16", False),             # 64 threads a row, 256 a tile
    ("NCHW", (5, 6, 7, 43), "float16", True),         # inner 301: 96 threads
    ("NCHW", (2, 6, 20, 20), "float64", False),       # inner 400: 128
    ("NHWC", (8, 100), "float32", True),              # C = 100: 128 threads a tile
    ("NHWC", (4, 7, 1000), "float32", False),         # rows of 1000: 256; C > 256: 4 tiles, 4 finish blocks
    ("NCHW", (3, 5, 40, 40), "float32", True),        # inner 1600: 512 threads; the 256-thread tree, 3 splits
    ("NCHW", (2, 300, 9, 20), "bfloat16", False),     # 300 channels of 180, 2 finish blocks
    ("NCHW", (9, 4100), "float32", True),             # rank 2, rows of 4100: 512 threads
    ("NCHW", (4, 3000, 20), "float64", False),        # C ≥ 2048: one split
    ("NHWC", (2, 3, 4, 5, 33), "bfloat16", True),     # rank 5
    ("NCDHW", (2, 3, 4, 5, 6), "float16", False),     # rank 5 NCHW (data_format NCHW)
    ("NHWC", (70000, 2), "float16", False),           # 70000 rows: 65536 blocks; 1024 splits of the sums
    ("NHWC", (2, 5, 7, 300), "bfloat16", False),      # 70 rows of 300 channels: 2 tiles of 256, 2 splits
]


def _bias_inputs(rng: np.random.Generator, data_format: str, shape: tuple[int, ...], dtype: str
                 ) -> tuple[str, np.ndarray, int]:
    fmt = "NCHW" if data_format.startswith("NC") else "NHWC"
    c = shape[1] if fmt == "NCHW" else shape[-1]
    return fmt, rng.standard_normal(shape).astype(_dtype(dtype)), c


@builder("BiasAdd")
def _bias_add(rng: np.random.Generator) -> list[Case]:
    cases = []
    for data_format, shape, dtype, off in BIAS_SHAPES:
        fmt, value, c = _bias_inputs(rng, data_format, shape, dtype)
        bias = rng.standard_normal(c).astype(value.dtype)
        cases.append(Case(f"{fmt} {list(shape)} {dtype}{' misaligned' if off else ''}",
                          (maybe_misaligned(value, off), maybe_misaligned(bias, off)), {"data_format": fmt}))
    return cases


@builder("BiasAddGrad")
def _bias_add_grad(rng: np.random.Generator) -> list[Case]:
    cases = []
    for data_format, shape, dtype, off in BIAS_SHAPES:
        fmt, value, _ = _bias_inputs(rng, data_format, shape, dtype)
        cases.append(Case(f"{fmt} {list(shape)} {dtype}{' misaligned' if off else ''}",
                          (maybe_misaligned(value, off),), {"data_format": fmt}))
    return cases


# -------------------------------------------------------------------------------- GRU --

# (batch, input, cell): the GPU's blocks are max(32, min(256, 32·ceildiv(cells, 128))) threads for
# batch·cell cells (the input gradient: batch·(input + cell)), a block per 1024 of them
GRU_SIZES = [(3, 5, 7), (1, 1, 1), (16, 33, 40), (2, 64, 128), (4, 10, 100), (2, 30, 60), (32, 20, 50)]


def _gru_inputs(rng: np.random.Generator, batch: int, inp: int, cell: int, dtype: str) -> tuple[np.ndarray, ...]:
    w_scale = 1 / math.sqrt(inp + cell)
    x = rng.standard_normal((batch, inp)).astype(dtype)
    h_prev = rng.uniform(-1, 1, (batch, cell)).astype(dtype)
    w_ru = (rng.standard_normal((inp + cell, 2 * cell)) * w_scale).astype(dtype)
    w_c = (rng.standard_normal((inp + cell, cell)) * w_scale).astype(dtype)
    b_ru = (rng.standard_normal(2 * cell) * 0.1).astype(dtype)
    b_c = (rng.standard_normal(cell) * 0.1).astype(dtype)
    return x, h_prev, w_ru, w_c, b_ru, b_c


def _gru_misaligned(k: int) -> bool:
    return k % 3 == 2  # a third of the cases: every input a misaligned view


@builder("GRUBlockCell")
def _gru(rng: np.random.Generator) -> list[Case]:
    cases: list[Case] = []
    for b, i, c in GRU_SIZES:
        for dtype in ("float32", "float16"):
            off = _gru_misaligned(len(cases))
            cases.append(Case(f"batch {b} input {i} cell {c} {dtype}{' misaligned' if off else ''}",
                              tuple(maybe_misaligned(a, off) for a in _gru_inputs(rng, b, i, c, dtype)), {}))
    return cases


@builder("GRUBlockCellGrad")
def _gru_grad(rng: np.random.Generator) -> list[Case]:
    cases: list[Case] = []
    for b, i, c in GRU_SIZES:
        for dtype in ("float32", "float16"):
            x, h_prev, w_ru, w_c, b_ru, b_c = _gru_inputs(rng, b, i, c, dtype)
            f = {k: v.astype(np.float64) for k, v in zip(("x", "h", "w_ru", "w_c", "b_ru", "b_c"),
                                                         (x, h_prev, w_ru, w_c, b_ru, b_c), strict=True)}
            ru = 1 / (1 + np.exp(-(np.concatenate([f["x"], f["h"]], 1) @ f["w_ru"] + f["b_ru"])))
            r, u = ru[:, :c], ru[:, c:]
            cc = np.tanh(np.concatenate([f["x"], r * f["h"]], 1) @ f["w_c"] + f["b_c"])
            d_h = rng.standard_normal((b, c)).astype(dtype)
            off = _gru_misaligned(len(cases))
            inputs = (x, h_prev, w_ru, w_c, b_ru, b_c, r.astype(dtype), u.astype(dtype), cc.astype(dtype), d_h)
            cases.append(Case(f"batch {b} input {i} cell {c} {dtype}{' misaligned' if off else ''}",
                              tuple(maybe_misaligned(a, off) for a in inputs), {}))
    return cases


# ----------------------------------------------------------------------------- DmlRnn --

@builder("DmlRnn")
def _dml_rnn(rng: np.random.Generator) -> list[Case]:
    """Every direction, with and without the optional inputs, lengths including 0 and T, several
    activations with their parameters (each of the library's functions once)."""
    from generated import Activation

    names = [s.name for s in Activation.LIBRARY]
    cases = []
    for k, (direction, steps, batch, n_in, hidden, dtype) in enumerate([
            ("forward", 5, 4, 3, 8, "float32"), ("backward", 4, 3, 5, 7, "float32"),
            ("bidirectional", 6, 5, 4, 33, "float32"), ("bidirectional", 3, 2, 2, 600, "float32"),
            ("bidirectional", 4, 3, 5, 8, "float16"), ("forward", 1, 1, 1, 1, "float32"),
            ("forward", 3, 8, 4, 50, "float16"), ("backward", 2, 4, 3, 70, "float32"),  # 400 and 280 cells
            # the GPU's persistent variant at its limits (hidden 256, a last block of 1 row of 4); the
            # fused variant above its batch limit (64) up to hidden 256 (tiles of 32 rows and units:
            # several rows, one and several units); the GEMM steps above hidden 256, one block and
            # several, each dtype
            ("bidirectional", 4, 9, 3, 256, "float32"), ("forward", 3, 70, 4, 16, "float16"),
            ("forward", 2, 65, 2, 1, "float32"), ("backward", 2, 100, 2, 2, "float32"),
            ("bidirectional", 2, 70, 3, 5, "float16"), ("bidirectional", 2, 66, 2, 40, "float32"),
            ("backward", 3, 1, 2, 300, "float32"), ("bidirectional", 3, 40, 2, 512, "float16"),
            ("forward", 2, 1, 2, 520, "float16")]):
        dirs = 2 if direction == "bidirectional" else 1
        scale = 0.8 / np.sqrt(n_in + hidden)
        args: tuple[np.ndarray, ...] = (rng.standard_normal((1, steps, batch, n_in)).astype(dtype),
                (rng.standard_normal((1, dirs, hidden, n_in)) * scale).astype(dtype),
                (rng.standard_normal((1, dirs, hidden, hidden)) * scale).astype(dtype))
        full = k % 2 == 0  # bias, hidden_init and lengths, or none of them
        kwargs: dict[str, Any] = {"direction": direction,
                                  "activations": [names[(2 * k + d) % len(names)] for d in range(dirs)]}
        if full:
            lengths = rng.integers(0, steps + 1, batch).astype(np.uint32)
            lengths[0] = steps
            kwargs |= {"bias": (rng.standard_normal((1, 1, dirs, 2 * hidden)) * 0.5).astype(dtype),
                       "hidden_init": rng.uniform(-1, 1, (1, dirs, batch, hidden)).astype(dtype),
                       "sequence_lengths": lengths.reshape(1, 1, 1, batch)}
        off = k % 3 == 1  # misaligned views of the inputs
        if off:
            args = tuple(misaligned(a) for a in args)
            kwargs = {name: misaligned(v) if isinstance(v, np.ndarray) else v for name, v in kwargs.items()}
        cases.append(Case(f"{direction} T{steps} B{batch} I{n_in} H{hidden} {dtype} "
                          f"{'+'.join(kwargs['activations'])}{' full' if full else ''}{' misaligned' if off else ''}",
                          args, kwargs))
    one, zero = np.ones((1, 1, 1, 1), np.float32), np.zeros((1, 1, 1, 1), np.float32)
    for name in names:  # each function with its defaults, through one step: output = f(input)
        x = rng.standard_normal((1, 1, 64, 1)).astype(np.float32) * 4
        cases.append(Case(f"activation {name}", (x, one, zero), {"activations": name}))
    return cases


# ------------------------------------------------------------------------- CudnnRNN --

CUDNN_CONFIGS = [  # (rnn_mode, direction, input_mode, layers, steps, batch, input, units, proj, time_major, dtype)
    ("lstm", "bidirectional", "linear_input", 2, 5, 4, 3, 8, 0, True, "float32"),
    ("lstm", "unidirectional", "skip_input", 3, 4, 3, 6, 6, 3, False, "float32"),
    ("gru", "bidirectional", "linear_input", 2, 6, 33, 5, 70, 0, False, "float32"),
    ("rnn_tanh", "bidirectional", "auto_select", 1, 3, 2, 4, 4, 0, True, "float64"),
    ("rnn_relu", "unidirectional", "linear_input", 2, 4, 3, 2, 5, 0, True, "float32"),
    ("gru", "unidirectional", "linear_input", 1, 1, 1, 1, 1, 0, True, "float16"),
    ("lstm", "bidirectional", "linear_input", 2, 7, 5, 8, 16, 4, True, "float16"),
    # The GPU's blocks: the cell kernels' (states, projection) max(32, min(256, 32·ceildiv(batch·units,
    # 128))) threads, a block per 256 cells; the sequence kernels' (layouts, skip input, outputs,
    # layers below) the same of steps·batch·max(input, dirs·h). These take the cell and sequence
    # kernels through every class, in every dtype each (`misaligned` below: some with misaligned
    # inputs); their recurrences run in the persistent or the fused variant (below).
    ("lstm", "unidirectional", "linear_input", 1, 2, 1, 4, 40, 0, True, "float64"),
    ("lstm", "bidirectional", "linear_input", 1, 2, 3, 5, 100, 50, False, "float64"),
    ("lstm", "unidirectional", "linear_input", 1, 2, 4, 6, 160, 20, True, "float32"),
    ("lstm", "unidirectional", "linear_input", 1, 2, 5, 3, 40, 16, True, "float16"),
    ("gru", "unidirectional", "linear_input", 1, 2, 1, 3, 40, 0, True, "float64"),
    ("gru", "bidirectional", "linear_input", 1, 2, 2, 3, 200, 0, False, "float32"),
    ("rnn_tanh", "unidirectional", "linear_input", 1, 2, 1, 3, 20, 0, True, "float16"),
    ("rnn_relu", "bidirectional", "linear_input", 1, 2, 3, 4, 50, 0, True, "float32"),
    ("rnn_tanh", "unidirectional", "linear_input", 2, 3, 2, 4, 100, 0, False, "float64"),
    ("rnn_relu", "unidirectional", "linear_input", 1, 2, 2, 4, 300, 0, True, "float16"),
    ("gru", "unidirectional", "skip_input", 1, 2, 4, 20, 20, 0, True, "float16"),
    ("rnn_relu", "unidirectional", "auto_select", 1, 3, 4, 30, 30, 0, False, "float32"),
    ("lstm", "bidirectional", "skip_input", 2, 2, 4, 32, 32, 0, True, "float64"),
    ("lstm", "unidirectional", "linear_input", 2, 2, 4, 5, 20, 0, True, "float32"),
    # The GPU plan's persistent variant (no projection, gates·units·h ≤ persistent_max_weights, batch ≤
    # persistent_max_batch: specs/rnn/cudnn_rnn.family.yaml's params, 4096 and 64 for these sizes) takes the
    # cases above that fit it, its fused variant the others (the cpu plan's step kernels run on the
    # cpu backend's side of each comparison); these take each mode's fused kernels through one
    # block and every dtype: batch 65, or one row with units past its limits (GRU 37-42, RNN 65-128).
    ("lstm", "unidirectional", "linear_input", 1, 2, 1, 3, 12, 4, True, "float32"),
    ("gru", "unidirectional", "linear_input", 1, 2, 65, 3, 20, 0, True, "float64"),
    ("gru", "unidirectional", "linear_input", 1, 2, 65, 3, 40, 0, False, "float16"),
    ("gru", "bidirectional", "linear_input", 1, 2, 65, 3, 100, 0, True, "float32"),
    ("gru", "unidirectional", "linear_input", 1, 2, 1, 3, 40, 0, True, "float16"),
    ("rnn_tanh", "unidirectional", "linear_input", 1, 2, 65, 3, 20, 0, True, "float32"),
    ("rnn_relu", "unidirectional", "linear_input", 1, 2, 65, 2, 50, 0, False, "float64"),
    ("rnn_tanh", "bidirectional", "linear_input", 1, 2, 65, 3, 100, 0, True, "float16"),
    ("rnn_relu", "unidirectional", "linear_input", 1, 2, 1, 3, 100, 0, True, "float64"),
    # and the persistent kernels of every mode over several blocks of 4 rows, in each dtype
    ("rnn_tanh", "unidirectional", "linear_input", 1, 2, 6, 3, 8, 0, True, "float32"),
    ("lstm", "bidirectional", "linear_input", 1, 3, 7, 3, 10, 0, True, "float16"),
    ("gru", "unidirectional", "linear_input", 1, 2, 6, 3, 36, 0, True, "float64"),
    ("gru", "bidirectional", "linear_input", 1, 2, 5, 3, 30, 0, False, "float32"),
    # the fused kernels (gates·max(units, h_size) ≤ fused_max_depth, 128 for these sizes, outside the
    # persistent limits: a projection, or batch > 64) over one and several tiles of 32 rows and of 32
    # units, in each dtype
    ("lstm", "bidirectional", "linear_input", 1, 2, 40, 3, 20, 5, True, "float32"),
    ("lstm", "unidirectional", "linear_input", 2, 3, 65, 4, 32, 0, False, "float16"),
    ("lstm", "bidirectional", "linear_input", 1, 2, 70, 3, 20, 0, True, "float64"),
    ("lstm", "bidirectional", "linear_input", 1, 2, 3, 3, 20, 12, True, "float64"),
    ("lstm", "unidirectional", "linear_input", 1, 2, 66, 3, 20, 0, True, "float32"),
    ("gru", "bidirectional", "linear_input", 1, 2, 66, 3, 40, 0, False, "float32"),
    ("lstm", "bidirectional", "skip_input", 2, 2, 66, 20, 20, 0, True, "float32"),  # gx's slot per direction
    ("lstm", "unidirectional", "linear_input", 1, 2, 1, 3, 130, 0, True, "float32"),
    # the GEMM steps (gates·max(units, h_size) > fused_max_depth: a cuBLAS product, then a step kernel, a block
    # per batch row) of every mode and dtype, one row and several; with a projection
    # proj_carry and proj_grad through each class of their batch·num_proj cells
    ("rnn_relu", "unidirectional", "linear_input", 1, 2, 1, 3, 520, 0, True, "float64"),
    ("rnn_tanh", "bidirectional", "linear_input", 1, 2, 2, 3, 520, 0, True, "float32"),
    ("rnn_tanh", "unidirectional", "linear_input", 1, 2, 3, 3, 520, 0, False, "float16"),
    ("gru", "unidirectional", "linear_input", 1, 2, 1, 3, 300, 0, True, "float16"),
    ("gru", "bidirectional", "linear_input", 1, 2, 2, 3, 300, 0, False, "float64"),
    ("gru", "unidirectional", "linear_input", 1, 2, 3, 3, 300, 0, True, "float32"),
    ("lstm", "unidirectional", "linear_input", 1, 2, 1, 3, 260, 0, True, "float32"),
    ("lstm", "bidirectional", "linear_input", 1, 2, 2, 3, 260, 0, True, "float16"),
    ("lstm", "unidirectional", "linear_input", 1, 2, 1, 3, 100, 700, True, "float64"),
    ("lstm", "unidirectional", "linear_input", 1, 2, 1, 3, 200, 330, False, "float16"),
    ("lstm", "bidirectional", "linear_input", 1, 2, 2, 3, 200, 330, True, "float32"),
    ("lstm", "unidirectional", "linear_input", 1, 2, 5, 3, 300, 220, True, "float64"),
]


def _cudnn_misaligned(config: tuple[Any, ...]) -> bool:
    return CUDNN_CONFIGS.index(config) % 3 == 1


def _cudnn_inputs(rng: np.random.Generator, config: tuple[Any, ...]) -> tuple[tuple[Any, ...], dict[str, Any], str]:
    """input, input_h, input_c, params, sequence_lengths, the attrs (dropout between layers) and a label."""
    from opgen_ops.cudnn_rnn import params_layout

    mode, direction, input_mode, layers, steps, batch, n_in, units, proj, time_major, dtype = config
    dirs = 2 if direction == "bidirectional" else 1
    size = params_layout(mode, layers, units, n_in, direction, input_mode, proj).size
    params = (rng.uniform(-1, 1, size) / np.sqrt(units)).astype(dtype)
    lead = (steps, batch) if time_major else (batch, steps)
    state = (layers * dirs, batch) if time_major else (batch, layers * dirs)
    c_in = rng.uniform(-1, 1, (*state, units)).astype(dtype) if mode == "lstm" else np.zeros(0, dtype)
    lengths = rng.integers(1, steps + 1, batch).astype(np.int32)
    attrs = {"rnn_mode": mode, "direction": direction, "input_mode": input_mode, "num_proj": proj,
             "time_major": time_major, "dropout": 0.3, "seed": 5, "seed2": 6}
    args = (rng.standard_normal((*lead, n_in)).astype(dtype), rng.uniform(-1, 1, (*state, proj or units)).astype(dtype),
            c_in, params, lengths)
    return args, attrs, f"{mode} {direction} {input_mode} L{layers} T{steps} B{batch} I{n_in} H{units} P{proj} " \
                        f"{'time' if time_major else 'batch'}-major {dtype}{' misaligned' * _cudnn_misaligned(config)}"


@builder("CudnnRNNV3")
def _cudnn_rnn(rng: np.random.Generator) -> list[Case]:
    cases = []
    for config in CUDNN_CONFIGS:
        args, attrs, label = _cudnn_inputs(rng, config)
        cases.append(Case(label, tuple(maybe_misaligned(a, _cudnn_misaligned(config)) for a in args), attrs))
    args, attrs, label = _cudnn_inputs(rng, CUDNN_CONFIGS[0])
    cases.append(Case(label + " inference", args, attrs | {"is_training": False}))
    return cases


@builder("CudnnRNNBackpropV3")
def _cudnn_rnn_backprop(rng: np.random.Generator) -> list[Case]:
    """The forward runs once on the cpu backend; both backends then get its outputs and reserve."""
    from generated import Scope, cudnn_rnn_v3

    cases = []
    for config in CUDNN_CONFIGS:
        args, attrs, label = _cudnn_inputs(rng, config)
        fw = cudnn_rnn_v3(*args, scope=Scope("cpu"), **attrs)
        grads = tuple(rng.standard_normal(a.shape).astype(a.dtype) for a in (fw.output, fw.output_h, fw.output_c))
        inputs = (*args, fw.output, fw.output_h, fw.output_c, *grads, fw.reserve_space, fw.host_reserved)
        if _cudnn_misaligned(config):
            inputs = tuple(maybe_misaligned(a, isinstance(a, np.ndarray)) for a in inputs)
        cases.append(Case(label, inputs, {k: v for k, v in attrs.items() if k != "is_training"}))
    return cases


def _cudnn_sizes(config: tuple[Any, ...]) -> tuple[tuple[int, int, int], dict[str, Any]]:
    mode, direction, input_mode, layers, _, _, n_in, units, proj, _, _ = config
    return (layers, units, n_in), {"rnn_mode": mode, "direction": direction, "input_mode": input_mode,
                                   "num_proj": proj}


def _cudnn_layout(config: tuple[Any, ...]) -> tuple[tuple[int, int, int], dict[str, Any], Any]:
    """The scalar inputs, the attrs and the params layout of a configuration."""
    from opgen_ops.cudnn_rnn import params_layout

    sizes, attrs = _cudnn_sizes(config)
    layout = params_layout(config[0], *sizes, config[1], config[2], config[8])
    return sizes, attrs, layout


@builder("CudnnRNNParamsSize")
def _cudnn_params_size(rng: np.random.Generator) -> list[Case]:
    return [Case(" ".join(map(str, config[:4])), _cudnn_sizes(config)[0],
                 _cudnn_sizes(config)[1] | {"t": config[-1], "s": "int64"}) for config in CUDNN_CONFIGS]


@builder("CudnnRNNParamsToCanonicalV2")
def _cudnn_params_to_canonical(rng: np.random.Generator) -> list[Case]:
    cases = []
    for config in CUDNN_CONFIGS:
        sizes, attrs, layout = _cudnn_layout(config)
        counts = {"num_params_weights": len(layout.weights), "num_params_biases": len(layout.biases)}
        params = rng.standard_normal(layout.size).astype(config[-1])
        cases.append(Case(" ".join(map(str, config[:4])), (*sizes, params), attrs | counts))
    return cases


@builder("CudnnRNNCanonicalToParamsV2")
def _cudnn_canonical_to_params(rng: np.random.Generator) -> list[Case]:
    cases = []
    for config in CUDNN_CONFIGS:
        sizes, attrs, layout = _cudnn_layout(config)
        tensors = [[rng.standard_normal(r.shape).astype(config[-1]) for r in regions]
                   for regions in (layout.weights, layout.biases)]
        cases.append(Case(" ".join(map(str, config[:4])), (*sizes, *tensors), attrs))
    return cases


# --------------------------------------------------------------------------- batching --
# One caller per call: it holds its own batch (the runtime path; concatenation and padding run on
# the device of the inputs).

BATCH_ATTRS = {"num_batch_threads": 1, "max_batch_size": 8, "batch_timeout_micros": 0, "grad_timeout_micros": 0,
               "allowed_batch_sizes": [4, 8], "shared_name": "gpu_parity"}


@builder("Batch")
def _batch(rng: np.random.Generator) -> list[Case]:
    features = rng.standard_normal((3, 5)).astype(np.float32)
    labels = rng.integers(0, 9, (3,)).astype(np.int64)
    # batch_index holds the call's new id: only its start/end columns are compared, through the
    # padded batched_tensors (3 rows padded to 4)
    return [Case("3 rows, padded to 4", ([features, labels],), dict(BATCH_ATTRS), fresh=("batch_index", "id"))]


@builder("Unbatch")
def _unbatch(rng: np.random.Generator) -> list[Case]:
    batched = rng.standard_normal((4, 6)).astype(np.float32)
    index = np.array([[9001, 0, 3]], np.int64)  # rows 0..2 are the call's own; row 3 is padding
    return [Case("3 of 4 rows", (batched, index, np.array(9001, np.int64)),
                 {"timeout_micros": 1_000_000, "shared_name": "gpu_parity"})]


@builder("UnbatchGrad")
def _unbatch_grad(rng: np.random.Generator) -> list[Case]:
    original = rng.standard_normal((4, 6)).astype(np.float32)
    grad = rng.standard_normal((3, 6)).astype(np.float32)
    index = np.array([[9002, 0, 3]], np.int64)
    return [Case("3 of 4 rows", (original, index, grad, np.array(9002, np.int64)), {"shared_name": "gpu_parity"})]
