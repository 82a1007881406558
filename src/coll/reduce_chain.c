/* The all-reduce across a few nodes: a chain of node leaders.
 *
 * The leader of node 0 folds its node's sources (shared memory) into its
 * dest; the leader of node 1 receives that partial result, folds its own
 * node's sources onto it, and so on; the last leader then has the result
 * and puts it into every other leader's dest; each leader hands it to the
 * members of its node, who copy it from the leader's dest. Ranks are folded
 * 0, 1, ..., as on every other path (the same bits), which needs each
 * node's ranks to be consecutive. Across two nodes this moves the data
 * over the network twice, against the slices' gets of every remote slice
 * twice and three team syncs.
 *
 * A partial result is pushed: its leader puts it into the next leader's
 * dest (with the signal, in one message when it fits), once the next
 * leader has said, on entering, that its dest is writable; that message
 * goes while the earlier leaders fold, so the hop costs one transfer. In
 * place (dest is source, and the same on every member: the offsets are
 * symmetric) the next leader's dest holds its source until folded, so it
 * gets the partial result instead, a chunk at a time.
 *
 * The words, all of value v (the team sequence after this all-reduce):
 *   member -> its leader:   enter word: my source is ready, my dest writable
 *   leader n -> leader n-1: enter word: my dest is writable (pushed only)
 *   leader n-1 -> leader n: down word: my partial result is in your dest
 *                           (pushed), or in mine (in place)
 *   last leader -> leader:  down word: the result is in your dest
 *   leader -> member:       down word: the result is in my dest
 *   member -> its leader:   ack word: I have copied it
 * A leader's enter word at the previous leader is keyed by its own rank,
 * which is no member of that node. In place, a leader's dest is free for
 * the last leader's put once the next leader has got the partial result
 * from it, which happened before the last leader could have the result. */
#include "coll/reduce_chain.h"

#include <stdalign.h>

#include "arch/copy.h"
#include "coll/reduce_ops.h"
#include "core/event.h"
#include "core/runtime.h"

/* Where fold_node starts each chunk from: my node's first source, the
 * partial result already in dest, or a leader's partial result in its dest
 * on another node (a team rank, fetched a chunk at a time). */
#define FROM_SOURCE (-1)
#define FROM_DEST (-2)

/* dest = the start (above), then my node's sources folded in rank order,
 * a chunk at a time. */
static int fold_node(const aos_team_t *t, int from, char *dest, uint64_t dest_off,
                     uint64_t src_off, size_t bytes, size_t tsize, aos_type_t type, aos_op_t op)
{
    alignas(64) unsigned char acc[AOS__FOLD_CHUNK];
    for (size_t at = 0; at < bytes; at += AOS__FOLD_CHUNK) {
        size_t len = bytes - at < AOS__FOLD_CHUNK ? bytes - at : AOS__FOLD_CHUNK;
        int first = 0;
        if (from == FROM_SOURCE) {
            aos__copy(acc, aos__team_peer(t, t->mine[0], src_off) + at, len);
            first = 1;
        } else if (from == FROM_DEST) {
            aos__copy(acc, dest + at, len);
        } else {
            int rc = aos__team_read(t, from, dest_off + at, acc, len);
            if (rc != AOS_OK)
                return rc;
        }
        for (int i = first; i < t->nmine; i++)
            aos__reduce_fold(acc, aos__team_peer(t, t->mine[i], src_off) + at, len / tsize,
                             type, op);
        aos__copy(dest + at, acc, len); /* after the reads: dest may be my source */
    }
    return AOS_OK;
}

/* The previous leader's partial result, folded with my node's sources,
 * into dest: fetched into dest at once unless dest overlaps my source (in
 * place), whose data must stay until folded; then a chunk at a time. */
static int fetch_and_fold(const aos_team_t *t, int from, char *dest, const char *source,
                          uint64_t dest_off, uint64_t src_off, size_t bytes, size_t tsize,
                          aos_type_t type, aos_op_t op)
{
    if (aos__overlap(dest, bytes, source, bytes))
        return fold_node(t, from, dest, dest_off, src_off, bytes, tsize, type, op);
    int rc = aos__team_read(t, from, dest_off, dest, bytes);
    return rc != AOS_OK ? rc
                        : fold_node(t, FROM_DEST, dest, dest_off, src_off, bytes, tsize, type, op);
}

/* My dest (the result, or my partial result for the next leader), into
 * the dest of leader `to` on another node, and the signal: in one message
 * when it fits, else a put attached to `own` (the caller waits for it;
 * *attached says so) and the signal, which the transport applies after
 * the put, so that the put's completion overlaps the signal and the other
 * leaders' puts. */
static int put_result(const aos_team_t *t, int to, const char *dest, uint64_t dest_off,
                      size_t bytes, uint64_t v, aos_event_t *own, int *attached)
{
    int pe = t->pes[to];
    uint64_t word = aos__slot_off(t->slot) + AOS__SLOT_DOWN(t->me);
    aos__coll_count_net();
    if (bytes <= AOS__PUT_SIGNAL_MAX)
        return aos__tp(pe)->put_signal(pe, dest_off, dest, bytes, word, v);
    int rc = aos__tp(pe)->put(pe, dest_off, dest, bytes, own);
    if (rc != AOS_OK)
        return rc;
    *attached = 1;
    return aos__team_signal(t, to, AOS__SLOT_DOWN(t->me), v);
}

/* The status after the put attached to `own`, if any, completed: waited
 * even after a failure, since the transport holds `own` until then. */
static int settle_attached(aos_event_t *own, int attached, int rc)
{
    if (!attached)
        return rc;
    int wrc = aos__event_wait(own);
    return rc != AOS_OK ? rc : wrc;
}

/* The last leader: the result into every other leader's dest. */
static int put_results(const aos_team_t *t, const char *dest, uint64_t dest_off, size_t bytes,
                       uint64_t v)
{
    struct aos_event own = {.magic = AOS__EVENT_MAGIC};
    int attached = 0, rc = AOS_OK;
    for (int n = 0; rc == AOS_OK && n < t->nnodes - 1; n++)
        rc = put_result(t, t->leader[n], dest, dest_off, bytes, v, &own, &attached);
    return settle_attached(&own, attached, rc);
}

static int leader(aos_team_t *t, char *dest, const char *source, uint64_t dest_off,
                  uint64_t src_off, size_t bytes, size_t tsize, aos_type_t type, aos_op_t op,
                  uint64_t v)
{
    int nd = t->node[t->me], last = t->nnodes - 1, rc = AOS_OK;
    int push = !aos__overlap(dest, bytes, source, bytes);
    struct aos_event own = {.magic = AOS__EVENT_MAGIC};
    int attached = 0;
    if (push && nd > 0)
        rc = aos__team_signal(t, t->leader[nd - 1], AOS__SLOT_ENTER(t->me), v);
    for (int i = 1; rc == AOS_OK && i < t->nmine; i++)
        rc = aos__team_wait(t, AOS__SLOT_ENTER(t->mine[i]), v);
    if (rc == AOS_OK && nd == 0) {
        rc = fold_node(t, FROM_SOURCE, dest, dest_off, src_off, bytes, tsize, type, op);
    } else if (rc == AOS_OK) {
        int prev = t->leader[nd - 1];
        rc = aos__team_wait(t, AOS__SLOT_DOWN(prev), v);
        if (rc == AOS_OK && push)
            rc = fold_node(t, FROM_DEST, dest, dest_off, src_off, bytes, tsize, type, op);
        else if (rc == AOS_OK)
            rc = fetch_and_fold(t, prev, dest, source, dest_off, src_off, bytes, tsize, type,
                                op);
    }
    if (rc == AOS_OK && nd < last) {
        int next = t->leader[nd + 1];
        if (push) {
            rc = aos__team_wait(t, AOS__SLOT_ENTER(next), v);
            if (rc == AOS_OK)
                rc = put_result(t, next, dest, dest_off, bytes, v, &own, &attached);
        } else {
            rc = aos__team_signal(t, next, AOS__SLOT_DOWN(t->me), v);
        }
        if (rc == AOS_OK)
            rc = aos__team_wait(t, AOS__SLOT_DOWN(t->leader[last]), v);
    }
    rc = settle_attached(&own, attached, rc);
    if (rc == AOS_OK && nd == last)
        rc = put_results(t, dest, dest_off, bytes, v);
    for (int i = 1; rc == AOS_OK && i < t->nmine; i++)
        rc = aos__team_signal(t, t->mine[i], AOS__SLOT_DOWN(t->me), v);
    for (int i = 1; rc == AOS_OK && i < t->nmine; i++)
        rc = aos__team_wait(t, AOS__SLOT_ACK(t->mine[i]), v);
    return rc;
}

int aos__reduce_chain(aos_team_t *t, void *dest, const void *source, uint64_t dest_off,
                      uint64_t src_off, size_t bytes, size_t tsize, aos_type_t type,
                      aos_op_t op)
{
    uint64_t v = ++t->seq;
    int lead = t->mine[0];
    if (t->me == lead)
        return leader(t, dest, source, dest_off, src_off, bytes, tsize, type, op, v);
    int rc = aos__team_signal(t, lead, AOS__SLOT_ENTER(t->me), v);
    if (rc == AOS_OK)
        rc = aos__team_wait(t, AOS__SLOT_DOWN(lead), v);
    if (rc == AOS_OK)
        aos__copy(dest, aos__team_peer(t, lead, dest_off), bytes);
    if (rc == AOS_OK)
        rc = aos__team_signal(t, lead, AOS__SLOT_ACK(t->me), v);
    return rc;
}
