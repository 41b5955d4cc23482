# generated from specs/ by opgen — do not edit (opgen 0.1.0)
"""Ops of the batching group: Batch, Unbatch, UnbatchGrad."""
