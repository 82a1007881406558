/* Fence, quiet and blocking-put ordering. PE p sends rounds to PE p+1: data
 * first, then a flag; the receiver waits on the flag and checks every byte of
 * the data. Variants: blocking puts; non-blocking puts with an event and a
 * fence before the flag; non-blocking puts then quiet; non-blocking puts
 * to both neighbours and one aos_fence_all before the flag. Also ordered gets:
 * a get issued after another from the same segment sees no older data. */
#include <string.h>

#include "../common/check.h"

#define ROUNDS 2000
#define LEN 8192

int main(void)
{
    CHECK_OK(aos_init());
    int me = aos_my_pe(), n = aos_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    uint8_t *data = aos_calloc(4, LEN);
    uint8_t *scratch = aos_calloc(1, LEN); /* written by the right neighbour, never read */
    uint64_t *flag = aos_calloc(4, sizeof(uint64_t));
    uint64_t *ack = aos_calloc(4, sizeof(uint64_t));
    uint8_t *src = malloc(LEN);
    CHECK(data && scratch && flag && ack && src);
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));

    for (int variant = 0; variant < 4; variant++) {
        uint8_t *d = data + (size_t)variant * LEN;
        /* the ring crosses nodes, where a round trip costs 100x: fewer rounds */
        uint64_t rounds = test_node_size(n) < n ? ROUNDS / 10 : ROUNDS;
        for (uint64_t r = 1; r <= rounds; r++) {
            /* wait until the right neighbour has checked round r-1 */
            CHECK_OK(aos_wait_until_u64(&ack[variant], AOS_CMP_GE, r - 1));
            pattern_fill(src, LEN, (unsigned)(r * 3 + (uint64_t)me));
            if (variant == 0) {
                CHECK_OK(aos_putmem(right, d, src, LEN, NULL));
                CHECK_OK(aos_putmem(right, &flag[variant], &r, sizeof r, NULL));
            } else if (variant == 1) {
                CHECK_OK(aos_putmem(right, d, src, LEN / 2, ev));
                CHECK_OK(aos_putmem(right, d + LEN / 2, src + LEN / 2, LEN / 2, ev));
                CHECK_OK(aos_fence(right));
                CHECK_OK(aos_putmem(right, &flag[variant], &r, sizeof r, ev));
            } else if (variant == 2) {
                CHECK_OK(aos_putmem(right, d, src, LEN, ev));
                CHECK_OK(aos_quiet());
                CHECK_OK(aos_putmem(right, &flag[variant], &r, sizeof r, ev));
            } else {
                CHECK_OK(aos_putmem(left, scratch, src, LEN, ev));
                CHECK_OK(aos_putmem(right, d, src, LEN, ev));
                CHECK_OK(aos_fence_all());
                CHECK_OK(aos_putmem(right, &flag[variant], &r, sizeof r, ev));
            }
            /* receive round r from the left neighbour */
            CHECK_OK(aos_wait_until_u64(&flag[variant], AOS_CMP_GE, r));
            CHECK(pattern_check(d, LEN, (unsigned)(r * 3 + (uint64_t)left)) == LEN);
            CHECK_OK(aos_putmem(left, &ack[variant], &r, sizeof r, NULL));
        }
        CHECK_OK(aos_event_wait(ev));
        CHECK_OK(aos_barrier_all());
    }

    /* Ordered gets: the left neighbour counts up a word; two gets in a row
     * never see it go backwards. */
    uint64_t *counter = aos_calloc(1, sizeof(uint64_t));
    CHECK_OK(aos_barrier_all());
    if (n > 1) {
        uint64_t reads = test_node_size(n) < n ? 2000 : 20000; /* as rounds above */
        for (uint64_t i = 1; i <= reads; i++) {
            CHECK_OK(aos_putmem(me, counter, &i, sizeof i, NULL)); /* my own word */
            uint64_t a, b;
            CHECK_OK(aos_getmem(left, &a, counter, sizeof a, NULL));
            CHECK_OK(aos_getmem(left, &b, counter, sizeof b, NULL));
            CHECK(b >= a);
        }
    }
    CHECK_OK(aos_barrier_all());
    aos_free(counter);
    CHECK_OK(aos_event_destroy(ev));
    free(src);
    aos_free(ack);
    aos_free(flag);
    aos_free(scratch);
    aos_free(data);
    CHECK_OK(aos_finalize());
    return 0;
}
