/* On-node transport: every PE's arena is a memfd mapped by every PE, so a put
 * is one memcpy by the initiating core and completes before it returns.
 *
 * Waking: a waiter that goes to sleep announces itself in its header's
 * `sleepers` and sleeps on its `doorbell`. A writer that finds sleepers > 0
 * bumps the doorbell and wakes them. Both sides separate their write from
 * their read of the other's word with a seq_cst fence (a Dekker pattern,
 * see core/wait.c), so a sleeper is never missed. Blocking operations wake at
 * once; operations with an event only mark the peer, and the marks are
 * flushed (one fence for all of them) at quiet, fence, event wait/test and
 * before this PE itself waits. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch/atomics.h"
#include "arch/futex.h"
#include "core/bootstrap.h"
#include "core/event.h"
#include "core/runtime.h"
#include "rma/block_copy.h"
#include "transport/shm/shm.h"

static uint8_t *wake_marked; /* wake_marked[pe] = 1 when pe may need a wake */
static int *wake_list;       /* the marked PEs, wake_count of them */
static int wake_count;

static inline char *peer_addr(int pe, uint64_t off)
{
    return aos__rt.peers[pe].base + off;
}

static void ring_doorbell(int pe)
{
    struct aos__arena_header *h = aos__rt.peers[pe].header;
    /* Relaxed: ordered after our data writes by the caller's seq_cst fence,
     * which pairs with the fence in the waiter's sleep protocol. */
    if (aos__load_relaxed(&h->sleepers) != 0) {
        aos__fetch_add_seq_cst(&h->doorbell, 1);
        aos__futex_wake_all(&h->doorbell);
    }
}

/* After a blocking write to pe: make it visible before any later access and
 * wake pe if it sleeps. */
static inline void wake_now(int pe)
{
    aos__fence_seq_cst(); /* pairs with the fence in aos__wait's sleep path */
    ring_doorbell(pe);
}

static inline void wake_later(int pe)
{
    if (!wake_marked[pe]) {
        wake_marked[pe] = 1;
        wake_list[wake_count++] = pe;
    }
}

static void flush_wakes(void)
{
    if (wake_count == 0)
        return;
    aos__fence_seq_cst(); /* one fence covers every marked peer, as in wake_now */
    for (int i = 0; i < wake_count; i++) {
        ring_doorbell(wake_list[i]);
        wake_marked[wake_list[i]] = 0;
    }
    wake_count = 0;
}

static inline void finish_write(int pe, aos_event_t *ev)
{
    if (ev == NULL) {
        wake_now(pe);
    } else {
        wake_later(pe);
        aos__event_post(ev);
        aos__event_complete(ev);
    }
}

static int shm_put(int pe, uint64_t off, const void *src, size_t len, aos_event_t *ev)
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
        memcpy(dst, src, len);
    }
    finish_write(pe, ev);
    return AOS_OK;
}

static int shm_get(void *dst, int pe, uint64_t off, size_t len, aos_event_t *ev)
{
    memcpy(dst, peer_addr(pe, off), len);
    aos__fence_acquire(); /* later gets and reads follow this one (ordered gets) */
    if (ev != NULL) {
        aos__event_post(ev);
        aos__event_complete(ev);
    }
    return AOS_OK;
}

static int shm_put_block(int pe, uint64_t off, const void *src, const aos_block_t *b,
                         aos_event_t *ev)
{
    aos__block_copy(peer_addr(pe, off), b->remote_stride, src, b->local_stride, b);
    finish_write(pe, ev);
    return AOS_OK;
}

static int shm_get_block(void *dst, int pe, uint64_t off, const aos_block_t *b,
                         aos_event_t *ev)
{
    aos__block_copy(dst, b->local_stride, peer_addr(pe, off), b->remote_stride, b);
    aos__fence_acquire();
    if (ev != NULL) {
        aos__event_post(ev);
        aos__event_complete(ev);
    }
    return AOS_OK;
}

static int shm_signal_store(int pe, uint64_t off, uint64_t value)
{
    /* Release: the receiver's acquire load of this word sees everything this
     * PE wrote before (the barrier and flag protocols rely on it). */
    aos__store_release((uint64_t *)(void *)peer_addr(pe, off), value);
    wake_now(pe);
    return AOS_OK;
}

static int shm_fence(int pe)
{
    (void)pe;
    aos__fence_seq_cst(); /* earlier copies to every peer precede later ones */
    flush_wakes();
    return AOS_OK;
}

static int shm_quiet(void)
{
    aos__fence_seq_cst(); /* all copies are done; make them globally visible */
    flush_wakes();
    return AOS_OK;
}

static int shm_local_ptr(int pe, uint64_t off, void **ptr)
{
    if (aos__rt.peers[pe].base == NULL)
        return AOS_ERR_NOT_LOCAL;
    *ptr = peer_addr(pe, off);
    return AOS_OK;
}

static int shm_start(struct aos__runtime *rt)
{
    int rc = AOS_ERR_NO_MEMORY;
    wake_marked = calloc((size_t)rt->npes, 1);
    wake_list = calloc((size_t)rt->npes, sizeof *wake_list);
    if (wake_marked == NULL || wake_list == NULL)
        goto fail_lists;
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
    for (int pe = 0; pe < rt->npes; pe++) {
        if (fds[pe] < 0)
            continue;
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
    free(wake_list);
    free(wake_marked);
    wake_list = NULL;
    wake_marked = NULL;
    return rc;
}

static void shm_stop(struct aos__runtime *rt)
{
    flush_wakes();
    aos__shm_arena_destroy(rt);
    free(wake_list);
    free(wake_marked);
    wake_list = NULL;
    wake_marked = NULL;
    wake_count = 0;
}

const struct aos__transport aos__transport_shm = {
    .name = "shm",
    .start = shm_start,
    .stop = shm_stop,
    .put = shm_put,
    .get = shm_get,
    .put_block = shm_put_block,
    .get_block = shm_get_block,
    .signal_store = shm_signal_store,
    .progress = flush_wakes,
    .fence = shm_fence,
    .quiet = shm_quiet,
    .local_ptr = shm_local_ptr,
};
