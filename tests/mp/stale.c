/* Stale, double-freed and garbage handles and events give a clear error
 * and touch nothing.
 *  - Events: put, get, block, atomic and notified calls with a destroyed
 *    event or with memory that is not an event return AOS_ERR_INVALID and
 *    write neither the target nor the "event".
 *  - Handles: destroying, detaching, closing or freeing twice returns
 *    AOS_ERR_INVALID (no use after free: the ASan build checks); a detached
 *    segment handle stays invalid after the next attach, which must not
 *    give its address to the new handle.
 * An argument "handles" skips the event cases. */
#include <string.h>

#include "../common/check.h"

#define KEY_A 0x5a01u
#define KEY_B 0x5a02u
#define QKEY 0x5a03u
#define PORT 0x5a04u
#define SIZE 256

static uint64_t word; /* symmetric: atomics and puts target the next PE's */

static void bad_events(int next, aos_seg_t *seg)
{
    aos_event_t *dead;
    CHECK_OK(aos_event_create(&dead));
    CHECK_OK(aos_event_destroy(dead));
    CHECK_RC(aos_event_destroy(dead), AOS_ERR_INVALID);
    CHECK_RC(aos_event_wait(dead), AOS_ERR_INVALID);

    union {
        unsigned char bytes[128];
        uint64_t align;
    } junk, copy;
    memset(junk.bytes, 0x5a, sizeof junk.bytes);
    copy = junk;
    aos_event_t *garbage = (aos_event_t *)(void *)junk.bytes;
    aos_event_t *bad[] = {dead, garbage};

    uint64_t v = 0x77, out = 0;
    aos_block_t b = {.run = 8, .count = {1, 1}, .local_stride = {8, 8},
                     .remote_stride = {8, 8}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        aos_event_t *ev = bad[k];
        CHECK_RC(aos_putmem(next, &word, &v, sizeof v, ev), AOS_ERR_INVALID);
        CHECK_RC(aos_putmem(next, &word, &v, 3, ev), AOS_ERR_INVALID);
        CHECK_RC(aos_getmem(next, &out, &word, sizeof out, ev), AOS_ERR_INVALID);
        CHECK_RC(aos_put(seg, 0, &v, sizeof v, ev), AOS_ERR_INVALID);
        CHECK_RC(aos_get(&out, seg, 0, sizeof out, ev), AOS_ERR_INVALID);
        CHECK_RC(aos_put_block(seg, 0, &v, &b, ev), AOS_ERR_INVALID);
        CHECK_RC(aos_getmem_block(next, &out, &word, &b, ev), AOS_ERR_INVALID);
        CHECK_RC(aos_fetch_add_sym_u64(next, &word, 1, &out, ev), AOS_ERR_INVALID);
        CHECK_RC(aos_amo_fetch(seg, 8, AOS_AMO_ADD, AOS_AMO_U64, 1, 0, &out, ev),
                 AOS_ERR_INVALID);
        CHECK_RC(aos_put_notify(seg, 0, &v, sizeof v, 1, ev), AOS_ERR_INVALID);
    }
    CHECK(memcmp(junk.bytes, copy.bytes, sizeof junk.bytes) == 0); /* not written */
    CHECK(out == 0);
}

static void check_untouched(void)
{
    CHECK(__atomic_load_n(&word, __ATOMIC_RELAXED) == 0);
}

int main(int argc, char **argv)
{
    int events = argc < 2 || strcmp(argv[1], "handles") != 0;
    CHECK_OK(aos_init());
    int me = aos_my_pe(), npes = aos_n_pes(), next = (me + 1) % npes;
    const unsigned protos =
        AOS_PROTO_RMA | AOS_PROTO_ATOMIC | AOS_PROTO_NOTIFY | AOS_PROTO_LOADSTORE;
    aos_seg_t *mine_a, *mine_b;
    CHECK_OK(aos_seg_create(KEY_A, SIZE, protos, &mine_a));
    CHECK_OK(aos_seg_create(KEY_B, SIZE, protos, &mine_b));
    aos_queue_t *q;
    CHECK_OK(aos_queue_create(QKEY, 8, 4, &q));
    aos_mbox_t *mb;
    CHECK_OK(aos_mbox_create(PORT, 8, 4, &mb));
    CHECK_OK(aos_barrier_all());

    aos_seg_t *a;
    CHECK_OK(aos_seg_attach(next, KEY_A, &a));
    if (events && test_same_node(me, next, npes))
        bad_events(next, a);

    /* A detached handle, then a new attach: the stale one stays invalid. */
    CHECK_OK(aos_seg_detach(a));
    CHECK_RC(aos_seg_detach(a), AOS_ERR_INVALID);
    aos_seg_t *bseg;
    CHECK_OK(aos_seg_attach(next, KEY_B, &bseg));
    CHECK(bseg != a);
    uint64_t v = 0x99;
    CHECK_RC(aos_put(a, 0, &v, sizeof v, NULL), AOS_ERR_INVALID);
    CHECK_RC(aos_amo_post(a, 0, AOS_AMO_ADD, AOS_AMO_U64, 1), AOS_ERR_INVALID);

    aos_queue_t *rq;
    CHECK_OK(aos_queue_attach(next, QKEY, &rq));
    CHECK_OK(aos_queue_detach(rq));
    CHECK_RC(aos_queue_detach(rq), AOS_ERR_INVALID);
    CHECK_RC(aos_enqueue(rq, &v), AOS_ERR_INVALID);
    aos_mbox_t *rmb;
    CHECK_OK(aos_mbox_open(next, PORT, &rmb));
    CHECK_OK(aos_mbox_close(rmb));
    CHECK_RC(aos_mbox_close(rmb), AOS_ERR_INVALID);
    CHECK_RC(aos_mbox_write(rmb, &v, NULL), AOS_ERR_INVALID);
    aos_notify_req_t *req;
    CHECK_OK(aos_notify_init(mine_a, AOS_ANY_SOURCE, 1, 1, &req));
    CHECK_OK(aos_notify_free(req));
    CHECK_RC(aos_notify_free(req), AOS_ERR_INVALID);
    CHECK_RC(aos_notify_start(req), AOS_ERR_INVALID);
    CHECK_OK(aos_seg_detach(bseg));

    CHECK_OK(aos_barrier_all());
    /* Nothing reached my memory from the calls above. */
    check_untouched();
    const unsigned char *pa, *pb;
    CHECK_OK(aos_seg_ptr(mine_a, 0, (void **)&pa));
    CHECK_OK(aos_seg_ptr(mine_b, 0, (void **)&pb));
    for (size_t i = 0; i < SIZE; i++)
        CHECK(pa[i] == 0 && pb[i] == 0);

    CHECK_OK(aos_mbox_close(mb));
    CHECK_RC(aos_mbox_close(mb), AOS_ERR_INVALID);
    CHECK_OK(aos_queue_destroy(q));
    CHECK_RC(aos_queue_destroy(q), AOS_ERR_INVALID);
    CHECK_OK(aos_seg_destroy(mine_b));
    CHECK_RC(aos_seg_destroy(mine_b), AOS_ERR_INVALID);
    CHECK_OK(aos_seg_destroy(mine_a));
    CHECK_RC(aos_seg_destroy(mine_a), AOS_ERR_INVALID);
    return aos_finalize();
}
