// libcuda reached with dlopen: the functions cuda_api.h lists, looked up by the names the driver
// exports, once per process (or again when a front-end names another library: the stand-in).
// A library that cannot be loaded or lacks a function is a reason, kept, that says what to install.
#ifndef OPGEN_CUDA_DRIVER_H
#define OPGEN_CUDA_DRIVER_H

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "cuda_api.h"

namespace opgen_native {

struct CudaDriver {
  void* lib = nullptr;
#define OPGEN_CUDA_POINTER(name, ret, params) ret(*name) params = nullptr;
  OPGEN_CUDA_FUNCTIONS(OPGEN_CUDA_POINTER)
#undef OPGEN_CUDA_POINTER

  // "CUDA_ERROR_INVALID_VALUE: invalid argument", as CuPy words a CUDADriverError.
  std::string describe(CUresult r) const {
    const char* name = nullptr;
    const char* text = nullptr;
    if (cuGetErrorName(r, &name) != CUDA_SUCCESS || name == nullptr) return "CUresult " + std::to_string(r);
    if (cuGetErrorString(r, &text) != CUDA_SUCCESS || text == nullptr) return name;
    return std::string(name) + ": " + text;
  }
};

// The library a default load opens: the driver's own soname (opgen_native_cuda_driver names another).
constexpr const char* kDefaultLibcuda = "libcuda.so.1";

// Loads `path` and initialises the driver; nullptr with `why` set where it cannot.
inline CudaDriver* load_cuda_driver(const char* path, std::string* why) {
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* e = dlerror();
    *why = std::string("the CUDA driver library ") + path + " cannot be loaded (" + (e ? e : "?") +
           "): install the NVIDIA driver, which provides libcuda (no CUDA toolkit is needed)";
    return nullptr;
  }
  CudaDriver* d = new CudaDriver();
  d->lib = lib;
#define OPGEN_CUDA_LOOKUP(name, ret, params)                                                                      \
  d->name = reinterpret_cast<ret(*) params>(dlsym(lib, #name));                                                 \
  if (d->name == nullptr) {                                                                                     \
    *why = std::string("the CUDA driver library ") + path + " has no " #name                                   \
           ": install an NVIDIA driver for CUDA 12 or newer";                                                   \
    delete d;                                                                                                   \
    return nullptr;                                                                                             \
  }
  OPGEN_CUDA_FUNCTIONS(OPGEN_CUDA_LOOKUP)
#undef OPGEN_CUDA_LOOKUP
  CUresult r = d->cuInit(0);
  if (r != CUDA_SUCCESS) {
    *why = std::string("the CUDA driver (") + path + ") failed to initialise: " + d->describe(r);
    delete d;
    return nullptr;
  }
  return d;
}

}  // namespace opgen_native

#endif  // OPGEN_CUDA_DRIVER_H
