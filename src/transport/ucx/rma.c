/* Put, get, blocks, atomics and ordering over UCP.
 *
 * Completion: a blocking put is a put and a flush of its peer (the flush
 * returns once the data is at the target: UCP's, or ack.c's request the
 * peer answers), then a wake. A put with an event waits only until its
 * source may be reused; its event joins the peer's batch, which the next
 * flush of that peer completes (am.c: settle, run by progress, fence and
 * quiet), so a stream of puts costs one flush, not one each. A held put
 * (aos_put_nbi) does not wait for its source either: its requests are
 * left to UCP, and the flush that completes its event waits for them (a
 * flush by request for the target to have applied them, so after the
 * source was read).
 *
 * Ordering: UCP does not order an atomic after earlier puts on the network.
 * Each peer has an `unflushed` mark, set by puts and posted atomics; a
 * signal or an atomic to a marked peer first flushes it, unless the peer's
 * one TCP stream orders them already (lanes.c). */
#include <stdlib.h>
#include <string.h>

#include "arch/atomics.h"
#include "core/event.h"
#include "core/runtime.h"
#include "transport/ucx/ucx.h"

#define U aos__ucx

/* A flush by aos__ucx_flush_peer and the events it covers. */
struct peer_flush {
    struct aos__ucx_batch covered;
    int pe;
    ucs_status_t status;
    int done; /* set last, by peer_flush_done */
};

/* The covered events complete here, in UCP's callback, which may run on
 * another thread (or called at once, for a flush by request); quiet waits
 * for every flush under way, so that events another thread's flush took
 * are complete when it returns. */
static void peer_flush_done(void *request, ucs_status_t st, void *user_data)
{
    struct peer_flush *f = user_data;
    if (request != NULL)
        ucp_request_free(request);
    f->status = st;
    int any = f->covered.count != 0;
    aos__ucx_batch_complete(&f->covered, st, f->pe);
    if (any) /* a thread of mine may sleep waiting for one of them */
        aos__ucx_ring_all();
    aos__store_release(&f->done, 1); /* pairs with the acquire in aos__ucx_flush_peer */
}

int aos__ucx_flush_peer(int pe)
{
    struct aos__ucx_peer *p = &U.peers[pe];
    /* Counted before the mark is cleared, so that a thread that finds the
     * mark clear knows a flush may still be under way (may_be_outstanding);
     * relaxed: the release store below publishes it. */
    (void)aos__fetch_add_relaxed(&p->flushes_in_flight, 1);
    aos__store_release(&p->unflushed, 0); /* pairs with may_be_outstanding */
    /* The events of puts issued before it complete with this flush, rather
     * than with one more that settle would start for them. */
    struct peer_flush f = {.covered = aos__ucx_batch_take(pe), .pe = pe};
    if (p->acks) { /* a request the peer answers (ack.c) */
        peer_flush_done(NULL, aos__ucx_ack_flush(pe), &f);
        (void)aos__fetch_sub_release(&p->flushes_in_flight, 1); /* as below */
        return aos__ucx_status(f.status, "flushing", pe);
    }
    ucp_request_param_t rp = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                                              UCP_OP_ATTR_FIELD_USER_DATA,
                              .cb.send = peer_flush_done,
                              .user_data = &f};
    ucs_status_ptr_t req = ucp_ep_flush_nbx(aos__ucx_ep(pe), &rp);
    if (req == NULL || UCS_PTR_IS_ERR(req)) { /* no callback comes */
        peer_flush_done(NULL, req == NULL ? UCS_OK : UCS_PTR_STATUS(req), &f);
        if (req == NULL)
            aos__ucx_issued();
    }
    unsigned idle = 0;
    while (!aos__load_acquire(&f.done)) /* pairs with the release in peer_flush_done */
        aos__ucx_progress_idle(&idle);
    /* Release: whoever sees the count drop sees the flush done. */
    (void)aos__fetch_sub_release(&p->flushes_in_flight, 1);
    return aos__ucx_status(f.status, "flushing", pe);
}

/* Operations of kinds `what` (AOS__UCX_* bits) issued to pe before this
 * call, by this thread or one it synchronised with, may not be complete:
 * the mark is set, or another thread cleared it for a flush that has not
 * finished yet. */
static int may_be_outstanding(const struct aos__ucx_peer *p, uint32_t what)
{
    /* Acquire: pairs with the release store in aos__ucx_flush_peer, after
     * its count went up. Marks set by this thread's own earlier operations
     * are seen in program order. */
    if (aos__load_acquire(&p->unflushed) & what)
        return 1;
    return aos__load_acquire(&p->flushes_in_flight) != 0; /* pairs with the release above */
}

int aos__ucx_order_after_puts(int pe)
{
    if (U.peers[pe].ordered)
        return AOS_OK; /* one stream: applied after them anyway (lanes.c) */
    if (may_be_outstanding(&U.peers[pe], AOS__UCX_PUTS))
        return aos__ucx_flush_peer(pe);
    return AOS_OK;
}

static void mark_unflushed(int pe, uint32_t what)
{
    uint32_t now = aos__load_relaxed(&U.peers[pe].unflushed); /* relaxed: as above */
    if ((now & what) != what)
        aos__fetch_or_relaxed(&U.peers[pe].unflushed, what);
}

/* ev waits for the next flush of pe. */
static int batch_event(int pe, aos_event_t *ev)
{
    int rc;
    aos__ucx_batch_add(pe, ev, &rc);
    return rc;
}

/* Requests of one block operation still in flight: its runs are all
 * issued before any is waited for, so a block of many runs costs about one
 * round trip per INFLIGHT_MAX runs, not one per run. With `held` (the
 * caller keeps the source until the operation's event completes), each
 * request is released as soon as it is issued: UCP completes it on its
 * own, and the flush that completes the event waits for it. */
#define INFLIGHT_MAX 64
struct inflight {
    ucs_status_ptr_t req[INFLIGHT_MAX];
    size_t count;
    int pe;
    const char *what;
    int held;
};

/* Waits for every request in f; the first failure is returned, but all are
 * waited for (their buffers are the caller's). */
static int drain(struct inflight *f)
{
    int rc = AOS_OK;
    for (size_t i = 0; i < f->count; i++) {
        int r = aos__ucx_wait(f->req[i], f->what, f->pe);
        if (rc == AOS_OK)
            rc = r;
    }
    f->count = 0;
    return rc;
}

/* One piece's UCP put or get: waited for, or left in f. */
static int issue_piece(int put, char *local, size_t n, int pe, ucp_rkey_h rk, uint64_t raddr,
                       struct inflight *f)
{
    ucp_request_param_t none = {0};
    ucp_ep_h ep = aos__ucx_ep(pe);
    aos__ucx_enter();
    ucs_status_ptr_t q = put ? ucp_put_nbx(ep, local, n, raddr, rk, &none)
                             : ucp_get_nbx(ep, local, n, raddr, rk, &none);
    aos__ucx_leave();
    if (f == NULL || q == NULL || UCS_PTR_IS_ERR(q))
        return aos__ucx_wait(q, put ? "put" : "get", pe);
    if (f->held) {
        ucp_request_free(q); /* a freed request still completes */
        /* A turn per request left in flight moves it on while the program
         * issues more, and shows the progress thread that the program
         * drives the worker (thread.c): a stream of held puts is not left
         * to the two of them taking turns at UCP's lock. */
        (void)aos__ucx_drive_once();
        return AOS_OK;
    }
    f->req[f->count++] = q;
    return f->count == INFLIGHT_MAX ? drain(f) : AOS_OK;
}

/* One contiguous put or get, split where the target's keys change. Without
 * f it returns once local memory may be reused (put) or holds the data
 * (get); with f, once every piece is issued, the requests left in f. */
static int pieces(int put, char *local, int pe, uint64_t off, size_t len, struct inflight *f)
{
    int rc = AOS_OK;
    while (len > 0 && rc == AOS_OK) {
        size_t n = len;
        ucp_rkey_h rk;
        uint64_t raddr;
        /* Also where the piece goes as messages, which need no key: it
         * checks that pe exposed the range, as for any put. */
        rc = aos__ucx_remote(pe, off, &n, &rk, &raddr);
        if (rc != AOS_OK)
            break;
        /* As messages where they go so (am.c), except for a block's runs,
         * whose requests f keeps to wait for. */
        if (put && U.peers[pe].put_messages && n >= AOS__UCX_PUT_MESSAGE_MIN &&
            (f == NULL || f->held))
            rc = aos__ucx_am_put(aos__ucx_ep(pe), pe, off, local, n, f != NULL);
        else
            rc = issue_piece(put, local, n, pe, rk, raddr, f);
        off += n;
        local += n;
        len -= n;
    }
    if (put) /* even after a failure: some pieces may have gone */
        mark_unflushed(pe, AOS__UCX_PUTS);
    return rc;
}

/* How put_pieces may send a put. */
enum coalescing {
    ISSUED,            /* issued on its own */
    COALESCED,         /* as a record where pe takes it, leaving with the buffer */
    COALESCED_FLUSHED, /* ...where the caller flushes pe next, which sends it */
};

/* A put as pieces, or, where `how` allows and pe takes it, as a record in
 * pe's coalescing buffer (coalesce.c). */
static int put_pieces(int pe, uint64_t off, const char *src, size_t len, struct inflight *f,
                      enum coalescing how)
{
    if (how != ISSUED) {
        int rc = aos__ucx_coalesce_put(pe, off, src, len, how == COALESCED_FLUSHED);
        if (rc != AOS_ERR_AGAIN) {
            mark_unflushed(pe, AOS__UCX_PUTS); /* even after a failure: a buffer may have gone */
            return rc;
        }
    }
    return pieces(1, (char *)(uintptr_t)src, pe, off, len, f); /* only read */
}

static int get_pieces(char *dst, int pe, uint64_t off, size_t len, struct inflight *f)
{
    return pieces(0, dst, pe, off, len, f);
}

/* The puts of a write to [lo, hi) at pe are issued: complete it. */
static int finish_write(int pe, uint64_t lo, uint64_t hi, aos_event_t *ev)
{
    if (ev != NULL) {
        aos__event_post(ev);
        int rc = batch_event(pe, ev);
        if (rc != AOS_OK) {
            aos__event_complete(ev); /* it was not attached after all */
            return rc;
        }
        aos__ucx_wake_later(pe, lo, hi);
        return AOS_OK;
    }
    int rc = aos__ucx_flush_peer(pe);
    return rc != AOS_OK ? rc : aos__ucx_wake_now(pe, lo, hi);
}

/* A blocking put waits for a flush of its own. It is coalesced where that
 * flush is a request the peer answers (ack.c): put and request then leave
 * as one message. Elsewhere it is not: alone in its message it costs no
 * copy. A block's small runs are coalesced, blocking or not: one message
 * and one flush for all of them. */
int aos__ucx_put(int pe, uint64_t off, const void *src, size_t len, aos_event_t *ev)
{
    enum coalescing how = ev != NULL ? COALESCED : U.peers[pe].acks ? COALESCED_FLUSHED : ISSUED;
    int rc = put_pieces(pe, off, src, len, NULL, how);
    return rc != AOS_OK ? rc : finish_write(pe, off, off + len, ev);
}

/* As aos__ucx_put with an event, but what coalescing does not copy stays
 * in flight from src after returning. */
int aos__ucx_put_held(int pe, uint64_t off, const void *src, size_t len, aos_event_t *ev)
{
    struct inflight f = {.pe = pe, .what = "put", .held = 1};
    int rc = put_pieces(pe, off, src, len, &f, COALESCED);
    if (rc != AOS_OK) {
        /* Its event was not posted: nothing may read src once this returns. */
        (void)aos__ucx_flush_peer(pe);
        return rc;
    }
    return finish_write(pe, off, off + len, ev);
}

/* A get or an atomic with an event, in flight: UCP's callback completes
 * it, maybe on another thread than the issuing one. The first member of
 * its malloc'd context. */
struct reply {
    aos_event_t *ev;
    int pe;
    int issued; /* written last by the issuing thread */
};

/* Before the operation to pe is issued: ev counts it, and so does quiet. */
static void reply_expect(struct reply *r, aos_event_t *ev, int pe)
{
    r->ev = ev;
    r->pe = pe;
    aos__event_post(ev);
    aos__store_release(&r->issued, 1); /* pairs with the acquire in reply_received */
    /* Relaxed: counted before it can complete; quiet waits for 0. */
    (void)aos__fetch_add_relaxed(&U.replies_in_flight, 1);
}

/* In UCP's callback, first: the issuing thread's stores to the context
 * are visible from here on. */
static void reply_received(void *request, struct reply *r)
{
    ucp_request_free(request); /* freed before completion, it would get no callback */
    (void)aos__load_acquire(&r->issued); /* pairs with the release in reply_expect */
}

/* Last: completes the event with the operation's status and frees the
 * context (r heads it). */
static void reply_done(struct reply *r, ucs_status_t st)
{
    aos__ucx_event_done(r->ev, st, r->pe);
    free(r);
    /* Release: quiet's acquire of the count sees the data or result written. */
    (void)aos__fetch_sub_release(&U.replies_in_flight, 1);
}

/* The operation completed at issue or failed: no callback comes. */
static void reply_unexpect(struct reply *r)
{
    (void)aos__fetch_sub_release(&U.replies_in_flight, 1);
    aos__event_complete(r->ev);
    free(r);
}

static void get_done(void *request, ucs_status_t st, void *user_data)
{
    reply_received(request, user_data);
    reply_done(user_data, st);
}

/* A get with an event from a peer whose one stream orders it after my
 * earlier gets (lanes.c), when one key covers it: issued, and the event
 * completed by UCP's callback once the data is here, so that gets to
 * several peers, or many to one, are in flight together. AOS_ERR_AGAIN
 * when it does not apply (the caller waits instead). */
static int get_posted(void *dst, int pe, uint64_t off, size_t len, aos_event_t *ev)
{
    size_t n = len;
    ucp_rkey_h rk;
    uint64_t raddr;
    if (!U.peers[pe].ordered || aos__ucx_remote(pe, off, &n, &rk, &raddr) != AOS_OK || n != len)
        return AOS_ERR_AGAIN;
    struct reply *r = malloc(sizeof *r);
    if (r == NULL)
        return AOS_ERR_AGAIN;
    ucp_request_param_t rp = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                                              UCP_OP_ATTR_FIELD_USER_DATA,
                              .cb.send = get_done,
                              .user_data = r};
    reply_expect(r, ev, pe);
    ucs_status_ptr_t req = ucp_get_nbx(aos__ucx_ep(pe), dst, len, raddr, rk, &rp);
    if (req != NULL && !UCS_PTR_IS_ERR(req)) {
        aos__ucx_issued();
        return AOS_OK; /* get_done completes it */
    }
    reply_unexpect(r);
    return req == NULL ? AOS_OK : aos__ucx_status(UCS_PTR_STATUS(req), "get", pe);
}

/* Gets without an event complete when their data is here; each waits. Gets
 * from one target are ordered: by that wait, or by the peer's one stream. */
int aos__ucx_get(void *dst, int pe, uint64_t off, size_t len, aos_event_t *ev)
{
    if (ev != NULL) {
        int prc = get_posted(dst, pe, off, len, ev);
        if (prc != AOS_ERR_AGAIN)
            return prc;
    }
    int rc = get_pieces(dst, pe, off, len, NULL);
    if (rc == AOS_OK)
        aos__event_done_at_issue(ev);
    return rc;
}

/* b with the rows that touch on both sides joined into longer runs (the
 * rows of a plane, then the planes), so that a contiguous block is one
 * transfer and not one per row. The callers have checked that the extents
 * fit, so the products do. */
static aos_block_t joined(const aos_block_t *b)
{
    aos_block_t j = *b;
    if (j.count[0] > 1 && j.local_stride[0] == j.run && j.remote_stride[0] == j.run) {
        j.run *= j.count[0];
        j.count[0] = 1;
    }
    if (j.count[0] == 1 && j.count[1] > 1 && j.local_stride[1] == j.run &&
        j.remote_stride[1] == j.run) {
        j.run *= j.count[1];
        j.count[1] = 1;
    }
    return j;
}

int aos__ucx_put_block(int pe, uint64_t off, const void *src, const aos_block_t *block,
                         aos_event_t *ev)
{
    aos_block_t jb = joined(block);
    const aos_block_t *b = &jb;
    const char *s = src;
    uint64_t hi = off;
    struct inflight f = {.pe = pe, .what = "put"};
    int rc = AOS_OK;
    for (size_t p = 0; p < b->count[1] && rc == AOS_OK; p++) {
        for (size_t r = 0; r < b->count[0] && rc == AOS_OK; r++) {
            uint64_t at = off + p * b->remote_stride[1] + r * b->remote_stride[0];
            rc = put_pieces(pe, at, s + p * b->local_stride[1] + r * b->local_stride[0],
                            b->run, &f, COALESCED);
            if (at + b->run > hi)
                hi = at + b->run;
        }
    }
    int drc = drain(&f);
    if (rc == AOS_OK)
        rc = drc;
    return rc != AOS_OK ? rc : finish_write(pe, off, hi, ev);
}

int aos__ucx_get_block(void *dst, int pe, uint64_t off, const aos_block_t *block,
                         aos_event_t *ev)
{
    aos_block_t jb = joined(block);
    const aos_block_t *b = &jb;
    char *d = dst;
    struct inflight f = {.pe = pe, .what = "get"};
    int rc = AOS_OK;
    for (size_t p = 0; p < b->count[1] && rc == AOS_OK; p++)
        for (size_t r = 0; r < b->count[0] && rc == AOS_OK; r++)
            rc = get_pieces(d + p * b->local_stride[1] + r * b->local_stride[0], pe,
                            off + p * b->remote_stride[1] + r * b->remote_stride[0], b->run,
                            &f);
    int drc = drain(&f);
    if (rc == AOS_OK)
        rc = drc;
    if (rc == AOS_OK)
        aos__event_done_at_issue(ev);
    return rc;
}

int aos__ucx_signal_store(int pe, uint64_t off, uint64_t value)
{
    int rc = aos__ucx_order_after_puts(pe);
    return rc != AOS_OK ? rc : aos__ucx_am(pe, AOS__UCX_SIGNAL, off, value, NULL, 0);
}

/* The data travels in the signal's message (am.c), whose handler copies it
 * into place before storing the word. */
int aos__ucx_put_signal(int pe, uint64_t off, const void *src, size_t len, uint64_t sig_off,
                        uint64_t value)
{
    if (len > AOS__PUT_SIGNAL_MAX)
        return AOS_ERR_SIZE;
    int rc = aos__ucx_order_after_puts(pe);
    return rc != AOS_OK ? rc : aos__ucx_am_put_signal(pe, off, src, len, sig_off, value);
}

/* ---- atomics -------------------------------------------------------------- */

/* An atomic in flight with an event: UCP reads its operand and writes its
 * result until it completes. */
struct amo_ctx {
    struct reply head; /* with an event */
    uint64_t operand;
    uint64_t reply;
    void *result;
    unsigned width;
};

static void amo_done(void *request, ucs_status_t st, void *user_data)
{
    struct amo_ctx *c = user_data;
    reply_received(request, &c->head);
    if (c->result != NULL && st == UCS_OK)
        memcpy(c->result, &c->reply, c->width); /* little-endian: the low bytes */
    reply_done(&c->head, st);
}

/* UCP's opcode for op; SET, CLEAR and READ become swaps and adds. */
static ucp_atomic_op_t ucp_op(aos_amo_op_t op, uint64_t *operand)
{
    switch (op) {
    case AOS_AMO_ADD: return UCP_ATOMIC_OP_ADD;
    case AOS_AMO_AND: return UCP_ATOMIC_OP_AND;
    case AOS_AMO_OR: return UCP_ATOMIC_OP_OR;
    case AOS_AMO_XOR: return UCP_ATOMIC_OP_XOR;
    case AOS_AMO_SET: return UCP_ATOMIC_OP_SWAP;
    case AOS_AMO_CLEAR: *operand = 0; return UCP_ATOMIC_OP_SWAP;
    case AOS_AMO_READ: *operand = 0; return UCP_ATOMIC_OP_ADD;
    case AOS_AMO_CAS: return UCP_ATOMIC_OP_CSWAP;
    }
    return UCP_ATOMIC_OP_LAST;
}

int aos__ucx_amo(int pe, uint64_t off, aos_amo_op_t op, unsigned width, uint64_t operand,
                   uint64_t compare, void *result, aos_event_t *ev)
{
    if (result == NULL && ev == NULL) {
        /* Posted: one record where pe takes it (add, and, or, xor), applied
         * at pe after my earlier records. */
        int crc = aos__ucx_coalesce_amo(pe, off, op, width, operand);
        if (crc != AOS_ERR_AGAIN) {
            mark_unflushed(pe, AOS__UCX_POSTED);
            return crc;
        }
    }
    int rc = aos__ucx_order_after_puts(pe);
    if (rc != AOS_OK)
        return rc;
    size_t n = width;
    ucp_rkey_h rk;
    uint64_t raddr;
    rc = aos__ucx_remote(pe, off, &n, &rk, &raddr);
    if (rc != AOS_OK)
        return rc;
    uint64_t opd = operand;
    ucp_atomic_op_t uop = ucp_op(op, &opd);
    /* Posted and without a reply: fire and forget, complete by the next
     * flush of pe (fence, quiet, a later atomic's ordering flush). */
    int posted = result == NULL && ev == NULL && uop != UCP_ATOMIC_OP_SWAP;
    /* UCP uses operand and reply until the atomic completes: on the heap
     * when that is after this call returns, else here. */
    struct amo_ctx local, *c = &local;
    if (ev != NULL && (c = malloc(sizeof *c)) == NULL)
        return AOS_ERR_NO_MEMORY;
    /* CSWAP: buffer holds the value compared, reply the value swapped in. */
    *c = (struct amo_ctx){.operand = uop == UCP_ATOMIC_OP_CSWAP ? compare : opd,
                          .reply = opd, .result = result, .width = width};
    ucp_request_param_t rp = {.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE,
                              .datatype = ucp_dt_make_contig(width)};
    if (!posted) {
        rp.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        rp.reply_buffer = &c->reply;
    }
    if (ev != NULL) {
        rp.op_attr_mask |= UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
        rp.cb.send = amo_done;
        rp.user_data = c;
        reply_expect(&c->head, ev, pe);
    }
    ucs_status_ptr_t req = ucp_atomic_op_nbx(aos__ucx_ep(pe), uop, &c->operand, 1, raddr, rk, &rp);
    if (ev != NULL) {
        if (req == NULL && result != NULL) /* done at once */
            memcpy(result, &c->reply, width);
        if (req == NULL || UCS_PTR_IS_ERR(req))
            reply_unexpect(&c->head); /* else amo_done completes it */
        if (UCS_PTR_IS_ERR(req))
            return aos__ucx_status(UCS_PTR_STATUS(req), "atomic", pe);
        aos__ucx_issued();
        if (op != AOS_AMO_READ)
            aos__ucx_wake_later(pe, off, off + width);
        return AOS_OK;
    }
    rc = aos__ucx_wait(req, "atomic", pe);
    if (rc == AOS_OK && result != NULL)
        memcpy(result, &c->reply, width);
    if (rc != AOS_OK || op == AOS_AMO_READ)
        return rc;
    if (posted) {
        mark_unflushed(pe, AOS__UCX_POSTED);
        aos__ucx_wake_later(pe, off, off + width);
        return AOS_OK;
    }
    return aos__ucx_wake_now(pe, off, off + width);
}

/* ---- ordering ------------------------------------------------------------- */

int aos__ucx_fence(int pe)
{
    /* One stream applies later operations after earlier ones anyway; their
     * events complete with a later flush. */
    if (U.peers[pe].ordered)
        return AOS_OK;
    int rc = aos__ucx_flush_peer(pe);
    aos__ucx_settle(0);
    return rc;
}

/* fence for every peer: a flush of each one that is not on one ordered
 * stream, whatever the marks say (a fetching atomic with an event leaves
 * none, and must still be applied before later operations). */
int aos__ucx_fence_all(void)
{
    int rc = AOS_OK, flushed = 0;
    for (int pe = 0; pe < aos__rt.npes; pe++) {
        struct aos__ucx_peer *p = &U.peers[pe];
        if (p->ep == NULL || p->ordered)
            continue;
        int frc = aos__ucx_flush_peer(pe);
        if (rc == AOS_OK)
            rc = frc;
        flushed = 1;
    }
    if (flushed)
        aos__ucx_settle(0);
    return rc;
}

/* Blocking operations are complete when they return: only peers that puts
 * with events or posted atomics left unflushed need a flush (a round trip
 * each), and those events' batches then complete. */
int aos__ucx_quiet(void)
{
    int rc = AOS_OK;
    for (int pe = 0; pe < aos__rt.npes; pe++) {
        if (U.peers[pe].ep != NULL &&
            may_be_outstanding(&U.peers[pe], AOS__UCX_PUTS | AOS__UCX_POSTED)) {
            int frc = aos__ucx_flush_peer(pe);
            if (rc == AOS_OK)
                rc = frc;
        }
    }
    /* Flushes other threads started (even before mine) may still hold
     * events of my operations: they complete when those flushes end. */
    unsigned idle = 0;
    for (int pe = 0; pe < aos__rt.npes; pe++)
        while (aos__load_acquire(&U.peers[pe].flushes_in_flight) != 0) /* see flush_peer */
            aos__ucx_progress_idle(&idle);
    /* Atomics and gets with events: their results are written when their
     * replies are handled, which a flush does not wait for. Acquire: pairs
     * with the releases in amo_done and get_done. */
    while (aos__load_acquire(&U.replies_in_flight) != 0)
        aos__ucx_progress_idle(&idle);
    aos__ucx_settle(AOS__UCX_SETTLE_WAIT);
    return rc;
}
