/* Coalescing small operations to one peer into one message.
 *
 * Over TCP every UCP put or atomic is a system call at the sender and a
 * turn of the target's progress, whatever its size: a stream of small puts
 * runs at the rate of system calls, not of the link. For a peer that takes
 * them (its operations travel in one ordered TCP stream and its CPU applies
 * them, lanes.c; AOS_NET_COALESCE), small puts with events, blocking small
 * puts where the flush that follows is a record too (ack.c), and posted
 * atomics are copied into the peer's buffer as records, and the buffer
 * leaves as one COALESCED message, whose handler at the target (below)
 * applies the records in order, as UCP's own handlers would have applied
 * the operations.
 *
 * Order: the buffer leaves before anything else is issued to the peer
 * (every operation goes through aos__ucx_ep; only the read of the peer's
 * key table, which no record writes, does not), so the stream carries
 * everything in the order it was issued and the rules of transport.h hold
 * as they did: a later atomic, signal, message or get is applied after the
 * records. A buffer is taken for sending only while no other is between
 * being taken and being handed to UCP (`issuing`, under the peer's lock),
 * so buffers, too, leave in the order they were filled; and a thread that
 * must issue after the records waits until none is. A thread running a
 * message handler must not wait (the sender may be waiting for UCP's
 * lock, which the handler's thread holds): handlers issue no operations
 * (ucx.h), and one that did would only skip that wait.
 *
 * Completion: a coalesced put's event joins the peer's batch like any put's
 * and completes with the peer's next flush, issued after the message:
 * peers that take records take flushes by request (ack.c), a record of its
 * own at the end of the buffer, answered in stream order, so after the
 * records were applied (as the TCP flush of UCX, which answers in stream
 * order too, as the transport stops). The
 * buffer leaves when full, before any other operation to the peer, and at
 * every turn of the worker and every settle (any wait, quiet, the progress
 * thread, a stream of other operations): records never wait for a program
 * that goes on to spin on another peer or stops issuing.
 *
 * Core messages sent with AOS__AM_LATER (transport.h; a stream of queue
 * pushes) travel as records too, and leave with the buffer as above; the
 * messages a handler deferred (its answers) go as records that settle
 * sends at once (am.c). A burst of pushes is then one message, and their
 * answers one message back.
 *
 * Record: a header (arena offset, length or width, kind, operation) and,
 * for a put, its data padded to 8 bytes; for an atomic, its operand; for
 * a core message (its handler's id in `op`), its payload padded to 8; a
 * flush's request (its number in `off`) has none. */
#include <stdlib.h>
#include <string.h>

#include "arch/atomics.h"
#include "arch/cpu_amo.h"
#include "arch/sanitizer.h"
#include "core/am.h"
#include "core/runtime.h"
#include "core/tls.h"
#include "transport/ucx/ucx.h"

#define U aos__ucx

/* A buffer's size, and the largest put coalesced: a few such puts share a
 * message, larger ones leave on their own. The buffer fits one of the TCP
 * segments the transport sets (ucx.c), with UCP's headers; smaller
 * segments a user sets cut it into several. */
#define BUFFER_BYTES 32768u
#define PUT_MAX 4096u

enum { REC_PUT = 1, REC_AMO = 2, REC_CORE = 3, REC_ACK_ASK = 4 };

struct record {
    uint64_t off; /* core message: 0; request for an answer: its number */
    uint32_t len; /* put, core message: bytes that follow; atomic: the width */
    uint16_t kind;
    uint16_t op;  /* atomic: its aos_amo_op_t; core message: the handler's id */
};
_Static_assert(AOS__AM_COUNT <= UINT16_MAX, "a handler's id fits a record");
_Static_assert(sizeof(struct record) == 16, "records are 8-byte aligned in a buffer");
_Static_assert(PUT_MAX + sizeof(struct record) <= BUFFER_BYTES, "a put fits an empty buffer");

static size_t padded(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

void aos__ucx_coalesce_start(int pe)
{
    pthread_mutex_init(&U.peers[pe].co.lock, NULL);
}

void aos__ucx_coalesce_stop(int pe)
{
    struct aos__ucx_coalesce *c = &U.peers[pe].co;
    free(c->buf);
    free(c->spare);
    c->buf = c->spare = NULL;
    pthread_mutex_destroy(&c->lock);
}

/* Takes the records out of c for sending, *len bytes at the result: NULL
 * when there are none, or when another buffer of this peer is still being
 * handed to UCP (*busy set then: this one must leave after it). */
static char *take(struct aos__ucx_coalesce *c, size_t *len, int *busy)
{
    char *buf = NULL;
    pthread_mutex_lock(&c->lock);
    *busy = 0;
    /* Acquire: pairs with am.c's release once UCP has the buffer (which
     * drops it outside the lock). `used` is only written under the lock. */
    if (c->used != 0 && aos__load_acquire(&c->issuing) != 0) {
        *busy = 1;
    } else if (c->used != 0) {
        buf = c->buf;
        *len = c->used;
        c->buf = NULL;
        /* Counted before `used` drops: a thread that finds the buffer empty
         * and looks at `issuing` next sees this one. Relaxed: the release
         * store below publishes it. */
        (void)aos__fetch_add_relaxed(&c->issuing, 1);
        aos__store_release(&c->used, 0); /* pairs with the acquire in send_now */
    }
    pthread_mutex_unlock(&c->lock);
    return buf;
}

/* Sends records taken from pe's buffer, then keeps the buffer for reuse. */
static int send_taken(int pe, char *buf, size_t len)
{
    struct aos__ucx_coalesce *c = &U.peers[pe].co;
    int rc = aos__ucx_am_coalesced(pe, buf, len, &c->issuing);
    pthread_mutex_lock(&c->lock);
    if (c->spare == NULL) {
        c->spare = buf;
        buf = NULL;
    }
    pthread_mutex_unlock(&c->lock);
    free(buf);
    return rc;
}

/* Sends pe's records, if any, once no earlier buffer of pe is still being
 * handed to UCP, and waits until none is. In a handler it waits for
 * nothing (see above): records it cannot send yet stay for later. */
static int send_now(int pe)
{
    struct aos__ucx_coalesce *c = &U.peers[pe].co;
    int rc = AOS_OK;
    unsigned idle = 0;
    /* Acquire, both: pair with the release in take (and the appends' under
     * the lock); a buffer this thread filled is seen in program order, one
     * another thread filled before synchronising with this one through
     * that synchronisation. */
    while (aos__load_acquire(&c->used) != 0 || aos__load_acquire(&c->issuing) != 0) {
        int busy;
        size_t len = 0;
        char *buf = take(c, &len, &busy);
        if (buf != NULL) {
            int src = send_taken(pe, buf, len);
            if (rc == AOS_OK)
                rc = src;
            continue;
        }
        if (aos__ucx_in_handler()) {
            /* Records left for a later turn of the worker; release: as in
             * append, pairs with send_all's acquire. */
            if (aos__load_relaxed(&c->used) != 0)
                aos__store_release(&U.coalesced, 1);
            break;
        }
        if (!busy && aos__load_acquire(&c->issuing) == 0) /* pairs with am.c's release */
            break;
        aos__ucx_progress_idle(&idle);
    }
    return rc;
}

int aos__ucx_coalesce_send(int pe)
{
    return U.peers[pe].co.on ? send_now(pe) : AOS_OK;
}

ucp_ep_h aos__ucx_ep(int pe)
{
    (void)aos__ucx_coalesce_send(pe); /* a failure is the endpoint's: see ucx.h */
    return U.peers[pe].ep;
}

void aos__ucx_coalesce_send_all(void)
{
    /* Sending drives the worker, whose turns call this again: one at a
     * time per thread. */
    static AOS__TLS int sending;
    /* Acquire: pairs with the release in append; cleared first, so that a
     * buffer filled while the peers are looked at sets it again. The
     * relaxed look first keeps an idle settle from writing the line. */
    if (sending || aos__load_relaxed(&U.coalesced) == 0 ||
        aos__exchange_acquire(&U.coalesced, 0) == 0)
        return;
    sending = 1;
    for (int pe = 0; pe < aos__rt.npes; pe++)
        if (U.peers[pe].co.on && aos__load_relaxed(&U.peers[pe].co.used) != 0)
            (void)send_now(pe); /* relaxed above: a hint, send_now looks again */
    sending = 0;
}

/* Copies one record (and len bytes of body) into pe's buffer, sending the
 * buffer first when it is full. `caller_sends`: the caller sends pe's
 * buffer itself before it returns (send_now), so no send_all or progress
 * thread need look for it. */
static int append(int pe, const struct record *r, const void *body, size_t len,
                  int caller_sends)
{
    struct aos__ucx_coalesce *c = &U.peers[pe].co;
    size_t need = sizeof *r + padded(len);
    for (;;) {
        pthread_mutex_lock(&c->lock);
        if (c->buf == NULL) {
            c->buf = c->spare != NULL ? c->spare : malloc(BUFFER_BYTES);
            c->spare = NULL;
            if (c->buf == NULL) {
                pthread_mutex_unlock(&c->lock);
                return AOS_ERR_AGAIN; /* out of memory: issued on its own */
            }
        }
        size_t used = c->used;
        if (used + need <= BUFFER_BYTES) {
            memcpy(c->buf + used, r, sizeof *r);
            if (len != 0)
                memcpy(c->buf + used + sizeof *r, body, len);
            memset(c->buf + used + sizeof *r + len, 0, padded(len) - len);
            /* Release: a thread that sees the new length sees the record. */
            aos__store_release(&c->used, (uint32_t)(used + need));
            pthread_mutex_unlock(&c->lock);
            /* Left alone when the caller sends: set without a nudge, it
             * would keep later appends from nudging the thread. */
            if (caller_sends)
                return AOS_OK;
            /* Always written, even when it reads 1 already: that 1 may be
             * one that send_all is clearing now, having looked at this
             * buffer before the record. seq_cst: releases the record to
             * send_all's acquire, and see aos__ucx_thread_nudge. */
            if (aos__exchange_seq_cst(&U.coalesced, 1) == 0)
                aos__ucx_thread_nudge();
            return AOS_OK;
        }
        pthread_mutex_unlock(&c->lock);
        int rc = send_now(pe); /* full: it leaves (after any earlier one) */
        if (rc != AOS_OK)
            return rc;
    }
}

/* The atomics a record carries: those whose posted form leaves no reply and
 * no order among themselves to keep (a set or clear waits for its swap). */
static int posted_op(unsigned op)
{
    return op == AOS_AMO_ADD || op == AOS_AMO_AND || op == AOS_AMO_OR || op == AOS_AMO_XOR;
}

/* An operation on [off, off + len) at pe may be coalesced: pe takes
 * records from this thread, and one registration of pe covers the range
 * (as for an operation UCP makes: then pe's memory is there to write).
 * AOS_ERR_AGAIN when not; the key lookup's error when pe registered none. */
static int takes(int pe, uint64_t off, size_t len)
{
    if (!U.peers[pe].co.on || aos__ucx_in_handler())
        return AOS_ERR_AGAIN;
    size_t n = len;
    ucp_rkey_h rk;
    uint64_t raddr;
    int rc = aos__ucx_remote(pe, off, &n, &rk, &raddr);
    if (rc != AOS_OK)
        return rc;
    return n == len ? AOS_OK : AOS_ERR_AGAIN; /* across two: UCP's path splits it */
}

int aos__ucx_coalesce_put(int pe, uint64_t off, const void *src, size_t len, int caller_sends)
{
    int rc = len > PUT_MAX ? AOS_ERR_AGAIN : takes(pe, off, len);
    if (rc != AOS_OK)
        return rc;
    struct record r = {.off = off, .len = (uint32_t)len, .kind = REC_PUT};
    return append(pe, &r, src, len, caller_sends);
}

int aos__ucx_coalesce_amo(int pe, uint64_t off, aos_amo_op_t op, unsigned width,
                          uint64_t operand)
{
    int rc = posted_op(op) ? takes(pe, off, width) : AOS_ERR_AGAIN;
    if (rc != AOS_OK)
        return rc;
    struct record r = {.off = off, .len = width, .kind = REC_AMO, .op = (uint16_t)op};
    return append(pe, &r, &operand, sizeof operand, 0);
}

int aos__ucx_coalesce_core(int pe, unsigned id, const void *payload, size_t len,
                           int caller_sends)
{
    /* In a handler nothing is appended (above); its messages are deferred
     * before they come here anyway. */
    if (!U.peers[pe].co.on || aos__ucx_in_handler() || len > PUT_MAX)
        return AOS_ERR_AGAIN;
    struct record r = {.len = (uint32_t)len, .kind = REC_CORE, .op = (uint16_t)id};
    return append(pe, &r, payload, len, caller_sends);
}

int aos__ucx_coalesce_ask(int pe, uint64_t seq)
{
    if (!U.peers[pe].co.on)
        return AOS_ERR_AGAIN;
    struct record r = {.off = seq, .kind = REC_ACK_ASK};
    int rc = append(pe, &r, NULL, 0, 1);
    return rc != AOS_OK ? rc : send_now(pe);
}

/* ---- the target's side ---------------------------------------------------- */

/* Wakes my sleepers watching what records wrote into [*lo, *hi), if any. */
static void ring_written(uint64_t *lo, uint64_t *hi)
{
    if (*lo < *hi)
        aos__ucx_ring(*lo, *hi);
    *lo = UINT64_MAX;
    *hi = 0;
}

void aos__ucx_coalesced_apply(int src, const char *data, size_t len)
{
    uint64_t size = aos__rt.arena_size, lo = UINT64_MAX, hi = 0;
    size_t at = 0;
    struct record r;
    /* A record that does not fit the arena or the message ends it: a
     * sender's checks make that impossible short of corruption. */
    while (len - at >= sizeof r) {
        memcpy(&r, data + at, sizeof r);
        at += sizeof r;
        size_t body = r.kind == REC_AMO ? sizeof(uint64_t) : padded(r.len);
        if (body > len - at || (r.kind != REC_AMO && r.len > len - at)) /* padded() may wrap */
            break;
        if (r.kind == REC_ACK_ASK) { /* after the records before it: ack.c */
            aos__ucx_ack_asked(src, r.off);
            continue;
        }
        if (r.kind == REC_CORE) {
            /* What the records before it wrote is seen as written by
             * whatever its handler wakes. */
            ring_written(&lo, &hi);
            aos__ucx_core_dispatch(src, r.op, data + at, r.len);
            at += body;
            continue;
        }
        if (r.off > size || r.len > size - r.off)
            break;
        char *dst = aos__rt.my_base + r.off;
        if (r.kind == REC_PUT) {
            aos__copy_remote_write(dst, data + at, r.len); /* as am.c's PUT_DATA */
        } else if (r.kind == REC_AMO && (r.len == 4 || r.len == 8) && r.off % r.len == 0 &&
                   posted_op(r.op)) {
            uint64_t operand;
            memcpy(&operand, data + at, sizeof operand);
            (void)aos__cpu_amo(dst, r.len, (aos_amo_op_t)r.op, operand, 0);
        } else {
            break;
        }
        at += body;
        if (r.off < lo)
            lo = r.off;
        if (r.off + r.len > hi)
            hi = r.off + r.len;
    }
    ring_written(&lo, &hi);
}
