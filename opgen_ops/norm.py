"""LayerNorm's gamma and beta gradients in torch.ops.opgen.layer_norm's backward.

LayerNormGrad always computes dgamma and dbeta (the gradients a gamma of ones and a beta of zeros
would get). torch's autograd wants no gradient (None) for an optional input the forward was given
as None, so the backward hands each one on only for a tensor the forward received.
"""

from __future__ import annotations

from typing import Any


def layer_norm_affine_grads(gamma: Any, beta: Any, dgamma: Any, dbeta: Any) -> tuple[Any, Any]:
    return (None if gamma is None else dgamma), (None if beta is None else dbeta)
