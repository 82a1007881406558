/* The copy under puts, gets and the collectives (arch/copy.h): exact bytes
 * for every path, at every size boundary, source and destination
 * alignment, and distance modulo a page; nothing outside the destination
 * is written. */
#include <string.h>

#include "../common/check.h"
#include "arch/copy.h"

#define GUARD 300
#define SPAN (6u << 20)

static unsigned char *src_buf, *dst_buf;

/* Copies n bytes from src_buf + so to dst_buf + d_off and checks every byte
 * of the destination, and GUARD bytes on either side of it. */
static void check_copy(size_t so, size_t d_off, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        src_buf[so + i] = pattern_byte(seed, i);
    memset(dst_buf + d_off - GUARD, 0xA5, n + 2 * GUARD);
    aos__copy(dst_buf + d_off, src_buf + so, n);
    for (size_t i = 0; i < n; i++)
        if (dst_buf[d_off + i] != pattern_byte(seed, i)) {
            fprintf(stderr, "FAIL copy of %zu bytes (src +%zu, dst +%zu): byte %zu\n", n, so,
                    d_off, i);
            exit(1);
        }
    for (size_t i = 0; i < GUARD; i++)
        CHECK(dst_buf[d_off - GUARD + i] == 0xA5 && dst_buf[d_off + n + i] == 0xA5);
}

int main(void)
{
    aos__copy_init();
    src_buf = aligned_alloc(AOS__COPY_PAGE, SPAN);
    dst_buf = aligned_alloc(AOS__COPY_PAGE, SPAN + AOS__COPY_PAGE);
    CHECK(src_buf != NULL && dst_buf != NULL);

    /* which distances count as aliased: 1-63 bytes ahead modulo a page */
    CHECK(!aos__copy_aliased(dst_buf, src_buf));
    CHECK(aos__copy_aliased(dst_buf + 1, src_buf));
    CHECK(aos__copy_aliased(dst_buf + 16, src_buf));
    CHECK(aos__copy_aliased(dst_buf + AOS__COPY_PAGE + 63, src_buf));
    CHECK(!aos__copy_aliased(dst_buf + 64, src_buf));
    CHECK(!aos__copy_aliased(dst_buf, src_buf + 16)); /* behind, not ahead */

    /* every size around the loop's bounds and its 128/256-byte steps, at
     * several alignments of each side */
    static const size_t sizes[] = {0,    1,    7,    63,   64,   127,  128,   129,   255,
                                   256,  257,  300,  383,  384,  511,  512,   513,   1000,
                                   4095, 4096, 4097, 8191, 32767, 32768, 32769, 65536 + 33};
    static const size_t aligns[] = {0, 1, 16, 31, 64, 200};
    unsigned seed = 1;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t a = 0; a < sizeof aligns / sizeof *aligns; a++)
            for (size_t b = 0; b < sizeof aligns / sizeof *aligns; b++)
                check_copy(GUARD + aligns[a], GUARD + aligns[b], sizes[s], seed++);

    /* aliased copies past the loop's range (the loop again), and unaliased
     * ones of the same sizes (rep movsb) */
    size_t big[] = {AOS__COPY_WIDE_MAX + 4096, 256u << 10, 1u << 20, (2u << 20) + 4096 + 7};
    static const size_t ahead[] = {1, 16, 63, 64, 2048};
    for (size_t s = 0; s < sizeof big / sizeof *big; s++) {
        if (big[s] + AOS__COPY_PAGE + GUARD > SPAN)
            continue;
        for (size_t k = 0; k < sizeof ahead / sizeof *ahead; k++)
            check_copy(AOS__COPY_PAGE, AOS__COPY_PAGE + ahead[k], big[s], seed++);
    }
    free(dst_buf);
    free(src_buf);
    printf("copy: every size, alignment and distance copied exactly\n");
    return 0;
}
