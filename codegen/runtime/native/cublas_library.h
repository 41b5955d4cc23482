// cuBLAS reached with dlopen (libcublas.so.13, then .12; or a library a front-end names: the
// stand-in in tests): the functions cuda_api.h lists, looked up once. A library that cannot be
// loaded or lacks a function is a reason, kept, that says what to install.
#ifndef OPGEN_CUBLAS_LIBRARY_H
#define OPGEN_CUBLAS_LIBRARY_H

#include <dlfcn.h>

#include <string>

#include "cuda_api.h"

namespace opgen_native {

struct Cublas {
  void* lib = nullptr;
#define OPGEN_CUBLAS_POINTER(name, ret, params) ret(*name) params = nullptr;
  OPGEN_CUBLAS_FUNCTIONS(OPGEN_CUBLAS_POINTER)
#undef OPGEN_CUBLAS_POINTER
};

constexpr const char* kDefaultCublas[] = {"libcublas.so.13", "libcublas.so.12"};

// Loads `path` (nullptr: the default sonames in turn); nullptr with `why` set where it cannot.
inline Cublas* load_cublas(const char* path, std::string* why) {
  void* lib = nullptr;
  std::string tried;
  for (const char* name : kDefaultCublas) {
    const char* candidate = path ? path : name;
    lib = dlopen(candidate, RTLD_NOW | RTLD_LOCAL);
    if (lib != nullptr || path != nullptr) {
      if (lib == nullptr) tried = std::string(candidate) + " (" + dlerror() + ")";
      break;
    }
    tried += (tried.empty() ? "" : ", ") + std::string(name);
  }
  if (lib == nullptr) {
    *why = "cuBLAS cannot be loaded (" + tried + "): install cuBLAS 12 or 13 (the CUDA toolkit's, or NVIDIA's "
           "cublas wheel) for the native cuda path's GEMM steps";
    return nullptr;
  }
  Cublas* c = new Cublas();
  c->lib = lib;
#define OPGEN_CUBLAS_LOOKUP(name, ret, params)                                          \
  c->name = reinterpret_cast<ret(*) params>(dlsym(lib, #name));                       \
  if (c->name == nullptr) {                                                           \
    *why = "the cuBLAS library has no " #name ": install cuBLAS 12 or 13";            \
    delete c;                                                                         \
    return nullptr;                                                                   \
  }
  OPGEN_CUBLAS_FUNCTIONS(OPGEN_CUBLAS_LOOKUP)
#undef OPGEN_CUBLAS_LOOKUP
  return c;
}

}  // namespace opgen_native

#endif  // OPGEN_CUBLAS_LIBRARY_H
