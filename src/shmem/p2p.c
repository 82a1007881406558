/* Point-to-point synchronization: wait_until and test on one variable, on
 * all / any / some of an array, with one comparison value or a vector of
 * them. One engine compares elements of any width; a single 32- or 64-bit
 * wait takes aos's wait on that word (which sleeps until a write to the
 * word wakes it), everything else aos_wait_ready (woken by any write to
 * this PE's memory). */
#include "shmem/shmem_internal.h"

struct cond {
    const void *ivars;
    size_t nelems, esize;
    int is_signed;
    const int *status; /* non-zero entries are left out; NULL: none */
    int cmp;
    const void *values; /* one value, or nelems of them */
    int vector;
    /* results of the last evaluation */
    size_t index, *indices, found;
};

/* Element i of the variables (an acquire load) or of the values (a plain
 * copy), widened to 64 bits, sign-extended when signed. */
static uint64_t load(const void *base, size_t i, size_t esize, int is_signed, int atomic)
{
    const char *p = (const char *)base + i * esize;
    uint16_t v16 = 0;
    uint32_t v32 = 0;
    uint64_t v64 = 0;
    /* Acquire: pairs with the release (or seq_cst atomic) by which a peer's
     * put or atomic wrote the variable, so data put before it is visible. */
    switch (esize) {
    case 2:
        if (atomic)
            v16 = __atomic_load_n((const uint16_t *)p, __ATOMIC_ACQUIRE);
        else
            memcpy(&v16, p, 2);
        return is_signed ? (uint64_t)(int64_t)(int16_t)v16 : v16;
    case 4:
        if (atomic)
            v32 = __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);
        else
            memcpy(&v32, p, 4);
        return is_signed ? (uint64_t)(int64_t)(int32_t)v32 : v32;
    default:
        if (atomic)
            v64 = __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
        else
            memcpy(&v64, p, 8);
        return v64;
    }
}

int shmem__compare(uint64_t a, int cmp, uint64_t b, int is_signed)
{
    if (is_signed) {
        int64_t x = (int64_t)a, y = (int64_t)b;
        switch (cmp) {
        case SHMEM_CMP_EQ: return x == y;
        case SHMEM_CMP_NE: return x != y;
        case SHMEM_CMP_GT: return x > y;
        case SHMEM_CMP_GE: return x >= y;
        case SHMEM_CMP_LT: return x < y;
        default: return x <= y;
        }
    }
    switch (cmp) {
    case SHMEM_CMP_EQ: return a == b;
    case SHMEM_CMP_NE: return a != b;
    case SHMEM_CMP_GT: return a > b;
    case SHMEM_CMP_GE: return a >= b;
    case SHMEM_CMP_LT: return a < b;
    default: return a <= b;
    }
}

static int excluded(const struct cond *c, size_t i)
{
    return c->status != NULL && c->status[i] != 0;
}

static int met(const struct cond *c, size_t i)
{
    uint64_t v = load(c->ivars, i, c->esize, c->is_signed, 1);
    uint64_t want = load(c->values, c->vector ? i : 0, c->esize, c->is_signed, 0);
    return shmem__compare(v, c->cmp, want, c->is_signed);
}

static size_t eligible(const struct cond *c)
{
    size_t n = 0;
    for (size_t i = 0; i < c->nelems; i++)
        n += !excluded(c, i);
    return n;
}

static int all_met(void *arg)
{
    struct cond *c = arg;
    for (size_t i = 0; i < c->nelems; i++)
        if (!excluded(c, i) && !met(c, i))
            return 0;
    return 1;
}

/* _any searches round robin: from the element after the one this thread's
 * last _any call on the same array returned, so that elements which stay
 * satisfied (flags nobody clears) take turns and none starves. */
static _Thread_local struct {
    const void *ivars;
    size_t next;
} any_turn;

static int any_met(void *arg)
{
    struct cond *c = arg;
    size_t start = any_turn.ivars == c->ivars && any_turn.next < c->nelems ? any_turn.next : 0;
    for (size_t k = 0; k < c->nelems; k++) {
        size_t i = start + k < c->nelems ? start + k : start + k - c->nelems;
        if (!excluded(c, i) && met(c, i)) {
            c->index = i;
            any_turn.ivars = c->ivars;
            any_turn.next = i + 1;
            return 1;
        }
    }
    return 0;
}

static int some_met(void *arg)
{
    struct cond *c = arg;
    c->found = 0;
    for (size_t i = 0; i < c->nelems; i++)
        if (!excluded(c, i) && met(c, i))
            c->indices[c->found++] = i;
    return c->found != 0;
}

static void check(const char *fn, const struct cond *c)
{
    if (c->cmp < SHMEM_CMP_EQ || c->cmp > SHMEM_CMP_LE)
        shmem__fail(fn, AOS_ERR_INVALID);
    if (c->nelems != 0 && (c->ivars == NULL || c->values == NULL))
        shmem__fail(fn, AOS_ERR_NULL);
    if (((uintptr_t)c->ivars & (c->esize - 1)) != 0)
        shmem__fail(fn, AOS_ERR_ALIGN);
}

static void wait_for(const char *fn, aos_ready_fn ready, struct cond *c)
{
    SHMEM__TRY(fn, aos_wait_ready(ready, c, AOS_FOREVER));
}

/* One variable: aos's word wait where there is one for the width. */
static void wait_one(const char *fn, struct cond *c)
{
    check(fn, c);
    aos_cmp_t cmp = (aos_cmp_t)c->cmp;
    uint64_t v = load(c->values, 0, c->esize, c->is_signed, 0);
    if (c->esize == 4 && c->is_signed)
        SHMEM__TRY(fn, aos_wait_until_i32(c->ivars, cmp, (int32_t)v));
    else if (c->esize == 4)
        SHMEM__TRY(fn, aos_wait_until_u32(c->ivars, cmp, (uint32_t)v));
    else if (c->esize == 8 && c->is_signed)
        SHMEM__TRY(fn, aos_wait_until_i64(c->ivars, cmp, (int64_t)v));
    else if (c->esize == 8)
        SHMEM__TRY(fn, aos_wait_until_u64(c->ivars, cmp, v));
    else
        wait_for(fn, all_met, c);
}

static void wait_all(const char *fn, struct cond *c)
{
    check(fn, c);
    if (eligible(c) != 0)
        wait_for(fn, all_met, c);
}

static size_t wait_any(const char *fn, struct cond *c)
{
    check(fn, c);
    if (eligible(c) == 0)
        return SIZE_MAX;
    wait_for(fn, any_met, c);
    return c->index;
}

static size_t wait_some(const char *fn, struct cond *c)
{
    check(fn, c);
    if (c->nelems != 0 && c->indices == NULL)
        shmem__fail(fn, AOS_ERR_NULL);
    if (eligible(c) == 0)
        return 0;
    wait_for(fn, some_met, c);
    return c->found;
}

/* A test drives progress once, as aos_test does: a program that polls
 * with tests and calls nothing else sees an off-node write as soon as its
 * own thread takes it in, not only when the network progress thread, which
 * may share its CPU, gets a turn. */
static void test_start(const char *fn, const struct cond *c)
{
    check(fn, c);
    (void)aos_progress();
}

static int test_all(const char *fn, struct cond *c)
{
    test_start(fn, c);
    return all_met(c);
}

static size_t test_any(const char *fn, struct cond *c)
{
    test_start(fn, c);
    return any_met(c) ? c->index : SIZE_MAX;
}

static size_t test_some(const char *fn, struct cond *c)
{
    test_start(fn, c);
    if (c->nelems != 0 && c->indices == NULL)
        shmem__fail(fn, AOS_ERR_NULL);
    (void)some_met(c);
    return c->found;
}

#define SIGNED(T) (!((T)-1 > (T)1)) /* not "< 0": unsigned types would warn */
#define COND(T, vars, n, st, cmp, vals, vec, idx)                                          \
    (struct cond)                                                                          \
    {                                                                                      \
        .ivars = (vars), .nelems = (n), .esize = sizeof(T), .is_signed = SIGNED(T),        \
        .status = (st), .cmp = (cmp), .values = (vals), .vector = (vec), .indices = (idx)  \
    }

#define P2P(T, N)                                                                          \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                             \
    {                                                                                      \
        struct cond c = COND(T, ivar, 1, NULL, cmp, &cmp_value, 0, NULL);                  \
        wait_one(__func__, &c);                                                            \
    }                                                                                      \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,   \
                                    T cmp_value)                                           \
    {                                                                                      \
        struct cond c = COND(T, ivars, nelems, status, cmp, &cmp_value, 0, NULL);          \
        wait_all(__func__, &c);                                                            \
    }                                                                                      \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp, \
                                      T cmp_value)                                         \
    {                                                                                      \
        struct cond c = COND(T, ivars, nelems, status, cmp, &cmp_value, 0, NULL);          \
        return wait_any(__func__, &c);                                                     \
    }                                                                                      \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,           \
                                       const int *status, int cmp, T cmp_value)            \
    {                                                                                      \
        struct cond c = COND(T, ivars, nelems, status, cmp, &cmp_value, 0, indices);       \
        return wait_some(__func__, &c);                                                    \
    }                                                                                      \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status,     \
                                           int cmp, T *cmp_values)                         \
    {                                                                                      \
        struct cond c = COND(T, ivars, nelems, status, cmp, cmp_values, 1, NULL);          \
        wait_all(__func__, &c);                                                            \
    }                                                                                      \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status,   \
                                             int cmp, T *cmp_values)                       \
    {                                                                                      \
        struct cond c = COND(T, ivars, nelems, status, cmp, cmp_values, 1, NULL);          \
        return wait_any(__func__, &c);                                                     \
    }                                                                                      \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,    \
                                              const int *status, int cmp, T *cmp_values)   \
    {                                                                                      \
        struct cond c = COND(T, ivars, nelems, status, cmp, cmp_values, 1, indices);       \
        return wait_some(__func__, &c);                                                    \
    }                                                                                      \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value)                                    \
    {                                                                                      \
        struct cond c = COND(T, ivar, 1, NULL, cmp, &cmp_value, 0, NULL);                  \
        return test_all(__func__, &c);                                                     \
    }                                                                                      \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp,          \
                             T cmp_value)                                                  \
    {                                                                                      \
        struct cond c = COND(T, ivars, nelems, status, cmp, &cmp_value, 0, NULL);          \
        return test_all(__func__, &c);                                                     \
    }                                                                                      \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,       \
                                T cmp_value)                                               \
    {                                                                                      \
        struct cond c = COND(T, ivars, nelems, status, cmp, &cmp_value, 0, NULL);          \
        return test_any(__func__, &c);                                                     \
    }                                                                                      \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices,                 \
                                 const int *status, int cmp, T cmp_value)                  \
    {                                                                                      \
        struct cond c = COND(T, ivars, nelems, status, cmp, &cmp_value, 0, indices);       \
        return test_some(__func__, &c);                                                    \
    }                                                                                      \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,   \
                                    T *cmp_values)                                         \
    {                                                                                      \
        struct cond c = COND(T, ivars, nelems, status, cmp, cmp_values, 1, NULL);          \
        return test_all(__func__, &c);                                                     \
    }                                                                                      \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status,         \
                                       int cmp, T *cmp_values)                             \
    {                                                                                      \
        struct cond c = COND(T, ivars, nelems, status, cmp, cmp_values, 1, NULL);          \
        return test_any(__func__, &c);                                                     \
    }                                                                                      \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,          \
                                        const int *status, int cmp, T *cmp_values)         \
    {                                                                                      \
        struct cond c = COND(T, ivars, nelems, status, cmp, cmp_values, 1, indices);       \
        return test_some(__func__, &c);                                                    \
    }                                                                                      \
    void shmem_##N##_wait(T *ivar, T cmp_value)                                            \
    {                                                                                      \
        shmem_##N##_wait_until(ivar, SHMEM_CMP_NE, cmp_value);                             \
    }
SHMEM__SYNC_TYPES(P2P)

void shmem_wait(long *ivar, long cmp_value)
{
    shmem_long_wait_until(ivar, SHMEM_CMP_NE, cmp_value);
}

void shmem_wait_until(long *ivar, int cmp, long cmp_value)
{
    shmem_long_wait_until(ivar, cmp, cmp_value);
}
