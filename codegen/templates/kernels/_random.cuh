// ---- random numbers: Philox-4x32-10, a counter-based generator (Salmon, Moraes, Dror and Shaw,
// "Parallel random numbers: as easy as 1, 2, 3", SC 2011), as Random123, cuRAND and PyTorch define
// it. Include it in a kernel template with a Jinja include of "kernels/_random.cuh". One text for
// both kernel forms (no #if): 32-bit integer arithmetic, so the host emulation and the GPU give the
// same bits for the same counter and key. Nothing here keeps state: a kernel derives each counter
// from what it computes (an element's index) and the op's seed and offset inputs (docs/specs.md,
// "Random numbers").
#ifndef OPGEN_RANDOM_CUH
#define OPGEN_RANDOM_CUH
namespace opgen {

// Random123's constants: the round multipliers and the key's Weyl increments (the golden ratio's
// and sqrt(3) - 1's first 32 bits).
constexpr unsigned kPhiloxM0 = 0xD2511F53u;
constexpr unsigned kPhiloxM1 = 0xCD9E8D57u;
constexpr unsigned kPhiloxW0 = 0x9E3779B9u;
constexpr unsigned kPhiloxW1 = 0xBB67AE85u;

// One round: two 32×32 → 64-bit products; their high words mix into the other lanes with the key.
__device__ __forceinline__ uint4 philox4x32_round(uint4 c, uint2 k) {
  const unsigned long long p0 = static_cast<unsigned long long>(kPhiloxM0) * c.x;
  const unsigned long long p1 = static_cast<unsigned long long>(kPhiloxM1) * c.z;
  return make_uint4(static_cast<unsigned>(p1 >> 32) ^ c.y ^ k.x, static_cast<unsigned>(p1),
                    static_cast<unsigned>(p0 >> 32) ^ c.w ^ k.y, static_cast<unsigned>(p0));
}

// Philox-4x32-10: ten rounds, the key bumped by the Weyl increments between them. Four independent
// 32-bit words per (counter, key); a different counter or key gives unrelated words.
__device__ __forceinline__ uint4 philox4x32_10(uint4 counter, uint2 key) {
  counter = philox4x32_round(counter, key);
  for (int r = 1; r < 10; ++r) {
    key.x += kPhiloxW0;
    key.y += kPhiloxW1;
    counter = philox4x32_round(counter, key);
  }
  return counter;
}

// The key from a 64-bit seed (low word first, as PyTorch's philox_cuda_state seeds cuRAND).
__device__ __forceinline__ uint2 philox_key(unsigned long long seed) {
  return make_uint2(static_cast<unsigned>(seed), static_cast<unsigned>(seed >> 32));  // int32 ok: its two words
}

// The counter of a kernel's `index`-th block of four words in the stream `offset`: words 0-1 the
// index, 2-3 the offset (low word first). A call that advances its offset by one never reuses a
// counter of the previous call, whatever their sizes.
__device__ __forceinline__ uint4 philox_counter(unsigned long long index, unsigned long long offset) {
  return make_uint4(static_cast<unsigned>(index), static_cast<unsigned>(index >> 32),  // int32 ok: its two words
                    static_cast<unsigned>(offset), static_cast<unsigned>(offset >> 32));  // int32 ok: its two words
}

// Word i (0-3) of a result (a long long, as an element's index % 4 is).
__device__ __forceinline__ unsigned philox_word(uint4 r, long long i) {
  return i == 0 ? r.x : i == 1 ? r.y : i == 2 ? r.z : r.w;
}

// A uniform float in [0, 1): the word's top 24 bits times 2^-24 (exact: every value k·2^-24, k < 2^24,
// equally likely). Half-open above so that `uniform_float(u) < p` holds with probability p exactly
// for any p that is a multiple of 2^-24 (0 never, 1 always): the test a dropout mask makes.
__device__ __forceinline__ float uniform_float(unsigned u) {
  return static_cast<float>(u >> 8) * 0x1p-24f;
}

// A uniform float in (0, 1]: (top 24 bits + 1) times 2^-24, never 0, so that its log is finite (a
// Box-Muller transform's -2 ln u).
__device__ __forceinline__ float uniform_float_nonzero(unsigned u) {
  return static_cast<float>((u >> 8) + 1u) * 0x1p-24f;
}

// A uniform double in [0, 1) from two words: 53 bits (hi's top 21, then lo's 32) times 2^-53, exact.
__device__ __forceinline__ double uniform_double(unsigned hi, unsigned lo) {
  const unsigned long long bits = (static_cast<unsigned long long>(hi >> 11) << 32) | lo;
  return static_cast<double>(bits) * 0x1p-53;
}

}  // namespace opgen
#endif  // OPGEN_RANDOM_CUH
