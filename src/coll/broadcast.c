/* Broadcast: a pipelined tree over one-sided reads.
 *
 * The tree has three tiers: among the leaders of the team's nodes (the
 * root leads its own, else the node's lowest rank), among the leaders of
 * each node's clusters (the node's leader leads its own), then inside
 * each cluster from its leader; each tier has the per-level fan-outs the
 * model chose (coll/plan.c; one node: no first tier). A child on another
 * node than its parent gets the chunks through the network transport (one
 * get per announcement) instead of copying them; such a child is never
 * helped. Data moves in
 * chunks. A parent exposes what it has, its children copy it in parallel
 * straight from the parent's buffer (the root's source, anybody else's
 * dest: symmetric, so no staging copy), and each child tells its own
 * children as soon as a chunk has landed, so chunk c + 1 moves down one
 * level while chunk c moves down the next. The root exposes all its chunks
 * at once.
 *
 *   parent -> child : down word of the parent's rank in the child's slot =
 *                     base + chunks ready
 *   child -> parent : ack word of the child's rank in the parent's slot =
 *                     base + nchunks once it has read everything
 *
 * Where the plan says so (the model's choice, for large data), a parent,
 * idle while its children read, writes a share of each chunk into its leaf
 * children's buffers itself while they read the rest (help_share: each
 * child reads as much as the parent writes into each child), so that both
 * sides' cores copy:
 *
 *   child -> parent : enter word of the child's rank in the parent's slot =
 *                     base + 1 once the child is in this broadcast (before,
 *                     its buffer may still be in use: nobody writes it)
 *   parent -> child : help word of the parent's rank in the child's slot =
 *                     base + chunks whose share is written
 *
 * A PE returns once its children have acknowledged (its buffer is the
 * user's again) and, helped, once its parent's shares are in. The values
 * come from the team sequence: base is the sequence at entry, and every
 * member advances it by nchunks. */
#include <string.h>

#include "arch/atomics.h"
#include "arch/copy.h"
#include "coll/team.h"
#include "core/runtime.h"

/* Fan-out of level lvl (0-terminated vector; past its end the last one). */
static int level_k(const int *kv, int lvl)
{
    int k = 1;
    for (int i = 0; i <= lvl && kv[i] != 0; i++)
        k = kv[i];
    return k;
}

/* In a breadth-first tree of n positions with level fan-outs kv: the parent
 * of pos (-1 at 0) and its children [*first, *first + *count). */
static void bfs_links(int pos, int n, const int *kv, int *parent, int *first, int *count)
{
    long start = 0, width = 1, prev_start = 0;
    int lvl = 0;
    while (pos >= start + width) {
        prev_start = start;
        start += width;
        width *= level_k(kv, lvl);
        lvl++;
    }
    long q = pos - start;
    *parent = lvl == 0 ? -1 : (int)(prev_start + q / level_k(kv, lvl - 1));
    long k = level_k(kv, lvl);
    long f = start + width + q * k;
    long c = f >= n ? 0 : (f + k > n ? n - f : k);
    *first = (int)f;
    *count = (int)c;
}

/* The leader of node nd for this root: the root on its own node, else the
 * node's lowest rank. */
static int node_leader(const aos_team_t *t, int nd, int root)
{
    return t->node[root] == nd ? root : t->leader[nd];
}

/* Position of node nd in the node leaders' order (root's node first), and
 * the node at a position. */
static int node_pos(const aos_team_t *t, int nd, int root)
{
    int rn = t->node[root];
    return nd == rn ? 0 : nd + (nd < rn);
}

static int node_at(const aos_team_t *t, int pos, int root)
{
    int rn = t->node[root];
    return pos == 0 ? rn : (pos - 1 < rn ? pos - 1 : pos);
}

/* The leader of cluster c for this root: its node's leader when that is
 * in c, else the cluster's lowest rank. */
static int cluster_leader(const aos_team_t *t, int c, int root)
{
    int nl = node_leader(t, t->cluster_node[c], root);
    if (t->cluster[nl] == c)
        return nl;
    for (int r = 0; r < t->size; r++)
        if (t->cluster[r] == c)
            return r;
    return -1;
}

/* The clusters of one node in the cluster leaders' order: `first` (the
 * node leader's), then the others by number. Position of c, and the
 * cluster at a position. */
static int cluster_pos(const aos_team_t *t, int c, int first)
{
    int pos = c == first ? 0 : 1;
    for (int q = 0; c != first && q < c; q++)
        pos += q != first && t->cluster_node[q] == t->cluster_node[c];
    return pos;
}

static int cluster_at(const aos_team_t *t, int pos, int first)
{
    if (pos == 0)
        return first;
    for (int q = 0, i = 0; q < t->nclusters; q++)
        if (q != first && t->cluster_node[q] == t->cluster_node[first] && ++i == pos)
            return q;
    return -1;
}

static int clusters_on(const aos_team_t *t, int nd)
{
    int k = 0;
    for (int q = 0; q < t->nclusters; q++)
        k += t->cluster_node[q] == nd;
    return k;
}

/* Rank at position pos of cluster c's inner order (leader first). */
static int inner_rank(const aos_team_t *t, int c, int pos, int leader)
{
    if (pos == 0)
        return leader;
    for (int r = 0, i = 0; r < t->size; r++) {
        if (t->cluster[r] != c || r == leader)
            continue;
        if (++i == pos)
            return r;
    }
    return -1;
}

/* The tree links of rank `who` for this root and plan: its parent (-1 at
 * the root) and children, across nodes (node leaders), then across the
 * clusters of its node (cluster leaders), then inside its cluster; returns
 * the number of children. */
static int links_of(const aos_team_t *t, int root, int who, int *parent_out, int *children)
{
    const struct aos__bcast_plan *p = &t->plan;
    int nd = t->node[who], c = t->cluster[who];
    int nleader = node_leader(t, nd, root), leader = cluster_leader(t, c, root);
    int first = t->cluster[nleader];
    /* Its position in the cluster's order: the leader, then the rest by rank. */
    int csize = 0, mypos = who == leader ? 0 : 1;
    for (int r = 0; r < t->size; r++) {
        csize += t->cluster[r] == c;
        mypos += who != leader && r < who && t->cluster[r] == c && r != leader;
    }
    int parent, start, count, n = 0;
    *parent_out = -1;
    if (who == nleader) {
        bfs_links(node_pos(t, nd, root), t->nnodes, p->node_fanout, &parent, &start, &count);
        if (parent >= 0)
            *parent_out = node_leader(t, node_at(t, parent, root), root);
        for (int i = 0; i < count; i++)
            children[n++] = node_leader(t, node_at(t, start + i, root), root);
    }
    if (who == leader) {
        bfs_links(cluster_pos(t, c, first), clusters_on(t, nd), p->leader_fanout, &parent,
                  &start, &count);
        if (parent >= 0)
            *parent_out = cluster_leader(t, cluster_at(t, parent, first), root);
        for (int i = 0; i < count; i++)
            children[n++] = cluster_leader(t, cluster_at(t, start + i, first), root);
    }
    bfs_links(mypos, csize, p->inner_fanout, &parent, &start, &count);
    if (parent >= 0)
        *parent_out = inner_rank(t, c, parent, leader);
    for (int i = 0; i < count; i++)
        children[n++] = inner_rank(t, c, start + i, leader);
    return n;
}

/* How many of `who`'s children are leaves; leaf[i] says which. */
static int count_leaves(const aos_team_t *t, int root, int who, int *leaf)
{
    int children[3 * AOS__MAX_FANOUT], grandchildren[3 * AOS__MAX_FANOUT], parent;
    int n = links_of(t, root, who, &parent, children), leaves = 0;
    for (int i = 0; i < n; i++) {
        /* Only a leaf on its parent's node can be helped: shares are stores. */
        int is_leaf = t->node[children[i]] == t->node[who] &&
                      links_of(t, root, children[i], &parent, grandchildren) == 0;
        if (leaf != NULL)
            leaf[i] = is_leaf;
        leaves += is_leaf;
    }
    return leaves;
}

static void build_tree(aos_team_t *t, int root)
{
    struct aos__tree *tr = &t->tree;
    tr->nchildren = links_of(t, root, t->me, &tr->parent, tr->children);
    tr->nleaves = count_leaves(t, root, t->me, tr->leaf);
    tr->parent_leaves = tr->nchildren == 0 && tr->parent >= 0 &&
                                t->node[tr->parent] == t->node[t->me]
                            ? count_leaves(t, root, tr->parent, NULL)
                            : 0;
    tr->root = root;
}

static void plan_for(aos_team_t *t, size_t nbytes, int root)
{
    if (t->plan_bytes != nbytes || t->plan_model != aos__model_generation()) {
        aos__model_plan_bcast_shape(aos__model(), &t->shape, nbytes, &t->plan);
        const int *nk = t->plan.node_fanout, *lk = t->plan.leader_fanout,
                  *ik = t->plan.inner_fanout;
        aos__debug("broadcast %zu B over %d PEs on %d nodes in %d clusters: fan-outs across "
                   "nodes %d,%d,... clusters %d,%d,... inside %d,%d,..., chunk %zu%s, "
                   "predicted %.0f ns",
                   nbytes, t->size, t->nnodes, t->nclusters, nk[0], nk[0] ? nk[1] : 0, lk[0],
                   lk[0] ? lk[1] : 0, ik[0], ik[0] ? ik[1] : 0, t->plan.chunk,
                   t->plan.help ? ", helped" : "", t->plan.predicted_ns);
        t->plan_bytes = nbytes;
        t->plan_model = aos__model_generation();
        t->tree.root = -1;
    }
    if (t->tree.root != root)
        build_tree(t, root);
}

/* A broadcast this small pushes the data to children on other nodes with
 * its announcement (put_signal, one message); larger ones announce each
 * chunk and the child gets it, and the parent waits for its ack before its
 * buffer may change. A pushed child tells its parent it has entered (its
 * enter word); were the data put into its dest, that could happen only
 * once it has. Those up to AOS__BCAST_STAGE_BYTES (staged: every pushed one
 * today) go instead into one of the child's two staging buffers, by
 * parity, which the child copies to dest: the parent needs the child to
 * have entered the staged broadcast before, not this one (it is done with
 * the buffer of the one before that), so a stream of them does not wait a
 * message from the child each. That evidence is in my slot only
 * when the child's parent then was me; for a child that was not mine in
 * the last staged broadcast, the parent waits for this broadcast's entry,
 * as for pushed ones. */
static int pushed(size_t nbytes)
{
    return nbytes <= AOS__PUT_SIGNAL_MAX;
}

_Static_assert(AOS__BCAST_STAGE_BYTES <= AOS__PUT_SIGNAL_MAX, "staged broadcasts are pushed");

static int staged(size_t nbytes)
{
    return nbytes <= AOS__BCAST_STAGE_BYTES;
}

/* Where a pushed broadcast's data goes at a child. */
static uint64_t push_off(const aos_team_t *t, size_t nbytes, uint64_t dest_off)
{
    return staged(nbytes) ? aos__slot_off(t->slot) + AOS__SLOT_STAGE(aos__rt.npes, t->push.parity)
                          : dest_off;
}

/* Sets t->push for a broadcast of nbytes at base, with its tree built. */
static void plan_push(aos_team_t *t, size_t nbytes, uint64_t base)
{
    const struct aos__tree *tr = &t->tree;
    if (!t->net)
        return; /* no child on another node */
    int stage = staged(nbytes);
    for (int i = 0; i < tr->nchildren; i++) {
        int before = 0;
        for (int j = 0; stage && j < t->push.nprev; j++)
            before |= t->push.prev[j] == tr->children[i];
        /* Entered the last staged broadcast, as my child: see above. */
        t->push.after[i] = before ? t->push.last_base + 1 : base + 1;
    }
    if (!stage)
        return;
    t->push.nprev = 0;
    for (int i = 0; i < tr->nchildren; i++)
        if (t->node[tr->children[i]] != t->node[t->me])
            t->push.prev[t->push.nprev++] = tr->children[i];
    t->push.last_base = base;
    t->push.parity = (int)(t->push.staged++ & 1);
}

/* Announces chunks up to `value` to my children; with `data` (all of it is
 * in, and the broadcast is small), pushes it to those on other nodes. */
static int signal_children(const aos_team_t *t, uint64_t value, const char *data,
                           uint64_t dest_off, size_t nbytes)
{
    for (int i = 0; i < t->tree.nchildren; i++) {
        int c = t->tree.children[i], rc;
        if (pushed(nbytes) && t->node[c] != t->node[t->me]) {
            if (data == NULL)
                continue;
            rc = aos__team_wait(t, AOS__SLOT_ENTER(c), t->push.after[i]);
            if (rc == AOS_OK) {
                int pe = t->pes[c];
                aos__coll_count_net();
                rc = aos__tp(pe)->put_signal(pe, push_off(t, nbytes, dest_off), data, nbytes,
                                             aos__slot_off(t->slot) + AOS__SLOT_DOWN(t->me),
                                             value);
            }
        } else {
            rc = aos__team_signal(t, c, AOS__SLOT_DOWN(t->me), value);
        }
        if (rc != AOS_OK)
            return rc;
    }
    return AOS_OK;
}

/* Bytes [*lo, *hi) of chunk c. */
static void chunk_range(uint64_t c, size_t chunk, size_t nbytes, size_t *lo, size_t *hi)
{
    *lo = (size_t)c * chunk;
    *hi = *lo + chunk < nbytes ? *lo + chunk : nbytes;
}

/* The tail of a chunk of len bytes that a parent with `leaves` leaf children
 * writes into each of them while they read the rest (a helped plan): as
 * much as each child reads, in whole lines. */
static size_t help_share(size_t len, int leaves)
{
    return leaves > 0 ? (len / (size_t)(leaves + 1)) & ~(size_t)(AOS__LINE - 1) : 0;
}

/* Writes the shares of chunks [from, to) of my copy of the data into my
 * leaf children's dest, each once it has entered this broadcast (before,
 * its buffer may still be in use), then tells them how far that has got. */
static int push_shares(aos_team_t *t, const char *mine, uint64_t dest_off, size_t nbytes,
                       size_t chunk, uint64_t base, uint64_t from, uint64_t to)
{
    const struct aos__tree *tr = &t->tree;
    for (int i = 0; i < tr->nchildren; i++) {
        if (!tr->leaf[i])
            continue;
        int rc = aos__team_wait(t, AOS__SLOT_ENTER(tr->children[i]), base + 1);
        if (rc != AOS_OK)
            return rc;
    }
    for (uint64_t c = from; c < to; c++) { /* chunk by chunk: mine stays in cache */
        size_t lo, hi;
        chunk_range(c, chunk, nbytes, &lo, &hi);
        size_t share = help_share(hi - lo, tr->nleaves);
        for (int i = 0; share != 0 && i < tr->nchildren; i++)
            if (tr->leaf[i])
                aos__copy(aos__team_peer(t, tr->children[i], dest_off) + hi - share,
                          mine + hi - share, share);
    }
    for (int i = 0; i < tr->nchildren; i++) {
        if (!tr->leaf[i])
            continue;
        /* Release (in the signal): the shares are in place before the count. */
        int rc = aos__team_signal(t, tr->children[i], AOS__SLOT_HELP(t->me), base + to);
        if (rc != AOS_OK)
            return rc;
    }
    return AOS_OK;
}

/* Copies chunks from the parent's buffer as they are announced, passing
 * each announcement on to my children (and, with help, writing my leaf
 * children's shares). A helped leaf copies each chunk but the share its
 * parent writes, and returns once that has arrived too. */
static int receive(aos_team_t *t, char *dest, uint64_t from_off, uint64_t dest_off,
                   size_t nbytes, size_t chunk, uint64_t base, uint64_t nchunks, int help)
{
    const struct aos__tree *tr = &t->tree;
    int helped = help && tr->nchildren == 0 ? tr->parent_leaves : 0;
    const uint64_t *word = (const uint64_t *)(void *)(aos__rt.my_base + aos__slot_off(t->slot) +
                                                      AOS__SLOT_DOWN(tr->parent));
    /* A parent on another node: its chunks come by gets, or pushed. */
    int far = t->node[tr->parent] != t->node[t->me];
    if (far && pushed(nbytes)) {
        int rc = aos__team_signal(t, tr->parent, AOS__SLOT_ENTER(t->me), base + 1);
        if (rc == AOS_OK) /* the data is in dest, or staged, with the announcement */
            rc = aos__team_wait(t, AOS__SLOT_DOWN(tr->parent), base + nchunks);
        if (rc == AOS_OK && staged(nbytes))
            memcpy(dest, aos__rt.my_base + push_off(t, nbytes, dest_off), nbytes);
        if (rc == AOS_OK)
            rc = signal_children(t, base + nchunks, dest, dest_off, nbytes);
        if (rc == AOS_OK && help && tr->nleaves > 0)
            rc = push_shares(t, dest, dest_off, nbytes, chunk, base, 0, nchunks);
        return rc; /* (and no ack: my parent does not wait for one) */
    }
    const char *from = far ? NULL : aos__team_peer(t, tr->parent, from_off);
    uint64_t done = base; /* chunks below done - base are copied */
    while (done < base + nchunks) {
        int rc = aos__team_wait(t, AOS__SLOT_DOWN(tr->parent), done + 1);
        if (rc != AOS_OK)
            return rc;
        /* Acquire: pairs with the release in the parent's signal_store, after
         * which the chunks it announces are in its buffer. */
        uint64_t ready = aos__load_acquire(word);
        if (ready > base + nchunks)
            ready = base + nchunks;
        if (far) { /* the announced chunks in one get (never helped) */
            size_t lo, hi, last_lo;
            chunk_range(done - base, chunk, nbytes, &lo, &hi);
            chunk_range(ready - base - 1, chunk, nbytes, &last_lo, &hi);
            rc = aos__team_read(t, tr->parent, from_off + lo, dest + lo, hi - lo);
        }
        for (uint64_t c = done - base; !far && c < ready - base; c++) {
            size_t lo, hi;
            chunk_range(c, chunk, nbytes, &lo, &hi);
            size_t end = hi - help_share(hi - lo, helped);
            aos__copy(dest + lo, from + lo, end - lo);
        }
        if (rc == AOS_OK)
            rc = signal_children(t, ready, ready == base + nchunks ? dest : NULL, dest_off,
                                 nbytes);
        if (rc == AOS_OK && help && tr->nleaves > 0)
            rc = push_shares(t, dest, dest_off, nbytes, chunk, base, done - base, ready - base);
        if (rc != AOS_OK)
            return rc;
        done = ready;
    }
    int rc = aos__team_signal(t, tr->parent, AOS__SLOT_ACK(t->me), base + nchunks);
    if (rc == AOS_OK && helped)
        rc = aos__team_wait(t, AOS__SLOT_HELP(tr->parent), base + nchunks);
    return rc;
}

int aos_broadcast(aos_team_t *team, void *dest, const void *source, size_t nbytes, int root)
{
    int rc = aos__coll_check(team);
    if (rc != AOS_OK)
        return rc;
    uint64_t dest_off, src_off;
    rc = root < 0 || root >= team->size ? AOS_ERR_PE : AOS_OK;
    if (rc == AOS_OK)
        rc = aos__coll_locate(dest, nbytes, &dest_off);
    if (rc == AOS_OK)
        rc = aos__coll_locate(source, nbytes, &src_off);
    if (rc == AOS_OK && dest != source && aos__overlap(dest, nbytes, source, nbytes))
        rc = AOS_ERR_OVERLAP;
    rc = aos__coll_agree(team, AOS__AGREE_BROADCAST, rc,
                         (const uint64_t[]){(uint64_t)(int64_t)root, nbytes});
    if (rc != AOS_OK)
        return rc;
    if (nbytes == 0 || team->size == 1) {
        if (team->me == root && dest != source)
            aos__copy(dest, source, nbytes);
        return AOS_OK;
    }
    plan_for(team, nbytes, root);
    size_t chunk = team->plan.chunk;
    uint64_t nchunks = (nbytes + chunk - 1) / chunk;
    uint64_t base = team->seq;
    team->seq += nchunks;
    plan_push(team, nbytes, base);
    int help = team->plan.help;
    if (team->me == root) {
        rc = signal_children(team, base + nchunks, source, dest_off, nbytes);
        if (rc == AOS_OK && help && team->tree.nleaves > 0)
            rc = push_shares(team, source, dest_off, nbytes, chunk, base, 0, nchunks);
        if (rc == AOS_OK && dest != source)
            aos__copy(dest, source, nbytes);
    } else {
        if (help && team->tree.parent_leaves > 0) /* my parent may write my buffer from now */
            rc = aos__team_signal(team, team->tree.parent, AOS__SLOT_ENTER(team->me), base + 1);
        /* The root's data is in its source; everybody else's in its dest. */
        uint64_t from = team->tree.parent == root ? src_off : dest_off;
        if (rc == AOS_OK)
            rc = receive(team, dest, from, dest_off, nbytes, chunk, base, nchunks, help);
    }
    for (int i = 0; rc == AOS_OK && i < team->tree.nchildren; i++) {
        int c = team->tree.children[i];
        if (!pushed(nbytes) || team->node[c] == team->node[team->me]) /* pushed: no ack */
            rc = aos__team_wait(team, AOS__SLOT_ACK(c), base + nchunks);
    }
    return rc;
}
