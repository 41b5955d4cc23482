// Large host buffers a kernel is about to write whole: ask Linux to back them with transparent huge
// pages, one page fault per 2 MiB instead of one per 4 KiB. XLA hands the cpu handler a fresh result
// buffer per call; on the session VM of bench/RESULTS.md a fresh 64 MiB buffer cost ~36 ms of CPU in
// 4 KiB faults on first touch and ~6 ms with this hint (NumPy gives its own large arrays the same hint).
// Only the 2 MiB-aligned interior is advised, so no page outside the buffer is ever made resident by it;
// where THP is off ("never") or the call fails, nothing changes but the faults' cost.
#ifndef OPGEN_HOST_PAGES_H
#define OPGEN_HOST_PAGES_H

#include <cstddef>
#include <cstdint>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace opgen_front {

constexpr size_t kHugePageBytes = size_t{2} << 20;
// Below this an output's faults are a small share of its call (and a partly covered huge page is likely).
constexpr size_t kHugePageAdviceMinBytes = size_t{8} << 20;

inline void advise_huge_pages(void* data, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes < kHugePageAdviceMinBytes) return;
  const uintptr_t first = reinterpret_cast<uintptr_t>(data);
  const uintptr_t begin = (first + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const uintptr_t end = (first + bytes) & ~(kHugePageBytes - 1);
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace opgen_front

#endif  // OPGEN_HOST_PAGES_H
