// The gate library (issue 32): one per installed PyTorch, shared by every package (codegen/runtime/
// torch_gate.py builds it once into the cache). Loading it registers nothing; a package's torch.py
// then calls opgen_gate_register (through ctypes) with its namespace, ops and helper schemas.
#include "torch_autograd_gate.h"

#include <cstddef>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

// Every package's registrations, kept for the process: a Library's destructor would undo them.
std::vector<torch::Library>& kept() {
  static auto* libraries = new std::vector<torch::Library>();  // (never destroyed: torch outlives it at exit)
  return *libraries;
}

void write_error(const char* what, char* err, size_t err_size) {
  if (err == nullptr || err_size == 0) return;
  std::strncpy(err, what, err_size - 1);
  err[err_size - 1] = '\0';
}

}  // namespace

// Defines each op's helper (`helper_schemas[k]`, `_<op>_autograd(...)`) in a fragment of `ns` and
// registers the gate as the Autograd kernel of `ops[k]` (k < n). All or nothing: on a C++ exception
// (a helper defined already, a bad schema) nothing stays registered, the message goes to `err` and
// the result is 1; 0 on success.
extern "C" __attribute__((visibility("default"))) int opgen_gate_register(
    const char* ns, const char* const* ops, const char* const* helper_schemas, size_t n, char* err,
    size_t err_size) {
  try {
    torch::Library helpers(torch::Library::FRAGMENT, ns, std::nullopt, __FILE__, __LINE__);
    torch::Library autograd(torch::Library::IMPL, ns, c10::DispatchKey::Autograd, __FILE__, __LINE__);
    for (size_t k = 0; k < n; ++k) {
      std::string schema(helper_schemas[k]);
      helpers.def(schema.c_str());
      std::string helper = std::string(ns) + "::" + schema.substr(0, schema.find('('));
      autograd.impl(ops[k], torch::CppFunction::makeFromBoxedFunctor(
                                std::make_unique<opgen_torch_gate::Kernel>(std::move(helper))));
    }
    kept().push_back(std::move(helpers));
    kept().push_back(std::move(autograd));
    return 0;
  } catch (const std::exception& e) {
    write_error(e.what(), err, err_size);
  } catch (...) {
    write_error("an unknown C++ exception", err, err_size);
  }
  return 1;
}
