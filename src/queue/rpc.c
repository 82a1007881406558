/* Remote procedure calls.
 *
 * Every PE owns, under reserved keys, an RPC queue of small requests and an
 * RPC area: its handler table (one name hash per id, read by callers to
 * check that tables agree) and its call records. A caller writes the
 * arguments into one of its own records and enqueues {caller, id, record}
 * at the target. The target, in progress, runs the handler over the
 * arguments read in place through its mapping of the caller's arena, writes
 * the reply into the same record and stores the call's sequence number into
 * the record's `done` word with release (which wakes the caller). */
#include <stdlib.h>
#include <string.h>

#include "arch/atomics.h"
#include "core/event.h"
#include "core/runtime.h"
#include "core/wait.h"
#include "mem/memory.h"
#include "mem/segment.h"
#include "queue/queue.h"

#define RECORDS 64

struct record {
    uint64_t done;      /* the call's sequence once the target has finished it */
    int32_t status;     /* AOS_OK or why the target refused the call */
    uint32_t reply_len;
    uint64_t pad[AOS__LINE / 8 - 2];
    char args[AOS_RPC_MAX_INLINE];
    char reply[AOS_RPC_MAX_INLINE];
};
_Static_assert(offsetof(struct record, args) == AOS__LINE, "arguments start a line");
_Static_assert(sizeof(struct record) % AOS__LINE == 0, "records are whole lines");

struct area {
    uint64_t count; /* handlers registered */
    uint64_t pad[AOS__LINE / 8 - 1];
    uint64_t hash[AOS_RPC_MAX_HANDLERS]; /* 0: none */
    struct record rec[RECORDS];
};
_Static_assert(offsetof(struct area, rec) % AOS__LINE == 0, "records aligned");

struct request {
    uint32_t caller;
    uint32_t id;
    uint64_t hash;   /* the caller's hash for id, checked again by the target */
    uint64_t seq;    /* stored into done */
    uint32_t record;
    uint32_t args_len;
    uint32_t reply_cap;
    uint32_t pad;
};
_Static_assert(sizeof(struct request) == 40, "an RPC request is 40 bytes");

/* A call of mine whose reply has not been collected. */
struct call {
    uint64_t seq;
    void *reply;
    size_t reply_cap;
    size_t *reply_len;
    aos_event_t *ev; /* NULL: a blocking call or a posted one */
    int posted;      /* no reply wanted: the record frees itself when done */
    int in_flight;
};

static struct {
    aos_queue_t *queue;           /* my RPC queue */
    aos_seg_t *area_seg;
    struct area *area;            /* my area, mapped */
    aos_queue_t **peer_queues;    /* attached lazily */
    aos_seg_t **peer_areas;
    aos_rpc_handler_t fn[AOS_RPC_MAX_HANDLERS];
    unsigned flags[AOS_RPC_MAX_HANDLERS];
    struct call calls[RECORDS];
    uint64_t next_seq;
    size_t events_pending;        /* calls with an event in flight */
    int depth;                    /* nesting of handler runs */
    aos_rpc_stats_t stats;
} R;

/* Nested handler runs stop here: deep enough for rpc chains through a few
 * PEs, shallow enough for the stack. */
#define MAX_DEPTH 16

static uint64_t name_hash(const char *name, unsigned flags)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const char *c = name; *c != '\0'; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    h = (h ^ flags) * 1099511628211ull;
    return h == 0 ? 1 : h;
}

int aos__rpc_start(void)
{
    int npes = aos__rt.npes;
    R.peer_queues = calloc((size_t)npes, sizeof *R.peer_queues);
    R.peer_areas = calloc((size_t)npes, sizeof *R.peer_areas);
    int rc = AOS_ERR_NO_MEMORY;
    if (R.peer_queues == NULL || R.peer_areas == NULL)
        goto fail_arrays;
    rc = aos__queue_create_reserved(AOS__RPC_QUEUE_KEY, sizeof(struct request),
                                    aos__rt.cfg.rpc_queue_depth, &R.queue);
    if (rc != AOS_OK)
        goto fail_arrays;
    rc = aos__seg_create_any(AOS__RPC_AREA_KEY, sizeof(struct area), AOS_PROTO_RMA,
                             &R.area_seg);
    if (rc != AOS_OK)
        goto fail_queue;
    void *p;
    rc = aos__rt.tp->local_ptr(aos__rt.me, R.area_seg->arena_off, &p);
    if (rc != AOS_OK)
        goto fail_area;
    R.area = p;
    return AOS_OK;

fail_area:
    aos_seg_destroy(R.area_seg);
fail_queue:
    aos__queue_destroy_reserved(R.queue);
fail_arrays:
    free(R.peer_queues);
    free(R.peer_areas);
    memset(&R, 0, sizeof R);
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
    free(R.peer_queues);
    free(R.peer_areas);
    memset(&R, 0, sizeof R);
}

int aos_rpc_register(const char *name, aos_rpc_handler_t fn, unsigned flags, aos_rpc_id_t *id)
{
    AOS__CHECK_INIT();
    if (name == NULL || fn == NULL || id == NULL)
        return AOS_ERR_NULL;
    if ((flags & ~AOS_RPC_ANYWHERE) != 0 || name[0] == '\0')
        return AOS_ERR_INVALID;
    uint64_t n = R.area->count;
    if (n >= AOS_RPC_MAX_HANDLERS)
        return AOS_ERR_TOO_MANY;
    R.fn[n] = fn;
    R.flags[n] = flags;
    /* Release: a caller that reads the count (acquire) sees the hash. */
    aos__store_relaxed(&R.area->hash[n], name_hash(name, flags));
    aos__store_release(&R.area->count, n + 1);
    *id = (aos_rpc_id_t)n;
    return AOS_OK;
}

/* pe's area, attached on first use. */
static int peer_area(int pe, struct area **out)
{
    if (R.peer_areas[pe] == NULL) {
        int rc = aos__seg_attach_any(pe, AOS__RPC_AREA_KEY, &R.peer_areas[pe]);
        if (rc != AOS_OK)
            return rc;
    }
    void *p;
    int rc = aos__rt.tp->local_ptr(pe, R.peer_areas[pe]->arena_off, &p);
    if (rc != AOS_OK)
        return rc == AOS_ERR_NOT_LOCAL ? AOS_ERR_UNSUPPORTED : rc;
    *out = p;
    return AOS_OK;
}

/* Does pe's table agree with mine at id? Reads its area one-sidedly. */
static int check_table(int pe, aos_rpc_id_t id)
{
    struct area *a;
    int rc = peer_area(pe, &a);
    if (rc != AOS_OK)
        return rc;
    /* Acquire: pairs with aos_rpc_register's release of count. */
    if (aos__load_acquire(&a->count) <= id ||
        aos__load_relaxed(&a->hash[id]) != R.area->hash[id])
        return AOS_ERR_RPC_MISMATCH;
    return AOS_OK;
}

/* ---- the target side -------------------------------------------------------- */

static size_t run_handler(aos_rpc_id_t id, const aos_rpc_info_t *info, const void *args,
                          size_t args_len, void *reply, size_t reply_cap)
{
    R.depth++;
    size_t n = R.fn[id](info, args, args_len, reply, reply_cap);
    R.depth--;
    return n < reply_cap ? n : reply_cap;
}

static void serve(const struct request *q)
{
    struct area *a;
    if (peer_area((int)q->caller, &a) != AOS_OK)
        return; /* the caller's area is gone: it has finalized */
    struct record *r = &a->rec[q->record];
    int32_t status = AOS_OK;
    uint32_t len = 0;
    if (q->id >= R.area->count || R.area->hash[q->id] != q->hash) {
        status = AOS_ERR_RPC_MISMATCH;
    } else {
        aos_rpc_info_t info = {.caller = (int)q->caller, .home = aos__rt.me, .at_caller = 0};
        len = (uint32_t)run_handler(q->id, &info, r->args, q->args_len, r->reply, q->reply_cap);
        R.stats.served++;
        aos__rt.handlers_run++;
    }
    r->status = status;
    r->reply_len = len;
    uint64_t off = R.peer_areas[q->caller]->arena_off +
                   ((uint64_t)((char *)&r->done - (char *)a));
    /* Release + wake: the caller sees reply and status before done. */
    (void)aos__rt.tp->signal_store((int)q->caller, off, q->seq);
}

/* Collects the replies of calls with an event. */
static void collect(int i);

void aos__rpc_progress(void)
{
    if (R.queue == NULL)
        return;
    if (R.depth < MAX_DEPTH) {
        struct request q;
        while (aos_try_dequeue(R.queue, &q) == AOS_OK)
            serve(&q);
    }
    for (int i = 0; R.events_pending != 0 && i < RECORDS; i++)
        if (R.calls[i].in_flight && R.calls[i].ev != NULL)
            collect(i);
}

int aos_progress(void)
{
    AOS__CHECK_INIT();
    aos__progress();
    return AOS_OK;
}

/* ---- the caller side ------------------------------------------------------------- */

static int call_done(int i)
{
    /* Acquire: pairs with the target's release of done in serve(). */
    return aos__load_acquire(&R.area->rec[i].done) == R.calls[i].seq;
}

static int finish(int i)
{
    struct call *c = &R.calls[i];
    struct record *r = &R.area->rec[i];
    int rc = r->status;
    if (rc == AOS_OK && c->reply != NULL) {
        memcpy(c->reply, r->reply, r->reply_len);
        if (c->reply_len != NULL)
            *c->reply_len = r->reply_len;
    }
    c->in_flight = 0;
    return rc;
}

static void collect(int i)
{
    if (!call_done(i))
        return;
    aos_event_t *ev = R.calls[i].ev;
    (void)finish(i); /* a refused call with an event has already been checked */
    R.events_pending--;
    aos__event_complete(ev);
}

static int record_free(const void *ctx)
{
    (void)ctx;
    for (int i = 0; i < RECORDS; i++) {
        struct call *c = &R.calls[i];
        if (!c->in_flight)
            return 1;
        if (c->posted && call_done(i))
            c->in_flight = 0; /* a posted call the target has run */
    }
    return 0;
}

/* A free record: waits (serving RPCs) while all are in flight. */
static int take_record(int *out)
{
    if (!record_free(NULL)) {
        int rc = aos__wait(record_free, NULL, AOS__FOREVER, AOS__WATCH_ALL);
        if (rc != AOS_OK)
            return rc;
    }
    for (int i = 0; i < RECORDS; i++) {
        if (!R.calls[i].in_flight) {
            *out = i;
            return AOS_OK;
        }
    }
    return AOS_ERR_AGAIN; /* not reached: record_free saw one */
}

struct slot_wait {
    int i;
};

static int slot_ready(const void *ctx)
{
    return call_done(((const struct slot_wait *)ctx)->i);
}

static int check_call(int pe, aos_rpc_id_t id, const void *args, size_t args_len,
                      size_t reply_cap)
{
    AOS__CHECK_INIT();
    AOS__CHECK_PE(pe);
    if (id >= R.area->count)
        return AOS_ERR_INVALID;
    if (args_len > AOS_RPC_MAX_INLINE || reply_cap > AOS_RPC_MAX_INLINE)
        return AOS_ERR_SIZE;
    if (args == NULL && args_len != 0)
        return AOS_ERR_NULL;
    return check_table(pe, id);
}

/* The target's queue is full and the handler may run anywhere: run it here
 * over the target's memory. */
static int run_at_caller(int pe, aos_rpc_id_t id, const void *args, size_t args_len,
                         void *reply, size_t reply_cap, size_t *reply_len, aos_event_t *ev)
{
    aos_rpc_info_t info = {.caller = aos__rt.me, .home = pe, .at_caller = 1};
    size_t n = run_handler(id, &info, args, args_len, reply, reply_cap);
    if (reply_len != NULL)
        *reply_len = n;
    R.stats.fallback++;
    aos__event_done_at_issue(ev);
    return AOS_OK;
}

static int issue(int pe, aos_rpc_id_t id, const void *args, size_t args_len, void *reply,
                 size_t reply_cap, size_t *reply_len, aos_event_t *ev, int posted)
{
    if (R.peer_queues[pe] == NULL) {
        int rc = aos__queue_attach_reserved(pe, AOS__RPC_QUEUE_KEY, &R.peer_queues[pe]);
        if (rc != AOS_OK)
            return rc;
    }
    int i;
    int rc = take_record(&i);
    if (rc != AOS_OK)
        return rc;
    struct record *r = &R.area->rec[i];
    if (args_len != 0)
        memcpy(r->args, args, args_len);
    struct call *c = &R.calls[i];
    *c = (struct call){.seq = ++R.next_seq,
                       .reply = posted ? NULL : reply,
                       .reply_cap = reply_cap,
                       .reply_len = reply_len,
                       .ev = ev,
                       .posted = posted,
                       .in_flight = 1};
    struct request q = {.caller = (uint32_t)aos__rt.me,
                        .id = id,
                        .hash = R.area->hash[id],
                        .seq = c->seq,
                        .record = (uint32_t)i,
                        .args_len = (uint32_t)args_len,
                        .reply_cap = posted ? 0 : (uint32_t)reply_cap};
    rc = aos_try_enqueue(R.peer_queues[pe], &q);
    if (rc == AOS_ERR_AGAIN && (R.flags[id] & AOS_RPC_ANYWHERE)) {
        c->in_flight = 0;
        return run_at_caller(pe, id, args, args_len, posted ? NULL : reply,
                             posted ? 0 : reply_cap, posted ? NULL : reply_len, ev);
    }
    if (rc == AOS_ERR_AGAIN)
        rc = aos_enqueue(R.peer_queues[pe], &q); /* serves my RPCs while it waits */
    if (rc != AOS_OK) {
        c->in_flight = 0;
        return rc;
    }
    /* The target may sleep watching other memory (a barrier, a flag): ring
     * its bell for any range. The enqueue's release was a full barrier,
     * which is the writer's half of the sleep protocol (core/wait.c). */
    aos__bell_ring(&aos__rt.peers[pe].header->bell, 0, UINT64_MAX, 1);
    R.stats.sent++;
    if (posted)
        return AOS_OK;
    if (ev != NULL) {
        aos__event_post(ev);
        R.events_pending++;
        return AOS_OK;
    }
    /* Watch everything: RPCs for me (nested calls back) must wake me too. */
    struct slot_wait w = {i};
    rc = aos__wait(slot_ready, &w, AOS__FOREVER, AOS__WATCH_ALL);
    if (rc != AOS_OK)
        return rc; /* the record stays in flight: the reply may still come */
    return finish(i);
}

int aos_rpc(int pe, aos_rpc_id_t id, const void *args, size_t args_len, void *reply,
            size_t reply_cap, size_t *reply_len, aos_event_t *ev)
{
    int rc = check_call(pe, id, args, args_len, reply_cap);
    if (rc != AOS_OK)
        return rc;
    if (reply == NULL && reply_cap != 0)
        return AOS_ERR_NULL;
    if (ev != NULL && ev->magic != AOS__EVENT_MAGIC)
        return AOS_ERR_INVALID;
    if (ev != NULL && reply_cap != 0 && reply_len == NULL)
        return AOS_ERR_NULL; /* the length must have somewhere to go */
    return issue(pe, id, args, args_len, reply, reply_cap, reply_len, ev, 0);
}

int aos_rpc_post(int pe, aos_rpc_id_t id, const void *args, size_t args_len)
{
    int rc = check_call(pe, id, args, args_len, 0);
    if (rc != AOS_OK)
        return rc;
    return issue(pe, id, args, args_len, NULL, 0, NULL, NULL, 1);
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
    *stats = R.stats;
    return AOS_OK;
}
