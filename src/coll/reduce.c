/* Reductions. Small data: one exchange (every member pushes its source
 * into every member's slot) and a local fold. Otherwise each member folds
 * one slice of every member's source straight from their memory, then
 * copies the other slices from their owners (allreduce), or the root folds
 * everything (reduce). An all-reduce takes whichever the model predicts
 * faster for the team's size (the exchange takes up to AOS__XCHG_BYTES; on
 * large teams slices win sooner, as each member pushes into every other);
 * a reduce to a root exchanges all it can. Across 2-4 nodes whose ranks
 * are consecutive per node, a chain of node leaders (coll/reduce_chain.c)
 * is a third choice, which the model prices too. Folds always run rank 0, 1,
 * ..., so floating-point results are the same bits on every member and
 * path. */
#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#include "arch/copy.h"
#include "coll/reduce_chain.h"
#include "coll/reduce_ops.h"
#include "coll/team.h"
#include "core/runtime.h"

/* dest[lo, hi) (bytes) = fold over the ranks of their source at src_off.
 * Sources on other nodes are fetched a chunk at a time first. */
static int fold_range(const aos_team_t *t, char *dest, uint64_t src_off, size_t lo, size_t hi,
                      size_t tsize, aos_type_t type, aos_op_t op)
{
    alignas(64) unsigned char acc[AOS__FOLD_CHUNK];
    alignas(64) unsigned char fetched[AOS__FOLD_CHUNK];
    for (size_t at = lo; at < hi; at += AOS__FOLD_CHUNK) {
        size_t len = hi - at < AOS__FOLD_CHUNK ? hi - at : AOS__FOLD_CHUNK;
        int rc = aos__team_read(t, 0, src_off + at, acc, len);
        for (int r = 1; rc == AOS_OK && r < t->size; r++) {
            const void *theirs = fetched;
            if (aos__on_node(t->pes[r]))
                theirs = aos__team_peer(t, r, src_off) + at;
            else
                rc = aos__team_read(t, r, src_off + at, fetched, len);
            if (rc == AOS_OK)
                aos__reduce_fold(acc, theirs, len / tsize, type, op);
        }
        if (rc != AOS_OK)
            return rc;
        aos__copy(dest + at, acc, len); /* after the reads: dest may be my source */
    }
    return AOS_OK;
}

/* Element range [lo, hi) of rank r's slice, in bytes. */
static void slice_of(const aos_team_t *t, int r, size_t count, size_t tsize, size_t *lo,
                     size_t *hi)
{
    size_t per = count / (size_t)t->size, extra = count % (size_t)t->size;
    size_t first = (size_t)r * per + ((size_t)r < extra ? (size_t)r : extra);
    *lo = first * tsize;
    *hi = (first + per + ((size_t)r < extra)) * tsize;
}

struct reduce_args {
    uint64_t dest_off, src_off;
    size_t bytes, tsize;
};

/* kind: AOS__AGREE_REDUCE (to root) or AOS__AGREE_ALLREDUCE (root unused). */
static int check(aos_team_t *team, void *dest, const void *source, size_t count,
                 aos_type_t type, aos_op_t op, int kind, int root, struct reduce_args *a)
{
    int rc = aos__coll_check(team);
    if (rc != AOS_OK)
        return rc;
    rc = aos__reduce_check(type, op);
    if (rc == AOS_OK) {
        a->tsize = aos_type_size(type);
        rc = count > SIZE_MAX / a->tsize ? AOS_ERR_SIZE : AOS_OK;
    }
    if (rc == AOS_OK) {
        a->bytes = count * a->tsize;
        rc = aos__coll_locate(dest, a->bytes, &a->dest_off);
    }
    if (rc == AOS_OK)
        rc = aos__coll_locate(source, a->bytes, &a->src_off);
    if (rc == AOS_OK && dest != source && aos__overlap(dest, a->bytes, source, a->bytes))
        rc = AOS_ERR_OVERLAP;
    if (rc == AOS_OK && kind == AOS__AGREE_REDUCE && (root < 0 || root >= team->size))
        rc = AOS_ERR_PE;
    const uint64_t args[] = {(uint64_t)type, (uint64_t)op, count, (uint64_t)(int64_t)root};
    return aos__coll_agree(team, kind, rc, args);
}

/* The exchange path: contributions in my slot, folded in rank order. */
static int reduce_small(aos_team_t *team, void *dest, const void *source,
                        const struct reduce_args *a, aos_type_t type, aos_op_t op, int fold)
{
    const struct aos__xchg_entry *all;
    int rc = aos__team_exchange(team, source, a->bytes, &all);
    if (rc != AOS_OK || !fold)
        return rc;
    memcpy(dest, all[0].data, a->bytes);
    for (int r = 1; r < team->size; r++)
        aos__reduce_fold(dest, all[r].data, a->bytes / a->tsize, type, op);
    return AOS_OK;
}

/* The algorithm the model prefers for an all-reduce of `bytes` on this
 * team (every member decides alike: they plan with the same model). */
static enum aos__allreduce_algo allreduce_algo(aos_team_t *team, size_t bytes)
{
    if (team->reduce_bytes != bytes || team->reduce_model != aos__model_generation()) {
        static const char *const names[] = {
            [AOS__ALLREDUCE_SLICES] = "slices",
            [AOS__ALLREDUCE_EXCHANGE] = "exchange",
            [AOS__ALLREDUCE_CHAIN] = "chain of node leaders",
        };
        double predicted_ns;
        team->reduce_algo =
            aos__model_plan_allreduce_shape(aos__model(), &team->shape, bytes, &predicted_ns);
        aos__debug("all-reduce %zu B over %d PEs on %d nodes: %s, predicted %.0f ns", bytes,
                   team->size, team->nnodes, names[team->reduce_algo], predicted_ns);
        team->reduce_bytes = bytes;
        team->reduce_model = aos__model_generation();
    }
    return team->reduce_algo;
}

int aos_allreduce(aos_team_t *team, void *dest, const void *source, size_t count,
                  aos_type_t type, aos_op_t op)
{
    struct reduce_args a;
    int rc = check(team, dest, source, count, type, op, AOS__AGREE_ALLREDUCE, 0, &a);
    if (rc != AOS_OK || a.bytes == 0)
        return rc;
    enum aos__allreduce_algo algo = allreduce_algo(team, a.bytes);
    if (algo == AOS__ALLREDUCE_EXCHANGE)
        return reduce_small(team, dest, source, &a, type, op, 1);
    if (algo == AOS__ALLREDUCE_CHAIN)
        return aos__reduce_chain(team, dest, source, a.dest_off, a.src_off, a.bytes, a.tsize,
                                 type, op);
    size_t lo, hi;
    rc = aos__team_sync(team); /* every source is ready */
    if (rc != AOS_OK)
        return rc;
    slice_of(team, team->me, count, a.tsize, &lo, &hi);
    int frc = fold_range(team, dest, a.src_off, lo, hi, a.tsize, type, op);
    rc = aos__team_sync(team); /* every slice is folded */
    if (rc != AOS_OK)
        return rc;
    for (int i = 1; frc == AOS_OK && i < team->size; i++) {
        int r = (team->me + i) % team->size; /* spread the readers over the owners */
        slice_of(team, r, count, a.tsize, &lo, &hi);
        frc = aos__team_read(team, r, a.dest_off + lo, (char *)dest + lo, hi - lo);
    }
    rc = aos__team_sync(team); /* nobody reads my buffers any more */
    return frc != AOS_OK ? frc : rc;
}

int aos_reduce(aos_team_t *team, void *dest, const void *source, size_t count,
               aos_type_t type, aos_op_t op, int root)
{
    struct reduce_args a;
    int rc = check(team, dest, source, count, type, op, AOS__AGREE_REDUCE, root, &a);
    if (rc != AOS_OK)
        return rc;
    if (a.bytes == 0)
        return AOS_OK;
    if (a.bytes <= AOS__XCHG_BYTES)
        return reduce_small(team, dest, source, &a, type, op, team->me == root);
    rc = aos__team_sync(team);
    int frc = AOS_OK;
    if (rc == AOS_OK && team->me == root)
        frc = fold_range(team, dest, a.src_off, 0, a.bytes, a.tsize, type, op);
    if (rc == AOS_OK)
        rc = aos__team_sync(team);
    return frc != AOS_OK ? frc : rc;
}
