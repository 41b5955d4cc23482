// A driver's scratch buffers (driver.h's allocator, index -1) for a front-end's cpu calls: the
// Python wrappers' (pyentry.cpp), PyTorch's (torch_stable.h) and JAX's (jax_ffi.h). No caller ever
// sees scratch, so it needs no array or tensor object: plain heap blocks, 64-byte aligned, handed
// back with the call (a NumPy array per block took the GIL back and built an object; a PyTorch one a
// TensorImpl). Blocks handed back are kept for the same thread's next calls (ScratchCache): a call
// repeated takes the same blocks each time. For a small block that spares glibc's aligned allocation
// and free (about 0.3 µs a call); for a large one (megabytes: an RNN's gate buffers) it spares the
// kernel's fresh pages, since glibc hands a large freed block back to the kernel (munmap, or a trimmed
// heap top) and the next call's writes fault every page in again, zeroed (the drop-in LSTM's ~37 MB
// of scratch: thousands of page faults a call). A kept block's bytes are whatever the last call left,
// as a fresh block's are whatever the heap held: scratch is never read before the plan writes it
// (and a poisoning front-end poisons every block it takes).
#ifndef OPGEN_HOST_SCRATCH_H
#define OPGEN_HOST_SCRATCH_H

#include <cstdint>
#include <cstdlib>
#include <vector>

namespace opgen_front {

// Blocks handed back, kept for a later take: at most kKeep blocks of at most `max_bytes` in all (a
// block larger than that goes back to the heap at once). Keeping one more frees the oldest first, as
// many as it takes: the latest calls are the ones likely to come again (a cache left full of an
// earlier op's sizes would keep nothing of the ops called now), and an op whose sizes change lets go of
// the old sizes' blocks within a call or two. Blocks are std::aligned_alloc's (freed with std::free).
// Not locked: a ScratchCache is one thread's; host_output_pool.h locks its own.
class KeptBlocks {
 public:
  static constexpr int kKeep = 16;

  explicit KeptBlocks(size_t max_bytes) : max_bytes_(max_bytes) {}
  KeptBlocks(const KeptBlocks&) = delete;
  KeptBlocks& operator=(const KeptBlocks&) = delete;
  ~KeptBlocks() { release(); }

  // A kept block of `size` bytes or up to twice that (the smallest such; its size in *got), taken
  // out; else nullptr.
  void* take(size_t size, size_t* got) {
    int best = -1;
    for (int k = 0; k < count_; ++k)
      if (kept_[k].size >= size && kept_[k].size <= 2 * size && (best < 0 || kept_[k].size < kept_[best].size))
        best = k;
    if (best < 0) return nullptr;
    void* block = kept_[best].block;
    *got = kept_[best].size;
    for (int k = best + 1; k < count_; ++k) kept_[k - 1] = kept_[k];  // (the rest stay oldest first)
    --count_;
    bytes_ -= *got;
    return block;
  }

  // `block` (of `size` bytes) kept for a later take, or false: the caller frees it.
  bool keep(void* block, size_t size) {
    if (size > max_bytes_) return false;
    int drop = 0;
    size_t after = bytes_ + size;
    while (count_ - drop == kKeep || after > max_bytes_) after -= kept_[drop++].size;
    for (int k = 0; k < drop; ++k) std::free(kept_[k].block);
    for (int k = drop; k < count_; ++k) kept_[k - drop] = kept_[k];
    count_ -= drop;
    kept_[count_++] = Kept{block, size};
    bytes_ = after;
    return true;
  }

  // Every kept block freed.
  void release() {
    for (int k = 0; k < count_; ++k) std::free(kept_[k].block);
    count_ = 0;
    bytes_ = 0;
  }

  size_t bytes() const { return bytes_; }  // (what is kept: for tests)

 private:
  struct Kept {
    void* block;
    size_t size;
  };
  Kept kept_[kKeep] = {};
  int count_ = 0;
  size_t bytes_ = 0;  // (the kept blocks' sizes, summed)
  const size_t max_bytes_;
};

// One thread's scratch blocks handed back: at most 64 MiB (its gate buffers' sizes repeat call after call).
class ScratchCache : public KeptBlocks {
 public:
  static constexpr size_t kKeepBytes = size_t(64) << 20;

  ScratchCache() : KeptBlocks(kKeepBytes) {}

  // This thread's (its blocks freed when the thread ends).
  static ScratchCache& mine() {
    thread_local ScratchCache cache;
    return cache;
  }
};

class HostScratch {
 public:
  HostScratch() = default;
  HostScratch(const HostScratch&) = delete;
  HostScratch& operator=(const HostScratch&) = delete;
  ~HostScratch() {
    if (count_ == 0) return;  // (none taken: more_ is empty too, and the thread's cache is not looked up)
    ScratchCache& cache = ScratchCache::mine();  // (the thread handing them back: a call's own, as a rule)
    for (int k = 0; k < count_; ++k)
      if (!cache.keep(first_[k].block, first_[k].size)) std::free(first_[k].block);
    for (void* p : more_) std::free(p);
  }

  // A block of at least `bytes` bytes of its own (a zero-size one is still a distinct block), or nullptr.
  void* take(int64_t bytes) {
    size_t size = bytes > 0 ? (static_cast<size_t>(bytes) + 63) / 64 * 64 : 64;
    size_t got = 0;
    void* p = count_ < kFirst ? ScratchCache::mine().take(size, &got) : nullptr;
    if (p != nullptr) {
      first_[count_++] = Block{p, got};
      return p;
    }
    p = std::aligned_alloc(64, size);
    if (p == nullptr) return nullptr;
    if (count_ < kFirst) {
      first_[count_++] = Block{p, size};
    } else {
      more_.push_back(p);
    }
    return p;
  }

 private:
  struct Block {
    void* block;
    size_t size;
  };
  static constexpr int kFirst = 16;  // (most plans take one or two: no vector grown for them, and kept after)
  Block first_[kFirst] = {};
  int count_ = 0;
  std::vector<void*> more_;
};

}  // namespace opgen_front

#endif  // OPGEN_HOST_SCRATCH_H
