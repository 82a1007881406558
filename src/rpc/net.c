/* RPC across nodes. On a node the target reads the arguments in the
 * caller's record and writes the reply there through its mapping; across
 * nodes the transport carries both:
 *  - the caller sends the request with its arguments (AOS__AM_RPC_CALL);
 *  - the target's handler keeps the arguments and puts the request into
 *    the target's RPC queue like any other (parked when the queue is full:
 *    the caller's records bound how many calls it has in flight, so the
 *    parked ones are bounded too), and whoever serves RPCs runs it;
 *  - the reply (AOS__AM_RPC_REPLY) carries status and reply bytes; the
 *    caller's handler writes them into its record and publishes `done`
 *    exactly as a target on the node would, so call.c completes it the
 *    same way.
 * A call across nodes is never run at the caller: the target always takes
 * it (AOS_RPC_ANYWHERE only matters on a node).
 *
 * The caller checks its table against the target's as on a node, on a copy
 * of the target's table read by get: entries never change once registered,
 * so the copy is read again only for an id it does not have yet. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "arch/atomics.h"
#include "core/am.h"
#include "core/runtime.h"
#include "core/wait.h"
#include "mem/segment.h"
#include "queue/queue.h"
#include "rpc/rpc.h"

#define R aos__rpc

struct call_msg {
    struct aos__rpc_request q;
    char args[AOS_RPC_MAX_INLINE];
};

struct reply_msg {
    uint64_t seq;
    uint32_t record;
    int32_t status;
    uint32_t len;
    uint32_t pad;
    char reply[AOS_RPC_MAX_INLINE];
};
#define REPLY_HEAD offsetof(struct reply_msg, reply)
_Static_assert(sizeof(struct call_msg) <= AOS__AM_MAX, "a call fits a message");

/* Arguments of calls from other nodes, by (caller, caller's record): a
 * record carries one call at a time, so the pair names it until its reply.
 * Written by the message handler before the request is queued and read by
 * the server after dequeuing it: the queue's release/acquire hands it over. */
static char **inbox;

static char **inbox_slot(int caller, uint32_t record)
{
    return &inbox[(size_t)caller * AOS__RPC_RECORDS + record];
}

/* Copies of other nodes' handler tables, read on demand. */
struct table_copy {
    aos_seg_t *area;   /* the target's RPC area, attached on first use */
    uint64_t count;    /* entries known: registered and complete when read */
    uint64_t hash[AOS_RPC_MAX_HANDLERS];
};
static struct table_copy **tables;
static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;

/* Reads pe's count and hashes again. Lock held. */
static int refresh(int pe, struct table_copy *t)
{
    if (t->area == NULL) {
        int rc = aos__seg_attach_any(pe, AOS__RPC_AREA_KEY, &t->area);
        if (rc != AOS_OK)
            return rc;
    }
    struct {
        uint64_t count, served_by_thread, pad[AOS__LINE / 8 - 2];
        uint64_t hash[AOS_RPC_MAX_HANDLERS];
    } head;
    _Static_assert(offsetof(struct aos__rpc_area, hash) == offsetof(__typeof__(head), hash),
                   "the area's head as read");
    int rc = aos__tp(pe)->get(&head, pe, t->area->arena_off, sizeof head, NULL);
    if (rc != AOS_OK)
        return rc;
    /* One get has no order inside: an entry registered while it ran may
     * come with the count but not its hash. Keep the complete ones. */
    uint64_t n = head.count < AOS_RPC_MAX_HANDLERS ? head.count : AOS_RPC_MAX_HANDLERS;
    uint64_t known = 0;
    while (known < n && head.hash[known] != 0)
        known++;
    memcpy(t->hash, head.hash, known * sizeof t->hash[0]);
    t->count = known;
    return AOS_OK;
}

int aos__rpc_net_check(int pe, aos_rpc_id_t id)
{
    pthread_mutex_lock(&tables_lock);
    int rc = AOS_OK;
    struct table_copy *t = tables[pe];
    if (t == NULL) {
        t = tables[pe] = calloc(1, sizeof *t);
        if (t == NULL)
            rc = AOS_ERR_NO_MEMORY;
    }
    if (rc == AOS_OK && t->count <= id)
        rc = refresh(pe, t);
    if (rc == AOS_OK && (t->count <= id || t->hash[id] != R.area->hash[id]))
        rc = AOS_ERR_RPC_MISMATCH;
    pthread_mutex_unlock(&tables_lock);
    return rc;
}

int aos__rpc_net_call(int pe, const struct aos__rpc_request *q, const void *args)
{
    struct call_msg m;
    m.q = *q;
    if (q->args_len != 0)
        memcpy(m.args, args, q->args_len);
    return aos__tp(pe)->am_send(pe, AOS__AM_RPC_CALL, &m,
                                offsetof(struct call_msg, args) + q->args_len, 0);
}

static void on_call(int src, const void *payload, size_t len)
{
    struct aos__rpc_request q;
    size_t head = offsetof(struct call_msg, args);
    if (len < head || R.queue == NULL || inbox == NULL)
        return;
    memcpy(&q, payload, sizeof q);
    if (q.caller != (uint32_t)src || q.record >= AOS__RPC_RECORDS ||
        q.args_len > AOS_RPC_MAX_INLINE || len != head + q.args_len ||
        q.reply_cap > AOS_RPC_MAX_INLINE)
        return;
    char *args = malloc(q.args_len != 0 ? q.args_len : 1);
    if (args == NULL)
        return; /* out of memory: the caller's call never completes */
    memcpy(args, (const char *)payload + head, q.args_len);
    char **slot = inbox_slot(src, q.record);
    free(*slot); /* a record is reused only after its reply: nothing here */
    *slot = args;
    if (aos__queue_deliver(R.queue, &q, sizeof q) != AOS_OK) {
        *slot = NULL;
        free(args);
        return;
    }
    /* Whoever serves may sleep watching other memory (without a progress
     * thread, the program's waits serve): wake it for any range. */
    aos__fence_seq_cst(); /* the writer's half of the sleep protocol (core/wait.c) */
    aos__bell_ring_mine();
}

void aos__rpc_net_serve(const struct aos__rpc_request *q)
{
    char **slot = inbox_slot((int)q->caller, q->record);
    char *args = *slot;
    *slot = NULL;
    struct reply_msg *m = malloc(sizeof *m);
    if (m == NULL) {
        free(args);
        return;
    }
    m->seq = q->seq;
    m->record = q->record;
    m->len = 0;
    m->status = aos__rpc_run_request(q, args, m->reply, &m->len);
    free(args);
    int caller = (int)q->caller;
    (void)aos__tp(caller)->am_send(caller, AOS__AM_RPC_REPLY, m, REPLY_HEAD + m->len, 0);
    free(m);
}

static void on_reply(int src, const void *payload, size_t len)
{
    (void)src;
    struct reply_msg m;
    if (len < REPLY_HEAD || len > sizeof m || R.area == NULL)
        return;
    memcpy(&m, payload, len);
    if (m.record >= AOS__RPC_RECORDS || len != REPLY_HEAD + m.len)
        return;
    struct aos__rpc_record *r = &R.area->rec[m.record];
    memcpy(r->reply, m.reply, m.len);
    r->status = m.status;
    r->reply_len = m.len;
    /* seq_cst exchange: releases the reply to call.c's acquire of done, as
     * a target's signal_store does on the node; as a full barrier it orders
     * the sleeper check after it. */
    (void)aos__exchange_seq_cst(&r->done, m.seq);
    aos__fence_after_rmw();
    aos__bell_ring_mine();
}

int aos__rpc_net_start(void)
{
    if (aos__rt.net == NULL)
        return AOS_OK;
    inbox = calloc((size_t)aos__rt.npes * AOS__RPC_RECORDS, sizeof *inbox);
    tables = calloc((size_t)aos__rt.npes, sizeof *tables);
    if (inbox == NULL || tables == NULL) {
        free(inbox);
        free(tables);
        inbox = NULL;
        tables = NULL;
        return AOS_ERR_NO_MEMORY;
    }
    aos__am_register(AOS__AM_RPC_CALL, on_call);
    aos__am_register(AOS__AM_RPC_REPLY, on_reply);
    return AOS_OK;
}

void aos__rpc_net_stop(void)
{
    if (inbox == NULL)
        return;
    for (size_t i = 0; i < (size_t)aos__rt.npes * AOS__RPC_RECORDS; i++)
        free(inbox[i]);
    for (int pe = 0; pe < aos__rt.npes; pe++) {
        if (tables[pe] != NULL && tables[pe]->area != NULL)
            aos_seg_detach(tables[pe]->area);
        free(tables[pe]);
    }
    free(inbox);
    free(tables);
    inbox = NULL;
    tables = NULL;
}
