/* A free or realloc that one PE gets wrong is refused on every PE and the
 * symmetric heap stays the same everywhere: a double free or a pointer that
 * is not a block on one PE alone, interior pointers, static data. errno
 * says why an allocation failed. Run with AOS_CHECK on and off: without
 * it, the refusal still reaches every PE. Addresses past every block the
 * heap gave are refused (AOS_ERR_BOUNDS) wherever the target is. */
#include <errno.h>
#include <string.h>

#include "../common/check.h"

static long not_heap;
static uint64_t offsets[64]; /* PE 0's: every PE's offset of one block */

/* The block at p has the same heap offset on every PE as `base` has. */
static void check_symmetric(const void *p, const void *base)
{
    int me = aos_my_pe(), n = aos_n_pes();
    uint64_t off = (uint64_t)((const char *)p - (const char *)base);
    CHECK_OK(aos_putmem(0, &offsets[me], &off, sizeof off, NULL));
    CHECK_OK(aos_barrier_all());
    for (int pe = 0; me == 0 && pe < n; pe++)
        CHECK(offsets[pe] == offsets[0]);
    CHECK_OK(aos_barrier_all());
}

/* The right neighbour can still write p (a live block there) and my data
 * in it is what it wrote. */
static void check_live(uint64_t *p, size_t words, unsigned seed)
{
    int me = aos_my_pe(), n = aos_n_pes();
    uint64_t src[64];
    for (size_t i = 0; i < words; i++)
        src[i] = seed * 1000003u + (uint64_t)me * 64 + i;
    CHECK_OK(aos_putmem((me + 1) % n, p, src, words * 8, NULL));
    CHECK_OK(aos_barrier_all());
    int left = (me + n - 1) % n;
    for (size_t i = 0; i < words; i++)
        CHECK(p[i] == seed * 1000003u + (uint64_t)left * 64 + i);
    CHECK_OK(aos_barrier_all());
}

int main(void)
{
    CHECK_OK(aos_init());
    int me = aos_my_pe(), n = aos_n_pes(), odd = n - 1; /* the PE that errs */
    CHECK(n <= 64);
    uint64_t *a = aos_malloc(64 * 8), *b = aos_malloc(4096);
    CHECK(a != NULL && b != NULL);
    check_live(a, 64, 1);

    /* realloc of static data, then of an interior pointer, on one PE */
    for (int k = 0; k < 2; k++) {
        void *ptr = me != odd ? (void *)a : k == 0 ? (void *)&not_heap : (void *)(a + 1);
        errno = 0;
        CHECK(aos_realloc(ptr, 4096) == NULL && errno == EINVAL);
        check_live(a, 64, 2 + (unsigned)k); /* not moved, not freed anywhere */
    }

    /* a double free on one PE while the others free a live block */
    uint64_t *c = aos_malloc(32);
    CHECK(c != NULL);
    CHECK_OK(aos_free(c));
    CHECK_RC(aos_free(me == odd ? (void *)c : (void *)b), AOS_ERR_INVALID);
    check_live(b, 64, 4); /* b is still everybody's */

    /* pointers that are no block anywhere */
    CHECK_RC(aos_free(&not_heap), AOS_ERR_INVALID);
    CHECK_RC(aos_free((char *)b + 16), AOS_ERR_INVALID);
    CHECK_OK(aos_free(NULL));
    check_live(b, 64, 5);

    /* the heaps still agree: the next block is at one offset everywhere */
    uint64_t *d = aos_malloc(128);
    CHECK(d != NULL);
    check_symmetric(d, a);

    /* errno of failed allocations */
    errno = 0;
    CHECK(aos_malloc((size_t)1 << 50) == NULL && errno == ENOMEM);
    errno = 0;
    CHECK(aos_align(3, 8) == NULL && errno == EINVAL);
    errno = 0;
    CHECK(aos_calloc(SIZE_MAX, 2) == NULL && errno == EINVAL);
    CHECK(aos_malloc(0) == NULL);

    /* and a proper realloc moves the data */
    uint64_t *a2 = aos_realloc(a, 8192);
    CHECK(a2 != NULL);
    int left = (me + n - 1) % n;
    for (size_t i = 0; i < 64; i++)
        CHECK(a2[i] == 3u * 1000003u + (uint64_t)left * 64 + i);
    check_symmetric(a2, d);
    check_live(a2, 64, 6);

    /* Past the end of every block the heap gave, inside its reservation:
     * no symmetric address, on a node as across nodes. The highest block's
     * last word is one. */
    uint64_t *top = aos_malloc(4096);
    CHECK(top != NULL);
    uint64_t *last = top + 4096 / 8 - 1, *past = top + 4096 / 8, v = 7, got = 0;
    int right = (me + 1) % n;
    CHECK_OK(aos_putmem(right, last, &v, 8, NULL));
    CHECK_RC(aos_putmem(right, past, &v, 8, NULL), AOS_ERR_BOUNDS);
    CHECK_RC(aos_putmem(right, last, &v, 16, NULL), AOS_ERR_BOUNDS);
    CHECK_RC(aos_getmem(right, &got, past + 1000, 8, NULL), AOS_ERR_BOUNDS);
    CHECK_RC(aos_fetch_add_sym_u64(right, past, 1, &got, NULL), AOS_ERR_BOUNDS);
    CHECK(aos_sym_accessible(past) == 0 && aos_sym_accessible(last) == 1);
    CHECK_OK(aos_barrier_all());
    CHECK(*last == 7);
    CHECK_OK(aos_free(top)); /* freed: still inside what the heap gave */
    CHECK_OK(aos_getmem(right, &got, last, 8, NULL));

    CHECK_OK(aos_free(d));
    CHECK_OK(aos_free(b));
    CHECK_OK(aos_free(a2));
    CHECK_OK(aos_finalize());
    return 0;
}
