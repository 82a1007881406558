/* Planning collectives with the machine model: predicted times, and the
 * broadcast tree that minimises them ("optimal broadcast tree": choose the
 * depth d and fan-outs k_1..k_d minimising the sum of per-level costs).
 *
 * The model predicts collectives over data their sources have just written
 * (as after a computation), so copying s bytes of another PE's data costs
 * one fresh line (line_fresh: a miss the writer's cache serves) and a cost
 * per further byte measured at four sizes (fresh_per_byte): G_dirty for a
 * broadcast's copies, which start as the call does, G_synced for a
 * reduction's gather, which every member starts at once right after a sync
 * (the two do not always cost the same, so each is measured as made), and
 * G_fold for a reduction's folds, started so.
 *
 * One level of a broadcast tree, for a chunk of s bytes, costs
 *     stage(k) = (k - 1) o + L + (line_fresh + s G) f(k)
 * the parent signalling its k children one after the other, the last
 * signal reaching its child (L, which counts one sender overhead), and the
 * child copying the chunk while its siblings copy the same lines
 * (f(k) = T(k) / T(1), the model's contention curve). A pipeline of nchunks
 * chunks over d levels takes the sum of the stages for the first chunk and
 * the slowest stage for each further one: the time until the last leaf has
 * the data; then the leaf signals its acknowledgement and returns (o), and
 * its parent returns once the acknowledgement has come over: L from the
 * start of the leaf's signal (L counts the signaller's overhead), not only
 * the transfer after the leaf's call (L - o), which would price the
 * acknowledgement short. With help, the last level's copy
 * shrinks to k / (k + 1) of a chunk at G_coop: the parent writes a share
 * into its leaves while they read the rest (broadcast.c), both cores
 * copying, and the parent then signals each leaf that its share is in (o
 * each). Whether to help is the planner's choice too, from
 * AOS__HELP_MIN_BYTES up, as are the fan-outs and the chunk: whether help
 * pays depends on the size and on where the root's data lies (just
 * written, or untouched since the last call), which no fixed threshold
 * follows.
 *
 * A broadcast or reduction call first checks its arguments and locates
 * its buffers (before the first signal or push), as a put call does before
 * it moves anything, and all members do it at once: o_together (a put
 * issued while another PE issues its own) once per call; a barrier locates
 * no buffers. That is o when each PE has a core to itself, and more when
 * two PEs share a core (a host may put two virtual CPUs on one), which
 * runs both calls at once.
 *
 * A reduction folds fresh data straight from its owner's memory; that is
 * priced per byte as measured for it (G_fold, both PEs folding each other's
 * at once), not as a copy plus the arithmetic: how far the two overlap
 * depends on the machine and the size. With a core per PE a fold of a
 * slice that fits the cache can cost the copy plus the sum, a larger one
 * hardly more than the copy; with both PEs on one core a fold costs what a
 * copy does, and copy plus sum overprices the larger all-reduces. */
#include <math.h>

#include "coll/model.h"
#include "coll/reduce_ops.h"
#include "coll/team.h"
#include "transport/transport.h"

double aos__model_per_byte(const struct aos__model *m, double bytes)
{
    return 2.0 * bytes > m->cache ? m->G_big : m->G;
}

/* Along log2 of the size between measured points, the nearest outside. */
static double log_interp(const double *at, const double *G, int n, double bytes)
{
    if (bytes <= at[0])
        return G[0];
    for (int i = 1; i < n; i++)
        if (bytes < at[i])
            return G[i - 1] + (G[i] - G[i - 1]) * log2(bytes / at[i - 1]) / log2(at[i] / at[i - 1]);
    return G[n - 1];
}

static double cache_point(const struct aos__model *m)
{
    return m->cache > 524288.0 ? m->cache : 524288.0;
}

/* How fresh data is read: copied as a call starts (a broadcast's child),
 * copied right after a sync while the other PEs copy theirs (a
 * reduction's gather), or so folded into an accumulator (its folds). */
enum fresh_read { FRESH_COPY, FRESH_SYNCED, FRESH_FOLD };

/* Per byte (beyond the first line) of reading `bytes` their owner has just
 * written from another PE: measured at 4 KiB, 32 KiB, 256 KiB and the
 * cache's size for each way of reading. */
static double fresh_per_byte(const struct aos__model *m, double bytes, enum fresh_read how)
{
    const double at[4] = {4096.0, 32768.0, 262144.0, cache_point(m)};
    const double G[3][4] = {
        [FRESH_COPY] = {m->G_dirty_small, m->G_dirty, m->G_dirty_big, m->G_dirty_huge},
        [FRESH_SYNCED] = {m->G_synced_small, m->G_synced, m->G_synced_big, m->G_synced_huge},
        [FRESH_FOLD] = {m->G_fold_small, m->G_fold, m->G_fold_big, m->G_fold_huge},
    };
    return log_interp(at, G[how], 4, bytes);
}

/* Per byte of one member's fold in a 2-PE all-reduce by slices, its slice
 * `bytes` long: its own part from its cache, the other's just written by
 * its owner, the result into dest lines the other copied at the last call.
 * Measured whole, at the same four sizes and at 128 KiB, as the parts do
 * not add up: the own part's copy, the fresh fold and the extra of writing
 * lines the other had copied, each measured on its own, come to clearly
 * less than the fold timed inside aos_allreduce, and their sum
 * under-predicts the all-reduce. */
static double slice_fold_per_byte(const struct aos__model *m, double bytes)
{
    const double at[5] = {4096.0, 32768.0, 131072.0, 262144.0, cache_point(m)};
    const double G[5] = {m->G_slice_fold_small, m->G_slice_fold, m->G_slice_fold_mid,
                         m->G_slice_fold_big, m->G_slice_fold_huge};
    return log_interp(at, G, 5, bytes);
}

/* Per byte each side moves when a writer puts part of `bytes` it has just
 * written into a reader that gets the rest (a helped broadcast level):
 * measured at 256 KiB, the cache's size and four times it (when that lies
 * beyond: for broadcasts larger than the cache). */
static double coop_per_byte(const struct aos__model *m, double bytes)
{
    const double at[3] = {262144.0, cache_point(m), aos__model_over_cache(m)};
    const double G[3] = {m->G_coop, m->G_coop_huge, m->G_coop_over};
    return log_interp(at, G, at[2] > at[1] ? 3 : 2, bytes);
}

/* Copying `bytes` their owner has just written at G per byte beyond the
 * first line, which comes over alone first. */
static double fresh_copy(const struct aos__model *m, double bytes, double G)
{
    const double line = AOS__LINE;
    return bytes <= 0.0 ? 0.0 : m->line_fresh + (bytes > line ? bytes - line : 0.0) * G;
}

static double contention(const struct aos__model *m, int k)
{
    double one = m->c + m->b;
    return one > 0.0 ? (m->c * k + m->b) / one : 1.0;
}

struct search {
    const struct aos__model *m;
    int n;              /* PEs to reach */
    double s;           /* chunk bytes */
    double G;           /* per byte of data its owner has just written */
    double Gc;          /* per byte of a helped copy (parent writes, child reads) */
    double nchunks;
    int help;           /* parents write a share into leaf children */
    int net;            /* a tree across nodes: priced with the network tier */
    int k[AOS__PLAN_LEVELS];
    int best_k[AOS__PLAN_LEVELS + 1];
    double best;
};

/* Cost of fan-outs k[0..d) as a pipeline (see the top of the file). */
static double tree_cost(const struct search *S, const int *k, int d)
{
    const struct aos__model *m = S->m;
    double sum = 0.0, worst = 0.0;
    if (S->net) { /* each child gets the chunk over the network from its parent, whose
                   * link carries the k copies one after the other */
        for (int i = 0; i < d; i++) {
            double stage = (k[i] - 1) * m->net_o + m->net_L + m->net_get + S->s * m->net_G * k[i];
            sum += stage;
            worst = stage > worst ? stage : worst;
        }
        return sum + (S->nchunks - 1.0) * worst + m->net_L;
    }
    for (int i = 0; i < d; i++) {
        double copy = fresh_copy(m, S->s, S->G) * contention(m, k[i]);
        if (S->help && i == d - 1) /* leaves read k / (k + 1) of a chunk while the parent
                                    * writes as much, 1 / (k + 1) into each, then
                                    * tells each that its share is in */
            copy = fresh_copy(m, S->s * k[i] / (k[i] + 1.0), S->Gc) * contention(m, k[i]) +
                   k[i] * m->o;
        double stage = (k[i] - 1) * m->o + m->L + copy;
        sum += stage;
        worst = stage > worst ? stage : worst;
    }
    return sum + (S->nchunks - 1.0) * worst + m->L; /* the last leaf's acknowledgement */
}

/* Depth-first over non-increasing fan-outs until the tree reaches n PEs. */
static void search_from(struct search *S, int depth, long covered, long width, int kmax)
{
    for (int k = kmax; k >= 1; k--) {
        S->k[depth] = k;
        long next_width = width * k;
        long reach = covered + next_width;
        if (reach >= S->n || depth + 1 == AOS__PLAN_LEVELS) {
            double cost = tree_cost(S, S->k, depth + 1);
            if (reach >= S->n && cost < S->best) {
                S->best = cost;
                for (int i = 0; i <= depth; i++)
                    S->best_k[i] = S->k[i];
                S->best_k[depth + 1] = 0;
            }
            continue;
        }
        if (tree_cost(S, S->k, depth + 1) >= S->best)
            continue; /* deeper only costs more */
        search_from(S, depth + 1, reach, next_width, k);
    }
}

/* Best fan-outs to reach n PEs with chunks of s bytes, parents helping
 * their leaves or not; returns the cost. */
static double best_tree(const struct aos__model *m, int n, double s, double nchunks, int help,
                        int net, int *out)
{
    out[0] = 0;
    if (n <= 1)
        return 0.0;
    struct search S = {.m = m, .n = n, .s = s, .nchunks = nchunks, .best = INFINITY,
                       .G = fresh_per_byte(m, s * nchunks, FRESH_COPY),
                       .Gc = coop_per_byte(m, s * nchunks), .help = help && !net, .net = net};
    int kmax = n - 1 < 32 ? n - 1 : 32;
    search_from(&S, 0, 1, 1, kmax);
    for (int i = 0; i <= AOS__PLAN_LEVELS; i++) {
        out[i] = S.best_k[i];
        if (out[i] == 0)
            break;
    }
    return S.best;
}

void aos__model_plan_bcast_shape(const struct aos__model *m, const struct aos__shape *sh,
                                 size_t bytes, struct aos__bcast_plan *plan)
{
    static const size_t chunks[] = {8u << 10, 16u << 10, 32u << 10, 64u << 10, 128u << 10,
                                    256u << 10, 512u << 10};
    plan->predicted_ns = INFINITY;
    plan->chunk = bytes > 0 ? bytes : 1;
    plan->help = 0;
    plan->node_fanout[0] = plan->leader_fanout[0] = plan->inner_fanout[0] = 0;
    int can_help = bytes >= AOS__HELP_MIN_BYTES;
    int inner_n = sh->n > sh->cluster_max ? sh->cluster_max : sh->n;
    for (size_t i = 0; i <= sizeof chunks / sizeof chunks[0]; i++) {
        size_t chunk = i < sizeof chunks / sizeof chunks[0] ? chunks[i] : bytes;
        if (chunk == 0 || (chunk > bytes && i < sizeof chunks / sizeof chunks[0]))
            continue;
        double nchunks = ceil((double)bytes / (double)chunk);
        if (nchunks < 1.0)
            nchunks = 1.0;
        int nodes[AOS__PLAN_LEVELS + 1];
        double across = best_tree(m, sh->nnodes, (double)chunk, nchunks, 0, 1, nodes);
        for (int help = 0; help <= can_help; help++) {
            int lead[AOS__PLAN_LEVELS + 1], inner[AOS__PLAN_LEVELS + 1];
            double t = across +
                       best_tree(m, sh->node_clusters, (double)chunk, nchunks, help, 0, lead) +
                       best_tree(m, inner_n, (double)chunk, nchunks, help, 0, inner);
            if (t < plan->predicted_ns) {
                plan->predicted_ns = t;
                plan->chunk = chunk;
                plan->help = help;
                for (int l = 0; l <= AOS__PLAN_LEVELS; l++) {
                    plan->node_fanout[l] = nodes[l];
                    plan->leader_fanout[l] = lead[l];
                    plan->inner_fanout[l] = inner[l];
                }
            }
        }
    }
    plan->predicted_ns += m->o_together; /* the call's entry, the same for every plan */
}

void aos__model_plan_bcast(const struct aos__model *m, int n, int nclusters, int cluster_max,
                           size_t bytes, struct aos__bcast_plan *plan)
{
    struct aos__shape sh = {n, 1, n, nclusters, cluster_max, 1};
    aos__model_plan_bcast_shape(m, &sh, bytes, plan);
}

double aos__model_predict_barrier(const struct aos__model *m, int n)
{
    int rounds = 0;
    for (int dist = 1; dist < n; dist <<= 1)
        rounds++;
    return rounds * m->L; /* L counts the signaller's overhead */
}

/* An all-reduce by the exchange, after its entry: push into n - 1 PEs'
 * entries (lines they read last), signal, and once all have arrived copy
 * mine and fold the n - 1 others. */
static double exchange_moves(const struct aos__model *m, int n, double s)
{
    return fresh_copy(m, (n - 1) * s, fresh_per_byte(m, s, FRESH_SYNCED)) +
           (n - 2) * m->o_together + m->L +
           fresh_copy(m, (n - 1) * s, fresh_per_byte(m, s, FRESH_FOLD)) +
           s * aos__model_per_byte(m, s);
}

/* An all-reduce by slices, after its entry: three syncs, each between
 * phases that moved other lines, so the last to arrive also fetches the
 * flag its partner wrote (a fresh line); each PE folds its slice of every
 * source (as measured whole for 2 PEs: its own from its cache and one just
 * written by its owner, the result into its slice of dest, which the
 * others copied at the last call; each further source folded fresh, each
 * line read by its slice's owner alone), then copies the other slices,
 * which their owners have just written and n - 1 PEs read at once. */
static double slice_moves(const struct aos__model *m, int n, double s)
{
    double piece = s / n, others = (n - 1) * piece;
    double fold = piece * slice_fold_per_byte(m, piece) +
                  fresh_copy(m, (n - 2) * piece, fresh_per_byte(m, piece, FRESH_FOLD));
    double gather = fresh_copy(m, others, fresh_per_byte(m, piece, FRESH_SYNCED)) *
                    contention(m, n - 1);
    return 3.0 * (aos__model_predict_barrier(m, n) + m->line_fresh) + fold + gather;
}

enum aos__allreduce_algo aos__model_plan_allreduce(const struct aos__model *m, int n,
                                                   size_t bytes, double *predicted_ns)
{
    double s = (double)bytes, t = s * m->G; /* alone: a copy */
    int exchange = 1;
    if (n > 1) {
        double by_slices = slice_moves(m, n, s);
        t = bytes <= AOS__XCHG_BYTES ? exchange_moves(m, n, s) : INFINITY;
        exchange = t <= by_slices;
        t = exchange ? t : by_slices;
    }
    *predicted_ns = m->o_together /* the call's entry */ + t;
    return exchange && bytes <= AOS__XCHG_BYTES ? AOS__ALLREDUCE_EXCHANGE
                                                : AOS__ALLREDUCE_SLICES;
}

double aos__model_predict_allreduce(const struct aos__model *m, int n, size_t bytes)
{
    double t;
    aos__model_plan_allreduce(m, n, bytes, &t);
    return t;
}

/* ---- teams over several nodes ------------------------------------------------ */

static int rounds_of(int n)
{
    int rounds = 0;
    for (int dist = 1; dist < n; dist <<= 1)
        rounds++;
    return rounds;
}

/* A node's members arrive at their leader (signals in parallel: L), and
 * are released one after the other: the node tier around what the leaders
 * do over the network. */
static double node_gather_release(const struct aos__model *m, int node_max)
{
    return node_max > 1 ? 2.0 * m->L + (node_max - 2) * m->o : 0.0;
}

double aos__model_predict_barrier_shape(const struct aos__model *m, const struct aos__shape *s)
{
    if (s->nnodes <= 1)
        return aos__model_predict_barrier(m, s->n);
    return node_gather_release(m, s->node_max) + rounds_of(s->nnodes) * m->net_L;
}

/* The exchange by nodes (exchange.c), after its entry: members copy their
 * data into the leader's slot; the leader puts its node's entries into
 * every other leader's slot, with the signal: one message when its node's
 * ranks are consecutive (one run), else a put per rank and the signal; the
 * last signal arrives L later; then every member folds the n entries from
 * the leader's slot. */
static double exchange_nodes_moves(const struct aos__model *m, const struct aos__shape *sh,
                                   double s)
{
    double bundle = s * sh->node_max, messages = sh->nodes_in_order ? 1.0 : sh->node_max + 1.0;
    return node_gather_release(m, sh->node_max) +
           (sh->nnodes - 1) * (messages * m->net_o + bundle * m->net_G) + m->net_L +
           fresh_copy(m, sh->n * s, fresh_per_byte(m, s, FRESH_FOLD));
}

/* By slices over nodes: three barriers by nodes; each member folds its
 * slice of the sources on its node from memory and of the others by gets
 * (a chunk of AOS__FOLD_CHUNK at a time: reduce.c), then reads the other
 * slices, from other nodes by gets; a node's members share its link. */
static double slice_nodes_moves(const struct aos__model *m, const struct aos__shape *sh,
                                double s)
{
    int n = sh->n, k = sh->node_max, far = n - k;
    double piece = s / n;
    double gets_per_source = ceil(piece / AOS__FOLD_CHUNK);
    double fold = fresh_copy(m, (k - 1) * piece, fresh_per_byte(m, piece, FRESH_FOLD)) +
                  far * (gets_per_source * m->net_get + piece * m->net_G * k);
    double gather = fresh_copy(m, (k - 1) * piece, fresh_per_byte(m, piece, FRESH_SYNCED)) +
                    far * (m->net_get + piece * m->net_G * k);
    return 3.0 * aos__model_predict_barrier_shape(m, sh) + fold + gather;
}

/* The chain of node leaders (reduce_chain.c), after its entry: a node's
 * members enter at their leader and are released with the result, which
 * they copy from the leader's dest; node 0's leader folds its node's
 * sources; each leader puts its partial result into the next one's dest
 * (whose entry arrived while the earlier ones folded), with the signal in
 * one message when it fits (else a put and then the signal, which follows
 * it on the network), and the next folds its node's sources onto it, one
 * after the other; the last puts the result into every other leader's
 * dest the same way. In place, each hop is a get instead, which this
 * does not price. */
static double chain_nodes_moves(const struct aos__model *m, const struct aos__shape *sh, double s)
{
    int k = sh->node_max, hops = sh->nnodes - 1;
    double fold = fresh_copy(m, k * s, fresh_per_byte(m, s, FRESH_FOLD));
    double put = s * m->net_G + (s <= (double)AOS__PUT_SIGNAL_MAX ? 1.0 : 2.0) * m->net_o;
    double hop = put + m->net_L + fold;
    double members = node_gather_release(m, k) +
                     (k > 1 ? fresh_copy(m, s, fresh_per_byte(m, s, FRESH_SYNCED)) : 0.0);
    return members + fold + hops * (hop + put) + m->net_L;
}

static int chain_fits(const struct aos__shape *sh, size_t bytes)
{
    return sh->nnodes > 1 && sh->nnodes <= AOS__CHAIN_MAX_NODES && sh->nodes_in_order &&
           bytes <= AOS__CHAIN_MAX_BYTES;
}

enum aos__allreduce_algo aos__model_plan_allreduce_shape(const struct aos__model *m,
                                                         const struct aos__shape *sh, size_t bytes,
                                                         double *predicted_ns)
{
    if (sh->nnodes <= 1)
        return aos__model_plan_allreduce(m, sh->n, bytes, predicted_ns);
    double s = (double)bytes;
    /* Where the chain fits it replaces slices, which read every remote
     * slice over the network twice between three syncs across the nodes:
     * measured, the chain was faster at every size it takes, by more than
     * the model's error. The exchange is weighed against whichever it is. */
    enum aos__allreduce_algo best =
        chain_fits(sh, bytes) ? AOS__ALLREDUCE_CHAIN : AOS__ALLREDUCE_SLICES;
    double t = best == AOS__ALLREDUCE_CHAIN ? chain_nodes_moves(m, sh, s)
                                            : slice_nodes_moves(m, sh, s);
    double by_exchange = bytes <= AOS__XCHG_BYTES ? exchange_nodes_moves(m, sh, s) : INFINITY;
    if (by_exchange <= t) {
        best = AOS__ALLREDUCE_EXCHANGE;
        t = by_exchange;
    }
    *predicted_ns = m->o_together + t;
    return best;
}
