/* Promises that must hold whether a peer shares my node or not (run on one
 * node and split into pseudo-nodes, tests/CMakeLists.txt):
 *  1. one-sidedness: PE 0 computes and never calls aos while the others
 *     put, get and fetch-add into its memory, and it sees their updates;
 *  2. a waiter asleep on a word wakes when another PE's put, put with an
 *     event + quiet, or posted atomic changes it;
 *  3. an atomic after puts needs no fence: when the counter says round r has
 *     arrived, the whole buffer (up to 4 MiB) holds round r's data;
 *  4. a full queue pushes back across nodes too (try-enqueue refused,
 *     blocking producers held back without loss or reordering, on two
 *     queues of one owner at once), and one destroyed under a producer
 *     refuses its later items;
 *  5. RPC (blocking, with an event, posted), mailboxes (writes with and
 *     without events into a full mailbox), portals and notified puts reach
 *     every PE from every PE, wherever it is;
 *  6. producers that stream items and then compute, never calling aos,
 *     have every item reach the queue, in order per producer (a network
 *     transport that holds a stream's items back to send them together
 *     still sends them, and answers each producer). */
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
/* A full queue across nodes pushes back, in order and without loss, and a
 * queue destroyed under a producer refuses what it still sends. Then every
 * PE reaches every other through RPC, mailbox, portal and notified put. */
static void queue_flow(int me, int n)
{
    enum { CAP = 4, ITEMS = 300 };
    if (n < 2)
        return;
    aos_queue_t *q = NULL, *q2 = NULL;
    if (me == 0) {
        CHECK_OK(aos_queue_create(41, 16, CAP, &q));
        CHECK_OK(aos_queue_create(42, 16, CAP, &q2));
    }
    CHECK_OK(aos_barrier_all());
    aos_queue_t *r = NULL, *r2 = NULL;
    if (me != 0) {
        CHECK_OK(aos_queue_attach(0, 41, &r));
        CHECK_OK(aos_queue_attach(0, 42, &r2));
    }
    uint64_t item[2];
    if (me == n - 1) { /* alone first: fill, then the next try is refused */
        for (int i = 0; i < CAP; i++) {
            item[0] = (uint64_t)me;
            item[1] = (uint64_t)i;
            CHECK_OK(aos_try_enqueue(r, item));
        }
        CHECK_RC(aos_try_enqueue(r, item), AOS_ERR_AGAIN);
    }
    CHECK_OK(aos_barrier_all());
    if (me != 0) { /* everyone streams into the full queues: pushed back, not lost */
        for (int i = 0; i < ITEMS; i++) {
            item[0] = (uint64_t)me;
            item[1] = (uint64_t)i;
            if (me != n - 1 || i >= CAP)
                CHECK_OK(aos_enqueue(r, item));
            CHECK_OK(aos_enqueue(r2, item));
        }
    } else {
        uint64_t next[64] = {0}, next2[64] = {0};
        CHECK(n <= 64);
        for (long k = 0; k < (long)(n - 1) * ITEMS; k++) {
            CHECK_OK(aos_dequeue(q, item));
            CHECK(item[0] >= 1 && item[0] < (uint64_t)n);
            CHECK(item[1] == next[item[0]]); /* exactly once, in order per producer */
            next[item[0]]++;
            CHECK_OK(aos_dequeue(q2, item));
            CHECK(item[0] >= 1 && item[0] < (uint64_t)n);
            CHECK(item[1] == next2[item[0]]);
            next2[item[0]]++;
        }
        CHECK_RC(aos_try_dequeue(q, item), AOS_ERR_AGAIN);
        CHECK_RC(aos_try_dequeue(q2, item), AOS_ERR_AGAIN);
    }
    CHECK_OK(aos_barrier_all());
    if (me == 1 && !test_same_node(0, 1, n)) { /* fill it, one more on its way; it goes */
        for (int i = 0; i <= CAP; i++)
            CHECK_OK(aos_enqueue(r, item));
    }
    CHECK_OK(aos_barrier_all());
    if (me == 0) {
        CHECK_OK(aos_queue_destroy(q));
        CHECK_OK(aos_queue_destroy(q2));
    }
    CHECK_OK(aos_barrier_all());
    if (me != 0) {
        CHECK_RC(aos_enqueue(r, item), AOS_ERR_DESTROYED);
        CHECK_RC(aos_try_enqueue(r, item), AOS_ERR_DESTROYED);
        CHECK_OK(aos_queue_detach(r));
        CHECK_OK(aos_queue_detach(r2));
    }
    CHECK_OK(aos_barrier_all());
}

static void stream_then_compute(int me, int n)
{
    enum { ITEMS = 50 };
    if (n < 2 || n > 64)
        return;
    uint64_t *done = aos_calloc(1, sizeof *done);
    CHECK(done != NULL);
    aos_queue_t *q = NULL;
    if (me == 0)
        CHECK_OK(aos_queue_create(43, 16, 64, &q));
    CHECK_OK(aos_barrier_all());
    if (me != 0) {
        aos_queue_t *r = NULL;
        CHECK_OK(aos_queue_attach(0, 43, &r));
        for (uint64_t i = 0; i < ITEMS; i++) {
            uint64_t item[2] = {(uint64_t)me, i};
            CHECK_OK(aos_enqueue(r, item));
        }
        /* No aos call until PE 0 says it has every PE's items. */
        double deadline = now_s() + 60;
        volatile double sink = 0;
        while (__atomic_load_n(done, __ATOMIC_ACQUIRE) == 0 && now_s() < deadline)
            for (int i = 0; i < 10000; i++)
                sink = sink + i * 0.5;
        CHECK(__atomic_load_n(done, __ATOMIC_ACQUIRE) == 1);
        CHECK_OK(aos_queue_detach(r));
    } else {
        uint64_t next[64] = {0};
        double deadline = now_s() + 60;
        for (long k = 0; k < (long)(n - 1) * ITEMS; k++) {
            uint64_t item[2] = {0, 0};
            int rc;
            while ((rc = aos_try_dequeue(q, item)) == AOS_ERR_AGAIN && now_s() < deadline)
                CHECK_OK(aos_progress());
            CHECK_OK(rc);
            CHECK(item[0] >= 1 && item[0] < (uint64_t)n);
            CHECK(item[1] == next[item[0]]); /* exactly once, in order per producer */
            next[item[0]]++;
        }
        uint64_t one = 1;
        for (int pe = 1; pe < n; pe++)
            CHECK_OK(aos_putmem(pe, done, &one, sizeof one, NULL));
    }
    CHECK_OK(aos_barrier_all());
    if (me == 0)
        CHECK_OK(aos_queue_destroy(q));
    CHECK_OK(aos_free(done));
}

static void everything_across(int me, int n)
{
    aos_rpc_id_t id;
    CHECK_OK(aos_rpc_register("offnode_echo", echo, 0, &id));
    aos_mbox_t *mb;
    aos_portal_t *portal;
    aos_seg_t *seg;
    uint64_t *landing = aos_calloc((size_t)n, sizeof *landing);
    CHECK(landing != NULL);
    CHECK_OK(aos_mbox_create(32, 16, 2, &mb));
    CHECK_OK(aos_portal_create(33, &portal));
    CHECK_OK(aos_seg_create(34, 4096, AOS_PROTO_RMA | AOS_PROTO_NOTIFY | AOS_PROTO_LOADSTORE, &seg));
    CHECK_OK(aos_barrier_all());
    enum { WRITES = 20 };
    for (int pe = 0; pe < n; pe++) { /* each PE's turn as the target */
        if (pe == me) {
            for (int from = 0; from < n; from++) { /* every other PE's writes, in order */
                if (from == me)
                    continue;
                size_t len = 0;
                CHECK_OK(aos_portal_read(portal, from, &landing[from], sizeof *landing, &len,
                                         NULL));
                CHECK(len == sizeof *landing && landing[from] == (uint64_t)from * 1000 + 1);
            }
            uint64_t next[64] = {0}, msg[2];
            for (long k = 0; k < (long)(n - 1) * WRITES; k++) {
                CHECK_OK(aos_mbox_read(mb, msg, NULL));
                CHECK(msg[0] < (uint64_t)n && msg[1] == next[msg[0]]);
                next[msg[0]]++;
            }
        } else {
            uint64_t word = (uint64_t)me * 1000 + 1, got = 0, msg[2] = {(uint64_t)me, 0};
            size_t len = 0;
            aos_mbox_t *tmb;
            aos_portal_t *tp;
            aos_event_t *ev;
            CHECK_OK(aos_event_create(&ev));
            CHECK_OK(aos_rpc(pe, id, &word, sizeof word, &got, sizeof got, &len, NULL));
            CHECK(got == word && len == sizeof word);
            got = 0;
            CHECK_OK(aos_rpc(pe, id, &word, sizeof word, &got, sizeof got, &len, ev));
            CHECK_OK(aos_rpc_post(pe, id, &word, sizeof word));
            CHECK_OK(aos_event_wait(ev));
            CHECK(got == word && len == sizeof word);
            CHECK_OK(aos_portal_open(pe, 33, &tp)); /* the target reads portals first */
            CHECK_OK(aos_portal_write(tp, &word, sizeof word, NULL));
            CHECK_OK(aos_portal_close(tp));
            CHECK_OK(aos_mbox_open(pe, 32, &tmb));
            for (int i = 0; i < WRITES; i++) { /* more than it holds: half with events */
                msg[1] = (uint64_t)i;
                CHECK_OK(aos_mbox_write(tmb, msg, i % 2 ? ev : NULL));
            }
            CHECK_OK(aos_event_wait(ev));
            CHECK_OK(aos_mbox_close(tmb));
            aos_seg_t *ts;
            CHECK_OK(aos_seg_attach(pe, 34, &ts));
            CHECK_OK(aos_put_notify(ts, (size_t)me * 8, &word, sizeof word, 7, NULL));
            CHECK_OK(aos_seg_detach(ts));
            CHECK_OK(aos_event_destroy(ev));
        }
        CHECK_OK(aos_barrier_all());
    }
    aos_notify_req_t *req; /* every other PE's notification came, after its data */
    if (n > 1) {
        CHECK_OK(aos_notify_init(seg, AOS_ANY_SOURCE, 7, (uint64_t)(n - 1), &req));
        CHECK_OK(aos_notify_start(req));
        CHECK_OK(aos_notify_wait(req));
        CHECK_OK(aos_notify_free(req));
    }
    uint64_t *w;
    CHECK_OK(aos_seg_ptr(seg, 0, (void **)&w));
    for (int pe = 0; pe < n; pe++)
        CHECK(pe == me || w[pe] == (uint64_t)pe * 1000 + 1);
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_seg_destroy(seg));
    CHECK_OK(aos_portal_close(portal));
    CHECK_OK(aos_mbox_close(mb));
    aos_free(landing);
}

int main(void)
{
    CHECK_OK(aos_init());
    int me = aos_my_pe(), n = aos_n_pes();
    computing_target(me, n);
    sleeping_waiter(me, n);
    atomic_after_puts(me, n);
    queue_flow(me, n);
    stream_then_compute(me, n);
    everything_across(me, n);
    CHECK_OK(aos_finalize());
    return 0;
}
