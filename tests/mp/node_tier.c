/* The node tier of collectives on teams over several (pseudo-)nodes. The
 * node team is exactly the PEs of my node. A barrier, a small all-reduce
 * and broadcasts over the world send network operations only from node
 * leaders, exactly as many as the tier says: per barrier ceil(log2 nodes)
 * signals from each leader; per exchange one message (the node's entries
 * with their signal: put_signal) from each leader to each other leader;
 * per small broadcast the child leader's entry and the parent's push of
 * the data with its announcement, per node but the root's. The counts come from the
 * library's own counter (aos__coll_net_ops: this test links the static
 * library). On one node every count is 0. Results are checked too. */
#include <stdlib.h>

#include "../common/check.h"
#include "coll/team.h"

#define ITERS 10

static int64_t src[1024], dst[1024]; /* symmetric */

/* Network operations of this PE while `run` runs once. */
static uint64_t ops_of(void (*run)(aos_team_t *, int), aos_team_t *w, int arg)
{
    CHECK_OK(aos_team_sync(w));
    uint64_t before = aos__coll_net_ops();
    run(w, arg);
    uint64_t ops = aos__coll_net_ops() - before;
    CHECK_OK(aos_team_sync(w));
    return ops;
}

static void barriers(aos_team_t *w, int arg)
{
    (void)arg;
    for (int i = 0; i < ITERS; i++)
        CHECK_OK(aos_team_sync(w));
}

static void allreduces(aos_team_t *w, int arg)
{
    (void)arg;
    int n = aos_team_n_pes(w), me = aos_team_my_pe(w);
    for (int i = 0; i < ITERS; i++) {
        src[0] = me * 3 + i;
        CHECK_OK(aos_allreduce(w, dst, src, 1, AOS_TYPE_INT64, AOS_OP_SUM));
        CHECK(dst[0] == 3 * (int64_t)n * (n - 1) / 2 + (int64_t)n * i);
    }
}

static void broadcasts(aos_team_t *w, int root)
{
    for (int i = 0; i < ITERS; i++) {
        src[0] = root * 100 + i;
        dst[0] = -1;
        CHECK_OK(aos_broadcast(w, dst, src, 8, root));
        CHECK(dst[0] == root * 100 + i);
    }
}

static int64_t sum_over(aos_team_t *w, uint64_t v)
{
    src[0] = (int64_t)v;
    CHECK_OK(aos_allreduce(w, dst, src, 1, AOS_TYPE_INT64, AOS_OP_SUM));
    return dst[0];
}

int main(void)
{
    unsetenv("AOS_CHECK"); /* its agreements would add exchanges to the counts */
    CHECK_OK(aos_init());
    int me = aos_my_pe(), npes = aos_n_pes();
    CHECK(npes <= 64);
    aos_team_t *w = aos_team_world(), *node = aos_team_node();

    /* The node team: the PEs of my node, in order, as aos_node_pes says. */
    int pes[64], count;
    CHECK_OK(aos_node_pes(pes, 64, &count));
    CHECK(count == test_node_pes(me, npes) && aos_team_n_pes(node) == count);
    for (int pe = 0; pe < npes; pe++) {
        int r;
        CHECK_OK(aos_team_translate_pe(w, pe, node, &r));
        CHECK((r >= 0) == test_same_node(me, pe, npes));
    }
    for (int r = 0; r < count; r++) {
        int pe;
        CHECK_OK(aos_team_translate_pe(node, r, w, &pe));
        CHECK(pe == pes[r] && test_same_node(me, pe, npes));
    }

    int k = test_node_size(npes), nodes = (npes + k - 1) / k, rounds = 0;
    int leader = me % k == 0; /* the lowest rank of its node */
    for (int dist = 1; dist < nodes; dist <<= 1)
        rounds++;

    uint64_t ops = ops_of(barriers, w, 0);
    int64_t total = sum_over(w, ops);
    if (me == 0)
        printf("%d PEs on %d nodes: %d barriers sent %lld network signals\n", npes, nodes,
               ITERS, (long long)total);
    CHECK(ops == (uint64_t)(leader ? ITERS * rounds : 0));

    /* The exchange by nodes, when the model picks it for 8 bytes. */
    double predicted;
    int by_exchange = aos__model_plan_allreduce_shape(aos__model(), &w->shape, 8, &predicted) ==
                      AOS__ALLREDUCE_EXCHANGE;
    ops = ops_of(allreduces, w, 0);
    if (by_exchange)
        CHECK(ops == (uint64_t)(leader ? ITERS * (nodes - 1) : 0));
    else if (me == 0)
        printf("the model has 8-byte all-reduces not go by the exchange: its counts not "
               "checked\n");

    /* Broadcasts from the first and the last PE: only the node leaders for
     * that root (the root on its node) touch the network. */
    int roots[2] = {0, npes - 1};
    for (int j = 0; j < 2; j++) {
        int root = roots[j];
        int bleader = test_same_node(me, root, npes) ? me == root : leader;
        ops = ops_of(broadcasts, w, root);
        total = sum_over(w, ops);
        if (!bleader)
            CHECK(ops == 0);
        CHECK(total == (int64_t)ITERS * 2 * (nodes - 1));
    }
    CHECK_OK(aos_finalize());
    return 0;
}
