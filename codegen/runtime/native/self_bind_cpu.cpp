// A library that carries its kernels binds its ops itself, so that it runs in a process without
// opgen's Python (an AOTInductor package's): on an op's first call without a binding it opens its
// companions (the emulation runtime, then the op's kernel module, each once, from the library's
// own folder), finds a BLAS by name, reads the launch settings, and binds the op as
// codegen/runtime/native_cpu.py's `bind` would. Python's bind, where Python is present, simply
// rebinds. The unit that includes this defines `OPGEN_SELF_TABLE` (self_bind_cpu.h) first.
#include <dlfcn.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cpu_batch.h"
#include "opgen_emu_abi.h"
#include "run_plan_cpu.h"
#include "self_bind_cpu.h"

namespace opgen_self_bind {
namespace {

// What every op's binding shares, opened once: the runtime's entry points and the BLAS.
struct Shared {
  std::string error;  // non-empty: nothing binds (the runtime is missing or refuses)
  const opgen_rt_api* api = nullptr;
  uint64_t run_batch = 0, gemm = 0, sgemm = 0, dgemm = 0;
  bool blas_int64 = false;
  std::string no_blas;  // why there is no BLAS (GEMM steps then say it)
  std::vector<void*> modules;  // opened and initialised, by table index (nullptr: not yet)
};

std::mutex g_mu;

// The folder of this library (companions named without a path lie there).
std::string own_folder() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void*>(&own_folder), &info) || !info.dli_fname) return ".";
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string companion(const char* file) {
  return std::strchr(file, '/') ? std::string(file) : own_folder() + "/" + file;
}

void* open_companion(const char* file, std::string& why) {
  std::string path = companion(file);
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* e = dlerror();
    why = "cannot open " + path + " (" + (e ? e : "?") + "): ship the library's companions beside it "
          "(docs/pytorch.md, deployment without Python)";
  }
  return handle;
}

// An integer setting: its default where unset or blank; false with `why` where it is not one >= min.
bool int_setting(const char* name, int64_t fallback, int64_t min, int64_t& value, std::string& why) {
  const char* text = getenv(name);
  const char* c = text;
  while (c && *c && std::strchr(" \t\n\r\v\f", *c)) ++c;
  if (!c || !*c) return value = fallback, true;
  char* end = nullptr;
  errno = 0;
  long long v = strtoll(c, &end, 10);
  while (end && *end && std::strchr(" \t\n\r\v\f", *end)) ++end;
  if (errno || !end || *end || v < min) {
    why = std::string(name) + "='" + text + "': expected an integer >= " + std::to_string(min);
    return false;
  }
  return value = v, true;
}

int64_t cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return 1;
}

void find_blas(const opgen_self_table& t, Shared& s) {
  std::vector<std::string> names;
  const char* chosen = getenv(t.blas_setting);
  if (chosen && *chosen) names.push_back(chosen);
  for (int64_t k = 0; k < t.nblas; ++k) names.push_back(t.blas[k]);
  for (const std::string& name : names) {
    void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) continue;
    for (int64_t k = 0; k < t.nblas_symbols; ++k) {
      void* sg = dlsym(lib, t.blas_symbols[k].sgemm);
      void* dg = dlsym(lib, t.blas_symbols[k].dgemm);
      if (sg && dg) {
        s.sgemm = reinterpret_cast<uint64_t>(sg);
        s.dgemm = reinterpret_cast<uint64_t>(dg);
        s.blas_int64 = t.blas_symbols[k].int64 != 0;
        return;  // (kept open)
      }
    }
    dlclose(lib);
  }
  std::string tried;
  for (const std::string& name : names) tried += (tried.empty() ? "" : ", ") + name;
  s.no_blas = "no BLAS for the GEMM steps: none of " + tried + " exports cblas_sgemm and cblas_dgemm; install "
              "OpenBLAS (libopenblas0) or name a BLAS library in " + t.blas_setting;
}

Shared& shared(const opgen_self_table& t) {  // (g_mu held)
  static Shared* s = nullptr;
  if (s) return *s;
  s = new Shared();  // (never freed: bindings point into the libraries it keeps open)
  s->modules.assign(static_cast<size_t>(t.nmodules), nullptr);
  void* rt = open_companion(t.runtime, s->error);
  if (!rt) return *s;
  auto get_api = reinterpret_cast<const opgen_rt_api* (*)()>(dlsym(rt, "opgen_rt_get_api"));
  s->api = get_api ? get_api() : nullptr;
  s->run_batch = reinterpret_cast<uint64_t>(dlsym(rt, "opgen_rt_run_batch"));
  s->gemm = reinterpret_cast<uint64_t>(dlsym(rt, "opgen_rt_gemm"));
  if (!s->api || s->api->abi_version != OPGEN_EMU_ABI_VERSION || !s->run_batch || !s->gemm) {
    s->error = std::string(t.runtime) + " is not the emulation runtime of ABI " +
               std::to_string(OPGEN_EMU_ABI_VERSION) + " this library was built with";
    return *s;
  }
  find_blas(t, *s);
  return *s;
}

void* module(const opgen_self_table& t, Shared& s, int32_t index, std::string& why) {  // (g_mu held)
  if (s.modules[index]) return s.modules[index];
  void* lib = open_companion(t.modules[index], why);
  if (!lib) return nullptr;
  auto init = reinterpret_cast<int (*)(const opgen_rt_api*)>(dlsym(lib, "opgen_module_init"));
  if (!init || init(s.api) != OPGEN_EMU_ABI_VERSION) {
    why = std::string(t.modules[index]) + ": module/runtime ABI mismatch (rebuild the library)";
    return nullptr;
  }
  return s.modules[index] = lib;
}

const opgen_self_kernel* kernel_of(const opgen_self_table& t, const char* op, const char* symbol) {
  for (int64_t k = 0; k < t.nkernels; ++k)
    if (!std::strcmp(t.kernels[k].op, op) && !std::strcmp(t.kernels[k].symbol, symbol)) return &t.kernels[k];
  return nullptr;
}

// opgen_native::CpuKernel of `symbol` in module `lib`, as HostModule/HostFunction read it.
bool kernel(void* lib, const opgen_self_kernel& k, const opgen_self_table& t, opgen_native::CpuKernel& out,
            std::string& why) {
  std::string launch = std::string("opgen_launch_") + k.symbol, params = std::string("opgen_params_") + k.symbol;
  void* fn = dlsym(lib, launch.c_str());
  auto info = reinterpret_cast<int (*)(unsigned*, int)>(dlsym(lib, params.c_str()));
  auto smem = reinterpret_cast<uint64_t (*)()>(dlsym(lib, "opgen_module_static_smem"));
  if (!fn || !info || !smem) {
    why = std::string(k.op) + ": kernel '" + k.symbol + "' is not in its module " + t.modules[k.module];
    return false;
  }
  std::vector<unsigned> kinds(256);
  int n = info(kinds.data(), static_cast<int>(kinds.size()));
  if (n > static_cast<int>(kinds.size())) {
    kinds.resize(static_cast<size_t>(n));
    info(kinds.data(), n);
  }
  const int64_t static_shared = static_cast<int64_t>(smem());
  out = opgen_native::CpuKernel{k.symbol, reinterpret_cast<uint64_t>(fn),
                                std::vector<uint32_t>(kinds.begin(), kinds.begin() + n), k.max_threads,
                                std::min(t.max_dynamic_shared, t.max_shared - static_shared), static_shared};
  return true;
}

// The launch settings (host/switches.py _launch_settings), read at each binding.
bool settings(const opgen_self_table& t, opgen_native::CpuBinding& b, std::string& why) {
  int64_t stack_kb = 0;
  if (!int_setting(t.threads_setting, cpus(), t.threads_min, b.threads, why) ||
      !int_setting(t.stack_kb_setting, t.stack_kb_default, t.stack_kb_min, stack_kb, why))
    return false;
  b.stack_size = static_cast<uint64_t>(stack_kb) * 1024;
  const char* seed = getenv(t.seed_setting);
  const char* c = seed;
  while (c && *c && std::strchr(" \t\n\r\v\f", *c)) ++c;
  b.random_order = c && *c;
  b.seed = 0;
  if (b.random_order) {
    char* end = nullptr;
    errno = 0;
    long long v = strtoll(c, &end, 0);
    while (end && *end && std::strchr(" \t\n\r\v\f", *end)) ++end;
    if (errno || !end || *end) {
      why = std::string(t.seed_setting) + "='" + seed + "': expected an integer seed (decimal, or 0x... hex)";
      return false;
    }
    b.seed = static_cast<uint64_t>(v);
  }
  return true;
}

int bind(const opgen_native::PlanCall& plan, std::string& why) {
  const opgen_self_table& t = OPGEN_SELF_TABLE;
  std::lock_guard<std::mutex> hold(g_mu);
  Shared& s = shared(t);
  if (!s.error.empty()) return why = std::string(plan.op) + ": " + s.error, 1;
  auto b = std::make_shared<opgen_native::CpuBinding>();
  b->plan = "cpu";
  for (int64_t j = 0; j < plan.nsymbols; ++j) {
    const opgen_self_kernel* k = kernel_of(t, plan.op, plan.symbols[j]);
    if (!k) return why = std::string(plan.op) + ": kernel '" + plan.symbols[j] + "' is not in this library", 1;
    void* lib = module(t, s, k->module, why);
    opgen_native::CpuKernel kernel_out;
    if (!lib || !kernel(lib, *k, t, kernel_out, why)) return why = std::string(plan.op) + ": " + why, 1;
    b->kernels.push_back(std::move(kernel_out));
  }
  b->run_batch = s.run_batch;
  b->gemm = s.gemm;
  b->sgemm = s.sgemm;
  b->dgemm = s.dgemm;
  b->blas_int64 = s.blas_int64;
  b->no_blas = s.no_blas;
  for (int axis = 0; axis < 3; ++axis) {
    b->max_grid[axis] = t.max_grid[axis];
    b->max_block[axis] = t.max_block[axis];
  }
  b->max_shared = t.max_shared;
  if (!settings(t, *b, why)) return why = std::string(plan.op) + ": " + why, 1;
  opgen_native::install_cpu_binding(plan.op, std::move(b));
  return 0;
}

// Installed when the library loads: only a pointer is set (the companions open on a first call).
const bool g_installed = (opgen_native::set_cpu_binder(bind), true);

}  // namespace
}  // namespace opgen_self_bind
