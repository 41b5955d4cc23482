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
  std::string name;  // the library's file name, for messages
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
  std::string loaded = path ? path : tried.empty() ? kDefaultCublas[0] : kDefaultCublas[1];
  c->name = loaded.substr(loaded.rfind('/') + 1);
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

// A status as codegen/runtime/cublas_library.py's CublasError words it: "cuda backend:
// cublasSgemm_v2 returned CUBLAS_STATUS_NOT_SUPPORTED (15) (cuBLAS at libcublas.so.12)".
inline std::string cublas_failure(const Cublas& c, const char* function, int status) {
  const char* name = "status";
  switch (status) {
    case 1: name = "CUBLAS_STATUS_NOT_INITIALIZED"; break;
    case 3: name = "CUBLAS_STATUS_ALLOC_FAILED"; break;
    case 7: name = "CUBLAS_STATUS_INVALID_VALUE"; break;
    case 8: name = "CUBLAS_STATUS_ARCH_MISMATCH"; break;
    case 11: name = "CUBLAS_STATUS_MAPPING_ERROR"; break;
    case 13: name = "CUBLAS_STATUS_EXECUTION_FAILED"; break;
    case 14: name = "CUBLAS_STATUS_INTERNAL_ERROR"; break;
    case 15: name = "CUBLAS_STATUS_NOT_SUPPORTED"; break;
    case 16: name = "CUBLAS_STATUS_LICENSE_ERROR"; break;
  }
  return std::string("cuda backend: ") + function + " returned " + name + " (" + std::to_string(status) +
         ") (cuBLAS at " + c.name + ")";
}

}  // namespace opgen_native

#endif  // OPGEN_CUBLAS_LIBRARY_H
