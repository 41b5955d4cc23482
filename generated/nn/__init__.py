# generated from specs/ by opgen — do not edit
"""Ops of the nn group: FusedBatchNormGradV3, FusedBatchNormV3."""
