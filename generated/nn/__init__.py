# generated from specs/ by opgen — do not edit (opgen 0.1.0)
"""Ops of the nn group: BiasAdd, BiasAddGrad, FusedBatchNormGradV3, FusedBatchNormV3."""
