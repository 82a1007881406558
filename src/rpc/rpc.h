/* Remote procedure calls: the shared layout, the PE's RPC state and the
 * hooks the core calls.
 *
 * Every PE owns, under reserved keys, an RPC queue of small requests and an
 * RPC area: its handler table (one name hash per id, read by callers to
 * check that tables agree) and its call records. A caller writes the
 * arguments into one of its own records and enqueues {caller, id, record}
 * at the target (call.c). The target, in progress, runs the handler over the
 * arguments read in place through its mapping of the caller's arena, writes
 * the reply into the same record and stores the call's sequence number into
 * the record's `done` word with release, which wakes the caller (serve.c).
 *
 * Threads: with AOS_PROGRESS_THREAD=1 a second thread serves RPCs
 * (core/progress_thread.c), and it alone: the program's waits do not (a
 * handler's nested waits serve on the same thread). Without it, any of
 * the program's threads that waits serves, the queue's consumer lock
 * keeping their dequeues apart. `calls_lock` guards the caller side
 * (records, pending sends, counters) and the lazily attached peer handles,
 * since any thread, and handlers, make calls. */
#ifndef AOS_RPC_H
#define AOS_RPC_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "aos.h"
#include "arch/atomics.h"
#include "core/layout.h"
#include "queue/queue.h"

#define AOS__RPC_RECORDS 64

struct aos__rpc_record {
    uint64_t done;      /* the call's sequence once the target has finished it */
    int32_t status;     /* AOS_OK or why the target refused the call */
    uint32_t reply_len;
    uint64_t pad[AOS__LINE / 8 - 2];
    char args[AOS_RPC_MAX_INLINE];
    char reply[AOS_RPC_MAX_INLINE];
};
_Static_assert(offsetof(struct aos__rpc_record, args) == AOS__LINE, "arguments start a line");
_Static_assert(sizeof(struct aos__rpc_record) % AOS__LINE == 0, "records are whole lines");

struct aos__rpc_area {
    uint64_t count;            /* handlers registered */
    uint64_t served_by_thread; /* 1: a progress thread serves; callers need not
                                  wake the PE's other sleepers */
    uint64_t pad[AOS__LINE / 8 - 2];
    uint64_t hash[AOS_RPC_MAX_HANDLERS]; /* 0: none */
    struct aos__rpc_record rec[AOS__RPC_RECORDS];
};
_Static_assert(offsetof(struct aos__rpc_area, rec) % AOS__LINE == 0, "records aligned");

struct aos__rpc_request {
    uint32_t caller;
    uint32_t id;
    uint64_t hash;   /* the caller's hash for id, checked again by the target */
    uint64_t seq;    /* stored into done */
    uint32_t record;
    uint32_t args_len;
    uint32_t reply_cap;
    uint32_t chain; /* this call's depth in its chain of calls: 1 outside handlers */
};
_Static_assert(sizeof(struct aos__rpc_request) == 40, "an RPC request is 40 bytes");

/* A call of mine whose reply has not been collected. */
struct aos__rpc_call {
    uint64_t seq;
    void *reply;
    size_t reply_cap;
    size_t *reply_len;
    aos_event_t *ev; /* NULL: a blocking call or a posted one */
    int posted;      /* no reply wanted: the record frees itself when done */
    int in_flight;
};

/* A call with an event, or a posted call from a handler, that could not be
 * queued yet (target full or all records busy): sent from progress, in
 * order per target. */
struct aos__rpc_pending {
    int pe;
    aos_rpc_id_t id;
    size_t args_len;
    void *reply;
    size_t reply_cap;
    size_t *reply_len;
    aos_event_t *ev; /* NULL for a posted call */
    int posted;
    struct aos__rpc_pending *next;
    char args[]; /* a copy: the caller's buffer may be reused at once */
};

struct aos__rpc_state {
    aos_queue_t *queue;                 /* my RPC queue */
    aos_seg_t *area_seg;
    struct aos__rpc_area *area;         /* my area, mapped */
    aos_seg_t **peer_areas;             /* attached lazily; calls_lock */
    aos_queue_t **peer_queues;          /* attached lazily; calls_lock */
    aos_rpc_handler_t fn[AOS_RPC_MAX_HANDLERS];
    unsigned flags[AOS_RPC_MAX_HANDLERS];

    /* Caller side (calls_lock). */
    struct aos__rpc_call calls[AOS__RPC_RECORDS];
    uint64_t next_seq;
    size_t events_pending;              /* queued calls with an event; read unlocked */
    struct aos__rpc_pending *pending_head, *pending_tail; /* head read unlocked */
    size_t pending_count;               /* calls on the pending list, at most
                                           AOS_RPC_PENDING_MAX: each holds memory */
    uint32_t *pending_to;               /* per PE: pending sends to it */
    uint64_t *blocked_pass;             /* per PE: last push pass it refused */
    uint64_t pass;

    int threaded;                       /* a progress thread exists and alone serves */
    pthread_mutex_t calls_lock;
    aos_rpc_stats_t stats;              /* sent/fallback: calls_lock; served: atomic */
};

extern struct aos__rpc_state aos__rpc;

/* Set up and torn down with the runtime. */
int aos__rpc_start(void);
void aos__rpc_stop(void);
/* The progress hook (core/progress.h): serves queued requests; on the PE's own threads also
 * sends pending calls and completes calls with events whose replies are in. */
void aos__rpc_progress(void);
/* Dequeues and runs requests (serve.c); with a progress thread, only
 * on it. */
void aos__rpc_serve(void);
/* Checks request q against my table and runs its handler over args, the
 * reply going to reply (at most q->reply_cap bytes, *len set): AOS_OK or
 * the status the caller gets. */
int32_t aos__rpc_run_request(const struct aos__rpc_request *q, const void *args, void *reply,
                             uint32_t *len);
/* Calls across nodes (net.c): arguments and replies travel in messages. */
int aos__rpc_net_start(void);
void aos__rpc_net_stop(void);
int aos__rpc_net_call(int pe, const struct aos__rpc_request *q, const void *args);
/* Does pe's table (another node's) agree with mine at id? */
int aos__rpc_net_check(int pe, aos_rpc_id_t id);
void aos__rpc_net_serve(const struct aos__rpc_request *q);
/* Sends pending calls and collects replies (call.c). */
void aos__rpc_call_progress(void);
/* Only sends pending calls: the progress thread's share of the above (the
 * calls its handlers post). */
void aos__rpc_push_pending(void);
/* 1 when none of my calls waits to be sent or to be run by its target,
 * and then *sent (if not NULL) = the calls I have sent, read at that
 * same moment: no call counted there is still to run. */
int aos__rpc_calls_settled(uint64_t *sent);
/* At aos_finalize (finalize.c): returns once no call made anywhere in the
 * job is still to run, serving meanwhile; collective. */
int aos__rpc_drain(void);

void aos__rpc_lock_calls(void);
void aos__rpc_unlock_calls(void);
/* pe's RPC area, attached on first use. */
int aos__rpc_peer_area(int pe, struct aos__rpc_area **out);
/* Runs handler id for a call at depth `chain` of its chain (its calls are
 * at chain + 1; the handlers on this thread's stack are counted apart);
 * returns the reply length, at most reply_cap. */
size_t aos__rpc_run_handler(aos_rpc_id_t id, uint32_t chain, const aos_rpc_info_t *info,
                            const void *args, size_t args_len, void *reply, size_t reply_cap);

#endif
