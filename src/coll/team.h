/* Teams and the shared words their collectives synchronise on.
 *
 * Every PE's arena holds AOS__TEAM_SLOTS team slots (layout below, region
 * [coll_off, +coll_size) of core/layout.h). A team occupies the same slot
 * index on all its members, chosen when the team is made from the slots
 * free on every member of the parent. Each PE waits only on words in its own
 * slot, which the others write with the transport's signal_store (a release
 * store that wakes a sleeping owner); data moves by load/store between the
 * members' symmetric buffers.
 *
 * Every signalled word holds a value of the team's sequence `seq`, which all
 * members advance identically, collective by collective, and which never
 * goes back (a reused slot starts above everything its old team wrote). So
 * no flag is ever reset: a waiter asks "has this word reached v?". */
#ifndef AOS_COLL_TEAM_H
#define AOS_COLL_TEAM_H

#include <stddef.h>
#include <stdint.h>

#include "aos.h"
#include "core/layout.h"
#include "coll/model.h"
#include "core/runtime.h"

#define AOS__TEAM_SLOTS 64     /* bits of the free mask */
#define AOS__MAX_FANOUT 32     /* children of one PE in a broadcast tree */
#define AOS__XCHG_BYTES 512    /* largest contribution to an exchange */
/* From this many bytes up, the planner weighs a broadcast whose parents
 * write a share of each chunk into their leaf children's buffers while they
 * read the rest (below, the shares would be a few lines). */
#define AOS__HELP_MIN_BYTES (4u << 10)

/* A slot: the barrier's round words, then four words per team rank, then the
 * exchange entries [2][npes] (two parities), then the broadcast staging
 * buffers [2] (two parities). */
struct aos__slot_head {
    struct aos__line_word round[AOS__MAX_BARRIER_ROUNDS]; /* barrier round r */
};

/* Words that team rank r writes into my slot. Keyed by the writer, not by
 * its position in a tree: the trees change with the root, and a PE already
 * in its next broadcast must not overwrite what its predecessor in my tree
 * still has to tell me. */
struct aos__slot_rank {
    struct aos__line_word down;  /* r is my parent: chunks ready in its buffer */
    struct aos__line_word ack;   /* r is my child: done reading my buffer */
    struct aos__line_word help;  /* r is my parent: chunks whose share it wrote into mine */
    struct aos__line_word enter; /* r is my child: in this broadcast, its buffer writable */
};
_Static_assert(sizeof(struct aos__slot_head) == AOS__MAX_BARRIER_ROUNDS * AOS__LINE,
               "slot head is whole lines");
_Static_assert(sizeof(struct aos__slot_rank) == 4 * AOS__LINE, "four lines per rank");

/* One member's contribution to an exchange, pushed into every member's slot:
 * the data, then (release) the sequence value that says it is there. */
struct aos__xchg_entry {
    unsigned char data[AOS__XCHG_BYTES];
    struct aos__line_word seq;
};
_Static_assert(sizeof(struct aos__xchg_entry) == AOS__XCHG_BYTES + AOS__LINE, "entry lines");
_Static_assert(offsetof(struct aos__xchg_entry, seq) % AOS__LINE == 0, "seq on its own line");

/* Where a parent on another node puts a broadcast's data for me without
 * waiting for me to enter the broadcast (my dest may still be in use
 * then), up to this size: coll/broadcast.c. */
#define AOS__BCAST_STAGE_BYTES 65536
struct aos__bcast_stage {
    unsigned char data[AOS__BCAST_STAGE_BYTES];
};
_Static_assert(sizeof(struct aos__bcast_stage) % AOS__LINE == 0, "stage lines");

static inline uint64_t aos__slot_size(int npes)
{
    return sizeof(struct aos__slot_head) + (uint64_t)npes * sizeof(struct aos__slot_rank) +
           2u * (uint64_t)npes * sizeof(struct aos__xchg_entry) +
           2u * sizeof(struct aos__bcast_stage);
}

/* Byte offsets inside a slot. */
#define AOS__SLOT_ROUND(r) ((size_t)(r) * AOS__LINE)
#define AOS__SLOT_DOWN(rank)                                                               \
    (sizeof(struct aos__slot_head) + (size_t)(rank) * sizeof(struct aos__slot_rank))
#define AOS__SLOT_ACK(rank) (AOS__SLOT_DOWN(rank) + AOS__LINE)
#define AOS__SLOT_HELP(rank) (AOS__SLOT_DOWN(rank) + 2 * AOS__LINE)
#define AOS__SLOT_ENTER(rank) (AOS__SLOT_DOWN(rank) + 3 * AOS__LINE)
#define AOS__SLOT_ENTRY(npes, parity, rank)                                                \
    (sizeof(struct aos__slot_head) + (size_t)(npes) * sizeof(struct aos__slot_rank) +      \
     ((size_t)(parity) * (size_t)(npes) + (size_t)(rank)) * sizeof(struct aos__xchg_entry))
#define AOS__SLOT_STAGE(npes, parity)                                                      \
    (AOS__SLOT_ENTRY(npes, 2, 0) + (size_t)(parity) * sizeof(struct aos__bcast_stage))

/* The broadcast tree around one PE for one root (see team.c). */
struct aos__tree {
    int root;                          /* team rank the tree is built for; -1 none */
    int parent;                        /* team rank; -1 at the root */
    int nchildren;
    int children[3 * AOS__MAX_FANOUT]; /* team ranks: across nodes, clusters, then inside */
    int leaf[3 * AOS__MAX_FANOUT];     /* children[i] has none of its own, on its node */
    int nleaves;                       /* my leaf children (I help them) */
    int parent_leaves;                 /* my parent's leaf children, when I am a leaf */
};

struct aos_team {
    int slot;
    int size;        /* members */
    int me;          /* my rank in the team */
    int *pes;        /* world PE of each rank */
    int *cluster;    /* cluster of each rank, renumbered 0.. in order of first rank */
    int nclusters;
    /* The node tier (teams with members on several nodes): node of each
     * rank, renumbered 0.. in order of first rank; node of each cluster; the
     * lowest rank on each node (its leader in barriers and exchanges); the
     * ranks on my node in rank order (mine[0] is my node's leader). */
    int *node;
    int nnodes;
    int *cluster_node;
    int *leader;
    int *mine;
    int nmine;
    struct aos__shape shape; /* what the planner sees */
    uint64_t seq;    /* the team's sequence (see above) */
    uint64_t xchg_count; /* exchanges done: their parity */
    int predefined;  /* world/node/cluster: not destroyed by the user */
    int net;         /* some member is on another node: data moves by get and put */
    struct aos__tree tree; /* cached for the last root and plan */
    struct {               /* broadcasts pushed across nodes (coll/broadcast.c) */
        uint64_t staged;    /* staged ones so far: their parity */
        uint64_t last_base; /* the last staged one's base */
        int prev[3 * AOS__MAX_FANOUT]; /* and my children on other nodes in it */
        int nprev;
        uint64_t after[3 * AOS__MAX_FANOUT]; /* this one: child i's enter word before my push */
        int parity;         /* this one: staging buffer */
    } push;
    size_t plan_bytes;     /* the size `plan` was made for; 0 none */
    unsigned plan_model;   /* and the model generation */
    struct aos__bcast_plan plan;
    size_t reduce_bytes;   /* the all-reduce size `reduce_algo` was chosen for; 0 none */
    unsigned reduce_model; /* and the model generation */
    enum aos__allreduce_algo reduce_algo; /* the model's choice */
};

/* Start: slots 0-2 become world, node and cluster. Stop frees them. */
int aos__coll_start(void);
void aos__coll_stop(void);

/* Arena offset of a word in `slot` (same on every PE). */
uint64_t aos__slot_off(int slot);

/* Signals `value` into the word at byte `word_off` of the slot of team rank
 * `rank` (its owner's acquire load pairs with the release inside). */
int aos__team_signal(const aos_team_t *team, int rank, size_t word_off, uint64_t value);
/* Waits until my slot's word at word_off has reached value. */
int aos__team_wait(const aos_team_t *team, size_t word_off, uint64_t value);
/* Where symmetric memory at arena offset `off` is on team rank `rank`, who
 * must be on my node (team->net == 0, or aos__on_node checked). */
static inline char *aos__team_peer(const aos_team_t *team, int rank, uint64_t off)
{
    return aos__rt.peers[team->pes[rank]].base + off;
}

/* Network operations (signals, puts, gets) the calling thread's
 * collectives have issued: tests read it to see which tier a collective
 * took. */
uint64_t aos__coll_net_ops(void);
void aos__coll_count_net(void);

/* Copies len bytes of team rank `rank`'s arena at off into dst: a load on
 * my node, a get from another. */
int aos__team_read(const aos_team_t *team, int rank, uint64_t off, void *dst, size_t len);

/* Barrier over the team without the quiet of the public barrier. */
int aos__team_sync(aos_team_t *team);
/* All members contribute len <= AOS__XCHG_BYTES bytes; on return *entries
 * points at an array of team->size entries of my slot, entry r holding rank
 * r's contribution, valid until the team's exchange after next. */
int aos__team_exchange(aos_team_t *team, const void *mine, size_t len,
                       const struct aos__xchg_entry **entries);

/* Checks the handle: AOS_ERR_NULL / AOS_ERR_NOT_INITIALIZED / AOS_ERR_INVALID. */
int aos__team_check(const aos_team_t *team);
/* aos__team_check for a call every member takes part in: also refused
 * (AOS_ERR_INVALID) inside an RPC handler. */
int aos__coll_check(const aos_team_t *team);
/* 1 when [a, a + alen) and [b, b + blen) share a byte. */
static inline int aos__overlap(const void *a, size_t alen, const void *b, size_t blen)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return alen > 0 && blen > 0 && x < y + blen && y < x + alen;
}

/* AOS_CHECK=1 (agree.c): the collectives whose arguments members compare,
 * and how many arguments one comparison holds. */
enum {
    AOS__AGREE_BROADCAST,
    AOS__AGREE_REDUCE,
    AOS__AGREE_ALLREDUCE,
    AOS__AGREE_FCOLLECT,
    AOS__AGREE_COLLECT,
    AOS__AGREE_ALLTOALL,
    AOS__AGREE_ALLTOALLS,
    AOS__AGREE_ALIGN,
    AOS__AGREE_CALLOC,
    AOS__AGREE_REALLOC,
    AOS__AGREE_FREE,
};
#define AOS__AGREE_ARGS 4
/* Called by every member at a collective's entry, after aos__coll_check,
 * with the status of its own argument checks (not returning early: the
 * others would wait for it). Without AOS_CHECK returns `status`. With it,
 * the members exchange the collective's kind and args (as many as that kind
 * compares) and every member returns an error when anything differs or any
 * member's status is not AOS_OK: its own status, else AOS_ERR_INVALID,
 * with a line on stderr naming the collective, the PE and the argument. */
int aos__coll_agree(aos_team_t *team, int kind, int status, const uint64_t *args);
/* The same exchange whether AOS_CHECK is on or not, for calls whose
 * failure on one member alone would leave the members' state differing
 * (the symmetric heap's): when any member's status is not 0, every member
 * fails (its own status, else AOS_ERR_INVALID). On return every member has
 * entered the call. */
int aos__coll_agree_status(aos_team_t *team, int kind, int status, const uint64_t *args);

/* *off = the arena offset of symmetric [addr, addr + len); len 0 passes
 * (with *off 0). AOS_ERR_NOT_SYMMETRIC / AOS_ERR_BOUNDS otherwise. */
int aos__coll_locate(const void *addr, size_t len, uint64_t *off);

#endif
