// The native driver's C interface (issue 32): what every front-end (the Python wrappers' extension,
// the PyTorch stable-ABI registration, XLA's FFI handlers) hands a generated driver, and what it
// gets back. Pure C, so any of them can include it; codegen/drivergen.py prints, per op `Op`:
//
//   int opgen_shapes_Op(opgen_call* call);  // every check, then the outputs' dtypes and shapes
//                                           // (call->outputs[i].dtype/ndim/shape); nothing
//                                           // allocated, nothing run (a caller that preallocates)
//   int opgen_call_Op(opgen_call* call);    // every check, outputs and scratch from the caller's
//                                           // allocator (or the ones it handed in), the plan run
//
// and the library exports `opgen_driver_abi()` (== OPGEN_DRIVER_ABI; the loader refuses another).
// The result is OPGEN_OK or an error kind below, with `call->err` saying why in the wrapper's exact
// words ("LayerNorm: x: expected dtype T in {float16, bfloat16, float32}, got int32").
#ifndef OPGEN_DRIVER_H
#define OPGEN_DRIVER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Bump with any change to a struct, enum or rule in this file.
#define OPGEN_DRIVER_ABI 1

// Results: the exception a Python front-end raises for each (a C++ one throws std::runtime_error
// or its framework's equivalent, with the message).
enum opgen_result {
  OPGEN_OK = 0,
  OPGEN_ERR_TYPE = 1,      // TypeError: a dtype, an attr's type
  OPGEN_ERR_VALUE = 2,     // ValueError: a shape, an attr's value, a constraint, an input's values
  OPGEN_ERR_MEMORY = 3,    // MemoryError: the allocator failed or a size is beyond the limits
  OPGEN_ERR_RUNTIME = 4,   // RuntimeError: a kernel or BLAS failure, a plan that cannot be run
  OPGEN_ERR_FALLBACK = 5,  // not an error: this call needs the Python reference path (the message
                           // says why; only the Python front-end may see it)
};

// Dtypes, numbered once here; `opgen_dtype_names` in the generated library gives their names.
enum opgen_dtype {
  OPGEN_DT_BOOL = 0, OPGEN_DT_INT8 = 1, OPGEN_DT_UINT8 = 2, OPGEN_DT_INT16 = 3, OPGEN_DT_UINT16 = 4,
  OPGEN_DT_INT32 = 5, OPGEN_DT_UINT32 = 6, OPGEN_DT_INT64 = 7, OPGEN_DT_UINT64 = 8,
  OPGEN_DT_FLOAT16 = 9, OPGEN_DT_BFLOAT16 = 10, OPGEN_DT_FLOAT32 = 11, OPGEN_DT_FLOAT64 = 12,
  OPGEN_DT_COUNT = 13,
  OPGEN_DT_OTHER = 99,  // a dtype opgen does not know; `name` in the tensor says which, for messages
};

enum opgen_device { OPGEN_DEV_CPU = 0, OPGEN_DEV_CUDA = 1 };

// A tensor as the front-end holds it. The driver reads only C-contiguous, aligned, native-order
// data: a front-end copies anything else once, as the Python wrappers do today (strides are
// passed for the check, NULL meaning contiguous). `name` is the dtype's name when dtype is OTHER.
typedef struct opgen_tensor {
  void* data;
  const int64_t* shape;
  const int64_t* strides;  // in elements, or NULL
  int32_t ndim;
  int32_t dtype;           // opgen_dtype
  int32_t device;          // opgen_device
  int32_t device_index;
  const char* name;
} opgen_tensor;

// An input argument in the spec's order: a tensor, an absent optional input, or a list of tensors.
enum opgen_arg_kind { OPGEN_ARG_TENSOR = 0, OPGEN_ARG_ABSENT = 1, OPGEN_ARG_LIST = 2 };
typedef struct opgen_arg {
  int32_t kind;
  int32_t reserved;
  opgen_tensor tensor;        // TENSOR
  const opgen_tensor* items;  // LIST
  int64_t len;
} opgen_arg;

// An attr in the spec's order, typed as the caller holds it (a Python front-end classifies exact
// bool/int/float/str/list/None; anything else is its own fallback). STR: text[0..len) in UTF-8;
// LIST: items[0..len); ACT: an activation, i its id, items its parameters (FLOAT).
enum opgen_value_kind { OPGEN_VAL_INT = 0, OPGEN_VAL_FLOAT = 1, OPGEN_VAL_STR = 2, OPGEN_VAL_LIST = 3,
                        OPGEN_VAL_ACT = 4, OPGEN_VAL_BOOL = 5, OPGEN_VAL_NONE = 6 };
typedef struct opgen_value {
  int32_t kind;
  int32_t reserved;
  int64_t i;
  double f;
  const struct opgen_value* items;
  int64_t len;
  const char* text;
} opgen_value;

// The caller's allocator: a C-contiguous buffer of `bytes` bytes on `device` for output `index`
// (index < noutputs) or for scratch (index == -1), its data pointer written to *data. It returns
// 0, or nonzero after writing a message to err (the driver then returns OPGEN_ERR_MEMORY). The
// driver frees nothing: a front-end owns what its allocator made (a Python one makes the output
// arrays themselves; `token` lets it find them again).
typedef struct opgen_allocator {
  int (*alloc)(void* ctx, int64_t index, int32_t dtype, int32_t ndim, const int64_t* shape, int64_t bytes,
               void** data, char* err, int64_t errlen);
  void* ctx;
} opgen_allocator;

#define OPGEN_MAX_NDIM 16
#define OPGEN_MAX_OUTPUTS 16

// One call. The front-end fills the inputs, attrs, allocator and stream; the driver fills the
// outputs (dtype, ndim, shape; data from the allocator) unless `preallocated` is set, in which case
// it checks that the caller's outputs have the dtypes and shapes opgen_shapes_Op gives.
typedef struct opgen_call {
  const opgen_arg* inputs;
  int64_t ninputs;
  const opgen_value* attrs;
  int64_t nattrs;
  opgen_tensor outputs[OPGEN_MAX_OUTPUTS];
  int64_t output_shapes[OPGEN_MAX_OUTPUTS][OPGEN_MAX_NDIM];  // where outputs[i].shape points
  int64_t noutputs;                                          // set by the driver
  int32_t preallocated;
  int32_t device;        // opgen_device: the backend the call runs on
  int32_t device_index;
  int32_t reserved;
  void* stream;          // cuda: a CUstream (NULL: the default stream); cpu: unused
  opgen_allocator allocator;
  char err[1024];
} opgen_call;

#ifdef __cplusplus
}
#endif

#endif  // OPGEN_DRIVER_H
