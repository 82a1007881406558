/* RPC rules that once deadlocked must give errors (issue 25, item 10):
 * a chain of nested blocking calls around the ring deeper than the handler
 * depth limit gets AOS_ERR_INVALID at the limit, and a handler that calls a
 * barrier, a collective, aos_malloc/aos_free or aos_finalize is refused
 * while the PE that called it waits outside any collective. Chains within
 * the limit that run at once, from several threads of every PE, all
 * complete, though they stack up on the threads that serve them. An alarm
 * turns a deadlock into a failure. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "../common/check.h"
#include "../common/threads.h"

/* id_bounce is atomic: main stores it after registering, and a progress
 * thread's handler reads it, ordered only through other PEs (as
 * heap_block). */
static aos_rpc_id_t id_bounce, id_inside;

struct hop {
    int32_t remaining; /* hops still to make */
    int32_t hop;       /* this call's number in the chain, 1 first */
    int32_t back;      /* 1: each hop goes back to its caller, not on */
};

struct outcome {
    int32_t rc;  /* the status of the call that ended the chain */
    int32_t hop; /* the hop whose handler got it */
};

/* Calls itself on the next PE (or back on its caller) until `remaining`
 * runs out or a call fails, and answers who stopped the chain and why. */
static size_t bounce(const aos_rpc_info_t *info, const void *args, size_t len, void *reply,
                     size_t cap)
{
    struct hop h;
    CHECK(len == sizeof h && cap >= sizeof(struct outcome));
    memcpy(&h, args, sizeof h);
    struct outcome out = {.rc = AOS_OK, .hop = h.hop};
    if (h.remaining > 0) {
        struct hop next = {.remaining = h.remaining - 1, .hop = h.hop + 1, .back = h.back};
        int to = h.back ? info->caller : (aos_my_pe() + 1) % aos_n_pes();
        size_t got = 0;
        aos_rpc_id_t id = __atomic_load_n(&id_bounce, __ATOMIC_ACQUIRE); /* pairs with main's */
        int rc = aos_rpc(to, id, &next, sizeof next, &out, sizeof out, &got, NULL);
        if (rc != AOS_OK)
            out = (struct outcome){.rc = rc, .hop = h.hop};
        else
            CHECK(got == sizeof out);
    }
    memcpy(reply, &out, sizeof out);
    return sizeof out;
}

#define STAR_HOPS 8
#define STAR_THREADS 3
#define STAR_CHAINS 5

/* Chains of STAR_HOPS calls between this PE and PE 0, one after another. */
static void *star_chains(void *arg)
{
    (void)arg;
    for (int c = 0; c < STAR_CHAINS; c++) {
        struct hop h = {.remaining = STAR_HOPS - 1, .hop = 1, .back = 1};
        struct outcome out = {-1, -1};
        size_t got = 0;
        CHECK_OK(aos_rpc(0, __atomic_load_n(&id_bounce, __ATOMIC_ACQUIRE), &h, sizeof h, &out,
                         sizeof out, &got, NULL));
        CHECK(got == sizeof out);
        CHECK_RC(out.rc, AOS_OK);
        CHECK(out.hop == STAR_HOPS);
    }
    return NULL;
}

static int64_t src[4], dst[4 * 64]; /* symmetric: collective buffers */
/* aos_malloc'd before the calls. Atomic: with a progress thread the handler
 * reads it on that thread, ordered after main's store only through other
 * PEs (barrier, then their call), which TSan cannot follow. */
static void *heap_block;

/* Tries every call that needs the whole team; each must be refused at once. */
static size_t inside(const aos_rpc_info_t *info, const void *args, size_t len, void *reply,
                     size_t cap)
{
    (void)info;
    (void)args;
    (void)len;
    CHECK(cap >= sizeof(int32_t));
    CHECK_RC(aos_barrier_all(), AOS_ERR_INVALID);
    CHECK_RC(aos_team_sync(aos_team_world()), AOS_ERR_INVALID);
    CHECK_RC(aos_team_barrier(aos_team_node()), AOS_ERR_INVALID);
    CHECK_RC(aos_allreduce(aos_team_world(), dst, src, 4, AOS_TYPE_INT64, AOS_OP_SUM),
             AOS_ERR_INVALID);
    CHECK_RC(aos_reduce(aos_team_world(), dst, src, 4, AOS_TYPE_INT64, AOS_OP_SUM, 0),
             AOS_ERR_INVALID);
    CHECK_RC(aos_broadcast(aos_team_world(), dst, src, sizeof src, 0), AOS_ERR_INVALID);
    CHECK_RC(aos_fcollect(aos_team_world(), dst, src, sizeof src), AOS_ERR_INVALID);
    CHECK_RC(aos_collect(aos_team_world(), dst, src, sizeof src), AOS_ERR_INVALID);
    CHECK_RC(aos_alltoall(aos_team_world(), dst, src, sizeof(int64_t)), AOS_ERR_INVALID);
    aos_team_t *t = NULL;
    CHECK_RC(aos_team_split_strided(aos_team_world(), 0, 1, aos_n_pes(), &t), AOS_ERR_INVALID);
    CHECK(aos_malloc(64) == NULL);
    CHECK(aos_calloc(4, 16) == NULL);
    CHECK(aos_align(64, 64) == NULL);
    void *block = __atomic_load_n(&heap_block, __ATOMIC_ACQUIRE); /* pairs with main's */
    CHECK(aos_realloc(block, 128) == NULL);
    aos_free(block); /* refused (a message), the block stays */
    CHECK_RC(aos_finalize(), AOS_ERR_INVALID);
    CHECK(aos_initialized() == 1);
    /* Calls that involve only me and the caller still work. */
    CHECK(aos_team_n_pes(aos_team_world()) == aos_n_pes());
    int32_t ok = 1;
    memcpy(reply, &ok, sizeof ok);
    return sizeof ok;
}

int main(void)
{
    alarm(60); /* a deadlock fails the test instead of waiting for aosrun */
    CHECK_OK(aos_init());
    int me = aos_my_pe(), n = aos_n_pes();
    aos_rpc_id_t id;
    CHECK_OK(aos_rpc_register("bounce", bounce, 0, &id));
    __atomic_store_n(&id_bounce, id, __ATOMIC_RELEASE); /* pairs with bounce's */
    CHECK_OK(aos_rpc_register("inside", inside, 0, &id_inside));
    void *block = aos_malloc(64);
    CHECK(block != NULL);
    __atomic_store_n(&heap_block, block, __ATOMIC_RELEASE); /* pairs with inside's */
    CHECK_OK(aos_barrier_all());

    /* A short chain within the limit completes. */
    if (me == 0) {
        struct hop h = {.remaining = 2 * n, .hop = 1};
        struct outcome out = {-1, -1};
        size_t got = 0;
        CHECK_OK(aos_rpc(1 % n, id_bounce, &h, sizeof h, &out, sizeof out, &got, NULL));
        CHECK(got == sizeof out && out.rc == AOS_OK && out.hop == 2 * n + 1);
    }
    CHECK_OK(aos_barrier_all());

    /* Hop h's handler is at depth h of the chain, whichever PE runs it:
     * that of hop 16 is the first refused. */
    if (me == 0) {
        struct hop h = {.remaining = 20 * n, .hop = 1};
        struct outcome out = {-1, -1};
        size_t got = 0;
        CHECK_OK(aos_rpc(1 % n, id_bounce, &h, sizeof h, &out, sizeof out, &got, NULL));
        CHECK(got == sizeof out);
        CHECK_RC(out.rc, AOS_ERR_INVALID);
        CHECK(out.hop == AOS_RPC_MAX_DEPTH);
    }
    CHECK_OK(aos_barrier_all());

    /* Chains from STAR_THREADS threads of every other PE at once: PE 0's
     * serving thread runs the handlers of up to STAR_THREADS * (n - 1)
     * chains on its stack at a time, STAR_HOPS / 2 each, more than
     * AOS_RPC_MAX_DEPTH, yet each chain is within it. */
    if (me != 0)
        test_run_threads(STAR_THREADS, star_chains);
    CHECK_OK(aos_barrier_all());

    /* Collectives inside a handler: PE 0 waits in aos_rpc, not in the
     * collective, so each would wait for PE 0 forever. */
    if (me == 0 && n > 1) {
        int32_t ok = 0;
        size_t got = 0;
        CHECK_OK(aos_rpc(1, id_inside, NULL, 0, &ok, sizeof ok, &got, NULL));
        CHECK(got == sizeof ok && ok == 1);
    }
    CHECK_OK(aos_barrier_all());

    /* Outside handlers everything works again. */
    for (int i = 0; i < 4; i++)
        src[i] = me + i;
    CHECK_OK(aos_allreduce(aos_team_world(), dst, src, 4, AOS_TYPE_INT64, AOS_OP_SUM));
    for (int i = 0; i < 4; i++)
        CHECK(dst[i] == (int64_t)n * (n - 1) / 2 + (int64_t)n * i);
    aos_free(block);
    void *p = aos_malloc(64);
    CHECK(p != NULL);
    aos_free(p);
    CHECK_OK(aos_finalize());
    return 0;
}
