/* Active messages over UCP, one UCP handler for all of aos: a fixed header
 * (sender, kind, two words) and a payload. Kinds:
 *  WAKE   [a, b) of my arena was written: ring my bell for that range;
 *  SIGNAL store b into the word at a (a seq_cst exchange, as shm does), ring;
 *  PUT_SIGNAL  the payload is an offset and data: copy the data there,
 *         then as SIGNAL;
 *  CORE   hand the payload to the core's handler a (core/am.h);
 *  COALESCED  the payload is records: puts, atomics and core messages
 *         (coalesce.c);
 *  PUT_DATA  the payload is data for my arena at a: a piece of a large
 *         put (below);
 *  ACK_ASK, ACK  a flush's request a, and its answer (ack.c).
 * Messages are sent eagerly (never by rendezvous), so the data is in hand
 * when the handler runs, on whichever thread drives my worker. A core
 * handler that sends (a reply) runs inside UCP's progress, where waiting
 * for a send could re-enter it: its messages are copied and sent by the
 * next settle instead. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arch/atomics.h"
#include "arch/cpu.h"
#include "arch/sanitizer.h"
#include "core/am.h"
#include "core/runtime.h"
#include "core/tls.h"
#include "core/wait.h"
#include "transport/ucx/ucx.h"

#define U aos__ucx
#define AM_ID 7 /* our one UCP handler id */

struct am_header {
    uint32_t src;
    uint32_t kind;
    uint64_t a, b;
};

/* Core messages sent by a handler: sent by settle, in order. */
struct deferred {
    int pe;
    unsigned id;
    size_t len;
    struct deferred *next;
    char payload[];
};
static struct deferred *deferred_head, **deferred_tail = &deferred_head; /* under lock */

/* Per thread: inside a core handler (its sends are deferred). */
static AOS__TLS int in_handler;

int aos__ucx_in_handler(void)
{
    return in_handler;
}

void aos__ucx_ring(uint64_t lo, uint64_t hi)
{
    aos__bell_ring_applied(lo, hi); /* the writer's half of the sleep protocol */
}

void aos__ucx_ring_all(void)
{
    aos__ucx_ring(0, UINT64_MAX);
}

/* Work for settle appeared. Nobody is woken for it: the issuing thread
 * settles at its next progress, fence, quiet or wait, and the progress
 * thread within its poll timeout (a signal per posted operation cost more
 * than the operation). Under lock. */
static void flag_pending(void)
{
    if (!aos__load_relaxed(&U.pending))
        aos__store_relaxed(&U.pending, 1);
}

/* The same for a batch, whose lazy time starts now unless one already
 * waits. Under lock. */
static void flag_batched(void)
{
    if (!aos__load_relaxed(&U.batched)) {
        aos__store_relaxed(&U.batched_since, aos__now_ns());
        aos__store_relaxed(&U.batched, 1);
    }
}

/* Events of this many puts make a batch due at once: it is not left to
 * grow while a program issues without ever waiting for them. */
#define BATCH_DUE_COUNT 1024

/* The word at off of my arena, 8-byte aligned: store v as SIGNAL does. */
static void store_signal(uint64_t off, uint64_t v)
{
    /* seq_cst exchange: the waiter's acquire load of the word sees what the
     * sender put before (flushed before this message, or copied just now
     * from it), and as a full barrier it orders the sleeper check after it. */
    (void)aos__exchange_seq_cst((uint64_t *)(void *)(aos__rt.my_base + off), v);
    aos__fence_after_rmw();
}

static int word_ok(uint64_t off)
{
    return off % 8 == 0 && off <= aos__rt.arena_size - 8;
}

/* PUT_SIGNAL: [u64 offset][data] for my arena, then the signal (a, b). */
static void put_signal(const struct am_header *h, const char *data, size_t len)
{
    uint64_t at;
    if (len < sizeof at || !word_ok(h->a))
        return;
    memcpy(&at, data, sizeof at);
    size_t n = len - sizeof at;
    if (at > aos__rt.arena_size || n > aos__rt.arena_size - at)
        return;
    memcpy(aos__rt.my_base + at, data + sizeof at, n);
    store_signal(h->a, h->b);
    uint64_t lo = at < h->a ? at : h->a, hi = at + n > h->a + 8 ? at + n : h->a + 8;
    aos__bell_ring(aos__my_bell(), lo, hi, 1);
}

/* PUT_DATA: a put's data for my arena at a. */
static void put_data(const struct am_header *h, const char *data, size_t len)
{
    if (h->a > aos__rt.arena_size || len > aos__rt.arena_size - h->a)
        return;
    aos__copy_remote_write(aos__rt.my_base + h->a, data, len);
    aos__bell_ring(aos__my_bell(), h->a, h->a + len, 1);
}

static ucs_status_t on_message(void *arg, const void *header, size_t header_len, void *data,
                               size_t len, const ucp_am_recv_param_t *param)
{
    (void)arg;
    struct am_header h;
    /* Every message is sent eager (send_on, aos__ucx_am_put): its data is
     * here, not left behind a rendezvous. */
    if (header_len != sizeof h || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV))
        return UCS_OK;
    memcpy(&h, header, sizeof h);
    if (h.src >= (uint32_t)aos__rt.npes)
        return UCS_OK;
    switch (h.kind) {
    case AOS__UCX_WAKE:
        if (h.a < h.b)
            aos__ucx_ring(h.a, h.b);
        break;
    case AOS__UCX_SIGNAL:
        if (word_ok(h.a)) {
            store_signal(h.a, h.b);
            aos__bell_ring(aos__my_bell(), h.a, h.a + 8, 1);
        }
        break;
    case AOS__UCX_PUT_SIGNAL: put_signal(&h, data, len); break;
    case AOS__UCX_COALESCED: aos__ucx_coalesced_apply((int)h.src, data, len); break;
    case AOS__UCX_PUT_DATA: put_data(&h, data, len); break;
    case AOS__UCX_ACK_ASK: aos__ucx_ack_asked((int)h.src, h.a); break;
    case AOS__UCX_ACK: aos__ucx_ack_heard((int)h.src, h.a); break;
    /* Relaxed: read by the thread that drives the worker, which runs this. */
    case AOS__UCX_HELLO: (void)aos__fetch_add_relaxed(&U.hellos, 1); break;
    case AOS__UCX_CORE: aos__ucx_core_dispatch((int)h.src, (unsigned)h.a, data, len); break;
    default: break;
    }
    return UCS_OK;
}

int aos__ucx_am_start(void)
{
    ucp_am_handler_param_t p = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                      UCP_AM_HANDLER_PARAM_FIELD_ARG,
        .id = AM_ID,
        .cb = on_message,
        .arg = NULL,
    };
    return aos__ucx_status(ucp_worker_set_am_recv_handler(U.worker, &p),
                           "setting the message handler", aos__rt.me);
}

/* One message on ep; *issuing (when given) drops once UCP has it. */
static int send_on(ucp_ep_h ep, int pe, enum aos__ucx_am_kind kind, uint64_t a, uint64_t b,
                   const void *payload, size_t len, uint32_t *issuing)
{
    struct am_header h = {.src = (uint32_t)aos__rt.me, .kind = kind, .a = a, .b = b};
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                             .flags = UCP_AM_SEND_FLAG_EAGER};
    ucs_status_ptr_t req = ucp_am_send_nbx(ep, AM_ID, &h, sizeof h, payload, len, &p);
    if (issuing != NULL) /* release: pairs with the acquire in coalesce.c's send_now */
        (void)aos__fetch_sub_release(issuing, 1);
    /* Waiting for local completion: h lives on this stack, and the caller
     * may reuse payload when this returns. Eager sends of a few words
     * complete at once. */
    return aos__ucx_wait(req, "sending a message", pe);
}

int aos__ucx_am(int pe, enum aos__ucx_am_kind kind, uint64_t a, uint64_t b, const void *payload,
                size_t len)
{
    return send_on(aos__ucx_ep(pe), pe, kind, a, b, payload, len, NULL);
}

int aos__ucx_am_coalesced(int pe, const void *buf, size_t len, uint32_t *issuing)
{
    return send_on(U.peers[pe].ep, pe, AOS__UCX_COALESCED, 0, 0, buf, len, issuing);
}

/* Puts as messages. UCP puts over TCP by copying the data into a segment
 * and sending that, and the target acknowledges each put. A message sent
 * with UCP's zero-copy eager protocol goes from the source itself, and its
 * handler copies it into place as UCP's put handler would; the flush that
 * completes the put covers it as any message (ack.c's request, or TCP's,
 * which after anything was sent waits for the target's answer, both
 * answered after the message in the stream). Only where the target's CPU
 * applies puts anyway, on one ordered stream (lanes.c), so that the
 * messages keep the put's place among the operations to that peer.
 *
 * A message must fit one TCP segment whole: UCP splits a larger one and
 * the target joins the pieces in a buffer of its own, one copy more. Half
 * a segment, up to PUT_FRAGMENT_MAX: with 256 KiB segments, 128 KiB
 * messages went faster than segment-sized ones, the target copying one
 * into place while the next arrives. */
#define PUT_FRAGMENT_MAX (128u << 10)
#define PUT_FRAGMENT_MIN (16u << 10)

/* A size as UCX writes it: decimal digits, then nothing or a unit (b, k,
 * m, g, any case; kb, mb, gb too); 0 when it is not one or overflows. */
static size_t ucx_size(const char *s)
{
    if (s == NULL || *s < '0' || *s > '9') /* strtoull would take a sign, spaces */
        return 0;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE)
        return 0;
    int shift = 0;
    if (*end != '\0') {
        switch (*end | 0x20) { /* ASCII lower case */
        case 'b': break;
        case 'k': shift = 10; break;
        case 'm': shift = 20; break;
        case 'g': shift = 30; break;
        default: return 0;
        }
        if (shift != 0 && (end[1] | 0x20) == 'b')
            end++;
        if (end[1] != '\0')
            return 0;
    }
    return v > (SIZE_MAX >> shift) ? 0 : (size_t)v << shift;
}

size_t aos__ucx_put_fragment(void)
{
    size_t tx = ucx_size(getenv("UCX_TCP_TX_SEG_SIZE"));
    size_t rx = ucx_size(getenv("UCX_TCP_RX_SEG_SIZE"));
    size_t seg = tx < rx ? tx : rx;
    size_t frag = seg / 2 < PUT_FRAGMENT_MAX ? seg / 2 : PUT_FRAGMENT_MAX;
    return frag >= PUT_FRAGMENT_MIN ? frag : 0;
}

/* The PUT_DATA messages of one put that is waited for: how many are still
 * in flight, and the first failure. */
struct put_wait {
    uint32_t left;
    ucs_status_t status;
};

/* One PUT_DATA message in flight: UCP reads its header until it is sent. */
struct put_message {
    struct am_header h;
    struct put_wait *wait; /* NULL: held, nobody waits */
    int issued;            /* written last by the issuing thread */
};

static void put_message_sent(void *request, ucs_status_t st, void *user_data)
{
    struct put_message *m = user_data;
    (void)aos__load_acquire(&m->issued); /* pairs with the release in aos__ucx_am_put */
    struct put_wait *w = m->wait;
    ucp_request_free(request);
    free(m);
    if (w == NULL)
        return; /* held: a failure shows in the flush that completes the put */
    /* UCP runs callbacks under its worker lock: one at a time. */
    if (st != UCS_OK && w->status == UCS_OK)
        w->status = st;
    (void)aos__fetch_sub_release(&w->left, 1); /* pairs with the acquire in aos__ucx_am_put */
}

int aos__ucx_am_put(ucp_ep_h ep, int pe, uint64_t off, const char *src, size_t len, int held)
{
    struct put_wait w = {.left = 0, .status = UCS_OK};
    int rc = AOS_OK;
    for (size_t at = 0; at < len && rc == AOS_OK;) {
        size_t n = len - at < U.put_fragment ? len - at : U.put_fragment;
        struct put_message *m = malloc(sizeof *m);
        if (m == NULL) {
            rc = AOS_ERR_NO_MEMORY;
            break;
        }
        *m = (struct put_message){
            .h = {.src = (uint32_t)aos__rt.me, .kind = AOS__UCX_PUT_DATA, .a = off + at},
            .wait = held ? NULL : &w,
        };
        ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                                                 UCP_OP_ATTR_FIELD_USER_DATA |
                                                 UCP_OP_ATTR_FIELD_FLAGS,
                                 .flags = UCP_AM_SEND_FLAG_EAGER,
                                 .cb.send = put_message_sent,
                                 .user_data = m};
        /* Counted before the callback can run, on any thread. Relaxed: the
         * count is only read by this thread, after all its increments, and
         * read-modify-writes of it are never lost. */
        if (!held)
            (void)aos__fetch_add_relaxed(&w.left, 1);
        /* Release: the callback, maybe on another thread, sees m whole. */
        aos__store_release(&m->issued, 1); /* pairs with put_message_sent's acquire */
        aos__ucx_enter();
        ucs_status_ptr_t req = ucp_am_send_nbx(ep, AM_ID, &m->h, sizeof m->h, src + at, n, &p);
        aos__ucx_leave();
        if (req == NULL || UCS_PTR_IS_ERR(req)) { /* no callback comes */
            if (!held) /* relaxed: as the increment */
                (void)aos__fetch_sub_relaxed(&w.left, 1);
            free(m);
            if (req != NULL)
                rc = aos__ucx_status(UCS_PTR_STATUS(req), "put", pe);
            else
                aos__ucx_issued();
        } else {
            /* A turn per message in flight, as for a put's requests (rma.c). */
            (void)aos__ucx_drive_once();
        }
        at += n;
    }
    /* Even after a failure: the messages issued read src. */
    unsigned idle = 0;
    while (aos__load_acquire(&w.left) != 0) /* pairs with the release in put_message_sent */
        aos__ucx_progress_idle(&idle);
    if (rc == AOS_OK && w.status != UCS_OK)
        rc = aos__ucx_status(w.status, "put", pe);
    return rc;
}

/* Up to this many bytes of a put with a signal are copied after their
 * offset into one buffer: a contiguous payload takes UCP's short-message
 * path, where two pieces take the general one. */
#define PUT_SIGNAL_COPY_MAX 256

int aos__ucx_am_put_signal(int pe, uint64_t off, const void *src, size_t len, uint64_t sig_off,
                           uint64_t value)
{
    if (len <= PUT_SIGNAL_COPY_MAX) {
        unsigned char buf[sizeof off + PUT_SIGNAL_COPY_MAX];
        memcpy(buf, &off, sizeof off);
        if (len != 0)
            memcpy(buf + sizeof off, src, len);
        return aos__ucx_am(pe, AOS__UCX_PUT_SIGNAL, sig_off, value, buf, sizeof off + len);
    }
    struct am_header h = {
        .src = (uint32_t)aos__rt.me, .kind = AOS__UCX_PUT_SIGNAL, .a = sig_off, .b = value};
    /* The payload in two pieces (the offset, the caller's data): no copy. */
    ucp_dt_iov_t iov[2] = {{.buffer = &off, .length = sizeof off},
                           {.buffer = (void *)(uintptr_t)src, .length = len}};
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_DATATYPE,
                             .flags = UCP_AM_SEND_FLAG_EAGER,
                             .datatype = ucp_dt_make_iov()};
    /* Waiting for local completion, as aos__ucx_am does: h, iov and off
     * live on this stack, and the caller may reuse src on return. */
    return aos__ucx_wait(ucp_am_send_nbx(aos__ucx_ep(pe), AM_ID, &h, sizeof h, iov, 2, &p),
                         "sending a message", pe);
}

void aos__ucx_core_dispatch(int src, unsigned id, const void *payload, size_t len)
{
    in_handler++;
    aos__am_dispatch(src, id, payload, len);
    in_handler--;
}

/* How core_am sends a message (not from a handler). */
enum core_send {
    CORE_MESSAGE,      /* a CORE message of its own */
    CORE_RECORD_HELD,  /* a record where pe takes them, left for the buffer */
    CORE_RECORD_MINE,  /* a record where pe takes them, which the caller sends */
};

static int core_am(int pe, unsigned id, const void *payload, size_t len, enum core_send how)
{
    /* Delivered after my earlier puts to pe (transport.h). */
    int rc = aos__ucx_order_after_puts(pe);
    if (rc != AOS_OK)
        return rc;
    if (how != CORE_MESSAGE) {
        rc = aos__ucx_coalesce_core(pe, id, payload, len, how == CORE_RECORD_MINE);
        if (rc != AOS_ERR_AGAIN)
            return rc;
    }
    return aos__ucx_am(pe, AOS__UCX_CORE, id, 0, payload, len);
}

int aos__ucx_core_am(int pe, unsigned id, const void *payload, size_t len, unsigned flags)
{
    if (in_handler) {
        struct deferred *d = malloc(sizeof *d + len);
        if (d == NULL)
            return AOS_ERR_NO_MEMORY;
        *d = (struct deferred){.pe = pe, .id = id, .len = len};
        if (len != 0)
            memcpy(d->payload, payload, len);
        pthread_mutex_lock(&U.lock);
        *deferred_tail = d;
        deferred_tail = &d->next;
        flag_pending();
        pthread_mutex_unlock(&U.lock);
        return AOS_OK;
    }
    return core_am(pe, id, payload, len,
                   (flags & AOS__AM_LATER) ? CORE_RECORD_HELD : CORE_MESSAGE);
}

/* Sends what handlers deferred, oldest first; one at a time, so that a
 * handler run while this one is sent may append more. Not again on this
 * thread while it sends one (its wait drives the worker, which comes back
 * here): the next would overtake it. Where the peer takes records they
 * go as records, and leave together once the next message is for another
 * peer, or at the end: the answers to a message of many records are one
 * message back. */
static void send_deferred(void)
{
    static AOS__TLS int sending;
    if (sending)
        return;
    sending = 1;
    int held_pe = -1; /* the peer whose records this loop appended last */
    for (;;) {
        pthread_mutex_lock(&U.lock);
        struct deferred *d = deferred_head;
        if (d != NULL) {
            deferred_head = d->next;
            if (deferred_head == NULL)
                deferred_tail = &deferred_head;
        }
        pthread_mutex_unlock(&U.lock);
        if (d != NULL && d->pe == held_pe)
            held_pe = -1; /* its records leave with this one's */
        if (held_pe >= 0) /* fails only as the job ends, as the sends below */
            (void)aos__ucx_coalesce_send(held_pe);
        if (d == NULL)
            break;
        (void)core_am(d->pe, d->id, d->payload, d->len, CORE_RECORD_MINE);
        held_pe = d->pe;
        free(d);
    }
    sending = 0;
}

void aos__ucx_send_deferred(void)
{
    /* Relaxed: a hint (flag_pending sets it under the lock with the list). */
    if (!in_handler && aos__load_relaxed(&U.pending))
        send_deferred();
}

void aos__ucx_drop_deferred(void)
{
    pthread_mutex_lock(&U.lock);
    while (deferred_head != NULL) {
        struct deferred *d = deferred_head;
        deferred_head = d->next;
        free(d);
    }
    deferred_tail = &deferred_head;
    pthread_mutex_unlock(&U.lock);
}

/* ---- wakes after operations that complete later ------------------------- */

/* A flush under way for one peer: the events of its puts and the range to
 * wake once it is done. What ends it (UCX's callback, or for a flush by
 * request ack.c's claim: the answer's handler, the starter, the endpoint's
 * error handler) only marks it finished (lock-free push); settle does the
 * rest outside UCX. */
struct flush_ctx {
    int pe;
    int by_request; /* ack.c's (the peer's `acks`, read under the lock) */
    struct aos__ucx_batch batch;
    uint64_t lo, hi;
    struct flush_ctx *next;
    int issued; /* written last by the thread that starts the flush */
    ucs_status_t status; /* the flush's, written by flush_done */
};

static struct flush_ctx *finished; /* lock-free stack of finished flushes */

static void flush_done(void *request, ucs_status_t st, void *user_data);

void aos__ucx_flush_finished(void *ctx, ucs_status_t st)
{
    flush_done(NULL, st, ctx);
}

static void flush_done(void *request, ucs_status_t st, void *user_data)
{
    struct flush_ctx *c = user_data;
    if (request != NULL) /* a request freed earlier would get no callback */
        ucp_request_free(request);
    /* Acquire: pairs with the release in start_flushes. The callback may run
     * on another thread than the one that filled c, and UCX's own hand-over
     * is not something to lean on. */
    (void)aos__load_acquire(&c->issued);
    c->status = st; /* published by the release below */
    struct flush_ctx *head = aos__load_relaxed(&finished);
    do
        c->next = head;
    while (!__atomic_compare_exchange_n(&finished, &head, c, 1, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED)); /* pairs with settle's acquire */
}

int aos__ucx_wake_now(int pe, uint64_t lo, uint64_t hi)
{
    if (U.peers[pe].target_applies)
        return AOS_OK; /* its own progress rings (lanes.c) */
    return aos__ucx_am(pe, AOS__UCX_WAKE, lo, hi, NULL, 0);
}

void aos__ucx_wake_later(int pe, uint64_t lo, uint64_t hi)
{
    struct aos__ucx_peer *p = &U.peers[pe];
    if (p->target_applies)
        return; /* its own progress rings (lanes.c) */
    pthread_mutex_lock(&U.lock);
    if (p->wake_lo == p->wake_hi) {
        p->wake_lo = lo;
        p->wake_hi = hi;
    } else {
        if (lo < p->wake_lo)
            p->wake_lo = lo;
        if (hi > p->wake_hi)
            p->wake_hi = hi;
    }
    flag_pending();
    pthread_mutex_unlock(&U.lock);
}

void aos__ucx_batch_add(int pe, aos_event_t *ev, int *rc)
{
    struct aos__ucx_batch *b = &U.peers[pe].waiting;
    pthread_mutex_lock(&U.lock);
    if (b->count == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 16;
        aos_event_t **grown = realloc(b->ev, cap * sizeof *grown);
        if (grown == NULL) {
            *rc = AOS_ERR_NO_MEMORY;
            pthread_mutex_unlock(&U.lock);
            return;
        }
        b->ev = grown;
        b->cap = cap;
    }
    b->ev[b->count++] = ev;
    flag_batched();
    int due = b->count >= BATCH_DUE_COUNT;
    if (due)
        aos__store_relaxed(&U.batched_since, 0); /* due now */
    pthread_mutex_unlock(&U.lock);
    *rc = AOS_OK;
    /* A program that streams puts without waiting calls no settle of its
     * own; inside a handler the next settle outside it does this. */
    if (due && !in_handler)
        aos__ucx_settle(0);
}

struct aos__ucx_batch aos__ucx_batch_take(int pe)
{
    pthread_mutex_lock(&U.lock);
    struct aos__ucx_batch b = U.peers[pe].waiting;
    U.peers[pe].waiting = (struct aos__ucx_batch){0};
    pthread_mutex_unlock(&U.lock);
    return b;
}

void aos__ucx_batch_complete(struct aos__ucx_batch *b, ucs_status_t st, int pe)
{
    for (size_t i = 0; i < b->count; i++)
        aos__ucx_event_done(b->ev[i], st, pe);
    free(b->ev);
    *b = (struct aos__ucx_batch){0};
}

/* Starts a flush for every peer with a wake waiting, and with batches
 * also for every peer with events waiting (a flush for a wake takes the
 * peer's events along anyway). The flushes are issued after the lock is
 * let go: UCP takes its worker lock in them, and a thread inside the
 * worker's progress, which holds that lock, takes this one when a message
 * handler sends (aos__ucx_core_am) or posts a put with an event. */
static void start_flushes(int batches)
{
    struct flush_ctx *todo = NULL;
    pthread_mutex_lock(&U.lock);
    /* Messages a handler deferred while settle was sending stay pending. */
    aos__store_relaxed(&U.pending, deferred_head != NULL);
    if (batches)
        aos__store_relaxed(&U.batched, 0); /* set again below for what stays */
    for (int pe = 0; pe < aos__rt.npes; pe++) {
        struct aos__ucx_peer *p = &U.peers[pe];
        int wake = p->wake_lo != p->wake_hi;
        if (p->ep == NULL || !(wake || (batches && p->waiting.count != 0)))
            continue;
        struct flush_ctx *c = p->flushing ? NULL : malloc(sizeof *c);
        if (c == NULL) { /* after the flush under way, or out of memory: later */
            if (wake)
                aos__store_relaxed(&U.pending, 1);
            if (p->waiting.count != 0)
                flag_batched();
            continue;
        }
        /* The flush, issued below, is later than every operation these
         * events and this range stand for. Until it is done, `flushing`
         * keeps another settle from starting one more for this peer. */
        *c = (struct flush_ctx){.pe = pe, .by_request = p->acks, .batch = p->waiting,
                                .lo = p->wake_lo, .hi = p->wake_hi, .next = todo};
        todo = c;
        p->waiting = (struct aos__ucx_batch){0};
        p->wake_lo = p->wake_hi = 0;
        p->flushing = 1;
    }
    pthread_mutex_unlock(&U.lock);
    while (todo != NULL) {
        struct flush_ctx *c = todo;
        /* Read before the release: from there on c is the callback's,
         * which may run on another thread and free it (finish_flushes). */
        todo = c->next;
        if (c->by_request) { /* a request the peer answers, after the records */
            aos__store_release(&c->issued, 1); /* pairs with the acquire in flush_done */
            aos__ucx_ack_start(c->pe, c);
            continue;
        }
        ucp_ep_h ep = aos__ucx_ep(c->pe); /* after the records the events stand for */
        aos__store_release(&c->issued, 1); /* pairs with the acquire in flush_done */
        ucp_request_param_t rp = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                                                  UCP_OP_ATTR_FIELD_USER_DATA,
                                  .cb.send = flush_done,
                                  .user_data = c};
        ucs_status_ptr_t req = ucp_ep_flush_nbx(ep, &rp);
        if (req == NULL || UCS_PTR_IS_ERR(req)) /* done, or failed: no callback comes */
            flush_done(NULL, req == NULL ? UCS_OK : UCS_PTR_STATUS(req), c);
    }
}

/* Completes what finished flushes covered and sends their wakes. */
static int finish_flushes(void)
{
    /* Relaxed: a look that keeps an idle settle from writing the line; the
     * exchange takes what is there. */
    if (aos__load_relaxed(&finished) == NULL)
        return 0;
    /* Acquire: pairs with the release in flush_done. */
    struct flush_ctx *c = __atomic_exchange_n(&finished, NULL, __ATOMIC_ACQUIRE);
    int any = c != NULL;
    while (c != NULL) {
        struct flush_ctx *next = c->next;
        aos__ucx_batch_complete(&c->batch, c->status, c->pe);
        if (c->lo < c->hi && c->status == UCS_OK)
            (void)aos__ucx_am(c->pe, AOS__UCX_WAKE, c->lo, c->hi, NULL, 0);
        pthread_mutex_lock(&U.lock);
        struct aos__ucx_peer *p = &U.peers[c->pe];
        p->flushing = 0;
        if (p->wake_lo != p->wake_hi)
            aos__store_relaxed(&U.pending, 1);
        if (p->waiting.count != 0)
            flag_batched();
        pthread_mutex_unlock(&U.lock);
        free(c);
        c = next;
    }
    if (any) /* a waiter here may wait for those events */
        aos__ucx_ring(0, UINT64_MAX);
    return any;
}

static int outstanding(void)
{
    pthread_mutex_lock(&U.lock);
    int busy = aos__load_relaxed(&U.pending) || aos__load_relaxed(&U.batched) ||
               deferred_head != NULL;
    for (int pe = 0; pe < aos__rt.npes && !busy; pe++)
        busy = U.peers[pe].flushing;
    pthread_mutex_unlock(&U.lock);
    return busy || aos__load_acquire(&finished) != NULL; /* pairs with flush_done */
}

/* A batch waits and this settle flushes it: it is eager, or the batch
 * has waited long enough. */
static int batches_due(unsigned how)
{
    /* Relaxed: hints written under the lock; start_flushes looks again. */
    if (!aos__load_relaxed(&U.batched))
        return 0;
    return (how & AOS__UCX_SETTLE_EAGER) ||
           aos__now_ns() - aos__load_relaxed(&U.batched_since) >= AOS__UCX_BATCH_LAZY_NS;
}

void aos__ucx_settle(unsigned how)
{
    if (how & AOS__UCX_SETTLE_WAIT)
        how |= AOS__UCX_SETTLE_EAGER;
    unsigned idle = 0;
    do {
        aos__ucx_coalesce_send_all();
        int batches = batches_due(how);
        /* Relaxed: a hint; wake_later sets it under the lock, rechecked there. */
        if (aos__load_relaxed(&U.pending) || batches) {
            if (!in_handler)
                send_deferred();
            start_flushes(batches);
        }
        finish_flushes();
        if (!(how & AOS__UCX_SETTLE_WAIT) || !outstanding())
            return;
        aos__ucx_progress_idle(&idle);
    } while (1);
}
