/* The vector loops of arch/copy.h. Written with target attributes, so the
 * rest of the library is built for the baseline CPU and the AVX2 and
 * AVX-512 code only runs where aos__copy_init found the instructions. */
#include "arch/copy.h"

void (*aos__copy_loop)(void *dst, const void *src, size_t n);

/* An empty asm that "changes" p: keeps the compiler from turning a copy
 * loop into a call to memcpy (loop idiom recognition), whose stores may
 * overlap. */
#define OPAQUE(p) __asm__("" : "+r"(p))

/* Pieces of 16, 8, 4, 2 and 1 bytes, each a single move (fixed-size
 * __builtin_memcpy), none overlapping another. Past the vector loop's range
 * x86-64 copies with `rep movsb`, which stores each byte once too (and is
 * what glibc's memcpy uses there; aliased copies never come here, see
 * aos__copy). */
void aos__copy_once(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
#if defined(__x86_64__)
    if (n > AOS__COPY_WIDE_MAX) {
        __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
        return;
    }
#endif
    for (; n >= 16; n -= 16, d += 16, s += 16) {
        OPAQUE(d);
        __builtin_memcpy(d, s, 16);
    }
    if (n & 8) {
        __builtin_memcpy(d, s, 8);
        d += 8, s += 8;
    }
    if (n & 4) {
        __builtin_memcpy(d, s, 4);
        d += 4, s += 4;
    }
    if (n & 2) {
        __builtin_memcpy(d, s, 2);
        d += 2, s += 2;
    }
    if (n & 1)
        *d = *s;
}

#if defined(__x86_64__)
#include <immintrin.h>

/* Both loops move four vectors per step, then one vector at a time, then
 * the last bytes (fewer than one vector) by aos__copy_once. Every byte of
 * the destination is stored exactly once: no tail store overlaps bytes
 * already written, so a peer polling the last word of a put never sees it
 * written a second time (a flag it cleared would come back). */
__attribute__((target("avx512f"))) static void copy_avx512(void *dst, const void *src,
                                                           size_t n)
{
    char *d = dst;
    const char *s = src;
    size_t i = 0;
    for (; i + 256 <= n; i += 256) {
        OPAQUE(d);
        __m512i a = _mm512_loadu_si512(s + i), b = _mm512_loadu_si512(s + i + 64);
        __m512i c = _mm512_loadu_si512(s + i + 128), e = _mm512_loadu_si512(s + i + 192);
        _mm512_storeu_si512(d + i, a);
        _mm512_storeu_si512(d + i + 64, b);
        _mm512_storeu_si512(d + i + 128, c);
        _mm512_storeu_si512(d + i + 192, e);
    }
    for (; i + 64 <= n; i += 64) {
        OPAQUE(d);
        _mm512_storeu_si512(d + i, _mm512_loadu_si512(s + i));
    }
    aos__copy_once(d + i, s + i, n - i);
}

__attribute__((target("avx2"))) static void copy_avx2(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    size_t i = 0;
    for (; i + 128 <= n; i += 128) {
        OPAQUE(d);
        const __m256i *from = (const __m256i *)(const void *)(s + i);
        __m256i *to = (__m256i *)(void *)(d + i);
        __m256i a = _mm256_loadu_si256(from), b = _mm256_loadu_si256(from + 1);
        __m256i c = _mm256_loadu_si256(from + 2), e = _mm256_loadu_si256(from + 3);
        _mm256_storeu_si256(to, a);
        _mm256_storeu_si256(to + 1, b);
        _mm256_storeu_si256(to + 2, c);
        _mm256_storeu_si256(to + 3, e);
    }
    for (; i + 32 <= n; i += 32) {
        OPAQUE(d);
        _mm256_storeu_si256((__m256i *)(void *)(d + i),
                            _mm256_loadu_si256((const __m256i *)(const void *)(s + i)));
    }
    aos__copy_once(d + i, s + i, n - i);
}

void aos__copy_init(void)
{
    __builtin_cpu_init();
    aos__copy_loop = __builtin_cpu_supports("avx512f") ? copy_avx512
                     : __builtin_cpu_supports("avx2")  ? copy_avx2
                                                       : NULL;
}
#else
void aos__copy_init(void)
{
    aos__copy_loop = NULL;
}
#endif
