/* Posted RPCs still running when their callers reach aos_finalize all run
 * to the end, and so do the calls their handlers make: aos_finalize
 * returns on no PE while a call made anywhere has not run. Every PE posts
 * chains of calls that hop from PE to PE and end with a call back to the
 * PE that started them, which counts it in a global variable; each PE
 * then goes straight to aos_finalize and checks the count after it
 * (globals stay usable). So many chains at once fill queues and call
 * records: handlers then post into full targets, which must neither fail
 * nor pile up on the serving thread's stack. */
#include <stdint.h>
#include <string.h>

#include "../common/check.h"

#define CHAINS 300
#define HOPS 3

struct chain {
    int32_t origin;    /* the PE that started it, which counts its end */
    int32_t remaining; /* hops still to make before the call back */
};

/* Atomic: handlers may run on a progress thread (AOS_PROGRESS_THREAD=1),
 * and main reads them after aos_finalize. */
static aos_rpc_id_t id_hop, id_count;
static uint64_t counted;

static size_t count(const aos_rpc_info_t *info, const void *args, size_t len, void *reply,
                    size_t cap)
{
    (void)info, (void)args, (void)reply, (void)cap;
    CHECK(len == 0);
    __atomic_fetch_add(&counted, 1, __ATOMIC_RELAXED); /* read after finalize joins */
    return 0;
}

static size_t hop(const aos_rpc_info_t *info, const void *args, size_t len, void *reply,
                  size_t cap)
{
    (void)info, (void)reply, (void)cap;
    struct chain c;
    CHECK(len == sizeof c);
    memcpy(&c, args, sizeof c);
    /* Acquire: pairs with main's release after registering. */
    if (c.remaining == 0) {
        CHECK_OK(aos_rpc_post(c.origin, __atomic_load_n(&id_count, __ATOMIC_ACQUIRE), NULL, 0));
        return 0;
    }
    c.remaining--;
    int next = (aos_my_pe() + 1) % aos_n_pes();
    CHECK_OK(aos_rpc_post(next, __atomic_load_n(&id_hop, __ATOMIC_ACQUIRE), &c, sizeof c));
    return 0;
}

int main(void)
{
    CHECK_OK(aos_init());
    aos_rpc_id_t h, n;
    CHECK_OK(aos_rpc_register("hop", hop, 0, &h));
    CHECK_OK(aos_rpc_register("count", count, 0, &n));
    __atomic_store_n(&id_hop, h, __ATOMIC_RELEASE);
    __atomic_store_n(&id_count, n, __ATOMIC_RELEASE);
    CHECK_OK(aos_barrier_all()); /* every table is complete before any call */
    int me = aos_my_pe(), npes = aos_n_pes();
    struct chain c = {.origin = me, .remaining = HOPS};
    for (int i = 0; i < CHAINS; i++)
        CHECK_OK(aos_rpc_post((me + 1) % npes, h, &c, sizeof c));
    CHECK_OK(aos_finalize());
    uint64_t got = __atomic_load_n(&counted, __ATOMIC_RELAXED); /* threads are gone */
    CHECK(got == CHAINS);
    return 0;
}
