/* Collective benchmark through MPI (see coll_bench.h). usage: mpi-coll-bench [quick] */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "coll_bench.h"

static void barrier(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

static void bcast(void *buf, size_t bytes)
{
    MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
}

static void allreduce(int64_t *dst, const int64_t *src, size_t count)
{
    MPI_Allreduce(src, dst, (int)count, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct coll_ops ops = {barrier, bcast, allreduce, malloc(COLL_MAX_BCAST),
                           malloc(COLL_MAX_BCAST), 0, 0, 0};
    MPI_Comm_rank(MPI_COMM_WORLD, &ops.me);
    MPI_Comm_size(MPI_COMM_WORLD, &ops.npes);
    coll_bench_run(&ops, argc > 1 && strcmp(argv[1], "quick") == 0);
    MPI_Finalize();
    return 0;
}
