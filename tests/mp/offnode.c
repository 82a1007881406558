/* Promises that must hold whether a peer shares my node or not (run on one
 * node and split into pseudo-nodes, tests/CMakeLists.txt):
 *  1. one-sidedness: PE 0 computes and never calls aos while the others
 *     put, get and fetch-add into its memory, and it sees their updates;
 *  2. a waiter asleep on a word wakes when another PE's put, put with an
 *     event + quiet, or posted atomic changes it;
 *  3. an atomic after puts needs no fence: when the counter says round r has
 *     arrived, the whole buffer (up to 4 MiB) holds round r's data;
 *  4. what does not cross nodes yet (queues, RPC, mailboxes, portals) says
 *     so with an error for a peer elsewhere, and works on my node; a
 *     notified put reaches its target wherever it is. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/check.h"

#ifndef AOS_TEST_BIG_MIB
#define AOS_TEST_BIG_MIB 4
#endif
#define UPDATES 200 /* per PE, in part 1 */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void computing_target(int me, int n)
{
    uint64_t *counter = aos_calloc(1, sizeof *counter);
    uint64_t *slots = aos_calloc((size_t)n * UPDATES, sizeof *slots);
    CHECK(counter != NULL && slots != NULL);
    CHECK_OK(aos_barrier_all());
    uint64_t want = (uint64_t)(n - 1) * UPDATES;
    if (me == 0) {
        /* No aos call until every update is in: only the others' PEs and
         * the transport move data. A plain atomic load is not an aos call. */
        double deadline = now_s() + 120;
        volatile double sink = 0;
        while (__atomic_load_n(counter, __ATOMIC_ACQUIRE) < want && now_s() < deadline)
            for (int i = 0; i < 10000; i++)
                sink = sink + i * 0.5;
        CHECK(__atomic_load_n(counter, __ATOMIC_ACQUIRE) == want);
        for (int pe = 1; pe < n; pe++)
            for (int i = 0; i < UPDATES; i++)
                CHECK(slots[pe * UPDATES + i] == ((uint64_t)pe << 32 | (uint64_t)i));
    } else {
        for (int i = 0; i < UPDATES; i++) {
            uint64_t v = (uint64_t)me << 32 | (uint64_t)i, back = 0, old = 0;
            uint64_t *slot = &slots[me * UPDATES + i];
            CHECK_OK(aos_putmem(0, slot, &v, sizeof v, NULL));
            CHECK_OK(aos_getmem(0, &back, slot, sizeof back, NULL));
            CHECK(back == v);
            CHECK_OK(aos_amo_fetch_sym(0, counter, AOS_AMO_ADD, AOS_AMO_U64, 1, 0, &old, NULL));
            CHECK(old < want);
        }
    }
    CHECK_OK(aos_barrier_all());
    aos_free(slots);
    aos_free(counter);
}

/* PE 0 sleeps in a wait; PE 1 changes the word long after, three ways. */
static void sleeping_waiter(int me, int n)
{
    uint64_t *word = aos_calloc(3, sizeof *word);
    CHECK(word != NULL);
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));
    CHECK_OK(aos_barrier_all());
    for (int how = 0; how < 3 && n > 1; how++) {
        if (me == 0) {
            CHECK_OK(aos_wait_until_u64(&word[how], AOS_CMP_EQ, 40u + (unsigned)how));
        } else if (me == 1) {
            usleep(300 * 1000); /* long past spinning and yielding: PE 0 sleeps */
            uint64_t v = 40u + (unsigned)how;
            if (how == 0) {
                CHECK_OK(aos_putmem(0, &word[how], &v, sizeof v, NULL));
            } else if (how == 1) {
                CHECK_OK(aos_putmem(0, &word[how], &v, sizeof v, ev));
                CHECK_OK(aos_quiet());
                CHECK_OK(aos_event_wait(ev));
            } else {
                CHECK_OK(aos_amo_post_sym(0, &word[how], AOS_AMO_ADD, AOS_AMO_U64, v));
            }
        }
        CHECK_OK(aos_barrier_all());
    }
    CHECK_OK(aos_event_destroy(ev));
    aos_free(word);
}

/* Each PE sends rounds to its right neighbour: data, then a posted add. */
static void atomic_after_puts(int me, int n)
{
    size_t big = (size_t)AOS_TEST_BIG_MIB << 20;
    uint8_t *buf = aos_malloc(big);
    uint64_t *count = aos_calloc(1, sizeof *count);
    uint64_t *ack = aos_calloc(1, sizeof *ack);
    uint8_t *src = malloc(big);
    CHECK(buf != NULL && count != NULL && ack != NULL && src != NULL);
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));
    CHECK_OK(aos_barrier_all());
    int right = (me + 1) % n, left = (me + n - 1) % n;
    const size_t sizes[] = {8, 4096, 65536 + 24, 1u << 20, big};
    uint64_t round = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        for (int rep = 0; rep < 8; rep++) {
            round++;
            /* the right neighbour has checked the round before */
            CHECK_OK(aos_wait_until_u64(ack, AOS_CMP_GE, round - 1));
            pattern_fill(src, sizes[si], (unsigned)(round * 131 + (uint64_t)me));
            aos_event_t *e = rep % 2 ? ev : NULL; /* with and without an event */
            CHECK_OK(aos_putmem(right, buf, src, sizes[si], e));
            CHECK_OK(aos_amo_post_sym(right, count, AOS_AMO_ADD, AOS_AMO_U64, 1));
            CHECK_OK(aos_wait_until_u64(count, AOS_CMP_GE, round));
            CHECK(pattern_check(buf, sizes[si], (unsigned)(round * 131 + (uint64_t)left)) ==
                  sizes[si]);
            CHECK_OK(aos_putmem(left, ack, &round, sizeof round, NULL));
            if (e != NULL)
                CHECK_OK(aos_event_wait(ev));
        }
    }
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_event_destroy(ev));
    free(src);
    aos_free(ack);
    aos_free(count);
    aos_free(buf);
}

static size_t echo(const aos_rpc_info_t *info, const void *args, size_t len, void *reply,
                   size_t cap)
{
    (void)info;
    size_t n = len < cap ? len : cap;
    memcpy(reply, args, n);
    return n;
}

/* Every PE makes its objects; PE 0 tries them at every other PE. */
static void not_across_yet(int me, int n)
{
    aos_rpc_id_t id;
    CHECK_OK(aos_rpc_register("offnode_echo", echo, 0, &id));
    aos_queue_t *q;
    aos_mbox_t *mb;
    aos_portal_t *portal;
    aos_seg_t *seg;
    CHECK_OK(aos_queue_create(31, 16, 8, &q));
    CHECK_OK(aos_mbox_create(32, 16, 8, &mb));
    CHECK_OK(aos_portal_create(33, &portal));
    CHECK_OK(aos_seg_create(34, 4096, AOS_PROTO_RMA | AOS_PROTO_NOTIFY, &seg));
    CHECK_OK(aos_barrier_all());
    for (int pe = 1; me == 0 && pe < n; pe++) {
        int here = test_same_node(me, pe, n);
        uint64_t word = 5, got = 0;
        size_t len = 0;
        aos_queue_t *tq = NULL;
        aos_mbox_t *tmb = NULL;
        aos_portal_t *tp = NULL;
        aos_seg_t *ts = NULL;
        CHECK_OK(aos_seg_attach(pe, 34, &ts));
        int rc = aos_queue_attach(pe, 31, &tq);
        CHECK(here ? rc == AOS_OK : rc == AOS_ERR_UNSUPPORTED);
        rc = aos_mbox_open(pe, 32, &tmb);
        CHECK(here ? rc == AOS_OK : rc == AOS_ERR_UNSUPPORTED);
        rc = aos_portal_open(pe, 33, &tp);
        CHECK(here ? rc == AOS_OK : rc == AOS_ERR_UNSUPPORTED);
        CHECK_OK(aos_put_notify(ts, 0, &word, sizeof word, 7, NULL));
        rc = aos_rpc(pe, id, &word, sizeof word, &got, sizeof got, &len, NULL);
        CHECK(here ? rc == AOS_OK && got == word && len == sizeof word : rc != AOS_OK);
        if (!here) /* on my node it would wait for pe's write */
            CHECK_RC(aos_portal_read(portal, pe, &got, sizeof got, &len, NULL),
                     AOS_ERR_NOT_LOCAL);
        if (tq != NULL)
            CHECK_OK(aos_queue_detach(tq));
        if (tmb != NULL)
            CHECK_OK(aos_mbox_close(tmb));
        if (tp != NULL)
            CHECK_OK(aos_portal_close(tp));
        CHECK_OK(aos_seg_detach(ts));
    }
    CHECK_OK(aos_barrier_all());
    aos_notify_req_t *req;
    if (me != 0) { /* PE 0's notification came, after its data */
        CHECK_OK(aos_notify_init(seg, 0, 7, 1, &req));
        CHECK_OK(aos_notify_start(req));
        CHECK_OK(aos_notify_wait(req));
        CHECK_OK(aos_notify_free(req));
        uint64_t *w;
        if (aos_seg_ptr(seg, 0, (void **)&w) == AOS_OK)
            CHECK(*w == 5);
    }
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_seg_destroy(seg));
    CHECK_OK(aos_portal_close(portal));
    CHECK_OK(aos_mbox_close(mb));
    CHECK_OK(aos_queue_destroy(q));
}

int main(void)
{
    CHECK_OK(aos_init());
    int me = aos_my_pe(), n = aos_n_pes();
    computing_target(me, n);
    sleeping_waiter(me, n);
    atomic_after_puts(me, n);
    not_across_yet(me, n);
    CHECK_OK(aos_finalize());
    return 0;
}
