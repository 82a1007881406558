/* The machine model collectives plan with (DESIGN.md §2 "Model").
 *
 * Parameters, in nanoseconds, measured by aos-probe and stored in a file
 * the library reads at aos_init: $AOS_MODEL_FILE, else
 * $XDG_CACHE_HOME/aos/model, else $HOME/.cache/aos/model. Without a file
 * the defaults below stand in (safe: they only steer choices). */
#ifndef AOS_COLL_MODEL_H
#define AOS_COLL_MODEL_H

#include <stddef.h>

/* X(field, key in the file, default, meaning) */
#define AOS__MODEL_TABLE(X)                                                                \
    X(L, "latency_ns", 250.0,                                                              \
      "one-way latency: a signal until its waiter sees it (the mean over lines)")         \
    X(o, "overhead_ns", 40.0, "sender's time to issue one signal")                        \
    X(o_together, "overhead_together_ns", 40.0,                                            \
      "the same while another PE issues its own (as a collective's members enter at once)") \
    X(g, "gap_ns", 40.0, "least time between consecutive signals of one PE")              \
    X(G, "per_byte_ns", 0.1, "copying one byte from a peer's memory (inverse bandwidth)") \
    X(G_big, "per_byte_big_ns", 0.2, "the same when source and copy exceed cache_bytes")   \
    X(line_fresh, "fresh_line_ns", 100.0,                                                  \
      "copying one cache line another PE has just written (a miss its cache serves, "     \
      "the median over many lines)")                                                       \
    X(G_dirty_small, "per_byte_dirty_small_ns", 0.2,                                         \
      "copying 4 KiB another PE has just written, per byte beyond the first line")         \
    X(G_dirty, "per_byte_dirty_ns", 0.2, "the same for 32 KiB")                            \
    X(G_dirty_big, "per_byte_dirty_big_ns", 0.1, "the same for 256 KiB")                  \
    X(G_dirty_huge, "per_byte_dirty_huge_ns", 0.2, "the same for cache_bytes")            \
    X(G_synced_small, "per_byte_synced_small_ns", 0.2,                                     \
      "the same for 4 KiB, both PEs copying each other's right after a sync (as reductions do)") \
    X(G_synced, "per_byte_synced_ns", 0.2, "the same for 32 KiB")                          \
    X(G_synced_big, "per_byte_synced_big_ns", 0.1, "the same for 256 KiB")                \
    X(G_synced_huge, "per_byte_synced_huge_ns", 0.2, "the same for cache_bytes")          \
    X(G_fold_small, "per_byte_fold_small_ns", 0.2,                                         \
      "the same, folding (an int64 sum into an accumulator in cache) instead of copying")  \
    X(G_fold, "per_byte_fold_ns", 0.2, "the same for 32 KiB")                              \
    X(G_fold_big, "per_byte_fold_big_ns", 0.1, "the same for 256 KiB")                    \
    X(G_fold_huge, "per_byte_fold_huge_ns", 0.2, "the same for cache_bytes")              \
    X(G_slice_fold_small, "per_byte_slice_fold_small_ns", 0.35,                             \
      "one member's fold in a 2-PE all-reduce by slices, per byte of its 4 KiB slice: its " \
      "own part and the other's just written, into dest lines the other copied since")     \
    X(G_slice_fold, "per_byte_slice_fold_ns", 0.35, "the same for 32 KiB")                  \
    X(G_slice_fold_mid, "per_byte_slice_fold_mid_ns", 0.35, "the same for 128 KiB")        \
    X(G_slice_fold_big, "per_byte_slice_fold_big_ns", 0.35, "the same for 256 KiB")        \
    X(G_slice_fold_huge, "per_byte_slice_fold_huge_ns", 0.35, "the same for cache_bytes")  \
    X(G_coop, "per_byte_coop_ns", 0.1,                                                     \
      "256 KiB just written: the reader gets half while its writer puts half, per byte each") \
    X(G_coop_huge, "per_byte_coop_huge_ns", 0.2, "the same for cache_bytes")              \
    X(G_coop_over, "per_byte_coop_over_ns", 0.2,                                           \
      "the same for 4 cache_bytes (at most 4 MiB): more than the writer's cache holds")    \
    X(cache, "cache_bytes", 1048576.0, "the per-core cache a copy's source and target fit in") \
    X(c, "contention_ns", 40.0, "T(n) = c n + b: n PEs reading one line a writer changed") \
    X(b, "contention_base_ns", 100.0, "the b of T(n)")                                    \
    X(put_initiator, "put_initiator_ns", 30.0, "8-byte put: time in the initiator's call") \
    X(put_transfer, "put_transfer_ns", 150.0, "8-byte put: until the data is at the target") \
    X(put_completion, "put_completion_ns", 100.0, "8-byte put: until the initiator knows")

/* The network tier: the same between PEs on different nodes, where the
 * collectives' node leaders signal and move data through the network
 * transport. aos-probe measures it when its job spans nodes; a file
 * without these keys (measured on one node) leaves their defaults, which
 * stand for a fast cluster network. */
#define AOS__MODEL_NET_TABLE(X)                                                            \
    X(net_L, "net_latency_ns", 3000.0,                                                     \
      "between nodes: a signal until its waiter sees it")                                  \
    X(net_o, "net_overhead_ns", 500.0, "between nodes: sender's time to issue one signal")  \
    X(net_g, "net_gap_ns", 500.0, "between nodes: least time between one PE's signals")     \
    X(net_G, "net_per_byte_ns", 0.1, "between nodes: one byte of a large get")              \
    X(net_get, "net_get_ns", 6000.0, "between nodes: an 8-byte get, call to data")          \
    X(net_put, "net_put_ns", 6000.0,                                                       \
      "between nodes: an 8-byte put until the data is at the target (put and flush)")

struct aos__model {
#define AOS__MODEL_FIELD(field, key, def, meaning) double field;
    AOS__MODEL_TABLE(AOS__MODEL_FIELD)
    AOS__MODEL_NET_TABLE(AOS__MODEL_FIELD)
#undef AOS__MODEL_FIELD
    int from_file; /* 1 when read from a file, 0 for the defaults */
    int net_measured; /* the network tier was measured (a file with it, aos-probe) */
};

/* The model in effect (the defaults before aos_init). */
const struct aos__model *aos__model(void);
/* Replaces the model in effect (aos-probe, after measuring); broadcasts
 * plan afresh. */
void aos__model_set(const struct aos__model *m);
/* Bumped by every change of the model: plans made before are stale. */
unsigned aos__model_generation(void);
/* Loads the model at aos_init. AOS_ERR_CONFIG (and a message) when
 * AOS_MODEL_FILE names a file that cannot be read or parsed. AOS_DEBUG=1
 * says which file was loaded (or that the defaults are in use). */
int aos__model_start(void);
/* Set by aos-probe before aos_init: it measures the machine afresh and
 * (re)writes the model file, so aos_init reads none (the file may be
 * missing or from an older aos-probe) and uses the defaults. */
extern int aos__model_no_file;
/* Where the model file is looked for; 0 on success. */
int aos__model_path(char *buf, size_t len);
/* Reads / writes a model file; AOS_OK or AOS_ERR_CONFIG / AOS_ERR_SYSTEM. */
int aos__model_read(const char *path, struct aos__model *m);
int aos__model_write(const char *path, const struct aos__model *m, const char *comment);
void aos__model_defaults(struct aos__model *m);

/* A broadcast plan: fan-outs per tree level among node leaders, among the
 * cluster leaders of a node and inside a cluster (0-terminated), and the pipeline's chunk size. */
#define AOS__PLAN_LEVELS 12
struct aos__bcast_plan {
    int node_fanout[AOS__PLAN_LEVELS + 1]; /* among node leaders (one node: none) */
    int leader_fanout[AOS__PLAN_LEVELS + 1];
    int inner_fanout[AOS__PLAN_LEVELS + 1];
    size_t chunk;
    int help; /* parents write a share of each chunk into their leaf children */
    double predicted_ns;
};

/* The plan with the least predicted time for `bytes` over n PEs in
 * nclusters clusters of at most `cluster_max` PEs. */
void aos__model_plan_bcast(const struct aos__model *m, int n, int nclusters, int cluster_max,
                           size_t bytes, struct aos__bcast_plan *plan);
/* Where the "over" figure is measured: four times the cache's size, at
 * most AOS__MODEL_OVER_MAX bytes (aos-probe's buffer). */
#define AOS__MODEL_OVER_MAX (4u << 20)
static inline double aos__model_over_cache(const struct aos__model *m)
{
    double over = 4.0 * m->cache;
    return over < (double)AOS__MODEL_OVER_MAX ? over : (double)AOS__MODEL_OVER_MAX;
}
/* A team's shape as the planner sees it: n PEs on nnodes nodes (at most
 * node_max on one), at most node_clusters clusters on one node, at most
 * cluster_max PEs in one cluster; nodes_in_order when each node's ranks
 * are consecutive (node 0's first, then node 1's, ...). One node: nnodes
 * 1, node_max n. */
struct aos__shape {
    int n, nnodes, node_max, node_clusters, cluster_max, nodes_in_order;
};
/* The all-reduce algorithms (coll/reduce.c): by slices, by the exchange
 * (up to AOS__XCHG_BYTES), by a chain of node leaders (coll/reduce_chain.c:
 * 2 to AOS__CHAIN_MAX_NODES nodes in order, up to AOS__CHAIN_MAX_BYTES). */
enum aos__allreduce_algo {
    AOS__ALLREDUCE_SLICES,
    AOS__ALLREDUCE_EXCHANGE,
    AOS__ALLREDUCE_CHAIN
};
#define AOS__CHAIN_MAX_NODES 4
#define AOS__CHAIN_MAX_BYTES ((size_t)1 << 20)
/* The plan with the least predicted time for `bytes` over a team of that
 * shape: a tree across the node leaders (priced with the network tier),
 * across the cluster leaders of each node, then inside each cluster. */
void aos__model_plan_bcast_shape(const struct aos__model *m, const struct aos__shape *s,
                                 size_t bytes, struct aos__bcast_plan *plan);
/* Barrier and all-reduce over a team spanning nodes (coll/barrier.c,
 * exchange.c, reduce.c: node leaders over the network). */
double aos__model_predict_barrier_shape(const struct aos__model *m, const struct aos__shape *s);
/* The all-reduce algorithm over a team of shape s (its predicted time in
 * *predicted_ns): the exchange when it is predicted faster than the
 * chain of node leaders where that fits, else than slices. */
enum aos__allreduce_algo aos__model_plan_allreduce_shape(const struct aos__model *m,
                                                         const struct aos__shape *s, size_t bytes,
                                                         double *predicted_ns);
/* Per-byte cost of copying `bytes` (source and target: 2 * bytes touched). */
double aos__model_per_byte(const struct aos__model *m, double bytes);
/* Predicted time of one collective on a team of n PEs in one cluster. */
double aos__model_predict_barrier(const struct aos__model *m, int n);
double aos__model_predict_allreduce(const struct aos__model *m, int n, size_t bytes);
/* The all-reduce algorithm with the least predicted time on one node (its
 * time in *predicted_ns): the exchange (only up to AOS__XCHG_BYTES) or
 * slices. */
enum aos__allreduce_algo aos__model_plan_allreduce(const struct aos__model *m, int n,
                                                   size_t bytes, double *predicted_ns);

#endif
