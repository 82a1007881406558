/* Objects destroyed and created again under the same key while peers use
 * them: no handle of the old one may reach the new one, on a node or from
 * another (where an attached handle learns of the destroy by message).
 *
 * segment: the other PEs attach to PE 0's segment in a loop while PE 0
 * destroys and creates it again ROUNDS times (keeping each a little while),
 * then destroys it for good and creates another key at once (in the memory
 * just freed). After a barrier, every access through each PE's last handle
 * must be AOS_ERR_DESTROYED, and the new segment must still be zero. EPOCHS
 * times, since the last attach rarely races with the last destroy.
 *
 * queue: the other PEs stream items into PE 0's queue until told it is
 * destroyed; PE 0 dequeues some, destroys it and creates it again at once
 * (same key, same shape, so the same memory). Once the producers have
 * detached (which waits for every answer), the new queue must be empty.
 *
 * portal: PE 1 writes three messages through PE 0's portal into buffer A;
 * both close it; PE 0 creates it again (same port, same memory) and reads
 * into buffer B: PE 1's next write must land in B, and A stay as it was
 * (from another node, PE 1's copy of the old portal's last permission must
 * not pass for the new one's).
 *
 * relay (a layout with a node other than PE 0's that holds two PEs, R and
 * U): U attaches to PE 0's segment; PE 0 destroys it, creates another in
 * the same memory and then tells R with a blocking put; R passes the word
 * on to U with a plain store (its node's memory). U, having seen it, must
 * find its handle dead: the destroy came first, whatever path the news took.
 *
 * queue_attach: the other PEs attach to PE 0's queue in a loop while PE 0
 * destroys and creates it again QA_ROUNDS times (or for QA_SECONDS)
 * without pause: each attach
 * finds the queue whole (then a try_enqueue works, finds it full, or finds
 * it destroyed since) or finds no key, never a queue half made.
 *
 * queue_fresh: PE 0 creates a queue under a new key each round; the other
 * PEs attach it as soon as it can be found and try one item each, which
 * must go in: the queue lives until PE 0 has taken them all (from another
 * node the item may arrive before the owner has finished creating it).
 *
 * An argument (segment, queue, queue_attach, queue_fresh, portal, relay)
 * runs one case. */
#include <string.h>
#include <time.h>

#include "../common/check.h"
#include "../common/nodes.h"

#define SKEY 0x5e61u
#define OTHER_KEY 0x5e62u
#define QKEY 0x5e63u
#define SEG_SIZE 4096
#define EPOCHS 40
#define ROUNDS 10
#define QROUNDS 6
#define QCAP 64

static uint64_t stop; /* at the attachers: PE 0 is done */
static uint64_t news; /* at R, then at U: the round PE 0 has destroyed */
#define RELAY_ROUNDS 50

/* One epoch of the segment case. */
static void segment_epoch(int me, int npes)
{
    const unsigned protos = AOS_PROTO_RMA | AOS_PROTO_ATOMIC;
    aos_seg_t *mine = NULL, *last = NULL;
    stop = 0;
    if (me == 0)
        CHECK_OK(aos_seg_create(SKEY, SEG_SIZE, protos, &mine));
    CHECK_OK(aos_barrier_all());
    if (me == 0) {
        for (int r = 0; r < ROUNDS; r++) {
            CHECK_OK(aos_seg_destroy(mine));
            CHECK_OK(aos_seg_create(SKEY, SEG_SIZE, protos, &mine));
            /* Kept for up to 1 ms, so that attaches complete in between;
             * computing, not in aos. */
            struct timespec t0, t;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            long hold_ns = (long)(r * 7919 % 4000) * 1000;
            do
                clock_gettime(CLOCK_MONOTONIC, &t);
            while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < hold_ns);
        }
        CHECK_OK(aos_seg_destroy(mine));
        CHECK_OK(aos_seg_create(OTHER_KEY, SEG_SIZE, protos, &mine));
        uint64_t one = 1;
        for (int pe = 1; pe < npes; pe++)
            CHECK_OK(aos_putmem(pe, &stop, &one, sizeof one, NULL));
    } else {
        /* Relaxed: the flag only ends the loop; the barrier below orders
         * the last destroy before the checks. */
        while (__atomic_load_n(&stop, __ATOMIC_RELAXED) == 0) {
            aos_seg_t *h;
            int rc = aos_seg_attach(0, SKEY, &h);
            if (rc == AOS_ERR_NO_KEY)
                continue; /* between a destroy and its create */
            CHECK_RC(rc, AOS_OK);
            if (last != NULL)
                CHECK_OK(aos_seg_detach(last));
            last = h;
        }
    }
    CHECK_OK(aos_barrier_all()); /* the last destroy came before it */
    if (last != NULL) {
        unsigned char b[64];
        memset(b, 0xab, sizeof b);
        uint64_t v = 0;
        CHECK_RC(aos_put(last, 0, b, sizeof b, NULL), AOS_ERR_DESTROYED);
        CHECK_RC(aos_get(b, last, 0, sizeof b, NULL), AOS_ERR_DESTROYED);
        CHECK_RC(aos_fetch_add_u64(last, 0, 1, &v, NULL), AOS_ERR_DESTROYED);
        CHECK_RC(aos_postadd_u64(last, 8, 1), AOS_ERR_DESTROYED);
        CHECK_OK(aos_seg_detach(last));
    }
    CHECK_OK(aos_barrier_all());
    if (me == 0) {
        unsigned char b[SEG_SIZE];
        CHECK_OK(aos_get(b, mine, 0, sizeof b, NULL));
        for (size_t i = 0; i < sizeof b; i++)
            CHECK(b[i] == 0);
        CHECK_OK(aos_seg_destroy(mine));
    }
    CHECK_OK(aos_barrier_all());
}

static void queue_case(int me)
{
    for (int r = 0; r < QROUNDS; r++) {
        aos_queue_t *q = NULL;
        uint64_t item[2];
        aos_queue_t *h = NULL;
        if (me == 0)
            CHECK_OK(aos_queue_create(QKEY, sizeof item, QCAP, &q));
        CHECK_OK(aos_barrier_all());
        if (me != 0)
            CHECK_OK(aos_queue_attach(0, QKEY, &h));
        CHECK_OK(aos_barrier_all());
        if (me != 0) {
            item[0] = (uint64_t)me;
            item[1] = 0;
            int rc;
            while ((rc = aos_enqueue(h, item)) == AOS_OK)
                item[1]++;
            CHECK_RC(rc, AOS_ERR_DESTROYED);
            CHECK_OK(aos_queue_detach(h)); /* every item answered */
        } else {
            /* Some items taken, more coming: destroyed under a stream. */
            for (long got = 0; got < 50 * (r + 1);)
                got += aos_try_dequeue(q, item) == AOS_OK;
            CHECK_OK(aos_queue_destroy(q));
            CHECK_OK(aos_queue_create(QKEY, sizeof item, QCAP, &q));
        }
        CHECK_OK(aos_barrier_all());
        if (me == 0) {
            int rc = aos_try_dequeue(q, item);
            if (rc == AOS_OK)
                fprintf(stderr, "FAIL round %d: item %llu of PE %llu in the new queue\n", r,
                        (unsigned long long)item[1], (unsigned long long)item[0]);
            CHECK_RC(rc, AOS_ERR_AGAIN);
            CHECK_OK(aos_queue_destroy(q));
        }
        CHECK_OK(aos_barrier_all());
    }
}

#define QA_ROUNDS 2000
#define QA_SECONDS 30

static void queue_attach_case(int me, int npes)
{
    uint64_t item[2] = {(uint64_t)me, 0};
    aos_queue_t *q = NULL;
    stop = 0;
    if (me == 0)
        CHECK_OK(aos_queue_create(QKEY, sizeof item, 2, &q));
    CHECK_OK(aos_barrier_all());
    if (me == 0) {
        /* At most QA_SECONDS: sanitized builds run ten times slower. */
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (int r = 0; r < QA_ROUNDS; r++) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            if (t.tv_sec - t0.tv_sec >= QA_SECONDS)
                break;
            CHECK_OK(aos_queue_destroy(q));
            CHECK_OK(aos_queue_create(QKEY, sizeof item, 2, &q));
            while (aos_try_dequeue(q, item) == AOS_OK)
                ;
        }
        uint64_t one = 1;
        for (int pe = 1; pe < npes; pe++)
            CHECK_OK(aos_putmem(pe, &stop, &one, sizeof one, NULL));
    } else {
        /* Relaxed: the flag only ends the loop. */
        while (__atomic_load_n(&stop, __ATOMIC_RELAXED) == 0) {
            aos_queue_t *h;
            int rc = aos_queue_attach(0, QKEY, &h);
            if (rc == AOS_ERR_NO_KEY)
                continue; /* between a destroy and its create */
            CHECK_RC(rc, AOS_OK);
            rc = aos_try_enqueue(h, item);
            if (rc != AOS_ERR_AGAIN && rc != AOS_ERR_DESTROYED)
                CHECK_RC(rc, AOS_OK);
            CHECK_OK(aos_queue_detach(h));
        }
    }
    CHECK_OK(aos_barrier_all());
    if (me == 0)
        CHECK_OK(aos_queue_destroy(q));
    CHECK_OK(aos_barrier_all());
}

#define QF_ROUNDS 100
#define QF_KEY 0x5e700000u

static void queue_fresh_case(int me, int npes)
{
    for (int r = 0; r < QF_ROUNDS; r++) {
        uint64_t item[2] = {(uint64_t)me, (uint64_t)r};
        aos_queue_t *q;
        if (me == 0) {
            CHECK_OK(aos_queue_create(QF_KEY + (uint64_t)r, sizeof item, (size_t)npes, &q));
            uint64_t seen = 0;
            for (int n = 1; n < npes; n++) {
                CHECK_OK(aos_dequeue(q, item));
                CHECK(item[0] > 0 && item[0] < (uint64_t)npes && item[1] == (uint64_t)r);
                CHECK((seen & (1ull << item[0])) == 0); /* one item per PE */
                seen |= 1ull << item[0];
            }
            CHECK_OK(aos_queue_destroy(q));
        } else {
            int rc;
            while ((rc = aos_queue_attach(0, QF_KEY + (uint64_t)r, &q)) == AOS_ERR_NO_KEY)
                ;
            CHECK_OK(rc);
            CHECK_OK(aos_try_enqueue(q, item));
            CHECK_OK(aos_queue_detach(q));
        }
    }
    CHECK_OK(aos_barrier_all());
}

#define PORT 0x5e64u
#define PORTAL_ROUNDS 3
static char buf_a[64], buf_b[64]; /* PE 0's: where its portal reads go */

static void portal_case(int me)
{
    aos_portal_t *p = NULL;
    char msg[32];
    for (int life = 0; life < 2; life++) {
        if (me == 0)
            CHECK_OK(aos_portal_create(PORT, &p));
        CHECK_OK(aos_barrier_all());
        if (me == 1)
            CHECK_OK(aos_portal_open(0, PORT, &p));
        CHECK_OK(aos_barrier_all());
        for (int i = 0; i < PORTAL_ROUNDS; i++) {
            char *into = life == 0 ? buf_a : buf_b;
            if (me == 0) {
                size_t len = 0;
                aos_event_t *ev;
                CHECK_OK(aos_event_create(&ev));
                memset(into, 0, sizeof buf_a);
                CHECK_OK(aos_portal_read(p, 1, into, sizeof buf_a, &len, ev));
                /* A hang guard, not a speed test: a write gone elsewhere
                 * never answers. */
                CHECK_OK(aos_event_wait_timed(ev, 60ull * 1000000000ull));
                CHECK_OK(aos_event_destroy(ev));
                CHECK(len == sizeof msg - (size_t)i);
                for (size_t k = 0; k < sizeof buf_a; k++)
                    CHECK(into[k] == (k < len ? (char)('a' + 4 * life + i) : 0));
                if (life == 1) /* the last of life 0 there, untouched */
                    for (size_t k = 0; k < sizeof buf_a; k++)
                        CHECK(buf_a[k] == (k < sizeof msg - PORTAL_ROUNDS + 1
                                               ? (char)('a' + PORTAL_ROUNDS - 1)
                                               : 0));
            } else if (me == 1) {
                memset(msg, 'a' + 4 * life + i, sizeof msg);
                CHECK_OK(aos_portal_write(p, msg, sizeof msg - (size_t)i, NULL));
            }
        }
        CHECK_OK(aos_barrier_all());
        if (me <= 1)
            CHECK_OK(aos_portal_close(p));
        CHECK_OK(aos_barrier_all());
    }
}

static void relay_case(int me, int npes)
{
    int r = -1, u = -1; /* the first PE off PE 0's node with a node peer, and that peer */
    for (int pe = 1; pe + 1 < npes && r < 0; pe++)
        if (!test_same_node(0, pe, npes) && test_same_node(pe, pe + 1, npes))
            r = pe, u = pe + 1;
    if (r < 0)
        return; /* no such layout */
    for (uint64_t round = 1; round <= RELAY_ROUNDS; round++) {
        aos_seg_t *s = NULL, *fresh = NULL, *h = NULL;
        if (me == 0)
            CHECK_OK(aos_seg_create(SKEY, SEG_SIZE, AOS_PROTO_RMA, &s));
        CHECK_OK(aos_barrier_all());
        if (me == u)
            CHECK_OK(aos_seg_attach(0, SKEY, &h));
        CHECK_OK(aos_barrier_all());
        if (me == 0) {
            CHECK_OK(aos_seg_destroy(s));
            CHECK_OK(aos_seg_create(OTHER_KEY, SEG_SIZE, AOS_PROTO_RMA, &fresh));
            CHECK_OK(aos_putmem(r, &news, &round, sizeof round, NULL));
        } else if (me == r) {
            CHECK_OK(aos_wait_until_u64(&news, AOS_CMP_GE, round));
            uint64_t *at_u;
            CHECK_OK(aos_sym_ptr(&news, u, (void **)&at_u));
            __atomic_store_n(at_u, round, __ATOMIC_RELEASE);
        } else if (me == u) {
            while (__atomic_load_n(&news, __ATOMIC_ACQUIRE) < round)
                ;
            uint64_t v = ~round;
            CHECK_RC(aos_put(h, 0, &v, sizeof v, NULL), AOS_ERR_DESTROYED);
            CHECK_OK(aos_seg_detach(h));
        }
        CHECK_OK(aos_barrier_all());
        if (me == 0) {
            uint64_t w = 1;
            CHECK_OK(aos_get(&w, fresh, 0, sizeof w, NULL));
            CHECK(w == 0); /* nothing of U's reached the new segment */
            CHECK_OK(aos_seg_destroy(fresh));
        }
        CHECK_OK(aos_barrier_all());
    }
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : "";
    CHECK_OK(aos_init());
    int me = aos_my_pe(), npes = aos_n_pes();
    if (npes < 2)
        return aos_finalize();
    for (int e = 0; e < EPOCHS && (!*only || strcmp(only, "segment") == 0); e++)
        segment_epoch(me, npes);
    if (!*only || strcmp(only, "queue") == 0)
        queue_case(me);
    if (!*only || strcmp(only, "queue_attach") == 0)
        queue_attach_case(me, npes);
    if (!*only || strcmp(only, "queue_fresh") == 0)
        queue_fresh_case(me, npes);
    if (!*only || strcmp(only, "portal") == 0)
        portal_case(me);
    if (!*only || strcmp(only, "relay") == 0)
        relay_case(me, npes);
    return aos_finalize();
}
