/* AOS_CHECK=1: before a collective runs, its members compare the arguments
 * that must be the same everywhere. Mismatched arguments otherwise hang
 * (members wait for data or signals that never come) or deliver wrong data
 * with status 0.
 *
 * The comparison is itself a team exchange of one fixed-size record per
 * member, so it cannot hang or mis-deliver whatever the arguments are, and
 * every member sees every record: all reach the same verdict and either all
 * run the collective or all fail. A member whose own argument checks failed
 * takes part too (its record says so), so the others fail with it instead
 * of waiting for it.
 *
 * The symmetric heap's calls run the same exchange with AOS_CHECK off too
 * (aos__coll_agree_status), comparing only the statuses: a block one PE
 * alone refused to free or move would leave the heaps different. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "coll/team.h"
#include "core/runtime.h"

struct kind_info {
    const char *name;
    const char *args[AOS__AGREE_ARGS]; /* NULL: unused */
    unsigned is_signed;                /* bit i: args[i] is signed */
};

static const struct kind_info kinds[] = {
    [AOS__AGREE_BROADCAST] = {"aos_broadcast", {"root", "nbytes"}, 1u},
    [AOS__AGREE_REDUCE] = {"aos_reduce", {"type", "op", "count", "root"}, 8u},
    [AOS__AGREE_ALLREDUCE] = {"aos_allreduce", {"type", "op", "count"}, 0},
    [AOS__AGREE_FCOLLECT] = {"aos_fcollect", {"nbytes"}, 0},
    [AOS__AGREE_COLLECT] = {"aos_collect", {NULL}, 0},
    [AOS__AGREE_ALLTOALL] = {"aos_alltoall", {"nbytes"}, 0},
    [AOS__AGREE_ALLTOALLS] = {"aos_alltoalls", {"nelems", "elem_size", "sst"}, 0},
    [AOS__AGREE_ALIGN] = {"aos_malloc/aos_align", {"size", "alignment"}, 0},
    [AOS__AGREE_CALLOC] = {"aos_calloc", {"count * size"}, 0},
    [AOS__AGREE_REALLOC] = {"aos_realloc", {"block", "size"}, 0},
    [AOS__AGREE_FREE] = {"aos_free", {"block"}, 0},
};

/* One member's record. */
struct record {
    int32_t kind;
    int32_t status; /* its own argument checks */
    uint64_t args[AOS__AGREE_ARGS];
};

static void print_value(char *buf, size_t len, const struct kind_info *k, int i, uint64_t v)
{
    if (k->is_signed >> i & 1)
        snprintf(buf, len, "%" PRId64, (int64_t)v);
    else if (v == UINT64_MAX)
        snprintf(buf, len, "none");
    else
        snprintf(buf, len, "%" PRIu64, v);
}

/* Says what differs between the records of team ranks r and 0. */
static void report_mismatch(const aos_team_t *team, int kind, int r, const struct record *a,
                            const struct record *ref)
{
    const char *what = kinds[kind].name;
    int pe = team->pes[r], ref_pe = team->pes[0];
    if (a->kind != ref->kind) {
        fprintf(stderr,
                "aos: PE %d: %s: PE %d called %s while PE %d called %s (AOS_CHECK=1); "
                "failing with AOS_ERR_INVALID\n",
                aos__rt.me, what, pe, kinds[a->kind].name, ref_pe, kinds[ref->kind].name);
        return;
    }
    const struct kind_info *k = &kinds[kind];
    for (int i = 0; i < AOS__AGREE_ARGS; i++) {
        if (a->args[i] == ref->args[i])
            continue;
        char mine[32], theirs[32];
        print_value(mine, sizeof mine, k, i, a->args[i]);
        print_value(theirs, sizeof theirs, k, i, ref->args[i]);
        fprintf(stderr,
                "aos: PE %d: %s: argument '%s' differs across the team (AOS_CHECK=1): %s on "
                "PE %d, %s on PE %d; failing with AOS_ERR_INVALID\n",
                aos__rt.me, what, k->args[i] != NULL ? k->args[i] : "?", mine, pe, theirs,
                ref_pe);
        return;
    }
}

/* The exchange and verdict; the arguments are compared when compare_args. */
static int agree(aos_team_t *team, int kind, int status, const uint64_t *args, int compare_args)
{
    struct record mine = {.kind = kind, .status = status};
    for (int i = 0; compare_args && i < AOS__AGREE_ARGS && kinds[kind].args[i] != NULL; i++)
        mine.args[i] = args[i];
    const struct aos__xchg_entry *all;
    int rc = aos__team_exchange(team, &mine, sizeof mine, &all);
    if (rc != AOS_OK)
        return rc;
    struct record ref, rec;
    memcpy(&ref, all[0].data, sizeof ref);
    int verdict = AOS_OK;
    for (int r = 0; r < team->size; r++) {
        memcpy(&rec, all[r].data, sizeof rec);
        if (rec.kind < 0 || (size_t)rec.kind >= sizeof kinds / sizeof kinds[0])
            rec.kind = kind; /* cannot happen: every member runs this code */
        if (rec.kind != ref.kind || memcmp(rec.args, ref.args, sizeof rec.args) != 0) {
            report_mismatch(team, kind, r, &rec, &ref);
            verdict = AOS_ERR_INVALID;
            break;
        }
    }
    if (status != AOS_OK)
        return status;
    if (verdict != AOS_OK)
        return verdict;
    for (int r = 0; r < team->size; r++) {
        memcpy(&rec, all[r].data, sizeof rec);
        if (rec.status != AOS_OK) {
            fprintf(stderr,
                    "aos: PE %d: %s: PE %d refused its arguments (%s)%s; "
                    "failing with AOS_ERR_INVALID\n",
                    aos__rt.me, kinds[kind].name, team->pes[r], aos_strerror(rec.status),
                    compare_args ? " (AOS_CHECK=1)" : "");
            return AOS_ERR_INVALID;
        }
    }
    return AOS_OK;
}

int aos__coll_agree(aos_team_t *team, int kind, int status, const uint64_t *args)
{
    return aos__rt.cfg.check ? agree(team, kind, status, args, 1) : status;
}

int aos__coll_agree_status(aos_team_t *team, int kind, int status, const uint64_t *args)
{
    return agree(team, kind, status, args, aos__rt.cfg.check);
}
