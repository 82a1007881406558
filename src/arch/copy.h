/* The copy under every on-node put and get and every bulk copy of the
 * collectives.
 *
 * Three reasons not to leave any copy to the C library's memcpy:
 * - memcpy stores some bytes twice (its head and tail stores overlap its
 *   loop's): a peer that polls the last word of a put, sees it, clears it
 *   and polls again can see it come back with no new put. Here every byte
 *   of the destination is stored exactly once.
 * - For cache-resident sizes a plain loop of vector moves beats it (no
 *   alignment prologue, no size dispatch, no overlap handling), with
 *   AVX-512 and with AVX2 alike; a put of a few KiB is bound by its stores,
 *   so that fixed cost shows.
 * - glibc's memcpy copies from 2 KiB to about the per-core cache's size
 *   with `rep movsb`, which on AMD Zen 3 runs many times slower when the
 *   destination lies 1-63 bytes past the source modulo a page (4 KiB
 *   aliasing). A get from the page-aligned symmetric heap into a malloc'd
 *   buffer (16 bytes past a page boundary) is exactly that. Our loop loses
 *   little there.
 *
 * So sizes in [AOS__COPY_WIDE_MIN, AOS__COPY_WIDE_MAX] take the vector
 * loop, and so do larger copies whose destination is 1-63 bytes ahead
 * modulo a page; everything else, and every copy on a CPU without AVX2,
 * goes to aos__copy_once (pieces below the loop's range, `rep movsb` above
 * it on x86-64, which is not slow when not aliased). */
#ifndef AOS_ARCH_COPY_H
#define AOS_ARCH_COPY_H

#include <stddef.h>
#include <stdint.h>

#define AOS__COPY_WIDE_MIN 256u
#define AOS__COPY_WIDE_MAX (32u * 1024u)
#define AOS__COPY_PAGE 4096u
#define AOS__COPY_ALIAS_SPAN 64u /* destination this close ahead modulo a page: aliased */

/* Set once by aos__copy_init (before any PE can issue a transfer);
 * read-only afterwards. It copies n >= AOS__COPY_WIDE_MIN bytes
 * between non-overlapping buffers with the widest vectors the CPU has, or
 * is NULL where it has no AVX2. */
extern void (*aos__copy_loop)(void *dst, const void *src, size_t n);

/* Copies n bytes between non-overlapping buffers, each destination byte
 * stored once: the copy for sizes outside the vector loop's range, and the
 * loops' own last bytes. */
void aos__copy_once(void *dst, const void *src, size_t n);

/* Picks the loop for this CPU. */
void aos__copy_init(void);

/* Whether dst lies 1 to AOS__COPY_ALIAS_SPAN - 1 bytes past src modulo a
 * page (`rep movsb`'s slow case above). */
static inline int aos__copy_aliased(const void *dst, const void *src)
{
    size_t ahead = ((uintptr_t)dst - (uintptr_t)src) & (AOS__COPY_PAGE - 1);
    return ahead - 1 < AOS__COPY_ALIAS_SPAN - 1;
}

static inline void aos__copy(void *dst, const void *src, size_t n)
{
    if (aos__copy_loop != NULL && n >= AOS__COPY_WIDE_MIN &&
        (n <= AOS__COPY_WIDE_MAX || aos__copy_aliased(dst, src)))
        aos__copy_loop(dst, src, n);
    else
        aos__copy_once(dst, src, n);
}

#endif
