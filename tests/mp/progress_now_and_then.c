/* A target that calls aos_progress now and then while it computes is still
 * served by its network progress thread between those calls, not one
 * operation per call.
 *
 * PE 0 computes PAUSE_MS at a time (less than the progress thread's
 * longest stand-aside, so every one of those would see the program drive)
 * and calls aos_progress in between, until OPS fetch-adds, shared among
 * the other PEs, have all arrived in its counter. Each other PE checks that
 * the old values it got are distinct, in range and increasing, and PE 0
 * that the counter ends at the exact total. The check is where the adds
 * arrived: PE 0 reads its counter before and after each stretch of
 * computing, and no thread of the program touches aos meanwhile, so an add
 * that lands then was applied by the progress thread. Served only at its
 * calls, PE 0 would see none land while it computes; served by the
 * progress thread, most do, however loaded the machine (a call takes a
 * sliver of the time a stretch of computing does). */
#include "../common/check.h"
#include "../common/spin.h"

#define OPS 1000
#define PAUSE_MS 2

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
        uint64_t while_computing = 0;
        /* Acquire: the fetch-adds' results are in memory when seen. */
        uint64_t now = __atomic_load_n(counter, __ATOMIC_ACQUIRE);
        while (now < total) {
            spin_us(PAUSE_MS * 1000L); /* computes */
            uint64_t after = __atomic_load_n(counter, __ATOMIC_ACQUIRE);
            while_computing += after - now;
            CHECK_OK(aos_progress());
            now = __atomic_load_n(counter, __ATOMIC_ACQUIRE);
        }
        if (while_computing <= total / 2)
            fprintf(stderr, "PE 0: only %llu of %llu fetch-adds landed while it computed\n",
                    (unsigned long long)while_computing, (unsigned long long)total);
        CHECK(while_computing > total / 2);
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
