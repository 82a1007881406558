/* Flushes by acknowledgement.
 *
 * A peer whose CPU applies my operations in the order I issue them, on one
 * TCP stream (lanes.c: ordered and target_applies), has applied every one
 * of them once it handles a message I sent after them: its handlers run
 * in stream order, and each applies what it carries before it returns
 * (UCP's handlers for its puts and atomics, ours for messages and
 * records). A flush of such a peer (`acks`) is therefore a request,
 * numbered, that the peer answers: where the peer takes records
 * (coalesce.c) the request is a record at the end of the records still
 * waiting, so that the records and the request leave as one message and
 * the flush costs one message each way. UCP's flush over TCP costs two
 * from here (the records, its request) and two back (its answer, UCP's
 * acknowledgement of the put emulated in software).
 *
 * Numbers: a peer answers with the highest number asked of it so far, in
 * a message sent after it handled that request. A flush waits for an
 * answer at least as high as its own number: the thread that took a
 * higher number took it after this flush took its own (the increments are
 * one modification order), and, the increment being acq_rel, saw every
 * operation issued before this flush began; its request, sent after its
 * increment, enters the stream after them (after the records it saw, and
 * behind UCP's lock after UCP's operations).
 *
 * Settle's flushes (of the events of puts, am.c) do not wait: such a flush
 * leaves its context in the peer's one slot (`ack_wait_*`; settle runs one
 * flush per peer at a time), and whichever comes first of the answer's
 * handler and the starter's own look after sending (each by the flush's
 * number), or the loss of the peer (whatever flush waits), claims the
 * slot and ends the flush.
 *
 * The answer is sent after the turn of the worker that ran the handler
 * (aos__ucx_drive_once, the only caller of UCP's progress), never from
 * the handler itself (ucx.h: handlers
 * issue nothing). A peer that is lost answers nothing: the wait ends with
 * the failure. */
#include "arch/atomics.h"
#include "core/runtime.h"
#include "core/tls.h"
#include "transport/ucx/ucx.h"

#define U aos__ucx

/* Asks pe for the answer `seq`, after every record still waiting for pe. */
static int ask(int pe, uint64_t seq)
{
    int rc = aos__ucx_coalesce_ask(pe, seq);
    if (rc != AOS_ERR_AGAIN)
        return rc;
    return aos__ucx_am(pe, AOS__UCX_ACK_ASK, seq, 0, NULL, 0);
}

/* A failure ask() said already, as a UCX status that maps back to it. */
static ucs_status_t status_of(int rc)
{
    return rc == AOS_ERR_PE_DIED     ? UCS_ERR_CONNECTION_RESET
           : rc == AOS_ERR_NO_MEMORY ? UCS_ERR_NO_MEMORY
                                     : UCS_ERR_IO_ERROR;
}

ucs_status_t aos__ucx_ack_flush(int pe)
{
    struct aos__ucx_peer *p = &U.peers[pe];
    /* Acq_rel: pairs with the same increment by the thread that takes a
     * higher number, which then sees what this thread issued before (see
     * Numbers above). */
    uint64_t seq = aos__fetch_add_acq_rel(&p->ack_asked, 1) + 1;
    int rc = ask(pe, seq);
    if (rc != AOS_OK)
        return status_of(rc);
    unsigned idle = 0;
    /* Relaxed, both: the number is all the answer says (nothing written
     * before it is read after it), and the loss flag is set once
     * (core/peer_loss.c); a stale look costs one more turn. */
    while (aos__load_relaxed(&p->ack_heard) < seq) {
        if (aos__load_relaxed(&aos__rt.peers[pe].lost))
            return UCS_ERR_CONNECTION_RESET;
        aos__ucx_progress_idle(&idle);
    }
    return UCS_OK;
}

/* Ends pe's waiting flush numbered seq (0: whatever number it has), if
 * nobody did yet. */
static void claim(struct aos__ucx_peer *p, uint64_t seq, ucs_status_t st)
{
    /* Acquire: pairs with the release in aos__ucx_ack_start, so the context
     * written before the number is seen; numbers never repeat, so a slot
     * refilled meanwhile is not taken for this one. */
    uint64_t s = aos__load_acquire(&p->ack_wait_seq);
    if (s == 0 || (seq != 0 && s != seq))
        return;
    /* Read before the exchange: once the flush ends, the next one may refill
     * the slot. Relaxed: published by the number's release; a context read
     * from a refilled slot goes with a failed exchange. */
    void *ctx = aos__load_relaxed(&p->ack_wait_ctx);
    if (aos__cas_acquire(&p->ack_wait_seq, &s, 0)) /* acquire: as the load above */
        aos__ucx_flush_finished(ctx, st);
}

void aos__ucx_ack_start(int pe, void *ctx)
{
    struct aos__ucx_peer *p = &U.peers[pe];
    uint64_t seq = aos__fetch_add_acq_rel(&p->ack_asked, 1) + 1; /* as in ack_flush */
    /* The slot is empty (settle's one flush of pe ended). Relaxed: the
     * release below publishes it. */
    aos__store_relaxed(&p->ack_wait_ctx, ctx);
    aos__store_release(&p->ack_wait_seq, seq); /* pairs with the acquire in claim */
    int rc = ask(pe, seq);
    /* Pairs with the fences in aos__ucx_ack_heard and aos__ucx_ack_lost:
     * either this look sees their answer or loss, or they see the slot. */
    aos__fence_seq_cst();
    /* Relaxed: ordered by the fence above. An answer that covers it counts
     * even if this request failed: the writes were applied. */
    if (aos__load_relaxed(&p->ack_heard) >= seq)
        claim(p, seq, UCS_OK);
    else if (rc != AOS_OK)
        claim(p, seq, status_of(rc));
    else if (aos__load_relaxed(&aos__rt.peers[pe].lost))
        claim(p, seq, UCS_ERR_CONNECTION_RESET);
}

void aos__ucx_ack_lost(int pe)
{
    aos__fence_seq_cst(); /* after the loss was marked: pairs with ack_start's */
    claim(&U.peers[pe], 0, UCS_ERR_CONNECTION_RESET);
}

void aos__ucx_ack_asked(int src, uint64_t seq)
{
    /* Relaxed: published by the releases below. */
    aos__raise_relaxed(&U.peers[src].ack_owed, seq);
    /* seq_cst (a release would do): pairs with the acquire exchange of
     * the word in aos__ucx_ack_send; set before the flag, so a sender
     * that takes the flag finds the bit. */
    (void)aos__fetch_or_seq_cst(&U.askers[src / 64], (uint64_t)1 << (src % 64));
    aos__store_release(&U.acks_due, 1); /* pairs with the acquire in aos__ucx_ack_send */
}

void aos__ucx_ack_heard(int src, uint64_t seq)
{
    struct aos__ucx_peer *p = &U.peers[src];
    /* Relaxed: see aos__ucx_ack_flush; against aos__ucx_ack_start's look,
     * the fence below orders it. */
    aos__raise_relaxed(&p->ack_heard, seq);
    aos__fence_seq_cst(); /* pairs with the fence in aos__ucx_ack_start */
    /* Relaxed: a hint, claim looks again. */
    uint64_t s = aos__load_relaxed(&p->ack_wait_seq);
    if (s != 0 && s <= seq)
        claim(p, s, UCS_OK);
}

/* Sends the answer owed to pe, unless another thread sends it (or a
 * higher one) already. */
static void answer(int pe)
{
    struct aos__ucx_peer *p = &U.peers[pe];
    /* Relaxed, both: read after the acquire in aos__ucx_ack_send; a failed
     * exchange reloads `sent`, and the thread whose exchange raised it
     * sends that answer. */
    uint64_t owed = aos__load_relaxed(&p->ack_owed);
    uint64_t sent = aos__load_relaxed(&p->ack_sent);
    while (owed > sent) {
        if (aos__cas_relaxed(&p->ack_sent, &sent, owed)) {
            /* A failure is the endpoint's: the asker sees it as the loss
             * of this PE. An endpoint closed as the transport stops takes
             * none (nobody asks after the last barrier). */
            if (p->ep != NULL)
                (void)aos__ucx_am(pe, AOS__UCX_ACK, owed, 0, NULL, 0);
            return;
        }
    }
}

void aos__ucx_ack_send(void)
{
    /* Sending drives the worker, whose handlers may ask for more: a nested
     * call leaves them to this one, which looks again before it returns. */
    static AOS__TLS int sending;
    if (sending || aos__ucx_in_handler())
        return;
    sending = 1;
    /* The relaxed look first keeps an idle turn from writing the line;
     * acquire: pairs with the release in aos__ucx_ack_asked. */
    size_t words = ((size_t)aos__rt.npes + 63) / 64;
    while (aos__load_relaxed(&U.acks_due) != 0 && aos__exchange_acquire(&U.acks_due, 0) != 0)
        for (size_t w = 0; w < words; w++) {
            /* Relaxed look, then acquire: pairs with the handler's or; a
             * bit set after the exchange comes with the flag again. */
            if (aos__load_relaxed(&U.askers[w]) == 0)
                continue;
            for (uint64_t b = aos__exchange_acquire(&U.askers[w], 0); b != 0; b &= b - 1)
                answer((int)(w * 64 + (size_t)__builtin_ctzll(b)));
        }
    sending = 0;
}
