// The PyTorch front-end of the native drivers (issue 32), through PyTorch's stable ABI only
// (torch/csrc/stable, torch/headeronly; built with TORCH_TARGET_VERSION = the oldest PyTorch opgen
// supports, so one binary loads in every tested version). codegen/torch_native.py prints, per
// package, a translation unit whose boxed kernels fill a `Call` from the dispatcher's stack and
// run the op's driver (driver.h) with it: stable Tensors become opgen_tensor descriptors (a strided
// or misaligned one copied once, as the Python wrappers copy), schema attrs opgen_values, outputs
// and scratch come from PyTorch's allocator (the outputs are the tensors the op returns; a large cpu
// output is a block of host_output_pool.h's pool instead, reused across calls), cuda work runs on
// PyTorch's current stream, and a driver's error is a C++ exception with the
// driver's message (PyTorch raises it in Python as RuntimeError). A call the driver hands back
// (OPGEN_ERR_FALLBACK) goes through the dispatcher to the op's Python helper where the package's
// torch.py defined it (`Call::fallback`), else it is refused with the driver's reason.
#ifndef OPGEN_TORCH_STABLE_H
#define OPGEN_TORCH_STABLE_H

#include <dlfcn.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <atomic>
#include <cstring>
#include <iterator>
#include <list>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <torch/csrc/stable/accelerator.h>
#include <torch/csrc/stable/c/shim.h>
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>

#include "call_values.h"
#include "driver.h"
#include "host_output_pool.h"
#include "host_pages.h"
#include "host_scratch.h"

namespace opgen_torch {

using opgen_front::list_value;
using opgen_front::value;

using torch::headeronly::ScalarType;
using torch::stable::Tensor;

// opgen_dtype <-> PyTorch's ScalarType (OPGEN_DT_OTHER: a ScalarType opgen does not know), in
// opgen_dtype's order.
struct DtypePair {
  int32_t opgen;
  ScalarType torch;
  const char* name;
};
inline constexpr DtypePair kDtypes[] = {
    {OPGEN_DT_BOOL, ScalarType::Bool, "bool"},          {OPGEN_DT_INT8, ScalarType::Char, "int8"},
    {OPGEN_DT_UINT8, ScalarType::Byte, "uint8"},        {OPGEN_DT_INT16, ScalarType::Short, "int16"},
    {OPGEN_DT_UINT16, ScalarType::UInt16, "uint16"},    {OPGEN_DT_INT32, ScalarType::Int, "int32"},
    {OPGEN_DT_UINT32, ScalarType::UInt32, "uint32"},    {OPGEN_DT_INT64, ScalarType::Long, "int64"},
    {OPGEN_DT_UINT64, ScalarType::UInt64, "uint64"},    {OPGEN_DT_FLOAT16, ScalarType::Half, "float16"},
    {OPGEN_DT_BFLOAT16, ScalarType::BFloat16, "bfloat16"}, {OPGEN_DT_FLOAT32, ScalarType::Float, "float32"},
    {OPGEN_DT_FLOAT64, ScalarType::Double, "float64"},
};

constexpr bool in_opgen_order() {
  for (size_t k = 0; k < std::size(kDtypes); ++k)
    if (kDtypes[k].opgen != static_cast<int32_t>(k)) return false;
  return std::size(kDtypes) == OPGEN_DT_COUNT;
}
static_assert(in_opgen_order(), "kDtypes: one entry per opgen_dtype, in its order (dtype_of indexes it)");

inline const DtypePair* dtype_of(int32_t opgen) {
  return opgen >= 0 && opgen < OPGEN_DT_COUNT ? &kDtypes[opgen] : nullptr;
}

// The shim's code of each entry: what aoti_torch_get_dtype gives and aoti_torch_empty_strided takes.
// The stable ABI translates ScalarType through the shim, so the codes are looked up once, never assumed
// (inputs and outputs alike).
inline const int32_t* shim_dtype_codes() {
  static const auto codes = [] {
    std::array<int32_t, std::size(kDtypes)> out{};
    for (size_t k = 0; k < out.size(); ++k)
      out[k] = torch::stable::detail::to<int32_t>(torch::stable::detail::from(kDtypes[k].torch));
    return out;
  }();
  return codes.data();
}
inline int32_t shim_code(const DtypePair& d) { return shim_dtype_codes()[&d - kDtypes]; }

// The entry of a tensor's dtype as the shim gives it (nullptr: a dtype opgen does not know): indexed by
// the code where it is small (ScalarType's values are), not searched: every input asks.
inline const DtypePair* dtype_of_shim(int32_t code) {
  static constexpr int32_t kDirect = 128;
  static const auto direct = [] {
    std::array<const DtypePair*, kDirect> out{};
    for (size_t k = 0; k < std::size(kDtypes); ++k)
      if (shim_code(kDtypes[k]) >= 0 && shim_code(kDtypes[k]) < kDirect) out[shim_code(kDtypes[k])] = &kDtypes[k];
    return out;
  }();
  if (code >= 0 && code < kDirect) return direct[code];
  const int32_t* codes = shim_dtype_codes();
  for (size_t k = 0; k < std::size(kDtypes); ++k)
    if (codes[k] == code) return &kDtypes[k];
  return nullptr;
}

// The name of a dtype opgen does not know, as NumPy names it where it has one (the Python
// registration's message names the NumPy array's dtype).
inline std::string other_dtype_name(ScalarType t) {
  switch (t) {
    case ScalarType::ComplexFloat: return "complex64";
    case ScalarType::ComplexDouble: return "complex128";
    default: return "ScalarType " + std::to_string(static_cast<int>(t));
  }
}

// Whether `v` fits the integer dtype (the wrapper's np.iinfo check).
inline bool int_fits(int32_t dtype, int64_t v) {
  switch (dtype) {
    case OPGEN_DT_INT8: return v >= INT8_MIN && v <= INT8_MAX;
    case OPGEN_DT_UINT8: return v >= 0 && v <= UINT8_MAX;
    case OPGEN_DT_INT16: return v >= INT16_MIN && v <= INT16_MAX;
    case OPGEN_DT_UINT16: return v >= 0 && v <= UINT16_MAX;
    case OPGEN_DT_INT32: return v >= INT32_MIN && v <= INT32_MAX;
    case OPGEN_DT_UINT32: return v >= 0 && v <= static_cast<int64_t>(UINT32_MAX);
    case OPGEN_DT_UINT64: return v >= 0;
    default: return true;  // int64
  }
}

// A tensor's device as the shim codes it (aoti_torch_get_device_type's code, the index): compared and
// handed back to aoti_torch_empty_strided as read, translated to PyTorch's DeviceType only for a message.
struct ShimDevice {
  int32_t type;
  int32_t index;
  bool operator==(const ShimDevice& other) const { return type == other.type && index == other.index; }
};

// A device as PyTorch prints it ("cpu", "cuda:0"), for messages.
inline std::string device_text(ShimDevice code) {
  namespace tsd = torch::stable::detail;
  torch::stable::Device d(tsd::to<torch::headeronly::DeviceType>(tsd::from(code.type)),
                          static_cast<torch::stable::accelerator::DeviceIndex>(code.index));
  if (d.type() == torch::headeronly::DeviceType::CPU) return "cpu";
  if (d.type() == torch::headeronly::DeviceType::CUDA) return "cuda:" + std::to_string(d.index());
  if (d.type() == torch::headeronly::DeviceType::Meta) return "meta";
  return "device type " + std::to_string(static_cast<int>(d.type()));
}

// PyTorch's current CUDA stream on `index`, found at run time: a CPU-only PyTorch has no
// libtorch_cuda, so the library must load without naming it.
inline void* current_cuda_stream(const char* op, int32_t index) {
  using Getter = int32_t (*)(int32_t, void**);
  static Getter getter = [] {
    void* sym = dlsym(RTLD_DEFAULT, "aoti_torch_get_current_cuda_stream");
    if (sym == nullptr) {
      void* lib = dlopen("libtorch_cuda.so", RTLD_NOW | RTLD_NOLOAD);
      if (lib != nullptr) sym = dlsym(lib, "aoti_torch_get_current_cuda_stream");
    }
    return reinterpret_cast<Getter>(sym);
  }();
  if (getter == nullptr)
    throw std::runtime_error(std::string(op) + ": a CUDA tensor, but this PyTorch has no CUDA stream API "
                             "(aoti_torch_get_current_cuda_stream not found): a CPU-only PyTorch?");
  void* stream = nullptr;
  if (getter(index, &stream) != 0)
    throw std::runtime_error(std::string(op) + ": cannot get PyTorch's current CUDA stream on cuda:" +
                             std::to_string(index));
  return stream;
}

// Whether the package's torch.py has defined the ops' Python helpers (`<ns>::_<op>_python`,
// codegen/runtime/torch_names.py) in this process: set through the unit's
// opgen_torch_enable_python_path() once it has. A process without opgen's Python (an AOTInductor
// package's) never sets it, and a call the driver hands back is refused there.
inline std::atomic<bool>& python_path() {
  static std::atomic<bool> defined{false};
  return defined;
}

// The message of the error a shim call just reported (the Python helper's exception: "ValueError:
// <the wrapper's words>", its Python traceback left out), where this PyTorch exports it (2.13 and
// later; the stable ABI of 2.11 carries no message).
inline std::string shim_error(const char* op) {
  using Getter = const char* (*)();
  static Getter getter = reinterpret_cast<Getter>(dlsym(RTLD_DEFAULT, "torch_exception_get_what_without_backtrace"));
  const char* what = getter != nullptr ? getter() : nullptr;
  if (what == nullptr || *what == 0)
    return std::string(op) + ": its Python path failed (this PyTorch's stable ABI does not carry the message)";
  std::string text(what);
  return text.substr(0, text.find("\n\nAt:\n"));
}

// One owned tensor handle: the stack's inputs (each a new reference the kernel owns) and the
// outputs handed back to it. A stable Tensor would do, at the cost of a shared_ptr control block
// per tensor and a second handle per output (FromImpl<Tensor> copies it): ~5,900 instructions of a
// 5-output call (RESULTS.md, s8-torch).
class Handle {
 public:
  Handle() = default;
  explicit Handle(AtenTensorHandle h) : h_(h) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& other) noexcept : h_(other.release()) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      h_ = other.release();
    }
    return *this;
  }
  ~Handle() { reset(); }
  AtenTensorHandle get() const { return h_; }
  explicit operator bool() const { return h_ != nullptr; }
  AtenTensorHandle release() { return std::exchange(h_, nullptr); }

 private:
  void reset() {
    if (h_ != nullptr) aoti_torch_delete_tensor_object(h_);  // (a destructor: nothing to report to)
    h_ = nullptr;
  }
  AtenTensorHandle h_ = nullptr;
};

// An attr's value from the stack, as stable's to<T> gives it, except that a str (alone, in a list or
// optional) is read through the shim: PyTorch's to<std::string> allocates a std::string on the heap
// and never frees it (its 2.13 header), a leak and an allocation per str per call. The stack's
// handles are the call's to free, as to<T> frees them.
template <typename T>
struct AttrValue {
  static T from(StableIValue v) { return torch::stable::detail::to<T>(v); }
};
template <>
struct AttrValue<std::string> {
  static std::string from(StableIValue v) {
    StringHandle handle = torch::stable::detail::to<StringHandle>(v);
    size_t length = 0;
    const char* data = nullptr;
    const bool read = torch_string_length(handle, &length) == AOTI_TORCH_SUCCESS &&
                      torch_string_c_str(handle, &data) == AOTI_TORCH_SUCCESS;
    std::string s = read ? std::string(data, length) : std::string();
    STABLE_TORCH_ERROR_CODE_CHECK(torch_delete_string(handle));
    if (!read) throw std::runtime_error("cannot read a str attr through PyTorch's stable ABI");
    return s;
  }
};
template <>
struct AttrValue<std::vector<std::string>> {
  static std::vector<std::string> from(StableIValue v) {
    auto list = torch::stable::detail::to<StableListHandle>(v);
    std::vector<std::string> items;
    try {
      size_t size = 0;
      STABLE_TORCH_ERROR_CODE_CHECK(torch_list_size(list, &size));
      items.reserve(size);
      for (size_t i = 0; i < size; ++i) {
        StableIValue item;
        STABLE_TORCH_ERROR_CODE_CHECK(torch_list_get_item(list, i, &item));
        items.push_back(AttrValue<std::string>::from(item));
      }
    } catch (...) {
      STABLE_TORCH_ERROR_CODE_CHECK(torch_delete_list(list));
      throw;
    }
    STABLE_TORCH_ERROR_CODE_CHECK(torch_delete_list(list));
    return items;
  }
};
template <typename T>
struct AttrValue<std::optional<T>> {
  static std::optional<T> from(StableIValue v) {
    auto* boxed = torch::stable::detail::to<StableIValue*>(v);
    if (boxed == nullptr) return std::nullopt;
    std::optional<T> value(AttrValue<T>::from(*boxed));
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_13_0  // (as stable's to<std::optional<T>> frees it)
    STABLE_TORCH_ERROR_CODE_CHECK(torch_delete_stable_ivalue(boxed));
#else
    delete boxed;
#endif
    return value;
  }
};
template <typename T>
T attr_value(StableIValue v) {
  return AttrValue<T>::from(v);
}

// The shim's getters, checked (each a C call into libtorch, as stable::Tensor's methods make).
template <typename T, typename Getter>
inline T shim_get(Getter getter, AtenTensorHandle h) {
  T value{};
  STABLE_TORCH_ERROR_CODE_CHECK(getter(h, &value));
  return value;
}

// One call of a driver from a boxed kernel: the inputs and attrs in the spec's order, then run().
class Call {
 public:
  explicit Call(const char* op) : op_(op) {}
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;
  ~Call() {
    for (size_t k = 0; k < nheld_; ++k) aoti_torch_delete_tensor_object(held_[k]);  // (as ~Handle: nothing to report to)
  }

  // A tensor input from the stack (`name` for messages), whose handle the call now owns. A tensor
  // the driver cannot read directly (strided, misaligned) is copied once; its copy lives as long
  // as the call.
  void tensor(const char* name, StableIValue v) {
    owned(name, Handle(torch::stable::detail::to<AtenTensorHandle>(v)));
  }
  void optional(const char* name, StableIValue v) {
    std::optional<AtenTensorHandle> t = torch::stable::detail::to<std::optional<AtenTensorHandle>>(v);
    Handle h(t.value_or(nullptr));
    if (h && shim_get<bool>(aoti_torch_is_defined, h.get())) {
      owned(name, std::move(h));
    } else {
      opgen_arg a{};
      a.kind = OPGEN_ARG_ABSENT;
      if (args_.size() < kMaxArgs) origin_[args_.size()] = nullptr;
      add_arg(a);
    }
  }
  void list(const char* name, const std::vector<Tensor>& items) {
    std::vector<opgen_tensor>& descs = lists_.emplace_back();
    for (size_t k = 0; k < items.size(); ++k) {
      const std::string& item = keep(std::string(name) + "[" + std::to_string(k) + "]");
      more_held_.push_back(items[k]);
      descs.push_back(arg_of(item.c_str(), items[k].get()).tensor);
    }
    opgen_arg a{};
    a.kind = OPGEN_ARG_LIST;
    a.items = descs.data();
    a.len = static_cast<int64_t>(descs.size());
    add_arg(a);
  }
  // An `int` input (an input declared accepts_python_int): a 0-d cpu tensor of the input's dtype,
  // as the wrapper's python_int makes it, refused where the value does not fit.
  void integer(const char* name, int64_t v, int32_t dtype) {
    const DtypePair* dt = dtype_of(dtype);
    if (!int_fits(dtype, v))
      throw std::runtime_error(std::string(op_) + ": " + name + ": " + std::to_string(v) + " does not fit in " +
                               (dt ? dt->name : "its dtype"));
    uint64_t& held = ints_.emplace_back(static_cast<uint64_t>(v));  // (little-endian: the low bytes first)
    opgen_arg a{};
    a.kind = OPGEN_ARG_TENSOR;
    a.tensor.data = &held;
    a.tensor.dtype = dtype;
    a.tensor.device = OPGEN_DEV_CPU;
    add_arg(a);
  }

  void attr(int64_t v) { add_attr(value(OPGEN_VAL_INT, v)); }
  void attr(double v) {
    opgen_value x = value(OPGEN_VAL_FLOAT, 0);
    x.f = v;
    add_attr(x);
  }
  void attr(bool v) { add_attr(value(OPGEN_VAL_BOOL, v)); }
  void attr(std::string v) { add_attr(text(std::move(v))); }
  void attr(const std::vector<int64_t>& v) {
    std::vector<opgen_value>& items = values_.emplace_back();
    for (int64_t i : v) items.push_back(value(OPGEN_VAL_INT, i));
    add_attr(list_value(items));
  }
  void attr(const std::vector<std::string>& v) {
    std::vector<opgen_value>& items = values_.emplace_back();
    for (const std::string& s : v) items.push_back(text(s));
    add_attr(list_value(items));
  }

  // Runs `driver` on the inputs' device (the first tensor's; the cpu without any) and puts the
  // schema's `noutputs` outputs on `stack`, one the op did not compute as an empty float32 tensor
  // (a schema has no optional outputs); false, with nothing on `stack`, where the driver hands the
  // call back (OPGEN_ERR_FALLBACK: `fallback` runs it) or the op's driver is not in this library
  // (`driver` NULL).
  bool run(int (*driver)(opgen_call*), const char* symbol, int64_t noutputs, StableIValue* stack) {
    if (driver == nullptr) {  // (an op the driver generator could not translate: its Python path runs it)
      why_ = std::string("its native driver (") + symbol + ") is not built into this library";
      return false;
    }
    opgen_call call;
    opgen_front::clear_call(call);
    call.inputs = args_.data();  // (Slots: in place, so a Call is one object on the kernel's stack)
    call.ninputs = static_cast<int64_t>(args_.size());
    call.attrs = attrs_.data();
    call.nattrs = static_cast<int64_t>(attrs_.size());
    call.device = device_.type == aoti_torch_device_type_cuda() ? OPGEN_DEV_CUDA : OPGEN_DEV_CPU;
    call.device_index = call.device == OPGEN_DEV_CUDA ? device_.index : 0;
    call.allocator.alloc = &Call::alloc;
    call.allocator.ctx = this;
    std::optional<torch::stable::accelerator::DeviceGuard> guard;
    if (call.device == OPGEN_DEV_CUDA) {
      guard.emplace(call.device_index);
      call.stream = current_cuda_stream(op_, call.device_index);
    }
    int result = driver(&call);
    scratch_.clear();  // (cuda: PyTorch's allocator orders the free after the work on the stream)
    if (result == OPGEN_ERR_FALLBACK) {
      why_ = call.err;
      return false;
    }
    if (result != OPGEN_OK) throw std::runtime_error(call.err);
    if (call.noutputs != noutputs)
      throw std::runtime_error(std::string(op_) + ": its driver gave " + std::to_string(call.noutputs) +
                               " outputs, its schema has " + std::to_string(noutputs));
    for (int64_t k = 0; k < noutputs; ++k) {  // (the stack takes each handle over)
      int64_t zero = 0;
      Handle out = k < OPGEN_MAX_OUTPUTS && outputs_[k] ? std::move(outputs_[k])
                                                         : fresh(&zero, 1, shim_code(*dtype_of(OPGEN_DT_FLOAT32)));
      stack[k] = torch::stable::detail::from(out.release());
    }
    return true;
  }

  // A call `run` handed back: run by the op's Python helper `helper` (qualified) through the
  // dispatcher, its `noutputs` outputs put on `stack`, where the package's torch.py defined the
  // helpers (python_path); else refused with the driver's reason. `args()` gives the helper's
  // arguments, the op's own (input, optional_input, attr_as; a list or int input as the kernel
  // read it), each a new reference the dispatcher takes.
  template <typename Args>
  void fallback(const char* helper, int64_t noutputs, StableIValue* stack, Args args) {
    if (!python_path().load(std::memory_order_acquire))
      throw std::runtime_error(std::string(op_) + ": this call needs opgen's Python path (" + why_ + ")");
    std::vector<StableIValue> helper_stack = args();
    if (helper_stack.size() < static_cast<size_t>(noutputs)) helper_stack.resize(static_cast<size_t>(noutputs));
    if (torch_call_dispatcher(helper, "", helper_stack.data(), TORCH_ABI_VERSION) != AOTI_TORCH_SUCCESS)
      throw std::runtime_error(shim_error(op_));  // (the Python path's own words: the op and the argument)
    for (int64_t k = 0; k < noutputs; ++k) stack[k] = helper_stack[static_cast<size_t>(k)];
  }

  // Input `k` (a tensor) as the caller passed it (not a copy made for the driver): a new reference.
  StableIValue input(size_t k) const { return torch::stable::detail::from(new_reference(origin_[k])); }
  // Input `k` (`Tensor?`): None where the caller passed none.
  StableIValue optional_input(size_t k) const {
    if (origin_[k] == nullptr) return torch::stable::detail::from(std::nullopt);
    return torch::stable::detail::from(std::optional<AtenTensorHandle>(new_reference(origin_[k])));
  }
  // Attr `k` as the kernel read it, in the schema's C++ type.
  template <typename T>
  T attr_as(size_t k) const {
    return value_as<T>(attrs_[k]);
  }

 private:
  void add_arg(const opgen_arg& a) {
    if (!args_.add(a))
      throw std::runtime_error(std::string(op_) + ": more than " + std::to_string(kMaxArgs) + " inputs");
  }
  void add_attr(const opgen_value& v) {
    if (!attrs_.add(v))
      throw std::runtime_error(std::string(op_) + ": more than " + std::to_string(kMaxArgs) + " attrs");
  }
  // An input the call owns: described, then kept until the call ends (the descriptor points into it).
  void owned(const char* name, Handle h) {
    opgen_arg a = arg_of(name, h.get());
    if (args_.size() < kMaxArgs) origin_[args_.size()] = h.get();
    if (nheld_ < kMaxArgs) {
      held_[nheld_++] = h.release();
    } else {
      more_held_.emplace_back(h.release());  // (beyond kMaxArgs inputs add_arg refuses the call)
    }
    add_arg(a);
  }

  // The descriptor of tensor `h`, which the caller keeps alive for the call; a strided or
  // misaligned one is copied, the copy kept here.
  opgen_arg arg_of(const char* name, AtenTensorHandle h) {
    namespace tsd = torch::stable::detail;
    int32_t type = shim_get<int32_t>(aoti_torch_get_device_type, h);
    // (a cpu tensor's index is -1, "cpu:0" included: PyTorch's cpu tensors carry none; not read, a shim call saved)
    ShimDevice d{type, type == cpu_ ? -1 : shim_get<int32_t>(aoti_torch_get_device_index, h)};
    if (device_arg_ == nullptr) {
      device_ = d;
      device_arg_ = name;
    } else if (!(d == device_)) {
      std::string a = device_text(device_), b = device_text(d);
      throw std::runtime_error(std::string(op_) + ": " + name + " is on " + b + ", " + device_arg_ + " on " + a +
                               ": Expected all tensors to be on the same device, but found at least two devices, " +
                               a + " and " + b + "!");
    }
    int32_t dtype = shim_get<int32_t>(aoti_torch_get_dtype, h);
    const DtypePair* dt = dtype_of_shim(dtype);
    void* data = shim_get<void*>(aoti_torch_get_data_ptr, h);
    if (!shim_get<bool>(aoti_torch_is_contiguous, h) || misaligned(data, aoti_torch_dtype_element_size(dtype))) {
      h = readable_copy(h);
      data = shim_get<void*>(aoti_torch_get_data_ptr, h);
    }
    opgen_arg a{};
    a.kind = OPGEN_ARG_TENSOR;
    a.tensor.data = data;
    a.tensor.shape = shim_get<int64_t*>(aoti_torch_get_sizes, h);
    a.tensor.strides = nullptr;
    a.tensor.ndim = static_cast<int32_t>(shim_get<int64_t>(aoti_torch_get_dim, h));
    a.tensor.dtype = dt ? dt->opgen : OPGEN_DT_OTHER;
    a.tensor.name = dt ? dt->name : keep(other_dtype_name(tsd::to<ScalarType>(tsd::from(dtype)))).c_str();
    bool cuda = d.type == aoti_torch_device_type_cuda();
    a.tensor.device = cuda ? OPGEN_DEV_CUDA : OPGEN_DEV_CPU;
    a.tensor.device_index = cuda ? d.index : 0;
    if (!cuda && d.type != cpu_)
      throw std::runtime_error(std::string(op_) + ": " + name + " is on " + device_text(d) +
                               ": expected a cpu or cuda tensor");
    return a;
  }

  // Whether `data` is not a multiple of `size` (a mask where size is a power of two: every PyTorch dtype's).
  static bool misaligned(const void* data, size_t size) {
    uintptr_t at = reinterpret_cast<uintptr_t>(data);
    return size != 0 && (size & (size - 1)) == 0 ? (at & (size - 1)) != 0 : size != 0 && at % size != 0;
  }

  // A contiguous, aligned copy of `h` (kept for the call): contiguous() for a strided one (clone
  // would keep the strides), then a fresh tensor for a misaligned one (a fresh one is aligned).
  AtenTensorHandle readable_copy(AtenTensorHandle h) {
    AtenTensorHandle ref = nullptr;
    STABLE_TORCH_ERROR_CODE_CHECK(aoti_torch_new_tensor_handle(h, &ref));
    Tensor t(ref);
    if (!t.is_contiguous()) t = torch::stable::contiguous(t);
    if (reinterpret_cast<uintptr_t>(t.data_ptr()) % t.element_size() != 0) {
      Tensor copy = torch::stable::new_empty(t, t.sizes());
      torch::stable::copy_(copy, t);
      t = copy;
    }
    more_held_.push_back(t);
    return t.get();
  }

  // `s` kept for the call: in one of the call's own strings while they last (a short one then costs
  // no allocation: the attrs' enums), else in texts_.
  const std::string& keep(std::string s) {
    if (nkept_ < std::size(kept_)) return kept_[nkept_++] = std::move(s);
    return texts_.emplace_back(std::move(s));
  }

  opgen_value text(std::string s) {
    const std::string& held = keep(std::move(s));
    opgen_value v = value(OPGEN_VAL_STR, 0);
    v.text = held.data();
    v.len = static_cast<int64_t>(held.size());
    return v;
  }

  // A new contiguous tensor of shim dtype code `dtype` on the call's device through AOTInductor's C
  // shim (aten::empty_strided called directly): torch::stable::empty goes through the dispatcher by
  // the op's name, a look-up and six boxed arguments per tensor, a third of a tiny call's host time.
  Handle fresh(const int64_t* shape, int32_t ndim, int32_t dtype) const {
    int64_t strides[OPGEN_MAX_NDIM];  // (a driver's outputs have at most OPGEN_MAX_NDIM dims: no heap per call)
    contiguous_strides(shape, ndim, strides);
    AtenTensorHandle handle = nullptr;
    STABLE_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(
        ndim, shape, strides, dtype, device_.type, device_.index, &handle));
    return Handle(handle);
  }

  static void contiguous_strides(const int64_t* shape, int32_t ndim, int64_t* strides) {
    if (ndim > OPGEN_MAX_NDIM) throw std::runtime_error("more than " + std::to_string(OPGEN_MAX_NDIM) + " dims");
    if (ndim > 0) strides[ndim - 1] = 1;
    for (int32_t d = ndim - 1; d > 0; --d) strides[d - 1] = strides[d] * (shape[d] > 1 ? shape[d] : 1);
  }

  // A new contiguous cpu tensor of `bytes` bytes on a block of the output pool (host_output_pool.h),
  // which its storage's deleter hands back; an empty Handle where the pool is off or the heap has none.
  Handle pooled(const int64_t* shape, int32_t ndim, int32_t dtype, size_t bytes) const {
    opgen_front::OutputPool& pool = opgen_front::OutputPool::instance();
    if (!pool.enabled()) return Handle();
    int64_t strides[OPGEN_MAX_NDIM];
    contiguous_strides(shape, ndim, strides);
    size_t size = 0;
    void* block = pool.take(bytes, &size);
    if (block == nullptr) return Handle();
    static_assert(sizeof(void*) >= sizeof(size_t), "the deleter's context carries the block's size");
    auto give_back = [](void* data, void* ctx) {
      opgen_front::OutputPool::instance().give_back(data, reinterpret_cast<size_t>(ctx));
    };
    AtenTensorHandle handle = nullptr;
    if (torch_from_blob(block, ndim, shape, strides, 0, dtype, device_.type, device_.index, &handle,
                        aoti_torch_layout_strided(), nullptr, 0, give_back,
                        reinterpret_cast<void*>(size)) != AOTI_TORCH_SUCCESS) {
      // (the block is not handed back: a storage made before the failure owns it, and its deleter
      // hands it back when it goes; twice would give two tensors one block)
      throw std::runtime_error("cannot make a tensor of a block of the output pool (torch_from_blob failed)");
    }
    return Handle(handle);
  }

  // driver.h's allocator: output `index` (or scratch, index -1) as a new PyTorch tensor on the
  // call's device. Never throws into the driver: a failure is a message and a nonzero result.
  static int alloc(void* ctx, int64_t index, int32_t dtype, int32_t ndim, const int64_t* shape, int64_t bytes,
                   void** data, char* err, int64_t errlen) {
    Call* self = static_cast<Call*>(ctx);
    try {
      const DtypePair* dt = dtype_of(dtype);
      if (index < 0 && self->device_.type == self->cpu_) {
        *data = self->host_scratch_.take(bytes);
        if (*data != nullptr) return 0;
      }
      if (index < 0 || dt == nullptr) {  // scratch (or an output of a dtype torch lacks): bytes
        Handle t = self->fresh(&bytes, 1, shim_code(*dtype_of(OPGEN_DT_UINT8)));
        *data = shim_get<void*>(aoti_torch_get_data_ptr, t.get());
        self->scratch_.push_back(std::move(t));
        if (index < 0) return 0;
        throw std::runtime_error("output " + std::to_string(index) + " has dtype " + std::to_string(dtype) +
                                 ", which PyTorch has no tensor of");
      }
      if (index >= OPGEN_MAX_OUTPUTS) throw std::runtime_error("beyond " + std::to_string(OPGEN_MAX_OUTPUTS));
      const bool cpu = self->device_.type == self->cpu_;
      Handle t = cpu && opgen_front::OutputPool::wanted(static_cast<size_t>(bytes))
                     ? self->pooled(shape, ndim, shim_code(*dt), static_cast<size_t>(bytes))
                     : Handle();
      const bool from_pool = static_cast<bool>(t);
      if (!from_pool) t = self->fresh(shape, ndim, shim_code(*dt));
      *data = shim_get<void*>(aoti_torch_get_data_ptr, t.get());
      // (PyTorch's cpu allocator gives a large output fresh 4 KiB pages each call, where NumPy's arrays,
      // the wrappers' outputs, carry the huge-page hint: the drop-in LSTM's reserve space faulted ~10,000
      // pages a call more through torch.ops than through the wrapper; the pool advises its fresh blocks)
      if (cpu && !from_pool) opgen_front::advise_huge_pages(*data, static_cast<size_t>(bytes));
      self->outputs_[index] = std::move(t);
      return 0;
    } catch (const std::exception& e) {
      std::snprintf(err, static_cast<size_t>(errlen), "%s: cannot allocate %s: %s", self->op_,
                    index < 0 ? "scratch" : ("output " + std::to_string(index)).c_str(), e.what());
      return 1;
    }
  }

  static AtenTensorHandle new_reference(AtenTensorHandle h) {
    AtenTensorHandle ref = nullptr;
    STABLE_TORCH_ERROR_CODE_CHECK(aoti_torch_new_tensor_handle(h, &ref));
    return ref;
  }

  template <typename T>
  static T value_as(const opgen_value& v) {
    if constexpr (std::is_same_v<T, double>) {
      return v.f;
    } else if constexpr (std::is_same_v<T, bool>) {
      return v.i != 0;
    } else if constexpr (std::is_same_v<T, int64_t>) {
      return v.i;
    } else if constexpr (std::is_same_v<T, std::string>) {
      return std::string(v.text, static_cast<size_t>(v.len));
    } else {  // a list: std::vector of one of the above
      T items;
      for (int64_t k = 0; k < v.len; ++k) items.push_back(value_as<typename T::value_type>(v.items[k]));
      return items;
    }
  }

  static constexpr size_t kMaxArgs = 64;  // (as the Python front's: no op comes near)
  const char* op_;
  const int32_t cpu_ = aoti_torch_device_type_cpu();  // (the shim's code of the cpu: asked once a call)
  ShimDevice device_{cpu_, -1};  // (the first tensor input's; the cpu without any)
  const char* device_arg_ = nullptr;  // (that input's name: a literal, or a list item's name kept by keep())
  opgen_front::Slots<opgen_arg, kMaxArgs> args_;
  opgen_front::Slots<opgen_value, kMaxArgs> attrs_;
  // (lists: what a descriptor points into never moves, and an empty one allocates nothing, where a
  // deque allocates its map and a node at construction: eight allocations a call for nothing)
  std::list<std::vector<opgen_tensor>> lists_;
  std::list<std::vector<opgen_value>> values_;
  std::string kept_[4];
  size_t nkept_ = 0;
  std::list<std::string> texts_;  // (beyond kept_: what keep() returns never moves)
  std::list<uint64_t> ints_;
  AtenTensorHandle held_[kMaxArgs];  // (the first nheld_ owned, deleted by ~Call: no 64 handles set and tested a call)
  size_t nheld_ = 0;
  AtenTensorHandle origin_[kMaxArgs];  // (input k's handle as the caller passed it, or null: for fallback)
  std::string why_;  // (the driver's reason for handing a call back)
  std::vector<Tensor> more_held_;  // (list items, copies)
  std::vector<Handle> scratch_;  // (cuda's: PyTorch's allocator; the cpu's are host_scratch_'s)
  opgen_front::HostScratch host_scratch_;
  Handle outputs_[OPGEN_MAX_OUTPUTS];
};

}  // namespace opgen_torch

#endif  // OPGEN_TORCH_STABLE_H
