// A driver's scratch buffers (driver.h's allocator, index -1) for a front-end's cpu calls: the
// Python wrappers' (pyentry.cpp) and PyTorch's (torch_stable.h). No caller ever sees scratch, so it
// needs no array or tensor object: plain heap blocks, 64-byte aligned, freed with the call (a NumPy
// array per block took the GIL back and built an object; a PyTorch one a TensorImpl).
#ifndef OPGEN_HOST_SCRATCH_H
#define OPGEN_HOST_SCRATCH_H

#include <cstdint>
#include <cstdlib>
#include <vector>

namespace opgen_front {

class HostScratch {
 public:
  HostScratch() = default;
  HostScratch(const HostScratch&) = delete;
  HostScratch& operator=(const HostScratch&) = delete;
  ~HostScratch() {
    for (int k = 0; k < count_; ++k) std::free(first_[k]);
    for (void* p : more_) std::free(p);
  }

  // A block of at least `bytes` bytes (a zero-size one is still a distinct block), or nullptr.
  void* take(int64_t bytes) {
    size_t size = bytes > 0 ? (static_cast<size_t>(bytes) + 63) / 64 * 64 : 64;
    void* p = std::aligned_alloc(64, size);
    if (p == nullptr) return nullptr;
    if (count_ < kFirst) {
      first_[count_++] = p;
    } else {
      more_.push_back(p);
    }
    return p;
  }

 private:
  static constexpr int kFirst = 8;  // (most plans take one or two: no vector grown for them)
  void* first_[kFirst] = {};
  int count_ = 0;
  std::vector<void*> more_;
};

}  // namespace opgen_front

#endif  // OPGEN_HOST_SCRATCH_H
