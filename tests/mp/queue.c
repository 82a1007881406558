/* Remote queues: every other PE enqueues ITEMS items into PE 0's queue, at
 * capacities 1, 4 and 4096; PE 0 checks that every item arrives exactly
 * once, untorn, and in order per producer. Item sizes 1, 24 and 256. Also
 * flow control (try-enqueue on a full queue), asynchronous dequeue with
 * events, and bad input. */
#include <string.h>

#include "../common/check.h"

#ifndef AOS_TEST_BIG_MIB
#define ITEMS 100000
#else
#define ITEMS 5000 /* sanitized builds run 5-20x slower */
#endif

/* An item: producer, sequence number, then bytes derived from both. */
static void make_item(uint8_t *it, size_t size, uint32_t producer, uint32_t seq)
{
    uint8_t head[8];
    memcpy(head, &producer, 4);
    memcpy(head + 4, &seq, 4);
    for (size_t i = 0; i < size; i++)
        it[i] = i < 8 ? head[i] : pattern_byte(producer * 7919u + seq, i);
}

static void check_item(const uint8_t *it, size_t size, uint32_t *next, int n)
{
    if (size < 8) { /* tiny items: one producer's counter modulo 256 */
        CHECK(it[0] == (uint8_t)next[1]);
        next[1]++;
        return;
    }
    uint32_t producer, seq;
    memcpy(&producer, it, 4);
    memcpy(&seq, it + 4, 4);
    CHECK(producer >= 1 && producer < (uint32_t)n);
    CHECK(seq == next[producer]); /* exactly once, in order per producer */
    next[producer]++;
    CHECK(pattern_check(it + 8, 0, 0) == 0);
    for (size_t i = 8; i < size; i++)
        CHECK(it[i] == pattern_byte(producer * 7919u + seq, i)); /* untorn */
}

static void run(uint64_t key, size_t item_size, size_t capacity, long items, int n, int me)
{
    aos_queue_t *q = NULL;
    if (me == 0)
        CHECK_OK(aos_queue_create(key, item_size, capacity, &q));
    CHECK_OK(aos_barrier_all());
    uint8_t it[256];
    if (n == 1) { /* the owner alone: fill and drain */
        uint32_t next[2] = {0, 0};
        for (long i = 0; i < items; i++) {
            uint8_t v = (uint8_t)i;
            if (item_size < 8)
                memcpy(it, &v, 1);
            else
                make_item(it, item_size, 1, (uint32_t)i);
            int rc = aos_try_enqueue(q, it);
            if (rc == AOS_ERR_AGAIN) { /* full: drain everything, then retry */
                uint8_t out[256];
                while (aos_try_dequeue(q, out) == AOS_OK)
                    check_item(out, item_size, next, 2);
                CHECK_OK(aos_enqueue(q, it));
            } else {
                CHECK_OK(rc);
            }
        }
        uint8_t out[256];
        while (aos_try_dequeue(q, out) == AOS_OK)
            check_item(out, item_size, next, 2);
        CHECK((item_size < 8 ? next[1] : next[1]) == (uint32_t)items);
    } else if (me == 0) {
        uint32_t *next = calloc((size_t)n, sizeof *next);
        long total = (item_size < 8 ? 1 : n - 1) * items;
        for (long i = 0; i < total; i++) {
            CHECK_OK(aos_dequeue(q, it));
            check_item(it, item_size, next, n);
        }
        uint8_t extra[256];
        CHECK_RC(aos_try_dequeue(q, extra), AOS_ERR_AGAIN); /* nothing duplicated */
        free(next);
    } else if (item_size >= 8 || me == 1) { /* tiny items: one producer */
        aos_queue_t *r;
        CHECK_OK(aos_queue_attach(0, key, &r));
        size_t sz;
        CHECK_OK(aos_queue_item_size(r, &sz));
        CHECK(sz == item_size);
        uint8_t out[1];
        CHECK_RC(aos_try_dequeue(r, out), AOS_ERR_INVALID); /* only the owner */
        for (long i = 0; i < items; i++) {
            if (item_size < 8)
                it[0] = (uint8_t)i;
            else
                make_item(it, item_size, (uint32_t)me, (uint32_t)i);
            CHECK_OK(aos_enqueue(r, it));
        }
        CHECK_OK(aos_queue_detach(r));
    }
    CHECK_OK(aos_barrier_all());
    if (me == 0)
        CHECK_OK(aos_queue_destroy(q));
}

int main(void)
{
    CHECK_OK(aos_init());
    int me = aos_my_pe(), n = aos_n_pes();
    /* 15 producers x 10^5 items at 16 PEs, capacities 4 and 4096 */
    run(100, 24, 4, ITEMS, n, me);
    run(101, 24, 4096, ITEMS, n, me);
    run(102, 24, 1, ITEMS / 10, n, me);
    run(103, 1, 3, ITEMS / 10, n, me);
    run(104, 256, 16, ITEMS / 10, n, me);

    /* flow control and asynchronous dequeue, on my own queue */
    aos_queue_t *q;
    CHECK_OK(aos_queue_create(200 + (uint64_t)me, 8, 2, &q));
    uint64_t a = 1, b = 2, c = 3, out = 0;
    CHECK_RC(aos_try_dequeue(q, &out), AOS_ERR_AGAIN);
    CHECK_OK(aos_try_enqueue(q, &a));
    CHECK_OK(aos_try_enqueue(q, &b));
    CHECK_RC(aos_try_enqueue(q, &c), AOS_ERR_AGAIN); /* full pushes back */
    CHECK_OK(aos_try_dequeue(q, &out));
    CHECK(out == 1);
    CHECK_OK(aos_try_enqueue(q, &c));
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));
    uint64_t r1 = 0, r2 = 0, r3 = 0;
    CHECK_OK(aos_dequeue_async(q, &r1, ev));
    CHECK_OK(aos_dequeue_async(q, &r2, ev));
    CHECK_OK(aos_dequeue_async(q, &r3, ev)); /* no item yet */
    int done = 1;
    CHECK_OK(aos_event_test(ev, &done));
    CHECK(done == 0);
    CHECK(r1 == 2 && r2 == 3);
    CHECK_RC(aos_queue_destroy(q), AOS_ERR_AGAIN); /* a dequeue still pending */
    uint64_t d = 4;
    CHECK_OK(aos_enqueue(q, &d));
    CHECK_OK(aos_event_wait(ev));
    CHECK(r3 == 4);
    CHECK_OK(aos_event_destroy(ev));
    /* bad input */
    aos_queue_t *bad = NULL;
    CHECK_RC(aos_queue_create(300, 0, 4, &bad), AOS_ERR_SIZE);
    CHECK_RC(aos_queue_create(300, 257, 4, &bad), AOS_ERR_SIZE);
    CHECK_RC(aos_queue_create(300, 8, 0, &bad), AOS_ERR_SIZE);
    CHECK_RC(aos_queue_create(200 + (uint64_t)me, 8, 4, &bad), AOS_ERR_EXISTS);
    CHECK(bad == NULL);
    CHECK_RC(aos_try_enqueue(q, NULL), AOS_ERR_NULL);
    CHECK_RC(aos_try_enqueue(NULL, &a), AOS_ERR_NULL);
    aos_seg_t *plain;
    CHECK_OK(aos_seg_create(301, 64, AOS_PROTO_RMA, &plain));
    CHECK_RC(aos_queue_attach(me, 301, &bad), AOS_ERR_PROTOCOL);
    CHECK_RC(aos_queue_attach(me, 999, &bad), AOS_ERR_NO_KEY);
    CHECK_RC(aos_queue_detach(q), AOS_ERR_INVALID); /* the owner destroys */
    CHECK_OK(aos_seg_destroy(plain));
    CHECK_OK(aos_queue_destroy(q));
    CHECK_OK(aos_finalize());
    return 0;
}
