# generated from specs/ by opgen — do not edit (opgen 0.1.0)
"""Ops of the norm group: LayerNorm, LayerNormGrad, Softmax, SoftmaxGrad."""
