/* Every C11 type-generic name of OpenSHMEM 1.5 (aos/shmem_generic.h), in
 * its default and its context form, on long and unsigned long (and a
 * double and a char where the selection has those), with exact results:
 * a program written with the generic names compiles and does the same as
 * with the typed ones. */
#include <string.h>

#include "check_shmem.h"

static long dst[16], src[16], cell, flags[4];
static unsigned long ucell;
static double dcell;
static uint64_t sig;
static long psync[SHMEM_BARRIER_SYNC_SIZE];

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0);
    for (int i = 0; i < 16; i++)
        src[i] = me * 100 + i;

    /* RMA */
    shmem_put(dst, src, 4, right);
    shmem_put(ctx, dst + 4, src, 4, right);
    shmem_put_nbi(dst + 8, src, 2, right);
    shmem_put_nbi(ctx, dst + 10, src, 2, right);
    shmem_p(&dst[12], src[12], right);
    shmem_p(ctx, &dst[13], src[13], right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int i = 0; i < 4; i++)
        CHECK(dst[i] == left * 100 + i && dst[4 + i] == left * 100 + i);
    CHECK(dst[8] == left * 100 && dst[11] == left * 100 + 1);
    CHECK(dst[12] == left * 100 + 12 && dst[13] == left * 100 + 13);
    shmem_barrier_all();
    long got[8] = {0};
    shmem_get(got, src, 2, right);
    shmem_get(ctx, got + 2, src, 2, right);
    shmem_get_nbi(got + 4, src, 1, right);
    shmem_get_nbi(ctx, got + 5, src, 1, right);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    CHECK(got[0] == right * 100 && got[3] == right * 100 + 1 && got[4] == right * 100 &&
          got[5] == right * 100);
    CHECK(shmem_g(&src[7], right) == right * 100 + 7 && shmem_g(ctx, &src[8], right) == right * 100 + 8);
    memset(got, 0, sizeof got);
    shmem_iget(got, src, 1, 2, 2, right);
    shmem_iget(ctx, got + 2, src, 1, 3, 2, right);
    CHECK(got[0] == right * 100 && got[1] == right * 100 + 2 && got[3] == right * 100 + 3);
    shmem_barrier_all();
    memset(dst, 0, sizeof dst);
    shmem_barrier_all();
    shmem_iput(dst, src, 2, 1, 2, right);
    shmem_iput(ctx, dst + 1, src, 2, 1, 2, right);
    shmem_put_signal(dst + 8, src, 1, &sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_put_signal(ctx, dst + 9, src, 1, &sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_put_signal_nbi(dst + 10, src, 1, &sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_put_signal_nbi(ctx, dst + 11, src, 1, &sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 4);
    shmem_barrier_all();
    CHECK(dst[0] == left * 100 && dst[1] == left * 100 && dst[2] == left * 100 + 1 &&
          dst[3] == left * 100 + 1 && dst[8] == left * 100 && dst[11] == left * 100);

    /* AMOs on my right neighbour's cells */
    long f = 0;
    shmem_atomic_set(&cell, 10L, right);
    CHECK(shmem_atomic_fetch(&cell, right) == 10);
    CHECK(shmem_atomic_swap(&cell, 11L, right) == 10);
    CHECK(shmem_atomic_compare_swap(&cell, 11L, 12L, right) == 11);
    CHECK(shmem_atomic_fetch_inc(&cell, right) == 12);
    shmem_atomic_inc(&cell, right);
    CHECK(shmem_atomic_fetch_add(&cell, 2L, right) == 14);
    shmem_atomic_add(&cell, 1L, right);
    shmem_atomic_set(ctx, &cell, 20L, right);
    CHECK(shmem_atomic_fetch(ctx, &cell, right) == 20);
    CHECK(shmem_atomic_swap(ctx, &cell, 21L, right) == 20);
    CHECK(shmem_atomic_compare_swap(ctx, &cell, 21L, 22L, right) == 21);
    CHECK(shmem_atomic_fetch_inc(ctx, &cell, right) == 22);
    shmem_atomic_inc(ctx, &cell, right);
    CHECK(shmem_atomic_fetch_add(ctx, &cell, 2L, right) == 24);
    shmem_atomic_add(ctx, &cell, 1L, right); /* 27 */
    shmem_atomic_fetch_nbi(&f, &cell, right);
    shmem_quiet();
    CHECK(f == 27);
    shmem_atomic_swap_nbi(ctx, &f, &cell, 30L, right);
    shmem_ctx_quiet(ctx);
    CHECK(f == 27);
    shmem_atomic_compare_swap_nbi(&f, &cell, 30L, 31L, right);
    shmem_atomic_fetch_inc_nbi(ctx, &f, &cell, right);
    shmem_atomic_fetch_add_nbi(&f, &cell, 1L, right);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    CHECK(f == 32);
    shmem_atomic_fetch_nbi(ctx, &f, &cell, right);
    shmem_atomic_swap_nbi(&f, &cell, 40L, right);
    shmem_atomic_compare_swap_nbi(ctx, &f, &cell, 40L, 41L, right);
    shmem_atomic_fetch_inc_nbi(&f, &cell, right);
    shmem_atomic_fetch_add_nbi(ctx, &f, &cell, 1L, right);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    CHECK(f == 42);
    unsigned long u = 0;
    shmem_atomic_set(&ucell, 0xF0UL, right);
    CHECK(shmem_atomic_fetch_and(&ucell, 0x3CUL, right) == 0xF0);
    CHECK(shmem_atomic_fetch_or(ctx, &ucell, 0x01UL, right) == 0x30);
    CHECK(shmem_atomic_fetch_xor(&ucell, 0x10UL, right) == 0x31);
    shmem_atomic_and(ctx, &ucell, 0x0FUL, right);
    shmem_atomic_or(&ucell, 0x40UL, right);
    shmem_atomic_xor(ctx, &ucell, 0x41UL, right);
    shmem_atomic_and(&ucell, 0xFFUL, right);
    shmem_atomic_or(ctx, &ucell, 0x02UL, right);
    shmem_atomic_xor(&ucell, 0x01UL, right);
    CHECK(shmem_atomic_fetch_and(ctx, &ucell, 0xFFUL, right) == 0x03);
    CHECK(shmem_atomic_fetch_or(&ucell, 0x00UL, right) == 0x03);
    CHECK(shmem_atomic_fetch_xor(ctx, &ucell, 0x00UL, right) == 0x03);
    shmem_atomic_fetch_and_nbi(&u, &ucell, 0x03UL, right);
    shmem_atomic_fetch_or_nbi(ctx, &u, &ucell, 0x04UL, right);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    CHECK(u == 0x03); /* ucell: 0x07 */
    shmem_atomic_fetch_xor_nbi(&u, &ucell, 0x06UL, right);
    shmem_atomic_fetch_and_nbi(ctx, &u, &ucell, 0xFFUL, right);
    shmem_atomic_fetch_or_nbi(&u, &ucell, 0x00UL, right);
    shmem_atomic_fetch_xor_nbi(ctx, &u, &ucell, 0x00UL, right);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    CHECK(u == 0x01);
    shmem_atomic_set(&dcell, 1.25, right);
    CHECK(shmem_atomic_swap(ctx, &dcell, 2.5, right) == 1.25);
    /* the deprecated generic names */
    shmem_set(&cell, 5L, right);
    CHECK(shmem_fetch(&cell, right) == 5 && shmem_swap(&cell, 6L, right) == 5);
    CHECK(shmem_cswap(&cell, 6L, 7L, right) == 6 && shmem_finc(&cell, right) == 7);
    shmem_inc(&cell, right);
    CHECK(shmem_fadd(&cell, 1L, right) == 9);
    shmem_add(&cell, 1L, right);
    shmem_barrier_all();
    CHECK(cell == 11 && ucell == 0x01 && dcell == 2.5);

    /* collectives and reductions */
    long *cs = shmem_malloc(4 * (size_t)n * sizeof(long)), *cd = shmem_malloc(4 * (size_t)n * sizeof(long));
    char *chs = shmem_malloc(4), *chd = shmem_malloc(4);
    CHECK(cs != NULL && cd != NULL && chs != NULL && chd != NULL);
    for (int i = 0; i < 4 * n; i++)
        cs[i] = me * 1000 + i;
    CHECK(shmem_broadcast(SHMEM_TEAM_WORLD, cd, cs, 2, 0) == 0 && cd[1] == 1);
    chs[0] = (char)('a' + me);
    CHECK(shmem_broadcast(SHMEM_TEAM_WORLD, chd, chs, 1, n - 1) == 0 && chd[0] == 'a' + n - 1);
    CHECK(shmem_collect(SHMEM_TEAM_WORLD, cd, cs, 1) == 0 && cd[n - 1] == (n - 1) * 1000);
    CHECK(shmem_fcollect(SHMEM_TEAM_WORLD, cd, cs, 2) == 0 && cd[2 * n - 1] == (n - 1) * 1000 + 1);
    CHECK(shmem_alltoall(SHMEM_TEAM_WORLD, cd, cs, 1) == 0 && cd[n - 1] == (n - 1) * 1000 + me);
    CHECK(shmem_alltoalls(SHMEM_TEAM_WORLD, cd, cs, 1, 1, 1) == 0 && cd[0] == me);
    static long rs[2], rd[2];
    static unsigned long us[1], ud[1];
    rs[0] = me + 1;
    rs[1] = 1;
    us[0] = 1UL << me;
    CHECK(shmem_sum_reduce(SHMEM_TEAM_WORLD, rd, rs, 1) == 0 && rd[0] == (long)n * (n + 1) / 2);
    CHECK(shmem_prod_reduce(SHMEM_TEAM_WORLD, rd, rs + 1, 1) == 0 && rd[0] == 1);
    CHECK(shmem_max_reduce(SHMEM_TEAM_WORLD, rd, rs, 1) == 0 && rd[0] == n);
    CHECK(shmem_min_reduce(SHMEM_TEAM_WORLD, rd, rs, 1) == 0 && rd[0] == 1);
    CHECK(shmem_or_reduce(SHMEM_TEAM_WORLD, ud, us, 1) == 0 && ud[0] == (1UL << n) - 1);
    CHECK(shmem_and_reduce(SHMEM_TEAM_WORLD, ud, us, 1) == 0 && ud[0] == (n == 1 ? 1UL : 0UL));
    CHECK(shmem_xor_reduce(SHMEM_TEAM_WORLD, ud, us, 1) == 0 && ud[0] == (1UL << n) - 1);
    shmem_free(chd);
    shmem_free(chs);
    shmem_free(cd);
    shmem_free(cs);

    /* point-to-point synchronization and sync */
    for (int i = 0; i < 4; i++)
        flags[i] = i;
    long want[4] = {0, 1, 9, 3};
    size_t idx[4];
    shmem_wait_until(&flags[1], SHMEM_CMP_EQ, 1L);
    shmem_wait_until_all(flags, 4, NULL, SHMEM_CMP_GE, 0L);
    CHECK(shmem_wait_until_any(flags, 4, NULL, SHMEM_CMP_EQ, 2L) == 2);
    CHECK(shmem_wait_until_some(flags, 4, idx, NULL, SHMEM_CMP_GT, 1L) == 2 && idx[0] == 2);
    int skip2[4] = {0, 0, 1, 0}, only3[4] = {1, 1, 1, 0};
    shmem_wait_until_all_vector(flags, 4, skip2, SHMEM_CMP_EQ, want);
    CHECK(shmem_wait_until_any_vector(flags, 4, only3, SHMEM_CMP_EQ, want) == 3);
    CHECK(shmem_wait_until_some_vector(flags, 4, idx, NULL, SHMEM_CMP_NE, want) == 1 && idx[0] == 2);
    CHECK(shmem_test(&flags[3], SHMEM_CMP_EQ, 3L) == 1);
    CHECK(shmem_test_all(flags, 4, NULL, SHMEM_CMP_LT, 3L) == 0);
    CHECK(shmem_test_any(flags, 4, NULL, SHMEM_CMP_GT, 2L) == 3);
    CHECK(shmem_test_some(flags, 4, idx, NULL, SHMEM_CMP_LE, 1L) == 2 && idx[1] == 1);
    CHECK(shmem_test_all_vector(flags, 4, skip2, SHMEM_CMP_EQ, want) == 1);
    CHECK(shmem_test_any_vector(flags, 4, NULL, SHMEM_CMP_GT, want) == SIZE_MAX);
    CHECK(shmem_test_some_vector(flags, 4, idx, NULL, SHMEM_CMP_LT, want) == 1 && idx[0] == 2);
    CHECK(shmem_sync(SHMEM_TEAM_WORLD) == 0);
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    shmem_sync(0, 0, n, psync);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    if (me == 0)
        printf("generic_names: every C11 generic name on %d PEs\n", n);
    shmem_finalize();
    return 0;
}
