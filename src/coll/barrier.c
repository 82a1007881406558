/* barrier_all: a dissemination barrier. In round r PE i signals PE
 * (i + 2^r) mod n and waits for PE (i - 2^r) mod n; after ceil(log2 n)
 * rounds everyone has heard from everyone. Each round's flag is a counter on
 * its own cache line that holds the barrier epoch, so consecutive barriers
 * need no reset (a flag ahead of my epoch is from a faster PE's next barrier
 * and satisfies ">= epoch" too). A later issue makes collectives fast. */
#include "arch/atomics.h"
#include "core/runtime.h"
#include "core/wait.h"

struct flag_wait {
    const uint64_t *flag;
    uint64_t epoch;
};

static int flag_reached(const void *ctx)
{
    const struct flag_wait *w = ctx;
    /* Acquire: pairs with the release store in the transport's signal_store,
     * so the signaller's earlier writes are visible after the barrier. */
    return aos__load_acquire(w->flag) >= w->epoch;
}

int aos_barrier_all(void)
{
    AOS__CHECK_INIT();
    struct aos__runtime *rt = &aos__rt;
    int rc = rt->tp->quiet();
    if (rc != AOS_OK)
        return rc;
    uint64_t epoch = ++rt->barrier_epoch;
    struct aos__arena_header *mine = rt->peers[rt->me].header;
    int round = 0;
    for (int dist = 1; dist < rt->npes; dist <<= 1, round++) {
        int to = (rt->me + dist) % rt->npes;
        rc = rt->tp->signal_store(to, AOS__OFF_BARRIER(round), epoch);
        if (rc != AOS_OK)
            return rc;
        struct flag_wait w = {.flag = &mine->barrier[round].value, .epoch = epoch};
        uint64_t off = AOS__OFF_BARRIER(round);
        rc = aos__wait(flag_reached, &w, AOS__FOREVER, (struct aos__watch){off, off + 8});
        if (rc != AOS_OK)
            return rc;
    }
    return AOS_OK;
}
