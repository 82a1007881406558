/* Teams: slot allocation, the predefined teams, splits, translation. */
#include "coll/team.h"

#include <stdlib.h>
#include <string.h>

#include "arch/atomics.h"
#include "arch/copy.h"
#include "core/runtime.h"
#include "core/wait.h"
#include "mem/memory.h"

enum { SLOT_WORLD, SLOT_NODE, SLOT_CLUSTER, SLOTS_PREDEFINED };

/* Per-PE bookkeeping. `floor` is the highest sequence value any team that
 * lived in one of my slots reached: a new team starts above the floors of
 * all its members, so nothing stale in a reused slot satisfies its waits. */
static struct {
    uint64_t used; /* bit s: slot s holds a team of mine */
    uint64_t floor;
    aos_team_t *predefined[SLOTS_PREDEFINED];
} coll;

uint64_t aos__slot_off(int slot)
{
    return aos__rt.coll_off + (uint64_t)slot * aos__slot_size(aos__rt.npes);
}

int aos__team_check(const aos_team_t *team)
{
    AOS__CHECK_INIT();
    if (team == NULL)
        return AOS_ERR_NULL;
    if (team->slot < 0 || team->slot >= AOS__TEAM_SLOTS || !(coll.used >> team->slot & 1))
        return AOS_ERR_INVALID;
    return AOS_OK;
}

int aos__coll_check(const aos_team_t *team)
{
    int rc = aos__team_check(team);
    if (rc == AOS_OK && aos__in_rpc_handler())
        return AOS_ERR_INVALID; /* the team's other PEs may wait on this handler */
    return rc;
}

int aos__coll_locate(const void *addr, size_t len, uint64_t *off)
{
    if (len == 0) {
        *off = 0;
        return AOS_OK;
    }
    if (addr == NULL)
        return AOS_ERR_NULL;
    return aos__sym_locate(addr, len, off);
}

/* Per thread: read by the thread that made the calls it counts, so no
 * atomic increment on every network step. */
static AOS__TLS uint64_t net_ops;

uint64_t aos__coll_net_ops(void)
{
    return net_ops;
}

void aos__coll_count_net(void)
{
    net_ops++;
}

int aos__team_signal(const aos_team_t *team, int rank, size_t word_off, uint64_t value)
{
    int pe = team->pes[rank];
    if (!aos__on_node(pe))
        aos__coll_count_net();
    return aos__tp(pe)->signal_store(pe, aos__slot_off(team->slot) + word_off, value);
}

int aos__team_read(const aos_team_t *team, int rank, uint64_t off, void *dst, size_t len)
{
    int pe = team->pes[rank];
    if (aos__on_node(pe)) {
        aos__copy(dst, aos__rt.peers[pe].base + off, len);
        return AOS_OK;
    }
    aos__coll_count_net();
    return aos__tp(pe)->get(dst, pe, off, len, NULL);
}

int aos__team_wait(const aos_team_t *team, size_t word_off, uint64_t value)
{
    /* The signaller's release pairs with the acquire in there: what it
     * wrote before (data it moved) is visible to me on return. */
    return aos__wait_arena_word(aos__slot_off(team->slot) + word_off, value);
}

/* ---- making and freeing teams ---------------------------------------------- */

/* The most members of one node and of one cluster, the most clusters on
 * one node, and whether each node's ranks are consecutive. */
static void team_shape(aos_team_t *t)
{
    struct aos__shape *sh = &t->shape;
    *sh = (struct aos__shape){.n = t->size, .nnodes = t->nnodes, .nodes_in_order = 1};
    /* Nodes are numbered in order of their first rank: in order when each
     * rank is on its predecessor's node or the next one. */
    for (int r = 1; r < t->size; r++)
        if (t->node[r] != t->node[r - 1] && t->node[r] != t->node[r - 1] + 1)
            sh->nodes_in_order = 0;
    for (int nd = 0; nd < t->nnodes; nd++) {
        int pes = 0, clusters = 0;
        for (int r = 0; r < t->size; r++)
            pes += t->node[r] == nd;
        for (int c = 0; c < t->nclusters; c++)
            clusters += t->cluster_node[c] == nd;
        sh->node_max = pes > sh->node_max ? pes : sh->node_max;
        sh->node_clusters = clusters > sh->node_clusters ? clusters : sh->node_clusters;
    }
    for (int c = 0; c < t->nclusters; c++) {
        int pes = 0;
        for (int r = 0; r < t->size; r++)
            pes += t->cluster[r] == c;
        sh->cluster_max = pes > sh->cluster_max ? pes : sh->cluster_max;
    }
}

/* A team of the given world PEs (me among them) in `slot`, starting at seq. */
static int team_new(const int *pes, int n, int slot, uint64_t seq, aos_team_t **out)
{
    const struct aos__runtime *rt = &aos__rt;
    aos_team_t *t = calloc(1, sizeof *t);
    int *list = malloc(6 * (size_t)n * sizeof *list);
    if (t == NULL || list == NULL) {
        free(list);
        free(t);
        return AOS_ERR_NO_MEMORY;
    }
    t->pes = list;
    t->cluster = list + n;
    t->node = list + 2 * (size_t)n;
    t->cluster_node = list + 3 * (size_t)n;
    t->leader = list + 4 * (size_t)n;
    t->mine = list + 5 * (size_t)n;
    t->size = n;
    t->me = -1;
    for (int r = 0; r < n; r++) {
        t->pes[r] = pes[r];
        if (pes[r] == rt->me)
            t->me = r;
        if (!aos__on_node(pes[r]))
            t->net = 1;
        /* Clusters renumbered 0.. in order of their first member. */
        int c = -1;
        for (int q = 0; q < r && c < 0; q++)
            if (rt->peers[pes[q]].cluster == rt->peers[pes[r]].cluster &&
                rt->peers[pes[q]].node == rt->peers[pes[r]].node)
                c = t->cluster[q];
        t->cluster[r] = c >= 0 ? c : t->nclusters++;
        /* Nodes likewise; a node's first rank is its leader. */
        int nd = -1;
        for (int q = 0; q < r && nd < 0; q++)
            if (rt->peers[pes[q]].node == rt->peers[pes[r]].node)
                nd = t->node[q];
        if (nd < 0) {
            nd = t->nnodes++;
            t->leader[nd] = r;
        }
        t->node[r] = nd;
        t->cluster_node[t->cluster[r]] = nd;
    }
    for (int r = 0; r < n; r++)
        if (t->me >= 0 && t->node[r] == t->node[t->me])
            t->mine[t->nmine++] = r;
    team_shape(t);
    t->slot = slot;
    t->seq = seq;
    t->tree.root = -1;
    coll.used |= 1ull << slot;
    *out = t;
    return AOS_OK;
}

static void team_free(aos_team_t *t)
{
    if (t->seq > coll.floor)
        coll.floor = t->seq;
    coll.used &= ~(1ull << t->slot);
    free(t->pes);
    free(t);
}

/* The predefined team of the PEs for which same(me, pe) holds. */
static int team_predefined(int slot, int (*same)(int, int), int *scratch)
{
    int n = 0;
    for (int pe = 0; pe < aos__rt.npes; pe++)
        if (same(aos__rt.me, pe))
            scratch[n++] = pe;
    int rc = team_new(scratch, n, slot, 0, &coll.predefined[slot]);
    if (rc == AOS_OK)
        coll.predefined[slot]->predefined = 1;
    return rc;
}

static int same_all(int a, int b)
{
    (void)a, (void)b;
    return 1;
}

static int same_node(int a, int b)
{
    return aos__rt.peers[a].node == aos__rt.peers[b].node;
}

static int same_cluster(int a, int b)
{
    return same_node(a, b) && aos__rt.peers[a].cluster == aos__rt.peers[b].cluster;
}

int aos__coll_start(void)
{
    int *scratch = calloc((size_t)aos__rt.npes, sizeof *scratch);
    if (scratch == NULL)
        return AOS_ERR_NO_MEMORY;
    memset(&coll, 0, sizeof coll);
    int rc = aos__model_start();
    if (rc == AOS_OK)
        rc = team_predefined(SLOT_WORLD, same_all, scratch);
    if (rc == AOS_OK)
        rc = team_predefined(SLOT_NODE, same_node, scratch);
    if (rc == AOS_OK)
        rc = team_predefined(SLOT_CLUSTER, same_cluster, scratch);
    free(scratch);
    if (rc != AOS_OK)
        aos__coll_stop();
    return rc;
}

void aos__coll_stop(void)
{
    for (int s = SLOTS_PREDEFINED - 1; s >= 0; s--) {
        if (coll.predefined[s] != NULL)
            team_free(coll.predefined[s]);
        coll.predefined[s] = NULL;
    }
}

aos_team_t *aos_team_world(void)
{
    return aos__rt.initialized ? coll.predefined[SLOT_WORLD] : NULL;
}

aos_team_t *aos_team_node(void)
{
    return aos__rt.initialized ? coll.predefined[SLOT_NODE] : NULL;
}

aos_team_t *aos_team_cluster(void)
{
    return aos__rt.initialized ? coll.predefined[SLOT_CLUSTER] : NULL;
}

int aos_team_my_pe(const aos_team_t *team)
{
    return aos__team_check(team) == AOS_OK ? team->me : -1;
}

int aos_team_n_pes(const aos_team_t *team)
{
    return aos__team_check(team) == AOS_OK ? team->size : -1;
}

int aos_team_translate_pe(const aos_team_t *src, int pe, const aos_team_t *dst, int *dst_pe)
{
    int rc = aos__team_check(src);
    if (rc == AOS_OK)
        rc = aos__team_check(dst);
    if (rc != AOS_OK)
        return rc;
    if (dst_pe == NULL)
        return AOS_ERR_NULL;
    if (pe < 0 || pe >= src->size)
        return AOS_ERR_PE;
    int world = src->pes[pe], found = -1;
    for (int r = 0; r < dst->size && found < 0; r++)
        if (dst->pes[r] == world)
            found = r;
    *dst_pe = found;
    return AOS_OK;
}

int aos_team_destroy(aos_team_t *team)
{
    int rc = aos__team_check(team);
    if (rc != AOS_OK)
        return rc;
    if (team->predefined)
        return AOS_ERR_INVALID;
    team_free(team);
    return AOS_OK;
}

/* What each PE of the parent contributes when a split is agreed. */
struct split_vote {
    uint64_t free_slots; /* bit s: slot s is free here */
    uint64_t floor;
    int64_t args[3];     /* the caller's arguments, compared across PEs */
};

/* Agrees with the other PEs of parent on `nslots` slots free on all of them
 * (lowest first) and a starting sequence above all their floors. Every PE
 * gets the same answer, or the same error: AOS_ERR_INVALID when the
 * arguments differ or are not `valid`, AOS_ERR_TOO_MANY when too few slots
 * are free. Arguments are checked after the exchange, so that no PE leaves
 * early while the others wait for it. */
static int split_agree(aos_team_t *parent, const int64_t args[3], int valid, int nslots,
                       int *slots, uint64_t *seq)
{
    struct split_vote mine = {~coll.used, coll.floor, {args[0], args[1], args[2]}};
    const struct aos__xchg_entry *all;
    int rc = aos__team_exchange(parent, &mine, sizeof mine, &all);
    if (rc != AOS_OK)
        return rc;
    uint64_t free_all = ~0ull, top = 0;
    int same = 1;
    for (int r = 0; r < parent->size; r++) {
        struct split_vote v;
        memcpy(&v, all[r].data, sizeof v);
        free_all &= v.free_slots;
        top = v.floor > top ? v.floor : top;
        same &= memcmp(v.args, mine.args, sizeof v.args) == 0;
    }
    if (!same || !valid)
        return AOS_ERR_INVALID;
    for (int i = 0; i < nslots; i++) {
        if (free_all == 0)
            return AOS_ERR_TOO_MANY;
        slots[i] = __builtin_ctzll(free_all);
        free_all &= free_all - 1;
    }
    *seq = top;
    return AOS_OK;
}

int aos_team_split_strided(aos_team_t *parent, int start, int stride, int size,
                           aos_team_t **team)
{
    int rc = aos__coll_check(parent);
    if (rc != AOS_OK)
        return rc;
    if (team == NULL)
        return AOS_ERR_NULL;
    int n = parent->size;
    int valid = start >= 0 && start < n && stride >= 1 && size >= 1 &&
                (int64_t)start + (int64_t)stride * (size - 1) < n;
    int64_t args[3] = {start, stride, size};
    int slot;
    uint64_t seq;
    rc = split_agree(parent, args, valid, 1, &slot, &seq);
    if (rc != AOS_OK)
        return rc;
    int rel = parent->me - start;
    if (rel < 0 || rel % stride != 0 || rel / stride >= size) {
        *team = NULL;
        return AOS_OK;
    }
    int *pes = malloc((size_t)size * sizeof *pes);
    if (pes == NULL)
        return AOS_ERR_NO_MEMORY;
    for (int i = 0; i < size; i++)
        pes[i] = parent->pes[start + i * stride];
    rc = team_new(pes, size, slot, seq, team);
    free(pes);
    return rc;
}

int aos_team_split_2d(aos_team_t *parent, int xrange, aos_team_t **xteam, aos_team_t **yteam)
{
    int rc = aos__coll_check(parent);
    if (rc != AOS_OK)
        return rc;
    if (xteam == NULL || yteam == NULL)
        return AOS_ERR_NULL;
    int n = parent->size;
    int64_t args[3] = {xrange, 0, 0};
    int slots[2];
    uint64_t seq;
    rc = split_agree(parent, args, xrange >= 1, 2, slots, &seq);
    if (xrange > n)
        xrange = n;
    if (rc != AOS_OK)
        return rc;
    int row = parent->me / xrange, col = parent->me % xrange;
    int *pes = malloc((size_t)n * sizeof *pes);
    if (pes == NULL)
        return AOS_ERR_NO_MEMORY;
    int nx = 0, ny = 0;
    for (int r = row * xrange; r < n && r < (row + 1) * xrange; r++)
        pes[nx++] = parent->pes[r];
    aos_team_t *x = NULL, *y = NULL;
    rc = team_new(pes, nx, slots[0], seq, &x);
    if (rc == AOS_OK) {
        for (int r = col; r < n; r += xrange)
            pes[ny++] = parent->pes[r];
        rc = team_new(pes, ny, slots[1], seq, &y);
        if (rc != AOS_OK)
            team_free(x);
    }
    free(pes);
    if (rc != AOS_OK)
        return rc;
    *xteam = x;
    *yteam = y;
    return AOS_OK;
}
