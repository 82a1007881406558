/* Data integrity of contiguous put and get, on segments and on symmetric
 * addresses, blocking and with events, for sizes from 0 B to 64 MiB and
 * unaligned offsets, and the nbi puts that read their source until their
 * event completes. Every PE writes to its right neighbour and reads from
 * its left one; the receiver checks every byte. Then many gets, and many
 * nbi puts from distinct sources, in flight at once on one event. */
#include <string.h>

#include "../common/check.h"

/* 256..32768 and their neighbours: the edges of the wide copy (arch/copy.h) */
static const size_t sizes[] = {0,     1,     2,     3,     7,      8,       9,
                               15,    16,    63,    64,    65,     255,     256,
                               257,   511,   4095,  4096,  4097,   32767,   32768,
                               32769, 65535, 65536, 100003, 1 << 20, (1 << 20) + 5};
static const size_t offsets[] = {0, 1, 3, 8, 61};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define NOFFS (sizeof offsets / sizeof offsets[0])
#ifndef AOS_TEST_BIG_MIB
#define AOS_TEST_BIG_MIB 64
#endif
#define BIG ((size_t)AOS_TEST_BIG_MIB << 20)

int main(void)
{
    CHECK_OK(aos_init());
    int me = aos_my_pe(), n = aos_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    size_t cap = (1 << 20) + 128;
    uint8_t *src = malloc(BIG + 64);
    uint8_t *dst = malloc(BIG + 64);
    CHECK(src && dst);

    aos_seg_t *mine, *theirs;
    CHECK_OK(aos_seg_create(0x5e6, cap, AOS_PROTO_RMA | AOS_PROTO_LOADSTORE, &mine));
    uint8_t *sym = aos_malloc(cap);
    CHECK(sym != NULL);
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_seg_attach(right, 0x5e6, &theirs));
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));

    unsigned seed = 1;
    /* 0: blocking, 1: with an event, 2: nbi puts with an event */
    for (int use_event = 0; use_event < 3; use_event++) {
        for (size_t si = 0; si < NSIZES; si++) {
            for (size_t oi = 0; oi < NOFFS; oi++, seed++) {
                size_t len = sizes[si], off = offsets[oi];
                aos_event_t *e = use_event ? ev : NULL;
                /* put into the right neighbour's segment and symmetric block */
                pattern_fill(src + off, len, seed * 64 + (unsigned)me);
                if (use_event == 2) {
                    CHECK_OK(aos_put_nbi(theirs, off, src + off, len, e));
                    CHECK_OK(aos_putmem_nbi(right, sym + off, src + off, len, e));
                } else {
                    CHECK_OK(aos_put(theirs, off, src + off, len, e));
                    CHECK_OK(aos_putmem(right, sym + off, src + off, len, e));
                }
                if (use_event)
                    CHECK_OK(aos_event_wait(ev));
                CHECK_OK(aos_barrier_all());
                void *local;
                CHECK_OK(aos_seg_ptr(mine, 0, &local)); /* mine is local: load/store ok */
                CHECK(pattern_check((uint8_t *)local + off, len, seed * 64 + (unsigned)left) ==
                      len);
                CHECK(pattern_check(sym + off, len, seed * 64 + (unsigned)left) == len);
                /* get it back from the right neighbour: it holds my pattern */
                memset(dst, 0xee, len + 2 * off + 1);
                CHECK_OK(aos_get(dst + off, theirs, off, len, e));
                if (use_event)
                    CHECK_OK(aos_event_wait(ev));
                CHECK(pattern_check(dst + off, len, seed * 64 + (unsigned)me) == len);
                CHECK(dst[off + len] == 0xee); /* nothing written past the end */
                memset(dst, 0xee, len + off + 1);
                CHECK_OK(aos_getmem(right, dst + off, sym + off, len, e));
                if (use_event)
                    CHECK_OK(aos_event_wait(ev));
                CHECK(pattern_check(dst + off, len, seed * 64 + (unsigned)me) == len);
                CHECK(dst[off + len] == 0xee);
                CHECK_OK(aos_barrier_all());
            }
        }
    }

    /* 64 MiB through the symmetric heap, to the right neighbour. */
    uint8_t *big = aos_malloc(BIG + 64);
    CHECK(big != NULL);
    pattern_fill(src + 3, BIG, 7777u + (unsigned)me);
    CHECK_OK(aos_putmem(right, big + 3, src + 3, BIG, ev));
    CHECK_OK(aos_event_wait(ev));
    CHECK_OK(aos_barrier_all());
    CHECK(pattern_check(big + 3, BIG, 7777u + (unsigned)left) == BIG);
    CHECK_OK(aos_getmem(left, dst + 5, big + 3, BIG, NULL));
    CHECK(pattern_check(dst + 5, BIG, 7777u + (unsigned)((left + n - 1) % n)) == BIG);
    CHECK_OK(aos_barrier_all());

    uint64_t count;
    CHECK_OK(aos_event_count(ev, &count));
    CHECK(count == 8 * NSIZES * NOFFS + 1); /* zero-length ops count too */

    /* Many gets in flight at once, from every PE, sharing one event: each
     * PE's heap block holds its own pattern; every piece read lands whole. */
    enum { PIECES = 16, PIECE = 4099 };
    pattern_fill(big, (size_t)PIECES * PIECE, 99u + (unsigned)me);
    CHECK_OK(aos_barrier_all());
    aos_event_t *many;
    CHECK_OK(aos_event_create(&many));
    for (int pe = 0; pe < n; pe++)
        for (int k = 0; k < PIECES; k++)
            CHECK_OK(aos_getmem(pe, dst + ((size_t)pe * PIECES + (size_t)k) * PIECE,
                                big + (size_t)k * PIECE, PIECE, many));
    CHECK_OK(aos_event_wait(many));
    for (int pe = 0; pe < n; pe++) {
        uint8_t want[PIECES * PIECE];
        pattern_fill(want, sizeof want, 99u + (unsigned)pe);
        CHECK(memcmp(dst + (size_t)pe * PIECES * PIECE, want, sizeof want) == 0);
    }
    CHECK_OK(aos_event_count(many, &count));
    CHECK(count == (uint64_t)n * PIECES);
    CHECK_OK(aos_barrier_all());

    /* nbi puts of 256 KiB + 3 from SLABS distinct sources, all in flight
     * on one event, into consecutive slots of the right neighbour's block;
     * each source is overwritten once the event completes, and what
     * arrived is what it held before. */
    enum { SLABS = 12 };
    const size_t slab = ((size_t)256 << 10) + 3;
    for (int k = 0; k < SLABS; k++)
        pattern_fill(src + (size_t)k * slab, slab, 500u + (unsigned)(me * SLABS + k));
    for (int k = 0; k < SLABS; k++)
        CHECK_OK(aos_putmem_nbi(right, big + (size_t)k * slab, src + (size_t)k * slab, slab,
                                many));
    CHECK_OK(aos_event_wait(many));
    memset(src, 0x11, (size_t)SLABS * slab);
    CHECK_OK(aos_barrier_all());
    for (int k = 0; k < SLABS; k++)
        CHECK(pattern_check(big + (size_t)k * slab, slab,
                            500u + (unsigned)(left * SLABS + k)) == slab);
    CHECK_OK(aos_event_count(many, &count));
    CHECK(count == (uint64_t)n * PIECES + SLABS);
    CHECK_OK(aos_barrier_all());
    /* and completed by quiet, without waiting for their event */
    for (int k = 0; k < SLABS; k++)
        pattern_fill(src + (size_t)k * slab, slab, 900u + (unsigned)(me * SLABS + k));
    for (int k = 0; k < SLABS; k++)
        CHECK_OK(aos_putmem_nbi(right, big + (size_t)k * slab, src + (size_t)k * slab, slab,
                                many));
    CHECK_OK(aos_quiet());
    memset(src, 0x22, (size_t)SLABS * slab);
    CHECK_OK(aos_barrier_all());
    for (int k = 0; k < SLABS; k++)
        CHECK(pattern_check(big + (size_t)k * slab, slab,
                            900u + (unsigned)(left * SLABS + k)) == slab);
    CHECK_OK(aos_event_wait(many));
    CHECK_OK(aos_event_destroy(many));
    CHECK_OK(aos_barrier_all());
    aos_free(big);
    CHECK_OK(aos_event_destroy(ev));
    CHECK_OK(aos_seg_detach(theirs));
    aos_free(sym);
    CHECK_OK(aos_seg_destroy(mine));
    free(src);
    free(dst);
    CHECK_OK(aos_finalize());
    return 0;
}
