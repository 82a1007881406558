/* The machine model's predictions and the broadcast planner, on made-up
 * machines whose answers can be worked out by hand (src/coll/plan.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../common/check.h"
#include "coll/model.h"

#define NEAR(x, want) (fabs((x) - (want)) < 1e-6 * (fabs(want) + 1.0))

/* Signals 100 ns (20 of them the sender's; 30 while another PE issues its
 * own, as members entering a collective do), a fresh line 50 ns and 0.1 ns
 * per further fresh byte (0.2 when the copy starts right after a sync, as a
 * reduction's do, 0.25 folded then), a 2-PE all-reduce's fold 0.3 per
 * byte of its slice, contention growing linearly (f(k) = k). */
static struct aos__model simple(void)
{
    struct aos__model m;
    aos__model_defaults(&m);
    m.L = 100, m.o = 20, m.o_together = 30, m.g = 20, m.line_fresh = 50;
    m.G = m.G_big = 0.02;
    m.G_dirty_small = m.G_dirty = m.G_dirty_big = m.G_dirty_huge = 0.1;
    m.G_synced_small = m.G_synced = m.G_synced_big = m.G_synced_huge = 0.2;
    m.G_coop = m.G_coop_huge = m.G_coop_over = 0.05;
    m.G_fold_small = m.G_fold = m.G_fold_big = m.G_fold_huge = 0.25;
    m.G_slice_fold_small = m.G_slice_fold = m.G_slice_fold_mid = m.G_slice_fold_big =
        m.G_slice_fold_huge = 0.3;
    m.cache = 1e9, m.c = 10, m.b = 0;
    return m;
}

static int last_level(const int *k)
{
    int n = 0;
    while (k[n] != 0)
        n++;
    return n;
}

int main(void)
{
    struct aos__model m = simple();

    /* Dissemination barrier: one latency per round, ceil(log2 n) rounds. */
    CHECK(NEAR(aos__model_predict_barrier(&m, 1), 0.0));
    CHECK(NEAR(aos__model_predict_barrier(&m, 2), 100.0));
    CHECK(NEAR(aos__model_predict_barrier(&m, 5), 300.0));

    /* 8-byte all-reduce on 2 PEs (the exchange): the call's entry (30),
     * push one line (50), the signal (100), read the other's entry (50),
     * copy mine (8 x 0.02). On 1 PE, the entry and a local copy. */
    CHECK(NEAR(aos__model_predict_allreduce(&m, 2, 8), 30.0 + 50.0 + 100.0 + 50.0 + 0.16));
    CHECK(NEAR(aos__model_predict_allreduce(&m, 1, 1000), 30.0 + 1000 * 0.02));
    /* 64 KiB on 2 PEs (slices of 32 KiB): the entry, three syncs of a barrier and a
     * fresh line; the fold as measured whole (32768 x 0.3); gather = 50 +
     * 32704 x 0.2. On 3 PEs, 96 KiB: syncs of two rounds; the fold also
     * folds a third source fresh (50 + 32704 x 0.25); the gather copies two
     * slices (50 + 65472 x 0.2), each line read by two PEs at once (x 2). */
    double slices = 30.0 + 3 * 150.0 + 32768 * 0.3 + (50 + 32704 * 0.2);
    CHECK(NEAR(aos__model_predict_allreduce(&m, 2, 65536), slices));
    slices = 30.0 + 3 * 250.0 + 32768 * 0.3 + (50 + 32704 * 0.25) + 2 * (50 + 65472 * 0.2);
    CHECK(NEAR(aos__model_predict_allreduce(&m, 3, 98304), slices));

    /* The algorithm: on 2 PEs the exchange up to its limit, slices beyond.
     * On 256 PEs, 512 B: each member would push 255 entries and fold 255
     * (about 66 us here), where slices take 3 barriers of 8 rounds and a
     * gather of 255 two-byte pieces, contended 255-fold (about 38 us). */
    double t;
    CHECK(aos__model_plan_allreduce(&m, 2, 8, &t) == AOS__ALLREDUCE_EXCHANGE &&
          NEAR(t, 230.16));
    CHECK(aos__model_plan_allreduce(&m, 2, 512, &t) == AOS__ALLREDUCE_EXCHANGE);
    CHECK(aos__model_plan_allreduce(&m, 2, 520, &t) == AOS__ALLREDUCE_SLICES);
    CHECK(aos__model_plan_allreduce(&m, 256, 512, &t) == AOS__ALLREDUCE_SLICES);
    CHECK(t < 40000.0 && NEAR(t, aos__model_predict_allreduce(&m, 256, 512)));
    CHECK(aos__model_plan_allreduce(&m, 1, 8, &t) == AOS__ALLREDUCE_EXCHANGE &&
          NEAR(t, 30.0 + 8 * 0.02));

    /* Across nodes (4 PEs, 2 on each of 2 nodes, in order), with a network
     * of 1000 ns signals (100 the sender's), 2000 ns gets and puts and 0.5
     * ns per byte. 32 KiB goes by the chain of node leaders: the members
     * enter and are released (2 x 100) and copy the result (50 + 32704 x
     * 0.2); node 0's leader folds 2 sources (50 + 65472 x 0.25) and puts
     * its partial result into node 1's leader's dest with the signal in one
     * message (32768 x 0.5 + 100), seen 1000 later; node 1's leader folds
     * its 2 sources onto it and puts the result back the same way (32768 x
     * 0.5 + 100), seen 1000 later. */
    m.net_L = 1000, m.net_o = 100, m.net_g = 100, m.net_G = 0.5, m.net_get = 2000,
    m.net_put = 2000;
    struct aos__shape two = {4, 2, 2, 1, 2, 1};
    double fold = 50 + 65472 * 0.25, half = 32768 * 0.5;
    double by_chain = 30.0 + 200 + (50 + 32704 * 0.2) + fold + (half + 100 + 1000 + fold) +
                      (half + 100) + 1000;
    CHECK(aos__model_plan_allreduce_shape(&m, &two, 32768, &t) == AOS__ALLREDUCE_CHAIN);
    CHECK(NEAR(t, by_chain));
    /* Over the put-with-signal limit each put and its signal are issued
     * apart (100 more each). */
    fold = 50 + 262080 * 0.25, half = 131072 * 0.5;
    by_chain = 30.0 + 200 + (50 + 131008 * 0.2) + fold + (half + 200 + 1000 + fold) +
               (half + 200) + 1000;
    CHECK(aos__model_plan_allreduce_shape(&m, &two, 131072, &t) == AOS__ALLREDUCE_CHAIN);
    CHECK(NEAR(t, by_chain));
    /* Small: the exchange. Nodes out of order (folding in rank order would
     * need them in order), more than 4 nodes or more than 1 MiB: slices. */
    CHECK(aos__model_plan_allreduce_shape(&m, &two, 8, &t) == AOS__ALLREDUCE_EXCHANGE);
    CHECK(aos__model_plan_allreduce_shape(&m, &two, AOS__CHAIN_MAX_BYTES + 8, &t) ==
          AOS__ALLREDUCE_SLICES);
    struct aos__shape mixed = two, five = {5, 5, 1, 1, 1, 1};
    mixed.nodes_in_order = 0;
    CHECK(aos__model_plan_allreduce_shape(&m, &mixed, 32768, &t) == AOS__ALLREDUCE_SLICES);
    CHECK(aos__model_plan_allreduce_shape(&m, &five, 32768, &t) == AOS__ALLREDUCE_SLICES);

    /* Broadcast of 1000 B to one child: the entry, one chunk, signal +
     * copy, then the acknowledgement (L: from the start of the leaf's
     * signal until the root sees it). */
    struct aos__bcast_plan p;
    aos__model_plan_bcast(&m, 2, 1, 2, 1000, &p);
    CHECK(p.chunk == 1000 && p.inner_fanout[0] == 1 && p.inner_fanout[1] == 0);
    CHECK(NEAR(p.predicted_ns, 30.0 + 100.0 + 50.0 + 936 * 0.1 + 100.0));
    CHECK(p.help == 0); /* below AOS__HELP_MIN_BYTES */
    /* Large, the child reads half and its parent writes the other half (at
     * G_coop, half G_dirty here), then tells it so (o); the planner may
     * pipeline, never predicting more. */
    aos__model_plan_bcast(&m, 2, 1, 2, 1u << 20, &p);
    CHECK(p.help == 1);
    CHECK(p.predicted_ns <= 30.0 + 100.0 + 50.0 + (524288 - 64) * 0.05 + 20.0 + 100.0 + 1e-6);
    /* Where the parent's writes cost ten times the child's reads, nobody
     * helps: the child copies it all (at G_dirty). */
    struct aos__model slow_writes = m;
    slow_writes.G_coop = slow_writes.G_coop_huge = slow_writes.G_coop_over = 1.0;
    aos__model_plan_bcast(&slow_writes, 2, 1, 2, 1u << 20, &p);
    CHECK(p.help == 0);
    CHECK(p.predicted_ns <= 30.0 + 100.0 + 50.0 + (1048576 - 64) * 0.1 + 100.0 + 1e-6);

    /* Bigger broadcasts never cost less. */
    double before = 0;
    for (size_t bytes = 1; bytes <= (8u << 20); bytes *= 4) {
        aos__model_plan_bcast(&m, 16, 1, 16, bytes, &p);
        CHECK(p.predicted_ns >= before);
        before = p.predicted_ns;
    }

    /* Free signals and no contention: one flat level reaches 15 children. */
    m.o = 0, m.c = 0, m.b = 0;
    aos__model_plan_bcast(&m, 16, 1, 16, 8, &p);
    CHECK(p.inner_fanout[0] == 15 && last_level(p.inner_fanout) == 1);

    /* The chain machine (contention only, signals free): a chain, as deep
     * as a plan goes (the last fan-out repeats below), of small chunks. */
    struct aos__model chain;
    CHECK_OK(aos__model_read(CHAIN_MODEL, &chain));
    CHECK(chain.from_file == 1 && chain.c == 1000);
    aos__model_plan_bcast(&chain, 8, 1, 8, 65536, &p);
    CHECK(last_level(p.inner_fanout) == 7 && p.chunk == 8192);
    for (int i = 0; i < 7; i++)
        CHECK(p.inner_fanout[i] == 1);

    /* Files: a round trip keeps every value; a missing key is refused. */
    char path[] = "/tmp/aos-model-test-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    m = simple();
    CHECK_OK(aos__model_write(path, &m, "unit test"));
    struct aos__model back;
    CHECK_OK(aos__model_read(path, &back));
#define SAME(field, key, def, meaning) CHECK(NEAR(back.field, m.field));
    AOS__MODEL_TABLE(SAME)
#undef SAME
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fprintf(f, "latency_ns 100\n"); /* and nothing else */
    fclose(f);
    CHECK_RC(aos__model_read(path, &back), AOS_ERR_CONFIG);
    unlink(path);
    CHECK_RC(aos__model_read(path, &back), AOS_ERR_SYSTEM);
    printf("model and planner: ok\n");
    return 0;
}
