/* The wide copy of arch/copy.h. Written with the target attribute, so the
 * rest of the library is built for the baseline CPU and the AVX-512 code
 * only runs where aos__copy_init found the instructions. */
#include "arch/copy.h"

int aos__copy_wide;

#if defined(__x86_64__)
#include <immintrin.h>

void aos__copy_init(void)
{
    __builtin_cpu_init();
    aos__copy_wide = __builtin_cpu_supports("avx512f");
}

__attribute__((target("avx512f"))) void aos__copy_wide_impl(void *dst, const void *src,
                                                            size_t n)
{
    char *d = dst;
    const char *s = src;
    /* The last 256 bytes are loaded first and stored last: they may overlap
     * the loop's final block, which is harmless as src and dst are distinct. */
    const char *ts = s + n - 256;
    __m512i t0 = _mm512_loadu_si512(ts), t1 = _mm512_loadu_si512(ts + 64);
    __m512i t2 = _mm512_loadu_si512(ts + 128), t3 = _mm512_loadu_si512(ts + 192);
    for (size_t i = 0; i + 256 <= n; i += 256) {
        __m512i a = _mm512_loadu_si512(s + i), b = _mm512_loadu_si512(s + i + 64);
        __m512i c = _mm512_loadu_si512(s + i + 128), e = _mm512_loadu_si512(s + i + 192);
        _mm512_storeu_si512(d + i, a);
        _mm512_storeu_si512(d + i + 64, b);
        _mm512_storeu_si512(d + i + 128, c);
        _mm512_storeu_si512(d + i + 192, e);
    }
    char *td = d + n - 256;
    _mm512_storeu_si512(td, t0);
    _mm512_storeu_si512(td + 64, t1);
    _mm512_storeu_si512(td + 128, t2);
    _mm512_storeu_si512(td + 192, t3);
}
#else
void aos__copy_init(void)
{
    aos__copy_wide = 0;
}

void aos__copy_wide_impl(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
}
#endif
