/* A target that calls aos_progress now and then while it computes is still
 * served by its network progress thread between those calls, not one
 * operation per call.
 *
 * PE 0 computes PAUSE_MS at a time (less than the progress thread's
 * longest stand-aside, so every one of those would see the program drive)
 * and calls aos_progress in between, counting the calls, until OPS
 * fetch-adds, shared among the other PEs, have all arrived in its counter.
 * Each other PE checks that the old values it got are distinct, in range
 * and increasing, and PE 0 that the counter ends at the exact total. The
 * count of calls is the check: served only at its calls, PE 0 would need
 * about one per fetch-add; served by the progress thread, a few. Compute
 * time is counted in calls, not measured against a limit. */
#include "../common/check.h"
#include "../common/spin.h"

#define OPS 1000
#define PAUSE_MS 2
/* Far below the one call per fetch-add of a target served only at its
 * calls, far above the handful a served one makes even on a loaded
 * machine (each call is PAUSE_MS apart). */
#define CALLS_MAX (OPS / 2)

int main(void)
{
    CHECK_OK(aos_init());
    int me = aos_my_pe(), n = aos_n_pes();
    uint64_t *counter = aos_malloc(sizeof *counter);
    CHECK(counter != NULL);
    *counter = 0;
    CHECK_OK(aos_barrier_all());
    int mine = n > 1 ? OPS / (n - 1) : 0; /* fetch-adds of each other PE */
    uint64_t total = (uint64_t)mine * (uint64_t)(n - 1);
    if (me == 0) {
        long calls = 0;
        /* Acquire: the fetch-adds' results are in memory when seen. */
        while (__atomic_load_n(counter, __ATOMIC_ACQUIRE) < total) {
            spin_us(PAUSE_MS * 1000L); /* computes */
            CHECK_OK(aos_progress());
            if (++calls == CALLS_MAX)
                fprintf(stderr, "PE 0: %ld calls of aos_progress, %llu of %llu fetch-adds in\n",
                        calls, (unsigned long long)__atomic_load_n(counter, __ATOMIC_ACQUIRE),
                        (unsigned long long)total);
            CHECK(calls < CALLS_MAX);
        }
    } else {
        static uint8_t seen[OPS];
        uint64_t prev = 0;
        for (int i = 0; i < mine; i++) {
            uint64_t old = UINT64_MAX;
            CHECK_OK(aos_amo_fetch_sym(0, counter, AOS_AMO_ADD, AOS_AMO_U64, 1, 0, &old, NULL));
            CHECK(old < total);
            CHECK(seen[old] == 0);
            seen[old] = 1;
            CHECK(i == 0 || old > prev); /* my own adds arrive in order */
            prev = old;
        }
    }
    CHECK_OK(aos_barrier_all());
    if (me == 0)
        CHECK(*counter == total);
    CHECK_OK(aos_finalize());
    return 0;
}
