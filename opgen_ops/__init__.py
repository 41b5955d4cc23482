"""Hand-written helpers that complete opgen's own generated ops (the `generated` package): the parts
of an op's math that TensorFlow leaves to its Python wrapper rather than the kernel (such as
GRUBlockCellGrad's weight gradients). A package of their own beside `generated/`, not inside the
`codegen` tool (the compiler and runtime do not depend on opgen's own ops) nor inside `generated/`
(`opgen generate` owns every file there).
They take NumPy or CuPy arrays and compute with the arrays' own module. `cudnn_rnn` holds the
CudnnRNN family's opaque params layout (`params_layout`) and the runtime functions of its three
params ops; `torch_nn` the drop-in torch.nn modules that `generated.torch` serves on first use."""

from opgen_ops.cudnn_rnn import params_layout
from opgen_ops.gru import gru_block_cell_weight_grads

__all__ = ["gru_block_cell_weight_grads", "params_layout"]
