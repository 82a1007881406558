/* Objects destroyed while a peer waits on them.
 *
 * PE 1 blocks writing into an object of PE 0 that is full: a queue, a
 * mailbox, a notification lane (to a segment), a portal (no permission
 * comes). PE 0, which does not call aos meanwhile (so nothing drains),
 * destroys the object and, but for the portal, at once creates a fresh one
 * of the same shape, which takes the same memory. PE 1's call must return
 * AOS_ERR_DESTROYED, and the fresh object must be untouched: no item, no
 * byte. In the mailbox and portal cases a write with an event is pending
 * too: its event reports AOS_ERR_DESTROYED, once. The other PEs only take
 * part in barriers. An argument (queue, mbox, portal, notify) runs one
 * case. All but the queue case run with PE 1 on another node too (its
 * put_notify waits there for the lane's ack, its mailbox writes for the
 * owner's answer, its portal writes for a permission, and the destroy's
 * message comes before them); the queue case needs PE 1 on PE 0's node
 * (from another node a full queue holds items at its owner and
 * aos_enqueue does not block). */
#include <string.h>
#include <unistd.h>

#include "../common/check.h"

#define QKEY 0xd001u
#define SKEY 0xd002u
#define PORT 0xd003u
#define PORTAL 0xd004u
#define CAP 2
#define SEG_SIZE 4096

static uint64_t ready; /* at PE 0: PE 1 is about to block in case `ready` */
static uint64_t go;    /* at PE 1: PE 0 has left the barrier and stopped calling aos */

/* PE 0: until PE 1 says it is about to block, without calling aos; then a
 * little longer so that it most likely sleeps (the outcome is the same if
 * it does not). */
static void await_blocked(uint64_t which)
{
    while (__atomic_load_n(&ready, __ATOMIC_ACQUIRE) < which)
        usleep(1000);
    usleep(20000);
}

static void say_blocking(uint64_t which)
{
    CHECK_OK(aos_putmem(0, &ready, &which, sizeof which, NULL));
}

static void queue_case(int me)
{
    uint64_t item = 0x1111;
    if (me == 0) {
        aos_queue_t *q;
        CHECK_OK(aos_queue_create(QKEY, sizeof item, CAP, &q));
        CHECK_OK(aos_barrier_all());
        await_blocked(1);
        CHECK_OK(aos_queue_destroy(q));
        CHECK_OK(aos_queue_create(QKEY, sizeof item, CAP, &q));
        CHECK_OK(aos_barrier_all());
        CHECK_RC(aos_try_dequeue(q, &item), AOS_ERR_AGAIN); /* nothing came in */
        CHECK_OK(aos_barrier_all());
        CHECK_OK(aos_queue_destroy(q));
    } else if (me == 1) {
        aos_queue_t *q;
        CHECK_OK(aos_barrier_all());
        CHECK_OK(aos_queue_attach(0, QKEY, &q));
        for (int i = 0; i < CAP; i++)
            CHECK_OK(aos_enqueue(q, &item));
        say_blocking(1);
        CHECK_RC(aos_enqueue(q, &item), AOS_ERR_DESTROYED);
        CHECK_RC(aos_try_enqueue(q, &item), AOS_ERR_DESTROYED);
        CHECK_OK(aos_queue_detach(q));
        CHECK_OK(aos_barrier_all());
        CHECK_OK(aos_barrier_all());
    } else {
        CHECK_OK(aos_barrier_all());
        CHECK_OK(aos_barrier_all());
        CHECK_OK(aos_barrier_all());
    }
}

static void mbox_case(int me)
{
    uint64_t msg = 0x2222;
    if (me == 0) {
        aos_mbox_t *mb;
        CHECK_OK(aos_mbox_create(PORT, sizeof msg, CAP, &mb));
        CHECK_OK(aos_barrier_all());
        await_blocked(2);
        CHECK_OK(aos_mbox_close(mb));
        CHECK_OK(aos_mbox_create(PORT, sizeof msg, CAP, &mb));
        CHECK_OK(aos_barrier_all());
        CHECK_RC(aos_mbox_try_read(mb, &msg), AOS_ERR_AGAIN);
        CHECK_OK(aos_barrier_all());
        CHECK_OK(aos_mbox_close(mb));
    } else if (me == 1) {
        aos_mbox_t *mb;
        CHECK_OK(aos_barrier_all());
        CHECK_OK(aos_mbox_open(0, PORT, &mb));
        for (int i = 0; i < CAP; i++)
            CHECK_OK(aos_mbox_write(mb, &msg, NULL));
        aos_event_t *ev;
        CHECK_OK(aos_event_create(&ev));
        CHECK_OK(aos_mbox_write(mb, &msg, ev)); /* full: pending */
        say_blocking(2);
        CHECK_RC(aos_mbox_write(mb, &msg, NULL), AOS_ERR_DESTROYED);
        CHECK_RC(aos_event_wait(ev), AOS_ERR_DESTROYED); /* its message was lost */
        CHECK_OK(aos_event_wait(ev));                    /* reported once */
        CHECK_OK(aos_event_destroy(ev));
        CHECK_OK(aos_mbox_close(mb));
        CHECK_OK(aos_barrier_all());
        CHECK_OK(aos_barrier_all());
    } else {
        CHECK_OK(aos_barrier_all());
        CHECK_OK(aos_barrier_all());
        CHECK_OK(aos_barrier_all());
    }
}

/* A portal: PE 1's writes wait for a permission PE 0 never gives. */
static void portal_case(int me)
{
    uint64_t msg = 0x3333;
    if (me == 0) {
        aos_portal_t *p;
        CHECK_OK(aos_portal_create(PORTAL, &p));
        CHECK_OK(aos_barrier_all());
        await_blocked(4);
        CHECK_OK(aos_portal_close(p));
        CHECK_OK(aos_barrier_all());
    } else if (me == 1) {
        aos_portal_t *p;
        CHECK_OK(aos_barrier_all());
        CHECK_OK(aos_portal_open(0, PORTAL, &p));
        aos_event_t *ev;
        CHECK_OK(aos_event_create(&ev));
        CHECK_OK(aos_portal_write(p, &msg, sizeof msg, ev)); /* pending */
        say_blocking(4);
        CHECK_RC(aos_portal_write(p, &msg, sizeof msg, NULL), AOS_ERR_DESTROYED);
        CHECK_RC(aos_event_wait(ev), AOS_ERR_DESTROYED); /* nothing was written */
        CHECK_OK(aos_event_wait(ev));
        CHECK_OK(aos_event_destroy(ev));
        CHECK_OK(aos_portal_close(p));
        CHECK_OK(aos_barrier_all());
    } else {
        CHECK_OK(aos_barrier_all());
        CHECK_OK(aos_barrier_all());
    }
}

/* A notification lane holds 64 notifications in flight. */
#define LANE 64

static void notify_case(int me)
{
    const unsigned protos = AOS_PROTO_RMA | AOS_PROTO_NOTIFY | AOS_PROTO_LOADSTORE;
    if (me == 0) {
        aos_seg_t *s;
        CHECK_OK(aos_seg_create(SKEY, SEG_SIZE, protos, &s));
        CHECK_OK(aos_barrier_all());
        /* A PE still in the barrier drains lanes; from here on PE 0 does not. */
        uint64_t three = 3;
        CHECK_OK(aos_putmem(1, &go, &three, sizeof three, NULL));
        await_blocked(3);
        CHECK_OK(aos_seg_destroy(s));
        CHECK_OK(aos_seg_create(SKEY, SEG_SIZE, protos, &s));
        CHECK_OK(aos_barrier_all()); /* drains the lane: PE 1's put goes on */
        CHECK_OK(aos_barrier_all());
        const unsigned char *p;
        CHECK_OK(aos_seg_ptr(s, 0, (void **)&p));
        for (size_t i = 0; i < SEG_SIZE; i++)
            CHECK(p[i] == 0);
        CHECK_OK(aos_seg_destroy(s));
    } else if (me == 1) {
        aos_seg_t *s;
        CHECK_OK(aos_barrier_all());
        CHECK_OK(aos_seg_attach(0, SKEY, &s));
        CHECK_OK(aos_wait_until_u64(&go, AOS_CMP_GE, 3));
        for (int i = 0; i < LANE; i++)
            CHECK_OK(aos_put_notify(s, 0, NULL, 0, 7, NULL));
        say_blocking(3);
        unsigned char data[64];
        memset(data, 0x5a, sizeof data);
        CHECK_RC(aos_put_notify(s, 0, data, sizeof data, 7, NULL), AOS_ERR_DESTROYED);
        CHECK_OK(aos_seg_detach(s));
        CHECK_OK(aos_barrier_all());
        CHECK_OK(aos_barrier_all());
    } else {
        CHECK_OK(aos_barrier_all());
        CHECK_OK(aos_barrier_all());
        CHECK_OK(aos_barrier_all());
    }
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : "";
    CHECK_OK(aos_init());
    int me = aos_my_pe();
    if (aos_n_pes() < 2)
        return aos_finalize();
    int same_node = test_same_node(0, 1, aos_n_pes());
    if (same_node && (!*only || strcmp(only, "queue") == 0))
        queue_case(me);
    if (!*only || strcmp(only, "mbox") == 0)
        mbox_case(me);
    if (!*only || strcmp(only, "portal") == 0)
        portal_case(me);
    if (!*only || strcmp(only, "notify") == 0)
        notify_case(me);
    CHECK_OK(aos_barrier_all());
    return aos_finalize();
}
