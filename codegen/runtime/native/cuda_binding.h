// An op's kernels bound on one device (run_plan_cuda.cpp's opgen_native_cuda_bind makes them): its
// module, each symbol of the recorder's table as a function with its launch bound, its recordings.
#ifndef OPGEN_CUDA_BINDING_H
#define OPGEN_CUDA_BINDING_H

#include <string>
#include <vector>

#include "cuda_api.h"
#include "cuda_recordings.h"

namespace opgen_native {

// One op's kernels on one device: its module, a function and launch bound per symbol of the
// recorder's table (nullptr: not in the module, refused when a launch names it), its recordings.
struct Binding {
  CUcontext ctx;
  CUmodule module;
  size_t image_hash;
  std::vector<std::string> symbols;
  std::vector<CUfunction> functions;
  std::vector<int> bounds;
  BindingRecordings recordings;
};

}  // namespace opgen_native

#endif  // OPGEN_CUDA_BINDING_H
