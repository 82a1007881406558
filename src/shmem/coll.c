/* Team collectives: straight onto aos's (src/coll/), which work on any team
 * with symmetric buffers. They return 0, or non-zero after printing why. */
#include "shmem/shmem_internal.h"


static int team_call(const char *fn, shmem_team_t team)
{
    if (!shmem__st.initialized) {
        shmem__report(fn, AOS_ERR_NOT_INITIALIZED);
        return -1;
    }
    if (!shmem__team_ok(team)) {
        shmem__report(fn, AOS_ERR_INVALID);
        return -1;
    }
    return 0;
}

static int result(const char *fn, int rc)
{
    if (rc == AOS_OK)
        return 0;
    shmem__report(fn, rc);
    return rc;
}

void shmem_barrier_all(void)
{
    SHMEM__TRY(__func__, aos_barrier_all()); /* completes this PE's operations too */
}

void shmem_sync_all(void)
{
    SHMEM__TRY(__func__, aos_team_sync(aos_team_world()));
}

int shmem_team_sync(shmem_team_t team)
{
    if (team_call(__func__, team) != 0)
        return -1;
    return result(__func__, aos_team_sync(team->team));
}

/* nelems elements of size bytes; an overflow is reported. */
static int bytes(const char *fn, size_t nelems, size_t size, size_t *out)
{
    int rc = shmem__bytes(nelems, size, out);
    if (rc != AOS_OK)
        shmem__report(fn, rc);
    return rc;
}

static int broadcast(const char *fn, shmem_team_t team, void *dest, const void *source,
                     size_t nelems, size_t size, int root)
{
    size_t n = 0;
    if (team_call(fn, team) != 0 || bytes(fn, nelems, size, &n) != AOS_OK)
        return -1;
    return result(fn, aos_broadcast(team->team, dest, source, n, root));
}

static int collect(const char *fn, int fixed, shmem_team_t team, void *dest,
                   const void *source, size_t nelems, size_t size)
{
    size_t n = 0;
    if (team_call(fn, team) != 0 || bytes(fn, nelems, size, &n) != AOS_OK)
        return -1;
    return result(fn, fixed ? aos_fcollect(team->team, dest, source, n)
                            : aos_collect(team->team, dest, source, n));
}

static int alltoall(const char *fn, shmem_team_t team, void *dest, const void *source,
                    size_t nelems, size_t size)
{
    size_t n = 0;
    if (team_call(fn, team) != 0 || bytes(fn, nelems, size, &n) != AOS_OK)
        return -1;
    return result(fn, aos_alltoall(team->team, dest, source, n));
}

static int alltoalls(const char *fn, shmem_team_t team, void *dest, const void *source,
                     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t size)
{
    if (team_call(fn, team) != 0)
        return -1;
    if (dst < 1 || sst < 1) {
        shmem__report(fn, AOS_ERR_INVALID);
        return -1;
    }
    return result(fn, aos_alltoalls(team->team, dest, source, (size_t)dst, (size_t)sst,
                                    nelems, size));
}

#define TYPED(T, N)                                                                        \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,  \
                              int PE_root)                                                 \
    {                                                                                      \
        return broadcast(__func__, team, dest, source, nelems, sizeof(T), PE_root);        \
    }                                                                                      \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems)    \
    {                                                                                      \
        return collect(__func__, 0, team, dest, source, nelems, sizeof(T));                \
    }                                                                                      \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems)   \
    {                                                                                      \
        return collect(__func__, 1, team, dest, source, nelems, sizeof(T));                \
    }                                                                                      \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems)   \
    {                                                                                      \
        return alltoall(__func__, team, dest, source, nelems, sizeof(T));                  \
    }                                                                                      \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,  \
                              ptrdiff_t sst, size_t nelems)                                \
    {                                                                                      \
        return alltoalls(__func__, team, dest, source, dst, sst, nelems, sizeof(T));       \
    }
SHMEM__RMA_TYPES(TYPED)
#undef TYPED

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root)
{
    return broadcast(__func__, team, dest, source, nelems, 1, PE_root);
}

int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return collect(__func__, 0, team, dest, source, nelems, 1);
}

int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return collect(__func__, 1, team, dest, source, nelems, 1);
}

int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return alltoall(__func__, team, dest, source, nelems, 1);
}

int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems)
{
    return alltoalls(__func__, team, dest, source, dst, sst, nelems, 1);
}

/* ---- reductions ------------------------------------------------------------------- */

#include "shmem/types.h"

static int reduce(const char *fn, shmem_team_t team, void *dest, const void *source,
                  size_t nreduce, aos_type_t type, aos_op_t op)
{
    if (team_call(fn, team) != 0)
        return -1;
    return result(fn, aos_allreduce(team->team, dest, source, nreduce, type, op));
}

#define REDUCE(T, N, OP, AOP)                                                              \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source,             \
                                  size_t nreduce)                                          \
    {                                                                                      \
        return reduce(__func__, team, dest, source, nreduce, SHMEM__AOS_TYPE(T), AOP);     \
    }
#define BIT(T, N)                                                                          \
    REDUCE(T, N, and, AOS_OP_AND) REDUCE(T, N, or, AOS_OP_OR) REDUCE(T, N, xor, AOS_OP_XOR)
#define MINMAX(T, N) REDUCE(T, N, max, AOS_OP_MAX) REDUCE(T, N, min, AOS_OP_MIN)
#define ARITH(T, N) REDUCE(T, N, sum, AOS_OP_SUM) REDUCE(T, N, prod, AOS_OP_PROD)
SHMEM__REDUCE_BIT_TYPES(BIT)
SHMEM__REDUCE_MINMAX_TYPES(MINMAX)
SHMEM__REDUCE_ARITH_TYPES(ARITH)
