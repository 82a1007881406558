/* Collective benchmark through aos (see coll_bench.h). usage: aos-coll-bench [quick] */
#include <stdlib.h>
#include <string.h>

#include "aos.h"
#include "coll_bench.h"
#include "try.h"

static void barrier(void)
{
    TRY(aos_team_sync(aos_team_world()));
}

static void bcast(void *buf, size_t bytes)
{
    TRY(aos_broadcast(aos_team_world(), buf, buf, bytes, 0));
}

static void allreduce(int64_t *dst, const int64_t *src, size_t count)
{
    TRY(aos_allreduce(aos_team_world(), dst, src, count, AOS_TYPE_INT64, AOS_OP_SUM));
}

int main(int argc, char **argv)
{
    TRY(aos_init());
    struct coll_ops ops = {barrier, bcast, allreduce, aos_malloc(COLL_MAX_BCAST),
                           aos_malloc(COLL_MAX_BCAST), aos_my_pe(), aos_n_pes(), 1};
    if (ops.buf == NULL || ops.src == NULL)
        return 1;
    coll_bench_run(&ops, argc > 1 && strcmp(argv[1], "quick") == 0);
    TRY(aos_finalize());
    return 0;
}
