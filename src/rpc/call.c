/* RPC, the caller side: checking the target's table, call records, sending
 * a call now or from the pending list, running an AOS_RPC_ANYWHERE handler
 * here when the target is full, and completing calls.
 *
 * A call with an event never waits: when the target's queue is full or all
 * records are busy it goes to the pending list, which progress sends in
 * order per target. Blocking and posted calls wait for the pending calls to
 * their target to go first, so one thread's calls to a PE arrive in the
 * order it made them. */
#include "rpc/rpc.h"

#include <stdlib.h>
#include <string.h>

#include "arch/atomics.h"
#include "core/event.h"
#include "core/runtime.h"
#include "core/wait.h"
#include "queue/queue.h"

#define R aos__rpc

/* Does pe's table agree with mine at id? Reads its area one-sidedly. */
static int check_table(int pe, aos_rpc_id_t id)
{
    if (!aos__on_node(pe))
        return aos__rpc_net_check(pe, id);
    struct aos__rpc_area *a;
    int rc = aos__rpc_peer_area(pe, &a);
    if (rc != AOS_OK)
        return rc;
    /* Acquire: pairs with aos_rpc_register's release of count. */
    if (aos__load_acquire(&a->count) <= id ||
        aos__load_relaxed(&a->hash[id]) != R.area->hash[id])
        return AOS_ERR_RPC_MISMATCH;
    return AOS_OK;
}

static int check_call(int pe, aos_rpc_id_t id, const void *args, size_t args_len)
{
    AOS__CHECK_INIT();
    AOS__CHECK_PE(pe);
    /* A chain of calls stops at its limit. A thread with that many handlers
     * on its stack no longer serves (aos__rpc_serve), so a call it waited
     * for could need this very thread: refuse every form of call, the
     * fallback's run here included, rather than deadlock or grow the stack.
     * Not AOS_ERR_AGAIN: nothing this handler does before it returns can
     * lower its thread's stack. */
    if (aos__rpc_chain >= AOS_RPC_MAX_DEPTH || aos__rpc_depth >= AOS__RPC_STACK_MAX)
        return AOS_ERR_INVALID;
    /* Acquire: pairs with aos_rpc_register's release (maybe on another thread). */
    if (id >= aos__load_acquire(&R.area->count))
        return AOS_ERR_INVALID;
    if (args_len > AOS_RPC_MAX_INLINE)
        return AOS_ERR_SIZE;
    if (args == NULL && args_len != 0)
        return AOS_ERR_NULL;
    return check_table(pe, id);
}

/* ---- records; calls_lock held ------------------------------------------------- */

static int call_done(int i)
{
    /* Acquire: pairs with the target's release of done in serve_one(). */
    return aos__load_acquire(&R.area->rec[i].done) == R.calls[i].seq;
}

/* A free record (reclaiming posted calls the target has run), or -1. */
static int find_record(void)
{
    for (int i = 0; i < AOS__RPC_RECORDS; i++) {
        struct aos__rpc_call *c = &R.calls[i];
        if (c->in_flight && c->posted && call_done(i))
            c->in_flight = 0;
        if (!c->in_flight)
            return i;
    }
    return -1;
}

/* Takes a record and fills it with the call; -1 when all are busy. */
static int start_call(const void *args, size_t args_len, void *reply, size_t reply_cap,
                      size_t *reply_len, aos_event_t *ev, int posted)
{
    int i = find_record();
    if (i < 0)
        return -1;
    if (args_len != 0)
        memcpy(R.area->rec[i].args, args, args_len);
    R.calls[i] = (struct aos__rpc_call){.seq = ++R.next_seq,
                                        .reply = posted ? NULL : reply,
                                        .reply_cap = reply_cap,
                                        .reply_len = reply_len,
                                        .ev = ev,
                                        .posted = posted,
                                        .in_flight = 1};
    return i;
}

static struct aos__rpc_request request_for(int i, aos_rpc_id_t id, size_t args_len)
{
    const struct aos__rpc_call *c = &R.calls[i];
    return (struct aos__rpc_request){.caller = (uint32_t)aos__rt.me,
                                     .id = id,
                                     .hash = R.area->hash[id],
                                     .seq = c->seq,
                                     .record = (uint32_t)i,
                                     .args_len = (uint32_t)args_len,
                                     .reply_cap = c->posted ? 0 : (uint32_t)c->reply_cap,
                                     .chain = aos__rpc_chain + 1};
}

/* The request is in pe's queue: wake pe and count the call. */
static void sent(int pe, int i)
{
    /* The target may sleep watching other memory (a barrier, a flag): ring
     * its bell for any range, unless its progress thread serves, which the
     * enqueue has woken already (it watches the queue). The enqueue's
     * release was a full barrier, the writer's half of the sleep protocol
     * (core/wait.c). Relaxed: the flag was set before aos_init's barrier.
     * check_table attached pe's area before any send, so peer_area takes its
     * lock-free path here, where calls_lock is held. */
    struct aos__rpc_area *a;
    if (aos__on_node(pe) &&
        (aos__rpc_peer_area(pe, &a) != AOS_OK || !aos__load_relaxed(&a->served_by_thread)))
        aos__bell_ring(&aos__rt.peers[pe].header->bell, 0, UINT64_MAX, 1);
    R.stats.sent++;
    if (R.calls[i].ev != NULL) /* relaxed: see aos__rpc_call_progress */
        aos__store_relaxed(&R.events_pending, R.events_pending + 1);
}

/* Queues call i at pe without waiting: AOS_ERR_AGAIN when pe's queue is
 * full. A target on another node always takes the call (rpc/net.c). */
static int send_now(int pe, int i, aos_rpc_id_t id, size_t args_len)
{
    struct aos__rpc_request q = request_for(i, id, args_len);
    int rc = aos__on_node(pe) ? aos__queue_try_enqueue(R.peer_queues[pe], &q)
                              : aos__rpc_net_call(pe, &q, R.area->rec[i].args);
    if (rc == AOS_OK)
        sent(pe, i);
    return rc;
}

static int peer_queue(int pe)
{
    if (R.peer_queues[pe] != NULL || !aos__on_node(pe))
        return AOS_OK; /* calls to other nodes go by message */
    return aos__queue_attach_reserved(pe, AOS__RPC_QUEUE_KEY, &R.peer_queues[pe]);
}

static int finish(int i)
{
    struct aos__rpc_call *c = &R.calls[i];
    struct aos__rpc_record *r = &R.area->rec[i];
    int rc = r->status;
    if (rc == AOS_OK && c->reply != NULL)
        memcpy(c->reply, r->reply, r->reply_len);
    if (rc == AOS_OK && c->reply_len != NULL)
        *c->reply_len = r->reply_len;
    c->in_flight = 0;
    return rc;
}

/* ---- pending calls; calls_lock held ----------------------------------------------- */

static int append_pending(int pe, aos_rpc_id_t id, const void *args, size_t args_len,
                          void *reply, size_t reply_cap, size_t *reply_len, aos_event_t *ev,
                          int posted)
{
    /* Each holds a copy of the arguments: a target that never progresses
     * must not let a caller's loop eat all memory. The caller tries again
     * once progress has sent some. */
    if (R.pending_count >= aos__rt.cfg.rpc_pending_max)
        return AOS_ERR_AGAIN;
    struct aos__rpc_pending *p = malloc(sizeof *p + args_len);
    if (p == NULL)
        return AOS_ERR_NO_MEMORY;
    *p = (struct aos__rpc_pending){.pe = pe,
                                   .id = id,
                                   .args_len = args_len,
                                   .reply = reply,
                                   .reply_cap = reply_cap,
                                   .reply_len = reply_len,
                                   .ev = ev,
                                   .posted = posted};
    if (args_len != 0)
        memcpy(p->args, args, args_len);
    if (R.pending_tail == NULL)
        aos__store_relaxed(&R.pending_head, p); /* relaxed: see aos__rpc_call_progress */
    else
        R.pending_tail->next = p;
    R.pending_tail = p;
    R.pending_count++;
    R.pending_to[pe]++;
    return AOS_OK;
}

/* Sends what can go now, oldest first; a target that refused one call in
 * this pass gets no later call in it (order per target). */
static void push_pending(void)
{
    R.pass++;
    struct aos__rpc_pending **link = &R.pending_head, *prev = NULL;
    while (*link != NULL) {
        struct aos__rpc_pending *p = *link;
        int rc = AOS_ERR_AGAIN;
        if (R.blocked_pass[p->pe] != R.pass) {
            int i = start_call(p->args, p->args_len, p->reply, p->reply_cap, p->reply_len,
                               p->ev, p->posted);
            if (i < 0)
                break; /* no record free: nothing else can go either */
            rc = send_now(p->pe, i, p->id, p->args_len);
            if (rc != AOS_OK)
                R.calls[i].in_flight = 0;
        }
        if (rc == AOS_ERR_AGAIN) {
            R.blocked_pass[p->pe] = R.pass;
            prev = p;
            link = &p->next;
            continue;
        }
        if (rc != AOS_OK && p->ev != NULL) { /* the target is gone: complete it empty */
            if (p->reply_len != NULL)
                *p->reply_len = 0;
            aos__event_complete_async(p->ev); /* maybe not the event's thread */
        }
        aos__store_relaxed(link, p->next); /* link may be &R.pending_head */
        if (R.pending_tail == p)
            R.pending_tail = prev;
        R.pending_count--;
        R.pending_to[p->pe]--;
        free(p);
    }
}

/* Completes the calls with an event whose replies are in. */
static void collect(void)
{
    for (int i = 0; R.events_pending != 0 && i < AOS__RPC_RECORDS; i++) {
        struct aos__rpc_call *c = &R.calls[i];
        if (!c->in_flight || c->ev == NULL || !call_done(i))
            continue;
        aos_event_t *ev = c->ev;
        (void)finish(i); /* a refused call with an event has already been checked */
        aos__store_relaxed(&R.events_pending, R.events_pending - 1);
        aos__event_complete_async(ev); /* any thread's progress collects */
    }
}

void aos__rpc_push_pending(void)
{
    /* Relaxed: as in aos__rpc_call_progress. */
    if (aos__load_relaxed(&R.pending_head) == NULL)
        return;
    aos__rpc_lock_calls();
    push_pending();
    aos__rpc_unlock_calls();
}

int aos__rpc_calls_settled(uint64_t *sent)
{
    aos__rpc_lock_calls();
    int settled = R.pending_head == NULL;
    for (int i = 0; settled && i < AOS__RPC_RECORDS; i++)
        settled = !R.calls[i].in_flight || call_done(i);
    if (settled && sent != NULL)
        *sent = R.stats.sent;
    aos__rpc_unlock_calls();
    return settled;
}

void aos__rpc_call_progress(void)
{
    /* The common case: two loads. Relaxed: hints written under calls_lock
     * by this PE's threads; a thread that misses a change made by another
     * leaves the work to that thread's own waits or to a later poll. */
    if (aos__load_relaxed(&R.pending_head) == NULL && aos__load_relaxed(&R.events_pending) == 0)
        return;
    aos__rpc_lock_calls();
    if (R.pending_head != NULL)
        push_pending();
    collect();
    aos__rpc_unlock_calls();
}

/* ---- issuing ------------------------------------------------------------------- */

/* The target's queue is full and the handler may run anywhere: run it here
 * over the target's memory. */
static int run_at_caller(int pe, aos_rpc_id_t id, const void *args, size_t args_len,
                         void *reply, size_t reply_cap, size_t *reply_len, aos_event_t *ev)
{
    aos_rpc_info_t info = {.caller = aos__rt.me, .home = pe, .at_caller = 1};
    size_t n = aos__rpc_run_handler(id, aos__rpc_chain + 1, &info, args, args_len, reply,
                                    reply_cap);
    if (reply_len != NULL)
        *reply_len = n;
    aos__rpc_lock_calls();
    R.stats.fallback++;
    aos__rpc_unlock_calls();
    aos__event_done_at_issue(ev);
    return AOS_OK;
}

static int call_with_event(int pe, aos_rpc_id_t id, const void *args, size_t args_len,
                           void *reply, size_t reply_cap, size_t *reply_len, aos_event_t *ev)
{
    aos__rpc_lock_calls();
    int rc = peer_queue(pe);
    if (rc != AOS_OK)
        goto out;
    if (R.pending_to[pe] == 0) {
        int i = start_call(args, args_len, reply, reply_cap, reply_len, ev, 0);
        if (i >= 0) {
            rc = send_now(pe, i, id, args_len);
            if (rc == AOS_OK) {
                aos__event_post(ev); /* before collect can see it: it needs the lock */
                goto out;
            }
            R.calls[i].in_flight = 0;
            if (rc == AOS_ERR_AGAIN && (R.flags[id] & AOS_RPC_ANYWHERE)) {
                aos__rpc_unlock_calls();
                return run_at_caller(pe, id, args, args_len, reply, reply_cap, reply_len, ev);
            }
            if (rc != AOS_ERR_AGAIN)
                goto out;
        }
    }
    rc = append_pending(pe, id, args, args_len, reply, reply_cap, reply_len, ev, 0);
    if (rc == AOS_OK)
        aos__event_post(ev);
out:
    aos__rpc_unlock_calls();
    return rc;
}

/* A posted call from a handler that cannot go at once is kept for later
 * progress, as calls with events are, instead of waiting: its wait would
 * serve other requests on this thread's stack, whose handlers, posting in
 * turn, would wait and serve deeper, until the stack's bound refused them.
 * 1 when kept; 0 when it must wait after all (the pending list is full).
 * calls_lock held. */
static int keep_posted(int pe, aos_rpc_id_t id, const void *args, size_t args_len)
{
    return aos__rpc_depth > 0 &&
           append_pending(pe, id, args, args_len, NULL, 0, NULL, NULL, 1) == AOS_OK;
}

/* Ready when the calls pending to pe have gone and a record is free. */
static int can_start(const void *ctx)
{
    int pe = *(const int *)ctx;
    aos__rpc_lock_calls();
    int ok = R.pending_to[pe] == 0 && find_record() >= 0;
    aos__rpc_unlock_calls();
    return ok;
}

static int slot_ready(const void *ctx)
{
    return call_done(*(const int *)ctx);
}

/* A blocking call (posted = 0) or a posted one. */
static int call_and_wait(int pe, aos_rpc_id_t id, const void *args, size_t args_len,
                         void *reply, size_t reply_cap, size_t *reply_len, int posted)
{
    int i, rc;
    for (;;) {
        aos__rpc_lock_calls();
        rc = peer_queue(pe);
        if (rc != AOS_OK) {
            aos__rpc_unlock_calls();
            return rc;
        }
        if (R.pending_to[pe] == 0 &&
            (i = start_call(args, args_len, reply, reply_cap, reply_len, NULL, posted)) >= 0)
            break; /* holding the lock */
        if (posted && keep_posted(pe, id, args, args_len)) {
            aos__rpc_unlock_calls();
            return AOS_OK;
        }
        aos__rpc_unlock_calls();
        /* Watch everything: RPCs for me must wake me too, I serve them. */
        rc = aos__wait(can_start, &pe, AOS__FOREVER, AOS__WATCH_ALL);
        if (rc != AOS_OK)
            return rc;
    }
    rc = send_now(pe, i, id, args_len);
    if (rc == AOS_ERR_AGAIN && (R.flags[id] & AOS_RPC_ANYWHERE)) {
        R.calls[i].in_flight = 0;
        aos__rpc_unlock_calls();
        return run_at_caller(pe, id, args, args_len, posted ? NULL : reply,
                             posted ? 0 : reply_cap, posted ? NULL : reply_len, NULL);
    }
    if (rc == AOS_ERR_AGAIN && posted && keep_posted(pe, id, args, args_len)) {
        R.calls[i].in_flight = 0;
        aos__rpc_unlock_calls();
        return AOS_OK;
    }
    struct aos__rpc_request q = request_for(i, id, args_len);
    aos__rpc_unlock_calls();
    if (rc == AOS_ERR_AGAIN) {
        rc = aos_enqueue(R.peer_queues[pe], &q); /* serves my RPCs while it waits */
        aos__rpc_lock_calls();
        if (rc == AOS_OK)
            sent(pe, i);
        aos__rpc_unlock_calls();
    }
    if (rc != AOS_OK) {
        aos__rpc_lock_calls();
        R.calls[i].in_flight = 0;
        aos__rpc_unlock_calls();
        return rc;
    }
    if (posted)
        return AOS_OK;
    rc = aos__wait(slot_ready, &i, AOS__FOREVER, AOS__WATCH_ALL);
    if (rc != AOS_OK)
        return rc; /* the record stays in flight: the reply may still come */
    aos__rpc_lock_calls();
    rc = finish(i);
    aos__rpc_unlock_calls();
    return rc;
}

int aos_rpc(int pe, aos_rpc_id_t id, const void *args, size_t args_len, void *reply,
            size_t reply_cap, size_t *reply_len, aos_event_t *ev)
{
    int rc = check_call(pe, id, args, args_len);
    if (rc != AOS_OK)
        return rc;
    if (reply == NULL && reply_cap != 0)
        return AOS_ERR_NULL;
    if (reply_cap > AOS_RPC_MAX_INLINE)
        reply_cap = AOS_RPC_MAX_INLINE; /* the most a reply can carry */
    if (ev == NULL)
        return call_and_wait(pe, id, args, args_len, reply, reply_cap, reply_len, 0);
    if (ev->magic != AOS__EVENT_MAGIC)
        return AOS_ERR_INVALID;
    if (reply_cap != 0 && reply_len == NULL)
        return AOS_ERR_NULL; /* the length must have somewhere to go */
    return call_with_event(pe, id, args, args_len, reply, reply_cap, reply_len, ev);
}

int aos_rpc_post(int pe, aos_rpc_id_t id, const void *args, size_t args_len)
{
    int rc = check_call(pe, id, args, args_len);
    if (rc != AOS_OK)
        return rc;
    return call_and_wait(pe, id, args, args_len, NULL, 0, NULL, 1);
}
