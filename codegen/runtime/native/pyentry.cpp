// The Python wrappers' one call into a native driver (driver.h): a CPython extension, built by
// codegen/runtime/native_front.py with the host C++ compiler against this Python's and NumPy's
// headers. `call(driver, inputs, attrs, device, poison)` turns the wrapper's arguments into an opgen_call,
// makes the outputs as NumPy arrays through the allocator callback, calls the driver and returns
// the outputs as a tuple (`call(..., outputs)`: as that tuple subclass, the op's NamedTuple, made here
// as its __new__ would); a driver error becomes the wrapper's exception with the driver's message.
// On the cuda device (`call(..., device_index, stream, empty)`) the inputs are CuPy arrays on that
// device, read through `__cuda_array_interface__`, the outputs and scratch come from `empty` (the
// cuda backend's: CuPy's memory pool, poisoned as it poisons) and the plan runs on `stream`.
//
// It takes only what it can hand over exactly: C-contiguous, aligned, native-order NumPy arrays of
// the dtypes driver.h numbers (on the cuda device: CuPy arrays on the call's device, likewise), None,
// lists of such arrays, and exact bool/int/float/str/None attrs and lists of them. Anything else — a
// strided view, a host array on the cuda device, an Activation, a NumPy scalar attr — returns None,
// and the wrapper runs its Python body (the reference path, which copies or converts as it always
// has). So a caller never sees a different answer, only a slower one.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#include <numpy/arrayobject.h>

#include <pthread.h>

#include <array>
#include <cstddef>
#include <cstring>
#include <vector>

#include "call_values.h"
#include "driver.h"
#include "host_scratch.h"

typedef int (*opgen_driver_fn)(opgen_call*);

namespace {

constexpr int kMaxArgs = 64;
constexpr size_t kMaxItems = 256;  // list inputs' elements, all lists of a call together

// Why the last call was handed back to Python (a driver's OPGEN_ERR_FALLBACK message, or the
// front-end's own reason): `last_fallback()`, for tests and for a user asking why a call is slow.
thread_local char g_fallback[256] = "";

void handed_back(const char* why) { snprintf(g_fallback, sizeof g_fallback, "%s", why); }

// opgen_dtype -> the NumPy dtype the outputs are made with, and its name (what the cuda backend's
// `empty` takes); set once by init(); NULL: unknown.
PyArray_Descr* g_descr[OPGEN_DT_COUNT] = {};
PyObject* g_names[OPGEN_DT_COUNT] = {};

// Our dtype by NumPy's type number, for the builtin ones (< kByNum; -1: none of ours): a plain
// dtype's is found with one look-up and one pointer test, not a walk past every dtype before it.
constexpr int kByNum = 64;
int8_t g_by_num[kByNum];

int dtype_of(PyArray_Descr* d) {
  // NumPy's builtin descriptors are singletons, so an array of a plain dtype holds ours: one pointer
  // test each, where PyArray_EquivTypes (for the rest: metadata, '=' spelled '<') costs a cast lookup.
  if (d->type_num >= 0 && d->type_num < kByNum) {
    int k = g_by_num[d->type_num];
    if (k >= 0 && d == g_descr[k]) return k;
  }
  for (int k = 0; k < OPGEN_DT_COUNT; ++k)
    if (d == g_descr[k]) return k;
  for (int k = 0; k < OPGEN_DT_COUNT; ++k)
    if (g_descr[k] != nullptr && PyArray_EquivTypes(d, g_descr[k]) && d->byteorder != '>') return k;
  return -1;
}

// What one call owns until it returns: shapes and strides handed to the driver, list items,
// attr storage, the outputs made so far and the scratch kept alive while the plan runs (on the
// cpu plain heap blocks, host_scratch.h; on cuda the backend's arrays).
struct CallState {
  opgen_arg args[kMaxArgs];
  opgen_value attrs[kMaxArgs];
  std::vector<opgen_tensor> items;        // list inputs' elements (reserved at the first list: pointers stay put)
  std::vector<std::vector<opgen_value>> lists;
  PyObject* outputs[OPGEN_MAX_OUTPUTS] = {};
  std::vector<PyObject*> scratch;
  opgen_front::HostScratch host_scratch;
  bool poison = false;  // OPGEN_POISON_OUTPUTS: every buffer starts as NaN (integers: -1), as backend.empty does
  // the cuda device: the call's device, the backend's `empty`, the inputs' shapes read from their
  // __cuda_array_interface__ (reserved up front: pointers stay put), and an exception `empty`
  // raised (re-raised as it is once the driver returns, as the Python path would let it through)
  int32_t device = OPGEN_DEV_CPU;
  int32_t device_index = 0;
  PyObject* empty = nullptr;
  std::vector<std::array<int64_t, OPGEN_MAX_NDIM>> dims;
  PyObject *raised_type = nullptr, *raised_value = nullptr, *raised_trace = nullptr;
  PyThreadState* released = nullptr;  // the calling thread's, while the driver runs without the GIL
  bool hold = false;                   // held mode (`allocate`): the GIL kept until the last output is made
  pthread_t caller{};                  // (held mode: the calling thread, which has the GIL until let_go)
  const opgen_call* call = nullptr;    // (its noutputs: which output is the last)
  ~CallState() {
    for (PyObject* o : outputs) Py_XDECREF(o);
    for (PyObject* o : scratch) Py_DECREF(o);
    Py_XDECREF(raised_type);
    Py_XDECREF(raised_value);
    Py_XDECREF(raised_trace);
  }
};

// A NumPy array the driver can read as it is; false: the Python path takes this call.
bool tensor_of(PyObject* obj, opgen_tensor* t) {
  if (!PyArray_CheckExact(obj)) return false;  // (a subclass, a masked array: the Python path's adopt decides)
  PyArrayObject* a = reinterpret_cast<PyArrayObject*>(obj);
  if (!PyArray_ISCARRAY_RO(a) || PyArray_NDIM(a) > OPGEN_MAX_NDIM) return false;
  int dt = dtype_of(PyArray_DESCR(a));
  if (dt < 0) return false;
  t->data = PyArray_DATA(a);
  t->shape = reinterpret_cast<const int64_t*>(PyArray_SHAPE(a));
  t->strides = nullptr;
  t->ndim = PyArray_NDIM(a);
  t->dtype = dt;
  t->device = OPGEN_DEV_CPU;
  t->device_index = 0;
  t->name = nullptr;
  return true;
}

// A __cuda_array_interface__ typestr's opgen_dtype ("<f4", "|b1"; "<V2": bfloat16 where the array's
// dtype is named so, ml_dtypes' as CuPy holds it); -1: one the driver does not take.
int dtype_of_typestr(PyObject* obj, PyObject* typestr) {
  const char* text = PyUnicode_Check(typestr) ? PyUnicode_AsUTF8(typestr) : nullptr;
  if (text == nullptr || std::strlen(text) != 3 || (text[0] != '<' && text[0] != '|')) return -1;
  if (std::strcmp(text + 1, "V2") == 0) {
    PyObject* dtype = PyObject_GetAttrString(obj, "dtype");
    PyObject* name = dtype != nullptr ? PyObject_GetAttrString(dtype, "name") : nullptr;
    bool bf16 = name != nullptr && PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, "bfloat16") == 0;
    Py_XDECREF(name);
    Py_XDECREF(dtype);
    PyErr_Clear();
    return bf16 ? OPGEN_DT_BFLOAT16 : -1;
  }
  static const struct { const char* code; int dtype; } kCodes[] = {
      {"b1", OPGEN_DT_BOOL}, {"i1", OPGEN_DT_INT8}, {"u1", OPGEN_DT_UINT8}, {"i2", OPGEN_DT_INT16},
      {"u2", OPGEN_DT_UINT16}, {"i4", OPGEN_DT_INT32}, {"u4", OPGEN_DT_UINT32}, {"i8", OPGEN_DT_INT64},
      {"u8", OPGEN_DT_UINT64}, {"f2", OPGEN_DT_FLOAT16}, {"f4", OPGEN_DT_FLOAT32}, {"f8", OPGEN_DT_FLOAT64}};
  for (const auto& c : kCodes)
    if (std::strcmp(text + 1, c.code) == 0) return c.dtype;
  return -1;
}

// The device a CuPy array's memory is on (its `data.device_id`); -1 for an object without one (a
// foreign __cuda_array_interface__ producer: the Python path converts it with cupy.asarray).
long device_of(PyObject* obj) {
  PyObject* data = PyObject_GetAttrString(obj, "data");
  PyObject* id = data != nullptr ? PyObject_GetAttrString(data, "device_id") : nullptr;
  long device = id != nullptr && PyLong_Check(id) ? PyLong_AsLong(id) : -1;
  Py_XDECREF(id);
  Py_XDECREF(data);
  PyErr_Clear();
  return device;
}

// A CuPy array on the call's device the driver can read as it is (its __cuda_array_interface__,
// version 2 or 3: C-contiguous, aligned, no mask); false: the Python path takes this call.
bool cuda_tensor_of(PyObject* obj, opgen_tensor* t, CallState& st) {
  if (st.dims.size() == st.dims.capacity()) return false;
  PyObject* cai = PyObject_GetAttrString(obj, "__cuda_array_interface__");
  if (cai == nullptr || !PyDict_Check(cai)) {
    PyErr_Clear();
    Py_XDECREF(cai);
    return false;
  }
  bool ok = false;
  PyObject* shape = PyDict_GetItemString(cai, "shape");  // (borrowed, all of them)
  PyObject* data = PyDict_GetItemString(cai, "data");
  PyObject* strides = PyDict_GetItemString(cai, "strides");
  PyObject* mask = PyDict_GetItemString(cai, "mask");
  PyObject* typestr = PyDict_GetItemString(cai, "typestr");
  int dt = typestr != nullptr ? dtype_of_typestr(obj, typestr) : -1;
  if (shape != nullptr && PyTuple_Check(shape) && PyTuple_GET_SIZE(shape) <= OPGEN_MAX_NDIM && data != nullptr &&
      PyTuple_Check(data) && PyTuple_GET_SIZE(data) == 2 && (mask == nullptr || mask == Py_None) && dt >= 0 &&
      device_of(obj) == st.device_index) {
    std::array<int64_t, OPGEN_MAX_NDIM>& dims = st.dims.emplace_back();
    Py_ssize_t ndim = PyTuple_GET_SIZE(shape);
    int64_t size = 1;
    for (Py_ssize_t k = 0; k < ndim; ++k) {
      dims[k] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, k));
      size *= dims[k];
    }
    // C-contiguous: strides None, or the C strides (a dim of 1 may have any stride; an empty array any)
    static const int kItemsize[OPGEN_DT_COUNT] = {1, 1, 1, 2, 2, 4, 4, 8, 8, 2, 2, 4, 8};
    int64_t itemsize = kItemsize[dt];
    bool contiguous = strides == nullptr || strides == Py_None;
    if (!contiguous && PyTuple_Check(strides) && PyTuple_GET_SIZE(strides) == ndim) {
      contiguous = true;
      int64_t expected = itemsize;
      for (Py_ssize_t k = ndim - 1; k >= 0; --k) {
        if (dims[k] != 1 && PyLong_AsLongLong(PyTuple_GET_ITEM(strides, k)) != expected) contiguous = false;
        expected *= dims[k];
      }
      contiguous = contiguous || size == 0;
    }
    void* pointer = PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
    ok = !PyErr_Occurred() && contiguous && reinterpret_cast<uintptr_t>(pointer) % itemsize == 0;
    t->data = pointer;
    t->shape = dims.data();
    t->strides = nullptr;
    t->ndim = static_cast<int32_t>(ndim);
    t->dtype = dt;
    t->device = OPGEN_DEV_CUDA;
    t->device_index = st.device_index;
    t->name = nullptr;
  }
  PyErr_Clear();
  Py_DECREF(cai);
  return ok;
}

bool device_tensor_of(PyObject* obj, opgen_tensor* t, CallState& st) {
  return st.device == OPGEN_DEV_CUDA ? cuda_tensor_of(obj, t, st) : tensor_of(obj, t);
}

bool arg_of(PyObject* obj, opgen_arg* arg, CallState& st) {
  std::memset(arg, 0, sizeof *arg);
  if (obj == Py_None) {
    arg->kind = OPGEN_ARG_ABSENT;
    return true;
  }
  if (PyList_CheckExact(obj) || PyTuple_CheckExact(obj)) {
    PyObject* seq = obj;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (st.items.capacity() == 0) st.items.reserve(kMaxItems);  // (a call without lists allocates none)
    if (st.items.size() + n > st.items.capacity()) return false;
    size_t first = st.items.size();
    for (Py_ssize_t k = 0; k < n; ++k) {
      opgen_tensor t;
      if (!device_tensor_of(PySequence_Fast_GET_ITEM(seq, k), &t, st)) return false;
      st.items.push_back(t);
    }
    arg->kind = OPGEN_ARG_LIST;
    arg->items = st.items.data() + first;
    arg->len = n;
    return true;
  }
  arg->kind = OPGEN_ARG_TENSOR;
  return device_tensor_of(obj, &arg->tensor, st);
}

bool value_of(PyObject* obj, opgen_value* v, CallState& st, int depth) {
  std::memset(v, 0, sizeof *v);
  if (obj == Py_None) {
    v->kind = OPGEN_VAL_NONE;
  } else if (PyBool_Check(obj)) {
    v->kind = OPGEN_VAL_BOOL;
    v->i = obj == Py_True;
  } else if (PyLong_CheckExact(obj)) {
    int overflow = 0;
    long long i = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow != 0) return false;  // beyond int64: the Python path says so in its words
    v->kind = OPGEN_VAL_INT;
    v->i = i;
  } else if (PyFloat_CheckExact(obj)) {
    v->kind = OPGEN_VAL_FLOAT;
    v->f = PyFloat_AS_DOUBLE(obj);
  } else if (PyUnicode_CheckExact(obj)) {
    Py_ssize_t len = 0;
    const char* text = PyUnicode_AsUTF8AndSize(obj, &len);
    if (text == nullptr) {
      PyErr_Clear();  // (a lone surrogate): the Python path reports it
      return false;
    }
    v->kind = OPGEN_VAL_STR;
    v->text = text;
    v->len = len;
  } else if ((PyList_CheckExact(obj) || PyTuple_CheckExact(obj)) && depth == 0) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
    st.lists.emplace_back(static_cast<size_t>(n));
    std::vector<opgen_value>& items = st.lists.back();
    for (Py_ssize_t k = 0; k < n; ++k)
      if (!value_of(PySequence_Fast_GET_ITEM(obj, k), &items[k], st, depth + 1)) return false;
    v->kind = OPGEN_VAL_LIST;
    v->items = items.data();
    v->len = n;
  } else {
    return false;
  }
  return true;
}

// NumPy's fill(nan) / fill(-1) of backend.empty, as bits: the quiet NaN of each float width; `n`
// elements of `nbytes` bytes in all at `data`.
void poison(void* data, int64_t n, int64_t nbytes, int32_t dtype) {
  char* p = static_cast<char*>(data);
  switch (dtype) {
    case OPGEN_DT_FLOAT16: case OPGEN_DT_BFLOAT16: {
      uint16_t bits = dtype == OPGEN_DT_FLOAT16 ? 0x7E00 : 0x7FC0;
      for (int64_t k = 0; k < n; ++k) std::memcpy(p + 2 * k, &bits, 2);
      break;
    }
    case OPGEN_DT_FLOAT32: {
      uint32_t bits = 0x7FC00000u;
      for (int64_t k = 0; k < n; ++k) std::memcpy(p + 4 * k, &bits, 4);
      break;
    }
    case OPGEN_DT_FLOAT64: {
      uint64_t bits = 0x7FF8000000000000ull;
      for (int64_t k = 0; k < n; ++k) std::memcpy(p + 8 * k, &bits, 8);
      break;
    }
    case OPGEN_DT_BOOL:
      std::memset(p, 1, static_cast<size_t>(n));
      break;
    default:
      std::memset(p, 0xFF, static_cast<size_t>(nbytes));
  }
}

// Keeps `array` as output `index` (or scratch, index -1) of the call.
void keep(CallState* st, int64_t index, PyObject* array) {
  if (index < 0) {
    st->scratch.push_back(array);
  } else {
    Py_XDECREF(st->outputs[index]);
    st->outputs[index] = array;
  }
}

// The cuda device's buffers: the backend's `empty(shape, dtype name)` (a CuPy array from its pool).
int allocate_cuda(CallState* st, int64_t index, int32_t dtype, int32_t ndim, const int64_t* shape, void** data,
                  char* err, int64_t errlen) {
  PyObject* dims = PyTuple_New(ndim);
  for (int32_t k = 0; dims != nullptr && k < ndim; ++k) PyTuple_SET_ITEM(dims, k, PyLong_FromLongLong(shape[k]));
  PyObject* array = dims != nullptr ? PyObject_CallFunctionObjArgs(st->empty, dims, g_names[dtype], nullptr) : nullptr;
  Py_XDECREF(dims);
  PyObject* pointer = nullptr;
  if (array != nullptr) {
    PyObject* memory = PyObject_GetAttrString(array, "data");
    pointer = memory != nullptr ? PyObject_GetAttrString(memory, "ptr") : nullptr;
    Py_XDECREF(memory);
  }
  void* address = pointer != nullptr ? PyLong_AsVoidPtr(pointer) : nullptr;
  Py_XDECREF(pointer);
  if (PyErr_Occurred()) {
    Py_XDECREF(array);
    if (st->raised_type == nullptr) PyErr_Fetch(&st->raised_type, &st->raised_value, &st->raised_trace);
    PyErr_Clear();
    snprintf(err, static_cast<size_t>(errlen), "the cuda backend's empty raised");
    return 1;
  }
  keep(st, index, array);
  *data = address;
  return 0;
}

int allocate_locked(CallState* st, int64_t index, int32_t dtype, int32_t ndim, const int64_t* shape, void** data,
                    char* err, int64_t errlen);

// The cpu's scratch: no NumPy array (nor the GIL) for a buffer the caller never sees; poisoned as
// backend.empty poisons. false: NumPy makes it (and says in its words why it cannot).
bool host_scratch(CallState* st, int32_t dtype, int32_t ndim, const int64_t* shape, int64_t bytes, void** data) {
  if (dtype < 0 || dtype >= OPGEN_DT_COUNT || ndim < 0 || ndim > OPGEN_MAX_NDIM) return false;
  void* block = st->host_scratch.take(bytes);
  if (block == nullptr) return false;
  if (st->poison) {
    int64_t n = 1;
    for (int32_t k = 0; k < ndim; ++k) n *= shape[k];
    poison(block, n, bytes, dtype);
  }
  *data = block;
  return true;
}

// Held mode, the plan not yet running: the calling thread still has the GIL (it came in with it and
// only let_go gives it up: the thread's identity says so, without PyGILState_Check's look-up per output).
bool holding(const CallState* st) {
  return st->hold && st->released == nullptr && pthread_equal(st->caller, pthread_self());
}

// Held mode: the GIL let go where the calling thread still has it (the plan is about to run).
void let_go(CallState* st) {
  if (holding(st)) st->released = PyEval_SaveThread();
}

// The plan runs without the GIL (other Python threads go on, as around the Python path's ctypes
// calls). A generated driver's cpu call (`outputs` given) runs in held mode: the calling thread keeps
// the GIL through the driver's checks and the outputs it makes one after another on that thread, and
// lets go once the last is made (or at the first scratch block, which comes after them), before the
// plan: one hand-over a call where there was one per output. Otherwise the GIL is let go before the
// driver runs, and making an array takes it back for the moment.
int allocate(void* ctx, int64_t index, int32_t dtype, int32_t ndim, const int64_t* shape, int64_t bytes,
             void** data, char* err, int64_t errlen) {
  CallState* st = static_cast<CallState*>(ctx);
  if (index < 0 && st->device == OPGEN_DEV_CPU && host_scratch(st, dtype, ndim, shape, bytes, data)) {
    let_go(st);
    return 0;
  }
  if (holding(st)) {
    int result = allocate_locked(st, index, dtype, ndim, shape, data, err, errlen);
    if (index >= 0 && index + 1 >= st->call->noutputs) let_go(st);
    return result;
  }
  if (st->released == nullptr || PyGILState_GetThisThreadState() != st->released) {  // (another thread)
    PyGILState_STATE gil = PyGILState_Ensure();
    int result = allocate_locked(st, index, dtype, ndim, shape, data, err, errlen);
    PyGILState_Release(gil);
    return result;
  }
  PyEval_RestoreThread(st->released);  // (the calling thread's own state back: cheaper than PyGILState_Ensure)
  int result = allocate_locked(st, index, dtype, ndim, shape, data, err, errlen);
  st->released = PyEval_SaveThread();
  return result;
}

int allocate_locked(CallState* st, int64_t index, int32_t dtype, int32_t ndim, const int64_t* shape, void** data,
                    char* err, int64_t errlen) {
  if (dtype < 0 || dtype >= OPGEN_DT_COUNT || g_descr[dtype] == nullptr || ndim < 0 || ndim > OPGEN_MAX_NDIM) {
    snprintf(err, static_cast<size_t>(errlen), "no NumPy dtype for opgen dtype %d", static_cast<int>(dtype));
    return 1;
  }
  if (index >= OPGEN_MAX_OUTPUTS) {
    snprintf(err, static_cast<size_t>(errlen), "output index %lld beyond %d", static_cast<long long>(index),
             OPGEN_MAX_OUTPUTS);
    return 1;
  }
  if (st->device == OPGEN_DEV_CUDA) return allocate_cuda(st, index, dtype, ndim, shape, data, err, errlen);
  Py_INCREF(g_descr[dtype]);  // (PyArray_NewFromDescr steals it)
  PyObject* array = PyArray_NewFromDescr(&PyArray_Type, g_descr[dtype], ndim,
                                         const_cast<npy_intp*>(reinterpret_cast<const npy_intp*>(shape)), nullptr,
                                         nullptr, 0, nullptr);
  if (array == nullptr) {
    PyObject *type, *value, *trace;
    PyErr_Fetch(&type, &value, &trace);
    PyObject* text = value != nullptr ? PyObject_Str(value) : nullptr;
    const char* said = text != nullptr ? PyUnicode_AsUTF8(text) : nullptr;
    snprintf(err, static_cast<size_t>(errlen), "%s", said != nullptr ? said : "NumPy could not allocate");
    Py_XDECREF(text);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(trace);
    PyErr_Clear();
    return 1;
  }
  if (st->poison) {
    PyArrayObject* a = reinterpret_cast<PyArrayObject*>(array);
    poison(PyArray_DATA(a), PyArray_SIZE(a), PyArray_NBYTES(a), dtype);
  }
  keep(st, index, array);
  *data = PyArray_DATA(reinterpret_cast<PyArrayObject*>(array));
  return 0;
}

PyObject* raise(int code, const char* message) {
  PyObject* type = code == OPGEN_ERR_TYPE     ? PyExc_TypeError
                   : code == OPGEN_ERR_VALUE  ? PyExc_ValueError
                   : code == OPGEN_ERR_MEMORY ? PyExc_MemoryError
                                              : PyExc_RuntimeError;
  PyErr_SetString(type, message);
  return nullptr;
}

// What `outputs` may be: None (a plain tuple), or a tuple subclass of tuple's layout (the op's
// NamedTuple, whose __new__ is tuple.__new__(cls, items): made here as tuple.__new__ makes it, its
// tp_alloc then the items, without the Python call).
bool is_outputs_type(PyObject* obj) {
  if (obj == Py_None) return true;
  if (!PyType_Check(obj)) return false;
  PyTypeObject* type = reinterpret_cast<PyTypeObject*>(obj);
  // (the layout of a tuple: a NamedTuple's __slots__ = () adds nothing)
  return PyType_IsSubtype(type, &PyTuple_Type) && type->tp_basicsize == PyTuple_Type.tp_basicsize &&
         type->tp_itemsize == PyTuple_Type.tp_itemsize;
}

// call(driver: int, inputs: tuple, attrs: tuple, device: int, poison: bool
//      [, device_index: int, stream: int, empty: callable][, outputs: type | None]) -> tuple | None
PyObject* py_call(PyObject*, PyObject* const* argv, Py_ssize_t argc) {
  bool cuda_form = argc == 8 || argc == 9;
  if ((argc < 5 || argc > 9 || argc == 7) || !PyTuple_CheckExact(argv[1]) || !PyTuple_CheckExact(argv[2]) ||
      ((argc == 6 || argc == 9) && !is_outputs_type(argv[argc - 1]))) {
    PyErr_SetString(PyExc_TypeError, "call(driver: int, inputs: tuple, attrs: tuple, device: int, poison: bool"
                                     "[, device_index: int, stream: int, empty: callable][, outputs: a tuple "
                                     "subclass of tuple's layout, or None])");
    return nullptr;
  }
  PyTypeObject* outputs_type = argc == 6 || argc == 9 ? reinterpret_cast<PyTypeObject*>(argv[argc - 1]) : nullptr;
  if (reinterpret_cast<PyObject*>(outputs_type) == Py_None || outputs_type == &PyTuple_Type) outputs_type = nullptr;
  void* address = PyLong_AsVoidPtr(argv[0]);
  long device = PyLong_AsLong(argv[3]);
  long device_index = cuda_form ? PyLong_AsLong(argv[5]) : 0;
  void* stream = cuda_form ? PyLong_AsVoidPtr(argv[6]) : nullptr;
  if (PyErr_Occurred()) return nullptr;
  if (device == OPGEN_DEV_CUDA && (!cuda_form || !PyCallable_Check(argv[7]))) {
    PyErr_SetString(PyExc_TypeError, "call: the cuda device needs device_index, stream and the backend's empty");
    return nullptr;
  }
  opgen_driver_fn driver = reinterpret_cast<opgen_driver_fn>(address);
  Py_ssize_t ninputs = PyTuple_GET_SIZE(argv[1]), nattrs = PyTuple_GET_SIZE(argv[2]);
  if (address == nullptr || ninputs > kMaxArgs || nattrs > kMaxArgs) {
    handed_back("no driver, or more than 64 inputs or attrs");
    Py_RETURN_NONE;
  }
  CallState st;
  st.poison = PyObject_IsTrue(argv[4]) == 1;
  st.device = static_cast<int32_t>(device);
  st.device_index = static_cast<int32_t>(device_index);
  if (device == OPGEN_DEV_CUDA) {
    st.empty = argv[7];
    st.dims.reserve(kMaxArgs + kMaxItems);
  }
  for (Py_ssize_t k = 0; k < ninputs; ++k)
    if (!arg_of(PyTuple_GET_ITEM(argv[1], k), &st.args[k], st)) {
      snprintf(g_fallback, sizeof g_fallback, "input %d is not a C-contiguous, aligned, native-order %s "
               "of a dtype the driver knows (or None, or a list of such arrays)", static_cast<int>(k),
               device == OPGEN_DEV_CUDA ? "CuPy array on the call's device" : "NumPy array");
      Py_RETURN_NONE;
    }
  for (Py_ssize_t k = 0; k < nattrs; ++k)
    if (!value_of(PyTuple_GET_ITEM(argv[2], k), &st.attrs[k], st, 0)) {
      if (PyErr_Occurred()) return nullptr;
      snprintf(g_fallback, sizeof g_fallback, "attr %d is not a bool, int64, float, str, None, activation or a "
               "list of them", static_cast<int>(k));
      Py_RETURN_NONE;
    }
  opgen_call call;
  opgen_front::clear_call(call);  // (never preallocated here)
  call.inputs = st.args;
  call.ninputs = ninputs;
  call.attrs = st.attrs;
  call.nattrs = nattrs;
  call.device = static_cast<int32_t>(device);
  call.device_index = static_cast<int32_t>(device_index);
  call.stream = stream;
  call.allocator.alloc = allocate;
  call.allocator.ctx = &st;
  int code;
  st.hold = outputs_type != nullptr && device == OPGEN_DEV_CPU;
  st.caller = pthread_self();
  st.call = &call;
  if (!st.hold) st.released = PyEval_SaveThread();
  code = driver(&call);
  if (st.released != nullptr) PyEval_RestoreThread(st.released);  // (held mode: unless it never let go)
  if (st.raised_type != nullptr) {  // the backend's empty raised: its exception, as on the Python path
    PyErr_Restore(st.raised_type, st.raised_value, st.raised_trace);
    st.raised_type = st.raised_value = st.raised_trace = nullptr;
    return nullptr;
  }
  if (code == OPGEN_ERR_FALLBACK) {
    handed_back(call.err);
    Py_RETURN_NONE;
  }
  g_fallback[0] = '\0';
  if (code != OPGEN_OK) return raise(code, call.err);
  if (call.noutputs < 0 || call.noutputs > OPGEN_MAX_OUTPUTS) return raise(OPGEN_ERR_RUNTIME, "bad output count");
  PyObject* out = outputs_type != nullptr ? outputs_type->tp_alloc(outputs_type, call.noutputs)
                                         : PyTuple_New(call.noutputs);
  if (out == nullptr) return nullptr;
  for (int64_t k = 0; k < call.noutputs; ++k) {
    if (st.outputs[k] == nullptr) {
      Py_DECREF(out);
      return raise(OPGEN_ERR_RUNTIME, "the driver returned an output it never allocated");
    }
    PyTuple_SET_ITEM(out, k, st.outputs[k]);  // (the tuple takes the reference)
    st.outputs[k] = nullptr;
  }
  return out;
}

// init(dtypes: tuple) -- the NumPy dtype of each opgen_dtype, in driver.h's order (None: unknown).
PyObject* py_init(PyObject*, PyObject* dtypes) {
  if (!PyTuple_Check(dtypes) || PyTuple_GET_SIZE(dtypes) != OPGEN_DT_COUNT) {
    PyErr_Format(PyExc_TypeError, "init takes a tuple of %d dtypes (driver.h's order)", OPGEN_DT_COUNT);
    return nullptr;
  }
  std::memset(g_by_num, -1, sizeof g_by_num);
  for (int k = 0; k < OPGEN_DT_COUNT; ++k) {
    PyObject* item = PyTuple_GET_ITEM(dtypes, k);
    PyArray_Descr* descr = nullptr;
    if (item != Py_None && !PyArray_DescrConverter(item, &descr)) return nullptr;
    Py_XDECREF(g_descr[k]);
    g_descr[k] = descr;
    if (descr != nullptr && descr->type_num >= 0 && descr->type_num < kByNum && g_by_num[descr->type_num] < 0)
      g_by_num[descr->type_num] = (int8_t)k;  // (the first, as the walk below finds)
    Py_XDECREF(g_names[k]);
    g_names[k] = descr != nullptr ? PyObject_GetAttrString(reinterpret_cast<PyObject*>(descr), "name") : nullptr;
    if (descr != nullptr && g_names[k] == nullptr) return nullptr;
  }
  Py_RETURN_NONE;
}

PyObject* py_abi(PyObject*, PyObject*) { return PyLong_FromLong(OPGEN_DRIVER_ABI); }

PyObject* py_last_fallback(PyObject*, PyObject*) { return PyUnicode_FromString(g_fallback); }

PyMethodDef kMethods[] = {
    {"call", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(py_call)), METH_FASTCALL,
     "call(driver, inputs, attrs, device, poison[, device_index, stream, empty][, outputs]) -> the outputs (a "
     "tuple, or one of the `outputs` tuple subclass), or None (the Python path takes the call)"},
    {"init", py_init, METH_O, "init(dtypes): the NumPy dtype of each opgen dtype"},
    {"abi", py_abi, METH_NOARGS, "the driver.h ABI this extension was built for"},
    {"last_fallback", py_last_fallback, METH_NOARGS, "why this thread's last call went to Python ('' if it did not)"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef kModule = {PyModuleDef_HEAD_INIT, "opgen_native_front", nullptr, -1, kMethods,
                       nullptr, nullptr, nullptr, nullptr};

}  // namespace

PyMODINIT_FUNC PyInit_opgen_native_front(void) {
  import_array();
  return PyModule_Create(&kModule);
}
