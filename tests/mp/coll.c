/* Collectives on every team shape (world, node, cluster, odd/even halves
 * running at the same time, rows and columns of a 2D split, a team of
 * every third PE) and sizes from 0 through the small/large switch points
 * to a few MiB, with roots at both ends and in the middle. Results are
 * checked exactly: integers against sums computed here, floating point
 * bit for bit against a sequential loop over the ranks (the order the
 * library promises). reduce leaves non-root dests untouched. Bad input
 * gets its error on every PE. */
#include <complex.h>
#include <string.h>
#include <unistd.h>

#include "../common/check.h"

#ifndef AOS_TEST_BIG_MIB
#define AOS_TEST_BIG_MIB 3
#endif
#define BIG ((size_t)AOS_TEST_BIG_MIB << 20)

static unsigned char *dst, *src, *ref; /* symmetric (dst, src) and private (ref) */
static size_t cap;                      /* bytes of each */

/* ---- reductions ------------------------------------------------------------ */

/* Element i of rank r's contribution: small, exact in every type, and with
 * products that stay small (factors -1, 1, 2 only now and then). */
static long double value(int r, size_t i, aos_op_t op)
{
    if (op == AOS_OP_PROD)
        return (i + (size_t)r) % 7 == 0 ? 2.0L : ((i + (size_t)r) % 2 ? 1.0L : -1.0L);
    long v = (long)((i * 7 + (size_t)r * 13) % 23) - 11;
    return (long double)v;
}

/* Floating values that round: the order of the fold shows in the bits. */
static long double fvalue(int r, size_t i, aos_op_t op)
{
    if (op == AOS_OP_PROD)
        return 1.0L + 1.0L / (long double)(3 + (i + (size_t)r) % 5);
    return value(r, i, op) / (long double)(1 + (i + (size_t)r) % 3) + 0.1L;
}

#define INT_OPS(T, x, y, op)                                                               \
    ((op) == AOS_OP_SUM    ? (T)((uint64_t)(x) + (uint64_t)(y))                            \
     : (op) == AOS_OP_PROD ? (T)((uint64_t)(x) * (uint64_t)(y))                            \
     : (op) == AOS_OP_MIN  ? ((y) < (x) ? (y) : (x))                                       \
     : (op) == AOS_OP_MAX  ? ((y) > (x) ? (y) : (x))                                       \
     : (op) == AOS_OP_AND  ? (T)((x) & (y))                                                \
     : (op) == AOS_OP_OR   ? (T)((x) | (y))                                                \
                           : (T)((x) ^ (y)))

#define REAL_OPS(T, x, y, op)                                                              \
    ((op) == AOS_OP_SUM    ? (T)((x) + (y))                                                \
     : (op) == AOS_OP_PROD ? (T)((x) * (y))                                                \
     : (op) == AOS_OP_MIN  ? ((y) < (x) ? (y) : (x))                                       \
                           : ((y) > (x) ? (y) : (x)))

#define COMPLEX_OPS(T, x, y, op) ((op) == AOS_OP_SUM ? (T)((x) + (y)) : (T)((x) * (y)))

/* Fills my source and the expected result for one type; W is a wide type in
 * which integer folds cannot overflow (then cast, as the library wraps). */
#define FILL_INT(T)                                                                        \
    {                                                                                      \
        T *s = (T *)(void *)src, *e = (T *)(void *)ref;                                    \
        for (size_t i = 0; i < count; i++) {                                               \
            s[i] = (T)(long)value(me, i, op);                                              \
            T acc = (T)(long)value(0, i, op);                                              \
            for (int r = 1; r < n; r++) {                                                  \
                T v = (T)(long)value(r, i, op);                                            \
                acc = INT_OPS(T, acc, v, op);                                              \
            }                                                                              \
            e[i] = acc;                                                                    \
        }                                                                                  \
    }

#define FILL_REAL(T, OPS, MAKE)                                                            \
    {                                                                                      \
        T *s = (T *)(void *)src, *e = (T *)(void *)ref;                                    \
        for (size_t i = 0; i < count; i++) {                                               \
            s[i] = MAKE(T, me, i);                                                         \
            T acc = MAKE(T, 0, i);                                                         \
            for (int r = 1; r < n; r++) {                                                  \
                T v = MAKE(T, r, i);                                                       \
                acc = OPS(T, acc, v, op);                                                  \
            }                                                                              \
            e[i] = acc;                                                                    \
        }                                                                                  \
    }
#define MAKE_REAL(T, r, i) ((T)fvalue((r), (i), op))
#define MAKE_COMPLEX(T, r, i) ((T)fvalue((r), (i), op) + (T)fvalue((r) + 1, (i), op) * (T)I)

static void fill_reduce(aos_type_t type, aos_op_t op, size_t count, int me, int n)
{
    switch (type) {
    case AOS_TYPE_INT8: FILL_INT(int8_t) break;
    case AOS_TYPE_INT16: FILL_INT(int16_t) break;
    case AOS_TYPE_INT32: FILL_INT(int32_t) break;
    case AOS_TYPE_INT64: FILL_INT(int64_t) break;
    case AOS_TYPE_UINT8: FILL_INT(uint8_t) break;
    case AOS_TYPE_UINT16: FILL_INT(uint16_t) break;
    case AOS_TYPE_UINT32: FILL_INT(uint32_t) break;
    case AOS_TYPE_UINT64: FILL_INT(uint64_t) break;
    case AOS_TYPE_FLOAT: FILL_REAL(float, REAL_OPS, MAKE_REAL) break;
    case AOS_TYPE_DOUBLE: FILL_REAL(double, REAL_OPS, MAKE_REAL) break;
    case AOS_TYPE_LONG_DOUBLE: FILL_REAL(long double, REAL_OPS, MAKE_REAL) break;
    case AOS_TYPE_FLOAT_COMPLEX: FILL_REAL(float _Complex, COMPLEX_OPS, MAKE_COMPLEX) break;
    case AOS_TYPE_DOUBLE_COMPLEX: FILL_REAL(double _Complex, COMPLEX_OPS, MAKE_COMPLEX) break;
    default: CHECK(0);
    }
}

/* Compares element by element on the value bytes (long double has padding). */
static void check_reduced(const void *got, aos_type_t type, size_t count)
{
    size_t ts = aos_type_size(type);
    size_t vs = type == AOS_TYPE_LONG_DOUBLE ? 10 : ts;
    for (size_t i = 0; i < count; i++)
        if (memcmp((const char *)got + i * ts, ref + i * ts, vs) != 0) {
            fprintf(stderr, "PE %d: type %d element %zu of %zu differs\n", aos_my_pe(),
                    (int)type, i, count);
            CHECK(0);
        }
}

static int op_applies(aos_type_t type, aos_op_t op)
{
    if (op >= AOS_OP_AND)
        return type <= AOS_TYPE_UINT64;
    if (op == AOS_OP_MIN || op == AOS_OP_MAX)
        return type != AOS_TYPE_FLOAT_COMPLEX && type != AOS_TYPE_DOUBLE_COMPLEX;
    return 1;
}

static void test_reductions(aos_team_t *team, int full)
{
    int me = aos_team_my_pe(team), n = aos_team_n_pes(team);
    static const size_t counts[] = {0, 1, 3, 31, 32, 33, 64, 65, 1000, 20011};
    size_t ncounts = full ? sizeof counts / sizeof counts[0] : 5;
    for (int type = 0; type < AOS_TYPE_COUNT_; type++)
        for (int op = 0; op < AOS_OP_COUNT_; op++) {
            if (!op_applies((aos_type_t)type, (aos_op_t)op)) {
                CHECK_RC(aos_allreduce(team, dst, src, 1, (aos_type_t)type, (aos_op_t)op),
                         AOS_ERR_INVALID);
                continue;
            }
            for (size_t c = 0; c < ncounts; c++) {
                size_t count = counts[c], bytes = count * aos_type_size((aos_type_t)type);
                CHECK(bytes <= cap);
                fill_reduce((aos_type_t)type, (aos_op_t)op, count, me, n);
                memset(dst, 0xee, bytes + 1);
                CHECK_OK(aos_allreduce(team, dst, src, count, (aos_type_t)type, (aos_op_t)op));
                check_reduced(dst, (aos_type_t)type, count);
                CHECK(dst[bytes] == 0xee);
                int root = (int)(c % (size_t)n);
                memset(dst, 0xee, bytes + 1);
                CHECK_OK(aos_reduce(team, dst, src, count, (aos_type_t)type, (aos_op_t)op, root));
                if (me == root)
                    check_reduced(dst, (aos_type_t)type, count);
                for (size_t i = me == root ? bytes : 0; i <= bytes; i++)
                    CHECK(dst[i] == 0xee);
                /* In place. */
                fill_reduce((aos_type_t)type, (aos_op_t)op, count, me, n);
                CHECK_OK(aos_allreduce(team, src, src, count, (aos_type_t)type, (aos_op_t)op));
                check_reduced(src, (aos_type_t)type, count);
            }
        }
    /* One large sum (the sliced path over many chunks). */
    size_t count = cap / 8;
    int64_t *s = (int64_t *)(void *)src;
    for (size_t i = 0; i < count; i++)
        s[i] = (int64_t)(i * 3 + (size_t)me);
    CHECK_OK(aos_allreduce(team, dst, src, count, AOS_TYPE_INT64, AOS_OP_SUM));
    const int64_t *d = (const int64_t *)(void *)dst;
    for (size_t i = 0; i < count; i++)
        CHECK(d[i] == (int64_t)(i * 3) * n + (int64_t)n * (n - 1) / 2);
}

/* ---- broadcast, gathers, all-to-all ---------------------------------------------- */

static void test_broadcast(aos_team_t *team, const size_t *sizes, size_t nsizes)
{
    int me = aos_team_my_pe(team), n = aos_team_n_pes(team);
    for (size_t k = 0; k < nsizes; k++) {
        int roots[3] = {0, n - 1, n / 2};
        for (int j = 0; j < 3; j++) {
            size_t len = sizes[k];
            unsigned seed = (unsigned)(k * 3 + (size_t)j + 1);
            pattern_fill(src, len, seed + (unsigned)me * 1000u); /* only the root's counts */
            memset(dst, 0xcd, len + 64);
            CHECK_OK(aos_broadcast(team, dst, src, len, roots[j]));
            pattern_fill(ref, len, seed + (unsigned)roots[j] * 1000u);
            CHECK(memcmp(dst, ref, len) == 0);
            for (size_t i = len; i < len + 64; i++)
                CHECK(dst[i] == 0xcd);
        }
        /* In place at the root. */
        pattern_fill(dst, sizes[k], (unsigned)k + 77u);
        if (me != 0)
            memset(dst, 0, sizes[k]);
        CHECK_OK(aos_broadcast(team, dst, dst, sizes[k], 0));
        CHECK(pattern_check(dst, sizes[k], (unsigned)k + 77u) == sizes[k]);
    }
}

/* A stream of broadcasts from one root, then another: across nodes those
 * up to 64 KiB are staged at the children, whose parent pushes broadcast
 * i + 1 once they have entered broadcast i (coll/broadcast.c). Every
 * member scribbles over dst as soon as it has checked it, and some pause
 * at random, so a parent running ahead would show as torn data. Sizes
 * cross the staging and push bound (65536). */
static void test_broadcast_stream(aos_team_t *team)
{
    static const size_t sizes[] = {8, 1024, 1, 65537, 700, 65536, 64, 32768};
    int me = aos_team_my_pe(team), n = aos_team_n_pes(team);
    unsigned rnd = 12345u + (unsigned)me * 7919u;
    for (int i = 0; i < 240; i++) {
        int root = (i / 40 + (i / 40 % 2) * (n / 2)) % n; /* runs of 40 per root */
        size_t len = sizes[(size_t)i % (sizeof sizes / sizeof sizes[0])];
        unsigned seed = (unsigned)i * 131u + 7u;
        pattern_fill(src, len, seed + (unsigned)me); /* only the root's counts */
        CHECK_OK(aos_broadcast(team, dst, src, len, root));
        CHECK(pattern_check(dst, len, seed + (unsigned)root) == len);
        memset(dst, 0xee, len);
        rnd = rnd * 1103515245u + 12345u;
        if ((rnd >> 16) % 8 == 0)
            usleep((rnd >> 20) % 300);
    }
    CHECK_OK(aos_team_sync(team));
}

static void test_gathers(aos_team_t *team, const size_t *sizes, size_t nsizes)
{
    int me = aos_team_my_pe(team), n = aos_team_n_pes(team);
    for (size_t k = 0; k < nsizes; k++) {
        size_t len = sizes[k];
        if (len * (size_t)n > cap)
            continue;
        pattern_fill(src, len, (unsigned)(me + 1) * 31u + (unsigned)k);
        memset(dst, 0xab, len * (size_t)n + 8);
        CHECK_OK(aos_fcollect(team, dst, src, len));
        for (int r = 0; r < n; r++)
            CHECK(pattern_check(dst + (size_t)r * len, len, (unsigned)(r + 1) * 31u + (unsigned)k) == len);
        CHECK(dst[len * (size_t)n] == 0xab);

        /* collect: rank r gives (len + r * 37) % (len + 1) bytes (some give 0). */
        size_t total = 0, mine = (len + (size_t)me * 37) % (len + 1);
        pattern_fill(src, mine, (unsigned)(me + 5) * 17u);
        memset(dst, 0xab, len * (size_t)n + 8);
        CHECK_OK(aos_collect(team, dst, src, mine));
        for (int r = 0; r < n; r++) {
            size_t theirs = (len + (size_t)r * 37) % (len + 1);
            if (pattern_check(dst + total, theirs, (unsigned)(r + 5) * 17u) != theirs)
                fprintf(stderr, "PE %d: collect len %zu from %d (%zu B at %zu): byte %zu\n", me,
                        len, r, theirs, total,
                        pattern_check(dst + total, theirs, (unsigned)(r + 5) * 17u));
            CHECK(pattern_check(dst + total, theirs, (unsigned)(r + 5) * 17u) == theirs);
            total += theirs;
        }
        CHECK(dst[total] == 0xab);

        /* alltoall: block j of rank i is pattern (i, j). */
        for (int j = 0; j < n; j++)
            pattern_fill(src + (size_t)j * len, len, (unsigned)(me * 64 + j));
        CHECK_OK(aos_alltoall(team, dst, src, len));
        for (int i = 0; i < n; i++)
            CHECK(pattern_check(dst + (size_t)i * len, len, (unsigned)(i * 64 + me)) == len);
    }
    /* Strided all-to-all over every element size: element e of the block
     * for rank j is (me, j, e); dest keeps its bytes between elements. */
    static const size_t esizes[] = {1, 2, 4, 8, 16};
    for (size_t es = 0; es < 5; es++) {
        size_t esize = esizes[es], nel = 5, sst = 3, dstr = 2;
        CHECK(((size_t)n * nel * sst + 1) * esize <= cap);
        for (int j = 0; j < n; j++)
            for (size_t e = 0; e < nel; e++)
                memset(src + ((size_t)j * nel + e) * sst * esize, (int)((me * 16 + j) * 8 + (int)e), esize);
        memset(dst, 0x5a, (size_t)n * nel * dstr * esize);
        CHECK_OK(aos_alltoalls(team, dst, src, dstr, sst, nel, esize));
        for (int i = 0; i < n; i++)
            for (size_t e = 0; e < nel; e++) {
                const unsigned char *at = dst + ((size_t)i * nel + e) * dstr * esize;
                for (size_t b = 0; b < esize; b++) {
                    CHECK(at[b] == (unsigned char)((i * 16 + me) * 8 + (int)e));
                    CHECK(at[esize + b] == 0x5a);
                }
            }
    }
}

static void test_errors(aos_team_t *team)
{
    int local = 0;
    int n = aos_team_n_pes(team);
    CHECK_RC(aos_broadcast(team, dst, src, 8, n), AOS_ERR_PE);
    CHECK_RC(aos_broadcast(team, dst, src, 8, -1), AOS_ERR_PE);
    CHECK_RC(aos_broadcast(team, &local, src, sizeof local, 0), AOS_ERR_NOT_SYMMETRIC);
    CHECK_RC(aos_broadcast(team, dst, dst + 4, 8, 0), AOS_ERR_OVERLAP);
    CHECK_RC(aos_broadcast(NULL, dst, src, 8, 0), AOS_ERR_NULL);
    CHECK_RC(aos_allreduce(team, dst, dst + 8, 4, AOS_TYPE_INT64, AOS_OP_SUM), AOS_ERR_OVERLAP);
    CHECK_RC(aos_allreduce(team, dst, src, 1, AOS_TYPE_COUNT_, AOS_OP_SUM), AOS_ERR_INVALID);
    CHECK_RC(aos_allreduce(team, dst, src, 1, AOS_TYPE_INT32, AOS_OP_COUNT_), AOS_ERR_INVALID);
    CHECK_RC(aos_allreduce(team, dst, src, SIZE_MAX / 2, AOS_TYPE_INT32, AOS_OP_SUM), AOS_ERR_SIZE);
    CHECK_RC(aos_allreduce(team, dst, src, (size_t)1 << 37, AOS_TYPE_INT64, AOS_OP_SUM),
             AOS_ERR_BOUNDS); /* runs off the end of the symmetric heap */
    CHECK_RC(aos_reduce(team, dst, src, 1, AOS_TYPE_INT32, AOS_OP_SUM, n), AOS_ERR_PE);
    CHECK_RC(aos_fcollect(team, dst, dst, 8), AOS_ERR_OVERLAP);
    CHECK_RC(aos_fcollect(team, &local, src, sizeof local), AOS_ERR_NOT_SYMMETRIC);
    CHECK_RC(aos_alltoall(team, dst, src, SIZE_MAX / 2 + 1), n > 1 ? AOS_ERR_SIZE : AOS_ERR_BOUNDS);
    CHECK_RC(aos_alltoalls(team, dst, src, 0, 1, 1, 8), AOS_ERR_INVALID);
    CHECK_RC(aos_alltoalls(team, dst, src, 1, 1, 1, 3), AOS_ERR_INVALID);
    CHECK(aos_type_size(AOS_TYPE_DOUBLE) == 8 && aos_type_size(AOS_TYPE_COUNT_) == 0);
    /* collect: one member's source is bad; every member hears of it. */
    int me = aos_team_my_pe(team);
    int rc = aos_collect(team, dst, me == n - 1 ? (void *)&local : (void *)src, 4);
    CHECK(rc == (me == n - 1 ? AOS_ERR_NOT_SYMMETRIC : AOS_ERR_INVALID) || n == 1);
    /* ...or its dest: not symmetric, or overlapped by its own source, which
     * only the total size (known after the sizes are exchanged) shows. */
    rc = aos_collect(team, me == n - 1 ? (void *)&local : (void *)dst, src, 4);
    CHECK(rc == (me == n - 1 ? AOS_ERR_NOT_SYMMETRIC : AOS_ERR_INVALID) || n == 1);
    rc = aos_collect(team, dst, me == n - 1 ? (void *)(dst + 1) : (void *)src, 4);
    CHECK(rc == (me == n - 1 ? AOS_ERR_OVERLAP : AOS_ERR_INVALID) || n == 1);
    /* The team still works. */
    CHECK_OK(aos_team_sync(team));
}

static void test_team(aos_team_t *team, int full)
{
    static const size_t big[] = {0, 1, 7, 512, 513, 4099, 65536, 100003, 0};
    static const size_t gather_sizes[] = {0, 1, 13, 512, 513, 5000, 40000};
    size_t sizes[9];
    memcpy(sizes, big, sizeof big);
    sizes[8] = BIG + 3;
    test_errors(team);
    test_broadcast(team, sizes, full ? 9 : 6);
    test_broadcast_stream(team);
    test_gathers(team, gather_sizes, full ? 7 : 5);
    test_reductions(team, full);
    CHECK_OK(aos_team_barrier(team));
}

int main(void)
{
    CHECK_OK(aos_init());
    int me = aos_my_pe(), npes = aos_n_pes();
    cap = BIG + 4096;
    dst = aos_malloc(cap + 64);
    src = aos_malloc(cap + 64);
    ref = malloc(cap + 64);
    CHECK(dst != NULL && src != NULL && ref != NULL);
    aos_team_t *world = aos_team_world();

    test_team(world, 1);
    test_team(aos_team_cluster(), 0);

    /* Both halves at once. */
    aos_team_t *half = NULL, *other = NULL;
    CHECK_OK(aos_team_split_strided(world, 0, 2, (npes + 1) / 2, me % 2 ? &other : &half));
    if (npes > 1)
        CHECK_OK(aos_team_split_strided(world, 1, 2, npes / 2, me % 2 ? &half : &other));
    CHECK(half != NULL && other == NULL);
    test_team(half, 0);
    CHECK_OK(aos_team_destroy(half));

    /* Rows of 3 and columns, then every third PE. */
    aos_team_t *row, *col, *third = NULL;
    CHECK_OK(aos_team_split_2d(world, 3, &row, &col));
    test_team(row, 0);
    test_team(col, 0);
    CHECK_OK(aos_team_destroy(row));
    CHECK_OK(aos_team_destroy(col));
    CHECK_OK(aos_team_split_strided(world, 0, 3, (npes + 2) / 3, &third));
    if (third != NULL) {
        test_team(third, 0);
        CHECK_OK(aos_team_destroy(third));
    }
    CHECK_OK(aos_barrier_all());
    aos_free(src);
    aos_free(dst);
    free(ref);
    CHECK_OK(aos_finalize());
    return 0;
}
