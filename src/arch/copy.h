/* The copy under every on-node put and get.
 *
 * For cache-resident sizes a plain loop of 64-byte vector moves beats the C
 * library's memcpy on this class of CPU (no alignment prologue, no size
 * dispatch, no overlap handling): 10-15% on a cache-hot 4 KiB copy. It is
 * used where the CPU has AVX-512 and the size is in [AOS__COPY_WIDE_MIN,
 * AOS__COPY_WIDE_MAX]; everything else goes to memcpy, which also owns large
 * copies (non-temporal stores past the cache size). */
#ifndef AOS_ARCH_COPY_H
#define AOS_ARCH_COPY_H

#include <stddef.h>
#include <string.h>

#define AOS__COPY_WIDE_MIN 256u
#define AOS__COPY_WIDE_MAX (32u * 1024u)

/* Set once by aos__copy_init (before any PE can issue a transfer); read-only
 * afterwards. */
extern int aos__copy_wide;

/* Decides whether the wide copy may be used on this CPU. */
void aos__copy_init(void);

/* Copies n bytes, n >= AOS__COPY_WIDE_MIN, between non-overlapping buffers. */
void aos__copy_wide_impl(void *dst, const void *src, size_t n);

static inline void aos__copy(void *dst, const void *src, size_t n)
{
    if (aos__copy_wide && n - AOS__COPY_WIDE_MIN <= AOS__COPY_WIDE_MAX - AOS__COPY_WIDE_MIN)
        aos__copy_wide_impl(dst, src, n);
    else
        memcpy(dst, src, n);
}

#endif
