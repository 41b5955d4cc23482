// Host runtime for emulated CUDA kernels: a worker-thread pool runs blocks, each CUDA thread of a
// block is a fiber on the worker that owns the block. Built once into opgen-emu-rt-<hash>.so;
// kernel modules reach it through the opgen_rt_api table (see opgen_emu_abi.h and README.md).
//
// A unity build: the parts under rt/, one job each, are #included below in this order and compiled
// as this one translation unit. One TU keeps every internal in one anonymous namespace (the library
// exports only api.cpp's OPGEN_API functions, and no helper can clash with a kernel module's
// symbols), lets the compiler inline across parts (a fiber hand-over, a barrier, a warp collective
// are each a few calls between parts), and keeps the build one compiler call on one file. What
// the parts share is declared in rt/state.h, so a part may use any other, whatever the order.
//
//   rt/state.h         the per-block state (Fiber, Warp, Worker); what a part uses of another
//   rt/fibers.cpp      fibers: context switch, stacks, hand-over, a fiber's start and end
//   rt/messages.cpp    error messages: where (kernel, block, thread), failing a fiber, deadlocks
//   rt/warps.cpp       warp collectives: shuffles, votes, match, reduce, __syncwarp
//   rt/barriers.cpp    __syncthreads and its _count/_and/_or forms
//   rt/sanitizer.cpp   the sanitize build: bounds, uninitialised shared memory, races (shadow)
//   rt/scheduler.cpp   one block: scheduling passes, random order, deadlock detection
//   rt/settings.cpp    the OPGEN_* variables it reads, by the settings table's rules (generated)
//   rt/faults.cpp      SIGSEGV/SIGBUS/SIGFPE/SIGILL in a fiber: handler, its stack, the report
//   rt/phases.cpp      a timing harness per batch record, only in a -DOPGEN_RT_PHASES build
//   rt/pool.cpp        the worker pool, and rt_launch: one launch's blocks on it
//   rt/batch.cpp       opgen_rt_run_batch: the launches Python queued, run by one call
//   rt/gemm.cpp        a launch plan's GEMM step through the process's BLAS (opgen_gemm_desc)
//   rt/api.cpp         the exported entry points: opgen_rt_api table, batch, ABI layout text
#include "rt/state.h"

#include "rt/fibers.cpp"
#include "rt/messages.cpp"
#include "rt/warps.cpp"
#include "rt/barriers.cpp"
#include "rt/sanitizer.cpp"
#include "rt/scheduler.cpp"
#include "rt/settings.cpp"
#include "rt/faults.cpp"
#include "rt/phases.cpp"
#include "rt/pool.cpp"
#include "rt/batch.cpp"
#include "rt/gemm.cpp"
#include "rt/api.cpp"
