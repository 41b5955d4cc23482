// ABI between a compiled kernel module and the shared host runtime
// (libopgen_emu_rt, built from runtime.cpp). Both sides are C++ built by the
// same compiler; bump OPGEN_EMU_ABI_VERSION whenever a struct changes.
#ifndef OPGEN_EMU_ABI_H
#define OPGEN_EMU_ABI_H

#include <stddef.h>
#include <stdint.h>

#define OPGEN_EMU_ABI_VERSION 6
#define OPGEN_EMU_MAX_SMEM (227u * 1024u)  // largest dynamic shared memory we emulate

struct uint3 { unsigned int x, y, z; };

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

// One per CUDA thread. The module's threadIdx/blockIdx/... macros read it.
struct opgen_thread_ctx {
  uint3 thread_idx;
  uint3 block_idx;
  dim3 block_dim;
  dim3 grid_dim;
  unsigned int linear;  // threadIdx linearised, x fastest
  unsigned int lane;    // linear % 32
  unsigned int warp;    // linear / 32
};

// Sanitize builds: a global buffer of a launch (base = its address), or a static __shared__
// variable of the module (base = its offset in the module's TLS block; name null: the emulation's
// own thread_local bookkeeping, never checked).
struct opgen_san_range {
  uint64_t base;
  uint64_t size;
  const char* name;
  uint64_t granule;  // global buffers: element size (races are tracked per element); else 1
};

// Launch configuration as filled in by Python (ctypes mirrors this layout).
struct opgen_launch_cfg {
  unsigned int grid[3];
  unsigned int block[3];
  uint64_t shmem;       // dynamic shared memory bytes
  int32_t nworkers;     // OS threads running blocks
  int32_t random_order; // 0 / 1
  uint64_t seed;
  uint64_t stack_size;  // bytes per fiber stack
  // Sanitize builds only (else sanitize = 0 and the rest unused): buffers sorted by base.
  int32_t sanitize;
  int32_t nbuffers;
  const opgen_san_range* buffers;
  int32_t nvars;
  int32_t pad_;
  const opgen_san_range* vars;
  // The memory the buffers were copied into, red zones included (host_sanitize.BuffersApart): an
  // access outside it is in no buffer nor next to one. 0, 0: not known.
  uint64_t apart_lo;
  uint64_t apart_hi;
  // The blocks this launch runs: those whose linear index (x fastest) is in [block_lo, block_hi);
  // blockIdx and gridDim stay the whole grid's. block_hi 0: every block.
  uint64_t block_lo;
  uint64_t block_hi;
};

// One launch of a batch (opgen_rt_run_batch, filled in by Python's struct module, same layout):
// the module's opgen_launch_<kernel>, its configuration, then nargs 16-byte slots of argument
// values. Bit k of `table_args` (k < 64) says slot k holds an index into the batch's buffer table
// instead: the launch gets that entry, a data pointer (a recorded launch plan's buffers,
// codegen/runtime/plan.py, are bound to one table per call). The runtime reads no Python object.
// `lane` 0: an ordinary record. L >= 1: a record of lane L. A lane run (a maximal run of consecutive
// records with lane >= 1) runs each lane's records in order on one thread, the lanes side by side
// (rt/batch.cpp): a lane's records may depend only on its own earlier records and on what came before
// the run; different lanes of a run neither write the same memory nor read what another writes.
struct opgen_batch_record {
  uint64_t launch;  // int (*)(const opgen_launch_cfg*, void** args, char* err, size_t errlen)
  uint64_t cfg;     // const opgen_launch_cfg*
  uint32_t nargs;
  uint32_t lane;
  uint64_t table_args;
};
#define OPGEN_BATCH_MAX_ARGS 256

// A GEMM step of a launch plan, run by the runtime through the process's BLAS (the cpu backend's
// GEMM, codegen/runtime/host/blas.py): out[m, n] = op(a)·op(b), or out += op(a)·op(b) when beta
// is 1 (the product is rounded to the element type first, then added, as NumPy's `out += a @ b`),
// over row-major buffers at element offsets. In a batch, a GEMM is a record whose `launch` is
// opgen_rt_gemm and whose `cfg` points at this descriptor; its three arguments are a, b and out.
struct opgen_gemm_desc {
  uint64_t blas;    // cblas_sgemm (dtype 0) or cblas_dgemm (dtype 1) of the process's BLAS
  int32_t dtype;    // 0 float32, 1 float64
  int32_t int64;    // 1: the BLAS takes 64-bit integers (ILP64), 0: 32-bit
  int64_t m, n, k;
  int32_t trans_a, trans_b, beta, pad_;
  int64_t a_offset, b_offset, out_offset;  // elements
};

// Where a block's shared memory lives on the worker thread that runs it (filled by block_begin).
struct opgen_block_mem {
  char* tls;          // the module's TLS block: every __shared__ variable
  uint64_t tls_size;
  char* dyn;          // the dynamic shared memory buffer (null if the module has none)
  const char* image_lo, *image_hi;  // the module's loaded image (constants, string literals)
};

// What a module hands to the runtime for one launch.
struct opgen_launch_desc {
  const char* kernel;
  const opgen_launch_cfg* cfg;
  // Runs one CUDA thread to completion (called on its fiber).
  void (*run_thread)(const opgen_thread_ctx* ctx, void* user);
  // Called on the worker OS thread before a block starts: poisons shared memory, says where it is.
  void (*block_begin)(void* user, uint64_t shmem, opgen_block_mem* out);
  void* user;
};

enum opgen_sync_kind { OPGEN_SYNC_PLAIN = 0, OPGEN_SYNC_COUNT = 1, OPGEN_SYNC_AND = 2, OPGEN_SYNC_OR = 3 };

enum opgen_warp_op {
  OPGEN_W_SYNC = 0, OPGEN_W_SHFL_IDX, OPGEN_W_SHFL_UP, OPGEN_W_SHFL_DOWN, OPGEN_W_SHFL_XOR,
  OPGEN_W_BALLOT, OPGEN_W_ANY, OPGEN_W_ALL, OPGEN_W_MATCH_ANY, OPGEN_W_MATCH_ALL,
  OPGEN_W_REDUCE_ADD, OPGEN_W_REDUCE_MIN_U, OPGEN_W_REDUCE_MAX_U, OPGEN_W_REDUCE_MIN_S,
  OPGEN_W_REDUCE_MAX_S, OPGEN_W_REDUCE_AND, OPGEN_W_REDUCE_OR, OPGEN_W_REDUCE_XOR,
  OPGEN_W_NUM_OPS
};

// Function table exported by the runtime; the module stores a pointer to it.
struct opgen_rt_api {
  int abi_version;
  int (*launch)(const opgen_launch_desc* desc, char* err, size_t errlen);
  // __syncthreads family: blocks the calling fiber until the whole block arrives. file/line: the
  // call site (threads of a block meeting at different barriers is undefined behaviour).
  int (*sync_block)(const opgen_thread_ctx* me, int kind, int pred, const char* file, int line);
  // Warp collectives: blocks until every live lane named in mask arrives.
  uint64_t (*warp_op)(const opgen_thread_ctx* me, int op, unsigned mask, uint64_t value, int arg, int width);
  unsigned (*active_mask)(const opgen_thread_ctx* me);
  // Aborts the launch with msg (assert, __trap); never returns.
  void (*fail)(const opgen_thread_ctx* me, const char* msg);
  // Sanitize builds: every memory access of kernel code (bounds, races, uninitialised shared
  // memory); may switch fibers (preemption in random order). flags: OPGEN_SAN_*.
  void (*san_access)(const opgen_thread_ctx* me, const void* addr, uint64_t size, int flags, const void* pc);
};

enum { OPGEN_SAN_WRITE = 1, OPGEN_SAN_ATOMIC = 2 };

// The layout of the structs Python fills in, as the runtime was compiled (sizeof/offsetof): Python
// checks its mirrors of them (ctypes structures, struct formats) against it with
// codegen/runtime/abi_layout.py, so a struct changed on one side only is an error naming the field
// instead of fields misread.
// A static string: one line per struct, lines separated by '\n' (none after the last),
//   NAME=SIZEOF;FIELD=OFFSETOF;FIELD=OFFSETOF;...
// with every field in declaration order (padding fields such as pad_ included), in decimal bytes:
//   opgen_san_range=32;base=0;size=8;name=16;granule=24
// Structs: opgen_launch_cfg, opgen_batch_record, opgen_san_range.
extern "C" const char* opgen_rt_abi_layout(void);

// The constants Python mirrors in codegen/runtime/host/limits.py, as the runtime was compiled
// (checked by abi_layout.check_constants): a static string NAME=VALUE;NAME=VALUE, in decimal:
//   abi_version=6;max_shared_mem=232448
extern "C" const char* opgen_rt_constants(void);

#endif
