/* OpenSHMEM RMA: every typed put/get/p/g/iput/iget and nbi form, sized and
 * mem forms, contexts (default, created, team contexts numbering PEs in
 * their team), the C11 generic names; exact data checked on the target. */
#include <string.h>

#include "check_shmem.h"

#define N 37 /* odd, so that no size lines up by chance */

static int me, npes, right, left;

/* Each type: put into the right neighbour, get back from the left one, p/g,
 * strided, nbi; a value that depends on the writer, the index and the type. */
#define VAL(T, who, i) ((T)((who) * 100 + (i) + 1))
#define TEST_TYPE(T, NAME)                                                                 \
    static void test_##NAME(void)                                                          \
    {                                                                                      \
        T *dst = shmem_calloc(4 * N, sizeof(T));                                           \
        T src[4 * N], got[N];                                                              \
        CHECK(dst != NULL);                                                                \
        for (int i = 0; i < N; i++)                                                        \
            src[i] = VAL(T, me, i);                                                        \
        shmem_##NAME##_put(dst, src, N, right);                                            \
        shmem_##NAME##_p(&dst[N], VAL(T, me, 99), right);                                  \
        shmem_##NAME##_iput(&dst[2 * N], src, 2, 3, 10, right); /* every 2nd <- every 3rd */ \
        shmem_barrier_all();                                                               \
        for (int i = 0; i < N; i++)                                                        \
            CHECK(dst[i] == VAL(T, left, i));                                              \
        CHECK(dst[N] == VAL(T, left, 99));                                                 \
        for (int k = 0; k < 10; k++) {                                                     \
            CHECK(dst[2 * N + 2 * k] == VAL(T, left, 3 * k));                              \
            CHECK(dst[2 * N + 2 * k + 1] == 0);                                            \
        }                                                                                  \
        memset(got, 0, sizeof got);                                                        \
        shmem_##NAME##_get(got, dst, N, right); /* right's dst holds my values */          \
        for (int i = 0; i < N; i++)                                                        \
            CHECK(got[i] == VAL(T, me, i));                                                \
        CHECK(shmem_##NAME##_g(&dst[N], right) == VAL(T, me, 99));                         \
        memset(got, 0, sizeof got);                                                        \
        shmem_##NAME##_iget(got, &dst[2 * N], 1, 2, 10, right);                            \
        for (int k = 0; k < 10; k++)                                                       \
            CHECK(got[k] == VAL(T, me, 3 * k));                                            \
        shmem_barrier_all();                                                               \
        for (int i = 0; i < N; i++)                                                        \
            src[i] = VAL(T, me + 7, i);                                                    \
        shmem_##NAME##_put_nbi(&dst[3 * N], src, N, right);                                \
        shmem_quiet();                                                                     \
        shmem_barrier_all();                                                               \
        memset(got, 0, sizeof got);                                                        \
        shmem_##NAME##_get_nbi(got, &dst[3 * N], N, me);                                   \
        shmem_quiet();                                                                     \
        for (int i = 0; i < N; i++)                                                        \
            CHECK(got[i] == VAL(T, left + 7, i));                                          \
        shmem_free(dst);                                                                   \
    }
#define ALL_TYPES(X)                                                                       \
    X(float, float) X(double, double) X(long double, longdouble) X(char, char)             \
    X(signed char, schar) X(short, short) X(int, int) X(long, long)                        \
    X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort)               \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)         \
    X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64)                  \
    X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64)          \
    X(size_t, size) X(ptrdiff_t, ptrdiff)
ALL_TYPES(TEST_TYPE)

/* Sized and mem forms move exactly nelems * bits/8 bytes. */
static void test_sized(void)
{
    enum { BYTES = 16 * N };
    unsigned char *dst = shmem_calloc(6, BYTES);
    unsigned char src[BYTES], got[BYTES];
    for (int i = 0; i < BYTES; i++)
        src[i] = (unsigned char)(me * 31 + i);
    shmem_put8(dst, src, 5, right);
    shmem_put16(dst + BYTES, src, 5, right);
    shmem_put32(dst + 2 * BYTES, src, 5, right);
    shmem_put64(dst + 3 * BYTES, src, 5, right);
    shmem_put128(dst + 4 * BYTES, src, 5, right);
    shmem_putmem_nbi(dst + 5 * BYTES, src, 7, right);
    shmem_barrier_all();
    const int len[6] = {5, 10, 20, 40, 80, 7};
    for (int k = 0; k < 6; k++)
        for (int i = 0; i < BYTES; i++)
            CHECK(dst[k * BYTES + i] == (i < len[k] ? (unsigned char)(left * 31 + i) : 0));
    memset(got, 0, sizeof got);
    shmem_get64(got, dst + 3 * BYTES, 5, right);
    for (int i = 0; i < 40; i++)
        CHECK(got[i] == (unsigned char)(me * 31 + i));
    /* iput64: 3 elements of 8 bytes, dest every 2 elements */
    shmem_barrier_all();
    memset(dst, 0, 6 * BYTES);
    shmem_barrier_all();
    shmem_iput64(dst, src, 2, 1, 3, right);
    shmem_barrier_all();
    for (int e = 0; e < 6; e++)
        for (int b = 0; b < 8; b++)
            CHECK(dst[e * 8 + b] == (e % 2 == 0 ? (unsigned char)(left * 31 + (e / 2) * 8 + b) : 0));
    shmem_barrier_all();
    shmem_free(dst);
}

/* Contexts: a created context and a team context whose PE numbers are
 * ranks in the team (here: the even PEs, reversed roles). */
/* Large putmem_nbi from distinct sources, all in flight until quiet; each
 * source is overwritten after quiet and the target holds what it was. */
static void test_large_nbi(void)
{
    enum { SLABS = 6, SLAB = (192 << 10) + 5 };
    unsigned char *dst = shmem_malloc((size_t)SLABS * SLAB);
    unsigned char *src = malloc((size_t)SLABS * SLAB);
    CHECK(dst != NULL && src != NULL);
    for (size_t i = 0; i < (size_t)SLABS * SLAB; i++)
        src[i] = (unsigned char)(me * 13 + i % 251);
    for (int k = 0; k < SLABS; k++)
        shmem_putmem_nbi(dst + (size_t)k * SLAB, src + (size_t)k * SLAB, SLAB, right);
    shmem_quiet();
    memset(src, 0, (size_t)SLABS * SLAB);
    shmem_barrier_all();
    for (size_t i = 0; i < (size_t)SLABS * SLAB; i++)
        CHECK(dst[i] == (unsigned char)(left * 13 + i % 251));
    shmem_barrier_all();
    free(src);
    shmem_free(dst);
}

static void test_contexts(void)
{
    long *dst = shmem_calloc(4, sizeof(long));
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0 && ctx != SHMEM_CTX_INVALID);
    shmem_team_t team;
    CHECK(shmem_ctx_get_team(ctx, &team) == 0 && team == SHMEM_TEAM_WORLD);
    shmem_ctx_long_p(ctx, &dst[0], 10 + me, right);
    long v = 20 + me;
    shmem_ctx_long_put_nbi(ctx, &dst[1], &v, 1, right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK(dst[0] == 10 + left && dst[1] == 20 + left);
    CHECK(shmem_ctx_long_g(ctx, &dst[0], right) == 10 + me);
    shmem_ctx_destroy(ctx);

    shmem_team_t evens = SHMEM_TEAM_INVALID;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens) == 0);
    if (me % 2 == 0) {
        CHECK(evens != SHMEM_TEAM_INVALID);
        shmem_ctx_t tctx;
        CHECK(shmem_team_create_ctx(evens, 0, &tctx) == 0);
        int r = shmem_team_my_pe(evens), tn = shmem_team_n_pes(evens);
        int to = (r + 1) % tn; /* a rank of the team */
        shmem_ctx_long_p(tctx, &dst[2], 1000 + me, to);
        shmem_ctx_quiet(tctx);
        CHECK(shmem_ctx_get_team(tctx, &team) == 0 && team == evens);
        shmem_ctx_destroy(tctx);
    } else {
        CHECK(evens == SHMEM_TEAM_INVALID);
    }
    shmem_barrier_all();
    if (me % 2 == 0) {
        int tn = shmem_team_n_pes(evens), r = shmem_team_my_pe(evens);
        int from = shmem_team_translate_pe(evens, (r + tn - 1) % tn, SHMEM_TEAM_WORLD);
        CHECK(dst[2] == 1000 + from);
        shmem_team_destroy(evens);
    }
    shmem_barrier_all();
    shmem_free(dst);
}

/* The C11 generic names pick the typed routine from the pointer. */
static void test_generic(void)
{
    double *d = shmem_calloc(N, sizeof(double));
    unsigned short *u = shmem_calloc(N, sizeof(unsigned short));
    double ds[N];
    unsigned short us[N];
    for (int i = 0; i < N; i++) {
        ds[i] = me + i * 0.5;
        us[i] = (unsigned short)(60000 + me + i);
    }
    shmem_put(d, ds, N, right);
    shmem_put(SHMEM_CTX_DEFAULT, u, us, N, right);
    shmem_p(&d[0], -1.25, right);
    shmem_barrier_all();
    CHECK(d[0] == -1.25 && shmem_g(&d[0], me) == -1.25);
    for (int i = 1; i < N; i++)
        CHECK(d[i] == left + i * 0.5);
    for (int i = 0; i < N; i++)
        CHECK(u[i] == (unsigned short)(60000 + left + i));
    const double *cd = d;
    CHECK(shmem_g(cd + 1, me) == left + 0.5); /* a const source selects as well */
    shmem_barrier_all();
    shmem_free(u);
    shmem_free(d);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
#define RUN(T, NAME) test_##NAME();
    ALL_TYPES(RUN)
    test_sized();
    test_large_nbi();
    test_contexts();
    test_generic();
    shmem_finalize();
    return 0;
}
