// The part of the CUDA driver API (and of cuBLAS) the native runtime uses, declared here because no
// CUDA toolkit is present at build time: its handle types, the result codes it reads, and each function with the
// name libcuda exports it under (the versioned one where cuda.h maps the plain name to a _v2:
// cuMemAlloc -> cuMemAlloc_v2, cuStreamBeginCapture -> cuStreamBeginCapture_v2). The runtime looks
// them up by those names (run_plan_cuda.cpp); the stand-ins for libcuda and cuBLAS define them
// (cuda_standin.cpp, cublas_standin.cpp).
#ifndef OPGEN_CUDA_API_H
#define OPGEN_CUDA_API_H

#include <stddef.h>
#include <stdint.h>

extern "C" {

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUstream_st* CUstream;
typedef struct CUevent_st* CUevent;
typedef struct CUgraph_st* CUgraph;
typedef struct CUgraphExec_st* CUgraphExec;

// Result codes (cuda.h's CUresult values).
enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_ILLEGAL_STATE = 401,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_LAUNCH_FAILED = 719,
  CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,
  CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901,
  CUDA_ERROR_STREAM_CAPTURE_IMPLICIT = 906,
};

enum { CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0 };
enum { CU_STREAM_CAPTURE_MODE_GLOBAL = 0, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
       CU_STREAM_CAPTURE_MODE_RELAXED = 2 };
enum { CU_STREAM_CAPTURE_STATUS_NONE = 0, CU_STREAM_CAPTURE_STATUS_ACTIVE = 1,
       CU_STREAM_CAPTURE_STATUS_INVALIDATED = 2 };
#define OPGEN_CU_STREAM_LEGACY ((CUstream)0x1)
#define OPGEN_CU_STREAM_PER_THREAD ((CUstream)0x2)

// X(exported name, return type, parameters): every function either side uses.
#define OPGEN_CUDA_FUNCTIONS(X)                                                                                   \
  X(cuInit, CUresult, (unsigned int flags))                                                                       \
  X(cuGetErrorName, CUresult, (CUresult error, const char** text))                                                \
  X(cuGetErrorString, CUresult, (CUresult error, const char** text))                                              \
  X(cuDeviceGet, CUresult, (CUdevice * device, int ordinal))                                                      \
  X(cuDeviceGetCount, CUresult, (int* count))                                                                     \
  X(cuDevicePrimaryCtxRetain, CUresult, (CUcontext * ctx, CUdevice device))                                       \
  X(cuCtxGetCurrent, CUresult, (CUcontext * ctx))                                                                 \
  X(cuCtxSetCurrent, CUresult, (CUcontext ctx))                                                                   \
  X(cuCtxSynchronize, CUresult, (void))                                                                           \
  X(cuModuleLoadData, CUresult, (CUmodule * module, const void* image))                                           \
  X(cuModuleUnload, CUresult, (CUmodule module))                                                                  \
  X(cuModuleGetFunction, CUresult, (CUfunction * fn, CUmodule module, const char* name))                          \
  X(cuFuncGetAttribute, CUresult, (int* value, int attribute, CUfunction fn))                                     \
  X(cuLaunchKernel, CUresult,                                                                                     \
    (CUfunction fn, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,          \
     unsigned int bz, unsigned int shared, CUstream stream, void** params, void** extra))                         \
  X(cuMemAlloc_v2, CUresult, (CUdeviceptr * ptr, size_t bytes))                                                   \
  X(cuMemFree_v2, CUresult, (CUdeviceptr ptr))                                                                    \
  X(cuMemcpyHtoD_v2, CUresult, (CUdeviceptr dst, const void* src, size_t bytes))                                  \
  X(cuMemcpyDtoH_v2, CUresult, (void* dst, CUdeviceptr src, size_t bytes))                                        \
  X(cuMemcpyHtoDAsync_v2, CUresult, (CUdeviceptr dst, const void* src, size_t bytes, CUstream stream))            \
  X(cuMemsetD8Async, CUresult, (CUdeviceptr dst, unsigned char value, size_t bytes, CUstream stream))             \
  X(cuStreamCreate, CUresult, (CUstream * stream, unsigned int flags))                                            \
  X(cuStreamDestroy_v2, CUresult, (CUstream stream))                                                              \
  X(cuStreamSynchronize, CUresult, (CUstream stream))                                                             \
  X(cuStreamIsCapturing, CUresult, (CUstream stream, int* status))                                                \
  X(cuStreamBeginCapture_v2, CUresult, (CUstream stream, int mode))                                               \
  X(cuStreamEndCapture, CUresult, (CUstream stream, CUgraph * graph))                                             \
  X(cuEventCreate, CUresult, (CUevent * event, unsigned int flags))                                               \
  X(cuEventRecord, CUresult, (CUevent event, CUstream stream))                                                    \
  X(cuEventSynchronize, CUresult, (CUevent event))                                                                \
  X(cuEventDestroy_v2, CUresult, (CUevent event))                                                                 \
  X(cuGraphInstantiateWithFlags, CUresult, (CUgraphExec * exec, CUgraph graph, unsigned long long flags))         \
  X(cuGraphLaunch, CUresult, (CUgraphExec exec, CUstream stream))                                                 \
  X(cuGraphExecDestroy, CUresult, (CUgraphExec exec))                                                             \
  X(cuGraphDestroy, CUresult, (CUgraph graph))

// cuBLAS: its handle, the status and enum values used, each function by its exported name.
typedef struct cublasContext* cublasHandle_t;
typedef int cublasStatus_t;
enum { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_INITIALIZED = 1, CUBLAS_STATUS_INVALID_VALUE = 7,
       CUBLAS_STATUS_EXECUTION_FAILED = 13, CUBLAS_STATUS_NOT_SUPPORTED = 15 };
enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };
enum { CUDA_R_32F = 0, CUDA_R_64F = 1, CUDA_R_16F = 2 };
enum { CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_64F = 70, CUBLAS_GEMM_DEFAULT = -1 };

#define OPGEN_CUBLAS_GEMM(T)                                                                                       \
  (cublasHandle_t h, int transa, int transb, int m, int n, int k, const T* alpha, const T* a, int lda, const T* b, \
   int ldb, const T* beta, T* c, int ldc)
#define OPGEN_CUBLAS_FUNCTIONS(X)                                                                                 \
  X(cublasCreate_v2, cublasStatus_t, (cublasHandle_t * handle))                                                   \
  X(cublasDestroy_v2, cublasStatus_t, (cublasHandle_t handle))                                                    \
  X(cublasSetStream_v2, cublasStatus_t, (cublasHandle_t handle, CUstream stream))                                 \
  X(cublasSetWorkspace_v2, cublasStatus_t, (cublasHandle_t handle, void* workspace, size_t bytes))                \
  X(cublasSgemm_v2, cublasStatus_t, OPGEN_CUBLAS_GEMM(float))                                                     \
  X(cublasDgemm_v2, cublasStatus_t, OPGEN_CUBLAS_GEMM(double))                                                    \
  X(cublasGemmEx, cublasStatus_t,                                                                                 \
    (cublasHandle_t h, int transa, int transb, int m, int n, int k, const void* alpha, const void* a, int atype,    \
     int lda, const void* b, int btype, int ldb, const void* beta, void* c, int ctype, int ldc, int compute,       \
     int algo))                                                                                                    \
  X(cublasGemmStridedBatchedEx, cublasStatus_t,                                                                   \
    (cublasHandle_t h, int transa, int transb, int m, int n, int k, const void* alpha, const void* a, int atype,    \
     int lda, long long stride_a, const void* b, int btype, int ldb, long long stride_b, const void* beta, void* c, \
     int ctype, int ldc, long long stride_c, int batch, int compute, int algo))

}  // extern "C"

#endif  // OPGEN_CUDA_API_H
