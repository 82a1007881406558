/* The vector loops of arch/copy.h. Written with target attributes, so the
 * rest of the library is built for the baseline CPU and the AVX2 and
 * AVX-512 code only runs where aos__copy_init found the instructions. */
#include <unistd.h>

#include "arch/copy.h"

void (*aos__copy_loop)(void *dst, const void *src, size_t n);
size_t aos__copy_alias_max;

#if defined(__x86_64__)
#include <immintrin.h>

/* Both loops move four vectors per step. The last four vectors' worth of
 * bytes is loaded first and stored last: it may overlap the loop's final
 * step, which is harmless as src and dst are distinct, and it spares a
 * tail loop. n >= 4 vectors (AOS__COPY_WIDE_MIN is larger). */
__attribute__((target("avx512f"))) static void copy_avx512(void *dst, const void *src,
                                                           size_t n)
{
    char *d = dst;
    const char *s = src;
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

__attribute__((target("avx2"))) static void copy_avx2(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    const __m256i *ts = (const __m256i *)(const void *)(s + n - 128);
    __m256i t0 = _mm256_loadu_si256(ts), t1 = _mm256_loadu_si256(ts + 1);
    __m256i t2 = _mm256_loadu_si256(ts + 2), t3 = _mm256_loadu_si256(ts + 3);
    for (size_t i = 0; i + 128 <= n; i += 128) {
        const __m256i *from = (const __m256i *)(const void *)(s + i);
        __m256i *to = (__m256i *)(void *)(d + i);
        __m256i a = _mm256_loadu_si256(from), b = _mm256_loadu_si256(from + 1);
        __m256i c = _mm256_loadu_si256(from + 2), e = _mm256_loadu_si256(from + 3);
        _mm256_storeu_si256(to, a);
        _mm256_storeu_si256(to + 1, b);
        _mm256_storeu_si256(to + 2, c);
        _mm256_storeu_si256(to + 3, e);
    }
    __m256i *td = (__m256i *)(void *)(d + n - 128);
    _mm256_storeu_si256(td, t0);
    _mm256_storeu_si256(td + 1, t1);
    _mm256_storeu_si256(td + 2, t2);
    _mm256_storeu_si256(td + 3, t3);
}

void aos__copy_init(void)
{
    __builtin_cpu_init();
    aos__copy_loop = __builtin_cpu_supports("avx512f") ? copy_avx512
                     : __builtin_cpu_supports("avx2")  ? copy_avx2
                                                       : NULL;
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    aos__copy_alias_max = l2 > 0 ? 2 * (size_t)l2 : 1u << 20;
}
#else
void aos__copy_init(void)
{
    aos__copy_loop = NULL;
    aos__copy_alias_max = 0;
}
#endif
