/* shmem_test, shmem_test_all/any/some and shmem_signal_fetch drive
 * progress: a PE that polls with them alone serves the RPCs other PEs call
 * on it (aos runs RPC handlers when the PE waits, tests or progresses, and
 * no thread runs them otherwise without AOS_PROGRESS_THREAD), so a handler
 * that sets the polled variable ends the poll. A test that looked at the
 * variable alone would poll forever (the job's --timeout ends it). Run on
 * one node and across pseudo-nodes. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "aos.h"

static long flag;
static uint64_t sig;

static size_t raise_flag(const aos_rpc_info_t *info, const void *args, size_t len,
                         void *reply, size_t reply_cap)
{
    (void)info, (void)reply, (void)reply_cap;
    long v = 0;
    if (len == sizeof v)
        memcpy(&v, args, sizeof v);
    /* Release: pairs with the acquire loads of the tests. */
    __atomic_store_n(&sig, (uint64_t)v, __ATOMIC_RELEASE);
    __atomic_store_n(&flag, v, __ATOMIC_RELEASE);
    return 0;
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    aos_rpc_id_t id;
    if (aos_rpc_register("raise_flag", raise_flag, 0, &id) != AOS_OK) {
        fprintf(stderr, "PE %d: aos_rpc_register failed\n", me);
        return 1;
    }
    shmem_barrier_all();
    for (long k = 1; k <= 5 && n > 1; k++) {
        if (me == n - 1 && aos_rpc_post(0, id, &k, sizeof k) != AOS_OK) {
            fprintf(stderr, "PE %d: aos_rpc_post failed\n", me);
            return 1;
        }
        if (me == 0) {
            size_t idx = SIZE_MAX;
            switch (k) {
            case 1:
                while (!shmem_long_test(&flag, SHMEM_CMP_EQ, k))
                    ;
                break;
            case 2:
                while (!shmem_long_test_all(&flag, 1, NULL, SHMEM_CMP_EQ, k))
                    ;
                break;
            case 3:
                while (shmem_long_test_any(&flag, 1, NULL, SHMEM_CMP_EQ, k) == SIZE_MAX)
                    ;
                break;
            case 4:
                while (shmem_long_test_some(&flag, 1, &idx, NULL, SHMEM_CMP_EQ, k) == 0)
                    ;
                if (idx != 0) {
                    fprintf(stderr, "PE 0: test_some gave index %zu\n", idx);
                    return 1;
                }
                break;
            default:
                while (shmem_signal_fetch(&sig) != (uint64_t)k)
                    ;
            }
        }
        shmem_barrier_all();
    }
    if (me == 0)
        printf("ok: %d PEs\n", n);
    shmem_finalize();
    return 0;
}
