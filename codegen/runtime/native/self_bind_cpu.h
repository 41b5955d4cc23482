// What a library that carries its kernels knows of them (codegen/runtime/self_bind.py prints the
// table when it builds the library; self_bind_cpu.cpp binds from it): its companion libraries (the
// emulation runtime and each kernel module, as the cpu backend builds them, beside the library),
// each op's kernels, the BLAS to look for, the launch limits and the settings it reads.
#ifndef OPGEN_SELF_BIND_CPU_H
#define OPGEN_SELF_BIND_CPU_H

#include <stdint.h>

typedef struct opgen_self_kernel {
  const char* op;
  const char* symbol;
  int32_t module;       // index into opgen_self_table::modules
  int64_t max_threads;  // __launch_bounds__ as the module's manifest states it (else CUDA's 1024)
} opgen_self_kernel;

typedef struct opgen_self_blas {  // one way a BLAS exports its GEMMs (host/blas.py _SYMBOLS)
  const char* sgemm;
  const char* dgemm;
  int32_t int64;                  // it takes 64-bit integers
} opgen_self_blas;

typedef struct opgen_self_table {
  const char* runtime;            // the emulation runtime's file: a name beside the library, or a path
  const char* const* modules;     // the kernel modules' files (the same)
  int64_t nmodules;
  const opgen_self_kernel* kernels;
  int64_t nkernels;
  const char* const* blas;        // BLAS libraries to dlopen, in order (after the blas setting's)
  int64_t nblas;
  const opgen_self_blas* blas_symbols;
  int64_t nblas_symbols;
  int64_t max_grid[3], max_block[3], max_shared, max_dynamic_shared;  // host/limits.py
  // The settings read (settings.py's names, defaults and minimums).
  const char* threads_setting;    // OS threads (default: the CPUs this process may use)
  int64_t threads_min;
  const char* stack_kb_setting;   // fiber stack KiB
  int64_t stack_kb_default, stack_kb_min;
  const char* seed_setting;       // random order seed (unset: in order)
  const char* blas_setting;       // a BLAS library to try first
} opgen_self_table;

#endif  // OPGEN_SELF_BIND_CPU_H
