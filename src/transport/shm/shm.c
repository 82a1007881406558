/* On-node transport: every PE's arena is a memfd mapped by every PE, so a put
 * is one memcpy by the initiating core and completes before it returns.
 *
 * Waking: a waiter that goes to sleep announces itself in its header's
 * `sleepers` with the range it watches and sleeps on its `doorbell`. A
 * writer that finds sleepers > 0 watching memory it wrote bumps the
 * doorbell and wakes them. Both sides separate their write from
 * their read of the other's word with a seq_cst fence (a Dekker pattern,
 * see core/wait.c), so a sleeper is never missed. Blocking operations wake at
 * once; operations with an event only mark the peer, and the marks are
 * flushed (one fence for all of them) at quiet, fence, event wait/test and
 * before this PE itself waits. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch/atomics.h"
#include "arch/copy.h"
#include "arch/cpu_amo.h"
#include "arch/futex.h"
#include "core/bootstrap.h"
#include "core/event.h"
#include "core/runtime.h"
#include "core/tls.h"
#include "core/wait.h"
#include "rma/block_copy.h"
#include "transport/shm/shm.h"

/* Writes with an event not yet checked for sleepers: per peer, the arena
 * range they covered; wake_list holds the marked peers. Per thread, since
 * any of the program's threads (and the progress thread's handlers) write.
 * A thread's lists are created at its first deferred
 * wake (wake_later) and released at its exit by the key's destructor, or by
 * shm_stop on the thread that finalizes. */
struct dirty {
    uint64_t lo, hi; /* lo == hi: clean */
};
static AOS__TLS struct dirty *dirty;
static AOS__TLS int *wake_list;
static AOS__TLS int wake_count;

static pthread_key_t lists_key;
static pthread_once_t lists_once = PTHREAD_ONCE_INIT;
static void flush_wakes(void);

static inline char *peer_addr(int pe, uint64_t off)
{
    return aos__rt.peers[pe].base + off;
}

/* Wakes pe's sleepers if they watch a range our write [lo, hi) touched. */
static inline void ring_doorbell(int pe, uint64_t lo, uint64_t hi)
{
    aos__bell_ring(&aos__rt.peers[pe].header->bell, lo, hi, 1);
}

/* After a blocking write to pe: make it visible before any later access and
 * wake pe if it sleeps on that memory. */
static inline void wake_now(int pe, uint64_t lo, uint64_t hi)
{
    aos__fence_seq_cst(); /* pairs with the fence in aos__wait's sleep path */
    ring_doorbell(pe, lo, hi);
}

static int lists_create(void);

static inline void wake_later(int pe, uint64_t lo, uint64_t hi)
{
    if (__builtin_expect(dirty == NULL, 0) && lists_create() != AOS_OK) {
        wake_now(pe, lo, hi); /* no memory for the lists: wake at once instead */
        return;
    }
    struct dirty *d = &dirty[pe];
    if (d->lo == d->hi) {
        d->lo = lo;
        d->hi = hi;
        wake_list[wake_count++] = pe;
        return;
    }
    if (lo < d->lo)
        d->lo = lo;
    if (hi > d->hi)
        d->hi = hi;
}

static void flush_wakes(void)
{
    if (wake_count == 0)
        return;
    aos__fence_seq_cst(); /* one fence covers every marked peer, as in wake_now */
    for (int i = 0; i < wake_count; i++) {
        struct dirty *d = &dirty[wake_list[i]];
        ring_doorbell(wake_list[i], d->lo, d->hi);
        d->lo = d->hi = 0;
    }
    wake_count = 0;
}

/* The write [off, off+len) to pe is done: wake or mark, count the event. */
static inline void finish_write(int pe, uint64_t off, uint64_t len, aos_event_t *ev)
{
    if (ev == NULL) {
        wake_now(pe, off, off + len);
    } else {
        wake_later(pe, off, off + len);
        aos__event_done_at_issue(ev);
    }
}

/* Puts that wake at once, and 8-byte puts: kept out of shm_put so that its
 * common case saves few registers. */
static __attribute__((noinline)) int put_other(int pe, uint64_t off, const void *src,
                                               size_t len, aos_event_t *ev)
{
    char *dst = peer_addr(pe, off);
    if (len == sizeof(uint64_t) && ((uintptr_t)dst & 7u) == 0) {
        /* One untorn store, so that a waiter polling this word (a flag) never
         * sees half of it. Release: a flag put after completed data puts is
         * seen after the data; pairs with the acquire in wait_until. */
        uint64_t v;
        memcpy(&v, src, sizeof v);
        aos__store_release((uint64_t *)(void *)dst, v);
    } else {
        aos__copy(dst, src, len);
    }
    finish_write(pe, off, len, ev);
    return AOS_OK;
}

static int shm_put(int pe, uint64_t off, const void *src, size_t len, aos_event_t *ev)
{
    if (ev == NULL || len == sizeof(uint64_t))
        return put_other(pe, off, src, len, ev);
    /* The bookkeeping comes first so that only ev has to survive the copy: a
     * put of a few KiB is bound by stores, and each register saved around
     * the call is one more. The mark is read by flush_wakes only, after this
     * returns. */
    wake_later(pe, off, off + len);
    aos__event_post(ev);
    aos__copy(peer_addr(pe, off), src, len);
    aos__event_complete(ev);
    return AOS_OK;
}

static int shm_get(void *dst, int pe, uint64_t off, size_t len, aos_event_t *ev)
{
    aos__copy(dst, peer_addr(pe, off), len);
    aos__fence_acquire(); /* later gets and reads follow this one (ordered gets) */
    aos__event_done_at_issue(ev);
    return AOS_OK;
}

static int shm_put_block(int pe, uint64_t off, const void *src, const aos_block_t *b,
                         aos_event_t *ev)
{
    aos__block_copy(peer_addr(pe, off), b->remote_stride, src, b->local_stride, b);
    size_t extent = 0;
    (void)aos__block_extent(b, b->remote_stride, &extent); /* checked by the caller */
    finish_write(pe, off, extent, ev);
    return AOS_OK;
}

static int shm_get_block(void *dst, int pe, uint64_t off, const aos_block_t *b,
                         aos_event_t *ev)
{
    aos__block_copy(dst, b->local_stride, peer_addr(pe, off), b->remote_stride, b);
    aos__fence_acquire();
    aos__event_done_at_issue(ev);
    return AOS_OK;
}

static int shm_signal_store(int pe, uint64_t off, uint64_t value)
{
    /* Release (and more: a seq_cst exchange): the receiver's acquire load of
     * this word sees everything this PE wrote before, which the barrier,
     * flag and queue protocols rely on. Being a full barrier, it also orders
     * the sleeper check after the store, with no separate fence. */
    (void)aos__exchange_seq_cst((uint64_t *)(void *)peer_addr(pe, off), value);
    aos__fence_after_rmw();
    ring_doorbell(pe, off, off + sizeof value);
    return AOS_OK;
}

static int shm_put_signal(int pe, uint64_t off, const void *src, size_t len, uint64_t sig_off,
                          uint64_t value)
{
    aos__copy(peer_addr(pe, off), src, len);
    return shm_signal_store(pe, sig_off, value); /* its exchange publishes the copy */
}

/* Every copy is already done when a put returns; what fence and quiet add
 * is a full barrier (earlier stores before later accesses) and the deferred
 * wakes. flush_wakes issues the barrier itself when it has work. */
static int shm_quiet(void)
{
    if (wake_count != 0)
        flush_wakes();
    else
        aos__fence_seq_cst(); /* earlier copies precede any later access */
    return AOS_OK;
}

static int shm_amo(int pe, uint64_t off, aos_amo_op_t op, unsigned width, uint64_t operand,
                   uint64_t compare, void *result, aos_event_t *ev)
{
    void *p = peer_addr(pe, off);
    if (width == 4) {
        uint32_t v = (uint32_t)aos__cpu_amo32(p, op, operand, compare);
        if (result != NULL)
            memcpy(result, &v, sizeof v);
    } else {
        uint64_t v = aos__cpu_amo64(p, op, operand, compare);
        if (result != NULL)
            memcpy(result, &v, sizeof v);
    }
    if (op == AOS_AMO_READ) {
        aos__event_done_at_issue(ev);
        return AOS_OK;
    }
    if (ev == NULL) {
        aos__fence_after_rmw(); /* the atomic was the barrier wake_now needs */
        ring_doorbell(pe, off, off + width);
    } else {
        finish_write(pe, off, width, ev);
    }
    return AOS_OK;
}

static int shm_fence(int pe)
{
    (void)pe;
    return shm_quiet();
}

static int shm_expose(uint64_t off, uint64_t len)
{
    (void)off, (void)len;
    return AOS_OK; /* every PE of the node maps the whole arena */
}

static int shm_am_send(int pe, unsigned id, const void *payload, size_t len, unsigned flags)
{
    (void)pe, (void)id, (void)payload, (void)len, (void)flags;
    return AOS_ERR_UNSUPPORTED; /* on a node the layers use the mapped memory */
}

static int shm_local_ptr(int pe, uint64_t off, void **ptr)
{
    if (aos__rt.peers[pe].base == NULL)
        return AOS_ERR_NOT_LOCAL;
    *ptr = peer_addr(pe, off);
    return AOS_OK;
}

/* The calling thread's wake lists: one block, dirty[npes] then
 * wake_list[npes]. The PE count never changes while a thread lives (a
 * launched job cannot start again; a second start alone has 1 PE again), so
 * lists made under one aos_init stay the right size. */
static void lists_release(void *block)
{
    /* A thread ending while aos runs: its marked peers may be asleep. */
    if (aos__rt.initialized && block == dirty)
        flush_wakes();
    free(block);
    dirty = NULL;
    wake_list = NULL;
    wake_count = 0;
}

static void make_lists_key(void)
{
    /* Never deleted: threads may outlive aos_finalize and still own lists. */
    if (pthread_key_create(&lists_key, lists_release) != 0)
        abort(); /* only at PTHREAD_KEYS_MAX keys: nothing could work */
}

static __attribute__((noinline)) int lists_create(void)
{
    size_t n = (size_t)aos__rt.npes;
    pthread_once(&lists_once, make_lists_key);
    char *block = calloc(1, n * (sizeof *dirty + sizeof *wake_list));
    if (block == NULL)
        return AOS_ERR_NO_MEMORY;
    if (pthread_setspecific(lists_key, block) != 0) {
        free(block);
        return AOS_ERR_NO_MEMORY;
    }
    dirty = (struct dirty *)(void *)block;
    wake_list = (int *)(void *)(block + n * sizeof *dirty);
    wake_count = 0;
    return AOS_OK;
}

static int shm_thread_start(void)
{
    return dirty != NULL ? AOS_OK : lists_create();
}

static void shm_thread_stop(void)
{
    if (dirty == NULL)
        return;
    (void)pthread_setspecific(lists_key, NULL); /* released here, not again at exit */
    lists_release(dirty);
}

/* Shared memory applies nothing on another PE's behalf: writers store
 * directly. */
static int shm_progress(void)
{
    flush_wakes();
    return 0;
}

/* No thread of its own to stand aside. */
static void shm_sleep_begin(void)
{
}

static void shm_sleep_end(void)
{
}

static int shm_start(struct aos__runtime *rt)
{
    int rc = shm_thread_start();
    if (rc != AOS_OK)
        return rc;
    rc = aos__shm_arena_create(rt);
    if (rc != AOS_OK)
        goto fail_lists;
    int *fds = malloc((size_t)rt->npes * sizeof *fds);
    if (fds == NULL) {
        rc = AOS_ERR_NO_MEMORY;
        goto fail_arena;
    }
    rc = aos__bootstrap_exchange(rt, fds);
    if (rc != AOS_OK)
        goto fail_fds;
    /* The PEs have my arena now, and I remap into it through my own mapping
     * (aos__remap_into_arena): no descriptor stays open for another process
     * of this user to reach my memory through /proc/PID/fd. */
    close(rt->arena_fd);
    rt->arena_fd = -1;
    for (int pe = 0; pe < rt->npes; pe++) {
        if (fds[pe] < 0)
            continue;
        if (rt->peers[pe].node != rt->peers[rt->me].node) { /* the network's peer */
            close(fds[pe]);
            continue;
        }
        int mrc = aos__shm_arena_map_peer(rt, pe, fds[pe]);
        close(fds[pe]); /* the mapping keeps the memory alive */
        if (mrc != AOS_OK && rc == AOS_OK)
            rc = mrc;
    }
    if (rc != AOS_OK)
        goto fail_fds;
    free(fds);
    return AOS_OK;

fail_fds:
    free(fds);
fail_arena:
    aos__shm_arena_destroy(rt);
fail_lists:
    shm_thread_stop();
    return rc;
}

static void shm_stop(struct aos__runtime *rt)
{
    flush_wakes();
    aos__shm_arena_destroy(rt);
    shm_thread_stop();
}

const struct aos__transport aos__transport_shm = {
    .name = "shm",
    .start = shm_start,
    .stop = shm_stop,
    .thread_start = shm_thread_start,
    .thread_stop = shm_thread_stop,
    .put = shm_put,
    .put_held = shm_put, /* the data is copied before it returns */
    .get = shm_get,
    .put_block = shm_put_block,
    .get_block = shm_get_block,
    .signal_store = shm_signal_store,
    .put_signal = shm_put_signal,
    .amo = shm_amo,
    .progress = shm_progress,
    .sleep_begin = shm_sleep_begin,
    .sleep_end = shm_sleep_end,
    .fence = shm_fence,
    .fence_all = shm_quiet, /* as fence: a put is complete when it returns */
    .quiet = shm_quiet,
    .local_ptr = shm_local_ptr,
    .expose = shm_expose,
    .am_send = shm_am_send,
};
