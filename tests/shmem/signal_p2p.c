/* Put-with-signal and point-to-point synchronization: the specification's
 * ring of put_signal, set and add signals, signal_fetch and
 * signal_wait_until; wait_until / test with all, any, some and vector
 * forms, status masks and every type width (short included). */
#include <string.h>

#include "check_shmem.h"

#define LEN 1000
#define ROUNDS 200

static int me, npes, right, left;

/* Ring: each round, PE 0 starts a message that travels once around; every
 * PE checks the whole payload when its signal arrives. */
static void ring(void)
{
    long *buf = shmem_calloc(LEN, sizeof(long));
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    long src[LEN] = {0};
    for (int r = 1; r <= ROUNDS && npes > 1; r++) {
        for (int i = 0; i < LEN; i++)
            src[i] = (long)r * LEN + i;
        if (me == 0) {
            shmem_long_put_signal(buf, src, LEN, sig, (uint64_t)r, SHMEM_SIGNAL_SET, right);
            CHECK(shmem_signal_wait_until(sig, SHMEM_CMP_EQ, (uint64_t)r) == (uint64_t)r);
        } else {
            CHECK(shmem_signal_wait_until(sig, SHMEM_CMP_GE, (uint64_t)r) == (uint64_t)r);
        }
        for (int i = 0; i < LEN; i++)
            CHECK(buf[i] == (long)r * LEN + i);
        if (me != 0) { /* pass it on; the last PE hands it back to PE 0 */
            shmem_long_put_signal_nbi(buf, src, LEN, sig, (uint64_t)r, SHMEM_SIGNAL_SET,
                                      right);
            shmem_quiet(); /* src is rewritten next round */
        }
    }
    CHECK(shmem_signal_fetch(sig) == (npes > 1 ? (uint64_t)ROUNDS : 0));
    shmem_barrier_all();
    /* Add signals from every PE accumulate on PE 0. */
    *sig = 0;
    shmem_barrier_all();
    shmem_putmem_signal(&buf[me], &src[0], sizeof(long), sig, 1, SHMEM_SIGNAL_ADD, 0);
    shmem_put64_signal_nbi(&buf[LEN - 1 - me], &src[1], 1, sig, 100, SHMEM_SIGNAL_ADD, 0);
    if (me == 0) {
        CHECK(shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 101 * (uint64_t)npes) ==
              101 * (uint64_t)npes);
        for (int p = 0; p < npes; p++)
            CHECK(buf[p] == src[0] && buf[LEN - 1 - p] == src[1]);
    }
    shmem_barrier_all();
    shmem_free(sig);
    shmem_free(buf);
}

/* Flags set by the left neighbour, one at a time, in an order the waiter
 * does not know; the waiter uses every form to see them. */
#define TEST_P2P(T, NAME)                                                                  \
    static void p2p_##NAME(void)                                                           \
    {                                                                                      \
        enum { K = 6 };                                                                    \
        T *flags = shmem_calloc(K, sizeof(T));                                             \
        T *go = shmem_calloc(1, sizeof(T));                                                \
        const int order[K] = {3, 0, 5, 1, 4, 2};                                           \
        int status[K] = {0, 0, 0, 0, 0, 1}; /* flag 5 left out */                          \
        size_t idx[K];                                                                     \
        T vals[K];                                                                         \
        /* left sets my flags in `order`, one after each of my replies */                  \
        for (int s = 0; s < K; s++) {                                                      \
            shmem_##NAME##_p(&flags[order[s]], (T)(s + 1), right);                         \
            if (s == 0) {                                                                  \
                size_t i = shmem_##NAME##_wait_until_any(flags, K, NULL, SHMEM_CMP_NE, 0); \
                CHECK(i == (size_t)order[0]);                                              \
                CHECK(shmem_##NAME##_test_any(flags, K, NULL, SHMEM_CMP_EQ, (T)1) == i);   \
            } else if (s == 1) {                                                           \
                size_t n = shmem_##NAME##_wait_until_some(flags, K, idx, NULL,             \
                                                          SHMEM_CMP_GT, (T)1);             \
                CHECK(n == 1 && idx[0] == (size_t)order[1]);                               \
            } else {                                                                       \
                shmem_##NAME##_wait_until(&flags[order[s]], SHMEM_CMP_EQ, (T)(s + 1));     \
            }                                                                              \
            shmem_##NAME##_p(go, (T)(s + 1), left);                                        \
            shmem_##NAME##_wait_until(go, SHMEM_CMP_GE, (T)(s + 1));                       \
        }                                                                                  \
        for (int s = 0; s < K; s++)                                                        \
            vals[order[s]] = (T)(s + 1);                                                   \
        shmem_##NAME##_wait_until_all(flags, K, status, SHMEM_CMP_GE, (T)1);               \
        shmem_##NAME##_wait_until_all_vector(flags, K, NULL, SHMEM_CMP_EQ, vals);          \
        CHECK(shmem_##NAME##_test_all(flags, K, NULL, SHMEM_CMP_GT, 0) == 1);              \
        CHECK(shmem_##NAME##_test_all(flags, K, NULL, SHMEM_CMP_GT, (T)1) == 0);           \
        CHECK(shmem_##NAME##_test_all_vector(flags, K, NULL, SHMEM_CMP_EQ, vals) == 1);    \
        CHECK(shmem_##NAME##_test_any_vector(flags, K, status, SHMEM_CMP_GT, vals) ==      \
              SIZE_MAX);                                                                   \
        CHECK(shmem_##NAME##_wait_until_any_vector(flags, K, status, SHMEM_CMP_LE, vals) <  \
              5);                                                                          \
        CHECK(shmem_##NAME##_test_some(flags, K, idx, status, SHMEM_CMP_GE, (T)6) == 1 &&  \
              idx[0] == (size_t)order[5]);                                                 \
        CHECK(shmem_##NAME##_test_some_vector(flags, K, idx, NULL, SHMEM_CMP_NE, vals) ==  \
              0);                                                                          \
        CHECK(shmem_##NAME##_wait_until_some_vector(flags, K, idx, NULL, SHMEM_CMP_EQ,     \
                                                    vals) == K);                           \
        CHECK(shmem_##NAME##_test(&flags[order[2]], SHMEM_CMP_EQ, (T)3) == 1);             \
        for (int i = 0; i < K; i++)                                                        \
            status[i] = 1;                                                                 \
        CHECK(shmem_##NAME##_wait_until_any(flags, K, status, SHMEM_CMP_EQ, 0) == SIZE_MAX); \
        CHECK(shmem_##NAME##_wait_until_some(flags, K, idx, status, SHMEM_CMP_EQ, 0) == 0); \
        shmem_barrier_all();                                                               \
        shmem_free(go);                                                                    \
        shmem_free(flags);                                                                 \
    }
#define SYNC_TYPES(X)                                                                      \
    X(short, short) X(int, int) X(long, long) X(long long, longlong)                       \
    X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)                \
    X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64)                   \
    X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)
SYNC_TYPES(TEST_P2P)

/* Signed comparisons stay signed: -1 < 0 for int, not for unsigned. */
static void signedness(void)
{
    int *i = shmem_malloc(sizeof(int));
    unsigned *u = shmem_malloc(sizeof(unsigned));
    short *s = shmem_malloc(sizeof(short));
    *i = -1;
    *u = (unsigned)-1;
    *s = -2;
    CHECK(shmem_int_test(i, SHMEM_CMP_LT, 0) == 1);
    CHECK(shmem_uint_test(u, SHMEM_CMP_LT, 0) == 0);
    CHECK(shmem_short_test(s, SHMEM_CMP_LT, -1) == 1);
    shmem_int_wait_until(i, SHMEM_CMP_LT, 0);
    shmem_short_wait_until(s, SHMEM_CMP_LE, -2);
    shmem_wait_until(i, SHMEM_CMP_EQ, -1); /* generic */
    shmem_barrier_all();
    shmem_free(s);
    shmem_free(u);
    shmem_free(i);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    ring();
#define RUN(T, NAME) p2p_##NAME();
    SYNC_TYPES(RUN)
    signedness();
    shmem_finalize();
    return 0;
}
