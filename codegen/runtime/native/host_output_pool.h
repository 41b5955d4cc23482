// Large cpu outputs of the PyTorch front (torch_stable.h), kept for reuse across calls and threads.
// PyTorch's cpu allocator hands a large tensor to glibc, which maps it fresh (mmap) and unmaps it when
// the tensor dies: every call of an op with a large output (the drop-in LSTM's ~36 MB reserve space)
// faults and the kernel zeroes all its pages again (~13 ms of a call's CPU on the session VM of
// bench/RESULTS.md, even with huge pages). An output of at least kMinBytes is instead a block of this
// pool made a tensor with torch_from_blob, whose deleter hands the block back here when the tensor's
// storage dies (on whichever thread: autograd's, a DataLoader's, Python's), and the next call of the
// same size takes it again, its pages already there. (Scratch is host_scratch.h's, one thread's:
// a call hands it back itself.)
//
// Blocks are 2 MiB aligned and a multiple of 2 MiB (huge pages cover the whole block; a fresh one
// gets host_pages.h's hint); a take is the smallest kept block of the size up to twice it
// (KeptBlocks, as the scratch caches). At most KeptBlocks::kKeep blocks, kMaxBytes in all, are kept:
// keeping one more lets the oldest go first, so the sizes called lately stay (an op whose sizes changed
// frees the old ones within a call or two) and what a process holds idle stays bounded. 128 MiB is
// twice what a thread's scratch keeps: a training step's large outputs (the reserve space of each
// recurrent layer stack, a few activations) fit, a model's whole activations would not, nor should.
//
// A kept block's bytes are what its last tensor left (a fresh tensor's are whatever the heap held):
// every output is written whole by its op. What differs from an output of PyTorch's allocator: its
// storage cannot grow, as torch.from_numpy's cannot (resize_ to more elements than the tensor was made
// with raises "Trying to resize storage that is not resizable", leaving the larger shape set; smaller,
// or back within its size, works); share_memory_() (which moves it to shared memory and hands the
// block back), pickling, torch.save, .numpy() and autograd's saved tensors behave as for any tensor
// (docs/pytorch.md; tests/test_torch_output_pool.py).
//
// The pool is never destroyed (leaked on purpose): a tensor freed while the process exits (the
// interpreter's teardown, after static destructors ran) still finds it. A fork holds its lock across
// the fork (pthread_atfork), so the child never inherits it taken by a thread the child lacks.
// OPGEN_TORCH_OUTPUT_POOL=0 (read when a package's torch module loads its library; `set_enabled`)
// turns it off: outputs come from PyTorch's allocator again and held blocks are freed.
#ifndef OPGEN_HOST_OUTPUT_POOL_H
#define OPGEN_HOST_OUTPUT_POOL_H

#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <mutex>

#include "host_pages.h"
#include "host_scratch.h"

namespace opgen_front {

class OutputPool {
 public:
  // Smaller outputs are a small share of their call's faults; the huge-page hint's threshold (one fact).
  static constexpr size_t kMinBytes = kHugePageAdviceMinBytes;
  static constexpr size_t kMaxBytes = size_t(128) << 20;

  // The process's pool (never destroyed: see above).
  static OutputPool& instance() {
    static OutputPool* pool = [] {
      auto* p = new OutputPool();
      (void)pthread_atfork([] { instance().mutex_.lock(); }, [] { instance().mutex_.unlock(); },
                           [] { instance().mutex_.unlock(); });
      return p;
    }();
    return *pool;
  }

  static bool wanted(size_t bytes) { return bytes >= kMinBytes; }

  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }

  // Off: takes nothing, keeps nothing, and what it holds is freed now. Returns the previous state.
  bool set_enabled(bool on) {
    bool was = enabled_.exchange(on);
    if (!on) {
      std::lock_guard<std::mutex> lock(mutex_);
      kept_.release();
    }
    return was;
  }

  // A block of at least `bytes` (its size in *got: hand that back with it), or nullptr where the heap
  // has none.
  void* take(size_t bytes, size_t* got) {
    const size_t size = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (void* block = kept_.take(size, got)) return block;
    }
    void* block = std::aligned_alloc(kHugePageBytes, size);
    if (block == nullptr) return nullptr;
    advise_huge_pages(block, size);
    *got = size;
    return block;
  }

  // `block` (of `size` bytes, as take gave it) kept, or freed where the pool is off or it is too large.
  void give_back(void* block, size_t size) {
    bool kept = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);  // (enabled read under it: set_enabled(false) frees all after)
      kept = enabled() && kept_.keep(block, size);
    }
    if (!kept) std::free(block);
  }

  // What the pool holds idle, in bytes (for tests: never above kMaxBytes).
  size_t bytes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return kept_.bytes();
  }

 private:
  OutputPool() : kept_(kMaxBytes) {}

  std::mutex mutex_;
  KeptBlocks kept_;
  std::atomic<bool> enabled_{true};
};

}  // namespace opgen_front

#endif  // OPGEN_HOST_OUTPUT_POOL_H
