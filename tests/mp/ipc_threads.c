/* Mailbox and portal writes with events from several threads of a PE at
 * once, each thread on its own handle: their pending operations share one
 * list that progress on any thread polls.
 *
 * PE 0 receives; every other PE runs THREADS threads. mailbox: each thread
 * writes PER messages {pe, thread, seq} with its own event into PE 0's
 * mailbox, which holds one message, so that most writes wait in the list;
 * PE 0 reads them all and checks that each thread's come in order, once.
 * portal: each thread writes PER_PORTAL messages with its own event through
 * a portal of its own at PE 0, which reads them from each in turn and
 * checks order and length.
 * shared: each writer PE's threads write to one portal at PE 0, threads 0
 * and 1 through one handle they share, the others through handles of
 * their own, mixing blocking writes and writes with events; PE 0 reads
 * them and checks that each permission carried one write: every message
 * once, each thread's in order.
 * order: on one handle, a write with an event that must wait for its
 * permission, then a blocking write: they arrive in the order made.
 *
 * An argument (mailbox, portal, shared, order) runs one case. */
#include <string.h>

#include "../common/check.h"
#include "../common/spin.h"
#include "../common/threads.h"

#define THREADS 4
#define MAXPES 16
#ifdef AOS_TEST_BIG_MIB /* sanitized builds are several times slower */
#define PER 300
#define PER_PORTAL 60
#else
#define PER 1500
#define PER_PORTAL 200
#endif
#define MBOX_PORT 0x1c01u
#define PORTAL_PORT(pe, t) (0x1c10u + (uint32_t)(pe) * THREADS + (uint32_t)(t))
#define SHARED_PORTS 0x1d00u /* + the writer PE */
#define ORDER_PORTS 0x1e00u
#define ORDER_ROUNDS 100

struct msg {
    uint32_t pe, thread, seq, pad;
};

static int me, npes;
static struct msg sent[THREADS][PER_PORTAL]; /* a portal write's source stays until done */

static void *mailbox_writer(void *arg)
{
    int t = (int)(intptr_t)arg;
    aos_event_t *ev;
    aos_mbox_t *mb;
    CHECK_OK(aos_event_create(&ev));
    CHECK_OK(aos_mbox_open(0, MBOX_PORT, &mb));
    for (uint32_t i = 0; i < PER; i++) {
        struct msg m = {(uint32_t)me, (uint32_t)t, i, 0};
        CHECK_OK(aos_mbox_write(mb, &m, ev));
        if (i % 16 == 15)
            CHECK_OK(aos_event_wait(ev));
    }
    CHECK_OK(aos_event_wait(ev));
    CHECK_OK(aos_mbox_close(mb));
    CHECK_OK(aos_event_destroy(ev));
    return NULL;
}

static void *portal_writer(void *arg)
{
    int t = (int)(intptr_t)arg;
    aos_event_t *ev;
    aos_portal_t *p;
    CHECK_OK(aos_event_create(&ev));
    CHECK_OK(aos_portal_open(0, PORTAL_PORT(me, t), &p));
    for (uint32_t i = 0; i < PER_PORTAL; i++) {
        sent[t][i] = (struct msg){(uint32_t)me, (uint32_t)t, i, 0};
        CHECK_OK(aos_portal_write(p, &sent[t][i], sizeof sent[t][i], ev));
        if (i % 4 == 3)
            CHECK_OK(aos_event_wait(ev));
    }
    CHECK_OK(aos_event_wait(ev));
    CHECK_OK(aos_portal_close(p));
    CHECK_OK(aos_event_destroy(ev));
    return NULL;
}

static aos_portal_t *shared_handle; /* threads 0 and 1 of a writer PE */

/* PE 0 receives from each writer PE through a portal of its own, at port
 * base + the writer; created before the case, closed after it. */
static void receivers_create(aos_portal_t **ports, uint32_t base)
{
    if (me == 0)
        for (int pe = 1; pe < npes; pe++)
            CHECK_OK(aos_portal_create(base + (uint32_t)pe, &ports[pe]));
    CHECK_OK(aos_barrier_all());
}

static void receivers_close(aos_portal_t **ports)
{
    CHECK_OK(aos_barrier_all());
    if (me == 0)
        for (int pe = 1; pe < npes; pe++)
            CHECK_OK(aos_portal_close(ports[pe]));
}

static void *shared_writer(void *arg)
{
    int t = (int)(intptr_t)arg;
    aos_event_t *ev;
    aos_portal_t *p = shared_handle;
    CHECK_OK(aos_event_create(&ev));
    if (t >= 2)
        CHECK_OK(aos_portal_open(0, SHARED_PORTS + (uint32_t)me, &p));
    for (uint32_t i = 0; i < PER_PORTAL; i++) {
        sent[t][i] = (struct msg){(uint32_t)me, (uint32_t)t, i, 0};
        int blocking = (i + (uint32_t)t) % 3 == 0;
        CHECK_OK(aos_portal_write(p, &sent[t][i], sizeof sent[t][i], blocking ? NULL : ev));
        if (i % 4 == 3)
            CHECK_OK(aos_event_wait(ev));
    }
    CHECK_OK(aos_event_wait(ev));
    if (t >= 2)
        CHECK_OK(aos_portal_close(p));
    CHECK_OK(aos_event_destroy(ev));
    return NULL;
}

static void shared_case(void)
{
    static aos_portal_t *ports[MAXPES];
    receivers_create(ports, SHARED_PORTS);
    if (me != 0) {
        CHECK_OK(aos_portal_open(0, SHARED_PORTS + (uint32_t)me, &shared_handle));
        test_run_threads(THREADS, shared_writer);
        CHECK_OK(aos_portal_close(shared_handle));
    } else {
        static uint32_t next[MAXPES][THREADS];
        static struct msg into; /* symmetric, as a portal's buffer must be */
        memset(next, 0, sizeof next);
        for (uint32_t i = 0; i < THREADS * PER_PORTAL; i++)
            for (int pe = 1; pe < npes; pe++) {
                size_t len = 0;
                CHECK_OK(aos_portal_read(ports[pe], pe, &into, sizeof into, &len, NULL));
                CHECK(len == sizeof into && into.pe == (uint32_t)pe && into.thread < THREADS);
                CHECK(into.seq == next[pe][into.thread]); /* once each, in order */
                next[pe][into.thread]++;
            }
    }
    receivers_close(ports);
}

static void order_case(void)
{
    static aos_portal_t *ports[MAXPES];
    receivers_create(ports, ORDER_PORTS);
    if (me != 0) {
        aos_portal_t *p;
        aos_event_t *ev;
        CHECK_OK(aos_portal_open(0, ORDER_PORTS + (uint32_t)me, &p));
        CHECK_OK(aos_event_create(&ev));
        static uint32_t m[2 * ORDER_ROUNDS];
        for (uint32_t i = 0; i < 2 * ORDER_ROUNDS; i += 2) {
            m[i] = i;
            m[i + 1] = i + 1;
            CHECK_OK(aos_portal_write(p, &m[i], sizeof m[i], ev)); /* no permission yet */
            CHECK_OK(aos_portal_write(p, &m[i + 1], sizeof m[i + 1], NULL)); /* after it */
            CHECK_OK(aos_event_wait(ev));
        }
        CHECK_OK(aos_event_destroy(ev));
        CHECK_OK(aos_portal_close(p));
    } else {
        static uint32_t into; /* symmetric */
        for (uint32_t i = 0; i < 2 * ORDER_ROUNDS; i++)
            for (int pe = 1; pe < npes; pe++) {
                size_t len = 0;
                spin_us(10); /* the writes wait for their permission */
                CHECK_OK(aos_portal_read(ports[pe], pe, &into, sizeof into, &len, NULL));
                CHECK(len == sizeof into && into == i);
            }
    }
    receivers_close(ports);
}

static void mailbox_case(void)
{
    aos_mbox_t *mb = NULL;
    if (me == 0)
        CHECK_OK(aos_mbox_create(MBOX_PORT, sizeof(struct msg), 1, &mb));
    CHECK_OK(aos_barrier_all());
    if (me != 0) {
        test_run_threads(THREADS, mailbox_writer);
    } else {
        static uint32_t next[MAXPES][THREADS];
        memset(next, 0, sizeof next);
        for (long k = 0; k < (long)(npes - 1) * THREADS * PER; k++) {
            struct msg m;
            CHECK_OK(aos_mbox_read(mb, &m, NULL));
            CHECK(m.pe >= 1 && m.pe < (uint32_t)npes && m.thread < THREADS);
            CHECK(m.seq == next[m.pe][m.thread]);
            next[m.pe][m.thread]++;
        }
        struct msg extra;
        CHECK_RC(aos_mbox_try_read(mb, &extra), AOS_ERR_AGAIN);
    }
    CHECK_OK(aos_barrier_all());
    if (me == 0)
        CHECK_OK(aos_mbox_close(mb));
}

static void portal_case(void)
{
    static aos_portal_t *ports[MAXPES][THREADS];
    if (me == 0)
        for (int pe = 1; pe < npes; pe++)
            for (int t = 0; t < THREADS; t++)
                CHECK_OK(aos_portal_create(PORTAL_PORT(pe, t), &ports[pe][t]));
    CHECK_OK(aos_barrier_all());
    if (me != 0) {
        test_run_threads(THREADS, portal_writer);
    } else {
        for (uint32_t i = 0; i < PER_PORTAL; i++)
            for (int pe = 1; pe < npes; pe++)
                for (int t = 0; t < THREADS; t++) {
                    /* Symmetric, as a portal's buffer must be; one per
                     * writer thread, which has it to itself. */
                    static struct msg into[MAXPES][THREADS];
                    struct msg *m = &into[pe][t];
                    size_t len = 0;
                    CHECK_OK(aos_portal_read(ports[pe][t], pe, m, sizeof *m, &len, NULL));
                    CHECK(len == sizeof *m);
                    CHECK(m->pe == (uint32_t)pe && m->thread == (uint32_t)t && m->seq == i);
                }
    }
    CHECK_OK(aos_barrier_all());
    if (me == 0)
        for (int pe = 1; pe < npes; pe++)
            for (int t = 0; t < THREADS; t++)
                CHECK_OK(aos_portal_close(ports[pe][t]));
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : "";
    CHECK_OK(aos_init());
    me = aos_my_pe();
    npes = aos_n_pes();
    if (npes < 2 || npes > MAXPES)
        return aos_finalize();
    if (!*only || strcmp(only, "mailbox") == 0)
        mailbox_case();
    if (!*only || strcmp(only, "portal") == 0)
        portal_case();
    if (!*only || strcmp(only, "shared") == 0)
        shared_case();
    if (!*only || strcmp(only, "order") == 0)
        order_case();
    CHECK_OK(aos_barrier_all());
    return aos_finalize();
}
