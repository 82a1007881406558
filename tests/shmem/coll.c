/* OpenSHMEM teams and collectives: team queries, splits and translation;
 * team broadcast (the root's dest too), collect with a different size per
 * PE, fcollect, alltoall(s) and reductions on world and on split teams;
 * the deprecated active-set forms on the whole job and on strided subsets
 * (sets of one shape sharing PEs among them)
 * (the root's dest untouched by broadcast32/64), barrier and sync. */
#include <string.h>

#include "check_shmem.h"

static int me, npes;

static void teams(void)
{
    CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me && shmem_team_n_pes(SHMEM_TEAM_WORLD) == npes);
    CHECK(shmem_team_n_pes(SHMEM_TEAM_SHARED) == test_node_pes(me, npes)); /* my node's */
    /* SHMEM_TEAM_SHARED is exactly my node's PEs, and shmem_ptr reaches
     * them all and no PE of another node. */
    static long word; /* symmetric */
    for (int pe = 0; pe < npes; pe++) {
        int in = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED);
        CHECK((in >= 0) == test_same_node(me, pe, npes));
        CHECK((shmem_ptr(&word, pe) != NULL) == test_same_node(me, pe, npes));
        if (in >= 0)
            CHECK(shmem_team_translate_pe(SHMEM_TEAM_SHARED, in, SHMEM_TEAM_WORLD) == pe);
    }
    CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1);
    shmem_team_config_t cfg = {.num_contexts = 3}, got = {0};
    shmem_team_t odd = SHMEM_TEAM_INVALID, x = SHMEM_TEAM_INVALID, y = SHMEM_TEAM_INVALID;
    if (npes >= 2)
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, &cfg,
                                       SHMEM_TEAM_NUM_CONTEXTS, &odd) == 0);
    if (me % 2 == 1) {
        CHECK(odd != SHMEM_TEAM_INVALID && shmem_team_my_pe(odd) == me / 2);
        CHECK(shmem_team_n_pes(odd) == npes / 2);
        CHECK(shmem_team_get_config(odd, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 &&
              got.num_contexts == 3);
        CHECK(shmem_team_translate_pe(odd, 0, SHMEM_TEAM_WORLD) == 1);
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, odd) == me / 2);
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, odd) == -1);
        CHECK(shmem_team_sync(odd) == 0);
        shmem_team_destroy(odd);
    } else {
        CHECK(odd == SHMEM_TEAM_INVALID);
    }
    int xr = npes >= 4 ? 2 : 1;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, xr, NULL, 0, &x, NULL, 0, &y) == 0);
    CHECK(shmem_team_my_pe(x) == me % xr && shmem_team_n_pes(x) == (me / xr == (npes - 1) / xr
                                                                      ? npes - (me / xr) * xr
                                                                      : xr));
    CHECK(shmem_team_my_pe(y) == me / xr);
    CHECK(shmem_team_translate_pe(y, 0, SHMEM_TEAM_WORLD) == me % xr);
    shmem_team_destroy(x);
    shmem_team_destroy(y);
    /* A size that does not fit the parent is an error, not a hang. */
    shmem_team_t bad = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes + 1, NULL, 0, &bad) != 0 &&
          bad == SHMEM_TEAM_INVALID);
}

/* Buffers of on_team, allocated by every PE (allocation is collective over
 * the world, so not inside a team's code). */
enum { M = 53 };
static long *src, *dst, *a2a, *a2b;
static int *isrc, *idst;
static double *dsrc, *ddst;

static void allocate(void)
{
    src = shmem_malloc(M * sizeof(long));
    dst = shmem_malloc((size_t)npes * M * sizeof(long) + 64);
    a2a = shmem_malloc((size_t)npes * 3 * sizeof(long));
    a2b = shmem_malloc((size_t)npes * 6 * sizeof(long));
    isrc = shmem_malloc(M * sizeof(int));
    idst = shmem_malloc(M * sizeof(int));
    dsrc = shmem_malloc(M * sizeof(double));
    ddst = shmem_malloc(M * sizeof(double));
    CHECK(src && dst && a2a && a2b && isrc && idst && dsrc && ddst);
}

/* Collectives on one team, with exact expected values computed locally. */
static void on_team(shmem_team_t team)
{
    if (team == SHMEM_TEAM_INVALID)
        return;
    int r = shmem_team_my_pe(team), n = shmem_team_n_pes(team);
    for (int root = 0; root < n; root += (n > 2 ? n - 1 : 1)) {
        for (int i = 0; i < M; i++)
            src[i] = 1000L * r + i;
        memset(dst, 0xee, (size_t)M * sizeof(long));
        CHECK(shmem_long_broadcast(team, dst, src, M, root) == 0);
        for (int i = 0; i < M; i++)
            CHECK(dst[i] == 1000L * root + i); /* the root's dest as well */
    }
    /* collect: rank k contributes k + 1 elements */
    for (int i = 0; i < M; i++)
        src[i] = 100L * r + i;
    CHECK(shmem_long_collect(team, dst, src, (size_t)r % M + 1) == 0);
    size_t at = 0;
    for (int k = 0; k < n; k++)
        for (int i = 0; i < k % M + 1; i++)
            CHECK(dst[at++] == 100L * k + i);
    CHECK(shmem_long_fcollect(team, dst, src, M) == 0);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < M; i++)
            CHECK(dst[k * M + i] == 100L * k + i);
    /* alltoall: block j of rank r holds r*10+j */
    for (int j = 0; j < n; j++)
        for (int e = 0; e < 3; e++)
            a2a[j * 3 + e] = r * 1000 + j * 10 + e;
    CHECK(shmem_long_alltoall(team, a2b, a2a, 3) == 0);
    for (int k = 0; k < n; k++)
        for (int e = 0; e < 3; e++)
            CHECK(a2b[k * 3 + e] == k * 1000 + r * 10 + e);
    memset(a2b, 0, (size_t)n * 6 * sizeof(long));
    CHECK(shmem_long_alltoalls(team, a2b, a2a, 2, 3, 1) == 0); /* first element of each block */
    for (int k = 0; k < n; k++)
        CHECK(a2b[k * 2] == k * 1000 + r * 10 && a2b[k * 2 + 1] == 0);
    /* reductions */
    for (int i = 0; i < M; i++) {
        isrc[i] = (r + 1) * (i + 1) * (i % 2 ? -1 : 1);
        dsrc[i] = 0.1 * (r + 1) + i;
    }
    CHECK(shmem_int_sum_reduce(team, idst, isrc, M) == 0);
    for (int i = 0; i < M; i++)
        CHECK(idst[i] == n * (n + 1) / 2 * (i + 1) * (i % 2 ? -1 : 1));
    CHECK(shmem_int_max_reduce(team, idst, isrc, M) == 0);
    for (int i = 0; i < M; i++)
        CHECK(idst[i] == (i % 2 ? -(i + 1) : n * (i + 1)));
    CHECK(shmem_int32_xor_reduce(team, idst, isrc, M) == 0);
    for (int i = 0; i < M; i++) {
        int x = 0;
        for (int k = 0; k < n; k++)
            x ^= (k + 1) * (i + 1) * (i % 2 ? -1 : 1);
        CHECK(idst[i] == x);
    }
    CHECK(shmem_double_sum_reduce(team, ddst, dsrc, M) == 0);
    for (int i = 0; i < M; i++) {
        double s = 0;
        for (int k = 0; k < n; k++)
            s += 0.1 * (k + 1) + i; /* rank order: the same bits */
        CHECK(ddst[i] == s);
    }
    CHECK(shmem_double_min_reduce(team, dsrc, dsrc, M) == 0); /* in place */
    for (int i = 0; i < M; i++)
        CHECK(dsrc[i] == 0.1 + i);
    CHECK(shmem_sum_reduce(team, idst, isrc, M) == 0); /* generic */
    CHECK(shmem_broadcastmem(team, dst, src, 0, 0) == 0);
    CHECK(shmem_team_sync(team) == 0);
}

static long pSync[SHMEM_REDUCE_SYNC_SIZE];
static long pWrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 64];
static long long_src[64], long_dst[64 * 16];

/* Active sets: start, log2 stride, size. */
static void active_set(int start, int log, int size)
{
    int stride = 1 << log;
    if (me < start || (me - start) % stride != 0 || (me - start) / stride >= size) {
        shmem_barrier_all();
        return;
    }
    int r = (me - start) / stride;
    for (int i = 0; i < 64; i++)
        long_src[i] = 10000L * me + i;
    memset(long_dst, 0, sizeof long_dst);
    shmem_barrier(start, log, size, pSync);
    int root = size - 1, root_pe = start + root * stride;
    shmem_broadcast64(long_dst, long_src, 7, root, start, log, size, pSync);
    for (int i = 0; i < 7; i++)
        CHECK(long_dst[i] == (me == root_pe ? 0 : 10000L * root_pe + i));
    shmem_fcollect64(long_dst, long_src, 3, start, log, size, pSync);
    for (int k = 0; k < size; k++)
        for (int i = 0; i < 3; i++)
            CHECK(long_dst[k * 3 + i] == 10000L * (start + k * stride) + i);
    shmem_collect64(long_dst, long_src, (size_t)r + 1, start, log, size, pSync);
    int at = 0;
    for (int k = 0; k < size; k++)
        for (int i = 0; i <= k; i++)
            CHECK(long_dst[at++] == 10000L * (start + k * stride) + i);
    shmem_alltoall64(long_dst, long_src, 2, start, log, size, pSync);
    for (int k = 0; k < size; k++)
        for (int e = 0; e < 2; e++)
            CHECK(long_dst[k * 2 + e] == 10000L * (start + k * stride) + r * 2 + e);
    shmem_long_sum_to_all(long_dst, long_src, 64, start, log, size, pWrk, pSync);
    for (int i = 0; i < 64; i++) {
        long s = 0;
        for (int k = 0; k < size; k++)
            s += 10000L * (start + k * stride) + i;
        CHECK(long_dst[i] == s);
    }
    shmem_long_max_to_all(long_src, long_src, 64, start, log, size, pWrk, pSync); /* in place */
    for (int i = 0; i < 64; i++)
        CHECK(long_src[i] == 10000L * (start + (size - 1) * stride) + i);
    shmem_sync(start, log, size, pSync);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        pSync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    teams();
    allocate();
    on_team(SHMEM_TEAM_WORLD);
    shmem_team_t evens = SHMEM_TEAM_INVALID, odds = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens);
    if (npes >= 2)
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odds);
    on_team(evens); /* both halves at once */
    on_team(odds);
    shmem_team_destroy(evens);
    shmem_team_destroy(odds);
    active_set(0, 0, npes);
    if (npes >= 2)
        active_set(1, 0, npes - 1);
    if (npes >= 4)
        active_set(1, 1, npes / 2);
    /* Sets of one shape that share PEs: each PE in two of them. */
    for (int start = 0; start + 1 < npes; start++)
        active_set(start, 0, 2);
    for (int start = 0; start + 2 < npes; start += 2)
        active_set(start, 1, 2);
    /* One member: the stride does not matter, it is one set. */
    active_set(npes - 1, 0, 1);
    active_set(npes - 1, 4, 1);
    shmem_finalize();
    return 0;
}
