/* The UCX transport's shared state (UCP: one context and one worker per PE,
 * an endpoint per off-node peer). Files: ucx.c (start/stop and the table),
 * rma.c (put/get/blocks/atomics/ordering), keys.c (memory registration and
 * remote keys), am.c (active messages: wakes, signals, the core's
 * messages, large puts), ack.c (flushes as a request the peer answers),
 * coalesce.c (small puts, posted atomics and
 * streamed core messages to one peer sent as one message), thread.c (the
 * progress thread, polling or asleep on the worker's event fd), fds.c
 * (UCX's descriptors made close-on-exec).
 *
 * Thread safety: the worker runs in UCS_THREAD_MODE_MULTI, so any thread may
 * call UCP; aos's own per-peer bookkeeping is under `lock`, except the
 * `unflushed` hints and the numbers of flushes by request (ack.c), which
 * are atomics. UCX completion callbacks run inside whichever thread drives
 * the worker, maybe one holding a lock: they take none; they update
 * atomics and their own context's status, and free what they own (the
 * endpoint's error handler and the answer's handler end a flush by
 * request the same way). Message handlers, which run there too, do take
 * `lock` (a handler's messages are deferred under it, a put with
 * an event joins a batch), so no UCP call is made while holding `lock`:
 * UCP's worker lock is always taken first. The same holds for each peer's
 * coalescing lock. Core message handlers send only messages, deferred to
 * the next settle; they issue no puts, gets or atomics. */
#ifndef AOS_TRANSPORT_UCX_H
#define AOS_TRANSPORT_UCX_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <ucp/api/ucp.h>

#include "aos.h"

/* Events whose puts to one peer complete with its next flush. */
struct aos__ucx_batch {
    aos_event_t **ev;
    size_t count, cap;
};

/* What may be outstanding to a peer: puts (a later atomic, signal or
 * message flushes them first), or only posted atomics (quiet flushes them;
 * atomics need no order among themselves). */
#define AOS__UCX_PUTS 1u
#define AOS__UCX_POSTED 2u

/* Small operations to one peer waiting to leave as one message
 * (coalesce.c). */
struct aos__ucx_coalesce {
    pthread_mutex_t lock; /* buf and spare; never held across a UCP call */
    char *buf;            /* records, or NULL */
    char *spare;          /* a sent buffer kept for the next */
    uint32_t used;        /* bytes of records in buf: written under lock, read
                           * without it as a hint (atomic) */
    uint32_t issuing;     /* buffers taken from buf whose send is not yet issued
                           * to UCP (atomic) */
    int on;               /* this peer takes them (set at start) */
};

struct aos__ucx_peer {
    ucp_ep_h ep;                /* NULL for PEs of my node (shared memory serves them) */
    uint64_t base;              /* address of the peer's arena in its process */
    ucp_rkey_h fixed;           /* its arena's fixed part [0, heap_off) */
    ucp_rkey_h *granules;       /* its granules' keys, unpacked on first use */
    uint32_t unflushed;         /* AOS__UCX_* bits: what may be outstanding (atomic) */
    uint32_t flushes_in_flight; /* aos__ucx_flush_peer calls not yet done (atomic) */
    int target_applies;         /* its CPU applies my writes and rings its own bell
                                 * (lanes.c): no wake messages; set at start */
    int ordered;                /* it applies my operations in issue order
                                 * (lanes.c): no flush to order them; set at start */
    int put_messages;           /* large puts go to it as messages (am.c); set at start */
    int acks;                   /* a flush of it is a request it answers (ack.c); set
                                 * at start, cleared under lock as the transport
                                 * stops (read under lock by settle) */
    uint64_t ack_asked;         /* the last answer asked of it (atomic) */
    uint64_t ack_heard;         /* the highest answer it sent me (atomic) */
    uint64_t ack_owed;          /* the highest answer it asked of me (atomic) */
    uint64_t ack_sent;          /* the highest answer I sent it (atomic) */
    uint64_t ack_wait_seq;      /* the number settle's flush of it waits for; 0:
                                 * none (atomic) */
    void *ack_wait_ctx;         /* that flush's context, written before the number
                                 * (atomic) */
    /* Under lock: */
    struct aos__ucx_batch waiting; /* events of puts not yet covered by a flush */
    int flushing;               /* a flush for an earlier batch is under way */
    uint64_t wake_lo, wake_hi;  /* range written since the last wake; lo == hi: none */
    struct aos__ucx_coalesce co;
};

struct aos__ucx {
    ucp_context_h context;
    ucp_worker_h worker;
    int sleep_on;                  /* what the progress thread sleeps on:
                                    * AOS__UCX_SLEEP_* (sleep.c) */
    int efd;                       /* the worker's event descriptor (..._WORKER) */
    int wake_fd;                   /* an eventfd that ends that sleep (..._IFACES) */
    struct pollfd *sleep_fds;      /* wake_fd, then the interfaces' event sets */
    size_t sleep_nfds;
    struct aos__ucx_peer *peers;   /* npes entries */
    pthread_mutex_t lock;
    int pending;                   /* peers with a wake to send, or deferred messages:
                                    * written under lock, read without as a hint
                                    * (relaxed atomics) */
    int batched;                   /* peers with a batch waiting: as pending */
    uint64_t batched_since;        /* when batched last became set (ns): as pending */
    ucp_mem_h fixed_mem;           /* my fixed part, registered at start */
    ucp_mem_h *granule_mem;        /* my granules, registered when exposed */
    size_t granules;
    pthread_mutex_t expose_lock;   /* registering my granules */
    pthread_mutex_t key_lock;      /* unpacking peers' granule keys */
    uint32_t replies_in_flight;    /* atomics and gets with events whose UCP callback has
                                    * not yet completed them (atomic) */
    uint32_t hellos;               /* HELLO messages received, at start-up */
    uint32_t coalesced;            /* some peer's coalescing buffer may hold records
                                    * (atomic) */
    size_t put_fragment;           /* bytes of a put per PUT_DATA message; 0: none
                                    * (am.c), set at start */
    int flush_covers_messages;     /* a flush of a TCP endpoint waits for the target
                                    * after a message too (UCX 1.12 on); set at start */
    uint32_t acks_due;             /* a peer asked for an answer not yet sent (atomic) */
    uint64_t *askers;              /* a bit per peer that did so (atomic words;
                                    * ack.c), allocated at start */
};

extern struct aos__ucx aos__ucx;

/* Maps a UCX status to an aos one, saying on stderr what failed. */
int aos__ucx_status(ucs_status_t st, const char *what, int pe);
/* The aos status of a UCX failure of an operation to pe (pe < 0: none),
 * saying nothing: AOS_ERR_PE_DIED once pe is lost or its endpoint failed
 * (its connection reset or timed out: how UCX over TCP sees a process that
 * ended, before the endpoint's error handler has run), else
 * AOS_ERR_NO_MEMORY or AOS_ERR_NETWORK. */
int aos__ucx_failure(ucs_status_t st, int pe);
/* An operation ev counts, to pe, ended with st: ev completes, failed with
 * aos__ucx_failure's status unless st is UCS_OK. */
void aos__ucx_event_done(aos_event_t *ev, ucs_status_t st, int pe);
/* One turn of a wait that drives the worker: progresses it, and after 64
 * idle turns in a row (*idle counts them) yields the CPU each turn, which
 * the peer this waits for may need. */
void aos__ucx_progress_idle(unsigned *idle);
/* One turn of the worker, on any thread, after sending every peer's
 * coalesced records; rings my bell when it applied something (a peer's
 * write may end a wait of mine). Non-zero when it did. */
unsigned aos__ucx_drive_once(void);
/* An operation was issued and left in flight or completed at issue,
 * without a turn of the worker: every few such, and whenever this
 * thread's last turn taken here is 100 microseconds old, takes one anyway,
 * so that a program issuing a stream drives the worker itself (its
 * acknowledgements, peers' requests); and each counts as driving it
 * (aos__ucx_driven), so that the progress thread stands aside while the
 * issues follow one another (thread.c). */
void aos__ucx_issued(void);
/* Waits for a request (NULL: done already, aos__ucx_issued), driving the
 * worker, and frees it. */
int aos__ucx_wait(ucs_status_ptr_t req, const char *what, int pe);
/* Flushes every earlier put and posted atomic to pe: applied there on
 * return (UCP's flush, or ack.c's request where pe has `acks`). Replies
 * of gets and fetching atomics may still be on their way. */
int aos__ucx_flush_peer(int pe);
/* Flushes pe when puts or posted atomics to it may be outstanding, so what
 * follows is applied after them. */
int aos__ucx_order_after_puts(int pe);

/* rma.c: the table's data operations (transport.h) */
int aos__ucx_put(int pe, uint64_t off, const void *src, size_t len, aos_event_t *ev);
int aos__ucx_put_held(int pe, uint64_t off, const void *src, size_t len, aos_event_t *ev);
int aos__ucx_get(void *dst, int pe, uint64_t off, size_t len, aos_event_t *ev);
int aos__ucx_put_block(int pe, uint64_t off, const void *src, const aos_block_t *b,
                       aos_event_t *ev);
int aos__ucx_get_block(void *dst, int pe, uint64_t off, const aos_block_t *b, aos_event_t *ev);
int aos__ucx_signal_store(int pe, uint64_t off, uint64_t value);
int aos__ucx_put_signal(int pe, uint64_t off, const void *src, size_t len, uint64_t sig_off,
                        uint64_t value);
/* The PUT_SIGNAL message: len bytes of src for [off, off + len) at pe. */
int aos__ucx_am_put_signal(int pe, uint64_t off, const void *src, size_t len, uint64_t sig_off,
                           uint64_t value);
int aos__ucx_amo(int pe, uint64_t off, aos_amo_op_t op, unsigned width, uint64_t operand,
                 uint64_t compare, void *result, aos_event_t *ev);
int aos__ucx_fence(int pe);
int aos__ucx_fence_all(void);
int aos__ucx_quiet(void);

/* keys.c */
int aos__ucx_keys_start(void *packed_fixed[1], size_t *packed_len);
void aos__ucx_keys_stop(void);
int aos__ucx_expose(uint64_t off, uint64_t len);
/* The key and remote address for [off, off + *len) at pe; shortens *len to
 * what that key covers. AOS_ERR_BOUNDS when pe has not registered it. */
int aos__ucx_remote(int pe, uint64_t off, size_t *len, ucp_rkey_h *rkey, uint64_t *raddr);

/* am.c */
int aos__ucx_am_start(void);
/* Sends one message to pe: a kind with two words, and a payload. */
enum aos__ucx_am_kind {
    AOS__UCX_WAKE,
    AOS__UCX_SIGNAL,
    AOS__UCX_PUT_SIGNAL,
    AOS__UCX_CORE,
    AOS__UCX_COALESCED,
    AOS__UCX_PUT_DATA,
    AOS__UCX_ACK_ASK, /* answer a once every earlier message is handled (ack.c) */
    AOS__UCX_ACK,     /* the answer a */
    AOS__UCX_HELLO    /* start-up: counted in U.hellos (ucx.c) */
};
int aos__ucx_am(int pe, enum aos__ucx_am_kind kind, uint64_t a, uint64_t b, const void *payload,
                size_t len);
/* The COALESCED message with len bytes of records at buf, on pe's endpoint
 * as it is (the buffer leaving is what aos__ucx_ep waits for): *issuing
 * drops by one once UCP has it in its stream, before local completion. */
int aos__ucx_am_coalesced(int pe, const void *buf, size_t len, uint32_t *issuing);
/* Puts of at least this many bytes to a peer with put_messages go as
 * PUT_DATA messages. */
#define AOS__UCX_PUT_MESSAGE_MIN 8192u
/* The size of a PUT_DATA message's data, from UCX's TCP segment sizes in
 * the environment (set while the worker opens its interfaces); 0 where
 * segments are too small for messages to beat UCP's put. */
size_t aos__ucx_put_fragment(void);
/* A put of len bytes at off of pe's arena as PUT_DATA messages on ep, sent
 * from src without a copy (UCP's zero-copy eager messages). Held, it
 * returns once they are issued, and the next flush of pe waits for them;
 * otherwise once src may be reused. */
int aos__ucx_am_put(ucp_ep_h ep, int pe, uint64_t off, const char *src, size_t len, int held);
/* Non-zero on a thread running a core message handler. */
int aos__ucx_in_handler(void);
/* The table's am_send: a core message to pe, after my earlier puts to it.
 * Sent by the next settle when called from inside a core handler. With
 * AOS__AM_LATER, a record where pe takes them (coalesce.c). */
int aos__ucx_core_am(int pe, unsigned id, const void *payload, size_t len, unsigned flags);
/* Runs the core handler of a message from src (a CORE message, or a record
 * of a COALESCED one), as a handler (aos__ucx_in_handler). */
void aos__ucx_core_dispatch(int src, unsigned id, const void *payload, size_t len);
/* Sends the messages core handlers deferred, outside a handler; for waits
 * that drive the worker without settling, so that a handler's answer does
 * not wait for a settle that the program, blocked in such a wait on the
 * peer that expects the answer, would never reach. */
void aos__ucx_send_deferred(void);
/* Frees deferred messages never sent (stop). */
void aos__ucx_drop_deferred(void);
/* [lo, hi) written at pe is visible there: wakes pe's sleepers watching it,
 * with a message unless pe's own progress rings for its writes (lanes.c). */
int aos__ucx_wake_now(int pe, uint64_t lo, uint64_t hi);
/* Records [lo, hi) written at pe by an operation that completes later: the
 * wake goes after the flush that completes it (none where pe rings itself). */
void aos__ucx_wake_later(int pe, uint64_t lo, uint64_t hi);
/* ev completes with the next flush of pe; *rc AOS_OK or AOS_ERR_NO_MEMORY. */
void aos__ucx_batch_add(int pe, aos_event_t *ev, int *rc);
/* The events waiting for pe's next flush, taken by a flush about to start
 * (they complete with it), and their completion. */
struct aos__ucx_batch aos__ucx_batch_take(int pe);
void aos__ucx_batch_complete(struct aos__ucx_batch *b, ucs_status_t st, int pe);
/* Wakes this PE's sleepers watching [lo, hi) of my arena, which a peer's
 * operation just wrote (the writer's half of core/wait.c's protocol). */
void aos__ucx_ring(uint64_t lo, uint64_t hi);
/* Wakes every sleeper of this PE (something arrived). */
void aos__ucx_ring_all(void);
/* Flushes and wakes what wake_later and put batches left. A flush for
 * batches alone is started only when SETTLE_EAGER (a thread waits for or
 * tests events, quiet, the progress thread) or when a batch has waited
 * AOS__UCX_BATCH_LAZY_NS: a thread that only waits for words (a ping-pong)
 * then sends no flush of its own per round. SETTLE_WAIT: returns once
 * every flush it started is done. */
#define AOS__UCX_SETTLE_EAGER 1u
#define AOS__UCX_SETTLE_WAIT 2u
#define AOS__UCX_BATCH_LAZY_NS 1000000u
void aos__ucx_settle(unsigned how);

/* coalesce.c. Where a peer takes them (co.on: its operations travel in one
 * ordered TCP stream and its CPU applies them, lanes.c), small puts (with
 * events; blocking ones where a flush is a request, ack.c, which leaves
 * with them), posted atomics and core messages sent with AOS__AM_LATER (and
 * those handlers deferred) are copied into its buffer instead of issued,
 * and the buffer leaves as one message before anything else is issued to
 * that peer, so the stream still carries everything in issue order. */
void aos__ucx_coalesce_start(int pe); /* co.on is set once connected */
void aos__ucx_coalesce_stop(int pe);
/* Each returns AOS_ERR_AGAIN when the operation is not one to coalesce
 * (the caller issues it itself; of posted atomics, only add, and, or and
 * xor are), else AOS_OK once it is in the buffer or the error of sending
 * a full one. */
/* `caller_sends` as for aos__ucx_coalesce_core. */
int aos__ucx_coalesce_put(int pe, uint64_t off, const void *src, size_t len, int caller_sends);
int aos__ucx_coalesce_amo(int pe, uint64_t off, aos_amo_op_t op, unsigned width,
                          uint64_t operand);
/* A core message of at most 4 KiB (aos__ucx_core_am with AOS__AM_LATER,
 * and the messages handlers deferred); `caller_sends`: the caller sends
 * pe's buffer itself before it returns (aos__ucx_coalesce_send). */
int aos__ucx_coalesce_core(int pe, unsigned id, const void *payload, size_t len,
                           int caller_sends);
/* pe's endpoint, once the records coalesced for pe so far are issued on it
 * (by this thread or another): every operation to pe is issued through it.
 * A failed send reports itself; the operation issued next on the endpoint
 * fails too. */
ucp_ep_h aos__ucx_ep(int pe);
/* Sends pe's records, if any (after any earlier buffer of pe). */
int aos__ucx_coalesce_send(int pe);
/* Sends every peer's records (each turn of the worker and each settle:
 * they do not wait for long). */
void aos__ucx_coalesce_send_all(void);
/* The COALESCED message's handler: applies the records from src in order
 * to my arena, ringing for the range they wrote, and hands the core
 * messages among them to their handlers. */
void aos__ucx_coalesced_apply(int src, const char *data, size_t len);

/* The request `seq` of ack.c as a record after pe's records, sent with
 * them; AOS_ERR_AGAIN where pe takes no records. */
int aos__ucx_coalesce_ask(int pe, uint64_t seq);

/* ack.c: flushes of peers with `acks`. The flush itself: returns once pe
 * has applied every operation issued to it before the call, or failed
 * (UCS_ERR_CONNECTION_RESET once pe is lost). */
ucs_status_t aos__ucx_ack_flush(int pe);
/* A flush of pe started by settle (at most one per peer at a time): returns
 * once the request is sent; aos__ucx_flush_finished(ctx, status) runs once
 * an answer at least its number is handled (on whichever thread handles
 * it; before this returns if one was already), with a failure if the
 * request fails, or with UCS_ERR_CONNECTION_RESET from the endpoint's
 * error handler if pe is lost. */
void aos__ucx_ack_start(int pe, void *ctx);
/* am.c: the end of settle's flush ctx, from ack.c. */
void aos__ucx_flush_finished(void *ctx, ucs_status_t st);
/* pe is lost: a flush of it under way ends (the endpoint's error handler). */
void aos__ucx_ack_lost(int pe);
/* Handlers: src asked for the answer seq (sent by the next ack_send), and
 * src sent it. */
void aos__ucx_ack_asked(int src, uint64_t seq);
void aos__ucx_ack_heard(int src, uint64_t seq);
/* Sends the answers peers asked for (after each turn of the worker);
 * nothing inside a handler. */
void aos__ucx_ack_send(void);

/* printed.c: calls line_fn(line, arg) for each line print writes about obj;
 * 0 when nothing could be printed. */
int aos__ucx_each_printed_line(void (*print)(void *obj, FILE *f), void *obj,
                               void (*line_fn)(const char *line, void *arg), void *arg);

/* lanes.c: what ep's lanes guarantee, AOS__UCX_* bits (none when it cannot
 * tell). APPLIED_BY_CPU: every lane that carries puts or atomics needs the
 * target's CPU (TCP, or none: messages emulate them), so the target's own
 * progress sees every write. ORDERED: one TCP lane, so the target applies
 * my operations in the order I issue them. */
#define AOS__UCX_APPLIED_BY_CPU 1u
#define AOS__UCX_ORDERED 2u
#define AOS__UCX_ALL_TCP 4u /* every lane is TCP */
unsigned aos__ucx_lane_traits(ucp_ep_h ep);

/* fds.c: the descriptors open before the transport started, then every
 * later one marked close-on-exec (UCX opens its own without). */
struct aos__ucx_fds {
    int *fd;
    size_t count, cap;
    int failed; /* not known: mark none */
};
void aos__ucx_fds_note(struct aos__ucx_fds *before);
/* Whether a connection waits to be accepted on a listening socket opened
 * since `before` (UCX's own thread accepts it when it runs). */
int aos__ucx_fds_accepting(const struct aos__ucx_fds *before);
void aos__ucx_fds_cloexec_new(struct aos__ucx_fds *before);
/* The epoll instances opened since `before` that another one watches: the
 * interfaces' event sets, in *sets. 0 (and *sets empty) when there is
 * none or /proc cannot tell. */
int aos__ucx_fds_event_sets(const struct aos__ucx_fds *before, struct aos__ucx_fds *sets);

/* sleep.c: what the progress thread sleeps on between turns. */
enum {
    AOS__UCX_SLEEP_DOZE,   /* a futex, for pauses that grow (thread.c) */
    AOS__UCX_SLEEP_WORKER, /* the worker's event descriptor */
    AOS__UCX_SLEEP_IFACES, /* the TCP interfaces' event sets */
};
/* Whether every transport ctx found is TCP or stays within this host. */
int aos__ucx_context_tcp_only(ucp_context_h ctx);
/* Once the worker exists (its interfaces opened since `before`): the
 * descriptors for U.sleep_on, or dozing when none is found. */
int aos__ucx_sleep_open(const struct aos__ucx_fds *before);
void aos__ucx_sleep_close(void);
/* Each peer's lane traits, once its endpoint exists. */
void aos__ucx_sleep_peer(int pe, unsigned traits);
/* Before a sleep: 1 to sleep, 0 when events came in meanwhile (progress
 * again), -1 on a failure. */
int aos__ucx_sleep_arm(void);
/* Sleeps at most ms until something arrives or ..._interrupt; poll()'s
 * result. */
int aos__ucx_sleep_poll(int ms);
void aos__ucx_sleep_interrupt(void);

/* thread.c */
int aos__ucx_thread_start(void);
void aos__ucx_thread_stop(void);
/* A program thread drove the worker or issued an operation just now (no-op
 * on the progress thread): the progress thread stands aside while that
 * goes on. */
void aos__ucx_driven(void);
/* Around a turn of the worker (aos__ucx_drive_once) and the issue of a
 * put's or get's data (rma.c, am.c): a program thread inside one drives
 * the worker, however long the call takes (no-op on the progress thread). */
void aos__ucx_enter(void);
void aos__ucx_leave(void);
/* Records were coalesced while none waited: a progress thread asleep for
 * long sends them soon (thread.c). */
void aos__ucx_thread_nudge(void);
/* The table's sleep_begin/sleep_end: the progress thread serves while some
 * program thread sleeps. */
void aos__ucx_sleep_begin(void);
void aos__ucx_sleep_end(void);

#endif
