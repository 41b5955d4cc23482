"""Drop-in torch.nn modules on opgen's ops (issue 14): `LSTM`, `GRU` and `RNN` on
torch.ops.opgen.cudnn_rnn_v3, `BatchNorm2d` on torch.ops.opgen.fused_batch_norm_v3.

Each takes torch.nn's constructor arguments and has its parameter names, state_dict keys,
forward signature and outputs (PackedSequence and unbatched input included), so a model switches
by changing one import, and `load_state_dict` works both ways. Unlike torch.nn.LSTM/GRU/RNN,
which torch.compile runs outside the graph, these trace with no graph break.

The recurrent modules keep PyTorch's parameters as views into one flat tensor laid out as the
op's opaque params (each pseudo-layer's weight_ih, weight_hh[, weight_hr], then each one's
bias_ih, bias_hh: the layout of opgen_ops/cudnn_rnn.py; without bias, zeros that are no
parameter), as torch.nn does for cuDNN (`flatten_parameters`). An eager forward passes that
tensor to the op through `_FlatParams`, which hands the op's params gradient back to every
parameter as views, with no copy either way. Where the parameters no longer live there (compiled
or traced code, functional_call with other tensors, load_state_dict(assign=True), the dropout
path's per-layer calls), the params are built with torch.cat, with the same values and gradients.
cuDNN's gate order and GRU (linear before reset: r∘(W_hn·h + b_hn)) are PyTorch's, so the weights
need no reordering.

Dropout between layers runs the layers one op call each with torch's own dropout in between,
rather than through the op's seed attrs: attrs are constants in a compiled graph (one mask for
every step, or a recompile per seed), whereas torch's dropout draws from torch's generator on
every call. In eager mode on the CPU the masks are then those torch.nn.LSTM draws for the same
torch.manual_seed (padded input); packed input and compiled graphs draw different ones.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence

import generated.torch  # noqa: F401  (registers torch.ops.opgen.*; it reaches these modules lazily, not by import)

__all__ = ["GRU", "LSTM", "RNN", "BatchNorm2d"]

_GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}


def _check_int(module: str, name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{module}: {name}: expected an int >= {minimum}, got {value!r}")
    return value


class _FlatParams(torch.autograd.Function):
    """The module's flat tensor as the op's params: forward aliases it, backward gives each
    parameter (the inputs after it, in its order) its slice of the params gradient, as views.
    The parameters are saved so that changing one in place before backward raises autograd's
    error, as torch.nn.LSTM does, rather than differentiating with the new weights."""

    @staticmethod
    def forward(ctx: Any, flat: Tensor, *params: Tensor) -> Tensor:
        ctx.save_for_backward(*params)
        return flat.view_as(flat)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:
        params = ctx.saved_tensors  # unpacking checks their versions
        views: list[Tensor | None] = [None]
        offset = 0
        for param, needed in zip(params, ctx.needs_input_grad[1:], strict=True):
            views.append(grad.narrow(0, offset, param.numel()).view(param.shape) if needed else None)
            offset += param.numel()
        return tuple(views)


class _RNNBase(torch.nn.Module):
    """What LSTM, GRU and RNN share: torch.nn.RNNBase's parameters and forward, on CudnnRNNV3.
    Not a subclass of torch.nn.RNNBase on purpose: torch.compile breaks the graph at those."""

    _name = "RNN"

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int, bias: bool,
                 batch_first: bool, dropout: float, bidirectional: bool, proj_size: int,
                 device: Any, dtype: Any) -> None:
        super().__init__()
        name = self._name
        self.mode = mode
        self.input_size = _check_int(name, "input_size", input_size, 0)
        self.hidden_size = _check_int(name, "hidden_size", hidden_size, 1)
        self.num_layers = _check_int(name, "num_layers", num_layers, 1)
        self.proj_size = _check_int(name, "proj_size", proj_size, 0)
        if proj_size >= hidden_size:
            raise ValueError(f"{name}: proj_size: expected an int < hidden_size = {hidden_size}, got {proj_size}")
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1:
            raise ValueError(f"{name}: dropout: expected a number in [0, 1], got {dropout!r}")
        if dropout > 0 and num_layers == 1:
            warnings.warn(f"{name}: dropout={dropout} and num_layers=1: dropout acts between layers only, so it "
                          f"does nothing here", UserWarning, stacklevel=3)
        self.bias = bool(bias)
        self.batch_first = bool(batch_first)
        self.dropout = float(dropout)
        self.bidirectional = bool(bidirectional)
        dirs = 2 if bidirectional else 1
        gate_rows = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        factory = {"device": device, "dtype": dtype}
        # per layer, the parameter names of each direction: weights (opaque-layout order), biases
        self._layer_names: list[list[tuple[list[str], list[str]]]] = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else real_hidden * dirs
            directions = []
            for direction in range(dirs):
                sfx = f"l{layer}" + ("_reverse" if direction == 1 else "")
                shapes: dict[str, tuple[int, ...]] = {f"weight_ih_{sfx}": (gate_rows, layer_input),
                                                      f"weight_hh_{sfx}": (gate_rows, real_hidden)}
                if bias:
                    shapes.update({f"bias_ih_{sfx}": (gate_rows,), f"bias_hh_{sfx}": (gate_rows,)})
                if proj_size > 0:
                    shapes[f"weight_hr_{sfx}"] = (proj_size, hidden_size)
                for pname, shape in shapes.items():  # torch.nn's registration order
                    self.register_parameter(pname, torch.nn.Parameter(torch.empty(shape, **factory)))
                weights = [f"weight_ih_{sfx}", f"weight_hh_{sfx}"] + ([f"weight_hr_{sfx}"] if proj_size > 0 else [])
                biases = [f"bias_ih_{sfx}", f"bias_hh_{sfx}"] if bias else []
                directions.append((weights, biases))
            self._layer_names.append(directions)
        self._flat: Tensor | None = None  # the op's opaque params, the parameters' storage
        self.flatten_parameters()
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """torch.nn's initialisation: every parameter uniform in ±1/√hidden_size."""
        bound = 1.0 / math.sqrt(self.hidden_size)
        for weight in self.parameters():
            torch.nn.init.uniform_(weight, -bound, bound)

    def flatten_parameters(self) -> None:
        """Moves the parameters into one flat tensor, the op's opaque params, unless they are there
        already (a no-op in compiled code): each forward then passes it without a copy."""
        if torch.compiler.is_compiling():
            return
        params = self._opaque_tensors(0, self.num_layers)
        first = params[0]
        if any(type(p) is not torch.nn.Parameter or p.layout != torch.strided or p.dtype != first.dtype
               or p.device != first.device for p in params):
            return  # forward builds the params with torch.cat
        if self._flat_is_live(params):
            return
        flat = torch.zeros(sum(p.numel() for p in params) + self._zero_bias_numel(0, self.num_layers),
                           dtype=first.dtype, device=first.device)
        offset = 0
        with torch.no_grad():
            for param in params:
                view = flat.narrow(0, offset, param.numel()).view(param.shape)
                view.copy_(param)
                param.data = view  # the same Parameter (optimizers hold it), its own version counter
                offset += param.numel()
        self._flat = flat

    def _flat_is_live(self, params: list[Tensor]) -> bool:
        """Whether params (as forward finds them) are contiguous at their offsets in the flat tensor."""
        flat = self._flat
        if flat is None:
            return False
        try:
            address, itemsize, offset = flat.data_ptr(), flat.element_size(), 0
            for param in params:
                if (param.data_ptr() != address + offset * itemsize or param.dtype != flat.dtype
                        or param.device != flat.device or not param.is_contiguous()):
                    return False
                offset += param.numel()
        except (RuntimeError, NotImplementedError):  # tensors without storage: functorch's, fake, subclasses
            return False
        return offset + self._zero_bias_numel(0, self.num_layers) == flat.numel()

    def _apply(self, fn: Any, recurse: bool = True) -> Any:
        """.to(), .double(), .cuda(), …: the parameters get new storage, then a new flat tensor."""
        module = super()._apply(fn, recurse)
        self.flatten_parameters()
        return module

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickling and deepcopy copy the parameters apart (Parameter.__deepcopy__ clones): re-flatten."""
        super().__setstate__({"_flat": None, **state})
        self.flatten_parameters()

    @property
    def _flat_weights_names(self) -> list[str]:
        return [n for layer in self._layer_names for w, b in layer for n in w[:2] + b + w[2:]]

    @property
    def all_weights(self) -> list[list[torch.nn.Parameter]]:
        return [[getattr(self, n) for n in w[:2] + b + w[2:]] for layer in self._layer_names for w, b in layer]

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            text += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        for key, default in (("bias", True), ("batch_first", False), ("dropout", 0.0), ("bidirectional", False)):
            if getattr(self, key) != default:
                text += f", {key}={getattr(self, key)}"
        return text

    # -- forward -----------------------------------------------------------------------------
    def _opaque_tensors(self, first: int, last: int) -> list[Tensor]:
        """The parameters of layers first … last − 1 in the opaque params' order: their weights, then
        their biases, as forward finds them (functional_call substitutes its own)."""
        weights: list[Tensor] = []
        biases: list[Tensor] = []
        for layer in self._layer_names[first:last]:
            for weight_names, bias_names in layer:
                weights += [getattr(self, n) for n in weight_names]
                biases += [getattr(self, n) for n in bias_names]
        return weights + biases

    def _zero_bias_numel(self, first: int, last: int) -> int:
        """Without bias, the op's biases of layers first … last − 1 are zeros (no parameters, as torch.nn has none)."""
        dirs = 2 if self.bidirectional else 1
        return 0 if self.bias else (last - first) * dirs * 2 * _GATES[self.mode] * self.hidden_size

    def _params(self, first: int, last: int, like: Tensor) -> Tensor:
        """The opaque params of layers first … last − 1: the flat tensor where it holds the parameters
        (all layers, eager), else the parameters joined with torch.cat."""
        tensors = self._opaque_tensors(first, last)
        if (not torch.compiler.is_compiling() and not torch.jit.is_tracing()
                and not torch._C._are_functorch_transforms_active() and first == 0 and last == self.num_layers
                and self._flat is not None and like.dtype == self._flat.dtype and like.device == self._flat.device
                and self._flat_is_live(tensors)):
            if torch.is_grad_enabled() and any(t.requires_grad for t in tensors):
                return _FlatParams.apply(self._flat, *tensors)
            return self._flat
        pieces = [t.reshape(-1) for t in tensors]
        if not self.bias:
            pieces.append(like.new_zeros(self._zero_bias_numel(first, last)))
        return torch.cat(pieces)

    def _state_shapes(self, batch: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        dirs = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * dirs, batch, real_hidden), (self.num_layers * dirs, batch, self.hidden_size)

    def _check_state(self, arg: str, state: Tensor, expected: tuple[int, ...], batched: bool) -> Tensor:
        if not isinstance(state, Tensor):
            raise TypeError(f"{self._name}: {arg}: expected a Tensor, got {type(state).__name__}")
        want = expected if batched else (expected[0], expected[2])
        if tuple(state.shape) != want:
            kind = "" if batched else " (unbatched input: no batch dimension)"
            raise ValueError(f"{self._name}: {arg}: expected shape {list(want)}{kind}, got {list(state.shape)}")
        return state if batched else state.unsqueeze(1)

    def _run(self, input: Tensor | PackedSequence, hx: Tensor | None,
             cx: Tensor | None) -> tuple[Tensor | PackedSequence, Tensor, Tensor]:
        """output, h_n, c_n (c_n for lstm only) as torch.nn returns them."""
        name = self._name
        packed = input if isinstance(input, PackedSequence) else None
        if packed is not None:
            x, lengths_cpu = pad_packed_sequence(packed)  # time major, in the caller's batch order
            batched = True
            lengths = lengths_cpu.to(device=x.device, dtype=torch.int32)
        else:
            if not isinstance(input, Tensor):
                raise TypeError(f"{name}: input: expected a Tensor or a PackedSequence, got {type(input).__name__}")
            if input.dim() not in (2, 3):
                raise ValueError(f"{name}: input: expected a 3-D (batched) or 2-D (unbatched) tensor, got "
                                 f"{input.dim()}-D of shape {list(input.shape)}")
            batched = input.dim() == 3
            # the op runs time major: its own time-major copy of the input then costs no transpose
            x = input.transpose(0, 1) if batched and self.batch_first else input
            x = x if batched else x.unsqueeze(1)
            lengths = torch.full((x.shape[1],), x.shape[0], dtype=torch.int32, device=x.device)
        if x.shape[-1] != self.input_size:
            raise ValueError(f"{name}: input: expected the last dimension to be input_size = {self.input_size}, "
                             f"got shape {list(x.shape)}")
        h_shape, c_shape = self._state_shapes(x.shape[1])
        h0 = x.new_zeros(h_shape) if hx is None else self._check_state("hx", hx, h_shape, batched)
        if self.mode == "lstm":
            c0 = x.new_zeros(c_shape) if cx is None else self._check_state("cx", cx, c_shape, batched)
        else:
            c0 = x.new_zeros(0)  # the op ignores input_c outside lstm
        output, h_n, c_n = self._layers(x, h0, c0, lengths)
        if packed is not None:
            order = packed.sorted_indices
            padded = output if order is None else output.index_select(1, order)
            sorted_lengths = lengths_cpu if order is None else lengths_cpu[order.cpu()]
            data = pack_padded_sequence(padded, sorted_lengths).data
            return PackedSequence(data, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices), h_n, c_n
        if not batched:
            return output.squeeze(1), h_n.squeeze(1), c_n.squeeze(1) if self.mode == "lstm" else c_n
        return (output.transpose(0, 1) if self.batch_first else output), h_n, c_n

    def _layers(self, x: Tensor, h0: Tensor, c0: Tensor, lengths: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """Every layer in one op call, or with dropout while training, layer by layer with torch's
        dropout between (see the module doc)."""
        attrs = {"rnn_mode": self.mode, "direction": "bidirectional" if self.bidirectional else "unidirectional",
                 "num_proj": self.proj_size, "is_training": torch.is_grad_enabled()}
        if not (self.training and self.dropout > 0 and self.num_layers > 1):
            out = torch.ops.opgen.cudnn_rnn_v3(x, h0, c0, self._params(0, self.num_layers, x), lengths, **attrs)
            return out[0], out[1], out[2]
        dirs = 2 if self.bidirectional else 1
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            states = slice(layer * dirs, (layer + 1) * dirs)
            c_in = c0[states] if self.mode == "lstm" else c0
            out = torch.ops.opgen.cudnn_rnn_v3(x, h0[states], c_in, self._params(layer, layer + 1, x), lengths,
                                               **attrs)
            x = out[0] if layer == self.num_layers - 1 else F.dropout(out[0], self.dropout, training=True)
            h_n.append(out[1])
            c_n.append(out[2])
        return x, torch.cat(h_n), torch.cat(c_n)


class LSTM(_RNNBase):
    """torch.nn.LSTM on CudnnRNNV3 (rnn_mode lstm): the same arguments, parameters, state_dict
    keys and outputs, `output, (h_n, c_n)`; proj_size > 0 is the op's num_proj."""

    _name = "LSTM"

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device: Any = None, dtype: Any = None) -> None:
        super().__init__("lstm", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device, dtype)

    def forward(self, input: Tensor | PackedSequence,
                hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor | PackedSequence, tuple[Tensor, Tensor]]:
        if hx is not None and not (isinstance(hx, tuple) and len(hx) == 2):
            raise TypeError(f"LSTM: hx: expected a tuple (h_0, c_0) of two tensors, got {type(hx).__name__}")
        output, h_n, c_n = self._run(input, *(hx if hx is not None else (None, None)))
        return output, (h_n, c_n)


class GRU(_RNNBase):
    """torch.nn.GRU on CudnnRNNV3 (rnn_mode gru, whose candidate gate is PyTorch's
    n = tanh(W_in·x + b_in + r∘(W_hn·h + b_hn))): `output, h_n`."""

    _name = "GRU"

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__("gru", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         0, device, dtype)

    def forward(self, input: Tensor | PackedSequence,
                hx: Tensor | None = None) -> tuple[Tensor | PackedSequence, Tensor]:
        output, h_n, _ = self._run(input, hx, None)
        return output, h_n


class RNN(_RNNBase):
    """torch.nn.RNN (nonlinearity 'tanh' or 'relu') on CudnnRNNV3 (rnn_tanh, rnn_relu): `output, h_n`."""

    _name = "RNN"

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh",
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device: Any = None, dtype: Any = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNN: nonlinearity: expected 'tanh' or 'relu', got {nonlinearity!r}")
        self.nonlinearity = nonlinearity
        super().__init__(f"rnn_{nonlinearity}", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, 0, device, dtype)

    def forward(self, input: Tensor | PackedSequence,
                hx: Tensor | None = None) -> tuple[Tensor | PackedSequence, Tensor]:
        output, h_n, _ = self._run(input, hx, None)
        return output, h_n


class BatchNorm2d(torch.nn.Module):
    """torch.nn.BatchNorm2d on FusedBatchNormV3 (NCHW): the same arguments, parameters (weight,
    bias; bias=False: a weight only), buffers (running_mean, running_var, num_batches_tracked)
    and running-statistics updates: running = (1 − momentum)·running + momentum·batch statistic,
    the variance unbiased (the op's batch_variance), momentum=None a cumulative average.
    Activations float16, bfloat16 or float32; parameters and statistics float32 (the op's types)."""

    _version = 2  # torch.nn's: state_dicts without num_batches_tracked load as in torch.nn

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__()
        self.num_features = _check_int("BatchNorm2d", "num_features", num_features, 1)
        if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not eps >= 0:
            raise ValueError(f"BatchNorm2d: eps: expected a number >= 0, got {eps!r}")
        if momentum is not None and (isinstance(momentum, bool) or not isinstance(momentum, (int, float))
                                     or not 0 <= momentum <= 1):
            raise ValueError(f"BatchNorm2d: momentum: expected a number in [0, 1] or None, got {momentum!r}")
        self.eps = float(eps)
        self.momentum = None if momentum is None else float(momentum)
        self.affine = bool(affine)
        self.track_running_stats = bool(track_running_stats)
        factory = {"device": device, "dtype": dtype}
        self.weight: torch.nn.Parameter | None
        self.bias: torch.nn.Parameter | None
        self.register_parameter("weight", torch.nn.Parameter(torch.empty(num_features, **factory)) if affine else None)
        self.register_parameter("bias", torch.nn.Parameter(torch.empty(num_features, **factory))
                                if affine and bias else None)
        self.running_mean: Tensor | None
        self.running_var: Tensor | None
        self.num_batches_tracked: Tensor | None
        if track_running_stats:
            self.register_buffer("running_mean", torch.zeros(num_features, **factory))
            self.register_buffer("running_var", torch.ones(num_features, **factory))
            self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.running_mean is not None and self.running_var is not None and self.num_batches_tracked is not None:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.weight is not None:
            torch.nn.init.ones_(self.weight)
        if self.bias is not None:
            torch.nn.init.zeros_(self.bias)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")

    def _load_from_state_dict(self, state_dict: Any, prefix: str, local_metadata: Any, strict: bool,
                              missing_keys: Any, unexpected_keys: Any, error_msgs: Any) -> None:
        version = local_metadata.get("version", None)
        key = prefix + "num_batches_tracked"
        if (version is None or version < 2) and self.track_running_stats and key not in state_dict:
            state_dict[key] = torch.tensor(0, dtype=torch.long, device=self.running_mean.device  # type: ignore[union-attr]
                                           if self.running_mean is not None else None)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def forward(self, input: Tensor) -> Tensor:
        if not isinstance(input, Tensor) or input.dim() != 4:
            got = f"{input.dim()}-D of shape {list(input.shape)}" if isinstance(input, Tensor) else type(input).__name__
            raise ValueError(f"BatchNorm2d: input: expected a 4-D tensor [N, C, H, W], got {got}")
        if input.shape[1] != self.num_features:
            raise ValueError(f"BatchNorm2d: input: expected C = num_features = {self.num_features} channels "
                             f"(dimension 1), got shape {list(input.shape)}")
        channels = self.num_features
        scale = self.weight if self.weight is not None else input.new_ones(channels, dtype=torch.float32)
        offset = self.bias if self.bias is not None else input.new_zeros(channels, dtype=torch.float32)
        running_mean, running_var = self.running_mean, self.running_var
        if not self.training and running_mean is not None and running_var is not None:
            return torch.ops.opgen.fused_batch_norm_v3(input, scale, offset, running_mean, running_var,
                                                       epsilon=self.eps, data_format="NCHW", is_training=False)[0]
        if input.shape[0] * input.shape[2] * input.shape[3] == 1:
            raise ValueError(f"BatchNorm2d: input: expected more than 1 value per channel when training, got "
                             f"shape {list(input.shape)}")
        update = self.training and running_mean is not None and running_var is not None
        # a float momentum is the op's exponential_avg_factor; None (1/count, which changes every
        # step) is applied below with torch ops, so a compiled graph does not hold a stale constant
        factor = self.momentum if update and self.momentum is not None else 1.0
        mean = running_mean if update and running_mean is not None else input.new_zeros(channels, dtype=torch.float32)
        var = running_var if update and running_var is not None else input.new_ones(channels, dtype=torch.float32)
        out = torch.ops.opgen.fused_batch_norm_v3(input, scale, offset, mean, var, epsilon=self.eps,
                                                  exponential_avg_factor=factor, data_format="NCHW",
                                                  is_training=True)
        if update and running_mean is not None and running_var is not None and self.num_batches_tracked is not None:
            with torch.no_grad():
                self.num_batches_tracked.add_(1)
                if self.momentum is None:  # w·batch + (1 − w)·running, as torch.nn (lerp's form: NaN for inf)
                    weight = 1.0 / self.num_batches_tracked
                    running_mean.copy_(out[1] * weight + running_mean * (1 - weight))
                    running_var.copy_(out[2] * weight + running_var * (1 - weight))
                else:
                    running_mean.copy_(out[1])
                    running_var.copy_(out[2])
        return out[0]
