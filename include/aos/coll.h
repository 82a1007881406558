/* aos teams and collectives; included by aos.h (conventions there).
 *
 * A team is an ordered set of PEs; a PE's number in it is its rank. Every
 * collective is called by every member of the team, in the same order on
 * every member, with the same sizes, types, operation and root (ranks of
 * the team). Collectives on different teams may run at the same time, even
 * when the teams share PEs, as long as each PE calls them in one order.
 *
 * Mismatched arguments are a program error that may hang or give wrong
 * data with status 0. With AOS_CHECK=1 (on every PE; off by default) the
 * members of broadcast (root, nbytes), reduce (type, op, count, root),
 * all-reduce (type, op, count), fcollect and alltoall (nbytes), alltoalls
 * (nelems, elem_size, sst) and collect (which collective only) compare
 * these arguments, and whether each member accepted its own, in one small
 * exchange before the collective runs; on a difference every member
 * returns AOS_ERR_INVALID (a member whose own arguments were bad, its own
 * error) and prints a line naming the call, the PE and the argument. The
 * same covers aos_malloc/aos_align/aos_calloc/aos_realloc (sizes,
 * alignment, block) and aos_free (block): they return NULL (aos_free frees
 * nothing) on every PE. Team splits compare their arguments always.
 * Barriers compare nothing. The exchange roughly doubles the time of a
 * small all-reduce.
 *
 * Buffers: dest and source are symmetric addresses (aos_malloc'd memory or
 * global variables; AOS_ERR_NOT_SYMMETRIC otherwise), the same on every
 * member (collect excepted: there each member's source may be its own),
 * because members read each other's buffers directly. On return every buffer of the call may be
 * reused on this PE. A zero size is a valid no-op (the call still returns
 * only when the collective is complete on this PE).
 *
 * How they go (src/coll/): a barrier is a dissemination over the team;
 * small reductions and gathers push each contribution into every member's
 * team slot at once; a broadcast flows down a pipelined tree, cluster by
 * cluster, whose fan-outs and chunk size come from the machine model
 * (aos-probe); large reductions split the data into one slice per member.
 * On a team over several nodes only each node's leader (its lowest rank)
 * signals and moves data over the network; the others meet it through
 * shared memory. aos_team_node() is the PEs of my node.
 * Floating-point reductions combine in rank order, 0 first, on every path:
 * every member gets the same bits as a sequential loop over the ranks. */
#ifndef AOS_COLL_H
#define AOS_COLL_H

#include <stddef.h>

/* ---- teams ------------------------------------------------------------------ */

typedef struct aos_team aos_team_t;

/* The predefined teams, NULL outside aos_init..aos_finalize: every PE; the
 * PEs of my node; the PEs of my cluster (sharing my last-level cache, or my
 * run of AOS_CLUSTER_SIZE PEs). Ranks in increasing PE order. */
aos_team_t *aos_team_world(void);
aos_team_t *aos_team_node(void);
aos_team_t *aos_team_cluster(void);

/* My rank in team and its number of members; -1 for a NULL team. */
int aos_team_my_pe(const aos_team_t *team);
int aos_team_n_pes(const aos_team_t *team);
/* *dst_pe = the rank in dst of rank `pe` of src, or -1 when that PE is not
 * a member of dst. AOS_ERR_PE when pe is not a rank of src. */
int aos_team_translate_pe(const aos_team_t *src, int pe, const aos_team_t *dst, int *dst_pe);

/* Collective over parent. Ranks start, start + stride, ... (size of them,
 * stride >= 1, all below the parent's size) form a new team, ranked in that
 * order; members get it in *team, the other PEs of parent NULL. Arguments
 * that differ between PEs give AOS_ERR_INVALID on every PE. A PE is in at
 * most 64 teams at once, the 3 predefined included (AOS_ERR_TOO_MANY). */
int aos_team_split_strided(aos_team_t *parent, int start, int stride, int size,
                           aos_team_t **team);
/* Collective over parent: its ranks laid out in rows of xrange (the last row
 * may be short; xrange above the size is the size). *xteam = my row,
 * *yteam = my column, ranked by position. */
int aos_team_split_2d(aos_team_t *parent, int xrange, aos_team_t **xteam,
                      aos_team_t **yteam);
/* Frees my handle of a team I made. Call it once this PE's last collective
 * on the team has returned; the predefined teams cannot be destroyed. */
int aos_team_destroy(aos_team_t *team);

/* ---- collectives -------------------------------------------------------------- */

typedef enum aos_type {
    AOS_TYPE_INT8 = 0,
    AOS_TYPE_INT16,
    AOS_TYPE_INT32,
    AOS_TYPE_INT64,
    AOS_TYPE_UINT8,
    AOS_TYPE_UINT16,
    AOS_TYPE_UINT32,
    AOS_TYPE_UINT64,
    AOS_TYPE_FLOAT,
    AOS_TYPE_DOUBLE,
    AOS_TYPE_LONG_DOUBLE,
    AOS_TYPE_FLOAT_COMPLEX,  /* float _Complex: sum and prod only */
    AOS_TYPE_DOUBLE_COMPLEX, /* double _Complex: sum and prod only */
    AOS_TYPE_COUNT_
} aos_type_t;

typedef enum aos_op {
    AOS_OP_SUM = 0,
    AOS_OP_PROD,
    AOS_OP_MIN,
    AOS_OP_MAX,
    AOS_OP_AND, /* and, or, xor: integer types only */
    AOS_OP_OR,
    AOS_OP_XOR,
    AOS_OP_COUNT_
} aos_op_t;

/* Bytes of one element of type, 0 for an unknown type. */
size_t aos_type_size(aos_type_t type);

/* Local arithmetic, no communication: acc[i] = acc[i] op in[i] for count
 * elements, with the kernels the reductions use (same bits). For callers
 * that gather data themselves. AOS_ERR_INVALID for a bad type/op pair. */
int aos_reduce_local(void *acc, const void *in, size_t count, aos_type_t type, aos_op_t op);

/* Nobody leaves before every member has arrived; with aos_team_barrier
 * every member's operations issued before are also complete (a quiet). */
int aos_team_barrier(aos_team_t *team);
int aos_team_sync(aos_team_t *team);

/* nbytes of root's source into every member's dest (root's too). */
int aos_broadcast(aos_team_t *team, void *dest, const void *source, size_t nbytes, int root);

/* dest[i] = source_0[i] op source_1[i] op ... over the ranks, count elements;
 * on every member (allreduce) or on root only (reduce: other members' dest
 * is not written). dest may be source; partial overlap is AOS_ERR_OVERLAP.
 * A type/op pair that makes no sense (xor of doubles) is AOS_ERR_INVALID. */
int aos_allreduce(aos_team_t *team, void *dest, const void *source, size_t count,
                  aos_type_t type, aos_op_t op);
int aos_reduce(aos_team_t *team, void *dest, const void *source, size_t count,
               aos_type_t type, aos_op_t op, int root);

/* Gathers: dest = every member's source in rank order. fcollect: nbytes
 * from each; collect: each member its own nbytes, concatenated without gaps
 * (dest must hold the sum). dest and source must not overlap. collect's
 * members, whose sizes differ, always tell each other whether they
 * accepted their buffers (AOS_CHECK or not): a member whose source or dest
 * is bad returns its own error and the others AOS_ERR_INVALID. */
int aos_fcollect(aos_team_t *team, void *dest, const void *source, size_t nbytes);
int aos_collect(aos_team_t *team, void *dest, const void *source, size_t nbytes);

/* All-to-all: block j (nbytes) of rank i's source lands as block i of rank
 * j's dest. alltoalls is the strided form on elements of elem_size bytes
 * (1, 2, 4, 8 or 16): element e of the block for rank j is
 * source[(j * nelems + e) * sst] and it lands at dest[(i * nelems + e) * dst],
 * strides in elements, >= 1. dest and source must not overlap. */
int aos_alltoall(aos_team_t *team, void *dest, const void *source, size_t nbytes);
int aos_alltoalls(aos_team_t *team, void *dest, const void *source, size_t dst, size_t sst,
                  size_t nelems, size_t elem_size);

#endif
