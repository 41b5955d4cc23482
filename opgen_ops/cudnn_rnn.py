"""The CudnnRNN family's opaque params layout, and the host implementations of the three params
ops (CudnnRNNParamsSize, CudnnRNNCanonicalToParamsV2, CudnnRNNParamsToCanonicalV2) that the
generated wrappers call after their own argument checks.

The opaque layout (this project's own; OPS_REFERENCE §1 fixes only the canonical order) is the
canonical weights, then the canonical biases, each flattened row-major and concatenated in
cuDNN's (= PyTorch's) order. Per pseudo-layer p = l·D + d (layer-major, forward before backward),
with G gates (lstm 4: i f c o; gru 3: r u h; rnn_relu/rnn_tanh 1), H = num_units, Hh = num_proj
or H, in_l = input_size on layer 0 (0 with skip_input) and D·Hh above:

    weights of p:  W [G·H, in_l]   (W_0 … W_{G−1} stacked: gate g's rows are g·H … g·H + H − 1)
                   R [G·H, Hh]     (R_0 … R_{G−1} stacked)
                   P_proj [P, H]   (lstm with num_proj only)
    biases of p:   bW [G·H], then bR [G·H]

so the weights of every pseudo-layer come first (pseudo-layer after pseudo-layer), then the
biases of every pseudo-layer. A gate's W rows are contiguous, so the whole input projection of a
pseudo-layer is one GEMM against W, and its recurrent product one GEMM against R. The launch
plans of CudnnRNNV3 and CudnnRNNBackpropV3 compute the same offsets in their `let:`s; the tests
check that the two agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from codegen.runtime.arrays import array_module

GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


@dataclass(frozen=True)
class Region:
    """One canonical tensor inside the opaque params: its element offset and shape."""

    offset: int
    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        return int(np.prod(self.shape)) if self.shape else 1


@dataclass(frozen=True)
class ParamsLayout:
    weights: tuple[Region, ...]
    biases: tuple[Region, ...]
    size: int


def skip_input(input_mode: str, input_size: int, num_units: int) -> bool:
    """skip_input, or auto_select with input_size == num_units: layer 0 has no input matrices."""
    return input_mode == "skip_input" or (input_mode == "auto_select" and input_size == num_units)


def params_layout(rnn_mode: str, num_layers: int, num_units: int, input_size: int, direction: str = "unidirectional",
                  input_mode: str = "linear_input", num_proj: int = 0) -> ParamsLayout:
    """Where each canonical weight and bias lives in the opaque params (see the module doc)."""
    g = GATES[rnn_mode]
    dirs = 2 if direction == "bidirectional" else 1
    hh = num_proj if num_proj > 0 else num_units
    skip = skip_input(input_mode, input_size, num_units)
    weights: list[Region] = []
    offset = 0
    for layer in range(num_layers):
        for _ in range(dirs):
            width = input_size if layer == 0 else dirs * hh
            shapes = [] if (layer == 0 and skip) else [(num_units, width)] * g
            shapes += [(num_units, hh)] * g
            if num_proj > 0:
                shapes.append((num_proj, num_units))
            for shape in shapes:
                weights.append(Region(offset, shape))
                offset += shape[0] * shape[1]
    biases = []
    for _ in range(num_layers * dirs * 2 * g):
        biases.append(Region(offset, (num_units,)))
        offset += num_units
    return ParamsLayout(tuple(weights), tuple(biases), offset)


@dataclass(frozen=True)
class LayoutCounts:
    """How many canonical weights and biases a configuration has, and the params' element count,
    computed arithmetically: checked before any per-tensor object is built, so that a huge
    num_layers fails in microseconds instead of building millions of Regions."""

    weights: int
    biases: int
    size: int


def layout_counts(rnn_mode: str, num_layers: int, num_units: int, input_size: int, direction: str = "unidirectional",
                  input_mode: str = "linear_input", num_proj: int = 0) -> LayoutCounts:
    """The counts params_layout would give, in closed form (Python ints: no overflow)."""
    g = GATES[rnn_mode]
    dirs = 2 if direction == "bidirectional" else 1
    hh = num_proj if num_proj > 0 else num_units
    proj = 1 if num_proj > 0 else 0
    skip = skip_input(input_mode, input_size, num_units)
    first_weights = (0 if skip else g) + g + proj
    first_size = (0 if skip else g * num_units * input_size) + g * num_units * hh + proj * num_proj * num_units
    deeper_size = g * num_units * dirs * hh + g * num_units * hh + proj * num_proj * num_units
    weights = dirs * (first_weights + (num_layers - 1) * (2 * g + proj))
    biases = num_layers * dirs * 2 * g
    size = dirs * (first_size + (num_layers - 1) * deeper_size) + biases * num_units
    return LayoutCounts(weights, biases, size)


# ---------------------------------------------------------------------------------------------
# The host implementations the generated wrappers call (their arguments already checked for
# dtype and shape; the values of the scalar inputs are checked here).
# ---------------------------------------------------------------------------------------------
def _scalar(op: str, name: str, value: Any, minimum: int) -> int:
    number = int(value.item() if hasattr(value, "item") else value)
    if number < minimum:
        raise ValueError(f"{op}: {name}: expected a value >= {minimum}, got {number}")
    return number


def _sizes(op: str, num_layers: Any, num_units: Any, input_size: Any) -> tuple[int, int, int]:
    return (_scalar(op, "num_layers", num_layers, 1), _scalar(op, "num_units", num_units, 1),
            _scalar(op, "input_size", input_size, 0))


def _check_config(op: str, rnn_mode: str, input_mode: str, num_units: int, input_size: int, num_proj: int) -> None:
    if num_proj > 0 and rnn_mode != "lstm":
        raise ValueError(f"{op}: attr num_proj: a projection (num_proj = {num_proj}) needs rnn_mode 'lstm', "
                         f"got {rnn_mode!r}")
    if input_mode == "skip_input" and input_size != num_units:
        raise ValueError(f"{op}: attr input_mode: 'skip_input' needs input_size == num_units, got input_size = "
                         f"{input_size}, num_units = {num_units}")


class _Config:
    """A checked configuration: its sizes, its counts (arithmetic), and its layout on demand."""

    def __init__(self, op: str, num_layers: Any, num_units: Any, input_size: Any, rnn_mode: str, input_mode: str,
                 direction: str, num_proj: int) -> None:
        self.args = (rnn_mode, *_sizes(op, num_layers, num_units, input_size), direction, input_mode, num_proj)
        _check_config(op, rnn_mode, input_mode, self.args[2], self.args[3], num_proj)
        self.counts = layout_counts(*self.args)

    def layout(self) -> ParamsLayout:
        """Built only after the caller checked the counts against its inputs (bounded by their sizes)."""
        return params_layout(*self.args)


def params_size(op: str, backend: Any, *, num_layers: Any, num_units: Any, input_size: Any, t: str, s: str,
                rnn_mode: str, input_mode: str, direction: str, num_proj: int, **_unused: Any) -> tuple[Any]:
    """CudnnRNNParamsSize: the number of elements of the opaque params, as a [1] tensor of dtype s
    (the same for every t: the layout has no padding)."""
    size = _Config(op, num_layers, num_units, input_size, rnn_mode, input_mode, direction, num_proj).counts.size
    if np.iinfo(s).max < size:
        raise ValueError(f"{op}: attr s: {size} elements do not fit in {s}")
    return (backend.adopt(op, "params_size", np.array([size], dtype=s)),)


def _check_count(op: str, what: str, items: list[Any], expected: int, attr: str, attr_value: int) -> None:
    if attr_value not in (0, expected):
        raise ValueError(f"{op}: attr {attr}: this configuration has {expected} canonical {what}, got "
                         f"{attr} = {attr_value}")
    if len(items) != expected:
        raise ValueError(f"{op}: {what}: expected a list of {expected} tensors for this configuration, got "
                         f"{len(items)}")


def canonical_to_params(op: str, backend: Any, *, num_layers: Any, num_units: Any, input_size: Any,
                        weights: list[Any], biases: list[Any], num_params_weights: int, num_params_biases: int,
                        rnn_mode: str, input_mode: str, direction: str, num_proj: int, **_unused: Any) -> tuple[Any]:
    """CudnnRNNCanonicalToParamsV2: the canonical weights and biases, each checked against its
    shape in the layout, flattened into the opaque params (num_params_* of 0: the lists' lengths)."""
    config = _Config(op, num_layers, num_units, input_size, rnn_mode, input_mode, direction, num_proj)
    _check_count(op, "weights", weights, config.counts.weights, "num_params_weights", num_params_weights)
    _check_count(op, "biases", biases, config.counts.biases, "num_params_biases", num_params_biases)
    layout = config.layout()
    parts = []
    for what, items, regions in (("weights", weights, layout.weights), ("biases", biases, layout.biases)):
        for k, (item, region) in enumerate(zip(items, regions, strict=True)):
            if tuple(item.shape) != region.shape:
                raise ValueError(f"{op}: {what}[{k}]: expected shape {list(region.shape)}, got {list(item.shape)}")
            parts.append(item.reshape(-1))
    return (array_module(parts[0]).concatenate(parts),)


def params_to_canonical(op: str, backend: Any, *, num_layers: Any, num_units: Any, input_size: Any, params: Any,
                        num_params_weights: int, num_params_biases: int, rnn_mode: str, input_mode: str,
                        direction: str, num_proj: int, **_unused: Any) -> tuple[list[Any], list[Any]]:
    """CudnnRNNParamsToCanonicalV2: the opaque params cut into the canonical weights and biases
    (copies, so that changing one does not change the params)."""
    config = _Config(op, num_layers, num_units, input_size, rnn_mode, input_mode, direction, num_proj)
    counts = config.counts
    if params.shape[0] != counts.size:
        raise ValueError(f"{op}: params: expected shape [{counts.size}] (CudnnRNNParamsSize of this configuration), "
                         f"got {list(params.shape)}")
    for attr, value, expected in (("num_params_weights", num_params_weights, counts.weights),
                                  ("num_params_biases", num_params_biases, counts.biases)):
        if value != expected:
            raise ValueError(f"{op}: attr {attr}: this configuration has {expected} canonical tensors, got {value}")
    layout = config.layout()

    def cut(regions: tuple[Region, ...]) -> list[Any]:
        return [params[r.offset:r.offset + r.size].reshape(r.shape).copy() for r in regions]

    return cut(layout.weights), cut(layout.biases)


# ---------------------------------------------------------------------------------------------
# Fake outputs for the torch registration (a FakeBackend allocates; no data is read): the same
# configuration checks, the shapes from the layout.
# ---------------------------------------------------------------------------------------------
def params_size_fake(op: str, backend: Any, *, num_layers: Any, num_units: Any, input_size: Any, s: str,
                     rnn_mode: str, input_mode: str, direction: str, num_proj: int, **_unused: Any) -> tuple[Any]:
    _Config(op, num_layers, num_units, input_size, rnn_mode, input_mode, direction, num_proj)
    return (backend.empty([1], s),)


def canonical_to_params_fake(op: str, backend: Any, *, num_layers: Any, num_units: Any, input_size: Any,
                             weights: list[Any], biases: list[Any], num_params_weights: int, num_params_biases: int,
                             rnn_mode: str, input_mode: str, direction: str, num_proj: int,
                             **_unused: Any) -> tuple[Any]:
    config = _Config(op, num_layers, num_units, input_size, rnn_mode, input_mode, direction, num_proj)
    _check_count(op, "weights", weights, config.counts.weights, "num_params_weights", num_params_weights)
    _check_count(op, "biases", biases, config.counts.biases, "num_params_biases", num_params_biases)
    return (backend.empty([config.counts.size], _dtype_name(weights[0])),)


def params_to_canonical_fake(op: str, backend: Any, *, num_layers: Any, num_units: Any, input_size: Any,
                             params: Any, num_params_weights: int, num_params_biases: int, rnn_mode: str,
                             input_mode: str, direction: str, num_proj: int,
                             **_unused: Any) -> tuple[list[Any], list[Any]]:
    config = _Config(op, num_layers, num_units, input_size, rnn_mode, input_mode, direction, num_proj)
    layout = config.layout()
    dtype = _dtype_name(params)
    return ([backend.empty(list(r.shape), dtype) for r in layout.weights],
            [backend.empty(list(r.shape), dtype) for r in layout.biases])


def _dtype_name(value: Any) -> str:
    from codegen.runtime.checks import dtype_name

    return dtype_name(value)
