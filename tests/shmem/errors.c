/* A SHMEM program's mistakes end the job with a message that says what to
 * do (the test runs it and matches the message). argv[1] picks the mistake. */
#include <string.h>

#include "check_shmem.h"

int main(int argc, char **argv)
{
    static long early_lock;
    if (argc > 1 && strcmp(argv[1], "lock_before_init") == 0)
        shmem_set_lock(&early_lock); /* says shmem_init comes first */
    if (argc > 1 && strcmp(argv[1], "sync_before_init") == 0)
        shmem_team_sync(SHMEM_TEAM_WORLD);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long local = 1;
    static long global;
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "nonsymmetric") == 0) {
        shmem_long_p(&local, 2, (me + 1) % npes); /* a stack address */
    } else if (strcmp(what, "pe") == 0) {
        shmem_long_p(&global, 2, npes); /* one past the last PE */
    } else if (strcmp(what, "misaligned") == 0) {
        long *h = shmem_malloc(16);
        shmem_long_atomic_add((long *)((char *)h + 1), 1, 0);
    } else if (strcmp(what, "heap") == 0) {
        void *p = shmem_malloc((size_t)1 << 40); /* beyond SHMEM_SYMMETRIC_SIZE */
        CHECK(p == NULL);                        /* NULL, with the message */
        shmem_finalize();
        return 0;
    } else if (strcmp(what, "double_free") == 0) {
        long *h = shmem_malloc(16);
        shmem_free(h);
        shmem_free(h); /* ends the job */
    } else if (strcmp(what, "realloc_static") == 0) {
        CHECK(shmem_realloc(&global, 64) == NULL); /* NULL, saying why */
        shmem_finalize();
        return 0;
    } else if (strcmp(what, "clear_unset_lock") == 0) {
        static long lock;
        if (me == 0)
            shmem_clear_lock(&lock); /* never set: ends the job */
        shmem_barrier_all();
    } else if (strcmp(what, "clear_lock_twice") == 0) {
        static long lock;
        static int held;    /* at PE 0: PE 1 holds the lock */
        static int cleared; /* at PE 1: PE 0 has had the lock and cleared it */
        if (me == 0) {
            shmem_set_lock(&lock);
            shmem_clear_lock(&lock);
            shmem_int_p(&cleared, 1, 1);
            shmem_int_wait_until(&held, SHMEM_CMP_EQ, 1);
            shmem_clear_lock(&lock); /* PE 1's now: ends the job */
        } else if (me == 1) {
            shmem_int_wait_until(&cleared, SHMEM_CMP_EQ, 1); /* else it may never clear */
            shmem_set_lock(&lock);
            shmem_int_p(&held, 1, 0);
        }
        shmem_barrier_all();
    } else if (strcmp(what, "global_exit") == 0) {
        if (me == npes - 1)
            shmem_global_exit(7); /* the others wait in the barrier */
        shmem_barrier_all();
        shmem_barrier_all();
    }
    shmem_finalize();
    return 3; /* not reached for the mistakes */
}
