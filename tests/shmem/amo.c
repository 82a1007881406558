/* OpenSHMEM atomics: every PE hammers PE 0 (and its right neighbour) with
 * each standard type's operations, blocking and non-blocking, plain and
 * with a context; counts and returned values are checked exactly. Bitwise
 * operations set and clear one bit per PE; extended types swap and fetch
 * floats by value; the deprecated names and the generic ones work too. */
#include "check_shmem.h"

#define ROUNDS 500

static int me, npes;

#define TEST_STD(T, NAME)                                                                  \
    static void std_##NAME(void)                                                           \
    {                                                                                      \
        T *c = shmem_calloc(4, sizeof(T));                                                 \
        shmem_ctx_t ctx;                                                                   \
        CHECK(shmem_ctx_create(0, &ctx) == 0);                                             \
        T seen_max = 0;                                                                    \
        for (int i = 0; i < ROUNDS; i++) {                                                 \
            T old = shmem_##NAME##_atomic_fetch_inc(&c[0], 0);                             \
            CHECK(old < (T)(ROUNDS * npes));                                               \
            seen_max = old > seen_max ? old : seen_max;                                    \
            shmem_##NAME##_atomic_inc(&c[1], 0);                                           \
            shmem_ctx_##NAME##_atomic_add(ctx, &c[1], (T)2, 0);                            \
            T f = 0;                                                                       \
            shmem_##NAME##_atomic_fetch_add_nbi(&f, &c[2], (T)3, 0);                       \
            shmem_quiet();                                                                 \
            CHECK(f % 3 == 0 && f < (T)(3 * ROUNDS * npes));                               \
        }                                                                                  \
        shmem_ctx_quiet(ctx);                                                              \
        shmem_barrier_all();                                                               \
        if (me == 0) {                                                                     \
            CHECK(c[0] == (T)(ROUNDS * npes));                                             \
            CHECK(c[1] == (T)(3 * ROUNDS * npes));                                         \
            CHECK(c[2] == (T)(3 * ROUNDS * npes));                                         \
        }                                                                                  \
        /* compare_swap: each PE claims slots of a ticket counter in turn. */             \
        int won = 0;                                                                       \
        for (int i = 0; i < ROUNDS; i++) {                                                 \
            T cur = shmem_ctx_##NAME##_atomic_fetch(ctx, &c[3], 0);                        \
            if (shmem_##NAME##_atomic_compare_swap(&c[3], cur, (T)(cur + 1), 0) == cur)     \
                won++;                                                                     \
        }                                                                                  \
        int *wins = shmem_calloc(1, sizeof(int));                                          \
        shmem_int_atomic_add(wins, won, 0);                                                \
        shmem_barrier_all();                                                               \
        if (me == 0)                                                                       \
            CHECK(c[3] == (T)*wins && *wins >= ROUNDS);                                    \
        /* swap and set/fetch */                                                           \
        shmem_barrier_all();                                                               \
        if (me == 0)                                                                       \
            shmem_##NAME##_atomic_set(&c[0], (T)5, npes - 1);                              \
        shmem_barrier_all();                                                               \
        if (me == npes - 1) {                                                              \
            CHECK(shmem_##NAME##_atomic_swap(&c[0], (T)9, me) == (T)5);                    \
            CHECK(shmem_##NAME##_atomic_fetch(&c[0], me) == (T)9);                         \
            T prev = 0;                                                                    \
            shmem_##NAME##_atomic_compare_swap_nbi(&prev, &c[0], (T)9, (T)11, me);         \
            shmem_quiet();                                                                 \
            CHECK(prev == (T)9 && c[0] == (T)11);                                          \
            shmem_##NAME##_atomic_fetch_inc_nbi(&prev, &c[0], me);                         \
            shmem_quiet();                                                                 \
            CHECK(prev == (T)11 && c[0] == (T)12);                                         \
            shmem_##NAME##_atomic_swap_nbi(&prev, &c[0], (T)1, me);                        \
            shmem_##NAME##_atomic_fetch_nbi(&c[1], &c[0], me);                             \
            shmem_quiet();                                                                 \
            CHECK(prev == (T)12 && c[1] == (T)1);                                          \
        }                                                                                  \
        shmem_barrier_all();                                                               \
        shmem_ctx_destroy(ctx);                                                            \
        shmem_free(wins);                                                                  \
        shmem_free(c);                                                                     \
    }
#define STD_TYPES(X)                                                                       \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint)                 \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32)             \
    X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)              \
    X(ptrdiff_t, ptrdiff)
STD_TYPES(TEST_STD)

/* Bitwise: PE p owns bit p % width; or sets, xor flips twice, and clears. */
#define TEST_BIT(T, NAME)                                                                  \
    static void bit_##NAME(void)                                                           \
    {                                                                                      \
        T *w = shmem_calloc(2, sizeof(T));                                                 \
        const int bits = (int)(8 * sizeof(T));                                             \
        T mine = (T)((T)1 << (me % bits)), all = 0;                                        \
        for (int p = 0; p < npes; p++)                                                     \
            all |= (T)((T)1 << (p % bits));                                                \
        shmem_##NAME##_atomic_or(&w[0], mine, 0);                                          \
        T before = shmem_##NAME##_atomic_fetch_xor(&w[1], mine, 0);                        \
        (void)before;                                                                      \
        shmem_barrier_all();                                                               \
        if (me == 0)                                                                       \
            CHECK(w[0] == all);                                                            \
        shmem_barrier_all();                                                               \
        T got = 0;                                                                         \
        shmem_##NAME##_atomic_fetch_and_nbi(&got, &w[0], (T)~mine, 0);                     \
        shmem_##NAME##_atomic_xor(&w[1], mine, 0);                                         \
        shmem_quiet();                                                                     \
        CHECK((got & mine) != 0 || npes > bits);                                           \
        shmem_barrier_all();                                                               \
        if (me == 0 && npes <= bits)                                                       \
            CHECK(w[0] == 0 && w[1] == 0);                                                 \
        shmem_barrier_all();                                                               \
        T o = shmem_##NAME##_atomic_fetch_or(&w[0], mine, 0);                              \
        (void)o;                                                                           \
        shmem_##NAME##_atomic_and(&w[0], (T)~(T)0, 0);                                     \
        T prior = 0;                                                                       \
        shmem_##NAME##_atomic_fetch_or_nbi(&prior, &w[1], (T)0, 0);                        \
        shmem_##NAME##_atomic_fetch_xor_nbi(&prior, &w[1], (T)0, 0);                       \
        shmem_quiet();                                                                     \
        shmem_barrier_all();                                                               \
        if (me == 0)                                                                       \
            CHECK(w[0] == all && shmem_##NAME##_atomic_fetch_and(&w[0], (T)0, 0) == all && \
                  w[0] == 0);                                                              \
        shmem_barrier_all();                                                               \
        shmem_free(w);                                                                     \
    }
#define BIT_TYPES(X)                                                                       \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)         \
    X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)
BIT_TYPES(TEST_BIT)

/* Extended types: floats by value through set, swap and fetch. */
static void extended(void)
{
    double *d = shmem_calloc(1, sizeof(double));
    float *f = shmem_calloc(1, sizeof(float));
    int right = (me + 1) % npes;
    shmem_double_atomic_set(d, 0.5 + me, right);
    shmem_float_atomic_set(f, -1.5f - (float)me, right);
    shmem_barrier_all();
    int left = (me + npes - 1) % npes;
    CHECK(*d == 0.5 + left && *f == -1.5f - (float)left);
    CHECK(shmem_double_atomic_swap(d, 3.25, me) == 0.5 + left);
    CHECK(shmem_double_atomic_fetch(d, me) == 3.25);
    float pf = 0;
    shmem_float_atomic_swap_nbi(&pf, f, 2.0f, me);
    shmem_quiet();
    CHECK(pf == -1.5f - (float)left && shmem_float_atomic_fetch(f, me) == 2.0f);
    shmem_barrier_all();
    shmem_free(f);
    shmem_free(d);
}

/* Deprecated and generic names reach the same operations. */
static void old_and_generic(void)
{
    long *c = shmem_calloc(2, sizeof(long));
    shmem_long_finc(&c[0], 0);
    shmem_long_fadd(&c[0], 2, 0);
    shmem_long_inc(&c[0], 0);
    shmem_long_add(&c[0], 3, 0);
    shmem_atomic_add(&c[1], 10L, 0);
    shmem_atomic_inc(&c[1], 0);
    shmem_barrier_all();
    if (me == 0) {
        CHECK(c[0] == 7L * npes && c[1] == 11L * npes);
        CHECK(shmem_long_cswap(&c[0], 7L * npes, 1, 0) == 7L * npes);
        CHECK(shmem_long_swap(&c[0], 4, 0) == 1 && shmem_long_fetch(&c[0], 0) == 4);
        shmem_long_set(&c[0], 8, 0);
        CHECK(shmem_atomic_fetch(&c[0], 0) == 8);
        CHECK(shmem_atomic_compare_swap(&c[0], 8L, 9L, 0) == 8);
        CHECK(shmem_atomic_fetch_add(&c[0], 1L, 0) == 9 && shmem_atomic_swap(&c[0], 0L, 0) == 10);
    }
    shmem_barrier_all();
    shmem_free(c);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
#define RUN_STD(T, NAME) std_##NAME();
#define RUN_BIT(T, NAME) bit_##NAME();
    STD_TYPES(RUN_STD)
    BIT_TYPES(RUN_BIT)
    extended();
    old_and_generic();
    shmem_finalize();
    return 0;
}
