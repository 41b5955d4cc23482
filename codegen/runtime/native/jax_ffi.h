// The JAX front-end of the native drivers (issue 34), through XLA's FFI (jax.ffi.include_dir()'s
// xla/ffi/api/ffi.h). codegen/jaxgen.py prints, per package, one handler per kernel op and platform
// whose body fills a `Call` from XLA's call frame and runs the op's driver (driver.h) with it: XLA's
// buffers become opgen_tensor descriptors, the outputs are XLA's result buffers handed to the driver
// as preallocated (the driver checks them against its own shapes), and a driver's error is an
// ffi::Error with the driver's message. On the cpu scratch comes from this call's heap (freed when
// the handler returns: the cpu plan runs to its end inside the call); on cuda the plan is queued on
// XLA's stream (PlatformStream<void*>: no CUDA header needed) with scratch from XLA's
// ScratchAllocator (docs/jax.md says what its release at the handler's return relies on).
//
// XLA calls handlers from its own threads, concurrently: a Call lives on the handler's stack and
// nothing here is shared between calls (the drivers' recordings guard their own state).
#ifndef OPGEN_JAX_FFI_H
#define OPGEN_JAX_FFI_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <list>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "call_values.h"
#include "driver.h"
#include "host_pages.h"
#include "host_scratch.h"
#include "xla/ffi/api/ffi.h"

extern "C" {
// Where a handler runs its driver: the cpu, or a cuda device with XLA's stream and scratch.
typedef struct opgen_jax_where {
  int32_t device;           // opgen_device
  int32_t device_index;     // cuda: XLA's device ordinal
  void* stream;             // cuda: XLA's CUstream
  opgen_allocator scratch;  // driver.h's allocator, asked only for scratch (index -1)
} opgen_jax_where;
}

namespace opgen_jax {

using opgen_front::list_value;
using opgen_front::value;

namespace ffi = xla::ffi;

// XLA's element type as driver.h numbers it (OPGEN_DT_OTHER: one opgen does not know).
inline int32_t dtype_of(ffi::DataType t) {
  switch (t) {
    case ffi::DataType::PRED: return OPGEN_DT_BOOL;
    case ffi::DataType::S8: return OPGEN_DT_INT8;
    case ffi::DataType::U8: return OPGEN_DT_UINT8;
    case ffi::DataType::S16: return OPGEN_DT_INT16;
    case ffi::DataType::U16: return OPGEN_DT_UINT16;
    case ffi::DataType::S32: return OPGEN_DT_INT32;
    case ffi::DataType::U32: return OPGEN_DT_UINT32;
    case ffi::DataType::S64: return OPGEN_DT_INT64;
    case ffi::DataType::U64: return OPGEN_DT_UINT64;
    case ffi::DataType::F16: return OPGEN_DT_FLOAT16;
    case ffi::DataType::BF16: return OPGEN_DT_BFLOAT16;
    case ffi::DataType::F32: return OPGEN_DT_FLOAT32;
    case ffi::DataType::F64: return OPGEN_DT_FLOAT64;
    default: return OPGEN_DT_OTHER;
  }
}

// The error XLA raises for each driver result (JAX shows its code before the driver's message).
inline ffi::ErrorCode code_of(int result) {
  switch (result) {
    case OPGEN_ERR_TYPE: case OPGEN_ERR_VALUE: return ffi::ErrorCode::kInvalidArgument;
    case OPGEN_ERR_MEMORY: return ffi::ErrorCode::kResourceExhausted;
    case OPGEN_ERR_FALLBACK: return ffi::ErrorCode::kUnimplemented;
    default: return ffi::ErrorCode::kInternal;
  }
}

// The handlers' body with XLA's types gone (tests call it as opgen_jax_drive, on the libcuda
// stand-in): `driver` run on `where` with the inputs and attrs in the spec's order, its outputs the
// caller's buffers (preallocated: the driver checks their dtypes and shapes). The result is driver.h's,
// with `err` saying why.
inline int drive(int (*driver)(opgen_call*), const opgen_arg* inputs, int64_t ninputs, const opgen_value* attrs,
                 int64_t nattrs, const opgen_tensor* outputs, int64_t noutputs, const opgen_jax_where& where,
                 char* err, int64_t errlen) {
  if (noutputs > OPGEN_MAX_OUTPUTS) {
    std::snprintf(err, static_cast<size_t>(errlen), "more results than driver.h takes (%lld)",
                  static_cast<long long>(noutputs));
    return OPGEN_ERR_RUNTIME;
  }
  opgen_call call{};
  call.inputs = inputs;
  call.ninputs = ninputs;
  call.attrs = attrs;
  call.nattrs = nattrs;
  call.device = where.device;
  call.device_index = where.device_index;
  call.stream = where.stream;
  call.preallocated = 1;
  call.allocator = where.scratch;
  for (int64_t k = 0; k < noutputs; ++k) call.outputs[k] = outputs[k];
  int result = driver(&call);
  if (result != OPGEN_OK) std::snprintf(err, static_cast<size_t>(errlen), "%s", call.err);
  return result;
}

// driver.h's allocator on XLA's ScratchAllocator (`ctx`), asked only for scratch (freed when the
// handler returns, the plan's launches perhaps still queued on XLA's stream: docs/jax.md).
inline int xla_scratch(void* ctx, int64_t index, int32_t, int32_t, const int64_t*, int64_t bytes, void** data,
                       char* err, int64_t errlen) {
  std::optional<void*> p;
  if (index < 0) p = static_cast<ffi::ScratchAllocator*>(ctx)->Allocate(static_cast<size_t>(bytes ? bytes : 1), 256);
  if (!p.has_value()) {
    std::snprintf(err, static_cast<size_t>(errlen), index < 0 ? "XLA's scratch allocator refused %lld bytes"
                                                               : "output %lld is XLA's, not the allocator's",
                  static_cast<long long>(index < 0 ? bytes : index));
    return 1;
  }
  *data = *p;
  return 0;
}

// One call of a driver from a handler: the inputs and attrs in the spec's order, then run().
class Call {
 public:
  // `present`: bit k set when the spec's input k was given (ffi_call takes no None, so an absent
  // optional input is simply not among XLA's arguments).
  // The cpu handler's: scratch from this call's heap.
  Call(const char* op, ffi::RemainingArgs args, ffi::RemainingRets rets, int64_t present)
      : op_(op), args_(args), rets_(rets), present_(present) {
    where_.device = OPGEN_DEV_CPU;
    where_.scratch = opgen_allocator{&Call::alloc, this};
  }
  // The cuda handler's: XLA's stream, device ordinal and scratch allocator.
  Call(const char* op, ffi::RemainingArgs args, ffi::RemainingRets rets, int64_t present, void* stream,
       int32_t ordinal, ffi::ScratchAllocator& scratch)
      : op_(op), args_(args), rets_(rets), present_(present) {
    where_.device = OPGEN_DEV_CUDA;
    where_.device_index = ordinal;
    where_.stream = stream;
    where_.scratch = opgen_allocator{&xla_scratch, &scratch};
  }

  // The spec's next input: XLA's next argument, or absent.
  void input() {
    opgen_arg a{};
    a.kind = OPGEN_ARG_ABSENT;
    if ((present_ >> inputs_.size()) & 1) {
      ffi::ErrorOr<ffi::AnyBuffer> buf = args_.get<ffi::AnyBuffer>(next_arg_++);
      if (buf.has_value()) {
        a.kind = OPGEN_ARG_TENSOR;
        a.tensor = tensor_of(*buf, where_);
      } else if (problem_.empty()) {
        problem_ = std::string(op_) + ": input " + std::to_string(inputs_.size()) + " is missing from XLA's call";
      }
    }
    inputs_.push_back(a);
  }

  void attr(int64_t v) { attrs_.push_back(value(OPGEN_VAL_INT, v)); }
  void attr(bool v) { attrs_.push_back(value(OPGEN_VAL_BOOL, v)); }
  void attr(double v) {
    opgen_value x = value(OPGEN_VAL_FLOAT, 0);
    x.f = v;
    attrs_.push_back(x);
  }
  void attr(std::string_view v) {
    opgen_value x = value(OPGEN_VAL_STR, 0);
    x.text = v.data();  // (XLA's attribute: it outlives the call)
    x.len = static_cast<int64_t>(v.size());
    attrs_.push_back(x);
  }
  void attr(ffi::Span<const int64_t> v) {
    std::vector<opgen_value>& items = lists_.emplace_back();
    for (int64_t i : v) items.push_back(value(OPGEN_VAL_INT, i));
    attrs_.push_back(list_value(items));
  }
  // An activation attr (single) or a list of them: each its id and its kernel parameters (the
  // params span holds ids.size() equal runs), as driver.h's OPGEN_VAL_ACT carries an instance.
  void activations(ffi::Span<const int64_t> ids, ffi::Span<const double> params, bool single) {
    std::vector<opgen_value>& items = lists_.emplace_back();
    std::vector<opgen_value>& numbers = lists_.emplace_back();
    size_t each = ids.size() ? params.size() / ids.size() : 0;
    for (double p : params) {
      opgen_value f = value(OPGEN_VAL_FLOAT, 0);
      f.f = p;
      numbers.push_back(f);
    }
    for (size_t k = 0; k < ids.size(); ++k) {
      opgen_value a = value(OPGEN_VAL_ACT, ids[k]);
      a.items = numbers.data() + k * each;
      a.len = static_cast<int64_t>(each);
      items.push_back(a);
    }
    if (single && items.size() == 1) {
      attrs_.push_back(items[0]);
    } else {
      attrs_.push_back(list_value(items));
    }
  }

  // Runs `driver` on the handler's device with XLA's result buffers as the outputs (an output the op
  // does not compute is a buffer the driver never touches). `driver` NULL: not built into this library.
  ffi::Error run(int (*driver)(opgen_call*), const char* symbol) {
    try {
      return run_checked(driver, symbol);
    } catch (const std::exception& e) {  // (a vector's bad_alloc: never an exception into XLA)
      return ffi::Error(ffi::ErrorCode::kResourceExhausted, std::string(op_) + ": " + e.what());
    }
  }

 private:
  ffi::Error run_checked(int (*driver)(opgen_call*), const char* symbol) {
    if (!problem_.empty()) return ffi::Error(ffi::ErrorCode::kInternal, problem_);
    if (driver == nullptr)
      return ffi::Error(ffi::ErrorCode::kUnimplemented,
                        std::string(op_) + ": its native driver (" + symbol + ") is not built into this library");
    std::vector<opgen_tensor> outputs;
    for (size_t k = 0; k < rets_.size(); ++k) {
      ffi::ErrorOr<ffi::Result<ffi::AnyBuffer>> out = rets_.get<ffi::AnyBuffer>(k);
      if (!out.has_value())
        return ffi::Error(ffi::ErrorCode::kInternal, std::string(op_) + ": result " + std::to_string(k) +
                                                         " is missing from XLA's call");
      outputs.push_back(tensor_of(**out, where_));
      // (XLA's cpu result buffers are fresh per call: huge pages cut their first-touch faults)
      if (where_.device == OPGEN_DEV_CPU) opgen_front::advise_huge_pages(outputs.back().data, (*out)->size_bytes());
    }
    char err[sizeof(opgen_call{}.err)];
    int result = drive(driver, inputs_.data(), static_cast<int64_t>(inputs_.size()), attrs_.data(),
                       static_cast<int64_t>(attrs_.size()), outputs.data(), static_cast<int64_t>(outputs.size()),
                       where_, err, sizeof err);
    if (result == OPGEN_ERR_FALLBACK)
      return ffi::Error(code_of(result), std::string(op_) + ": this call needs opgen's Python path (" + err + ")");
    if (result != OPGEN_OK) return ffi::Error(code_of(result), err);
    return ffi::Error::Success();
  }

  static opgen_tensor tensor_of(const ffi::AnyBuffer& b, const opgen_jax_where& where) {
    opgen_tensor t{};
    ffi::AnyBuffer::Dimensions dims = b.dimensions();
    t.data = b.untyped_data();
    t.shape = dims.begin();  // (XLA's call frame: it outlives the call)
    t.strides = nullptr;     // (XLA's buffers are dense, row-major with the default layout ffi_call asks)
    t.ndim = static_cast<int32_t>(dims.size());
    t.dtype = dtype_of(b.element_type());
    t.name = t.dtype == OPGEN_DT_OTHER ? "a dtype opgen does not know" : nullptr;
    t.device = where.device;
    t.device_index = where.device_index;
    return t;
  }

  // driver.h's allocator, asked only for scratch (index -1; the outputs are XLA's): this call's
  // heap blocks (host_scratch.h, as the other fronts' cpu calls), freed with the Call.
  static int alloc(void* ctx, int64_t index, int32_t, int32_t, const int64_t*, int64_t bytes, void** data, char* err,
                   int64_t errlen) {
    Call* self = static_cast<Call*>(ctx);
    if (index >= 0) {
      std::snprintf(err, static_cast<size_t>(errlen), "%s: output %lld is XLA's, not the allocator's", self->op_,
                    static_cast<long long>(index));
      return 1;
    }
    void* p = self->scratch_.take(bytes);
    if (p == nullptr) {
      std::snprintf(err, static_cast<size_t>(errlen), "%s: cannot allocate %lld bytes of scratch", self->op_,
                    static_cast<long long>(bytes));
      return 1;
    }
    *data = p;
    return 0;
  }

  const char* op_;
  ffi::RemainingArgs args_;
  ffi::RemainingRets rets_;
  int64_t present_;
  opgen_jax_where where_{};
  size_t next_arg_ = 0;
  std::string problem_;
  std::vector<opgen_arg> inputs_;
  std::vector<opgen_value> attrs_;
  // (a list: what a value points into never moves, and an empty one allocates nothing; a deque allocates at construction)
  std::list<std::vector<opgen_value>> lists_;
  opgen_front::HostScratch scratch_;
};

}  // namespace opgen_jax

// opgen_jax::drive for tests (the library's only translation unit includes this header).
extern "C" __attribute__((visibility("default"))) int opgen_jax_drive(
    int (*driver)(opgen_call*), const opgen_arg* inputs, int64_t ninputs, const opgen_value* attrs, int64_t nattrs,
    const opgen_tensor* outputs, int64_t noutputs, const opgen_jax_where* where, char* err, int64_t errlen) {
  return opgen_jax::drive(driver, inputs, ninputs, attrs, nattrs, outputs, noutputs, *where, err, errlen);
}

#endif  // OPGEN_JAX_FFI_H
