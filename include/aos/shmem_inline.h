/* OpenSHMEM on aos: the default-context RMA and AMO routines, inline.
 *
 * Included by shmem.h; not a header of its own. A put, get or atomic on the
 * default context is one call into aos: these routines are defined here,
 * static inline, as that call and its error check, so that a SHMEM program
 * pays no second call layer over the native API. Their behaviour is the
 * library's, since the library's functions of these names are compiled from
 * the same definitions (src/shmem/fast.c). The context forms, strided and
 * signal routines, and the deprecated names are the library's alone.
 *
 * Define SHMEM_NO_INLINE before including shmem.h to call the library's
 * functions instead (the library itself is built that way); compilers
 * without GNU C extensions get them too. */
#ifndef AOS_SHMEM_INLINE_H
#define AOS_SHMEM_INLINE_H

#include "aos.h"

/* What the inline routines reach in the library: the calling thread's
 * event (puts attach to it; made on a thread's first operation) and the
 * error report that ends the job. Names with two underscores are not API. */
extern __thread aos_event_t *shmem__thread_ev;
aos_event_t *shmem__thread_event_slow(void);
SHMEM__NORETURN void shmem__fail(const char *fn, int rc);

/* The 32- or 64-bit pattern of a value of `size` bytes: AMO operands of
 * every type travel as unsigned words of their width. */
static inline uint64_t shmem__bits(const void *v, size_t size)
{
    if (size == 4) {
        uint32_t x;
        __builtin_memcpy(&x, v, 4);
        return x;
    }
    uint64_t x;
    __builtin_memcpy(&x, v, 8);
    return x;
}

static inline aos_amo_type_t shmem__amo_type(size_t size)
{
    return size == 4 ? AOS_AMO_U32 : AOS_AMO_U64;
}

/* Pieces of the AMO routines' definitions (here and in src/shmem/amo.c):
 * the value parameters after dest, and a value's bits. */
#define SHMEM__P_VALUE(T) , T value
#define SHMEM__P_COND_VALUE(T) , T cond, T value
#define SHMEM__NO_PARAMS
#define SHMEM__BITS(v) shmem__bits(&(v), sizeof(v))

/* The routines below are static inline in programs; the library compiles
 * them once more as its own exported functions (src/shmem/fast.c defines
 * SHMEM__FAST_DEFINE), so both run the same code. */
#if SHMEM__INLINE
#define SHMEM__FAST static inline
#elif defined(SHMEM__FAST_DEFINE)
#define SHMEM__FAST
#endif

#ifdef SHMEM__FAST

static inline aos_event_t *shmem__ev_fast(void)
{
    aos_event_t *ev = shmem__thread_ev;
    return __builtin_expect(ev != NULL, 1) ? ev : shmem__thread_event_slow();
}

static inline void shmem__check(const char *fn, int rc)
{
    if (__builtin_expect(rc != AOS_OK, 0))
        shmem__fail(fn, rc);
}

static inline size_t shmem__nbytes(size_t nelems, size_t size, const char *fn)
{
    if (__builtin_expect(nelems > SIZE_MAX / size, 0))
        shmem__fail(fn, AOS_ERR_SIZE);
    return nelems * size;
}

/* nbi: source is read until shmem_quiet; else it may be reused on return. */
static inline void shmem__put_fast(void *dest, const void *source, size_t nbytes, int nbi,
                                   int pe, const char *fn)
{
    shmem__check(fn, (nbi ? aos_putmem_nbi : aos_putmem)(pe, dest, source, nbytes,
                                                         shmem__ev_fast()));
}

/* nbi: the data is in dest after shmem_quiet; else on return. */
static inline void shmem__get_fast(void *dest, const void *source, size_t nbytes, int nbi,
                                   int pe, const char *fn)
{
    shmem__check(fn, aos_getmem(pe, dest, source, nbytes, nbi ? shmem__ev_fast() : NULL));
}

/* nbi: *result is set after shmem_quiet; else on return. */
static inline void shmem__amo_fetch_fast(const void *dest, aos_amo_op_t op, size_t size,
                                         uint64_t operand, uint64_t compare, void *result,
                                         int nbi, int pe, const char *fn)
{
    shmem__check(fn, aos_amo_fetch_sym(pe, (void *)dest, op, shmem__amo_type(size), operand,
                                       compare, result, nbi ? shmem__ev_fast() : NULL));
}

static inline void shmem__amo_post_fast(void *dest, aos_amo_op_t op, size_t size,
                                        uint64_t operand, int pe, const char *fn)
{
    shmem__check(fn, aos_amo_post_sym(pe, dest, op, shmem__amo_type(size), operand));
}

#define SHMEM__FAST_CONTIGUOUS(PT, ESIZE, PUT, PUTN, GET, GETN)                            \
    SHMEM__FAST void PUT(PT *dest, const PT *source, size_t nelems, int pe)                \
    {                                                                                      \
        shmem__put_fast(dest, source, shmem__nbytes(nelems, ESIZE, __func__), 0, pe,       \
                        __func__);                                                         \
    }                                                                                      \
    SHMEM__FAST void PUTN(PT *dest, const PT *source, size_t nelems, int pe)               \
    {                                                                                      \
        shmem__put_fast(dest, source, shmem__nbytes(nelems, ESIZE, __func__), 1, pe,       \
                        __func__);                                                         \
    }                                                                                      \
    SHMEM__FAST void GET(PT *dest, const PT *source, size_t nelems, int pe)                \
    {                                                                                      \
        shmem__get_fast(dest, source, shmem__nbytes(nelems, ESIZE, __func__), 0, pe,       \
                        __func__);                                                         \
    }                                                                                      \
    SHMEM__FAST void GETN(PT *dest, const PT *source, size_t nelems, int pe)               \
    {                                                                                      \
        shmem__get_fast(dest, source, shmem__nbytes(nelems, ESIZE, __func__), 1, pe,       \
                        __func__);                                                         \
    }

#define SHMEM__FAST_RMA(T, N)                                                              \
    SHMEM__FAST_CONTIGUOUS(T, sizeof(T), shmem_##N##_put, shmem_##N##_put_nbi,             \
                           shmem_##N##_get, shmem_##N##_get_nbi)                           \
    SHMEM__FAST void shmem_##N##_p(T *dest, T value, int pe)                               \
    {                                                                                      \
        shmem__put_fast(dest, &value, sizeof value, 0, pe, __func__);                      \
    }                                                                                      \
    SHMEM__FAST T shmem_##N##_g(const T *source, int pe)                                   \
    {                                                                                      \
        T value;                                                                           \
        shmem__get_fast(&value, source, sizeof value, 0, pe, __func__);                    \
        return value;                                                                      \
    }

#define SHMEM__FAST_SIZED(S)                                                               \
    SHMEM__FAST_CONTIGUOUS(void, (S) / 8, shmem_put##S, shmem_put##S##_nbi, shmem_get##S,  \
                           shmem_get##S##_nbi)

#define SHMEM__FAST_MEM                                                                    \
    SHMEM__FAST_CONTIGUOUS(void, 1, shmem_putmem, shmem_putmem_nbi, shmem_getmem,          \
                           shmem_getmem_nbi)

/* A fetching AMO (blocking and nbi) and a posted one, named NAME. */
#define SHMEM__FAST_FETCHING(T, N, NAME, OP, PARAMS, OPERAND, COMPARE)                     \
    SHMEM__FAST T shmem_##N##_atomic_##NAME(T *dest PARAMS, int pe)                        \
    {                                                                                      \
        T old;                                                                             \
        shmem__amo_fetch_fast(dest, OP, sizeof(T), OPERAND, COMPARE, &old, 0, pe,          \
                              __func__);                                                   \
        return old;                                                                        \
    }                                                                                      \
    SHMEM__FAST void shmem_##N##_atomic_##NAME##_nbi(T *fetch, T *dest PARAMS, int pe)     \
    {                                                                                      \
        shmem__amo_fetch_fast(dest, OP, sizeof(T), OPERAND, COMPARE, fetch, 1, pe,         \
                              __func__);                                                   \
    }
#define SHMEM__FAST_POSTED(T, N, NAME, OP, PARAMS, OPERAND)                                \
    SHMEM__FAST void shmem_##N##_atomic_##NAME(T *dest PARAMS, int pe)                     \
    {                                                                                      \
        shmem__amo_post_fast(dest, OP, sizeof(T), OPERAND, pe, __func__);                  \
    }

#define SHMEM__FAST_AMO_EXT(T, N)                                                          \
    SHMEM__FAST T shmem_##N##_atomic_fetch(const T *source, int pe)                        \
    {                                                                                      \
        T v;                                                                               \
        shmem__amo_fetch_fast(source, AOS_AMO_READ, sizeof(T), 0, 0, &v, 0, pe, __func__); \
        return v;                                                                          \
    }                                                                                      \
    SHMEM__FAST void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe)       \
    {                                                                                      \
        shmem__amo_fetch_fast(source, AOS_AMO_READ, sizeof(T), 0, 0, fetch, 1, pe,         \
                              __func__);                                                   \
    }                                                                                      \
    SHMEM__FAST_POSTED(T, N, set, AOS_AMO_SET, SHMEM__P_VALUE(T), SHMEM__BITS(value))      \
    SHMEM__FAST_FETCHING(T, N, swap, AOS_AMO_SET, SHMEM__P_VALUE(T), SHMEM__BITS(value), 0)

#define SHMEM__FAST_AMO_STD(T, N)                                                          \
    SHMEM__FAST_FETCHING(T, N, compare_swap, AOS_AMO_CAS, SHMEM__P_COND_VALUE(T),          \
                         SHMEM__BITS(value), SHMEM__BITS(cond))                            \
    SHMEM__FAST_FETCHING(T, N, fetch_inc, AOS_AMO_ADD, SHMEM__NO_PARAMS, 1, 0)             \
    SHMEM__FAST_POSTED(T, N, inc, AOS_AMO_ADD, SHMEM__NO_PARAMS, 1)                        \
    SHMEM__FAST_FETCHING(T, N, fetch_add, AOS_AMO_ADD, SHMEM__P_VALUE(T),                  \
                         SHMEM__BITS(value), 0)                                            \
    SHMEM__FAST_POSTED(T, N, add, AOS_AMO_ADD, SHMEM__P_VALUE(T), SHMEM__BITS(value))

#define SHMEM__FAST_AMO_BIT_OP(T, N, OP, AOS_OP)                                           \
    SHMEM__FAST_FETCHING(T, N, fetch_##OP, AOS_OP, SHMEM__P_VALUE(T), SHMEM__BITS(value),  \
                         0)                                                                \
    SHMEM__FAST_POSTED(T, N, OP, AOS_OP, SHMEM__P_VALUE(T), SHMEM__BITS(value))
#define SHMEM__FAST_AMO_BIT(T, N)                                                          \
    SHMEM__FAST_AMO_BIT_OP(T, N, and, AOS_AMO_AND)                                         \
    SHMEM__FAST_AMO_BIT_OP(T, N, or, AOS_AMO_OR)                                           \
    SHMEM__FAST_AMO_BIT_OP(T, N, xor, AOS_AMO_XOR)

SHMEM__RMA_TYPES(SHMEM__FAST_RMA)
SHMEM__SIZES(SHMEM__FAST_SIZED)
SHMEM__FAST_MEM
SHMEM__AMO_STD_TYPES(SHMEM__FAST_AMO_EXT)
SHMEM__AMO_EXT_ONLY_TYPES(SHMEM__FAST_AMO_EXT)
SHMEM__AMO_STD_TYPES(SHMEM__FAST_AMO_STD)
SHMEM__AMO_BIT_TYPES(SHMEM__FAST_AMO_BIT)

#endif /* SHMEM__FAST */

#endif
