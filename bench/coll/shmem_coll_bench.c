/* Collective benchmark through OpenSHMEM (built with the system's oshcc;
 * see coll_bench.h): shmem_barrier_all, shmem_broadcast64 and
 * shmem_long_sum_to_all, the calls SHMEM benchmarks use.
 * usage: shmem-coll-bench [quick] */
#include <shmem.h>
#include <stdlib.h>
#include <string.h>

#include "coll_bench.h"

static long psync_b[SHMEM_BCAST_SYNC_SIZE];
static long psync_r[2][SHMEM_REDUCE_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE > COLL_MAX_REDUCE / 16
                     ? SHMEM_REDUCE_MIN_WRKDATA_SIZE
                     : COLL_MAX_REDUCE / 16 + 1];
static int npes, parity;

static void barrier(void)
{
    shmem_barrier_all();
}

static void bcast(void *buf, size_t bytes)
{
    /* 64-bit elements, as broadcast64 moves; 8 bytes and up here. */
    shmem_broadcast64(buf, buf, bytes / 8, 0, 0, 0, npes, psync_b);
}

static void allreduce(int64_t *dst, const int64_t *src, size_t count)
{
    shmem_long_sum_to_all((long *)dst, (const long *)src, (int)count, 0, 0, npes,
                          pwrk, psync_r[parity]);
    parity ^= 1; /* alternating pSync arrays: no barrier needed between calls */
}

int main(int argc, char **argv)
{
    shmem_init();
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
        psync_b[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync_r[0][i] = psync_r[1][i] = SHMEM_SYNC_VALUE;
    npes = shmem_n_pes();
    struct coll_ops ops = {barrier, bcast, allreduce, shmem_malloc(COLL_MAX_BCAST),
                           shmem_malloc(COLL_MAX_BCAST), shmem_my_pe(), npes, 0};
    shmem_barrier_all();
    coll_bench_run(&ops, argc > 1 && strcmp(argv[1], "quick") == 0);
    shmem_finalize();
    return 0;
}
