/* Notified access: the data is in place when the notification is seen;
 * matching order, wildcards, counts, unexpected arrivals; every PE notifying
 * one target; get_notify; bad input. */
#include <pthread.h>
#include <string.h>

#include "../common/check.h"

#define ROUNDS 200
#define THREADS 4
#define PER_THREAD 500

struct sender {
    aos_seg_t *root;
    size_t at; /* this thread's word in PE 0's segment */
    uint32_t tag;
};

/* Notifies PE 0 PER_THREAD times, the k-th time after storing k in its word. */
static void *send_many(void *arg)
{
    const struct sender *s = arg;
    for (uint64_t k = 1; k <= PER_THREAD; k++)
        CHECK_OK(aos_put_notify(s->root, s->at, &k, sizeof k, s->tag, NULL));
    return NULL;
}

int main(void)
{
    CHECK_OK(aos_init());
    int me = aos_my_pe(), n = aos_n_pes();
    aos_seg_t *mine, *root;
    size_t slot = 256;
    unsigned proto = AOS_PROTO_RMA | AOS_PROTO_NOTIFY | AOS_PROTO_LOADSTORE;
    CHECK_OK(aos_seg_create(5, slot * (size_t)n, proto, &mine));
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_seg_attach(0, 5, &root));
    uint8_t *mem;
    CHECK_OK(aos_seg_ptr(mine, 0, (void **)&mem));
    uint8_t buf[256];

    /* 1. all PEs notify PE 0: ROUNDS rounds, each writes its slot then
     *    notifies with tag = round; PE 0 matches per source and checks data. */
    aos_notify_req_t *any_req = NULL;
    if (me == 0)
        CHECK_OK(aos_notify_init(mine, AOS_ANY_SOURCE, AOS_ANY_TAG, (uint64_t)n, &any_req));
    for (int r = 0; r < ROUNDS; r++) {
        if (me == 0)
            CHECK_OK(aos_notify_start(any_req));
        pattern_fill(buf, slot, (unsigned)(r * 64 + me));
        CHECK_OK(aos_put_notify(root, (size_t)me * slot, buf, slot, (uint32_t)r, NULL));
        if (me == 0) {
            CHECK_OK(aos_notify_wait(any_req));
            for (int p = 0; p < n; p++) /* every source's data is in place */
                CHECK(pattern_check(mem + (size_t)p * slot, slot, (unsigned)(r * 64 + p)) == slot);
        }
        CHECK_OK(aos_barrier_all()); /* next round only after the check */
    }
    if (me == 0)
        CHECK_OK(aos_notify_free(any_req));

    /* 2. matching by source and tag, FIFO per (source, tag), unexpected
     *    arrivals: PE 1.. send tags 7, 8, 7 before PE 0 posts requests. */
    if (me != 0) {
        for (uint32_t t = 0; t < 3; t++) {
            uint8_t v = (uint8_t)(me * 10 + t);
            memset(buf, v, 8);
            CHECK_OK(aos_put_notify(root, (size_t)me * slot + t * 8, buf, 8, t == 1 ? 8u : 7u,
                                    NULL));
        }
    }
    CHECK_OK(aos_barrier_all()); /* everything has arrived, nothing started */
    if (me == 0 && n > 1) {
        /* tag 8 from the last PE: exactly one */
        aos_notify_req_t *r8, *r7, *rall;
        CHECK_OK(aos_notify_init(mine, n - 1, 8, 1, &r8));
        CHECK_OK(aos_notify_start(r8));
        int done = 0, src = -1;
        uint32_t tag = 0;
        CHECK_OK(aos_notify_test(r8, &done));
        CHECK(done == 1);
        CHECK_OK(aos_notify_last(r8, &src, &tag));
        CHECK(src == n - 1 && tag == 8);
        /* tag 7 from anyone: 2 per sender, oldest first */
        CHECK_OK(aos_notify_init(mine, AOS_ANY_SOURCE, 7, (uint64_t)(n - 1) * 2, &r7));
        CHECK_OK(aos_notify_start(r7));
        CHECK_OK(aos_notify_test(r7, &done));
        CHECK(done == 1);
        /* what remains: tag 8 from PEs 1..n-2 */
        CHECK_OK(aos_notify_init(mine, AOS_ANY_SOURCE, AOS_ANY_TAG, 1, &rall));
        uint64_t seen = 0;
        for (int p = 1; p < n - 1; p++) {
            CHECK_OK(aos_notify_start(rall));
            CHECK_OK(aos_notify_test(rall, &done));
            CHECK(done == 1);
            CHECK_OK(aos_notify_last(rall, &src, &tag));
            CHECK(tag == 8 && src >= 1 && src < n - 1 && !(seen >> src & 1)); /* each once */
            seen |= (uint64_t)1 << src;
        }
        CHECK_OK(aos_notify_start(rall)); /* nothing left: stays pending */
        CHECK_OK(aos_notify_test(rall, &done));
        CHECK(done == 0);
        CHECK_RC(aos_notify_free(rall), AOS_ERR_AGAIN);
        /* a notification arriving now completes it: from myself */
        CHECK_OK(aos_put_notify(mine, 0, buf, 1, 99, NULL));
        CHECK_OK(aos_notify_wait(rall));
        CHECK_OK(aos_notify_last(rall, &src, &tag));
        CHECK(src == 0 && tag == 99);
        CHECK_OK(aos_notify_free(rall));
        CHECK_OK(aos_notify_free(r7));
        CHECK_OK(aos_notify_free(r8));
    }
    CHECK_OK(aos_barrier_all());

    /* 3. started before arrival, several requests in start order: the first
     *    started matching request takes each notification. */
    if (me == 0) {
        aos_notify_req_t *a, *b;
        CHECK_OK(aos_notify_init(mine, AOS_ANY_SOURCE, 5, 1, &a));
        CHECK_OK(aos_notify_init(mine, AOS_ANY_SOURCE, 5, 1, &b));
        CHECK_OK(aos_notify_start(a));
        CHECK_OK(aos_notify_start(b));
        CHECK_OK(aos_barrier_all());
        if (n == 1) /* no other sender: notify myself */
            CHECK_OK(aos_put_notify(mine, 0, buf, 1, 5, NULL));
        CHECK_OK(aos_notify_wait(a));
        int src;
        uint32_t tag;
        CHECK_OK(aos_notify_last(a, &src, &tag));
        CHECK(tag == 5);
        if (n > 2) {
            CHECK_OK(aos_notify_wait(b));
            CHECK_OK(aos_notify_last(b, &src, &tag));
            CHECK(tag == 5);
        }
        CHECK_OK(aos_barrier_all());
        if (n <= 2) { /* at most one sender: b still waits; complete it */
            CHECK_OK(aos_put_notify(mine, 0, buf, 1, 5, NULL));
            CHECK_OK(aos_notify_wait(b));
        }
        CHECK_OK(aos_notify_free(a));
        CHECK_OK(aos_notify_free(b));
    } else {
        CHECK_OK(aos_barrier_all());
        if (me <= 2)
            CHECK_OK(aos_put_notify(root, (size_t)me * slot, buf, 4, 5, NULL));
        CHECK_OK(aos_barrier_all());
    }
    CHECK_OK(aos_barrier_all());

    /* 4. get_notify: PE 0 learns its data was read. */
    if (me == 0) {
        memset(mem, 0x42, slot);
        aos_notify_req_t *g;
        CHECK_OK(aos_notify_init(mine, AOS_ANY_SOURCE, 1234, (uint64_t)n, &g));
        CHECK_OK(aos_notify_start(g));
        CHECK_OK(aos_barrier_all());
        uint8_t got[16];
        CHECK_OK(aos_get_notify(got, root, 0, sizeof got, 1234, NULL));
        CHECK(got[0] == 0x42 && got[15] == 0x42);
        CHECK_OK(aos_notify_wait(g));
        CHECK_OK(aos_notify_free(g));
    } else {
        CHECK_OK(aos_barrier_all());
        uint8_t got[16];
        CHECK_OK(aos_get_notify(got, root, 0, sizeof got, 1234, NULL));
        CHECK(got[0] == 0x42 && got[15] == 0x42);
    }
    CHECK_OK(aos_barrier_all());

    /* 5. push-back: many notifications outstanding before the target looks:
     *    more than the queue holds; none is lost. */
    if (me == 0) {
        aos_notify_req_t *many;
        uint64_t per = 3000;
        CHECK_OK(aos_barrier_all());
        if (n > 1) {
            CHECK_OK(aos_notify_init(mine, AOS_ANY_SOURCE, 77, per * (uint64_t)(n - 1), &many));
            CHECK_OK(aos_notify_start(many));
            CHECK_OK(aos_notify_wait(many));
            CHECK_OK(aos_notify_free(many));
        }
    } else {
        CHECK_OK(aos_barrier_all());
        for (int i = 0; i < 3000; i++)
            CHECK_OK(aos_put_notify(root, (size_t)me * slot, buf, 8, 77, NULL));
    }
    CHECK_OK(aos_barrier_all());

    /* 6. threads: THREADS threads on every other PE notify PE 0 at once,
     *    sharing their PE's lane; PE 0 counts every (source, tag) exactly
     *    and, at the k-th match, finds at least k in that thread's word. */
    if (me == 0) {
        memset(mem, 0, slot * (size_t)n);
        CHECK_OK(aos_barrier_all());
        aos_notify_req_t *one;
        CHECK_OK(aos_notify_init(mine, AOS_ANY_SOURCE, AOS_ANY_TAG, 1, &one));
        uint64_t count[64][THREADS] = {{0}};
        CHECK(n <= 64);
        for (long i = 0; i < (long)(n - 1) * THREADS * PER_THREAD; i++) {
            CHECK_OK(aos_notify_start(one));
            CHECK_OK(aos_notify_wait(one));
            int src;
            uint32_t tag;
            CHECK_OK(aos_notify_last(one, &src, &tag));
            CHECK(src > 0 && src < n && tag >= 100 && tag < 100 + THREADS);
            uint64_t k = ++count[src][tag - 100];
            uint64_t word;
            memcpy(&word, mem + (size_t)src * slot + (tag - 100) * 8, sizeof word);
            CHECK(word >= k && word <= PER_THREAD);
        }
        for (int p = 1; p < n; p++)
            for (int t = 0; t < THREADS; t++)
                CHECK(count[p][t] == PER_THREAD);
        int done = 0;
        CHECK_OK(aos_notify_start(one));
        CHECK_OK(aos_notify_test(one, &done));
        CHECK(!done); /* nothing more arrived */
        CHECK_OK(aos_barrier_all());
        CHECK_OK(aos_notify_test(one, &done));
        CHECK(!done);
        CHECK_RC(aos_notify_free(one), AOS_ERR_AGAIN); /* still started */
        uint64_t mark = 7;                            /* a notification to myself */
        CHECK_OK(aos_put_notify(root, 8, &mark, sizeof mark, 99, NULL));
        CHECK_OK(aos_notify_wait(one));
        int src;
        uint32_t tag;
        CHECK_OK(aos_notify_last(one, &src, &tag));
        CHECK(src == 0 && tag == 99 && memcmp(mem + 8, &mark, sizeof mark) == 0);
        CHECK_OK(aos_notify_free(one));
    } else {
        CHECK_OK(aos_barrier_all());
        pthread_t th[THREADS];
        struct sender s[THREADS];
        for (int t = 0; t < THREADS; t++) {
            s[t] = (struct sender){root, (size_t)me * slot + (size_t)t * 8, 100u + (uint32_t)t};
            CHECK(pthread_create(&th[t], NULL, send_many, &s[t]) == 0);
        }
        for (int t = 0; t < THREADS; t++)
            CHECK(pthread_join(th[t], NULL) == 0);
        CHECK_OK(aos_barrier_all());
    }

    /* bad input */
    aos_notify_req_t *bad = NULL;
    aos_seg_t *plain;
    CHECK_OK(aos_seg_create(6, 64, AOS_PROTO_RMA, &plain));
    CHECK_RC(aos_notify_init(plain, 0, 1, 1, &bad), AOS_ERR_PROTOCOL);
    CHECK_RC(aos_put_notify(plain, 0, buf, 8, 1, NULL), AOS_ERR_PROTOCOL);
    CHECK_RC(aos_notify_init(mine, n, 1, 1, &bad), AOS_ERR_PE);
    /* tags are uint32_t, the wildcard the largest: a notification cannot
     * carry it, every other tag is matched exactly */
    _Static_assert(AOS_ANY_TAG == UINT32_MAX, "AOS_ANY_TAG is a uint32_t tag");
    CHECK_RC(aos_put_notify(root, (size_t)me * slot, buf, 8, AOS_ANY_TAG, NULL),
             AOS_ERR_INVALID);
    CHECK_RC(aos_get_notify(buf, root, (size_t)me * slot, 8, AOS_ANY_TAG, NULL),
             AOS_ERR_INVALID);
    aos_notify_req_t *high = NULL;
    CHECK_OK(aos_notify_init(mine, me, UINT32_MAX - 1, 1, &high));
    CHECK_OK(aos_notify_start(high));
    CHECK_OK(aos_put_notify(mine, (size_t)me * slot, buf, 8, UINT32_MAX - 1, NULL));
    CHECK_OK(aos_notify_wait(high));
    int high_src = -1;
    uint32_t high_tag = 0;
    CHECK_OK(aos_notify_last(high, &high_src, &high_tag));
    CHECK(high_src == me && high_tag == UINT32_MAX - 1);
    CHECK_OK(aos_notify_free(high));
    CHECK_RC(aos_notify_init(mine, 0, 1, 0, &bad), AOS_ERR_SIZE);
    if (me != 0)
        CHECK_RC(aos_notify_init(root, 0, 1, 1, &bad), AOS_ERR_INVALID); /* not the owner */
    CHECK(bad == NULL);
    CHECK_RC(aos_put_notify(root, slot * (size_t)n, buf, 8, 1, NULL), AOS_ERR_BOUNDS);
    CHECK_RC(aos_seg_create(UINT64_MAX, 64, AOS_PROTO_RMA, &plain), AOS_ERR_INVALID);
    CHECK_RC(aos_notify_wait(NULL), AOS_ERR_NULL);

    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_seg_destroy(plain));
    CHECK_OK(aos_seg_detach(root));
    CHECK_OK(aos_seg_destroy(mine));
    CHECK_OK(aos_finalize());
    return 0;
}
