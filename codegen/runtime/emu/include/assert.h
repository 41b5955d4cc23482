// opgen host backend: <assert.h> for kernels. A failed assert() aborts the
// launch with HostKernelError (kernel, block, thread) instead of the process.
// No include guard, like the standard header: NDEBUG is honoured per inclusion.
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
[[noreturn]] static void opgen_assert_fail(const char* expr, const char* file, unsigned line, const char* func);
#define assert(e) ((e) ? (void)0 : opgen_assert_fail(#e, __FILE__, __LINE__, __func__))
#endif
