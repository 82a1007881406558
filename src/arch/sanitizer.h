/* What ThreadSanitizer builds need done differently; nothing in others. */
#ifndef AOS_ARCH_SANITIZER_H
#define AOS_ARCH_SANITIZER_H

#include <stddef.h>

#include "arch/copy.h"

#if defined(__SANITIZE_THREAD__)
#define AOS__TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define AOS__TSAN 1
#endif
#endif

/* The copy of a remote write that this PE's CPU applies for the network
 * (a put's data, in a message handler): the program reads it after the
 * operation that completes it, a signal or atomic that UCX applies in the
 * same stream and that TSan cannot see (UCX is not instrumented, and
 * tests/tsan.supp leaves its own copies unseen for that reason). So this
 * copy is left unseen too: under TSan a loop it does not instrument,
 * elsewhere aos__copy. */
#ifdef AOS__TSAN
__attribute__((no_sanitize("thread"))) static inline void
aos__copy_remote_write(void *dst, const void *src, size_t n)
{
    volatile unsigned char *d = dst; /* volatile: no call to memcpy */
    const volatile unsigned char *s = src;
    for (size_t i = 0; i < n; i++)
        d[i] = s[i];
}
#else
static inline void aos__copy_remote_write(void *dst, const void *src, size_t n)
{
    aos__copy(dst, src, n);
}
#endif

#endif
