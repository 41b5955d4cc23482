"""Names: one function for each name the compiler derives (DESIGN.md, pipeline rule 6)."""

from __future__ import annotations

import re

# Acronym runs stay together: CudnnRNNV3 → cudnn_rnn_v3, GRUBlockCell → gru_block_cell.
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b)|[A-Z]?[a-z]+|[A-Z]+|\d+")


def snake_case(camel: str) -> str:
    """FusedBatchNormGradV3 → fused_batch_norm_grad_v3; CudnnRNNParamsSize → cudnn_rnn_params_size."""
    # a trailing version sticks to its V even after an acronym: CudnnRNNV3 → cudnn_rnn_v3
    words = _WORD.findall(re.sub(r"(?<=[A-Za-z])V(\d+)$", r"_V\1", camel))
    out: list[str] = []
    for word in words:
        # a version number sticks to the V before it: V3 → v3
        if word.isdigit() and out and out[-1] == "v":
            out[-1] += word
        else:
            out.append(word.lower())
    return "_".join(out)


def camel_case(snake: str) -> str:
    """data_format → DataFormat (type aliases for enum attrs)."""
    return "".join(part.capitalize() for part in snake.split("_"))


def kernel_symbol(op: str, kernel: str, specialization: tuple[str, ...]) -> str:
    """The extern "C" entry point of one kernel instantiation, the same on every backend:
    FusedBatchNormGradV3__channel_sums__float32."""
    return "__".join((op, kernel, *specialization))


def outputs_class(op: str) -> str:
    return f"{op}Outputs"
