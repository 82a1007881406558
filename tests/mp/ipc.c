/* IPC objects. Mailboxes: every PE writes to PE 0's mailbox (capacity 4, so
 * writers are pushed back), blocking and with events; PE 0 reads every
 * message exactly once and in order per writer; try forms at full/empty; a
 * blocking write returns only once its message is in.
 * Portals: every PE writes to every PE through its portal (sizes 0 B-1 MiB,
 * with events, so that all send while all receive), receivers check every
 * byte and that nothing past the length was touched; too-long writes,
 * buffers nobody can reach, segment buffers. Syncs: 200 all-to-one and
 * one-to-all rounds over all PEs with data checked at each; two disjoint
 * sets at once. Bad input throughout. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../common/check.h"

#define MSG 120
#define MSGS 300
#define ROUNDS 200

struct msg {
    int32_t from;
    uint32_t seq;
    uint8_t body[MSG - 8];
};
_Static_assert(sizeof(struct msg) == MSG, "120-byte messages");

static void fill_msg(struct msg *m, int from, uint32_t seq)
{
    m->from = from;
    m->seq = seq;
    pattern_fill(m->body, sizeof m->body, (unsigned)from * 1000u + seq);
}

static void test_mailbox(int me, int npes)
{
    aos_mbox_t *mine, *to0;
    CHECK_OK(aos_mbox_create(1, MSG, 4, &mine));
    size_t sz = 0;
    CHECK_OK(aos_mbox_msg_size(mine, &sz));
    CHECK(sz == MSG);
    /* Exactly the capacity fits; try_read on empty says so. */
    struct msg m, got;
    for (uint32_t i = 0; i < 4; i++) {
        fill_msg(&m, me, i);
        CHECK_OK(aos_mbox_try_write(mine, &m));
    }
    CHECK_RC(aos_mbox_try_write(mine, &m), AOS_ERR_AGAIN);
    for (uint32_t i = 0; i < 4; i++) {
        CHECK_OK(aos_mbox_try_read(mine, &got));
        CHECK(got.from == me && got.seq == i);
    }
    CHECK_RC(aos_mbox_try_read(mine, &got), AOS_ERR_AGAIN);
    CHECK_RC(aos_mbox_create(1, MSG, 4, &to0), AOS_ERR_EXISTS);
    CHECK_RC(aos_mbox_create(2, 0, 4, &to0), AOS_ERR_SIZE);
    CHECK_RC(aos_mbox_create(2, 257, 4, &to0), AOS_ERR_SIZE);
    CHECK_OK(aos_barrier_all());

    CHECK_RC(aos_mbox_open(0, 77, &to0), AOS_ERR_NO_KEY);
    CHECK_RC(aos_mbox_open(npes, 1, &to0), AOS_ERR_PE);
    CHECK_OK(aos_mbox_open(0, 1, &to0));
    CHECK_RC(aos_mbox_read(to0, &got, NULL), AOS_ERR_INVALID); /* not the owner */
    CHECK_RC(aos_mbox_write(to0, NULL, NULL), AOS_ERR_NULL);
    /* Writers: PE 0 (which also reads) writes everything with events, so it
     * never blocks on its own full mailbox; the others write the first half
     * blocking, the second with events. Messages are copied at the call. */
    aos_event_t *wev;
    struct msg *out = malloc(MSGS * sizeof *out);
    CHECK_OK(aos_event_create(&wev));
    for (uint32_t i = 0; i < MSGS; i++) {
        fill_msg(&out[i], me, i);
        CHECK_OK(aos_mbox_write(to0, &out[i], me == 0 || i >= MSGS / 2 ? wev : NULL));
        memset(&out[i], 0xEE, sizeof out[i]);
    }
    if (me == 0) {
        CHECK_RC(aos_mbox_close(to0), AOS_ERR_AGAIN); /* writes still pending */
        /* Every message of every writer, in order per writer; half the reads
         * with events. */
        uint32_t *next = calloc((size_t)npes, sizeof *next);
        aos_event_t *ev;
        CHECK_OK(aos_event_create(&ev));
        for (long k = 0; k < (long)npes * MSGS; k++) {
            memset(&got, 0, sizeof got);
            if (k % 2 == 0) {
                CHECK_OK(aos_mbox_read(mine, &got, NULL));
            } else {
                CHECK_OK(aos_mbox_read(mine, &got, ev));
                CHECK_OK(aos_event_wait(ev));
            }
            CHECK(got.from >= 0 && got.from < npes);
            CHECK(got.seq == next[got.from]);
            CHECK(pattern_check(got.body, sizeof got.body,
                                (unsigned)got.from * 1000u + got.seq) == sizeof got.body);
            next[got.from]++;
        }
        for (int pe = 0; pe < npes; pe++)
            CHECK(next[pe] == MSGS);
        CHECK_RC(aos_mbox_try_read(mine, &got), AOS_ERR_AGAIN);
        CHECK_OK(aos_event_destroy(ev));
        free(next);
    }
    CHECK_OK(aos_event_wait(wev));
    CHECK_OK(aos_event_destroy(wev));
    free(out);
    CHECK_OK(aos_mbox_close(to0));
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_mbox_close(mine));
    CHECK_RC(aos_mbox_close(NULL), AOS_ERR_NULL);
}

/* A blocking write returns once its message is in the mailbox, on a node
 * and across nodes: the last PE writes BLOCKED_WRITES messages to PE 0's
 * mailbox of capacity 2 and, after each returns, puts how many have
 * returned into PE 0's `writes_returned`; PE 0, reading late, never sees
 * more returned than it has read plus the capacity. */
#define BLOCKED_WRITES 12
static uint64_t writes_returned;

static void blocking_write_is_in(int me, int npes)
{
    int writer = npes - 1;
    if (writer == 0)
        return;
    aos_mbox_t *mb = NULL;
    if (me == 0)
        CHECK_OK(aos_mbox_create(5, 8, 2, &mb));
    CHECK_OK(aos_barrier_all());
    if (me == writer) {
        CHECK_OK(aos_mbox_open(0, 5, &mb));
        for (uint64_t i = 0; i < BLOCKED_WRITES; i++) {
            CHECK_OK(aos_mbox_write(mb, &i, NULL));
            uint64_t n = i + 1;
            CHECK_OK(aos_putmem(0, &writes_returned, &n, sizeof n, NULL));
        }
        CHECK_OK(aos_mbox_close(mb));
    } else if (me == 0) {
        usleep(100000); /* a writer that did not wait would be far ahead by now */
        for (uint64_t k = 0; k < BLOCKED_WRITES; k++) {
            CHECK(__atomic_load_n(&writes_returned, __ATOMIC_ACQUIRE) <= k + 2);
            uint64_t got = UINT64_MAX;
            CHECK_OK(aos_mbox_read(mb, &got, NULL));
            CHECK(got == k);
        }
        CHECK_OK(aos_wait_until_u64(&writes_returned, AOS_CMP_EQ, BLOCKED_WRITES));
    }
    CHECK_OK(aos_barrier_all());
    if (me == 0)
        CHECK_OK(aos_mbox_close(mb));
}

static const size_t sizes[] = {0, 1, 120, 4096, 65539, 1u << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define GUARD 64

static unsigned seed_of(int from, int to, size_t k)
{
    return (unsigned)(from * 7919 + to * 131 + (int)k);
}

/* A writer's close gives AOS_ERR_AGAIN while its write with an event has
 * not reached the mailbox (full: the owner reads only later), wherever the
 * owner is, and succeeds once the event is done. PE 1 writes to PE 0. */
static void close_while_writing(int me, int npes)
{
    aos_mbox_t *mb = NULL;
    if (me == 0)
        CHECK_OK(aos_mbox_create(9, sizeof(uint64_t), 1, &mb));
    CHECK_OK(aos_barrier_all());
    aos_event_t *ev = NULL;
    if (me == 1) {
        uint64_t first = 1, second = 2;
        CHECK_OK(aos_mbox_open(0, 9, &mb));
        CHECK_OK(aos_mbox_write(mb, &first, NULL)); /* fills it */
        CHECK_OK(aos_event_create(&ev));
        CHECK_OK(aos_mbox_write(mb, &second, ev));
        CHECK_RC(aos_mbox_close(mb), AOS_ERR_AGAIN);
    }
    CHECK_OK(aos_barrier_all());
    if (me == 0) {
        uint64_t got;
        for (uint64_t want = 1; npes > 1 && want <= 2; want++) {
            CHECK_OK(aos_mbox_read(mb, &got, NULL));
            CHECK(got == want);
        }
    }
    if (me == 1) {
        CHECK_OK(aos_event_wait(ev));
        CHECK_OK(aos_event_destroy(ev));
        CHECK_OK(aos_mbox_close(mb));
    }
    CHECK_OK(aos_barrier_all());
    if (me == 0)
        CHECK_OK(aos_mbox_close(mb));
}

/* A receive buffer must lie in one object of the user's: a segment's tail
 * with a larger capacity would let the sender write into whatever the
 * arena holds next (the next segment, a queue of aos's). */
static void test_portal_buffer_bounds(aos_portal_t *mine)
{
    size_t len;
    aos_seg_t *seg, *from;
    uint8_t *tail;
    CHECK_OK(aos_seg_create(0x9041, 4096, AOS_PROTO_ALL, &seg));
    CHECK_OK(aos_seg_ptr(seg, 4096 - 100, (void **)&tail));
    CHECK_RC(aos_portal_read(mine, 0, tail, 2048, &len, NULL), AOS_ERR_BOUNDS);
    CHECK_RC(aos_portal_read(mine, 0, tail, 101, &len, NULL), AOS_ERR_BOUNDS);
    /* A queue under a user's key, likely in the pages right after a
     * segment of one page: its memory is aos's, never a buffer. (An event:
     * a read wrongly granted fails the check instead of waiting.) */
    long page = sysconf(_SC_PAGESIZE);
    aos_seg_t *one;
    aos_queue_t *q;
    aos_event_t *ev;
    uint8_t *after;
    CHECK_OK(aos_event_create(&ev));
    CHECK_OK(aos_seg_create(0x9043, (size_t)page, AOS_PROTO_ALL, &one));
    CHECK_OK(aos_queue_create(0x9044, 64, 16, &q));
    CHECK_OK(aos_seg_ptr(one, 0, (void **)&after));
    after += page;
    CHECK_RC(aos_portal_read(mine, 0, after, 64, &len, ev), AOS_ERR_NOT_SYMMETRIC);
    CHECK_OK(aos_queue_destroy(q));
    CHECK_OK(aos_seg_destroy(one));
    CHECK_OK(aos_event_destroy(ev));
    /* the buffer of a segment created in place, by its own address; the
     * private memory before it is nobody's */
    uint8_t *own = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                        -1, 0);
    CHECK(own != MAP_FAILED);
    CHECK_OK(aos_seg_create_from(0x9042, own + 4096, 4096, AOS_PROTO_ALL, &from));
    CHECK_RC(aos_portal_read(mine, 0, own + 4096 + 4000, 97, &len, NULL), AOS_ERR_BOUNDS);
    CHECK_RC(aos_portal_read(mine, 0, own, 16, &len, NULL), AOS_ERR_NOT_SYMMETRIC);
    CHECK_OK(aos_seg_destroy(from));
    CHECK(munmap(own, 3 * 4096) == 0);
    CHECK_OK(aos_seg_destroy(seg));
    /* gone: its memory is nobody's now */
    CHECK_RC(aos_portal_read(mine, 0, tail, 100, &len, NULL), AOS_ERR_NOT_SYMMETRIC);
}

static void test_portal(int me, int npes)
{
    aos_portal_t *mine, **to = calloc((size_t)npes, sizeof *to);
    CHECK_OK(aos_portal_create(2, &mine));
    CHECK_RC(aos_portal_create(2, &mine), AOS_ERR_EXISTS);
    /* receive buffer with guard bytes on both sides, in symmetric memory */
    size_t cap = (1u << 20) + 2 * GUARD;
    uint8_t *rbuf = aos_malloc(cap);
    CHECK(rbuf != NULL);
    CHECK_OK(aos_barrier_all());
    CHECK_RC(aos_portal_open(0, 99, &to[0]), AOS_ERR_NO_KEY);
    for (int pe = 0; pe < npes; pe++)
        CHECK_OK(aos_portal_open(pe, 2, &to[pe]));
    size_t len;
    CHECK_RC(aos_portal_read(to[0], 0, rbuf, 8, &len, NULL), AOS_ERR_INVALID); /* a sender's */
    CHECK_RC(aos_portal_write(mine, rbuf, 8, NULL), AOS_ERR_INVALID);          /* a receiver's */
    uint8_t stack_buf[16];
    CHECK_RC(aos_portal_read(mine, 0, stack_buf, sizeof stack_buf, &len, NULL),
             AOS_ERR_NOT_SYMMETRIC);
    CHECK_RC(aos_portal_read(mine, npes, rbuf, 8, &len, NULL), AOS_ERR_PE);
    /* A capacity that runs past the heap, wrapping past the end of the
     * address space back into the heap or not: no permission is granted. */
    CHECK_RC(aos_portal_read(mine, 0, rbuf, SIZE_MAX, &len, NULL), AOS_ERR_BOUNDS);
    CHECK_RC(aos_portal_read(mine, 0, rbuf + 64, SIZE_MAX - 63, &len, NULL), AOS_ERR_BOUNDS);
    CHECK_RC(aos_portal_read(mine, 0, rbuf, SIZE_MAX - (uintptr_t)rbuf + 1, &len, NULL),
             AOS_ERR_BOUNDS);
    CHECK_RC(aos_portal_read(mine, 0, rbuf, (size_t)PTRDIFF_MAX + 1, &len, NULL),
             AOS_ERR_BOUNDS);
    test_portal_buffer_bounds(mine);
    CHECK_RC(aos_portal_read(mine, 0, rbuf, 8, NULL, NULL), AOS_ERR_NULL);

    /* Every PE sends every size to every PE, with events, in order per
     * portal; then receives from each sender in turn. */
    uint8_t **src = calloc(NSIZES * (size_t)npes, sizeof *src);
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));
    for (int pe = 0; pe < npes; pe++) {
        for (size_t k = 0; k < NSIZES; k++) {
            uint8_t *b = malloc(sizes[k] + 1);
            pattern_fill(b, sizes[k], seed_of(me, pe, k));
            src[(size_t)pe * NSIZES + k] = b;
            CHECK_OK(aos_portal_write(to[pe], b, sizes[k], ev));
        }
    }
    for (int from = 0; from < npes; from++) {
        for (size_t k = 0; k < NSIZES; k++) {
            memset(rbuf, 0xA5, cap);
            len = 12345;
            CHECK_OK(aos_portal_read(mine, from, rbuf + GUARD, sizes[k], &len, NULL));
            CHECK(len == sizes[k]);
            CHECK(pattern_check(rbuf + GUARD, len, seed_of(from, me, k)) == len);
            for (size_t i = 0; i < GUARD; i++)
                CHECK(rbuf[i] == 0xA5 && rbuf[GUARD + len + i] == 0xA5);
        }
    }
    CHECK_OK(aos_event_wait(ev));
    for (size_t i = 0; i < NSIZES * (size_t)npes; i++)
        free(src[i]);
    free(src);
    CHECK_OK(aos_barrier_all());

    /* Too long: the receiver learns the length, nothing is written, and a
     * second permission with room goes through. Ring: I receive from left. */
    int left = (me + npes - 1) % npes, right = (me + 1) % npes;
    uint8_t big[300];
    pattern_fill(big, sizeof big, (unsigned)me);
    aos_event_t *rev;
    CHECK_OK(aos_event_create(&rev));
    memset(rbuf, 0xA5, 400);
    CHECK_OK(aos_portal_read(mine, left, rbuf, 100, &len, rev)); /* with an event */
    CHECK_RC(aos_portal_read(mine, left, rbuf, 100, &len, NULL), AOS_ERR_AGAIN); /* one at a time */
    CHECK_RC(aos_portal_close(mine), AOS_ERR_AGAIN);
    CHECK_RC(aos_portal_write(to[right], big, sizeof big, NULL), AOS_ERR_SIZE);
    CHECK_OK(aos_event_wait(rev));
    CHECK(len == sizeof big);
    CHECK(rbuf[0] == 0xA5 && rbuf[99] == 0xA5);
    /* Into a segment this time. */
    aos_seg_t *seg;
    CHECK_OK(aos_seg_create(5, 4096, AOS_PROTO_RMA | AOS_PROTO_LOADSTORE, &seg));
    void *segp;
    CHECK_OK(aos_seg_ptr(seg, 0, &segp));
    CHECK_OK(aos_portal_read(mine, left, segp, 4096, &len, rev));
    CHECK_OK(aos_portal_write(to[right], big, sizeof big, NULL));
    CHECK_OK(aos_event_wait(rev));
    CHECK(len == sizeof big && pattern_check(segp, len, (unsigned)left) == len);
    /* Into the last bytes of a buffer published in place, by its own
     * address. */
    uint8_t *pub = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(pub != MAP_FAILED);
    aos_seg_t *from;
    CHECK_OK(aos_seg_create_from(6, pub + 100, 8000, AOS_PROTO_RMA, &from));
    uint8_t *tail = pub + 8100 - sizeof big;
    CHECK_OK(aos_portal_read(mine, left, tail, sizeof big, &len, rev));
    CHECK_OK(aos_portal_write(to[right], big, sizeof big, NULL));
    CHECK_OK(aos_event_wait(rev));
    CHECK(len == sizeof big && pattern_check(tail, len, (unsigned)left) == len);
    CHECK_OK(aos_event_destroy(rev));
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_seg_destroy(from));
    CHECK(munmap(pub, 8192) == 0);
    CHECK_OK(aos_seg_destroy(seg));

    for (int pe = 0; pe < npes; pe++)
        CHECK_OK(aos_portal_close(to[pe]));
    free(to);
    CHECK_OK(aos_event_destroy(ev));
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_portal_close(mine));
    aos_free(rbuf);
}

static uint64_t arrivals_seen; /* at a root: members' puts before signalling */
static uint64_t bcast;         /* at members: the root's value before releasing */

/* ROUNDS of: members add to the root's word and signal, the root waits and
 * checks the sum, puts the round into every member and signals, members
 * wait and check it. */
static void sync_rounds(const int *pes, int n, uint32_t port)
{
    int me = aos_my_pe(), root = pes[0];
    aos_sync_t *s;
    CHECK_OK(aos_sync_create(port, pes, n, root, &s));
    for (uint64_t r = 1; r <= ROUNDS; r++) {
        if (me != root) {
            CHECK_OK(aos_amo_post_sym(root, &arrivals_seen, AOS_AMO_ADD, AOS_AMO_U64, 1));
            CHECK_OK(aos_sync_signal(s));
            CHECK_OK(aos_sync_wait(s));
            CHECK(__atomic_load_n(&bcast, __ATOMIC_RELAXED) == r);
        } else {
            CHECK_OK(aos_sync_wait(s));
            CHECK(__atomic_load_n(&arrivals_seen, __ATOMIC_RELAXED) == r * (uint64_t)(n - 1));
            for (int i = 1; i < n; i++)
                CHECK_OK(aos_putmem(pes[i], &bcast, &r, sizeof r, NULL));
            CHECK_OK(aos_sync_signal(s));
        }
    }
    int done = 1;
    CHECK_OK(aos_sync_test(s, &done));
    CHECK(done == (n == 1)); /* nobody signals again (a set of one is always there) */
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_sync_destroy(s));
}

static void test_sync(int me, int npes)
{
    int *all = malloc((size_t)npes * sizeof *all);
    for (int i = 0; i < npes; i++)
        all[i] = (i + 1) % npes; /* the root (PE 1, or 0 alone) is not PE 0 */
    aos_sync_t *s;
    int dup[2] = {me, me}, other[1] = {(me + 1) % npes};
    CHECK_RC(aos_sync_create(3, dup, 2, me, &s), npes > 1 ? AOS_ERR_INVALID : AOS_ERR_SIZE);
    if (npes > 1)
        CHECK_RC(aos_sync_create(3, other, 1, other[0], &s), AOS_ERR_INVALID); /* me not in */
    CHECK_RC(aos_sync_create(3, all, npes, npes, &s), AOS_ERR_INVALID);         /* root not in */
    CHECK_RC(aos_sync_create(3, all, 0, 0, &s), AOS_ERR_SIZE);
    CHECK_RC(aos_sync_create(3, NULL, 1, 0, &s), AOS_ERR_NULL);
    sync_rounds(all, npes, 3);
    /* Two disjoint sets at once: even and odd PEs, same port. */
    arrivals_seen = 0;
    bcast = 0;
    CHECK_OK(aos_barrier_all());
    int n = 0;
    for (int pe = me % 2; pe < npes; pe += 2)
        all[n++] = pe;
    sync_rounds(all, n, 4);
    free(all);
}

int main(void)
{
    CHECK_OK(aos_init());
    int me = aos_my_pe(), npes = aos_n_pes();
    test_mailbox(me, npes);
    close_while_writing(me, npes);
    blocking_write_is_in(me, npes);
    test_portal(me, npes);
    test_sync(me, npes);
    CHECK_OK(aos_finalize());
    return 0;
}
