/* RPC set-up, the handler table and the target side: serving requests. */
#include "rpc/rpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/atomics.h"
#include "core/runtime.h"
#include "core/wait.h"
#include "mem/memory.h"
#include "mem/segment.h"
#include "queue/queue.h"

struct aos__rpc_state aos__rpc;
#define R aos__rpc

/* Per thread: how many handlers are on this thread's stack, and the chain
 * depth of the innermost (core/wait.h). */
AOS__TLS int aos__rpc_depth;
AOS__TLS uint32_t aos__rpc_chain;

static uint64_t name_hash(const char *name, unsigned flags)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const char *c = name; *c != '\0'; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    h = (h ^ flags) * 1099511628211ull;
    return h == 0 ? 1 : h;
}

static void free_state(void)
{
    free(R.peer_queues);
    free(R.peer_areas);
    free(R.pending_to);
    free(R.blocked_pass);
    while (R.pending_head != NULL) {
        struct aos__rpc_pending *p = R.pending_head;
        R.pending_head = p->next;
        free(p);
    }
    pthread_mutex_destroy(&R.calls_lock);
    memset(&R, 0, sizeof R);
}

int aos__rpc_start(void)
{
    size_t npes = (size_t)aos__rt.npes;
    R.peer_queues = calloc(npes, sizeof *R.peer_queues);
    R.peer_areas = calloc(npes, sizeof *R.peer_areas);
    R.pending_to = calloc(npes, sizeof *R.pending_to);
    R.blocked_pass = calloc(npes, sizeof *R.blocked_pass);
    pthread_mutex_init(&R.calls_lock, NULL);
    int rc = AOS_ERR_NO_MEMORY;
    if (R.peer_queues == NULL || R.peer_areas == NULL || R.pending_to == NULL ||
        R.blocked_pass == NULL)
        goto fail_arrays;
    R.threaded = (int)aos__rt.cfg.progress_thread;
    rc = aos__queue_create_reserved(AOS__RPC_QUEUE_KEY, sizeof(struct aos__rpc_request),
                                    aos__rt.cfg.rpc_queue_depth, &R.queue);
    if (rc != AOS_OK) {
        fprintf(stderr,
                "aos: PE %d: no room for an RPC queue of AOS_RPC_QUEUE_DEPTH=%llu requests in "
                "AOS_SEGMENT_SPACE (%llu MiB): %s\n",
                aos__rt.me, (unsigned long long)aos__rt.cfg.rpc_queue_depth,
                (unsigned long long)(aos__rt.segspace_size >> 20), aos_strerror(rc));
        goto fail_arrays;
    }
    rc = aos__rpc_net_start();
    if (rc != AOS_OK)
        goto fail_queue;
    rc = aos__seg_create_any(AOS__RPC_AREA_KEY, sizeof(struct aos__rpc_area), AOS_PROTO_RMA,
                             &R.area_seg);
    if (rc != AOS_OK)
        goto fail_net;
    void *p;
    rc = aos__transport_shm.local_ptr(aos__rt.me, R.area_seg->arena_off, &p);
    if (rc != AOS_OK)
        goto fail_area;
    R.area = p;
    /* Published by the barrier that ends aos_init. With a progress thread,
     * callers wake it on the queue's own bell, so the program's threads
     * asleep on the PE's bell are not woken for every call. */
    R.area->served_by_thread = (uint64_t)R.threaded;
    rc = aos__progress_hook_add(aos__rpc_progress);
    if (rc != AOS_OK)
        goto fail_area;
    if (R.threaded) {
        aos__progress_thread_work(aos__queue_own_bell(R.queue), aos__rpc_serve);
    } else {
        /* Serve first: the hint's word, once set, makes waiters call it. */
        aos__serve_point.serve = aos__rpc_serve;
        aos__queue_set_hint(R.queue, &aos__serve_point.hint);
    }
    return AOS_OK;

fail_area:
    aos_seg_destroy(R.area_seg);
fail_net:
    aos__rpc_net_stop();
fail_queue:
    aos__queue_destroy_reserved(R.queue);
fail_arrays:
    free_state();
    return rc;
}

void aos__rpc_stop(void)
{
    for (int pe = 0; R.peer_queues != NULL && pe < aos__rt.npes; pe++) {
        if (R.peer_queues[pe] != NULL)
            aos_queue_detach(R.peer_queues[pe]);
        if (R.peer_areas[pe] != NULL)
            aos_seg_detach(R.peer_areas[pe]);
    }
    if (R.area_seg != NULL)
        aos_seg_destroy(R.area_seg);
    if (R.queue != NULL)
        aos__queue_destroy_reserved(R.queue);
    aos__rpc_net_stop();
    free_state();
}

void aos__rpc_lock_calls(void)
{
    pthread_mutex_lock(&R.calls_lock);
}

void aos__rpc_unlock_calls(void)
{
    pthread_mutex_unlock(&R.calls_lock);
}

int aos_rpc_register(const char *name, aos_rpc_handler_t fn, unsigned flags, aos_rpc_id_t *id)
{
    AOS__CHECK_INIT();
    if (name == NULL || fn == NULL || id == NULL)
        return AOS_ERR_NULL;
    if ((flags & ~AOS_RPC_ANYWHERE) != 0 || name[0] == '\0')
        return AOS_ERR_INVALID;
    aos__rpc_lock_calls(); /* a progress thread may read the table meanwhile */
    uint64_t n = R.area->count;
    if (n >= AOS_RPC_MAX_HANDLERS) {
        aos__rpc_unlock_calls();
        return AOS_ERR_TOO_MANY;
    }
    R.fn[n] = fn;
    R.flags[n] = flags;
    /* Relaxed: published with the count's release below. */
    aos__store_relaxed(&R.area->hash[n], name_hash(name, flags));
    /* Release: a caller or my serving thread that reads the count (acquire)
     * sees the hash, the handler and its flags. */
    aos__store_release(&R.area->count, n + 1);
    aos__rpc_unlock_calls();
    *id = (aos_rpc_id_t)n;
    return AOS_OK;
}

int aos__rpc_peer_area(int pe, struct aos__rpc_area **out)
{
    /* Acquire: pairs with the release below when another thread attached. */
    aos_seg_t *seg = aos__load_acquire(&R.peer_areas[pe]);
    if (seg == NULL) {
        aos__rpc_lock_calls();
        seg = R.peer_areas[pe];
        int rc = AOS_OK;
        if (seg == NULL) {
            rc = aos__seg_attach_any(pe, AOS__RPC_AREA_KEY, &seg);
            if (rc == AOS_OK)
                aos__store_release(&R.peer_areas[pe], seg);
        }
        aos__rpc_unlock_calls();
        if (rc != AOS_OK)
            return rc;
    }
    void *p;
    int rc = aos__tp(pe)->local_ptr(pe, seg->arena_off, &p);
    if (rc != AOS_OK)
        return rc == AOS_ERR_NOT_LOCAL ? AOS_ERR_UNSUPPORTED : rc;
    *out = p;
    return AOS_OK;
}

size_t aos__rpc_run_handler(aos_rpc_id_t id, uint32_t chain, const aos_rpc_info_t *info,
                            const void *args, size_t args_len, void *reply, size_t reply_cap)
{
    uint32_t outer = aos__rpc_chain;
    aos__rpc_chain = chain;
    aos__rpc_depth++;
    size_t n = R.fn[id](info, args, args_len, reply, reply_cap);
    aos__rpc_depth--;
    aos__rpc_chain = outer;
    return n < reply_cap ? n : reply_cap;
}

int32_t aos__rpc_run_request(const struct aos__rpc_request *q, const void *args, void *reply,
                             uint32_t *len)
{
    /* Acquire: pairs with aos_rpc_register's release of the count, so the
     * handler pointer is there (registration may run on another thread). */
    if (q->id >= aos__load_acquire(&R.area->count) || R.area->hash[q->id] != q->hash)
        return AOS_ERR_RPC_MISMATCH;
    aos_rpc_info_t info = {.caller = (int)q->caller, .home = aos__rt.me, .at_caller = 0};
    *len = (uint32_t)aos__rpc_run_handler(q->id, q->chain, &info, args, q->args_len, reply,
                                          q->reply_cap);
    /* Relaxed: a count; readers only need a recent value. */
    aos__fetch_add_relaxed(&R.stats.served, 1);
    aos__handlers_run_here++;
    return AOS_OK;
}

static void serve_one(const struct aos__rpc_request *q)
{
    if (!aos__on_node((int)q->caller)) {
        aos__rpc_net_serve(q);
        return;
    }
    struct aos__rpc_area *a;
    if (aos__rpc_peer_area((int)q->caller, &a) != AOS_OK)
        return; /* the caller's area is gone: it has finalized */
    struct aos__rpc_record *r = &a->rec[q->record];
    /* Acquire: pairs with the release store of done that ended this record's
     * previous call, which another thread of this PE may have served. The
     * real order runs through the caller's process (it saw that done before
     * reusing the record and enqueuing this request), where a race detector
     * cannot follow it; this load states the same order inside the process. */
    (void)aos__load_acquire(&r->done);
    uint32_t len = 0;
    r->status = aos__rpc_run_request(q, r->args, r->reply, &len);
    r->reply_len = len;
    uint64_t off = aos__load_relaxed(&R.peer_areas[q->caller])->arena_off +
                   ((uint64_t)((char *)&r->done - (char *)a));
    /* Release + wake: the caller sees reply and status before done. */
    (void)aos__tp((int)q->caller)->signal_store((int)q->caller, off, q->seq);
}

void aos__rpc_serve(void)
{
    /* With a progress thread, it alone serves: the program's waits leave
     * the queue to it, and its own nested waits serve on the same thread.
     * Without, every waiting thread may serve; the queue's consumer lock
     * hands each request to one of them. */
    if (aos__rpc_depth >= AOS__RPC_STACK_MAX || (R.threaded && !aos__in_progress_thread))
        return;
    struct aos__rpc_request q;
    while (aos_try_dequeue(R.queue, &q) == AOS_OK) /* it moves the hint on */
        serve_one(&q);
    /* The calls my handlers posted and had to keep: on the progress thread
     * nobody else may be there to send them. */
    if (R.threaded)
        aos__rpc_push_pending();
}

void aos__rpc_progress(void)
{
    if (R.queue == NULL)
        return;
    /* One load unless a request waits (with a progress thread, which alone
     * serves, not even that): every wait's spin comes through here. */
    aos__serve_poll();
    aos__rpc_call_progress(); /* the progress thread never gets here (aos__progress) */
}

int aos_progress(void)
{
    AOS__CHECK_INIT();
    aos__progress_completing();
    return AOS_OK;
}

int aos_rpc_localize(const aos_rpc_info_t *info, const void *addr, void **local)
{
    AOS__CHECK_INIT();
    if (info == NULL || local == NULL)
        return AOS_ERR_NULL;
    if (info->home == aos__rt.me) {
        uint64_t off;
        int rc = aos__sym_locate(addr, 0, &off);
        if (rc != AOS_OK)
            return rc;
        *local = (void *)addr;
        return AOS_OK;
    }
    return aos_sym_ptr(addr, info->home, local);
}

int aos_rpc_stats(aos_rpc_stats_t *stats)
{
    AOS__CHECK_INIT();
    if (stats == NULL)
        return AOS_ERR_NULL;
    aos__rpc_lock_calls();
    aos_rpc_stats_t s = {.sent = R.stats.sent,
                         .fallback = R.stats.fallback,
                         .served = aos__load_relaxed(&R.stats.served)};
    aos__rpc_unlock_calls();
    *stats = s;
    return AOS_OK;
}
