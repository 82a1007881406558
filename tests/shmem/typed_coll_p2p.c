/* Every typed collective, reduction and point-to-point routine for every
 * type of the specification's tables (shmem.h's X-macro tables), the
 * deprecated *_to_all reductions, active-set collectives and AMO names,
 * and the remaining untyped routines (mem collectives, fence, pcontrol,
 * cache calls, deprecated allocation and waits), with exact results. */
#include <string.h>

#include "check_shmem.h"

static int me, npes;
static long psync[SHMEM_REDUCE_SYNC_SIZE];

static void reset_psync(void)
{
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
}

/* Element i of PE pe's contribution (small: fits every type at 4 PEs). */
#define VAL(T, pe, i) ((T)((pe) * 16 + (i) + 1))

/* ---- collectives, per type ---------------------------------------------------- */

#define COLL_TYPE(T, N)                                                                    \
    static void coll_##N(void)                                                             \
    {                                                                                      \
        size_t cap = 4 * (size_t)npes;                                                     \
        T *src = shmem_malloc(cap * sizeof(T)), *dst = shmem_malloc(cap * sizeof(T));      \
        CHECK(src != NULL && dst != NULL);                                                 \
        int root = npes - 1;                                                               \
        for (size_t i = 0; i < cap; i++)                                                   \
            src[i] = VAL(T, me, i);                                                        \
        memset(dst, 0, cap * sizeof(T));                                                   \
        CHECK(shmem_##N##_broadcast(SHMEM_TEAM_WORLD, dst, src, 3, root) == 0);            \
        for (int i = 0; i < 3; i++)                                                        \
            CHECK(dst[i] == VAL(T, root, i));                                              \
        /* collect: PE p gives 1 + p % 2 elements */                                       \
        CHECK(shmem_##N##_collect(SHMEM_TEAM_WORLD, dst, src, 1 + (size_t)(me % 2)) == 0); \
        size_t at = 0;                                                                     \
        for (int p = 0; p < npes; p++)                                                     \
            for (int i = 0; i < 1 + p % 2; i++)                                            \
                CHECK(dst[at++] == VAL(T, p, i));                                          \
        CHECK(shmem_##N##_fcollect(SHMEM_TEAM_WORLD, dst, src, 2) == 0);                   \
        for (int p = 0; p < npes; p++)                                                     \
            for (int i = 0; i < 2; i++)                                                    \
                CHECK(dst[p * 2 + i] == VAL(T, p, i));                                     \
        CHECK(shmem_##N##_alltoall(SHMEM_TEAM_WORLD, dst, src, 2) == 0);                   \
        for (int p = 0; p < npes; p++)                                                     \
            for (int i = 0; i < 2; i++)                                                    \
                CHECK(dst[p * 2 + i] == VAL(T, p, me * 2 + i));                            \
        memset(dst, 0, cap * sizeof(T));                                                   \
        CHECK(shmem_##N##_alltoalls(SHMEM_TEAM_WORLD, dst, src, 2, 1, 1) == 0);            \
        for (int p = 0; p < npes; p++)                                                     \
            CHECK(dst[p * 2] == VAL(T, p, me) && dst[p * 2 + 1] == (T)0);                  \
        shmem_free(dst);                                                                   \
        shmem_free(src);                                                                   \
    }
SHMEM__RMA_TYPES(COLL_TYPE)
#undef COLL_TYPE

/* ---- reductions, per type and operation --------------------------------------------- */

#define NRED 3
/* TAG_N_OP(): fills the source with this PE's contribution, reduces with
 * CALL (the 1.5 team form or the deprecated *_to_all one) and checks every
 * element against the fold of every PE's contribution in rank order. */
#define REDUCE_OP(T, N, OP, FOLD, CONTRIB, CALL, TAG)                                      \
    static void TAG##_##N##_##OP(void)                                                     \
    {                                                                                      \
        static T src[NRED], dst[NRED];                                                     \
        for (int i = 0; i < NRED; i++)                                                     \
            src[i] = CONTRIB(T, me, i);                                                    \
        CALL(T, N, OP, dst, src);                                                          \
        for (int i = 0; i < NRED; i++) {                                                   \
            T want = CONTRIB(T, 0, i);                                                     \
            for (int p = 1; p < npes; p++)                                                 \
                want = FOLD(want, CONTRIB(T, p, i));                                       \
            CHECK(dst[i] == want);                                                         \
        }                                                                                  \
    }
#define CALL_TEAM(T, N, OP, d, s)                                                          \
    CHECK(shmem_##N##_##OP##_reduce(SHMEM_TEAM_WORLD, d, s, NRED) == 0)
#define CALL_TO_ALL(T, N, OP, d, s)                                                        \
    do {                                                                                   \
        static T wrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + NRED];                                \
        reset_psync();                                                                     \
        shmem_##N##_##OP##_to_all(d, s, NRED, 0, 0, npes, wrk, psync);                     \
    } while (0)
#define C_ARITH(T, pe, i) ((T)((pe) + 1 + (i)))
#define C_PROD(T, pe, i) ((T)((pe) == 0 ? 2 + (i) : 1))
#define C_BITS(T, pe, i) ((T)((1 << ((pe) % 4)) | ((i) << 4)))
#define F_SUM(a, b) ((a) + (b))
#define F_PROD(a, b) ((a) * (b))
#define F_MAX(a, b) ((a) > (b) ? (a) : (b))
#define F_MIN(a, b) ((a) < (b) ? (a) : (b))
#define F_AND(a, b) ((a) & (b))
#define F_OR(a, b) ((a) | (b))
#define F_XOR(a, b) ((a) ^ (b))

#define RED_BIT(T, N, CALL, TAG)                                                           \
    REDUCE_OP(T, N, and, F_AND, C_BITS, CALL, TAG)                                         \
    REDUCE_OP(T, N, or, F_OR, C_BITS, CALL, TAG)                                           \
    REDUCE_OP(T, N, xor, F_XOR, C_BITS, CALL, TAG)
#define RED_MINMAX(T, N, CALL, TAG)                                                        \
    REDUCE_OP(T, N, max, F_MAX, C_ARITH, CALL, TAG)                                        \
    REDUCE_OP(T, N, min, F_MIN, C_ARITH, CALL, TAG)
#define RED_ARITH(T, N, CALL, TAG)                                                         \
    REDUCE_OP(T, N, sum, F_SUM, C_ARITH, CALL, TAG)                                        \
    REDUCE_OP(T, N, prod, F_PROD, C_PROD, CALL, TAG)
#define TEAM_BIT(T, N) RED_BIT(T, N, CALL_TEAM, team)
#define TEAM_MINMAX(T, N) RED_MINMAX(T, N, CALL_TEAM, team)
#define TEAM_ARITH(T, N) RED_ARITH(T, N, CALL_TEAM, team)
#define TOALL_BIT(T, N) RED_BIT(T, N, CALL_TO_ALL, toall)
#define TOALL_MINMAX(T, N) RED_MINMAX(T, N, CALL_TO_ALL, toall)
#define TOALL_ARITH(T, N) RED_ARITH(T, N, CALL_TO_ALL, toall)
SHMEM__REDUCE_BIT_TYPES(TEAM_BIT)
SHMEM__REDUCE_MINMAX_TYPES(TEAM_MINMAX)
SHMEM__REDUCE_ARITH_TYPES(TEAM_ARITH)
SHMEM__TOALL_BIT_TYPES(TOALL_BIT)
SHMEM__TOALL_MINMAX_TYPES(TOALL_MINMAX)
SHMEM__TOALL_ARITH_TYPES(TOALL_ARITH)

static void reductions(void)
{
#define RUN_BIT(T, N) team_##N##_and(); team_##N##_or(); team_##N##_xor();
#define RUN_MINMAX(T, N) team_##N##_max(); team_##N##_min();
#define RUN_ARITH(T, N) team_##N##_sum(); team_##N##_prod();
    SHMEM__REDUCE_BIT_TYPES(RUN_BIT)
    SHMEM__REDUCE_MINMAX_TYPES(RUN_MINMAX)
    SHMEM__REDUCE_ARITH_TYPES(RUN_ARITH)
#undef RUN_BIT
#undef RUN_MINMAX
#undef RUN_ARITH
#define RUN_BIT(T, N) toall_##N##_and(); toall_##N##_or(); toall_##N##_xor();
#define RUN_MINMAX(T, N) toall_##N##_max(); toall_##N##_min();
#define RUN_ARITH(T, N) toall_##N##_sum(); toall_##N##_prod();
    SHMEM__TOALL_BIT_TYPES(RUN_BIT)
    SHMEM__TOALL_MINMAX_TYPES(RUN_MINMAX)
    SHMEM__TOALL_ARITH_TYPES(RUN_ARITH)
#undef RUN_BIT
#undef RUN_MINMAX
#undef RUN_ARITH
}

/* ---- point-to-point synchronization, per type ------------------------------------- */

#define P2P_TYPE(T, N)                                                                     \
    static void p2p_##N(void)                                                              \
    {                                                                                      \
        T v[4] = {1, 2, 3, 4}, want[4] = {1, 0, 3, 0};                                     \
        int skip_odd[4] = {0, 1, 0, 1}, only2[4] = {1, 1, 0, 1}, skip1[4] = {0, 1, 0, 0};  \
        size_t idx[4] = {9, 9, 9, 9};                                                      \
        shmem_##N##_wait_until(&v[0], SHMEM_CMP_EQ, (T)1);                                 \
        shmem_##N##_wait(&v[1], (T)0); /* deprecated: until != 0 */                        \
        shmem_##N##_wait_until_all(v, 4, NULL, SHMEM_CMP_GE, (T)1);                        \
        CHECK(shmem_##N##_wait_until_any(v, 4, NULL, SHMEM_CMP_EQ, (T)3) == 2);            \
        CHECK(shmem_##N##_wait_until_some(v, 4, idx, NULL, SHMEM_CMP_GE, (T)3) == 2);      \
        CHECK(idx[0] == 2 && idx[1] == 3);                                                 \
        shmem_##N##_wait_until_all_vector(v, 4, skip_odd, SHMEM_CMP_EQ, want);             \
        CHECK(shmem_##N##_wait_until_any_vector(v, 4, only2, SHMEM_CMP_EQ, want) == 2);    \
        CHECK(shmem_##N##_wait_until_some_vector(v, 4, idx, NULL, SHMEM_CMP_EQ, want) == 2); \
        CHECK(idx[0] == 0 && idx[1] == 2);                                                 \
        CHECK(shmem_##N##_test(&v[3], SHMEM_CMP_EQ, (T)4) == 1);                           \
        CHECK(shmem_##N##_test(&v[3], SHMEM_CMP_LT, (T)4) == 0);                           \
        CHECK(shmem_##N##_test_all(v, 4, NULL, SHMEM_CMP_LE, (T)4) == 1);                  \
        CHECK(shmem_##N##_test_all(v, 4, NULL, SHMEM_CMP_LE, (T)3) == 0);                  \
        CHECK(shmem_##N##_test_any(v, 4, NULL, SHMEM_CMP_GT, (T)3) == 3);                  \
        CHECK(shmem_##N##_test_any(v, 4, NULL, SHMEM_CMP_GT, (T)4) == SIZE_MAX);           \
        CHECK(shmem_##N##_test_some(v, 4, idx, NULL, SHMEM_CMP_NE, (T)2) == 3);            \
        CHECK(idx[0] == 0 && idx[1] == 2 && idx[2] == 3);                                  \
        CHECK(shmem_##N##_test_all_vector(v, 4, skip_odd, SHMEM_CMP_EQ, want) == 1);       \
        CHECK(shmem_##N##_test_all_vector(v, 4, NULL, SHMEM_CMP_EQ, want) == 0);           \
        CHECK(shmem_##N##_test_any_vector(v, 4, skip_odd, SHMEM_CMP_NE, want) == SIZE_MAX); \
        CHECK(shmem_##N##_test_any_vector(v, 4, skip1, SHMEM_CMP_NE, want) == 3);          \
        CHECK(shmem_##N##_test_some_vector(v, 4, idx, NULL, SHMEM_CMP_GT, want) == 2);     \
        CHECK(idx[0] == 1 && idx[1] == 3);                                                 \
    }
SHMEM__SYNC_TYPES(P2P_TYPE)
#undef P2P_TYPE

/* A wait a peer ends: my left neighbour sets my flag. */
static long flag;

static void p2p_remote(void)
{
    flag = 0;
    shmem_barrier_all();
    shmem_long_atomic_set(&flag, 1, (me + 1) % npes);
    (shmem_wait_until)(&flag, SHMEM_CMP_EQ, 1); /* the deprecated untyped function */
    shmem_barrier_all();
    shmem_long_atomic_set(&flag, 2, (me + 1) % npes);
    shmem_wait(&flag, 1); /* deprecated: until != 1 */
    CHECK(flag == 2);
    shmem_barrier_all();
}

/* ---- deprecated AMO names ------------------------------------------------------- */

#define OLD_STD(T, N)                                                                      \
    static T old_##N;                                                                      \
    static void old_amo_##N(int right)                                                     \
    {                                                                                      \
        shmem_##N##_set(&old_##N, (T)5, right);                                            \
        CHECK(shmem_##N##_fetch(&old_##N, right) == (T)5);                                 \
        CHECK(shmem_##N##_swap(&old_##N, (T)6, right) == (T)5);                            \
        CHECK(shmem_##N##_cswap(&old_##N, (T)6, (T)7, right) == (T)6);                     \
        CHECK(shmem_##N##_finc(&old_##N, right) == (T)7);                                  \
        shmem_##N##_inc(&old_##N, right);                                                  \
        CHECK(shmem_##N##_fadd(&old_##N, (T)3, right) == (T)9);                            \
        shmem_##N##_add(&old_##N, (T)1, right);                                            \
        shmem_barrier_all();                                                               \
        CHECK(old_##N == (T)13);                                                           \
    }
SHMEM__AMO_OLD_STD_TYPES(OLD_STD)
#undef OLD_STD
#define OLD_EXT(T, N)                                                                      \
    static T oldx_##N;                                                                     \
    static void old_ext_##N(int right)                                                     \
    {                                                                                      \
        shmem_##N##_set(&oldx_##N, (T)1.5, right);                                         \
        CHECK(shmem_##N##_fetch(&oldx_##N, right) == (T)1.5);                              \
        CHECK(shmem_##N##_swap(&oldx_##N, (T)2.5, right) == (T)1.5);                       \
        shmem_barrier_all();                                                               \
        CHECK(oldx_##N == (T)2.5);                                                         \
    }
SHMEM__AMO_EXT_ONLY_TYPES(OLD_EXT)
#undef OLD_EXT

/* ---- untyped and deprecated collectives --------------------------------------------- */

static void mem_and_active_set(void)
{
    size_t cap = 8 * (size_t)npes;
    unsigned char *src = shmem_malloc(cap), *dst = shmem_malloc(cap);
    CHECK(src != NULL && dst != NULL);
    for (size_t i = 0; i < cap; i++)
        src[i] = (unsigned char)(me * 16 + i + 1);
    CHECK(shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, 5, 0) == 0);
    for (int i = 0; i < 5; i++)
        CHECK(dst[i] == i + 1);
    CHECK(shmem_collectmem(SHMEM_TEAM_WORLD, dst, src, 2) == 0);
    CHECK(shmem_fcollectmem(SHMEM_TEAM_WORLD, dst + 2 * npes, src, 2) == 0);
    for (int p = 0; p < npes; p++)
        for (int i = 0; i < 2; i++)
            CHECK(dst[2 * p + i] == p * 16 + i + 1 && dst[2 * npes + 2 * p + i] == p * 16 + i + 1);
    CHECK(shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, 2) == 0);
    for (int p = 0; p < npes; p++)
        CHECK(dst[2 * p] == p * 16 + 2 * me + 1 && dst[2 * p + 1] == p * 16 + 2 * me + 2);
    memset(dst, 0, cap);
    CHECK(shmem_alltoallsmem(SHMEM_TEAM_WORLD, dst, src, 2, 1, 1) == 0);
    for (int p = 0; p < npes; p++)
        CHECK(dst[2 * p] == p * 16 + me + 1 && dst[2 * p + 1] == 0);
    shmem_free(dst);
    shmem_free(src);

    /* active-set forms over every PE, 32- and 64-bit elements */
    int32_t *s32 = shmem_malloc(4 * sizeof(int32_t) * (size_t)npes);
    int32_t *d32 = shmem_malloc(4 * sizeof(int32_t) * (size_t)npes);
    int64_t *s64 = shmem_malloc(4 * sizeof(int64_t) * (size_t)npes);
    int64_t *d64 = shmem_malloc(4 * sizeof(int64_t) * (size_t)npes);
    CHECK(s32 != NULL && d32 != NULL && s64 != NULL && d64 != NULL);
    for (int i = 0; i < 4 * npes; i++) {
        s32[i] = me * 100 + i;
        s64[i] = me * 100 + i;
    }
    reset_psync();
    shmem_broadcast32(d32, s32, 2, 0, 0, 0, npes, psync);
    reset_psync();
    shmem_broadcast64(d64, s64, 2, 0, 0, 0, npes, psync);
    if (me != 0)
        CHECK(d32[0] == 0 && d32[1] == 1 && d64[0] == 0 && d64[1] == 1);
    reset_psync();
    shmem_collect32(d32, s32, 1, 0, 0, npes, psync);
    reset_psync();
    shmem_collect64(d64, s64, 1, 0, 0, npes, psync);
    for (int p = 0; p < npes; p++)
        CHECK(d32[p] == p * 100 && d64[p] == p * 100);
    reset_psync();
    shmem_fcollect32(d32, s32, 2, 0, 0, npes, psync);
    reset_psync();
    shmem_fcollect64(d64, s64, 2, 0, 0, npes, psync);
    for (int p = 0; p < npes; p++)
        CHECK(d32[2 * p + 1] == p * 100 + 1 && d64[2 * p + 1] == p * 100 + 1);
    reset_psync();
    shmem_alltoall32(d32, s32, 1, 0, 0, npes, psync);
    reset_psync();
    shmem_alltoall64(d64, s64, 1, 0, 0, npes, psync);
    for (int p = 0; p < npes; p++)
        CHECK(d32[p] == p * 100 + me && d64[p] == p * 100 + me);
    reset_psync();
    shmem_alltoalls32(d32, s32, 1, 1, 1, 0, 0, npes, psync);
    reset_psync();
    shmem_alltoalls64(d64, s64, 1, 1, 1, 0, 0, npes, psync);
    for (int p = 0; p < npes; p++)
        CHECK(d32[p] == p * 100 + me && d64[p] == p * 100 + me);
    shmem_free(d64);
    shmem_free(s64);
    shmem_free(d32);
    shmem_free(s32);
}

static void misc(void)
{
    shmem_fence();
    shmem_pcontrol(1);
    shmem_pcontrol(0);
    shmem_clear_cache_inv();
    shmem_set_cache_inv();
    shmem_clear_cache_line_inv(&flag);
    shmem_set_cache_line_inv(&flag);
    shmem_udcflush();
    shmem_udcflush_line(&flag);
    shmem_sync_all();
    long *p = shmemalign(4096, 64);
    CHECK(p != NULL && (uintptr_t)p % 4096 == 0);
    p[0] = me;
    p = shrealloc(p, 1 << 20);
    CHECK(p != NULL && p[0] == me);
    shfree(p);
}

/* Started the deprecated way: start_pes, and no shmem_finalize (a
 * successful exit finalizes). */
int main(void)
{
    start_pes(0);
    me = _my_pe();
    npes = _num_pes();
    int right = (me + 1) % npes;
#define RUN(T, N) coll_##N();
    SHMEM__RMA_TYPES(RUN)
#undef RUN
    reductions();
#define RUN(T, N) p2p_##N();
    SHMEM__SYNC_TYPES(RUN)
#undef RUN
    p2p_remote();
#define RUN(T, N) old_amo_##N(right);
    SHMEM__AMO_OLD_STD_TYPES(RUN)
#undef RUN
#define RUN(T, N) old_ext_##N(right);
    SHMEM__AMO_EXT_ONLY_TYPES(RUN)
#undef RUN
    mem_and_active_set();
    misc();
    shmem_barrier_all();
    if (me == 0)
        printf("typed_coll_p2p: every collective, reduction and p2p form and type on %d PEs\n",
               npes);
    return 0;
}
