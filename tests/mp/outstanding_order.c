/* Outstanding ordering: "put a buffer, then postadd a counter" with no fence
 * in between. PE p sends rounds to PE p+1; the receiver waits on the counter
 * and checks every byte of the buffer, then acknowledges with a postadd so
 * the sender does not overwrite a buffer being checked. A put that became
 * visible after its counter would show up as a stale byte. Also with
 * non-blocking puts (an event never waited on before the postadd), and with
 * fetch-add and poke as the signalling atomic. */
#include <string.h>

#include "../common/check.h"

#ifndef AOS_TEST_BIG_MIB
#define ROUNDS_2PE 100000
#else
#define ROUNDS_2PE 10000 /* sanitized builds run 5-20x slower */
#endif
#define SMALL 4096
#define LARGE (1u << 20)

int main(void)
{
    CHECK_OK(aos_init());
    int me = aos_my_pe(), n = aos_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    /* 10^5 rounds at 2 PEs; oversubscribed runs do fewer, same checks */
    long rounds = n <= 2 ? ROUNDS_2PE : ROUNDS_2PE / (n * 4);
    if (test_node_size(n) < n) /* the ring crosses nodes, where a round trip costs 100x */
        rounds = rounds / 50 + 1;
    aos_seg_t *mine, *theirs, *ack_mine, *ack_left;
    unsigned proto = AOS_PROTO_RMA | AOS_PROTO_ATOMIC | AOS_PROTO_LOADSTORE;
    CHECK_OK(aos_seg_create(1, LARGE + 64, proto, &mine));
    CHECK_OK(aos_seg_create(2, 64, proto, &ack_mine));
    uint64_t *my_counter, *my_acks; /* waited on locally: sleeps, woken by the atomics */
    CHECK_OK(aos_seg_ptr(mine, 0, (void **)&my_counter));
    CHECK_OK(aos_seg_ptr(ack_mine, 0, (void **)&my_acks));
    uint8_t *buf, *src = malloc(LARGE);
    CHECK(src != NULL);
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_seg_attach(right, 1, &theirs));
    CHECK_OK(aos_seg_attach(left, 2, &ack_left));
    aos_seg_t *ack_right;
    CHECK_OK(aos_seg_attach(right, 2, &ack_right));
    (void)ack_left;
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));
    /* the received buffer is read back with a get from my own segment */
    aos_seg_t *self_view;
    CHECK_OK(aos_seg_attach(me, 1, &self_view));
    buf = malloc(LARGE);
    CHECK(buf != NULL);

    struct {
        size_t len;
        long rounds;
        int variant; /* 0 blocking put + postadd, 1 event put + fetch-add, 2 event put + poke */
    } runs[] = {{SMALL, rounds, 0}, {SMALL, rounds / 10 + 1, 1}, {LARGE, rounds / 100 + 1, 2}};
    uint64_t counter = 0; /* value of my counter word after the previous round */
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        for (long r = 1; r <= runs[k].rounds; r++) {
            size_t len = runs[k].len;
            unsigned seed = (unsigned)(r * 7 + (long)k * 100003 + me);
            /* wait for the right neighbour to have checked my previous round */
            CHECK_OK(aos_wait_until_u64(my_acks, AOS_CMP_GE, counter));
            pattern_fill(src, len, seed);
            if (runs[k].variant == 0) {
                CHECK_OK(aos_put(theirs, 64, src, len, NULL));
                CHECK_OK(aos_postadd_u64(theirs, 0, 1));
            } else if (runs[k].variant == 1) {
                CHECK_OK(aos_put(theirs, 64, src, len / 2, ev));
                CHECK_OK(aos_put(theirs, 64 + len / 2, src + len / 2, len - len / 2, ev));
                uint64_t old;
                CHECK_OK(aos_fetch_add_u64(theirs, 0, 1, &old, NULL));
                CHECK(old == counter);
            } else {
                CHECK_OK(aos_put(theirs, 64, src, len, ev));
                CHECK_OK(aos_poke_u64(theirs, 0, counter + 1));
            }
            counter++;
            /* receive the left neighbour's round */
            CHECK_OK(aos_wait_until_u64(my_counter, AOS_CMP_GE, counter));
            CHECK_OK(aos_get(buf, self_view, 64, len, NULL));
            unsigned lseed = (unsigned)(r * 7 + (long)k * 100003 + left);
            size_t bad = pattern_check(buf, len, lseed);
            if (bad != len)
                fprintf(stderr, "round %ld variant %d: byte %zu stale\n", r, runs[k].variant, bad);
            CHECK(bad == len);
            CHECK_OK(aos_postadd_u64(ack_left, 0, 1));
        }
        CHECK_OK(aos_event_wait(ev));
    }
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_event_destroy(ev));
    CHECK_OK(aos_seg_detach(self_view));
    CHECK_OK(aos_seg_detach(ack_right));
    CHECK_OK(aos_seg_detach(ack_left));
    CHECK_OK(aos_seg_detach(theirs));
    CHECK_OK(aos_seg_destroy(ack_mine));
    CHECK_OK(aos_seg_destroy(mine));
    free(buf);
    free(src);
    CHECK_OK(aos_finalize());
    return 0;
}
