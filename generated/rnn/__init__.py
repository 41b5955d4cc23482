# generated from specs/ by opgen — do not edit (opgen 0.1.0)
"""Ops of the rnn group: CudnnRNNBackpropV3, CudnnRNNCanonicalToParamsV2, CudnnRNNParamsSize, CudnnRNNParamsToCanonicalV2, CudnnRNNV3, DmlRnn, GRUBlockCell, GRUBlockCellGrad."""
